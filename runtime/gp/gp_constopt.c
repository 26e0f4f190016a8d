/* gp_constopt.c: Levenberg-Marquardt on a GP program's constants
 * (gp_constopt.h), on the host.
 *
 * Derivatives: forward mode. The prefix tree is run right to left over a
 * stack of frames (value, d value / d c_1..c_m) in double precision, one
 * fitness case at a time, with the protected forms of gp_ops.h (a guarded
 * branch has derivative 0: a / b with |b| < 1e-6 is the constant 1, exp
 * above 80 the constant e^80, clamped powers constants). The double outputs
 * differ from the float interpreter's in the last bits only (a value
 * past the float range is made infinite, as the interpreter's is); LM needs a
 * descent direction and an objective to accept steps on, and the float
 * fitness evaluator has the last word: a tree whose fitted constants do not
 * lower its fitness there gets its old constants back. (Before this the
 * Jacobian was a forward difference of float outputs, one more evaluation
 * per constant with 1e-4 relative noise in each entry.)
 *
 * Linear scaling: variable projection (Golub and Pereyra 1973) with
 * Kaufman's (1975) Jacobian. The model is a + b f(x; c); for fixed c the
 * best a, b are the least-squares line, so the objective is
 * min_{a,b} |y - a - b f|^2 / n -- exactly the scaled fitness the search
 * ranks programs by (gp_fitness.h) -- and LM runs on c alone with
 * J = -b P (df/dc), P the projection off span{1, f}. Why not LM on
 * (a, b, c) jointly: the joint problem minimises the same function but
 * needs 2 more unknowns, starts from a, b that are stale after each step,
 * and converges in more iterations (Ruhe and Wedin 1980); the projected one
 * costs two means and one covariance a column. Kaufman's Jacobian drops a
 * rank-one term orthogonal to the residual, so the gradient is exact. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "gp_constopt.h"
#include "gp_conv.h"
#include "gp_eval.h"
#include "gp_simplify.h"
#include "gp/gp_lm.h"

/* Working state for one tree. */
typedef struct opt_state {
	gp_tree *t;
	const gp_cases *cases;
	int m;                                 /* constants */
	size_t ns;                             /* cases LM fits on (a sample; case_of) */
	double *y;                             /* their targets */
	int idx[GP_CONSTOPT_MAX_CONSTS];       /* their node indices */
	int *slot;                             /* per node: its constant's column, or -1 */
	double *stack;                         /* t->n frames of m + 1 */
	unsigned char *live;                   /* per frame: derivatives written */
	double *f, *jac;                       /* outputs, n x m d f / d c (row per case) */
	double *r[2], *jr[2];                  /* residuals and d r / d c: current, trial */
} opt_state;

/* Case i through the tree: f[row] and row `row` of jac. A frame's derivatives
 * are only written (and read) when its subtree holds a fitted constant
 * (live[]): most subtrees hold none. */
static void eval_case(opt_state *s, size_t row, size_t i)
{
	const gp_node *t = s->t->nodes;
	const gp_cases *c = s->cases;
	int m = s->m, w = m + 1, sp = 0;
	double *st = s->stack;
	unsigned char *live = s->live;
	for (int j = s->t->n - 1; j >= 0; j--) {
		const gp_node *nd = &t[j];
		if (nd->op == GP_TERM_VAR || nd->op == GP_TERM_CONST) {
			double *fr = st + (size_t)sp * w;
			fr[0] = nd->op == GP_TERM_VAR ? (double)c->x[(size_t)nd->var * c->stride + i]
						      : (double)nd->value;
			live[sp++] = s->slot[j] >= 0;
			if (s->slot[j] >= 0) {
				memset(fr + 1, 0, sizeof *fr * (size_t)m);
				fr[1 + s->slot[j]] = 1.0;
			}
			continue;
		}
		int k = gp_op_arity(nd->op), la = live[sp - 1], lb = k > 1 && live[sp - 2];
		double *a = st + (size_t)(sp - 1) * w, *b = k > 1 ? st + (size_t)(sp - 2) * w : a;
		double *res = st + (size_t)(sp - k) * w;
		if (nd->op == GP_OP_IF) {   /* a ? b : c, the chosen branch's derivatives */
			if (a[0] != 0) {
				memcpy(res, b, sizeof *res * (size_t)(lb ? w : 1));
				live[sp - 3] = (unsigned char)lb;
			}
		} else {
			double pa, pb, v = gp_lm_partials(nd->op, a[0], b[0], &pa, &pb);
			la = la && pa != 0;
			lb = lb && pb != 0;
			for (int q = 1; q < w && (la || lb); q++)
				res[q] = (la ? pa * a[q] : 0.0) + (lb ? pb * b[q] : 0.0);
			live[sp - k] = (unsigned char)(la || lb);
			res[0] = gp_lm_result(v);   /* inf past the float range */
		}
		sp -= k - 1;
	}
	s->f[row] = st[0];
	if (live[0])
		memcpy(s->jac + row * (size_t)m, st + 1, sizeof *st * (size_t)m);
	else
		memset(s->jac + row * (size_t)m, 0, sizeof *st * (size_t)m);
}

