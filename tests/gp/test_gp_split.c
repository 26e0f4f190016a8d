/* test_gp_split.c: held-out sets for kind gp: rt_split_rows (stratified
 * quotas within one row of each class's share, the total a plain split
 * gives, same seed same split, other seed or stream another), [data]
 * test_fraction and [data] test on small generated CSVs (every row in
 * exactly one set, classes mapped by name, string inputs by the training's
 * categories), the evaluators seeing the training cases only (the run's
 * fitness = the best program's training errors), gp_score_program against
 * independent recounts in plain C (confusion matrix, accuracy, MSE), and the
 * spec errors (exit-2 class, naming file:line). */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "data.h"
#include "gp/gp.h"
#include "gp/gp_conv.h"
#include "gp/gp_eval.h"
#include "gp/gp_problem.h"
#include "gp/gp_score.h"
#include "spec.h"

#include "../test_tmp.h"

/* Class sizes of the generated table: unequal, one tiny. */
static const int class_rows[3] = {101, 67, 35};
static const char *const class_label[3] = {"cat", "dog", "eel"};
#define NROWS 203

static char train_csv[300], test_csv[300], short_csv[300], reg_csv[300];

/* The input b of row i of class c: roughly c, so "b" alone nearly classifies. */
static float b_of(int i, int c)
{
	return (float)c + (float)((i * 37) % 11 - 5) * 0.11f;
}

/* train.csv: id, a, b, colour (text), label (text); rows interleave the
 * classes. test.csv: the same columns, classes and colours in another
 * order of first appearance and one colour the training never saw. */
static void write_tables(void)
{
	static const char *const colours[3] = {"red", "green", "blue"};
	FILE *f = fopen(train_csv, "w");
	assert_non_null(f);
	fprintf(f, "id,a,b,colour,label\n");
	int left[3] = {class_rows[0], class_rows[1], class_rows[2]};
	for (int i = 0; i < NROWS; i++) {
		int c = i % 3;
		while (!left[c])
			c = (c + 1) % 3;
		left[c]--;
		fprintf(f, "%d,%.9g,%.9g,%s,%s\n", i, (double)(0.5f * (float)(i % 17)),
			(double)b_of(i, c), colours[i % 3], class_label[c]);
	}
	fclose(f);
	f = fopen(test_csv, "w");
	assert_non_null(f);
	fprintf(f, "id,a,b,colour,label\n");
	fprintf(f, "1000,1,%.9g,violet,eel\n", (double)b_of(1000, 2));
	fprintf(f, "1001,2,%.9g,blue,dog\n", (double)b_of(1001, 1));
	fprintf(f, "1002,3,%.9g,red,cat\n", (double)b_of(1002, 0));
	fprintf(f, "1003,4,%.9g,violet,cat\n", (double)b_of(1003, 0));
	fclose(f);
	f = fopen(short_csv, "w");   /* one input column fewer */
	assert_non_null(f);
	fprintf(f, "id,a,label\n1,2,cat\n");
	fclose(f);
	f = fopen(reg_csv, "w");     /* regression: y = 2a - b */
	assert_non_null(f);
	fprintf(f, "a,b,y\n");
	for (int i = 0; i < 150; i++)
		fprintf(f, "%d,%.9g,%.9g\n", i % 13, (double)(0.25f * (float)i),
			(double)(2.0f * (float)(i % 13) - 0.25f * (float)i + 0.1f * (float)(i % 3)));
	fclose(f);
}

static int setup(void **state)
{
	(void)state;
	if (tmp_setup("gp-split"))
		return -1;
	snprintf(train_csv, sizeof train_csv, "%s/train.csv", tmpdir);
	snprintf(test_csv, sizeof test_csv, "%s/test.csv", tmpdir);
	snprintf(short_csv, sizeof short_csv, "%s/short.csv", tmpdir);
	snprintf(reg_csv, sizeof reg_csv, "%s/reg.csv", tmpdir);
	return 0;
}

