/* svm_gpu_batch.c: the batched working-set solver of one binary problem on
 * device 0 (svm_batch.h; templates/svm/svm_batch.cu; [svm] solver = batch
 * with the GPU backend). The device holds the points, G, a mirror of alpha
 * and the kernel rows of the set's q points (the kept half's rows stay in
 * their slots: only slot numbers rotate). Per outer iteration: each list's
 * head picked on the device (svm_batch_pick) and brought back, the
 * violation and the set taken from them on the host (svm_batch_take, the
 * CPU's rule), one upload (the set's alpha and points), three launches (the
 * new rows, the local SMO in one block, the gradient of every point) and
 * one download (the set's new alpha and the step count); G comes back only
 * for history rows, checkpoints and the end. The arithmetic is the CPU
 * solver's (svm_batch.c), so for the same q both give the same alpha bit for
 * bit; q's default differs (the rows' budget: cache_mb on the CPU,
 * gpu_cache_mb or half the free device memory here). Checkpoints and history
 * rows at outer iterations, as on the CPU. */
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gen.h"
#include "gpu.h"
#include "log.h"
#include "nvrtc.h"
#include "signals.h"
#include "svm_batch.h"
#include "svm_ckpt.h"
#include "timeline.h"

#define BATCH_ROW_THREADS 256    /* svm_batch.cu's SVM_THREADS */
#define BATCH_ROWS_PER_BLOCK 16  /* its SVM_BATCH_ROWS (dense) by default */
#define BATCH_GRAD_THREADS 128   /* its SVM_BATCH_GRAD_THREADS */
#define BATCH_LOCAL_THREADS 512  /* its SVM_BATCH_LOCAL_THREADS by default (H100, a9a q 1024: local SMO 0.338 s at 512 threads, 0.407 s at 256, 0.423 s at 1024, 0.585 s at 128) */

/* One problem on the device, and the host's side of it. */
typedef struct bgpu {
	const svm_data *d;
	const long *idx;
	const signed char *y;
	long n, q, pair;
	const svm_params *p;
	const svm_extra *ex;
	double Cp, Cn;
	int npad, off;             /* off: the slot rotation, 0 or q / 2 */
	gpu_context *ctx;
	gpu_module *mod;
	int smem_optin;            /* the device's shared memory per block */
	gpu_ptr xt, xr, xptr, xcol, xval;   /* dense: column-major padded, row-major; or CSR */
	gpu_ptr sq, yd, QD, rows, QS, G, in, nzd, nzs, nz;
	int use_smem;              /* the local SMO's q x q block in shared memory */
	unsigned local_smem, local_threads;
	double *alpha, *QDh;       /* [n] */
	double *Gh;                /* pinned [n + q + 2]: G, the set's new alpha, steps, diff0 */
	void *inh;                 /* pinned: the set's alpha [q] (double), points [q] (int) */
	long *ws;                  /* [q] */
	unsigned char *mark;       /* [n] zeros */
	long it0;                  /* resumed: the steps done before */
	int done0;
	svm_history *hist;
	gpu_ptr alpha_d, pick;     /* alpha on the device; svm_batch_pick's lists */
	long m;                    /* SVM_BATCH_HEAD(q): each list's head */
	int P;                     /* the power of two >= m (the pick's sort) */
	double *pickh;             /* pinned: the lists as svm_batch_pick writes them */
	svm_batch_cand *up, *low;  /* [m] each: the lists' heads */
	long nu, nl;
	int profile;               /* EVOFORGE_SVM_BATCH_PROFILE set: each phase timed (syncs) */
	double t_select, t_rows, t_local, t_grad, t_copy;   /* seconds per phase */
	long sets;                 /* outer iterations */
	int have_ws, resume_ws;    /* svm_batch.c's: ws holds a set; the first keeps a checkpoint's */
} bgpu;

/* With b->profile, waits for the device and adds the time since *t0 to *acc. */
static rt_status phase(bgpu *b, double *t0, double *acc, rt_error *err)
{
	rt_status st;
	if (!b->profile)
		return RT_OK;
	if ((st = gpu_sync(b->ctx, err)) != RT_OK)
		return st;
	double now = rt_now();
	*acc += now - *t0;
	*t0 = now;
	return RT_OK;
}

