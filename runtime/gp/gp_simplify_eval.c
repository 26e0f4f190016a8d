/* gp_simplify_eval.c: the double evaluator of simplified programs and of
 * evolved programs (gp_simplify.h): the protected operations' reference
 * semantics in double, on the simplified tree or on the prefix program. */
#include <math.h>
#include <stdint.h>

#include "gp/gp_simplify_int.h"
#include "gp/gp_tree.h"

/* The protected operations and the rest of the table in double (the
 * reference semantics; gp_ops.h has the float ones). */
/* gp_clamp_big in double: powers saturate at +-FLT_MAX (NaN stays). */
static double sx_clamp_big(double v)
{
	return v > SX_BIG ? SX_BIG : v < -SX_BIG ? -SX_BIG : v;
}

double gp_sx_op_eval(int op, double a, double b, double c)
{
	switch (op) {
	case GP_OP_ADD: return a + b;
	case GP_OP_SUB: return a - b;
	case GP_OP_MUL: return a * b;
	case GP_OP_DIV: return fabs(b) < SX_EPS ? 1.0 : a / b;
	case GP_OP_SIN: return sin(a);
	case GP_OP_COS: return cos(a);
	case GP_OP_LOG: return fabs(a) < SX_EPS ? 0.0 : log(fabs(a));
	case GP_OP_EXP: return exp(a < SX_EXP_MAX ? a : SX_EXP_MAX);   /* NaN -> 80, as GP_FMIN */
	case GP_OP_GT: return a > b ? 1.0 : 0.0;
	case GP_OP_LT: return a < b ? 1.0 : 0.0;
	case GP_OP_EQ: return a == b ? 1.0 : 0.0;
	case GP_OP_AND: return a != 0 && b != 0 ? 1.0 : 0.0;
	case GP_OP_OR: return a != 0 || b != 0 ? 1.0 : 0.0;
	case GP_OP_IF: return a != 0 ? b : c;
	case GP_OP_SQRT: return sqrt(fabs(a));
	case GP_OP_SQUARE: return sx_clamp_big(a * a);
	case GP_OP_CUBE: return sx_clamp_big(a * a * a);
	case GP_OP_POW4: return sx_clamp_big(a * a * a * a);
	case GP_OP_TANH: return tanh(a);
	case GP_OP_ABS: return fabs(a);
	case GP_OP_AQ: return a / sqrt(1 + b * b);
	default: break;
	}
	/* Boolean words: 32 cases per word, as in gp_ops.h. */
	uint32_t x = (uint32_t)a, y = (uint32_t)b, z = (uint32_t)c;
	switch (op) {
	case GP_OP_BAND: return x & y;
	case GP_OP_BOR: return x | y;
	case GP_OP_BNAND: return (uint32_t)~(x & y);
	case GP_OP_BNOR: return (uint32_t)~(x | y);
	case GP_OP_BNOT: return (uint32_t)~x;
	case GP_OP_BIF: return (x & y) | (~x & z);
	default: return NAN;
	}
}

/* ---- evaluation -------------------------------------------------------------------- */

static double eval_sx(const gp_sx *e, const double *x)
{
	double v;
	switch (e->kind) {
	case SX_NUM: return e->num;
	case SX_VAR: return x[e->var];
	case SX_LOG: return log(eval_sx(e->args[0], x));
	case SX_EXP: return exp(eval_sx(e->args[0], x));
	case SX_POW: return pow(eval_sx(e->args[0], x), e->num);
	case SX_MUL:
		v = e->num;
		for (int i = 0; i < e->nargs; i++)
			v *= eval_sx(e->args[i], x);
		return v;
	case SX_ADD:
		v = e->num;
		for (int i = 0; i < e->nargs; i++)
			v += eval_sx(e->args[i], x);
		return v;
	default: break;
	}
	double g[3] = {0, 0, 0};
	for (int i = 0; i < e->nargs && i < 3; i++)
		g[i] = eval_sx(e->args[i], x);
	return gp_sx_op_eval(e->op, g[0], g[1], g[2]);
}

/* The prefix program at x; its constants replaced by their pi forms'
 * values where printed at the SX_SNAP_* level snap (as gp_simplify_print.c's
 * print_direct does). */
static double eval_prefix(const gp_node *t, int n, int *i, const double *x, int depth, int snap)
{
	if (*i >= n || depth > GP_MAX_DEPTH_LIMIT)
		return NAN;
	const gp_node *nd = &t[(*i)++];
	if (nd->op == GP_TERM_VAR)
		return x[nd->var];
	if (nd->op == GP_TERM_CONST)
		return gp_sx_pi_snap(nd->value, snap);
	if (nd->op >= GP_OP_COUNT)
		return NAN;
	double g[3] = {0, 0, 0};
	for (int k = 0; k < gp_op_arity(nd->op); k++)
		g[k] = eval_prefix(t, n, i, x, depth + 1, snap);
	return gp_sx_op_eval(nd->op, g[0], g[1], g[2]);
}

double gp_simplify_eval_prefix(const gp_node *prefix, int n, const double *x)
{
	int i = 0;
	return eval_prefix(prefix, n, &i, x, 0, SX_SNAP_NONE);
}

double gp_simple_eval(const gp_simple *s, const double *x)
{
	if (s->root)
		return eval_sx(s->root, x);
	int i = 0;
	return eval_prefix(s->prefix, s->evolved_size, &i, x, 0,
			   s->pi_forms > 0 ? SX_SNAP_ALL : SX_SNAP_NONE);
}
