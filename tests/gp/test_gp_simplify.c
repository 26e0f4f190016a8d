/* test_gp_simplify.c: gp_simplify: every rewrite rule on hand-written
 * programs with the exact text expected (and its values at random points),
 * including where a rule must not apply, and a property test on random
 * programs of several function sets: the simplified formula's value equals the
 * evolved program's (double reference and the project's float CPU evaluator)
 * and its size is never larger, less the nodes its pi forms add.
 *
 * Tolerances. Against the double reference (gp_simplify_eval_prefix) the
 * only difference is rounding of reordered double operations: 1e-9 of the
 * largest intermediate magnitude (double rounding is 1e-16 of it; the margin
 * covers amplification by protected division, which never divides by less
 * than 1e-6). Against the float evaluator the bound is computed per point by
 * first-order forward error analysis of the evolved program in float
 * (u = 2^-24 per operation, 2 ulp for sin, cos, exp, log; errors propagated
 * through each operation's derivative), doubled; points whose float result
 * may sit on the other side of a protected threshold, a comparison or a
 * condition within that error, or overflow float, are skipped and counted
 * (at most half of them may be). Both checks also skip points where a sin or
 * cos argument exceeds 1e6 (rounding of the argument decides the result). */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "gp/gp_conv.h"
#include "gp/gp_eval.h"
#include "gp/gp_simplify.h"
#include "gp/gp_tree.h"
#include "rng.h"

/* ---- hand-written cases -------------------------------------------------- */

/* s's value equals the program's (double reference) at random points in
 * [-3, 3] (Boolean programs: random words): relative 1e-9 (every
 * hand-written case is free of cancellation), plus 2e-5 for each number
 * printed as a pi form (GP_SIMPLIFY_PI_REL = 3e-7 of the number, times the
 * magnitude of sin's argument, 2*pi*x1*x2 up to 57, where it multiplies
 * inputs inside sin or cos). */
static void expect_values(const char *prefix, const gp_tree *t, int ninputs, const gp_simple *s)
{
	int words = 0;
	for (int i = 0; i < t->n; i++)
		words |= t->nodes[i].op < GP_OP_COUNT && gp_op_is_bool(t->nodes[i].op);
	rt_rng rng;
	rt_rng_init(&rng, 7, (uint64_t)t->n);
	for (int p = 0; p < 64; p++) {
		double x[4] = {0, 0, 0, 0};
		for (int k = 0; k < ninputs && k < 4; k++)
			x[k] = words ? rt_rng_below(&rng, UINT32_MAX) : rt_rng_range(&rng, -3, 3);
		double d = gp_simplify_eval_prefix(t->nodes, t->n, x), v = gp_simple_eval(s, x);
		double rel = 1e-9 + 2e-5 * s->pi_forms;
		if (isfinite(d) && !(fabs(v - d) <= rel * (1 + fabs(d))))
			fail_msg("%s at x = (%g, %g): evolved %.17g, \"%s\" %.17g", prefix, x[0], x[1],
				 d, s->text.data, v);
	}
}

/* s is within the evolved size n but for its pi forms' extra nodes, which
 * are at most 6 a form ("1/(12*pi**2)" is 7 nodes for one number), and
 * none without forms. */
static void expect_budget(const gp_simple *s, int n)
{
	assert_int_equal(s->evolved_size, n);
	assert_true(s->size - s->pi_extra <= n);
	assert_true(s->pi_extra >= 0 && s->pi_extra <= 6 * s->pi_forms);
}

/* Simplifies a program written as gp_print_prefix text; checks text, size
 * and values. */
static void expect(const char *prefix, int ninputs, const char *text, int size)
{
	rt_error err = {0};
	gp_tree t = {0};
	gp_simple s;
	gp_names nm = {ninputs, NULL};
	if (gp_parse_prefix(prefix, ninputs, &t, &err))
		fail_msg("%s: %s", prefix, err.msg);
	if (gp_simplify(t.nodes, t.n, &nm, &s, &err))
		fail_msg("%s: %s", prefix, err.msg);
	if (strcmp(s.text.data, text) != 0 || s.size != size)
		fail_msg("%s: got \"%s\" (size %d), expected \"%s\" (size %d)", prefix, s.text.data,
			 s.size, text, size);
	expect_budget(&s, t.n);
	expect_values(prefix, &t, ninputs, &s);
	gp_simple_free(&s);
	gp_tree_free(&t);
}

