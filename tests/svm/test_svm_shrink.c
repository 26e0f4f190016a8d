/* test_svm_shrink.c: the CPU solver's shrinking (svm-train -h 1) against
 * the unshrunk solver on random data: C-SVC and the nu-form (LIBSVM's
 * nu-SVC start), dense and sparse, the objective within 1e-6 relative, the
 * same support vectors, and the stopping rule met over every point (the
 * gradient recomputed here from alpha); a two-row cache (rows recomputed
 * over the active set, evicted, upgraded to whole rows) gives shrinking's
 * alpha bit for bit. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "cpu.h"
#include "rng.h"
#include "svm/svm_impl.h"

#include "../test_tmp.h"

/* n points in nf dimensions, labels +1/-1 from a noisy nonlinear rule. */
static void make_data(svm_data *d, long n, int nf, uint64_t seed, signed char *y, long *idx)
{
	rt_rng rng;
	rt_rng_init(&rng, seed, 0);
	memset(d, 0, sizeof *d);
	d->n = n;
	d->nfeat = nf;
	d->x = malloc((size_t)n * nf * sizeof *d->x);
	d->y = malloc((size_t)n * sizeof *d->y);
	assert_non_null(d->x);
	assert_non_null(d->y);
	for (long i = 0; i < n; i++) {
		float *x = d->x + (size_t)i * nf;
		for (int j = 0; j < nf; j++)
			x[j] = (float)rt_rng_range(&rng, -1, 1);
		double v = x[0] + x[1] * x[2] + 0.3 * rt_rng_normal(&rng);
		y[i] = v > 0 ? 1 : -1;
		d->y[i] = y[i];
		idx[i] = i;
	}
}

static void params(svm_params *p, double C, double gamma, double eps, int shrinking)
{
	memset(p, 0, sizeof *p);
	p->kernel.type = SVM_RBF;
	p->kernel.gamma = gamma;
	p->kernel.degree = 3;
	p->C = C;
	p->eps = eps;
	p->cache_mb = 100;
	p->shrinking = shrinking;
}

/* m(alpha) - M(alpha) from G = Q alpha + lin recomputed here (Q's entries
 * as floats, as the solver stores them); the nu-form's: the larger of the
 * two signs' own. */
static double violation(const svm_data *d, const signed char *y, const double *alpha,
			const double *lin, long n, double C, int nu)
{
	double up[2] = { -INFINITY, -INFINITY }, low[2] = { -INFINITY, -INFINITY };
	for (long i = 0; i < n; i++) {
		const float *xi = d->x + (size_t)i * d->nfeat;
		double G = lin ? lin[i] : -1.0, sqi = svm_row_sq(d, i, d->nfeat);
		for (long j = 0; j < n; j++) {
			if (alpha[j] == 0)
				continue;
			const float *xj = d->x + (size_t)j * d->nfeat;
			double k = svm_kernel(&(svm_kernel_params){ SVM_RBF, 3, 0.5, 0 }, xi, xj,
					      d->nfeat, sqi, svm_row_sq(d, j, d->nfeat));
			G += alpha[j] * (float)(y[i] * y[j] * k);
		}
		double yG = y[i] * G;
		int s = nu && y[i] < 0;
		if (y[i] > 0 ? alpha[i] < C : alpha[i] > 0)
			up[s] = fmax(up[s], -yG);
		if (y[i] > 0 ? alpha[i] > 0 : alpha[i] < C)
			low[s] = fmax(low[s], yG);
	}
	return fmax(up[0] + low[0], up[1] + low[1]);
}

