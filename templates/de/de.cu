/* de.cu: differential evolution on the GPU, specialised by the generator
 * (runtime/de/de_gpu.c) with the DE_* #defines below; the defaults let this file
 * compile on its own. Two variants share templates/de/de_core.h:
 *
 * de_fused (after Farkov & Legalov 2014): one block per problem (the host
 * launches a block per problem, or a persistent grid whose blocks walk over
 * the problems), the population as structure-of-arrays
 * (x_i component j at X[j * DE_NP + i]: a warp touches consecutive words) in
 * shared memory when it fits (DE_POP_SHARED) and else in global memory,
 * per-thread Philox draws, crossover and selection by selects, and a whole
 * run of generations in one launch. Each generation is one pass in which
 * thread t builds, evaluates and selects individuals t, t + DE_BLOCK, ...:
 * trials go into the second buffer Y (ping-pong), which is only ever written
 * at the thread's own column, and the old population X is only read; so one
 * __syncthreads per generation suffices (inside the best-of-block reduction,
 * whose scratch alternates between two slots).
 *
 * The adaptive strategies (DE_ADAPTIVE: JADE, SHADE, L-SHADE, jSO of
 * templates/de/de_adapt.h) run in de_fused only: each generation is
 * de_adapt_gen below, the per-individual steps by all threads, the
 * bookkeeping (archive slots, memory update, population reduction plan) by
 * thread 0 in the header's order, with the per-problem state, archive and
 * scratch in shared memory where they fit beside the population (copied in
 * and out of global memory around each problem's run; DE_AD_SHARED,
 * DE_ARCH_SHARED), else in global memory. So do SaDE and CoDE
 * (templates/de/de_mixed.h: de_sade_gen, de_code_gen).
 *
 * de_naive_*: the baseline, one kernel per stage with host control (init,
 * evaluate, best, mutate, crossover, evaluate, select), population, mutants
 * and trials in global memory. Same draws, same results.
 *
 * de_mb_gen (variant multiblock, for large dimensions): a block per
 * (problem, individual), one launch per generation; see its section.
 *
 * de_cb_trials, de_cb_select (function = callback: the caller's objective
 * on the host): a block per problem, two launches per generation around
 * the host's evaluation; see their section. */
#include "de_mixed.h"

/* The kernels this module holds: 0 all, 1 the fused kernel, 2 the naive
 * baseline's, 3 the multi-block kernel, 4 the objective callback's (the
 * generator asks for the run's variant alone: a third of the compile). */
#ifndef DE_KERNELS
#define DE_KERNELS 0
#endif
#ifndef DE_DIM
#define DE_DIM 30
#endif
#ifndef DE_NP
#define DE_NP 300
#endif
#ifndef DE_FUNCTION
#define DE_FUNCTION DE_FN_SPHERE
#endif
#ifndef DE_STRATEGY
#define DE_STRATEGY DE_RAND_1_BIN
#endif
#ifndef DE_BOUNDS
#define DE_BOUNDS DE_BOUNDS_REFLECT
#endif
#ifndef DE_F
#define DE_F 5.000000000e-01f
#endif
#ifndef DE_CR16
#define DE_CR16 58983u
#endif
#ifndef DE_LOWER
#define DE_LOWER -1.000000000e+02f
#endif
#ifndef DE_UPPER
#define DE_UPPER 1.000000000e+02f
#endif
#ifndef DE_ZOFF
#define DE_ZOFF 0.0f
#endif
#ifndef DE_SHIFT
#define DE_SHIFT 0
#endif
#ifndef DE_ROTATE
#define DE_ROTATE 0
#endif
#ifndef DE_USER
#define DE_USER 0
#endif
#ifndef DE_CEC   /* CEC 2017 function DE_CEC_FN, its data in the `rot` buffer (de_cec2017.h) */
#define DE_CEC 0
#endif
#ifndef DE_CEC_FN
#define DE_CEC_FN 1
#endif
#ifndef DE_BLOCK
#define DE_BLOCK 320
#endif
#ifndef DE_PROBLEM_BASE   /* a process's first problem when they are spread over MPI ranks */
#define DE_PROBLEM_BASE 0u
#endif
#ifndef DE_POP_SHARED
#define DE_POP_SHARED 1
#endif
#ifndef DE_NAIVE_BLOCK
#define DE_NAIVE_BLOCK 256
#endif
/* Resident blocks per SM promised to ptxas (__launch_bounds__): the generator
 * counts what shared memory allows, keeping at least 64 registers a thread. */
#ifndef DE_MIN_BLOCKS
#define DE_MIN_BLOCKS 1
#endif
#ifndef DE_NAIVE_MIN_BLOCKS
#define DE_NAIVE_MIN_BLOCKS 4
#endif
#ifndef DE_MB_BLOCK   /* threads of a block of the multi-block kernel */
#define DE_MB_BLOCK 128
#endif
#ifndef DE_MB_MIN_BLOCKS
#define DE_MB_MIN_BLOCKS 8
#endif

/* Adaptive strategies (de_adapt.h); 0: rand/1 or best/1. */
#ifndef DE_ADAPTIVE
#define DE_ADAPTIVE 0
#endif
/* Their per-problem state and scratch (DE_AD_SHARED) and archive
 * (DE_ARCH_SHARED) in shared memory while a problem runs, after the
 * population when it is there; the generator sets them where they fit. */
#ifndef DE_AD_SHARED
#define DE_AD_SHARED 0
#endif
#ifndef DE_ARCH_SHARED
#define DE_ARCH_SHARED 0
#endif
#if DE_ARCH_SHARED && !DE_AD_SHARED
#error "DE_ARCH_SHARED needs DE_AD_SHARED"
#endif
#ifndef DE_H
#define DE_H 6
#endif
#ifndef DE_NP_MIN
#define DE_NP_MIN 4
#endif
#ifndef DE_ACAP
#define DE_ACAP 780
#endif
#ifndef DE_PBEST
#define DE_PBEST 0.11
#endif
#ifndef DE_ARC_RATE
#define DE_ARC_RATE 2.6
#endif
#ifndef DE_MF0
#define DE_MF0 0.5
#endif
#ifndef DE_MCR0
#define DE_MCR0 0.5
#endif
#ifndef DE_MAX_EVALS
#define DE_MAX_EVALS 300000.0
#endif

#if DE_BLOCK % 32 != 0 || DE_BLOCK > 1024
#error "DE_BLOCK must be a multiple of 32, at most 1024"
#endif
#if DE_NP < 4
#error "DE_NP must be at least 4"
#endif

/* SaDE's and CoDE's numbers in enum de_strategy, for the preprocessor. */
#define DE_PP_SADE 6
#define DE_PP_CODE 7
static_assert(DE_PP_SADE == DE_SADE && DE_PP_CODE == DE_CODE, "enum de_strategy changed");

#define DE_WARPS (DE_BLOCK / 32)
#define DE_POP_WORDS ((long long)DE_NP * DE_DIM)

RT_DEV de_params de_kparams(unsigned long long seed)
{
	de_params p;
	p.dim = DE_DIM;
	p.np = DE_NP;
	p.strategy = DE_STRATEGY;
	p.bounds = DE_BOUNDS;
	p.cr16 = DE_CR16;
	p.F = DE_F;
	p.lower = DE_LOWER;
	p.upper = DE_UPPER;
	p.seed = seed;
	p.problem_base = DE_PROBLEM_BASE;
	p.H = DE_H;
	p.np_min = DE_NP_MIN;
	p.a_cap = DE_ACAP;
	p.p_best = DE_PBEST;
	p.arc_rate = DE_ARC_RATE;
	p.mf0 = DE_MF0;
	p.mcr0 = DE_MCR0;
	p.max_evals = DE_MAX_EVALS;
	return p;
}