static void test_arithmetic(void **state)
{
	(void)state;
	expect("- $0 $0", 1, "0", 1);
	expect("/ $0 $0", 1, "1", 1);
	expect("* $0 1", 1, "x", 1);
	expect("+ $0 0", 1, "x", 1);
	expect("* $0 0", 1, "0", 1);
	expect("- 0 - 0 $0", 1, "x", 1);                        /* double negation */
	expect("+ 2 * 3 4", 1, "14", 1);                        /* folding */
	expect("+ $0 $0", 1, "2*x", 3);                         /* like terms */
	expect("+ * 2 $0 * 3 $0", 1, "5*x", 3);
	expect("- * $0 $0 * 3 * $0 $0", 1, "-2*x**2", 5);
	expect("* $0 * $0 $0", 1, "x**3", 3);                   /* powers */
	expect("* * $0 $0 - $0 * $0 * $0 $0", 1, "-x**5 + x**3", 8);   /* multiplied out */
	expect("+ $1 $0", 2, "x1 + x2", 3);                     /* canonical order */
	expect("* + $0 1 $1", 2, "x2*(x1 + 1)", 5);             /* minimal parentheses */
	expect("- $0 + $1 1", 2, "x1 - x2 - 1", 5);
	expect("* - $0 $1 - $0 $1", 2, "(x1 - x2)**2", 5);
	expect("/ $0 2", 1, "0.5*x", 3);                        /* division by a constant */
	expect("/ $0 0x1p-24", 1, "1", 1);                      /* ... below 1e-6: protected */
	expect("- / $0 $1 / $0 $1", 2, "0", 1);
}

static void test_protected(void **state)
{
	(void)state;
	/* Not rewritten: log(exp(x)) is x only for -13.8 <= x <= 80. */
	expect("log exp $0", 1, "protlog(protexp(x))", 3);
	expect("exp log $0", 1, "protexp(protlog(x))", 3);
	expect("/ 1 $0", 1, "protdiv(1, x)", 3);
	/* Where the bounds allow it: */
	expect("log exp sin $0", 1, "sin(x)", 2);
	expect("exp log exp sin $0", 1, "exp(sin(x))", 3);
	expect("exp cos $0", 1, "exp(cos(x))", 3);
	expect("log + * $0 $0 1", 1, "log(x**2 + 1)", 6);
	expect("/ $0 + cos $0 2", 1, "x/(cos(x) + 2)", 6);
	expect("* / $0 + cos $0 2 + cos $0 2", 1, "x", 1);     /* a/b*b: b is never 0 */
	expect("* / $0 $0 $0", 1, "x", 1);                     /* x/x is 1 at x = 0 too */
	expect("- * / $0 $0 $0 $0", 1, "0", 1);
}

static void test_logic(void **state)
{
	(void)state;
	expect("> $0 $0", 1, "0", 1);
	expect("== + $0 1 + 1 $0", 1, "1", 1);
	expect("IF > $0 1 $0 $0", 1, "x", 1);
	expect("< $0 $1", 2, "gt(x2, x1)", 3);
	expect("AND > $0 1 1", 1, "gt(x, 1)", 3);
	expect("OR > $0 1 0", 1, "gt(x, 1)", 3);
	expect("OR exp sin $0 $0", 1, "1", 1);                 /* exp(sin(x)) >= 1/e */
	expect("OR exp $0 $0", 1, "OR(x, protexp(x))", 4);     /* exp(-200) is 0 in float */
	expect("> sin $0 2", 1, "0", 1);
	expect("IF exp sin $0 $0 2", 1, "x", 1);
	expect("IF 0 $0 sin $0", 1, "sin(x)", 2);
	expect("IF > $0 1 $0 2", 1, "IF(gt(x, 1), x, 2)", 6);
	expect("not not $0", 2, "x1", 1);
	expect("and $1 $1", 2, "x2", 1);
	expect("nand $0 $0", 2, "~x1", 2);
	expect("or and $1 $0 not $0", 2, "x1 & x2 | ~x1", 6);
	expect("nand $1 $0", 2, "~(x1 & x2)", 3);
	expect("if $0 $1 $1", 2, "x2", 1);
}

