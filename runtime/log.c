/* log.c: progress and diagnostic messages. */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "log.h"

static int quiet_mode;
static rt_log_sink sink_fn;
static void *sink_user;

void rt_log_set_quiet(int quiet) { quiet_mode = quiet; }
int rt_log_quiet(void) { return quiet_mode; }

void rt_log_set_sink(rt_log_sink sink, void *user)
{
	sink_fn = sink;
	sink_user = user;
}

/* Formats the line and hands it to the sink (a long line: on the heap; out
 * of memory: its first 1023 bytes). */
static void to_sink(int level, const char *fmt, va_list ap)
{
	char small[1024], *line = small;
	va_list again;
	int n;
	va_copy(again, ap);
	n = vsnprintf(small, sizeof small, fmt, ap);
	if (n >= (int)sizeof small && (line = malloc((size_t)n + 1)) != NULL)
		vsnprintf(line, (size_t)n + 1, fmt, again);
	else if (!line)
		line = small;
	va_end(again);
	sink_fn(level, n < 0 ? "" : line, sink_user);
	if (line != small)
		free(line);
}

void rt_info(const char *fmt, ...)
{
	va_list ap;
	if (quiet_mode)
		return;
	va_start(ap, fmt);
	if (sink_fn) {
		to_sink(RT_LOG_INFO, fmt, ap);
		va_end(ap);
		return;
	}
	vfprintf(stdout, fmt, ap);
	va_end(ap);
	fputc('\n', stdout);
	fflush(stdout);
}

void rt_warn(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	if (sink_fn) {
		to_sink(RT_LOG_WARN, fmt, ap);
		va_end(ap);
		return;
	}
	fputs("evoforge: warning: ", stderr);
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
