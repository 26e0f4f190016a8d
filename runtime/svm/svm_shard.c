/* svm_shard.c: kind svm's independent binary problems spread over the job's
 * processes (MPI ranks, comm.h) in an `evoforge run` (svm_params.spread):
 * the one-vs-one pairs of a training (svm_train.c), and the (cell, fold)
 * models of a cross-validation or grid search (svm_cv.c). Pair g of a
 * training goes to rank g mod size (round-robin, not contiguous blocks:
 * the pairs come in order of class, so blocks would hand one rank all of
 * one large class's pairs). The models of a search are dealt by estimated
 * cost instead (svm_cost_estimate, svm_shard_plan: longest first, each to
 * the least loaded rank), since a model's cost follows its C and gamma
 * over orders of magnitude. Rank 0 gathers every solved pair (alpha, rho,
 * objective, counts, and for a run's training its history) and builds the
 * model; cross-validation's right answers are summed on every rank, so
 * every rank knows the grid's rates. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "comm.h"
#include "signals.h"
#include "svm_impl.h"

int svm_shard_active(const svm_params *p)
{
	return p->spread && rt_comm_size() > 1;
}

int svm_shard_owns(const svm_params *p, long g)
{
	return !svm_shard_active(p) || g % rt_comm_size() == rt_comm_rank();
}

/* What a pair sends besides its alpha. */
typedef struct pair_head {
	double rho, obj, nu, extra;
	long iterations, nsv, nbsv;
} pair_head;

/* A pair's history in a packet: its interval and rows, room for all. */
typedef struct pair_hist {
	long every, n;
	svm_history_row rows[SVM_HISTORY_ROWS];
} pair_hist;

static size_t pair_bytes(long n, int history)
{
	return sizeof(pair_head) + (size_t)n * sizeof(double) + (history ? sizeof(pair_hist) : 0);
}

/* The history of b into / out of a packet at p. */
static void pack_history(char *p, const svm_history *h)
{
	pair_hist ph;
	memset(&ph, 0, sizeof ph);
	ph.every = h->every;
	ph.n = h->n;
	if (h->n > 0)
		memcpy(ph.rows, h->rows, (size_t)h->n * sizeof *h->rows);
	memcpy(p, &ph, sizeof ph);
}

static rt_status unpack_history(const char *p, svm_history *h, rt_error *err)
{
	pair_hist ph;
	memcpy(&ph, p, sizeof ph);
	if (!h->rows && !(h->rows = rt_malloc(SVM_HISTORY_ROWS * sizeof *h->rows, err)))
		return RT_ERR_SYSTEM;
	h->every = ph.every;
	h->n = ph.n;
	memcpy(h->rows, ph.rows, (size_t)ph.n * sizeof *h->rows);
	return RT_OK;
}

/* This rank's solved pairs, in list order, packed into one buffer. */
static rt_status pack_mine(svm_binary *const *bin, svm_pair_stats *const *stats, const long *n,
			   long total, int history, char **buf, size_t *bytes, rt_error *err)
{
	int size = rt_comm_size(), rank = rt_comm_rank();
	size_t at = 0;
	*bytes = 0;
	for (long g = rank; g < total; g += size)
		*bytes += pair_bytes(n[g], history);
	if (!(*buf = rt_malloc(*bytes + 1, err)))
		return RT_ERR_SYSTEM;
	for (long g = rank; g < total; g += size) {
		pair_head h = { bin[g]->rho, bin[g]->obj, stats[g]->nu, stats[g]->extra, bin[g]->iterations,
				bin[g]->nsv, bin[g]->nbsv };
		memcpy(*buf + at, &h, sizeof h);
		memcpy(*buf + at + sizeof h, bin[g]->alpha, (size_t)n[g] * sizeof(double));
		if (history)
			pack_history(*buf + at + pair_bytes(n[g], 0), &bin[g]->hist);
		at += pair_bytes(n[g], history);
	}
	return RT_OK;
}

/* Rank 0: every rank's pairs from the gathered buffer into bin and stats. */
static rt_status unpack_all(const char *all, svm_binary *const *bin, svm_pair_stats *const *stats,
			    const long *n, long total, int history, rt_error *err)
{
	int size = rt_comm_size();
	size_t at = 0;
	for (int r = 0; r < size; r++)
		for (long g = r; g < total; g += size) {
			pair_head h;
			memcpy(&h, all + at, sizeof h);
			if (!bin[g]->alpha &&
			    !(bin[g]->alpha = rt_malloc((size_t)n[g] * sizeof(double) + 1, err)))
				return RT_ERR_SYSTEM;
			memcpy(bin[g]->alpha, all + at + sizeof h, (size_t)n[g] * sizeof(double));
			bin[g]->rho = h.rho;
			bin[g]->obj = h.obj;
			bin[g]->iterations = h.iterations;
			bin[g]->nsv = h.nsv;
			bin[g]->nbsv = h.nbsv;
			*stats[g] = (svm_pair_stats){ h.iterations, h.nsv, h.nbsv, h.nu, h.extra };
			if (history &&
			    unpack_history(all + at + pair_bytes(n[g], 0), &bin[g]->hist, err) != RT_OK)
				return RT_ERR_SYSTEM;
			at += pair_bytes(n[g], history);
		}
	return RT_OK;
}

