/* de_tune.c: kind de's tuning hooks (tune.h).
 *
 * GPU: [de] variant (fused, naive or multiblock kernels), pop_memory, block, streams and
 * persistent, and for the adaptive strategies state_memory; CPU: the thread count. None changes results (the CPU and both
 * GPU variants draw the same numbers and select the same way; de_cpu.c).
 * A configuration is timed by running the spec's job, with fresh random
 * populations from its seed, for a few generations (about DE_TUNE_WORK
 * component evaluations): evaluations per second of the optimisation loop
 * (no compile, no setup). On the GPU a configuration whose population does
 * not fit shared memory, or whose fused or multi-block kernel spills registers, is pruned
 * before it is launched. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cpu.h"
#include "de_impl.h"
#include "de_tune.h"
#include "tune.h"

/* Component evaluations a timing aims at (CPU, GPU). */
#define DE_TUNE_WORK_CPU 2e6
#define DE_TUNE_WORK_GPU 2e9

enum { D_VARIANT, D_POPMEM, D_BLOCK, D_STREAMS, D_PERSISTENT, D_STATEMEM };   /* GPU parameters */

typedef struct de_tuner {
	rt_spec *spec;
	rt_options opt;
	rt_backend backend;
	gpu_info info;
	const rt_tune_space *space;
} de_tuner;

static const char *const gpu_keys[] = {"variant", "pop_memory", "block", "streams", "persistent",
				       "state_memory"};

static void make_space(const de_job *job, rt_backend backend, rt_tune_space *s)
{
	static const char *const variants[] = {"fused", "naive", "multiblock", NULL},
		*const popmem[] = {"auto", "shared", "global", NULL},
		*const blocks[] = {"0", "64", "128", "256", "512", "1024", NULL},
		*const streams[] = {"1", "2", "4", "8", NULL}, *const persistent[] = {"0", "1", NULL};
	snprintf(s->unit, sizeof s->unit, "evals/s");
	if (backend != RT_BACKEND_GPU) {
		rt_tune_param_threads(&s->params[0]);
		s->nparams = 1;
		return;
	}
	rt_tune_param_values(&s->params[D_VARIANT], "de", gpu_keys[D_VARIANT], variants,
		   job->variant == DE_VARIANT_NAIVE ? "naive"
		   : job->variant == DE_VARIANT_MULTIBLOCK ? "multiblock" : "fused");
	rt_tune_param_values(&s->params[D_POPMEM], "de", gpu_keys[D_POPMEM], popmem, "auto");
	rt_tune_param_values(&s->params[D_BLOCK], "de", gpu_keys[D_BLOCK], blocks, "0");
	rt_tune_param_values(&s->params[D_STREAMS], "de", gpu_keys[D_STREAMS], streams, "1");
	rt_tune_param_values(&s->params[D_PERSISTENT], "de", gpu_keys[D_PERSISTENT], persistent, "0");
	s->nparams = D_PERSISTENT + 1;
	if (de_is_adaptive(job->strategy)) {   /* where their state lives (de_gpu.c) */
		rt_tune_param_values(&s->params[D_STATEMEM], "de", gpu_keys[D_STATEMEM], popmem, "auto");
		s->nparams = D_STATEMEM + 1;
	}
}

/* The spec's job with cfg applied, a few generations long, prepared. */
static rt_status job_for(de_tuner *t, const rt_tune_config *cfg, de_job *job, rt_error *err)
{
	const rt_tune_space *s = t->space;
	rt_status st;
	memset(job, 0, sizeof *job);
	for (int p = 0; t->backend == RT_BACKEND_GPU && p < s->nparams; p++)
		if ((st = rt_spec_set(t->spec, "de", gpu_keys[p], s->params[p].values[cfg->v[p]], err)))
			return st;
	if ((st = de_job_from_spec(job, t->spec, &t->opt, err)))
		return st;
	double per_gen = (double)job->problems * job->np * job->dim,
	       want = (t->backend == RT_BACKEND_GPU ? DE_TUNE_WORK_GPU : DE_TUNE_WORK_CPU) / per_gen;
	job->generations = want < 3 ? 3 : want > job->gens ? job->gens : (long)want;
	job->max_evals = 0;
	job->target = 0;
	job->history_every = 0;
	job->report_every = (int)job->generations;
	if ((st = de_job_finish(job, err)) == RT_OK)
		st = de_job_prepare(job, t->backend != RT_BACKEND_GPU, err);
	return st;
}

