/* data.c: what the data loaders share: the line reader over zlib, number
 * parsing, string-to-index mappings, and freeing a table. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "data_impl.h"
#include "timeline.h"

/* ---- line reader ---------------------------------------------------------- */

/* Bytes asked of zlib per read: big reads keep the per-call cost invisible. */
#define READ_CHUNK (1 << 20)

rt_status rt_data_open(rt_data_reader *r, const char *path, rt_error *err)
{
	struct stat st;
	int fd;

	memset(r, 0, sizeof *r);
	r->path = path;
	rt_mark_detail("data open", strrchr(path, '/') ? strrchr(path, '/') + 1 : path);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return rt_fail(err, RT_ERR_INPUT, "%s: cannot open: %s", path, strerror(errno));
	if (fstat(fd, &st) == 0 && S_ISDIR(st.st_mode)) {
		close(fd);
		return rt_fail(err, RT_ERR_INPUT, "%s: cannot read: %s", path, strerror(EISDIR));
	}
	r->cap = READ_CHUNK + 1;
	r->buf = rt_malloc(r->cap, err);
	if (!r->buf) {
		close(fd);
		return RT_ERR_SYSTEM;
	}
	r->gz = gzdopen(fd, "rb");
	if (!r->gz) {
		close(fd);
		free(r->buf);
		r->buf = NULL;
		return rt_fail(err, RT_ERR_SYSTEM, "%s: cannot start reading (out of memory)", path);
	}
	gzbuffer(r->gz, 1 << 18);
	return RT_OK;
}

/* Reads more input behind the unread bytes, growing the buffer for long lines. */
static rt_status reader_fill(rt_data_reader *r, rt_error *err)
{
	size_t avail = r->len - r->pos;
	int got, zerr;
	const char *zmsg;

	if (r->pos > 0) {
		memmove(r->buf, r->buf + r->pos, avail);
		r->len = avail;
		r->pos = 0;
	}
	if (r->len + 1 >= r->cap) {
		char *nb;
		if (r->cap > RT_DATA_MAX_LINE)
			return rt_fail(err, RT_ERR_INPUT, "%s:%ld: line longer than %d bytes (is this a text file?)",
			               r->path, r->line + 1, RT_DATA_MAX_LINE);
		nb = rt_realloc(r->buf, 2 * r->cap, err);
		if (!nb)
			return RT_ERR_SYSTEM;
		r->buf = nb;
		r->cap *= 2;
	}
	got = gzread(r->gz, r->buf + r->len, (unsigned)(r->cap - 1 - r->len));
	zmsg = gzerror(r->gz, &zerr);
	if (got < 0 || zerr != Z_OK) {
		/* zlib names the stream "<fd:N>: " for gzdopen; our message has the path. */
		const char *colon = zmsg ? strstr(zmsg, ">: ") : NULL;
		if (zmsg && zmsg[0] == '<' && colon)
			zmsg = colon + 3;
		if (zerr == Z_ERRNO)
			return rt_fail(err, RT_ERR_SYSTEM, "%s: read error: %s", r->path, strerror(errno));
		if (zerr == Z_MEM_ERROR)
			return rt_fail(err, RT_ERR_SYSTEM, "%s: out of memory while decompressing", r->path);
		if (zerr == Z_BUF_ERROR)
			return rt_fail(err, RT_ERR_INPUT, "%s: truncated compressed file (zlib: %s)", r->path, zmsg);
		return rt_fail(err, RT_ERR_INPUT, "%s: corrupt compressed data (zlib: %s)", r->path, zmsg);
	}
	if (got == 0)
		r->eof = 1;
	r->len += (size_t)got;
	return RT_OK;
}

rt_status rt_data_next_line(rt_data_reader *r, char **line, size_t *len, rt_error *err)
{
	char *start, *nl;
	size_t n;

	for (;;) {
		start = r->buf + r->pos;
		nl = memchr(start, '\n', r->len - r->pos);
		if (nl) {
			n = (size_t)(nl - start);
			r->pos += n + 1;
			break;
		}
		if (r->eof) {
			n = r->len - r->pos;
			if (n == 0) {
				*line = NULL;
				*len = 0;
				return RT_OK;
			}
			r->pos = r->len;   /* a last line without '\n'; buf[len] is spare */
			break;
		}
		rt_status st = reader_fill(r, err);
		if (st)
			return st;
	}
	start[n] = '\0';
	if (n > 0 && start[n - 1] == '\r')
		start[--n] = '\0';
	r->line++;
	*line = start;
	*len = n;
	return RT_OK;
}

