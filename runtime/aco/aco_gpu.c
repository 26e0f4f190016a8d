/* aco_gpu.c: kind `aco` on the GPU: generates templates/aco/aco.cu for a
 * job, compiles it with NVRTC (disk cache), keeps every matrix, tour and
 * length on the device and implements the backend interface of aco_impl.h
 * with kernel launches. Per iteration only scalars cross the bus: the
 * 16-byte (length, ant) of the iteration best and the update's arguments;
 * a tour comes back only when the loop saves one it wants to report (and,
 * at a checkpoint, the pheromone matrix and the two saved tours: aco_ckpt.h).
 *
 * Construction kernel (job->construct): the seed's ant per thread
 * (aco_construct_thread, block from job->block or 32 .. 256 threads chosen
 * so that the grid covers the SMs: with m = n = 1000 ants there are only
 * 1000 threads, and 32-thread blocks spread them over 32 SMs instead of 4)
 * or our ant per warp (aco_construct_warp). For the warp kernel the compact
 * candidate table (ids and choice values, 8 bytes per candidate) goes into
 * shared memory when it takes at most ACO_GPU_CAND_SMEM bytes (pr1002 with
 * 20 candidates: 160 KB, one block per SM), else it is read through L1/L2;
 * warps per block = ceil(ants / SMs) (at most 32), so that every SM gets
 * about the same number of ants in a single wave.
 *
 * Update: aco_links (next/prev of every city on the depositing tour), then
 * one fused pass over the cells (evaporate, deposit, clamp, choice), then
 * the compact candidate copy: three launches, bit-identical to the CPU's
 * three passes since each cell sees the same float operations in order.
 *
 * Measured on an H100 (tests/aco/aco_gpu_driver --bench, pr1002, 1024 ants,
 * alpha 1, beta 2; every tour bit-identical to the CPU backend's): with 20
 * candidates the ant per warp takes 0.72 ms per construction (1.43 M
 * tours/s), the ant per thread 44.4 ms; with full choice 11.5 ms against
 * 392 ms. An update (three launches) takes about 0.02 ms. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kprep.h"
#include "aco/aco_ls.h"
#include "aco_impl.h"
#include "log.h"
#include "nvrtc.h"

/* Threads per block of the local search kernel (an ant per warp). */
#define ACO_LS_THREADS 128

#define ACO_GPU_CAND_SMEM (200 * 1024)   /* largest candidate table kept in shared memory */
#define ACO_GPU_THREAD_MAX 256           /* threads per block of the per-thread kernels */
#define ACO_GPU_SM_DEFAULT 132           /* SMs assumed when no device is known (H100 SXM) */

/* -Xptxas -v: the resource report lands in the log (and the cache) for tests and tools. */
static const char *const nvrtc_options[] = { "--fmad=false", "-Xptxas", "-v" };

const char *const *aco_gpu_nvrtc_options(int *n)
{
	*n = (int)(sizeof nvrtc_options / sizeof nvrtc_options[0]);
	return nvrtc_options;
}

/* Bytes of the compact candidate table (ids + values). */
static size_t cand_table_bytes(const aco_job *job)
{
	return (size_t)job->n * (size_t)job->cand_len * 8;
}

/* Whether the warp kernel keeps the candidate table in shared memory
 * ([aco] cand_memory; auto: when it takes at most ACO_GPU_CAND_SMEM). */
static int cand_shared(const aco_job *job)
{
	if (job->cand_len == 0 || job->cand_memory == ACO_CAND_GLOBAL)
		return 0;
	return job->cand_memory == ACO_CAND_SHARED || cand_table_bytes(job) <= ACO_GPU_CAND_SMEM;
}

/* Local search scratch ints per ant (0 without local search). */
static size_t ls_work_ints(const aco_job *job)
{
#ifdef ACO_LS_WORK_INTS
	return job->local_search ? (size_t)ACO_LS_WORK_INTS(job->n) : 0;
#else
	(void)job;
	return 0;
#endif
}

/* A float constant that NVRTC reads back as exactly the host's float. */
static void define_float(gen_source *src, const char *macro, float v)
{
	gen_line(src, "#define %s (%.9ef)", macro, (double)v);
}

