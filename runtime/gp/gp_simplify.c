/* gp_simplify.c: simplification of evolved GP programs (gp_simplify.h):
 * canonical sums and products built by smart constructors, interval bounds
 * that decide where a protected operation may lose its protection, an
 * optional multiplied-out form, the printer and a double evaluator.
 *
 * Why canonical forms: a sum is a constant plus (coefficient, body) pairs and
 * a product a coefficient times (base, integer exponent) pairs; building every
 * node through them folds constants and collects like terms and powers in one
 * place, and sorting the pairs by one total order (sx_cmp) makes equal
 * subexpressions structurally equal, which the identities (x - x, x / x,
 * eq(x, x), IF(c, x, x)) then see.
 *
 * exp, log and sqrt (exact for all real inputs; "plain" exp/log are the
 * unprotected forms the bounds allowed, never protexp/protlog):
 *   exp(a)**j * exp(b)**k = exp(j*a + k*b)   the plain exps of a product
 *       merged into one where the product is not larger (x/exp(y) stays:
 *       x*exp(-y) is larger); 1/exp(b) is there only where exp(b) >= 1e-6,
 *       as any division; a factor exp(s)**k with |k| > 1 and s a sum is not
 *       merged (k would spread over the terms);
 *   sqrt(|c * exp(u)**k * R|) = sqrt(|c|) * exp(k*u/2) * sqrt(|R|)   exp > 0;
 *       made where it grows by SX_HALF_SLACK at most (SymPy, which does not
 *       know u is real, cannot take the root itself), and not at all when
 *       the whole formula would then be larger than the evolved program (a
 *       second, strict build); sqrt(protexp(u))
 *       stays (exp(min(u, 80)/2) has no protected form);
 *   exp(k*log(u) + v) = u**k * exp(v)   k an integer or a half (sqrt(u)**2k),
 *       |k| <= SX_LOGPOW_MAX; plain log means u >= 1e-6;
 *   log(c * exp(u)**k ...) = log(c) + k*u + ...   where the plain log holds and
 *       every factor is a plain exp (log(exp(u)) = u the simplest case).
 * None of them grows a formula, except sqrt's by SX_HALF_SLACK (sizes with plain
 * numbers, the pi forms' extra nodes aside, as the budget counts them).
 *
 * For SymPy's exact-recovery check (SRBench: floats rounded to 3 decimals,
 * symbols without assumptions), on the chosen tree only:
 *   -c*y*log(a/b) = c*y*log(b/a)   c > 0, both logs plain (b/a >= 1e-6 proven),
 *       the argument a quotient (a negative power in it); where not larger;
 *   numbers within GP_SIMPLIFY_PI_REL of p*pi**k/q print as "2*pi", "pi/2",
 *       "x/(2*pi)" (pi forms, gp_simplify.h), all of them, counted as
 *       printed in the size reported; the rules and the size budget count
 *       plain numbers (the formula's size less the forms' extra nodes,
 *       pi_extra, against the evolved size), so the forms may grow a formula
 *       by the nodes they add and by no more. The tree's numbers are then set
 *       to the forms' values, so the evaluator gives the text's; the evolved
 *       program printed as it is takes the forms the same way. */
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "gp/gp_simplify.h"
#include "gp/gp_tree.h"

/* The protected operations' constants (gp_ops.h), in double. */
#define SX_EPS ((double)1e-6f)
#define SX_EXP_MAX 80.0
#define SX_BIG ((double)0x1.fffffep127f)   /* GP_BIG: powers saturate there */
/* Interval bounds are widened by this relative margin (rounding of the
 * bounds themselves). */
#define SX_MARGIN 1e-9
/* Nonzero bounds below this are taken to reach 0 (float underflow). */
#define SX_TINY 1e-30
/* The multiplied-out form is abandoned past this many terms. */
#define SX_EXPAND_MAX_TERMS 256
#define SX_EXPAND_MAX_POW 8
/* sqrt(exp(u)) -> exp(u/2) is made where it grows the formula by at most
 * this: the one number that halving a single term adds ("-x" -> "-0.5*x",
 * "x*y" -> "0.5*x*y"), but not 0.5 spread over the terms of a sum. */
#define SX_HALF_SLACK 2
/* exp(k*log(u)) becomes a power for |k| up to this. */
#define SX_LOGPOW_MAX 32

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

typedef struct sx_arena {
	gp_sx **v;
	size_t n, cap;
	int oom;
	int strict;   /* no rewrite may grow (SX_HALF_SLACK off) */
	int grew;     /* a rewrite grew the formula (the rebuild with strict may help) */
} sx_arena;

/* ---- nodes ------------------------------------------------------------------ */

static gp_sx *sx_new(sx_arena *a, int kind, int op, int nargs)
{
	if (a->oom)
		return NULL;
	if (a->n == a->cap) {
		size_t cap = a->cap ? 2 * a->cap : 256;
		gp_sx **v = realloc(a->v, cap * sizeof *v);
		if (!v) {
			a->oom = 1;
			return NULL;
		}
		a->v = v;
		a->cap = cap;
	}
	gp_sx *e = calloc(1, sizeof *e + (size_t)nargs * sizeof e->args[0]);
	if (!e) {
		a->oom = 1;
		return NULL;
	}
	e->kind = (uint8_t)kind;
	e->op = (uint8_t)op;
	e->nargs = nargs;
	e->lo = -INFINITY;
	e->hi = INFINITY;
	a->v[a->n++] = e;
	return e;
}

static void sx_arena_free(sx_arena *a)
{
	for (size_t i = 0; i < a->n; i++)
		free(a->v[i]);
	free(a->v);
	a->v = NULL;
	a->n = a->cap = 0;
}

static gp_sx *sx_num(sx_arena *a, double v)
{
	gp_sx *e = sx_new(a, SX_NUM, 0, 0);
	if (e) {
		e->num = v == 0 ? 0.0 : v;   /* no -0 */
		e->lo = e->hi = e->num;
	}
	return e;
}

static gp_sx *sx_var(sx_arena *a, int var)
{
	gp_sx *e = sx_new(a, SX_VAR, 0, 0);
	if (e)
		e->var = var;
	return e;
}

static int dcmp(double x, double y)
{
	return x < y ? -1 : x > y ? 1 : 0;
}

/* The total order every canonical form sorts by; 0 means structurally equal. */
static int sx_cmp(const gp_sx *x, const gp_sx *y)
{
	if (x == y)
		return 0;
	if (x->kind != y->kind)
		return x->kind < y->kind ? -1 : 1;
	if (x->kind == SX_NUM)
		return dcmp(x->num, y->num);
	if (x->kind == SX_VAR)
		return x->var < y->var ? -1 : x->var > y->var;
	if (x->op != y->op)
		return x->op < y->op ? -1 : 1;
	if (x->nargs != y->nargs)
		return x->nargs < y->nargs ? -1 : 1;
	for (int i = 0; i < x->nargs; i++) {
		int c = sx_cmp(x->args[i], y->args[i]);
		if (c)
			return c;
	}
	return dcmp(x->num, y->num);
}

