/* svm_solver.c: SMO for one binary C-SVC problem on the CPU, as LIBSVM's
 * Solver does it: the gradient G = Q alpha - e kept for every point, a
 * working pair chosen by LIBSVM's second-order rule (WSS2) or by the
 * maximal violating pair (first order, the seed's), the pair's analytic
 * update with clipping, then G updated from the two kernel rows.
 * Kernel rows are stored as float (LIBSVM's Qfloat) in an LRU row cache and
 * computed over the thread pool; on sparse data the row's point is
 * scattered into a dense vector once and every other point's dot product
 * gathers over its non-zeros (svm_sparse.c: the same bits as dense). Stops when the maximal violation
 * m(alpha) - M(alpha) falls below eps; rho is the mean of y_i G_i over the
 * free points (else the middle of the feasible range), as LIBSVM.
 *
 * Shrinking (p->shrinking, svm-train -h 1; Chang & Lin 2011, 5.1), as
 * LIBSVM does it: every min(n, 1000) iterations the points at a bound whose
 * gradient says they will stay there (LIBSVM's be_shrunk, by sign for the
 * nu-form) leave the active set, which the selection, the gradient update
 * and the kernel rows then cover alone (a row computed over the active set
 * serves until the set grows again). G_bar = sum over the points at their
 * upper bound of C_j Q_j is kept over all points, so that the gradient of
 * the shrunk points can be rebuilt (G = G_bar + linear term + the free
 * points' share): once when the violation first falls below 10 eps (then
 * every point is active again and shrinking goes on), whenever the active
 * set looks optimal (the pair is chosen again over all points: SMO stops
 * only when all of them meet eps), and at the end before rho and the
 * objective. The active set keeps LIBSVM's order (a shrunk point swaps
 * places with the last active one), so the pair picks, ties included, are
 * LIBSVM's. Without shrinking the active set is every point, in order: the
 * same arithmetic as before shrinking existed.
 *
 * Non-finite values: a kernel value that overflows (a Q row entry or a
 * diagonal K(x, x) that is inf or NaN as a float, e.g. a polynomial kernel of
 * high degree on large values) stops the CPU solver with the two points
 * named; on either backend a non-finite alpha, rho or objective stops
 * training before any model exists. */
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cpu.h"
#include "log.h"
#include "svm_batch.h"
#include "svm_ckpt.h"
#include "svm_impl.h"
#include "signals.h"

/* The LRU cache of Q rows (Q_ij = y_i y_j K(x_i, x_j)). */
typedef struct row_cache {
	long n, slots, used;
	float *rows;               /* [slots][n] */
	long *slot_of;             /* point -> slot, or -1 */
	long *point_of;            /* slot -> point */
	long *gen;                 /* slot -> ROW_FULL (every entry computed), else the
	                              active set's generation whose points it holds */
	unsigned long long *stamp, clock;
} row_cache;

#define ROW_FULL (-1L)

typedef struct solver {
	const svm_data *d;
	const long *idx;
	const signed char *y;
	long n;
	const svm_params *p;
	const svm_kernel_params *kp;   /* p->kernel */
	const svm_extra *ex;       /* NULL: C-SVC's problem */
	double Cp, Cn;
	long pair;                 /* the problem's name in checkpoints: (p->ckpt_model, pair) */
	long it0;                  /* iterations done before (resumed), else 0 */
	int done0;                 /* resumed finished */
	double *alpha, *G, *QD, *sq;
	row_cache cache;
	long *act;                 /* [n]: the active points act[0..nact), the shrunk after */
	long nact;
	long gen;                  /* the active set's generation: one more each time it grows */
	int shrink;                /* p->shrinking (on the CPU) */
	int unshrunk;              /* the one unshrinking at 10 eps is done */
	double *G_bar;             /* shrinking: [n], sum over alpha_j at C_j of C_j Q_j */
	double *G_full;            /* shrinking: [n] scratch, the whole gradient for checkpoints */
	long fill_row;             /* the row being computed (parallel body) */
	const long *fill_list;     /* its points: fill_list[0..count), or NULL: all */
	float *fill_out;
	double *pivot;             /* sparse data: [nfeat], the row's point scattered, else 0 */
	svm_history *hist;         /* p->history: the problem's rows, else NULL */
} solver;

static double bound(const solver *s, long i) { return s->y[i] > 0 ? s->Cp : s->Cn; }
static int at_upper(const solver *s, long i) { return s->alpha[i] >= bound(s, i); }
static int at_lower(const solver *s, long i) { return s->alpha[i] <= 0; }

/* The k-th active point (without shrinking, k: the loops as before). */
static inline long active(const solver *s, long k) { return s->shrink ? s->act[k] : k; }

static const float *point(const solver *s, long i)
{
	return s->d->x + (size_t)s->idx[i] * s->d->nfeat;
}

static void fill_body(void *ctx, long begin, long end, int thread)
{
	solver *s = ctx;
	long i = s->fill_row;
	const long *list = s->fill_list;
	(void)thread;
	if (s->d->sparse) {
		for (long t = begin; t < end; t++) {
			long k = list ? list[t] : t;
			double dot = svm_row_dot(s->d, s->idx[k], s->pivot, s->d->nfeat);
			s->fill_out[k] = (float)(s->y[i] * s->y[k] *
						 svm_kernel_dot(s->kp, dot, s->sq[i], s->sq[k]));
		}
		return;
	}
	const float *xi = point(s, i);
	for (long t = begin; t < end; t++) {
		long k = list ? list[t] : t;
		s->fill_out[k] = (float)(s->y[i] * s->y[k] *
					 svm_kernel(s->kp, xi, point(s, k), s->d->nfeat,
						    s->sq[i], s->sq[k]));
	}
}

