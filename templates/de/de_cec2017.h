/* de_cec2017.h: the CEC 2017 bound-constrained suite (Awad, Ali, Liang, Qu,
 * Suganthan 2016: F1, F3..F30; F2 was withdrawn by the organisers), written
 * once in float and compiled by the host (runtime/de, tests) and into the
 * fused CUDA kernel, like de_functions.h; its basic functions, transforms,
 * hybrids and compositions also evaluate CEC 2022 (de_cec2022.h's tables,
 * fn = DE_CEC22 + k).
 *
 * de_cec2017_eval returns the ERROR F_i(x) - F_i* (F_i* = 100 i is not
 * added: at 3000 a float's step is 2.4e-4, far above the suite's 1e-8).
 *
 * Instance data, one float buffer per job (runtime/de/de_cec.c generates it
 * from the job's cec_seed), for function fn at dimension n with
 * nc = de_cec_components(fn) (1 for F1..F20):
 *     shift    [nc][n]     at 0                   optimum of component c
 *     rotation [nc][n][n]  at nc n                row-major, orthogonal
 *     shuffle  [nc][n]     at nc n + nc n n       0-based permutation, as
 *                                                 floats (F11..F20, F29, F30)
 * The kernel reads it from global memory (the `rot` argument of de.cu).
 *
 * The definitions are the organisers' C code (cec17_func.cpp), which made
 * every published CEC 2017 result, where it differs from the report:
 * z = M (s (x - o)) (shift, scale, rotate); scalings Rosenbrock 2.048/100
 * (and z + 1), Rastrigin 5.12/100, Schwefel 1000/100 (+ 420.9687...),
 * HGBat/HappyCat/Katsuura/Griewank-Rosenbrock 5/100, Griewank 600/100,
 * Weierstrass 0.5/100, Lunacek 10/100 (sums on the unrotated 2 sign(o) y,
 * cosines rotated); hybrid groups of ceil(p n) consecutive shuffled z (exact
 * in double for the suite's p and n); composition weights
 * w_i = exp(-|x - o_i|^2 / (2 n sigma_i^2)) / |x - o_i|, w_i = 1e99 at
 * |x - o_i| = 0 (here: that component's value), sigmas, lambdas (the C
 * code's 10000 / 1e10 ...) and biases 100 (i - 1). The C code's quirks
 * kept on purpose (the published numbers include them):
 *   F6   Schaffer's F7 (not the report's expanded Schaffer F6) on the
 *        UNROTATED x - o (it reads the global y before rotation);
 *   F8   Rastrigin's formula: the C code rounds a copy it then overwrites,
 *        so its "non-continuous" Rastrigin is F5's function (own data);
 *   F9   Levy with w = 1 + (z - 1) / 4: optimum at x = o + M^T 1, not o;
 *   F14, F20  their Schaffer F7 group reads the first m shuffled values
 *        (the global y from 0), not its own group: the last group's
 *        variables do not count;
 *   F20  its first group is HGBat (the report says HappyCat).
 * Float forms without cancellation near the optimum (the identities of
 * de_functions.h: 1 - cos 2a = 2 sin^2 a, expm1, log1p) so errors reach
 * 1e-8; the modified Schwefel keeps a float floor of ~3e-5 per dimension.
 * Composition weights are computed in log space (w_i / sum w stays exact
 * where the float exp of the C code's formula would underflow; in double
 * the C code's weights never all underflow inside [-100, 100]^D, so its
 * all-zero rule (equal weights) does not arise there). */
#ifndef EVO_DE_CEC2017_H
#define EVO_DE_CEC2017_H

#define DE_CEC_DMAX 100     /* the suite's largest D */
#define DE_CEC_MAXC 6       /* most composition components */
#define DE_CEC_HYB 100      /* component ids >= this: hybrid function id - 100 */
/* The large functions are called, not inlined, on the GPU: inlined into
 * every caller they made NVRTC take minutes. */
#if defined(__CUDACC__)
#  define DE_CEC_HD static __host__ __device__ __noinline__
#else
#  define DE_CEC_HD static inline
#endif

