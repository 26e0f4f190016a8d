/* gp_conv.h: from trees to the evaluators' linear forms (postfix RPN and the
 * seed paper's prefix LGP), packing whole populations into gp_packed, and
 * printing programs as text (infix, RPN, LGP).
 *
 * LGP conversion (Chitty's symbolic stack): walk the RPN keeping a stack of
 * symbols, each an input X_i, a constant, or S ("a value on the real stack").
 * A terminal pushes its symbol; a function of arity k pops k symbols, emits
 * the instruction f(sym_1 .. sym_k) and pushes S. Executing the instructions,
 * each S operand pops the real stack (the last S operand is the top) and each
 * instruction pushes its result. (x*(x*x) - x)^2 becomes
 *   *(XX) *(XS) -(SX) *(XX) *(XS) -(SX) *(SS)   (7 instructions, max stack 2).
 * A program's result is the single value left on the real stack, so the root
 * must be a function (the tree engine guarantees it). */
#ifndef RT_GP_CONV_H
#define RT_GP_CONV_H

#include "error.h"
#include "gp_prog.h"
#include "gp_tree.h"
#include "out.h"

/* ---- single programs ------------------------------------------------------- */

/* Postfix order of a prefix tree of n nodes into out (n nodes). Returns the
 * stack depth a 1-D RPN interpreter needs, or -1 if the tree is malformed. */
int gp_tree_to_rpn(const gp_node *prefix, int n, gp_node *out);
/* Stack depth an RPN program needs; -1 if it underflows or does not leave
 * exactly one value. */
int gp_rpn_max_stack(const gp_node *rpn, int n);
/* RPN -> LGP by the symbolic stack. code needs room for n instructions and
 * consts for n constants; *ncode, *nconsts get the counts and *max_stack the
 * real stack depth the LGP program needs. Malformed RPN or a program that is
 * a lone terminal: RT_ERR_INPUT. */
rt_status gp_lgp_from_rpn(const gp_node *rpn, int n, gp_insn *code, int *ncode, float *consts,
			  int *nconsts, int *max_stack, rt_error *err);
/* Real stack depth an LGP program needs (-1 if it underflows). */
int gp_lgp_max_stack(const gp_insn *code, int ncode);

/* ---- populations ------------------------------------------------------------ */

/* An empty gp_packed (all zero); pack into it, repack as often as wanted
 * (buffers grow and are reused), then gp_packed_free. */
void gp_packed_init(gp_packed *p);
void gp_packed_free(gp_packed *p);
/* Packs trees into RPN form: offset, rpn, max_stack, nnodes. */
rt_status gp_pack_rpn(gp_packed *out, const gp_tree *trees, int n, rt_error *err);
/* Packs trees into LGP form: offset, const_offset, lgp, consts, max_stack, nnodes. */
rt_status gp_pack_lgp(gp_packed *out, const gp_tree *trees, int n, rt_error *err);
/* Converts an RPN-packed population into LGP form (out != rpn). */
rt_status gp_pack_lgp_from_rpn(gp_packed *out, const gp_packed *rpn, rt_error *err);
/* Sum of nnodes over the population (GPop/s numerator per fitness case). */
uint64_t gp_packed_total_nodes(const gp_packed *p);

/* ---- text ---------------------------------------------------------------------- */

/* Input names used in text: names[i] if names is non-NULL, else "x" for a
 * one-input problem and "x1".."xn" otherwise. Constants print with %.9g. */
typedef struct gp_names {
	int ninputs;
	const char *const *names;   /* may be NULL */
} gp_names;

/* Infix: "((x * (x * x)) - x)", "sin(x)", "IF(a, b, c)". */
void gp_print_infix(rt_buf *b, const gp_node *prefix, int n, const gp_names *nm);
/* RPN text: "x x x * * x -". */
void gp_print_rpn(rt_buf *b, const gp_node *rpn, int n, const gp_names *nm);
/* LGP text: "*(XX) *(XS) -(SX)". Inputs print as X when there is one, else
 * as their names when nm has names, else X3 (input 3, 1-based); operands are
 * separated by commas when any is longer than one character: "+(X3,0.5)". */
void gp_print_lgp(rt_buf *b, const gp_insn *code, int ncode, const float *consts,
		  const gp_names *nm);
/* Convenience: all three forms of one tree into three buffers (any may be NULL). */
rt_status gp_print_tree(const gp_tree *t, const gp_names *nm, rt_buf *infix, rt_buf *rpn,
			rt_buf *lgp, rt_error *err);

/* Exact prefix text: function names, inputs as $INDEX (0-based), constants
 * as C99 hex floats ("* $0 + $0 0x1.8p+0"): what result.json keeps so that a
 * program can be read back bit for bit. */
void gp_print_prefix(rt_buf *b, const gp_node *prefix, int n);
/* Reads gp_print_prefix's text into t (a complete tree over ninputs inputs);
 * RT_ERR_INPUT naming the bad node otherwise (the caller adds where). t's nodes
 * are the caller's to free (gp_tree_free), also after a failure. */
rt_status gp_parse_prefix(const char *text, int ninputs, gp_tree *t, rt_error *err);

#endif