static const char *kernel_type_name(int type)
{
	static const char *const names[] = { "linear", "polynomial", "rbf", "sigmoid" };
	return type >= 0 && type < 4 ? names[type] : "?";
}

/* The error for a non-finite kernel value between data points a and b
 * (0-based), for both backends. */
static rt_status overflow_error(const svm_kernel_params *k, long a, long b, double v, rt_error *err)
{
	return rt_fail(err, RT_ERR_INPUT,
		       "svm: the kernel value of training points %ld and %ld is %g as a float (%s kernel, "
		       "gamma %g, coef0 %g, degree %d): it overflows; lower gamma or degree, or scale the "
		       "data; no model was written", a + 1, b + 1, v,
		       kernel_type_name(k->type), k->gamma, k->coef0, k->degree);
}

/* The error for a non-finite kernel value between solver points i and j. */
static rt_status kernel_overflow(const solver *s, long i, long j, double v, rt_error *err)
{
	return overflow_error(s->kp, s->idx[i], s->idx[j], v, err);
}

/* K(x, x) of the problem's points, as the solver stores it (a float). */
static double diagonal(const svm_data *d, const svm_kernel_params *k, long point)
{
	double sq = d->sparse ? d->sq[point] : svm_row_sq(d, point, d->nfeat);
	return d->sparse ? svm_kernel_dot(k, sq, sq, sq)
			 : svm_kernel(k, d->x + (size_t)point * d->nfeat, d->x + (size_t)point * d->nfeat,
				      d->nfeat, sq, sq);
}

rt_status svm_check_diagonal(const svm_data *d, const long *idx, long n,
			     const svm_kernel_params *k, rt_error *err)
{
	for (long i = 0; i < n; i++) {
		float v = (float)diagonal(d, k, idx[i]);
		if (!isfinite(v))
			return overflow_error(k, idx[i], idx[i], v, err);
	}
	return RT_OK;
}

/* Computes row i of Q into out: the entries of points list[0..count) (list
 * NULL: every point, count n). */
static rt_status fill_row(solver *s, long i, float *out, const long *list, long count,
			  rt_error *err)
{
	s->fill_row = i;
	s->fill_out = out;
	s->fill_list = list;
	if (s->d->sparse)
		svm_row_scatter(s->d, s->idx[i], s->pivot, s->d->nfeat);
	rt_status st = cpu_parallel_for(count, 2048, fill_body, s, err);
	if (s->d->sparse)
		svm_row_unscatter(s->d, s->idx[i], s->pivot, s->d->nfeat);
	if (st != RT_OK)
		return st;
	for (long t = 0; t < count; t++) {
		long k = list ? list[t] : t;
		if (!isfinite(out[k]))
			return kernel_overflow(s, i, k, out[k], err);
	}
	return RT_OK;
}

rt_status svm_q_row_fill(const svm_data *d, const long *idx, const signed char *y, long n,
			 const svm_kernel_params *k, double *sq, double *pivot, long i, float *out,
			 rt_error *err)
{
	solver s;
	memset(&s, 0, sizeof s);
	s.d = d; s.idx = idx; s.y = y; s.n = n; s.kp = k; s.sq = sq; s.pivot = pivot;
	return fill_row(&s, i, out, NULL, n, err);
}

/* Row i of Q, from the cache or computed (evicting the least recently
 * used): all n entries (full), else at least the active points' (a row
 * computed over an active set serves while that set only shrinks; made
 * whole, it gets the shrunk points' entries alone). */
static rt_status q_row(solver *s, long i, int full, const float **row, rt_error *err)
{
	row_cache *c = &s->cache;
	long slot = c->slot_of[i];
	int whole = full || s->nact == s->n;
	if (slot < 0 || (c->gen[slot] != ROW_FULL && (whole || c->gen[slot] != s->gen))) {
		const long *list = whole ? NULL : s->act;
		long count = whole ? s->n : s->nact;
		if (slot >= 0 && whole && c->gen[slot] == s->gen) {   /* the active part holds */
			list = s->act + s->nact;
			count = s->n - s->nact;
		}
		if (slot >= 0) {
			c->slot_of[i] = -1;   /* refilled in place */
		} else if (c->used < c->slots) {
			slot = c->used++;
		} else {
			slot = 0;
			for (long t = 1; t < c->slots; t++)
				if (c->stamp[t] < c->stamp[slot])
					slot = t;
			c->slot_of[c->point_of[slot]] = -1;
		}
		rt_status st = fill_row(s, i, c->rows + (size_t)slot * c->n, list, count, err);
		if (st != RT_OK)
			return st;
		c->slot_of[i] = slot;
		c->point_of[slot] = i;
		c->gen[slot] = whole ? ROW_FULL : s->gen;
	}
	c->stamp[slot] = ++c->clock;
	*row = c->rows + (size_t)slot * c->n;
	return RT_OK;
}

static rt_status cache_init(row_cache *c, long n, double mb, rt_error *err)
{
	long slots = (long)(mb * 1048576.0 / ((double)n * sizeof(float)));
	memset(c, 0, sizeof *c);
	c->n = n;
	c->slots = slots < 2 ? 2 : slots > n ? n : slots;
	c->rows = rt_malloc((size_t)c->slots * n * sizeof(float), err);
	c->slot_of = rt_malloc((size_t)n * sizeof(long), err);
	c->point_of = rt_calloc((size_t)c->slots, sizeof(long), err);
	c->stamp = rt_calloc((size_t)c->slots, sizeof *c->stamp, err);
	c->gen = rt_calloc((size_t)c->slots, sizeof *c->gen, err);
	if (!c->rows || !c->slot_of || !c->point_of || !c->stamp || !c->gen)
		return RT_ERR_SYSTEM;
	for (long i = 0; i < n; i++)
		c->slot_of[i] = -1;
	return RT_OK;
}

