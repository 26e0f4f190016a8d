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
 * There is no missing-value notation: an empty field (blank, or "") is an
 * error naming file:line:column. One exception for spreadsheet exports: a
 * last column with no name (an empty header field, or no header) that is
 * empty on every row, i.e. every line ends with the delimiter, is dropped;
 * empty on some rows only, it is a missing value. A line may also carry one
 * extra trailing delimiter beyond the header's fields. Lines holding only
 * blanks and delimiters (",,,") are skipped like blank lines; a UTF-8 byte
 * order mark, CRLF and blanks around fields are accepted. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "data_impl.h"
#include "data_mem.h"

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
	size_t start = (size_t)(p - line) + 1;

	while (p < end && rt_data_blank(*p) && *p != delim)
		p++;
	/* An empty field is reported where it starts, not at the delimiter. */
	f->col = p < end && *p != delim ? (size_t)(p - line) + 1 : start;
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
	/* The last field may be an unnamed column left empty on every row (lines
	 * ending with the delimiter, as spreadsheets export them): it is dropped. */
	int last_cand;           /* the last column is unnamed (or there is no header) */
	int last_has_data;       /* a row had a value in it */
	long empty_line;         /* the first line where it was empty (0: none) */
	size_t empty_col;        /* and the column there */
	int nkeep;               /* columns kept: nf, or nf - 1 without that column */
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
		if (fld.len == 0 && f == nf - 1 && nf >= 2)
			s->last_cand = 1;
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

/* "'name'" or, without a header, the 1-based column number, for messages. */
static const char *col_name(const csv_state *s, int f, char *buf, size_t n)
{
	if (s->names[f])
		snprintf(buf, n, "'%s'", s->names[f]);
	else
		snprintf(buf, n, "%d", f + 1);
	return buf;
}

/* An empty field (f, at column col): kept as 0 in the last column while that
 * column may be one left empty on every row, else a missing value. */
static rt_status csv_empty(csv_state *s, int f, size_t col, float *out, rt_error *err)
{
	char nm[96];
	if (f == s->nf - 1 && s->last_cand && !s->last_has_data) {
		if (!s->empty_line) {
			s->empty_line = s->rd.line;
			s->empty_col = col;
		}
		*out = 0.0f;
		return RT_OK;
	}
	return rt_fail(err, RT_ERR_INPUT, "%s:%ld:%zu: expected %s in column %s, got an empty field (missing values are not supported)",
	               s->path, s->rd.line, col, s->type[f] == COL_NUMERIC ? "a number" : "a value",
	               col_name(s, f, nm, sizeof nm));
}

/* A value in the last column: fails if an earlier row left it empty. */
static rt_status csv_last_value(csv_state *s, rt_error *err)
{
	char nm[96];
	s->last_has_data = 1;
	if (!s->empty_line)
		return RT_OK;
	return rt_fail(err, RT_ERR_INPUT, "%s:%ld:%zu: expected a value in column %s, got an empty field "
	               "(missing values are not supported; line %ld has one there)",
	               s->path, s->empty_line, s->empty_col, col_name(s, s->nf - 1, nm, sizeof nm), s->rd.line);
}

/* A non-empty field that csv_fast_number did not take: a number or a string. */
static rt_status csv_value(csv_state *s, int f, const csv_field *fld, float *out, rt_error *err)
{
	char q[64], nm[96];
	int type = s->type[f], idx;
	rt_status st;

	if (type != COL_CATEGORICAL) {
		if (rt_data_parse_float(fld->s, fld->len, out)) {
			if (!isfinite(*out))
				return rt_fail(err, RT_ERR_INPUT, "%s:%ld:%zu: expected a finite number in column %s, got '%s'",
				               s->path, s->rd.line, fld->col, col_name(s, f, nm, sizeof nm),
				               rt_data_quote(q, sizeof q, fld->s, fld->len));
			s->type[f] = COL_NUMERIC;
			return RT_OK;
		}
		if (type == COL_NUMERIC)
			return rt_fail(err, RT_ERR_INPUT, "%s:%ld:%zu: expected a number in column %s, got '%s'",
			               s->path, s->rd.line, fld->col, col_name(s, f, nm, sizeof nm),
			               rt_data_quote(q, sizeof q, fld->s, fld->len));
		s->type[f] = COL_CATEGORICAL;
	}
	st = rt_data_catmap_get(&s->maps[f], fld->s, fld->len, &idx, err);
	if (st == RT_ERR_INPUT)
		return rt_fail(err, RT_ERR_INPUT, "%s:%ld:%zu: column %s has more than %d distinct strings (RT_DATA_MAX_CATEGORIES), got '%s'",
		               s->path, s->rd.line, fld->col, col_name(s, f, nm, sizeof nm), RT_DATA_MAX_CATEGORIES,
		               rt_data_quote(q, sizeof q, fld->s, fld->len));
	if (st)
		return st;
	*out = (float)idx;
	return RT_OK;
}

/* Parses one data line into the next row. A line may end with one extra,
 * empty field (a trailing delimiter), and may leave out a last column that
 * is empty on every row. */
