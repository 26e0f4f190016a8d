/* test_gp_front.c: gp_front: non-dominated sorting and crowding against a
 * brute-force reference on random points (with ties and non-finite
 * errors), the selection fitness's order, the archive against the
 * brute-force non-dominated set of everything offered, complexity weights,
 * the best-choosing rule, and a run on sextic cases whose front is sorted,
 * non-dominated, holds the reported best, and whose reported errors equal a
 * float64 recomputation of each member's program -- also after the end of
 * run's constant fitting (fit_front_steps), which keeps the front
 * non-dominated. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "gp/gp.h"
#include "gp/gp_conv.h"
#include "gp/gp_eval.h"
#include "gp/gp_front.h"
#include "gp/gp_scale.h"
#include "gp/gp_simplify.h"
#include "log.h"
#include "rng.h"
#include "spec.h"

/* a dominates b (minimising both). */
static int dominates(double a1, double a2, double b1, double b2)
{
	return a1 <= b1 && a2 <= b2 && (a1 < b1 || a2 < b2);
}

/* NSGA-II's fronts by peeling: O(n^3), obviously right. */
static int brute_ranks(const double *f1, const double *f2, int n, int *rank)
{
	int left = 0, nf = 0;
	for (int i = 0; i < n; i++) {
		rank[i] = isfinite(f1[i]) ? -2 : -1;
		left += rank[i] == -2;
	}
	while (left > 0) {
		int *mark = calloc((size_t)n, sizeof *mark);
		for (int i = 0; i < n; i++) {
			if (rank[i] != -2)
				continue;
			int dom = 0;
			for (int j = 0; j < n && !dom; j++)
				dom = rank[j] == -2 && dominates(f1[j], f2[j], f1[i], f2[i]);
			mark[i] = !dom;
		}
		for (int i = 0; i < n; i++)
			if (mark[i]) {
				rank[i] = nf;
				left--;
			}
		free(mark);
		nf++;
	}
	return nf;
}

/* Crowding of front k, objective by objective (Deb et al. 2002's loop). */
static void brute_crowding(const double *f1, const double *f2, const int *rank, int n, int k,
			   double *crowd)
{
	int *mem = malloc((size_t)n * sizeof *mem), m = 0;
	for (int i = 0; i < n; i++)
		if (rank[i] == k) {
			mem[m++] = i;
			crowd[i] = 0;
		}
	for (int o = 0; o < 2; o++) {
		const double *f = o ? f2 : f1;
		for (int a = 1; a < m; a++)   /* insertion sort by this objective */
			for (int b = a; b > 0 && f[mem[b]] < f[mem[b - 1]]; b--) {
				int t = mem[b];
				mem[b] = mem[b - 1];
				mem[b - 1] = t;
			}
		crowd[mem[0]] = crowd[mem[m - 1]] = INFINITY;
		double range = f[mem[m - 1]] - f[mem[0]];
		for (int a = 1; a < m - 1 && range > 0; a++)
			crowd[mem[a]] += (f[mem[a + 1]] - f[mem[a - 1]]) / range;
	}
	free(mem);
}

static void random_points(rt_rng *rng, int n, int discrete, double *f1, double *f2)
{
	for (int i = 0; i < n; i++) {
		if (discrete) {   /* many ties and duplicates */
			f1[i] = rt_rng_below(rng, 8);
			f2[i] = rt_rng_below(rng, 8);
		} else {
			f1[i] = rt_rng_uniform_double(rng);
			f2[i] = 1 + rt_rng_below(rng, 1000000);
		}
		if (rt_rng_below(rng, 20) == 0)
			f1[i] = INFINITY;
	}
}

static void sort_matches_brute_force(void **state)
{
	(void)state;
	rt_rng rng;
	rt_rng_init(&rng, 42, 0);
	rt_error err = {0};
	enum { N = 150 };
	double f1[N], f2[N], crowd[N], ref_crowd[N];
	int rank[N], ref[N];
	for (int trial = 0; trial < 60; trial++) {
		int n = 1 + (int)rt_rng_below(&rng, N), discrete = trial % 2;
		random_points(&rng, n, discrete, f1, f2);
		int nf = gp_front_sort(f1, f2, n, rank, crowd, &err);
		assert_int_equal(nf, brute_ranks(f1, f2, n, ref));
		for (int i = 0; i < n; i++)
			assert_int_equal(rank[i], ref[i]);
		if (discrete)
			continue;   /* crowding of duplicates depends on the order ties sort in */
		for (int k = 0; k < nf; k++)
			brute_crowding(f1, f2, ref, n, k, ref_crowd);
		for (int i = 0; i < n; i++) {
			if (rank[i] < 0)
				continue;
			if (isinf(ref_crowd[i]))
				assert_true(isinf(crowd[i]));
			else
				assert_true(fabs(crowd[i] - ref_crowd[i]) <= 1e-12 * (1 + ref_crowd[i]));
		}
	}
}

