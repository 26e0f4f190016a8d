/* svm_tune.c: kind svm's tuning hooks (tune.h).
 *
 * GPU: [svm] gpu_kernels (the persistent kernel or the seed's per-role
 * kernels), gpu_cache_mb (the device's kernel-row cache) and
 * gpu_blocks_per_sm (the persistent grid); CPU: cache_mb (svm-train's -m)
 * and the thread count. None changes the model: a kernel row is the same
 * numbers whether it is computed, cached or gathered from the Gram matrix,
 * and every pick is an arg-max with ties to a fixed index, whatever the
 * blocks (svm.cu); the CPU's rows are filled element by element on the
 * pool. A configuration is timed by training on the spec's training set
 * with the spec's parameters and the iteration limit cut to about
 * SVM_TUNE_WORK_* kernel evaluations (training again until SVM_TUNE_MIN_S
 * seconds have passed): SMO iterations per second, wall clock around the
 * training (upload, cache set-up and, on the GPU, the Gram matrix
 * included). GPU configurations whose kernel spills registers (NVRTC
 * -Xptxas -v) are pruned before they are launched. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cpu.h"
#include "gpu.h"
#include "log.h"
#include "nvrtc.h"
#include "svm_tune.h"
#include "tune.h"

/* Kernel evaluations (points x features x iterations) the iteration limit aims at. */
#define SVM_TUNE_WORK_CPU 3e8
#define SVM_TUNE_WORK_GPU 3e10
/* Shortest measurement, seconds (small problems train again). */
#define SVM_TUNE_MIN_S 0.05

enum { C_CACHE, C_THREADS };                 /* CPU parameters */
enum { G_KERNELS, G_CACHE, G_BLOCKS };       /* GPU parameters */

typedef struct svm_tuner {
	svm_job job;
	svm_params p;             /* the job's, with the cut iteration limit */
	rt_backend backend;
	gpu_info info;
	gpu_context *ctx;         /* GPU: held open so the trainings share it */
	char arch[16];
	const rt_tune_space *space;
} svm_tuner;

static const char *const gpu_keys[] = {"gpu_kernels", "gpu_cache_mb", "gpu_blocks_per_sm"};
static const char *const kernel_names[] = {"persistent", "roles", NULL};

static void make_space(const svm_params *p, rt_backend backend, rt_tune_space *s)
{
	static const char *const cpu_cache[] = {"10", "40", "100", "400", "1000", "4000", NULL},
		*const gpu_cache[] = {"0", "64", "256", "1024", "4096", "16384", NULL},
		*const blocks[] = {"0", "1", "2", "4", NULL};
	char def[32];
	snprintf(s->unit, sizeof s->unit, "iter/s");
	if (backend != RT_BACKEND_GPU) {
		snprintf(def, sizeof def, "%g", p->cache_mb);
		rt_tune_param_values(&s->params[C_CACHE], "svm", "cache_mb", cpu_cache, def);
		rt_tune_param_threads(&s->params[C_THREADS]);
		s->nparams = 2;
		return;
	}
	rt_tune_param_values(&s->params[G_KERNELS], "svm", gpu_keys[G_KERNELS], kernel_names, kernel_names[p->gpu_roles]);
	snprintf(def, sizeof def, "%g", p->gpu_cache_mb);
	rt_tune_param_values(&s->params[G_CACHE], "svm", gpu_keys[G_CACHE], gpu_cache, def);
	snprintf(def, sizeof def, "%d", p->gpu_blocks_per_sm);
	rt_tune_param_values(&s->params[G_BLOCKS], "svm", gpu_keys[G_BLOCKS], blocks, def);
	s->nparams = 3;
}

/* The parameters of cfg: the job's, with cfg's values. */
static void params_for(const svm_tuner *t, const rt_tune_config *cfg, svm_params *p)
{
	const rt_tune_space *s = t->space;
	*p = t->p;
	if (t->backend != RT_BACKEND_GPU) {
		p->cache_mb = atof(s->params[C_CACHE].values[cfg->v[C_CACHE]]);
		return;
	}
	p->gpu_roles = !strcmp(s->params[G_KERNELS].values[cfg->v[G_KERNELS]], "roles");
	p->gpu_cache_mb = atof(s->params[G_CACHE].values[cfg->v[G_CACHE]]);
	p->gpu_blocks_per_sm = atoi(s->params[G_BLOCKS].values[cfg->v[G_BLOCKS]]);
}

