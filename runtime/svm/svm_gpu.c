/* svm_gpu.c: binary C-SVC problems solved on the GPU
 * (templates/svm/svm.cu): each problem's points uploaded column-major and
 * padded, the generated source specialised to the kernel type, feature
 * count and working-set rule, then either
 *   persistent (default): cooperative launches of up to SVM_GPU_LAUNCH
 *     iterations in which many problems (the pairs of a one-vs-one model)
 *     run at once, each on its own team of blocks with its own LRU cache of
 *     kernel rows on the device (gpu_cache_mb in all; 0: half the free
 *     device memory, at most every row), or
 *     Problems on the points of one data set (a model's pairs, the folds
 *     of a cross-validation, the cells of a grid) share that set's Gram
 *     matrix when it fits on the device: every dot product computed once
 *     (svm_gram), a missed row then costs a gather instead of n x features
 *     reads, or
 *   roles: one problem at a time, batches of SVM_GPU_BATCH iterations of
 *     eight per-role launches;
 * after each launch or batch only the 48-byte solver states come back (and,
 * with p->history, alpha and G at a history row's iteration: launches and
 * batches end there).
 * Sparse data: each problem's points go up as CSR rows, the module is built
 * with SVM_SPARSE (kernel rows by merging the row's point's non-zeros with
 * each point's, svm.cu's svm_row_csr_part), and there is no Gram matrix. rho,
 * the objective and the counts come from the final alpha and G as on the
 * CPU (svm_binary_finish). EVOFORGE_SVM_BLOCKS_PER_SM sets the persistent
 * grid (blocks per SM, default what fits). svm_gpu_bandwidth
 * measures the kernels against a copy. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gen.h"
#include "gpu.h"
#include "log.h"
#include "nvrtc.h"
#include "svm_ckpt.h"
#include "svm_impl.h"
#include "signals.h"

#define SVM_GPU_THREADS 256
#define SVM_GPU_BATCH 256
#define SVM_GPU_LAUNCH 4096

typedef struct gpu_state {
	int i, j, done, in;
	long long iterations;
	double gmax, gmax2, dai, daj, gmaxn;
} gpu_state;

/* One problem of a persistent launch: svm.cu's svm_task, field for field. */
typedef struct gpu_task {
	gpu_ptr xt, sq, QD, y, alpha, G, pv, pg, pi, st, rows, row_slot, slot_row, prev, next, c, bar;
	gpu_ptr gram, gidx;
	long long gram_n;
	gpu_ptr xptr, xcol, xval;  /* sparse: the points' CSR rows */
	svm_kernel_params kp;
	double Cp, Cn, eps;
	int n, npad, first_block, nblocks;
	int nu, pad;               /* nu 1: the nu-form's working pair */
} gpu_task;

/* A problem's device buffers (the task's, and the roles kernels' two rows). */
typedef struct gpu_problem {
	gpu_task t;
	gpu_ptr row_i, row_j;
	long slots;
	gpu_state state;
	svm_history *hist;         /* p->history: the problem's rows (its out->hist), else NULL */
} gpu_problem;

/* A data set problems take their points from, and its Gram matrix. */
typedef struct gpu_root {
	const svm_data *d;
	gpu_ptr gram;              /* 0: not on the device */
} gpu_root;

/* The device, the compiled module and the problems on it. */
typedef struct svm_gpu {
	gpu_context *ctx;
	gpu_module *mod;
	int sm_count, parts;       /* parts: block results a problem can hold */
	int count;
	int history_pairs;         /* p->history */
	gpu_problem *pr;
	gpu_root *roots;           /* [nroots] */
	int nroots;
} svm_gpu;

static const char *const nvrtc_options[] = { "--fmad=false", "-Xptxas", "-v" };

void svm_gpu_source_begin(const svm_params *p, int nfeat, const char *stem, const char *what,
			  gen_source *src)
{
	char name[96];
	if (nfeat < 0)   /* sparse rows: the source does not depend on the feature count */
		snprintf(name, sizeof name, "%s-k%d-sparse-w%d.cu", stem, p->kernel.type, p->wss);
	else
		snprintf(name, sizeof name, "%s-k%d-f%d-w%d.cu", stem, p->kernel.type, nfeat, p->wss);
	gen_begin(src, name, what);
	gen_line(src, "#define SVM_KERNEL %d", p->kernel.type);
	gen_line(src, "#define SVM_FEATURES %d", nfeat < 0 ? 1 : nfeat);
	gen_line(src, "#define SVM_WSS %d", p->wss);
	gen_line(src, "#define SVM_SPARSE %d", nfeat < 0);
}

rt_status svm_gpu_source(const svm_params *p, int nfeat, gen_source *src, rt_error *err)
{
	svm_gpu_source_begin(p, nfeat, "svm", "SMO for binary C-SVC problems", src);
	gen_line(src, "#define SVM_MODULE %d", p->gpu_module_all ? 0 : p->gpu_roles ? 2 : 1);
	return gen_template(src, "svm/svm.cu", err);
}

const char *const *svm_gpu_nvrtc_options(int *n)
{
	*n = (int)(sizeof nvrtc_options / sizeof nvrtc_options[0]);
	return nvrtc_options;
}

rt_status svm_gpu_load(const gen_source *src, gpu_info *info, gpu_context **ctx,
		       gpu_module **mod, rt_error *err)
{
	nvrtc_output out;
	char arch[32];
	rt_status st;
	memset(&out, 0, sizeof out);
	if ((st = gpu_open(err)) || (st = gpu_device_info(0, info, err)))
		return st;
	gpu_arch_name(info, arch, sizeof arch);
	if ((st = nvrtc_compile(src->name, src->text.data, arch, nvrtc_options, 3, &out, err)) ==
		    RT_OK &&
	    (st = gpu_context_open(0, ctx, err)) == RT_OK)
		st = gpu_module_load(*ctx, out.cubin, out.size, mod, err);
	nvrtc_output_free(&out);
	return st;
}

static rt_status open_module(svm_gpu *g, const svm_data *d, const svm_params *p, rt_error *err)
{
	gen_source src;
	gpu_info info;
	rt_status st;
	memset(&src, 0, sizeof src);
	memset(&info, 0, sizeof info);
	if ((st = svm_gpu_source(p, d->nfeat, &src, err)) == RT_OK)
		st = svm_gpu_load(&src, &info, &g->ctx, &g->mod, err);
	g->sm_count = info.sm_count > 0 ? info.sm_count : 128;
	g->parts = g->sm_count * 4;
	gen_free(&src);
	return st;
}

