/* mbp_tune.c: kind mbp's tuning hooks (tune.h).
 *
 * GPU: [mbp] variant (the fused persistent kernel or, in batch mode, the
 * split kernels), threads (per block; 0: chosen from the shape) and
 * stage_inputs (a chunk's inputs copied to shared memory first); CPU: the
 * thread count. None changes a weight: every value is mbp_core.h's with the
 * sums in a fixed order (chunks of [mbp] chunk patterns, which is not tuned
 * since it fixes that order), and each weight belongs to one thread whatever
 * the block size. A configuration is timed by training the spec's networks
 * on the spec's data from their initial weights for a few epochs (at least
 * MBP_TUNE_MIN_S seconds, no target RMS): network-epochs per second of the
 * training loop (no compile, no upload). A GPU configuration that cannot
 * be generated, does not fit shared memory, or spills registers (NVRTC
 * -Xptxas -v) is pruned before it is launched. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cpu.h"
#include "gpu.h"
#include "mbp_tune.h"
#include "nvrtc.h"
#include "tune.h"

/* Multiply-adds (weights x patterns x networks x epochs) a first timing aims at. */
#define MBP_TUNE_WORK_CPU 1e8
#define MBP_TUNE_WORK_GPU 2e9
/* A timing shorter than this is made longer (more epochs) and repeated. */
#define MBP_TUNE_MIN_S 0.1

enum { M_VARIANT, M_THREADS, M_STAGE };   /* GPU parameters */

typedef struct mbp_tuner {
	mbp_job job;              /* epochs set for timing; GPU keys set per configuration */
	rt_backend backend;
	gpu_info info;
	gpu_context *ctx;         /* GPU: held open so the trainings share it */
	char arch[16];
	const rt_tune_space *space;
} mbp_tuner;

static const char *const gpu_keys[] = {"variant", "threads", "stage_inputs"};
static const char *const variants[] = {"auto", "fused", "split", NULL};
static const char *const stages[] = {"auto", "no", "yes", NULL};

static void make_space(const mbp_job *job, rt_backend backend, rt_tune_space *s)
{
	static const char *const threads[] = {"0", "64", "128", "192", "256", "384", "512", "768",
					      "1024", NULL};
	static const char *const fused_only[] = {"fused", NULL};
	char def[16];
	snprintf(s->unit, sizeof s->unit, "epochs/s");
	if (backend != RT_BACKEND_GPU) {
		rt_tune_param_threads(&s->params[0]);
		s->nparams = 1;
		return;
	}
	/* the split kernels are for batch mode only */
	rt_tune_param_values(&s->params[M_VARIANT], "mbp", gpu_keys[M_VARIANT],
		   job->mode == MBP_BATCH ? variants : fused_only, variants[job->variant]);
	snprintf(def, sizeof def, "%d", job->threads);
	rt_tune_param_values(&s->params[M_THREADS], "mbp", gpu_keys[M_THREADS], threads, def);
	rt_tune_param_values(&s->params[M_STAGE], "mbp", gpu_keys[M_STAGE], stages, stages[job->stage_inputs]);
	s->nparams = M_STAGE + 1;
}

static int index_of(const char *const *names, const char *v)
{
	for (int i = 0; names[i]; i++)
		if (!strcmp(names[i], v))
			return i;
	return 0;
}

/* t->job with cfg's GPU values. */
static void apply(mbp_tuner *t, const rt_tune_config *cfg)
{
	const rt_tune_space *s = t->space;
	if (t->backend != RT_BACKEND_GPU)
		return;
	t->job.variant = index_of(variants, s->params[M_VARIANT].values[cfg->v[M_VARIANT]]);
	t->job.threads = atoi(s->params[M_THREADS].values[cfg->v[M_THREADS]]);
	t->job.stage_inputs = index_of(stages, s->params[M_STAGE].values[cfg->v[M_STAGE]]);
}

rt_status mbp_tune_check(const mbp_job *job, const char *arch, int smem_optin, int regs_per_block,
			 int *ok, char *why, int size, rt_error *err)
{
	mbp_gpu_plan plan;
	gen_source src;
	rt_error e;
	int nopt;
	const char *const *opts = mbp_gpu_nvrtc_options(&nopt);
	rt_status st = RT_OK;
	*ok = 1;
	memset(&src, 0, sizeof src);
	mbp_gpu_plan_for(job, &plan);
	if (mbp_gpu_source(job, &src, &e) != RT_OK) {
		*ok = 0;   /* too many weights per thread for this block */
		snprintf(why, (size_t)size, "%.150s", e.msg);
	} else if ((int)plan.smem > smem_optin) {
		*ok = 0;
		snprintf(why, (size_t)size, "needs %u bytes of shared memory per block, the device "
			 "allows %d", plan.smem, smem_optin);
	} else {
		st = rt_tune_check_kernel(src.name, src.text.data, arch, opts, nopt, plan.kernel,
					  plan.threads, regs_per_block, ok, why, size, err);
	}
	gen_free(&src);
	return st;
}

