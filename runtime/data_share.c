/* data_share.c: a CSV table read once, by rank 0, and broadcast to the
 * job's other ranks (data.h: rt_csv_load_shared), so that N ranks on a host
 * do not each parse (and gunzip) the same file: KDD Cup's 494,021 rows took
 * 0.44 s on one H100 host's rank and 0.93 s with four ranks parsing at once.
 * The table travels as one buffer: counts, names, columns, categories. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "comm.h"
#include "data.h"
#include "out.h"
#include "timeline.h"

/* ---- packing ---------------------------------------------------------------- */

static void put(rt_buf *b, const void *p, size_t n) { rt_buf_append(b, p, n); }
static void put_u64(rt_buf *b, uint64_t v) { put(b, &v, sizeof v); }

static void put_str(rt_buf *b, const char *s)
{
	size_t n = s ? strlen(s) + 1 : 0;   /* 0: NULL */
	put_u64(b, n);
	put(b, s, n);
}

static void put_cats(rt_buf *b, const rt_categories *c)
{
	put_u64(b, (uint64_t)c->n);
	for (int i = 0; i < c->n; i++)
		put_str(b, c->names[i]);
}

/* The status and message of rank 0's load first, then its table. */
static void pack(rt_buf *b, rt_status st, const rt_error *err, const rt_table *t)
{
	put_u64(b, (uint64_t)st);
	put_str(b, st ? err->msg : "");
	if (st)
		return;
	put_str(b, t->path);
	put_u64(b, t->nrows);
	put_u64(b, (uint64_t)t->ncols);
	put_u64(b, (uint64_t)t->has_label);
	for (int c = 0; c < t->ncols; c++)
		put_str(b, t->colnames[c]);
	put(b, t->cols, (size_t)t->ncols * t->nrows * sizeof(float));
	for (int c = 0; c < t->ncols; c++)
		put_cats(b, &t->cats[c]);
	put_str(b, t->label_name);
	if (t->has_label)
		put(b, t->label, t->nrows * sizeof(float));
	put_cats(b, &t->classes);
}

/* ---- unpacking -------------------------------------------------------------- */

typedef struct reader {
	const char *p, *end;
	int bad;
} reader;

static const void *take(reader *r, size_t n)
{
	const char *at = r->p;
	if (r->bad || (size_t)(r->end - r->p) < n) {
		r->bad = 1;
		return NULL;
	}
	r->p += n;
	return at;
}

static uint64_t take_u64(reader *r)
{
	uint64_t v = 0;
	const void *p = take(r, sizeof v);
	if (p)
		memcpy(&v, p, sizeof v);
	return v;
}

/* A string as packed; *s NULL for a packed NULL. 0 when out of memory. */
static int take_str(reader *r, char **s, rt_error *err)
{
	uint64_t n = take_u64(r);
	const char *p = take(r, n);
	*s = NULL;
	if (!n || !p)
		return 1;
	if (!(*s = rt_malloc(n, err)))
		return 0;
	memcpy(*s, p, n);
	(*s)[n - 1] = 0;
	return 1;
}

static int take_floats(reader *r, float **out, size_t n, rt_error *err)
{
	const void *p = take(r, n * sizeof(float));
	if (!p)
		return 1;
	if (!(*out = rt_malloc(n * sizeof(float) + 1, err)))
		return 0;
	memcpy(*out, p, n * sizeof(float));
	return 1;
}

static int take_cats(reader *r, rt_categories *c, rt_error *err)
{
	uint64_t n = take_u64(r);
	if (r->bad || n > (uint64_t)(r->end - r->p))
		return r->bad = 1;
	c->n = (int)n;
	if (n && !(c->names = rt_calloc((size_t)n, sizeof *c->names, err)))
		return 0;
	for (uint64_t i = 0; i < n; i++)
		if (!take_str(r, &c->names[i], err))
			return 0;
	return 1;
}

static rt_status unpack_table(reader *r, rt_table *t, rt_error *err)
{
	char *path = NULL;
	int ok = take_str(r, &path, err);
	if (path)
		snprintf(t->path, sizeof t->path, "%s", path);
	free(path);
	t->nrows = (size_t)take_u64(r);
	t->ncols = (int)take_u64(r);
	t->has_label = (int)take_u64(r);
	if (ok && !r->bad && t->ncols > 0) {
		ok = (t->colnames = rt_calloc((size_t)t->ncols, sizeof *t->colnames, err)) &&
		     (t->cats = rt_calloc((size_t)t->ncols, sizeof *t->cats, err));
	}
	for (int c = 0; ok && !r->bad && c < t->ncols; c++)
		ok = take_str(r, &t->colnames[c], err);
	ok = ok && take_floats(r, &t->cols, (size_t)t->ncols * t->nrows, err);
	for (int c = 0; ok && !r->bad && c < t->ncols; c++)
		ok = take_cats(r, &t->cats[c], err);
	ok = ok && take_str(r, &t->label_name, err);
	if (ok && t->has_label)
		ok = take_floats(r, &t->label, t->nrows, err);
	ok = ok && take_cats(r, &t->classes, err);
	if (!ok)
		return RT_ERR_SYSTEM;
	if (r->bad || r->p != r->end)
		return rt_fail(err, RT_ERR_INTERNAL, "%s: the table broadcast from rank 0 is malformed",
			       t->path);
	return RT_OK;
}

/* ---- the collective ---------------------------------------------------------- */

rt_status rt_csv_load_shared(const char *path, const rt_csv_options *opt, rt_table *out,
			     rt_error *err)
{
	rt_buf b;
	void *buf = NULL;
	size_t bytes = 0;
	rt_status st = RT_OK, loaded = RT_OK;
	reader r;
	char *msg = NULL;
	if (rt_comm_size() == 1)
		return rt_csv_load(path, opt, out, err);
	memset(&b, 0, sizeof b);
	memset(out, 0, sizeof *out);
	if (rt_comm_rank() == 0) {
		loaded = rt_csv_load(path, opt, out, err);
		pack(&b, loaded, err, out);
		if (b.failed)   /* the others then get an empty buffer and fail too */
			b.len = 0;
		buf = b.data;
		bytes = b.len;
	}
	st = rt_comm_bcast(&buf, &bytes, 0, err);
	if (rt_comm_rank() == 0) {
		rt_buf_free(&b);
		if (!st && bytes == 0)
			st = rt_fail(err, RT_ERR_SYSTEM, "%s: out of memory packing the table", path);
		if (st)
			rt_table_free(out);
		return st ? st : loaded;
	}
	rt_mark("data received");
	r = (reader){ buf, (const char *)buf + bytes, bytes == 0 };
	loaded = (rt_status)take_u64(&r);
	if (!st && !take_str(&r, &msg, err))
		st = RT_ERR_SYSTEM;
	else if (!st && r.bad)
		st = rt_fail(err, RT_ERR_SYSTEM, "%s: rank 0 could not send the table", path);
	else if (!st && loaded)   /* rank 0's error, word for word */
		st = rt_fail(err, loaded, "%s", msg ? msg : "rank 0 failed to read the data");
	else if (!st)
		st = unpack_table(&r, out, err);
	free(msg);
	free(buf);
	if (st)
		rt_table_free(out);
	return st;
}
