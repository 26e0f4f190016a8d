/* out.c: atomic file writes (temporary file, fsync, rename, fsync of the
 * folder; a failure removes the temporary file and names the file and the
 * cause), folders, whole-file reads, growable strings
 * and the JSON writer used for results. */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "out.h"
#include "timeline.h"

/* ---- files ------------------------------------------------------------------ */

/* fsync of the folder holding path, so that a rename into it is durable. */
static void sync_parent(const char *path)
{
	char dir[RT_PATH_MAX];
	const char *slash = strrchr(path, '/');
	int fd;
	if (!slash)
		snprintf(dir, sizeof dir, ".");
	else
		snprintf(dir, sizeof dir, "%.*s", slash == path ? 1 : (int)(slash - path), path);
	fd = open(dir, O_RDONLY | O_DIRECTORY);
	if (fd >= 0) {
		fsync(fd);   /* best effort: some file systems refuse it for folders */
		close(fd);
	}
}

/* Writes data to f; 0, or the errno of the first step that failed. */
static int write_all(FILE *f, const void *data, size_t size)
{
	errno = 0;
	if (fwrite(data, 1, size, f) != size || fflush(f) != 0)
		return errno ? errno : EIO;
	if (fsync(fileno(f)) != 0)
		return errno;
	return 0;
}

#ifdef RT_TESTS
static long write_countdown = -1;
static int write_errno;
void rt_write_fail_after(long n, int error_number)
{
	write_countdown = n;
	write_errno = error_number;
}
/* The injected failure of this write (0: none), as if the disk were full. */
static int injected_write_error(void)
{
	return write_countdown >= 0 && write_countdown-- == 0 ? write_errno : 0;
}
#else
static int injected_write_error(void) { return 0; }
#endif

static rt_status write_atomic(const char *path, const void *data, size_t size, rt_error *err)
{
	char tmp[RT_PATH_MAX];
	FILE *f;
	int e;
	if (rt_format(tmp, sizeof tmp, err, "%s.tmp.%ld", path, (long)getpid()))
		return RT_ERR_INPUT;
	f = fopen(tmp, "wb");
	if (!f)
		return rt_fail(err, RT_ERR_SYSTEM, "%s: cannot write: %s", tmp, strerror(errno));
	e = write_all(f, data, size);
	if (!e)
		e = injected_write_error();
	if (fclose(f) != 0 && !e)
		e = errno ? errno : EIO;
	if (e) {
		unlink(tmp);
		return rt_fail(err, RT_ERR_SYSTEM, "%s: write failed (%zu bytes): %s%s", path, size,
			       strerror(e), e == EFBIG ? " (the file size limit, ulimit -f)" : "");
	}
	if (rename(tmp, path) != 0) {
		e = errno;
		unlink(tmp);
		return rt_fail(err, RT_ERR_SYSTEM, "%s: cannot rename %s into place: %s", path, tmp,
			       strerror(e));
	}
	sync_parent(path);
	return RT_OK;
}

rt_status rt_write_file_atomic(const char *path, const void *data, size_t size, rt_error *err)
{
	const char *base = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
	rt_status st;
	rt_mark_detail("write", base);
	st = write_atomic(path, data, size, err);
	rt_mark_detail("wrote", base);
	return st;
}

rt_status rt_mkdirs(const char *path, rt_error *err)
{
	char buf[RT_PATH_MAX];
	if (rt_format(buf, sizeof buf, err, "%s", path))
		return RT_ERR_INPUT;
	/* From the second character (a leading '/' is no folder to make), or the
	 * first when the path is empty, so the loop never reads past the end. */
	for (char *p = buf + (buf[0] != 0); ; p++) {
		char c = *p;
		if (c == '/' || c == 0) {
			*p = 0;
			if (mkdir(buf, 0777) != 0 && errno != EEXIST)
				return rt_fail(err, RT_ERR_SYSTEM, "%s: cannot create folder: %s", buf,
					       strerror(errno));
			*p = c;
		}
		if (!c)
			break;
	}
	return RT_OK;
}

rt_status rt_read_file(const char *path, char **data, size_t *size, rt_error *err)
{
	FILE *f = fopen(path, "rb");
	char *buf = NULL;
	size_t len = 0, cap = 0, n;
	*data = NULL;
	if (!f)
		return rt_fail(err, RT_ERR_INPUT, "%s: cannot open: %s", path, strerror(errno));
	do {
		if (cap - len < 65536) {
			char *p;
			cap = cap ? cap * 2 : 131072;
			p = rt_realloc(buf, cap + 1, err);
			if (!p) {
				free(buf);
				fclose(f);
				return RT_ERR_SYSTEM;
			}
			buf = p;
		}
		n = fread(buf + len, 1, cap - len, f);
		len += n;
	} while (n > 0);
	if (ferror(f)) {
		free(buf);
		fclose(f);
		return rt_fail(err, RT_ERR_SYSTEM, "%s: read error", path);
	}
	fclose(f);
	buf[len] = 0;
	*data = buf;
	if (size)
		*size = len;
	return RT_OK;
}

/* ---- growable strings --------------------------------------------------------- */

void rt_buf_append(rt_buf *b, const char *s, size_t n)
{
	if (b->failed)
		return;
	if (b->len + n + 1 > b->cap) {
		size_t cap = b->cap ? b->cap : 256;
		char *p;
		while (cap < b->len + n + 1)
			cap *= 2;
		p = realloc(b->data, cap);
		if (!p) {
			b->failed = 1;
			return;
		}
		b->data = p;
		b->cap = cap;
	}
	memcpy(b->data + b->len, s, n);
	b->len += n;
	b->data[b->len] = 0;
}