/* Is |value| >= eps everywhere (eps > 0), or value != 0 everywhere (eps = 0)? */
static int excludes_zero(const gp_sx *e, double eps)
{
	if (eps == 0)
		return e->lo > 0 || e->hi < 0;
	return e->lo >= eps || e->hi <= -eps;
}

/* Is the value always 0 or 1 (comparisons, AND, OR, those constants)? */
static int is01(const gp_sx *e)
{
	if (e->kind == SX_NUM)
		return e->num == 0 || e->num == 1;
	return e->kind == SX_FN && (e->op == GP_OP_GT || e->op == GP_OP_LT || e->op == GP_OP_EQ ||
				    e->op == GP_OP_AND || e->op == GP_OP_OR);
}

/* ---- bounds ------------------------------------------------------------------- */

static void widen(gp_sx *e)
{
	if (e->lo != e->lo || e->hi != e->hi) {   /* NaN from inf - inf, 0 * inf */
		e->lo = -INFINITY;
		e->hi = INFINITY;
		return;
	}
	e->lo -= fabs(e->lo) * SX_MARGIN;
	e->hi += fabs(e->hi) * SX_MARGIN;
	/* Float underflows to 0 (exp(-104), 1e-30 * 1e-30): such bounds touch 0. */
	if (e->lo > 0 && e->lo < SX_TINY)
		e->lo = 0;
	if (e->hi < 0 && e->hi > -SX_TINY)
		e->hi = 0;
}

static void imul(double alo, double ahi, double blo, double bhi, double *lo, double *hi)
{
	double p[4] = {alo * blo, alo * bhi, ahi * blo, ahi * bhi};
	*lo = *hi = p[0];
	for (int i = 0; i < 4; i++) {
		if (p[i] != p[i]) {
			*lo = -INFINITY;
			*hi = INFINITY;
			return;
		}
		*lo = fmin(*lo, p[i]);
		*hi = fmax(*hi, p[i]);
	}
}

/* Bounds of base ** k (k integer; k < 0 only for a base away from zero). */
static void ipow(const gp_sx *b, int k, double *lo, double *hi)
{
	int m = abs(k);
	double plo = pow(b->lo, m), phi = pow(b->hi, m);
	if (m % 2 == 0) {
		double alo = fabs(b->lo), ahi = fabs(b->hi);
		*hi = pow(fmax(alo, ahi), m);
		*lo = b->lo <= 0 && b->hi >= 0 ? 0 : pow(fmin(alo, ahi), m);
	} else {
		*lo = plo;
		*hi = phi;
	}
	if (k < 0) {
		double l = *lo, h = *hi;
		*lo = 1 / h;
		*hi = 1 / l;
		if (l <= 0 && h >= 0) {   /* not away from zero after all: no bound */
			*lo = -INFINITY;
			*hi = INFINITY;
		}
	}
}

/* Bounds of |a|. */
static void abs_bounds(const gp_sx *a, double *lo, double *hi)
{
	*hi = fmax(fabs(a->lo), fabs(a->hi));
	*lo = a->lo > 0 ? a->lo : a->hi < 0 ? -a->hi : 0;
}

static void bound_fn(gp_sx *e)
{
	const gp_sx *a = e->nargs > 0 ? e->args[0] : NULL;
	switch (e->op) {
	case GP_OP_SIN: case GP_OP_COS: e->lo = -1; e->hi = 1; break;
	case GP_OP_LOG: {
		double m = fmax(fabs(a->lo), fabs(a->hi));
		e->lo = log(SX_EPS);
		e->hi = m < INFINITY ? fmax(0.0, log(m)) : INFINITY;
		break;
	}
	case GP_OP_EXP:
		e->lo = exp(fmin(a->lo, SX_EXP_MAX));
		e->hi = exp(fmin(a->hi, SX_EXP_MAX));
		break;
	case GP_OP_SQRT: case GP_OP_ABS:
		abs_bounds(a, &e->lo, &e->hi);
		if (e->op == GP_OP_SQRT) {
			e->lo = sqrt(e->lo);
			e->hi = sqrt(e->hi);
		}
		break;
	case GP_OP_TANH: e->lo = tanh(a->lo); e->hi = tanh(a->hi); break;
	case GP_OP_AQ: {
		double b2lo, b2hi;
		ipow(e->args[1], 2, &b2lo, &b2hi);
		imul(a->lo, a->hi, 1 / sqrt(1 + b2hi), 1 / sqrt(1 + b2lo), &e->lo, &e->hi);
		break;
	}
	case GP_OP_GT: case GP_OP_LT: case GP_OP_EQ: case GP_OP_AND: case GP_OP_OR:
		e->lo = 0; e->hi = 1; return;
	case GP_OP_IF:
		e->lo = fmin(e->args[1]->lo, e->args[2]->lo);
		e->hi = fmax(e->args[1]->hi, e->args[2]->hi);
		break;
	default: return;   /* protected division, Boolean words: no bound */
	}
	widen(e);
}

static void bound(gp_sx *e)
{
	switch (e->kind) {
	case SX_FN: bound_fn(e); return;
	case SX_LOG: e->lo = log(e->args[0]->lo); e->hi = log(e->args[0]->hi); break;
	case SX_EXP: e->lo = exp(e->args[0]->lo); e->hi = exp(e->args[0]->hi); break;
	case SX_POW: ipow(e->args[0], (int)e->num, &e->lo, &e->hi); break;
	case SX_MUL:
		e->lo = e->hi = e->num;
		for (int i = 0; i < e->nargs; i++)
			imul(e->lo, e->hi, e->args[i]->lo, e->args[i]->hi, &e->lo, &e->hi);
		break;
	case SX_ADD:
		e->lo = e->hi = e->num;
		for (int i = 0; i < e->nargs; i++) {
			e->lo += e->args[i]->lo;
			e->hi += e->args[i]->hi;
		}
		break;
	default: return;
	}
	widen(e);
}

/* ---- products ------------------------------------------------------------------ */

/* A list of (node, number) pairs: sum terms (coefficient) or factors (exponent). */
typedef struct sx_pairs {
	gp_sx **e;
	double *k;
	int n, cap;
} sx_pairs;

static int pairs_push(sx_arena *a, sx_pairs *p, gp_sx *e, double k)
{
	if (!e || a->oom)
		return a->oom = 1, -1;
	if (p->n == p->cap) {
		int cap = p->cap ? 2 * p->cap : 8;
		gp_sx **ne = realloc(p->e, (size_t)cap * sizeof *ne);
		if (ne)
			p->e = ne;
		double *nk = ne ? realloc(p->k, (size_t)cap * sizeof *nk) : NULL;
		if (!nk)
			return a->oom = 1, -1;
		p->k = nk;
		p->cap = cap;
	}
	p->e[p->n] = e;
	p->k[p->n++] = k;
	return 0;
}

static void pairs_free(sx_pairs *p)
{
	free(p->e);
	free(p->k);
}

