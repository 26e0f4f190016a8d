/* svm.cu: SMO for one binary C-SVC problem on the GPU, the same steps as
 * runtime/svm/svm_solver.c (LIBSVM's solver without shrinking), every
 * iteration on the device with no host round trip. Two ways to run it:
 *
 * persistent (the default, at the end of this file): one cooperative launch
 * runs thousands of iterations with two grid barriers each and keeps an LRU
 * cache of kernel rows in device memory; a missed row comes from the points,
 * or from the Gram matrix (svm_gram) that problems on one data set share.
 *
 * roles (the seed's structure, one kernel per role, 8 launches per
 * iteration queued by the host): svm_pick_i and svm_pick_finish (blocks
 * reduce, one block finishes) choose i = argmax over I_up of -y G; svm_row
 * computes Q row i (the point in shared memory, the data column-major and
 * padded so that threads read consecutive words, the dot product in double
 * in feature order as the CPU does); svm_pick_blocks and svm_pick_finish
 * choose j (second order, LIBSVM's WSS2, or the maximal violator) and set
 * done when the violation is below eps;
 * svm_step updates the pair (svm_core.h's svm_update_pair, one thread);
 * svm_row computes row j; svm_grad adds both rows into G.
 *
 * Sparse data (SVM_SPARSE 1): the points are CSR rows (row pointers,
 * columns, values); a kernel row stages the row's point's non-zeros in
 * shared memory (SVM_PIVOT_CHUNK at a time) and each thread merges its own
 * point's non-zeros with them, adding the products in feature order: the
 * CPU's dot product bit for bit (svm_row_csr_part, svm_row_csr). No Gram
 * matrix then. */
#include "svm_core.h"

/* The kernels the module holds (svm_gpu_source): SVM_MODULE 0 every one
 * (the bandwidth bench), 1 the persistent solver's, 2 the per-role ones. */
#ifndef SVM_MODULE
#define SVM_MODULE 0
#endif
#define SVM_PERSISTENT (SVM_MODULE == 0 || SVM_MODULE == 1)
#define SVM_ROLES (SVM_MODULE == 0 || SVM_MODULE == 2)
#define SVM_BENCH (SVM_MODULE == 0)
#ifndef SVM_KERNEL   /* defaults for reading this file alone (the generator defines them) */
#define SVM_KERNEL 2
#define SVM_FEATURES 8
#define SVM_WSS 0
#endif
#ifndef SVM_SPARSE   /* 1: the points are CSR rows (svm_row_csr_part), not column-major */
#define SVM_SPARSE 0
#endif
#define SVM_THREADS 256
/* Sparse: the row's point's non-zeros pass through shared memory this many
 * at a time (columns, then values: 8 KB). */
#define SVM_PIVOT_CHUNK 1024
#define SVM_POINT_FLOATS (SVM_SPARSE ? 2 * SVM_PIVOT_CHUNK : SVM_FEATURES)
#define SVM_NEG_HUGE (-1.0e300)   /* below every value (NVRTC has no INFINITY) */
#ifndef SVM_PICK_I_UNROLL   /* svm_pick_i: pairs of points a thread loads per trip */
#define SVM_PICK_I_UNROLL 2
#endif

typedef struct svm_state {
	int i, j, done, in;        /* in: the nu-form's i- (i is its i+) */
	long long iterations;
	double gmax, gmax2, dai, daj;
	double gmaxn;              /* the nu-form's largest G over I_up among y = -1 */
} svm_state;

__device__ __forceinline__ int svm_in_up(int y, double a, double Cp, double Cn)
{
	return y > 0 ? a < Cp : a > 0;
}

__device__ __forceinline__ int svm_in_low(int y, double a, double Cp, double Cn)
{
	return y > 0 ? a > 0 : a < Cn;
}

/* Block-reduces (value, index): the larger value, on ties the larger index
 * (the CPU scans upwards with >=). */
__device__ __forceinline__ void svm_block_best(double *v, int *idx)
{
	__shared__ double sv[SVM_THREADS];
	__shared__ int si[SVM_THREADS];
	sv[threadIdx.x] = *v;
	si[threadIdx.x] = *idx;
	__syncthreads();
	for (int s = SVM_THREADS / 2; s > 0; s >>= 1) {
		if (threadIdx.x < s) {
			double a = sv[threadIdx.x], b = sv[threadIdx.x + s];
			int ia = si[threadIdx.x], ib = si[threadIdx.x + s];
			if (b > a || (b == a && ib > ia)) {
				sv[threadIdx.x] = b;
				si[threadIdx.x] = ib;
			}
		}
		__syncthreads();
	}
	*v = sv[0];
	*idx = si[0];
	__syncthreads();
}

/* The end of a pick's phase 1: the block's best (value, index) and its
 * largest g2 into the block's part. */
__device__ __forceinline__ void svm_write_part(double best, int bi, double g2, double *part_v,
					       int *part_i, double *part_g2, int part)
{
	int dummy = 0;
	svm_block_best(&best, &bi);
	svm_block_best(&g2, &dummy);
	if (threadIdx.x == 0) {
		part_v[part] = best;
		part_i[part] = bi;
		part_g2[part] = g2;
	}
}

/* Phase 1 of a pick: each block's best candidate into part[block].
 * which 0: i (value -y G over I_up; the roles solver now uses svm_pick_i,
 * this stays as the measured reference it replaced); which 1: j (value
 * -obj over I_low, or y G for the first-order rule) and the block's max
 * y G over I_low. */
