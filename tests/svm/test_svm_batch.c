/* test_svm_batch.c: the batched working-set solver (svm_batch.c) against
 * the SMO solver (svm_solve_general) on fresh random problems, dense and
 * sparse, RBF, linear and polynomial kernels, C-SVC with unequal Cp/Cn,
 * epsilon-SVR and one-class: the objective within 1e-4 relative, the same
 * signs of the training decision values (away from zero; SVR: close
 * values), the violation below eps at the end, the same bits on dense and
 * sparse storage and on 1 or 2 threads; the selection's order and tie
 * rules on a handcrafted case; the local SMO on a whole tiny problem steps
 * exactly as SMO does; the size rule and the nu refusal. */
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
#include "svm/svm_batch.h"
#include "svm/svm_impl.h"

#include "../test_tmp.h"

static int setup(void **state)
{
	(void)state;
	return tmp_setup("svm-batch");
}

/* A binary problem of n variables over the points of d (dense) and ds (the
 * same points sparse): SVR has 2 variables per point. */
typedef struct prob {
	svm_data d, ds;
	long n;
	long *idx;
	signed char *y;
	double *lin, *alpha0;
	svm_extra ex;
	const svm_extra *exp;
	double Cp, Cn;
} prob;

/* np points of nf features, two overlapping blobs, about half the features
 * 0 (so sparse rows have holes); targets for SVR in d.y as values. */
static void make_points(prob *pr, long np, int nf, uint64_t seed, int reg)
{
	rt_rng rng;
	rt_error err;
	rt_rng_init(&rng, seed, 0);
	memset(&pr->d, 0, sizeof pr->d);
	assert_int_equal(svm_data_alloc(&pr->d, np, nf, &err), RT_OK);
	for (long i = 0; i < np; i++) {
		int c = (int)(i % 2);
		double s = 0;
		for (int j = 0; j < nf; j++) {
			float v = rt_rng_uniform(&rng) < 0.5 ? 0.0f
				  : (float)(rt_rng_normal(&rng) + (j % 2 == c ? 1.0 : 0.0));
			pr->d.x[(size_t)i * nf + j] = v;
			s += (j + 1) * 0.3 * v;
		}
		pr->d.y[i] = reg ? sin(s) + 0.1 * rt_rng_normal(&rng) : (c ? 1 : -1);
	}
}

/* The sparse copy of the dense points. */
static void make_sparse(prob *pr)
{
	rt_error err;
	long *rows = malloc((size_t)pr->d.n * sizeof *rows);
	for (long i = 0; i < pr->d.n; i++)
		rows[i] = i;
	assert_int_equal(svm_data_rows(&pr->d, rows, pr->d.n, &pr->ds, &err), RT_OK);
	if (!pr->ds.sparse)
		assert_int_equal(svm_data_make_sparse(&pr->ds, &err), RT_OK);
	assert_true(pr->ds.sparse);
	free(rows);
}

/* The problem of type t (C-SVC, one-class, epsilon-SVR) over np points. */
static void make_prob(prob *pr, int type, long np, int nf, uint64_t seed, double Cp, double Cn)
{
	long two = type == SVM_EPSILON_SVR;
	memset(pr, 0, sizeof *pr);
	make_points(pr, np, nf, seed, type == SVM_EPSILON_SVR);
	make_sparse(pr);
	pr->n = two ? 2 * np : np;
	pr->idx = malloc((size_t)pr->n * sizeof *pr->idx);
	pr->y = malloc((size_t)pr->n);
	pr->lin = calloc((size_t)pr->n, sizeof *pr->lin);
	pr->alpha0 = calloc((size_t)pr->n, sizeof *pr->alpha0);
	pr->Cp = Cp;
	pr->Cn = Cn;
	for (long i = 0; i < np; i++) {
		pr->idx[i] = i;
		pr->y[i] = type == SVM_C_SVC ? (signed char)pr->d.y[i] : 1;
		if (type == SVM_ONE_CLASS) {   /* nu 0.3: the first 0.3 n at 1 (svm_train's start) */
			long full = (long)(0.3 * (double)np);
			pr->alpha0[i] = i < full ? 1.0 : i == full ? 0.3 * (double)np - (double)full : 0;
		}
		if (two) {
			pr->idx[i + np] = i;
			pr->y[i + np] = -1;
			pr->lin[i] = 0.1 - pr->d.y[i];
			pr->lin[i + np] = 0.1 + pr->d.y[i];
		}
	}
	if (type != SVM_C_SVC) {
		pr->ex = (svm_extra){ pr->lin, pr->alpha0, 0 };
		pr->exp = &pr->ex;
	}
}

