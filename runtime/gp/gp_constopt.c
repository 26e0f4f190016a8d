/* gp_constopt.c: Levenberg-Marquardt on a GP program's constants.
 *
 * Why finite differences: the CPU interpreter (gp_eval_cpu_outputs) is the
 * one definition of every operation, protected forms included; derivatives
 * of our own would be a second one. A forward difference per constant costs
 * one more evaluation of one program, which is cheap next to a generation.
 * Outputs are floats, so the step h = 1e-3 max(1, |c|) keeps the rounding
 * error of a Jacobian entry near 1e-4 of the output's scale; LM only needs
 * a descent direction, and every step is accepted on the true MSE. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "gp_constopt.h"
#include "gp_conv.h"
#include "gp_eval.h"

/* Working state for one tree. */
typedef struct opt_state {
	gp_tree *t;
	const gp_cases *cases;
	int m;                                 /* constants */
	int idx[GP_CONSTOPT_MAX_CONSTS];       /* their node indices */
	gp_packed packed;
	float *out;                            /* outputs at the current constants */
	float *trial;                          /* outputs of a trial */
	float *jac;                            /* m columns of ncases: d out / d c_k */
} opt_state;

/* Outputs of s->t as it is now into out. */
static rt_status outputs(opt_state *s, float *out, rt_error *err)
{
	if (gp_pack_lgp(&s->packed, s->t, 1, err))
		return err->status;
	return gp_eval_cpu_outputs(&s->packed, s->cases, out, err);
}

/* MSE of outputs against y, in double; +inf when not finite. */
static double mse_of(const float *out, const gp_cases *c)
{
	double sum = 0;
	for (size_t i = 0; i < c->ncases; i++) {
		double r = (double)out[i] - (double)c->y[i];
		sum += r * r;
	}
	sum /= (double)c->ncases;
	return isfinite(sum) ? sum : INFINITY;
}

/* The fitness evaluator's MSE of s->t (what a run reports). */
static rt_status fitness_of(opt_state *s, double *mse, rt_error *err)
{
	if (gp_pack_lgp(&s->packed, s->t, 1, err) ||
	    gp_eval_cpu(&s->packed, s->cases, GP_EVAL_LGP2D, mse, err))
		return err->status;
	if (!isfinite(*mse))
		*mse = INFINITY;
	return RT_OK;
}

/* Solves a x = b (m x m, row-major; a and b are overwritten) by Gaussian
 * elimination with partial pivoting; 0 when singular. */
static int solve(double *a, double *b, double *x, int m)
{
	for (int col = 0; col < m; col++) {
		int piv = col;
		for (int r = col + 1; r < m; r++)
			if (fabs(a[r * m + col]) > fabs(a[piv * m + col]))
				piv = r;
		if (!(fabs(a[piv * m + col]) > 1e-300))
			return 0;
		if (piv != col) {
			for (int k = 0; k < m; k++) {
				double tmp = a[col * m + k];
				a[col * m + k] = a[piv * m + k];
				a[piv * m + k] = tmp;
			}
			double tb = b[col];
			b[col] = b[piv];
			b[piv] = tb;
		}
		for (int r = col + 1; r < m; r++) {
			double f = a[r * m + col] / a[col * m + col];
			for (int k = col; k < m; k++)
				a[r * m + k] -= f * a[col * m + k];
			b[r] -= f * b[col];
		}
	}
	for (int r = m - 1; r >= 0; r--) {
		double sum = b[r];
		for (int k = r + 1; k < m; k++)
			sum -= a[r * m + k] * x[k];
		x[r] = sum / a[r * m + r];
	}
	return 1;
}

/* Forward-difference Jacobian at the current constants into s->jac. */
static rt_status jacobian(opt_state *s, rt_error *err)
{
	size_t n = s->cases->ncases;
	for (int k = 0; k < s->m; k++) {
		gp_node *nd = &s->t->nodes[s->idx[k]];
		float c = nd->value;
		float h = 1e-3f * (fabsf(c) > 1.0f ? fabsf(c) : 1.0f);
		nd->value = c + h;
		double hh = (double)nd->value - (double)c;   /* the step as represented */
		rt_status st = outputs(s, s->trial, err);
		nd->value = c;
		if (st)
			return st;
		float *col = s->jac + (size_t)k * n;
		for (size_t i = 0; i < n; i++) {
			double d = ((double)s->trial[i] - (double)s->out[i]) / hh;
			col[i] = isfinite(d) ? (float)d : 0.0f;
		}
	}
	return RT_OK;
}

