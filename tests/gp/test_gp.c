/* test_gp.c: the GP engine: tree -> RPN -> LGP conversion (the paper's
 * sextic example), the operation table's protected semantics, round trips
 * checked against a recursive float64 reference, multiplexer solutions,
 * variation limits, reproducibility and spec errors. */
#include <float.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "gp/gp.h"
#include "gp/gp_conv.h"
#include "gp/gp_eval.h"
#include "gp/gp_problem.h"
#include "gp/gp_tree.h"
#include "log.h"
#include "out.h"
#include "rng.h"
#include "spec.h"

/* ---- references ------------------------------------------------------------ */

/* The table's float semantics, straight from the X-macro. */
static float apply_float(int op, float a, float b, float c)
{
	(void)b;
	(void)c;
	switch (op) {
#define GP_CASE_(E, name, arity, expr) \
	case GP_OP_##E: return (expr);
		GP_FLOAT_OPS(GP_CASE_)
#undef GP_CASE_
	default: return NAN;
	}
}

static uint32_t apply_bool(int op, uint32_t a, uint32_t b, uint32_t c)
{
	(void)b;
	(void)c;
	switch (op) {
#define GP_CASE_(E, name, arity, expr) \
	case GP_OP_##E: return (expr);
		GP_BOOL_OPS(GP_CASE_)
#undef GP_CASE_
	default: return 0;
	}
}

/* The same semantics written independently in double (the float64 reference). */
static double ref_apply(int op, double a, double b, double c)
{
	switch (op) {
	case GP_OP_ADD: return a + b;
	case GP_OP_SUB: return a - b;
	case GP_OP_MUL: return a * b;
	case GP_OP_DIV: return fabs(b) < 1e-6 ? 1.0 : a / b;
	case GP_OP_SIN: return sin(a);
	case GP_OP_COS: return cos(a);
	case GP_OP_LOG: return fabs(a) < 1e-6 ? 0.0 : log(fabs(a));
	case GP_OP_EXP: return exp(a < 80.0 ? a : 80.0);
	case GP_OP_GT: return a > b;
	case GP_OP_LT: return a < b;
	case GP_OP_EQ: return a == b;
	case GP_OP_AND: return a != 0.0 && b != 0.0;
	case GP_OP_OR: return a != 0.0 || b != 0.0;
	case GP_OP_IF: return a != 0.0 ? b : c;
	case GP_OP_SQRT: return sqrt(fabs(a));
	case GP_OP_SQUARE: return fmin(fmax(a * a, -FLT_MAX), FLT_MAX);
	case GP_OP_CUBE: return fmin(fmax(a * a * a, -FLT_MAX), FLT_MAX);
	case GP_OP_POW4: return fmin(fmax(a * a * a * a, -FLT_MAX), FLT_MAX);
	case GP_OP_TANH: return tanh(a);
	case GP_OP_ABS: return fabs(a);
	case GP_OP_AQ: return a / sqrt(1.0 + b * b);
	default: return NAN;
	}
}

/* Recursive evaluation of a prefix tree in double at inputs x. */
static double ref_eval(const gp_node *t, int *i, const double *x)
{
	const gp_node *nd = &t[(*i)++];
	if (nd->op == GP_TERM_VAR)
		return x[nd->var];
	if (nd->op == GP_TERM_CONST)
		return nd->value;
	double v[3] = {0, 0, 0};
	for (int k = 0; k < gp_op_arity(nd->op); k++)
		v[k] = ref_eval(t, i, x);
	return ref_apply(nd->op, v[0], v[1], v[2]);
}

/* Recursive evaluation in float with the table's expressions. */
static float ref_eval_f(const gp_node *t, int *i, const float *x)
{
	const gp_node *nd = &t[(*i)++];
	if (nd->op == GP_TERM_VAR)
		return x[nd->var];
	if (nd->op == GP_TERM_CONST)
		return nd->value;
	float v[3] = {0, 0, 0};
	for (int k = 0; k < gp_op_arity(nd->op); k++)
		v[k] = ref_eval_f(t, i, x);
	return apply_float(nd->op, v[0], v[1], v[2]);
}

/* Recursive Boolean evaluation on one word of 32 cases. */
static uint32_t ref_eval_b(const gp_node *t, int *i, const uint32_t *x)
{
	const gp_node *nd = &t[(*i)++];
	if (nd->op == GP_TERM_VAR)
		return x[nd->var];
	uint32_t v[3] = {0, 0, 0};
	for (int k = 0; k < gp_op_arity(nd->op); k++)
		v[k] = ref_eval_b(t, i, x);
	return apply_bool(nd->op, v[0], v[1], v[2]);
}

/* A minimal LGP interpreter (one case, float), independent of the evaluators. */
static float lgp_eval_f(const gp_insn *code, int n, const float *consts, const float *x)
{
	float st[1024];
	int sp = 0;
	for (int i = 0; i < n; i++) {
		int a = gp_op_arity(code[i].op);
		float v[3] = {0, 0, 0};
		/* S operands pop in order, the last S operand being the top. */
		int ns = 0;
		for (int k = 0; k < a; k++)
			ns += GP_INSN_KIND(code[i], k) == GP_SRC_S;
		int base = sp - ns;
		for (int k = 0; k < a; k++) {
			switch (GP_INSN_KIND(code[i], k)) {
			case GP_SRC_S: v[k] = st[base++]; break;
			case GP_SRC_X: v[k] = x[code[i].arg[k]]; break;
			default: v[k] = consts[code[i].arg[k]]; break;
			}
		}
		sp -= ns;
		st[sp++] = apply_float(code[i].op, v[0], v[1], v[2]);
	}
	return st[0];
}

/* A minimal 1-D RPN interpreter (one case, float). */
static float rpn_eval_f(const gp_node *p, int n, const float *x)
{
	float st[1024];
	int sp = 0;
	for (int i = 0; i < n; i++) {
		if (p[i].op == GP_TERM_VAR)
			st[sp++] = x[p[i].var];
		else if (p[i].op == GP_TERM_CONST)
			st[sp++] = p[i].value;
		else {
			int a = gp_op_arity(p[i].op);
			sp -= a;
			st[sp] = apply_float(p[i].op, st[sp], a > 1 ? st[sp + 1] : 0,
					     a > 2 ? st[sp + 2] : 0);
			sp++;
		}
	}
	return st[0];
}

static char *text(rt_buf *b)
{
	return b->data ? b->data : (char *)"";
}

/* ---- conversion -------------------------------------------------------------- */

/* (x*(x*x) - x) * (x*(x*x) - x) = x^6 - 2x^4 + x^2, in prefix order. */
static const gp_node *sextic_tree(int *n)
{
	static gp_node t[15];
	int k = 0;
	t[k++] = gp_fn(GP_OP_MUL);
	for (int h = 0; h < 2; h++) {
		t[k++] = gp_fn(GP_OP_SUB);
		t[k++] = gp_fn(GP_OP_MUL);
		t[k++] = gp_var(0);
		t[k++] = gp_fn(GP_OP_MUL);
		t[k++] = gp_var(0);
		t[k++] = gp_var(0);
		t[k++] = gp_var(0);
	}
	*n = k;
	return t;
}