#if SVM_ROLES   /* svm_pick_blocks */
extern "C" __global__ void __launch_bounds__(SVM_THREADS)
svm_pick_blocks(const double *G, const double *alpha, const signed char *y, const float *row_i,
		const double *QD, int n, double Cp, double Cn, svm_state *st, int which,
		double *part_v, int *part_i, double *part_g2)
{
	if (st->done)
		return;
	double best = SVM_NEG_HUGE, g2 = SVM_NEG_HUGE;
	int bi = -1;
	const int i = st->i;
	for (int t = blockIdx.x * SVM_THREADS + threadIdx.x; t < n; t += gridDim.x * SVM_THREADS) {
		int yt = y[t];
		double v;
		if (which == 0) {
			if (!svm_in_up(yt, alpha[t], Cp, Cn))
				continue;
			v = yt > 0 ? -G[t] : G[t];
		} else {
			if (!svm_in_low(yt, alpha[t], Cp, Cn))
				continue;
			double yg = yt > 0 ? G[t] : -G[t];
			g2 = yg > g2 ? yg : g2;
			if (SVM_WSS == 1) {
				v = yg;
			} else {
				double grad_diff = st->gmax + yg;
				if (!(grad_diff > 0))
					continue;
				v = svm_wss2_gain(grad_diff, QD[i], QD[t], y[i], yt, (double)row_i[t]);
			}
		}
		if (v > best || (v == best && t > bi)) {
			best = v;
			bi = t;
		}
	}
	svm_write_part(best, bi, g2, part_v, part_i, part_g2, blockIdx.x);
}
#endif

/* ---- the i pick (roles): argmax of -y G over I_up --------------------------
 * The same (value, index) as svm_pick_blocks with which 0: the larger value,
 * on ties the larger index, is a total order, so the result does not depend
 * on the order the candidates are visited in. Each thread takes points in
 * pairs (double2 of G and alpha, char2 of y), SVM_PICK_I_UNROLL pairs a
 * trip with every load issued before any is used, G read whatever the label
 * (a select, not a branch): more bytes in flight per thread. The block's
 * best goes through warp shuffles (two rounds, one barrier). On the H100
 * (bench/results/svm-h100-2026-11-23c/ipick.log) this took the i pick over
 * 8M points from 69.0 to 50.6 us: 74 % to 102 % of the copy bound; 1, 2
 * and 4 pairs a trip, 132 to 528 blocks, were within 3 % of each other. */

/* (v, t) beats (*best, *bi) when t is in I_up: svm_pick_blocks' comparison. */
__device__ __forceinline__ void svm_take_i(double g, double a, int yt, int t, double Cp, double Cn,
					   double *best, int *bi)
{
	const double v = yt > 0 ? -g : g;
	if (svm_in_up(yt, a, Cp, Cn) && (v > *best || (v == *best && t > *bi))) {
		*best = v;
		*bi = t;
	}
}

/* The larger (value, index) of this lane's and the lane `off` above. */
__device__ __forceinline__ void svm_shfl_best(double *v, int *idx, int off)
{
	const double ov = __shfl_down_sync(0xffffffffu, *v, off);
	const int oi = __shfl_down_sync(0xffffffffu, *idx, off);
	if (ov > *v || (ov == *v && oi > *idx)) {
		*v = ov;
		*idx = oi;
	}
}

/* svm_block_best's result in thread 0 only, by warp shuffles. */
__device__ __forceinline__ void svm_block_best0(double *v, int *idx)
{
	__shared__ double wv[SVM_THREADS / 32];
	__shared__ int wi[SVM_THREADS / 32];
	const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
	for (int off = 16; off > 0; off >>= 1)
		svm_shfl_best(v, idx, off);
	if (lane == 0) {
		wv[warp] = *v;
		wi[warp] = *idx;
	}
	__syncthreads();
	if (warp == 0) {
		*v = lane < SVM_THREADS / 32 ? wv[lane] : SVM_NEG_HUGE;
		*idx = lane < SVM_THREADS / 32 ? wi[lane] : -1;
		for (int off = SVM_THREADS / 64; off > 0; off >>= 1)
			svm_shfl_best(v, idx, off);
	}
}

/* The thread's best i candidate over its pairs (and the odd last point). */
__device__ __forceinline__ void svm_pick_i_own(const double *G, const double *alpha,
					       const signed char *y, int n, double Cp, double Cn,
					       double *best, int *bi)
{
	const double2 *G2 = (const double2 *)G, *A2 = (const double2 *)alpha;
	const char2 *Y2 = (const char2 *)y;
	const int pairs = n / 2, stride = gridDim.x * SVM_THREADS;
	int p = blockIdx.x * SVM_THREADS + threadIdx.x;
	for (; p + (SVM_PICK_I_UNROLL - 1) * stride < pairs; p += SVM_PICK_I_UNROLL * stride) {
		double2 g[SVM_PICK_I_UNROLL], a[SVM_PICK_I_UNROLL];
		char2 yy[SVM_PICK_I_UNROLL];
#pragma unroll
		for (int u = 0; u < SVM_PICK_I_UNROLL; u++) {
			g[u] = __ldg(G2 + p + u * stride);
			a[u] = __ldg(A2 + p + u * stride);
			yy[u] = __ldg(Y2 + p + u * stride);
		}
#pragma unroll
		for (int u = 0; u < SVM_PICK_I_UNROLL; u++) {
			const int t = 2 * (p + u * stride);
			svm_take_i(g[u].x, a[u].x, yy[u].x, t, Cp, Cn, best, bi);
			svm_take_i(g[u].y, a[u].y, yy[u].y, t + 1, Cp, Cn, best, bi);
		}
	}
	for (; p < pairs; p += stride) {
		const double2 g = __ldg(G2 + p), a = __ldg(A2 + p);
		const char2 yy = __ldg(Y2 + p);
		svm_take_i(g.x, a.x, yy.x, 2 * p, Cp, Cn, best, bi);
		svm_take_i(g.y, a.y, yy.y, 2 * p + 1, Cp, Cn, best, bi);
	}
	if ((n & 1) && blockIdx.x == 0 && threadIdx.x == 0)
		svm_take_i(__ldg(G + n - 1), __ldg(alpha + n - 1), __ldg(y + n - 1), n - 1, Cp, Cn,
			   best, bi);
}

/* The block's best i candidate into part[part] (thread 0; the i pick has
 * no g2: its part is below every value). */
