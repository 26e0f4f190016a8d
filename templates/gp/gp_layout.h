/* gp_layout.h: the tree node and the packed LGP instruction, for generated
 * sources that do not see runtime/gp/gp_prog.h (which defines the same layout and is the contract;
 * runtime/gp/gp_gen.c checks at compile time that the two agree).
 * 8 bytes: op, operand kinds 2 bits each (operand k at bits 2k..2k+1:
 * 0 stack top S, 1 input X, 2 constant C), three 16-bit operand arguments.
 * A tree node, 8 bytes: op (a function, GP_TERM_VAR or GP_TERM_CONST), pad,
 * the input index of a GP_TERM_VAR, the value of a GP_TERM_CONST. */
#ifndef EVO_GP_LAYOUT_H
#define EVO_GP_LAYOUT_H

#include "common.h"

#if !defined(RT_GP_PROG_H)
#  if defined(__CUDACC__)
typedef struct gp_insn {
	unsigned char op;
	unsigned char kinds;
	unsigned short arg[3];
} gp_insn;
typedef struct gp_node {
	unsigned char op;
	unsigned char pad;
	unsigned short var;
	float value;
} gp_node;
#  else
typedef struct gp_insn {
	uint8_t op;
	uint8_t kinds;
	uint16_t arg[3];
} gp_insn;
typedef struct gp_node {
	uint8_t op;
	uint8_t pad;
	uint16_t var;
	float value;
} gp_node;
#  endif
enum gp_src { GP_SRC_S = 0, GP_SRC_X = 1, GP_SRC_C = 2 };
enum gp_fitness_kind { GP_FIT_MSE = 0, GP_FIT_CLASS = 1, GP_FIT_BOOL = 2 };
#  define GP_INSN_KIND(insn, k) (((insn).kinds >> (2 * (k))) & 3u)
#endif

#endif