/* The local SMO's threads at most: BATCH_LOCAL_THREADS, or
 * EVOFORGE_SVM_BATCH_LOCAL_THREADS (128, 256, 512 or 1024; for measuring). */
static int local_threads_max(void)
{
	const char *env = getenv("EVOFORGE_SVM_BATCH_LOCAL_THREADS");
	int t = env ? atoi(env) : 0;
	return t == 128 || t == 256 || t == 512 || t == 1024 ? t : BATCH_LOCAL_THREADS;
}

/* Dense rows per block of svm_batch_rows: BATCH_ROWS_PER_BLOCK, or
 * EVOFORGE_SVM_BATCH_ROWS (8, 16 or 32; for measuring). */
static int rows_per_block(void)
{
	const char *env = getenv("EVOFORGE_SVM_BATCH_ROWS");
	int r = env ? atoi(env) : 0;
	return r == 8 || r == 16 || r == 32 ? r : BATCH_ROWS_PER_BLOCK;
}

rt_status svm_gpu_batch_source(const svm_params *p, int nfeat, gen_source *src, rt_error *err)
{
	svm_gpu_source_begin(p, nfeat, "svm-batch",
			     "the batched working-set solver's rows, local SMO and gradient", src);
	gen_line(src, "#define SVM_MODULE 3");
	gen_line(src, "#define SVM_BATCH_LOCAL_THREADS %d", local_threads_max());
	gen_line(src, "#define SVM_BATCH_ROWS %d", rows_per_block());
	return gen_template(src, "svm/svm_batch.cu", err);
}

/* The module for the problem's storage, kernel and rule, on device 0. */
static rt_status open_module(bgpu *b, rt_error *err)
{
	gen_source src;
	gpu_info info;
	rt_status st;
	memset(&src, 0, sizeof src);
	memset(&info, 0, sizeof info);
	if ((st = svm_gpu_batch_source(b->p, b->d->sparse ? -b->d->nfeat : b->d->nfeat, &src,
				       err)) == RT_OK)
		st = svm_gpu_load(&src, &info, &b->ctx, &b->mod, err);
	b->smem_optin = info.smem_per_block_optin > info.smem_per_block ? info.smem_per_block_optin
									 : info.smem_per_block;
	gen_free(&src);
	return st;
}

/* Dense: the points row-major (the pivots' features in a row; d->x itself
 * when the problem is the whole set in order) and column-major (npad rows,
 * for the threads' reads of x_t), transposed on the device. */
static rt_status put_dense(bgpu *b, rt_error *err)
{
	size_t nf = (size_t)b->d->nfeat, n = (size_t)b->n, np = (size_t)b->npad;
	int whole = b->n == b->d->n, in = (int)n, inp = (int)np, inf = (int)nf;
	for (size_t t = 0; whole && t < n; t++)
		whole = b->idx[t] == (long)t;
	float *xr = whole ? NULL : rt_malloc(n * nf * sizeof *xr + 1, err);
	if (!whole && !xr)
		return RT_ERR_SYSTEM;
	for (size_t t = 0; !whole && t < n; t++)
		memcpy(xr + t * nf, b->d->x + (size_t)b->idx[t] * nf, nf * sizeof *xr);
	rt_status st = gpu_alloc_upload(b->ctx, whole ? b->d->x : xr, n * nf * sizeof *xr, &b->xr, err);
	free(xr);
	if (st != RT_OK || (st = gpu_alloc(b->ctx, np * nf * sizeof *xr, &b->xt, err)) != RT_OK)
		return st;
	void *args[] = { &b->xr, &b->xt, &in, &inp, &inf };
	gpu_launch_cfg cfg = { { (unsigned)(np / 32), (unsigned)((nf + 31) / 32), 1 }, { 32, 8, 1 }, 0,
			       NULL };
	return gpu_launch(b->mod, "svm_batch_transpose", &cfg, args, err);
}

