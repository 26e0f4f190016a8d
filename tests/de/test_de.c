/* test_de.c: kind `de`: the test functions' minima and their agreement with
 * the textbook (double) formulas, the index draws, a plain double-precision
 * reference DE fed the same random draws (it must build the same trials and
 * select the same survivors as the CPU path), convergence on the sphere,
 * bounds handling, schedule independence, user objectives (CPU compiler and
 * NVRTC, with the user's line numbers in errors), spec errors with
 * file:line, the run's output files, and NVRTC compiles of the fused and
 * naive kernels for sm_90 without spills. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "cpu.h"
#include "de/de.h"
#include "de/de_impl.h"
#include "de_test.h"
#include "log.h"
#include "nvrtc.h"
#include "out.h"
#include "philox.h"
#include "rng.h"
#include "spec.h"

static char tmpdir[256];

static int make_tmpdir(void **state)
{
	(void)state;
	snprintf(tmpdir, sizeof tmpdir, "/tmp/evoforge-test-de-XXXXXX");
	if (!mkdtemp(tmpdir))
		return -1;
	if (!getenv("EVOFORGE_CACHE")) {
		char cache[300];
		snprintf(cache, sizeof cache, "%s/cache", tmpdir);
		setenv("EVOFORGE_CACHE", cache, 1);
	}
	rt_log_set_quiet(1);
	return 0;
}

static int remove_tmpdir(void **state)
{
	char cmd[300];
	(void)state;
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmpdir);
	return system(cmd) == 0 ? 0 : -1;
}

static void write_text(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

/* ---- the textbook reference ------------------------------------------------- */

#define REF_MAX_D 64
#define REF_MAX_NP 64

typedef struct ref {
	int D, NP, strategy, bounds, fn;
	double F, CR, lo, hi, zoff;
	uint64_t seed;
	const float *shift;   /* this problem's, or NULL */
	const float *rot;
} ref;

static ref ref_from_job(const de_job *job, long p)
{
	ref r;
	r.D = job->dim;
	r.NP = job->np;
	r.strategy = job->strategy;
	r.bounds = job->bounds;
	r.fn = job->function;
	r.F = job->params.F;
	r.CR = job->CR;
	r.lo = job->params.lower;
	r.hi = job->params.upper;
	r.zoff = job->zoff;
	r.seed = job->seed;
	r.shift = job->shift_vec ? job->shift_vec + (size_t)p * job->dim : NULL;
	r.rot = job->rot;
	return r;
}

static double ref_schwefel_g(double z, int n)
{
	if (fabs(z) <= 500)
		return z * sin(sqrt(fabs(z)));
	double m = fmod(fabs(z), 500.0);
	if (z > 500)
		return (500 - m) * sin(sqrt(500 - m)) - (z - 500) * (z - 500) / (10000.0 * n);
	return (m - 500) * sin(sqrt(fabs(m - 500))) - (z + 500) * (z + 500) / (10000.0 * n);
}

/* Textbook definitions, in double, over z = M (x - o) + zoff. */
static double ref_f(const ref *r, const double *x)
{
	double z[REF_MAX_D], s = 0, s2 = 0, p = 1;
	int n = r->D;
	for (int k = 0; k < n; k++) {
		if (r->rot) {
			z[k] = 0;
			for (int j = 0; j < n; j++)
				z[k] += (double)r->rot[k * n + j] * (x[j] - (r->shift ? r->shift[j] : 0.0));
		} else {
			z[k] = x[k] - (r->shift ? r->shift[k] : 0.0);
		}
		z[k] += r->zoff;
	}
	switch (r->fn) {
	case DE_FN_SPHERE:
		for (int k = 0; k < n; k++)
			s += z[k] * z[k];
		return s;
	case DE_FN_ROSENBROCK:
		for (int k = 0; k + 1 < n; k++)
			s += 100 * (z[k + 1] - z[k] * z[k]) * (z[k + 1] - z[k] * z[k]) + (z[k] - 1) * (z[k] - 1);
		return s;
	case DE_FN_RASTRIGIN:
		for (int k = 0; k < n; k++)
			s += z[k] * z[k] - 10 * cos(2 * M_PI * z[k]);
		return 10.0 * n + s;
	case DE_FN_ACKLEY:
		for (int k = 0; k < n; k++) {
			s += z[k] * z[k];
			s2 += cos(2 * M_PI * z[k]);
		}
		return -20 * exp(-0.2 * sqrt(s / n)) - exp(s2 / n) + 20 + M_E;
	case DE_FN_GRIEWANK:
		for (int k = 0; k < n; k++) {
			s += z[k] * z[k];
			p *= cos(z[k] / sqrt(k + 1.0));
		}
		return 1 + s / 4000 - p;
	case DE_FN_SCHWEFEL:
		for (int k = 0; k < n; k++)
			s += ref_schwefel_g(z[k], n);
		return 418.9828872724338 * n - s;
	}
	return NAN;
}

static uint32_t ref_index(uint32_t w, uint32_t n) { return (uint32_t)(((uint64_t)w * n) >> 32); }

static philox4x32_ctr ref_draw(const ref *r, uint32_t problem, uint32_t gen, uint32_t i,
			       uint32_t purpose, uint32_t block)
{
	return philox_block(r->seed, ((uint64_t)i << 32) | problem,
			    ((uint64_t)gen << 32) | ((uint64_t)purpose << 28) | block);
}

/* The trial of individual i: indices drawn without replacement from a list
 * of candidates, textbook mutation and binomial crossover, in double. *near
 * is set when a mutant component lies within rounding of a bound (there the
 * float and double bound decisions may differ). */
