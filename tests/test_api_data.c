/* test_api_data.c: the C API's data from memory (evoforge_job_set_table),
 * through include/evoforge.h alone: for gp (regression, classification, a
 * test set), mbp and svm (train and test) the same rows given in memory and
 * as a CSV file give the same result with the same seed, double and float;
 * a label picked by name; bad tables (no rows, NaN, bad names) and unknown
 * "memory:" names are errors naming what is wrong. Leaks: the sanitizer
 * build. Run from the repository root. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "evoforge.h"
#include "test_api_tmp.h"

#define ROWS 240
#define COLS 3

static char tmpdir[] = "/tmp/evoforge-test-api-data-XXXXXX";
static const char *const names[COLS] = {"a", "b", "c"};

/* One data set: X row-major, y, and their float copies. */
typedef struct data_set {
	double x[ROWS * COLS], y[ROWS];
	float xf[ROWS * COLS], yf[ROWS];
	char csv[300];   /* the same rows as a CSV file: a,b,c,y */
} data_set;

static data_set reg, cls, cls_test, svm_train, svm_test;

/* Values exact in a float (multiples of 1/64), so that a CSV file's text and
 * the doubles round to the same floats. */
static double grid(uint32_t *s)
{
	*s = *s * 1664525u + 1013904223u;
	return (double)((int)(*s >> 20) % 257 - 128) / 64.0;
}

/* Fills d with rows of kind k (0: regression, 1: 3 classes 0..2, 2: svm
 * classes 1 and 2) and writes its CSV file. */
static void make_set(data_set *d, int k, uint32_t seed, const char *file)
{
	FILE *f;
	snprintf(d->csv, sizeof d->csv, "%s/%s", tmpdir, file);
	f = fopen(d->csv, "w");
	assert_non_null(f);
	fprintf(f, "a,b,c,y\n");
	for (int r = 0; r < ROWS; r++) {
		double *x = d->x + r * COLS, v;
		for (int c = 0; c < COLS; c++)
			x[c] = grid(&seed);
		v = x[0] * x[1] + x[2] + 0.25 * sin(3 * x[0]);
		d->y[r] = k == 0 ? (double)(float)v : k == 1 ? (v < -0.5 ? 0 : v < 0.5 ? 1 : 2)
				 : (x[0] * x[0] + x[1] * x[1] < 2 ? 1 : 2);
		for (int c = 0; c < COLS; c++) {
			d->xf[r * COLS + c] = (float)x[c];
			fprintf(f, "%.9g,", x[c]);
		}
		d->yf[r] = (float)d->y[r];
		fprintf(f, "%.9g\n", d->y[r]);
	}
	assert_int_equal(fclose(f), 0);
}

/* A job of text (with "%s" twice for the data names, train then test), run on
 * the CPU with seed 7: from the CSV files (mem 0), the double tables (1) or
 * the float tables (2). Returns the job (the caller frees it). */
static evoforge_job *run_job(const char *text, const data_set *train, const data_set *test,
			     int mem)
{
	char spec[2048];
	evoforge_job *job = NULL;
	snprintf(spec, sizeof spec, text, mem ? "memory:train" : train->csv,
		 !test ? "" : mem ? "memory:test" : test->csv);
	assert_int_equal(evoforge_job_from_text(spec, &job), EVOFORGE_OK);
	assert_int_equal(evoforge_job_set_backend(job, "cpu"), EVOFORGE_OK);
	assert_int_equal(evoforge_job_set_threads(job, 2), EVOFORGE_OK);
	assert_int_equal(evoforge_job_set_seed(job, 7), EVOFORGE_OK);
	for (int k = 0; mem && k < 2; k++) {
		const data_set *d = k ? test : train;
		const char *name = k ? "test" : "train";
		if (!d)
			continue;
		if (mem == 1)
			assert_int_equal(evoforge_job_set_table(job, name, d->x, ROWS, COLS, d->y, names),
					 EVOFORGE_OK);
		else
			assert_int_equal(evoforge_job_set_table_float(job, name, d->xf, ROWS, COLS, d->yf,
								      names), EVOFORGE_OK);
	}
	if (evoforge_job_run(job) != EVOFORGE_OK)
		fail_msg("mem %d: %s", mem, evoforge_job_error(job));
	return job;
}

/* The numbers at paths (NULL-ended) are the same from the file, the double
 * table and the float table. */
static void same_results(const char *text, const data_set *train, const data_set *test,
			 const char *const *paths)
{
	double v[3][4];
	for (int mem = 0; mem < 3; mem++) {
		evoforge_job *job = run_job(text, train, test, mem);
		assert_int_equal(evoforge_job_best(job, &v[mem][0]), EVOFORGE_OK);
		for (int i = 0; paths[i]; i++)
			if (evoforge_job_result_number(job, paths[i], &v[mem][i + 1]) != EVOFORGE_OK)
				fail_msg("%s: %s", paths[i], evoforge_job_error(job));
		evoforge_job_free(job);
	}
	print_message("best %.9g, %s %.9g\n", v[0][0], paths[0], v[0][1]);
	for (int i = 0; i == 0 || paths[i - 1]; i++) {
		if (v[1][i] != v[0][i] || v[2][i] != v[0][i])
			fail_msg("%s: file %.17g, double %.17g, float %.17g", i ? paths[i - 1] : "best",
				 v[0][i], v[1][i], v[2][i]);
	}
}

