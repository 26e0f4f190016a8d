/* gp_breed.cu: GP breeding on the GPU (runtime/gp/gp_gpu_breed.c drives
 * it): a warp per offspring plans it (gpb_plan_k) and writes it with its
 * depths (gpb_emit_k), a warp per program encodes it for the interpreter
 * (gpb_encode_warp_k, from the depths; gpb_encode_k, one thread per
 * program, where a program's scratch would not fit shared memory), all
 * with templates/gp/gp_breed.h's code, which the host runs too (with one
 * lane); exclusive prefix sums place every child and its encoding
 * (gpb_scan_up/_mid/_down: block sums, one block over the sums, then each
 * block again with its carry; two lanes at once). Compiled with
 * --fmad=false so that the constants drawn equal the host's. */
#include "common.h"
#include "gp_breed.h"

#define GPB_T 256          /* threads per block of gpb_encode_k */
#define GPB_WT 128         /* threads per block of the warp-per-program kernels */
#define GPB_SCAN_T 1024    /* threads (and elements) per block of the scan */

extern "C" __global__ void __launch_bounds__(GPB_WT)
gpb_plan_k(gpb_params pr, const gp_node *__restrict__ nodes, const uint16_t *__restrict__ depth,
	   const uint32_t *__restrict__ off, const uint32_t *__restrict__ size,
	   const uint32_t *__restrict__ nfn, const double *__restrict__ fit,
	   gpb_plan *__restrict__ plans, uint32_t *__restrict__ sizes)
{
	uint32_t i = (blockIdx.x * GPB_WT + threadIdx.x) >> 5;
	if (i >= (uint32_t)pr.n)
		return;   /* the whole warp */
	gpb_pop pop = { nodes, off, size, nfn, fit, depth };
	gpb_plan pl;
	gpb_plan_one(&pop, &pr, i, &pl);
	if (GPB_LANE == 0) {
		plans[i] = pl;
		sizes[i] = pl.size;
	}
}

/* stats: see gpb_encode_k. A generation of more than cap nodes is not
 * written: stats[4] says so (the host grows the buffers and writes again). */
extern "C" __global__ void __launch_bounds__(GPB_WT)
gpb_emit_k(gpb_params pr, const gp_node *__restrict__ nodes, const uint16_t *__restrict__ depth,
	   const uint32_t *__restrict__ off, const uint32_t *__restrict__ size,
	   const uint32_t *__restrict__ nfn, const gpb_plan *__restrict__ plans,
	   const uint32_t *__restrict__ noff, gp_node *__restrict__ out, uint16_t *__restrict__ out_depth,
	   uint32_t *__restrict__ out_nfn, uint32_t *__restrict__ out_nconst, uint32_t cap,
	   uint32_t *__restrict__ stats)
{
	uint32_t i = (blockIdx.x * GPB_WT + threadIdx.x) >> 5;
	if (noff[pr.n] > cap) {
		if (blockIdx.x == 0 && threadIdx.x == 0)
			stats[4] = 1u;
		return;
	}
	if (i >= (uint32_t)pr.n)
		return;
	gpb_pop pop = { nodes, off, size, nfn, 0, depth };
	uint32_t f, c;
	gpb_emit(&pop, &pr, &plans[i], out + noff[i], out_depth + noff[i], &f, &c);
	if (GPB_LANE == 0) {
		out_nfn[i] = f;
		out_nconst[i] = c;
	}
}

/* stats[0]: the most shared memory a program needs; stats[1]: the deepest
 * stack slot count; stats[2]: 1 if a tree was deeper than GPB_DEPTH_CAP;
 * stats[3]: 1 if a program needs more stack than stack_cap or more shared
 * memory than smem_cap (the interpreter launched next has those): such a
 * program is encoded empty, so the launch is safe, and the host evaluates
 * the generation again with more; stats[4]: set by gpb_emit_k when the
 * generation was not written (nothing is encoded then). */
