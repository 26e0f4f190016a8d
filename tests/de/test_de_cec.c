/* test_de_cec.c: kind `de`'s CEC 2017 suite (templates/de/de_cec2017.h,
 * runtime/de/de_cec.c): the minima (error 0 at every function's optimum,
 * the shift vector or, for F9, o + M^T 1; positive elsewhere); closed-form
 * values (F1, F3, F4, F5, F6); the shared float header against an
 * independent float64 re-implementation in this file of the organisers' C
 * code (cec17_func.cpp: its textbook formulas, its global y that Schaffer's
 * F7 reads, cf_cal's weights) for every function at D = 10, 30, 50 on
 * random points with the same generated data; the generated data
 * (orthogonal rotations, permutations, same data for every run seed); the
 * error checkpoints' generations; NVRTC compiles (sm_90) of the fused
 * kernel on simple, hybrid and composition functions. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "de/de_impl.h"
#include "nvrtc.h"
#include "rng.h"
#include "../test_tmp.h"

static void make_cec(de_job *job, int fn, int dim, uint64_t cec_seed)
{
	rt_error err;
	de_job_default(job, DE_FN_CEC2017, dim);
	job->cec_fn = fn;
	job->cec_seed = cec_seed;
	job->lower = -100;
	job->upper = 100;
	if (de_job_finish(job, &err) || de_job_prepare(job, 1, &err))
		fail_msg("F%d D%d: %s", fn, dim, err.msg);
}

/* Functions with a float floor at the optimum: the modified Schwefel's
 * 418.98 - 420.97 sin(sqrt(420.97)) (F10, hybrids with Schwefel). */
static double floor_tol(int fn, int D)
{
	int k = fn - DE_CEC22;   /* CEC 2022: F7, F8, F10 */
	return fn == 10 || fn == 12 || fn == 16 || fn == 17 || fn == 20 || k == 7 || k == 8 || k == 10 ? 1e-4 * D
											    : 0.0;
}

/* ---- (a) the minima --------------------------------------------------------- */

static void test_minima(void **state)
{
	(void)state;
	static const int dims[] = { 10, 30, 50, 100, 10, 20 };   /* the last two: CEC 2022 */
	for (int di = 0; di < 6; di++) {
		int D = dims[di];
		float x[100];
		for (int fn = di < 4 ? 1 : DE_CEC22 + 1; fn <= (di < 4 ? 30 : DE_CEC22 + 12); fn++) {
			if (fn == 2)
				continue;
			de_job job;
			rt_rng rng;
			make_cec(&job, fn, D, 3);
			double tol = floor_tol(fn, D);
			const float *M = job.cec_data + D;
			for (int j = 0; j < D; j++) {   /* F9's optimum: o + M^T 1 (the organisers' Levy) */
				double v = job.cec_data[j];
				for (int k = 0; fn == 9 && k < D; k++)
					v += M[k * D + j];
				x[j] = (float)v;
			}
			float f0 = de_job_eval(&job, 0, x);
			if (!(fabs(f0) <= (fn == 9 ? 1e-8 : tol)))
				fail_msg("F%d D%d: error at the optimum %g, expected 0 (tolerance %g)", fn, D,
					 (double)f0, tol);
			rt_rng_init(&rng, 11, (uint64_t)fn);
			for (int t = 0; t < 20; t++) {   /* near (|dx| <= 1) and anywhere in the box */
				for (int j = 0; j < D; j++) {
					double u = 2.0 * rt_rng_uniform_double(&rng) - 1.0;
					x[j] = t < 10 ? job.cec_data[j] + (float)u : (float)(100.0 * u);
				}
				float f = de_job_eval(&job, 0, x);
				if (!(f > tol))
					fail_msg("F%d D%d point %d: error %g, expected > %g", fn, D, t, (double)f, tol);
			}
			de_job_free(&job);
		}
	}
}

/* Closed forms at x = o + M^T z / s (z the scaled, rotated vector): F1 at
 * z = e_2 is 1e6 (bent cigar), F3 at e_1 1 + 0.5^2 + 0.5^4 (Zakharov), F4 at
 * -e_1 100 + 1 (Rosenbrock: t = (0, 1, 1, ..)), F5 at e_1 / 2 0.25 + 20
 * (Rastrigin: 10 (1 - cos pi) = 20), F6 at y = (3, 4, 0, ..) Schaffer's F7
 * with s_1 = 5, s_2 = 4 on the unrotated x - o; the errors F - 100 i. */
