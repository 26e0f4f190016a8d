/* mbp_shard.c: kind mbp's independent networks (networks = K, network k on
 * fold k % folds) spread over the job's processes (MPI ranks, comm.h):
 * each rank trains a contiguous block of them, network k drawing its
 * initial weights and pattern orders from the Philox streams of its global
 * index and training on the fold of that index (mbp_job.c, and the GPU
 * kernel's MBP_NET_BASE), so it trains exactly as in one process; rank 0
 * gathers every network's final weights and result, so result.json,
 * network.net and predictions.csv equal a one-process run's (timings and
 * the rank count aside). The ranks end each block of epochs together (any
 * network still training, any stop request, combined), so they checkpoint
 * at the same epochs (mbp_ckpt.c gathers them into one file). */
#include <stdlib.h>
#include <string.h>

#include "comm.h"
#include "mbp_impl.h"
#include "signals.h"

long mbp_job_networks_all(const mbp_job *job)
{
	return job->networks_total > 0 ? job->networks_total : job->networks;
}

rt_status mbp_shard_job(mbp_job *job, rt_error *err)
{
	long begin, end;
	rt_status st;
	if (rt_comm_size() == 1)
		return RT_OK;
	if ((st = rt_shard_take(job->networks, job->spec_path, "mbp.networks", "network(s)", &begin,
				&end, err)))
		return st;
	job->networks_total = job->networks;
	job->net_base = begin;
	job->networks = end - begin;
	return RT_OK;
}

rt_status mbp_shard_gather(mbp_job *job, mbp_outcome *out, rt_error *err)
{
	rt_status st;
	if (rt_comm_size() == 1)
		return RT_OK;
	if ((st = rt_shard_gather((void **)&out->w, (size_t)out->nweights * sizeof *out->w, job->networks_total, err)) ||
	    (st = rt_shard_gather((void **)&out->res, sizeof *out->res, job->networks_total, err)) ||
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

rt_status mbp_shard_agree(long *alive, int *stop, rt_error *err)
{
	double any = *alive > 0;
	rt_status st;
	if (rt_comm_size() == 1)
		return RT_OK;
	if ((st = rt_comm_max_double(&any, err)) || (st = rt_stop_agree(stop, err)))   /* another rank's signal too */
		return st;
	*alive = any > 0;
	return RT_OK;
}
