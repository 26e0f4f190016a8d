/* mbp.cu: multiple back-propagation training on the GPU, specialised by the
 * generator (runtime/mbp/mbp_gpu.c) with the MBP_* #defines below (the
 * defaults let this file compile on its own). Every value follows
 * templates/mbp/mbp_core.h operation for operation (compiled with
 * --fmad=false), so the GPU trains the same weights as the CPU path.
 *
 * mbp_fused: one block per network, persistent over epochs: the block runs
 * epochs until epoch_end (or the target RMS) in one launch, so a small
 * network pays one launch per report interval instead of several launches
 * per epoch (the seed's per-layer kernels were launch-bound). A chunk of
 * MBP_CHUNK patterns goes through the seed's roles as phases separated by
 * __syncthreads: fire h1 (and the space network), fire h2, fire the output
 * layer with the output local gradients, local gradients of h2, of h1 and of
 * the space neurons; then each thread adds the chunk's gradient sums of the
 * weights it owns (weight k belongs to thread k % MBP_THREADS) and, at the end
 * of a correction batch, corrects them with their step sizes; robustness and
 * the RMS run at the end of the epoch. The weights live in shared memory; each
 * owner's step sizes, momentum memories, previous gradients, best weights and
 * gradient sums live in registers for the whole launch. The patterns stay in
 * global memory (all networks of a launch share them); with a few networks
 * (MBP_STAGE_X) each chunk's inputs are copied to shared memory first. */
#include "mbp_core.h"
#include "philox.h"

/* The kernels the module holds: 0 both forms, 1 mbp_fused, 2 the split pair
 * (the generator asks for the run's: a shorter compile). */
#ifndef MBP_KERNELS
#define MBP_KERNELS 0
#endif
#ifndef MBP_NI
#define MBP_NI 2
#define MBP_H1 4
#define MBP_H2 0
#define MBP_NO 1
#define MBP_SPACE 1
#define MBP_ACT_HIDDEN 0
#define MBP_ACT_OUTPUT 0
#define MBP_ACT_SPACE 0
#define MBP_MODE 0             /* 0 batch, 1 mini-batch, 2 online */
#define MBP_CHUNK 128
#define MBP_THREADS 128
#endif
#ifndef MBP_NET_BASE
#define MBP_NET_BASE 0         /* global index of block 0's network (MPI ranks: the rank's first) */
#endif
#ifndef MBP_STAGE_X
#define MBP_STAGE_X 0          /* 1: a chunk's inputs are copied to shared memory */
#endif

#define MBP_NLAST (MBP_H2 > 0 ? MBP_H2 : MBP_H1)
#define MBP_OFF_W2 (MBP_H1 * (MBP_NI + 1))
#define MBP_OFF_WO (MBP_OFF_W2 + (MBP_H2 > 0 ? MBP_H2 * (MBP_H1 + 1) : 0))
#define MBP_OFF_WS (MBP_OFF_WO + MBP_NO * (MBP_NLAST + 1))
#define MBP_NW (MBP_OFF_WS + (MBP_SPACE ? MBP_H1 * (MBP_NI + 1) : 0))
#define MBP_WPT ((MBP_NW + MBP_THREADS - 1) / MBP_THREADS)
#define MBP_H2X (MBP_H2 > 0 ? MBP_H2 : 1)

/* Shared memory, in floats: weights, then per-chunk values. */
#define MBP_S_W 0
#define MBP_S_F1 (MBP_S_W + MBP_NW)
#define MBP_S_M1 (MBP_S_F1 + MBP_CHUNK * MBP_H1)
#define MBP_S_Y1 (MBP_S_M1 + MBP_CHUNK * MBP_H1)
#define MBP_S_D1 (MBP_S_Y1 + MBP_CHUNK * MBP_H1)
#define MBP_S_DS (MBP_S_D1 + MBP_CHUNK * MBP_H1)
#define MBP_S_Y2 (MBP_S_DS + MBP_CHUNK * MBP_H1)
#define MBP_S_D2 (MBP_S_Y2 + MBP_CHUNK * MBP_H2X)
#define MBP_S_DO (MBP_S_D2 + MBP_CHUNK * MBP_H2X)
#define MBP_S_SQ (MBP_S_DO + MBP_CHUNK * MBP_NO)
#define MBP_S_PAT (MBP_S_SQ + MBP_CHUNK * MBP_NO)
#define MBP_S_X (MBP_S_PAT + MBP_CHUNK)
#define MBP_S_FLOATS (MBP_S_X + (MBP_STAGE_X ? MBP_CHUNK * MBP_NI : 0))

