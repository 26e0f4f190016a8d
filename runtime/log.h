/* log.h: progress and diagnostic messages on stderr/stdout, honouring --quiet;
 * or, with a sink set (the C API, runtime/api.c), to the sink instead. */
#ifndef RT_LOG_H
#define RT_LOG_H

#include <stddef.h>

/* Quiet mode suppresses rt_info (progress); warnings and errors still print. */
void rt_log_set_quiet(int quiet);
int rt_log_quiet(void);

/* Progress and results, to stdout (unless quiet). */
void rt_info(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Something the user should know, to stderr: "evoforge: warning: ...". */
void rt_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Where the lines go instead of stdout/stderr: sink(level, line, user) for
 * each line (no newline; RT_LOG_WARN lines without the "evoforge: warning: "
 * prefix). NULL sink: stdout and stderr, as the CLI prints (the default).
 * Quiet mode still drops info lines before the sink sees them. Process-wide:
 * the C API sets it around a run. */
enum { RT_LOG_INFO = 0, RT_LOG_WARN = 1 };
typedef void (*rt_log_sink)(int level, const char *line, void *user);
void rt_log_set_sink(rt_log_sink sink, void *user);

/* v with an SI prefix, 3 significant digits ("1.23G"), into buf. */
const char *rt_si(double v, char *buf, size_t size);

/* Seconds from a monotonic clock. */
double rt_now(void);

#endif
