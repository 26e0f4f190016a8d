/* svm_sparse.c: kind `svm`'s sparse (CSR) data: the storage rule (dense
 * unless the matrix would be too big or mostly zeros), conversions between
 * dense and sparse, subsets, norms, and the scatter / gather dot product the
 * CPU solver and prediction use on sparse points.
 *
 * Why the results equal the dense path bit for bit: a float times a float
 * is exact in double, so every product is the same whichever side is
 * sparse; the dense path adds them in feature order, zeros included, and
 * adding an exact zero to a sum does not change it; the sparse path adds the
 * same non-zero products in the same (feature) order. */
#include <stdlib.h>
#include <string.h>

#include "svm_impl.h"

int svm_storage_sparse(int storage, long n, int nfeat, long nnz)
{
	const char *env = getenv("EVOFORGE_SVM_DENSE_MB");
	double limit_mb = env && atof(env) > 0 ? atof(env) : SVM_DENSE_LIMIT_MB;
	double cells = (double)n * (double)nfeat, mb = cells * sizeof(float) / 1048576.0;
	if (storage != SVM_STORAGE_AUTO)
		return storage == SVM_STORAGE_SPARSE;
	return mb > limit_mb || (mb > 64 && (double)nnz < 0.01 * cells);
}

rt_status svm_data_alloc_sparse(svm_data *d, long n, int nfeat, long nnz, rt_error *err)
{
	memset(d, 0, sizeof *d);
	d->n = n;
	d->nfeat = nfeat;
	d->sparse = 1;
	d->y = rt_malloc((size_t)n * sizeof *d->y + 1, err);
	d->sq = d->y ? rt_malloc((size_t)n * sizeof *d->sq + 1, err) : NULL;
	d->csr.ptr = d->sq ? rt_malloc(((size_t)n + 1) * sizeof *d->csr.ptr, err) : NULL;
	d->csr.col = d->csr.ptr ? rt_malloc((size_t)nnz * sizeof *d->csr.col + 1, err) : NULL;
	d->csr.val = d->csr.col ? rt_malloc((size_t)nnz * sizeof *d->csr.val + 1, err) : NULL;
	if (!d->csr.val) {
		svm_data_free(d);
		return RT_ERR_SYSTEM;
	}
	d->csr.ptr[0] = 0;
	return RT_OK;
}

void svm_data_norms(svm_data *d)
{
	for (long i = 0; d->sparse && i < d->n; i++)
		d->sq[i] = svm_row_sq(d, i, d->nfeat);
}

rt_status svm_data_make_sparse(svm_data *d, rt_error *err)
{
	svm_data s;
	long nnz = 0;
	size_t nf = (size_t)d->nfeat;
	if (d->sparse)
		return RT_OK;
	for (size_t e = 0; e < (size_t)d->n * nf; e++)
		nnz += d->x[e] != 0;
	if (svm_data_alloc_sparse(&s, d->n, d->nfeat, nnz, err) != RT_OK)
		return RT_ERR_SYSTEM;
	nnz = 0;
	for (long i = 0; i < d->n; i++) {
		const float *x = d->x + (size_t)i * nf;
		for (size_t f = 0; f < nf; f++)
			if (x[f] != 0) {
				s.csr.col[nnz] = (int)f;
				s.csr.val[nnz++] = x[f];
			}
		s.csr.ptr[i + 1] = nnz;
		s.y[i] = d->y[i];
	}
	svm_data_norms(&s);
	svm_data_free(d);
	*d = s;
	return RT_OK;
}