static void test_closed_forms(void **state)
{
	(void)state;
	static const struct { int fn, k; double v, s; } cases[] = {
		{ 1, 1, 1.0, 1.0 }, { 3, 0, 1.0, 1.0 }, { 4, 0, -1.0, 2.048 / 100 }, { 5, 0, 0.5, 5.12 / 100 },
	};
	for (int D = 10; D <= 30; D += 20) {
		for (size_t q = 0; q < sizeof cases / sizeof cases[0]; q++) {
			de_job job;
			float x[100];
			make_cec(&job, cases[q].fn, D, 7);
			const float *o = job.cec_data, *M = job.cec_data + D;
			for (int j = 0; j < D; j++)   /* M^T (v e_k) / s */
				x[j] = (float)(o[j] + cases[q].v * M[cases[q].k * D + j] / cases[q].s);
			double want = (double[]){ 1e6, 1.3125, 101.0, 20.25 }[q];
			double got = de_job_eval(&job, 0, x);
			if (!(fabs(got - want) <= 1e-4 * want))
				fail_msg("F%d D%d: %.9g, closed form %.9g", cases[q].fn, D, got, want);
			de_job_free(&job);
		}
		de_job job;
		float x[100];
		make_cec(&job, 6, D, 7);   /* unrotated: y = x - o */
		for (int j = 0; j < D; j++)
			x[j] = job.cec_data[j] + (j == 0 ? 3.0f : j == 1 ? 4.0f : 0.0f);
		double g = sin(50.0 * pow(5.0, 0.2)), h = sin(50.0 * pow(4.0, 0.2));
		double want = pow((sqrt(5.0) * (1 + g * g) + 2.0 * (1 + h * h)) / (D - 1), 2);
		double got = de_job_eval(&job, 0, x);
		if (!(fabs(got - want) <= 1e-4 * want))
			fail_msg("F6 D%d: %.9g, closed form %.9g", D, got, want);
		de_job_free(&job);
	}
}

/* ---- (b) an independent float64 reference -------------------------------------- */

/* The organisers' evaluation model, written here in double from their C code
 * (cec17_func.cpp) with its textbook formulas (cos, pow, exp): sr() leaves
 * z = M (s (x - o)) in rz and, when it rotates, the shifted and scaled
 * vector in ry, their global y, which Schaffer's F7 reads (F6, F14, F20);
 * hybrids keep their shuffled vector in ry. o, M are the job's float data. */
static double ry[100], rz[100];

static void sr(const double *x, int n, const float *o, const float *M, double s, int sf, int rf)
{
	double t[100];
	for (int i = 0; i < n; i++)
		t[i] = (sf ? x[i] - o[i] : x[i]) * s;
	if (!rf) {
		memcpy(rz, t, (size_t)n * sizeof *t);
		return;
	}
	memcpy(ry, t, (size_t)n * sizeof *t);
	for (int i = 0; i < n; i++) {
		rz[i] = 0;
		for (int j = 0; j < n; j++)
			rz[i] += ry[j] * M[i * n + j];
	}
}

typedef double (*ref_fn)(const double *x, int n, const float *o, const float *M, int sf, int rf);

static double r_bent(const double *x, int n, const float *o, const float *M, int sf, int rf)
{
	sr(x, n, o, M, 1.0, sf, rf);
	double f = rz[0] * rz[0];
	for (int i = 1; i < n; i++)
		f += 1e6 * rz[i] * rz[i];
	return f;
}

static double r_discus(const double *x, int n, const float *o, const float *M, int sf, int rf)
{
	sr(x, n, o, M, 1.0, sf, rf);
	double f = 1e6 * rz[0] * rz[0];
	for (int i = 1; i < n; i++)
		f += rz[i] * rz[i];
	return f;
}

static double r_ellips(const double *x, int n, const float *o, const float *M, int sf, int rf)
{
	sr(x, n, o, M, 1.0, sf, rf);
	double f = 0;
	for (int i = 0; i < n; i++)
		f += pow(10.0, 6.0 * i / (n - 1)) * rz[i] * rz[i];
	return f;
}

static double r_zakharov(const double *x, int n, const float *o, const float *M, int sf, int rf)
{
	sr(x, n, o, M, 1.0, sf, rf);
	double s1 = 0, s2 = 0;
	for (int i = 0; i < n; i++) {
		s1 += rz[i] * rz[i];
		s2 += 0.5 * (i + 1) * rz[i];
	}
	return s1 + pow(s2, 2) + pow(s2, 4);
}

static double r_rosen(const double *x, int n, const float *o, const float *M, int sf, int rf)
{
	sr(x, n, o, M, 2.048 / 100.0, sf, rf);
	double f = 0;
	for (int i = 0; i < n; i++)
		rz[i] += 1.0;
	for (int i = 0; i < n - 1; i++)
		f += 100.0 * pow(rz[i] * rz[i] - rz[i + 1], 2) + pow(rz[i] - 1.0, 2);
	return f;
}

static double r_rastrigin(const double *x, int n, const float *o, const float *M, int sf, int rf)
{
	sr(x, n, o, M, 5.12 / 100.0, sf, rf);
	double f = 0;
	for (int i = 0; i < n; i++)
		f += rz[i] * rz[i] - 10.0 * cos(2.0 * M_PI * rz[i]) + 10.0;
	return f;
}

/* Schaffer's F7 over ry (the vector before rotation, or a hybrid's shuffled
 * vector from its start): the organisers' code computes z and reads y. */
