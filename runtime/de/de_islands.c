/* de_islands.c: kind de's side of the island model (islands.h). With
 * [islands] every rank runs all of the job's problems with random streams
 * of its own (the problems themselves, shifts and rotations, are the
 * job's); at a migration each problem's emigrants (vectors with their
 * fitness) go to the same problem on other islands and take the places the
 * model picks among its active individuals. A problem that has reached its
 * target takes in nobody. At the end rank 0 takes, problem by problem, the
 * best island's value, vector, generations and target flag. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "checkpoint.h"
#include "comm.h"
#include "de/de_adapt.h"
#include "de_ckpt.h"

/* Problem p's active individuals (L-SHADE and jSO shrink the population). */
static int active(const de_job *job, const de_snapshot *s, long p)
{
	if (!s->ad)
		return job->np;
	return (int)s->ad[(size_t)p * de_adapt_ad_len(job) + DE_AD_NP];
}

/* Problem p's fitness as doubles (the model picks by them). */
static void fit_of(const de_job *job, const de_snapshot *s, long p, int n, double *out)
{
	for (int i = 0; i < n; i++)
		out[i] = s->fit[(size_t)p * job->np + i];
}

/* Every problem's emigrants into b: per problem, count then (fitness, vector). */
static rt_status pack(const de_job *job, long g, const de_snapshot *s, double *fd, int *idx,
		      rt_buf *b, rt_error *err)
{
	size_t D = (size_t)job->dim;
	for (long p = 0; p < job->problems; p++) {
		int n = active(job, s, p), k;
		fit_of(job, s, p, n, fd);
		rt_status st = rt_islands_pick_emigrants(job->isl, g, fd, n, idx, &k, err);
		if (st)
			return st;
		rt_ckpt_put_u64(b, (uint64_t)k);
		for (int i = 0; i < k; i++) {
			rt_ckpt_put_f64(b, s->fit[(size_t)p * job->np + idx[i]]);
			rt_ckpt_put_bytes(b, s->pop + ((size_t)p * job->np + idx[i]) * D, D * sizeof(float));
		}
	}
	return RT_OK;
}

/* The best value and its index (the lowest) over problem p's n actives. */
static void refresh_best(const de_job *job, de_snapshot *s, long p, int n)
{
	const float *f = s->fit + (size_t)p * job->np;
	int b = 0;
	for (int i = 1; i < n; i++)
		if (f[i] < f[b])
			b = i;
	s->st[p].best = f[b];
	s->st[p].best_index = b;
}

/* Problem p's immigrants from every reader (one per package, read in
 * order) into the places the model picks. */
static rt_status take(const de_job *job, long g, de_snapshot *s, long p, rt_ckpt *r, int nr,
		      float *rows, double *rfit, double *fd, int *idx, rt_error *err)
{
	size_t D = (size_t)job->dim;
	int total = 0, n = active(job, s, p), k;   /* total <= migrants x nr: rows' room */
	rt_status st = RT_OK;
	for (int q = 0; q < nr && !st; q++) {
		uint64_t cnt;
		if ((st = rt_ckpt_get_u64(&r[q], &cnt, err)))
			break;
		if (cnt > (uint64_t)job->islands.migrants)
			return rt_fail(err, RT_ERR_INPUT, "%s: %llu migrants for problem %ld where at "
				       "most %d were expected", r[q].path, (unsigned long long)cnt, p,
				       job->islands.migrants);
		for (uint64_t i = 0; i < cnt && !st; i++, total++)
			if (!(st = rt_ckpt_get_f64(&r[q], &rfit[total], err)))
				st = rt_ckpt_get_bytes(&r[q], rows + total * D, D * sizeof(float), err);
	}
	if (st || total == 0 || s->st[p].done)
		return st;
	fit_of(job, s, p, n, fd);
	if ((st = rt_islands_pick_places(job->isl, g, fd, n, total, idx, &k, err)))
		return st;
	for (int i = 0; i < k; i++) {
		size_t at = (size_t)p * job->np + idx[i];
		memcpy(s->pop + at * D, rows + i * D, D * sizeof(float));
		s->fit[at] = (float)rfit[i];
	}
	refresh_best(job, s, p, n);
	return RT_OK;
}