static void cache_free(row_cache *c)
{
	free(c->rows);
	free(c->slot_of);
	free(c->point_of);
	free(c->stamp);
	free(c->gen);
}

/* i: the index with the largest -y G in I_up; *gmax its value. */
static long select_i(const solver *s, double *gmax)
{
	long best = -1;
	*gmax = -INFINITY;
	for (long k = 0; k < s->nact; k++) {
		long t = active(s, k);
		if (s->y[t] > 0 ? !at_upper(s, t) : !at_lower(s, t)) {
			double v = s->y[t] > 0 ? -s->G[t] : s->G[t];
			if (v >= *gmax) {
				*gmax = v;
				best = t;
			}
		}
	}
	return best;
}

/* j for a chosen i: second order (LIBSVM WSS2) or the maximal violator;
 * *gmax2 gets max over I_low of y G (for the stopping rule). */
static long select_j(const solver *s, long i, const float *qi, double gmax, double *gmax2)
{
	long best = -1;
	double best_obj = INFINITY;
	*gmax2 = -INFINITY;
	for (long k = 0; k < s->nact; k++) {
		long j = active(s, k);
		int up = s->y[j] > 0;
		double v = up ? s->G[j] : -s->G[j];
		if (up ? at_lower(s, j) : at_upper(s, j))
			continue;
		if (s->p->wss == SVM_WSS_FIRST) {
			if (v >= *gmax2) {
				*gmax2 = v;
				best = j;
			}
			continue;
		}
		if (v >= *gmax2)
			*gmax2 = v;
		double grad_diff = gmax + v;
		if (grad_diff > 0) {
			double obj = -svm_wss2_gain(grad_diff, s->QD[i], s->QD[j], s->y[i], s->y[j], qi[j]);
			if (obj <= best_obj) {
				best_obj = obj;
				best = j;
			}
		}
	}
	return best;
}

/* The nu-form's working pair (Chang & Lin 2011, 4.1.3): i+ and i- the
 * largest -G in I_up among y = +1 / largest G in I_up among y = -1 (I_up:
 * alpha < C for +1, alpha > 0 for -1), then j by the second-order gain
 * against the i of its own sign; *i gets that i, *stop 1 when the larger
 * of the two signs' violations is below eps (or there is no j). */
static rt_status select_nu(solver *s, long *i, long *j, int *stop, rt_error *err)
{
	double gp = -INFINITY, gn = -INFINITY, gp2 = -INFINITY, gn2 = -INFINITY, best = INFINITY;
	long ip = -1, in = -1;
	const float *qp = NULL, *qn = NULL;
	rt_status st;
	for (long k = 0; k < s->nact; k++) {
		long t = active(s, k);
		if (s->y[t] > 0 && !at_upper(s, t) && -s->G[t] >= gp)
			gp = -s->G[t], ip = t;
		if (s->y[t] < 0 && !at_lower(s, t) && s->G[t] >= gn)
			gn = s->G[t], in = t;
	}
	if (ip >= 0 && (st = q_row(s, ip, 0, &qp, err)) != RT_OK)
		return st;
	if (in >= 0 && (st = q_row(s, in, 0, &qn, err)) != RT_OK)
		return st;
	if (ip >= 0 && (st = q_row(s, ip, 0, &qp, err)) != RT_OK)   /* in's row may have evicted ip's */
		return st;
	*j = -1;
	for (long k = 0; k < s->nact; k++) {
		long t = active(s, k);
		int pos = s->y[t] > 0;
		if (pos ? at_lower(s, t) : at_upper(s, t))
			continue;
		double v = pos ? s->G[t] : -s->G[t], diff = (pos ? gp : gn) + v;
		if (pos && v >= gp2)
			gp2 = v;
		if (!pos && v >= gn2)
			gn2 = v;
		if (diff > 0) {
			long a = pos ? ip : in;
			double obj = -svm_wss2_gain(diff, s->QD[a], s->QD[t], s->y[a], s->y[t],
						    (pos ? qp : qn)[t]);
			if (obj <= best) {
				best = obj;
				*j = t;
			}
		}
	}
	*stop = fmax(gp + gp2, gn + gn2) < s->p->eps || *j < 0;
	*i = *j >= 0 ? (s->y[*j] > 0 ? ip : in) : -1;
	return RT_OK;
}

/* The working pair by the problem's rule; *qi gets row i; *stop as select_nu's. */
static rt_status select_pair(solver *s, long *i, long *j, const float **qi, int *stop,
			     rt_error *err)
{
	double gmax, gmax2;
	rt_status st;
	if (s->ex && s->ex->nu) {
		if ((st = select_nu(s, i, j, stop, err)) != RT_OK || *stop)
			return st;
		return q_row(s, *i, 0, qi, err);
	}
	*i = select_i(s, &gmax);
	if (*i < 0)
		return (*stop = 1, RT_OK);
	if ((st = q_row(s, *i, 0, qi, err)) != RT_OK)
		return st;
	*j = select_j(s, *i, *qi, gmax, &gmax2);
	*stop = gmax + gmax2 < s->p->eps || *j < 0;
	return RT_OK;
}

