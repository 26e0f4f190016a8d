/* svm.c: kind `svm`, C-SVC trained by SMO as LIBSVM trains it, on the CPU
 * (svm_solver.c) or the GPU (svm_gpu.c): `evoforge run` reads [svm] and
 * [data], trains, writes the model in LIBSVM's format (model.txt, which
 * Debian's svm-predict reads), predictions.csv for the test set,
 * result.json and history.csv (each one-vs-one pair's dual objective and
 * violation every so many SMO iterations, svm_history).
 *
 *   [svm]
 *   type = c_svc        ; c_svc, nu_svc, one_class, epsilon_svr, nu_svr (svm-train -s)
 *   kernel = rbf        ; linear, polynomial, rbf, sigmoid (svm-train -t)
 *   C = 1               ; -c (c_svc, epsilon_svr, nu_svr)
 *   nu = 0.5            ; -n (nu_svc, one_class, nu_svr): in (0, 1]
 *   epsilon = 0.1       ; -p (epsilon_svr): the loss's epsilon, >= 0
 *   gamma = 0           ; -g; 0: 1 / features, as LIBSVM
 *   degree = 3          ; -d
 *   coef0 = 0           ; -r
 *   eps = 0.001         ; -e
 *   cache_mb = 100      ; -m
 *   shrinking = off     ; on (-h 1): LIBSVM's shrinking in the CPU solver (the same
 *                       ;   objective within eps, another path). Off by default, so
 *                       ;   that CPU and GPU runs stay bit for bit the same; the GPU
 *                       ;   never shrinks (says so)
 *   probability = off   ; on (-b 1): a probability model too (LIBSVM's: Platt scaling
 *                       ;   from a 5-fold CV per pair, pairwise coupling; the regressions'
 *                       ;   Laplace sigma); not for one_class. predictions.csv gets each
 *                       ;   class's probability and the label of the largest
 *   weights = 1:2 -1:1  ; -wi: C of class label i times its weight
 *   wss = second        ; second (LIBSVM's WSS2) or first (maximal violating pair)
 *   solver = auto       ; smo (LIBSVM's pairs), batch (working sets of batch_size points,
 *                       ;   svm_batch.h; not for nu_svc, nu_svr) or auto (batch on the GPU
 *                       ;   from SVM_BATCH_AUTO_MIN points, smo otherwise)
 *   batch_size = 0      ; batch's working-set size: even, 4 to 1024 (0: the largest power
 *                       ;   of two <= min(1024, n) whose rows fit cache_mb)
 *   max_iter = 0        ; 0: LIBSVM's limit, max(10^7, 100 n)
 *   gpu_kernels = persistent ; GPU: persistent (thousands of iterations per
 *                       ;   launch, kernel rows cached on the device) or roles
 *                       ;   (the seed's roles, one kernel each: 8 launches per iteration)
 *   gpu_cache_mb = 0    ; GPU kernel-row cache; 0: half the free device memory
 *   gpu_blocks_per_sm = 0 ; GPU persistent kernel's blocks per SM, 1 to 4 (0: what fits,
 *                       ;   at most 4, or EVOFORGE_SVM_BLOCKS_PER_SM). Speed only
 *   folds = 0           ; k >= 2 (c_svc, nu_svc): k-fold cross-validation instead (svm-train -v k):
 *                       ;   result.json gets cv_accuracy; no model is written
 *   [grid]              ; the (C, gamma) grid search of LIBSVM's grid.py instead:
 *   log2c = -5,15,2     ;   C = 2^log2c for log2c from begin to end by step
 *   log2g = 3,-15,-2    ;   gamma = 2^log2g likewise
 *   folds = 5           ;   writes grid.csv, grid.png (gnuplot) and result.json
 *   [data]
 *   train = svm/a9a     ; LIBSVM format, or CSV (.csv, .csv.gz, or a first line with commas)
 *   test = a9a.t        ; optional: predicted and scored, prepared as the training set
 *   label = Class       ; csv only: the label column: a name, a number from 1, first
 *                       ;   or last (default: last)
 *   header = auto       ; csv only: true, false, or auto (a header unless its first
 *                       ;   line holds a number)
 *   categorical = onehot ; csv string columns: onehot (one 0/1 feature per training
 *                       ;   string; unseen: all 0) or index
 *   scale = none        ; none, minus1to1 or 0to1: svm-scale's min-max scaling, fitted
 *                       ;   on the training set
 *   positive = normal.  ; this class (name or number) +1, every other -1 (default:
 *                       ;   labels kept, multi-class one-vs-one)
 *   features = 0        ; LIBSVM format: feature count (0: the largest index)
 *   storage = auto      ; dense, sparse (CSR rows) or auto: sparse when dense rows
 *                       ;   would pass 2 GiB, or 64 MB at under 1 % non-zero */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kprep.h"
