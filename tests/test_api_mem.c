/* test_api_mem.c: the C API's CSR tables (svm), TSP instances from memory
 * (aco) and checkpoints (evoforge_job_set_checkpoint, evoforge_job_set_resume),
 * through include/evoforge.h alone: a CSR table trains the same model as the
 * LIBSVM file of the same rows and as the dense table of the same values, and
 * predicts the same labels; coordinates and a distance matrix give aco the
 * same best length as the TSPLIB file; bad CSR tables and matrices are errors
 * naming what is wrong; every kind stopped by its progress callback and
 * resumed from its checkpoint ends as the uninterrupted run. Leaks: the
 * sanitizer build. Run from the repository root. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <cmocka.h>

#include "evoforge.h"
#include "test_api_tmp.h"

#define ROWS 160
#define COLS 40
#define CITIES 40

static char tmpdir[] = "/tmp/evoforge-test-api-mem-XXXXXX";

/* ---- the sparse data: CSR, dense and a LIBSVM file of the same rows ------------- */

static int64_t indptr[ROWS + 1];
static int32_t indices[ROWS * COLS];
static double values[ROWS * COLS], labels[ROWS], dense[ROWS * COLS];
static char libsvm_path[300];

static uint32_t next(uint32_t *s)
{
	*s = *s * 1664525u + 1013904223u;
	return *s >> 8;
}

/* About 15% of the entries set, to multiples of 1/64 (exact in a float and
 * in the file's text); label 1 or 2 by a rule on the first columns. */
static void make_sparse(void)
{
	uint32_t s = 11;
	FILE *f;
	snprintf(libsvm_path, sizeof libsvm_path, "%s/train.libsvm", tmpdir);
	assert_non_null(f = fopen(libsvm_path, "w"));
	indptr[0] = 0;
	for (int r = 0; r < ROWS; r++) {
		double sum = 0;
		int64_t k = indptr[r];
		for (int c = 0; c < COLS; c++) {
			double v = next(&s) % 100 < 15 ? (double)((int)(next(&s) % 257) - 128) / 64.0 : 0;
			dense[r * COLS + c] = v;
			if (v == 0)
				continue;
			indices[k] = c;
			values[k++] = v;
			sum += c < 8 ? v : 0;
		}
		indptr[r + 1] = k;
		labels[r] = sum > 0 ? 1 : 2;
		fprintf(f, "%g", labels[r]);
		for (int64_t e = indptr[r]; e < k; e++)
			fprintf(f, " %d:%.9g", indices[e] + 1, values[e]);
		fprintf(f, "\n");
	}
	assert_int_equal(fclose(f), 0);
}

static const char svm_spec[] = "[problem]\nkind = svm\nname = sparse\n[svm]\nkernel = rbf\n"
			       "C = 10\ngamma = 0.05\n[data]\ntrain = %s\nfeatures = %d\n";

/* The file's contents (freed by the caller). */
static char *slurp(const char *dir, const char *name)
{
	char path[400];
	FILE *f;
	long n;
	char *text;
	snprintf(path, sizeof path, "%s/%s", dir, name);
	assert_non_null(f = fopen(path, "rb"));
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	rewind(f);
	assert_non_null(text = calloc((size_t)n + 1, 1));
	assert_int_equal(fread(text, 1, (size_t)n, f), (size_t)n);
	fclose(f);
	return text;
}

/* Trains svm on data (0: the LIBSVM file, 1: the CSR table, 2: the dense
 * table) into tmpdir/svmN; returns the job. */
