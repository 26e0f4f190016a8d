/* kcache.c: the disk cache of compiled cubins: one file per key, checked on read.
 *
 * An entry is a fixed header (magic, format, key, payload length, FNV-1a of
 * the payload) followed by the payload. Anything that does not check out
 * (short file, other format, other key, wrong length or checksum) is a miss,
 * so a torn or corrupted file can only cost a recompile. Entries are written
 * to a unique temporary name (mkstemp) in the cache folder and renamed, so
 * concurrent writers of the same key never see each other's partial files. */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "kcache.h"
#include "out.h"

#define KCACHE_MAGIC "EVOFKC\r\n"   /* 8 bytes; \r\n catches text-mode damage */
#define KCACHE_FNV_PRIME 0x100000001b3ULL

typedef struct kcache_header {
	char magic[8];
	uint32_t format;     /* RT_KCACHE_FORMAT */
	uint32_t reserved;   /* 0 */
	uint64_t key;
	uint64_t size;       /* payload bytes after the header */
	uint64_t checksum;   /* kcache_fnv1a(KCACHE_FNV_OFFSET, payload, size) */
} kcache_header;

uint64_t kcache_fnv1a(uint64_t h, const void *data, size_t n)
{
	const unsigned char *p = data;
	for (size_t i = 0; i < n; i++) {
		h ^= p[i];
		h *= KCACHE_FNV_PRIME;
	}
	return h;
}

static uint64_t hash_u32(uint64_t h, uint32_t v)
{
	unsigned char b[4] = { (unsigned char)v, (unsigned char)(v >> 8),
			       (unsigned char)(v >> 16), (unsigned char)(v >> 24) };
	return kcache_fnv1a(h, b, sizeof b);
}

/* A string with its terminating NUL, so ("ab","c") and ("a","bc") differ. */
static uint64_t hash_str(uint64_t h, const char *s)
{
	return kcache_fnv1a(h, s ? s : "", strlen(s ? s : "") + 1);
}

uint64_t kcache_key(const char *source, const char *arch, const char *const *options,
		    int noptions, int nvrtc_major, int nvrtc_minor)
{
	uint64_t h = KCACHE_FNV_OFFSET;
	h = hash_str(h, "evoforge kcache");
	h = hash_u32(h, RT_KCACHE_FORMAT);
	h = hash_u32(h, (uint32_t)nvrtc_major);
	h = hash_u32(h, (uint32_t)nvrtc_minor);
	h = hash_str(h, arch);
	h = hash_u32(h, (uint32_t)(noptions > 0 ? noptions : 0));
	for (int i = 0; i < noptions; i++)
		h = hash_str(h, options[i]);
	return hash_str(h, source);
}

/* Non-empty value of an environment variable, or NULL. */
static const char *env_nonempty(const char *name)
{
	const char *v = getenv(name);
	return v && *v ? v : NULL;
}

rt_status kcache_dir(char *out, int size, rt_error *err)
{
	const char *v;
	int n;
	if ((v = env_nonempty("EVOFORGE_CACHE")))
		n = snprintf(out, (size_t)size, "%s", v);
	else if ((v = env_nonempty("XDG_CACHE_HOME")))
		n = snprintf(out, (size_t)size, "%s/evoforge", v);
	else if ((v = env_nonempty("HOME")))
		n = snprintf(out, (size_t)size, "%s/.cache/evoforge", v);
	else
		return rt_fail(err, RT_ERR_SYSTEM,
			       "no folder for the kernel cache: set EVOFORGE_CACHE or HOME");
	if (n < 0 || n >= size)
		return rt_fail(err, RT_ERR_SYSTEM, "kernel cache folder name too long (%d bytes)", n);
	rt_status st = rt_mkdirs(out, err);
	if (st != RT_OK)
		rt_error_prefix(err, "kernel cache folder");
	return st;
}

rt_status kcache_path(uint64_t key, char *out, int size, rt_error *err)
{
	char dir[RT_PATH_MAX];
	rt_status st = kcache_dir(dir, sizeof dir, err);
	if (st != RT_OK)
		return st;
	int n = snprintf(out, (size_t)size, "%s/%016" PRIx64 ".kc", dir, key);
	if (n < 0 || n >= size)
		return rt_fail(err, RT_ERR_SYSTEM, "kernel cache path too long (%d bytes)", n);
	return RT_OK;
}