static void sextic_conversion(void **state)
{
	(void)state;
	rt_error err = {0};
	int n;
	const gp_node *t = sextic_tree(&n);
	assert_int_equal(n, 15);
	assert_true(gp_tree_valid(t, n, 1));
	assert_int_equal(gp_tree_depth(t, n), 4);

	gp_node rpn[15];
	assert_int_equal(gp_tree_to_rpn(t, n, rpn), 4);
	gp_names nm = {1, NULL};
	rt_buf b = {0};
	gp_print_rpn(&b, rpn, n, &nm);
	assert_string_equal(text(&b), "x x x * * x - x x x * * x - *");
	rt_buf_free(&b);

	gp_insn code[15];
	float consts[15];
	int nc, nk, ms;
	assert_int_equal(gp_lgp_from_rpn(rpn, n, code, &nc, consts, &nk, &ms, &err), RT_OK);
	assert_int_equal(nc, 7);
	assert_int_equal(nk, 0);
	assert_int_equal(ms, 2);
	assert_int_equal(gp_lgp_max_stack(code, nc), 2);
	gp_print_lgp(&b, code, nc, consts, &nm);
	assert_string_equal(text(&b), "*(XX) *(XS) -(SX) *(XX) *(XS) -(SX) *(SS)");
	rt_buf_free(&b);

	gp_print_infix(&b, t, n, &nm);
	assert_string_equal(text(&b), "(((x * (x * x)) - x) * ((x * (x * x)) - x))");
	rt_buf_free(&b);

	/* The same through the population packers. */
	gp_tree tr = {0};
	assert_int_equal(gp_tree_set(&tr, t, n, &err), RT_OK);
	gp_packed p;
	gp_packed_init(&p);
	assert_int_equal(gp_pack_lgp(&p, &tr, 1, &err), RT_OK);
	assert_int_equal(p.form, GP_FORM_LGP);
	assert_int_equal(p.nprogs, 1);
	assert_int_equal(p.offset[1], 7);
	assert_int_equal(p.max_stack[0], 2);
	assert_int_equal(p.nnodes[0], 15);
	assert_int_equal(gp_pack_rpn(&p, &tr, 1, &err), RT_OK);
	assert_int_equal(p.form, GP_FORM_RPN);
	assert_int_equal(p.offset[1], 15);
	assert_int_equal(p.max_stack[0], 4);
	gp_packed q;
	gp_packed_init(&q);
	assert_int_equal(gp_pack_lgp_from_rpn(&q, &p, &err), RT_OK);
	assert_int_equal(q.offset[1], 7);
	assert_int_equal(q.max_stack[0], 2);
	gp_packed_free(&p);
	gp_packed_free(&q);

	/* Error 0 on sextic fitness cases (x uniform in [-1, 1]), in float via
	 * LGP and RPN, and in double via the recursive reference. */
	rt_rng rng;
	rt_rng_init(&rng, 7, 0);
	double sse_lgp = 0, sse_ref = 0;
	for (int c = 0; c < 10000; c++) {
		double x = rt_rng_range(&rng, -1, 1);
		float xf = (float)x;
		double xd = xf;
		double y = xd * xd * xd * xd * xd * xd - 2 * xd * xd * xd * xd + xd * xd;
		int i = 0;
		double r = ref_eval(t, &i, &xd);
		sse_ref += (r - y) * (r - y);
		float l = lgp_eval_f(code, nc, consts, &xf);
		assert_true(l == rpn_eval_f(rpn, n, &xf));
		sse_lgp += ((double)l - y) * ((double)l - y);
	}
	assert_true(sse_ref / 10000 < 1e-24);
	assert_true(sse_lgp / 10000 < 1e-12);
	gp_tree_free(&tr);
}

/* The issue's `+(XX) *(XS) -(SX) ...` is ((x+x)*x - x)^2 = (2x^2 - x)^2, which
 * is not the sextic: check the conversion and that its error is not 0. */
static void issue_plus_variant(void **state)
{
	(void)state;
	rt_error err = {0};
	int n;
	gp_node t[15];
	memcpy(t, sextic_tree(&n), sizeof t);
	t[4] = gp_fn(GP_OP_ADD);
	t[11] = gp_fn(GP_OP_ADD);
	gp_node rpn[15];
	gp_insn code[15];
	float consts[15];
	int nc, nk, ms;
	assert_true(gp_tree_to_rpn(t, n, rpn) > 0);
	assert_int_equal(gp_lgp_from_rpn(rpn, n, code, &nc, consts, &nk, &ms, &err), RT_OK);
	gp_names nm = {1, NULL};
	rt_buf b = {0};
	gp_print_lgp(&b, code, nc, consts, &nm);
	assert_string_equal(text(&b), "+(XX) *(XS) -(SX) +(XX) *(XS) -(SX) *(SS)");
	rt_buf_free(&b);
	double x = 0.5;
	int i = 0;
	assert_true(fabs(ref_eval(t, &i, &x) - 0.0) < 1e-12);  /* (2/4 - 1/2)^2 = 0 at 0.5 */
	x = -0.5;
	i = 0;
	double y = pow(x, 6) - 2 * pow(x, 4) + x * x;
	assert_true(fabs(ref_eval(t, &i, &x) - y) > 0.1);      /* 1 vs 0.140625 */
}

static void conversion_errors(void **state)
{
	(void)state;
	rt_error err = {0};
	gp_node one = gp_var(0);
	gp_insn code[4];
	float consts[4];
	int nc, nk, ms;
	/* A lone terminal has no LGP instruction. */
	assert_int_equal(gp_lgp_from_rpn(&one, 1, code, &nc, consts, &nk, &ms, &err), RT_ERR_INPUT);
	/* Underflow and leftovers. */
	gp_node bad[3] = {gp_var(0), gp_fn(GP_OP_ADD), gp_var(0)};
	assert_int_equal(gp_lgp_from_rpn(bad, 2, code, &nc, consts, &nk, &ms, &err), RT_ERR_INPUT);
	gp_node two[3] = {gp_var(0), gp_var(0), gp_fn(GP_OP_SIN)};
	assert_int_equal(gp_lgp_from_rpn(two, 3, code, &nc, consts, &nk, &ms, &err), RT_ERR_INPUT);
	assert_int_equal(gp_rpn_max_stack(bad, 2), -1);
	/* Malformed prefix trees. */
	gp_node out[4];
	gp_node p1[2] = {gp_fn(GP_OP_ADD), gp_var(0)};
	assert_int_equal(gp_tree_to_rpn(p1, 2, out), -1);
	assert_false(gp_tree_valid(p1, 2, 1));
	gp_node p2[2] = {gp_var(0), gp_var(0)};
	assert_int_equal(gp_tree_to_rpn(p2, 2, out), -1);
	assert_false(gp_tree_valid(p2, 2, 1));
	gp_node p3[3] = {gp_fn(GP_OP_ADD), gp_var(0), gp_var(3)};
	assert_false(gp_tree_valid(p3, 3, 2));
	assert_true(gp_tree_valid(p3, 3, 4));
}

/* Constants, several inputs and 3-ary IF: operand order and text. */
static void conversion_operands(void **state)
{
	(void)state;
	rt_error err = {0};
	/* IF(x2 > 0.5, sin(x1), x3 / 2) */
	gp_node t[] = {gp_fn(GP_OP_IF), gp_fn(GP_OP_GT), gp_var(1), gp_const(0.5f),
		       gp_fn(GP_OP_SIN), gp_var(0), gp_fn(GP_OP_DIV), gp_var(2), gp_const(2.0f)};
	int n = (int)(sizeof t / sizeof t[0]);
	gp_node rpn[9];
	gp_insn code[9];
	float consts[9];
	int nc, nk, ms;
	assert_int_equal(gp_tree_to_rpn(t, n, rpn), 4);
	assert_int_equal(gp_lgp_from_rpn(rpn, n, code, &nc, consts, &nk, &ms, &err), RT_OK);
	assert_int_equal(nc, 4);
	assert_int_equal(nk, 2);
	assert_int_equal(ms, 3);
	gp_names nm = {3, NULL};
	rt_buf b = {0};
	gp_print_lgp(&b, code, nc, consts, &nm);
	assert_string_equal(text(&b), ">(X2,0.5) sin(X1) /(X3,2) IF(SSS)");
	rt_buf_free(&b);
	gp_print_infix(&b, t, n, &nm);
	assert_string_equal(text(&b), "IF((x2 > 0.5), sin(x1), (x3 / 2))");
	rt_buf_free(&b);
	const char *names[] = {"a0", "a1", "d0"};
	gp_names nm2 = {3, names};
	gp_print_rpn(&b, rpn, n, &nm2);
	assert_string_equal(text(&b), "a1 0.5 > a0 sin d0 2 / IF");
	rt_buf_free(&b);
	float x[3] = {0.25f, 0.75f, 3.0f};
	assert_true(lgp_eval_f(code, nc, consts, x) == sinf(0.25f));
	x[1] = 0.0f;
	assert_true(lgp_eval_f(code, nc, consts, x) == 1.5f);
}

/* ---- operation semantics --------------------------------------------------- */

