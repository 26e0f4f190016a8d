/* de_job.c: kind `de`'s job: the [de] and [objective] sections of a spec
 * turned into parameters, plus the data both backends share (per-problem
 * shift vectors, the rotation matrix, the CPU's compiled user objective).
 *
 *   [de]
 *   function = sphere      ; sphere rosenbrock rastrigin ackley griewank schwefel user, or
 *                          ;   cec2017 with cec_function and cec_seed (de_cec.c), or
 *                          ;   callback: the C API's evoforge_job_set_objective (every
 *                          ;   strategy; [objective] only optimum = ...)
 *   dim = 30
 *   lower = -100           ; default: the function's textbook box
 *   upper = 100
 *   population = 300       ; default 10 * dim
 *   F = 0.5
 *   CR = 0.9
 *   strategy = rand/1/bin  ; or best/1/bin, or the adaptive jade, shade, lshade, jso
 *                          ;   (templates/de/de_adapt.h; their published defaults:
 *                          ;   jade    population 100, p_best 0.05, archive_rate 1
 *                          ;   shade   population 100, memory_size 100, p_best 0.2 (p_i in
 *                          ;           [2/NP, p_best]), archive_rate 1
 *                          ;   lshade  population 18 dim -> 4, memory_size 6, p_best 0.11,
 *                          ;           archive_rate 2.6 (needs max_evals)
 *                          ;   jso     population 25 ln(dim) sqrt(dim) -> 4, memory_size 5,
 *                          ;           p_best 0.25 -> 0.125, archive_rate 1 (needs max_evals);
 *                          ;   F and CR are not used by them), or the mixed sade, code
 *                          ;   (templates/de/de_mixed.h; population at least 6:
 *                          ;   sade    population 50, memory_size = learning period 50
 *                          ;   code    population 30, three trials (3 population
 *                          ;           evaluations) a generation)
 *   memory_size = 0        ; adaptive: success-history slots H (0: the strategy's; jade: 1;
 *                          ;   sade: its learning period)
 *   p_best = 0             ; adaptive: p of current-to-pbest (0: the strategy's)
 *   archive_rate = -1      ; adaptive: archive size / population (-1: the strategy's; 0: none)
 *   bounds = reflect       ; reflect, clip, resample or midpoint (the parent's side;
 *                          ;   the default of jade, shade, lshade and jso)
 *   generations = 0        ; 0: no limit but max_evals
 *   max_evals = 300000     ; per problem; default 10000 * dim (CEC); 0: none
 *   target = 1e-8          ; stop a problem when |best - optimum| <= target; 0: off
 *   problems = 1           ; independent optimisations (Philox stream = problem id)
 *   shift = none           ; or random: a shift vector per problem
 *   rotate = 0             ; 1: one random orthogonal matrix for the run
 *   history_every = 10     ; best value every N generations (0: none)
 *   report_every = 100     ; progress line every N generations
 *   x0 = 0.5, 1, ...       ; the first member of the initial population (dim
 *                          ;   numbers within the bounds; SciPy's x0; both backends)
 *   variant = auto         ; GPU: fused, naive, multiblock (a block per individual, a launch
 *                          ;   per generation; rand/1 and best/1), or auto (multiblock
 *                          ;   for large dimensions, de_impl.h's rule; else fused)
 *   pop_memory = auto      ; GPU: auto, shared or global
 *   state_memory = auto    ; GPU, adaptive strategies: where their state, scratch and
 *                          ;   archive live while a problem runs: auto, shared or global
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
#include "log.h"
#include "rng.h"

/* Philox streams of the job's setup data: individual field all ones, which
 * no population index reaches (see de_core.h). */
#define DE_STREAM_SHIFT(p) ((0xffffffffull << 32) | (uint64_t)(p))
#define DE_STREAM_ROTATION 0xffffffffffffffffull

static const char *const function_names[] = {
#define DE_NAME_(E, name, lo, hi, zs, doc) #name,
	DE_FUNCTIONS(DE_NAME_)
#undef DE_NAME_
	"user", "cec2017", "cec2022", "callback", NULL   /* cec2022: DE_FN_CEC2017 with cec_fn >
							   DE_CEC22; callback: DE_FN_CALLBACK */
};
/* Indexed by enum de_function, de_strategy, de_bounds, de_variant, de_popmem. */
static const char *const strategy_names[] = { "rand/1/bin", "best/1/bin", "jade", "shade", "lshade",
					      "jso", "sade", "code", NULL };
