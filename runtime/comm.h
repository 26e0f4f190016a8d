/* comm.h: the processes of one job. build/evoforge is one process
 * (comm_single.c); build/evoforge-mpi, started by mpirun, is one process per
 * MPI rank (comm_mpi.c, linked in its place). Kinds that spread work over
 * the processes (de's problems, ...) take their share with rt_shard_range
 * and gather the results on rank 0, which alone prints and writes files. */
#ifndef EVO_COMM_H
#define EVO_COMM_H

#include <stddef.h>

#include "error.h"

/* Starts the job's communication (MPI_Init); argc/argv may be changed. */
rt_status rt_comm_start(int *argc, char ***argv, rt_error *err);
/* Ends it (MPI_Finalize) after a successful run. */
void rt_comm_end(void);
/* Ends every process of the job at once with exit status `status` (after a
 * failure on this one; MPI_Abort). One process: exit(status). */
void rt_comm_abort(int status);
/* How the ranks of a job ended (rt_comm_agree). */
typedef struct rt_comm_ends {
	int same;           /* every rank has the same status and message */
	int one_message;    /* the ranks that failed (status not 0) have the same message */
	int first_failed;   /* the lowest of them (-1: none) */
} rt_comm_ends;
/* The end of a job: every rank passes its exit status and its error message
 * ("" when none) and learns how all ended (one process: its own). The ranks
 * compare them on a communicator of their own, so it does not matter which
 * of the run's messages a rank left behind. A rank whose status is not 0
 * waits at most RT_COMM_AGREE_WAIT_S seconds for the others (which may be
 * waiting for it in the run's messages) and then returns RT_ERR_SYSTEM:
 * the caller ends the job with rt_comm_abort. */
#if !defined(RT_COMM_AGREE_WAIT_S)
#define RT_COMM_AGREE_WAIT_S 10.0
#endif
rt_status rt_comm_agree(int status, const char *msg, rt_comm_ends *ends, rt_error *err);

int rt_comm_rank(void);        /* 0 .. size-1 */
int rt_comm_size(void);        /* processes in the job */
int rt_comm_local_rank(void);  /* index among the job's processes on this host */
int rt_comm_local_size(void);  /* the job's processes on this host */
/* "mpi" or "single": the transport compiled in. */
const char *rt_comm_kind(void);

/* Rank 0 receives every rank's `bytes` (which may differ by rank) in rank
 * order at all (others pass NULL); counts[r] is rank r's byte count, known
 * to rank 0 only (others may pass NULL). */
rt_status rt_comm_gatherv(const void *mine, size_t bytes, void *all, const size_t *counts,
			  rt_error *err);
/* Sum and maximum over the ranks, the result on every rank. */
rt_status rt_comm_sum_ll(long long *v, rt_error *err);
rt_status rt_comm_max_double(double *v, rt_error *err);
rt_status rt_comm_sum_double(double *v, rt_error *err);
/* Rank root's *buf (*bytes of it) to every rank: the others' *buf is
 * allocated (free it) and *bytes set. */
rt_status rt_comm_bcast(void **buf, size_t *bytes, int root, rt_error *err);

/* ---- messages between two ranks and started collectives (islands.c) ---- */
/* A send or collective in flight; completed (and freed) by rt_comm_wait or
 * a successful rt_comm_test. */
typedef struct rt_comm_request rt_comm_request;
/* Starts sending `bytes` of buf to rank dest under tag; buf must stay as it
 * is until the request completes. */
rt_status rt_comm_isend(const void *buf, size_t bytes, int dest, int tag, rt_comm_request **req,
			rt_error *err);
/* *done: has req completed? (then it is freed) */
rt_status rt_comm_test(rt_comm_request *req, int *done, rt_error *err);
/* Waits for req to complete and frees it (NULL: nothing to wait for). */
rt_status rt_comm_wait(rt_comm_request *req, rt_error *err);
/* Receives the message rank src sent under tag, of whatever size: *buf is
 * allocated (free it), *bytes its size. */
rt_status rt_comm_recv(int src, int tag, void **buf, size_t *bytes, rt_error *err);
/* Starts the maxima over the ranks of v[0..n-1], written to v when req
 * completes (v must stay valid until then). One process: done at once,
 * *req NULL. */
rt_status rt_comm_imax_int(int *v, int n, rt_comm_request **req, rt_error *err);
/* The rank holding the lowest v (ties: the lowest rank), on every rank. */
rt_status rt_comm_minloc(double v, int *rank, rt_error *err);

/* The share [*begin, *end) of n items that rank `rank` of `size` takes:
 * contiguous blocks, the first n % size ranks one item more. */
static inline void rt_shard_range(long n, int rank, int size, long *begin, long *end)
{
	long q = n / size, r = n % size;
	*begin = rank * q + (rank < r ? rank : r);
	*end = *begin + q + (rank < r ? 1 : 0);
}

/* This rank's block [*begin, *end) of `total` items; fewer items than
 * ranks is an error naming spec_path, key and the items ("problem(s)"). */
rt_status rt_shard_take(long total, const char *spec_path, const char *key, const char *items,
			long *begin, long *end, rt_error *err);
/* Rank 0: *field, this rank's block of an array of `total` items of `each`
 * bytes, replaced by the whole array in item order (every rank calls it;
 * shard.c). */
rt_status rt_shard_gather(void **field, size_t each, long total, rt_error *err);
/* The same into a new array *all (rank 0; the others get NULL), mine kept. */
rt_status rt_shard_gather_copy(const void *mine, size_t each, long total, void **all,
			       rt_error *err);

#endif