rt_status svm_tune_check(const svm_params *p, int nfeat, const char *arch, int regs_per_block,
			 int *ok, char *why, int size, rt_error *err)
{
	gen_source src;
	int nopt;
	const char *const *opts = svm_gpu_nvrtc_options(&nopt);
	rt_status st;
	*ok = 1;
	memset(&src, 0, sizeof src);
	/* 256 threads per block: svm.cu's SVM_THREADS */
	if ((st = svm_gpu_source(p, nfeat, &src, err)) == RT_OK)
		st = rt_tune_check_kernel(src.name, src.text.data, arch, opts, nopt,
					  p->gpu_roles ? "svm_row" : "svm_persistent", 256,
					  regs_per_block, ok, why, size, err);
	gen_free(&src);
	return st;
}

static rt_status tune_prune(void *state, const rt_tune_config *cfg, int *ok, char *why, int size,
			    rt_error *err)
{
	svm_tuner *t = state;
	svm_params p;
	*ok = 1;
	if (t->backend != RT_BACKEND_GPU)
		return RT_OK;
	params_for(t, cfg, &p);
	return svm_tune_check(&p, t->job.train.nfeat, t->arch, t->info.regs_per_block, ok, why, size,
			      err);
}

static rt_status tune_time(void *state, const rt_tune_config *cfg, double *rate, rt_error *err)
{
	svm_tuner *t = state;
	svm_params p;
	double t0 = rt_now(), iterations = 0, seconds = 0;
	int old = cpu_threads();
	rt_status st = RT_OK;
	*rate = 0;
	params_for(t, cfg, &p);
	if (t->backend != RT_BACKEND_GPU)
		cpu_set_threads(atoi(t->space->params[C_THREADS].values[cfg->v[C_THREADS]]));
	while (st == RT_OK && seconds < SVM_TUNE_MIN_S) {
		svm_model m;
		memset(&m, 0, sizeof m);
		if ((st = svm_train(&t->job.train, &p, &m, err)) == RT_OK)
			iterations += (double)m.iterations;
		svm_model_free(&m);
		seconds = rt_now() - t0;
	}
	if (st == RT_OK && seconds > 0)
		*rate = iterations / seconds;
	cpu_set_threads(old);
	return st;
}

static rt_status tune_overrides(void *state, const rt_tune_config *cfg, char *buf, int size,
				rt_error *err)
{
	svm_tuner *t = state;
	return rt_tune_overrides_text(t->space, cfg, buf, size, err);
}

static void tune_close(void *state)
{
	svm_tuner *t = state;
	if (!t)
		return;
	svm_job_free(&t->job);
	gpu_context_close(t->ctx);
	free(t);
}

/* The job's parameters for timing: the backend, and an iteration limit of
 * about SVM_TUNE_WORK_* kernel evaluations (never above the spec's), whose
 * reaching is no cause for a warning. */
static void timing_params(svm_tuner *t)
{
	const svm_data *d = &t->job.train;
	double want = (t->backend == RT_BACKEND_GPU ? SVM_TUNE_WORK_GPU : SVM_TUNE_WORK_CPU) /
		      ((double)(d->n > 0 ? d->n : 1) * (d->nfeat > 0 ? d->nfeat : 1));
	long cap = want < 50 ? 50 : want > 1e7 ? 10000000L : (long)want;
	t->p = t->job.params;
	t->p.gpu = t->backend == RT_BACKEND_GPU;
	t->p.max_iter = t->p.max_iter > 0 && t->p.max_iter < cap ? t->p.max_iter : cap;
	t->p.limit_expected = 1;
}

static rt_status tune_open(rt_spec *spec, const rt_options *opt, rt_backend backend,
			   rt_tune_space *space, void **state, rt_error *err)
{
	svm_tuner *t = rt_calloc(1, sizeof *t, err);
	rt_status st;
	*state = NULL;
	if (!t)
		return RT_ERR_SYSTEM;
	t->backend = backend;
	t->space = space;
	if ((st = svm_job_from_spec(spec, opt, &t->job, err)) == RT_OK && backend == RT_BACKEND_GPU &&
	    (st = gpu_device_info(0, &t->info, err)) == RT_OK &&
	    (st = gpu_context_open(0, &t->ctx, err)) == RT_OK)
		gpu_arch_name(&t->info, t->arch, sizeof t->arch);
	if (st != RT_OK) {
		tune_close(t);
		return st;
	}
	timing_params(t);
	make_space(&t->p, backend, space);
	snprintf(space->what, sizeof space->what, "training on %ld points of %d features (at most %ld "
		 "SMO iterations per binary problem), again until %.2f s", t->job.train.n,
		 t->job.train.nfeat, t->p.max_iter, SVM_TUNE_MIN_S);
	*state = t;
	return RT_OK;
}

static const char *const svm_unsigned_keys[] = {
	"svm.cache_mb", "svm.gpu_kernels", "svm.gpu_cache_mb", "svm.gpu_blocks_per_sm", "svm.max_iter",
	"problem.seed", NULL
};

const rt_tune_kind svm_tune_kind = {
	svm_unsigned_keys, tune_open, tune_overrides, tune_prune, tune_time, tune_close
};
