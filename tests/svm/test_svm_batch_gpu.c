/* test_svm_batch_gpu.c: the GPU side of the batched working-set solver
 * (svm_gpu_batch.c, templates/svm/svm_batch.cu). Everywhere: the generated
 * module compiles under NVRTC for sm_90 for every kernel type, both rules,
 * dense and sparse rows, without spills in the local SMO (also with 128
 * and 1024 threads). With a GPU (else skipped with the reason):
 * svm_gpu_batch_solve gives the CPU's svm_batch_solve bit for bit (alpha,
 * rho, objective, steps) on fresh random dense and sparse data, RBF and
 * linear, C-SVC and epsilon-SVR, the q x q block in shared and in global
 * memory, q a multiple of 32 or not, one to four points a thread;
 * and svm_train on the GPU with solver = batch reaches SMO's objective. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "gpu.h"
#include "log.h"
#include "nvrtc.h"
#include "../test_gpu.h"
#include "rng.h"
#include "svm/svm_batch.h"

static void params(svm_params *p, int kernel, double C, double gamma, int wss, long q)
{
	memset(p, 0, sizeof *p);
	p->type = SVM_C_SVC;
	p->kernel.type = kernel;
	p->kernel.gamma = gamma;
	p->kernel.degree = 3;
	p->C = C;
	p->eps = 1e-3;
	p->cache_mb = 100;
	p->wss = wss;
	p->solver = SVM_SOLVER_BATCH;
	p->batch_size = q;
	p->limit_expected = 1;
}

/* n points of nf features, about half of them 0 (so that sparse rows
 * differ from dense ones), labels +1/-1 from a noisy plane; sparse: as
 * CSR rows. */
static void make_data(svm_data *d, long n, int nf, uint64_t seed, int sparse)
{
	rt_rng rng;
	rt_error err;
	rt_rng_init(&rng, seed, 0);
	assert_int_equal(svm_data_alloc(d, n, nf, &err), RT_OK);
	for (long i = 0; i < n; i++) {
		double s = 0;
		for (int f = 0; f < nf; f++) {
			float v = rt_rng_uniform(&rng) < 0.5f ? 0.0f : (float)rt_rng_range(&rng, -1, 1);
			d->x[(size_t)i * nf + f] = v;
			s += (f % 3 - 1) * v;
		}
		d->y[i] = s + 0.3 * rt_rng_normal(&rng) > 0 ? 1 : -1;
	}
	if (sparse)
		assert_int_equal(svm_data_make_sparse(d, &err), RT_OK);
}

static int same_bits(const void *a, const void *b, size_t bytes)
{
	return memcmp(a, b, bytes) == 0;
}

/* One problem by both solvers: the same alpha, rho, objective and steps. */
static void both(const char *what, const svm_data *d, const long *idx, const signed char *y,
		 long n, const svm_params *p, double Cp, double Cn, const svm_extra *ex)
{
	svm_binary cpu, gpu;
	rt_error err;
	long diff = 0;
	if (svm_batch_solve(d, idx, y, n, p, Cp, Cn, ex, 0, &cpu, &err) != RT_OK)
		fail_msg("%s: CPU: %s", what, err.msg);
	if (svm_gpu_batch_solve(d, idx, y, n, p, Cp, Cn, ex, 0, &gpu, &err) != RT_OK)
		fail_msg("%s: GPU: %s", what, err.msg);
	for (long t = 0; t < n; t++)
		diff += !same_bits(&cpu.alpha[t], &gpu.alpha[t], sizeof(double));
	printf("  %-34s steps %ld / %ld, obj %.10g / %.10g, rho %.10g / %.10g, %ld alpha differ\n",
	       what, cpu.iterations, gpu.iterations, cpu.obj, gpu.obj, cpu.rho, gpu.rho, diff);
	assert_true(cpu.iterations > 0);
	assert_int_equal(cpu.iterations, gpu.iterations);
	assert_int_equal(diff, 0);
	assert_true(same_bits(&cpu.rho, &gpu.rho, sizeof(double)));
	assert_true(same_bits(&cpu.obj, &gpu.obj, sizeof(double)));
	assert_int_equal(cpu.nsv, gpu.nsv);
	svm_binary_free(&cpu);
	svm_binary_free(&gpu);
}

