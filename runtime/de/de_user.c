/* de_user.c: user objectives: a C function body over (const float *x, int n)
 * returning float, given in the spec ([objective] code = ...) or in a file.
 *
 * The generator wraps the body into a function and inserts it into both
 * sources: the CUDA kernels (compiled by NVRTC with the rest) and a small C
 * file for the CPU path. Every body line is preceded, where the numbering
 * jumps, by a #line directive naming the user's file and line, so compiler
 * messages point at the spec (or code file), not at generated text.
 *
 * Why a system compiler for the CPU: the CPU path must run the user's code
 * natively and with the same float semantics as the GPU; an interpreter
 * would be slow and a second definition of C. So the C file is compiled with
 * $CC (default cc) into a shared object in the cache folder (kcache_dir),
 * named by a hash of source, compiler and flags, and loaded with dlopen. This
 * is a run-time dependency of user objectives on the CPU only; without a
 * compiler the error says so. The body must be valid both as C and as CUDA
 * C++ (no implicit void * conversions, no VLAs); math.h functions are
 * available on both sides, and M_PI is defined. */
#include <dlfcn.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "de_impl.h"
#include "kcache.h"
#include "out.h"

#define USER_CFLAGS "-std=gnu11 -O2 -fPIC -shared -ffp-contract=off -fno-fast-math"

static char *trim(char *s)
{
	while (*s == ' ' || *s == '\t' || *s == '\r')
		s++;
	size_t n = strlen(s);
	while (n > 0 && (s[n - 1] == ' ' || s[n - 1] == '\t' || s[n - 1] == '\r'))
		s[--n] = '\0';
	return s;
}

/* Maps body lines to lines of the spec: the first is on the key's line; each
 * later one is the next file line that starts with its text (the INI parser
 * drops indentation, blank lines, comment lines and inline comments). */
static void map_lines(de_user *u, const char *path, int first)
{
	char *data = NULL, **flines = NULL;
	size_t size = 0;
	int nf = 0, cur = first;
	rt_error ignored;
	if (rt_read_file(path, &data, &size, &ignored) == RT_OK) {
		for (size_t i = 0; i < size; i++)
			nf += data[i] == '\n';
		flines = calloc((size_t)nf + 2, sizeof *flines);
		if (flines) {
			int k = 0;
			char *s = data;
			flines[k++] = s;
			for (char *q = data; *q; q++)
				if (*q == '\n') {
					*q = '\0';
					flines[k++] = q + 1;
				}
			nf = k;
		}
	}
	char *body = strdup(u->body ? u->body : ""), *s = body;
	for (int k = 0; k < u->nlines; k++)   /* the numbering if nothing better is found */
		u->lines[k] = first + k;
	for (int k = 0; k < u->nlines && s; k++) {
		char *nl = strchr(s, '\n');
		if (nl)
			*nl = '\0';
		if (k == 0) {
			u->lines[k] = first;
		} else {
			int found = 0;
			char *want = trim(s);
			if (flines && *want)
				for (int f = cur + 1; f <= nf && f <= cur + 1000; f++) {
					char tmp[8192];
					snprintf(tmp, sizeof tmp, "%s", flines[f - 1]);
					if (strncmp(trim(tmp), want, strlen(want)) == 0) {
						found = f;
						break;
					}
				}
			u->lines[k] = found ? found : cur + 1;
		}
		cur = u->lines[k];
		s = nl ? nl + 1 : NULL;
	}
	free(body);
	free(flines);
	free(data);
}

rt_status de_user_set(de_user *u, const char *body, const char *where, int line,
		      const char *filepath, rt_error *err)
{
	size_t size;
	de_user_free(u);
	if (filepath) {
		rt_status st = rt_read_file(filepath, &u->body, &size, err);
		if (st)
			return st;
	} else {
		u->body = rt_strdup(body ? body : "", err);
		if (!u->body)
			return RT_ERR_SYSTEM;
	}
	snprintf(u->where, sizeof u->where, "%s", where);
	u->nlines = 1;
	for (const char *c = u->body; *c; c++)
		u->nlines += *c == '\n';
	if (u->nlines > DE_USER_MAX_LINES)
		return rt_fail(err, RT_ERR_INPUT, "%s: the objective has %d lines, at most %d", where,
			       u->nlines, DE_USER_MAX_LINES);
	u->lines = rt_calloc((size_t)u->nlines, sizeof *u->lines, err);
	if (!u->lines)
		return RT_ERR_SYSTEM;
	if (filepath) {
		for (int k = 0; k < u->nlines; k++)
			u->lines[k] = k + 1;
	} else {
		map_lines(u, where, line > 0 ? line : 1);
	}
	return RT_OK;
}

void de_user_free(de_user *u)
{
	free(u->body);
	free(u->lines);
	if (u->so)
		dlclose(u->so);
	memset(u, 0, sizeof *u);
}

/* A file name inside a #line directive, with \ and " escaped. */
static void quoted(const char *s, char *out, size_t size)
{
	size_t k = 0;
	for (; *s && k + 3 < size; s++) {
		if (*s == '\\' || *s == '"')
			out[k++] = '\\';
		out[k++] = *s;
	}
	out[k] = '\0';
}

static int count_lines(const gen_source *src)
{
	int n = 0;
	for (size_t i = 0; i < src->text.len; i++)
		n += src->text.data[i] == '\n';
	return n;
}

