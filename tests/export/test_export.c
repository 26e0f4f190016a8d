/* test_export.c: `evoforge export` / `eval` pieces: the JSON reader (values,
 * lookups, errors naming file:line), exact prefix text round trips, and the
 * exported GP C file against the runtime's interpreter on random programs
 * over every float operation (sin/cos with large arguments, log of 0 and
 * negatives, protected division, IF, comparisons): NAME-eval's outputs,
 * compiled with cc -std=c99 -Wall -Werror, must equal the interpreter's bit
 * for bit (skipped with a SKIP line when there is no cc); the fixed-function
 * GPU kernel of such programs (float and Boolean) compiles with NVRTC for
 * sm_90 without spills, and evaluating on the GPU with no driver fails with
 * RT_ERR_NOGPU (the outputs on a GPU: tests/export/gp_export_driver.c). */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "export.h"
#include "gp/gp_conv.h"
#include "gp/gp_eval.h"
#include "gp/gp_export.h"
#include "gp/gp_problem.h"
#include "gp/gp_tree.h"
#include "json_read.h"
#include "nvrtc.h"
#include "out.h"
#include "rng.h"
#include "../test_tmp.h"

static void json_values(void **state)
{
	rt_jval v;
	rt_error err;
	double d;
	const char *s;
	(void)state;
	assert_int_equal(rt_jparse("{\"a\": {\"b\": [1, 2.5e3, true, null]},\n \"s\": \"x\\n\\u00e9\","
				   " \"n\": -0.125}", "t.json", &v, &err), RT_OK);
	assert_non_null(rt_jget(&v, "a.b"));
	assert_int_equal(rt_jget(&v, "a.b")->n, 4);
	assert_true(rt_jget(&v, "a.b")->items[1].num == 2500.0);
	assert_int_equal(rt_jstring(&v, "s", "t.json", &s, &err), RT_OK);
	assert_string_equal(s, "x\n\xc3\xa9");
	assert_int_equal(rt_jnumber(&v, "n", "t.json", &d, &err), RT_OK);
	assert_true(d == -0.125);
	assert_int_equal(rt_jget(&v, "n")->line, 2);
	assert_null(rt_jget(&v, "a.c"));
	assert_int_equal(rt_jnumber(&v, "s", "t.json", &d, &err), RT_ERR_INPUT);
	assert_non_null(strstr(err.msg, "t.json:2: 's': expected a number"));
	assert_int_equal(rt_jstring(&v, "missing", "t.json", &s, &err), RT_ERR_INPUT);
	assert_non_null(strstr(err.msg, "expected a member 'missing'"));
	rt_jfree(&v);
}

static void json_errors(void **state)
{
	static const struct { const char *text, *msg; } bad[] = {
		{"{\"a\": 1,\n \"b\" 2}", "t.json:2: expected ':' after a member name"},
		{"[1, 2", "t.json:1: expected ',' or ']', got the end of the file"},
		{"{\"a\": tru}", "t.json:1: expected a value"},
		{"\"abc", "t.json:1: expected a closing '\"'"},
		{"{} x", "t.json:1: expected nothing after the document"},
		{"", "t.json:1: expected a value"},
	};
	(void)state;
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		rt_jval v;
		rt_error err;
		assert_int_equal(rt_jparse(bad[i].text, "t.json", &v, &err), RT_ERR_INPUT);
		if (!strstr(err.msg, bad[i].msg))
			fail_msg("'%s': got '%s', expected '%s'", bad[i].text, err.msg, bad[i].msg);
	}
}

static void idents(void **state)
{
	char out[64];
	(void)state;
	rt_export_ident("mbp-sonar", out, sizeof out);
	assert_string_equal(out, "mbp_sonar");
	rt_export_ident("3d.test", out, sizeof out);
	assert_string_equal(out, "_3d_test");
}

