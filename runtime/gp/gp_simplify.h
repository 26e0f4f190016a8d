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
 * to inf or NaN, which the real-valued formula does not), and by the pi forms
 * below: each number printed as one stands for that form's exact value,
 * within GP_SIMPLIFY_PI_REL (relative) of the number it replaces, about the
 * float resolution of the evolved program's single-precision constants (the
 * named constant pi, 3.14159274f, is 2.8e-8 from pi; an evolved 0.159154983
 * is 2.5e-7 from 1/(2*pi)).
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
 * Then, for SymPy (which declares symbols with no assumptions, so that
 * -log(a/b) and log(b/a) differ for it): -c*y*log(a/b) -> c*y*log(b/a), c > 0,
 * for a plain log of a quotient (a product with a negative power) whose
 * inverse b/a is proven >= 1e-6 too (log(1/u) -> log(u) likewise), where the
 * formula is not larger. When the result would be larger than the evolved
 * program, the evolved program is printed as it is (in this syntax) instead.
 * "Larger" leaves out the nodes the pi forms below add: the guarantee is
 * size - pi_extra <= evolved size, pi_extra being the nodes the forms add
 * over the plain numbers they replace (at most each form's nodes less 1).
 *
 * Pi forms. A number within GP_SIMPLIFY_PI_REL (relative) of
 * sign * p * pi**k / q, k in {1, -1, 2, -2}, p and q coprime, 1 <= p <=
 * GP_SIMPLIFY_PI_P, 1 <= q <= GP_SIMPLIFY_PI_Q, is printed as that form, as
 * SymPy's parse_expr reads it (pi is sympy.pi): "pi", "2*pi", "-pi/2",
 * "1/(2*pi)", "pi**2", "4*pi**2"; a coefficient splits into numerator and
 * denominator ("2*pi*x", "pi*x/2", "x/(2*pi)", "-3*x/pi"). Its nodes count as
 * printed ("2*pi" is 3, "x/(2*pi)" 5, "pi" 1), so the size may grow beyond
 * the evolved program's by the nodes the forms add (pi_extra: "2*pi" 2 over
 * the number 6.28318548, "x/(2*pi)" 2 over "0.159154943*x", "-pi" 1): SymPy's
 * exact-recovery check (floats rounded to 3 decimals) matches only the
 * symbolic form. Every number that has a form prints as it, in the
 * simplified formula and in the evolved program printed as it is alike
 * (sin(2*pi*x1*x2) for sin * 6.28318548 * x1 x2, 8 nodes for 6). A number
 * that is not that close stays a number (0.3183 is 3e-4 from 1/pi). Small
 * fractions p/q lie at least 3e-4 apart and no such ratio is within 3e-7 of
 * pi, so a form is never ambiguous.
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
 *   NUMBER is printed with %.9g, or as a pi form (below: "2*pi", "pi/2",
 *   "1/(2*pi)", as a factor or term of its own); INPUT as in gp_conv.h (x,
 *   x1..xn or names).
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

/* Pi forms (above): the relative distance at which a number is printed as
 * one, and the largest numerator and denominator. */
#define GP_SIMPLIFY_PI_REL 3e-7
#define GP_SIMPLIFY_PI_P 24
#define GP_SIMPLIFY_PI_Q 12

/* An expression node of the simplified tree (gp_simplify_int.h). */
typedef struct gp_sx gp_sx;

/* A simplified program. */
typedef struct gp_simple {
	rt_buf text;          /* the formula (grammar above) */
	int size;             /* its size (as above) */
	int evolved_size;     /* nodes of the evolved program */
	int rewritten;        /* 1: text is the simplified tree; 0: the evolved program as it is */
	int pi_forms;         /* numbers printed as pi forms (their values are those forms') */
	int pi_extra;         /* nodes those forms add: size - pi_extra <= evolved_size */
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
 * protected operations' semantics (the evolved program when !rewritten),
 * numbers printed as pi forms taking those forms' values. */
double gp_simple_eval(const gp_simple *s, const double *x);
/* The evolved program (prefix, n nodes) at x in double precision with the
 * same semantics: the reference gp_simple_eval is checked against. */
double gp_simplify_eval_prefix(const gp_node *prefix, int n, const double *x);

#endif