/* The fitness case behind row k of the sample (evenly spaced). */
static size_t case_of(const opt_state *s, size_t k)
{
	return gp_constopt_case(s->cases->ncases, s->ns, k);
}

size_t gp_constopt_case(size_t ncases, size_t ns, size_t k)
{
	return ns == ncases ? k : k * ncases / ns;
}

/* Residuals r and their Jacobian jr at the current constants (scaled: the
 * variable projection of the file's comment); the objective (MSE), +inf
 * when not finite. */
static double residuals(opt_state *s, double *r, double *jr)
{
	const gp_cases *c = s->cases;
	size_t n = s->ns;
	int m = s->m;
	double fm = 0, ym = 0, sff = 0, sfy = 0, b = 1, obj = 0;
	for (size_t i = 0; i < n; i++) {
		eval_case(s, i, case_of(s, i));
		fm += s->f[i];
		ym += s->y[i];
	}
	fm /= (double)n;
	ym /= (double)n;
	if (c->scale) {
		for (size_t i = 0; i < n; i++) {
			sff += (s->f[i] - fm) * (s->f[i] - fm);
			sfy += (s->f[i] - fm) * (s->y[i] - ym);
		}
		b = sff > 0 && isfinite(sff) ? sfy / sff : 0.0;
	}
	for (size_t i = 0; i < n; i++) {
		r[i] = c->scale ? (s->y[i] - ym) - b * (s->f[i] - fm) : s->y[i] - s->f[i];
		obj += r[i] * r[i];
	}
	for (int k = 0; k < m; k++) {
		double jm = 0, cov = 0;
		if (c->scale) {
			for (size_t i = 0; i < n; i++)
				jm += s->jac[i * m + k];
			jm /= (double)n;
			for (size_t i = 0; i < n; i++)
				cov += (s->f[i] - fm) * (s->jac[i * m + k] - jm);
			cov = sff > 0 ? cov / sff : 0.0;
		}
		for (size_t i = 0; i < n; i++) {
			double d = c->scale ? b * (s->jac[i * m + k] - jm - cov * (s->f[i] - fm))
					    : s->jac[i * m + k];
			jr[i * m + k] = isfinite(d) ? -d : 0.0;
		}
	}
	obj /= (double)n;
	return isfinite(obj) ? obj : INFINITY;
}

/* Solves a x = b (m x m, row-major; a and b are overwritten) by Gaussian
 * elimination with partial pivoting; 0 when singular. */
static int solve(double *a, double *b, double *x, int m)
{
	for (int col = 0; col < m; col++) {
		if (!gp_lm_pivot(a, b, m, col))
			return 0;
		for (int r = col + 1; r < m; r++)
			gp_lm_eliminate(a, b, m, col, r);
	}
	gp_lm_back(a, b, x, m);
	return 1;
}

/* The normal equations at the current point: a = jr' jr, g = jr' r. */
static void normal(const opt_state *s, const double *r, const double *jr, double *a, double *g)
{
	size_t n = s->ns;
	int m = s->m;
	for (int p = 0; p < m; p++) {
		double gp = 0;
		for (size_t i = 0; i < n; i++)
			gp += jr[i * m + p] * r[i];
		g[p] = gp;
		for (int q = 0; q <= p; q++) {
			double sum = 0;
			for (size_t i = 0; i < n; i++)
				sum += jr[i * m + p] * jr[i * m + q];
			a[p * m + q] = a[q * m + p] = sum;
		}
	}
}

/* The LM loop: up to `steps` trials, each solving
 * (J'J + lambda diag(J'J)) d = -J'r; a trial is kept when it lowers the
 * double objective. Stops early once a kept step gains < 1e-12 of the
 * objective or lambda grows past 1e10 (no descent left). */
