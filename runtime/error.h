/* error.h: the library's error value. Library functions return an rt_status
 * and fill an rt_error; only the CLI and tools print it and exit. */
#ifndef RT_ERROR_H
#define RT_ERROR_H

#include <stddef.h>

#include "config.h"

typedef enum rt_status {
	RT_OK = 0,
	RT_ERR_INPUT = 2,    /* bad spec, data or arguments: the user's to fix (exit 2) */
	RT_ERR_SYSTEM = 3,   /* I/O or out of memory */
	RT_ERR_NOGPU = 4,    /* no CUDA driver or no device: caller may fall back to CPU */
	RT_ERR_CUDA = 5,     /* a CUDA driver call failed */
	RT_ERR_NVRTC = 6,    /* NVRTC failed (compile log in the message) */
	RT_ERR_UNSUPPORTED = 7, /* asked for something this build does not do */
	RT_ERR_INTERNAL = 8  /* a broken invariant: a bug in evoforge */
} rt_status;

typedef struct rt_error {
	rt_status status;
	char msg[RT_ERROR_MAX];
} rt_error;

/* Sets err (if non-NULL) to status and the printf-style message; returns status. */
rt_status rt_fail(rt_error *err, rt_status status, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* Prepends "prefix: " to err's message (adds context as an error travels up). */
void rt_error_prefix(rt_error *err, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* snprintf that reports truncation: RT_ERR_INPUT "text too long" (for paths
 * and names built from user input). */
rt_status rt_format(char *buf, size_t size, rt_error *err, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

/* The process exit code for a status: 0 ok, 2 bad input, 1 anything else;
 * RT_EXIT_INTERRUPTED (3, signals.h) for an OK run that a signal stopped. */
int rt_exit_code(rt_status status);

/* Allocation wrappers that fail with RT_ERR_SYSTEM instead of returning NULL
 * silently. In a test build (-DRT_TESTS) rt_alloc_fail_after(n) makes the
 * n-th next allocation fail. */
void *rt_malloc(size_t size, rt_error *err);
void *rt_calloc(size_t n, size_t size, rt_error *err);
void *rt_realloc(void *p, size_t size, rt_error *err);
char *rt_strdup(const char *s, rt_error *err);
#ifdef RT_TESTS
void rt_alloc_fail_after(long n);
#endif

#endif
