/* svm_data.c: reading a training or test set for kind `svm`: LIBSVM's
 * sparse format, or CSV (optionally .gz) with a label column, into the
 * dense rows the solvers use (svm_data). One loader for the spec, the
 * svm-train/svm-predict commands and the benchmark. */
#include <stdio.h>
#include <string.h>

#include "data.h"
#include "svm_impl.h"

static int ends_with(const char *s, const char *suffix)
{
	size_t n = strlen(s), k = strlen(suffix);
	return n >= k && !strcmp(s + n - k, suffix);
}

svm_load_options svm_load_defaults(void)
{
	svm_load_options o;
	memset(&o, 0, sizeof o);
	return o;
}

rt_status svm_data_load(const char *path, const svm_load_options *o, svm_data *d, rt_error *err)
{
	rt_table t;
	rt_status st;
	memset(&t, 0, sizeof t);
	memset(d, 0, sizeof *d);
	if (ends_with(path, ".csv") || ends_with(path, ".csv.gz")) {
		rt_csv_options c = rt_csv_defaults();
		c.label = o->label;
		st = rt_csv_load(path, &c, &t, err);
		if (st == RT_OK && t.classes.n > 0)
			for (size_t r = 0; r < t.nrows; r++)   /* string classes: 1, 2, ... */
				t.label[r] += 1;
	} else {
		st = rt_libsvm_load(path, o->nfeat, &t, err);
	}
	if (st == RT_OK)
		st = svm_data_from_table(&t, d, err);
	rt_table_free(&t);
	return st;
}
