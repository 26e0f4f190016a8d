/* nvrtc.c: compiling generated CUDA source to a cubin with NVRTC (opened with
 * dlopen), through the disk cache, and reading ptxas's resource report.
 *
 * As with the driver (gpu.c), every NVRTC function is named once in
 * NVRTC_FUNCTIONS and looked up with dlsym, so nothing in the build needs
 * the library. The compile log is always fetched before the result is
 * looked at: on failure it is the message; on success it holds the
 * "-Xptxas -v" report, which is stored in the cache entry next to the cubin
 * so a cache hit reports the same registers and spills as a fresh compile. */
#include <dlfcn.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Hack: <nvrtc.h> would find our own runtime/nvrtc.h (-Iruntime comes first).
 * Only the toolkit's include folder has a crt/ subfolder, so this path names
 * the toolkit's nvrtc.h whatever the -I order. */
#include <crt/../nvrtc.h>

#include "generic.h"
#include "kcache.h"
#include "log.h"
#include "nvrtc.h"
#include "out.h"
#include "timeline.h"

#define NVRTC_FUNCTIONS(X) \
	X(nvrtcVersion) \
	X(nvrtcGetErrorString) \
	X(nvrtcCreateProgram) \
	X(nvrtcDestroyProgram) \
	X(nvrtcCompileProgram) \
	X(nvrtcGetProgramLogSize) \
	X(nvrtcGetProgramLog) \
	X(nvrtcGetCUBINSize) \
	X(nvrtcGetCUBIN)

/* Name after macro expansion (nvrtc.h renames nothing today; be ready). */
#define NVRTC_STR_(x) #x
#define NVRTC_STR(x) NVRTC_STR_(x)

#define NVRTC_DECLARE(fn) static __typeof__(fn) *p_##fn;
NVRTC_FUNCTIONS(NVRTC_DECLARE)
#undef NVRTC_DECLARE

static pthread_mutex_t nvrtc_lock = PTHREAD_MUTEX_INITIALIZER;
static struct {
	int opened;
	rt_status status;
	rt_error error;
	void *lib;
	char lib_name[RT_PATH_MAX];
	int major, minor;
} nvrtc_state;

/* What this process's compiles cost (nvrtc_stats). */
static nvrtc_stats stats;

/* Prepared compiles (nvrtc_prepare): each key's output kept for the process,
 * so the run's own nvrtc_compile of it is a copy; a compile still under way
 * in a preparing thread is waited for, never made twice. Guarded by
 * nvrtc_lock; memo_done signalled when an entry completes. */
enum { MEMO_RESERVED, MEMO_COMPILING, MEMO_DONE };
typedef struct memo_entry {
	uint64_t key;
	int state;               /* MEMO_*: listed, being made, made */
	rt_status status;
	rt_error error;          /* status != RT_OK */
	nvrtc_output out;        /* status == RT_OK */
	struct memo_entry *next;
} memo_entry;
static memo_entry *memo;
static pthread_cond_t memo_done = PTHREAD_COND_INITIALIZER;

/* NVRTC_CHECK(call): RT_OK, or RT_ERR_NVRTC naming the call, function, file,
 * line and NVRTC's error text (err must be in scope). */
#define NVRTC_CHECK(call) nvrtc_check((call), #call, __func__, __FILE__, __LINE__, err)

static rt_status nvrtc_check(nvrtcResult r, const char *call, const char *func, const char *file,
			     int line, rt_error *err)
{
	if (r == NVRTC_SUCCESS)
		return RT_OK;
	if (strncmp(call, "p_", 2) == 0)
		call += 2;
	return rt_fail(err, RT_ERR_NVRTC, "%s failed: %s [nvrtcResult %d] in %s at %s:%d", call,
		       p_nvrtcGetErrorString ? p_nvrtcGetErrorString(r) : "?", (int)r, func, file,
		       line);
}

/* ---- opening the library -------------------------------------------------- */