static void ref_trial(const ref *r, uint32_t problem, uint32_t gen, int i, int best,
		      const double *pop, double *trial, int *near)
{
	int cand[REF_MAX_NP], n = 0, picked[3];
	philox4x32_ctr c = ref_draw(r, problem, gen, (uint32_t)i, 1, 0);
	for (int k = 0; k < r->NP; k++)
		if (k != i)
			cand[n++] = k;
	for (int t = 0; t < 3; t++) {
		uint32_t k = ref_index(c.v[t], (uint32_t)n);
		picked[t] = cand[k];
		memmove(cand + k, cand + k + 1, (size_t)(n - 1 - (int)k) * sizeof cand[0]);
		n--;
	}
	int jrand = (int)ref_index(c.v[3], (uint32_t)r->D);
	int base = r->strategy == DE_BEST_1_BIN ? best : picked[0];
	int a = r->strategy == DE_BEST_1_BIN ? picked[0] : picked[1];
	int b = r->strategy == DE_BEST_1_BIN ? picked[1] : picked[2];
	double eps = 1e-5 * (r->hi - r->lo);
	*near = 0;
	for (int j = 0; j < r->D; j++) {
		philox4x32_ctr x = ref_draw(r, problem, gen, (uint32_t)i, 2, (uint32_t)j / 8);
		uint32_t w = x.v[(j % 8) / 2];
		uint32_t bits = (j % 2) ? w >> 16 : w & 0xffff;
		int take = bits / 65536.0 < r->CR || j == jrand;
		double v = pop[base * r->D + j] + r->F * (pop[a * r->D + j] - pop[b * r->D + j]);
		if (fabs(v - r->lo) < eps || fabs(v - r->hi) < eps)
			*near |= take;
		if (r->bounds == DE_BOUNDS_CLIP) {
			v = v < r->lo ? r->lo : v > r->hi ? r->hi : v;
		} else if (r->bounds == DE_BOUNDS_REFLECT) {
			if (v < r->lo)
				v = 2 * r->lo - v;
			if (v > r->hi)
				v = 2 * r->hi - v;
			v = v < r->lo ? r->lo : v > r->hi ? r->hi : v;
		} else if (v < r->lo || v > r->hi) {
			philox4x32_ctr y = ref_draw(r, problem, gen, (uint32_t)i, 3, (uint32_t)j / 4);
			v = r->lo + (r->hi - r->lo) * ((y.v[j % 4] >> 8) / 16777216.0);
		}
		trial[j] = take ? v : pop[i * r->D + j];
	}
}

static void ref_init(const ref *r, uint32_t problem, int i, double *x)
{
	for (int j = 0; j < r->D; j++) {
		philox4x32_ctr c = ref_draw(r, problem, 0, (uint32_t)i, 0, (uint32_t)j / 4);
		x[j] = r->lo + (r->hi - r->lo) * ((c.v[j % 4] >> 8) / 16777216.0);
	}
}

/* ---- the test functions ------------------------------------------------------ */

static float eval_f(int fn, const float *x, int n, const float *shift, const float *rot, float zoff)
{
	return de_function_eval(fn, x, 1, n, shift, rot, zoff);
}

static void make_job(de_job *job, int fn, int dim, int np, long problems, int shift, int rotate)
{
	de_job_default(job, fn, dim);
	job->np = np;
	job->problems = problems;
	job->shift = shift;
	job->rotate = rotate;
	job->seed = 7;
	job->max_evals = 0;
	job->generations = 50;
	rt_error err;
	assert_int_equal(de_job_finish(job, &err), RT_OK);
	assert_int_equal(de_job_prepare(job, 1, &err), RT_OK);
}

static void test_function_minima(void **state)
{
	(void)state;
	for (int fn = 0; fn < DE_FN_COUNT; fn++) {
		for (int mode = 0; mode < 3; mode++) {
			de_job job;
			int D = 13;
			make_job(&job, fn, D, 20, 2, mode >= 1, mode == 2);
			float x[13];
			double lo, hi, zs;
			de_function_box(fn, &lo, &hi, &zs);
			for (long p = 0; p < job.problems; p++) {
				const float *o = job.shift_vec ? job.shift_vec + p * D : NULL;
				for (int j = 0; j < D; j++)
					x[j] = mode == 0 ? (float)zs : o ? o[j] : 0.0f;
				float f = de_job_eval(&job, p, x);
				double tol = fn == DE_FN_SCHWEFEL ? 1e-4 * D : fn == DE_FN_ACKLEY ? 1e-6 : 1e-7;
				if (fabs(f) > tol)
					fail_msg("%s (mode %d, problem %ld): f(x*) = %g, expected 0", de_function_name(fn),
						 mode, p, (double)f);
				/* a step away from x* costs something */
				x[3] += 0.25f;
				assert_true(de_job_eval(&job, p, x) > f + 1e-4);
			}
			de_job_free(&job);
		}
	}
}

static void test_functions_match_textbook(void **state)
{
	(void)state;
	for (int fn = 0; fn < DE_FN_COUNT; fn++) {
		for (int mode = 0; mode < 3; mode++) {
			de_job job;
			int D = 11;
			make_job(&job, fn, D, 20, 3, mode >= 1, mode == 2);
			rt_rng rng;
			rt_rng_init(&rng, 99, (uint64_t)fn * 3 + mode);
			for (int t = 0; t < 200; t++) {
				long p = t % job.problems;
				float x[11];
				double xd[11];
				/* points spread over the box, and points near x* */
				for (int j = 0; j < D; j++) {
					double u = rt_rng_uniform_double(&rng);
					x[j] = (float)(job.lower + (job.upper - job.lower) * u);
					if (t % 2) {
						double zs, lo, hi;
						de_function_box(fn, &lo, &hi, &zs);
						double c = job.shift_vec ? job.shift_vec[p * D + j] : mode ? 0 : zs;
						x[j] = (float)(c + (u - 0.5) * 1e-3 * (t + 1));
					}
					xd[j] = x[j];
				}
				ref r = ref_from_job(&job, p);
				double want = ref_f(&r, xd);
				float got = de_job_eval(&job, p, x);
				double tol = 2e-5 * fabs(want) + (fn == DE_FN_SCHWEFEL ? 2e-3 : 1e-6);
				if (fabs(got - want) > tol)
					fail_msg("%s mode %d point %d: float %.9g, double textbook %.9g",
						 de_function_name(fn), mode, t, (double)got, want);
			}
			de_job_free(&job);
		}
	}
}

