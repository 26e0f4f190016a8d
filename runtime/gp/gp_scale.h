/* gp_scale.h: linear scaling of GP regression programs (Keijzer 2003;
 * [gp] linear_scaling, on by default for mse fitness): a program's output
 * f stands for a + b*f, the least-squares line through the training cases,
 * and its fitness is that line's MSE (the formulas: templates/gp/gp_fitness.h,
 * gp_ls_*; the evaluators add up shifted sums in the pass that runs the
 * program, turn them into per-chunk moments (count, means, M2, co-moment)
 * and merge the chunks in order with Chan et al.'s update, so the result
 * is that of a float64 two-pass computation, on the CPU and the GPU alike,
 * even when an output's mean is large beside its spread). The search keeps bare programs; the run's best is rewritten as
 * the tree + a * b (f) once the run is over (gp_scale_best), so its infix,
 * simplified formula, export, predictions and held-out scores all carry a
 * and b. Checkpoints hold the bare programs (a and b are recomputed). */
#ifndef RT_GP_SCALE_H
#define RT_GP_SCALE_H

#include "error.h"
#include "gp_prog.h"
#include "gp_tree.h"
#include "gp/gp_fitness.h"

/* Turns scaling on for float MSE cases c: c->scale, and c->ymean, c->syc,
 * c->syy (case order, double). RT_ERR_INPUT for other fitness kinds. */
rt_status gp_scale_prepare(gp_cases *c, rt_error *err);

/* Is scaling on for these cases? */
static inline int gp_scale_on(const gp_cases *c)
{
	return c && c->scale;
}

/* m = the moments (gp_fitness.h: n, mean f, mean yc, M2, co-moment) of
 * out[0..n) with yc = (double)y[i] - ymean, in double, in case order,
 * shifted by out[0]. */
void gp_scale_moments(const float *out, const float *y, double ymean, size_t n,
		      double m[GP_LS_NM]);

/* The scaled fitness of the moments m over c's cases (gp_ls_mse). */
double gp_scale_fitness(const gp_cases *c, const double m[GP_LS_NM]);

/* The line of program prog on cases c (scaling on): a and b from its
 * outputs on the CPU interpreter, the sums in case order. */
rt_status gp_scale_coeffs(const gp_tree *prog, const gp_cases *c, double *a, double *b,
			  rt_error *err);

/* t becomes + a * b t, with a and b rounded to float (b = 0: + a 0, the
 * constant; a = 0 and b = 1: unchanged). */
rt_status gp_scale_wrap(gp_tree *t, float a, float b, rt_error *err);

/* When c has scaling on: best rewritten by gp_scale_wrap with its line
 * on c, an intercept below the float resolution of the targets (|a| <=
 * 2^-23 of their RMS) left out as 0; *a, *b (may be NULL) get the line
 * (0 and 1 when off). */
rt_status gp_scale_best(const gp_cases *c, gp_tree *best, double *a, double *b, rt_error *err);

#endif
