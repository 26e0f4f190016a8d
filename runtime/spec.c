/* spec.c: reading problem specs (INI, via inih) and typed, checked access to
 * their values. See spec.h for the model: read everything, consume with
 * getters, report leftovers as unknown keys. */
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <ini.h>

#include "data_mem.h"
#include "gen.h"
#include "spec.h"

/* ---- reading ------------------------------------------------------------ */

/* State shared by the line reader and the handler: inih (as Debian builds it)
 * does not pass line numbers to the handler, so the reader counts lines. */
typedef struct spec_reader {
	rt_spec *spec;
	rt_error *err;
	rt_status status;
	FILE *file;              /* reading a file, or ... */
	const char *text;        /* ... reading text in memory */
	size_t pos;
	int line;                /* number of the line last handed to inih */
	int line_indented;       /* it began with white space (a continuation) */
	int too_long_line;       /* first line longer than inih's buffer, or 0 */
	rt_spec_entry *last;     /* entry the previous handler call set */
	int error_line;          /* line of the handler's last call */
} spec_reader;

static char *spec_read_line(char *str, int num, void *stream)
{
	spec_reader *r = stream;
	int n = 0, c, overflow = 0;
	if (r->file) {
		c = fgetc(r->file);
		if (c == EOF)
			return NULL;
		while (c != EOF) {
			if (n < num - 2)
				str[n++] = (char)c;
			else if (c != '\n' && c != '\r')
				overflow = 1;
			if (c == '\n')
				break;
			c = fgetc(r->file);
		}
	} else {
		if (!r->text[r->pos])
			return NULL;
		while ((c = (unsigned char)r->text[r->pos]) != 0) {
			r->pos++;
			if (n < num - 2)
				str[n++] = (char)c;
			else if (c != '\n' && c != '\r')
				overflow = 1;
			if (c == '\n')
				break;
		}
	}
	str[n] = 0;
	r->line++;
	r->line_indented = n > 0 && (str[0] == ' ' || str[0] == '\t');
	if (overflow && !r->too_long_line)
		r->too_long_line = r->line;
	return str;
}

static rt_status spec_add(rt_spec *spec, const char *section, const char *key,
			  const char *value, int line, rt_error *err)
{
	rt_spec_entry *e;
	if (spec->nentries == spec->capacity) {
		int cap = spec->capacity ? spec->capacity * 2 : 32;
		rt_spec_entry *p = rt_realloc(spec->entries, (size_t)cap * sizeof *p, err);
		if (!p)
			return RT_ERR_SYSTEM;
		spec->entries = p;
		spec->capacity = cap;
	}
	e = &spec->entries[spec->nentries];
	memset(e, 0, sizeof *e);
	snprintf(e->section, sizeof e->section, "%s", section);
	snprintf(e->key, sizeof e->key, "%s", key);
	e->line = line;
	e->value = rt_strdup(value, err);
	if (!e->value)
		return RT_ERR_SYSTEM;
	spec->nentries++;
	return RT_OK;
}

static int spec_handler(void *user, const char *section, const char *key, const char *value)
{
	spec_reader *r = user;
	rt_spec *spec = r->spec;
	rt_spec_entry *e;
	if (r->status != RT_OK)
		return 1;
	r->error_line = r->line;   /* where an error found below is */
	if (strlen(section) >= RT_SPEC_NAME_MAX || strlen(key) >= RT_SPEC_NAME_MAX) {
		r->status = rt_fail(r->err, RT_ERR_INPUT, "%s:%d: name too long (at most %d characters)",
				    spec->path, r->line, RT_SPEC_NAME_MAX - 1);
		return 1;
	}
	if (!*section) {
		r->status = rt_fail(r->err, RT_ERR_INPUT,
				    "%s:%d: '%s' is outside any section: expected a [section] line first",
				    spec->path, r->line, key);
		return 1;
	}
	e = rt_spec_find(spec, section, key);
	if (e && e == r->last && r->line_indented) {
		/* A continuation line (indented): append to the previous value. */
		size_t a = strlen(e->value), b = strlen(value);
		char *v = rt_realloc(e->value, a + b + 2, r->err);
		if (!v) {
			r->status = RT_ERR_SYSTEM;
			return 1;
		}
		v[a] = '\n';
		memcpy(v + a + 1, value, b + 1);
		e->value = v;
		return 1;
	}
	if (e) {
		r->status = rt_fail(r->err, RT_ERR_INPUT,
				    "%s:%d: [%s] %s is set twice (first at line %d)",
				    spec->path, r->line, section, key, e->line);
		return 1;
	}
	r->status = spec_add(spec, section, key, value, r->line, r->err);
	if (r->status == RT_OK)
		r->last = &spec->entries[spec->nentries - 1];
	return 1;
}

