/* mbp_gpu.c: kind `mbp` on the GPU: the generated source (templates/mbp/mbp.cu
 * with the job's shape, mode, chunk and block size as #defines), the device
 * buffers (patterns, training sets, per-network weights and rule state), and
 * the host loop that launches the persistent kernel once per report interval
 * and reads back only each network's 24-byte state in between. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kprep.h"
#include "log.h"
#include "mbp_ckpt.h"
#include "mbp_impl.h"
#include "nvrtc.h"
#include "timeline.h"
#include "signals.h"

/* Most weights one thread may own (its rule state lives in registers). */
#define MBP_GPU_MAX_WPT 16

/* The kernel's per-network state (mbp_gpu_state in mbp.cu). */
typedef struct gpu_state {
	float best, last_rms;
	int epoch, done, restores, pad;
} gpu_state;

/* `variant = auto` splits batch-mode epochs over blocks from this many
 * training patterns on (a few networks only). */
#define MBP_GPU_SPLIT_PATTERNS 2048

typedef struct mbp_gpu {
	gpu_context *ctx;
	gpu_module *mod;
	gpu_timer *timer;
	gpu_ptr x, t, train, ntrain, w, eta, v, gp, wb, state, part, part_sse;
	int threads, train_stride, split, nchunks;
	unsigned smem;
	gpu_state *host_state;
} mbp_gpu;

static const char *const nvrtc_options[] = { "--fmad=false", "-Xptxas", "-v" };

const char *const *mbp_gpu_nvrtc_options(int *n)
{
	*n = (int)(sizeof nvrtc_options / sizeof nvrtc_options[0]);
	return nvrtc_options;
}

/* The largest training set of the job. */
static long max_train(const mbp_job *job)
{
	long n = 0;
	for (int k = 0; k < job->data.sets; k++)
		n = job->data.ntrain[k] > n ? job->data.ntrain[k] : n;
	return n;
}

/* Does the job run the split kernels? */
static int use_split(const mbp_job *job)
{
	if (job->variant != MBP_VARIANT_AUTO)
		return job->variant == MBP_VARIANT_SPLIT;
	return job->mode == MBP_BATCH && max_train(job) >= MBP_GPU_SPLIT_PATTERNS &&
	       mbp_job_networks_all(job) <= 32;
}

/* Networks up to which a launch is latency-bound (a block per network
 * leaves most SMs idle), so blocks are made as wide as the work allows. */
#define MBP_GPU_FEW_NETWORKS 32

/* Threads per block: the job's; else, for a few networks, about two weights
 * per thread or four neuron-pattern items per thread in a chunk, whichever
 * is more (measured on an H100: Sonar 60-10-1 1.80M epochs/min at 160
 * threads, 3.53M at 640; two-spirals 2-20-10-1 1.72M at 128, 3.52M at
 * 1024); for many networks, eight weights per thread so more blocks fit on
 * an SM (1000 Sonar networks: 514M epochs/min at 128, 489M at 256). From 128
 * to 1024, a multiple of 32. */
static int block_threads(const mbp_job *job)
{
	const mbp_shape *s = &job->shape;
	long n = max_train(job), t;
	if (job->threads > 0)
		return job->threads;
	if (use_split(job))
		return 512;      /* Friedman 10-20-10-1: 587k epochs/min at 128, 830k at 256, 897k at 512 */
	if (n > job->chunk)
		n = job->chunk;
	if (mbp_job_networks_all(job) <= MBP_GPU_FEW_NETWORKS) {
		t = (s->nweights + 1) / 2;
		if (n * (s->h1 > s->nlast ? s->h1 : s->nlast) / 4 > t)
			t = n * (s->h1 > s->nlast ? s->h1 : s->nlast) / 4;
	} else {
		t = (s->nweights + 7) / 8;
	}
	t = (t + 31) / 32 * 32;
	return t < 128 ? 128 : t > 1024 ? 1024 : (int)t;
}

/* Are a chunk's inputs copied to shared memory? For a few networks (each
 * block has an SM to itself) the copy replaces indirect global loads in the
 * two busiest phases; for many, the smaller block fits more per SM. */
