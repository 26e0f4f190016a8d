/* svm_impl.h: the parts of kind `svm` shared by its files: the training
 * problem (dense features, labels), the SMO solver of one binary C-SVC
 * problem, the model (LIBSVM's structure: one-vs-one binary machines over
 * the classes, support vectors shared), the LIBSVM model-file format, and
 * prediction. Not for other modules. */
#ifndef RT_SVM_IMPL_H
#define RT_SVM_IMPL_H

#include <stdint.h>

#include "data.h"
#include "error.h"
#include "gen.h"
#include "kinds.h"
#include "svm/svm_core.h"

/* Working-set selection: LIBSVM's second-order rule (WSS2, Fan et al. 2005)
 * or the seed's first-order maximal violating pair. */
enum svm_wss { SVM_WSS_SECOND = 0, SVM_WSS_FIRST = 1 };
/* The solver of each binary problem ([svm] solver, svm-train -S): LIBSVM's
 * SMO (svm_solver.c, svm_gpu.c) or batched working sets (svm_batch.h);
 * auto (the default of specs and svm-train) picks by svm_batch_wanted. A
 * zeroed svm_params means SMO. */
enum svm_solver { SVM_SOLVER_SMO = 0, SVM_SOLVER_BATCH = 1, SVM_SOLVER_AUTO = 2 };

/* Rows stored sparse (CSR): row r's non-zeros are col[ptr[r] .. ptr[r + 1])
 * (0-based, ascending) with values val[...]. */
typedef struct svm_csr {
	long *ptr;                 /* [rows + 1] */
	int *col;                  /* [ptr[rows]] */
	float *val;                /* [ptr[rows]] */
} svm_csr;

/* Training data, labels as given (LIBSVM labels are numbers), features
 * dense (sparse 0: row-major x[i * nfeat + f]) or sparse (sparse 1: x NULL,
 * rows in csr, sq[i] = |x_i|^2 summed in feature order in double). Every
 * dot product sums the products in feature order, so both forms give the
 * same kernel values bit for bit (svm_sparse.c). */
typedef struct svm_data {
	long n;
	int nfeat;
	float *x;
	double *y;
	int sparse;
	svm_csr csr;
	double *sq;
} svm_data;

/* [data] storage / svm-train -storage: auto picks sparse when the dense
 * matrix would pass SVM_DENSE_LIMIT_MB (EVOFORGE_SVM_DENSE_MB overrides it),
 * or when it is over 64 MB and under 1 % non-zero. */
enum svm_storage { SVM_STORAGE_AUTO = 0, SVM_STORAGE_DENSE = 1, SVM_STORAGE_SPARSE = 2 };
#if !defined(SVM_DENSE_LIMIT_MB)
#define SVM_DENSE_LIMIT_MB 2048
#endif
/* The largest feature index of sparse data and models. */
#define SVM_MAX_FEATURES (1 << 28)

/* [data] scale: min-max scaling of every feature (svm-scale's rule), to
 * [-1, 1] (svm-scale's default) or [0, 1] (keeps zeros, so sparse data stays sparse). */
enum svm_scale { SVM_SCALE_NONE = 0, SVM_SCALE_MINUS1TO1 = 1, SVM_SCALE_0TO1 = 2 };
/* [data] categorical: a CSV string column as one 0/1 feature per string of
 * the training set (an unseen string: all zeros), or as its index. */
enum svm_categorical { SVM_CAT_ONEHOT = 0, SVM_CAT_INDEX = 1 };
/* [data] header: does a CSV's first line name the columns? auto: yes
 * unless one of its fields is a number. */
enum svm_header { SVM_HEADER_AUTO = 0, SVM_HEADER_NO = 1, SVM_HEADER_YES = 2 };

/* Per-feature scaling fitted on a training set: a feature v becomes
 * lower + (upper - lower) (v - min) / (max - min); a constant one 0. */
typedef struct svm_scaling {
	int nfeat;
	double lower, upper;
	double *min, *max;         /* [nfeat] over the training set */
} svm_scaling;

/* What loading the training set fixes for the test set, so both are
 * encoded, labelled and scaled alike. */
typedef struct svm_prep {
	int fitted;                /* 0: the next load fits; then loads apply */
	int ncols;                 /* CSV input columns (label excluded) */
	rt_categories *cats;       /* [ncols] training strings (n 0: a numeric column) */
	rt_categories classes;     /* training label strings (n 0: numeric labels) */
	int nfeat;                 /* features after encoding */
	int categorical;           /* enum svm_categorical, as fitted */
	char positive[128];        /* the +1 class as resolved on the training set */
	svm_scaling scaling;       /* nfeat 0: none */
} svm_prep;

