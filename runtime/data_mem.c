/* data_mem.c: the caller's in-memory tables ("memory:NAME" data files):
 * checked once when given, converted into a column-major float rt_table at
 * each load, in one pass (data_mem.h). */
#include <float.h>
#include <limits.h>
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

static rt_status find_kind(const char *path, int csr, const rt_mem_table **t, rt_error *err);

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
	if (t && t->csr)
		return find_kind(path, 0, &t, err);   /* its message: CSR tables are svm's */
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

/* ---- CSR tables (svm's sparse rows) ------------------------------------------ */

int rt_mem_is_csr(const char *path)
{
	const rt_mem_table *t = rt_mem_find(path);
	return t && t->csr;
}

/* A finite value within a float's range. */
static int float_ok(double v)
{
	return isfinite(v) && fabs(v) <= FLT_MAX;
}

/* Row r's entries: indices in range and strictly ascending, values finite. */
static rt_status check_csr_row(const char *who, const rt_mem_table *t, size_t r, rt_error *err)
{
	const double *val = t->x;
	for (int64_t k = t->indptr[r]; k < t->indptr[r + 1]; k++) {
		int32_t c = t->indices[k];
		if (c < 0 || c >= t->ncols)
			return rt_fail(err, RT_ERR_INPUT, "%s: table '%s': row %zu, entry %lld: column "
				       "index %d is out of range (expected 0..%d, 0-based)", who,
				       t->name, r + 1, (long long)k, (int)c, t->ncols - 1);
		if (k > t->indptr[r] && c <= t->indices[k - 1])
			return rt_fail(err, RT_ERR_INPUT, "%s: table '%s': row %zu, entry %lld: column "
				       "index %d after %d: expected indices ascending within a row%s "
				       "(sort them: scipy's sort_indices, sum_duplicates)", who,
				       t->name, r + 1, (long long)k, (int)c, (int)t->indices[k - 1],
				       c == t->indices[k - 1] ? ", without repeats" : "");
		if (!float_ok(val[k]))
			return rt_fail(err, RT_ERR_INPUT, "%s: table '%s': row %zu, column %d: expected "
				       "a finite number within a float's range, got %g", who, t->name,
				       r + 1, (int)c, val[k]);
	}
	return RT_OK;
}

rt_status rt_mem_check_csr(const char *who, const rt_mem_table *t, rt_error *err)
{
	const double *y = t->y;
	rt_status st = check_name(who, t->name, err);
	if (st != RT_OK)
		return st;
	if (t->nrows < 1 || t->ncols < 1)
		return rt_fail(err, RT_ERR_INPUT, "%s: table '%s': expected rows > 0 and cols > 0, "
			       "got %zu rows and %d cols", who, t->name, t->nrows, t->ncols);
	if (!t->indptr)
		return rt_fail(err, RT_ERR_INPUT, "%s: table '%s': indptr is NULL", who, t->name);
	if (t->indptr[0] != 0)
		return rt_fail(err, RT_ERR_INPUT, "%s: table '%s': expected indptr[0] = 0, got %lld",
			       who, t->name, (long long)t->indptr[0]);
	for (size_t r = 0; r < t->nrows; r++)
		if (t->indptr[r + 1] < t->indptr[r] || t->indptr[r + 1] > (int64_t)(LONG_MAX / 8))
			return rt_fail(err, RT_ERR_INPUT, "%s: table '%s': indptr[%zu] = %lld after "
				       "indptr[%zu] = %lld: expected a non-decreasing indptr (row %zu "
				       "ends before it starts)", who, t->name, r + 1,
				       (long long)t->indptr[r + 1], r, (long long)t->indptr[r], r + 1);
	if (t->indptr[t->nrows] > 0 && (!t->indices || !t->x))
		return rt_fail(err, RT_ERR_INPUT, "%s: table '%s': %lld entries but NULL %s", who,
			       t->name, (long long)t->indptr[t->nrows], t->indices ? "values" : "indices");
	for (size_t r = 0; r < t->nrows; r++) {
		if ((st = check_csr_row(who, t, r, err)) != RT_OK)
			return st;
		if (y && !float_ok(y[r]))
			return rt_fail(err, RT_ERR_INPUT, "%s: table '%s': row %zu: expected a finite "
				       "label within a float's range, got %g", who, t->name, r + 1, y[r]);
	}
	return RT_OK;
}

