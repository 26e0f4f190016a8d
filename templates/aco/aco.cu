/* aco.cu: MAX-MIN Ant System on the GPU, specialised by the generator
 * (runtime/aco/aco_gpu.c) with the ACO_* #defines below; the defaults let
 * this file compile on its own. Every kernel follows templates/aco/aco_core.h
 * bit for bit (compiled with --fmad=false), so the GPU builds the same tours
 * as the CPU backend for the same seed.
 *
 * Matrices stay on the device: dist (int), heur (eta^beta), tau and choice
 * (tau^alpha * heur), n x n row-major; with candidate lists also a compact
 * copy of each city's candidates (ids and choice values, n x ACO_CAND), so
 * that a construction step reads 2 x ACO_CAND contiguous words.
 *
 * Construction, two kernels:
 *   aco_construct_thread  the seed's baseline: an ant per thread calling
 *                         aco_choose_next (ACO_SCAN_SEQ), its visited bits
 *                         and prefix scratch in global memory.
 *   aco_construct_warp    ours: an ant per warp; lane j holds candidate j's
 *                         weight, a __shfl_up_sync Hillis-Steele scan is
 *                         exactly ACO_SCAN_WARP (chunks of 32 with carry,
 *                         two passes for lists longer than 32), __ballot_sync
 *                         finds the first prefix above r, and the fallback is
 *                         a warp argmax (largest value, lowest index). The
 *                         visited bits live in shared memory; the compact
 *                         candidate table too when it fits (ACO_CAND_SHARED).
 *                         Each lane computes one Philox block every 128
 *                         steps and the step's uniform is shuffled from it.
 * Local search (ACO_LS): an ant per warp (lane 0) calling aco_local_search
 * (templates/aco/aco_ls.h), which returns the length change.
 * Update: evaporation, deposit on both directions of the tour's edges and
 * the clamp are fused into one pass over the cells: cell (i, j) gets the
 * deposit once for each of next(i) == j and prev(i) == j, in the same float
 * order as aco_core.h (t * keep, + deposit, clamp), then choice. */
#include "aco_core.h"
#include "aco_ls.h"

#ifndef ACO_N
#define ACO_N 100
#endif
#ifndef ACO_CAND
#define ACO_CAND 20            /* candidate list length; 0 = full choice */
#endif
#ifndef ACO_ANTS
#define ACO_ANTS 100
#endif
#ifndef ACO_ALPHA_INT
#define ACO_ALPHA_INT 1        /* whole alpha, or -1: powf(tau, ACO_ALPHA) */
#endif
#ifndef ACO_ALPHA
#define ACO_ALPHA 1.000000000e+00f
#endif
#ifndef ACO_BETA_INT
#define ACO_BETA_INT 2         /* heur is computed on the host; for the record */
#endif
#ifndef ACO_BETA
#define ACO_BETA 2.000000000e+00f
#endif
#ifndef ACO_LS
#define ACO_LS 0               /* enum aco_ls_kind */
#endif
#ifndef ACO_LS_CAND
#define ACO_LS_CAND 20
#endif
#ifndef ACO_CAND_SHARED
#define ACO_CAND_SHARED 1      /* compact candidate table in shared memory */
#endif
#ifndef ACO_LS_BLOCK
#define ACO_LS_BLOCK 128       /* threads per block of aco_local (an ant per warp) */
#endif
#ifndef ACO_THREAD_BLOCK
#define ACO_THREAD_BLOCK 256   /* most threads per block of the per-thread kernels */
#endif
/* __launch_bounds__ below always name a minimum of 1 block per SM: with the
 * block size alone, ptxas (CUDA 13) aims at two resident blocks and spills
 * the warp kernel at 32 registers and the local search at 40. */

#if ACO_CAND < 0 || ACO_CAND > ACO_N
#error "ACO_CAND must be 0 (full choice) .. ACO_N"
#endif
#if ACO_CAND == 0
#undef ACO_CAND_SHARED
#define ACO_CAND_SHARED 0
#endif

#define ACO_FULL 0xffffffffu
#define ACO_LEN (ACO_CAND > 0 ? ACO_CAND : ACO_N)          /* choices per step */
#define ACO_WORDS ((ACO_N + 31) / 32)                       /* visited bits */
#define ACO_PLEN ((ACO_LEN + 31) / 32 * 32)                 /* prefix scratch */
#define ACO_CELLS ((long long)ACO_N * ACO_N)

/* ---- the choice matrix ------------------------------------------------------- */

