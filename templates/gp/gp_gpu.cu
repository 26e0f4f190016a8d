/* gp_gpu.cu: the generated CUDA interpreters of packed GP populations (host
 * side: runtime/gp/gp_gpu.c), one template for every configuration:
 *
 *   GPG_FORM 0  RPN: postfix nodes, a stack with a run-time stack pointer
 *               (GPG_VEC 1 with GPG_REGS 0 is the seed's BlockGP 1-D baseline:
 *               one block per program, program in shared memory, the stack in
 *               local memory);
 *   GPG_FORM 1  LGP, the seed's prefix linear form with operands X / C / S,
 *               run with the top of the stack cached in registers and every
 *               other stack slot resolved on the host (see below).
 *
 * Second stack dimension: each thread evaluates GPG_VEC = GPG_W * GPG_NV
 * fitness cases (or 32-case words) per instruction: GPG_NV vectors of GPG_W
 * consecutive cases loaded as float2/float3/float4 (uint2/uint4 for Boolean
 * words); vector j of thread t starts at case (j * GPG_THREADS + t) * GPG_W of
 * the pass, so each load instruction of a warp is contiguous. The lowest
 * GPG_REGS (0-4) stack slots live in registers (uniform branches pick them);
 * the rest in a local array of GPG_STACK - GPG_REGS slots.
 *
 * Why host-resolved slots for LGP: a straight-line program's stack pointer is
 * known before it runs, so gp_gpu.c rewrites every S operand into either T
 * (the top, in a register) or "slot k" and marks instructions with no S
 * operand as pushes of the old top into slot k. The interpreter keeps no
 * stack pointer and touches stack memory only for pushes and for the second
 * S operand of an S,S instruction.
 *
 * The grid is (program, chunk of cases): block (p, c) runs program p over
 * GPG_THREADS * GPG_VEC * passes cases and reduces its cases' error into
 * partial[p * nchunks + c] in a fixed order (double for MSE, exact integers
 * for counts); gpg_finish adds a program's chunks in order. So results do not
 * depend on scheduling, and GPU outputs are those of the CPU bit for bit
 * (gp_math.h, IEEE division, --fmad=false); only MSE summation order differs.
 *
 * Linear scaling (GPG_LS 1, MSE only; runtime/gp/gp_scale.h, the method in
 * gp_fitness.h): raw sums of f and f^2 would cancel catastrophically when
 * an output's mean is large beside its spread, so each block shifts its
 * outputs by one of them, k = thread 0's first case of the first pass,
 * broadcast through shared memory (one __syncthreads, no extra pass), and
 * adds d = f - k in double: sum d, sum d^2, sum d*yc and sum yc with yc =
 * (double)y - ymean (gp_ls_acc). Thread 0 turns the block's sums into its
 * moments (gp_ls_moments: count, mean f, mean yc, M2, co-moment) at
 * partial[GP_LS_NM * (p * nchunks + c) + k]; gpg_finish merges a program's
 * chunks in order with gp_ls_merge (Chan et al.) and scores them with
 * gp_ls_mse: the CPU evaluators' functions, so both give a float64
 * two-pass result and agree to rounding.
 *
 * Generator #defines (runtime/gp/gp_gpu.c writes them; defaults let the file be
 * compiled on its own): GPG_FORM GPG_BOOL GPG_FIT GPG_LS GPG_W GPG_NV GPG_REGS
 * GPG_STACK GPG_THREADS GPG_XREG GPG_TOS GPG_MAXAR GPG_NCLASSES, GP_USE_<op>, and
 * GPG_DISPATCH(X): X(ENUM, arity, expression) for the problem's functions
 * only, taken from the table in gp_ops.h. */
#include "common.h"
#include "gp_ops.h"
#include "gp_fitness.h"