static const char *const bounds_names[] = { "reflect", "clip", "resample", "midpoint", NULL };
static const char *const shift_names[] = { "none", "random", NULL };
static const char *const variant_names[] = { "fused", "naive", "auto", "multiblock", NULL };
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
	job->memory_size = 0;
	job->p_best = 0;
	job->archive_rate = -1;
}

/* The published population of an adaptive or mixed strategy at dimension dim. */
static int adaptive_np(int strategy, int dim)
{
	double n = strategy == DE_LSHADE ? 18.0 * dim
		 : strategy == DE_JSO ? round(25.0 * log((double)dim) * sqrt((double)dim))
		 : strategy == DE_SADE ? 50.0 : strategy == DE_CODE ? 30.0 : 100.0;
	return n < 4 ? 4 : (int)n;
}

/* Reads strategy, population and the adaptive strategies' keys. */
static rt_status read_strategy(de_job *job, rt_spec *spec, rt_error *err)
{
	char loc[RT_PATH_MAX + 32];
	long v;
	rt_status st;
	if ((st = rt_spec_enum(spec, "de", "strategy", strategy_names, DE_RAND_1_BIN, &job->strategy, err)))
		return st;
	int pbest = de_is_pbest(job->strategy);
	if ((st = rt_spec_int(spec, "de", "population",
			      de_fused_only(job->strategy) ? adaptive_np(job->strategy, job->dim) : 10L * job->dim,
			      de_min_population(job->strategy), 1L << 24, &v, err)))
		return st;
	job->np = (int)v;
	if ((st = rt_spec_int(spec, "de", "memory_size", 0, 0, 100000, &v, err)))
		return st;
	job->memory_size = (int)v;
	if ((st = rt_spec_double(spec, "de", "p_best", 0.0, 0.0, 1.0, &job->p_best, err)))
		return st;
	if ((st = rt_spec_double(spec, "de", "archive_rate", -1.0, -1.0, 100.0, &job->archive_rate, err)))
		return st;
	if (!pbest && (rt_spec_find(spec, "de", "p_best") || rt_spec_find(spec, "de", "archive_rate") ||
		       (job->strategy != DE_SADE && rt_spec_find(spec, "de", "memory_size"))))
		return rt_fail(err, RT_ERR_INPUT,
			       "%s: de.memory_size, p_best and archive_rate apply to strategy = jade, shade, "
			       "lshade or jso (memory_size also to sade), not %s",
			       rt_spec_key_where(spec, "de", "strategy", loc, sizeof loc),
			       strategy_names[job->strategy]);
	if (job->archive_rate > -1.0 && job->archive_rate < 0.0)
		return rt_fail(err, RT_ERR_INPUT, "%s: de.archive_rate: expected -1 (default) or >= 0, got %g",
			       rt_spec_key_where(spec, "de", "archive_rate", loc, sizeof loc), job->archive_rate);
	return RT_OK;
}

/* function = callback: the caller's objective (objective.h), the strategy
 * it runs with, and [objective]'s optimum (its only key then). */
static rt_status read_callback(de_job *job, rt_spec *spec, rt_error *err)
{
	char loc[RT_PATH_MAX + 32];
	const char *key = rt_spec_find(spec, "objective", "code") ? "code"
			  : rt_spec_find(spec, "objective", "file") ? "file" : NULL;
	if (key)
		return rt_fail(err, RT_ERR_INPUT, "%s: objective.%s: de.function = callback takes its "
			       "objective from the caller; [objective] may hold only optimum = ...",
			       rt_spec_key_where(spec, "objective", key, loc, sizeof loc), key);
	job->host = rt_objective_current();
	if (!job->host.fn)
		return rt_fail(err, RT_ERR_INPUT, "%s: de.function = callback needs an objective "
			       "callback: evoforge_job_set_objective (C API) or evoforge.minimize with "
			       "a Python callable; the command line has none (use function = user with "
			       "C source)", rt_spec_key_where(spec, "de", "function", loc, sizeof loc));
	return rt_spec_double(spec, "objective", "optimum", 0.0, -1e30, 1e30, &job->optimum, err);
}

