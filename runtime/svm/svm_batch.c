/* svm_batch.c: the batched working-set solver of one binary problem on the
 * CPU (svm_batch.h; the spec is shared with the GPU solver, svm_gpu_batch.c):
 * each outer iteration checks the global violation, keeps the newer half of
 * the last working set with its kernel rows, picks q/2 new points by
 * first-order violation, computes their Q rows (svm_solver.c's rows: the
 * same float bits), runs a local SMO on the q x q block, then updates the
 * gradient of every point from the set's rows and alpha changes over the
 * thread pool. The selection, the violation and the local SMO are the host
 * functions both backends use, so both give the same alpha bit for bit.
 *
 * The selection: each list's best SVM_BATCH_HEAD(q) candidates by a
 * quickselect threshold on the keys and a merge sort of those, then
 * svm_batch_take (the GPU picks the heads on the device and takes alike).
 *
 * Checkpoints are written at outer-iteration boundaries (alpha, G, the
 * total local steps and the last working set), so a resumed run keeps the
 * same set's newer half and goes on bit for bit as an uninterrupted one. */
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cpu.h"
#include "log.h"
#include "signals.h"
#include "svm_batch.h"
#include "svm_ckpt.h"

/* Points per chunk of the gradient update's accumulators. */
#define SVM_BATCH_GRAD_CHUNK 256

long svm_batch_size(long n, long asked, double row_budget_bytes)
{
	long q = 4;
	if (n < 4)
		return 0;
	if (asked > 0) {
		q = (asked < n ? asked : n) & ~1L;
		return q >= 4 ? q : 0;
	}
	while (q * 2 <= n && q * 2 <= SVM_BATCH_MAX_Q)
		q *= 2;
	while (q > 4 && (double)q * (double)n * sizeof(float) > row_budget_bytes)
		q /= 2;
	return q;
}

int svm_batch_wanted(const svm_params *p, long n, const svm_extra *ex)
{
	if ((ex && ex->nu) || n < 4)
		return 0;
	if (p->solver == SVM_SOLVER_AUTO)   /* measured: docs/svm.md, "The batched solver" */
		return p->gpu && n >= SVM_BATCH_AUTO_MIN;
	return p->solver == SVM_SOLVER_BATCH;
}

/* I_up / I_low membership of a point of sign y, alpha a and bound C
 * (select_i's and select_j's sets). */
static int in_up(double a, int y, double C)
{
	return y > 0 ? a < C : a > 0;
}

static int in_low(double a, int y, double C)
{
	return y > 0 ? a > 0 : a < C;
}

double svm_batch_violation(const double *alpha, const double *G, const signed char *y, long n,
			   double Cp, double Cn)
{
	double up = -INFINITY, low = -INFINITY;
	for (long i = 0; i < n; i++) {
		double C = y[i] > 0 ? Cp : Cn;
		if (in_up(alpha[i], y[i], C))
			up = fmax(up, y[i] > 0 ? -G[i] : G[i]);
		if (in_low(alpha[i], y[i], C))
			low = fmax(low, y[i] > 0 ? G[i] : -G[i]);
	}
	return up + low;
}

typedef svm_batch_cand batch_cand;

/* Is candidate a ahead of b in that order? */
static int cand_ahead(const batch_cand *a, const batch_cand *b)
{
	return a->key > b->key || (a->key == b->key && a->i < b->i);
}

/* The m-th largest of v[0..count) (1 <= m <= count; v reordered):
 * quickselect with a median-of-three pivot. */
static double kth_largest(double *v, long count, long m)
{
	long lo = 0, hi = count - 1, k = m - 1;
	while (lo < hi) {
		double a = v[lo], b = v[lo + (hi - lo) / 2], c = v[hi];
		double pivot = a > b ? (b > c ? b : (a > c ? c : a)) : (a > c ? a : (b > c ? c : b));
		long i = lo, j = hi;
		while (i <= j) {   /* descending: larger first */
			while (v[i] > pivot)
				i++;
			while (v[j] < pivot)
				j--;
			if (i <= j) {
				double t = v[i];
				v[i++] = v[j];
				v[j--] = t;
			}
		}
		if (k <= j)
			hi = j;
		else if (k >= i)
			lo = i;
		else
			return v[k];
	}
	return v[k];
}