/* The analytic update of alpha_i, alpha_j (svm_core.h). */
static void update_pair(solver *s, long i, long j, const float *qi)
{
	svm_update_pair(&s->alpha[i], &s->alpha[j], s->y[i], s->y[j], bound(s, i), bound(s, j),
			s->G[i], s->G[j], s->QD[i], s->QD[j], qi[j]);
}

/* The nu-form's rho and r: per sign, the mean G of its free points (else
 * the middle of the feasible range); r = (r+ + r-) / 2, rho = (r+ - r-) / 2. */
static void nu_rho(svm_binary *out, const double *alpha, const double *G, const signed char *y,
		   long n, double Cp, double Cn)
{
	double ub[2] = { INFINITY, INFINITY }, lb[2] = { -INFINITY, -INFINITY }, sum[2] = { 0, 0 };
	double r[2];
	long nfree[2] = { 0, 0 };
	for (long i = 0; i < n; i++) {
		int s = y[i] > 0 ? 0 : 1;
		if (alpha[i] >= (y[i] > 0 ? Cp : Cn))
			lb[s] = fmax(lb[s], G[i]);
		else if (alpha[i] <= 0)
			ub[s] = fmin(ub[s], G[i]);
		else {
			nfree[s]++;
			sum[s] += G[i];
		}
	}
	for (int s = 0; s < 2; s++)
		r[s] = nfree[s] > 0 ? sum[s] / nfree[s] : (ub[s] + lb[s]) / 2;
	out->r = (r[0] + r[1]) / 2;
	out->rho = (r[0] - r[1]) / 2;
}

void svm_binary_finish_ex(svm_binary *out, double *alpha, const double *G, const signed char *y,
			  long n, double Cp, double Cn, const svm_extra *ex)
{
	svm_binary_finish(out, alpha, G, y, n, Cp, Cn);
	if (!ex)
		return;
	if (ex->lin) {   /* 1/2 a'Qa + lin'a = 1/2 sum a_i (G_i + lin_i) */
		out->obj = 0;
		for (long i = 0; i < n; i++)
			out->obj += alpha[i] * (G[i] + ex->lin[i]);
		out->obj /= 2;
	}
	if (ex->nu)
		nu_rho(out, alpha, G, y, n, Cp, Cn);
}

void svm_binary_finish(svm_binary *out, double *alpha, const double *G, const signed char *y,
		       long n, double Cp, double Cn)
{
	double ub = INFINITY, lb = -INFINITY, sum_free = 0;
	long nr_free = 0;
	out->obj = 0;
	out->nsv = out->nbsv = 0;
	for (long i = 0; i < n; i++) {
		double yG = y[i] * G[i], C = y[i] > 0 ? Cp : Cn;
		if (alpha[i] >= C) {
			if (y[i] < 0) ub = fmin(ub, yG); else lb = fmax(lb, yG);
			out->nbsv++;
		} else if (alpha[i] <= 0) {
			if (y[i] > 0) ub = fmin(ub, yG); else lb = fmax(lb, yG);
		} else {
			nr_free++;
			sum_free += yG;
		}
		out->obj += alpha[i] * (G[i] - 1.0);
		out->nsv += alpha[i] > 0;
	}
	out->obj /= 2;
	out->rho = nr_free > 0 ? sum_free / nr_free : (ub + lb) / 2;
	out->r = 0;
	out->alpha = alpha;
}

/* ---- history (svm_impl.h) ---- */

rt_status svm_history_start(svm_history *h, long n, int pairs, rt_error *err)
{
	memset(h, 0, sizeof *h);
	if (!(h->rows = rt_malloc(SVM_HISTORY_ROWS * sizeof *h->rows, err)))
		return RT_ERR_SYSTEM;
	h->every = pairs > 1 ? SVM_HISTORY_EVERY_PAIRS : 4;
	while (h->every * 64 < n)
		h->every *= 2;
	return RT_OK;
}

void svm_history_free(svm_history *h)
{
	free(h->rows);
	memset(h, 0, sizeof *h);
}

int svm_history_due(const svm_history *h, long iteration)
{
	return h && h->every > 0 && iteration % h->every == 0;
}

long svm_history_to_next(const svm_history *h, long iteration)
{
	return h && h->every > 0 ? h->every - iteration % h->every : LONG_MAX;
}

/* Is a row after `iteration` iterations still to come? */
static int history_wants(const svm_history *h, long iteration)
{
	return h->every != 0 && (h->n == 0 || h->rows[h->n - 1].iteration < iteration);
}

/* Appends a row (h->every doubled first when the rows are full). */
static void history_push(svm_history *h, long iteration, double obj, double gap)
{
	if (h->n == SVM_HISTORY_ROWS) {
		long kept = 0;
		h->every *= 2;
		for (long r = 0; r < h->n; r++)
			if (h->rows[r].iteration % h->every == 0)
				h->rows[kept++] = h->rows[r];
		h->n = kept;
	}
	h->rows[h->n++] = (svm_history_row){ iteration, obj, gap };
}

void svm_history_add(svm_history *h, long iteration, const double *alpha, const double *G,
		     const signed char *y, long n, double Cp, double Cn)
{
	double obj = 0, up = -INFINITY, low = -INFINITY;
	if (!history_wants(h, iteration))
		return;
	for (long i = 0; i < n; i++) {   /* svm_binary_finish's sum, and select_i/j's sets */
		double C = y[i] > 0 ? Cp : Cn, yG = y[i] * G[i];
		obj += alpha[i] * (G[i] - 1.0);
		if (y[i] > 0 ? alpha[i] < C : alpha[i] > 0)
			up = fmax(up, -yG);
		if (y[i] > 0 ? alpha[i] > 0 : alpha[i] < C)
			low = fmax(low, yG);
	}
	history_push(h, iteration, obj / 2, up + low);
}