#include "backend.h"
#include "comm.h"
#include "data.h"
#include "log.h"
#include "out.h"
#include "svm.h"
#include "svm_batch.h"
#include "svm_ckpt.h"
#include "svm_impl.h"
#include "svm_tune.h"
#include "signals.h"
#include "timeline.h"

static const char *const kernel_names[] = { "linear", "polynomial", "rbf", "sigmoid", NULL };
static const char *const type_names[] = { "c_svc", "nu_svc", "one_class", "epsilon_svr",
					   "nu_svr", NULL };   /* = svm_type_names */
static const char *const wss_names[] = { "second", "first", NULL };
static const char *const solver_names[] = { "smo", "batch", "auto", NULL };  /* enum svm_solver */
static const char *const gpu_kernel_names[] = { "persistent", "roles", NULL };  /* = gpu_roles */

/* [svm] solver and batch_size (svm_batch.h): batch_size 0 or even in
 * [4, SVM_BATCH_MAX_Q]; solver = batch not with the nu forms. */
static rt_status read_solver(rt_spec *spec, svm_params *p, rt_error *err)
{
	char where[RT_PATH_MAX + 32];
	rt_status st = rt_spec_enum(spec, "svm", "solver", solver_names, SVM_SOLVER_AUTO, &p->solver,
				    err);
	if (st == RT_OK)
		st = rt_spec_int(spec, "svm", "batch_size", 0, 0, SVM_BATCH_MAX_Q, &p->batch_size, err);
	if (st != RT_OK)
		return st;
	if (p->batch_size % 2 || (p->batch_size > 0 && p->batch_size < 4))
		return rt_fail(err, RT_ERR_INPUT, "%s: svm.batch_size: expected 0 (auto) or an even "
			       "number from 4 to %d, got %ld",
			       rt_spec_key_where(spec, "svm", "batch_size", where, sizeof where),
			       SVM_BATCH_MAX_Q, p->batch_size);
	if (p->solver == SVM_SOLVER_BATCH && (p->type == SVM_NU_SVC || p->type == SVM_NU_SVR))
		return rt_fail(err, RT_ERR_INPUT, "%s: svm.solver = batch does not take the nu forms "
			       "(-s 1, -s 4); use solver = smo",
			       rt_spec_key_where(spec, "svm", "solver", where, sizeof where));
	return RT_OK;
}

/* [data]: the training set and the optional test set, the test set encoded,
 * labelled and scaled as the training set (svm_data.c). */
static rt_status load_data(rt_spec *spec, svm_job *job, rt_error *err)
{
	svm_load_options o;
	rt_status st = svm_data_spec_options(spec, &o, err);
	if (st != RT_OK)
		return st;
	return svm_data_load_spec(spec, &o, job->train_path, &job->train, job->test_path,
				  &job->test, err);
}

