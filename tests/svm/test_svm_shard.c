/* test_svm_shard.c: how a search's models are dealt to MPI ranks
 * (runtime/svm/svm_shard.c): svm_shard_plan (LPT) is deterministic, gives
 * every job exactly one rank, deals equal costs round-robin, beats
 * round-robin where that is unbalanced, meets Graham's 4/3 bound against
 * the best plan (brute force on small random cases) and reaches it on the
 * classic worst case; svm_cost_estimate is nondecreasing in C, flat for
 * small C gamma, and finite on odd parameters. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "rng.h"
#include "svm/svm_impl.h"

/* The largest of size ranks' loads under owner. */
static double makespan(const double *cost, const int *owner, long count, int size)
{
	double load[16] = { 0 }, most = 0;
	assert_true(size <= 16);
	for (long j = 0; j < count; j++) {
		assert_true(owner[j] >= 0 && owner[j] < size);
		load[owner[j]] += cost[j];
	}
	for (int r = 0; r < size; r++)
		most = fmax(most, load[r]);
	return most;
}

static double round_robin(const double *cost, long count, int size)
{
	int owner[64];
	assert_true(count <= 64);
	for (long j = 0; j < count; j++)
		owner[j] = (int)(j % size);
	return makespan(cost, owner, count, size);
}

/* The best plan's makespan, by trying every assignment (size^count). */
static double best_makespan(const double *cost, long count, int size)
{
	int owner[16] = { 0 };
	double best = HUGE_VAL;
	assert_true(count <= 16);
	for (;;) {
		best = fmin(best, makespan(cost, owner, count, size));
		long k = 0;
		while (k < count && ++owner[k] == size)
			owner[k++] = 0;
		if (k == count)
			return best;
	}
}

static void plan(const double *cost, long count, int size, int *owner, double *load)
{
	rt_error err;
	assert_int_equal(svm_shard_plan(cost, count, size, owner, load, &err), RT_OK);
}

static void deterministic_and_whole(void **state)
{
	(void)state;
	double cost[75], load[4], again_load[4], sum = 0, loads = 0, most = 0;
	int owner[75], again[75], count[4] = { 0 };
	rt_rng rng;
	rt_rng_init(&rng, 27, 3);
	for (int j = 0; j < 75; j++)
		most = fmax(most, cost[j] = exp2(rt_rng_range(&rng, 0, 12)));
	for (int j = 0; j < 75; j++)
		sum += cost[j];
	plan(cost, 75, 4, owner, load);
	plan(cost, 75, 4, again, again_load);
	assert_memory_equal(owner, again, sizeof owner);
	assert_memory_equal(load, again_load, sizeof load);
	for (int j = 0; j < 75; j++) {
		assert_true(owner[j] >= 0 && owner[j] < 4);
		count[owner[j]]++;
	}
	for (int r = 0; r < 4; r++) {
		assert_true(count[r] > 0);
		loads += load[r];
	}
	assert_true(fabs(loads - sum) <= 1e-9 * sum);
	assert_true(makespan(cost, owner, 75, 4) <= sum / 4 + most);   /* list scheduling's bound */
}

/* Equal costs: job j to rank j mod size, as before the planner. */
static void equal_costs_round_robin(void **state)
{
	(void)state;
	double cost[23];
	int owner[23];
	for (int j = 0; j < 23; j++)
		cost[j] = 5;
	plan(cost, 23, 4, owner, NULL);
	for (int j = 0; j < 23; j++)
		assert_int_equal(owner[j], j % 4);
}

/* Costly cells whose folds round-robin deals 3 : 2 (5 folds, 2 ranks, the
 * costly gamma first of two), as a grid's models come. */
static void beats_round_robin(void **state)
{
	(void)state;
	double cost[30], load[2];
	int owner[30];
	for (int j = 0; j < 30; j++)
		cost[j] = (j / 5) % 2 == 0 ? 50 : 2;   /* cells 0, 2, 4 costly */
	plan(cost, 30, 2, owner, load);
	double lpt = makespan(cost, owner, 30, 2), rr = round_robin(cost, 30, 2);
	assert_true(rr >= 0.58 * 780);
	assert_true(lpt <= 0.5 * 780 + 50);
	assert_true(lpt < rr);
	assert_true(fmax(load[0], load[1]) == lpt);
}

