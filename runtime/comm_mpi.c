/* comm_mpi.c: the job's processes are MPI ranks (comm.h), for
 * build/evoforge-mpi (compiled with mpicc; build/evoforge links
 * comm_single.c instead). Errors of MPI calls are returned, not aborted on:
 * MPI_COMM_WORLD gets MPI_ERRORS_RETURN. */
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <time.h>

#include <mpi.h>

#include "comm.h"

static struct {
	int rank, size, local_rank, local_size, started;
	MPI_Comm agree;   /* rt_comm_agree's, apart from the run's messages */
} comm = { 0, 1, 0, 0, 0, MPI_COMM_NULL };

static rt_status mpi_check(int rc, const char *what, rt_error *err)
{
	char text[MPI_MAX_ERROR_STRING];
	int len = 0;
	if (rc == MPI_SUCCESS)
		return RT_OK;
	if (MPI_Error_string(rc, text, &len) != MPI_SUCCESS)
		len = 0;
	text[len] = 0;
	return rt_fail(err, RT_ERR_SYSTEM, "MPI: %s failed on rank %d of %d: %s", what, comm.rank,
		       comm.size, len ? text : "(no message)");
}

rt_status rt_comm_start(int *argc, char ***argv, rt_error *err)
{
	MPI_Comm local;
	rt_status st;
	if ((st = mpi_check(MPI_Init(argc, argv), "MPI_Init", err)))
		return st;
	comm.started = 1;
	MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
	if ((st = mpi_check(MPI_Comm_rank(MPI_COMM_WORLD, &comm.rank), "MPI_Comm_rank", err)) ||
	    (st = mpi_check(MPI_Comm_size(MPI_COMM_WORLD, &comm.size), "MPI_Comm_size", err)) ||
	    (st = mpi_check(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, comm.rank,
						MPI_INFO_NULL, &local), "MPI_Comm_split_type", err)))
		return st;
	st = mpi_check(MPI_Comm_rank(local, &comm.local_rank), "MPI_Comm_rank (host)", err);
	if (!st)
		st = mpi_check(MPI_Comm_size(local, &comm.local_size), "MPI_Comm_size (host)", err);
	MPI_Comm_free(&local);
	if (!st)
		st = mpi_check(MPI_Comm_dup(MPI_COMM_WORLD, &comm.agree), "MPI_Comm_dup", err);
	return st;
}

void rt_comm_end(void)
{
	if (comm.agree != MPI_COMM_NULL)
		MPI_Comm_free(&comm.agree);
	if (comm.started)
		MPI_Finalize();
	comm.started = 0;
}

/* FNV-1a of s, in 31 bits (a message compared over the ranks). */
static int text_hash(const char *s)
{
	uint32_t h = 2166136261u;
	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 16777619u;
	return (int)(h & 0x7fffffff);
}