/* "label:weight label:weight ..." (svm-train's -wi, as a list). */
static rt_status read_weights(rt_spec *spec, svm_job *job, rt_error *err)
{
	const char *text;
	char loc[RT_PATH_MAX + 32];
	rt_spec_entry *e = rt_spec_find(spec, "svm", "weights");
	rt_status st = rt_spec_string(spec, "svm", "weights", "", &text, err);
	if (st != RT_OK)
		return st;
	job->params.weight_label = job->weight_label;
	job->params.weight = job->weight;
	while (*text) {
		char *end;
		double lab, w;
		while (*text == ' ' || *text == ',')
			text++;
		if (!*text)
			break;
		lab = strtod(text, &end);
		if (end == text || *end != ':' || job->params.nweights == 64)
			goto bad;
		text = end + 1;
		w = strtod(text, &end);
		if (end == text || !(w >= 0) || !isfinite(w))
			goto bad;
		text = end;
		job->weight_label[job->params.nweights] = lab;
		job->weight[job->params.nweights++] = w;
	}
	return RT_OK;
bad:
	return rt_fail(err, RT_ERR_INPUT, "%s: svm.weights: expected 'label:weight' pairs with "
		       "weights >= 0 (at most 64), got '%s'", rt_spec_where(spec, e, loc, sizeof loc),
		       e->value);
}

/* One "begin,end,step" key of [grid] (def when absent). */
static rt_status read_range(rt_spec *spec, const char *key, const char *def, svm_range *r,
			    rt_error *err)
{
	const char *text;
	char what[RT_PATH_MAX + 64];
	int n;
	rt_status st = rt_spec_string(spec, "grid", key, def, &text, err);
	if (st != RT_OK)
		return st;
	n = (int)strlen(rt_spec_key_where(spec, "grid", key, what, RT_PATH_MAX));
	snprintf(what + n, sizeof what - (size_t)n, ": grid.%s", key);
	return svm_range_parse(what, text, r, err);
}

/* [svm] folds and the [grid] section (log2c, log2g, folds; grid.py's defaults). */
static rt_status read_search(rt_spec *spec, svm_job *job, rt_error *err)
{
	long v;
	char where[RT_PATH_MAX];
	rt_status st = rt_spec_int(spec, "svm", "folds", 0, 0, 1L << 30, &v, err);
	if (st != RT_OK)
		return st;
	if (v == 1)
		return rt_fail(err, RT_ERR_INPUT, "%s: svm.folds: expected 0 (no cross-validation) or "
			       "2 or more, got 1", rt_spec_key_where(spec, "svm", "folds", where,
								      sizeof where));
	job->folds = (int)v;
	job->grid = rt_spec_has_section(spec, "grid");
	if (!job->grid)
		return RT_OK;
	if ((st = read_range(spec, "log2c", "-5,15,2", &job->log2c, err)) != RT_OK ||
	    (st = read_range(spec, "log2g", "3,-15,-2", &job->log2g, err)) != RT_OK ||
	    (st = rt_spec_int(spec, "grid", "folds", 5, 2, 1L << 30, &v, err)) != RT_OK)
		return st;
	job->grid_folds = (int)v;
	return RT_OK;
}

