/* gp_math.h: sinf, cosf, logf, expf and tanhf for GP, written once for the CPU
 * evaluators and the CUDA interpreters so that both backends compute the same
 * bits.
 *
 * Why not libm / CUDA's sinf: glibc's logf or sinf are calls gcc cannot
 * vectorise (libmvec needs -ffast-math), and CUDA's versions differ from
 * glibc's in the last bit, so CPU and GPU fitness would drift apart. These are
 * polynomials (Cephes' minimax coefficients) evaluated with explicit fused
 * multiply-adds and IEEE single operations only; with multiply-add
 * contraction off on both sides (gcc -std=c11 default, NVRTC --fmad=false)
 * the result is the same on every backend. Accuracy, measured against
 * double-precision libm over the whole float range (tests/test_gp_eval.c):
 * at most 2 ulp for sin and cos (1.56 seen), 1.1 ulp for exp (1.01 seen),
 * 1 ulp for log (0.81 seen), 2 ulp for tanh (1.29 seen). sin(-0) gives +0 (the sign of a zero result is
 * not kept; GP's protected operations never look at it).
 *
 * The fast forms (gp_*_fast) have no branches so gcc vectorises a loop over
 * them; sin and cos take an exact (Payne-Hanek) argument reduction for
 * |x| > GP_TRIG_FAST_MAX, which the CPU interpreter applies in a second pass
 * to the few lanes that need it. */
#ifndef EVO_GP_MATH_H
#define EVO_GP_MATH_H

#include "common.h"

#if defined(__CUDA_ARCH__)
#  define GP_AS_U32(f) __float_as_uint(f)
#  define GP_AS_F32(u) __uint_as_float(u)
#  define GP_FMA(a, b, c) fmaf(a, b, c)
#else
RT_HD uint32_t gp_as_u32_(float f)
{
	union { float f; uint32_t u; } v;
	v.f = f;
	return v.u;
}
RT_HD float gp_as_f32_(uint32_t u)
{
	union { float f; uint32_t u; } v;
	v.u = u;
	return v.f;
}
#  define GP_AS_U32(f) gp_as_u32_(f)
#  define GP_AS_F32(u) gp_as_f32_(u)
#  define GP_FMA(a, b, c) fmaf(a, b, c)
#endif

/* 1.5 * 2^23: adding it rounds a float of magnitude < 2^22 to an integer,
 * which then sits in the low mantissa bits. */
#define GP_MAGIC_ 0x1.8p23f
#define GP_MAGIC_BITS_ 0x4b400000u

/* ---- sin, cos ------------------------------------------------------------ */

/* Largest |x| the fast (Cody-Waite, three-part pi/2) reduction handles. */
#define GP_TRIG_FAST_MAX 32768.0f

/* sin(r) and cos(r) for |r| <= pi/4, chosen by quadrant q (sin(x) for
 * x = n*pi/2 + r is, by n mod 4: sin r, cos r, -sin r, -cos r). */
RT_HD float gp_trig_poly_(float r, uint32_t q)
{
	float z = r * r;
	float s = GP_FMA(r * z, GP_FMA(z, GP_FMA(z, -1.9515295891e-4f, 8.3321608736e-3f),
				       -1.6666654611e-1f), r);
	float c = GP_FMA(z * z, GP_FMA(z, GP_FMA(z, 2.443315711809948e-5f, -1.388731625493765e-3f),
				       4.166664568298827e-2f), GP_FMA(-0.5f, z, 1.0f));
	float v = (q & 1u) ? c : s;
	return GP_AS_F32(GP_AS_U32(v) ^ ((q & 2u) << 30));
}

/* sin(x) (cosine: qadd 1) for |x| <= GP_TRIG_FAST_MAX; no branches. */
RT_HD float gp_trig_fast_(float x, uint32_t qadd)
{
	float t = GP_FMA(x, 0x1.45f306p-1f, GP_MAGIC_);     /* x * 2/pi, rounded */
	float n = t - GP_MAGIC_;
	uint32_t q = GP_AS_U32(t) + qadd;                  /* low bits: n mod 4 */
	float r = GP_FMA(-n, 0x1.921fb6p+0f, x);            /* exact */
	r = GP_FMA(-n, -0x1.777a5cp-25f, r);
	r = GP_FMA(-n, -0x1.ee59dap-50f, r);
	return gp_trig_poly_(r, q);
}
RT_HD float gp_sinf_fast(float x) { return gp_trig_fast_(x, 0u); }
RT_HD float gp_cosf_fast(float x) { return gp_trig_fast_(x, 1u); }

