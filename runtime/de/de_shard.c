/* de_shard.c: kind de's independent problems spread over the job's
 * processes (MPI ranks, comm.h): each takes a contiguous block of them,
 * drawing from the same Philox streams as one process would (a problem's
 * stream is its global index), and rank 0 gathers every problem's outcome,
 * so result.json and history.csv equal a one-process run's (timings and the
 * rank count aside). */
#include <stdlib.h>
#include <string.h>

#include "comm.h"
#include "de_impl.h"

rt_status de_shard_job(de_job *job, const char *spec_path, rt_error *err)
{
	int size = rt_comm_size();
	long begin, end;
	if (size == 1)
		return RT_OK;
	if (job->problems < size)
		return rt_fail(err, RT_ERR_INPUT, "%s: de.problems: %ld problem(s) cannot be spread over "
			       "%d ranks: expected at least one a rank", spec_path, job->problems, size);
	rt_shard_range(job->problems_total, rt_comm_rank(), size, &begin, &end);
	job->problem_base = begin;
	job->problems = end - begin;
	job->params.problem_base = (uint32_t)begin;
	return RT_OK;
}

/* Rank 0: *field (each rank's problems x `each` bytes) replaced by the
 * whole job's, in problem order. */
static rt_status gather_field(void **field, size_t each, const de_job *job, rt_error *err)
{
	int size = rt_comm_size(), root = rt_comm_rank() == 0;
	size_t *counts = NULL;
	void *all = NULL;
	rt_status st = RT_OK;
	if (root) {
		counts = rt_malloc((size_t)size * sizeof *counts, err);
		all = rt_malloc((size_t)job->problems_total * each + 1, err);
		if (!counts || !all)
			st = RT_ERR_SYSTEM;
		for (int r = 0; r < size && !st; r++) {
			long b, e;
			rt_shard_range(job->problems_total, r, size, &b, &e);
			counts[r] = (size_t)(e - b) * each;
		}
	}
	if (!st)
		st = rt_comm_gatherv(*field, (size_t)job->problems * each, all, counts, err);
	free(counts);
	if (root && !st) {
		free(*field);
		*field = all;
	} else {
		free(all);
	}
	return st;
}

rt_status de_shard_gather(const de_job *job, de_outcome *out, rt_error *err)
{
	rt_status st;
	long long evals = out->evals;
	if (rt_comm_size() == 1)
		return RT_OK;
	if ((st = gather_field((void **)&out->best, sizeof *out->best, job, err)) ||
	    (st = gather_field((void **)&out->bestx, (size_t)out->dim * sizeof *out->bestx, job, err)) ||
	    (st = gather_field((void **)&out->gens, sizeof *out->gens, job, err)) ||
	    (st = gather_field((void **)&out->reached, sizeof *out->reached, job, err)) ||
	    (out->hist && (st = gather_field((void **)&out->hist,
					     (size_t)out->hist_len * sizeof *out->hist, job, err))) ||
	    (st = rt_comm_sum_ll(&evals, err)) || (st = rt_comm_max_double(&out->seconds, err)) ||
	    (st = rt_comm_max_double(&out->compile_seconds, err)) ||
	    (st = rt_comm_max_double(&out->kernel_ms, err)))
		return st;
	out->evals = evals;
	if (rt_comm_rank() == 0)
		out->problems = job->problems_total;
	return RT_OK;
}
