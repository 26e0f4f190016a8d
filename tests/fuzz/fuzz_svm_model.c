/* fuzz_svm_model.c: fuzz harness for the LIBSVM model-file reader
 * (runtime/svm/svm_model.c, svm_model_read, as `svm-predict` and `evoforge
 * eval` read a model). A model read must be consistent: the per-class
 * counts add up to the support vectors, and predicting the zero point
 * gives one of its labels. */
#include "fuzz.h"
#include "svm/svm_impl.h"

static void check_model(const svm_model *m)
{
	long sum = 0;
	FUZZ_CHECK(m->nr_class >= 2 && m->total_sv >= 0 && m->nfeat >= 0);
	for (int c = 0; c < m->nr_class; c++)
		sum += m->nsv[c];
	FUZZ_CHECK(sum == m->total_sv);
	if (m->nr_class <= 256 && m->nfeat <= 4096 && m->total_sv <= 4096) {
		float *x = calloc((size_t)m->nfeat + 1, sizeof *x);
		if (x) {
			double label = svm_predict(m, x, m->nfeat);
			int found = 0;
			for (int c = 0; c < m->nr_class; c++)
				found |= label == (double)m->label[c];
			FUZZ_CHECK(found);
		}
		free(x);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char path[64];
	svm_model m;
	rt_error err;
	int fd = fuzz_file(data, size, path, sizeof path);
	if (fd < 0)
		return 0;
	if (svm_model_read(path, &m, &err) == RT_OK) {
		check_model(&m);
		svm_model_free(&m);
	}
	close(fd);
	return 0;
}
