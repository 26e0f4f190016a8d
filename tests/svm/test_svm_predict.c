/* test_svm_predict.c: batched prediction (svm_predict.c). The CPU batch
 * path gives svm_predict's labels on fresh random data for every kernel
 * type, binary and multi-class (also with fewer features than the model),
 * and decision values that are LIBSVM's sums; svm_predict_all's accuracy and
 * its GPU-or-CPU fallback; the prediction kernels compile under NVRTC for
 * sm_90 without spills. The GPU itself is checked on the device machine by
 * svm_predict_driver. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "nvrtc.h"
#include "rng.h"
#include "svm/svm_impl.h"

#include "../test_tmp.h"

static int setup(void **state)
{
	(void)state;
	return tmp_setup("svm-predict");
}

/* n points of k overlapping Gaussian blobs in nf dimensions (labels -1/+1
 * for k = 2, else 1..k). */
static void blobs(svm_data *d, long n, int nf, int k, uint64_t seed)
{
	rt_rng rng;
	rt_error err;
	rt_rng_init(&rng, seed, 0);
	assert_int_equal(svm_data_alloc(d, n, nf, &err), RT_OK);
	for (long i = 0; i < n; i++) {
		int c = (int)(i % k);
		d->y[i] = k == 2 ? 2 * c - 1 : c + 1;
		for (int j = 0; j < nf; j++)
			d->x[i * nf + j] = (float)(rt_rng_normal(&rng) + (j % k == c ? 1.0 : 0.0));
	}
}

static void train(const svm_data *d, int type, svm_model *m)
{
	svm_params p = { .kernel = { .type = type, .degree = 2, .gamma = 0.3, .coef0 = 0.5 },
			 .C = 2, .eps = 1e-3, .cache_mb = 10 };
	rt_error err;
	if (type == SVM_SIGMOID)
		p.kernel = (svm_kernel_params){ SVM_SIGMOID, 3, 0.05, -0.2 };
	if (svm_train(d, &p, m, &err) != RT_OK)
		fail_msg("%s", err.msg);
}

/* LIBSVM's decision value of pair (a, b) for point x, written out plainly. */
static double reference_decision(const svm_model *m, const float *x, int nf, int a, int b, int p)
{
	long start = 0, as = 0, bs = 0;
	double sqx = 0, sum = 0;
	for (int c = 0; c < m->nr_class; c++) {
		as = c == a ? start : as;
		bs = c == b ? start : bs;
		start += m->nsv[c];
	}
	for (int f = 0; f < nf; f++)
		sqx += (double)x[f] * x[f];
	for (int side = 0; side < 2; side++) {
		long s0 = side ? bs : as, ns = m->nsv[side ? b : a];
		const double *coef = m->sv_coef + (size_t)(side ? a : b - 1) * m->total_sv;
		for (long s = s0; s < s0 + ns; s++) {
			const float *v = m->sv + (size_t)s * m->nfeat;
			double sqv = 0;
			for (int f = 0; f < m->nfeat; f++)
				sqv += (double)v[f] * v[f];
			sum += coef[s] * svm_kernel(&m->kernel, x, v, nf, sqx, sqv);
		}
	}
	return sum - m->rho[p];
}

/* The batch's labels are svm_predict's, its decision values the plain sums. */
static void check_model(const svm_model *m, const svm_data *t)
{
	int npairs = m->nr_class * (m->nr_class - 1) / 2;
	double *pred = malloc((size_t)t->n * sizeof *pred);
	double *dec = malloc((size_t)t->n * npairs * sizeof *dec);
	rt_error err;
	assert_int_equal(svm_predict_batch_cpu(m, t, pred, dec, &err), RT_OK);
	for (long i = 0; i < t->n; i++) {
		const float *x = t->x + (size_t)i * t->nfeat;
		int nf = t->nfeat < m->nfeat ? t->nfeat : m->nfeat;
		assert_true(pred[i] == svm_predict(m, x, t->nfeat));
		for (int a = 0, p = 0; a < m->nr_class; a++)
			for (int b = a + 1; b < m->nr_class; b++, p++) {
				double want = reference_decision(m, x, nf, a, b, p);
				double got = dec[(size_t)i * npairs + p];
				if (got != want)   /* the same sums in the same order */
					fail_msg("point %ld pair %d: %.17g, expected %.17g", i, p, got, want);
			}
	}
	free(pred);
	free(dec);
}

