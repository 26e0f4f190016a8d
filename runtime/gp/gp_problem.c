/* gp_problem.c: GP problems from specs: parameters with the seed paper's
 * defaults, and fitness cases (generated polynomials, CSV tables, the
 * bit-packed multiplexer).
 *
 * Classification (Shuttle, KDD Cup): a program's output o is the class
 * clamp(rint(o), 0, nclasses - 1) (round to nearest, ties to even; a NaN
 * output is always wrong: gp_eval.h, GP_FIT_CLASS), so class
 * indices must be small integers 0..n-1. A string label column gets indices
 * in the order of [data] classes when given (Shuttle lists the UCI order,
 * Rad.Flow = 0 ... Bpv.Open = 6), else in order of first appearance.
 * [gp] multiclass (classification only) picks round (that mapping, one
 * program) or one-vs-rest (the default; gp_ovr.c, one program per class).
 *
 * Held-out set ([data] test = FILE or test_fraction = F): the evaluators get
 * the training cases alone in p->cases; p->test keeps the rest for scoring
 * (gp_score.c). A test file must have the training file's columns; its
 * class names are mapped to the training's indices, its string inputs to
 * the training's category indices (an unseen string gets the next free
 * index, in order of first appearance). test_fraction splits the cases
 * (CSV rows or generated points) with rt_split_rows: stratified by class
 * for classification, plain random for regression.
 *
 * [gp] constants = MIN MAX gives ephemeral random constants in [MIN, MAX),
 * `none` none. Absent: none for generated data (sextic..., multiplexer, as
 * the seed), and for csv data [-r, r) with r = max over the input columns
 * and the label column of |mean| + 2 sd (population sd), at least 1
 * (gp_default_const_range): constants on the scale of the data.
 * [gp] parsimony absent: by the fitness (GP_PARSIMONY_DEFAULT_MSE / _COUNT,
 * gp_tree.h); parsimony_coefficient only with penalty. optimise_constants
 * needs mse fitness. [gp] linear_scaling (gp_scale.h): on by default for mse
 * fitness, refused (when on) for classification and Boolean problems; the
 * training cases get their mean and sums (gp_cases.scale) once, after the
 * split. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "data.h"
#include "gp_constopt.h"
#include "gp_eval.h"
#include "gp_front.h"
#include "gp_gpu.h"
#include "gp_problem.h"
#include "gp_scale.h"
#include "islands.h"
#include "rng.h"

static const char *const source_names[] = {"sextic", "quintic", "quartic", "csv", "multiplexer",
					   NULL};
_Static_assert(sizeof source_names / sizeof source_names[0] == GP_DATA_MUX + 2,
	       "source_names follows enum gp_data_source");
/* In the order of enum gp_eval_method. */
static const char *const eval_names[] = {"rpn1d", "lgp2d", "rpn2d", NULL};
_Static_assert(GP_EVAL_RPN1D == 0 && GP_EVAL_LGP2D == 1 && GP_EVAL_RPN2D == 2 &&
	       GP_EVAL_METHOD_COUNT == 3, "eval_names follows enum gp_eval_method");
static const char *const fitness_names[] = {"classification", "mse", NULL};
/* In the order of enum gp_multiclass. */
static const char *const multiclass_names[] = {"round", "one-vs-rest", NULL};

/* Prefixes err with the location of [section] key (used after a check of
 * our own, not a getter's, fails). */
static rt_status key_error(rt_spec *spec, const char *section, const char *key, rt_error *err)
{
	char where[RT_PATH_MAX + 64];
	rt_spec_entry *e = rt_spec_find(spec, section, key);
	if (e)
		rt_error_prefix(err, "%s: [%s] %s", rt_spec_where(spec, e, where, sizeof where),
				section, key);
	else
		rt_error_prefix(err, "%s: [%s] %s", spec->path, section, key);
	return err->status;
}

static rt_status get_int(rt_spec *spec, const char *sec, const char *key, long def, long min,
			 long max, int *out, rt_error *err)
{
	long v;
	if (rt_spec_int(spec, sec, key, def, min, max, &v, err))
		return err->status;
	*out = (int)v;
	return RT_OK;
}

const char *gp_data_source_name(int source)
{
	return source >= GP_DATA_SEXTIC && source <= GP_DATA_MUX ? source_names[source] : "?";
}

double gp_polynomial(int source, double x)
{
	double x2 = x * x;
	switch (source) {
	case GP_DATA_SEXTIC: return x2 * x2 * x2 - 2.0 * x2 * x2 + x2;
	case GP_DATA_QUINTIC: return x2 * x2 * x - 2.0 * x2 * x + x;
	case GP_DATA_QUARTIC: return x2 * x2 + x2 * x + x2 + x;
	default: return NAN;
	}
}

/* ---- reading the spec --------------------------------------------------------- */

/* [data] test / test_fraction: at most one, not for the multiplexer; a test
 * file only beside a csv training file. */