__device__ __forceinline__ void svm_write_part_i(double best, int bi, double *part_v, int *part_i,
						 double *part_g2, int part)
{
	svm_block_best0(&best, &bi);
	if (threadIdx.x == 0) {
		part_v[part] = best;
		part_i[part] = bi;
		part_g2[part] = SVM_NEG_HUGE;
	}
}

/* Phase 1 of the roles solver's i pick (svm_pick_finish with which 0 does
 * phase 2): each block's best candidate into part[block], two pairs of
 * points a trip per thread. */
#if SVM_ROLES   /* svm_pick_i */
extern "C" __global__ void __launch_bounds__(SVM_THREADS)
svm_pick_i(const double *G, const double *alpha, const signed char *y, int n, double Cp,
	   double Cn, const svm_state *st, double *part_v, int *part_i, double *part_g2)
{
	if (st->done)
		return;
	double best = SVM_NEG_HUGE;
	int bi = -1;
	svm_pick_i_own(G, alpha, y, n, Cp, Cn, &best, &bi);
	svm_write_part_i(best, bi, part_v, part_i, part_g2, blockIdx.x);
}
#endif

/* The seed's fused pick, measured by svm_gpu_bandwidth only: the first-
 * order i (max of -y G over I_up, parts [0, blocks)) and j (max of y G over
 * I_low, parts [blocks, 2 blocks)) in one pass over G, alpha and y. */
#if SVM_BENCH   /* svm_pick_both */
extern "C" __global__ void __launch_bounds__(SVM_THREADS)
svm_pick_both(const double *G, const double *alpha, const signed char *y, int n, double Cp,
	      double Cn, double *part_v, int *part_i, double *part_g2)
{
	double best_i = SVM_NEG_HUGE, best_j = SVM_NEG_HUGE;
	int bi = -1, bj = -1;
	for (int t = blockIdx.x * SVM_THREADS + threadIdx.x; t < n; t += gridDim.x * SVM_THREADS) {
		const int yt = y[t];
		const double a = alpha[t], yg = yt > 0 ? G[t] : -G[t];
		if (svm_in_up(yt, a, Cp, Cn) && (-yg > best_i || (-yg == best_i && t > bi))) {
			best_i = -yg;
			bi = t;
		}
		if (svm_in_low(yt, a, Cp, Cn) && (yg > best_j || (yg == best_j && t > bj))) {
			best_j = yg;
			bj = t;
		}
	}
	svm_write_part(best_i, bi, SVM_NEG_HUGE, part_v, part_i, part_g2, blockIdx.x);
	svm_write_part(best_j, bj, best_j, part_v, part_i, part_g2, gridDim.x + blockIdx.x);
}
#endif

/* Q_pt = y_p y_t K(x_p, x_t) as float, from the dot product x_p . x_t. */
__device__ __forceinline__ float svm_q_dot(double dot, int p, int t, const double *sq,
					   const signed char *y, const svm_kernel_params *kp)
{
	double k;
	if (SVM_KERNEL == SVM_LINEAR)
		k = dot;
	else if (SVM_KERNEL == SVM_POLY)
		k = svm_powi(kp->gamma * dot + kp->coef0, kp->degree);
	else if (SVM_KERNEL == SVM_RBF)
		k = exp(-kp->gamma * (sq[p] + sq[t] - 2.0 * dot));
	else
		k = tanh(kp->gamma * dot + kp->coef0);
	return (float)(y[p] * y[t] * k);
}

/* Q_pt with x_p in shared memory (the dot product in double, in feature
 * order, as the CPU computes it). */
__device__ __forceinline__ float svm_q(const float *xp, int p, int t, const float *xt,
				       const double *sq, const signed char *y, int npad,
				       const svm_kernel_params *kp)
{
	double dot = 0.0;
	for (int f = 0; f < SVM_FEATURES; f++)
		dot += (double)xp[f] * (double)xt[(size_t)f * npad + t];
	return svm_q_dot(dot, p, t, sq, y, kp);
}

/* Sparse: Q_pt for the points t = first + threadIdx.x, first + stride, ...
 * below n into row[t], from CSR rows (ptr, col, val). x_p's non-zeros pass
 * through shared memory xp (SVM_PIVOT_CHUNK columns, then as many values)
 * chunk by chunk; each thread walks its point's non-zeros alongside, so
 * the matching products are added in feature order. Every thread of the
 * block takes the same trips (for the barriers). */
__device__ __forceinline__ void svm_row_csr_part(float *xp, const long long *ptr, const int *col,
						 const float *val, const double *sq,
						 const signed char *y, int n, int p, int first,
						 int stride, const svm_kernel_params *kp, float *row)
{
	int *pc = (int *)xp;
	float *pv = xp + SVM_PIVOT_CHUNK;
	const long long p0 = ptr[p], pn = ptr[p + 1] - p0;
	for (int base = first; base < n; base += stride) {
		const int t = base + threadIdx.x;
		long long k = t < n ? ptr[t] : 0, kend = t < n ? ptr[t + 1] : 0;
		double dot = 0.0;
		for (long long c0 = 0; c0 < pn; c0 += SVM_PIVOT_CHUNK) {
			const int m = pn - c0 < SVM_PIVOT_CHUNK ? (int)(pn - c0) : SVM_PIVOT_CHUNK;
			__syncthreads();
			for (int e = threadIdx.x; e < m; e += SVM_THREADS) {
				pc[e] = col[p0 + c0 + e];
				pv[e] = val[p0 + c0 + e];
			}
			__syncthreads();
			for (int e = 0; k < kend && e < m;) {
				const int ck = col[k], ce = pc[e];
				if (ck < ce) {
					k++;
				} else if (ck > ce) {
					e++;
				} else {
					dot += (double)pv[e] * (double)val[k];
					k++;
					e++;
				}
			}
		}
		if (t < n)
			row[t] = svm_q_dot(dot, p, t, sq, y, kp);
	}
	__syncthreads();
}