#ifndef GPG_FORM
#define GPG_FORM 1
#endif
#ifndef GPG_BOOL
#define GPG_BOOL 0
#endif
#ifndef GPG_FIT
#define GPG_FIT 0
#endif
#ifndef GPG_LS
#define GPG_LS 0
#endif
#ifndef GPG_W
#define GPG_W 4
#endif
#ifndef GPG_NV
#define GPG_NV 1
#endif
#ifndef GPG_REGS
#define GPG_REGS 1
#endif
#ifndef GPG_STACK
#define GPG_STACK 8
#endif
#ifndef GPG_THREADS
#define GPG_THREADS 256
#endif
#ifndef GPG_XREG
#define GPG_XREG 0
#endif
#ifndef GPG_MAXAR
#define GPG_MAXAR 3
#endif
#ifndef GPG_TOS
#define GPG_TOS 1
#endif
#ifndef GPG_NCLASSES
#define GPG_NCLASSES 2
#endif
#ifndef GPG_DISPATCH
#define GPG_DISPATCH_ALL_(E, name, ar, expr) X(E, ar, expr)
#if GPG_BOOL
#define GPG_DISPATCH(X) GP_BOOL_OPS(GPG_DISPATCH_ALL_)
#else
#define GPG_DISPATCH(X) GP_FLOAT_OPS(GPG_DISPATCH_ALL_)
#endif
#endif

#define GPG_VEC (GPG_W * GPG_NV)
/* Stack slots in local memory (at least one, so the array is never empty). */
#define GPG_MEMSLOTS (GPG_STACK > GPG_REGS ? GPG_STACK - GPG_REGS : 1)

/* Instruction word x of an LGP instruction (gp_gpu.c encodes it):
 * op (bits 0-7), operand kinds 2 bits each (bits 8-13), operand count (bits
 * 14-15), push flag (bit 16), push slot (bits 20-31); y, z, w: operands. */
#define GPG_K_SLOT 0u   /* arg: stack slot */
#define GPG_K_X 1u      /* arg: element offset of the input's column */
#define GPG_K_C 2u      /* arg: index into the program's constants */
#define GPG_K_TOP 3u    /* the top of the stack (register) */

#if defined(__CUDACC__)

#if GPG_BOOL
typedef uint32_t gpg_t;
#else
typedef float gpg_t;
#endif

/* The cases a thread holds: element [j * GPG_W + w] is case
 * (j * GPG_THREADS + t) * GPG_W + w of the pass. */
struct gpg_v {
	gpg_t v[GPG_VEC];
};

/* sin and cos as gp_sinf / gp_cosf compute them, with the rare exact
 * reduction out of line so that GPG_VEC inlined copies stay small. */
#if GP_USE_SIN || GP_USE_COS
static __device__ __forceinline__ float gpg_trig_big(float x, uint32_t qadd)
{
	return gp_trig_big_(x, qadd);
}
RT_DEV float gpg_trig(float x, uint32_t qadd)
{
	return x <= GP_TRIG_FAST_MAX && x >= -GP_TRIG_FAST_MAX ? gp_trig_fast_(x, qadd)
							       : gpg_trig_big(x, qadd);
}
#undef GP_SIN
#undef GP_COS
#define GP_SIN(x) gpg_trig(x, 0u)
#define GP_COS(x) gpg_trig(x, 1u)
#endif

RT_DEV gpg_v gpg_load(const gpg_t *__restrict__ col)
{
	gpg_v r;
	const int t = threadIdx.x;
#pragma unroll
	for (int j = 0; j < GPG_NV; j++) {
		const gpg_t *p = col + (j * GPG_THREADS + t) * GPG_W;
#if GPG_W == 4 && GPG_BOOL
		uint4 q = __ldg((const uint4 *)p);
		r.v[j * 4 + 0] = q.x; r.v[j * 4 + 1] = q.y; r.v[j * 4 + 2] = q.z; r.v[j * 4 + 3] = q.w;
#elif GPG_W == 4
		float4 q = __ldg((const float4 *)p);
		r.v[j * 4 + 0] = q.x; r.v[j * 4 + 1] = q.y; r.v[j * 4 + 2] = q.z; r.v[j * 4 + 3] = q.w;
#elif GPG_W == 2 && GPG_BOOL
		uint2 q = __ldg((const uint2 *)p);
		r.v[j * 2 + 0] = q.x; r.v[j * 2 + 1] = q.y;
#elif GPG_W == 2
		float2 q = __ldg((const float2 *)p);
		r.v[j * 2 + 0] = q.x; r.v[j * 2 + 1] = q.y;
#else
#pragma unroll
		for (int w = 0; w < GPG_W; w++)
			r.v[j * GPG_W + w] = __ldg(p + w);
#endif
	}
	return r;
}