static void protected_semantics(void **state)
{
	(void)state;
	/* Names and arities from the one table. */
	assert_int_equal(gp_op_lookup("+"), GP_OP_ADD);
	assert_int_equal(gp_op_lookup("IF"), GP_OP_IF);
	assert_int_equal(gp_op_lookup("nand"), GP_OP_BNAND);
	assert_int_equal(gp_op_lookup("NAND"), -1);
	assert_int_equal(gp_op_arity(GP_OP_IF), 3);
	assert_int_equal(gp_op_arity(GP_OP_SIN), 1);
	assert_int_equal(gp_op_arity(GP_OP_BNOT), 1);
	assert_false(gp_op_is_bool(GP_OP_IF));
	assert_true(gp_op_is_bool(GP_OP_BAND));

	float inf = INFINITY;
	/* Division by ~0 gives 1; otherwise the quotient. */
	assert_true(apply_float(GP_OP_DIV, 3.0f, 0.0f, 0) == 1.0f);
	assert_true(apply_float(GP_OP_DIV, 3.0f, -0.0f, 0) == 1.0f);
	assert_true(apply_float(GP_OP_DIV, 3.0f, 9e-7f, 0) == 1.0f);
	assert_true(apply_float(GP_OP_DIV, 3.0f, -9e-7f, 0) == 1.0f);
	assert_true(apply_float(GP_OP_DIV, 3.0f, 2.0f, 0) == 1.5f);
	assert_true(apply_float(GP_OP_DIV, 1.0f, 2e-6f, 0) == 1.0f / 2e-6f);
	/* log: of |a|, 0 near 0, never NaN for negative arguments. */
	assert_true(apply_float(GP_OP_LOG, 0.0f, 0, 0) == 0.0f);
	assert_true(apply_float(GP_OP_LOG, 5e-7f, 0, 0) == 0.0f);
	assert_true(apply_float(GP_OP_LOG, -1.0f, 0, 0) == 0.0f);
	assert_true(fabsf(apply_float(GP_OP_LOG, -(float)M_E, 0, 0) - 1.0f) < 1e-6f);
	assert_true(fabsf(apply_float(GP_OP_LOG, 100.0f, 0, 0) - logf(100.0f)) < 1e-6f);
	/* exp: capped at exp(80), finite; ordinary otherwise. */
	assert_true(isfinite(apply_float(GP_OP_EXP, 1000.0f, 0, 0)));
	assert_true(apply_float(GP_OP_EXP, 1000.0f, 0, 0) == apply_float(GP_OP_EXP, 80.0f, 0, 0));
	assert_true(isfinite(apply_float(GP_OP_EXP, inf, 0, 0)));
	assert_true(apply_float(GP_OP_EXP, -1000.0f, 0, 0) == 0.0f);
	assert_true(fabsf(apply_float(GP_OP_EXP, 1.0f, 0, 0) - (float)M_E) < 1e-6f);
	assert_true(apply_float(GP_OP_SIN, 0.0f, 0, 0) == 0.0f);
	assert_true(apply_float(GP_OP_COS, 0.0f, 0, 0) == 1.0f);
	/* Symbolic regression's functions: sqrt of |a|; powers saturate at
	 * +-FLT_MAX (never inf from finite or infinite operands); aq never
	 * divides by zero. */
	assert_int_equal(gp_op_lookup("pow2"), GP_OP_SQUARE);
	assert_int_equal(gp_op_lookup("pow3"), GP_OP_CUBE);
	assert_int_equal(gp_op_arity(GP_OP_AQ), 2);
	assert_true(apply_float(GP_OP_SQRT, -4.0f, 0, 0) == 2.0f);
	assert_true(apply_float(GP_OP_SQRT, 2.0f, 0, 0) == sqrtf(2.0f));
	assert_true(apply_float(GP_OP_SQRT, -0.0f, 0, 0) == 0.0f);
	assert_true(apply_float(GP_OP_SQUARE, -3.0f, 0, 0) == 9.0f);
	assert_true(apply_float(GP_OP_CUBE, -3.0f, 0, 0) == -27.0f);
	assert_true(apply_float(GP_OP_POW4, -3.0f, 0, 0) == 81.0f);
	assert_true(apply_float(GP_OP_SQUARE, 1e20f, 0, 0) == FLT_MAX);
	assert_true(apply_float(GP_OP_CUBE, -1e13f, 0, 0) == -FLT_MAX);
	assert_true(apply_float(GP_OP_POW4, inf, 0, 0) == FLT_MAX);
	assert_true(apply_float(GP_OP_CUBE, -inf, 0, 0) == -FLT_MAX);
	assert_true(isnan(apply_float(GP_OP_SQUARE, NAN, 0, 0)));
	assert_true(apply_float(GP_OP_ABS, -2.5f, 0, 0) == 2.5f);
	assert_true(apply_float(GP_OP_TANH, 0.0f, 0, 0) == 0.0f);
	assert_true(apply_float(GP_OP_TANH, 100.0f, 0, 0) == 1.0f);
	assert_true(apply_float(GP_OP_TANH, -inf, 0, 0) == -1.0f);
	assert_true(fabs(apply_float(GP_OP_TANH, -0.7f, 0, 0) - tanh(-0.7)) < 1e-7);
	assert_true(apply_float(GP_OP_AQ, 3.0f, 0.0f, 0) == 3.0f);
	assert_true(apply_float(GP_OP_AQ, 6.0f, 2.0f, 0) == 6.0f / sqrtf(5.0f));
	assert_true(apply_float(GP_OP_AQ, 6.0f, 1e30f, 0) == 0.0f);
	/* Named constants: terminals of fixed value, listed with the functions. */
	{
		gp_fset fs;
		rt_error e2;
		assert_int_equal(gp_fset_parse(&fs, "+ pi * e", 2, &e2), RT_OK);
		assert_int_equal(fs.nfuncs, 2);
		assert_int_equal(fs.nnamed, 2);
		assert_true(gp_named_value(fs.named[0]) == (float)M_PI);
		assert_true(gp_named_value(fs.named[1]) == (float)M_E);
		assert_string_equal(gp_named_name(fs.named[1]), "e");
		assert_int_equal(gp_fset_parse(&fs, "+ pi pi", 2, &e2), RT_ERR_INPUT);
		assert_int_equal(gp_fset_parse(&fs, "pi e", 2, &e2), RT_ERR_INPUT);
		assert_int_equal(gp_fset_parse(&fs, "and or pi", 2, &e2), RT_ERR_INPUT);
		assert_int_equal(gp_fset_parse(&fs, "+ tau", 2, &e2), RT_ERR_INPUT);
		assert_non_null(strstr(e2.msg, "constants: pi e"));
		/* Without ephemeral constants, every constant grown is pi, and
		 * pi is drawn as often as an input (1 of 2 terminals). */
		assert_int_equal(gp_fset_parse(&fs, "+ * pi", 1, &e2), RT_OK);
		gp_tree t = {0};
		rt_rng rng;
		int npi = 0, nvar = 0;
		rt_rng_init(&rng, 5, 0);
		for (int r = 0; r < 200; r++) {
			assert_int_equal(gp_tree_random(&t, &fs, 3, r & 1, &rng, &e2), RT_OK);
			for (int k = 0; k < t.n; k++) {
				if (t.nodes[k].op == GP_TERM_CONST)
					assert_true(t.nodes[k].value == (float)M_PI);
				npi += t.nodes[k].op == GP_TERM_CONST;
				nvar += t.nodes[k].op == GP_TERM_VAR;
			}
		}
		assert_true(npi > 0.4 * (npi + nvar) && npi < 0.6 * (npi + nvar));
		gp_tree_free(&t);
	}
	/* Comparisons give 1.0 or 0.0. */
	assert_true(apply_float(GP_OP_GT, 2.0f, 1.0f, 0) == 1.0f);
	assert_true(apply_float(GP_OP_GT, 1.0f, 1.0f, 0) == 0.0f);
	assert_true(apply_float(GP_OP_LT, 1.0f, 2.0f, 0) == 1.0f);
	assert_true(apply_float(GP_OP_LT, 2.0f, 2.0f, 0) == 0.0f);
	assert_true(apply_float(GP_OP_EQ, 2.0f, 2.0f, 0) == 1.0f);
	assert_true(apply_float(GP_OP_EQ, 2.0f, 2.5f, 0) == 0.0f);
	assert_true(apply_float(GP_OP_EQ, NAN, NAN, 0) == 0.0f);
	/* AND/OR on non-zero, giving 1.0/0.0; IF picks b when a != 0. */
	assert_true(apply_float(GP_OP_AND, 2.0f, -3.0f, 0) == 1.0f);
	assert_true(apply_float(GP_OP_AND, 2.0f, 0.0f, 0) == 0.0f);
	assert_true(apply_float(GP_OP_AND, 0.0f, 0.0f, 0) == 0.0f);
	assert_true(apply_float(GP_OP_OR, 0.0f, -0.5f, 0) == 1.0f);
	assert_true(apply_float(GP_OP_OR, 0.0f, 0.0f, 0) == 0.0f);
	assert_true(apply_float(GP_OP_OR, -0.0f, 0.0f, 0) == 0.0f);
	assert_true(apply_float(GP_OP_IF, 0.5f, 7.0f, 9.0f) == 7.0f);
	assert_true(apply_float(GP_OP_IF, 0.0f, 7.0f, 9.0f) == 9.0f);
	assert_true(apply_float(GP_OP_IF, -0.0f, 7.0f, 9.0f) == 9.0f);
	/* The double reference agrees with the table on the protected cases. */
	const float probe[] = {0.0f, -0.0f, 5e-7f, -2.0f, 0.5f, 3.0f, 90.0f, -90.0f};
	for (int op = 0; op < GP_OP_COUNT; op++) {
		if (gp_op_is_bool(op))
			continue;
		for (size_t i = 0; i < 8; i++)
			for (size_t j = 0; j < 8; j++) {
				float a = probe[i], bb = probe[j], c = probe[(i + j) % 8];
				float f = apply_float(op, a, bb, c);
				double d = ref_apply(op, a, bb, c);
				assert_true(fabs((double)f - d) <= 1e-6 * fmax(1.0, fabs(d)));
			}
	}
	/* Boolean word ops: bitwise on 32 cases at once. */
	uint32_t a = 0xF0F0F0F0u, b = 0xFF00FF00u, c = 0x12345678u;
	assert_true(apply_bool(GP_OP_BAND, a, b, 0) == 0xF000F000u);
	assert_true(apply_bool(GP_OP_BOR, a, b, 0) == 0xFFF0FFF0u);
	assert_true(apply_bool(GP_OP_BNAND, a, b, 0) == 0x0FFF0FFFu);
	assert_true(apply_bool(GP_OP_BNOR, a, b, 0) == 0x000F000Fu);
	assert_true(apply_bool(GP_OP_BNOT, a, 0, 0) == 0x0F0F0F0Fu);
	assert_true(apply_bool(GP_OP_BIF, a, b, c) == ((a & b) | (~a & c)));
	for (int bit = 0; bit < 32; bit++) {
		uint32_t m = 1u << bit;
		uint32_t want = (a & m) ? (b & m) : (c & m);
		assert_true((apply_bool(GP_OP_BIF, a, b, c) & m) == want);
	}
}

