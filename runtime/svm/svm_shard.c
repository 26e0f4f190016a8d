/* svm_shard.c: kind svm's independent binary problems spread over the job's
 * processes (MPI ranks, comm.h) in an `evoforge run` (svm_params.spread):
 * the one-vs-one pairs of a training (svm_train.c), and the (cell, fold)
 * models of a cross-validation or grid search (svm_cv.c). Problem g of a
 * list goes to rank g mod size (round-robin, not contiguous blocks: the
 * cost of a problem follows its C and gamma, and the grid's cells and a
 * model's pairs come in order of C and of class, so blocks would hand one
 * rank all the costly ones). Rank 0 gathers every solved pair (alpha, rho,
 * objective, counts, and for a run's training its history) and builds the model; cross-validation's right
 * answers are summed on every rank, so every rank knows the grid's rates. */
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
	double rho, obj, nu;
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
		pair_head h = { bin[g]->rho, bin[g]->obj, stats[g]->nu, bin[g]->iterations,
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
			*stats[g] = (svm_pair_stats){ h.iterations, h.nsv, h.nbsv, h.nu };
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
