/* svm_build.c: kind `svm`'s kernel list for `evoforge build`
 * (rt_kind.kernels), for the job svm_run reads (svm_job_from_spec). A GPU
 * run compiles
 *   - the solver (svm_gpu.c's open_module: svm_gpu_source of the params and
 *     the training set's feature count; one module for every path: the
 *     persistent kernel with or without the Gram matrix, the per-role
 *     kernels; for training, cross-validation folds and grid cells alike,
 *     since folds keep the set's features and a grid varies only C and
 *     gamma), and
 *   - the batched solver (svm_gpu_batch.c's open_module:
 *     svm_gpu_batch_source) when a problem of the training set may run it
 *     (solver = batch, or auto with the set at SVM_BATCH_AUTO_MIN points or
 *     more; not the nu forms), and
 *   - the prediction kernels (svm_predict.c's open_module:
 *     svm_gpu_predict_source of the model's kernel type and the features
 *     compared, svm_predict_features) for the training set and the test
 *     set; a trained model is as wide as its training set (svm_train.c).
 * Both are rendered here by the generators the run calls, with the options
 * it passes; none depends on the device or the seed
 * (tests/test_build_cover.c runs the GPU path against this list). */
#include <string.h>

#include "svm_batch.h"
#include "svm_impl.h"

/* The solver's module, as svm_gpu_solve_many compiles it. */
static rt_status emit_solver(const svm_params *p, int nfeat, rt_kernel_emit emit, void *ctx,
			     rt_error *err)
{
	gen_source src;
	int nopt;
	const char *const *opts = svm_gpu_nvrtc_options(&nopt);
	rt_status st;
	memset(&src, 0, sizeof src);
	if ((st = svm_gpu_source(p, nfeat, &src, err)) == RT_OK)
		st = emit(ctx, src.name, src.text.data, opts, nopt, err);
	gen_free(&src);
	return st;
}

/* The batched solver's module for p on nfeat features (negative: sparse),
 * as svm_gpu_batch_solve compiles it, when a problem of n points may run it. */
static rt_status emit_batch(const svm_params *p, long n, int nfeat, rt_kernel_emit emit,
			    void *ctx, rt_error *err)
{
	svm_params gp = *p;
	svm_extra ex = { NULL, NULL, p->type == SVM_NU_SVC || p->type == SVM_NU_SVR };
	gen_source src;
	int nopt;
	const char *const *opts = svm_gpu_nvrtc_options(&nopt);
	rt_status st;
	gp.gpu = 1;
	if (!svm_batch_wanted(&gp, n, &ex))
		return RT_OK;
	memset(&src, 0, sizeof src);
	if ((st = svm_gpu_batch_source(p, nfeat, &src, err)) == RT_OK)
		st = emit(ctx, src.name, src.text.data, opts, nopt, err);
	gen_free(&src);
	return st;
}

/* The prediction module for model m on d, as svm_gpu_predict compiles it. */
static rt_status emit_predict(const svm_model *m, const svm_data *d, rt_kernel_emit emit,
			      void *ctx, rt_error *err)
{
	gen_source src;
	int nopt;
	const char *const *opts = svm_gpu_nvrtc_options(&nopt);
	rt_status st;
	memset(&src, 0, sizeof src);
	if ((st = svm_gpu_predict_source(m, svm_predict_features(m, d), &src, err)) == RT_OK)
		st = emit(ctx, src.name, src.text.data, opts, nopt, err);
	gen_free(&src);
	return st;
}

/* The solver for p on train, the prediction of train and of test (may be NULL). */
static rt_status gpu_kernels(const svm_params *p, const svm_data *train, const svm_data *test,
			     rt_kernel_emit emit, void *ctx, rt_error *err)
{
	svm_model m;
	rt_status st = RT_OK;
	/* Dense rows past the solver's limit: a GPU run stops before compiling. */
	if (!train->sparse && train->nfeat > SVM_GPU_MAX_FEATURES)
		return RT_OK;
	/* Sparse rows: the solver's module takes no feature count (asked for with
	 * a negative one, as svm_gpu_solve_many does); prediction stays on the CPU. */
	if (train->sparse)
		return (st = emit_solver(p, -train->nfeat, emit, ctx, err)) != RT_OK ? st
			: emit_batch(p, train->n, -train->nfeat, emit, ctx, err);
	memset(&m, 0, sizeof m);
	m.kernel = p->kernel;
	m.nfeat = train->nfeat;
	if ((st = emit_solver(p, train->nfeat, emit, ctx, err)) == RT_OK &&
	    (st = emit_batch(p, train->n, train->nfeat, emit, ctx, err)) == RT_OK &&
	    (st = emit_predict(&m, train, emit, ctx, err)) == RT_OK && test && test->n > 0 &&
	    !test->sparse)
		st = emit_predict(&m, test, emit, ctx, err);
	return st;
}

rt_status svm_job_kernels(const svm_job *job, rt_kernel_emit emit, void *ctx, rt_error *err)
{
	return gpu_kernels(&job->params, &job->train, &job->test, emit, ctx, err);
}

rt_status svm_kernels(rt_spec *spec, const rt_options *opt, const gpu_info *info,
		      rt_kernel_emit emit, void *ctx, rt_error *err)
{
	svm_job job;
	rt_status st = svm_job_from_spec(spec, opt, &job, err);
	(void)info;
	if (st == RT_OK)
		st = svm_job_kernels(&job, emit, ctx, err);
	svm_job_free(&job);
	return st;
}