/* The objective at x (component j at x[j * stride]). */
RT_DEV float de_eval(const float *x, int stride, const float *shift, const float *rot)
{
#if DE_USER
	float v[DE_DIM];
	(void)shift;
	(void)rot;
	for (int j = 0; j < DE_DIM; j++)
		v[j] = x[j * stride];
	return de_sane(de_user_objective(v, DE_DIM));
#elif DE_CEC
	(void)shift;
	return de_sane(de_cec2017_eval(DE_CEC_FN, x, stride, DE_DIM, rot));
#else
	return de_sane(de_function_eval(DE_FUNCTION, x, stride, DE_DIM, shift, rot, DE_ZOFF));
#endif
}

/* Initial member i of problem p to out[j * so]: de.x0 for i = 0 when
 * given (x0 not NULL), else the draws of de_core.h (de_job.c's
 * de_init_member on the CPU). */
RT_DEV void de_kinit_member(const de_params *P, const float *x0, uint32_t p, uint32_t i, float *out, int so)
{
	if (x0 && i == 0) {
		for (int j = 0; j < DE_DIM; j++)
			out[j * so] = x0[j];
	} else {
		de_init_individual(P, p, i, out, so);
	}
}

RT_DEV void de_keep_min(float *bv, int *bi, float v, int i)
{
	int t = de_before(v, (uint32_t)i, *bv, (uint32_t)*bi);
	*bv = t ? v : *bv;
	*bi = t ? i : *bi;
}

/* Best (value, index) of a block of `warps` warps; every thread gets it. One barrier. */
RT_DEV void de_block_best(float v, int i, float *sv, int *si, float *bv, int *bi, int warps)
{
	for (int off = 16; off > 0; off >>= 1) {
		float ov = __shfl_down_sync(0xffffffffu, v, off);
		int oi = __shfl_down_sync(0xffffffffu, i, off);
		de_keep_min(&v, &i, ov, oi);
	}
	if ((threadIdx.x & 31) == 0) {
		sv[threadIdx.x >> 5] = v;
		si[threadIdx.x >> 5] = i;
	}
	__syncthreads();
	float b = sv[0];
	int k = si[0];
	for (int w = 1; w < warps; w++)
		de_keep_min(&b, &k, sv[w], si[w]);
	*bv = b;
	*bi = k;
}

#if DE_ADAPTIVE && DE_STRATEGY == DE_PP_SADE
#define DE_AD_SIZE DE_SA_LEN(DE_H)
#define DE_WORK (3 * DE_NP)
#define DE_IWORK (3 * DE_NP + DE_ACAP)

/* One generation g of SaDE (de_mixed.h) by the block: from (X, fx) to
 * (Y, fy), the state ad and scratch wk of problem p; *bi: x_best's index,
 * then the new best into *bv, *bi (every thread). */
RT_DEV void de_sade_gen(const de_params *P, int p, int g, const float *X, const float *fx, float *Y,
			float *fy, double *ad, double *wk, const float *sh, const float *ro, float *sv, int *si,
			float *bv, int *bi)
{
	const int tid = threadIdx.x;
	const uint32_t best = (uint32_t)*bi;
	double *kind = wk, *cr = wk + DE_NP, *success = wk + 2 * DE_NP;
	float lv = DE_INF;
	int li = 0x7fffffff;
	for (int i = tid; i < DE_NP; i += DE_BLOCK) {
		de_mpick k = de_sade_pick(P, ad, (uint32_t)p, (uint32_t)g, (uint32_t)i);
		float *y = Y + i;
		const float *x = X + i;
		de_mix_trial(P, X, 1, DE_NP, &k, best, y, DE_NP, (uint32_t)p, (uint32_t)g, (uint32_t)i, 0);
		float f = de_eval(y, DE_NP, sh, ro), fo = fx[i];
		int better = f <= fo;
		kind[i] = (double)k.kind;
		cr[i] = k.CR;
		success[i] = better;
		for (int j = 0; j < DE_DIM; j++)
			y[j * DE_NP] = better ? y[j * DE_NP] : x[j * DE_NP];
		fy[i] = better ? f : fo;
		de_keep_min(&lv, &li, fy[i], i);
	}
	__syncthreads();   /* every pick has read the state; the outcomes are written */
	const double recorded = ad[DE_SA_GENS];
	if (tid < DE_MIX_KINDS) {   /* a thread a kind */
		de_sade_record_kind(P, ad, tid, recorded, kind, cr, success);
		de_sade_learn_cr(P, ad, tid, recorded + 1);
	}
	__syncthreads();
	if (tid == 0)
		de_sade_learn_p(P, ad, recorded + 1);
	de_block_best(lv, li, sv, si, bv, bi, DE_WARPS);   /* its barrier publishes the state */
}
#elif DE_ADAPTIVE
#define DE_AD_SIZE DE_AD_LEN(DE_H)
#define DE_WORK (3 * DE_NP)
#define DE_IWORK (3 * DE_NP + DE_ACAP)

/* One generation g of an adaptive strategy by the block, the steps of
 * de_adapt.h: from (X, fx) to (Y, fy) (structure of arrays), the state ad,
 * the archive A ([DE_DIM][DE_ACAP]) and scratch wk, iw of problem p; the
 * new best into *bv, *bi (every thread). */
RT_DEV void de_adapt_gen(const de_params *P, int p, int g, const float *X, const float *fx, float *Y,
			 float *fy, double *ad, float *A, double *wk, int *iw, const float *sh,
			 const float *ro, float *sv, int *si, float *bv, int *bi)
{
	__shared__ int s_na_new;
	const int tid = threadIdx.x;
	const int na = (int)ad[DE_AD_NP];
	double *wF = wk, *wCR = wk + DE_NP, *delta = wk + 2 * DE_NP;
	int *order = iw, *dest = iw + DE_NP, *rank = iw + 2 * DE_NP, *owner = iw + 3 * DE_NP;
	for (int i = tid; i < na; i += DE_BLOCK)
		order[de_adapt_rank(fx, na, i)] = i;
	__syncthreads();
	for (int i = tid; i < DE_NP; i += DE_BLOCK) {
		if (i >= na) {
			fy[i] = DE_INF;
			continue;
		}
		de_apick k = de_adapt_pick(P, ad, order, (uint32_t)p, (uint32_t)g, (uint32_t)i);
		float *y = Y + i;
		const float *x = X + i;
		de_adapt_trial(P, X, 1, DE_NP, A, 1, DE_ACAP, na, &k, y, DE_NP, (uint32_t)p, (uint32_t)g,
			       (uint32_t)i);
		float f = de_eval(y, DE_NP, sh, ro), fo = fx[i];
		wF[i] = k.F;
		wCR[i] = k.CR;
		delta[i] = de_adapt_delta(f, fo);
		int better = f <= fo;
		for (int j = 0; j < DE_DIM; j++)
			y[j * DE_NP] = better ? y[j * DE_NP] : x[j * DE_NP];
		fy[i] = better ? f : fo;
	}
	__syncthreads();
	if (tid == 0) {
		de_adapt_archive_plan(P, ad, delta, dest, owner, (uint32_t)p, (uint32_t)g);
		de_adapt_update_memory(P, ad, wF, wCR, delta);
		s_na_new = de_reduces(P->strategy) ? de_adapt_np_next(P, ad[DE_AD_NFES], na) : na;
	}
	__syncthreads();
	for (int i = tid; i < na; i += DE_BLOCK)
		if (dest[i] >= 0)
			for (int j = 0; j < DE_DIM; j++)
				A[j * DE_ACAP + dest[i]] = X[j * DE_NP + i];
	const int na_new = s_na_new;
	if (na_new < na) {   /* uniform over the block */
		for (int i = tid; i < na; i += DE_BLOCK)
			rank[i] = de_adapt_rank(fy, na, i);
		__syncthreads();
		if (tid == 0)
			de_adapt_shrink_plan(P, ad, rank, fy, na_new);
		__syncthreads();
		for (int j = tid; j < DE_DIM; j += DE_BLOCK)
			de_adapt_move(Y, 1, DE_NP, rank, na, j);
	}
	float lv = DE_INF;
	int li = 0x7fffffff;
	for (int i = tid; i < DE_NP; i += DE_BLOCK)
		de_keep_min(&lv, &li, fy[i], i);
	de_block_best(lv, li, sv, si, bv, bi, DE_WARPS);
}
#endif

