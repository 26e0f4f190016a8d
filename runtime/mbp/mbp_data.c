/* mbp_data.c: kind `mbp`'s patterns: the spec's [data] section (a CSV file or
 * a generated problem: two spirals, Friedman #1, XOR) turned into scaled
 * input and target rows, and the training/validation index sets (one split
 * or k folds).
 *
 * Choices worth knowing:
 * - A string label is a classification: class k is the k-th distinct label
 *   value in file order (rt_csv_load's mapping). A numeric label is always a
 *   regression, even when it only holds 0 and 1.
 * - For classification out_min/out_max are 0 and 1 (the class indicator
 *   mapped to lo/hi), so a network file's target_range reads "0 1 lo hi".
 * - Friedman #1 draws one Philox stream (data_seed, stream 0): per pattern
 *   ten uniform doubles, then one standard normal (always drawn, so the
 *   inputs do not depend on the noise level); the target is computed from
 *   the inputs as stored (rounded to float).
 * - split = random shuffles with Philox (data_seed, stream 1) and takes the
 *   first round(valid_fraction * n) patterns of the shuffle; every index
 *   set lists its patterns in ascending order.
 * - With folds >= 2 any split and valid_fraction are read and checked but
 *   ignored: the folds replace the split. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "data.h"
#include "mbp_impl.h"
#include "rng.h"

enum { SRC_CSV, SRC_SPIRALS, SRC_FRIEDMAN, SRC_XOR };
static const char *const source_names[] = { "csv", "two-spirals", "friedman1", "xor", NULL };
enum { SPLIT_NONE, SPLIT_ALTERNATE, SPLIT_RANDOM, SPLIT_TAIL };
static const char *const split_names[] = { "none", "alternate", "random", "tail", NULL };

#define SPIRAL_POINTS 97            /* per spiral: three turns of pi/16 steps */
#define FRIEDMAN_PATTERNS 40768L    /* the default number of Friedman patterns */
#define MAX_PATTERNS (1L << 26)     /* most generated patterns (fits the orders) */

/* Keys of [data] that only one source takes. */
static const struct { const char *key; int source; } source_keys[] = {
	{ "file", SRC_CSV }, { "label", SRC_CSV },
	{ "patterns", SRC_FRIEDMAN }, { "noise", SRC_FRIEDMAN },
};

/* The [data] settings once read. */
typedef struct data_opts {
	int source, split;
	const char *file, *label;
	long patterns;
	double noise, valid_fraction;
	uint64_t seed;
	int folds;
} data_opts;

#define TRY(x) do { if ((st = (x)) != RT_OK) return st; } while (0)

/* ---- allocation -------------------------------------------------------------- */

/* A copy of s in *slot. */
static rt_status name_set(char **slot, const char *s, rt_error *err)
{
	*slot = rt_strdup(s, err);
	return *slot ? RT_OK : RT_ERR_SYSTEM;
}

/* Arrays for n patterns of ni inputs; classes 0 (regression: one output),
 * 2 (one output) or more (one-hot outputs). */
static rt_status dataset_alloc(mbp_dataset *d, long n, int ni, int classes, rt_error *err)
{
	size_t un = (size_t)n;
	d->n = n;
	d->ni = ni;
	d->classes = classes;
	d->no = classes > 2 ? classes : 1;
	d->x = rt_malloc(un * (size_t)ni * sizeof *d->x, err);
	d->t = d->x ? rt_malloc(un * (size_t)d->no * sizeof *d->t, err) : NULL;
	d->in_min = d->t ? rt_calloc((size_t)ni, sizeof *d->in_min, err) : NULL;
	d->in_max = d->in_min ? rt_calloc((size_t)ni, sizeof *d->in_max, err) : NULL;
	d->out_min = d->in_max ? rt_calloc((size_t)d->no, sizeof *d->out_min, err) : NULL;
	d->out_max = d->out_min ? rt_calloc((size_t)d->no, sizeof *d->out_max, err) : NULL;
	d->input_names = d->out_max ? rt_calloc((size_t)ni, sizeof *d->input_names, err) : NULL;
	if (!d->input_names)
		return RT_ERR_SYSTEM;
	if (classes && !(d->class_names = rt_calloc((size_t)classes, sizeof *d->class_names, err)))
		return RT_ERR_SYSTEM;
	return RT_OK;
}

