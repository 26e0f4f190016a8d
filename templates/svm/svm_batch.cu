/* svm_batch.cu: the device side of the batched working-set solver
 * (runtime/svm/svm_gpu_batch.c, svm_batch.h; [svm] solver = batch). The
 * host picks each working set of q points; per outer iteration three
 * launches:
 *   svm_batch_rows   the Q rows of the set's new points into their row
 *                    slots (the kept half's rows stay where they are), the
 *                    same float bits as svm.cu's rows (svm_q_dot; dense: the
 *                    dot product in double in feature order; sparse: CSR rows
 *                    by svm_row_csr_part), and while at it the entries of the
 *                    q x q block Q(ws_k, ws_l) into QS, indexed by slot;
 *   svm_batch_local  one block (up to SVM_BATCH_LOCAL_THREADS threads, each
 *                    owning a few of the set's points) runs the local SMO of
 *                    svm_batch_local (svm_batch.c) with the same arithmetic
 *                    and tie rules: alpha of the set and the nonzero
 *                    changes, in order, out;
 *   svm_batch_grad   G[t] += sum over the set's changes (in order) of
 *                    d_k * row_k[t], from 0 as the CPU sums.
 * Slots: the set's point k lives in slot (k + off) mod q, off alternating
 * between 0 and q/2 (the kept half, the last set's ws[q/2..q), moves to
 * ws[0..q/2) without moving its rows). QS[s * q + s'] = Q between the points
 * of slots s and s': a row's value at a set point, and (Q being symmetric
 * bit for bit: the same products in the same order, |x|^2 sums commuted)
 * the kept rows' values at the new points. */
#ifndef SVM_MODULE
#define SVM_MODULE 3   /* svm.cu's device functions only, none of its kernels */
#endif
#include "svm.cu"

/* Dense rows: new rows per block (their dot products side by side) and
 * features staged per trip (one per thread). */
#ifndef SVM_BATCH_ROWS
#define SVM_BATCH_ROWS 16
#endif
#define SVM_BATCH_FCHUNK SVM_THREADS
/* The largest working set (svm_batch.h's SVM_BATCH_MAX_Q). */
#define SVM_BATCH_MAXQ 1024
#define SVM_BATCH_GRAD_THREADS 128
/* The local SMO's threads at most (svm_gpu_batch.c launches min(this, q
 * rounded up to 32)): a power of two, 128 to 1024; each thread owns up to
 * SVM_BATCH_LOCAL_R of the set's points. */
#ifndef SVM_BATCH_LOCAL_THREADS
#define SVM_BATCH_LOCAL_THREADS 512
#endif
#define SVM_BATCH_LOCAL_R (SVM_BATCH_MAXQ / SVM_BATCH_LOCAL_THREADS)
#define SVM_BATCH_LOCAL_WARPS (SVM_BATCH_LOCAL_THREADS / 32)

/* The slot of the set's point k. */
__device__ __forceinline__ int svm_batch_slot(int k, int q, int off)
{
	const int s = k + off;
	return s >= q ? s - q : s;
}

/* lslot[t - t0] = the slot of point t when t (in [t0, t0 + SVM_THREADS))
 * is in the set, else -1. */
__device__ __forceinline__ void svm_batch_lslots(int *lslot, const int *ws, int q, int off, int t0)
{
	lslot[threadIdx.x] = -1;
	__syncthreads();
	for (int l = threadIdx.x; l < q; l += SVM_THREADS) {
		const int d = ws[l] - t0;
		if (d >= 0 && d < SVM_THREADS)
			lslot[d] = svm_batch_slot(l, q, off);
	}
	__syncthreads();
}

/* Q(p_r, t) = v of new row k: into its slot's row and, for t in the set
 * (slot ls), both entries of QS. */
__device__ __forceinline__ void svm_batch_put(float *rows, float *QS, int npad, int q, int s,
					      int ls, int t, float v)
{
	rows[(size_t)s * npad + t] = v;
	if (ls >= 0) {
		QS[(size_t)s * q + ls] = v;
		QS[(size_t)ls * q + s] = v;
	}
}

#if !SVM_SPARSE
/* Dense: features [f0, f0 + fe) of the block's pivots (xr: row-major) into
 * xs, zeros beyond nr pivots; fl the features (ascending) where any pivot
 * is not zero, their count returned. Every thread of the block calls it. */
