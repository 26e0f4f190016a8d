/* generic.h: kernels that do not depend on the problem, compiled when
 * evoforge itself is built and embedded in it.
 *
 * Most kernels are specialised per problem (data shape, function set,
 * objective) and compile at start-up; a few are the same for every run of
 * a kind with default settings (gp: the breeding kernels for the default
 * depth limits) -- and one of them, gp's breeding, is the slowest compile
 * of all (2-3 s). Those a kind lists (rt_kind.generic_kernels) are
 * compiled by `evoforge-base generic-kernels -o build/generic` during the
 * ninja build, for the archs in build.ninja's $generic_archs, into a table
 * (build/generic/generic.c, generic.S: the cubins .incbin'ed) linked into
 * build/evoforge, build/evoforge-mpi and libevoforge.so. nvrtc_compile
 * looks a compile up there first, by the same key as `evoforge build`'s
 * programs (kcache_prebuilt_key: name, source, arch, options), so a first
 * run on such a GPU does not compile them, and a changed template or option
 * simply misses and compiles as before. Without the table (the test
 * programs, the sanitizer build, `evoforge build`'s programs) nothing is
 * embedded and everything compiles. */
#ifndef RT_GENERIC_H
#define RT_GENERIC_H

#include <stdint.h>

#include "built.h"
#include "error.h"

/* The embedded cubin for (key, name, arch), or NULL. */
const rt_built_kernel *rt_generic_find(uint64_t key, const char *name, const char *arch);
/* The embedded cubin for this compile (nvrtc_compile's arguments), or NULL. */
const rt_built_kernel *rt_generic_lookup(const char *name, const char *source, const char *arch,
					 const char *const *options, int noptions);
/* How many cubins are embedded, and for which archs ("sm_80,sm_90", or "none"). */
int rt_generic_count(void);
const char *rt_generic_archs(char *buf, int size);

/* `evoforge generic-kernels [--arch LIST] -o DIR`: compiles every kind's
 * generic kernels for each arch of LIST into DIR/kernels/gN.cubin and writes
 * DIR/generic.c (the table) and DIR/generic.S. Without NVRTC the table is
 * empty (said once): evoforge then compiles them at run time as before. */
rt_status rt_generic_write(const char *archs, const char *dir, rt_error *err);

#endif