static rt_status read_test_keys(rt_spec *spec, gp_problem *p, rt_error *err)
{
	const char *file;
	int has_file = rt_spec_find(spec, "data", "test") != NULL;
	int has_frac = rt_spec_find(spec, "data", "test_fraction") != NULL;
	if (rt_spec_string(spec, "data", "test", "", &file, err) ||
	    rt_spec_double(spec, "data", "test_fraction", 0, -1e300, 1e300, &p->test_fraction, err))
		return err->status;
	if (!has_file && !has_frac)
		return RT_OK;
	const char *key = has_file ? "test" : "test_fraction";
	char where[RT_PATH_MAX + 32];
	if (p->source == GP_DATA_MUX) {
		rt_fail(err, RT_ERR_INPUT, "expected no held-out set for the multiplexer (its "
			"fitness cases are the whole truth table)");
	} else if (has_file && p->source != GP_DATA_CSV) {
		rt_fail(err, RT_ERR_INPUT, "expected [data] source = csv for a test file (generated "
			"data: use test_fraction), got source = %s", gp_data_source_name(p->source));
	} else if (has_file && has_frac) {
		rt_spec_key_where(spec, "data", "test", where, sizeof where);
		rt_fail(err, RT_ERR_INPUT, "expected either [data] test (%s) or test_fraction, "
			"not both", where);
		key = "test_fraction";
	} else if (has_frac && !(p->test_fraction > 0 && p->test_fraction < 1)) {
		rt_fail(err, RT_ERR_INPUT, "expected a fraction F with 0 < F < 1, got %g",
			p->test_fraction);
	} else if (has_file && !file[0]) {
		rt_fail(err, RT_ERR_INPUT, "expected a file name");
	} else {
		return RT_OK;
	}
	return key_error(spec, "data", key, err);
}

/* The spec's function list, kept until the number of inputs is known. */
static const char *default_functions(int source)
{
	switch (source) {
	case GP_DATA_CSV: return "+ - * / > < == AND OR IF";
	case GP_DATA_MUX: return "and or not if";
	default: return "+ - * /";
	}
}