__device__ __forceinline__ int svm_batch_stage(float (*xs)[SVM_BATCH_FCHUNK], int *fl, int *wc,
					       const float *xr, const int *pts, int nr, int f0, int fe)
{
	const int e = threadIdx.x, lane = e % 32, warp = e / 32;
	int any = 0, base = 0, total = 0;
	for (int r = 0; r < SVM_BATCH_ROWS; r++) {
		const float v = r < nr && e < fe ? xr[(size_t)pts[r] * SVM_FEATURES + f0 + e] : 0.0f;
		xs[r][e] = v;
		any |= v != 0.0f;
	}
	const unsigned b = __ballot_sync(0xffffffffu, any);
	if (lane == 0)
		wc[warp] = __popc(b);
	__syncthreads();
	for (int w = 0; w < SVM_THREADS / 32; w++) {
		base += w < warp ? wc[w] : 0;
		total += wc[w];
	}
	if (any)
		fl[base + __popc(b & ((1u << lane) - 1u))] = e;
	__syncthreads();
	return total;
}

/* Q rows of the set's points ws[first..q) (blockIdx.y: SVM_BATCH_ROWS of
 * them) at the points of block x. dot += (double)x_p[f] * (double)x_t[f]
 * in feature order as svm_q; a product whose pivot value is 0 is left out
 * (adding +-0 to a sum that starts at +0 changes nothing: the bits of
 * svm_q's sum, as sparse rows have them). */
extern "C" __global__ void __launch_bounds__(SVM_THREADS)
svm_batch_rows(const float *xt, const float *xr, const double *sq, const signed char *y, int n,
	       int npad, svm_kernel_params kp, const int *ws, int q, int first, int off,
	       float *rows, float *QS)
{
	__shared__ float xs[SVM_BATCH_ROWS][SVM_BATCH_FCHUNK];
	__shared__ int fl[SVM_BATCH_FCHUNK], wc[SVM_THREADS / 32], lslot[SVM_THREADS];
	__shared__ int pts[SVM_BATCH_ROWS];
	const int t0 = blockIdx.x * SVM_THREADS, t = t0 + threadIdx.x;
	const int k0 = first + blockIdx.y * SVM_BATCH_ROWS;
	const int nr = q - k0 < SVM_BATCH_ROWS ? q - k0 : SVM_BATCH_ROWS;
	double acc[SVM_BATCH_ROWS];
#pragma unroll
	for (int r = 0; r < SVM_BATCH_ROWS; r++)
		acc[r] = 0.0;
	if (threadIdx.x < SVM_BATCH_ROWS)
		pts[threadIdx.x] = threadIdx.x < nr ? ws[k0 + threadIdx.x] : 0;
	svm_batch_lslots(lslot, ws, q, off, t0);
	for (int f0 = 0; f0 < SVM_FEATURES; f0 += SVM_BATCH_FCHUNK) {
		const int fe = SVM_FEATURES - f0 < SVM_BATCH_FCHUNK ? SVM_FEATURES - f0 : SVM_BATCH_FCHUNK;
		const int nf = svm_batch_stage(xs, fl, wc, xr, pts, nr, f0, fe);
		for (int m = 0; t < n && m < nf; m++) {
			const int f = fl[m];
			const double xv = (double)xt[(size_t)(f0 + f) * npad + t];
#pragma unroll
			for (int r = 0; r < SVM_BATCH_ROWS; r++) {
				const float xp = xs[r][f];
				if (xp != 0.0f)
					acc[r] += (double)xp * xv;
			}
		}
		__syncthreads();   /* before the next chunk is staged */
	}
	if (t >= n)
		return;
	const int ls = lslot[threadIdx.x];
#pragma unroll
	for (int r = 0; r < SVM_BATCH_ROWS; r++)
		if (r < nr)
			svm_batch_put(rows, QS, npad, q, svm_batch_slot(k0 + r, q, off), ls, t,
				      svm_q_dot(acc[r], pts[r], t, sq, y, &kp));
}
#else
/* Sparse: the Q row of the set's point ws[first + blockIdx.y] at the
 * points of block x, by svm.cu's CSR merge. */
extern "C" __global__ void __launch_bounds__(SVM_THREADS)
svm_batch_rows(const long long *ptr, const int *col, const float *val, const double *sq,
	       const signed char *y, int n, int npad, svm_kernel_params kp, const int *ws, int q,
	       int first, int off, float *rows, float *QS)
{
	__shared__ float xp[2 * SVM_PIVOT_CHUNK];
	__shared__ int lslot[SVM_THREADS];
	const int t0 = blockIdx.x * SVM_THREADS, t = t0 + threadIdx.x, k = first + blockIdx.y;
	const int s = svm_batch_slot(k, q, off);
	float *row = rows + (size_t)s * npad;
	svm_batch_lslots(lslot, ws, q, off, t0);
	svm_row_csr_part(xp, ptr, col, val, sq, y, n, ws[k], t0, gridDim.x * SVM_THREADS, &kp, row);
	const int ls = t < n ? lslot[threadIdx.x] : -1;
	if (ls >= 0) {   /* the value this thread just wrote */
		QS[(size_t)s * q + ls] = row[t];
		QS[(size_t)ls * q + s] = row[t];
	}
}
#endif