static double seconds(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* Waits for req; a rank that failed (status not 0) for RT_COMM_AGREE_WAIT_S at most. */
static rt_status agree_wait(MPI_Request *req, int status, rt_error *err)
{
	const struct timespec pause = { 0, 1000000 };
	double deadline = seconds() + RT_COMM_AGREE_WAIT_S;
	int done = 0;
	rt_status st;
	for (;;) {
		if ((st = mpi_check(MPI_Test(req, &done, MPI_STATUS_IGNORE), "MPI_Test", err)))
			return st;
		if (done)
			return RT_OK;
		if (status != 0 && seconds() > deadline)
			return rt_fail(err, RT_ERR_SYSTEM, "the other ranks did not end within %g s "
				       "(they wait for this one)", RT_COMM_AGREE_WAIT_S);
		nanosleep(&pause, NULL);
	}
}

rt_status rt_comm_agree(int status, const char *msg, rt_comm_ends *ends, rt_error *err)
{
	/* maxima over the ranks: of x and -x, equal but for the sign when every
	 * rank has the same x; a rank that did not fail gives the hashes and its
	 * rank INT_MIN, below any other */
	int h = text_hash(msg), failed = status != 0;
	int v[5] = { status, -status, failed ? h : INT_MIN, failed ? -h : INT_MIN,
		     failed ? -comm.rank : INT_MIN };
	MPI_Request req;
	rt_status st;
	ends->same = ends->one_message = 1;
	ends->first_failed = failed ? comm.rank : -1;
	if (!comm.started || comm.size == 1 || comm.agree == MPI_COMM_NULL)
		return RT_OK;
	if ((st = mpi_check(MPI_Iallreduce(MPI_IN_PLACE, v, 5, MPI_INT, MPI_MAX, comm.agree, &req),
			    "MPI_Iallreduce (the end of the job)", err)) ||
	    (st = agree_wait(&req, status, err)))
		return st;
	ends->one_message = v[2] == INT_MIN || v[2] == -v[3];
	ends->same = v[0] == -v[1] && ends->one_message;
	ends->first_failed = v[4] == INT_MIN ? -1 : -v[4];
	return RT_OK;
}

void rt_comm_abort(int status)
{
	if (comm.started && comm.size > 1)
		MPI_Abort(MPI_COMM_WORLD, status);
	exit(status);
}

int rt_comm_rank(void) { return comm.rank; }
int rt_comm_size(void) { return comm.size; }
int rt_comm_local_rank(void) { return comm.local_rank; }
int rt_comm_local_size(void) { return comm.local_size > 0 ? comm.local_size : 1; }
const char *rt_comm_kind(void) { return "mpi"; }

rt_status rt_comm_gatherv(const void *mine, size_t bytes, void *all, const size_t *counts,
			  rt_error *err)
{
	int *cnt = NULL, *disp = NULL;
	rt_status st = RT_OK;
	if (bytes > INT_MAX)
		return rt_fail(err, RT_ERR_UNSUPPORTED, "MPI: a rank's share of %zu bytes is over "
			       "the 2 GiB one gather takes", bytes);
	if (comm.rank == 0) {
		cnt = rt_malloc((size_t)comm.size * sizeof *cnt, err);
		disp = rt_malloc((size_t)comm.size * sizeof *disp, err);
		if (!cnt || !disp) {
			st = RT_ERR_SYSTEM;
			goto out;
		}
		size_t off = 0;
		for (int r = 0; r < comm.size; r++) {
			if (counts[r] > INT_MAX || off > INT_MAX) {
				st = rt_fail(err, RT_ERR_UNSUPPORTED, "MPI: %zu bytes gathered is over "
					     "the 2 GiB one gather takes", off + counts[r]);
				goto out;
			}
			cnt[r] = (int)counts[r];
			disp[r] = (int)off;
			off += counts[r];
		}
	}
	/* every rank takes part even when rank 0 failed above: it then aborts */
	st = mpi_check(MPI_Gatherv(mine, (int)bytes, MPI_BYTE, all, cnt, disp, MPI_BYTE, 0,
				   MPI_COMM_WORLD), "MPI_Gatherv", err);
out:
	free(cnt);
	free(disp);
	return st;
}

rt_status rt_comm_sum_ll(long long *v, rt_error *err)
{
	return mpi_check(MPI_Allreduce(MPI_IN_PLACE, v, 1, MPI_LONG_LONG, MPI_SUM, MPI_COMM_WORLD),
			 "MPI_Allreduce", err);
}

rt_status rt_comm_max_double(double *v, rt_error *err)
{
	return mpi_check(MPI_Allreduce(MPI_IN_PLACE, v, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD),
			 "MPI_Allreduce", err);
}

/* ---- messages between two ranks and started collectives ---------------------- */

struct rt_comm_request {
	MPI_Request req;
};

static rt_status new_request(rt_comm_request **req, rt_error *err)
{
	*req = rt_malloc(sizeof **req, err);
	return *req ? RT_OK : err->status;
}

rt_status rt_comm_isend(const void *buf, size_t bytes, int dest, int tag, rt_comm_request **req,
			rt_error *err)
{
	rt_status st;
	*req = NULL;
	if (bytes > INT_MAX)
		return rt_fail(err, RT_ERR_UNSUPPORTED, "MPI: a message of %zu bytes is over the "
			       "2 GiB one send takes", bytes);
	if ((st = new_request(req, err)))
		return st;
	st = mpi_check(MPI_Isend(buf, (int)bytes, MPI_BYTE, dest, tag, MPI_COMM_WORLD, &(*req)->req),
		       "MPI_Isend", err);
	if (st) {
		free(*req);
		*req = NULL;
	}
	return st;
}

rt_status rt_comm_test(rt_comm_request *req, int *done, rt_error *err)
{
	*done = 1;
	if (!req)
		return RT_OK;
	rt_status st = mpi_check(MPI_Test(&req->req, done, MPI_STATUS_IGNORE), "MPI_Test", err);
	if (!st && *done)
		free(req);
	return st;
}

rt_status rt_comm_wait(rt_comm_request *req, rt_error *err)
{
	if (!req)
		return RT_OK;
	rt_status st = mpi_check(MPI_Wait(&req->req, MPI_STATUS_IGNORE), "MPI_Wait", err);
	free(req);
	return st;
}

rt_status rt_comm_recv(int src, int tag, void **buf, size_t *bytes, rt_error *err)
{
	MPI_Status status;
	int count = 0;
	rt_status st;
	*buf = NULL;
	*bytes = 0;
	if ((st = mpi_check(MPI_Probe(src, tag, MPI_COMM_WORLD, &status), "MPI_Probe", err)) ||
	    (st = mpi_check(MPI_Get_count(&status, MPI_BYTE, &count), "MPI_Get_count", err)))
		return st;
	if (!(*buf = rt_malloc((size_t)count + 1, err)))
		return err->status;
	st = mpi_check(MPI_Recv(*buf, count, MPI_BYTE, src, tag, MPI_COMM_WORLD, MPI_STATUS_IGNORE),
		       "MPI_Recv", err);
	if (st) {
		free(*buf);
		*buf = NULL;
		return st;
	}
	*bytes = (size_t)count;
	return RT_OK;
}

rt_status rt_comm_imax_int(int *v, int n, rt_comm_request **req, rt_error *err)
{
	rt_status st;
	if ((st = new_request(req, err)))
		return st;
	st = mpi_check(MPI_Iallreduce(MPI_IN_PLACE, v, n, MPI_INT, MPI_MAX, MPI_COMM_WORLD,
				      &(*req)->req), "MPI_Iallreduce", err);
	if (st) {
		free(*req);
		*req = NULL;
	}
	return st;
}

rt_status rt_comm_minloc(double v, int *rank, rt_error *err)
{
	struct { double v; int rank; } in = { v, comm.rank }, out;
	rt_status st = mpi_check(MPI_Allreduce(&in, &out, 1, MPI_DOUBLE_INT, MPI_MINLOC,
					       MPI_COMM_WORLD), "MPI_Allreduce (MINLOC)", err);
	*rank = st ? 0 : out.rank;
	return st;
}

rt_status rt_comm_sum_double(double *v, rt_error *err)
{
	return mpi_check(MPI_Allreduce(MPI_IN_PLACE, v, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD),
			 "MPI_Allreduce", err);
}

rt_status rt_comm_bcast(void **buf, size_t *bytes, int root, rt_error *err)
{
	long long n = (long long)*bytes;
	rt_status st = mpi_check(MPI_Bcast(&n, 1, MPI_LONG_LONG, root, MPI_COMM_WORLD), "MPI_Bcast",
				 err);
	if (st)
		return st;
	if (n > INT_MAX)   /* every rank sees it and returns */
		return rt_fail(err, RT_ERR_UNSUPPORTED, "MPI: a broadcast of %lld bytes is over the "
			       "2 GiB one takes", n);
	if (comm.rank != root) {
		if (!(*buf = rt_malloc((size_t)n + 1, err)))
			return err->status;   /* then this rank aborts the job */
		*bytes = (size_t)n;
	}
	return mpi_check(MPI_Bcast(*buf, (int)n, MPI_BYTE, root, MPI_COMM_WORLD), "MPI_Bcast", err);
}
