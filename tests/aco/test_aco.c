/* test_aco.c: kind `aco`: the shared construction semantics
 * (templates/aco/aco_core.h: both prefix-sum orders, roulette choice,
 * fallback to the best unvisited city), the job from a spec (defaults, the
 * power-of-two ant count, candidate lists, errors with file:line), the CPU
 * backend (tours are permutations of the right length, the same for any
 * thread count), the MMAS loop (the optimum of cities on a circle, the
 * optimum of a 12-city instance checked by brute force, pcb442 from
 * ../shared/data, when there, within a bound of its optimum) and the files
 * a run writes. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "aco/aco_impl.h"
#include "cpu.h"
#include "data.h"
#include "log.h"
#include "rng.h"
#include "spec.h"

#include "../test_tmp.h"
#include "../test_datasets.h"

static int setup(void **state)
{
	(void)state;
	return tmp_setup("aco");
}

static void write_text(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

/* A job from spec text written to tmpdir/NAME (prepared unless it fails). */
static rt_status job_from_text(const char *name, const char *text, aco_job *job, rt_error *err)
{
	char path[400];
	rt_spec spec;
	rt_options opt = { RT_BACKEND_CPU, 1, 0, 0, NULL, 1, NULL, 0, NULL };
	rt_status st;
	snprintf(path, sizeof path, "%s/%s", tmpdir, name);
	write_text(path, text);
	memset(&spec, 0, sizeof spec);
	aco_job_default(job);
	st = rt_spec_load(&spec, path, err);
	if (st == RT_OK)
		st = aco_job_from_spec(&spec, &opt, job, err);
	if (st == RT_OK)
		st = aco_job_prepare(job, err);
	rt_spec_free(&spec);
	return st;
}

static int is_permutation(const int *tour, int n)
{
	char *seen = calloc((size_t)n, 1);
	int ok = seen != NULL;
	for (int k = 0; ok && k < n; k++) {
		ok = tour[k] >= 0 && tour[k] < n && !seen[tour[k]];
		if (ok)
			seen[tour[k]] = 1;
	}
	free(seen);
	return ok;
}

/* ---- aco_core.h ------------------------------------------------------------------- */

/* Whole-number weights add exactly in any order: both scans give the same
 * prefix sums, and the roulette lands where the arithmetic says. */
static void core_prefix_and_choice(void **state)
{
	float choice[40], p[64];
	uint32_t visited[2] = { 0, 0 };
	(void)state;
	for (int j = 0; j < 40; j++)
		choice[j] = (float)(j % 5 + 1);
	float seq = aco_prefix(choice, NULL, 40, visited, ACO_SCAN_SEQ, p);
	float q[64];
	float warp = aco_prefix(choice, NULL, 40, visited, ACO_SCAN_WARP, q);
	assert_true(seq == 120.0f && warp == 120.0f);
	for (int j = 0; j < 40; j++)
		assert_true(p[j] == q[j]);
	/* visit everything but cities 7 (weight 3) and 33 (weight 4): total 7 */
	for (int j = 0; j < 40; j++)
		if (j != 7 && j != 33)
			aco_visit(visited, j);
	assert_int_equal(aco_choose_next(choice, NULL, 40, 40, visited, ACO_SCAN_WARP, 0.0f, p), 7);
	assert_int_equal(aco_choose_next(choice, NULL, 40, 40, visited, ACO_SCAN_SEQ, 0.42f, p), 7);
	assert_int_equal(aco_choose_next(choice, NULL, 40, 40, visited, ACO_SCAN_SEQ, 0.43f, p), 33);
	assert_int_equal(aco_choose_next(choice, NULL, 40, 40, visited, ACO_SCAN_WARP, 0.999999f, p), 33);
}

/* In the warp order a visited slot's prefix sum can round one step above
 * its neighbour's; a draw that lands in that gap must still pick an
 * unvisited city (it once returned the visited one: tours with a city twice). */
