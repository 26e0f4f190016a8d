/* tunedb.c: the tuning database (tunedb.h): problem signatures, device
 * identities, and the JSON file read back with a small reader of our own.
 *
 * The reader accepts any JSON (unknown members and nested values are
 * skipped), so a later evoforge may add fields; it only keeps the members it
 * knows of each entry and fails on anything that is not JSON. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cpu.h"
#include "kcache.h"
#include "log.h"
#include "nvrtc.h"
#include "out.h"
#include "tunedb.h"

/* The string members of an entry, in the file's order. */
#define TUNEDB_STRINGS(X) X(key) X(kind) X(problem) X(backend) X(device) X(cc) X(driver) \
	X(nvrtc) X(evoforge) X(overrides) X(unit) X(date)

/* ---- signature and identity --------------------------------------------------- */

static int listed(const char *section, const char *key, const char *const *keys)
{
	size_t n = strlen(section);
	for (int i = 0; keys && keys[i]; i++)
		if (!strncmp(keys[i], section, n) && keys[i][n] == '.' && !strcmp(keys[i] + n + 1, key))
			return 1;
	return 0;
}

static int cmp_entry(const void *a, const void *b)
{
	const rt_spec_entry *x = *(const rt_spec_entry *const *)a, *y = *(const rt_spec_entry *const *)b;
	int c = strcmp(x->section, y->section);
	return c ? c : strcmp(x->key, y->key);
}

uint64_t rt_tunedb_signature(const rt_spec *spec, const char *const *unsigned_keys)
{
	const rt_spec_entry **e = malloc((size_t)(spec->nentries ? spec->nentries : 1) * sizeof *e);
	uint64_t h = KCACHE_FNV_OFFSET;
	int n = 0;
	if (!e)
		return 0;   /* never matches a stored key (they are never 0 in practice) */
	for (int i = 0; i < spec->nentries; i++)
		if (!listed(spec->entries[i].section, spec->entries[i].key, unsigned_keys))
			e[n++] = &spec->entries[i];
	qsort(e, (size_t)n, sizeof *e, cmp_entry);
	for (int i = 0; i < n; i++) {
		h = kcache_fnv1a(h, e[i]->section, strlen(e[i]->section) + 1);
		h = kcache_fnv1a(h, e[i]->key, strlen(e[i]->key) + 1);
		h = kcache_fnv1a(h, e[i]->value, strlen(e[i]->value) + 1);
	}
	free(e);
	return h;
}

void rt_tunedb_identity(rt_backend backend, const gpu_info *info, rt_tunedb_entry *e)
{
	rt_error ignored;
	int major, minor;
	snprintf(e->backend, sizeof e->backend, "%s", rt_backend_name(backend));
	snprintf(e->evoforge, sizeof e->evoforge, "%s", RT_VERSION);
	e->cc[0] = e->driver[0] = e->nvrtc[0] = '\0';
	if (backend == RT_BACKEND_GPU && info) {
		snprintf(e->device, sizeof e->device, "%s", info->name);
		snprintf(e->cc, sizeof e->cc, "%d.%d", info->cc_major, info->cc_minor);
		snprintf(e->driver, sizeof e->driver, "%d.%d", info->driver_version / 1000,
			 info->driver_version % 1000 / 10);
		if (nvrtc_open(&ignored) == RT_OK && nvrtc_version(&major, &minor, &ignored) == RT_OK)
			snprintf(e->nvrtc, sizeof e->nvrtc, "%d.%d", major, minor);
	} else {
		char model[200];
		cpu_model_name(model, sizeof model);
		snprintf(e->device, sizeof e->device, "%s, %d cores", model, cpu_thread_count(0));
	}
}

void rt_tunedb_make_key(rt_tunedb_entry *e, uint64_t signature)
{
	const char *parts[] = {e->backend, e->device, e->cc, e->driver, e->nvrtc, e->evoforge};
	uint64_t h = kcache_fnv1a(KCACHE_FNV_OFFSET, &signature, sizeof signature);
	for (size_t i = 0; i < sizeof parts / sizeof parts[0]; i++)
		h = kcache_fnv1a(h, parts[i], strlen(parts[i]) + 1);
	snprintf(e->key, sizeof e->key, "%016llx", (unsigned long long)h);
}