/* The basic functions (their own scaling of z inside). */
enum de_cec_basic {
	DE_CB_BENT = 0, DE_CB_ZAKHAROV, DE_CB_ROSEN, DE_CB_RASTRIGIN, DE_CB_SCHAFFER6,
	DE_CB_LUNACEK, DE_CB_LEVY, DE_CB_SCHWEFEL, DE_CB_ELLIPTIC, DE_CB_ACKLEY,
	DE_CB_SCHAFFER7, DE_CB_HGBAT, DE_CB_HAPPYCAT, DE_CB_KATSUURA, DE_CB_GRIEROSEN, DE_CB_DISCUS,
	DE_CB_WEIERSTRASS, DE_CB_GRIEWANK, DE_CB_LEVY0
};

#include "de_cec2022.h"   /* CEC 2022: fn = DE_CEC22 + k, tables over the same basics */

RT_HD int de_cec_components(int fn)
{
	if (fn > DE_CEC22)
		return de_cec22_components(fn - DE_CEC22);
	return fn == 21 || fn == 22 || fn == 29 || fn == 30 ? 3 : fn == 23 || fn == 24 ? 4
	     : fn == 25 || fn == 26 ? 5 : fn == 27 || fn == 28 ? 6 : 1;
}

RT_HD int de_cec_has_shuffle(int fn)
{
	return (fn >= 11 && fn <= 20) || fn == 29 || fn == 30 || (fn >= DE_CEC22 + 6 && fn <= DE_CEC22 + 8);
}

/* Floats of the instance data of fn at dimension n. */
RT_HD long de_cec_data_len(int fn, int n)
{
	long nc = de_cec_components(fn);
	return nc * n * (n + 1) + (de_cec_has_shuffle(fn) ? nc * n : 0);
}

/* Component k of a simple (F1..F10), hybrid (F11..F20) or composition
 * (F21..F30) function: a basic id (simple: k = 0), a hybrid's group
 * function with its share in percent (*pct), or a composition's component
 * with sigma and lambda. -1 past the last. */