/* A network's scalar state between launches. */
typedef struct mbp_gpu_state {
	float best, last_rms;
	int epoch, done, restores, pad;
} mbp_gpu_state;

__device__ __forceinline__ mbp_shape mbp_the_shape(void)
{
	mbp_shape s;
	s.ni = MBP_NI; s.h1 = MBP_H1; s.h2 = MBP_H2; s.no = MBP_NO; s.space = MBP_SPACE;
	s.act_hidden = MBP_ACT_HIDDEN; s.act_output = MBP_ACT_OUTPUT; s.act_space = MBP_ACT_SPACE;
	s.off_w1 = 0; s.off_w2 = MBP_OFF_W2; s.off_wo = MBP_OFF_WO; s.off_ws = MBP_OFF_WS;
	s.nweights = MBP_NW; s.nlast = MBP_NLAST;
	return s;
}

/* The inputs of the chunk's pattern p: staged in shared memory, or in X. */
__device__ __forceinline__ const float *mbp_input_row(const float *sm, const int *pat, int p,
						      const float *__restrict__ X)
{
#if MBP_STAGE_X
	(void)pat;
	(void)X;
	return sm + MBP_S_X + p * MBP_NI;
#else
	return X + (size_t)pat[p] * MBP_NI;
#endif
}

/* Copies the chunk's inputs to shared memory (MBP_STAGE_X; pat is ready). */
__device__ __forceinline__ void mbp_stage_inputs(float *sm, const int *pat, int nc,
						 const float *__restrict__ X)
{
#if MBP_STAGE_X
	for (int q = threadIdx.x; q < nc * MBP_NI; q += MBP_THREADS) {
		int p = q / MBP_NI;
		sm[MBP_S_X + q] = X[(size_t)pat[p] * MBP_NI + (q - p * MBP_NI)];
	}
	__syncthreads();
#else
	(void)sm; (void)pat; (void)nc; (void)X;
#endif
}

/* The forward and backward phases of one chunk of nc patterns. */
__device__ __forceinline__ void mbp_chunk_phases(float *sm, const int *pat, int nc,
						 const float *__restrict__ X,
						 const float *__restrict__ T)
{
	const mbp_shape S = mbp_the_shape();
	const float *w = sm + MBP_S_W;
	float *f1 = sm + MBP_S_F1, *m1 = sm + MBP_S_M1, *y1 = sm + MBP_S_Y1;
	float *last = MBP_H2 > 0 ? sm + MBP_S_Y2 : y1;
	float *dout = sm + MBP_S_DO, *sq = sm + MBP_S_SQ;
	for (int q = threadIdx.x; q < nc * MBP_H1; q += MBP_THREADS) {
		int p = q / MBP_H1, j = q - p * MBP_H1;
		mbp_fire_h1(&S, w, mbp_input_row(sm, pat, p, X), j, &f1[q], &m1[q], &y1[q]);
	}
	__syncthreads();
#if MBP_H2 > 0
	for (int q = threadIdx.x; q < nc * MBP_H2; q += MBP_THREADS) {
		int p = q / MBP_H2, k = q - p * MBP_H2;
		last[q] = mbp_fire_h2(&S, w, y1 + p * MBP_H1, k);
	}
	__syncthreads();
#endif
	for (int q = threadIdx.x; q < nc * MBP_NO; q += MBP_THREADS) {
		int p = q / MBP_NO, o = q - p * MBP_NO;
		float y = mbp_fire_output(&S, w, last + p * MBP_NLAST, o), e2;
		dout[q] = mbp_output_delta(MBP_ACT_OUTPUT, y, T[(size_t)pat[p] * MBP_NO + o], &e2);
		sq[q] = e2;
	}
	__syncthreads();
	const float *dnext = dout;
#if MBP_H2 > 0
	float *d2 = sm + MBP_S_D2;
	for (int q = threadIdx.x; q < nc * MBP_H2; q += MBP_THREADS) {
		int p = q / MBP_H2, k = q - p * MBP_H2;
		d2[q] = mbp_delta_h2(&S, w, dout + p * MBP_NO, last[q], k);
	}
	__syncthreads();
	dnext = d2;
#endif
	for (int q = threadIdx.x; q < nc * MBP_H1; q += MBP_THREADS) {
		int p = q / MBP_H1, j = q - p * MBP_H1;
		mbp_delta_h1(&S, w, dnext + p * (MBP_H2 > 0 ? MBP_H2 : MBP_NO), f1[q], m1[q], j,
			     &sm[MBP_S_D1 + q], &sm[MBP_S_DS + q]);
	}
	__syncthreads();
}