rt_status svm_data_make_dense(svm_data *d, rt_error *err)
{
	svm_data s;
	memset(&s, 0, sizeof s);
	if (!d->sparse)
		return RT_OK;
	if ((double)d->n * d->nfeat * sizeof(float) > (double)SIZE_MAX / 2)
		return rt_fail(err, RT_ERR_SYSTEM, "svm: %ld x %d dense features do not fit in memory",
			       d->n, d->nfeat);
	s.n = d->n;
	s.nfeat = d->nfeat;
	s.x = rt_calloc((size_t)d->n * (size_t)d->nfeat + 1, sizeof *s.x, err);
	s.y = s.x ? rt_malloc((size_t)d->n * sizeof *s.y + 1, err) : NULL;
	if (!s.y) {
		svm_data_free(&s);
		rt_error_prefix(err, "svm: %ld x %d dense features (storage dense)", d->n, d->nfeat);
		return RT_ERR_SYSTEM;
	}
	for (long i = 0; i < d->n; i++) {
		for (long k = d->csr.ptr[i]; k < d->csr.ptr[i + 1]; k++)
			s.x[(size_t)i * d->nfeat + d->csr.col[k]] = d->csr.val[k];
		s.y[i] = d->y[i];
	}
	svm_data_free(d);
	*d = s;
	return RT_OK;
}

rt_status svm_data_rows(const svm_data *d, const long *rows, long count, svm_data *out,
			rt_error *err)
{
	long nnz = 0;
	if (!d->sparse) {
		if (svm_data_alloc(out, count, d->nfeat, err) != RT_OK)
			return RT_ERR_SYSTEM;
		for (long k = 0; k < count; k++) {
			memcpy(out->x + (size_t)k * d->nfeat, d->x + (size_t)rows[k] * d->nfeat,
			       (size_t)d->nfeat * sizeof *out->x);
			out->y[k] = d->y[rows[k]];
		}
		return RT_OK;
	}
	for (long k = 0; k < count; k++)
		nnz += d->csr.ptr[rows[k] + 1] - d->csr.ptr[rows[k]];
	if (svm_data_alloc_sparse(out, count, d->nfeat, nnz, err) != RT_OK)
		return RT_ERR_SYSTEM;
	nnz = 0;
	for (long k = 0; k < count; k++) {
		long i = rows[k], from = d->csr.ptr[i], len = d->csr.ptr[i + 1] - from;
		memcpy(out->csr.col + nnz, d->csr.col + from, (size_t)len * sizeof *out->csr.col);
		memcpy(out->csr.val + nnz, d->csr.val + from, (size_t)len * sizeof *out->csr.val);
		nnz += len;
		out->csr.ptr[k + 1] = nnz;
		out->y[k] = d->y[i];
		out->sq[k] = d->sq[i];
	}
	return RT_OK;
}

double svm_row_sq(const svm_data *d, long i, int nf)
{
	double q = 0;
	if (!d->sparse) {
		const float *x = d->x + (size_t)i * d->nfeat;
		for (int f = 0; f < nf; f++)
			q += (double)x[f] * x[f];
		return q;
	}
	for (long k = d->csr.ptr[i]; k < d->csr.ptr[i + 1] && d->csr.col[k] < nf; k++)
		q += (double)d->csr.val[k] * d->csr.val[k];
	return q;
}

void svm_row_scatter(const svm_data *d, long i, double *dense, int nf)
{
	if (!d->sparse) {
		const float *x = d->x + (size_t)i * d->nfeat;
		for (int f = 0; f < nf; f++)
			dense[f] = x[f];
		return;
	}
	for (long k = d->csr.ptr[i]; k < d->csr.ptr[i + 1] && d->csr.col[k] < nf; k++)
		dense[d->csr.col[k]] = d->csr.val[k];
}

void svm_row_unscatter(const svm_data *d, long i, double *dense, int nf)
{
	if (!d->sparse) {
		memset(dense, 0, (size_t)nf * sizeof *dense);
		return;
	}
	for (long k = d->csr.ptr[i]; k < d->csr.ptr[i + 1] && d->csr.col[k] < nf; k++)
		dense[d->csr.col[k]] = 0;
}

double svm_row_dot(const svm_data *d, long i, const double *v, int nf)
{
	double dot = 0;
	if (!d->sparse) {
		const float *x = d->x + (size_t)i * d->nfeat;
		for (int f = 0; f < nf; f++)
			dot += v[f] * (double)x[f];
		return dot;
	}
	for (long k = d->csr.ptr[i]; k < d->csr.ptr[i + 1] && d->csr.col[k] < nf; k++)
		dot += v[d->csr.col[k]] * (double)d->csr.val[k];
	return dot;
}