static void core_never_picks_visited(void **state)
{
	rt_rng rng;
	float choice[32], p[32];
	long gaps = 0;
	(void)state;
	rt_rng_init(&rng, 7, 0);
	for (int row = 0; row < 20000; row++) {
		uint32_t visited[1] = { 0 };
		for (int j = 0; j < 32; j++) {
			choice[j] = rt_rng_uniform(&rng) * powf(10.0f, (float)(rt_rng_below(&rng, 12)) - 6.0f);
			if (rt_rng_below(&rng, 2))
				aco_visit(visited, j);
		}
		float total = aco_prefix(choice, NULL, 32, visited, ACO_SCAN_WARP, p);
		if (!(total > 0.0f))
			continue;
		for (int j = 1; j < 32; j++) {
			if (!aco_visited(visited, j) || !(p[j] > p[j - 1]))
				continue;
			gaps++;
			/* uniforms whose r = u * total lands at or just above p[j-1] */
			float u = p[j - 1] / total;
			for (int k = 0; k < 4; k++, u = nextafterf(u, 1.0f)) {
				float q[32];
				int c = aco_choose_next(choice, NULL, 32, 32, visited, ACO_SCAN_WARP, u, q);
				assert_true(c >= 0 && c < 32 && !aco_visited(visited, c));
			}
		}
	}
	assert_true(gaps > 0);    /* the case the test is about did occur */
}

/* Every candidate visited: the unvisited city with the largest choice value,
 * the lowest index on ties (ACOTSP's choose_best_next). */
static void core_fallback(void **state)
{
	float choice[10] = { 5, 1, 9, 2, 9, 3, 0, 0, 0, 0 }, p[32];
	int cand[3] = { 0, 1, 3 };
	uint32_t visited[1] = { 0 };
	(void)state;
	aco_visit(visited, 0);
	aco_visit(visited, 1);
	aco_visit(visited, 3);
	assert_int_equal(aco_choose_next(choice, cand, 3, 10, visited, ACO_SCAN_WARP, 0.5f, p), 2);
	aco_visit(visited, 2);
	assert_int_equal(aco_choose_next(choice, cand, 3, 10, visited, ACO_SCAN_SEQ, 0.5f, p), 4);
	aco_visit(visited, 4);
	aco_visit(visited, 5);
	/* the rest weigh 0: the lowest index */
	assert_int_equal(aco_choose_next(choice, cand, 3, 10, visited, ACO_SCAN_SEQ, 0.5f, p), 6);
}

/* Integer exponents are repeated multiplication; the heuristic's rounding. */
static void core_powers(void **state)
{
	(void)state;
	assert_true(aco_ipow(3.0f, 0) == 1.0f);
	assert_true(aco_ipow(3.0f, 1) == 3.0f);
	assert_true(aco_ipow(3.0f, 3) == 27.0f);
	assert_true(aco_heuristic(10, 1, 1.0f) == 1.0f / 10.1f);
	assert_true(fabsf(aco_heuristic(10, -1, 1.5f) - powf(1.0f / 10.1f, 1.5f)) < 1e-9f);
	assert_true(aco_choice(0.5f, 2.0f, 2, 2.0f) == 0.5f);
	assert_true(aco_clamp(5.0f, 1.0f, 3.0f) == 3.0f && aco_clamp(0.5f, 1.0f, 3.0f) == 1.0f);
}

/* ---- the job ---------------------------------------------------------------------- */