static void spec_set_path(rt_spec *spec, const char *path)
{
	const char *slash = strrchr(path, '/');
	snprintf(spec->path, sizeof spec->path, "%s", path);
	if (slash)
		snprintf(spec->dir, sizeof spec->dir, "%.*s", (int)(slash - path), path);
	else
		snprintf(spec->dir, sizeof spec->dir, ".");
	if (!spec->dir[0])
		snprintf(spec->dir, sizeof spec->dir, "/");
}

static rt_status spec_parse(rt_spec *spec, spec_reader *r, rt_error *err)
{
	int bad_line = ini_parse_stream(spec_read_line, r, spec_handler, r);
	/* The first problem in the file wins: a syntax error before the line
	 * where the handler failed is reported instead. */
	if (r->status != RT_OK && !(bad_line > 0 && bad_line < r->error_line))
		return r->status;
	if (r->too_long_line)
		return rt_fail(err, RT_ERR_INPUT,
			       "%s:%d: line too long (at most %d characters; split a long value "
			       "over indented continuation lines)",
			       spec->path, r->too_long_line, INI_MAX_LINE - 2);
	if (bad_line > 0)
		return rt_fail(err, RT_ERR_INPUT,
			       "%s:%d: syntax error: expected '[section]', 'key = value' or a "
			       "comment starting with ';' or '#'",
			       spec->path, bad_line);
	if (bad_line < 0)
		return rt_fail(err, RT_ERR_SYSTEM, "%s: could not parse (inih error %d)",
			       spec->path, bad_line);
	return RT_OK;
}

rt_status rt_spec_load(rt_spec *spec, const char *path, rt_error *err)
{
	spec_reader r = {0};
	rt_status st;
	memset(spec, 0, sizeof *spec);
	spec_set_path(spec, path);
	r.file = fopen(path, "r");
	if (!r.file)
		return rt_fail(err, RT_ERR_INPUT, "%s: cannot open spec: %s", path, strerror(errno));
	r.spec = spec;
	r.err = err;
	st = spec_parse(spec, &r, err);
	fclose(r.file);
	if (st != RT_OK)
		rt_spec_free(spec);
	return st;
}

rt_status rt_spec_load_text(rt_spec *spec, const char *name, const char *text, rt_error *err)
{
	spec_reader r = {0};
	rt_status st;
	memset(spec, 0, sizeof *spec);
	spec_set_path(spec, name);
	r.text = text;
	r.spec = spec;
	r.err = err;
	st = spec_parse(spec, &r, err);
	if (st != RT_OK)
		rt_spec_free(spec);
	return st;
}

void rt_spec_free(rt_spec *spec)
{
	for (int i = 0; i < spec->nentries; i++)
		free(spec->entries[i].value);
	free(spec->entries);
	spec->entries = NULL;
	spec->nentries = spec->capacity = 0;
}

/* ---- overrides and lookup ------------------------------------------------ */

rt_spec_entry *rt_spec_find(rt_spec *spec, const char *section, const char *key)
{
	for (int i = 0; i < spec->nentries; i++)
		if (!strcmp(spec->entries[i].section, section) && !strcmp(spec->entries[i].key, key))
			return &spec->entries[i];
	return NULL;
}

int rt_spec_has_section(const rt_spec *spec, const char *section)
{
	for (int i = 0; i < spec->nentries; i++)
		if (!strcmp(spec->entries[i].section, section))
			return 1;
	return 0;
}

rt_status rt_spec_set(rt_spec *spec, const char *section, const char *key, const char *value,
		      rt_error *err)
{
	rt_spec_entry *e = rt_spec_find(spec, section, key);
	char *v;
	if (strlen(section) >= RT_SPEC_NAME_MAX || strlen(key) >= RT_SPEC_NAME_MAX || !*section ||
	    !*key)
		return rt_fail(err, RT_ERR_INPUT, "command line: bad key '%s.%s'", section, key);
	if (!e)
		return spec_add(spec, section, key, value, 0, err);
	v = rt_strdup(value, err);
	if (!v)
		return RT_ERR_SYSTEM;
	free(e->value);
	e->value = v;
	e->line = 0;
	return RT_OK;
}

