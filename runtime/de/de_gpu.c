/* de_gpu.c: kind `de` on the GPU: generates templates/de/de.cu for a job,
 * compiles it with NVRTC, sizes block and grid from the device, and drives
 * either the fused kernel (a stretch of generations per launch) or the naive
 * multi-kernel baseline (five launches per generation). Only the per-problem
 * state, best vectors and history come back to the host; at a checkpoint
 * the populations and fitness too, uploaded again on resume (de_ckpt.h).
 *
 * Block size: the population rounded up to a warp, at most 512 threads
 * (larger populations: several individuals per thread). Population memory:
 * shared when two populations and their fitness fit the device's opt-in
 * shared memory per block, else global (pop_memory overrides). Grid: a block
 * per problem in one launch; the hardware's block scheduler balances the
 * waves. A persistent grid (persistent = 1: min(problems, resident blocks per
 * SM x SMs) from the occupancy calculator, each block walking over problems)
 * and several streams were measured on an H100 (bench/results/de-gpu-*.md):
 * up to 13% slower, and never faster than one launch of a block per problem. Carve-out: all shared memory
 * when the population is there, else all L1 (the donor rows are scattered
 * global loads that L1 may catch).
 *
 * variant multiblock (de.cu, de_mb_gen): a block per (problem, individual),
 * one launch per generation, population rows in global memory (two buffers
 * per problem, the current one by the parity of the generations done), a
 * counter per problem for its last block; block = the trial's 8-component
 * chunks rounded up to a warp, 64 .. 256 threads. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kprep.h"
#include "de_ckpt.h"
#include "de_impl.h"
#include "log.h"
#include "signals.h"
#include "nvrtc.h"

#define DE_DEFAULT_SMEM_OPTIN (227 * 1024)   /* H100/H200, for `gen` without a GPU */
#define DE_DEFAULT_SMEM_SM (228 * 1024)
#define DE_DEFAULT_SMS 132                    /* an H100 SXM's SMs, likewise */
#define DE_MIN_REGS 64                        /* registers per thread we keep for ptxas */
#define DE_CB_MIN_REGS 128                    /* the same for the callback's kernels (SaDE's
					       * trials spill at 64); not their bottleneck */
#define DE_MAX_BLOCK 512
#define DE_NAIVE_THREADS 256
#define DE_MB_MIN_THREADS 64
#define DE_MB_MAX_THREADS 256

static const char *const nvrtc_options[] = { "--fmad=false" };

const char *const *de_gpu_nvrtc_options(int *n)
{
	*n = (int)(sizeof nvrtc_options / sizeof nvrtc_options[0]);
	return nvrtc_options;
}

static size_t pop_smem_bytes(const de_job *job)
{
	return (2 * (size_t)job->np * job->dim + 2 * (size_t)job->np) * sizeof(float);
}

/* Blocks of `block` threads with `smem` bytes of dynamic shared memory
 * an SM holds (1 KB of static shared memory each; DE_MIN_REGS registers a
 * thread, as the launch bounds promise). */
static int resident_blocks(size_t smem, int block, int smem_sm)
{
	int by_regs = 65536 / (DE_MIN_REGS * block), by_threads = 2048 / block;
	int n = by_regs < by_threads ? by_regs : by_threads;
	if (smem > 0 && (int)((size_t)smem_sm / (smem + 1024)) < n)
		n = (int)((size_t)smem_sm / (smem + 1024));
	return n < 32 ? n : 32;
}

/* The fused kernel's dynamic shared memory (de.cu): the population when it
 * is there (pop), then an adaptive strategy's state and scratch (state)
 * and its archive (arch) while they fit in what a block may have (optin),
 * leaving 1 KB for the kernel's static shared memory; none of them with
 * state_memory = global. With auto, only where it costs no throughput: the
 * SMs hold as many blocks as with the population alone, or the job's
 * problems would not fill them anyway (measured on an H100,
 * bench/results/de-state-memory-h100-2026-11-24.md: JADE and SHADE with
 * 1000 problems of 300 individuals ran 27-34% slower with everything in
 * shared memory, 1 block an SM instead of 3; with one problem 15-35%
 * faster). state_bytes: what the state alone takes. */
typedef struct fused_smem {
	int pop, state, arch;
	size_t bytes, state_bytes;
} fused_smem;

static fused_smem fused_smem_plan(const de_job *job, int pop_shared, int block, const gpu_info *info)
{
	int optin = info && info->smem_per_block_optin > 0 ? info->smem_per_block_optin : DE_DEFAULT_SMEM_OPTIN;
	int smem_sm = info && info->smem_per_sm > 0 ? info->smem_per_sm : DE_DEFAULT_SMEM_SM;
	int sms = info && info->sm_count > 0 ? info->sm_count : DE_DEFAULT_SMS;
	fused_smem m = { pop_shared, 0, 0, pop_shared ? pop_smem_bytes(job) : 0, 0 };
	if (!de_is_adaptive(job->strategy))
		return m;
	size_t state = (de_adapt_ad_len(job) + de_adapt_work_len(job)) * sizeof(double) +
		       de_adapt_iwork_len(job) * sizeof(int);
	size_t arch = (size_t)job->params.a_cap * job->dim * sizeof(float);
	m.state_bytes = state = (state + 7) / 8 * 8;
	if (job->statemem == DE_POPMEM_GLOBAL || m.bytes + state + 1024 > (size_t)optin)
		return m;
	size_t with = m.bytes + state + (m.bytes + state + arch + 1024 <= (size_t)optin ? arch : 0);
	int before = resident_blocks(m.bytes, block, smem_sm), after = resident_blocks(with, block, smem_sm);
	if (job->statemem == DE_POPMEM_AUTO && after < before && job->problems > (long)sms * after)
		return m;
	m.state = 1;
	m.arch = with > m.bytes + state;
	m.bytes = with;
	return m;
}

/* Threads of a block of the multi-block kernel: de.block, else one per 8
 * components. */
static int mb_block_for(const de_job *job)
{
	if (job->block > 0)
		return job->block;
	int b = ((job->dim + 7) / 8 + 31) / 32 * 32;
	return b < DE_MB_MIN_THREADS ? DE_MB_MIN_THREADS : b > DE_MB_MAX_THREADS ? DE_MB_MAX_THREADS : b;
}

