/* test_de_cec.c: kind `de`'s CEC 2017 suite (templates/de/de_cec2017.h,
 * runtime/de/de_cec.c): the minima (error 0 at the shift vector of every
 * function, positive elsewhere); the shared float header against an
 * independent straightforward float64 re-implementation in this file (the
 * organisers' textbook formulas: cos, pow, exp, no rewriting) on random
 * points with the same generated data; the generated data (orthogonal
 * rotations, permutations, same data for every run seed); the error
 * checkpoints' generations; NVRTC compiles (sm_90) of the fused kernel on
 * simple, hybrid and composition functions. */
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
	return fn == 10 || fn == 12 || fn == 16 || fn == 17 || fn == 20 ? 1e-4 * D : 0.0;
}

/* ---- (a) the minima --------------------------------------------------------- */

static void test_minima(void **state)
{
	(void)state;
	static const int dims[] = { 10, 30, 50, 100 };
	for (int di = 0; di < 4; di++) {
		int D = dims[di];
		float x[100];
		for (int fn = 1; fn <= 30; fn++) {
			if (fn == 2)
				continue;
			de_job job;
			rt_rng rng;
			make_cec(&job, fn, D, 3);
			double tol = floor_tol(fn, D);
			for (int j = 0; j < D; j++)
				x[j] = job.cec_data[j];
			float f0 = de_job_eval(&job, 0, x);
			if (!(fabs(f0) <= tol))
				fail_msg("F%d D%d: error at the shift vector %g, expected 0 (tolerance %g)", fn, D,
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

/* ---- (b) an independent float64 reference -------------------------------------- */

/* z = M (s (x - o)) as the organisers' sr_func: shift, scale, rotate. */
static void ref_sr(const double *x, int n, const float *o, const float *M, double s, double *z)
{
	double y[100];
	for (int i = 0; i < n; i++)
		y[i] = (x[i] - o[i]) * s;
	for (int i = 0; i < n; i++) {
		z[i] = 0;
		for (int j = 0; j < n; j++)
			z[i] += M[i * n + j] * y[j];
	}
}

static double ref_bent(const double *z, int n)
{
	double f = z[0] * z[0];
	for (int i = 1; i < n; i++)
		f += 1e6 * z[i] * z[i];
	return f;
}

static double ref_zakharov(const double *z, int n)
{
	double s1 = 0, s2 = 0;
	for (int i = 0; i < n; i++) {
		s1 += z[i] * z[i];
		s2 += 0.5 * (i + 1) * z[i];
	}
	return s1 + pow(s2, 2) + pow(s2, 4);
}

static double ref_rosen(const double *z0, int n)   /* z already scaled by 2.048/100 */
{
	double f = 0, z[100];
	for (int i = 0; i < n; i++)
		z[i] = z0[i] + 1.0;
	for (int i = 0; i < n - 1; i++) {
		double a = z[i] * z[i] - z[i + 1], b = z[i] - 1.0;
		f += 100.0 * a * a + b * b;
	}
	return f;
}

static double ref_rastrigin(const double *z, int n)   /* scaled by 5.12/100 */
{
	double f = 0;
	for (int i = 0; i < n; i++)
		f += z[i] * z[i] - 10.0 * cos(2.0 * M_PI * z[i]) + 10.0;
	return f;
}

static double ref_elliptic(const double *z, int n)
{
	double f = 0;
	for (int i = 0; i < n; i++)
		f += pow(10.0, 6.0 * i / (n - 1)) * z[i] * z[i];
	return f;
}

static double ref_schwefel(const double *z0, int n)   /* scaled by 1000/100 */
{
	double f = 0;
	for (int i = 0; i < n; i++) {
		double z = z0[i] + 420.9687462275036;
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
	return f + 418.9828872724338 * n;
}

/* F7: the bi-modal sums on the unrotated 2 sign(o) y, the cosines rotated. */
static double ref_lunacek(const double *x, int n, const float *o, const float *M)
{
	double mu0 = 2.5, s = 1.0 - 1.0 / (2.0 * sqrt(n + 20.0) - 8.2), mu1 = -sqrt((mu0 * mu0 - 1) / s);
	double t[100], r[100], a = 0, b = 0, c = 0;
	for (int i = 0; i < n; i++)
		t[i] = 2.0 * (o[i] < 0 ? -1.0 : 1.0) * (x[i] - o[i]) * 0.1;
	for (int i = 0; i < n; i++) {
		r[i] = 0;
		for (int j = 0; j < n; j++)
			r[i] += M[i * n + j] * t[j];
		a += t[i] * t[i];
		b += (t[i] + mu0 - mu1) * (t[i] + mu0 - mu1);
		c += cos(2.0 * M_PI * r[i]);
	}
	return fmin(a, 1.0 * n + s * b) + 10.0 * (n - c);
}

static void scale(double *z, int n, double s)
{
	for (int i = 0; i < n; i++)
		z[i] *= s;
}

/* F1, F3, F4, F5, F7, F10, F11, F12, F21 in float64. */
static double reference(int fn, const double *x, int n, const float *d)
{
	double z[100], y[100], g[3];
	const float *M = d + n;
	switch (fn) {
	case 1: ref_sr(x, n, d, M, 1.0, z); return ref_bent(z, n);
	case 3: ref_sr(x, n, d, M, 1.0, z); return ref_zakharov(z, n);
	case 4: ref_sr(x, n, d, M, 2.048 / 100, z); return ref_rosen(z, n);
	case 5: ref_sr(x, n, d, M, 5.12 / 100, z); return ref_rastrigin(z, n);
	case 7: return ref_lunacek(x, n, d, M);
	case 10: ref_sr(x, n, d, M, 10.0, z); return ref_schwefel(z, n);
	case 11: case 12: {   /* hybrids: groups of ceil(p n) of the shuffled z */
		const float *S = d + n + n * n;
		int g1 = (int)ceil((fn == 11 ? 0.2 : 0.3) * n), g2 = (int)ceil((fn == 11 ? 0.4 : 0.3) * n);
		ref_sr(x, n, d, M, 1.0, z);
		for (int i = 0; i < n; i++)
			y[i] = z[(int)S[i]];
		if (fn == 11) {
			double f = ref_zakharov(y, g1);
			scale(y + g1, g2 + 0, 2.048 / 100);
			f += ref_rosen(y + g1, g2);
			scale(y + g1 + g2, n - g1 - g2, 5.12 / 100);
			return f + ref_rastrigin(y + g1 + g2, n - g1 - g2);
		}
		double f = ref_elliptic(y, g1);
		scale(y + g1, g2, 10.0);
		f += ref_schwefel(y + g1, g2);
		return f + ref_bent(y + g1 + g2, n - g1 - g2);
	}
	case 21: {   /* Rosenbrock, elliptic (x 1e-6), Rastrigin; sigma 10, 20, 30 */
		static const double sig[3] = { 10, 20, 30 };
		double w[3], ws = 0, f = 0;
		const float *R = d + 3 * n;
		ref_sr(x, n, d, R, 2.048 / 100, z);
		g[0] = ref_rosen(z, n);
		ref_sr(x, n, d + n, R + n * n, 1.0, z);
		g[1] = 1e-6 * ref_elliptic(z, n) + 100;
		ref_sr(x, n, d + 2 * n, R + 2 * n * n, 5.12 / 100, z);
		g[2] = ref_rastrigin(z, n) + 200;
		for (int c = 0; c < 3; c++) {
			double d2 = 0;
			for (int j = 0; j < n; j++)
				d2 += (x[j] - d[c * n + j]) * (x[j] - d[c * n + j]);
			w[c] = pow(1.0 / d2, 0.5) * exp(-d2 / 2.0 / n / pow(sig[c], 2.0));
			ws += w[c];
		}
		for (int c = 0; c < 3; c++)
			f += w[c] / ws * g[c];
		return f;
	}
	}
	return NAN;
}

static void test_reference_float64(void **state)
{
	(void)state;
	static const int fns[] = { 1, 3, 4, 5, 7, 10, 11, 12, 21 };
	static const int dims[] = { 10, 30, 50 };
	for (int di = 0; di < 3; di++) {
		for (size_t q = 0; q < sizeof fns / sizeof fns[0]; q++) {
			int fn = fns[q], D = dims[di];
			de_job job;
			rt_rng rng;
			make_cec(&job, fn, D, 5);
			rt_rng_init(&rng, 99, (uint64_t)(fn * 1000 + D));
			for (int t = 0; t < 30; t++) {
				float x[100];
				double xd[100];
				for (int j = 0; j < D; j++) {   /* near the optimum, and anywhere */
					double u = 2.0 * rt_rng_uniform_double(&rng) - 1.0;
					x[j] = t < 10 ? job.cec_data[j] + (float)(5.0 * u) : (float)(100.0 * u);
					xd[j] = x[j];
				}
				double want = reference(fn, xd, D, job.cec_data);
				double got = de_job_eval(&job, 0, x);
				/* float: the data and the rotation's rounding, sin of arguments up to ~100 */
				if (!(fabs(got - want) <= 2e-4 * fabs(want) + 1e-3))
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

/* ---- checkpoints: the last generation within each fraction of max_evals ------------ */

static void test_checkpoint_generations(void **state)
{
	(void)state;
	de_job job;
	de_job_default(&job, DE_FN_CEC2017, 10);
	job.cec_fn = 1;
	job.strategy = DE_LSHADE;
	job.np = 180;
	job.max_evals = 100000;
	rt_error err;
	assert_int_equal(de_job_finish(&job, &err), RT_OK);
	assert_int_equal(job.cec_nchecks, DE_CEC_CHECKS);
	for (int k = 0; k < DE_CEC_CHECKS; k++) {
		double t = de_cec_fraction(k) * 100000;
		long g = job.cec_gen[k];
		assert_true((double)de_job_evals(&job, g) <= t);
		assert_true(g == job.gens || (double)de_job_evals(&job, g + 1) > t);
	}
	assert_int_equal(job.cec_gen[DE_CEC_CHECKS - 1], job.gens);
	assert_true(de_cec_fraction(0) == 0.01 && de_cec_fraction(3) == 0.05 && de_cec_fraction(4) == 0.1);
	de_job_free(&job);
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
	static const int cases[][3] = { { 1, 10, DE_LSHADE }, { 23, 30, DE_LSHADE }, { 29, 10, DE_RAND_1_BIN } };
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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_minima),
		cmocka_unit_test(test_reference_float64),
		cmocka_unit_test(test_generated_data),
		cmocka_unit_test(test_checkpoint_generations),
		cmocka_unit_test(test_nvrtc_cec),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