static void test_function_table(void **state)
{
	(void)state;
	double lo, hi, zs;
	assert_string_equal(de_function_name(DE_FN_SPHERE), "sphere");
	assert_string_equal(de_function_name(DE_FN_SCHWEFEL), "schwefel");
	de_function_box(DE_FN_RASTRIGIN, &lo, &hi, &zs);
	assert_true(lo == -5.12 && hi == 5.12 && zs == 0);
	de_function_box(DE_FN_ROSENBROCK, &lo, &hi, &zs);
	assert_true(zs == 1.0);
	/* sphere by hand, through the dispatcher, strided */
	float x[6] = { 1, 9, 2, 9, 3, 9 };
	assert_true(eval_f(DE_FN_SPHERE, x, 6, NULL, NULL, 0.0f) == 1 + 81 + 4 + 81 + 9 + 81);
	assert_true(de_function_eval(DE_FN_SPHERE, x, 2, 3, NULL, NULL, 0.0f) == 14.0f);
}

/* ---- index draws --------------------------------------------------------------- */

static void test_pick_indices(void **state)
{
	(void)state;
	de_job job;
	int counts[3][10] = { { 0 } };
	make_job(&job, DE_FN_SPHERE, 7, 10, 1, 0, 0);
	for (int strategy = 0; strategy < 2; strategy++) {
		job.params.strategy = strategy;
		for (uint32_t g = 1; g < 400; g++)
			for (uint32_t i = 0; i < 10; i++) {
				de_pick k = de_pick_indices(&job.params, 3, g, i, 4);
				uint32_t r1 = strategy ? k.a : k.base, r2 = strategy ? k.b : k.a;
				assert_true(k.jrand < 7);
				assert_true(r1 < 10 && r2 < 10 && r1 != i && r2 != i && r1 != r2);
				if (strategy) {
					assert_int_equal(k.base, 4);
				} else {
					assert_true(k.b < 10 && k.b != i && k.b != r1 && k.b != r2);
					counts[0][r1]++;
					counts[1][r2]++;
					counts[2][k.b]++;
				}
			}
	}
	/* each index is chosen about equally often (3990 picks, 9 candidates each) */
	for (int t = 0; t < 3; t++)
		for (int v = 0; v < 10; v++)
			assert_true(counts[t][v] > 3990 / 10 * 0.75 && counts[t][v] < 3990 / 10 * 1.25);
	de_job_free(&job);
}

/* ---- the CPU path against the reference ------------------------------------------ */

typedef struct ref_case {
	int fn, D, NP, strategy, bounds, shift, rotate;
	double lo, hi;   /* 0, 0: the function's box */
} ref_case;

static void run_reference_case(const ref_case *rc)
{
	de_job job;
	de_cpu *c;
	rt_error err;
	const int G = 25;
	long decisions = 0, mismatches = 0;
	de_job_default(&job, rc->fn, rc->D);
	job.np = rc->NP;
	job.problems = 2;
	job.strategy = rc->strategy;
	job.bounds = rc->bounds;
	job.shift = rc->shift;
	job.rotate = rc->rotate;
	if (rc->lo < rc->hi) {
		job.lower = rc->lo;
		job.upper = rc->hi;
	}
	job.seed = 1234567 + (uint64_t)rc->fn;
	job.max_evals = 0;
	job.generations = G;
	assert_int_equal(de_job_finish(&job, &err), RT_OK);
	assert_int_equal(de_job_prepare(&job, 1, &err), RT_OK);
	assert_int_equal(de_cpu_create(&job, &c, &err), RT_OK);
	assert_int_equal(de_cpu_advance(c, 0, &err), RT_OK);

	int D = rc->D, NP = rc->NP;
	double pop[2][REF_MAX_NP * REF_MAX_D], trial[REF_MAX_NP][REF_MAX_D], fold[2][REF_MAX_NP];
	float old[2][REF_MAX_NP * REF_MAX_D];
	float rt_trial[2][REF_MAX_NP][REF_MAX_D];
	int take[2][REF_MAX_NP], near[2][REF_MAX_NP];
	for (long p = 0; p < 2; p++) {
		ref r = ref_from_job(&job, p);
		const float *X = de_cpu_population(c, p);
		for (int i = 0; i < NP; i++) {
			double x[REF_MAX_D];
			ref_init(&r, (uint32_t)p, i, x);
			for (int j = 0; j < D; j++)
				assert_true(fabs(x[j] - X[i * D + j]) <= 1e-6 * (r.hi - r.lo));
		}
	}
	for (int g = 1; g <= G; g++) {
		for (long p = 0; p < 2; p++) {
			ref r = ref_from_job(&job, p);
			const float *X = de_cpu_population(c, p), *fx = de_cpu_fitness(c, p);
			de_state st = de_cpu_state(c, p);
			memcpy(old[p], X, (size_t)NP * D * sizeof(float));
			double bestf = INFINITY;
			for (int i = 0; i < NP; i++) {
				for (int j = 0; j < D; j++)
					pop[p][i * D + j] = X[i * D + j];
				fold[p][i] = ref_f(&r, pop[p] + i * D);
				assert_true(fabs(fold[p][i] - fx[i]) <= 1e-4 * fabs(fold[p][i]) + 1e-3);
				if (fold[p][i] < bestf)
					bestf = fold[p][i];
			}
			/* the runtime's best is the minimum (up to float rounding) */
			assert_true(fold[p][st.best_index] <= bestf + 1e-5 * fabs(bestf) + 1e-6);
			for (int i = 0; i < NP; i++) {
				float *tf = rt_trial[p][i];
				ref_trial(&r, (uint32_t)p, (uint32_t)g, i, st.best_index, pop[p], trial[i], &near[p][i]);
				de_make_trial(&job.params, X, D, 1, tf, 1, (uint32_t)p, (uint32_t)g, (uint32_t)i,
					      (uint32_t)st.best_index);
				if (!near[p][i])
					for (int j = 0; j < D; j++)
						if (fabs(tf[j] - trial[i][j]) > 1e-6 * (r.hi - r.lo) + 1e-6 * fabs(trial[i][j]))
							fail_msg("%s g %d p %ld i %d j %d: trial %.9g, reference %.9g",
								 de_function_name(rc->fn), g, p, i, j, (double)tf[j],
								 trial[i][j]);
				/* selection: the reference's objective on the trial the runtime built */
				double td[REF_MAX_D];
				for (int j = 0; j < D; j++)
					td[j] = tf[j];
				double ft = ref_f(&r, td);
				take[p][i] = ft <= fold[p][i];
				if (fabs(ft - fold[p][i]) <= 1e-5 * (fabs(ft) + fabs(fold[p][i])))
					take[p][i] = -1;   /* a near tie or a bound decision: either is right */
			}
		}
		assert_int_equal(de_cpu_advance(c, g, &err), RT_OK);
		for (long p = 0; p < 2; p++) {
			const float *Y = de_cpu_population(c, p);
			assert_int_equal(de_cpu_state(c, p).gens, g);
			for (int i = 0; i < NP; i++) {
				int took = memcmp(Y + i * D, old[p] + i * D, (size_t)D * sizeof(float)) != 0;
				decisions++;
				if (take[p][i] >= 0 && took != take[p][i]) {
					mismatches++;
					fail_msg("%s g %d p %ld i %d: runtime %s the trial, reference %s it",
						 de_function_name(rc->fn), g, p, i, took ? "took" : "rejected",
						 take[p][i] ? "takes" : "rejects");
				}
				/* a survivor that came from the trial is the trial, bit for bit */
				if (took)
					assert_memory_equal(Y + i * D, rt_trial[p][i], (size_t)D * sizeof(float));
			}
		}
	}
	assert_true(mismatches == 0 && decisions == 2L * G * NP);
	de_cpu_free(c);
	de_job_free(&job);
}

