/* aco_impl.h: the parts of kind `aco` shared by its files: the job (a spec
 * turned into parameters and the instance's matrices), the backend
 * interface the MAX-MIN loop drives (CPU: aco_cpu.c, GPU: aco_gpu.c), and
 * the outcome of a run. Not for other modules. */
#ifndef RT_ACO_IMPL_H
#define RT_ACO_IMPL_H

#include <stdint.h>

#include "aco/aco_core.h"
#include "data.h"
#include "error.h"
#include "gen.h"
#include "gpu.h"
#include "islands.h"
#include "kinds.h"
#include "spec.h"

/* Most cities an ACO job may have: the distance, pheromone, heuristic and
 * choice matrices take 16 n^2 bytes (30,000 cities: 14.4 GB). */
#if !defined(ACO_MAX_CITIES)
#define ACO_MAX_CITIES 30000
#endif
/* Longest candidate list (nearest neighbours per city). */
#if !defined(ACO_MAX_CAND)
#define ACO_MAX_CAND 256
#endif

/* Tour construction on the GPU (the CPU path follows the same scan order). */
typedef enum aco_construct {
	ACO_CONSTRUCT_THREAD = 0,   /* the seed's ant per thread, sequential prefix sums */
	ACO_CONSTRUCT_WARP = 1,     /* an ant per warp: warp scan, tabu bitmask */
	ACO_CONSTRUCT_AUTO = 2      /* resolved to the measured default by aco_job_finish */
} aco_construct;

/* Where the warp kernel reads the compact candidate table ([aco] cand_memory):
 * shared memory when it fits in ACO_GPU_CAND_SMEM (auto), always (an error when
 * the device cannot hold it), or never (through L1/L2). Speed only. */
typedef enum aco_cand_memory {
	ACO_CAND_AUTO = 0, ACO_CAND_SHARED = 1, ACO_CAND_GLOBAL = 2
} aco_cand_memory;

/* ACO's rule sets ([aco] variant); a variant sets defaults only, every key
 * still overrides. evoforge (the default): ACOTSP's MAX-MIN with alpha = 1,
 * beta = 2 and the iteration-best deposit every iteration, the combination
 * that measured best (docs/aco.md, the ablation); acotsp: ACOTSP's rules
 * with the seed paper's alpha = 2, beta = 3 (evoforge's rules before
 * 2026-11-27, for research comparisons); gpu-mmas: every choice of
 * Skinderowicz's GPU MMAS (FGCS 2020). */
typedef enum aco_variant {
	ACO_VARIANT_ACOTSP = 0, ACO_VARIANT_GPU_MMAS = 1, ACO_VARIANT_EVOFORGE = 2
} aco_variant;

typedef enum aco_deposit { ACO_DEPOSIT_SCHEDULE = 0, ACO_DEPOSIT_ITERATION_BEST = 1 } aco_deposit;

/* The average number of choices in tau_min's formula ([aco] tau_min_choices):
 * ACOTSP's (candidates + 1) / 2, or n / 2 (Stützle and Hoos 2000, Eq. 11). */
typedef enum aco_tau_min_choices { ACO_CHOICES_CANDIDATES = 0, ACO_CHOICES_HALF_CITIES = 1 } aco_tau_min_choices;

typedef enum aco_ls_kind {
	ACO_LS_NONE = 0, ACO_LS_2OPT = 1, ACO_LS_25OPT = 2, ACO_LS_OROPT = 3
} aco_ls_kind;

/* Everything a run needs. Built by aco_job_from_spec (or by hand in tests),
 * then aco_job_prepare (distances, candidate lists, heuristic matrix). */