/* Where owned weight k gets its delta and input: packed layer (2 bits:
 * 0 main 1, 1 main 2, 2 output, 3 space), neuron j and input i (0 = bias). */
__device__ __forceinline__ int mbp_weight_code(int k)
{
	int layer, rel, nin;
	if (k < MBP_OFF_W2) { layer = 0; rel = k; nin = MBP_NI; }
	else if (k < MBP_OFF_WO) { layer = 1; rel = k - MBP_OFF_W2; nin = MBP_H1; }
	else if (k < MBP_OFF_WS) { layer = 2; rel = k - MBP_OFF_WO; nin = MBP_NLAST; }
	else { layer = 3; rel = k - MBP_OFF_WS; nin = MBP_NI; }
	return layer << 26 | (rel / (nin + 1)) << 13 | rel % (nin + 1);
}

/* One owned weight's gradient sum over the chunk, patterns in order. */
__device__ __noinline__ float mbp_chunk_sum(const float *sm, const int *pat, int nc, int code,
					       const float *__restrict__ X)
{
	int layer = code >> 26, j = (code >> 13) & 8191, i = code & 8191;
	const float *delta;
	int rows;
	float s = 0.0f;
	if (layer == 0) { delta = sm + MBP_S_D1; rows = MBP_H1; }
	else if (layer == 1) { delta = sm + MBP_S_D2; rows = MBP_H2X; }
	else if (layer == 2) { delta = sm + MBP_S_DO; rows = MBP_NO; }
	else { delta = sm + MBP_S_DS; rows = MBP_H1; }
	delta += j;
	/* Unrolled so that the loads of later patterns overlap the add chain
	 * (the sum itself stays in pattern order). */
	if (i == 0) {
#pragma unroll 8
		for (int p = 0; p < nc; p++)
			s = s + delta[p * rows] * 1.0f;
	} else if ((layer == 0 || layer == 3) && MBP_STAGE_X) {
		const float *x = sm + MBP_S_X + (i - 1);
#pragma unroll 8
		for (int p = 0; p < nc; p++)
			s = s + delta[p * rows] * x[p * MBP_NI];
	} else if (layer == 0 || layer == 3) {
		const float *x = X + (i - 1);
#pragma unroll 8
		for (int p = 0; p < nc; p++)
			s = s + delta[p * rows] * x[(size_t)pat[p] * MBP_NI];
	} else {
		int nin = layer == 1 ? MBP_H1 : MBP_NLAST;
		const float *in = (layer == 1 || MBP_H2 == 0 ? sm + MBP_S_Y1 : sm + MBP_S_Y2) + (i - 1);
#pragma unroll 8
		for (int p = 0; p < nc; p++)
			s = s + delta[p * rows] * in[p * nin];
	}
	return s;
}

/* Thread 0: the chunk's squared error sum (patterns, then outputs, in order). */
__device__ __forceinline__ float mbp_chunk_sse(const float *sm, int nc)
{
	const float *sq = sm + MBP_S_SQ;
	float s = 0.0f;
#pragma unroll 8
	for (int p = 0; p < nc; p++) {
		float se = 0.0f;
		for (int o = 0; o < MBP_NO; o++)
			se = se + sq[p * MBP_NO + o];
		s = s + se;
	}
	return s;
}