static void test_reference_same_survivors(void **state)
{
	(void)state;
	const ref_case cases[] = {
		{ DE_FN_SPHERE, 5, 8, DE_RAND_1_BIN, DE_BOUNDS_REFLECT, 0, 0, 0, 0 },
		{ DE_FN_SPHERE, 9, 16, DE_RAND_1_BIN, DE_BOUNDS_CLIP, 0, 0, 2, 7 },
		{ DE_FN_RASTRIGIN, 10, 20, DE_BEST_1_BIN, DE_BOUNDS_RESAMPLE, 1, 1, 0, 0 },
		{ DE_FN_ROSENBROCK, 7, 12, DE_RAND_1_BIN, DE_BOUNDS_CLIP, 1, 0, -2, 2 },
		{ DE_FN_ACKLEY, 6, 9, DE_RAND_1_BIN, DE_BOUNDS_RESAMPLE, 1, 0, 0, 0 },
		{ DE_FN_GRIEWANK, 8, 16, DE_BEST_1_BIN, DE_BOUNDS_REFLECT, 0, 1, 0, 0 },
		{ DE_FN_SCHWEFEL, 4, 6, DE_RAND_1_BIN, DE_BOUNDS_REFLECT, 0, 0, 0, 0 },
		{ DE_FN_SCHWEFEL, 12, 30, DE_BEST_1_BIN, DE_BOUNDS_CLIP, 1, 1, 0, 0 },
	};
	for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++)
		run_reference_case(&cases[k]);
}

/* ---- convergence, bounds, schedules -------------------------------------------- */

static void test_sphere_d10_converges(void **state)
{
	(void)state;
	de_job job;
	de_outcome out;
	rt_error err;
	de_job_default(&job, DE_FN_SPHERE, 10);   /* population 100, budget 100,000 */
	job.target = 1e-8;
	job.seed = 3;
	assert_int_equal(de_job_finish(&job, &err), RT_OK);
	assert_int_equal(de_job_prepare(&job, 1, &err), RT_OK);
	assert_int_equal(de_cpu_run(&job, NULL, NULL, &out, &err), RT_OK);
	assert_true(out.best[0] <= 1e-8f);
	assert_true(out.reached[0]);
	assert_true(out.gens[0] < job.gens);
	/* the best vector is the optimum, and its value is what the run said */
	assert_true(de_job_eval(&job, 0, out.bestx) == out.best[0]);
	for (int j = 0; j < 10; j++)
		assert_true(fabsf(out.bestx[j]) < 1e-4f);
	/* history: starts at the initial best, never increases */
	assert_true(out.hist_len > 2);
	for (int h = 1; h < out.hist_len; h++)
		assert_true(out.hist[h] <= out.hist[h - 1]);
	de_outcome_free(&out);
	de_job_free(&job);
}

static void test_bounds_kept(void **state)
{
	(void)state;
	for (int b = 0; b < 3; b++) {
		for (int fn = 0; fn < 2; fn++) {
			de_job job;
			de_cpu *c;
			rt_error err;
			de_job_default(&job, fn ? DE_FN_RASTRIGIN : DE_FN_SPHERE, 6);
			/* the minimum lies outside (sphere) or on the edge: vectors press on the bounds */
			job.lower = fn ? -1.0 : 1.0;
			job.upper = fn ? 0.0 : 5.0;
			job.np = 24;
			job.F = 1.3;   /* large steps: many mutants leave the box */
			job.bounds = b;
			job.max_evals = 0;
			job.generations = 60;
			assert_int_equal(de_job_finish(&job, &err), RT_OK);
			assert_int_equal(de_job_prepare(&job, 1, &err), RT_OK);
			assert_int_equal(de_cpu_create(&job, &c, &err), RT_OK);
			for (int g = 0; g <= 60; g++) {
				assert_int_equal(de_cpu_advance(c, g, &err), RT_OK);
				const float *X = de_cpu_population(c, 0);
				for (int k = 0; k < job.np * job.dim; k++)
					if (!(X[k] >= job.params.lower && X[k] <= job.params.upper))
						fail_msg("bounds %d fn %d gen %d: %g outside [%g, %g]", b, fn, g,
							 (double)X[k], job.lower, job.upper);
			}
			de_cpu_free(c);
			de_job_free(&job);
		}
	}
}