int de_gpu_mb_block(const de_job *job)
{
	return mb_block_for(job);
}

/* Dynamic shared memory of a block of the multi-block kernel (de.cu,
 * DE_MB_SMEM_FLOATS). */
static size_t mb_smem_bytes(const de_job *job)
{
	size_t d = (size_t)job->dim;
	if (job->function == DE_FN_USER || job->function == DE_FN_CEC2017)
		return d * sizeof(float);
	return (job->rotate ? 4 * d + 1 : 3 * d) * sizeof(float);
}

static int block_for(const de_job *job)
{
	if (job->block > 0)
		return job->block;
	int b = (job->np + 31) / 32 * 32;
	return b > DE_MAX_BLOCK ? DE_MAX_BLOCK : b;
}

/* A float constant that NVRTC reads back as exactly the host's float. */
static void define_float(gen_source *src, const char *macro, float v)
{
	gen_line(src, "#define %s (%.9ef)", macro, (double)v);
}

rt_status de_gpu_source(const de_job *job, const gpu_info *info, gen_source *src, int *pop_shared,
			int *block, rt_error *err)
{
	char name[192];
	size_t need = pop_smem_bytes(job);
	int shared, min_blocks;
	int smem_optin = info && info->smem_per_block_optin > 0 ? info->smem_per_block_optin
								  : DE_DEFAULT_SMEM_OPTIN;
	int smem_sm = info && info->smem_per_sm > 0 ? info->smem_per_sm : DE_DEFAULT_SMEM_SM;
	int cb = job->function == DE_FN_CALLBACK;
	if (job->popmem == DE_POPMEM_SHARED && need > (size_t)smem_optin)
		return rt_fail(err, RT_ERR_INPUT,
			       "%s: pop_memory = shared: %d individuals x %d dimensions need %zu bytes of "
			       "shared memory, the device allows %d per block (use pop_memory = auto)",
			       job->spec_path, job->np, job->dim, need, smem_optin);
	/* the callback's kernels keep everything in global memory (de.cu) */
	shared = !cb && (job->popmem == DE_POPMEM_SHARED ||
			 (job->popmem == DE_POPMEM_AUTO && need + 1024 <= (size_t)smem_optin));
	*pop_shared = shared;
	*block = block_for(job);
	fused_smem sm = { 0, 0, 0, 0, 0 };
	if (!cb)
		sm = fused_smem_plan(job, shared, *block, info);
	if (!cb && job->statemem == DE_POPMEM_SHARED && de_is_adaptive(job->strategy) && !sm.state)
		return rt_fail(err, RT_ERR_INPUT,
			       "%s: state_memory = shared: the strategy's state needs %zu bytes of shared "
			       "memory beside %zu of the population, the device allows %d per block (use "
			       "state_memory = auto)", job->spec_path, sm.state_bytes, sm.bytes, smem_optin);
	/* Resident blocks the launch bounds promise ptxas: as many as shared memory
	 * lets in, but never so many that fewer than DE_MIN_REGS registers remain
	 * (without a minimum, ptxas aims at full thread occupancy and spills). */
	min_blocks = 65536 / ((cb ? DE_CB_MIN_REGS : DE_MIN_REGS) * *block);
	if (sm.bytes > 0 && (int)(smem_sm / (sm.bytes + 1024)) < min_blocks)
		min_blocks = (int)(smem_sm / (sm.bytes + 1024));
	if (min_blocks < 1)
		min_blocks = 1;
	snprintf(name, sizeof name, "de-%s.cu", job->name);
	gen_begin(src, name, "differential evolution kernels (the variant's: fused, naive, multi-block "
		  "or the objective callback's)");
	gen_line(src, "/* %s, dim %d, population %d, DE/%s, %s, F %g, CR %g */",
		 job->function == DE_FN_USER ? "user objective" : cb ? "objective callback (host)"
		 : de_function_name(job->function),
		 job->dim, job->np, de_job_strategy_name(job), de_job_bounds_name(job), job->F, job->CR);
	/* the run's variant's kernels alone (de.cu's DE_KERNELS); the callback: its own */
	gen_define_int(src, "DE_KERNELS", cb ? 4 : job->variant == DE_VARIANT_NAIVE ? 2
			  : job->variant == DE_VARIANT_MULTIBLOCK ? 3 : 1);
	gen_define_int(src, "DE_DIM", job->dim);
	gen_define_int(src, "DE_NP", job->np);
	gen_define_int(src, "DE_FUNCTION", job->function == DE_FN_USER || cb ? 0 : job->function);
	gen_define_int(src, "DE_USER", job->function == DE_FN_USER);
	gen_define_int(src, "DE_STRATEGY", job->strategy);
	gen_define_int(src, "DE_BOUNDS", job->bounds);
	gen_line(src, "#define DE_CR16 %uu", job->params.cr16);
	define_float(src, "DE_F", job->params.F);
	define_float(src, "DE_LOWER", job->params.lower);
	define_float(src, "DE_UPPER", job->params.upper);
	define_float(src, "DE_ZOFF", job->zoff);
	gen_define_int(src, "DE_SHIFT", job->shift != 0);
	gen_define_int(src, "DE_ROTATE", job->rotate != 0);
	if (job->function == DE_FN_CEC2017) {   /* its data in the `rot` buffer */
		gen_define_int(src, "DE_CEC", 1);
		gen_define_int(src, "DE_CEC_FN", job->cec_fn);
	}
	gen_define_int(src, "DE_BLOCK", *block);
	gen_define_int(src, "DE_MIN_BLOCKS", min_blocks);
	gen_define_int(src, "DE_NAIVE_MIN_BLOCKS", 65536 / (DE_MIN_REGS * DE_NAIVE_THREADS));
	gen_define_int(src, "DE_POP_SHARED", shared);
	gen_define_int(src, "DE_NAIVE_BLOCK", DE_NAIVE_THREADS);
	gen_define_int(src, "DE_MB_BLOCK", mb_block_for(job));
	gen_define_int(src, "DE_MB_MIN_BLOCKS", 65536 / (DE_MIN_REGS * mb_block_for(job)));
	if (job->problem_base > 0)
		gen_line(src, "#define DE_PROBLEM_BASE %luu", (unsigned long)job->problem_base);
	if (de_is_adaptive(job->strategy)) {   /* templates/de/de_adapt.h */
		const de_params *p = &job->params;
		gen_define_int(src, "DE_ADAPTIVE", 1);
		gen_define_int(src, "DE_AD_SHARED", sm.state);   /* state and scratch in shared memory */
		gen_define_int(src, "DE_ARCH_SHARED", sm.arch);
		gen_define_int(src, "DE_H", p->H);
		gen_define_int(src, "DE_NP_MIN", p->np_min);
		gen_define_int(src, "DE_ACAP", p->a_cap);
		gen_line(src, "#define DE_PBEST %.17g", p->p_best);
		gen_line(src, "#define DE_ARC_RATE %.17g", p->arc_rate);
		gen_line(src, "#define DE_MF0 %.17g", p->mf0);
		gen_line(src, "#define DE_MCR0 %.17g", p->mcr0);
		gen_line(src, "#define DE_MAX_EVALS %.17g", p->max_evals);
	}
	if (job->function == DE_FN_USER)
		de_user_emit(&job->user, src, 1);
	gen_line(src, "%s", "");
	return gen_template(src, "de/de.cu", err);
}