typedef struct aco_job {
	char name[128];
	char spec_path[RT_PATH_MAX];
	char data_path[RT_PATH_MAX];   /* "" for a generated random instance */
	char optimal_path[RT_PATH_MAX];/* "name : length" list ([data] optimal), or "" */
	char instance[128];            /* the instance's NAME */
	int n;                         /* cities */
	int *dist;                     /* n x n, row-major, symmetric, zero diagonal */
	int *cand;                     /* n x cand_len nearest neighbours (by distance, then index) */
	int cand_len;                  /* 0 in the spec = full choice: then cand is NULL */
	int *nn;                       /* n x ls_cand nearest neighbours for the local search */
	float *heur;                   /* n x n: eta^beta (aco_heuristic) */
	int64_t nn_length;             /* nearest-neighbour tour from city 0 (aco_job_prepare) */
	int ants;
	double alpha, beta, rho;
	int variant;                   /* enum aco_variant: the defaults below came from it */
	double p_best;                 /* tau_min's p_best: a converged ant's chance to build the best tour */
	int tau_min_choices;           /* enum aco_tau_min_choices */
	int deposit;                   /* enum aco_deposit (no local search) */
	int alpha_int, beta_int;       /* whole exponents, or -1 (powf) */
	long iterations;               /* iteration limit */
	double time_limit;             /* seconds (0: none) */
	long target;                   /* stop at a tour this short (0: off) */
	long optimum;                  /* known optimum (-1: unknown) */
	int restart;                   /* re-initialise on stagnation (branching factor) */
	double lambda;                 /* lambda-branching's lambda (0.05) */
	double branch_factor;          /* restart below this branching factor (1.00001) */
	int restart_gap;               /* ... and this many iterations without improvement (250) */
	int local_search;              /* enum aco_ls_kind */
	int ls_cand;                   /* neighbours the local search tries (the rows of nn) */
	int construct;                 /* enum aco_construct (never AUTO after aco_job_finish) */
	int block;                     /* GPU threads per block (0: chosen) */
	int cand_memory;               /* enum aco_cand_memory (GPU, warp kernel) */
	int report_every;              /* iterations between progress lines */
	int history_every;             /* iterations between history.csv rows (0: none) */
	uint64_t seed;
	struct aco_ckpt *ckpt;         /* `run`: checkpoints and resume (aco_ckpt.h); NULL: none */
	rt_islands_cfg islands;        /* [islands]: the island model over MPI ranks (islands.h) */
	struct rt_islands *isl;        /* `run`: its exchange while the loop runs; NULL: none */
	/* generated random uniform instance (data_path ""): */
	int random_n;
	double random_side;
} aco_job;

/* The tour-building backend the MAX-MIN loop (aco_loop.c) drives. Tours,
 * lengths and matrices stay in the backend (on the device for the GPU);
 * only scalars, and a tour when it is asked for, cross. */
typedef struct aco_backend aco_backend;
typedef struct aco_backend_ops {
	/* Every ant builds a tour in `iteration`, then local search if the job
	 * has one; lengths are kept. */
	rt_status (*construct)(aco_backend *b, uint32_t iteration, rt_error *err);
	/* The shortest tour of this iteration: its length and ant (lowest on ties). */
	rt_status (*iteration_best)(aco_backend *b, int64_t *length, int *ant, rt_error *err);
	/* Copies ant's tour into saved slot `slot` (ACO_SLOT_*); if tour is not
	 * NULL also returns it (n cities). */
	rt_status (*save)(aco_backend *b, int ant, int slot, int *tour, rt_error *err);
	/* Evaporates, deposits `deposit` on the tour of saved slot `slot`
	 * (or ant `ant` when slot < 0), clamps, recomputes choice. */
	rt_status (*update)(aco_backend *b, int slot, int ant, float keep, float deposit,
			    float tau_min, float tau_max, rt_error *err);
	/* Sets every pheromone cell to tau and recomputes choice. */
	rt_status (*reset)(aco_backend *b, float tau, rt_error *err);
	/* Number of (city, candidate) pairs above lambda-branching's cutoff,
	 * summed over cities (ACOTSP's node_branching before the division). */
	rt_status (*branching)(aco_backend *b, float lambda, long *count, rt_error *err);
	/* Copies every ant's tour (ants x n) and length out (tests, checks). */
	rt_status (*tours)(aco_backend *b, int *tours, int64_t *lengths, rt_error *err);
	/* Checkpoints (aco_ckpt.h): copies the pheromone matrix (n x n) and the
	 * saved slots (2 x n) out; everything else the next iteration reads is
	 * derived from them or rebuilt by it. */
	rt_status (*get_state)(aco_backend *b, float *tau, int *slots, rt_error *err);
	/* Resume: sets the pheromone matrix and the slots, recomputes choice. */
	rt_status (*set_state)(aco_backend *b, const float *tau, const int *slots, rt_error *err);
	void (*destroy)(aco_backend *b);
	const char *name;              /* "cpu" or "gpu" */
} aco_backend_ops;

enum { ACO_SLOT_BEST = 0, ACO_SLOT_RESTART = 1 };

struct aco_backend {
	const aco_backend_ops *ops;
	char device[256];              /* what it runs on, for result.json */
	char detail[256];              /* kernels, block sizes */
	double compile_seconds;
	double busy_seconds;           /* device time measured by the backend (GPU events); 0: unknown */
};

/* ---- job (aco_job.c) ---- */
void aco_job_default(aco_job *job);
rt_status aco_job_from_spec(rt_spec *spec, const rt_options *opt, aco_job *job, rt_error *err);
/* Loads or generates the instance; computes distances, candidates, heuristic. */
rt_status aco_job_prepare(aco_job *job, rt_error *err);
/* (Re)computes job->cand and job->nn from job->dist (after a change of
 * cand_len or ls_cand). */