/* Thread 0 at the end of an epoch with squared error sum sse over n
 * patterns: the RMS, the target and the robustness decision (1 save, -1
 * restore, 0 nothing, 2 stop before the correction: batch mode at the
 * target). Updates *epoch, *done, *best, *last_rms. */
__device__ __forceinline__ int mbp_epoch_decide(const mbp_rule *rule, float target, float sse,
						int n, int *epoch, int *done, float *best,
						float *last_rms)
{
	float rms = sqrtf(sse / (float)(n * MBP_NO));
	int dec = mbp_robust_decision(rule, rms, *best);
	*last_rms = rms;
	*epoch = *epoch + 1;
	if (MBP_MODE == 0 && target > 0.0f && rms <= target) {
		*done = 1;
		return 2;
	}
	if (dec == 1)
		*best = rms;
	if (MBP_MODE != 0 && target > 0.0f && rms <= target)
		*done = 1;
	return dec;
}

/* One weight at the end of an epoch: save or restore it, then (batch mode,
 * unless restored or stopped) correct it with its mean gradient g. */
__device__ __forceinline__ void mbp_epoch_weight(const mbp_rule *rule, int dec, float g, float *w,
						 float *wb, float *eta, float *v, float *gp)
{
	if (dec == 2)
		return;
	if (dec > 0) {
		*wb = *w;
	} else if (dec < 0) {
		*w = *wb;
		*eta = *eta * rule->reduction;
		*v = 0.0f;
		*gp = 0.0f;
		return;
	}
	if (MBP_MODE == 0)
		mbp_correct(rule, g, w, eta, v, gp);
}

/* What a thread keeps in registers for the weights it owns (k = tid + r *
 * MBP_THREADS): step sizes, momentum memories, previous and current
 * gradients, best values and where each weight sits in the network. */
typedef struct mbp_owner {
	float eta[MBP_WPT], v[MBP_WPT], gp[MBP_WPT], wb[MBP_WPT], g[MBP_WPT];
	int code[MBP_WPT];
} mbp_owner;

__device__ __forceinline__ void mbp_owner_load(mbp_owner *o, float *sm, const float *W,
					       const float *ETA, const float *V, const float *GP,
					       const float *WB, size_t base)
{
#pragma unroll
	for (int r = 0; r < MBP_WPT; r++) {
		int k = threadIdx.x + r * MBP_THREADS;
		if (k < MBP_NW) {
			sm[MBP_S_W + k] = W[base + k];
			o->eta[r] = ETA[base + k];
			o->v[r] = V[base + k];
			o->gp[r] = GP[base + k];
			o->wb[r] = WB[base + k];
			o->code[r] = mbp_weight_code(k);
		}
	}
}

__device__ __forceinline__ void mbp_owner_store(const mbp_owner *o, const float *sm, float *W,
						float *ETA, float *V, float *GP, float *WB,
						size_t base)
{
#pragma unroll
	for (int r = 0; r < MBP_WPT; r++) {
		int k = threadIdx.x + r * MBP_THREADS;
		if (k < MBP_NW) {
			W[base + k] = sm[MBP_S_W + k];
			ETA[base + k] = o->eta[r];
			V[base + k] = o->v[r];
			GP[base + k] = o->gp[r];
			WB[base + k] = o->wb[r];
		}
	}
}

/* One epoch's passes over the n training patterns of set: chunks through
 * the phases, gradient sums into o->g, the squared error into *sse (thread
 * 0); in online and mini-batch modes a correction at the end of each batch,
 * the patterns in the order keyed by key. */