/* ---- running ---------------------------------------------------------------- */

typedef struct de_gpu {
	gpu_context *ctx;
	gpu_module *mod;
	gpu_stream *streams[64];
	int nstreams;
	gpu_timer *timer;
	gpu_ptr pop, fit, state, bestx, hist, shift, rot, mut, trial, tfit;
	gpu_ptr count;                   /* multiblock: a counter per problem (de_mb_gen) */
	gpu_ptr ad, arch, work, iwork;   /* adaptive strategies (de.cu); else 4 bytes each */
	gpu_ptr x0;                      /* de.x0 (dim floats), or 0: the kernels' NULL */
	/* function = callback (de.cu's de_cb_*): cbt holds the trials [problem][rows][dim]
	 * then the rows to evaluate [problem] (one copy down), cbf their values
	 * [problem][rows] (one copy up); h_t, h_f: their pinned host copies; hx, hf:
	 * de_host_eval's doubles for one problem */
	gpu_ptr cbt, cbf;
	float *h_t, *h_f;
	double *hx, *hf;
} de_gpu;

static void gpu_release(de_gpu *g)
{
	gpu_ptr *bufs[] = { &g->pop, &g->fit, &g->state, &g->bestx, &g->hist, &g->shift,
			    &g->rot, &g->mut, &g->trial, &g->tfit, &g->ad, &g->arch, &g->work, &g->iwork,
			    &g->count, &g->x0, &g->cbt, &g->cbf };
	for (size_t i = 0; i < sizeof bufs / sizeof bufs[0]; i++)
		if (*bufs[i])
			gpu_free(g->ctx, *bufs[i]);
	if (g->h_t)
		gpu_host_free(g->ctx, g->h_t);
	if (g->h_f)
		gpu_host_free(g->ctx, g->h_f);
	free(g->hx);
	free(g->hf);
	for (int s = 0; s < g->nstreams; s++)
		gpu_stream_destroy(g->streams[s]);
	if (g->timer)
		gpu_timer_destroy(g->timer);
	if (g->mod)
		gpu_module_unload(g->mod);
	if (g->ctx)
		gpu_context_close(g->ctx);
}

static rt_status alloc(de_gpu *g, gpu_ptr *p, size_t bytes, rt_error *err)
{
	return gpu_alloc(g->ctx, bytes ? bytes : 4, p, err);
}

/* The adaptive strategies' state, archives and scratch (4 bytes each for
 * the others: the kernel's arguments are always set). */
static rt_status alloc_adaptive(de_gpu *g, const de_job *job, rt_error *err)
{
	int a = de_is_adaptive(job->strategy);
	size_t P = (size_t)job->problems;
	rt_status s;
	if ((s = alloc(g, &g->ad, a ? P * de_adapt_ad_len(job) * sizeof(double) : 0, err)) ||
	    (s = alloc(g, &g->arch, a ? P * job->params.a_cap * job->dim * sizeof(float) : 0, err)) ||
	    (s = alloc(g, &g->work, a ? P * de_adapt_work_len(job) * sizeof(double) : 0, err)) ||
	    (s = alloc(g, &g->iwork, a ? P * de_adapt_iwork_len(job) * sizeof(int) : 0, err)))
		return s;
	return RT_OK;
}

/* Adaptive strategies: the state and archives between the device
 * (archive [problem][dim][a_cap]) and a snapshot (rows); up: to the device. */
static rt_status adaptive_transfer(de_gpu *g, const de_job *job, de_snapshot *s, int up,
				   rt_error *err)
{
	size_t P = (size_t)job->problems, D = (size_t)job->dim, A = (size_t)job->params.a_cap;
	size_t adb = P * de_adapt_ad_len(job) * sizeof(double);
	float *soa;
	rt_status r;
	if (!s->ad)
		return RT_OK;
	if (!(soa = rt_malloc(P * A * D * sizeof *soa, err)))
		return RT_ERR_SYSTEM;
	if (up) {
		for (size_t k = 0; k < P * A * D; k++) {   /* k = (p * A + a) * D + j */
			size_t j = k % D, a = k / D % A, p = k / D / A;
			soa[(p * D + j) * A + a] = s->arch[k];
		}
		r = gpu_upload(g->ctx, g->ad, s->ad, adb, err);
		if (r == RT_OK)
			r = gpu_upload(g->ctx, g->arch, soa, P * A * D * sizeof *soa, err);
	} else {
		r = gpu_download(g->ctx, s->ad, g->ad, adb, err);
		if (r == RT_OK)
			r = gpu_download(g->ctx, soa, g->arch, P * A * D * sizeof *soa, err);
		for (size_t k = 0; r == RT_OK && k < P * A * D; k++) {
			size_t j = k % D, a = k / D % A, p = k / D / A;
			s->arch[k] = soa[(p * D + j) * A + a];
		}
	}
	free(soa);
	return r;
}

