/* aco_export.c: kind `aco`'s deployable artefact (rt_kind.export_result):
 * the run's best tour (best.tour beside result.json) as NAME.tour in TSPLIB
 * format, its length recomputed on the instance, when the instance file is
 * readable, and checked against the run's best_length. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "aco.h"
#include "data.h"
#include "export.h"
#include "json_read.h"
#include "log.h"

/* The tour's length on the run's instance; *checked = 0 when it has no file. */
static rt_status check_length(const rt_jval *doc, const char *path, const int *tour, int n,
			      double best, int *checked, rt_error *err)
{
	const rt_jval *data = rt_jget(doc, "data");
	rt_tsp t;
	long len;
	rt_status st;
	*checked = 0;
	if (!data || data->type != RT_JSTRING || !data->str[0])
		return RT_OK;   /* generated cities: nothing to read back */
	memset(&t, 0, sizeof t);
	if ((st = rt_tsp_load(data->str, &t, err)) != RT_OK) {
		rt_error_prefix(err, "%s: the run's instance", path);
		return st;
	}
	if (t.n != n)
		st = rt_fail(err, RT_ERR_INPUT, "%s: the tour has %d cities, the instance %s %d", path,
			     n, data->str, t.n);
	else if ((len = rt_tsp_tour_length(&t, tour)) != (long)best)
		st = rt_fail(err, RT_ERR_INPUT, "%s: the tour's length on %s is %ld, the run's "
			     "best_length %.0f", path, data->str, len, best);
	else
		*checked = 1;
	rt_tsp_free(&t);
	return st;
}

rt_status aco_export_result(const rt_jval *doc, const char *path, const rt_options *opt,
			    const char *dir, rt_error *err)
{
	const char *name, *tour_file;
	double best, cities;
	char src[RT_PATH_MAX], dst[RT_PATH_MAX], ident[128], comment[256];
	int *tour = NULL, n = 0, checked = 0;
	rt_status st;
	(void)opt;
	if ((st = rt_jstring(doc, "instance", path, &name, err)) ||
	    (st = rt_jstring(doc, "tour_file", path, &tour_file, err)) ||
	    (st = rt_jnumber(doc, "best_length", path, &best, err)) ||
	    (st = rt_jnumber(doc, "cities", path, &cities, err)) ||
	    (st = rt_export_sibling(path, tour_file, src, sizeof src, err)))
		return st;
	rt_export_ident(name, ident, sizeof ident);
	if ((st = rt_tsp_tour_read(src, (int)cities, &tour, &n, err)) == RT_OK &&
	    (st = check_length(doc, path, tour, n, best, &checked, err)) == RT_OK &&
	    (st = rt_format(dst, sizeof dst, err, "%s/%s.tour", dir, ident)) == RT_OK) {
		snprintf(comment, sizeof comment, "Length %.0f, exported by evoforge from %s", best,
			 path);
		st = rt_tsp_tour_write(dst, name, comment, n, tour, err);
	}
	if (st == RT_OK)
		rt_info("aco: wrote %s (%d cities, length %.0f%s)", dst, n, best,
			checked ? ", recomputed on the instance" : "; generated instance, not rechecked");
	free(tour);
	return st;
}
