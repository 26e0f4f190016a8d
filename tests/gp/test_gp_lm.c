/* test_gp_lm.c: the GPU's Levenberg-Marquardt on GP constants
 * (gp_constopt_population_gpu, templates/gp/gp_lm.cu): the kernel compiles
 * with NVRTC for sm_90 at every stack depth (no GPU needed; registers and
 * spills printed); on a GPU, the fitted MSEs equal the host LM's on random
 * programs with and without linear scaling, recoverable constants are
 * recovered, and 1000 programs go in one call. `test_gp_lm bench` (GPU
 * only) prints programs per second for k = 100, 1000, 10000.
 * The fitted MSEs are equal bit for bit: both sides take gp_dmath.h's exp,
 * log, sin, cos and tanh and the same steps in the same order. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <cmocka.h>
#include "gen.h"
#include "gp/gp_constopt.h"
#include "gp/gp.h"
#include "gp/gp_conv.h"
#include "gp/gp_eval.h"
#include "gp/gp_problem.h"
#include "gp/gp_scale.h"
#include "gp/gp_tree.h"
#include "gpu.h"
#include "log.h"
#include "nvrtc.h"
#include "../test_gpu.h"
#include "out.h"
#include "rng.h"
#include "spec.h"
#include "../test_tmp.h"

/* ---- NVRTC: the kernel for sm_90, every stack depth ------------------------------ */

static void nvrtc_sm90(void **state)
{
	(void)state;
	rt_error err;
	static const char *const opts[] = { "--fmad=false", "-Xptxas", "-v" };
	if (nvrtc_open(&err) != RT_OK) {
		printf("skipped: no NVRTC (%s)\n", err.msg);
		skip();
	}
	for (int stack = 8; stack <= 64; stack *= 2) {
		gen_source src;
		nvrtc_output out = { 0 };
		nvrtc_usage u;
		assert_int_equal(gp_constopt_gpu_render(stack, &src, &err), RT_OK);
		if (nvrtc_compile(src.name, src.text.data, "sm_90", opts, 3, &out, &err) != RT_OK)
			fail_msg("%s: %s", src.name, err.msg);
		assert_int_equal(nvrtc_parse_usage(out.log, "gpl_lm", &u, &err), RT_OK);
		printf("%s: %d registers, stack frame %d bytes, spill stores %d, loads %d\n", src.name,
		       u.registers, u.stack_frame, u.spill_stores, u.spill_loads);
		assert_true(u.registers > 0 && u.registers <= 255);
		nvrtc_output_free(&out);
		gen_free(&src);
	}
}

/* ---- cases and programs ------------------------------------------------------------ */

/* y = 2.5 x0^2 + 0.7 sin(x0) (+ 0.1 x1, ignored by the recoverable programs
 * when `two` is 0) on n cases, x in [-3, 3). */
static void make_cases(gp_cases *c, int two, size_t n, int scale)
{
	rt_error err = {0};
	rt_rng rng;
	assert_int_equal(gp_cases_alloc_float(c, 2, n, &err), RT_OK);
	c->fitness = GP_FIT_MSE;
	rt_rng_init(&rng, 21, 0);
	for (size_t i = 0; i < n; i++) {
		double x0 = rt_rng_range(&rng, -3.0, 3.0), x1 = rt_rng_range(&rng, 0.5, 2.0);
		c->x[i] = (float)x0;
		c->x[c->stride + i] = (float)x1;
		c->y[i] = (float)(2.5 * x0 * x0 + 0.7 * sin(x0) + (two ? 0.1 * x1 : 0.0));
	}
	if (scale)
		assert_int_equal(gp_scale_prepare(c, &err), RT_OK);
}

static const int ops[] = { GP_OP_ADD, GP_OP_SUB, GP_OP_MUL, GP_OP_DIV, GP_OP_SIN, GP_OP_COS,
			   GP_OP_LOG, GP_OP_EXP, GP_OP_SQRT, GP_OP_SQUARE, GP_OP_TANH, GP_OP_AQ,
			   GP_OP_ABS, GP_OP_CUBE };

