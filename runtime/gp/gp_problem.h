/* gp_problem.h: a GP problem from its spec: the run's parameters ([problem],
 * [gp]) and its fitness cases ([data]): generated regression (sextic and
 * friends), a CSV table (Shuttle, KDD Cup 99) or the Boolean n-multiplexer.
 *
 *   [gp]   population generations max_depth max_size tournament crossover
 *          mutation point_mutation crossover_internal elitism init_min_depth
 *          init_max_depth mutation_depth functions constants const_prob
 *          success_threshold stop_on_success evaluator cpu_block gpu_variant
 *          parsimony parsimony_coefficient optimise_constants optimise_steps
 *          fit_front_steps breeding
 *          objectives front_selection (gp_front.h)
 *          multiclass = round | one-vs-rest (classification only; gp_ovr.h)
 *   [data] source = sextic | quintic | quartic | csv | multiplexer
 *          sextic...: cases x_min x_max seed
 *          csv:       file header label classes fitness
 *          multiplexer: address_bits
 *          held-out set (optional, one of): test = FILE (csv: a second table
 *          with the training file's columns) | test_fraction = F (0 < F < 1:
 *          that share of the cases held out, stratified by class for
 *          classification, plain random otherwise; Philox stream
 *          GP_SPLIT_STREAM of the run's seed). Not for the multiplexer.
 * See problems/sextic.ini for every key with its default. */
#ifndef RT_GP_PROBLEM_H
#define RT_GP_PROBLEM_H

#include <stdint.h>

#include "config.h"
#include "error.h"
#include "gp_prog.h"
#include "gp_tree.h"
#include "islands.h"
#include "spec.h"

enum gp_data_source {
	GP_DATA_SEXTIC, GP_DATA_QUINTIC, GP_DATA_QUARTIC, GP_DATA_CSV, GP_DATA_MUX
};

/* The default max_size of a regression run with a Pareto front (the key
 * absent): measured on the Feynman equations (docs/gp.md). */
#if !defined(GP_MAX_SIZE_FRONT)
#define GP_MAX_SIZE_FRONT 64
#endif

typedef struct gp_problem {
	char name[128];
	uint64_t spec_seed;     /* [problem] seed (the run's seed unless --seed) */
	int source;             /* enum gp_data_source */
	int population, generations;
	gp_breed breed;
	gp_fset fset;
	int evaluator;          /* enum gp_eval_method (gp_eval.h): [gp] evaluator */
	int cpu_block;          /* CPU evaluator block (cases, 0: default): [gp] cpu_block */
	char gpu_variant[64];   /* GPU interpreter (gp_gpu.h): [gp] gpu_variant */
	int breed_on_host;      /* [gp] breeding = host: GPU runs breed on the host (default gpu) */
	double success;         /* a best fitness <= success is a perfect solution */
	int multiclass;         /* enum gp_multiclass: [gp] multiclass (classification) */
	int stop_on_success;
	int const_auto;         /* [gp] constants absent on a csv problem: range from the data */
	int parsimony_auto;     /* [gp] parsimony absent: chosen by the fitness (gp_tree.h) */
	int optimise_constants; /* [gp] optimise_constants: top-k programs tuned each generation */
	int optimise_steps;     /* [gp] optimise_steps: Levenberg-Marquardt steps per program */
	int fit_front_steps;    /* [gp] fit_front_steps: LM trials on each front member's constants
				 * at the end of the run (0: off; gp_constopt.h) */
	int linear_scaling;     /* [gp] linear_scaling: fitness of a + b*f (gp_scale.h; mse only) */
	int objectives;         /* enum gp_objectives (gp_front.h): [gp] objectives */
	int objectives_auto;    /* [gp] objectives absent: chosen by the fitness */
	int max_size_auto;      /* [gp] max_size absent: GP_MAX_SIZE_FRONT with a front */
	int front_selection;    /* enum gp_front_selection: [gp] front_selection */
	int polish_generations; /* [gp] polish_generations: with a front, the run goes on this
				 * long after it is solved (stop_on_success), for smaller formulas */
	struct gp_ckpt *ckpt;   /* checkpoints and resume (gp_ckpt.h; set by the run); NULL: none */
	rt_islands_cfg islands; /* [islands]: the island model over MPI ranks (islands.h) */
	gp_cases cases;
	char **input_names;     /* cases.ninputs names, for printing */
	char **class_names;     /* cases.nclasses names (classification), else NULL */
	char data_path[RT_PATH_MAX];  /* resolved data file ("" when generated) */
	char label[128];        /* csv: the label column's name (for export), else "" */
	/* Parameters of the data source, as read. */
	long ncases;            /* generated regression */
	double x_min, x_max;
	uint64_t data_seed;
	int address_bits;       /* multiplexer */
	/* Held-out set: with one, `cases` holds the training cases only (what
	 * every evaluator, CPU or GPU, sees) and `test` the rest (gp_score.h). */
	gp_cases test;          /* test.ncases == 0: no held-out set */
	char test_path[RT_PATH_MAX];  /* [data] test, resolved; "" otherwise */
	double test_fraction;   /* [data] test_fraction; 0 when not given */
	uint64_t split_seed;    /* the split's seed: [problem] seed, or the run's */
} gp_problem;

