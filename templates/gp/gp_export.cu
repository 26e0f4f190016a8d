/* gp_export.cu: the fixed-function GPU evaluator of one exported GP program
 * (host sides: runtime/gp/gp_eval_gpu.c for `evoforge eval --backend gpu`,
 * templates/gp/gp_export_gpu.c for NAME-eval). One thread per case (float
 * programs) or per 32-case word (Boolean programs); the program itself is
 * the expression gp_export.c writes for NAME.c, built from the same
 * operation table (gp_ops.h, gp_math.h). Compiled with --fmad=false and
 * IEEE division and denormals (NVRTC's defaults), so every value equals the
 * CPU's bit for bit.
 *
 * Generator #defines (runtime/gp/gp_eval_gpu.c writes them; the defaults
 * let the file compile on its own): GPX_T (float or uint32_t), GPX_NINPUTS,
 * GPX_PROGRAM(x) (the program over x[0..GPX_NINPUTS-1]). */
#include "gp_ops.h"

#if !defined(GPX_T)
#define GPX_T float
#define GPX_NINPUTS 1
#define GPX_PROGRAM(x) ((x[0] * x[0]) - 1.0f)
#endif

/* out[i] = the program on case i, whose input k is x[i * row + k * col]
 * (row-major: row = GPX_NINPUTS, col = 1; column-major: row = 1, col = the
 * column length). A grid-stride loop, so any grid covers any n. */
extern "C" __global__ void gpx_eval(const GPX_T *__restrict__ xin, unsigned long long row,
				    unsigned long long col, unsigned long long n,
				    GPX_T *__restrict__ out)
{
	unsigned long long i = blockIdx.x * (unsigned long long)blockDim.x + threadIdx.x;
	const unsigned long long step = (unsigned long long)gridDim.x * blockDim.x;
	for (; i < n; i += step) {
		GPX_T x[GPX_NINPUTS];
#pragma unroll
		for (int k = 0; k < GPX_NINPUTS; k++)
			x[k] = xin[i * row + (unsigned long long)k * col];
		out[i] = GPX_PROGRAM(x);
	}
}