/* A random prefix program of depth <= d into nodes from *n on. */
static void grow(rt_rng *rng, gp_node *nodes, int *n, int d)
{
	if (d == 0 || (*n > 0 && rt_rng_range(rng, 0, 1) < 0.3)) {
		nodes[(*n)++] = rt_rng_range(rng, 0, 1) < 0.5
					? gp_var(rt_rng_range(rng, 0, 1) < 0.7 ? 0 : 1)
					: gp_const((float)rt_rng_range(rng, -2.0, 2.0));
		return;
	}
	int op = ops[(int)rt_rng_range(rng, 0, sizeof ops / sizeof *ops - 1e-9)];
	nodes[(*n)++] = gp_fn(op);
	for (int k = 0; k < gp_op_arity(op); k++)
		grow(rng, nodes, n, d - 1);
}

/* n random programs, each with at least one constant, and their fitness. */
static void random_programs(gp_tree *pop, double *fit, int n, uint64_t seed, const gp_cases *c)
{
	rt_error err = {0};
	rt_rng rng;
	gp_packed pk;
	gp_packed_init(&pk);
	rt_rng_init(&rng, seed, 0);
	for (int i = 0; i < n; i++) {
		gp_node nodes[256];
		int len = 0, idx[GP_CONSTOPT_MAX_CONSTS];
		do {
			len = 0;
			grow(&rng, nodes, &len, 2 + i % 5);
		} while (len < 3);
		memset(&pop[i], 0, sizeof pop[i]);
		assert_int_equal(gp_tree_set(&pop[i], nodes, len, &err), RT_OK);
		(void)idx;
		assert_int_equal(gp_constopt_fitness(&pk, &pop[i], c, &fit[i], &err), RT_OK);
	}
	gp_packed_free(&pk);
}

static void copy_pop(gp_tree *dst, const gp_tree *src, int n)
{
	rt_error err = {0};
	for (int i = 0; i < n; i++) {
		memset(&dst[i], 0, sizeof dst[i]);
		assert_int_equal(gp_tree_copy(&dst[i], &src[i], &err), RT_OK);
	}
}

static void free_pop(gp_tree *pop, int n)
{
	for (int i = 0; i < n; i++)
		gp_tree_free(&pop[i]);
}

/* ---- on the GPU: the host's results -------------------------------------------------- */

/* n random programs fitted by the host and by the GPU: the same MSEs, bit
 * for bit (a program that differs is printed). */
static void compare_random(int scale, uint64_t seed)
{
	enum { N = 300 };
	rt_error err = {0};
	gp_cases c;
	make_cases(&c, 1, 1000, scale);
	gp_tree *pop = calloc(N, sizeof *pop), *cpu = calloc(N, sizeof *cpu);
	double *fit = calloc(N, sizeof *fit), *fc = calloc(N, sizeof *fc), *fg = calloc(N, sizeof *fg);
	random_programs(pop, fit, N, seed, &c);
	copy_pop(cpu, pop, N);
	memcpy(fc, fit, N * sizeof *fit);
	memcpy(fg, fit, N * sizeof *fit);
	assert_int_equal(gp_constopt_population(cpu, fc, N, N, &c, 20, &err), RT_OK);
	gp_constopt_gpu *g;
	assert_int_equal(gp_constopt_gpu_open(&c, &g, &err), RT_OK);
	if (gp_constopt_population_gpu(g, pop, fg, N, N, &c, 20, &err) != RT_OK)
		fail_msg("%s", err.msg);
	int differ = 0, improved = 0;
	for (int i = 0; i < N; i++) {
		improved += fg[i] < fit[i];
		assert_true(!(fg[i] > fit[i]));
		if (fc[i] != fg[i]) {
			differ++;
			printf("note: scale %d program %d: host %.12g gpu %.12g (start %.12g)\n", scale, i,
			       fc[i], fg[i], fit[i]);
		}
	}
	printf("scale %d: %d of %d programs improved, %d differ from the host\n", scale, improved, N,
	       differ);
	assert_true(improved > N / 10);
	assert_int_equal(differ, 0);
	gp_constopt_gpu_close(g);
	free_pop(pop, N);
	free_pop(cpu, N);
	free(pop);
	free(cpu);
	free(fit);
	free(fc);
	free(fg);
	gp_cases_free(&c);
}

static void gpu_random_plain(void **state)
{
	(void)state;
	if (!test_have_gpu())
		skip();
	compare_random(0, 5);
}

static void gpu_random_scaled(void **state)
{
	(void)state;
	if (!test_have_gpu())
		skip();
	compare_random(1, 6);
}

