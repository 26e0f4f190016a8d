/* error.c: building error messages and checked allocation. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "signals.h"

rt_status rt_fail(rt_error *err, rt_status status, const char *fmt, ...)
{
	if (err) {
		va_list ap;
		va_start(ap, fmt);
		vsnprintf(err->msg, sizeof err->msg, fmt, ap);
		va_end(ap);
		err->status = status;
	}
	return status;
}

void rt_error_prefix(rt_error *err, const char *fmt, ...)
{
	char prefix[RT_ERROR_MAX], old[RT_ERROR_MAX];
	va_list ap;
	if (!err)
		return;
	va_start(ap, fmt);
	vsnprintf(prefix, sizeof prefix, fmt, ap);
	va_end(ap);
	memcpy(old, err->msg, sizeof old);
	rt_fail(err, err->status, "%s: %s", prefix, old);  /* truncates a very long message */
}

rt_status rt_format(char *buf, size_t size, rt_error *err, const char *fmt, ...)
{
	va_list ap;
	int n;
	va_start(ap, fmt);
	n = vsnprintf(buf, size, fmt, ap);
	va_end(ap);
	if (n < 0 || (size_t)n >= size)
		return rt_fail(err, RT_ERR_INPUT, "text too long (more than %zu characters): %.80s...",
			       size - 1, buf);
	return RT_OK;
}

int rt_exit_code(rt_status status)
{
	if (status == RT_OK)
		return rt_stop_requested() ? RT_EXIT_INTERRUPTED : 0;
	return status == RT_ERR_INPUT ? 2 : 1;
}

#ifdef RT_TESTS
static long alloc_countdown = -1;
void rt_alloc_fail_after(long n) { alloc_countdown = n; }
static int alloc_should_fail(void)
{
	if (alloc_countdown < 0)
		return 0;
	return alloc_countdown-- == 0;
}
#else
static int alloc_should_fail(void) { return 0; }
#endif

void *rt_malloc(size_t size, rt_error *err)
{
	void *p = alloc_should_fail() ? NULL : malloc(size ? size : 1);
	if (!p)
		rt_fail(err, RT_ERR_SYSTEM, "out of memory (asked for %zu bytes)", size);
	return p;
}

void *rt_calloc(size_t n, size_t size, rt_error *err)
{
	void *p = alloc_should_fail() ? NULL : calloc(n ? n : 1, size ? size : 1);
	if (!p)
		rt_fail(err, RT_ERR_SYSTEM, "out of memory (asked for %zu x %zu bytes)", n, size);
	return p;
}

void *rt_realloc(void *old, size_t size, rt_error *err)
{
	void *p = alloc_should_fail() ? NULL : realloc(old, size ? size : 1);
	if (!p)
		rt_fail(err, RT_ERR_SYSTEM, "out of memory (asked for %zu bytes)", size);
	return p;
}

char *rt_strdup(const char *s, rt_error *err)
{
	size_t n = strlen(s) + 1;
	char *p = rt_malloc(n, err);
	if (p)
		memcpy(p, s, n);
	return p;
}