/* The selection fitness orders as NSGA-II's crowded comparison. */
static void selection_fitness_order(void **state)
{
	(void)state;
	rt_rng rng;
	rt_rng_init(&rng, 7, 0);
	rt_error err = {0};
	enum { N = 300 };
	double f1[N], f2[N], crowd[N], sel[N];
	int rank[N];
	random_points(&rng, N, 0, f1, f2);
	assert_true(gp_front_sort(f1, f2, N, rank, crowd, &err) > 1);
	gp_front_selection_fitness(rank, crowd, f1, N, sel);
	int elite = -1;
	for (int i = 0; i < N; i++) {
		if (sel[i] == -1.0)
			elite = i;
		for (int j = 0; j < N; j++) {
			if (rank[i] < 0 || rank[j] < 0 || sel[i] == -1.0 || sel[j] == -1.0)
				continue;
			if (rank[i] < rank[j])
				assert_true(sel[i] < sel[j]);
			else if (rank[i] == rank[j] && crowd[i] > crowd[j])
				assert_true(sel[i] < sel[j]);
		}
		if (rank[i] < 0)
			assert_true(sel[i] >= 1e300);
	}
	/* the elite: the lowest error, in front 0 */
	assert_true(elite >= 0);
	assert_int_equal(rank[elite], 0);
	for (int i = 0; i < N; i++)
		assert_true(!(f1[i] < f1[elite]));
}

/* A one-node-per-input tree of size s, to carry a size into the archive. */
static void tree_of_size(gp_tree *t, int s)
{
	rt_error err = {0};
	gp_node nd[64];
	int n = 0;
	for (int k = 0; k < (s - 1) / 2; k++)
		nd[n++] = gp_fn(GP_OP_ADD);
	while (n < s)
		nd[n++] = gp_var(0);
	assert_int_equal(gp_tree_set(t, nd, n, &err), RT_OK);
}

static void archive_is_non_dominated_set(void **state)
{
	(void)state;
	rt_rng rng;
	rt_rng_init(&rng, 9, 0);
	rt_error err = {0};
	enum { N = 400 };
	double e[N];
	int s[N];
	gp_front f = {GP_OBJ_ERROR_SIZE, NULL, 0, 0};
	gp_tree t = {0};
	for (int i = 0; i < N; i++) {
		s[i] = 1 + 2 * (int)rt_rng_below(&rng, 20);   /* odd sizes: + trees */
		e[i] = rt_rng_below(&rng, 50) / 7.0;
		tree_of_size(&t, s[i]);
		assert_int_equal(gp_front_offer(&f, &t, e[i], i, NULL, &err), RT_OK);
	}
	/* every point not dominated by another (first of equal ones) is a member */
	int expect = 0;
	for (int i = 0; i < N; i++) {
		int dom = 0, dup = 0;
		for (int j = 0; j < N; j++) {
			dom |= dominates(e[j], s[j], e[i], s[i]);
			dup |= j < i && e[j] == e[i] && s[j] == s[i];
		}
		if (dom || dup)
			continue;
		expect++;
		int found = 0;
		for (int k = 0; k < f.n; k++)
			found |= f.m[k].error == e[i] && f.m[k].size == s[i] && f.m[k].generation == i;
		assert_true(found);
	}
	assert_int_equal(f.n, expect);
	for (int k = 1; k < f.n; k++) {
		assert_true(f.m[k].size > f.m[k - 1].size);
		assert_true(f.m[k].error < f.m[k - 1].error);
		assert_int_equal(f.m[k].tree.n, f.m[k].size);
	}
	gp_tree_free(&t);
	gp_front_free(&f);
}