/* The registered table for path, checked to be of the storage asked for. */
static rt_status find_kind(const char *path, int csr, const rt_mem_table **t, rt_error *err)
{
	char list[256];
	if (!(*t = rt_mem_find(path)))
		return rt_fail(err, RT_ERR_INPUT, "%s: no table '%s' in memory (this run has: %s)",
			       path, rt_mem_is_name(path) ? path + sizeof RT_MEM_PREFIX - 1 : path,
			       rt_mem_list(list, sizeof list));
	if ((*t)->csr != csr)
		return rt_fail(err, RT_ERR_INPUT, "%s: table '%s' is %s, expected a %s one here (%s)",
			       path, (*t)->name, csr ? "dense" : "sparse (CSR)",
			       csr ? "sparse (CSR)" : "dense",
			       csr ? "a dense table reads as a CSV file"
				   : "CSR tables are for svm's [data] train and test only");
	return RT_OK;
}

rt_status rt_mem_load_sparse(const char *path, int nfeatures, int max_cols, rt_sparse_table *out,
			     rt_error *err)
{
	const rt_mem_table *t;
	const double *val, *y;
	size_t nnz;
	rt_status st = find_kind(path, 1, &t, err);
	memset(out, 0, sizeof *out);
	if (st != RT_OK)
		return st;
	out->ncols = nfeatures > 0 ? nfeatures : t->ncols;
	if (out->ncols > max_cols)
		return rt_fail(err, RT_ERR_INPUT, "%s: %d columns is above the limit of %d columns",
			       path, out->ncols, max_cols);
	nnz = (size_t)t->indptr[t->nrows];
	for (size_t k = 0; k < nnz; k++)
		if (t->indices[k] >= out->ncols)
			return rt_fail(err, RT_ERR_INPUT, "%s: entry %zu: column index %d: expected "
				       "0 to %d (the features asked for, 0-based)", path, k,
				       (int)t->indices[k], out->ncols - 1);
	out->ptr = rt_malloc((t->nrows + 1) * sizeof *out->ptr, err);
	out->col = out->ptr ? rt_malloc(nnz * sizeof *out->col + 1, err) : NULL;
	out->val = out->col ? rt_malloc(nnz * sizeof *out->val + 1, err) : NULL;
	out->labels = out->val ? rt_malloc(t->nrows * sizeof *out->labels, err) : NULL;
	if (!out->labels) {
		rt_sparse_table_free(out);
		return RT_ERR_SYSTEM;
	}
	val = t->x;
	y = t->y;
	for (size_t r = 0; r <= t->nrows; r++)
		out->ptr[r] = (long)t->indptr[r];
	for (size_t k = 0; k < nnz; k++) {
		out->col[k] = t->indices[k];
		out->val[k] = (float)val[k];
	}
	for (size_t r = 0; r < t->nrows; r++)
		out->labels[r] = y ? (float)y[r] : 0.0f;
	out->nrows = t->nrows;
	out->nnz = nnz;
	return RT_OK;
}

/* ---- TSP instances (aco's [data] file) ---------------------------------------- */