/* Launch arguments shared by the fused and the naive host loops. */
typedef struct de_args {
	unsigned long long seed;
	int hist_every, hist_len;
	float target, fstar;
} de_args;

static rt_status launch_fused(de_gpu *g, const de_job *job, const de_args *a, int block,
			      unsigned smem, int grid_cap, long gen_end, rt_error *err)
{
	for (int s = 0; s < g->nstreams || (s == 0 && g->nstreams == 0); s++) {
		int ns = g->nstreams ? g->nstreams : 1;
		int pbegin = (int)(job->problems * s / ns), pend = (int)(job->problems * (s + 1) / ns);
		int ge = (int)gen_end, he = a->hist_every, hl = a->hist_len;
		float target = a->target, fstar = a->fstar;
		unsigned long long seed = a->seed;
		gpu_ptr hist = g->hist;
		void *args[] = { &g->pop, &g->fit, &g->state, &g->bestx, &hist, &g->shift, &g->rot,
				 &seed, &pbegin, &pend, &ge, &he, &hl, &target, &fstar, &g->ad, &g->arch,
				 &g->work, &g->iwork, &g->x0 };
		int n = pend - pbegin;
		if (n <= 0)
			continue;
		gpu_launch_cfg cfg = { { (unsigned)(n < grid_cap ? n : grid_cap), 1, 1 },
				       { (unsigned)block, 1, 1 }, smem,
				       g->nstreams ? g->streams[s] : NULL };
		rt_status st = gpu_launch(g->mod, "de_fused", &cfg, args, err);
		if (st != RT_OK)
			return st;
	}
	return RT_OK;
}

static rt_status launch_naive_gen(de_gpu *g, const de_job *job, const de_args *a, int block, int gen,
				  rt_error *err)
{
	int pbegin = 0, pend = (int)job->problems, he = a->hist_every, hl = a->hist_len;
	unsigned long long seed = a->seed;
	float target = a->target, fstar = a->fstar;
	long long items = (long long)job->problems * job->np;
	gpu_launch_cfg ecfg = { { (unsigned)((items + DE_NAIVE_THREADS - 1) / DE_NAIVE_THREADS), 1, 1 },
				{ DE_NAIVE_THREADS, 1, 1 }, 0, NULL };
	gpu_launch_cfg bcfg = { { (unsigned)job->problems, 1, 1 }, { (unsigned)block, 1, 1 }, 0, NULL };
	rt_status st;
	if (gen == 0) {
		void *ia[] = { &g->pop, &seed, &pbegin, &pend, &g->x0 };
		void *ea[] = { &g->pop, &g->fit, &g->state, &g->shift, &g->rot, &pbegin, &pend };
		if ((st = gpu_launch(g->mod, "de_naive_init", &ecfg, ia, err)) ||
		    (st = gpu_launch(g->mod, "de_naive_eval", &ecfg, ea, err)))
			return st;
	} else {
		void *ma[] = { &g->pop, &g->mut, &g->state, &seed, &gen, &pbegin, &pend };
		void *ca[] = { &g->pop, &g->mut, &g->trial, &g->state, &seed, &gen, &pbegin, &pend };
		void *ea[] = { &g->trial, &g->tfit, &g->state, &g->shift, &g->rot, &pbegin, &pend };
		void *sa[] = { &g->pop, &g->fit, &g->trial, &g->tfit, &g->state, &pbegin, &pend };
		if ((st = gpu_launch(g->mod, "de_naive_mutate", &ecfg, ma, err)) ||
		    (st = gpu_launch(g->mod, "de_naive_cross", &ecfg, ca, err)) ||
		    (st = gpu_launch(g->mod, "de_naive_eval", &ecfg, ea, err)) ||
		    (st = gpu_launch(g->mod, "de_naive_select", &ecfg, sa, err)))
			return st;
	}
	gpu_ptr hist = g->hist;
	void *ba[] = { &g->pop, &g->fit, &g->state, &g->bestx, &hist, &gen, &he, &hl, &target,
		       &fstar, &pbegin, &pend };
	return gpu_launch(g->mod, "de_naive_best", &bcfg, ba, err);
}

/* Generation gen (0: initialisation) of every problem by the multi-block kernel. */
static rt_status launch_mb_gen(de_gpu *g, const de_job *job, const de_args *a, int gen,
			       rt_error *err)
{
	int pbegin = 0, pend = (int)job->problems, he = a->hist_every, hl = a->hist_len;
	unsigned long long seed = a->seed;
	float target = a->target, fstar = a->fstar;
	gpu_ptr hist = g->hist;
	void *args[] = { &g->pop, &g->fit, &g->state, &g->count, &g->bestx, &hist, &g->shift, &g->rot,
			 &seed, &gen, &he, &hl, &target, &fstar, &pbegin, &pend, &g->x0 };
	gpu_launch_cfg cfg = { { (unsigned)(job->problems * job->np), 1, 1 },
			       { (unsigned)mb_block_for(job), 1, 1 }, (unsigned)mb_smem_bytes(job), NULL };
	return gpu_launch(g->mod, "de_mb_gen", &cfg, args, err);
}

/* ---- the objective callback (function = callback) --------------------------------
 * A generation of every problem: de_cb_trials writes the trials as rows, one
 * copy brings them (and each problem's row count) to pinned host memory,
 * de_host_eval calls the caller's objective once per problem on this thread,
 * one copy takes the values back, de_cb_select selects. Per generation that
 * is 4 P R D + 4 P bytes down and 4 P R up (P problems, R rows: the
 * population, CoDE three times it; D dimensions), besides the two launches
 * and one synchronisation; the host widens the rows to doubles
 * (de_host_eval) as on the CPU backend. */

/* Rows a generation hands the callback per problem (CoDE: three trials an individual). */
static size_t cb_rows(const de_job *job)
{
	return (size_t)job->np * (job->strategy == DE_CODE ? DE_CODE_TRIALS : 1);
}