/* Names x1 .. xn for generated inputs and "0", "1", ... for classes. */
static rt_status default_names(mbp_dataset *d, rt_error *err)
{
	char buf[32];
	for (int i = 0; i < d->ni; i++) {
		snprintf(buf, sizeof buf, "x%d", i + 1);
		if (name_set(&d->input_names[i], buf, err))
			return RT_ERR_SYSTEM;
	}
	for (int c = 0; c < d->classes; c++) {
		snprintf(buf, sizeof buf, "%d", c);
		if (name_set(&d->class_names[c], buf, err))
			return RT_ERR_SYSTEM;
	}
	return RT_OK;
}

void mbp_dataset_free(mbp_dataset *d)
{
	for (int i = 0; d->input_names && i < d->ni; i++)
		free(d->input_names[i]);
	for (int c = 0; d->class_names && c < d->classes; c++)
		free(d->class_names[c]);
	for (int s = 0; s < d->sets; s++) {
		free(d->train ? d->train[s] : NULL);
		free(d->valid ? d->valid[s] : NULL);
	}
	free(d->input_names);
	free(d->class_names);
	free(d->train);
	free(d->valid);
	free(d->ntrain);
	free(d->nvalid);
	free(d->x);
	free(d->t);
	free(d->in_min);
	free(d->in_max);
	free(d->out_min);
	free(d->out_max);
	memset(d, 0, sizeof *d);
}

/* ---- generated problems ---------------------------------------------------------- */

/* Lang & Witbrock's two spirals as the MBP software makes them: point i of
 * spiral 1 at angle i pi/16, radius 6.5 (104 - i) / 104; spiral 0 is its
 * mirror (-x, -y). Patterns alternate: spiral 1 point i, spiral 0 point i. */
static void make_spirals(mbp_dataset *d, float *y)
{
	const double pi = 3.14159265358979323846;
	for (int i = 0; i < SPIRAL_POINTS; i++) {
		double angle = i * pi / 16.0, radius = 6.5 * (104 - i) / 104.0;
		float px = (float)(radius * sin(angle)), py = (float)(radius * cos(angle));
		d->x[4 * i + 0] = px;
		d->x[4 * i + 1] = py;
		d->x[4 * i + 2] = -px;
		d->x[4 * i + 3] = -py;
		y[2 * i] = 1.0f;
		y[2 * i + 1] = 0.0f;
	}
}

/* Friedman #1: x in U[0,1]^10, y = 10 sin(pi x1 x2) + 20 (x3 - 1/2)^2 +
 * 10 x4 + 5 x5 + noise N(0, 1); x6..x10 do not matter. */
static void make_friedman(mbp_dataset *d, float *y, uint64_t seed, double noise)
{
	const double pi = 3.14159265358979323846;
	rt_rng rng;
	rt_rng_init(&rng, seed, 0);
	for (long p = 0; p < d->n; p++) {
		float *x = d->x + p * 10;
		double v[10], z;
		for (int i = 0; i < 10; i++) {
			x[i] = (float)rt_rng_uniform_double(&rng);
			v[i] = x[i];
		}
		z = rt_rng_normal(&rng);
		y[p] = (float)(10.0 * sin(pi * v[0] * v[1]) + 20.0 * (v[2] - 0.5) * (v[2] - 0.5) +
			       10.0 * v[3] + 5.0 * v[4] + noise * z);
	}
}

/* The four patterns of two-input XOR. */
static void make_xor(mbp_dataset *d, float *y)
{
	for (int p = 0; p < 4; p++) {
		d->x[2 * p] = (float)(p >> 1);
		d->x[2 * p + 1] = (float)(p & 1);
		y[p] = (float)((p >> 1) ^ (p & 1));
	}
}

/* Raw patterns of a generated source (patterns <= 0: its default) into d,
 * raw targets (or class numbers) into *y. */