/* ---- the local SMO: one block, each thread a few of the set's points -------
 * SVM_BATCH_LOCAL_THREADS threads at most (fewer when q is smaller: q rounded
 * up to 32); thread x owns the points k = x + r * blockDim.x (r <
 * SVM_BATCH_LOCAL_R; strided, so that the threads of a warp read adjacent
 * entries of a Q row) and keeps their alpha, g, bound, QD and label in
 * registers. A pick reduces the thread's own points, then its warp (shuffles
 * down), then, after one barrier, the warps' bests (shuffles across
 * SVM_BATCH_LOCAL_WARPS lanes). Fewer threads: less of the work every warp
 * repeats (the cross-warp step, the pair's update, the loop's control) and
 * cheaper barriers; the per-point work is the same. */

/* Does (ov, oi) beat (*v, *i)? A candidate has an index >= 0; the larger
 * value wins, on ties the larger index (the CPU's upward `>=` scan). A
 * total order: any order of comparisons gives the same pick. */
__device__ __forceinline__ int svm_batch_beats(double ov, int oi, double v, int i)
{
	return oi >= 0 && (i < 0 || ov > v || (ov == v && oi > i));
}

__device__ __forceinline__ void svm_batch_take(double *v, int *i, double ov, int oi)
{
	if (svm_batch_beats(ov, oi, *v, *i)) {
		*v = ov;
		*i = oi;
	}
}

/* The same with a payload x that travels with the candidate. */
__device__ __forceinline__ void svm_batch_take_x(double *v, int *i, float *x, double ov, int oi,
						 float ox)
{
	if (svm_batch_beats(ov, oi, *v, *i)) {
		*v = ov;
		*i = oi;
		*x = ox;
	}
}

#define SVM_BATCH_FULL 0xffffffffu

/* The warp's best (v, i) into lane 0. */
__device__ __forceinline__ void svm_batch_warp_best(double *v, int *i)
{
	for (int o = 16; o > 0; o >>= 1)
		svm_batch_take(v, i, __shfl_down_sync(SVM_BATCH_FULL, *v, o),
			       __shfl_down_sync(SVM_BATCH_FULL, *i, o));
}

__device__ __forceinline__ void svm_batch_warp_best_x(double *v, int *i, float *x)
{
	for (int o = 16; o > 0; o >>= 1)
		svm_batch_take_x(v, i, x, __shfl_down_sync(SVM_BATCH_FULL, *v, o),
				 __shfl_down_sync(SVM_BATCH_FULL, *i, o),
				 __shfl_down_sync(SVM_BATCH_FULL, *x, o));
}

/* After the barrier: the block's best of the warps' bests wv, wi, in every
 * lane (each group of SVM_BATCH_LOCAL_WARPS lanes holds all of them). */
__device__ __forceinline__ void svm_batch_warps_best(double *v, int *i, const double *wv,
						     const int *wi)
{
	const int w = threadIdx.x % SVM_BATCH_LOCAL_WARPS, nw = blockDim.x / 32;
	*v = w < nw ? wv[w] : 0.0;
	*i = w < nw ? wi[w] : -1;
	for (int o = SVM_BATCH_LOCAL_WARPS / 2; o > 0; o >>= 1)
		svm_batch_take(v, i, __shfl_xor_sync(SVM_BATCH_FULL, *v, o),
			       __shfl_xor_sync(SVM_BATCH_FULL, *i, o));
}

__device__ __forceinline__ void svm_batch_warps_best_x(double *v, int *i, float *x,
						       const double *wv, const int *wi,
						       const float *wx)
{
	const int w = threadIdx.x % SVM_BATCH_LOCAL_WARPS, nw = blockDim.x / 32;
	*v = w < nw ? wv[w] : 0.0;
	*i = w < nw ? wi[w] : -1;
	*x = w < nw ? wx[w] : 0.0f;
	for (int o = SVM_BATCH_LOCAL_WARPS / 2; o > 0; o >>= 1)
		svm_batch_take_x(v, i, x, __shfl_xor_sync(SVM_BATCH_FULL, *v, o),
				 __shfl_xor_sync(SVM_BATCH_FULL, *i, o),
				 __shfl_xor_sync(SVM_BATCH_FULL, *x, o));
}

/* Q between the set's point r (its row's start rb: r * q in shared memory,
 * slot(r) * q in QS) and the point of column c (k in shared memory, slot(k)
 * in QS). */
