/* test_de_adapt.c: kind `de`'s adaptive strategies (JADE, SHADE, L-SHADE,
 * jSO; templates/de/de_adapt.h): the shared logarithm against the C
 * library's; the CPU path against a plain sequential re-implementation in
 * this file fed the same Philox draws (populations, fitness, memories,
 * archives and population sizes bit-identical generation by generation);
 * quality on the sphere and shifted Rastrigin at D = 10 against
 * DE/rand/1/bin at the same budget; spec keys and their errors; NVRTC
 * compiles of the fused kernel for every strategy (sm_90). */
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

/* ---- the shared logarithm --------------------------------------------------- */

static void test_log_matches_libm(void **state)
{
	(void)state;
	double worst = 0;   /* in units in the last place of the C library's result */
	for (int k = 1; k < 200000; k++) {
		double x = k * (1.0 / 200000.0);
		x = k % 3 ? x : ldexp(x, -(k % 90));
		double l = fabs(log(x)), ulp = nextafter(l, INFINITY) - l;
		double e = fabs(de_log(x) - log(x)) / ulp;
		worst = e > worst ? e : worst;
	}
	assert_true(worst <= 2.0);
	assert_true(de_log(1.0) == 0.0);
}

/* ---- the sequential reference ------------------------------------------------ */

#define RMAX_NP 64
#define RMAX_D 8
#define RMAX_A 200
#define RMAX_H 128

typedef struct aref {
	const de_job *job;
	long problem;
	int D, NP, na, H, k, acount, amax, s;
	double nfes, MF[RMAX_H], MCR[RMAX_H];
	float X[RMAX_NP][RMAX_D], fx[RMAX_NP], A[RMAX_A][RMAX_D];
} aref;

/* Block `block` of purpose `purpose` for individual i in generation g. */
static philox4x32_ctr rdraw(const aref *r, uint32_t g, uint32_t i, uint32_t purpose, uint32_t block)
{
	return de_test_draw(r->job->seed, r->problem, g, i, purpose, block);
}

/* The t-th index of 0 .. n-1 that is neither a nor b. */
static int nth_excluding(int t, int a, int b)
{
	for (int v = 0;; v++)
		if (v != a && v != b && t-- == 0)
			return v;
}

static void ref_init(aref *r, const de_job *job, long problem)
{
	memset(r, 0, sizeof *r);
	r->job = job;
	r->problem = problem;
	r->D = job->dim;
	r->NP = r->na = job->np;
	r->s = job->strategy;
	r->H = job->params.H;
	for (int i = 0; i < r->NP; i++) {
		de_test_initial(job, problem, i, r->X[i]);
		r->fx[i] = de_job_eval(job, problem, r->X[i]);
	}
	r->amax = (int)round(job->params.arc_rate * r->NP);
	r->nfes = r->NP;
	for (int h = 0; h < r->H; h++) {
		r->MF[h] = r->s == DE_JSO ? 0.3 : 0.5;
		r->MCR[h] = r->s == DE_JSO ? 0.8 : 0.5;
	}
}

static const char *strategy_name_of(int s)
{
	static const char *const names[] = { "rand/1/bin", "best/1/bin", "jade", "shade", "lshade", "jso" };
	return names[s];
}

static const float *rank_fit;
static int by_fitness(const void *a, const void *b)
{
	int i = *(const int *)a, k = *(const int *)b;
	if (rank_fit[i] != rank_fit[k])
		return rank_fit[i] < rank_fit[k] ? -1 : 1;
	return i - k;
}

static void sort_by_fitness(const float *f, int n, int *order)
{
	for (int i = 0; i < n; i++)
		order[i] = i;
	rank_fit = f;
	qsort(order, (size_t)n, sizeof *order, by_fitness);
}

/* N(0,1), Marsaglia's polar method on the CRNORM blocks. */
static double ref_normal(const aref *r, uint32_t g, uint32_t i)
{
	for (uint32_t k = 0; k < 32; k++) {
		philox4x32_ctr c = rdraw(r, g, i, DE_DRAW_CRNORM, k);
		double v1 = 2 * de_test_unif(c.v[0], c.v[1]) - 1, v2 = 2 * de_test_unif(c.v[2], c.v[3]) - 1;
		double s = v1 * v1 + v2 * v2;
		if (s > 0 && s < 1)
			return v1 * sqrt(-2 * de_log(s) / s);
	}
	return 0;
}

