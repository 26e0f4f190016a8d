/* mbp_impl.h: the parts of kind `mbp` shared by its files: the dataset
 * (patterns scaled for the networks, training/validation index sets), the
 * job (a spec turned into a shape, a training rule and data), the network
 * text format, the CPU and GPU trainers and the outcome of a run. Not for
 * other modules. */
#ifndef RT_MBP_IMPL_H
#define RT_MBP_IMPL_H

#include <stdint.h>

#include "error.h"
#include "gen.h"
#include "gpu.h"
#include "kinds.h"
#include "mbp/mbp_core.h"
#include "spec.h"

/* Training modes. Online is mini-batch with one pattern. */
typedef enum mbp_mode { MBP_BATCH = 0, MBP_MINIBATCH = 1, MBP_ONLINE = 2 } mbp_mode;

/* GPU kernels (the spec's variant = auto | fused | split). */
typedef enum mbp_variant { MBP_VARIANT_AUTO = 0, MBP_VARIANT_FUSED = 1, MBP_VARIANT_SPLIT = 2 } mbp_variant;

/* GPU: are a chunk's inputs copied to shared memory first (spec's
 * stage_inputs = auto | no | yes)? Speed only. */
typedef enum mbp_stage { MBP_STAGE_AUTO = 0, MBP_STAGE_NO = 1, MBP_STAGE_YES = 2 } mbp_stage;

/* Largest layer the generated kernels accept (neurons or inputs). */
#if !defined(MBP_MAX_UNITS)
#define MBP_MAX_UNITS 4096
#endif

/* ---- dataset (mbp_data.c) ---------------------------------------------------- */

/* All patterns of a problem, scaled as the MBP software does: each input
 * column min-max mapped to [-1, 1] and each target to the output
 * activation's range (mbp_activation_range), over all patterns; a constant
 * column maps to the middle of the range. A class label with c classes
 * becomes one target (c = 2: class 0 -> lo, class 1 -> hi) or c one-hot
 * targets (c > 2). Row-major: x[p * ni + i], t[p * no + o].
 *
 * Index sets: `sets` training/validation splits; set s trains on
 * train[s][0 .. ntrain[s]) and validates on valid[s][0 .. nvalid[s])
 * (pattern numbers into x/t). Without folds there is one set; with
 * folds = k there are k, set s holding out the patterns p with p % k == s. */
typedef struct mbp_dataset {
	char source[64];        /* "csv", "two-spirals", "friedman1", "xor" */
	char path[RT_PATH_MAX]; /* csv file ("" for generated data) */
	int ni, no;
	long n;
	float *x, *t;
	float *in_min, *in_max;     /* [ni] raw range of each input */
	float *out_min, *out_max;   /* [no] raw range of each target (regression) */
	float target_lo, target_hi; /* the scaled range of the targets */
	int classes;                /* 0: regression; else the number of classes */
	char **class_names;         /* [classes] */
	char **input_names;         /* [ni] */
	int sets;
	long **train, **valid;      /* [sets][...] */
	long *ntrain, *nvalid;      /* [sets] */
} mbp_dataset;

/* Reads the spec's [data] section:
 *   source = csv | two-spirals | friedman1 | xor
 *   file = uci/sonar.csv   label = Class      (csv; label default: last column)
 *   patterns = 40768  noise = 1  data_seed = 1 (friedman1)
 *   split = alternate | none | random | tail  (validation patterns; default
 *           none for generated data, alternate for csv)
 *   valid_fraction = 0.5  (random and tail)
 * folds (k >= 2, 0 = none) replaces the split. act_output sets the target
 * range. Errors name the spec's file and line. */
rt_status mbp_dataset_from_spec(mbp_dataset *d, rt_spec *spec, int act_output, int folds,
				rt_error *err);
/* A generated problem by name, all patterns training (tests and bench). */
rt_status mbp_dataset_generated(mbp_dataset *d, const char *source, long patterns,
				uint64_t data_seed, int act_output, rt_error *err);