rt_status gp_problem_read(rt_spec *spec, gp_problem *p, rt_error *err)
{
	const char *s;
	memset(p, 0, sizeof *p);

	/* [problem] (kind is also read by the CLI to get here) */
	if (rt_spec_string(spec, "problem", "kind", "gp", &s, err))
		return err->status;
	if (strcmp(s, "gp") != 0) {
		rt_fail(err, RT_ERR_INPUT, "expected gp, got '%s'", s);
		return key_error(spec, "problem", "kind", err);
	}
	const char *base = strrchr(spec->path, '/');
	base = base ? base + 1 : spec->path;
	char stem[sizeof p->name];
	size_t blen = strlen(base);
	if (blen >= sizeof stem)
		blen = sizeof stem - 1;
	memcpy(stem, base, blen);
	stem[blen] = 0;
	char *dot = strrchr(stem, '.');
	if (dot && dot != stem)
		*dot = 0;
	if (rt_spec_string(spec, "problem", "name", stem, &s, err))
		return err->status;
	snprintf(p->name, sizeof p->name, "%s", s);
	if (rt_spec_u64(spec, "problem", "seed", 1, &p->spec_seed, err))
		return err->status;
	p->split_seed = p->spec_seed;

	/* [data] first: the defaults of [gp] depend on the kind of problem. */
	if (rt_spec_enum(spec, "data", "source", source_names, GP_DATA_SEXTIC, &p->source, err))
		return err->status;
	int is_poly = p->source <= GP_DATA_QUARTIC;
	if (is_poly) {
		if (rt_spec_int(spec, "data", "cases", 100000, 1, 100000000, &p->ncases, err) ||
		    rt_spec_double(spec, "data", "x_min", -1.0, -1e30, 1e30, &p->x_min, err) ||
		    rt_spec_double(spec, "data", "x_max", 1.0, -1e30, 1e30, &p->x_max, err) ||
		    rt_spec_u64(spec, "data", "seed", 1, &p->data_seed, err))
			return err->status;
		if (!(p->x_min < p->x_max)) {
			rt_fail(err, RT_ERR_INPUT, "expected x_min < x_max, got %g and %g", p->x_min,
				p->x_max);
			return key_error(spec, "data", "x_max", err);
		}
	} else if (p->source == GP_DATA_MUX) {
		if (get_int(spec, "data", "address_bits", 2, 1, 4, &p->address_bits, err))
			return err->status;
	}
	/* csv keys are read when the table is loaded (gp_problem_build_cases),
	 * but marked here so the unused-key check knows them. */
	int classification = 0;
	if (p->source == GP_DATA_CSV) {
		const char *file;
		int header, fit;
		if (rt_spec_string(spec, "data", "file", NULL, &file, err) ||
		    rt_spec_bool(spec, "data", "header", 1, &header, err) ||
		    rt_spec_string(spec, "data", "label", "", &s, err) ||
		    rt_spec_string(spec, "data", "classes", "", &s, err) ||
		    rt_spec_string(spec, "data", "ignore", "", &s, err) ||
		    rt_spec_enum(spec, "data", "fitness", fitness_names, 0, &fit, err))
			return err->status;
		classification = fit == 0;
	}
	if (read_test_keys(spec, p, err))
		return err->status;

	/* [gp] */
	gp_breed *b = &p->breed;
	*b = gp_breed_defaults();
	if (get_int(spec, "gp", "population", 1000, 2, 100000000, &p->population, err) ||
	    get_int(spec, "gp", "generations", 50, 0, 100000000, &p->generations, err) ||
	    get_int(spec, "gp", "max_depth", b->max_depth, 1, GP_MAX_DEPTH_LIMIT, &b->max_depth, err) ||
	    get_int(spec, "gp", "max_size", b->max_size, 4, GP_MAX_SIZE_LIMIT, &b->max_size, err) ||
	    get_int(spec, "gp", "tournament", b->tournament, 1, p->population, &b->tournament, err) ||
	    rt_spec_double(spec, "gp", "crossover", b->crossover, 0, 1, &b->crossover, err) ||
	    rt_spec_double(spec, "gp", "mutation", b->mutation, 0, 1, &b->mutation, err) ||
	    rt_spec_double(spec, "gp", "point_mutation", b->point_mutation, 0, 1,
			   &b->point_mutation, err) ||
	    rt_spec_double(spec, "gp", "crossover_internal", b->crossover_internal, 0, 1,
			   &b->crossover_internal, err) ||
	    rt_spec_bool(spec, "gp", "elitism", b->elitism, &b->elitism, err) ||
	    get_int(spec, "gp", "init_min_depth", b->init_min_depth, 1, GP_MAX_DEPTH_LIMIT,
		    &b->init_min_depth, err) ||
	    get_int(spec, "gp", "init_max_depth", b->init_max_depth, 1, GP_MAX_DEPTH_LIMIT,
		    &b->init_max_depth, err) ||
	    get_int(spec, "gp", "mutation_depth", b->mutation_depth, 1, GP_MAX_DEPTH_LIMIT,
		    &b->mutation_depth, err))
		return err->status;
	if (b->init_min_depth > b->init_max_depth) {
		rt_fail(err, RT_ERR_INPUT, "expected init_min_depth (%d) <= init_max_depth (%d)",
			b->init_min_depth, b->init_max_depth);
		return key_error(spec, "gp", "init_max_depth", err);
	}
	if (b->init_max_depth > b->max_depth) {
		rt_fail(err, RT_ERR_INPUT, "expected init_max_depth (%d) <= max_depth (%d)",
			b->init_max_depth, b->max_depth);
		return key_error(spec, "gp", rt_spec_find(spec, "gp", "init_max_depth")
				 ? "init_max_depth" : "max_depth", err);
	}

	/* Function set: names checked now; inputs filled in with the data. */
	const char *funcs;
	if (rt_spec_string(spec, "gp", "functions", default_functions(p->source), &funcs, err))
		return err->status;
	if (gp_fset_parse(&p->fset, funcs, 1, err))
		return key_error(spec, "gp", "functions", err);
	if ((p->source == GP_DATA_MUX) != p->fset.boolean) {
		rt_fail(err, RT_ERR_INPUT, p->fset.boolean
			? "Boolean word functions need [data] source = multiplexer"
			: "the multiplexer needs Boolean word functions (and or nand nor not if), got '%s'",
			funcs);
		return key_error(spec, "gp", "functions", err);
	}

	/* Ephemeral random constants: "MIN MAX"; "none"; absent: none, except
	 * on csv problems, where the range comes from the data
	 * (gp_default_const_range, applied in gp_problem_build_cases). */
	const char *cs;
	double range[2];
	int nr = 0;
	if (rt_spec_string(spec, "gp", "constants", "", &cs, err))
		return err->status;
	if (strcmp(cs, "none") != 0 && cs[0]) {
		nr = 2;
		rt_error ignored;
		if (rt_spec_doubles(spec, "gp", "constants", range, &nr, &ignored) || nr != 2 ||
		    !(range[0] < range[1])) {
			rt_fail(err, RT_ERR_INPUT, "expected two numbers MIN MAX with MIN < MAX, or none, "
				"got '%s'", cs);
			return key_error(spec, "gp", "constants", err);
		}
		if (p->fset.boolean) {
			rt_fail(err, RT_ERR_INPUT, "Boolean problems take no constants");
			return key_error(spec, "gp", "constants", err);
		}
	}
	p->const_auto = !cs[0] && p->source == GP_DATA_CSV;
	p->fset.use_consts = nr == 2;
	p->fset.const_min = nr == 2 ? (float)range[0] : 0.0f;
	p->fset.const_max = nr == 2 ? (float)range[1] : 0.0f;
	/* -1: 1 / (ninputs + 1), the constant counting as one more terminal. */
	if (rt_spec_double(spec, "gp", "const_prob", -1.0, -1.0, 1.0, &p->fset.const_prob, err))
		return err->status;

	/* Parsimony pressure in selection (gp_tree.h); absent: by the fitness,
	 * once the data's is known (gp_problem_build_cases). */
	p->parsimony_auto = rt_spec_find(spec, "gp", "parsimony") == NULL;
	if (rt_spec_enum(spec, "gp", "parsimony", gp_parsimony_names, GP_PARSIMONY_DEFAULT_MSE,
			 &b->parsimony, err) ||
	    rt_spec_double(spec, "gp", "parsimony_coefficient", 0.0, 0.0, 1e300,
			   &b->parsimony_coefficient, err))
		return err->status;
	int has_coef = rt_spec_find(spec, "gp", "parsimony_coefficient") != NULL;
	if (has_coef != (b->parsimony == GP_PARSIMONY_PENALTY)) {
		rt_fail(err, RT_ERR_INPUT, has_coef
			? "parsimony_coefficient needs parsimony = penalty"
			: "parsimony = penalty needs parsimony_coefficient (fitness + c x nodes)");
		return key_error(spec, "gp", has_coef ? "parsimony_coefficient" : "parsimony", err);
	}
	/* Constant optimisation of the best programs (gp_constopt.h; mse only,
	 * checked once the data's fitness is known). */
	if (get_int(spec, "gp", "optimise_constants", 0, 0, p->population, &p->optimise_constants,
		    err) ||
	    get_int(spec, "gp", "optimise_steps", 10, 1, 10000, &p->optimise_steps, err) ||
	    get_int(spec, "gp", "fit_front_steps", GP_FIT_FRONT_STEPS_DEFAULT, 0, 10000,
		    &p->fit_front_steps, err))
		return err->status;

	/* Multi-objective selection and the Pareto front (gp_front.h); absent:
	 * by the fitness, once the data's is known (gp_problem_build_cases). */
	p->objectives_auto = rt_spec_find(spec, "gp", "objectives") == NULL;
	p->max_size_auto = rt_spec_find(spec, "gp", "max_size") == NULL;
	if (rt_spec_enum(spec, "gp", "objectives", gp_objectives_names, GP_OBJ_ERROR,
			 &p->objectives, err) ||
	    rt_spec_enum(spec, "gp", "front_selection", gp_front_selection_names,
			 GP_FRONT_SELECTION_DEFAULT, &p->front_selection, err) ||
	    get_int(spec, "gp", "polish_generations", 20, 0, 1000000000, &p->polish_generations, err))
		return err->status;

	/* Perfect: MSE at most 1e-6 (regression), no wrong case (counts). */
	double def_success = is_poly ? 1e-6 : 0.0;
	if (rt_spec_double(spec, "gp", "success_threshold", def_success, 0, 1e300, &p->success, err) ||
	    rt_spec_bool(spec, "gp", "stop_on_success", 1, &p->stop_on_success, err) ||
	    rt_spec_enum(spec, "gp", "evaluator", eval_names, GP_EVAL_LGP2D, &p->evaluator,
			 err) ||
	    rt_islands_read(&p->islands, spec, err))
		return err->status;

	/* [gp] multiclass: classification only (the key means nothing elsewhere). */
	if (rt_spec_enum(spec, "gp", "multiclass", multiclass_names, GP_MULTICLASS_DEFAULT,
			 &p->multiclass, err))
		return err->status;
	if (!classification && rt_spec_find(spec, "gp", "multiclass")) {
		rt_fail(err, RT_ERR_INPUT, "expected no multiclass scheme for a %s problem (it "
			"applies to classification: [data] fitness = classification)",
			p->source == GP_DATA_MUX ? "Boolean" : "regression");
		return key_error(spec, "gp", "multiclass", err);
	}
	if (!classification)
		p->multiclass = GP_MULTICLASS_ROUND;

	/* [gp] linear_scaling (gp_scale.h): mse fitness only, on by default there. */
	int regression = !classification && p->source != GP_DATA_MUX;
	if (rt_spec_bool(spec, "gp", "linear_scaling", regression, &p->linear_scaling, err))
		return err->status;
	if (!regression && p->linear_scaling) {
		rt_fail(err, RT_ERR_INPUT, "expected linear_scaling = off for a %s problem (it "
			"applies to mse fitness: regression)",
			p->source == GP_DATA_MUX ? "Boolean" : "classification");
		return key_error(spec, "gp", "linear_scaling", err);
	}

	/* The CPU evaluators' block of cases (speed only; `evoforge tune` sets it). */
	if (get_int(spec, "gp", "cpu_block", 0, 0, GP_EVAL_BLOCK_MAX, &p->cpu_block, err))
		return err->status;
	if (p->cpu_block % 64) {
		rt_fail(err, RT_ERR_INPUT, "expected 0 (default) or a multiple of 64, got %d", p->cpu_block);
		return key_error(spec, "gp", "cpu_block", err);
	}

	/* The GPU interpreter (checked by name here, so a typo fails before any run). */
	const char *variant;
	gp_gpu_config cfg;
	if (rt_spec_string(spec, "gp", "gpu_variant", GP_GPU_DEFAULT_VARIANT, &variant, err))
		return err->status;
	if (gp_gpu_variant_parse(variant, &cfg, err) ||
	    rt_format(p->gpu_variant, sizeof p->gpu_variant, err, "%s", variant))
		return key_error(spec, "gp", "gpu_variant", err);
	/* Where GPU runs breed (gp_gpu_breed.h): on the device unless asked. */
	const char *breeding;
	if (rt_spec_string(spec, "gp", "breeding", "gpu", &breeding, err))
		return err->status;
	if (strcmp(breeding, "gpu") && strcmp(breeding, "host")) {
		rt_fail(err, RT_ERR_INPUT, "expected gpu (breed on the device: the default) or host, "
			"got '%s'", breeding);
		return key_error(spec, "gp", "breeding", err);
	}
	p->breed_on_host = strcmp(breeding, "host") == 0;
	return RT_OK;
}

