/* test_gp_gpu.c: the GPU GP evaluators: variant names, the generated source
 * (deterministic, only the problem's functions dispatched), every variant
 * compiled by NVRTC for sm_90 with -Xptxas -v and no spills (no GPU needed),
 * and, where a GPU is present, every variant's fitness against the CPU's on
 * random populations of regression, classification and Boolean problems,
 * plus the asynchronous (double-buffered) pair. GPU tests skip without a
 * driver. */
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
#include "gen.h"
#include "gp/gp.h"
#include "log.h"
#include "spec.h"
#include "gp/gp_conv.h"
#include "gp/gp_eval.h"
#include "gp/gp_gpu.h"
#include "gp/gp_problem.h"
#include "gp/gp_scale.h"
#include "gp/gp_tree.h"
#include "gpu.h"
#include "nvrtc.h"
#include "../test_gpu.h"
#include "rng.h"

/* ---- problems ------------------------------------------------------------------ */

static void sextic(gp_cases *c, gp_fset *fs, long n)
{
	rt_error err;
	assert_int_equal(gp_cases_polynomial(c, GP_DATA_SEXTIC, n, -1.0, 1.0, 7, &err), RT_OK);
	assert_int_equal(gp_fset_parse(fs, "+ - * / sin cos log exp", 1, &err), RT_OK);
}

/* A 3-class problem on 4 inputs with every float function (comparisons,
 * IF, AND, OR), constants included. */
static void classes(gp_cases *c, gp_fset *fs, long n)
{
	rt_error err;
	rt_rng rng;
	assert_int_equal(gp_cases_alloc_float(c, 4, (size_t)n, &err), RT_OK);
	c->fitness = GP_FIT_CLASS;
	c->nclasses = 3;
	rt_rng_init(&rng, 11, 0);
	for (long i = 0; i < n; i++) {
		for (int k = 0; k < 4; k++)
			c->x[(size_t)k * c->stride + (size_t)i] = (float)(rt_rng_uniform(&rng) * 20.0 - 10.0);
		c->y[i] = (float)(i % 3);
	}
	assert_int_equal(gp_fset_parse(fs, "+ - * / > < == AND OR IF sin cos log exp", 4, &err), RT_OK);
	fs->use_consts = 1;
	fs->const_min = -5.0f;
	fs->const_max = 5.0f;
	fs->const_prob = 0.3;
}

/* Symbolic regression's functions (sqrt square cube pow4 tanh abs aq and
 * the named constants pi, e) on 3 inputs spanning large magnitudes, so
 * that the powers saturate and sqrt sees negatives; target sqrt(x1^2 + x2^2). */
static void sr(gp_cases *c, gp_fset *fs, long n)
{
	rt_error err;
	rt_rng rng;
	assert_int_equal(gp_cases_alloc_float(c, 3, (size_t)n, &err), RT_OK);
	c->fitness = GP_FIT_MSE;
	rt_rng_init(&rng, 13, 0);
	for (long i = 0; i < n; i++) {
		for (int k = 0; k < 3; k++)
			c->x[(size_t)k * c->stride + (size_t)i] =
				(float)((rt_rng_uniform(&rng) * 2.0 - 1.0) * (k == 2 ? 1e12 : 5.0));
		double a = c->x[i], b = c->x[c->stride + (size_t)i];
		c->y[i] = (float)sqrt(a * a + b * b);
	}
	assert_int_equal(gp_fset_parse(fs, "+ - * / sqrt square cube pow4 tanh abs aq exp pi e",
				       3, &err), RT_OK);
	assert_int_equal(fs->nnamed, 2);
	fs->use_consts = 1;
	fs->const_min = -2.0f;
	fs->const_max = 2.0f;
	fs->const_prob = 0.2;
}

static void mux(gp_cases *c, gp_fset *fs, int k)
{
	rt_error err;
	assert_int_equal(gp_cases_multiplexer(c, k, &err), RT_OK);
	assert_int_equal(gp_fset_parse(fs, "and or nand nor", c->ninputs, &err), RT_OK);
}

/* ---- names and sources ------------------------------------------------------------ */

