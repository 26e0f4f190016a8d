/* mbp_eval.c: using a network: the forward pass of one pattern, and its RMS
 * and classification accuracy over a set of patterns (CPU, both backends'
 * results are evaluated here). */
#include <math.h>
#include <stdlib.h>

#include "mbp_impl.h"

void mbp_forward(const mbp_shape *s, const float *w, const float *x, float *y)
{
	float y1[MBP_MAX_UNITS], y2[MBP_MAX_UNITS], f, m;
	const float *last = y1;
	for (int j = 0; j < s->h1; j++)
		mbp_fire_h1(s, w, x, j, &f, &m, &y1[j]);
	if (s->h2 > 0) {
		for (int k = 0; k < s->h2; k++)
			y2[k] = mbp_fire_h2(s, w, y1, k);
		last = y2;
	}
	for (int o = 0; o < s->no; o++)
		y[o] = mbp_fire_output(s, w, last, o);
}

void mbp_evaluate(const mbp_job *job, const float *w, const long *set, long n, double *rms,
		  double *accuracy)
{
	const mbp_dataset *d = &job->data;
	const mbp_shape *s = &job->shape;
	float y[MBP_MAX_UNITS];
	double sse = 0;
	long right = 0;
	for (long q = 0; q < n; q++) {
		long p = set[q];
		const float *t = d->t + (size_t)p * d->no;
		mbp_forward(s, w, d->x + (size_t)p * d->ni, y);
		for (int o = 0; o < s->no; o++)
			sse += ((double)t[o] - y[o]) * ((double)t[o] - y[o]);
		if (d->classes > 0)
			right += mbp_dataset_class_of(d, y) == mbp_dataset_class_of(d, t);
	}
	*rms = n > 0 ? sqrt(sse / ((double)n * s->no)) : NAN;
	*accuracy = d->classes > 0 && n > 0 ? (double)right / (double)n : -1.0;
}
