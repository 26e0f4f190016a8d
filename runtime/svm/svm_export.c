/* svm_export.c: kind `svm`'s deployable artefacts (rt_kind.export_result,
 * eval_result): the run's model (model.txt beside result.json) read back,
 * checked and written as NAME.model in LIBSVM's format, which LIBSVM's own
 * svm-predict reads; `evoforge eval` predicts with it as svm-predict does. */
#include <stdio.h>
#include <string.h>

#include "export.h"
#include "json_read.h"
#include "log.h"
#include "svm.h"
#include "svm_impl.h"

/* The run's model: model.txt beside result.json. */
static rt_status run_model(const rt_jval *doc, const char *path, svm_model *m, const char **name,
			   rt_error *err)
{
	char file[RT_PATH_MAX];
	rt_status st;
	memset(m, 0, sizeof *m);
	if ((st = rt_jstring(doc, "name", path, name, err)) ||
	    (st = rt_export_sibling(path, "model.txt", file, sizeof file, err)))
		return st;
	if (!rt_jget(doc, "support_vectors"))
		return rt_fail(err, RT_ERR_INPUT, "%s: expected the result of a training run (with "
			       "support_vectors and model.txt), got that of a cross-validation or "
			       "grid search: no model to export", path);
	return svm_model_read(file, m, err);
}

rt_status svm_export_result(const rt_jval *doc, const char *path, const rt_options *opt,
			    const char *dir, rt_error *err)
{
	svm_model m;
	const char *name;
	char ident[128], file[RT_PATH_MAX];
	rt_status st = run_model(doc, path, &m, &name, err);
	(void)opt;
	if (st == RT_OK) {
		rt_export_ident(name, ident, sizeof ident);
		if ((st = rt_format(file, sizeof file, err, "%s/%s.model", dir, ident)) == RT_OK)
			st = svm_model_write(file, &m, err);
	}
	if (st == RT_OK)
		rt_info("svm: wrote %s (LIBSVM format: %d classes, %ld support vectors)", file,
			m.nr_class, m.total_sv);
	svm_model_free(&m);
	return st;
}

/* Where eval predicts: --backend cpu the CPU, gpu the GPU, auto the GPU when
 * one answers (a failure there: the CPU after one warning). */
static int eval_where(const rt_options *opt)
{
	rt_backend chosen = RT_BACKEND_CPU;
	rt_error why;
	if (opt->backend == RT_BACKEND_CPU)
		return SVM_PREDICT_CPU;
	if (opt->backend == RT_BACKEND_GPU)
		return SVM_PREDICT_GPU;
	if (rt_backend_select(opt->backend, &chosen, NULL, &why) != RT_OK || chosen != RT_BACKEND_GPU)
		return SVM_PREDICT_CPU;
	return SVM_PREDICT_GPU_OR_CPU;
}

rt_status svm_eval_result(const rt_jval *doc, const char *path, const char *data, const char *out,
			  const rt_options *opt, rt_error *err)
{
	svm_model m;
	const char *name;
	rt_status st;
	if (!out)
		return rt_fail(err, RT_ERR_INPUT, "eval: kind svm writes its labels to a file: "
			       "expected -o OUT");
	if ((st = run_model(doc, path, &m, &name, err)) == RT_OK)
		st = svm_predict_file(&m, data, eval_where(opt), out, err);
	svm_model_free(&m);
	return st;
}
