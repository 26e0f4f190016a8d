/* data_csv.c: CSV files (optionally gzip-compressed) into column-major tables.
 *
 * One pass over the file: each row is parsed in place in the reader's buffer
 * and appended to a row-major float buffer, which is transposed once at the
 * end (a second pass over a .gz would mean decompressing twice). A column's
 * type is fixed by its first data row: a number makes it numeric, anything
 * else categorical; later non-numbers in a numeric column are errors, so a
 * typo deep in the file is reported rather than turning the column into
 * categories. Fields may be quoted ("a, b" with "" for a quote).
 *
 * Non-finite values: a field that reads as a number must be finite; `nan`,
 * `inf`, `infinity` (any case, any sign) and numbers that overflow a float
 * (1e39, 1e999) are errors, "expected a finite number", wherever they are.
 * There is no missing-value notation: an empty field in a numeric column is
 * "expected a number". */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "data_impl.h"

rt_csv_options rt_csv_defaults(void)
{
	rt_csv_options o = { .header = 1, .label = NULL, .label_index = -1, .delimiter = ',' };
	return o;
}

/* One field of a line: its text (quotes removed, blanks trimmed) and where it
 * starts (1-based byte column, for messages). */
typedef struct csv_field {
	char *s;
	size_t len;
	size_t col;
} csv_field;

enum { FIELD_LAST = 0, FIELD_MORE = 1, FIELD_BADQUOTE = -1, FIELD_AFTERQUOTE = -2 };

/* Cuts the next field off the line at *pp (the line ends at end). Returns
 * FIELD_MORE if a delimiter followed, FIELD_LAST at the end of the line, or a
 * FIELD_BAD* code with f->col saying where. Quoted text is unescaped in place. */
static int csv_next(char **pp, char *end, char delim, const char *line, csv_field *f)
{
	char *p = *pp, *d, *t;

	while (p < end && rt_data_blank(*p) && *p != delim)
		p++;
	f->col = (size_t)(p - line) + 1;
	if (p < end && *p == '"') {
		char *w = p, *q = p + 1;
		for (;;) {
			if (q >= end)
				return FIELD_BADQUOTE;
			if (*q == '"') {
				if (q + 1 < end && q[1] == '"') {
					*w++ = '"';
					q += 2;
					continue;
				}
				q++;
				break;
			}
			*w++ = *q++;
		}
		f->s = p;
		f->len = (size_t)(w - p);
		while (q < end && rt_data_blank(*q) && *q != delim)
			q++;
		if (q == end) {
			*pp = end;
			return FIELD_LAST;
		}
		if (*q != delim) {
			f->col = (size_t)(q - line) + 1;
			return FIELD_AFTERQUOTE;
		}
		*pp = q + 1;
		return FIELD_MORE;
	}
	d = memchr(p, delim, (size_t)(end - p));
	t = d ? d : end;
	while (t > p && rt_data_blank(t[-1]) && t[-1] != delim)
		t--;
	f->s = p;
	f->len = (size_t)(t - p);
	if (d) {
		*pp = d + 1;
		return FIELD_MORE;
	}
	*pp = end;
	return FIELD_LAST;
}

/* Number of fields in p[0..end) without changing it; quotes count only at
 * the start of a field, as in csv_next. */
static long csv_count(const char *p, const char *end, char delim)
{
	long n = 1;
	while (p < end) {
		const char *d;
		while (p < end && rt_data_blank(*p) && *p != delim)
			p++;
		if (p < end && *p == '"') {
			for (p++; p < end; p++) {
				if (*p != '"')
					continue;
				if (p + 1 < end && p[1] == '"') {
					p++;
					continue;
				}
				p++;
				break;
			}
		}
		d = memchr(p, delim, (size_t)(end - p));
		if (!d)
			break;
		n++;
		p = d + 1;
	}
	return n;
}

static int is_blank_line(const char *s, size_t len)
{
	for (size_t i = 0; i < len; i++)
		if (!rt_data_blank(s[i]))
			return 0;
	return 1;
}

