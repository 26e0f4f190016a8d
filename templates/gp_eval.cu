/* gp_eval.cu: the CUDA interpreter for a packed LGP population on a
 * two-dimensional stack (Chitty's Listing 2 form): one thread block per
 * program, the program and its constants in shared memory, each thread
 * evaluating GP_VEC fitness cases per instruction (float4 / uint4 loads),
 * the top of the stack in registers, the fitness reduced in the kernel.
 *
 * Specialised by runtime/gp_gen.c: GP_SPECIALISED with GP_USE_<OP> 0/1 keeps
 * only the problem's operations in the dispatch; GP_FITNESS (enum
 * gp_fitness_kind), GP_VEC, GP_STACK, GP_THREADS, GP_MAX_CODE and
 * GP_MAX_CONSTS size it. Without them it compiles with every operation.
 * Operations come from gp_ops.h (one table for every backend); compile with
 * --fmad=false so that results match the CPU bit for bit (MSE sums differ by
 * summation order only).
 *
 * Data layout (the host code, issue 4, provides it): x holds ninputs columns
 * of `stride` values (floats, or 32-case words for Boolean problems), stride
 * a multiple of GP_VEC and columns 16-byte aligned, zero padded; y is the
 * target (float value or class index; Boolean: target words). The host
 * checks that every program's stack depth is at most GP_STACK. */
#include "gp_layout.h"
#include "gp_ops.h"
#include "gp_fitness.h"

#if !defined(GP_FITNESS)
#  define GP_FITNESS 0
#endif
#if !defined(GP_VEC)
#  define GP_VEC 4
#endif
#if !defined(GP_STACK)
#  define GP_STACK 32
#endif
#if !defined(GP_THREADS)
#  define GP_THREADS 256
#endif
#if !defined(GP_MAX_CODE)
#  define GP_MAX_CODE 1024
#endif
#if !defined(GP_MAX_CONSTS)
#  define GP_MAX_CONSTS 1024
#endif

#if defined(GP_SPECIALISED)
#  define GP_ENABLED_(E) GP_USE_##E
#else
#  define GP_ENABLED_(E) 1
#endif

#if GP_FITNESS == 2
typedef uint32_t gp_val;
#  define GP_OPS_ GP_BOOL_OPS
#else
typedef float gp_val;
#  define GP_OPS_ GP_FLOAT_OPS
#endif

#if defined(__CUDACC__)

/* GP_VEC consecutive values from p (aligned to GP_VEC values). */
RT_DEV void gp_load_(const gp_val *__restrict__ p, gp_val *v)
{
#if GP_VEC == 4
	uint4 w = *reinterpret_cast<const uint4 *>(p);
	v[0] = *reinterpret_cast<gp_val *>(&w.x);
	v[1] = *reinterpret_cast<gp_val *>(&w.y);
	v[2] = *reinterpret_cast<gp_val *>(&w.z);
	v[3] = *reinterpret_cast<gp_val *>(&w.w);
#elif GP_VEC == 2
	uint2 w = *reinterpret_cast<const uint2 *>(p);
	v[0] = *reinterpret_cast<gp_val *>(&w.x);
	v[1] = *reinterpret_cast<gp_val *>(&w.y);
#else
#pragma unroll
	for (int j = 0; j < GP_VEC; j++)
		v[j] = p[j];
#endif
}

/* A constant operand: the float itself, or all ones / zeros for Boolean problems. */
RT_DEV gp_val gp_const_(float c)
{
#if GP_FITNESS == 2
	return c != 0.0f ? ~0u : 0u;
#else
	return c;
#endif
}

/* An operand (kind, arg) into v: an input column, a constant, or
 * (S) the stack entry at position pos of the stack (pos == sp - 1: the top,
 * held in registers; below it, st[pos]). */
RT_DEV void gp_operand_(unsigned kind, unsigned arg, int pos, int sp, const gp_val *top,
			gp_val (*st)[GP_VEC], const gp_val *__restrict__ x, unsigned long long stride,
			unsigned long long base, const float *cs, gp_val *v)
{
	if (kind == GP_SRC_X) {
		gp_load_(x + arg * stride + base, v);
	} else if (kind == GP_SRC_C) {
		gp_val c = gp_const_(cs[arg]);
#pragma unroll
		for (int j = 0; j < GP_VEC; j++)
			v[j] = c;
	} else if (pos == sp - 1) {
#pragma unroll
		for (int j = 0; j < GP_VEC; j++)
			v[j] = top[j];
	} else {
#pragma unroll
		for (int j = 0; j < GP_VEC; j++)
			v[j] = st[pos][j];
	}
}

/* Arity of an opcode (0 for opcodes this interpreter does not run). */
RT_DEV int gp_arity_(unsigned op)
{
	switch (op) {
#define GP_ARITY_(E, name, ar, expr) case GP_OP_##E: return GP_ENABLED_(E) ? ar : 0;
		GP_OPS_(GP_ARITY_)
#undef GP_ARITY_
	default:
		return 0;
	}
}

/* Sum over the block (every thread gets it back in thread 0's result). */
RT_DEV double gp_block_sum_(double v)
{
	__shared__ double part[GP_THREADS / 32];
	const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
#pragma unroll
	for (int o = 16; o > 0; o >>= 1)
		v += __shfl_down_sync(0xffffffffu, v, o);
	if (lane == 0)
		part[warp] = v;
	__syncthreads();
	v = 0.0;
	if (warp == 0) {
		v = lane < GP_THREADS / 32 ? part[lane] : 0.0;
#pragma unroll
		for (int o = 16; o > 0; o >>= 1)
			v += __shfl_down_sync(0xffffffffu, v, o);
	}
	return v;
}