rt_status aco_gpu_source(const aco_job *job, gen_source *src, rt_error *err)
{
	char name[192];
	int tb = job->construct == ACO_CONSTRUCT_THREAD && job->block > ACO_GPU_THREAD_MAX
		 ? job->block : ACO_GPU_THREAD_MAX;
#ifndef ACO_LS_WORK_INTS
	if (job->local_search)
		return rt_fail(err, RT_ERR_UNSUPPORTED, "%s: local search %s is not built into this "
			       "evoforge (templates/aco/aco_ls.h has no aco_local_search)", job->name,
			       aco_ls_name(job->local_search));
#endif
	if (job->n < 2 || job->ants < 1 || (job->cand_len > 0 && !job->cand) ||
	    (job->local_search && (!job->nn || job->ls_cand < 1)))
		return rt_fail(err, RT_ERR_INTERNAL, "%s: aco_gpu_source: %d cities, %d ants, "
			       "candidate list %d (%s), local search %d with %d neighbours (%s)",
			       job->name, job->n, job->ants, job->cand_len, job->cand ? "set" : "NULL",
			       job->local_search, job->ls_cand, job->nn ? "set" : "NULL");
	snprintf(name, sizeof name, "aco-%s.cu", job->name);
	gen_begin(src, name, "MAX-MIN ant system kernels (construction, local search, update)");
	gen_line(src, "/* %s: %d cities, %d ants, %s, alpha %g, beta %g, local search %s */",
		 job->instance[0] ? job->instance : "instance", job->n, job->ants,
		 job->cand_len > 0 ? "candidate lists" : "full choice", job->alpha, job->beta,
		 aco_ls_name(job->local_search));
	gen_define_int(src, "ACO_N", job->n);
	gen_define_int(src, "ACO_CAND", job->cand_len);
	gen_define_int(src, "ACO_ANTS", job->ants);
	gen_define_int(src, "ACO_ALPHA_INT", job->alpha_int);
	define_float(src, "ACO_ALPHA", (float)job->alpha);
	gen_define_int(src, "ACO_BETA_INT", job->beta_int);
	define_float(src, "ACO_BETA", (float)job->beta);
	gen_define_int(src, "ACO_LS", job->local_search);
	gen_define_int(src, "ACO_LS_CAND", job->ls_cand);
	gen_define_int(src, "ACO_CAND_SHARED", cand_shared(job));
	gen_define_int(src, "ACO_THREAD_BLOCK", tb);
	gen_define_int(src, "ACO_LS_BLOCK", ACO_LS_THREADS);
	gen_line(src, "%s", "");
	return gen_template(src, "aco/aco.cu", err);
}

/* ---- the backend ------------------------------------------------------------- */

typedef struct aco_gpu {
	aco_backend base;
	int n, ants, cand_len, construct, ls;
	uint64_t seed;
	gpu_context *ctx;
	gpu_module *mod;
	gpu_ptr dist, heur, tau, choice, cand, cchoice, nn; /* matrices (cand/cchoice: n x L) */
	gpu_ptr tours, lengths, visited, scratch, work;      /* per ant */
	gpu_ptr slots, links, best, count;                   /* update, reductions */
	int sms, thread_block, warp_block;
	unsigned warp_smem;
	gpu_timer *t_construct, *t_update;  /* device spans of the work (busy time) */
	int construct_pending, update_pending;
} aco_gpu;


/* Grid for `items` work items of `threads` threads, at most 16 waves of SMs. */
static unsigned grid_for(const aco_gpu *g, long long items, int threads)
{
	long long b = (items + threads - 1) / threads, cap = (long long)g->sms * 16;
	return (unsigned)(b < 1 ? 1 : b > cap ? cap : b);
}

/* Launches kernel `name` over `items` items, `threads` per block. */
static rt_status launch(aco_gpu *g, const char *name, long long items, int threads, void **args,
			rt_error *err)
{
	gpu_launch_cfg cfg = { { grid_for(g, items, threads), 1, 1 }, { (unsigned)threads, 1, 1 },
			       0, NULL };
	return gpu_launch(g->mod, name, &cfg, args, err);
}