static void test_sr_functions(void **state)
{
	(void)state;
	expect("square $0", 1, "x**2", 2);            /* printed as evolved: one node */
	expect("cube - $0 $1", 2, "(x1 - x2)**3", 4);
	expect("pow4 square $0", 1, "x**8", 3);
	expect("square square $0", 1, "x**4", 3);
	expect("* square $0 $0", 1, "x**3", 3);       /* square is a power */
	expect("- pow4 $0 * square $0 square $0", 1, "0", 1);
	expect("sqrt $0", 1, "protsqrt(x)", 2);       /* sqrt |x| */
	expect("sqrt square $0", 1, "abs(x)", 2);
	expect("sqrt * $0 $0", 1, "abs(x)", 2);
	expect("sqrt abs $0", 1, "sqrt(abs(x))", 3);  /* the argument is >= 0 */
	expect("sqrt + square $0 square $1", 2, "sqrt(x1**2 + x2**2)", 6);
	expect("sqrt - 0 exp $0", 1, "sqrt(protexp(x))", 3);
	expect("abs square $0", 1, "x**2", 3);
	expect("abs - 0 exp sin $0", 1, "exp(sin(x))", 3);   /* abs(-y) = y, y > 0 */
	expect("abs abs $0", 1, "abs(x)", 2);
	expect("abs * -2 $0", 1, "abs(2*x)", 4);
	expect("tanh $0", 1, "tanh(x)", 2);
	expect("> tanh $0 1.5", 1, "0", 1);            /* tanh is within [-1, 1] */
	expect("aq $0 $1", 2, "aq(x1, x2)", 3);
	expect("aq $0 0", 1, "x", 1);
	expect("aq * 2 $0 square $0", 1, "aq(2 * x, x**2)", 6);   /* as evolved */
	expect("- aq $0 $1 aq $0 $1", 2, "0", 1);
	expect("> aq sin $0 $0 1.5", 1, "0", 1);       /* |aq(a, b)| <= |a| */
	expect("+ $0 3.14159274", 1, "x + pi", 3);   /* pi: a constant, printed as pi */
}

static void test_exp_log_sqrt(void **state)
{
	(void)state;
	/* sqrt(exp(u)) = exp(u/2): exp(u) > 0. Feynman I.6.2a as evolved: */
	expect("* 0.398942292 sqrt exp - 0 square $0", 1, "0.398942292*exp(-0.5*x**2)", 8);
	expect("sqrt - 0 exp sin $0", 1, "exp(0.5*sin(x))", 5);    /* sqrt |-exp| */
	expect("sqrt * 4 exp * 2 sin $0", 1, "2*exp(sin(x))", 5);   /* sqrt(4) out */
	expect("sqrt * $0 exp * -2 sin $0", 1, "protsqrt(x)*exp(-sin(x))", 7);
	expect("sqrt square exp sin $0", 1, "exp(sin(x))", 3);
	expect("sqrt cube exp sin $0", 1, "exp(1.5*sin(x))", 5);   /* exp(u)**3 */
	/* ... not where 0.5 would spread over a sum, nor for the protected exp
	 * (exp(min(x, 80)/2) has no protected form). */
	expect("sqrt * exp sin $0 exp cos $0", 1, "sqrt(exp(sin(x) + cos(x)))", 7);
	expect("sqrt exp $0", 1, "sqrt(protexp(x))", 3);
	expect("sqrt * exp sin $0 exp $0", 1, "sqrt(protexp(x)*exp(sin(x)))", 7);
	/* exp(0.5*sin(x)*cos(x)) is 8: larger than the program, built again
	 * without growing (rather than the program as it is, with protexp). */
	expect("sqrt exp * sin $0 cos $0", 1, "sqrt(exp(sin(x)*cos(x)))", 7);
	/* Products of plain exps: one exp; 1/exp(b) needs exp(b) >= 1e-6. */
	expect("* exp sin $0 exp cos $0", 1, "exp(sin(x) + cos(x))", 6);
	expect("/ exp sin $0 exp cos $0", 1, "exp(sin(x) - cos(x))", 6);
	expect("/ 1 exp sin $0", 1, "exp(-sin(x))", 4);
	expect("* exp sin $0 / 1 exp sin $0", 1, "1", 1);
	expect("/ $0 exp sin $0", 1, "x/exp(sin(x))", 5);            /* x*exp(-sin(x)) is 6 */
	expect("/ exp sin $0 exp $0", 1, "protdiv(exp(sin(x)), protexp(x))", 6);
	expect("/ exp sin $0 exp * 20 sin $0", 1, "protdiv(exp(sin(x)), exp(20*sin(x)))", 9);
	expect("* exp $0 exp $1", 2, "protexp(x1)*protexp(x2)", 5);
	/* exp(k*log(u) + v) = u**k * exp(v) where log(u) is plain (u >= 1e-6). */
	expect("exp * 2 log + cos $0 2", 1, "(cos(x) + 2)**2", 6);
	expect("exp * 0.5 log + cos $0 2", 1, "sqrt(cos(x) + 2)", 5);
	expect("exp * 1.5 log + cos $0 2", 1, "sqrt(cos(x) + 2)**3", 7);
	expect("exp - 0 log + cos $0 2", 1, "1/(cos(x) + 2)", 6);
	expect("exp + log + cos $0 2 sin $0", 1, "exp(sin(x))*(cos(x) + 2)", 8);
	expect("exp * 0.3 log + cos $0 2", 1, "exp(0.300000012*log(cos(x) + 2))", 8);
	/* log of a positive number times plain exps. */
	expect("log * 3 exp sin $0", 1, "sin(x) + 1.09861229", 4);
	expect("log * -3 exp sin $0", 1, "sin(x) + 1.09861229", 4);   /* log |a| */
	expect("log square exp sin $0", 1, "2*sin(x)", 4);
	expect("log * $0 exp sin $0", 1, "protlog(x*exp(sin(x)))", 6);
	expect("log exp * 20 sin $0", 1, "protlog(exp(20*sin(x)))", 6);   /* exp(-20) < 1e-6 */
	/* sqrt of squares stays exact: sqrt(x1**2 * x2**2) = |x1*x2|. */
	expect("sqrt * square $0 square $1", 2, "protsqrt(x1**2 * x2**2)", 6);
	expect("sqrt * * $0 $0 exp * 4 sin $1", 2, "abs(x1)*exp(2*sin(x2))", 8);
}