static double r_schaffer7(const double *x, int n, const float *o, const float *M, int sf, int rf)
{
	sr(x, n, o, M, 1.0, sf, rf);
	double f = 0;
	for (int i = 0; i < n - 1; i++) {
		double q = sqrt(ry[i] * ry[i] + ry[i + 1] * ry[i + 1]), t = sin(50.0 * pow(q, 0.2));
		f += sqrt(q) + sqrt(q) * t * t;
	}
	return f * f / (n - 1) / (n - 1);
}

static double r_schaffer6(const double *x, int n, const float *o, const float *M, int sf, int rf)
{
	sr(x, n, o, M, 1.0, sf, rf);
	double f = 0;
	for (int i = 0; i < n; i++) {
		int k = (i + 1) % n;
		double q = rz[i] * rz[i] + rz[k] * rz[k], t = sin(sqrt(q)), d = 1.0 + 0.001 * q;
		f += 0.5 + (t * t - 0.5) / (d * d);
	}
	return f;
}

/* Lunacek: y = s (x - o) (or the hybrid's x), t = 2 sign(o_i) y_i; the
 * cosines on M t when rotated. */
static double r_lunacek(const double *x, int n, const float *o, const float *M, int sf, int rf)
{
	double mu0 = 2.5, s = 1.0 - 1.0 / (2.0 * pow(n + 20.0, 0.5) - 8.2), mu1 = -pow((mu0 * mu0 - 1.0) / s, 0.5);
	double t[100], a = 0, b = 0, c = 0;
	for (int i = 0; i < n; i++)
		t[i] = 2.0 * (sf ? x[i] - o[i] : x[i]) * 0.1 * (o[i] < 0.0f ? -1.0 : 1.0);
	for (int i = 0; i < n; i++) {
		a += t[i] * t[i];
		b += (t[i] + mu0 - mu1) * (t[i] + mu0 - mu1);
	}
	for (int i = 0; i < n; i++) {
		double r = t[i];
		if (rf) {
			r = 0;
			for (int j = 0; j < n; j++)
				r += t[j] * M[i * n + j];
		}
		c += cos(2.0 * M_PI * r);
	}
	return fmin(a, s * b + n) + 10.0 * (n - c);
}

/* Levy: w = 1 + (z - c) / 4, c = 1 in CEC 2017's code, 0 in CEC 2022's. */
static double r_levy_c(const double *x, int n, const float *o, const float *M, int sf, int rf, double c)
{
	double w[100], f;
	sr(x, n, o, M, 1.0, sf, rf);
	for (int i = 0; i < n; i++)
		w[i] = 1.0 + (rz[i] - c) / 4.0;
	f = pow(sin(M_PI * w[0]), 2) + pow(w[n - 1] - 1, 2) * (1 + pow(sin(2 * M_PI * w[n - 1]), 2));
	for (int i = 0; i < n - 1; i++)
		f += pow(w[i] - 1, 2) * (1 + 10 * pow(sin(M_PI * w[i] + 1), 2));
	return f;
}

static double r_levy(const double *x, int n, const float *o, const float *M, int sf, int rf)
{
	return r_levy_c(x, n, o, M, sf, rf, 1.0);
}

static double r_levy0(const double *x, int n, const float *o, const float *M, int sf, int rf)
{
	return r_levy_c(x, n, o, M, sf, rf, 0.0);
}

static double r_schwefel(const double *x, int n, const float *o, const float *M, int sf, int rf)
{
	sr(x, n, o, M, 1000.0 / 100.0, sf, rf);
	double f = 0;
	for (int i = 0; i < n; i++) {
		double z = rz[i] + 4.209687462275036e+002;
		if (z > 500) {
			f -= (500.0 - fmod(z, 500)) * sin(sqrt(500.0 - fmod(z, 500)));
			f += (z - 500.0) / 100 * (z - 500.0) / 100 / n;
		} else if (z < -500) {
			f -= (-500.0 + fmod(fabs(z), 500)) * sin(sqrt(500.0 - fmod(fabs(z), 500)));
			f += (z + 500.0) / 100 * (z + 500.0) / 100 / n;
		} else {
			f -= z * sin(sqrt(fabs(z)));
		}
	}
	return f + 4.189828872724338e+002 * n;
}

static double r_ackley(const double *x, int n, const float *o, const float *M, int sf, int rf)
{
	sr(x, n, o, M, 1.0, sf, rf);
	double s1 = 0, s2 = 0;
	for (int i = 0; i < n; i++) {
		s1 += rz[i] * rz[i];
		s2 += cos(2.0 * M_PI * rz[i]);
	}
	return M_E - 20.0 * exp(-0.2 * sqrt(s1 / n)) - exp(s2 / n) + 20.0;
}

static double r_weierstrass(const double *x, int n, const float *o, const float *M, int sf, int rf)
{
	sr(x, n, o, M, 0.5 / 100.0, sf, rf);
	double f = 0, s2 = 0;
	for (int j = 0; j <= 20; j++)
		s2 += pow(0.5, j) * cos(2.0 * M_PI * pow(3.0, j) * 0.5);
	for (int i = 0; i < n; i++)
		for (int j = 0; j <= 20; j++)
			f += pow(0.5, j) * cos(2.0 * M_PI * pow(3.0, j) * (rz[i] + 0.5));
	return f - n * s2;
}

