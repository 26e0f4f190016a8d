/* de_impl.h: the parts of kind `de` shared by its files: the job (a spec
 * turned into parameters and data), the CPU and GPU backends, the user
 * objective, and the outcome of a run. Not for other modules. */
#ifndef RT_DE_IMPL_H
#define RT_DE_IMPL_H

#include <stdint.h>

#include "de/de_mixed.h"
#include "error.h"
#include "gen.h"
#include "gpu.h"
#include "islands.h"
#include "kinds.h"
#include "objective.h"
#include "rng.h"
#include "spec.h"

/* Most lines a user objective may have. */
#if !defined(DE_USER_MAX_LINES)
#define DE_USER_MAX_LINES 4096
#endif

/* GPU kernels; AUTO is resolved to FUSED or MULTIBLOCK by de_job_finish.
 * MULTIBLOCK (de.cu, de_mb_gen): a block per (problem, individual) and a
 * launch per generation; rand/1/bin and best/1/bin only. */
typedef enum de_variant { DE_VARIANT_FUSED = 0, DE_VARIANT_NAIVE = 1, DE_VARIANT_AUTO = 2,
			  DE_VARIANT_MULTIBLOCK = 3 } de_variant;

/* `variant = auto` (the default) picks the multi-block kernel for rand/1
 * and best/1 from DE_AUTO_MULTIBLOCK_DIM dimensions on, and from
 * DE_AUTO_MULTIBLOCK_FEW_DIM on when a process runs at most
 * DE_AUTO_MULTIBLOCK_FEW problems; else (and for the adaptive strategies,
 * and beyond DE_AUTO_MULTIBLOCK_MAX_DIM, where its shared memory may not
 * fit) the fused kernel. Measured on an H100 with NP = 300
 * (bench/results/de-multiblock-h100-2026-11-23.md): multiblock is faster
 * than fused at D = 300 and 1000 for 1 to 100 problems (3.4-44x), at D = 100
 * for 1 to 30 problems (1.07-2.4x), slower at D = 100 for 100 problems
 * (2.3x), at D = 50 for 10 or more problems and at D = 30. */
#if !defined(DE_AUTO_MULTIBLOCK_DIM)
#define DE_AUTO_MULTIBLOCK_DIM 300
#endif
#if !defined(DE_AUTO_MULTIBLOCK_FEW_DIM)
#define DE_AUTO_MULTIBLOCK_FEW_DIM 100
#endif
#if !defined(DE_AUTO_MULTIBLOCK_FEW)
#define DE_AUTO_MULTIBLOCK_FEW 32
#endif
#if !defined(DE_AUTO_MULTIBLOCK_MAX_DIM)
#define DE_AUTO_MULTIBLOCK_MAX_DIM 12000
#endif
typedef enum de_popmem { DE_POPMEM_AUTO = 0, DE_POPMEM_SHARED = 1, DE_POPMEM_GLOBAL = 2 } de_popmem;

/* `function = callback`: the host objective of the C API
 * (evoforge_job_set_objective, objective.h), called once per problem and
 * generation with the whole trial population (de_cpu.c, de_host_eval); after
 * "user", "cec2017" and "cec2022" in de_job.c's names. Every strategy. */
#define DE_FN_CALLBACK (DE_FN_CEC2017 + 2)

/* A user objective: a C function body over (const float *x, int n). */
typedef struct de_user {
	char *body;                    /* the text, lines separated by '\n' */
	char where[RT_PATH_MAX];       /* file named in #line (spec or code file) */
	int *lines;                    /* file line of each body line */
	int nlines;
	void *so;                      /* CPU: dlopen handle */
	float (*fn)(const float *x, int n);   /* CPU: the compiled objective */
} de_user;

/* CEC 2017's error checkpoints: fractions of max_evals (de_cec.c). */
#define DE_CEC_CHECKS 16   /* most error checkpoints (CEC 2017: 14, CEC 2022: 16) */