/* How svm_data_load reads a file (svm_load_defaults: all zero). */
typedef struct svm_load_options {
	int nfeat;                 /* LIBSVM format: feature count (0: the largest index) */
	const char *label;         /* CSV: the label column: a name, a 1-based number,
	                              first or last (NULL: the last) */
	int header;                /* CSV: enum svm_header */
	int scale;                 /* enum svm_scale */
	int categorical;           /* enum svm_categorical */
	const char *positive;      /* class name or number made +1, all others -1
	                              (NULL: labels kept, string classes 1, 2, ...) */
	char label_at[RT_PATH_MAX + 32], positive_at[RT_PATH_MAX + 32];
	                           /* where label and positive were set ("spec:line"), for messages */
	svm_prep *prep;            /* NULL: fitted on this file alone; else fitted by
	                              the first load (training) and applied by later ones */
	int storage;               /* enum svm_storage */
} svm_load_options;

svm_load_options svm_load_defaults(void);
/* Reads LIBSVM sparse data, or CSV (name ending .csv or .csv.gz; string
 * labels become 1, 2, ... in order of first appearance in the training
 * set), encoded, labelled and scaled as o says (svm_data.c). */
rt_status svm_data_load(const char *path, const svm_load_options *o, svm_data *d, rt_error *err);
void svm_prep_free(svm_prep *p);
/* Fits s to d's range per feature (lower < upper) / scales d in place. */
rt_status svm_scaling_fit(const svm_data *d, double lower, double upper, svm_scaling *s,
			  rt_error *err);
rt_status svm_scaling_apply(const svm_scaling *s, svm_data *d, rt_error *err);
/* Reads [data]'s loading keys: features, label, header, scale,
 * categorical, positive, storage. */
rt_status svm_data_spec_options(rt_spec *spec, svm_load_options *o, rt_error *err);
/* Loads [data] train, and test when given, with o (o->prep is not used:
 * the test set is prepared as the training set); paths get the files read. */
rt_status svm_data_load_spec(rt_spec *spec, const svm_load_options *o, char *train_path,
			     svm_data *train, char *test_path, svm_data *test, rt_error *err);
/* Writes d in LIBSVM's format (floats exact, zeros left out), atomically. */
rt_status svm_data_write_libsvm(const char *path, const svm_data *d, rt_error *err);

/* A table (column-major, numeric label) as dense row-major data. */
rt_status svm_data_from_table(const rt_table *t, svm_data *d, rt_error *err);
/* Room for n points of nfeat features (x and y uninitialised). */
rt_status svm_data_alloc(svm_data *d, long n, int nfeat, rt_error *err);
void svm_data_free(svm_data *d);

/* ---- sparse rows (svm_sparse.c) ---- */

/* Should n x nfeat data with nnz non-zeros be sparse under storage? */
int svm_storage_sparse(int storage, long n, int nfeat, long nnz);
/* Room for n sparse points of nfeat features and nnz non-zeros (ptr, y
 * and the rest uninitialised). */
rt_status svm_data_alloc_sparse(svm_data *d, long n, int nfeat, long nnz, rt_error *err);
/* Fills sq from the rows (sparse data). */
void svm_data_norms(svm_data *d);
/* Converts d in place: dense to sparse (zeros left out) / sparse to dense. */
rt_status svm_data_make_sparse(svm_data *d, rt_error *err);
rt_status svm_data_make_dense(svm_data *d, rt_error *err);
/* Points rows[0..count) of d as their own data set, in d's storage. */
rt_status svm_data_rows(const svm_data *d, const long *rows, long count, svm_data *out,
			rt_error *err);
/* |x_i|^2 over the first nf features, summed in feature order. */
double svm_row_sq(const svm_data *d, long i, int nf);
/* Writes point i's first nf features into dense[] (sparse: only its
 * non-zeros, so dense must be zero elsewhere) / sets them back to 0. */
void svm_row_scatter(const svm_data *d, long i, double *dense, int nf);
void svm_row_unscatter(const svm_data *d, long i, double *dense, int nf);
/* x_i . v over the first nf features, v dense in double (a scattered
 * point), the products summed in feature order: bit for bit svm_kernel's
 * dot product of the two points. */
double svm_row_dot(const svm_data *d, long i, const double *v, int nf);