/* Random programs over every float operation and their exact prefix text. */
static void prefix_round_trip(void **state)
{
	gp_fset fs;
	gp_tree t = {0}, back = {0};
	rt_rng rng;
	rt_error err;
	(void)state;
	assert_int_equal(gp_fset_parse(&fs, "+ - * / sin cos log exp > < == AND OR IF", 3, &err), RT_OK);
	fs.use_consts = 1, fs.const_min = -1e5f, fs.const_max = 1e5f, fs.const_prob = 0.4;
	rt_rng_init(&rng, 11, 0);
	for (int p = 0; p < 200; p++) {
		rt_buf b = {0};
		assert_int_equal(gp_tree_random(&t, &fs, 2 + p % 6, p & 1, &rng, &err), RT_OK);
		gp_print_prefix(&b, t.nodes, t.n);
		assert_int_equal(gp_parse_prefix(b.data, 3, &back, &err), RT_OK);
		assert_int_equal(back.n, t.n);
		assert_memory_equal(back.nodes, t.nodes, (size_t)t.n * sizeof *t.nodes);
		rt_buf_free(&b);
	}
	assert_int_equal(gp_parse_prefix("+ $0", 1, &back, &err), RT_ERR_INPUT);
	assert_int_equal(gp_parse_prefix("+ $0 $5", 2, &back, &err), RT_ERR_INPUT);
	assert_int_equal(gp_parse_prefix("+ $0 pi", 1, &back, &err), RT_ERR_INPUT);
	assert_non_null(strstr(err.msg, "node 3"));
	gp_tree_free(&t);
	gp_tree_free(&back);
}

/* Cases with the values that exercise every protected form. */
static void make_cases(gp_cases *c, rt_rng *rng, FILE *csv)
{
	static const float special[] = {0.0f, -0.0f, 1e-7f, -1e-7f, 1.0f, -1.0f, 40000.0f,
					-1e6f, 3e7f, 88.7f, -104.0f, 1e30f};
	rt_error err;
	assert_int_equal(gp_cases_alloc_float(c, 3, 3000, &err), RT_OK);
	c->fitness = GP_FIT_MSE;
	fprintf(csv, "b,unused,a,c\n");
	for (size_t i = 0; i < c->ncases; i++) {
		for (int k = 0; k < 3; k++) {
			float v = (i + (size_t)k) % 7 == 0 ? special[(i / 7 + (size_t)k) % 12]
							    : (rt_rng_uniform(rng) - 0.5f) * (k == 2 ? 2e5f : 20.0f);
			c->x[(size_t)k * c->stride + i] = v;
		}
		fprintf(csv, "%.9g,zz,%.9g,%.9g\n", (double)c->x[c->stride + i], (double)c->x[i],
			(double)c->x[2 * c->stride + i]);
	}
}

/* Exports one program through result.json and runs its NAME-eval on csv. */
static void export_and_run(const gp_tree *t, const char *csv, const char *outcsv)
{
	char path[512], cmd[1200];
	rt_buf b = {0}, pre = {0};
	rt_options opt;
	rt_error err;
	memset(&opt, 0, sizeof opt);
	opt.arch = "none";   /* no cubins: this test is about the C (kernel_sm90 compiles them) */
	gp_print_prefix(&pre, t->nodes, t->n);
	rt_buf_printf(&b, "{\"kind\": \"gp\", \"problem\": \"rnd\", \"best\": {\"prefix\": \"%s\", "
		      "\"fitness\": 0, \"generation\": 0}, \"data\": {\"fitness\": \"mse\", "
		      "\"input_names\": [\"a\", \"b\", \"c\"]}}\n", pre.data);
	snprintf(path, sizeof path, "%s/result.json", tmpdir);
	assert_int_equal(rt_write_file_atomic(path, b.data, b.len, &err), RT_OK);
	snprintf(cmd, sizeof cmd, "%s/x", tmpdir);
	if (rt_export(path, &opt, cmd, &err) != RT_OK)
		fail_msg("export: %s", err.msg);
	snprintf(cmd, sizeof cmd, "cd %s/x && cc -std=c99 -Wall -Werror -c rnd.c -o rnd.o && "
		 "./rnd-eval --backend cpu %s -o %s", tmpdir, csv, outcsv);
	assert_int_equal(system(cmd), 0);
	rt_buf_free(&b);
	rt_buf_free(&pre);
}