#if DE_STRATEGY == DE_PP_CODE
/* One generation g of CoDE (de_mixed.h) by the block: three trials an
 * individual, the best of them selected against it; *bi: x_best's index,
 * then the new best into *bv, *bi (every thread). */
RT_DEV void de_code_gen(const de_params *P, int p, int g, const float *X, const float *fx, float *Y,
			float *fy, const float *sh, const float *ro, float *sv, int *si, float *bv, int *bi)
{
	const uint32_t best = (uint32_t)*bi;
	float lv = DE_INF;
	int li = 0x7fffffff;
	for (int i = threadIdx.x; i < DE_NP; i += DE_BLOCK) {
		float *y = Y + i;
		const float *x = X + i;
		float fb = DE_INF;
		int bt = 0;
		de_mpick k;
		for (int t = 0; t < DE_CODE_TRIALS; t++) {
			k = de_code_pick(P, (uint32_t)p, (uint32_t)g, (uint32_t)i, t);
			de_mix_trial(P, X, 1, DE_NP, &k, best, y, DE_NP, (uint32_t)p, (uint32_t)g, (uint32_t)i, t);
			float f = de_eval(y, DE_NP, sh, ro);
			if (de_code_better(f, fb, t)) {
				fb = f;
				bt = t;
			}
		}
		if (bt != DE_CODE_TRIALS - 1) {   /* y holds the last trial: build the best again */
			k = de_code_pick(P, (uint32_t)p, (uint32_t)g, (uint32_t)i, bt);
			de_mix_trial(P, X, 1, DE_NP, &k, best, y, DE_NP, (uint32_t)p, (uint32_t)g, (uint32_t)i, bt);
		}
		float fo = fx[i];
		int better = fb <= fo;
		for (int j = 0; j < DE_DIM; j++)
			y[j * DE_NP] = better ? y[j * DE_NP] : x[j * DE_NP];
		fy[i] = better ? fb : fo;
		de_keep_min(&lv, &li, fy[i], i);
	}
	de_block_best(lv, li, sv, si, bv, bi, DE_WARPS);
}
#endif

#if DE_ADAPTIVE
/* A problem's adaptive state and archive between their shared-memory
 * copies (ad, A) and global memory (adp, Ap): into the copies, or back
 * with to_global; nothing for what lives in global memory. By every
 * thread; the caller synchronises. */
RT_DEV void de_state_copy(double *ad, double *adp, float *A, float *Ap, int to_global)
{
#if DE_AD_SHARED
	for (int k = threadIdx.x; k < DE_AD_SIZE; k += DE_BLOCK) {
		if (to_global)
			adp[k] = ad[k];
		else
			ad[k] = adp[k];
	}
#endif
#if DE_ARCH_SHARED
	for (int k = threadIdx.x; k < DE_DIM * DE_ACAP; k += DE_BLOCK) {
		if (to_global)
			Ap[k] = A[k];
		else
			A[k] = Ap[k];
	}
#endif
	(void)ad;
	(void)adp;
	(void)A;
	(void)Ap;
	(void)to_global;
}
#endif

RT_DEV int de_reached(float best, float target, float fstar)
{
	return target > 0.0f && fabsf(best - fstar) <= target;
}

/* Problem p's best after generation gen (one thread): its state (best,
 * index, generations, reached) and, on the history's generations, the
 * history. */
RT_DEV void de_publish_best(de_state *state, float *hist, int p, float bv, int bi, int gen,
			    float target, float fstar, int hist_every, int hist_len)
{
	de_state st;
	st.best = bv;
	st.best_index = bi;
	st.gens = gen;
	st.done = de_reached(bv, target, fstar);
	state[p] = st;
	if (hist && hist_every > 0 && gen % hist_every == 0 && gen / hist_every < hist_len)
		hist[(long long)p * hist_len + gen / hist_every] = bv;
}

#if DE_KERNELS == 0 || DE_KERNELS == 1   /* the fused kernel */
/* Runs problems [pbegin, pend) up to generation gen_end each (or until their
 * target). State lives in global memory between launches:
 *   popg  shared variant: [problem][DE_DIM][DE_NP]; global: two such buffers
 *         per problem, the current one being gens & 1
 *   fitg  [problem][DE_NP] (global variant: [problem][2][DE_NP])
 *   state, bestx [problem][DE_DIM], hist [problem][hist_len] (may be NULL)
 *   adaptive strategies only: adg [problem][DE_AD_SIZE], archg
 *   [problem][DE_DIM][DE_ACAP], workg [problem][DE_WORK], iworkg
 *   [problem][DE_IWORK] */