DE_CEC_HD int de_cec_part(int fn, int k, int *pct, float *sigma, float *lambda)
{
	/* hybrids: 6 (id, percent) pairs per function, id -1 ends */
	static const signed char hyb[10][12] = {
		{ DE_CB_ZAKHAROV, 20, DE_CB_ROSEN, 40, DE_CB_RASTRIGIN, 40, -1, 0, -1, 0, -1, 0 },
		{ DE_CB_ELLIPTIC, 30, DE_CB_SCHWEFEL, 30, DE_CB_BENT, 40, -1, 0, -1, 0, -1, 0 },
		{ DE_CB_BENT, 30, DE_CB_ROSEN, 30, DE_CB_LUNACEK, 40, -1, 0, -1, 0, -1, 0 },
		{ DE_CB_ELLIPTIC, 20, DE_CB_ACKLEY, 20, DE_CB_SCHAFFER7, 20, DE_CB_RASTRIGIN, 40, -1, 0, -1, 0 },
		{ DE_CB_BENT, 20, DE_CB_HGBAT, 20, DE_CB_RASTRIGIN, 30, DE_CB_ROSEN, 30, -1, 0, -1, 0 },
		{ DE_CB_SCHAFFER6, 20, DE_CB_HGBAT, 20, DE_CB_ROSEN, 30, DE_CB_SCHWEFEL, 30, -1, 0, -1, 0 },
		{ DE_CB_KATSUURA, 10, DE_CB_ACKLEY, 20, DE_CB_GRIEROSEN, 20, DE_CB_SCHWEFEL, 20,
		  DE_CB_RASTRIGIN, 30, -1, 0 },
		{ DE_CB_ELLIPTIC, 20, DE_CB_ACKLEY, 20, DE_CB_RASTRIGIN, 20, DE_CB_HGBAT, 20, DE_CB_DISCUS, 20,
		  -1, 0 },
		{ DE_CB_BENT, 20, DE_CB_RASTRIGIN, 20, DE_CB_GRIEROSEN, 20, DE_CB_WEIERSTRASS, 20,
		  DE_CB_SCHAFFER6, 20, -1, 0 },
		{ DE_CB_HGBAT, 10, DE_CB_KATSUURA, 10, DE_CB_ACKLEY, 20, DE_CB_RASTRIGIN, 20, DE_CB_SCHWEFEL, 20,
		  DE_CB_SCHAFFER7, 20 },
	};
	/* compositions: 6 components (id, lambda) each, sigma per component */
	static const short cid[10][6] = {
		{ DE_CB_ROSEN, DE_CB_ELLIPTIC, DE_CB_RASTRIGIN, -1, -1, -1 },
		{ DE_CB_RASTRIGIN, DE_CB_GRIEWANK, DE_CB_SCHWEFEL, -1, -1, -1 },
		{ DE_CB_ROSEN, DE_CB_ACKLEY, DE_CB_SCHWEFEL, DE_CB_RASTRIGIN, -1, -1 },
		{ DE_CB_ACKLEY, DE_CB_ELLIPTIC, DE_CB_GRIEWANK, DE_CB_RASTRIGIN, -1, -1 },
		{ DE_CB_RASTRIGIN, DE_CB_HAPPYCAT, DE_CB_ACKLEY, DE_CB_DISCUS, DE_CB_ROSEN, -1 },
		{ DE_CB_SCHAFFER6, DE_CB_SCHWEFEL, DE_CB_GRIEWANK, DE_CB_ROSEN, DE_CB_RASTRIGIN, -1 },
		{ DE_CB_HGBAT, DE_CB_RASTRIGIN, DE_CB_SCHWEFEL, DE_CB_BENT, DE_CB_ELLIPTIC, DE_CB_SCHAFFER6 },
		{ DE_CB_ACKLEY, DE_CB_GRIEWANK, DE_CB_DISCUS, DE_CB_ROSEN, DE_CB_HAPPYCAT, DE_CB_SCHAFFER6 },
		{ DE_CEC_HYB + 15, DE_CEC_HYB + 16, DE_CEC_HYB + 17, -1, -1, -1 },
		{ DE_CEC_HYB + 15, DE_CEC_HYB + 18, DE_CEC_HYB + 19, -1, -1, -1 },
	};
	static const float clam[10][6] = {
		{ 1.0f, 1e-6f, 1.0f }, { 1.0f, 10.0f, 1.0f }, { 1.0f, 10.0f, 1.0f, 1.0f },
		{ 10.0f, 1e-6f, 10.0f, 1.0f }, { 10.0f, 1.0f, 10.0f, 1e-6f, 1.0f },
		{ 5e-4f, 1.0f, 10.0f, 1.0f, 10.0f }, { 10.0f, 10.0f, 2.5f, 1e-26f, 1e-6f, 5e-4f },
		{ 10.0f, 10.0f, 1e-6f, 1.0f, 1.0f, 5e-4f }, { 1.0f, 1.0f, 1.0f }, { 1.0f, 1.0f, 1.0f },
	};
	static const float csig[10][6] = {
		{ 10, 20, 30 }, { 10, 20, 30 }, { 10, 20, 30, 40 }, { 10, 20, 30, 40 },
		{ 10, 20, 30, 40, 50 }, { 10, 20, 20, 30, 40 }, { 10, 20, 30, 40, 50, 60 },
		{ 10, 20, 30, 40, 50, 60 }, { 10, 30, 50 }, { 10, 30, 50 },
	};
	/* F6 is Schaffer's F7 and F8 Rastrigin's formula, as the organisers' code */
	static const signed char simple[10] = { DE_CB_BENT, -1, DE_CB_ZAKHAROV, DE_CB_ROSEN,
						DE_CB_RASTRIGIN, DE_CB_SCHAFFER7, DE_CB_LUNACEK,
						DE_CB_RASTRIGIN, DE_CB_LEVY, DE_CB_SCHWEFEL };
	float bias;
	if (fn > DE_CEC22)
		return de_cec22_part(fn - DE_CEC22, k, pct, sigma, lambda, &bias);
	*pct = 100;
	*sigma = 0.0f;
	*lambda = 1.0f;
	if (fn >= 1 && fn <= 10)
		return k == 0 ? simple[fn - 1] : -1;
	if (fn >= 11 && fn <= 20) {
		if (k < 0 || k >= 6 || hyb[fn - 11][2 * k] < 0)
			return -1;
		*pct = hyb[fn - 11][2 * k + 1];
		return hyb[fn - 11][2 * k];
	}
	if (fn >= 21 && fn <= 30 && k >= 0 && k < 6 && cid[fn - 21][k] >= 0) {
		*sigma = csig[fn - 21][k];
		*lambda = clam[fn - 21][k];
		return cid[fn - 21][k];
	}
	return -1;
}

/* Bias of composition fn's component c: 100 c (CEC 2017), the table's (2022). */
DE_CEC_HD float de_cec_bias(int fn, int c)
{
	int pct;
	float sg, lm, bias = 100.0f * (float)c;
	if (fn > DE_CEC22)
		de_cec22_part(fn - DE_CEC22, c, &pct, &sg, &lm, &bias);
	return bias;
}

