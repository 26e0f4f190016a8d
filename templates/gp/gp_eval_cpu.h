/* gp_eval_cpu.h: the core of the CPU 2-D stack interpreter: one kernel per
 * operation and operand shape, expanded from the operation table
 * (gp_ops.h), a program of the LGP form run over one block of fitness cases,
 * and the fitness of a block. Included by runtime/gp/gp_eval_cpu.c (every
 * operation) and by the generated, problem-specialised templates/gp/gp_eval_cpu.c
 * (GP_SPECIALISED with GP_USE_<OP> 0/1: only the problem's operations).
 *
 * A block: slot[0 .. sp) is the stack (row pointers to `n` values each),
 * slot[sp ..] are free rows; an instruction writes slot[sp], then that row
 * and its first stack operand's row swap places, so inputs and output never
 * overlap (restrict holds, nothing is copied). Operands X and C are read in
 * place: the input column at the block's offset, a broadcast constant.
 *
 * sin and cos use gp_math.h's branch-free fast reduction in the vector loops;
 * the lanes with |x| > GP_TRIG_FAST_MAX are then recomputed exactly, so the
 * values are those of gp_sinf / gp_cosf. Compile with
 * -O3 -fno-trapping-math -ffp-contract=off so that the loops vectorise
 * (protected division computes both sides of its select) and no multiply-add
 * is fused behind the table's back. */
#ifndef EVO_GP_EVAL_CPU_H
#define EVO_GP_EVAL_CPU_H

#include <stddef.h>
#include <string.h>

#include "gp_layout.h"
#include "gp_ops.h"
#include "gp_fitness.h"

#if defined(GP_SPECIALISED)
#  define GP_ENABLED_(E) GP_USE_##E
#else
#  define GP_ENABLED_(E) 1
#endif

#define AI_ static inline __attribute__((always_inline))

static const uint8_t op_arity[] = {
#define GP_ARITY_(E, name, ar, expr) ar,
	GP_FLOAT_OPS(GP_ARITY_) GP_BOOL_OPS(GP_ARITY_)
#undef GP_ARITY_
};

/* ---- kernels: one per operation and operand shape --------------------------
 *
 * For each operation E (a, b, c: the operands of one case):
 *   ks_E       E(a, b, c) once (all operands constants)
 *   kr_E(mask) o[i] = E(a, b, c) over n cases, operand k the constant c_k
 *              where bit k of mask is set, else row p_k[i]; mask is a
 *              compile-time constant at every call, so each shape is its own
 *              loop with constants broadcast in registers
 * Float row kernels return whether a lane needs the slow path (sin/cos of a
 * large argument); fix_E then recomputes those lanes exactly. Inside a row
 * kernel gp_vec_ selects the fast forms of GP_SIN/GP_COS and gp_big_
 * collects the flag; outside (ks_E, fix_E) the full functions are used. */

#undef GP_SIN
#undef GP_COS
#define GP_SIN(x) (gp_vec_ ? (gp_big_ |= !(GP_FABS(x) <= GP_TRIG_FAST_MAX), gp_sinf_fast(x)) \
		   : gp_sinf(x))
#define GP_COS(x) (gp_vec_ ? (gp_big_ |= !(GP_FABS(x) <= GP_TRIG_FAST_MAX), gp_cosf_fast(x)) \
		   : gp_cosf(x))

