/* out.h: writing results: files replaced atomically (temporary name, then
 * rename) and a small streaming JSON writer. */
#ifndef RT_OUT_H
#define RT_OUT_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include "error.h"

/* Writes data to path via path.tmp.PID and rename(2): a reader never sees a
 * half-written file and an old file survives a failed write. */
rt_status rt_write_file_atomic(const char *path, const void *data, size_t size, rt_error *err);
#ifdef RT_TESTS
/* Test builds: the n-th next atomic write fails with error_number (ENOSPC:
 * a full disk) after its temporary file is written; n < 0: none. */
void rt_write_fail_after(long n, int error_number);
#endif
/* Creates a folder and its parents (like mkdir -p). */
rt_status rt_mkdirs(const char *path, rt_error *err);
/* Reads a whole file into a NUL-terminated malloc'ed buffer. */
rt_status rt_read_file(const char *path, char **data, size_t *size, rt_error *err);

/* A growable string. */
typedef struct rt_buf {
	char *data;
	size_t len, cap;
	int failed;   /* an allocation failed; the text is incomplete */
} rt_buf;
void rt_buf_printf(rt_buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void rt_buf_vprintf(rt_buf *b, const char *fmt, va_list ap) __attribute__((format(printf, 2, 0)));
void rt_buf_append(rt_buf *b, const char *s, size_t n);
void rt_buf_puts(rt_buf *b, const char *s);
void rt_buf_free(rt_buf *b);
/* Writes the text in b to dir/name atomically; a buffer that ran out of
 * memory while it was formatted is an error naming the file instead. */
rt_status rt_write_buf_atomic(const char *dir, const char *name, const rt_buf *b, rt_error *err);

/* JSON writer on top of rt_buf: objects and arrays nest; commas and
 * indentation are handled. Keys are NULL inside arrays. */
typedef struct rt_json {
	rt_buf buf;
	int depth;
	int first[32];   /* no member written yet at this depth */
} rt_json;
void rt_json_begin_object(rt_json *j, const char *key);
void rt_json_end_object(rt_json *j);
void rt_json_begin_array(rt_json *j, const char *key);
void rt_json_end_array(rt_json *j);
void rt_json_string(rt_json *j, const char *key, const char *value);
void rt_json_int(rt_json *j, const char *key, long long value);
void rt_json_double(rt_json *j, const char *key, double value);  /* NaN/inf -> null */
void rt_json_bool(rt_json *j, const char *key, int value);
/* Writes the document atomically to path. */
rt_status rt_json_write(rt_json *j, const char *path, rt_error *err);

#endif
