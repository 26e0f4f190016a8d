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
/* 64-bit FNV-1a, also used elsewhere for content hashes. */
uint64_t kcache_fnv1a(uint64_t h, const void *data, size_t n);
/* The FNV-1a offset basis: the h to start kcache_fnv1a with. */
#define KCACHE_FNV_OFFSET 0xcbf29ce484222325ULL
/* Path of the entry for key (the cache folder is created if missing). */
rt_status kcache_path(uint64_t key, char *out, int size, rt_error *err);

#endif