/* x0 = v1, v2, ...: the first member of every problem's initial population
 * (SciPy's x0), dim numbers within [lower, upper]; both backends. */
static rt_status read_x0(de_job *job, rt_spec *spec, rt_error *err)
{
	char loc[RT_PATH_MAX + 32];
	if (!rt_spec_find(spec, "de", "x0"))
		return RT_OK;
	int n = job->dim + 1;
	double *v = rt_malloc((size_t)n * sizeof *v, err);
	job->x0 = v ? rt_malloc((size_t)job->dim * sizeof *job->x0, err) : NULL;
	rt_status st = job->x0 ? rt_spec_doubles(spec, "de", "x0", v, &n, err) : RT_ERR_SYSTEM;
	if (st == RT_OK && n != job->dim)
		st = rt_fail(err, RT_ERR_INPUT, "%s: de.x0: expected %d numbers (de.dim), got %d",
			     rt_spec_key_where(spec, "de", "x0", loc, sizeof loc), job->dim, n);
	for (int j = 0; st == RT_OK && j < n; j++) {
		if (v[j] < job->lower || v[j] > job->upper)
			st = rt_fail(err, RT_ERR_INPUT, "%s: de.x0: component %d is %g, outside the "
				     "bounds [%g, %g]", rt_spec_key_where(spec, "de", "x0", loc, sizeof loc),
				     j, v[j], job->lower, job->upper);
		job->x0[j] = (float)v[j];
	}
	free(v);
	return st;
}