/* C-SVC on all of d's points. */
static void csvc(const char *what, const svm_data *d, const svm_params *p, double Cp, double Cn)
{
	long n = d->n, *idx = malloc((size_t)n * sizeof *idx);
	signed char *y = malloc((size_t)n);
	assert_non_null(idx);
	assert_non_null(y);
	for (long t = 0; t < n; t++) {
		idx[t] = t;
		y[t] = d->y[t] > 0 ? 1 : -1;
	}
	both(what, d, idx, y, n, p, Cp, Cn, NULL);
	free(idx);
	free(y);
}

/* epsilon-SVR as LIBSVM poses it: 2l points (each point twice, signs +1
 * then -1), linear term p_eps - z and p_eps + z, z a smooth target. */
static void svr(const char *what, const svm_data *d, const svm_params *p)
{
	long l = d->n, n = 2 * l, *idx = malloc((size_t)n * sizeof *idx);
	signed char *y = malloc((size_t)n);
	double *lin = malloc((size_t)n * sizeof *lin);
	svm_extra ex = { NULL, NULL, 0 };
	rt_rng rng;
	assert_true(idx && y && lin);
	rt_rng_init(&rng, 99, 0);
	for (long t = 0; t < l; t++) {
		double z = d->y[t] + 0.2 * rt_rng_normal(&rng);
		idx[t] = idx[t + l] = t;
		y[t] = 1;
		y[t + l] = -1;
		lin[t] = 0.1 - z;
		lin[t + l] = 0.1 + z;
	}
	ex.lin = lin;
	both(what, d, idx, y, n, p, p->C, p->C, &ex);
	free(idx);
	free(y);
	free(lin);
}

static void gpu_equals_cpu(void **state)
{
	svm_data dense, sparse;
	svm_params p;
	(void)state;
	if (!test_have_gpu())
		skip();
	make_data(&dense, 3000, 24, 7, 0);
	make_data(&sparse, 2500, 40, 8, 1);
	params(&p, SVM_RBF, 1, 0.5, SVM_WSS_SECOND, 64);
	csvc("dense rbf q 64 (shared)", &dense, &p, 1, 1);
	setenv("EVOFORGE_SVM_BATCH_SMEM", "0", 1);
	csvc("dense rbf q 64 (global)", &dense, &p, 1, 1);
	unsetenv("EVOFORGE_SVM_BATCH_SMEM");
	params(&p, SVM_RBF, 4, 0.2, SVM_WSS_FIRST, 256);
	csvc("dense rbf wss first q 256", &dense, &p, 4, 4);
	params(&p, SVM_LINEAR, 0.5, 0, SVM_WSS_SECOND, 100);
	csvc("dense linear Cp 0.5 Cn 1 q 100", &dense, &p, 0.5, 1);
	params(&p, SVM_RBF, 2, 0.1, SVM_WSS_SECOND, 128);
	csvc("sparse rbf q 128", &sparse, &p, 2, 2);
	params(&p, SVM_LINEAR, 1, 0, SVM_WSS_FIRST, 1024);
	csvc("sparse linear wss first q 1024", &sparse, &p, 1, 1);
	params(&p, SVM_RBF, 2, 0.3, SVM_WSS_SECOND, 600);
	csvc("dense rbf q 600 (3 points a thread)", &dense, &p, 2, 2);
	params(&p, SVM_RBF, 1, 0.5, SVM_WSS_SECOND, 1024);
	csvc("dense rbf q 1024", &dense, &p, 1, 1);
	params(&p, SVM_RBF, 1, 0.5, SVM_WSS_FIRST, 520);
	csvc("sparse rbf wss first q 520", &sparse, &p, 1, 1);
	params(&p, SVM_RBF, 1, 0.5, SVM_WSS_SECOND, 64);
	p.type = SVM_EPSILON_SVR;
	svr("eps-SVR dense rbf q 64", &dense, &p);
	params(&p, SVM_LINEAR, 1, 0, SVM_WSS_SECOND, 256);
	p.type = SVM_EPSILON_SVR;
	svr("eps-SVR sparse linear q 256", &sparse, &p);
	svm_data_free(&dense);
	svm_data_free(&sparse);
}

/* svm_train's GPU path with solver = batch (one problem after another)
 * against SMO on three classes: the same objective within LIBSVM's
 * tolerance, every pair. */
