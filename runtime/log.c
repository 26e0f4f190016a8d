/* log.c: progress and diagnostic messages. */
#include <math.h>
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

const char *rt_si(double v, char *buf, size_t size)
{
	static const char *const units[] = {"", "k", "M", "G", "T", "P"};
	int u = 0;
	while (fabs(v) >= 1000.0 && u < 5) {
		v /= 1000.0;
		u++;
	}
	snprintf(buf, size, "%.3g%s", v, units[u]);
	return buf;
}