void mbp_dataset_free(mbp_dataset *d);
/* Maps a scaled output back to target units (regression) or returns it as
 * is (classification). */
float mbp_dataset_unscale(const mbp_dataset *d, int o, float y);
/* The class a network output row (no values) stands for. */
int mbp_dataset_class_of(const mbp_dataset *d, const float *y);

/* ---- network text format (mbp_net.c) ------------------------------------------
 *   evoforge-mbp 1
 *   inputs 60
 *   hidden 10            (or: hidden 20 10)
 *   outputs 1
 *   space 1              (1: MBP with a space network; 0: BP)
 *   activation hidden sigmoid
 *   activation output sigmoid
 *   activation space sigmoid        (when space 1)
 *   input_range <min> <max>         (one line per input: the raw range
 *                                    mapped to [-1, 1]; optional)
 *   target_range <min> <max> <lo> <hi>  (one line per output; optional)
 *   layer main 1 10 60   (name, number, neurons, inputs; then a row per
 *                         neuron: bias, then one weight per input)
 *   ...
 *   layer space 1 10 60
 * '#' starts a comment; numbers are written with 9 significant digits so
 * floats read back exactly. */
/* The activations' names, indexed by enum mbp_activation, NULL-terminated. */
extern const char *const mbp_activation_names[];

typedef struct mbp_net {
	mbp_shape shape;
	float *w;                   /* shape.nweights */
	int has_ranges;
	float *in_min, *in_max;     /* [ni] */
	float *out_min, *out_max, out_lo, out_hi;   /* [no] */
} mbp_net;

/* Writes a network (ranges from d when d is not NULL) atomically. */
rt_status mbp_net_write(const char *path, const mbp_shape *s, const float *w,
			const mbp_dataset *d, rt_error *err);
/* Reads a network; errors name file:line and what was expected. */
rt_status mbp_net_read(const char *path, mbp_net *net, rt_error *err);
void mbp_net_free(mbp_net *net);

/* ---- job (mbp_job.c) --------------------------------------------------------- */

typedef struct mbp_job {
	char name[128];
	char spec_path[RT_PATH_MAX];
	char weights_path[RT_PATH_MAX]; /* initial weights file, or "" */
	uint64_t seed;
	mbp_shape shape;
	mbp_rule rule;
	float step0;            /* initial step size of every weight */
	float init_range;       /* random initial weights in [-r, r] */
	float *init_w;          /* weights from weights_path (all networks), or NULL */
	int mode;               /* enum mbp_mode */
	int batch_size;         /* patterns per correction (mini-batch; 1 online) */
	long epochs;            /* epoch limit */
	double target_rms;      /* stop a network at this training RMS (0: off) */
	long networks;          /* independent networks; network k uses set k % sets */
	long net_base;          /* global index of network 0 here (0 unless spread over MPI
				 * ranks, mbp_shard.c): the per-network functions below take
				 * a local k and draw, and pick sets, by net_base + k */
	long networks_total;    /* in the whole job when spread over ranks; 0: not spread */
	int folds;
	int chunk;              /* MBP_CHUNK: patterns summed per partial (semantics) */
	int report_every;       /* epochs between progress lines */
	int threads;            /* GPU threads per block (0: chosen) */
	int variant;            /* GPU: enum mbp_variant */
	int stage_inputs;       /* GPU: enum mbp_stage */
	mbp_dataset data;
	struct mbp_ckpt *ckpt;  /* `run`: checkpoints and resume (mbp_ckpt.h); NULL: none */
	struct mbp_history *hist; /* `run`: the history.csv rows (below); NULL: none */
} mbp_job;

/* Reads [problem], [mbp] and [data]; reports unused keys. */
rt_status mbp_job_from_spec(mbp_job *job, rt_spec *spec, const rt_options *opt, rt_error *err);
/* Defaults for a generated problem (tests and bench): shape from the args. */
rt_status mbp_job_generated(mbp_job *job, const char *source, long patterns, int h1, int h2,
			    int space, rt_error *err);
