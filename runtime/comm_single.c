/* comm_single.c: the job is this one process (comm.h); build/evoforge-mpi
 * links comm_mpi.c instead, which defines the same functions. */
#include <stdlib.h>
#include <string.h>

#include "comm.h"

rt_status rt_comm_start(int *argc, char ***argv, rt_error *err)
{
	(void)argc;
	(void)argv;
	(void)err;
	return RT_OK;
}

void rt_comm_end(void) {}

void rt_comm_abort(int status) { exit(status); }

int rt_comm_rank(void) { return 0; }
int rt_comm_size(void) { return 1; }
int rt_comm_local_rank(void) { return 0; }
const char *rt_comm_kind(void) { return "single"; }

rt_status rt_comm_gatherv(const void *mine, size_t bytes, void *all, const size_t *counts,
			  rt_error *err)
{
	(void)counts;
	(void)err;
	if (bytes > 0 && all != mine)
		memcpy(all, mine, bytes);
	return RT_OK;
}

rt_status rt_comm_sum_ll(long long *v, rt_error *err)
{
	(void)v;
	(void)err;
	return RT_OK;
}

rt_status rt_comm_max_double(double *v, rt_error *err)
{
	(void)v;
	(void)err;
	return RT_OK;
}