static rt_status generate(mbp_dataset *d, int source, long patterns, uint64_t seed,
			  double noise, float **y, rt_error *err)
{
	static const long sizes[] = { 0, 2 * SPIRAL_POINTS, FRIEDMAN_PATTERNS, 4 };
	static const int inputs[] = { 0, 2, 10, 2 };
	long n = patterns > 0 ? patterns : sizes[source];
	if (source != SRC_FRIEDMAN && n != sizes[source])
		return rt_fail(err, RT_ERR_INPUT, "%s: expected %ld patterns (the problem's size), got %ld",
			       source_names[source], sizes[source], n);
	if (n > MAX_PATTERNS)
		return rt_fail(err, RT_ERR_INPUT, "%s: expected at most %ld patterns, got %ld",
			       source_names[source], MAX_PATTERNS, n);
	if (dataset_alloc(d, n, inputs[source], source == SRC_FRIEDMAN ? 0 : 2, err) ||
	    default_names(d, err) || !(*y = rt_malloc((size_t)n * sizeof **y, err)))
		return RT_ERR_SYSTEM;
	if (source == SRC_SPIRALS)
		make_spirals(d, *y);
	else if (source == SRC_FRIEDMAN)
		make_friedman(d, *y, seed, noise);
	else
		make_xor(d, *y);
	snprintf(d->source, sizeof d->source, "%s", source_names[source]);
	return RT_OK;
}

/* ---- CSV ------------------------------------------------------------------------ */

/* What kind mbp cannot use in a loaded table: string inputs, no inputs, a
 * label of one class, non-finite numbers, too many inputs or outputs. */
static rt_status csv_check(const rt_table *tab, rt_error *err)
{
	if (tab->nrows < 1 || tab->ncols < 1)
		return rt_fail(err, RT_ERR_INPUT,
			       "%s: expected at least one row and one input column besides the label "
			       "'%s', got %zu rows and %d input columns",
			       tab->path, tab->label_name, tab->nrows, tab->ncols);
	if (tab->ncols > MBP_MAX_UNITS || tab->classes.n > MBP_MAX_UNITS)
		return rt_fail(err, RT_ERR_INPUT,
			       "%s: expected at most %d inputs and classes, got %d inputs and %d classes",
			       tab->path, MBP_MAX_UNITS, tab->ncols, tab->classes.n);
	if (tab->nrows > (size_t)MAX_PATTERNS)
		return rt_fail(err, RT_ERR_INPUT, "%s: expected at most %ld rows, got %zu",
			       tab->path, MAX_PATTERNS, tab->nrows);
	for (int c = 0; c < tab->ncols; c++)
		if (tab->cats[c].n > 0)
			return rt_fail(err, RT_ERR_INPUT,
				       "%s: column '%s': expected numbers (kind mbp takes numeric inputs "
				       "only; encode categories as numbers), got strings such as '%s'",
				       tab->path, tab->colnames[c], tab->cats[c].names[0]);
	if (tab->classes.n == 1)
		return rt_fail(err, RT_ERR_INPUT,
			       "%s: label '%s': expected at least 2 classes, got only '%s'",
			       tab->path, tab->label_name, tab->classes.names[0]);
	for (size_t i = 0; i < tab->nrows * (size_t)tab->ncols; i++)
		if (!isfinite(tab->cols[i]))
			return rt_fail(err, RT_ERR_INPUT, "%s: row %zu, column '%s': expected a finite "
				       "number, got %g", tab->path, i % tab->nrows + 1,
				       tab->colnames[i / tab->nrows], (double)tab->cols[i]);
	for (size_t r = 0; r < tab->nrows; r++)
		if (!isfinite(tab->label[r]))
			return rt_fail(err, RT_ERR_INPUT, "%s: row %zu, label '%s': expected a finite "
				       "number, got %g", tab->path, r + 1, tab->label_name,
				       (double)tab->label[r]);
	return RT_OK;
}

