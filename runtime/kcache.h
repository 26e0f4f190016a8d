/* kcache.h: the disk cache of compiled cubins.
 *
 * Key: FNV-1a-64 hash over (cache format, NVRTC version, arch, options,
 * source). Folder: $EVOFORGE_CACHE, else $XDG_CACHE_HOME/evoforge, else
 * ~/.cache/evoforge. Entries are written to a temporary name and renamed.
 * EVOFORGE_CACHE_STRICT=1 makes a miss an error (tests). */
#ifndef RT_KCACHE_H
#define RT_KCACHE_H

#include <stddef.h>
#include <stdint.h>

#include "built.h"
#include "error.h"

/* The cache folder (created if missing). */
rt_status kcache_dir(char *out, int size, rt_error *err);
/* Key over all parts that decide the compiled output. */
uint64_t kcache_key(const char *source, const char *arch, const char *const *options,
		    int noptions, int nvrtc_major, int nvrtc_minor);
/* Looks the key up: 1 and a malloc'ed buffer if found (with a NUL after its
 * size bytes), 0 if not; a short, corrupted or foreign entry is a miss. */
int kcache_get(uint64_t key, void **data, size_t *size);
/* Stores an entry atomically. */
rt_status kcache_put(uint64_t key, const void *data, size_t size, rt_error *err);
/* Claims the compile of key for this process (a <entry>.lock file made
 * with O_EXCL): *owned = 1, and kcache_unlock(key) after kcache_put. When
 * another live process holds it, waits (up to KCACHE_LOCK_WAIT_S) until
 * it lets go: *owned = 0. A lock whose process is gone (same host) or older
 * than KCACHE_LOCK_STALE_S is taken over. Returns 1 if the caller should
 * look the entry up again (it waited), 0 if not. Never fails: without a
 * lock the caller compiles, as before. */
int kcache_lock(uint64_t key, int *owned);
void kcache_unlock(uint64_t key);
#define KCACHE_LOCK_WAIT_S 120.0
#define KCACHE_LOCK_STALE_S 600.0
/* 64-bit FNV-1a, also used elsewhere for content hashes. */
uint64_t kcache_fnv1a(uint64_t h, const void *data, size_t n);
/* The FNV-1a offset basis: the h to start kcache_fnv1a with. */
#define KCACHE_FNV_OFFSET 0xcbf29ce484222325ULL
/* Path of the entry for key (the cache folder is created if missing). */
rt_status kcache_path(uint64_t key, char *out, int size, rt_error *err);

/* ---- prebuilt cubins (`evoforge build`, runtime/built.h) ----
 * A built program registers the cubins it embeds; nvrtc_compile looks a
 * compile up here first, so such a program needs no NVRTC. The key leaves
 * the NVRTC version out: the cubin was made once, ahead of time. */

/* Key of a compile as nvrtc_compile is called (name, source, arch, the
 * caller's options), for the table of prebuilt cubins. */
uint64_t kcache_prebuilt_key(const char *name, const char *source, const char *arch,
			     const char *const *options, int noptions);
/* Makes table[0..n) the prebuilt cubins (not copied; NULL/0: none). */
void kcache_prebuilt_register(const rt_built_kernel *table, int n);
/* The entry for (key, name, arch), or NULL. */
const rt_built_kernel *kcache_prebuilt_find(uint64_t key, const char *name, const char *arch);
/* Number of registered entries (0: this is not a built program). */
int kcache_prebuilt_count(void);
/* The archs the registered entries cover, "sm_80,sm_90" (or "none"). */
const char *kcache_prebuilt_archs(char *buf, int size);

#endif