static void test_variant_names(void **state)
{
	(void)state;
	rt_error err;
	gp_gpu_config c, d;
	char buf[96];
	for (int i = 0; gp_gpu_variants[i]; i++) {
		assert_int_equal(gp_gpu_variant_parse(gp_gpu_variants[i], &c, &err), RT_OK);
		gp_gpu_variant_name(&c, buf, sizeof buf);
		assert_string_equal(buf, gp_gpu_variants[i]);
		assert_int_equal(gp_gpu_variant_parse(buf, &d, &err), RT_OK);
		assert_memory_equal(&c, &d, sizeof c);
	}
	assert_int_equal(gp_gpu_variant_parse("lgp-float4-t512-cm1-s16-r3", &c, &err), RT_OK);
	assert_int_equal(c.width, 4);
	assert_int_equal(c.threads, 512);
	assert_int_equal(c.regs, 3);
	assert_int_equal(c.stack, 16);
	gp_gpu_config_default(&c);
	assert_string_equal(gp_gpu_variant_name(&c, buf, sizeof buf), GP_GPU_DEFAULT_VARIANT);
	assert_int_equal(gp_gpu_variant_parse("lgp-float5", &c, &err), RT_ERR_INPUT);
	assert_int_equal(gp_gpu_variant_parse("blockgp-t100", &c, &err), RT_ERR_INPUT);
	assert_int_equal(gp_gpu_variant_parse("lgp2d-1", &c, &err), RT_ERR_INPUT);
	assert_int_equal(gp_gpu_variant_parse("blockgp-q3", &c, &err), RT_ERR_INPUT);
	assert_int_equal(gp_gpu_variant_parse("", &c, &err), RT_ERR_INPUT);
	assert_int_equal(gp_gpu_variant_parse("lgp-f4x5", &c, &err), RT_ERR_INPUT);
	/* A trailing '-' (heap copy: a read past its end would show under ASan). */
	char *dash = strdup("blockgp-");
	assert_non_null(dash);
	assert_int_equal(gp_gpu_variant_parse(dash, &c, &err), RT_ERR_INPUT);
	free(dash);
}

/* The GPG_DISPATCH block of a generated source. */
static char *dispatch_block(const char *text)
{
	const char *a = strstr(text, "#define GPG_DISPATCH(X)");
	const char *b = a ? strstr(a, "end of GPG_DISPATCH") : NULL;
	assert_non_null(b);
	char *s = malloc((size_t)(b - a) + 1);
	memcpy(s, a, (size_t)(b - a));
	s[b - a] = '\0';
	return s;
}

static void test_source(void **state)
{
	(void)state;
	rt_error err;
	gp_cases c;
	gp_fset fs;
	gp_gpu_config cfg;
	gen_source a, b;
	sextic(&c, &fs, 1000);
	assert_int_equal(gp_fset_parse(&fs, "+ - * /", 1, &err), RT_OK);
	gp_gpu_config_default(&cfg);
	assert_int_equal(gp_gpu_render(&c, &fs, &cfg, &a, &err), RT_OK);
	assert_int_equal(gp_gpu_render(&c, &fs, &cfg, &b, &err), RT_OK);
	assert_int_equal(a.text.len, b.text.len);
	assert_memory_equal(a.text.data, b.text.data, a.text.len);
	assert_non_null(strstr(a.text.data, "do not edit"));
	char *d = dispatch_block(a.text.data);
	assert_non_null(strstr(d, "X(ADD, 2, (a + b))"));
	assert_non_null(strstr(d, "X(DIV, 2, gp_pdiv(a, b))"));
	assert_null(strstr(d, "SIN"));
	assert_null(strstr(d, "IF"));
	assert_null(strstr(d, "BAND"));
	assert_non_null(strstr(a.text.data, "#define GP_USE_SIN 0"));
	assert_non_null(strstr(a.text.data, "#define GP_USE_MUL 1"));
	free(d);
	gen_free(&a);
	gen_free(&b);
	gp_cases_free(&c);

	mux(&c, &fs, 1);
	assert_int_equal(gp_gpu_render(&c, &fs, &cfg, &a, &err), RT_OK);
	d = dispatch_block(a.text.data);
	assert_non_null(strstr(d, "X(BNAND, 2,"));
	assert_null(strstr(d, "X(ADD"));
	assert_null(strstr(d, "BIF"));
	assert_non_null(strstr(a.text.data, "#define GPG_BOOL 1"));
	free(d);
	gen_free(&a);
	gp_cases_free(&c);
}

/* ---- NVRTC: every variant for sm_90, no spills ------------------------------------ */

static void compile_all(const gp_cases *c, const gp_fset *fs, const char *what, int stack)
{
	rt_error err;
	int nvariants = 0;
	for (int i = 0; gp_gpu_variants[i]; i++) {
		gp_gpu_config cfg;
		gen_source src;
		nvrtc_output out = { 0 };
		nvrtc_usage u;
		assert_int_equal(gp_gpu_variant_parse(gp_gpu_variants[i], &cfg, &err), RT_OK);
		cfg.stack = stack;
		assert_int_equal(gp_gpu_render(c, fs, &cfg, &src, &err), RT_OK);
		rt_status st = nvrtc_compile(src.name, src.text.data, "sm_90", gp_gpu_nvrtc_options,
					     gp_gpu_nvrtc_noptions, &out, &err);
		if (st != RT_OK)
			fail_msg("%s (%s): %s", gp_gpu_variants[i], what, err.msg);
		assert_int_equal(nvrtc_parse_usage(out.log, "gpg_eval", &u, &err), RT_OK);
		/* The stack frame is local memory by design: the stack slots above
		 * the register levels (all of them for blockgp and rpn2d, as in the
		 * seed's BlockGP). Spills: none, except a few bytes that ptxas
		 * reports for some variants whose dispatch has IEEE division next
		 * to the transcendentals (registers saved around a call on a slow
		 * path); they are printed, and more than 32 bytes fail. */
		if (u.spill_stores != 0 || u.spill_loads != 0)
			printf("note: %s (%s): %d bytes spill stores, %d spill loads, %d registers\n",
			       gp_gpu_variants[i], what, u.spill_stores, u.spill_loads, u.registers);
		if (u.spill_stores > 32 || u.spill_loads > 32)
			fail_msg("%s (%s): %d bytes spill stores, %d spill loads, %d registers",
				 gp_gpu_variants[i], what, u.spill_stores, u.spill_loads, u.registers);
		assert_true(u.registers > 0 && u.registers <= 255);
		assert_int_equal(nvrtc_parse_usage(out.log, "gpg_finish", &u, &err), RT_OK);
		nvrtc_output_free(&out);
		gen_free(&src);
		nvariants++;
	}
	assert_true(nvariants >= 15);
}