/* A checked table into d (row-major) and its label into *y. */
static rt_status csv_copy(mbp_dataset *d, const rt_table *tab, float **y, rt_error *err)
{
	long n = (long)tab->nrows;
	if (dataset_alloc(d, n, tab->ncols, tab->classes.n, err) ||
	    !(*y = rt_malloc((size_t)n * sizeof **y, err)))
		return RT_ERR_SYSTEM;
	for (int i = 0; i < d->ni; i++)
		if (name_set(&d->input_names[i], tab->colnames[i], err))
			return RT_ERR_SYSTEM;
	for (int c = 0; c < d->classes; c++)
		if (name_set(&d->class_names[c], tab->classes.names[c], err))
			return RT_ERR_SYSTEM;
	for (long p = 0; p < n; p++) {
		for (int i = 0; i < d->ni; i++)
			d->x[p * d->ni + i] = rt_table_at(tab, i, (size_t)p);
		(*y)[p] = tab->label[p];
	}
	return RT_OK;
}

/* [data] file and label: the CSV file's patterns into d, labels into *y. */
static rt_status load_csv(mbp_dataset *d, rt_spec *spec, const data_opts *o, float **y,
			  rt_error *err)
{
	char loc[RT_PATH_MAX + 32];
	rt_csv_options co = rt_csv_defaults();
	rt_table tab;
	rt_status st = rt_spec_data_path(spec, o->file, d->path, sizeof d->path, err);
	if (st) {
		rt_error_prefix(err, "%s: data.file", rt_spec_key_where(spec, "data", "file", loc, sizeof loc));
		return st;
	}
	co.label = o->label[0] ? o->label : NULL;
	if ((st = rt_csv_load(d->path, &co, &tab, err)) != RT_OK)
		return st;
	st = csv_check(&tab, err);
	if (st == RT_OK)
		st = csv_copy(d, &tab, y, err);
	rt_table_free(&tab);
	snprintf(d->source, sizeof d->source, "csv");
	return st;
}

/* ---- scaling --------------------------------------------------------------------- */

/* Maps v from [min, max] to [lo, hi]; a constant column to the middle. */
static float scale_value(float v, float min, float max, float lo, float hi)
{
	if (!(max > min))
		return (float)(0.5 * ((double)lo + hi));
	return (float)(lo + ((double)hi - lo) * (((double)v - min) / ((double)max - min)));
}

/* Every input column min-max to [-1, 1]; raw ranges kept. */
static void scale_inputs(mbp_dataset *d)
{
	for (int i = 0; i < d->ni; i++) {
		float mn = d->x[i], mx = d->x[i];
		for (long p = 1; p < d->n; p++) {
			float v = d->x[p * d->ni + i];
			mn = v < mn ? v : mn;
			mx = v > mx ? v : mx;
		}
		d->in_min[i] = mn;
		d->in_max[i] = mx;
		for (long p = 0; p < d->n; p++)
			d->x[p * d->ni + i] = scale_value(d->x[p * d->ni + i], mn, mx, -1.0f, 1.0f);
	}
}

/* Targets from raw values y: a regression target min-max to [lo, hi], a
 * class to lo/hi (one output) or one-hot lo/hi rows. */
static void scale_targets(mbp_dataset *d, const float *y, int act_output)
{
	float lo, hi;
	mbp_activation_range(act_output, &lo, &hi);
	d->target_lo = lo;
	d->target_hi = hi;
	if (d->classes == 0) {
		float mn = y[0], mx = y[0];
		for (long p = 1; p < d->n; p++) {
			mn = y[p] < mn ? y[p] : mn;
			mx = y[p] > mx ? y[p] : mx;
		}
		d->out_min[0] = mn;
		d->out_max[0] = mx;
		for (long p = 0; p < d->n; p++)
			d->t[p] = scale_value(y[p], mn, mx, lo, hi);
		return;
	}
	for (int o = 0; o < d->no; o++) {
		d->out_min[o] = 0.0f;
		d->out_max[o] = 1.0f;
	}
	for (long p = 0; p < d->n; p++) {
		int c = (int)y[p];
		for (int o = 0; o < d->no; o++)
			d->t[p * d->no + o] = (d->no == 1 ? c == 1 : c == o) ? hi : lo;
	}
}

float mbp_dataset_unscale(const mbp_dataset *d, int o, float y)
{
	double lo = d->target_lo, hi = d->target_hi;
	if (d->classes)
		return y;
	return (float)(d->out_min[o] + ((double)d->out_max[o] - d->out_min[o]) * ((y - lo) / (hi - lo)));
}