/* Device bytes of the trials and the row counts (the one copy down). */
static size_t cb_trial_bytes(const de_job *job)
{
	return (size_t)job->problems * (cb_rows(job) * job->dim * sizeof(float) + sizeof(int));
}

static rt_status cb_alloc(de_gpu *g, const de_job *job, rt_error *err)
{
	size_t R = cb_rows(job), fb = (size_t)job->problems * R * sizeof(float);
	rt_status s;
	if ((s = alloc(g, &g->cbt, cb_trial_bytes(job), err)) || (s = alloc(g, &g->cbf, fb, err)) ||
	    (s = gpu_host_alloc(g->ctx, cb_trial_bytes(job), (void **)&g->h_t, err)) ||
	    (s = gpu_host_alloc(g->ctx, fb, (void **)&g->h_f, err)))
		return s;
	g->hx = rt_malloc(R * job->dim * sizeof *g->hx, err);
	g->hf = g->hx ? rt_malloc(R * sizeof *g->hf, err) : NULL;
	return g->hf ? RT_OK : RT_ERR_SYSTEM;
}

/* Generation gen (0: initialisation) of every problem with the objective
 * callback (block: threads per problem). */
static rt_status launch_cb_gen(de_gpu *g, const de_job *job, const de_args *a, int block, int gen,
			       rt_error *err)
{
	size_t P = (size_t)job->problems, R = cb_rows(job), RD = R * job->dim;
	int pbegin = 0, pend = (int)P, he = a->hist_every, hl = a->hist_len;
	unsigned long long seed = a->seed;
	float target = a->target, fstar = a->fstar;
	gpu_ptr nrows = g->cbt + P * RD * sizeof(float), hist = g->hist;
	gpu_launch_cfg cfg = { { (unsigned)P, 1, 1 }, { (unsigned)block, 1, 1 }, 0, NULL };
	void *ta[] = { &g->pop, &g->fit, &g->state, &g->cbt, &nrows, &g->x0, &seed, &gen, &g->ad,
		       &g->arch, &g->work, &g->iwork, &pbegin, &pend };
	void *sa[] = { &g->pop, &g->fit, &g->state, &g->cbt, &g->cbf, &g->bestx, &hist, &seed, &gen,
		       &he, &hl, &target, &fstar, &g->ad, &g->arch, &g->work, &g->iwork, &pbegin,
		       &pend };
	rt_status s;
	if ((s = gpu_launch(g->mod, "de_cb_trials", &cfg, ta, err)) ||
	    (s = gpu_download_async(g->ctx, g->h_t, g->cbt, cb_trial_bytes(job), NULL, err)) ||
	    (s = gpu_sync(g->ctx, err)))
		return s;
	const int *n = (const int *)(g->h_t + P * RD);
	for (size_t p = 0; p < P; p++) {
		if (n[p] <= 0)
			continue;   /* stopped */
		if ((size_t)n[p] > R)
			return rt_fail(err, RT_ERR_INTERNAL, "de_cb_trials: problem %zu has %d rows, at most "
				       "%zu expected", p, n[p], R);
		if ((s = de_host_eval(job, (long)p, gen, g->h_t + p * RD, n[p], g->hx, g->hf,
				      g->h_f + p * R, err)))
			return s;
	}
	if ((s = gpu_upload_async(g->ctx, g->cbf, g->h_f, P * R * sizeof(float), NULL, err)))
		return s;
	return gpu_launch(g->mod, "de_cb_select", &cfg, sa, err);
}

/* The multi-block kernel's shared memory (opted in above 48 KiB) and its
 * resident blocks per SM (*bps, at least 1, else an error). */
static rt_status mb_prepare(gpu_module *mod, const de_job *job, const gpu_info *info, int *bps,
			    rt_error *err)
{
	size_t smem = mb_smem_bytes(job);
	int optin = info->smem_per_block_optin > 0 ? info->smem_per_block_optin : DE_DEFAULT_SMEM_OPTIN;
	rt_status s;
	if (smem + 1024 > (size_t)optin)
		return rt_fail(err, RT_ERR_INPUT,
			       "%s: variant = multiblock: dim %d needs %zu bytes of shared memory per block, "
			       "%s allows %d (use variant = fused or naive)",
			       job->spec_path, job->dim, smem, info->name, optin);
	if ((s = gpu_kernel_attrs(mod, "de_mb_gen", (int)smem, -1, err)) ||
	    (s = gpu_occupancy(mod, "de_mb_gen", mb_block_for(job), smem, bps, err)))
		return s;
	if (*bps < 1)
		return rt_fail(err, RT_ERR_UNSUPPORTED,
			       "de_mb_gen with %d threads and %zu bytes of shared memory does not fit on %s",
			       mb_block_for(job), smem, info->name);
	return RT_OK;
}

/* ---- checkpoints (de_ckpt.h) --------------------------------------------------- */

/* How the device keeps the populations (the `two` argument below). */
#define DE_LAY_TWO 1    /* two buffers per problem, the current one by parity */
#define DE_LAY_ROWS 2   /* rows [individual][dim] (multiblock), else [dim][individual] */

/* Where problem p's current population and fitness start in the device
 * buffers, in floats. The fused kernel with the population in global
 * memory (two) keeps two of each per problem, the current one chosen by the
 * parity of the generations done (de.cu); the other layouts keep one. */
static void current_at(const de_job *job, int two, long p, int gens, size_t *pop_at,
		       size_t *fit_at)
{
	two &= DE_LAY_TWO;
	size_t k = (size_t)p * (two ? 2 : 1) + (two && gens > 0 ? (size_t)(gens & 1) : 0);
	*pop_at = k * (size_t)job->np * job->dim;
	*fit_at = k * (size_t)job->np;
}

/* Host copies of the device's population and fitness buffers (layout as on the device). */
static rt_status host_buffers(const de_job *job, int two, float **pop, float **fit, rt_error *err)
{
	size_t nbuf = (size_t)job->problems * (two & DE_LAY_TWO ? 2 : 1);
	*pop = rt_calloc(nbuf * job->np * job->dim, sizeof **pop, err);
	*fit = *pop ? rt_calloc(nbuf * job->np, sizeof **fit, err) : NULL;
	return *fit ? RT_OK : RT_ERR_SYSTEM;
}