/* choice = aco_choice(tau, heur) for every cell (tau = fill when fill >= 0). */
extern "C" __global__ void __launch_bounds__(256)
aco_choice_all(float *tau, const float *heur, float *choice, float fill)
{
	for (long long i = blockIdx.x * 256LL + threadIdx.x; i < ACO_CELLS; i += 256LL * gridDim.x) {
		float t = fill >= 0.0f ? fill : tau[i];
		if (fill >= 0.0f)
			tau[i] = t;
		choice[i] = aco_choice(t, heur[i], ACO_ALPHA_INT, ACO_ALPHA);
	}
}

/* The compact candidate copy: cchoice[i][k] = choice[i][cand[i][k]]. */
extern "C" __global__ void __launch_bounds__(256)
aco_compact(const float *choice, const int *cand, float *cchoice)
{
#if ACO_CAND > 0
	for (int i = blockIdx.x * 256 + threadIdx.x; i < ACO_N * ACO_CAND; i += 256 * gridDim.x) {
		int city = i / ACO_CAND;
		cchoice[i] = choice[(long long)city * ACO_N + cand[i]];
	}
#else
	(void)choice;
	(void)cand;
	(void)cchoice;
#endif
}

/* ---- construction: an ant per thread (the baseline) -------------------------- */

/* One ant's tour by aco_choose_next with sequential prefix sums. */
extern "C" __global__ void __launch_bounds__(ACO_THREAD_BLOCK, 1)
aco_construct_thread(const int *dist, const float *choice, const int *cand, int *tours,
		     long long *lengths, uint32_t *visited, float *scratch,
		     unsigned long long seed, uint32_t iteration)
{
	int ant = blockIdx.x * blockDim.x + threadIdx.x;
	if (ant >= ACO_ANTS)
		return;
	uint32_t *bits = visited + (long long)ant * ACO_WORDS;
	float *p = scratch + (long long)ant * ACO_PLEN;
	int *tour = tours + (long long)ant * ACO_N;
	for (int w = 0; w < ACO_WORDS; w++)
		bits[w] = 0;
	int cur = aco_start_city(seed, ant, iteration, ACO_N);
	long long len = 0;
	aco_visit(bits, cur);
	tour[0] = cur;
	for (int s = 0; s + 1 < ACO_N; s++) {
		float u = aco_step_uniform(seed, ant, iteration, s);
		int next = aco_choose_next(choice + (long long)cur * ACO_N,
					   ACO_CAND > 0 ? cand + (long long)cur * ACO_CAND : NULL,
					   ACO_LEN, ACO_N, bits, ACO_SCAN_SEQ, u, p);
		aco_visit(bits, next);
		tour[s + 1] = next;
		len += dist[(long long)cur * ACO_N + next];
		cur = next;
	}
	lengths[ant] = len + dist[(long long)cur * ACO_N + tour[0]];
}

/* ---- construction: an ant per warp ------------------------------------------- */

/* Inclusive Hillis-Steele scan over the warp: x_i = x_i + x_{i-off}. */
RT_DEV float aco_warp_scan(float x, int lane)
{
	for (int off = 1; off < 32; off <<= 1) {
		float y = __shfl_up_sync(ACO_FULL, x, off);
		if (lane >= off)
			x = x + y;
	}
	return x;
}

/* Slot j of a row: its city (*city) and weight (0 if visited or past the
 * list). ids NULL: full choice, vals is the choice row. */
RT_DEV float aco_slot(const int *ids, const float *vals, int j, const uint32_t *vis, int *city)
{
	if (j >= ACO_LEN) {
		*city = -1;
		return 0.0f;
	}
	int c = ids ? ids[j] : j;
	*city = c;
	return aco_visited(vis, c) ? 0.0f : vals[j];
}

/* aco_best_unvisited over the warp: the largest choice, the lowest index on
 * ties; every lane gets it (xor butterfly of a total order). */
RT_DEV int aco_warp_best(const float *row, const uint32_t *vis, int lane)
{
	float v = -1.0f;
	int best = -1;
	for (int j = lane; j < ACO_N; j += 32)
		if (!aco_visited(vis, j) && row[j] > v) {
			v = row[j];
			best = j;
		}
	for (int off = 16; off > 0; off >>= 1) {
		float ov = __shfl_xor_sync(ACO_FULL, v, off);
		int oi = __shfl_xor_sync(ACO_FULL, best, off);
		if (ov > v || (ov == v && oi < best)) {
			v = ov;
			best = oi;
		}
	}
	return best;
}

