/* signals.h: a graceful stop on SIGINT and SIGTERM for long runs, and
 * file-size limits as write errors rather than a silent death.
 *
 * `evoforge run` (and a built program's run) calls rt_signals_install:
 * the first SIGINT or SIGTERM only sets a flag; every kind polls
 * rt_stop_requested() between its steps (generations, iterations, epochs,
 * SMO launches), stops there, writes its results so far marked
 * "interrupted" and returns; the command then exits with
 * RT_EXIT_INTERRUPTED. A second SIGINT or SIGTERM ends the process at once
 * (exit 128 + the signal's number), as if no handler were installed.
 * SIGXFSZ is ignored everywhere, so a write past `ulimit -f` fails with
 * EFBIG and is reported, naming the file (rt_write_file_atomic). */
#ifndef RT_SIGNALS_H
#define RT_SIGNALS_H

#include "error.h"

/* The exit status of a run stopped by SIGINT or SIGTERM whose results so
 * far were written (0 success, 1 error, 2 bad input). */
#define RT_EXIT_INTERRUPTED 3

/* rt_stop_requested()'s value for a stop the C API's caller asked for (its
 * progress callback returned non-zero): not a signal number. */
#define RT_STOP_CALLER 256

/* Installs the SIGINT/SIGTERM handlers (for commands that poll). */
void rt_signals_install(void);

/* Ignores SIGXFSZ (every command: the write fails with EFBIG instead). */
void rt_signals_ignore_file_size(void);

/* Non-zero once SIGINT or SIGTERM has arrived (or was adopted): the
 * signal's number. */
int rt_stop_requested(void);

/* The C API (runtime/api.c): asks the running job to stop between steps as
 * a signal would (rt_stop_requested() then says RT_STOP_CALLER unless a
 * signal came too); rt_stop_caller_clear() withdraws that request before
 * the next job. No handler is involved. */
void rt_stop_caller_request(void);
void rt_stop_caller_clear(void);

/* A job of several MPI ranks: the ranks agreed to stop for a signal that
 * another rank got (signo), so this one stops as if it had got it too (its
 * kind ends the same way, "interrupted", exit 3). A signal arriving later
 * is still this process's first. */
void rt_stop_adopt(int signo);

/* Every rank (a collective): *signo, this rank's stop request (0: none),
 * becomes the highest over the ranks, which this rank adopts. One process:
 * unchanged. */
rt_status rt_stop_agree(int *signo, rt_error *err);

/* "SIGINT", "SIGTERM", "callback" (RT_STOP_CALLER) or NULL when no stop
 * was requested. */
const char *rt_stop_signal_name(void);

struct rt_json;
/* In a result.json being written: "interrupted": true and "stopped_by"
 * (the signal) when a stop was requested; nothing otherwise, so that an
 * uninterrupted run's file is as it always was. */
void rt_json_interrupted(struct rt_json *j);

#if defined(RT_TESTS)
/* Tests: as if the signal had arrived (0 clears the request). */
void rt_stop_request_for_test(int signo);
#endif

#endif