/* Sorts by node (insertion sort: lists are short) and merges equal nodes by
 * adding their numbers; drops pairs whose number becomes 0. */
static void pairs_merge(sx_pairs *p)
{
	for (int i = 1; i < p->n; i++)
		for (int j = i; j > 0 && sx_cmp(p->e[j - 1], p->e[j]) > 0; j--) {
			gp_sx *te = p->e[j]; p->e[j] = p->e[j - 1]; p->e[j - 1] = te;
			double tk = p->k[j]; p->k[j] = p->k[j - 1]; p->k[j - 1] = tk;
		}
	int m = 0;
	for (int i = 0; i < p->n; i++) {
		if (m > 0 && sx_cmp(p->e[m - 1], p->e[i]) == 0) {
			p->k[m - 1] += p->k[i];
		} else {
			p->e[m] = p->e[i];
			p->k[m++] = p->k[i];
		}
	}
	p->n = 0;
	for (int i = 0; i < m; i++)
		if (p->k[i] != 0) {
			p->e[p->n] = p->e[i];
			p->k[p->n++] = p->k[i];
		}
}

static gp_sx *sx_add_pairs(sx_arena *a, sx_pairs *p, double konst);
static void push_term(sx_arena *a, sx_pairs *p, const gp_sx *t, double c, double *konst);
static gp_sx *mk_exp(sx_arena *a, gp_sx *x);
static int sx_size(const gp_sx *e);

/* base ** k as a node (no merging; k integer, not 0). */
static gp_sx *pow_node(sx_arena *a, gp_sx *base, double k)
{
	if (k == 1 || !base)
		return base;
	gp_sx *e = sx_new(a, SX_POW, 0, 1);
	if (e) {
		e->args[0] = base;
		e->num = k;
		bound(e);
	}
	return e;
}

/* Appends factor f ** k to p, multiplying numbers into *coef and flattening
 * products and powers. */
static void push_factor(sx_arena *a, sx_pairs *p, const gp_sx *f, double k, double *coef)
{
	if (f->kind == SX_NUM)
		*coef *= pow(f->num, k);
	else if (f->kind == SX_MUL) {
		*coef *= pow(f->num, k);
		for (int i = 0; i < f->nargs; i++)
			push_factor(a, p, f->args[i], k, coef);
	} else if (f->kind == SX_POW)
		pairs_push(a, p, f->args[0], f->num * k);
	else
		pairs_push(a, p, (gp_sx *)f, k);
}

/* Is e a plain exp or a power of one? Its argument into *u, the power into *k. */
static int exp_factor(const gp_sx *e, gp_sx **u, double *k)
{
	if (e->kind == SX_POW && e->args[0]->kind == SX_EXP) {
		*u = e->args[0]->args[0];
		*k = e->num;
		return 1;
	}
	*u = e->kind == SX_EXP ? e->args[0] : NULL;
	*k = 1;
	return e->kind == SX_EXP;
}

/* May the pair exp(u) ** k join the merged exp (k*u not spread over a sum)? */
static int exp_mergeable(const gp_sx *base, double k)
{
	return base->kind == SX_EXP && (fabs(k) == 1 || base->args[0]->kind != SX_ADD);
}

/* Has p (merged) plain exp pairs to merge: two, or one with a power? */
static int exps_to_merge(const sx_pairs *p)
{
	int n = 0, one = 0;
	for (int i = 0; i < p->n; i++)
		if (exp_mergeable(p->e[i], p->k[i])) {
			n++;
			one = p->k[i] == 1;
		}
	return n > 1 || (n == 1 && !one);
}

/* Merges p's plain exp pairs (merged p) into one factor: exp(a)**j *
 * exp(b)**k = exp(j*a + k*b); numbers it yields go into *coef. */
static void merge_exps(sx_arena *a, sx_pairs *p, double *coef)
{
	sx_pairs t = {0};
	double konst = 0;
	int m = 0;
	for (int i = 0; i < p->n; i++) {
		if (exp_mergeable(p->e[i], p->k[i])) {
			push_term(a, &t, p->e[i]->args[0], p->k[i], &konst);
		} else {
			p->e[m] = p->e[i];
			p->k[m++] = p->k[i];
		}
	}
	p->n = m;
	gp_sx *e = a->oom ? NULL : mk_exp(a, sx_add_pairs(a, &t, konst));
	pairs_free(&t);
	if (!e) {
		a->oom = 1;
		return;
	}
	push_factor(a, p, e, 1, coef);
	pairs_merge(p);
}

/* coef * product of p's base ** exponent pairs (merged), canonical. */
static gp_sx *mul_node(sx_arena *a, sx_pairs *p, double coef)
{
	if (a->oom)
		return NULL;
	if (coef == 0 || p->n == 0)
		return sx_num(a, coef);
	if (p->n == 1 && p->k[0] == 1 && p->e[0]->kind == SX_ADD && coef != 1) {
		sx_pairs t = {0};   /* coef * (a + b): distribute, so like terms meet */
		double konst = 0;
		push_term(a, &t, p->e[0], coef, &konst);
		gp_sx *r = a->oom ? NULL : sx_add_pairs(a, &t, konst);
		pairs_free(&t);
		return r;
	}
	if (p->n == 1 && coef == 1)
		return pow_node(a, p->e[0], p->k[0]);
	gp_sx *e = sx_new(a, SX_MUL, 0, p->n);
	if (!e)
		return NULL;
	e->num = coef;
	for (int i = 0; i < p->n; i++)
		if (!(e->args[i] = pow_node(a, p->e[i], p->k[i])))
			return NULL;
	bound(e);
	return e;
}

/* coef * product of p's pairs, canonical; its plain exps merged into one
 * where that is not larger (exp(a)/exp(b) -> exp(a - b), but x/exp(y) stays:
 * x*exp(-y) is one larger). */
static gp_sx *sx_mul_pairs(sx_arena *a, sx_pairs *p, double coef)
{
	pairs_merge(p);
	if (a->oom || !exps_to_merge(p))
		return mul_node(a, p, coef);
	sx_pairs q = {0};
	double qc = coef;
	for (int i = 0; i < p->n; i++)
		pairs_push(a, &q, p->e[i], p->k[i]);
	if (!a->oom)
		merge_exps(a, &q, &qc);
	gp_sx *m = mul_node(a, &q, qc), *u = m ? mul_node(a, p, coef) : NULL;
	pairs_free(&q);
	if (!m || !u)
		return NULL;
	return sx_size(m) <= sx_size(u) ? m : u;
}

/* x ** kx * y ** ky (either may be NULL). */
static gp_sx *sx_mul(sx_arena *a, gp_sx *x, double kx, gp_sx *y, double ky)
{
	sx_pairs p = {0};
	double coef = 1;
	if (x)
		push_factor(a, &p, x, kx, &coef);
	if (y)
		push_factor(a, &p, y, ky, &coef);
	gp_sx *r = a->oom ? NULL : sx_mul_pairs(a, &p, coef);
	pairs_free(&p);
	return r;
}

/* ---- sums ----------------------------------------------------------------------- */

