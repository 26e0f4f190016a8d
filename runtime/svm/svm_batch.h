/* svm_batch.h: the batched working-set solver of one binary problem
 * ([svm] solver = batch, svm-train -S batch), shared by the CPU solver
 * (svm_batch.c) and the GPU one (svm_gpu_batch.c): working sets of q points
 * chosen on the host by first-order violation, half of them kept from the
 * last set with their kernel rows, a local SMO on the set, then the
 * gradient of every point updated from the set's rows. Both backends use
 * these host functions and the same arithmetic, so they give the same
 * alpha bit for bit. Not for other modules. */
#ifndef RT_SVM_BATCH_H
#define RT_SVM_BATCH_H

#include "svm_impl.h"

/* Local SMO steps on one working set of q points, at most this many times q. */
#define SVM_BATCH_LOCAL_MAX 100
/* solver = auto: batch on the GPU for problems of at least this many
 * points (not the nu forms), SMO otherwise and on the CPU (where the batch
 * solver recomputes rows that SMO's cache keeps: 2.7x slower on a9a). */
#if !defined(SVM_BATCH_AUTO_MIN)
#define SVM_BATCH_AUTO_MIN 16000
#endif
/* The largest working set (one GPU thread block). */
#define SVM_BATCH_MAX_Q 1024

/* The working-set size for n points: `asked` (even, >= 4, <= n) if not 0,
 * else the largest power of two <= min(SVM_BATCH_MAX_Q, n), halved while
 * q * n float rows pass row_budget_bytes (at least 4). 0: n < 4 (use smo). */
long svm_batch_size(long n, long asked, double row_budget_bytes);

/* Does `auto` (or the asked solver) pick batch for this problem? */
int svm_batch_wanted(const svm_params *p, long n, const svm_extra *ex);

/* m(alpha) - M(alpha): max over I_up of -y G + max over I_low of y G. */
double svm_batch_violation(const double *alpha, const double *G, const signed char *y, long n,
			   double Cp, double Cn);

/* Fills ws[keep..q) with points not in ws[0..keep): alternately the next
 * I_up point by -y G and the next I_low point by y G, largest first, ties
 * to the smaller index; when both run out, the smallest free indices.
 * mark: [n] scratch, all 0 on entry and on return. */
rt_status svm_batch_select(const double *alpha, const double *G, const signed char *y, long n,
			   double Cp, double Cn, long *ws, long keep, long q, unsigned char *mark,
			   rt_error *err);

/* A selection candidate: its key (-y G in I_up's list, y G in I_low's)
 * and point; the order: key descending, then point ascending. */
typedef struct svm_batch_cand {
	double key;
	long i;
} svm_batch_cand;

/* The most candidates of each list a selection of q points can reach
 * (each list gives at most q - keep points and skips at most keep kept
 * points and q - keep taken from the other list). */
#define SVM_BATCH_HEAD(q) (2 * (q) + 1)

/* svm_batch_select's second half, from each list's best SVM_BATCH_HEAD(q)
 * candidates in order (up[0..nu), low[0..nl)): fills ws[keep..q) of n
 * points; mark as there. The GPU solver picks the heads on the device. */
void svm_batch_take(const svm_batch_cand *up, long nu, const svm_batch_cand *low, long nl,
		    long *ws, long keep, long q, long n, unsigned char *mark);

/* The local SMO on a working set of q points: a, g (in/out), yw, Cw, QDw
 * ([q] each), Qw ([q][q] floats, row-major: Qw[k * q + l] = Q(ws_k, ws_l)).
 * Stops below max(eps, 0.1 * the first step's violation) or after
 * SVM_BATCH_LOCAL_MAX * q steps; *diff0 gets the first step's violation.
 * Returns the steps taken. */
long svm_batch_local(double *a, double *g, const signed char *yw, const double *Cw,
		     const double *QDw, const float *Qw, long q, double eps, int wss, double *diff0);

/* Row i of Q for the points x[idx[0..n)] with signs y into out[n], as the
 * SMO solver's rows (floats, the same bits), over the thread pool; sq[n]
 * the points' |x|^2 (svm_row_sq / d->sq), pivot: sparse data's scratch of
 * nfeat zeros (zeros again on return; NULL for dense). A non-finite value
 * is the solver's overflow error (svm_solver.c). */
rt_status svm_q_row_fill(const svm_data *d, const long *idx, const signed char *y, long n,
			 const svm_kernel_params *k, double *sq, double *pivot, long i, float *out,
			 rt_error *err);

/* LIBSVM's iteration limit (smo_loop's): p->max_iter, else max(10^7, 100 n). */
long svm_batch_max_iter(const svm_params *p, long n);
/* Is a checkpoint due after the outer iteration that took the local steps
 * from prev to it (a multiple of --checkpoint-every passed, the time, a
 * stop requested)? */
int svm_batch_ckpt_due(struct svm_ckpt *ck, long prev, long it);

/* svm_solve_general's problem solved by batches on the CPU / on device 0. */
rt_status svm_batch_solve(const svm_data *d, const long *idx, const signed char *y, long n,
			  const svm_params *p, double Cp, double Cn, const svm_extra *ex, long pair,
			  svm_binary *out, rt_error *err);
rt_status svm_gpu_batch_solve(const svm_data *d, const long *idx, const signed char *y, long n,
			      const svm_params *p, double Cp, double Cn, const svm_extra *ex,
			      long pair, svm_binary *out, rt_error *err);
/* The generated CUDA source of svm_gpu_batch_solve's kernels (nfeat < 0:
 * sparse rows), compiled with svm_gpu_nvrtc_options. */
rt_status svm_gpu_batch_source(const svm_params *p, int nfeat, gen_source *src, rt_error *err);

#endif