/* A signal that stopped any rank's solvers stops every rank's run (its
 * results then marked "interrupted", exit 3), so that rank 0 does not
 * write unfinished pairs as a finished model. */
static rt_status agree_stop(rt_error *err)
{
	int signo = rt_stop_requested();
	return rt_stop_agree(&signo, err);
}

rt_status svm_shard_gather_pairs(svm_binary *const *bin, svm_pair_stats *const *stats,
				 const long *n, long total, int history, rt_error *err)
{
	int size = rt_comm_size(), root = rt_comm_rank() == 0;
	char *mine = NULL, *all = NULL;
	size_t bytes, *counts = NULL, sum = 0;
	rt_status st = agree_stop(err);
	if (st == RT_OK)
		st = pack_mine(bin, stats, n, total, history, &mine, &bytes, err);
	if (st == RT_OK && root) {
		counts = rt_calloc((size_t)size, sizeof *counts, err);
		for (long g = 0; counts && g < total; g++)
			counts[g % size] += pair_bytes(n[g], history);
		for (int r = 0; counts && r < size; r++)
			sum += counts[r];
		all = counts ? rt_malloc(sum + 1, err) : NULL;
		st = all ? RT_OK : RT_ERR_SYSTEM;
	}
	if (st == RT_OK)
		st = rt_comm_gatherv(mine, bytes, all, counts, err);
	if (st == RT_OK && root)
		st = unpack_all(all, bin, stats, n, total, history, err);
	free(mine);
	free(all);
	free(counts);
	return st;
}

rt_status svm_shard_sum_counts(long *v, long count, rt_error *err)
{
	rt_status st0 = agree_stop(err);
	if (st0 != RT_OK)
		return st0;
	for (long i = 0; i < count; i++) {
		long long s = v[i];
		rt_status st = rt_comm_sum_ll(&s, err);
		if (st != RT_OK)
			return st;
		v[i] = (long)s;
	}
	return RT_OK;
}

/* ---- dealing jobs of unequal cost (the models of a search) -------------------- */

/* The estimate: log2 of a C-SVC training's SMO iterations over those of the
 * cheapest model of the same data, as a function of u = log2 C and
 * v = log2 gamma (RBF), is about
 *     e(u, v) = min(SVM_COST_SLOPE max(0, u + v - SVM_COST_ONSET),
 *                   SVM_COST_CAP + SVM_COST_CAP_SLOPE max(0, -v)):
 * flat while C gamma is small (most alphas at the bound C: few iterations),
 * then growing with C along the diagonals of C gamma, up to a ceiling that
 * rises as the kernel gets smoother (small gamma: ill-conditioned, slow) --
 * with a large gamma the problem is separable in feature space and a larger
 * C changes nothing. Fitted (least squares on a lattice of the four
 * constants, each data set weighted alike and given its own offset, as
 * only the costs within one search matter; 2026-11-26) to the mean
 * iterations per cell of 5-fold grids run on the CPU (svm_cv.c's
 * EVOFORGE_SVM_CV_TRACE lines), 186 cells in all:
 *   sonar (208 points, 60 features, 2 classes): log2 C -5..15 step 2,
 *     log2 gamma 3..-15 step -2; 78 .. 11,183 iterations a model;
 *   letter's first 3,000 points (16 features scaled to [-1, 1], 26 classes,
 *     325 pairs): log2 C -5..15 step 5, log2 gamma 3..-15 step -3;
 *     24,370 .. 481,649;
 *   satellite's first 2,000 points (36 features scaled, 6 classes): the
 *     same grid; 747 .. 139,081;
 *   satellite (6,435 points): log2 C 11, 13, 15, log2 gamma -6, -15;
 *     3,176 .. 705,000.
 * Residuals (log2): rms 0.56, 0.65, 0.59, 0.45, at most 2.1 (a factor 4):
 * the ceiling varies most from data to data (higher for more points), and
 * satellite's small-C, small-gamma corner runs a few times the cheapest
 * model's iterations, which e calls flat. Scaling gamma by the data's mean
 * squared distance fitted worse. The other kernels were not measured: they
 * take v = log2 gamma too (linear: gamma 1). A model costs 1 + 2^e: setup
 * and prediction taken as about one cheapest training, which is right for
 * the GPU, where iterations dominate; on the CPU a model's setup, kernel
 * rows and prediction weigh more (satellite: 0.4 s a model against 5.5 s
 * for 700,000 iterations), so the CPU's real costs are flatter. The folds
 * and cells of one search have the same points and classes, so n and the
 * class count do not enter. */