/* Appends c * t to p, splitting t's coefficient off and numbers into *konst. */
static void push_term(sx_arena *a, sx_pairs *p, const gp_sx *t, double c, double *konst)
{
	if (t->kind == SX_NUM) {
		*konst += c * t->num;
	} else if (t->kind == SX_ADD) {
		*konst += c * t->num;
		for (int i = 0; i < t->nargs; i++)
			push_term(a, p, t->args[i], c, konst);
	} else if (t->kind == SX_MUL && t->num != 1) {
		sx_pairs f = {0};
		double one = 1;
		for (int i = 0; i < t->nargs; i++)
			push_factor(a, &f, t->args[i], 1, &one);
		pairs_push(a, p, a->oom ? NULL : sx_mul_pairs(a, &f, 1), c * t->num);
		pairs_free(&f);
	} else {
		pairs_push(a, p, (gp_sx *)t, c);
	}
}

/* Polynomial degree in the inputs (orders sums by falling degree). */
static double degree(const gp_sx *e)
{
	double d = 0;
	switch (e->kind) {
	case SX_VAR: return 1;
	case SX_POW: return e->num * degree(e->args[0]);
	case SX_MUL:
		for (int i = 0; i < e->nargs; i++)
			d += degree(e->args[i]);
		return d;
	case SX_ADD:
		for (int i = 0; i < e->nargs; i++)
			d = fmax(d, degree(e->args[i]));
		return d;
	default: return 0;
	}
}

static int term_cmp(const gp_sx *x, const gp_sx *y)
{
	double dx = degree(x), dy = degree(y);
	return dx != dy ? (dx > dy ? -1 : 1) : sx_cmp(x, y);
}

static gp_sx *sx_add_pairs(sx_arena *a, sx_pairs *p, double konst)
{
	pairs_merge(p);
	if (a->oom)
		return NULL;
	if (p->n == 0)
		return sx_num(a, konst);
	if (p->n == 1 && konst == 0)
		return p->k[0] == 1 ? p->e[0] : sx_mul(a, sx_num(a, p->k[0]), 1, p->e[0], 1);
	gp_sx *e = sx_new(a, SX_ADD, 0, p->n);
	if (!e)
		return NULL;
	e->num = konst;
	for (int i = 0; i < p->n; i++) {
		gp_sx *t = p->k[i] == 1 ? p->e[i] : sx_mul(a, sx_num(a, p->k[i]), 1, p->e[i], 1);
		if (!t)
			return NULL;
		int j = i;   /* insertion by falling degree */
		for (; j > 0 && term_cmp(e->args[j - 1], t) > 0; j--)
			e->args[j] = e->args[j - 1];
		e->args[j] = t;
	}
	bound(e);
	return e;
}

/* x + s * y (y may be NULL). */
static gp_sx *sx_add(sx_arena *a, gp_sx *x, gp_sx *y, double s)
{
	sx_pairs p = {0};
	double konst = 0;
	push_term(a, &p, x, 1, &konst);
	if (y)
		push_term(a, &p, y, s, &konst);
	gp_sx *r = a->oom ? NULL : sx_add_pairs(a, &p, konst);
	pairs_free(&p);
	return r;
}

/* ---- functions ------------------------------------------------------------------ */

/* The protected operations and the rest of the table in double (the
 * reference semantics; gp_ops.h has the float ones). */
/* gp_clamp_big in double: powers saturate at +-FLT_MAX (NaN stays). */
static double sx_clamp_big(double v)
{
	return v > SX_BIG ? SX_BIG : v < -SX_BIG ? -SX_BIG : v;
}

static double op_eval(int op, double a, double b, double c)
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

static gp_sx *fn_node(sx_arena *a, int op, gp_sx **args, int nargs)
{
	for (int i = 0; i < nargs; i++)
		if (!args[i])
			return NULL;
	int comm = op == GP_OP_EQ || op == GP_OP_AND || op == GP_OP_OR || op == GP_OP_BAND ||
		   op == GP_OP_BOR || op == GP_OP_BNAND || op == GP_OP_BNOR;
	if (comm && sx_cmp(args[0], args[1]) > 0) {
		gp_sx *t = args[0]; args[0] = args[1]; args[1] = t;
	}
	gp_sx *e = sx_new(a, SX_FN, op, nargs);
	if (!e)
		return NULL;
	for (int i = 0; i < nargs; i++)
		e->args[i] = args[i];
	bound(e);
	return e;
}

static gp_sx *unary(sx_arena *a, int kind, gp_sx *x)
{
	gp_sx *e = sx_new(a, kind, 0, 1);
	if (e) {
		e->args[0] = x;
		bound(e);
	}
	return e;
}

static gp_sx *mk_sqrt_abs(sx_arena *a, int op, gp_sx **g);
static gp_sx *mk_sqrt(sx_arena *a, gp_sx *x);

/* Is t = k * log(u) (plain log) with k an integer or a half, |k| <=
 * SX_LOGPOW_MAX? u into *u, k into *k. */
static int log_power(const gp_sx *t, gp_sx **u, double *k)
{
	*k = t->kind == SX_MUL && t->nargs == 1 ? t->num : 1;
	const gp_sx *l = t->kind == SX_MUL && t->nargs == 1 ? t->args[0] : t;
	if (l->kind != SX_LOG || fabs(*k) > SX_LOGPOW_MAX || 2 * *k != floor(2 * *k))
		return 0;
	*u = l->args[0];
	return 1;
}

/* u ** k for log_power's k (u >= 1e-6: negative powers are allowed). */
static gp_sx *power_of(sx_arena *a, gp_sx *u, double k)
{
	if (k == floor(k))
		return sx_mul(a, u, k, NULL, 0);
	gp_sx *r = mk_sqrt_abs(a, GP_OP_SQRT, &u);   /* u**(m + 1/2) = sqrt(u)**(2m + 1) */
	return r ? sx_mul(a, r, 2 * k, NULL, 0) : NULL;
}

/* Plain exp(x) (x <= 80, or a merge of plain exps): a number folded,
 * exp(k*log(u) + v) = u**k * exp(v). */
static gp_sx *mk_exp(sx_arena *a, gp_sx *x)
{
	if (!x)
		return NULL;
	if (x->kind == SX_NUM)
		return sx_num(a, exp(x->num));
	gp_sx *u;
	double k;
	if (x->kind != SX_ADD)
		return log_power(x, &u, &k) ? power_of(a, u, k) : unary(a, SX_EXP, x);
	sx_pairs f = {0}, t = {0};   /* powers out, the rest of the sum */
	double coef = 1, konst = x->num;
	int np = 0;
	for (int i = 0; i < x->nargs && !a->oom; i++) {
		gp_sx *pw = log_power(x->args[i], &u, &k) ? power_of(a, u, k) : NULL;
		if (pw) {
			push_factor(a, &f, pw, 1, &coef);
			np++;
		} else {
			push_term(a, &t, x->args[i], 1, &konst);
		}
	}
	gp_sx *r = x;
	if (np > 0 && !a->oom) {
		gp_sx *rest = sx_add_pairs(a, &t, konst);
		gp_sx *e = rest ? mk_exp(a, rest) : NULL;
		if (e)
			push_factor(a, &f, e, 1, &coef);
		r = a->oom ? NULL : sx_mul_pairs(a, &f, coef);
	} else if (!a->oom) {
		r = unary(a, SX_EXP, x);
	}
	pairs_free(&f);
	pairs_free(&t);
	return a->oom ? NULL : r;
}