void rt_buf_puts(rt_buf *b, const char *s) { rt_buf_append(b, s, strlen(s)); }

void rt_buf_vprintf(rt_buf *b, const char *fmt, va_list ap)
{
	char small[512];
	va_list again;
	int n;
	va_copy(again, ap);
	n = vsnprintf(small, sizeof small, fmt, ap);
	if (n < 0 || (size_t)n < sizeof small) {
		va_end(again);
		if (n < 0)
			b->failed = 1;
		else
			rt_buf_append(b, small, (size_t)n);
		return;
	}
	char *big = malloc((size_t)n + 1);
	if (!big) {
		va_end(again);
		b->failed = 1;
		return;
	}
	vsnprintf(big, (size_t)n + 1, fmt, again);
	va_end(again);
	rt_buf_append(b, big, (size_t)n);
	free(big);
}

void rt_buf_printf(rt_buf *b, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	rt_buf_vprintf(b, fmt, ap);
	va_end(ap);
}

rt_status rt_write_buf_atomic(const char *dir, const char *name, const rt_buf *b, rt_error *err)
{
	char path[RT_PATH_MAX];
	rt_status st = rt_format(path, sizeof path, err, "%s/%s", dir, name);
	if (st == RT_OK && b->failed)
		st = rt_fail(err, RT_ERR_SYSTEM, "%s: out of memory formatting it", path);
	if (st == RT_OK)
		st = rt_write_file_atomic(path, b->data ? b->data : "", b->len, err);
	return st;
}

void rt_buf_free(rt_buf *b)
{
	free(b->data);
	memset(b, 0, sizeof *b);
}

/* ---- JSON ------------------------------------------------------------------------ */

static void json_indent(rt_json *j)
{
	rt_buf_puts(&j->buf, "\n");
	for (int i = 0; i < j->depth; i++)
		rt_buf_puts(&j->buf, "  ");
}

static void json_quoted(rt_buf *b, const char *s)
{
	rt_buf_puts(b, "\"");
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;
		if (c == '"' || c == '\\')
			rt_buf_printf(b, "\\%c", c);
		else if (c == '\n')
			rt_buf_puts(b, "\\n");
		else if (c == '\t')
			rt_buf_puts(b, "\\t");
		else if (c < 0x20)
			rt_buf_printf(b, "\\u%04x", c);
		else
			rt_buf_append(b, (const char *)&c, 1);
	}
	rt_buf_puts(b, "\"");
}

/* Starts a member: comma, new line, indentation and "key": when in an object. */
static void json_member(rt_json *j, const char *key)
{
	if (j->depth > 0) {
		if (!j->first[j->depth])
			rt_buf_puts(&j->buf, ",");
		j->first[j->depth] = 0;
		json_indent(j);
	}
	if (key) {
		json_quoted(&j->buf, key);
		rt_buf_puts(&j->buf, ": ");
	}
}

static void json_open(rt_json *j, const char *key, const char *bracket)
{
	json_member(j, key);
	rt_buf_puts(&j->buf, bracket);
	if (j->depth < (int)(sizeof j->first / sizeof j->first[0]) - 1)
		j->depth++;
	j->first[j->depth] = 1;
}

static void json_close(rt_json *j, const char *bracket)
{
	int empty = j->first[j->depth];
	if (j->depth > 0)
		j->depth--;
	if (!empty)
		json_indent(j);
	rt_buf_puts(&j->buf, bracket);
}

void rt_json_begin_object(rt_json *j, const char *key) { json_open(j, key, "{"); }
void rt_json_end_object(rt_json *j) { json_close(j, "}"); }
void rt_json_begin_array(rt_json *j, const char *key) { json_open(j, key, "["); }
void rt_json_end_array(rt_json *j) { json_close(j, "]"); }

void rt_json_string(rt_json *j, const char *key, const char *value)
{
	json_member(j, key);
	if (value)
		json_quoted(&j->buf, value);
	else
		rt_buf_puts(&j->buf, "null");
}

void rt_json_int(rt_json *j, const char *key, long long value)
{
	json_member(j, key);
	rt_buf_printf(&j->buf, "%lld", value);
}

void rt_json_double(rt_json *j, const char *key, double value)
{
	json_member(j, key);
	if (isfinite(value)) {
		/* The shortest of 15..17 digits that reads back as the same double. */
		char text[40];
		for (int digits = 15; digits <= 17; digits++) {
			snprintf(text, sizeof text, "%.*g", digits, value);
			if (strtod(text, NULL) == value)
				break;
		}
		rt_buf_puts(&j->buf, text);
	}
	else
		rt_buf_puts(&j->buf, "null");
}

void rt_json_bool(rt_json *j, const char *key, int value)
{
	json_member(j, key);
	rt_buf_puts(&j->buf, value ? "true" : "false");
}

rt_status rt_json_write(rt_json *j, const char *path, rt_error *err)
{
	if (j->buf.failed)
		return rt_fail(err, RT_ERR_SYSTEM, "%s: out of memory while formatting JSON", path);
	rt_buf_puts(&j->buf, "\n");
	return rt_write_file_atomic(path, j->buf.data, j->buf.len, err);
}