/* 0 simple, 1 hybrid, 2 composition. */
RT_HD int de_cec_kind(int fn)
{
	int k = fn > DE_CEC22 ? fn - DE_CEC22 : fn;
	return fn > DE_CEC22 ? (k >= 9 ? 2 : k >= 6) : (fn >= 21 ? 2 : fn >= 11);
}

/* ---- basic functions over z[0..m) (the transformed vector) -------------------- */

/* Rosenbrock's term for (u, u1) with t = u + 1: 100 (t^2 - t1)^2 + (t - 1)^2,
 * written without cancellation near u = 0. */
RT_HD float de_cec_rosen_pair(float u, float u1)
{
	float a = fmaf(u, u + 2.0f, -u1);
	return fmaf(100.0f * a, a, u * u);
}

/* Expanded Schaffer F6's g(a, b) = 0.5 + (sin^2 sqrt(q) - 0.5) / (1 + 0.001 q)^2. */
RT_HD float de_cec_schaffer6_pair(float a, float b)
{
	float q = fmaf(a, a, b * b), h = sinf(sqrtf(q)), d = fmaf(0.001f, q, 1.0f);
	return (fmaf(5e-7f * q, q, 0.001f * q) + h * h) / (d * d);
}

/* Griewank of Rosenbrock's term. */
RT_HD float de_cec_grierosen_pair(float u, float u1)
{
	float t = de_cec_rosen_pair(u, u1), h = sinf(0.5f * t);
	return fmaf(t, t / 4000.0f, 2.0f * h * h);
}

/* Modified Schwefel over z (scaled by 10, plus 420.97), CEC 2014/2017 penalty. */
DE_CEC_HD float de_cec_schwefel(const float *z, int m)
{
	float s = 0.0f;
	for (int i = 0; i < m; i++) {
		float v = fmaf(10.0f, z[i], DE_SCHWEFEL_Z), av = fabsf(v), t;
		if (av <= 500.0f) {
			t = DE_SCHWEFEL_C - v * sinf(sqrtf(av));
		} else {
			float r = 500.0f - fmodf(av, 500.0f), e = (av - 500.0f) / 100.0f;
			t = DE_SCHWEFEL_C - (v > 0.0f ? r : -r) * sinf(sqrtf(r)) + e * e / (float)m;
		}
		s = s + t;
	}
	return s;
}

/* Lunacek bi-Rastrigin from t = 2 sign(o) (x - o) / 10 and r = t rotated
 * (t itself in hybrids): min(sum t^2, d n + s sum (t + mu0 - mu1)^2) +
 * 10 sum (1 - cos 2 pi r). */
DE_CEC_HD float de_cec_lunacek(const float *t, const float *r, int m)
{
	const float mu0 = 2.5f;
	float s = 1.0f - 1.0f / (2.0f * sqrtf((float)m + 20.0f) - 8.2f);
	float mu1 = -sqrtf((mu0 * mu0 - 1.0f) / s);
	float a = 0.0f, b = 0.0f, c = 0.0f;
	for (int i = 0; i < m; i++) {
		float d = t[i] + (mu0 - mu1), h = sinf(DE_PI * r[i]);
		a = fmaf(t[i], t[i], a);
		b = fmaf(d, d, b);
		c = fmaf(20.0f * h, h, c);
	}
	return fminf(a, fmaf(s, b, (float)m)) + c;
}

DE_CEC_HD float de_cec_katsuura(const float *z, int m)
{
	float e = 10.0f / powf((float)m, 1.2f), l = 0.0f;
	for (int i = 0; i < m; i++) {
		float u = 0.05f * z[i], t = 0.0f, p = 1.0f;
		for (int j = 1; j <= 32; j++) {
			p = 2.0f * p;
			float v = p * u;
			t += fabsf(v - floorf(v + 0.5f)) / p;
		}
		l = fmaf(e, log1pf((float)(i + 1) * t), l);
	}
	return 10.0f / (float)(m * m) * expm1f(l);
}

/* sum_i sum_k a^k (cos(2 pi b^k (u + 1/2)) + 1) = sum 2 a^k sin^2(pi (1/2 - t_k)),
 * t_k = frac(b^k (u + 1/2)) by t <- frac(3 t): no huge arguments. */