static int stage_inputs(const mbp_job *job)
{
	if (job->stage_inputs != MBP_STAGE_AUTO)
		return job->stage_inputs == MBP_STAGE_YES;
	return mbp_job_networks_all(job) <= MBP_GPU_FEW_NETWORKS;
}

/* Dynamic shared memory of the kernels (MBP_S_FLOATS in mbp.cu). */
static unsigned smem_bytes(const mbp_job *job)
{
	const mbp_shape *s = &job->shape;
	size_t c = (size_t)job->chunk, h2 = s->h2 > 0 ? (size_t)s->h2 : 1;
	size_t x = stage_inputs(job) ? c * (size_t)s->ni : 0;
	return (unsigned)(4 * ((size_t)s->nweights + c * (5 * (size_t)s->h1 + 2 * h2 + 2 * s->no + 1) + x));
}

void mbp_gpu_plan_for(const mbp_job *job, mbp_gpu_plan *plan)
{
	plan->split = use_split(job);
	plan->kernel = plan->split ? "mbp_split_grad" : "mbp_fused";
	plan->threads = block_threads(job);
	plan->smem = smem_bytes(job);
	plan->stage_inputs = stage_inputs(job);
}

rt_status mbp_gpu_source(const mbp_job *job, gen_source *src, rt_error *err)
{
	const mbp_shape *s = &job->shape;
	char name[192];
	int threads = block_threads(job);
	if ((s->nweights + threads - 1) / threads > MBP_GPU_MAX_WPT)
		return rt_fail(err, RT_ERR_UNSUPPORTED, "%s: %d weights over %d threads is more than %d "
			       "per thread for the GPU kernel: set [mbp] threads higher (up to 1024) "
			       "or use --backend cpu", job->name, s->nweights, threads, MBP_GPU_MAX_WPT);
	snprintf(name, sizeof name, "mbp-%s.cu", job->name);
	gen_begin(src, name, "multiple back-propagation: the fused persistent training kernel");
	gen_line(src, "#define MBP_NI %d", s->ni);
	gen_line(src, "#define MBP_H1 %d", s->h1);
	gen_line(src, "#define MBP_H2 %d", s->h2);
	gen_line(src, "#define MBP_NO %d", s->no);
	gen_line(src, "#define MBP_SPACE %d", s->space);
	gen_line(src, "#define MBP_ACT_HIDDEN %d  /* %s */", s->act_hidden, mbp_activation_name(s->act_hidden));
	gen_line(src, "#define MBP_ACT_OUTPUT %d  /* %s */", s->act_output, mbp_activation_name(s->act_output));
	gen_line(src, "#define MBP_ACT_SPACE %d  /* %s */", s->act_space, mbp_activation_name(s->act_space));
	gen_line(src, "#define MBP_MODE %d  /* %s */", job->mode, mbp_mode_name(job->mode));
	gen_line(src, "#define MBP_CHUNK %d", job->chunk);
	gen_line(src, "#define MBP_THREADS %d", threads);
	gen_line(src, "#define MBP_STAGE_X %d", stage_inputs(job));
	gen_line(src, "#define MBP_KERNELS %d  /* %s */", use_split(job) ? 2 : 1,
		 use_split(job) ? "the split pair" : "mbp_fused");
	if (job->net_base > 0)   /* this MPI rank's first network (mbp_shard.c) */
		gen_line(src, "#define MBP_NET_BASE %ld", job->net_base);
	return gen_template(src, "mbp/mbp.cu", err);
}

static void gpu_release(mbp_gpu *g)
{
	gpu_ptr *p[] = { &g->x, &g->t, &g->train, &g->ntrain, &g->w, &g->eta, &g->v, &g->gp,
			 &g->wb, &g->state, &g->part, &g->part_sse };
	if (g->ctx)
		for (size_t i = 0; i < sizeof p / sizeof p[0]; i++)
			if (*p[i])
				gpu_free(g->ctx, *p[i]);
	if (g->timer)
		gpu_timer_destroy(g->timer);
	if (g->mod)
		gpu_module_unload(g->mod);
	if (g->ctx)
		gpu_context_close(g->ctx);
	free(g->host_state);
}

