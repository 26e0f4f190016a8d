/* aco_islands.c: kind aco's side of the island model (islands.h). Each
 * colony is an island; at a migration it sends its best-so-far tour, and
 * the shortest tour it receives, when shorter than its own best-so-far,
 * becomes its best-so-far (and restart-best when shorter than that): the
 * tour the next best-so-far deposits follow and the pheromone limits. At the
 * end every rank takes the best island's tour. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "aco_impl.h"
#include "checkpoint.h"
#include "comm.h"

/* A tour as a package: its length, then its n cities. */
static void pack_tour(rt_buf *b, int64_t length, const int *tour, int n)
{
	rt_ckpt_put_u64(b, (uint64_t)length);
	rt_ckpt_put_bytes(b, tour, (size_t)n * sizeof *tour);
}

/* Reads a tour from r, checking that it is a permutation of the n cities. */
static rt_status unpack_tour(rt_ckpt *r, int n, int64_t *length, int *tour, rt_error *err)
{
	uint64_t len;
	rt_status st;
	if ((st = rt_ckpt_get_u64(r, &len, err)) ||
	    (st = rt_ckpt_get_bytes(r, tour, (size_t)n * sizeof *tour, err)))
		return st;
	char *seen = rt_calloc((size_t)n, 1, err);
	if (!seen)
		return err->status;
	for (int k = 0; k < n && !st; k++) {
		if (tour[k] < 0 || tour[k] >= n || seen[tour[k]])
			st = rt_fail(err, RT_ERR_INPUT, "%s: not a tour of %d cities (city %d at "
				     "position %d)", r->path, n, tour[k], k);
		else
			seen[tour[k]] = 1;
	}
	free(seen);
	*length = (int64_t)len;
	return st;
}

/* The tour becomes the colony's best-so-far after iteration i (and its
 * restart-best when shorter than that), in the backend's saved slots. */
static rt_status adopt(const aco_job *job, aco_backend *b, aco_mmas *m, long i, aco_outcome *out,
		       int64_t length, const int *tour, rt_error *err)
{
	size_t n = (size_t)job->n;
	float *tau = rt_malloc(n * n * sizeof *tau, err);
	int *slots = tau ? rt_malloc(2 * n * sizeof *slots, err) : NULL;
	rt_status st = slots ? b->ops->get_state(b, tau, slots, err) : err->status;
	if (!st) {
		memcpy(slots + ACO_SLOT_BEST * n, tour, n * sizeof *tour);
		if (length < m->restart_best)
			memcpy(slots + ACO_SLOT_RESTART * n, tour, n * sizeof *tour);
		st = b->ops->set_state(b, tau, slots, err);
	}
	if (!st) {
		m->best = length;
		m->found_best = i;
		if (length < m->restart_best) {
			m->restart_best = length;
			m->restart_found_best = i;
		}
		memcpy(out->best_tour, tour, n * sizeof *tour);
		out->best_length = length;
		out->best_iteration = i;
		aco_mmas_set_limits(job, m);
	}
	free(tau);
	free(slots);
	return st;
}

/* The shortest tour of the inbox, adopted when it beats the best-so-far. */
static rt_status take_best(const aco_job *job, aco_backend *b, aco_mmas *m, long i,
			   aco_outcome *out, const rt_islands_inbox *in, rt_error *err)
{
	int *tour = rt_malloc((size_t)job->n * sizeof *tour, err);
	int *best = tour ? rt_malloc((size_t)job->n * sizeof *best, err) : NULL;
	int64_t best_len = m->best, len;
	rt_status st = best ? RT_OK : err->status;
	for (int s = 0; s < in->n && !st; s++) {
		rt_ckpt r = { .state = in->pkg[s], .state_size = in->bytes[s] };
		snprintf(r.path, sizeof r.path, "migration package %d of %d", s + 1, in->n);
		st = unpack_tour(&r, job->n, &len, tour, err);
		if (!st && len < best_len) {
			best_len = len;
			memcpy(best, tour, (size_t)job->n * sizeof *tour);
		}
	}
	if (!st && best_len < m->best)
		st = adopt(job, b, m, i, out, best_len, best, err);
	free(tour);
	free(best);
	return st;
}

rt_status aco_islands_step(const aco_job *job, aco_backend *b, aco_mmas *m, long i,
			   aco_outcome *out, int want_stop, int stop_requested, int *stop,
			   rt_error *err)
{
	if (!rt_islands_due(job->isl, i)) {
		*stop = rt_islands_may_stop(job->isl, i, want_stop, stop_requested);
		return RT_OK;
	}
	rt_buf pkg = { 0 };
	rt_islands_inbox in = { 0 };
	pack_tour(&pkg, out->best_length, out->best_tour, job->n);
	rt_status st = rt_islands_migrate(job->isl, i, pkg.data, pkg.len, want_stop, stop_requested,
					  &in, stop, err);
	rt_buf_free(&pkg);
	if (!st)
		st = take_best(job, b, m, i, out, &in, err);
	rt_islands_inbox_free(&in);
	return st;
}

rt_status aco_islands_share_best(const aco_job *job, aco_outcome *out, rt_error *err)
{
	if (rt_comm_size() == 1)
		return RT_OK;
	rt_status st;
	if ((st = rt_comm_sum_ll(&out->tours, err)) || (st = rt_comm_max_double(&out->seconds, err)))
		return st;
	rt_buf b = { 0 };
	rt_ckpt_put_u64(&b, (uint64_t)out->best_iteration);
	pack_tour(&b, out->best_length, out->best_tour, job->n);
	rt_ckpt r;
	int got;
	st = b.failed ? rt_fail(err, RT_ERR_SYSTEM, "out of memory (the best island's tour)")
		      : rt_islands_take_best((double)out->best_length, &b, "the best island's tour", &r,
					     &got, err);
	if (!st && got) {
		uint64_t it = 0;
		if (!(st = rt_ckpt_get_u64(&r, &it, err)))
			st = unpack_tour(&r, job->n, &out->best_length, out->best_tour, err);
		out->best_iteration = (long)it;
		rt_ckpt_free(&r);
	}
	rt_buf_free(&b);
	return st;
}
