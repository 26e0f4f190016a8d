/* nvrtc.h: NVRTC (opened with dlopen) compiling generated CUDA source to a
 * cubin, through the disk cache in kcache.h.
 *
 * The compile log is fetched before the result is checked; on failure the
 * error holds the program's name, the options, the log and the path of the
 * generated source (written next to the cache so it can be read). */
#ifndef RT_NVRTC_H
#define RT_NVRTC_H

#include <stddef.h>

#include "error.h"

/* Opens libnvrtc (EVOFORGE_LIBNVRTC overrides the name). */
rt_status nvrtc_open(rt_error *err);
/* NVRTC's version, e.g. 13 0. */
rt_status nvrtc_version(int *major, int *minor, rt_error *err);
#ifdef RT_TESTS
/* Forgets nvrtc_open's result and closes the library (tests of EVOFORGE_LIBNVRTC). */
void nvrtc_reset_for_tests(void);
#endif

typedef struct nvrtc_output {
	void *cubin;
	size_t size;
	char *log;          /* compiler log (ptxas -v output with -Xptxas -v) */
	int from_cache;     /* 1: loaded from the disk cache */
} nvrtc_output;

/* Compiles `source` named `name` (e.g. "gp_gpu-lgp-fast-s8.cu") for `arch`
 * ("sm_90") with extra options (may be NULL/0), always with
 * --gpu-architecture=<arch> -std=c++17 -default-device first. Uses the cache
 * unless EVOFORGE_NO_CACHE is set; a kernel embedded in evoforge at its
 * build (generic.h) is taken from there unless EVOFORGE_NO_EMBEDDED is set;
 * EVOFORGE_CACHE_STRICT makes a miss
 * RT_ERR_INTERNAL. A compile error is RT_ERR_NVRTC with the name, options,
 * log and the path of the saved source (<cache>/failed/<name>). On success
 * out->log is never NULL (may be ""). */
rt_status nvrtc_compile(const char *name, const char *source, const char *arch,
			const char *const *options, int noptions, nvrtc_output *out,
			rt_error *err);
void nvrtc_output_free(nvrtc_output *out);

/* Compiles as nvrtc_compile would and keeps the result in this process (no
 * output): a later nvrtc_compile of the same arguments, from any thread,
 * gets a copy, and one made while this is under way waits for it instead of
 * compiling again. What runtime/kprep.h's threads call, before a run's
 * first step. Thread-safe. */
rt_status nvrtc_prepare(const char *name, const char *source, const char *arch,
			const char *const *options, int noptions, rt_error *err);
/* Lists the compile for preparing: 1 if it is now listed (a thread should
 * nvrtc_prepare it; until one does, an nvrtc_compile of it makes it
 * itself), 0 if there is nothing to do: listed before, embedded in a built
 * program, or not compilable here (no NVRTC, bad arguments: the run's own
 * nvrtc_compile reports that). */
int nvrtc_reserve(const char *name, const char *source, const char *arch,
		  const char *const *options, int noptions);
/* Forgets every prepared result (tests; a long-lived process may call it
 * between unrelated jobs). */
void nvrtc_prepared_clear(void);

/* What this process's kernel compiles cost so far (every thread). */
typedef struct nvrtc_stats {
	int compiled;       /* NVRTC runs */
	int from_disk;      /* disk-cache hits (kcache.h) */
	int from_memory;    /* copies of prepared results */
	int prebuilt;       /* cubins embedded by `evoforge build` */
	double compile_s;   /* the NVRTC runs' seconds, summed over threads */
} nvrtc_stats;
void nvrtc_stats_get(nvrtc_stats *out);

/* Parses "-Xptxas -v" output for a kernel: registers, spill stores/loads
 * (bytes), local memory per thread (stack frame); -1 where absent.
 * RT_ERR_INPUT if the log has no report for that kernel at all. */
typedef struct nvrtc_usage {
	int registers, spill_stores, spill_loads, stack_frame;
} nvrtc_usage;
rt_status nvrtc_parse_usage(const char *log, const char *kernel, nvrtc_usage *u, rt_error *err);

#endif