extern "C" __global__ void __launch_bounds__(DE_BLOCK, DE_MIN_BLOCKS)
de_fused(float *popg, float *fitg, de_state *state, float *bestx, float *hist,
	 const float *shift, const float *rot, unsigned long long seed, int pbegin, int pend,
	 int gen_end, int hist_every, int hist_len, float target, float fstar, double *adg,
	 float *archg, double *workg, int *iworkg, const float *x0)
{
	__shared__ float red_v[2][DE_WARPS];
	__shared__ int red_i[2][DE_WARPS];
#if DE_POP_SHARED || DE_AD_SHARED
	extern __shared__ float de_smem[];
#endif
	const de_params P = de_kparams(seed);
	const int tid = threadIdx.x;
	const float *ro = DE_ROTATE || DE_CEC ? rot : (const float *)0;

	for (int p = pbegin + (int)blockIdx.x; p < pend; p += (int)gridDim.x) {
		de_state st = state[p];
		if (st.done || st.gens >= gen_end)
			continue;   /* uniform over the block */
		const float *sh = DE_SHIFT ? shift + (long long)p * DE_DIM : (const float *)0;
#if DE_POP_SHARED
		float *X = de_smem, *Y = de_smem + DE_POP_WORDS;
		float *fx = de_smem + 2 * DE_POP_WORDS, *fy = fx + DE_NP;
		float *gpop = popg + (long long)p * DE_POP_WORDS;
		float *gfit = fitg + (long long)p * DE_NP;
#else
		int cur = st.gens > 0 ? (st.gens & 1) : 0;
		float *X = popg + (long long)p * 2 * DE_POP_WORDS + cur * DE_POP_WORDS;
		float *Y = popg + (long long)p * 2 * DE_POP_WORDS + (1 - cur) * DE_POP_WORDS;
		float *fx = fitg + (long long)p * 2 * DE_NP + cur * DE_NP;
		float *fy = fitg + (long long)p * 2 * DE_NP + (1 - cur) * DE_NP;
#endif
#if DE_ADAPTIVE
		double *adp = adg + (long long)p * DE_AD_SIZE;   /* the problem's own, in global memory */
		float *Ap = archg + (long long)p * DE_DIM * DE_ACAP;
#if DE_AD_SHARED   /* after the population's 2 NP (D + 1) floats (an even count: 8-byte aligned) */
		double *ad = (double *)(de_smem + (DE_POP_SHARED ? 2 * DE_POP_WORDS + 2 * DE_NP : 0));
		double *wk = ad + DE_AD_SIZE;
		int *iw = (int *)(wk + DE_WORK);
		(void)workg;
		(void)iworkg;
#else
		double *ad = adp, *wk = workg + (long long)p * DE_WORK;
		int *iw = iworkg + (long long)p * DE_IWORK;
#endif
#if DE_ARCH_SHARED
		float *A = (float *)(iw + DE_IWORK);
#else
		float *A = Ap;
#endif
#else
		(void)adg;
		(void)archg;
		(void)workg;
		(void)iworkg;
#endif
		float bv;
		int bi, g = st.gens, done = 0;
		if (g < 0) {
			float lv = DE_INF;
			int li = 0x7fffffff;
			for (int i = tid; i < DE_NP; i += DE_BLOCK) {
				de_kinit_member(&P, x0, (uint32_t)p, (uint32_t)i, X + i, DE_NP);
				float f = de_eval(X + i, DE_NP, sh, ro);
				fx[i] = f;
				de_keep_min(&lv, &li, f, i);
			}
#if DE_ADAPTIVE
			if (tid == 0)
				de_strategy_init(&P, ad);
#endif
			de_block_best(lv, li, red_v[0], red_i[0], &bv, &bi, DE_WARPS);
			g = 0;
			if (hist && hist_every > 0 && tid == 0 && hist_len > 0)
				hist[(long long)p * hist_len] = bv;
			done = de_reached(bv, target, fstar);
		} else {
#if DE_POP_SHARED
			for (int k = tid; k < DE_POP_WORDS; k += DE_BLOCK)
				X[k] = gpop[k];
			for (int k = tid; k < DE_NP; k += DE_BLOCK)
				fx[k] = gfit[k];
#endif
#if DE_ADAPTIVE
			de_state_copy(ad, adp, A, Ap, 0);
#endif
#if DE_POP_SHARED || DE_AD_SHARED
			__syncthreads();
#endif
			bv = st.best;
			bi = st.best_index;
		}
		while (!done && g < gen_end) {
			g++;
#if DE_ADAPTIVE && DE_STRATEGY == DE_PP_SADE
			(void)A;
			(void)iw;
			de_sade_gen(&P, p, g, X, fx, Y, fy, ad, wk, sh, ro, red_v[g & 1], red_i[g & 1], &bv, &bi);
#elif DE_ADAPTIVE
			de_adapt_gen(&P, p, g, X, fx, Y, fy, ad, A, wk, iw, sh, ro, red_v[g & 1], red_i[g & 1],
				     &bv, &bi);
#elif DE_STRATEGY == DE_PP_CODE
			de_code_gen(&P, p, g, X, fx, Y, fy, sh, ro, red_v[g & 1], red_i[g & 1], &bv, &bi);
#else
			float lv = DE_INF;
			int li = 0x7fffffff;
			for (int i = tid; i < DE_NP; i += DE_BLOCK) {
				float *y = Y + i;
				const float *x = X + i;
				de_make_trial(&P, X, 1, DE_NP, y, DE_NP, (uint32_t)p, (uint32_t)g,
					      (uint32_t)i, (uint32_t)bi);
				float f = de_eval(y, DE_NP, sh, ro);
				float fo = fx[i];
				int better = f <= fo;
				for (int j = 0; j < DE_DIM; j++)
					y[j * DE_NP] = better ? y[j * DE_NP] : x[j * DE_NP];
				f = better ? f : fo;
				fy[i] = f;
				de_keep_min(&lv, &li, f, i);
			}
			de_block_best(lv, li, red_v[g & 1], red_i[g & 1], &bv, &bi, DE_WARPS);
#endif
			float *t = X; X = Y; Y = t;
			t = fx; fx = fy; fy = t;
			if (hist && hist_every > 0 && tid == 0 && g % hist_every == 0 &&
			    g / hist_every < hist_len)
				hist[(long long)p * hist_len + g / hist_every] = bv;
			done = de_reached(bv, target, fstar);
		}
#if DE_POP_SHARED
		for (int k = tid; k < DE_POP_WORDS; k += DE_BLOCK)
			gpop[k] = X[k];
		for (int k = tid; k < DE_NP; k += DE_BLOCK)
			gfit[k] = fx[k];
#endif
#if DE_ADAPTIVE   /* every write to the shared copies came before the last barrier */
		de_state_copy(ad, adp, A, Ap, 1);
#endif
		for (int j = tid; j < DE_DIM; j += DE_BLOCK)
			bestx[(long long)p * DE_DIM + j] = X[j * DE_NP + bi];
		if (tid == 0) {
			st.best = bv;
			st.best_index = bi;
			st.gens = g;
			st.done = done;
			state[p] = st;
		}
		__syncthreads();   /* before the next problem reuses shared memory */
	}
}

#endif

#if DE_KERNELS == 0 || DE_KERNELS == 2
/* ---- the naive multi-kernel baseline ---------------------------------------
 * Global arrays [problem][DE_DIM][DE_NP] (pop, mut, trial) and [problem][DE_NP]
 * (fit, tfit); one thread per (problem, individual), problems [pbegin, pend). */

RT_DEV int de_naive_item(int pbegin, int pend, int *p, int *i)
{
	long long t = (long long)blockIdx.x * blockDim.x + threadIdx.x;
	*p = pbegin + (int)(t / DE_NP);
	*i = (int)(t % DE_NP);
	return *p < pend;
}

extern "C" __global__ void __launch_bounds__(DE_NAIVE_BLOCK, DE_NAIVE_MIN_BLOCKS)
de_naive_init(float *pop, unsigned long long seed, int pbegin, int pend, const float *x0)
{
	const de_params P = de_kparams(seed);
	int p, i;
	if (!de_naive_item(pbegin, pend, &p, &i))
		return;
	de_kinit_member(&P, x0, (uint32_t)p, (uint32_t)i, pop + (long long)p * DE_POP_WORDS + i, DE_NP);
}

extern "C" __global__ void __launch_bounds__(DE_NAIVE_BLOCK, DE_NAIVE_MIN_BLOCKS)
de_naive_eval(const float *pop, float *fit, const de_state *state, const float *shift,
	      const float *rot, int pbegin, int pend)
{
	int p, i;
	if (!de_naive_item(pbegin, pend, &p, &i) || state[p].done)
		return;
	const float *sh = DE_SHIFT ? shift + (long long)p * DE_DIM : (const float *)0;
	const float *ro = DE_ROTATE || DE_CEC ? rot : (const float *)0;
	fit[(long long)p * DE_NP + i] = de_eval(pop + (long long)p * DE_POP_WORDS + i, DE_NP, sh, ro);
}

/* One block (DE_BLOCK threads) per problem: best of the population, history,
 * target; gen is the generation just completed. */
extern "C" __global__ void __launch_bounds__(DE_BLOCK, DE_MIN_BLOCKS)
de_naive_best(const float *pop, const float *fit, de_state *state, float *bestx, float *hist,
	      int gen, int hist_every, int hist_len, float target, float fstar, int pbegin, int pend)
{
	__shared__ float red_v[DE_WARPS];
	__shared__ int red_i[DE_WARPS];
	int p = pbegin + (int)blockIdx.x;
	if (p >= pend || state[p].done)
		return;
	float lv = DE_INF, bv;
	int li = 0x7fffffff, bi;
	for (int i = threadIdx.x; i < DE_NP; i += DE_BLOCK)
		de_keep_min(&lv, &li, fit[(long long)p * DE_NP + i], i);
	de_block_best(lv, li, red_v, red_i, &bv, &bi, DE_WARPS);
	for (int j = threadIdx.x; j < DE_DIM; j += DE_BLOCK)
		bestx[(long long)p * DE_DIM + j] = pop[(long long)p * DE_POP_WORDS + j * DE_NP + bi];
	if (threadIdx.x == 0)
		de_publish_best(state, hist, p, bv, bi, gen, target, fstar, hist_every, hist_len);
}