static void lm(opt_state *s, int steps)
{
	enum { M = GP_CONSTOPT_MAX_CONSTS };
	int m = s->m;
	double a[M * M], g[M], sys[M * M], rhs[M], d[M];
	float saved[M];
	double lambda = 1e-3, cur = residuals(s, s->r[0], s->jr[0]);
	if (isfinite(cur))
		normal(s, s->r[0], s->jr[0], a, g);
	for (int step = 0; step < steps && isfinite(cur) && cur > 0 && lambda < 1e30; step++) {
		memcpy(sys, a, sizeof(double) * (size_t)(m * m));
		for (int p = 0; p < m; p++) {
			sys[p * m + p] += lambda * (a[p * m + p] > 0 ? a[p * m + p] : 1.0);
			rhs[p] = -g[p];
		}
		if (!solve(sys, rhs, d, m)) {
			lambda *= 10;
			continue;
		}
		for (int k = 0; k < m; k++) {
			gp_node *nd = &s->t->nodes[s->idx[k]];
			saved[k] = nd->value;
			nd->value = (float)((double)nd->value + d[k]);
		}
		double next = residuals(s, s->r[1], s->jr[1]);
#ifdef GP_DEBUG_LM
		fprintf(stderr, "step %d lambda %g cur %.9g next %.9g d0 %g\n", step, lambda, cur, next, d[0]);
#endif
		if (next < cur) {
			double *tr = s->r[0], *tj = s->jr[0];
			s->r[0] = s->r[1];
			s->jr[0] = s->jr[1];
			s->r[1] = tr;
			s->jr[1] = tj;
			int done = cur - next <= 1e-12 * cur;
			cur = next;
			lambda = lambda / 10 > 1e-12 ? lambda / 10 : 1e-12;
			normal(s, s->r[0], s->jr[0], a, g);
			if (done)
				break;
		} else {
			for (int k = 0; k < m; k++)
				s->t->nodes[s->idx[k]].value = saved[k];
			lambda *= 10;
		}
	}
}

/* The fitness evaluator's MSE of t (what a run reports); +inf when not finite. */
static rt_status fitness_of(gp_packed *pk, const gp_tree *t, const gp_cases *c, double *mse,
			    rt_error *err)
{
	if (gp_pack_lgp(pk, t, 1, err) || gp_eval_cpu(pk, c, GP_EVAL_LGP2D, mse, err))
		return err->status;
	if (!isfinite(*mse))
		*mse = INFINITY;
	return RT_OK;
}

/* Fitted constants can make a program that fits the cases only by huge
 * outputs cancelling under the line a + b*f (b tiny), or by terms that
 * cancel inside it: its float evaluation (what the run scores, exports and
 * predicts with) then no longer renders the formula (held-out sets
 * overflowed; predictions differed from the printed formula by 1e-3). A fit
 * is kept only if, on the cases, every output is at most
 * GP_CONSTOPT_MAX_OUTPUT in magnitude and the float outputs equal the
 * formula's in double within GP_CONSTOPT_FAITHFUL of the outputs' spread. */
#define GP_CONSTOPT_MAX_OUTPUT 1e15
#define GP_CONSTOPT_FAITHFUL 1e-4

/* Does pk (t packed) evaluate in float as t does in double on the cases,
 * with moderate outputs? No (0) also when out of memory: the fit is then
 * not kept. */
static int outputs_faithful(const gp_tree *t, const gp_packed *pk, const gp_cases *c)
{
	rt_error err;
	size_t n = c->ncases, step = n > 4096 ? n / 4096 : 1;   /* at most ~4096 cases in double */
	size_t m = (n + step - 1) / step;
	double *x = malloc(((size_t)c->ninputs + 1) * sizeof *x), *fd = malloc((m + 1) * sizeof *fd);
	float *ff = malloc((n + 1) * sizeof *ff);
	int ok = x && fd && ff && gp_eval_cpu_outputs(pk, c, ff, &err) == RT_OK;
	double mean = 0, var = 0, worst = 0;
	for (size_t k = 0; ok && k < m; k++) {
		for (int v = 0; v < c->ninputs; v++)
			x[v] = (double)c->x[(size_t)v * c->stride + k * step];
		fd[k] = gp_simplify_eval_prefix(t->nodes, t->n, x);
		ok = fabs(fd[k]) <= GP_CONSTOPT_MAX_OUTPUT;
		mean += ok ? fd[k] : 0;
	}
	mean = m ? mean / (double)m : 0;
	for (size_t k = 0; ok && k < m; k++) {
		var += (fd[k] - mean) * (fd[k] - mean) / (double)m;
		double d = fabs((double)ff[k * step] - fd[k]);
		worst = d > worst || d != d ? d : worst;
	}
	ok = ok && worst <= GP_CONSTOPT_FAITHFUL * sqrt(var) + 1e-300;
	free(x);
	free(fd);
	free(ff);
	return ok;
}