static void cpu_batch_matches_svm_predict(void **state)
{
	(void)state;
	for (int type = 0; type < 4; type++)
		for (int k = 2; k <= 5; k += 3) {
			svm_data d, t;
			svm_model m;
			blobs(&d, 150, 6, k, 10 + type);
			train(&d, type, &m);
			blobs(&t, 301, 6, k, 100 + type);   /* fresh points */
			check_model(&m, &t);
			t.nfeat = 4;   /* fewer features than the model: svm_predict's rule */
			check_model(&m, &t);
			svm_data_free(&t);
			svm_data_free(&d);
			svm_model_free(&m);
		}
}

/* svm_predict_all: svm_predict's labels and their accuracy on the CPU; the GPU, where there
 * is one, the same labels; with none, the fallback predicts on the CPU and
 * SVM_PREDICT_GPU fails. */
static void predict_all(void **state)
{
	svm_data d, t;
	svm_model m;
	rt_error err;
	double *a = malloc(400 * sizeof *a), *b = malloc(400 * sizeof *b), acc, acc2;
	(void)state;
	blobs(&d, 200, 5, 3, 3);
	train(&d, SVM_RBF, &m);
	blobs(&t, 400, 5, 3, 4);
	acc = 0;
	for (long i = 0; i < t.n; i++) {
		a[i] = svm_predict(&m, t.x + i * t.nfeat, t.nfeat);
		acc += (a[i] == t.y[i]) / (double)t.n;
	}
	assert_int_equal(svm_predict_all(&m, &t, SVM_PREDICT_CPU, b, &acc2, &err), RT_OK);
	assert_memory_equal(a, b, 400 * sizeof *a);
	assert_true(fabs(acc - acc2) < 1e-12 && acc > 0.5);
	memset(b, 0, 400 * sizeof *b);
	assert_int_equal(svm_predict_all(&m, &t, SVM_PREDICT_GPU_OR_CPU, b, NULL, &err), RT_OK);
	assert_memory_equal(a, b, 400 * sizeof *a);
	rt_status st = svm_predict_all(&m, &t, SVM_PREDICT_GPU, b, &acc2, &err);
	if (st == RT_OK)
		assert_memory_equal(a, b, 400 * sizeof *a);
	else
		assert_true(st == RT_ERR_NOGPU || st == RT_ERR_CUDA || st == RT_ERR_NVRTC);
	m.nr_class = 257;
	assert_int_equal(svm_predict_batch_cpu(&m, &t, b, NULL, &err), RT_ERR_UNSUPPORTED);
	assert_non_null(strstr(err.msg, "257 classes"));
	m.nr_class = 3;
	free(a);
	free(b);
	svm_data_free(&t);
	svm_data_free(&d);
	svm_model_free(&m);
}

/* Every kernel type, a feature count below, at and above the staging
 * chunk: the three kernels compile for sm_90 with no spills. (One feature
 * with RBF: ptxas keeps 8 bytes on the stack around exp's slow path; not
 * tested.) */
static void gpu_kernels_compile(void **state)
{
	static const char *const kernels[] = { "svm_predict_kv", "svm_predict_decision",
					       "svm_predict_vote" };
	static const int nfeats[] = { 2, 16, 123 };
	rt_error err;
	int nopt, maj, min;
	const char *const *opts = svm_gpu_nvrtc_options(&nopt);
	(void)state;
	if (nvrtc_open(&err) != RT_OK || nvrtc_version(&maj, &min, &err) != RT_OK) {
		printf("SKIP: NVRTC not available: %s\n", err.msg);
		skip();
	}
	for (int type = 0; type < 4; type++)
		for (int f = 0; f < 3; f++) {
			svm_model m = { .kernel = { .type = type } };
			gen_source src;
			nvrtc_output out;
			memset(&src, 0, sizeof src);
			assert_int_equal(svm_gpu_predict_source(&m, nfeats[f], &src, &err), RT_OK);
			if (nvrtc_compile(src.name, src.text.data, "sm_90", opts, nopt, &out, &err) != RT_OK)
				fail_msg("%s", err.msg);
			for (int k = 0; k < 3; k++) {
				nvrtc_usage u;
				if (nvrtc_parse_usage(out.log, kernels[k], &u, &err) != RT_OK)
					fail_msg("%s: %s", src.name, err.msg);
				if (u.spill_stores + u.spill_loads != 0)
					fail_msg("%s: %s spills (%d/%d bytes)", src.name, kernels[k],
						 u.spill_stores, u.spill_loads);
			}
			nvrtc_output_free(&out);
			gen_free(&src);
		}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(cpu_batch_matches_svm_predict),
		cmocka_unit_test(predict_all),
		cmocka_unit_test(gpu_kernels_compile),
	};
	return cmocka_run_group_tests(tests, setup, tmp_teardown);
}
