/* smoke.h: the smoke test of the GPU path: templates/smoke.cu generated,
 * compiled with NVRTC for the present GPU, run, and compared with the same
 * formula computed on the CPU (`evoforge info --check`, tools/device-check). */
#ifndef RT_SMOKE_H
#define RT_SMOKE_H

#include <stdint.h>

#include "error.h"
#include "gen.h"

/* Largest |GPU - CPU| that counts as agreement (|y| < 16; fused multiply-adds
 * and sinf's last bits are the only differences). */
#define SMOKE_TOLERANCE 1e-4
/* The kernel's name in templates/smoke.cu. */
#define SMOKE_KERNEL "evo_smoke"
/* The Philox stream of the smoke draws: element i uses the first draw of
 * block i (the generator passes this to the template). */
#define SMOKE_STREAM 0x5e0cu

/* The input of element i (deterministic, in [-4, 4]). */
float smoke_input(int i);
/* Renders the smoke kernel's source ("smoke.cu") with the generator. */
rt_status smoke_source(gen_source *src, rt_error *err);
/* The CPU reference: y[i] for i < n on inputs smoke_input(i); *ms = wall time
 * (ms may be NULL). */
rt_status smoke_run_cpu(int n, uint64_t seed, float *y, double *ms, rt_error *err);
/* Runs the kernel on device 0 over n elements and compares with
 * smoke_run_cpu: *max_abs_err the largest difference, *ms the kernel's GPU
 * time (either may be NULL). RT_ERR_NOGPU without a GPU; RT_ERR_INTERNAL if
 * the results differ by more than SMOKE_TOLERANCE (max_abs_err still set). */
rt_status smoke_run_gpu(int n, uint64_t seed, double *max_abs_err, double *ms, rt_error *err);

#endif