void rt_data_close(rt_data_reader *r)
{
	if (r->path)
		rt_mark("data read");
	if (r->gz)
		gzclose_r(r->gz);
	free(r->buf);
	r->gz = NULL;
	r->buf = NULL;
}

/* ---- numbers -------------------------------------------------------------- */

/* What scan_number found: 0 not a number, 1 a decimal, 2 nan or inf. */
enum { NUM_BAD, NUM_DECIMAL, NUM_SPECIAL };

/* Checks that s[0..len) is a decimal number and, when its significant digits
 * fit in 19, returns them in *mant with the power of ten *e10 (*fits = 1). */
static int scan_number(const char *s, size_t len, uint64_t *mant, int *e10, int *neg, int *fits)
{
	const char *p = s, *e = s + len;
	uint64_t m = 0;
	int nd = 0, digits = 0, ex = 0;

	*neg = 0;
	*fits = 1;
	if (p < e && (*p == '-' || *p == '+'))
		*neg = *p++ == '-';
	if (p < e && (*p == 'n' || *p == 'N' || *p == 'i' || *p == 'I')) {
		size_t k = (size_t)(e - p);
		if ((k == 3 && (!strncasecmp(p, "nan", 3) || !strncasecmp(p, "inf", 3))) ||
		    (k == 8 && !strncasecmp(p, "infinity", 8)))
			return NUM_SPECIAL;
		return NUM_BAD;
	}
	for (; p < e && *p >= '0' && *p <= '9'; p++, digits++) {
		if (m == 0 && *p == '0')
			continue;          /* leading zeros carry nothing */
		if (nd < 19)
			m = m * 10 + (uint64_t)(*p - '0');
		else
			*fits = 0;
		nd++;
	}
	if (p < e && *p == '.') {
		for (p++; p < e && *p >= '0' && *p <= '9'; p++, digits++) {
			if (m == 0 && *p == '0') {
				ex--;
				continue;
			}
			if (nd < 19) {
				m = m * 10 + (uint64_t)(*p - '0');
				ex--;
			} else {
				*fits = 0;
			}
			nd++;
		}
	}
	if (digits == 0)
		return NUM_BAD;
	if (p < e && (*p == 'e' || *p == 'E')) {
		int eneg = 0, ev = 0, edigits = 0;
		p++;
		if (p < e && (*p == '-' || *p == '+'))
			eneg = *p++ == '-';
		for (; p < e && *p >= '0' && *p <= '9'; p++, edigits++)
			if (ev < 100000)
				ev = ev * 10 + (*p - '0');
		if (edigits == 0)
			return NUM_BAD;
		ex += eneg ? -ev : ev;
	}
	if (p != e)
		return NUM_BAD;
	*mant = m;
	*e10 = ex;
	return NUM_DECIMAL;
}

/* strtof/strtod on a span that is known to hold a number. */
static int slow_float(const char *s, size_t len, float *out)
{
	char tmp[128], *end;
	if (len < sizeof tmp) {
		memcpy(tmp, s, len);
		tmp[len] = '\0';
		*out = strtof(tmp, &end);
		return end == tmp + len;
	}
	*out = strtof(s, &end);
	return end == s + len;
}

static int slow_double(const char *s, size_t len, double *out)
{
	char tmp[128], *end;
	if (len < sizeof tmp) {
		memcpy(tmp, s, len);
		tmp[len] = '\0';
		*out = strtod(tmp, &end);
		return end == tmp + len;
	}
	*out = strtod(s, &end);
	return end == s + len;
}