RT_DEV gpg_v gpg_splat(gpg_t c)
{
	gpg_v r;
#pragma unroll
	for (int l = 0; l < GPG_VEC; l++)
		r.v[l] = c;
	return r;
}

/* r = op(a, b, c) on every case; only the problem's functions are cases. */
RT_DEV gpg_v gpg_apply(uint32_t op, const gpg_v &A, const gpg_v &B, const gpg_v &C)
{
	gpg_v R;
	switch (op) {
/* a, b, c in the table's expressions name lane l of the operands. */
#define a (A.v[l])
#define b (B.v[l])
#define c (C.v[l])
#define GPG_CASE_(E, ar, expr)                                               \
	case GP_OP_##E:                                                      \
		_Pragma("unroll") for (int l = 0; l < GPG_VEC; l++)          \
			R.v[l] = (expr);                                     \
		break;
		GPG_DISPATCH(GPG_CASE_)
#undef a
#undef b
#undef c
#undef GPG_CASE_
	default:
		R = A;
		break;
	}
	return R;
}

/* The stack: slots below GPG_REGS in registers, the others in local memory.
 * The slot index is the same in every thread of the block (one program per
 * block), so the branches are uniform. */
struct gpg_stack {
	gpg_v r0, r1, r2, r3;
	gpg_v mem[GPG_MEMSLOTS];

	__device__ __forceinline__ gpg_v get(uint32_t s)
	{
		if (GPG_REGS > 0 && s == 0)
			return r0;
		if (GPG_REGS > 1 && s == 1)
			return r1;
		if (GPG_REGS > 2 && s == 2)
			return r2;
		if (GPG_REGS > 3 && s == 3)
			return r3;
		return mem[s - GPG_REGS];
	}
	__device__ __forceinline__ void set(uint32_t s, const gpg_v &v)
	{
		if (GPG_REGS > 0 && s == 0)
			r0 = v;
		else if (GPG_REGS > 1 && s == 1)
			r1 = v;
		else if (GPG_REGS > 2 && s == 2)
			r2 = v;
		else if (GPG_REGS > 3 && s == 3)
			r3 = v;
		else
			mem[s - GPG_REGS] = v;
	}
};

#if GPG_FORM == 1
/* One LGP operand. */
RT_DEV gpg_v gpg_operand(uint32_t kind, uint32_t arg, const gpg_v &top, gpg_stack &stk,
			 const gpg_t *__restrict__ x, const gpg_t *__restrict__ consts_s,
			 const gpg_v &xr)
{
	if (kind == GPG_K_TOP)
		return top;
	if (kind == GPG_K_X) {
#if GPG_XREG
		(void)arg;
		return xr;
#else
		(void)xr;
		return gpg_load(x + arg);
#endif
	}
	if (kind == GPG_K_C)
		return gpg_splat(consts_s[arg]);
	return stk.get(arg);
}
#endif

/* One program (code_s, consts_s in shared memory) on the thread's cases of
 * the pass whose first case is x + base. */
