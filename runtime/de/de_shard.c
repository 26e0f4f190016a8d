/* de_shard.c: kind de's independent problems spread over the job's
 * processes (MPI ranks, comm.h): each takes a contiguous block of them,
 * drawing from the same Philox streams as one process would (a problem's
 * stream is its global index), and rank 0 gathers every problem's outcome,
 * so result.json and history.csv equal a one-process run's (timings and the
 * rank count aside). */
#include "comm.h"
#include "de_impl.h"
#include "signals.h"

rt_status de_shard_job(de_job *job, const char *spec_path, rt_error *err)
{
	long begin, end;
	rt_status st;
	if (rt_comm_size() == 1)
		return RT_OK;
	if ((st = rt_shard_take(job->problems_total, spec_path, "de.problems", "problem(s)", &begin,
				&end, err)))
		return st;
	job->problem_base = begin;
	job->problems = end - begin;
	job->params.problem_base = (uint32_t)begin;
	return RT_OK;
}

rt_status de_shard_gather(const de_job *job, de_outcome *out, rt_error *err)
{
	rt_status st;
	long long evals = out->evals;
	long P = job->problems_total;
	if (rt_comm_size() == 1)
		return RT_OK;
	if ((st = rt_shard_gather((void **)&out->best, sizeof *out->best, P, err)) ||
	    (st = rt_shard_gather((void **)&out->bestx, (size_t)out->dim * sizeof *out->bestx, P, err)) ||
	    (st = rt_shard_gather((void **)&out->gens, sizeof *out->gens, P, err)) ||
	    (st = rt_shard_gather((void **)&out->reached, sizeof *out->reached, P, err)) ||
	    (out->hist && (st = rt_shard_gather((void **)&out->hist,
						(size_t)out->hist_len * sizeof *out->hist, P, err))) ||
	    (out->cec && (st = rt_shard_gather((void **)&out->cec,
					       (size_t)out->cec_nchecks * sizeof *out->cec, P, err))) ||
	    (st = rt_comm_sum_ll(&evals, err)) || (st = rt_comm_max_double(&out->seconds, err)) ||
	    (st = rt_comm_max_double(&out->compile_seconds, err)) ||
	    (st = rt_comm_max_double(&out->kernel_ms, err)))
		return st;
	out->evals = evals;
	if (rt_comm_rank() == 0)
		out->problems = job->problems_total;
	return RT_OK;
}

rt_status de_shard_agree(const de_job *job, long *alive, int *stop, rt_error *err)
{
	long long a = *alive;
	rt_status st;
	if (rt_comm_size() == 1 || job->isl)
		return RT_OK;
	if ((st = rt_comm_sum_ll(&a, err)) || (st = rt_stop_agree(stop, err)))   /* another rank's signal too */
		return st;
	*alive = (long)a;
	*stop = *stop > 0;
	return RT_OK;
}
