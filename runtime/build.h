/* build.h: `evoforge build SPEC -o DIR`: a problem-specific program.
 *
 * DIR gets a generated NAME.c (the spec's text, its overrides -- --set and
 * the tuned configuration -- and the table of embedded cubins), kernels.S
 * (the cubins, .incbin'ed from DIR/kernels/), include/evoforge_built.h
 * (runtime/built.h), lib/libevoforge.a (copied), gen/ (the kind's generated
 * sources, for reading), NAME.ini (the spec) and a build.ninja; then
 * `ninja -C DIR` runs when ninja is on PATH. DIR is self-contained: it
 * builds with gcc, zlib and inih alone, without this checkout.
 *
 * The kernels are the ones the kind lists (rt_kind.kernels) for each
 * --arch, compiled with NVRTC here; the program registers them with the
 * kernel cache (kcache_prebuilt_register) so that no NVRTC is loaded when
 * they match the GPU. */
#ifndef RT_BUILD_H
#define RT_BUILD_H

#include <stddef.h>
#include <stdint.h>

#include "error.h"
#include "kinds.h"
#include "out.h"
#include "spec.h"

typedef struct rt_build_cli {
	const char *archs;   /* "sm_80,sm_90"; NULL: RT_DEFAULT_ARCH */
} rt_build_cli;

/* Writes (and builds, when ninja is present) the program for spec, loaded
 * from spec->path with its overrides applied, into opt->outdir. */
rt_status rt_build_command(const rt_kind *kind, rt_spec *spec, const rt_options *opt,
			   const rt_build_cli *bc, rt_error *err);

/* The shared memory sizes of a typical device of arch ("sm_90": H100/H200),
 * which some kinds' kernels are specialised to; RT_ERR_INPUT for a name not
 * of the form sm_XY. Unknown archs get the compute capability only. */
rt_status rt_build_device_profile(const char *arch, gpu_info *info, rt_error *err);

/* One cubin compiled ahead of time and written to a file, for a table of
 * embedded cubins (a built program's, or evoforge's own: generic.h). */
typedef struct rt_build_kernel {
	char name[128], arch[16];
	uint64_t key;            /* kcache_prebuilt_key of the compile */
	char *log;               /* NVRTC's log (owned) */
	size_t size;
} rt_build_kernel;
struct nvrtc_output;
/* Fills k from a compile's output and writes the cubin to path; k takes the
 * output's log over (free it with free(k->log)). */
rt_status rt_build_keep_cubin(rt_build_kernel *k, const char *name, const char *arch, uint64_t key,
			      struct nvrtc_output *out, const char *path, rt_error *err);

/* Appends to o the C declarations of n cubins (PREFIX_i .. PREFIX_i_end,
 * defined by an assembler file that .incbin's them) with their logs, and
 * `static const rt_built_kernel TABLE[n]` listing them. */
void rt_build_put_table(rt_buf *o, const rt_build_kernel *k, int n, const char *prefix,
			const char *table);
/* Appends s to o as C string literals, one per line of s (at most 200
 * bytes each), escaped. */
void rt_build_c_string(rt_buf *o, const char *s);

#endif