#define SVM_COST_SLOPE 0.55
#define SVM_COST_ONSET (-3.0)
#define SVM_COST_CAP 2.0
#define SVM_COST_CAP_SLOPE 0.7

double svm_cost_estimate(const svm_params *p)
{
	double gamma = p->kernel.type == SVM_LINEAR ? 1 : p->kernel.gamma;
	double u = p->C > 0 ? log2(p->C) : -60, v = gamma > 0 ? log2(gamma) : -60;
	u = u < -60 ? -60 : u > 60 ? 60 : u;   /* NAN or <= 0 took -60 above */
	v = v < -60 ? -60 : v > 60 ? 60 : v;
	double rise = SVM_COST_SLOPE * fmax(0, u + v - SVM_COST_ONSET);
	double cap = SVM_COST_CAP + SVM_COST_CAP_SLOPE * fmax(0, -v);
	return 1 + exp2(fmin(rise, cap));
}

/* A job in the order LPT takes them: costliest first, ties by number. */
typedef struct plan_job {
	double cost;
	long job;
} plan_job;

static int by_cost(const void *a, const void *b)
{
	const plan_job *x = a, *y = b;
	if (x->cost != y->cost)
		return x->cost > y->cost ? -1 : 1;
	return x->job < y->job ? -1 : x->job > y->job;
}

/* A cost that is not a positive number counts 0. */
static double cost_or_0(double c) { return c > 0 && c < HUGE_VAL ? c : 0; }

rt_status svm_cost_sort(const double *cost, long *jobs, long count, rt_error *err)
{
	plan_job *order = rt_malloc((size_t)count * sizeof *order + 1, err);
	if (!order)
		return RT_ERR_SYSTEM;
	for (long k = 0; k < count; k++)
		order[k] = (plan_job){ cost_or_0(cost[jobs[k]]), jobs[k] };
	qsort(order, (size_t)count, sizeof *order, by_cost);
	for (long k = 0; k < count; k++)
		jobs[k] = order[k].job;
	free(order);
	return RT_OK;
}

/* The ranks as a min-heap on (load, rank): heap[0] the least loaded. */
static int lighter(const double *load, int a, int b)
{
	return load[a] < load[b] || (load[a] == load[b] && a < b);
}

static void sift_down(int *heap, int size, const double *load, int at)
{
	for (;;) {
		int l = 2 * at + 1, r = l + 1, least = at;
		if (l < size && lighter(load, heap[l], heap[least]))
			least = l;
		if (r < size && lighter(load, heap[r], heap[least]))
			least = r;
		if (least == at)
			return;
		int t = heap[at];
		heap[at] = heap[least];
		heap[least] = t;
		at = least;
	}
}

rt_status svm_shard_plan(const double *cost, long count, int size, int *owner, double *load,
			 rt_error *err)
{
	if (size < 1 || count < 0)
		return rt_fail(err, RT_ERR_INTERNAL, "svm_shard_plan: expected 1 or more ranks and 0 "
			       "or more jobs, got %d and %ld", size, count);
	long *order = rt_malloc((size_t)count * sizeof *order + 1, err);
	int *heap = rt_malloc((size_t)size * sizeof *heap, err);
	double *sum = rt_calloc((size_t)size, sizeof *sum, err);
	rt_status st = order && heap && sum ? RT_OK : RT_ERR_SYSTEM;
	for (long j = 0; st == RT_OK && j < count; j++)
		order[j] = j;
	if (st == RT_OK)
		st = svm_cost_sort(cost, order, count, err);
	for (int r = 0; st == RT_OK && r < size; r++)   /* all 0: rank order is a heap */
		heap[r] = r;
	for (long k = 0; st == RT_OK && k < count; k++) {
		owner[order[k]] = heap[0];
		sum[heap[0]] += cost_or_0(cost[order[k]]);
		sift_down(heap, size, sum, 0);
	}
	if (st == RT_OK && load)
		memcpy(load, sum, (size_t)size * sizeof *load);
	free(order);
	free(heap);
	free(sum);
	return st;
}