static rt_status open_module(mbp_gpu *g, const mbp_job *job, mbp_outcome *out, rt_error *err)
{
	gen_source src;
	nvrtc_output nout;
	gpu_info info;
	char arch[32];
	int nopt;
	const char *const *opts = mbp_gpu_nvrtc_options(&nopt);
	double t0 = rt_now();
	rt_status st;
	memset(&src, 0, sizeof src);
	memset(&nout, 0, sizeof nout);
	if ((st = gpu_open(err)) || (st = gpu_device_info(0, &info, err)))
		return st;
	gpu_arch_name(&info, arch, sizeof arch);
	g->threads = block_threads(job);
	g->smem = smem_bytes(job);
	if ((int)g->smem > info.smem_per_block_optin)
		return rt_fail(err, RT_ERR_UNSUPPORTED, "%s: the kernel needs %u bytes of shared memory "
			       "per block with chunk = %d, %s allows %d: set [mbp] chunk lower",
			       job->name, g->smem, job->chunk, info.name, info.smem_per_block_optin);
	g->split = use_split(job);
	g->nchunks = (int)((max_train(job) + job->chunk - 1) / job->chunk);
	if ((st = mbp_gpu_source(job, &src, err)) == RT_OK &&
	    (st = rt_kprep_early(arch, src.name, src.text.data, opts, nopt, err)) == RT_OK &&
	    (st = gpu_context_open(0, &g->ctx, err)) == RT_OK &&
	    (st = nvrtc_compile(src.name, src.text.data, arch, opts, nopt, &nout, err)) == RT_OK &&
	    (st = gpu_module_load(g->ctx, nout.cubin, nout.size, &g->mod, err)) == RT_OK)
		st = gpu_kernel_attrs(g->mod, g->split ? "mbp_split_grad" : "mbp_fused", (int)g->smem,
				      -1, err);
	out->compile_seconds = rt_now() - t0;
	snprintf(out->backend, sizeof out->backend, "gpu");
	snprintf(out->device, sizeof out->device, "%.200s (%s, driver %d)", info.name, arch,
		 info.driver_version);
	nvrtc_output_free(&nout);
	gen_free(&src);
	return st;
}

/* Allocates a device buffer and fills it from host memory. */
static rt_status put(mbp_gpu *g, gpu_ptr *d, const void *h, size_t bytes, rt_error *err)
{
	rt_status st = gpu_alloc(g->ctx, bytes ? bytes : 4, d, err);
	if (st == RT_OK && bytes)
		st = gpu_upload(g->ctx, *d, h, bytes, err);
	return st;
}

/* The patterns and the training sets (as int pattern numbers, one row of
 * train_stride per set). */
static rt_status upload_data(mbp_gpu *g, const mbp_job *job, rt_error *err)
{
	const mbp_dataset *d = &job->data;
	int *sets, *counts;
	long stride = 1;
	rt_status st;
	for (int s = 0; s < d->sets; s++)
		if (d->ntrain[s] > stride)
			stride = d->ntrain[s];
	g->train_stride = (int)stride;
	sets = rt_calloc((size_t)d->sets * stride, sizeof *sets, err);
	counts = rt_calloc((size_t)d->sets, sizeof *counts, err);
	if (!sets || !counts) {
		free(sets);
		free(counts);
		return RT_ERR_SYSTEM;
	}
	for (int s = 0; s < d->sets; s++) {
		counts[s] = (int)d->ntrain[s];
		for (long q = 0; q < d->ntrain[s]; q++)
			sets[(size_t)s * stride + q] = (int)d->train[s][q];
	}
	if ((st = put(g, &g->x, d->x, (size_t)d->n * d->ni * sizeof(float), err)) == RT_OK &&
	    (st = put(g, &g->t, d->t, (size_t)d->n * d->no * sizeof(float), err)) == RT_OK &&
	    (st = put(g, &g->train, sets, (size_t)d->sets * stride * sizeof *sets, err)) == RT_OK)
		st = put(g, &g->ntrain, counts, (size_t)d->sets * sizeof *counts, err);
	free(sets);
	free(counts);
	return st;
}