/* Sorts c[0..count) in the candidates' order (bottom-up merge sort through tmp). */
static void cand_sort(batch_cand *c, batch_cand *tmp, long count)
{
	for (long w = 1; w < count; w *= 2) {
		for (long lo = 0; lo < count; lo += 2 * w) {
			long mid = lo + w < count ? lo + w : count, hi = lo + 2 * w < count ? lo + 2 * w : count;
			long i = lo, j = mid, o = lo;
			while (i < mid && j < hi)
				tmp[o++] = cand_ahead(&c[j], &c[i]) ? c[j++] : c[i++];
			while (i < mid)
				tmp[o++] = c[i++];
			while (j < hi)
				tmp[o++] = c[j++];
		}
		memcpy(c, tmp, (size_t)count * sizeof *c);
	}
}

/* The best min(m, count) of the candidates (keys key[0..count), points
 * pt[...], in ascending point order) into out, sorted; scratch: [count]
 * doubles. Returns how many. Ties at the threshold go to the smaller points,
 * as the order says. */
static long best_of(const double *key, const long *pt, long count, long m, double *scratch,
		    batch_cand *out, batch_cand *tmp)
{
	long got = 0;
	if (count <= m) {
		for (long t = 0; t < count; t++)
			out[got++] = (batch_cand){ key[t], pt[t] };
	} else {
		memcpy(scratch, key, (size_t)count * sizeof *key);
		double thr = kth_largest(scratch, count, m);
		for (long t = 0; t < count; t++)
			if (key[t] > thr)
				out[got++] = (batch_cand){ key[t], pt[t] };
		for (long t = 0; t < count && got < m; t++)
			if (key[t] == thr)
				out[got++] = (batch_cand){ key[t], pt[t] };
	}
	cand_sort(out, tmp, got);
	return got;
}

/* Takes the next unmarked candidate of list[*at..count) into ws[*c]; 1 if one was. */
static int take_next(const batch_cand *list, long count, long *at, long *ws, long *c,
		     unsigned char *mark)
{
	while (*at < count && mark[list[*at].i])
		(*at)++;
	if (*at == count)
		return 0;
	ws[(*c)++] = list[*at].i;
	mark[list[*at].i] = 1;
	return 1;
}

/* The selection's scratch: each list's keys and points, in point order. */
typedef struct select_lists {
	double *ku, *kl, *scratch;
	long *pu, *pl, nu, nl;
	batch_cand *up, *low, *tmp;
} select_lists;

static void lists_fill(select_lists *L, const double *alpha, const double *G,
		       const signed char *y, long n, double Cp, double Cn)
{
	L->nu = L->nl = 0;
	for (long i = 0; i < n; i++) {
		double C = y[i] > 0 ? Cp : Cn, v = y[i] > 0 ? -G[i] : G[i];
		if (in_up(alpha[i], y[i], C)) {
			L->ku[L->nu] = v;
			L->pu[L->nu++] = i;
		}
		if (in_low(alpha[i], y[i], C)) {
			L->kl[L->nl] = -v;
			L->pl[L->nl++] = i;
		}
	}
}

void svm_batch_take(const svm_batch_cand *up, long nu, const svm_batch_cand *low, long nl,
		    long *ws, long keep, long q, long n, unsigned char *mark)
{
	long pu = 0, pl = 0, c = keep;
	for (long k = 0; k < keep; k++)
		mark[ws[k]] = 1;
	while (c < q) {
		int took = take_next(up, nu, &pu, ws, &c, mark);
		if (c < q)
			took |= take_next(low, nl, &pl, ws, &c, mark);
		if (!took)
			break;
	}
	for (long i = 0; c < q && i < n; i++)   /* too few candidates: the smallest free */
		if (!mark[i]) {
			ws[c++] = i;
			mark[i] = 1;
		}
	for (long k = 0; k < c; k++)
		mark[ws[k]] = 0;
}