extern "C" __global__ void __launch_bounds__(GPB_T)
gpb_encode_k(uint32_t n, const gp_node *__restrict__ nodes, const uint32_t *__restrict__ off,
	     const uint32_t *__restrict__ size, const uint32_t *__restrict__ insn_off,
	     const uint32_t *__restrict__ const_off, int is_bool, uint32_t dstride,
	     uint32_t *__restrict__ progs, uint32_t *__restrict__ code, uint32_t *__restrict__ consts,
	     uint32_t stack_cap, uint32_t smem_cap, uint32_t *__restrict__ stats)
{
	uint32_t p = blockIdx.x * GPB_T + threadIdx.x;
	uint32_t smem = 0, bad = 0, over = 0;
	int deep = 1;
	if (stats[4])
		return;
	if (p < n) {
		bad = (uint32_t)gpb_encode(nodes + off[p], size[p], is_bool, dstride, p, insn_off[p],
					   const_off[p], progs, code, consts, &smem, &deep);
		over = (uint32_t)deep > stack_cap || smem > smem_cap;
		if (bad || over) {
			progs[4 * p + 0] = progs[4 * p + 1] = 0;
			progs[4 * p + 2] = progs[4 * p + 3] = 0;
		}
	}
	smem = __reduce_max_sync(0xffffffffu, smem);
	deep = (int)__reduce_max_sync(0xffffffffu, (uint32_t)deep);
	bad = __reduce_or_sync(0xffffffffu, bad);
	over = __reduce_or_sync(0xffffffffu, over);
	if ((threadIdx.x & 31u) == 0) {
		atomicMax(&stats[0], smem);
		atomicMax(&stats[1], (uint32_t)deep);
		if (bad)
			atomicOr(&stats[2], 1u);
		if (over)
			atomicOr(&stats[3], 1u);
	}
}

/* A warp per program: gpb_encode_par with the program's depths and the
 * scratch in shared memory (cap nodes a warp, blockDim.x / 32 warps a
 * block; a larger program is encoded by lane 0 with gpb_encode). stats as
 * gpb_encode_k's. */
extern "C" __global__ void __launch_bounds__(GPB_WT)
gpb_encode_warp_k(uint32_t n, const gp_node *__restrict__ nodes, const uint16_t *__restrict__ depth,
		  const uint32_t *__restrict__ off, const uint32_t *__restrict__ size,
		  const uint32_t *__restrict__ insn_off, const uint32_t *__restrict__ const_off,
		  int is_bool, uint32_t dstride, uint32_t *__restrict__ progs,
		  uint32_t *__restrict__ code, uint32_t *__restrict__ consts, uint32_t stack_cap,
		  uint32_t smem_cap, uint32_t cap, uint32_t *__restrict__ stats)
{
	extern __shared__ __align__(16) unsigned char gpb_dyn[];
	uint32_t p = (blockIdx.x * blockDim.x + threadIdx.x) >> 5;
	if (stats[4] || p >= n)
		return;   /* the whole warp */
	unsigned char *mine = gpb_dyn + (threadIdx.x >> 5) * gpb_warp_bytes(cap);
	gpb_enc_scratch s;
	s.sym = (uint32_t *)mine;
	uint16_t *d = (uint16_t *)(mine + 4u * cap);
	s.end = d + cap;
	s.sp = (int16_t *)(s.end + cap);
	s.fpre = (uint16_t *)(s.sp + cap);
	uint32_t sz = size[p], at = off[p], smem = 0, bad = 0;
	int deep = 1;
	if (sz > cap) {
		if (GPB_LANE == 0)
			bad = (uint32_t)gpb_encode(nodes + at, sz, is_bool, dstride, p, insn_off[p],
						   const_off[p], progs, code, consts, &smem, &deep);
	} else {
		uint32_t dmax = 0;
		for (uint32_t k = GPB_LANE; k < sz; k += 32u) {
			uint16_t v = depth[at + k];
			d[k] = v;
			dmax = v > dmax ? v : dmax;
		}
		bad = gpb_max(dmax) >= (uint32_t)GPB_DEPTH_CAP;
		__syncwarp();
		gpb_encode_par(nodes + at, d, sz, is_bool, dstride, p, insn_off[p], const_off[p], progs,
			       code, consts, &smem, &deep, &s);
	}
	if (GPB_LANE != 0)
		return;
	uint32_t over = (uint32_t)deep > stack_cap || smem > smem_cap;
	if (bad || over) {
		progs[4 * p + 0] = progs[4 * p + 1] = 0;
		progs[4 * p + 2] = progs[4 * p + 3] = 0;
	}
	atomicMax(&stats[0], smem);
	atomicMax(&stats[1], (uint32_t)deep);
	if (bad)
		atomicOr(&stats[2], 1u);
	if (over)
		atomicOr(&stats[3], 1u);
}

