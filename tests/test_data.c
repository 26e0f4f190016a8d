/* test_data.c: the CSV, LIBSVM and TSPLIB loaders and TSPLIB .tour files on
 * small files written to a temporary folder (good input, every kind of bad
 * input with its exact message), on the shipped UCI CSVs in data/uci/, and
 * on the datasets not shipped (KDD Cup, a9a, TSPLIB) in ../shared/data when
 * present (test_datasets.h). */
#include <dirent.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <zlib.h>
#include <cmocka.h>

#include "data.h"
#include "test_datasets.h"

#define SHARED TEST_SHARED_DATA

static char g_dir[256];

/* ---- helpers -------------------------------------------------------------- */

static const char *tmp_path(char *buf, size_t n, const char *name)
{
	snprintf(buf, n, "%s/%s", g_dir, name);
	return buf;
}

static void write_text(const char *path, const char *text)
{
	FILE *f = fopen(path, "wb");
	assert_non_null(f);
	assert_int_equal(fwrite(text, 1, strlen(text), f), strlen(text));
	assert_int_equal(fclose(f), 0);
}

static void write_gz(const char *path, const char *text)
{
	gzFile g = gzopen(path, "wb");
	assert_non_null(g);
	assert_int_equal(gzwrite(g, text, (unsigned)strlen(text)), (int)strlen(text));
	assert_int_equal(gzclose(g), Z_OK);
}

/* Whether a shared dataset (not shipped) may be used; says SKIP and why if not. */
static int need(const char *path)
{
	return test_shared_present(path);
}

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* Writes text to name, loads it as CSV and expects failure with path + suffix. */
static void csv_fails(const char *name, const char *text, const rt_csv_options *o, const char *suffix)
{
	char path[512], want[1024];
	rt_table t;
	rt_error err;

	tmp_path(path, sizeof path, name);
	write_text(path, text);
	assert_int_equal(rt_csv_load(path, o, &t, &err), RT_ERR_INPUT);
	snprintf(want, sizeof want, "%s%s", path, suffix);
	assert_string_equal(err.msg, want);
	assert_null(t.cols);
	assert_int_equal(t.nrows, 0);
}

static void svm_fails(const char *name, const char *text, int nfeatures, const char *suffix)
{
	char path[512], want[1024];
	rt_table t;
	rt_error err;

	tmp_path(path, sizeof path, name);
	write_text(path, text);
	assert_int_equal(rt_libsvm_load(path, nfeatures, &t, &err), RT_ERR_INPUT);
	snprintf(want, sizeof want, "%s%s", path, suffix);
	assert_string_equal(err.msg, want);
	assert_null(t.cols);
}

static void tsp_fails(const char *name, const char *text, const char *suffix)
{
	char path[512], want[1024];
	rt_tsp t;
	rt_error err;

	tmp_path(path, sizeof path, name);
	write_text(path, text);
	assert_int_equal(rt_tsp_load(path, &t, &err), RT_ERR_INPUT);
	snprintf(want, sizeof want, "%s%s", path, suffix);
	assert_string_equal(err.msg, want);
	assert_null(t.x);
	assert_int_equal(t.n, 0);
}

/* ---- CSV ------------------------------------------------------------------ */

static void csv_header_types_and_label(void **state)
{
	char path[512];
	rt_table t;
	rt_error err;
	(void)state;

	write_text(tmp_path(path, sizeof path, "mixed.csv"),
	           "a,b,colour,class\n"
	           "1.5,-2,red,yes\n"
	           "3,4e2,blue,no\n"
	           "0.25,.5,red,yes\n");
	assert_int_equal(rt_csv_load(path, NULL, &t, &err), RT_OK);
	assert_string_equal(t.path, path);
	assert_int_equal(t.nrows, 3);
	assert_int_equal(t.ncols, 3);
	assert_string_equal(t.colnames[0], "a");
	assert_string_equal(t.colnames[1], "b");
	assert_string_equal(t.colnames[2], "colour");
	assert_true(rt_table_at(&t, 0, 0) == 1.5f);
	assert_true(rt_table_at(&t, 0, 2) == 0.25f);
	assert_true(rt_table_at(&t, 1, 0) == -2.0f);
	assert_true(rt_table_at(&t, 1, 1) == 400.0f);
	assert_true(rt_table_at(&t, 1, 2) == 0.5f);
	assert_int_equal(t.cats[0].n, 0);
	assert_int_equal(t.cats[1].n, 0);
	assert_int_equal(t.cats[2].n, 2);
	assert_string_equal(t.cats[2].names[0], "red");
	assert_string_equal(t.cats[2].names[1], "blue");
	assert_true(rt_table_at(&t, 2, 0) == 0.0f);
	assert_true(rt_table_at(&t, 2, 1) == 1.0f);
	assert_true(rt_table_at(&t, 2, 2) == 0.0f);
	assert_true(t.has_label);
	assert_string_equal(t.label_name, "class");
	assert_int_equal(t.classes.n, 2);
	assert_string_equal(t.classes.names[0], "yes");
	assert_string_equal(t.classes.names[1], "no");
	assert_true(t.label[0] == 0.0f && t.label[1] == 1.0f && t.label[2] == 0.0f);
	rt_table_free(&t);
	assert_null(t.cols);

	/* The label by name, from the middle: a numeric label; "class" is an input. */
	rt_csv_options o = rt_csv_defaults();
	o.label = "b";
	assert_int_equal(rt_csv_load(path, &o, &t, &err), RT_OK);
	assert_int_equal(t.ncols, 3);
	assert_string_equal(t.label_name, "b");
	assert_string_equal(t.colnames[1], "colour");
	assert_string_equal(t.colnames[2], "class");
	assert_int_equal(t.classes.n, 0);
	assert_true(t.label[0] == -2.0f && t.label[1] == 400.0f && t.label[2] == 0.5f);
	assert_int_equal(t.cats[2].n, 2);
	rt_table_free(&t);

	/* No label at all. */
	o = rt_csv_defaults();
	o.label_index = -2;
	assert_int_equal(rt_csv_load(path, &o, &t, &err), RT_OK);
	assert_int_equal(t.ncols, 4);
	assert_false(t.has_label);
	assert_null(t.label);
	assert_null(t.label_name);
	assert_int_equal(t.cats[3].n, 2);
	rt_table_free(&t);
}

static void csv_no_header_label_first(void **state)
{
	char path[512];
	rt_table t;
	rt_error err;
	rt_csv_options o = rt_csv_defaults();
	(void)state;

	o.header = 0;
	o.label_index = 0;
	o.delimiter = ';';
	write_text(tmp_path(path, sizeof path, "noheader.csv"),
	           "T;2;8\n"
	           "I;5;12\n"
	           "T;-1;0.125\n");
	assert_int_equal(rt_csv_load(path, &o, &t, &err), RT_OK);
	assert_int_equal(t.nrows, 3);
	assert_int_equal(t.ncols, 2);
	assert_string_equal(t.colnames[0], "x1");
	assert_string_equal(t.colnames[1], "x2");
	assert_string_equal(t.label_name, "label");
	assert_int_equal(t.classes.n, 2);
	assert_string_equal(t.classes.names[1], "I");
	assert_true(t.label[0] == 0.0f && t.label[1] == 1.0f && t.label[2] == 0.0f);
	assert_true(rt_table_at(&t, 0, 2) == -1.0f);
	assert_true(rt_table_at(&t, 1, 2) == 0.125f);
	rt_table_free(&t);
}

static void csv_crlf_quotes_blank_lines(void **state)
{
	char path[512];
	rt_table t;
	rt_error err;
	(void)state;

	/* A byte order mark, CRLF, quoted fields, blanks around fields, a
	 * categorical column whose later values look like numbers, a last line
	 * without a newline and trailing blank lines. */
	write_text(tmp_path(path, sizeof path, "crlf.csv"),
	           "\xEF\xBB\xBF\"x\", y ,kind\r\n"
	           " 1 ,\"a,b\",A\r\n"
	           "\r\n"
	           "2,\"say \"\"hi\"\"\", 5 \r\n"
	           "-0.25,-inf,A\r\n"
	           "\r\n  \r\n");
	rt_csv_options o = rt_csv_defaults();
	o.label_index = -2;
	assert_int_equal(rt_csv_load(path, &o, &t, &err), RT_OK);
	assert_int_equal(t.nrows, 3);
	assert_int_equal(t.ncols, 3);
	assert_string_equal(t.colnames[0], "x");
	assert_string_equal(t.colnames[1], "y");
	assert_string_equal(t.colnames[2], "kind");
	assert_true(rt_table_at(&t, 0, 0) == 1.0f);
	assert_true(rt_table_at(&t, 0, 1) == 2.0f);
	assert_true(rt_table_at(&t, 0, 2) == -0.25f);
	assert_int_equal(t.cats[1].n, 3);
	assert_string_equal(t.cats[1].names[0], "a,b");
	assert_string_equal(t.cats[1].names[1], "say \"hi\"");
	assert_string_equal(t.cats[1].names[2], "-inf");
	assert_int_equal(t.cats[2].n, 2);
	assert_string_equal(t.cats[2].names[1], "5");
	assert_true(rt_table_at(&t, 2, 2) == 0.0f);
	rt_table_free(&t);
}

static void csv_many_rows_and_long_line(void **state)
{
	char path[512];
	rt_table t;
	rt_error err;
	const int n = 200000;   /* ~2.6 MB: lines straddle the reader's 1 MiB reads */
	size_t cap = (size_t)n * 32 + 64, k = 0;
	char *text = malloc(cap);
	(void)state;

	assert_non_null(text);
	k += (size_t)snprintf(text + k, cap - k, "i,half,y\n");
	for (int i = 0; i < n; i++)
		k += (size_t)snprintf(text + k, cap - k, "%d,%d.5,%d\n", i, i, -i);
	write_text(tmp_path(path, sizeof path, "rows.csv"), text);
	assert_int_equal(rt_csv_load(path, NULL, &t, &err), RT_OK);
	assert_int_equal(t.nrows, (size_t)n);
	int bad = 0;
	for (int i = 0; i < n; i++)
		bad += rt_table_at(&t, 0, (size_t)i) != (float)i ||
		       rt_table_at(&t, 1, (size_t)i) != (float)i + 0.5f || t.label[i] != (float)-i;
	assert_int_equal(bad, 0);
	rt_table_free(&t);

	/* One 3 MB field: the reader's buffer grows to hold the line. */
	size_t big = 3u << 20;
	char *line = malloc(big + 64);
	assert_non_null(line);
	memcpy(line, "a,b\n1,", 6);
	memset(line + 6, 'x', big);
	strcpy(line + 6 + big, "\n2,y\n");
	write_text(tmp_path(path, sizeof path, "long.csv"), line);
	assert_int_equal(rt_csv_load(path, NULL, &t, &err), RT_OK);
	assert_int_equal(t.nrows, 2);
	assert_int_equal(strlen(t.classes.names[0]), big);
	assert_string_equal(t.classes.names[1], "y");
	rt_table_free(&t);
	free(line);
	free(text);
}