static void job_defaults_and_candidates(void **state)
{
	aco_job job;
	rt_error err;
	(void)state;
	assert_int_equal(job_from_text("r.ini", "[problem]\nkind = aco\nname = r\n[data]\nrandom = 300\n",
				       &job, &err), RT_OK);
	assert_int_equal(job.n, 300);
	assert_int_equal(job.ants, 256);          /* 300 is nearer 256 than 512 */
	/* the evoforge rules: alpha 1, beta 2, the iteration-best deposit */
	assert_true(job.alpha == 1 && job.beta == 2 && job.rho == 0.1 && job.iterations == 1000);
	assert_int_equal(job.alpha_int, 1);
	assert_int_equal(job.variant, ACO_VARIANT_EVOFORGE);
	assert_int_equal(job.deposit, ACO_DEPOSIT_ITERATION_BEST);
	assert_int_equal(job.tau_min_choices, ACO_CHOICES_CANDIDATES);
	assert_true(job.p_best == 0.05 && job.restart == 1);
	assert_int_equal(job.cand_len, 20);
	assert_int_equal(job.optimum, -1);
	for (int i = 0; i < job.n; i++) {
		const int *row = job.cand + (size_t)i * 20, *d = job.dist + (size_t)i * job.n;
		int worst = d[row[19]], closer = 0;
		for (int k = 0; k < 20; k++) {
			assert_true(row[k] != i);
			if (k > 0)
				assert_true(d[row[k - 1]] < d[row[k]] ||
					    (d[row[k - 1]] == d[row[k]] && row[k - 1] < row[k]));
		}
		for (int j = 0; j < job.n; j++)
			closer += j != i && d[j] < worst;
		assert_true(closer < 20);             /* nobody nearer was left out */
		assert_true(job.dist[(size_t)i * job.n + i] == 0);
	}
	aco_job_free(&job);
}

static void job_errors(void **state)
{
	aco_job job;
	rt_error err;
	(void)state;
	assert_int_equal(job_from_text("e1.ini", "[problem]\nkind = aco\n[data]\n", &job, &err), RT_ERR_INPUT);
	assert_non_null(strstr(err.msg, "expected 'file = INSTANCE.tsp'"));
	aco_job_free(&job);
	assert_int_equal(job_from_text("e2.ini", "[problem]\nkind = aco\n[data]\nrandom = 50\n[aco]\nrho = 2\n",
				       &job, &err), RT_ERR_INPUT);
	assert_non_null(strstr(err.msg, "e2.ini:6"));
	aco_job_free(&job);
	assert_int_equal(job_from_text("e3.ini", "[problem]\nkind = aco\n[data]\nrandom = 50\n[aco]\nantz = 2\n",
				       &job, &err), RT_ERR_INPUT);
	assert_non_null(strstr(err.msg, "e3.ini:6"));
	aco_job_free(&job);
	assert_int_equal(job_from_text("e4.ini", "[problem]\nkind = aco\n[data]\nfile = no-such.tsp\n",
				       &job, &err), RT_ERR_INPUT);
	assert_non_null(strstr(err.msg, "no-such.tsp"));
	aco_job_free(&job);
	assert_int_equal(job_from_text("e5.ini", "[problem]\nkind = aco\n[data]\nrandom = 50\n[aco]\n"
				       "local_search = 4opt\n", &job, &err), RT_ERR_INPUT);
	assert_non_null(strstr(err.msg, "e5.ini:6"));
	aco_job_free(&job);
}

/* ---- the CPU backend and the loop ---------------------------------------------------- */

/* The real update, and how many deposits came from a saved slot. */
static rt_status (*counting_update)(aco_backend *, int, int, float, float, float, float, rt_error *);
static int slot_deposits;
static rt_status count_update(aco_backend *b, int slot, int ant, float keep, float deposit,
			      float tau_min, float tau_max, rt_error *err)
{
	slot_deposits += slot >= 0;
	return counting_update(b, slot, ant, keep, deposit, tau_min, tau_max, err);
}

/* Tours of one iteration, with `threads` threads. */
static void tours_with(aco_job *job, int threads, int *tours, int64_t *lengths)
{
	aco_backend *b;
	rt_error err;
	cpu_set_threads(threads);
	assert_int_equal(aco_cpu_create(job, 1e-3f, &b, &err), RT_OK);
	assert_int_equal(b->ops->construct(b, 1, &err), RT_OK);
	assert_int_equal(b->ops->update(b, -1, 0, 0.9f, 1e-4f, 1e-5f, 1e-2f, &err), RT_OK);
	assert_int_equal(b->ops->construct(b, 2, &err), RT_OK);
	assert_int_equal(b->ops->tours(b, tours, lengths, &err), RT_OK);
	b->ops->destroy(b);
	cpu_set_threads(0);
}