rt_status de_islands_exchange(const de_job *job, long g, de_snapshot *s, int want, int asked,
			      int *stop, rt_error *err)
{
	size_t np = (size_t)job->np, cap = (size_t)job->islands.migrants * rt_comm_size();
	double *fd = rt_malloc(np * sizeof *fd, err);
	int *idx = fd ? rt_malloc((np + cap) * sizeof *idx, err) : NULL;
	double *rfit = idx ? rt_malloc(cap * sizeof *rfit, err) : NULL;
	float *rows = rfit ? rt_malloc(cap * job->dim * sizeof *rows, err) : NULL;
	rt_buf out = { 0 };
	rt_islands_inbox in = { 0 };
	rt_ckpt *r = NULL;
	rt_status st = rows ? pack(job, g, s, fd, idx, &out, err) : err->status;
	if (!st)
		st = rt_islands_migrate(job->isl, g, out.data, out.len, want, asked, &in, stop, err);
	if (!st && in.n > 0 && !(r = rt_calloc((size_t)in.n, sizeof *r, err)))
		st = err->status;
	for (int q = 0; q < in.n && !st; q++) {
		r[q].state = in.pkg[q];
		r[q].state_size = in.bytes[q];
		snprintf(r[q].path, sizeof r[q].path, "migration package %d of %d", q + 1, in.n);
	}
	for (long p = 0; p < job->problems && !st && in.n > 0; p++)
		st = take(job, g, s, p, r, in.n, rows, rfit, fd, idx, err);
	free(r);
	rt_islands_inbox_free(&in);
	rt_buf_free(&out);
	free(fd);
	free(idx);
	free(rfit);
	free(rows);
	return st;
}

/* Every rank's array `mine` of `each` bytes per problem, rank after rank,
 * into *all (rank 0; the others get NULL). */
static rt_status gather_all(const void *mine, size_t each, long P, void **all, rt_error *err)
{
	int size = rt_comm_size(), root = rt_comm_rank() == 0;
	size_t *counts = NULL;
	rt_status st = RT_OK;
	*all = NULL;
	if (root) {
		counts = rt_malloc((size_t)size * sizeof *counts, err);
		*all = counts ? rt_malloc((size_t)size * P * each + 1, err) : NULL;
		st = *all ? RT_OK : err->status;
		for (int q = 0; q < size && !st; q++)
			counts[q] = (size_t)P * each;
	}
	if (!st)   /* a root that failed above aborts the job */
		st = rt_comm_gatherv(mine, (size_t)P * each, *all, counts, err);
	free(counts);
	return st;
}

rt_status de_islands_gather(const de_job *job, de_outcome *out, rt_error *err)
{
	int size = rt_comm_size();
	long P = job->problems;
	size_t D = (size_t)out->dim;
	long long evals = out->evals;
	void *best = NULL, *bestx = NULL, *gens = NULL, *reached = NULL;
	rt_status st;
	if (size == 1)
		return RT_OK;
	if (!(st = gather_all(out->best, sizeof *out->best, P, &best, err)) &&
	    !(st = gather_all(out->bestx, D * sizeof *out->bestx, P, &bestx, err)) &&
	    !(st = gather_all(out->gens, sizeof *out->gens, P, &gens, err)) &&
	    !(st = gather_all(out->reached, sizeof *out->reached, P, &reached, err)) &&
	    !(st = rt_comm_sum_ll(&evals, err)) && !(st = rt_comm_max_double(&out->seconds, err)))
		st = rt_comm_max_double(&out->kernel_ms, err);
	out->evals = evals;
	for (long p = 0; p < P && !st && rt_comm_rank() == 0; p++) {
		int b = 0;   /* the island with the lowest best (NaN: worst; ties: the lowest rank) */
		for (int q = 1; q < size; q++) {
			float fq = ((float *)best)[(size_t)q * P + p], fb = ((float *)best)[(size_t)b * P + p];
			if (fq < fb || (isnan(fb) && !isnan(fq)))
				b = q;
		}
		out->best[p] = ((float *)best)[(size_t)b * P + p];
		memcpy(out->bestx + p * D, (float *)bestx + ((size_t)b * P + p) * D, D * sizeof(float));
		out->gens[p] = ((int *)gens)[(size_t)b * P + p];
		out->reached[p] = ((int *)reached)[(size_t)b * P + p];
	}
	free(best);
	free(bestx);
	free(gens);
	free(reached);
	return st;
}