/* Word i of 2/pi in binary after three zero words: bit k (k >= 1, weight
 * 2^-k) of 2/pi is bit 31 - (k-1)%32 of word 3 + (k-1)/32. A switch, not an
 * array, so that the GPU keeps it out of local memory. */
RT_HD uint32_t gp_two_over_pi_(int i)
{
	switch (i) {
	case 3: return 0xa2f9836eu;
	case 4: return 0x4e441529u;
	case 5: return 0xfc2757d1u;
	case 6: return 0xf534ddc0u;
	case 7: return 0xdb629599u;
	case 8: return 0x3c439041u;
	case 9: return 0xfe5163abu;
	case 10: return 0xdebbc561u;
	case 11: return 0xb7246e3au;
	case 12: return 0x424dd2e0u;
	default: return 0u;
	}
}

/* sin or cos of any x: exact reduction of |x| modulo pi/2 with the bits of
 * 2/pi (x = m 2^k, m a 24-bit integer: x*2/pi mod 4 from m times a 96-bit
 * window of 2/pi), then the same polynomials. inf and NaN give NaN. */
RT_HD float gp_trig_big_(float x, uint32_t qadd)
{
	uint32_t u = GP_AS_U32(x), neg = u >> 31, q;
	int e = (int)((u >> 23) & 0xffu) - 150;             /* |x| = m 2^e */
	uint64_t m = (u & 0x7fffffu) | 0x800000u, p0, p1, p2, mid, hi;
	uint32_t v[3];
	int s, w, sh, i;
	int64_t f;
	double r;
	if (((u >> 23) & 0xffu) == 0xffu)                   /* inf, NaN */
		return x - x;
	if (((u >> 23) & 0xffu) < 127u + 14u)               /* |x| < 2^14: no need */
		return gp_trig_fast_(x, qadd);
	/* Window: bits k = e-1 .. e+94 of 2/pi, so that m * window mod 2^96 is
	 * (|x| * 2/pi mod 4) * 2^94. */
	s = e - 2 + 96;
	w = s / 32;
	sh = s % 32;
	for (i = 0; i < 3; i++)
		v[i] = sh == 0 ? gp_two_over_pi_(w + i)
			       : (gp_two_over_pi_(w + i) << sh) | (gp_two_over_pi_(w + i + 1) >> (32 - sh));
	p0 = m * v[0];
	p1 = m * v[1];
	p2 = m * v[2];
	mid = (p2 >> 32) + (p1 & 0xffffffffu);
	hi = ((p1 >> 32) + p0 + (mid >> 32)) & 0xffffffffu;
	/* Quadrant from the top two bits, fraction as a signed 64-bit fixed-point
	 * number in [-1/2, 1/2) (a fraction >= 1/2 rounds to the next quadrant). */
	f = (int64_t)((hi << 34) | ((mid & 0xffffffffu) << 2) | ((p2 & 0xffffffffu) >> 30));
	q = (uint32_t)(hi >> 30) + (uint32_t)(f < 0);
	r = (double)f * 0x1.921fb54442d18p-64;              /* * pi/2 / 2^64 */
	if (neg) {
		q = 0u - q;
		r = -r;
	}
	return gp_trig_poly_((float)r, q + qadd);
}

RT_HD float gp_sinf(float x)
{
	return x <= GP_TRIG_FAST_MAX && x >= -GP_TRIG_FAST_MAX ? gp_trig_fast_(x, 0u)
							       : gp_trig_big_(x, 0u);
}
RT_HD float gp_cosf(float x)
{
	return x <= GP_TRIG_FAST_MAX && x >= -GP_TRIG_FAST_MAX ? gp_trig_fast_(x, 1u)
							       : gp_trig_big_(x, 1u);
}