static double r_griewank(const double *x, int n, const float *o, const float *M, int sf, int rf)
{
	sr(x, n, o, M, 600.0 / 100.0, sf, rf);
	double s = 0, p = 1;
	for (int i = 0; i < n; i++) {
		s += rz[i] * rz[i];
		p *= cos(rz[i] / sqrt(1.0 + i));
	}
	return 1.0 + s / 4000.0 - p;
}

static double r_katsuura(const double *x, int n, const float *o, const float *M, int sf, int rf)
{
	sr(x, n, o, M, 5.0 / 100.0, sf, rf);
	double f = 1.0, c = 10.0 / n / n;
	for (int i = 0; i < n; i++) {
		double t = 0;
		for (int j = 1; j <= 32; j++) {
			double p = pow(2.0, j);
			t += fabs(p * rz[i] - floor(p * rz[i] + 0.5)) / p;
		}
		f *= pow(1.0 + (i + 1) * t, 10.0 / pow(1.0 * n, 1.2));
	}
	return f * c - c;
}

static double r_cat(const double *x, int n, const float *o, const float *M, int sf, int rf, int hgbat)
{
	sr(x, n, o, M, 5.0 / 100.0, sf, rf);
	double r2 = 0, sz = 0;
	for (int i = 0; i < n; i++) {
		double z = rz[i] - 1.0;
		r2 += z * z;
		sz += z;
	}
	double head = hgbat ? pow(fabs(r2 * r2 - sz * sz), 0.5) : pow(fabs(r2 - n), 0.25);
	return head + (0.5 * r2 + sz) / n + 0.5;
}

static double r_hgbat(const double *x, int n, const float *o, const float *M, int sf, int rf)
{
	return r_cat(x, n, o, M, sf, rf, 1);
}

static double r_happycat(const double *x, int n, const float *o, const float *M, int sf, int rf)
{
	return r_cat(x, n, o, M, sf, rf, 0);
}

static double r_grierosen(const double *x, int n, const float *o, const float *M, int sf, int rf)
{
	sr(x, n, o, M, 5.0 / 100.0, sf, rf);
	double f = 0;
	for (int i = 0; i < n; i++)
		rz[i] += 1.0;
	for (int i = 0; i < n; i++) {
		int k = (i + 1) % n;
		double t = 100.0 * pow(rz[i] * rz[i] - rz[k], 2) + pow(rz[i] - 1.0, 2);
		f += t * t / 4000.0 - cos(t) + 1.0;
	}
	return f;
}

/* Hybrid h (1..10, F10 + h): z = M (x - o), y_i = z_{S_i} (in ry), groups of
 * ceil(p n) consecutive y, each function on its group unshifted, unrotated. */
static double r_hybrid(int h, const double *x, int n, const float *o, const float *M, const float *S)
{
	static const ref_fn fns[10][6] = {
		{ r_zakharov, r_rosen, r_rastrigin }, { r_ellips, r_schwefel, r_bent },
		{ r_bent, r_rosen, r_lunacek }, { r_ellips, r_ackley, r_schaffer7, r_rastrigin },
		{ r_bent, r_hgbat, r_rastrigin, r_rosen }, { r_schaffer6, r_hgbat, r_rosen, r_schwefel },
		{ r_katsuura, r_ackley, r_grierosen, r_schwefel, r_rastrigin },
		{ r_ellips, r_ackley, r_rastrigin, r_hgbat, r_discus },
		{ r_bent, r_rastrigin, r_grierosen, r_weierstrass, r_schaffer6 },
		{ r_hgbat, r_katsuura, r_ackley, r_rastrigin, r_schwefel, r_schaffer7 },
	};
	static const double gp[10][6] = {
		{ 0.2, 0.4, 0.4 }, { 0.3, 0.3, 0.4 }, { 0.3, 0.3, 0.4 }, { 0.2, 0.2, 0.2, 0.4 },
		{ 0.2, 0.2, 0.3, 0.3 }, { 0.2, 0.2, 0.3, 0.3 }, { 0.1, 0.2, 0.2, 0.2, 0.3 },
		{ 0.2, 0.2, 0.2, 0.2, 0.2 }, { 0.2, 0.2, 0.2, 0.2, 0.2 }, { 0.1, 0.1, 0.2, 0.2, 0.2, 0.2 },
	};
	int k = 0, g0 = 0;
	double f = 0;
	while (k < 6 && fns[h - 1][k])
		k++;
	sr(x, n, o, M, 1.0, 1, 1);
	for (int i = 0; i < n; i++)
		ry[i] = rz[(int)S[i]];
	for (int c = 0; c < k; c++) {
		int m = c + 1 < k ? (int)ceil(gp[h - 1][c] * n) : n - g0;
		f += fns[h - 1][c](ry + g0, m, o, M, 0, 0);
		g0 += m;
	}
	return f;
}

/* The organisers' cf_cal: the nc components' values fit[] weighted by
 * exp(-d^2 / (2 n delta^2)) / d (d: the distance to component i's optimum,
 * the first nc vectors of d; 1e99 at d = 0; all equal when every weight is 0). */
