/* svm.h: kind `svm`, C-SVC training by SMO, as the kind table sees it. */
#ifndef RT_SVM_H
#define RT_SVM_H

#include "kinds.h"

extern const rt_kind svm_kind;

struct rt_jval;
/* `evoforge export` for kind svm (svm_export.c): NAME.model (LIBSVM
 * format), svm-predict.c (a standalone C predictor of that format), a
 * Makefile, and svm-predict built when cc is present. */
rt_status svm_export_result(const struct rt_jval *result, const char *result_path,
			    const rt_options *opt, const char *dir, rt_error *err);
/* `evoforge eval` for kind svm: the run's model (model.txt beside the
 * result) on DATA (LIBSVM or CSV), one label per row. */
rt_status svm_eval_result(const struct rt_jval *result, const char *result_path,
			  const char *data, const char *out, const rt_options *opt,
			  rt_error *err);

#endif
