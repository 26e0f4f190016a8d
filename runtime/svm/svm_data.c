/* svm_data.c: reading a training or test set for kind `svm`: LIBSVM's
 * sparse format, or CSV (optionally .gz, with or without a header) with a
 * label column, into the dense or sparse rows the solvers use (svm_data:
 * LIBSVM files are read sparse, then densified unless the storage rule
 * keeps them sparse). One loader
 * for the spec, the svm-train/svm-predict commands and the benchmark.
 *
 * Why a "prep" (svm_prep): a test set must be read as the training set was:
 * its string columns one-hot encoded over the training set's strings (not
 * its own, which come in another order or miss some), its string labels
 * numbered as the training set's, the positive class resolved once, and
 * every feature scaled with the training set's minimum and maximum (as
 * `svm-scale -s` then `svm-scale -r` do). The first load fits the prep; the
 * later ones apply it.
 *
 * Scaling follows svm-scale exactly: v = min gives lower, v = max gives
 * upper, anything else lower + (upper - lower) (v - min) / (max - min) in
 * double, and a feature constant on the training set becomes 0 (svm-scale
 * leaves it out of its sparse output). */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <zlib.h>

#include "data.h"
#include "data_mem.h"
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

/* ---- categories: copies, lookups ------------------------------------------ */

static void cats_free(rt_categories *c)
{
	for (int i = 0; c->names && i < c->n; i++)
		free(c->names[i]);
	free(c->names);
	memset(c, 0, sizeof *c);
}

static rt_status cats_copy(rt_categories *dst, const rt_categories *src, rt_error *err)
{
	memset(dst, 0, sizeof *dst);
	if (src->n == 0)
		return RT_OK;
	if (!(dst->names = rt_calloc((size_t)src->n, sizeof *dst->names, err)))
		return RT_ERR_SYSTEM;
	dst->n = src->n;
	for (int i = 0; i < src->n; i++)
		if (!(dst->names[i] = rt_strdup(src->names[i], err))) {
			cats_free(dst);
			return RT_ERR_SYSTEM;
		}
	return RT_OK;
}

typedef struct named { const char *name; int idx; } named;

static int cmp_named(const void *a, const void *b)
{
	return strcmp(((const named *)a)->name, ((const named *)b)->name);
}

/* map[i] = the index of b's string i among a's, or -1 (a sorted look-up, so
 * a column of thousands of strings costs n log n, not n^2). */
static rt_status cats_map(const rt_categories *a, const rt_categories *b, int *map, rt_error *err)
{
	named *sorted = rt_malloc((size_t)a->n * sizeof *sorted + 1, err);
	if (!sorted)
		return RT_ERR_SYSTEM;
	for (int i = 0; i < a->n; i++)
		sorted[i] = (named){ a->names[i], i };
	qsort(sorted, (size_t)a->n, sizeof *sorted, cmp_named);
	for (int i = 0; i < b->n; i++) {
		named key = { b->names[i], 0 };
		named *hit = a->n ? bsearch(&key, sorted, (size_t)a->n, sizeof *sorted, cmp_named) : NULL;
		map[i] = hit ? hit->idx : -1;
	}
	free(sorted);
	return RT_OK;
}

static void prep_free_columns(svm_prep *p)
{
	for (int c = 0; p->cats && c < p->ncols; c++)
		cats_free(&p->cats[c]);
	free(p->cats);
	p->cats = NULL;
	p->ncols = 0;
}

void svm_prep_free(svm_prep *p)
{
	prep_free_columns(p);
	cats_free(&p->classes);
	free(p->scaling.min);
	free(p->scaling.max);
	memset(p, 0, sizeof *p);
}

/* Where an option came from, for messages: "spec:line: data.key", or the key. */
static const char *at(const char *where, const char *key)
{
	return where[0] ? where : key;
}

/* ---- labels: the label column, class numbers, the positive class ---------- */