/* ---- fitness cases ------------------------------------------------------------ */

void gp_cases_free(gp_cases *c)
{
	free(c->x);
	free(c->y);
	free(c->bits);
	free(c->target);
	memset(c, 0, sizeof *c);
}

/* 64-byte aligned, zeroed (vector loads; freed with free). */
static void *alloc_aligned(size_t bytes, rt_error *err)
{
	size_t n = (bytes + 63) / 64 * 64;
	void *p = aligned_alloc(64, n ? n : 64);
	if (!p) {
		rt_fail(err, RT_ERR_SYSTEM, "out of memory (%zu bytes of fitness cases)", bytes);
		return NULL;
	}
	memset(p, 0, n ? n : 64);
	return p;
}

rt_status gp_cases_alloc_float(gp_cases *c, int ninputs, size_t ncases, rt_error *err)
{
	memset(c, 0, sizeof *c);
	c->ninputs = ninputs;
	c->ncases = ncases;
	c->stride = (ncases + 63) / 64 * 64;
	c->x = alloc_aligned((size_t)ninputs * c->stride * sizeof(float), err);
	c->y = c->x ? alloc_aligned(c->stride * sizeof(float), err) : NULL;
	if (!c->y) {
		gp_cases_free(c);
		return err->status;
	}
	return RT_OK;
}