/* Recomputes choice (tau set to fill first when fill >= 0), then the compact copy. */
static rt_status refresh_choice(aco_gpu *g, float fill, rt_error *err)
{
	void *a[] = { &g->tau, &g->heur, &g->choice, &fill };
	void *c[] = { &g->choice, &g->cand, &g->cchoice };
	rt_status st = launch(g, "aco_choice_all", (long long)g->n * g->n, 256, a, err);
	if (st == RT_OK && g->cand_len > 0)
		st = launch(g, "aco_compact", (long long)g->n * g->cand_len, 256, c, err);
	return st;
}

static aco_gpu *as_gpu(aco_backend *b) { return (aco_gpu *)b; }

/* Adds a finished span (construction or update) to the device's busy time;
 * waits for it if it is still running. */
static rt_status collect_busy(aco_gpu *g, gpu_timer **t, int *pending, rt_error *err)
{
	double ms;
	rt_status st;
	if (!*pending)
		return RT_OK;
	*pending = 0;
	if ((st = gpu_timer_elapsed(*t, &ms, err)) == RT_OK)
		g->base.busy_seconds += 1e-3 * ms;
	return st;
}

/* Construction by the chosen kernel, then local search; timed on the device
 * (the busy time from which the host's share of a run is reported). */
static rt_status gpu_construct(aco_backend *b, uint32_t iteration, rt_error *err)
{
	aco_gpu *g = as_gpu(b);
	unsigned long long seed = g->seed;
	rt_status st;
	if ((st = collect_busy(g, &g->t_update, &g->update_pending, err)) != RT_OK ||
	    (st = gpu_timer_start(g->t_construct, NULL, err)) != RT_OK)
		return st;
	g->construct_pending = 1;
	if (g->construct == ACO_CONSTRUCT_WARP) {
		void *a[] = { &g->dist, &g->choice, &g->cand, &g->cchoice, &g->tours, &g->lengths,
			      &seed, &iteration };
		int wpb = g->warp_block / 32;
		gpu_launch_cfg cfg = { { (unsigned)((g->ants + wpb - 1) / wpb), 1, 1 },
				       { (unsigned)g->warp_block, 1, 1 }, g->warp_smem, NULL };
		st = gpu_launch(g->mod, "aco_construct_warp", &cfg, a, err);
	} else {
		void *a[] = { &g->dist, &g->choice, &g->cand, &g->tours, &g->lengths, &g->visited,
			      &g->scratch, &seed, &iteration };
		gpu_launch_cfg cfg = { { (unsigned)((g->ants + g->thread_block - 1) / g->thread_block), 1, 1 },
				       { (unsigned)g->thread_block, 1, 1 }, 0, NULL };
		st = gpu_launch(g->mod, "aco_construct_thread", &cfg, a, err);
	}
	if (st == RT_OK && g->ls) {
		void *a[] = { &g->dist, &g->nn, &g->tours, &g->lengths, &g->work, &seed, &iteration };
		int ants_per_block = ACO_LS_THREADS / 32;
		gpu_launch_cfg cfg = { { (unsigned)((g->ants + ants_per_block - 1) / ants_per_block), 1, 1 },
				       { ACO_LS_THREADS, 1, 1 }, 0, NULL };
		st = gpu_launch(g->mod, "aco_local", &cfg, a, err);
	}
	return st == RT_OK ? gpu_timer_end(g->t_construct, NULL, err) : st;
}

/* The shortest tour of the iteration: one block reduces, 16 bytes come back. */
static rt_status gpu_iteration_best(aco_backend *b, int64_t *length, int *ant, rt_error *err)
{
	aco_gpu *g = as_gpu(b);
	long long out[2];
	void *a[] = { &g->lengths, &g->best };
	gpu_launch_cfg cfg = { { 1, 1, 1 }, { 1024, 1, 1 }, 0, NULL };
	rt_status st = gpu_launch(g->mod, "aco_best", &cfg, a, err);
	if (st == RT_OK)
		st = gpu_download(g->ctx, out, g->best, sizeof out, err);
	if (st == RT_OK)
		st = collect_busy(g, &g->t_construct, &g->construct_pending, err);
	if (st == RT_OK) {
		*length = out[0];
		*ant = (int)out[1];
	}
	return st;
}