void mbp_job_free(mbp_job *job);
/* Network k's initial weights (job->init_w, or Philox (seed, stream
 * net_base + k)). */
void mbp_job_initial_weights(const mbp_job *job, long k, float *w);
/* The training set of network k: pattern numbers and their count. */
const long *mbp_job_train_set(const mbp_job *job, long k, long *n);
const long *mbp_job_valid_set(const mbp_job *job, long k, long *n);
/* Philox keys of network k's pattern order in epoch e (online/mini-batch). */
void mbp_job_order_keys(const mbp_job *job, long k, long epoch, uint32_t key[4]);
/* Patterns per correction for a training set of n patterns. */
long mbp_job_batch(const mbp_job *job, long n);
const char *mbp_mode_name(int mode);
const char *mbp_activation_name(int act);

/* ---- outcome ------------------------------------------------------------------ */

/* The state of one network after training (both backends). */
typedef struct mbp_result {
	long epochs;            /* epochs trained */
	int reached;            /* stopped at the target RMS */
	float train_rms;        /* the last epoch's RMS (as the rule saw it) */
	float best_rms;         /* robustness: the best epoch RMS */
	long restores;          /* robustness restores */
} mbp_result;

typedef struct mbp_outcome {
	long networks;
	int nweights;
	float *w;               /* [networks][nweights] final weights */
	mbp_result *res;        /* [networks] */
	double seconds;         /* training wall time (no compile, no setup) */
	double compile_seconds;
	double kernel_ms;       /* GPU: device time of the training launches */
	long long epochs;       /* over all networks */
	long long corrections;  /* weight corrections (batches) over all networks */
	char backend[8];
	char device[320];
	char detail[256];
} mbp_outcome;

rt_status mbp_outcome_alloc(mbp_outcome *out, const mbp_job *job, rt_error *err);
void mbp_outcome_free(mbp_outcome *out);
/* Sums the networks' epochs and weight corrections (epochs x batches per
 * epoch) from out->res into out->epochs and out->corrections. */
void mbp_outcome_count(mbp_outcome *out, const mbp_job *job);

/* RT_ERR_INPUT "network k diverged between epochs from and epoch" when the
 * epoch RMS is non-finite (both backends call it at every report). */
rt_status mbp_check_rms(const mbp_job *job, long k, float rms, long from, long epoch,
			rt_error *err);

/* Progress, every job->report_every epochs: the epoch reached, networks
 * still training, and the lowest training RMS. */
typedef void (*mbp_progress_fn)(void *ctx, const mbp_job *job, long epoch, long alive,
				float best_rms, double seconds);

/* ---- evaluation (mbp_eval.c) --------------------------------------------------- */

/* Forward pass of one pattern (scaled input x) -> outputs y[no]. */
void mbp_forward(const mbp_shape *s, const float *w, const float *x, float *y);
/* RMS over a pattern set (scaled units) and classification accuracy (-1 for
 * regression) of network weights w. */
void mbp_evaluate(const mbp_job *job, const float *w, const long *set, long n, double *rms,
		  double *accuracy);

/* ---- history (mbp_eval.c) -----------------------------------------------------
 * history.csv: a row every `every` epochs (the epoch limit / 100, rounded
 * up: at most 100 rows) at which a network was still training, and a last
 * row at the last epoch trained: the training RMS of each network's last
 * epoch (as the rule saw it, the same value on both backends: result.json's
 * last_epoch_rms) and the validation RMS of its weights then (evaluated as
 * result.json's valid_rms), as the lowest and the mean over the networks
 * when there are several. The rows so far travel in the checkpoints. */
#define MBP_HISTORY_ROWS 101
typedef struct mbp_history_row {
	long epoch;
	double train, train_mean, valid, valid_mean;   /* valid: NAN without a validation set */
} mbp_history_row;

typedef struct mbp_history {
	long every;
	long n;
	mbp_history_row *rows;     /* [MBP_HISTORY_ROWS] */
} mbp_history;