static rt_status put(svm_gpu *g, gpu_ptr *dst, const void *src, size_t bytes, rt_error *err)
{
	rt_status st = gpu_alloc(g->ctx, bytes ? bytes : 8, dst, err);
	return st == RT_OK && src ? gpu_upload(g->ctx, *dst, src, bytes, err) : st;
}

/* Host copies of a problem's points (column-major, padded; or CSR rows for
 * sparse data), norms and diagonal, and G = -1. */
typedef struct host_problem {
	float *xt;
	double *sq, *qd, *G;
	long long *ptr;            /* sparse: [n + 1] */
	int *col;
	float *val;
} host_problem;

/* Sparse data: the problem's points as CSR rows of their own, norms from
 * the data (the same sums as dense), diagonal K(x, x) from |x|^2. */
static rt_status host_problem_sparse(const svm_data *d, const long *idx, long n,
				     const svm_kernel_params *kp, host_problem *h, rt_error *err)
{
	long long nnz = 0;
	for (long t = 0; t < n; t++)
		nnz += d->csr.ptr[idx[t] + 1] - d->csr.ptr[idx[t]];
	h->ptr = rt_malloc(((size_t)n + 1) * sizeof *h->ptr, err);
	h->col = rt_malloc((size_t)nnz * sizeof *h->col + 1, err);
	h->val = rt_malloc((size_t)nnz * sizeof *h->val + 1, err);
	h->sq = rt_malloc((size_t)n * sizeof *h->sq + 1, err);
	h->qd = rt_malloc((size_t)n * sizeof *h->qd + 1, err);
	h->G = rt_malloc((size_t)n * sizeof *h->G + 1, err);
	if (!h->ptr || !h->col || !h->val || !h->sq || !h->qd || !h->G)
		return RT_ERR_SYSTEM;
	h->ptr[0] = 0;
	for (long t = 0; t < n; t++) {
		long from = d->csr.ptr[idx[t]], len = d->csr.ptr[idx[t] + 1] - from;
		memcpy(h->col + h->ptr[t], d->csr.col + from, (size_t)len * sizeof *h->col);
		memcpy(h->val + h->ptr[t], d->csr.val + from, (size_t)len * sizeof *h->val);
		h->ptr[t + 1] = h->ptr[t] + len;
		h->sq[t] = d->sq[idx[t]];
		h->qd[t] = svm_kernel_dot(kp, h->sq[t], h->sq[t], h->sq[t]);
		h->G[t] = -1.0;
	}
	return RT_OK;
}

static rt_status host_problem_make(const svm_data *d, const long *idx, long n, long npad,
				   const svm_kernel_params *kp, host_problem *h, rt_error *err)
{
	size_t nf = (size_t)d->nfeat;
	if (d->sparse)
		return host_problem_sparse(d, idx, n, kp, h, err);
	h->xt = rt_calloc((size_t)npad * nf, sizeof *h->xt, err);
	h->sq = rt_malloc((size_t)n * sizeof *h->sq + 1, err);
	h->qd = rt_malloc((size_t)n * sizeof *h->qd + 1, err);
	h->G = rt_malloc((size_t)n * sizeof *h->G + 1, err);
	if (!h->xt || !h->sq || !h->qd || !h->G)
		return RT_ERR_SYSTEM;
	for (long t = 0; t < n; t++) {
		const float *x = d->x + (size_t)idx[t] * nf;
		double q = 0;
		for (size_t f = 0; f < nf; f++) {
			h->xt[f * (size_t)npad + (size_t)t] = x[f];
			q += (double)x[f] * x[f];
		}
		h->sq[t] = q;
		h->qd[t] = svm_kernel(kp, x, x, (int)nf, q, q);
		h->G[t] = -1.0;
	}
	return RT_OK;
}

static void host_problem_free(host_problem *h)
{
	free(h->xt);
	free(h->sq);
	free(h->qd);
	free(h->G);
	free(h->ptr);
	free(h->col);
	free(h->val);
}

/* Sparse: the problem's CSR rows. */
static rt_status put_rows(svm_gpu *g, gpu_problem *q, const host_problem *h, rt_error *err)
{
	size_t n = (size_t)q->t.n, nnz = (size_t)h->ptr[n];
	rt_status st = put(g, &q->t.xptr, h->ptr, (n + 1) * sizeof *h->ptr, err);
	if (st == RT_OK && (st = put(g, &q->t.xcol, h->col, nnz * sizeof *h->col, err)) == RT_OK)
		st = put(g, &q->t.xval, h->val, nnz * sizeof *h->val, err);
	return st;
}

/* A problem's points, norms, labels, diagonal, alpha = 0, G = -1, state,
 * the blocks' parts and the roles kernels' rows. */
static rt_status upload(svm_gpu *g, gpu_problem *q, const svm_gpu_problem *pr, svm_ckpt *ck,
			rt_error *err)
{
	const svm_data *d = pr->d;
	const long *idx = pr->idx;
	const signed char *y = pr->y;
	const svm_kernel_params *kp = &q->t.kp;
	size_t n = (size_t)q->t.n, np = (size_t)q->t.npad, nf = (size_t)d->nfeat;
	host_problem h;
	gpu_state st0;
	double *alpha = NULL;
	rt_status st;
	memset(&h, 0, sizeof h);
	memset(&st0, 0, sizeof st0);
	size_t xt_bytes = d->sparse ? 0 : np * nf * sizeof *h.xt;   /* sparse: 8 unused bytes */
	if ((st = host_problem_make(d, idx, (long)n, (long)np, kp, &h, err)) == RT_OK && d->sparse)
		st = put_rows(g, q, &h, err);
	if (st == RT_OK && q->hist)
		st = svm_history_start(q->hist, (long)n, g->history_pairs, err);
	if (st == RT_OK && (ck || pr->ex) && !(alpha = rt_malloc(n * sizeof *alpha + 1, err)))
		st = RT_ERR_SYSTEM;
	if (st == RT_OK && pr->ex)   /* the general problem's start, as the CPU's */
		st = svm_initial_gradient(d, idx, y, (long)n, kp, pr->ex, alpha, h.G, err);
	if (st == RT_OK && ck) {   /* resumed: alpha, G, the count and history as recorded */
		long it = 0;
		int done = 0;
		if (svm_ckpt_find(ck, pr->model, pr->pair, (long)n, alpha, h.G, &it, &done,
				  q->hist))
			st0 = (gpu_state){ .done = done, .iterations = it };
		else if (!pr->ex) {
			free(alpha);
			alpha = NULL;
		}
		q->state = st0;
	}
	if (st == RT_OK &&
	    (st = put(g, &q->t.xt, h.xt, xt_bytes, err)) == RT_OK &&
	    (st = put(g, &q->t.sq, h.sq, n * 8, err)) == RT_OK &&
	    (st = put(g, &q->t.y, y, n, err)) == RT_OK && (st = put(g, &q->t.QD, h.qd, n * 8, err)) == RT_OK &&
	    (st = put(g, &q->t.G, h.G, n * 8, err)) == RT_OK &&
	    (st = put(g, &q->t.alpha, alpha, n * 8, err)) == RT_OK &&
	    (alpha || (st = gpu_memset32(g->ctx, q->t.alpha, 0, n * 2, err)) == RT_OK) &&
	    (st = put(g, &q->row_i, NULL, n * 4, err)) == RT_OK &&
	    (st = put(g, &q->row_j, NULL, n * 4, err)) == RT_OK &&
	    (st = put(g, &q->t.st, &st0, sizeof st0, err)) == RT_OK &&
	    (st = put(g, &q->t.pv, NULL, (size_t)g->parts * 16, err)) == RT_OK &&   /* the nu-form: */
	    (st = put(g, &q->t.pi, NULL, (size_t)g->parts * 8, err)) == RT_OK)     /* two per block */
		st = put(g, &q->t.pg, NULL, (size_t)g->parts * 16, err);
	host_problem_free(&h);
	free(alpha);
	return st;
}