/* The run's state from the device into the snapshot s (its buffers
 * allocated; st: the states, just downloaded). */
static rt_status take_snapshot(de_gpu *g, const de_job *job, int two, const de_state *st,
			       de_snapshot *s, rt_error *err)
{
	size_t P = (size_t)job->problems, D = (size_t)job->dim, NP = (size_t)job->np;
	size_t nbuf = P * (two & DE_LAY_TWO ? 2 : 1), hl = (size_t)de_job_hist_len(job), pop_at, fit_at;
	float *pop = NULL, *fit = NULL;
	rt_status r = host_buffers(job, two, &pop, &fit, err);
	if (r == RT_OK)
		r = gpu_download(g->ctx, pop, g->pop, nbuf * NP * D * sizeof *pop, err);
	if (r == RT_OK)
		r = gpu_download(g->ctx, fit, g->fit, nbuf * NP * sizeof *fit, err);
	if (r == RT_OK && hl > 0)
		r = gpu_download(g->ctx, s->hist, g->hist, P * hl * sizeof *s->hist, err);
	for (size_t p = 0; p < P && r == RT_OK; p++) {
		s->st[p] = st[p];
		current_at(job, two, (long)p, st[p].gens, &pop_at, &fit_at);
		for (size_t i = 0; i < NP; i++) {   /* structure of arrays to rows */
			for (size_t j = 0; j < D; j++)
				s->pop[(p * NP + i) * D + j] =
					pop[pop_at + (two & DE_LAY_ROWS ? i * D + j : j * NP + i)];
			s->fit[p * NP + i] = fit[fit_at + i];
		}
	}
	if (r == RT_OK)
		r = adaptive_transfer(g, job, s, 0, err);
	free(pop);
	free(fit);
	return r;
}

/* The snapshot s onto the device: populations, fitness, states (also
 * into st), best vectors, history and adaptive state. */
static rt_status put_snapshot(de_gpu *g, const de_job *job, int two, de_state *st, de_snapshot *s,
			      rt_error *err)
{
	size_t P = (size_t)job->problems, D = (size_t)job->dim, NP = (size_t)job->np;
	size_t nbuf = P * (two & DE_LAY_TWO ? 2 : 1), hl = (size_t)de_job_hist_len(job), pop_at, fit_at;
	float *pop = NULL, *fit = NULL, *bestx = NULL;
	rt_status r = host_buffers(job, two, &pop, &fit, err);
	if (r == RT_OK && !(bestx = rt_malloc(P * D * sizeof *bestx, err)))
		r = RT_ERR_SYSTEM;
	for (size_t p = 0; p < P && r == RT_OK; p++) {
		const float *rows = s->pop + p * NP * D;
		st[p] = s->st[p];
		current_at(job, two, (long)p, st[p].gens, &pop_at, &fit_at);
		for (size_t i = 0; i < NP; i++) {   /* rows to structure of arrays */
			for (size_t j = 0; j < D; j++)
				pop[pop_at + (two & DE_LAY_ROWS ? i * D + j : j * NP + i)] = rows[i * D + j];
			fit[fit_at + i] = s->fit[p * NP + i];
		}
		memcpy(bestx + p * D, rows + (size_t)st[p].best_index * D, D * sizeof *bestx);
	}
	if (r == RT_OK)
		r = gpu_upload(g->ctx, g->pop, pop, nbuf * NP * D * sizeof *pop, err);
	if (r == RT_OK)
		r = gpu_upload(g->ctx, g->fit, fit, nbuf * NP * sizeof *fit, err);
	if (r == RT_OK)
		r = gpu_upload(g->ctx, g->state, st, P * sizeof *st, err);
	if (r == RT_OK)
		r = gpu_upload(g->ctx, g->bestx, bestx, P * D * sizeof *bestx, err);
	if (r == RT_OK && hl > 0)
		r = gpu_upload(g->ctx, g->hist, s->hist, P * hl * sizeof *s->hist, err);
	if (r == RT_OK)
		r = adaptive_transfer(g, job, s, 1, err);
	free(pop);
	free(fit);
	free(bestx);
	return r;
}

/* Copies the run's state back from the device (states in st, just
 * downloaded) and writes it as a checkpoint at generation gen. */
static rt_status save_checkpoint(de_gpu *g, const de_job *job, int two, const de_state *st,
				 long gen, double seconds, double kernel_ms, rt_error *err)
{
	de_snapshot s;
	rt_status r = de_snapshot_alloc(&s, job, err);
	if (r == RT_OK)
		r = take_snapshot(g, job, two, st, &s, err);
	s.gen = gen;
	s.seconds = seconds;
	s.kernel_ms = kernel_ms;
	if (r == RT_OK)
		r = de_ckpt_save(job->ckpt, job, &s, err);
	de_snapshot_free(&s);
	return r;
}

/* Uploads the state of the checkpoint resumed from (states also into st);
 * *gen, *seconds and *kernel_ms: where the run had got, in how long. */
static rt_status restore_checkpoint(de_gpu *g, const de_job *job, int two, de_state *st, long *gen,
				    double *seconds, double *kernel_ms, rt_error *err)
{
	de_snapshot s;
	rt_status r = de_snapshot_alloc(&s, job, err);
	if (r == RT_OK)
		r = de_ckpt_restore(job->ckpt, job, &s, err);
	if (r == RT_OK)
		r = put_snapshot(g, job, two, st, &s, err);
	if (r == RT_OK) {
		*gen = s.gen;
		*seconds = s.seconds;
		*kernel_ms = s.kernel_ms;
	}
	de_snapshot_free(&s);
	return r;
}

/* After generation gen: a migration of the island model when one is due
 * (the populations leave the device and come back), and *over: the run
 * ends here (want: it would on its own; asked: a stop was requested). */