static void csv_errors(void **state)
{
	char path[512], want[1024];
	rt_table t;
	rt_error err;
	rt_csv_options o = rt_csv_defaults();
	(void)state;

	csv_fails("nan.csv", "a,b\n1,2\n3,xyz\n", NULL, ":3:3: expected a number in column 'b', got 'xyz'");
	csv_fails("col.csv", "a,b\n1, 2\n3,  q\n", NULL, ":3:5: expected a number in column 'b', got 'q'");
	csv_fails("empty_field.csv", "a,b,c\n1,2,3\n4,,6\n", NULL, ":3:3: expected a number in column 'b', got an empty field (missing values are not supported)");
	csv_fails("few.csv", "a,b,c\n1,2,3\n4,5\n", NULL, ":3: expected 3 fields, got 2");
	csv_fails("many.csv", "a,b\n1,2\n\n1,2,3,4\n", NULL, ":4: expected 2 fields, got 4");
	csv_fails("quote.csv", "a,b\n1,\"open\n", NULL, ":2:3: expected a closing '\"', got the end of the line");
	csv_fails("afterquote.csv", "a,b\n1,\"x\"y\n", NULL,
	          ":2:6: expected ',' or the end of the line after a closing '\"', got 'y'");
	csv_fails("inner_quote.csv", "a\"b,c\n1,u\n3,\"x,\"\"y\",z\n", NULL, ":3: expected 2 fields, got 3");
	csv_fails("empty.csv", "", NULL, ": empty file: expected a header line and data rows");
	csv_fails("blank.csv", "\n \n\r\n", NULL, ": empty file: expected a header line and data rows");
	csv_fails("header_only.csv", "a,b\n\n", NULL, ": expected data rows after the header, got none");
	o.label = "nope";
	csv_fails("noname.csv", "\na,b\n1,2\n", &o, ":2: expected a column named 'nope' (the label) in the header, got none");
	o = rt_csv_defaults();
	o.label_index = 5;
	csv_fails("range.csv", "a,b\n1,2\n", &o,
	          ": label column index 5 is out of range (the file has 2 columns, 0-based; -1 = last, -2 = none)");
	o = rt_csv_defaults();
	o.header = 0;
	o.label = "a";
	csv_fails("needheader.csv", "1,2\n", &o,
	          ": label column 'a' is named, but the file is read without a header (give its index instead)");

	/* A missing file: the system's reason. */
	tmp_path(path, sizeof path, "missing.csv");
	assert_int_equal(rt_csv_load(path, NULL, &t, &err), RT_ERR_INPUT);
	snprintf(want, sizeof want, "%s: cannot open: No such file or directory", path);
	assert_string_equal(err.msg, want);
	/* A folder. */
	assert_int_equal(rt_csv_load(g_dir, NULL, &t, &err), RT_ERR_INPUT);
	snprintf(want, sizeof want, "%s: cannot read: Is a directory", g_dir);
	assert_string_equal(err.msg, want);
}

static void csv_too_many_categories(void **state)
{
	char path[512], want[1024];
	rt_table t;
	rt_error err;
	size_t cap = (size_t)(RT_DATA_MAX_CATEGORIES + 2) * 16, k = 0;
	char *text = malloc(cap);
	(void)state;

	assert_non_null(text);
	k += (size_t)snprintf(text + k, cap - k, "s,y\n");
	for (int i = 0; i <= RT_DATA_MAX_CATEGORIES; i++)
		k += (size_t)snprintf(text + k, cap - k, "s%d,1\n", i);
	write_text(tmp_path(path, sizeof path, "cats.csv"), text);
	free(text);
	assert_int_equal(rt_csv_load(path, NULL, &t, &err), RT_ERR_INPUT);
	snprintf(want, sizeof want,
	         "%s:%d:1: column 's' has more than %d distinct strings (RT_DATA_MAX_CATEGORIES), got 's%d'",
	         path, RT_DATA_MAX_CATEGORIES + 2, RT_DATA_MAX_CATEGORIES, RT_DATA_MAX_CATEGORIES);
	assert_string_equal(err.msg, want);
}

static void csv_gzip(void **state)
{
	char plain[512], gz[512], want[1024];
	rt_table a, b;
	rt_error err;
	size_t cap = 4000 * 48, k = 0;
	char *text = malloc(cap);
	(void)state;

	assert_non_null(text);
	k += (size_t)snprintf(text + k, cap - k, "u,v,c\n");
	for (int i = 0; i < 4000; i++)   /* varied enough that deflate cannot shrink it to nothing */
		k += (size_t)snprintf(text + k, cap - k, "%u,%d.%03d,%s\n", (unsigned)(i * 2654435761u) % 100003,
		                      i % 977, (i * 7919) % 1000, i % 3 ? "tcp" : "udp");
	write_text(tmp_path(plain, sizeof plain, "round.csv"), text);
	write_gz(tmp_path(gz, sizeof gz, "round.csv.gz"), text);
	free(text);
	assert_int_equal(rt_csv_load(plain, NULL, &a, &err), RT_OK);
	assert_int_equal(rt_csv_load(gz, NULL, &b, &err), RT_OK);
	assert_int_equal(a.nrows, 4000);
	assert_int_equal(b.nrows, a.nrows);
	assert_int_equal(b.ncols, a.ncols);
	assert_memory_equal(a.cols, b.cols, a.nrows * (size_t)a.ncols * sizeof(float));
	assert_memory_equal(a.label, b.label, a.nrows * sizeof(float));
	assert_int_equal(b.classes.n, 2);
	rt_table_free(&a);
	rt_table_free(&b);

	/* Truncated: cut the compressed file in half. */
	FILE *f = fopen(gz, "rb");
	assert_non_null(f);
	fseek(f, 0, SEEK_END);
	long size = ftell(f);
	fclose(f);
	assert_true(size > 1000);
	assert_int_equal(truncate(gz, size / 2), 0);
	assert_int_equal(rt_csv_load(gz, NULL, &b, &err), RT_ERR_INPUT);
	snprintf(want, sizeof want, "%s: truncated compressed file (zlib: unexpected end of file)", gz);
	assert_string_equal(err.msg, want);
	assert_null(b.cols);

	/* Corrupt: a gzip header followed by garbage. */
	f = fopen(gz, "wb");
	assert_non_null(f);
	fwrite("\x1f\x8b\x08\x00\x00\x00\x00\x00\x00\x03garbage garbage garbage", 1, 33, f);
	fclose(f);
	assert_int_equal(rt_csv_load(gz, NULL, &b, &err), RT_ERR_INPUT);
	snprintf(want, sizeof want, "%s: corrupt compressed data (zlib: ", gz);
	assert_memory_equal(err.msg, want, strlen(want));
}

/* ---- LIBSVM --------------------------------------------------------------- */

static void libsvm_good(void **state)
{
	char path[512];
	rt_table t;
	rt_error err;
	const char *text = "+1 1:0.5 3:2\n"
	                   "-1 2:1\n"
	                   "\n"
	                   "# a comment\n"
	                   "1\t4:-3 \r\n";
	(void)state;

	write_text(tmp_path(path, sizeof path, "small.svm"), text);
	assert_int_equal(rt_libsvm_load(path, 0, &t, &err), RT_OK);
	assert_int_equal(t.nrows, 3);
	assert_int_equal(t.ncols, 4);
	assert_true(t.has_label);
	assert_string_equal(t.colnames[3], "x4");
	assert_true(t.label[0] == 1.0f && t.label[1] == -1.0f && t.label[2] == 1.0f);
	const float want[4][3] = { { 0.5f, 0, 0 }, { 0, 1, 0 }, { 2, 0, 0 }, { 0, 0, -3 } };
	for (int c = 0; c < 4; c++)
		for (int r = 0; r < 3; r++)
			assert_true(rt_table_at(&t, c, (size_t)r) == want[c][r]);
	assert_int_equal(t.cats[0].n, 0);
	assert_int_equal(t.classes.n, 0);
	rt_table_free(&t);

	/* A wider table than the file uses, and the same file gzip-compressed. */
	write_gz(tmp_path(path, sizeof path, "small.svm.gz"), text);
	assert_int_equal(rt_libsvm_load(path, 6, &t, &err), RT_OK);
	assert_int_equal(t.ncols, 6);
	assert_true(rt_table_at(&t, 3, 2) == -3.0f);
	assert_true(rt_table_at(&t, 5, 1) == 0.0f);
	rt_table_free(&t);
}

static void libsvm_errors(void **state)
{
	(void)state;
	svm_fails("desc.svm", "1 3:1 2:1\n", 0, ":1:7: expected an index above 3 (indices must ascend), got '2:1'");
	svm_fails("dup.svm", "1 1:1\n-1 2:1 2:5\n", 0, ":2:8: expected an index above 2 (indices must ascend), got '2:5' (a repeated index)");
	svm_fails("zero.svm", "1 0:1\n", 0, ":1:3: expected an index of 1 or more (indices are 1-based), got '0:1'");
	svm_fails("label.svm", "1 1:1\nabc 1:1\n", 0, ":2:1: expected a label (a number), got 'abc'");
	svm_fails("value.svm", "1 12:x\n", 0, ":1:6: expected a number after '12:', got 'x'");
	svm_fails("token.svm", "1  foo\n", 0, ":1:4: expected index:value, got 'foo'");
	svm_fails("sign.svm", "1 -2:1\n", 0, ":1:3: expected an index of 1 or more (indices are 1-based), got '-2:1'");
	svm_fails("wide.svm", "1 5:1\n", 3, ":1:3: expected an index from 1 to 3 (the features asked for), got '5:1'");
	svm_fails("empty.svm", "\n# nothing\n", 0, ": empty file: expected lines of 'label index:value ...'");
}

/* ---- TSPLIB --------------------------------------------------------------- */

/* Held-Karp: the optimal tour length of a small instance, to check a metric
 * against TSPLIB's published optimum without the tour file. */
static long held_karp(const rt_tsp *t)
{
	int n = t->n, m = n - 1;
	size_t states = (size_t)1 << m;
	long *dp = malloc(states * (size_t)m * sizeof *dp), best = LONG_MAX;
	assert_non_null(dp);
	for (size_t s = 0; s < states * (size_t)m; s++)
		dp[s] = LONG_MAX;
	for (int j = 0; j < m; j++)
		dp[((size_t)1 << j) * (size_t)m + (size_t)j] = rt_tsp_distance(t, 0, j + 1);
	for (size_t s = 1; s < states; s++)
		for (int j = 0; j < m; j++) {
			long v = dp[s * (size_t)m + (size_t)j];
			if (v == LONG_MAX || !(s >> j & 1))
				continue;
			for (int k = 0; k < m; k++) {
				if (s >> k & 1)
					continue;
				size_t s2 = (s | (size_t)1 << k) * (size_t)m + (size_t)k;
				long w = v + rt_tsp_distance(t, j + 1, k + 1);
				if (w < dp[s2])
					dp[s2] = w;
			}
		}
	for (int j = 0; j < m; j++) {
		long v = dp[(states - 1) * (size_t)m + (size_t)j] + rt_tsp_distance(t, j + 1, 0);
		if (v < best)
			best = v;
	}
	free(dp);
	return best;
}

