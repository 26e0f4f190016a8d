/* test_api_predict.c: the C API's predictions from memory
 * (evoforge_job_predict, evoforge_job_from_result), through include/evoforge.h
 * alone: for gp and svm the predictions on new rows equal what `evoforge
 * eval` writes for the same model and rows, from the job that ran and from a
 * job made of its result.json; bad input and calls out of order are errors
 * naming what is wrong. Run from the repository root (build/evoforge). */
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

#define ROWS 96
#define NEW 40

static char tmpdir[] = "/tmp/evoforge-test-api-predict-XXXXXX";
static double X[ROWS * 3], y[ROWS], cls[ROWS], Xn[NEW * 3];

/* Multiples of 1/64: the same floats from a CSV file's text and from doubles. */
static double grid(uint32_t *s)
{
	*s = *s * 1664525u + 1013904223u;
	return (double)((int)(*s >> 20) % 129 - 64) / 64.0;
}

static int setup(void **state)
{
	uint32_t s = 11;
	(void)state;
	if (!mkdtemp(tmpdir))
		return -1;
	for (int r = 0; r < ROWS; r++) {
		double *x = X + r * 3;
		for (int c = 0; c < 3; c++)
			x[c] = grid(&s);
		y[r] = x[0] * x[1] + x[2];
		cls[r] = x[0] + x[2] > 0 ? 1 : 0;
	}
	for (int i = 0; i < NEW * 3; i++)
		Xn[i] = grid(&s);
	return 0;
}

/* Xn as a CSV file x1,x2,x3[,y] (y = 0 when label). */
static void write_new(const char *path, int label)
{
	FILE *f = fopen(path, "w");
	assert_non_null(f);
	fprintf(f, "x1,x2,x3%s\n", label ? ",y" : "");
	for (int r = 0; r < NEW; r++)
		fprintf(f, "%.9g,%.9g,%.9g%s\n", Xn[r * 3], Xn[r * 3 + 1], Xn[r * 3 + 2],
			label ? ",0" : "");
	assert_int_equal(fclose(f), 0);
}

/* `evoforge eval RESULT DATA -o OUT`'s first column into out[NEW]. */
static void cli_eval(const char *result, const char *data, double *out)
{
	char cmd[1024], path[300], line[256];
	FILE *f;
	int n = 0;
	snprintf(path, sizeof path, "%s/eval.csv", tmpdir);
	snprintf(cmd, sizeof cmd, "build/evoforge eval %s %s -o %s --backend cpu >/dev/null 2>&1",
		 result, data, path);
	assert_int_equal(system(cmd), 0);
	f = fopen(path, "r");
	assert_non_null(f);
	while (fgets(line, sizeof line, f) && n < NEW) {
		char *end;
		double v = strtod(line, &end);
		if (end != line)
			out[n++] = v;
	}
	fclose(f);
	assert_int_equal(n, NEW);
}

/* Runs spec on X (y or cls) into tmpdir/name; predicts Xn from the job and
 * from its result.json; both equal the CLI's eval of DATA. */
