/* test_de_mixed.c: kind `de`'s mixed strategies (CoDE and SaDE;
 * templates/de/de_mixed.h): the CPU path against a plain sequential
 * re-implementation in this file fed the same Philox draws (populations,
 * fitness, SaDE's probabilities, CRm and rings bit-identical generation by
 * generation, past the learning period); the partners' distinctness and
 * coverage; the evaluation count (CoDE: three trials an individual);
 * quality on the sphere and shifted Rastrigin at D = 10 and 30 (both papers
 * report errors of 0 on shifted Rastrigin); spec keys and their errors;
 * NVRTC compiles of the fused kernel (sm_90). */
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
#include "de_test.h"
#include "log.h"
#include "nvrtc.h"
#include "philox.h"
#include "spec.h"

/* ---- the sequential reference ------------------------------------------------ */

#define RMAX_NP 64
#define RMAX_D 8
#define RMAX_LP 64

typedef struct mref {
	const de_job *job;
	long problem;
	int D, NP, LP, s;
	float X[RMAX_NP][RMAX_D], fx[RMAX_NP];
	/* SaDE */
	int gens;
	double p[4], crm[4];
	int ns[RMAX_LP][4], nf[RMAX_LP][4];   /* by generation (row g % LP) */
	double cr_ring[4][RMAX_LP];            /* successful CRs, newest at (head - 1) */
	int count[4], head[4];
} mref;

static philox4x32_ctr rdraw(const mref *r, uint32_t g, uint32_t i, uint32_t purpose, uint32_t block)
{
	return de_test_draw(r->job->seed, r->problem, g, i, purpose, block);
}

static void ref_init(mref *r, const de_job *job, long problem)
{
	memset(r, 0, sizeof *r);
	r->job = job;
	r->problem = problem;
	r->D = job->dim;
	r->NP = job->np;
	r->s = job->strategy;
	r->LP = job->params.H;
	for (int i = 0; i < r->NP; i++) {
		de_test_initial(job, problem, i, r->X[i]);
		r->fx[i] = de_job_eval(job, problem, r->X[i]);
	}
	for (int k = 0; k < 4; k++) {
		r->p[k] = 0.25;
		r->crm[k] = 0.5;
	}
}

/* Five distinct partners, none i: the t-th of the indices not yet taken. */
static void ref_partners(const mref *r, uint32_t g, uint32_t i, int trial, int *pick, int *jrand,
			 uint32_t *setting_word, float *K)
{
	philox4x32_ctr a = rdraw(r, g, i, DE_DRAW_MIX, 3u * (uint32_t)trial);
	philox4x32_ctr b = rdraw(r, g, i, DE_DRAW_MIX, 3u * (uint32_t)trial + 1u);
	uint32_t w[5] = { a.v[0], a.v[1], a.v[2], a.v[3], b.v[0] };
	int taken[RMAX_NP] = { 0 };
	taken[i] = 1;
	for (int k = 0; k < 5; k++) {
		int t = (int)de_test_below(w[k], r->NP - 1 - k), v = 0;
		for (;; v++)
			if (!taken[v] && t-- == 0)
				break;
		taken[v] = 1;
		pick[k] = v;
	}
	*jrand = (int)de_test_below(b.v[1], r->D);
	*setting_word = b.v[2];
	*K = (float)(b.v[3] >> 8) / 16777216.0f;
}

static float ref_reflect(const mref *r, float v)
{
	float lo = (float)r->job->lower, hi = (float)r->job->upper;
	if (v < lo)
		v = lo + (lo - v);
	if (v > hi)
		v = hi - (v - hi);
	return fminf(fmaxf(v, lo), hi);
}

