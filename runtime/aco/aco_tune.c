/* aco_tune.c: kind aco's tuning hooks (tune.h).
 *
 * GPU: [aco] block (threads per block of the construction kernel, 0: sized
 * from the SMs) and, for the warp kernel with candidate lists, cand_memory
 * (the compact candidate table in shared memory or read through L1/L2);
 * CPU: the thread count. None changes a tour: every ant draws from Philox
 * by (seed, ant, iteration, step) and the prefix-sum order is fixed by
 * [aco] construction, which is not tuned because the two orders differ in
 * the last bits of the roulette (aco_core.h). A configuration is timed on
 * the spec's instance, prepared once: the MAX-MIN loop runs a few
 * iterations (about ACO_TUNE_STEPS_* construction steps) from the spec's
 * seed; rate = tours per second of the loop (no compile, no upload). A GPU
 * configuration whose warp kernel does not fit shared memory, or whose
 * construction kernel spills registers (NVRTC -Xptxas -v), is pruned before
 * it is launched. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "aco_tune.h"
#include "cpu.h"
#include "gpu.h"
#include "nvrtc.h"
#include "tune.h"

/* Construction steps (ants x cities x iterations) a timing aims at. */
#define ACO_TUNE_STEPS_CPU 1e6
#define ACO_TUNE_STEPS_GPU 3e8

enum { A_BLOCK, A_CAND };   /* GPU parameters */

typedef struct aco_tuner {
	aco_job job;              /* prepared once; block and cand_memory set per configuration */
	rt_backend backend;
	gpu_info info;
	gpu_context *ctx;         /* GPU: held open so the backends share it */
	char arch[16];
	const rt_tune_space *space;
} aco_tuner;

static const char *const gpu_keys[] = {"block", "cand_memory"};

static void make_space(const aco_job *job, rt_backend backend, rt_tune_space *s)
{
	static const char *const blocks[] = {"0", "32", "64", "128", "256", "512", "1024", NULL},
		*const cand[] = {"auto", "shared", "global", NULL};
	char def[16];
	snprintf(s->unit, sizeof s->unit, "tours/s");
	if (backend != RT_BACKEND_GPU) {
		rt_tune_param_threads(&s->params[0]);
		s->nparams = 1;
		return;
	}
	snprintf(def, sizeof def, "%d", job->block);
	rt_tune_param_values(&s->params[A_BLOCK], "aco", gpu_keys[A_BLOCK], blocks, def);
	s->nparams = 1;
	/* the table's place matters only to the warp kernel with candidate lists */
	if (job->construct == ACO_CONSTRUCT_WARP && job->cand_len > 0) {
		rt_tune_param_values(&s->params[A_CAND], "aco", gpu_keys[A_CAND], cand,
				     aco_cand_memory_name(job->cand_memory));
		s->nparams = 2;
	}
}

/* t->job with cfg's GPU values. */
static void apply(aco_tuner *t, const rt_tune_config *cfg)
{
	const rt_tune_space *s = t->space;
	if (t->backend != RT_BACKEND_GPU)
		return;
	t->job.block = atoi(s->params[A_BLOCK].values[cfg->v[A_BLOCK]]);
	if (s->nparams > A_CAND) {
		const char *v = s->params[A_CAND].values[cfg->v[A_CAND]];
		t->job.cand_memory = !strcmp(v, "shared") ? ACO_CAND_SHARED
				   : !strcmp(v, "global") ? ACO_CAND_GLOBAL : ACO_CAND_AUTO;
	}
}

rt_status aco_tune_check(const aco_job *job, const char *arch, int sms, int smem_optin,
			 int regs_per_block, int *ok, char *why, int size, rt_error *err)
{
	aco_gpu_plan plan;
	gen_source src;
	rt_error e;
	int nopt;
	const char *const *opts = aco_gpu_nvrtc_options(&nopt);
	rt_status st;
	*ok = 1;
	if (aco_gpu_plan_for(job, sms, smem_optin, &plan, &e) != RT_OK) {
		*ok = 0;   /* the block or the shared memory does not fit */
		snprintf(why, (size_t)size, "%.150s", e.msg);
		return RT_OK;
	}
	memset(&src, 0, sizeof src);
	if ((st = aco_gpu_source(job, &src, err)) == RT_OK)
		st = rt_tune_check_kernel(src.name, src.text.data, arch, opts, nopt, plan.kernel,
					  plan.threads, regs_per_block, ok, why, size, err);
	gen_free(&src);
	return st;
}