static double cf_cal(const double *x, int n, const float *d, int nc, const double *fit,
		     const double *delta)
{
	double w[6], wmax = 0, ws = 0, f = 0;
	for (int i = 0; i < nc; i++) {
		const float *o = d + i * n;
		w[i] = 0;
		for (int j = 0; j < n; j++)
			w[i] += pow(x[j] - o[j], 2.0);
		w[i] = w[i] != 0 ? pow(1.0 / w[i], 0.5) * exp(-w[i] / 2.0 / n / pow(delta[i], 2.0)) : 1e99;
		wmax = fmax(wmax, w[i]);
	}
	for (int i = 0; i < nc; i++)
		ws += wmax == 0 ? 1 : w[i];
	for (int i = 0; i < nc; i++)
		f += (wmax == 0 ? 1 : w[i]) / ws * fit[i];
	return f;
}

/* F21..F30: the organisers' components, their factors as written there
 * (10000 * f / 1e10 ...), sigmas; cf_cal's weights with its 1e99 rule. */
static double r_composition(int fn, const double *x, int n, const float *d)
{
	static const ref_fn fns[8][6] = {
		{ r_rosen, r_ellips, r_rastrigin }, { r_rastrigin, r_griewank, r_schwefel },
		{ r_rosen, r_ackley, r_schwefel, r_rastrigin }, { r_ackley, r_ellips, r_griewank, r_rastrigin },
		{ r_rastrigin, r_happycat, r_ackley, r_discus, r_rosen },
		{ r_schaffer6, r_schwefel, r_griewank, r_rosen, r_rastrigin },
		{ r_hgbat, r_rastrigin, r_schwefel, r_bent, r_ellips, r_schaffer6 },
		{ r_ackley, r_griewank, r_discus, r_rosen, r_happycat, r_schaffer6 },
	};
	static const double fac[10][6] = {
		{ 1, 10000 / 1e10, 1 }, { 1, 1000.0 / 100, 1 }, { 1, 1000.0 / 100, 1, 1 },
		{ 1000.0 / 100, 10000 / 1e10, 1000.0 / 100, 1 },
		{ 10000 / 1e3, 1000 / 1e3, 1000.0 / 100, 10000 / 1e10, 1 },
		{ 10000 / 2e7, 1, 1000.0 / 100, 1, 10000 / 1e3 },
		{ 10000.0 / 1000, 10000 / 1e3, 10000 / 4e3, 10000 / 1e30, 10000 / 1e10, 10000 / 2e7 },
		{ 1000.0 / 100, 1000.0 / 100, 10000 / 1e10, 1, 1000 / 1e3, 10000 / 2e7 },
		{ 1, 1, 1 }, { 1, 1, 1 },
	};
	static const double delta[10][6] = {
		{ 10, 20, 30 }, { 10, 20, 30 }, { 10, 20, 30, 40 }, { 10, 20, 30, 40 }, { 10, 20, 30, 40, 50 },
		{ 10, 20, 20, 30, 40 }, { 10, 20, 30, 40, 50, 60 }, { 10, 20, 30, 40, 50, 60 }, { 10, 30, 50 },
		{ 10, 30, 50 },
	};
	static const int hyb[2][3] = { { 5, 6, 7 }, { 5, 8, 9 } };
	int c = fn - 21, nc = de_cec_components(fn);
	double fit[6];
	for (int i = 0; i < nc; i++) {
		const float *o = d + i * n, *M = d + nc * n + i * n * n;
		fit[i] = fn >= 29 ? r_hybrid(hyb[fn - 29][i], x, n, o, M, d + nc * n * (n + 1) + i * n)
				  : fns[c][i](x, n, o, M, 1, 1);
		fit[i] = fit[i] * fac[c][i] + 100.0 * i;
	}
	return cf_cal(x, n, d, nc, fit, delta[c]);
}

/* CEC 2022 (cec22_test_func.cpp): hybrids hf02, hf10, hf06; compositions
 * cf01, cf02, cf06, cf07 with their biases and their unrotated components
 * (r 0: cf01's last elliptic, cf02's Schwefel). */