/* Sparse: the problem's points as CSR rows of their own. */
static rt_status put_sparse(bgpu *b, rt_error *err)
{
	const svm_csr *c = &b->d->csr;
	long long nnz = 0;
	for (long t = 0; t < b->n; t++)
		nnz += c->ptr[b->idx[t] + 1] - c->ptr[b->idx[t]];
	long long *ptr = rt_malloc(((size_t)b->n + 1) * sizeof *ptr, err);
	int *col = ptr ? rt_malloc((size_t)nnz * sizeof *col + 1, err) : NULL;
	float *val = col ? rt_malloc((size_t)nnz * sizeof *val + 1, err) : NULL;
	rt_status st = val ? RT_OK : RT_ERR_SYSTEM;
	if (st == RT_OK)
		ptr[0] = 0;
	for (long t = 0; st == RT_OK && t < b->n; t++) {
		long from = c->ptr[b->idx[t]], len = c->ptr[b->idx[t] + 1] - from;
		memcpy(col + ptr[t], c->col + from, (size_t)len * sizeof *col);
		memcpy(val + ptr[t], c->val + from, (size_t)len * sizeof *val);
		ptr[t + 1] = ptr[t] + len;
	}
	if (st == RT_OK &&
	    (st = gpu_alloc_upload(b->ctx, ptr, ((size_t)b->n + 1) * sizeof *ptr, &b->xptr, err)) == RT_OK &&
	    (st = gpu_alloc_upload(b->ctx, col, (size_t)nnz * sizeof *col, &b->xcol, err)) == RT_OK)
		st = gpu_alloc_upload(b->ctx, val, (size_t)nnz * sizeof *val, &b->xval, err);
	free(ptr);
	free(col);
	free(val);
	return st;
}

/* |x|^2 and the diagonal as the CPU solver computes them, the signs, G
 * (n doubles of the download buffer), the q row slots, the q x q block and
 * the per-set buffers. */
static rt_status put_problem(bgpu *b, rt_error *err)
{
	size_t n = (size_t)b->n, q = (size_t)b->q;
	const svm_data *d = b->d;
	double *sq = rt_malloc(n * sizeof *sq + 1, err);
	rt_status st = sq ? RT_OK : RT_ERR_SYSTEM;
	for (size_t t = 0; st == RT_OK && t < n; t++) {
		long i = b->idx[t];
		sq[t] = d->sparse ? d->sq[i] : svm_row_sq(d, i, d->nfeat);
		b->QDh[t] = d->sparse ? svm_kernel_dot(&b->p->kernel, sq[t], sq[t], sq[t])
			    : svm_kernel(&b->p->kernel, d->x + (size_t)i * d->nfeat,
					 d->x + (size_t)i * d->nfeat, d->nfeat, sq[t], sq[t]);
	}
	if (st == RT_OK && (st = gpu_alloc_upload(b->ctx, sq, n * 8, &b->sq, err)) == RT_OK &&
	    (st = gpu_alloc_upload(b->ctx, b->QDh, n * 8, &b->QD, err)) == RT_OK &&
	    (st = gpu_alloc_upload(b->ctx, b->y, n, &b->yd, err)) == RT_OK &&
	    (st = gpu_alloc(b->ctx, (n + q + 2) * 8, &b->G, err)) == RT_OK &&
	    (st = gpu_upload(b->ctx, b->G, b->Gh, n * 8, err)) == RT_OK &&
	    (st = gpu_alloc(b->ctx, q * 12, &b->in, err)) == RT_OK &&
	    (st = gpu_alloc(b->ctx, q * 8, &b->nzd, err)) == RT_OK &&
	    (st = gpu_alloc(b->ctx, q * 4, &b->nzs, err)) == RT_OK &&
	    (st = gpu_alloc(b->ctx, 8, &b->nz, err)) == RT_OK &&
	    (st = gpu_alloc(b->ctx, q * q * 4, &b->QS, err)) == RT_OK &&
	    (st = gpu_alloc(b->ctx, q * (size_t)b->npad * 4, &b->rows, err)) != RT_OK)
		rt_error_prefix(err, "%ld kernel rows of %ld points (%.0f MB)", b->q, b->n,
				(double)q * b->npad * 4 / 1048576.0);
	free(sq);
	return st;
}

