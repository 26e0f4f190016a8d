/* data_libsvm.c: LIBSVM sparse files ("label idx:val ...") into dense tables,
 * or into sparse rows (rt_libsvm_load_sparse, for data too wide to densify).
 *
 * The non-zeros are collected in one pass, then scattered into a zeroed
 * column-major matrix whose width is the largest index seen (or the width
 * asked for), or packed into row pointers, columns and values. Indices are
 * 1-based and must ascend within a line, as LIBSVM itself requires (a
 * repeated, zero or negative index is an error naming file:line:column).
 * Fields are separated by any run of spaces and tabs; '#' starts a comment
 * that runs to the end of the line (SVMlight's "# info"); blank lines and
 * CRLF are fine; labels are any number (+1, 1, 1.0, -1, 1e0). Labels
 * and values must be finite: nan, inf and values that overflow a float are
 * "expected a finite number" errors (LIBSVM has no missing values: leave the
 * entry out, which means 0). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "data_impl.h"

typedef struct svm_entry {
	uint32_t row, col;   /* 0-based */
	float val;
} svm_entry;

typedef struct svm_state {
	rt_data_reader rd;
	float *labels;
	size_t nrows, rows_cap;
	svm_entry *ent;
	size_t nent, ent_cap;
	long maxidx;
	long maxcols;          /* the largest index accepted */
	const char *maxname;   /* its name, for messages */
} svm_state;

static void svm_state_free(svm_state *s)
{
	rt_data_close(&s->rd);
	free(s->labels);
	free(s->ent);
}

/* Doubles an array's capacity (starting at first). */
static rt_status grow(void **p, size_t *cap, size_t elem, size_t first, rt_error *err)
{
	size_t n = *cap ? 2 * *cap : first;
	void *q;
	if (n > SIZE_MAX / elem)
		return rt_fail(err, RT_ERR_SYSTEM, "out of memory (table too large)");
	q = rt_realloc(*p, n * elem, err);
	if (!q)
		return RT_ERR_SYSTEM;
	*p = q;
	*cap = n;
	return RT_OK;
}

/* Length of the token at p (up to a blank or the end). */
static size_t token_len(const char *p, const char *end)
{
	const char *q = p;
	while (q < end && !rt_data_blank(*q))
		q++;
	return (size_t)(q - p);
}

/* One "index:value" token p[0..n) at column col, after index prev on the
 * line: the 1-based index into *idx and the value into *v. */
static rt_status svm_entry_parse(const svm_state *s, const char *path, const char *line, const char *p,
                                 size_t n, int nfeatures, long prev, long *idx, float *v, rt_error *err)
{
	const char *colon = memchr(p, ':', n), *d;
	size_t col = (size_t)(p - line) + 1, vlen;
	char q[64];

	*idx = 0;
	if (!colon || colon == p)
		return rt_fail(err, RT_ERR_INPUT, "%s:%ld:%zu: expected index:value, got '%s'",
		               path, s->rd.line, col, rt_data_quote(q, sizeof q, p, n));
	if (*p == '-' || *p == '+')
		return rt_fail(err, RT_ERR_INPUT, "%s:%ld:%zu: expected an index of 1 or more (indices are 1-based), got '%s'",
		               path, s->rd.line, col, rt_data_quote(q, sizeof q, p, n));
	for (d = p; d < colon; d++) {
		if (*d < '0' || *d > '9')
			return rt_fail(err, RT_ERR_INPUT, "%s:%ld:%zu: expected index:value with a whole-number index, got '%s'",
			               path, s->rd.line, col, rt_data_quote(q, sizeof q, p, n));
		if (*idx <= s->maxcols)
			*idx = *idx * 10 + (*d - '0');
	}
	if (*idx == 0)
		return rt_fail(err, RT_ERR_INPUT, "%s:%ld:%zu: expected an index of 1 or more (indices are 1-based), got '%s'",
		               path, s->rd.line, col, rt_data_quote(q, sizeof q, p, n));
	if (*idx <= prev)
		return rt_fail(err, RT_ERR_INPUT, "%s:%ld:%zu: expected an index above %ld (indices must ascend), got '%s'%s",
		               path, s->rd.line, col, prev, rt_data_quote(q, sizeof q, p, n),
		               *idx == prev ? " (a repeated index)" : "");
	if (*idx > s->maxcols)
		return rt_fail(err, RT_ERR_INPUT, "%s:%ld:%zu: index '%.*s' is above the limit of %ld columns (%s)",
		               path, s->rd.line, col, (int)(colon - p), p, s->maxcols, s->maxname);
	if (nfeatures > 0 && *idx > nfeatures)
		return rt_fail(err, RT_ERR_INPUT, "%s:%ld:%zu: expected an index from 1 to %d (the features asked for), got '%s'",
		               path, s->rd.line, col, nfeatures, rt_data_quote(q, sizeof q, p, n));
	colon++;
	vlen = n - (size_t)(colon - p);
	if (!rt_data_parse_float(colon, vlen, v))
		return rt_fail(err, RT_ERR_INPUT, "%s:%ld:%zu: expected a number after '%.*s:', got '%s'",
		               path, s->rd.line, (size_t)(colon - line) + 1, (int)(colon - 1 - p), p,
		               rt_data_quote(q, sizeof q, colon, vlen));
	if (!isfinite(*v))
		return rt_fail(err, RT_ERR_INPUT, "%s:%ld:%zu: expected a finite number after '%.*s:', got '%s'",
		               path, s->rd.line, (size_t)(colon - line) + 1, (int)(colon - 1 - p), p,
		               rt_data_quote(q, sizeof q, colon, vlen));
	return RT_OK;
}