static void free_prob(prob *pr)
{
	svm_data_free(&pr->d);
	svm_data_free(&pr->ds);
	free(pr->idx);
	free(pr->y);
	free(pr->lin);
	free(pr->alpha0);
}

static svm_params params(int kernel, double gamma, double eps, int solver, long q)
{
	svm_params p;
	memset(&p, 0, sizeof p);
	p.kernel.type = kernel;
	p.kernel.gamma = gamma;
	p.kernel.degree = 3;
	p.kernel.coef0 = kernel == SVM_POLY ? 1 : 0;
	p.C = 1;
	p.eps = eps;
	p.cache_mb = 100;
	p.solver = solver;
	p.batch_size = q;
	return p;
}

/* The decision values f[np] of the training points (dense kernel values). */
static void decisions(const prob *pr, const svm_params *p, const svm_binary *b, double *f)
{
	long np = pr->d.n;
	int nf = pr->d.nfeat;
	double *coef = calloc((size_t)np, sizeof *coef), *sq = malloc((size_t)np * sizeof *sq);
	for (long k = 0; k < pr->n; k++)
		coef[pr->idx[k]] += pr->y[k] * b->alpha[k];
	for (long i = 0; i < np; i++)
		sq[i] = svm_row_sq(&pr->d, i, nf);
	for (long t = 0; t < np; t++) {
		double s = 0;
		for (long i = 0; i < np; i++)
			if (coef[i] != 0)
				s += coef[i] * svm_kernel(&p->kernel, pr->d.x + (size_t)i * nf,
							  pr->d.x + (size_t)t * nf, nf, sq[i], sq[t]);
		f[t] = s - b->rho;
	}
	free(coef);
	free(sq);
}

/* The violation m - M of alpha, its gradient recomputed from Q's rows. */
static double final_violation(const prob *pr, const svm_params *p, const double *alpha)
{
	long n = pr->n;
	double *G = malloc((size_t)n * sizeof *G), *sq = malloc((size_t)n * sizeof *sq);
	float *row = malloc((size_t)n * sizeof *row);
	rt_error err;
	for (long t = 0; t < n; t++) {
		G[t] = pr->exp ? pr->lin[t] : -1.0;
		sq[t] = svm_row_sq(&pr->d, pr->idx[t], pr->d.nfeat);
	}
	for (long i = 0; i < n; i++) {
		if (alpha[i] == 0)
			continue;
		assert_int_equal(svm_q_row_fill(&pr->d, pr->idx, pr->y, n, &p->kernel, sq, NULL, i, row,
						&err), RT_OK);
		for (long t = 0; t < n; t++)
			G[t] += alpha[i] * row[t];
	}
	double v = svm_batch_violation(alpha, G, pr->y, n, pr->Cp, pr->Cn);
	free(G);
	free(sq);
	free(row);
	return v;
}

/* Batch (q) against SMO on pr: objective, decision signs (values for SVR),
 * final violation; dense and sparse batch give the same bits. */
