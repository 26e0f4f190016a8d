/* gp_constopt.h: local optimisation of a GP program's constants on mse
 * fitness cases ([gp] optimise_constants): Levenberg-Marquardt steps with a
 * forward-difference Jacobian taken on the CPU interpreter's outputs, as
 * Operon tunes its best programs. The tree's structure never changes: only
 * the values of its constant nodes. */
#ifndef RT_GP_CONSTOPT_H
#define RT_GP_CONSTOPT_H

#include "error.h"
#include "gp_prog.h"
#include "gp_tree.h"

/* Programs with more constants than this are left as they are (the Jacobian
 * is kept as floats, this many columns of the cases). */
#if !defined(GP_CONSTOPT_MAX_CONSTS)
#define GP_CONSTOPT_MAX_CONSTS 32
#endif

/* Runs `steps` Levenberg-Marquardt trials on the constants of t (float
 * regression cases), keeping each that lowers the MSE. *mse gets the MSE of
 * t as it is returned, computed by the lgp2d fitness evaluator (so equal to
 * what a run reports for t); it is not larger than t's MSE on entry. A tree
 * without constants (or with more than GP_CONSTOPT_MAX_CONSTS) is returned
 * unchanged. */
rt_status gp_constopt_tree(gp_tree *t, const gp_cases *cases, int steps, double *mse,
			   rt_error *err);

/* gp_constopt_tree on the k programs of pop with the lowest finite fitness
 * (ties: lower index first); fitness[i] becomes the new MSE where it is
 * lower, and the tree keeps its new constants. Depends only on (pop,
 * fitness, cases), so a CPU and a GPU run that agree on fitness agree here. */
rt_status gp_constopt_population(gp_tree *pop, double *fitness, int n, int k,
				 const gp_cases *cases, int steps, rt_error *err);

#endif