/* Loads spec text "t.ini" (lines 1-7 fixed, `extra` from line 8) with the
 * run's seed `seed`. */
static rt_status load_csv_spec(const char *file, const char *fitness, const char *extra,
			       uint64_t seed, rt_spec *spec, gp_problem *p, rt_error *err)
{
	char text[2048];
	snprintf(text, sizeof text,
		 "[problem]\nkind = gp\n[data]\nsource = csv\nfile = %s\nlabel = %s\n"
		 "fitness = %s\n%s", file, strcmp(fitness, "mse") ? "label" : "y", fitness, extra);
	memset(spec, 0, sizeof *spec);
	memset(p, 0, sizeof *p);
	if (rt_spec_load_text(spec, "t.ini", text, err))
		return err->status;
	return gp_problem_load_seed(spec, seed, p, err);
}

/* ---- rt_split_rows ---------------------------------------------------------- */

static void split_rows_stratified(void **state)
{
	(void)state;
	static const int sizes[5] = {101, 67, 35, 1, 9};
	static const double fractions[4] = {0.2, 0.3, 0.5, 0.77};
	enum { N = 101 + 67 + 35 + 1 + 9 };
	int group[N];
	unsigned char a[N], b[N];
	rt_error err = {0};
	for (int g = 0, r = 0; g < 5; g++)
		for (int k = 0; k < sizes[g]; k++, r++)
			group[(r * 7) % N] = g;   /* 7 and N coprime: groups interleaved */
	for (int fi = 0; fi < 4; fi++) {
		double f = fractions[fi];
		size_t ntest, ntest2;
		assert_int_equal(rt_split_rows(N, group, 5, f, 42, 9, a, &ntest, &err), RT_OK);
		assert_int_equal(ntest, (size_t)llround(f * N));
		size_t count = 0;
		for (int g = 0; g < 5; g++) {
			int held = 0;
			for (int r = 0; r < N; r++)
				held += group[r] == g && a[r];
			/* within one case of the exact share */
			assert_true(fabs((double)held - f * sizes[g]) < 1.0);
			count += (size_t)held;
		}
		assert_int_equal(count, ntest);
		/* same seed, same split; another seed or stream, another split */
		assert_int_equal(rt_split_rows(N, group, 5, f, 42, 9, b, &ntest2, &err), RT_OK);
		assert_memory_equal(a, b, N);
		assert_int_equal(rt_split_rows(N, group, 5, f, 43, 9, b, &ntest2, &err), RT_OK);
		assert_int_equal(ntest2, ntest);
		assert_true(memcmp(a, b, N) != 0);
		assert_int_equal(rt_split_rows(N, group, 5, f, 42, 10, b, &ntest2, &err), RT_OK);
		assert_true(memcmp(a, b, N) != 0);
	}
	/* plain: one group */
	size_t ntest;
	assert_int_equal(rt_split_rows(N, NULL, 0, 0.25, 1, 2, a, &ntest, &err), RT_OK);
	assert_int_equal(ntest, (size_t)llround(0.25 * N));
	size_t marked = 0;
	for (int r = 0; r < N; r++)
		marked += a[r];
	assert_int_equal(marked, ntest);
	/* bad fractions */
	assert_int_equal(rt_split_rows(N, NULL, 0, 0.0, 1, 2, a, &ntest, &err), RT_ERR_INPUT);
	assert_int_equal(rt_split_rows(N, NULL, 0, 1.0, 1, 2, a, &ntest, &err), RT_ERR_INPUT);
	assert_int_equal(rt_split_rows(N, NULL, 0, NAN, 1, 2, a, &ntest, &err), RT_ERR_INPUT);
}

/* ---- [data] test_fraction ------------------------------------------------------ */

