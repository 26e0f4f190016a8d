/* gp_prog.h: how GP programs and fitness cases are laid out, shared by the
 * tree engine (gp.c), the evaluators (CPU: gp_eval*.c; GPU: gp_gpu.c and templates/gp/gp_gpu.cu)
 * and the generator.
 *
 * A tree is stored in prefix order as gp_node. For evaluation a whole
 * population is packed once per generation into one of two linear forms:
 *   - RPN (postfix gp_node, evaluated with a 1-D or 2-D stack);
 *   - LGP, the seed paper's prefix linear form: each instruction is a function
 *     followed by its operands, each an input X_i, a constant or the stack top
 *     S, made from the RPN by a symbolic stack (gp_lgp_from_rpn).
 * Sextic solution example: *(XX) *(XS) -(SX) *(XX) *(XS) -(SX) *(SS). */
#ifndef RT_GP_PROG_H
#define RT_GP_PROG_H

#include <stddef.h>
#include <stdint.h>

#include "error.h"
#include "gp/gp_ops.h"

/* One tree node: a function (op < GP_OP_COUNT), an input or a constant. */
typedef struct gp_node {
	uint8_t op;       /* enum gp_opcode, or GP_TERM_VAR / GP_TERM_CONST */
	uint8_t pad;
	uint16_t var;     /* input index for GP_TERM_VAR */
	float value;      /* constant for GP_TERM_CONST */
} gp_node;

/* Operand kinds of an LGP instruction. */
enum gp_src { GP_SRC_S = 0, GP_SRC_X = 1, GP_SRC_C = 2 };

/* One LGP instruction (8 bytes): op, operand kinds packed 2 bits each
 * (operand k at bits 2k..2k+1), and operand arguments (input index for X,
 * index into the program's constants for C; unused for S). Operands that are
 * S are popped from the stack in order (the last S operand is the top). */
typedef struct gp_insn {
	uint8_t op;
	uint8_t kinds;
	uint16_t arg[3];
} gp_insn;

#define GP_INSN_KIND(insn, k) (((insn).kinds >> (2 * (k))) & 3u)

/* A population packed for evaluation (either form). Program p's code is
 * code[offset[p] .. offset[p+1]), its constants consts[const_offset[p] ..]. */
typedef struct gp_packed {
	int nprogs;
	int form;              /* GP_FORM_RPN or GP_FORM_LGP */
	uint32_t *offset;      /* nprogs + 1 */
	uint32_t *const_offset;/* nprogs + 1 (LGP only) */
	gp_node *rpn;          /* RPN form: postfix nodes */
	gp_insn *lgp;          /* LGP form: instructions */
	float *consts;         /* LGP form: constants */
	uint16_t *max_stack;   /* stack depth each program needs (in its form) */
	uint32_t *nnodes;      /* tree size of each program (for GPop/s) */
	size_t cap_code, cap_consts;
} gp_packed;

enum gp_form { GP_FORM_RPN = 0, GP_FORM_LGP = 1 };

/* What a program's output is scored against. */
enum gp_fitness_kind {
	GP_FIT_MSE = 0,        /* mean squared error vs target y */
	GP_FIT_CLASS = 1,      /* misclassified cases: class = clamp(round(out), 0, nclasses-1) */
	GP_FIT_BOOL = 2        /* wrong cases, bit-parallel: popcount(out ^ target) */
};

/* Fitness cases. Float problems: x is ninputs columns of ncases floats,
 * column-major, each column padded with zeros to `stride` (a multiple of 64)
 * cases. Boolean problems: bits is ninputs columns of nwords uint32 (case
 * 32*w + b is bit b of word w), target likewise; padding bits are masked by
 * last_mask. */
typedef struct gp_cases {
	int fitness;           /* enum gp_fitness_kind */
	int ninputs;
	size_t ncases, stride;
	float *x;              /* ninputs * stride */
	float *y;              /* stride: target value or class index */
	int nclasses;
	uint32_t *bits;        /* ninputs * nwords */
	uint32_t *target;      /* nwords */
	size_t nwords;
	uint32_t last_mask;
	/* Linear scaling (gp_scale.h; MSE only; scale 0: off): the data set's
	 * sums in double, case order, with yc = (double)y - ymean (centred in
	 * double as the evaluators add): ymean = mean y, syc = sum yc (about
	 * 0), syy = sum yc^2. */
	int scale;
	double ymean, syc, syy;
} gp_cases;

#endif