/* ---- the same results as from the file ---------------------------------------- */

static void test_gp_regression(void **state)
{
	static const char *const paths[] = {"best.size", "best.generation", NULL};
	(void)state;
	same_results("[problem]\nkind = gp\n[gp]\npopulation = 200\ngenerations = 6\n"
		     "functions = + - * /\n[data]\nsource = csv\nfile = %s\nfitness = mse\n%s",
		     &reg, NULL, paths);
}

static void test_gp_classification(void **state)
{
	static const char *const paths[] = {"holdout.test_accuracy", NULL};
	(void)state;
	same_results("[problem]\nkind = gp\n[gp]\npopulation = 200\ngenerations = 6\n"
		     "functions = + - * / > <\n[data]\nsource = csv\nfile = %s\ntest = %s\n"
		     "fitness = classification\n", &cls, &cls_test, paths);
}

static void test_mbp(void **state)
{
	static const char *const paths[] = {"best_valid_rms", NULL};
	(void)state;
	same_results("[problem]\nkind = mbp\n[data]\nsource = csv\nfile = %s\nsplit = alternate\n"
		     "%s[mbp]\nhidden = 4\nmode = batch\nepochs = 300\nreport_every = 100\n",
		     &reg, NULL, paths);
}

static void test_svm(void **state)
{
	static const char *const paths[] = {"train_accuracy", "test_accuracy", NULL};
	(void)state;
	same_results("[problem]\nkind = svm\n[svm]\nkernel = rbf\nC = 10\n[data]\ntrain = %s\n"
		     "test = %s\n", &svm_train, &svm_test, paths);
}

/* label = b: column b is the label, y an input, as in the file. */
static void test_label_by_name(void **state)
{
	static const char *const paths[] = {"best.size", "best.generation", NULL};
	(void)state;
	same_results("[problem]\nkind = gp\n[gp]\npopulation = 100\ngenerations = 3\n"
		     "functions = + - *\n[data]\nsource = csv\nfile = %s\nlabel = b\nfitness = mse\n%s",
		     &reg, NULL, paths);
}

/* ---- errors ---------------------------------------------------------------------- */

static void expect_error(evoforge_job *job, evoforge_status got, evoforge_status want,
			 const char *a, const char *b)
{
	const char *msg = evoforge_job_error(job);
	if (got != want || !strstr(msg, a) || (b && !strstr(msg, b)))
		fail_msg("expected %s with '%s' and '%s', got %s: %s", evoforge_status_name(want), a,
			 b ? b : "", evoforge_status_name(got), msg);
}

static void test_unknown_name(void **state)
{
	evoforge_job *job = NULL;
	(void)state;
	assert_int_equal(evoforge_job_from_text("[problem]\nkind = gp\n[gp]\npopulation = 50\n"
						"generations = 2\n[data]\nsource = csv\n"
						"file = memory:nosuch\nfitness = mse\n", &job),
			 EVOFORGE_OK);
	assert_int_equal(evoforge_job_set_backend(job, "cpu"), EVOFORGE_OK);
	assert_int_equal(evoforge_job_set_table(job, "train", reg.x, ROWS, COLS, reg.y, NULL),
			 EVOFORGE_OK);
	expect_error(job, evoforge_job_run(job), EVOFORGE_ERR_INPUT, "memory:nosuch", "train");
	assert_null(evoforge_job_result_json(job));
	evoforge_job_free(job);
	/* svm's test set names a table that is not there */
	assert_int_equal(evoforge_job_from_text("[problem]\nkind = svm\n[data]\ntrain = memory:train\n"
						"test = memory:tset\n", &job), EVOFORGE_OK);
	assert_int_equal(evoforge_job_set_backend(job, "cpu"), EVOFORGE_OK);
	assert_int_equal(evoforge_job_set_table(job, "train", svm_train.x, ROWS, COLS, svm_train.y,
						NULL), EVOFORGE_OK);
	expect_error(job, evoforge_job_run(job), EVOFORGE_ERR_INPUT, "'tset'", NULL);
	evoforge_job_free(job);
}