/* The local SMO's launch: q threads rounded up to warps, at most
 * local_threads_max() (each thread then owns several points); its q x q
 * block in shared memory when it fits (EVOFORGE_SVM_BATCH_SMEM=0: never). */
static rt_status local_setup(bgpu *b, rt_error *err)
{
	const char *env = getenv("EVOFORGE_SVM_BATCH_SMEM");
	size_t base = (size_t)b->q * (5 * 8 + 1), block = (size_t)b->q * b->q * 4;
	long threads = (b->q + 31) / 32 * 32, most = local_threads_max();
	size_t stat = (size_t)(most / 32) * 68 + 64;   /* its static words: 68 bytes a warp */
	b->local_threads = (unsigned)(threads < most ? threads : most);
	b->use_smem = !(env && !strcmp(env, "0")) && base + block + stat <= (size_t)b->smem_optin;
	b->local_smem = (unsigned)((base + (b->use_smem ? block : 0) + 7) / 8 * 8);
	if (b->local_smem > 48 * 1024)
		return gpu_kernel_attrs(b->mod, "svm_batch_local", (int)b->local_smem, -1, err);
	return RT_OK;
}

/* The device's side of the selection: alpha there, the lists' buffers,
 * the sort's shared memory. */
static rt_status pick_setup(bgpu *b, rt_error *err)
{
	size_t m = (size_t)(b->m = SVM_BATCH_HEAD(b->q)), bytes = 2 * m * 8 + (2 * m + 2) * 4;
	rt_status st;
	for (b->P = 1; b->P < (int)m; b->P *= 2)
		;
	if (!(b->up = rt_malloc(2 * m * sizeof *b->up, err)))
		return RT_ERR_SYSTEM;
	b->low = b->up + m;
	if ((st = gpu_alloc_upload(b->ctx, b->alpha, (size_t)b->n * 8, &b->alpha_d, err)) ||
	    (st = gpu_alloc(b->ctx, bytes, &b->pick, err)) ||
	    (st = gpu_host_alloc(b->ctx, bytes, (void **)&b->pickh, err)))
		return st;
	return gpu_kernel_attrs(b->mod, "svm_batch_pick", b->P * 12, -1, err);
}

/* Each list's head picked on the device (svm_batch_pick; after set t - 1,
 * whose new alpha it stores first) and brought back; *diff the violation
 * (svm_batch_violation's: the lists' first keys). */
static rt_status pick(bgpu *b, long t, double *diff, rt_error *err)
{
	int n = (int)b->n, qprev = t > 0 ? (int)b->q : 0, m = (int)b->m, P = b->P;
	gpu_ptr newa = b->G + (gpu_ptr)n * 8, ws = b->in + (gpu_ptr)b->q * 8;
	void *args[] = { &b->alpha_d, &b->G, &b->yd, &n, &b->Cp, &b->Cn, &newa, &ws, &qprev, &m, &P,
			 &b->pick };
	gpu_launch_cfg cfg = { { 2, 1, 1 }, { 1024, 1, 1 }, (unsigned)P * 12, NULL };
	size_t bytes = 2 * (size_t)m * 8 + (2 * (size_t)m + 2) * 4;
	double t0 = rt_now();
	rt_status st = gpu_launch(b->mod, "svm_batch_pick", &cfg, args, err);
	if (st || (st = gpu_download(b->ctx, b->pickh, b->pick, bytes, err)))
		return st;
	const int *idx = (const int *)(b->pickh + 2 * (size_t)m);
	b->nu = idx[2 * m];
	b->nl = idx[2 * m + 1];
	for (long r = 0; r < b->nu; r++)
		b->up[r] = (svm_batch_cand){ b->pickh[r], idx[r] };
	for (long r = 0; r < b->nl; r++)
		b->low[r] = (svm_batch_cand){ b->pickh[m + r], idx[m + r] };
	*diff = (b->nu ? b->up[0].key : -INFINITY) + (b->nl ? b->low[0].key : -INFINITY);
	b->t_select += rt_now() - t0;
	return RT_OK;
}