/* rt_tsp_distance_matrix agrees with rt_tsp_distance everywhere. */
static void check_matrix(const rt_tsp *t)
{
	size_t n = (size_t)t->n;
	int *m = malloc(n * n * sizeof *m);
	assert_non_null(m);
	assert_int_equal(rt_tsp_distance_matrix(t, m), RT_OK);
	for (size_t i = 0; i < n; i++)
		for (size_t j = 0; j < n; j++)
			if (m[i * n + j] != rt_tsp_distance(t, (int)i, (int)j))
				fail_msg("%s: matrix[%zu][%zu] = %d, distance %d", t->name, i, j, m[i * n + j],
				         rt_tsp_distance(t, (int)i, (int)j));
	free(m);
}

static void tsp_good(void **state)
{
	char path[512];
	rt_tsp t;
	rt_error err;
	(void)state;

	/* A 3 x 4 rectangle, cities listed out of order, both key styles, no EOF. */
	write_text(tmp_path(path, sizeof path, "rect.tsp"),
	           "NAME: rect\n"
	           "TYPE : TSP\n"
	           "COMMENT : a: hand-made instance\n"
	           "DIMENSION:4\n"
	           "EDGE_WEIGHT_TYPE : EUC_2D\n"
	           "NODE_COORD_SECTION\n"
	           " 1 0 0\n"
	           " 3 3.0e0 4\n"
	           " 2 3 0\n"
	           "4\t0\t4\n");
	assert_int_equal(rt_tsp_load(path, &t, &err), RT_OK);
	assert_string_equal(t.name, "rect");
	assert_string_equal(t.path, path);
	assert_int_equal(t.n, 4);
	assert_int_equal(t.metric, RT_TSP_EUC_2D);
	assert_true(t.x[2] == 3.0 && t.y[2] == 4.0);
	int canonical[4] = { 0, 1, 2, 3 }, crossing[4] = { 0, 2, 1, 3 };
	assert_int_equal(rt_tsp_tour_length(&t, canonical), 3 + 4 + 3 + 4);
	assert_int_equal(rt_tsp_tour_length(&t, crossing), 5 + 4 + 5 + 4);
	assert_int_equal(rt_tsp_distance(&t, 0, 2), 5);
	assert_int_equal(rt_tsp_distance(&t, 2, 0), 5);
	assert_int_equal(rt_tsp_distance(&t, 1, 1), 0);
	rt_tsp_free(&t);

	/* Gzip-compressed, no NAME (taken from the file name), a trailing EOF. */
	write_gz(tmp_path(path, sizeof path, "pair.tsp.gz"),
	         "TYPE: TSP\nDIMENSION: 2\nEDGE_WEIGHT_TYPE: ATT\nNODE_COORD_SECTION :\n1 0 0\n2 30 10\nEOF\n\n");
	assert_int_equal(rt_tsp_load(path, &t, &err), RT_OK);
	assert_string_equal(t.name, "pair");
	assert_int_equal(t.metric, RT_TSP_ATT);
	assert_int_equal(rt_tsp_distance(&t, 0, 1), 10);
	rt_tsp_free(&t);
}

static void tsp_metrics(void **state)
{
	double x[2] = { 0, 0 }, y[2] = { 0, 0 };
	rt_tsp t = { .n = 2, .x = x, .y = y };
	(void)state;

	/* EUC_2D: nearest integer, halves up. */
	t.metric = RT_TSP_EUC_2D;
	x[1] = 1, y[1] = 1;
	assert_int_equal(rt_tsp_distance(&t, 0, 1), 1);     /* 1.414 */
	x[1] = 2, y[1] = 3;
	assert_int_equal(rt_tsp_distance(&t, 0, 1), 4);     /* 3.606 */
	x[1] = 1.5, y[1] = 2;
	assert_int_equal(rt_tsp_distance(&t, 0, 1), 3);     /* 2.5 */
	/* CEIL_2D: up. */
	t.metric = RT_TSP_CEIL_2D;
	x[1] = 1, y[1] = 1;
	assert_int_equal(rt_tsp_distance(&t, 0, 1), 2);
	x[1] = 3, y[1] = 4;
	assert_int_equal(rt_tsp_distance(&t, 0, 1), 5);
	/* ATT: r = sqrt(d^2 / 10), t = nint(r), t + 1 if t < r. */
	t.metric = RT_TSP_ATT;
	x[1] = 10, y[1] = 0;
	assert_int_equal(rt_tsp_distance(&t, 0, 1), 4);     /* r = 3.162, t = 3 < r */
	x[1] = 40, y[1] = 0;
	assert_int_equal(rt_tsp_distance(&t, 0, 1), 13);    /* r = 12.649, t = 13 */
	x[1] = 30, y[1] = 10;
	assert_int_equal(rt_tsp_distance(&t, 0, 1), 10);    /* r = 10 exactly */
	x[1] = 0, y[1] = 30;
	assert_int_equal(rt_tsp_distance(&t, 0, 1), 10);    /* r = 9.487, t = 9 < r */
}

/* burma14 and ulysses16 (TSPLIB, GEO): their optimal lengths 3323 and 6859
 * come out of Held-Karp only if every GEO distance follows TSPLIB's rule. */
static void tsp_geo_optimal(void **state)
{
	char path[512];
	rt_tsp t;
	rt_error err;
	(void)state;

	write_text(tmp_path(path, sizeof path, "burma14.tsp"),
	           "NAME: burma14\nTYPE: TSP\nCOMMENT: 14-Staedte in Burma (Zaw Win)\nDIMENSION: 14\n"
	           "EDGE_WEIGHT_TYPE: GEO\nEDGE_WEIGHT_FORMAT: FUNCTION \nDISPLAY_DATA_TYPE: COORD_DISPLAY\n"
	           "NODE_COORD_SECTION\n"
	           "   1  16.47       96.10\n   2  16.47       94.44\n   3  20.09       92.54\n"
	           "   4  22.39       93.37\n   5  25.23       97.24\n   6  22.00       96.05\n"
	           "   7  20.47       97.02\n   8  17.20       96.29\n   9  16.30       97.38\n"
	           "  10  14.05       98.12\n  11  16.53       97.38\n  12  21.52       95.59\n"
	           "  13  19.41       97.13\n  14  20.09       94.55\nEOF\n");
	assert_int_equal(rt_tsp_load(path, &t, &err), RT_OK);
	assert_int_equal(t.metric, RT_TSP_GEO);
	assert_int_equal(held_karp(&t), 3323);
	check_matrix(&t);
	rt_tsp_free(&t);

	write_text(tmp_path(path, sizeof path, "ulysses16.tsp"),
	           "NAME: ulysses16.tsp\nTYPE: TSP\nCOMMENT: Odyssey of Ulysses (Groetschel/Padberg)\n"
	           "DIMENSION: 16\nEDGE_WEIGHT_TYPE: GEO\nDISPLAY_DATA_TYPE: COORD_DISPLAY\nNODE_COORD_SECTION\n"
	           "1 38.24 20.42\n2 39.57 26.15\n3 40.56 25.32\n4 36.26 23.12\n5 33.48 10.54\n"
	           "6 37.56 12.19\n7 38.42 13.11\n8 37.52 20.44\n9 41.23 9.10\n10 41.17 13.05\n"
	           "11 36.08 -5.21\n12 38.47 15.13\n13 38.15 15.35\n14 37.51 15.17\n15 35.49 14.32\n"
	           "16 39.36 19.56\nEOF\n");
	assert_int_equal(rt_tsp_load(path, &t, &err), RT_OK);
	assert_int_equal(held_karp(&t), 6859);
	rt_tsp_free(&t);
}

static void tsp_errors(void **state)
{
	const char *head = "NAME : bad\nTYPE : TSP\nDIMENSION : 3\nEDGE_WEIGHT_TYPE : EUC_2D\nNODE_COORD_SECTION\n";
	char text[1024];
	(void)state;

	tsp_fails("xray.tsp", "NAME: e\nTYPE: TSP\nDIMENSION: 3\nEDGE_WEIGHT_TYPE: XRAY1\n",
	          ":4: EDGE_WEIGHT_TYPE XRAY1 is not supported (supported: EUC_2D, CEIL_2D, ATT, GEO, MAN_2D, "
	          "MAX_2D, EUC_3D, MAN_3D, MAX_3D, EXPLICIT)");
	tsp_fails("atsp.tsp", "NAME: a\nTYPE: ATSP\n", ":2: TYPE ATSP is not supported (only TSP, the symmetric travelling salesman problem)");
	tsp_fails("nodim.tsp", "NAME: n\nEDGE_WEIGHT_TYPE: EUC_2D\nNODE_COORD_SECTION\n1 0 0\n",
	          ":3: expected DIMENSION before NODE_COORD_SECTION");
	tsp_fails("dim.tsp", "DIMENSION: -4\n", ":1:12: expected a number of cities from 1 to 10000000, got '-4'");
	tsp_fails("key.tsp", "NAME: k\nCOLOUR: blue\n",
	          ":2:1: expected a TSPLIB key (NAME, TYPE, COMMENT, DIMENSION, EDGE_WEIGHT_TYPE, ...), got 'COLOUR'");
	tsp_fails("nokey.tsp", "NAME: k\nhello world\n", ":2:1: expected 'KEY : value' or a section name, got 'hello world'");
	tsp_fails("display.tsp", "NAME: k\nDIMENSION: 2\nDISPLAY_DATA_SECTION\n", ":3: expected 2 cities in DISPLAY_DATA_SECTION (DIMENSION), got 0");
	tsp_fails("demand.tsp", "NAME: k\nDIMENSION: 2\nDEMAND_SECTION\n",
	          ":3: DEMAND_SECTION is not supported (only NODE_COORD_SECTION, EDGE_WEIGHT_SECTION and DISPLAY_DATA_SECTION)");
	snprintf(text, sizeof text, "%s1 0 0\n2 abc 1\n3 1 1\n", head);
	tsp_fails("coord.tsp", text, ":7:3: expected the x coordinate of city 2, got 'abc'");
	snprintf(text, sizeof text, "%s1 0 0\n2 1\n", head);
	tsp_fails("short.tsp", text, ":7:4: expected the y coordinate of city 2, got ''");
	snprintf(text, sizeof text, "%s1 0 0\n2 1 1 9\n", head);
	tsp_fails("extra.tsp", text, ":7:7: expected the end of the line after the coordinates of city 2, got '9'");
	snprintf(text, sizeof text, "%s1 0 0\n2 1 -2e9\n", head);
	tsp_fails("huge.tsp", text, ":7:5: expected a coordinate from -1e+08 to 1e+08 (so that distances fit an int), got '-2e9'");
	tsp_fails("geo.tsp", "DIMENSION: 1\nEDGE_WEIGHT_TYPE: GEO\nNODE_COORD_SECTION\n1 12.5 400\n",
	          ":4:8: expected a coordinate from -360 to 360 (GEO: degrees.minutes), got '400'");
	snprintf(text, sizeof text, "%s1 0 0\n1 1 1\n", head);
	tsp_fails("twice.tsp", text, ":7:1: expected each city once, got city 1 again");
	snprintf(text, sizeof text, "%s1 0 0\n  4 1 1\n", head);
	tsp_fails("range.tsp", text, ":7:3: expected a city number from 1 to 3, got '4'");
	snprintf(text, sizeof text, "%s1 0 0\n2 1 1\nEOF\n", head);
	tsp_fails("few.tsp", text, ":8: expected 3 cities in NODE_COORD_SECTION (DIMENSION), got 2");
	snprintf(text, sizeof text, "%s1 0 0\n2 1 1\n3 2 2\n4 3 3\n", head);
	tsp_fails("more.tsp", text, ":9:1: expected EOF or a section after the 3 cities of NODE_COORD_SECTION, got '4 3 3'");
	snprintf(text, sizeof text, "%s1 0 0\n2 1 1\n3 2 2\nDIMENSION: 4\n", head);
	tsp_fails("latekey.tsp", text, ":9:1: expected EOF or a section after the 3 cities of NODE_COORD_SECTION, got 'DIMENSION: 4'");
	snprintf(text, sizeof text, "%s1 0 0\n2 1 1\n3 2 2\nNODE_COORD_SECTION\n", head);
	tsp_fails("again.tsp", text, ":9: expected one NODE_COORD_SECTION, got a second one");
	snprintf(text, sizeof text, "%s1 0 0\n2 1 1\nDISPLAY_DATA_SECTION\n", head);
	tsp_fails("cut.tsp", text, ":8: expected 3 cities in NODE_COORD_SECTION (DIMENSION), got 2");
	tsp_fails("nosection.tsp", "NAME: x\nDIMENSION: 2\nEOF\n", ": expected a NODE_COORD_SECTION, got none");
	tsp_fails("empty.tsp", "\n\n", ": empty file: expected a TSPLIB instance");
}