/* The ids (input 0) of a set, as flags over 0..NROWS-1; each at most once. */
static void mark_ids(const gp_cases *c, int *seen)
{
	for (size_t r = 0; r < c->ncases; r++) {
		int id = (int)c->x[r];
		assert_true(id >= 0 && id < NROWS);
		seen[id]++;
	}
}

static void test_fraction_csv(void **state)
{
	(void)state;
	rt_error err = {0};
	rt_spec spec;
	gp_problem p, q;
	write_tables();

	/* no key: every row trains, no test set */
	assert_int_equal(load_csv_spec(train_csv, "classification", "", 1, &spec, &p, &err), RT_OK);
	assert_int_equal(p.cases.ncases, NROWS);
	assert_int_equal(p.test.ncases, 0);
	gp_problem_free(&p);
	rt_spec_free(&spec);

	assert_int_equal(load_csv_spec(train_csv, "classification", "test_fraction = 0.3\n", 1,
				       &spec, &p, &err), RT_OK);
	rt_spec_free(&spec);
	assert_int_equal(p.cases.ncases + p.test.ncases, NROWS);
	assert_int_equal(p.test.ncases, (size_t)llround(0.3 * NROWS));
	assert_int_equal(p.test.ninputs, 4);
	assert_int_equal(p.test.nclasses, 3);
	assert_int_equal(p.test.fitness, GP_FIT_CLASS);
	/* every row in exactly one set */
	int seen[NROWS] = {0};
	mark_ids(&p.cases, seen);
	mark_ids(&p.test, seen);
	for (int i = 0; i < NROWS; i++)
		assert_int_equal(seen[i], 1);
	/* stratified: each class within one case of 30 % (classes named cat, dog, eel) */
	for (int c = 0; c < 3; c++) {
		int held = 0;
		for (size_t r = 0; r < p.test.ncases; r++)
			held += p.test.y[r] == (float)c;
		assert_string_equal(p.class_names[c], class_label[c]);
		assert_true(fabs((double)held - 0.3 * class_rows[c]) < 1.0);
	}

	/* same seed: the same test rows; another run seed (--seed): others */
	assert_int_equal(load_csv_spec(train_csv, "classification", "test_fraction = 0.3\n", 1,
				       &spec, &q, &err), RT_OK);
	rt_spec_free(&spec);
	assert_int_equal(q.test.ncases, p.test.ncases);
	assert_memory_equal(q.test.x, p.test.x, p.test.ncases * sizeof(float));
	gp_problem_free(&q);
	assert_int_equal(load_csv_spec(train_csv, "classification", "test_fraction = 0.3\n", 7,
				       &spec, &q, &err), RT_OK);
	rt_spec_free(&spec);
	assert_int_equal(q.test.ncases, p.test.ncases);
	assert_true(memcmp(q.test.x, p.test.x, p.test.ncases * sizeof(float)) != 0);
	gp_problem_free(&q);
	/* gp_problem_load takes [problem] seed */
	char text[1024];
	snprintf(text, sizeof text, "[problem]\nkind = gp\nseed = 7\n[data]\nsource = csv\n"
		 "file = %s\nlabel = label\ntest_fraction = 0.3\n", train_csv);
	memset(&spec, 0, sizeof spec);
	assert_int_equal(rt_spec_load_text(&spec, "t.ini", text, &err), RT_OK);
	assert_int_equal(gp_problem_load(&spec, &q, &err), RT_OK);
	rt_spec_free(&spec);
	assert_int_equal(q.split_seed, 7);
	assert_true(memcmp(q.test.x, p.test.x, p.test.ncases * sizeof(float)) != 0);
	gp_problem_free(&q);
	gp_problem_free(&p);
}