/* Are the fitted constants finite and at most GP_CONSTOPT_MAX_OUTPUT? (A
 * constant in a branch that does not reach the output, e.g. under
 * protexp, could otherwise go to infinity as a float and be printed so.) */
static int constants_moderate(const gp_tree *t, const int *idx, int m)
{
	for (int k = 0; k < m; k++)
		if (!(fabsf(t->nodes[idx[k]].value) <= (float)GP_CONSTOPT_MAX_OUTPUT))
			return 0;
	return 1;
}

/* Is this constant node one of the named constants (pi, e), kept fixed? */
static int is_named(const gp_node *nd)
{
	for (int k = 0; k < GP_NAMED_COUNT; k++)
		if (nd->value == gp_named_value(k))
			return 1;
	return 0;
}

int gp_constopt_constants(const gp_tree *t, int *idx)
{
	int m = 0;
	for (int i = 0; i < t->n; i++) {
		if (t->nodes[i].op != GP_TERM_CONST || is_named(&t->nodes[i]))
			continue;
		if (m == GP_CONSTOPT_MAX_CONSTS)
			return 0;   /* too many: leave the tree alone */
		idx[m++] = i;
	}
	return m;
}

/* s's constants (idx, m, slot); 0 when there are none or too many. */
static int find_constants(opt_state *s, rt_error *err, rt_status *st)
{
	gp_tree *t = s->t;
	*st = RT_OK;
	if (!(s->slot = rt_malloc(((size_t)t->n + 1) * sizeof *s->slot, err))) {
		*st = err->status;
		return 0;
	}
	for (int i = 0; i < t->n; i++)
		s->slot[i] = -1;
	s->m = gp_constopt_constants(t, s->idx);
	for (int k = 0; k < s->m; k++)
		s->slot[s->idx[k]] = k;
	return s->m;
}

/* The working arrays of s for its m constants. */
static rt_status state_alloc(opt_state *s, rt_error *err)
{
	size_t n = s->cases->ncases < GP_CONSTOPT_MAX_CASES ? s->cases->ncases : GP_CONSTOPT_MAX_CASES;
	size_t w = (size_t)s->m + 1, nm = n * (size_t)s->m;
	s->ns = n;
	if (!(s->y = rt_malloc((n + 1) * sizeof(double), err)))
		return err->status;
	for (size_t k = 0; k < n; k++)
		s->y[k] = (double)s->cases->y[case_of(s, k)];
	if (!(s->stack = rt_malloc(((size_t)s->t->n + 1) * w * sizeof(double), err)) ||
	    !(s->live = rt_malloc((size_t)s->t->n + 1, err)) ||
	    !(s->f = rt_malloc((n + 1) * sizeof(double), err)) ||
	    !(s->jac = rt_malloc((nm + 1) * sizeof(double), err)))
		return err->status;
	for (int k = 0; k < 2; k++)
		if (!(s->r[k] = rt_malloc((n + 1) * sizeof(double), err)) ||
		    !(s->jr[k] = rt_malloc((nm + 1) * sizeof(double), err)))
			return err->status;
	return RT_OK;
}

static void state_free(opt_state *s)
{
	free(s->slot);
	free(s->stack);
	free(s->live);
	free(s->y);
	free(s->f);
	free(s->jac);
	for (int k = 0; k < 2; k++) {
		free(s->r[k]);
		free(s->jr[k]);
	}
}

rt_status gp_constopt_fitness(gp_packed *pk, const gp_tree *t, const gp_cases *cases,
			      double *mse, rt_error *err)
{
	return fitness_of(pk, t, cases, mse, err);
}

/* The checks of gp_constopt_keep with t's new fitness `after` known (pk:
 * scratch), and orig back when they fail. */
static rt_status judge(gp_packed *pk, gp_tree *t, const gp_cases *cases, const int *idx, int m,
		       const float *orig, double before, double after, double *mse, rt_error *err)
{
	int ok = after < before && constants_moderate(t, idx, m);
	rt_status st = RT_OK;
	if (ok && !(st = gp_pack_lgp(pk, t, 1, err)))
		ok = outputs_faithful(t, pk, cases);
	*mse = after;
	if (!ok || st) {
		for (int k = 0; k < m; k++)
			t->nodes[idx[k]].value = orig[k];
		*mse = before;
	}
	return st;
}