/* The common case of a numeric field, in one pass: [-]digits[.digits] with at
 * most 7 digits (so the mantissa is exact in a float) directly followed by the
 * delimiter or the end of the line. Returns FIELD_MORE or FIELD_LAST with *pp
 * moved past the field, or -1 (nothing moved) for csv_next and the full parser. */
static inline int csv_fast_number(char **pp, char *end, char delim, float *out)
{
	static const float p10[] = { 1e0f, 1e1f, 1e2f, 1e3f, 1e4f, 1e5f, 1e6f, 1e7f };
	char *p = *pp, *d0;
	uint32_t m = 0;
	int neg = 0, nd, fd = 0;
	float v;

	if (p < end && *p == '-') {
		neg = 1;
		p++;
	}
	for (d0 = p; p < end && (unsigned)(*p - '0') < 10; p++)
		m = m * 10 + (uint32_t)(*p - '0');
	nd = (int)(p - d0);
	if (nd > 7)
		return -1;
	if (p < end && *p == '.') {
		for (d0 = ++p; p < end && (unsigned)(*p - '0') < 10 && nd + fd < 8; p++, fd++)
			m = m * 10 + (uint32_t)(*p - '0');
	}
	if (nd + fd == 0 || nd + fd > 7)
		return -1;
	if (p < end) {
		if (*p != delim)
			return -1;
		*pp = p + 1;
	} else {
		*pp = p;
	}
	v = (float)m / p10[fd];   /* both exact: one correctly rounded division */
	*out = neg ? -v : v;
	return p < end ? FIELD_MORE : FIELD_LAST;
}

enum { COL_UNKNOWN, COL_NUMERIC, COL_CATEGORICAL };

/* Everything a load holds, so that one function can free it on any path. */
typedef struct csv_state {
	const char *path;
	rt_data_reader rd;
	char delim;
	int nf;                  /* fields per line */
	char **names;            /* nf names */
	int *type;               /* nf COL_* */
	rt_categories *cats;     /* nf mappings */
	rt_data_catmap *maps;    /* nf lookups */
	float *rows;             /* row-major, nrows * nf */
	size_t nrows, cap;
} csv_state;

static void csv_state_free(csv_state *s)
{
	rt_data_close(&s->rd);
	for (int f = 0; f < s->nf; f++) {
		if (s->names)
			free(s->names[f]);
		if (s->maps)
			rt_data_catmap_free(&s->maps[f]);
		if (s->cats)
			rt_data_categories_free(&s->cats[f]);
	}
	free(s->names);
	free(s->type);
	free(s->cats);
	free(s->maps);
	free(s->rows);
}

/* Reports a csv_next failure on the current line. */
static rt_status csv_field_error(const csv_state *s, int code, const char *line, const csv_field *f, rt_error *err)
{
	if (code == FIELD_BADQUOTE)
		return rt_fail(err, RT_ERR_INPUT, "%s:%ld:%zu: expected a closing '\"', got the end of the line",
		               s->path, s->rd.line, f->col);
	return rt_fail(err, RT_ERR_INPUT, "%s:%ld:%zu: expected '%c' or the end of the line after a closing '\"', got '%c'",
	               s->path, s->rd.line, f->col, s->delim, line[f->col - 1]);
}

/* Allocates the per-column arrays once the number of fields is known. */
static rt_status csv_setup(csv_state *s, int nf, rt_error *err)
{
	size_t n = (size_t)nf;
	s->names = rt_calloc(n, sizeof *s->names, err);
	s->type = s->names ? rt_calloc(n, sizeof *s->type, err) : NULL;
	s->cats = s->type ? rt_calloc(n, sizeof *s->cats, err) : NULL;
	s->maps = s->cats ? rt_calloc(n, sizeof *s->maps, err) : NULL;
	if (!s->maps)
		return RT_ERR_SYSTEM;
	s->nf = nf;   /* only now: csv_state_free walks nf entries of each array */
	for (int f = 0; f < nf; f++)
		rt_data_catmap_init(&s->maps[f], &s->cats[f]);
	return RT_OK;
}