/* Generated polynomial cases take test_fraction too (a plain random split). */
static void test_fraction_polynomial(void **state)
{
	(void)state;
	rt_error err = {0};
	rt_spec spec;
	gp_problem p;
	memset(&spec, 0, sizeof spec);
	assert_int_equal(rt_spec_load_text(&spec, "t.ini", "[problem]\nkind = gp\n[data]\n"
					   "cases = 1000\ntest_fraction = 0.25\n", &err), RT_OK);
	assert_int_equal(gp_problem_load(&spec, &p, &err), RT_OK);
	rt_spec_free(&spec);
	assert_int_equal(p.cases.ncases, 750);
	assert_int_equal(p.test.ncases, 250);
	assert_int_equal(p.test.fitness, GP_FIT_MSE);
	for (size_t r = 0; r < p.test.ncases; r++)   /* targets travel with their x */
		assert_true(p.test.y[r] == (float)gp_polynomial(GP_DATA_SEXTIC, p.test.x[r]));

	/* test MSE of x*x recomputed here, in double, in case order */
	gp_tree t = {0};
	gp_score sc;
	assert_int_equal(gp_parse_prefix("* $0 $0", 1, &t, &err), RT_OK);
	assert_int_equal(gp_score_program(&t, &p.test, &sc, &err), RT_OK);
	double sum = 0;
	for (size_t r = 0; r < p.test.ncases; r++) {
		float out = p.test.x[r] * p.test.x[r];
		double d = (double)out - (double)p.test.y[r];
		sum += d * d;
	}
	assert_true(fabs(sc.mse - sum / 250) <= 1e-12 * (sum / 250));
	assert_int_equal(sc.ncases, 250);
	gp_score_free(&sc);
	gp_tree_free(&t);
	gp_problem_free(&p);
}

/* ---- scoring ------------------------------------------------------------------ */

/* A run on the split problem: its best fitness is the best program's
 * misclassified count on the training cases, and gp_score's test figures
 * equal a recount in plain C of a known program. */
static void fitness_is_train_errors(void **state)
{
	(void)state;
	rt_error err = {0};
	rt_spec spec;
	gp_problem p;
	gp_result r;
	write_tables();
	assert_int_equal(load_csv_spec(train_csv, "classification",
				       "test_fraction = 0.3\n[gp]\npopulation = 60\ngenerations = 3\n",
				       5, &spec, &p, &err), RT_OK);
	rt_spec_free(&spec);
	assert_int_equal(gp_evolve(&p, 5, gp_eval_cpu, &r, &err), RT_OK);
	gp_score tr, te;
	assert_int_equal(gp_score_program(&r.best, &p.cases, &tr, &err), RT_OK);
	assert_int_equal(gp_score_program(&r.best, &p.test, &te, &err), RT_OK);
	assert_true((double)tr.wrong == r.best_fitness);
	assert_int_equal(tr.ncases, p.cases.ncases);
	assert_int_equal(te.ncases, p.test.ncases);
	assert_true(fabs(tr.accuracy - (1.0 - r.best_fitness / (double)p.cases.ncases)) < 1e-15);
	gp_score_free(&tr);
	gp_score_free(&te);
	gp_result_free(&r);

	/* "b rounded" (input 2): recount by hand */
	gp_tree t = {0};
	assert_int_equal(gp_parse_prefix("+ $2 0x0p+0", 4, &t, &err), RT_OK);
	assert_int_equal(gp_score_program(&t, &p.test, &te, &err), RT_OK);
	long confusion[3][3] = {{0}}, wrong = 0;
	const float *b = p.test.x + 2 * p.test.stride;
	for (size_t i = 0; i < p.test.ncases; i++) {
		float o = rintf(b[i] + 0.0f);
		int cls = o < 0 ? 0 : o > 2 ? 2 : (int)o, truth = (int)p.test.y[i];
		confusion[truth][cls]++;
		wrong += cls != truth;
	}
	assert_int_equal(te.wrong, wrong);
	assert_true(te.accuracy == 1.0 - (double)wrong / (double)p.test.ncases);
	assert_int_equal(te.nclasses, 3);
	for (int c = 0; c < 3; c++) {
		long total = 0;
		for (int d = 0; d < 3; d++) {
			assert_int_equal(te.confusion[c * 3 + d], confusion[c][d]);
			total += confusion[c][d];
		}
		assert_int_equal(te.unclassified[c], 0);
		assert_int_equal(gp_score_class_total(&te, c), total);
		assert_true(gp_score_class_accuracy(&te, c) == (double)confusion[c][c] / (double)total);
	}
	assert_true(wrong > 0 && wrong < (long)p.test.ncases);   /* a real test, not all or none */
	gp_score_free(&te);
	gp_tree_free(&t);
	/* a NaN output (inf - inf where a > 0; 0 where a = 0) is always wrong and
	 * counted apart, in no column of the confusion matrix */
	assert_int_equal(gp_parse_prefix("- * * $1 0x1p+127 0x1p+127 * * $1 0x1p+127 0x1p+127", 4,
					 &t, &err), RT_OK);
	assert_int_equal(gp_score_program(&t, &p.test, &te, &err), RT_OK);
	const float *a = p.test.x + 1 * p.test.stride;
	long nan_rows[3] = {0}, zero_rows[3] = {0};
	for (size_t i = 0; i < p.test.ncases; i++)
		(a[i] > 0 ? nan_rows : zero_rows)[(int)p.test.y[i]]++;
	for (int c = 0; c < 3; c++) {
		assert_int_equal(te.unclassified[c], nan_rows[c]);
		assert_int_equal(te.confusion[c * 3 + 0], zero_rows[c]);
	}
	assert_true(nan_rows[1] > 0);
	assert_int_equal(te.wrong, (long)p.test.ncases - zero_rows[0]);
	gp_score_free(&te);
	gp_tree_free(&t);
	gp_problem_free(&p);
}