static rt_status csv_row(csv_state *s, char *line, size_t len, rt_error *err)
{
	char *p = line, *end = line + len;
	float *row;
	csv_field fld;
	int more = FIELD_MORE, f, last_empty = 0;
	rt_status st;

	if (s->nrows == s->cap && csv_grow(s, err))
		return RT_ERR_SYSTEM;
	row = s->rows + s->nrows * (size_t)s->nf;
	for (f = 0; f < s->nf; f++) {
		if (more != FIELD_MORE) {
			if (f == s->nf - 1 && s->last_cand && !s->last_has_data) {
				last_empty = 1;
				if ((st = csv_empty(s, f, len + 1, &row[f], err)))
					return st;
				break;
			}
			return rt_fail(err, RT_ERR_INPUT, "%s:%ld: expected %d fields, got %d",
			               s->path, s->rd.line, s->nf, f);
		}
		if (s->type[f] != COL_CATEGORICAL) {
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
		if (fld.len == 0) {
			last_empty = f == s->nf - 1;
			st = csv_empty(s, f, fld.col, &row[f], err);
		} else {
			st = csv_value(s, f, &fld, &row[f], err);
		}
		if (st)
			return st;
	}
	if (more == FIELD_MORE && !is_blank_line(p, (size_t)(end - p)))
		return rt_fail(err, RT_ERR_INPUT, "%s:%ld: expected %d fields, got %ld",
		               s->path, s->rd.line, s->nf, s->nf + csv_count(p, end, s->delim));
	if (!last_empty && (st = csv_last_value(s, err)))
		return st;
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
	int ncols = s->nkeep - (lab >= 0);
	size_t nrows = s->nrows, nf = (size_t)s->nf, nkeep = (size_t)s->nkeep;
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
	for (int f = 0, c = 0; ok && f < s->nkeep; f++) {
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
	for (int f = 0, c = 0; f < s->nkeep; f++)
		dst[f] = f == lab ? -1 : c++;
	for (size_t r0 = 0; r0 < nrows; r0 += 256) {
		size_t r1 = r0 + 256 < nrows ? r0 + 256 : nrows;
		for (size_t f = 0; f < nkeep; f++) {
			float *out = dst[f] < 0 ? label : cols + (size_t)dst[f] * nrows;
			const float *in = s->rows + f;
			for (size_t r = r0; r < r1; r++)
				out[r] = in[r * nf];
		}
	}
	for (int f = 0; f < s->nkeep; f++) {
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

/* A line of nothing but blanks and delimiters (a spreadsheet's empty row). */
static int is_empty_row(const char *p, size_t len, char delim)
{
	for (size_t i = 0; i < len; i++)
		if (!rt_data_blank(p[i]) && p[i] != delim)
			return 0;
	return 1;
}

/* The first non-blank line: the header, or the first row (which sets the
 * number of fields); then the label field. */
static rt_status csv_first_line(csv_state *s, const rt_csv_options *o, char *line, size_t len,
                                long *header_line, int *lab, rt_error *err)
{
	rt_status st;
	if (o->header) {
		*header_line = s->rd.line;
		if ((st = csv_header(s, line, len, err)))
			return st;
	} else {
		long nf = csv_count(line, line + len, s->delim);
		if (nf > RT_DATA_MAX_COLS)
			return rt_fail(err, RT_ERR_INPUT, "%s:%ld: %ld columns, more than the limit of %d (RT_DATA_MAX_COLS)",
			               s->path, s->rd.line, nf, RT_DATA_MAX_COLS);
		if ((st = csv_setup(s, (int)nf, err)))
			return st;
		s->last_cand = nf >= 2;
	}
	s->nkeep = s->nf;
	return csv_label_field(s, o, *header_line, lab, err);
}

/* After the last row: drops a last column that is unnamed and empty on
 * every row; the default label (the last column) moves to the one before. */
static rt_status csv_drop_empty_last(csv_state *s, const rt_csv_options *o, int *lab, rt_error *err)
{
	if (!s->last_cand || s->last_has_data)
		return RT_OK;
	if (*lab == s->nf - 1) {
		if (o->label || o->label_index != -1)
			return rt_fail(err, RT_ERR_INPUT, "%s:%ld:%zu: expected values in the label column (column %d), got an empty field on every row",
			               s->path, s->empty_line, s->empty_col, s->nf);
		*lab = s->nf - 2;
	}
	s->nkeep = s->nf - 1;
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

	if (rt_mem_find(path))   /* "memory:NAME": the C API's table (data_mem.c) */
		return rt_mem_load(path, opt, out, err);
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
		if (len == 0 || ((rt_data_blank(line[0]) || line[0] == s.delim) && is_empty_row(line, len, s.delim)))
			continue;
		nlines++;
		if (s.nf == 0) {
			if ((st = csv_first_line(&s, &o, line, len, &header_line, &lab, err)))
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
	if ((st = csv_drop_empty_last(&s, &o, &lab, err)) || (st = csv_build(&s, lab, out, err)))
		goto fail;
	snprintf(out->path, sizeof out->path, "%s", path);
	csv_state_free(&s);
	return RT_OK;
fail:
	csv_state_free(&s);
	memset(out, 0, sizeof *out);
	return st;
}