/* Copies ant's tour into a slot on the device; downloads it if asked. */
static rt_status gpu_save(aco_backend *b, int ant, int slot, int *tour, rt_error *err)
{
	aco_gpu *g = as_gpu(b);
	void *a[] = { &g->tours, &g->slots, &ant, &slot };
	if (ant < 0 || ant >= g->ants || slot < 0 || slot > ACO_SLOT_RESTART)
		return rt_fail(err, RT_ERR_INTERNAL, "aco gpu save: ant %d, slot %d", ant, slot);
	rt_status st = launch(g, "aco_save", g->n, 256, a, err);
	if (st == RT_OK && tour)
		st = gpu_download(g->ctx, tour, g->slots + (gpu_ptr)slot * g->n * sizeof(int),
				  (size_t)g->n * sizeof(int), err);
	return st;
}

/* Evaporate, deposit on the slot's (slot >= 0) or ant's tour, clamp, choice. */
static rt_status gpu_update(aco_backend *b, int slot, int ant, float keep, float deposit,
			    float tau_min, float tau_max, rt_error *err)
{
	aco_gpu *g = as_gpu(b);
	gpu_ptr tour = slot >= 0 ? g->slots + (gpu_ptr)slot * g->n * sizeof(int)
				 : g->tours + (gpu_ptr)ant * g->n * sizeof(int);
	void *l[] = { &tour, &g->links };
	void *u[] = { &g->tau, &g->heur, &g->choice, &g->links, &keep, &deposit, &tau_min, &tau_max };
	void *c[] = { &g->choice, &g->cand, &g->cchoice };
	rt_status st;
	if (slot > ACO_SLOT_RESTART || (slot < 0 && (ant < 0 || ant >= g->ants)))
		return rt_fail(err, RT_ERR_INTERNAL, "aco gpu update: slot %d, ant %d", slot, ant);
	if ((st = gpu_timer_start(g->t_update, NULL, err)) ||
	    (st = launch(g, "aco_links", g->n, 256, l, err)) ||
	    (st = launch(g, "aco_update", (long long)g->n * g->n, 256, u, err)))
		return st;
	if (g->cand_len > 0 && (st = launch(g, "aco_compact", (long long)g->n * g->cand_len, 256, c, err)))
		return st;
	g->update_pending = 1;
	return gpu_timer_end(g->t_update, NULL, err);
}

/* Every pheromone cell set to tau, choice recomputed. */
static rt_status gpu_reset(aco_backend *b, float tau, rt_error *err)
{
	if (!(tau >= 0.0f))
		return rt_fail(err, RT_ERR_INTERNAL, "aco gpu reset: tau %g", (double)tau);
	return refresh_choice(as_gpu(b), tau, err);
}

/* lambda-branching count (aco.cu's aco_branching says how). */
static rt_status gpu_branching(aco_backend *b, float lambda, long *count, rt_error *err)
{
	aco_gpu *g = as_gpu(b);
	unsigned long long c = 0;
	void *a[] = { &g->tau, &g->cand, &lambda, &g->count };
	gpu_launch_cfg cfg = { { (unsigned)((g->n + 7) / 8), 1, 1 }, { 256, 1, 1 }, 0, NULL };
	rt_status st = gpu_memset32(g->ctx, g->count, 0, 2, err);
	if (st == RT_OK)
		st = gpu_launch(g->mod, "aco_branching", &cfg, a, err);
	if (st == RT_OK)
		st = gpu_download(g->ctx, &c, g->count, sizeof c, err);
	*count = (long)c;
	return st;
}