/* G brought back (history rows, checkpoints and the end need it). */
static rt_status fetch_g(bgpu *b, rt_error *err)
{
	return gpu_download(b->ctx, b->Gh, b->G, (size_t)b->n * 8, err);
}

/* The rows budget: gpu_cache_mb, else half the free device memory. */
static rt_status row_budget(bgpu *b, double *bytes, rt_error *err)
{
	size_t free_b = 0, total_b = 0;
	*bytes = b->p->gpu_cache_mb * 1048576.0;
	if (*bytes > 0)
		return RT_OK;
	rt_status st = gpu_mem_info(b->ctx, &free_b, &total_b, err);
	*bytes = 0.5 * (double)free_b;
	return st;
}

/* Host arrays (before q is known: alpha, QD, mark) and G's start. */
static rt_status host_begin(bgpu *b, rt_error *err)
{
	b->alpha = rt_calloc((size_t)b->n + 1, sizeof *b->alpha, err);
	b->QDh = rt_malloc((size_t)b->n * sizeof *b->QDh + 1, err);
	b->mark = rt_calloc((size_t)b->n + 1, 1, err);
	if (!b->alpha || !b->QDh || !b->mark)
		return RT_ERR_SYSTEM;
	return RT_OK;
}

/* The device side set up: module, q, buffers, points. */
static rt_status setup(bgpu *b, const double *G0, rt_error *err)
{
	double budget = 0;
	rt_mark("svm batch: module");
	rt_status st = open_module(b, err);
	rt_mark("svm batch: buffers and points");
	if (st == RT_OK && (st = row_budget(b, &budget, err)) == RT_OK) {
		b->q = svm_batch_size(b->n, b->p->batch_size, budget);
		if (b->q < 4 || b->q > SVM_BATCH_MAX_Q)
			return rt_fail(err, RT_ERR_INTERNAL, "svm: batch_size %ld for %ld points", b->q, b->n);
	}
	if (st == RT_OK &&
	    (st = gpu_host_alloc(b->ctx, ((size_t)b->n + b->q + 2) * 8, (void **)&b->Gh, err)) == RT_OK &&
	    (st = gpu_host_alloc(b->ctx, (size_t)b->q * 12, &b->inh, err)) == RT_OK &&
	    !(b->ws = rt_malloc((size_t)b->q * sizeof *b->ws, err)))
		st = RT_ERR_SYSTEM;
	if (st == RT_OK) {
		memcpy(b->Gh, G0, (size_t)b->n * sizeof *G0);
		st = b->d->sparse ? put_sparse(b, err) : put_dense(b, err);
	}
	if (st == RT_OK && (st = put_problem(b, err)) == RT_OK && (st = local_setup(b, err)) == RT_OK)
		st = pick_setup(b, err);
	rt_mark("svm batch: set up");
	return st;
}

static void release(bgpu *b)
{
	gpu_ptr *p[] = { &b->xt, &b->xr, &b->xptr, &b->xcol, &b->xval, &b->sq, &b->yd, &b->QD,
			 &b->rows, &b->QS, &b->G, &b->in, &b->nzd, &b->nzs, &b->nz, &b->alpha_d,
			 &b->pick };
	for (size_t k = 0; b->ctx && k < sizeof p / sizeof p[0]; k++)
		if (*p[k])
			gpu_free(b->ctx, *p[k]);
	if (b->ctx && b->Gh)
		gpu_host_free(b->ctx, b->Gh);
	if (b->ctx && b->inh)
		gpu_host_free(b->ctx, b->inh);
	if (b->ctx && b->pickh)
		gpu_host_free(b->ctx, b->pickh);
	free(b->up);
	if (b->mod)
		gpu_module_unload(b->mod);
	if (b->ctx)
		gpu_context_close(b->ctx);
	free(b->alpha);
	free(b->QDh);
	free(b->ws);
	free(b->mark);
}

