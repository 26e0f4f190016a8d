/* timeline.h: where a process's wall time goes. Each process (MPI rank)
 * records named moments as it runs (rt_mark: process start, MPI start, spec,
 * data files, GPU context, kernels compiled or loaded, the loop, gathers,
 * files written); with EVOFORGE_TIMELINE set, `run` ends by gathering every
 * rank's moments on rank 0, which writes DIR/timeline.csv:
 *   rank,mark,seconds,unix_time
 * (seconds since that rank's process started; unix_time to line ranks and
 * a launcher's own clock up). tools/mpi-scaling reads it. Recording costs a
 * clock read and a copy of the name; past RT_TIMELINE_MARKS the rest are
 * dropped (the last slot says how many). */
#ifndef RT_TIMELINE_H
#define RT_TIMELINE_H
#include "error.h"

#define RT_TIMELINE_MARKS 96
#define RT_TIMELINE_NAME 40

/* Records the moment `name` (copied; cut to RT_TIMELINE_NAME - 1 bytes). */
void rt_mark(const char *name);
/* The same with a detail appended: "name detail" (a file's base name). */
void rt_mark_detail(const char *name, const char *detail);
/* Now, as unix time (CLOCK_REALTIME, seconds). */
double rt_unix_now(void);
/* This process's start (unix time, from /proc; 0 when unknown). */
double rt_process_start_time(void);
/* Is EVOFORGE_TIMELINE set (to anything but "" or "0")? */
int rt_timeline_on(void);
/* The folder the run writes its results to (rt_job_outdir calls it). */
void rt_timeline_set_dir(const char *dir);
/* With the timeline on: every rank's moments to rank 0, which writes
 * DIR/timeline.csv (atomically). Every rank must call it; off: nothing. */
rt_status rt_timeline_finish(rt_error *err);

#endif