#define GP_FKERNELS_(E, name, ar, expr)                                                    \
	AI_ float ks_##E(float a, float b, float c)                                          \
	{                                                                                   \
		const int gp_vec_ = 0;                                                      \
		int gp_big_ = 0;                                                            \
		(void)a, (void)b, (void)c, (void)gp_vec_, (void)gp_big_;                    \
		return expr;                                                                \
	}                                                                                   \
	/* Whether the vector form of E is not exact for these operands. */             \
	AI_ int kbig_##E(float a, float b, float c)                                         \
	{                                                                                   \
		const int gp_vec_ = 1;                                                      \
		int gp_big_ = 0;                                                            \
		(void)a, (void)b, (void)c, (void)gp_vec_;                                   \
		(void)(expr);                                                               \
		return gp_big_;                                                             \
	}                                                                                   \
	AI_ int kr_##E(float *restrict o, const float *restrict pa, const float *restrict pb, \
		       const float *restrict pc, float ca, float cb, float cc, long n,      \
		       const int mask)                                                      \
	{                                                                                   \
		const int gp_vec_ = 1;                                                      \
		int gp_big_ = 0;                                                            \
		(void)gp_vec_, (void)pb, (void)pc, (void)cb, (void)cc;                      \
		for (long i = 0; i < n; i++) {                                              \
			float a = (mask & 1) ? ca : pa[i];                                  \
			float b = ar < 2 ? 0.0f : (mask & 2) ? cb : pb[i];                  \
			float c = ar < 3 ? 0.0f : (mask & 4) ? cc : pc[i];                  \
			(void)a, (void)b, (void)c;                                          \
			o[i] = expr;                                                        \
		}                                                                           \
		return gp_big_;                                                             \
	}                                                                                   \
	/* Recomputes exactly the lanes whose vector form was not exact (operand   \
	 * rows NULL: the constant). */                                             \
	static void fix_##E(float *o, const float *pa, const float *pb, const float *pc,    \
			    float ca, float cb, float cc, long n)                            \
	{                                                                                   \
		for (long i = 0; i < n; i++) {                                              \
			float a = pa ? pa[i] : ca;                                          \
			float b = ar > 1 ? (pb ? pb[i] : cb) : 0.0f;                        \
			float c = ar > 2 ? (pc ? pc[i] : cc) : 0.0f;                        \
			if (kbig_##E(a, b, c))                                              \
				o[i] = ks_##E(a, b, c);                                     \
		}                                                                           \
	}
GP_FLOAT_OPS(GP_FKERNELS_)
#undef GP_FKERNELS_

#define GP_UKERNELS_(E, name, ar, expr)                                                    \
	AI_ uint32_t ks_##E(uint32_t a, uint32_t b, uint32_t c)                             \
	{                                                                                   \
		(void)a, (void)b, (void)c;                                                  \
		return expr;                                                                \
	}                                                                                   \
	AI_ void kr_##E(uint32_t *restrict o, const uint32_t *restrict pa,                  \
			const uint32_t *restrict pb, const uint32_t *restrict pc, uint32_t ca, \
			uint32_t cb, uint32_t cc, long n, const int mask)                   \
	{                                                                                   \
		(void)pb, (void)pc, (void)cb, (void)cc;                                     \
		for (long i = 0; i < n; i++) {                                              \
			uint32_t a = (mask & 1) ? ca : pa[i];                               \
			uint32_t b = ar < 2 ? 0u : (mask & 2) ? cb : pb[i];                 \
			uint32_t c = ar < 3 ? 0u : (mask & 4) ? cc : pc[i];                 \
			(void)a, (void)b, (void)c;                                          \
			o[i] = expr;                                                        \
		}                                                                           \
	}
GP_BOOL_OPS(GP_UKERNELS_)
#undef GP_UKERNELS_

AI_ void fill_f(float *restrict o, float v, long n)
{
	for (long i = 0; i < n; i++)
		o[i] = v;
}
AI_ void fill_u(uint32_t *restrict o, uint32_t v, long n)
{
	for (long i = 0; i < n; i++)
		o[i] = v;
}

/* An operand of the current instruction: a row, or a constant (row NULL). */
typedef struct operand_f {
	const float *row;
	float c;
} operand_f;
typedef struct operand_u {
	const uint32_t *row;
	uint32_t c;
} operand_u;

/* The row kernel of E for the constant-operand mask m (only the shapes an
 * arity-ar operation has are instantiated). */
#define GP_SHAPE_(E, ar, m, ret)                                                            \
	case m:                                                                             \
		if (m < (1 << ar) - 1)                                                      \
			ret kr_##E(o, v[0].row, v[1].row, v[2].row, v[0].c, v[1].c, v[2].c, n, m); \
		break;
#define GP_SHAPES_(E, ar, ret)                                                              \
	switch (mask) {                                                                     \
		GP_SHAPE_(E, ar, 0, ret) GP_SHAPE_(E, ar, 1, ret) GP_SHAPE_(E, ar, 2, ret)  \
		GP_SHAPE_(E, ar, 3, ret) GP_SHAPE_(E, ar, 4, ret) GP_SHAPE_(E, ar, 5, ret)  \
		GP_SHAPE_(E, ar, 6, ret)                                                    \
	default:                                                                            \
		break;                                                                      \
	}