/* Exclusive scan of (a, b) over the block's threads; *total: the block's sums. */
static __device__ uint2 gpb_block_scan(uint2 v, uint2 *total)
{
	__shared__ uint2 warp_sum[GPB_SCAN_T / 32];
	uint32_t lane = threadIdx.x & 31u, w = threadIdx.x >> 5;
	uint2 inc = v;
	for (int d = 1; d < 32; d *= 2) {
		uint32_t x = __shfl_up_sync(0xffffffffu, inc.x, d), y = __shfl_up_sync(0xffffffffu, inc.y, d);
		if (lane >= (uint32_t)d) {
			inc.x += x;
			inc.y += y;
		}
	}
	if (lane == 31)
		warp_sum[w] = inc;
	__syncthreads();
	if (w == 0) {
		uint2 s = warp_sum[lane];
		uint2 si = s;
		for (int d = 1; d < 32; d *= 2) {
			uint32_t x = __shfl_up_sync(0xffffffffu, si.x, d), y = __shfl_up_sync(0xffffffffu, si.y, d);
			if (lane >= (uint32_t)d) {
				si.x += x;
				si.y += y;
			}
		}
		warp_sum[lane] = make_uint2(si.x - s.x, si.y - s.y);
		if (lane == 31)
			*total = si;
	}
	__syncthreads();
	uint2 base = warp_sum[w];
	uint2 r = make_uint2(base.x + inc.x - v.x, base.y + inc.y - v.y);
	__syncthreads();
	return r;
}

static __device__ uint2 gpb_load2(const uint32_t *a, const uint32_t *b, uint32_t n, uint32_t i)
{
	return i < n ? make_uint2(a[i], b ? b[i] : 0u) : make_uint2(0u, 0u);
}

/* The whole scan in one block (small populations: one launch, not three):
 * chunks of GPB_SCAN_T in turn, each carrying the sums before it. */
extern "C" __global__ void __launch_bounds__(GPB_SCAN_T)
gpb_scan_one(const uint32_t *__restrict__ a, const uint32_t *__restrict__ b, uint32_t n,
	     uint32_t *__restrict__ oa, uint32_t *__restrict__ ob)
{
	__shared__ uint2 total;
	uint2 carry = make_uint2(0u, 0u);
	for (uint32_t i0 = 0; i0 < n; i0 += GPB_SCAN_T) {
		uint32_t i = i0 + threadIdx.x;
		uint2 ex = gpb_block_scan(gpb_load2(a, b, n, i), &total);
		__syncthreads();
		if (i < n) {
			oa[i] = carry.x + ex.x;
			if (ob)
				ob[i] = carry.y + ex.y;
		}
		carry.x += total.x;
		carry.y += total.y;
		__syncthreads();
	}
	if (threadIdx.x == 0) {
		oa[n] = carry.x;
		if (ob)
			ob[n] = carry.y;
	}
}

extern "C" __global__ void __launch_bounds__(GPB_SCAN_T)
gpb_scan_up(const uint32_t *__restrict__ a, const uint32_t *__restrict__ b, uint32_t n,
	    uint2 *__restrict__ sums)
{
	__shared__ uint2 total;
	uint32_t i = blockIdx.x * GPB_SCAN_T + threadIdx.x;
	gpb_block_scan(gpb_load2(a, b, n, i), &total);
	__syncthreads();
	if (threadIdx.x == 0)
		sums[blockIdx.x] = total;
}

/* One block: sums[k] becomes the exclusive prefix of the block sums; the
 * grand totals go to oa[n] and ob[n]. */
extern "C" __global__ void __launch_bounds__(GPB_SCAN_T)
gpb_scan_mid(uint2 *__restrict__ sums, uint32_t nblocks, uint32_t *__restrict__ oa,
	     uint32_t *__restrict__ ob, uint32_t n)
{
	__shared__ uint2 total;
	uint2 carry = make_uint2(0u, 0u);
	for (uint32_t k0 = 0; k0 < nblocks; k0 += GPB_SCAN_T) {
		uint32_t k = k0 + threadIdx.x;
		uint2 v = k < nblocks ? sums[k] : make_uint2(0u, 0u);
		uint2 ex = gpb_block_scan(v, &total);
		__syncthreads();
		if (k < nblocks)
			sums[k] = make_uint2(carry.x + ex.x, carry.y + ex.y);
		carry.x += total.x;
		carry.y += total.y;
		__syncthreads();
	}
	if (threadIdx.x == 0) {
		oa[n] = carry.x;
		if (ob)
			ob[n] = carry.y;
	}
}

extern "C" __global__ void __launch_bounds__(GPB_SCAN_T)
gpb_scan_down(const uint32_t *__restrict__ a, const uint32_t *__restrict__ b, uint32_t n,
	      const uint2 *__restrict__ sums, uint32_t *__restrict__ oa, uint32_t *__restrict__ ob)
{
	__shared__ uint2 total;
	uint32_t i = blockIdx.x * GPB_SCAN_T + threadIdx.x;
	uint2 ex = gpb_block_scan(gpb_load2(a, b, n, i), &total);
	uint2 base = sums[blockIdx.x];
	if (i < n) {
		oa[i] = base.x + ex.x;
		if (ob)
			ob[i] = base.y + ex.y;
	}
}