static void cpu_tours_valid_and_thread_independent(void **state)
{
	aco_job job;
	rt_error err;
	(void)state;
	assert_int_equal(job_from_text("t.ini", "[problem]\nkind = aco\n[data]\nrandom = 150\n[aco]\nants = 40\n",
				       &job, &err), RT_OK);
	for (int scan = 0; scan < 2; scan++)
		for (int full = 0; full < 2; full++) {
			size_t sz = (size_t)job.ants * job.n;
			int *t1 = malloc(sz * sizeof *t1), *t2 = malloc(sz * sizeof *t2);
			int64_t l1[40], l2[40];
			job.construct = scan ? ACO_CONSTRUCT_WARP : ACO_CONSTRUCT_THREAD;
			job.cand_len = full ? 0 : 20;
			assert_int_equal(aco_job_candidates(&job, &err), RT_OK);
			tours_with(&job, 1, t1, l1);
			tours_with(&job, 2, t2, l2);
			assert_memory_equal(t1, t2, sz * sizeof *t1);
			for (int a = 0; a < job.ants; a++) {
				assert_true(is_permutation(t1 + (size_t)a * job.n, job.n));
				assert_true(l1[a] == aco_tour_length(job.dist, job.n, t1 + (size_t)a * job.n));
				assert_true(l1[a] == l2[a]);
			}
			free(t1);
			free(t2);
		}
	aco_job_free(&job);
}

/* Runs the loop on the CPU; returns the best length (tour checked). */
static int64_t run_cpu(aco_job *job, aco_outcome *out)
{
	aco_backend *b;
	rt_error err;
	rt_options opt = { RT_BACKEND_CPU, 1, 0, 0, NULL, 1, NULL, 0, NULL };
	assert_int_equal(aco_backend_open(job, &opt, &b, &err), RT_OK);
	assert_int_equal(aco_loop_run(job, b, NULL, NULL, out, &err), RT_OK);
	b->ops->destroy(b);
	assert_true(is_permutation(out->best_tour, job->n));
	assert_true(aco_tour_length(job->dist, job->n, out->best_tour) == out->best_length);
	return out->best_length;
}

/* Cities on a circle: the optimum is the circle's order; MMAS finds it. */
static void loop_circle_optimum(void **state)
{
	char text[4096], path[400];
	int n = 48;
	int64_t opt = 0;
	aco_job job;
	aco_outcome out;
	rt_error err;
	rt_tsp t;
	FILE *f;
	(void)state;
	snprintf(path, sizeof path, "%s/circle.tsp", tmpdir);
	f = fopen(path, "w");
	assert_non_null(f);
	fprintf(f, "NAME : circle48\nTYPE : TSP\nDIMENSION : %d\nEDGE_WEIGHT_TYPE : EUC_2D\nNODE_COORD_SECTION\n", n);
	for (int i = 0; i < n; i++) {   /* shuffled ids so that 1..n is not the answer */
		int k = (i * 17) % n;
		fprintf(f, "%d %.3f %.3f\n", i + 1, 5000 + 4000 * cos(2 * M_PI * k / n), 5000 + 4000 * sin(2 * M_PI * k / n));
	}
	fputs("EOF\n", f);
	fclose(f);
	assert_int_equal(rt_tsp_load(path, &t, &err), RT_OK);
	{
		int order[48];
		/* city i sits at angle k(i) = 17 i mod n: the optimum visits angles in order */
		for (int k = 0; k < n; k++)
			for (int i = 0; i < n; i++)
				if ((i * 17) % n == k)
					order[k] = i;
		opt = rt_tsp_tour_length(&t, order);
	}
	rt_tsp_free(&t);
	snprintf(text, sizeof text, "[problem]\nkind = aco\n[data]\nfile = %s\n[aco]\niterations = 150\n", path);
	assert_int_equal(job_from_text("c.ini", text, &job, &err), RT_OK);
	assert_true(run_cpu(&job, &out) == opt);
	aco_outcome_free(&out);
	aco_job_free(&job);
}

