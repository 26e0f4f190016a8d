/* built.h: what a problem-specific program made by `evoforge build` hands
 * the runtime library (runtime/built.c): its spec, its overrides and its
 * ahead-of-time compiled cubins.
 *
 * This header is the whole interface between a generated NAME.c and
 * libevoforge.a, so it includes nothing of the runtime's: `evoforge build`
 * copies it into DIR/include/ and the generated program compiles against it
 * alone. Change it only with RT_BUILT_ABI. */
#ifndef RT_BUILT_H
#define RT_BUILT_H

#include <stdint.h>

/* Version of the structures below; rt_built_main refuses other values. */
#define RT_BUILT_ABI 1

/* One cubin compiled ahead of time. The runtime uses it instead of NVRTC when
 * a kernel compile asks for exactly this (name, source, arch, options). */
typedef struct rt_built_kernel {
	const char *name;                 /* program name given to nvrtc_compile */
	const char *arch;                 /* "sm_90" */
	uint64_t key;                     /* kcache_prebuilt_key of the compile */
	const unsigned char *cubin, *end; /* the cubin's bytes: [cubin, end) */
	const char *log;                  /* NVRTC's log (the "-Xptxas -v" report) */
} rt_built_kernel;

/* The program: everything `evoforge build` fixed. */
typedef struct rt_built_program {
	int abi;                          /* RT_BUILT_ABI */
	const char *name;                 /* the problem's (and program's) name */
	const char *evoforge_version;     /* evoforge that wrote it */
	const char *spec_path;            /* the spec's path as given to build (messages, results) */
	const char *spec_dir;             /* its folder's absolute path: relative data paths */
	const char *spec_text;            /* the spec file's text */
	const char *const *overrides;     /* "section.key=value": --set and the tuned ones */
	int noverrides;
	int threads;                      /* tuned CPU threads (0: all cores) */
	const char *archs;                /* "sm_80,sm_90" */
	const rt_built_kernel *kernels;
	int nkernels;
} rt_built_program;

/* The program's main: `NAME run [options]`, `NAME info`, `NAME --help`. */
int rt_built_main(const rt_built_program *prog, int argc, char **argv);

#endif