static void tsp_optimal_file(void **state)
{
	char path[512], want[1024];
	rt_error err;
	long v;
	(void)state;

	write_text(tmp_path(path, sizeof path, "opt.txt"), "a280 : 2579\n\ndsj1000 : 18660188 (CEIL_2D)\nbroken\n");
	assert_int_equal(rt_tsp_optimal(path, "a280", &v, &err), RT_OK);
	assert_int_equal(v, 2579);
	assert_int_equal(rt_tsp_optimal(path, "dsj1000", &v, &err), RT_OK);
	assert_int_equal(v, 18660188);
	assert_int_equal(rt_tsp_optimal(path, "nowhere", &v, &err), RT_ERR_INPUT);
	snprintf(want, sizeof want, "%s:4:1: expected 'name : length', got 'broken'", path);
	assert_string_equal(err.msg, want);
	write_text(path, "a280 : 2579\n");
	assert_int_equal(rt_tsp_optimal(path, "a28", &v, &err), RT_OK);
	assert_int_equal(v, -1);
}

/* ---- TSPLIB: every EDGE_WEIGHT_TYPE, EXPLICIT formats, .tour files -------- */

/* The 5-city matrix every explicit format below encodes:
 *      1 2 3 4 5
 *   1  0 3 4 2 7
 *   2  3 0 4 6 3
 *   3  4 4 0 5 8
 *   4  2 6 5 0 6
 *   5  7 3 8 6 0
 * tour 1 2 3 4 5: 3 + 4 + 5 + 6 + 7 = 25; optimum 1 3 2 5 4: 4 + 4 + 3 + 6 + 2 = 19. */
static const int k5[25] = { 0, 3, 4, 2, 7, 3, 0, 4, 6, 3, 4, 4, 0, 5, 8, 2, 6, 5, 0, 6, 7, 3, 8, 6, 0 };
#define K5_HEAD "NAME: k5\nTYPE: TSP\nDIMENSION: 5\nEDGE_WEIGHT_TYPE: EXPLICIT\n"

/* Checks that t's distances, matrix and tour lengths are those of k5. */
static void check_k5(const rt_tsp *t)
{
	int m[25], id[5] = { 0, 1, 2, 3, 4 }, opt[5] = { 0, 2, 1, 4, 3 };
	assert_int_equal(t->n, 5);
	assert_int_equal(t->metric, RT_TSP_EXPLICIT);
	assert_non_null(t->w);
	for (int i = 0; i < 5; i++)
		for (int j = 0; j < 5; j++)
			assert_int_equal(rt_tsp_distance(t, i, j), k5[i * 5 + j]);
	assert_int_equal(rt_tsp_distance_matrix(t, m), RT_OK);
	assert_memory_equal(m, k5, sizeof m);
	assert_int_equal(rt_tsp_tour_length(t, id), 25);
	assert_int_equal(rt_tsp_tour_length(t, opt), 19);
	assert_int_equal(held_karp(t), 19);
}

static void tsp_explicit_formats(void **state)
{
	/* Each layout with numbers wrapped arbitrarily; *_COL reads the other triangle. */
	static const char *const cases[][2] = {
		{ "FULL_MATRIX", "0 3 4 2 7 3 0\n4 6 3 4 4 0 5 8 2\n6 5\n0 6 7 3 8 6 0\n" },
		{ "UPPER_ROW", "3 4 2 7\n4 6 3\n5 8\n6\n" },
		{ "LOWER_ROW", "3 4 4 2\n6 5 7 3 8 6\n" },
		{ "UPPER_DIAG_ROW", "0 3 4 2 7 0 4 6 3 0 5 8 0 6 0\n" },
		{ "LOWER_DIAG_ROW", "0\n3 0\n4 4 0\n2 6 5 0\n7 3 8 6 0\n" },
		{ "UPPER_COL", "3\n4 4\n2 6 5\n7 3 8 6\n" },
		{ "LOWER_COL", "\t3 4 2 7 4 6 3 5 8 6 \n" },
		{ "UPPER_DIAG_COL", "0 3 0 4 4 0 2 6 5 0 7 3 8 6 0\n" },
		{ "LOWER_DIAG_COL", "9 3 4 2 7\n0 4 6 3\n0 5 8\n0 6\n1e0\n" },   /* diagonal read, stored as 0 */
	};
	char path[512], text[1024];
	rt_tsp t;
	rt_error err;
	(void)state;

	for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
		snprintf(text, sizeof text, K5_HEAD "EDGE_WEIGHT_FORMAT: %s\nEDGE_WEIGHT_SECTION\n%sEOF\n",
		         cases[k][0], cases[k][1]);
		write_text(tmp_path(path, sizeof path, "k5.tsp"), text);
		if (rt_tsp_load(path, &t, &err) != RT_OK)
			fail_msg("%s: %s", cases[k][0], err.msg);
		assert_null(t.x);
		check_k5(&t);
		rt_tsp_free(&t);
	}
	/* Display data before or after the weights, NODE_COORD_TYPE, no EOF, gzip. */
	write_gz(tmp_path(path, sizeof path, "k5d.tsp.gz"),
	         K5_HEAD "EDGE_WEIGHT_FORMAT: UPPER_ROW\nDISPLAY_DATA_TYPE: TWOD_DISPLAY\nNODE_COORD_TYPE: NO_COORDS\n"
	         "DISPLAY_DATA_SECTION\n1 0 0\n3 2.5 1\n2 1 1\n5 4 4\n4 3 -1\nEDGE_WEIGHT_SECTION :\n3 4 2 7 4 6 3 5 8 6\n");
	assert_int_equal(rt_tsp_load(path, &t, &err), RT_OK);
	assert_string_equal(t.name, "k5");
	assert_null(t.x);
	check_k5(&t);
	rt_tsp_free(&t);
	write_text(tmp_path(path, sizeof path, "k5c.tsp"),
	           K5_HEAD "EDGE_WEIGHT_FORMAT: LOWER_ROW\nEDGE_WEIGHT_SECTION\n3 4 4 2 6 5 7 3 8 6\n"
	           "NODE_COORD_SECTION\n1 0 0\n2 1 1\n3 2 2\n4 3 3\n5 4 4\nDISPLAY_DATA_SECTION\n1 0 0\n2 1 1\n3 2 2\n4 3 3\n5 4 4\nEOF\n");
	assert_int_equal(rt_tsp_load(path, &t, &err), RT_OK);
	assert_true(t.x[4] == 4.0 && t.y[3] == 3.0);
	check_k5(&t);   /* distances from the matrix, not the coordinates */
	rt_tsp_free(&t);
	/* One city: no weights at all in UPPER_ROW. */
	write_text(path, "DIMENSION: 1\nEDGE_WEIGHT_TYPE: EXPLICIT\nEDGE_WEIGHT_FORMAT: UPPER_ROW\nEDGE_WEIGHT_SECTION\nEOF\n");
	assert_int_equal(rt_tsp_load(path, &t, &err), RT_OK);
	assert_int_equal(t.n, 1);
	assert_int_equal(rt_tsp_distance(&t, 0, 0), 0);
	rt_tsp_free(&t);
}