rt_status svm_job_from_spec(rt_spec *spec, const rt_options *opt, svm_job *job, rt_error *err)
{
	svm_params *p = &job->params;
	const char *name;
	long v;
	uint64_t seed;
	rt_status st;
	memset(job, 0, sizeof *job);
	snprintf(job->spec_path, sizeof job->spec_path, "%s", spec->path);
#define TRY(x) do { if ((st = (x)) != RT_OK) return st; } while (0)
	TRY(rt_spec_string(spec, "problem", "kind", "svm", &name, err));
	TRY(rt_spec_string(spec, "problem", "name", "svm", &name, err));
	snprintf(job->name, sizeof job->name, "%s", name);
	TRY(rt_job_seed(spec, opt, &seed, err));
	job->seed = seed;
	TRY(rt_spec_enum(spec, "svm", "type", type_names, SVM_C_SVC, &p->type, err));
	TRY(rt_spec_enum(spec, "svm", "kernel", kernel_names, SVM_RBF, &p->kernel.type, err));
	TRY(rt_spec_double(spec, "svm", "nu", 0.5, 1e-300, 1.0, &p->nu, err));
	TRY(rt_spec_double(spec, "svm", "epsilon", 0.1, 0.0, 1e12, &p->p_eps, err));
	TRY(rt_spec_double(spec, "svm", "C", 1.0, 1e-12, 1e12, &p->C, err));
	TRY(rt_spec_double(spec, "svm", "gamma", 0.0, 0.0, 1e12, &p->kernel.gamma, err));
	TRY(rt_spec_int(spec, "svm", "degree", 3, 0, 100, &v, err));
	p->kernel.degree = (int)v;
	TRY(rt_spec_double(spec, "svm", "coef0", 0.0, -1e12, 1e12, &p->kernel.coef0, err));
	TRY(rt_spec_double(spec, "svm", "eps", 0.001, 1e-12, 1e6, &p->eps, err));
	TRY(rt_spec_double(spec, "svm", "cache_mb", 100.0, 1.0, 1e6, &p->cache_mb, err));
	TRY(rt_spec_bool(spec, "svm", "shrinking", 0, &p->shrinking, err));
	TRY(rt_spec_bool(spec, "svm", "probability", 0, &p->probability, err));
	if (p->probability && p->type == SVM_ONE_CLASS) {
		char where[RT_PATH_MAX + 32];
		return rt_fail(err, RT_ERR_INPUT, "%s: svm.probability = on: expected off for "
			       "type = one_class (LIBSVM 3.24 has no one-class probabilities)",
			       rt_spec_key_where(spec, "svm", "probability", where, sizeof where));
	}
	TRY(rt_spec_enum(spec, "svm", "wss", wss_names, SVM_WSS_SECOND, &p->wss, err));
	TRY(read_solver(spec, p, err));
	TRY(rt_spec_int(spec, "svm", "max_iter", 0, 0, 1L << 50, &p->max_iter, err));
	TRY(rt_spec_enum(spec, "svm", "gpu_kernels", gpu_kernel_names, 0, &p->gpu_roles, err));
	TRY(rt_spec_double(spec, "svm", "gpu_cache_mb", 0.0, 0.0, 1e9, &p->gpu_cache_mb, err));
	TRY(rt_spec_int(spec, "svm", "gpu_blocks_per_sm", 0, 0, 4, &v, err));
	p->gpu_blocks_per_sm = (int)v;
	TRY(read_weights(spec, job, err));
	TRY(read_search(spec, job, err));
	if ((job->folds || job->grid) && SVM_IS_SINGLE(p->type))
		return rt_fail(err, RT_ERR_UNSUPPORTED, "%s: [svm] type = %s: cross-validation and "
			       "the grid search take c_svc and nu_svc only", spec->path,
			       type_names[p->type]);
	TRY(load_data(spec, job, err));
#undef TRY
	if (p->kernel.gamma == 0)
		p->kernel.gamma = 1.0 / job->train.nfeat;
	return rt_spec_check_unused(spec, err);
}

void svm_job_free(svm_job *job)
{
	svm_data_free(&job->train);
	svm_data_free(&job->test);
}


/* result.json's opening: what was run on what. */
static void json_head(rt_json *j, const svm_job *job)
{
	memset(j, 0, sizeof *j);
	rt_json_begin_object(j, NULL);
	rt_json_string(j, "kind", "svm");
	rt_json_string(j, "name", job->name);
	rt_json_string(j, "spec", job->spec_path);
	rt_json_string(j, "train", job->train_path);
	rt_json_int(j, "train_points", job->train.n);
	rt_json_int(j, "features", job->train.nfeat);
	rt_json_string(j, "backend", job->params.gpu ? "gpu" : "cpu");
	rt_json_int(j, "ranks", rt_comm_size());
	rt_json_string(j, "kernel", kernel_names[job->params.kernel.type]);
	rt_json_double(j, "eps", job->params.eps);
	rt_startup_json(j);
}

