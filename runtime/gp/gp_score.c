/* gp_score.c: one GP program scored on a table of cases: its outputs from
 * the CPU interpreter (gp_eval_cpu_outputs, the 2-D stack LGP one), then the
 * MSE or the confusion matrix through gp_fitness.h, the functions the
 * evaluators score with. The misclassified count is checked against the
 * evaluator's fitness on the same cases (a mismatch is a bug: RT_ERR_INTERNAL). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gp_conv.h"
#include "gp_eval.h"
#include "gp_score.h"
#include "log.h"
#include "out.h"
#include "gp/gp_fitness.h"

void gp_score_free(gp_score *s)
{
	free(s->confusion);
	free(s->unclassified);
	memset(s, 0, sizeof *s);
}

long gp_score_class_total(const gp_score *s, int c)
{
	long n = s->unclassified[c];
	for (int k = 0; k < s->nclasses; k++)
		n += s->confusion[(size_t)c * s->nclasses + k];
	return n;
}

double gp_score_class_accuracy(const gp_score *s, int c)
{
	long n = gp_score_class_total(s, c);
	return n ? (double)s->confusion[(size_t)c * s->nclasses + c] / (double)n : NAN;
}

/* An empty confusion matrix of k classes in s. */
static rt_status tally_init(gp_score *s, int k, rt_error *err)
{
	s->nclasses = k;
	s->confusion = rt_calloc((size_t)k * k + 1, sizeof *s->confusion, err);
	s->unclassified = s->confusion ? rt_calloc((size_t)k + 1, sizeof *s->unclassified, err) : NULL;
	return s->unclassified ? RT_OK : err->status;
}

/* Case r of true class `truth` predicted as class cls (NaN: unclassified). */
static rt_status tally(gp_score *s, size_t r, int truth, float cls, rt_error *err)
{
	int k = s->nclasses;
	if (truth < 0 || truth >= k)
		return rt_fail(err, RT_ERR_INTERNAL, "score: case %zu: class %d outside 0..%d", r,
			       truth, k - 1);
	if (cls != cls)
		s->unclassified[truth]++;
	else
		s->confusion[(size_t)truth * k + (int)cls]++;
	s->wrong += cls != (float)truth;
	return RT_OK;
}

/* The confusion matrix of outputs `out` against the cases' classes. */
static rt_status classify(const float *out, const gp_cases *cases, gp_score *s, rt_error *err)
{
	rt_status st = tally_init(s, cases->nclasses, err);
	float top = (float)(cases->nclasses - 1);
	for (size_t r = 0; r < cases->ncases && !st; r++)
		st = tally(s, r, (int)cases->y[r], gp_class_of(out[r], top), err);
	s->accuracy = cases->ncases ? 1.0 - (double)s->wrong / (double)cases->ncases : NAN;
	return st;
}

rt_status gp_score_program(const gp_tree *prog, const gp_cases *cases, gp_score *s,
			   rt_error *err)
{
	gp_packed pk;
	double fit;
	memset(s, 0, sizeof *s);
	s->fitness = cases->fitness;
	s->ncases = cases->ncases;
	if (cases->fitness == GP_FIT_BOOL)
		return rt_fail(err, RT_ERR_UNSUPPORTED, "score: Boolean problems have no held-out set");
	float *out = rt_malloc(cases->ncases * sizeof *out + 1, err);
	if (!out)
		return err->status;
	gp_packed_init(&pk);
	rt_status st = gp_pack_lgp(&pk, prog, 1, err);
	if (!st)
		st = gp_eval_cpu_outputs(&pk, cases, out, err);
	if (!st && cases->fitness == GP_FIT_MSE) {
		double sum = 0;
		for (size_t r = 0; r < cases->ncases; r++)
			sum += gp_sq_err(out[r], cases->y[r]);
		s->mse = cases->ncases ? sum / (double)cases->ncases : NAN;
		if (isnan(s->mse) || isinf(s->mse))
			s->mse = INFINITY;
	} else if (!st) {
		st = classify(out, cases, s, err);
		/* The evaluator's own count on the same cases: the same mapping, so equal. */
		if (!st && (st = gp_eval_cpu(&pk, cases, GP_EVAL_LGP2D, &fit, err)) == RT_OK &&
		    fit != (double)s->wrong)
			st = rt_fail(err, RT_ERR_INTERNAL, "score: %ld misclassified cases from the "
				     "outputs, %.0f from the evaluator (a bug in evoforge)", s->wrong, fit);
	}
	gp_packed_free(&pk);
	free(out);
	if (st)
		gp_score_free(s);
	return st;
}

/* ---- one-vs-rest: K programs, the class of the largest output ------------------ */

int gp_argmax_class(const float *v, int k)
{
	int best = 0;
	float top = -INFINITY;
	for (int c = 0; c < k; c++)
		if (v[c] > top) {   /* false for NaN: NaN counts as -inf; ties keep the lowest */
			top = v[c];
			best = c;
		}
	return best;
}

rt_status gp_argmax_classes(const gp_tree *progs, int k, const gp_cases *cases, int *cls,
			    rt_error *err)
{
	size_t n = cases->ncases;
	gp_packed pk;
	if (cases->fitness == GP_FIT_BOOL || k < 1)
		return rt_fail(err, RT_ERR_UNSUPPORTED, "score: one-vs-rest needs float cases and at "
			       "least one program");
	float *out = rt_malloc((size_t)k * n * sizeof *out + 1, err);
	float *v = out ? rt_malloc((size_t)k * sizeof *v, err) : NULL;
	if (!v) {
		free(out);
		return err->status;
	}
	gp_packed_init(&pk);
	rt_status st = RT_OK;
	for (int c = 0; c < k && !st; c++)
		if (!(st = gp_pack_lgp(&pk, &progs[c], 1, err)))
			st = gp_eval_cpu_outputs(&pk, cases, out + (size_t)c * n, err);
	for (size_t r = 0; r < n && !st; r++) {
		for (int c = 0; c < k; c++)
			v[c] = out[(size_t)c * n + r];
		cls[r] = gp_argmax_class(v, k);
	}
	gp_packed_free(&pk);
	free(v);
	free(out);
	return st;
}