/* The optimum of a 10-city random instance by brute force (9!/2 tours). */
static int64_t brute_force(const aco_job *job)
{
	int n = job->n, perm[16], best_set = 0;
	int64_t best = 0;
	for (int i = 0; i < n; i++)
		perm[i] = i;
	/* permutations of perm[1..n-1] (Heap's algorithm, iterative) */
	int c[16] = { 0 }, i = 1;
	for (;;) {
		int64_t len = aco_tour_length(job->dist, n, perm);
		if (!best_set || len < best)
			best = len, best_set = 1;
		while (i < n - 1 && c[i] >= i) {
			c[i] = 0;
			i++;
		}
		if (i >= n - 1)
			break;
		int j = i % 2 ? c[i] : 0;
		int tmp = perm[1 + j];
		perm[1 + j] = perm[1 + i];
		perm[1 + i] = tmp;
		c[i]++;
		i = 1;
	}
	return best;
}

static void loop_small_optimum(void **state)
{
	aco_job job;
	aco_outcome out;
	rt_error err;
	(void)state;
	assert_int_equal(job_from_text("s.ini", "[problem]\nkind = aco\n[data]\nrandom = 10\nside = 1000\n"
				       "[aco]\niterations = 100\n", &job, &err), RT_OK);
	assert_true(run_cpu(&job, &out) == brute_force(&job));
	aco_outcome_free(&out);
	aco_job_free(&job);
}

/* Duplicate cities (distance 0: eta = 1 / 0.1, finite) give the optimum
 * that brute force finds; beta 60 with them overflows the heuristic and
 * is refused, so is an instance of one point (every tour length 0). */
static void duplicate_cities(void **state)
{
	aco_job job;
	aco_outcome out;
	rt_error err;
	char tsp[400], ini[800];
	(void)state;
	snprintf(tsp, sizeof tsp, "%s/dup.tsp", tmpdir);
	write_text(tsp, "NAME: dup\nTYPE: TSP\nDIMENSION: 7\nEDGE_WEIGHT_TYPE: EUC_2D\n"
		   "NODE_COORD_SECTION\n1 0 0\n2 0 0\n3 30 0\n4 30 40\n5 30 40\n6 0 40\n7 0 0\nEOF\n");
	snprintf(ini, sizeof ini, "[problem]\nkind = aco\n[data]\nfile = %s\n[aco]\niterations = 50\n", tsp);
	assert_int_equal(job_from_text("dup.ini", ini, &job, &err), RT_OK);
	for (size_t i = 0; i < (size_t)job.n * job.n; i++)
		assert_true(isfinite(job.heur[i]));
	assert_true(job.heur[1] == aco_heuristic(0, 2, 2.0f));   /* cities 1 and 2 (beta 2) */
	assert_true(run_cpu(&job, &out) == brute_force(&job));
	assert_true(out.best_length == 140);
	aco_outcome_free(&out);
	aco_job_free(&job);

	snprintf(ini, sizeof ini, "[problem]\nkind = aco\n[data]\nfile = %s\n[aco]\nbeta = 60\n", tsp);
	assert_int_equal(job_from_text("dupb.ini", ini, &job, &err), RT_ERR_INPUT);
	assert_non_null(strstr(err.msg, "dup: beta 60 makes the heuristic (1 / (d + 0.1))^beta overflow "
				       "a float (inf) for distance 0 between cities 1 and 2"));
	aco_job_free(&job);

	write_text(tsp, "NAME: one\nTYPE: TSP\nDIMENSION: 3\nEDGE_WEIGHT_TYPE: EUC_2D\n"
		   "NODE_COORD_SECTION\n1 5 5\n2 5 5\n3 5 5\nEOF\n");
	snprintf(ini, sizeof ini, "[problem]\nkind = aco\n[data]\nfile = %s\n", tsp);
	assert_int_equal(job_from_text("one.ini", ini, &job, &err), RT_ERR_INPUT);
	assert_non_null(strstr(err.msg, "one: every city is at distance 0 from the others"));
	aco_job_free(&job);
}