extern "C" __global__ void __launch_bounds__(DE_NAIVE_BLOCK, DE_NAIVE_MIN_BLOCKS)
de_naive_mutate(const float *pop, float *mut, const de_state *state, unsigned long long seed,
		int gen, int pbegin, int pend)
{
	const de_params P = de_kparams(seed);
	int p, i;
	if (!de_naive_item(pbegin, pend, &p, &i) || state[p].done)
		return;
	const float *x = pop + (long long)p * DE_POP_WORDS;
	float *m = mut + (long long)p * DE_POP_WORDS + i;
	de_pick k = de_pick_indices(&P, (uint32_t)p, (uint32_t)gen, (uint32_t)i,
				    (uint32_t)state[p].best_index);
	for (int j = 0; j < DE_DIM; j++)
		m[j * DE_NP] = de_mutant(&P, x, 1, DE_NP, k, j, (uint32_t)p, (uint32_t)gen, (uint32_t)i);
}

extern "C" __global__ void __launch_bounds__(DE_NAIVE_BLOCK, DE_NAIVE_MIN_BLOCKS)
de_naive_cross(const float *pop, const float *mut, float *trial, const de_state *state,
	       unsigned long long seed, int gen, int pbegin, int pend)
{
	const de_params P = de_kparams(seed);
	int p, i;
	if (!de_naive_item(pbegin, pend, &p, &i) || state[p].done)
		return;
	long long o = (long long)p * DE_POP_WORDS + i;
	de_pick k = de_pick_indices(&P, (uint32_t)p, (uint32_t)gen, (uint32_t)i,
				    (uint32_t)state[p].best_index);
	for (int jb = 0; jb < DE_DIM; jb += 8) {
		philox4x32_ctr c = de_draw(&P, (uint32_t)p, (uint32_t)gen, (uint32_t)i, DE_DRAW_CROSS,
					   (uint32_t)jb >> 3);
		DE_UNROLL
		for (int q = 0; q < 8; q++) {
			int j = jb + q;
			if (j < DE_DIM)
				trial[o + j * DE_NP] = de_take(&P, c, q, j, k.jrand) ? mut[o + j * DE_NP]
										    : pop[o + j * DE_NP];
		}
	}
}

extern "C" __global__ void __launch_bounds__(DE_NAIVE_BLOCK, DE_NAIVE_MIN_BLOCKS)
de_naive_select(float *pop, float *fit, const float *trial, const float *tfit,
		const de_state *state, int pbegin, int pend)
{
	int p, i;
	if (!de_naive_item(pbegin, pend, &p, &i) || state[p].done)
		return;
	long long o = (long long)p * DE_POP_WORDS + i;
	float f = tfit[(long long)p * DE_NP + i], fo = fit[(long long)p * DE_NP + i];
	int better = f <= fo;
	for (int j = 0; j < DE_DIM; j++)
		pop[o + j * DE_NP] = better ? trial[o + j * DE_NP] : pop[o + j * DE_NP];
	fit[(long long)p * DE_NP + i] = better ? f : fo;
}

#endif

#if DE_KERNELS == 0 || DE_KERNELS == 3
/* ---- the multi-block kernel (variant multiblock) ------------------------------
 * For large dimensions, where one block per problem leaves most SMs idle and
 * a thread per individual walks D components alone: a block of DE_MB_BLOCK
 * threads per (problem, individual), blockIdx.x = (problem - pbegin) * DE_NP
 * + individual, one launch per generation (gen 0: the initial population).
 * Population rows in global memory, [problem][2][DE_NP][DE_DIM] (and fitness
 * [problem][2][DE_NP]); generation g reads buffer (g - 1) & 1 and writes
 * buffer g & 1. In a block, thread t builds trial chunks t, t + DE_MB_BLOCK,
 * ... (de_trial_chunk_rows: 8 components per CROSS draw, the CPU's draws;
 * parent and donor rows read as two 16-byte loads each) into shared memory;
 * the components z_k and the per-component parts of the function
 * (de_fn_pre) are computed in parallel; thread 0 then folds them in
 * the order k = 0, 1, ... (de_fn_step), the CPU's floating-point order, so f
 * is bit for bit the CPU's and the fused kernel's. User objectives and CEC
 * 2017 functions are evaluated whole by thread 0 (correct, not fast). The
 * block writes the selected row and fitness; the problem's last block to
 * finish (a counter per problem, reset by it) finds the best (lowest index of
 * the minimum), copies its vector and updates the state, history and target
 * flag. Blocks of a problem that stopped (done) or already did gen return. */
#if !DE_ADAPTIVE
#if DE_MB_BLOCK % 32 != 0 || DE_MB_BLOCK > 1024
#error "DE_MB_BLOCK must be a multiple of 32, at most 1024"
#endif
#define DE_MB_WARPS (DE_MB_BLOCK / 32)
#define DE_MB_ROWS ((long long)DE_NP * DE_DIM)

/* Shared floats of a block: y (the trial), then u, v (the function's parts)
 * for built-in functions, then z (DE_DIM + 1) when rotated. */
#if DE_USER || DE_CEC
#define DE_MB_SMEM_FLOATS DE_DIM
#elif DE_ROTATE
#define DE_MB_SMEM_FLOATS (4 * DE_DIM + 1)
#else
#define DE_MB_SMEM_FLOATS (3 * DE_DIM)
#endif

/* f at the block's vector y (shared); u, v (DE_DIM each), z (DE_DIM + 1,
 * rotated only): shared scratch; every thread gets f. */
RT_DEV float de_mb_eval(const float *y, float *u, float *v, float *z, const float *sh,
			const float *ro, float *sf)
{
#if DE_USER || DE_CEC
	(void)z;
	(void)u;
	(void)v;
	if (threadIdx.x == 0)
		*sf = de_eval(y, 1, sh, ro);
#else
#if DE_ROTATE   /* z_k needs all of y: once per component, then shared */
	for (int k = threadIdx.x; k < DE_DIM; k += DE_MB_BLOCK)
		z[k] = de_z(y, 1, DE_DIM, k, sh, ro, DE_ZOFF);
	__syncthreads();
#define DE_MB_Z(k) z[k]
#else           /* z_k from y_k alone */
	(void)z;
#define DE_MB_Z(k) de_z(y, 1, DE_DIM, (k), sh, (const float *)0, DE_ZOFF)
#endif
	for (int k = threadIdx.x; k < DE_DIM; k += DE_MB_BLOCK)
		de_fn_pre(DE_FUNCTION, DE_MB_Z(k), k + 1 < DE_DIM ? DE_MB_Z(k + 1) : 0.0f, k, DE_DIM,
			  u + k, v + k);
#undef DE_MB_Z
	__syncthreads();
	if (threadIdx.x == 0) {   /* the fold, in component order: few instructions per step */
		de_acc a = { 0.0f, 0.0f };
		if (DE_DIM % 4 == 0) {   /* u, v 16-byte aligned */
#pragma unroll 2
			for (int k = 0; k < DE_DIM; k += 4) {
				float4 uu = *(const float4 *)(u + k), vv = *(const float4 *)(v + k);
				de_fn_step(DE_FUNCTION, &a, uu.x, vv.x, k, DE_DIM);
				de_fn_step(DE_FUNCTION, &a, uu.y, vv.y, k + 1, DE_DIM);
				de_fn_step(DE_FUNCTION, &a, uu.z, vv.z, k + 2, DE_DIM);
				de_fn_step(DE_FUNCTION, &a, uu.w, vv.w, k + 3, DE_DIM);
			}
		} else {
#pragma unroll 8
			for (int k = 0; k < DE_DIM; k++)
				de_fn_step(DE_FUNCTION, &a, u[k], v[k], k, DE_DIM);
		}
		*sf = de_sane(de_fn_final(DE_FUNCTION, a, DE_DIM));
	}
#endif
	__syncthreads();
	return *sf;
}