/* LIBSVM's svm types (-s), in its numbering. */
enum svm_type { SVM_C_SVC = 0, SVM_NU_SVC = 1, SVM_ONE_CLASS = 2, SVM_EPSILON_SVR = 3,
		SVM_NU_SVR = 4 };
#define SVM_TYPE_COUNT 5
/* LIBSVM's names of the types (model files, [svm] type). */
extern const char *const svm_type_names[SVM_TYPE_COUNT];
/* Regression (predictions are values, not labels)? One decision function
 * (one-class and the regressions: no classes)? */
#define SVM_IS_SVR(t) ((t) == SVM_EPSILON_SVR || (t) == SVM_NU_SVR)
#define SVM_IS_SINGLE(t) ((t) >= SVM_ONE_CLASS)

/* The parameters LIBSVM's svm-train takes. */
typedef struct svm_params {
	int type;                  /* -s: enum svm_type */
	double nu;                 /* -n: nu-SVC, one-class, nu-SVR (0, 1] */
	double p_eps;              /* -p: epsilon-SVR's epsilon >= 0 */
	svm_kernel_params kernel;  /* -t -d -g -r (gamma 0: 1 / nfeat) */
	double C;                  /* -c */
	double eps;                /* -e stopping tolerance */
	double cache_mb;           /* -m kernel row cache */
	int shrinking;             /* -h 1: LIBSVM's shrinking in the CPU solver (svm_solver.c);
	                              the GPU solvers do not shrink. svm-train's default 1,
	                              [svm] shrinking's 0 */
	int probability;           /* -b 1: fit the probability model (svm_prob.c) */
	int nweights;              /* -wi: class label -> weight */
	double *weight_label, *weight;
	int wss;                   /* enum svm_wss */
	int solver;                /* enum svm_solver */
	long batch_size;           /* batch: the working-set size q (0: svm_batch_size's) */
	long max_iter;             /* 0: LIBSVM's limit, max(10^7, 100 n) */
	int gpu;                   /* 1: solve on the GPU (svm_gpu.c) */
	int gpu_roles;             /* GPU: 0 the persistent kernel (the default), 1 the
	                              per-role kernels (8 launches per iteration) */
	int gpu_module_all;        /* 1: the GPU module holds every kernel (the bandwidth
	                              bench); 0: those gpu_roles runs (a shorter compile) */
	double gpu_cache_mb;       /* GPU kernel-row cache; 0: half the free device memory */
	int gpu_blocks_per_sm;     /* GPU persistent kernel: blocks per SM, 1 .. 4 (0: what fits,
	                              at most 4, or EVOFORGE_SVM_BLOCKS_PER_SM) */
	int limit_expected;        /* 1: reaching max_iter is expected (tuning): no warning */
	struct svm_ckpt *ckpt;     /* `run`: checkpoints and resume (svm_ckpt.h); NULL: none */
	long ckpt_model;           /* the model's number in the run's checkpoints (a
	                              cross-validation adds the fold) */
	int spread;                /* 1 (`run`): the binary problems spread over the MPI
	                              ranks (svm_shard.c); rank 0 alone gets the results */
	int history;               /* not 0 (`run` of one model): each binary problem's
	                              history (svm_binary.hist, svm_model.hist); svm_train
	                              makes it the model's pair count (svm_history_start) */
} svm_params;

/* A binary problem's convergence (history.csv): rows at every `every`
 * iterations (a power of two: the problem's points / 64 rounded up, at
 * least 4; at least SVM_HISTORY_EVERY_PAIRS for a model of several pairs,
 * which the GPU solves side by side in launches of that many); when
 * SVM_HISTORY_ROWS rows are there, the rows off twice the interval go and
 * `every` doubles) and when the solver stops at the tolerance or the
 * iteration limit: the dual objective 1/2 a'Qa - e'a (as the result's) and
 * the violation m(a) - M(a) = max over I_up of -y G + max over I_low of y G
 * that SMO stops on below eps, both from alpha and G as they are after that
 * many iterations -- on the GPU alpha and G are read back at those
 * iterations only (its launches end there), so both backends write the
 * same rows. Checkpoints carry them. */
#define SVM_HISTORY_ROWS 512
#define SVM_HISTORY_EVERY_PAIRS 4096
typedef struct svm_history_row {
	long iteration;
	double obj, gap;
} svm_history_row;

typedef struct svm_history {
	long every;                /* 0: not recorded */
	long n;
	svm_history_row *rows;     /* [SVM_HISTORY_ROWS] */
} svm_history;

/* Room for the history of a problem of n points, one of `pairs` of its
 * model (every from them). */
