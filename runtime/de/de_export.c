/* de_export.c: kind `de`'s deployable artefacts (rt_kind.export_result):
 * the best vector of every problem of a run, from its result.json, as
 * best.csv and best.json. Values are the run's floats, written with 9
 * significant digits (they read back as the same floats). */
#include <stdio.h>
#include <string.h>

#include "de.h"
#include "json_read.h"
#include "log.h"
#include "out.h"

/* One result's x into both documents; checks its length against dim. */
static rt_status one_result(const rt_jval *r, const char *path, int dim, rt_buf *csv, rt_json *j,
			    rt_error *err)
{
	const rt_jval *x;
	double best, problem;
	rt_status st;
	if ((st = rt_jnumber(r, "problem", path, &problem, err)) ||
	    (st = rt_jnumber(r, "best", path, &best, err)) ||
	    (st = rt_jarray(r, "x", path, &x, err)))
		return st;
	if (x->n != dim)
		return rt_fail(err, RT_ERR_INPUT, "%s:%d: results[%.0f].x: expected %d values (dim), "
			       "got %d", path, x->line, problem, dim, x->n);
	rt_buf_printf(csv, "%.0f,%.9g", problem, best);
	rt_json_begin_object(j, NULL);
	rt_json_int(j, "problem", (long long)problem);
	rt_json_double(j, "best", best);
	rt_json_begin_array(j, "x");
	for (int k = 0; k < dim; k++) {
		if (x->items[k].type != RT_JNUMBER)
			return rt_fail(err, RT_ERR_INPUT, "%s:%d: results[%.0f].x: expected numbers",
				       path, x->items[k].line, problem);
		rt_buf_printf(csv, ",%.9g", x->items[k].num);
		rt_json_double(j, NULL, x->items[k].num);
	}
	rt_json_end_array(j);
	rt_json_end_object(j);
	rt_buf_puts(csv, "\n");
	return RT_OK;
}

rt_status de_export_result(const rt_jval *doc, const char *path, const rt_options *opt,
			   const char *dir, rt_error *err)
{
	const rt_jval *res;
	const char *name, *fn;
	double dim;
	char file[RT_PATH_MAX];
	rt_buf csv = {0};
	rt_json j;
	rt_status st;
	(void)opt;
	memset(&j, 0, sizeof j);
	if ((st = rt_jstring(doc, "name", path, &name, err)) ||
	    (st = rt_jstring(doc, "function", path, &fn, err)) ||
	    (st = rt_jnumber(doc, "dim", path, &dim, err)) ||
	    (st = rt_jarray(doc, "results", path, &res, err)))
		return st;
	rt_buf_puts(&csv, "problem,best");
	for (int k = 0; k < (int)dim; k++)
		rt_buf_printf(&csv, ",x%d", k + 1);
	rt_buf_puts(&csv, "\n");
	rt_json_begin_object(&j, NULL);
	rt_json_string(&j, "kind", "de");
	rt_json_string(&j, "name", name);
	rt_json_string(&j, "function", fn);
	rt_json_int(&j, "dim", (long long)dim);
	rt_json_begin_array(&j, "best");
	for (int i = 0; i < res->n && st == RT_OK; i++)
		st = one_result(&res->items[i], path, (int)dim, &csv, &j, err);
	rt_json_end_array(&j);
	rt_json_end_object(&j);
	if (st == RT_OK && csv.failed)
		st = rt_fail(err, RT_ERR_SYSTEM, "out of memory formatting best.csv");
	if (st == RT_OK && (st = rt_format(file, sizeof file, err, "%s/best.csv", dir)) == RT_OK &&
	    (st = rt_write_file_atomic(file, csv.data, csv.len, err)) == RT_OK &&
	    (st = rt_format(file, sizeof file, err, "%s/best.json", dir)) == RT_OK)
		st = rt_json_write(&j, file, err);
	if (st == RT_OK)
		rt_info("de: wrote %s/best.csv and best.json (%d problem(s), dim %d)", dir, res->n,
			(int)dim);
	rt_buf_free(&csv);
	rt_buf_free(&j.buf);
	return st;
}