/* Components 8c .. 8c + 7 of a population row into v (zeros past the end):
 * two 16-byte loads (rows are 16-byte aligned: DE_DIM % 4 == 0, else the
 * caller reads scalars through de_trial_chunk). The rows are only read in
 * this launch (the block writes the other buffer). */
RT_DEV void de_mb_load8(const float *row, int c, float *v)
{
	const int j0 = 8 * c;
	if (DE_DIM % 4 == 0 && j0 + 8 <= DE_DIM) {
		float4 a = __ldg((const float4 *)(row + j0)), b = __ldg((const float4 *)(row + j0) + 1);
		v[0] = a.x, v[1] = a.y, v[2] = a.z, v[3] = a.w;
		v[4] = b.x, v[5] = b.y, v[6] = b.z, v[7] = b.w;
	} else {
#pragma unroll
		for (int q = 0; q < 8; q++)
			v[q] = j0 + q < DE_DIM ? __ldg(row + j0 + q) : 0.0f;
	}
}

/* The last block of problem p in generation gen: best of fitness fy (rows
 * Y), state, best vector, history. Reads other blocks' writes through L2. */
RT_DEV void de_mb_finish(int p, int gen, const float *Y, const float *fy, de_state *state,
			 float *bestx, float *hist, int hist_every, int hist_len, float target,
			 float fstar, float *sv, int *si)
{
	float lv = DE_INF, bv;
	int li = 0x7fffffff, bi;
	for (int i = threadIdx.x; i < DE_NP; i += DE_MB_BLOCK)
		de_keep_min(&lv, &li, __ldcg(fy + i), i);
	de_block_best(lv, li, sv, si, &bv, &bi, DE_MB_WARPS);
	for (int j = threadIdx.x; j < DE_DIM; j += DE_MB_BLOCK)
		bestx[(long long)p * DE_DIM + j] = __ldcg(Y + (long long)bi * DE_DIM + j);
	if (threadIdx.x == 0)
		de_publish_best(state, hist, p, bv, bi, gen, target, fstar, hist_every, hist_len);
}

/* Generation gen (0: initialisation) of individual blockIdx.x % DE_NP of
 * problem pbegin + blockIdx.x / DE_NP. Dynamic shared memory:
 * DE_MB_SMEM_FLOATS floats. count: [problem], zero between launches. */
extern "C" __global__ void __launch_bounds__(DE_MB_BLOCK, DE_MB_MIN_BLOCKS)
de_mb_gen(float *popg, float *fitg, de_state *state, unsigned *count, float *bestx, float *hist,
	  const float *shift, const float *rot, unsigned long long seed, int gen, int hist_every,
	  int hist_len, float target, float fstar, int pbegin, int pend, const float *x0)
{
	extern __shared__ float4 de_mb_smem[];   /* 16-byte aligned: y is read as float4 */
	__shared__ float red_v[DE_MB_WARPS], s_f;
	__shared__ int red_i[DE_MB_WARPS], s_last;
	const de_params P = de_kparams(seed);
	const int tid = threadIdx.x;
	const int p = pbegin + (int)(blockIdx.x / DE_NP), i = (int)(blockIdx.x % DE_NP);
	if (p >= pend)
		return;
	const de_state st = state[p];
	if (st.done || st.gens >= gen)
		return;   /* uniform over the problem's blocks */
	float *y = (float *)de_mb_smem, *u = y + DE_DIM, *v = u + DE_DIM, *z = v + DE_DIM;
	const long long cur = (long long)p * 2 + ((gen - 1) & 1), nxt = (long long)p * 2 + (gen & 1);
	const float *X = popg + cur * DE_MB_ROWS;
	float *Y = popg + nxt * DE_MB_ROWS;
	const float *fx = fitg + cur * DE_NP;
	float *fy = fitg + nxt * DE_NP;
	const float *sh = DE_SHIFT ? shift + (long long)p * DE_DIM : (const float *)0;
	const float *ro = DE_ROTATE || DE_CEC ? rot : (const float *)0;
	const float fo = gen > 0 ? fx[i] : DE_INF;   /* loaded early: used after the evaluation */
	if (gen == 0 && x0 && i == 0) {   /* de.x0 */
		for (int j = tid; j < DE_DIM; j += DE_MB_BLOCK)
			y[j] = x0[j];
	} else if (gen == 0) {
		for (int c = tid; 4 * c < DE_DIM; c += DE_MB_BLOCK)
			de_init_chunk(&P, (uint32_t)p, (uint32_t)i, c, y, 1);
	} else {
		de_pick k = de_pick_indices(&P, (uint32_t)p, (uint32_t)gen, (uint32_t)i,
					    (uint32_t)st.best_index);
		const float *rx = X + (long long)i * DE_DIM, *rs = X + (long long)k.base * DE_DIM;
		const float *ra = X + (long long)k.a * DE_DIM, *rb = X + (long long)k.b * DE_DIM;
		for (int c = tid; DE_DIM % 4 != 0 && 8 * c < DE_DIM; c += DE_MB_BLOCK)   /* scalar loads */
			de_trial_chunk(&P, X, DE_DIM, 1, y, 1, (uint32_t)p, (uint32_t)gen, (uint32_t)i, k, c);
		for (int c = tid; DE_DIM % 4 == 0 && 8 * c < DE_DIM; c += DE_MB_BLOCK) {
			float vx[8], vs[8], va[8], vb[8];
			de_mb_load8(rx, c, vx);
			de_mb_load8(rs, c, vs);
			de_mb_load8(ra, c, va);
			de_mb_load8(rb, c, vb);
			de_trial_chunk_rows(&P, vx, vs, va, vb, 1, y + 8 * c, 1, (uint32_t)p, (uint32_t)gen,
					    (uint32_t)i, k.jrand, c);
		}
	}
	__syncthreads();
	float f = de_mb_eval(y, u, v, z, sh, ro, &s_f);
	int better = f <= fo;
	const float *xi = X + (long long)i * DE_DIM;
	float *yi = Y + (long long)i * DE_DIM;
	if (DE_DIM % 4 == 0) {
		for (int j = 4 * tid; j < DE_DIM; j += 4 * DE_MB_BLOCK)
			*(float4 *)(yi + j) = better ? *(const float4 *)(y + j) : __ldg((const float4 *)(xi + j));
	} else {
		for (int j = tid; j < DE_DIM; j += DE_MB_BLOCK)
			yi[j] = better ? y[j] : xi[j];
	}
	if (tid == 0)
		fy[i] = better ? f : fo;
	__threadfence();
	__syncthreads();
	if (tid == 0)
		s_last = atomicAdd(count + p, 1u) == (unsigned)DE_NP - 1u;
	__syncthreads();
	if (!s_last)
		return;
	__threadfence();
	de_mb_finish(p, gen, Y, fy, state, bestx, hist, hist_every, hist_len, target, fstar, red_v,
		     red_i);
	if (tid == 0)
		count[p] = 0u;
}
#endif   /* DE_KERNELS */
#endif

