/* mbp_tune.h: kind mbp's tuning hooks for `evoforge tune` (runtime/tune.h):
 * GPU kernels (fused or split), threads per block and input staging; CPU
 * threads. */
#ifndef RT_MBP_TUNE_H
#define RT_MBP_TUNE_H

#include "mbp_impl.h"
#include "tune.h"

extern const rt_tune_kind mbp_tune_kind;

/* The prune check of a job's GPU configuration without a GPU: *ok = 0 with
 * why when the kernel cannot be generated for it (too many weights per
 * thread), needs more than smem_optin bytes of shared memory, or, compiled
 * for arch (kernel cache), spills registers or needs more than
 * regs_per_block of them. */
rt_status mbp_tune_check(const mbp_job *job, const char *arch, int smem_optin, int regs_per_block,
			 int *ok, char *why, int size, rt_error *err);

#endif