static void test_schedules_agree(void **state)
{
	(void)state;
	de_job job;
	de_cpu *a, *b, *one;
	rt_error err;
	int before = cpu_threads();
	de_job_default(&job, DE_FN_RASTRIGIN, 10);
	job.problems = 3;
	job.max_evals = 0;
	job.generations = 30;
	job.shift = 1;
	assert_int_equal(de_job_finish(&job, &err), RT_OK);
	assert_int_equal(de_job_prepare(&job, 1, &err), RT_OK);
	cpu_set_threads(1);   /* problems >= threads: a problem per work item */
	assert_int_equal(de_cpu_create(&job, &a, &err), RT_OK);
	assert_int_equal(de_cpu_advance(a, 30, &err), RT_OK);
	cpu_set_threads(8);   /* problems < threads: generations split over individuals */
	assert_int_equal(de_cpu_create(&job, &b, &err), RT_OK);
	for (int g = 0; g <= 30; g += 7)
		assert_int_equal(de_cpu_advance(b, g, &err), RT_OK);
	assert_int_equal(de_cpu_advance(b, 30, &err), RT_OK);
	de_job single = job;
	single.problems = 1;
	single.shift_vec = job.shift_vec;   /* problem 0's shift is the same */
	single.rot = NULL;
	memset(&single.user, 0, sizeof single.user);
	assert_int_equal(de_cpu_create(&single, &one, &err), RT_OK);
	assert_int_equal(de_cpu_advance(one, 30, &err), RT_OK);
	for (long p = 0; p < 3; p++) {
		assert_memory_equal(de_cpu_population(a, p), de_cpu_population(b, p),
				    (size_t)job.np * job.dim * sizeof(float));
		assert_int_equal(de_cpu_state(a, p).gens, 30);
		assert_int_equal(de_cpu_state(b, p).best_index, de_cpu_state(a, p).best_index);
	}
	assert_memory_equal(de_cpu_population(a, 0), de_cpu_population(one, 0),
			    (size_t)job.np * job.dim * sizeof(float));
	/* different problems are different optimisations */
	assert_memory_not_equal(de_cpu_population(a, 0), de_cpu_population(a, 1),
				(size_t)job.np * job.dim * sizeof(float));
	cpu_set_threads(before);
	de_cpu_free(a);
	de_cpu_free(b);
	de_cpu_free(one);
	de_job_free(&job);
}

/* ---- specs, user objectives, output ---------------------------------------------- */


static void test_spec_errors(void **state)
{
	(void)state;
	const char *head = "[problem]\nkind = de\nname = t\n[de]\n";   /* lines 1-4 */
	char text[1024];
	de_job job;
	rt_error err;
	snprintf(text, sizeof text, "%sdim = 10\nF = 3\n", head);
	de_test_refused(text, "t.ini:6");
	snprintf(text, sizeof text, "%sdim = 10\npopulaton = 50\n", head);
	de_test_refused(text, "t.ini:6");
	snprintf(text, sizeof text, "%sdim = 10\nlower = 5\nupper = -5\n", head);
	de_test_refused(text, "t.ini:7");
	snprintf(text, sizeof text, "%sfunction = user\n", head);
	de_test_refused(text, "t.ini:5");
	snprintf(text, sizeof text, "%sfunction = cube\n", head);
	de_test_refused(text, "t.ini:5");
	snprintf(text, sizeof text, "%sstrategy = rand/2/exp\n", head);
	de_test_refused(text, "t.ini:5");
	snprintf(text, sizeof text, "%sfunction = sphere\n[objective]\ncode = return 0;\n", head);
	de_test_refused(text, "t.ini:5");
	snprintf(text, sizeof text, "%sdim = 10\npopulation = 3\n", head);
	de_test_refused(text, "t.ini:6");
	snprintf(text, sizeof text, "%sdim = 10\nmax_evals = 50\n", head);
	de_test_refused(text, "t.ini:6");
	snprintf(text, sizeof text, "%sdim = 10\nmax_evals = 0\n", head);
	de_test_refused(text, "t.ini:6");
	snprintf(text, sizeof text, "%sdim = 10\nblock = 100\n", head);
	de_test_refused(text, "t.ini:6");
	snprintf(text, sizeof text, "%sdim = 10\nvariant = multiblok\n", head);
	de_test_refused(text, "t.ini:6");

	/* variant: multiblock as asked; auto picks it from DE_AUTO_MULTIBLOCK_DIM on */
	snprintf(text, sizeof text, "%sdim = 10\nvariant = multiblock\nstrategy = best/1/bin\n", head);
	assert_int_equal(de_test_job("t.ini", text, &job, &err), RT_OK);
	assert_int_equal(job.variant, DE_VARIANT_MULTIBLOCK);
	de_job_free(&job);
	const struct { int dim, problems, variant; } autos[] = {
		{ DE_AUTO_MULTIBLOCK_DIM - 1, 1000, DE_VARIANT_FUSED },
		{ DE_AUTO_MULTIBLOCK_DIM, 1000, DE_VARIANT_MULTIBLOCK },
		{ DE_AUTO_MULTIBLOCK_FEW_DIM, DE_AUTO_MULTIBLOCK_FEW, DE_VARIANT_MULTIBLOCK },
		{ DE_AUTO_MULTIBLOCK_FEW_DIM, DE_AUTO_MULTIBLOCK_FEW + 1, DE_VARIANT_FUSED },
		{ DE_AUTO_MULTIBLOCK_FEW_DIM - 1, 1, DE_VARIANT_FUSED },
		{ DE_AUTO_MULTIBLOCK_MAX_DIM + 1, 1, DE_VARIANT_FUSED },
	};
	for (size_t k = 0; k < sizeof autos / sizeof autos[0]; k++) {
		snprintf(text, sizeof text,
			 "%sdim = %d\nproblems = %d\npopulation = 20\nmax_evals = 0\ngenerations = 5\n", head,
			 autos[k].dim, autos[k].problems);
		assert_int_equal(de_test_job("t.ini", text, &job, &err), RT_OK);
		assert_int_equal(job.variant, autos[k].variant);
		de_job_free(&job);
	}
	snprintf(text, sizeof text, "%sdim = 1000\nvariant = fused\n", head);
	assert_int_equal(de_test_job("t.ini", text, &job, &err), RT_OK);
	assert_int_equal(job.variant, DE_VARIANT_FUSED);
	gen_source src;
	int shared, block;
	assert_int_equal(de_gpu_source(&job, NULL, &src, &shared, &block, &err), RT_OK);
	assert_non_null(strstr(src.text.data, "#define DE_MB_BLOCK 128\n"));   /* 125 chunks of 8 */
	gen_free(&src);
	de_job_free(&job);

	/* defaults: the seed's parameters */
	snprintf(text, sizeof text, "%sdim = 20\n", head);
	assert_int_equal(de_test_job("t.ini", text, &job, &err), RT_OK);
	assert_int_equal(job.np, 200);
	assert_true(job.F == 0.5 && job.CR == 0.9);
	assert_int_equal(job.strategy, DE_RAND_1_BIN);
	assert_int_equal(job.max_evals, 200000);
	assert_int_equal(job.gens, 999);
	assert_true(job.lower == -100 && job.upper == 100);
	assert_int_equal(job.params.cr16, 58983);
	de_job_free(&job);
}