/* The networks' state on the device: the initial weights, step sizes and
 * zeroed memories, or (from not NULL) a checkpoint's. */
static rt_status upload_networks(mbp_gpu *g, const mbp_job *job, const mbp_snapshot *from,
				 rt_error *err)
{
	size_t nw = (size_t)job->shape.nweights, all = nw * (size_t)job->networks;
	float *w = rt_malloc(all * sizeof *w, err), *eta = rt_malloc(all * sizeof *eta, err);
	rt_status st = RT_ERR_SYSTEM;
	g->host_state = rt_calloc((size_t)job->networks, sizeof *g->host_state, err);
	if (w && eta && g->host_state) {
		for (long k = 0; k < job->networks; k++) {
			mbp_job_initial_weights(job, k, w + (size_t)k * nw);
			g->host_state[k].best = INFINITY;
			if (from) {
				const mbp_result *r = &from->res[k];
				g->host_state[k] = (gpu_state){ r->best_rms, r->train_rms, (int)r->epochs,
								r->reached, (int)r->restores, 0 };
			}
		}
		for (size_t i = 0; i < all; i++)
			eta[i] = job->step0;
		if ((st = put(g, &g->w, from ? from->w : w, all * 4, err)) == RT_OK &&
		    (st = put(g, &g->wb, from ? from->wb : w, all * 4, err)) == RT_OK &&
		    (st = put(g, &g->eta, from ? from->eta : eta, all * 4, err)) == RT_OK &&
		    (st = gpu_alloc(g->ctx, all * 4, &g->v, err)) == RT_OK &&
		    (st = from ? gpu_upload(g->ctx, g->v, from->v, all * 4, err)
			       : gpu_memset32(g->ctx, g->v, 0, all, err)) == RT_OK &&
		    (st = gpu_alloc(g->ctx, all * 4, &g->gp, err)) == RT_OK &&
		    (st = from ? gpu_upload(g->ctx, g->gp, from->gp, all * 4, err)
			       : gpu_memset32(g->ctx, g->gp, 0, all, err)) == RT_OK)
			st = put(g, &g->state, g->host_state, (size_t)job->networks * sizeof(gpu_state), err);
		if (st == RT_OK && g->split &&
		    (st = gpu_alloc(g->ctx, all * 4 * (size_t)g->nchunks, &g->part, err)) == RT_OK)
			st = gpu_alloc(g->ctx, (size_t)job->networks * g->nchunks * 4, &g->part_sse, err);
	}
	free(w);
	free(eta);
	return st;
}

/* The checkpoint at epoch: the device's weights and rule state copied back
 * (the scalars are host_state, just polled). */
static rt_status save_networks(mbp_gpu *g, const mbp_job *job, long epoch, rt_error *err)
{
	mbp_snapshot s;
	size_t bytes = (size_t)job->networks * job->shape.nweights * sizeof(float);
	rt_status st = mbp_snapshot_alloc(&s, job, err);
	if (st != RT_OK)
		return st;
	s.epoch = epoch;
	for (long k = 0; k < job->networks; k++) {
		const gpu_state *h = &g->host_state[k];
		s.res[k] = (mbp_result){ h->epoch, h->done, h->last_rms, h->best, h->restores };
	}
	if ((st = gpu_download(g->ctx, s.w, g->w, bytes, err)) == RT_OK &&
	    (st = gpu_download(g->ctx, s.eta, g->eta, bytes, err)) == RT_OK &&
	    (st = gpu_download(g->ctx, s.v, g->v, bytes, err)) == RT_OK &&
	    (st = gpu_download(g->ctx, s.gp, g->gp, bytes, err)) == RT_OK &&
	    (st = gpu_download(g->ctx, s.wb, g->wb, bytes, err)) == RT_OK)
		st = mbp_ckpt_save(job, &s, err);
	mbp_snapshot_free(&s);
	return st;
}

