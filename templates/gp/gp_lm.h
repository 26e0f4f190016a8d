/* gp_lm.h: the value and partial derivatives of each GP function in double
 * precision, the protected forms of gp_ops.h with their derivative rules (a
 * guarded branch has derivative 0: a / b with |b| < 1e-6 is the constant 1,
 * exp above 80 the constant e^80, clamped powers constants). Shared by the
 * host's Levenberg-Marquardt (runtime/gp/gp_constopt.c) and the GPU's
 * (templates/gp/gp_lm.cu), so both differentiate alike (with gp_dmath.h's
 * exp, log, sin, cos and tanh: the same bits on both); and the steps of
 * the damped system's solve, which both take in the same order. */
#ifndef EVO_GP_LM_H
#define EVO_GP_LM_H

#include "common.h"
#include "gp_ops.h"
#include "gp_dmath.h"

#if defined(__CUDACC__)
#  define GP_LM_INF __longlong_as_double(0x7ff0000000000000LL)
#  define GP_LM_NAN __longlong_as_double(0x7ff8000000000000LL)
#else
#  define GP_LM_INF ((double)INFINITY)
#  define GP_LM_NAN ((double)NAN)
#endif

/* The powers, clamped to +-FLT_MAX as gp_clamp_big (derivative 0 there). */
RT_HD double gp_lm_clamp(double v, double *pa)
{
	if (fabs(v) > (double)GP_BIG) {
		*pa = 0.0;
		return v > 0 ? (double)GP_BIG : -(double)GP_BIG;
	}
	return v;
}

/* The protected quotients and logarithm: value, *pa, *pb. */
RT_HD double gp_lm_guarded(int op, double a, double b, double *pa, double *pb)
{
	double v;
	switch (op) {
	case GP_OP_DIV:
		if (fabs(b) < (double)GP_DIV_EPS)
			return 1.0;
		*pa = 1 / b;
		*pb = -a / (b * b);
		return a / b;
	case GP_OP_LOG:
		if (fabs(a) < (double)GP_DIV_EPS)
			return 0.0;
		*pa = 1 / a;
		return gp_log(fabs(a));
	case GP_OP_EXP:
		if (!(a < (double)GP_EXP_MAX))   /* NaN too, as GP_FMIN */
			return gp_exp((double)GP_EXP_MAX);
		v = gp_exp(a);
		*pa = v;
		return v;
	case GP_OP_SQRT:
		v = sqrt(fabs(a));
		*pa = v > 0 ? (a > 0 ? 0.5 : -0.5) / v : 0.0;
		return v;
	default: {   /* GP_OP_AQ */
		double s = sqrt(1 + b * b);
		*pa = 1 / s;
		*pb = -a * b / (s * s * s);
		return a / s;
	}
	}
}

/* The value and partial derivatives of op at (a, b). */
RT_HD double gp_lm_partials(int op, double a, double b, double *pa, double *pb)
{
	double v;
	*pa = *pb = 0.0;
	switch (op) {
	case GP_OP_ADD: *pa = 1; *pb = 1; return a + b;
	case GP_OP_SUB: *pa = 1; *pb = -1; return a - b;
	case GP_OP_MUL: *pa = b; *pb = a; return a * b;
	case GP_OP_DIV: case GP_OP_LOG: case GP_OP_EXP: case GP_OP_SQRT: case GP_OP_AQ:
		return gp_lm_guarded(op, a, b, pa, pb);
	case GP_OP_SIN: *pa = gp_cos(a); return gp_sin(a);
	case GP_OP_COS: *pa = -gp_sin(a); return gp_cos(a);
	case GP_OP_GT: return a > b ? 1.0 : 0.0;
	case GP_OP_LT: return a < b ? 1.0 : 0.0;
	case GP_OP_EQ: return a == b ? 1.0 : 0.0;
	case GP_OP_AND: return a != 0 && b != 0 ? 1.0 : 0.0;
	case GP_OP_OR: return a != 0 || b != 0 ? 1.0 : 0.0;
	case GP_OP_SQUARE: *pa = 2 * a; return gp_lm_clamp(a * a, pa);
	case GP_OP_CUBE: *pa = 3 * a * a; return gp_lm_clamp(a * a * a, pa);
	case GP_OP_POW4: *pa = 4 * a * a * a; return gp_lm_clamp(a * a * a * a, pa);
	case GP_OP_TANH: v = gp_tanh(a); *pa = 1 - v * v; return v;
	case GP_OP_ABS: *pa = a > 0 ? 1.0 : a < 0 ? -1.0 : 0.0; return fabs(a);
	default: return GP_LM_NAN;   /* Boolean words: not regression */
	}
}

/* A result past the float range is infinite, as the float interpreter's
 * is (the objective is then +inf and LM steps back). */
RT_HD double gp_lm_result(double v)
{
	return fabs(v) > (double)GP_BIG ? v * GP_LM_INF : v;
}

/* Gaussian elimination with partial pivoting on a x = b (m x m, row-major),
 * in steps both LMs take in the same order. Column col's pivot: the row at
 * or below col of the largest |a[., col]| swapped up (rows of a and b); 0
 * when that is not above 1e-300 (singular). */
RT_HD int gp_lm_pivot(double *a, double *b, int m, int col)
{
	int piv = col;
	for (int r = col + 1; r < m; r++)
		if (fabs(a[r * m + col]) > fabs(a[piv * m + col]))
			piv = r;
	if (!(fabs(a[piv * m + col]) > 1e-300))
		return 0;
	if (piv != col) {
		for (int k = 0; k < m; k++) {
			double tmp = a[col * m + k];
			a[col * m + k] = a[piv * m + k];
			a[piv * m + k] = tmp;
		}
		double tb = b[col];
		b[col] = b[piv];
		b[piv] = tb;
	}
	return 1;
}

/* Row r (below col) minus its multiple that zeroes a[r, col]. */
RT_HD void gp_lm_eliminate(double *a, double *b, int m, int col, int r)
{
	double f = a[r * m + col] / a[col * m + col];
	for (int k = col; k < m; k++)
		a[r * m + k] -= f * a[col * m + k];
	b[r] -= f * b[col];
}

/* x from the upper-triangular system left by the elimination. */
RT_HD void gp_lm_back(const double *a, const double *b, double *x, int m)
{
	for (int r = m - 1; r >= 0; r--) {
		double sum = b[r];
		for (int k = r + 1; k < m; k++)
			sum -= a[r * m + k] * x[k];
		x[r] = sum / a[r * m + r];
	}
}

#endif