rt_status rt_spec_set_assignment(rt_spec *spec, const char *assignment, rt_error *err)
{
	const char *dot = strchr(assignment, '.'), *eq = strchr(assignment, '=');
	char section[RT_SPEC_NAME_MAX], key[RT_SPEC_NAME_MAX];
	if (!dot || !eq || dot > eq || dot == assignment || eq == dot + 1)
		return rt_fail(err, RT_ERR_INPUT,
			       "command line: --set expects section.key=value, got '%s'", assignment);
	if (dot - assignment >= RT_SPEC_NAME_MAX || eq - dot - 1 >= RT_SPEC_NAME_MAX)
		return rt_fail(err, RT_ERR_INPUT, "command line: name too long in '%s'", assignment);
	snprintf(section, sizeof section, "%.*s", (int)(dot - assignment), assignment);
	snprintf(key, sizeof key, "%.*s", (int)(eq - dot - 1), dot + 1);
	return rt_spec_set(spec, section, key, eq + 1, err);
}

const char *rt_spec_where(const rt_spec *spec, const rt_spec_entry *e, char *buf, int size)
{
	if (e->line > 0)
		snprintf(buf, (size_t)size, "%s:%d", spec->path, e->line);
	else
		snprintf(buf, (size_t)size, "command line (--set %s.%s)", e->section, e->key);
	return buf;
}

const char *rt_spec_key_where(rt_spec *spec, const char *section, const char *key, char *buf,
			      int size)
{
	rt_spec_entry *e = rt_spec_find(spec, section, key);
	if (e)
		return rt_spec_where(spec, e, buf, size);
	snprintf(buf, (size_t)size, "%s", spec->path);
	return buf;
}

/* ---- typed getters --------------------------------------------------------- */

/* Finds the entry and marks it used; NULL when absent. */
static rt_spec_entry *spec_take(rt_spec *spec, const char *section, const char *key)
{
	rt_spec_entry *e = rt_spec_find(spec, section, key);
	int i;
	for (i = 0; i < spec->nasked && strcmp(spec->asked[i], section); i++)
		;
	if (i == spec->nasked && i < (int)(sizeof spec->asked / sizeof spec->asked[0]))
		snprintf(spec->asked[spec->nasked++], RT_SPEC_NAME_MAX, "%s", section);
	if (e)
		e->used = 1;
	return e;
}

static rt_status spec_bad(const rt_spec *spec, const rt_spec_entry *e, rt_error *err,
			  const char *expected)
{
	char where[RT_PATH_MAX + 64];
	return rt_fail(err, RT_ERR_INPUT, "%s: [%s] %s: expected %s, got '%s'",
		       rt_spec_where(spec, e, where, sizeof where), e->section, e->key, expected,
		       e->value);
}

static rt_status spec_missing(const rt_spec *spec, const char *section, const char *key,
			      rt_error *err)
{
	return rt_fail(err, RT_ERR_INPUT, "%s: missing required key '%s' in section [%s]",
		       spec->path, key, section);
}

rt_status rt_spec_int(rt_spec *spec, const char *section, const char *key, long def, long min,
		      long max, long *out, rt_error *err)
{
	rt_spec_entry *e = spec_take(spec, section, key);
	char expected[128], *end;
	long v;
	*out = def;
	if (!e)
		return RT_OK;
	errno = 0;
	v = strtol(e->value, &end, 10);
	while (isspace((unsigned char)*end))
		end++;
	snprintf(expected, sizeof expected, "an integer in [%ld, %ld]", min, max);
	if (end == e->value || *end || errno || v < min || v > max)
		return spec_bad(spec, e, err, expected);
	*out = v;
	return RT_OK;
}

rt_status rt_spec_u64(rt_spec *spec, const char *section, const char *key, uint64_t def,
		      uint64_t *out, rt_error *err)
{
	rt_spec_entry *e = spec_take(spec, section, key);
	char *end;
	unsigned long long v;
	*out = def;
	if (!e)
		return RT_OK;
	errno = 0;
	v = strtoull(e->value, &end, 0);
	while (isspace((unsigned char)*end))
		end++;
	if (end == e->value || *end || errno || e->value[0] == '-')
		return spec_bad(spec, e, err, "a non-negative 64-bit integer");
	*out = v;
	return RT_OK;
}

