/* gp_export.h: what gp_export.c (export and eval of a run's best program)
 * shares with gp_eval_gpu.c: the fixed-function GPU kernel of one program
 * (templates/gp/gp_export.cu), rendered from the same C expression that
 * NAME.c holds, compiled with NVRTC and run over many cases. */
#ifndef RT_GP_EXPORT_H
#define RT_GP_EXPORT_H

#include <stddef.h>

#include "error.h"
#include "gen.h"

/* One program as the kernel needs it. */
typedef struct gp_xprogram {
	const char *ident;   /* C identifier (names the kernel source, NAME.cu) */
	const char *expr;    /* the program over x[0..ninputs-1]: gp_export.c's C expression */
	int ninputs;
	int boolean;         /* 1: uint32_t words of 32 cases; 0: float cases */
} gp_xprogram;

/* NVRTC options of the kernel: no multiply-add contraction (bit-exactness),
 * ptxas's register report (tests check that it does not spill). */
extern const char *const gp_xkernel_options[];
extern const int gp_xkernel_noptions;

/* The kernel's CUDA source (NAME.cu; kernel gpx_eval) into *src. */
rt_status gp_xkernel_render(const gp_xprogram *p, gen_source *src, rt_error *err);

/* The program on n cases (Boolean: n words) on GPU 0: x column-major, input
 * k of case i at x[k * stride + i]; out[n]. Batches of at most `batch` cases
 * (0: as many as a quarter of the free device memory holds). RT_ERR_NOGPU
 * with no driver or device; RT_ERR_NVRTC / RT_ERR_CUDA on failures there. */
rt_status gp_xkernel_eval_gpu(const gp_xprogram *p, const void *x, size_t stride, size_t n,
			      size_t batch, void *out, rt_error *err);

#endif