rt_status gp_cases_polynomial(gp_cases *c, int source, long n, double x_min, double x_max,
			      uint64_t seed, rt_error *err)
{
	if (gp_cases_alloc_float(c, 1, (size_t)n, err))
		return err->status;
	c->fitness = GP_FIT_MSE;
	rt_rng rng;
	rt_rng_init(&rng, seed, 0);
	for (long i = 0; i < n; i++) {
		float x = (float)rt_rng_range(&rng, x_min, x_max);
		c->x[i] = x;
		c->y[i] = (float)gp_polynomial(source, (double)x);
	}
	return RT_OK;
}

rt_status gp_cases_multiplexer(gp_cases *c, int k, rt_error *err)
{
	memset(c, 0, sizeof *c);
	if (k < 1 || k > 4)
		return rt_fail(err, RT_ERR_INPUT, "multiplexer address bits: expected 1..4, got %d", k);
	int n = k + (1 << k);
	size_t ncases = (size_t)1 << n;
	c->fitness = GP_FIT_BOOL;
	c->ninputs = n;
	c->ncases = ncases;
	c->nwords = ncases >= 32 ? ncases / 32 : 1;
	c->last_mask = ncases >= 32 ? 0xFFFFFFFFu : (uint32_t)((1u << ncases) - 1u);
	c->bits = alloc_aligned((size_t)n * c->nwords * sizeof(uint32_t), err);
	c->target = c->bits ? alloc_aligned(c->nwords * sizeof(uint32_t), err) : NULL;
	if (!c->target) {
		gp_cases_free(c);
		return err->status;
	}
	for (size_t cs = 0; cs < ncases; cs++) {
		size_t w = cs / 32;
		uint32_t bit = 1u << (cs % 32);
		for (int i = 0; i < n; i++)
			if ((cs >> i) & 1)
				c->bits[(size_t)i * c->nwords + w] |= bit;
		size_t addr = cs & (((size_t)1 << k) - 1);
		if ((cs >> (k + addr)) & 1)
			c->target[w] |= bit;
	}
	return RT_OK;
}

void gp_default_const_range(const gp_cases *c, float *lo, float *hi)
{
	double r = 1.0;
	size_t n = c->ncases;
	for (int col = 0; col <= c->ninputs && n > 0; col++) {
		const float *v = col < c->ninputs ? c->x + (size_t)col * c->stride : c->y;
		double sum = 0, sq = 0;
		for (size_t i = 0; i < n; i++)
			sum += v[i];
		double mean = sum / (double)n;
		for (size_t i = 0; i < n; i++)
			sq += ((double)v[i] - mean) * ((double)v[i] - mean);
		double reach = fabs(mean) + 2.0 * sqrt(sq / (double)n);
		if (reach > r)
			r = reach;
	}
	*lo = (float)-r;
	*hi = (float)r;
}

/* A NULL-terminated array of n names fmt % (i + offset). */
static rt_status set_names(char ***out, int n, const char *fmt, int offset, rt_error *err)
{
	char **v = rt_calloc((size_t)n + 1, sizeof *v, err);
	if (!v)
		return err->status;
	*out = v;
	for (int i = 0; i < n; i++) {
		char buf[32];
		snprintf(buf, sizeof buf, fmt, i + offset);
		if (!(v[i] = rt_strdup(buf, err)))
			return err->status;
	}
	return RT_OK;
}

static rt_status set_name(char **v, int i, const char *name, rt_error *err)
{
	char *nm = rt_strdup(name, err);
	if (!nm)
		return err->status;
	free(v[i]);
	v[i] = nm;
	return RT_OK;
}

static void free_names(char **v)
{
	for (int i = 0; v && v[i]; i++)
		free(v[i]);
	free(v);
}

/* String labels -> class indices: in the order of the `classes` list when
 * given (every class of the data listed exactly once), else as loaded. */
static rt_status map_classes(rt_spec *spec, gp_problem *p, const rt_table *t,
			     const char *classes, rt_error *err)
{
	int ncls = t->classes.n;
	int *map = rt_calloc((size_t)ncls, sizeof *map, err);
	char *list = classes[0] ? rt_strdup(classes, err) : NULL;
	rt_status st = RT_OK;
	if (!map || (classes[0] && !list) || set_names(&p->class_names, ncls, "class%d", 0, err)) {
		st = err->status;
		goto out;
	}
	for (int i = 0; i < ncls; i++)
		map[i] = list ? -1 : i;
	if (list) {
		int n = 0;
		for (char *w = strtok(list, " ,\t"); w; w = strtok(NULL, " ,\t"), n++)
			for (int i = 0; i < ncls; i++)
				if (!strcmp(w, t->classes.names[i]))
					map[i] = n;
		/* Each data class must match one listed name, and no name twice. */
		int ok = n == ncls;
		for (int i = 0; i < ncls && ok; i++)
			for (int j = 0; j < ncls && ok; j++)
				ok = map[i] >= 0 && (i == j || map[i] != map[j]);
		if (!ok) {
			char found[512] = "";
			for (int i = 0; i < ncls; i++) {
				size_t len = strlen(found);
				snprintf(found + len, sizeof found - len, "%s%s", i ? " " : "",
					 t->classes.names[i]);
			}
			rt_fail(err, RT_ERR_INPUT, "expected each of the %d classes of %s (%s) "
				"listed once, got '%s'", ncls, p->data_path, found, classes);
			st = key_error(spec, "data", "classes", err);
			goto out;
		}
	}
	for (int i = 0; i < ncls && !st; i++)
		st = set_name(p->class_names, map[i], t->classes.names[i], err);
	for (size_t r = 0; r < t->nrows && !st; r++)
		p->cases.y[r] = (float)map[(int)t->label[r]];
out:
	free(map);
	free(list);
	return st;
}