/* ---- [svm] folds and [grid]: cross-validation instead of one training -------- */

/* result.json of a search: the CV accuracy (of the best cell for a grid). */
static rt_status write_search(const svm_job *job, const svm_grid *g, double cv_acc,
			      double seconds, const char *dir, rt_error *err)
{
	char path[RT_PATH_MAX + 32];
	rt_json j;
	rt_status st;
	json_head(&j, job);
	rt_json_int(&j, "folds", g ? g->folds : job->folds);
	rt_json_double(&j, "C", g ? pow(2, g->log2c[g->best]) : job->params.C);
	rt_json_double(&j, "gamma", g ? pow(2, g->log2g[g->best]) : job->params.kernel.gamma);
	if (g) {
		rt_json_int(&j, "grid_cells", g->ncells);
		rt_json_double(&j, "best_log2c", g->log2c[g->best]);
		rt_json_double(&j, "best_log2g", g->log2g[g->best]);
	}
	rt_json_double(&j, "cv_accuracy", g ? g->acc[g->best] : cv_acc);
	rt_json_double(&j, "time_s", seconds);
	rt_json_interrupted(&j);
	rt_json_end_object(&j);
	snprintf(path, sizeof path, "%s/result.json", dir);
	st = rt_json_write(&j, path, err);
	rt_buf_free(&j.buf);
	return st;
}

/* The grid: grid.csv, grid.png (with gnuplot) and result.json under dir. */
static rt_status run_grid(svm_job *job, const char *dir, rt_error *err)
{
	char path[RT_PATH_MAX + 32];
	svm_grid g;
	double t0 = rt_now();
	rt_status st;
	st = svm_grid_search(&job->train, &job->params, &job->log2c, &job->log2g, job->grid_folds,
			     job->seed, &g, err);
	if (st == RT_OK && rt_comm_rank() != 0) {   /* rank 0 writes */
		svm_grid_free(&g);
		return RT_OK;
	}
	snprintf(path, sizeof path, "%s/grid.csv", dir);
	if (st == RT_OK)
		st = svm_grid_write_csv(path, &g, err);
	snprintf(path, sizeof path, "%s/grid.png", dir);
	if (st == RT_OK)
		st = svm_grid_plot(path, &g, err);
	if (st == RT_OK)
		st = write_search(job, &g, NAN, rt_now() - t0, dir, err);
	if (st == RT_OK)
		rt_info("svm: wrote %s/grid.csv and result.json (and grid.png with gnuplot)", dir);
	svm_grid_free(&g);
	return st;
}

/* [grid], else [svm] folds: cross-validation; no model is written. */
static rt_status run_search(svm_job *job, const rt_options *opt, rt_error *err)
{
	char dir[RT_PATH_MAX];
	double acc, t0 = rt_now();
	rt_status st = rt_job_outdir(opt, job->name, dir, sizeof dir, err);
	if (st != RT_OK)
		return st;
	if (job->params.probability)
		rt_warn("svm: probability = on is not used by cross-validation or the grid (their "
			"accuracy is of the one-vs-one votes)");
	job->params.probability = 0;
	if (job->grid)
		return run_grid(job, dir, err);
	if ((st = svm_cross_validation(&job->train, &job->params, job->folds, job->seed, NULL, &acc,
				       err)) != RT_OK || rt_comm_rank() != 0 ||
	    (st = write_search(job, NULL, acc, rt_now() - t0, dir, err)) != RT_OK)
		return st;
	rt_info("svm: %d-fold cross-validation accuracy %.4f%%; wrote %s/result.json", job->folds,
		100 * acc, dir);
	return RT_OK;
}

/* result.json's probability model: "probability" true with probA, probB
 * per pair (classification) or sigma (the regressions), else false. */