static rt_status tune_prune(void *state, const rt_tune_config *cfg, int *ok, char *why, int size,
			    rt_error *err)
{
	static const char *const opts[] = {"--fmad=false", "-Xptxas", "-v"};
	de_tuner *t = state;
	de_job job;
	gen_source src;
	char arch[16];
	int shared, block;
	rt_error e;
	rt_status st;
	*ok = 1;
	if (t->backend != RT_BACKEND_GPU)
		return RT_OK;
	memset(&src, 0, sizeof src);
	if ((st = job_for(t, cfg, &job, err)) == RT_OK &&
	    de_gpu_source(&job, &t->info, &src, &shared, &block, &e) != RT_OK) {
		*ok = 0;   /* the population does not fit where cfg puts it */
		snprintf(why, (size_t)size, "%.150s", e.msg);
	} else if (st == RT_OK &&
		   (job.variant == DE_VARIANT_FUSED || job.variant == DE_VARIANT_MULTIBLOCK)) {
		int mb = job.variant == DE_VARIANT_MULTIBLOCK;
		gpu_arch_name(&t->info, arch, sizeof arch);
		st = rt_tune_check_kernel(src.name, src.text.data, arch, opts, 3,
					  mb ? "de_mb_gen" : "de_fused", mb ? de_gpu_mb_block(&job) : block,
					  t->info.regs_per_block, ok, why, size, err);
	}
	gen_free(&src);
	de_job_free(&job);
	return st;
}

static rt_status tune_time(void *state, const rt_tune_config *cfg, double *rate, rt_error *err)
{
	de_tuner *t = state;
	de_job job;
	de_outcome out;
	int old = cpu_threads();
	rt_status st;
	memset(&out, 0, sizeof out);
	if (t->backend != RT_BACKEND_GPU)
		cpu_set_threads(atoi(t->space->params[0].values[cfg->v[0]]));
	if ((st = job_for(t, cfg, &job, err)) == RT_OK)
		st = t->backend == RT_BACKEND_GPU ? de_gpu_run(&job, NULL, NULL, &out, err)
						  : de_cpu_run(&job, NULL, NULL, &out, err);
	*rate = st == RT_OK && out.seconds > 0 ? (double)out.evals / out.seconds : 0;
	cpu_set_threads(old);
	de_outcome_free(&out);
	de_job_free(&job);
	return st;
}

static rt_status tune_overrides(void *state, const rt_tune_config *cfg, char *buf, int size,
				rt_error *err)
{
	de_tuner *t = state;
	return rt_tune_overrides_text(t->space, cfg, buf, size, err);
}

static void tune_close(void *state) { free(state); }

static rt_status tune_open(rt_spec *spec, const rt_options *opt, rt_backend backend,
			   rt_tune_space *space, void **state, rt_error *err)
{
	de_tuner *t = rt_calloc(1, sizeof *t, err);
	de_job job;
	rt_status st;
	*state = NULL;
	if (!t)
		return RT_ERR_SYSTEM;
	t->spec = spec;
	t->opt = *opt;
	t->backend = backend;
	t->space = space;
	st = de_job_from_spec(&job, spec, opt, err);
	if (st == RT_OK && backend == RT_BACKEND_GPU)
		st = gpu_device_info(0, &t->info, err);
	if (st == RT_OK) {
		make_space(&job, backend, space);
		snprintf(space->what, sizeof space->what, "%ld problem(s), dim %d, population %d, a few "
			 "generations from random populations", job.problems, job.dim, job.np);
		*state = t;
	} else {
		free(t);
	}
	de_job_free(&job);
	return st;
}

static const char *const de_unsigned_keys[] = {
	"de.variant", "de.pop_memory", "de.state_memory", "de.block", "de.streams", "de.persistent",
	"de.generations", "de.max_evals", "de.target", "de.history_every", "de.report_every",
	"problem.seed", NULL
};

const rt_tune_kind de_tune_kind = {
	de_unsigned_keys, tune_open, tune_overrides, tune_prune, tune_time, tune_close
};
