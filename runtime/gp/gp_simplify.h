/* gp_simplify.h: algebraic simplification of an evolved GP program into a
 * smaller expression with the same value, printed in a syntax that SymPy
 * (and Python) parse.
 *
 * Guarantee. The simplified expression is equal, as a function of real
 * inputs, to the evolved program with gp_ops.h's protected operations
 * (a / b = 1 when |b| < 1e-6f; log a = log |a|, 0 when |a| < 1e-6f;
 * exp a = exp(min(a, 80))). Every rewrite is an identity of those functions
 * over all real inputs; a rewrite that holds only away from a protected point
 * (log(exp(x)) -> x, exp(log(x)) -> x, a / b -> a * b**-1) is made only where an interval analysis of
 * the operand proves the protected point out of reach (exp(x) with x <= 80;
 * log(x) with x >= 1e-6; a / b with |b| >= 1e-6). Because every protected
 * operation is finite on finite inputs, x * 0 -> 0 and x - x -> 0 are exact;
 * x / x -> 1 holds at the protected point too (both give 1).
 * Constants are folded in double precision from the program's float
 * constants, so the simplified value differs from the evolved program's single
 * precision value by rounding only (and where the float evaluation overflows
 * to inf or NaN, which the real-valued formula does not).
 *
 * What is done: constant folding; x + 0, x * 1, x * 0, double negation, like
 * terms (x + x -> 2*x, c1*x + c2*x -> (c1 + c2)*x), powers (x*x*x -> x**3,
 * x * x**-1 -> 1 where x is provably nonzero), canonical order of commutative
 * operands (sums by falling degree), comparisons of an operand with itself
 * or of disjoint ranges, IF with a known condition or equal branches; of
 * plain (unprotected) exp and log: exp(a)*exp(b) -> exp(a + b) and
 * exp(a)/exp(b) -> exp(a - b) where not larger, sqrt(exp(u)) -> exp(u/2),
 * exp(k*log(u)) -> u**k (k an integer or a half), log(c*exp(u)) -> u + log(c)
 * (gp_simplify.c lists them); an
 * expanded form (products of sums multiplied out) is kept when it is smaller.
 * When the result would be larger than the evolved program, the evolved
 * program is printed as it is (in this syntax) instead.
 *
 * Grammar of the text (a Python / SymPy expression):
 *   expr   := term (("+" | "-") term)*  |  "-" term ...
 *   term   := factor (("*" | "/") factor)*
 *   factor := atom ("**" INTEGER)?
 *   atom   := NUMBER | INPUT | "(" expr ")" | CALL
 *   CALL   := sin(e) | cos(e) | exp(e) | log(e)          ordinary functions
 *           | tanh(e) | abs(e) | sqrt(e)
 *           | protdiv(a, b)  = 1 if |b| < 1e-6 else a / b
 *           | protlog(a)     = 0 if |a| < 1e-6 else log(|a|)
 *           | protexp(a)     = exp(min(a, 80))
 *           | protsqrt(a)    = sqrt(|a|)
 *           | aq(a, b)       = a / sqrt(1 + b**2)
 *           | gt(a, b), lt(a, b), eq(a, b)   = 1 if a > b (<, ==) else 0
 *           | AND(a, b), OR(a, b)            = 1 or 0, non-zero is true
 *           | IF(a, b, c)                    = b if a != 0 else c
 *   exp(e) is printed only where e <= 80 (or e = a + b of two such: the
 *   product exp(a)*exp(b)), log(e) only where e >= 1e-6,
 *   sqrt(e) only where e >= 0, a / b only where |b| >= 1e-6 is proven;
 *   otherwise the protected name is kept. square, cube, pow4 print as a**2,
 *   a**3, a**4 (in the evolved program as printed, a**k counts one node):
 *   their clamp at +-FLT_MAX acts only where the float product would
 *   overflow, which the guarantee above leaves out.
 *   NUMBER is printed with %.9g; INPUT as in gp_conv.h (x, x1..xn or names).
 * Boolean programs print with Python's bitwise operators, which SymPy reads
 * as logic: a & b, a | b, ~a, ~(a & b) (nand), ~(a | b) (nor), ITE(a, b, c).
 *
 * Size: the number of operators, calls, inputs and numbers in the text
 * (parentheses and commas not counted; "x**3" is 3, "-x" is 2, "2*x" 3), the
 * same count as an evolved program's nodes. */
#ifndef RT_GP_SIMPLIFY_H
#define RT_GP_SIMPLIFY_H

#include "error.h"
#include "gp/gp_conv.h"
#include "gp_prog.h"
#include "out.h"

/* An expression node of the simplified tree (gp_simplify.c). */
typedef struct gp_sx gp_sx;

/* A simplified program. */
typedef struct gp_simple {
	rt_buf text;          /* the formula (grammar above) */
	int size;             /* its size (as above) */
	int evolved_size;     /* nodes of the evolved program */
	int rewritten;        /* 1: text is the simplified tree; 0: the evolved program as it is */
	const gp_sx *root;    /* the simplified tree (NULL when !rewritten) */
	gp_node *prefix;      /* copy of the evolved program */
	void *arena_;         /* owns the tree's nodes */
} gp_simple;

/* Simplifies the prefix program (n nodes, a well-formed tree) into s (zeroed
 * first; free with gp_simple_free, also after a failure). nm names inputs
 * (may be NULL). RT_ERR_INPUT for a malformed tree; RT_ERR_SYSTEM when out of
 * memory. */
rt_status gp_simplify(const gp_node *prefix, int n, const gp_names *nm, gp_simple *s,
		      rt_error *err);
void gp_simple_free(gp_simple *s);

/* s's formula at input point x (x[i]: input i), in double precision with the
 * protected operations' semantics (the evolved program when !rewritten). */
double gp_simple_eval(const gp_simple *s, const double *x);
/* The evolved program (prefix, n nodes) at x in double precision with the
 * same semantics: the reference gp_simple_eval is checked against. */
double gp_simplify_eval_prefix(const gp_node *prefix, int n, const double *x);

#endif