static const char user_spec[] =
	"[problem]\n"
	"kind = de\n"
	"name = user-test\n"
	"seed = 5\n"
	"[de]\n"
	"dim = 5\n"
	"max_evals = 30000\n"
	"target = 1e-6\n"
	"lower = -4\n"
	"upper = 4\n"
	"[objective]\n"
	"code = float s = 0.0f;\n"
	"  for (int j = 0; j < n; j++)\n"
	"    s += (j + 1) * (x[j] - 1.0f) * (x[j] - 1.0f);\n"
	"  return s;\n";

static const char bad_user_spec[] =
	"[problem]\n"              /* 1 */
	"kind = de\n"              /* 2 */
	"name = bad-user\n"        /* 3 */
	"[de]\n"                   /* 4 */
	"dim = 3\n"                /* 5 */
	"[objective]\n"            /* 6 */
	"code = float s = 0.0f;\n" /* 7 */
	"\n"                       /* 8 */
	"  ; a comment line\n"     /* 9 */
	"  s = s + * x[0];\n"      /* 10: the error */
	"  return s;\n";           /* 11 */

static int have_cc(void)
{
	const char *cc = getenv("CC");
	char cmd[256];
	snprintf(cmd, sizeof cmd, "%s --version >/dev/null 2>&1", cc && *cc ? cc : "cc");
	return system(cmd) == 0;
}

static void test_user_objective_cpu(void **state)
{
	(void)state;
	de_job job;
	de_outcome out;
	rt_error err;
	char path[512];
	if (!have_cc())
		skip();
	snprintf(path, sizeof path, "%s/user.ini", tmpdir);
	write_text(path, user_spec);
	rt_spec spec;
	rt_options opt;
	memset(&opt, 0, sizeof opt);
	assert_int_equal(rt_spec_load(&spec, path, &err), RT_OK);
	if (de_job_from_spec(&job, &spec, &opt, &err))
		fail_msg("%s", err.msg);
	rt_spec_free(&spec);
	assert_int_equal(job.function, DE_FN_USER);
	assert_int_equal(job.user.nlines, 4);
	assert_int_equal(job.user.lines[0], 12);
	assert_int_equal(job.user.lines[3], 15);
	if (de_job_prepare(&job, 1, &err))
		fail_msg("%s", err.msg);
	float x[5] = { 1, 1, 1, 1, 2 };
	assert_true(de_job_eval(&job, 0, x) == 5.0f);
	assert_int_equal(de_cpu_run(&job, NULL, NULL, &out, &err), RT_OK);
	assert_true(out.reached[0]);
	for (int j = 0; j < 5; j++)
		assert_true(fabsf(out.bestx[j] - 1.0f) < 1e-2f);
	de_outcome_free(&out);
	/* a second load hits the compiled object in the cache */
	de_user_free(&job.user);
	de_job_free(&job);
}

/* Non-finite objective values: NaN where x[0] < 0 counts as the worst, so DE
 * still finds the minimum at x = 1 (the half of the box with finite values);
 * NaN everywhere stops the run at generation 0, and -inf stops it too, with
 * no result.json written. */
static const char nan_spec_head[] =
	"[problem]\nkind = de\nname = nan-test\nseed = 3\n"
	"[de]\ndim = 3\npopulation = 30\nmax_evals = 30000\ntarget = 1e-6\nlower = -4\nupper = 4\n"
	"[objective]\noptimum = 0\ncode = ";

static rt_status run_nan_spec(const char *code, const char *outdir, de_outcome *out, rt_error *err)
{
	char path[512], text[1024];
	rt_spec spec;
	rt_options opt;
	de_job job;
	rt_status st;
	snprintf(path, sizeof path, "%s/nan.ini", tmpdir);
	snprintf(text, sizeof text, "%s%s\n", nan_spec_head, code);
	write_text(path, text);
	memset(&opt, 0, sizeof opt);
	opt.backend = RT_BACKEND_CPU;
	opt.outdir = outdir;
	opt.quiet = 1;
	assert_int_equal(rt_spec_load(&spec, path, err), RT_OK);
	if (outdir) {
		st = de_kind.run(&spec, &opt, err);
		rt_spec_free(&spec);
		return st;
	}
	if (de_job_from_spec(&job, &spec, &opt, err) || de_job_prepare(&job, 1, err))
		fail_msg("%s", err->msg);
	rt_spec_free(&spec);
	st = de_cpu_run(&job, NULL, NULL, out, err);
	de_user_free(&job.user);
	de_job_free(&job);
	return st;
}

static void test_user_objective_nonfinite(void **state)
{
	(void)state;
	de_outcome out;
	rt_error err;
	char outdir[600], file[700];
	struct stat sb;
	if (!have_cc())
		skip();
	assert_int_equal(run_nan_spec("if (x[0] < 0.0f) return NAN;"
				      "  float s = 0.0f;"
				      "  for (int j = 0; j < n; j++) s += (x[j] - 1.0f) * (x[j] - 1.0f);"
				      "  return s;", NULL, &out, &err), RT_OK);
	assert_true(out.reached[0]);
	assert_true(isfinite(out.best[0]) && out.best[0] <= 1e-6f);
	for (int j = 0; j < 3; j++)
		assert_true(fabsf(out.bestx[j] - 1.0f) < 1e-2f);
	de_outcome_free(&out);

	assert_int_equal(run_nan_spec("return NAN;", NULL, &out, &err), RT_ERR_INPUT);
	assert_non_null(strstr(err.msg, "nan-test: problem 0: every individual's objective value is "
				       "NaN or +inf at generation 0"));
	de_outcome_free(&out);   /* the caller frees the outcome on failure too */
	assert_int_equal(run_nan_spec("return x[0] > 0.0f ? -INFINITY : x[1];", NULL, &out, &err),
			 RT_ERR_INPUT);
	assert_non_null(strstr(err.msg, "nan-test: problem 0: the objective returned -inf"));
	de_outcome_free(&out);

	snprintf(outdir, sizeof outdir, "%s/nan-out", tmpdir);
	assert_int_equal(run_nan_spec("return NAN;", outdir, NULL, &err), RT_ERR_INPUT);
	assert_non_null(strstr(err.msg, "DE stopped and wrote no results"));
	snprintf(file, sizeof file, "%s/result.json", outdir);
	assert_int_not_equal(stat(file, &sb), 0);
}