static void check_kind(const char *spec, const double *labels, const char *name, int label_col)
{
	evoforge_job *job = NULL, *again = NULL;
	char dir[200], result[260], data[260];
	double p1[NEW], p2[NEW], want[NEW];
	snprintf(dir, sizeof dir, "%s/%s", tmpdir, name);
	snprintf(result, sizeof result, "%s/result.json", dir);
	snprintf(data, sizeof data, "%s/%s-new.csv", tmpdir, name);
	assert_int_equal(evoforge_job_from_text(spec, &job), EVOFORGE_OK);
	assert_int_equal(evoforge_job_set_backend(job, "cpu"), EVOFORGE_OK);
	assert_int_equal(evoforge_job_set_seed(job, 5), EVOFORGE_OK);
	assert_int_equal(evoforge_job_set_output_dir(job, dir), EVOFORGE_OK);
	assert_int_equal(evoforge_job_set_table(job, "train", X, ROWS, 3, labels, NULL), EVOFORGE_OK);
	assert_int_equal(evoforge_job_predict(job, Xn, NEW, 3, NULL, p1), EVOFORGE_ERR_STATE);
	assert_int_equal(evoforge_job_run(job), EVOFORGE_OK);
	assert_int_equal(evoforge_job_predict(job, Xn, NEW, 3, NULL, p1), EVOFORGE_OK);
	assert_int_equal(evoforge_job_from_result(result, &again), EVOFORGE_OK);
	assert_string_equal(evoforge_job_kind(again), evoforge_job_kind(job));
	assert_int_equal(evoforge_job_set_backend(again, "cpu"), EVOFORGE_OK);
	assert_int_equal(evoforge_job_set(again, "gp.population", "10"), EVOFORGE_ERR_STATE);
	assert_int_equal(evoforge_job_run(again), EVOFORGE_ERR_STATE);
	assert_int_equal(evoforge_job_predict(again, Xn, NEW, 3, NULL, p2), EVOFORGE_OK);
	write_new(data, label_col);
	cli_eval(result, data, want);
	for (int r = 0; r < NEW; r++) {
		assert_true(p1[r] == want[r]);
		assert_true(p2[r] == want[r]);
	}
	evoforge_job_free(again);
	evoforge_job_free(job);
}

static void test_gp(void **state)
{
	(void)state;
	check_kind("[problem]\nkind = gp\n[gp]\npopulation = 200\ngenerations = 10\n"
		   "[data]\nsource = csv\nfile = memory:train\nfitness = mse\n", y, "gp", 0);
	check_kind("[problem]\nkind = gp\n[gp]\npopulation = 200\ngenerations = 5\n"
		   "[data]\nsource = csv\nfile = memory:train\nfitness = classification\n", cls,
		   "gpc", 0);
}

static void test_svm(void **state)
{
	(void)state;
	check_kind("[problem]\nkind = svm\n[svm]\nC = 4\n[data]\ntrain = memory:train\n", cls,
		   "svm", 1);
}

/* NaN in X, NULL arguments, a missing result, a kind that does not predict. */
static void test_errors(void **state)
{
	evoforge_job *job = NULL;
	char result[260];
	double out[NEW], bad[3] = {1, NAN, 2};
	(void)state;
	snprintf(result, sizeof result, "%s/gp/result.json", tmpdir);
	assert_int_equal(evoforge_job_from_result(result, &job), EVOFORGE_OK);
	assert_int_equal(evoforge_job_predict(job, bad, 1, 3, NULL, out), EVOFORGE_ERR_INPUT);
	assert_non_null(strstr(evoforge_job_error(job), "row 1"));
	assert_int_equal(evoforge_job_predict(job, NULL, 1, 3, NULL, out), EVOFORGE_ERR_ARGUMENT);
	assert_int_equal(evoforge_job_predict(job, Xn, 0, 3, NULL, out), EVOFORGE_ERR_INPUT);
	assert_int_equal(evoforge_job_predict(job, Xn, NEW, 2, NULL, out), EVOFORGE_ERR_INPUT);
	evoforge_job_free(job);
	assert_int_equal(evoforge_job_from_result("/nonexistent/result.json", &job),
			 EVOFORGE_ERR_INPUT);
	assert_non_null(job);
	assert_non_null(strstr(evoforge_job_error(job), "/nonexistent/result.json"));
	assert_int_equal(evoforge_job_predict(job, Xn, 1, 3, NULL, out), EVOFORGE_ERR_INPUT);
	evoforge_job_free(job);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_gp),
		cmocka_unit_test(test_svm),
		cmocka_unit_test(test_errors),
	};
	int failed = cmocka_run_group_tests(tests, setup, NULL);
	return api_tmp_end(tmpdir, failed);
}
