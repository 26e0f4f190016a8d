/* gp_ovr.h: the one-vs-rest multi-class scheme ([gp] multiclass =
 * one-vs-rest) for kind gp: K binary sub-problems, class c against the rest,
 * each evolved by the ordinary loop (gp_evolve_with) and evaluators on the
 * same inputs with the label replaced by (y == c ? 1 : 0) as a 2-class
 * round-to-class problem; the combined classifier predicts the class whose
 * program's output is largest (gp_score.h: gp_argmax_class). */
#ifndef RT_GP_OVR_H
#define RT_GP_OVR_H

#include <stdint.h>

#include "gp_problem.h"
#include "kinds.h"

/* The Philox stream the sub-problems' seeds are drawn from (stream + c). */
#define GP_OVR_STREAM 0x0f7e5000000000ull

/* The seed of sub-problem c: the first 64 bits of Philox (seed, stream
 * GP_OVR_STREAM + c), so it depends on the run's seed and c alone. */
uint64_t gp_ovr_seed(uint64_t seed, int c);
/* The label transform: *bin shares all's inputs (x; never free it with
 * gp_cases_free) and owns a fresh y[r] = (all->y[r] == c ? 1 : 0), with
 * nclasses = 2. Free with gp_ovr_cases_free. */
rt_status gp_ovr_cases(const gp_cases *all, int c, gp_cases *bin, rt_error *err);
void gp_ovr_cases_free(gp_cases *bin);
/* `evoforge run` of a one-vs-rest spec (p loaded, dir made): the K
 * evolutions one after another, the combined classifier scored on the
 * training (and test) cases, result.json and history.csv in dir. */
rt_status gp_ovr_run(rt_spec *spec, const rt_options *opt, const gp_problem *p, uint64_t seed,
		     const char *dir, rt_error *err);

#endif