static void exported_c_bit_exact(void **state)
{
	gp_fset fs;
	gp_tree t = {0};
	gp_cases c;
	gp_packed pk;
	rt_rng rng;
	rt_error err;
	char csv[300], outcsv[300], line[64];
	float *want;
	(void)state;
	if (system("command -v cc >/dev/null 2>&1") != 0) {
		print_message("SKIP: no cc: exported C not compiled\n");
		return;
	}
	snprintf(csv, sizeof csv, "%s/cases.csv", tmpdir);
	snprintf(outcsv, sizeof outcsv, "%s/out.csv", tmpdir);
	FILE *f = fopen(csv, "w");
	assert_non_null(f);
	rt_rng_init(&rng, 5, 1);
	make_cases(&c, &rng, f);
	fclose(f);
	want = malloc(c.ncases * sizeof *want);
	gp_packed_init(&pk);
	assert_int_equal(gp_fset_parse(&fs, "+ - * / sin cos log exp > < == AND OR IF", 3, &err), RT_OK);
	fs.use_consts = 1, fs.const_min = -100.0f, fs.const_max = 100.0f, fs.const_prob = 0.3;
	for (int p = 0; p < 12; p++) {
		assert_int_equal(gp_tree_random(&t, &fs, 3 + p % 5, p & 1, &rng, &err), RT_OK);
		assert_int_equal(gp_pack_lgp(&pk, &t, 1, &err), RT_OK);
		assert_int_equal(gp_eval_cpu_outputs(&pk, &c, want, &err), RT_OK);
		export_and_run(&t, csv, outcsv);
		f = fopen(outcsv, "r");
		assert_non_null(f);
		assert_non_null(fgets(line, sizeof line, f));
		assert_string_equal(line, "prediction\n");
		for (size_t i = 0; i < c.ncases; i++) {
			assert_non_null(fgets(line, sizeof line, f));
			float got = strtof(line, NULL);
			if (!(got == want[i] && signbit(got) == signbit(want[i])) &&
			    !(isnan(got) && isnan(want[i])))
				fail_msg("program %d, case %zu: exported %s, interpreter %.9g", p, i, line,
					 (double)want[i]);
		}
		fclose(f);
	}
	free(want);
	gp_packed_free(&pk);
	gp_cases_free(&c);
	gp_tree_free(&t);
}

/* A random program's C expression (what NAME.c and the kernel hold). */
static void program_expr(const gp_fset *fs, int depth, rt_rng *rng, gp_tree *t, rt_buf *expr)
{
	char dir[300], json[300];
	rt_buf b = {0}, pre = {0};
	rt_error err;
	rt_options opt;
	size_t n = 0;
	char *text = NULL, *start, *end;
	memset(&opt, 0, sizeof opt);
	opt.arch = "none";
	assert_int_equal(gp_tree_random(t, fs, depth, depth & 1, rng, &err), RT_OK);
	gp_print_prefix(&pre, t->nodes, t->n);
	/* Through export itself, so the expression is exactly NAME.c's. */
	rt_buf_printf(&b, "{\"kind\": \"gp\", \"problem\": \"k\", \"best\": {\"prefix\": \"%s\"}, "
		      "\"data\": {\"fitness\": \"%s\", \"input_names\": [\"a\", \"b\", \"c\"]}}\n",
		      pre.data, t->nodes[0].op >= GP_NFLOAT_OPS ? "wrong cases" : "mse");
	snprintf(json, sizeof json, "%s/k.json", tmpdir);
	assert_int_equal(rt_write_file_atomic(json, b.data, b.len, &err), RT_OK);
	snprintf(dir, sizeof dir, "%s/k", tmpdir);
	if (rt_export(json, &opt, dir, &err))
		fail_msg("export: %s", err.msg);
	snprintf(dir, sizeof dir, "%s/k/k.cu", tmpdir);
	assert_int_equal(rt_read_file(dir, &text, &n, &err), RT_OK);
	start = strstr(text, "#define GPX_PROGRAM(x) (");
	assert_non_null(start);
	start += strlen("#define GPX_PROGRAM(x) (");
	end = strchr(start, '\n');
	rt_buf_append(expr, start, (size_t)(end - start - 1));
	free(text);
	rt_buf_free(&b);
	rt_buf_free(&pre);
}