/* One data line (comment already cut off): the label, then the entries. */
static rt_status svm_line(svm_state *s, const char *path, char *line, size_t len, int nfeatures, rt_error *err)
{
	char *p = line, *end = line + len, q[64];
	size_t n;
	long prev = 0, idx;
	float v;
	rt_status st;

	while (p < end && rt_data_blank(*p))
		p++;
	n = token_len(p, end);
	if (!rt_data_parse_float(p, n, &v))
		return rt_fail(err, RT_ERR_INPUT, "%s:%ld:%zu: expected a label (a number), got '%s'",
		               path, s->rd.line, (size_t)(p - line) + 1, rt_data_quote(q, sizeof q, p, n));
	if (!isfinite(v))
		return rt_fail(err, RT_ERR_INPUT, "%s:%ld:%zu: expected a finite number (the label), got '%s'",
		               path, s->rd.line, (size_t)(p - line) + 1, rt_data_quote(q, sizeof q, p, n));
	if (s->nrows == s->rows_cap &&
	    grow((void **)&s->labels, &s->rows_cap, sizeof *s->labels, 1024, err))
		return RT_ERR_SYSTEM;
	if (s->nrows >= UINT32_MAX)
		return rt_fail(err, RT_ERR_INPUT, "%s:%ld: too many rows", path, s->rd.line);
	s->labels[s->nrows] = v;
	for (p += n;;) {
		while (p < end && rt_data_blank(*p))
			p++;
		if (p == end)
			break;
		n = token_len(p, end);
		if ((st = svm_entry_parse(s, path, line, p, n, nfeatures, prev, &idx, &v, err)))
			return st;
		if (s->nent == s->ent_cap &&
		    grow((void **)&s->ent, &s->ent_cap, sizeof *s->ent, 4096, err))
			return RT_ERR_SYSTEM;
		s->ent[s->nent++] = (svm_entry){ (uint32_t)s->nrows, (uint32_t)(idx - 1), v };
		if (idx > s->maxidx)
			s->maxidx = idx;
		prev = idx;
		p += n;
	}
	s->nrows++;
	return RT_OK;
}

/* Every line of path into s (labels and entries, in row order). */
static rt_status read_entries(svm_state *s, const char *path, int nfeatures, rt_error *err)
{
	rt_status st;
	char *line;
	size_t len;
	if (nfeatures < 0 || nfeatures > s->maxcols)
		return rt_fail(err, RT_ERR_INPUT, "%s: cannot ask for %d features (0 = as many as the file uses, at most %ld)",
		               path, nfeatures, s->maxcols);
	if ((st = rt_data_open(&s->rd, path, err)))
		return st;
	for (;;) {
		if ((st = rt_data_next_line(&s->rd, &line, &len, err)))
			return st;
		if (!line)
			break;
		char *hash = memchr(line, '#', len);
		size_t i = 0;
		if (hash) {
			*hash = '\0';   /* a comment runs to the end of the line */
			len = (size_t)(hash - line);
		}
		while (i < len && rt_data_blank(line[i]))
			i++;
		if (i == len)
			continue;   /* blank lines and comment lines */
		if ((st = svm_line(s, path, line, len, nfeatures, err)))
			return st;
	}
	if (s->nrows == 0)
		return rt_fail(err, RT_ERR_INPUT, "%s: empty file: expected lines of 'label index:value ...'", path);
	return RT_OK;
}

