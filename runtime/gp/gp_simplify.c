/* gp_simplify.c: simplification of evolved GP programs (gp_simplify.h):
 * canonical sums and products built by smart constructors, interval bounds
 * that decide where a protected operation may lose its protection, an
 * optional multiplied-out form, logs of quotients and the entry points; the
 * printer and the pi forms are in gp_simplify_print.c, the double evaluator
 * in gp_simplify_eval.c, the shared node type in gp_simplify_int.h.
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
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "gp/gp_simplify_int.h"
#include "gp/gp_tree.h"

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
	return gp_sx_size(m) <= gp_sx_size(u) ? m : u;
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
	int rs = r ? gp_sx_size(r) : 0, ss = gp_sx_size(s);
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
		return sx_num(a, gp_sx_op_eval(op, g[0]->num, n > 1 ? g[1]->num : 0, n > 2 ? g[2]->num : 0));
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
 * lower bound of each subtree's value (for gp_simplify_print.c's print_direct). */
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
		if (fl && gp_sx_size(fl) <= gp_sx_size(r))
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
	return f && f != e && gp_sx_size(f) <= gp_sx_size(e) ? f : e;
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

/* e (may be NULL) printed with pi forms into b: its size, or -1 where it
 * cannot be printed or its size less the pi forms' extra nodes (its size
 * with plain numbers, *plain) exceeds the evolved program's. */
static int print_within(const gp_simple *s, const gp_sx *e, const gp_names *nm, rt_buf *b,
			int *npi, int *plain)
{
	if (!e || (*plain = gp_sx_size(e)) > s->evolved_size)
		return -1;
	return gp_sx_print(e, nm, b, SX_SNAP_ALL, npi);
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
		if (s->pi_forms)   /* the tree's value is the printed one */
			gp_sx_snap_tree((gp_sx *)s->root, SX_SNAP_ALL);
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
		s->size = gp_sx_print_prefix(prefix, n, nm, lo, &s->text, &s->pi_forms);
		s->pi_extra = s->size - n;
	}
	free(lo);
	if (st)
		return st;
	if (s->text.failed)
		return rt_fail(err, RT_ERR_SYSTEM, "out of memory printing a simplified program");
	return RT_OK;
}