/* Plain log(x) (x >= 1e-6): log(c * exp(u)**k * ...) = log(c) + k*u + ...
 * where every factor is a plain exp (c > 0 then). */
static gp_sx *mk_log(sx_arena *a, gp_sx *x)
{
	if (!x)
		return NULL;
	int nf = x->kind == SX_MUL ? x->nargs : 1;
	gp_sx *const *f = x->kind == SX_MUL ? x->args : &x;
	double c = x->kind == SX_MUL ? x->num : 1;
	gp_sx *u;
	double k;
	for (int i = 0; i < nf; i++)
		if (!exp_factor(f[i], &u, &k))
			return unary(a, SX_LOG, x);
	if (c <= 0)
		return unary(a, SX_LOG, x);
	sx_pairs t = {0};
	double konst = log(c);
	for (int i = 0; i < nf; i++) {
		exp_factor(f[i], &u, &k);
		push_term(a, &t, u, k, &konst);
	}
	gp_sx *r = a->oom ? NULL : sx_add_pairs(a, &t, konst);
	pairs_free(&t);
	return r;
}

/* Protected division, log and exp: plain where the bounds allow. */
static gp_sx *mk_protected(sx_arena *a, int op, gp_sx **g)
{
	gp_sx *x = g[0];
	if (op == GP_OP_DIV) {
		if (g[1]->kind == SX_NUM)
			return fabs(g[1]->num) < SX_EPS ? sx_num(a, 1) : sx_mul(a, x, 1, sx_num(a, 1 / g[1]->num), 1);
		if (sx_cmp(x, g[1]) == 0)
			return sx_num(a, 1);   /* also at the protected point */
		if (excludes_zero(g[1], SX_EPS))
			return sx_mul(a, x, 1, g[1], -1);
		return fn_node(a, op, g, 2);
	}
	if (op == GP_OP_LOG) {
		if (x->lo >= SX_EPS)
			return mk_log(a, x);
		if (x->hi <= -SX_EPS)
			return mk_log(a, sx_add(a, sx_num(a, 0), x, -1));
		return fn_node(a, op, g, 1);
	}
	if (x->hi <= SX_EXP_MAX)
		return mk_exp(a, x);
	return fn_node(a, op, g, 1);
}

/* sqrt(|c * exp(u)**k * R|) = sqrt(|c|) * exp(k*u/2) * sqrt(|R|) for plain
 * exps (exp(u) > 0); NULL where x has no plain exp factor. */
static gp_sx *sqrt_exps(sx_arena *a, gp_sx *x)
{
	int nf = x->kind == SX_MUL ? x->nargs : 1;
	gp_sx *const *f = x->kind == SX_MUL ? x->args : &x;
	sx_pairs in = {0}, t = {0};
	double one = 1, konst = 0;
	gp_sx *u;
	double k;
	int ne = 0;
	for (int i = 0; i < nf; i++) {
		if (exp_factor(f[i], &u, &k)) {
			push_term(a, &t, u, k / 2, &konst);
			ne++;
		} else {
			push_factor(a, &in, f[i], 1, &one);
		}
	}
	gp_sx *r = NULL;
	if (ne > 0 && !a->oom) {
		gp_sx *e = mk_exp(a, sx_add_pairs(a, &t, konst));
		gp_sx *c = sx_num(a, sqrt(fabs(x->kind == SX_MUL ? x->num : 1)));
		r = e && c ? sx_mul(a, c, 1, e, 1) : NULL;
		if (r && in.n > 0) {
			gp_sx *rest = sx_mul_pairs(a, &in, 1);
			gp_sx *s = rest ? mk_sqrt_abs(a, GP_OP_SQRT, &rest) : NULL;
			r = s ? sx_mul(a, r, 1, s, 1) : NULL;
		}
	}
	pairs_free(&in);
	pairs_free(&t);
	return a->oom ? NULL : r;
}

/* sqrt(|x|): sqrt(x**2) = abs(x), sqrt(|x|) = sqrt(-x) for x <= 0 (printed
 * plain), and sqrt_exps's form where it is at most SX_HALF_SLACK larger. */
static gp_sx *mk_sqrt(sx_arena *a, gp_sx *x)
{
	gp_sx *s;
	if (x->kind == SX_POW && x->num == 2) {
		gp_sx *b = x->args[0];
		s = mk_sqrt_abs(a, GP_OP_ABS, &b);
	} else if (x->hi <= 0 && x->lo < 0) {
		gp_sx *m = sx_add(a, sx_num(a, 0), x, -1);
		return m && m->lo >= 0 ? mk_sqrt(a, m) : m ? fn_node(a, GP_OP_SQRT, &m, 1) : NULL;
	} else {
		s = fn_node(a, GP_OP_SQRT, &x, 1);
	}
	gp_sx *r = s ? sqrt_exps(a, x) : NULL;
	if (a->oom)
		return NULL;
	int rs = r ? sx_size(r) : 0, ss = sx_size(s);
	if (!r || rs > ss + (a->strict ? 0 : SX_HALF_SLACK))
		return s;
	a->grew |= rs > ss;
	return r;
}

/* sqrt (of |a|), abs and the analytic quotient: sqrt(x**2) = abs(x),
 * abs(x) = x or -x where the sign is known, abs(abs(x)) = abs(x) = abs(-x),
 * aq(a, c) = a / sqrt(1 + c**2) folded for a number c. */
static gp_sx *mk_sqrt_abs(sx_arena *a, int op, gp_sx **g)
{
	gp_sx *x = g[0];
	if (op == GP_OP_AQ) {
		if (g[1]->kind == SX_NUM)
			return sx_mul(a, x, 1, sx_num(a, 1 / sqrt(1 + g[1]->num * g[1]->num)), 1);
		if (x->kind == SX_NUM && x->num == 0)
			return x;
		return fn_node(a, op, g, 2);
	}
	if (op == GP_OP_SQRT)
		return mk_sqrt(a, x);
	if (x->lo >= 0)
		return x;
	if (x->hi <= 0)
		return sx_add(a, sx_num(a, 0), x, -1);
	if (x->kind == SX_FN && x->op == GP_OP_ABS)
		return x;
	if (x->kind == SX_MUL && x->num < 0) {   /* abs(-2*y) = 2*abs(y) */
		gp_sx *m = sx_mul(a, x, 1, sx_num(a, -1), 1);
		return m ? fn_node(a, op, &m, 1) : NULL;
	}
	return fn_node(a, op, g, 1);
}