/* ---- round trips on random trees ------------------------------------------------ */

static void random_round_trip(void **state)
{
	(void)state;
	rt_error err = {0};
	gp_fset fs;
	assert_int_equal(gp_fset_parse(&fs, "+ - * / sin cos log exp > < == AND OR IF", 3, &err), RT_OK);
	fs.use_consts = 1;
	fs.const_min = -2.0f;
	fs.const_max = 2.0f;
	fs.const_prob = 0.25;
	gp_breed br = gp_breed_defaults();
	br.init_max_depth = 7;
	enum { N = 300 };
	gp_tree pop[N];
	memset(pop, 0, sizeof pop);
	assert_int_equal(gp_init_population(pop, N, &fs, &br, 42, &err), RT_OK);
	gp_packed rpn, lgp;
	gp_packed_init(&rpn);
	gp_packed_init(&lgp);
	assert_int_equal(gp_pack_rpn(&rpn, pop, N, &err), RT_OK);
	assert_int_equal(gp_pack_lgp(&lgp, pop, N, &err), RT_OK);
	rt_rng rng;
	rt_rng_init(&rng, 3, 0);
	int close = 0, total = 0;
	for (int p = 0; p < N; p++) {
		assert_true(gp_tree_valid(pop[p].nodes, pop[p].n, 3));
		assert_true(pop[p].nodes[0].op < GP_OP_COUNT);
		assert_true(gp_tree_depth(pop[p].nodes, pop[p].n) <= 7);
		const gp_node *r = rpn.rpn + rpn.offset[p];
		int nr = (int)(rpn.offset[p + 1] - rpn.offset[p]);
		assert_int_equal(nr, pop[p].n);
		assert_int_equal(rpn.nnodes[p], (uint32_t)pop[p].n);
		assert_int_equal(rpn.max_stack[p], gp_rpn_max_stack(r, nr));
		const gp_insn *code = lgp.lgp + lgp.offset[p];
		int nc = (int)(lgp.offset[p + 1] - lgp.offset[p]);
		const float *consts = lgp.consts + lgp.const_offset[p];
		assert_int_equal(lgp.max_stack[p], gp_lgp_max_stack(code, nc));
		assert_true(lgp.max_stack[p] <= rpn.max_stack[p]);
		for (int c = 0; c < 20; c++) {
			float xf[3];
			double xd[3];
			for (int k = 0; k < 3; k++) {
				xf[k] = (float)rt_rng_range(&rng, -3, 3);
				xd[k] = xf[k];
			}
			int i = 0;
			float f = ref_eval_f(pop[p].nodes, &i, xf);
			float l = lgp_eval_f(code, nc, consts, xf);
			float s = rpn_eval_f(r, nr, xf);
			/* Same operations in the same order: bit-identical in float. */
			assert_true(memcmp(&f, &l, sizeof f) == 0 || (isnan(f) && isnan(l)));
			assert_true(memcmp(&f, &s, sizeof f) == 0 || (isnan(f) && isnan(s)));
			i = 0;
			double d = ref_eval(pop[p].nodes, &i, xd);
			total++;
			if (fabs((double)f - d) <= 1e-3 * fmax(1.0, fabs(d)))
				close++;
		}
	}
	/* float vs double: comparisons and IF may flip on near-ties, so most,
	 * not all, cases agree closely. */
	assert_true(close > total * 9 / 10);
	gp_packed_free(&rpn);
	gp_packed_free(&lgp);
	for (int p = 0; p < N; p++)
		gp_tree_free(&pop[p]);
}

/* ---- a private reference evaluator (serial; RPN or LGP; float or words) ------- */

static uint32_t lgp_eval_b(const gp_insn *code, int n, const uint32_t *x)
{
	uint32_t st[1024];
	int sp = 0;
	for (int i = 0; i < n; i++) {
		int a = gp_op_arity(code[i].op), ns = 0;
		uint32_t v[3] = {0, 0, 0};
		for (int k = 0; k < a; k++)
			ns += GP_INSN_KIND(code[i], k) == GP_SRC_S;
		int base = sp - ns;
		for (int k = 0; k < a; k++)
			v[k] = GP_INSN_KIND(code[i], k) == GP_SRC_S ? st[base++] : x[code[i].arg[k]];
		sp -= ns;
		st[sp++] = apply_bool(code[i].op, v[0], v[1], v[2]);
	}
	return st[0];
}

static uint32_t rpn_eval_b(const gp_node *p, int n, const uint32_t *x)
{
	uint32_t st[1024];
	int sp = 0;
	for (int i = 0; i < n; i++) {
		if (p[i].op == GP_TERM_VAR) {
			st[sp++] = x[p[i].var];
		} else {
			int a = gp_op_arity(p[i].op);
			sp -= a;
			st[sp] = apply_bool(p[i].op, st[sp], a > 1 ? st[sp + 1] : 0, a > 2 ? st[sp + 2] : 0);
			sp++;
		}
	}
	return st[0];
}