static void json_probability(rt_json *j, const svm_model *m)
{
	int pairs = m->nr_class * (m->nr_class - 1) / 2;
	rt_json_bool(j, "probability", svm_has_prob(m));
	if (svm_has_prob(m) && SVM_IS_SVR(m->type)) {
		rt_json_double(j, "sigma", m->probA[0]);
		return;
	}
	for (int ab = 0; svm_has_prob(m) && ab < 2; ab++) {
		rt_json_begin_array(j, ab ? "probB" : "probA");
		for (int q = 0; q < pairs; q++)
			rt_json_double(j, NULL, (ab ? m->probB : m->probA)[q]);
		rt_json_end_array(j);
	}
}

/* predictions.csv: point, label, predicted (with a classification model's
 * probabilities prob[n * k]: then p_<label> per class). */
static rt_status write_predictions(const svm_job *job, const svm_model *m, const double *pred,
				   const double *prob, const char *dir, rt_error *err)
{
	char path[RT_PATH_MAX + 32];
	rt_buf b;
	rt_status st;
	int k = m->nr_class;
	memset(&b, 0, sizeof b);
	rt_buf_puts(&b, "point,label,predicted");
	for (int c = 0; prob && c < k; c++)
		rt_buf_printf(&b, ",p_%d", m->label[c]);
	rt_buf_puts(&b, "\n");
	for (long i = 0; i < job->test.n; i++) {
		rt_buf_printf(&b, "%ld,%.17g,%.17g", i, job->test.y[i], pred[i]);
		for (int c = 0; prob && c < k; c++)
			rt_buf_printf(&b, ",%.17g", prob[(size_t)i * k + c]);
		rt_buf_puts(&b, "\n");
	}
	snprintf(path, sizeof path, "%s/predictions.csv", dir);
	st = b.failed ? rt_fail(err, RT_ERR_SYSTEM, "out of memory writing %s", path)
		      : rt_write_file_atomic(path, b.data, b.len, err);
	rt_buf_free(&b);
	return st;
}

static rt_status write_outputs(const svm_job *job, const svm_model *m, double seconds,
			       double train_acc, double test_acc, const double *pred,
			       const double *prob, const char *dir, rt_error *err)
{
	char path[RT_PATH_MAX + 32];
	rt_json j;
	double obj = 0;
	rt_status st;
	int pairs = m->nr_class * (m->nr_class - 1) / 2;
	snprintf(path, sizeof path, "%s/model.txt", dir);
	if ((st = svm_model_write(path, m, err)) != RT_OK)
		return st;
	json_head(&j, job);
	rt_json_string(&j, "type", type_names[m->type]);
	rt_json_double(&j, "C", job->params.C);
	if (m->type == SVM_NU_SVC || m->type == SVM_ONE_CLASS || m->type == SVM_NU_SVR)
		rt_json_double(&j, "nu", job->params.nu);
	if (m->type == SVM_EPSILON_SVR)
		rt_json_double(&j, "epsilon", job->params.p_eps);
	rt_json_double(&j, "gamma", m->kernel.gamma);
	rt_json_string(&j, "wss", wss_names[job->params.wss]);
	json_probability(&j, m);
	rt_json_int(&j, "classes", m->nr_class);
	rt_json_int(&j, "support_vectors", m->total_sv);
	rt_json_int(&j, "iterations", m->iterations);
	for (int q = 0; q < pairs; q++)
		obj += m->obj[q];
	rt_json_double(&j, "objective", obj);
	rt_json_begin_array(&j, "rho");
	for (int q = 0; q < pairs; q++)
		rt_json_double(&j, NULL, m->rho[q]);
	rt_json_end_array(&j);
	rt_json_double(&j, SVM_IS_SVR(m->type) ? "train_mse" : "train_accuracy", train_acc);
	if (job->test.n)
		rt_json_double(&j, SVM_IS_SVR(m->type) ? "test_mse" : "test_accuracy", test_acc);
	rt_json_double(&j, "time_s", seconds);
	rt_json_interrupted(&j);
	rt_json_end_object(&j);
	snprintf(path, sizeof path, "%s/result.json", dir);
	st = rt_json_write(&j, path, err);
	rt_buf_free(&j.buf);
	if (st != RT_OK || !job->test.n)
		return st;
	return write_predictions(job, m, pred, prob, dir, err);
}

