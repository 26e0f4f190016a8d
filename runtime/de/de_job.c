/* de_job.c: kind `de`'s job: the [de] and [objective] sections of a spec
 * turned into parameters, plus the data both backends share (per-problem
 * shift vectors, the rotation matrix, the CPU's compiled user objective).
 *
 *   [de]
 *   function = sphere      ; sphere rosenbrock rastrigin ackley griewank schwefel user
 *   dim = 30
 *   lower = -100           ; default: the function's textbook box
 *   upper = 100
 *   population = 300       ; default 10 * dim
 *   F = 0.5
 *   CR = 0.9
 *   strategy = rand/1/bin  ; or best/1/bin
 *   bounds = reflect       ; reflect, clip or resample
 *   generations = 0        ; 0: no limit but max_evals
 *   max_evals = 300000     ; per problem; default 10000 * dim (CEC); 0: none
 *   target = 1e-8          ; stop a problem when |best - optimum| <= target; 0: off
 *   problems = 1           ; independent optimisations (Philox stream = problem id)
 *   shift = none           ; or random: a shift vector per problem
 *   rotate = 0             ; 1: one random orthogonal matrix for the run
 *   history_every = 10     ; best value every N generations (0: none)
 *   report_every = 100     ; progress line every N generations
 *   variant = auto         ; GPU: fused, naive, or auto (fused; naive from DE_AUTO_NAIVE_DIM)
 *   pop_memory = auto      ; GPU: auto, shared or global
 *   block = 0              ; GPU threads per block (0: from the population)
 *   streams = 1            ; GPU: split the problems over this many streams
 *   persistent = 0         ; GPU: 1: resident blocks walk over the problems; 0: a block
 *                          ;   per problem, the hardware schedules them (measured faster)
 *   [objective]
 *   code = ...             ; C body over (const float *x, int n), or
 *   file = objective.c     ; the same body in a file next to the spec
 *   optimum = 0            ; f* for the target rule */
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "de_impl.h"
#include "rng.h"

/* Philox streams of the job's setup data: individual field all ones, which
 * no population index reaches (see de_core.h). */
#define DE_STREAM_SHIFT(p) ((0xffffffffull << 32) | (uint64_t)(p))
#define DE_STREAM_ROTATION 0xffffffffffffffffull

static const char *const function_names[] = {
#define DE_NAME_(E, name, lo, hi, zs, doc) #name,
	DE_FUNCTIONS(DE_NAME_)
#undef DE_NAME_
	"user", NULL
};
/* Indexed by enum de_function, de_strategy, de_bounds, de_variant, de_popmem. */
static const char *const strategy_names[] = { "rand/1/bin", "best/1/bin", NULL };
static const char *const bounds_names[] = { "reflect", "clip", "resample", NULL };
static const char *const shift_names[] = { "none", "random", NULL };
static const char *const variant_names[] = { "fused", "naive", "auto", NULL };
static const char *const popmem_names[] = { "auto", "shared", "global", NULL };

void de_job_default(de_job *job, int fn, int dim)
{
	double zs;
	memset(job, 0, sizeof *job);
	snprintf(job->name, sizeof job->name, "de-%s", de_function_name(fn));
	job->function = fn;
	job->dim = dim;
	job->np = 10 * dim;
	job->F = 0.5;
	job->CR = 0.9;
	de_function_box(fn, &job->lower, &job->upper, &zs);
	job->strategy = DE_RAND_1_BIN;
	job->bounds = DE_BOUNDS_REFLECT;
	job->max_evals = 10000LL * dim;
	job->problems = 1;
	job->problems_total = 1;
	job->history_every = 10;
	job->report_every = 100;
	job->seed = 1;
	job->streams = 1;
	job->persistent = 0;
}