static rt_status ref_evaluator(const gp_packed *pop, const gp_cases *c, int method,
			       double *fitness, rt_error *err)
{
	(void)method;
	(void)err;
	for (int p = 0; p < pop->nprogs; p++) {
		int lgp = pop->form == GP_FORM_LGP;
		uint32_t b = pop->offset[p], n = pop->offset[p + 1] - b;
		const float *k = lgp ? pop->consts + pop->const_offset[p] : NULL;
		if (c->fitness == GP_FIT_BOOL) {
			uint64_t wrong = 0;
			for (size_t w = 0; w < c->nwords; w++) {
				uint32_t x[64];
				for (int i = 0; i < c->ninputs; i++)
					x[i] = c->bits[(size_t)i * c->nwords + w];
				uint32_t o = lgp ? lgp_eval_b(pop->lgp + b, (int)n, x)
						 : rpn_eval_b(pop->rpn + b, (int)n, x);
				uint32_t m = w + 1 == c->nwords ? c->last_mask : 0xFFFFFFFFu;
				wrong += (uint64_t)__builtin_popcount((o ^ c->target[w]) & m);
			}
			fitness[p] = (double)wrong;
			continue;
		}
		double acc = 0;
		for (size_t cs = 0; cs < c->ncases; cs++) {
			float x[64];
			for (int i = 0; i < c->ninputs; i++)
				x[i] = c->x[(size_t)i * c->stride + cs];
			float o = lgp ? lgp_eval_f(pop->lgp + b, (int)n, k, x)
				      : rpn_eval_f(pop->rpn + b, (int)n, x);
			if (c->fitness == GP_FIT_MSE) {
				double d = (double)o - c->y[cs];
				acc += d * d;
			} else {
				/* As gp_eval.h: clamp(rintf(o)), a NaN output always wrong. */
				float cls = fmaxf(0.0f, fminf((float)(c->nclasses - 1), rintf(o)));
				acc += isnan(o) || cls != c->y[cs];
			}
		}
		fitness[p] = c->fitness == GP_FIT_MSE ? acc / (double)c->ncases : acc;
	}
	return RT_OK;
}

/* Scores one tree with the reference evaluator in both forms; both must agree. */
static double score_tree(const gp_node *t, int n, const gp_cases *c)
{
	rt_error err = {0};
	gp_tree tr = {0};
	gp_packed p;
	gp_packed_init(&p);
	double f1, f2;
	assert_int_equal(gp_tree_set(&tr, t, n, &err), RT_OK);
	assert_int_equal(gp_pack_rpn(&p, &tr, 1, &err), RT_OK);
	assert_int_equal(ref_evaluator(&p, c, 0, &f1, &err), RT_OK);
	assert_int_equal(gp_pack_lgp(&p, &tr, 1, &err), RT_OK);
	assert_int_equal(ref_evaluator(&p, c, 1, &f2, &err), RT_OK);
	assert_true(f1 == f2);
	/* The library's evaluators give the same (counts exactly; MSE to 1e-9). */
	for (int m = 0; m < GP_EVAL_METHOD_COUNT; m++) {
		double f3;
		if (gp_eval_method_form(m) == GP_FORM_RPN)
			assert_int_equal(gp_pack_rpn(&p, &tr, 1, &err), RT_OK);
		else
			assert_int_equal(gp_pack_lgp(&p, &tr, 1, &err), RT_OK);
		if (gp_eval_cpu(&p, c, m, &f3, &err))
			fail_msg("%s: %s", gp_eval_method_name(m), err.msg);
		if (c->fitness == GP_FIT_MSE)
			assert_true(fabs(f3 - f1) <= 1e-9 * fmax(f1, 1e-300) || f3 == f1);
		else
			assert_true(f3 == f1);
	}
	gp_packed_free(&p);
	gp_tree_free(&tr);
	return f1;
}

/* ---- problems ---------------------------------------------------------------------- */

static void sextic_cases_error_zero(void **state)
{
	(void)state;
	rt_error err = {0};
	gp_cases c;
	assert_int_equal(gp_cases_polynomial(&c, GP_DATA_SEXTIC, 100000, -1, 1, 1, &err), RT_OK);
	assert_int_equal(c.ncases, 100000);
	assert_int_equal(c.stride % 64, 0);
	assert_int_equal(c.fitness, GP_FIT_MSE);
	double lo = 1, hi = -1;
	for (size_t i = 0; i < c.ncases; i++) {
		lo = fmin(lo, c.x[i]);
		hi = fmax(hi, c.x[i]);
		assert_true(c.y[i] == (float)gp_polynomial(GP_DATA_SEXTIC, c.x[i]));
	}
	assert_true(lo >= -1 && lo < -0.999 && hi < 1 && hi > 0.999);
	int n;
	const gp_node *t = sextic_tree(&n);
	double mse = score_tree(t, n, &c);
	assert_true(mse < 1e-12);
	/* x^2 alone is far off. */
	gp_node sq[3] = {gp_fn(GP_OP_MUL), gp_var(0), gp_var(0)};
	assert_true(score_tree(sq, 3, &c) > 1e-3);
	gp_cases_free(&c);
}

/* if(a1, if(a0, d3, d2), if(a0, d1, d0)) with inputs a0 a1 d0..d3. */
static int mux_tree(gp_node *t, int k, int level, int base)
{
	/* Selects among data lines base .. base + 2^level - 1 using address bits
	 * level-1 .. 0 (most significant first). */
	if (level == 0) {
		t[0] = gp_var(k + base);
		return 1;
	}
	int n = 0;
	t[n++] = gp_fn(GP_OP_BIF);
	t[n++] = gp_var(level - 1);
	n += mux_tree(t + n, k, level - 1, base + (1 << (level - 1)));
	n += mux_tree(t + n, k, level - 1, base);
	return n;
}

static void multiplexer_solutions(void **state)
{
	(void)state;
	rt_error err = {0};
	for (int k = 2; k <= 4; k++) {
		gp_cases c;
		assert_int_equal(gp_cases_multiplexer(&c, k, &err), RT_OK);
		int nin = k + (1 << k);
		assert_int_equal(c.ninputs, nin);
		assert_int_equal(c.ncases, (size_t)1 << nin);
		assert_int_equal(c.nwords, ((size_t)1 << nin) / 32);
		assert_int_equal(c.fitness, GP_FIT_BOOL);
		/* Every case checked against the definition. */
		for (size_t cs = 0; cs < c.ncases; cs++) {
			size_t addr = 0;
			for (int j = 0; j < k; j++)
				addr |= ((c.bits[(size_t)j * c.nwords + cs / 32] >> (cs % 32)) & 1u) << j;
			uint32_t want = (c.bits[(size_t)(k + addr) * c.nwords + cs / 32] >> (cs % 32)) & 1u;
			assert_int_equal((c.target[cs / 32] >> (cs % 32)) & 1u, want);
		}
		gp_node t[64];
		int n = mux_tree(t, k, k, 0);
		assert_true(gp_tree_valid(t, n, nin));
		assert_true(score_tree(t, n, &c) == 0.0);
		for (size_t w = 0; w < c.nwords; w++) {
			uint32_t x[32];
			for (int j = 0; j < nin; j++)
				x[j] = c.bits[(size_t)j * c.nwords + w];
			int i = 0;
			assert_true(ref_eval_b(t, &i, x) == c.target[w]);
		}
		/* and(d0, d0) is right on the address-0 quarter and half the rest. */
		gp_node d0[3] = {gp_fn(GP_OP_BAND), gp_var(k), gp_var(k)};
		double want = (double)c.ncases * (1.0 - 1.0 / (1 << k)) / 2.0;
		assert_true(score_tree(d0, 3, &c) == want);
		gp_cases_free(&c);
	}
	/* Tiny multiplexer: fewer than 32 cases, padding bits masked. */
	gp_cases c;
	assert_int_equal(gp_cases_multiplexer(&c, 1, &err), RT_OK);
	assert_int_equal(c.ncases, 8);
	assert_int_equal(c.nwords, 1);
	assert_int_equal(c.last_mask, 0xFFu);
	gp_node t[4];
	int n = mux_tree(t, 1, 1, 0);
	assert_true(score_tree(t, n, &c) == 0.0);
	gp_node wrong[2] = {gp_fn(GP_OP_BNOT), gp_var(1)};   /* not(d0): 6 of 8 wrong */
	assert_true(score_tree(wrong, 2, &c) == 6.0);
	gp_cases_free(&c);
}

/* ---- variation, limits, reproducibility ---------------------------------------- */