int mbp_dataset_class_of(const mbp_dataset *d, const float *y)
{
	int best = 0;
	if (d->no == 1)
		return y[0] >= 0.5f * (d->target_lo + d->target_hi) ? 1 : 0;
	for (int o = 1; o < d->no; o++)
		if (y[o] > y[best])
			best = o;
	return best;
}

/* ---- index sets ------------------------------------------------------------------ */

/* Room for `sets` index sets. */
static rt_status sets_alloc(mbp_dataset *d, int sets, rt_error *err)
{
	d->train = rt_calloc((size_t)sets, sizeof *d->train, err);
	d->valid = d->train ? rt_calloc((size_t)sets, sizeof *d->valid, err) : NULL;
	d->ntrain = d->valid ? rt_calloc((size_t)sets, sizeof *d->ntrain, err) : NULL;
	d->nvalid = d->ntrain ? rt_calloc((size_t)sets, sizeof *d->nvalid, err) : NULL;
	if (!d->nvalid)
		return RT_ERR_SYSTEM;
	d->sets = sets;
	return RT_OK;
}

/* Set s from a mark per pattern (1: validation), both lists ascending. */
static rt_status set_fill(mbp_dataset *d, int s, const unsigned char *mark, rt_error *err)
{
	long nv = 0;
	for (long p = 0; p < d->n; p++)
		nv += mark[p];
	d->train[s] = rt_malloc((size_t)(d->n - nv > 0 ? d->n - nv : 1) * sizeof(long), err);
	d->valid[s] = d->train[s] ? rt_malloc((size_t)(nv > 0 ? nv : 1) * sizeof(long), err) : NULL;
	if (!d->valid[s])
		return RT_ERR_SYSTEM;
	for (long p = 0; p < d->n; p++) {
		if (mark[p])
			d->valid[s][d->nvalid[s]++] = p;
		else
			d->train[s][d->ntrain[s]++] = p;
	}
	return RT_OK;
}

/* Marks the validation patterns of a split (no folds). */
static rt_status split_marks(const mbp_dataset *d, const data_opts *o, unsigned char *mark,
			     rt_error *err)
{
	long n = d->n, nv = (long)floor(o->valid_fraction * (double)n + 0.5);
	if (o->split == SPLIT_ALTERNATE)
		for (long p = 1; p < n; p += 2)
			mark[p] = 1;
	else if (o->split == SPLIT_TAIL)
		for (long p = n - nv; p < n; p++)
			mark[p] = 1;
	else if (o->split == SPLIT_RANDOM) {
		long *perm = rt_malloc((size_t)n * sizeof *perm, err);
		rt_rng rng;
		if (!perm)
			return RT_ERR_SYSTEM;
		rt_rng_init(&rng, o->seed, 1);
		for (long p = 0; p < n; p++)
			perm[p] = p;
		for (long p = n - 1; p > 0; p--) {
			long q = (long)rt_rng_below(&rng, (uint32_t)(p + 1)), t = perm[p];
			perm[p] = perm[q];
			perm[q] = t;
		}
		for (long k = 0; k < nv; k++)
			mark[perm[k]] = 1;
		free(perm);
	}
	return RT_OK;
}

/* The index sets: k folds, or one set from the split. `loc` locates the
 * setting responsible in messages. */
