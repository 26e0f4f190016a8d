/* svm_sparse_gen.h: generated sparse high-dimensional LIBSVM files for the
 * svm tests and the GPU driver: n points of nfeat features, 20 to 50
 * non-zeros each (news20/rcv1-like, two classes): a few from the class's own
 * pool of 500 features, the rest anywhere above the pools; values in
 * (0.1, 1], written exactly (%.9g of floats). Include once. */
#ifndef EVO_SVM_SPARSE_GEN_H
#define EVO_SVM_SPARSE_GEN_H

#include <stdio.h>
#include <stdlib.h>

#include "rng.h"

static int sparse_gen_cmp(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;
	return (x > y) - (x < y);
}

/* Writes the file; returns 0, or -1 when it cannot be written. */
static int sparse_gen_write(const char *path, long n, int nfeat, uint64_t seed)
{
	FILE *f = fopen(path, "w");
	rt_rng rng;
	int cols[64];
	if (!f)
		return -1;
	rt_rng_init(&rng, seed, 0);
	for (long i = 0; i < n; i++) {
		int c = (int)(i % 2), nnz = 20 + (int)rt_rng_below(&rng, 31), own = 3 + (int)rt_rng_below(&rng, 6), k = 0;
		while (k < nnz) {
			int col = k < own ? c * 500 + (int)rt_rng_below(&rng, 500)
				  : 1000 + (int)rt_rng_below(&rng, (uint32_t)(nfeat - 1000));
			int dup = 0;
			for (int j = 0; j < k; j++)
				dup |= cols[j] == col;
			if (!dup)
				cols[k++] = col;
		}
		qsort(cols, (size_t)nnz, sizeof *cols, sparse_gen_cmp);
		fprintf(f, "%d", c ? 1 : -1);
		for (int j = 0; j < nnz; j++)
			fprintf(f, " %d:%.9g", cols[j] + 1, (double)(float)(0.1 + 0.9 * rt_rng_uniform_double(&rng)));
		fputc('\n', f);
	}
	return fclose(f) == 0 ? 0 : -1;
}

#endif