/* Reads exactly n bytes; 0 on a short read or error. */
static int read_full(FILE *f, void *buf, size_t n)
{
	return n == 0 || fread(buf, 1, n, f) == n;
}

int kcache_get(uint64_t key, void **data, size_t *size)
{
	char path[RT_PATH_MAX];
	kcache_header h;
	struct stat sb;
	void *buf = NULL;
	int found = 0;
	*data = NULL;
	*size = 0;
	if (kcache_path(key, path, sizeof path, NULL) != RT_OK)
		return 0;
	FILE *f = fopen(path, "rb");
	if (!f)
		return 0;
	if (fstat(fileno(f), &sb) != 0 || sb.st_size < (off_t)sizeof h)
		goto out;
	if (!read_full(f, &h, sizeof h))
		goto out;
	if (memcmp(h.magic, KCACHE_MAGIC, sizeof h.magic) != 0 || h.format != RT_KCACHE_FORMAT ||
	    h.reserved != 0 || h.key != key || h.size != (uint64_t)sb.st_size - sizeof h ||
	    h.size > SIZE_MAX - 1)
		goto out;
	buf = rt_malloc((size_t)h.size + 1, NULL);
	if (!buf || !read_full(f, buf, (size_t)h.size))
		goto out;
	if (kcache_fnv1a(KCACHE_FNV_OFFSET, buf, (size_t)h.size) != h.checksum)
		goto out;
	((char *)buf)[h.size] = '\0';   /* a convenience for text payloads */
	*data = buf;
	*size = (size_t)h.size;
	buf = NULL;
	found = 1;
out:
	free(buf);
	fclose(f);
	return found;
}

static rt_status write_full(int fd, const void *data, size_t n, const char *path, rt_error *err)
{
	const char *p = data;
	while (n > 0) {
		ssize_t w = write(fd, p, n);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return rt_fail(err, RT_ERR_SYSTEM, "%s: write: %s", path,
				       w < 0 ? strerror(errno) : "no progress");
		p += w;
		n -= (size_t)w;
	}
	return RT_OK;
}

rt_status kcache_put(uint64_t key, const void *data, size_t size, rt_error *err)
{
	char path[RT_PATH_MAX], tmp[RT_PATH_MAX + 16];
	kcache_header h;
	rt_status st = kcache_path(key, path, sizeof path, err);
	if (st != RT_OK)
		return st;
	snprintf(tmp, sizeof tmp, "%s.XXXXXX", path);
	int fd = mkstemp(tmp);
	if (fd < 0)
		return rt_fail(err, RT_ERR_SYSTEM, "%s: cannot create: %s", tmp, strerror(errno));
	memset(&h, 0, sizeof h);
	memcpy(h.magic, KCACHE_MAGIC, sizeof h.magic);
	h.format = RT_KCACHE_FORMAT;
	h.key = key;
	h.size = size;
	h.checksum = kcache_fnv1a(KCACHE_FNV_OFFSET, data, size);
	st = write_full(fd, &h, sizeof h, tmp, err);
	if (st == RT_OK)
		st = write_full(fd, data, size, tmp, err);
	if (close(fd) != 0 && st == RT_OK)
		st = rt_fail(err, RT_ERR_SYSTEM, "%s: close: %s", tmp, strerror(errno));
	if (st == RT_OK && rename(tmp, path) != 0)
		st = rt_fail(err, RT_ERR_SYSTEM, "rename %s -> %s: %s", tmp, path, strerror(errno));
	if (st != RT_OK)
		unlink(tmp);
	return st;
}

/* ---- one compiler per key across processes ---------------------------------- */

static int lock_path(uint64_t key, char *out, size_t size)
{
	char path[RT_PATH_MAX];
	if (kcache_path(key, path, sizeof path, NULL) != RT_OK)
		return 0;
	int n = snprintf(out, size, "%s.lock", path);
	return n > 0 && (size_t)n < size;
}

