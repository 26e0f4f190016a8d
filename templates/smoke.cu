/* smoke.cu: a small real kernel that exercises the whole GPU path (generate,
 * NVRTC, cache, load, launch, copy back) and can be checked against the CPU:
 * y[i] = SMOKE_A * x*x + sin(x) - u, u a Philox uniform draw for element i.
 *
 * The formula is smoke_value(), compiled both here by NVRTC and by the host
 * (runtime/smoke.c includes this file), so both sides compute the same thing
 * and differ only by rounding (the GPU may fuse multiply-adds; sinf differs
 * in the last bits). The generator may #define SMOKE_A and SMOKE_STREAM. */
#include "philox.h"

#ifndef SMOKE_A
#define SMOKE_A 0.5f
#endif

/* The Philox stream the smoke draws come from (runtime/smoke.h's value is
 * the one used: the generator and smoke.c define it before this). */
#ifndef SMOKE_STREAM
#define SMOKE_STREAM 0x5e0cu
#endif

RT_HD float smoke_value(float x, uint64_t seed, uint32_t i)
{
	philox4x32_ctr r = philox_block(seed, SMOKE_STREAM, i);
	float u = philox_u01f(r.v[0]);
	return SMOKE_A * x * x + sinf(x) - u;
}

#if defined(__CUDACC__)
extern "C" __global__ void evo_smoke(const float *x, float *y, int n, unsigned long long seed)
{
	uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
	if (n > 0 && i < (uint32_t)n)
		y[i] = smoke_value(x[i], seed, i);
}
#endif