/* Cauchy(mu, 0.1) as the tangent of a uniform angle (a point in the unit disc). */
static double ref_cauchy_positive(const aref *r, double mu, uint32_t g, uint32_t i)
{
	for (uint32_t k = 0; k < 64; k++) {
		philox4x32_ctr c = rdraw(r, g, i, DE_DRAW_FCAUCHY, k);
		double v1 = 2 * de_test_unif(c.v[0], c.v[1]) - 1, v2 = 2 * de_test_unif(c.v[2], c.v[3]) - 1;
		if (v1 * v1 + v2 * v2 < 1 && v1 != 0 && mu + 0.1 * (v2 / v1) > 0)
			return fmin(mu + 0.1 * (v2 / v1), 1.0);
	}
	return fmin(mu, 1.0);
}

static float ref_bound(const aref *r, float v, float parent)
{
	float lo = (float)r->job->lower, hi = (float)r->job->upper;
	if (v < lo)
		v = (lo + parent) * 0.5f;
	if (v > hi)
		v = (hi + parent) * 0.5f;
	return fminf(fmaxf(v, lo), hi);
}

static void ref_generation(aref *r, uint32_t g)
{
	const de_job *job = r->job;
	int na = r->na, D = r->D, order[RMAX_NP];
	float Y[RMAX_NP][RMAX_D], fy[RMAX_NP];
	double F[RMAX_NP], CR[RMAX_NP], delta[RMAX_NP];
	double frac = r->nfes / (double)job->max_evals;
	sort_by_fitness(r->fx, na, order);
	for (int i = 0; i < na; i++) {
		philox4x32_ctr c0 = rdraw(r, g, (uint32_t)i, DE_DRAW_ADAPT, 0);
		philox4x32_ctr c1 = rdraw(r, g, (uint32_t)i, DE_DRAW_ADAPT, 1);
		int slot = (int)de_test_below(c0.v[0], r->H);
		double mf = r->MF[slot], mcr = r->MCR[slot];
		if (r->s == DE_JSO && slot == r->H - 1)
			mf = mcr = 0.9;
		CR[i] = mcr < 0 ? 0 : fmin(1, fmax(0, mcr + 0.1 * ref_normal(r, g, (uint32_t)i)));
		F[i] = ref_cauchy_positive(r, mf, g, (uint32_t)i);
		double Fw = F[i], p = job->params.p_best;
		if (r->s == DE_JSO) {
			if (frac < 0.25)
				CR[i] = fmax(CR[i], 0.7);
			else if (frac < 0.5)
				CR[i] = fmax(CR[i], 0.6);
			if (frac < 0.6 && F[i] > 0.7)
				F[i] = 0.7;
			Fw = (frac < 0.2 ? 0.7 : frac < 0.4 ? 0.8 : 1.2) * F[i];
			p = job->params.p_best * (1 - 0.5 * frac);
		}
		if (r->s == DE_SHADE)
			p = 2.0 / na + (job->params.p_best - 2.0 / na) * de_test_unif(c0.v[1], c0.v[2]);
		int pnum = (int)round(p * na);
		pnum = pnum < 2 ? 2 : pnum > na ? na : pnum;
		int pbest = order[de_test_below(c0.v[3], pnum)];
		int r1 = nth_excluding((int)de_test_below(c1.v[0], na - 1), i, -1);
		int r2 = nth_excluding((int)de_test_below(c1.v[1], na + r->acount - 2), i < r1 ? i : r1,
				       i < r1 ? r1 : i);
		const float *x2 = r2 < na ? r->X[r2] : r->A[r2 - na];
		int jrand = (int)de_test_below(c1.v[2], D);
		uint32_t cr16 = (uint32_t)ceil(CR[i] * 65536.0);
		for (int j = 0; j < D; j++) {
			philox4x32_ctr c = rdraw(r, g, (uint32_t)i, DE_DRAW_CROSS, (uint32_t)j / 8);
			uint32_t bits = (c.v[(j % 8) / 2] >> (16 * (j % 2))) & 0xffffu;
			float x = r->X[i][j];
			float a = (float)Fw * (r->X[pbest][j] - x);
			float b = (float)F[i] * (r->X[r1][j] - x2[j]);
			float v = ref_bound(r, (x + a) + b, x);
			Y[i][j] = bits < cr16 || j == jrand ? v : x;
		}
		float f = de_job_eval(job, r->problem, Y[i]);
		delta[i] = f < r->fx[i] ? fmin((double)r->fx[i] - (double)f, 1e300) : 0;
		if (f <= r->fx[i])
			fy[i] = f;
		else {
			memcpy(Y[i], r->X[i], sizeof Y[i]);
			fy[i] = r->fx[i];
		}
	}
	/* archive */
	for (int i = 0; i < na; i++) {
		if (!(delta[i] > 0) || r->amax < 1)
			continue;
		int at = r->acount < r->amax ? r->acount++ :
			 (int)de_test_below(rdraw(r, g, (uint32_t)i, DE_DRAW_ARCHIVE, 0).v[0], r->amax);
		memcpy(r->A[at], r->X[i], sizeof r->A[at]);
	}
	/* memory */
	double sum = 0, wf2 = 0, wf = 0, wc2 = 0, wc = 0, crmax = 0;
	int n = 0;
	for (int i = 0; i < na; i++)
		if (delta[i] > 0) {
			n++;
			sum += delta[i];
			crmax = fmax(crmax, CR[i]);
		}
	for (int i = 0; i < na; i++)
		if (delta[i] > 0) {
			double w = r->s == DE_JADE ? 1.0 / n : delta[i] / sum;
			wf2 += w * F[i] * F[i];
			wf += w * F[i];
			wc2 += w * CR[i] * CR[i];
			wc += w * CR[i];
		}
	if (n > 0 && r->s == DE_JADE) {
		r->MCR[0] = 0.9 * r->MCR[0] + 0.1 * wc;
		r->MF[0] = 0.9 * r->MF[0] + 0.1 * (wf2 / wf);
	} else if (n > 0) {
		int k = r->k;
		int terminal = r->s != DE_SHADE && (r->MCR[k] == -1 || crmax == 0);
		double cr_new = r->s == DE_SHADE ? wc : wc2 / wc;
		if (r->s == DE_JSO) {
			r->MF[k] = (wf2 / wf + r->MF[k]) / 2;
			cr_new = (cr_new + r->MCR[k]) / 2;
		} else {
			r->MF[k] = wf2 / wf;
		}
		r->MCR[k] = terminal ? -1 : cr_new;
		r->k = (k + 1) % r->H;
	}
	r->nfes += na;
	/* population */
	int keep = na;
	if (r->s == DE_LSHADE || r->s == DE_JSO) {
		double plan = round((((double)4 - r->NP) / (double)job->max_evals) * r->nfes + r->NP);
		keep = plan < 4 ? 4 : plan < na ? (int)plan : na;
	}
	int worst_first[RMAX_NP], kept[RMAX_NP] = { 0 };
	sort_by_fitness(fy, na, worst_first);
	for (int q = 0; q < keep; q++)
		kept[worst_first[q]] = 1;
	int m = 0;
	for (int i = 0; i < na; i++)
		if (kept[i]) {
			memcpy(r->X[m], Y[i], sizeof Y[i]);
			r->fx[m++] = fy[i];
		}
	if (keep < na) {
		r->amax = (int)fmin(r->amax, round(job->params.arc_rate * keep));
		r->acount = r->acount < r->amax ? r->acount : r->amax;
	}
	r->na = keep;
}