/* ---- held-out set ------------------------------------------------------------- */

/* dst = the `count` cases of src whose mask is `want`, in their order. */
static rt_status cases_select(const gp_cases *src, const unsigned char *mask, int want,
			      size_t count, gp_cases *dst, rt_error *err)
{
	if (gp_cases_alloc_float(dst, src->ninputs, count, err))
		return err->status;
	dst->fitness = src->fitness;
	dst->nclasses = src->nclasses;
	for (int col = -1; col < src->ninputs; col++) {
		const float *from = col < 0 ? src->y : src->x + (size_t)col * src->stride;
		float *to = col < 0 ? dst->y : dst->x + (size_t)col * dst->stride;
		for (size_t r = 0, k = 0; r < src->ncases; r++)
			if (mask[r] == want)
				to[k++] = from[r];
	}
	return RT_OK;
}

/* [data] test_fraction: p->cases -> training cases and p->test. */
static rt_status split_cases(rt_spec *spec, gp_problem *p, rt_error *err)
{
	gp_cases *all = &p->cases, train;
	size_t n = all->ncases, ntest = 0;
	int cls = all->fitness == GP_FIT_CLASS;
	unsigned char *mask = rt_malloc(n + 1, err);
	int *group = mask && cls ? rt_malloc(n * sizeof *group + 1, err) : NULL;
	rt_status st = !mask || (cls && !group) ? err->status : RT_OK;
	memset(&train, 0, sizeof train);
	for (size_t r = 0; cls && !st && r < n; r++)
		group[r] = (int)all->y[r];
	if (!st)
		st = rt_split_rows(n, group, cls ? all->nclasses : 1, p->test_fraction, p->split_seed,
				   GP_SPLIT_STREAM, mask, &ntest, err);
	if (!st && (ntest == 0 || ntest == n)) {
		rt_fail(err, RT_ERR_INPUT, "expected a fraction that leaves training and test cases, "
			"got %g of %zu cases: %zu held out", p->test_fraction, n, ntest);
		st = key_error(spec, "data", "test_fraction", err);
	}
	if (!st && !(st = cases_select(all, mask, 0, n - ntest, &train, err)) &&
	    !(st = cases_select(all, mask, 1, ntest, &p->test, err))) {
		gp_cases_free(all);
		*all = train;
	} else {
		gp_cases_free(&train);
	}
	free(mask);
	free(group);
	return st;
}

/* Copies input column col of the test table u into p->test, string values
 * mapped to the training table t's category indices by name (an unseen
 * string: the next free index, in order of first appearance). */
static rt_status test_column(const gp_problem *p, const rt_table *t, const rt_table *u, int col,
			     rt_error *err)
{
	const rt_categories *tc = &t->cats[col], *uc = &u->cats[col];
	float *to = p->test.x + (size_t)col * p->test.stride;
	const float *from = u->cols + (size_t)col * u->nrows;
	if ((tc->n > 0) != (uc->n > 0))
		return rt_fail(err, RT_ERR_INPUT, "%s: column '%s': expected %s as in %s, got %s",
			       u->path, u->colnames[col], tc->n ? "text" : "numbers", t->path,
			       uc->n ? "text" : "numbers");
	if (!uc->n) {
		memcpy(to, from, u->nrows * sizeof *to);
		return RT_OK;
	}
	int *map = rt_malloc((size_t)uc->n * sizeof *map, err), next = tc->n;
	if (!map)
		return err->status;
	for (int i = 0; i < uc->n; i++) {
		map[i] = -1;
		for (int j = 0; j < tc->n && map[i] < 0; j++)
			if (!strcmp(uc->names[i], tc->names[j]))
				map[i] = j;
		if (map[i] < 0)
			map[i] = next++;
	}
	for (size_t r = 0; r < u->nrows; r++)
		to[r] = (float)map[(int)from[r]];
	free(map);
	return RT_OK;
}

/* The test table's labels into p->test.y: regression targets, or class
 * indices by the training's class names (string labels) or checked to be
 * training classes (numeric labels). */
static rt_status test_labels(const gp_problem *p, const rt_table *t, const rt_table *u,
			     int header, rt_error *err)
{
	float *y = p->test.y;
	if (p->test.fitness == GP_FIT_MSE || t->classes.n == 0) {
		if (u->classes.n > 0)
			return rt_fail(err, RT_ERR_INPUT, "%s: label '%s': expected numbers as in %s, "
				       "got text ('%s')", u->path, u->label_name ? u->label_name : "",
				       t->path, u->classes.names[0]);
		for (size_t r = 0; r < u->nrows; r++) {
			float v = u->label[r];
			if (p->test.fitness == GP_FIT_CLASS &&
			    !(v >= 0 && v < (float)p->test.nclasses && v == floorf(v)))
				return rt_fail(err, RT_ERR_INPUT, "%s: row %zu: expected a class of the "
					       "training file (0..%d), got %g", u->path,
					       r + 1 + (header ? 1 : 0), p->test.nclasses - 1, (double)v);
			y[r] = v;
		}
		return RT_OK;
	}
	if (u->classes.n == 0)
		return rt_fail(err, RT_ERR_INPUT, "%s: label '%s': expected class names as in %s, "
			       "got numbers", u->path, u->label_name ? u->label_name : "", t->path);
	int *map = rt_malloc((size_t)u->classes.n * sizeof *map, err);
	if (!map)
		return err->status;
	rt_status st = RT_OK;
	for (int i = 0; i < u->classes.n && !st; i++) {
		map[i] = -1;
		for (int c = 0; c < p->cases.nclasses && map[i] < 0; c++)
			if (!strcmp(u->classes.names[i], p->class_names[c]))
				map[i] = c;
		if (map[i] < 0)
			st = rt_fail(err, RT_ERR_INPUT, "%s: class '%s': expected one of the %d classes "
				     "of %s", u->path, u->classes.names[i], p->cases.nclasses, t->path);
	}
	for (size_t r = 0; r < u->nrows && !st; r++)
		y[r] = (float)map[(int)u->label[r]];
	free(map);
	return st;
}