int rt_data_parse_float(const char *s, size_t len, float *out)
{
	/* Exact in float: m < 2^24 and 10^k for k <= 10 (5^10 < 2^24), so one
	 * multiplication or division rounds once, as strtof would (Clinger). */
	static const float p10[] = { 1e0f, 1e1f, 1e2f, 1e3f, 1e4f, 1e5f, 1e6f, 1e7f, 1e8f, 1e9f, 1e10f };
	uint64_t m;
	int e10, neg, fits;
	int kind = scan_number(s, len, &m, &e10, &neg, &fits);

	if (kind == NUM_BAD)
		return 0;
	if (kind == NUM_DECIMAL && fits && m <= (1u << 24) && e10 >= -10 && e10 <= 10) {
		float v = (float)m;
		v = e10 < 0 ? v / p10[-e10] : v * p10[e10];
		*out = neg ? -v : v;
		return 1;
	}
	return slow_float(s, len, out);
}

int rt_data_parse_double(const char *s, size_t len, double *out)
{
	static const double p10[] = { 1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11,
	                              1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22 };
	uint64_t m;
	int e10, neg, fits;
	int kind = scan_number(s, len, &m, &e10, &neg, &fits);

	if (kind == NUM_BAD)
		return 0;
	if (kind == NUM_DECIMAL && fits && m <= (1ull << 53) && e10 >= -22 && e10 <= 22) {
		double v = (double)m;
		v = e10 < 0 ? v / p10[-e10] : v * p10[e10];
		*out = neg ? -v : v;
		return 1;
	}
	return slow_double(s, len, out);
}

const char *rt_data_quote(char *dst, size_t n, const char *s, size_t len)
{
	const size_t keep = 40;
	size_t i, k = 0;
	if (n == 0)
		return dst;
	for (i = 0; i < len && i < keep && k + 1 < n; i++) {
		unsigned char c = (unsigned char)s[i];
		dst[k++] = (c >= 32 && c < 127) || c >= 128 ? (char)c : '?';
	}
	if (i < len)
		for (const char *d = "..."; *d && k + 1 < n; d++)
			dst[k++] = *d;
	dst[k] = '\0';
	return dst;
}

/* ---- string-to-index mappings --------------------------------------------- */

static uint32_t hash_bytes(const char *s, size_t len)
{
	uint32_t h = 2166136261u;   /* FNV-1a */
	for (size_t i = 0; i < len; i++)
		h = (h ^ (unsigned char)s[i]) * 16777619u;
	return h;
}

void rt_data_catmap_init(rt_data_catmap *m, rt_categories *cats)
{
	memset(m, 0, sizeof *m);
	memset(cats, 0, sizeof *cats);
	m->cats = cats;
}

/* Doubles the hash table (or makes the first one) and reinserts every name. */
static rt_status catmap_grow(rt_data_catmap *m, rt_error *err)
{
	size_t n = m->nslots ? 2 * m->nslots : 16;
	int *slots = rt_malloc(n * sizeof *slots, err);
	uint32_t *hashes = slots ? rt_malloc(n * sizeof *hashes, err) : NULL;
	if (!hashes) {
		free(slots);
		return RT_ERR_SYSTEM;
	}
	for (size_t i = 0; i < n; i++)
		slots[i] = -1;
	for (size_t i = 0; i < m->nslots; i++) {
		if (m->slots[i] < 0)
			continue;
		size_t j = m->hashes[i] & (n - 1);
		while (slots[j] >= 0)
			j = (j + 1) & (n - 1);
		slots[j] = m->slots[i];
		hashes[j] = m->hashes[i];
	}
	free(m->slots);
	free(m->hashes);
	m->slots = slots;
	m->hashes = hashes;
	m->nslots = n;
	return RT_OK;
}