static rt_status csv_header(csv_state *s, char *line, size_t len, rt_error *err)
{
	long nf = csv_count(line, line + len, s->delim);
	char *p = line, *end = line + len;
	csv_field fld;
	int more = FIELD_MORE;

	if (nf > RT_DATA_MAX_COLS)
		return rt_fail(err, RT_ERR_INPUT, "%s:%ld: %ld columns, more than the limit of %d (RT_DATA_MAX_COLS)",
		               s->path, s->rd.line, nf, RT_DATA_MAX_COLS);
	if (csv_setup(s, (int)nf, err))
		return RT_ERR_SYSTEM;
	for (int f = 0; f < nf && more == FIELD_MORE; f++) {
		more = csv_next(&p, end, s->delim, line, &fld);
		if (more < 0)
			return csv_field_error(s, more, line, &fld, err);
		if (fld.len == 0)
			s->names[f] = rt_data_default_name("x", f + 1, err);
		else if ((s->names[f] = rt_malloc(fld.len + 1, err)) != NULL) {
			memcpy(s->names[f], fld.s, fld.len);
			s->names[f][fld.len] = '\0';
		}
		if (!s->names[f])
			return RT_ERR_SYSTEM;
	}
	return RT_OK;
}

static rt_status csv_grow(csv_state *s, rt_error *err)
{
	size_t cap = s->cap ? 2 * s->cap : 4096;
	float *rows;
	if (cap > SIZE_MAX / sizeof(float) / (size_t)s->nf)
		return rt_fail(err, RT_ERR_SYSTEM, "%s: too many rows to hold in memory", s->path);
	rows = rt_realloc(s->rows, cap * (size_t)s->nf * sizeof(float), err);
	if (!rows)
		return RT_ERR_SYSTEM;
	s->rows = rows;
	s->cap = cap;
	return RT_OK;
}

/* Parses one data line into the next row. */
static rt_status csv_row(csv_state *s, char *line, size_t len, rt_error *err)
{
	char *p = line, *end = line + len;
	float *row;
	csv_field fld;
	int more = FIELD_MORE, f;
	char q[64];

	if (s->nrows == s->cap && csv_grow(s, err))
		return RT_ERR_SYSTEM;
	row = s->rows + s->nrows * (size_t)s->nf;
	for (f = 0; f < s->nf; f++) {
		if (more != FIELD_MORE)
			return rt_fail(err, RT_ERR_INPUT, "%s:%ld: expected %d fields, got %d",
			               s->path, s->rd.line, s->nf, f);
		int type = s->type[f];
		if (type != COL_CATEGORICAL) {
			int r = csv_fast_number(&p, end, s->delim, &row[f]);
			if (r >= 0) {
				more = r;
				s->type[f] = COL_NUMERIC;
				continue;
			}
		}
		more = csv_next(&p, end, s->delim, line, &fld);
		if (more < 0)
			return csv_field_error(s, more, line, &fld, err);
		if (type != COL_CATEGORICAL) {
			if (rt_data_parse_float(fld.s, fld.len, &row[f])) {
				if (!isfinite(row[f]))
					return rt_fail(err, RT_ERR_INPUT, "%s:%ld:%zu: expected a finite number in column '%s', got '%s'",
					               s->path, s->rd.line, fld.col, s->names[f] ? s->names[f] : "?",
					               rt_data_quote(q, sizeof q, fld.s, fld.len));
				s->type[f] = COL_NUMERIC;
				continue;
			}
			if (type == COL_NUMERIC)
				return rt_fail(err, RT_ERR_INPUT, "%s:%ld:%zu: expected a number in column '%s', got '%s'",
				               s->path, s->rd.line, fld.col, s->names[f],
				               rt_data_quote(q, sizeof q, fld.s, fld.len));
			s->type[f] = COL_CATEGORICAL;
		}
		int idx;
		rt_status st = rt_data_catmap_get(&s->maps[f], fld.s, fld.len, &idx, err);
		if (st == RT_ERR_INPUT)
			return rt_fail(err, RT_ERR_INPUT, "%s:%ld:%zu: column '%s' has more than %d distinct strings (RT_DATA_MAX_CATEGORIES), got '%s'",
			               s->path, s->rd.line, fld.col, s->names[f], RT_DATA_MAX_CATEGORIES,
			               rt_data_quote(q, sizeof q, fld.s, fld.len));
		if (st)
			return st;
		row[f] = (float)idx;
	}
	if (more == FIELD_MORE)
		return rt_fail(err, RT_ERR_INPUT, "%s:%ld: expected %d fields, got %ld",
		               s->path, s->rd.line, s->nf, s->nf + csv_count(p, end, s->delim));
	s->nrows++;
	return RT_OK;
}