__device__ __forceinline__ float svm_batch_q(const float *sQ, const float *QS, int use_smem, int rb,
					     int c)
{
	return use_smem ? sQ[rb + c] : __ldg(QS + rb + c);
}

/* The round's changes d that are not 0 (on), appended in the order of k
 * (the points k = threadIdx.x + r blockDim.x of one round r): nzd their
 * values, nzs their rows' slots; *at the count so far, in every thread. */
__device__ __forceinline__ void svm_batch_changes(double d, int on, int k, int q, int off,
						  double *nzd, int *nzs, int *at, int *wc)
{
	const int lane = threadIdx.x % 32, warp = threadIdx.x / 32, nw = blockDim.x / 32;
	const unsigned b = __ballot_sync(SVM_BATCH_FULL, on);
	int base = *at, total = 0;
	__syncthreads();   /* wc: the last round's readers */
	if (lane == 0)
		wc[warp] = __popc(b);
	__syncthreads();
	for (int w = 0; w < nw; w++) {
		base += w < warp ? wc[w] : 0;
		total += wc[w];
	}
	if (on) {
		const int e = base + __popc(b & ((1u << lane) - 1u));
		nzd[e] = d;
		nzs[e] = svm_batch_slot(k, q, off);
	}
	*at += total;
}

/* One thread's points: their values in registers (arrays of constant bound,
 * every loop over them unrolled); m of them are the set's (k < q). */
typedef struct svm_batch_pts {
	double a[SVM_BATCH_LOCAL_R], g[SVM_BATCH_LOCAL_R], C[SVM_BATCH_LOCAL_R];
	double QD[SVM_BATCH_LOCAL_R];
	int y[SVM_BATCH_LOCAL_R], col[SVM_BATCH_LOCAL_R];   /* col: k, or its slot */
	int m;
} svm_batch_pts;

/* The thread's points from the set (and into the shared copies). */
__device__ __forceinline__ void svm_batch_load(svm_batch_pts *P, const double *G,
					       const signed char *y, const double *QD,
					       const double *a_in, const int *ws, int q, int off,
					       double Cp, double Cn, int use_smem, double *sa,
					       double *sg, double *sQD, signed char *sy)
{
	const int x = threadIdx.x, nt = blockDim.x;
	P->m = q > x ? (q - x + nt - 1) / nt : 0;
#pragma unroll
	for (int r = 0; r < SVM_BATCH_LOCAL_R; r++) {
		const int k = x + r * nt;
		P->a[r] = P->g[r] = P->C[r] = P->QD[r] = 0.0;
		P->y[r] = 1;
		P->col[r] = 0;
		if (r < P->m) {
			const int p = ws[k];
			P->a[r] = a_in[k];
			P->g[r] = G[p];
			P->y[r] = y[p];
			P->C[r] = P->y[r] > 0 ? Cp : Cn;
			P->QD[r] = QD[p];
			P->col[r] = use_smem ? k : svm_batch_slot(k, q, off);
			sa[k] = P->a[r];
			sg[k] = P->g[r];
			sQD[k] = P->QD[r];
			sy[k] = (signed char)P->y[r];
		}
	}
}

/* The thread's best i candidate: the largest -y g over I_up. */
__device__ __forceinline__ void svm_batch_own_i(const svm_batch_pts *P, double *vi, int *ci)
{
	*vi = 0.0;
	*ci = -1;
#pragma unroll
	for (int r = 0; r < SVM_BATCH_LOCAL_R; r++) {
		const double a = P->a[r], g = P->g[r];
		if (r < P->m && (P->y[r] > 0 ? !(a >= P->C[r]) : !(a <= 0))) {
			const double v = P->y[r] > 0 ? -g : g;
			if (v == v)   /* NaN: never taken (>= is false) */
				svm_batch_take(vi, ci, v, threadIdx.x + r * blockDim.x);
		}
	}
}

/* The thread's best j candidate (second order: the largest gain for i, its
 * Q(i, j) in *xj; first order: the largest y g) and largest y g, over
 * I_low. qi: Q(i, k) of the thread's points (second order). */
__device__ __forceinline__ void svm_batch_own_j(const svm_batch_pts *P, const float *qi,
						double gmax, double QDi, int yi, double *vj,
						int *cj, float *xj, double *v2, int *c2)
{
	*vj = *v2 = 0.0;
	*cj = *c2 = -1;
	*xj = 0.0f;
#pragma unroll
	for (int r = 0; r < SVM_BATCH_LOCAL_R; r++) {
		const int k = threadIdx.x + r * blockDim.x, yk = P->y[r];
		const double a = P->a[r];
		if (r < P->m && (yk > 0 ? !(a <= 0) : !(a >= P->C[r]))) {
			const double v = yk > 0 ? P->g[r] : -P->g[r];
			if (v == v)
				svm_batch_take(v2, c2, v, k);
			if (SVM_WSS != 1) {
				const double grad_diff = gmax + v;
				if (grad_diff > 0) {
					const double obj = -svm_wss2_gain(grad_diff, QDi, P->QD[r], yi,
									  yk, (double)qi[r]);
					if (obj == obj)
						svm_batch_take_x(vj, cj, xj, -obj, k, qi[r]);
				}
			}
		}
	}
	if (SVM_WSS == 1) {
		*vj = *v2;
		*cj = *c2;
	}
}