static int have_nvrtc(void)
{
	rt_error err;
	if (nvrtc_open(&err) != RT_OK) {
		printf("skipped: no NVRTC (%s)\n", err.msg);
		return 0;
	}
	return 1;
}

static void test_nvrtc_regression(void **state)
{
	(void)state;
	gp_cases c;
	gp_fset fs;
	if (!have_nvrtc())
		skip();
	sextic(&c, &fs, 1000);
	compile_all(&c, &fs, "sextic, stack 8", 8);
	gp_cases_free(&c);
}

/* Linear scaling (gp_scale.h): the three-sum reduction, every variant. */
static void test_nvrtc_scaled(void **state)
{
	(void)state;
	gp_cases c;
	gp_fset fs;
	rt_error err;
	if (!have_nvrtc())
		skip();
	sr(&c, &fs, 1000);
	assert_int_equal(gp_scale_prepare(&c, &err), RT_OK);
	compile_all(&c, &fs, "linear scaling, stack 8", 8);
	gp_cases_free(&c);
}

static void test_nvrtc_classes(void **state)
{
	(void)state;
	gp_cases c;
	gp_fset fs;
	if (!have_nvrtc())
		skip();
	classes(&c, &fs, 1000);
	compile_all(&c, &fs, "classes, stack 16", 16);
	gp_cases_free(&c);
}

static void test_nvrtc_sr(void **state)
{
	(void)state;
	gp_cases c;
	gp_fset fs;
	if (!have_nvrtc())
		skip();
	sr(&c, &fs, 1000);
	compile_all(&c, &fs, "symbolic regression functions, stack 8", 8);
	gp_cases_free(&c);
}

static void test_nvrtc_bool(void **state)
{
	(void)state;
	gp_cases c;
	gp_fset fs;
	if (!have_nvrtc())
		skip();
	mux(&c, &fs, 2);
	compile_all(&c, &fs, "6-multiplexer, stack 8", 8);
	gp_cases_free(&c);
}

/* ---- on the GPU --------------------------------------------------------------------- */

static void check_problem(gp_cases *c, gp_fset *fs, int nprogs)
{
	rt_error err;
	gp_breed b = gp_breed_defaults();
	rt_status st = gp_gpu_check(c, fs, &b, nprogs, 5, NULL, stdout, &err);
	if (st != RT_OK)
		fail_msg("%s", err.msg);
}

static void test_gpu_sextic(void **state)
{
	(void)state;
	gp_cases c;
	gp_fset fs;
	if (!test_have_gpu())
		skip();
	sextic(&c, &fs, 10007);
	check_problem(&c, &fs, 64);
	gp_cases_free(&c);
}

/* Linear scaling: every variant's scaled MSE against the CPU's (within
 * GP_GPU_MSE_TOL of var y: gp_gpu_check), sextic and the SR functions. */
static void test_gpu_scaled(void **state)
{
	(void)state;
	gp_cases c;
	gp_fset fs;
	rt_error err;
	if (!test_have_gpu())
		skip();
	sextic(&c, &fs, 10007);
	assert_int_equal(gp_scale_prepare(&c, &err), RT_OK);
	check_problem(&c, &fs, 64);
	gp_cases_free(&c);
	sr(&c, &fs, 5003);
	assert_int_equal(gp_scale_prepare(&c, &err), RT_OK);
	check_problem(&c, &fs, 64);
	gp_cases_free(&c);
}

static void test_gpu_classes(void **state)
{
	(void)state;
	gp_cases c;
	gp_fset fs;
	if (!test_have_gpu())
		skip();
	classes(&c, &fs, 5003);
	check_problem(&c, &fs, 64);
	gp_cases_free(&c);
}

static void test_gpu_sr(void **state)
{
	(void)state;
	gp_cases c;
	gp_fset fs;
	if (!test_have_gpu())
		skip();
	sr(&c, &fs, 5003);
	check_problem(&c, &fs, 64);
	gp_cases_free(&c);
}