static rt_status read_objective(de_job *job, rt_spec *spec, rt_error *err)
{
	char loc[RT_PATH_MAX + 32];
	rt_spec_entry *code = rt_spec_find(spec, "objective", "code");
	rt_spec_entry *file = rt_spec_find(spec, "objective", "file");
	const char *text = NULL;
	rt_status st;
	if ((st = rt_spec_double(spec, "objective", "optimum", 0.0, -1e30, 1e30, &job->optimum, err)))
		return st;
	if (code && file)
		return rt_fail(err, RT_ERR_INPUT, "%s: objective.code and objective.file: give one, not both",
			       rt_spec_key_where(spec, "objective", "file", loc, sizeof loc));
	if (!code && !file)
		return rt_fail(err, RT_ERR_INPUT,
			       "%s: [objective] needs code = <C body over const float *x, int n> or file = <path>",
			       rt_spec_key_where(spec, "de", "function", loc, sizeof loc));
	if (code) {
		if ((st = rt_spec_string(spec, "objective", "code", NULL, &text, err)))
			return st;
		return de_user_set(&job->user, text, spec->path, code->line, NULL, err);
	}
	char path[RT_PATH_MAX];
	if ((st = rt_spec_string(spec, "objective", "file", NULL, &text, err)))
		return st;
	if ((st = rt_spec_data_path(spec, text, path, sizeof path, err))) {
		rt_error_prefix(err, "%s: objective.file",
				rt_spec_key_where(spec, "objective", "file", loc, sizeof loc));
		return st;
	}
	return de_user_set(&job->user, NULL, path, 1, path, err);
}

rt_status de_job_from_spec(de_job *job, rt_spec *spec, const rt_options *opt, rt_error *err)
{
	char loc[RT_PATH_MAX + 32];
	const char *name;
	long v;
	int fn, has_obj = rt_spec_has_section(spec, "objective");
	double zs, lo, hi;
	rt_status st;

	de_job_default(job, DE_FN_SPHERE, 30);
	snprintf(job->spec_path, sizeof job->spec_path, "%s", spec->path);
#define TRY(x) do { if ((st = (x)) != RT_OK) return st; } while (0)
	TRY(rt_spec_string(spec, "problem", "kind", "de", &name, err));
	TRY(rt_spec_string(spec, "problem", "name", "de", &name, err));
	snprintf(job->name, sizeof job->name, "%s", name);
	TRY(rt_job_seed(spec, opt, &job->seed, err));

	TRY(rt_spec_enum(spec, "de", "function", function_names, has_obj ? DE_FN_USER : DE_FN_SPHERE,
			 &fn, err));
	job->function = fn;
	if (fn == DE_FN_USER && !has_obj)
		return rt_fail(err, RT_ERR_INPUT,
			       "%s: de.function = user needs an [objective] section (code = ... or file = ...)",
			       rt_spec_key_where(spec, "de", "function", loc, sizeof loc));
	if (fn != DE_FN_USER && has_obj)
		return rt_fail(err, RT_ERR_INPUT,
			       "%s: de.function = %s, but the spec has an [objective] section: "
			       "set function = user or remove it",
			       rt_spec_key_where(spec, "de", "function", loc, sizeof loc), de_function_name(fn));

	TRY(rt_spec_int(spec, "de", "dim", 30, 1, 1 << 20, &v, err));
	job->dim = (int)v;
	job->max_evals = 10000LL * job->dim;
	de_function_box(fn, &lo, &hi, &zs);
	TRY(rt_spec_double(spec, "de", "lower", lo, -1e30, 1e30, &job->lower, err));
	TRY(rt_spec_double(spec, "de", "upper", hi, -1e30, 1e30, &job->upper, err));
	if (!(job->lower < job->upper))
		return rt_fail(err, RT_ERR_INPUT, "%s: de.upper: expected a value above de.lower (%g), got %g",
			       rt_spec_key_where(spec, "de", "upper", loc, sizeof loc), job->lower, job->upper);
	TRY(rt_spec_int(spec, "de", "population", 10L * job->dim, 4, 1L << 24, &v, err));
	job->np = (int)v;
	if ((long long)job->np * job->dim > INT_MAX / 2)
		return rt_fail(err, RT_ERR_INPUT,
			       "%s: de.population: population x dim must stay below %d, got %d x %d",
			       rt_spec_key_where(spec, "de", "population", loc, sizeof loc), INT_MAX / 2, job->np,
			       job->dim);
	TRY(rt_spec_double(spec, "de", "F", 0.5, 0.0, 2.0, &job->F, err));
	TRY(rt_spec_double(spec, "de", "CR", 0.9, 0.0, 1.0, &job->CR, err));
	TRY(rt_spec_enum(spec, "de", "strategy", strategy_names, DE_RAND_1_BIN, &job->strategy, err));
	TRY(rt_spec_enum(spec, "de", "bounds", bounds_names, DE_BOUNDS_REFLECT, &job->bounds, err));
	TRY(rt_spec_int(spec, "de", "generations", 0, 0, INT_MAX - 1, &job->generations, err));
	TRY(rt_spec_int(spec, "de", "max_evals", (long)job->max_evals, 0, LONG_MAX, &v, err));
	job->max_evals = v;
	if (v > 0 && v < job->np)
		return rt_fail(err, RT_ERR_INPUT,
			       "%s: de.max_evals: expected at least one population (%d evaluations), got %ld",
			       rt_spec_key_where(spec, "de", "max_evals", loc, sizeof loc), job->np, v);
	if (v == 0 && job->generations == 0)
		return rt_fail(err, RT_ERR_INPUT,
			       "%s: de.max_evals = 0 and no generations: set one of them (a target alone "
			       "may never be reached)", rt_spec_key_where(spec, "de", "max_evals", loc, sizeof loc));
	TRY(rt_spec_double(spec, "de", "target", 0.0, 0.0, 1e30, &job->target, err));
	TRY(rt_spec_int(spec, "de", "problems", 1, 1, 1L << 24, &job->problems, err));
	job->problems_total = job->problems;
	TRY(rt_spec_enum(spec, "de", "shift", shift_names, 0, &job->shift, err));
	TRY(rt_spec_bool(spec, "de", "rotate", 0, &job->rotate, err));
	if (fn == DE_FN_USER && (job->shift || job->rotate))
		return rt_fail(err, RT_ERR_INPUT,
			       "%s: de.shift and de.rotate apply to the built-in functions, not to a user objective",
			       rt_spec_key_where(spec, "de", job->shift ? "shift" : "rotate", loc, sizeof loc));
	TRY(rt_spec_int(spec, "de", "history_every", 10, 0, INT_MAX, &v, err));
	job->history_every = (int)v;
	TRY(rt_spec_int(spec, "de", "report_every", 100, 1, INT_MAX, &v, err));
	job->report_every = (int)v;
	TRY(rt_spec_enum(spec, "de", "variant", variant_names, DE_VARIANT_AUTO, &job->variant, err));
	TRY(rt_spec_enum(spec, "de", "pop_memory", popmem_names, DE_POPMEM_AUTO, &job->popmem, err));
	TRY(rt_spec_int(spec, "de", "block", 0, 0, 1024, &v, err));
	if (v % 32 != 0)
		return rt_fail(err, RT_ERR_INPUT, "%s: de.block: expected 0 or a multiple of 32, got %ld",
			       rt_spec_key_where(spec, "de", "block", loc, sizeof loc), v);
	job->block = (int)v;
	TRY(rt_spec_int(spec, "de", "streams", 1, 1, 64, &v, err));
	job->streams = (int)v;
	TRY(rt_spec_bool(spec, "de", "persistent", 0, &job->persistent, err));
	if (fn == DE_FN_USER)
		TRY(read_objective(job, spec, err));
	TRY(rt_spec_check_unused(spec, err));
	if ((st = de_job_finish(job, err)) != RT_OK) {
		rt_error_prefix(err, "%s", spec->path);
		return st;
	}
#undef TRY
	return RT_OK;
}