rt_status rt_tunedb_path(char *out, int size, rt_error *err)
{
	char dir[RT_PATH_MAX];
	if (kcache_dir(dir, sizeof dir, err))
		return err->status;
	return rt_format(out, (size_t)size, err, "%s/tuning.json", dir);
}

/* ---- reading: a JSON reader that keeps the entries' members -------------------- */

typedef struct jreader {
	const char *p;
	int depth;                  /* containers open around p */
	char top[32];               /* member of the top-level object being read */
	int bad_format;             /* "format" is not RT_TUNEDB_FORMAT */
	rt_tunedb_entry cur;        /* the entry being read */
	rt_tunedb_entry *list;      /* entries read */
	int n, cap;
} jreader;

static void skip_ws(jreader *r)
{
	while (*r->p == ' ' || *r->p == '\t' || *r->p == '\n' || *r->p == '\r')
		r->p++;
}

static int hex_digit(char h)
{
	return h >= '0' && h <= '9' ? h - '0' : h >= 'a' && h <= 'f' ? h - 'a' + 10
		: h >= 'A' && h <= 'F' ? h - 'A' + 10 : -1;
}

/* Reads a string at r->p into out (size bytes, truncated; out may be NULL);
 * \u escapes beyond ASCII become '?'. */
static int read_string(jreader *r, char *out, size_t size)
{
	static const char from[] = "\"\\/bfnrt", to[] = "\"\\/\b\f\n\r\t";
	size_t n = 0;
	if (*r->p != '"')
		return 0;
	for (r->p++; *r->p != '"'; r->p++) {
		char c = *r->p;
		if ((unsigned char)c < 0x20)
			return 0;
		if (c == '\\' && *++r->p == 'u') {
			unsigned v = 0;
			for (int i = 0; i < 4; i++) {
				int d = hex_digit(*++r->p);
				if (d < 0)
					return 0;
				v = v * 16 + (unsigned)d;
			}
			c = v < 0x80 ? (char)v : '?';
		} else if (c == '\\') {
			const char *k = *r->p ? strchr(from, *r->p) : NULL;
			if (!k)
				return 0;
			c = to[k - from];
		}
		if (out && n + 1 < size)
			out[n++] = c;
	}
	r->p++;
	if (out && size)
		out[n] = '\0';
	return 1;
}

/* An entry is an object at depth 3: file { "entries": [ {entry} ] }. */
static int in_entry(const jreader *r) { return r->depth == 3 && !strcmp(r->top, "entries"); }

static int read_value(jreader *r, const char *member);

/* Reads an object or array at r->p, each member through read_value. */
static int read_container(jreader *r)
{
	int is_object = *r->p == '{';
	char name[32] = "";
	if (++r->depth > 16)
		return 0;
	if (is_object && in_entry(r))
		memset(&r->cur, 0, sizeof r->cur);
	r->p++;
	skip_ws(r);
	if (*r->p != (is_object ? '}' : ']'))
		for (;;) {
			skip_ws(r);
			if (is_object && !(read_string(r, name, sizeof name) && (skip_ws(r), *r->p++ == ':')))
				return 0;
			if (is_object && r->depth == 1)
				snprintf(r->top, sizeof r->top, "%s", name);
			skip_ws(r);
			if (!read_value(r, is_object ? name : NULL))
				return 0;
			skip_ws(r);
			if (*r->p != ',')
				break;
			r->p++;
		}
	if (*r->p++ != (is_object ? '}' : ']'))
		return 0;
	if (is_object && in_entry(r) && r->cur.key[0]) {
		if (r->n == r->cap) {
			rt_tunedb_entry *m = realloc(r->list, (size_t)(r->cap * 2 + 8) * sizeof *m);
			if (!m)
				return 0;
			r->list = m;
			r->cap = r->cap * 2 + 8;
		}
		r->list[r->n++] = r->cur;
	}
	r->depth--;
	return 1;
}