/* A program's simplified value at x (ninputs inputs) equals v to relative
 * 1e-15: the pi forms' numbers are the forms' exact values. */
static void expect_exact(const char *prefix, int ninputs, const double *x, double v)
{
	rt_error err = {0};
	gp_tree t = {0};
	gp_simple s;
	gp_names nm = {ninputs, NULL};
	if (gp_parse_prefix(prefix, ninputs, &t, &err) || gp_simplify(t.nodes, t.n, &nm, &s, &err))
		fail_msg("%s: %s", prefix, err.msg);
	double got = gp_simple_eval(&s, x);
	if (!(fabs(got - v) <= 1e-15 * fabs(v)))
		fail_msg("%s: \"%s\" is %.17g, expected %.17g", prefix, s.text.data, got, v);
	gp_simple_free(&s);
	gp_tree_free(&t);
}

/* Numbers within GP_SIMPLIFY_PI_REL of p*pi**k/q print as that form. */
static void test_pi_forms(void **state)
{
	(void)state;
	/* The named constant pi (3.14159274f) and what folds from it. */
	expect("+ $0 3.14159274", 1, "x + pi", 3);
	expect("- 0 3.14159274", 1, "-pi", 2);
	expect("* 2 3.14159274", 1, "2*pi", 3);
	expect("/ 1 3.14159274", 1, "1/pi", 3);
	expect("/ 1 * 2 3.14159274", 1, "1/(2*pi)", 5);
	expect("* * 2 3.14159274 * 2 3.14159274", 1, "4*pi**2", 5);
	expect("+ $0 / 3.14159274 2", 1, "x + pi/2", 5);
	expect("- $0 / 3.14159274 2", 1, "x - pi/2", 5);
	/* Coefficients: numerator and denominator of the product. */
	expect("* $0 3.14159274", 1, "pi*x", 3);
	expect("/ $0 3.14159274", 1, "x/pi", 3);
	expect("/ - 0 $0 3.14159274", 1, "-x/pi", 4);
	expect("* + $0 $0 3.14159274", 1, "2*pi*x", 5);
	expect("- 0 * 1.57079637 - + $0 $0 $0", 1, "-pi*x/2", 6);
	expect("* 3.14159274 * 3.14159274 - + $0 $0 $0", 1, "pi**2*x", 5);
	expect("/ / $0 3.14159274 3.14159274", 1, "x/pi**2", 5);
	expect("/ sin $0 * 3.14159274 3.14159274", 1, "sin(x)/pi**2", 6);
	/* Evolved constants a few float ulps from a form: 0.159154983 is
	 * 2.5e-7 from 1/(2*pi), 0.31830987 1e-8 from 1/pi. */
	expect("* 0.159154983 - + $0 $0 $0", 1, "x/(2*pi)", 5);
	expect("* 0.31830987 $0", 1, "x/pi", 3);
	expect("/ 1 0.31830987", 1, "pi", 1);
	expect("/ - + $0 $0 $0 * $1 6.28318548", 2, "protdiv(x1, 2*pi*x2)", 7);
	expect("IF > $0 $1 3.14159274 1.57079637", 2, "IF(gt(x1, x2), pi, pi/2)", 8);
	/* A form may grow the formula beyond the program by the nodes it adds
	 * (pi_extra): x/(2*pi) is 5 for 3, sin(2*pi*x1*x2) 8 for 6. */
	expect("* 0.159154983 $0", 1, "x/(2*pi)", 5);
	expect("sin * 6.28318548 * $0 $1", 2, "sin(2*pi*x1*x2)", 8);
	expect("+ * $1 3.14159274 * $0 6.28318548", 2, "2*pi*x1 + pi*x2", 9);
	expect("* -6.28318548 $0", 1, "-2*pi*x", 5);
	expect("sin / $0 6.28318548", 1, "sin(x/(2*pi))", 6);
	/* sin(E*t/(h/(2*pi)))**2 (Feynman III.7.38 in SRBench), h an input:
	 * as evolved (the quotient by h stays protected), 11 for 9. */
	expect("square sin / * $0 $1 / $2 6.28318548", 3,
	       "sin(protdiv(x1 * x2, protdiv(x3, 2*pi)))**2", 11);
	/* As evolved (the simplified form, a**2 counting 3, is larger): the
	 * program printed as it is, with its forms. */
	expect("square sin * 6.28318548 $0", 1, "sin((2*pi) * x)**2", 7);
	expect("square sin * 0.5 $0", 1, "sin(0.5 * x)**2", 5);
	expect("square + $0 3.14159274", 1, "(x + pi)**2", 4);
	expect("square + $0 1.57079637", 1, "(x + (pi/2))**2", 6);
	/* Not close: numbers stay numbers (0.3183 is 3e-4 from 1/pi). */
	expect("* 0.3183 - + $0 $0 $0", 1, "0.318300009*x", 3);
	expect("+ $0 3.1416", 1, "x + 3.14159989", 3);
	expect("- $0 * 3.14159274 - + $0 $0 $0", 1, "-2.14159274*x", 3);
	expect("* $0 9.8696", 1, "9.8696003*x", 3);
	expect("sin * 6.2832 * $0 $1", 2, "sin(6.28319979*x1*x2)", 6);   /* 2.3e-6 off 2*pi */
	expect("square sin * 6.2832 $0", 1, "sin(6.28319979 * x)**2", 5);
	expect("* 0.1591 $0", 1, "0.159099996*x", 3);
	/* The printed form is the value. */
	double one = 1;
	expect_exact("* 0.159154983 - + $0 $0 $0", 1, &one, 0.5 / 3.14159265358979323846);
	expect_exact("* 2 3.14159274", 1, &one, 2 * 3.14159265358979323846);
	expect_exact("square + $0 3.14159274", 1, &one,
		     (1 + 3.14159265358979323846) * (1 + 3.14159265358979323846));
	double x12[2] = {0.3, 0.7};
	expect_exact("sin * 6.28318548 * $0 $1", 2, x12, sin(2 * 3.14159265358979323846 * 0.21));
	double quarter = 0.25;
	expect_exact("square sin * 6.28318548 $0", 1, &quarter, 1);
}