rt_status aco_job_candidates(aco_job *job, rt_error *err);
/* Resolves AUTO choices once the backend is known (gpu: 1 when on the GPU). */
void aco_job_finish(aco_job *job, int gpu);
void aco_job_free(aco_job *job);
/* ACOTSP's initial pheromone, 1 / (rho L_nn), L_nn = job->nn_length. */
float aco_tau0(const aco_job *job);
/* Names of the enums (for messages and JSON). */
const char *aco_construct_name(int c);
const char *aco_ls_name(int ls);
const char *aco_variant_name(int v);
const char *aco_deposit_name(int d);
const char *aco_tau_min_choices_name(int c);

/* ---- backends ---- */
/* The backend --backend asks for (resolves the job's AUTO choices first). */
rt_status aco_backend_open(aco_job *job, const rt_options *opt, aco_backend **b, rt_error *err);
rt_status aco_cpu_create(const aco_job *job, float tau0, aco_backend **b, rt_error *err);
rt_status aco_gpu_create(const aco_job *job, float tau0, aco_backend **b, rt_error *err);
/* The generated CUDA source for a job (`evoforge gen` and aco_gpu_create). */
rt_status aco_gpu_source(const aco_job *job, gen_source *src, rt_error *err);
/* NVRTC options the kernels are compiled with. */
const char *const *aco_gpu_nvrtc_options(int *n);
/* How a job's construction kernel is launched on a device with sms SMs and
 * smem_optin bytes of shared memory per block (aco_gpu.c; also for tuning). */
typedef struct aco_gpu_plan {
	const char *kernel;            /* "aco_construct_warp" or "aco_construct_thread" */
	int threads;                   /* per block */
	unsigned smem;                 /* the warp kernel's dynamic shared memory */
	int cand_shared;               /* candidate table in shared memory */
} aco_gpu_plan;
rt_status aco_gpu_plan_for(const aco_job *job, int sms, int smem_optin, aco_gpu_plan *plan,
			   rt_error *err);
const char *aco_cand_memory_name(int m);
/* `evoforge build` (rt_kind.kernels, aco_build.c): the module a GPU run compiles. */
rt_status aco_kernels(rt_spec *spec, const rt_options *opt, const gpu_info *info,
		      rt_kernel_emit emit, void *ctx, rt_error *err);

/* ---- the MAX-MIN loop (aco_loop.c) ---- */
typedef struct aco_outcome {
	int64_t best_length;
	int *best_tour;                /* n cities */
	long best_iteration;
	long iterations;               /* done */
	long restarts;
	double seconds, host_seconds;  /* whole loop; of which not measured busy on the device */
	long long tours;               /* constructed */
	double *hist_best;             /* per history row: best-so-far length */
	long *hist_iter;
	double *hist_ms;               /* ms per iteration over the row's span */
	int hist_len, hist_cap;
} aco_outcome;

/* The MAX-MIN loop's own state between iterations (ACOTSP's globals). */
typedef struct aco_mmas {
	int64_t best, restart_best;     /* lengths (INT64_MAX: none yet) */
	long found_best, restart_found_best, restart_iteration;
	double tau_min, tau_max;
	long u_gb;                      /* the best-so-far ant deposits every u_gb-th iteration */
	int64_t iter_best;              /* this iteration's best length and ant */
	int iter_ant;
} aco_mmas;

/* Progress callback: once per report_every iterations and at the end. */
typedef void (*aco_progress_fn)(void *ctx, const aco_job *job, const aco_outcome *out,
				double ms_per_iteration);
rt_status aco_loop_run(const aco_job *job, aco_backend *b, aco_progress_fn progress, void *ctx,
		       aco_outcome *out, rt_error *err);
void aco_outcome_free(aco_outcome *out);
/* tau_max and tau_min for a new best-so-far length (m->best). */
void aco_mmas_set_limits(const aco_job *job, aco_mmas *m);

/* ---- islands (aco_islands.c) ---- */
/* After iteration i: a migration when one is due (the best-so-far may
 * change), and *stop: the run ends here (want_stop: it would on its own;
 * stop_requested: a stop was requested). */
rt_status aco_islands_step(const aco_job *job, aco_backend *b, aco_mmas *m, long i,
			   aco_outcome *out, int want_stop, int stop_requested, int *stop,
			   rt_error *err);
/* After the run, on every rank: out's best tour becomes the best island's,
 * its tours the job's sum and its time the longest. One process: unchanged. */
rt_status aco_islands_share_best(const aco_job *job, aco_outcome *out, rt_error *err);

#endif