static evoforge_job *svm_run(int data)
{
	char spec[600], dir[300];
	evoforge_job *job = NULL;
	snprintf(spec, sizeof spec, svm_spec, data ? "memory:train" : libsvm_path, COLS);
	snprintf(dir, sizeof dir, "%s/svm%d", tmpdir, data);
	assert_int_equal(evoforge_job_from_text(spec, &job), EVOFORGE_OK);
	assert_int_equal(evoforge_job_set_backend(job, "cpu"), EVOFORGE_OK);
	assert_int_equal(evoforge_job_set_output_dir(job, dir), EVOFORGE_OK);
	if (data == 1)
		assert_int_equal(evoforge_job_set_table_csr(job, "train", ROWS, COLS, indptr, indices,
							    values, labels), EVOFORGE_OK);
	if (data == 2)
		assert_int_equal(evoforge_job_set_table(job, "train", dense, ROWS, COLS, labels, NULL),
				 EVOFORGE_OK);
	if (evoforge_job_run(job) != EVOFORGE_OK)
		fail_msg("svm run %d: %s", data, evoforge_job_error(job));
	return job;
}

static void test_csr_svm(void **state)
{
	evoforge_job *job[3];
	double a, b, pd[ROWS], pc[ROWS];
	char *model[3];
	(void)state;
	for (int d = 0; d < 3; d++) {
		job[d] = svm_run(d);
		model[d] = slurp(evoforge_job_output_dir(job[d]), "model.txt");
	}
	assert_string_equal(model[0], model[1]);   /* the file and the CSR table: one model */
	assert_string_equal(model[2], model[1]);   /* ... and the dense table */
	assert_int_equal(evoforge_job_result_number(job[0], "support_vectors", &a), EVOFORGE_OK);
	assert_int_equal(evoforge_job_result_number(job[1], "support_vectors", &b), EVOFORGE_OK);
	assert_true(a == b && a > 0);
	assert_int_equal(evoforge_job_best(job[0], &a), EVOFORGE_OK);
	assert_int_equal(evoforge_job_best(job[1], &b), EVOFORGE_OK);
	assert_true(a == b && a > 0.8);
	assert_int_equal(evoforge_job_predict(job[1], dense, ROWS, COLS, NULL, pd), EVOFORGE_OK);
	assert_int_equal(evoforge_job_predict_csr(job[1], ROWS, COLS, indptr, indices, values, pc),
			 EVOFORGE_OK);
	for (int r = 0; r < ROWS; r++) {
		assert_true(pc[r] == pd[r]);
		assert_true(pc[r] == 1 || pc[r] == 2);
	}
	for (int d = 0; d < 3; d++) {
		free(model[d]);
		evoforge_job_free(job[d]);
	}
}

/* Sets a CSR table expecting EVOFORGE_ERR_INPUT whose message holds want. */
static void expect_bad_csr(long rows, int cols, const int64_t *ptr, const int32_t *idx,
			   const double *val, const double *y, const char *want)
{
	evoforge_job *job = NULL;
	char spec[600];
	snprintf(spec, sizeof spec, svm_spec, "memory:train", COLS);
	assert_int_equal(evoforge_job_from_text(spec, &job), EVOFORGE_OK);
	assert_int_equal(evoforge_job_set_table_csr(job, "train", rows, cols, ptr, idx, val, y),
			 EVOFORGE_ERR_INPUT);
	if (!strstr(evoforge_job_error(job), want))
		fail_msg("expected '%s' in: %s", want, evoforge_job_error(job));
	evoforge_job_free(job);
}