/* Q(r, k) of the thread's points k, row r's start rb. */
__device__ __forceinline__ void svm_batch_qrow(float *qr, const svm_batch_pts *P, const float *sQ,
					       const float *QS, int use_smem, int rb)
{
#pragma unroll
	for (int r = 0; r < SVM_BATCH_LOCAL_R; r++)
		qr[r] = r < P->m ? svm_batch_q(sQ, QS, use_smem, rb, P->col[r]) : 0.0f;
}

/* The pair's update (every thread, from the step's values: the shared
 * copy sa, sg of this step) and g of the thread's points; their new a and
 * g into the other copy (na, ng). */
__device__ __forceinline__ void svm_batch_step(svm_batch_pts *P, const float *qi, const float *qj,
					       int i, int j, float qij, const double *sa,
					       const double *sg, const double *sQD,
					       const signed char *sy, double Cp, double Cn,
					       double *na, double *ng)
{
	const int yi = sy[i], yj = sy[j];
	double ai = sa[i], aj = sa[j];
	const double old_i = ai, old_j = aj;
	svm_update_pair(&ai, &aj, yi, yj, yi > 0 ? Cp : Cn, yj > 0 ? Cp : Cn, sg[i], sg[j], sQD[i],
			sQD[j], (double)qij);
	const double dai = ai - old_i, daj = aj - old_j;
#pragma unroll
	for (int r = 0; r < SVM_BATCH_LOCAL_R; r++) {
		const int k = threadIdx.x + r * blockDim.x;
		if (r < P->m) {
			P->a[r] = k == i ? ai : k == j ? aj : P->a[r];
			P->g[r] += qi[r] * dai + qj[r] * daj;
			na[k] = P->a[r];
			ng[k] = P->g[r];
		}
	}
}

/* The local SMO (svm_batch.c's svm_batch_local step for step, at most
 * max_steps): a_in and ws the set's alpha and points, G the gradient. Out:
 * out[0..q) the new alpha, out[q] the steps, out[q + 1] the first step's
 * violation; the changes for svm_batch_grad. Dynamic shared memory: alpha
 * and g twice (the step's values are read from one copy while the other is
 * written), QD, then with use_smem the q x q block in set order, then y.
 * Second order: two barriers a step (the i pick; j with gmax2, Q(i, j)
 * travelling with j), each pick with its own shared words, so that one's
 * writes never meet the other's reads. First order (j does not depend on
 * i): both picks in one reduction, one barrier a step, its shared words
 * alternating between steps. Q(i, k) is read once a step (j's gain and the
 * g update), Q(j, k) as soon as j is known. blockDim.x: min(q rounded up
 * to 32, SVM_BATCH_LOCAL_THREADS). */