__device__ __forceinline__ void mbp_epoch_passes(mbp_owner *o, float *sm, const int *set, int n,
						 int batch, const uint32_t *key,
						 const float *__restrict__ X,
						 const float *__restrict__ T, const mbp_rule *rule,
						 float *sse)
{
	const int tid = threadIdx.x;
	int *pat = (int *)(sm + MBP_S_PAT);
#if MBP_MODE != 0
	const int half = mbp_order_half_bits((uint32_t)n);
#endif
	for (int b0 = 0; b0 < n; b0 += batch) {
		const int nb = n - b0 < batch ? n - b0 : batch;
#pragma unroll
		for (int r = 0; r < MBP_WPT; r++)
			o->g[r] = 0.0f;
		for (int c0 = 0; c0 < nb; c0 += MBP_CHUNK) {
			const int nc = nb - c0 < MBP_CHUNK ? nb - c0 : MBP_CHUNK;
			for (int q = tid; q < nc; q += MBP_THREADS)
#if MBP_MODE != 0
				pat[q] = set[mbp_order_at(key, half, (uint32_t)n, (uint32_t)(b0 + c0 + q))];
#else
				pat[q] = set[b0 + c0 + q];
#endif
			__syncthreads();
			mbp_stage_inputs(sm, pat, nc, X);
			mbp_chunk_phases(sm, pat, nc, X, T);
#pragma unroll
			for (int r = 0; r < MBP_WPT; r++)
				if (tid + r * MBP_THREADS < MBP_NW)
					o->g[r] = o->g[r] + mbp_chunk_sum(sm, pat, nc, o->code[r], X);
			if (tid == 0)
				*sse = *sse + mbp_chunk_sse(sm, nc);
			__syncthreads();
		}
#if MBP_MODE != 0
#pragma unroll
		for (int r = 0; r < MBP_WPT; r++) {
			int k = tid + r * MBP_THREADS;
			if (k < MBP_NW)
				mbp_correct(rule, o->g[r] / (float)nb, &sm[MBP_S_W + k], &o->eta[r], &o->v[r],
					    &o->gp[r]);
		}
		__syncthreads();
#endif
	}
}

#if MBP_KERNELS != 2   /* the fused kernel */
extern "C" __global__ void __launch_bounds__(MBP_THREADS)
mbp_fused(const float *__restrict__ X, const float *__restrict__ T, const int *__restrict__ train,
	  const int *__restrict__ ntrain, int train_stride, int sets, float *W, float *ETA, float *V,
	  float *GP, float *WB, mbp_gpu_state *state, mbp_rule rule, float target, int batch,
	  unsigned long long seed, int epoch_end)
{
	extern __shared__ float sm[];
	__shared__ int s_epoch, s_done, s_dec;
	__shared__ float s_sse, s_best;
	__shared__ uint32_t s_key[4];
	const int net = blockIdx.x, tid = threadIdx.x;
	const long long gnet = MBP_NET_BASE + (long long)net;   /* fold and order streams */
	const int n = ntrain[gnet % sets];
	const size_t base = (size_t)net * MBP_NW;
	mbp_owner o;
	int restores = 0;
	float last_rms = state[net].last_rms;

	mbp_owner_load(&o, sm, W, ETA, V, GP, WB, base);
	if (tid == 0) {
		s_epoch = state[net].epoch;
		s_done = state[net].done;
		s_best = state[net].best;
	}
	__syncthreads();
	while (!s_done && s_epoch < epoch_end) {
		if (tid == 0) {
			philox4x32_ctr c = philox_block(seed, MBP_ORDER_STREAM | (uint64_t)gnet,
							(uint64_t)s_epoch);
			for (int i = 0; i < 4; i++)
				s_key[i] = c.v[i];
			s_sse = 0.0f;
		}
		__syncthreads();
		mbp_epoch_passes(&o, sm, train + (size_t)(gnet % sets) * train_stride, n, batch, s_key,
				 X, T, &rule, &s_sse);
		/* End of the epoch: thread 0 decides, every owner applies it. */
		if (tid == 0)
			s_dec = mbp_epoch_decide(&rule, target, s_sse, n, &s_epoch, &s_done, &s_best,
						 &last_rms);
		__syncthreads();
		const int dec = s_dec;
		restores += dec < 0;
#pragma unroll
		for (int r = 0; r < MBP_WPT; r++) {
			int k = tid + r * MBP_THREADS;
			if (k < MBP_NW)
				mbp_epoch_weight(&rule, dec, o.g[r] / (float)n, &sm[MBP_S_W + k], &o.wb[r],
						 &o.eta[r], &o.v[r], &o.gp[r]);
		}
		__syncthreads();
	}
	mbp_owner_store(&o, sm, W, ETA, V, GP, WB, base);
	if (tid == 0) {
		state[net].epoch = s_epoch;
		state[net].done = s_done;
		state[net].best = s_best;
		state[net].last_rms = last_rms;
		state[net].restores += restores;
	}
}
#endif

