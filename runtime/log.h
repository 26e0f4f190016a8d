/* log.h: progress and diagnostic messages on stderr/stdout, honouring --quiet. */
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

/* v with an SI prefix, 3 significant digits ("1.23G"), into buf. */
const char *rt_si(double v, char *buf, size_t size);

/* Seconds from a monotonic clock. */
double rt_now(void);

#endif
