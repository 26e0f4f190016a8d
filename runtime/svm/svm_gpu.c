/* svm_gpu.c: one binary C-SVC problem solved on the GPU
 * (templates/svm/svm.cu): the points uploaded column-major and padded, the
 * generated source specialised to the kernel type, feature count and
 * working-set rule, then either
 *   persistent (default): cooperative launches of SVM_GPU_LAUNCH iterations
 *     each, with an LRU cache of kernel rows on the device (gpu_cache_mb;
 *     0: half the free device memory, at most the whole matrix), or
 *   roles: batches of SVM_GPU_BATCH iterations of eight per-role launches;
 * after each launch or batch only the 48-byte solver state comes back. rho,
 * the objective and the counts come from the final alpha and G as on the CPU
 * (svm_binary_finish). EVOFORGE_SVM_BLOCKS_PER_SM sets the persistent
 * grid (blocks per SM, default 1; at most what fits). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gen.h"
#include "gpu.h"
#include "log.h"
#include "nvrtc.h"
#include "svm_impl.h"

#define SVM_GPU_THREADS 256
#define SVM_GPU_BATCH 256
#define SVM_GPU_LAUNCH 4096

typedef struct gpu_state {
	int i, j, done, pad;
	long long iterations;
	double gmax, gmax2, dai, daj;
} gpu_state;

/* The device's kernel-row cache (svm.cu's svm_cache_arrays, passed by value). */
typedef struct gpu_cache_arrays {
	gpu_ptr rows, row_slot, slot_row, prev, next, c;
} gpu_cache_arrays;

typedef struct svm_gpu {
	gpu_context *ctx;
	gpu_module *mod;
	gpu_ptr xt, sq, y, QD, alpha, G, row_i, row_j, st, pv, pi, pg, bar;
	gpu_cache_arrays cache;
	int n, npad, blocks, sm_count;
	long slots;
} svm_gpu;

static const char *const nvrtc_options[] = { "--fmad=false", "-Xptxas", "-v" };

rt_status svm_gpu_source(const svm_params *p, int nfeat, gen_source *src, rt_error *err)
{
	char name[96];
	snprintf(name, sizeof name, "svm-k%d-f%d-w%d.cu", p->kernel.type, nfeat, p->wss);
	gen_begin(src, name, "SMO for one binary C-SVC problem");
	gen_line(src, "#define SVM_KERNEL %d", p->kernel.type);
	gen_line(src, "#define SVM_FEATURES %d", nfeat);
	gen_line(src, "#define SVM_WSS %d", p->wss);
	return gen_template(src, "svm/svm.cu", err);
}

const char *const *svm_gpu_nvrtc_options(int *n)
{
	*n = (int)(sizeof nvrtc_options / sizeof nvrtc_options[0]);
	return nvrtc_options;
}

static rt_status open_module(svm_gpu *g, const svm_data *d, const svm_params *p, rt_error *err)
{
	gen_source src;
	nvrtc_output out;
	gpu_info info;
	char arch[32];
	rt_status st;
	memset(&src, 0, sizeof src);
	memset(&out, 0, sizeof out);
	if ((st = gpu_open(err)) || (st = gpu_device_info(0, &info, err)))
		return st;
	gpu_arch_name(&info, arch, sizeof arch);
	if ((st = svm_gpu_source(p, d->nfeat, &src, err)) == RT_OK &&
	    (st = nvrtc_compile(src.name, src.text.data, arch, nvrtc_options, 3, &out, err)) == RT_OK &&
	    (st = gpu_context_open(0, &g->ctx, err)) == RT_OK)
		st = gpu_module_load(g->ctx, out.cubin, out.size, &g->mod, err);
	g->sm_count = info.sm_count > 0 ? info.sm_count : 128;
	g->blocks = g->sm_count * 4;
	nvrtc_output_free(&out);
	gen_free(&src);
	return st;
}

static rt_status put(svm_gpu *g, gpu_ptr *dst, const void *src, size_t bytes, rt_error *err)
{
	rt_status st = gpu_alloc(g->ctx, bytes ? bytes : 8, dst, err);
	return st == RT_OK && src ? gpu_upload(g->ctx, *dst, src, bytes, err) : st;
}

