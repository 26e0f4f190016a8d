/* export.c: `evoforge export` and `evoforge eval` (export.h). The core only
 * reads result.json's "kind" and hands the parsed document to that kind's
 * hooks; what a kind exports is its own business (runtime/KIND/). */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "export.h"
#include "log.h"
#include "out.h"

/* Loads result_path and finds its kind. */
static rt_status load_result(const char *result_path, rt_jval *doc, const rt_kind **kind,
			     rt_error *err)
{
	const char *name;
	rt_status st = rt_jload(result_path, doc, err);
	if (st != RT_OK)
		return st;
	if (doc->type != RT_JOBJECT || !rt_jget(doc, "kind")) {
		rt_jfree(doc);
		return rt_fail(err, RT_ERR_INPUT, "%s: expected an evoforge result.json (an object with "
			       "a \"kind\" member), got another JSON document", result_path);
	}
	if ((st = rt_jstring(doc, "kind", result_path, &name, err)) != RT_OK) {
		rt_jfree(doc);
		return st;
	}
	*kind = rt_kind_find(name);
	if (!*kind) {
		rt_fail(err, RT_ERR_INPUT, "%s:%d: \"kind\": expected one of gp, de, aco, mbp, svm, "
			"got '%s'", result_path, rt_jget(doc, "kind")->line, name);
		rt_jfree(doc);
		return RT_ERR_INPUT;
	}
	return RT_OK;
}

rt_status rt_export(const char *result_path, const rt_options *opt, const char *dir,
		    rt_error *err)
{
	rt_jval doc;
	const rt_kind *kind;
	rt_status st = load_result(result_path, &doc, &kind, err);
	if (st != RT_OK)
		return st;
	if (!kind->export_result)
		st = rt_fail(err, RT_ERR_UNSUPPORTED, "%s: kind '%s' has nothing to export",
			     result_path, kind->name);
	else if ((st = rt_mkdirs(dir, err)) == RT_OK)
		st = kind->export_result(&doc, result_path, opt, dir, err);
	rt_jfree(&doc);
	return st;
}

rt_status rt_eval(const char *result_path, const char *data, const char *out,
		  const rt_options *opt, rt_error *err)
{
	rt_jval doc;
	const rt_kind *kind;
	rt_status st = load_result(result_path, &doc, &kind, err);
	if (st != RT_OK)
		return st;
	if (!kind->eval_result)
		st = rt_fail(err, RT_ERR_UNSUPPORTED, "%s: `evoforge eval` does not support kind '%s' "
			     "(gp, svm and mbp only; see evoforge export)", result_path, kind->name);
	else
		st = kind->eval_result(&doc, result_path, data, out, opt, err);
	rt_jfree(&doc);
	return st;
}

void rt_export_ident(const char *problem, char *out, size_t size)
{
	size_t n = 0;
	if (size == 0)
		return;
	if (!isalpha((unsigned char)problem[0]) && problem[0] != '_' && size > 1)
		out[n++] = '_';
	for (const char *p = problem; *p && n + 1 < size; p++)
		out[n++] = isalnum((unsigned char)*p) ? *p : '_';
	out[n] = 0;
}

rt_status rt_export_sibling(const char *result_path, const char *name, char *out, size_t size,
			    rt_error *err)
{
	const char *slash = strrchr(result_path, '/');
	if (!slash)
		return rt_format(out, size, err, "%s", name);
	return rt_format(out, size, err, "%.*s/%s", (int)(slash - result_path), result_path, name);
}

rt_status rt_export_makefile(const char *dir, const char *id, rt_error *err)
{
	rt_buf mk = { 0 };
	rt_buf_printf(&mk, "# Makefile: builds %s-eval (written by evoforge export; no -ffast-math:\n"
		      "# it would change the results).\nCC = cc\nCFLAGS = -std=c99 -O2 -Wall\n\n"
		      "%s-eval: %s-eval.c %s.c %s.h\n\t$(CC) $(CFLAGS) -o $@ %s-eval.c %s.c -lm\n",
		      id, id, id, id, id, id, id);
	rt_status st = rt_write_buf_atomic(dir, "Makefile", &mk, err);
	rt_buf_free(&mk);
	return st;
}

rt_status rt_export_cc(const char *dir, const char *exe, const char *sources, int *built,
		       rt_error *err)
{
	char cmd[RT_PATH_MAX + 512], log[RT_PATH_MAX + 64];
	char *text = NULL;
	size_t size;
	int rc;
	*built = 0;
	if (strchr(dir, '\'') || system("command -v cc >/dev/null 2>&1") != 0) {
		rt_info("export: no C compiler (cc) here, or an odd folder name: %s/%s not built", dir,
			exe);
		return RT_OK;
	}
	if (rt_format(log, sizeof log, err, "%s/.%s.log", dir, exe) ||
	    rt_format(cmd, sizeof cmd, err, "cd '%s' && cc -std=c99 -O2 -Wall -o %s %s -lm "
		      ">.%s.log 2>&1", dir, exe, sources, exe))
		return RT_ERR_INPUT;
	rc = system(cmd);
	if (rc != 0) {
		rt_read_file(log, &text, &size, NULL);
		rt_fail(err, RT_ERR_INTERNAL, "export: compiling %s/%s failed (a bug in what evoforge "
			"wrote):\n%s", dir, exe, text ? text : "(no compiler output)");
		free(text);
		remove(log);
		return RT_ERR_INTERNAL;
	}
	remove(log);
	*built = 1;
	return RT_OK;
}
