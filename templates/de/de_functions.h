/* de_functions.h: THE table of differential-evolution test functions (one
 * X-macro list), compiled by the host (CPU path, tests) and inlined by the
 * generator into the CUDA kernels, so both backends evaluate one formula.
 *
 * DE_FUNCTIONS(X): X(ENUM, name, lower, upper, zstar, formula)
 *   lower, upper  the textbook search box (the spec's default bounds)
 *   zstar         where the minimum lies in z, per component; f(z*) = 0
 *
 * Every function is written over z, the point after the optional shift and
 * rotation (CEC 2014 convention):
 *   plain:              z = x                      minimum at x = zstar
 *   shifted / rotated:  z = M (x - o) + zstar      minimum at x = o
 * with o the problem's shift vector (zero when only rotated) and M a random
 * orthogonal matrix. Components are produced one at a time by de_z() and
 * consumed in a fixed order (k = 0, 1, ...), so a function is a loop of float
 * operations whose order is the same on the CPU and the GPU.
 *
 * Why the unusual forms: near the optimum the textbook formulas cancel
 * (Rastrigin 10 - 10 cos(2 pi z), Ackley 20 + e - 20 exp(..) - exp(..),
 * Griewank 1 - prod cos) and in float they cannot go below ~1e-6, so a target
 * of 1e-8 would be unreachable. The identities 1 - cos(2a) = 2 sin^2(a) and
 * exp(t) - 1 = expm1(t) give the same functions with full relative precision
 * near zero. Schwefel keeps an absolute float floor of about 1e-5 per
 * dimension (its constant 418.98 cannot be cancelled exactly).
 *
 * The GPU compiles this with --fmad=false and the products that should fuse
 * are written as fmaf(), so + - * fmaf / sqrtf round identically on both
 * backends: sphere and Rosenbrock (also shifted/rotated) give bit-identical
 * values. sinf/expm1f/fmodf differ in the last bits between glibc and CUDA. */
#ifndef EVO_DE_FUNCTIONS_H
#define EVO_DE_FUNCTIONS_H

#include "common.h"

#if defined(__CUDACC__)
#  define DE_INF __int_as_float(0x7f800000)
#else
#  define DE_INF INFINITY
#endif
/* Rotation loops: a little unrolling, not the compiler's full D (registers). */
#if defined(__CUDACC__)
#  define DE_UNROLL_4 _Pragma("unroll 4")
#else
#  define DE_UNROLL_4
#endif

#define DE_PI 3.14159265358979323846f
#define DE_E 2.71828182845904523536f
#define DE_SCHWEFEL_C 418.9828872724338f
#define DE_SCHWEFEL_Z 420.9687462275036f

#define DE_FUNCTIONS(X) \
	X(SPHERE,     sphere,      -100.0,   100.0, 0.0, \
	  "sum z_k^2") \
	X(ROSENBROCK, rosenbrock,  -30.0,     30.0, 1.0, \
	  "sum_{k<n-1} 100 (z_{k+1} - z_k^2)^2 + (z_k - 1)^2") \
	X(RASTRIGIN,  rastrigin,   -5.12,     5.12, 0.0, \
	  "sum z_k^2 - 10 cos(2 pi z_k) + 10") \
	X(ACKLEY,     ackley,      -32.768, 32.768, 0.0, \
	  "-20 exp(-0.2 sqrt(mean z_k^2)) - exp(mean cos(2 pi z_k)) + 20 + e") \
	X(GRIEWANK,   griewank,    -600.0,   600.0, 0.0, \
	  "1 + sum z_k^2 / 4000 - prod cos(z_k / sqrt(k + 1))") \
	X(SCHWEFEL,   schwefel,    -500.0,   500.0, 420.9687462275036, \
	  "sum 418.9829 - z_k sin(sqrt |z_k|) (CEC 2014 penalty beyond |z_k| > 500)")

enum de_function {
#define DE_ENUM_(E, name, lo, hi, zs, doc) DE_FN_##E,
	DE_FUNCTIONS(DE_ENUM_)
#undef DE_ENUM_
	DE_FN_COUNT,
	DE_FN_USER = DE_FN_COUNT,  /* a user objective ([objective] in the spec) */
	DE_FN_CEC2017              /* the CEC 2017 suite (de_cec2017.h; job's cec_function) */
};

/* Component k of z (see above): shift may be NULL; rot (n x n, row-major)
 * may be NULL; zoff is zstar when transformed, else 0. */
RT_HD float de_z(const float *x, int stride, int n, int k, const float *shift,
		 const float *rot, float zoff)
{
	float z;
	if (rot) {
		z = 0.0f;
		DE_UNROLL_4
		for (int j = 0; j < n; j++) {
			float d = shift ? x[j * stride] - shift[j] : x[j * stride];
			z = fmaf(rot[k * n + j], d, z);
		}
	} else {
		z = shift ? x[k * stride] - shift[k] : x[k * stride];
	}
	if (zoff != 0.0f)
		z = z + zoff;
	return z;
}

