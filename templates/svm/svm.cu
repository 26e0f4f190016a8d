/* svm.cu: SMO for one binary C-SVC problem on the GPU, the same steps as
 * runtime/svm/svm_solver.c (LIBSVM's solver without shrinking), every
 * iteration on the device with no host round trip: the host queues
 * iterations and reads a done flag now and then.
 *
 * Per iteration: svm_pick (two phases: blocks reduce, one block finishes)
 * chooses i = argmax over I_up of -y G; svm_row computes Q row i (the point
 * in shared memory, the data column-major and padded so that threads read
 * consecutive words, the dot product in double in feature order as the CPU
 * does); svm_pick chooses j (second order, LIBSVM's WSS2, or the maximal
 * violator) and sets done when the violation is below eps; svm_step updates
 * the pair (svm_core.h's svm_update_pair, one thread); svm_row computes row
 * j; svm_grad adds both rows into G. */
#include "svm_core.h"

#ifndef SVM_KERNEL
#define SVM_KERNEL 2
#define SVM_FEATURES 8
#define SVM_WSS 0
#endif
#define SVM_THREADS 256
#define SVM_NEG_HUGE (-1.0e300)   /* below every value (NVRTC has no INFINITY) */

typedef struct svm_state {
	int i, j, done, pad;
	long long iterations;
	double gmax, gmax2, dai, daj;
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
					       int *part_i, double *part_g2)
{
	int dummy = 0;
	svm_block_best(&best, &bi);
	svm_block_best(&g2, &dummy);
	if (threadIdx.x == 0) {
		part_v[blockIdx.x] = best;
		part_i[blockIdx.x] = bi;
		part_g2[blockIdx.x] = g2;
	}
}

/* Phase 1 of a pick: each block's best candidate into part[block].
 * which 0: i (value -y G over I_up); which 1: j (value -obj over I_low, or
 * y G for the first-order rule) and the block's max y G over I_low. */
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
	svm_write_part(best, bi, g2, part_v, part_i, part_g2);
}

/* Q_pt = y_p y_t K(x_p, x_t) as float, x_p in shared memory. */
__device__ __forceinline__ float svm_q(const float *xp, int p, int t, const float *xt,
				       const double *sq, const signed char *y, int npad,
				       const svm_kernel_params *kp)
{
	double dot = 0.0, k;
	for (int f = 0; f < SVM_FEATURES; f++)
		dot += (double)xp[f] * (double)xt[(size_t)f * npad + t];
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
	for (int b = threadIdx.x; b < nparts; b += SVM_THREADS) {
		if (part_i[b] >= 0 && (part_v[b] > *best || (part_v[b] == *best && part_i[b] > *bi))) {
			*best = part_v[b];
			*bi = part_i[b];
		}
		*g2 = part_g2[b] > *g2 ? part_g2[b] : *g2;
	}
	svm_block_best(best, bi);
	svm_block_best(g2, &dummy);
}

/* Phase 2: one block reduces the parts and records the pick. */
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

/* Q row of point i (which 0) or j (which 1): y_p y_t K(x_p, x_t), as float. */
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

/* The pair's update (one thread). */
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

/* G += Q_i dai + Q_j daj. */
extern "C" __global__ void __launch_bounds__(SVM_THREADS)
svm_grad(double *G, const float *row_i, const float *row_j, int n, const svm_state *st)
{
	if (st->done)
		return;
	const double dai = st->dai, daj = st->daj;
	for (int t = blockIdx.x * SVM_THREADS + threadIdx.x; t < n; t += gridDim.x * SVM_THREADS)
		G[t] += (double)row_i[t] * dai + (double)row_j[t] * daj;
}

/* ---- fused: four launches per iteration ------------------------------------
 * The kernel rows are not stored: each thread computes the Q values it needs
 * for its own points (the same float as svm_row), so the G update of one
 * iteration joins the pick of i of the next, the pick of j computes Q_it on
 * the fly, and the finishing block of the j pick also makes the step. */

/* G += Q_i dai + Q_j daj for the previous step, then (unless only_update)
 * each block's best i candidate. */