/* A value; the members of an entry that rt_tunedb_entry has are kept. */
static int read_value(jreader *r, const char *member)
{
	int mine = member && in_entry(r);
	char *end;
	double v;
	if (*r->p == '{' || *r->p == '[')
		return read_container(r);
	if (*r->p == '"') {
#define TUNEDB_READ_(f)                                     \
	if (mine && !strcmp(member, #f))                    \
		return read_string(r, r->cur.f, sizeof r->cur.f);
		TUNEDB_STRINGS(TUNEDB_READ_)
#undef TUNEDB_READ_
		return read_string(r, NULL, 0);
	}
	for (const char *const *w = (const char *const[]){"true", "false", "null", NULL}; *w; w++)
		if (!strncmp(r->p, *w, strlen(*w)))
			return r->p += strlen(*w), 1;
	v = strtod(r->p, &end);
	if (end == r->p)
		return 0;
	r->p = end;
	if (mine && !strcmp(member, "rate"))
		r->cur.rate = v;
	if (mine && !strcmp(member, "default_rate"))
		r->cur.default_rate = v;
	if (member && r->depth == 1 && !strcmp(member, "format") && v != RT_TUNEDB_FORMAT)
		r->bad_format = 1;
	return 1;
}

/* Parses text: one top-level object whose "entries" array holds the entries. */
static rt_status parse_db(const char *path, const char *text, rt_tunedb_entry **entries, int *n,
			  rt_error *err)
{
	jreader r;
	int ok;
	memset(&r, 0, sizeof r);
	r.p = text;
	skip_ws(&r);
	ok = *r.p == '{' && read_container(&r);
	skip_ws(&r);
	if (!ok || *r.p || r.bad_format) {
		free(r.list);
		return rt_fail(err, RT_ERR_INPUT, "%s: not a tuning database of format %d (at byte %ld)",
			       path, RT_TUNEDB_FORMAT, (long)(r.p - text));
	}
	*entries = r.list;
	*n = r.n;
	return RT_OK;
}

rt_status rt_tunedb_load(const char *path, rt_tunedb_entry **entries, int *n, rt_error *err)
{
	char *text;
	size_t size;
	FILE *f = fopen(path, "rb");
	rt_status st;
	*entries = NULL;
	*n = 0;
	if (!f)
		return RT_OK;
	fclose(f);
	if ((st = rt_read_file(path, &text, &size, err)))
		return st;
	st = strlen(text) == size ? parse_db(path, text, entries, n, err)
				  : rt_fail(err, RT_ERR_INPUT, "%s: not a tuning database (NUL byte)", path);
	free(text);
	if (st) {
		free(*entries);
		*entries = NULL;
		*n = 0;
	}
	return st;
}

int rt_tunedb_find(const char *path, const char *key, rt_tunedb_entry *e)
{
	rt_tunedb_entry *all;
	rt_error err;
	int n, found = 0;
	if (rt_tunedb_load(path, &all, &n, &err)) {
		rt_warn("ignoring the tuning database: %s", err.msg);
		return 0;
	}
	for (int i = 0; i < n && !found; i++)
		if (!strcmp(all[i].key, key)) {
			*e = all[i];
			found = 1;
		}
	free(all);
	return found;
}

/* ---- writing ------------------------------------------------------------------- */

static void write_entry(rt_json *j, const rt_tunedb_entry *e)
{
	rt_json_begin_object(j, NULL);
#define TUNEDB_WRITE_(f) rt_json_string(j, #f, e->f);
	TUNEDB_STRINGS(TUNEDB_WRITE_)
#undef TUNEDB_WRITE_
	rt_json_double(j, "rate", e->rate);
	rt_json_double(j, "default_rate", e->default_rate);
	rt_json_end_object(j);
}

rt_status rt_tunedb_store(const char *path, const rt_tunedb_entry *e, rt_error *err)
{
	rt_tunedb_entry *all;
	rt_json j = {0};
	rt_error lerr;
	int n;
	rt_status st;
	if (rt_tunedb_load(path, &all, &n, &lerr)) {
		if (lerr.status != RT_ERR_INPUT)
			return rt_fail(err, lerr.status, "%s", lerr.msg);
		rt_warn("replacing the tuning database: %s", lerr.msg);
	}
	rt_json_begin_object(&j, NULL);
	rt_json_int(&j, "format", RT_TUNEDB_FORMAT);
	rt_json_string(&j, "about", "evoforge tune: tuned kernel configurations (evoforge help tune)");
	rt_json_begin_array(&j, "entries");
	for (int i = 0; i < n; i++)
		if (strcmp(all[i].key, e->key))
			write_entry(&j, &all[i]);
	write_entry(&j, e);
	rt_json_end_array(&j);
	rt_json_end_object(&j);
	st = j.buf.failed ? rt_fail(err, RT_ERR_SYSTEM, "out of memory writing %s", path)
			  : rt_json_write(&j, path, err);
	rt_buf_free(&j.buf);
	free(all);
	return st;
}