rt_status svm_history_start(svm_history *h, long n, int pairs, rt_error *err);
void svm_history_free(svm_history *h);
/* Is a row due after `iteration` iterations (h not NULL and recorded, a
 * multiple of every)? */
int svm_history_due(const svm_history *h, long iteration);
/* Iterations from `iteration` to the next row due (LONG_MAX: h NULL or
 * not recorded). */
long svm_history_to_next(const svm_history *h, long iteration);
/* Appends the row of alpha and G after `iteration` iterations (none when a
 * row of that iteration or a later one is there). */
void svm_history_add(svm_history *h, long iteration, const double *alpha, const double *G,
		     const signed char *y, long n, double Cp, double Cn);

/* What makes a problem other than C-SVC's (LIBSVM's general form, Chang &
 * Lin 2011, section 4: min 1/2 a'Qa + lin'a, 0 <= a_i <= C_i, y'a = const):
 * lin the linear term (NULL: -1 everywhere, C-SVC), alpha0 the feasible
 * start (NULL: 0), nu 1 for the nu-form (e'a fixed too: the working pair
 * is chosen within one sign, rho and r from the two signs' free points). */
typedef struct svm_extra {
	const double *lin, *alpha0;  /* [n] each, or NULL */
	int nu;
} svm_extra;

/* The result of one binary problem. */
typedef struct svm_binary {
	double *alpha;             /* [n] */
	double rho, obj;
	double r;                  /* the nu-form's r (0 otherwise) */
	long iterations, nsv, nbsv;
	svm_history hist;          /* p->history: its rows (else every 0, no rows) */
} svm_binary;

/* Solves min 1/2 a'Qa - e'a, 0 <= a_i <= C_i, y'a = 0 for the n points
 * x[idx[0..n)] with labels y[i] = +1/-1 and bounds Cp (y = +1), Cn (y = -1),
 * on the CPU, as LIBSVM's Solver does (shrinking as p->shrinking says). pair: the
 * problem's number within its model (p->ckpt_model), for checkpoints. */
rt_status svm_solve_binary(const svm_data *d, const long *idx, const signed char *y, long n,
			   const svm_params *p, double Cp, double Cn, long pair, svm_binary *out,
			   rt_error *err);
/* The same for the general problem ex says (NULL: C-SVC's). */
rt_status svm_solve_general(const svm_data *d, const long *idx, const signed char *y, long n,
			    const svm_params *p, double Cp, double Cn, const svm_extra *ex,
			    long pair, svm_binary *out, rt_error *err);
/* The start of the general problem: alpha = ex->alpha0 (0 if NULL) and
 * G = lin + Q alpha, Q's rows as the solvers compute them (floats). */
rt_status svm_initial_gradient(const svm_data *d, const long *idx, const signed char *y, long n,
			       const svm_kernel_params *k, const svm_extra *ex, double *alpha,
			       double *G, rt_error *err);
void svm_binary_free(svm_binary *b);
/* The divergence checks both backends run, with the same messages (exit
 * status 2): every K(x_i, x_i) of the points idx[0..n) finite as a float
 * (the CPU solver checks each kernel row it computes as well; for the
 * linear, RBF and coef0 >= 0 polynomial kernels |K(u, v)| <= max(K(u, u),
 * K(v, v)) up to rounding, so a finite diagonal rules out their overflows
 * before the GPU starts; what remains shows in the second), and, after a
 * solve, every alpha, rho and the objective finite (else out is freed). */
rt_status svm_check_diagonal(const svm_data *d, const long *idx, long n,
			     const svm_kernel_params *k, rt_error *err);
rt_status svm_check_solved(svm_binary *out, long n, rt_error *err);
/* One info line when p asks for shrinking on the GPU (which does not shrink). */
void svm_note_shrinking(const svm_params *p);
/* The same problem on device 0 (templates/svm/svm.cu). */
rt_status svm_gpu_solve_binary(const svm_data *d, const long *idx, const signed char *y, long n,
			       const svm_params *p, double Cp, double Cn, long pair, svm_binary *out,
			       rt_error *err);
/* Where a data set's points come from: its point k is point rows[k] of
 * root (a cross-validation fold's training part), so that the GPU solver
 * can share what it computes on root's points between problems (root
 * NULL: the data set is its own root). */
typedef struct svm_subset {
	const svm_data *root;
	const long *rows;
} svm_subset;

/* One binary problem for svm_gpu_solve_many: the points x[idx[0..n)] of d
 * with signs y, bounds Cp and Cn, kernel parameters kernel (the type must
 * be p->kernel's); the result goes to *out. */
