/* gp_simplify_print.c: the text of a simplified program (gp_simplify.h's
 * grammar and size count): the printer of the simplified tree, the evolved
 * program printed as it is, and the multiples of pi (pi forms) numbers print
 * as, with the values the tree and the evaluator then take (the rules and
 * the size budget for them: gp_simplify.c's top comment). */
#include <limits.h>
#include <math.h>

#include "gp/gp_simplify_int.h"
#include "gp/gp_tree.h"

/* ---- multiples of pi ----------------------------------------------------------- */

#define SX_PI 3.14159265358979323846

/* A number sign * p * pi**e / q (gp_simplify.h's pi forms). */
typedef struct sx_piform {
	int sign, p, q, e;   /* e: 1, -1, 2 or -2 */
} sx_piform;

static int gcd(int x, int y)
{
	while (y) {
		int t = x % y;
		x = y;
		y = t;
	}
	return x;
}

static double piform_value(const sx_piform *f)
{
	double pe = f->e == 1 ? SX_PI : f->e == 2 ? SX_PI * SX_PI : 1;
	double qe = f->e == -1 ? SX_PI : f->e == -2 ? SX_PI * SX_PI : 1;
	return f->sign * (f->p * pe) / (f->q * qe);
}

/* Is v within GP_SIMPLIFY_PI_REL (relative) of a pi form, p and q coprime
 * in [1, GP_SIMPLIFY_PI_P] and [1, GP_SIMPLIFY_PI_Q]? The form with pi
 * itself first, then 1/pi, pi**2, 1/pi**2; the smallest q of each. No two
 * forms are that close (p/q differ by 3e-4 relative at least, and pi is no
 * such ratio), so the form of a form's own value is that form. */
static int pi_form(double v, sx_piform *f)
{
	static const int es[4] = {1, -1, 2, -2};
	double av = fabs(v);
	if (!(av > 0) || !isfinite(av))
		return 0;
	for (int i = 0; i < 4; i++) {
		double pe = pow(SX_PI, es[i]);
		for (int q = 1; q <= GP_SIMPLIFY_PI_Q; q++) {
			double p = nearbyint(av / pe * q);
			if (p < 1 || p > GP_SIMPLIFY_PI_P || gcd((int)p, q) != 1)
				continue;
			*f = (sx_piform){v < 0 ? -1 : 1, (int)p, q, es[i]};
			if (fabs(piform_value(f) - v) <= GP_SIMPLIFY_PI_REL * av)
				return 1;
		}
	}
	return 0;
}

/* Has v a pi form printed at this SX_SNAP_* level? */
static int pi_form_at(double v, int level, sx_piform *f)
{
	return level != SX_SNAP_NONE && pi_form(v, f);
}

/* v, or the value of its pi form where printed at this level. */
double gp_sx_pi_snap(double v, int level)
{
	sx_piform f;
	return pi_form_at(v, level, &f) ? piform_value(&f) : v;
}

/* Sets the numbers of e's tree (numbers, coefficients, sum constants) to the
 * values of their pi forms, as printed at this level. */
void gp_sx_snap_tree(gp_sx *e, int level)
{
	if (e->kind == SX_NUM || e->kind == SX_MUL || e->kind == SX_ADD)
		e->num = gp_sx_pi_snap(e->num, level);
	if (e->kind == SX_NUM)
		e->lo = e->hi = e->num;
	for (int i = 0; i < e->nargs; i++)
		gp_sx_snap_tree(e->args[i], level);
}

/* ---- text ------------------------------------------------------------------------ */

/* Precedence levels of the printed forms (Python's order). */
enum { P_SUM = 1, P_PROD, P_POW, P_ATOM };
/* Boolean programs: | below & below ~. */
enum { P_BOR = 1, P_BAND, P_BNOT };

typedef struct sx_printer {
	rt_buf *b;
	const gp_names *nm;
	int count;      /* size: operators, calls, inputs, numbers */
	int bad;        /* a number that is not finite */
	const double *lo;  /* print_direct: lower bounds of the nodes' values, or NULL */
	int snap;       /* numbers near a pi form printed as that form: SX_SNAP_* */
	int npi;        /* numbers printed as pi forms */
} sx_printer;

static void put_input(sx_printer *pr, int var)
{
	const gp_names *nm = pr->nm;
	pr->count++;
	if (nm && nm->names && var < nm->ninputs)
		rt_buf_puts(pr->b, nm->names[var]);
	else if (nm && nm->ninputs == 1)
		rt_buf_puts(pr->b, "x");
	else
		rt_buf_printf(pr->b, "x%d", var + 1);
}