extern "C" __global__ void __launch_bounds__(SVM_THREADS)
svm_fused_grad_pick(const float *xt, const double *sq, const signed char *y, int n, int npad,
		    svm_kernel_params kp, double *G, const double *alpha, double Cp, double Cn,
		    const svm_state *st, double *part_v, int *part_i, double *part_g2,
		    int only_update)
{
	__shared__ float xi[SVM_FEATURES], xj[SVM_FEATURES];
	if (st->done)
		return;
	const int i = st->i, j = st->j;
	const double dai = st->dai, daj = st->daj;
	const int update = dai != 0.0 || daj != 0.0;
	if (update) {
		svm_load_point(xi, xt, i, npad);
		svm_load_point(xj, xt, j, npad);
	}
	__syncthreads();
	double best = SVM_NEG_HUGE;
	int bi = -1;
	for (int t = blockIdx.x * SVM_THREADS + threadIdx.x; t < n; t += gridDim.x * SVM_THREADS) {
		double g = G[t];
		if (update) {
			g += (double)svm_q(xi, i, t, xt, sq, y, npad, &kp) * dai +
			     (double)svm_q(xj, j, t, xt, sq, y, npad, &kp) * daj;
			G[t] = g;
		}
		if (only_update || !svm_in_up(y[t], alpha[t], Cp, Cn))
			continue;
		double v = y[t] > 0 ? -g : g;
		if (v > best || (v == best && t > bi)) {
			best = v;
			bi = t;
		}
	}
	if (only_update)
		return;
	svm_write_part(best, bi, SVM_NEG_HUGE, part_v, part_i, part_g2);
}

/* Each block's best j for the chosen i (Q_it computed here). */
extern "C" __global__ void __launch_bounds__(SVM_THREADS)
svm_fused_pick_j(const float *xt, const double *sq, const signed char *y, int n, int npad,
		 svm_kernel_params kp, const double *G, const double *alpha, const double *QD,
		 double Cp, double Cn, const svm_state *st, double *part_v, int *part_i,
		 double *part_g2)
{
	__shared__ float xi[SVM_FEATURES];
	if (st->done)
		return;
	const int i = st->i;
	svm_load_point(xi, xt, i, npad);
	__syncthreads();
	double best = SVM_NEG_HUGE, g2 = SVM_NEG_HUGE;
	int bi = -1;
	for (int t = blockIdx.x * SVM_THREADS + threadIdx.x; t < n; t += gridDim.x * SVM_THREADS) {
		int yt = y[t];
		double v;
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
			v = svm_wss2_gain(grad_diff, QD[i], QD[t], y[i], yt,
					  (double)svm_q(xi, i, t, xt, sq, y, npad, &kp));
		}
		if (v > best || (v == best && t > bi)) {
			best = v;
			bi = t;
		}
	}
	svm_write_part(best, bi, g2, part_v, part_i, part_g2);
}

/* Finishes the j pick (one block) and, when not done, makes the step. */
extern "C" __global__ void __launch_bounds__(SVM_THREADS)
svm_fused_finish_step(const double *part_v, const int *part_i, const double *part_g2, int nparts,
		      svm_state *st, double eps, const float *xt, const double *sq,
		      const signed char *y, int npad, svm_kernel_params kp, double *alpha,
		      const double *G, const double *QD, double Cp, double Cn)
{
	__shared__ float xi[SVM_FEATURES];
	if (st->done)
		return;
	double best, g2;
	int bi;
	svm_reduce_parts(part_v, part_i, part_g2, nparts, &best, &bi, &g2);
	svm_load_point(xi, xt, st->i, npad);
	__syncthreads();
	if (threadIdx.x != 0)
		return;
	st->j = bi;
	st->gmax2 = g2;
	if (st->gmax + g2 < eps || bi < 0) {
		st->done = 1;
		return;
	}
	const int i = st->i, j = bi;
	double ai = alpha[i], aj = alpha[j], oi = ai, oj = aj;
	double qij = (double)svm_q(xi, i, j, xt, sq, y, npad, &kp);
	svm_update_pair(&ai, &aj, y[i], y[j], y[i] > 0 ? Cp : Cn, y[j] > 0 ? Cp : Cn, G[i], G[j],
			QD[i], QD[j], qij);
	alpha[i] = ai;
	alpha[j] = aj;
	st->dai = ai - oi;
	st->daj = aj - oj;
	st->iterations++;
}