#if MBP_KERNELS != 1   /* the split kernels */
/* ---- split: batch mode over many blocks per network ---------------------------
 * For large training sets one block per network leaves the GPU idle. Here an
 * epoch is two launches: mbp_split_grad runs chunk c of network `net` in
 * block (c, net) and writes the chunk's gradient sums and squared error;
 * mbp_split_end (a block per network) adds them in chunk order -- the same
 * sums, in the same order, as mbp_fused -- and ends the epoch. */
extern "C" __global__ void __launch_bounds__(MBP_THREADS)
mbp_split_grad(const float *__restrict__ X, const float *__restrict__ T,
	       const int *__restrict__ train, const int *__restrict__ ntrain, int train_stride,
	       int sets, const float *__restrict__ W, const mbp_gpu_state *state, float *P, float *S,
	       int nchunks, int epoch_end)
{
	extern __shared__ float sm[];
	const int net = blockIdx.y, c = blockIdx.x, tid = threadIdx.x;
	const long long gnet = MBP_NET_BASE + (long long)net;
	const int *set = train + (size_t)(gnet % sets) * train_stride;
	const int n = ntrain[gnet % sets], c0 = c * MBP_CHUNK;
	int *pat = (int *)(sm + MBP_S_PAT);
	if (state[net].done || state[net].epoch >= epoch_end || c0 >= n)
		return;
	const int nc = n - c0 < MBP_CHUNK ? n - c0 : MBP_CHUNK;
	for (int k = tid; k < MBP_NW; k += MBP_THREADS)
		sm[MBP_S_W + k] = W[(size_t)net * MBP_NW + k];
	for (int q = tid; q < nc; q += MBP_THREADS)
		pat[q] = set[c0 + q];
	__syncthreads();
	mbp_stage_inputs(sm, pat, nc, X);
	mbp_chunk_phases(sm, pat, nc, X, T);
	float *out = P + ((size_t)net * nchunks + c) * MBP_NW;
	for (int k = tid; k < MBP_NW; k += MBP_THREADS)
		out[k] = mbp_chunk_sum(sm, pat, nc, mbp_weight_code(k), X);
	if (tid == 0)
		S[(size_t)net * nchunks + c] = mbp_chunk_sse(sm, nc);
}

extern "C" __global__ void __launch_bounds__(MBP_THREADS)
mbp_split_end(const int *__restrict__ ntrain, int sets, float *W, float *ETA, float *V, float *GP,
	      float *WB, mbp_gpu_state *state, const float *P, const float *S, int nchunks,
	      mbp_rule rule, float target, int epoch_end)
{
	__shared__ int s_dec;
	const int net = blockIdx.x, tid = threadIdx.x;
	const int n = ntrain[(MBP_NET_BASE + (long long)net) % sets];
	const int used = (n + MBP_CHUNK - 1) / MBP_CHUNK;
	const size_t base = (size_t)net * MBP_NW;
	mbp_gpu_state *st = &state[net];
	const int skip = st->done || st->epoch >= epoch_end;
	__syncthreads();       /* every thread has read the state before thread 0 writes it */
	if (skip)
		return;
	if (tid == 0) {
		float sse = 0.0f;
		int restores = st->restores;
		for (int c = 0; c < used; c++)
			sse = sse + S[(size_t)net * nchunks + c];
		s_dec = mbp_epoch_decide(&rule, target, sse, n, &st->epoch, &st->done, &st->best,
					 &st->last_rms);
		st->restores = restores + (s_dec < 0);
	}
	__syncthreads();
	const int dec = s_dec;
	for (int k = tid; k < MBP_NW; k += MBP_THREADS) {
		float g = 0.0f;
		const float *p = P + (size_t)net * nchunks * MBP_NW + k;
		for (int c = 0; c < used; c++)
			g = g + p[(size_t)c * MBP_NW];
		mbp_epoch_weight(&rule, dec, g / (float)n, &W[base + k], &WB[base + k], &ETA[base + k],
				 &V[base + k], &GP[base + k]);
	}
}
#endif