DE_CEC_HD float de_cec_weierstrass(const float *z, int m)
{
	float s = 0.0f;
	for (int i = 0; i < m; i++) {
		float t = fmaf(0.005f, z[i], 0.5f), ak = 2.0f;
		t = t - floorf(t);
		for (int k = 0; k <= 20; k++) {
			float h = sinf(DE_PI * (0.5f - t));
			s = fmaf(ak * h, h, s);
			ak = 0.5f * ak;
			t = 3.0f * t;
			t = t - floorf(t);
		}
	}
	return s;
}

/* HGBat (alpha 1/4) and HappyCat (1/8) over u = z / 20 (their t = u - 1),
 * from A = sum u^2, B = sum u without the textbook's cancellation. */
DE_CEC_HD float de_cec_hgbat_cat(const float *z, int m, int cat)
{
	float A = 0.0f, AB = 0.0f, A2B = 0.0f, B = 0.0f;
	for (int i = 0; i < m; i++) {
		float u = 0.05f * z[i];
		A = fmaf(u, u, A);
		B = B + u;
		AB = AB + fmaf(u, u, -u);          /* A - B */
		A2B = A2B + fmaf(u, u, -2.0f * u); /* A - 2B = r2 - m */
	}
	float tail = 0.5f * A / (float)m;
	if (cat)
		return sqrtf(sqrtf(fabsf(A2B))) + tail;
	return sqrtf(fabsf((A - 3.0f * B + 2.0f * (float)m) * AB)) + tail;
}

DE_CEC_HD float de_cec_basic(int id, const float *z, int m, const float *o)
{
	float s = 0.0f, s2 = 0.0f;
	switch (id) {
	case DE_CB_BENT:
		for (int i = 1; i < m; i++)
			s = fmaf(z[i], z[i], s);
		return fmaf(z[0], z[0], 1e6f * s);
	case DE_CB_DISCUS:
		for (int i = 1; i < m; i++)
			s = fmaf(z[i], z[i], s);
		return fmaf(1e6f * z[0], z[0], s);
	case DE_CB_ZAKHAROV:
		for (int i = 0; i < m; i++) {
			s = fmaf(z[i], z[i], s);
			s2 = fmaf(0.5f * (float)(i + 1), z[i], s2);
		}
		s2 = s2 * s2;
		return s + s2 + s2 * s2;
	case DE_CB_ROSEN:
		for (int i = 0; i + 1 < m; i++)
			s = s + de_cec_rosen_pair(0.02048f * z[i], 0.02048f * z[i + 1]);
		return s;
	case DE_CB_RASTRIGIN:
		for (int i = 0; i < m; i++) {
			float u = 0.0512f * z[i], h = sinf(DE_PI * u);
			s = fmaf(u, u, s);
			s = fmaf(20.0f * h, h, s);
		}
		return s;
	case DE_CB_SCHAFFER6:
		for (int i = 0; i + 1 < m; i++)
			s = s + de_cec_schaffer6_pair(z[i], z[i + 1]);
		return s + de_cec_schaffer6_pair(z[m - 1], z[0]);
	case DE_CB_SCHAFFER7:
		if (m < 2)
			return 0.0f;
		for (int i = 0; i + 1 < m; i++) {
			float q = sqrtf(fmaf(z[i], z[i], z[i + 1] * z[i + 1]));
			float h = sinf(50.0f * powf(q, 0.2f));
			s = fmaf(sqrtf(q), fmaf(h, h, 1.0f), s);
		}
		s = s / (float)(m - 1);
		return s * s;
	case DE_CB_LUNACEK:   /* in a hybrid: unrotated, signs of the shift's first m */
		return 0.0f;      /* handled by de_cec_group (needs scratch) */
	case DE_CB_LEVY:
	case DE_CB_LEVY0: {
		/* w = 1 + (z - c) / 4 with c = 1 (CEC 2017's code: optimum at z = 1)
		 * or 0 (CEC 2022's): with v = z - c, sin(pi w) = -sin(pi v / 4) */
		float c = id == DE_CB_LEVY ? 1.0f : 0.0f, v = z[0] - c, h = sinf(0.25f * DE_PI * v);
		s = h * h;
		for (int i = 0; i + 1 < m; i++) {
			float d = 0.25f * (z[i] - c), w = 1.0f + d, g = sinf(fmaf(DE_PI, w, 1.0f));
			s = fmaf(d * d, fmaf(10.0f * g, g, 1.0f), s);
		}
		v = z[m - 1] - c;
		float d = 0.25f * v, g = sinf(0.5f * DE_PI * v);
		return fmaf(d * d, fmaf(g, g, 1.0f), s);
	}
	case DE_CB_SCHWEFEL:
		return de_cec_schwefel(z, m);
	case DE_CB_ELLIPTIC:
		for (int i = 0; i < m; i++) {
			float c = m > 1 ? powf(10.0f, 6.0f * (float)i / (float)(m - 1)) : 1.0f;
			s = fmaf(c * z[i], z[i], s);
		}
		return s;
	case DE_CB_ACKLEY:
		for (int i = 0; i < m; i++) {
			float h = sinf(DE_PI * z[i]);
			s = fmaf(z[i], z[i], s);
			s2 = fmaf(h, h, s2);
		}
		return -20.0f * expm1f(-0.2f * sqrtf(s / (float)m)) - DE_E * expm1f((-2.0f * s2) / (float)m);
	case DE_CB_HGBAT:
		return de_cec_hgbat_cat(z, m, 0);
	case DE_CB_HAPPYCAT:
		return de_cec_hgbat_cat(z, m, 1);
	case DE_CB_KATSUURA:
		return de_cec_katsuura(z, m);
	case DE_CB_GRIEROSEN:
		for (int i = 0; i + 1 < m; i++)
			s = s + de_cec_grierosen_pair(0.05f * z[i], 0.05f * z[i + 1]);
		return s + de_cec_grierosen_pair(0.05f * z[m - 1], 0.05f * z[0]);
	case DE_CB_WEIERSTRASS:
		return de_cec_weierstrass(z, m);
	case DE_CB_GRIEWANK: {
		float q = 0.0f;
		for (int i = 0; i < m; i++) {
			float u = 6.0f * z[i], h = sinf((0.5f * u) / sqrtf((float)(i + 1)));
			s = fmaf(u, u, s);
			q = fmaf(2.0f * h * h, 1.0f - q, q);
		}
		return s / 4000.0f + q;
	}
	default:
		(void)o;
		return DE_INF;
	}
}