rt_status gp_score_argmax(const gp_tree *progs, int k, const gp_cases *cases, gp_score *s,
			  rt_error *err)
{
	memset(s, 0, sizeof *s);
	s->fitness = cases->fitness;
	s->ncases = cases->ncases;
	if (cases->fitness != GP_FIT_CLASS || cases->nclasses != k)
		return rt_fail(err, RT_ERR_INTERNAL, "score: one-vs-rest needs classification cases "
			       "with one class per program (%d programs, %d classes)", k,
			       cases->nclasses);
	int *cls = rt_malloc(cases->ncases * sizeof *cls + 1, err);
	rt_status st = cls ? gp_argmax_classes(progs, k, cases, cls, err) : err->status;
	if (!st)
		st = tally_init(s, k, err);
	for (size_t r = 0; r < cases->ncases && !st; r++)
		st = tally(s, r, (int)cases->y[r], (float)cls[r], err);
	s->accuracy = cases->ncases ? 1.0 - (double)s->wrong / (double)cases->ncases : NAN;
	free(cls);
	if (st)
		gp_score_free(s);
	return st;
}

/* ---- reporting ------------------------------------------------------------------ */

void gp_score_json(rt_json *j, const gp_score *s)
{
	rt_json_int(j, "cases", (long long)s->ncases);
	if (s->fitness != GP_FIT_CLASS) {
		rt_json_double(j, "mse", s->mse);
		return;
	}
	int k = s->nclasses;
	rt_json_double(j, "accuracy", s->accuracy);
	rt_json_int(j, "wrong", s->wrong);
	rt_json_begin_array(j, "per_class_accuracy");
	for (int c = 0; c < k; c++)
		rt_json_double(j, NULL, gp_score_class_accuracy(s, c));   /* NaN -> null */
	rt_json_end_array(j);
	rt_json_begin_array(j, "confusion");
	for (int c = 0; c < k; c++) {
		rt_json_begin_array(j, NULL);
		for (int d = 0; d < k; d++)
			rt_json_int(j, NULL, s->confusion[(size_t)c * k + d]);
		rt_json_end_array(j);
	}
	rt_json_end_array(j);
	rt_json_begin_array(j, "unclassified");
	for (int c = 0; c < k; c++)
		rt_json_int(j, NULL, s->unclassified[c]);
	rt_json_end_array(j);
}

static const char *class_name(char *const *names, int c, char *buf, size_t size)
{
	if (names && names[c])
		return names[c];
	snprintf(buf, size, "%d", c);
	return buf;
}

/* The test cases' confusion matrix, one rt_info line per true class. */
static void print_confusion(const gp_score *s, char *const *names)
{
	int k = s->nclasses, width = 6, any_nan = 0;
	char buf[32];
	rt_buf line = {0};
	for (int c = 0; c < k; c++) {
		int len = (int)strlen(class_name(names, c, buf, sizeof buf));
		width = len > width ? len : width;
		any_nan |= s->unclassified[c] > 0;
	}
	rt_info("confusion matrix on the test cases (rows: true class, columns: predicted%s):",
		any_nan ? "; NaN: output was NaN" : "");
	rt_buf_printf(&line, "  %*s", width, "");
	for (int d = 0; d < k; d++)
		rt_buf_printf(&line, " %*s", width, class_name(names, d, buf, sizeof buf));
	if (any_nan)
		rt_buf_printf(&line, " %*s", width, "NaN");
	rt_info("%s", line.data ? line.data : "");
	for (int c = 0; c < k; c++) {
		line.len = 0;
		rt_buf_printf(&line, "  %-*s", width, class_name(names, c, buf, sizeof buf));
		for (int d = 0; d < k; d++)
			rt_buf_printf(&line, " %*ld", width, s->confusion[(size_t)c * k + d]);
		if (any_nan)
			rt_buf_printf(&line, " %*ld", width, s->unclassified[c]);
		rt_info("%s", line.data ? line.data : "");
	}
	rt_buf_free(&line);
}

void gp_score_print(const gp_score *train, const gp_score *test, char *const *class_names)
{
	char buf[32];
	if (train->fitness != GP_FIT_CLASS) {
		rt_info("held-out: train mse %.9g on %zu cases, test mse %.9g on %zu cases",
			train->mse, train->ncases, test->mse, test->ncases);
		return;
	}
	rt_info("held-out: train accuracy %.6f (%ld of %zu wrong), test accuracy %.6f "
		"(%ld of %zu wrong)", train->accuracy, train->wrong, train->ncases, test->accuracy,
		test->wrong, test->ncases);
	rt_info("per-class accuracy (train / test; cases):");
	for (int c = 0; c < train->nclasses; c++)
		rt_info("  %-16s %.4f / %.4f  (%ld / %ld)", class_name(class_names, c, buf, sizeof buf),
			gp_score_class_accuracy(train, c), gp_score_class_accuracy(test, c),
			gp_score_class_total(train, c), gp_score_class_total(test, c));
	print_confusion(test, class_names);
}
