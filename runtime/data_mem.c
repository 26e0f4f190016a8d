/* data_mem.c: the caller's in-memory tables ("memory:NAME" data files):
 * checked once when given, converted into a column-major float rt_table at
 * each load, in one pass (data_mem.h). */
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "data_impl.h"
#include "data_mem.h"

static const rt_mem_table *used;   /* the current run's tables (borrowed) */
static int nused;

void rt_mem_use(const rt_mem_table *tables, int n)
{
	used = n > 0 ? tables : NULL;
	nused = n > 0 ? n : 0;
}

int rt_mem_is_name(const char *path)
{
	return path && !strncmp(path, RT_MEM_PREFIX, sizeof RT_MEM_PREFIX - 1);
}

const rt_mem_table *rt_mem_find(const char *path)
{
	if (!rt_mem_is_name(path))
		return NULL;
	path += sizeof RT_MEM_PREFIX - 1;
	for (int i = 0; i < nused; i++)
		if (!strcmp(used[i].name, path))
			return &used[i];
	return NULL;
}

const char *rt_mem_list(char *buf, size_t size)
{
	size_t len = 0;
	snprintf(buf, size, "none");
	for (int i = 0; i < nused && len < size; i++)
		len += (size_t)snprintf(buf + len, size - len, "%s%s", i ? ", " : "", used[i].name);
	return buf;
}

/* Value of virtual column f (X's columns, then y) at row r, as a double. */
static double value_at(const rt_mem_table *t, size_t r, int f)
{
	if (f < t->ncols)
		return t->is_float ? ((const float *)t->x)[r * (size_t)t->ncols + (size_t)f]
				   : ((const double *)t->x)[r * (size_t)t->ncols + (size_t)f];
	return t->is_float ? ((const float *)t->y)[r] : ((const double *)t->y)[r];
}

/* Name of virtual column f: the caller's, "x<f+1>", or "y". */
static const char *name_at(const rt_mem_table *t, int f, char *buf, size_t size)
{
	if (f == t->ncols)
		return "y";
	if (t->colnames)
		return t->colnames[f];
	snprintf(buf, size, "x%d", f + 1);
	return buf;
}

/* ---- checking --------------------------------------------------------------- */

static int name_char_ok(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
	       c == '_' || c == '-' || c == '.';
}

static rt_status check_name(const char *who, const char *name, rt_error *err)
{
	size_t n = strlen(name);
	if (n == 0 || n > RT_MEM_NAME_MAX)
		return rt_fail(err, RT_ERR_INPUT, "%s: expected a table name of 1 to %d characters, "
			       "got %zu", who, RT_MEM_NAME_MAX, n);
	for (size_t i = 0; i < n; i++)
		if (!name_char_ok(name[i]))
			return rt_fail(err, RT_ERR_INPUT, "%s: table name '%s': expected letters, "
				       "digits, '_', '-' or '.', got '%c'", who, name, name[i]);
	return RT_OK;
}

/* The column names: present, printable in a CSV header, distinct (y's too). */
static rt_status check_colnames(const char *who, const rt_mem_table *t, rt_error *err)
{
	char a[32], b[32];
	int nf = t->ncols + (t->y != NULL);
	for (int f = 0; t->colnames && f < t->ncols; f++) {
		const char *s = t->colnames[f];
		if (!s || !*s || strpbrk(s, ",\"\r\n"))
			return rt_fail(err, RT_ERR_INPUT, "%s: table '%s': column %d: expected a "
				       "non-empty name without commas, quotes or line breaks, got %s%s%s",
				       who, t->name, f + 1, s ? "'" : "", s ? s : "NULL", s ? "'" : "");
	}
	for (int f = 0; t->colnames && f < nf; f++) {
		const char *nf_name = name_at(t, f, a, sizeof a);
		for (int g = f + 1; g < nf; g++)
			if (!strcmp(nf_name, name_at(t, g, b, sizeof b)))
				return rt_fail(err, RT_ERR_INPUT, "%s: table '%s': columns %d and %d%s "
					       "are both named '%s': expected distinct names", who,
					       t->name, f + 1, g + 1, g == t->ncols ? " (y)" : "", nf_name);
	}
	return RT_OK;
}

/* Every value finite and within a float's range; the first bad one named. */
static rt_status check_values(const char *who, const rt_mem_table *t, rt_error *err)
{
	char buf[32];
	int nf = t->ncols + (t->y != NULL);
	for (size_t r = 0; r < t->nrows; r++)
		for (int f = 0; f < nf; f++) {
			double v = value_at(t, r, f);
			if (isfinite(v) && fabs(v) <= FLT_MAX)
				continue;
			return rt_fail(err, RT_ERR_INPUT, "%s: table '%s': row %zu, %s %d ('%s'): "
				       "expected a finite number within a float's range, got %g",
				       who, t->name, r + 1, f < t->ncols ? "column" : "y, column",
				       f + 1, name_at(t, f, buf, sizeof buf), v);
		}
	return RT_OK;
}