/* pcb442 (TSPLIB, not shipped: $EVOFORGE_DATA or ../shared/data, else SKIP):
 * 60 iterations on the CPU land within 10% of the optimum (the
 * nearest-neighbour tour is 20% above it). */
/* [aco] variant sets the defaults of the keys it differs in; each key still
 * overrides; a wrong name is an error naming the line. */
static void job_variants(void **state)
{
	aco_job job;
	rt_error err;
	(void)state;
	assert_int_equal(job_from_text("v1.ini", "[problem]\nkind = aco\n[data]\nrandom = 50\n[aco]\n"
				       "variant = acotsp\n", &job, &err), RT_OK);
	assert_true(job.alpha == 2 && job.beta == 3 && job.cand_len == 20 && job.restart == 1);
	assert_int_equal(job.deposit, ACO_DEPOSIT_SCHEDULE);
	aco_job_free(&job);
	assert_int_equal(job_from_text("v2.ini", "[problem]\nkind = aco\n[data]\nrandom = 50\n[aco]\n"
				       "variant = gpu-mmas\nbeta = 3\n", &job, &err), RT_OK);
	assert_true(job.alpha == 1 && job.beta == 3 && job.cand_len == 32 && job.restart == 0);
	assert_true(job.p_best == 0.01 && job.tau_min_choices == ACO_CHOICES_HALF_CITIES);
	assert_int_equal(job.deposit, ACO_DEPOSIT_ITERATION_BEST);
	aco_job_free(&job);
	assert_int_equal(job_from_text("v3.ini", "[problem]\nkind = aco\n[data]\nrandom = 50\n[aco]\n"
				       "variant = fastest\n", &job, &err), RT_ERR_INPUT);
	assert_non_null(strstr(err.msg, "v3.ini:6"));
	aco_job_free(&job);
	assert_int_equal(job_from_text("v4.ini", "[problem]\nkind = aco\n[data]\nrandom = 50\n[aco]\n"
				       "p_best = 0\n", &job, &err), RT_ERR_INPUT);
	aco_job_free(&job);
}

/* tau_max = 1 / (rho L); tau_min = tau_max (1 - p) / (p avg), p = p_best^(1/n),
 * avg = (candidates + 1) / 2 in whole numbers, or n / 2. */
static void mmas_limits(void **state)
{
	aco_job job;
	aco_mmas m;
	(void)state;
	aco_job_default(&job);
	job.n = 100;
	job.cand_len = 20;
	job.cand = (int *)&job;   /* only "has candidate lists" is read */
	job.rho = 0.1;
	memset(&m, 0, sizeof m);
	m.best = 1000;
	for (int half = 0; half < 2; half++)
		for (int k = 0; k < 2; k++) {
			job.p_best = k ? 0.01 : 0.05;
			job.tau_min_choices = half ? ACO_CHOICES_HALF_CITIES : ACO_CHOICES_CANDIDATES;
			aco_mmas_set_limits(&job, &m);
			double p = pow(job.p_best, 1.0 / 100), avg = half ? 50 : 10;
			assert_true(fabs(m.tau_max - 1.0 / (0.1 * 1000)) < 1e-15);
			assert_true(fabs(m.tau_min - m.tau_max * (1 - p) / (p * avg)) < 1e-15);
		}
}

/* Who deposits: with the iteration-best rule every deposit is the
 * iteration's best tour; with ACOTSP's schedule the best-so-far one deposits
 * every 25th iteration. Counted through a backend whose update records it. */
