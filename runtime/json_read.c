/* json_read.c: the JSON reader (json_read.h): recursive descent over the
 * text, one rt_jval per value. Strict RFC 8259 except that nesting is
 * bounded (RT_JSON_MAX_DEPTH) and \u escapes outside the BMP pairs are
 * decoded one half at a time (evoforge writes none). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json_read.h"
#include "out.h"

#if !defined(RT_JSON_MAX_DEPTH)
#define RT_JSON_MAX_DEPTH 64
#endif

typedef struct jparser {
	const char *p, *path;
	int line;
	rt_error *err;
} jparser;

static rt_status jfail(jparser *jp, const char *expected)
{
	char got[24];
	if (!*jp->p)
		snprintf(got, sizeof got, "the end of the file");
	else
		snprintf(got, sizeof got, "'%.12s'", jp->p);
	for (char *c = got; *c; c++)
		if (*c == '\n' || *c == '\r' || *c == '\t')
			*c = ' ';
	return rt_fail(jp->err, RT_ERR_INPUT, "%s:%d: expected %s, got %s", jp->path, jp->line,
		       expected, got);
}

static void skip_space(jparser *jp)
{
	for (;; jp->p++) {
		if (*jp->p == '\n')
			jp->line++;
		else if (*jp->p != ' ' && *jp->p != '\t' && *jp->p != '\r')
			return;
	}
}

static void put_utf8(rt_buf *b, unsigned cp)
{
	char s[4];
	size_t n;
	if (cp < 0x80) {
		s[0] = (char)cp, n = 1;
	} else if (cp < 0x800) {
		s[0] = (char)(0xc0 | cp >> 6), s[1] = (char)(0x80 | (cp & 0x3f)), n = 2;
	} else {
		s[0] = (char)(0xe0 | cp >> 12), s[1] = (char)(0x80 | ((cp >> 6) & 0x3f));
		s[2] = (char)(0x80 | (cp & 0x3f)), n = 3;
	}
	rt_buf_append(b, s, n);
}

/* A string at jp->p (the opening quote) into a fresh *out. */
static rt_status parse_string(jparser *jp, char **out)
{
	rt_buf b = {0};
	static const char esc_in[] = "\"\\/bfnrt", esc_out[] = "\"\\/\b\f\n\r\t";
	jp->p++;
	while (*jp->p != '"') {
		unsigned char c = (unsigned char)*jp->p;
		if (c < 0x20)
			return (rt_buf_free(&b), jfail(jp, "a closing '\"'"));
		if (c != '\\') {
			rt_buf_append(&b, jp->p++, 1);
			continue;
		}
		const char *e = *++jp->p ? strchr(esc_in, *jp->p) : NULL;
		if (e) {
			rt_buf_append(&b, &esc_out[e - esc_in], 1);
			jp->p++;
		} else if (*jp->p == 'u') {
			char hex[5] = {0}, *end;
			memcpy(hex, jp->p + 1, strnlen(jp->p + 1, 4));
			unsigned long cp = strtoul(hex, &end, 16);
			if (end != hex + 4)
				return (rt_buf_free(&b), jfail(jp, "four hex digits after \\u"));
			put_utf8(&b, (unsigned)cp);
			jp->p += 5;
		} else {
			return (rt_buf_free(&b), jfail(jp, "an escape (\\\" \\\\ \\/ \\b \\f \\n \\r \\t \\u)"));
		}
	}
	jp->p++;
	rt_buf_append(&b, "", 1);
	if (b.failed)
		return (rt_buf_free(&b), rt_fail(jp->err, RT_ERR_SYSTEM, "out of memory reading %s",
						  jp->path));
	*out = b.data;
	return RT_OK;
}

static rt_status parse_value(jparser *jp, rt_jval *v, int depth);

/* The items of an array or object (jp->p just past the '[' or '{'). */
static rt_status parse_items(jparser *jp, rt_jval *v, int depth)
{
	char close = v->type == RT_JARRAY ? ']' : '}';
	int cap = 0;
	skip_space(jp);
	if (*jp->p == close)
		return (jp->p++, RT_OK);
	for (;;) {
		rt_jval item;
		char *key = NULL;
		memset(&item, 0, sizeof item);
		if (v->type == RT_JOBJECT) {
			skip_space(jp);
			if (*jp->p != '"')
				return jfail(jp, "a member name in double quotes");
			if (parse_string(jp, &key))
				return jp->err->status;
			skip_space(jp);
			if (*jp->p != ':')
				return (free(key), jfail(jp, "':' after a member name"));
			jp->p++;
		}
		rt_status st = parse_value(jp, &item, depth + 1);
		item.key = key;
		if (st == RT_OK && v->n == cap) {
			rt_jval *grown = rt_realloc(v->items, (size_t)(cap = cap ? 2 * cap : 8) * sizeof *grown,
						    jp->err);
			st = grown ? RT_OK : RT_ERR_SYSTEM;
			if (grown)
				v->items = grown;
		}
		if (st != RT_OK)
			return (rt_jfree(&item), st);
		v->items[v->n++] = item;
		skip_space(jp);
		if (*jp->p == close)
			return (jp->p++, RT_OK);
		if (*jp->p != ',')
			return jfail(jp, close == ']' ? "',' or ']'" : "',' or '}'");
		jp->p++;
	}
}