static void test_csr_bad(void **state)
{
	static const int64_t ragged[] = {0, 2, 1}, start[] = {1, 2, 3}, ok[] = {0, 2, 3};
	static const int32_t idx[] = {0, 5, 1}, unsorted[] = {3, 1, 0}, repeated[] = {1, 1, 0};
	static const double val[] = {1, 2, 3}, y[] = {1, 2}, nan_y[] = {1, NAN};
	double nan_val[] = {1, NAN, 3};
	evoforge_job *job = NULL;
	char spec[600];
	(void)state;
	expect_bad_csr(2, 4, ragged, idx, val, y, "non-decreasing indptr");
	expect_bad_csr(2, 4, start, idx, val, y, "indptr[0] = 0");
	expect_bad_csr(2, 4, ok, idx, val, y, "out of range");   /* index 5 of 4 columns */
	expect_bad_csr(2, 4, ok, unsorted, val, y, "ascending");
	expect_bad_csr(2, 4, ok, repeated, val, y, "without repeats");
	expect_bad_csr(2, 8, ok, idx, nan_val, y, "row 1, column 5");
	expect_bad_csr(2, 8, ok, idx, val, nan_y, "row 2: expected a finite label");
	expect_bad_csr(0, 8, ok, idx, val, y, "rows > 0");
	/* a NULL indptr is an argument error; a CSR table for gp is refused at the run */
	snprintf(spec, sizeof spec, svm_spec, "memory:train", COLS);
	assert_int_equal(evoforge_job_from_text(spec, &job), EVOFORGE_OK);
	assert_int_equal(evoforge_job_set_table_csr(job, "train", 2, 8, NULL, idx, val, y),
			 EVOFORGE_ERR_ARGUMENT);
	evoforge_job_free(job);
	assert_int_equal(evoforge_job_from_text("[problem]\nkind = gp\nname = g\n[gp]\npopulation = "
						"50\ngenerations = 1\n[data]\nsource = csv\nfile = memory:t\n", &job),
			 EVOFORGE_OK);
	assert_int_equal(evoforge_job_set_table_csr(job, "t", ROWS, COLS, indptr, indices, values,
						    labels), EVOFORGE_OK);
	assert_int_equal(evoforge_job_run(job), EVOFORGE_ERR_INPUT);
	if (!strstr(evoforge_job_error(job), "sparse (CSR)"))
		fail_msg("%s", evoforge_job_error(job));
	evoforge_job_free(job);
}

/* ---- aco: coordinates and a matrix from memory --------------------------------------- */

static double coords[CITIES * 2], matrix[CITIES * CITIES];
static char tsp_path[300];

/* Random cities with whole and half coordinates, their TSPLIB file (EUC_2D)
 * and their matrix of TSPLIB's lengths, nint(sqrt(dx^2 + dy^2)). */
static void make_cities(void)
{
	uint32_t s = 5;
	FILE *f;
	snprintf(tsp_path, sizeof tsp_path, "%s/cities.tsp", tmpdir);
	assert_non_null(f = fopen(tsp_path, "w"));
	fprintf(f, "NAME : cities\nTYPE : TSP\nDIMENSION : %d\nEDGE_WEIGHT_TYPE : EUC_2D\n"
		   "NODE_COORD_SECTION\n", CITIES);
	for (int i = 0; i < CITIES; i++) {
		coords[2 * i] = (double)(next(&s) % 2000) / 2.0;
		coords[2 * i + 1] = (double)(next(&s) % 2000) / 2.0;
		fprintf(f, "%d %.1f %.1f\n", i + 1, coords[2 * i], coords[2 * i + 1]);
	}
	fprintf(f, "EOF\n");
	assert_int_equal(fclose(f), 0);
	for (int i = 0; i < CITIES; i++)
		for (int j = 0; j < CITIES; j++) {
			double dx = coords[2 * i] - coords[2 * j], dy = coords[2 * i + 1] - coords[2 * j + 1];
			matrix[i * CITIES + j] = (int)(sqrt(dx * dx + dy * dy) + 0.5);
		}
}

static const char aco_spec[] = "[problem]\nkind = aco\nname = mem\n[data]\nfile = %s\n"
			       "[aco]\niterations = 30\n";

/* aco's best length on the instance data (0: the file, 1: coordinates, 2:
 * the matrix), or the status when it fails (its message into msg). */
static evoforge_status aco_run(int data, const double *table, int rows, int cols, double *best,
			       char *msg, size_t size)
{
	char spec[600];
	evoforge_job *job = NULL;
	evoforge_status st;
	snprintf(spec, sizeof spec, aco_spec, data ? "memory:cities" : tsp_path);
	assert_int_equal(evoforge_job_from_text(spec, &job), EVOFORGE_OK);
	assert_int_equal(evoforge_job_set_backend(job, "cpu"), EVOFORGE_OK);
	assert_int_equal(evoforge_job_set_seed(job, 3), EVOFORGE_OK);
	st = data ? evoforge_job_set_table(job, "cities", table, rows, cols, NULL, NULL) : EVOFORGE_OK;
	if (st == EVOFORGE_OK)
		st = evoforge_job_run(job);
	if (st == EVOFORGE_OK)
		assert_int_equal(evoforge_job_best(job, best), EVOFORGE_OK);
	snprintf(msg, size, "%s", evoforge_job_error(job));
	evoforge_job_free(job);
	return st;
}