rt_status svm_batch_select(const double *alpha, const double *G, const signed char *y, long n,
			   double Cp, double Cn, long *ws, long keep, long q, unsigned char *mark,
			   rt_error *err)
{
	long m = SVM_BATCH_HEAD(q), nu, nl;
	select_lists L;
	void *block = rt_malloc((size_t)n * (3 * sizeof(double) + 2 * sizeof(long)) +
				3 * (size_t)m * sizeof(batch_cand) + 16, err);
	if (!block)
		return RT_ERR_SYSTEM;
	L.up = block;
	L.low = L.up + m;
	L.tmp = L.low + m;
	L.ku = (double *)(L.tmp + m);
	L.kl = L.ku + n;
	L.scratch = L.kl + n;
	L.pu = (long *)(L.scratch + n);
	L.pl = L.pu + n;
	lists_fill(&L, alpha, G, y, n, Cp, Cn);
	nu = best_of(L.ku, L.pu, L.nu, m, L.scratch, L.up, L.tmp);
	nl = best_of(L.kl, L.pl, L.nl, m, L.scratch, L.low, L.tmp);
	svm_batch_take(L.up, nu, L.low, nl, ws, keep, q, n, mark);
	free(block);
	return RT_OK;
}

/* ---- the local SMO -------------------------------------------------------- */

/* i: the largest -y g over I_up (ties: the larger k); *gmax its value. */
static long local_i(const double *a, const double *g, const signed char *yw, const double *Cw,
		    long q, double *gmax)
{
	long best = -1;
	*gmax = -INFINITY;
	for (long k = 0; k < q; k++) {
		if (yw[k] > 0 ? !(a[k] >= Cw[k]) : !(a[k] <= 0)) {
			double v = yw[k] > 0 ? -g[k] : g[k];
			if (v >= *gmax) {
				*gmax = v;
				best = k;
			}
		}
	}
	return best;
}

/* j for i (select_j's rules over the set); *gmax2: max over I_low of y g. */
static long local_j(const double *a, const double *g, const signed char *yw, const double *Cw,
		    const double *QDw, const float *qi, long q, long i, double gmax, int wss,
		    double *gmax2)
{
	long best = -1;
	double best_obj = INFINITY;
	*gmax2 = -INFINITY;
	for (long k = 0; k < q; k++) {
		int up = yw[k] > 0;
		double v = up ? g[k] : -g[k];
		if (up ? a[k] <= 0 : a[k] >= Cw[k])
			continue;
		if (wss == SVM_WSS_FIRST) {
			if (v >= *gmax2) {
				*gmax2 = v;
				best = k;
			}
			continue;
		}
		if (v >= *gmax2)
			*gmax2 = v;
		double grad_diff = gmax + v;
		if (grad_diff > 0) {
			double obj = -svm_wss2_gain(grad_diff, QDw[i], QDw[k], yw[i], yw[k], qi[k]);
			if (obj <= best_obj) {
				best_obj = obj;
				best = k;
			}
		}
	}
	return best;
}

long svm_batch_local(double *a, double *g, const signed char *yw, const double *Cw,
		     const double *QDw, const float *Qw, long q, double eps, int wss, double *diff0)
{
	long steps = 0, max_steps = SVM_BATCH_LOCAL_MAX * q;
	*diff0 = 0;
	for (;;) {
		double gmax, gmax2;
		long i = local_i(a, g, yw, Cw, q, &gmax);
		if (i < 0)
			break;
		const float *qi = Qw + (size_t)i * q;
		long j = local_j(a, g, yw, Cw, QDw, qi, q, i, gmax, wss, &gmax2);
		double diff = gmax + gmax2;
		if (steps == 0)
			*diff0 = diff;
		if (j < 0 || diff < fmax(eps, 0.1 * *diff0) || steps >= max_steps)
			break;
		const float *qj = Qw + (size_t)j * q;
		double old_i = a[i], old_j = a[j];
		svm_update_pair(&a[i], &a[j], yw[i], yw[j], Cw[i], Cw[j], g[i], g[j], QDw[i], QDw[j],
				qi[j]);
		double dai = a[i] - old_i, daj = a[j] - old_j;
		for (long k = 0; k < q; k++)
			g[k] += qi[k] * dai + qj[k] * daj;
		steps++;
	}
	return steps;
}

/* ---- the CPU solver ------------------------------------------------------- */

typedef struct batch {
	const svm_data *d;
	const long *idx;
	const signed char *y;
	long n, q;
	const svm_params *p;
	const svm_extra *ex;
	double Cp, Cn;
	long pair;                 /* the problem's name in checkpoints */
	long it0;                  /* local steps done before (resumed), else 0 */
	int done0;                 /* resumed finished */
	double *alpha, *G, *QD, *sq, *pivot;   /* [n] each (pivot: sparse, [nfeat]) */
	unsigned char *mark;       /* [n] zeros (svm_batch_select's scratch) */
	long *ws;                  /* [q] the working set */
	float *rowbuf;             /* [q][n] */
	float **row;               /* [q] ws[k]'s row in rowbuf */
	double *a, *g, *Cw, *QDw, *dw;   /* [q] the local problem, dw its alpha changes */
	signed char *yw;           /* [q] */
	float *Qw;                 /* [q][q] */
	long *nz;                  /* [q] the k with dw[k] != 0, ascending */
	long nnz;
	svm_history *hist;
	int have_ws;               /* ws holds a set (formed, or from a checkpoint) */
	int resume_ws;             /* the first set keeps the checkpoint's set's newer half */
} batch;