static rt_status tune_prune(void *state, const rt_tune_config *cfg, int *ok, char *why, int size,
			    rt_error *err)
{
	aco_tuner *t = state;
	*ok = 1;
	if (t->backend != RT_BACKEND_GPU)
		return RT_OK;
	apply(t, cfg);
	return aco_tune_check(&t->job, t->arch, t->info.sm_count > 0 ? t->info.sm_count : 1,
			      t->info.smem_per_block_optin, t->info.regs_per_block, ok, why, size, err);
}

static rt_status tune_time(void *state, const rt_tune_config *cfg, double *rate, rt_error *err)
{
	aco_tuner *t = state;
	aco_backend *b = NULL;
	aco_outcome out;
	int old = cpu_threads();
	rt_status st;
	memset(&out, 0, sizeof out);
	*rate = 0;
	apply(t, cfg);
	if (t->backend != RT_BACKEND_GPU)
		cpu_set_threads(atoi(t->space->params[0].values[cfg->v[0]]));
	st = t->backend == RT_BACKEND_GPU ? aco_gpu_create(&t->job, aco_tau0(&t->job), &b, err)
					  : aco_cpu_create(&t->job, aco_tau0(&t->job), &b, err);
	if (st == RT_OK)
		st = aco_loop_run(&t->job, b, NULL, NULL, &out, err);
	if (st == RT_OK && out.seconds > 0)
		*rate = (double)out.tours / out.seconds;
	if (b)
		b->ops->destroy(b);
	cpu_set_threads(old);
	aco_outcome_free(&out);
	return st;
}

static rt_status tune_overrides(void *state, const rt_tune_config *cfg, char *buf, int size,
				rt_error *err)
{
	aco_tuner *t = state;
	return rt_tune_overrides_text(t->space, cfg, buf, size, err);
}

static void tune_close(void *state)
{
	aco_tuner *t = state;
	if (!t)
		return;
	aco_job_free(&t->job);
	gpu_context_close(t->ctx);
	free(t);
}

/* The loop's length for a timing: about ACO_TUNE_STEPS_* steps, at least 3
 * iterations, at most the spec's; no time limit, target or history. */
static void timing_length(aco_job *job, rt_backend backend)
{
	double want = (backend == RT_BACKEND_GPU ? ACO_TUNE_STEPS_GPU : ACO_TUNE_STEPS_CPU) /
		      ((double)job->ants * job->n);
	long iters = want < 3 ? 3 : (long)want;
	job->iterations = iters < job->iterations ? iters : job->iterations;
	job->time_limit = 0;
	job->target = 0;
	job->history_every = 0;
	job->report_every = (int)job->iterations;
}

static rt_status tune_open(rt_spec *spec, const rt_options *opt, rt_backend backend,
			   rt_tune_space *space, void **state, rt_error *err)
{
	aco_tuner *t = rt_calloc(1, sizeof *t, err);
	rt_status st;
	*state = NULL;
	if (!t)
		return RT_ERR_SYSTEM;
	t->backend = backend;
	t->space = space;
	if ((st = aco_job_from_spec(spec, opt, &t->job, err)) == RT_OK &&
	    (st = aco_job_prepare(&t->job, err)) == RT_OK && backend == RT_BACKEND_GPU &&
	    (st = gpu_device_info(0, &t->info, err)) == RT_OK &&
	    (st = gpu_context_open(0, &t->ctx, err)) == RT_OK)
		gpu_arch_name(&t->info, t->arch, sizeof t->arch);
	if (st != RT_OK) {
		tune_close(t);
		return st;
	}
	aco_job_finish(&t->job, backend == RT_BACKEND_GPU);
	timing_length(&t->job, backend);
	make_space(&t->job, backend, space);
	snprintf(space->what, sizeof space->what, "%.40s: %d cities, %d ants, %s construction, %ld "
		 "iterations of the MAX-MIN loop from seed %llu", t->job.instance, t->job.n,
		 t->job.ants, aco_construct_name(t->job.construct), t->job.iterations,
		 (unsigned long long)t->job.seed);
	*state = t;
	return RT_OK;
}

static const char *const aco_unsigned_keys[] = {
	"aco.block", "aco.cand_memory", "aco.iterations", "aco.time_limit", "aco.target",
	"aco.optimum", "aco.report_every", "aco.history_every", "data.optimal", "problem.seed", NULL
};

const rt_tune_kind aco_tune_kind = {
	aco_unsigned_keys, tune_open, tune_overrides, tune_prune, tune_time, tune_close
};