void de_init_member(const de_job *job, long p, int i, float *x)
{
	if (i == 0 && job->x0) {
		memcpy(x, job->x0, (size_t)job->dim * sizeof *x);
		return;
	}
	de_init_individual(&job->params, (uint32_t)p, (uint32_t)i, x, 1);
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
	if (fn == DE_FN_CEC2017 + 1) {   /* cec2022: the same machinery, the 2022 tables */
		fn = DE_FN_CEC2017;
		job->cec_fn = DE_CEC22;
	}
	job->function = fn;
	if (fn == DE_FN_USER && !has_obj)
		return rt_fail(err, RT_ERR_INPUT,
			       "%s: de.function = user needs an [objective] section (code = ... or file = ...)",
			       rt_spec_key_where(spec, "de", "function", loc, sizeof loc));
	if (fn != DE_FN_CALLBACK && rt_objective_current().fn)
		rt_warn("%s: an objective callback is set, but de.function = %s: the callback is not "
			"used (set de.function = callback)",
			rt_spec_key_where(spec, "de", "function", loc, sizeof loc), de_function_name(fn));
	if (fn != DE_FN_USER && fn != DE_FN_CALLBACK && has_obj)
		return rt_fail(err, RT_ERR_INPUT,
			       "%s: de.function = %s, but the spec has an [objective] section: "
			       "set function = user or remove it",
			       rt_spec_key_where(spec, "de", "function", loc, sizeof loc), de_function_name(fn));

	TRY(rt_spec_int(spec, "de", "dim", 30, 1, 1 << 20, &v, err));
	job->dim = (int)v;
	job->max_evals = 10000LL * job->dim;
	if (fn == DE_FN_CEC2017)
		TRY(de_cec_read(job, spec, err));
	de_function_box(fn, &lo, &hi, &zs);
	TRY(rt_spec_double(spec, "de", "lower", lo, -1e30, 1e30, &job->lower, err));
	TRY(rt_spec_double(spec, "de", "upper", hi, -1e30, 1e30, &job->upper, err));
	if (!(job->lower < job->upper))
		return rt_fail(err, RT_ERR_INPUT, "%s: de.upper: expected a value above de.lower (%g), got %g",
			       rt_spec_key_where(spec, "de", "upper", loc, sizeof loc), job->lower, job->upper);
	TRY(read_strategy(job, spec, err));
	if ((long long)job->np * job->dim > INT_MAX / 2)
		return rt_fail(err, RT_ERR_INPUT,
			       "%s: de.population: population x dim must stay below %d, got %d x %d",
			       rt_spec_key_where(spec, "de", "population", loc, sizeof loc), INT_MAX / 2, job->np,
			       job->dim);
	TRY(rt_spec_double(spec, "de", "F", 0.5, 0.0, 2.0, &job->F, err));
	TRY(rt_spec_double(spec, "de", "CR", 0.9, 0.0, 1.0, &job->CR, err));
	TRY(rt_spec_enum(spec, "de", "bounds", bounds_names,
			 de_is_pbest(job->strategy) ? DE_BOUNDS_MIDPOINT : DE_BOUNDS_REFLECT, &job->bounds,
			 err));
	TRY(rt_spec_int(spec, "de", "generations", 0, 0, INT_MAX - 1, &job->generations, err));
	TRY(rt_spec_int(spec, "de", "max_evals", (long)job->max_evals, 0, LONG_MAX, &v, err));
	job->max_evals = v;
	if (v == 0 && de_reduces(job->strategy))
		return rt_fail(err, RT_ERR_INPUT,
			       "%s: de.strategy = %s reduces the population by evaluations: it needs max_evals > 0",
			       rt_spec_key_where(spec, "de", "max_evals", loc, sizeof loc),
			       strategy_names[job->strategy]);
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
	if (fn == DE_FN_CEC2017 && (job->shift || job->rotate))
		return rt_fail(err, RT_ERR_INPUT,
			       "%s: de.shift and de.rotate: CEC 2017 has its own shifts and rotations (cec_seed)",
			       rt_spec_key_where(spec, "de", job->shift ? "shift" : "rotate", loc, sizeof loc));
	if ((fn == DE_FN_USER || fn == DE_FN_CALLBACK) && (job->shift || job->rotate))
		return rt_fail(err, RT_ERR_INPUT,
			       "%s: de.shift and de.rotate apply to the built-in functions, not to a user objective",
			       rt_spec_key_where(spec, "de", job->shift ? "shift" : "rotate", loc, sizeof loc));
	TRY(rt_spec_int(spec, "de", "history_every", 10, 0, INT_MAX, &v, err));
	job->history_every = (int)v;
	TRY(rt_spec_int(spec, "de", "report_every", 100, 1, INT_MAX, &v, err));
	job->report_every = (int)v;
	TRY(rt_spec_enum(spec, "de", "variant", variant_names, DE_VARIANT_AUTO, &job->variant, err));
	if ((job->variant == DE_VARIANT_NAIVE || job->variant == DE_VARIANT_MULTIBLOCK) &&
	    de_fused_only(job->strategy))
		return rt_fail(err, RT_ERR_INPUT,
			       "%s: de.variant = %s does not implement strategy = %s (only the fused kernel "
			       "does): use variant = fused or auto",
			       rt_spec_key_where(spec, "de", "variant", loc, sizeof loc),
			       variant_names[job->variant], strategy_names[job->strategy]);
	TRY(rt_spec_enum(spec, "de", "pop_memory", popmem_names, DE_POPMEM_AUTO, &job->popmem, err));
	TRY(rt_spec_enum(spec, "de", "state_memory", popmem_names, DE_POPMEM_AUTO, &job->statemem, err));
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
	if (fn == DE_FN_CALLBACK)
		TRY(read_callback(job, spec, err));
	TRY(read_x0(job, spec, err));
	TRY(rt_islands_read(&job->islands, spec, err));
	TRY(rt_spec_check_unused(spec, err));
	if ((st = de_job_finish(job, err)) != RT_OK) {
		rt_error_prefix(err, "%s", spec->path);
		return st;
	}
#undef TRY
	return RT_OK;
}

/* The adaptive strategies' parameters (defaults where the job has none;
 * SaDE: H is its learning period, no archive) and L-SHADE's and jSO's
 * schedule: the evaluations after each generation and the generation limit. */