/* -c*log(a/b) = c*log(b/a) for plain logs (both arguments >= 1e-6). */
static void test_log_quotients(void **state)
{
	(void)state;
	expect("- 0 log / + cos $0 2 + sin $0 2", 1, "log((sin(x) + 2)/(cos(x) + 2))", 10);
	expect("* -3 log / + cos $0 2 + sin $0 2", 1, "3*log((sin(x) + 2)/(cos(x) + 2))", 12);
	expect("* * -1 $0 log / + cos $1 2 + sin $1 2", 2, "x1*log((sin(x2) + 2)/(cos(x2) + 2))", 12);
	expect("- $0 log / + cos $0 2 + sin $0 2", 1, "x + log((sin(x) + 2)/(cos(x) + 2))", 12);
	expect("- 0 log / 1 + cos $0 2", 1, "log(cos(x) + 2)", 5);          /* log(1/u) */
	expect("* -0.5 log / * 2 + cos $0 2 + sin $0 2", 1,
	       "0.5*log((sin(x) + 2)/(2*cos(x) + 4))", 14);
	expect("- 0 * log / + cos $0 2 + sin $0 2 log / + cos $1 2 + sin $1 2", 2,
	       "log((cos(x2) + 2)/(sin(x2) + 2))*log((sin(x1) + 2)/(cos(x1) + 2))", 21);
	/* Not: a positive sign, no quotient, an inverse not proven >= 1e-6
	 * ((cos(x) + 2)/(x**2 + 1) reaches 0), a protected log. */
	expect("log / + cos $0 2 + sin $0 2", 1, "log((cos(x) + 2)/(sin(x) + 2))", 10);
	expect("- 0 log + cos $0 2", 1, "-log(cos(x) + 2)", 6);
	expect("- 0 log * + cos $0 2 + sin $0 2", 1, "-log((sin(x) + 2)*(cos(x) + 2))", 11);
	expect("- 0 log / + * $0 $0 1 + cos $0 2", 1, "-log((x**2 + 1)/(cos(x) + 2))", 12);
	expect("- 0 log / $0 $1", 2, "-protlog(protdiv(x1, x2))", 5);
}