/* The label column (0-based, among all of t's columns) that o->label names. */
static rt_status pick_label(const char *path, const rt_table *t, const svm_load_options *o,
			    int header, int *lab, rt_error *err)
{
	const char *s = o->label;
	char *end;
	long v;
	if (t->ncols < 2)
		return rt_fail(err, RT_ERR_INPUT, "%s: expected a label column and at least one "
			       "feature, got %d column", path, t->ncols);
	if (!s || !*s || !strcmp(s, "last"))
		return (*lab = t->ncols - 1, RT_OK);
	if (!strcmp(s, "first"))
		return (*lab = 0, RT_OK);
	v = strtol(s, &end, 10);
	if (end != s && !*end && v >= 1 && v <= t->ncols)
		return (*lab = (int)v - 1, RT_OK);
	for (int c = 0; header && (end == s || *end) && c < t->ncols; c++)
		if (!strcmp(t->colnames[c], s))
			return (*lab = c, RT_OK);
	return rt_fail(err, RT_ERR_INPUT, "%s: expected a column number from 1 to %d, first, last%s, "
		       "got '%s' (%s has %d columns%s)", at(o->label_at, "label"), t->ncols,
		       header ? " or a name in the header" : "", s, path, t->ncols,
		       header ? "" : " and no header");
}

/* Up to 8 of c's names, comma-separated, for messages. */
static const char *list_names(const rt_categories *c, char *buf, size_t size)
{
	size_t len = 0;
	buf[0] = 0;
	for (int i = 0; i < c->n && i < 8 && len < size; i++)
		len += (size_t)snprintf(buf + len, size - len, "%s%s", i ? ", " : "", c->names[i]);
	if (c->n > 8 && len < size)
		snprintf(buf + len, size - len, ", ... (%d in all)", c->n);
	return buf;
}

/* Fixes p->positive from o->positive on the training set's string classes:
 * a class name, else a class number 1..n in order of first appearance. */
static rt_status resolve_positive(const char *path, const svm_load_options *o, svm_prep *p,
				  rt_error *err)
{
	char list[512], *end;
	long v = strtol(o->positive, &end, 10);
	const char *name = NULL;
	for (int k = 0; k < p->classes.n && !name; k++)
		if (!strcmp(p->classes.names[k], o->positive))
			name = p->classes.names[k];
	if (!name && end != o->positive && !*end && v >= 1 && v <= p->classes.n)
		name = p->classes.names[v - 1];
	if (!name || strlen(name) >= sizeof p->positive)
		return rt_fail(err, RT_ERR_INPUT, "%s: expected a class of %s (a name or a number from "
			       "1 to %d: %s), got '%s'", at(o->positive_at, "positive"), path,
			       p->classes.n, list_names(&p->classes, list, sizeof list), o->positive);
	snprintf(p->positive, sizeof p->positive, "%s", name);
	return RT_OK;
}

/* String labels (lv[r] indexes lc): the training set's class numbers 1, 2,
 * ... (a class the training set lacks gets a number after them), or +1 for
 * the positive class and -1 for the others. */
static rt_status string_labels(const char *path, const float *lv, const rt_categories *lc,
			       long n, const svm_load_options *o, svm_prep *p, double *y,
			       rt_error *err)
{
	int *map, next = p->classes.n;
	rt_status st = RT_OK;
	if (p->fitted && !p->classes.n)
		return rt_fail(err, RT_ERR_INPUT, "%s: expected numeric labels as in the training set, "
			       "got '%s'", path, lc->names[0]);
	if (!p->fitted && (st = cats_copy(&p->classes, lc, err)) == RT_OK && o->positive)
		st = resolve_positive(path, o, p, err);
	if (st != RT_OK || !(map = rt_malloc((size_t)lc->n * sizeof *map, err)))
		return st != RT_OK ? st : RT_ERR_SYSTEM;
	if ((st = cats_map(&p->classes, lc, map, err)) == RT_OK) {
		for (int k = 0; k < lc->n; k++)
			if (map[k] < 0)
				map[k] = next++;
		for (long r = 0; r < n; r++) {
			int k = (int)lv[r];
			y[r] = !p->positive[0] ? map[k] + 1
			       : map[k] < p->classes.n && !strcmp(p->classes.names[map[k]], p->positive)
			       ? 1 : -1;
		}
	}
	free(map);
	return st;
}