/* The LM loop: `steps` trials, each solving (J'J + lambda diag(J'J)) d = -J'r. */
static rt_status lm(opt_state *s, int steps, rt_error *err)
{
	const gp_cases *c = s->cases;
	size_t n = c->ncases;
	int m = s->m;
	double a[GP_CONSTOPT_MAX_CONSTS * GP_CONSTOPT_MAX_CONSTS], g[GP_CONSTOPT_MAX_CONSTS];
	double sys[GP_CONSTOPT_MAX_CONSTS * GP_CONSTOPT_MAX_CONSTS], rhs[GP_CONSTOPT_MAX_CONSTS];
	double d[GP_CONSTOPT_MAX_CONSTS];
	float saved[GP_CONSTOPT_MAX_CONSTS];
	double lambda = 1e-3;
	if (outputs(s, s->out, err))
		return err->status;
	double cur = mse_of(s->out, c);
	int fresh = 0;   /* is the Jacobian for the current constants? */
	for (int step = 0; step < steps && isfinite(cur) && cur > 0; step++) {
		if (!fresh) {
			if (jacobian(s, err))
				return err->status;
			for (int p = 0; p < m; p++) {
				const float *jp = s->jac + (size_t)p * n;
				double gp = 0;
				for (size_t i = 0; i < n; i++)
					gp += (double)jp[i] * ((double)s->out[i] - (double)c->y[i]);
				g[p] = gp;
				for (int q = 0; q <= p; q++) {
					const float *jq = s->jac + (size_t)q * n;
					double sum = 0;
					for (size_t i = 0; i < n; i++)
						sum += (double)jp[i] * (double)jq[i];
					a[p * m + q] = a[q * m + p] = sum;
				}
			}
			fresh = 1;
		}
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
		if (outputs(s, s->trial, err))
			return err->status;
		double next = mse_of(s->trial, c);
		if (next < cur) {
			float *tmp = s->out;
			s->out = s->trial;
			s->trial = tmp;
			cur = next;
			lambda = lambda / 10 > 1e-12 ? lambda / 10 : 1e-12;
			fresh = 0;
		} else {
			for (int k = 0; k < m; k++)
				s->t->nodes[s->idx[k]].value = saved[k];
			lambda *= 10;
		}
	}
	return RT_OK;
}

rt_status gp_constopt_tree(gp_tree *t, const gp_cases *cases, int steps, double *mse,
			   rt_error *err)
{
	opt_state s;
	memset(&s, 0, sizeof s);
	s.t = t;
	s.cases = cases;
	gp_packed_init(&s.packed);
	if (cases->fitness != GP_FIT_MSE)
		return rt_fail(err, RT_ERR_INPUT, "constant optimisation needs mse fitness cases");
	for (int i = 0; i < t->n; i++)
		if (t->nodes[i].op == GP_TERM_CONST) {
			if (s.m == GP_CONSTOPT_MAX_CONSTS) {
				s.m = 0;   /* too many: leave the tree alone */
				break;
			}
			s.idx[s.m++] = i;
		}
	double before;
	rt_status st = fitness_of(&s, &before, err);
	*mse = before;
	if (st || s.m == 0 || steps <= 0)
		goto out;
	float orig[GP_CONSTOPT_MAX_CONSTS];
	for (int k = 0; k < s.m; k++)
		orig[k] = t->nodes[s.idx[k]].value;
	size_t n = cases->ncases;
	s.out = rt_malloc(n * sizeof(float), err);
	s.trial = s.out ? rt_malloc(n * sizeof(float), err) : NULL;
	s.jac = s.trial ? rt_malloc((size_t)s.m * n * sizeof(float), err) : NULL;
	if (!s.jac) {
		st = err->status;
		goto out;
	}
	if ((st = lm(&s, steps, err)) || (st = fitness_of(&s, mse, err)))
		goto restore;
	/* The evaluator's own sum decides: never hand back a worse program. */
	if (!(*mse < before))
		goto restore;
	goto out;
restore:
	for (int k = 0; k < s.m; k++)
		t->nodes[s.idx[k]].value = orig[k];
	*mse = before;
out:
	free(s.out);
	free(s.trial);
	free(s.jac);
	gp_packed_free(&s.packed);
	return st;
}

rt_status gp_constopt_population(gp_tree *pop, double *fitness, int n, int k,
				 const gp_cases *cases, int steps, rt_error *err)
{
	unsigned char *taken = rt_calloc((size_t)n, 1, err);
	if (!taken)
		return err->status;
	rt_status st = RT_OK;
	for (int pick = 0; pick < k && pick < n && !st; pick++) {
		int best = -1;
		for (int i = 0; i < n; i++)
			if (!taken[i] && isfinite(fitness[i]) && (best < 0 || fitness[i] < fitness[best]))
				best = i;
		if (best < 0)
			break;
		taken[best] = 1;
		double mse;
		if ((st = gp_constopt_tree(&pop[best], cases, steps, &mse, err)))
			break;
		if (mse < fitness[best])
			fitness[best] = mse;
	}
	free(taken);
	return st;
}