typedef struct svm_gpu_problem {
	const svm_data *d;
	svm_kernel_params kernel;
	const long *idx;
	const signed char *y;
	long n;
	double Cp, Cn;
	svm_binary *out;
	svm_subset from;           /* root NULL: d is its own root */
	long model, pair;          /* its name in checkpoints (p->ckpt of svm_gpu_solve_many) */
	const svm_extra *ex;       /* NULL: C-SVC's problem */
} svm_gpu_problem;
/* Solves count problems (of one feature count) at once on device 0 (the
 * persistent kernel runs them side by side, each on its own blocks); p
 * gives the kernel type, selection rule, eps, max_iter and the cache.
 * Problems on the points of one root share its Gram matrix (every dot
 * product of two root points, computed once on the device) when it fits
 * in a third of the free device memory; EVOFORGE_SVM_GRAM=0 turns that off. */
rt_status svm_gpu_solve_many(const svm_params *p, svm_gpu_problem *pr, int count, rt_error *err);
/* Achieved bandwidth of the GPU solver's kernels on d (roles kernels, one
 * launch each, timed over 100 launches) and the copy bound they are
 * measured against, in GB/s (reads + writes). */
typedef struct svm_gpu_bw {
	double copy_gbs;
	double row_ms, row_gbs;        /* one kernel row */
	double pick_i_ms, pick_i_gbs;  /* blocks' part of the i pick (argmax; roles: svm_pick_i) */
	double pick_i_old_ms, pick_i_old_gbs;  /* the same by svm_pick_blocks (before 2026-11-23) */
	double phase_a_ms, phase_a_gbs;    /* the persistent solver's i pick (phase A, no rows) */
	double phase_ag_ms, phase_ag_gbs;  /* phase A with the G update (both rows) */
	double pick_j_ms, pick_j_gbs;  /* the j pick (WSS2 over the row) */
	double pick_j1_ms;             /* the first-order j pick (max y G over I_low) */
	double pick_both_ms, pick_both_gbs;  /* first-order i and j fused in one pass */
} svm_gpu_bw;
rt_status svm_gpu_bandwidth(const svm_data *d, const svm_params *p, svm_gpu_bw *bw,
			    rt_error *err);
/* A solver module's source begun: named STEM-kK-fF-wW.cu (STEM-kK-sparse-wW.cu
 * for sparse rows, nfeat < 0) and the kernel, feature, rule and storage
 * #defines svm.cu reads. */
void svm_gpu_source_begin(const svm_params *p, int nfeat, const char *stem, const char *what,
			  gen_source *src);
/* The generated CUDA source of the GPU solver and its NVRTC options. */
rt_status svm_gpu_source(const svm_params *p, int nfeat, gen_source *src, rt_error *err);
const char *const *svm_gpu_nvrtc_options(int *n);
/* Compiles src with those options for device 0 (through the kernel cache),
 * opens a context there and loads the module into it; *info gets the
 * device's properties. The svm modules' one way onto the device. */
rt_status svm_gpu_load(const gen_source *src, gpu_info *info, gpu_context **ctx,
		       gpu_module **mod, rt_error *err);
/* The most features the GPU solver takes (dense rows). */
#define SVM_GPU_MAX_FEATURES 8192
/* Fills rho (LIBSVM's calculate_rho), the objective and the SV counts from
 * the final alpha and G, and takes alpha (out->alpha = alpha). */
void svm_binary_finish(svm_binary *out, double *alpha, const double *G, const signed char *y,
		       long n, double Cp, double Cn);
/* The same for the general problem ex says (NULL: C-SVC's): the objective
 * 1/2 a'(G + lin), the nu-form's rho and r from each sign's points. */
void svm_binary_finish_ex(svm_binary *out, double *alpha, const double *G, const signed char *y,
			  long n, double Cp, double Cn, const svm_extra *ex);

/* One binary problem of a model, as svm-train reports it. */
typedef struct svm_pair_stats {
	long iterations, nsv, nbsv;
	double nu;                 /* sum of alpha / (C n), LIBSVM's "nu = " line */
	double extra;              /* nu-SVC: LIBSVM's "C = " (1/r); nu-SVR: "epsilon = " (-r) */
} svm_pair_stats;

/* A trained model in LIBSVM's structure (nr_class classes, one-vs-one).
 * One-class and the regressions (SVM_IS_SINGLE) have one decision
 * function: nr_class 2, one rho, one row of coefficients, and here
 * label {1, -1} and nsv {total_sv, 0} (so that prediction takes the
 * binary path: one-class's +1 when the value is > 0), which the file
 * leaves out as LIBSVM does. */