static rt_status launch(svm_gpu *g, const char *name, unsigned blocks, void **args, rt_error *err)
{
	gpu_launch_cfg cfg = { { blocks, 1, 1 }, { SVM_GPU_THREADS, 1, 1 }, 0, NULL };
	return gpu_launch(g->mod, name, &cfg, args, err);
}

/* One SMO iteration of problem q, queued: pick i, row i, pick j, step,
 * row j, gradient. */
static rt_status queue_iteration(svm_gpu *g, gpu_problem *q, rt_error *err)
{
	gpu_task *t = &q->t;
	int zero = 0, one = 1, nparts = g->parts;
	void *pick0[] = { &t->G, &t->alpha, &t->y, &t->n, &t->Cp, &t->Cn, &t->st, &t->pv, &t->pi,
			  &t->pg };
	void *pick1[] = { &t->G, &t->alpha, &t->y, &q->row_i, &t->QD, &t->n, &t->Cp, &t->Cn, &t->st,
			  &one, &t->pv, &t->pi, &t->pg };
	void *fin0[] = { &t->pv, &t->pi, &t->pg, &nparts, &t->st, &zero, &t->eps };
	void *fin1[] = { &t->pv, &t->pi, &t->pg, &nparts, &t->st, &one, &t->eps };
	void *row0[] = { &t->xt, &t->sq, &t->y, &t->n, &t->npad, &t->st, &zero, &t->kp, &q->row_i };
	void *row1[] = { &t->xt, &t->sq, &t->y, &t->n, &t->npad, &t->st, &one, &t->kp, &q->row_j };
	void *csr0[] = { &t->xptr, &t->xcol, &t->xval, &t->sq, &t->y, &t->n, &t->st, &zero, &t->kp,
			 &q->row_i };
	void *csr1[] = { &t->xptr, &t->xcol, &t->xval, &t->sq, &t->y, &t->n, &t->st, &one, &t->kp,
			 &q->row_j };
	const char *row = t->xptr ? "svm_row_csr" : "svm_row";
	void *step[] = { &t->alpha, &t->G, &t->y, &t->QD, &q->row_i, &t->Cp, &t->Cn, &t->st };
	void *grad[] = { &t->G, &q->row_i, &q->row_j, &t->n, &t->st };
	gpu_launch_cfg one_thread = { { 1, 1, 1 }, { 1, 1, 1 }, 0, NULL };
	unsigned b = (unsigned)g->parts;
	rt_status st;
	if ((st = launch(g, "svm_pick_i", b, pick0, err)) ||
	    (st = launch(g, "svm_pick_finish", 1, fin0, err)) ||
	    (st = launch(g, row, b, t->xptr ? csr0 : row0, err)) ||
	    (st = launch(g, "svm_pick_blocks", b, pick1, err)) ||
	    (st = launch(g, "svm_pick_finish", 1, fin1, err)) ||
	    (st = gpu_launch(g->mod, "svm_step", &one_thread, step, err)) ||
	    (st = launch(g, row, b, t->xptr ? csr1 : row1, err)))
		return st;
	return launch(g, "svm_grad", b, grad, err);
}

static void problem_release(svm_gpu *g, gpu_problem *q)
{
	gpu_ptr *p[] = { &q->t.xt, &q->t.sq, &q->t.QD, &q->t.y, &q->t.alpha, &q->t.G, &q->t.pv,
			 &q->t.pg, &q->t.pi, &q->t.st, &q->t.rows, &q->t.row_slot, &q->t.slot_row,
			 &q->t.prev, &q->t.next, &q->t.c, &q->t.bar, &q->t.gidx, &q->row_i, &q->row_j,
			 &q->t.xptr, &q->t.xcol, &q->t.xval };
	for (size_t k = 0; k < sizeof p / sizeof p[0]; k++)
		if (*p[k])
			gpu_free(g->ctx, *p[k]);
}

static void release(svm_gpu *g)
{
	if (g->ctx)
		for (int k = 0; g->pr && k < g->count; k++)
			problem_release(g, &g->pr[k]);
	for (int r = 0; g->ctx && r < g->nroots; r++)
		if (g->roots[r].gram)
			gpu_free(g->ctx, g->roots[r].gram);
	free(g->roots);
	free(g->pr);
	if (g->mod)
		gpu_module_unload(g->mod);
	if (g->ctx)
		gpu_context_close(g->ctx);
}

/* Rows each problem's cache holds: gpu_cache_mb (or half the free memory)
 * shared in proportion to n^2, at most n rows, at least 2. */
static rt_status cache_budget(svm_gpu *g, const svm_params *p, double *bytes, rt_error *err)
{
	size_t free_b = 0, total_b = 0;
	*bytes = p->gpu_cache_mb * 1048576.0;
	if (*bytes > 0)
		return RT_OK;
	if (gpu_mem_info(g->ctx, &free_b, &total_b, err) != RT_OK)
		return RT_ERR_SYSTEM;
	*bytes = 0.5 * (double)free_b;
	return RT_OK;
}

