/* gp.h: kind `gp`, tree genetic programming (spec [problem] kind = gp):
 * the kind's entry points and the generational loop (gp_evolve), which the
 * CLI runs with the CPU evaluator and tests may run with their own. */
#ifndef RT_GP_H
#define RT_GP_H

#include <stdint.h>

#include "gp_problem.h"
#include "gp_tree.h"
#include "kinds.h"

extern const rt_kind gp_kind;

/* An evaluator: fitness[p] for every program of pop on cases, by method
 * (enum gp_eval_method; pop is in the form the method reads). */
typedef rt_status (*gp_eval_fn)(const gp_packed *pop, const gp_cases *cases, int method,
				double *fitness, rt_error *err);

/* One generation's figures. GPop/s = nodes of the evaluated programs x
 * fitness cases / seconds: eval counts evaluation alone (the device's kernel
 * time where the evaluator reports it), gen the whole generation's wall time
 * (breeding that made it, packing, evaluation; overlapped where the
 * evaluator is asynchronous). host_s is the host's work (breeding, packing,
 * handing batches to the evaluator), device_s the evaluation time. */
typedef struct gp_gen_stats {
	int generation;
	double best, mean;       /* mean over finite fitness values */
	double mean_size;
	int best_size;
	double eval_s, gen_s;
	double gpops_eval, gpops_gen;
	double host_s, device_s;
	int nonfinite;           /* programs whose fitness is +inf (NaN/inf output or error, mse) */
} gp_gen_stats;

typedef struct gp_result {
	gp_gen_stats *history;   /* one per evaluated generation */
	int nhistory;
	gp_tree best;            /* best program found in the run */
	double best_fitness;
	int best_generation;
	int solved;              /* best_fitness <= the problem's success threshold */
	uint64_t programs;       /* programs evaluated */
	double gpop;             /* nodes x cases evaluated (can exceed 2^64 in long runs) */
	double eval_s, breed_s, run_s;   /* breed_s: all host work (breeding and packing) */
	/* [gp] objectives != error: the run's Pareto front (gp_front.h), and
	 * best is the member gp_front_choose picks; NULL otherwise. */
	struct gp_front *front;
	/* [gp] fit_front_steps: the end of run's constant fitting (gp_constopt.h):
	 * programs fitted, those it improved, seconds. */
	int fitted, fit_improved;
	double fit_s;
} gp_result;

/* Runs the generational loop on p: ramped half-and-half, then evaluate /
 * report / breed for generations 0..p->generations (stopping early on a
 * perfect solution when p->stop_on_success). A progress line per generation
 * goes through rt_info. Everything random comes from seed. */
rt_status gp_evolve(const gp_problem *p, uint64_t seed, gp_eval_fn eval, gp_result *res,
		    rt_error *err);

/* An evaluator with state of its own (the GPU's): fitness[p] for every
 * program of pop (packed in `form`, enum gp_form) on cases.
 *
 * Optionally asynchronous (start and finish both set): start takes a batch
 * (pop may be changed as soon as it returns) and returns at once, with at
 * most two batches in flight; finish waits for the oldest, writes its
 * fitness and its evaluation time in seconds (*device_s; 0 if unknown).
 * gp_evolve_with then breeds each generation in `batches` ranges of
 * offspring (0: GP_EVOLVE_BATCHES) and evaluates each range while the next
 * is bred; results are those of the synchronous loop exactly. */
typedef struct gp_evaluator {
	rt_status (*eval)(void *ctx, const gp_packed *pop, const gp_cases *cases,
			  double *fitness, rt_error *err);
	void *ctx;
	int form;
	rt_status (*start)(void *ctx, const gp_packed *pop, const gp_cases *cases, rt_error *err);
	rt_status (*finish)(void *ctx, double *fitness, double *device_s, rt_error *err);
	int batches;
	/* Non-NULL: whole generations are bred and evaluated on the device
	 * (gp_gpu_breed.h) and the calls above are not used. */
	struct gp_gpu_breeder *breeder;
	/* Non-NULL: [gp] optimise_constants runs its Levenberg-Marquardt on the
	 * device (gp_constopt_population_gpu), else on the host. */
	struct gp_constopt_gpu *constopt;
} gp_evaluator;

/* Default number of offspring ranges per generation for asynchronous
 * evaluators (EVOFORGE_GP_BATCHES overrides it in `evoforge run`). */
#if !defined(GP_EVOLVE_BATCHES)
#define GP_EVOLVE_BATCHES 8
#endif

/* gp_evolve with any evaluator. */
rt_status gp_evolve_with(const gp_problem *p, uint64_t seed, const gp_evaluator *ev,
			 gp_result *res, rt_error *err);
void gp_result_free(gp_result *r);

/* For `evoforge run`'s drivers (gp.c, gp_ovr.c). */
struct gp_gpu;
struct rt_json;
struct gp_score;
/* Chooses the backend (--backend); for the GPU opens [gp] gpu_variant's
 * interpreter on p->cases into *gpu (NULL: the CPU); names the device. */
rt_status gp_run_backend_open(const gp_problem *p, const rt_options *opt, struct gp_gpu **gpu,
			      char *device, int size, rt_error *err);
/* Does a GPU run of p breed on the device (gp_gpu_breed.h)? Yes unless
 * [gp] breeding = host, constants are optimised (the fit, on the GPU or
 * the host, writes into host trees), objectives = error,complexity
 * (complexity is counted on host trees), or the interpreter reads RPN. */
int gp_breeds_on_device(const gp_problem *p);
/* gp_evolve_with on the GPU interpreter gpu (opened on p->cases) or, when
 * gpu is NULL, on the CPU with the problem's evaluator and block. */
rt_status gp_run_evolve(const gp_problem *p, uint64_t seed, struct gp_gpu *gpu, gp_result *r,
			rt_error *err);
/* result.json's "parameters" and "data" objects. */
void gp_json_params(struct rt_json *j, const gp_problem *p);
/* result.json's "holdout" object: the split and the train / test scores. */
void gp_json_holdout(struct rt_json *j, const gp_problem *p, const struct gp_score *train,
		     const struct gp_score *test);

struct rt_jval;
/* `evoforge export` for kind gp (gp_export.c): NAME.c (the best program as
 * standalone C99), NAME.h, NAME-eval.c (a CSV evaluator), a Makefile, and
 * NAME-eval built when cc is present. */
rt_status gp_export_result(const struct rt_jval *result, const char *result_path,
			   const rt_options *opt, const char *dir, rt_error *err);
/* `evoforge eval` for kind gp: the best program on a CSV by column names,
 * on the runtime's CPU interpreter; the fitness on stderr when the CSV has
 * the run's label column. */
rt_status gp_eval_result(const struct rt_jval *result, const char *result_path, const char *data,
			 const char *out, const rt_options *opt, rt_error *err);

#endif