/* One launch: every network runs on to epoch_end (or its target). */
static rt_status launch(mbp_gpu *g, const mbp_job *job, int epoch_end, rt_error *err)
{
	int sets = job->data.sets, batch = job->mode == MBP_BATCH ? 1 << 30 : job->batch_size;
	float target = (float)job->target_rms;
	unsigned long long seed = job->seed;
	mbp_rule rule = job->rule;
	void *a[] = { &g->x, &g->t, &g->train, &g->ntrain, &g->train_stride, &sets, &g->w, &g->eta,
		      &g->v, &g->gp, &g->wb, &g->state, &rule, &target, &batch, &seed, &epoch_end };
	gpu_launch_cfg cfg = { { (unsigned)job->networks, 1, 1 }, { (unsigned)g->threads, 1, 1 },
			       g->smem, NULL };
	return gpu_launch(g->mod, "mbp_fused", &cfg, a, err);
}

/* Batch-mode epochs up to epoch_end, two launches each (split kernels). */
static rt_status launch_split(mbp_gpu *g, const mbp_job *job, int epoch_from, int epoch_end,
			      rt_error *err)
{
	int sets = job->data.sets;
	float target = (float)job->target_rms;
	mbp_rule rule = job->rule;
	void *ag[] = { &g->x, &g->t, &g->train, &g->ntrain, &g->train_stride, &sets, &g->w,
		       &g->state, &g->part, &g->part_sse, &g->nchunks, &epoch_end };
	void *ae[] = { &g->ntrain, &sets, &g->w, &g->eta, &g->v, &g->gp, &g->wb, &g->state,
		       &g->part, &g->part_sse, &g->nchunks, &rule, &target, &epoch_end };
	gpu_launch_cfg cg = { { (unsigned)g->nchunks, (unsigned)job->networks, 1 },
			      { (unsigned)g->threads, 1, 1 }, g->smem, NULL };
	gpu_launch_cfg ce = { { (unsigned)job->networks, 1, 1 }, { (unsigned)g->threads, 1, 1 }, 0,
			      NULL };
	rt_status st = RT_OK;
	for (int e = epoch_from; e < epoch_end && st == RT_OK; e++)
		if ((st = gpu_launch(g->mod, "mbp_split_grad", &cg, ag, err)) == RT_OK)
			st = gpu_launch(g->mod, "mbp_split_end", &ce, ae, err);
	return st;
}

/* Downloads the states: networks still training and the lowest RMS. */
static rt_status poll(mbp_gpu *g, const mbp_job *job, long *alive, float *best, rt_error *err)
{
	rt_status st = gpu_download(g->ctx, g->host_state, g->state,
				    (size_t)job->networks * sizeof(gpu_state), err);
	*alive = 0;
	*best = INFINITY;
	for (long k = 0; st == RT_OK && k < job->networks; k++) {
		*alive += !g->host_state[k].done && g->host_state[k].epoch < job->epochs;
		if (g->host_state[k].last_rms < *best)
			*best = g->host_state[k].last_rms;
	}
	return st;
}

static void fill_results(const mbp_gpu *g, const mbp_job *job, mbp_outcome *out)
{
	for (long k = 0; k < job->networks; k++) {
		const gpu_state *s = &g->host_state[k];
		out->res[k].epochs = s->epoch;
		out->res[k].reached = s->done;
		out->res[k].train_rms = s->last_rms;
		out->res[k].best_rms = s->best;
		out->res[k].restores = s->restores;
	}
	mbp_outcome_count(out, job);
}

/* The history row of epoch: the states just polled and the weights, through out. */
static rt_status add_history(mbp_gpu *g, const mbp_job *job, mbp_outcome *out, long epoch,
			     rt_error *err)
{
	rt_status st = RT_OK;
	fill_results(g, job, out);
	if (job->data.nvalid[0] > 0)
		st = gpu_download(g->ctx, out->w, g->w,
				  (size_t)job->networks * job->shape.nweights * sizeof(float), err);
	return st == RT_OK ? mbp_history_add(job, epoch, out, err) : st;
}

