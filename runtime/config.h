/* config.h: every compile-time limit of evoforge in one place; each can be
 * overridden with -DNAME=value (as luaconf.h does). */
#ifndef RT_CONFIG_H
#define RT_CONFIG_H

/* Longest error message the library reports (file:line: what was expected). */
#if !defined(RT_ERROR_MAX)
#define RT_ERROR_MAX 4096
#endif

/* Longest path the runtime builds (data files, cache entries, results). */
#if !defined(RT_PATH_MAX)
#define RT_PATH_MAX 4096
#endif

/* Longest section or key name in a spec file. */
#if !defined(RT_SPEC_NAME_MAX)
#define RT_SPEC_NAME_MAX 64
#endif

/* Most worker threads the CPU backend starts. */
#if !defined(RT_MAX_THREADS)
#define RT_MAX_THREADS 256
#endif

/* Most columns a CSV file may have. */
#if !defined(RT_DATA_MAX_COLS)
#define RT_DATA_MAX_COLS 4096
#endif

/* Most distinct strings in one categorical column (or class labels). */
#if !defined(RT_DATA_MAX_CATEGORIES)
#define RT_DATA_MAX_CATEGORIES 65536
#endif

/* Version of the on-disk cubin cache format; bump when the entry layout changes. */
#if !defined(RT_KCACHE_FORMAT)
#define RT_KCACHE_FORMAT 1
#endif

/* GPU architecture NVRTC compiles for when no GPU is present (tests, `gen`). */
#if !defined(RT_DEFAULT_ARCH)
#define RT_DEFAULT_ARCH "sm_90"
#endif

#define RT_VERSION "0.1.0"

#endif