/* The diagonal K(x_i, x_i) as the SMO solver keeps it (double). */
static double batch_diagonal(const batch *b, long i)
{
	const svm_data *d = b->d;
	if (d->sparse)
		return svm_kernel_dot(&b->p->kernel, b->sq[i], b->sq[i], b->sq[i]);
	const float *x = d->x + (size_t)b->idx[i] * d->nfeat;
	return svm_kernel(&b->p->kernel, x, x, d->nfeat, b->sq[i], b->sq[i]);
}

/* Room for the solver's arrays; sq and QD filled. */
static rt_status batch_alloc(batch *b, rt_error *err)
{
	long n = b->n, q = b->q;
	b->alpha = rt_calloc((size_t)n + 1, sizeof *b->alpha, err);
	b->G = rt_malloc((size_t)n * sizeof *b->G + 1, err);
	b->QD = rt_malloc((size_t)n * sizeof *b->QD + 1, err);
	b->sq = rt_malloc((size_t)n * sizeof *b->sq + 1, err);
	b->mark = rt_calloc((size_t)n + 1, 1, err);
	b->ws = rt_malloc((size_t)q * sizeof *b->ws, err);
	b->rowbuf = rt_malloc((size_t)q * n * sizeof *b->rowbuf, err);
	b->row = rt_malloc((size_t)q * sizeof *b->row, err);
	b->a = rt_malloc((size_t)q * 5 * sizeof *b->a, err);
	b->yw = rt_malloc((size_t)q, err);
	b->Qw = rt_malloc((size_t)q * q * sizeof *b->Qw, err);
	b->nz = rt_malloc((size_t)q * sizeof *b->nz, err);
	if (b->d->sparse)
		b->pivot = rt_calloc((size_t)b->d->nfeat + 1, sizeof *b->pivot, err);
	if (!b->alpha || !b->G || !b->QD || !b->sq || !b->mark || !b->ws || !b->rowbuf || !b->row ||
	    !b->a || !b->yw || !b->Qw || !b->nz || (b->d->sparse && !b->pivot))
		return RT_ERR_SYSTEM;
	b->g = b->a + q;
	b->Cw = b->a + 2 * q;
	b->QDw = b->a + 3 * q;
	b->dw = b->a + 4 * q;
	for (long k = 0; k < q; k++)
		b->row[k] = b->rowbuf + (size_t)k * n;
	for (long i = 0; i < n; i++)
		b->sq[i] = b->d->sparse ? b->d->sq[b->idx[i]] : svm_row_sq(b->d, b->idx[i], b->d->nfeat);
	for (long i = 0; i < n; i++)
		b->QD[i] = batch_diagonal(b, i);
	return RT_OK;
}

static void batch_free(batch *b)
{
	free(b->alpha);
	free(b->G);
	free(b->QD);
	free(b->sq);
	free(b->mark);
	free(b->ws);
	free(b->rowbuf);
	free(b->row);
	free(b->a);
	free(b->yw);
	free(b->Qw);
	free(b->nz);
	free(b->pivot);
}

/* Outer iteration t's working set: the newer half of the last one kept
 * (with its rows; t == 0: none, unless resumed with the checkpoint's set,
 * whose kept rows are then computed again), the rest selected and their
 * rows computed. */
static rt_status batch_next_set(batch *b, long t, rt_error *err)
{
	long q = b->q, keep = t == 0 && !b->resume_ws ? 0 : q / 2, first = t == 0 ? 0 : keep;
	rt_status st;
	for (long k = 0; k < keep; k++) {   /* ws[keep..q) -> ws[0..keep), rows swapped */
		long w = b->ws[k];
		float *r = b->row[k];
		b->ws[k] = b->ws[k + keep];
		b->row[k] = b->row[k + keep];
		b->ws[k + keep] = w;
		b->row[k + keep] = r;
	}
	st = svm_batch_select(b->alpha, b->G, b->y, b->n, b->Cp, b->Cn, b->ws, keep, q, b->mark,
			      err);
	b->have_ws = 1;
	for (long k = first; st == RT_OK && k < q; k++)
		st = svm_q_row_fill(b->d, b->idx, b->y, b->n, &b->p->kernel, b->sq, b->pivot,
				    b->ws[k], b->row[k], err);
	return st;
}