typedef struct svm_model {
	int type;                  /* enum svm_type */
	svm_kernel_params kernel;
	int nr_class;
	long total_sv;
	int nfeat;                 /* width of the support vectors */
	double *rho;               /* [k(k-1)/2] */
	int *label;                /* [nr_class] (LIBSVM labels are ints) */
	long *nsv;                 /* [nr_class] */
	double *sv_coef;           /* [(nr_class - 1) * total_sv], row-major by column j */
	float *sv;                 /* [total_sv * nfeat] (NULL when sparse) */
	int sparse;                /* 1: the support vectors are svs (CSR), sv is NULL */
	svm_csr svs;               /* [total_sv] rows when sparse */
	double *obj;               /* [k(k-1)/2] dual objectives (not in the file) */
	long iterations;           /* over all binary problems (not in the file) */
	svm_pair_stats *pairs;     /* [k(k-1)/2] what svm-train prints per pair (not in the
	                              file; NULL for a model read back) */
	svm_history *hist;         /* [k(k-1)/2] each pair's history (trained with
	                              p->history; else NULL) */
	double *probA, *probB;     /* NULL: no probability model. C-SVC, nu-SVC: [k(k-1)/2]
	                              each, Platt's A and B per pair; the regressions: probA[1],
	                              the Laplace scale sigma, probB NULL (LIBSVM's fields) */
} svm_model;

/* ---- several MPI ranks (svm_shard.c): with p->spread, pair g of a training
 * goes to rank g mod size, a search's models by svm_shard_plan ---- */
/* p->spread and more than one rank. */
int svm_shard_active(const svm_params *p);
/* Does this rank solve problem g? (always, when not active) */
int svm_shard_owns(const svm_params *p, long g);
/* Rank 0 gets every pair g < total (n[g] points) into *bin[g] and *stats[g]
 * from the rank that solved it (with history: its history too); every rank
 * takes part. */
rt_status svm_shard_gather_pairs(svm_binary *const *bin, svm_pair_stats *const *stats,
				 const long *n, long total, int history, rt_error *err);
/* v[0..count) summed over the ranks, the sums on every rank. */
rt_status svm_shard_sum_counts(long *v, long count, rt_error *err);
/* A C-SVC training's estimated cost from p's C, kernel type and gamma,
 * relative to the cheapest training of the same data (1 + 2^e, e in
 * log2 iterations, fitted on measured grids: the comment in svm_shard.c);
 * nondecreasing in C. */
double svm_cost_estimate(const svm_params *p);
/* Deals count jobs of cost[j] (a cost that is not a positive number counts
 * 0) to size ranks by LPT: costliest first (ties: lower j), each to the
 * least loaded rank (ties: lower rank); owner[j] its rank, load[size] (may
 * be NULL) the ranks' summed costs. Deterministic: every rank computes the
 * same plan from the same costs. Makespan at most 4/3 - 1/(3 size) of the
 * best plan's (Graham 1969). */
rt_status svm_shard_plan(const double *cost, long count, int size, int *owner, double *load,
			 rt_error *err);
/* jobs[0..count) (indices into cost) put in the order svm_shard_plan deals
 * them: costliest first, ties by the lower index. */
rt_status svm_cost_sort(const double *cost, long *jobs, long count, rt_error *err);

/* LIBSVM's parameter checks of p's type, nu, p_eps and C, and of solver and
 * batch_size (who: the command or spec, for messages). */
rt_status svm_params_check(const svm_params *p, const char *who, rt_error *err);

/* Trains count models m[k] on d[k] with p[k] (one feature count, one
 * kernel type); on the GPU every binary problem of every model at once.
 * from (may be NULL): where each d[k]'s points come from. */
rt_status svm_train_many(const svm_data *const *d, const svm_subset *from, const svm_params *p,
			 int count, svm_model *m, rt_error *err);
/* Trains a C-SVC model (one-vs-one as LIBSVM for more than two classes). */
rt_status svm_train(const svm_data *d, const svm_params *p, svm_model *m, rt_error *err);
void svm_model_free(svm_model *m);

/* ---- prediction (svm_predict.c, templates/svm/svm_predict.cu) ---- */

/* Predicted label of one dense point (votes, ties to the lower class index;
 * NAN out of memory or for more than 256 classes). */
double svm_predict(const svm_model *m, const float *x, int nfeat);
/* The same for point i of d (dense or sparse). */
double svm_predict_row(const svm_model *m, const svm_data *d, long i);