static void compare(prob *pr, int kernel, double gamma, long q, int reg)
{
	svm_params ps = params(kernel, gamma, 1e-3, SVM_SOLVER_SMO, 0);
	svm_params pb = params(kernel, gamma, 1e-3, SVM_SOLVER_BATCH, q);
	svm_binary s, b, bs;
	rt_error err;
	long np = pr->d.n, wrong = 0;
	double *fs = malloc((size_t)np * sizeof *fs), *fb = malloc((size_t)np * sizeof *fb);
	assert_int_equal(svm_solve_general(&pr->d, pr->idx, pr->y, pr->n, &ps, pr->Cp, pr->Cn,
					   pr->exp, 0, &s, &err), RT_OK);
	assert_int_equal(svm_batch_solve(&pr->d, pr->idx, pr->y, pr->n, &pb, pr->Cp, pr->Cn, pr->exp,
					 0, &b, &err), RT_OK);
	assert_int_equal(svm_batch_solve(&pr->ds, pr->idx, pr->y, pr->n, &pb, pr->Cp, pr->Cn,
					 pr->exp, 0, &bs, &err), RT_OK);
	assert_true(fabs(b.obj - s.obj) <= 1e-4 * fmax(1, fabs(s.obj)));
	assert_memory_equal(b.alpha, bs.alpha, (size_t)pr->n * sizeof *b.alpha);
	assert_true(b.obj == bs.obj && b.rho == bs.rho && b.iterations == bs.iterations);
	assert_true(final_violation(pr, &pb, b.alpha) < pb.eps);
	decisions(pr, &ps, &s, fs);
	decisions(pr, &pb, &b, fb);
	for (long t = 0; t < np; t++) {
		if (reg)
			wrong += fabs(fs[t] - fb[t]) > 2e-2 * fmax(1, fabs(fs[t]));
		else
			wrong += fabs(fs[t]) > 1e-2 && (fs[t] > 0) != (fb[t] > 0);
	}
	if (wrong)
		printf("%ld of %ld decisions differ (obj %.9g vs %.9g)\n", wrong, np, b.obj, s.obj);
	assert_int_equal(wrong, 0);
	svm_binary_free(&s);
	svm_binary_free(&b);
	svm_binary_free(&bs);
	free(fs);
	free(fb);
}

static void c_svc_kernels(void **state)
{
	(void)state;
	static const int kernels[] = { SVM_RBF, SVM_LINEAR, SVM_POLY };
	for (int k = 0; k < 3; k++) {
		prob pr;
		make_prob(&pr, SVM_C_SVC, 300 + 37 * k, 8, 100 + (uint64_t)k, 1.0, 1.0);
		compare(&pr, kernels[k], 0.2, 32, 0);
		free_prob(&pr);
	}
}

static void c_svc_weights_auto_q(void **state)
{
	(void)state;
	prob pr;
	make_prob(&pr, SVM_C_SVC, 400, 6, 7, 2.0, 0.5);   /* unequal Cp, Cn */
	compare(&pr, SVM_RBF, 0.5, 0, 0);
	compare(&pr, SVM_RBF, 0.5, 6, 0);
	free_prob(&pr);
}

static void regression_and_one_class(void **state)
{
	(void)state;
	prob pr;
	make_prob(&pr, SVM_EPSILON_SVR, 250, 5, 11, 1.0, 1.0);
	compare(&pr, SVM_RBF, 0.3, 64, 1);
	free_prob(&pr);
	make_prob(&pr, SVM_ONE_CLASS, 300, 6, 12, 1.0, 1.0);
	compare(&pr, SVM_RBF, 0.2, 16, 0);
	free_prob(&pr);
}

/* The same alpha bits on 1 and 2 threads (the rows and the gradient update
 * do not depend on how the points are split). */