static void test_bad_tables(void **state)
{
	static double x[6] = {1, 2, 3, 4, 5, 6}, y[3] = {0, 1, 0};
	static const char *const dup[2] = {"p", "p"}, *const why[2] = {"p", "y"};
	static const char *const comma[2] = {"p", "q,r"}, *const none[2] = {"p", NULL};
	evoforge_job *job = NULL;
	(void)state;
	assert_int_equal(evoforge_job_from_text("[problem]\nkind = gp\n[data]\nsource = csv\n"
						"file = memory:t\n", &job), EVOFORGE_OK);
	expect_error(job, evoforge_job_set_table(job, "t", x, 0, 2, y, NULL), EVOFORGE_ERR_INPUT,
		     "0 rows", NULL);
	expect_error(job, evoforge_job_set_table(job, "t", x, 3, 0, y, NULL), EVOFORGE_ERR_INPUT,
		     "0 cols", NULL);
	expect_error(job, evoforge_job_set_table(job, "t", x, -5, 2, y, NULL), EVOFORGE_ERR_INPUT,
		     "rows > 0", NULL);
	expect_error(job, evoforge_job_set_table(job, "t", x, 3, 5000, y, NULL), EVOFORGE_ERR_INPUT,
		     "5000 columns", NULL);
	x[3] = NAN;   /* row 2, column 2 */
	expect_error(job, evoforge_job_set_table(job, "t", x, 3, 2, y, NULL), EVOFORGE_ERR_INPUT,
		     "row 2, column 2 ('x2')", "finite");
	x[3] = 4;
	y[2] = INFINITY;
	expect_error(job, evoforge_job_set_table(job, "t", x, 3, 2, y, NULL), EVOFORGE_ERR_INPUT,
		     "row 3, y", "inf");
	y[2] = 1e300;   /* beyond a float */
	expect_error(job, evoforge_job_set_table(job, "t", x, 3, 2, y, NULL), EVOFORGE_ERR_INPUT,
		     "row 3, y", "float");
	y[2] = 0;
	expect_error(job, evoforge_job_set_table(job, "t", x, 3, 2, y, dup), EVOFORGE_ERR_INPUT,
		     "both named 'p'", NULL);
	expect_error(job, evoforge_job_set_table(job, "t", x, 3, 2, y, why), EVOFORGE_ERR_INPUT,
		     "both named 'y'", NULL);
	expect_error(job, evoforge_job_set_table(job, "t", x, 3, 2, y, comma), EVOFORGE_ERR_INPUT,
		     "'q,r'", NULL);
	expect_error(job, evoforge_job_set_table(job, "t", x, 3, 2, y, none), EVOFORGE_ERR_INPUT,
		     "column 2", "NULL");
	expect_error(job, evoforge_job_set_table(job, "a b", x, 3, 2, y, NULL), EVOFORGE_ERR_INPUT,
		     "'a b'", NULL);
	expect_error(job, evoforge_job_set_table(job, "", x, 3, 2, y, NULL), EVOFORGE_ERR_INPUT,
		     "table name", NULL);
	expect_error(job, evoforge_job_set_table(job, "t", NULL, 3, 2, y, NULL),
		     EVOFORGE_ERR_ARGUMENT, "NULL X", NULL);
	/* without y: the table is its columns only, valid; given again, replaced */
	assert_int_equal(evoforge_job_set_table(job, "t", x, 3, 2, NULL, why), EVOFORGE_OK);
	assert_int_equal(evoforge_job_set_table(job, "t", x, 3, 2, y, why), EVOFORGE_ERR_INPUT);
	assert_int_equal(evoforge_job_set_table(job, "t", x, 3, 2, y, NULL), EVOFORGE_OK);
	evoforge_job_free(job);
	assert_int_equal(evoforge_job_set_table(NULL, "t", x, 3, 2, y, NULL), EVOFORGE_ERR_ARGUMENT);
}

/* After the run, tables are refused; the job's tables do not outlive it. */
static void test_state(void **state)
{
	evoforge_job *job = run_job("[problem]\nkind = gp\n[gp]\npopulation = 50\ngenerations = 2\n"
				    "[data]\nsource = csv\nfile = %s\nfitness = mse\n%s", &reg, NULL, 1);
	(void)state;
	assert_int_equal(evoforge_job_set_table(job, "train", reg.x, ROWS, COLS, reg.y, NULL),
			 EVOFORGE_ERR_STATE);
	evoforge_job_free(job);
	/* a later job without tables: "memory:train" is unknown again */
	assert_int_equal(evoforge_job_from_text("[problem]\nkind = gp\n[data]\nsource = csv\n"
						"file = memory:train\nfitness = mse\n", &job), EVOFORGE_OK);
	assert_int_equal(evoforge_job_set_backend(job, "cpu"), EVOFORGE_OK);
	expect_error(job, evoforge_job_run(job), EVOFORGE_ERR_INPUT, "memory:train", "none");
	evoforge_job_free(job);
}

static int setup(void **state)
{
	(void)state;
	if (!mkdtemp(tmpdir))
		return -1;
	make_set(&reg, 0, 11, "reg.csv");
	make_set(&cls, 1, 12, "cls.csv");
	make_set(&cls_test, 1, 13, "cls_test.csv");
	make_set(&svm_train, 2, 14, "svm_train.csv");
	make_set(&svm_test, 2, 15, "svm_test.csv");
	return 0;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_gp_regression),
		cmocka_unit_test(test_gp_classification),
		cmocka_unit_test(test_mbp),
		cmocka_unit_test(test_svm),
		cmocka_unit_test(test_label_by_name),
		cmocka_unit_test(test_unknown_name),
		cmocka_unit_test(test_bad_tables),
		cmocka_unit_test(test_state),
	};
	int failed = cmocka_run_group_tests(tests, setup, NULL);
	return api_tmp_end(tmpdir, failed);
}
