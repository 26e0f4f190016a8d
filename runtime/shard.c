/* shard.c: a job's independent items (de's problems, mbp's networks) cut
 * into contiguous blocks, one a process (comm.h), and arrays of per-item
 * results gathered back on rank 0 in item order. Transport-free: it only
 * calls comm.h, so one process (comm_single.c) takes every item. */
#include <stdlib.h>

#include "comm.h"

rt_status rt_shard_take(long total, const char *spec_path, const char *key, const char *items,
			long *begin, long *end, rt_error *err)
{
	int size = rt_comm_size();
	if (total < size)
		return rt_fail(err, RT_ERR_INPUT, "%s: %s: %ld %s cannot be spread over %d ranks: "
			       "expected at least one a rank", spec_path, key, total, items, size);
	rt_shard_range(total, rt_comm_rank(), size, begin, end);
	return RT_OK;
}

rt_status rt_shard_gather_copy(const void *mine, size_t each, long total, void **all,
			       rt_error *err)
{
	int size = rt_comm_size(), root = rt_comm_rank() == 0;
	long begin, end;
	size_t *counts = NULL;
	rt_status st = RT_OK;
	*all = NULL;
	rt_shard_range(total, rt_comm_rank(), size, &begin, &end);
	if (root) {
		counts = rt_malloc((size_t)size * sizeof *counts, err);
		*all = counts ? rt_malloc((size_t)total * each + 1, err) : NULL;
		if (!counts || !*all)
			st = RT_ERR_SYSTEM;
		for (int r = 0; r < size && !st; r++) {
			long b, e;
			rt_shard_range(total, r, size, &b, &e);
			counts[r] = (size_t)(e - b) * each;
		}
	}
	if (!st)   /* a root that failed above aborts the job */
		st = rt_comm_gatherv(mine, (size_t)(end - begin) * each, *all, counts, err);
	free(counts);
	if (st) {
		free(*all);
		*all = NULL;
	}
	return st;
}

rt_status rt_shard_gather(void **field, size_t each, long total, rt_error *err)
{
	void *all;
	rt_status st = rt_shard_gather_copy(*field, each, total, &all, err);
	if (!st && all) {
		free(*field);
		*field = all;
	}
	return st;
}
