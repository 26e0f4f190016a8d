/* mbp_shard.c: kind mbp's independent networks (networks = K, network k on
 * fold k % folds) spread over the job's processes (MPI ranks, comm.h):
 * each rank trains a contiguous block of them, network k drawing its
 * initial weights and pattern orders from the Philox streams of its global
 * index and training on the fold of that index (mbp_job.c, and the GPU
 * kernel's MBP_NET_BASE), so it trains exactly as in one process; rank 0
 * gathers every network's final weights and result, so result.json,
 * network.net and predictions.csv equal a one-process run's (timings and
 * the rank count aside). */
#include <stdlib.h>
#include <string.h>

#include "comm.h"
#include "mbp_impl.h"

long mbp_job_networks_all(const mbp_job *job)
{
	return job->networks_total > 0 ? job->networks_total : job->networks;
}

rt_status mbp_shard_job(mbp_job *job, rt_error *err)
{
	int size = rt_comm_size();
	long begin, end;
	if (size == 1)
		return RT_OK;
	if (job->networks < size)
		return rt_fail(err, RT_ERR_INPUT, "%s: mbp.networks: %ld network(s) cannot be spread over "
			       "%d ranks: expected at least one a rank", job->spec_path, job->networks,
			       size);
	job->networks_total = job->networks;
	rt_shard_range(job->networks_total, rt_comm_rank(), size, &begin, &end);
	job->net_base = begin;
	job->networks = end - begin;
	return RT_OK;
}

/* Rank 0: *field (each rank's networks x `each` bytes) replaced by the
 * whole job's, in network order. */
static rt_status gather_field(void **field, size_t each, const mbp_job *job, rt_error *err)
{
	int size = rt_comm_size(), root = rt_comm_rank() == 0;
	size_t *counts = NULL;
	void *all = NULL;
	rt_status st = RT_OK;
	if (root) {
		counts = rt_malloc((size_t)size * sizeof *counts, err);
		all = rt_malloc((size_t)job->networks_total * each + 1, err);
		if (!counts || !all)
			st = RT_ERR_SYSTEM;
		for (int r = 0; r < size && !st; r++) {
			long b, e;
			rt_shard_range(job->networks_total, r, size, &b, &e);
			counts[r] = (size_t)(e - b) * each;
		}
	}
	if (!st)
		st = rt_comm_gatherv(*field, (size_t)job->networks * each, all, counts, err);
	free(counts);
	if (root && !st) {
		free(*field);
		*field = all;
	} else {
		free(all);
	}
	return st;
}

rt_status mbp_shard_gather(mbp_job *job, mbp_outcome *out, rt_error *err)
{
	rt_status st;
	if (rt_comm_size() == 1)
		return RT_OK;
	if ((st = gather_field((void **)&out->w, (size_t)out->nweights * sizeof *out->w, job, err)) ||
	    (st = gather_field((void **)&out->res, sizeof *out->res, job, err)) ||
	    (st = rt_comm_max_double(&out->seconds, err)) ||
	    (st = rt_comm_max_double(&out->compile_seconds, err)) ||
	    (st = rt_comm_max_double(&out->kernel_ms, err)))
		return st;
	if (rt_comm_rank() != 0)
		return RT_OK;
	/* rank 0 now holds every network: the job is the whole one again */
	job->networks = job->networks_total;
	job->net_base = 0;
	out->networks = job->networks;
	mbp_outcome_count(out, job);
	return RT_OK;
}
