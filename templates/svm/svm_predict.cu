/* svm_predict.cu: C-SVC prediction of a batch of points on the GPU, the
 * same numbers as the CPU's (runtime/svm/svm_predict.c drives it):
 *   svm_predict_kv        K(point, SV) for every pair, a 64 x 64 tile per
 *                         block: both tiles' features staged in shared
 *                         memory 16 at a time, each thread 4 x 4 dot
 *                         products in double in feature order (no FMA:
 *                         compiled with --fmad=false), then svm_core.h's
 *                         svm_kernel_dot; kv[s * bpad + i] in global memory
 *   svm_predict_decision  one thread per (point, class pair): svm_core.h's
 *                         svm_decision over kv in the CPU's order
 *   svm_predict_vote      one thread per point: svm_core.h's svm_vote, the
 *                         votes in shared memory (256 classes at most)
 * Points and SVs are column-major and padded to the tiles (x[f * pad + i]),
 * the padding zero, so the tile kernel needs no bounds checks; kernel
 * values of padding are computed and never read.
 * Why K goes through global memory: a multi-class model needs each K in
 * k - 1 pairs with different coefficients, and the CPU's summation order
 * (class a's SVs, then b's) keeps decision values equal to the CPU's up to
 * the last bits of exp/tanh. */
#include "svm_core.h"

#ifndef SVM_KERNEL   /* defaults for reading this file alone (the generator defines them) */
#define SVM_KERNEL 2
#define SVM_FEATURES 8
#define SVM_TILE 64
#define SVM_CHUNK 16
#define SVM_TILE_THREADS 256
#define SVM_ROW_THREADS 128
#endif
#define SVM_SUB 4                        /* points (and SVs) per thread */
#define SVM_SIDE (SVM_TILE / SVM_SUB)    /* threads along each side of a tile */
static_assert(SVM_SIDE * SVM_SIDE == SVM_TILE_THREADS, "a tile's threads must be a square");

/* Stages features f0 .. f0 + SVM_CHUNK of the block's points and SVs. */
__device__ __forceinline__ void svm_stage(float (*xs)[SVM_TILE], float (*vs)[SVM_TILE],
					  const float *xt, int bpad, const float *svt, int svpad,
					  int f0, int i0, int s0)
{
	for (int e = threadIdx.x; e < SVM_CHUNK * SVM_TILE; e += SVM_TILE_THREADS) {
		const int f = e / SVM_TILE, c = e % SVM_TILE;
		const int in = f0 + f < SVM_FEATURES;
		xs[f][c] = in ? xt[(size_t)(f0 + f) * bpad + i0 + c] : 0.0f;
		vs[f][c] = in ? svt[(size_t)(f0 + f) * svpad + s0 + c] : 0.0f;
	}
}

/* K of points i0 .. i0 + 63 (blockIdx.x) with SVs s0 .. s0 + 63 (blockIdx.y);
 * thread (tx, ty) owns points tx + 16 a and SVs ty + 16 b. */
extern "C" __global__ void __launch_bounds__(SVM_TILE_THREADS)
svm_predict_kv(const float *xt, const double *sqx, int bpad, const float *svt, const double *sqv,
	       int svpad, svm_kernel_params kp, double *kv)
{
	__shared__ float xs[SVM_CHUNK][SVM_TILE], vs[SVM_CHUNK][SVM_TILE];
	const int tx = threadIdx.x % SVM_SIDE, ty = threadIdx.x / SVM_SIDE;
	const int i0 = blockIdx.x * SVM_TILE, s0 = blockIdx.y * SVM_TILE;
	double dot[SVM_SUB][SVM_SUB];
	const svm_kernel_params k = { SVM_KERNEL, kp.degree, kp.gamma, kp.coef0 };  /* the switch folds */
#pragma unroll
	for (int a = 0; a < SVM_SUB; a++)
#pragma unroll
		for (int b = 0; b < SVM_SUB; b++)
			dot[a][b] = 0.0;
	for (int f0 = 0; f0 < SVM_FEATURES; f0 += SVM_CHUNK) {
		const int nf = SVM_FEATURES - f0 < SVM_CHUNK ? SVM_FEATURES - f0 : SVM_CHUNK;
		svm_stage(xs, vs, xt, bpad, svt, svpad, f0, i0, s0);
		__syncthreads();
#pragma unroll
		for (int f = 0; f < SVM_CHUNK; f++) {
			if (f >= nf)
				break;
			double xv[SVM_SUB], vv[SVM_SUB];
#pragma unroll
			for (int a = 0; a < SVM_SUB; a++) {
				xv[a] = (double)xs[f][tx + SVM_SIDE * a];
				vv[a] = (double)vs[f][ty + SVM_SIDE * a];
			}
#pragma unroll
			for (int a = 0; a < SVM_SUB; a++)
#pragma unroll
				for (int b = 0; b < SVM_SUB; b++)
					dot[a][b] += xv[a] * vv[b];
		}
		__syncthreads();
	}
#pragma unroll
	for (int a = 0; a < SVM_SUB; a++)
#pragma unroll
		for (int b = 0; b < SVM_SUB; b++) {
			const int i = i0 + tx + SVM_SIDE * a, s = s0 + ty + SVM_SIDE * b;
			kv[(size_t)s * bpad + i] = svm_kernel_dot(&k, dot[a][b], sqx[i], sqv[s]);
		}
}

/* The classes (a, b) of pair p (a < b, pairs in order). */
__device__ __forceinline__ void svm_pair_classes(int k, int p, int *a, int *b)
{
	int c = 0;
	while (p >= k - 1 - c) {
		p -= k - 1 - c;
		c++;
	}
	*a = c;
	*b = c + 1 + p;
}

/* dec[p * bpad + i]: the decision value of pair p = blockIdx.y for point i;
 * start[c], count[c]: class c's first SV and SV count. */
extern "C" __global__ void __launch_bounds__(SVM_ROW_THREADS)
svm_predict_decision(const double *kv, int bpad, int nb, const double *coef, long total_sv,
		     const long *start, const long *count, int k, const double *rho, double *dec)
{
	const int i = blockIdx.x * SVM_ROW_THREADS + threadIdx.x, p = blockIdx.y;
	int a, b;
	if (i >= nb)
		return;
	svm_pair_classes(k, p, &a, &b);
	dec[(size_t)p * bpad + i] = svm_decision(coef, total_sv, kv + i, bpad, a, start[a], count[a],
						 b, start[b], count[b], rho[p]);
}

/* best[i]: the winning class index of point i (k <= 256 classes). */
extern "C" __global__ void __launch_bounds__(SVM_ROW_THREADS)
svm_predict_vote(const double *dec, int bpad, int nb, int k, int *best)
{
	__shared__ unsigned char svm_votes[256 * SVM_ROW_THREADS];
	const int i = blockIdx.x * SVM_ROW_THREADS + threadIdx.x;
	if (i >= nb)
		return;
	best[i] = svm_vote(dec + i, bpad, k, svm_votes + threadIdx.x, SVM_ROW_THREADS);
}
