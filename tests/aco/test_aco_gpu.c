/* test_aco_gpu.c: the GPU side of kind `aco`: the generated source
 * (deterministic, the job's constants), every job shape compiled by NVRTC
 * for sm_90 with -Xptxas -v and no spills in the kernels (no GPU needed),
 * no driver -> RT_ERR_NOGPU, and, where a GPU is present, both construction
 * kernels against the CPU backend over a few MAX-MIN iterations: every
 * ant's tour and length, the iteration best, saved tours and lambda-branching
 * counts bit for bit. GPU tests skip (with a SKIP line) without a driver. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "aco/aco_impl.h"
#include "gen.h"
#include "gpu.h"
#include "nvrtc.h"

/* ---- jobs ------------------------------------------------------------------------ */

/* A whole exponent 0..16, else -1 (as aco_job_from_spec decides). */
static int whole(double x)
{
	return x >= 0 && x <= 16 && x == (double)(int)x ? (int)x : -1;
}

/* A random uniform instance of n cities, prepared. */
static void make_job(aco_job *job, int n, int cand, double alpha, double beta, int ls, int construct,
		     int ants)
{
	rt_error err;
	aco_job_default(job);
	snprintf(job->name, sizeof job->name, "test-n%d-c%d-a%g-b%g-ls%d-k%d", n, cand, alpha, beta, ls,
		 construct);
	job->random_n = n;
	job->cand_len = cand;
	job->alpha = alpha;
	job->beta = beta;
	job->alpha_int = whole(alpha);
	job->beta_int = whole(beta);
	job->local_search = ls;
	job->construct = construct;
	job->ants = ants;
	job->seed = 12345;
	if (aco_job_prepare(job, &err) != RT_OK)
		fail_msg("aco_job_prepare: %s", err.msg);
	aco_job_finish(job, 1);
}

/* Whether templates/aco/aco_ls.h has landed (defines aco_local_search). */
static int have_ls(void)
{
	const gen_file *f = gen_embedded("templates/aco/aco_ls.h");
	return f && strstr(f->text, "aco_local_search") != NULL;
}

/* ---- the generated source -------------------------------------------------------- */

static void test_source(void **state)
{
	(void)state;
	rt_error err;
	aco_job job;
	gen_source a, b;
	make_job(&job, 100, 20, 1.0, 2.0, ACO_LS_NONE, ACO_CONSTRUCT_WARP, 64);
	assert_int_equal(aco_gpu_source(&job, &a, &err), RT_OK);
	assert_int_equal(aco_gpu_source(&job, &b, &err), RT_OK);
	assert_int_equal(a.text.len, b.text.len);
	assert_memory_equal(a.text.data, b.text.data, a.text.len);
	assert_non_null(strstr(a.text.data, "do not edit"));
	assert_non_null(strstr(a.text.data, "#define ACO_N 100\n"));
	assert_non_null(strstr(a.text.data, "#define ACO_CAND 20\n"));
	assert_non_null(strstr(a.text.data, "#define ACO_ANTS 64\n"));
	assert_non_null(strstr(a.text.data, "#define ACO_ALPHA_INT 1\n"));
	assert_non_null(strstr(a.text.data, "#define ACO_CAND_SHARED 1\n"));
	assert_non_null(strstr(a.text.data, "aco_construct_warp"));
	assert_non_null(strstr(a.name, "aco-"));
	gen_free(&a);
	gen_free(&b);
	aco_job_free(&job);

	make_job(&job, 100, 0, 1.5, 2.5, ACO_LS_NONE, ACO_CONSTRUCT_THREAD, 64);
	assert_int_equal(aco_gpu_source(&job, &a, &err), RT_OK);
	assert_non_null(strstr(a.text.data, "#define ACO_CAND 0\n"));
	assert_non_null(strstr(a.text.data, "#define ACO_ALPHA_INT -1\n"));
	assert_non_null(strstr(a.text.data, "#define ACO_ALPHA (1.500000000e+00f)\n"));
	assert_non_null(strstr(a.text.data, "#define ACO_CAND_SHARED 0\n"));
	gen_free(&a);
	aco_job_free(&job);
}