static void test_fallback(void **state)
{
	(void)state;
	/* Nothing to gain: the evolved program as it is, in the same syntax. */
	expect("+ sin $0 * cos $0 -0.5", 1, "sin(x) - 0.5*cos(x)", 7);   /* as large: kept */
	expect("* -2 + $0 sin $0", 1, "(-2) * (x + sin(x))", 6);    /* -2*x - 2*sin(x) is 8 */
	expect("nand $0 $1", 2, "~(x1 & x2)", 3);
	rt_error err = {0};
	gp_simple s;
	gp_node bad[2] = {gp_fn(GP_OP_ADD), gp_var(0)};
	assert_int_equal(gp_simplify(bad, 2, NULL, &s, &err), RT_ERR_INPUT);
	gp_simple_free(&s);
}

/* ---- reference with a float error bound ----------------------------------- */

#define U 0x1p-24
#define EPS ((double)1e-6f)

typedef struct ref {
	double v, e;     /* double value and bound on the float evaluation's error */
} ref;

typedef struct ref_ctx {
	const gp_node *t;
	int n, i;
	const double *x;
	double maxabs;   /* largest intermediate magnitude */
	int unsure;      /* the float result may take another branch, or overflow */
	int trig_big;    /* a sin/cos argument beyond 1e6 */
	double const_rel;   /* relative error of every constant (pi forms) */
} ref_ctx;

/* Flags a branch decided by the sign of d (which carries error e). */
static void near(ref_ctx *c, double d, double e)
{
	if (fabs(d) <= 2 * e && e > 0)
		c->unsure = 1;
}

static ref ref_fn(ref_ctx *c, int op, ref a, ref b, ref r3)
{
	ref r = {0, 0};
	double aa = fabs(a.v);
	switch (op) {
	case GP_OP_ADD: case GP_OP_SUB:
		r.v = op == GP_OP_ADD ? a.v + b.v : a.v - b.v;
		r.e = a.e + b.e + U * (fabs(r.v) + a.e + b.e);
		return r;
	case GP_OP_MUL:
		r.v = a.v * b.v;
		r.e = aa * b.e + fabs(b.v) * a.e + a.e * b.e;
		r.e += U * (fabs(r.v) + r.e);
		return r;
	case GP_OP_DIV:
		near(c, fabs(b.v) - EPS, b.e);
		if (fabs(b.v) < EPS)
			return (ref){1, 0};
		r.v = a.v / b.v;
		r.e = (a.e + fabs(r.v) * b.e) / fmax(fabs(b.v) - 2 * b.e, EPS / 2) + U * fabs(r.v);
		return r;
	case GP_OP_SIN: case GP_OP_COS:
		c->trig_big |= aa > 1e6;
		r.v = op == GP_OP_SIN ? sin(a.v) : cos(a.v);
		r.e = a.e + 3 * U;
		return r;
	case GP_OP_LOG:
		near(c, aa - EPS, a.e);
		if (aa < EPS)
			return (ref){0, 0};
		r.v = log(aa);
		r.e = a.e / fmax(aa - 2 * a.e, EPS / 2) + 3 * U * fabs(r.v);
		return r;
	case GP_OP_EXP:
		r.v = exp(fmin(a.v, 80));
		r.e = r.v * expm1(fmin(a.e, 700)) + 3 * U * r.v;
		return r;
	case GP_OP_GT: case GP_OP_LT: case GP_OP_EQ:
		near(c, a.v - b.v, a.e + b.e);
		r.v = op == GP_OP_GT ? a.v > b.v : op == GP_OP_LT ? a.v < b.v : a.v == b.v;
		return r;
	case GP_OP_AND: case GP_OP_OR:
		near(c, a.v, a.e);
		near(c, b.v, b.e);
		r.v = op == GP_OP_AND ? a.v != 0 && b.v != 0 : a.v != 0 || b.v != 0;
		return r;
	case GP_OP_IF:
		near(c, a.v, a.e);
		return a.v != 0 ? b : r3;
	case GP_OP_SQRT:   /* |sqrt x - sqrt y| <= sqrt |x - y| */
		r.v = sqrt(aa);
		r.e = fmin(sqrt(a.e), aa > a.e ? a.e / (2 * sqrt(aa - a.e)) : INFINITY) + U * r.v;
		return r;
	case GP_OP_SQUARE: case GP_OP_CUBE: case GP_OP_POW4: {
		int k = op == GP_OP_SQUARE ? 2 : op == GP_OP_CUBE ? 3 : 4;
		r.v = pow(a.v, k);   /* saturation: past 1e37, unsure (ref_eval) */
		r.e = k * pow(aa + a.e, k - 1) * a.e;
		r.e += (k == 2 ? 1 : 2) * U * (fabs(r.v) + r.e);
		return r;
	}
	case GP_OP_TANH:
		r.v = tanh(a.v);
		r.e = a.e + 4 * U;
		return r;
	case GP_OP_ABS:
		r.v = aa;
		r.e = a.e;
		return r;
	case GP_OP_AQ:   /* d/da <= 1, |d/db| <= |a| / 2 */
		if (!(b.v * b.v < 1e37))
			c->unsure = 1;   /* b * b overflows float */
		r.v = a.v / sqrt(1 + b.v * b.v);
		r.e = a.e + 0.5 * (aa + a.e) * b.e + 4 * U * fabs(r.v);
		return r;
	default:
		c->unsure = 1;
		return r;
	}
}