static void test_aco_memory(void **state)
{
	double file = 0, xy = 0, m = 0;
	char msg[1024];
	(void)state;
	assert_int_equal(aco_run(0, NULL, 0, 0, &file, msg, sizeof msg), EVOFORGE_OK);
	assert_int_equal(aco_run(1, coords, CITIES, 2, &xy, msg, sizeof msg), EVOFORGE_OK);
	assert_int_equal(aco_run(2, matrix, CITIES, CITIES, &m, msg, sizeof msg), EVOFORGE_OK);
	assert_true(file > 0);
	assert_true(xy == file);
	assert_true(m == file);
}

static void test_aco_bad(void **state)
{
	double *bad = malloc(sizeof matrix), best;
	char msg[1024];
	(void)state;
	assert_non_null(bad);
	memcpy(bad, matrix, sizeof matrix);
	bad[1 * CITIES + 2] += 1;   /* d(2,3) != d(3,2) */
	assert_int_equal(aco_run(2, bad, CITIES, CITIES, &best, msg, sizeof msg), EVOFORGE_ERR_INPUT);
	assert_non_null(strstr(msg, "not symmetric"));
	memcpy(bad, matrix, sizeof matrix);
	bad[3] = -4;
	assert_int_equal(aco_run(2, bad, CITIES, CITIES, &best, msg, sizeof msg), EVOFORGE_ERR_INPUT);
	assert_non_null(strstr(msg, "expected a whole number from 0"));
	bad[3] = 2.5;
	assert_int_equal(aco_run(2, bad, CITIES, CITIES, &best, msg, sizeof msg), EVOFORGE_ERR_INPUT);
	assert_non_null(strstr(msg, "expected a whole number from 0"));
	/* neither n x 2 nor n x n */
	assert_int_equal(aco_run(2, matrix, CITIES, 3, &best, msg, sizeof msg), EVOFORGE_ERR_INPUT);
	if (!strstr(msg, "expected n x 2 coordinates (EUC_2D) or an n x n matrix"))
		fail_msg("%s", msg);
	free(bad);
}

/* ---- checkpoints: every kind stopped by its callback, then resumed ------------------- */

static const struct {
	const char *kind, *text;
} ckpt_cases[] = {
	{"gp", "[problem]\nkind = gp\nname = sextic\n[gp]\npopulation = 200\ngenerations = 12\n"
	       "functions = + - * /\n[data]\nsource = sextic\ncases = 200\n"},
	{"de", "[problem]\nkind = de\nname = de-small\n[de]\nfunction = rastrigin\ndim = 5\n"
	       "problems = 2\ngenerations = 200\n"},
	{"aco", "[problem]\nkind = aco\nname = aco-small\n[data]\nrandom = 30\nside = 10000\n"
		"[aco]\niterations = 40\n"},
	{"mbp", "[problem]\nkind = mbp\nname = mbp-xor\n[data]\nsource = xor\n[mbp]\nhidden = 4\n"
		"mode = online\nepochs = 600\n"},
	{"svm", "[problem]\nkind = svm\nname = svm-sonar\n[svm]\nkernel = rbf\nC = 10\n"
		"[data]\ntrain = uci/sonar.csv\nlabel = Class\n"},
};

static int stop_at(const char *line, void *user)
{
	int *left = user;
	(void)line;
	return --*left <= 0;
}

/* Runs case k into dir: every `every` steps a checkpoint, stopped at the
 * progress line `stop` (0: never), resumed from `resume` (NULL: none). */