/* ---- NVRTC: every job shape for sm_90, no spills ------------------------------------ */

static int have_nvrtc(void)
{
	rt_error err;
	if (nvrtc_open(&err) != RT_OK) {
		printf("SKIP aco_gpu: no NVRTC (%s)\n", err.msg);
		return 0;
	}
	return 1;
}

/* Compiles the job's source and checks every kernel's ptxas report. */
static void compile_job(const aco_job *job)
{
	static const char *const kernels[] = {
		"aco_choice_all", "aco_compact", "aco_construct_thread", "aco_construct_warp",
		"aco_local", "aco_best", "aco_save", "aco_links", "aco_update", "aco_branching", NULL
	};
	rt_error err;
	gen_source src;
	nvrtc_output out = { 0 };
	nvrtc_usage u;
	int nopt;
	const char *const *opts = aco_gpu_nvrtc_options(&nopt);
	assert_int_equal(aco_gpu_source(job, &src, &err), RT_OK);
	if (nvrtc_compile(src.name, src.text.data, "sm_90", opts, nopt, &out, &err) != RT_OK)
		fail_msg("%s: %s", job->name, err.msg);
	for (int k = 0; kernels[k]; k++) {
		if (nvrtc_parse_usage(out.log, kernels[k], &u, &err) != RT_OK)
			fail_msg("%s: %s: %s", job->name, kernels[k], err.msg);
		if (u.spill_stores != 0 || u.spill_loads != 0)
			fail_msg("%s: %s: %d bytes spill stores, %d spill loads, %d registers", job->name,
				 kernels[k], u.spill_stores, u.spill_loads, u.registers);
		assert_true(u.registers > 0 && u.registers <= 255);
		if (!strcmp(kernels[k], "aco_construct_warp"))
			assert_true(u.registers <= 64);   /* __launch_bounds__(1024) */
	}
	nvrtc_output_free(&out);
	gen_free(&src);
}

/* Builds the job, compiles it, frees it. */
static void compile_shape(int n, int cand, double alpha, double beta, int ls)
{
	aco_job job;
	make_job(&job, n, cand, alpha, beta, ls, ACO_CONSTRUCT_WARP, n);
	compile_job(&job);
	aco_job_free(&job);
}

static void test_nvrtc_small(void **state)
{
	(void)state;
	if (!have_nvrtc())
		skip();
	compile_shape(100, 20, 1.0, 2.0, ACO_LS_NONE);
	compile_shape(100, 0, 1.0, 2.0, ACO_LS_NONE);
	compile_shape(100, 20, 1.5, 2.5, ACO_LS_NONE);
	compile_shape(100, 40, 2.0, 5.0, ACO_LS_NONE);   /* two chunks */
	compile_shape(37, 0, 0.5, 3.0, ACO_LS_NONE);     /* full choice, two chunks, ragged */
}

static void test_nvrtc_large(void **state)
{
	(void)state;
	if (!have_nvrtc())
		skip();
	compile_shape(1002, 20, 1.0, 2.0, ACO_LS_NONE);  /* candidate table in shared memory */
	compile_shape(1002, 0, 1.0, 2.0, ACO_LS_NONE);
	compile_shape(3000, 20, 1.5, 2.5, ACO_LS_NONE);  /* 480 KB: table in global memory */
}

static void test_nvrtc_ls(void **state)
{
	(void)state;
	if (!have_nvrtc())
		skip();
	if (!have_ls()) {
		printf("SKIP aco_gpu: local search not compiled (templates/aco/aco_ls.h has no "
		       "aco_local_search yet)\n");
		skip();
	}
	for (int ls = ACO_LS_2OPT; ls <= ACO_LS_OROPT; ls++) {
		compile_shape(100, 20, 1.0, 2.0, ls);
		compile_shape(1002, 20, 1.0, 2.0, ls);
	}
	compile_shape(200, 0, 1.5, 2.5, ACO_LS_2OPT);
}