RT_DEV gpg_v gpg_run(const void *code_s, uint32_t ncode, const gpg_t *consts_s,
		     const gpg_t *__restrict__ x, gpg_stack &stk)
{
#if GPG_FORM == 1
	const uint4 *code = (const uint4 *)code_s;
	gpg_v top, xr;
#if GPG_XREG
	xr = gpg_load(x);
#endif
	top = gpg_splat((gpg_t)0);
	for (uint32_t i = 0; i < ncode; i++) {
		uint4 w = code[i];
		uint32_t op = w.x & 0xffu, nops = (w.x >> 14) & 3u;
		gpg_v a, b, c;
		a = gpg_operand((w.x >> 8) & 3u, w.y, top, stk, x, consts_s, xr);
		if (GPG_MAXAR > 1 && nops > 1)
			b = gpg_operand((w.x >> 10) & 3u, w.z, top, stk, x, consts_s, xr);
		if (GPG_MAXAR > 2 && nops > 2)
			c = gpg_operand((w.x >> 12) & 3u, w.w, top, stk, x, consts_s, xr);
		gpg_v r = gpg_apply(op, a, b, c);
		if (w.x & 0x10000u)
			stk.set(w.x >> 20, top);
		top = r;
	}
	(void)consts_s;
	return top;
#else
	/* RPN: x = op | arity << 8; y = element offset (input) or the value's
	 * bits (constant). GPG_XREG: the one input is loaded once per case.
	 * GPG_TOS: the top of the stack stays in a register; a push stores the
	 * old top at slot sp (slot 0 takes the initial junk), a function pops
	 * its other operands from memory: one stack access per node instead of
	 * up to four. The stack is still the seed's 1-D run-time stack. */
	const uint2 *code = (const uint2 *)code_s;
	uint32_t sp = 0;
	(void)consts_s;
#if GPG_XREG
	const gpg_v xr = gpg_load(x);
#define GPG_XLOAD_(off) ((void)(off), xr)
#else
#define GPG_XLOAD_(off) gpg_load(x + (off))
#endif
#if GPG_TOS
	gpg_v top = gpg_splat((gpg_t)0);
	for (uint32_t i = 0; i < ncode; i++) {
		uint2 w = code[i];
		uint32_t op = w.x & 0xffu;
		if (op >= GP_OP_COUNT) {
			stk.set(sp++, top);
			if (op == GP_TERM_VAR)
				top = GPG_XLOAD_(w.y);
			else
#if GPG_BOOL
				top = gpg_splat(w.y);
#else
				top = gpg_splat(__uint_as_float(w.y));
#endif
		} else {
			uint32_t ar = (w.x >> 8) & 3u;
			gpg_v a, b, c;
			if (GPG_MAXAR > 2 && ar > 2) {
				c = top;
				b = stk.get(--sp);
				a = stk.get(--sp);
			} else if (GPG_MAXAR > 1 && ar > 1) {
				b = top;
				a = stk.get(--sp);
			} else {
				a = top;
			}
			top = gpg_apply(op, a, b, c);
		}
	}
	return top;
#else
	for (uint32_t i = 0; i < ncode; i++) {
		uint2 w = code[i];
		uint32_t op = w.x & 0xffu;
		if (op == GP_TERM_VAR) {
			stk.set(sp++, GPG_XLOAD_(w.y));
		} else if (op == GP_TERM_CONST) {
#if GPG_BOOL
			stk.set(sp++, gpg_splat(w.y));
#else
			stk.set(sp++, gpg_splat(__uint_as_float(w.y)));
#endif
		} else {
			uint32_t ar = (w.x >> 8) & 3u;
			gpg_v a, b, c;
			if (GPG_MAXAR > 2 && ar > 2)
				c = stk.get(--sp);
			if (GPG_MAXAR > 1 && ar > 1)
				b = stk.get(--sp);
			a = stk.get(--sp);
			stk.set(sp++, gpg_apply(op, a, b, c));
		}
	}
	return stk.get(0);
#endif
#undef GPG_XLOAD_
#endif
}