static evoforge_job *ckpt_run(int k, const char *dir, long every, int stop, const char *resume)
{
	evoforge_job *job = NULL;
	static int left;
	assert_int_equal(evoforge_job_from_text(ckpt_cases[k].text, &job), EVOFORGE_OK);
	assert_int_equal(evoforge_job_set_backend(job, "cpu"), EVOFORGE_OK);
	assert_int_equal(evoforge_job_set_seed(job, 4), EVOFORGE_OK);
	assert_int_equal(evoforge_job_set_threads(job, 1), EVOFORGE_OK);
	assert_int_equal(evoforge_job_set_output_dir(job, dir), EVOFORGE_OK);
	assert_int_equal(evoforge_job_set_checkpoint(job, every), EVOFORGE_OK);
	assert_int_equal(evoforge_job_set_resume(job, resume), EVOFORGE_OK);
	left = stop;
	if (stop)
		assert_int_equal(evoforge_job_set_progress(job, stop_at, &left), EVOFORGE_OK);
	if (evoforge_job_run(job) != EVOFORGE_OK)
		fail_msg("%s: %s", ckpt_cases[k].kind, evoforge_job_error(job));
	return job;
}

static void test_checkpoint_resume(void **state)
{
	(void)state;
	for (int k = 0; k < (int)(sizeof ckpt_cases / sizeof ckpt_cases[0]); k++) {
		char ref[300], part[300], file[340];
		struct stat sb;
		double a, b;
		evoforge_job *whole, *stopped, *resumed;
		snprintf(ref, sizeof ref, "%s/ckpt-%s-ref", tmpdir, ckpt_cases[k].kind);
		snprintf(part, sizeof part, "%s/ckpt-%s", tmpdir, ckpt_cases[k].kind);
		snprintf(file, sizeof file, "%s/checkpoint.bin", part);
		whole = ckpt_run(k, ref, -1, 0, NULL);
		stopped = ckpt_run(k, part, 5, 2, NULL);
		assert_int_equal(evoforge_job_stopped(stopped), 1);
		if (stat(file, &sb) != 0)
			fail_msg("%s: no %s after the stop", ckpt_cases[k].kind, file);
		resumed = ckpt_run(k, part, 5, 0, file);
		assert_int_equal(evoforge_job_stopped(resumed), 0);
		assert_int_equal(evoforge_job_best(whole, &a), EVOFORGE_OK);
		assert_int_equal(evoforge_job_best(resumed, &b), EVOFORGE_OK);
		if (a != b)
			fail_msg("%s: resumed best %.17g, uninterrupted %.17g", ckpt_cases[k].kind, b, a);
		evoforge_job_free(whole);
		evoforge_job_free(stopped);
		evoforge_job_free(resumed);
	}
}

/* A checkpoint of another kind is refused at the run, naming the kinds. */
static void test_resume_wrong(void **state)
{
	evoforge_job *job = NULL;
	char file[340];
	(void)state;
	snprintf(file, sizeof file, "%s/ckpt-gp/checkpoint.bin", tmpdir);
	assert_int_equal(evoforge_job_from_text(ckpt_cases[1].text, &job), EVOFORGE_OK);
	assert_int_equal(evoforge_job_set_backend(job, "cpu"), EVOFORGE_OK);
	assert_int_equal(evoforge_job_set_resume(job, file), EVOFORGE_OK);
	assert_int_equal(evoforge_job_set_resume(job, ""), EVOFORGE_ERR_ARGUMENT);
	assert_int_equal(evoforge_job_run(job), EVOFORGE_ERR_INPUT);
	assert_non_null(strstr(evoforge_job_error(job), "gp"));
	evoforge_job_free(job);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_csr_svm),
		cmocka_unit_test(test_csr_bad),
		cmocka_unit_test(test_aco_memory),
		cmocka_unit_test(test_aco_bad),
		cmocka_unit_test(test_checkpoint_resume),
		cmocka_unit_test(test_resume_wrong),
	};
	int failed;
	if (!mkdtemp(tmpdir))
		return 1;
	make_sparse();
	make_cities();
	failed = cmocka_run_group_tests(tests, NULL, NULL);
	return api_tmp_end(tmpdir, failed);
}