/* One block per program (gridDim.x programs). ncases: cases, or words for
 * Boolean problems (of which the last is masked by last_mask); top_class:
 * nclasses - 1. fitness[p]: MSE (+inf for NaN/inf), misclassified cases or
 * wrong Boolean cases. */
extern "C" __global__ void __launch_bounds__(GP_THREADS)
gp_eval_lgp(const gp_insn *__restrict__ code, const uint32_t *__restrict__ offset,
	    const float *__restrict__ consts, const uint32_t *__restrict__ const_offset,
	    const gp_val *__restrict__ x, const gp_val *__restrict__ y, unsigned long long ncases,
	    unsigned long long stride, uint32_t last_mask, float top_class,
	    double *__restrict__ fitness)
{
	__shared__ gp_insn s_code[GP_MAX_CODE];
	__shared__ float s_consts[GP_MAX_CONSTS];
	const int prog = blockIdx.x;
	const uint32_t c0 = offset[prog], n = offset[prog + 1] - c0;
	const uint32_t k0 = const_offset[prog], nk = const_offset[prog + 1] - k0;
	const gp_insn *pc = code + c0;
	const float *cs = consts + k0;
	double acc = 0.0;          /* MSE: sum of squared errors */
	unsigned long long wrong = 0; /* CLASS, BOOL: wrong cases */
	(void)top_class;
	(void)wrong;
	(void)last_mask;

	/* The program into shared memory (if it fits; else it is read from global). */
	if (n <= GP_MAX_CODE) {
		for (uint32_t i = threadIdx.x; i < n; i += GP_THREADS)
			reinterpret_cast<uint2 *>(s_code)[i] = reinterpret_cast<const uint2 *>(pc)[i];
		pc = s_code;
	}
	if (nk <= GP_MAX_CONSTS) {
		for (uint32_t i = threadIdx.x; i < nk; i += GP_THREADS)
			s_consts[i] = cs[i];
		cs = s_consts;
	}
	__syncthreads();

	for (unsigned long long base = (unsigned long long)threadIdx.x * GP_VEC; base < ncases;
	     base += (unsigned long long)GP_THREADS * GP_VEC) {
		gp_val top[GP_VEC], st[GP_STACK][GP_VEC];
		int sp = 0;
#pragma unroll
		for (int j = 0; j < GP_VEC; j++)
			top[j] = 0;
		for (uint32_t k = 0; k < n; k++) {
			const gp_insn in = pc[k];
			const int ar = gp_arity_(in.op);
			gp_val A[GP_VEC], B[GP_VEC], C[GP_VEC];
			int ns = 0, s = 0;
			for (int j = 0; j < ar; j++)
				ns += GP_INSN_KIND(in, j) == GP_SRC_S;
			/* Operands: S operands are the top ns stack entries, in order. */
			gp_operand_(GP_INSN_KIND(in, 0), in.arg[0], sp - ns + s, sp, top, st, x, stride,
				    base, cs, A);
			s += GP_INSN_KIND(in, 0) == GP_SRC_S;
			if (ar > 1) {
				gp_operand_(GP_INSN_KIND(in, 1), in.arg[1], sp - ns + s, sp, top, st, x,
					    stride, base, cs, B);
				s += GP_INSN_KIND(in, 1) == GP_SRC_S;
			}
			if (ar > 2)
				gp_operand_(GP_INSN_KIND(in, 2), in.arg[2], sp - ns + s, sp, top, st, x,
					    stride, base, cs, C);
			/* A push: the old top moves down into the stack array. */
			if (ns == 0 && sp > 0) {
#pragma unroll
				for (int j = 0; j < GP_VEC; j++)
					st[sp - 1][j] = top[j];
			}
			switch (in.op) {
#define GP_CASE_(E, name, ar_, expr)                                                         \
			case GP_OP_##E:                                                        \
				if (GP_ENABLED_(E)) {                                          \
					_Pragma("unroll")                                      \
					for (int j = 0; j < GP_VEC; j++) {                     \
						const gp_val a = A[j];                         \
						const gp_val b = ar_ > 1 ? B[j] : a;           \
						const gp_val c = ar_ > 2 ? C[j] : a;           \
						(void)b, (void)c;                              \
						top[j] = expr;                                 \
					}                                                      \
				}                                                              \
				break;
				GP_OPS_(GP_CASE_)
#undef GP_CASE_
			default:
				break;
			}
			sp += 1 - ns;
		}
		/* Fitness of these cases. */
#pragma unroll
		for (int j = 0; j < GP_VEC; j++) {
			unsigned long long i = base + j;
			if (i < ncases) {
#if GP_FITNESS == 0
				acc += gp_sq_err(top[j], y[i]);
#elif GP_FITNESS == 1
				wrong += gp_class_of(top[j], top_class) == y[i] ? 0u : 1u;
#else
				uint32_t d = top[j] ^ y[i];
				if (i == ncases - 1)
					d &= last_mask;
				wrong += (unsigned)__popc(d);
#endif
			}
		}
	}
#if GP_FITNESS != 0
	acc = (double)wrong;
#endif
	acc = gp_block_sum_(acc);
	if (threadIdx.x == 0) {
#if GP_FITNESS == 0
		acc = ncases ? acc / (double)ncases : 0.0;
		if (!(acc <= 1.7976931348623157e308))
			acc = 1.0 / 0.0;
#endif
		fitness[prog] = acc;
	}
}

#endif /* __CUDACC__ */