/* The CPU path and the reference agree after every generation. */
static void compare(const aref *r, const de_cpu *c, long p, int g)
{
	const float *pop = de_cpu_population(c, p), *fit = de_cpu_fitness(c, p);
	const double *ad = de_cpu_adapt_state(c, p);
	const float *arch = de_cpu_archive(c, p);
	int D = r->D;
	if ((int)ad[DE_AD_NP] != r->na || (int)ad[DE_AD_ACOUNT] != r->acount ||
	    (int)ad[DE_AD_AMAX] != r->amax || (int)ad[DE_AD_K] != r->k || ad[DE_AD_NFES] != r->nfes)
		fail_msg("%s gen %d: state np %g/%d archive %g/%d of %g/%d slot %g/%d nfes %g/%g",
			 de_job_strategy_name(r->job), g, ad[DE_AD_NP], r->na, ad[DE_AD_ACOUNT], r->acount,
			 ad[DE_AD_AMAX], r->amax, ad[DE_AD_K], r->k, ad[DE_AD_NFES], r->nfes);
	for (int h = 0; h < r->H; h++)
		if (memcmp(&ad[DE_AD_MF + h], &r->MF[h], sizeof(double)) ||
		    memcmp(&ad[DE_AD_MF + r->H + h], &r->MCR[h], sizeof(double)))
			fail_msg("%s gen %d: memory %d: (%.17g, %.17g) vs reference (%.17g, %.17g)",
				 de_job_strategy_name(r->job), g, h, ad[DE_AD_MF + h], ad[DE_AD_MF + r->H + h],
				 r->MF[h], r->MCR[h]);
	for (int i = 0; i < r->na; i++) {
		if (memcmp(pop + (size_t)i * D, r->X[i], (size_t)D * sizeof(float)) ||
		    memcmp(&fit[i], &r->fx[i], sizeof(float)))
			fail_msg("%s gen %d: individual %d differs (f %.9g vs %.9g)", de_job_strategy_name(r->job),
				 g, i, (double)fit[i], (double)r->fx[i]);
	}
	for (int i = r->na; i < r->NP; i++)
		assert_true(isinf(fit[i]));
	for (int a = 0; a < r->acount; a++)
		if (memcmp(arch + (size_t)a * D, r->A[a], (size_t)D * sizeof(float)))
			fail_msg("%s gen %d: archive entry %d differs", de_job_strategy_name(r->job), g, a);
}