/* The LRU cache of q: no row cached, slots listed 0 (most recent) .. S - 1. */
static rt_status setup_cache(svm_gpu *g, gpu_problem *q, long S, rt_error *err)
{
	long n = q->t.n;
	int *row_slot = rt_malloc((size_t)n * sizeof *row_slot, err), head_tail[8] = { 0 };
	int *slot_row = rt_malloc((size_t)S * sizeof *slot_row, err);
	int *prev = rt_malloc((size_t)S * sizeof *prev, err), *next = rt_malloc((size_t)S * sizeof *next, err);
	rt_status st = row_slot && slot_row && prev && next ? RT_OK : RT_ERR_SYSTEM;
	q->slots = S;
	for (long t = 0; st == RT_OK && t < n; t++)
		row_slot[t] = -1;
	for (long s = 0; st == RT_OK && s < S; s++) {
		slot_row[s] = -1;
		prev[s] = (int)s - 1;
		next[s] = s + 1 < S ? (int)s + 1 : -1;
	}
	head_tail[1] = (int)S - 1;
	if (st == RT_OK && (st = put(g, &q->t.rows, NULL, (size_t)S * q->t.npad * 4, err)) == RT_OK &&
	    (st = put(g, &q->t.row_slot, row_slot, (size_t)n * 4, err)) == RT_OK &&
	    (st = put(g, &q->t.slot_row, slot_row, (size_t)S * 4, err)) == RT_OK &&
	    (st = put(g, &q->t.prev, prev, (size_t)S * 4, err)) == RT_OK &&
	    (st = put(g, &q->t.next, next, (size_t)S * 4, err)) == RT_OK &&
	    (st = put(g, &q->t.c, head_tail, sizeof head_tail, err)) == RT_OK)
		st = put(g, &q->t.bar, NULL, 8, err);
	free(row_slot);
	free(slot_row);
	free(prev);
	free(next);
	if (st != RT_OK)
		rt_error_prefix(err, "kernel-row cache of %ld rows (%.0f MB)", S,
				(double)S * q->t.npad * 4 / 1048576.0);
	return st;
}

/* Every problem's cache, the budget shared in proportion to n^2. */
static rt_status setup_caches(svm_gpu *g, const svm_params *p, rt_error *err)
{
	double bytes, sum_n2 = 0;
	rt_status st = cache_budget(g, p, &bytes, err);
	for (int k = 0; k < g->count; k++)
		sum_n2 += (double)g->pr[k].t.n * g->pr[k].t.n;
	for (int k = 0; st == RT_OK && k < g->count; k++) {
		gpu_problem *q = &g->pr[k];
		double share = bytes * ((double)q->t.n * q->t.n / sum_n2);
		double S = share / ((double)q->t.npad * sizeof(float));
		long least = q->t.nu ? 3 : 2;   /* the nu-form holds i+, i- and j */
		st = setup_cache(g, q, S < least ? least : S > q->t.n ? q->t.n : (long)S, err);
	}
	return st;
}

/* Blocks resident at once for the persistent kernel: [svm] gpu_blocks_per_sm,
 * else EVOFORGE_SVM_BLOCKS_PER_SM, per SM (default: what fits; a9a alone
 * measured the same with 1, 2, 4), at most what fits and what the parts
 * hold (4). */
static rt_status persistent_capacity(svm_gpu *g, const svm_params *p, int *capacity, rt_error *err)
{
	const char *env = getenv("EVOFORGE_SVM_BLOCKS_PER_SM");
	int want = env && atoi(env) > 0 ? atoi(env) : 4, fit = 0;
	if (p->gpu_blocks_per_sm >= 1 && p->gpu_blocks_per_sm <= 4)
		want = p->gpu_blocks_per_sm;
	rt_status st = gpu_occupancy(g->mod, "svm_persistent", SVM_GPU_THREADS, 0, &fit, err);
	if (st != RT_OK)
		return st;
	if (fit < 1)
		return rt_fail(err, RT_ERR_UNSUPPORTED, "svm_persistent does not fit on an SM");
	want = want > fit ? fit : want > 4 ? 4 : want;
	*capacity = g->sm_count * want;
	return RT_OK;
}

/* Teams for the problems still running (first come first): blocks in
 * proportion to n, at least 1, no more than the points fill; problems that
 * do not fit wait for a later launch. Fills block_task; *nblocks in all,
 * *iters the iterations every launched problem may still make. */
static int plan_launch(svm_gpu *g, int capacity, long max_iter, int *block_task, int *nblocks,
		       int *iters)
{
	double sum_n = 0;
	int used = 0, launched = 0;
	*iters = SVM_GPU_LAUNCH;
	for (int k = 0; k < g->count; k++)
		if (!g->pr[k].state.done && g->pr[k].state.iterations < max_iter)
			sum_n += g->pr[k].t.n;
	for (int k = 0; k < g->count && used < capacity; k++) {
		gpu_problem *q = &g->pr[k];
		if (q->state.done || q->state.iterations >= max_iter)
			continue;
		int fill = (q->t.n + SVM_GPU_THREADS - 1) / SVM_GPU_THREADS;
		int share = (int)(capacity * (q->t.n / sum_n));
		int b = share < 1 ? 1 : share > fill ? fill : share;
		if (b > capacity - used)
			b = capacity - used;
		q->t.first_block = used;
		q->t.nblocks = b;
		for (int i = 0; i < b; i++)
			block_task[used + i] = launched;
		used += b;
		launched++;
		if (max_iter - q->state.iterations < *iters)
			*iters = (int)(max_iter - q->state.iterations);
		if (svm_history_to_next(q->hist, (long)q->state.iterations) < *iters)   /* a row's end */
			*iters = (int)svm_history_to_next(q->hist, (long)q->state.iterations);
	}
	*nblocks = used;
	return launched;
}

/* One launch: the planned tasks uploaded, barriers zeroed, then the states
 * read back. */
static rt_status launch_planned(svm_gpu *g, int launched, const int *block_task, int nblocks,
				int iters, gpu_ptr d_tasks, gpu_ptr d_map, long max_iter,
				rt_error *err)
{
	gpu_task tasks[256];
	int at[256], m = 0;
	rt_status st = RT_OK;
	for (int k = 0; k < g->count && m < launched; k++) {
		gpu_problem *q = &g->pr[k];
		if (q->state.done || q->state.iterations >= max_iter)
			continue;
		tasks[m] = q->t;
		at[m++] = k;
		if ((st = gpu_memset32(g->ctx, q->t.bar, 0, 2, err)))
			return st;
	}
	void *args[] = { &d_tasks, &d_map, &iters };
	gpu_launch_cfg cfg = { { (unsigned)nblocks, 1, 1 }, { SVM_GPU_THREADS, 1, 1 }, 0, NULL };
	if ((st = gpu_upload(g->ctx, d_tasks, tasks, (size_t)m * sizeof *tasks, err)) ||
	    (st = gpu_upload(g->ctx, d_map, block_task, (size_t)nblocks * sizeof *block_task, err)) ||
	    (st = gpu_launch_cooperative(g->mod, "svm_persistent", &cfg, args, err)))
		return st;
	for (int k = 0; k < m && st == RT_OK; k++)
		st = gpu_download(g->ctx, &g->pr[at[k]].state, g->pr[at[k]].t.st,
				  sizeof(gpu_state), err);
	return st;
}