static rt_status build_sets(mbp_dataset *d, const data_opts *o, const char *loc, rt_error *err)
{
	int sets = o->folds >= 2 ? o->folds : 1;
	unsigned char *mark;
	rt_status st = RT_OK;
	if (o->folds > d->n)
		return rt_fail(err, RT_ERR_INPUT, "%s: mbp.folds: expected at most one fold per pattern "
			       "(%ld patterns), got %d", loc, d->n, o->folds);
	if (sets_alloc(d, sets, err) || !(mark = rt_malloc((size_t)d->n, err)))
		return RT_ERR_SYSTEM;
	for (int s = 0; s < sets && st == RT_OK; s++) {
		memset(mark, 0, (size_t)d->n);
		if (o->folds >= 2)
			for (long p = s; p < d->n; p += o->folds)
				mark[p] = 1;
		else
			st = split_marks(d, o, mark, err);
		if (st == RT_OK)
			st = set_fill(d, s, mark, err);
		if (st == RT_OK && d->ntrain[s] == 0)
			st = rt_fail(err, RT_ERR_INPUT, "%s: expected at least one training pattern, got "
				     "none (%ld patterns, %ld validating)", loc, d->n, d->nvalid[s]);
		if (st == RT_OK && d->nvalid[s] == 0 && (o->split == SPLIT_RANDOM ||
							 o->split == SPLIT_TAIL) && sets == 1)
			st = rt_fail(err, RT_ERR_INPUT, "%s: expected at least one validation pattern, "
				     "got none (valid_fraction %g of %ld patterns)", loc,
				     o->valid_fraction, d->n);
	}
	free(mark);
	return st;
}

/* ---- the spec ---------------------------------------------------------------------- */

/* A source-specific key given with another source is an error. */
static rt_status check_source_keys(rt_spec *spec, int source, rt_error *err)
{
	char loc[RT_PATH_MAX + 32];
	for (size_t k = 0; k < sizeof source_keys / sizeof source_keys[0]; k++) {
		rt_spec_entry *e = rt_spec_find(spec, "data", source_keys[k].key);
		if (e && source_keys[k].source != source)
			return rt_fail(err, RT_ERR_INPUT, "%s: data.%s: expected no %s with source = %s "
				       "(it is for source = %s), got '%s'",
				       rt_spec_where(spec, e, loc, sizeof loc), e->key, e->key,
				       source_names[source], source_names[source_keys[k].source],
				       e->value);
	}
	return RT_OK;
}

/* data.source, and the keys of that source. */
static rt_status read_source(rt_spec *spec, data_opts *o, rt_error *err)
{
	rt_status st;
	TRY(rt_spec_enum(spec, "data", "source", source_names, -1, &o->source, err));
	if (o->source < 0) {
		if (!rt_spec_find(spec, "data", "file"))
			return rt_fail(err, RT_ERR_INPUT, "%s: [data] expected 'source = csv | two-spirals "
				       "| friedman1 | xor' (or 'file = DATA.csv'), got neither",
				       spec->path);
		o->source = SRC_CSV;
	}
	TRY(check_source_keys(spec, o->source, err));
	o->file = o->label = "";
	if (o->source == SRC_CSV) {
		char loc[RT_PATH_MAX + 32];
		if (!rt_spec_find(spec, "data", "file"))
			return rt_fail(err, RT_ERR_INPUT, "%s: data.source = csv: expected a 'file = "
				       "DATA.csv' line in [data], got none",
				       rt_spec_key_where(spec, "data", "source", loc, sizeof loc));
		TRY(rt_spec_string(spec, "data", "file", NULL, &o->file, err));
		TRY(rt_spec_string(spec, "data", "label", "", &o->label, err));
	}
	o->patterns = 0;
	o->noise = 1.0;
	if (o->source == SRC_FRIEDMAN) {
		TRY(rt_spec_int(spec, "data", "patterns", FRIEDMAN_PATTERNS, 1, MAX_PATTERNS,
				&o->patterns, err));
		TRY(rt_spec_double(spec, "data", "noise", 1.0, 0.0, 1e6, &o->noise, err));
	}
	return RT_OK;
}