/* The Gram matrix of n points (column-major xt, npad rows): gram[r n + c] =
 * x_r . x_c, each in double in feature order, so that a row taken from it
 * equals svm_q's. A block fills a 64 x 64 tile, a thread 4 x 4 of it, the
 * features passing through shared memory 16 at a time. */
#define SVM_GRAM_TILE 64
#define SVM_GRAM_CHUNK 16
#if SVM_PERSISTENT   /* svm_gram */
extern "C" __global__ void __launch_bounds__(SVM_THREADS)
svm_gram(const float *xt, int npad, int n, double *gram)
{
	__shared__ float a[SVM_GRAM_CHUNK][SVM_GRAM_TILE], b[SVM_GRAM_CHUNK][SVM_GRAM_TILE];
	const int r0 = blockIdx.y * SVM_GRAM_TILE, c0 = blockIdx.x * SVM_GRAM_TILE;
	const int tr = threadIdx.x / 16, tc = threadIdx.x % 16;
	double acc[4][4];
	for (int k = 0; k < 4; k++)
		for (int l = 0; l < 4; l++)
			acc[k][l] = 0.0;
	for (int f0 = 0; f0 < SVM_FEATURES; f0 += SVM_GRAM_CHUNK) {
		const int fe = SVM_FEATURES - f0 < SVM_GRAM_CHUNK ? SVM_FEATURES - f0 : SVM_GRAM_CHUNK;
		for (int e = threadIdx.x; e < fe * SVM_GRAM_TILE; e += SVM_THREADS) {
			const int f = e / SVM_GRAM_TILE, k = e % SVM_GRAM_TILE;
			const float *col = xt + (size_t)(f0 + f) * npad;
			a[f][k] = r0 + k < n ? col[r0 + k] : 0.0f;
			b[f][k] = c0 + k < n ? col[c0 + k] : 0.0f;
		}
		__syncthreads();
		for (int f = 0; f < fe; f++)
			for (int k = 0; k < 4; k++)
				for (int l = 0; l < 4; l++)
					acc[k][l] += (double)a[f][tr + 16 * k] * (double)b[f][tc + 16 * l];
		__syncthreads();
	}
	for (int k = 0; k < 4; k++)
		for (int l = 0; l < 4; l++) {
			const int r = r0 + tr + 16 * k, c = c0 + tc + 16 * l;
			if (r < n && c < n)
				gram[(size_t)r * n + c] = acc[k][l];
		}
}
#endif

/* Loads point p into shared memory xp. */
__device__ __forceinline__ void svm_load_point(float *xp, const float *xt, int p, int npad)
{
	for (int f = threadIdx.x; f < SVM_FEATURES; f += SVM_THREADS)
		xp[f] = xt[(size_t)f * npad + p];
}

/* Reduces the blocks' parts (one block): the best (value, index) and the
 * largest g2. */
__device__ __forceinline__ void svm_reduce_parts(const double *part_v, const int *part_i,
						 const double *part_g2, int nparts, double *best,
						 int *bi, double *g2)
{
	int dummy = 0;
	*best = SVM_NEG_HUGE;
	*g2 = SVM_NEG_HUGE;
	*bi = -1;
	for (int b = threadIdx.x; b < nparts; b += SVM_THREADS) {   /* through L2: written by
								       other blocks */
		const int ib = __ldcg(part_i + b);
		const double vb = __ldcg(part_v + b), gb = __ldcg(part_g2 + b);
		if (ib >= 0 && (vb > *best || (vb == *best && ib > *bi))) {
			*best = vb;
			*bi = ib;
		}
		*g2 = gb > *g2 ? gb : *g2;
	}
	svm_block_best(best, bi);
	svm_block_best(g2, &dummy);
}

/* Phase 2: one block reduces the parts and records the pick. */
#if SVM_ROLES   /* svm_pick_finish */
extern "C" __global__ void __launch_bounds__(SVM_THREADS)
svm_pick_finish(const double *part_v, const int *part_i, const double *part_g2, int nparts,
		svm_state *st, int which, double eps)
{
	if (st->done)
		return;
	double best, g2;
	int bi;
	svm_reduce_parts(part_v, part_i, part_g2, nparts, &best, &bi, &g2);
	if (threadIdx.x != 0)
		return;
	if (which == 0) {
		st->i = bi;
		st->gmax = best;
		if (bi < 0)
			st->done = 1;
	} else {
		st->j = bi;
		st->gmax2 = g2;
		if (st->gmax + g2 < eps || bi < 0)
			st->done = 1;
	}
}
#endif

/* Q row of point i (which 0) or j (which 1): y_p y_t K(x_p, x_t), as float. */
#if SVM_ROLES   /* svm_row */
extern "C" __global__ void __launch_bounds__(SVM_THREADS)
svm_row(const float *xt, const double *sq, const signed char *y, int n, int npad,
	const svm_state *st, int which, svm_kernel_params kp, float *row)
{
	__shared__ float xp[SVM_FEATURES];
	if (st->done)
		return;
	const int p = which ? st->j : st->i;
	svm_load_point(xp, xt, p, npad);
	__syncthreads();
	for (int t = blockIdx.x * SVM_THREADS + threadIdx.x; t < n; t += gridDim.x * SVM_THREADS)
		row[t] = svm_q(xp, p, t, xt, sq, y, npad, &kp);
}
#endif

/* Sparse data: svm_row's work from CSR rows. */
#if SVM_ROLES   /* svm_row_csr */
extern "C" __global__ void __launch_bounds__(SVM_THREADS)
svm_row_csr(const long long *ptr, const int *col, const float *val, const double *sq,
	    const signed char *y, int n, const svm_state *st, int which, svm_kernel_params kp,
	    float *row)
{
	__shared__ float xp[2 * SVM_PIVOT_CHUNK];
	if (st->done)
		return;
	svm_row_csr_part(xp, ptr, col, val, sq, y, n, which ? st->j : st->i,
			 blockIdx.x * SVM_THREADS, gridDim.x * SVM_THREADS, &kp, row);
}
#endif