/* The local SMO on the set; alpha of the set updated, dw and nz its changes. */
static long batch_local_solve(batch *b)
{
	long q = b->q;
	double diff0;
	for (long k = 0; k < q; k++) {
		long w = b->ws[k];
		b->a[k] = b->alpha[w];
		b->g[k] = b->G[w];
		b->yw[k] = b->y[w];
		b->Cw[k] = b->y[w] > 0 ? b->Cp : b->Cn;
		b->QDw[k] = b->QD[w];
		for (long l = 0; l < q; l++)
			b->Qw[(size_t)k * q + l] = b->row[k][b->ws[l]];
	}
	long steps = svm_batch_local(b->a, b->g, b->yw, b->Cw, b->QDw, b->Qw, q, b->p->eps,
				     b->p->wss, &diff0);
	b->nnz = 0;
	for (long k = 0; k < q; k++) {
		long w = b->ws[k];
		b->dw[k] = b->a[k] - b->alpha[w];
		b->alpha[w] = b->a[k];
		if (b->dw[k] != 0)
			b->nz[b->nnz++] = k;
	}
	return steps;
}

/* G[t] += sum over the set (k in order) of dw[k] * row_k[t], for t in
 * [begin, end), in chunks so that the rows are read in order. */
static void grad_body(void *ctx, long begin, long end, int thread)
{
	batch *b = ctx;
	double acc[SVM_BATCH_GRAD_CHUNK];
	(void)thread;
	for (long t0 = begin; t0 < end; t0 += SVM_BATCH_GRAD_CHUNK) {
		long m = end - t0 < SVM_BATCH_GRAD_CHUNK ? end - t0 : SVM_BATCH_GRAD_CHUNK;
		for (long t = 0; t < m; t++)
			acc[t] = 0.0;
		for (long c = 0; c < b->nnz; c++) {
			double dk = b->dw[b->nz[c]];
			const float *r = b->row[b->nz[c]] + t0;
			for (long t = 0; t < m; t++)
				acc[t] += dk * (double)r[t];
		}
		for (long t = 0; t < m; t++)
			b->G[t0 + t] += acc[t];
	}
}

/* Records the state in the run's checkpoint table (written as write says). */
static rt_status batch_record(batch *b, long it, int done, int write, rt_error *err)
{
	return svm_ckpt_record_ws(b->p->ckpt, b->p->ckpt_model, b->pair, b->n, b->alpha, b->G, it,
				  done, b->hist, b->ws, b->have_ws ? b->q : 0, write, err);
}

int svm_batch_ckpt_due(svm_ckpt *ck, long prev, long it)
{
	if (rt_stop_requested())
		return 1;
	if (ck->plan.every > 0)
		return it / ck->plan.every > prev / ck->plan.every;
	return svm_ckpt_due(ck, it);
}

/* A history row at an outer boundary when a multiple of its interval was
 * passed since the last row (first: the start of a run not resumed). The
 * rows fall at boundaries, not at multiples, so once SVM_HISTORY_ROWS are
 * there svm_history_add's thinning keeps few of the older ones. */
static void batch_history(batch *b, long prev, long it, int first)
{
	if (b->hist && b->hist->every > 0 && (first || it / b->hist->every > prev / b->hist->every))
		svm_history_add(b->hist, it, b->alpha, b->G, b->y, b->n, b->Cp, b->Cn);
}

long svm_batch_max_iter(const svm_params *p, long n)
{
	if (p->max_iter > 0)
		return p->max_iter;
	return n > LONG_MAX / 100 ? LONG_MAX : (100 * n > 10000000 ? 100 * n : 10000000);
}

/* The end of the loop: the limit's warning, the last history row and the
 * final checkpoint record (smo_loop's). */