extern "C" __global__ void __launch_bounds__(SVM_BATCH_LOCAL_THREADS)
svm_batch_local(const double *G, const signed char *y, const double *QD, const float *QS,
		const double *a_in, const int *ws, int q, int off, double Cp, double Cn, double eps,
		long long max_steps, int use_smem, double *out, double *nzd, int *nzs, int *nz)
{
	extern __shared__ double sm[];
	/* the warps' bests: i (and first order j) by parity, second order j
	 * with Q(i, j), gmax2's */
	__shared__ double wv[2][SVM_BATCH_LOCAL_WARPS], wvj[2][SVM_BATCH_LOCAL_WARPS];
	__shared__ double wv2[SVM_BATCH_LOCAL_WARPS];
	__shared__ int wi[2][SVM_BATCH_LOCAL_WARPS], wij[2][SVM_BATCH_LOCAL_WARPS];
	__shared__ int wi2[SVM_BATCH_LOCAL_WARPS], wc[SVM_BATCH_LOCAL_WARPS];
	__shared__ float wx[SVM_BATCH_LOCAL_WARPS];
	double *sa = sm, *sg = sm + 2 * q, *sQD = sm + 4 * q;
	float *sQ = (float *)(sm + 5 * q);
	signed char *sy = (signed char *)(sQ + (use_smem ? q * q : 0));
	const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
	const double neg_inf = __longlong_as_double(0xfff0000000000000ULL);
	svm_batch_pts P;
	float qi[SVM_BATCH_LOCAL_R], qj[SVM_BATCH_LOCAL_R];
	double diff0 = 0.0;
	int b = 0;
#pragma unroll
	for (int r = 0; r < SVM_BATCH_LOCAL_R; r++)
		qi[r] = qj[r] = 0.0f;
	svm_batch_load(&P, G, y, QD, a_in, ws, q, off, Cp, Cn, use_smem, sa, sg, sQD, sy);
	for (int e = threadIdx.x; use_smem && e < q * q; e += blockDim.x)
		sQ[e] = QS[(size_t)svm_batch_slot(e / q, q, off) * q + svm_batch_slot(e % q, q, off)];
	__syncthreads();
	long long steps = 0;
	for (;;) {
		double vi, vj, v2;
		int ci, cj, c2;
		float qij = 0.0f;
		svm_batch_own_i(&P, &vi, &ci);
		if (SVM_WSS == 1) {   /* i and j together, the words of parity b */
			svm_batch_own_j(&P, qi, 0.0, 0.0, 1, &vj, &cj, &qij, &v2, &c2);
			svm_batch_warp_best(&vi, &ci);
			svm_batch_warp_best(&vj, &cj);
			if (lane == 0) {
				wv[b][warp] = vi;
				wi[b][warp] = ci;
				wvj[b][warp] = vj;
				wij[b][warp] = cj;
			}
			__syncthreads();
			svm_batch_warps_best(&vi, &ci, wv[b], wi[b]);
			svm_batch_warps_best(&vj, &cj, wvj[b], wij[b]);
			v2 = vj;
			c2 = cj;
		} else {
			svm_batch_warp_best(&vi, &ci);
			if (lane == 0) {
				wv[0][warp] = vi;
				wi[0][warp] = ci;
			}
			__syncthreads();
			svm_batch_warps_best(&vi, &ci, wv[0], wi[0]);
		}
		const int i = ci;
		const double gmax = vi;
		if (i < 0)
			break;
		const int rbi = use_smem ? i * q : svm_batch_slot(i, q, off) * q;
		svm_batch_qrow(qi, &P, sQ, QS, use_smem, rbi);
		if (SVM_WSS != 1) {   /* j for i, with its Q(i, j); gmax2 */
			svm_batch_own_j(&P, qi, gmax, sQD[i], sy[i], &vj, &cj, &qij, &v2, &c2);
			svm_batch_warp_best_x(&vj, &cj, &qij);
			svm_batch_warp_best(&v2, &c2);
			if (lane == 0) {
				wvj[0][warp] = vj;
				wij[0][warp] = cj;
				wx[warp] = qij;
				wv2[warp] = v2;
				wi2[warp] = c2;
			}
			__syncthreads();
			svm_batch_warps_best_x(&vj, &cj, &qij, wvj[0], wij[0], wx);
			svm_batch_warps_best(&v2, &c2, wv2, wi2);
		}
		const double gmax2 = c2 >= 0 ? v2 : neg_inf, diff = gmax + gmax2;
		if (steps == 0)
			diff0 = diff;
		if (cj < 0 || diff < fmax(eps, 0.1 * diff0) || steps >= max_steps)
			break;
		const int j = cj;
		const int rbj = use_smem ? j * q : svm_batch_slot(j, q, off) * q;
		svm_batch_qrow(qj, &P, sQ, QS, use_smem, rbj);
		if (SVM_WSS == 1)
			qij = svm_batch_q(sQ, QS, use_smem, rbi,
					  use_smem ? j : svm_batch_slot(j, q, off));
		svm_batch_step(&P, qi, qj, i, j, qij, sa + b * q, sg + b * q, sQD, sy, Cp, Cn,
			       sa + (1 - b) * q, sg + (1 - b) * q);
		b = 1 - b;
		steps++;
	}
	int at = 0;
#pragma unroll
	for (int r = 0; r < SVM_BATCH_LOCAL_R; r++) {
		const int k = threadIdx.x + r * blockDim.x;
		double d = 0.0;
		if (r < P.m) {
			out[k] = P.a[r];
			d = P.a[r] - a_in[k];
		}
		svm_batch_changes(d, r < P.m && d != 0, k, q, off, nzd, nzs, &at, wc);
	}
	if (threadIdx.x == 0) {
		out[q] = (double)steps;
		out[q + 1] = diff0;
		*nz = at;
	}
}

/* G[t] += sum over the changes m (in order) of nzd[m] * row[t] of slot
 * nzs[m], the sum from 0 (svm_batch.c's grad_body). */