static rt_status nvrtc_open_locked(rt_error *err)
{
	static const char *const defaults[] = {
		"libnvrtc.so.13", "libnvrtc.so",
		"/usr/local/cuda/lib64/libnvrtc.so.13", "/usr/local/cuda/lib64/libnvrtc.so",
	};
	const char *names[4];
	int nnames = 4;
	const char *env = getenv("EVOFORGE_LIBNVRTC");
	char first_error[1024] = "";
	void *sym;
	memcpy(names, defaults, sizeof names);
	/* NVRTC 12.9+ has its own cache, kept through the driver (CUDA_CACHE_*,
	 * ~/.nv/ComputeCache); a hit there returns an EMPTY log, losing the
	 * "-Xptxas -v" report that kcache stores with the cubin (seen on an H100
	 * with CUDA 13.0). evoforge caches cubins itself, so turn NVRTC's off
	 * unless the user chose; gpu.c does the same before cuInit. */
	setenv("CUDA_CACHE_DISABLE", "1", 0);
	if (env && *env) {
		names[0] = env;
		nnames = 1;
	}
	for (int i = 0; i < nnames && !nvrtc_state.lib; i++) {
		nvrtc_state.lib = dlopen(names[i], RTLD_NOW | RTLD_LOCAL);
		if (nvrtc_state.lib)
			snprintf(nvrtc_state.lib_name, sizeof nvrtc_state.lib_name, "%s", names[i]);
		else if (i == 0) {
			const char *e = dlerror();
			snprintf(first_error, sizeof first_error, "%s", e ? e : "not found");
		}
	}
	if (!nvrtc_state.lib)
		return rt_fail(err, RT_ERR_NVRTC,
			       "no NVRTC: dlopen %s: %s%s; install the CUDA toolkit (13.x) or set "
			       "EVOFORGE_LIBNVRTC to the library's path", names[0], first_error,
			       nnames > 1 ? " (also tried libnvrtc.so and /usr/local/cuda/lib64)" : "");
#define NVRTC_LOOKUP(fn) \
	sym = dlsym(nvrtc_state.lib, NVRTC_STR(fn)); \
	if (!sym) \
		return rt_fail(err, RT_ERR_NVRTC, "NVRTC (%s) has no %s; install CUDA 13 or newer", \
			       nvrtc_state.lib_name, NVRTC_STR(fn)); \
	memcpy(&p_##fn, &sym, sizeof sym);
	NVRTC_FUNCTIONS(NVRTC_LOOKUP)
#undef NVRTC_LOOKUP
	return NVRTC_CHECK(p_nvrtcVersion(&nvrtc_state.major, &nvrtc_state.minor));
}

rt_status nvrtc_open(rt_error *err)
{
	pthread_mutex_lock(&nvrtc_lock);
	if (!nvrtc_state.opened) {
		nvrtc_state.status = nvrtc_open_locked(&nvrtc_state.error);
		nvrtc_state.opened = 1;
	}
	rt_status st = nvrtc_state.status;
	if (st != RT_OK && err)
		*err = nvrtc_state.error;
	pthread_mutex_unlock(&nvrtc_lock);
	return st;
}

#ifdef RT_TESTS
void nvrtc_reset_for_tests(void)
{
	pthread_mutex_lock(&nvrtc_lock);
	if (nvrtc_state.lib)
		dlclose(nvrtc_state.lib);
	memset(&nvrtc_state, 0, sizeof nvrtc_state);
#define NVRTC_CLEAR(fn) p_##fn = NULL;
	NVRTC_FUNCTIONS(NVRTC_CLEAR)
#undef NVRTC_CLEAR
	pthread_mutex_unlock(&nvrtc_lock);
}
#endif

rt_status nvrtc_version(int *major, int *minor, rt_error *err)
{
	rt_status st = nvrtc_open(err);
	*major = st == RT_OK ? nvrtc_state.major : 0;
	*minor = st == RT_OK ? nvrtc_state.minor : 0;
	return st;
}

/* ---- helpers -------------------------------------------------------------- */

/* An environment switch: set, non-empty and not "0". */
static int env_flag(const char *name)
{
	const char *v = getenv(name);
	return v && *v && strcmp(v, "0") != 0;
}

static void join_options(char *buf, size_t size, const char *const *opts, int n)
{
	size_t len = 0;
	buf[0] = '\0';
	for (int i = 0; i < n && len < size; i++) {
		int w = snprintf(buf + len, size - len, "%s%s", i ? " " : "", opts[i]);
		if (w < 0)
			break;
		len += (size_t)w;
	}
}

/* Longest "<cache>/failed/<name>" or the reason it was not written. */
#define FAILED_PATH_MAX (RT_PATH_MAX + 512)

/* Writes the failed source (and its log) to <cache>/failed/<name>, name made
 * safe for a file name; path gets where, or why it could not be written. */
static void save_failed(const char *name, const char *source, const char *log,
			char path[FAILED_PATH_MAX])
{
	const size_t size = FAILED_PATH_MAX;
	char dir[RT_PATH_MAX], safe[256], logpath[FAILED_PATH_MAX + 8];
	rt_error e;
	size_t i;
	for (i = 0; name[i] && i + 1 < sizeof safe; i++) {
		char c = name[i];
		int ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
			 c == '.' || c == '-' || c == '_' || c == '+';
		safe[i] = ok ? c : '_';
	}
	safe[i] = '\0';
	if (safe[0] == '.' || safe[0] == '\0')
		safe[0] = '_';
	if (kcache_dir(dir, sizeof dir, &e) != RT_OK) {
		snprintf(path, size, "(not saved: %s)", e.msg);
		return;
	}
	size_t n = strlen(dir);
	if (n + sizeof "/failed" > sizeof dir) {
		snprintf(path, size, "(not saved: path too long)");
		return;
	}
	memcpy(dir + n, "/failed", sizeof "/failed");
	if (rt_mkdirs(dir, &e) != RT_OK) {
		snprintf(path, size, "(not saved: %s)", e.msg);
		return;
	}
	snprintf(path, size, "%s/%s", dir, safe);   /* fits: dir < RT_PATH_MAX, safe < 256 */
	if (rt_write_file_atomic(path, source, strlen(source), &e) != RT_OK) {
		snprintf(path, size, "(not saved: %s)", e.msg);
		return;
	}
	snprintf(logpath, sizeof logpath, "%s.log", path);
	rt_write_file_atomic(logpath, log, strlen(log), &e);   /* the source is what matters */
}

/* The cache payload: two sizes, then the cubin, then the log (no NUL). */
typedef struct nvrtc_entry_head {
	uint64_t cubin_size, log_size;
} nvrtc_entry_head;

static int entry_unpack(const void *data, size_t size, nvrtc_output *out)
{
	nvrtc_entry_head h;
	if (size < sizeof h)
		return 0;
	memcpy(&h, data, sizeof h);
	if (h.cubin_size < 4 || h.cubin_size > size - sizeof h ||
	    h.log_size != size - sizeof h - h.cubin_size)
		return 0;
	const char *p = (const char *)data + sizeof h;
	out->cubin = rt_malloc((size_t)h.cubin_size, NULL);
	out->log = rt_malloc((size_t)h.log_size + 1, NULL);
	if (!out->cubin || !out->log) {
		nvrtc_output_free(out);
		return 0;
	}
	memcpy(out->cubin, p, (size_t)h.cubin_size);
	memcpy(out->log, p + h.cubin_size, (size_t)h.log_size);
	out->log[h.log_size] = '\0';
	out->size = (size_t)h.cubin_size;
	out->from_cache = 1;
	return 1;
}

static void entry_store(uint64_t key, const nvrtc_output *out, const char *name)
{
	nvrtc_entry_head h = { out->size, strlen(out->log) };
	size_t size = sizeof h + out->size + h.log_size;
	rt_error e;
	rt_status st = RT_ERR_SYSTEM;
	char *buf = rt_malloc(size, &e);
	if (buf) {
		memcpy(buf, &h, sizeof h);
		memcpy(buf + sizeof h, out->cubin, out->size);
		memcpy(buf + sizeof h + out->size, out->log, h.log_size);
		st = kcache_put(key, buf, size, &e);
		free(buf);
	}
	if (st != RT_OK) {
		static int warned;   /* once: a read-only cache folder would say it every time */
		pthread_mutex_lock(&nvrtc_lock);
		int first = !warned;
		warned = 1;
		pthread_mutex_unlock(&nvrtc_lock);
		if (first)
			rt_warn("not caching %s: %s", name, e.msg);
	}
}

/* ---- compiling ------------------------------------------------------------ */

void nvrtc_output_free(nvrtc_output *out)
{
	if (!out)
		return;
	free(out->cubin);
	free(out->log);
	memset(out, 0, sizeof *out);
}

/* Compiles for real (no cache); fills out->cubin and out->log. */
static rt_status compile_now(const char *name, const char *source, const char *const *opts,
			     int nopts, nvrtc_output *out, rt_error *err)
{
	nvrtcProgram prog = NULL;
	size_t log_size = 0, cubin_size = 0;
	rt_status st = NVRTC_CHECK(p_nvrtcCreateProgram(&prog, source, name, 0, NULL, NULL));
	if (st != RT_OK)
		return st;
	nvrtcResult res = p_nvrtcCompileProgram(prog, nopts, opts);
	/* The log first: it is the explanation of whatever res says. */
	if ((st = NVRTC_CHECK(p_nvrtcGetProgramLogSize(prog, &log_size))) != RT_OK)
		goto done;
	if (!(out->log = rt_malloc(log_size + 1, err))) {
		st = RT_ERR_SYSTEM;
		goto done;
	}
	out->log[0] = '\0';
	if (log_size > 0 && (st = NVRTC_CHECK(p_nvrtcGetProgramLog(prog, out->log))) != RT_OK)
		goto done;
	out->log[log_size] = '\0';
	if (res != NVRTC_SUCCESS) {
		char optbuf[1024], path[FAILED_PATH_MAX];
		join_options(optbuf, sizeof optbuf, opts, nopts);
		save_failed(name, source, out->log, path);
		st = rt_fail(err, RT_ERR_NVRTC,
			     "NVRTC could not compile %s: %s\n  options: %s\n  source: %s\n  log:\n%s",
			     name, p_nvrtcGetErrorString(res), optbuf, path, out->log);
		goto done;
	}
	if ((st = NVRTC_CHECK(p_nvrtcGetCUBINSize(prog, &cubin_size))) != RT_OK)
		goto done;
	if (cubin_size == 0) {
		st = rt_fail(err, RT_ERR_NVRTC,
			     "NVRTC made no cubin for %s (is the architecture a real sm_XX?)", name);
		goto done;
	}
	if (!(out->cubin = rt_malloc(cubin_size, err))) {
		st = RT_ERR_SYSTEM;
		goto done;
	}
	if ((st = NVRTC_CHECK(p_nvrtcGetCUBIN(prog, out->cubin))) != RT_OK)
		goto done;
	out->size = cubin_size;
done:
	if (prog) {
		/* Reported only when nothing failed before: the first error explains. */
		rt_error e;
		rt_status d = nvrtc_check(p_nvrtcDestroyProgram(&prog), "nvrtcDestroyProgram(&prog)",
					  __func__, __FILE__, __LINE__, &e);
		if (st == RT_OK && d != RT_OK) {
			st = d;
			if (err)
				*err = e;
		}
	}
	if (st != RT_OK)
		nvrtc_output_free(out);
	return st;
}

/* In a built program (runtime/built.h): *found = 1 and out = the embedded
 * cubin for this compile. Without one, RT_OK and *found = 0 when NVRTC is
 * there to compile it (said once), else an error naming what the program
 * was built for. */
static rt_status compile_prebuilt(const char *name, const char *source, const char *arch,
				  const char *const *options, int noptions, nvrtc_output *out,
				  int *found, rt_error *err)
{
	uint64_t key = kcache_prebuilt_key(name, source, arch, options, noptions);
	const rt_built_kernel *k = kcache_prebuilt_find(key, name, arch);
	char archs[128];
	rt_error e;
	static int warned;
	*found = 0;
	if (k) {
		size_t n = (size_t)(k->end - k->cubin), nlog = k->log ? strlen(k->log) : 0;
		if (!(out->cubin = rt_malloc(n, err)) || !(out->log = rt_malloc(nlog + 1, err))) {
			nvrtc_output_free(out);
			return RT_ERR_SYSTEM;
		}
		memcpy(out->cubin, k->cubin, n);
		memcpy(out->log, k->log ? k->log : "", nlog + 1);
		out->size = n;
		out->from_cache = 1;
		*found = 1;
		return RT_OK;
	}
	kcache_prebuilt_archs(archs, sizeof archs);
	if (nvrtc_open(&e) != RT_OK)
		return rt_fail(err, RT_ERR_NVRTC,
			       "%s for %s: this program embeds no cubin for it (built for %s; a GPU "
			       "of another architecture or shared memory size, or a kernel the build "
			       "did not foresee) and NVRTC is not available to compile it (%s); "
			       "rebuild with `evoforge build SPEC --arch %s`, or install NVRTC",
			       name, arch, archs, e.msg, arch);
	pthread_mutex_lock(&nvrtc_lock);
	int first = !warned;
	warned = 1;
	pthread_mutex_unlock(&nvrtc_lock);
	if (first)
		rt_warn("%s for %s: no embedded cubin (built for %s): compiling with NVRTC", name,
			arch, archs);
	return RT_OK;
}

/* ---- prepared compiles and the counts -------------------------------------- */

static int output_copy(const nvrtc_output *from, nvrtc_output *to)
{
	size_t nlog = strlen(from->log ? from->log : "");
	memset(to, 0, sizeof *to);
	to->cubin = rt_malloc(from->size, NULL);
	to->log = rt_malloc(nlog + 1, NULL);
	if (!to->cubin || !to->log) {
		nvrtc_output_free(to);
		return 0;
	}
	memcpy(to->cubin, from->cubin, from->size);
	memcpy(to->log, from->log ? from->log : "", nlog + 1);
	to->size = from->size;
	to->from_cache = from->from_cache;
	return 1;
}

/* With nvrtc_lock held: the entry for key, waited for if another thread is
 * making it; one only listed (nvrtc_reserve) is the caller's to make
 * (*own = 1), as is a new one when create is set; NULL if there is none. */
static memo_entry *memo_find_locked(uint64_t key, int create, int *own)
{
	memo_entry *m;
	*own = 0;
	for (m = memo; m && m->key != key; m = m->next)
		;
	if (m && m->state == MEMO_RESERVED) {
		m->state = MEMO_COMPILING;
		*own = 1;
		return m;
	}
	if (m) {
		while (m->state != MEMO_DONE)
			pthread_cond_wait(&memo_done, &nvrtc_lock);
		return m;
	}
	if (!create || !(m = rt_calloc(1, sizeof *m, NULL)))
		return NULL;
	m->key = key;
	m->state = MEMO_COMPILING;
	m->next = memo;
	memo = m;
	*own = 1;
	return m;
}

/* 1 and out (a copy) or err from the prepared entry for key; 0 if there is
 * none (with prepare: one is now under way, and *own says this caller
 * makes it, to hand to memo_publish). */
static int memo_take(uint64_t key, int prepare, memo_entry **own, nvrtc_output *out,
		     rt_status *st, rt_error *err)
{
	int mine;
	pthread_mutex_lock(&nvrtc_lock);
	memo_entry *m = memo_find_locked(key, prepare, &mine);
	int found = m && !mine;
	if (found) {
		*st = m->status;
		if (*st != RT_OK && err)
			*err = m->error;
		if (*st == RT_OK && !output_copy(&m->out, out))
			*st = rt_fail(err, RT_ERR_SYSTEM, "out of memory copying a compiled kernel");
		if (!prepare)
			stats.from_memory++;
	}
	*own = mine ? m : NULL;
	pthread_mutex_unlock(&nvrtc_lock);
	return found;
}

static void memo_publish(memo_entry *m, const nvrtc_output *out, rt_status st, const rt_error *err)
{
	pthread_mutex_lock(&nvrtc_lock);
	m->status = st;
	if (st != RT_OK && err)
		m->error = *err;
	if (st == RT_OK && !output_copy(out, &m->out)) {
		m->status = RT_ERR_SYSTEM;
		snprintf(m->error.msg, sizeof m->error.msg, "out of memory keeping a compiled kernel");
		m->error.status = RT_ERR_SYSTEM;
	}
	m->state = MEMO_DONE;
	pthread_cond_broadcast(&memo_done);
	pthread_mutex_unlock(&nvrtc_lock);
}

void nvrtc_prepared_clear(void)
{
	pthread_mutex_lock(&nvrtc_lock);
	for (memo_entry *m = memo, *next; m; m = next) {
		next = m->next;
		nvrtc_output_free(&m->out);
		free(m);
	}
	memo = NULL;
	pthread_mutex_unlock(&nvrtc_lock);
}

void nvrtc_stats_get(nvrtc_stats *out)
{
	pthread_mutex_lock(&nvrtc_lock);
	*out = stats;
	pthread_mutex_unlock(&nvrtc_lock);
}

static void count(int *counter, double seconds)
{
	pthread_mutex_lock(&nvrtc_lock);
	(*counter)++;
	stats.compile_s += seconds;
	pthread_mutex_unlock(&nvrtc_lock);
}

/* 1 and out (a copy) if the compile is embedded in evoforge (generic.h). */
static int from_generic(const char *name, const char *source, const char *arch,
			const char *const *options, int noptions, nvrtc_output *out)
{
	const rt_built_kernel *k;
	if (env_flag("EVOFORGE_NO_EMBEDDED") ||
	    !(k = rt_generic_lookup(name, source, arch, options, noptions)))
		return 0;
	nvrtc_output o = { (void *)k->cubin, (size_t)(k->end - k->cubin), (char *)k->log, 1 };
	return output_copy(&o, out);
}

/* The options nvrtc_compile passes: the fixed ones, then the caller's
 * (*opts malloc'ed; arch_opt holds the arch option's text). */
static rt_status full_options(const char *arch, const char *const *options, int noptions,
			      char arch_opt[64], const char ***opts, int *nopts, rt_error *err)
{
	enum { FIXED = 3 };
	*nopts = FIXED + noptions;
	if (!(*opts = rt_calloc((size_t)*nopts, sizeof **opts, err)))
		return RT_ERR_SYSTEM;
	snprintf(arch_opt, 64, "--gpu-architecture=%s", arch);
	(*opts)[0] = arch_opt;
	(*opts)[1] = "-std=c++17";
	(*opts)[2] = "-default-device";
	for (int i = 0; i < noptions; i++)
		(*opts)[FIXED + i] = options[i];
	return RT_OK;
}

/* From the disk cache (1), or 0: a miss, or RT_ERR_INTERNAL in *st under
 * EVOFORGE_CACHE_STRICT. */
static int from_disk(uint64_t key, const char *name, const char *const *opts, int nopts,
		     nvrtc_output *out, rt_status *st, rt_error *err)
{
	void *data;
	size_t size;
	if (kcache_get(key, &data, &size)) {
		int ok = entry_unpack(data, size, out);
		free(data);
		if (ok) {
			count(&stats.from_disk, 0);
			rt_mark_detail("cache hit", name);
			return 1;
		}
	}
	if (env_flag("EVOFORGE_CACHE_STRICT")) {
		char optbuf[1024];
		join_options(optbuf, sizeof optbuf, opts, nopts);
		*st = rt_fail(err, RT_ERR_INTERNAL, "cache miss for %s (key %016" PRIx64 ", options: "
			      "%s) with EVOFORGE_CACHE_STRICT set", name, key, optbuf);
		return 1;
	}
	return 0;
}

/* The disk cache, else NVRTC (counted); with the cache on, a compile of the
 * same key under way in another process (an MPI rank, a second run) is
 * waited for (kcache_lock) instead of made again. */
static rt_status cached_compile(uint64_t key, const char *name, const char *source,
				const char *const *opts, int nopts, nvrtc_output *out, rt_error *err)
{
	rt_status st = RT_OK;
	int use_cache = !env_flag("EVOFORGE_NO_CACHE"), locked = 0;
	if (use_cache && from_disk(key, name, opts, nopts, out, &st, err))
		return st;
	/* Another process may have compiled it meanwhile: looked up again after
	 * waiting for its lock, and after taking the lock (it may have let go
	 * between the first look and the lock). */
	if (use_cache && (kcache_lock(key, &locked) || locked) &&
	    from_disk(key, name, opts, nopts, out, &st, err)) {
		if (locked)
			kcache_unlock(key);
		return st;
	}
	double t0 = rt_now();
	st = compile_now(name, source, opts, nopts, out, err);
	count(&stats.compiled, rt_now() - t0);
	if (st == RT_OK && use_cache)
		entry_store(key, out, name);
	if (locked)
		kcache_unlock(key);
	return st;
}

/* The cache key of a compile and its full option list (*opts malloc'ed). */
static rt_status compile_key(const char *name, const char *source, const char *arch,
			     const char *const *options, int noptions, char arch_opt[64],
			     const char ***opts, int *nopts, uint64_t *key, rt_error *err)
{
	int major, minor;
	rt_status st;
	*opts = NULL;
	if ((st = nvrtc_version(&major, &minor, err)) != RT_OK ||
	    (st = full_options(arch, options, noptions, arch_opt, opts, nopts, err)) != RT_OK)
		return st;
	/* The name is in the key too: it appears in the stored log's warnings. */
	*key = kcache_key(source, arch, *opts, *nopts, major, minor);
	*key = kcache_fnv1a(*key, name, strlen(name));
	return RT_OK;
}

int nvrtc_reserve(const char *name, const char *source, const char *arch,
		  const char *const *options, int noptions)
{
	char arch_opt[64];
	const char **opts;
	int nopts, listed = 0;
	uint64_t key;
	if (!name || !*name || !source || !arch || strncmp(arch, "sm_", 3) != 0 ||
	    strlen(arch) > 16 || noptions < 0 || (noptions > 0 && !options))
		return 0;   /* the run's own compile says what is wrong */
	if ((kcache_prebuilt_count() > 0 &&
	     kcache_prebuilt_find(kcache_prebuilt_key(name, source, arch, options, noptions), name,
				  arch)) ||
	    (!env_flag("EVOFORGE_NO_EMBEDDED") &&
	     rt_generic_lookup(name, source, arch, options, noptions)))
		return 0;   /* embedded in this program */
	if (compile_key(name, source, arch, options, noptions, arch_opt, &opts, &nopts, &key,
			NULL) != RT_OK)
		return 0;
	free(opts);
	pthread_mutex_lock(&nvrtc_lock);
	memo_entry *m = memo;
	while (m && m->key != key)
		m = m->next;
	if (!m && (m = rt_calloc(1, sizeof *m, NULL)) != NULL) {
		m->key = key;
		m->state = MEMO_RESERVED;
		m->next = memo;
		memo = m;
		listed = 1;
	}
	pthread_mutex_unlock(&nvrtc_lock);
	return listed;
}

static rt_status compile_source(const char *name, const char *source, const char *arch,
				const char *const *options, int noptions, int prepare,
				nvrtc_output *out, rt_error *err)
{
	char arch_opt[64];
	const char **opts = NULL;
	int nopts;
	memo_entry *own = NULL;
	rt_status st;
	memset(out, 0, sizeof *out);
	if (!name || !*name || !source || !arch)
		return rt_fail(err, RT_ERR_INTERNAL, "nvrtc_compile: missing name, source or arch");
	if (strncmp(arch, "sm_", 3) != 0 || strlen(arch) > 16)
		return rt_fail(err, RT_ERR_INPUT,
			       "compiling %s: GPU architecture '%s' is not of the form sm_XY",
			       name, arch);
	if (noptions < 0 || (noptions > 0 && !options))
		return rt_fail(err, RT_ERR_INTERNAL, "nvrtc_compile: bad option list");
	if (from_generic(name, source, arch, options, noptions, out)) {
		count(&stats.prebuilt, 0);
		rt_mark_detail("embedded", name);
		return RT_OK;
	}
	if (kcache_prebuilt_count() > 0) {
		int found;
		st = compile_prebuilt(name, source, arch, options, noptions, out, &found, err);
		if (found && st == RT_OK)
			count(&stats.prebuilt, 0);
		if (st != RT_OK || found)
			return st;
	}
	uint64_t key;
	if ((st = compile_key(name, source, arch, options, noptions, arch_opt, &opts, &nopts, &key,
			      err)) != RT_OK)
		return st;
	if (memo_take(key, prepare, &own, out, &st, err))
		rt_mark_detail("prepared", name);
	else
		st = cached_compile(key, name, source, opts, nopts, out, err);
	if (own)
		memo_publish(own, out, st, err);
	free(opts);
	return st;
}

rt_status nvrtc_compile(const char *name, const char *source, const char *arch,
			const char *const *options, int noptions, nvrtc_output *out, rt_error *err)
{
	rt_status st;
	rt_mark_detail("kernels", name);
	st = compile_source(name, source, arch, options, noptions, 0, out, err);
	rt_mark_detail("kernels ready", name);
	return st;
}

rt_status nvrtc_prepare(const char *name, const char *source, const char *arch,
			const char *const *options, int noptions, rt_error *err)
{
	nvrtc_output out;
	rt_status st;
	rt_mark_detail("kernels", name);
	st = compile_source(name, source, arch, options, noptions, 1, &out, err);
	rt_mark_detail("kernels ready", name);
	nvrtc_output_free(&out);
	return st;
}

/* ---- reading ptxas -v ----------------------------------------------------- */

/* The number just before `what` on the line ("12 bytes spill stores"), or -1. */
static int number_before(const char *line, const char *end, const char *what)
{
	size_t wl = strlen(what);
	for (const char *p = line; p + wl <= end; p++) {
		if (memcmp(p, what, wl) != 0)
			continue;
		const char *q = p;
		while (q > line && q[-1] == ' ')
			q--;
		const char *digits = q;
		while (digits > line && digits[-1] >= '0' && digits[-1] <= '9')
			digits--;
		if (digits == q)
			return -1;
		long v = strtol(digits, NULL, 10);
		return v > 0x7fffffff ? 0x7fffffff : (int)v;
	}
	return -1;
}

/* Whether the line holds `prefix` followed by 'kernel' (quoted or to the end). */
static int names_kernel(const char *line, const char *end, const char *prefix,
			const char *kernel, int quoted)
{
	size_t pl = strlen(prefix), kl = strlen(kernel);
	const char *p = line;
	while (p + pl <= end && memcmp(p, prefix, pl) != 0)
		p++;
	if (p + pl > end)
		return 0;
	p += pl;
	if (quoted) {
		return p + kl + 1 <= end && memcmp(p, kernel, kl) == 0 && p[kl] == '\'';
	}
	const char *e = end;
	while (e > p && (e[-1] == ' ' || e[-1] == '\r'))
		e--;
	return (size_t)(e - p) == kl && memcmp(p, kernel, kl) == 0;
}

static int has_text(const char *line, const char *end, const char *what)
{
	size_t wl = strlen(what);
	for (const char *p = line; p + wl <= end; p++)
		if (memcmp(p, what, wl) == 0)
			return 1;
	return 0;
}

/*
 * ptxas -v (CUDA 13) prints, per entry function:
 *   ptxas info    : Compiling entry function 'evo_smoke' for 'sm_90'
 *   ptxas info    : Function properties for evo_smoke
 *   ptxas         .     0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
 *   ptxas info    : Used 22 registers, used 0 barriers
 * and "Function properties for f" blocks for non-inlined device functions.
 * So: a stack/spill line belongs to the last "Function properties for" name;
 * a "Used N registers" line to the last "Compiling entry function".
 */
rt_status nvrtc_parse_usage(const char *log, const char *kernel, nvrtc_usage *u, rt_error *err)
{
	int in_entry = 0, in_props = 0, found = 0;
	u->registers = u->spill_stores = u->spill_loads = u->stack_frame = -1;
	if (!log || !kernel)
		return rt_fail(err, RT_ERR_INTERNAL, "nvrtc_parse_usage: no log or kernel");
	for (const char *line = log; *line;) {
		const char *end = strchr(line, '\n');
		if (!end)
			end = line + strlen(line);
		if (has_text(line, end, "Compiling entry function '")) {
			in_entry = names_kernel(line, end, "Compiling entry function '", kernel, 1);
			found |= in_entry;
			in_props = 0;
		} else if (has_text(line, end, "Function properties for ")) {
			in_props = names_kernel(line, end, "Function properties for ", kernel, 0);
		} else if (in_props && has_text(line, end, "bytes stack frame")) {
			u->stack_frame = number_before(line, end, "bytes stack frame");
			u->spill_stores = number_before(line, end, "bytes spill stores");
			u->spill_loads = number_before(line, end, "bytes spill loads");
			in_props = 0;
		} else if (in_entry && has_text(line, end, "Used ") &&
			   has_text(line, end, " registers")) {
			u->registers = number_before(line, end, "registers");
		}
		line = *end ? end + 1 : end;
	}
	if (!found)
		return rt_fail(err, RT_ERR_INPUT,
			       "no ptxas report for kernel '%s' in the compile log (compile with "
			       "\"-Xptxas\" \"-v\")", kernel);
	return RT_OK;
}