/* One chunk's prefix sums (chunk base, carry from the previous chunk). */
RT_DEV float aco_chunk(const int *ids, const float *vals, int base, float carry,
		       const uint32_t *vis, int lane, float *w, int *city)
{
	*w = aco_slot(ids, vals, base + lane, vis, city);
	float x = aco_warp_scan(*w, lane);
	return base > 0 ? carry + x : x;
}

/* aco_choose_next(..., ACO_SCAN_WARP, ...) by one warp; every lane gets
 * the city. ids/vals: the candidate row (ids NULL: full choice). */
RT_DEV int aco_warp_choose(const int *ids, const float *vals, const float *choice_row,
			   const uint32_t *vis, float u, int lane)
{
	float w, x, carry = 0.0f;
	int city, last = -1;
	for (int base = 0; base < ACO_LEN; base += 32) {
		x = aco_chunk(ids, vals, base, carry, vis, lane, &w, &city);
		carry = __shfl_sync(ACO_FULL, x, 31);
	}
	if (!(carry > 0.0f))
		return aco_warp_best(choice_row, vis, lane);
	float r = u * carry;
	if (ACO_LEN > 32)
		carry = 0.0f;
	for (int base = 0; base < ACO_LEN; base += 32) {
		if (ACO_LEN > 32) {   /* recompute the chunk exactly as the first pass did */
			x = aco_chunk(ids, vals, base, carry, vis, lane, &w, &city);
			carry = __shfl_sync(ACO_FULL, x, 31);
		}
		uint32_t hit = __ballot_sync(ACO_FULL, base + lane < ACO_LEN && w > 0.0f && x > r);
		if (hit)
			return __shfl_sync(ACO_FULL, city, __ffs(hit) - 1);
		uint32_t pos = __ballot_sync(ACO_FULL, w > 0.0f);
		if (pos)
			last = __shfl_sync(ACO_FULL, city, 31 - __clz(pos));
	}
	return last;
}

/* Four Philox words of a lane, as scalars: an array indexed by s & 3 would
 * be put in local memory by the compiler. */
typedef struct aco_words { uint32_t w0, w1, w2, w3; } aco_words;

/* The uniform of step s: lane (s / 4) % 32 holds the Philox block of steps
 * s & ~3 .. +3 (refreshed every 128 steps); word s & 3 is shuffled out. */
RT_DEV float aco_warp_uniform(const aco_words *d, int s)
{
	uint32_t mine = (s & 2) ? ((s & 1) ? d->w3 : d->w2) : ((s & 1) ? d->w1 : d->w0);
	return philox_u01f(__shfl_sync(ACO_FULL, mine, (s >> 2) & 31));
}

/* Every lane's Philox block for steps from s (a multiple of 128). */
RT_DEV void aco_warp_draws(aco_words *d, unsigned long long seed, int ant, uint32_t iteration,
			   int s, int lane)
{
	philox4x32_ctr r = philox_block(seed, (uint64_t)ant,
					aco_draw_n(iteration, ACO_DRAW_STEP, (uint32_t)(s >> 2) + lane));
	d->w0 = r.v[0];
	d->w1 = r.v[1];
	d->w2 = r.v[2];
	d->w3 = r.v[3];
}

/* Loads the compact candidate table into shared memory (whole block). */
RT_DEV void aco_load_cand(const int *ccand, const float *cchoice, int *sids, float *svals)
{
#if ACO_CAND_SHARED
	for (int i = threadIdx.x; i < ACO_N * ACO_CAND; i += blockDim.x) {
		sids[i] = ccand[i];
		svals[i] = cchoice[i];
	}
	__syncthreads();
#else
	(void)ccand;
	(void)cchoice;
	(void)sids;
	(void)svals;
#endif
}

/* Tour position k's city is buffered in lane k % 32; a full (or the last)
 * group of 32 is stored coalesced. */
RT_DEV void aco_warp_store(int *tour, int k, int city, int *mine, int lane)
{
	if (lane == (k & 31))
		*mine = city;
	if ((k & 31) == 31 || k == ACO_N - 1) {
		int at = (k & ~31) + lane;
		if (at <= k)
			tour[at] = *mine;
	}
}

/* One ant per warp (blockDim.x / 32 warps per block). Dynamic shared memory:
 * [candidate ids, choice values (ACO_CAND_SHARED)] [visited bits per warp]. */
