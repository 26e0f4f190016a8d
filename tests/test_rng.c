/* test_rng.c: Philox4x32 against the Random123 known-answer vectors
 * (librandom123-dev's tests/kat_vectors) and the host stream API. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "rng.h"

typedef struct kat {
	int rounds;
	uint32_t ctr[4], key[2], expect[4];
} kat;

/* From Random123 1.14 tests/kat_vectors: philox4x32 R ctr[4] key[2] result[4]. */
static const kat kats[] = {
	{7, {0, 0, 0, 0}, {0, 0}, {0x5f6fb709, 0x0d893f64, 0x4f121f81, 0x4f730a48}},
	{7, {0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff}, {0xffffffff, 0xffffffff},
	 {0x5207ddc2, 0x45165e59, 0x4d8ee751, 0x8c52f662}},
	{7, {0x243f6a88, 0x85a308d3, 0x13198a2e, 0x03707344}, {0xa4093822, 0x299f31d0},
	 {0x4dfccaba, 0x190a87f0, 0xc47362ba, 0xb6b5242a}},
	{10, {0, 0, 0, 0}, {0, 0}, {0x6627e8d5, 0xe169c58d, 0xbc57ac4c, 0x9b00dbd8}},
	{10, {0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff}, {0xffffffff, 0xffffffff},
	 {0x408f276d, 0x41c83b0e, 0xa20bc7c6, 0x6d5451fd}},
	{10, {0x243f6a88, 0x85a308d3, 0x13198a2e, 0x03707344}, {0xa4093822, 0x299f31d0},
	 {0xd16cfe09, 0x94fdcceb, 0x5001e420, 0x24126ea1}},
};

static void known_answers(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof kats / sizeof kats[0]; i++) {
		philox4x32_ctr c;
		philox2x32_key k;
		memcpy(c.v, kats[i].ctr, sizeof c.v);
		memcpy(k.v, kats[i].key, sizeof k.v);
		philox4x32_ctr r = kats[i].rounds == 10 ? philox4x32_10(c, k)
							: philox4x32_R(kats[i].rounds, c, k);
		for (int j = 0; j < 4; j++)
			assert_int_equal(r.v[j], kats[i].expect[j]);
	}
}

static void block_layout(void **state)
{
	/* philox_block(seed, stream, n) = philox4x32_10({n lo, n hi, stream lo, stream hi}, seed) */
	philox4x32_ctr a = philox_block(0x299f31d0a4093822ull, 0x0370734413198a2eull,
					0x85a308d3243f6a88ull);
	(void)state;
	assert_int_equal(a.v[0], 0xd16cfe09);
	assert_int_equal(a.v[3], 0x24126ea1);
}

static void streams_are_reproducible_and_distinct(void **state)
{
	rt_rng a, b, c;
	int same = 0;
	(void)state;
	rt_rng_init(&a, 42, 7);
	rt_rng_init(&b, 42, 7);
	rt_rng_init(&c, 42, 8);
	for (int i = 0; i < 1000; i++) {
		uint32_t x = rt_rng_u32(&a);
		assert_int_equal(x, rt_rng_u32(&b));
		same += x == rt_rng_u32(&c);
	}
	assert_true(same < 3);
	/* The n-th draw of a stream is word n%4 of block n/4. */
	rt_rng_init(&a, 5, 3);
	for (int i = 0; i < 9; i++) {
		uint32_t x = rt_rng_u32(&a);
		assert_int_equal(x, philox_block(5, 3, (uint64_t)(i / 4)).v[i % 4]);
	}
}

static void uniform_ranges_and_moments(void **state)
{
	rt_rng r;
	double sum = 0, sumsq = 0, nsum = 0, nsq = 0;
	long counts[10] = {0};
	const int n = 200000;
	(void)state;
	rt_rng_init(&r, 1, 0);
	for (int i = 0; i < n; i++) {
		float u = rt_rng_uniform(&r);
		double d = rt_rng_uniform_double(&r);
		uint32_t k = rt_rng_below(&r, 10);
		double g = rt_rng_normal(&r);
		assert_true(u >= 0.0f && u < 1.0f);
		assert_true(d >= 0.0 && d < 1.0);
		assert_true(k < 10);
		counts[k]++;
		sum += d;
		sumsq += d * d;
		nsum += g;
		nsq += g * g;
	}
	assert_true(fabs(sum / n - 0.5) < 0.005);
	assert_true(fabs(sumsq / n - 1.0 / 3) < 0.005);
	assert_true(fabs(nsum / n) < 0.01);
	assert_true(fabs(nsq / n - 1.0) < 0.02);
	for (int i = 0; i < 10; i++)
		assert_true(labs(counts[i] - n / 10) < n / 100);
	for (int i = 0; i < 1000; i++) {
		double x = rt_rng_range(&r, -200, 200);
		assert_true(x >= -200 && x < 200);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(known_answers),
		cmocka_unit_test(block_layout),
		cmocka_unit_test(streams_are_reproducible_and_distinct),
		cmocka_unit_test(uniform_ranges_and_moments),
	};
	return cmocka_run_group_tests_name("rng", tests, NULL, NULL);
}