/* y = 2.5 x^2 + 0.7 sin(x) from wrong constants: c1 x^2 + c2 sin(x) (plain),
 * x^2 + c sin(x) (scaled, c = 0.28) and exp(log c1) x^2 + sin(x) / sqrt(c2)
 * (protected log, exp, division, sqrt): host and GPU reach MSE < 1e-10 and
 * agree. */
static void gpu_recover(void **state)
{
	(void)state;
	if (!test_have_gpu())
		skip();
	rt_error err = {0};
	gp_node plain[] = { gp_fn(GP_OP_ADD), gp_fn(GP_OP_MUL), gp_const(1.0f), gp_fn(GP_OP_SQUARE),
			    gp_var(0), gp_fn(GP_OP_MUL), gp_const(-0.3f), gp_fn(GP_OP_SIN), gp_var(0) };
	gp_node scaled[] = { gp_fn(GP_OP_ADD), gp_fn(GP_OP_SQUARE), gp_var(0), gp_fn(GP_OP_MUL),
			     gp_const(1.5f), gp_fn(GP_OP_SIN), gp_var(0) };
	/* exp(log c1) x^2 + sin(x) / sqrt(c2): c1 = 2.5, c2 = 1 / 0.49 */
	gp_node guarded[] = { gp_fn(GP_OP_ADD), gp_fn(GP_OP_MUL), gp_fn(GP_OP_EXP), gp_fn(GP_OP_LOG),
			      gp_const(1.0f), gp_fn(GP_OP_SQUARE), gp_var(0), gp_fn(GP_OP_DIV),
			      gp_fn(GP_OP_SIN), gp_var(0), gp_fn(GP_OP_SQRT), gp_const(1.0f) };
	struct { const gp_node *nodes; int n, scale; } cases[] = {
		{ plain, 9, 0 }, { scaled, 7, 1 }, { guarded, 12, 0 },
	};
	for (int k = 0; k < 3; k++) {
		gp_cases c;
		make_cases(&c, 0, 1000, cases[k].scale);
		gp_tree t[2] = { {0}, {0} };
		double fit[2];
		gp_packed pk;
		gp_packed_init(&pk);
		for (int s = 0; s < 2; s++) {
			assert_int_equal(gp_tree_set(&t[s], cases[k].nodes, cases[k].n, &err), RT_OK);
			assert_int_equal(gp_constopt_fitness(&pk, &t[s], &c, &fit[s], &err), RT_OK);
		}
		assert_int_equal(gp_constopt_population(&t[0], &fit[0], 1, 1, &c, 50, &err), RT_OK);
		gp_constopt_gpu *g;
		assert_int_equal(gp_constopt_gpu_open(&c, &g, &err), RT_OK);
		if (gp_constopt_population_gpu(g, &t[1], &fit[1], 1, 1, &c, 50, &err) != RT_OK)
			fail_msg("%s", err.msg);
		printf("program %d: host mse %.3g, gpu mse %.3g\n", k, fit[0], fit[1]);
		if (!(fit[0] < 1e-10 && fit[1] < 1e-10) || fit[0] != fit[1])
			fail_msg("program %d: host %g gpu %g", k, fit[0], fit[1]);
		gp_constopt_gpu_close(g);
		gp_packed_free(&pk);
		gp_tree_free(&t[0]);
		gp_tree_free(&t[1]);
		gp_cases_free(&c);
	}
}

/* A program whose stack is deeper than the kernel's (a left-deep sum of 70
 * terms: 69 frames) is fitted on the host within the same call: the same
 * result as the host path. */
