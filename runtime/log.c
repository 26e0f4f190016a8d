/* log.c: progress and diagnostic messages. */
#include <stdarg.h>
#include <stdio.h>
#include <time.h>

#include "log.h"

static int quiet_mode;

void rt_log_set_quiet(int quiet) { quiet_mode = quiet; }
int rt_log_quiet(void) { return quiet_mode; }

void rt_info(const char *fmt, ...)
{
	va_list ap;
	if (quiet_mode)
		return;
	va_start(ap, fmt);
	vfprintf(stdout, fmt, ap);
	va_end(ap);
	fputc('\n', stdout);
	fflush(stdout);
}

void rt_warn(const char *fmt, ...)
{
	va_list ap;
	fputs("evoforge: warning: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

double rt_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}