/* ---- [data] test = FILE ------------------------------------------------------------ */

static void test_file_csv(void **state)
{
	(void)state;
	rt_error err = {0};
	rt_spec spec;
	gp_problem p;
	char extra[400];
	write_tables();
	snprintf(extra, sizeof extra, "test = %s\n", test_csv);
	assert_int_equal(load_csv_spec(train_csv, "classification", extra, 1, &spec, &p, &err),
			 RT_OK);
	rt_spec_free(&spec);
	assert_int_equal(p.cases.ncases, NROWS);   /* the whole training file trains */
	assert_int_equal(p.test.ncases, 4);
	assert_string_equal(p.test_path, test_csv);
	/* classes by name: eel dog cat cat -> 2 1 0 0 */
	assert_true(p.test.y[0] == 2.0f && p.test.y[1] == 1.0f && p.test.y[2] == 0.0f &&
		    p.test.y[3] == 0.0f);
	/* colours by the training's indices (red 0, green 1, blue 2); violet is new: 3 */
	const float *colour = p.test.x + 3 * p.test.stride;
	assert_true(colour[0] == 3.0f && colour[1] == 2.0f && colour[2] == 0.0f &&
		    colour[3] == 3.0f);
	assert_true(p.test.x[0] == 1000.0f);
	gp_problem_free(&p);

	/* regression test file: targets as numbers */
	snprintf(extra, sizeof extra, "test = %s\n", reg_csv);
	assert_int_equal(load_csv_spec(reg_csv, "mse", extra, 1, &spec, &p, &err), RT_OK);
	rt_spec_free(&spec);
	assert_int_equal(p.test.ncases, 150);
	assert_memory_equal(p.test.y, p.cases.y, 150 * sizeof(float));
	gp_problem_free(&p);
}

/* ---- errors ----------------------------------------------------------------------- */

/* The spec error of `extra` (from line 8 of t.ini): RT_ERR_INPUT naming `where` and `what`. */
static void expect_error(const char *file, const char *fitness, const char *extra,
			 const char *where, const char *what)
{
	rt_error err = {0};
	rt_spec spec;
	gp_problem p;
	rt_status st = load_csv_spec(file, fitness, extra, 1, &spec, &p, &err);
	rt_spec_free(&spec);
	if (st == RT_OK)
		gp_problem_free(&p);
	if (st != RT_ERR_INPUT || !strstr(err.msg, where) || !strstr(err.msg, what))
		fail_msg("spec extra '%s': status %d, message '%s'; expected '%s' and '%s'", extra,
			 (int)st, err.msg, where, what);
}

