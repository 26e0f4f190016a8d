/* mbp_export.h: a trained network of kind `mbp` used on raw data, shared by
 * `evoforge eval` (runtime/mbp/mbp_export.c) and the C code `evoforge
 * export` writes (NAME.c carries this file and mbp_core.h): the forward
 * pass of one pattern (mbp_forward's loop over mbp_core.h's neurons), the
 * scaling of a raw input to the network's [-1, 1] and of an output back to
 * the target's units, and the class an output row stands for. The scaling
 * and the class are computed as runtime/mbp/mbp_data.c computes them for the
 * training patterns (scale_value, mbp_dataset_unscale, mbp_dataset_class_of),
 * operation for operation, so that the network sees the inputs it was
 * trained on (tests compare both on the run's own data). Plain C99. */
#ifndef EVO_MBP_EXPORT_H
#define EVO_MBP_EXPORT_H

#include "mbp_core.h"

/* Outputs y[no] of the network (weights w, shape s) for scaled inputs x:
 * h1 (selective when there is a space network), h2, output, in float as
 * mbp_forward; y1[h1] and y2[h2] are the caller's room. */
RT_HD void mbp_export_forward(const mbp_shape *s, const float *w, const float *x, float *y1,
			      float *y2, float *y)
{
	const float *last = y1;
	float f, m;
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

/* A raw input v of the training range [min, max] mapped to [-1, 1] (a
 * constant training column: 0, the middle). */
RT_HD float mbp_export_scale(float v, float min, float max)
{
	const float lo = -1.0f, hi = 1.0f;
	if (!(max > min))
		return (float)(0.5 * ((double)lo + hi));
	return (float)(lo + ((double)hi - lo) * (((double)v - min) / ((double)max - min)));
}

/* An output y of the network's range [lo, hi] back in the target's units
 * [min, max] (regression). */
RT_HD float mbp_export_unscale(float y, float min, float max, float lo, float hi)
{
	double l = lo, h = hi;
	return (float)(min + ((double)max - min) * ((y - l) / (h - l)));
}

/* The class an output row y[no] stands for: one output, class 1 when it is
 * at least the middle of [lo, hi]; several, the largest (the first of equals). */
RT_HD int mbp_export_class(const float *y, int no, float lo, float hi)
{
	int best = 0;
	if (no == 1)
		return y[0] >= 0.5f * (lo + hi) ? 1 : 0;
	for (int o = 1; o < no; o++)
		if (y[o] > y[best])
			best = o;
	return best;
}

#endif