static void test_gpu_mux(void **state)
{
	(void)state;
	gp_cases c;
	gp_fset fs;
	if (!test_have_gpu())
		skip();
	mux(&c, &fs, 2);   /* 64 cases: 2 words, the last one full */
	check_problem(&c, &fs, 64);
	gp_cases_free(&c);
	mux(&c, &fs, 1);   /* 8 cases: one masked word */
	check_problem(&c, &fs, 64);
	gp_cases_free(&c);
	mux(&c, &fs, 3);
	check_problem(&c, &fs, 64);
	gp_cases_free(&c);
}

/* Two evaluations in flight give what the synchronous call gives. */
static void test_gpu_async(void **state)
{
	(void)state;
	rt_error err;
	gp_cases c;
	gp_fset fs;
	gp_tree trees[2][40];
	gp_packed pk[2];
	double f[2][40], ref[2][40];
	gp_gpu *g;
	gp_breed b = gp_breed_defaults();
	if (!test_have_gpu())
		skip();
	sextic(&c, &fs, 4096);
	memset(trees, 0, sizeof trees);
	assert_int_equal(gp_gpu_open(&c, &fs, NULL, &g, &err), RT_OK);
	for (int k = 0; k < 2; k++) {
		gp_packed_init(&pk[k]);
		assert_int_equal(gp_init_population(trees[k], 40, &fs, &b, 100 + (uint64_t)k, &err), RT_OK);
		assert_int_equal(gp_pack_lgp(&pk[k], trees[k], 40, &err), RT_OK);
		assert_int_equal(gp_gpu_eval(g, &pk[k], ref[k], NULL, &err), RT_OK);
	}
	assert_int_equal(gp_gpu_eval_start(g, &pk[0], &err), RT_OK);
	assert_int_equal(gp_gpu_eval_start(g, &pk[1], &err), RT_OK);
	assert_int_equal(gp_gpu_eval_start(g, &pk[1], &err), RT_ERR_INPUT);
	gp_gpu_stats st;
	assert_int_equal(gp_gpu_eval_finish(g, f[0], &st, &err), RT_OK);
	assert_int_equal(gp_gpu_eval_finish(g, f[1], &st, &err), RT_OK);
	assert_int_equal(gp_gpu_eval_finish(g, f[1], &st, &err), RT_ERR_INPUT);
	assert_memory_equal(f, ref, sizeof f);
	assert_true(st.nodes > 0);
	gp_gpu_close(g);
	for (int k = 0; k < 2; k++) {
		for (int i = 0; i < 40; i++)
			gp_tree_free(&trees[k][i]);
		gp_packed_free(&pk[k]);
	}
	gp_cases_free(&c);
}

/* Without a driver, opening says so (RT_ERR_NOGPU), never crashes. */
static void test_no_driver(void **state)
{
	(void)state;
	rt_error err;
	gp_cases c;
	gp_fset fs;
	gp_gpu *g = NULL;
	int n = 0;
	if (gpu_open(&err) == RT_OK && gpu_device_count(&n, &err) == RT_OK && n > 0)
		skip();   /* a GPU is present: the GPU tests cover it */
	sextic(&c, &fs, 100);
	assert_int_equal(gp_gpu_open(&c, &fs, NULL, &g, &err), RT_ERR_NOGPU);
	assert_null(g);
	gp_cases_free(&c);
}

/* ---- host side of full runs (no GPU needed) --------------------------------------- */

/* Sequential reference packing (the pre-parallel gp_pack_lgp / gp_pack_rpn). */
static void pack_sequential(gp_packed *out, const gp_tree *t, int n, int form)
{
	rt_error err;
	size_t total = 0;
	for (int i = 0; i < n; i++)
		total += (size_t)t[i].n;
	out->nprogs = n;
	out->form = form;
	out->offset = calloc((size_t)n + 1, sizeof *out->offset);
	out->const_offset = calloc((size_t)n + 1, sizeof *out->const_offset);
	out->max_stack = calloc((size_t)n, sizeof *out->max_stack);
	out->nnodes = calloc((size_t)n, sizeof *out->nnodes);
	out->rpn = calloc(total, sizeof *out->rpn);
	out->lgp = calloc(total, sizeof *out->lgp);
	out->consts = calloc(total + 1, sizeof *out->consts);
	uint32_t pos = 0, cpos = 0;
	for (int i = 0; i < n; i++) {
		gp_node *tmp = out->rpn + (form == GP_FORM_RPN ? pos : 0);
		out->offset[i] = pos;
		out->const_offset[i] = cpos;
		int ms = gp_tree_to_rpn(t[i].nodes, t[i].n, form == GP_FORM_RPN ? tmp : out->rpn);
		assert_true(ms > 0);
		out->nnodes[i] = (uint32_t)t[i].n;
		if (form == GP_FORM_RPN) {
			out->max_stack[i] = (uint16_t)ms;
			pos += (uint32_t)t[i].n;
			continue;
		}
		int nc, nk;
		assert_int_equal(gp_lgp_from_rpn(out->rpn, t[i].n, out->lgp + pos, &nc, out->consts + cpos,
						 &nk, &ms, &err), RT_OK);
		out->max_stack[i] = (uint16_t)ms;
		pos += (uint32_t)nc;
		cpos += (uint32_t)nk;
	}
	out->offset[n] = pos;
	out->const_offset[n] = cpos;
}