static rt_status island_step(de_gpu *g, const de_job *job, int two, de_state *st, long gen,
			     int want, int asked, int *over, rt_error *err)
{
	if (!rt_islands_due(job->isl, gen)) {
		*over = rt_islands_may_stop(job->isl, gen, want, asked);
		return RT_OK;
	}
	de_snapshot s;
	rt_status r = de_snapshot_alloc(&s, job, err);
	if (r == RT_OK)
		r = take_snapshot(g, job, two, st, &s, err);
	if (r == RT_OK)
		r = de_islands_exchange(job, gen, &s, want, asked, over, err);
	if (r == RT_OK)
		r = put_snapshot(g, job, two, st, &s, err);
	de_snapshot_free(&s);
	return r;
}

rt_status de_gpu_run(const de_job *job, de_progress_fn progress, void *pctx, de_outcome *out,
		     rt_error *err)
{
	de_gpu g;
	gpu_info info;
	gen_source src;
	nvrtc_output nout;
	char arch[32];
	int shared = 0, block = 0, nopt, bps = 0, naive = job->variant == DE_VARIANT_NAIVE;
	int cb = job->function == DE_FN_CALLBACK;   /* its own kernels, whatever the variant */
	int mb = !cb && job->variant == DE_VARIANT_MULTIBLOCK;
	naive &= !cb;
	const char *const *opts = de_gpu_nvrtc_options(&nopt);
	de_state *st = NULL;
	rt_status s;
	size_t P = (size_t)job->problems, NPD = (size_t)job->np * job->dim;

	memset(&g, 0, sizeof g);
	memset(&src, 0, sizeof src);
	memset(&nout, 0, sizeof nout);
	if ((s = de_outcome_alloc(out, job, err)) != RT_OK)
		return s;
	if ((s = gpu_open(err)) || (s = gpu_device_info(0, &info, err)))
		return s;
	gpu_arch_name(&info, arch, sizeof arch);
	if ((s = de_gpu_source(job, &info, &src, &shared, &block, err)))
		goto done;
	double t0 = rt_now();
	if ((s = rt_kprep_early(arch, src.name, src.text.data, opts, nopt, err)) ||
	    (s = gpu_context_open(0, &g.ctx, err)) ||
	    (s = nvrtc_compile(src.name, src.text.data, arch, opts, nopt, &nout, err)))
		goto done;
	out->compile_seconds = rt_now() - t0;
	if ((s = gpu_module_load(g.ctx, nout.cubin, nout.size, &g.mod, err)))
		goto done;

	unsigned smem = !naive && !mb && !cb ? (unsigned)fused_smem_plan(job, shared, block, &info).bytes : 0;
	if (mb && (s = mb_prepare(g.mod, job, &info, &bps, err)))
		goto done;
	if (cb && (s = gpu_occupancy(g.mod, "de_cb_select", block, 0, &bps, err)))
		goto done;
	if (!naive && !mb && !cb) {
		if ((s = gpu_kernel_attrs(g.mod, "de_fused", (int)smem, smem > 0 ? 100 : 0, err)) ||
		    (s = gpu_occupancy(g.mod, "de_fused", block, smem, &bps, err)))
			goto done;
		if (bps < 1) {
			s = rt_fail(err, RT_ERR_UNSUPPORTED,
				    "de_fused with %d threads and %u bytes of shared memory does not fit "
				    "on %s", block, smem, info.name);
			goto done;
		}
	}
	int grid_cap = job->persistent ? bps * info.sm_count : 0x7fffffff;
	if (job->persistent && job->grid_max > 0 && job->grid_max < grid_cap)
		grid_cap = job->grid_max;
	size_t pop_bytes = P * NPD * sizeof(float) * (naive ? 3 : shared && !mb ? 1 : 2);
	size_t need = pop_bytes + P * job->np * sizeof(float) * 2 + P * job->dim * sizeof(float) * 2;
	if (cb)
		need += cb_trial_bytes(job) + P * cb_rows(job) * sizeof(float);
	if (need > info.total_mem / 10 * 9) {
		s = rt_fail(err, RT_ERR_INPUT,
			    "%ld problems of %d x %d need %.1f GiB on the GPU, %s has %.1f GiB",
			    job->problems, job->np, job->dim, need / 1073741824.0, info.name,
			    info.total_mem / 1073741824.0);
		goto done;
	}
	snprintf(out->backend, sizeof out->backend, "gpu");
	snprintf(out->device, sizeof out->device, "%s (%s, driver %d)", info.name, arch,
		 info.driver_version);
	if (cb)
		snprintf(out->detail, sizeof out->detail,
			 "objective callback, 2 launches and 2 copies per generation (%zu bytes down, "
			 "%zu up), block %d", cb_trial_bytes(job), P * cb_rows(job) * sizeof(float), block);
	else if (naive)
		snprintf(out->detail, sizeof out->detail, "naive, 5 launches per generation, block %d",
			 DE_NAIVE_THREADS);
	else if (mb)
		snprintf(out->detail, sizeof out->detail,
			 "multiblock, a block per individual, 1 launch per generation, block %d, "
			 "%d blocks/SM", mb_block_for(job), bps);
	else
		snprintf(out->detail, sizeof out->detail,
			 "fused, population in %s memory, block %d, %d blocks/SM, grid %d%s, %d stream(s)",
			 shared ? "shared" : "global", block, bps,
			 (int)(P < (size_t)grid_cap ? P : (size_t)grid_cap),
			 job->persistent ? " (persistent)" : "", job->streams);

	if ((s = alloc(&g, &g.pop, pop_bytes / (naive ? 3 : 1), err)) ||
	    (s = alloc(&g, &g.fit, P * job->np * sizeof(float) * (naive || (shared && !mb) ? 1 : 2),
		       err)) ||
	    (s = alloc(&g, &g.state, P * sizeof(de_state), err)) ||
	    (s = alloc(&g, &g.bestx, P * job->dim * sizeof(float), err)))
		goto done;
	if (naive && ((s = alloc(&g, &g.mut, P * NPD * sizeof(float), err)) ||
		      (s = alloc(&g, &g.trial, P * NPD * sizeof(float), err)) ||
		      (s = alloc(&g, &g.tfit, P * job->np * sizeof(float), err))))
		goto done;
	if (mb && ((s = alloc(&g, &g.count, P * sizeof(unsigned), err)) ||
		   (s = gpu_memset32(g.ctx, g.count, 0u, P, err))))
		goto done;
	if ((s = alloc_adaptive(&g, job, err)))
		goto done;
	if (cb && (s = cb_alloc(&g, job, err)))
		goto done;
	if (job->x0 && ((s = alloc(&g, &g.x0, job->dim * sizeof(float), err)) ||
			(s = gpu_upload(g.ctx, g.x0, job->x0, job->dim * sizeof(float), err))))
		goto done;
	if (out->hist_len > 0) {
		if ((s = alloc(&g, &g.hist, P * out->hist_len * sizeof(float), err)) ||
		    (s = gpu_memset32(g.ctx, g.hist, 0x7fc00000u, P * out->hist_len, err)))
			goto done;
	}
	if (job->shift_vec && ((s = alloc(&g, &g.shift, P * job->dim * sizeof(float), err)) ||
			       (s = gpu_upload(g.ctx, g.shift, job->shift_vec,
					       P * job->dim * sizeof(float), err))))
		goto done;
	if (job->rot && ((s = alloc(&g, &g.rot, (size_t)job->dim * job->dim * sizeof(float), err)) ||
			 (s = gpu_upload(g.ctx, g.rot, job->rot,
					 (size_t)job->dim * job->dim * sizeof(float), err))))
		goto done;
	size_t cec_bytes = job->cec_data ? (size_t)de_cec_data_len(job->cec_fn, job->dim) * sizeof(float) : 0;
	if (job->cec_data && ((s = alloc(&g, &g.rot, cec_bytes, err)) ||
			      (s = gpu_upload(g.ctx, g.rot, job->cec_data, cec_bytes, err))))
		goto done;
	st = rt_malloc(P * sizeof *st, err);
	if (!st) {
		s = RT_ERR_SYSTEM;
		goto done;
	}
	for (size_t p = 0; p < P; p++) {
		st[p].best = DE_INF;
		st[p].best_index = 0;
		st[p].gens = -1;
		st[p].done = 0;
	}
	if ((s = gpu_upload(g.ctx, g.state, st, P * sizeof *st, err)))
		goto done;
	if (!naive && !mb && !cb && job->streams > 1) {
		for (int k = 0; k < job->streams; k++) {
			if ((s = gpu_stream_create(g.ctx, &g.streams[k], err)))
				goto done;
			g.nstreams++;
		}
	}
	if ((s = gpu_timer_create(g.ctx, &g.timer, err)))
		goto done;

	de_args a = { job->params.seed, job->history_every, out->hist_len, (float)job->target,
		      (float)job->optimum };
	double kernel_ms = 0, ms, before = 0;
	long gen = -1;
	/* two population buffers per problem (de.cu); rows: multiblock */
	int two = mb || cb ? DE_LAY_TWO | DE_LAY_ROWS : !naive && !shared ? DE_LAY_TWO : 0;
	if (de_ckpt_resuming(job->ckpt) &&
	    (s = restore_checkpoint(&g, job, two, st, &gen, &before, &kernel_ms, err)))
		goto done;
	rt_run_begins("de");
	t0 = rt_now() - before;
	for (;;) {
		/* a stretch: to the next report line, checkpoint or the limit */
		long gen_end = gen < 0 ? 0 : de_ckpt_stretch_end(job->ckpt, job, gen);
		if ((s = gpu_timer_start(g.timer, NULL, err)))
			goto done;
		if (naive || mb || cb) {
			for (long q = gen < 0 ? 0 : gen + 1; q <= gen_end; q++)
				if ((s = cb ? launch_cb_gen(&g, job, &a, block, (int)q, err)
					 : naive ? launch_naive_gen(&g, job, &a, block, (int)q, err)
					       : launch_mb_gen(&g, job, &a, (int)q, err)))
					goto done;
		} else if ((s = launch_fused(&g, job, &a, block, smem, grid_cap, gen_end, err))) {
			goto done;
		}
		if ((s = gpu_sync(g.ctx, err)) || (s = gpu_timer_stop(g.timer, NULL, &ms, err)))
			goto done;
		kernel_ms += ms;
		if ((s = gpu_download(g.ctx, st, g.state, P * sizeof *st, err)))
			goto done;
		gen = gen_end;
		long ndone, alive;
		long long evals;
		float bmin;
		de_state_summary(job, st, &ndone, &alive, &evals, &bmin);
		de_cec_note(job, st, gen, out->cec);
		out->evals = evals;
		if ((s = de_check_finite(job, st, err)) != RT_OK)
			goto done;
		int stop = rt_stop_requested();
		if ((s = de_shard_agree(job, &alive, &stop, err)) != RT_OK)
			goto done;
		if (progress && (gen % job->report_every == 0 || gen == job->gens || !alive))
			progress(pctx, job, gen, bmin, ndone, evals, rt_now() - t0);
		int over;
		if ((s = island_step(&g, job, two, st, gen, gen >= job->gens || !alive, stop, &over,
				     err)))
			goto done;
		/* islands write a stop's checkpoint when they stop, together */
		if (de_ckpt_due(job->ckpt, gen, rt_islands_stopping(job->isl, over, stop)) &&
		    (s = save_checkpoint(&g, job, two, st, gen, rt_now() - t0, kernel_ms, err)))
			goto done;
		if (over)
			break;
	}
	out->seconds = rt_now() - t0;
	out->kernel_ms = kernel_ms;
	if ((s = gpu_download(g.ctx, out->bestx, g.bestx, P * job->dim * sizeof(float), err)))
		goto done;
	if (out->hist_len > 0 &&
	    (s = gpu_download(g.ctx, out->hist, g.hist, P * out->hist_len * sizeof(float), err)))
		goto done;
	for (size_t p = 0; p < P; p++) {
		out->best[p] = st[p].best;
		out->gens[p] = st[p].gens;
		out->reached[p] = st[p].done;
	}
	de_outcome_fill_history(out, job);
done:
	free(st);
	gpu_release(&g);
	nvrtc_output_free(&nout);
	gen_free(&src);
	if (s != RT_OK && s != RT_ERR_NOGPU)
		rt_error_prefix(err, "%s (GPU)", job->name);
	return s;
}