static ref ref_eval(ref_ctx *c)
{
	const gp_node *nd = &c->t[c->i++];
	ref r = {0, 0}, g[3] = {{0, 0}, {0, 0}, {0, 0}};
	if (nd->op == GP_TERM_VAR)
		r.v = c->x[nd->var];
	else if (nd->op == GP_TERM_CONST) {
		r.v = nd->value;
		r.e = c->const_rel * fabs(r.v);
	}
	else {
		for (int k = 0; k < gp_op_arity(nd->op); k++)
			g[k] = ref_eval(c);
		r = ref_fn(c, nd->op, g[0], g[1], g[2]);
	}
	c->maxabs = fmax(c->maxabs, fabs(r.v));
	if (!(fabs(r.v) + r.e < 1e37))
		c->unsure = 1;
	return r;
}

/* ---- property test -------------------------------------------------------------- */

#define NPOINTS 64

typedef struct prop_stats {
	long programs, points, skipped, float_checked, rewritten;
	long evolved_nodes, simplified_nodes;
	long pi_checked;   /* points of programs printed with pi forms */
} prop_stats;

/* The float CPU evaluator's outputs of t at the points (column-major x). */
static void float_outputs(const gp_tree *t, int ninputs, const float *xf, float *out)
{
	rt_error err = {0};
	gp_packed pk;
	gp_packed_init(&pk);
	float y[NPOINTS] = {0};
	gp_cases cs = {0};
	cs.fitness = GP_FIT_MSE;
	cs.ninputs = ninputs;
	cs.ncases = NPOINTS;
	cs.stride = NPOINTS;
	cs.x = (float *)xf;
	cs.y = y;
	if (gp_pack_lgp(&pk, t, 1, &err) || gp_eval_cpu_outputs(&pk, &cs, out, &err))
		fail_msg("float evaluator: %s", err.msg);
	gp_packed_free(&pk);
}

static void check_point(const gp_tree *t, const gp_simple *s, const double *x, float fout,
			prop_stats *st)
{
	ref_ctx c = {t->nodes, t->n, 0, x, 0, 0, 0, 0};
	ref r = ref_eval(&c);
	double d = gp_simplify_eval_prefix(t->nodes, t->n, x);
	double v = gp_simple_eval(s, x);
	st->points++;
	if (c.trig_big || !isfinite(d)) {
		st->skipped++;
		return;
	}
	double tol = 1e-9 * (1 + c.maxabs);
	if (s->pi_forms) {
		/* Numbers printed as pi forms are within GP_SIMPLIFY_PI_REL of
		 * the (folded) constants: the program's error bound with that
		 * error on every constant (and float rounding) covers them. */
		ref_ctx cp = {t->nodes, t->n, 0, x, 0, 0, 0, GP_SIMPLIFY_PI_REL};
		ref rp = ref_eval(&cp);
		c.unsure |= cp.unsure;
		tol += 2 * rp.e;
		r.e = fmax(r.e, rp.e);
		st->pi_checked++;
	}
	if (!(fabs(v - d) <= tol) && !c.unsure) {
		rt_buf b = {0};
		gp_print_prefix(&b, t->nodes, t->n);
		fail_msg("x = %.17g: evolved %.17g, simplified %.17g (tol %.3g)\n  %s\n  %s", x[0], d, v,
			 tol, b.data, s->text.data);
	}
	if (c.unsure) {
		st->skipped++;
		return;
	}
	st->float_checked++;
	double ftol = 2 * r.e + tol;
	if (!(fabs((double)fout - v) <= ftol)) {
		rt_buf b = {0};
		gp_print_prefix(&b, t->nodes, t->n);
		fail_msg("x = %.9g: float %.9g, simplified %.17g (bound %.3g)\n  %s\n  %s", x[0],
			 (double)fout, v, ftol, b.data, s->text.data);
	}
}