static void threads_same_bits(void **state)
{
	(void)state;
	prob pr;
	svm_params p = params(SVM_RBF, 0.2, 1e-3, SVM_SOLVER_BATCH, 16);
	svm_binary a, b;
	rt_error err;
	int threads = cpu_threads();
	make_prob(&pr, SVM_C_SVC, 5000, 4, 21, 1.0, 1.0);
	cpu_set_threads(1);
	assert_int_equal(svm_batch_solve(&pr.d, pr.idx, pr.y, pr.n, &p, 1, 1, NULL, 0, &a, &err), RT_OK);
	cpu_set_threads(2);
	assert_int_equal(svm_batch_solve(&pr.d, pr.idx, pr.y, pr.n, &p, 1, 1, NULL, 0, &b, &err), RT_OK);
	cpu_set_threads(threads);
	assert_memory_equal(a.alpha, b.alpha, (size_t)pr.n * sizeof *a.alpha);
	assert_int_equal(a.iterations, b.iterations);
	svm_binary_free(&a);
	svm_binary_free(&b);
	free_prob(&pr);
}

/* The handcrafted case (Cp = Cn = 1): I_up by -yG: 3 (2), 0 (1), 5 (1),
 * 2 (0.5), 6 (-0.25); I_low by yG: 4 (3), 7 (3), 6 (0.25), 1 (-0.5), 2 (-0.5). */
static const signed char sel_y[8] = { 1, -1, 1, -1, 1, 1, -1, -1 };
static const double sel_alpha[8] = { 0, 0, 0.5, 1, 1, 0, 0.5, 0 };
static const double sel_G[8] = { -1, 0.5, -0.5, 2, 3, -1, -0.25, -3 };

static void select_order(long keep, const long *given, long q, const long *want)
{
	long ws[8];
	unsigned char mark[8] = { 0 };
	rt_error err;
	for (int rep = 0; rep < 2; rep++) {   /* deterministic */
		if (keep > 0)
			memcpy(ws, given, (size_t)keep * sizeof *ws);
		assert_int_equal(svm_batch_select(sel_alpha, sel_G, sel_y, 8, 1, 1, ws, keep, q, mark,
						  &err), RT_OK);
		assert_memory_equal(ws, want, (size_t)q * sizeof *ws);
		for (int i = 0; i < 8; i++)
			assert_int_equal(mark[i], 0);
	}
}

static void selection_rules(void **state)
{
	(void)state;
	rt_error err;
	long ws[8];
	unsigned char mark[8] = { 0 };
	select_order(0, NULL, 4, (const long[]){ 3, 4, 0, 7 });
	select_order(0, NULL, 8, (const long[]){ 3, 4, 0, 7, 5, 6, 2, 1 });
	select_order(2, (const long[]){ 4, 5 }, 6, (const long[]){ 4, 5, 3, 7, 0, 6 });
	/* no candidates (alpha 0, bounds 0): the smallest free indices */
	ws[0] = 2;
	assert_int_equal(svm_batch_select((const double[8]){ 0 }, sel_G, sel_y, 8, 0, 0, ws, 1, 4, mark, &err),
			 RT_OK);
	assert_memory_equal(ws, ((const long[]){ 2, 0, 1, 3 }), 4 * sizeof *ws);
	/* violation: max -yG over I_up (2) + max yG over I_low (3) */
	assert_true(svm_batch_violation(sel_alpha, sel_G, sel_y, 8, 1, 1) == 5.0);
}

/* The local SMO over a whole tiny problem, called until it takes no step,
 * makes SMO's steps: the same alpha bits and count as svm_solve_general. */