static rt_status train_loop(mbp_gpu *g, const mbp_job *job, long epoch, mbp_progress_fn progress,
			    void *ctx, mbp_outcome *out, rt_error *err)
{
	long alive = 1, limit = job->epochs < 0x7fffffffL ? job->epochs : 0x7fffffffL;
	float best;
	double t0 = rt_now(), ms = 0;
	rt_status st;
	rt_run_begins("mbp");
	if ((st = gpu_timer_create(g->ctx, &g->timer, err)) != RT_OK ||
	    (st = gpu_timer_start(g->timer, NULL, err)) != RT_OK)
		return st;
	int stop = rt_stop_requested();
	while (alive > 0 && epoch < limit && !stop) {
		long from = epoch;
		epoch = mbp_block_end(job, epoch, limit);
		st = g->split ? launch_split(g, job, (int)from, (int)epoch, err)
			      : launch(g, job, (int)epoch, err);
		if (st != RT_OK ||
		    (st = poll(g, job, &alive, &best, err)) != RT_OK)
			return st;
		for (long k = 0; k < job->networks; k++)
			if ((st = mbp_check_rms(job, k, g->host_state[k].last_rms, from,
						g->host_state[k].epoch, err)) != RT_OK)
				return st;
		if (progress && mbp_block_reports(job, epoch, limit))
			progress(ctx, job, epoch, alive, best, rt_now() - t0);
		if (mbp_history_due(job, epoch) && (st = add_history(g, job, out, epoch, err)) != RT_OK)
			return st;
		stop = rt_stop_requested();
		if ((st = mbp_shard_agree(&alive, &stop, err)) != RT_OK)
			return st;
		if (mbp_ckpt_due(job, epoch, stop) && (st = save_networks(g, job, epoch, err)) != RT_OK)
			return st;
	}
	if (stop && mbp_ckpt_due(job, epoch, stop) && (st = save_networks(g, job, epoch, err)) != RT_OK)
		return st;
	if ((st = gpu_timer_stop(g->timer, NULL, &ms, err)) != RT_OK)
		return st;
	out->seconds = rt_now() - t0;
	out->kernel_ms = ms;
	fill_results(g, job, out);
	return gpu_download(g->ctx, out->w, g->w,
			    (size_t)job->networks * job->shape.nweights * sizeof(float), err);
}

rt_status mbp_gpu_train(const mbp_job *job, mbp_progress_fn progress, void *ctx,
			mbp_outcome *out, rt_error *err)
{
	mbp_gpu g;
	mbp_snapshot from;
	rt_status st;
	memset(&g, 0, sizeof g);
	memset(&from, 0, sizeof from);
	if ((st = mbp_outcome_alloc(out, job, err)) != RT_OK)
		return st;
	if (mbp_ckpt_resuming(job) && ((st = mbp_snapshot_alloc(&from, job, err)) != RT_OK ||
				       (st = mbp_ckpt_restore(job, &from, err)) != RT_OK)) {
		mbp_snapshot_free(&from);
		return st;
	}
	if ((st = open_module(&g, job, out, err)) == RT_OK &&
	    (st = upload_data(&g, job, err)) == RT_OK &&
	    (st = upload_networks(&g, job, from.w ? &from : NULL, err)) == RT_OK)
		st = train_loop(&g, job, from.w ? from.epoch : 0, progress, ctx, out, err);
	mbp_snapshot_free(&from);
	if (g.split)
		snprintf(out->detail, sizeof out->detail, "split kernels, %d x %ld block(s) of %d "
			 "threads, %u B shared, chunk %d", g.nchunks, job->networks, g.threads, g.smem,
			 job->chunk);
	else
		snprintf(out->detail, sizeof out->detail, "fused persistent kernel, %ld block(s) of %d "
			 "threads, %u B shared, chunk %d", job->networks, g.threads, g.smem, job->chunk);
	gpu_release(&g);
	if (st != RT_OK && st != RT_ERR_NOGPU)
		rt_error_prefix(err, "%s (GPU)", job->name);
	return st;
}
