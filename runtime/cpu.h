/* cpu.h: the CPU backend's threads: a parallel-for over a range of work
 * items with a fixed pool of pthreads (started once, reused). */
#ifndef RT_CPU_H
#define RT_CPU_H

#include <stddef.h>

#include "error.h"

/* Body of a parallel loop: runs items [begin, end) on worker `thread`. */
typedef void (*cpu_range_fn)(void *ctx, long begin, long end, int thread);

/* Number of threads to use: `requested` if > 0, else the cores this
 * process may use (its affinity; shared among the job's ranks on a host). */
int cpu_thread_count(int requested);
/* The job's other processes on this host have finished their share (rank 0
 * writing the gathered results): from now on the default thread count is
 * every core this process may use, not its share of the host. */
void cpu_take_host(void);
/* Sets the pool's size for later calls (0 = all cores). */
void cpu_set_threads(int threads);
int cpu_threads(void);
/* The CPU's model name ("model name" in /proc/cpuinfo), or "unknown CPU". */
void cpu_model_name(char *buf, size_t size);

/* Splits [0, n) into chunks of `grain` items handed out dynamically to the
 * pool's threads; returns when all are done. One loop at a time: call it
 * from one thread; a call from inside a loop body runs inline on its thread. */
rt_status cpu_parallel_for(long n, long grain, cpu_range_fn fn, void *ctx, rt_error *err);

#endif