static int deposits_best_so_far(int deposit)
{
	aco_job job;
	aco_backend *b = NULL;
	aco_outcome out;
	rt_error err;
	assert_int_equal(job_from_text("d.ini", "[problem]\nkind = aco\n[data]\nrandom = 60\n[aco]\n"
				       "iterations = 100\nants = 8\n", &job, &err), RT_OK);   /* prepared */
	job.deposit = deposit;
	job.report_every = 1000;
	rt_options opt = { RT_BACKEND_CPU, 1, 1, 0, NULL, 1, NULL, 0, NULL };
	assert_int_equal(aco_backend_open(&job, &opt, &b, &err), RT_OK);
	counting_update = b->ops->update;
	aco_backend_ops ops = *b->ops;
	ops.update = count_update;
	const aco_backend_ops *orig = b->ops;
	b->ops = &ops;
	slot_deposits = 0;
	assert_int_equal(aco_loop_run(&job, b, NULL, NULL, &out, &err), RT_OK);
	b->ops = orig;
	b->ops->destroy(b);
	aco_outcome_free(&out);
	aco_job_free(&job);
	return slot_deposits;
}

static void loop_deposit_rules(void **state)
{
	(void)state;
	assert_int_equal(deposits_best_so_far(ACO_DEPOSIT_ITERATION_BEST), 0);
	assert_int_equal(deposits_best_so_far(ACO_DEPOSIT_SCHEDULE), 100 / 25);
}

static void loop_pcb442(void **state)
{
	char path[512];
	aco_job job;
	aco_outcome out;
	rt_error err;
	(void)state;
	if (!test_shared_data("tsp/pcb442.tsp", path, sizeof path) ||
	    !test_shared_data("tsp/optimal.txt", path, sizeof path))
		skip();
	aco_job_default(&job);
	{
		rt_spec spec;
		rt_options opt = { RT_BACKEND_CPU, 1, 0, 0, NULL, 1, NULL, 0, NULL };
		memset(&spec, 0, sizeof spec);
		assert_int_equal(rt_spec_load_text(&spec, "problems/aco-pcb442.ini",
			"[problem]\nkind = aco\n[data]\nfile = tsp/pcb442.tsp\n"
			"optimal = tsp/optimal.txt\n[aco]\niterations = 60\n"
			"variant = acotsp\n", &err), RT_OK);   /* the seed's rules: faster start */
		assert_int_equal(aco_job_from_spec(&spec, &opt, &job, &err), RT_OK);
		rt_spec_free(&spec);
	}
	assert_int_equal(aco_job_prepare(&job, &err), RT_OK);
	assert_int_equal(job.optimum, 50778);
	assert_int_equal(job.ants, 512);
	int64_t best = run_cpu(&job, &out);
	print_message("pcb442, 60 iterations on the CPU: %lld (gap %.2f%%)\n", (long long)best,
		      100.0 * (best - 50778) / 50778.0);
	assert_true(best >= 50778 && best < 50778 * 1.10);
	aco_outcome_free(&out);
	aco_job_free(&job);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(core_prefix_and_choice),
		cmocka_unit_test(core_never_picks_visited),
		cmocka_unit_test(core_fallback),
		cmocka_unit_test(core_powers),
		cmocka_unit_test(job_defaults_and_candidates),
		cmocka_unit_test(job_errors),
		cmocka_unit_test(job_variants),
		cmocka_unit_test(mmas_limits),
		cmocka_unit_test(loop_deposit_rules),
		cmocka_unit_test(cpu_tours_valid_and_thread_independent),
		cmocka_unit_test(loop_circle_optimum),
		cmocka_unit_test(loop_small_optimum),
		cmocka_unit_test(duplicate_cities),
		cmocka_unit_test(loop_pcb442),
	};
	return cmocka_run_group_tests(tests, setup, tmp_teardown);
}
