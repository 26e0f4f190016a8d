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

rt_status rt_comm_agree(int status, const char *msg, rt_comm_ends *ends, rt_error *err)
{
	(void)msg, (void)err;
	ends->same = ends->one_message = 1;
	ends->first_failed = status ? 0 : -1;
	return RT_OK;
}

int rt_comm_rank(void) { return 0; }
int rt_comm_size(void) { return 1; }
int rt_comm_local_rank(void) { return 0; }
int rt_comm_local_size(void) { return 1; }
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

/* One process has no other rank to send to or receive from. */
static rt_status no_peer(rt_error *err)
{
	return rt_fail(err, RT_ERR_UNSUPPORTED, "a message to another rank in a job of one process");
}

rt_status rt_comm_isend(const void *buf, size_t bytes, int dest, int tag, rt_comm_request **req,
			rt_error *err)
{
	(void)buf, (void)bytes, (void)dest, (void)tag;
	*req = NULL;
	return no_peer(err);
}

rt_status rt_comm_test(rt_comm_request *req, int *done, rt_error *err)
{
	(void)req, (void)err;
	*done = 1;
	return RT_OK;
}

rt_status rt_comm_wait(rt_comm_request *req, rt_error *err)
{
	(void)req, (void)err;
	return RT_OK;
}

rt_status rt_comm_recv(int src, int tag, void **buf, size_t *bytes, rt_error *err)
{
	(void)src, (void)tag;
	*buf = NULL;
	*bytes = 0;
	return no_peer(err);
}

rt_status rt_comm_imax_int(int *v, int n, rt_comm_request **req, rt_error *err)
{
	(void)v, (void)n, (void)err;
	*req = NULL;
	return RT_OK;
}

rt_status rt_comm_minloc(double v, int *rank, rt_error *err)
{
	(void)v, (void)err;
	*rank = 0;
	return RT_OK;
}

rt_status rt_comm_sum_double(double *v, rt_error *err)
{
	(void)v, (void)err;
	return RT_OK;
}

rt_status rt_comm_bcast(void **buf, size_t *bytes, int root, rt_error *err)
{
	(void)buf, (void)bytes, (void)root, (void)err;
	return RT_OK;
}