/* Everything a run needs. Built by de_job_from_spec or de_job_default, then
 * de_job_prepare (shift vectors, rotation, CPU user objective). */
typedef struct de_job {
	char name[128];
	char spec_path[RT_PATH_MAX];
	int function;          /* enum de_function (DE_FN_USER: user objective) */
	int dim, np;
	double F, CR, lower, upper;
	int strategy, bounds;
	long generations;      /* limit from the spec (0: none) */
	long long max_evals;   /* per problem (0: none) */
	long gens;             /* effective generation limit */
	double target;         /* stop when |best - optimum| <= target (0: off) */
	double optimum;        /* f* (0 for the built-in functions) */
	long problems;         /* this process's: problem_base .. problem_base + problems - 1 */
	long problem_base;     /* global index of its first (0 unless spread over MPI ranks) */
	long problems_total;   /* in the whole job (de_shard.c) */
	int shift, rotate;
	int history_every;     /* 0: no history */
	int report_every;      /* generations between progress lines */
	uint64_t seed;
	int variant, popmem, block, streams;   /* GPU tuning (variant: never AUTO after de_job_finish) */
	int statemem;          /* de_popmem: where the fused kernel keeps adaptive state (de_gpu.c) */
	int persistent;        /* GPU: grid of resident blocks walking over problems (else a block per problem) */
	int grid_max;          /* GPU, persistent: at most this many blocks per launch (0: no cap; checks) */
	int memory_size;       /* adaptive strategies: H (0: the strategy's default) */
	double p_best, archive_rate;   /* adaptive strategies (< 0: the strategy's default) */
	long long *nfes_at;    /* L-SHADE, jSO: [gens + 1] evaluations after each generation */
	de_params params;      /* what the shared core sees */
	float zoff;            /* zstar when shifted or rotated, else 0 */
	float *shift_vec;      /* [problems][dim] or NULL */
	float *rot;            /* [dim][dim] or NULL */
	de_user user;          /* function == DE_FN_USER */
	rt_objective host;     /* function == DE_FN_CALLBACK: the caller's objective */
	float *x0;             /* [dim]: every problem's initial member 0 (de.x0), or NULL */
	struct de_ckpt *ckpt;  /* `run`: checkpoints and resume (de_ckpt.h); NULL: none */
	rt_islands_cfg islands;   /* [islands]: the island model over MPI ranks (islands.h) */
	struct rt_islands *isl;   /* `run`: its exchange while the run goes; NULL: none */
	/* function == DE_FN_CEC2017 (de_cec.c, templates/de/de_cec2017.h) */
	int cec_fn;            /* CEC 2017: 1, 3 .. 30; CEC 2022: DE_CEC22 + 1 .. 12 */
	uint64_t cec_seed;     /* the instance data's seed (not the run's) */
	char *cec_dir;         /* cec_data: the organisers' data files' folder, or NULL (generate) */
	float *cec_data;       /* [de_cec_data_len] instance data, or NULL before prepare */
	int cec_nchecks;       /* error checkpoints (0: none) */
	long cec_gen[DE_CEC_CHECKS];   /* generation whose best is checkpoint k's */
} de_job;

/* The result of a run on either backend. */
typedef struct de_outcome {
	long problems;
	int dim;
	float *best;           /* [problems] best value */
	float *bestx;          /* [problems][dim] */
	int *gens;             /* [problems] generations done */
	int *reached;          /* [problems] stopped at the target */
	float *hist;           /* [problems][hist_len] or NULL */
	int hist_len;
	float *cec;            /* [problems][job->cec_nchecks] errors at the CEC checkpoints, or NULL */
	int cec_nchecks;
	double seconds;        /* optimisation wall time (no compile, no setup) */
	double compile_seconds;
	double kernel_ms;      /* GPU: time between events around the loop */
	long long evals;       /* over all problems */
	char backend[8];       /* "cpu" or "gpu" */
	char device[320];
	char detail[256];      /* e.g. "fused, shared, block 320, grid 528" */
} de_outcome;