static void complexity_weights(void **state)
{
	(void)state;
	/* sin(x / (x * 2)) + exp(x): sin 3, / 2, * 1, exp 3, + 1, leaves 4 */
	gp_node nd[] = {gp_fn(GP_OP_ADD), gp_fn(GP_OP_SIN), gp_fn(GP_OP_DIV), gp_var(0),
			gp_fn(GP_OP_MUL), gp_var(0), gp_const(2.0f), gp_fn(GP_OP_EXP), gp_var(0)};
	assert_int_equal(gp_complexity(nd, 9), 3 + 2 + 1 + 3 + 1 + 4);
	gp_node q[] = {gp_fn(GP_OP_SQRT), gp_fn(GP_OP_SQUARE), gp_var(0)};
	assert_int_equal(gp_complexity(q, 3), 2 + 3 + 1);
}

static void choose_rule(void **state)
{
	(void)state;
	rt_error err = {0};
	gp_front f = {GP_OBJ_ERROR_SIZE, NULL, 0, 0};
	gp_tree t = {0};
	const int sizes[] = {3, 5, 9, 15, 21};
	const double errs[] = {1.0, 0.1, 0.01005, 0.01001, 0.01};
	for (int i = 0; i < 5; i++) {
		tree_of_size(&t, sizes[i]);
		assert_int_equal(gp_front_offer(&f, &t, errs[i], i, NULL, &err), RT_OK);
	}
	assert_int_equal(f.n, 5);
	assert_int_equal(gp_front_choose(&f, 0.0, 0.0), 2);    /* 0.01005 <= 1.01 x 0.01 */
	assert_int_equal(gp_front_choose(&f, 0.2, 0.0), 1);    /* solved: the smallest solving one */
	assert_int_equal(gp_front_choose(&f, 0.005, 0.0), 2);  /* not solved: the 1 % rule */
	assert_int_equal(gp_front_choose(&f, 0.0, 0.1), 1);    /* errors within the noise: 0.1 <= 0.01 + 0.1 */
	/* with the reported (simplified) sizes known, the smallest of those
	 * within the rule wins, whatever the evolved sizes; ties: the smaller */
	const int reported[] = {3, 5, 9, 7, 7};
	for (int i = 0; i < 5; i++)
		f.m[i].reported_size = reported[i];
	assert_int_equal(gp_front_choose(&f, 0.0, 0.0), 3);    /* 7 < 9 among 2, 3, 4 */
	assert_int_equal(gp_front_choose(&f, 0.2, 0.0), 1);    /* solved: 5 is the smallest of 1..4 */
	f.m[4].unfaithful = 1;
	f.m[3].unfaithful = 1;
	assert_int_equal(gp_front_choose(&f, 0.0, 0.0), 2);    /* the faithful one */
	gp_front_free(&f);
	gp_front empty = {GP_OBJ_ERROR_SIZE, NULL, 0, 0};
	assert_int_equal(gp_front_choose(&empty, 0.0, 0.0), -1);
	gp_tree_free(&t);
}

static const char *const run_spec =
	"[problem]\nkind = gp\nname = t\nseed = 3\n"
	"[gp]\npopulation = 300\ngenerations = 15\nfunctions = + - * / sin\n"
	"constants = -1 1\nobjectives = %s\nfront_selection = %s\n%s"
	"[data]\nsource = sextic\ncases = 300\ntest_fraction = 0.25\n";

/* A run's front: sorted, non-dominated, the best on it, and each member's
 * reported train/test MSE equal to a double recomputation of its program. */