static void train_dispatch(void **state)
{
	svm_data d;
	svm_params p;
	svm_model batch, smo;
	rt_error err;
	(void)state;
	if (!test_have_gpu())
		skip();
	make_data(&d, 1800, 16, 11, 0);
	for (long i = 0; i < d.n; i++)
		d.y[i] = (double)(1 + i % 3);
	params(&p, SVM_RBF, 1, 0.5, SVM_WSS_SECOND, 0);
	p.gpu = 1;
	if (svm_train(&d, &p, &batch, &err) != RT_OK)
		fail_msg("batch: %s", err.msg);
	p.solver = SVM_SOLVER_SMO;
	if (svm_train(&d, &p, &smo, &err) != RT_OK)
		fail_msg("smo: %s", err.msg);
	for (int q = 0; q < 3; q++) {
		printf("  pair %d: objective %.10g (batch), %.10g (smo)\n", q, batch.obj[q], smo.obj[q]);
		assert_true(fabs(batch.obj[q] - smo.obj[q]) <= 1e-3 * fabs(smo.obj[q]));
	}
	svm_model_free(&batch);
	svm_model_free(&smo);
	svm_data_free(&d);
}

/* The module of kernel k, rule w, dense or sparse compiles for sm_90 and
 * its kernels do not spill. */
static void compile_one(int k, int w, int sparse)
{
	rt_error err;
	int nopt;
	const char *const *opts = svm_gpu_nvrtc_options(&nopt);
	const char *names[] = { "svm_batch_local", "svm_batch_rows", "svm_batch_grad" };
	svm_params p;
	gen_source src;
	nvrtc_output out;
	nvrtc_usage u;
	memset(&src, 0, sizeof src);
	params(&p, k, 1, 0.5, w, 0);
	assert_int_equal(svm_gpu_batch_source(&p, sparse ? -1000 : 123, &src, &err), RT_OK);
	if (nvrtc_compile(src.name, src.text.data, "sm_90", opts, nopt, &out, &err) != RT_OK)
		fail_msg("%s", err.msg);
	for (int e = 0; e < 3; e++) {
		if (nvrtc_parse_usage(out.log, names[e], &u, &err) != RT_OK)
			fail_msg("%s: %s", names[e], err.msg);
		printf("  %-30s %-15s %3d registers, %d bytes spilled, %d bytes stack\n", src.name,
		       names[e], u.registers, u.spill_stores + u.spill_loads, u.stack_frame);
		if (u.spill_stores + u.spill_loads != 0)
			fail_msg("%s (%s): %d bytes spilled", names[e], src.name,
				 u.spill_stores + u.spill_loads);
	}
	nvrtc_output_free(&out);
	gen_free(&src);
}

/* Every kernel type and rule, dense and sparse, compiles for sm_90; the
 * local SMO and the rows without spills; the local SMO also with 128 and
 * 1024 threads (EVOFORGE_SVM_BATCH_LOCAL_THREADS: 8 and 1 points a
 * thread). */
static void batch_kernels_compile(void **state)
{
	rt_error err;
	int maj, min;
	(void)state;
	if (nvrtc_open(&err) != RT_OK || nvrtc_version(&maj, &min, &err) != RT_OK) {
		printf("SKIP: NVRTC not available: %s\n", err.msg);
		skip();
	}
	for (int k = 0; k < 4; k++)
		for (int w = 0; w < 2; w++)
			for (int sparse = 0; sparse < 2; sparse++)
				if (!sparse || k == SVM_RBF || !w)   /* sparse rows: rule-blind */
					compile_one(k, w, sparse);
	const char *threads[] = { "128", "1024" };
	for (int t = 0; t < 2; t++) {
		printf("  EVOFORGE_SVM_BATCH_LOCAL_THREADS=%s\n", threads[t]);
		setenv("EVOFORGE_SVM_BATCH_LOCAL_THREADS", threads[t], 1);
		for (int w = 0; w < 2; w++)
			compile_one(SVM_RBF, w, 0);
		unsetenv("EVOFORGE_SVM_BATCH_LOCAL_THREADS");
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(batch_kernels_compile),
		cmocka_unit_test(gpu_equals_cpu),
		cmocka_unit_test(train_dispatch),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