/* Every ant's tour and length (either may be NULL). */
static rt_status gpu_tours(aco_backend *b, int *tours, int64_t *lengths, rt_error *err)
{
	aco_gpu *g = as_gpu(b);
	rt_status st = RT_OK;
	if (tours)
		st = gpu_download(g->ctx, tours, g->tours, (size_t)g->ants * g->n * sizeof(int), err);
	if (st == RT_OK && lengths)
		st = gpu_download(g->ctx, lengths, g->lengths, (size_t)g->ants * sizeof(int64_t), err);
	return st;
}

/* Checkpoint: the pheromone matrix and the saved tours, copied back. */
static rt_status gpu_get_state(aco_backend *b, float *tau, int *slots, rt_error *err)
{
	aco_gpu *g = as_gpu(b);
	size_t n = (size_t)g->n;
	rt_status st = gpu_download(g->ctx, tau, g->tau, n * n * sizeof *tau, err);
	if (st == RT_OK)
		st = gpu_download(g->ctx, slots, g->slots, 2 * n * sizeof *slots, err);
	return st;
}

/* Resume: both uploaded, choice (and its compact copy) recomputed from tau. */
static rt_status gpu_set_state(aco_backend *b, const float *tau, const int *slots, rt_error *err)
{
	aco_gpu *g = as_gpu(b);
	size_t n = (size_t)g->n;
	rt_status st = gpu_upload(g->ctx, g->tau, tau, n * n * sizeof *tau, err);
	if (st == RT_OK)
		st = gpu_upload(g->ctx, g->slots, slots, 2 * n * sizeof *slots, err);
	if (st == RT_OK)
		st = refresh_choice(g, -1.0f, err);
	if (st == RT_OK)
		st = gpu_sync(g->ctx, err);
	return st;
}

static void gpu_destroy(aco_backend *b)
{
	aco_gpu *g = as_gpu(b);
	if (!g)
		return;
	gpu_ptr *bufs[] = { &g->dist, &g->heur, &g->tau, &g->choice, &g->cand, &g->cchoice, &g->nn,
			    &g->tours, &g->lengths, &g->visited, &g->scratch, &g->work, &g->slots,
			    &g->links, &g->best, &g->count };
	for (size_t i = 0; i < sizeof bufs / sizeof bufs[0]; i++)
		if (*bufs[i])
			gpu_free(g->ctx, *bufs[i]);
	if (g->t_construct)
		gpu_timer_destroy(g->t_construct);
	if (g->t_update)
		gpu_timer_destroy(g->t_update);
	if (g->mod)
		gpu_module_unload(g->mod);
	if (g->ctx)
		gpu_context_close(g->ctx);
	free(g);
}

static const aco_backend_ops gpu_ops = {
	gpu_construct, gpu_iteration_best, gpu_save, gpu_update, gpu_reset, gpu_branching,
	gpu_tours, gpu_get_state, gpu_set_state, gpu_destroy, "gpu"
};

/* ---- creation ------------------------------------------------------------------ */

/* Allocates *p and uploads `bytes` from host (host NULL: allocate only). */
static rt_status put(aco_gpu *g, gpu_ptr *p, const void *host, size_t bytes, rt_error *err)
{
	rt_status st = gpu_alloc(g->ctx, bytes ? bytes : 16, p, err);
	if (st == RT_OK && host)
		st = gpu_upload(g->ctx, *p, host, bytes, err);
	return st;
}