static double reference22(int k, const double *x, int n, const float *d)
{
	static const ref_fn simple[5] = { r_zakharov, r_rosen, r_schaffer7, r_rastrigin, r_levy0 };
	static const ref_fn hyb[3][6] = {
		{ r_bent, r_hgbat, r_rastrigin },
		{ r_hgbat, r_katsuura, r_ackley, r_rastrigin, r_schwefel, r_schaffer7 },
		{ r_katsuura, r_happycat, r_grierosen, r_schwefel, r_ackley },
	};
	static const double gp[3][6] = {
		{ 0.4, 0.4, 0.2 }, { 0.1, 0.2, 0.2, 0.2, 0.1, 0.2 }, { 0.3, 0.2, 0.2, 0.1, 0.2 },
	};
	static const ref_fn comp[4][6] = {
		{ r_rosen, r_ellips, r_bent, r_discus, r_ellips }, { r_schwefel, r_rastrigin, r_hgbat },
		{ r_schaffer6, r_schwefel, r_griewank, r_rosen, r_rastrigin },
		{ r_hgbat, r_rastrigin, r_schwefel, r_bent, r_ellips, r_schaffer6 },
	};
	static const double fac[4][6] = {
		{ 10000 / 1e4, 10000 / 1e10, 10000 / 1e30, 10000 / 1e10, 10000 / 1e10 }, { 1, 1, 1 },
		{ 10000 / 2e7, 1, 1000.0 / 100, 1, 10000 / 1e3 },
		{ 10000.0 / 1000, 10000 / 1e3, 10000 / 4e3, 10000 / 1e30, 10000 / 1e10, 10000 / 2e7 },
	};
	static const double delta[4][6] = {
		{ 10, 20, 30, 40, 50 }, { 20, 10, 10 }, { 20, 20, 30, 30, 20 }, { 10, 20, 30, 40, 50, 60 },
	};
	static const double bias[4][6] = {
		{ 0, 200, 300, 100, 400 }, { 0, 200, 100 }, { 0, 200, 300, 400, 200 }, { 0, 300, 500, 100, 400, 200 },
	};
	static const int rot[4][6] = { { 1, 1, 1, 1, 0 }, { 0, 1, 1 }, { 1, 1, 1, 1, 1 }, { 1, 1, 1, 1, 1, 1 } };
	if (k <= 5)
		return simple[k - 1](x, n, d, d + n, 1, 1);
	if (k <= 8) {
		const float *S = d + n + n * n;
		int m = 0, g0 = 0;
		double f = 0;
		while (m < 6 && hyb[k - 6][m])
			m++;
		sr(x, n, d, d + n, 1.0, 1, 1);
		for (int i = 0; i < n; i++)
			ry[i] = rz[(int)S[i]];
		for (int c = 0; c < m; c++) {
			int g = c + 1 < m ? (int)ceil(gp[k - 6][c] * n) : n - g0;
			f += hyb[k - 6][c](ry + g0, g, d, d + n, 0, 0);
			g0 += g;
		}
		return f;
	}
	int c9 = k - 9, nc = de_cec22_components(k);
	double fit[6];
	for (int i = 0; i < nc; i++) {
		const float *o = d + i * n, *M = d + nc * n + i * n * n;
		fit[i] = comp[c9][i](x, n, o, M, 1, rot[c9][i]) * fac[c9][i] + bias[c9][i];
	}
	return cf_cal(x, n, d, nc, fit, delta[c9]);
}

/* F_fn(x) - F_fn* in double, every function of both suites. */
static double reference(int fn, const double *x, int n, const float *d)
{
	if (fn > DE_CEC22)
		return reference22(fn - DE_CEC22, x, n, d);
	static const ref_fn simple[10] = { r_bent, NULL, r_zakharov, r_rosen, r_rastrigin, r_schaffer7,
					   r_lunacek, r_rastrigin, r_levy, r_schwefel };
	if (fn <= 10)   /* F8: the organisers' rounding of y is overwritten: Rastrigin */
		return simple[fn - 1](x, n, d, d + n, 1, 1);
	if (fn <= 20)
		return r_hybrid(fn - 10, x, n, d, d + n, d + n + n * n);
	return r_composition(fn, x, n, d);
}

/* Every function at D = 10, 30, 50 on points near its optimum and anywhere
 * in the box: the float header against the float64 reference. */
static void test_reference_float64(void **state)
{
	(void)state;
	static const int dims[] = { 10, 30, 50, 10, 20 };   /* the last two: CEC 2022 */
	for (int di = 0; di < 5; di++) {
		for (int fn = di < 3 ? 1 : DE_CEC22 + 1; fn <= (di < 3 ? 30 : DE_CEC22 + 12); fn++) {
			int D = dims[di];
			de_job job;
			rt_rng rng;
			if (fn == 2)
				continue;
			make_cec(&job, fn, D, 5);
			rt_rng_init(&rng, 99, (uint64_t)(fn * 1000 + D));
			for (int t = 0; t < 20; t++) {
				float x[100];
				double xd[100];
				for (int j = 0; j < D; j++) {   /* near the optimum, and anywhere */
					double u = 2.0 * rt_rng_uniform_double(&rng) - 1.0;
					x[j] = t < 8 ? job.cec_data[j] + (float)(5.0 * u) : (float)(100.0 * u);
					xd[j] = x[j];
				}
				double want = reference(fn, xd, D, job.cec_data);
				double got = de_job_eval(&job, 0, x);
				/* float: rounding of z (Weierstrass' 3^20 z, Katsuura's 2^32 z
				 * see it), sin of arguments up to ~100 */
				if (!(fabs(got - want) <= 2e-4 * fabs(want) + 1e-3 * D / 10))
					fail_msg("F%d D%d point %d: float %.9g, float64 reference %.9g", fn, D, t, got,
						 want);
			}
			de_job_free(&job);
		}
	}
}

/* ---- the generated data ------------------------------------------------------- */