/* [data] test = FILE: the held-out table, read as the training table t was.
 * Every error is prefixed with the key's file:line. */
static rt_status test_from_csv(rt_spec *spec, gp_problem *p, const rt_table *t,
			       const rt_csv_options *o, const char *file, const char *ignore,
			       rt_error *err)
{
	rt_table u;
	memset(&u, 0, sizeof u);
	if (rt_spec_data_path(spec, file, p->test_path, sizeof p->test_path, err) ||
	    rt_csv_load(p->test_path, o, &u, err) || rt_table_drop_columns(&u, ignore, err)) {
		rt_table_free(&u);
		return key_error(spec, "data", "test", err);
	}
	rt_status st = RT_OK;
	int same = u.has_label && u.ncols == t->ncols && u.nrows > 0;
	for (int c = 0; same && c < u.ncols && u.colnames && t->colnames; c++)
		same = !strcmp(u.colnames[c], t->colnames[c]);
	if (!same) {
		rt_fail(err, RT_ERR_INPUT, "%s: expected the columns of %s (%d inputs and the label "
			"column '%s', in the same order) and at least one row, got %d input columns%s "
			"and %zu rows", p->test_path, t->path, t->ncols,
			t->label_name ? t->label_name : "", u.ncols, u.has_label ? "" : ", no label",
			u.nrows);
		st = err->status;
		goto out;
	}
	if ((st = gp_cases_alloc_float(&p->test, u.ncols, u.nrows, err)))
		goto out;
	p->test.fitness = p->cases.fitness;
	p->test.nclasses = p->cases.nclasses;
	for (int c = 0; c < u.ncols && !st; c++)
		st = test_column(p, t, &u, c, err);
	if (!st)
		st = test_labels(p, t, &u, o->header, err);
out:
	rt_table_free(&u);
	return st ? key_error(spec, "data", "test", err) : RT_OK;
}

/* Table -> float cases with class indices or regression targets. */
static rt_status cases_from_csv(rt_spec *spec, gp_problem *p, rt_error *err)
{
	const char *file, *label, *classes, *test_file, *ignore;
	int header, fit;
	if (rt_spec_string(spec, "data", "test", "", &test_file, err) ||
	    rt_spec_string(spec, "data", "ignore", "", &ignore, err) ||
	    rt_spec_string(spec, "data", "file", NULL, &file, err) ||
	    rt_spec_bool(spec, "data", "header", 1, &header, err) ||
	    rt_spec_string(spec, "data", "label", "", &label, err) ||
	    rt_spec_string(spec, "data", "classes", "", &classes, err) ||
	    rt_spec_enum(spec, "data", "fitness", fitness_names, 0, &fit, err))
		return err->status;
	if (rt_spec_data_path(spec, file, p->data_path, sizeof p->data_path, err))
		return err->status;

	rt_csv_options o = rt_csv_defaults();
	o.header = header;
	o.label = label[0] ? label : NULL;
	o.label_index = -1;
	rt_table t;
	memset(&t, 0, sizeof t);
	if (rt_csv_load_shared(p->data_path, &o, &t, err))   /* every rank loads it: rank 0 reads */
		return err->status;
	rt_status st = RT_OK;
	gp_cases *c = &p->cases;
	if (rt_table_drop_columns(&t, ignore, err)) {
		rt_table_free(&t);
		return key_error(spec, "data", "ignore", err);
	}
	if (!t.has_label || t.ncols < 1 || t.nrows < 1) {
		st = rt_fail(err, RT_ERR_INPUT, "%s: expected a label column and at least one input "
			     "column and one row", p->data_path);
		goto out;
	}
	if ((st = gp_cases_alloc_float(c, t.ncols, t.nrows, err)))
		goto out;
	for (int col = 0; col < t.ncols; col++)
		memcpy(c->x + (size_t)col * c->stride, t.cols + (size_t)col * t.nrows,
		       t.nrows * sizeof(float));
	if ((st = set_names(&p->input_names, t.ncols, "x%d", 1, err)))
		goto out;
	for (int col = 0; col < t.ncols && t.colnames && !st; col++)
		if (t.colnames[col])
			st = set_name(p->input_names, col, t.colnames[col], err);
	if (st)
		goto out;
	snprintf(p->label, sizeof p->label, "%s", t.label_name ? t.label_name : "");

	if (fit == 1) {   /* mse: the label is a number to fit */
		c->fitness = GP_FIT_MSE;
		if (t.classes.n > 0) {
			st = rt_fail(err, RT_ERR_INPUT, "%s: fitness = mse needs a numeric label column",
				     p->data_path);
			goto out;
		}
		memcpy(c->y, t.label, t.nrows * sizeof(float));
		goto out;
	}

	c->fitness = GP_FIT_CLASS;
	int ncls = 0;
	if (t.classes.n > 0) {
		ncls = t.classes.n;
		if ((st = map_classes(spec, p, &t, classes, err)))
			goto out;
	} else {
		/* Numeric labels must be class indices 0..n-1 already. */
		float mx = 0;
		for (size_t r = 0; r < t.nrows; r++) {
			float v = t.label[r];
			if (!(v >= 0 && v < 65536 && v == floorf(v))) {
				st = rt_fail(err, RT_ERR_INPUT, "%s: row %zu: a numeric class label "
					     "must be an integer 0..65535, got %g", p->data_path,
					     r + 1 + (header ? 1 : 0), (double)v);
				goto out;
			}
			if (v > mx)
				mx = v;
			c->y[r] = v;
		}
		ncls = (int)mx + 1;
		if ((st = set_names(&p->class_names, ncls, "%d", 0, err)))
			goto out;
	}
	c->nclasses = ncls;
out:
	if (!st && test_file[0])
		st = test_from_csv(spec, p, &t, &o, test_file, ignore, err);
	rt_table_free(&t);
	return st;
}

