/* gp_tune.c: kind gp's tuning hooks (tune.h).
 *
 * CPU: the 2-D evaluator's block of cases ([gp] cpu_block) and the thread
 * count. GPU: the generated interpreter, [gp] gpu_variant composed from its
 * form (LGP or RPN), cases per thread (W x NV), stack levels in registers,
 * threads per block, passes per block (the chunking of cases) and the
 * shared-memory carve-out. None of them changes results beyond the order of
 * MSE sums (gp_gpu.h: counts exact, MSE within GP_GPU_MSE_TOL).
 * Configurations are timed on one random ramped half-and-half population of
 * the problem's size (nodes x cases per second, best of several runs: CUDA
 * events around the kernels, or the clock); GPU ones that spill or do not
 * fit are pruned from NVRTC's -Xptxas -v report before they are launched. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cpu.h"
#include "gen.h"
#include "gp.h"
#include "gp_conv.h"
#include "gp_eval.h"
#include "gp_gpu.h"
#include "gp_tune.h"
#include "log.h"
#include "tune.h"

enum { C_BLOCK, C_THREADS };                                   /* CPU parameters */
enum { G_FORM, G_CASES, G_REGS, G_THREADS, G_PASSES, G_CARVE };  /* GPU parameters */

typedef struct gp_tuner {
	gp_problem p;
	rt_backend backend;
	gpu_info info;           /* GPU: device 0 */
	gpu_context *ctx;        /* GPU: held open so evaluators share it */
	char arch[16];
	gp_packed rpn, lgp;
	double work;             /* tree nodes x fitness cases of the population */
	double *fit;
	const rt_tune_space *space;
} gp_tuner;

static const char *const cases_per_thread[] = {"1x1", "2x1", "1x4", "4x1", "2x2", "4x2", "2x4",
					       "4x3", "4x4", NULL};

static void param(rt_tune_space *s, int i, const char *name)
{
	snprintf(s->params[i].name, sizeof s->params[i].name, "%s", name);
	s->nparams = i + 1 > s->nparams ? i + 1 : s->nparams;
}

static void cpu_space(rt_tune_space *s)
{
	int t;
	param(s, C_BLOCK, "block");
	for (int b = 256; b <= GP_EVAL_BLOCK_MAX; b *= 2)
		if ((t = rt_tune_param_add(&s->params[C_BLOCK], "%d", b)) >= 0 && b == GP_EVAL_BLOCK_DEFAULT)
			s->params[C_BLOCK].def = t;
	snprintf(s->params[C_BLOCK].key, sizeof s->params[C_BLOCK].key, "gp.cpu_block");
	rt_tune_param_threads(&s->params[C_THREADS]);
	s->nparams = C_THREADS + 1;
	snprintf(s->unit, sizeof s->unit, "GPop/s");
}

/* The index of v among p's values (they were added from the default first). */
static int add_default(rt_tune_param *p, const char *const *values, const char *def)
{
	for (int i = 0; values[i]; i++)
		if (rt_tune_param_add(p, "%s", values[i]) >= 0 && !strcmp(values[i], def))
			p->def = i;
	return p->def;
}

static void gpu_space(rt_tune_space *s)
{
	static const char *const forms[] = {"lgp", "rpn", NULL}, *const regs[] = {"0", "1", "2", "3", "4", NULL},
		*const threads[] = {"64", "128", "256", "512", "1024", NULL},
		*const passes[] = {"0", "1", "2", "4", "8", "16", NULL},
		*const carve[] = {"driver", "0", "50", "100", NULL};
	gp_gpu_config d;
	char v[32];
	gp_gpu_config_default(&d);
	param(s, G_FORM, "form");
	add_default(&s->params[G_FORM], forms, d.form == GP_FORM_LGP ? "lgp" : "rpn");
	param(s, G_CASES, "cases WxNV");
	snprintf(v, sizeof v, "%dx%d", d.width, d.nvec);
	add_default(&s->params[G_CASES], cases_per_thread, v);
	param(s, G_REGS, "reg levels");
	snprintf(v, sizeof v, "%d", d.regs);
	add_default(&s->params[G_REGS], regs, v);
	param(s, G_THREADS, "threads");
	snprintf(v, sizeof v, "%d", d.threads);
	add_default(&s->params[G_THREADS], threads, v);
	param(s, G_PASSES, "passes");
	snprintf(v, sizeof v, "%d", d.passes);
	add_default(&s->params[G_PASSES], passes, v);
	param(s, G_CARVE, "carve-out");
	add_default(&s->params[G_CARVE], carve, "driver");
	snprintf(s->unit, sizeof s->unit, "GPop/s");
}