rt_status gp_constopt_keep(gp_packed *pk, gp_tree *t, const gp_cases *cases, const int *idx,
			   int m, const float *orig, double before, double *mse, rt_error *err)
{
	/* The evaluator's own sum decides: never hand back a worse program, nor
	 * one the float evaluation does not render (outputs_faithful). */
	double after;
	rt_status st = fitness_of(pk, t, cases, &after, err);
	if (st) {
		for (int k = 0; k < m; k++)
			t->nodes[idx[k]].value = orig[k];
		*mse = before;
		return st;
	}
	return judge(pk, t, cases, idx, m, orig, before, after, mse, err);
}

rt_status gp_constopt_tree(gp_tree *t, const gp_cases *cases, int steps, double *mse,
			   rt_error *err)
{
	opt_state s;
	memset(&s, 0, sizeof s);
	s.t = t;
	s.cases = cases;
	if (cases->fitness != GP_FIT_MSE)
		return rt_fail(err, RT_ERR_INPUT, "constant optimisation needs mse fitness cases");
	gp_packed pk;
	gp_packed_init(&pk);
	double before;
	rt_status st = fitness_of(&pk, t, cases, &before, err);
	*mse = before;
	float orig[GP_CONSTOPT_MAX_CONSTS];
	if (st || steps <= 0 || cases->ncases == 0 || !find_constants(&s, err, &st) ||
	    (st = state_alloc(&s, err)))
		goto out;
	for (int k = 0; k < s.m; k++)
		orig[k] = t->nodes[s.idx[k]].value;
	lm(&s, steps);
	st = gp_constopt_keep(&pk, t, cases, s.idx, s.m, orig, before, mse, err);
out:
	state_free(&s);
	gp_packed_free(&pk);
	return st;
}

int gp_constopt_pick(const double *fitness, int n, int k, int *order, rt_error *err)
{
	unsigned char *taken = rt_calloc((size_t)n + 1, 1, err);
	int got = 0;
	if (!taken)
		return -1;
	for (int pick = 0; pick < k && pick < n; pick++) {
		int best = -1;
		for (int i = 0; i < n; i++)
			if (!taken[i] && isfinite(fitness[i]) && (best < 0 || fitness[i] < fitness[best]))
				best = i;
		if (best < 0)
			break;
		taken[best] = 1;
		order[got++] = best;
	}
	free(taken);
	return got;
}

rt_status gp_constopt_population(gp_tree *pop, double *fitness, int n, int k,
				 const gp_cases *cases, int steps, rt_error *err)
{
	int *order = rt_malloc(((size_t)(k < 0 ? 0 : k < n ? k : n) + 1) * sizeof *order, err);
	int got = order ? gp_constopt_pick(fitness, n, k, order, err) : -1;
	rt_status st = got < 0 ? err->status : RT_OK;
	for (int j = 0; j < got && !st; j++) {
		double mse;
		int best = order[j];
		if ((st = gp_constopt_tree(&pop[best], cases, steps, &mse, err)))
			break;
		if (mse < fitness[best])
			fitness[best] = mse;
	}
	free(order);
	return st;
}

rt_status gp_constopt_front(gp_front *f, const gp_cases *cases, int steps, int *improved,
			    rt_error *err)
{
	gp_front nf = {f->objectives, NULL, 0, 0};
	gp_tree t = {0};
	int nimp = 0;
	rt_status st = RT_OK;
	for (int k = 0; k < f->n && !st; k++) {
		const gp_front_member *mb = &f->m[k];
		double mse;
		if ((st = gp_tree_copy(&t, &mb->tree, err)) ||
		    (st = gp_constopt_tree(&t, cases, steps, &mse, err)))
			break;
		int better = mse < mb->error;
		nimp += better;
		/* offered again: the new archive keeps the non-dominated members */
		st = better ? gp_front_offer(&nf, &t, mse, mb->generation, NULL, err)
			    : gp_front_offer(&nf, &mb->tree, mb->error, mb->generation, NULL, err);
	}
	gp_tree_free(&t);
	if (st) {
		gp_front_free(&nf);
		return st;
	}
	gp_front_free(f);
	*f = nf;
	if (improved)
		*improved = nimp;
	return RT_OK;
}

int gp_constopt_faithful(const gp_tree *t, const gp_cases *cases)
{
	gp_packed pk;
	rt_error err;
	int inputs = 0;
	for (int k = 0; k < t->n; k++)
		inputs |= t->nodes[k].op == GP_TERM_VAR;
	if (!inputs)
		return 1;   /* a constant: the same value in every case, however printed */
	gp_packed_init(&pk);
	int ok = cases->fitness != GP_FIT_MSE ||
		 (gp_pack_lgp(&pk, t, 1, &err) == RT_OK && outputs_faithful(t, &pk, cases));
	gp_packed_free(&pk);
	return ok;
}