/* Every function is one loop over k of two parts: de_pre_NAME, which needs
 * z_k (and z_{k+1}: Rosenbrock) and k only and gives two floats (u, v) per
 * component, and de_step_NAME, which folds (u, v) into the accumulators in
 * the order k = 0, 1, ... (the floating-point order of the sum); de_final_NAME
 * gives the value. The CPU and the fused and naive kernels run both parts in
 * one loop (de_fn_NAME); the multi-block kernel (de.cu, de_mb_gen) computes
 * the pre parts of all components in parallel and then runs the steps in
 * order on one thread: the same operations, hence the same bits. */
typedef struct de_acc {
	float s, q;
} de_acc;

RT_HD void de_pre_sphere(float z, float z1, int k, int n, float *u, float *v)
{
	(void)z1, (void)k, (void)n;
	*u = z;
	*v = 0.0f;
}
RT_HD void de_step_sphere(de_acc *a, float u, float v, int k, int n)
{
	(void)v, (void)k, (void)n;
	a->s = fmaf(u, u, a->s);
}
RT_HD float de_final_sphere(de_acc a, int n)
{
	(void)n;
	return a.s;
}

/* u = z_{k+1} - z_k^2 (one rounding), v = z_k - 1; no term for k = n - 1 */
RT_HD void de_pre_rosenbrock(float z, float z1, int k, int n, float *u, float *v)
{
	(void)k, (void)n;
	*u = fmaf(-z, z, z1);
	*v = z - 1.0f;
}
RT_HD void de_step_rosenbrock(de_acc *a, float u, float v, int k, int n)
{
	if (k + 1 < n) {
		a->s = fmaf(100.0f * u, u, a->s);
		a->s = fmaf(v, v, a->s);
	}
}
RT_HD float de_final_rosenbrock(de_acc a, int n)
{
	(void)n;
	return a.s;
}

/* z^2 - 10 cos(2 pi z) + 10 = z^2 + 20 sin^2(pi z) */
RT_HD void de_pre_rastrigin(float z, float z1, int k, int n, float *u, float *v)
{
	(void)z1, (void)k, (void)n;
	*u = z;
	*v = sinf(DE_PI * z);
}
RT_HD void de_step_rastrigin(de_acc *a, float u, float v, int k, int n)
{
	(void)k, (void)n;
	a->s = fmaf(u, u, a->s);
	a->s = fmaf(20.0f * v, v, a->s);
}
RT_HD float de_final_rastrigin(de_acc a, int n)
{
	(void)n;
	return a.s;
}

/* 20 (1 - exp(-0.2 sqrt(s1/n))) + e (1 - exp(-2 s2/n)), s2 = sum sin^2(pi z),
 * since mean cos(2 pi z) = 1 - 2 s2/n. */
RT_HD void de_pre_ackley(float z, float z1, int k, int n, float *u, float *v)
{
	(void)z1, (void)k, (void)n;
	*u = z;
	*v = sinf(DE_PI * z);
}
RT_HD void de_step_ackley(de_acc *a, float u, float v, int k, int n)
{
	(void)k, (void)n;
	a->s = fmaf(u, u, a->s);
	a->q = fmaf(v, v, a->q);
}
RT_HD float de_final_ackley(de_acc a, int n)
{
	if (n <= 0)
		return 0.0f;
	return -20.0f * expm1f(-0.2f * sqrtf(a.s / (float)n)) - DE_E * expm1f((-2.0f * a.q) / (float)n);
}

/* q = 1 - prod c_k built as q <- q + a_k (1 - q) with a_k = 1 - c_k =
 * 2 sin^2(z_k / (2 sqrt(k + 1))): exact algebra, no cancellation near 0. */
RT_HD void de_pre_griewank(float z, float z1, int k, int n, float *u, float *v)
{
	(void)z1, (void)n;
	float h = sinf((0.5f * z) / sqrtf((float)(k + 1)));
	*u = z;
	*v = 2.0f * h * h;
}
RT_HD void de_step_griewank(de_acc *a, float u, float v, int k, int n)
{
	(void)k, (void)n;
	a->s = fmaf(u, u, a->s);
	a->q = fmaf(v, 1.0f - a->q, a->q);
}
RT_HD float de_final_griewank(de_acc a, int n)
{
	(void)n;
	return a.s / 4000.0f + a.q;
}

RT_HD void de_pre_schwefel(float z, float z1, int k, int n, float *u, float *v)
{
	(void)z1, (void)k;
	float az = fabsf(z), t;
	if (az <= 500.0f) {
		t = DE_SCHWEFEL_C - z * sinf(sqrtf(az));
	} else {
		/* CEC 2014: fold back into the box and add a quadratic penalty */
		float m = 500.0f - fmodf(az, 500.0f);
		float zz = z > 0.0f ? m : -m;
		float e = az - 500.0f;
		t = DE_SCHWEFEL_C - zz * sinf(sqrtf(m)) + (e * e) / (10000.0f * (float)n);
	}
	*u = t;
	*v = 0.0f;
}
RT_HD void de_step_schwefel(de_acc *a, float u, float v, int k, int n)
{
	(void)v, (void)k, (void)n;
	a->s = a->s + u;
}
RT_HD float de_final_schwefel(de_acc a, int n)
{
	(void)n;
	return a.s;
}