/* The test set's predictions: with a classification model's probabilities,
 * the labels of the largest (LIBSVM's -b 1) and prob[n * k] (else NULL). */
static rt_status predict_test(const svm_job *job, const svm_model *m, int where, double *pred,
			      double *acc, double **prob, rt_error *err)
{
	long right = 0;
	rt_status st;
	*prob = NULL;
	if (!svm_has_prob(m) || SVM_IS_SVR(m->type))
		return svm_predict_all(m, &job->test, where, pred, acc, err);
	*prob = rt_malloc((size_t)job->test.n * m->nr_class * sizeof **prob + 1, err);
	if (!*prob)
		return RT_ERR_SYSTEM;
	if ((st = svm_predict_prob(m, &job->test, where, pred, *prob, err)) != RT_OK)
		return st;
	for (long i = 0; i < job->test.n; i++)
		right += pred[i] == job->test.y[i];
	*acc = job->test.n ? (double)right / job->test.n : NAN;
	return RT_OK;
}

/* history.csv: every pair's rows (svm_history), pair by pair in LIBSVM's
 * order (0: classes 1 and 2, 1: classes 1 and 3, ...). */
static rt_status write_history(const svm_model *m, const char *dir, rt_error *err)
{
	rt_buf b;
	rt_status st;
	memset(&b, 0, sizeof b);
	rt_buf_puts(&b, "pair,iteration,objective,gap\n");
	for (int q = 0; q < m->nr_class * (m->nr_class - 1) / 2; q++)
		for (long r = 0; r < m->hist[q].n; r++) {
			const svm_history_row *row = &m->hist[q].rows[r];
			rt_buf_printf(&b, "%d,%ld,%.17g,%.17g\n", q, row->iteration, row->obj, row->gap);
		}
	st = rt_write_buf_atomic(dir, "history.csv", &b, err);
	rt_buf_free(&b);
	return st;
}

/* The run's kernels, compiling (runtime/kprep.h) while the data go up. */
static rt_status prepare_kernels(const svm_job *job, const gpu_info *info, rt_error *err)
{
	char arch[16];
	rt_kprep *prep;
	gpu_arch_name(info, arch, sizeof arch);
	rt_status st = rt_kprep_start(arch, &prep, err);
	return st == RT_OK ? svm_job_kernels(job, rt_kprep_add, prep, err) : st;
}