static rt_status finish_adaptive(de_job *job, rt_error *err)
{
	static const int H[] = { 1, 100, 6, 5, 50 };   /* jade .. sade (LP) */
	static const double pb[] = { 0.05, 0.2, 0.11, 0.25, 0 }, rate[] = { 1.0, 1.0, 2.6, 1.0, 0 };
	int s = job->strategy, k = s - DE_JADE;
	de_params *p = &job->params;
	if (s == DE_JADE && job->memory_size > 1)
		return rt_fail(err, RT_ERR_INPUT, "memory_size: jade keeps one (mu_F, mu_CR), got %d",
			       job->memory_size);
	if (de_reduces(s) && job->max_evals <= 0)
		return rt_fail(err, RT_ERR_INPUT, "strategy %s needs max_evals > 0 (its population shrinks "
			       "by evaluations)", strategy_names[s]);
	p->H = job->memory_size > 0 ? job->memory_size : H[k];
	p->p_best = job->p_best > 0 ? job->p_best : pb[k];
	p->arc_rate = job->archive_rate >= 0 ? job->archive_rate : rate[k];
	p->np_min = de_reduces(s) ? 4 : job->np;
	p->a_cap = (int)round(p->arc_rate * job->np);
	p->a_cap = p->a_cap < 1 ? 1 : p->a_cap;
	p->mf0 = s == DE_JSO ? 0.3 : 0.5;
	p->mcr0 = s == DE_JSO ? 0.8 : 0.5;
	p->max_evals = (double)job->max_evals;
	free(job->nfes_at);
	job->nfes_at = NULL;
	if (!de_reduces(s))
		return RT_OK;
	p->np = job->np;   /* de_adapt_np_next reads it */
	long g = 0, cap = job->generations > 0 ? job->generations : INT_MAX - 1;
	double nfes = job->np;
	for (int na = job->np; g < cap && nfes + na <= p->max_evals; g++) {
		nfes += na;
		na = de_adapt_np_next(p, nfes, na);
	}
	job->gens = g;
	job->nfes_at = rt_malloc(((size_t)g + 1) * sizeof *job->nfes_at, err);
	if (!job->nfes_at)
		return RT_ERR_SYSTEM;
	nfes = job->np;
	job->nfes_at[0] = job->np;
	for (long q = 1, na = job->np; q <= g; q++) {
		nfes += (double)na;
		job->nfes_at[q] = (long long)nfes;
		na = de_adapt_np_next(p, nfes, (int)na);
	}
	return RT_OK;
}

/* The history is kept whole in memory (host, GPU, checkpoints): at most
 * DE_HIST_MAX_VALUES values over the job's problems (64 MiB), at least
 * DE_HIST_MIN_ROWS rows a problem. A generation limit that would need more
 * (a run to a target with generations = 100000000, say) keeps every k-th
 * of history_every's rows instead, and says so. */
#define DE_HIST_MAX_VALUES (16L << 20)
#define DE_HIST_MIN_ROWS 1001L
static void limit_history(de_job *job)
{
	long every = job->history_every, total = job->problems_total > 0 ? job->problems_total : 1;
	long rows_max = DE_HIST_MAX_VALUES / total;
	if (rows_max < DE_HIST_MIN_ROWS)
		rows_max = DE_HIST_MIN_ROWS;
	if (every <= 0 || job->gens / every + 1 <= rows_max)
		return;
	long k = (job->gens / every + rows_max - 2) / (rows_max - 1);   /* rows <= rows_max */
	if ((long)INT_MAX / every < k)
		k = INT_MAX / every;
	job->history_every = (int)(every * k);
	rt_info("de: history every %d generations, not %ld: %ld generations of %ld problem(s) would "
		"keep %ld rows a problem (at most %ld here)", job->history_every, every, job->gens,
		total, job->gens / every + 1, rows_max);
}