/* The pair's update (one thread). */
#if SVM_ROLES   /* svm_step */
extern "C" __global__ void svm_step(double *alpha, const double *G, const signed char *y,
				    const double *QD, const float *row_i, double Cp, double Cn,
				    svm_state *st)
{
	if (st->done)
		return;
	const int i = st->i, j = st->j;
	double ai = alpha[i], aj = alpha[j], oi = ai, oj = aj;
	svm_update_pair(&ai, &aj, y[i], y[j], y[i] > 0 ? Cp : Cn, y[j] > 0 ? Cp : Cn, G[i], G[j],
			QD[i], QD[j], (double)row_i[j]);
	alpha[i] = ai;
	alpha[j] = aj;
	st->dai = ai - oi;
	st->daj = aj - oj;
	st->iterations++;
}
#endif

/* G += Q_i dai + Q_j daj. */
#if SVM_ROLES   /* svm_grad */
extern "C" __global__ void __launch_bounds__(SVM_THREADS)
svm_grad(double *G, const float *row_i, const float *row_j, int n, const svm_state *st)
{
	if (st->done)
		return;
	const double dai = st->dai, daj = st->daj;
	for (int t = blockIdx.x * SVM_THREADS + threadIdx.x; t < n; t += gridDim.x * SVM_THREADS)
		G[t] += (double)row_i[t] * dai + (double)row_j[t] * daj;
}
#endif

/* ---- persistent: many iterations per launch -------------------------------
 * One cooperative launch runs up to `iters` iterations of one or many
 * problems (the pairs of a one-vs-one model, folds, grid cells): each
 * problem has a team of consecutive blocks and its own task (data, state,
 * cache, barrier). A thread owns the same points of its problem in every
 * phase (t = team block * threads + thread + k * team size), so its G, rows
 * and candidates need no synchronisation between phases; what crosses
 * blocks goes through two team barriers per iteration, each finished by the
 * team's block 0 alone: it reduces the blocks' parts, keeps the kernel-row
 * cache (LRU over `slots` rows of npad floats) and makes the step, then
 * releases the others. Per iteration:
 *   A  (own points) G += Q_i dai + Q_j daj of the last step; i candidates
 *   -- block 0: i = argmax, its cache slot (computed below on a miss)
 *   B  (own points) row i on a miss; j candidates (WSS2 reads row i)
 *   -- block 0: j, the stopping test, j's slot, the pair's update
 *   C  (own points) row j on a miss; then A of the next iteration.
 * Values other blocks wrote are read with __ldcg (L2), never a stale L1. */

typedef struct svm_cache {
	int head, tail;            /* most and least recently used slot */
	int slot_i, slot_j;
	int miss_i, miss_j;
	int slot_n, miss_n;        /* the nu-form's i- */
} svm_cache;

/* A team's barrier counters, zeroed before each launch. */
typedef struct svm_barrier {
	unsigned arrived, released;
} svm_barrier;

/* One problem of a launch (svm_gpu.c's gpu_task has the same layout). */
typedef struct svm_task {
	const float *xt;
	const double *sq, *QD;
	const signed char *y;
	double *alpha, *G, *pv, *pg;
	int *pi;
	svm_state *st;
	float *rows;               /* the cache: slots x npad */
	int *row_slot, *slot_row, *prev, *next;
	svm_cache *c;
	svm_barrier *bar;
	const double *gram;        /* NULL, or the root's Gram matrix (gram_n x gram_n) */
	const int *gidx;           /* the points' indices in the root */
	long long gram_n;
	const long long *xptr;     /* sparse: the points' CSR rows (xt unused) */
	const int *xcol;
	const float *xval;
	svm_kernel_params kp;
	double Cp, Cn, eps;
	int n, npad, first_block, nblocks;
	int nu, pad;               /* nu 1: the nu-form's working pair (svm_phase_a_nu ...) */
} svm_task;

/* The team's own block index and size, for the loops over own points. */
#define SVM_OWN_POINTS(t, T, b) \
	for (int t = (b) * SVM_THREADS + threadIdx.x; t < (T).n; t += (T).nblocks * SVM_THREADS)

/* Every block but 0 checks in; block 0 waits for them (then works alone). */
__device__ __forceinline__ void svm_bar_gather(svm_barrier *bar, int b, int nb, unsigned gen)
{
	__syncthreads();
	if (threadIdx.x == 0) {
		__threadfence();
		if (b != 0) {
			atomicAdd(&bar->arrived, 1u);
		} else {
			while (((volatile svm_barrier *)bar)->arrived < gen * (unsigned)(nb - 1))
				;
			__threadfence();
		}
	}
	__syncthreads();
}

/* Block 0 releases; the others wait for it. */
__device__ __forceinline__ void svm_bar_release(svm_barrier *bar, int b, unsigned gen)
{
	__syncthreads();
	if (threadIdx.x == 0) {
		if (b == 0) {
			__threadfence();
			((volatile svm_barrier *)bar)->released = gen;
		} else {
			while (((volatile svm_barrier *)bar)->released < gen)
				;
			__threadfence();
		}
	}
	__syncthreads();
}

/* The slot of row p, most recently used from now on; *miss when it must be
 * computed (then the least recently used row gives up its slot). */
__device__ __forceinline__ int svm_cache_take(const svm_task &T, int p, int *miss)
{
	svm_cache *c = T.c;
	int s = T.row_slot[p];
	*miss = s < 0;
	if (s < 0) {
		s = c->tail;
		if (T.slot_row[s] >= 0)
			T.row_slot[T.slot_row[s]] = -1;
		T.slot_row[s] = p;
		T.row_slot[p] = s;
	}
	if (s != c->head) {   /* unlink s, push it in front */
		int a = T.prev[s], b = T.next[s];
		T.next[a] = b;
		if (b >= 0)
			T.prev[b] = a;
		else
			c->tail = a;
		T.prev[s] = -1;
		T.next[s] = c->head;
		T.prev[c->head] = s;
		c->head = s;
	}
	return s;
}