/* Comparisons and logic: fixed by equal operands or disjoint bounds. */
static gp_sx *mk_logic(sx_arena *a, int op, gp_sx **g)
{
	gp_sx *x = g[0], *y = g[1];
	int same = sx_cmp(x, y) == 0;
	switch (op) {
	case GP_OP_LT: {
		gp_sx *s[2] = {y, x};   /* a < b is b > a */
		return mk_logic(a, GP_OP_GT, s);
	}
	case GP_OP_GT:
		if (same || x->hi <= y->lo)
			return sx_num(a, 0);
		if (x->lo > y->hi)
			return sx_num(a, 1);
		break;
	case GP_OP_EQ:
		if (same)
			return sx_num(a, 1);
		if (x->hi < y->lo || y->hi < x->lo)
			return sx_num(a, 0);
		break;
	case GP_OP_AND:
		if ((x->kind == SX_NUM && x->num == 0) || (y->kind == SX_NUM && y->num == 0))
			return sx_num(a, 0);
		if (excludes_zero(x, 0) && excludes_zero(y, 0))
			return sx_num(a, 1);
		if ((excludes_zero(x, 0) && is01(y)) || (same && is01(y)))
			return y;
		if (excludes_zero(y, 0) && is01(x))
			return x;
		break;
	case GP_OP_OR:
		if (excludes_zero(x, 0) || excludes_zero(y, 0))
			return sx_num(a, 1);
		if (((x->kind == SX_NUM && x->num == 0) || same) && is01(y))
			return y;
		if (y->kind == SX_NUM && y->num == 0 && is01(x))
			return x;
		break;
	case GP_OP_IF:
		if (excludes_zero(x, 0))
			return y;
		if ((x->kind == SX_NUM && x->num == 0) || sx_cmp(y, g[2]) == 0)
			return g[2];
		return fn_node(a, op, g, 3);
	}
	return fn_node(a, op, g, 2);
}

static gp_sx *mk_bool(sx_arena *a, int op, gp_sx **g)
{
	int same = gp_op_arity(op) >= 2 && sx_cmp(g[0], g[1]) == 0;
	switch (op) {
	case GP_OP_BNOT:
		if (g[0]->kind == SX_FN && g[0]->op == GP_OP_BNOT)
			return g[0]->args[0];
		break;
	case GP_OP_BAND: case GP_OP_BOR:
		if (same)
			return g[0];
		break;
	case GP_OP_BNAND: case GP_OP_BNOR:
		if (same)
			return mk_bool(a, GP_OP_BNOT, g);
		break;
	case GP_OP_BIF:
		if (sx_cmp(g[1], g[2]) == 0)
			return g[1];
		break;
	}
	return fn_node(a, op, g, gp_op_arity(op));
}

/* op applied to simplified arguments g, simplified. */
static gp_sx *mk_fn(sx_arena *a, int op, gp_sx **g)
{
	int n = gp_op_arity(op);
	for (int i = 0; i < n; i++)
		if (!g[i])
			return NULL;
	int consts = 1;
	for (int i = 0; i < n; i++)
		consts &= g[i]->kind == SX_NUM;
	if (consts && !gp_op_is_bool(op))
		return sx_num(a, op_eval(op, g[0]->num, n > 1 ? g[1]->num : 0, n > 2 ? g[2]->num : 0));
	switch (op) {
	case GP_OP_ADD: return sx_add(a, g[0], g[1], 1);
	case GP_OP_SUB: return sx_add(a, g[0], g[1], -1);
	case GP_OP_MUL: return sx_mul(a, g[0], 1, g[1], 1);
	case GP_OP_DIV: case GP_OP_LOG: case GP_OP_EXP: return mk_protected(a, op, g);
	case GP_OP_SIN: case GP_OP_COS: case GP_OP_TANH: return fn_node(a, op, g, 1);
	/* Powers saturate only where the float product would overflow: the
	 * guarantee's overflow exception (gp_simplify.h). */
	case GP_OP_SQUARE: return sx_mul(a, g[0], 2, NULL, 0);
	case GP_OP_CUBE: return sx_mul(a, g[0], 3, NULL, 0);
	case GP_OP_POW4: return sx_mul(a, g[0], 4, NULL, 0);
	case GP_OP_SQRT: case GP_OP_ABS: case GP_OP_AQ: return mk_sqrt_abs(a, op, g);
	default: break;
	}
	return gp_op_is_bool(op) ? mk_bool(a, op, g) : mk_logic(a, op, g);
}

static gp_sx *build_node(sx_arena *a, const gp_node *t, int n, int *i, int depth, double *lo);

/* The prefix subtree at *i, simplified bottom-up; lo[node] receives the
 * lower bound of each subtree's value (for print_direct). */
static gp_sx *build(sx_arena *a, const gp_node *t, int n, int *i, int depth, double *lo)
{
	if (*i >= n || depth > GP_MAX_DEPTH_LIMIT || a->oom)
		return NULL;
	int at = *i;
	gp_sx *r = build_node(a, t, n, i, depth, lo);
	if (r)
		lo[at] = r->lo;
	return r;
}

static gp_sx *build_node(sx_arena *a, const gp_node *t, int n, int *i, int depth, double *lo)
{
	const gp_node *nd = &t[(*i)++];
	if (nd->op == GP_TERM_VAR)
		return sx_var(a, nd->var);
	if (nd->op == GP_TERM_CONST)
		return sx_num(a, (double)nd->value);
	if (nd->op >= GP_OP_COUNT)
		return NULL;
	gp_sx *g[3] = {NULL, NULL, NULL};
	int ar = gp_op_arity(nd->op);
	for (int k = 0; k < ar; k++)
		if (!(g[k] = build(a, t, n, i, depth + 1, lo)))
			return NULL;
	return mk_fn(a, nd->op, g);
}

/* ---- multiplied-out form ---------------------------------------------------------- */

static gp_sx *expand(sx_arena *a, gp_sx *e, int *over);

/* Multiplies the sum list p (terms with coefficients) by f ** k. */
static void expand_factor(sx_arena *a, sx_pairs *p, gp_sx *f, double k, int *over)
{
	int reps = 1;
	if (f->kind == SX_ADD && k > 0 && k <= SX_EXPAND_MAX_POW) {
		reps = (int)k;
		k = 1;
	}
	for (int r = 0; r < reps && !*over && !a->oom; r++) {
		sx_pairs q = {0};
		for (int i = 0; i < p->n; i++) {
			if (f->kind == SX_ADD && k == 1) {
				if (f->num != 0)
					pairs_push(a, &q, p->e[i], p->k[i] * f->num);
				for (int j = 0; j < f->nargs; j++)
					pairs_push(a, &q, sx_mul(a, p->e[i], 1, f->args[j], 1), p->k[i]);
			} else {
				pairs_push(a, &q, sx_mul(a, p->e[i], 1, f, k), p->k[i]);
			}
		}
		*over |= q.n > SX_EXPAND_MAX_TERMS;
		pairs_free(p);
		*p = q;
	}
}