/* ---- shrinking (Chang & Lin 2011, 5.1; LIBSVM's Solver::do_shrinking) ---- */

static double linear_term(const solver *s, long i)
{
	return s->ex && s->ex->lin ? s->ex->lin[i] : -1.0;
}

/* G_bar += sign C_i Q_i over every point (i reached or left its upper bound). */
static rt_status gbar_add(solver *s, long i, double sign, rt_error *err)
{
	const float *qi;
	rt_status st = q_row(s, i, 1, &qi, err);
	double C = bound(s, i);
	if (st != RT_OK)
		return st;
	if (sign > 0)
		for (long k = 0; k < s->n; k++)
			s->G_bar[k] += C * qi[k];
	else
		for (long k = 0; k < s->n; k++)
			s->G_bar[k] -= C * qi[k];
	return RT_OK;
}

/* G_bar from alpha (the start, or a resumed state), and with_G: G = the
 * linear term + Q alpha from the same rows (svm_initial_gradient's sums). */
static rt_status gbar_init(solver *s, int with_G, rt_error *err)
{
	rt_status st = RT_OK;
	const float *q;
	memset(s->G_bar, 0, (size_t)s->n * sizeof *s->G_bar);
	for (long i = 0; with_G && i < s->n; i++)
		s->G[i] = linear_term(s, i);
	for (long i = 0; st == RT_OK && i < s->n; i++) {
		if (s->alpha[i] == 0 || (!with_G && !at_upper(s, i)))
			continue;
		if ((st = q_row(s, i, 1, &q, err)) != RT_OK)
			break;
		for (long k = 0; with_G && k < s->n; k++)
			s->G[k] += s->alpha[i] * q[k];
		if (at_upper(s, i))
			for (long k = 0; k < s->n; k++)
				s->G_bar[k] += bound(s, i) * q[k];
	}
	return st;
}

/* Gout (G itself, or a copy of it) gets the shrunk points' gradient:
 * G_bar + the linear term + the free active points' share, summed by
 * whichever side needs fewer kernel entries (LIBSVM's
 * reconstruct_gradient). The active set stays as it is. */
static rt_status rebuild_gradient(solver *s, double *Gout, rt_error *err)
{
	long n = s->n, na = s->nact, nfree = 0;
	rt_status st = RT_OK;
	const float *q;
	for (long k = na; k < n; k++)
		Gout[s->act[k]] = s->G_bar[s->act[k]] + linear_term(s, s->act[k]);
	for (long k = 0; k < na; k++)
		nfree += !at_upper(s, s->act[k]) && !at_lower(s, s->act[k]);
	if ((double)nfree * n > 2.0 * na * (n - na)) {   /* the shrunk points' rows, active part */
		for (long k = na; st == RT_OK && k < n; k++) {
			long i = s->act[k];
			if ((st = q_row(s, i, 0, &q, err)) != RT_OK)
				break;
			for (long t = 0; t < na; t++) {
				long j = s->act[t];
				if (!at_upper(s, j) && !at_lower(s, j))
					Gout[i] += s->alpha[j] * q[j];
			}
		}
		return st;
	}
	for (long t = 0; st == RT_OK && t < na; t++) {   /* the free points' whole rows */
		long i = s->act[t];
		if (at_upper(s, i) || at_lower(s, i))
			continue;
		if ((st = q_row(s, i, 1, &q, err)) != RT_OK)
			break;
		for (long k = na; k < n; k++)
			Gout[s->act[k]] += s->alpha[i] * q[s->act[k]];
	}
	return st;
}

/* Every point active again, its gradient rebuilt. */
static rt_status unshrink(solver *s, rt_error *err)
{
	if (s->nact == s->n)
		return RT_OK;
	rt_status st = rebuild_gradient(s, s->G, err);
	s->nact = s->n;
	s->gen++;
	return st;
}

/* The four largest violations over the active set, by sign (LIBSVM's
 * Solver_NU::do_shrinking's Gmax1..4): m[0] -G over y = +1 below C, m[1] G
 * over y = +1 above 0, m[2] G over y = -1 above 0, m[3] -G over y = -1
 * below C. */
static void shrink_maxima(const solver *s, double m[4])
{
	m[0] = m[1] = m[2] = m[3] = -INFINITY;
	for (long k = 0; k < s->nact; k++) {
		long i = s->act[k];
		int pos = s->y[i] > 0;
		if (!at_upper(s, i))
			m[pos ? 0 : 3] = fmax(m[pos ? 0 : 3], -s->G[i]);
		if (!at_lower(s, i))
			m[pos ? 1 : 2] = fmax(m[pos ? 1 : 2], s->G[i]);
	}
}

/* Will point i stay at its bound (LIBSVM's be_shrunk)? lim: the largest
 * violation at the upper bound for y = +1, -1, at the lower for +1, -1. */
static int be_shrunk(const solver *s, long i, const double lim[4])
{
	int pos = s->y[i] > 0;
	if (at_upper(s, i))
		return -s->G[i] > lim[pos ? 0 : 1];
	if (at_lower(s, i))
		return s->G[i] > lim[pos ? 2 : 3];
	return 0;
}