rt_status de_job_finish(de_job *job, rt_error *err)
{
	double lo, hi, zs;
	long g = job->generations > 0 ? job->generations : INT_MAX - 1;
	if (job->np < 4)
		return rt_fail(err, RT_ERR_INPUT, "population: expected at least 4, got %d", job->np);
	if (job->dim < 1)
		return rt_fail(err, RT_ERR_INPUT, "dim: expected at least 1, got %d", job->dim);
	if (!(job->lower < job->upper))
		return rt_fail(err, RT_ERR_INPUT, "bounds: expected lower < upper, got %g, %g", job->lower,
			       job->upper);
	if (job->max_evals > 0) {
		long long gm = job->max_evals / job->np - 1;
		if (gm < 0)
			return rt_fail(err, RT_ERR_INPUT,
				       "max_evals: %lld is less than one population (%d evaluations)",
				       job->max_evals, job->np);
		if (gm < g)
			g = (long)gm;
	} else if (job->generations == 0) {
		return rt_fail(err, RT_ERR_INPUT,
			       "no stopping rule: set generations or max_evals (target alone may never stop)");
	}
	job->gens = g;
	de_params *p = &job->params;
	p->dim = job->dim;
	p->np = job->np;
	p->strategy = job->strategy;
	p->bounds = job->bounds;
	p->cr16 = (uint32_t)ceil(job->CR * 65536.0);
	p->F = (float)job->F;
	p->lower = (float)job->lower;
	p->upper = (float)job->upper;
	p->seed = job->seed;
	p->problem_base = (uint32_t)job->problem_base;
	if (!(p->lower < p->upper))
		return rt_fail(err, RT_ERR_INPUT, "bounds %g, %g are equal in float", job->lower, job->upper);
	de_function_box(job->function, &lo, &hi, &zs);
	job->zoff = (job->shift || job->rotate) ? (float)zs : 0.0f;
	if (job->variant == DE_VARIANT_AUTO)   /* the faster as measured on an H100 (de_impl.h) */
		job->variant = job->dim >= DE_AUTO_NAIVE_DIM ? DE_VARIANT_NAIVE : DE_VARIANT_FUSED;
	return RT_OK;
}