extern "C" __global__ void __launch_bounds__(1024, 1)
aco_construct_warp(const int *dist, const float *choice, const int *ccand, const float *cchoice,
		   int *tours, long long *lengths, unsigned long long seed, uint32_t iteration)
{
	extern __shared__ uint32_t aco_smem[];
	int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
	int *sids = (int *)aco_smem;
	float *svals = (float *)(aco_smem + (ACO_CAND_SHARED ? ACO_N * ACO_CAND : 0));
	uint32_t *vis = aco_smem + (ACO_CAND_SHARED ? 2 * ACO_N * ACO_CAND : 0) + warp * ACO_WORDS;
	aco_load_cand(ccand, cchoice, sids, svals);
	int ant = blockIdx.x * (blockDim.x >> 5) + warp;
	if (ant >= ACO_ANTS)
		return;
	const int *ids = ACO_CAND_SHARED ? sids : ccand;
	const float *vals = ACO_CAND_SHARED ? svals : cchoice;
	int *tour = tours + (long long)ant * ACO_N;
	for (int w = lane; w < ACO_WORDS; w += 32)
		vis[w] = 0;
	__syncwarp();
	int cur = aco_start_city(seed, ant, iteration, ACO_N), start = cur, mine = cur;
	long long len = 0;
	aco_words d;
	if (lane == 0)
		aco_visit(vis, cur);
	__syncwarp();
	for (int s = 0; s + 1 < ACO_N; s++) {
		if ((s & 127) == 0)
			aco_warp_draws(&d, seed, ant, iteration, s, lane);
		float u = aco_warp_uniform(&d, s);
		const float *row = choice + (long long)cur * ACO_N;
		int next = ACO_CAND > 0
			? aco_warp_choose(ids + cur * ACO_CAND, vals + cur * ACO_CAND, row, vis, u, lane)
			: aco_warp_choose(NULL, row, row, vis, u, lane);
		if (lane == 0)
			aco_visit(vis, next);
		__syncwarp();
		aco_warp_store(tour, s + 1, next, &mine, lane);
		len += dist[(long long)cur * ACO_N + next];
		cur = next;
	}
	if (ACO_N == 1)
		aco_warp_store(tour, 0, start, &mine, lane);
	if (lane == 0)
		lengths[ant] = len + dist[(long long)cur * ACO_N + start];
}

/* ---- local search -------------------------------------------------------------- */

/* An ant per warp, on its lane 0: aco_local_search on its tour (nn: n x
 * ACO_LS_CAND nearest neighbours), the length adjusted. Why not an ant per
 * thread: the 32 searches of a warp diverge from their first move, so the
 * warp runs them one after another; measured on an H100 (n = 1000, 1024
 * ants, 2-opt) an ant per warp is 10x faster than an ant per thread. */
extern "C" __global__ void __launch_bounds__(ACO_LS_BLOCK, 1)
aco_local(const int *dist, const int *nn, int *tours, long long *lengths, int *work,
	  unsigned long long seed, uint32_t iteration)
{
#if ACO_LS
	int ant = (int)((blockIdx.x * blockDim.x + threadIdx.x) >> 5);
	if (ant >= ACO_ANTS || (threadIdx.x & 31) != 0)
		return;
	/* the length is measured again, not trusted to the search's sum */
	aco_local_search(ACO_LS, ACO_N, dist, nn, ACO_LS_CAND, ACO_LS_CAND,
			 tours + (long long)ant * ACO_N,
			 work + (long long)ant * ACO_LS_WORK_INTS(ACO_N), seed, ant, iteration);
	lengths[ant] = aco_tour_length(dist, ACO_N, tours + (long long)ant * ACO_N);
#else
	(void)dist;
	(void)nn;
	(void)tours;
	(void)lengths;
	(void)work;
	(void)seed;
	(void)iteration;
#endif
}

/* ---- iteration best, saved tours ---------------------------------------------- */

/* (length, ant) a before b: shorter, then lower ant. */
RT_DEV int aco_before(long long la, int aa, long long lb, int ab)
{
	return la < lb || (la == lb && aa < ab);
}

/* The shortest tour's (length, lowest ant) into out[0], out[1]; one block of 1024. */
extern "C" __global__ void __launch_bounds__(1024, 1)
aco_best(const long long *lengths, long long *out)
{
	__shared__ long long sl[32];
	__shared__ int sa[32];
	long long l = 0x7fffffffffffffffLL;
	int a = 0x7fffffff;
	for (int i = threadIdx.x; i < ACO_ANTS; i += blockDim.x)
		if (aco_before(lengths[i], i, l, a)) {
			l = lengths[i];
			a = i;
		}
	for (int off = 16; off > 0; off >>= 1) {
		long long ol = __shfl_xor_sync(ACO_FULL, l, off);
		int oa = __shfl_xor_sync(ACO_FULL, a, off);
		if (aco_before(ol, oa, l, a)) {
			l = ol;
			a = oa;
		}
	}
	if ((threadIdx.x & 31) == 0) {
		sl[threadIdx.x >> 5] = l;
		sa[threadIdx.x >> 5] = a;
	}
	__syncthreads();
	if (threadIdx.x == 0) {
		for (int w = 1; w < (int)(blockDim.x >> 5); w++)
			if (aco_before(sl[w], sa[w], l, a)) {
				l = sl[w];
				a = sa[w];
			}
		out[0] = l;
		out[1] = a;
	}
}