/* Trial `trial` of individual i of kind `kind` into y. */
static void ref_trial(const mref *r, uint32_t g, int i, int trial, int kind, float F, double CR,
		      float K, const int *q, int jrand, int best, float *y)
{
	uint32_t cr16 = (uint32_t)ceil(CR * 65536.0);
	int nb = (r->D + 7) / 8;
	for (int j = 0; j < r->D; j++) {
		const float x = r->X[i][j];
		float v;
		switch (kind) {
		case 0:   /* rand/1 */
			v = fmaf(F, r->X[q[1]][j] - r->X[q[2]][j], r->X[q[0]][j]);
			break;
		case 1:   /* rand-to-best/2 */
			v = fmaf(F, r->X[best][j] - x, x);
			v = fmaf(F, r->X[q[0]][j] - r->X[q[1]][j], v);
			v = fmaf(F, r->X[q[2]][j] - r->X[q[3]][j], v);
			break;
		case 2:   /* rand/2 */
			v = fmaf(F, r->X[q[1]][j] - r->X[q[2]][j], r->X[q[0]][j]);
			v = fmaf(F, r->X[q[3]][j] - r->X[q[4]][j], v);
			break;
		default:   /* current-to-rand/1 */
			v = fmaf(F, r->X[q[1]][j] - r->X[q[2]][j], fmaf(K, r->X[q[0]][j] - x, x));
		}
		v = ref_reflect(r, v);
		philox4x32_ctr c = rdraw(r, g, (uint32_t)i, DE_DRAW_CROSS, (uint32_t)(trial * nb + j / 8));
		uint32_t bits = (c.v[(j % 8) / 2] >> (16 * (j % 2))) & 0xffffu;
		y[j] = kind == 3 || bits < cr16 || j == jrand ? v : x;
	}
}

static int ref_best(const mref *r)
{
	int b = 0;
	for (int i = 1; i < r->NP; i++)
		if (r->fx[i] < r->fx[b])
			b = i;
	return b;
}

static void ref_code_generation(mref *r, uint32_t g)
{
	static const float Fs[3] = { 1.0f, 1.0f, 0.8f };
	static const double CRs[3] = { 0.1, 0.9, 0.2 };
	static const int kinds[3] = { 0, 2, 3 };
	float Y[RMAX_NP][RMAX_D], fy[RMAX_NP];
	for (int i = 0; i < r->NP; i++) {
		float best_y[RMAX_D], fb = INFINITY;
		for (int t = 0; t < 3; t++) {
			int q[5], jrand;
			uint32_t sw;
			float K, y[RMAX_D];
			ref_partners(r, g, (uint32_t)i, t, q, &jrand, &sw, &K);
			int s = (int)de_test_below(sw, 3);
			ref_trial(r, g, i, t, kinds[t], Fs[s], CRs[s], K, q, jrand, 0, y);
			float f = de_job_eval(r->job, r->problem, y);
			if (t == 0 || f < fb) {
				fb = f;
				memcpy(best_y, y, sizeof y);
			}
		}
		int keep = fb <= r->fx[i];
		memcpy(Y[i], keep ? best_y : r->X[i], sizeof Y[i]);
		fy[i] = keep ? fb : r->fx[i];
	}
	memcpy(r->X, Y, sizeof Y);
	memcpy(r->fx, fy, sizeof fy);
}

