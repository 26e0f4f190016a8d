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

/* Dense training data: row-major features x[i * nfeat + f], labels as
 * given (LIBSVM labels are numbers). */
typedef struct svm_data {
	long n;
	int nfeat;
	float *x;
	double *y;
} svm_data;

/* How svm_data_load reads a file (svm_load_defaults: all zero). */
typedef struct svm_load_options {
	int nfeat;                 /* LIBSVM format: feature count (0: the largest index) */
	const char *label;         /* CSV: the label column by name (NULL: the last) */
} svm_load_options;

svm_load_options svm_load_defaults(void);
/* Reads LIBSVM sparse data, or CSV (name ending .csv or .csv.gz; string
 * labels become 1, 2, ... in order of first appearance) (svm_data.c). */
rt_status svm_data_load(const char *path, const svm_load_options *o, svm_data *d, rt_error *err);

/* A table (column-major, numeric label) as dense row-major data. */
rt_status svm_data_from_table(const rt_table *t, svm_data *d, rt_error *err);
void svm_data_free(svm_data *d);

/* The parameters LIBSVM's svm-train takes (-s 0 only). */
typedef struct svm_params {
	svm_kernel_params kernel;  /* -t -d -g -r (gamma 0: 1 / nfeat) */
	double C;                  /* -c */
	double eps;                /* -e stopping tolerance */
	double cache_mb;           /* -m kernel row cache */
	int shrinking;             /* -h (accepted; the solver does not shrink) */
	int nweights;              /* -wi: class label -> weight */
	double *weight_label, *weight;
	int wss;                   /* enum svm_wss */
	long max_iter;             /* 0: LIBSVM's limit, max(10^7, 100 n) */
	int gpu;                   /* 1: solve on the GPU (svm_gpu.c) */
	int gpu_roles;             /* GPU: 1 the per-role kernels (8 launches per iteration,
	                              the default: measured faster), 0 the fused ones (4) */
} svm_params;

/* The result of one binary problem. */
typedef struct svm_binary {
	double *alpha;             /* [n] */
	double rho, obj;
	long iterations, nsv, nbsv;
} svm_binary;

/* Solves min 1/2 a'Qa - e'a, 0 <= a_i <= C_i, y'a = 0 for the n points
 * x[idx[0..n)] with labels y[i] = +1/-1 and bounds Cp (y = +1), Cn (y = -1),
 * on the CPU, as LIBSVM's Solver does without shrinking. */
rt_status svm_solve_binary(const svm_data *d, const long *idx, const signed char *y, long n,
			   const svm_params *p, double Cp, double Cn, svm_binary *out,
			   rt_error *err);
void svm_binary_free(svm_binary *b);
/* The same problem on device 0 (templates/svm/svm.cu). */
rt_status svm_gpu_solve_binary(const svm_data *d, const long *idx, const signed char *y, long n,
			       const svm_params *p, double Cp, double Cn, svm_binary *out,
			       rt_error *err);
/* The generated CUDA source of the GPU solver and its NVRTC options. */
rt_status svm_gpu_source(const svm_params *p, int nfeat, gen_source *src, rt_error *err);
const char *const *svm_gpu_nvrtc_options(int *n);
/* Fills rho (LIBSVM's calculate_rho), the objective and the SV counts from
 * the final alpha and G, and takes alpha (out->alpha = alpha). */
void svm_binary_finish(svm_binary *out, double *alpha, const double *G, const signed char *y,
		       long n, double Cp, double Cn);

/* A trained model in LIBSVM's structure (nr_class classes, one-vs-one). */
typedef struct svm_model {
	svm_kernel_params kernel;
	int nr_class;
	long total_sv;
	int nfeat;                 /* dense width of the support vectors */
	double *rho;               /* [k(k-1)/2] */
	int *label;                /* [nr_class] (LIBSVM labels are ints) */
	long *nsv;                 /* [nr_class] */
	double *sv_coef;           /* [(nr_class - 1) * total_sv], row-major by column j */
	float *sv;                 /* [total_sv * nfeat] */
	double *obj;               /* [k(k-1)/2] dual objectives (not in the file) */
	long iterations;           /* over all binary problems (not in the file) */
} svm_model;

/* Trains a C-SVC model (one-vs-one as LIBSVM for more than two classes). */
rt_status svm_train(const svm_data *d, const svm_params *p, svm_model *m, rt_error *err);
/* Predicted label of one dense point (votes, ties to the lower class index). */
double svm_predict(const svm_model *m, const float *x, int nfeat);
void svm_model_free(svm_model *m);
/* Predictions for every point of d (pred[n], on the thread pool) and the
 * fraction right. */
rt_status svm_accuracy(const svm_model *m, const svm_data *d, double *pred, double *acc,
		       rt_error *err);

/* LIBSVM's model-file format ("svm_type c_svc", "kernel_type rbf", ...,
 * "SV", then one line per support vector: the nr_class - 1 coefficients
 * and index:value pairs, 1-based, zeros left out). Written atomically;
 * read back with errors naming file:line and what was expected. */
/* `evoforge bench svm` and its help (svm_bench.c). */
rt_status svm_bench(int argc, char **argv, const rt_options *opt, rt_error *err);
extern const char svm_bench_help[];

rt_status svm_model_write(const char *path, const svm_model *m, rt_error *err);
rt_status svm_model_read(const char *path, svm_model *m, rt_error *err);

#endif