static void limits_after_many_generations(void **state)
{
	(void)state;
	rt_error err = {0};
	gp_fset fs;
	assert_int_equal(gp_fset_parse(&fs, "+ - * / sin IF", 2, &err), RT_OK);
	fs.use_consts = 1;
	fs.const_min = -1;
	fs.const_max = 1;
	fs.const_prob = 0.3;
	gp_breed br = gp_breed_defaults();
	br.max_depth = 7;
	br.max_size = 40;
	br.init_max_depth = 5;
	br.mutation = 0.5;
	enum { N = 200 };
	gp_tree a[N], b[N];
	memset(a, 0, sizeof a);
	memset(b, 0, sizeof b);
	double fit[N];
	assert_int_equal(gp_init_population(a, N, &fs, &br, 5, &err), RT_OK);
	gp_tree *cur = a, *next = b;
	rt_rng rng;
	rt_rng_init(&rng, 99, 0);
	int grew = 0;
	for (int g = 0; g < 60; g++) {
		/* Reward size, so the limits are pushed against. */
		for (int i = 0; i < N; i++)
			fit[i] = -cur[i].n + rt_rng_uniform_double(&rng);
		assert_int_equal(gp_breed_generation(next, cur, fit, N, &fs, &br, 5, g, &err), RT_OK);
		for (int i = 0; i < N; i++) {
			assert_true(gp_tree_valid(next[i].nodes, next[i].n, 2));
			assert_true(next[i].n <= br.max_size);
			assert_true(gp_tree_depth(next[i].nodes, next[i].n) <= br.max_depth);
			assert_true(next[i].nodes[0].op < GP_OP_COUNT);
			for (int j = 0; j < next[i].n; j++)
				if (next[i].nodes[j].op == GP_TERM_CONST)
					assert_true(next[i].nodes[j].value >= -1 && next[i].nodes[j].value < 1);
			grew += next[i].n > 30;
		}
		/* Elitism: the best survives unchanged in slot 0. */
		int best = gp_best_index(fit, N);
		assert_int_equal(next[0].n, cur[best].n);
		assert_memory_equal(next[0].nodes, cur[best].nodes, (size_t)cur[best].n * sizeof(gp_node));
		gp_tree *t = cur;
		cur = next;
		next = t;
	}
	assert_true(grew > 0);
	for (int i = 0; i < N; i++) {
		gp_tree_free(&a[i]);
		gp_tree_free(&b[i]);
	}
}

static void tournament_and_operators(void **state)
{
	(void)state;
	rt_error err = {0};
	rt_rng rng;
	rt_rng_init(&rng, 1, 0);
	double fit[10] = {5, 4, NAN, 3, 9, 2, 8, 7, 6, 1};
	assert_int_equal(gp_best_index(fit, 10), 9);
	/* Tournament of the whole population (with replacement) mostly finds the best. */
	int hits = 0;
	for (int i = 0; i < 1000; i++)
		hits += gp_tournament(fit, 10, 50, &rng) == 9;
	assert_true(hits > 990);
	/* Size 1 is uniform: NaN programs are still drawn sometimes. */
	int nan_drawn = 0;
	for (int i = 0; i < 1000; i++)
		nan_drawn += gp_tournament(fit, 10, 1, &rng) == 2;
	assert_true(nan_drawn > 50 && nan_drawn < 150);
	double allnan[3] = {NAN, NAN, 1};
	assert_int_equal(gp_best_index(allnan, 3), 2);

	/* Point mutation keeps arity and shape. */
	gp_fset fs;
	assert_int_equal(gp_fset_parse(&fs, "+ - sin cos", 1, &err), RT_OK);
	int n;
	const gp_node *t = sextic_tree(&n);
	gp_tree tr = {0};
	assert_int_equal(gp_tree_set(&tr, t, n, &err), RT_OK);
	for (int i = 0; i < 200; i++) {
		gp_mutate_point(&tr, &fs, &rng);
		assert_int_equal(tr.n, n);
		for (int j = 0; j < n; j++)
			assert_int_equal(gp_node_arity(&tr.nodes[j]), gp_node_arity(&t[j]));
	}
	gp_tree_free(&tr);

	/* Function-set errors. */
	assert_int_equal(gp_fset_parse(&fs, "+ foo", 1, &err), RT_ERR_INPUT);
	assert_non_null(strstr(err.msg, "unknown function 'foo'"));
	assert_int_equal(gp_fset_parse(&fs, "+ +", 1, &err), RT_ERR_INPUT);
	assert_int_equal(gp_fset_parse(&fs, "+ and", 1, &err), RT_ERR_INPUT);
	assert_int_equal(gp_fset_parse(&fs, "", 1, &err), RT_ERR_INPUT);
	assert_int_equal(gp_fset_parse(&fs, "and,or, not if", 6, &err), RT_OK);
	assert_true(fs.boolean);
	assert_int_equal(fs.nfuncs, 4);
}

static rt_status load_text(rt_spec *spec, const char *text, gp_problem *p, rt_error *err)
{
	memset(spec, 0, sizeof *spec);
	memset(p, 0, sizeof *p);
	if (rt_spec_load_text(spec, "t.ini", text, err))
		return err->status;
	return gp_problem_load(spec, p, err);
}

/* Runs gp_evolve on a spec text with the reference evaluator. */
static void evolve_text(const char *text, uint64_t seed, gp_result *r)
{
	rt_error err = {0};
	rt_spec spec;
	gp_problem p;
	assert_int_equal(load_text(&spec, text, &p, &err), RT_OK);
	assert_int_equal(gp_evolve(&p, seed, ref_evaluator, r, &err), RT_OK);
	gp_problem_free(&p);
	rt_spec_free(&spec);
}

static void same_seed_same_run(void **state)
{
	(void)state;
	rt_log_set_quiet(1);
	static const char *const texts[] = {
		"[problem]\nkind = gp\n[gp]\npopulation = 150\ngenerations = 8\nconstants = -1 1\n"
		"functions = + - * / sin\n[data]\nsource = sextic\ncases = 200\n",
		"[problem]\nkind = gp\n[gp]\npopulation = 150\ngenerations = 8\nstop_on_success = false\n"
		"[data]\nsource = multiplexer\naddress_bits = 2\n",
	};
	for (int t = 0; t < 2; t++) {
		gp_result a, b, c;
		evolve_text(texts[t], 11, &a);
		evolve_text(texts[t], 11, &b);
		evolve_text(texts[t], 12, &c);
		assert_int_equal(a.nhistory, b.nhistory);
		assert_true(a.nhistory >= 2);
		int differ = a.nhistory != c.nhistory;
		for (int g = 0; g < a.nhistory; g++) {
			assert_true(a.history[g].best == b.history[g].best);
			assert_true(a.history[g].mean == b.history[g].mean ||
				    (isinf(a.history[g].mean) && isinf(b.history[g].mean)));
			assert_true(a.history[g].mean_size == b.history[g].mean_size);
			if (g < c.nhistory && a.history[g].mean_size != c.history[g].mean_size)
				differ = 1;
		}
		assert_true(differ);
		assert_int_equal(a.best.n, b.best.n);
		assert_memory_equal(a.best.nodes, b.best.nodes, (size_t)a.best.n * sizeof(gp_node));
		/* Elitism: the best never gets worse. */
		for (int g = 1; g < a.nhistory; g++)
			assert_true(a.history[g].best <= a.history[g - 1].best);
		gp_result_free(&a);
		gp_result_free(&b);
		gp_result_free(&c);
	}
	rt_log_set_quiet(0);
}

/* The library's evaluators agree with the reference on random populations
 * (regression, classification and Boolean). */