/* N(0, 1) by the polar method on blocks first .. first + 31 of purpose. */
static double ref_normal(const mref *r, uint32_t g, uint32_t i, uint32_t purpose, uint32_t first)
{
	for (uint32_t k = 0; k < 32; k++) {
		philox4x32_ctr c = rdraw(r, g, i, purpose, first + k);
		double v1 = 2 * de_test_unif(c.v[0], c.v[1]) - 1, v2 = 2 * de_test_unif(c.v[2], c.v[3]) - 1;
		double s = v1 * v1 + v2 * v2;
		if (s > 0 && s < 1)
			return v1 * sqrt(-2 * de_log(s) / s);
	}
	return 0;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

/* SaDE's learning after a generation: probabilities from the window's
 * counts summed afresh, CRm as the median of a sorted copy of the ring. */
static void ref_sade_learn(mref *r)
{
	if (r->gens < r->LP)
		return;
	double S[4], sum = 0;
	for (int k = 0; k < 4; k++) {
		int ns = 0, nf = 0;
		for (int row = 0; row < r->LP; row++) {
			ns += r->ns[row][k];
			nf += r->nf[row][k];
		}
		S[k] = (ns + nf > 0 ? (double)ns / (ns + nf) : 0) + 0.01;
		sum += S[k];
		int n = r->count[k];
		if (n > 0) {
			double v[RMAX_LP];
			memcpy(v, r->cr_ring[k], (size_t)n * sizeof *v);
			qsort(v, (size_t)n, sizeof *v, cmp_double);
			r->crm[k] = n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
		}
	}
	for (int k = 0; k < 4; k++)
		r->p[k] = S[k] / sum;
}

static void ref_sade_generation(mref *r, uint32_t g)
{
	float Y[RMAX_NP][RMAX_D], fy[RMAX_NP];
	int best = ref_best(r), row = r->gens % r->LP;
	memset(r->ns[row], 0, sizeof r->ns[row]);
	memset(r->nf[row], 0, sizeof r->nf[row]);
	for (int i = 0; i < r->NP; i++) {
		int q[5], jrand;
		uint32_t sw;
		float K;
		ref_partners(r, g, (uint32_t)i, 0, q, &jrand, &sw, &K);
		philox4x32_ctr c = rdraw(r, g, (uint32_t)i, DE_DRAW_MIX, 2);
		double u = de_test_unif(c.v[0], c.v[1]), acc = 0;
		int kind = 3;
		for (int k = 0; k < 3; k++) {
			acc += r->p[k];
			if (u < acc) {
				kind = k;
				break;
			}
		}
		float F = (float)(0.5 + 0.3 * ref_normal(r, g, (uint32_t)i, DE_DRAW_FNORM, 0));
		double cr = r->crm[kind];
		for (uint32_t a = 0; a < 8; a++) {
			cr = r->crm[kind] + 0.1 * ref_normal(r, g, (uint32_t)i, DE_DRAW_CRNORM, 32 * a);
			if (cr >= 0 && cr <= 1)
				break;
		}
		cr = fmin(fmax(cr, 0), 1);
		ref_trial(r, g, i, 0, kind, F, cr, K, q, jrand, best, Y[i]);
		float f = de_job_eval(r->job, r->problem, Y[i]);
		if (f <= r->fx[i]) {
			fy[i] = f;
			r->ns[row][kind]++;
			r->cr_ring[kind][r->head[kind]] = cr;
			r->head[kind] = (r->head[kind] + 1) % r->LP;
			r->count[kind] += r->count[kind] < r->LP;
		} else {
			memcpy(Y[i], r->X[i], sizeof Y[i]);
			fy[i] = r->fx[i];
			r->nf[row][kind]++;
		}
	}
	memcpy(r->X, Y, sizeof Y);
	memcpy(r->fx, fy, sizeof fy);
	r->gens++;
	ref_sade_learn(r);
}

/* The CPU path and the reference agree after generation g. */
static void compare(const mref *r, const de_cpu *c, long p, int g)
{
	const float *pop = de_cpu_population(c, p), *fit = de_cpu_fitness(c, p);
	for (int i = 0; i < r->NP; i++)
		if (memcmp(pop + (size_t)i * r->D, r->X[i], (size_t)r->D * sizeof(float)) ||
		    memcmp(&fit[i], &r->fx[i], sizeof(float)))
			fail_msg("%s gen %d: individual %d differs (f %.9g vs %.9g)", de_job_strategy_name(r->job),
				 g, i, (double)fit[i], (double)r->fx[i]);
	if (r->s != DE_SADE)
		return;
	const double *ad = de_cpu_adapt_state(c, p);
	assert_true(ad[DE_SA_GENS] == r->gens);
	for (int k = 0; k < 4; k++) {
		if (memcmp(&ad[DE_SA_P + k], &r->p[k], sizeof(double)) ||
		    memcmp(&ad[DE_SA_CRM + k], &r->crm[k], sizeof(double)))
			fail_msg("sade gen %d: kind %d: p %.17g / %.17g, CRm %.17g / %.17g", g, k, ad[DE_SA_P + k],
				 r->p[k], ad[DE_SA_CRM + k], r->crm[k]);
		assert_true(ad[DE_SA_COUNT + k] == r->count[k] && ad[DE_SA_HEAD + k] == r->head[k]);
	}
}

static void mixed_job(de_job *job, int strategy, int fn, int dim, int np, long long max_evals, long problems,
		      int lp)
{
	de_test_strategy_job(job, strategy, fn, dim, np, max_evals, problems, lp, 13);
}

static void test_reference_same_moves(void **state)
{
	(void)state;
	static const struct { int s, np, lp; long long evals; } cases[] = {
		{ DE_CODE, 12, 0, 12 + 3 * 12 * 60 }, { DE_SADE, 20, 10, 20 * 81 }, { DE_SADE, 6, 5, 6 * 61 },
	};
	for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
		de_job job;
		de_cpu *c;
		rt_error err;
		mref *r = calloc(2, sizeof *r);
		mixed_job(&job, cases[k].s, DE_FN_RASTRIGIN, 6, cases[k].np, cases[k].evals, 2, cases[k].lp);
		assert_int_equal(job.gens, cases[k].s == DE_CODE ? 60 : (cases[k].evals / cases[k].np) - 1);
		assert_int_equal(de_cpu_create(&job, &c, &err), RT_OK);
		assert_int_equal(de_cpu_advance(c, 0, &err), RT_OK);
		for (long p = 0; p < 2; p++) {
			ref_init(&r[p], &job, p);
			compare(&r[p], c, p, 0);
		}
		int learnt = 0;
		for (int g = 1; g <= (int)job.gens; g++) {
			assert_int_equal(de_cpu_advance(c, g, &err), RT_OK);
			for (long p = 0; p < 2; p++) {
				if (cases[k].s == DE_CODE)
					ref_code_generation(&r[p], (uint32_t)g);
				else
					ref_sade_generation(&r[p], (uint32_t)g);
				compare(&r[p], c, p, g);
				learnt |= r[p].s == DE_SADE && r[p].p[0] != 0.25 && r[p].crm[1] != 0.5;
			}
		}
		assert_int_equal(de_job_evals(&job, job.gens), cases[k].evals);
		assert_true(cases[k].s == DE_CODE || learnt);   /* the learning period was passed */
		free(r);
		de_cpu_free(c);
		de_job_free(&job);
	}
}