rt_status rt_spec_double(rt_spec *spec, const char *section, const char *key, double def,
			 double min, double max, double *out, rt_error *err)
{
	rt_spec_entry *e = spec_take(spec, section, key);
	char expected[128], *end;
	double v;
	*out = def;
	if (!e)
		return RT_OK;
	errno = 0;
	v = strtod(e->value, &end);
	while (isspace((unsigned char)*end))
		end++;
	snprintf(expected, sizeof expected, "a number in [%g, %g]", min, max);
	if (end == e->value || *end || errno || !isfinite(v) || v < min || v > max)
		return spec_bad(spec, e, err, expected);
	*out = v;
	return RT_OK;
}

rt_status rt_spec_bool(rt_spec *spec, const char *section, const char *key, int def, int *out,
		       rt_error *err)
{
	static const char *const yes[] = {"1", "true", "yes", "on", NULL};
	static const char *const no[] = {"0", "false", "no", "off", NULL};
	rt_spec_entry *e = spec_take(spec, section, key);
	*out = def;
	if (!e)
		return RT_OK;
	for (int i = 0; yes[i]; i++)
		if (!strcasecmp(e->value, yes[i]))
			return (*out = 1, RT_OK);
	for (int i = 0; no[i]; i++)
		if (!strcasecmp(e->value, no[i]))
			return (*out = 0, RT_OK);
	return spec_bad(spec, e, err, "true or false");
}

rt_status rt_spec_string(rt_spec *spec, const char *section, const char *key, const char *def,
			 const char **out, rt_error *err)
{
	rt_spec_entry *e = spec_take(spec, section, key);
	*out = def;
	if (!e)
		return def ? RT_OK : spec_missing(spec, section, key, err);
	if (!e->value[0] && !def)
		return spec_bad(spec, e, err, "a non-empty value");
	*out = e->value;
	return RT_OK;
}

rt_status rt_spec_enum(rt_spec *spec, const char *section, const char *key,
		       const char *const *names, int def, int *out, rt_error *err)
{
	rt_spec_entry *e = spec_take(spec, section, key);
	char expected[512] = "one of";
	*out = def;
	if (!e)
		return RT_OK;
	for (int i = 0; names[i]; i++) {
		if (!strcmp(e->value, names[i]))
			return (*out = i, RT_OK);
		size_t len = strlen(expected);
		snprintf(expected + len, sizeof expected - len, "%s %s", i ? "," : "", names[i]);
	}
	return spec_bad(spec, e, err, expected);
}

rt_status rt_spec_doubles(rt_spec *spec, const char *section, const char *key, double *out,
			  int *n, rt_error *err)
{
	rt_spec_entry *e = spec_take(spec, section, key);
	int cap = *n, count = 0;
	const char *p;
	*n = 0;
	if (!e)
		return RT_OK;
	p = e->value;
	for (;;) {
		char *end;
		double v;
		while (isspace((unsigned char)*p) || *p == ',')
			p++;
		if (!*p)
			break;
		errno = 0;
		v = strtod(p, &end);
		if (end == p || errno || !isfinite(v))
			return spec_bad(spec, e, err, "a list of numbers separated by commas or spaces");
		if (count == cap) {
			char expected[96];
			snprintf(expected, sizeof expected, "at most %d numbers", cap);
			return spec_bad(spec, e, err, expected);
		}
		out[count++] = v;
		p = end;
	}
	*n = count;
	return RT_OK;
}

rt_status rt_spec_check_unused(const rt_spec *spec, rt_error *err)
{
	for (int i = 0; i < spec->nentries; i++) {
		const rt_spec_entry *e = &spec->entries[i];
		char where[RT_PATH_MAX + 64];
		int known_section = 0;
		if (e->used)
			continue;
		for (int j = 0; j < spec->nasked; j++)
			if (!strcmp(spec->asked[j], e->section))
				known_section = 1;
		if (known_section)
			return rt_fail(err, RT_ERR_INPUT, "%s: unknown key '%s' in section [%s]",
				       rt_spec_where(spec, e, where, sizeof where), e->key, e->section);
		return rt_fail(err, RT_ERR_INPUT,
			       "%s: unknown section [%s] (or a key in it this kind does not use: '%s')",
			       rt_spec_where(spec, e, where, sizeof where), e->section, e->key);
	}
	return RT_OK;
}

/* ---- data files ------------------------------------------------------------- */