/* A basic function over z[0..m); scratch w[0..m) for Lunacek's t (unrotated,
 * signs of o[0..m)). */
RT_HD float de_cec_group(int id, const float *z, int m, const float *o, float *w)
{
	if (id != DE_CB_LUNACEK)
		return de_cec_basic(id, z, m, o);
	for (int i = 0; i < m; i++)
		w[i] = (o[i] < 0.0f ? -0.2f : 0.2f) * z[i];
	return de_cec_lunacek(w, w, m);
}

/* ---- transforms ------------------------------------------------------------------ */

/* d = x - o into d; z = M d into z (rows of M in order, fmaf, j ascending). */
RT_HD void de_cec_transform(const float *x, int stride, int n, const float *o, const float *M, float *d,
			    float *z)
{
	for (int j = 0; j < n; j++)
		d[j] = x[j * stride] - o[j];
	for (int k = 0; k < n; k++) {
		float s = 0.0f;
		DE_UNROLL_4
		for (int j = 0; j < n; j++)
			s = fmaf(M[k * n + j], d[j], s);
		z[k] = s;
	}
}

/* Hybrid function hf (11..20, DE_CEC22 + 6..8) with its shift o, rotation M, shuffle S:
 * z = M (x - o), y_i = z_{S_i}, groups of ceil(p n) consecutive y. */
DE_CEC_HD float de_cec_hybrid(int hf, const float *x, int stride, int n, const float *o, const float *M,
			  const float *S, float *a, float *b)
{
	int pct, g0 = 0, ng = 0;
	float sg, lm, f = 0.0f;
	while (de_cec_part(hf, ng, &pct, &sg, &lm) >= 0)
		ng++;
	de_cec_transform(x, stride, n, o, M, a, b);
	for (int i = 0; i < n; i++)
		a[i] = b[(int)S[i]];
	for (int k = 0; k < ng; k++) {
		int id = de_cec_part(hf, k, &pct, &sg, &lm);
		int m = k + 1 < ng ? (pct * n + 99) / 100 : n - g0;
		/* Schaffer's F7 reads the shuffled vector from its start, not its
		 * group (the organisers' code reads its global y): F14, F20 */
		f = f + de_cec_group(id, id == DE_CB_SCHAFFER7 ? a : a + g0, m, o, b);
		g0 += m;
	}
	return f;
}

