/* gp_simplify_int.h: internal to the simplifier (gp_simplify.c, gp_simplify_print.c,
 * gp_simplify_eval.c), not part of any public interface: the node type of the
 * simplified tree, the protected operations' constants in double, and the
 * functions those files share (prefix gp_sx_). */
#ifndef RT_GP_SIMPLIFY_INT_H
#define RT_GP_SIMPLIFY_INT_H

#include <stdint.h>

#include "gp/gp_simplify.h"

/* The protected operations' constants (gp_ops.h), in double. */
#define SX_EPS ((double)1e-6f)
#define SX_EXP_MAX 80.0
#define SX_BIG ((double)0x1.fffffep127f)   /* GP_BIG: powers saturate there */

enum sx_kind {
	SX_NUM = 0,   /* num */
	SX_VAR,       /* var */
	SX_FN,        /* op: a gp opcode; DIV, LOG, EXP, SQRT are the protected forms */
	SX_LOG,       /* plain log (argument proven >= SX_EPS) */
	SX_EXP,       /* plain exp (argument proven <= SX_EXP_MAX) */
	SX_POW,       /* args[0] ** num, num an integer other than 0 and 1; negative
		       * only for a base proven away from zero */
	SX_MUL,       /* num * product of args (no NUM, MUL; sorted) */
	SX_ADD        /* num + sum of args (no NUM, ADD; sorted) */
};

struct gp_sx {
	uint8_t kind, op;
	int var, nargs;
	double num;
	double lo, hi;            /* bounds on the value over all real inputs */
	struct gp_sx *args[];
};

/* Whether numbers near a pi form print as that form (gp_simplify_print.c). */
enum { SX_SNAP_NONE = 0, SX_SNAP_ALL };

/* gp_simplify_eval.c: the protected operations and the rest of the table in
 * double (the reference semantics) on the operands a, b, c. */
double gp_sx_op_eval(int op, double a, double b, double c);

/* gp_simplify_print.c. */
/* v, or the value of its pi form where printed at this SX_SNAP_* level. */
double gp_sx_pi_snap(double v, int level);
/* Sets the numbers of e's tree (numbers, coefficients, sum constants) to the
 * values of their pi forms, as printed at this level. */
void gp_sx_snap_tree(gp_sx *e, int level);
/* Prints e into a fresh buffer (snap: pi forms; their count into *npi);
 * its size, or -1 when a number is not finite. */
int gp_sx_print(const gp_sx *e, const gp_names *nm, rt_buf *b, int snap, int *npi);
/* e's printed size with plain numbers, the size the rules and the budget
 * count (the pi forms' extra nodes aside; INT_MAX where a number is not
 * finite). */
int gp_sx_size(const gp_sx *e);
/* The evolved program (prefix t, n nodes) printed as it is into b, with pi
 * forms (their count into *npi); lo: lower bounds of the nodes' values (sqrt
 * of a never-negative argument prints as sqrt), or NULL. Its size. */
int gp_sx_print_prefix(const gp_node *t, int n, const gp_names *nm, const double *lo,
		       rt_buf *b, int *npi);

#endif
