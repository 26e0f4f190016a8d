/* test_gp_dmath.c: gp_dmath.h's double exp, log, sin, cos and tanh (the
 * Levenberg-Marquardt's, the same bits on host and device) against libm on
 * fresh random arguments over their ranges: the ulp error stays within the
 * bound the header states; special values (NaN, +-inf, 0, subnormals,
 * overflow and underflow) come out as libm's. (test_gp_lm compiles the
 * device's side, templates/gp/gp_lm.cu, with NVRTC for sm_90; on a GPU it
 * checks that the host's and the device's fits are the same bits.) */
#include <float.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include "gp/gp_dmath.h"
#include "rng.h"

/* |got - want| in ulps of want (of 1 for |want| < 1 with `absolute`; of
 * the smallest normal for a subnormal want, whose ulp that is). */
static double ulps(double got, double want, int absolute)
{
	if (got == want)
		return 0;
	double scale = absolute && fabs(want) < 1 ? 1.0 : fmax(fabs(want), DBL_MIN);
	return fabs(got - want) / (DBL_EPSILON * scale);
}

/* The largest error of f against ref on n uniform draws in [lo, hi). */
static double worst(double (*f)(double), double (*ref)(double), double lo, double hi,
                    int absolute, uint64_t seed)
{
	rt_rng r;
	rt_rng_init(&r, seed, 0);
	double most = 0, at = 0;
	for (int i = 0; i < 200000; i++) {
		double x = rt_rng_range(&r, lo, hi);
		double e = ulps(f(x), ref(x), absolute);
		if (e > most) {
			most = e;
			at = x;
		}
	}
	printf("[%g, %g): %.2f ulp (at %.17g)\n", lo, hi, most, at);
	return most;
}

static void exp_accuracy(void **state)
{
	(void)state;
	assert_true(worst(gp_exp, exp, -1, 1, 0, 1) <= 4);
	assert_true(worst(gp_exp, exp, -700, 700, 0, 2) <= 4);
	assert_true(worst(gp_exp, exp, -745, -708, 0, 3) <= 4);   /* subnormal results */
}

static void log_accuracy(void **state)
{
	(void)state;
	assert_true(worst(gp_log, log, 0.5, 2, 1, 4) <= 4);
	assert_true(worst(gp_log, log, 1e-300, 1e300, 0, 5) <= 4);
	assert_true(worst(gp_log, log, 1e-320, 1e-308, 0, 6) <= 4);   /* subnormal arguments */
}

static void trig_accuracy(void **state)
{
	(void)state;
	assert_true(worst(gp_sin, sin, -4, 4, 1, 7) <= 4);
	assert_true(worst(gp_cos, cos, -4, 4, 1, 8) <= 4);
	assert_true(worst(gp_sin, sin, -1e6, 1e6, 1, 9) <= 4);
	assert_true(worst(gp_cos, cos, -0x1p30, 0x1p30, 1, 10) <= 4);
	assert_true(worst(gp_sin, sin, -1e-3, 1e-3, 0, 11) <= 4);   /* relative near 0 */
	/* past 2^30: bounded, deterministic values (not libm's) */
	for (double x = 0x1p31; x < 1e300; x *= 7.3) {
		assert_true(fabs(gp_sin(x)) <= 1.0000001);
		assert_true(fabs(gp_cos(x)) <= 1.0000001);
	}
}

static void tanh_accuracy(void **state)
{
	(void)state;
	assert_true(worst(gp_tanh, tanh, -0.2, 0.2, 0, 12) <= 4);
	assert_true(worst(gp_tanh, tanh, -30, 30, 0, 13) <= 4);
	assert_true(worst(gp_tanh, tanh, 1e-12, 1e-6, 0, 14) <= 4);
}

static void special_values(void **state)
{
	(void)state;
	assert_true(isnan(gp_exp(NAN)) && isnan(gp_log(NAN)) && isnan(gp_sin(NAN)));
	assert_true(isnan(gp_cos(INFINITY)) && isnan(gp_tanh(NAN)) && isnan(gp_log(-1)));
	assert_true(gp_exp(INFINITY) == INFINITY && gp_exp(-INFINITY) == 0);
	assert_true(gp_exp(710) == INFINITY && gp_exp(709.7) == exp(709.7));
	assert_true(gp_exp(-800) == 0 && gp_exp(0) == 1);
	assert_true(gp_log(0) == -INFINITY && gp_log(INFINITY) == INFINITY && gp_log(1) == 0);
	assert_true(gp_log(DBL_TRUE_MIN) == log(DBL_TRUE_MIN));
	assert_true(gp_sin(0) == 0 && gp_cos(0) == 1);
	assert_true(gp_tanh(INFINITY) == 1 && gp_tanh(-INFINITY) == -1 && gp_tanh(0) == 0);
	assert_true(gp_tanh(-25) == -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(exp_accuracy),   cmocka_unit_test(log_accuracy),
		cmocka_unit_test(trig_accuracy),  cmocka_unit_test(tanh_accuracy),
		cmocka_unit_test(special_values),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