/* Every problem's alpha, G and state into the run's checkpoint table, then
 * the file written. */
static rt_status record_all(svm_gpu *g, const svm_params *p, const svm_gpu_problem *pr,
			    rt_error *err)
{
	long n_max = 1;
	for (int k = 0; k < g->count; k++)
		n_max = g->pr[k].t.n > n_max ? g->pr[k].t.n : n_max;
	double *alpha = rt_malloc((size_t)n_max * sizeof *alpha, err), *G;
	G = alpha ? rt_malloc((size_t)n_max * sizeof *G, err) : NULL;
	rt_status st = alpha && G ? RT_OK : RT_ERR_SYSTEM;
	for (int k = 0; k < g->count && st == RT_OK; k++) {
		gpu_problem *q = &g->pr[k];
		size_t bytes = (size_t)q->t.n * sizeof *alpha;
		if ((st = gpu_download(g->ctx, alpha, q->t.alpha, bytes, err)) == RT_OK &&
		    (st = gpu_download(g->ctx, G, q->t.G, bytes, err)) == RT_OK)
			st = svm_ckpt_record(p->ckpt, pr[k].model, pr[k].pair, q->t.n, alpha, G,
					     (long)q->state.iterations, q->state.done, q->hist,
					     k == g->count - 1, err);
	}
	free(alpha);
	free(G);
	return st;
}

/* The history rows due now (a problem at a multiple of its interval, or
 * stopped at the tolerance or max_iter): alpha and G read back for them. */
static rt_status history_rows(svm_gpu *g, const svm_gpu_problem *pr, long max_iter,
			      rt_error *err)
{
	double *alpha = NULL, *G = NULL;
	rt_status st = RT_OK;
	for (int k = 0; k < g->count && st == RT_OK; k++) {
		gpu_problem *q = &g->pr[k];
		long it = (long)q->state.iterations, n = q->t.n;
		if (!q->hist || !(svm_history_due(q->hist, it) || q->state.done || it >= max_iter) ||
		    (q->hist->n > 0 && q->hist->rows[q->hist->n - 1].iteration >= it))
			continue;
		free(alpha);
		free(G);
		alpha = rt_malloc((size_t)n * sizeof *alpha, err);
		G = alpha ? rt_malloc((size_t)n * sizeof *G, err) : NULL;
		if (!G)
			st = RT_ERR_SYSTEM;
		else if ((st = gpu_download(g->ctx, alpha, q->t.alpha, (size_t)n * 8, err)) == RT_OK &&
			 (st = gpu_download(g->ctx, G, q->t.G, (size_t)n * 8, err)) == RT_OK)
			svm_history_add(q->hist, it, alpha, G, pr[k].y, n, q->t.Cp, q->t.Cn);
	}
	free(alpha);
	free(G);
	return st;
}

/* After a launch (before: the states before it): the checkpoint when one
 * is due: a stop, the time, or with every N a problem that passed a
 * multiple of N iterations or finished (so on the GPU a checkpoint comes at
 * the end of the launch, of at most SVM_GPU_LAUNCH iterations, in which
 * the count passed the multiple). */
static rt_status checkpoint_due(svm_gpu *g, const svm_params *p, const svm_gpu_problem *pr,
				const gpu_state *before, rt_error *err)
{
	svm_ckpt *ck = p->ckpt;
	int due = rt_stop_requested() || (ck->plan.every == 0 && rt_now() - ck->plan.last >= ck->plan.seconds);
	for (int k = 0; !due && ck->plan.every > 0 && k < g->count; k++) {
		const gpu_state *now = &g->pr[k].state;
		due = before[k].iterations / ck->plan.every != now->iterations / ck->plan.every ||
		      (now->done && !before[k].done);
	}
	return due ? record_all(g, p, pr, err) : RT_OK;
}

/* The states of every problem now (for checkpoint_due after a launch). */
static void states_before(const svm_gpu *g, gpu_state *before)
{
	for (int k = 0; before && k < g->count; k++)
		before[k] = g->pr[k].state;
}

/* Persistent launches until every problem is done or at max_iter. */
static rt_status run_persistent(svm_gpu *g, const svm_params *p, const svm_gpu_problem *pr,
				long max_iter, gpu_state *before, rt_error *err)
{
	int capacity = 0, launched, nblocks, iters, *block_task = NULL;
	gpu_ptr d_tasks = 0, d_map = 0;
	double last_report = rt_now();
	rt_status st;
	if ((st = setup_caches(g, p, err)) || (st = persistent_capacity(g, p, &capacity, err)))
		return st;
	if (capacity > 256)
		capacity = 256;   /* at most 256 problems and blocks per launch */
	if (!(block_task = rt_malloc((size_t)capacity * sizeof *block_task, err)))
		return RT_ERR_SYSTEM;
	if ((st = put(g, &d_tasks, NULL, 256 * sizeof(gpu_task), err)) == RT_OK &&
	    (st = put(g, &d_map, NULL, (size_t)capacity * sizeof(int), err)) == RT_OK)
		st = history_rows(g, pr, max_iter, err);
	while (st == RT_OK && !rt_stop_requested() &&
	       (launched = plan_launch(g, capacity, max_iter, block_task, &nblocks, &iters)) > 0) {
		states_before(g, before);
		st = launch_planned(g, launched, block_task, nblocks, iters, d_tasks, d_map, max_iter,
				    err);
		if (st == RT_OK)
			st = history_rows(g, pr, max_iter, err);
		if (st == RT_OK && before)
			st = checkpoint_due(g, p, pr, before, err);
		if (st == RT_OK && g->count == 1 && rt_now() - last_report > 5) {
			last_report = rt_now();
			rt_info("svm (GPU): %lld iterations, violation %.6g", g->pr[0].state.iterations,
				g->pr[0].state.gmax + g->pr[0].state.gmax2);
		}
	}
	if (d_tasks)
		gpu_free(g->ctx, d_tasks);
	if (d_map)
		gpu_free(g->ctx, d_map);
	free(block_task);
	return st;
}