static rt_status batch_end(batch *b, long it, long max_iter, int done, rt_error *err)
{
	svm_ckpt *ck = b->p->ckpt;
	if (!done && it >= max_iter && b->p->limit_expected != 1 && !rt_stop_requested())
		rt_warn("svm: reached the iteration limit (%ld) before the tolerance", max_iter);
	if (b->hist && (done || it >= max_iter))
		svm_history_add(b->hist, it, b->alpha, b->G, b->y, b->n, b->Cp, b->Cn);
	if (ck && !b->done0 && (done || it >= max_iter || rt_stop_requested()))
		return batch_record(b, it, done, svm_ckpt_write_finished(ck), err);
	return RT_OK;
}

/* Outer iterations until the violation is below eps or the local steps
 * reach max_iter; a stop requested ends them between two. */
static rt_status batch_loop(batch *b, long *iterations, rt_error *err)
{
	long max_iter = svm_batch_max_iter(b->p, b->n), it = b->it0, prev = it;
	int done = b->done0;
	svm_ckpt *ck = b->p->ckpt;
	rt_status st = RT_OK;
	for (long t = 0; !done && it < max_iter && !rt_stop_requested(); t++) {
		batch_history(b, prev, it, t == 0 && it == 0);
		if (svm_batch_violation(b->alpha, b->G, b->y, b->n, b->Cp, b->Cn) < b->p->eps) {
			done = 1;
			break;
		}
		if ((st = batch_next_set(b, t, err)) != RT_OK)
			return st;
		long steps = batch_local_solve(b);
		if (steps == 0) {   /* no step possible on the best violators: a stall */
			done = 1;
			break;
		}
		if ((st = cpu_parallel_for(b->n, 4096, grad_body, b, err)) != RT_OK)
			return st;
		prev = it;
		it += steps;
		if (ck && svm_batch_ckpt_due(ck, prev, it) && (st = batch_record(b, it, 0, 1, err)) != RT_OK)
			return st;
	}
	*iterations = it;
	return batch_end(b, it, max_iter, done, err);
}

/* alpha and G at the start (or as a checkpoint recorded them), the history
 * begun; then the loop. */
static rt_status batch_run(batch *b, svm_binary *out, rt_error *err)
{
	const svm_params *p = b->p;
	rt_status st = svm_initial_gradient(b->d, b->idx, b->y, b->n, &p->kernel, b->ex, b->alpha,
					    b->G, err);
	if (st == RT_OK && p->history &&
	    (st = svm_history_start(&out->hist, b->n, p->history, err)) == RT_OK)
		b->hist = &out->hist;
	if (st == RT_OK && p->ckpt &&
	    svm_ckpt_find(p->ckpt, p->ckpt_model, b->pair, b->n, b->alpha, b->G, &b->it0, &b->done0,
			  b->hist))
		b->have_ws = b->resume_ws = svm_ckpt_find_ws(p->ckpt, p->ckpt_model, b->pair, b->ws, b->q);
	return st == RT_OK ? batch_loop(b, &out->iterations, err) : st;
}

rt_status svm_batch_solve(const svm_data *d, const long *idx, const signed char *y, long n,
			  const svm_params *p, double Cp, double Cn, const svm_extra *ex, long pair,
			  svm_binary *out, rt_error *err)
{
	batch b = { .d = d, .idx = idx, .y = y, .n = n, .p = p, .ex = ex, .Cp = Cp, .Cn = Cn,
		    .pair = pair };
	rt_status st;
	if (ex && ex->nu)
		return rt_fail(err, RT_ERR_INPUT, "svm: solver = batch does not take the nu forms "
			       "(-s 1, -s 4); use solver = smo");
	b.q = svm_batch_size(n, p->batch_size, p->cache_mb * 1048576.0);
	if (b.q == 0)   /* fewer than 4 points: SMO */
		return svm_solve_general(d, idx, y, n, p, Cp, Cn, ex, pair, out, err);
	memset(out, 0, sizeof *out);
	st = svm_check_diagonal(d, idx, n, &p->kernel, err);
	if (st == RT_OK)
		st = batch_alloc(&b, err);
	if (st == RT_OK)
		st = batch_run(&b, out, err);
	if (st == RT_OK) {
		long iterations = out->iterations;
		svm_binary_finish_ex(out, b.alpha, b.G, y, n, Cp, Cn, ex);
		out->iterations = iterations;
		b.alpha = NULL;
	} else {
		svm_history_free(&out->hist);
	}
	batch_free(&b);
	return st == RT_OK ? svm_check_solved(out, n, err) : st;
}