/* Numeric labels: kept, or +1 where equal to the positive number, else -1. */
static rt_status numeric_labels(const char *path, const float *lv, long n,
				const svm_load_options *o, svm_prep *p, double *y, rt_error *err)
{
	char *end;
	double pos = 0;
	long hits = 0;
	if (p->fitted && p->classes.n)
		return rt_fail(err, RT_ERR_INPUT, "%s: expected string labels as in the training set "
			       "(%s, ...), got numbers", path, p->classes.names[0]);
	if (!p->fitted && o->positive)
		snprintf(p->positive, sizeof p->positive, "%s", o->positive);
	if (p->positive[0]) {
		pos = strtod(p->positive, &end);
		if (end == p->positive || *end)
			return rt_fail(err, RT_ERR_INPUT, "%s: expected a number (the labels of %s are "
				       "numbers), got '%s'", at(o->positive_at, "positive"), path,
				       p->positive);
	}
	for (long r = 0; r < n; r++) {
		int is_pos = lv[r] == (float)pos;
		hits += is_pos;
		y[r] = !p->positive[0] ? lv[r] : is_pos ? 1 : -1;
	}
	if (p->positive[0] && !p->fitted && !hits)
		return rt_fail(err, RT_ERR_INPUT, "%s: expected a label of %s (the first is %g), got '%s'",
			       at(o->positive_at, "positive"), path, n ? (double)lv[0] : 0.0, p->positive);
	return RT_OK;
}

/* ---- CSV columns: reading, layout, encoding --------------------------------- */

/* Does a header line's field read as a number (so the line is data)? */
static int names_look_like_data(const rt_table *t)
{
	for (int c = 0; c < t->ncols; c++) {
		char *end;
		const char *s = t->colnames[c];
		strtod(s, &end);
		if (end != s && !*end)
			return 1;
	}
	return 0;
}

/* Every column as an input (the label is picked afterwards); with header
 * auto, a first line holding a number is read again as data. */
static rt_status read_table(const char *path, const svm_load_options *o, rt_table *t,
			    int *header, rt_error *err)
{
	rt_csv_options c = rt_csv_defaults();
	rt_status st;
	c.label = NULL;
	c.label_index = -2;
	c.header = o->header != SVM_HEADER_NO;
	*header = c.header;
	st = rt_csv_load(path, &c, t, err);
	if (st != RT_OK || o->header != SVM_HEADER_AUTO || !names_look_like_data(t))
		return st;
	rt_table_free(t);
	c.header = *header = 0;
	return rt_csv_load(path, &c, t, err);
}

/* Training set: keeps its column layout and strings. Later sets: checks
 * that their columns are the training set's. */
static rt_status fit_columns(const char *path, const rt_table *t, int lab,
			     const svm_load_options *o, svm_prep *p, rt_error *err)
{
	rt_status st = RT_OK;
	if (p->fitted) {
		if (t->ncols - 1 != p->ncols)
			return rt_fail(err, RT_ERR_INPUT, "%s: expected %d columns as the training set, "
				       "got %d", path, p->ncols + 1, t->ncols);
		for (int col = 0, c = 0; col < t->ncols; col++)
			if (col != lab && (t->cats[col].n > 0) != (p->cats[c++].n > 0))
				return rt_fail(err, RT_ERR_INPUT, "%s: column %d ('%s'): expected %s as in "
					       "the training set, got %s", path, col + 1,
					       t->colnames[col], p->cats[c - 1].n ? "strings" : "numbers",
					       t->cats[col].n ? "strings" : "numbers");
		return RT_OK;
	}
	if (!(p->cats = rt_calloc((size_t)t->ncols, sizeof *p->cats, err)))
		return RT_ERR_SYSTEM;
	p->ncols = t->ncols - 1;
	p->categorical = o->categorical;
	p->nfeat = 0;
	for (int col = 0, c = 0; col < t->ncols && st == RT_OK; col++) {
		if (col == lab)
			continue;
		st = cats_copy(&p->cats[c], &t->cats[col], err);
		p->nfeat += p->cats[c].n && p->categorical == SVM_CAT_ONEHOT ? p->cats[c].n : 1;
		c++;
	}
	return st;
}

/* One string column into x at feature off: one-hot over the training
 * strings, or the training index (-1 for a string it lacks). */