/* Points (column-major, padded), norms, labels, diagonal, alpha = 0, G = -1. */
static rt_status upload(svm_gpu *g, const svm_data *d, const long *idx, const signed char *y,
			const svm_params *p, rt_error *err)
{
	size_t n = (size_t)g->n, np = (size_t)g->npad, nf = (size_t)d->nfeat;
	float *xt = rt_calloc(np * nf, sizeof *xt, err);
	double *sq = rt_malloc(n * sizeof *sq, err), *qd = rt_malloc(n * sizeof *qd, err);
	double *G = rt_malloc(n * sizeof *G, err);
	gpu_state st0;
	rt_status st = xt && sq && qd && G ? RT_OK : RT_ERR_SYSTEM;
	for (size_t t = 0; st == RT_OK && t < n; t++) {
		const float *x = d->x + (size_t)idx[t] * nf;
		double q = 0;
		for (size_t f = 0; f < nf; f++) {
			xt[f * np + t] = x[f];
			q += (double)x[f] * x[f];
		}
		sq[t] = q;
		qd[t] = svm_kernel(&p->kernel, x, x, (int)nf, q, q);
		G[t] = -1.0;
	}
	memset(&st0, 0, sizeof st0);
	if (st == RT_OK && (st = put(g, &g->xt, xt, np * nf * sizeof *xt, err)) == RT_OK &&
	    (st = put(g, &g->sq, sq, n * sizeof *sq, err)) == RT_OK &&
	    (st = put(g, &g->y, y, n, err)) == RT_OK && (st = put(g, &g->QD, qd, n * 8, err)) == RT_OK &&
	    (st = put(g, &g->G, G, n * 8, err)) == RT_OK && (st = put(g, &g->alpha, NULL, n * 8, err)) == RT_OK &&
	    (st = gpu_memset32(g->ctx, g->alpha, 0, n * 2, err)) == RT_OK &&
	    (st = put(g, &g->row_i, NULL, n * 4, err)) == RT_OK &&
	    (st = put(g, &g->row_j, NULL, n * 4, err)) == RT_OK &&
	    (st = put(g, &g->st, &st0, sizeof st0, err)) == RT_OK &&
	    (st = put(g, &g->pv, NULL, (size_t)g->blocks * 8, err)) == RT_OK &&
	    (st = put(g, &g->pi, NULL, (size_t)g->blocks * 4, err)) == RT_OK)
		st = put(g, &g->pg, NULL, (size_t)g->blocks * 8, err);
	free(xt);
	free(sq);
	free(qd);
	free(G);
	return st;
}

static rt_status launch(svm_gpu *g, const char *name, unsigned blocks, void **args, rt_error *err)
{
	gpu_launch_cfg cfg = { { blocks, 1, 1 }, { SVM_GPU_THREADS, 1, 1 }, 0, NULL };
	return gpu_launch(g->mod, name, &cfg, args, err);
}

/* One SMO iteration, queued: pick i, row i, pick j, step, row j, gradient. */
static rt_status queue_iteration(svm_gpu *g, const svm_params *p, double Cp, double Cn,
				 rt_error *err)
{
	int zero = 0, one = 1, n = g->n, nparts = g->blocks;
	double eps = p->eps;
	svm_kernel_params kp = p->kernel;
	void *pick0[] = { &g->G, &g->alpha, &g->y, &g->row_i, &g->QD, &n, &Cp, &Cn, &g->st, &zero,
			  &g->pv, &g->pi, &g->pg };
	void *pick1[] = { &g->G, &g->alpha, &g->y, &g->row_i, &g->QD, &n, &Cp, &Cn, &g->st, &one,
			  &g->pv, &g->pi, &g->pg };
	void *fin0[] = { &g->pv, &g->pi, &g->pg, &nparts, &g->st, &zero, &eps };
	void *fin1[] = { &g->pv, &g->pi, &g->pg, &nparts, &g->st, &one, &eps };
	void *row0[] = { &g->xt, &g->sq, &g->y, &n, &g->npad, &g->st, &zero, &kp, &g->row_i };
	void *row1[] = { &g->xt, &g->sq, &g->y, &n, &g->npad, &g->st, &one, &kp, &g->row_j };
	void *step[] = { &g->alpha, &g->G, &g->y, &g->QD, &g->row_i, &Cp, &Cn, &g->st };
	void *grad[] = { &g->G, &g->row_i, &g->row_j, &n, &g->st };
	unsigned b = (unsigned)g->blocks;
	rt_status st;
	if ((st = launch(g, "svm_pick_blocks", b, pick0, err)) ||
	    (st = launch(g, "svm_pick_finish", 1, fin0, err)) ||
	    (st = launch(g, "svm_row", b, row0, err)) ||
	    (st = launch(g, "svm_pick_blocks", b, pick1, err)) ||
	    (st = launch(g, "svm_pick_finish", 1, fin1, err)))
		return st;
	{
		gpu_launch_cfg one_thread = { { 1, 1, 1 }, { 1, 1, 1 }, 0, NULL };
		if ((st = gpu_launch(g->mod, "svm_step", &one_thread, step, err)))
			return st;
	}
	if ((st = launch(g, "svm_row", b, row1, err)))
		return st;
	return launch(g, "svm_grad", b, grad, err);
}