static rt_status svm_run(rt_spec *spec, const rt_options *opt, rt_error *err)
{
	svm_job job;
	svm_model m;
	svm_ckpt ck;
	char dir[RT_PATH_MAX];
	double *pred = NULL, *prob = NULL, train_acc, test_acc = NAN, t0;
	rt_status st;
	memset(&m, 0, sizeof m);
	memset(&ck, 0, sizeof ck);
	if ((st = svm_job_from_spec(spec, opt, &job, err)) != RT_OK)
		goto done;
	{
		rt_backend chosen;
		gpu_info info;
		if ((st = rt_backend_select(opt->backend, &chosen, &info, err)) != RT_OK)
			goto done;
		job.params.gpu = chosen == RT_BACKEND_GPU;
		svm_note_shrinking(&job.params);
		if (job.params.gpu && (st = prepare_kernels(&job, &info, err)) != RT_OK)
			goto done;
	}
	rt_options ranks_opt;
	if ((st = rt_ckpt_ranks_options("svm", RT_CKPT_RANKS_OWN, &opt, &ranks_opt, err)) != RT_OK)
		goto done;
	if (rt_comm_size() > 1) {
		job.params.spread = 1;
		rt_info("svm: the binary problems spread over %d MPI ranks (one-vs-one pairs "
			"round-robin, cross-validation and grid models by estimated cost); rank 0 "
			"gathers and writes", rt_comm_size());
	}
	/* checkpoints: every binary problem's solver state, in the results folder */
	if ((st = rt_job_outdir(opt, job.name, dir, sizeof dir, err)) != RT_OK ||
	    (st = svm_ckpt_open(&ck, spec, opt, dir, err)) != RT_OK)
		goto done;
	job.params.ckpt = &ck;
	job.params.ckpt_model = 0;
	if (job.grid || job.folds) {
		rt_run_begins("svm");
		st = run_search(&job, opt, err);
		rt_run_ends();
		goto done;
	}
	job.params.history = 1;   /* one model: its pairs' convergence into history.csv */
	rt_info("svm: %s: %ld points, %d features, %s kernel, C %g, gamma %g, eps %g, %s", job.name,
		job.train.n, job.train.nfeat, kernel_names[job.params.kernel.type], job.params.C,
		job.params.kernel.gamma, job.params.eps, job.params.gpu ? "gpu" : "cpu");
	rt_run_begins("svm");
	t0 = rt_now();
	st = svm_train(&job.train, &job.params, &m, err);
	rt_run_ends();
	if (st != RT_OK || rt_comm_rank() != 0)
		goto done;   /* several ranks: rank 0 alone has the model */
	double seconds = rt_now() - t0;
	pred = rt_malloc((size_t)(job.train.n > job.test.n ? job.train.n : job.test.n) *
			 sizeof *pred + 1, err);
	if (!pred) {
		st = RT_ERR_SYSTEM;
		goto done;
	}
	int where = !job.params.gpu ? SVM_PREDICT_CPU
		    : opt->backend == RT_BACKEND_GPU ? SVM_PREDICT_GPU : SVM_PREDICT_GPU_OR_CPU;
	if ((st = svm_predict_all(&m, &job.train, where, pred, &train_acc, err)) != RT_OK ||
	    (job.test.n && (st = predict_test(&job, &m, where, pred, &test_acc, &prob, err)) != RT_OK) ||
	    (st = rt_job_outdir(opt, job.name, dir, sizeof dir, err)) != RT_OK ||
	    (st = write_outputs(&job, &m, seconds, train_acc, test_acc, pred, prob, dir, err)) != RT_OK ||
	    (st = write_history(&m, dir, err)) != RT_OK)
		goto done;
	if (SVM_IS_SVR(m.type)) {
		rt_info("svm: %s, %ld support vectors, %ld iterations, objective %.6f, %.3f s; "
			"training mean squared error %g", type_names[m.type], m.total_sv,
			m.iterations, m.obj[0], seconds, train_acc);
		if (job.test.n)
			rt_info("svm: test mean squared error %g on %ld points", test_acc, job.test.n);
	} else {
		rt_info("svm: %d classes, %ld support vectors, %ld iterations, objective %.6f%s, "
			"%.3f s; training accuracy %.2f%%", m.nr_class, m.total_sv, m.iterations,
			m.obj[0], m.nr_class > 2 ? " (first pair)" : "", seconds, 100 * train_acc);
		if (job.test.n)
			rt_info("svm: test accuracy %.2f%% on %ld points", 100 * test_acc, job.test.n);
	}
	rt_info("svm: wrote %s/model.txt (LIBSVM format), result.json, history.csv%s", dir,
		job.test.n ? " and predictions.csv" : "");
done:
	free(pred);
	free(prob);
	svm_model_free(&m);
	svm_ckpt_close(&ck);
	svm_job_free(&job);
	return st;
}

const rt_kind svm_kind = {
	"svm",
	"C-SVC trained by SMO as LIBSVM does (CPU and GPU), LIBSVM model files",
	svm_run, NULL, svm_bench, svm_bench_help, svm_commands,
	&svm_tune_kind,
	svm_export_result, svm_eval_result,
	svm_kernels,
	NULL,
	1,
	NULL,   /* no generic kernels (runtime/generic.h) */
};