/* Both solves of one problem: objective, support vectors, stopping rule. */
static void compare(const svm_data *d, const signed char *y, const long *idx, long n,
		    double C, const svm_extra *ex)
{
	svm_params p0, p1;
	svm_binary b0, b1;
	rt_error err;
	params(&p0, C, 0.5, 1e-5, 0);
	params(&p1, C, 0.5, 1e-5, 1);
	assert_int_equal(svm_solve_general(d, idx, y, n, &p0, C, C, ex, 0, &b0, &err), RT_OK);
	assert_int_equal(svm_solve_general(d, idx, y, n, &p1, C, C, ex, 0, &b1, &err), RT_OK);
	printf("# n %ld: obj %.10g / %.10g (shrunk), iterations %ld / %ld, nSV %ld / %ld\n", n,
	       b0.obj, b1.obj, b0.iterations, b1.iterations, b0.nsv, b1.nsv);
	assert_true(b1.iterations > 1000);   /* shrinking had its turns */
	assert_true(fabs(b1.obj - b0.obj) <= 1e-6 * fabs(b0.obj));
	assert_int_equal(b0.nsv, b1.nsv);
	for (long i = 0; i < n; i++)
		assert_int_equal(b0.alpha[i] > 0, b1.alpha[i] > 0);
	assert_true(violation(d, y, b1.alpha, ex ? ex->lin : NULL, n, C, ex && ex->nu) < 1e-5 * 1.001);
	svm_binary_free(&b0);
	svm_binary_free(&b1);
}

static void test_c_svc(void **state)
{
	enum { N = 1500 };
	static signed char y[N];
	static long idx[N];
	svm_data d;
	(void)state;
	make_data(&d, N, 4, 17, y, idx);
	compare(&d, y, idx, N, 10, NULL);
	svm_data_free(&d);
	make_data(&d, N, 4, 18, y, idx);
	compare(&d, y, idx, N, 100, NULL);
	svm_data_free(&d);
}

/* LIBSVM's nu-SVC start: alpha = 1 on the first nu l / 2 of each sign
 * (the rest of that share on the next), linear term 0, C = 1. */
static void test_nu_form(void **state)
{
	enum { N = 2500 };
	static signed char y[N];
	static long idx[N];
	static double alpha0[N], lin[N];
	svm_data d;
	(void)state;
	make_data(&d, N, 4, 23, y, idx);
	double share[2] = { 0.3 * N / 2, 0.3 * N / 2 };
	for (long i = 0; i < N; i++) {
		double *s = &share[y[i] > 0 ? 0 : 1];
		alpha0[i] = fmin(1.0, *s);
		*s -= alpha0[i];
	}
	svm_extra ex = { lin, alpha0, 1 };
	compare(&d, y, idx, N, 1, &ex);
	svm_data_free(&d);
}

/* The smallest cache (two rows) changes nothing but time; sparse storage
 * nothing at all. */
static void test_small_cache_sparse(void **state)
{
	enum { N = 1200 };
	static signed char y[N];
	static long idx[N];
	svm_data d;
	svm_params p;
	svm_binary a, b;
	rt_error err;
	(void)state;
	make_data(&d, N, 4, 31, y, idx);
	params(&p, 10, 0.5, 1e-4, 1);
	assert_int_equal(svm_solve_binary(&d, idx, y, N, &p, 10, 10, 0, &a, &err), RT_OK);
	p.cache_mb = 1e-6;
	assert_int_equal(svm_solve_binary(&d, idx, y, N, &p, 10, 10, 0, &b, &err), RT_OK);
	assert_true(a.iterations > 1000);
	assert_int_equal(a.iterations, b.iterations);
	assert_memory_equal(a.alpha, b.alpha, N * sizeof(double));
	assert_true(a.obj == b.obj && a.rho == b.rho);
	svm_binary_free(&b);
	assert_int_equal(svm_data_make_sparse(&d, &err), RT_OK);
	assert_int_equal(svm_solve_binary(&d, idx, y, N, &p, 10, 10, 0, &b, &err), RT_OK);
	assert_memory_equal(a.alpha, b.alpha, N * sizeof(double));
	svm_binary_free(&a);
	svm_binary_free(&b);
	svm_data_free(&d);
}

static int setup(void **state)
{
	(void)state;
	return tmp_setup("svm-shrink");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_c_svc),
		cmocka_unit_test(test_nu_form),
		cmocka_unit_test(test_small_cache_sparse),
	};
	cpu_set_threads(2);
	return cmocka_run_group_tests(tests, setup, tmp_teardown);
}