static void release(svm_gpu *g)
{
	gpu_ptr *p[] = { &g->xt, &g->sq, &g->y, &g->QD, &g->alpha, &g->G, &g->row_i, &g->row_j,
			 &g->st, &g->pv, &g->pi, &g->pg, &g->bar, &g->cache.rows, &g->cache.row_slot,
			 &g->cache.slot_row, &g->cache.prev, &g->cache.next, &g->cache.c };
	if (g->ctx)
		for (size_t k = 0; k < sizeof p / sizeof p[0]; k++)
			if (*p[k])
				gpu_free(g->ctx, *p[k]);
	if (g->mod)
		gpu_module_unload(g->mod);
	if (g->ctx)
		gpu_context_close(g->ctx);
}

/* Rows the cache holds: gpu_cache_mb, or half the free memory; at most n. */
static long cache_slots(svm_gpu *g, const svm_params *p, rt_error *err)
{
	size_t free_b = 0, total_b = 0, row = (size_t)g->npad * sizeof(float);
	double bytes = p->gpu_cache_mb > 0 ? p->gpu_cache_mb * 1048576.0 : 0;
	if (bytes <= 0) {
		if (gpu_mem_info(g->ctx, &free_b, &total_b, err) != RT_OK)
			return -1;
		bytes = 0.5 * (double)free_b;
	}
	double slots = bytes / (double)row;
	return slots < 2 ? 2 : slots > g->n ? g->n : (long)slots;
}

/* The LRU cache: no row cached, slots listed 0 (most recent) .. slots - 1. */
static rt_status setup_cache(svm_gpu *g, const svm_params *p, rt_error *err)
{
	long S, n = g->n;
	int *row_slot = NULL, *slot_row = NULL, *prev = NULL, *next = NULL, head_tail[6] = { 0 };
	rt_status st;
	if ((S = cache_slots(g, p, err)) < 0)
		return RT_ERR_SYSTEM;
	g->slots = S;
	row_slot = rt_malloc((size_t)n * sizeof *row_slot, err);
	slot_row = rt_malloc((size_t)S * sizeof *slot_row, err);
	prev = rt_malloc((size_t)S * sizeof *prev, err);
	next = rt_malloc((size_t)S * sizeof *next, err);
	st = row_slot && slot_row && prev && next ? RT_OK : RT_ERR_SYSTEM;
	for (long t = 0; st == RT_OK && t < n; t++)
		row_slot[t] = -1;
	for (long s = 0; st == RT_OK && s < S; s++) {
		slot_row[s] = -1;
		prev[s] = (int)s - 1;
		next[s] = s + 1 < S ? (int)s + 1 : -1;
	}
	head_tail[1] = (int)S - 1;
	if (st == RT_OK && (st = put(g, &g->cache.rows, NULL, (size_t)S * g->npad * 4, err)) == RT_OK &&
	    (st = put(g, &g->cache.row_slot, row_slot, (size_t)n * 4, err)) == RT_OK &&
	    (st = put(g, &g->cache.slot_row, slot_row, (size_t)S * 4, err)) == RT_OK &&
	    (st = put(g, &g->cache.prev, prev, (size_t)S * 4, err)) == RT_OK &&
	    (st = put(g, &g->cache.next, next, (size_t)S * 4, err)) == RT_OK &&
	    (st = put(g, &g->cache.c, head_tail, sizeof head_tail, err)) == RT_OK)
		st = put(g, &g->bar, NULL, 8, err);
	free(row_slot);
	free(slot_row);
	free(prev);
	free(next);
	if (st != RT_OK)
		rt_error_prefix(err, "kernel-row cache of %ld rows (%.0f MB)", S,
				(double)S * g->npad * 4 / 1048576.0);
	return st;
}

/* Blocks of the persistent grid: EVOFORGE_SVM_BLOCKS_PER_SM (default 1)
 * per SM, at most what is resident at once and what the parts hold (4). */
static rt_status persistent_blocks(svm_gpu *g, unsigned *blocks, rt_error *err)
{
	const char *env = getenv("EVOFORGE_SVM_BLOCKS_PER_SM");
	int want = env && atoi(env) > 0 ? atoi(env) : 1, fit = 0;
	rt_status st = gpu_occupancy(g->mod, "svm_persistent", SVM_GPU_THREADS, 0, &fit, err);
	if (st != RT_OK)
		return st;
	if (fit < 1)
		return rt_fail(err, RT_ERR_UNSUPPORTED, "svm_persistent does not fit on an SM");
	want = want > fit ? fit : want > 4 ? 4 : want;
	*blocks = (unsigned)(g->sm_count * want);
	return RT_OK;
}

