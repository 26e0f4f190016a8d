/* svm_core.h: the kernel functions of kind `svm` (LIBSVM's definitions),
 * shared by the CPU solver, prediction and the generated CUDA kernels:
 *   linear      u.v
 *   polynomial  (gamma u.v + coef0)^degree
 *   rbf         exp(-gamma |u - v|^2)
 *   sigmoid     tanh(gamma u.v + coef0)
 * Computed in double, as LIBSVM does. */
#ifndef EVO_SVM_CORE_H
#define EVO_SVM_CORE_H

#include "common.h"

/* LIBSVM's -t numbers. */
enum svm_kernel_type { SVM_LINEAR = 0, SVM_POLY = 1, SVM_RBF = 2, SVM_SIGMOID = 3 };

typedef struct svm_kernel_params {
	int type;
	int degree;
	double gamma, coef0;
} svm_kernel_params;

RT_HD double svm_powi(double base, int times)
{
	double tmp = base, ret = 1.0;
	for (int t = times; t > 0; t /= 2) {
		if (t % 2 == 1)
			ret *= tmp;
		tmp = tmp * tmp;
	}
	return ret;
}

/* K(u, v) from the dot product u.v and sq_u, sq_v: |u|^2, |v|^2 (RBF). */
RT_HD double svm_kernel_dot(const svm_kernel_params *k, double dot, double sq_u, double sq_v)
{
	switch (k->type) {
	case SVM_LINEAR:
		return dot;
	case SVM_POLY:
		return svm_powi(k->gamma * dot + k->coef0, k->degree);
	case SVM_RBF:
		return exp(-k->gamma * (sq_u + sq_v - 2.0 * dot));
	default:
		return tanh(k->gamma * dot + k->coef0);
	}
}

/* K(u, v) for dense vectors of n features (the dot product in feature
 * order); sq_u, sq_v: |u|^2, |v|^2 (RBF). */
RT_HD double svm_kernel(const svm_kernel_params *k, const float *u, const float *v, int n,
			double sq_u, double sq_v)
{
	double dot = 0.0;
	for (int i = 0; i < n; i++)
		dot += (double)u[i] * (double)v[i];
	return svm_kernel_dot(k, dot, sq_u, sq_v);
}

/* The one-vs-one decision value of classes a < b for one point (LIBSVM's
 * order): coef * K summed over class a's support vectors (coefficient
 * column b - 1) then class b's (column a), in SV order, minus rho.
 * coef: the model's sv_coef (total_sv per column); kv[s * kv_stride]: the
 * point's kernel values; a0, na / b0, nb: the classes' first SV and count. */
RT_HD double svm_decision(const double *coef, long total_sv, const double *kv, long kv_stride,
			  int a, long a0, long na, int b, long b0, long nb, double rho)
{
	const double *c1 = coef + (long)(b - 1) * total_sv, *c2 = coef + (long)a * total_sv;
	double sum = 0.0;
	for (long s = a0; s < a0 + na; s++)
		sum += c1[s] * kv[s * kv_stride];
	for (long s = b0; s < b0 + nb; s++)
		sum += c2[s] * kv[s * kv_stride];
	return sum - rho;
}

/* One-vs-one voting over the k(k-1)/2 decision values dec[p * stride]
 * (pairs (a, b), a < b, in order; a wins a value > 0): the class with the
 * most votes, ties to the lower index. votes[c * vstride] (k <= 256 counts,
 * zeroed here) is the caller's room. */
RT_HD int svm_vote(const double *dec, long stride, int k, unsigned char *votes, int vstride)
{
	int best = 0;
	for (int c = 0; c < k; c++)
		votes[c * vstride] = 0;
	for (int a = 0, p = 0; a < k; a++)
		for (int b = a + 1; b < k; b++, p++)
			votes[(dec[(long)p * stride] > 0 ? a : b) * vstride]++;
	for (int c = 1; c < k; c++)
		if (votes[c * vstride] > votes[best * vstride])
			best = c;
	return best;
}

/* LIBSVM's WSS2 gain of pairing i with candidate t (the objective decrease,
 * -obj): grad_diff = gmax + y_t G_t (> 0 for a candidate), Q_it = y_i y_t
 * K_it, and the curvature QD_i + QD_t - 2 y_i Q_it y_t (tau if not > 0). */
RT_HD double svm_wss2_gain(double grad_diff, double QDi, double QDt, int yi, int yt, double Qit)
{
	double quad = QDi + QDt - 2.0 * yi * Qit * (yt > 0 ? 1 : -1);
	return (grad_diff * grad_diff) / (quad > 0 ? quad : 1e-12);
}

/* The analytic update of one SMO pair (LIBSVM's, with its clipping): a_i,
 * a_j in [0, C_i], [0, C_j] with labels y_i, y_j, gradients G_i, G_j,
 * diagonal kernel values QD_i, QD_j and Q_ij (y_i y_j K_ij). */
RT_HD void svm_update_pair(double *ai, double *aj, int yi, int yj, double Ci, double Cj,
			   double Gi, double Gj, double QDi, double QDj, double Qij)
{
	const double tau = 1e-12;
	if (yi != yj) {
		double quad = QDi + QDj + 2.0 * Qij;
		double delta = (-Gi - Gj) / (quad > 0 ? quad : tau);
		double diff = *ai - *aj;
		*ai += delta;
		*aj += delta;
		if (diff > 0 && *aj < 0) { *aj = 0; *ai = diff; }
		else if (diff <= 0 && *ai < 0) { *ai = 0; *aj = -diff; }
		if (diff > Ci - Cj && *ai > Ci) { *ai = Ci; *aj = Ci - diff; }
		else if (diff <= Ci - Cj && *aj > Cj) { *aj = Cj; *ai = Cj + diff; }
	} else {
		double quad = QDi + QDj - 2.0 * Qij;
		double delta = (Gi - Gj) / (quad > 0 ? quad : tau);
		double sum = *ai + *aj;
		*ai -= delta;
		*aj += delta;
		if (sum > Ci && *ai > Ci) { *ai = Ci; *aj = sum - Ci; }
		else if (sum <= Ci && *aj < 0) { *aj = 0; *ai = sum; }
		if (sum > Cj && *aj > Cj) { *aj = Cj; *ai = sum - Cj; }
		else if (sum <= Cj && *ai < 0) { *ai = 0; *aj = sum; }
	}
}

#endif