/* ---- no driver ---------------------------------------------------------------------- */

static int gpu_present(void)
{
	rt_error err;
	int n = 0;
	return gpu_open(&err) == RT_OK && gpu_device_count(&n, &err) == RT_OK && n > 0;
}

static void test_no_driver(void **state)
{
	(void)state;
	rt_error err;
	aco_job job;
	aco_backend *b = (aco_backend *)&job;
	if (gpu_present())
		skip();   /* a GPU is present: the GPU tests cover it */
	make_job(&job, 50, 10, 1.0, 2.0, ACO_LS_NONE, ACO_CONSTRUCT_WARP, 16);
	assert_int_equal(aco_gpu_create(&job, 0.01f, &b, &err), RT_ERR_NOGPU);
	assert_null(b);
	aco_job_free(&job);
}

/* ---- on the GPU: against the CPU backend --------------------------------------------- */

static int have_gpu(void)
{
	rt_error err;
	if (!gpu_present() || nvrtc_open(&err) != RT_OK) {
		printf("SKIP aco_gpu: no GPU driver or device: the GPU-vs-CPU tests did not run\n");
		return 0;
	}
	return 1;
}

/* Both backends' tours and lengths, equal bit for bit. */
static void same_tours(const aco_job *job, aco_backend *c, aco_backend *g, int it)
{
	rt_error err;
	size_t tn = (size_t)job->ants * job->n;
	int *tc = malloc(tn * sizeof *tc), *tg = malloc(tn * sizeof *tg);
	int64_t *lc = malloc((size_t)job->ants * sizeof *lc), *lg = malloc((size_t)job->ants * sizeof *lg);
	assert_int_equal(c->ops->tours(c, tc, lc, &err), RT_OK);
	assert_int_equal(g->ops->tours(g, tg, lg, &err), RT_OK);
	for (int a = 0; a < job->ants; a++)
		if (lc[a] != lg[a] || memcmp(tc + (size_t)a * job->n, tg + (size_t)a * job->n,
					     (size_t)job->n * sizeof *tc))
			fail_msg("%s: iteration %d ant %d: CPU length %lld, GPU %lld (%s)", job->name, it, a,
				 (long long)lc[a], (long long)lg[a], g->detail);
	free(tc);
	free(tg);
	free(lc);
	free(lg);
}

/* One MAX-MIN iteration on both; checks everything that crosses. */
static void step_both(const aco_job *job, aco_backend *c, aco_backend *g, int it, int64_t *best)
{
	rt_error err;
	int64_t lc, lg;
	int ac, ag;
	long bc, bg;
	int *sc = malloc((size_t)job->n * sizeof *sc), *sg = malloc((size_t)job->n * sizeof *sg);
	assert_int_equal(c->ops->construct(c, (uint32_t)it, &err), RT_OK);
	if (g->ops->construct(g, (uint32_t)it, &err) != RT_OK)
		fail_msg("%s", err.msg);
	same_tours(job, c, g, it);
	assert_int_equal(c->ops->iteration_best(c, &lc, &ac, &err), RT_OK);
	assert_int_equal(g->ops->iteration_best(g, &lg, &ag, &err), RT_OK);
	assert_int_equal(lc, lg);
	assert_int_equal(ac, ag);
	if (lc < *best) {
		*best = lc;
		assert_int_equal(c->ops->save(c, ac, ACO_SLOT_BEST, sc, &err), RT_OK);
		assert_int_equal(g->ops->save(g, ag, ACO_SLOT_BEST, sg, &err), RT_OK);
		assert_memory_equal(sc, sg, (size_t)job->n * sizeof *sc);
	}
	float keep = (float)(1.0 - job->rho), tmax = (float)(1.0 / (job->rho * (double)*best));
	float tmin = tmax / (float)(2 * job->n), dep = (float)(1.0 / (double)lc);
	int slot = it % 2 ? ACO_SLOT_BEST : -1;   /* alternate best-so-far and the iteration best */
	assert_int_equal(c->ops->update(c, slot, ac, keep, dep, tmin, tmax, &err), RT_OK);
	assert_int_equal(g->ops->update(g, slot, ag, keep, dep, tmin, tmax, &err), RT_OK);
	assert_int_equal(c->ops->branching(c, 0.05f, &bc, &err), RT_OK);
	assert_int_equal(g->ops->branching(g, 0.05f, &bg, &err), RT_OK);
	assert_int_equal(bc, bg);
	free(sc);
	free(sg);
}