/* Batches of queued per-role iterations, one problem after another. */
static rt_status run_roles(svm_gpu *g, const svm_params *p, const svm_gpu_problem *pr,
			  long max_iter, gpu_state *before, rt_error *err)
{
	rt_status st = history_rows(g, pr, max_iter, err);
	for (int k = 0; k < g->count; k++) {
		gpu_problem *q = &g->pr[k];
		while (st == RT_OK && !q->state.done && q->state.iterations < max_iter &&
		       !rt_stop_requested()) {
			long batch = max_iter - q->state.iterations < SVM_GPU_BATCH ?
				     max_iter - (long)q->state.iterations : SVM_GPU_BATCH;
			long to_row = svm_history_to_next(q->hist, (long)q->state.iterations);
			batch = to_row < batch ? to_row : batch;   /* a history row's end */
			states_before(g, before);
			for (long i = 0; st == RT_OK && i < batch; i++)
				st = queue_iteration(g, q, err);
			if (st == RT_OK)
				st = gpu_download(g->ctx, &q->state, q->t.st, sizeof q->state, err);
			if (st == RT_OK)
				st = history_rows(g, pr, max_iter, err);
			if (st == RT_OK && before)
				st = checkpoint_due(g, p, pr, before, err);
		}
	}
	return st;
}

/* alpha and G of problem k back; rho, objective and counts from them. */
static rt_status finish(svm_gpu *g, int k, svm_gpu_problem *pr, const svm_params *p,
		       long max_iter, rt_error *err)
{
	gpu_problem *q = &g->pr[k];
	long n = q->t.n;
	double *alpha = rt_malloc((size_t)n * sizeof *alpha + 1, err), *G;
	G = alpha ? rt_malloc((size_t)n * sizeof *G + 1, err) : NULL;
	rt_status st = alpha && G ? RT_OK : RT_ERR_SYSTEM;
	if (st == RT_OK && !q->state.done && p->limit_expected != 1 && !rt_stop_requested())
		rt_warn("svm: reached the iteration limit (%ld) before the tolerance", max_iter);
	if (st == RT_OK && (st = gpu_download(g->ctx, alpha, q->t.alpha, (size_t)n * 8, err)) == RT_OK &&
	    (st = gpu_download(g->ctx, G, q->t.G, (size_t)n * 8, err)) == RT_OK) {
		svm_binary_finish_ex(pr->out, alpha, G, pr->y, n, q->t.Cp, q->t.Cn, pr->ex);
		pr->out->iterations = (long)q->state.iterations;
		alpha = NULL;
	}
	free(alpha);
	free(G);
	return st;
}

/* ---- Gram matrices shared by the problems of one root ---- */

static const svm_data *root_of(const svm_gpu_problem *pr)
{
	return pr->from.root ? pr->from.root : pr->d;
}

/* The distinct roots of the problems. */
static rt_status find_roots(svm_gpu *g, const svm_gpu_problem *pr, rt_error *err)
{
	if (!(g->roots = rt_calloc((size_t)g->count, sizeof *g->roots, err)))
		return RT_ERR_SYSTEM;
	for (int k = 0; k < g->count; k++) {
		int r = 0;
		while (r < g->nroots && g->roots[r].d != root_of(&pr[k]))
			r++;
		if (r == g->nroots)
			g->roots[g->nroots++].d = root_of(&pr[k]);
	}
	return RT_OK;
}

/* Root r's Gram matrix on the device, when it fits in a third of the free
 * memory (else gram stays 0 and rows come from the points). */
static rt_status compute_gram(svm_gpu *g, gpu_root *r, const svm_params *p, rt_error *err)
{
	long n = r->d->n, npad = (n + 31) / 32 * 32;
	size_t free_b = 0, total_b = 0, bytes = (size_t)n * (size_t)n * sizeof(double);
	host_problem h;
	gpu_ptr xt = 0;
	long *idx = NULL;
	rt_status st = gpu_mem_info(g->ctx, &free_b, &total_b, err);
	if (st != RT_OK || (double)bytes > free_b / 3.0 || n > 0x7fffffffL - 64)
		return st;
	memset(&h, 0, sizeof h);
	if (!(idx = rt_malloc((size_t)n * sizeof *idx + 1, err)))
		return RT_ERR_SYSTEM;
	for (long t = 0; t < n; t++)
		idx[t] = t;
	int n32 = (int)n, np32 = (int)npad;
	void *args[] = { &xt, &np32, &n32, &r->gram };
	unsigned tiles = (unsigned)((n + 63) / 64);
	gpu_launch_cfg cfg = { { tiles, tiles, 1 }, { SVM_GPU_THREADS, 1, 1 }, 0, NULL };
	double t0 = rt_now();
	if ((st = host_problem_make(r->d, idx, n, npad, &p->kernel, &h, err)) == RT_OK &&
	    (st = put(g, &xt, h.xt, (size_t)npad * r->d->nfeat * sizeof *h.xt, err)) == RT_OK &&
	    (st = put(g, &r->gram, NULL, bytes, err)) == RT_OK &&
	    (st = gpu_launch(g->mod, "svm_gram", &cfg, args, err)) == RT_OK &&
	    (st = gpu_sync(g->ctx, err)) == RT_OK)
		rt_info("svm (GPU): Gram matrix of %ld points (%.2f GB) in %.3f s", n, bytes / 1e9,
			rt_now() - t0);
	if (xt)
		gpu_free(g->ctx, xt);
	host_problem_free(&h);
	free(idx);
	return st;
}

/* Problem k's points as indices into its root, on the device. */
static rt_status attach_gram(svm_gpu *g, gpu_problem *q, const svm_gpu_problem *pr,
			     const gpu_root *r, rt_error *err)
{
	int *gidx = rt_malloc((size_t)pr->n * sizeof *gidx + 1, err);
	rt_status st = gidx ? RT_OK : RT_ERR_SYSTEM;
	for (long t = 0; st == RT_OK && t < pr->n; t++)
		gidx[t] = (int)(pr->from.rows ? pr->from.rows[pr->idx[t]] : pr->idx[t]);
	if (st == RT_OK && (st = put(g, &q->t.gidx, gidx, (size_t)pr->n * sizeof *gidx, err)) == RT_OK) {
		q->t.gram = r->gram;
		q->t.gram_n = r->d->n;
	}
	free(gidx);
	return st;
}

/* Gram matrices for the roots that fit (in the order the problems name
 * them), attached to their problems. EVOFORGE_SVM_GRAM=0: none. */