/* Applies float op to operands v[] (rows or constants) into o over n cases. */
AI_ void apply_f(unsigned op, float *restrict o, const operand_f *v, long n)
{
	int mask = (v[0].row == NULL) | (v[1].row == NULL) << 1 | (v[2].row == NULL) << 2, big = 0;
	switch (op) {
#define GP_FCASE_(E, name, ar, expr)                                                       \
	case GP_OP_##E:                                                                     \
		if (!GP_ENABLED_(E))                                                        \
			return;                                                             \
		mask &= (1 << ar) - 1;                                                      \
		if (mask == (1 << ar) - 1) {                                                \
			fill_f(o, ks_##E(v[0].c, v[1].c, v[2].c), n);                       \
			return;                                                             \
		}                                                                           \
		GP_SHAPES_(E, ar, big =)                                                    \
		if (big)                                                                    \
			fix_##E(o, v[0].row, v[1].row, v[2].row, v[0].c, v[1].c, v[2].c, n); \
		return;
		GP_FLOAT_OPS(GP_FCASE_)
#undef GP_FCASE_
	default:
		return;
	}
}

AI_ void apply_u(unsigned op, uint32_t *restrict o, const operand_u *v, long n)
{
	int mask = (v[0].row == NULL) | (v[1].row == NULL) << 1 | (v[2].row == NULL) << 2;
	switch (op) {
#define GP_UCASE_(E, name, ar, expr)                                                       \
	case GP_OP_##E:                                                                     \
		if (!GP_ENABLED_(E))                                                        \
			return;                                                             \
		mask &= (1 << ar) - 1;                                                      \
		if (mask == (1 << ar) - 1) {                                                \
			fill_u(o, ks_##E(v[0].c, v[1].c, v[2].c), n);                       \
			return;                                                             \
		}                                                                           \
		GP_SHAPES_(E, ar, )                                                         \
		return;
		GP_BOOL_OPS(GP_UCASE_)
#undef GP_UCASE_
	default:
		return;
	}
}

/* ---- one program on one block ----------------------------------------------
 *
 * slot[0 .. sp) is the stack (row pointers), slot[sp ..] free rows; an
 * instruction writes slot[sp], then that row and its first stack operand's
 * row swap places. */

/* The block a work item evaluates: cases [off, off + n) (Boolean: words). */
typedef struct block_ref {
	size_t off;
	long n;
} block_ref;

/* LGP program on one block of float cases; returns the result row. */
AI_ const float *lgp_block_f(const gp_insn *code, uint32_t ninsn, const float *consts,
			     const float *x, size_t stride, block_ref blk, float **slot)
{
	uint32_t sp = 0;
	for (uint32_t k = 0; k < ninsn; k++) {
		gp_insn in = code[k];
		int ar = op_arity[in.op], ns = 0;
		operand_f v[3] = {{NULL, 0.0f}, {NULL, 0.0f}, {NULL, 0.0f}};
		uint32_t base, s;
		float *o, *t;
		for (int j = 0; j < ar; j++)
			ns += GP_INSN_KIND(in, j) == GP_SRC_S;
		base = sp - (uint32_t)ns;
		s = base;
		for (int j = 0; j < ar; j++) {
			unsigned kind = GP_INSN_KIND(in, j);
			if (kind == GP_SRC_S)
				v[j].row = slot[s++];
			else if (kind == GP_SRC_X)
				v[j].row = x + in.arg[j] * stride + blk.off;
			else
				v[j].c = consts[in.arg[j]];
		}
		o = slot[sp];
		apply_f(in.op, o, v, blk.n);
		t = slot[base];
		slot[base] = o;
		slot[sp] = t;
		sp = base + 1;
	}
	return slot[0];
}

AI_ const uint32_t *lgp_block_u(const gp_insn *code, uint32_t ninsn, const float *consts,
				const uint32_t *bits, size_t nwords, block_ref blk, uint32_t **slot)
{
	uint32_t sp = 0;
	for (uint32_t k = 0; k < ninsn; k++) {
		gp_insn in = code[k];
		int ar = op_arity[in.op], ns = 0;
		operand_u v[3] = {{NULL, 0u}, {NULL, 0u}, {NULL, 0u}};
		uint32_t base, s;
		uint32_t *o, *t;
		for (int j = 0; j < ar; j++)
			ns += GP_INSN_KIND(in, j) == GP_SRC_S;
		base = sp - (uint32_t)ns;
		s = base;
		for (int j = 0; j < ar; j++) {
			unsigned kind = GP_INSN_KIND(in, j);
			if (kind == GP_SRC_S)
				v[j].row = slot[s++];
			else if (kind == GP_SRC_X)
				v[j].row = bits + in.arg[j] * nwords + blk.off;
			else
				v[j].c = consts[in.arg[j]] != 0.0f ? ~0u : 0u;
		}
		o = slot[sp];
		apply_u(in.op, o, v, blk.n);
		t = slot[base];
		slot[base] = o;
		slot[sp] = t;
		sp = base + 1;
	}
	return slot[0];
}

/* ---- fitness of one block --------------------------------------------------- */

/* Sum of squared errors over n cases, in double, 8 independent lanes. */
AI_ double block_sse(const float *restrict out, const float *restrict y, long n)
{
	double lane[8] = {0, 0, 0, 0, 0, 0, 0, 0}, s;
	long i = 0;
	for (; i + 8 <= n; i += 8)
		for (int j = 0; j < 8; j++)
			lane[j] += gp_sq_err(out[i + j], y[i + j]);
	for (; i < n; i++)
		lane[0] += gp_sq_err(out[i], y[i]);
	s = ((lane[0] + lane[1]) + (lane[2] + lane[3])) + ((lane[4] + lane[5]) + (lane[6] + lane[7]));
	return s;
}

/* Misclassified cases among n. */
AI_ long block_wrong(const float *restrict out, const float *restrict y, long n, float top)
{
	int wrong = 0;
	for (long i = 0; i < n; i++)
		wrong += !(gp_class_of(out[i], top) == y[i]);
	return wrong;
}

/* Wrong Boolean cases among n words; the last one masked by `last`. */
AI_ long block_bits_wrong(const uint32_t *restrict out, const uint32_t *restrict t, long n,
			  uint32_t last)
{
	long wrong = 0;
	for (long i = 0; i + 1 < n; i++)
		wrong += __builtin_popcount(out[i] ^ t[i]);
	if (n > 0)
		wrong += __builtin_popcount((out[n - 1] ^ t[n - 1]) & last);
	return wrong;
}

#endif