/* Called every job->report_every generations (and at the end). */
typedef void (*de_progress_fn)(void *ctx, const de_job *job, long gen, float best_min,
			       long ndone, long long evals, double seconds);

/* ---- de_job.c ---- */
/* Defaults for function fn, dim d (bench and tests start from here). */
void de_job_default(de_job *job, int fn, int dim);
/* Reads [problem] and [de] (and [objective]) of a spec; reports unused keys. */
rt_status de_job_from_spec(de_job *job, rt_spec *spec, const rt_options *opt, rt_error *err);
/* Derives params, the generation limit and the variant (auto); checks ranges. */
rt_status de_job_finish(de_job *job, rt_error *err);
/* Builds shift vectors and the rotation; compiles the CPU user objective
 * when cpu is set. */
rt_status de_job_prepare(de_job *job, int cpu, rt_error *err);
void de_job_free(de_job *job);
/* Rows of a random orthogonal n x n matrix into out (floats): Gaussian
 * rows from rng, modified Gram-Schmidt in double (de_job.c; also the CEC
 * suite's rotations). */
rt_status de_random_rotation(rt_rng *rng, int n, float *out, rt_error *err);
/* Initial member i of problem p into x (contiguous): de.x0 for i = 0
 * when set, else the random draw of de_core.h. */
void de_init_member(const de_job *job, long p, int i, float *x);
/* Stop rule: has this best value reached the target? */
int de_job_reached(const de_job *job, float best);
/* Evaluates x (contiguous) for problem p on the CPU. */
float de_job_eval(const de_job *job, long p, const float *x);
/* The spec's names of the job's strategy ("rand/1/bin") and bounds handling. */
const char *de_job_strategy_name(const de_job *job);
const char *de_job_bounds_name(const de_job *job);
/* Evaluations of one problem after generation gens (0: the initial population). */
long long de_job_evals(const de_job *job, long gens);
/* Evaluations a generation takes (CoDE: three trials an individual). */
long long de_job_evals_per_gen(const de_job *job);
/* Entries in the history of a run: one every history_every generations
 * from 0 to gens (0 without history). */
int de_job_hist_len(const de_job *job);

/* ---- de_cec.c ---- */
/* Reads cec_function, cec_seed, cec_data of a spec with function = cec2017
 * or cec2022 (job->cec_fn set to DE_CEC22 before the call for 2022). */
rt_status de_cec_read(de_job *job, rt_spec *spec, rt_error *err);
/* The checkpoint generations (after gens and the schedule are known). */
void de_cec_plan(de_job *job);
/* The fraction of max_evals of the job's checkpoint k. */
double de_cec_fraction(const de_job *job, int k);
/* The suite's function number (1..30 or 1..12), year and F*. */
int de_cec_number(const de_job *job);
int de_cec_year(const de_job *job);
long de_cec_fstar(const de_job *job);
/* Generates the instance data from cec_seed. */
rt_status de_cec_prepare(de_job *job, rt_error *err);
/* The next checkpoint generation after gen (LONG_MAX: none). */
long de_cec_next(const de_job *job, long gen);
/* After every problem reached generation gen (or stopped): their best
 * values into errs [problems][cec_nchecks] at the checkpoints of gen. */
void de_cec_note(const de_job *job, const de_state *st, long gen, float *errs);

/* ---- de_user.c ---- */
/* Appends the user's function as C (cuda 0) or CUDA (cuda 1) to src, with
 * #line directives naming the user's file and lines. */
void de_user_emit(const de_user *u, gen_source *src, int cuda);
/* Compiles the user objective with the system C compiler ($CC, else cc) to a
 * shared object in the cache folder and loads it. Compiler errors come back
 * as RT_ERR_INPUT with the compiler's message (user's file and lines). */
rt_status de_user_load(de_user *u, const char *name, rt_error *err);
/* Sets the body from text found at file:line (spec value) or a whole file. */
rt_status de_user_set(de_user *u, const char *body, const char *where, int line,
		      const char *filepath, rt_error *err);