/* Batched:
 * The same labels as svm_predict; decision values dec[i * k(k-1)/2 + p]
 * (LIBSVM's order of pairs; dec may be NULL): the CPU's bit for bit; the
 * GPU's the same dot products and sums, kernel values apart only where the
 * device's exp/tanh differ (an ulp or two), so within 1e-9 max(1, |value|)
 * (what svm_predict_driver checks). */

/* Where svm_predict_all predicts: the CPU, the GPU (its errors returned), or
 * the GPU with the CPU after one warning when the GPU fails. */
enum svm_predict_where { SVM_PREDICT_CPU = 0, SVM_PREDICT_GPU = 1, SVM_PREDICT_GPU_OR_CPU = 2 };
/* Every point of d on the thread pool, |sv|^2 computed once per model. */
rt_status svm_predict_batch_cpu(const svm_model *m, const svm_data *d, double *pred, double *dec,
				rt_error *err);
/* Every point of d on device 0, in batches sized to the free memory (at
 * most 2 to 256 classes, 4.19M support vectors). */
rt_status svm_gpu_predict(const svm_model *m, const svm_data *d, double *pred, double *dec,
			  rt_error *err);
/* The generated CUDA source of the prediction kernels comparing nfeat features. */
rt_status svm_gpu_predict_source(const svm_model *m, int nfeat, gen_source *src, rt_error *err);
/* The features prediction compares for m on d: the data's and the model's fewer. */
int svm_predict_features(const svm_model *m, const svm_data *d);

/* pred[n] and (dec not NULL) the decision values dec[n * k(k-1)/2] of
 * every point of d, where enum svm_predict_where says. */
rt_status svm_predict_values(const svm_model *m, const svm_data *d, int where, double *pred,
			     double *dec, rt_error *err);

/* ---- probability estimates (svm_prob.c; LIBSVM's -b 1) ---- */

/* glibc's rand() rebuilt, with its own state (LIBSVM's fold shuffles). */
typedef struct svm_rand {
	uint32_t ring[31];         /* the last 31 values r_{k-31} .. r_{k-1} at r % 31 */
	long k;                    /* the next value's index */
} svm_rand;
/* Seeds as srand(seed) (0 as 1) / the next value as rand() gives it. */
void svm_rand_seed(svm_rand *g, uint32_t seed);
int svm_rand_next(svm_rand *g);
/* Platt's A, B fitted to decision values f[n] with signs y[n] (Lin, Lin &
 * Weng 2007's Newton method) / the sigmoid 1 / (1 + exp(A f + B)). */
rt_status svm_sigmoid_fit(const double *f, const signed char *y, long n, double *A, double *B,
			  rt_error *err);
double svm_sigmoid(double f, double A, double B);
/* Fills m->probA (and probB) for model m of d being trained with p (cls:
 * each point's class, m->label set; unused for regressions): the fold
 * models trained through svm_train_many (CPU or GPU as p says). One-class:
 * RT_ERR_UNSUPPORTED, as LIBSVM 3.24. */
rt_status svm_prob_fit(const svm_data *d, const int *cls, const svm_params *p, svm_model *m,
		       rt_error *err);
/* Does m carry a probability model (LIBSVM's svm_check_probability_model)? */
int svm_has_prob(const svm_model *m);
/* The class probabilities prob[k] of one point from its decision values
 * dec[k(k-1)/2] (work: 2 k^2 + k doubles); returns the class index of the
 * largest (the label LIBSVM's -b 1 predicts). */
int svm_prob_of(const svm_model *m, const double *dec, double *prob, double *work);
/* Every point of d: pred[n] labels from the probabilities and prob[n * k]
 * (classification models with probA/probB; decision values where says). */
rt_status svm_predict_prob(const svm_model *m, const svm_data *d, int where, double *pred,
			   double *prob, rt_error *err);
/* The weight of class label in p (-wi), 1 if not given. */
double svm_class_weight(const svm_params *p, int label);

/* `evoforge build` (rt_kind.kernels, svm_build.c): every module a GPU run
 * of the spec's job compiles. */
rt_status svm_kernels(rt_spec *spec, const rt_options *opt, const gpu_info *info,
		      rt_kernel_emit emit, void *ctx, rt_error *err);
/* pred[n] for every point of d, where enum svm_predict_where says, and the
 * fraction right (a regression model: the mean squared error; acc may be NULL). */
rt_status svm_predict_all(const svm_model *m, const svm_data *d, int where, double *pred,
			  double *acc, rt_error *err);