static gp_sx *expand(sx_arena *a, gp_sx *e, int *over)
{
	if (*over || a->oom || e->kind == SX_NUM || e->kind == SX_VAR)
		return e;
	gp_sx *g[3] = {NULL, NULL, NULL};
	switch (e->kind) {
	case SX_FN:
		for (int i = 0; i < e->nargs; i++)
			g[i] = expand(a, e->args[i], over);
		return mk_fn(a, e->op, g);
	case SX_LOG: case SX_EXP: {
		gp_sx *x = expand(a, e->args[0], over);
		return x ? unary(a, e->kind, x) : NULL;
	}
	default: break;
	}
	sx_pairs p = {0};
	double konst = 0;
	if (e->kind == SX_ADD) {
		for (int i = 0; i < e->nargs && !*over && !a->oom; i++) {
			gp_sx *t = expand(a, e->args[i], over);
			if (t)
				push_term(a, &p, t, 1, &konst);
		}
		konst += e->num;
	} else {
		pairs_push(a, &p, sx_num(a, 1), e->kind == SX_MUL ? e->num : 1);
		int nf = e->kind == SX_MUL ? e->nargs : 1;
		for (int i = 0; i < nf && !*over; i++) {
			gp_sx *f = e->kind == SX_MUL ? e->args[i] : e;
			double k = f->kind == SX_POW ? f->num : 1;
			gp_sx *b = expand(a, f->kind == SX_POW ? f->args[0] : f, over);
			if (b)
				expand_factor(a, &p, b, k, over);
		}
	}
	sx_pairs t = {0};   /* products may carry coefficients or be numbers: split again */
	for (int i = 0; i < p.n && !a->oom && !*over; i++)
		push_term(a, &t, p.e[i], p.k[i], &konst);
	gp_sx *r = a->oom || *over ? NULL : sx_add_pairs(a, &t, konst);
	pairs_free(&p);
	pairs_free(&t);
	return r;
}

/* ---- logs of quotients ----------------------------------------------------------- */

/* Is x a quotient: a negative power, or a product with one? */
static int is_quotient(const gp_sx *x)
{
	if (x->kind == SX_POW)
		return x->num < 0;
	if (x->kind != SX_MUL)
		return 0;
	for (int i = 0; i < x->nargs; i++)
		if (x->args[i]->kind == SX_POW && x->args[i]->num < 0)
			return 1;
	return 0;
}

/* log(1/u) for the plain log l of a quotient u where 1/u >= 1e-6 is proven
 * too; NULL otherwise. */
static gp_sx *inverted_log(sx_arena *a, const gp_sx *l)
{
	if (l->kind != SX_LOG || !is_quotient(l->args[0]))
		return NULL;
	gp_sx *inv = sx_mul(a, l->args[0], -1, NULL, 0);
	return inv && inv->lo >= SX_EPS ? unary(a, SX_LOG, inv) : NULL;
}

/* The product c * f[0] * ... (c < 0) with its first plain log of a
 * quotient inverted: -c*y*log(a/b) = c*y*log(b/a); NULL where none is. */
static gp_sx *flip_product(sx_arena *a, double c, gp_sx *const *f, int n)
{
	int at = -1;
	gp_sx *l = NULL;
	for (int i = 0; i < n && !l && !a->oom; i++)
		if ((l = inverted_log(a, f[i])))
			at = i;
	if (!l)
		return NULL;
	sx_pairs p = {0};
	double coef = -c;
	for (int i = 0; i < n; i++)
		push_factor(a, &p, i == at ? l : f[i], 1, &coef);
	pairs_merge(&p);
	gp_sx *r = a->oom ? NULL : mul_node(a, &p, coef);
	pairs_free(&p);
	return r;
}

static gp_sx *flip_logs(sx_arena *a, gp_sx *e);

/* e rebuilt on the arguments g (changed ones), as a plain node: no rewrite
 * but flip_logs's applies to a product, and a sum merges like terms again. */
static gp_sx *rebuild(sx_arena *a, gp_sx *e, gp_sx **g)
{
	sx_pairs p = {0};
	double k = e->num;
	gp_sx *r = NULL;
	switch (e->kind) {
	case SX_LOG: case SX_EXP: return unary(a, e->kind, g[0]);
	case SX_POW: return pow_node(a, g[0], e->num);
	case SX_FN: return fn_node(a, e->op, g, e->nargs);
	case SX_ADD:
		for (int i = 0; i < e->nargs; i++)
			push_term(a, &p, g[i], 1, &k);
		r = a->oom ? NULL : sx_add_pairs(a, &p, k);
		break;
	default:   /* SX_MUL */
		k = 1;
		for (int i = 0; i < e->nargs; i++)
			push_factor(a, &p, g[i], 1, &k);
		pairs_merge(&p);
		r = a->oom ? NULL : mul_node(a, &p, e->num * k);
		break;
	}
	pairs_free(&p);
	return r;
}

/* e with every product -c*y*log(a/b) (c > 0, both logs plain) written
 * c*y*log(b/a) where that is not larger (SymPy, not knowing a/b > 0, does
 * not equate the two forms). */
static gp_sx *flip_logs(sx_arena *a, gp_sx *e)
{
	if (!e || a->oom || e->kind == SX_NUM || e->kind == SX_VAR)
		return e;
	gp_sx *stack[8], **g = e->nargs <= 8 ? stack : malloc((size_t)e->nargs * sizeof *g);
	if (!g)
		return a->oom = 1, NULL;
	int changed = 0;
	for (int i = 0; i < e->nargs && !a->oom; i++) {
		g[i] = flip_logs(a, e->args[i]);
		changed |= g[i] != e->args[i];
	}
	gp_sx *r = a->oom ? NULL : changed ? rebuild(a, e, g) : e;
	if (r && r->kind == SX_MUL && r->num < 0) {
		gp_sx *fl = flip_product(a, r->num, r->args, r->nargs);
		if (fl && sx_size(fl) <= sx_size(r))
			r = fl;
	}
	if (g != stack)
		free(g);
	return a->oom ? NULL : r;
}

/* flip_logs(e) where the whole formula is not larger than e. */
static gp_sx *flip_logs_root(sx_arena *a, gp_sx *e)
{
	gp_sx *f = flip_logs(a, e);
	return f && f != e && sx_size(f) <= sx_size(e) ? f : e;
}

/* ---- multiples of pi ----------------------------------------------------------- */

#define SX_PI 3.14159265358979323846

/* Whether numbers near a pi form print as that form. */
enum { SX_SNAP_NONE = 0, SX_SNAP_ALL };

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
static double pi_snap(double v, int level)
{
	sx_piform f;
	return pi_form_at(v, level, &f) ? piform_value(&f) : v;
}

/* Sets the numbers of e's tree (numbers, coefficients, sum constants) to the
 * values of their pi forms, as printed at this level. */
static void snap_tree(gp_sx *e, int level)
{
	if (e->kind == SX_NUM || e->kind == SX_MUL || e->kind == SX_ADD)
		e->num = pi_snap(e->num, level);
	if (e->kind == SX_NUM)
		e->lo = e->hi = e->num;
	for (int i = 0; i < e->nargs; i++)
		snap_tree(e->args[i], level);
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
	return op_eval(e->op, g[0], g[1], g[2]);
}