void de_user_free(de_user *u);

/* ---- de_adapt.c ---- */
/* Per-problem sizes of the adaptive state (doubles, templates/de/de_adapt.h)
 * and of the scratch arrays of a generation (doubles, ints). */
size_t de_adapt_ad_len(const de_job *job);
size_t de_adapt_work_len(const de_job *job);
size_t de_adapt_iwork_len(const de_job *job);
/* Generation g of problem p from (X, fx) to (Y, fy), rows; ad, arch
 * (a_cap rows) updated; work and iwork: scratch. */
void de_adapt_cpu_step(const de_job *job, long p, uint32_t g, const float *X, const float *fx,
		       float *Y, float *fy, double *ad, float *arch, double *work, int *iwork);
/* The same step in three (JADE, SHADE, L-SHADE, jSO; a gathered evaluation,
 * the objective callback): the trials into rows 0 .. na - 1 of Y (returns
 * na, the current population size), then, their values in fy, selection,
 * archive, memory and reduction. */
int de_adapt_cpu_trials(const de_job *job, long p, uint32_t g, const float *X, const float *fx,
			float *Y, const double *ad, const float *arch, double *work, int *iwork);
void de_adapt_cpu_select(const de_job *job, long p, uint32_t g, const float *X, const float *fx,
			 float *Y, float *fy, double *ad, float *arch, double *work, int *iwork);

/* ---- de_mixed.c (templates/de/de_mixed.h) ---- */
/* CoDE: individual i's step of generation g of problem p: the trial that
 * survives written to y (a row), its value returned; best: x_best's index. */
float de_code_cpu_individual(const de_job *job, long p, uint32_t g, const float *X, const float *fx,
			     float *y, int i, uint32_t best);
/* SaDE: generation g of problem p, as de_adapt_cpu_step (work: de_adapt_work_len). */
void de_sade_cpu_step(const de_job *job, long p, uint32_t g, const float *X, const float *fx, float *Y,
		      float *fy, double *ad, double *work);
/* SaDE's generation in the three steps of a gathered evaluation (the
 * objective callback): the trials into Y's rows, then, their values in fy,
 * selection and learning. */
void de_sade_cpu_trials(const de_job *job, long p, uint32_t g, const float *X, const float *fx, float *Y,
			const double *ad, double *work);
void de_sade_cpu_select(const de_job *job, const float *X, const float *fx, float *Y, float *fy,
			double *ad, double *work);
/* CoDE likewise: individual i's trial t into row i * DE_CODE_TRIALS + t of
 * T; then, their values in ft, each individual's best trial selected
 * against it into (Y, fy). */
void de_code_cpu_trials(const de_job *job, long p, uint32_t g, const float *X, float *T, uint32_t best);
void de_code_cpu_select(const de_job *job, const float *X, const float *fx, const float *T,
			const float *ft, float *Y, float *fy);

/* ---- de_cpu.c ---- */
typedef struct de_cpu de_cpu;
rt_status de_cpu_create(const de_job *job, de_cpu **out, rt_error *err);
void de_cpu_free(de_cpu *c);
/* Runs every problem up to generation gen_end (0: initialise only). */
rt_status de_cpu_advance(de_cpu *c, long gen_end, rt_error *err);
/* Problem p's current population (np rows of dim floats), fitness, state. */
const float *de_cpu_population(const de_cpu *c, long p);
const float *de_cpu_fitness(const de_cpu *c, long p);
de_state de_cpu_state(const de_cpu *c, long p);
/* Adaptive strategies: problem p's state (de_adapt.h) and archive (rows); else NULL. */
const double *de_cpu_adapt_state(const de_cpu *c, long p);
const float *de_cpu_archive(const de_cpu *c, long p);
/* A whole run with progress; fills out (de_outcome_free releases it). */
rt_status de_cpu_run(const de_job *job, de_progress_fn progress, void *ctx, de_outcome *out,
		     rt_error *err);