/* Finds the label field: -1 for none. */
static rt_status csv_label_field(csv_state *s, const rt_csv_options *o, long header_line, int *out, rt_error *err)
{
	if (o->label) {
		if (!o->header)
			return rt_fail(err, RT_ERR_INPUT, "%s: label column '%s' is named, but the file is read without a header (give its index instead)",
			               s->path, o->label);
		for (int f = 0; f < s->nf; f++)
			if (strcmp(s->names[f], o->label) == 0) {
				*out = f;
				return RT_OK;
			}
		return rt_fail(err, RT_ERR_INPUT, "%s:%ld: expected a column named '%s' (the label) in the header, got none",
		               s->path, header_line, o->label);
	}
	if (o->label_index == -2) {
		*out = -1;
		return RT_OK;
	}
	if (o->label_index == -1) {
		*out = s->nf - 1;
		return RT_OK;
	}
	if (o->label_index < 0 || o->label_index >= s->nf)
		return rt_fail(err, RT_ERR_INPUT, "%s: label column index %d is out of range (the file has %d columns, 0-based; -1 = last, -2 = none)",
		               s->path, o->label_index, s->nf);
	*out = o->label_index;
	return RT_OK;
}

/* Moves the parsed rows and names into *t, column-major. Nothing fails after
 * the allocations, so s keeps ownership until everything is in place. */
static rt_status csv_build(csv_state *s, int lab, rt_table *t, rt_error *err)
{
	int ncols = s->nf - (lab >= 0);
	size_t nrows = s->nrows, nf = (size_t)s->nf;
	char **colnames = rt_calloc((size_t)ncols, sizeof *colnames, err);
	rt_categories *cats = colnames ? rt_calloc((size_t)ncols, sizeof *cats, err) : NULL;
	float *cols = NULL, *label = NULL;
	char *label_name = NULL;

	if (cats && (size_t)ncols > SIZE_MAX / sizeof(float) / (nrows ? nrows : 1))
		rt_fail(err, RT_ERR_SYSTEM, "%s: table too large", s->path);
	else if (cats)
		cols = rt_malloc((size_t)ncols * nrows * sizeof *cols, err);
	if (cols && lab >= 0)
		label = rt_malloc(nrows * sizeof *label, err);
	if (label)
		label_name = rt_strdup(s->names[lab] ? s->names[lab] : "label", err);
	/* Input names: the header's, or x1..xn; made before anything moves. */
	int ok = cols && (lab < 0 || label_name);
	for (int f = 0, c = 0; ok && f < s->nf; f++) {
		if (f == lab)
			continue;
		colnames[c] = s->names[f] ? rt_strdup(s->names[f], err) : rt_data_default_name("x", c + 1, err);
		ok = colnames[c++] != NULL;
	}
	if (!ok) {
		for (int c = 0; colnames && c < ncols; c++)
			free(colnames[c]);
		free(colnames);
		free(cats);
		free(cols);
		free(label);
		free(label_name);
		return RT_ERR_SYSTEM;
	}

	/* Transpose in blocks of rows so that reads stay in cache and writes stream. */
	int dst[RT_DATA_MAX_COLS];
	for (int f = 0, c = 0; f < s->nf; f++)
		dst[f] = f == lab ? -1 : c++;
	for (size_t r0 = 0; r0 < nrows; r0 += 256) {
		size_t r1 = r0 + 256 < nrows ? r0 + 256 : nrows;
		for (size_t f = 0; f < nf; f++) {
			float *out = dst[f] < 0 ? label : cols + (size_t)dst[f] * nrows;
			const float *in = s->rows + f;
			for (size_t r = r0; r < r1; r++)
				out[r] = in[r * nf];
		}
	}
	for (int f = 0; f < s->nf; f++) {
		if (f == lab)
			t->classes = s->cats[f];
		else
			cats[dst[f]] = s->cats[f];
		memset(&s->cats[f], 0, sizeof s->cats[f]);
	}
	t->nrows = nrows;
	t->ncols = ncols;
	t->colnames = colnames;
	t->cols = cols;
	t->cats = cats;
	t->has_label = lab >= 0;
	t->label_name = label_name;
	t->label = label;
	return RT_OK;
}