/* Block sum of one value per thread, in a fixed order; thread 0 gets it. */
template <typename A> RT_DEV A gpg_block_sum(A v, A *red_s)
{
#pragma unroll
	for (int o = 16; o > 0; o >>= 1)
		v += __shfl_down_sync(0xffffffffu, v, o);
	if ((threadIdx.x & 31) == 0)
		red_s[threadIdx.x >> 5] = v;
	__syncthreads();
	A s = 0;
	if (threadIdx.x == 0)
		for (int k = 0; k < GPG_THREADS / 32; k++)
			s += red_s[k];
	return s;
}

#if GPG_FIT == 0 && GPG_LS
/* Block sums of the four shifted sums v (linear scaling) in one go, in a
 * fixed order (as gpg_block_sum; one barrier, not four); thread 0 gets
 * them in t. */
RT_DEV void gpg_block_sum4(const double v[4], double t[4], double (*red_s)[GPG_THREADS / 32])
{
#pragma unroll
	for (int k = 0; k < 4; k++) {
		double x = v[k];
#pragma unroll
		for (int o = 16; o > 0; o >>= 1)
			x += __shfl_down_sync(0xffffffffu, x, o);
		if ((threadIdx.x & 31) == 0)
			red_s[k][threadIdx.x >> 5] = x;
	}
	__syncthreads();
#pragma unroll
	for (int k = 0; k < 4; k++) {
		t[k] = 0.0;
		if (threadIdx.x == 0)
			for (int w = 0; w < GPG_THREADS / 32; w++)
				t[k] += red_s[k][w];
	}
}
#endif

/* progs[p] = (first instruction, instructions, first constant, constants).
 * x: ninputs columns of dstride elements (cases or words); y: targets.
 * Block (blockIdx.x = program, blockIdx.y = chunk) covers passes *
 * GPG_THREADS * GPG_VEC elements from chunk * that. n: cases (words) scored. */