static void test_user_syntax_error_lines(void **state)
{
	(void)state;
	de_job job;
	rt_error err;
	char path[512], where[600];
	snprintf(path, sizeof path, "%s/bad.ini", tmpdir);
	write_text(path, bad_user_spec);
	rt_spec spec;
	rt_options opt;
	memset(&opt, 0, sizeof opt);
	assert_int_equal(rt_spec_load(&spec, path, &err), RT_OK);
	assert_int_equal(de_job_from_spec(&job, &spec, &opt, &err), RT_OK);
	rt_spec_free(&spec);
	assert_int_equal(job.user.nlines, 3);
	assert_int_equal(job.user.lines[1], 10);
	if (have_cc()) {
		assert_int_equal(de_job_prepare(&job, 1, &err), RT_ERR_INPUT);
		snprintf(where, sizeof where, "%s:10:", path);
		if (!strstr(err.msg, where))
			fail_msg("expected '%s' in: %s", where, err.msg);
	}
	rt_error nerr;
	if (nvrtc_open(&nerr) == RT_OK) {
		gen_source src;
		nvrtc_output out;
		int shared, block;
		memset(&out, 0, sizeof out);
		assert_int_equal(de_gpu_source(&job, NULL, &src, &shared, &block, &err), RT_OK);
		assert_int_not_equal(nvrtc_compile(src.name, src.text.data, "sm_90", NULL, 0, &out, &err), RT_OK);
		snprintf(where, sizeof where, "%s(10)", path);
		if (!strstr(err.msg, where))
			fail_msg("expected '%s' in: %s", where, err.msg);
		nvrtc_output_free(&out);
		gen_free(&src);
	}
	de_job_free(&job);
}

/* Spaces, quotes and $(...) in the spec's folder and in the cache folder reach
 * the C compiler's command line quoted: the objective compiles, errors name
 * the file, and nothing in the names is run. */
static void test_user_objective_odd_paths(void **state)
{
	(void)state;
	de_job job;
	rt_error err;
	rt_spec spec;
	rt_options opt;
	char dir[512], path[600], cache[600], where[700], prev[512] = "";
	const char *env = getenv("EVOFORGE_CACHE");
	if (!have_cc())
		skip();
	memset(&opt, 0, sizeof opt);
	snprintf(dir, sizeof dir, "%s/a b'c \"d\" $(touch de-pwned)", tmpdir);
	assert_int_equal(mkdir(dir, 0700), 0);
	snprintf(cache, sizeof cache, "%s/cache '$(touch de-pwned)", dir);
	if (env)
		snprintf(prev, sizeof prev, "%s", env);
	setenv("EVOFORGE_CACHE", cache, 1);
	for (int bad = 0; bad < 2; bad++) {
		snprintf(path, sizeof path, "%s/%s.ini", dir, bad ? "bad" : "good");
		write_text(path, bad ? bad_user_spec : user_spec);
		assert_int_equal(rt_spec_load(&spec, path, &err), RT_OK);
		assert_int_equal(de_job_from_spec(&job, &spec, &opt, &err), RT_OK);
		rt_spec_free(&spec);
		rt_status st = de_job_prepare(&job, 1, &err);
		if (bad) {
			assert_int_equal(st, RT_ERR_INPUT);
			snprintf(where, sizeof where, "%s:10:", path);
			if (!strstr(err.msg, where))
				fail_msg("expected '%s' in: %s", where, err.msg);
		} else {
			if (st != RT_OK)
				fail_msg("%s", err.msg);
			float x[5] = { 1, 1, 1, 1, 2 };
			assert_true(de_job_eval(&job, 0, x) == 5.0f);
		}
		de_job_free(&job);
	}
	if (prev[0])
		setenv("EVOFORGE_CACHE", prev, 1);
	else
		unsetenv("EVOFORGE_CACHE");
	assert_int_not_equal(access("de-pwned", F_OK), 0);
}

static void test_run_writes_results(void **state)
{
	(void)state;
	char spec_path[512], outdir[512], file[700];
	rt_spec spec;
	rt_options opt;
	rt_error err;
	struct stat sb;
	snprintf(spec_path, sizeof spec_path, "%s/run.ini", tmpdir);
	snprintf(outdir, sizeof outdir, "%s/out", tmpdir);
	write_text(spec_path, "[problem]\nkind = de\nname = run-test\n[de]\nfunction = rastrigin\n"
			      "dim = 4\nproblems = 3\nmax_evals = 4000\nhistory_every = 5\nshift = random\n");
	memset(&opt, 0, sizeof opt);
	opt.backend = RT_BACKEND_CPU;
	opt.outdir = outdir;
	opt.quiet = 1;
	assert_int_equal(rt_spec_load(&spec, spec_path, &err), RT_OK);
	if (de_kind.run(&spec, &opt, &err))
		fail_msg("%s", err.msg);
	rt_spec_free(&spec);
	snprintf(file, sizeof file, "%s/result.json", outdir);
	assert_int_equal(stat(file, &sb), 0);
	char *text;
	size_t size;
	assert_int_equal(rt_read_file(file, &text, &size, &err), RT_OK);
	assert_non_null(strstr(text, "\"rastrigin\""));
	assert_non_null(strstr(text, "\"results\""));
	free(text);
	snprintf(file, sizeof file, "%s/history.csv", outdir);
	assert_int_equal(rt_read_file(file, &text, &size, &err), RT_OK);
	int lines = 0;
	for (size_t k = 0; k < size; k++)
		lines += text[k] == '\n';
	assert_int_equal(lines, 1 + 99 / 5 + 1);   /* header, generations 0, 5, ..., 95 */
	assert_non_null(strstr(text, "generation,evaluations,best_0,best_1,best_2\n0,40,"));
	free(text);

	/* gen writes both sources */
	char gdir[600];
	snprintf(gdir, sizeof gdir, "%s/gen", tmpdir);
	assert_int_equal(rt_spec_load(&spec, spec_path, &err), RT_OK);
	assert_int_equal(de_kind.gen(&spec, &opt, gdir, &err), RT_OK);
	rt_spec_free(&spec);
	snprintf(file, sizeof file, "%s/de-run-test.cu", gdir);
	assert_int_equal(stat(file, &sb), 0);
	snprintf(file, sizeof file, "%s/de-run-test.c", gdir);
	assert_int_equal(stat(file, &sb), 0);
}