/* K iterations of one job on both backends, a reset half-way. */
static void check_job(int n, int cand, double alpha, double beta, int ls, int construct, int ants,
		      int iterations)
{
	rt_error err;
	aco_job job;
	aco_backend *c = NULL, *g = NULL;
	int64_t best = INT64_MAX;
	make_job(&job, n, cand, alpha, beta, ls, construct, ants);
	float tau0 = aco_tau0(&job);
	assert_int_equal(aco_cpu_create(&job, tau0, &c, &err), RT_OK);
	if (aco_gpu_create(&job, tau0, &g, &err) != RT_OK)
		fail_msg("%s", err.msg);
	printf("%s: %s\n", job.name, g->detail);
	for (int it = 0; it < iterations; it++) {
		if (it == iterations / 2) {
			assert_int_equal(c->ops->reset(c, tau0 * 0.5f, &err), RT_OK);
			assert_int_equal(g->ops->reset(g, tau0 * 0.5f, &err), RT_OK);
		}
		step_both(&job, c, g, it, &best);
	}
	c->ops->destroy(c);
	g->ops->destroy(g);
	aco_job_free(&job);
}

static void test_gpu_candidates(void **state)
{
	(void)state;
	if (!have_gpu())
		skip();
	for (int k = ACO_CONSTRUCT_THREAD; k <= ACO_CONSTRUCT_WARP; k++) {
		check_job(100, 20, 1.0, 2.0, ACO_LS_NONE, k, 100, 6);
		check_job(200, 10, 1.5, 2.5, ACO_LS_NONE, k, 77, 6);
		check_job(150, 40, 2.0, 5.0, ACO_LS_NONE, k, 64, 6);
		check_job(1002, 20, 1.0, 2.0, ACO_LS_NONE, k, 256, 3);
	}
}

static void test_gpu_full(void **state)
{
	(void)state;
	if (!have_gpu())
		skip();
	for (int k = ACO_CONSTRUCT_THREAD; k <= ACO_CONSTRUCT_WARP; k++) {
		check_job(100, 0, 1.0, 2.0, ACO_LS_NONE, k, 100, 6);
		check_job(37, 0, 0.5, 3.0, ACO_LS_NONE, k, 40, 6);
		check_job(500, 0, 1.0, 2.0, ACO_LS_NONE, k, 64, 3);
	}
}

static void test_gpu_ls(void **state)
{
	(void)state;
	if (!have_gpu())
		skip();
	if (!have_ls()) {
		printf("SKIP aco_gpu: local search not compiled (no aco_local_search yet)\n");
		skip();
	}
	for (int ls = ACO_LS_2OPT; ls <= ACO_LS_OROPT; ls++)
		for (int k = ACO_CONSTRUCT_THREAD; k <= ACO_CONSTRUCT_WARP; k++)
			check_job(200, 20, 1.0, 2.0, ls, k, 25, 4);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_source),
		cmocka_unit_test(test_nvrtc_small),
		cmocka_unit_test(test_nvrtc_large),
		cmocka_unit_test(test_nvrtc_ls),
		cmocka_unit_test(test_no_driver),
		cmocka_unit_test(test_gpu_candidates),
		cmocka_unit_test(test_gpu_full),
		cmocka_unit_test(test_gpu_ls),
	};
	return cmocka_run_group_tests_name("aco_gpu", tests, NULL, NULL);
}