static void adaptive_job(de_job *job, int strategy, int fn, int dim, int np, long long max_evals,
			 long problems)
{
	de_test_strategy_job(job, strategy, fn, dim, np, max_evals, problems, 0, 11);
}

static void test_reference_same_moves(void **state)
{
	(void)state;
	static const struct { int s, np; long long evals; } cases[] = {
		{ DE_JADE, 20, 20 * 41 }, { DE_SHADE, 24, 24 * 41 }, { DE_LSHADE, 48, 3000 },
		{ DE_JSO, 40, 2500 },
	};
	for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
		de_job job;
		de_cpu *c;
		rt_error err;
		aref *r = calloc(2, sizeof *r);
		adaptive_job(&job, cases[k].s, DE_FN_RASTRIGIN, 6, cases[k].np, cases[k].evals, 2);
		assert_true(job.gens >= 30);
		assert_int_equal(de_cpu_create(&job, &c, &err), RT_OK);
		assert_int_equal(de_cpu_advance(c, 0, &err), RT_OK);
		for (long p = 0; p < 2; p++) {
			ref_init(&r[p], &job, p);
			compare(&r[p], c, p, 0);
		}
		int shrunk = 0, archived = 0;
		for (int g = 1; g <= (int)job.gens; g++) {
			assert_int_equal(de_cpu_advance(c, g, &err), RT_OK);
			for (long p = 0; p < 2; p++) {
				ref_generation(&r[p], (uint32_t)g);
				compare(&r[p], c, p, g);
				shrunk |= r[p].na < r[p].NP;
				archived |= r[p].acount == r[p].amax && r[p].amax > 0;
			}
			assert_int_equal(de_job_evals(&job, g), (long long)r[0].nfes);
		}
		assert_true(archived);   /* full archives: the replacement draws were exercised */
		if (de_reduces(cases[k].s)) {
			assert_true(shrunk && r[0].na < cases[k].np / 2);
			assert_true(r[0].nfes <= (double)job.max_evals);
			assert_true(r[0].nfes + r[0].na > (double)job.max_evals);   /* the budget is used */
		}
		free(r);
		de_cpu_free(c);
		de_job_free(&job);
	}
}

/* ---- quality ---------------------------------------------------------------------- */

/* Median best error of 5 problems after max_evals evaluations each. */
static double median_error(int strategy, int fn, long long max_evals)
{
	de_job job;
	de_job_default(&job, fn, 10);
	job.strategy = strategy;
	job.bounds = de_is_adaptive(strategy) ? DE_BOUNDS_MIDPOINT : DE_BOUNDS_REFLECT;
	job.np = strategy == DE_LSHADE ? 180 : strategy == DE_JSO ? 144 : 100;
	job.shift = 1;
	job.seed = 5;
	job.max_evals = max_evals;
	return de_test_median_best(&job);
}