/* data.split, valid_fraction and data_seed (each only where it matters). */
static rt_status read_split(rt_spec *spec, data_opts *o, rt_error *err)
{
	char loc[RT_PATH_MAX + 32];
	rt_spec_entry *e;
	rt_status st;
	int def = o->source == SRC_CSV ? SPLIT_ALTERNATE : SPLIT_NONE;
	TRY(rt_spec_enum(spec, "data", "split", split_names, def, &o->split, err));
	e = rt_spec_find(spec, "data", "valid_fraction");
	if (e && o->split != SPLIT_RANDOM && o->split != SPLIT_TAIL)
		return rt_fail(err, RT_ERR_INPUT, "%s: data.valid_fraction: expected it only with "
			       "split = random or tail, got '%s' with split = %s",
			       rt_spec_where(spec, e, loc, sizeof loc), e->value, split_names[o->split]);
	TRY(rt_spec_double(spec, "data", "valid_fraction", 0.5, 0.0, 1.0, &o->valid_fraction, err));
	if (o->split == SPLIT_RANDOM || o->split == SPLIT_TAIL) {
		if (o->valid_fraction <= 0.0 || o->valid_fraction >= 1.0)
			return rt_fail(err, RT_ERR_INPUT, "%s: data.valid_fraction: expected a number "
				       "between 0 and 1 (exclusive), got %g",
				       rt_spec_key_where(spec, "data", "valid_fraction", loc, sizeof loc),
				       o->valid_fraction);
	}
	e = rt_spec_find(spec, "data", "data_seed");
	if (e && o->source != SRC_FRIEDMAN && o->split != SPLIT_RANDOM)
		return rt_fail(err, RT_ERR_INPUT, "%s: data.data_seed: expected it only with source "
			       "= friedman1 or split = random, got '%s'",
			       rt_spec_where(spec, e, loc, sizeof loc), e->value);
	return rt_spec_u64(spec, "data", "data_seed", 1, &o->seed, err);
}

/* The raw patterns, scaled, and their index sets. */
static rt_status dataset_build(mbp_dataset *d, rt_spec *spec, const data_opts *o,
			       int act_output, const char *loc, rt_error *err)
{
	float *y = NULL;
	rt_status st;
	if (o->source == SRC_CSV)
		st = load_csv(d, spec, o, &y, err);
	else
		st = generate(d, o->source, o->patterns, o->seed, o->noise, &y, err);
	if (st == RT_OK) {
		scale_inputs(d);
		scale_targets(d, y, act_output);
		st = build_sets(d, o, loc, err);
	}
	free(y);
	return st;
}

rt_status mbp_dataset_from_spec(mbp_dataset *d, rt_spec *spec, int act_output, int folds,
				rt_error *err)
{
	char loc[RT_PATH_MAX + 32];
	data_opts o;
	rt_status st;
	memset(d, 0, sizeof *d);
	memset(&o, 0, sizeof o);
	if (act_output < MBP_SIGMOID || act_output > MBP_LINEAR)
		return rt_fail(err, RT_ERR_INTERNAL, "mbp: output activation %d out of range",
			       act_output);
	rt_spec_key_where(spec, "mbp", "folds", loc, sizeof loc);
	if (folds < 0 || folds == 1)
		return rt_fail(err, RT_ERR_INPUT, "%s: mbp.folds: expected 0 (none) or at least 2, got %d",
			       loc, folds);
	o.folds = folds;
	TRY(read_source(spec, &o, err));
	TRY(read_split(spec, &o, err));
	if (!folds)
		rt_spec_key_where(spec, "data", rt_spec_find(spec, "data", "split") ? "split" : "source", loc,
		      sizeof loc);
	st = dataset_build(d, spec, &o, act_output, loc, err);
	if (st != RT_OK)
		mbp_dataset_free(d);
	return st;
}

rt_status mbp_dataset_generated(mbp_dataset *d, const char *source, long patterns,
				uint64_t data_seed, int act_output, rt_error *err)
{
	data_opts o;
	rt_status st;
	memset(d, 0, sizeof *d);
	memset(&o, 0, sizeof o);
	if (act_output < MBP_SIGMOID || act_output > MBP_LINEAR)
		return rt_fail(err, RT_ERR_INTERNAL, "mbp: output activation %d out of range",
			       act_output);
	for (o.source = SRC_SPIRALS; source_names[o.source]; o.source++)
		if (!strcmp(source, source_names[o.source]))
			break;
	if (!source_names[o.source])
		return rt_fail(err, RT_ERR_INPUT, "mbp: expected a generated problem (two-spirals, "
			       "friedman1 or xor), got '%s'", source);
	o.patterns = patterns;
	o.seed = data_seed;
	o.noise = 1.0;
	o.split = SPLIT_NONE;
	st = dataset_build(d, NULL, &o, act_output, source, err);
	if (st != RT_OK)
		mbp_dataset_free(d);
	return st;
}