static rt_status encode_strings(const rt_categories *train, const rt_categories *own,
				const float *v, long n, int onehot, float *x, int nfeat, int off,
				rt_error *err)
{
	int *map = rt_malloc((size_t)own->n * sizeof *map + 1, err);
	rt_status st = map ? cats_map(train, own, map, err) : RT_ERR_SYSTEM;
	for (long r = 0; st == RT_OK && r < n; r++) {
		int m = map[(int)v[r]];
		if (!onehot)
			x[(size_t)r * nfeat + off] = (float)m;
		else if (m >= 0)
			x[(size_t)r * nfeat + off + m] = 1;
	}
	free(map);
	return st;
}

/* The table's inputs as dense rows, strings encoded as p says. */
static rt_status encode_rows(const rt_table *t, int lab, const svm_prep *p, svm_data *d,
			     rt_error *err)
{
	long n = (long)t->nrows;
	int nf = p->nfeat, off = 0, onehot = p->categorical == SVM_CAT_ONEHOT;
	rt_status st = RT_OK;
	d->n = n;
	d->nfeat = nf;
	d->x = rt_calloc((size_t)n * (size_t)nf + 1, sizeof *d->x, err);
	d->y = rt_malloc((size_t)n * sizeof *d->y + 1, err);
	if (!d->x || !d->y)
		return RT_ERR_SYSTEM;
	for (int col = 0, c = 0; col < t->ncols && st == RT_OK; col++) {
		const float *v = t->cols + (size_t)col * t->nrows;
		if (col == lab)
			continue;
		if (!p->cats[c].n) {
			for (long r = 0; r < n; r++)
				d->x[(size_t)r * nf + off] = v[r];
			off++;
		} else {
			st = encode_strings(&p->cats[c], &t->cats[col], v, n, onehot, d->x, nf, off, err);
			off += onehot ? p->cats[c].n : 1;
		}
		c++;
	}
	return st;
}

static rt_status load_csv(const char *path, const svm_load_options *o, svm_prep *p, svm_data *d,
			  rt_error *err)
{
	rt_table t;
	int header, lab = 0;
	rt_status st = read_table(path, o, &t, &header, err);
	if (st == RT_OK)
		st = pick_label(path, &t, o, header, &lab, err);
	if (st == RT_OK)
		st = fit_columns(path, &t, lab, o, p, err);
	if (st == RT_OK)
		st = encode_rows(&t, lab, p, d, err);
	if (st == RT_OK && t.cats[lab].n)
		st = string_labels(path, t.cols + (size_t)lab * t.nrows, &t.cats[lab], d->n, o, p,
				   d->y, err);
	else if (st == RT_OK)
		st = numeric_labels(path, t.cols + (size_t)lab * t.nrows, d->n, o, p, d->y, err);
	rt_table_free(&t);
	return st;
}

/* LIBSVM's format, or the C API's CSR table, read as sparse rows (never
 * dense: the caller densifies when the storage says so). */
static rt_status load_libsvm(const char *path, const svm_load_options *o, svm_prep *p,
			     svm_data *d, rt_error *err)
{
	int nfeat = p->fitted ? p->nfeat : o->nfeat;
	rt_sparse_table t;
	rt_status st = rt_mem_is_csr(path) ? rt_mem_load_sparse(path, nfeat, SVM_MAX_FEATURES, &t, err)
					   : rt_libsvm_load_sparse(path, nfeat, SVM_MAX_FEATURES, &t, err);
	if (st != RT_OK)
		return st;
	if (!p->fitted)
		p->nfeat = t.ncols;
	memset(d, 0, sizeof *d);
	d->n = (long)t.nrows;
	d->nfeat = t.ncols;
	d->sparse = 1;
	d->csr.ptr = t.ptr;
	d->csr.col = t.col;
	d->csr.val = t.val;
	t.ptr = NULL;
	t.col = NULL;
	t.val = NULL;
	d->y = rt_malloc((size_t)d->n * sizeof *d->y + 1, err);
	d->sq = d->y ? rt_malloc((size_t)d->n * sizeof *d->sq + 1, err) : NULL;
	st = d->sq ? numeric_labels(path, t.labels, d->n, o, p, d->y, err) : RT_ERR_SYSTEM;
	if (st == RT_OK)
		svm_data_norms(d);
	rt_sparse_table_free(&t);
	return st;
}

/* ---- scaling ----------------------------------------------------------------- */

/* Per feature of sparse d: the stored values' range, widened to 0 when a
 * row leaves the feature out (cnt[f] < n). */