static void put_plain_num(sx_printer *pr, double v)
{
	pr->count++;
	pr->bad |= !isfinite(v);
	rt_buf_printf(pr->b, "%.9g", v == 0 ? 0.0 : v);
}

static void put_op(sx_printer *pr, const char *op)
{
	rt_buf_puts(pr->b, op);
	pr->count++;
}

/* pi**k, k = 1 or 2. */
static void put_pi(sx_printer *pr, int k)
{
	rt_buf_puts(pr->b, k == 2 ? "pi**2" : "pi");
	pr->count += k == 2 ? 3 : 1;
}

/* The denominator of a pi form, "/q", "/pi", "/(q*pi**2)", if it has one. */
static void put_pi_den(sx_printer *pr, const sx_piform *f)
{
	if (f->q == 1 && f->e > 0)
		return;
	int both = f->q != 1 && f->e < 0;
	put_op(pr, "/");
	rt_buf_puts(pr->b, both ? "(" : "");
	if (f->q != 1)
		put_plain_num(pr, f->q);
	if (both)
		put_op(pr, "*");
	if (f->e < 0)
		put_pi(pr, -f->e);
	rt_buf_puts(pr->b, both ? ")" : "");
}

/* Is v printed as a pi form, and is that form more than "pi" (then it
 * needs the parentheses of a product)? */
static int num_form(const sx_printer *pr, double v, sx_piform *f)
{
	if (!pi_form_at(v, pr->snap, f))
		return 0;
	return f->sign < 0 || f->p != 1 || f->q != 1 || f->e != 1 ? 2 : 1;
}

/* A number: its pi form ("2*pi", "-pi/2", "1/(2*pi)", "pi**2") where
 * snapping is on and it has one, else %.9g. */
static void put_num(sx_printer *pr, double v)
{
	sx_piform f;
	if (!num_form(pr, v, &f)) {
		put_plain_num(pr, v);
		return;
	}
	pr->npi++;
	if (f.p != 1 || f.e < 0) {
		put_plain_num(pr, f.sign * f.p);
		if (f.e > 0)
			put_op(pr, "*");
	} else if (f.sign < 0) {
		put_op(pr, "-");
	}
	if (f.e > 0)
		put_pi(pr, f.e);
	put_pi_den(pr, &f);
}

static const char *fn_name(int op)
{
	switch (op) {
	case GP_OP_DIV: return "protdiv";
	case GP_OP_LOG: return "protlog";
	case GP_OP_EXP: return "protexp";
	case GP_OP_GT: return "gt";
	case GP_OP_LT: return "lt";
	case GP_OP_EQ: return "eq";
	case GP_OP_BIF: return "ITE";
	case GP_OP_SQRT: return "protsqrt";
	default: return gp_op_name(op);   /* sin, cos, tanh, abs, aq, AND, OR, IF */
	}
}

static int prec_of(const sx_printer *pr, const gp_sx *e)
{
	sx_piform f;
	switch (e->kind) {
	case SX_NUM:
		if (num_form(pr, e->num, &f) == 2)
			return P_PROD;
		return e->num < 0 ? P_PROD : P_ATOM;
	case SX_POW: return e->num > 0 ? P_POW : P_PROD;
	case SX_MUL: return P_PROD;
	case SX_ADD: return P_SUM;
	case SX_FN:
		switch (e->op) {
		case GP_OP_BOR: return P_BOR;
		case GP_OP_BAND: return P_BAND;
		case GP_OP_BNOT: case GP_OP_BNAND: case GP_OP_BNOR: return P_BNOT;
		default: return P_ATOM;
		}
	default: return P_ATOM;
	}
}

static void print_sx(sx_printer *pr, const gp_sx *e);

static void paren(sx_printer *pr, const gp_sx *e, int minprec)
{
	int p = prec_of(pr, e) < minprec;
	if (p)
		rt_buf_puts(pr->b, "(");
	print_sx(pr, e);
	if (p)
		rt_buf_puts(pr->b, ")");
}

/* base ** k for k >= 1. */
static void print_factor(sx_printer *pr, const gp_sx *base, int k)
{
	if (k == 1) {
		paren(pr, base, P_POW);
		return;
	}
	paren(pr, base, P_ATOM);
	rt_buf_printf(pr->b, "**%d", k);
	pr->count += 2;
}

/* coef * f[0] * ... with negative powers as divisions: "2*x*y/z**2"; a
 * coefficient with a pi form splits into numerator and denominator:
 * "2*pi*x", "pi*x/2", "x/(2*pi)". */