/* How a classification run maps programs to classes ([gp] multiclass):
 * round: one program, class clamp(rint(o), 0, K-1) (the seed's);
 * one-vs-rest: K binary programs, class argmax of their outputs (gp_ovr.h). */
enum gp_multiclass { GP_MULTICLASS_ROUND = 0, GP_MULTICLASS_OVR = 1 };
/* The scheme of a classification spec without the key (measured: README). */
#if !defined(GP_MULTICLASS_DEFAULT)
#define GP_MULTICLASS_DEFAULT GP_MULTICLASS_OVR
#endif

/* The Philox stream of the train / test split: above every stream the
 * breeding uses (generation + 1 < 2^32 - 1 in the high word). */
#define GP_SPLIT_STREAM 0xffffffff5b117e57ull

/* The spec's name of a data source ("sextic", "csv", ...), or "?". */
const char *gp_data_source_name(int source);

/* Reads every [problem], [gp] and [data] key, checks there are no unknown
 * ones (rt_spec_check_unused), then builds the fitness cases (loading data
 * files). Errors name file:line, the key and what was expected. Callers with
 * keys of their own read them before calling. */
rt_status gp_problem_load(rt_spec *spec, gp_problem *p, rt_error *err);
/* The same with the run's seed (--seed) for the train / test split. */
rt_status gp_problem_load_seed(rt_spec *spec, uint64_t seed, gp_problem *p, rt_error *err);
/* Reads the keys only (no data, no unused-key check): fills everything but
 * cases, input_names and class_names. */
rt_status gp_problem_read(rt_spec *spec, gp_problem *p, rt_error *err);
/* Builds p->cases (and names) from the parameters gp_problem_read filled,
 * and the held-out set p->test when the spec asks for one. */
rt_status gp_problem_build_cases(const rt_spec *spec, gp_problem *p, rt_error *err);
void gp_problem_free(gp_problem *p);

/* Fitness-case builders (also used by tests and benchmarks). */
/* n cases x uniform in [x_min, x_max) from Philox (seed, stream 0); y is the
 * polynomial of `source` (GP_DATA_SEXTIC/QUINTIC/QUARTIC) computed in double. */
rt_status gp_cases_polynomial(gp_cases *c, int source, long n, double x_min, double x_max,
			      uint64_t seed, rt_error *err);
/* All 2^(k + 2^k) cases of the multiplexer with k address bits, bit-packed:
 * inputs 0..k-1 are the address (input 0 the least significant bit), inputs
 * k.. the data lines; case c sets input i to bit i of c. */
rt_status gp_cases_multiplexer(gp_cases *c, int address_bits, rt_error *err);
/* Allocates float cases: ninputs columns of stride (ncases rounded up to 64)
 * zeroed floats, and y. */
rt_status gp_cases_alloc_float(gp_cases *c, int ninputs, size_t ncases, rt_error *err);
void gp_cases_free(gp_cases *c);

/* The default constant range of a csv problem without [gp] constants:
 * [-r, r) with r = the largest |mean| + 2 sd (population sd, in double)
 * over the input columns and the label column of c, at least 1. */
void gp_default_const_range(const gp_cases *c, float *lo, float *hi);

/* The reference polynomials, in double. */
double gp_polynomial(int source, double x);

#endif