static void sparse_range(const svm_data *d, svm_scaling *s, long *cnt)
{
	for (long k = 0; k < d->csr.ptr[d->n]; k++) {
		int f = d->csr.col[k];
		double v = d->csr.val[k];
		s->min[f] = v < s->min[f] ? v : s->min[f];
		s->max[f] = v > s->max[f] ? v : s->max[f];
		cnt[f]++;
	}
	for (int f = 0; f < d->nfeat; f++)
		if (cnt[f] < d->n) {
			s->min[f] = s->min[f] < 0 ? s->min[f] : 0;
			s->max[f] = s->max[f] > 0 ? s->max[f] : 0;
		}
}

rt_status svm_scaling_fit(const svm_data *d, double lower, double upper, svm_scaling *s,
			  rt_error *err)
{
	int nf = d->nfeat;
	long *cnt = NULL;
	memset(s, 0, sizeof *s);
	if (!(lower < upper))
		return rt_fail(err, RT_ERR_INPUT, "scaling: expected lower < upper, got [%g, %g]",
			       lower, upper);
	s->min = rt_malloc((size_t)nf * sizeof *s->min + 1, err);
	s->max = rt_malloc((size_t)nf * sizeof *s->max + 1, err);
	if (d->sparse && s->min && s->max)
		cnt = rt_calloc((size_t)nf + 1, sizeof *cnt, err);
	if (!s->min || !s->max || (d->sparse && !cnt)) {
		free(s->min);
		free(s->max);
		memset(s, 0, sizeof *s);
		return RT_ERR_SYSTEM;
	}
	s->nfeat = nf;
	s->lower = lower;
	s->upper = upper;
	for (int f = 0; f < nf; f++) {
		s->min[f] = d->n ? INFINITY : 0;
		s->max[f] = d->n ? -INFINITY : 0;
	}
	if (d->sparse)
		sparse_range(d, s, cnt);
	for (long r = 0; !d->sparse && r < d->n; r++)
		for (int f = 0; f < nf; f++) {
			double v = d->x[(size_t)r * nf + f];
			s->min[f] = v < s->min[f] ? v : s->min[f];
			s->max[f] = v > s->max[f] ? v : s->max[f];
		}
	free(cnt);
	return RT_OK;
}

/* Feature f's value v scaled (svm-scale's rule). */
static float scale_value(const svm_scaling *s, int f, double v)
{
	double lo = s->min[f], hi = s->max[f];
	if (hi == lo)
		v = 0;   /* constant: svm-scale leaves it out */
	else if (v == lo)
		v = s->lower;
	else if (v == hi)
		v = s->upper;
	else
		v = s->lower + (s->upper - s->lower) * (v - lo) / (hi - lo);
	return (float)v;
}

/* Sparse d: the stored values scaled; a left-out (zero) value must stay 0,
 * else the data would turn dense. */
static rt_status scale_sparse(const svm_scaling *s, svm_data *d, rt_error *err)
{
	long *cnt = rt_calloc((size_t)d->nfeat + 1, sizeof *cnt, err);
	if (!cnt)
		return RT_ERR_SYSTEM;
	for (long k = 0; k < d->csr.ptr[d->n]; k++)
		cnt[d->csr.col[k]]++;
	for (int f = 0; f < d->nfeat; f++)
		if (cnt[f] < d->n && scale_value(s, f, 0) != 0) {
			float z = scale_value(s, f, 0);
			free(cnt);
			return rt_fail(err, RT_ERR_UNSUPPORTED, "scaling: feature %d's zeros would become "
				       "%g, which makes sparse data dense; use scale = 0to1 on "
				       "non-negative data, scale = none, or storage = dense", f + 1,
				       (double)z);
		}
	free(cnt);
	for (long k = 0; k < d->csr.ptr[d->n]; k++)
		d->csr.val[k] = scale_value(s, d->csr.col[k], d->csr.val[k]);
	svm_data_norms(d);
	return RT_OK;
}