static void spec_errors(void **state)
{
	(void)state;
	char extra[600];
	write_tables();
	expect_error(train_csv, "classification", "test_fraction = 0\n", "t.ini:8",
		     "expected a fraction F with 0 < F < 1, got 0");
	expect_error(train_csv, "classification", "test_fraction = 1.5\n", "t.ini:8",
		     "0 < F < 1, got 1.5");
	expect_error(train_csv, "classification", "test_fraction = 1\n", "t.ini:8", "0 < F < 1");
	expect_error(train_csv, "classification", "test_fraction = 0.001\n", "t.ini:8",
		     "leaves training and test cases");
	snprintf(extra, sizeof extra, "test = %s\ntest_fraction = 0.2\n", test_csv);
	expect_error(train_csv, "classification", extra, "t.ini:9: [data] test_fraction",
		     "expected either [data] test (t.ini:8) or test_fraction, not both");
	snprintf(extra, sizeof extra, "test = %s/none.csv\n", tmpdir);
	expect_error(train_csv, "classification", extra, "t.ini:8: [data] test", "none.csv");
	snprintf(extra, sizeof extra, "test = %s\n", short_csv);
	expect_error(train_csv, "classification", extra, "t.ini:8: [data] test",
		     "expected the columns of");
	snprintf(extra, sizeof extra, "test = %s\n", train_csv);   /* text label, mse fitness */
	expect_error(reg_csv, "mse", extra, "t.ini:8: [data] test", "expected a column named 'y'");
	/* a test class the training never had */
	FILE *f = fopen(short_csv, "w");
	assert_non_null(f);
	fprintf(f, "id,a,b,colour,label\n1,2,3,red,fox\n");
	fclose(f);
	snprintf(extra, sizeof extra, "test = %s\n", short_csv);
	expect_error(train_csv, "classification", extra, "t.ini:8: [data] test: ", "short.csv: class 'fox': expected one of");

	/* the multiplexer refuses both keys; generated data refuses a test file */
	rt_error err = {0};
	rt_spec spec;
	gp_problem p;
	memset(&spec, 0, sizeof spec);
	assert_int_equal(rt_spec_load_text(&spec, "m.ini", "[problem]\nkind = gp\n[data]\n"
					   "source = multiplexer\ntest_fraction = 0.2\n", &err), RT_OK);
	assert_int_equal(gp_problem_load(&spec, &p, &err), RT_ERR_INPUT);
	assert_non_null(strstr(err.msg, "m.ini:5: [data] test_fraction"));
	assert_non_null(strstr(err.msg, "no held-out set for the multiplexer"));
	rt_spec_free(&spec);
	memset(&spec, 0, sizeof spec);
	assert_int_equal(rt_spec_load_text(&spec, "s.ini", "[problem]\nkind = gp\n[data]\n"
					   "test = x.csv\n", &err), RT_OK);
	assert_int_equal(gp_problem_load(&spec, &p, &err), RT_ERR_INPUT);
	assert_non_null(strstr(err.msg, "s.ini:4: [data] test"));
	assert_non_null(strstr(err.msg, "use test_fraction"));
	rt_spec_free(&spec);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(split_rows_stratified),
		cmocka_unit_test(test_fraction_csv),
		cmocka_unit_test(test_fraction_polynomial),
		cmocka_unit_test(fitness_is_train_errors),
		cmocka_unit_test(test_file_csv),
		cmocka_unit_test(spec_errors),
	};
	return cmocka_run_group_tests_name("gp_split", tests, setup, tmp_teardown);
}