/* Own points: Q row of p into a cache row, from the Gram matrix when the
 * task has one, else from the points (x_p in shared memory). */
__device__ __forceinline__ void svm_row_own(float *xp, const svm_task &T, int b, int p, float *row)
{
	if (T.gram) {
		const double *dots = T.gram + (size_t)T.gidx[p] * T.gram_n;
		SVM_OWN_POINTS(t, T, b)
			row[t] = svm_q_dot(dots[T.gidx[t]], p, t, T.sq, T.y, &T.kp);
		__syncthreads();
		return;
	}
	if (SVM_SPARSE) {
		svm_row_csr_part(xp, T.xptr, T.xcol, T.xval, T.sq, T.y, T.n, p, b * SVM_THREADS,
				 T.nblocks * SVM_THREADS, &T.kp, row);
		return;
	}
	svm_load_point(xp, T.xt, p, T.npad);
	__syncthreads();
	SVM_OWN_POINTS(t, T, b)
		row[t] = svm_q(xp, p, t, T.xt, T.sq, T.y, T.npad, &T.kp);
	__syncthreads();
}

/* Phase A: the last step's G update (when rows are given) and the block's
 * best i candidate. Two own points a trip, all their loads issued before
 * either is used, I_up a select rather than a branch around the loads. */
__device__ __forceinline__ void svm_phase_a(const svm_task &T, int b, const float *row_i,
					    const float *row_j, double dai, double daj)
{
	double best = SVM_NEG_HUGE;
	int bi = -1;
	const int stride = T.nblocks * SVM_THREADS;
	int t = b * SVM_THREADS + threadIdx.x;
	for (; t + stride < T.n; t += 2 * stride) {
		const int u = t + stride;
		double g0 = T.G[t], g1 = T.G[u];
		const double a0 = __ldcg(T.alpha + t), a1 = __ldcg(T.alpha + u);
		const int y0 = T.y[t], y1 = T.y[u];
		if (row_i) {
			const float ri0 = row_i[t], ri1 = row_i[u], rj0 = row_j[t], rj1 = row_j[u];
			g0 += (double)ri0 * dai + (double)rj0 * daj;
			g1 += (double)ri1 * dai + (double)rj1 * daj;
			T.G[t] = g0;
			T.G[u] = g1;
		}
		svm_take_i(g0, a0, y0, t, T.Cp, T.Cn, &best, &bi);
		svm_take_i(g1, a1, y1, u, T.Cp, T.Cn, &best, &bi);
	}
	for (; t < T.n; t += stride) {
		double g = T.G[t];
		if (row_i) {
			g += (double)row_i[t] * dai + (double)row_j[t] * daj;
			T.G[t] = g;
		}
		svm_take_i(g, __ldcg(T.alpha + t), T.y[t], t, T.Cp, T.Cn, &best, &bi);
	}
	svm_write_part_i(best, bi, T.pv, T.pi, T.pg, b);
}

/* svm_gpu_bandwidth only: the persistent solver's phase A for one task
 * over the launch's blocks (the task's nblocks must equal them), with the
 * G update when rows are given (dai = daj = 0: G rewritten unchanged). */
#if SVM_BENCH   /* svm_phase_a_bench */
extern "C" __global__ void __launch_bounds__(SVM_THREADS)
svm_phase_a_bench(svm_task T, const float *row_i, const float *row_j)
{
	svm_phase_a(T, blockIdx.x, row_i, row_j, 0.0, 0.0);
}
#endif

/* Phase B: the block's best j for i (and its largest y G over I_low). */
__device__ __forceinline__ void svm_phase_b(const svm_task &T, int b, int i, double gmax,
					    const float *row_i)
{
	double best = SVM_NEG_HUGE, g2 = SVM_NEG_HUGE;
	int bi = -1;
	const double QDi = T.QD[i];
	const int yi = T.y[i];
	SVM_OWN_POINTS(t, T, b) {
		int yt = T.y[t];
		if (!svm_in_low(yt, __ldcg(T.alpha + t), T.Cp, T.Cn))
			continue;
		double yg = yt > 0 ? T.G[t] : -T.G[t], v;
		g2 = yg > g2 ? yg : g2;
		if (SVM_WSS == 1) {
			v = yg;
		} else {
			double grad_diff = gmax + yg;
			if (!(grad_diff > 0))
				continue;
			v = svm_wss2_gain(grad_diff, QDi, T.QD[t], yi, yt, (double)row_i[t]);
		}
		if (v > best || (v == best && t > bi)) {
			best = v;
			bi = t;
		}
	}
	svm_write_part(best, bi, g2, T.pv, T.pi, T.pg, b);
}

/* ---- the nu-form (Chang & Lin 2011, 4.1.3): the pair within one sign ----
 * Phase A takes two i candidates, i+ (largest -G over I_up among y = +1,
 * parts 0 .. nblocks - 1) and i- (largest G over I_up among y = -1, parts
 * nblocks ..); block 0 keeps both rows in the cache; phase B's j is the
 * best second-order gain against the i of its own sign, with each sign's
 * largest y G over I_low (g2 parts 0 .. and nblocks ..); the stop is the
 * larger of the two signs' violations below eps. The CPU's select_nu. */
__device__ __forceinline__ void svm_phase_a_nu(const svm_task &T, int b, const float *row_i,
					       const float *row_j, double dai, double daj)
{
	double best[2] = { SVM_NEG_HUGE, SVM_NEG_HUGE };
	int bi[2] = { -1, -1 };
	SVM_OWN_POINTS(t, T, b) {
		double g = T.G[t];
		if (row_i) {
			g += (double)row_i[t] * dai + (double)row_j[t] * daj;
			T.G[t] = g;
		}
		const int yt = T.y[t], s = yt > 0 ? 0 : 1;
		svm_take_i(g, __ldcg(T.alpha + t), yt, t, T.Cp, T.Cn, &best[s], &bi[s]);
	}
	svm_write_part_i(best[0], bi[0], T.pv, T.pi, T.pg, b);
	__syncthreads();
	svm_write_part_i(best[1], bi[1], T.pv, T.pi, T.pg, b + T.nblocks);
}