extern "C" __global__ void __launch_bounds__(SVM_BATCH_GRAD_THREADS)
svm_batch_grad(double *G, const float *rows, int n, int npad, const double *nzd, const int *nzs,
	       const int *nz)
{
	__shared__ double sd[SVM_BATCH_MAXQ];
	__shared__ int ss[SVM_BATCH_MAXQ];
	const int m = *nz;
	if (m == 0)
		return;   /* no step: G as it is (adding 0.0 would turn -0.0 into +0.0) */
	for (int e = threadIdx.x; e < m; e += SVM_BATCH_GRAD_THREADS) {
		sd[e] = nzd[e];
		ss[e] = nzs[e];
	}
	__syncthreads();
	for (int t = blockIdx.x * SVM_BATCH_GRAD_THREADS + threadIdx.x; t < n;
	     t += gridDim.x * SVM_BATCH_GRAD_THREADS) {
		double acc = 0.0;
#pragma unroll 8
		for (int e = 0; e < m; e++)
			acc += sd[e] * (double)rows[(size_t)ss[e] * npad + t];
		G[t] += acc;
	}
}

/* ---- the working set's candidates: each list's head, on the device ------- */

#define SVM_PICK_THREADS 1024

/* Point i's key in list L (0: I_up by -y G, 1: I_low by y G) as a 64-bit
 * word whose ascending order is the candidates' order (key descending; a
 * zero key made +0, so that -0 and +0 tie as the host's == has them);
 * 0: not in the list. */
__device__ __forceinline__ int svm_pick_key(int L, double a, int yi, double C, double g,
					    unsigned long long *word)
{
	const int in = L == 0 ? (yi > 0 ? a < C : a > 0) : (yi > 0 ? a > 0 : a < C);
	double key = (L == 0) == (yi > 0) ? -g : g;
	if (key == 0.0)
		key = 0.0;
	const unsigned long long sign = 0x8000000000000000ULL;
	const unsigned long long bits = (unsigned long long)__double_as_longlong(key);
	const unsigned long long asc = (bits & sign) ? ~bits : bits | sign;
	*word = ~asc;
	return in;
}

__device__ __forceinline__ double svm_pick_unkey(unsigned long long word)
{
	const unsigned long long sign = 0x8000000000000000ULL, asc = ~word;
	return __longlong_as_double((long long)((asc & sign) ? asc & ~sign : ~asc));
}

/* The m-th smallest word of the list (radix select, 8 bits a pass):
 * *below gets how many are smaller, the return value the word itself. */
__device__ unsigned long long svm_pick_threshold(int L, const double *alpha, const double *G,
						 const signed char *y, int n, double Cp, double Cn,
						 int m, int *hist, int *below)
{
	__shared__ unsigned long long prefix_s;
	__shared__ int left_s;
	unsigned long long prefix = 0, mask = 0;
	if (threadIdx.x == 0) {
		prefix_s = 0;
		left_s = m;
	}
	for (int shift = 56; shift >= 0; shift -= 8) {
		for (int d = threadIdx.x; d < 256; d += blockDim.x)
			hist[d] = 0;
		__syncthreads();
		prefix = prefix_s;
		for (int i = threadIdx.x; i < n; i += blockDim.x) {
			unsigned long long w;
			const int yi = y[i];
			if (svm_pick_key(L, alpha[i], yi, yi > 0 ? Cp : Cn, G[i], &w) && (w & mask) == prefix)
				atomicAdd(&hist[(int)((w >> shift) & 255)], 1);
		}
		__syncthreads();
		if (threadIdx.x == 0) {
			int left = left_s, d = 0;
			while (hist[d] < left) {
				left -= hist[d];
				d++;
			}
			left_s = left;
			prefix_s = prefix | ((unsigned long long)d << shift);
		}
		mask |= 255ULL << shift;
		__syncthreads();
	}
	*below = m - left_s;
	return prefix_s;
}

/* Bitonic sort of w[0..P), idx alongside, ascending by (w, idx); P a power of two. */
__device__ void svm_pick_sort(unsigned long long *w, int *idx, int P)
{
	for (int k = 2; k <= P; k <<= 1)
		for (int j = k >> 1; j > 0; j >>= 1) {
			for (int i = threadIdx.x; i < P; i += blockDim.x) {
				const int l = i ^ j;
				if (l > i) {
					const int up = (i & k) == 0;
					const int gt = w[i] > w[l] || (w[i] == w[l] && idx[i] > idx[l]);
					if (gt == up) {
						const unsigned long long tw = w[i];
						const int ti = idx[i];
						w[i] = w[l];
						idx[i] = idx[l];
						w[l] = tw;
						idx[l] = ti;
					}
				}
			}
			__syncthreads();
		}
}