static void test_quality_d10(void **state)
{
	(void)state;
	static const int strategies[] = { DE_JADE, DE_SHADE, DE_LSHADE, DE_JSO };
	double sphere_rand = median_error(DE_RAND_1_BIN, DE_FN_SPHERE, 20000);
	double ras_rand = median_error(DE_RAND_1_BIN, DE_FN_RASTRIGIN, 100000);
	rt_info("quality D=10, median of 5: rand/1/bin sphere (20000 evaluations) %.3g, rastrigin "
		"(100000) %.3g", sphere_rand, ras_rand);
	for (size_t k = 0; k < 4; k++) {
		double sph20 = median_error(strategies[k], DE_FN_SPHERE, 20000);
		double sph = median_error(strategies[k], DE_FN_SPHERE, 100000);
		double ras = median_error(strategies[k], DE_FN_RASTRIGIN, 100000);
		rt_info("quality D=10: %-6s sphere %.3g (20000) %.3g (100000), rastrigin %.3g",
			strategy_name_of(strategies[k]), sph20, sph, ras);
		assert_true(sph < 1e-6);
		assert_true(sph20 < 1e-3 * sphere_rand);
		assert_true(ras < 1.0);
		assert_true(ras < 0.1 * ras_rand);
	}
}

/* ---- specs --------------------------------------------------------------------- */

static void test_spec_defaults_and_errors(void **state)
{
	(void)state;
	de_job job;
	rt_error err;
	static const struct { const char *name; int np, H, np_min, acap; double p, rate; } want[] = {
		{ "jade", 100, 1, 100, 100, 0.05, 1.0 },
		{ "shade", 100, 100, 100, 100, 0.2, 1.0 },
		{ "lshade", 540, 6, 4, 1404, 0.11, 2.6 },
		{ "jso", 466, 5, 4, 466, 0.25, 1.0 },   /* round(25 ln 30 sqrt 30) */
	};
	for (size_t k = 0; k < 4; k++) {
		char text[256];
		snprintf(text, sizeof text, "[problem]\nkind = de\n[de]\ndim = 30\nstrategy = %s\n", want[k].name);
		if (de_test_job("t.ini", text, &job, &err))
			fail_msg("%s", err.msg);
		int np = want[k].np;
		assert_int_equal(job.np, np);
		assert_int_equal(job.params.H, want[k].H);
		assert_int_equal(job.params.np_min, k >= 2 ? 4 : np);
		assert_int_equal(job.params.a_cap, (int)round(want[k].rate * np));
		assert_true(job.params.p_best == want[k].p && job.params.arc_rate == want[k].rate);
		assert_int_equal(job.bounds, DE_BOUNDS_MIDPOINT);
		assert_int_equal(job.variant, DE_VARIANT_FUSED);
		assert_string_equal(de_job_strategy_name(&job), want[k].name);
		assert_true(job.params.mf0 == (k == 3 ? 0.3 : 0.5) && job.params.mcr0 == (k == 3 ? 0.8 : 0.5));
		de_job_free(&job);
	}
	if (de_test_job("t.ini", "[problem]\nkind = de\n[de]\ndim = 1000\nstrategy = shade\nmemory_size = 7\n"
			  "p_best = 0.1\narchive_rate = 0\nbounds = clip\n", &job, &err))
		fail_msg("%s", err.msg);
	assert_int_equal(job.variant, DE_VARIANT_FUSED);   /* auto: only fused has the adaptive strategies */
	assert_int_equal(job.params.H, 7);
	assert_true(job.params.p_best == 0.1 && job.params.arc_rate == 0 && job.params.a_cap == 1);
	assert_int_equal(job.bounds, DE_BOUNDS_CLIP);
	de_job_free(&job);
	de_test_refused_de("strategy = lshade\nmax_evals = 0\ngenerations = 10\n", "t.ini:6");
	de_test_refused_de("strategy = jso\nvariant = naive\n", "t.ini:6");
	de_test_refused_de("strategy = lshade\nvariant = multiblock\n", "variant = multiblock does not implement");
	de_test_refused_de("strategy = jade\nvariant = multiblock\n", "t.ini:6");
	de_test_refused_de("strategy = rand/1/bin\nmemory_size = 5\n", "t.ini:5");
	de_test_refused_de("strategy = shade\np_best = 2\n", "t.ini:6");
	de_test_refused_de("strategy = shade\narchive_rate = -0.5\n", "t.ini:6");
	de_test_refused_de("strategy = jade\nmemory_size = 4\n", "memory_size");
	de_test_refused_de("strategy = lshadex\n", "t.ini:5");
}

/* ---- NVRTC ------------------------------------------------------------------------ */

/* Where the fused kernel keeps an adaptive strategy's state and archive:
 * in shared memory beside the population while they fit an H100's 227 KB
 * and (state_memory = auto) cost no resident blocks an SM, or the problems
 * would not fill the SMs anyway (de_gpu.c's rule, from the H100 figures). */