static void evaluators_agree_with_reference(void **state)
{
	(void)state;
	rt_error err = {0};
	enum { N = 120 };
	for (int kind = 0; kind < 3; kind++) {
		gp_cases c;
		gp_fset fs;
		if (kind == 0) {
			assert_int_equal(gp_cases_polynomial(&c, GP_DATA_SEXTIC, 500, -1, 1, 3, &err), RT_OK);
			assert_int_equal(gp_fset_parse(&fs, "+ - * / sin cos log exp", 1, &err), RT_OK);
		} else if (kind == 1) {
			/* Three inputs, four classes: y = class of x0 + x1 rounded. */
			assert_int_equal(gp_cases_alloc_float(&c, 3, 700, &err), RT_OK);
			rt_rng rng;
			rt_rng_init(&rng, 4, 0);
			for (size_t i = 0; i < c.ncases; i++) {
				for (int j = 0; j < 3; j++)
					c.x[(size_t)j * c.stride + i] = (float)rt_rng_range(&rng, -3, 3);
				c.y[i] = (float)rt_rng_below(&rng, 4);
			}
			c.fitness = GP_FIT_CLASS;
			c.nclasses = 4;
			assert_int_equal(gp_fset_parse(&fs, "* / + - > < == AND OR IF", 3, &err), RT_OK);
		} else {
			assert_int_equal(gp_cases_multiplexer(&c, 3, &err), RT_OK);
			assert_int_equal(gp_fset_parse(&fs, "and or nand nor not if", 11, &err), RT_OK);
		}
		fs.use_consts = kind == 1;
		fs.const_min = -3;
		fs.const_max = 3;
		fs.const_prob = 0.25;
		gp_breed br = gp_breed_defaults();
		gp_tree pop[N];
		memset(pop, 0, sizeof pop);
		assert_int_equal(gp_init_population(pop, N, &fs, &br, 8, &err), RT_OK);
		gp_packed p;
		gp_packed_init(&p);
		double ref[N], got[N];
		assert_int_equal(gp_pack_rpn(&p, pop, N, &err), RT_OK);
		assert_int_equal(ref_evaluator(&p, &c, 0, ref, &err), RT_OK);
		for (int m = 0; m < GP_EVAL_METHOD_COUNT; m++) {
			if (gp_eval_method_form(m) == GP_FORM_RPN)
				assert_int_equal(gp_pack_rpn(&p, pop, N, &err), RT_OK);
			else
				assert_int_equal(gp_pack_lgp(&p, pop, N, &err), RT_OK);
			if (gp_eval_cpu(&p, &c, m, got, &err))
				fail_msg("%s: %s", gp_eval_method_name(m), err.msg);
			for (int i = 0; i < N; i++) {
				double r = isfinite(ref[i]) ? ref[i] : INFINITY;
				int same = kind == 0 ? (r == got[i] || fabs(r - got[i]) <= 1e-9 * fabs(r))
						     : r == got[i];
				if (!same)
					fail_msg("problem %d, %s, program %d: %.17g vs reference %.17g", kind,
						 gp_eval_method_name(m), i, got[i], r);
			}
		}
		gp_packed_free(&p);
		for (int i = 0; i < N; i++)
			gp_tree_free(&pop[i]);
		gp_cases_free(&c);
	}
}

/* The same with the library's evaluator, through gp_evolve. */
static void same_seed_same_run_cpu_evaluator(void **state)
{
	(void)state;
	rt_log_set_quiet(1);
	const char *text = "[problem]\nkind = gp\n[gp]\npopulation = 200\ngenerations = 6\n"
			   "functions = + - * / sin cos\n[data]\ncases = 2000\n";
	rt_error err = {0};
	gp_result r[2];
	for (int k = 0; k < 2; k++) {
		rt_spec spec;
		gp_problem p;
		assert_int_equal(load_text(&spec, text, &p, &err), RT_OK);
		assert_int_equal(gp_evolve(&p, 77, gp_eval_cpu, &r[k], &err), RT_OK);
		gp_problem_free(&p);
		rt_spec_free(&spec);
	}
	assert_int_equal(r[0].nhistory, r[1].nhistory);
	for (int g = 0; g < r[0].nhistory; g++) {
		assert_true(r[0].history[g].best == r[1].history[g].best);
		assert_true(r[0].history[g].mean_size == r[1].history[g].mean_size);
	}
	assert_int_equal(r[0].best.n, r[1].best.n);
	assert_memory_equal(r[0].best.nodes, r[1].best.nodes, (size_t)r[0].best.n * sizeof(gp_node));
	gp_result_free(&r[0]);
	gp_result_free(&r[1]);
	rt_log_set_quiet(0);
}

/* Non-finite outputs: on x in [1e20, 1e21] every program with x * x
 * overflows float, so its MSE is +inf. The evaluator below counts the
 * non-finite fitness values the library's evaluator returns (NaN or inf,
 * before gp_evolve maps NaN to +inf); each generation's `nonfinite` must add
 * up to that count, the best stays finite, and history.csv has the column. */
static long nonfinite_seen;
static rt_status counting_evaluator(const gp_packed *pop, const gp_cases *c, int method,
				    double *fitness, rt_error *err)
{
	rt_status st = gp_eval_cpu(pop, c, method, fitness, err);
	for (int i = 0; st == RT_OK && i < pop->nprogs; i++)
		nonfinite_seen += !isfinite(fitness[i]);
	return st;
}

static void nonfinite_counted(void **state)
{
	(void)state;
	rt_error err = {0};
	char csv[] = "/tmp/evoforge-test-gp-nf-XXXXXX", text[512];
	int fd = mkstemp(csv);
	assert_true(fd >= 0);
	FILE *f = fdopen(fd, "w");
	fprintf(f, "x,y\n");
	for (int i = 0; i < 20; i++)
		fprintf(f, "%g,%g\n", 1e20 * (1 + i / 2.0), 1e20 * (1 + i / 2.0));
	fclose(f);
	snprintf(text, sizeof text, "[problem]\nkind = gp\n[gp]\npopulation = 200\ngenerations = 5\n"
		 "functions = * +\nconstants = none\nstop_on_success = false\n"
		 "[data]\nsource = csv\nfile = %s\nfitness = mse\n", csv);
	rt_spec spec;
	gp_problem p;
	gp_result r;
	assert_int_equal(load_text(&spec, text, &p, &err), RT_OK);
	rt_log_set_quiet(1);
	nonfinite_seen = 0;
	assert_int_equal(gp_evolve(&p, 9, counting_evaluator, &r, &err), RT_OK);
	rt_log_set_quiet(0);
	long total = 0;
	for (int g = 0; g < r.nhistory; g++) {
		assert_true(r.history[g].nonfinite >= 0 && r.history[g].nonfinite <= 200);
		assert_true(isfinite(r.history[g].best));
		total += r.history[g].nonfinite;
	}
	assert_true(r.history[0].nonfinite > 0);
	assert_int_equal(total, nonfinite_seen);
	gp_result_free(&r);
	gp_problem_free(&p);
	rt_spec_free(&spec);
	unlink(csv);
}

/* `evoforge run` for kind gp: results written, GPU refused for now. */
static void run_writes_results(void **state)
{
	(void)state;
	rt_error err = {0};
	char dir[] = "/tmp/evoforge-test-gp-XXXXXX";
	assert_non_null(mkdtemp(dir));
	rt_spec spec;
	memset(&spec, 0, sizeof spec);
	assert_int_equal(rt_spec_load_text(&spec, "run.ini",
		"[problem]\nkind = gp\nname = tiny\n[gp]\npopulation = 100\ngenerations = 3\n"
		"stop_on_success = false\n[data]\nsource = multiplexer\n", &err), RT_OK);
	rt_options opt;
	memset(&opt, 0, sizeof opt);
	opt.backend = RT_BACKEND_GPU;
	opt.outdir = dir;
	opt.quiet = 1;
	rt_log_set_quiet(1);
	/* --backend gpu: runs where there is a GPU, and fails clearly where not. */
	rt_status gst = gp_kind.run(&spec, &opt, &err);
	if (gst != RT_OK) {
		assert_int_equal(gst, RT_ERR_NOGPU);
		assert_non_null(strstr(err.msg, "--backend gpu"));
	}
	opt.backend = RT_BACKEND_CPU;
	opt.seed = 5;
	opt.seed_given = 1;
	if (gp_kind.run(&spec, &opt, &err))
		fail_msg("%s", err.msg);
	rt_log_set_quiet(0);
	char path[512], *data;
	size_t size;
	snprintf(path, sizeof path, "%s/result.json", dir);
	assert_int_equal(rt_read_file(path, &data, &size, &err), RT_OK);
	assert_non_null(strstr(data, "\"problem\": \"tiny\""));
	assert_non_null(strstr(data, "\"seed\": 5"));
	assert_non_null(strstr(data, "\"history\""));
	assert_non_null(strstr(data, "\"lgp\": \""));
	assert_non_null(strstr(data, "\"gpops_eval\""));
	free(data);
	unlink(path);
	snprintf(path, sizeof path, "%s/history.csv", dir);
	assert_int_equal(rt_read_file(path, &data, &size, &err), RT_OK);
	int lines = 0;
	for (size_t i = 0; i < size; i++)
		lines += data[i] == '\n';
	assert_int_equal(lines, 1 + 4);   /* header + generations 0..3 */
	assert_true(strncmp(data, "generation,best,mean", 20) == 0);
	assert_non_null(strstr(data, ",device_s,nonfinite\n"));
	free(data);
	unlink(path);
	rmdir(dir);
	rt_spec_free(&spec);
}