/* The kernel of random float and Boolean programs compiles for sm_90 with
 * no spills (ptxas -v through NVRTC). */
static void kernel_sm90(void **state)
{
	gp_fset fs[2];
	gp_tree t = {0};
	rt_rng rng;
	rt_error err;
	(void)state;
	if (nvrtc_open(&err) != RT_OK) {
		print_message("SKIP: no NVRTC: %s\n", err.msg);
		return;
	}
	assert_int_equal(gp_fset_parse(&fs[0], "+ - * / sin cos log exp > < == AND OR IF", 3, &err),
			 RT_OK);
	fs[0].use_consts = 1, fs[0].const_min = -100.0f, fs[0].const_max = 100.0f;
	fs[0].const_prob = 0.3;
	assert_int_equal(gp_fset_parse(&fs[1], "and or nand nor not if", 3, &err), RT_OK);
	rt_rng_init(&rng, 9, 2);
	for (int p = 0; p < 6; p++) {
		rt_buf expr = {0};
		gen_source src;
		nvrtc_output out = {0};
		nvrtc_usage u;
		gp_xprogram x = { "k", NULL, 3, p & 1 };
		program_expr(&fs[p & 1], 4 + p, &rng, &t, &expr);
		x.expr = expr.data;
		assert_int_equal(gp_xkernel_render(&x, &src, &err), RT_OK);
		if (nvrtc_compile(src.name, src.text.data, "sm_90", gp_xkernel_options,
				  gp_xkernel_noptions, &out, &err) != RT_OK)
			fail_msg("program %d: %s", p, err.msg);
		assert_int_equal(nvrtc_parse_usage(out.log, "gpx_eval", &u, &err), RT_OK);
		if (u.spill_stores > 0 || u.spill_loads > 0)
			fail_msg("program %d: gpx_eval spills (%d bytes stored, %d loaded)", p,
				 u.spill_stores, u.spill_loads);
		nvrtc_output_free(&out);
		gen_free(&src);
		rt_buf_free(&expr);
	}
	gp_tree_free(&t);
}

/* With no CUDA driver, the GPU path says so (RT_ERR_NOGPU); eval's callers
 * then fail (--backend gpu) or use the CPU (auto). */
static void eval_gpu_without_driver(void **state)
{
	gp_xprogram x = { "k", "(x[0] + 1.0f)", 1, 0 };
	float in[4] = {1, 2, 3, 4}, out[4];
	rt_error err;
	(void)state;
	assert_int_equal(gp_xkernel_eval_gpu(&x, in, 4, 4, 0, out, &err), RT_ERR_NOGPU);
	assert_non_null(strstr(err.msg, "driver"));
}

static int setup(void **state)
{
	(void)state;
	return tmp_setup("export");
}

int main(void)
{
	setenv("EVOFORGE_LIBCUDA", "/nonexistent/libcuda.so.1", 1);   /* never a GPU here */
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(json_values),
		cmocka_unit_test(json_errors),
		cmocka_unit_test(idents),
		cmocka_unit_test(prefix_round_trip),
		cmocka_unit_test(exported_c_bit_exact),
		cmocka_unit_test(kernel_sm90),
		cmocka_unit_test(eval_gpu_without_driver),
	};
	return cmocka_run_group_tests(tests, setup, tmp_teardown);
}
