/* test_gp_ovr.c: the one-vs-rest scheme of kind gp ([gp] multiclass): the
 * label transform (y == c ? 1 : 0, inputs shared, two classes), the argmax
 * rule (known outputs -> known classes, ties to the lowest, NaN as -inf),
 * the combined classifier on constructed programs against a recount by a
 * tree-walking interpreter written here (not the runtime's 2-D stack one),
 * sub-problem seeds, a small evolution on separable 3-class blobs reaching a
 * stated accuracy, and the [gp] multiclass key (values, exit-2 class errors
 * naming file:line, refused on regression and Boolean problems). */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "gp/gp.h"
#include "gp/gp_conv.h"
#include "gp/gp_eval.h"
#include "gp/gp_ovr.h"
#include "gp/gp_problem.h"
#include "gp/gp_score.h"
#include "rng.h"
#include "spec.h"

#include "../test_tmp.h"

#define NBLOB 90   /* rows per class of the blobs table */

static char blobs_csv[300];

/* Three separable blobs in (a, b): class c centred at (3c, 6 - 3c) with a
 * spread of 0.5, and a noise column z (Philox, fixed seed). */
static int setup(void **state)
{
	(void)state;
	if (tmp_setup("gp_ovr"))
		return -1;
	snprintf(blobs_csv, sizeof blobs_csv, "%s/blobs.csv", tmpdir);
	FILE *f = fopen(blobs_csv, "w");
	if (!f)
		return -1;
	rt_rng r;
	rt_rng_init(&r, 7, 0);
	fprintf(f, "a,b,z,label\n");
	for (int i = 0; i < NBLOB; i++)
		for (int c = 0; c < 3; c++)
			fprintf(f, "%.6f,%.6f,%.6f,k%d\n", 3.0 * c + rt_rng_range(&r, -0.5, 0.5),
				6.0 - 3.0 * c + rt_rng_range(&r, -0.5, 0.5), rt_rng_range(&r, -1, 1), c);
	return fclose(f) ? -1 : 0;
}

static rt_status load_spec(const char *text, rt_spec *spec, gp_problem *p, rt_error *err)
{
	memset(spec, 0, sizeof *spec);
	memset(p, 0, sizeof *p);
	if (rt_spec_load_text(spec, "t.ini", text, err))
		return err->status;
	return gp_problem_load(spec, p, err);
}

/* ---- the label transform ------------------------------------------------------ */

static void label_transform(void **state)
{
	(void)state;
	gp_cases all, bin;
	rt_error err;
	const float y[7] = {0, 2, 1, 2, 2, 0, 1};
	assert_int_equal(gp_cases_alloc_float(&all, 2, 7, &err), RT_OK);
	all.fitness = GP_FIT_CLASS;
	all.nclasses = 3;
	for (int r = 0; r < 7; r++) {
		all.y[r] = y[r];
		all.x[r] = (float)r;
	}
	for (int c = 0; c < 3; c++) {
		assert_int_equal(gp_ovr_cases(&all, c, &bin, &err), RT_OK);
		assert_int_equal(bin.nclasses, 2);
		assert_int_equal(bin.fitness, GP_FIT_CLASS);
		assert_int_equal(bin.ncases, 7);
		assert_ptr_equal(bin.x, all.x);   /* inputs shared, untouched */
		for (int r = 0; r < 7; r++)
			assert_true(bin.y[r] == (y[r] == (float)c ? 1.0f : 0.0f));
		for (size_t r = 7; r < bin.stride; r++)
			assert_true(bin.y[r] == 0.0f);   /* padding zeroed */
		gp_ovr_cases_free(&bin);
		for (int r = 0; r < 7; r++)
			assert_true(all.y[r] == y[r]);
	}
	gp_cases_free(&all);
}

/* ---- argmax ------------------------------------------------------------------- */