static void tsp_explicit_errors(void **state)
{
	const char *up = K5_HEAD "EDGE_WEIGHT_FORMAT: UPPER_ROW\nEDGE_WEIGHT_SECTION\n";
	char text[1024];
	(void)state;

	snprintf(text, sizeof text, "%s3 4 2 7\n4 6 3\n5 8\nEOF\n", up);
	tsp_fails("few.tsp", text, ":10: expected 10 weights in EDGE_WEIGHT_SECTION (UPPER_ROW, DIMENSION 5), got 9");
	snprintf(text, sizeof text, "%s3 4 2 7\n4 6 3\n5 8\n", up);
	tsp_fails("cut.tsp", text, ":9: expected 10 weights in EDGE_WEIGHT_SECTION (UPPER_ROW, DIMENSION 5), got 9");
	snprintf(text, sizeof text, "%s3 4 2 7\n4 6 3\n5 8\nDISPLAY_DATA_SECTION\n", up);
	tsp_fails("cut2.tsp", text, ":10: expected 10 weights in EDGE_WEIGHT_SECTION (UPPER_ROW, DIMENSION 5), got 9");
	snprintf(text, sizeof text, "%s3 4 2 7\n4 6 3\n5 8\n6  9\nEOF\n", up);
	tsp_fails("many.tsp", text, ":10:4: expected EOF or a section after the 10 weights of EDGE_WEIGHT_SECTION, got '9'");
	snprintf(text, sizeof text, "%s3 4 2 7\n4 6 3\n5 8\n6\n1\n", up);
	tsp_fails("many2.tsp", text, ":11:1: expected EOF or a section after the 10 weights of EDGE_WEIGHT_SECTION, got '1'");
	snprintf(text, sizeof text, "%s3 -4 2 7\n", up);
	tsp_fails("neg.tsp", text, ":7:3: expected the weight from city 1 to city 3 (a whole number from 0 to 1000000000), got '-4'");
	snprintf(text, sizeof text, "%s3 4 2 7\n4 six 3\n", up);
	tsp_fails("word.tsp", text, ":8:3: expected the weight from city 2 to city 4 (a whole number from 0 to 1000000000), got 'six'");
	snprintf(text, sizeof text, "%s3 4 2 7\n4 6 3\n5 8.5\n", up);
	tsp_fails("frac.tsp", text, ":9:3: expected the weight from city 3 to city 5 (a whole number from 0 to 1000000000), got '8.5'");
	snprintf(text, sizeof text, "%s3 4 2 1000000001\n", up);
	tsp_fails("big.tsp", text, ":7:7: expected the weight from city 1 to city 5 (a whole number from 0 to 1000000000), got '1000000001'");
	tsp_fails("asym.tsp", K5_HEAD "EDGE_WEIGHT_FORMAT: FULL_MATRIX\nEDGE_WEIGHT_SECTION\n"
	          "0 3 4 2 7\n3 0 4 6 3\n4 4 0 5 8\n2 6 5 0 6\n7 3 9 6 0\n",
	          ":11:5: expected weight 8 from city 5 to city 3 (as from city 3 to city 5: TYPE TSP is symmetric), got 9");
	tsp_fails("badfmt.tsp", K5_HEAD "EDGE_WEIGHT_FORMAT: UPPER_TRIANGLE\n",
	          ":5: EDGE_WEIGHT_FORMAT UPPER_TRIANGLE is not supported (supported: FUNCTION, FULL_MATRIX, UPPER_ROW, "
	          "LOWER_ROW, UPPER_DIAG_ROW, LOWER_DIAG_ROW, UPPER_COL, LOWER_COL, UPPER_DIAG_COL, LOWER_DIAG_COL)");
	tsp_fails("nofmt.tsp", K5_HEAD "EDGE_WEIGHT_SECTION\n3 4 2 7 4 6 3 5 8 6\n",
	          ":5: expected EDGE_WEIGHT_FORMAT before EDGE_WEIGHT_SECTION");
	tsp_fails("func.tsp", K5_HEAD "EDGE_WEIGHT_FORMAT: FUNCTION\n",
	          ":5: expected EDGE_WEIGHT_FORMAT FULL_MATRIX, UPPER_ROW, LOWER_ROW, UPPER_DIAG_ROW or LOWER_DIAG_ROW "
	          "for EDGE_WEIGHT_TYPE EXPLICIT, got FUNCTION");
	tsp_fails("fmt2d.tsp", "EDGE_WEIGHT_FORMAT: LOWER_ROW\nEDGE_WEIGHT_TYPE: EUC_2D\n",
	          ":2: expected EDGE_WEIGHT_FORMAT FUNCTION for EDGE_WEIGHT_TYPE EUC_2D, got LOWER_ROW");
	tsp_fails("sec2d.tsp", "DIMENSION: 2\nEDGE_WEIGHT_TYPE: EUC_2D\nEDGE_WEIGHT_SECTION\n1\n",
	          ":3: expected EDGE_WEIGHT_TYPE EXPLICIT for an EDGE_WEIGHT_SECTION, got EUC_2D");
	tsp_fails("noweights.tsp", K5_HEAD "EDGE_WEIGHT_FORMAT: FULL_MATRIX\nEOF\n",
	          ": expected an EDGE_WEIGHT_SECTION (EDGE_WEIGHT_TYPE EXPLICIT), got none");
	snprintf(text, sizeof text, "DIMENSION: %d\nEDGE_WEIGHT_TYPE: EXPLICIT\nEDGE_WEIGHT_FORMAT: UPPER_ROW\nEDGE_WEIGHT_SECTION\n",
	         RT_TSP_MAX_EXPLICIT + 1);
	tsp_fails("huge.tsp", text, ":4: expected at most 20000 cities with EXPLICIT weights (the 20001 x 20001 matrix is kept; "
	          "build with -DRT_TSP_MAX_EXPLICIT=N for more), got DIMENSION 20001");
	snprintf(text, sizeof text, "%s3 4 2 7 4 6 3 5 8 6\nEDGE_WEIGHT_SECTION\n", up);
	tsp_fails("twice.tsp", text, ":8: expected one EDGE_WEIGHT_SECTION, got a second one");
}

static void tsp_sections_errors(void **state)
{
	const char *head = "NAME: s\nTYPE: TSP\nDIMENSION: 3\nEDGE_WEIGHT_TYPE: EUC_2D\n";
	char text[1024];
	(void)state;

	snprintf(text, sizeof text, "%sNODE_COORD_SECTION\n1 0 0\n2 1 1\n3 2 2\nTOUR_SECTION\n1 2 3 -1\n", head);
	tsp_fails("tour.tsp", text, ":9: TOUR_SECTION in a TSP instance is not supported (a tour belongs in a .tour file, read by rt_tsp_tour_read)");
	snprintf(text, sizeof text, "%sFIXED_EDGES_SECTION\n1 2\n-1\n", head);
	tsp_fails("fixed.tsp", text, ":5: FIXED_EDGES_SECTION in a TSP instance is not supported (no edges can be fixed)");
	snprintf(text, sizeof text, "%sDISPLAY_DATA_SECTION\n1 0 0\n2 x 1\n", head);
	tsp_fails("disp.tsp", text, ":7:3: expected the x coordinate of city 2, got 'x'");
	snprintf(text, sizeof text, "%sDISPLAY_DATA_SECTION\n1 0 0\n1 1 1\n", head);
	tsp_fails("disp2.tsp", text, ":7:1: expected each city once, got city 1 again");
	snprintf(text, sizeof text, "%sDISPLAY_DATA_SECTION\n1 0 0\n2 1 1\nNODE_COORD_SECTION\n", head);
	tsp_fails("disp3.tsp", text, ":8: expected 3 cities in DISPLAY_DATA_SECTION (DIMENSION), got 2");
	snprintf(text, sizeof text, "%sDISPLAY_DATA_SECTION\n1 0 0\n2 1 1 5\n", head);
	tsp_fails("disp4.tsp", text, ":7:7: expected the end of the line after the coordinates of city 2, got '5'");
	/* NODE_COORD_TYPE against the metric, in either order. */
	tsp_fails("ct1.tsp", "EDGE_WEIGHT_TYPE: EUC_2D\nNODE_COORD_TYPE: THREED_COORDS\n",
	          ":2: expected NODE_COORD_TYPE TWOD_COORDS for EDGE_WEIGHT_TYPE EUC_2D, got THREED_COORDS");
	tsp_fails("ct2.tsp", "NODE_COORD_TYPE: TWOD_COORDS\nEDGE_WEIGHT_TYPE: EUC_3D\n",
	          ":2: expected NODE_COORD_TYPE THREED_COORDS for EDGE_WEIGHT_TYPE EUC_3D, got TWOD_COORDS");
	tsp_fails("ct3.tsp", "NODE_COORD_TYPE: NO_COORDS\nEDGE_WEIGHT_TYPE: MAN_2D\n",
	          ":2: expected NODE_COORD_TYPE TWOD_COORDS for EDGE_WEIGHT_TYPE MAN_2D, got NO_COORDS");
	tsp_fails("ct4.tsp", "NODE_COORD_TYPE: FOURD_COORDS\n",
	          ":1: NODE_COORD_TYPE FOURD_COORDS is not supported (supported: TWOD_COORDS, THREED_COORDS, NO_COORDS)");
	tsp_fails("ct5.tsp", K5_HEAD "NODE_COORD_TYPE: NO_COORDS\nNODE_COORD_SECTION\n1 0 0\n",
	          ":6: expected no NODE_COORD_SECTION (NODE_COORD_TYPE NO_COORDS), got one");
	tsp_fails("z.tsp", "DIMENSION: 2\nEDGE_WEIGHT_TYPE: EUC_3D\nNODE_COORD_SECTION\n1 0 0 0\n2 1 1\n",
	          ":5:6: expected the z coordinate of city 2, got ''");
	tsp_fails("z2.tsp", "DIMENSION: 2\nEDGE_WEIGHT_TYPE: MAX_3D\nNODE_COORD_SECTION\n1 0 0 0\n2 1 1 3e9\n",
	          ":5:7: expected a coordinate from -1e+08 to 1e+08 (so that distances fit an int), got '3e9'");
}

/* MAN_2D, MAX_2D, EUC_3D, MAN_3D, MAX_3D from files, with rounding at halves. */
static void tsp_coordinate_metrics(void **state)
{
	/* (0,0) (1.25,2.25) (-0.5,4) (3,-1.75): |dx|, |dy| per edge of 1 2 3 4:
	 * 1.25 2.25 | 1.75 1.75 | 3.5 5.75 | 3 1.75. */
	const char *pts = "NODE_COORD_SECTION\n1 0 0\n2 1.25 2.25\n3 -0.5 4\n4 3 -1.75\nEOF\n";
	char path[512], text[512];
	int id[4] = { 0, 1, 2, 3 };
	rt_tsp t;
	rt_error err;
	(void)state;

	snprintf(text, sizeof text, "NAME: m\nTYPE: TSP\nDIMENSION: 4\nEDGE_WEIGHT_TYPE: MAN_2D\n%s", pts);
	write_text(tmp_path(path, sizeof path, "man.tsp"), text);
	assert_int_equal(rt_tsp_load(path, &t, &err), RT_OK);
	assert_int_equal(t.metric, RT_TSP_MAN_2D);
	assert_null(t.z);
	assert_int_equal(rt_tsp_distance(&t, 0, 1), 4);   /* nint(3.5) */
	assert_int_equal(rt_tsp_distance(&t, 0, 2), 5);   /* nint(4.5) */
	assert_int_equal(rt_tsp_distance(&t, 1, 3), 6);   /* nint(5.75) */
	assert_int_equal(rt_tsp_tour_length(&t, id), 4 + 4 + 9 + 5);
	rt_tsp_free(&t);

	snprintf(text, sizeof text, "NAME: m\nTYPE: TSP\nDIMENSION: 4\nEDGE_WEIGHT_TYPE: MAX_2D\n"
	         "NODE_COORD_TYPE: TWOD_COORDS\n%s", pts);
	write_text(path, text);
	assert_int_equal(rt_tsp_load(path, &t, &err), RT_OK);
	assert_int_equal(t.metric, RT_TSP_MAX_2D);
	assert_int_equal(rt_tsp_distance(&t, 0, 1), 2);   /* max(1, 2) */
	assert_int_equal(rt_tsp_distance(&t, 2, 3), 6);   /* max(nint 3.5 = 4, nint 5.75 = 6) */
	assert_int_equal(rt_tsp_distance(&t, 0, 2), 4);   /* max(nint 0.5 = 1, 4) */
	assert_int_equal(rt_tsp_tour_length(&t, id), 2 + 2 + 6 + 3);
	check_matrix(&t);
	rt_tsp_free(&t);

	/* EUC_3D: (0,0,0) (2,3,6) (2,3,6.5) (1,1,1): 7, nint(0.5) = 1, nint(5.937) = 6, nint(1.732) = 2. */
	const char *pts3 = "NODE_COORD_SECTION\n1 0 0 0\n2 2 3 6\n3 2 3 6.5\n4 1 1 1\n";
	snprintf(text, sizeof text, "DIMENSION: 4\nEDGE_WEIGHT_TYPE: EUC_3D\n%s", pts3);
	write_text(path, text);
	assert_int_equal(rt_tsp_load(path, &t, &err), RT_OK);
	assert_int_equal(t.metric, RT_TSP_EUC_3D);
	assert_true(t.z[2] == 6.5);
	assert_int_equal(rt_tsp_tour_length(&t, id), 7 + 1 + 6 + 2);
	assert_int_equal(rt_tsp_distance(&t, 0, 2), 7);   /* sqrt(55.25) = 7.43 */
	check_matrix(&t);
	rt_tsp_free(&t);
	snprintf(text, sizeof text, "NODE_COORD_TYPE: THREED_COORDS\nDIMENSION: 4\nEDGE_WEIGHT_TYPE: MAN_3D\n%s", pts3);
	write_text(path, text);
	assert_int_equal(rt_tsp_load(path, &t, &err), RT_OK);
	assert_int_equal(rt_tsp_tour_length(&t, id), 11 + 1 + 9 + 3);   /* 11, nint 0.5, nint 8.5, 3 */
	rt_tsp_free(&t);
	snprintf(text, sizeof text, "DIMENSION: 4\nEDGE_WEIGHT_TYPE: MAX_3D\n%s", pts3);
	write_text(path, text);
	assert_int_equal(rt_tsp_load(path, &t, &err), RT_OK);
	assert_int_equal(rt_tsp_tour_length(&t, id), 6 + 1 + 6 + 1);   /* 6, nint 0.5, nint 5.5, 1 */
	check_matrix(&t);
	rt_tsp_free(&t);
}

