/* gp_constopt.h: local optimisation of a GP program's constants on mse
 * fitness cases: Levenberg-Marquardt with forward-mode derivatives through
 * a double-precision evaluation of the tree, as Operon tunes its programs.
 * With linear scaling on (gp_scale.h) the residual is y - (a + b f(x; c))
 * and a, b are projected out (variable projection: the least-squares line
 * of f re-derived at every step), so LM minimises exactly the scaled MSE the
 * search ranks by. Used on the run's Pareto front at the end of the run
 * ([gp] fit_front_steps) and on the top-k programs of each generation
 * ([gp] optimise_constants). The tree's structure never changes: only the
 * values of its constant nodes (named constants, pi and e, stay fixed). */
#ifndef RT_GP_CONSTOPT_H
#define RT_GP_CONSTOPT_H

#include "error.h"
#include "gp_front.h"
#include "gp_prog.h"
#include "gp_tree.h"

/* Programs with more constants than this are left as they are. */
#if !defined(GP_CONSTOPT_MAX_CONSTS)
#define GP_CONSTOPT_MAX_CONSTS 32
#endif

/* LM fits on at most this many cases, evenly spaced through the data
 * (the fitness evaluator then checks the result on all of them): a
 * program's few constants are determined by a few hundred points, and the
 * forward-mode pass costs cases x nodes x constants. */
#if !defined(GP_CONSTOPT_MAX_CASES)
#define GP_CONSTOPT_MAX_CASES 256
#endif

/* [gp] fit_front_steps when the spec has none (mse fitness with a front;
 * 0: off). Measured: bench/results/gp-constants-cpu-2026-11-27.md. */
#if !defined(GP_FIT_FRONT_STEPS_DEFAULT)
#define GP_FIT_FRONT_STEPS_DEFAULT 50
#endif

/* Runs up to `steps` Levenberg-Marquardt trials on the constants of t
 * (float regression cases; scaled when cases->scale), keeping each that
 * lowers the MSE. *mse gets the fitness of t as it is returned, computed
 * by the lgp2d fitness evaluator (so equal to what a CPU run reports for
 * t); it is not larger than t's fitness on entry (constants that do not
 * lower it are put back). A tree without constants (or with more than
 * GP_CONSTOPT_MAX_CONSTS) is returned unchanged. */
rt_status gp_constopt_tree(gp_tree *t, const gp_cases *cases, int steps, double *mse,
			   rt_error *err);

/* gp_constopt_tree on the k programs of pop with the lowest finite fitness
 * (ties: lower index first); fitness[i] becomes the new MSE where it is
 * lower, and the tree keeps its new constants. Depends only on (pop,
 * fitness, cases), so a CPU and a GPU run that agree on fitness agree here. */
rt_status gp_constopt_population(gp_tree *pop, double *fitness, int n, int k,
				 const gp_cases *cases, int steps, rt_error *err);

/* gp_constopt_tree on every member of the front f (on the host, whatever
 * backend evaluated the run): a member whose fitted fitness is below its
 * error takes the fitted constants and error; then the archive is filtered
 * again (a fitted member may dominate others, which leave). *improved (may
 * be NULL): how many members were improved. */
rt_status gp_constopt_front(gp_front *f, const gp_cases *cases, int steps, int *improved,
			    rt_error *err);

/* Does t's float evaluation (the interpreter a run scores, exports and
 * predicts with) render t's formula in double on the cases: outputs at most
 * 1e15 and within 1e-4 of their spread (sampled: at most ~4096 cases)?
 * 1 for non-MSE cases. A program whose terms cancel (x3 + ... - x3 under a
 * slope of 4e4) fails: its printed formula would not give its predictions. */
int gp_constopt_faithful(const gp_tree *t, const gp_cases *cases);

#endif
