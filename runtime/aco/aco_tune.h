/* aco_tune.h: kind aco's tuning hooks for `evoforge tune` (runtime/tune.h):
 * GPU threads per block of the construction kernel and where the warp
 * kernel reads its candidate table; CPU threads. */
#ifndef RT_ACO_TUNE_H
#define RT_ACO_TUNE_H

#include "aco_impl.h"
#include "tune.h"

extern const rt_tune_kind aco_tune_kind;

/* The prune check of a prepared job's GPU configuration without a GPU: plans
 * its construction launch for a device of sms SMs and smem_optin bytes of
 * shared memory per block (*ok = 0 with why when it does not fit), compiles
 * the kernels for arch (kernel cache) and sets *ok = 0 when the construction
 * kernel spills or needs more than regs_per_block registers. */
rt_status aco_tune_check(const aco_job *job, const char *arch, int sms, int smem_optin,
			 int regs_per_block, int *ok, char *why, int size, rt_error *err);

#endif