static void test_state_in_shared_memory(void **state)
{
	(void)state;
	static const struct { int s, fn, dim, np; long problems; int statemem, pop, ad, arch; } cases[] = {
		{ DE_JADE, DE_FN_SPHERE, 30, 100, 2, DE_POPMEM_AUTO, 1, 1, 1 },        /* 25 + 4 + 12 KB */
		{ DE_LSHADE, DE_FN_SPHERE, 30, 540, 2, DE_POPMEM_AUTO, 1, 1, 0 },      /* 134 + 25; archive 168 KB */
		{ DE_LSHADE, DE_FN_RASTRIGIN, 100, 1800, 2, DE_POPMEM_AUTO, 0, 1, 0 }, /* population 1.4 MB, state 83 KB */
		{ DE_SADE, DE_FN_SPHERE, 30, 50, 2, DE_POPMEM_AUTO, 1, 1, 1 },
		/* 1000 problems: 3 blocks an SM with the population alone, 1 with all: global */
		{ DE_JADE, DE_FN_RASTRIGIN, 30, 300, 1000, DE_POPMEM_AUTO, 1, 0, 0 },
		{ DE_JADE, DE_FN_RASTRIGIN, 30, 300, 1000, DE_POPMEM_SHARED, 1, 1, 1 },
		{ DE_SHADE, DE_FN_RASTRIGIN, 30, 100, 1000, DE_POPMEM_AUTO, 1, 0, 0 },
		{ DE_JADE, DE_FN_RASTRIGIN, 30, 300, 1, DE_POPMEM_AUTO, 1, 1, 1 },
		{ DE_LSHADE, DE_FN_RASTRIGIN, 30, 540, 1000, DE_POPMEM_AUTO, 1, 1, 0 }, /* 1 block an SM either way */
		{ DE_SADE, DE_FN_RASTRIGIN, 30, 50, 1000, DE_POPMEM_AUTO, 1, 1, 1 },   /* 16 -> 11 blocks: 1452 > 1000 */
		{ DE_JADE, DE_FN_SPHERE, 30, 100, 2, DE_POPMEM_GLOBAL, 1, 0, 0 },
	};
	for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
		de_job job;
		gen_source src;
		rt_error err;
		int shared, block;
		char want[64];
		adaptive_job(&job, cases[k].s, cases[k].fn, cases[k].dim, cases[k].np, 300000, cases[k].problems);
		job.statemem = cases[k].statemem;
		assert_int_equal(de_gpu_source(&job, NULL, &src, &shared, &block, &err), RT_OK);
		assert_int_equal(shared, cases[k].pop);
		snprintf(want, sizeof want, "#define DE_AD_SHARED %d\n", cases[k].ad);
		if (!strstr(src.text.data, want) ||
		    (snprintf(want, sizeof want, "#define DE_ARCH_SHARED %d\n", cases[k].arch),
		     !strstr(src.text.data, want)))
			fail_msg("case %zu: expected state %d, archive %d in shared memory", k, cases[k].ad,
				 cases[k].arch);
		gen_free(&src);
		de_job_free(&job);
	}
}

static void test_nvrtc_fused_adaptive(void **state)
{
	(void)state;
	static const int strategies[] = { DE_JADE, DE_SHADE, DE_LSHADE, DE_JSO };
	for (size_t k = 0; k < 4; k++)
		for (int big = 0; big < 2; big++) {   /* shared memory (D = 30), global (D = 100, NP 1800) */
			de_job job;
			adaptive_job(&job, strategies[k], big ? DE_FN_RASTRIGIN : DE_FN_SPHERE, big ? 100 : 30,
				     big ? 1800 : (strategies[k] == DE_LSHADE ? 540 : 100), 300000, 3);
			de_test_compiles(&job, !big, "#define DE_ADAPTIVE 1", 1);
			/* the objective callback's kernels (de_cb_trials, de_cb_select) */
			adaptive_job(&job, strategies[k], big ? DE_FN_RASTRIGIN : DE_FN_SPHERE, big ? 100 : 30,
				     big ? 1800 : (strategies[k] == DE_LSHADE ? 540 : 100), 300000, 3);
			de_test_compiles_callback(&job);
		}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_log_matches_libm),
		cmocka_unit_test(test_reference_same_moves),
		cmocka_unit_test(test_spec_defaults_and_errors),
		cmocka_unit_test(test_quality_d10),
		cmocka_unit_test(test_state_in_shared_memory),
		cmocka_unit_test(test_nvrtc_fused_adaptive),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