static rt_status setup_grams(svm_gpu *g, const svm_params *p, const svm_gpu_problem *pr,
			     rt_error *err)
{
	const char *env = getenv("EVOFORGE_SVM_GRAM");
	rt_status st;
	if ((env && !strcmp(env, "0")) || (st = find_roots(g, pr, err)) != RT_OK)
		return env && !strcmp(env, "0") ? RT_OK : st;
	for (int r = 0; st == RT_OK && r < g->nroots; r++)
		st = compute_gram(g, &g->roots[r], p, err);
	for (int k = 0; st == RT_OK && k < g->count; k++)
		for (int r = 0; r < g->nroots; r++)
			if (g->roots[r].d == root_of(&pr[k]) && g->roots[r].gram)
				st = attach_gram(g, &g->pr[k], &pr[k], &g->roots[r], err);
	if (st != RT_OK)
		rt_error_prefix(err, "Gram matrix");
	return st;
}

/* The problems' tasks: sizes, bounds, kernel, tolerance; data uploaded. */
static rt_status upload_all(svm_gpu *g, const svm_params *p, svm_gpu_problem *pr, rt_error *err)
{
	rt_status st = RT_OK;
	for (int k = 0; k < g->count && st == RT_OK; k++) {
		gpu_problem *q = &g->pr[k];
		if (pr[k].n > 0x7fffffffL - 32)
			return rt_fail(err, RT_ERR_UNSUPPORTED, "svm: %ld points is more than the GPU "
				       "solver's 2^31 - 32", pr[k].n);
		memset(pr[k].out, 0, sizeof *pr[k].out);
		q->hist = p->history ? &pr[k].out->hist : NULL;
		q->t.n = (int)pr[k].n;
		q->t.npad = (int)((pr[k].n + 31) / 32 * 32);
		q->t.kp = pr[k].kernel;
		q->t.Cp = pr[k].Cp;
		q->t.Cn = pr[k].Cn;
		q->t.eps = p->eps;
		q->t.nu = pr[k].ex && pr[k].ex->nu;
		if (q->t.nu && p->gpu_roles)
			return rt_fail(err, RT_ERR_UNSUPPORTED, "svm: the nu-forms (nu-SVC, nu-SVR) run on "
				       "the GPU's persistent kernel only, not gpu_kernels = roles");
		if (pr[k].d->nfeat != pr[0].d->nfeat || pr[k].kernel.type != p->kernel.type ||
		    pr[k].d->sparse != pr[0].d->sparse)
			return rt_fail(err, RT_ERR_INTERNAL, "svm: problems solved together need one "
				       "feature count, storage and kernel type");
		st = upload(g, q, &pr[k], p->ckpt, err);
	}
	return st;
}

rt_status svm_gpu_solve_many(const svm_params *p, svm_gpu_problem *pr, int count, rt_error *err)
{
	svm_gpu g;
	long n_max = 0, max_iter;
	rt_status st;
	memset(&g, 0, sizeof g);
	if (count < 1)
		return RT_OK;
	for (int k = 0; k < count; k++)
		n_max = pr[k].n > n_max ? pr[k].n : n_max;
	max_iter = p->max_iter > 0 ? p->max_iter : (100 * n_max > 10000000 ? 100 * n_max : 10000000);
	if (!pr[0].d->sparse && pr[0].d->nfeat > SVM_GPU_MAX_FEATURES)
		return rt_fail(err, RT_ERR_UNSUPPORTED, "svm: %d features is more than the GPU solver's "
			       "%d (dense rows); use --backend cpu", pr[0].d->nfeat, SVM_GPU_MAX_FEATURES);
	g.count = count;
	g.history_pairs = p->history;
	if (!(g.pr = rt_calloc((size_t)count, sizeof *g.pr, err)))
		return RT_ERR_SYSTEM;
	/* the module for sparse rows is asked for with a negative feature count */
	svm_data view = *pr[0].d;
	view.nfeat = view.sparse ? -view.nfeat : view.nfeat;
	gpu_state *before = p->ckpt ? rt_calloc((size_t)count, sizeof *before, err) : NULL;
	if (p->ckpt && !before) {
		free(g.pr);
		return RT_ERR_SYSTEM;
	}
	if ((st = open_module(&g, &view, p, err)) == RT_OK && (st = upload_all(&g, p, pr, err)) == RT_OK &&
	    (p->gpu_roles || view.sparse || (st = setup_grams(&g, p, pr, err)) == RT_OK))
		st = p->gpu_roles ? run_roles(&g, p, pr, max_iter, before, err)
				  : run_persistent(&g, p, pr, max_iter, before, err);
	if (st == RT_OK && p->ckpt && rt_stop_requested())   /* a stop between two launches */
		st = record_all(&g, p, pr, err);
	free(before);
	for (int k = 0; k < count && st == RT_OK; k++)
		st = finish(&g, k, &pr[k], p, max_iter, err);
	release(&g);
	if (st != RT_OK && st != RT_ERR_NOGPU)
		rt_error_prefix(err, "svm (GPU)");
	return st;
}

rt_status svm_gpu_solve_binary(const svm_data *d, const long *idx, const signed char *y, long n,
			       const svm_params *p, double Cp, double Cn, long pair, svm_binary *out,
			       rt_error *err)
{
	svm_gpu_problem one = { d, p->kernel, idx, y, n, Cp, Cn, out, { NULL, NULL }, p->ckpt_model,
				pair, NULL };
	return svm_gpu_solve_many(p, &one, 1, err);
}

/* Milliseconds per launch of `name` (reps launches, after one warm-up). */
static rt_status time_kernel(svm_gpu *g, const char *name, unsigned blocks, void **args, int reps,
			     double *ms, rt_error *err)
{
	gpu_timer *t = NULL;
	rt_status st = launch(g, name, blocks, args, err);
	if (st == RT_OK && (st = gpu_sync(g->ctx, err)) == RT_OK &&
	    (st = gpu_timer_create(g->ctx, &t, err)) == RT_OK &&
	    (st = gpu_timer_start(t, NULL, err)) == RT_OK) {
		for (int r = 0; r < reps && st == RT_OK; r++)
			st = launch(g, name, blocks, args, err);
		if (st == RT_OK && (st = gpu_timer_stop(t, NULL, ms, err)) == RT_OK)
			*ms /= reps;
	}
	if (t)
		gpu_timer_destroy(t);
	return st;
}