#if DE_KERNELS == 0 || DE_KERNELS == 4
/* ---- the objective callback (function = callback) -----------------------------
 * The objective runs on the host (runtime/de/de_gpu.c, de_host_eval), so a
 * generation is two launches of a block per problem around one copy each
 * way. de_cb_trials writes every trial of generation gen (gen 0: the
 * initial population, de.x0 as member 0) as rows into T
 * ([problem][DE_CB_ROWS][DE_DIM], the row-major layout the callback is
 * handed) and how many rows to evaluate into nrows ([problem]; 0: the
 * problem stopped or is past gen); the host copies T and nrows down, calls
 * the objective once per problem and copies the values ft
 * ([problem][DE_CB_ROWS]) up; de_cb_select then selects, does the adaptive
 * and mixed strategies' bookkeeping (the second half of de_adapt_gen,
 * de_sade_gen, de_code_gen) and publishes the best. The device functions
 * and their order are the fused kernel's, so the trials, the selections and
 * the states are those of the fused kernel with a built-in objective when
 * the callback computes it with the same float operations. Population rows
 * in global memory, [problem][2][DE_NP][DE_DIM] (fitness [problem][2][DE_NP]):
 * generation g reads buffer (g - 1) & 1 and writes buffer g & 1 (the
 * multi-block kernel's layout: checkpoints and islands take it alike); the
 * adaptive state ([problem][DE_AD_SIZE]), archive ([problem][DE_DIM][DE_ACAP])
 * and scratch ([problem][DE_WORK], [problem][DE_IWORK]) in global memory as
 * the fused kernel keeps them there; the scratch's F, CR (SaDE: kind, CR)
 * carry from the trials to the selection. */
#if DE_STRATEGY == DE_PP_CODE
#define DE_CB_ROWS (DE_CODE_TRIALS * DE_NP)
#else
#define DE_CB_ROWS DE_NP
#endif

/* Problem p's buffers read (X, fx: gen - 1's) and written (Y, fy) in generation gen >= 1. */
RT_DEV void de_cb_buffers(float *popg, float *fitg, int p, int gen, float **X, float **fx, float **Y,
			  float **fy)
{
	const long long cur = (long long)p * 2 + ((gen - 1) & 1), nxt = (long long)p * 2 + (gen & 1);
	*X = popg + cur * DE_POP_WORDS;
	*fx = fitg + cur * DE_NP;
	*Y = popg + nxt * DE_POP_WORDS;
	*fy = fitg + nxt * DE_NP;
}

/* Row y (DE_DIM floats) becomes a copy of row x. */
RT_DEV void de_cb_copy_row(float *y, const float *x)
{
	for (int j = 0; j < DE_DIM; j++)
		y[j] = x[j];
}

/* Generation gen's trials of problem p into t (rows); returns the rows to
 * evaluate. st: the problem's state after gen - 1. */
RT_DEV int de_cb_make_trials(const de_params *P, int p, int gen, const float *X, const float *fx,
			     de_state st, float *t, double *ad, const float *A, double *wk, int *iw)
{
	const int tid = threadIdx.x;
#if DE_ADAPTIVE && DE_STRATEGY == DE_PP_SADE
	(void)fx;
	(void)A;
	(void)iw;
	for (int i = tid; i < DE_NP; i += DE_BLOCK) {
		de_mpick k = de_sade_pick(P, ad, (uint32_t)p, (uint32_t)gen, (uint32_t)i);
		de_mix_trial(P, X, DE_DIM, 1, &k, (uint32_t)st.best_index, t + (long long)i * DE_DIM, 1,
			     (uint32_t)p, (uint32_t)gen, (uint32_t)i, 0);
		wk[i] = (double)k.kind;
		wk[DE_NP + i] = k.CR;
	}
	return DE_NP;
#elif DE_ADAPTIVE
	const int na = (int)ad[DE_AD_NP];
	int *order = iw;
	(void)st;
	for (int i = tid; i < na; i += DE_BLOCK)
		order[de_adapt_rank(fx, na, i)] = i;
	__syncthreads();
	for (int i = tid; i < na; i += DE_BLOCK) {
		de_apick k = de_adapt_pick(P, ad, order, (uint32_t)p, (uint32_t)gen, (uint32_t)i);
		de_adapt_trial(P, X, DE_DIM, 1, A, 1, DE_ACAP, na, &k, t + (long long)i * DE_DIM, 1,
			       (uint32_t)p, (uint32_t)gen, (uint32_t)i);
		wk[i] = k.F;
		wk[DE_NP + i] = k.CR;
	}
	return na;
#else
	(void)fx;
	(void)ad;
	(void)A;
	(void)wk;
	(void)iw;
#if DE_STRATEGY == DE_PP_CODE
	for (int r = tid; r < DE_CB_ROWS; r += DE_BLOCK) {   /* row r: individual r / 3, trial r % 3 */
		const int i = r / DE_CODE_TRIALS, k3 = r % DE_CODE_TRIALS;
		de_mpick k = de_code_pick(P, (uint32_t)p, (uint32_t)gen, (uint32_t)i, k3);
		de_mix_trial(P, X, DE_DIM, 1, &k, (uint32_t)st.best_index, t + (long long)r * DE_DIM, 1,
			     (uint32_t)p, (uint32_t)gen, (uint32_t)i, k3);
	}
#else
	for (int i = tid; i < DE_NP; i += DE_BLOCK)
		de_make_trial(P, X, DE_DIM, 1, t + (long long)i * DE_DIM, 1, (uint32_t)p, (uint32_t)gen,
			      (uint32_t)i, (uint32_t)st.best_index);
#endif
	return DE_CB_ROWS;
#endif
}

/* Generation gen (0: initialisation) of problems [pbegin, pend), a block
 * each: the rows to evaluate into T and their number into nrows. x0: de.x0
 * (DE_DIM floats) or NULL. */
extern "C" __global__ void __launch_bounds__(DE_BLOCK, DE_MIN_BLOCKS)
de_cb_trials(float *popg, float *fitg, const de_state *state, float *T, int *nrows, const float *x0,
	     unsigned long long seed, int gen, double *adg, float *archg, double *workg, int *iworkg,
	     int pbegin, int pend)
{
	const de_params P = de_kparams(seed);
	const int tid = threadIdx.x, p = pbegin + (int)blockIdx.x;
	if (p >= pend)
		return;
	const de_state st = state[p];
	float *t = T + (long long)p * DE_CB_ROWS * DE_DIM;
	if (st.done || st.gens >= gen) {   /* uniform over the block */
		if (tid == 0)
			nrows[p] = 0;
		return;
	}
	int n = DE_NP;
	if (gen == 0) {
		for (int i = tid; i < DE_NP; i += DE_BLOCK)
			de_kinit_member(&P, x0, (uint32_t)p, (uint32_t)i, t + (long long)i * DE_DIM, 1);
	} else {
		float *X, *fx, *Y, *fy;
		de_cb_buffers(popg, fitg, p, gen, &X, &fx, &Y, &fy);
#if DE_ADAPTIVE
		double *ad = adg + (long long)p * DE_AD_SIZE, *wk = workg + (long long)p * DE_WORK;
		const float *A = archg + (long long)p * DE_DIM * DE_ACAP;
		int *iw = iworkg + (long long)p * DE_IWORK;
#else
		double *ad = adg, *wk = workg;
		const float *A = archg;
		int *iw = iworkg;
#endif
		n = de_cb_make_trials(&P, p, gen, X, fx, st, t, ad, A, wk, iw);
	}
	if (tid == 0)
		nrows[p] = n;
}

#if DE_ADAPTIVE && DE_STRATEGY != DE_PP_SADE
/* JADE .. jSO: de_adapt_gen's selection, archive, memory update and
 * reduction, the trials' values in ft; the block's best candidate into
 * *lv, *li (per thread). */