/* Persistent launches until done or max_iter. */
static rt_status run_persistent(svm_gpu *g, const svm_params *p, double Cp, double Cn,
				long max_iter, gpu_state *state, rt_error *err)
{
	unsigned blocks = 0;
	int n = g->n;
	double eps = p->eps, last_report = rt_now();
	svm_kernel_params kp = p->kernel;
	rt_status st;
	if ((st = setup_cache(g, p, err)) || (st = persistent_blocks(g, &blocks, err)))
		return st;
	while (st == RT_OK && !state->done && state->iterations < max_iter) {
		int iters = max_iter - state->iterations < SVM_GPU_LAUNCH ?
			    (int)(max_iter - state->iterations) : SVM_GPU_LAUNCH;
		void *args[] = { &g->xt, &g->sq, &g->y, &g->QD, &g->alpha, &g->G, &n, &g->npad, &kp,
				 &Cp, &Cn, &eps, &g->st, &g->pv, &g->pi, &g->pg, &g->cache, &g->bar,
				 &iters };
		gpu_launch_cfg cfg = { { blocks, 1, 1 }, { SVM_GPU_THREADS, 1, 1 }, 0, NULL };
		if ((st = gpu_memset32(g->ctx, g->bar, 0, 2, err)) ||
		    (st = gpu_launch_cooperative(g->mod, "svm_persistent", &cfg, args, err)) ||
		    (st = gpu_download(g->ctx, state, g->st, sizeof *state, err)))
			break;
		if (rt_now() - last_report > 5) {
			last_report = rt_now();
			rt_info("svm (GPU): %lld iterations, violation %.6g", state->iterations,
				state->gmax + state->gmax2);
		}
	}
	return st;
}

/* Batches of queued per-role iterations until done or max_iter. */
static rt_status run_roles(svm_gpu *g, const svm_params *p, double Cp, double Cn, long max_iter,
			   gpu_state *state, rt_error *err)
{
	rt_status st = RT_OK;
	while (st == RT_OK && !state->done && state->iterations < max_iter) {
		long batch = max_iter - state->iterations < SVM_GPU_BATCH ?
			     max_iter - (long)state->iterations : SVM_GPU_BATCH;
		for (long k = 0; st == RT_OK && k < batch; k++)
			st = queue_iteration(g, p, Cp, Cn, err);
		if (st == RT_OK)
			st = gpu_download(g->ctx, state, g->st, sizeof *state, err);
	}
	return st;
}

rt_status svm_gpu_solve_binary(const svm_data *d, const long *idx, const signed char *y, long n,
			       const svm_params *p, double Cp, double Cn, svm_binary *out,
			       rt_error *err)
{
	svm_gpu g;
	gpu_state state;
	long max_iter = p->max_iter > 0 ? p->max_iter : (100 * n > 10000000 ? 100 * n : 10000000);
	double *alpha = NULL, *G = NULL;
	rt_status st;
	memset(&g, 0, sizeof g);
	memset(out, 0, sizeof *out);
	memset(&state, 0, sizeof state);
	g.n = (int)n;
	g.npad = (int)((n + 31) / 32 * 32);
	if (d->nfeat > 8192)
		return rt_fail(err, RT_ERR_UNSUPPORTED, "svm: %d features is more than the GPU solver's "
			       "8192 (dense rows); use --backend cpu", d->nfeat);
	if ((st = open_module(&g, d, p, err)) == RT_OK && (st = upload(&g, d, idx, y, p, err)) == RT_OK)
		st = p->gpu_roles ? run_roles(&g, p, Cp, Cn, max_iter, &state, err)
				  : run_persistent(&g, p, Cp, Cn, max_iter, &state, err);
	if (st == RT_OK && !state.done)
		rt_warn("svm: reached the iteration limit (%ld) before the tolerance", max_iter);
	alpha = st == RT_OK ? rt_malloc((size_t)n * sizeof *alpha, err) : NULL;
	G = alpha ? rt_malloc((size_t)n * sizeof *G, err) : NULL;
	if (st == RT_OK && (!alpha || !G))
		st = RT_ERR_SYSTEM;
	if (st == RT_OK && (st = gpu_download(g.ctx, alpha, g.alpha, (size_t)n * 8, err)) == RT_OK &&
	    (st = gpu_download(g.ctx, G, g.G, (size_t)n * 8, err)) == RT_OK) {
		svm_binary_finish(out, alpha, G, y, n, Cp, Cn);
		out->iterations = (long)state.iterations;
		alpha = NULL;
	}
	free(alpha);
	free(G);
	release(&g);
	if (st != RT_OK && st != RT_ERR_NOGPU)
		rt_error_prefix(err, "svm (GPU)");
	return st;
}