rt_status rt_mem_check(const char *who, const rt_mem_table *t, rt_error *err)
{
	rt_status st = check_name(who, t->name, err);
	int maxcols = RT_DATA_MAX_COLS - (t->y != NULL);
	if (st != RT_OK)
		return st;
	if (!t->x)
		return rt_fail(err, RT_ERR_INPUT, "%s: table '%s': X is NULL", who, t->name);
	if (t->nrows < 1 || t->ncols < 1 || t->ncols > maxcols)
		return rt_fail(err, RT_ERR_INPUT, "%s: table '%s': expected rows > 0 and 1..%d "
			       "columns, got %zu rows and %d columns", who, t->name, maxcols,
			       t->nrows, t->ncols);
	if (t->nrows > SIZE_MAX / sizeof(double) / ((size_t)t->ncols + 1))
		return rt_fail(err, RT_ERR_INPUT, "%s: table '%s': %zu rows of %d columns is too "
			       "large", who, t->name, t->nrows, t->ncols);
	if ((st = check_colnames(who, t, err)) != RT_OK)
		return st;
	return check_values(who, t, err);
}

/* ---- loading ------------------------------------------------------------------ */

/* The label's virtual column as rt_csv_options say (-1: none). */
static rt_status pick_label(const char *path, const rt_mem_table *t, const rt_csv_options *o,
			    int *lab, rt_error *err)
{
	char buf[32];
	int nf = t->ncols + (t->y != NULL);
	if (o->label) {
		for (int f = 0; f < nf; f++)
			if (!strcmp(name_at(t, f, buf, sizeof buf), o->label))
				return (*lab = f, RT_OK);
		return rt_fail(err, RT_ERR_INPUT, "%s: expected a column named '%s' (the label), "
			       "got none (the table's columns: %s, ...%s)", path, o->label,
			       name_at(t, 0, buf, sizeof buf), t->y ? " and y" : "");
	}
	if (o->label_index == -2)
		return (*lab = -1, RT_OK);
	if (o->label_index == -1)
		return (*lab = nf - 1, RT_OK);
	if (o->label_index < 0 || o->label_index >= nf)
		return rt_fail(err, RT_ERR_INPUT, "%s: label column index %d is out of range (the "
			       "table has %d columns, 0-based; -1 = last, -2 = none)", path,
			       o->label_index, nf);
	return (*lab = o->label_index, RT_OK);
}

/* Allocates out's arrays and names for nout input columns (label lab). */
static rt_status alloc_table(const rt_mem_table *t, int lab, rt_table *out, rt_error *err)
{
	char buf[32];
	int nf = t->ncols + (t->y != NULL), nout = nf - (lab >= 0);
	out->ncols = nout;
	out->nrows = t->nrows;
	if (!(out->colnames = rt_calloc((size_t)nout + 1, sizeof *out->colnames, err)) ||
	    !(out->cats = rt_calloc((size_t)nout + 1, sizeof *out->cats, err)) ||
	    !(out->cols = rt_malloc(((size_t)nout * t->nrows + 1) * sizeof *out->cols, err)))
		return RT_ERR_SYSTEM;
	if (lab >= 0) {
		out->has_label = 1;
		if (!(out->label = rt_malloc(t->nrows * sizeof *out->label, err)) ||
		    !(out->label_name = rt_strdup(name_at(t, lab, buf, sizeof buf), err)))
			return RT_ERR_SYSTEM;
	}
	for (int f = 0, c = 0; f < nf; f++)
		if (f != lab && !(out->colnames[c++] = rt_strdup(name_at(t, f, buf, sizeof buf), err)))
			return RT_ERR_SYSTEM;
	return RT_OK;
}

/* Row-major double or float into out's columns and label, in blocks of rows
 * so that reads stay in cache and writes stream (the one conversion). */
static void convert(const rt_mem_table *t, int lab, rt_table *out)
{
	int nf = t->ncols + (t->y != NULL);
	size_t n = t->nrows;
	for (size_t r0 = 0; r0 < n; r0 += 256) {
		size_t r1 = r0 + 256 < n ? r0 + 256 : n;
		for (int f = 0, c = 0; f < nf; f++) {
			float *dst = f == lab ? out->label : out->cols + (size_t)c++ * n;
			for (size_t r = r0; r < r1; r++)
				dst[r] = (float)value_at(t, r, f);
		}
	}
}

rt_status rt_mem_load(const char *path, const rt_csv_options *opt, rt_table *out, rt_error *err)
{
	rt_csv_options o = opt ? *opt : rt_csv_defaults();
	const rt_mem_table *t = rt_mem_find(path);
	char list[256];
	int lab = -1;
	rt_status st;
	memset(out, 0, sizeof *out);
	if (!t)
		return rt_fail(err, RT_ERR_INPUT, "%s: no table '%s' in memory (expected one given "
			       "by evoforge_job_set_table; this run has: %s)", path,
			       rt_mem_is_name(path) ? path + sizeof RT_MEM_PREFIX - 1 : path,
			       rt_mem_list(list, sizeof list));
	if ((st = pick_label(path, t, &o, &lab, err)) != RT_OK)
		return st;
	if ((st = alloc_table(t, lab, out, err)) != RT_OK) {
		rt_table_free(out);
		return st;
	}
	convert(t, lab, out);
	snprintf(out->path, sizeof out->path, "%s", path);
	return RT_OK;
}