/* The interpreter configuration of cfg: the default's, with cfg's values. */
static void gpu_config(const rt_tune_space *s, const rt_tune_config *cfg, gp_gpu_config *c)
{
	const char *carve = s->params[G_CARVE].values[cfg->v[G_CARVE]];
	gp_gpu_config_default(c);
	c->form = strcmp(s->params[G_FORM].values[cfg->v[G_FORM]], "rpn") ? GP_FORM_LGP : GP_FORM_RPN;
	sscanf(s->params[G_CASES].values[cfg->v[G_CASES]], "%dx%d", &c->width, &c->nvec);
	c->regs = atoi(s->params[G_REGS].values[cfg->v[G_REGS]]);
	c->threads = atoi(s->params[G_THREADS].values[cfg->v[G_THREADS]]);
	c->passes = atoi(s->params[G_PASSES].values[cfg->v[G_PASSES]]);
	c->carveout = strcmp(carve, "driver") ? atoi(carve) : -1;
}

rt_status gp_tune_prune_variant(const gp_problem *p, const gp_gpu_config *c, const char *arch,
				int regs_per_block, int *ok, char *why, int size, rt_error *err)
{
	gen_source src;
	rt_status st;
	memset(&src, 0, sizeof src);
	if ((st = gp_gpu_render(&p->cases, &p->fset, c, &src, err)) == RT_OK)
		st = rt_tune_check_kernel(src.name, src.text.data, arch, gp_gpu_nvrtc_options,
					  gp_gpu_nvrtc_noptions, "gpg_eval", c->threads, regs_per_block,
					  ok, why, size, err);
	gen_free(&src);
	return st;
}

static rt_status tune_prune(void *state, const rt_tune_config *cfg, int *ok, char *why, int size,
			    rt_error *err)
{
	gp_tuner *t = state;
	gp_gpu_config c;
	*ok = 1;
	if (t->backend != RT_BACKEND_GPU)
		return RT_OK;
	gpu_config(t->space, cfg, &c);
	return gp_tune_prune_variant(&t->p, &c, t->arch, t->info.regs_per_block, ok, why, size, err);
}

static rt_status tune_overrides(void *state, const rt_tune_config *cfg, char *buf, int size,
				rt_error *err)
{
	gp_tuner *t = state;
	const rt_tune_space *s = t->space;
	gp_gpu_config c;
	char name[96];
	if (t->backend != RT_BACKEND_GPU)
		return rt_tune_overrides_text(s, cfg, buf, size, err);
	gpu_config(s, cfg, &c);
	return rt_format(buf, (size_t)size, err, "gp.gpu_variant=%s",
			 gp_gpu_variant_name(&c, name, sizeof name));
}

/* Best of `repeats` evaluations after one untimed: seconds. */
#define GP_TUNE_REPEATS 3
/* Shortest CPU measurement, seconds. */
#define GP_TUNE_MIN_S 0.03

static rt_status time_gpu(gp_tuner *t, const rt_tune_config *cfg, double *seconds, rt_error *err)
{
	gp_gpu_config c;
	gp_gpu *g = NULL;
	gp_gpu_stats s;
	rt_status st;
	gpu_config(t->space, cfg, &c);
	if ((st = gp_gpu_open(&t->p.cases, &t->p.fset, &c, &g, err)))
		return st;
	const gp_packed *pk = gp_gpu_form(g) == GP_FORM_LGP ? &t->lgp : &t->rpn;
	*seconds = 1e30;
	for (int r = 0; r <= GP_TUNE_REPEATS && st == RT_OK; r++)
		if ((st = gp_gpu_eval(g, pk, t->fit, &s, err)) == RT_OK && r > 0 &&
		    s.kernel_ms * 1e-3 < *seconds)
			*seconds = s.kernel_ms * 1e-3;
	gp_gpu_close(g);
	return st;
}