static void print_product(sx_printer *pr, double coef, const gp_sx *const *f, int n)
{
	int first = 1;
	sx_piform pf;
	int form = coef != 1 && coef != -1 && num_form(pr, coef, &pf);
	if (form) {
		pr->npi++;
		coef = pf.sign * pf.p;
		if (pf.e > 0) {   /* "-pi", "2*pi"; p/(q*pi) goes on as the number p */
			if (coef == -1) {
				put_op(pr, "-");
			} else if (coef != 1) {
				put_num(pr, coef);
				put_op(pr, "*");
			}
			put_pi(pr, pf.e);
			first = 0;
			coef = 1;
		}
	}
	if (coef == -1) {
		put_op(pr, "-");
		coef = 1;
	}
	if (coef != 1) {
		put_num(pr, coef);
		first = 0;
	}
	for (int i = 0; i < n; i++) {
		int pw = f[i]->kind == SX_POW;
		if (pw && f[i]->num < 0)
			continue;
		if (!first)
			put_op(pr, "*");
		print_factor(pr, pw ? f[i]->args[0] : f[i], pw ? (int)f[i]->num : 1);
		first = 0;
	}
	if (first)
		put_num(pr, 1);
	if (form)
		put_pi_den(pr, &pf);
	for (int i = 0; i < n; i++)
		if (f[i]->kind == SX_POW && f[i]->num < 0) {
			put_op(pr, "/");
			print_factor(pr, f[i]->args[0], -(int)f[i]->num);
		}
}

/* The term t of a sum with its sign folded into the joining operator. */
static void print_term(sx_printer *pr, const gp_sx *t, int first)
{
	double c = t->kind == SX_MUL ? t->num : 1;
	if (first && c < 0) {
		rt_buf_puts(pr->b, "-");
		pr->count++;
	} else if (!first) {
		rt_buf_puts(pr->b, c < 0 ? " - " : " + ");
		pr->count++;
	}
	if (t->kind == SX_MUL)
		print_product(pr, fabs(c), (const gp_sx *const *)t->args, t->nargs);
	else
		print_product(pr, 1, &t, 1);
}

static void print_bool(sx_printer *pr, const gp_sx *e)
{
	pr->count++;
	switch (e->op) {
	case GP_OP_BNOT:
		rt_buf_puts(pr->b, "~");
		paren(pr, e->args[0], P_BNOT);
		return;
	case GP_OP_BAND: case GP_OP_BOR: case GP_OP_BNAND: case GP_OP_BNOR: {
		int and = e->op == GP_OP_BAND || e->op == GP_OP_BNAND;
		int neg = e->op == GP_OP_BNAND || e->op == GP_OP_BNOR;
		rt_buf_puts(pr->b, neg ? "~(" : "");
		paren(pr, e->args[0], and ? P_BAND : P_BOR);
		rt_buf_puts(pr->b, and ? " & " : " | ");
		paren(pr, e->args[1], and ? P_BAND : P_BOR);
		rt_buf_puts(pr->b, neg ? ")" : "");
		return;
	}
	default: break;
	}
}

static void print_sx(sx_printer *pr, const gp_sx *e)
{
	switch (e->kind) {
	case SX_NUM: put_num(pr, e->num); return;
	case SX_VAR: put_input(pr, e->var); return;
	case SX_ADD:
		for (int i = 0; i < e->nargs; i++)
			print_term(pr, e->args[i], i == 0);
		if (e->num != 0) {
			rt_buf_puts(pr->b, e->num < 0 ? " - " : " + ");
			pr->count++;
			put_num(pr, fabs(e->num));
		}
		return;
	case SX_MUL: print_product(pr, e->num, (const gp_sx *const *)e->args, e->nargs); return;
	case SX_POW: print_product(pr, 1, &e, 1); return;
	default: break;
	}
	if (e->kind == SX_FN && gp_op_is_bool(e->op) && e->op != GP_OP_BIF) {
		print_bool(pr, e);
		return;
	}
	pr->count++;
	rt_buf_printf(pr->b, "%s(", e->kind == SX_LOG ? "log" : e->kind == SX_EXP ? "exp" :
		      e->op == GP_OP_SQRT && e->args[0]->lo >= 0 ? "sqrt" : fn_name(e->op));
	for (int i = 0; i < e->nargs; i++) {
		if (i)
			rt_buf_puts(pr->b, ", ");
		print_sx(pr, e->args[i]);
	}
	rt_buf_puts(pr->b, ")");
}

/* The exponent of square, cube, pow4; 0 for other nodes. */
static int direct_pow(int op)
{
	return op == GP_OP_SQUARE ? 2 : op == GP_OP_CUBE ? 3 : op == GP_OP_POW4 ? 4 : 0;
}