static rt_status parse_value(jparser *jp, rt_jval *v, int depth)
{
	static const struct { const char *word; rt_jtype type; double num; } words[] = {
		{"null", RT_JNULL, 0}, {"true", RT_JBOOL, 1}, {"false", RT_JBOOL, 0}};
	skip_space(jp);
	v->line = jp->line;
	if (depth > RT_JSON_MAX_DEPTH)
		return jfail(jp, "less deeply nested values");
	if (*jp->p == '{' || *jp->p == '[') {
		v->type = *jp->p++ == '{' ? RT_JOBJECT : RT_JARRAY;
		return parse_items(jp, v, depth);
	}
	if (*jp->p == '"') {
		v->type = RT_JSTRING;
		return parse_string(jp, &v->str);
	}
	for (size_t i = 0; i < sizeof words / sizeof words[0]; i++)
		if (!strncmp(jp->p, words[i].word, strlen(words[i].word))) {
			v->type = words[i].type;
			v->num = words[i].num;
			jp->p += strlen(words[i].word);
			return RT_OK;
		}
	if (*jp->p == '-' || (*jp->p >= '0' && *jp->p <= '9')) {
		char *end;
		errno = 0;
		v->type = RT_JNUMBER;
		v->num = strtod(jp->p, &end);
		if (end == jp->p || (errno == ERANGE && (v->num > 1 || v->num < -1)))
			return jfail(jp, "a number");
		jp->p = end;
		return RT_OK;
	}
	return jfail(jp, "a value (object, array, string, number, true, false or null)");
}

rt_status rt_jparse(const char *text, const char *path, rt_jval *out, rt_error *err)
{
	jparser jp = {text, path, 1, err};
	rt_status st;
	memset(out, 0, sizeof *out);
	st = parse_value(&jp, out, 0);
	if (st == RT_OK) {
		skip_space(&jp);
		if (*jp.p)
			st = jfail(&jp, "nothing after the document");
	}
	if (st != RT_OK)
		rt_jfree(out);
	return st;
}

rt_status rt_jload(const char *path, rt_jval *out, rt_error *err)
{
	char *text;
	size_t size;
	rt_status st = rt_read_file(path, &text, &size, err);
	memset(out, 0, sizeof *out);
	if (st != RT_OK)
		return st;
	if (strlen(text) != size)
		st = rt_fail(err, RT_ERR_INPUT, "%s: expected JSON text, got a NUL byte", path);
	else
		st = rt_jparse(text, path, out, err);
	free(text);
	return st;
}

void rt_jfree(rt_jval *v)
{
	for (int i = 0; i < v->n; i++)
		rt_jfree(&v->items[i]);
	free(v->items);
	free(v->str);
	free(v->key);
	memset(v, 0, sizeof *v);
}

const rt_jval *rt_jget(const rt_jval *v, const char *path)
{
	const char *dot = strchr(path, '.');
	size_t len = dot ? (size_t)(dot - path) : strlen(path);
	if (!v || v->type != RT_JOBJECT)
		return NULL;
	for (int i = 0; i < v->n; i++)
		if (strlen(v->items[i].key) == len && !strncmp(v->items[i].key, path, len))
			return dot ? rt_jget(&v->items[i], dot + 1) : &v->items[i];
	return NULL;
}

/* The member at path, of type t (named `what` in the error). */
static rt_status typed(const rt_jval *v, const char *path, const char *file, rt_jtype t,
		       const char *what, const rt_jval **out, rt_error *err)
{
	*out = rt_jget(v, path);
	if (!*out)
		return rt_fail(err, RT_ERR_INPUT, "%s: expected a member '%s' (%s), found none", file,
			       path, what);
	if ((*out)->type != t)
		return rt_fail(err, RT_ERR_INPUT, "%s:%d: '%s': expected %s", file, (*out)->line, path,
			       what);
	return RT_OK;
}

rt_status rt_jstring(const rt_jval *v, const char *path, const char *file, const char **out,
		     rt_error *err)
{
	const rt_jval *m;
	rt_status st = typed(v, path, file, RT_JSTRING, "a string", &m, err);
	*out = st == RT_OK ? m->str : NULL;
	return st;
}

rt_status rt_jnumber(const rt_jval *v, const char *path, const char *file, double *out,
		     rt_error *err)
{
	const rt_jval *m;
	rt_status st = typed(v, path, file, RT_JNUMBER, "a number", &m, err);
	*out = st == RT_OK ? m->num : 0;
	return st;
}

rt_status rt_jarray(const rt_jval *v, const char *path, const char *file, const rt_jval **out,
		    rt_error *err)
{
	return typed(v, path, file, RT_JARRAY, "an array", out, err);
}