static int file_exists(const char *path)
{
	struct stat st;
	return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

/* Whether $EVOFORGE_NO_SHARED_DATA is set (to anything but "" or "0"): the
 * ../shared/data fallbacks are then skipped, as on a machine without them. */
static int no_shared_data(void)
{
	const char *v = getenv("EVOFORGE_NO_SHARED_DATA");
	return v && *v && strcmp(v, "0") != 0;
}

/* The places a relative data file NAME is looked for, in order, into tried;
 * returns how many, or -1 (err set) when a path is too long. */
static int data_places(const rt_spec *spec, const char *name, char tried[][RT_PATH_MAX],
		       rt_error *err)
{
	const char *env = getenv("EVOFORGE_DATA");
	int n = 0;
	if (rt_format(tried[n++], RT_PATH_MAX, err, "%s/%s", spec->dir, name) ||
	    (env && *env && rt_format(tried[n++], RT_PATH_MAX, err, "%s/%s", env, name)) ||
	    rt_format(tried[n++], RT_PATH_MAX, err, "%s/../data/%s", spec->dir, name) ||
	    rt_format(tried[n++], RT_PATH_MAX, err, "data/%s", name))
		return -1;
	if (no_shared_data())
		return n;
	if (rt_format(tried[n++], RT_PATH_MAX, err, "%s/../../shared/data/%s", spec->dir, name) ||
	    rt_format(tried[n++], RT_PATH_MAX, err, "../shared/data/%s", name))
		return -1;
	return n;
}

/* The error for a data file found nowhere: every place tried, which datasets
 * ship with evoforge and how to point it at the others. */
static rt_status data_not_found(const rt_spec *spec, const char *name, char tried[][RT_PATH_MAX],
				int ntried, rt_error *err)
{
	rt_fail(err, RT_ERR_INPUT, "%s: data file '%s' not found; looked in:", spec->path, name);
	if (!err)
		return RT_ERR_INPUT;
	for (int i = 0; i < ntried; i++) {
		size_t len = strlen(err->msg);
		snprintf(err->msg + len, sizeof err->msg - len, "\n  %s", tried[i]);
	}
	size_t len = strlen(err->msg);
	snprintf(err->msg + len, sizeof err->msg - len,
		 "%s\n(evoforge ships only data/uci/{shuttle,sonar,letter,satellite}.csv; other "
		 "datasets (KDD Cup, a9a, TSPLIB) are not shipped: set EVOFORGE_DATA to the folder "
		 "that holds '%s')",
		 no_shared_data() ? "\n  (../shared/data not searched: EVOFORGE_NO_SHARED_DATA is set)"
				  : "",
		 name);
	return RT_ERR_INPUT;
}

rt_status rt_spec_data_path(const rt_spec *spec, const char *name, char *out, int size,
			    rt_error *err)
{
	char tried[6][RT_PATH_MAX];
	int ntried;
	if (rt_mem_find(name))   /* the C API's in-memory table (data_mem.h) */
		return rt_format(out, (size_t)size, err, "%s", name);
	if (name[0] == '/') {
		if (file_exists(name))
			return rt_format(out, (size_t)size, err, "%s", name);
		return rt_fail(err, RT_ERR_INPUT, "%s: data file '%s' not found", spec->path, name);
	}
	if ((ntried = data_places(spec, name, tried, err)) < 0)
		return RT_ERR_INPUT;
	for (int i = 0; i < ntried; i++)
		if (file_exists(tried[i]))
			return rt_format(out, (size_t)size, err, "%s", tried[i]);
	if (rt_mem_is_name(name)) {   /* no such table, and no such file either */
		char list[256];
		return rt_fail(err, RT_ERR_INPUT, "%s: data '%s': no table '%s' in memory (expected "
			       "one given by evoforge_job_set_table; this job has: %s)", spec->path,
			       name, name + sizeof RT_MEM_PREFIX - 1, rt_mem_list(list, sizeof list));
	}
	return data_not_found(spec, name, tried, ntried, err);
}

rt_status rt_spec_load_named(rt_spec *spec, const char *name, rt_error *err)
{
	char path[RT_PATH_MAX];
	const gen_file *f;
	FILE *fp;
	if (strchr(name, '/') || strstr(name, ".ini"))
		return rt_spec_load(spec, name, err);
	if (rt_format(path, sizeof path, err, "problems/%s.ini", name))
		return err->status;
	if ((fp = fopen(path, "r")) != NULL) {
		fclose(fp);
		return rt_spec_load(spec, path, err);
	}
	if ((f = gen_embedded(path)) != NULL)
		return rt_spec_load_text(spec, path, f->text, err);
	return rt_fail(err, RT_ERR_INPUT, "no problem '%s' (no file %s, none built in)", name, path);
}