/* n x 2 coordinates: EUC_2D, copied as doubles. */
static rt_status tsp_coords(const rt_mem_table *t, rt_tsp *out, rt_error *err)
{
	size_t n = t->nrows;
	if (!(out->x = rt_malloc(n * sizeof *out->x, err)) ||
	    !(out->y = rt_malloc(n * sizeof *out->y, err)))
		return RT_ERR_SYSTEM;
	for (size_t i = 0; i < n; i++) {
		out->x[i] = value_at(t, i, 0);
		out->y[i] = value_at(t, i, 1);
		for (int c = 0; c < 2; c++)
			if (fabs(c ? out->y[i] : out->x[i]) > RT_TSP_MAX_COORD)
				return rt_fail(err, RT_ERR_INPUT, "memory:%s: city %zu: coordinate %d "
					       "is %g: expected at most %g in magnitude", t->name,
					       i + 1, c + 1, c ? out->y[i] : out->x[i],
					       RT_TSP_MAX_COORD);
	}
	out->metric = RT_TSP_EUC_2D;
	return RT_OK;
}

/* One length of the matrix: a whole number 0..RT_TSP_MAX_WEIGHT. */
static rt_status tsp_weight(const rt_mem_table *t, size_t i, size_t j, int *w, rt_error *err)
{
	double v = value_at(t, i, (int)j);
	if (!(v >= 0 && v <= RT_TSP_MAX_WEIGHT) || v != floor(v))
		return rt_fail(err, RT_ERR_INPUT, "memory:%s: length from city %zu to city %zu is "
			       "%g: expected a whole number from 0 to %d (aco's lengths are "
			       "integers, as TSPLIB's; round or scale them)", t->name, i + 1, j + 1,
			       v, RT_TSP_MAX_WEIGHT);
	*w = (int)v;
	return RT_OK;
}

/* n x n lengths: EXPLICIT, symmetric, the diagonal stored as 0. */
static rt_status tsp_matrix(const rt_mem_table *t, rt_tsp *out, rt_error *err)
{
	size_t n = t->nrows;
	rt_status st;
	if (n > RT_TSP_MAX_EXPLICIT)
		return rt_fail(err, RT_ERR_INPUT, "memory:%s: a %zu x %zu matrix: expected at most "
			       "%d cities (build with -DRT_TSP_MAX_EXPLICIT=N for more)", t->name, n,
			       n, RT_TSP_MAX_EXPLICIT);
	if (!(out->w = rt_malloc(n * n * sizeof *out->w, err)))
		return RT_ERR_SYSTEM;
	for (size_t i = 0; i < n; i++)
		for (size_t j = 0; j < n; j++)
			if ((st = tsp_weight(t, i, j, &out->w[i * n + j], err)) != RT_OK)
				return st;
	for (size_t i = 0; i < n; i++) {
		out->w[i * n + i] = 0;
		for (size_t j = 0; j < i; j++)
			if (out->w[i * n + j] != out->w[j * n + i])
				return rt_fail(err, RT_ERR_INPUT, "memory:%s: the matrix is not "
					       "symmetric: length %d from city %zu to %zu, %d back; "
					       "aco solves symmetric instances only (its local "
					       "search assumes d(i,j) = d(j,i))", t->name,
					       out->w[j * n + i], j + 1, i + 1, out->w[i * n + j]);
	}
	out->metric = RT_TSP_EXPLICIT;
	return RT_OK;
}

rt_status rt_mem_load_tsp(const char *path, rt_tsp *out, rt_error *err)
{
	const rt_mem_table *t;
	rt_status st = find_kind(path, 0, &t, err);
	memset(out, 0, sizeof *out);
	if (st != RT_OK)
		return st;
	if (t->y || (t->ncols != 2 && (size_t)t->ncols != t->nrows))
		return rt_fail(err, RT_ERR_INPUT, "%s: a table of %zu rows and %d columns%s: expected "
			       "n x 2 coordinates (EUC_2D) or an n x n matrix of lengths, without y",
			       path, t->nrows, t->ncols, t->y ? " and y" : "");
	out->n = (int)t->nrows;
	snprintf(out->name, sizeof out->name, "%s", t->name);
	snprintf(out->path, sizeof out->path, "%s", path);
	st = t->ncols == 2 && t->nrows != 2 ? tsp_coords(t, out, err) : tsp_matrix(t, out, err);
	if (st != RT_OK)
		rt_tsp_free(out);
	return st;
}
