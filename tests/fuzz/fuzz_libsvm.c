/* fuzz_libsvm.c: fuzz harness for the LIBSVM data reader
 * (runtime/data_libsvm.c): the same input through the dense reader
 * (rt_libsvm_load) and the sparse one (rt_libsvm_load_sparse, which the svm
 * kind uses); both must agree on what they accept, and the sparse rows must
 * be well formed (ascending 0-based columns below ncols). */
#include "data.h"
#include "fuzz.h"

static void check_sparse(const rt_sparse_table *s)
{
	FUZZ_CHECK(s->ptr[0] == 0 && (size_t)s->ptr[s->nrows] == s->nnz);
	for (size_t r = 0; r < s->nrows; r++) {
		FUZZ_CHECK(s->ptr[r] <= s->ptr[r + 1]);
		for (long k = s->ptr[r]; k < s->ptr[r + 1]; k++) {
			FUZZ_CHECK(s->col[k] >= 0 && s->col[k] < s->ncols);
			FUZZ_CHECK(k == s->ptr[r] || s->col[k] > s->col[k - 1]);
		}
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char path[64];
	rt_table t;
	rt_sparse_table s;
	rt_error err;
	rt_status dense, sparse;
	int fd = fuzz_file(data, size, path, sizeof path);
	if (fd < 0)
		return 0;
	memset(&s, 0, sizeof s);
	dense = rt_libsvm_load(path, 0, &t, &err);
	sparse = rt_libsvm_load_sparse(path, 0, 1 << 20, &s, &err);
	if (sparse == RT_OK) {
		check_sparse(&s);
		if (dense == RT_OK) {
			FUZZ_CHECK(t.nrows == s.nrows && t.ncols == s.ncols);
			for (size_t r = 0; r < s.nrows; r++)
				for (long k = s.ptr[r]; k < s.ptr[r + 1]; k++) {
					float v = rt_table_at(&t, s.col[k], r);
					FUZZ_CHECK(v == s.val[k] || (v != v && s.val[k] != s.val[k]));
				}
		}
	}
	rt_table_free(&t);
	rt_sparse_table_free(&s);
	close(fd);
	return 0;
}
