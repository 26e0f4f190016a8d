/* kprep.h: the kernels a run needs, compiled before its first step, and the
 * start-up it reports.
 *
 * A kind lists the compiles its GPU run may make (the rt_kernel_emit it
 * also gives `evoforge build`) into a pool as soon as it knows the arch;
 * the pool's threads compile them in parallel (nvrtc_prepare) while the
 * kind goes on opening its context, uploading data and building its
 * population; the kind's own nvrtc_compile calls then get the prepared
 * cubins (or wait for one still under way). rt_kprep_finish, before the
 * first step, waits for the rest, so no compile falls inside the run's
 * generations however its stack depths or variants grow.
 *
 * rt_run_begins marks that first step: start-up (from rt_startup_begin,
 * else the process's start) and the compiles so far, for the progress
 * line and result.json (rt_startup_json: startup_s, compile_s, compiles,
 * compiles_in_run). */
#ifndef RT_KPREP_H
#define RT_KPREP_H

#include "error.h"
#include "out.h"

typedef struct rt_kprep rt_kprep;

/* A pool compiling for arch ("sm_90") with up to `threads` threads (0: the
 * cores this process may use). */
rt_status rt_kprep_open(const char *arch, int threads, rt_kprep **out, rt_error *err);
/* rt_kernel_emit's shape (ctx: the pool): queues one compile; the arguments
 * are copied. Starts a thread when fewer are running than queued jobs. */
rt_status rt_kprep_add(void *ctx, const char *name, const char *source, const char *const *options,
		       int noptions, rt_error *err);
/* Waits for every queued compile and frees the pool (NULL: nothing); the
 * first failure, if any (the kind's own compile of that kernel would give
 * the same error). */
rt_status rt_kprep_finish(rt_kprep *p, rt_error *err);

/* The calling thread's pool for arch, opened on first use; rt_run_begins
 * (same thread) finishes it. What kinds call as soon as they know the
 * arch; then rt_kprep_add each kernel. */
rt_status rt_kprep_start(const char *arch, rt_kprep **out, rt_error *err);

/* Finishes the calling thread's pool, if any (rt_run_begins and
 * rt_run_ends do; the core does after every job, so none outlives it). */
void rt_kprep_release(void);

/* rt_kprep_start and rt_kprep_add for one compile: it begins now, on a
 * pool thread, while the caller opens its context; the caller's own
 * nvrtc_compile of it then waits for it. */
rt_status rt_kprep_early(const char *arch, const char *name, const char *source,
			 const char *const *options, int noptions, rt_error *err);

/* Where start-up is counted from (the API's job run; default: the process's
 * start). */
void rt_startup_begin(void);
/* A loop's first step (timeline mark "run"): waits for the thread's pool,
 * then, the first time, records start-up and the compiles so far and says
 * (rt_info) how long start-up took and how much of it was compiling. */
void rt_run_begins(const char *kind);
/* The loop's end (mark "run end"): compiles in between count as in-run. */
void rt_run_ends(void);
/* result.json's startup_s, compile_s, compiles (NVRTC runs), kernels_cached
 * (from the disk cache or embedded), compiles_in_run (inside loops). The counts
 * are the process's, since it began (or since rt_startup_begin). */
void rt_startup_json(rt_json *j);

#endif