/* function = callback: n rows X (n x dim floats) of problem p at generation
 * g widened into hx (n x dim doubles), the caller's objective called once,
 * its answers hf (n doubles) rounded into fx (de_sane: NaN the worst); a
 * non-zero return of the callback is RT_ERR_INPUT naming it, the problem and
 * the generation. The CPU and GPU backends' one door to the callback. */
rt_status de_host_eval(const de_job *job, long p, long g, const float *X, int n, double *hx,
		       double *hf, float *fx, rt_error *err);

/* ---- de_gpu.c ---- */
/* The generated CUDA source for job, tuned for device info (NULL: an H100's
 * shared memory); says where the population lives and the block size. */
rt_status de_gpu_source(const de_job *job, const gpu_info *info, gen_source *src, int *pop_shared,
			int *block, rt_error *err);
/* Threads per block of the multi-block kernel (de_mb_gen) for job. */
int de_gpu_mb_block(const de_job *job);
/* NVRTC options used for the DE kernels. */
const char *const *de_gpu_nvrtc_options(int *n);
/* A whole run on device 0. */
rt_status de_gpu_run(const de_job *job, de_progress_fn progress, void *ctx, de_outcome *out,
		     rt_error *err);

/* ---- de_bench.c ---- */
/* `evoforge bench de ...` and its help paragraph. */
rt_status de_bench(int argc, char **argv, const rt_options *opt, rt_error *err);
extern const char de_bench_help[];

/* ---- de_shard.c ---- */
/* With several processes (MPI ranks): job becomes this rank's share of the
 * problems (problem_base, problems); fails when a rank would get none. */
rt_status de_shard_job(de_job *job, const char *spec_path, rt_error *err);
/* Rank 0's out becomes the whole job's (every problem, the evaluations
 * summed, the longest time); the other ranks' stays theirs. */
rt_status de_shard_gather(const de_job *job, de_outcome *out, rt_error *err);
/* At the end of every stretch of a sharded job: *alive (problems still
 * running) summed and *stop (a stop requested) combined over the ranks, so
 * that they end, and write checkpoints, at the same generation. One process
 * or islands: unchanged. */
rt_status de_shard_agree(const de_job *job, long *alive, int *stop, rt_error *err);

/* ---- de_islands.c ---- */
struct de_snapshot;
/* At migration generation gen (rt_islands_due(job->isl, gen)): every
 * problem's emigrants leave s, the immigrants of the last migration take
 * their places in it (states' best values refreshed); *stop: every island
 * stops now (want: this one's run would end; asked: a stop was requested). */
rt_status de_islands_exchange(const de_job *job, long gen, struct de_snapshot *s, int want,
			      int asked, int *stop, rt_error *err);
/* After the run (every rank): rank 0's out takes, problem by problem, the
 * best island's best value, vector, generations and target flag (history:
 * its own); evaluations summed, times the longest. One process: unchanged. */
rt_status de_islands_gather(const de_job *job, de_outcome *out, rt_error *err);

/* ---- de.c ---- */
rt_status de_outcome_alloc(de_outcome *out, const de_job *job, rt_error *err);
void de_outcome_free(de_outcome *out);
/* Fills history entries (and CEC checkpoints) after a problem stopped with
 * its final best value. */
void de_outcome_fill_history(de_outcome *out, const de_job *job);
/* Over the problems' states: how many reached the target, how many still
 * run, the evaluations done and the lowest best value (for progress). */
void de_state_summary(const de_job *job, const de_state *st, long *ndone, long *alive,
		      long long *evals, float *bmin);
/* RT_ERR_INPUT naming the problem and generation if a problem's best is
 * non-finite (+inf: no individual with a finite objective; -inf: diverged). */
rt_status de_check_finite(const de_job *job, const de_state *st, rt_error *err);
/* The generated C source (CPU semantics with the job's constants). */
rt_status de_c_source(const de_job *job, gen_source *src, rt_error *err);

#endif