/* Graham's bound, makespan <= (4/3 - 1/(3 size)) OPT, on random cases. */
static void graham_bound(void **state)
{
	(void)state;
	rt_rng rng;
	rt_rng_init(&rng, 4, 3);
	for (int t = 0; t < 200; t++) {
		int size = 2 + (int)rt_rng_below(&rng, 2), count = 4 + (int)rt_rng_below(&rng, 6);
		double cost[16];
		int owner[16];
		for (int j = 0; j < count; j++)
			cost[j] = 1 + (int)rt_rng_below(&rng, 20);
		plan(cost, count, size, owner, NULL);
		double opt = best_makespan(cost, count, size);
		assert_true(makespan(cost, owner, count, size) <= (4.0 / 3 - 1.0 / (3 * size)) * opt + 1e-9);
	}
}

/* The classic worst case on 2 ranks: 3 3 2 2 2, LPT 7 against 6. */
static void graham_worst_case(void **state)
{
	(void)state;
	double cost[5] = { 2, 3, 2, 3, 2 };
	int owner[5];
	plan(cost, 5, 2, owner, NULL);
	assert_true(makespan(cost, owner, 5, 2) == 7);
	assert_true(best_makespan(cost, 5, 2) == 6);
	assert_int_equal(owner[1], 0);   /* the first costliest job: rank 0 */
	assert_int_equal(owner[3], 1);
}

/* Costs that are no positive number count 0 but still get a rank; no
 * jobs, or one rank, work; no ranks is an error. */
static void odd_inputs(void **state)
{
	(void)state;
	double cost[4] = { NAN, -1, HUGE_VAL, 3 }, load[2];
	int owner[4] = { -1, -1, -1, -1 };
	rt_error err;
	plan(cost, 4, 2, owner, load);
	for (int j = 0; j < 4; j++)
		assert_true(owner[j] == 0 || owner[j] == 1);
	assert_true(load[0] + load[1] == 3);
	plan(cost, 0, 3, owner, NULL);
	plan(cost, 4, 1, owner, load);
	assert_true(owner[0] == 0 && owner[3] == 0 && load[0] == 3);
	assert_int_equal(svm_shard_plan(cost, 4, 0, owner, NULL, &err), RT_ERR_INTERNAL);
}

static svm_params rbf(double log2c, double log2g)
{
	svm_params p;
	memset(&p, 0, sizeof p);
	p.kernel.type = SVM_RBF;
	p.C = exp2(log2c);
	p.kernel.gamma = exp2(log2g);
	return p;
}

/* Nondecreasing in C for every gamma; flat where C gamma is small; the
 * slow corner (large C, small gamma) far above the cheap one; capped by
 * gamma; finite on odd parameters; the linear kernel ignores gamma. */
static void cost_model(void **state)
{
	(void)state;
	for (double g = 5; g >= -20; g -= 1) {
		double before = 0;
		for (double c = -10; c <= 20; c += 0.5) {
			svm_params p = rbf(c, g);
			double e = svm_cost_estimate(&p);
			assert_true(isfinite(e) && e >= 2);
			assert_true(e >= before);
			before = e;
		}
	}
	svm_params cheap = rbf(-5, -5), cheap2 = rbf(-10, 3), slow = rbf(15, -7), capped = rbf(15, 3);
	assert_true(svm_cost_estimate(&cheap) == 2 && svm_cost_estimate(&cheap2) == 2);
	assert_true(svm_cost_estimate(&slow) > 30 * svm_cost_estimate(&cheap));
	assert_true(svm_cost_estimate(&capped) == 5);   /* 1 + 2^cap */
	svm_params odd = rbf(0, 0);
	odd.C = NAN;
	assert_true(isfinite(svm_cost_estimate(&odd)));
	odd.C = HUGE_VAL;
	odd.kernel.gamma = 0;
	assert_true(isfinite(svm_cost_estimate(&odd)));
	svm_params lin1 = rbf(10, 3), lin2 = rbf(10, -12);
	lin1.kernel.type = lin2.kernel.type = SVM_LINEAR;
	assert_true(svm_cost_estimate(&lin1) == svm_cost_estimate(&lin2));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(deterministic_and_whole),
		cmocka_unit_test(equal_costs_round_robin),
		cmocka_unit_test(beats_round_robin),
		cmocka_unit_test(graham_bound),
		cmocka_unit_test(graham_worst_case),
		cmocka_unit_test(odd_inputs),
		cmocka_unit_test(cost_model),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