/* The rounding rules on two points, for every coordinate metric. */
static void tsp_metrics_more(void **state)
{
	double x[2] = { 0, 0 }, y[2] = { 0, 0 }, z[2] = { 0, 0 };
	rt_tsp t = { .n = 2, .x = x, .y = y, .z = z };
	(void)state;

	x[1] = 0.25, y[1] = 0.25;
	t.metric = RT_TSP_MAN_2D;
	assert_int_equal(rt_tsp_distance(&t, 0, 1), 1);     /* nint(0.5) */
	t.metric = RT_TSP_MAX_2D;
	assert_int_equal(rt_tsp_distance(&t, 0, 1), 0);     /* max(nint .25, nint .25) */
	x[1] = -1.5, y[1] = 0.4;
	assert_int_equal(rt_tsp_distance(&t, 1, 0), 2);     /* nint(1.5) */
	t.metric = RT_TSP_MAN_2D;
	assert_int_equal(rt_tsp_distance(&t, 1, 0), 2);     /* nint(1.9) */
	x[1] = 1, y[1] = 2, z[1] = 2;
	t.metric = RT_TSP_EUC_3D;
	assert_int_equal(rt_tsp_distance(&t, 0, 1), 3);
	z[1] = 2.5;
	assert_int_equal(rt_tsp_distance(&t, 0, 1), 3);     /* sqrt(11.25) = 3.35 */
	x[1] = 1.5, y[1] = 2, z[1] = 0;
	assert_int_equal(rt_tsp_distance(&t, 0, 1), 3);     /* 2.5 exactly, halves up */
	t.metric = RT_TSP_MAN_3D;
	z[1] = -0.5;
	assert_int_equal(rt_tsp_distance(&t, 0, 1), 4);     /* nint(4.0) */
	t.metric = RT_TSP_MAX_3D;
	z[1] = -2.5;
	assert_int_equal(rt_tsp_distance(&t, 0, 1), 3);     /* max(2, 2, nint 2.5 = 3) */
	for (int m = RT_TSP_EUC_2D; m <= RT_TSP_EXPLICIT; m++)
		assert_string_not_equal(rt_tsp_metric_name((rt_tsp_metric)m), "?");
	assert_string_equal(rt_tsp_metric_name(RT_TSP_MAX_2D), "MAX_2D");
	assert_string_equal(rt_tsp_metric_name(RT_TSP_EXPLICIT), "EXPLICIT");
	assert_string_equal(rt_tsp_metric_name((rt_tsp_metric)99), "?");
	t.n = 0;
	int m1[1];
	assert_int_equal(rt_tsp_distance_matrix(&t, m1), RT_ERR_INTERNAL);
}

/* Reads a whole small file into buf. */
static void read_text(const char *path, char *buf, size_t n)
{
	FILE *f = fopen(path, "rb");
	size_t k;
	assert_non_null(f);
	k = fread(buf, 1, n - 1, f);
	buf[k] = '\0';
	fclose(f);
}

static void tsp_tour_round_trip(void **state)
{
	char path[512], text[512];
	int tour[5] = { 2, 0, 4, 1, 3 }, bad[5] = { 2, 0, 4, 0, 3 }, *back, n;
	rt_error err;
	(void)state;

	tmp_path(path, sizeof path, "k5.tour");
	assert_int_equal(rt_tsp_tour_write(path, "k5.19", "best\nof run", 5, tour, &err), RT_OK);
	read_text(path, text, sizeof text);
	assert_string_equal(text, "NAME : k5.19\nCOMMENT : best of run\nTYPE : TOUR\nDIMENSION : 5\nTOUR_SECTION\n"
	                          "3\n1\n5\n2\n4\n-1\nEOF\n");
	assert_int_equal(rt_tsp_tour_read(path, 5, &back, &n, &err), RT_OK);
	assert_int_equal(n, 5);
	assert_memory_equal(back, tour, sizeof tour);
	free(back);
	assert_int_equal(rt_tsp_tour_read(path, 0, &back, &n, &err), RT_OK);
	assert_int_equal(n, 5);
	free(back);
	/* No comment, default name. */
	assert_int_equal(rt_tsp_tour_write(path, NULL, NULL, 5, tour, &err), RT_OK);
	read_text(path, text, sizeof text);
	assert_true(!strncmp(text, "NAME : tour\nTYPE : TOUR\n", 24));
	/* Not a permutation: nothing is written. */
	tmp_path(path, sizeof path, "bad.tour");
	assert_int_equal(rt_tsp_tour_write(path, "b", NULL, 5, bad, &err), RT_ERR_INPUT);
	assert_non_null(strstr(err.msg, "expected each city once in the tour, got city 0 again at position 3"));
	bad[3] = 5;
	assert_int_equal(rt_tsp_tour_write(path, "b", NULL, 5, bad, &err), RT_ERR_INPUT);
	assert_non_null(strstr(err.msg, "expected a tour of cities 0 to 4, got city 5 at position 3"));
	assert_int_equal(rt_tsp_tour_write(path, "b", NULL, 0, bad, &err), RT_ERR_INPUT);
	assert_int_equal(access(path, F_OK), -1);
	/* Several ids per line, no -1, no TYPE, gzip. */
	write_gz(tmp_path(path, sizeof path, "free.tour.gz"), "NAME: f\nDIMENSION : 5\nTOUR_SECTION\n 3 1 5\n2 4\n");
	assert_int_equal(rt_tsp_tour_read(path, 5, &back, &n, &err), RT_OK);
	assert_memory_equal(back, tour, sizeof tour);
	free(back);
	/* No DIMENSION: the caller's. */
	write_text(tmp_path(path, sizeof path, "nodim.tour"), "TYPE: TOUR\nTOUR_SECTION\n3 1 5 2 4 -1\nEOF\n");
	assert_int_equal(rt_tsp_tour_read(path, 5, &back, &n, &err), RT_OK);
	assert_memory_equal(back, tour, sizeof tour);
	free(back);
}

/* Writes text to name, reads it as a tour of n_expected cities and expects
 * failure with path + suffix and nothing returned. */
static void tour_fails(const char *name, int n_expected, const char *text, const char *suffix)
{
	char path[512], want[1024];
	int dummy, *tour = &dummy, n = -7;
	rt_error err;

	tmp_path(path, sizeof path, name);
	write_text(path, text);
	assert_int_equal(rt_tsp_tour_read(path, n_expected, &tour, &n, &err), RT_ERR_INPUT);
	snprintf(want, sizeof want, "%s%s", path, suffix);
	assert_string_equal(err.msg, want);
	assert_null(tour);
	assert_int_equal(n, 0);
}

static void tsp_tour_errors(void **state)
{
	const char *h = "NAME: t\nTYPE: TOUR\nDIMENSION: 4\nTOUR_SECTION\n";
	char text[512];
	(void)state;

	snprintf(text, sizeof text, "%s1\n2\n4\n-1\nEOF\n", h);
	tour_fails("few.tour", 4, text, ":8:1: expected 4 cities before -1, got 3 (city 3 is missing)");
	snprintf(text, sizeof text, "%s1\n2\n4\nEOF\n", h);
	tour_fails("few2.tour", 4, text, ":8: expected 4 cities in TOUR_SECTION, got 3 (city 3 is missing)");
	snprintf(text, sizeof text, "%s1 2 2 4 -1\n", h);
	tour_fails("dup.tour", 4, text, ":5:5: expected each city once, got city 2 again");
	snprintf(text, sizeof text, "%s1 2 5 4 -1\n", h);
	tour_fails("range.tour", 4, text, ":5:5: expected a city number from 1 to 4, got '5'");
	snprintf(text, sizeof text, "%s1 2\n0 4 -1\n", h);
	tour_fails("zero.tour", 4, text, ":6:1: expected a city number from 1 to 4, got '0'");
	snprintf(text, sizeof text, "%s1 2 x 4 -1\n", h);
	tour_fails("word.tour", 4, text, ":5:5: expected a city number from 1 to 4, got 'x'");
	snprintf(text, sizeof text, "%s1 2 3 4 1 -1\n", h);
	tour_fails("many.tour", 4, text, ":5:9: expected -1 after the 4 cities, got '1'");
	snprintf(text, sizeof text, "%s1 2 3 4 -1\n-1\n", h);
	tour_fails("twice.tour", 4, text, ":6:1: expected EOF after the tour's -1, got '-1'");
	tour_fails("dim.tour", 5, h, ":3:12: expected DIMENSION 5 (the instance's), got 4");
	tour_fails("type.tour", 4, "NAME: t\nTYPE : TSP\n", ":2:8: expected TYPE TOUR, got 'TSP'");
	tour_fails("key.tour", 4, "NAME: t\nEDGE_WEIGHT_TYPE: EUC_2D\n",
	           ":2:1: expected a tour key (NAME, TYPE, COMMENT, DIMENSION), got 'EDGE_WEIGHT_TYPE'");
	tour_fails("nokey.tour", 4, "NAME: t\n1 2 3 4\n", ":2:1: expected 'KEY : value' or TOUR_SECTION, got '1 2 3 4'");
	tour_fails("none.tour", 4, "NAME: t\nEOF\n", ": expected a TOUR_SECTION, got none");
	tour_fails("nodim.tour", 0, "NAME: t\nTOUR_SECTION\n1 -1\n", ":2: expected DIMENSION before TOUR_SECTION");
	tour_fails("sec.tour", 4, "NODE_COORD_SECTION\n", ":1: NODE_COORD_SECTION is not supported in a tour file (only TOUR_SECTION)");
	snprintf(text, sizeof text, "%s1 2 3 4 -1\nTOUR_SECTION\n", h);
	tour_fails("two.tour", 4, text, ":6: expected one TOUR_SECTION, got a second one");
	tour_fails("baddim.tour", 0, "DIMENSION: 0\n", ":1:12: expected a number of cities from 1 to 10000000, got '0'");
}

/* ---- the shared datasets -------------------------------------------------- */

static void shared_shuttle(void **state)
{
	const char *path = "data/uci/shuttle.csv";   /* shipped */
	rt_table t;
	rt_error err;
	(void)state;
	assert_int_equal(rt_csv_load(path, NULL, &t, &err), RT_OK);
	assert_int_equal(t.nrows, 58000);
	assert_int_equal(t.ncols, 9);
	assert_int_equal(t.classes.n, 7);
	assert_string_equal(t.label_name, "Class");
	assert_string_equal(t.colnames[0], "V1");
	assert_string_equal(t.classes.names[0], "Fpv.Close");
	const float row0[9] = { 50, 21, 77, 0, 28, 0, 27, 48, 22 };
	for (int c = 0; c < 9; c++) {
		assert_int_equal(t.cats[c].n, 0);
		assert_true(rt_table_at(&t, c, 0) == row0[c]);
	}
	rt_table_free(&t);
}

