/* test_data.c: the CSV, LIBSVM and TSPLIB loaders on small files written to a
 * temporary folder (good input, every kind of bad input with its exact
 * message), and on the shared datasets in ../shared/data when present. */
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

#define SHARED "../shared/data"

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

/* Skips the test visibly when a shared dataset is missing. */
static int need(const char *path)
{
	if (access(path, R_OK) == 0)
		return 1;
	print_message("SKIP: %s not present\n", path);
	return 0;
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
	           "nan,-inf,A\r\n"
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
	assert_true(isnan(rt_table_at(&t, 0, 2)));
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
	csv_fails("empty_field.csv", "a,b,c\n1,2,3\n4,,6\n", NULL, ":3:3: expected a number in column 'b', got ''");
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
	svm_fails("dup.svm", "1 1:1\n-1 2:1 2:5\n", 0, ":2:8: expected an index above 2 (indices must ascend), got '2:5'");
	svm_fails("zero.svm", "1 0:1\n", 0, ":1:3: expected an index of 1 or more (indices are 1-based), got '0:1'");
	svm_fails("label.svm", "1 1:1\nabc 1:1\n", 0, ":2:1: expected a label (a number), got 'abc'");
	svm_fails("value.svm", "1 12:x\n", 0, ":1:6: expected a number after '12:', got 'x'");
	svm_fails("token.svm", "1  foo\n", 0, ":1:4: expected index:value, got 'foo'");
	svm_fails("sign.svm", "1 -2:1\n", 0, ":1:3: expected index:value with a whole-number index, got '-2:1'");
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

	tsp_fails("explicit.tsp", "NAME: e\nTYPE: TSP\nDIMENSION: 3\nEDGE_WEIGHT_TYPE: EXPLICIT\n"
	          "EDGE_WEIGHT_FORMAT: FULL_MATRIX\nEDGE_WEIGHT_SECTION\n0 1 2\n1 0 3\n2 3 0\nEOF\n",
	          ":4: EDGE_WEIGHT_TYPE EXPLICIT is not supported (supported: EUC_2D, CEIL_2D, ATT, GEO)");
	tsp_fails("atsp.tsp", "NAME: a\nTYPE: ATSP\n", ":2: TYPE ATSP is not supported (only TSP, the symmetric travelling salesman problem)");
	tsp_fails("nodim.tsp", "NAME: n\nEDGE_WEIGHT_TYPE: EUC_2D\nNODE_COORD_SECTION\n1 0 0\n",
	          ":3: expected DIMENSION before NODE_COORD_SECTION");
	tsp_fails("dim.tsp", "DIMENSION: -4\n", ":1:12: expected a number of cities from 1 to 10000000, got '-4'");
	tsp_fails("key.tsp", "NAME: k\nCOLOUR: blue\n",
	          ":2:1: expected a TSPLIB key (NAME, TYPE, COMMENT, DIMENSION, EDGE_WEIGHT_TYPE, ...), got 'COLOUR'");
	tsp_fails("nokey.tsp", "NAME: k\nhello world\n", ":2:1: expected 'KEY : value' or a section name, got 'hello world'");
	tsp_fails("display.tsp", "NAME: k\nDIMENSION: 2\nDISPLAY_DATA_SECTION\n", ":3: DISPLAY_DATA_SECTION is not supported (only NODE_COORD_SECTION)");
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
	tsp_fails("more.tsp", text, ":9:1: expected EOF after the 3 cities, got '4 3 3'");
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

/* ---- the shared datasets -------------------------------------------------- */

static void shared_shuttle(void **state)
{
	const char *path = SHARED "/uci/shuttle.csv";
	rt_table t;
	rt_error err;
	(void)state;
	if (!need(path))
		skip();
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
	const char *path = SHARED "/uci/sonar.csv";
	rt_table t;
	rt_error err;
	(void)state;
	if (!need(path))
		skip();
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
#else
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
		cmocka_unit_test(libsvm_good),
		cmocka_unit_test(libsvm_errors),
		cmocka_unit_test(tsp_good),
		cmocka_unit_test(tsp_metrics),
		cmocka_unit_test(tsp_geo_optimal),
		cmocka_unit_test(tsp_errors),
		cmocka_unit_test(tsp_optimal_file),
		cmocka_unit_test(shared_shuttle),
		cmocka_unit_test(shared_sonar),
		cmocka_unit_test(shared_kddcup),
		cmocka_unit_test(shared_a9a),
		cmocka_unit_test(shared_tsp),
		cmocka_unit_test(alloc_failures),
	};
	return cmocka_run_group_tests_name("data", tests, make_dir, remove_dir);
}