static rt_status tune_time(void *state, const rt_tune_config *cfg, double *rate, rt_error *err)
{
	gp_tuner *t = state;
	const rt_tune_space *s = t->space;
	double best = 1e30;
	rt_status st = RT_OK;
	if (t->backend == RT_BACKEND_GPU) {
		st = time_gpu(t, cfg, &best, err);
	} else {
		gp_eval_tuning tun = {atoi(s->params[C_BLOCK].values[cfg->v[C_BLOCK]]),
				      atoi(s->params[C_THREADS].values[cfg->v[C_THREADS]]), 0};
		const gp_packed *pk = gp_eval_method_form(t->p.evaluator) == GP_FORM_LGP ? &t->lgp : &t->rpn;
		/* Each measurement repeats evaluations for at least GP_TUNE_MIN_S (small
		 * problems take well under a millisecond) and counts their mean. */
		for (int r = 0; r <= GP_TUNE_REPEATS && st == RT_OK; r++) {
			double t0 = rt_now(), dt = 0;
			long n = 0;
			do
				st = gp_eval_cpu_tuned(pk, &t->p.cases, t->p.evaluator, &tun, t->fit, err);
			while (st == RT_OK && ++n && (dt = rt_now() - t0) < GP_TUNE_MIN_S);
			if (st == RT_OK && r > 0 && dt / (double)n < best)
				best = dt / (double)n;
		}
	}
	*rate = st == RT_OK && best > 0 ? t->work / best : 0;
	return st;
}

static void tune_close(void *state)
{
	gp_tuner *t = state;
	if (!t)
		return;
	gp_packed_free(&t->rpn);
	gp_packed_free(&t->lgp);
	free(t->fit);
	gpu_context_close(t->ctx);
	gp_problem_free(&t->p);
	free(t);
}

/* The random population every configuration is timed on, packed both ways. */
static rt_status make_population(gp_tuner *t, uint64_t seed, rt_error *err)
{
	int n = t->p.population;
	gp_tree *trees = rt_calloc((size_t)n, sizeof *trees, err);
	rt_status st = trees ? RT_OK : RT_ERR_SYSTEM;
	t->fit = trees ? rt_malloc((size_t)n * sizeof *t->fit, err) : NULL;
	if (st == RT_OK && !t->fit)
		st = RT_ERR_SYSTEM;
	if (st == RT_OK && !(st = gp_init_population(trees, n, &t->p.fset, &t->p.breed, seed, err)) &&
	    !(st = gp_pack_rpn(&t->rpn, trees, n, err)))
		st = gp_pack_lgp(&t->lgp, trees, n, err);
	if (st == RT_OK)
		t->work = (double)gp_packed_total_nodes(&t->rpn) * (double)t->p.cases.ncases;
	for (int i = 0; trees && i < n; i++)
		gp_tree_free(&trees[i]);
	free(trees);
	return st;
}

static rt_status tune_open(rt_spec *spec, const rt_options *opt, rt_backend backend,
			   rt_tune_space *space, void **state, rt_error *err)
{
	gp_tuner *t = rt_calloc(1, sizeof *t, err);
	uint64_t seed;
	rt_status st;
	if (!t)
		return RT_ERR_SYSTEM;
	gp_packed_init(&t->rpn);
	gp_packed_init(&t->lgp);
	t->backend = backend;
	t->space = space;
	*state = NULL;
	if ((st = rt_job_seed(spec, opt, &seed, err)) || (st = gp_problem_load(spec, &t->p, err))) {
		free(t);
		return st;
	}
	if (backend == RT_BACKEND_GPU) {
		gpu_space(space);
		if (!(st = gpu_device_info(0, &t->info, err)) && !(st = gpu_context_open(0, &t->ctx, err)))
			gpu_arch_name(&t->info, t->arch, sizeof t->arch);
	} else {
		cpu_space(space);
	}
	if (st == RT_OK)
		st = make_population(t, seed, err);
	snprintf(space->what, sizeof space->what, "%d random programs (%.1f nodes on average) x %zu cases",
		 t->p.population, t->p.population ? t->work / (double)t->p.cases.ncases / t->p.population : 0,
		 t->p.cases.ncases);
	if (st) {
		tune_close(t);
		return st;
	}
	*state = t;
	return RT_OK;
}

static const char *const gp_unsigned_keys[] = {
	"gp.cpu_block", "gp.gpu_variant", "gp.generations", "gp.stop_on_success", "problem.seed", NULL
};

const rt_tune_kind gp_tune_kind = {
	gp_unsigned_keys, tune_open, tune_overrides, tune_prune, tune_time, tune_close
};
