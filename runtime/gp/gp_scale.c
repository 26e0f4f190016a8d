/* gp_scale.c: linear scaling's data set sums, the CPU sums and line of one
 * program, and the rewriting of the run's best program as a + b*f
 * (gp_scale.h; the formulas are templates/gp/gp_fitness.h's gp_ls_*). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "gp_conv.h"
#include "gp_eval.h"
#include "gp_scale.h"
#include "gp/gp_fitness.h"

rt_status gp_scale_prepare(gp_cases *c, rt_error *err)
{
	if (c->fitness != GP_FIT_MSE)
		return rt_fail(err, RT_ERR_INPUT, "linear scaling needs mse fitness (regression)");
	double sum = 0.0, syc = 0.0, syy = 0.0;
	for (size_t i = 0; i < c->ncases; i++)
		sum += (double)c->y[i];
	double mean = c->ncases ? sum / (double)c->ncases : 0.0;
	for (size_t i = 0; i < c->ncases; i++) {
		double d = (double)c->y[i] - mean;
		syc += d;
		syy += d * d;
	}
	c->scale = 1;
	c->ymean = mean;
	c->syc = syc;
	c->syy = syy;
	return RT_OK;
}

void gp_scale_moments(const float *out, const float *y, double ymean, size_t n,
		      double m[GP_LS_NM])
{
	double s[4] = {0.0, 0.0, 0.0, 0.0}, k = n ? (double)out[0] : 0.0;
	for (size_t i = 0; i < n; i++)
		gp_ls_acc(s, (double)out[i], (double)y[i] - ymean, k);
	gp_ls_moments((double)n, k, s, m);
}

double gp_scale_fitness(const gp_cases *c, const double m[GP_LS_NM])
{
	return gp_ls_mse(m, c->syc, c->syy, (double)c->ncases);
}

rt_status gp_scale_coeffs(const gp_tree *prog, const gp_cases *c, double *a, double *b,
			  rt_error *err)
{
	gp_packed pk;
	double m[GP_LS_NM], n = (double)c->ncases;
	if (!gp_scale_on(c))
		return rt_fail(err, RT_ERR_INPUT, "linear scaling is off for these cases");
	float *out = rt_malloc(c->ncases * sizeof *out + 1, err);
	if (!out)
		return err->status;
	gp_packed_init(&pk);
	rt_status st = gp_pack_lgp(&pk, prog, 1, err);
	if (!st)
		st = gp_eval_cpu_outputs(&pk, c, out, err);
	if (!st) {
		gp_scale_moments(out, c->y, c->ymean, c->ncases, m);
		*b = gp_ls_slope(m);   /* 0 for a NaN or infinite output: the constant mean(y) */
		*a = gp_ls_intercept(*b, m, c->syc, c->ymean, n);
	}
	gp_packed_free(&pk);
	free(out);
	return st;
}

rt_status gp_scale_wrap(gp_tree *t, float a, float b, rt_error *err)
{
	if (a == 0.0f && b == 1.0f)
		return RT_OK;
	gp_node head[4];
	memset(head, 0, sizeof head);
	head[0].op = GP_OP_ADD;
	head[1].op = GP_TERM_CONST;
	head[1].value = a;
	if (b == 0.0f) {   /* the constant a: + a 0 (a program's root is a function) */
		head[2].op = GP_TERM_CONST;
		head[2].value = 0.0f;
		return gp_tree_set(t, head, 3, err);
	}
	head[2].op = GP_OP_MUL;
	head[3].op = GP_TERM_CONST;
	head[3].value = b;
	int n = t->n;
	rt_status st = gp_tree_reserve(t, n + 4, err);
	if (st)
		return st;
	memmove(t->nodes + 4, t->nodes, (size_t)n * sizeof *t->nodes);
	memcpy(t->nodes, head, sizeof head);
	t->n = n + 4;
	return RT_OK;
}

/* Is intercept a below the resolution of float outputs on c's targets
 * (|a| <= 2^-23 of their root mean square)? Such an a is rounding noise of
 * the fit (the sextic's exact programs get a ~ 1e-11): leaving it out
 * raises the MSE by a^2, below what a float output can show. */
static int negligible_intercept(const gp_cases *c, double a)
{
	double n = (double)c->ncases;
	double rms = sqrt(c->ymean * c->ymean + (n > 0 ? c->syy / n : 0.0));
	return fabs(a) <= 0x1p-23 * rms;
}

rt_status gp_scale_best(const gp_cases *c, gp_tree *best, double *a, double *b, rt_error *err)
{
	double la = 0.0, lb = 1.0;
	rt_status st = RT_OK;
	if (gp_scale_on(c) && best->n > 0 &&
	    !(st = gp_scale_coeffs(best, c, &la, &lb, err))) {
		if (lb != 0.0 && negligible_intercept(c, la))
			la = 0.0;
		st = gp_scale_wrap(best, (float)la, (float)lb, err);
	}
	if (a)
		*a = la;
	if (b)
		*b = lb;
	return st;
}
