/* test_cpu.c: the CPU thread pool: every item runs exactly once on a valid
 * thread id, as the pool grows and shrinks and between back-to-back loops
 * that meet workers both spinning and asleep. */
#include <setjmp.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "cpu.h"

#define MAX_ITEMS 100000

typedef struct visit_ctx {
	atomic_int count[MAX_ITEMS];
	atomic_int bad_thread;   /* a body saw a thread id outside [0, threads) */
	int threads;
} visit_ctx;

static void visit(void *p, long begin, long end, int thread)
{
	visit_ctx *c = p;
	if (thread < 0 || thread >= c->threads)
		atomic_store(&c->bad_thread, 1);
	for (long i = begin; i < end; i++)
		atomic_fetch_add(&c->count[i], 1);
}

static void each_item_once(void **state)
{
	static const int threads[] = {1, 2, 3, 4, 2, 1, 3};
	static const long sizes[][2] = {{0, 1}, {1, 1}, {7, 3}, {1000, 1}, {1000, 7},
					{MAX_ITEMS, 64}, {5, 100}};
	visit_ctx *c = calloc(1, sizeof *c);
	int before = cpu_threads();
	(void)state;
	assert_non_null(c);
	for (size_t t = 0; t < sizeof threads / sizeof threads[0]; t++) {
		cpu_set_threads(threads[t]);
		for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
			rt_error err;
			long n = sizes[s][0];
			memset(c, 0, sizeof *c);
			c->threads = cpu_threads();
			assert_int_equal(cpu_threads(), threads[t]);
			assert_int_equal(cpu_parallel_for(n, sizes[s][1], visit, c, &err), RT_OK);
			assert_int_equal(atomic_load(&c->bad_thread), 0);
			for (long i = 0; i < n; i++)
				if (atomic_load(&c->count[i]) != 1)
					fail_msg("threads %d, n %ld, grain %ld: item %ld ran %d times",
						 threads[t], n, sizes[s][1], i, atomic_load(&c->count[i]));
		}
	}
	cpu_set_threads(before);
	free(c);
}

static void add_items(void *p, long begin, long end, int thread)
{
	atomic_long *sum = p;
	(void)thread;
	for (long i = begin; i < end; i++)
		atomic_fetch_add(sum, i + 1);
}

/* Many small loops in a row; a pause now and then outlasts the workers' spin,
 * so later loops must wake them from their condition variable. */
static void back_to_back_loops(void **state)
{
	int before = cpu_threads();
	(void)state;
	cpu_set_threads(2);
	for (int k = 0; k < 3000; k++) {
		atomic_long sum;
		rt_error err;
		long n = 1 + k % 97;
		atomic_init(&sum, 0);
		assert_int_equal(cpu_parallel_for(n, 1, add_items, &sum, &err), RT_OK);
		assert_int_equal(atomic_load(&sum), n * (n + 1) / 2);
		if (k % 500 == 499)
			usleep(2000);
	}
	cpu_set_threads(before);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(each_item_once),
		cmocka_unit_test(back_to_back_loops),
	};
	return cmocka_run_group_tests_name("cpu", tests, NULL, NULL);
}