__device__ __forceinline__ void svm_phase_b_nu(const svm_task &T, int b, int ip, int in,
					       double gp, double gn, const float *row_p,
					       const float *row_n)
{
	double best = SVM_NEG_HUGE, g2[2] = { SVM_NEG_HUGE, SVM_NEG_HUGE };
	int bi = -1, dummy = 0;
	SVM_OWN_POINTS(t, T, b) {
		const int yt = T.y[t], s = yt > 0 ? 0 : 1;
		if (!svm_in_low(yt, __ldcg(T.alpha + t), T.Cp, T.Cn))
			continue;
		const double yg = yt > 0 ? T.G[t] : -T.G[t], diff = (s ? gn : gp) + yg;
		g2[s] = yg > g2[s] ? yg : g2[s];
		if (!(diff > 0))
			continue;
		const int a = s ? in : ip;
		const double v = svm_wss2_gain(diff, T.QD[a], T.QD[t], T.y[a], yt,
					       (double)(s ? row_n : row_p)[t]);
		if (v > best || (v == best && t > bi)) {
			best = v;
			bi = t;
		}
	}
	svm_block_best(&best, &bi);
	svm_block_best(&g2[0], &dummy);
	svm_block_best(&g2[1], &dummy);
	if (threadIdx.x == 0) {
		T.pv[b] = best;
		T.pi[b] = bi;
		T.pg[b] = g2[0];
		T.pg[b + T.nblocks] = g2[1];
	}
}

/* Block 0 after the first barrier (nu-form): i+ and i-, their slots. */
__device__ __forceinline__ void svm_serial_i_nu(const svm_task &T)
{
	double gp, gn, g2;
	int ip, in;
	svm_reduce_parts(T.pv, T.pi, T.pg, T.nblocks, &gp, &ip, &g2);
	svm_reduce_parts(T.pv + T.nblocks, T.pi + T.nblocks, T.pg + T.nblocks, T.nblocks, &gn, &in,
			 &g2);
	if (threadIdx.x != 0)
		return;
	T.st->i = ip;
	T.st->in = in;
	T.st->gmax = gp;
	T.st->gmaxn = gn;
	if (ip < 0 && in < 0) {
		T.st->done = 1;
		return;
	}
	T.c->miss_i = T.c->miss_n = 0;
	if (ip >= 0)
		T.c->slot_i = svm_cache_take(T, ip, &T.c->miss_i);
	if (in >= 0)
		T.c->slot_n = svm_cache_take(T, in, &T.c->miss_n);
}

/* The pair's update from i (row in slot si) and j; block 0's thread 0. */
__device__ __forceinline__ void svm_step_pair(const svm_task &T, int i, int j, int si)
{
	svm_state *st = T.st;
	double ai = __ldcg(T.alpha + i), aj = __ldcg(T.alpha + j), oi = ai, oj = aj;
	const float *row_i = T.rows + (size_t)si * T.npad;
	const signed char *y = T.y;
	svm_update_pair(&ai, &aj, y[i], y[j], y[i] > 0 ? T.Cp : T.Cn, y[j] > 0 ? T.Cp : T.Cn,
			__ldcg(T.G + i), __ldcg(T.G + j), T.QD[i], T.QD[j],
			(double)__ldcg(row_i + j));
	__stcg(T.alpha + i, ai);
	__stcg(T.alpha + j, aj);
	st->dai = ai - oi;
	st->daj = aj - oj;
	st->iterations++;
}

/* Block 0 after the second barrier (nu-form): j, the stop, i of j's sign
 * (its slot becomes slot_i), j's slot and the update. */
__device__ __forceinline__ void svm_serial_j_nu(const svm_task &T)
{
	double best, gp2, gn2;
	int bj;
	svm_reduce_parts(T.pv, T.pi, T.pg, T.nblocks, &best, &bj, &gp2);
	svm_reduce_parts(T.pv, T.pi, T.pg + T.nblocks, T.nblocks, &best, &bj, &gn2);
	if (threadIdx.x != 0)
		return;
	svm_state *st = T.st;
	const double vp = st->gmax + gp2, vn = st->gmaxn + gn2;
	st->j = bj;
	st->gmax2 = vp > vn ? gp2 : gn2;
	if ((vp > vn ? vp : vn) < T.eps || bj < 0) {
		st->done = 1;
		return;
	}
	if (T.y[bj] < 0) {
		st->i = st->in;
		T.c->slot_i = T.c->slot_n;
	}
	T.c->slot_j = svm_cache_take(T, bj, &T.c->miss_j);
	svm_step_pair(T, st->i, bj, T.c->slot_i);
}

/* Block 0 after the first barrier: i, gmax and i's slot. */
__device__ __forceinline__ void svm_serial_i(const svm_task &T)
{
	double best, g2;
	int bi;
	svm_reduce_parts(T.pv, T.pi, T.pg, T.nblocks, &best, &bi, &g2);
	if (threadIdx.x != 0)
		return;
	T.st->i = bi;
	T.st->gmax = best;
	if (bi < 0) {
		T.st->done = 1;
		return;
	}
	T.c->slot_i = svm_cache_take(T, bi, &T.c->miss_i);
}

/* Block 0 after the second barrier: j, the stopping test, j's slot and the
 * pair's update. */