/* LIBSVM's do_shrinking: the gradient of every point rebuilt once, when
 * the violation first falls below 10 eps; then the points that be_shrunk
 * leave the active set, each swapping places with the last active one. */
static rt_status do_shrinking(solver *s, rt_error *err)
{
	double m[4], lim[4], gap;
	rt_status st;
	shrink_maxima(s, m);
	if (s->ex && s->ex->nu) {   /* each sign on its own */
		lim[0] = m[0]; lim[1] = m[3]; lim[2] = m[1]; lim[3] = m[2];
		gap = fmax(m[0] + m[1], m[2] + m[3]);
	} else {   /* m(alpha) = max -yG over I_up, M's -max yG over I_low */
		double up = fmax(m[0], m[2]), low = fmax(m[1], m[3]);
		lim[0] = up; lim[1] = low; lim[2] = low; lim[3] = up;
		gap = up + low;
	}
	if (!s->unshrunk && gap <= 10 * s->p->eps) {
		s->unshrunk = 1;
		if ((st = unshrink(s, err)) != RT_OK)
			return st;
	}
	for (long k = 0; k < s->nact; k++) {
		if (!be_shrunk(s, s->act[k], lim))
			continue;
		for (s->nact--; s->nact > k; s->nact--) {
			if (!be_shrunk(s, s->act[s->nact], lim)) {
				long t = s->act[k];
				s->act[k] = s->act[s->nact];
				s->act[s->nact] = t;
				break;
			}
		}
	}
	return RT_OK;
}

/* ---- the SMO loop ---- */

/* Records the solver's state in the run's checkpoint table (written as
 * write says): while shrunk, with the whole gradient rebuilt aside (the
 * run goes on as it would without the checkpoint; a resume starts with
 * every point active). */
static rt_status record(solver *s, long it, int done, int write, rt_error *err)
{
	const double *G = s->G;
	if (s->nact < s->n) {
		rt_status st;
		memcpy(s->G_full, s->G, (size_t)s->n * sizeof *s->G);
		if ((st = rebuild_gradient(s, s->G_full, err)) != RT_OK)
			return st;
		G = s->G_full;
	}
	return svm_ckpt_record(s->p->ckpt, s->p->ckpt_model, s->pair, s->n, s->alpha, G, it, done,
			       s->hist, write, err);
}

/* The history row of the shrunk problem: the objective whole (the points
 * at C through G_bar: sum_U C_i (Q alpha)_i = alpha'G_bar; the others
 * shrunk are at 0), the violation over the active set (what SMO sees). */
static void history_shrunk(solver *s, long it)
{
	double obj = 0, m[4];
	for (long i = 0; i < s->n; i++) {
		obj += s->alpha[i] * s->G_bar[i];
		if (at_upper(s, i))
			obj += bound(s, i) * (linear_term(s, i) - 1.0);
	}
	for (long k = 0; k < s->nact; k++) {
		long i = s->act[k];
		if (!at_upper(s, i))
			obj += s->alpha[i] * (s->G[i] - 1.0);
	}
	shrink_maxima(s, m);
	history_push(s->hist, it, obj / 2, fmax(m[0], m[2]) + fmax(m[1], m[3]));
}

/* The history row after it iterations (when recorded). */
static void history_point(solver *s, long it)
{
	if (!s->hist)
		return;
	if (s->nact < s->n) {
		if (history_wants(s->hist, it))
			history_shrunk(s, it);
		return;
	}
	svm_history_add(s->hist, it, s->alpha, s->G, s->y, s->n, s->Cp, s->Cn);
}

/* After the pair update: G over the active set from the two rows, and
 * (shrinking) G_bar from the whole rows of a point that reached or left
 * its upper bound (was_i, was_j: at it before). */
static rt_status update_gradient(solver *s, long i, long j, double dai, double daj, int was_i,
				 int was_j, rt_error *err)
{
	const float *qi, *qj;
	rt_status st;
	if ((st = q_row(s, j, 0, &qj, err)) != RT_OK)
		return st;
	if ((st = q_row(s, i, 0, &qi, err)) != RT_OK)   /* j's row may have evicted i's */
		return st;
	if (!s->shrink)   /* the plain loop, which vectorizes */
		for (long k = 0; k < s->n; k++)
			s->G[k] += qi[k] * dai + qj[k] * daj;
	for (long k = 0; s->shrink && k < s->nact; k++) {
		long t = s->act[k];
		s->G[t] += qi[t] * dai + qj[t] * daj;
	}
	if (!s->shrink)
		return RT_OK;
	if (was_i != at_upper(s, i) && (st = gbar_add(s, i, was_i ? -1 : 1, err)) != RT_OK)
		return st;
	if (was_j != at_upper(s, j) && (st = gbar_add(s, j, was_j ? -1 : 1, err)) != RT_OK)
		return st;
	return RT_OK;
}

/* The working pair as LIBSVM's loop picks it: shrinking every min(n, 1000)
 * iterations (*counter); an active set that looks optimal is unshrunk and
 * the pair chosen again over every point (then shrinking comes at the next
 * iteration); *stop only when all points meet eps. */
static rt_status next_pair(solver *s, long *counter, long *i, long *j, const float **qi,
			   int *stop, rt_error *err)
{
	rt_status st;
	if (s->shrink && --*counter == 0) {
		*counter = s->n < 1000 ? s->n : 1000;
		if ((st = do_shrinking(s, err)) != RT_OK)
			return st;
	}
	if ((st = select_pair(s, i, j, qi, stop, err)) != RT_OK || !*stop || s->nact == s->n)
		return st;
	if ((st = unshrink(s, err)) != RT_OK || (st = select_pair(s, i, j, qi, stop, err)) != RT_OK)
		return st;
	if (!*stop)
		*counter = 1;
	return RT_OK;
}