static void same_packed(const gp_packed *a, const gp_packed *b)
{
	int n = a->nprogs;
	assert_int_equal(a->nprogs, b->nprogs);
	assert_int_equal(a->form, b->form);
	assert_memory_equal(a->offset, b->offset, ((size_t)n + 1) * sizeof *a->offset);
	assert_memory_equal(a->const_offset, b->const_offset, ((size_t)n + 1) * sizeof *a->offset);
	assert_memory_equal(a->max_stack, b->max_stack, (size_t)n * sizeof *a->max_stack);
	assert_memory_equal(a->nnodes, b->nnodes, (size_t)n * sizeof *a->nnodes);
	if (a->form == GP_FORM_RPN) {
		assert_memory_equal(a->rpn, b->rpn, a->offset[n] * sizeof *a->rpn);
	} else {
		assert_memory_equal(a->lgp, b->lgp, a->offset[n] * sizeof *a->lgp);
		if (a->const_offset[n])
			assert_memory_equal(a->consts, b->consts, a->const_offset[n] * sizeof *a->consts);
	}
}

/* Parallel packing is the sequential packing byte for byte (populations
 * large enough to be split over threads, with constants), at any offset
 * into a population and after repacking into the same buffers; a bad tree
 * is reported by its (lowest) index. */
static void test_parallel_packing(void **state)
{
	(void)state;
	rt_error err;
	gp_cases c;
	gp_fset fs;
	gp_breed br = gp_breed_defaults();
	enum { N = 700 };
	gp_tree *t = calloc(N, sizeof *t);
	gp_packed par, seq;
	classes(&c, &fs, 64);
	br.init_min_depth = 2;
	br.init_max_depth = 7;
	assert_int_equal(gp_init_population(t, N, &fs, &br, 5, &err), RT_OK);
	gp_packed_init(&par);
	for (int form = 0; form < 2; form++) {
		for (int r = 0; r < 3; r++) {
			int lo = r == 1 ? 13 : 0, n = r == 2 ? 40 : N - lo;
			memset(&seq, 0, sizeof seq);
			pack_sequential(&seq, t + lo, n, form);
			assert_int_equal(form == GP_FORM_LGP ? gp_pack_lgp(&par, t + lo, n, &err)
							    : gp_pack_rpn(&par, t + lo, n, &err), RT_OK);
			same_packed(&par, &seq);
			gp_packed_free(&seq);
		}
	}
	/* Programs 300 and 500 malformed: the error names 300. */
	t[500].n = 1;
	t[300].nodes[0] = gp_var(0);
	assert_int_equal(gp_pack_lgp(&par, t, N, &err), RT_ERR_INTERNAL);
	assert_non_null(strstr(err.msg, "program 300"));
	t[300].n = 2;
	assert_int_equal(gp_pack_rpn(&par, t, N, &err), RT_ERR_INTERNAL);
	assert_non_null(strstr(err.msg, "program 300"));
	gp_packed_free(&par);
	for (int i = 0; i < N; i++)
		gp_tree_free(&t[i]);
	free(t);
	gp_cases_free(&c);
}