rt_status rt_data_catmap_get(rt_data_catmap *m, const char *s, size_t len, int *idx, rt_error *err)
{
	rt_categories *c = m->cats;
	uint32_t h = hash_bytes(s, len);
	size_t j;
	char *name;

	if (m->nslots) {
		for (j = h & (m->nslots - 1); m->slots[j] >= 0; j = (j + 1) & (m->nslots - 1)) {
			int k = m->slots[j];
			if (m->hashes[j] == h && m->lens[k] == len && memcmp(c->names[k], s, len) == 0) {
				*idx = k;
				return RT_OK;
			}
		}
	}
	/* A new string. */
	if (c->n >= RT_DATA_MAX_CATEGORIES)
		return RT_ERR_INPUT;
	if ((size_t)(c->n + 1) * 2 > m->nslots && catmap_grow(m, err))
		return RT_ERR_SYSTEM;
	if (c->n == m->names_cap) {
		int cap = m->names_cap ? 2 * m->names_cap : 8;
		char **names = rt_realloc(c->names, (size_t)cap * sizeof *names, err);
		if (!names)
			return RT_ERR_SYSTEM;
		c->names = names;
		size_t *lens = rt_realloc(m->lens, (size_t)cap * sizeof *lens, err);
		if (!lens)
			return RT_ERR_SYSTEM;
		m->lens = lens;
		m->names_cap = cap;
	}
	name = rt_malloc(len + 1, err);
	if (!name)
		return RT_ERR_SYSTEM;
	memcpy(name, s, len);
	name[len] = '\0';
	for (j = h & (m->nslots - 1); m->slots[j] >= 0; j = (j + 1) & (m->nslots - 1))
		;
	m->slots[j] = c->n;
	m->hashes[j] = h;
	m->lens[c->n] = len;
	c->names[c->n] = name;
	*idx = c->n++;
	return RT_OK;
}

void rt_data_catmap_free(rt_data_catmap *m)
{
	free(m->slots);
	free(m->hashes);
	free(m->lens);
	m->slots = NULL;
	m->hashes = NULL;
	m->lens = NULL;
	m->nslots = 0;
}

void rt_data_categories_free(rt_categories *c)
{
	if (c->names)
		for (int i = 0; i < c->n; i++)
			free(c->names[i]);
	free(c->names);
	c->names = NULL;
	c->n = 0;
}

char *rt_data_default_name(const char *prefix, long k, rt_error *err)
{
	char tmp[64];
	snprintf(tmp, sizeof tmp, "%s%ld", prefix, k);
	return rt_strdup(tmp, err);
}

/* ---- tables --------------------------------------------------------------- */

/* Index of input column name in t, or -1. */
static int table_column(const rt_table *t, const char *name, size_t len)
{
	for (int c = 0; c < t->ncols && t->colnames; c++)
		if (t->colnames[c] && strlen(t->colnames[c]) == len && !strncmp(t->colnames[c], name, len))
			return c;
	return -1;
}

rt_status rt_table_drop_columns(rt_table *t, const char *names, rt_error *err)
{
	int *drop = calloc((size_t)t->ncols + 1, sizeof *drop);
	if (!drop)
		return rt_fail(err, RT_ERR_SYSTEM, "out of memory");
	for (const char *s = names; *s;) {
		size_t len = strcspn(s, " \t,");
		if (len > 0) {
			int c = table_column(t, s, len);
			if (c < 0) {
				free(drop);
				return rt_fail(err, RT_ERR_INPUT, "%s: expected the name of an input column "
					       "to ignore, got '%.*s' (the label column cannot be ignored)",
					       t->path, (int)len, s);
			}
			drop[c] = 1;
		}
		s += len;
		s += strspn(s, " \t,");
	}
	int kept = 0;
	for (int c = 0; c < t->ncols; c++) {
		if (drop[c]) {
			free(t->colnames ? t->colnames[c] : NULL);
			if (t->cats)
				rt_data_categories_free(&t->cats[c]);
			continue;
		}
		if (kept != c) {
			memmove(t->cols + (size_t)kept * t->nrows, t->cols + (size_t)c * t->nrows,
				t->nrows * sizeof *t->cols);
			if (t->colnames)
				t->colnames[kept] = t->colnames[c];
			if (t->cats)
				t->cats[kept] = t->cats[c];
		}
		kept++;
	}
	t->ncols = kept;
	free(drop);
	return RT_OK;
}

void rt_table_free(rt_table *t)
{
	if (!t)
		return;
	if (t->colnames)
		for (int c = 0; c < t->ncols; c++)
			free(t->colnames[c]);
	if (t->cats)
		for (int c = 0; c < t->ncols; c++)
			rt_data_categories_free(&t->cats[c]);
	free(t->colnames);
	free(t->cats);
	free(t->cols);
	free(t->label_name);
	free(t->label);
	rt_data_categories_free(&t->classes);
	memset(t, 0, sizeof *t);
}