/* ---- specs ---------------------------------------------------------------------------- */

static void spec_errors(void **state)
{
	(void)state;
	rt_error err = {0};
	rt_spec spec;
	gp_problem p;
	assert_int_equal(load_text(&spec, "[problem]\nkind = gp\n[gp]\npopulation = 10\nmutaton = 0.3\n",
				   &p, &err), RT_ERR_INPUT);
	assert_non_null(strstr(err.msg, "t.ini:5"));
	assert_non_null(strstr(err.msg, "mutaton"));
	rt_spec_free(&spec);

	assert_int_equal(load_text(&spec, "[problem]\nkind = gp\n[gp]\nfunctions = + - * cbrt\n",
				   &p, &err), RT_ERR_INPUT);
	assert_non_null(strstr(err.msg, "t.ini:4"));
	assert_non_null(strstr(err.msg, "unknown function 'cbrt'"));
	rt_spec_free(&spec);

	static const struct { const char *text; const char *where; } bad[] = {
		{"[gp]\npopulation = 1\n", "t.ini:2"},
		{"[gp]\ntournament = 0\n", "t.ini:2"},
		{"[gp]\ncrossover = 1.5\n", "t.ini:2"},
		{"[gp]\nelitism = perhaps\n", "t.ini:2"},
		{"[gp]\nmax_size = 2\n", "t.ini:2"},
		{"[gp]\nconstants = 5 1\n", "t.ini:2"},
		{"[gp]\nconstants = 1\n", "t.ini:2"},
		{"[gp]\ninit_min_depth = 4\ninit_max_depth = 3\n", "t.ini:3"},
		{"[gp]\nmax_depth = 4\n", "t.ini:2"},
		{"[gp]\nevaluator = gpu9\n", "t.ini:2"},
		{"[gp]\nfunctions = and or\n", "t.ini:2"},
		{"[gp]\nfunctions = + -\n[data]\nsource = multiplexer\n", "t.ini:2"},
		{"[data]\nsource = multiplexer\naddress_bits = 5\n", "t.ini:3"},
		{"[data]\nsource = nosuch\n", "t.ini:2"},
		{"[data]\nx_min = 1\nx_max = 1\n", "t.ini:3"},
		{"[data]\nsource = csv\nfile = no/such/file.csv\n", "t.ini"},
		{"[dat]\nsource = csv\n", "t.ini:2"},
	};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		int rc = load_text(&spec, bad[i].text, &p, &err);
		if (rc != RT_ERR_INPUT || !strstr(err.msg, bad[i].where))
			fail_msg("spec %zu: status %d, message '%s', expected %s", i, rc, err.msg,
				 bad[i].where);
		rt_spec_free(&spec);
	}
	/* A minimal spec is the sextic with the seed's defaults. */
	assert_int_equal(load_text(&spec, "[problem]\nkind = gp\n", &p, &err), RT_OK);
	assert_int_equal(p.population, 1000);
	assert_int_equal(p.generations, 50);
	assert_int_equal(p.breed.max_depth, 50);
	assert_int_equal(p.breed.max_size, GP_MAX_SIZE_FRONT);   /* regression with a front */
	assert_int_equal(p.breed.tournament, 7);
	assert_true(p.breed.crossover == 0.95 && p.breed.mutation == 0.2 && p.breed.elitism);
	assert_int_equal(p.cases.ncases, 100000);
	assert_int_equal(p.fset.nfuncs, 4);
	assert_true(p.success == 1e-6);
	gp_problem_free(&p);
	rt_spec_free(&spec);
	/* max_size: 1000 without a front or when set; GP_MAX_SIZE_FRONT otherwise */
	static const struct { const char *text; int size; } sizes[] = {
		{"[problem]\nkind = gp\n[gp]\nobjectives = error\n", 1000},
		{"[problem]\nkind = gp\n[gp]\nmax_size = 300\n", 300},
		{"[problem]\nkind = gp\n[data]\nsource = multiplexer\naddress_bits = 2\n", 1000},
	};
	for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
		assert_int_equal(load_text(&spec, sizes[i].text, &p, &err), RT_OK);
		assert_int_equal(p.breed.max_size, sizes[i].size);
		gp_problem_free(&p);
		rt_spec_free(&spec);
	}
}

/* The shipped problem specs parse; generated data is right; the data files
 * are used when present (with a visible SKIP when not). */
static void problem_files(void **state)
{
	(void)state;
	rt_error err = {0};
	static const char *const files[] = {"problems/sextic.ini", "problems/mux6.ini",
					    "problems/mux11.ini", "problems/mux20.ini",
					    "problems/shuttle.ini", "problems/kddcup.ini"};
	for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
		rt_spec spec;
		gp_problem p;
		memset(&spec, 0, sizeof spec);
		if (rt_spec_load(&spec, files[i], &err))
			fail_msg("%s", err.msg);
		rt_status st = gp_problem_read(&spec, &p, &err);
		if (st == RT_OK)
			st = rt_spec_check_unused(&spec, &err);
		if (st)
			fail_msg("%s", err.msg);
		assert_int_equal(p.population, 1000);
		int big = p.source == GP_DATA_CSV && strstr(files[i], "kddcup");
#ifdef RT_TESTS
		if (big) {   /* the sanitizer build skips the 494,021-row load */
			rt_spec_free(&spec);
			continue;
		}
#endif
		st = gp_problem_build_cases(&spec, &p, &err);
		if (st && p.source == GP_DATA_CSV && strstr(err.msg, "not found")) {
			printf("SKIP %s: data file not present (%s)\n", files[i], err.msg);
			rt_spec_free(&spec);
			continue;
		}
		if (st)
			fail_msg("%s", err.msg);
		if (strstr(files[i], "mux20")) {
			assert_int_equal(p.cases.ninputs, 20);
			assert_int_equal(p.cases.ncases, 1u << 20);
			assert_string_equal(p.input_names[0], "a0");
			assert_string_equal(p.input_names[4], "d0");
			assert_string_equal(p.input_names[19], "d15");
		}
		if (strstr(files[i], "shuttle")) {
			assert_int_equal(p.cases.ncases, 58000);
			assert_int_equal(p.cases.ninputs, 9);
			assert_int_equal(p.cases.nclasses, 7);
			assert_string_equal(p.class_names[0], "Rad.Flow");
			assert_string_equal(p.class_names[6], "Bpv.Open");
			assert_true(p.fset.use_consts && p.fset.const_min == -200);
			assert_true(p.fset.const_prob == 0.1);
			size_t n0 = 0;
			for (size_t r = 0; r < p.cases.ncases; r++)
				n0 += p.cases.y[r] == 0.0f;
			assert_int_equal(n0, 45586);
		}
		if (big) {
			assert_int_equal(p.cases.ncases, 494021);
			assert_int_equal(p.cases.ninputs, 41);
			assert_int_equal(p.cases.nclasses, 23);
			assert_string_equal(p.class_names[0], "normal.");
		}
		gp_problem_free(&p);
		rt_spec_free(&spec);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(sextic_conversion),
		cmocka_unit_test(issue_plus_variant),
		cmocka_unit_test(conversion_errors),
		cmocka_unit_test(conversion_operands),
		cmocka_unit_test(protected_semantics),
		cmocka_unit_test(random_round_trip),
		cmocka_unit_test(sextic_cases_error_zero),
		cmocka_unit_test(multiplexer_solutions),
		cmocka_unit_test(limits_after_many_generations),
		cmocka_unit_test(tournament_and_operators),
		cmocka_unit_test(same_seed_same_run),
		cmocka_unit_test(evaluators_agree_with_reference),
		cmocka_unit_test(same_seed_same_run_cpu_evaluator),
		cmocka_unit_test(run_writes_results),
		cmocka_unit_test(nonfinite_counted),
		cmocka_unit_test(spec_errors),
		cmocka_unit_test(problem_files),
	};
	return cmocka_run_group_tests_name("gp", tests, NULL, NULL);
}
