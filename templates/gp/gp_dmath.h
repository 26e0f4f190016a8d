/* gp_dmath.h: exp, log, sin, cos and tanh in double precision for the
 * Levenberg-Marquardt of gp_lm.h, written once for the host
 * (runtime/gp/gp_constopt.c) and the device (templates/gp/gp_lm.cu) so both
 * fit a program's constants to the same bits.
 *
 * Why not libm / CUDA's exp: glibc's and CUDA's double transcendentals differ
 * in the last bit now and then, and an LM path that parts over one bit ends
 * on other constants (1 program in 100 did). These are Taylor polynomials in
 * Horner form with explicit fused multiply-adds, Cody-Waite reductions with
 * a three-part ln 2 or pi/2, and exponents set in the bits: IEEE operations
 * only, so with contraction off on both sides (gcc -std=c11, NVRTC
 * --fmad=false) every backend computes the same result. Accuracy against
 * libm, measured by tests/gp/test_gp_dmath.c on random arguments (it
 * asserts 4 ulp): exp 1.0 ulp, log 0.74, tanh 2.9; sin and cos 0.5 ulp of 1
 * on |x| <= 2^30 (1.0 ulp relative near 0); beyond that sin and cos take x mod 2^30 (the same bits
 * everywhere and within [-1, 1], but not the true value: a float program's
 * sine means nothing there). */
#ifndef EVO_GP_DMATH_H
#define EVO_GP_DMATH_H

#include "common.h"

#if defined(__CUDA_ARCH__)
#  define GP_D_BITS(d) ((uint64_t)__double_as_longlong(d))
#  define GP_D_FROM(u) __longlong_as_double((long long)(u))
#else
RT_HD uint64_t gp_d_bits_(double d)
{
	union { double d; uint64_t u; } v;
	v.d = d;
	return v.u;
}
RT_HD double gp_d_from_(uint64_t u)
{
	union { double d; uint64_t u; } v;
	v.u = u;
	return v.d;
}
#  define GP_D_BITS(d) gp_d_bits_(d)
#  define GP_D_FROM(u) gp_d_from_(u)
#endif

#define GP_D_INF GP_D_FROM(0x7ff0000000000000ull)
#define GP_D_NAN GP_D_FROM(0x7ff8000000000000ull)

/* ln 2 and pi / 2 in three doubles each (their sum is the number to 150 bits). */
#define GP_D_LN2_1 0x1.62e42fefa39efp-1
#define GP_D_LN2_2 0x1.abc9e3b39803fp-56
#define GP_D_LN2_3 0x1.7b57a079a1934p-111
#define GP_D_PIO2_1 0x1.921fb54442d18p+0
#define GP_D_PIO2_2 0x1.1a62633145c07p-54
#define GP_D_PIO2_3 (-0x1.f1976b7ed8fbcp-110)
#define GP_D_LOG2E 0x1.71547652b82fep+0
#define GP_D_2_OVER_PI 0x1.45f306dc9c883p-1
#define GP_D_SQRT2 0x1.6a09e667f3bcdp+0

/* 2^n, -1022 <= n <= 1023. */
RT_HD double gp_d_pow2_(int n)
{
	return GP_D_FROM((uint64_t)(n + 1023) << 52);
}

/* x * 2^n for |n| up to 2046, rounding once (below 2^-1022 too). */
RT_HD double gp_d_scale_(double x, int n)
{
	if (n > 1023) {
		x *= gp_d_pow2_(1023);
		n -= 1023;
	} else if (n < -1022) {
		x *= gp_d_pow2_(-1022);
		n += 1022;
		if (n < -1022)
			n = -1022;
	}
	return x * gp_d_pow2_(n);
}

/* sum of c[i] * r^i, i < n, in Horner form with fused multiply-adds. */
RT_HD double gp_d_horner_(const double *c, int n, double r)
{
	double p = c[n - 1];
	for (int i = n - 2; i >= 0; i--)
		p = fma(p, r, c[i]);
	return p;
}

/* 1/k!, k = 0 .. 18: the Taylor coefficients of exp, sin and cos. */
#define GP_D_INV_FACT_ \
	{1.0, 1.0, 0.5, 0.16666666666666666, \
	 0.041666666666666664, 0.008333333333333333, 0.001388888888888889, 0.0001984126984126984, \
	 2.48015873015873e-05, 2.7557319223985893e-06, 2.755731922398589e-07, 2.505210838544172e-08, \
	 2.08767569878681e-09, 1.6059043836821613e-10, 1.1470745597729725e-11, 7.647163731819816e-13, \
	 4.779477332387385e-14, 2.8114572543455206e-15, 1.5619206968586225e-16}