#define DE_FN_ARGS const float *x, int stride, int n, const float *shift, const float *rot, float zoff
#define DE_Z(k) de_z(x, stride, n, (k), shift, rot, zoff)

/* de_fn_NAME(x, ...): the function at x, both parts in one loop. */
#define DE_LOOP_(E, name, lo, hi, zs, doc) \
	RT_HD float de_fn_##name(DE_FN_ARGS) \
	{ \
		de_acc a = { 0.0f, 0.0f }; \
		float z = n > 0 ? DE_Z(0) : 0.0f; \
		for (int k = 0; k < n; k++) { \
			float z1 = k + 1 < n ? DE_Z(k + 1) : 0.0f, u, v; \
			de_pre_##name(z, z1, k, n, &u, &v); \
			de_step_##name(&a, u, v, k, n); \
			z = z1; \
		} \
		return de_final_##name(a, n); \
	}
DE_FUNCTIONS(DE_LOOP_)
#undef DE_LOOP_
#undef DE_Z

/* The parts of built-in function fn (an enum de_function), for the
 * multi-block kernel (fn a constant there). */
RT_HD void de_fn_pre(int fn, float z, float z1, int k, int n, float *u, float *v)
{
	switch (fn) {
#define DE_CASE_(E, name, lo, hi, zs, doc) \
	case DE_FN_##E: de_pre_##name(z, z1, k, n, u, v); return;
	DE_FUNCTIONS(DE_CASE_)
#undef DE_CASE_
	default: *u = *v = 0.0f;
	}
}

RT_HD void de_fn_step(int fn, de_acc *a, float u, float v, int k, int n)
{
	switch (fn) {
#define DE_CASE_(E, name, lo, hi, zs, doc) \
	case DE_FN_##E: de_step_##name(a, u, v, k, n); return;
	DE_FUNCTIONS(DE_CASE_)
#undef DE_CASE_
	default: return;
	}
}

RT_HD float de_fn_final(int fn, de_acc a, int n)
{
	switch (fn) {
#define DE_CASE_(E, name, lo, hi, zs, doc) \
	case DE_FN_##E: return de_final_##name(a, n);
	DE_FUNCTIONS(DE_CASE_)
#undef DE_CASE_
	default: return DE_INF;
	}
}

/* Evaluates built-in function fn (an enum de_function) at x. */
RT_HD float de_function_eval(int fn, DE_FN_ARGS)
{
	switch (fn) {
#define DE_CASE_(E, name, lo, hi, zs, doc) \
	case DE_FN_##E: return de_fn_##name(x, stride, n, shift, rot, zoff);
	DE_FUNCTIONS(DE_CASE_)
#undef DE_CASE_
	default: return DE_INF;
	}
}

#undef DE_FN_ARGS

#if !defined(__CUDACC__)
/* Host-side tables, derived from the same list. fn must be < DE_FN_COUNT. */
RT_HD const char *de_function_name(int fn)
{
	static const char *const names[] = {
#define DE_NAME_(E, name, lo, hi, zs, doc) #name,
		DE_FUNCTIONS(DE_NAME_)
#undef DE_NAME_
	};
	return fn >= 0 && fn < DE_FN_COUNT ? names[fn] : fn == DE_FN_CEC2017 ? "cec2017" : "user";
}

RT_HD const char *de_function_formula(int fn)
{
	static const char *const docs[] = {
#define DE_DOC_(E, name, lo, hi, zs, doc) doc,
		DE_FUNCTIONS(DE_DOC_)
#undef DE_DOC_
	};
	return fn >= 0 && fn < DE_FN_COUNT ? docs[fn]
	     : fn == DE_FN_CEC2017 ? "CEC 2017 F_i(x) - F_i* (de_cec2017.h)" : "user objective";
}

/* The textbook box (lower, upper) and the optimum's z component. */
RT_HD void de_function_box(int fn, double *lower, double *upper, double *zstar)
{
	static const double box[][3] = {
#define DE_BOX_(E, name, lo, hi, zs, doc) { lo, hi, zs },
		DE_FUNCTIONS(DE_BOX_)
#undef DE_BOX_
	};
	if (fn >= 0 && fn < DE_FN_COUNT) {
		*lower = box[fn][0];
		*upper = box[fn][1];
		*zstar = box[fn][2];
	} else {
		*lower = -100.0;
		*upper = 100.0;
		*zstar = 0.0;
	}
}
#endif

#include "de_cec2017.h"

#endif