/* SMO iterations until the violation is below eps (or max_iter), from
 * iteration s->it0 on; a stop requested ends them between two. */
static rt_status smo_loop(solver *s, long *iterations, rt_error *err)
{
	long max_iter = s->p->max_iter > 0 ? s->p->max_iter
			: (s->n > LONG_MAX / 100 ? LONG_MAX : (100 * s->n > 10000000 ? 100 * s->n : 10000000));
	long it = s->it0;
	int done = s->done0;
	long counter = (s->n < 1000 ? s->n : 1000) + 1;
	svm_ckpt *ck = s->p->ckpt;
	rt_status st;
	for (; !done && it < max_iter && !rt_stop_requested(); it++) {
		const float *qi;
		long i, j;
		int stop;
		if (svm_history_due(s->hist, it))
			history_point(s, it);
		if ((st = next_pair(s, &counter, &i, &j, &qi, &stop, err)) != RT_OK)
			return st;
		if (stop) {
			done = 1;
			break;
		}
		double old_i = s->alpha[i], old_j = s->alpha[j];
		int was_i = at_upper(s, i), was_j = at_upper(s, j);
		update_pair(s, i, j, qi);
		st = update_gradient(s, i, j, s->alpha[i] - old_i, s->alpha[j] - old_j, was_i, was_j,
				     err);
		if (st != RT_OK)
			return st;
		if (ck && svm_ckpt_due(ck, it + 1) && (st = record(s, it + 1, 0, 1, err)) != RT_OK)
			return st;
	}
	if (!done && it == max_iter && s->p->limit_expected != 1 && !rt_stop_requested())
		rt_warn("svm: reached the iteration limit (%ld) before the tolerance", max_iter);
	if ((st = unshrink(s, err)) != RT_OK)   /* rho, the objective and the record see every point */
		return st;
	if (done || it == max_iter)
		history_point(s, it);
	if (ck && !s->done0 && (done || it == max_iter || rt_stop_requested()) &&
	    (st = record(s, it, done, svm_ckpt_write_finished(ck), err)) != RT_OK)
		return st;
	*iterations = it;
	return RT_OK;
}

void svm_note_shrinking(const svm_params *p)
{
	if (p->gpu && p->shrinking)
		rt_info("svm: shrinking is not done on the GPU (its SMO works on every point): the "
			"results equal the CPU's within the tolerance, not bit for bit");
}

rt_status svm_check_solved(svm_binary *out, long n, rt_error *err)
{
	int ok = isfinite(out->rho) && isfinite(out->obj);
	for (long i = 0; ok && i < n; i++)
		ok = isfinite(out->alpha[i]);
	if (ok)
		return RT_OK;
	rt_status st = rt_fail(err, RT_ERR_INPUT,
			       "svm: the solver diverged after %ld iterations (rho %g, objective %g): "
			       "non-finite kernel values or coefficients; lower gamma, degree or C, or "
			       "scale the data; no model was written", out->iterations, out->rho,
			       out->obj);
	svm_binary_free(out);
	return st;
}

static rt_status solve_cpu(const svm_data *d, const long *idx, const signed char *y, long n,
			   const svm_params *p, double Cp, double Cn, const svm_extra *ex, long pair,
			   svm_binary *out, rt_error *err);

rt_status svm_solve_binary(const svm_data *d, const long *idx, const signed char *y, long n,
			   const svm_params *p, double Cp, double Cn, long pair, svm_binary *out,
			   rt_error *err)
{
	return svm_solve_general(d, idx, y, n, p, Cp, Cn, NULL, pair, out, err);
}

rt_status svm_solve_general(const svm_data *d, const long *idx, const signed char *y, long n,
			    const svm_params *p, double Cp, double Cn, const svm_extra *ex,
			    long pair, svm_binary *out, rt_error *err)
{
	rt_status st = p->gpu ? svm_check_diagonal(d, idx, n, &p->kernel, err) : RT_OK;
	if (st == RT_OK && p->gpu) {
		svm_gpu_problem one = { d, p->kernel, idx, y, n, Cp, Cn, out, { NULL, NULL },
					p->ckpt_model, pair, ex };
		st = svm_gpu_solve_many(p, &one, 1, err);
	} else if (st == RT_OK) {
		st = solve_cpu(d, idx, y, n, p, Cp, Cn, ex, pair, out, err);
	}
	return st == RT_OK ? svm_check_solved(out, n, err) : st;
}

/* Room for one Q row and the solver fields fill_body reads. */
static rt_status row_solver(solver *s, const svm_data *d, const long *idx,
			    const signed char *y, long n, const svm_kernel_params *k, rt_error *err)
{
	memset(s, 0, sizeof *s);
	s->d = d; s->idx = idx; s->y = y; s->n = n; s->kp = k;
	s->sq = rt_malloc((size_t)n * sizeof(double) + 1, err);
	s->fill_out = rt_malloc((size_t)n * sizeof(float) + 1, err);
	if (d->sparse)
		s->pivot = rt_calloc((size_t)d->nfeat + 1, sizeof *s->pivot, err);
	if (!s->sq || !s->fill_out || (d->sparse && !s->pivot))
		return RT_ERR_SYSTEM;
	for (long i = 0; i < n; i++)
		s->sq[i] = d->sparse ? d->sq[idx[i]] : svm_row_sq(d, idx[i], d->nfeat);
	return RT_OK;
}