static void gpu_deep_on_host(void **state)
{
	(void)state;
	if (!test_have_gpu())
		skip();
	rt_error err = {0};
	gp_cases c;
	make_cases(&c, 0, 500, 0);
	gp_node nodes[220];
	int n = 0;
	for (int k = 0; k < 69; k++)
		nodes[n++] = gp_fn(GP_OP_ADD);
	nodes[n++] = gp_const(0.5f);
	for (int k = 0; k < 69; k++)
		nodes[n++] = gp_fn(GP_OP_SQUARE), nodes[n++] = gp_var(0);
	gp_tree t[2] = { {0}, {0} };
	double fit[2];
	gp_packed pk;
	gp_packed_init(&pk);
	for (int s = 0; s < 2; s++) {
		assert_int_equal(gp_tree_set(&t[s], nodes, n, &err), RT_OK);
		assert_int_equal(gp_constopt_fitness(&pk, &t[s], &c, &fit[s], &err), RT_OK);
	}
	assert_int_equal(gp_constopt_population(&t[0], &fit[0], 1, 1, &c, 10, &err), RT_OK);
	gp_constopt_gpu *g;
	assert_int_equal(gp_constopt_gpu_open(&c, &g, &err), RT_OK);
	if (gp_constopt_population_gpu(g, &t[1], &fit[1], 1, 1, &c, 10, &err) != RT_OK)
		fail_msg("%s", err.msg);
	assert_true(fit[0] == fit[1]);
	assert_true(t[0].nodes[69].value == t[1].nodes[69].value);
	gp_constopt_gpu_close(g);
	gp_packed_free(&pk);
	gp_tree_free(&t[0]);
	gp_tree_free(&t[1]);
	gp_cases_free(&c);
}

/* 1000 programs in one call: every fitness as low or lower, many lower. */
static void gpu_thousand(void **state)
{
	(void)state;
	enum { N = 1000 };
	if (!test_have_gpu())
		skip();
	rt_error err = {0};
	gp_cases c;
	make_cases(&c, 1, 2000, 1);
	gp_tree *pop = calloc(N, sizeof *pop);
	double *fit = calloc(N, sizeof *fit), *f0 = calloc(N, sizeof *f0);
	random_programs(pop, fit, N, 7, &c);
	memcpy(f0, fit, N * sizeof *fit);
	gp_constopt_gpu *g;
	assert_int_equal(gp_constopt_gpu_open(&c, &g, &err), RT_OK);
	if (gp_constopt_population_gpu(g, pop, fit, N, N, &c, 30, &err) != RT_OK)
		fail_msg("%s", err.msg);
	int better = 0;
	for (int i = 0; i < N; i++) {
		assert_true(!(fit[i] > f0[i]));
		better += fit[i] < f0[i];
	}
	printf("1000 programs: %d improved, kernel %.2f ms\n", better, gp_constopt_gpu_last_ms(g));
	assert_true(better > N / 10);
	gp_constopt_gpu_close(g);
	free_pop(pop, N);
	free(pop);
	free(fit);
	free(f0);
	gp_cases_free(&c);
}

/* ---- in a run: gp_evolve_with with the device's LM (as gp.c sets it for GPU runs) ---- */

static rt_status eval_lgp2d(void *ctx, const gp_packed *pop, const gp_cases *cases,
			    double *fitness, rt_error *err)
{
	(void)ctx;
	return gp_eval_cpu(pop, cases, GP_EVAL_LGP2D, fitness, err);
}

/* y = 2.5 sin(1.7 x) + 0.3 x^2, population 200, 8 generations, the 20 best
 * fitted each generation: the run with the GPU's LM completes, its best is
 * the evaluator's fitness of its best program, and it is printed beside
 * the host LM's run (the same when both LMs give the same floats). */