/* LIBSVM's model-file format ("svm_type c_svc", "kernel_type rbf", ...,
 * "SV", then one line per support vector: the nr_class - 1 coefficients
 * and index:value pairs, 1-based, zeros left out). Written atomically;
 * read back with errors naming file:line and what was expected. */
/* `evoforge bench svm` and its help (svm_bench.c). */
rt_status svm_bench(int argc, char **argv, const rt_options *opt, rt_error *err);
extern const char svm_bench_help[];

rt_status svm_model_write(const char *path, const svm_model *m, rt_error *err);
rt_status svm_model_read(const char *path, svm_model *m, rt_error *err);

/* ---- cross-validation and the (C, gamma) grid (svm_cv.c, svm_grid.c) ---- */

/* k-fold cross-validation as LIBSVM's svm_cross_validation: folds stratified
 * by class, each class shuffled with Philox stream (seed, SVM_CV_STREAM);
 * pred[n] (may be NULL) each point's label from the model trained without
 * its fold; *accuracy the fraction right. folds > n: leave-one-out. */
rt_status svm_cross_validation(const svm_data *d, const svm_params *p, int folds, uint64_t seed,
			       double *pred, double *accuracy, rt_error *err);
/* The CV accuracy of ncells parameter sets p[ncells] over the same folds
 * (acc[ncells]); on the CPU every (set, fold) trains in parallel on the
 * thread pool, on the GPU one after another. */
rt_status svm_cv_many(const svm_data *d, const svm_params *p, int ncells, int folds,
		      uint64_t seed, double *acc, rt_error *err);

/* A grid axis, grid.py's "begin,end,step" (log2 values; step may be < 0). */
typedef struct svm_range {
	double begin, end, step;
} svm_range;

/* Parses "begin,end,step" (what: the flag or key, for messages). */
rt_status svm_range_parse(const char *what, const char *text, svm_range *r, rt_error *err);

/* A finished grid: cells in order (log2c outer, log2g inner). */
typedef struct svm_grid {
	svm_range c, g;
	int folds, ncells, best;
	double *log2c, *log2g, *acc;  /* [ncells]; acc in [0, 1] */
} svm_grid;

/* Runs the grid's CV over every (C, gamma) of p's other parameters, printing
 * grid.py's line per cell ("[local] log2c log2g rate (best c=..., g=...,
 * rate=...)") unless quiet; fills g (free with svm_grid_free). */
rt_status svm_grid_search(const svm_data *d, const svm_params *p, const svm_range *c,
			  const svm_range *gamma, int folds, uint64_t seed, svm_grid *g,
			  rt_error *err);
void svm_grid_free(svm_grid *g);
/* grid.csv: log2c,log2g,C,gamma,accuracy, atomically. */
rt_status svm_grid_write_csv(const char *path, const svm_grid *g, rt_error *err);
/* The contour plot (grid.py's) through gnuplot; without gnuplot on PATH says
 * "gnuplot not found: no plot" and returns RT_OK; gnuplot failing is an error. */
rt_status svm_grid_plot(const char *png, const svm_grid *g, rt_error *err);

/* `evoforge run`'s job (svm.c): [svm], [grid] and [data] of a spec. */
typedef struct svm_job {
	char name[128], spec_path[RT_PATH_MAX], train_path[RT_PATH_MAX], test_path[RT_PATH_MAX];
	svm_params params;
	svm_data train, test;
	double weight_label[64], weight[64];
	uint64_t seed;
	int folds;                 /* [svm] folds: cross-validation instead of training (0: no) */
	int grid, grid_folds;      /* a [grid] section: the (C, gamma) grid search */
	svm_range log2c, log2g;
} svm_job;

/* The compiles a GPU run of job makes (solver, prediction of train and test
 * sets): what svm_run prepares before training (runtime/kprep.h). */
rt_status svm_job_kernels(const svm_job *job, rt_kernel_emit emit, void *ctx, rt_error *err);

/* Reads the spec into job and loads its data (errors name file:line). */
rt_status svm_job_from_spec(rt_spec *spec, const rt_options *opt, svm_job *job, rt_error *err);
void svm_job_free(svm_job *job);

/* svm-predict's work (svm_cli.c): m (widened to the data's features) on
 * the points of data (LIBSVM or CSV) where enum svm_predict_where says, their
 * labels to out, the accuracy printed. */
rt_status svm_predict_file(svm_model *m, const char *data, int where, const char *out,
			   rt_error *err);
/* The commands svm-train, svm-predict and svm-grid (svm_cli.c). */
extern const rt_kind_command svm_commands[];

#endif