/* The three launches of a set whose points ws[first..q) are new. */
static rt_status launch_set(bgpu *b, int first, rt_error *err)
{
	int n = (int)b->n, npad = b->npad, q = (int)b->q, off = b->off, smem = b->use_smem;
	gpu_ptr ws = b->in + (gpu_ptr)q * 8, out = b->G + (gpu_ptr)n * 8;
	svm_kernel_params kp = b->p->kernel;
	double eps = b->p->eps;
	long long max_steps = (long long)SVM_BATCH_LOCAL_MAX * q;
	unsigned xblocks = (unsigned)((n + BATCH_ROW_THREADS - 1) / BATCH_ROW_THREADS);
	unsigned yblocks = b->d->sparse ? (unsigned)(q - first)
			   : (unsigned)((q - first + rows_per_block() - 1) / rows_per_block());
	void *dense[] = { &b->xt, &b->xr, &b->sq, &b->yd, &n, &npad, &kp, &ws, &q, &first, &off,
			  &b->rows, &b->QS };
	void *csr[] = { &b->xptr, &b->xcol, &b->xval, &b->sq, &b->yd, &n, &npad, &kp, &ws, &q, &first,
			&off, &b->rows, &b->QS };
	void *local[] = { &b->G, &b->yd, &b->QD, &b->QS, &b->in, &ws, &q, &off, &b->Cp, &b->Cn, &eps,
			  &max_steps, &smem, &out, &b->nzd, &b->nzs, &b->nz };
	void *grad[] = { &b->G, &b->rows, &n, &npad, &b->nzd, &b->nzs, &b->nz };
	gpu_launch_cfg rows = { { xblocks, yblocks, 1 }, { BATCH_ROW_THREADS, 1, 1 }, 0, NULL };
	gpu_launch_cfg one = { { 1, 1, 1 }, { b->local_threads, 1, 1 }, b->local_smem, NULL };
	gpu_launch_cfg all = { { (unsigned)((n + BATCH_GRAD_THREADS - 1) / BATCH_GRAD_THREADS), 1, 1 },
			       { BATCH_GRAD_THREADS, 1, 1 }, 0, NULL };
	rt_status st;
	double t0 = rt_now();
	if ((st = gpu_launch(b->mod, "svm_batch_rows", &rows, b->d->sparse ? csr : dense, err)) ||
	    (st = phase(b, &t0, &b->t_rows, err)) ||
	    (st = gpu_launch(b->mod, "svm_batch_local", &one, local, err)) ||
	    (st = phase(b, &t0, &b->t_local, err)) ||
	    (st = gpu_launch(b->mod, "svm_batch_grad", &all, grad, err)))
		return st;
	return phase(b, &t0, &b->t_grad, err);
}

/* Outer iteration t: the set (the newer half of the last one kept, t > 0),
 * its alpha up, the launches, G and the set's alpha back; *steps the local
 * SMO's. */
static rt_status outer_step(bgpu *b, long t, long *steps, rt_error *err)
{
	long q = b->q, keep = t == 0 && !b->resume_ws ? 0 : q / 2, first = t == 0 ? 0 : keep;
	double *a = b->inh;
	int *w32 = (int *)(a + q);
	rt_status st;
	for (long k = 0; k < keep; k++)
		b->ws[k] = b->ws[k + keep];
	b->off = t == 0 ? 0 : (int)(b->off == 0 ? q / 2 : 0);
	b->have_ws = 1;
	double t0 = rt_now();
	svm_batch_take(b->up, b->nu, b->low, b->nl, b->ws, keep, q, b->n, b->mark);
	b->t_select += rt_now() - t0;
	b->sets++;
	for (long k = 0; k < q; k++) {
		a[k] = b->alpha[b->ws[k]];
		w32[k] = (int)b->ws[k];
	}
	if ((st = gpu_upload(b->ctx, b->in, b->inh, (size_t)q * 12, err)) ||
	    (st = launch_set(b, (int)first, err)))
		return st;
	t0 = rt_now();
	if ((st = gpu_download(b->ctx, b->Gh + b->n, b->G + (gpu_ptr)b->n * 8, ((size_t)q + 2) * 8,
			       err)))
		return st;
	b->t_copy += rt_now() - t0;
	for (long k = 0; k < q; k++)
		b->alpha[b->ws[k]] = b->Gh[b->n + k];
	*steps = (long)b->Gh[b->n + q];
	return RT_OK;
}