/* ---- NVRTC: the kernels compile for sm_90 with no spills --------------------------- */

/* The module of one variant (de.cu's DE_KERNELS: a variant's kernels alone). */
static void compile_variant_no_spills(const de_job *job, const char *const *kernels, int nkernels)
{
	const char *opts[8];
	int n, shared, block;
	const char *const *base = de_gpu_nvrtc_options(&n);
	gen_source src;
	nvrtc_output out;
	rt_error err;
	for (int k = 0; k < n; k++)
		opts[k] = base[k];
	opts[n++] = "-Xptxas";
	opts[n++] = "-v";
	memset(&out, 0, sizeof out);
	assert_int_equal(de_gpu_source(job, NULL, &src, &shared, &block, &err), RT_OK);
	if (nvrtc_compile(src.name, src.text.data, "sm_90", opts, n, &out, &err))
		fail_msg("%s", err.msg);
	for (int k = 0; k < nkernels; k++) {
		nvrtc_usage u;
		if (nvrtc_parse_usage(out.log, kernels[k], &u, &err))
			fail_msg("%s: %s", src.name, err.msg);
		if (u.spill_stores != 0 || u.spill_loads != 0)
			fail_msg("%s: %s spills %d/%d bytes (%d registers)", src.name, kernels[k],
				 u.spill_stores, u.spill_loads, u.registers);
		assert_true(u.registers > 0 && u.registers <= 255);
		/* the population is in the block's shared memory or in global memory, never on
		 * the stack (sinf/cosf keep a small frame for huge arguments: Payne-Hanek) */
		if ((job->function == DE_FN_SPHERE || job->function == DE_FN_ROSENBROCK ||
		     job->function == DE_FN_CALLBACK) && u.stack_frame != 0)
			fail_msg("%s: %s has a %d-byte stack frame", src.name, kernels[k], u.stack_frame);
	}
	/* and no other variant's kernel is in the module */
	nvrtc_usage u;
	const char *other = kernels[0][3] == 'f' ? "de_mb_gen" : "de_fused";
	assert_int_not_equal(nvrtc_parse_usage(out.log, other, &u, &err), RT_OK);
	nvrtc_output_free(&out);
	gen_free(&src);
}

static void compile_no_spills(const de_job *job)
{
	static const char *const fused[] = { "de_fused" };
	static const char *const naive[] = { "de_naive_init", "de_naive_eval", "de_naive_best",
					     "de_naive_mutate", "de_naive_cross", "de_naive_select" };
	static const char *const mb[] = { "de_mb_gen" };
	static const char *const cb[] = { "de_cb_trials", "de_cb_select" };
	de_job v = *job;
	v.variant = DE_VARIANT_FUSED;
	compile_variant_no_spills(&v, fused, 1);
	v.variant = DE_VARIANT_NAIVE;
	compile_variant_no_spills(&v, naive, 6);
	v.variant = DE_VARIANT_MULTIBLOCK;
	compile_variant_no_spills(&v, mb, 1);
	v.function = DE_FN_CALLBACK;   /* the objective callback's kernels, whatever the variant */
	compile_variant_no_spills(&v, cb, 2);
}

static void test_nvrtc_kernels(void **state)
{
	(void)state;
	rt_error err;
	if (nvrtc_open(&err) != RT_OK)
		skip();
	de_job job;
	/* every test function, D = 30, population 300: shared memory, block 320 */
	for (int fn = 0; fn < DE_FN_COUNT; fn++) {
		make_job(&job, fn, 30, 300, 4, fn % 2, fn == DE_FN_RASTRIGIN || fn == DE_FN_GRIEWANK);
		job.strategy = fn % 3 == 1 ? DE_BEST_1_BIN : DE_RAND_1_BIN;
		job.params.strategy = job.strategy;
		job.bounds = fn % 3;
		job.params.bounds = job.bounds;
		compile_no_spills(&job);
		de_job_free(&job);
	}
	/* D = 100, population 1000: global memory, several individuals per thread */
	make_job(&job, DE_FN_SPHERE, 100, 1000, 2, 0, 0);
	int shared, block;
	gen_source src;
	assert_int_equal(de_gpu_source(&job, NULL, &src, &shared, &block, &err), RT_OK);
	assert_int_equal(shared, 0);
	assert_int_equal(block, 512);
	gen_free(&src);
	compile_no_spills(&job);
	/* an MPI rank's share (de_shard.c): its first problem's global index is compiled in */
	job.problem_base = 7;
	job.params.problem_base = 7;
	assert_int_equal(de_gpu_source(&job, NULL, &src, &shared, &block, &err), RT_OK);
	assert_non_null(strstr(src.text.data, "#define DE_PROBLEM_BASE 7u"));
	gen_free(&src);
	compile_no_spills(&job);
	de_job_free(&job);
	/* a user objective */
	if (de_test_job("u.ini", user_spec, &job, &err))
		fail_msg("%s", err.msg);
	compile_no_spills(&job);
	de_job_free(&job);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_function_table),
		cmocka_unit_test(test_function_minima),
		cmocka_unit_test(test_functions_match_textbook),
		cmocka_unit_test(test_pick_indices),
		cmocka_unit_test(test_reference_same_survivors),
		cmocka_unit_test(test_sphere_d10_converges),
		cmocka_unit_test(test_bounds_kept),
		cmocka_unit_test(test_schedules_agree),
		cmocka_unit_test(test_spec_errors),
		cmocka_unit_test(test_user_objective_cpu),
		cmocka_unit_test(test_user_objective_nonfinite),
		cmocka_unit_test(test_user_syntax_error_lines),
		cmocka_unit_test(test_user_objective_odd_paths),
		cmocka_unit_test(test_run_writes_results),
		cmocka_unit_test(test_nvrtc_kernels),
	};
	return cmocka_run_group_tests_name("de", tests, make_tmpdir, remove_tmpdir);
}