/* Rows of a random orthogonal matrix: Gaussian rows, modified Gram-Schmidt. */
static rt_status make_rotation(de_job *job, rt_error *err)
{
	int n = job->dim;
	double *m = rt_malloc((size_t)n * n * sizeof *m, err);
	rt_rng rng;
	if (!m)
		return RT_ERR_SYSTEM;
	rt_rng_init(&rng, job->seed, DE_STREAM_ROTATION);
	for (int k = 0; k < n; k++) {
		double *r = m + (size_t)k * n, norm;
		do {
			for (int j = 0; j < n; j++)
				r[j] = rt_rng_normal(&rng);
			for (int q = 0; q < k; q++) {
				const double *o = m + (size_t)q * n;
				double d = 0;
				for (int j = 0; j < n; j++)
					d += r[j] * o[j];
				for (int j = 0; j < n; j++)
					r[j] -= d * o[j];
			}
			norm = 0;
			for (int j = 0; j < n; j++)
				norm += r[j] * r[j];
			norm = sqrt(norm);
		} while (norm < 1e-6);
		for (int j = 0; j < n; j++)
			r[j] /= norm;
	}
	job->rot = rt_malloc((size_t)n * n * sizeof *job->rot, err);
	if (job->rot)
		for (size_t k = 0; k < (size_t)n * n; k++)
			job->rot[k] = (float)m[k];
	free(m);
	return job->rot ? RT_OK : RT_ERR_SYSTEM;
}

rt_status de_job_prepare(de_job *job, int cpu, rt_error *err)
{
	rt_status st;
	if (job->shift && !job->shift_vec) {
		size_t n = (size_t)job->problems * job->dim;
		job->shift_vec = rt_malloc(n * sizeof *job->shift_vec, err);
		if (!job->shift_vec)
			return RT_ERR_SYSTEM;
		for (long p = 0; p < job->problems; p++) {
			rt_rng rng;
			rt_rng_init(&rng, job->seed, DE_STREAM_SHIFT(job->problem_base + p));
			for (int j = 0; j < job->dim; j++) {
				double u = 0.1 + 0.8 * rt_rng_uniform_double(&rng);
				job->shift_vec[(size_t)p * job->dim + j] =
					(float)(job->lower + (job->upper - job->lower) * u);
			}
		}
	}
	if (job->rotate && !job->rot && (st = make_rotation(job, err)) != RT_OK)
		return st;
	if (cpu && job->function == DE_FN_USER && !job->user.fn)
		return de_user_load(&job->user, job->name, err);
	return RT_OK;
}

void de_job_free(de_job *job)
{
	free(job->shift_vec);
	free(job->rot);
	job->shift_vec = NULL;
	job->rot = NULL;
	de_user_free(&job->user);
}

int de_job_reached(const de_job *job, float best)
{
	float target = (float)job->target, fstar = (float)job->optimum;
	return target > 0.0f && fabsf(best - fstar) <= target;
}

const char *de_job_strategy_name(const de_job *job)
{
	return strategy_names[job->strategy == DE_BEST_1_BIN];
}

const char *de_job_bounds_name(const de_job *job)
{
	int b = job->bounds;
	return bounds_names[b == DE_BOUNDS_CLIP || b == DE_BOUNDS_RESAMPLE ? b : DE_BOUNDS_REFLECT];
}

int de_job_hist_len(const de_job *job)
{
	return job->history_every > 0 ? (int)(job->gens / job->history_every) + 1 : 0;
}

float de_job_eval(const de_job *job, long p, const float *x)
{
	if (job->function == DE_FN_USER)
		return de_sane(job->user.fn(x, job->dim));
	return de_sane(de_function_eval(job->function, x, 1, job->dim,
					job->shift_vec ? job->shift_vec + (size_t)p * job->dim : NULL,
					job->rot, job->zoff));
}