rt_status svm_initial_gradient(const svm_data *d, const long *idx, const signed char *y, long n,
			       const svm_kernel_params *k, const svm_extra *ex, double *alpha,
			       double *G, rt_error *err)
{
	solver s;
	rt_status st;
	for (long i = 0; i < n; i++) {
		alpha[i] = ex && ex->alpha0 ? ex->alpha0[i] : 0;
		G[i] = ex && ex->lin ? ex->lin[i] : -1.0;
	}
	if (!ex || !ex->alpha0)   /* alpha 0: G is the linear term */
		return RT_OK;
	st = row_solver(&s, d, idx, y, n, k, err);
	for (long i = 0; st == RT_OK && i < n; i++) {
		if (alpha[i] == 0)
			continue;
		s.fill_row = i;
		if (d->sparse)
			svm_row_scatter(d, idx[i], s.pivot, d->nfeat);
		st = cpu_parallel_for(n, 2048, fill_body, &s, err);
		if (d->sparse)
			svm_row_unscatter(d, idx[i], s.pivot, d->nfeat);
		for (long t = 0; st == RT_OK && t < n; t++) {
			if (!isfinite(s.fill_out[t]))
				st = kernel_overflow(&s, i, t, s.fill_out[t], err);
			G[t] += alpha[i] * s.fill_out[t];
		}
	}
	free(s.sq);
	free(s.fill_out);
	free(s.pivot);
	return st;
}

static rt_status solve_cpu(const svm_data *d, const long *idx, const signed char *y, long n,
			   const svm_params *p, double Cp, double Cn, const svm_extra *ex, long pair,
			   svm_binary *out, rt_error *err)
{
	solver s;
	rt_status st;
	memset(&s, 0, sizeof s);
	memset(out, 0, sizeof *out);
	s.d = d; s.idx = idx; s.y = y; s.n = n; s.p = p; s.Cp = Cp; s.Cn = Cn; s.pair = pair;
	s.kp = &p->kernel; s.ex = ex;
	s.shrink = p->shrinking != 0;
	s.nact = n;
	s.act = rt_malloc((size_t)n * sizeof(long) + 1, err);
	if (s.shrink) {
		s.G_bar = rt_malloc((size_t)n * sizeof(double) + 1, err);
		s.G_full = rt_malloc((size_t)n * sizeof(double) + 1, err);
	}
	s.alpha = rt_calloc((size_t)n, sizeof(double), err);
	s.G = rt_malloc((size_t)n * sizeof(double), err);
	s.QD = rt_malloc((size_t)n * sizeof(double), err);
	s.sq = rt_malloc((size_t)n * sizeof(double), err);
	if (d->sparse)
		s.pivot = rt_calloc((size_t)d->nfeat + 1, sizeof *s.pivot, err);
	st = s.alpha && s.G && s.QD && s.sq && (!d->sparse || s.pivot) && s.act &&
	     (!s.shrink || (s.G_bar && s.G_full)) ? cache_init(&s.cache, n, p->cache_mb, err) : RT_ERR_SYSTEM;
	if (st == RT_OK) {
		for (long i = 0; i < n; i++)
			s.act[i] = i;
		for (long i = 0; i < n; i++)
			s.sq[i] = d->sparse ? d->sq[idx[i]] : svm_row_sq(d, idx[i], d->nfeat);
		for (long i = 0; i < n; i++) {
			s.QD[i] = d->sparse ? svm_kernel_dot(&p->kernel, s.sq[i], s.sq[i], s.sq[i])
				  : svm_kernel(&p->kernel, point(&s, i), point(&s, i), d->nfeat,
					       s.sq[i], s.sq[i]);
			if (!isfinite((float)s.QD[i])) {
				st = kernel_overflow(&s, i, i, (float)s.QD[i], err);
				break;
			}
		}
		if (st == RT_OK && s.shrink)   /* alpha0; G and G_bar after the resume */
			for (long i = 0; i < n; i++)
				s.alpha[i] = ex && ex->alpha0 ? ex->alpha0[i] : 0;
		else if (st == RT_OK)
			st = svm_initial_gradient(d, idx, y, n, &p->kernel, ex, s.alpha, s.G, err);
		if (st == RT_OK && p->history && (st = svm_history_start(&out->hist, n, p->history, err)) == RT_OK)
			s.hist = &out->hist;
		int resumed = 0;
		if (st == RT_OK && p->ckpt)   /* resumed: alpha, G, the count and history as recorded */
			resumed = svm_ckpt_find(p->ckpt, p->ckpt_model, pair, n, s.alpha, s.G, &s.it0,
						&s.done0, s.hist);
		if (st == RT_OK && s.shrink && !s.done0)
			st = gbar_init(&s, !resumed, err);
		if (st == RT_OK)
			st = smo_loop(&s, &out->iterations, err);
	}
	if (st == RT_OK) {
		long iterations = out->iterations;
		svm_binary_finish_ex(out, s.alpha, s.G, y, n, Cp, Cn, ex);
		out->iterations = iterations;
		s.alpha = NULL;
	} else {
		svm_history_free(&out->hist);
	}
	free(s.alpha);
	free(s.G);
	free(s.QD);
	free(s.sq);
	free(s.pivot);
	free(s.act);
	free(s.G_bar);
	free(s.G_full);
	cache_free(&s.cache);
	return st;
}

void svm_binary_free(svm_binary *b)
{
	free(b->alpha);
	svm_history_free(&b->hist);
	memset(b, 0, sizeof *b);
}