/* Sequential reference encoding (the pre-parallel encode of gp_gpu.c). */
static void encode_sequential(const gp_packed *pop, int is_bool, uint32_t dstride, void *host,
			      uint32_t *smem, int *need)
{
	size_t np = (size_t)pop->nprogs, cu = pop->offset[np];
	size_t code_b = (np * 16 + 255) / 256 * 256;
	size_t consts_b = code_b + (pop->form == GP_FORM_LGP ? (cu * 16 + 255) / 256 * 256
							     : ((cu + np) * 8 + 255) / 256 * 256);
	uint32_t *progs = host, *code = (uint32_t *)((char *)host + code_b);
	uint32_t *consts = (uint32_t *)((char *)host + consts_b);
	uint32_t ci = 0, ki = 0, big = 0;
	int deep = 1;
	for (int p = 0; p < pop->nprogs; p++) {
		uint32_t b = pop->offset[p], e = pop->offset[p + 1], n = e - b, k0 = ki, nk = 0, bytes;
		progs[4 * p + 0] = ci;
		progs[4 * p + 1] = n;
		if (pop->form == GP_FORM_LGP) {
			uint32_t c0 = pop->const_offset[p];
			int sp = 0;
			nk = pop->const_offset[p + 1] - c0;
			for (uint32_t k = 0; k < nk; k++) {
				float v = pop->consts[c0 + k];
				uint32_t u;
				if (is_bool)
					u = v != 0.0f ? 0xffffffffu : 0u;
				else
					memcpy(&u, &v, 4);
				consts[ki++] = u;
			}
			for (uint32_t i = b; i < e; i++) {
				gp_insn in = pop->lgp[i];
				int ar = gp_op_arity(in.op), ns = 0, seen = 0;
				uint32_t w = in.op | ((uint32_t)ar << 14), args[3] = { 0, 0, 0 };
				for (int j = 0; j < ar; j++)
					ns += GP_INSN_KIND(in, j) == GP_SRC_S;
				for (int j = 0; j < ar; j++) {
					unsigned kind = GP_INSN_KIND(in, j), dk;
					if (kind == GP_SRC_S) {
						int pos = sp - ns + seen++;
						dk = pos == sp - 1 ? 3u : 0u;
						args[j] = (uint32_t)pos;
						if (pos > deep - 1 && dk == 0)
							deep = pos + 1;
					} else if (kind == GP_SRC_X) {
						dk = 1u;
						args[j] = (uint32_t)in.arg[j] * dstride;
					} else {
						dk = 2u;
						args[j] = in.arg[j];
					}
					w |= dk << (8 + 2 * j);
				}
				if (ns == 0 && sp >= 1) {
					w |= 0x10000u | ((uint32_t)(sp - 1) << 20);
					if (sp > deep)
						deep = sp;
				}
				sp += 1 - ns;
				code[4 * ci + 0] = w;
				code[4 * ci + 1] = args[0];
				code[4 * ci + 2] = args[1];
				code[4 * ci + 3] = args[2];
				ci++;
			}
			bytes = n * 16;
		} else {
			int sp = 0;
			for (uint32_t i = b; i < e; i++) {
				gp_node nd = pop->rpn[i];
				uint32_t y = 0;
				if (nd.op == GP_TERM_VAR) {
					y = (uint32_t)nd.var * dstride;
					sp++;
				} else if (nd.op == GP_TERM_CONST) {
					if (is_bool)
						y = nd.value != 0.0f ? 0xffffffffu : 0u;
					else
						memcpy(&y, &nd.value, 4);
					sp++;
				} else {
					sp -= gp_op_arity(nd.op) - 1;
				}
				if (sp > deep)
					deep = sp;
				code[2 * ci + 0] = nd.op |
					(nd.op < GP_OP_COUNT ? (uint32_t)gp_op_arity(nd.op) << 8 : 0u);
				code[2 * ci + 1] = y;
				ci++;
			}
			if (ci & 1) {
				code[2 * ci + 0] = code[2 * ci + 1] = 0;
				ci++;
			}
			bytes = (n + 1) / 2 * 16;
		}
		progs[4 * p + 2] = k0;
		progs[4 * p + 3] = nk;
		bytes += nk * 4;
		if (bytes > big)
			big = bytes;
	}
	*smem = big;
	*need = deep;
}

/* The threaded device encoding is the sequential one byte for byte (LGP and
 * RPN, float with constants and Boolean, 1 and 2 threads, a slice of a
 * population, odd-length RPN programs padded); a bad program is reported by
 * its index; a too-small buffer is refused. */