rt_status svm_scaling_apply(const svm_scaling *s, svm_data *d, rt_error *err)
{
	int nf = d->nfeat;
	if (nf != s->nfeat)
		return rt_fail(err, RT_ERR_INPUT, "scaling: expected %d features as the training set, "
			       "got %d", s->nfeat, nf);
	if (d->sparse)
		return scale_sparse(s, d, err);
	for (long r = 0; r < d->n; r++)
		for (int f = 0; f < nf; f++) {
			float *x = &d->x[(size_t)r * nf + f];
			*x = scale_value(s, f, *x);
		}
	return RT_OK;
}

/* ---- loading ------------------------------------------------------------------- */

/* CSV or LIBSVM? A name ending .csv or .csv.gz is CSV; otherwise the first
 * line decides (read through zlib, so .gz too): a comma means CSV, as
 * LIBSVM's "label index:value ..." has none. An unreadable file goes to the
 * LIBSVM reader, which reports it. */
static int is_csv(const char *path)
{
	char line[4096];
	gzFile f;
	int csv = 0;
	if (rt_mem_find(path))   /* the C API's table (data_mem.h): dense reads as CSV, */
		return !rt_mem_is_csr(path);   /* CSR as LIBSVM's format */
	if (ends_with(path, ".csv") || ends_with(path, ".csv.gz"))
		return 1;
	if (!(f = gzopen(path, "rb")))
		return 0;
	while (!csv && gzgets(f, line, sizeof line)) {
		csv = strchr(line, ',') != NULL;
		if (strchr(line, '\n'))
			break;
	}
	gzclose(f);
	return csv;
}

/* Dense or sparse as storage says (auto: svm_storage_sparse's rule). */
static rt_status choose_storage(int storage, svm_data *d, rt_error *err)
{
	long nnz = 0;
	if (d->sparse)
		nnz = d->csr.ptr[d->n];
	else
		for (size_t e = 0; e < (size_t)d->n * d->nfeat; e++)
			nnz += d->x[e] != 0;
	if (svm_storage_sparse(storage, d->n, d->nfeat, nnz))
		return svm_data_make_sparse(d, err);
	return svm_data_make_dense(d, err);
}

rt_status svm_data_load(const char *path, const svm_load_options *o, svm_data *d, rt_error *err)
{
	static const double range[][2] = { { 0, 0 }, { -1, 1 }, { 0, 1 } };
	svm_prep own, *p = o->prep ? o->prep : &own;
	rt_status st;
	memset(&own, 0, sizeof own);
	memset(d, 0, sizeof *d);
	if (is_csv(path))
		st = load_csv(path, o, p, d, err);
	else
		st = load_libsvm(path, o, p, d, err);
	if (st == RT_OK)
		st = choose_storage(o->storage, d, err);
	if (st == RT_OK && !p->fitted && o->scale > SVM_SCALE_NONE && o->scale <= SVM_SCALE_0TO1)
		st = svm_scaling_fit(d, range[o->scale][0], range[o->scale][1], &p->scaling, err);
	if (st == RT_OK && p->scaling.nfeat)
		st = svm_scaling_apply(&p->scaling, d, err);
	if (st == RT_OK)
		p->fitted = 1;
	else
		svm_data_free(d);
	if (p == &own)
		svm_prep_free(&own);
	return st;
}

/* ---- specs: [data] ------------------------------------------------------------ */

rt_status svm_data_spec_options(rt_spec *spec, svm_load_options *o, rt_error *err)
{
	static const char *const scale_names[] = { "none", "minus1to1", "0to1", NULL };
	static const char *const cat_names[] = { "onehot", "index", NULL };
	static const char *const storage_names[] = { "auto", "dense", "sparse", NULL };
	const char *label, *positive, *header;
	long v;
	int yes;
	rt_status st;
	*o = svm_load_defaults();
	if ((st = rt_spec_int(spec, "data", "features", 0, 0, 1 << 24, &v, err)) != RT_OK ||
	    (st = rt_spec_string(spec, "data", "label", "", &label, err)) != RT_OK ||
	    (st = rt_spec_string(spec, "data", "positive", "", &positive, err)) != RT_OK ||
	    (st = rt_spec_string(spec, "data", "header", "auto", &header, err)) != RT_OK ||
	    (strcmp(header, "auto") &&
	     (st = rt_spec_bool(spec, "data", "header", 1, &yes, err)) != RT_OK) ||
	    (st = rt_spec_enum(spec, "data", "scale", scale_names, SVM_SCALE_NONE, &o->scale,
			       err)) != RT_OK ||
	    (st = rt_spec_enum(spec, "data", "categorical", cat_names, SVM_CAT_ONEHOT,
			       &o->categorical, err)) != RT_OK ||
	    (st = rt_spec_enum(spec, "data", "storage", storage_names, SVM_STORAGE_AUTO,
			       &o->storage, err)) != RT_OK)
		return st;
	o->nfeat = (int)v;
	o->label = *label ? label : NULL;
	o->positive = *positive ? positive : NULL;
	o->header = !strcmp(header, "auto") ? SVM_HEADER_AUTO : yes ? SVM_HEADER_YES : SVM_HEADER_NO;
	rt_spec_key_where(spec, "data", "label", o->label_at, sizeof o->label_at - 16);
	rt_spec_key_where(spec, "data", "positive", o->positive_at, sizeof o->positive_at - 16);
	strcat(o->label_at, ": data.label");
	strcat(o->positive_at, ": data.positive");
	return RT_OK;
}