/* Is the lock at path left by a process that is gone (this host) or too old? */
static int lock_stale(const char *path)
{
	char text[128] = "", host[64] = "", me[64] = "";
	long pid = 0;
	struct stat sb;
	FILE *f = fopen(path, "r");
	if (f) {
		size_t n = fread(text, 1, sizeof text - 1, f);
		text[n] = '\0';
		fclose(f);
	}
	if (stat(path, &sb) == 0 && difftime(time(NULL), sb.st_mtime) > KCACHE_LOCK_STALE_S)
		return 1;
	gethostname(me, sizeof me - 1);
	if (sscanf(text, "%ld %63s", &pid, host) == 2 && pid > 0 && strcmp(host, me) == 0)
		return kill((pid_t)pid, 0) != 0 && errno == ESRCH;
	return 0;
}

static int lock_create(const char *path)
{
	char text[128], host[64] = "";
	int fd = open(path, O_WRONLY | O_CREAT | O_EXCL, 0644);
	if (fd < 0)
		return 0;
	gethostname(host, sizeof host - 1);
	int n = snprintf(text, sizeof text, "%ld %s\n", (long)getpid(), host[0] ? host : "?");
	if (n > 0 && write(fd, text, (size_t)n) != n) {
		/* the lock still works without its text; it only goes stale by age */
	}
	close(fd);
	return 1;
}

int kcache_lock(uint64_t key, int *owned)
{
	char path[RT_PATH_MAX + 8];
	struct timespec pause = { 0, 10 * 1000 * 1000 };
	double waited = 0;
	*owned = 0;
	if (!lock_path(key, path, sizeof path))
		return 0;
	for (int tries = 0; tries < 2; tries++) {
		if (lock_create(path)) {
			*owned = 1;
			return 0;
		}
		if (errno != EEXIST)
			return 0;
		if (!lock_stale(path))
			break;
		unlink(path);   /* its process is gone: take it over */
	}
	while (access(path, F_OK) == 0 && waited < KCACHE_LOCK_WAIT_S && !lock_stale(path)) {
		nanosleep(&pause, NULL);
		waited += 0.01;
	}
	return 1;
}

void kcache_unlock(uint64_t key)
{
	char path[RT_PATH_MAX + 8];
	if (lock_path(key, path, sizeof path))
		unlink(path);
}

/* ---- prebuilt cubins ------------------------------------------------------ */

/* Set once at start-up by the built program's main, before any thread runs. */
static const rt_built_kernel *prebuilt;
static int nprebuilt;

uint64_t kcache_prebuilt_key(const char *name, const char *source, const char *arch,
			     const char *const *options, int noptions)
{
	uint64_t h = kcache_key(source, arch, options, noptions, 0, 0);
	h = hash_str(h, "prebuilt");
	return hash_str(h, name);
}

void kcache_prebuilt_register(const rt_built_kernel *table, int n)
{
	prebuilt = n > 0 ? table : NULL;
	nprebuilt = n > 0 && table ? n : 0;
}

const rt_built_kernel *kcache_prebuilt_find(uint64_t key, const char *name, const char *arch)
{
	for (int i = 0; i < nprebuilt; i++) {
		const rt_built_kernel *k = &prebuilt[i];
		if (k->key == key && !strcmp(k->name, name) && !strcmp(k->arch, arch) &&
		    k->end > k->cubin)
			return k;
	}
	return NULL;
}

int kcache_prebuilt_count(void)
{
	return nprebuilt;
}

const char *kcache_prebuilt_archs(char *buf, int size)
{
	int len = 0;
	buf[0] = '\0';
	for (int i = 0; i < nprebuilt; i++) {
		int seen = 0;
		for (int j = 0; j < i && !seen; j++)
			seen = !strcmp(prebuilt[j].arch, prebuilt[i].arch);
		if (!seen && len < size)
			len += snprintf(buf + len, (size_t)(size - len), "%s%s", len ? "," : "",
					prebuilt[i].arch);
	}
	if (!buf[0])
		snprintf(buf, (size_t)size, "none");
	return buf;
}