__device__ __forceinline__ void svm_serial_j(const svm_task &T)
{
	double best, g2;
	int bj;
	svm_reduce_parts(T.pv, T.pi, T.pg, T.nblocks, &best, &bj, &g2);
	if (threadIdx.x != 0)
		return;
	svm_state *st = T.st;
	st->j = bj;
	st->gmax2 = g2;
	if (st->gmax + g2 < T.eps || bj < 0) {
		st->done = 1;
		return;
	}
	T.c->slot_j = svm_cache_take(T, bj, &T.c->miss_j);
	svm_step_pair(T, st->i, bj, T.c->slot_i);
}

/* Reads the state block 0 wrote (through L2). */
__device__ __forceinline__ void svm_read_state(const svm_task &T, svm_state *s, svm_cache *cc)
{
	const volatile svm_state *vs = T.st;
	const volatile svm_cache *vc = T.c;
	s->i = vs->i;
	s->j = vs->j;
	s->in = vs->in;
	s->done = vs->done;
	s->gmax = vs->gmax;
	s->gmaxn = vs->gmaxn;
	s->dai = vs->dai;
	s->daj = vs->daj;
	cc->slot_i = vc->slot_i;
	cc->slot_j = vc->slot_j;
	cc->miss_i = vc->miss_i;
	cc->miss_j = vc->miss_j;
	cc->slot_n = vc->slot_n;
	cc->miss_n = vc->miss_n;
}

/* Team barrier, block 0's serial part (step 0: i, 1: j), then everyone
 * reads the state; returns whether the problem is done. */
__device__ __forceinline__ int svm_team_sync(const svm_task &T, int b, unsigned gen, int step,
					     svm_state *s, svm_cache *cc)
{
	svm_bar_gather(T.bar, b, T.nblocks, gen);
	if (b == 0) {
		if (step == 0)
			T.nu ? svm_serial_i_nu(T) : svm_serial_i(T);
		else
			T.nu ? svm_serial_j_nu(T) : svm_serial_j(T);
	}
	svm_bar_release(T.bar, b, gen);
	if (threadIdx.x == 0)
		svm_read_state(T, s, cc);
	__syncthreads();
	return s->done;
}

#if SVM_PERSISTENT
/* svm_persistent's iterations for a nu-form task: A (two i candidates), the
 * rows of i+ and i- on misses, B, then row j and A again with the rows of
 * the i block 0 chose and j. */
__device__ __noinline__ void svm_persistent_nu(float *xp, const svm_task &T, int b, int iters,
					      svm_state *s, svm_cache *cc)
{
	unsigned gen = 0;
	svm_phase_a_nu(T, b, NULL, NULL, 0, 0);
	for (int k = 0; k < iters; k++) {
		if (svm_team_sync(T, b, ++gen, 0, s, cc))
			return;
		const float *row_p = T.rows + (size_t)cc->slot_i * T.npad;
		const float *row_n = T.rows + (size_t)cc->slot_n * T.npad;
		if (s->i >= 0 && cc->miss_i)
			svm_row_own(xp, T, b, s->i, (float *)row_p);
		if (s->in >= 0 && cc->miss_n)
			svm_row_own(xp, T, b, s->in, (float *)row_n);
		svm_phase_b_nu(T, b, s->i, s->in, s->gmax, s->gmaxn, row_p, row_n);
		if (svm_team_sync(T, b, ++gen, 1, s, cc))
			return;
		const float *row_i = T.rows + (size_t)cc->slot_i * T.npad;
		float *row_j = T.rows + (size_t)cc->slot_j * T.npad;
		if (cc->miss_j)
			svm_row_own(xp, T, b, s->j, row_j);
		if (k + 1 < iters) {
			svm_phase_a_nu(T, b, row_i, row_j, s->dai, s->daj);
		} else {
			SVM_OWN_POINTS(t, T, b)
				T.G[t] += (double)row_i[t] * s->dai + (double)row_j[t] * s->daj;
		}
	}
}
#endif

#if SVM_PERSISTENT   /* svm_persistent */
extern "C" __global__ void __launch_bounds__(SVM_THREADS, 1)
svm_persistent(const svm_task *tasks, const int *block_task, int iters)
{
	__shared__ float xp[SVM_POINT_FLOATS];
	__shared__ svm_state s;
	__shared__ svm_cache cc;
	__shared__ svm_task T;
	unsigned gen = 0;
	if (threadIdx.x == 0)
		T = tasks[block_task[blockIdx.x]];
	__syncthreads();
	const int b = blockIdx.x - T.first_block;
	if (((volatile svm_state *)T.st)->done)
		return;
	if (T.nu) {
		svm_persistent_nu(xp, T, b, iters, &s, &cc);
		return;
	}
	svm_phase_a(T, b, NULL, NULL, 0, 0);
	for (int k = 0; k < iters; k++) {
		if (svm_team_sync(T, b, ++gen, 0, &s, &cc))
			return;
		float *row_i = T.rows + (size_t)cc.slot_i * T.npad;
		if (cc.miss_i)
			svm_row_own(xp, T, b, s.i, row_i);
		svm_phase_b(T, b, s.i, s.gmax, row_i);
		if (svm_team_sync(T, b, ++gen, 1, &s, &cc))
			return;
		float *row_j = T.rows + (size_t)cc.slot_j * T.npad;
		if (cc.miss_j)
			svm_row_own(xp, T, b, s.j, row_j);
		if (k + 1 < iters) {
			svm_phase_a(T, b, row_i, row_j, s.dai, s.daj);
		} else {   /* the launch's last step: update G only */
			SVM_OWN_POINTS(t, T, b)
				T.G[t] += (double)row_i[t] * s.dai + (double)row_j[t] * s.daj;
		}
	}
}
#endif

/* The bandwidth bound the kernels are measured against: a plain copy. */
#if SVM_BENCH   /* svm_copy */
extern "C" __global__ void svm_copy(const float4 *src, float4 *dst, long long n4)
{
	for (long long k = blockIdx.x * (long long)blockDim.x + threadIdx.x; k < n4;
	     k += (long long)gridDim.x * blockDim.x)
		dst[k] = src[k];
}
#endif