/* Copies ant's tour into slot `slot`. */
extern "C" __global__ void __launch_bounds__(256)
aco_save(const int *tours, int *slots, int ant, int slot)
{
	for (int k = blockIdx.x * 256 + threadIdx.x; k < ACO_N; k += 256 * gridDim.x)
		slots[(long long)slot * ACO_N + k] = tours[(long long)ant * ACO_N + k];
}

/* ---- pheromone update ---------------------------------------------------------- */

/* links[2c] = the city after c on the tour, links[2c + 1] the one before. */
extern "C" __global__ void __launch_bounds__(256)
aco_links(const int *tour, int *links)
{
	for (int k = blockIdx.x * 256 + threadIdx.x; k < ACO_N; k += 256 * gridDim.x) {
		int a = tour[k], b = tour[k + 1 < ACO_N ? k + 1 : 0];
		links[2 * a] = b;
		links[2 * b + 1] = a;
	}
}

/* Evaporate, deposit on the tour's edges (both directions), clamp, choice. */
extern "C" __global__ void __launch_bounds__(256)
aco_update(float *tau, const float *heur, float *choice, const int *links, float keep,
	   float deposit, float tau_min, float tau_max)
{
	for (long long i = blockIdx.x * 256LL + threadIdx.x; i < ACO_CELLS; i += 256LL * gridDim.x) {
		int row = (int)(i / ACO_N), col = (int)(i % ACO_N);
		float t = aco_evaporate(tau[i], keep);
		if (links[2 * row] == col)
			t = t + deposit;
		if (links[2 * row + 1] == col)
			t = t + deposit;
		t = aco_clamp(t, tau_min, tau_max);
		tau[i] = t;
		choice[i] = aco_choice(t, heur[i], ACO_ALPHA_INT, ACO_ALPHA);
	}
}

/* ---- lambda-branching ---------------------------------------------------------- */

/* A warp per city m; L = ACO_CAND candidates (full choice: the n - 1 other
 * cities, in index order). Definition (the CPU's aco_cpu.c does the same):
 *   lo = min tau[m][c], hi = max tau[m][c] over ALL L candidates c;
 *   cutoff = lo + lambda * (hi - lo)   (float, no contraction);
 *   count(m) = #{candidates c : tau[m][c] > cutoff};
 * *count += count(m) over all m (integers). */
extern "C" __global__ void __launch_bounds__(256)
aco_branching(const float *tau, const int *cand, float lambda, unsigned long long *count)
{
	int lane = threadIdx.x & 31;
	int m = blockIdx.x * 8 + (threadIdx.x >> 5);
	if (m >= ACO_N)
		return;
	const float *row = tau + (long long)m * ACO_N;
	const int L = ACO_CAND > 0 ? ACO_CAND : ACO_N - 1;
	float lo = 3.402823466e+38f, hi = -3.402823466e+38f;
	for (int k = lane; k < L; k += 32) {
		int c = ACO_CAND > 0 ? cand[(long long)m * ACO_CAND + k] : (k < m ? k : k + 1);
		float t = row[c];
		lo = t < lo ? t : lo;
		hi = t > hi ? t : hi;
	}
	for (int off = 16; off > 0; off >>= 1) {
		float ol = __shfl_xor_sync(ACO_FULL, lo, off), oh = __shfl_xor_sync(ACO_FULL, hi, off);
		lo = ol < lo ? ol : lo;
		hi = oh > hi ? oh : hi;
	}
	float cutoff = lo + lambda * (hi - lo);
	unsigned n = 0;
	for (int k = lane; k < L; k += 32) {
		int c = ACO_CAND > 0 ? cand[(long long)m * ACO_CAND + k] : (k < m ? k : k + 1);
		n += row[c] > cutoff;
	}
	for (int off = 16; off > 0; off >>= 1)
		n += __shfl_xor_sync(ACO_FULL, n, off);
	if (lane == 0)
		atomicAdd(count, (unsigned long long)n);
}
