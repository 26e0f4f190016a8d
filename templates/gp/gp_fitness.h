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

/* Linear scaling (Keijzer 2003; [gp] linear_scaling, runtime/gp/gp_scale.h):
 * a program's output f is read as a + b*f, the least-squares line through
 * the cases, and its fitness is that line's MSE. The evaluators add up, in
 * double, over the n cases: sf = sum f, sff = sum f^2, syf = sum yc*f, where
 * yc = (double)y - mean(y), the mean found once per data set; its own sums
 * syc = sum yc (about 0) and syy = sum yc^2 come with the cases.
 * With cff = sff - sf^2/n (n var f) and cyf = syf - syc*sf/n (n cov):
 *   b = cyf / cff, or 0 when cff <= 1e-12 sff (a constant program: its
 *       spread is below float resolution) or b is not finite;
 *   a = mean(y) + (syc - b*sf) / n;
 *   fitness = (cyy - b*cyf) / n, cyy = syy - syc^2/n, clamped at 0;
 *   +inf when an output was NaN or infinite (as without scaling).
 * One pass, no second sweep over the outputs: (cyy - b*cyf) loses
 * precision by cancellation only when the fit is near perfect, an
 * absolute error of about 1e-16 * cyy (the tests compare fitness to
 * that, relative to var y, not to itself). */
RT_HD double gp_ls_slope(double sf, double sff, double syf, double syc, double n)
{
	if (!(n > 0.0))
		return 0.0;
	double cff = sff - sf * (sf / n), b = (syf - syc * (sf / n)) / cff;
	if (!(cff > 1e-12 * sff) || !(b - b == 0.0))
		return 0.0;
	return b;
}

RT_HD double gp_ls_intercept(double b, double sf, double syc, double ymean, double n)
{
	return n > 0.0 ? ymean + (syc - b * sf) / n : ymean;
}

RT_HD double gp_ls_mse(double sf, double sff, double syf, double syc, double syy, double n)
{
	if (!(n > 0.0))
		return 0.0;
	if (!(sf - sf == 0.0) || !(sff - sff == 0.0) || !(syf - syf == 0.0))
		return 1.0 / 0.0;   /* a NaN or infinite output */
	double b = gp_ls_slope(sf, sff, syf, syc, n);
	double cyf = syf - syc * (sf / n), cyy = syy - syc * (syc / n);
	double sse = cyy - b * cyf;
	return sse > 0.0 ? sse / n : 0.0;
}

#endif