rt_status svm_data_load_spec(rt_spec *spec, const svm_load_options *o, char *train_path,
			     svm_data *train, char *test_path, svm_data *test, rt_error *err)
{
	static const char *const keys[] = { "train", "test" };
	char *paths[] = { train_path, test_path };
	svm_data *sets[] = { train, test };
	svm_load_options lo = *o;
	svm_prep prep;
	rt_status st = RT_OK;
	memset(&prep, 0, sizeof prep);
	memset(test, 0, sizeof *test);
	test_path[0] = 0;
	lo.prep = &prep;
	for (int k = 0; k < 2 && st == RT_OK; k++) {
		const char *name;
		if (k && !rt_spec_find(spec, "data", "test"))
			break;
		if ((st = rt_spec_string(spec, "data", keys[k], NULL, &name, err)) == RT_OK &&
		    (st = rt_spec_data_path(spec, name, paths[k], RT_PATH_MAX, err)) == RT_OK)
			st = svm_data_load(paths[k], &lo, sets[k], err);
	}
	svm_prep_free(&prep);
	if (st != RT_OK)
		svm_data_free(train);
	return st;
}

/* ---- writing LIBSVM's format --------------------------------------------------- */

/* The shortest of %.9g and %.17g that reads back (as a double, as
 * svm-train reads it) as exactly v. */
static int put_value(FILE *f, double v)
{
	char buf[40];
	snprintf(buf, sizeof buf, "%.9g", v);
	if (strtod(buf, NULL) != v)
		snprintf(buf, sizeof buf, "%.17g", v);
	return fputs(buf, f);
}

rt_status svm_data_write_libsvm(const char *path, const svm_data *d, rt_error *err)
{
	char tmp[RT_PATH_MAX + 32];
	FILE *f;
	int bad = 0;
	snprintf(tmp, sizeof tmp, "%s.tmp%ld", path, (long)getpid());
	if (!(f = fopen(tmp, "w")))
		return rt_fail(err, RT_ERR_SYSTEM, "%s: cannot create: %s", tmp, strerror(errno));
	for (long r = 0; r < d->n && !bad; r++) {
		const float *x = d->sparse ? NULL : d->x + (size_t)r * d->nfeat;
		bad |= put_value(f, d->y[r]) < 0;
		for (int j = 0; x && j < d->nfeat; j++)
			if (x[j] != 0) {
				bad |= fprintf(f, " %d:", j + 1) < 0;
				bad |= put_value(f, x[j]) < 0;
			}
		for (long k = d->sparse ? d->csr.ptr[r] : 0; !x && k < d->csr.ptr[r + 1]; k++)
			if (d->csr.val[k] != 0) {
				bad |= fprintf(f, " %d:", d->csr.col[k] + 1) < 0;
				bad |= put_value(f, d->csr.val[k]) < 0;
			}
		bad |= fputc('\n', f) < 0;
	}
	bad |= ferror(f) != 0;
	bad |= fclose(f) != 0;
	if (bad || rename(tmp, path) != 0) {
		rt_status st = rt_fail(err, RT_ERR_SYSTEM, "%s: cannot write: %s", path, strerror(errno));
		remove(tmp);
		return st;
	}
	return RT_OK;
}