rt_status mbp_history_init(mbp_history *h, const mbp_job *job, rt_error *err);
void mbp_history_free(mbp_history *h);
/* Is a history row due at the end of the block ending at epoch? */
int mbp_history_due(const mbp_job *job, long epoch);
/* The row of epoch from now (this rank's networks: their weights now in
 * now->w, epochs and last RMS in now->res): every rank calls it at the same
 * epochs; the row is kept when a network of any rank trained up to epoch. */
rt_status mbp_history_add(const mbp_job *job, long epoch, const mbp_outcome *now, rt_error *err);
/* Rank 0, after the gather: the last row (every network's final epoch,
 * RMS and the validation RMS valid[k]) when it is past the last one kept. */
rt_status mbp_history_finish(const mbp_job *job, const mbp_outcome *out, const double *valid,
			     rt_error *err);
/* history.csv into dir, atomically. */
rt_status mbp_history_write(const mbp_job *job, const char *dir, rt_error *err);

/* ---- CPU path (mbp_cpu.c) ------------------------------------------------------ */
rt_status mbp_cpu_train(const mbp_job *job, mbp_progress_fn progress, void *ctx,
			mbp_outcome *out, rt_error *err);
/* The mean gradient (descent direction) over patterns set[0..n) into g, and
 * the squared error sum, as one batch-mode epoch computes them. */
rt_status mbp_cpu_gradient(const mbp_job *job, const float *w, const long *set, long n, float *g,
			   float *sse, rt_error *err);

/* ---- GPU path (mbp_gpu.c) ------------------------------------------------------ */
rt_status mbp_gpu_source(const mbp_job *job, gen_source *src, rt_error *err);
const char *const *mbp_gpu_nvrtc_options(int *n);
/* How a job's training kernels are launched (mbp_gpu.c; also for tuning). */
typedef struct mbp_gpu_plan {
	const char *kernel;     /* the busiest kernel: "mbp_fused" or "mbp_split_grad" */
	int threads;            /* per block */
	unsigned smem;          /* dynamic shared memory per block */
	int split, stage_inputs;
} mbp_gpu_plan;
void mbp_gpu_plan_for(const mbp_job *job, mbp_gpu_plan *plan);
/* `evoforge build` (rt_kind.kernels, mbp_build.c): the module a GPU run compiles. */
rt_status mbp_kernels(rt_spec *spec, const rt_options *opt, const gpu_info *info,
		      rt_kernel_emit emit, void *ctx, rt_error *err);
rt_status mbp_gpu_train(const mbp_job *job, mbp_progress_fn progress, void *ctx,
			mbp_outcome *out, rt_error *err);

/* ---- MPI ranks (mbp_shard.c) -------------------------------------------------- */
/* The job's networks over all ranks (networks_total, else networks). */
long mbp_job_networks_all(const mbp_job *job);
/* With several processes (MPI ranks): job becomes this rank's contiguous
 * share of the networks (net_base, networks); RT_ERR_INPUT when a rank
 * would get none. One process: nothing changes. */
rt_status mbp_shard_job(mbp_job *job, rt_error *err);
/* Rank 0: out (and job) become the whole job's -- every network's weights
 * and result in network order, epochs and corrections counted over all,
 * the longest times; the other ranks' stay theirs. */
rt_status mbp_shard_gather(mbp_job *job, mbp_outcome *out, rt_error *err);
/* At the end of a block of epochs: *alive (networks still training here)
 * and *stop (a stop was requested here) become whether any rank's are, so
 * every rank ends its loop and checkpoints at the same epoch. One process:
 * unchanged. */
rt_status mbp_shard_agree(long *alive, int *stop, rt_error *err);

/* ---- bench (mbp_bench.c) ------------------------------------------------------- */
rt_status mbp_bench(int argc, char **argv, const rt_options *opt, rt_error *err);
extern const char mbp_bench_help[];

#endif