static void check_program(const gp_tree *t, int ninputs, rt_rng *rng, prop_stats *st)
{
	rt_error err = {0};
	gp_simple s;
	gp_names nm = {ninputs, NULL};
	if (gp_simplify(t->nodes, t->n, &nm, &s, &err))
		fail_msg("gp_simplify: %s", err.msg);
	expect_budget(&s, t->n);
	st->programs++;
	st->rewritten += s.rewritten;
	st->evolved_nodes += t->n;
	st->simplified_nodes += s.size;
	float xf[4 * NPOINTS], out[NPOINTS];
	for (int k = 0; k < ninputs * NPOINTS; k++)
		xf[k] = (float)rt_rng_range(rng, -3, 3);
	float_outputs(t, ninputs, xf, out);
	for (int p = 0; p < NPOINTS; p++) {
		double x[4];
		for (int k = 0; k < ninputs; k++)
			x[k] = xf[k * NPOINTS + p];
		check_point(t, &s, x, out[p], st);
	}
	gp_simple_free(&s);
}

static void property(const char *funcs, int ninputs, int consts, float cmin, float cmax)
{
	rt_error err = {0};
	gp_fset fs;
	if (gp_fset_parse(&fs, funcs, ninputs, &err))
		fail_msg("%s: %s", funcs, err.msg);
	fs.use_consts = consts;
	fs.const_min = cmin;
	fs.const_max = cmax;
	fs.const_prob = consts ? 0.3 : 0;
	rt_rng rng;
	rt_rng_init(&rng, 20240531, (uint64_t)ninputs << 8 | (uint64_t)strlen(funcs));
	gp_tree t = {0};
	prop_stats st = {0};
	for (int i = 0; i < 600; i++) {
		int depth = 1 + (int)rt_rng_below(&rng, 7);
		if (gp_tree_random(&t, &fs, depth, (int)rt_rng_below(&rng, 2), &rng, &err))
			fail_msg("gp_tree_random: %s", err.msg);
		check_program(&t, ninputs, &rng, &st);
	}
	gp_tree_free(&t);
	printf("  %-48s %ld programs (%ld rewritten), nodes %ld -> %ld; %ld of %ld points "
	       "checked against float, %ld skipped, %ld with pi forms\n", funcs, st.programs,
	       st.rewritten, st.evolved_nodes, st.simplified_nodes, st.float_checked, st.points,
	       st.skipped, st.pi_checked);
	assert_true(st.skipped * 2 <= st.points);
	assert_true(st.simplified_nodes < st.evolved_nodes);
}

static void test_property_sextic(void **state)
{
	(void)state;
	property("+ - * /", 1, 0, 0, 0);          /* sextic.ini's set, no constants */
	property("+ - * /", 2, 1, -1, 1);
}

static void test_property_transcendental(void **state)
{
	(void)state;
	property("+ - * / sin cos log exp", 1, 1, -1, 1);
	property("+ * / log exp", 2, 1, -5, 5);
}

static void test_property_sr(void **state)
{
	(void)state;
	property("+ - * / sqrt square cube pow4 tanh abs aq", 2, 1, -2, 2);
	property("+ - * sqrt square abs aq exp log pi e", 1, 0, 0, 0);
}

/* exp, log and sqrt of bounded arguments (sin, cos, squares): their
 * plain forms, products of exps, sqrt(exp(u)), exp(k*log(u)). */
static void test_property_exp(void **state)
{
	(void)state;
	property("* / - sqrt square exp log sin cos", 1, 1, -2, 2);
	property("+ * / sqrt exp log cos", 2, 1, -3, 3);
}

static void test_property_logic(void **state)
{
	(void)state;
	property("+ - * / sin cos log exp > < == AND OR IF", 3, 1, -2, 2);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_arithmetic),
		cmocka_unit_test(test_protected),
		cmocka_unit_test(test_logic),
		cmocka_unit_test(test_sr_functions),
		cmocka_unit_test(test_exp_log_sqrt),
		cmocka_unit_test(test_pi_forms),
		cmocka_unit_test(test_log_quotients),
		cmocka_unit_test(test_fallback),
		cmocka_unit_test(test_property_sextic),
		cmocka_unit_test(test_property_transcendental),
		cmocka_unit_test(test_property_logic),
		cmocka_unit_test(test_property_sr),
		cmocka_unit_test(test_property_exp),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