/* ---- the outer loop (svm_batch.c's: history, checkpoints, limits) ---- */

/* Records the state (Gh as fetched) in the run's checkpoint table. */
static rt_status record(bgpu *b, long it, int done, int write, rt_error *err)
{
	return svm_ckpt_record_ws(b->p->ckpt, b->p->ckpt_model, b->pair, b->n, b->alpha, b->Gh, it,
				  done, b->hist, b->ws, b->have_ws ? b->q : 0, write, err);
}

static rt_status history(bgpu *b, long prev, long it, int first, rt_error *err)
{
	rt_status st = RT_OK;
	if (b->hist && b->hist->every > 0 && (first || it / b->hist->every > prev / b->hist->every) &&
	    (st = fetch_g(b, err)) == RT_OK)
		svm_history_add(b->hist, it, b->alpha, b->Gh, b->y, b->n, b->Cp, b->Cn);
	return st;
}

static rt_status loop_end(bgpu *b, long it, long max_iter, int done, rt_error *err)
{
	svm_ckpt *ck = b->p->ckpt;
	rt_status st = fetch_g(b, err);   /* the end's G: rho, the objective, the last rows */
	if (st != RT_OK)
		return st;
	if (!done && it >= max_iter && b->p->limit_expected != 1 && !rt_stop_requested())
		rt_warn("svm: reached the iteration limit (%ld) before the tolerance", max_iter);
	if (b->hist && (done || it >= max_iter))
		svm_history_add(b->hist, it, b->alpha, b->Gh, b->y, b->n, b->Cp, b->Cn);
	if (ck && !b->done0 && (done || it >= max_iter || rt_stop_requested()))
		return record(b, it, done, svm_ckpt_write_finished(ck), err);
	return RT_OK;
}

/* Outer iterations until the violation is below eps, a set takes no step,
 * or the local steps reach max_iter; a stop requested ends them between two. */
static rt_status outer_loop(bgpu *b, long *iterations, rt_error *err)
{
	long max_iter = svm_batch_max_iter(b->p, b->n), it = b->it0, prev = it, t = 0;
	int done = b->done0;
	double last_report = rt_now();
	rt_status st = RT_OK;
	for (; !done && it < max_iter && !rt_stop_requested(); t++) {
		long steps = 0;
		double diff;
		if ((st = history(b, prev, it, t == 0, err)) != RT_OK ||
		    (st = pick(b, t, &diff, err)) != RT_OK)
			return st;
		if (diff < b->p->eps) {
			done = 1;
			break;
		}
		if ((st = outer_step(b, t, &steps, err)) != RT_OK)
			return st;
		if (steps == 0) {   /* no step on the best violators: a stall (as the CPU) */
			done = 1;
			break;
		}
		prev = it;
		it += steps;
		if (b->p->ckpt && svm_batch_ckpt_due(b->p->ckpt, prev, it) &&
		    ((st = fetch_g(b, err)) != RT_OK || (st = record(b, it, 0, 1, err)) != RT_OK))
			return st;
		if (rt_now() - last_report > 5) {
			last_report = rt_now();
			rt_info("svm (GPU batch): %ld sets, %ld steps, violation %.6g", t + 1, it, diff);
		}
	}
	*iterations = it;
	return loop_end(b, it, max_iter, done, err);
}

/* G's start (svm_initial_gradient, or a checkpoint's), the device set up,
 * the history begun, then the loop. */