rt_status rt_libsvm_load(const char *path, int nfeatures, rt_table *out, rt_error *err)
{
	svm_state s;
	rt_status st;
	int ncols;

	memset(out, 0, sizeof *out);
	memset(&s, 0, sizeof s);
	s.maxcols = RT_DATA_MAX_COLS;
	s.maxname = "RT_DATA_MAX_COLS";
	if ((st = read_entries(&s, path, nfeatures, err)))
		goto fail;
	ncols = nfeatures ? nfeatures : (int)s.maxidx;

	/* The dense table; everything is allocated before anything moves. */
	out->colnames = rt_calloc((size_t)ncols, sizeof *out->colnames, err);
	out->cats = out->colnames ? rt_calloc((size_t)ncols, sizeof *out->cats, err) : NULL;
	out->cols = out->cats ? rt_calloc((size_t)ncols * s.nrows, sizeof *out->cols, err) : NULL;
	out->label_name = out->cols ? rt_strdup("label", err) : NULL;
	st = out->label_name ? RT_OK : RT_ERR_SYSTEM;
	for (int c = 0; !st && c < ncols; c++)
		if (!(out->colnames[c] = rt_data_default_name("x", c + 1, err)))
			st = RT_ERR_SYSTEM;
	out->ncols = ncols;   /* rt_table_free needs it to free the names */
	if (st)
		goto fail;
	for (size_t k = 0; k < s.nent; k++)
		out->cols[(size_t)s.ent[k].col * s.nrows + s.ent[k].row] = s.ent[k].val;
	out->nrows = s.nrows;
	out->has_label = 1;
	out->label = s.labels;
	s.labels = NULL;
	snprintf(out->path, sizeof out->path, "%s", path);
	svm_state_free(&s);
	return RT_OK;
fail:
	svm_state_free(&s);
	rt_table_free(out);
	return st;
}

rt_status rt_libsvm_load_sparse(const char *path, int nfeatures, int max_cols, rt_sparse_table *out,
				rt_error *err)
{
	svm_state s;
	rt_status st;
	memset(out, 0, sizeof *out);
	memset(&s, 0, sizeof s);
	s.maxcols = max_cols;
	s.maxname = "the sparse limit";
	if ((st = read_entries(&s, path, nfeatures, err)))
		goto fail;
	out->ptr = rt_malloc((s.nrows + 1) * sizeof *out->ptr, err);
	out->col = out->ptr ? rt_malloc(s.nent * sizeof *out->col + 1, err) : NULL;
	out->val = out->col ? rt_malloc(s.nent * sizeof *out->val + 1, err) : NULL;
	if (!out->val) {
		st = RT_ERR_SYSTEM;
		goto fail;
	}
	out->ptr[0] = 0;
	for (size_t k = 0, r = 0; k < s.nent; k++) {
		while (r < s.ent[k].row)
			out->ptr[++r] = (long)k;
		out->col[k] = (int)s.ent[k].col;
		out->val[k] = s.ent[k].val;
	}
	{
		size_t r = s.nent ? s.ent[s.nent - 1].row + 1 : 0;
		for (; r <= s.nrows; r++)
			out->ptr[r] = (long)s.nent;
	}
	out->nrows = s.nrows;
	out->nnz = s.nent;
	out->ncols = nfeatures ? nfeatures : (int)s.maxidx;
	out->labels = s.labels;
	s.labels = NULL;
	svm_state_free(&s);
	return RT_OK;
fail:
	svm_state_free(&s);
	rt_sparse_table_free(out);
	return st;
}

void rt_sparse_table_free(rt_sparse_table *t)
{
	free(t->labels);
	free(t->ptr);
	free(t->col);
	free(t->val);
	memset(t, 0, sizeof *t);
}