/* The copy bound: 2 x 256 MB, GB/s counting reads and writes. */
static rt_status copy_bound(svm_gpu *g, double *gbs, rt_error *err)
{
	long long n4 = 16LL << 20;   /* float4s: 256 MB */
	gpu_ptr a = 0, b = 0;
	double ms = 0;
	void *args[] = { &a, &b, &n4 };
	rt_status st = gpu_alloc(g->ctx, (size_t)n4 * 16, &a, err);
	if (st == RT_OK && (st = gpu_alloc(g->ctx, (size_t)n4 * 16, &b, err)) == RT_OK &&
	    (st = gpu_memset32(g->ctx, a, 0, (size_t)n4 * 4, err)) == RT_OK &&
	    (st = time_kernel(g, "svm_copy", (unsigned)g->sm_count * 8, args, 20, &ms, err)) == RT_OK)
		*gbs = 2.0 * (double)n4 * 16 / (ms * 1e6);
	if (a)
		gpu_free(g->ctx, a);
	if (b)
		gpu_free(g->ctx, b);
	return st;
}

rt_status svm_gpu_bandwidth(const svm_data *d, const svm_params *p, svm_gpu_bw *bw, rt_error *err)
{
	svm_gpu g;
	gpu_problem q;
	long n = d->n, *idx = rt_malloc((size_t)n * sizeof *idx + 1, err);
	signed char *y = rt_malloc((size_t)n + 1, err);
	int zero = 0, one = 1;
	gpu_state s0;
	rt_status st = idx && y ? RT_OK : RT_ERR_SYSTEM;
	memset(&g, 0, sizeof g);
	memset(&q, 0, sizeof q);
	memset(bw, 0, sizeof *bw);
	memset(&s0, 0, sizeof s0);
	if (d->sparse) {
		free(idx);
		free(y);
		return rt_fail(err, RT_ERR_UNSUPPORTED, "svm bandwidth: measured on dense data only "
			       "(the data is sparse)");
	}
	for (long t = 0; st == RT_OK && t < n; t++) {
		idx[t] = t;
		y[t] = d->y[t] > 0 ? 1 : -1;
	}
	s0.i = (int)(n / 2);
	s0.gmax = 1.0;
	q.t.n = (int)n;
	q.t.npad = (int)((n + 31) / 32 * 32);
	q.t.kp = p->kernel;
	q.t.Cp = q.t.Cn = p->C;
	gpu_task *t = &q.t;
	void *row[] = { &t->xt, &t->sq, &t->y, &t->n, &t->npad, &t->st, &zero, &t->kp, &q.row_i };
	void *pick_i[] = { &t->G, &t->alpha, &t->y, &t->n, &t->Cp, &t->Cn, &t->st, &t->pv, &t->pi,
			   &t->pg };
	void *pick0[] = { &t->G, &t->alpha, &t->y, &q.row_i, &t->QD, &t->n, &t->Cp, &t->Cn, &t->st,
			  &zero, &t->pv, &t->pi, &t->pg };
	void *pick1[] = { &t->G, &t->alpha, &t->y, &q.row_i, &t->QD, &t->n, &t->Cp, &t->Cn, &t->st,
			  &one, &t->pv, &t->pi, &t->pg };
	void *both[] = { &t->G, &t->alpha, &t->y, &t->n, &t->Cp, &t->Cn, &t->pv, &t->pi, &t->pg };
	gpu_task task;             /* the persistent solver's phase A over the same blocks */
	gpu_ptr none = 0;
	void *phase_a[] = { &task, &none, &none }, *phase_ag[] = { &task, &q.row_i, &q.row_j };
	svm_params all = *p;   /* the bench launches every kernel */
	all.gpu_module_all = 1;
	if (st == RT_OK && (st = open_module(&g, d, &all, err)) == RT_OK &&
	    (st = upload(&g, &q, &(svm_gpu_problem){ .d = d, .idx = idx, .y = y }, NULL, err)) == RT_OK &&
	    (st = gpu_upload(g.ctx, t->st, &s0, sizeof s0, err)) == RT_OK) {
		unsigned b = (unsigned)g.parts;
		task = *t;
		task.first_block = 0;
		task.nblocks = (int)b;
		if ((st = time_kernel(&g, "svm_row", b, row, 100, &bw->row_ms, err)) == RT_OK &&
		    (st = time_kernel(&g, "svm_pick_i", b, pick_i, 100, &bw->pick_i_ms, err)) == RT_OK &&
		    (st = time_kernel(&g, "svm_pick_blocks", b, pick0, 100, &bw->pick_i_old_ms,
				      err)) == RT_OK &&
		    (st = time_kernel(&g, "svm_phase_a_bench", b, phase_a, 100, &bw->phase_a_ms, err)) == RT_OK &&
		    (st = time_kernel(&g, "svm_phase_a_bench", b, phase_ag, 100, &bw->phase_ag_ms, err)) == RT_OK &&
		    (st = time_kernel(&g, "svm_pick_blocks", b, pick1, 100, &bw->pick_j_ms, err)) == RT_OK &&
		    (st = time_kernel(&g, "svm_pick_both", b / 2, both, 100, &bw->pick_both_ms, err)) == RT_OK)
			st = copy_bound(&g, &bw->copy_gbs, err);
	}
	/* bytes each kernel must move: row reads the points, norms and labels and
	 * writes a float row; pick i reads G, alpha, y (8 + 8 + 1 a point: with
	 * alpha = 0 only y = +1 points are in I_up, but they alternate with
	 * y = -1, so every 32-byte sector of G is needed; the blocks' parts and
	 * the state are under 11 KB); phase A with the G update also reads both
	 * rows and writes G (+ 4 + 4 + 8); pick j also the row and QD (WSS2) or
	 * only G, alpha, y (first order); both picks fused read them once. */
	bw->row_gbs = ((double)n * d->nfeat * 4 + n * 13.0) / (bw->row_ms * 1e6);
	bw->pick_i_gbs = n * 17.0 / (bw->pick_i_ms * 1e6);
	bw->pick_i_old_gbs = n * 17.0 / (bw->pick_i_old_ms * 1e6);
	bw->phase_a_gbs = n * 17.0 / (bw->phase_a_ms * 1e6);
	bw->phase_ag_gbs = n * 33.0 / (bw->phase_ag_ms * 1e6);
	bw->pick_j_gbs = n * (p->wss == SVM_WSS_FIRST ? 17.0 : 29.0) / (bw->pick_j_ms * 1e6);
	bw->pick_j1_ms = p->wss == SVM_WSS_FIRST ? bw->pick_j_ms : 0;
	bw->pick_both_gbs = n * 17.0 / (bw->pick_both_ms * 1e6);
	free(idx);
	free(y);
	if (g.ctx)
		problem_release(&g, &q);
	release(&g);
	return st;
}