extern "C" __global__ void __launch_bounds__(GPG_THREADS)
gpg_eval(const uint4 *__restrict__ progs, const void *__restrict__ code,
	 const gpg_t *__restrict__ consts, const gpg_t *__restrict__ x,
	 const gpg_t *__restrict__ y, double *__restrict__ partial, uint32_t passes,
	 uint32_t n, uint32_t last_mask, double ymean)
{
	extern __shared__ uint4 gpg_smem[];
	const uint32_t p = blockIdx.x, chunk = blockIdx.y;
	const uint4 pr = progs[p];
	const uint32_t isz = GPG_FORM == 1 ? 16u : 8u;
	const uint32_t code_words = (pr.y * isz + 15u) / 16u;
	const uint4 *csrc = (const uint4 *)((const char *)code + (size_t)pr.x * isz);
	gpg_t *consts_s = (gpg_t *)(gpg_smem + code_words);
	/* Program and constants into shared memory (code offsets are 16-byte
	 * aligned: the host pads each program). */
	for (uint32_t k = threadIdx.x; k < code_words; k += GPG_THREADS)
		gpg_smem[k] = csrc[k];
	for (uint32_t k = threadIdx.x; k < pr.w; k += GPG_THREADS)
		consts_s[k] = consts[pr.z + k];
	__syncthreads();
	(void)last_mask;
	(void)ymean;   /* linear scaling only */

	gpg_stack stk;
#if GPG_FIT == 0 && GPG_LS
	double ls[4] = {0.0, 0.0, 0.0, 0.0}, shift = 0.0;
	__shared__ gpg_t shift_s;
#elif GPG_FIT == 0
	double acc = 0.0;
#else
	unsigned long long acc = 0;
#endif
	const uint32_t pass_elems = GPG_THREADS * GPG_VEC;
	for (uint32_t ps = 0; ps < passes; ps++) {
		const uint32_t base = (chunk * passes + ps) * pass_elems;
		if (base >= n)
			break;
		gpg_v out = gpg_run(gpg_smem, pr.y, consts_s, x + base, stk);
		gpg_v tgt = gpg_load(y + base);
#if GPG_FIT == 0 && GPG_LS
		if (ps == 0) {   /* the block's shift: its first case's output (base < n) */
			if (threadIdx.x == 0)
				shift_s = out.v[0];
			__syncthreads();
			shift = (double)shift_s;
		}
#endif
#pragma unroll
		for (int j = 0; j < GPG_NV; j++) {
#pragma unroll
			for (int w = 0; w < GPG_W; w++) {
				const uint32_t e = base + (j * GPG_THREADS + threadIdx.x) * GPG_W + w;
				const int l = j * GPG_W + w;
#if GPG_FIT == 0 && GPG_LS
				gp_ls_acc(ls, e < n ? (double)out.v[l] : shift,
					  e < n ? (double)tgt.v[l] - ymean : 0.0, shift);
#elif GPG_FIT == 0
				double d = (double)out.v[l] - (double)tgt.v[l];
				acc += e < n ? d * d : 0.0;
#elif GPG_FIT == 1
				float r = rintf(out.v[l]);
				r = r < 0.0f ? 0.0f : r;
				r = r > (float)(GPG_NCLASSES - 1) ? (float)(GPG_NCLASSES - 1) : r;
				acc += (e < n && !(r == tgt.v[l])) ? 1u : 0u;
#else
				uint32_t m = e + 1 < n ? 0xffffffffu : e + 1 == n ? last_mask : 0u;
				acc += __popc((out.v[l] ^ tgt.v[l]) & m);
#endif
			}
		}
	}
#if GPG_FIT == 0 && GPG_LS
	__shared__ double red_s[4][GPG_THREADS / 32];
	double t[4];
	gpg_block_sum4(ls, t, red_s);
	if (threadIdx.x == 0) {
		/* the block's cases: from its first to n or the chunk's end */
		const uint32_t first = chunk * passes * pass_elems;
		const uint32_t end = n - first < passes * pass_elems ? n : first + passes * pass_elems;
		gp_ls_moments(first < n ? (double)(end - first) : 0.0, shift, t,
			      partial + GP_LS_NM * ((size_t)p * gridDim.y + chunk));
	}
#else
#if GPG_FIT == 0
	__shared__ double red_s[GPG_THREADS / 32];
	double s = gpg_block_sum<double>(acc, red_s);
#else
	__shared__ unsigned long long red_s[GPG_THREADS / 32];
	double s = (double)gpg_block_sum<unsigned long long>(acc, red_s);
#endif
	if (threadIdx.x == 0)
		partial[(size_t)p * gridDim.y + chunk] = s;
#endif
}

/* fitness[p] = the sum of program p's chunks, in order; MSE divided by
 * ncases, NaN and inf made +inf (as the CPU evaluators do). Linear
 * scaling: the chunks' moments merged in order (gp_ls_merge), scored with
 * the data set's syc and syy (gp_ls_mse; unused otherwise). */
extern "C" __global__ void gpg_finish(const double *__restrict__ partial, double *fitness,
				      uint32_t nprogs, uint32_t nchunks, double ncases,
				      double syc, double syy)
{
	uint32_t p = blockIdx.x * blockDim.x + threadIdx.x;
	if (p >= nprogs)
		return;
#if GPG_FIT == 0 && GPG_LS
	double m[GP_LS_NM] = {0.0, 0.0, 0.0, 0.0, 0.0};
	for (uint32_t c = 0; c < nchunks; c++)
		gp_ls_merge(m, partial + GP_LS_NM * ((size_t)p * nchunks + c));
	fitness[p] = gp_ls_mse(m, syc, syy, ncases);
	return;
#else
	(void)syc;
	(void)syy;
#endif
	double s = 0.0;
	for (uint32_t c = 0; c < nchunks; c++)
		s += partial[(size_t)p * nchunks + c];
#if GPG_FIT == 0
	s = ncases > 0.0 ? s / ncases : 0.0;
	if (!(s <= 1.7976931348623157e308))
		s = 1.0 / 0.0;
#else
	(void)ncases;
#endif
	fitness[p] = s;
}

#endif