static void test_generated_data(void **state)
{
	(void)state;
	de_job a, b;
	make_cec(&a, 29, 30, 4);
	make_cec(&b, 29, 30, 4);
	b.seed = 12345;   /* a run seed: the data is the cec_seed's */
	long len = de_cec_data_len(29, 30);
	assert_int_equal(len, 3 * 30 * 31 + 3 * 30);
	assert_memory_equal(a.cec_data, b.cec_data, (size_t)len * sizeof(float));
	int n = 30;
	for (int c = 0; c < 3; c++) {
		const float *o = a.cec_data + c * n, *M = a.cec_data + 3 * n + c * n * n;
		const float *S = a.cec_data + 3 * n * (n + 1) + c * n;
		int seen[30] = { 0 };
		for (int j = 0; j < n; j++) {
			assert_true(o[j] >= -80.0f && o[j] <= 80.0f);
			assert_true(S[j] >= 0 && S[j] < n && S[j] == (float)(int)S[j]);
			seen[(int)S[j]]++;
		}
		for (int j = 0; j < n; j++)
			assert_int_equal(seen[j], 1);
		for (int i = 0; i < n; i++)   /* M M^T = I */
			for (int k = 0; k < n; k++) {
				double s = 0;
				for (int j = 0; j < n; j++)
					s += (double)M[i * n + j] * M[k * n + j];
				assert_true(fabs(s - (i == k)) < 1e-5);
			}
	}
	de_job c;
	make_cec(&c, 29, 30, 5);   /* another cec_seed: other functions */
	assert_true(memcmp(a.cec_data, c.cec_data, (size_t)len * sizeof(float)) != 0);
	de_job_free(&a);
	de_job_free(&b);
	de_job_free(&c);
}

/* ---- cec_data: the organisers' data files ----------------------------------------- */

/* Writes the job's data as the organisers' files in tmpdir: shift rows of 100
 * (10 rows for compositions), 10 matrices for compositions, 1-based shuffles
 * (10 blocks for F29, F30), padded as theirs with values never read. */
static void write_official(const de_job *job)
{
	int fn = job->cec_fn, n = job->dim, nc = de_cec_components(fn), comp = de_cec_kind(fn) == 2;
	int num = de_cec_number(job), rows = fn > DE_CEC22 ? 12 : 10;   /* the code's cf_num */
	const float *d = job->cec_data;
	char path[400];
	snprintf(path, sizeof path, "%s/shift_data_%d.txt", tmpdir, num);
	FILE *f = fopen(path, "w");
	for (int c = 0; c < (comp ? rows : 1); c++, fputc('\n', f))
		for (int j = 0; j < 100; j++)
			fprintf(f, " %.9g", c < nc && j < n ? d[c * n + j] : 77.5);
	fclose(f);
	snprintf(path, sizeof path, "%s/M_%d_D%d.txt", tmpdir, num, n);
	f = fopen(path, "w");
	for (int k = 0; k < (comp ? rows : 1) * n * n; k++)
		fprintf(f, "%.9g%c", k < nc * n * n ? d[nc * n + k] : 0.5, k % n == n - 1 ? '\n' : ' ');
	fclose(f);
	if (!de_cec_has_shuffle(fn))
		return;
	snprintf(path, sizeof path, "%s/shuffle_data_%d_D%d.txt", tmpdir, num, n);
	f = fopen(path, "w");
	for (int k = 0; k < (comp ? rows : 1) * n; k++)
		fprintf(f, "%d ", k < nc * n ? (int)d[nc * n * (n + 1) + k] + 1 : k % n + 1);
	fclose(f);
}

static rt_status official_job(de_job *job, int fn, int dim, const char *dir, rt_error *err)
{
	de_job_default(job, DE_FN_CEC2017, dim);
	job->cec_fn = fn;
	job->lower = -100;
	job->upper = 100;
	job->cec_dir = strdup(dir);   /* the suite's function number names the files */
	rt_status st = de_job_finish(job, err);
	return st ? st : de_job_prepare(job, 1, err);
}

/* Files written from generated data read back to the same floats (simple,
 * hybrid, F20 with its one shift row, compositions, F29's shuffles, CEC
 * 2022 F7 and F12); a missing file and a bad shuffle are named. */
static void test_official_files(void **state)
{
	(void)state;
	static const int fns[] = { 5, 13, 20, 22, 29, DE_CEC22 + 7, DE_CEC22 + 12 };
	rt_error err;
	for (size_t q = 0; q < sizeof fns / sizeof fns[0]; q++) {
		de_job gen, rd;
		make_cec(&gen, fns[q], 10, 4);
		write_official(&gen);
		if (official_job(&rd, fns[q], 10, tmpdir, &err))
			fail_msg("F%d: %s", fns[q], err.msg);
		assert_memory_equal(gen.cec_data, rd.cec_data,
				    (size_t)de_cec_data_len(fns[q], 10) * sizeof(float));
		de_job_free(&gen);
		de_job_free(&rd);
	}
	de_job rd;
	assert_int_equal(official_job(&rd, 5, 30, tmpdir, &err), RT_ERR_INPUT);   /* no M_5_D30.txt */
	assert_non_null(strstr(err.msg, "M_5_D30.txt: No such file"));
	de_job_free(&rd);
	char path[400];
	snprintf(path, sizeof path, "%s/shuffle_data_13_D10.txt", tmpdir);
	FILE *f = fopen(path, "w");
	fprintf(f, "1 2 3 4 5 6 7 8 9 9\n");
	fclose(f);
	assert_int_equal(official_job(&rd, 13, 10, tmpdir, &err), RT_ERR_INPUT);
	assert_non_null(strstr(err.msg, "number 10 is 9, expected a permutation of 1 .. 10"));
	de_job_free(&rd);
}