/* Every device buffer, matrices uploaded. */
static rt_status alloc_all(aco_gpu *g, const aco_job *job, rt_error *err)
{
	size_t n = (size_t)job->n, m = (size_t)job->ants, L = (size_t)job->cand_len;
	size_t len = L ? L : n, plen = (len + 31) / 32 * 32, words = (n + 31) / 32;
	int thread = job->construct == ACO_CONSTRUCT_THREAD;
	rt_status st;
	if ((st = put(g, &g->dist, job->dist, n * n * sizeof(int), err)) ||
	    (st = put(g, &g->heur, job->heur, n * n * sizeof(float), err)) ||
	    (st = put(g, &g->tau, NULL, n * n * sizeof(float), err)) ||
	    (st = put(g, &g->choice, NULL, n * n * sizeof(float), err)) ||
	    (st = put(g, &g->cand, job->cand, n * L * sizeof(int), err)) ||
	    (st = put(g, &g->cchoice, NULL, n * L * sizeof(float), err)) ||
	    (st = put(g, &g->tours, NULL, m * n * sizeof(int), err)) ||
	    (st = put(g, &g->lengths, NULL, m * sizeof(int64_t), err)) ||
	    (st = put(g, &g->visited, NULL, thread ? m * words * sizeof(uint32_t) : 0, err)) ||
	    (st = put(g, &g->scratch, NULL, thread ? m * plen * sizeof(float) : 0, err)) ||
	    (st = put(g, &g->work, NULL, m * ls_work_ints(job) * sizeof(int), err)) ||
	    (st = put(g, &g->nn, job->local_search ? job->nn : NULL,
		      job->local_search ? n * (size_t)job->ls_cand * sizeof(int) : 0, err)) ||
	    (st = put(g, &g->slots, NULL, 2 * n * sizeof(int), err)) ||
	    (st = put(g, &g->links, NULL, 2 * n * sizeof(int), err)) ||
	    (st = put(g, &g->best, NULL, 16, err)) || (st = put(g, &g->count, NULL, 16, err)))
		return st;
	/* Slots start zeroed: an update from a slot never saved is defined (and useless). */
	return gpu_memset32(g->ctx, g->slots, 0, 2 * n, err);
}

rt_status aco_gpu_plan_for(const aco_job *job, int sms, int smem_optin, aco_gpu_plan *plan,
			   rt_error *err)
{
	int per_sm = (job->ants + sms - 1) / sms, tb = (per_sm + 31) / 32 * 32, warp;
	size_t words = ((size_t)job->n + 31) / 32;
	warp = job->construct == ACO_CONSTRUCT_WARP;
	memset(plan, 0, sizeof *plan);
	plan->kernel = warp ? "aco_construct_warp" : "aco_construct_thread";
	plan->cand_shared = warp && cand_shared(job);
	if (warp)
		plan->threads = job->block > 0 ? job->block / 32 * 32
			      : 32 * (per_sm < 1 ? 1 : per_sm > 32 ? 32 : per_sm);
	else
		plan->threads = job->block > 0 ? job->block
			      : tb < 32 ? 32 : tb > ACO_GPU_THREAD_MAX ? ACO_GPU_THREAD_MAX : tb;
	if (plan->threads < (warp ? 32 : 1) || plan->threads > 1024)
		return rt_fail(err, RT_ERR_INPUT, "%s: block = %d: expected 1 .. 1024 threads (the warp "
			       "kernel: 32 .. 1024, whole warps)", job->spec_path, job->block);
	if (!warp)
		return RT_OK;
	plan->smem = (unsigned)((plan->cand_shared ? cand_table_bytes(job) : 0) +
				(size_t)(plan->threads / 32) * words * 4);
	if (plan->smem > (unsigned)smem_optin)
		return rt_fail(err, RT_ERR_UNSUPPORTED, "%s: the warp kernel needs %u bytes of shared "
			       "memory per block (%d warps%s), the device allows %d", job->name,
			       plan->smem, plan->threads / 32, plan->cand_shared ? ", candidate table "
			       "in shared memory: cand_memory = global avoids it" : "", smem_optin);
	return RT_OK;
}

/* Block sizes and the warp kernel's shared memory; checks it fits. */
static rt_status size_kernels(aco_gpu *g, const aco_job *job, const gpu_info *info, rt_error *err)
{
	aco_gpu_plan plan;
	int bps = 0;
	rt_status st = aco_gpu_plan_for(job, g->sms, info->smem_per_block_optin, &plan, err);
	if (st != RT_OK)
		return st;
	g->thread_block = job->construct == ACO_CONSTRUCT_THREAD ? plan.threads : ACO_GPU_THREAD_MAX;
	g->warp_block = job->construct == ACO_CONSTRUCT_WARP ? plan.threads : 32;
	g->warp_smem = plan.smem;
	if (job->construct != ACO_CONSTRUCT_WARP)
		return RT_OK;
	if ((st = gpu_kernel_attrs(g->mod, "aco_construct_warp", (int)g->warp_smem,
				   plan.cand_shared ? 100 : -1, err)) ||
	    (st = gpu_occupancy(g->mod, "aco_construct_warp", g->warp_block, g->warp_smem, &bps, err)))
		return st;
	if (bps < 1)
		return rt_fail(err, RT_ERR_UNSUPPORTED, "aco_construct_warp with %d threads and %u bytes "
			       "of shared memory does not fit on %s", g->warp_block, g->warp_smem,
			       info->name);
	return RT_OK;
}