/* exp(r) for |r| <= ln(2) / 2 (the series to r^13: error below 1e-17). */
RT_HD double gp_d_exp_poly_(double r)
{
	const double inv_fact[] = GP_D_INV_FACT_;
	return gp_d_horner_(inv_fact, 14, r);
}

RT_HD double gp_exp(double x)
{
	if (!(x == x))
		return x;
	if (x > 710.0)
		return GP_D_INF;
	if (x < -746.0)
		return 0.0;
	double k = floor(x * GP_D_LOG2E + 0.5);
	double r = fma(-k, GP_D_LN2_1, x);
	r = fma(-k, GP_D_LN2_2, r);
	return gp_d_scale_(gp_d_exp_poly_(r), (int)k);
}

/* log x = e ln 2 + log m, m in [sqrt(1/2), sqrt(2)); log m = 2 atanh(s),
 * s = (m - 1) / (m + 1), |s| <= 0.172, the series to s^23. */
RT_HD double gp_log(double x)
{
	if (!(x > 0))
		return x == 0 ? -GP_D_INF : GP_D_NAN;
	if (x == GP_D_INF)
		return x;
	int e = 0;
	if (x < 0x1p-1022) {   /* subnormal: bring it into the normal range */
		x *= 0x1p54;
		e = -54;
	}
	uint64_t bits = GP_D_BITS(x);
	e += (int)(bits >> 52) - 1023;
	double m = GP_D_FROM((bits & 0x000fffffffffffffull) | 0x3ff0000000000000ull);
	if (m > GP_D_SQRT2) {
		m *= 0.5;
		e++;
	}
	double f = m - 1.0;   /* exact (Sterbenz) */
	double s = f / (2.0 + f), z = s * s;
	const double odd_inv[] = {1.0, 1.0 / 3, 1.0 / 5, 1.0 / 7, 1.0 / 9, 1.0 / 11, 1.0 / 13,
	                          1.0 / 15, 1.0 / 17, 1.0 / 19, 1.0 / 21, 1.0 / 23};
	double log_m = 2.0 * s * gp_d_horner_(odd_inv, 12, z);
	return fma((double)e, GP_D_LN2_1, fma((double)e, GP_D_LN2_2, log_m));
}

/* sin(x + qadd * pi / 2): x = k pi / 2 + r, |r| <= pi / 4, then sin r or
 * cos r by (k + qadd) mod 4, the series to r^17 and r^18. */
RT_HD double gp_d_trig_(double x, int qadd)
{
	if (!(fabs(x) < GP_D_INF))
		return GP_D_NAN;
	if (fabs(x) > 0x1p30)   /* x mod 2^30, exactly: bounded, not sin x */
		x -= 0x1p30 * floor(x * 0x1p-30);
	double k = floor(x * GP_D_2_OVER_PI + 0.5);
	double r = fma(-k, GP_D_PIO2_1, x);
	r = fma(-k, GP_D_PIO2_2, r);
	r = fma(-k, GP_D_PIO2_3, r);
	int q = ((int)(k - 4.0 * floor(k * 0.25)) + qadd) & 3;
	const double f[] = GP_D_INV_FACT_;
	double z = r * r;
	if (q & 1) {   /* cos r */
		const double c[] = {1.0, -f[2], f[4], -f[6], f[8], -f[10], f[12], -f[14], f[16], -f[18]};
		double v = gp_d_horner_(c, 10, z);
		return q == 1 ? v : -v;
	}
	const double s[] = {1.0, -f[3], f[5], -f[7], f[9], -f[11], f[13], -f[15], f[17]};
	double v = r * gp_d_horner_(s, 9, z);
	return q == 0 ? v : -v;
}

RT_HD double gp_sin(double x)
{
	return gp_d_trig_(x, 0);
}

RT_HD double gp_cos(double x)
{
	return gp_d_trig_(x, 1);
}

/* tanh x = t / (t + 2), t = exp(2|x|) - 1 (its series without the 1 below
 * 0.35, where the subtraction would cancel), the sign of x. */
RT_HD double gp_tanh(double x)
{
	double a = fabs(x);
	if (!(a == a))
		return x;
	if (a > 22.0)
		return copysign(1.0, x);
	double y = 2.0 * a, t;
	if (y < 0.35) {
		const double inv_fact[] = GP_D_INV_FACT_;
		t = y * gp_d_horner_(inv_fact + 1, 14, y);
	} else {
		t = gp_exp(y) - 1.0;
	}
	return copysign(t / (t + 2.0), x);
}

#endif