static void gpu_in_run(void **state)
{
	(void)state;
	if (!test_have_gpu())
		skip();
	char path[300], text[900];
	rt_buf b = {0};
	rt_rng rng;
	rt_rng_init(&rng, 8, 0);
	rt_buf_puts(&b, "x,y\n");
	for (int i = 0; i < 500; i++) {
		double x = rt_rng_range(&rng, -3.0, 3.0);
		rt_buf_printf(&b, "%.6f,%.9g\n", x, 2.5 * sin(1.7 * x) + 0.3 * x * x);
	}
	snprintf(path, sizeof path, "%s/run.csv", tmpdir);
	FILE *f = fopen(path, "w");
	assert_non_null(f);
	fputs(b.data, f);
	fclose(f);
	rt_buf_free(&b);
	double best[2];
	for (int k = 0; k < 2; k++) {
		rt_error err = {0};
		rt_spec spec;
		gp_problem p;
		gp_result r;
		memset(&spec, 0, sizeof spec);
		memset(&p, 0, sizeof p);
		snprintf(text, sizeof text, "[problem]\nkind = gp\n[gp]\npopulation = 200\n"
			 "generations = 8\nstop_on_success = false\noptimise_constants = 20\n"
			 "functions = + - * / sin cos exp log sqrt square\n[data]\n"
			 "source = csv\nfile = %s\nlabel = y\nfitness = mse\n", path);
		assert_int_equal(rt_spec_load_text(&spec, "t.ini", text, &err), RT_OK);
		assert_int_equal(gp_problem_load(&spec, &p, &err), RT_OK);
		gp_evaluator ev = { .eval = eval_lgp2d, .form = GP_FORM_LGP };
		if (k)
			assert_int_equal(gp_constopt_gpu_open(&p.cases, &ev.constopt, &err), RT_OK);
		if (gp_evolve_with(&p, 3, &ev, &r, &err) != RT_OK)
			fail_msg("%s", err.msg);
		gp_constopt_gpu_close(ev.constopt);
		best[k] = r.best_fitness;
		gp_packed pk;
		gp_packed_init(&pk);
		double fb;
		assert_int_equal(gp_pack_lgp(&pk, &r.best, 1, &err), RT_OK);
		assert_int_equal(gp_eval_cpu(&pk, &p.cases, GP_EVAL_LGP2D, &fb, &err), RT_OK);
		assert_true(fb == r.best_fitness && isfinite(fb));
		gp_packed_free(&pk);
		gp_result_free(&r);
		gp_problem_free(&p);
		rt_spec_free(&spec);
	}
	printf("best fitness: host LM %.9g, gpu LM %.9g\n", best[0], best[1]);
}

/* ---- bench ---------------------------------------------------------------------------- */

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* Programs per second, GPU (kernel alone and the whole call) and host. */
static int bench(void)
{
	rt_error err = {0};
	gp_cases c;
	if (!test_have_gpu())
		return 0;
	make_cases(&c, 1, 10000, 1);
	for (int k = 100; k <= 10000; k *= 10) {
		gp_tree *pop = calloc((size_t)k, sizeof *pop), *cpu = calloc((size_t)k, sizeof *cpu);
		double *fit = calloc((size_t)k, sizeof *fit), *fc = calloc((size_t)k, sizeof *fc);
		random_programs(pop, fit, k, 9, &c);
		int kc = k < 1000 ? k : 1000;
		copy_pop(cpu, pop, kc);
		memcpy(fc, fit, (size_t)k * sizeof *fit);
		gp_constopt_gpu *g;
		if (gp_constopt_gpu_open(&c, &g, &err) || gp_constopt_gpu_ready(g, &err)) {
			printf("bench: %s\n", err.msg);
			return 1;
		}
		double t0 = now_s();
		if (gp_constopt_population_gpu(g, pop, fit, k, k, &c, 30, &err)) {
			printf("bench: %s\n", err.msg);
			return 1;
		}
		double tg = now_s() - t0, ms = gp_constopt_gpu_last_ms(g);
		t0 = now_s();
		if (gp_constopt_population(cpu, fc, kc, kc, &c, 30, &err)) {
			printf("bench: %s\n", err.msg);
			return 1;
		}
		double tc = now_s() - t0;
		printf("k %5d, 30 steps, 10000 cases (256 fitted): gpu kernel %.2f ms (%.0f programs/s), "
		       "gpu call %.3f s (%.0f programs/s), host %.3f s for %d (%.0f programs/s, 1 thread)\n",
		       k, ms, k / (ms * 1e-3), tg, k / tg, tc, kc, kc / tc);
		gp_constopt_gpu_close(g);
		free_pop(pop, k);
		free_pop(cpu, kc);
		free(pop);
		free(cpu);
		free(fit);
		free(fc);
	}
	gp_cases_free(&c);
	return 0;
}

static int group_setup(void **state)
{
	(void)state;
	return tmp_setup("gp-lm");
}

int main(int argc, char **argv)
{
	if (argc > 1 && strcmp(argv[1], "bench") == 0)
		return bench();
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(nvrtc_sm90),
		cmocka_unit_test(gpu_recover),
		cmocka_unit_test(gpu_random_plain),
		cmocka_unit_test(gpu_random_scaled),
		cmocka_unit_test(gpu_deep_on_host),
		cmocka_unit_test(gpu_thousand),
		cmocka_unit_test(gpu_in_run),
	};
	return cmocka_run_group_tests(tests, group_setup, tmp_teardown);
}