static void local_is_smo(void **state)
{
	(void)state;
	enum { N = 24 };
	prob pr;
	svm_params p = params(SVM_RBF, 0.5, 1e-3, SVM_SOLVER_SMO, 0);
	double a[N], g[N], Cw[N], QDw[N], sq[N], diff0;
	float Qw[N * N];
	svm_binary s;
	rt_error err;
	long steps = 0, took;
	make_prob(&pr, SVM_C_SVC, N, 3, 31, 1.0, 1.0);
	for (long k = 0; k < N; k++) {
		const float *x = pr.d.x + (size_t)k * pr.d.nfeat;
		sq[k] = svm_row_sq(&pr.d, k, pr.d.nfeat);
		a[k] = 0;
		g[k] = -1;
		Cw[k] = 1;
		QDw[k] = svm_kernel(&p.kernel, x, x, pr.d.nfeat, sq[k], sq[k]);
	}
	for (long k = 0; k < N; k++)
		assert_int_equal(svm_q_row_fill(&pr.d, pr.idx, pr.y, N, &p.kernel, sq, NULL, k,
						Qw + k * N, &err), RT_OK);
	while ((took = svm_batch_local(a, g, pr.y, Cw, QDw, Qw, N, p.eps, SVM_WSS_SECOND, &diff0)) > 0)
		steps += took;
	assert_int_equal(svm_solve_general(&pr.d, pr.idx, pr.y, N, &p, 1, 1, NULL, 0, &s, &err),
			 RT_OK);
	assert_true(steps > 0);
	assert_int_equal(steps, s.iterations);
	assert_memory_equal(a, s.alpha, sizeof a);
	svm_binary_free(&s);
	free_prob(&pr);
}

/* svm_batch_size's rule; svm_batch_wanted; the nu forms refused. */
static void size_and_refusals(void **state)
{
	(void)state;
	svm_params p = params(SVM_RBF, 0.5, 1e-3, SVM_SOLVER_BATCH, 0);
	svm_extra nu = { NULL, NULL, 1 };
	svm_binary b;
	rt_error err;
	prob pr;
	assert_int_equal(svm_batch_size(3, 0, 1e9), 0);
	assert_int_equal(svm_batch_size(5, 0, 1e9), 4);
	assert_int_equal(svm_batch_size(700, 0, 1e9), 512);
	assert_int_equal(svm_batch_size(100000, 0, 1e9), 1024);
	assert_int_equal(svm_batch_size(100000, 0, 100 * 1048576.0), 256);
	assert_int_equal(svm_batch_size(100000, 0, 1), 4);
	assert_int_equal(svm_batch_size(100, 64, 1), 64);
	assert_int_equal(svm_batch_size(31, 64, 1), 30);
	assert_true(svm_batch_wanted(&p, 100, NULL));
	assert_false(svm_batch_wanted(&p, 100, &nu));
	assert_false(svm_batch_wanted(&p, 3, NULL));
	p.solver = SVM_SOLVER_AUTO;
	assert_false(svm_batch_wanted(&p, 100000, NULL));
	p.solver = SVM_SOLVER_BATCH;
	make_prob(&pr, SVM_C_SVC, 40, 3, 41, 1.0, 1.0);
	assert_int_equal(svm_batch_solve(&pr.d, pr.idx, pr.y, pr.n, &p, 1, 1, &nu, 0, &b, &err),
			 RT_ERR_INPUT);
	assert_non_null(strstr(err.msg, "solver = batch does not take the nu forms"));
	p.type = SVM_NU_SVC;
	p.nu = 0.5;
	assert_int_equal(svm_params_check(&p, "svm", &err), RT_ERR_INPUT);
	p.type = SVM_C_SVC;
	p.batch_size = 6;
	assert_int_equal(svm_params_check(&p, "svm", &err), RT_OK);
	p.batch_size = 3;
	assert_int_equal(svm_params_check(&p, "svm", &err), RT_ERR_INPUT);
	free_prob(&pr);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(c_svc_kernels),
		cmocka_unit_test(c_svc_weights_auto_q),
		cmocka_unit_test(regression_and_one_class),
		cmocka_unit_test(threads_same_bits),
		cmocka_unit_test(selection_rules),
		cmocka_unit_test(local_is_smo),
		cmocka_unit_test(size_and_refusals),
	};
	return cmocka_run_group_tests(tests, setup, tmp_teardown);
}