void de_user_emit(const de_user *u, gen_source *src, int cuda)
{
	char q[2 * RT_PATH_MAX];
	quoted(u->where, q, sizeof q);
	gen_line(src, "#ifndef M_PI");
	gen_line(src, "#define M_PI 3.14159265358979323846");
	gen_line(src, "#endif");
	gen_line(src, "/* The user objective, from %s. */", q);
	gen_line(src, "%sfloat de_user_objective(const float *x, int n)",
		 cuda ? "static __device__ __forceinline__ " : "");
	gen_line(src, "{");
	const char *s = u->body ? u->body : "";
	for (int k = 0; k < u->nlines; k++) {
		const char *nl = strchr(s, '\n');
		int len = nl ? (int)(nl - s) : (int)strlen(s);
		if (k == 0 || u->lines[k] != u->lines[k - 1] + 1)
			gen_line(src, "#line %d \"%s\"", u->lines[k], q);
		gen_line(src, "%.*s", len, s);
		s = nl ? nl + 1 : s + len;
	}
	gen_line(src, "}");
	/* back to the generated file's own numbering */
	gen_line(src, "#line %d \"%s\"", count_lines(src) + 2, src->name);
}

/* s in single quotes for /bin/sh; 0 when it does not fit in size. */
static int shell_quote(const char *s, char *out, size_t size)
{
	size_t k = 0;
	if (size < 3)
		return 0;
	out[k++] = '\'';
	for (; *s && k + 6 < size; s++) {
		if (*s == '\'') {
			memcpy(out + k, "'\\''", 4);
			k += 4;
		} else {
			out[k++] = *s;
		}
	}
	out[k++] = '\'';
	out[k] = '\0';
	return *s == '\0';
}

rt_status de_user_load(de_user *u, const char *name, rt_error *err)
{
	gen_source src;
	char dir[RT_PATH_MAX], cpath[RT_PATH_MAX + 64], so[RT_PATH_MAX + 64], tmp[RT_PATH_MAX + 96];
	const char *cc = getenv("CC");
	rt_status st;
	if (!cc || !*cc)
		cc = "cc";
	memset(&src, 0, sizeof src);
	char fname[160];
	snprintf(fname, sizeof fname, "de-user-%s.c", name);
	gen_begin(&src, fname, "the user objective for the CPU path");
	gen_line(&src, "#include <math.h>");
	de_user_emit(u, &src, 0);
	if (src.text.failed || !src.text.data) {
		gen_free(&src);
		return rt_fail(err, RT_ERR_SYSTEM, "out of memory generating %s", fname);
	}
	uint64_t key = kcache_fnv1a(0xcbf29ce484222325ull, src.text.data, src.text.len);
	key = kcache_fnv1a(key, cc, strlen(cc));
	key = kcache_fnv1a(key, USER_CFLAGS, strlen(USER_CFLAGS));
	if ((st = kcache_dir(dir, sizeof dir, err)) != RT_OK) {
		gen_free(&src);
		return st;
	}
	snprintf(so, sizeof so, "%s/de-user-%016llx.so", dir, (unsigned long long)key);
	snprintf(cpath, sizeof cpath, "%s/de-user-%016llx.c", dir, (unsigned long long)key);
	struct stat sb;
	if (stat(so, &sb) != 0) {
		char qc[2 * RT_PATH_MAX], qt[2 * RT_PATH_MAX], cmd[6 * RT_PATH_MAX], log[RT_ERROR_MAX / 2];
		size_t nlog = 0;
		if ((st = rt_write_file_atomic(cpath, src.text.data, src.text.len, err)) != RT_OK) {
			gen_free(&src);
			return st;
		}
		snprintf(tmp, sizeof tmp, "%s.tmp.%ld", so, (long)getpid());
		if (!shell_quote(cpath, qc, sizeof qc) || !shell_quote(tmp, qt, sizeof qt) ||
		    snprintf(cmd, sizeof cmd, "%s " USER_CFLAGS " -o %s %s -lm 2>&1", cc, qt,
			     qc) >= (int)sizeof cmd) {
			gen_free(&src);
			return rt_fail(err, RT_ERR_INPUT, "the command to compile %s is too long (CC = %s)",
				       cpath, cc);
		}
		FILE *f = popen(cmd, "r");
		if (!f) {
			gen_free(&src);
			return rt_fail(err, RT_ERR_SYSTEM, "cannot run the C compiler (%s): %s", cc,
				       strerror(errno));
		}
		size_t got;
		while ((got = fread(log + nlog, 1, sizeof log - 1 - nlog, f)) > 0)
			nlog += got;
		char drain[512];
		while (fread(drain, 1, sizeof drain, f) > 0)
			;
		log[nlog] = '\0';
		int status = pclose(f);
		if (status != 0) {
			int code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
			unlink(tmp);
			gen_free(&src);
			if (code == 127)
				return rt_fail(err, RT_ERR_UNSUPPORTED,
					       "the CPU path compiles user objectives with a C compiler, and "
					       "'%s' was not found: install gcc (or set CC), or run on the GPU "
					       "(--backend gpu)", cc);
			return rt_fail(err, RT_ERR_INPUT,
				       "the user objective does not compile (%s, generated file %s):\n%s",
				       cc, cpath, log);
		}
		if (rename(tmp, so) != 0) {
			unlink(tmp);
			gen_free(&src);
			return rt_fail(err, RT_ERR_SYSTEM, "cannot rename %s: %s", tmp, strerror(errno));
		}
	}
	gen_free(&src);
	void *h = dlopen(so, RTLD_NOW | RTLD_LOCAL);
	if (!h)
		return rt_fail(err, RT_ERR_SYSTEM, "cannot load the compiled user objective %s: %s", so,
			       dlerror());
	void *fn = dlsym(h, "de_user_objective");
	if (!fn) {
		dlclose(h);
		return rt_fail(err, RT_ERR_SYSTEM, "%s has no de_user_objective", so);
	}
	if (u->so)
		dlclose(u->so);
	u->so = h;
	*(void **)&u->fn = fn;
	return RT_OK;
}