static rt_status tune_prune(void *state, const rt_tune_config *cfg, int *ok, char *why, int size,
			    rt_error *err)
{
	mbp_tuner *t = state;
	*ok = 1;
	if (t->backend != RT_BACKEND_GPU)
		return RT_OK;
	apply(t, cfg);
	return mbp_tune_check(&t->job, t->arch, t->info.smem_per_block_optin, t->info.regs_per_block,
			      ok, why, size, err);
}

/* One training of t->job: network-epochs and seconds. */
static rt_status train_once(mbp_tuner *t, double *epochs, double *seconds, rt_error *err)
{
	mbp_outcome out;
	rt_status st;
	memset(&out, 0, sizeof out);
	t->job.report_every = (int)t->job.epochs;
	st = t->backend == RT_BACKEND_GPU ? mbp_gpu_train(&t->job, NULL, NULL, &out, err)
					  : mbp_cpu_train(&t->job, NULL, NULL, &out, err);
	*epochs = (double)out.epochs;
	*seconds = out.seconds;
	mbp_outcome_free(&out);
	return st;
}

static rt_status tune_time(void *state, const rt_tune_config *cfg, double *rate, rt_error *err)
{
	mbp_tuner *t = state;
	double epochs = 0, seconds = 0;
	int old = cpu_threads();
	rt_status st;
	*rate = 0;
	apply(t, cfg);
	if (t->backend != RT_BACKEND_GPU)
		cpu_set_threads(atoi(t->space->params[0].values[cfg->v[0]]));
	/* Too short a timing: more epochs (kept for the configurations after it). */
	while ((st = train_once(t, &epochs, &seconds, err)) == RT_OK && seconds < MBP_TUNE_MIN_S &&
	       t->job.epochs < 1L << 30) {
		double grow = seconds > 0 ? 1.5 * MBP_TUNE_MIN_S / seconds : 16;
		t->job.epochs = (long)((double)t->job.epochs * (grow < 2 ? 2 : grow > 1024 ? 1024 : grow));
	}
	if (st == RT_OK && seconds > 0)
		*rate = epochs / seconds;
	cpu_set_threads(old);
	return st;
}

static rt_status tune_overrides(void *state, const rt_tune_config *cfg, char *buf, int size,
				rt_error *err)
{
	mbp_tuner *t = state;
	return rt_tune_overrides_text(t->space, cfg, buf, size, err);
}

static void tune_close(void *state)
{
	mbp_tuner *t = state;
	if (!t)
		return;
	mbp_job_free(&t->job);
	gpu_context_close(t->ctx);
	free(t);
}

/* Epochs of a first timing: about MBP_TUNE_WORK_* multiply-adds, at least
 * 3, at most the spec's; no target RMS (every network trains them all). */
static void timing_length(mbp_job *job, rt_backend backend)
{
	long n = 1, e;
	for (int k = 0; k < job->data.sets; k++)
		n = job->data.ntrain[k] > n ? job->data.ntrain[k] : n;
	double per_epoch = (double)job->shape.nweights * (double)n * (double)job->networks,
	       want = (backend == RT_BACKEND_GPU ? MBP_TUNE_WORK_GPU : MBP_TUNE_WORK_CPU) / per_epoch;
	e = want < 3 ? 3 : want > 1e9 ? 1000000000L : (long)want;
	job->epochs = e < job->epochs ? e : job->epochs;
	job->target_rms = 0;
}

static rt_status tune_open(rt_spec *spec, const rt_options *opt, rt_backend backend,
			   rt_tune_space *space, void **state, rt_error *err)
{
	mbp_tuner *t = rt_calloc(1, sizeof *t, err);
	rt_status st;
	*state = NULL;
	if (!t)
		return RT_ERR_SYSTEM;
	t->backend = backend;
	t->space = space;
	if ((st = mbp_job_from_spec(&t->job, spec, opt, err)) == RT_OK && backend == RT_BACKEND_GPU &&
	    (st = gpu_device_info(0, &t->info, err)) == RT_OK &&
	    (st = gpu_context_open(0, &t->ctx, err)) == RT_OK)
		gpu_arch_name(&t->info, t->arch, sizeof t->arch);
	if (st != RT_OK) {
		tune_close(t);
		return st;
	}
	timing_length(&t->job, backend);
	make_space(&t->job, backend, space);
	snprintf(space->what, sizeof space->what, "%ld network(s) of %d weights, %s mode, %s data, "
		 "%ld+ epochs from the initial weights", t->job.networks, t->job.shape.nweights,
		 mbp_mode_name(t->job.mode), t->job.data.source, t->job.epochs);
	*state = t;
	return RT_OK;
}

static const char *const mbp_unsigned_keys[] = {
	"mbp.variant", "mbp.threads", "mbp.stage_inputs", "mbp.epochs", "mbp.target_rms",
	"mbp.report_every", "problem.seed", NULL
};

const rt_tune_kind mbp_tune_kind = {
	mbp_unsigned_keys, tune_open, tune_overrides, tune_prune, tune_time, tune_close
};