/* Component c (a basic id or DE_CEC_HYB + hybrid) of data d at x; a, b scratch. */
DE_CEC_HD float de_cec_component(int id, const float *x, int stride, int n, const float *d, int nc, int c,
			     float *a, float *b)
{
	const float *o = d + (long)c * n, *M = d + (long)nc * n + (long)c * n * n;
	if (id >= DE_CEC_HYB)
		return de_cec_hybrid(id - DE_CEC_HYB, x, stride, n, o, M,
				     d + (long)nc * n * (n + 1) + (long)c * n, a, b);
	if (id & DE_CEC_NOROT) {   /* CEC 2022 F9, F10: shifted, not rotated */
		for (int j = 0; j < n; j++)
			a[j] = x[j * stride] - o[j];
		return de_cec_basic(id & ~DE_CEC_NOROT, a, n, o);
	}
	if (id == DE_CB_LUNACEK) {   /* F7: the bi-modal sums unrotated, the cosines rotated */
		for (int j = 0; j < n; j++)
			b[j] = (o[j] < 0.0f ? -0.2f : 0.2f) * (x[j * stride] - o[j]);
		for (int k = 0; k < n; k++) {
			float s = 0.0f;
			DE_UNROLL_4
			for (int j = 0; j < n; j++)
				s = fmaf(M[k * n + j], b[j], s);
			a[k] = s;
		}
		return de_cec_lunacek(b, a, n);
	}
	de_cec_transform(x, stride, n, o, M, a, b);
	/* Schaffer's F7 (F6) on the unrotated x - o, as the organisers' code */
	return de_cec_basic(id, id == DE_CB_SCHAFFER7 ? a : b, n, o);
}

/* Composition fn (21..30, DE_CEC22 + 9..12): sum w_c (lambda_c g_c + bias_c) / sum w_c with
 * w_c = exp(-|x - o_c|^2 / (2 n sigma_c^2)) / |x - o_c| (log space). */
DE_CEC_HD float de_cec_composition(int fn, const float *x, int stride, int n, const float *d, float *a,
			       float *b)
{
	float lw[DE_CEC_MAXC], g[DE_CEC_MAXC], lmax = -DE_INF;
	int nc = de_cec_components(fn), pct;
	for (int c = 0; c < nc; c++) {
		float sg, lm, d2 = 0.0f;
		int id = de_cec_part(fn, c, &pct, &sg, &lm);
		const float *o = d + (long)c * n;
		for (int j = 0; j < n; j++) {
			float t = x[j * stride] - o[j];
			d2 = fmaf(t, t, d2);
		}
		if (d2 == 0.0f)   /* at o_c: its weight is everything (the C code's 1e99) */
			return fmaf(lm, de_cec_component(id, x, stride, n, d, nc, c, a, b), de_cec_bias(fn, c));
		g[c] = fmaf(lm, de_cec_component(id, x, stride, n, d, nc, c, a, b), de_cec_bias(fn, c));
		lw[c] = -0.5f * logf(d2) - d2 / (2.0f * (float)n * sg * sg);
		lmax = fmaxf(lmax, lw[c]);
	}
	float ws = 0.0f, f = 0.0f;
	for (int c = 0; c < nc; c++) {
		float w = expf(lw[c] - lmax);
		ws = ws + w;
		f = fmaf(w, g[c], f);
	}
	return f / ws;
}

/* F_fn(x) - F_fn* for fn in 1, 3..30 (CEC 2017) or DE_CEC22 + 1..12 (CEC 2022)
 * and n <= DE_CEC_DMAX (the caller checks). */
RT_HD float de_cec2017_eval(int fn, const float *x, int stride, int n, const float *data)
{
	float a[DE_CEC_DMAX], b[DE_CEC_DMAX];
	int pct;
	float sg, lm;
	int kind = de_cec_kind(fn);
	if (kind == 2)
		return de_cec_composition(fn, x, stride, n, data, a, b);
	if (kind == 1)
		return de_cec_component(DE_CEC_HYB + fn, x, stride, n, data, 1, 0, a, b);
	return de_cec_component(de_cec_part(fn, 0, &pct, &sg, &lm), x, stride, n, data, 1, 0, a, b);
}

#endif