static rt_status run(bgpu *b, svm_binary *out, rt_error *err)
{
	const svm_params *p = b->p;
	rt_mark("svm batch: initial gradient");
	double *G0 = rt_malloc((size_t)b->n * sizeof *G0 + 1, err);
	rt_status st = G0 ? RT_OK : RT_ERR_SYSTEM;
	if (st == RT_OK)
		st = svm_initial_gradient(b->d, b->idx, b->y, b->n, &p->kernel, b->ex, b->alpha, G0, err);
	if (st == RT_OK && p->history && (st = svm_history_start(&out->hist, b->n, p->history, err)) == RT_OK)
		b->hist = &out->hist;
	int resumed = st == RT_OK && p->ckpt &&
		      svm_ckpt_find(p->ckpt, p->ckpt_model, b->pair, b->n, b->alpha, G0, &b->it0,
				    &b->done0, b->hist);
	if (st == RT_OK)
		st = setup(b, G0, err);
	if (st == RT_OK && resumed)   /* the checkpoint's set: the first keeps its newer half */
		b->have_ws = b->resume_ws =
			svm_ckpt_find_ws(p->ckpt, p->ckpt_model, b->pair, b->ws, b->q);
	free(G0);
	double t0 = rt_now();
	const char *prof = getenv("EVOFORGE_SVM_BATCH_PROFILE");
	b->profile = prof && *prof && strcmp(prof, "0");
	rt_mark("svm batch: loop");
	if (st == RT_OK && (st = outer_loop(b, &out->iterations, err)) == RT_OK &&
	    (rt_now() - t0 > 1 || b->profile))
		rt_info("svm (GPU batch): %ld points, q %ld (the q x q block in %s memory), %ld steps "
			"in %ld sets, %.2f s", b->n, b->q, b->use_smem ? "shared" : "global",
			out->iterations, b->sets, rt_now() - t0);
	if (st == RT_OK && b->profile)
		rt_info("svm (GPU batch) phases: select %.3f s, rows %.3f s, local SMO %.3f s, "
			"gradient %.3f s, G back %.3f s", b->t_select, b->t_rows, b->t_local,
			b->t_grad, b->t_copy);
	return st;
}

rt_status svm_gpu_batch_solve(const svm_data *d, const long *idx, const signed char *y, long n,
			      const svm_params *p, double Cp, double Cn, const svm_extra *ex,
			      long pair, svm_binary *out, rt_error *err)
{
	bgpu b = { .d = d, .idx = idx, .y = y, .n = n, .p = p, .ex = ex, .Cp = Cp, .Cn = Cn,
		   .pair = pair };
	rt_status st;
	if (ex && ex->nu)
		return rt_fail(err, RT_ERR_INPUT, "svm: solver = batch does not take the nu forms "
			       "(-s 1, -s 4); use solver = smo");
	if (svm_batch_size(n, p->batch_size, INFINITY) == 0) {   /* fewer than 4 points: SMO */
		svm_params smo = *p;
		smo.gpu = 1;
		return svm_solve_general(d, idx, y, n, &smo, Cp, Cn, ex, pair, out, err);
	}
	if (n > 0x7fffffffL - 32)
		return rt_fail(err, RT_ERR_UNSUPPORTED, "svm: %ld points is more than the GPU "
			       "solver's 2^31 - 32", n);
	if (!d->sparse && d->nfeat > SVM_GPU_MAX_FEATURES)
		return rt_fail(err, RT_ERR_UNSUPPORTED, "svm: %d features is more than the GPU solver's "
			       "%d (dense rows); use --backend cpu", d->nfeat, SVM_GPU_MAX_FEATURES);
	memset(out, 0, sizeof *out);
	b.npad = (int)((n + 31) / 32 * 32);
	st = svm_check_diagonal(d, idx, n, &p->kernel, err);
	if (st == RT_OK && (st = host_begin(&b, err)) == RT_OK)
		st = run(&b, out, err);
	if (st == RT_OK) {
		long iterations = out->iterations;
		svm_binary_finish_ex(out, b.alpha, b.Gh, y, n, Cp, Cn, ex);
		out->iterations = iterations;
		b.alpha = NULL;
	} else {
		svm_history_free(&out->hist);
	}
	rt_mark("svm batch: release");
	release(&b);
	rt_mark("svm batch: released");
	if (st != RT_OK && st != RT_ERR_NOGPU)
		rt_error_prefix(err, "svm (GPU batch)");
	return st == RT_OK ? svm_check_solved(out, n, err) : st;
}
