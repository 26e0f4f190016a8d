/* gp_fitness.h: how one program output is scored, shared by the CPU
 * evaluators and the CUDA interpreters (the same bits on both). */
#ifndef EVO_GP_FITNESS_H
#define EVO_GP_FITNESS_H

#include "common.h"

/* The class an output stands for, clamp(rintf(out), 0, top) with top =
 * nclasses - 1, kept as a float: NaN stays NaN and so never equals a class
 * (a NaN output is always wrong). rintf rounds to nearest, ties to even. */
RT_HD float gp_class_of(float out, float top)
{
	float r = rintf(out);
	r = r < 0.0f ? 0.0f : r;
	return r > top ? top : r;
}

/* Squared error of one case, in double (the evaluators add these up in
 * double; the sum over cases divided by their number is the MSE). */
RT_HD double gp_sq_err(float out, float y)
{
	double d = (double)out - (double)y;
	return d * d;
}

#endif