/* The evolved program as it is, in the same syntax (every binary operator
 * parenthesised below the top; size = nodes). */
static void print_direct(sx_printer *pr, const gp_node *t, int n, int *i, int depth, int wrap)
{
	if (*i >= n || depth > GP_MAX_DEPTH_LIMIT) {
		pr->bad = 1;
		return;
	}
	const gp_node *nd = &t[(*i)++];
	if (nd->op == GP_TERM_VAR) {
		put_input(pr, nd->var);
		return;
	}
	if (nd->op == GP_TERM_CONST) {
		sx_piform f;   /* negative or compound: parenthesised below the top */
		int p = wrap && (nd->value < 0 || num_form(pr, nd->value, &f) == 2);
		rt_buf_puts(pr->b, p ? "(" : "");
		put_num(pr, (double)nd->value);
		rt_buf_puts(pr->b, p ? ")" : "");
		return;
	}
	int ar = gp_op_arity(nd->op);
	const char *infix = NULL;
	switch (nd->op) {
	case GP_OP_ADD: infix = " + "; break;
	case GP_OP_SUB: infix = " - "; break;
	case GP_OP_MUL: infix = " * "; break;
	case GP_OP_BAND: case GP_OP_BNAND: infix = " & "; break;
	case GP_OP_BOR: case GP_OP_BNOR: infix = " | "; break;
	default: break;
	}
	pr->count++;
	if (nd->op == GP_OP_BNOT || nd->op == GP_OP_BNAND || nd->op == GP_OP_BNOR)
		rt_buf_puts(pr->b, "~");
	if (infix) {
		int p = wrap || nd->op == GP_OP_BNAND || nd->op == GP_OP_BNOR;
		rt_buf_puts(pr->b, p ? "(" : "");
		print_direct(pr, t, n, i, depth + 1, 1);
		rt_buf_puts(pr->b, infix);
		print_direct(pr, t, n, i, depth + 1, 1);
		rt_buf_puts(pr->b, p ? ")" : "");
		return;
	}
	if (direct_pow(nd->op)) {
		/* a**k, one node as evolved; a is a call, an input, a number or a
		 * parenthesised operator or negative number (wrap), or a power,
		 * which needs parentheses (** groups to the right). */
		int p = *i < n && direct_pow(t[*i].op);
		rt_buf_puts(pr->b, p ? "(" : "");
		print_direct(pr, t, n, i, depth + 1, 1);
		rt_buf_printf(pr->b, "%s**%d", p ? ")" : "", direct_pow(nd->op));
		return;
	}
	if (nd->op == GP_OP_SQRT && pr->lo && *i < n && pr->lo[*i] >= 0)
		rt_buf_puts(pr->b, "sqrt");   /* the argument is never negative */
	else if (nd->op != GP_OP_BNOT)
		rt_buf_printf(pr->b, "%s", fn_name(nd->op));
	rt_buf_puts(pr->b, "(");
	for (int k = 0; k < ar; k++) {
		rt_buf_puts(pr->b, k ? ", " : "");
		print_direct(pr, t, n, i, depth + 1, 0);
	}
	rt_buf_puts(pr->b, ")");
}

/* ---- the printer's entry points (gp_simplify_int.h) ------------------------------- */

/* Prints e into a fresh buffer (snap: pi forms; their count into *npi);
 * its size, or -1 when a number is not finite. */
int gp_sx_print(const gp_sx *e, const gp_names *nm, rt_buf *b, int snap, int *npi)
{
	sx_printer pr = {b, nm, 0, 0, NULL, snap, 0};
	print_sx(&pr, e);
	if (npi)
		*npi = pr.npi;
	return pr.bad || b->failed ? -1 : pr.count;
}

/* e's printed size with plain numbers, the size the rules and the budget
 * count (the pi forms' extra nodes aside; INT_MAX where a number is not
 * finite). */
int gp_sx_size(const gp_sx *e)
{
	rt_buf b = {0};
	int n = gp_sx_print(e, NULL, &b, SX_SNAP_NONE, NULL);
	rt_buf_free(&b);
	return n < 0 ? INT_MAX : n;
}

/* The evolved program as it is, with pi forms (the size of its text). */
int gp_sx_print_prefix(const gp_node *t, int n, const gp_names *nm, const double *lo,
		       rt_buf *b, int *npi)
{
	sx_printer pr = {b, nm, 0, 0, lo, SX_SNAP_ALL, 0};
	int i = 0;
	print_direct(&pr, t, n, &i, 0, 0);
	*npi = pr.npi;
	return pr.count;
}