/* r1..r5 are distinct, never i, inside the population, and every index is drawn. */
static void test_partners_distinct(void **state)
{
	(void)state;
	for (int np = 6; np <= 40; np += 17) {
		int seen[40] = { 0 };
		for (uint32_t n = 0; n < 4000; n++) {
			philox4x32_ctr a = philox_block(3, n, 0), b = philox_block(3, n, 1);
			uint32_t w[5] = { a.v[0], a.v[1], a.v[2], a.v[3], b.v[0] }, r[5], i = n % (uint32_t)np;
			de_mix_indices(np, i, w, r);
			for (int k = 0; k < 5; k++) {
				assert_true(r[k] < (uint32_t)np && r[k] != i);
				for (int m = 0; m < k; m++)
					assert_true(r[k] != r[m]);
				seen[r[k]]++;
			}
		}
		for (int v = 0; v < np; v++)
			assert_true(seen[v] > 4000 * 5 / np / 2);
	}
}

/* ---- quality ---------------------------------------------------------------------- */

/* Median best error of 5 problems after max_evals evaluations each. */
static double median_error(int strategy, int fn, int dim, long long max_evals)
{
	de_job job;
	de_job_default(&job, fn, dim);
	job.strategy = strategy;
	job.np = strategy == DE_CODE ? 30 : strategy == DE_SADE ? 50 : 10 * dim;
	job.shift = 1;
	job.seed = 5;
	job.max_evals = max_evals;
	return de_test_median_best(&job);
}