rt_status gp_problem_build_cases(const rt_spec *cspec, gp_problem *p, rt_error *err)
{
	rt_spec *spec = (rt_spec *)cspec;   /* getters mark entries used */
	rt_status st;
	switch (p->source) {
	case GP_DATA_SEXTIC:
	case GP_DATA_QUINTIC:
	case GP_DATA_QUARTIC:
		st = gp_cases_polynomial(&p->cases, p->source, p->ncases, p->x_min, p->x_max,
					 p->data_seed, err);
		if (!st)
			st = set_names(&p->input_names, 1, "x", 0, err);
		break;
	case GP_DATA_MUX: {
		st = gp_cases_multiplexer(&p->cases, p->address_bits, err);
		if (st)
			break;
		int k = p->address_bits, n = p->cases.ninputs;
		st = set_names(&p->input_names, n, "d%d", -k, err);
		for (int i = 0; i < k && !st; i++) {
			char nm[16];
			snprintf(nm, sizeof nm, "a%d", i);
			st = set_name(p->input_names, i, nm, err);
		}
		break;
	}
	case GP_DATA_CSV:
		st = cases_from_csv(spec, p, err);
		break;
	default:
		st = rt_fail(err, RT_ERR_INTERNAL, "unknown data source %d", p->source);
	}
	if (!st && p->test_fraction > 0)
		st = split_cases(spec, p, err);
	if (st)
		return st;
	if (p->linear_scaling && p->cases.fitness == GP_FIT_MSE &&
	    (st = gp_scale_prepare(&p->cases, err)))
		return st;
	p->fset.ninputs = p->cases.ninputs;
	if (p->const_auto) {
		p->fset.use_consts = 1;
		gp_default_const_range(&p->cases, &p->fset.const_min, &p->fset.const_max);
	}
	if (p->parsimony_auto)
		p->breed.parsimony = p->cases.fitness == GP_FIT_MSE ? GP_PARSIMONY_DEFAULT_MSE
								   : GP_PARSIMONY_DEFAULT_COUNT;
	if (p->objectives_auto)
		p->objectives = p->cases.fitness == GP_FIT_MSE ? GP_OBJECTIVES_DEFAULT_MSE : GP_OBJ_ERROR;
	/* With a front the formulas users get are its members: a size limit
	 * like Operon's (its default length is 50) keeps them readable and, on
	 * the Feynman equations, recovered more laws (docs/gp.md). */
	if (p->max_size_auto && p->objectives != GP_OBJ_ERROR && p->breed.max_size > GP_MAX_SIZE_FRONT)
		p->breed.max_size = GP_MAX_SIZE_FRONT;
	if (p->objectives != GP_OBJ_ERROR && p->cases.fitness != GP_FIT_MSE) {
		rt_fail(err, RT_ERR_INPUT, "expected objectives = error: a Pareto front needs mse "
			"fitness (regression)");
		return key_error(spec, "gp", "objectives", err);
	}
	if (p->optimise_constants > 0 && p->cases.fitness != GP_FIT_MSE) {
		rt_fail(err, RT_ERR_INPUT, "optimise_constants needs mse fitness (regression)");
		return key_error(spec, "gp", "optimise_constants", err);
	}
	if (p->cases.fitness != GP_FIT_MSE) {
		if (p->fit_front_steps > 0 && rt_spec_find(spec, "gp", "fit_front_steps")) {
			rt_fail(err, RT_ERR_INPUT, "fit_front_steps needs mse fitness (regression)");
			return key_error(spec, "gp", "fit_front_steps", err);
		}
		p->fit_front_steps = 0;   /* the default is for regression */
	}
	if (p->fset.const_prob < 0)
		p->fset.const_prob = 1.0 / (p->cases.ninputs + 1);
	return RT_OK;
}

/* gp_problem_load with the split's seed (NULL: [problem] seed). */
static rt_status load(rt_spec *spec, const uint64_t *seed, gp_problem *p, rt_error *err)
{
	if (gp_problem_read(spec, p, err) || rt_spec_check_unused(spec, err))
		return err->status;
	if (seed)
		p->split_seed = *seed;
	if (gp_problem_build_cases(spec, p, err)) {
		gp_problem_free(p);
		return err->status;
	}
	return RT_OK;
}

rt_status gp_problem_load(rt_spec *spec, gp_problem *p, rt_error *err)
{
	return load(spec, NULL, p, err);
}

rt_status gp_problem_load_seed(rt_spec *spec, uint64_t seed, gp_problem *p, rt_error *err)
{
	return load(spec, &seed, p, err);
}

void gp_problem_free(gp_problem *p)
{
	free_names(p->input_names);
	free_names(p->class_names);
	p->input_names = p->class_names = NULL;
	gp_cases_free(&p->cases);
	gp_cases_free(&p->test);
}