/* Device, source, compile, module: the steps before any buffer exists. */
static rt_status open_module(aco_gpu *g, const aco_job *job, gpu_info *info, rt_error *err)
{
	gen_source src;
	nvrtc_output nout;
	char arch[32];
	int nopt;
	const char *const *opts = aco_gpu_nvrtc_options(&nopt);
	rt_status st;
	memset(&src, 0, sizeof src);
	memset(&nout, 0, sizeof nout);
	if ((st = gpu_open(err)) || (st = gpu_device_info(0, info, err)))
		return st;
	gpu_arch_name(info, arch, sizeof arch);
	g->sms = info->sm_count > 0 ? info->sm_count : ACO_GPU_SM_DEFAULT;
	double t0 = rt_now();
	if ((st = aco_gpu_source(job, &src, err)) == RT_OK &&
	    (st = rt_kprep_early(arch, src.name, src.text.data, opts, nopt, err)) == RT_OK &&
	    (st = gpu_context_open(0, &g->ctx, err)) == RT_OK &&
	    (st = nvrtc_compile(src.name, src.text.data, arch, opts, nopt, &nout, err)) == RT_OK)
		st = gpu_module_load(g->ctx, nout.cubin, nout.size, &g->mod, err);
	g->base.compile_seconds = rt_now() - t0;
	snprintf(g->base.device, sizeof g->base.device, "%.200s (%s, driver %d)", info->name, arch,
		 info->driver_version);
	nvrtc_output_free(&nout);
	gen_free(&src);
	return st;
}

/* The detail line: kernel, block sizes, where the candidates live. */
static void describe(aco_gpu *g, const aco_job *job)
{
	const char *ls = job->local_search ? "; local search: ant per warp (aco_local)" : "";
	if (job->construct == ACO_CONSTRUCT_WARP)
		snprintf(g->base.detail, sizeof g->base.detail,
			 "ant per warp (aco_construct_warp), %d warps/block, %u B shared, %s%s",
			 g->warp_block / 32, g->warp_smem,
			 job->cand_len == 0 ? "full choice (rows from global memory)"
			 : cand_shared(job) ? "candidate table in shared memory"
			 : "candidate table in global memory", ls);
	else
		snprintf(g->base.detail, sizeof g->base.detail,
			 "ant per thread (aco_construct_thread), block %d%s", g->thread_block, ls);
}

rt_status aco_gpu_create(const aco_job *job, float tau0, aco_backend **b, rt_error *err)
{
	gpu_info info;
	rt_status st;
	aco_gpu *g = rt_calloc(1, sizeof *g, err);
	*b = NULL;
	if (!g)
		return RT_ERR_SYSTEM;
	g->base.ops = &gpu_ops;
	g->n = job->n;
	g->ants = job->ants;
	g->cand_len = job->cand_len;
	g->construct = job->construct;
	g->ls = job->local_search;
	g->seed = job->seed;
	if ((st = open_module(g, job, &info, err)) || (st = size_kernels(g, job, &info, err)) ||
	    (st = alloc_all(g, job, err)) || (st = refresh_choice(g, tau0, err)) ||
	    (st = gpu_timer_create(g->ctx, &g->t_construct, err)) ||
	    (st = gpu_timer_create(g->ctx, &g->t_update, err)) ||
	    (st = gpu_sync(g->ctx, err))) {
		gpu_destroy(&g->base);
		if (st != RT_ERR_NOGPU)
			rt_error_prefix(err, "%s (GPU)", job->name);
		return st;
	}
	describe(g, job);
	*b = &g->base;
	return RT_OK;
}
