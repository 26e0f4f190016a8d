/* gp_layout.h: the packed LGP instruction, for generated sources that do not
 * see runtime/gp/gp_prog.h (which defines the same layout and is the contract;
 * runtime/gp/gp_gen.c checks at compile time that the two agree).
 * 8 bytes: op, operand kinds 2 bits each (operand k at bits 2k..2k+1:
 * 0 stack top S, 1 input X, 2 constant C), three 16-bit operand arguments. */
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
#  else
typedef struct gp_insn {
	uint8_t op;
	uint8_t kinds;
	uint16_t arg[3];
} gp_insn;
#  endif
enum gp_src { GP_SRC_S = 0, GP_SRC_X = 1, GP_SRC_C = 2 };
enum gp_fitness_kind { GP_FIT_MSE = 0, GP_FIT_CLASS = 1, GP_FIT_BOOL = 2 };
#  define GP_INSN_KIND(insn, k) (((insn).kinds >> (2 * (k))) & 3u)
#endif

#endif