rt_status rt_csv_load(const char *path, const rt_csv_options *opt, rt_table *out, rt_error *err)
{
	rt_csv_options o = opt ? *opt : rt_csv_defaults();
	csv_state s;
	rt_status st;
	char *line;
	size_t len;
	long header_line = 0, nlines = 0;
	int lab = -1;

	memset(out, 0, sizeof *out);
	memset(&s, 0, sizeof s);
	s.path = path;
	s.delim = o.delimiter ? o.delimiter : ',';
	if (s.delim == '"' || s.delim == '\n' || s.delim == '\r')
		return rt_fail(err, RT_ERR_INPUT, "%s: '%c' cannot be the delimiter", path, s.delim);
	if ((st = rt_data_open(&s.rd, path, err)))
		return st;
	for (;;) {
		if ((st = rt_data_next_line(&s.rd, &line, &len, err)))
			goto fail;
		if (!line)
			break;
		if (s.rd.line == 1 && len >= 3 && memcmp(line, "\xEF\xBB\xBF", 3) == 0) {
			line += 3;   /* a UTF-8 byte order mark */
			len -= 3;
		}
		if (len == 0 || (rt_data_blank(line[0]) && is_blank_line(line, len)))
			continue;
		nlines++;
		if (s.nf == 0) {
			if (o.header) {
				header_line = s.rd.line;
				if ((st = csv_header(&s, line, len, err)))
					goto fail;
			} else {
				long nf = csv_count(line, line + len, s.delim);
				if (nf > RT_DATA_MAX_COLS) {
					st = rt_fail(err, RT_ERR_INPUT, "%s:%ld: %ld columns, more than the limit of %d (RT_DATA_MAX_COLS)",
					             path, s.rd.line, nf, RT_DATA_MAX_COLS);
					goto fail;
				}
				if ((st = csv_setup(&s, (int)nf, err)))
					goto fail;
			}
			if ((st = csv_label_field(&s, &o, header_line, &lab, err)))
				goto fail;
			if (o.header)
				continue;
		}
		if ((st = csv_row(&s, line, len, err)))
			goto fail;
	}
	if (nlines == 0) {
		st = rt_fail(err, RT_ERR_INPUT, "%s: empty file: expected %s", path,
		             o.header ? "a header line and data rows" : "data rows");
		goto fail;
	}
	if (s.nrows == 0) {
		st = rt_fail(err, RT_ERR_INPUT, "%s: expected data rows after the header, got none", path);
		goto fail;
	}
	if (!o.header) {
		/* No header: inputs are x1..xn (made in csv_build), the label "label". */
		for (int f = 0; f < s.nf; f++) {
			free(s.names[f]);
			s.names[f] = NULL;
		}
	}
	if ((st = csv_build(&s, lab, out, err)))
		goto fail;
	snprintf(out->path, sizeof out->path, "%s", path);
	csv_state_free(&s);
	return RT_OK;
fail:
	csv_state_free(&s);
	memset(out, 0, sizeof *out);
	return st;
}