/* ---- exp ----------------------------------------------------------------- */

/* e^x for every float x: +inf above 88.72, 0 below -103.98 (denormal results
 * in between are rounded once), NaN for NaN. No branches. */
RT_HD float gp_expf(float x)
{
	float t = GP_FMA(x, 0x1.715476p+0f, GP_MAGIC_);     /* x / ln 2, rounded */
	float n = t - GP_MAGIC_;
	int32_t k = (int32_t)(GP_AS_U32(t) - GP_MAGIC_BITS_);
	int32_t k1 = k / 2;
	float r = GP_FMA(-n, 0.693359375f, x);              /* ln 2 in two parts */
	float p, s1, s2;
	r = GP_FMA(-n, -2.12194440e-4f, r);
	p = GP_FMA(GP_FMA(GP_FMA(GP_FMA(GP_FMA(1.9875691500e-4f, r, 1.3981999507e-3f), r,
					       8.3334519073e-3f), r, 4.1665795894e-2f), r,
			  1.6666665459e-1f), r, 5.0000001201e-1f);
	p = GP_FMA(p, r * r, r) + 1.0f;
	/* 2^k as two factors, so that denormal results are reached. */
	s1 = GP_AS_F32((uint32_t)(k1 + 127) << 23);
	s2 = GP_AS_F32((uint32_t)(k - k1 + 127) << 23);
	p = p * s1 * s2;
	p = x > 88.72283935546875f ? 1.0f / 0.0f : p;
	return x < -103.97208404541015625f ? 0.0f : p;
}

/* ---- log ----------------------------------------------------------------- */

/* Natural logarithm for every float: NaN below 0 and for NaN, -inf at 0,
 * +inf at +inf; denormals are scaled first. No branches. */
RT_HD float gp_logf(float x)
{
	int tiny = x < 0x1p-126f;
	float xs = tiny ? x * 0x1p23f : x;
	uint32_t ix = GP_AS_U32(xs) - 0x3f3504f3u;          /* mantissa in [sqrt .5, sqrt 2) */
	float e = (float)(((int32_t)ix >> 23) - (tiny ? 23 : 0));
	float f = GP_AS_F32((ix & 0x7fffffu) + 0x3f3504f3u) - 1.0f;
	float z = f * f;
	float y = GP_FMA(GP_FMA(GP_FMA(GP_FMA(GP_FMA(GP_FMA(GP_FMA(GP_FMA(7.0376836292e-2f, f,
		-1.1514610310e-1f), f, 1.1676998740e-1f), f, -1.2420140846e-1f), f,
		1.4249322787e-1f), f, -1.6668057665e-1f), f, 2.0000714765e-1f), f,
		-2.4999993993e-1f), f, 3.3333331174e-1f);
	y = f * z * y;
	y = GP_FMA(e, -2.12194440e-4f, y);
	y = GP_FMA(-0.5f, z, y);
	y = GP_FMA(e, 0.693359375f, f + y);
	y = x > 0x1.fffffep127f ? x : y;                    /* +inf */
	y = x == 0.0f ? -1.0f / 0.0f : y;
	return x < 0.0f || x != x ? 0.0f / 0.0f : y;
}

/* ---- tanh ---------------------------------------------------------------- */

/* tanh(x) for every float x: Cephes' odd polynomial for |x| < 0.625, else
 * 1 - 2 / (e^2|x| + 1) with x's sign (e^2|x| overflowing to inf gives 1);
 * NaN for NaN. No branches. */
RT_HD float gp_tanhf(float x)
{
	float ax = x < 0.0f ? -x : x;
	float z = x * x;
	float p = GP_FMA(GP_FMA(GP_FMA(GP_FMA(-5.70498872745e-3f, z, 2.06390887954e-2f), z,
				       -5.37397155531e-2f), z, 1.33314422036e-1f), z,
			 -3.33332819422e-1f);
	float small = GP_FMA(p * z, x, x);
	float big = 1.0f - 2.0f / (gp_expf(2.0f * ax) + 1.0f);
	big = GP_AS_F32(GP_AS_U32(big) | (GP_AS_U32(x) & 0x80000000u));
	return ax < 0.625f ? small : big;
}

#endif