/* The prefix program at x; its constants replaced by their pi forms'
 * values where printed at the SX_SNAP_* level snap (as print_direct does). */
static double eval_prefix(const gp_node *t, int n, int *i, const double *x, int depth, int snap)
{
	if (*i >= n || depth > GP_MAX_DEPTH_LIMIT)
		return NAN;
	const gp_node *nd = &t[(*i)++];
	if (nd->op == GP_TERM_VAR)
		return x[nd->var];
	if (nd->op == GP_TERM_CONST)
		return pi_snap(nd->value, snap);
	if (nd->op >= GP_OP_COUNT)
		return NAN;
	double g[3] = {0, 0, 0};
	for (int k = 0; k < gp_op_arity(nd->op); k++)
		g[k] = eval_prefix(t, n, i, x, depth + 1, snap);
	return op_eval(nd->op, g[0], g[1], g[2]);
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
	return eval_prefix(s->prefix, s->evolved_size, &i, x, 0, s->pi_forms > 0 ? s->snap_ : 0);
}

/* ---- the entry points ------------------------------------------------------------------ */

void gp_simple_free(gp_simple *s)
{
	rt_buf_free(&s->text);
	free(s->prefix);
	if (s->arena_) {
		sx_arena_free(s->arena_);
		free(s->arena_);
	}
	memset(s, 0, sizeof *s);
}

/* Prints e into a fresh buffer (snap: pi forms; their count into *npi);
 * its size, or -1 when a number is not finite. */
static int print_to(const gp_sx *e, const gp_names *nm, rt_buf *b, int snap, int *npi)
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
static int sx_size(const gp_sx *e)
{
	rt_buf b = {0};
	int n = print_to(e, NULL, &b, SX_SNAP_NONE, NULL);
	rt_buf_free(&b);
	return n < 0 ? INT_MAX : n;
}

/* e (may be NULL) printed with pi forms into b: its size, or -1 where it
 * cannot be printed or its size less the pi forms' extra nodes (its size
 * with plain numbers, *plain) exceeds the evolved program's. */
static int print_within(const gp_simple *s, const gp_sx *e, const gp_names *nm, rt_buf *b,
			int *npi, int *plain)
{
	if (!e || (*plain = sx_size(e)) > s->evolved_size)
		return -1;
	return print_to(e, nm, b, SX_SNAP_ALL, npi);
}

/* The smaller of e and x (may be NULL), as printed with pi forms, of those
 * within the evolved program's size less the pi forms' extra nodes, into s;
 * 1 if either is. */
static int choose_print(gp_simple *s, gp_sx *e, gp_sx *x, const gp_names *nm)
{
	rt_buf tb = {0}, tx = {0};
	int pb = 0, px = 0, qb = 0, qx = 0;
	int sb = print_within(s, e, nm, &tb, &pb, &qb), sxz = print_within(s, x, nm, &tx, &px, &qx);
	int use_x = sxz >= 0 && (sb < 0 || sxz < sb);
	int size = use_x ? sxz : sb;
	if (size >= 0) {
		s->root = use_x ? x : e;
		s->text = use_x ? tx : tb;
		s->size = size;
		s->pi_forms = use_x ? px : pb;
		s->pi_extra = size - (use_x ? qx : qb);
		s->rewritten = 1;
		rt_buf_free(use_x ? &tb : &tx);
		s->snap_ = s->pi_forms ? SX_SNAP_ALL : SX_SNAP_NONE;
		if (s->pi_forms)   /* the tree's value is the printed one */
			snap_tree((gp_sx *)s->root, SX_SNAP_ALL);
		return 1;
	}
	rt_buf_free(&tb);
	rt_buf_free(&tx);
	return 0;
}

/* The smaller of e and its multiplied-out form into s (root, text, size),
 * logs of quotients turned positive where not larger, with pi forms; none
 * where both are larger than the evolved program (pi forms' nodes aside). */
static rt_status choose(gp_simple *s, sx_arena *a, gp_sx *e, const gp_names *nm, rt_error *err)
{
	int over = 0;
	gp_sx *x = expand(a, e, &over);
	if (!a->oom)
		e = flip_logs_root(a, e);
	if (!a->oom && x && !over)
		x = flip_logs_root(a, x);
	if (a->oom)
		return rt_fail(err, RT_ERR_SYSTEM, "out of memory simplifying a program");
	choose_print(s, e, x && !over ? x : NULL, nm);
	return RT_OK;
}

/* Builds the simplified tree of the prefix program and chooses its form
 * into s (s->rewritten stays 0 where it is larger than the program). */
static rt_status build_choose(gp_simple *s, sx_arena *a, const gp_node *prefix, int n,
			      const gp_names *nm, double *lo, rt_error *err)
{
	int i = 0;
	gp_sx *e = build(a, prefix, n, &i, 0, lo);
	if (a->oom)
		return rt_fail(err, RT_ERR_SYSTEM, "out of memory simplifying a program");
	return e && i == n ? choose(s, a, e, nm, err) : RT_OK;
}

rt_status gp_simplify(const gp_node *prefix, int n, const gp_names *nm, gp_simple *s,
		      rt_error *err)
{
	memset(s, 0, sizeof *s);
	if (n < 1 || !gp_tree_valid(prefix, n, nm && nm->ninputs > 0 ? nm->ninputs : 65536))
		return rt_fail(err, RT_ERR_INPUT, "gp_simplify: expected a well-formed program tree");
	if (!(s->prefix = rt_malloc((size_t)n * sizeof *prefix, err)))
		return err->status;
	memcpy(s->prefix, prefix, (size_t)n * sizeof *prefix);
	s->evolved_size = n;
	sx_arena *a = rt_calloc(1, sizeof *a, err);
	if (!a)
		return err->status;
	s->arena_ = a;
	double *lo = rt_malloc((size_t)n * sizeof *lo, err);
	if (!lo)
		return err->status;
	for (int k = 0; k < n; k++)
		lo[k] = -INFINITY;
	rt_status st = build_choose(s, a, prefix, n, nm, lo, err);
	if (!st && !s->rewritten && a->grew) {   /* too large: again, growing nothing */
		a->strict = 1;
		st = build_choose(s, a, prefix, n, nm, lo, err);
	}
	if (!st && !s->rewritten) {   /* as evolved, with pi forms (n nodes with plain numbers) */
		sx_printer pr = {&s->text, nm, 0, 0, lo, SX_SNAP_ALL, 0};
		int i = 0;
		print_direct(&pr, prefix, n, &i, 0, 0);
		s->size = pr.count;
		s->pi_forms = pr.npi;
		s->pi_extra = pr.count - n;
		s->snap_ = pr.npi ? SX_SNAP_ALL : SX_SNAP_NONE;
	}
	free(lo);
	if (st)
		return st;
	if (s->text.failed)
		return rt_fail(err, RT_ERR_SYSTEM, "out of memory printing a simplified program");
	return RT_OK;
}