static void run_front_with(const char *objectives, const char *selection, const char *extra)
{
	char text[1024];
	snprintf(text, sizeof text, run_spec, objectives, selection, extra);
	rt_error err = {0};
	rt_spec spec;
	gp_problem p;
	gp_result r;
	assert_int_equal(rt_spec_load_text(&spec, "t.ini", text, &err), RT_OK);
	assert_int_equal(gp_problem_load(&spec, &p, &err), RT_OK);
	assert_int_equal(gp_evolve(&p, 5, gp_eval_cpu, &r, &err), RT_OK);
	gp_front *f = r.front;
	assert_non_null(f);
	assert_true(f->n > 0);
	assert_int_equal(r.fitted > 0, p.fit_front_steps > 0);
	int chosen = -1;
	for (int k = 0; k < f->n; k++) {
		for (int j = 0; j < f->n; j++)
			assert_false(dominates(f->m[j].error, gp_front_obj2(f, &f->m[j]), f->m[k].error,
					       gp_front_obj2(f, &f->m[k])));
		if (k > 0)
			assert_true(gp_front_obj2(f, &f->m[k]) > gp_front_obj2(f, &f->m[k - 1]));
		if (f->m[k].tree.n == r.best.n &&
		    memcmp(f->m[k].tree.nodes, r.best.nodes, (size_t)r.best.n * sizeof *r.best.nodes) == 0)
			chosen = k;
	}
	assert_int_equal(chosen, gp_front_choose(f, p.success, GP_FRONT_NOISE_R2 * gp_front_target_var(&p.cases)));
	assert_true(r.best_fitness == f->m[chosen].error);
	gp_front_row *rows;
	gp_names nm = {1, NULL};
	assert_int_equal(gp_front_report(f, &p.cases, &p.test, &nm, &rows, &err), RT_OK);
	for (int k = 0; k < f->n; k++) {
		const gp_cases *sets[2] = {&p.cases, &p.test};
		double got[2] = {rows[k].train_error, rows[k].test_error};
		/* a member is reported as its own line a + b*f (linear scaling) */
		gp_tree t = {0};
		assert_int_equal(gp_tree_copy(&t, &f->m[k].tree, &err), RT_OK);
		assert_int_equal(gp_scale_best(&p.cases, &t, NULL, NULL, &err), RT_OK);
		for (int s = 0; s < 2; s++) {
			double sum = 0;
			for (size_t c = 0; c < sets[s]->ncases; c++) {
				double x = sets[s]->x[c];
				double d = gp_simplify_eval_prefix(t.nodes, t.n, &x) -
					   sets[s]->y[c];
				sum += d * d;
			}
			double mse = sum / (double)sets[s]->ncases;
			if (!(fabs(got[s] - mse) <= 1e-4 * mse + 1e-9))
				print_message("member %d set %d: got %.9g float64 %.9g size %d\n", k, s, got[s], mse, f->m[k].size);
			assert_true(fabs(got[s] - mse) <= 1e-4 * mse + 1e-9);
		}
		gp_tree_free(&t);
		/* the run's fitness is the training MSE too (a, b rounded to float) */
		assert_true(fabs(f->m[k].error - rows[k].train_error) <= 1e-4 * f->m[k].error + 1e-7);
		assert_non_null(rows[k].simplified);
		assert_true(rows[k].train_r2 <= 1.0);
	}
	gp_front_rows_free(rows, f->n);
	gp_result_free(&r);
	gp_problem_free(&p);
	rt_spec_free(&spec);
}

static void run_front(const char *objectives, const char *selection)
{
	run_front_with(objectives, selection, "");
}

/* The members' constants fitted at the end of the run. */
static void run_front_fitted(void **state)
{
	(void)state;
	run_front_with("error,size", "archive", "fit_front_steps = 20\n");
}

static void run_front_nsga2(void **state)
{
	(void)state;
	run_front("error,size", "nsga2");
}

static void run_front_archive(void **state)
{
	(void)state;
	run_front("error,size", "archive");
}

static void run_front_complexity(void **state)
{
	(void)state;
	run_front("error,complexity", "nsga2");
}

/* objectives = error: no front, and the run is today's. */
static void single_objective_has_no_front(void **state)
{
	(void)state;
	char text[1024];
	snprintf(text, sizeof text, run_spec, "error", "nsga2", "");
	rt_error err = {0};
	rt_spec spec;
	gp_problem p;
	gp_result r;
	assert_int_equal(rt_spec_load_text(&spec, "t.ini", text, &err), RT_OK);
	assert_int_equal(gp_problem_load(&spec, &p, &err), RT_OK);
	assert_int_equal(gp_evolve(&p, 5, gp_eval_cpu, &r, &err), RT_OK);
	assert_null(r.front);
	gp_result_free(&r);
	gp_problem_free(&p);
	rt_spec_free(&spec);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(sort_matches_brute_force),
		cmocka_unit_test(selection_fitness_order),
		cmocka_unit_test(archive_is_non_dominated_set),
		cmocka_unit_test(complexity_weights),
		cmocka_unit_test(choose_rule),
		cmocka_unit_test(run_front_nsga2),
		cmocka_unit_test(run_front_archive),
		cmocka_unit_test(run_front_complexity),
		cmocka_unit_test(run_front_fitted),
		cmocka_unit_test(single_objective_has_no_front),
	};
	rt_log_set_quiet(1);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
