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
 * the cases, and its fitness is that line's MSE. yc = (double)y - mean(y),
 * the mean found once per data set; its sums syc = sum yc (about 0) and
 * syy = sum yc^2 come with the cases (two passes, gp_scale_prepare).
 *
 * Why moments, not raw sums: var f from sum f^2 - (sum f)^2 / n loses
 * every digit when f's mean is large beside its spread (f = x + 1e4, exp,
 * cube outputs), and two summation orders (CPU, GPU) then disagree by far
 * more than rounding. So the evaluators work in one pass with a shift:
 *
 *   1. over a group of cases (a CPU chunk, a GPU block) they add, in
 *      double, d = f - k with k = the group's first output (any output of
 *      the group is as good; the first is known to every lane or thread
 *      after the first block or pass): sd = sum d, sdd = sum d^2,
 *      sdy = sum d*yc, sy = sum yc; gp_ls_acc adds one case;
 *   2. gp_ls_moments turns them into the group's moments m[GP_LS_NM] =
 *      (n, mean f, mean yc, M2 = sum (f - mean f)^2, C = sum (f - mean
 *      f)(yc - mean yc)): the cancellation left is (mean - k)^2 against
 *      the spread, about 1 when k is one of the outputs;
 *   3. gp_ls_merge combines groups in a fixed order with Chan, Golub and
 *      LeVeque's pairwise update (stable, no cancellation);
 *   4. gp_ls_slope / gp_ls_mse score the total:
 *        b = C / M2, or 0 when M2 <= 1e-12 sum f^2 (sum f^2 = M2 + n
 *            mean^2: a constant program, its spread below float
 *            resolution; exactly 0 when every output is equal) or b is
 *            not finite;
 *        a = mean(y) + syc/n - b * mean f   (gp_ls_intercept);
 *        fitness = (cyy - b*C) / n, cyy = syy - syc^2/n, clamped at 0;
 *        +inf when an output was NaN or infinite (as without scaling).
 * The result is that of a float64 two-pass computation to about 1e-15 of
 * var y; (cyy - b*C) still cancels when the fit is near perfect, an
 * absolute error of about 1e-16 * cyy (the tests compare fitness to that,
 * relative to var y, not to itself). */
#define GP_LS_NM 5

/* One case: output f (double), yc its centred target, k the group's shift;
 * s = (sd, sdd, sdy, sy). */
RT_HD void gp_ls_acc(double s[4], double f, double yc, double k)
{
	double d = f - k;
	s[0] += d;
	s[1] += d * d;
	s[2] += d * yc;
	s[3] += yc;
}

/* The moments m of a group of n cases from its shifted sums s about k
 * (n = 0: all zero). NaN or infinite outputs make mean f or M2 NaN or inf. */
RT_HD void gp_ls_moments(double n, double k, const double s[4], double m[GP_LS_NM])
{
	if (!(n > 0.0)) {
		m[0] = m[1] = m[2] = m[3] = m[4] = 0.0;
		return;
	}
	double md = s[0] / n, m2 = s[1] - s[0] * md;
	m[0] = n;
	m[1] = k + md;
	m[2] = s[3] / n;
	m[3] = m2 < 0.0 ? 0.0 : m2;   /* rounding; NaN stays NaN */
	m[4] = s[2] - md * s[3];
}

/* a becomes the moments of a's cases followed by b's (Chan et al.). */
RT_HD void gp_ls_merge(double a[GP_LS_NM], const double b[GP_LS_NM])
{
	if (!(b[0] > 0.0))
		return;
	if (!(a[0] > 0.0)) {
		for (int i = 0; i < GP_LS_NM; i++)
			a[i] = b[i];
		return;
	}
	double n = a[0] + b[0], w = b[0] / n, df = b[1] - a[1], dy = b[2] - a[2];
	double cross = a[0] * w;   /* na nb / n */
	a[0] = n;
	a[1] += df * w;
	a[2] += dy * w;
	a[3] += b[3] + df * df * cross;
	a[4] += b[4] + df * dy * cross;
}

/* Are the moments those of finite outputs? */
RT_HD int gp_ls_finite(const double m[GP_LS_NM])
{
	return m[1] - m[1] == 0.0 && m[3] - m[3] == 0.0 && m[4] - m[4] == 0.0;
}

RT_HD double gp_ls_slope(const double m[GP_LS_NM])
{
	if (!(m[0] > 0.0) || !gp_ls_finite(m))
		return 0.0;
	double cff = m[3], b = m[4] / cff;
	if (!(cff > 1e-12 * (cff + m[0] * m[1] * m[1])) || !(b - b == 0.0))
		return 0.0;
	return b;
}

RT_HD double gp_ls_intercept(double b, const double m[GP_LS_NM], double syc, double ymean,
			     double n)
{
	if (!(n > 0.0))
		return ymean;
	return b != 0.0 ? ymean + syc / n - b * m[1] : ymean + syc / n;
}

/* The scaled MSE of moments m over the data set's n cases (syc, syy). */
RT_HD double gp_ls_mse(const double m[GP_LS_NM], double syc, double syy, double n)
{
	if (!(n > 0.0))
		return 0.0;
	if (!gp_ls_finite(m))
		return 1.0 / 0.0;   /* a NaN or infinite output */
	double b = gp_ls_slope(m), cyy = syy - syc * (syc / n);
	double sse = cyy - b * m[4];
	return sse > 0.0 ? sse / n : 0.0;
}

#endif