static void shared_sonar(void **state)
{
	const char *path = "data/uci/sonar.csv";   /* shipped */
	rt_table t;
	rt_error err;
	(void)state;
	assert_int_equal(rt_csv_load(path, NULL, &t, &err), RT_OK);
	assert_int_equal(t.nrows, 208);
	assert_int_equal(t.ncols, 60);
	assert_int_equal(t.classes.n, 2);
	assert_string_equal(t.classes.names[0], "R");
	assert_true(rt_table_at(&t, 0, 0) == 0.02f);
	assert_true(rt_table_at(&t, 59, 0) == 0.0032f);
	rt_table_free(&t);
}

static void shared_kddcup(void **state)
{
	const char *path = SHARED "/uci/kddcup.data_10_percent.gz";
	rt_table t;
	rt_error err;
	rt_csv_options o = rt_csv_defaults();
	(void)state;
	if (!need(path))
		skip();
	o.header = 0;
	double t0 = now_s();
	assert_int_equal(rt_csv_load(path, &o, &t, &err), RT_OK);
	print_message("kddcup: %zu rows loaded in %.2f s\n", t.nrows, now_s() - t0);
	assert_int_equal(t.nrows, 494021);
	assert_int_equal(t.ncols, 41);
	assert_int_equal(t.classes.n, 23);
	assert_string_equal(t.classes.names[0], "normal.");
	assert_int_equal(t.cats[1].n, 3);    /* protocol */
	assert_int_equal(t.cats[2].n, 66);   /* service */
	assert_int_equal(t.cats[3].n, 11);   /* flag */
	assert_string_equal(t.cats[1].names[0], "tcp");
	assert_int_equal(t.cats[0].n, 0);
	assert_true(rt_table_at(&t, 4, 0) == 181.0f);
	assert_true(rt_table_at(&t, 5, 0) == 5450.0f);
	assert_true(t.label[0] == 0.0f);
	rt_table_free(&t);
}

static void shared_a9a(void **state)
{
	const char *path = SHARED "/svm/a9a";
	rt_table t;
	rt_error err;
	(void)state;
	if (!need(path))
		skip();
	assert_int_equal(rt_libsvm_load(path, 0, &t, &err), RT_OK);
	assert_int_equal(t.nrows, 32561);
	assert_int_equal(t.ncols, 123);
	int pm = 0;
	for (size_t r = 0; r < t.nrows; r++)
		pm += t.label[r] == 1.0f || t.label[r] == -1.0f;
	assert_int_equal(pm, 32561);
	assert_true(t.label[0] == -1.0f);
	float sum = 0;
	for (int c = 0; c < t.ncols; c++)
		sum += rt_table_at(&t, c, 0);
	assert_true(sum == 14.0f);   /* 14 features set in the first line */
	assert_true(rt_table_at(&t, 2, 0) == 1.0f && rt_table_at(&t, 0, 0) == 0.0f);
	rt_table_free(&t);
}

/* Length of the tour 1, 2, ..., n, which TSPLIB's documentation gives as a
 * check of an implementation of the distance functions. */
static long canonical_length(const rt_tsp *t)
{
	int *tour = malloc((size_t)t->n * sizeof *tour);
	assert_non_null(tour);
	for (int i = 0; i < t->n; i++)
		tour[i] = i;
	long len = rt_tsp_tour_length(t, tour);
	free(tour);
	return len;
}

static void shared_tsp(void **state)
{
	rt_tsp t;
	rt_error err;
	long opt;
	(void)state;

	if (!need(SHARED "/tsp/pcb442.tsp") || !need(SHARED "/tsp/att532.tsp") ||
	    !need(SHARED "/tsp/d493.tsp") || !need(SHARED "/tsp/eil51.tsp") || !need(SHARED "/tsp/optimal.txt"))
		skip();
	assert_int_equal(rt_tsp_load(SHARED "/tsp/pcb442.tsp", &t, &err), RT_OK);
	assert_int_equal(t.n, 442);
	assert_string_equal(t.name, "pcb442");
	assert_int_equal(t.metric, RT_TSP_EUC_2D);
	assert_int_equal(canonical_length(&t), 221440);
	assert_int_equal(rt_tsp_optimal(SHARED "/tsp/optimal.txt", t.name, &opt, &err), RT_OK);
	assert_int_equal(opt, 50778);
	rt_tsp_free(&t);

	assert_int_equal(rt_tsp_load(SHARED "/tsp/att532.tsp", &t, &err), RT_OK);
	assert_int_equal(t.n, 532);
	assert_int_equal(t.metric, RT_TSP_ATT);
	assert_int_equal(canonical_length(&t), 309636);
	rt_tsp_free(&t);

	assert_int_equal(rt_tsp_load(SHARED "/tsp/d493.tsp", &t, &err), RT_OK);
	assert_int_equal(t.n, 493);
	assert_true(t.x[1] == 1116.3 && t.y[1] == 1555.2);
	assert_int_equal(rt_tsp_distance(&t, 0, 1), 1914);   /* sqrt(3664772.73) = 1914.36 */
	rt_tsp_free(&t);

	/* eil51 with TSPLIB's optimal tour (eil51.opt.tour) has the optimal length. */
	static const int eil51_opt[51] = { 1, 22, 8, 26, 31, 28, 3, 36, 35, 20, 2, 29, 21, 16, 50, 34, 30,
	                                   9, 49, 10, 39, 33, 45, 15, 44, 42, 40, 19, 41, 13, 25, 14, 24, 43,
	                                   7, 23, 48, 6, 27, 51, 46, 12, 47, 18, 4, 17, 37, 5, 38, 11, 32 };
	int tour[51];
	for (int i = 0; i < 51; i++)
		tour[i] = eil51_opt[i] - 1;
	assert_int_equal(rt_tsp_load(SHARED "/tsp/eil51.tsp", &t, &err), RT_OK);
	assert_int_equal(rt_tsp_optimal(SHARED "/tsp/optimal.txt", t.name, &opt, &err), RT_OK);
	assert_int_equal(opt, 426);
	assert_int_equal(rt_tsp_tour_length(&t, tour), opt);
	rt_tsp_free(&t);
}

/* Length of the greedy nearest-neighbour tour from city 0 (an upper bound on
 * the optimum). */
static long nearest_neighbour_length(const rt_tsp *t)
{
	int *tour = malloc((size_t)t->n * sizeof *tour);
	unsigned char *used = calloc((size_t)t->n, 1);
	assert_true(tour && used);
	tour[0] = 0;
	used[0] = 1;
	for (int k = 1; k < t->n; k++) {
		int best = -1, bd = 0;
		for (int j = 0; j < t->n; j++)
			if (!used[j] && (best < 0 || rt_tsp_distance(t, tour[k - 1], j) < bd)) {
				best = j;
				bd = rt_tsp_distance(t, tour[k - 1], j);
			}
		tour[k] = best;
		used[best] = 1;
	}
	long len = rt_tsp_tour_length(t, tour);
	free(tour);
	free(used);
	return len;
}

/* Every shared TSPLIB instance: its size, optimum <= a nearest-neighbour
 * tour, the distance matrix; the eil51 optimal tour through a .tour file. */
static void shared_tsp_all(void **state)
{
	static const struct { const char *name; int n; } inst[] = {
		{ "att532", 532 }, { "d198", 198 }, { "d493", 493 }, { "eil51", 51 }, { "kroA100", 100 },
		{ "lin318", 318 }, { "pcb442", 442 }, { "pr1002", 1002 }, { "rat783", 783 },
	};
	char path[512];
	rt_tsp t;
	rt_error err;
	long opt, nn;
	(void)state;

	if (!need(SHARED "/tsp/optimal.txt"))
		skip();
	for (size_t k = 0; k < sizeof inst / sizeof inst[0]; k++) {
		snprintf(path, sizeof path, SHARED "/tsp/%s.tsp", inst[k].name);
		if (!need(path))
			continue;
		if (rt_tsp_load(path, &t, &err) != RT_OK)
			fail_msg("%s", err.msg);
		assert_int_equal(t.n, inst[k].n);
		assert_string_equal(t.name, inst[k].name);
		assert_int_equal(rt_tsp_optimal(SHARED "/tsp/optimal.txt", t.name, &opt, &err), RT_OK);
		nn = nearest_neighbour_length(&t);
		print_message("%s: %d cities, %s, optimum %ld, nearest neighbour %ld\n", t.name, t.n,
		              rt_tsp_metric_name(t.metric), opt, nn);
		assert_true(opt > 0 && opt <= nn);
		check_matrix(&t);
		rt_tsp_free(&t);
	}
}

static void shared_tsp_tour_file(void **state)
{
	static const int eil51_opt[51] = { 1, 22, 8, 26, 31, 28, 3, 36, 35, 20, 2, 29, 21, 16, 50, 34, 30,
	                                   9, 49, 10, 39, 33, 45, 15, 44, 42, 40, 19, 41, 13, 25, 14, 24, 43,
	                                   7, 23, 48, 6, 27, 51, 46, 12, 47, 18, 4, 17, 37, 5, 38, 11, 32 };
	char path[512];
	int tour[51], *back, n;
	rt_tsp t;
	rt_error err;
	(void)state;

	if (!need(SHARED "/tsp/eil51.tsp"))
		skip();
	for (int i = 0; i < 51; i++)
		tour[i] = eil51_opt[i] - 1;
	assert_int_equal(rt_tsp_load(SHARED "/tsp/eil51.tsp", &t, &err), RT_OK);
	tmp_path(path, sizeof path, "eil51.opt.tour");
	assert_int_equal(rt_tsp_tour_write(path, "eil51.opt.tour", "Optimal tour for eil51 (426)", t.n, tour, &err), RT_OK);
	assert_int_equal(rt_tsp_tour_read(path, t.n, &back, &n, &err), RT_OK);
	assert_int_equal(n, 51);
	assert_int_equal(rt_tsp_tour_length(&t, back), 426);
	free(back);
	rt_tsp_free(&t);
}

/* ---- allocation failure --------------------------------------------------- */

#ifdef RT_TESTS
/* Fails the 0th, 1st, 2nd ... allocation of a load until it succeeds; each
 * failure must be RT_ERR_SYSTEM with nothing left allocated (ASan's leak
 * check sees the rest). */