rt_status de_job_finish(de_job *job, rt_error *err)
{
	double lo, hi, zs;
	rt_status st;
	long g = job->generations > 0 ? job->generations : INT_MAX - 1;
	if (job->np < de_min_population(job->strategy))
		return rt_fail(err, RT_ERR_INPUT, "population: expected at least %d for %s, got %d",
			       de_min_population(job->strategy), strategy_names[job->strategy], job->np);
	if (job->dim < 1)
		return rt_fail(err, RT_ERR_INPUT, "dim: expected at least 1, got %d", job->dim);
	if (!(job->lower < job->upper))
		return rt_fail(err, RT_ERR_INPUT, "bounds: expected lower < upper, got %g, %g", job->lower,
			       job->upper);
	if (job->max_evals > 0) {
		long long gm = (job->max_evals - job->np) / de_job_evals_per_gen(job);
		if (job->max_evals < job->np)
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
	if (de_is_adaptive(job->strategy) && (st = finish_adaptive(job, err)) != RT_OK)
		return st;
	limit_history(job);
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
	if (de_fused_only(job->strategy) &&
	    (job->variant == DE_VARIANT_NAIVE || job->variant == DE_VARIANT_MULTIBLOCK))
		return rt_fail(err, RT_ERR_INPUT, "variant %s does not implement strategy %s: use fused",
			       variant_names[job->variant], strategy_names[job->strategy]);
	if (job->variant == DE_VARIANT_AUTO) {   /* the faster as measured on an H100 (de_impl.h) */
		int large = job->dim >= DE_AUTO_MULTIBLOCK_DIM ||
			    (job->dim >= DE_AUTO_MULTIBLOCK_FEW_DIM && job->problems <= DE_AUTO_MULTIBLOCK_FEW);
		job->variant = large && job->dim <= DE_AUTO_MULTIBLOCK_MAX_DIM && !de_fused_only(job->strategy)
			       ? DE_VARIANT_MULTIBLOCK : DE_VARIANT_FUSED;
	}
	de_cec_plan(job);
	return RT_OK;
}

rt_status de_random_rotation(rt_rng *rng, int n, float *out, rt_error *err)
{
	double *m = rt_malloc((size_t)n * n * sizeof *m, err);
	if (!m)
		return RT_ERR_SYSTEM;
	for (int k = 0; k < n; k++) {
		double *r = m + (size_t)k * n, norm;
		do {
			for (int j = 0; j < n; j++)
				r[j] = rt_rng_normal(rng);
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
		for (int j = 0; j < n; j++) {
			r[j] /= norm;
			out[(size_t)k * n + j] = (float)r[j];
		}
	}
	free(m);
	return RT_OK;
}

/* The job's rotation, from its seed's rotation stream. */
static rt_status make_rotation(de_job *job, rt_error *err)
{
	rt_rng rng;
	rt_rng_init(&rng, job->seed, DE_STREAM_ROTATION);
	job->rot = rt_malloc((size_t)job->dim * job->dim * sizeof *job->rot, err);
	return job->rot ? de_random_rotation(&rng, job->dim, job->rot, err) : RT_ERR_SYSTEM;
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
	if ((st = de_cec_prepare(job, err)) != RT_OK)
		return st;
	if (cpu && job->function == DE_FN_USER && !job->user.fn)
		return de_user_load(&job->user, job->name, err);
	return RT_OK;
}

void de_job_free(de_job *job)
{
	free(job->shift_vec);
	free(job->rot);
	free(job->nfes_at);
	free(job->cec_data);
	free(job->cec_dir);
	free(job->x0);
	job->x0 = NULL;
	job->cec_data = NULL;
	job->cec_dir = NULL;
	job->shift_vec = NULL;
	job->rot = NULL;
	job->nfes_at = NULL;
	de_user_free(&job->user);
}

int de_job_reached(const de_job *job, float best)
{
	float target = (float)job->target, fstar = (float)job->optimum;
	return target > 0.0f && fabsf(best - fstar) <= target;
}

const char *de_job_strategy_name(const de_job *job)
{
	int s = job->strategy;
	return strategy_names[s >= DE_RAND_1_BIN && s <= DE_CODE ? s : DE_RAND_1_BIN];
}

const char *de_job_bounds_name(const de_job *job)
{
	int b = job->bounds;
	return bounds_names[b >= DE_BOUNDS_REFLECT && b <= DE_BOUNDS_MIDPOINT ? b : DE_BOUNDS_REFLECT];
}

long long de_job_evals(const de_job *job, long gens)
{
	if (gens < 0)
		return 0;
	if (job->nfes_at)
		return job->nfes_at[gens < job->gens ? gens : job->gens];
	return (long long)job->np + de_job_evals_per_gen(job) * gens;
}

long long de_job_evals_per_gen(const de_job *job)
{
	return (long long)job->np * (job->strategy == DE_CODE ? DE_CODE_TRIALS : 1);
}

int de_job_hist_len(const de_job *job)
{
	return job->history_every > 0 ? (int)(job->gens / job->history_every) + 1 : 0;
}

float de_job_eval(const de_job *job, long p, const float *x)
{
	if (job->function == DE_FN_USER)
		return de_sane(job->user.fn(x, job->dim));
	if (job->function == DE_FN_CEC2017)
		return de_sane(de_cec2017_eval(job->cec_fn, x, 1, job->dim, job->cec_data));
	return de_sane(de_function_eval(job->function, x, 1, job->dim,
					job->shift_vec ? job->shift_vec + (size_t)p * job->dim : NULL,
					job->rot, job->zoff));
}