static void argmax_rule(void **state)
{
	(void)state;
	const float nan = NAN, inf = INFINITY;
	struct { float v[4]; int k, want; } cases[] = {
		{{0.1f, 0.7f, 0.3f, 0}, 3, 1},
		{{-5, -7, -6, 0}, 3, 0},
		{{2, 9, 9, 1}, 4, 1},          /* tie: the lowest class */
		{{4, 4, 4, 4}, 4, 0},
		{{nan, 0.5f, 1.5f, 0}, 3, 2},
		{{nan, -1e30f, nan, 0}, 3, 1}, /* NaN is -inf, below any number */
		{{nan, nan, nan, 0}, 3, 0},    /* all NaN: all -inf, lowest */
		{{-inf, nan, -inf, 0}, 3, 0},  /* -inf ties NaN: lowest */
		{{-inf, nan, -3, inf}, 4, 3},
		{{7, 0, 0, 0}, 1, 0},
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
		if (gp_argmax_class(cases[i].v, cases[i].k) != cases[i].want)
			fail_msg("argmax case %zu: got %d, want %d", i,
				 gp_argmax_class(cases[i].v, cases[i].k), cases[i].want);
}

/* A tree-walking interpreter for + - * / (protected: 1 when |b| < 1e-6),
 * inputs and constants, in float: the test's own, independent of gp_eval. */
static float walk(const gp_node *nd, int *i, const gp_cases *cs, size_t r)
{
	const gp_node *n = &nd[(*i)++];
	if (n->op == GP_TERM_VAR)
		return cs->x[(size_t)n->var * cs->stride + r];
	if (n->op == GP_TERM_CONST)
		return n->value;
	float a = walk(nd, i, cs, r), b = walk(nd, i, cs, r);
	switch (n->op) {
	case GP_OP_ADD: return a + b;
	case GP_OP_SUB: return a - b;
	case GP_OP_MUL: return a * b;
	case GP_OP_DIV: return fabsf(b) < 1e-6f ? 1.0f : a / b;
	default: fail_msg("walk: unexpected op %d", n->op); return 0;
	}
}

/* Constructed programs over (a, b): known classes on hand-picked cases,
 * and gp_score_argmax == a recount with walk() and the rule. */
static void argmax_programs(void **state)
{
	(void)state;
	/* class 0 scores a, class 1 scores b, class 2 scores 1/(a-b) (NaN-free;
	 * 1 where a == b: division protected) */
	const char *text[3] = {"+ $0 0x0p+0", "* $1 0x1p+0", "/ 0x1p+0 - $0 $1"};
	const float a[8] = {5, 0, 1, 2, 2, -1, 0.5f, 3};
	const float b[8] = {1, 4, 1, 2, 1.5f, -1.2f, 0.25f, 3};
	/* outputs (a, b, 1/(a-b) or 1): (5,1,.25) (0,4,-.25) (1,1,1) (2,2,1) (2,1.5,2)
	 * (-1,-1.2,5) (.5,.25,4) (3,3,1) */
	const int want[8] = {0, 1, 0, 0, 0, 2, 2, 0};   /* 2, 3, 4, 7: ties, the lowest wins */
	gp_tree progs[3];
	gp_cases cs;
	gp_score s;
	rt_error err;
	int cls[8];
	memset(progs, 0, sizeof progs);
	for (int c = 0; c < 3; c++)
		assert_int_equal(gp_parse_prefix(text[c], 2, &progs[c], &err), RT_OK);
	assert_int_equal(gp_cases_alloc_float(&cs, 2, 8, &err), RT_OK);
	cs.fitness = GP_FIT_CLASS;
	cs.nclasses = 3;
	for (int r = 0; r < 8; r++) {
		cs.x[r] = a[r];
		cs.x[cs.stride + r] = b[r];
		cs.y[r] = (float)(r % 3);
	}
	assert_int_equal(gp_argmax_classes(progs, 3, &cs, cls, &err), RT_OK);
	for (int r = 0; r < 8; r++)
		if (cls[r] != want[r])
			fail_msg("case %d: class %d, want %d", r, cls[r], want[r]);
	assert_int_equal(gp_score_argmax(progs, 3, &cs, &s, &err), RT_OK);
	long wrong = 0, conf[9] = {0};
	for (int r = 0; r < 8; r++) {
		float v[3];
		for (int c = 0; c < 3; c++) {
			int i = 0;
			v[c] = walk(progs[c].nodes, &i, &cs, (size_t)r);
		}
		int k = v[0] >= v[1] ? (v[0] >= v[2] ? 0 : 2) : (v[1] >= v[2] ? 1 : 2);
		wrong += k != (int)cs.y[r];
		conf[(int)cs.y[r] * 3 + k]++;
	}
	assert_int_equal(s.wrong, wrong);
	assert_true(s.accuracy == 1.0 - (double)wrong / 8);
	for (int i = 0; i < 9; i++)
		assert_int_equal(s.confusion[i], conf[i]);
	gp_score_free(&s);
	/* a program count other than the classes is a bug in the caller */
	assert_int_equal(gp_score_argmax(progs, 2, &cs, &s, &err), RT_ERR_INTERNAL);
	for (int c = 0; c < 3; c++)
		gp_tree_free(&progs[c]);
	gp_cases_free(&cs);
}

static void sub_seeds(void **state)
{
	(void)state;
	assert_true(gp_ovr_seed(1, 0) == gp_ovr_seed(1, 0));
	assert_true(gp_ovr_seed(1, 0) != gp_ovr_seed(1, 1));
	assert_true(gp_ovr_seed(1, 0) != gp_ovr_seed(2, 0));
	rt_rng r;
	rt_rng_init(&r, 5, GP_OVR_STREAM + 3);
	uint64_t hi = rt_rng_u32(&r);
	assert_true(gp_ovr_seed(5, 3) == (hi << 32 | rt_rng_u32(&r)));
}

/* ---- a small evolution on the blobs --------------------------------------------- */

/* The scheme by hand (as gp_ovr_run does it, on the CPU): each class
 * against the rest with the ordinary loop, then the argmax; the blobs are
 * linearly separable, so the combined classifier must reach >= 95 % (this
 * seed gives the figure asserted; a recount by walk() must agree). */
static void blobs_one_vs_rest(void **state)
{
	(void)state;
	char text[1024];
	rt_spec spec;
	gp_problem p;
	rt_error err;
	snprintf(text, sizeof text, "[problem]\nkind = gp\nseed = 3\n[gp]\npopulation = 200\n"
		 "generations = 8\nfunctions = + - * /\nconstants = -5 5\nmulticlass = one-vs-rest\n"
		 "[data]\nsource = csv\nfile = %s\nlabel = label\nfitness = classification\n",
		 blobs_csv);
	assert_int_equal(load_spec(text, &spec, &p, &err), RT_OK);
	assert_int_equal(p.multiclass, GP_MULTICLASS_OVR);
	assert_int_equal(p.cases.nclasses, 3);
	gp_result res[3];
	gp_tree progs[3];
	for (int c = 0; c < 3; c++) {
		gp_problem sub = p;
		assert_int_equal(gp_ovr_cases(&p.cases, c, &sub.cases, &err), RT_OK);
		assert_int_equal(gp_evolve(&sub, gp_ovr_seed(3, c), gp_eval_cpu, &res[c], &err), RT_OK);
		progs[c] = res[c].best;
		gp_ovr_cases_free(&sub.cases);
	}
	gp_score s;
	assert_int_equal(gp_score_argmax(progs, 3, &p.cases, &s, &err), RT_OK);
	long wrong = 0;
	for (size_t r = 0; r < p.cases.ncases; r++) {
		float v[3];
		for (int c = 0; c < 3; c++) {
			int i = 0;
			v[c] = walk(progs[c].nodes, &i, &p.cases, r);
		}
		wrong += gp_argmax_class(v, 3) != (int)p.cases.y[r];
	}
	print_message("blobs: one-vs-rest accuracy %.4f (%ld of %zu wrong)\n", s.accuracy, s.wrong,
		      p.cases.ncases);
	assert_int_equal(s.wrong, wrong);
	assert_true(s.accuracy >= 0.95);
	gp_score_free(&s);
	for (int c = 0; c < 3; c++)
		gp_result_free(&res[c]);
	gp_problem_free(&p);
	rt_spec_free(&spec);
}

/* ---- the spec key ----------------------------------------------------------------- */

/* Loads text and expects RT_ERR_INPUT with `where` and `what` in the message. */
static void expect_spec_error(const char *text, const char *where, const char *what)
{
	rt_spec spec;
	gp_problem p;
	rt_error err;
	rt_status st = load_spec(text, &spec, &p, &err);
	if (st != RT_ERR_INPUT || !strstr(err.msg, where) || !strstr(err.msg, what))
		fail_msg("status %d, message '%s'; expected '%s' and '%s'", (int)st, err.msg, where,
			 what);
	rt_spec_free(&spec);
}

static void spec_key(void **state)
{
	(void)state;
	char text[1024];
	rt_spec spec;
	gp_problem p;
	rt_error err;
	const char *csv = "[data]\nsource = csv\nfile = %s\nlabel = label\nfitness = classification\n"
			  "[gp]\n%s";
	const char *values[3] = {"", "multiclass = round\n", "multiclass = one-vs-rest\n"};
	const int want[3] = {GP_MULTICLASS_DEFAULT, GP_MULTICLASS_ROUND, GP_MULTICLASS_OVR};
	for (int i = 0; i < 3; i++) {
		snprintf(text, sizeof text, csv, blobs_csv, values[i]);
		assert_int_equal(load_spec(text, &spec, &p, &err), RT_OK);
		assert_int_equal(p.multiclass, want[i]);
		gp_problem_free(&p);
		rt_spec_free(&spec);
	}
	snprintf(text, sizeof text, csv, blobs_csv, "multiclass = ovr\n");
	expect_spec_error(text, "t.ini:7", "multiclass");
	snprintf(text, sizeof text, csv, blobs_csv, "multiclass = ovr\n");
	expect_spec_error(text, "t.ini:7", "one-vs-rest");
	expect_spec_error("[problem]\nkind = gp\n[gp]\nmulticlass = one-vs-rest\n",
			  "t.ini:4: [gp] multiclass", "no multiclass scheme for a regression problem");
	expect_spec_error("[problem]\nkind = gp\n[gp]\nmulticlass = round\n",
			  "t.ini:4: [gp] multiclass", "applies to classification");
	expect_spec_error("[data]\nsource = multiplexer\n[gp]\nmulticlass = one-vs-rest\n",
			  "t.ini:4: [gp] multiclass", "no multiclass scheme for a Boolean problem");
	snprintf(text, sizeof text, "[data]\nsource = csv\nfile = %s\nlabel = a\nfitness = mse\n"
		 "[gp]\nmulticlass = one-vs-rest\n", blobs_csv);
	expect_spec_error(text, "t.ini:7: [gp] multiclass", "regression problem");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(label_transform),
		cmocka_unit_test(argmax_rule),
		cmocka_unit_test(argmax_programs),
		cmocka_unit_test(sub_seeds),
		cmocka_unit_test(blobs_one_vs_rest),
		cmocka_unit_test(spec_key),
	};
	return cmocka_run_group_tests_name("gp_ovr", tests, setup, tmp_teardown);
}