static void test_parallel_encoding(void **state)
{
	(void)state;
	rt_error err;
	enum { N = 500 };
	for (int prob = 0; prob < 2; prob++) {
		gp_cases c;
		gp_fset fs;
		gp_breed br = gp_breed_defaults();
		gp_tree *t = calloc(N, sizeof *t);
		gp_packed pk;
		if (prob == 0)
			classes(&c, &fs, 64);
		else
			mux(&c, &fs, 2);
		br.init_min_depth = 2;
		br.init_max_depth = 7;
		assert_int_equal(gp_init_population(t, N, &fs, &br, 17, &err), RT_OK);
		gp_packed_init(&pk);
		for (int form = 0; form < 2; form++)
			for (int r = 0; r < 2; r++) {
				int lo = r ? 7 : 0, n = r ? 100 : N;
				assert_int_equal(form == GP_FORM_LGP ? gp_pack_lgp(&pk, t + lo, n, &err)
								    : gp_pack_rpn(&pk, t + lo, n, &err), RT_OK);
				size_t bytes = gp_gpu_encoded_bytes(&pk);
				assert_true(bytes > 0);
				uint32_t *ref = calloc(bytes / 4 + 1, 4), *par = calloc(bytes / 4 + 1, 4);
				uint32_t smem_ref, smem;
				int need_ref, need;
				memset(ref, 0xab, bytes);   /* alignment gaps stay unwritten in both */
				encode_sequential(&pk, prob == 1, 4160, ref, &smem_ref, &need_ref);
				for (int th = 1; th <= 2; th++) {
					cpu_set_threads(th);
					memset(par, 0xab, bytes);
					assert_int_equal(gp_gpu_encode(&pk, &c, 4160, par, bytes, &smem, &need,
								       &err), RT_OK);
					assert_memory_equal(par, ref, bytes);
					assert_int_equal(smem, smem_ref);
					assert_int_equal(need, need_ref);
				}
				cpu_set_threads(0);
				assert_int_equal(gp_gpu_encode(&pk, &c, 4160, par, bytes - 1, &smem, &need, &err),
						 RT_ERR_INPUT);
				free(ref);
				free(par);
			}
		/* Program 321 reads an input the problem lacks: named by its index. */
		assert_int_equal(gp_pack_lgp(&pk, t, N, &err), RT_OK);
		size_t bytes = gp_gpu_encoded_bytes(&pk);
		void *buf = calloc(bytes, 1);
		uint32_t smem;
		int need;
		for (uint32_t i = pk.offset[321]; i < pk.offset[322]; i++)
			if (GP_INSN_KIND(pk.lgp[i], 0) == GP_SRC_X) {
				pk.lgp[i].arg[0] = 999;
				break;
			}
		gp_insn save = pk.lgp[pk.offset[321]];
		pk.lgp[pk.offset[321]].kinds = (uint8_t)((save.kinds & ~3u) | GP_SRC_X);
		pk.lgp[pk.offset[321]].arg[0] = 999;
		cpu_set_threads(2);
		assert_int_equal(gp_gpu_encode(&pk, &c, 4160, buf, bytes, &smem, &need, &err), RT_ERR_INPUT);
		assert_non_null(strstr(err.msg, "program 321"));
		/* Offsets going backwards: refused before anything is written. */
		pk.lgp[pk.offset[321]] = save;
		uint32_t o = pk.offset[200];
		pk.offset[200] = pk.offset[202] + 5;
		assert_int_not_equal(gp_gpu_encode(&pk, &c, 4160, buf, bytes, &smem, &need, &err), RT_OK);
		pk.offset[200] = o;
		cpu_set_threads(0);
		free(buf);
		gp_packed_free(&pk);
		for (int i = 0; i < N; i++)
			gp_tree_free(&t[i]);
		free(t);
		gp_cases_free(&c);
	}
}

/* A fake asynchronous evaluator: gp_eval_cpu at start, results queued (at
 * most two, as on the GPU) and handed back in order by finish. */
typedef struct fake_async {
	int method, inflight, head, max_inflight, starts;
	double *q[2];
	int nq[2];
} fake_async;

static rt_status fake_eval(void *ctx, const gp_packed *pop, const gp_cases *cases, double *fit,
			   rt_error *err)
{
	fake_async *f = ctx;
	return gp_eval_cpu(pop, cases, f->method, fit, err);
}

static rt_status fake_start(void *ctx, const gp_packed *pop, const gp_cases *cases, rt_error *err)
{
	fake_async *f = ctx;
	if (f->inflight >= 2)
		return rt_fail(err, RT_ERR_INTERNAL, "three in flight");
	int k = (f->head + f->inflight) % 2;
	f->q[k] = realloc(f->q[k], (size_t)(pop->nprogs + 1) * sizeof(double));
	f->nq[k] = pop->nprogs;
	rt_status st = gp_eval_cpu(pop, cases, f->method, f->q[k], err);
	if (st == RT_OK) {
		f->inflight++;
		f->starts++;
		if (f->inflight > f->max_inflight)
			f->max_inflight = f->inflight;
	}
	return st;
}

static rt_status fake_finish(void *ctx, double *fit, double *device_s, rt_error *err)
{
	fake_async *f = ctx;
	if (f->inflight == 0)
		return rt_fail(err, RT_ERR_INTERNAL, "nothing in flight");
	memcpy(fit, f->q[f->head], (size_t)f->nq[f->head] * sizeof(double));
	f->head = (f->head + 1) % 2;
	f->inflight--;
	*device_s = 1e-3;
	return RT_OK;
}

/* gp_evolve_with in batches (asynchronous evaluator) gives exactly the
 * synchronous run: same history, same best program, for a Boolean problem
 * and a regression problem, with several batch counts. */
