/* svm_core.h: the kernel functions of kind `svm` (LIBSVM's definitions),
 * shared by the CPU solver and, later, the generated CUDA kernels:
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

/* K(u, v) for dense vectors of n features; sq_u, sq_v: |u|^2, |v|^2 (RBF). */
RT_HD double svm_kernel(const svm_kernel_params *k, const float *u, const float *v, int n,
			double sq_u, double sq_v)
{
	double dot = 0.0;
	for (int i = 0; i < n; i++)
		dot += (double)u[i] * (double)v[i];
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