static void test_quality(void **state)
{
	(void)state;
	static const int strategies[] = { DE_SADE, DE_CODE };
	double ras_rand = median_error(DE_RAND_1_BIN, DE_FN_RASTRIGIN, 30, 300000);
	rt_info("quality, median of 5: rand/1/bin shifted rastrigin D=30 (300000 evaluations) %.3g",
		ras_rand);
	assert_true(ras_rand > 10);
	for (size_t k = 0; k < 2; k++) {
		double sph = median_error(strategies[k], DE_FN_SPHERE, 10, 100000);
		double ras = median_error(strategies[k], DE_FN_RASTRIGIN, 30, 300000);
		rt_info("quality: %-4s shifted sphere D=10 (100000) %.3g, shifted rastrigin D=30 %.3g",
			strategies[k] == DE_SADE ? "sade" : "code", sph, ras);
		assert_true(sph < 1e-8);
		assert_true(ras < 1e-6);   /* both papers: 0 on shifted Rastrigin, D = 30 */
	}
}

/* ---- specs --------------------------------------------------------------------- */

static void test_spec_defaults_and_errors(void **state)
{
	(void)state;
	de_job job;
	rt_error err;
	if (de_test_job("t.ini", "[problem]\nkind = de\n[de]\ndim = 30\nstrategy = sade\n", &job, &err))
		fail_msg("%s", err.msg);
	assert_int_equal(job.np, 50);
	assert_int_equal(job.params.H, 50);
	assert_int_equal(job.bounds, DE_BOUNDS_REFLECT);
	assert_int_equal(job.variant, DE_VARIANT_FUSED);
	assert_int_equal(job.gens, 300000 / 50 - 1);
	assert_string_equal(de_job_strategy_name(&job), "sade");
	de_job_free(&job);
	if (de_test_job("t.ini", "[problem]\nkind = de\n[de]\ndim = 1000\nstrategy = code\nmax_evals = 9030\n", &job,
			  &err))
		fail_msg("%s", err.msg);
	assert_int_equal(job.np, 30);
	assert_int_equal(job.variant, DE_VARIANT_FUSED);   /* auto: multiblock has no code */
	assert_int_equal(job.gens, 100);                   /* 30 + 100 x 3 x 30 evaluations */
	assert_int_equal(de_job_evals(&job, 100), 9030);
	assert_string_equal(de_job_strategy_name(&job), "code");
	de_job_free(&job);
	if (de_test_job("t.ini", "[problem]\nkind = de\n[de]\nstrategy = sade\nmemory_size = 20\n", &job, &err))
		fail_msg("%s", err.msg);
	assert_int_equal(job.params.H, 20);
	de_job_free(&job);
	de_test_refused_de("strategy = code\npopulation = 5\n", "t.ini:6");
	de_test_refused_de("strategy = sade\npopulation = 5\n", "t.ini:6");
	de_test_refused_de("strategy = code\nmemory_size = 5\n", "memory_size");
	de_test_refused_de("strategy = sade\np_best = 0.1\n", "p_best");
	de_test_refused_de("strategy = code\nvariant = naive\n", "does not implement strategy = code");
	de_test_refused_de("strategy = sade\nvariant = multiblock\n", "does not implement strategy = sade");
}

/* ---- NVRTC ------------------------------------------------------------------------ */

static void test_nvrtc_fused_mixed(void **state)
{
	(void)state;
	static const int strategies[] = { DE_SADE, DE_CODE };
	for (size_t k = 0; k < 2; k++)
		for (int big = 0; big < 2; big++) {   /* shared memory (D = 30), global (D = 100, NP 1800) */
			de_job job;
			mixed_job(&job, strategies[k], big ? DE_FN_RASTRIGIN : DE_FN_SPHERE, big ? 100 : 30,
				  big ? 1800 : 50, 300000, 3, 0);
			de_test_compiles(&job, !big, "#define DE_ADAPTIVE 1", strategies[k] == DE_SADE);
			/* the objective callback's kernels (de_cb_trials, de_cb_select) */
			mixed_job(&job, strategies[k], big ? DE_FN_RASTRIGIN : DE_FN_SPHERE, big ? 100 : 30,
				  big ? 1800 : 50, 300000, 3, 0);
			de_test_compiles_callback(&job);
		}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_reference_same_moves),
		cmocka_unit_test(test_partners_distinct),
		cmocka_unit_test(test_spec_defaults_and_errors),
		cmocka_unit_test(test_quality),
		cmocka_unit_test(test_nvrtc_fused_mixed),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