static void test_batched_evolution(void **state)
{
	(void)state;
	static const char *const texts[] = {
		"[problem]\nkind = gp\n[gp]\npopulation = 300\ngenerations = 8\nstop_on_success = false\n"
		"functions = and or nand nor\n[data]\nsource = multiplexer\naddress_bits = 3\n",
		"[problem]\nkind = gp\n[gp]\npopulation = 250\ngenerations = 6\nconstants = -1 1\n"
		"functions = + - * / sin\n[data]\nsource = sextic\ncases = 300\n",
	};
	static const int batches[] = { 1, 3, 8, 250 };
	rt_log_set_quiet(1);
	for (int t = 0; t < 2; t++) {
		rt_error err = {0};
		rt_spec spec;
		gp_problem p;
		gp_result ref, r;
		memset(&spec, 0, sizeof spec);
		assert_int_equal(rt_spec_load_text(&spec, "batched.ini", texts[t], &err), RT_OK);
		assert_int_equal(gp_problem_load(&spec, &p, &err), RT_OK);
		fake_async f = { GP_EVAL_LGP2D, 0, 0, 0, 0, { NULL, NULL }, { 0, 0 } };
		gp_evaluator sync = { .eval = fake_eval, .ctx = &f, .form = GP_FORM_LGP };
		assert_int_equal(gp_evolve_with(&p, 21, &sync, &ref, &err), RT_OK);
		assert_int_equal(f.starts, 0);
		for (int k = 0; k < 4; k++) {
			gp_evaluator ev = { .eval = fake_eval, .ctx = &f, .form = GP_FORM_LGP, .start = fake_start,
					  .finish = fake_finish, .batches = batches[k] };
			f.max_inflight = f.starts = 0;
			assert_int_equal(gp_evolve_with(&p, 21, &ev, &r, &err), RT_OK);
			assert_int_equal(f.inflight, 0);
			assert_int_equal(f.starts, batches[k] * r.nhistory);
			assert_int_equal(f.max_inflight, batches[k] > 1 ? 2 : 1);
			assert_int_equal(r.nhistory, ref.nhistory);
			for (int g = 0; g < r.nhistory; g++) {
				assert_true(r.history[g].best == ref.history[g].best);
				assert_true(r.history[g].mean == ref.history[g].mean);
				assert_true(r.history[g].mean_size == ref.history[g].mean_size);
				assert_int_equal(r.history[g].best_size, ref.history[g].best_size);
				assert_true(r.history[g].device_s > 0.0);
				assert_true(r.history[g].host_s > 0.0);
			}
			assert_true(r.best_fitness == ref.best_fitness);
			assert_int_equal(r.best_generation, ref.best_generation);
			assert_int_equal(r.best.n, ref.best.n);
			assert_memory_equal(r.best.nodes, ref.best.nodes, (size_t)r.best.n * sizeof(gp_node));
			gp_result_free(&r);
		}
		gp_result_free(&ref);
		free(f.q[0]);
		free(f.q[1]);
		gp_problem_free(&p);
		rt_spec_free(&spec);
	}
	rt_log_set_quiet(0);
}

/* gp_breed_range over consecutive ranges is gp_breed_generation. */
static void test_breed_range(void **state)
{
	(void)state;
	rt_error err;
	gp_cases c;
	gp_fset fs;
	gp_breed br = gp_breed_defaults();
	enum { N = 200 };
	gp_tree cur[N], a[N], b[N];
	double fit[N];
	memset(cur, 0, sizeof cur);
	memset(a, 0, sizeof a);
	memset(b, 0, sizeof b);
	sextic(&c, &fs, 64);
	assert_int_equal(gp_init_population(cur, N, &fs, &br, 3, &err), RT_OK);
	for (int i = 0; i < N; i++)
		fit[i] = (double)((i * 37) % 101);
	assert_int_equal(gp_breed_generation(a, cur, fit, N, &fs, &br, 9, 4, &err), RT_OK);
	static const int cuts[] = { 0, 1, 17, 90, 91, 200 };
	for (int k = 0; k < 5; k++)
		assert_int_equal(gp_breed_range(b, cur, fit, N, cuts[k], cuts[k + 1], &fs, &br, 9, 4, &err),
				 RT_OK);
	for (int i = 0; i < N; i++) {
		assert_int_equal(a[i].n, b[i].n);
		assert_memory_equal(a[i].nodes, b[i].nodes, (size_t)a[i].n * sizeof(gp_node));
	}
	assert_int_equal(gp_breed_range(b, cur, fit, N, 5, 201, &fs, &br, 9, 4, &err), RT_ERR_INTERNAL);
	for (int i = 0; i < N; i++) {
		gp_tree_free(&cur[i]);
		gp_tree_free(&a[i]);
		gp_tree_free(&b[i]);
	}
	gp_cases_free(&c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_variant_names),
		cmocka_unit_test(test_source),
		cmocka_unit_test(test_nvrtc_regression),
		cmocka_unit_test(test_nvrtc_classes),
		cmocka_unit_test(test_nvrtc_bool),
		cmocka_unit_test(test_nvrtc_sr),
		cmocka_unit_test(test_nvrtc_scaled),
		cmocka_unit_test(test_no_driver),
		cmocka_unit_test(test_parallel_packing),
		cmocka_unit_test(test_parallel_encoding),
		cmocka_unit_test(test_breed_range),
		cmocka_unit_test(test_batched_evolution),
		cmocka_unit_test(test_gpu_sextic),
		cmocka_unit_test(test_gpu_classes),
		cmocka_unit_test(test_gpu_mux),
		cmocka_unit_test(test_gpu_sr),
		cmocka_unit_test(test_gpu_scaled),
		cmocka_unit_test(test_gpu_async),
	};
	return cmocka_run_group_tests_name("gp_gpu", tests, NULL, NULL);
}
