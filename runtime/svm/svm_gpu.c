/* svm_gpu.c: one binary C-SVC problem solved on the GPU
 * (templates/svm/svm.cu): the points uploaded column-major and padded, the
 * generated source specialised to the kernel type, feature count and
 * working-set rule, then batches of SVM_GPU_BATCH iterations queued with no
 * host round trip between them (four fused launches per iteration, or the
 * eight per-role kernels with gpu_kernels = roles); after each batch only the 48-byte solver
 * state comes back. rho, the objective and the counts come from the final
 * alpha and G as on the CPU (svm_binary_finish). */
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

typedef struct gpu_state {
	int i, j, done, pad;
	long long iterations;
	double gmax, gmax2, dai, daj;
} gpu_state;

typedef struct svm_gpu {
	gpu_context *ctx;
	gpu_module *mod;
	gpu_ptr xt, sq, y, QD, alpha, G, row_i, row_j, st, pv, pi, pg;
	int n, npad, blocks;
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
	g->blocks = info.sm_count > 0 ? info.sm_count * 4 : 512;
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

/* The same iteration in four launches (svm.cu's fused kernels). */
static rt_status queue_fused(svm_gpu *g, const svm_params *p, double Cp, double Cn, int only_update,
			     rt_error *err)
{
	int zero = 0, n = g->n, nparts = g->blocks;
	double eps = p->eps;
	svm_kernel_params kp = p->kernel;
	void *a1[] = { &g->xt, &g->sq, &g->y, &n, &g->npad, &kp, &g->G, &g->alpha, &Cp, &Cn, &g->st,
		       &g->pv, &g->pi, &g->pg, &only_update };
	void *a2[] = { &g->pv, &g->pi, &g->pg, &nparts, &g->st, &zero, &eps };
	void *a3[] = { &g->xt, &g->sq, &g->y, &n, &g->npad, &kp, &g->G, &g->alpha, &g->QD, &Cp, &Cn,
		       &g->st, &g->pv, &g->pi, &g->pg };
	void *a4[] = { &g->pv, &g->pi, &g->pg, &nparts, &g->st, &eps, &g->xt, &g->sq, &g->y,
		       &g->npad, &kp, &g->alpha, &g->G, &g->QD, &Cp, &Cn };
	unsigned b = (unsigned)g->blocks;
	rt_status st;
	if ((st = launch(g, "svm_fused_grad_pick", b, a1, err)) || only_update ||
	    (st = launch(g, "svm_pick_finish", 1, a2, err)) ||
	    (st = launch(g, "svm_fused_pick_j", b, a3, err)))
		return st;
	return launch(g, "svm_fused_finish_step", 1, a4, err);
}

static void release(svm_gpu *g)
{
	gpu_ptr *p[] = { &g->xt, &g->sq, &g->y, &g->QD, &g->alpha, &g->G, &g->row_i, &g->row_j,
			 &g->st, &g->pv, &g->pi, &g->pg };
	if (g->ctx)
		for (size_t k = 0; k < sizeof p / sizeof p[0]; k++)
			if (*p[k])
				gpu_free(g->ctx, *p[k]);
	if (g->mod)
		gpu_module_unload(g->mod);
	if (g->ctx)
		gpu_context_close(g->ctx);
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
	if ((st = open_module(&g, d, p, err)) == RT_OK && (st = upload(&g, d, idx, y, p, err)) == RT_OK) {
		while (st == RT_OK && !state.done && state.iterations < max_iter) {
			long batch = max_iter - state.iterations < SVM_GPU_BATCH ?
				     max_iter - (long)state.iterations : SVM_GPU_BATCH;
			for (long k = 0; st == RT_OK && k < batch; k++)
				st = p->gpu_roles ? queue_iteration(&g, p, Cp, Cn, err)
						  : queue_fused(&g, p, Cp, Cn, 0, err);
			if (st == RT_OK)
				st = gpu_download(g.ctx, &state, g.st, sizeof state, err);
		}
	}
	if (st == RT_OK && !state.done) {
		rt_warn("svm: reached the iteration limit (%ld) before the tolerance", max_iter);
		if (!p->gpu_roles)   /* the last step's G update is still pending */
			st = queue_fused(&g, p, Cp, Cn, 1, err);
	}
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