RT_DEV void de_cb_adapt_select(const de_params *P, int p, int g, const float *X, const float *fx,
			       float *Y, float *fy, const float *t, const float *ft, double *ad, float *A,
			       double *wk, int *iw, float *lv, int *li)
{
	__shared__ int s_na_new;
	const int tid = threadIdx.x;
	const int na = (int)ad[DE_AD_NP];
	double *wF = wk, *wCR = wk + DE_NP, *delta = wk + 2 * DE_NP;
	int *dest = iw + DE_NP, *rank = iw + 2 * DE_NP, *owner = iw + 3 * DE_NP;
	for (int i = tid; i < DE_NP; i += DE_BLOCK) {
		if (i >= na) {
			fy[i] = DE_INF;
			continue;
		}
		float f = ft[i], fo = fx[i];
		delta[i] = de_adapt_delta(f, fo);
		int better = f <= fo;
		de_cb_copy_row(Y + (long long)i * DE_DIM, better ? t + (long long)i * DE_DIM
								  : X + (long long)i * DE_DIM);
		fy[i] = better ? f : fo;
	}
	__syncthreads();
	if (tid == 0) {
		de_adapt_archive_plan(P, ad, delta, dest, owner, (uint32_t)p, (uint32_t)g);
		de_adapt_update_memory(P, ad, wF, wCR, delta);
		s_na_new = de_reduces(P->strategy) ? de_adapt_np_next(P, ad[DE_AD_NFES], na) : na;
	}
	__syncthreads();
	for (int i = tid; i < na; i += DE_BLOCK)
		if (dest[i] >= 0)
			for (int j = 0; j < DE_DIM; j++)
				A[j * DE_ACAP + dest[i]] = X[(long long)i * DE_DIM + j];
	const int na_new = s_na_new;
	if (na_new < na) {   /* uniform over the block */
		for (int i = tid; i < na; i += DE_BLOCK)
			rank[i] = de_adapt_rank(fy, na, i);
		__syncthreads();
		if (tid == 0)
			de_adapt_shrink_plan(P, ad, rank, fy, na_new);
		__syncthreads();
		for (int j = tid; j < DE_DIM; j += DE_BLOCK)
			de_adapt_move(Y, DE_DIM, 1, rank, na, j);
	}
	for (int i = tid; i < DE_NP; i += DE_BLOCK)
		de_keep_min(lv, li, fy[i], i);
}
#endif

/* Selection of generation gen >= 1 (and the strategy's bookkeeping) from
 * the trials t and their values ft; the best candidate into *lv, *li. */
RT_DEV void de_cb_select_gen(const de_params *P, int p, int gen, const float *X, const float *fx,
			     float *Y, float *fy, const float *t, const float *ft, double *ad, float *A,
			     double *wk, int *iw, float *lv, int *li)
{
	const int tid = threadIdx.x;
#if DE_ADAPTIVE && DE_STRATEGY == DE_PP_SADE
	double *kind = wk, *cr = wk + DE_NP, *success = wk + 2 * DE_NP;
	(void)A;
	(void)iw;
	for (int i = tid; i < DE_NP; i += DE_BLOCK) {
		float f = ft[i], fo = fx[i];
		int better = f <= fo;
		success[i] = better;
		de_cb_copy_row(Y + (long long)i * DE_DIM, better ? t + (long long)i * DE_DIM
								  : X + (long long)i * DE_DIM);
		fy[i] = better ? f : fo;
		de_keep_min(lv, li, fy[i], i);
	}
	__syncthreads();   /* the outcomes are written */
	const double recorded = ad[DE_SA_GENS];
	if (tid < DE_MIX_KINDS) {   /* a thread a kind */
		de_sade_record_kind(P, ad, tid, recorded, kind, cr, success);
		de_sade_learn_cr(P, ad, tid, recorded + 1);
	}
	__syncthreads();
	if (tid == 0)
		de_sade_learn_p(P, ad, recorded + 1);
#elif DE_ADAPTIVE
	de_cb_adapt_select(P, p, gen, X, fx, Y, fy, t, ft, ad, A, wk, iw, lv, li);
#else
	(void)P;
	(void)p;
	(void)gen;
	(void)ad;
	(void)A;
	(void)wk;
	(void)iw;
	for (int i = tid; i < DE_NP; i += DE_BLOCK) {
#if DE_STRATEGY == DE_PP_CODE   /* the best of the three trials */
		float fb = DE_INF;
		int bt = 0;
		for (int k3 = 0; k3 < DE_CODE_TRIALS; k3++) {
			float f = ft[i * DE_CODE_TRIALS + k3];
			if (de_code_better(f, fb, k3)) {
				fb = f;
				bt = k3;
			}
		}
		const float *ti = t + ((long long)i * DE_CODE_TRIALS + bt) * DE_DIM;
#else
		float fb = ft[i];
		const float *ti = t + (long long)i * DE_DIM;
#endif
		float fo = fx[i];
		int better = fb <= fo;
		de_cb_copy_row(Y + (long long)i * DE_DIM, better ? ti : X + (long long)i * DE_DIM);
		fy[i] = better ? fb : fo;
		de_keep_min(lv, li, fy[i], i);
	}
#endif
}

/* After the host evaluated de_cb_trials' rows of generation gen into ft:
 * selection (gen 0: the initial population taken whole, the strategy's
 * state initialised), then the best, its vector, the state and history. */
extern "C" __global__ void __launch_bounds__(DE_BLOCK, DE_MIN_BLOCKS)
de_cb_select(float *popg, float *fitg, de_state *state, const float *T, const float *ft,
	     float *bestx, float *hist, unsigned long long seed, int gen, int hist_every, int hist_len,
	     float target, float fstar, double *adg, float *archg, double *workg, int *iworkg,
	     int pbegin, int pend)
{
	__shared__ float red_v[DE_WARPS];
	__shared__ int red_i[DE_WARPS];
	const de_params P = de_kparams(seed);
	const int tid = threadIdx.x, p = pbegin + (int)blockIdx.x;
	if (p >= pend)
		return;
	const de_state st = state[p];
	if (st.done || st.gens >= gen)
		return;   /* uniform over the block */
	const float *t = T + (long long)p * DE_CB_ROWS * DE_DIM, *ftp = ft + (long long)p * DE_CB_ROWS;
#if DE_ADAPTIVE
	double *ad = adg + (long long)p * DE_AD_SIZE, *wk = workg + (long long)p * DE_WORK;
	float *A = archg + (long long)p * DE_DIM * DE_ACAP;
	int *iw = iworkg + (long long)p * DE_IWORK;
#else
	double *ad = adg, *wk = workg;
	float *A = archg;
	int *iw = iworkg;
#endif
	float *X, *fx, *Y, *fy;
	de_cb_buffers(popg, fitg, p, gen > 0 ? gen : 2, &X, &fx, &Y, &fy);   /* gen 0: buffer 0 */
	float lv = DE_INF, bv;
	int li = 0x7fffffff, bi;
	if (gen == 0) {
		for (int i = tid; i < DE_NP; i += DE_BLOCK) {
			de_cb_copy_row(Y + (long long)i * DE_DIM, t + (long long)i * DE_DIM);
			fy[i] = ftp[i];
			de_keep_min(&lv, &li, fy[i], i);
		}
#if DE_ADAPTIVE
		if (tid == 0)
			de_strategy_init(&P, ad);
#endif
	} else {
		de_cb_select_gen(&P, p, gen, X, fx, Y, fy, t, ftp, ad, A, wk, iw, &lv, &li);
	}
	de_block_best(lv, li, red_v, red_i, &bv, &bi, DE_WARPS);   /* its barrier: Y is written */
	for (int j = tid; j < DE_DIM; j += DE_BLOCK)
		bestx[(long long)p * DE_DIM + j] = Y[(long long)bi * DE_DIM + j];
	if (tid == 0)
		de_publish_best(state, hist, p, bv, bi, gen, target, fstar, hist_every, hist_len);
}
#endif