/* Block L (0: I_up, 1: I_low) writes its list's best min(m, count)
 * candidates in order: keys to out[L * m ...] (double), points to
 * (int *)(out + 2m) [L * m ...], the count to that int area's [2m + L].
 * First the last set's new alpha (newa[0..q_prev) for points ws[..]) go into
 * alpha (both blocks write the same values). Dynamic shared memory: P words
 * and P ints, P the power of two >= m. */
extern "C" __global__ void __launch_bounds__(SVM_PICK_THREADS)
svm_batch_pick(double *alpha, const double *G, const signed char *y, int n, double Cp, double Cn,
	       const double *newa, const int *ws, int q_prev, int m, int P, double *out)
{
	extern __shared__ unsigned long long pw[];
	int *pidx = (int *)(pw + P);
	__shared__ int hist[256], count_s, eq_s, taken_s;
	const int L = blockIdx.x;
	int *iout = (int *)(out + 2 * m);
	for (int k = threadIdx.x; k < q_prev; k += blockDim.x)
		alpha[ws[k]] = newa[k];
	if (threadIdx.x == 0)
		count_s = eq_s = taken_s = 0;
	__syncthreads();
	int valid = 0;
	for (int i = threadIdx.x; i < n; i += blockDim.x) {
		unsigned long long w;
		const int yi = y[i];
		valid += svm_pick_key(L, alpha[i], yi, yi > 0 ? Cp : Cn, G[i], &w);
	}
	atomicAdd(&count_s, valid);
	__syncthreads();
	const int count = count_s, all = count <= m;
	int below = 0;
	const unsigned long long T = all ? ~0ULL : svm_pick_threshold(L, alpha, G, y, n, Cp, Cn, m, hist, &below);
	const int need_eq = all ? 0 : m - below;
	/* the candidates: all below T, then those at T by ascending point */
	for (int i0 = 0; i0 < n; i0 += blockDim.x) {
		const int i = i0 + threadIdx.x;
		unsigned long long w = ~0ULL;
		int in = 0;
		if (i < n) {
			const int yi = y[i];
			in = svm_pick_key(L, alpha[i], yi, yi > 0 ? Cp : Cn, G[i], &w);
		}
		if (in && (all || w < T)) {
			const int at = atomicAdd(&taken_s, 1);
			pw[at] = w;
			pidx[at] = i;
		}
		const int eq = in && !all && w == T;
		if (__syncthreads_or(eq)) {   /* rare: ties at T, taken in point order */
			if (eq) {
				int rank = 0;
				for (int t = i0; t < i; t++) {   /* the equal ones before i in this chunk */
					unsigned long long v;
					const int yt = y[t];
					rank += svm_pick_key(L, alpha[t], yt, yt > 0 ? Cp : Cn, G[t], &v) && v == T;
				}
				if (eq_s + rank < need_eq) {
					const int at = atomicAdd(&taken_s, 1);
					pw[at] = w;
					pidx[at] = i;
				}
			}
			const int c = __syncthreads_count(eq);   /* every thread has read eq_s */
			if (threadIdx.x == 0)
				eq_s += c;
			__syncthreads();
		}
	}
	__syncthreads();
	const int total = taken_s;
	for (int r = total + threadIdx.x; r < P; r += blockDim.x) {
		pw[r] = ~0ULL;
		pidx[r] = 0x7fffffff;
	}
	__syncthreads();
	svm_pick_sort(pw, pidx, P);
	for (int r = threadIdx.x; r < total; r += blockDim.x) {
		out[L * m + r] = svm_pick_unkey(pw[r]);
		iout[L * m + r] = pidx[r];
	}
	if (threadIdx.x == 0)
		iout[2 * m + L] = total;
}

/* Dense points: the row-major copy xr [n][nf] transposed into xt [nf][np]
 * (column-major, the rows np - n of padding 0), 32 x 32 tiles. Block 32 x 8. */
extern "C" __global__ void svm_batch_transpose(const float *xr, float *xt, int n, int np, int nf)
{
	__shared__ float tile[32][33];
	const int t0 = blockIdx.x * 32, f0 = blockIdx.y * 32;
	for (int r = threadIdx.y; r < 32; r += blockDim.y) {
		const int t = t0 + r, f = f0 + threadIdx.x;
		tile[r][threadIdx.x] = t < n && f < nf ? xr[(size_t)t * nf + f] : 0.0f;
	}
	__syncthreads();
	for (int r = threadIdx.y; r < 32; r += blockDim.y) {
		const int f = f0 + r, t = t0 + threadIdx.x;
		if (f < nf && t < np)
			xt[(size_t)f * np + t] = tile[threadIdx.x][r];
	}
}
