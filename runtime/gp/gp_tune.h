/* gp_tune.h: kind gp's tuning hooks for `evoforge tune` (runtime/tune.h):
 * CPU block and threads; the GPU interpreter's form, cases per thread,
 * register levels, threads per block, passes and carve-out. */
#ifndef RT_GP_TUNE_H
#define RT_GP_TUNE_H

#include "gp_gpu.h"
#include "gp_problem.h"
#include "tune.h"

extern const rt_tune_kind gp_tune_kind;

/* The prune check of a GPU configuration without a GPU: renders p's
 * interpreter for c, compiles it for arch (kernel cache) and sets *ok = 0
 * with why when gpg_eval spills or needs more than regs_per_block
 * registers (0: no limit checked). */
rt_status gp_tune_prune_variant(const gp_problem *p, const gp_gpu_config *c, const char *arch,
				int regs_per_block, int *ok, char *why, int size, rt_error *err);

#endif