/* ---- checkpoints: the last generation within each fraction of max_evals ------------ */

static void test_checkpoint_generations(void **state)
{
	(void)state;
	de_job job;
	rt_error err;
	/* CEC 2017: 14 fractions of MaxFES; CEC 2022 at D = 20: 20^(k/5 - 3), k = 0 .. 15 */
	static const struct { int fn, dim, K; long maxfes; } suites[] = {
		{ 1, 10, 14, 100000 }, { DE_CEC22 + 4, 20, 16, 1000000 },
	};
	for (int q = 0; q < 2; q++) {
		de_job_default(&job, DE_FN_CEC2017, suites[q].dim);
		job.cec_fn = suites[q].fn;
		job.strategy = DE_LSHADE;
		job.np = 18 * suites[q].dim;
		job.max_evals = suites[q].maxfes;
		assert_int_equal(de_job_finish(&job, &err), RT_OK);
		assert_int_equal(job.cec_nchecks, suites[q].K);
		for (int k = 0; k < suites[q].K; k++) {
			double t = de_cec_fraction(&job, k) * (double)suites[q].maxfes;
			long g = job.cec_gen[k];
			/* before the initial population's evaluations: generation 0 */
			assert_true(g == 0 || (double)de_job_evals(&job, g) <= t);
			assert_true(g == job.gens || (double)de_job_evals(&job, g + 1) > t);
		}
		assert_int_equal(job.cec_gen[suites[q].K - 1], job.gens);
		if (q == 0)
			assert_true(de_cec_fraction(&job, 0) == 0.01 && de_cec_fraction(&job, 3) == 0.05 &&
				    de_cec_fraction(&job, 4) == 0.1);
		else
			assert_true(fabs(de_cec_fraction(&job, 0) - 1.25e-4) < 1e-12 &&
				    fabs(de_cec_fraction(&job, 5) - 1.0 / 400) < 1e-12 &&
				    de_cec_fraction(&job, 15) == 1.0);
		de_job_free(&job);
	}
	de_job_default(&job, DE_FN_SPHERE, 10);   /* other functions: none */
	assert_int_equal(de_job_finish(&job, &err), RT_OK);
	assert_int_equal(job.cec_nchecks, 0);
	de_job_free(&job);
}

/* ---- (c) NVRTC ---------------------------------------------------------------------- */

static void test_nvrtc_cec(void **state)
{
	(void)state;
	rt_error err;
	if (nvrtc_open(&err) != RT_OK)
		skip();
	static const int cases[][3] = { { 1, 10, DE_LSHADE }, { 23, 30, DE_LSHADE }, { 29, 10, DE_RAND_1_BIN },
					{ DE_CEC22 + 9, 20, DE_LSHADE } };
	for (size_t q = 0; q < sizeof cases / sizeof cases[0]; q++) {
		de_job job;
		gen_source src;
		nvrtc_output out;
		int n, shared, block;
		const char *const *opts = de_gpu_nvrtc_options(&n);
		de_job_default(&job, DE_FN_CEC2017, cases[q][1]);
		job.cec_fn = cases[q][0];
		job.strategy = cases[q][2];
		job.np = cases[q][2] == DE_RAND_1_BIN ? 100 : 18 * cases[q][1];
		assert_int_equal(de_job_finish(&job, &err), RT_OK);
		memset(&out, 0, sizeof out);
		assert_int_equal(de_gpu_source(&job, NULL, &src, &shared, &block, &err), RT_OK);
		assert_non_null(strstr(src.text.data, "#define DE_CEC 1"));
		if (nvrtc_compile(src.name, src.text.data, "sm_90", opts, n, &out, &err))
			fail_msg("F%d D%d: %s", cases[q][0], cases[q][1], err.msg);
		assert_true(out.size > 0);
		nvrtc_output_free(&out);
		gen_free(&src);
		de_job_free(&job);
	}
}

static int group_setup(void **state)
{
	(void)state;
	return tmp_setup("de-cec");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_minima),
		cmocka_unit_test(test_closed_forms),
		cmocka_unit_test(test_reference_float64),
		cmocka_unit_test(test_generated_data),
		cmocka_unit_test(test_official_files),
		cmocka_unit_test(test_checkpoint_generations),
		cmocka_unit_test(test_nvrtc_cec),
	};
	return cmocka_run_group_tests(tests, group_setup, tmp_teardown);
}