static void alloc_failures(void **state)
{
	char csv[512], gz[512], svm[512], tsp[512];
	const char *text = "a,b,colour,class\n1.5,-2,red,yes\n3,4e2,blue,no\n0.25,.5,green,maybe\n";
	rt_error err;
	(void)state;

	write_text(tmp_path(csv, sizeof csv, "oom.csv"), text);
	write_gz(tmp_path(gz, sizeof gz, "oom.csv.gz"), text);
	write_text(tmp_path(svm, sizeof svm, "oom.svm"), "1 1:1 3:2\n-1 2:5\n");
	write_text(tmp_path(tsp, sizeof tsp, "oom.tsp"),
	           "NAME: o\nTYPE: TSP\nDIMENSION: 2\nEDGE_WEIGHT_TYPE: EUC_2D\nNODE_COORD_SECTION\n1 0 0\n2 3 4\nEOF\n");
	static const char *const names[4] = { "csv", "csv.gz", "libsvm", "tsp" };
	for (int which = 0; which < 4; which++) {
		int n, failures = 0;
		for (n = 0; n < 1000; n++) {
			rt_table t;
			rt_tsp p;
			rt_status st;
			rt_alloc_fail_after(n);
			if (which == 0)
				st = rt_csv_load(csv, NULL, &t, &err);
			else if (which == 1)
				st = rt_csv_load(gz, NULL, &t, &err);
			else if (which == 2)
				st = rt_libsvm_load(svm, 0, &t, &err);
			else
				st = rt_tsp_load(tsp, &p, &err);
			rt_alloc_fail_after(-1);
			if (st == RT_OK) {
				if (which == 3) {
					assert_int_equal(rt_tsp_distance(&p, 0, 1), 5);
					rt_tsp_free(&p);
				} else {
					assert_int_equal(t.nrows, which == 2 ? 2 : 3);
					rt_table_free(&t);
				}
				break;
			}
			assert_int_equal(st, RT_ERR_SYSTEM);
			assert_non_null(strstr(err.msg, "out of memory"));
			if (which == 3)
				assert_null(p.x);
			else
				assert_null(t.cols);
			failures++;
		}
		assert_true(n < 1000);
		assert_true(failures >= 3);
		print_message("%s: %d allocation failures reported cleanly\n", names[which], failures);
	}
}

/* One try of the TSP loads and tour I/O under allocation failure; 1 = it worked. */
static int tsp_alloc_try(int which, const char *path, const char *tour_path, rt_error *err)
{
	static const int tour[5] = { 2, 0, 4, 1, 3 };
	rt_status st;
	rt_tsp t;
	int *back = NULL, n;

	if (which == 0)
		st = rt_tsp_load(path, &t, err);
	else if (which == 1)
		st = rt_tsp_tour_write(tour_path, "t", "c", 5, tour, err);
	else
		st = rt_tsp_tour_read(tour_path, 5, &back, &n, err);
	rt_alloc_fail_after(-1);
	if (st != RT_OK) {
		assert_int_equal(st, RT_ERR_SYSTEM);
		assert_non_null(strstr(err->msg, "out of memory"));
		assert_null(which == 0 ? (void *)t.w : (void *)back);
		return 0;
	}
	if (which == 0) {
		check_k5(&t);
		rt_tsp_free(&t);
	} else if (which == 2) {
		assert_memory_equal(back, tour, sizeof tour);
		free(back);
	}
	return 1;
}

static void alloc_failures_tsp(void **state)
{
	static const char *const names[3] = { "tsp explicit", "tour write", "tour read" };
	char path[512], tour_path[512];
	rt_error err;
	(void)state;

	write_text(tmp_path(path, sizeof path, "oomk5.tsp"),
	           K5_HEAD "EDGE_WEIGHT_FORMAT: UPPER_ROW\nEDGE_WEIGHT_SECTION\n3 4 2 7 4 6 3 5 8 6\n"
	           "DISPLAY_DATA_SECTION\n1 0 0\n2 1 1\n3 2 2\n4 3 3\n5 4 4\nEOF\n");
	tmp_path(tour_path, sizeof tour_path, "oom.tour");
	for (int which = 0; which < 3; which++) {
		int n, failures = 0;
		for (n = 0; n < 100; n++) {
			rt_alloc_fail_after(n);
			if (tsp_alloc_try(which, path, tour_path, &err))
				break;
			failures++;
		}
		assert_true(n < 100);
		assert_true(failures >= 2);
		print_message("%s: %d allocation failures reported cleanly\n", names[which], failures);
	}
}
#else
static void alloc_failures_tsp(void **state)
{
	(void)state;
	print_message("SKIP: allocation failure injection needs the RT_TESTS build (build/asan/)\n");
	skip();
}

static void alloc_failures(void **state)
{
	(void)state;
	print_message("SKIP: allocation failure injection needs the RT_TESTS build (build/asan/)\n");
	skip();
}
#endif

/* ---- the temporary folder ------------------------------------------------- */

static int make_dir(void **state)
{
	const char *tmp = getenv("TMPDIR");
	(void)state;
	snprintf(g_dir, sizeof g_dir, "%s/evoforge-test-data-XXXXXX", tmp && *tmp ? tmp : "/tmp");
	return mkdtemp(g_dir) ? 0 : -1;
}

static int remove_dir(void **state)
{
	DIR *d = opendir(g_dir);
	struct dirent *e;
	char path[512];
	(void)state;
	if (!d)
		return -1;
	while ((e = readdir(d)) != NULL)
		if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
			unlink(tmp_path(path, sizeof path, e->d_name));
	closedir(d);
	return rmdir(g_dir);
}

/* ---- non-finite values ---------------------------------------------------- */

/* nan, inf and overflow (1e999; 1e39 for the float readers) are rejected by
 * every reader with file:line:col (the byte column where the field starts);
 * a finite value in the same place loads. */
static void nonfinite_values(void **state)
{
	static const char *const bad[] = { "nan", "inf", "1e999", "-Infinity", "1e39" };
	char text[256], suffix[256], path[512];
	rt_table t;
	rt_tsp tsp;
	rt_error err;
	(void)state;
	for (int k = 0; k < 5; k++) {
		/* CSV: row 3, field 2 starts at byte 3 ("1,"); also in the label column. */
		snprintf(text, sizeof text, "a,b,y\n1,2,3\n4,%s,5\n", bad[k]);
		snprintf(suffix, sizeof suffix, ":3:3: expected a finite number in column 'b', got '%s'", bad[k]);
		csv_fails("nonfinite.csv", text, NULL, suffix);
		snprintf(text, sizeof text, "a,y\n1,%s\n", bad[k]);
		snprintf(suffix, sizeof suffix, ":2:3: expected a finite number in column 'y', got '%s'", bad[k]);
		csv_fails("nonfinite-label.csv", text, NULL, suffix);
		/* LIBSVM: a value (column of the value after "idx:") and a label. */
		snprintf(text, sizeof text, "1 1:0.5\n-1 1:2 3:%s\n", bad[k]);
		snprintf(suffix, sizeof suffix, ":2:10: expected a finite number after '3:', got '%s'", bad[k]);
		svm_fails("nonfinite.svm", text, 0, suffix);
		snprintf(text, sizeof text, "1 1:0.5\n%s 1:2\n", bad[k]);
		snprintf(suffix, sizeof suffix, ":2:1: expected a finite number (the label), got '%s'", bad[k]);
		svm_fails("nonfinite-label.svm", text, 0, suffix);
		/* TSPLIB: a coordinate and an EXPLICIT weight (1e39 is a finite double:
		 * the range checks report it instead). */
		if (k == 4)
			continue;
		snprintf(text, sizeof text, "NAME: n\nTYPE: TSP\nDIMENSION: 2\nEDGE_WEIGHT_TYPE: EUC_2D\n"
			 "NODE_COORD_SECTION\n1 0 0\n2 5 %s\nEOF\n", bad[k]);
		snprintf(suffix, sizeof suffix, ":7:5: expected a finite number (the y coordinate of city 2), got '%s'", bad[k]);
		tsp_fails("nonfinite.tsp", text, suffix);
		snprintf(text, sizeof text, "NAME: n\nTYPE: TSP\nDIMENSION: 2\nEDGE_WEIGHT_TYPE: EXPLICIT\n"
			 "EDGE_WEIGHT_FORMAT: UPPER_ROW\nEDGE_WEIGHT_SECTION\n%s\nEOF\n", bad[k]);
		snprintf(suffix, sizeof suffix, ":7:1: expected a finite number (the weight from city 1 to city 2), got '%s'", bad[k]);
		tsp_fails("nonfinite-w.tsp", text, suffix);
	}
	/* The same places with finite values load, with the values read. */
	write_text(tmp_path(path, sizeof path, "finite.csv"), "a,b,y\n1,2,3\n4,-1e30,5\n");
	assert_int_equal(rt_csv_load(path, NULL, &t, &err), RT_OK);
	assert_true(rt_table_at(&t, 1, 1) == -1e30f);
	rt_table_free(&t);
	write_text(tmp_path(path, sizeof path, "finite.svm"), "1 1:0.5\n-1 1:2 3:3e38\n");
	assert_int_equal(rt_libsvm_load(path, 0, &t, &err), RT_OK);
	assert_true(rt_table_at(&t, 2, 1) == 3e38f);
	rt_table_free(&t);
	write_text(tmp_path(path, sizeof path, "finite.tsp"), "NAME: n\nTYPE: TSP\nDIMENSION: 2\n"
		   "EDGE_WEIGHT_TYPE: EUC_2D\nNODE_COORD_SECTION\n1 0 0\n2 5 12\nEOF\n");
	assert_int_equal(rt_tsp_load(path, &tsp, &err), RT_OK);
	assert_int_equal(rt_tsp_distance(&tsp, 0, 1), 13);
	rt_tsp_free(&tsp);
	/* A string column may hold the text "inf" once it is categorical. */
	write_text(tmp_path(path, sizeof path, "cat-inf.csv"), "a,y\nfoo,1\ninf,2\n");
	assert_int_equal(rt_csv_load(path, NULL, &t, &err), RT_OK);
	assert_int_equal(t.cats[0].n, 2);
	assert_string_equal(t.cats[0].names[1], "inf");
	rt_table_free(&t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(csv_header_types_and_label),
		cmocka_unit_test(csv_no_header_label_first),
		cmocka_unit_test(csv_crlf_quotes_blank_lines),
		cmocka_unit_test(csv_many_rows_and_long_line),
		cmocka_unit_test(csv_errors),
		cmocka_unit_test(csv_too_many_categories),
		cmocka_unit_test(csv_gzip),
		cmocka_unit_test(nonfinite_values),
		cmocka_unit_test(libsvm_good),
		cmocka_unit_test(libsvm_errors),
		cmocka_unit_test(tsp_good),
		cmocka_unit_test(tsp_metrics),
		cmocka_unit_test(tsp_geo_optimal),
		cmocka_unit_test(tsp_errors),
		cmocka_unit_test(tsp_optimal_file),
		cmocka_unit_test(tsp_explicit_formats),
		cmocka_unit_test(tsp_explicit_errors),
		cmocka_unit_test(tsp_sections_errors),
		cmocka_unit_test(tsp_coordinate_metrics),
		cmocka_unit_test(tsp_metrics_more),
		cmocka_unit_test(tsp_tour_round_trip),
		cmocka_unit_test(tsp_tour_errors),
		cmocka_unit_test(shared_shuttle),
		cmocka_unit_test(shared_sonar),
		cmocka_unit_test(shared_kddcup),
		cmocka_unit_test(shared_a9a),
		cmocka_unit_test(shared_tsp),
		cmocka_unit_test(shared_tsp_all),
		cmocka_unit_test(shared_tsp_tour_file),
		cmocka_unit_test(alloc_failures),
		cmocka_unit_test(alloc_failures_tsp),
	};
	return cmocka_run_group_tests_name("data", tests, make_dir, remove_dir);
}
