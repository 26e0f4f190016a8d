/* svm_train.c: a C-SVC model as LIBSVM's svm_train builds one: the classes
 * in order of first appearance (two classes labelled -1 and +1 are swapped so
 * that +1 comes first, as LIBSVM 3.17+ does), one binary problem per pair of
 * classes (class i's points as +1, class j's as -1, each in data order), the
 * support vectors of all pairs gathered by class, and prediction by one-vs-
 * one votes. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cpu.h"
#include "svm_impl.h"

/* The classes: labels in order of first appearance, and each point's class. */
static rt_status group_classes(const svm_data *d, svm_model *m, int *cls, rt_error *err)
{
	int cap = 16;
	m->label = rt_malloc((size_t)cap * sizeof *m->label, err);
	if (!m->label)
		return RT_ERR_SYSTEM;
	m->nr_class = 0;
	for (long i = 0; i < d->n; i++) {
		int lab = (int)d->y[i], c = 0;
		while (c < m->nr_class && m->label[c] != lab)
			c++;
		if (c == m->nr_class) {
			if (c == cap) {
				int *grown = realloc(m->label, (size_t)(cap *= 2) * sizeof *grown);
				if (!grown)
					return rt_fail(err, RT_ERR_SYSTEM, "out of memory grouping classes");
				m->label = grown;
			}
			m->label[m->nr_class++] = lab;
		}
		cls[i] = c;
	}
	if (m->nr_class == 2 && m->label[0] == -1 && m->label[1] == 1) {
		m->label[0] = 1;
		m->label[1] = -1;
		for (long i = 0; i < d->n; i++)
			cls[i] = 1 - cls[i];
	}
	if (m->nr_class < 2)
		return rt_fail(err, RT_ERR_INPUT, "svm: the training data has one class (%d); "
			       "C-SVC needs two or more", m->nr_class ? m->label[0] : 0);
	return RT_OK;
}

/* The weight of class c (-wi), 1 if not given. */
static double class_weight(const svm_params *p, int label)
{
	for (int w = 0; w < p->nweights; w++)
		if ((int)p->weight_label[w] == label)
			return p->weight[w];
	return 1.0;
}

/* Points of classes a and b (a's first, data order) and their +1/-1 signs. */
static long pair_points(const svm_data *d, const int *cls, int a, int b, long *idx,
			signed char *y)
{
	long n = 0;
	for (long i = 0; i < d->n; i++)
		if (cls[i] == a) { idx[n] = i; y[n++] = 1; }
	for (long i = 0; i < d->n; i++)
		if (cls[i] == b) { idx[n] = i; y[n++] = -1; }
	return n;
}

/* Gathers the pairs' nonzero coefficients into the model (LIBSVM's layout). */
static rt_status assemble(const svm_data *d, const int *cls, svm_binary *bin, svm_model *m,
			  rt_error *err)
{
	int k = m->nr_class;
	long *nz_start = NULL, q;
	char *nonzero = rt_calloc((size_t)d->n, 1, err);
	m->nsv = rt_calloc((size_t)k, sizeof *m->nsv, err);
	if (!nonzero || !m->nsv)
		goto oom;
	/* nonzero[i]: point i (data index) has a coefficient in some pair */
	for (int a = 0, p = 0; a < k; a++)
		for (int b = a + 1; b < k; b++, p++) {
			long t = 0;
			for (int side = 0; side < 2; side++)
				for (long i = 0; i < d->n; i++)
					if (cls[i] == (side ? b : a) && bin[p].alpha[t++] != 0)
						nonzero[i] = 1;
		}
	for (long i = 0; i < d->n; i++)
		m->nsv[cls[i]] += nonzero[i];
	nz_start = rt_calloc((size_t)k + 1, sizeof *nz_start, err);
	if (!nz_start)
		goto oom;
	for (int c = 0; c < k; c++)
		nz_start[c + 1] = nz_start[c] + m->nsv[c];
	m->total_sv = nz_start[k];
	m->nfeat = d->nfeat;
	m->sv = rt_malloc((size_t)(m->total_sv ? m->total_sv : 1) * d->nfeat * sizeof(float), err);
	m->sv_coef = rt_calloc((size_t)(k - 1) * (m->total_sv ? m->total_sv : 1), sizeof(double), err);
	if (!m->sv || !m->sv_coef)
		goto oom;
	for (int c = 0; c < k; c++) {
		q = nz_start[c];
		for (long i = 0; i < d->n; i++)
			if (cls[i] == c && nonzero[i])
				memcpy(m->sv + (size_t)q++ * d->nfeat, d->x + (size_t)i * d->nfeat,
				       (size_t)d->nfeat * sizeof(float));
	}
	for (int a = 0, p = 0; a < k; a++)
		for (int b = a + 1; b < k; b++, p++) {
			long t = 0;
			for (int side = 0; side < 2; side++) {
				int c = side ? b : a, col = side ? a : b - 1;
				q = nz_start[c];
				for (long i = 0; i < d->n; i++)
					if (cls[i] == c) {
						if (nonzero[i])
							m->sv_coef[(size_t)col * m->total_sv + q++] = bin[p].alpha[t];
						t++;
					}
			}
		}
	free(nz_start);
	free(nonzero);
	return RT_OK;
oom:
	free(nz_start);
	free(nonzero);
	return RT_ERR_SYSTEM;
}

/* Solves pair p = (a, b) into bin (coefficients y_i alpha_i). */
static rt_status solve_pair(const svm_data *d, const int *cls, const svm_params *p, svm_model *m,
			    int a, int b, long *idx, signed char *y, svm_binary *bin, rt_error *err)
{
	long n = pair_points(d, cls, a, b, idx, y);
	double Cp = p->C * class_weight(p, m->label[a]), Cn = p->C * class_weight(p, m->label[b]);
	rt_status st = svm_solve_binary(d, idx, y, n, p, Cp, Cn, bin, err);
	if (st != RT_OK)
		return st;
	for (long i = 0; i < n; i++)
		bin->alpha[i] *= y[i];
	return RT_OK;
}

rt_status svm_train(const svm_data *d, const svm_params *p, svm_model *m, rt_error *err)
{
	int *cls = rt_malloc((size_t)d->n * sizeof *cls, err), npairs;
	long *idx = rt_malloc((size_t)d->n * sizeof *idx, err);
	signed char *y = rt_malloc((size_t)d->n, err);
	svm_binary *bin = NULL;
	rt_status st = cls && idx && y ? RT_OK : RT_ERR_SYSTEM;
	memset(m, 0, sizeof *m);
	m->kernel = p->kernel;
	if (st == RT_OK)
		st = group_classes(d, m, cls, err);
	npairs = m->nr_class * (m->nr_class - 1) / 2;
	if (st == RT_OK) {
		bin = rt_calloc((size_t)npairs, sizeof *bin, err);
		m->rho = rt_calloc((size_t)npairs, sizeof *m->rho, err);
		m->obj = rt_calloc((size_t)npairs, sizeof *m->obj, err);
		st = bin && m->rho && m->obj ? RT_OK : RT_ERR_SYSTEM;
	}
	for (int a = 0, q = 0; st == RT_OK && a < m->nr_class; a++)
		for (int b = a + 1; st == RT_OK && b < m->nr_class; b++, q++) {
			st = solve_pair(d, cls, p, m, a, b, idx, y, &bin[q], err);
			m->rho[q] = bin[q].rho;
			m->obj[q] = bin[q].obj;
			m->iterations += bin[q].iterations;
		}
	if (st == RT_OK)
		st = assemble(d, cls, bin, m, err);
	for (int q = 0; bin && q < npairs; q++)
		svm_binary_free(&bin[q]);
	free(bin);
	free(cls);
	free(idx);
	free(y);
	if (st != RT_OK)
		svm_model_free(m);
	return st;
}

double svm_predict(const svm_model *m, const float *x, int nfeat)
{
	int k = m->nr_class, best = 0, n = nfeat < m->nfeat ? nfeat : m->nfeat;
	long start = 0;
	double sqx = 0, *kv = malloc((size_t)(m->total_sv ? m->total_sv : 1) * sizeof *kv);
	int votes[256] = { 0 };
	long cstart[257];
	if (!kv || k > 256)
		return NAN;
	for (int f = 0; f < n; f++)
		sqx += (double)x[f] * x[f];
	for (long s = 0; s < m->total_sv; s++) {
		const float *v = m->sv + (size_t)s * m->nfeat;
		double sqv = 0;
		for (int f = 0; f < m->nfeat; f++)
			sqv += (double)v[f] * v[f];
		kv[s] = svm_kernel(&m->kernel, x, v, n, sqx, sqv);
	}
	for (int c = 0; c < k; c++) {
		cstart[c] = start;
		start += m->nsv[c];
	}
	for (int a = 0, p = 0; a < k; a++)
		for (int b = a + 1; b < k; b++, p++) {
			double sum = 0;
			const double *c1 = m->sv_coef + (size_t)(b - 1) * m->total_sv;
			const double *c2 = m->sv_coef + (size_t)a * m->total_sv;
			for (long s = 0; s < m->nsv[a]; s++)
				sum += c1[cstart[a] + s] * kv[cstart[a] + s];
			for (long s = 0; s < m->nsv[b]; s++)
				sum += c2[cstart[b] + s] * kv[cstart[b] + s];
			votes[sum - m->rho[p] > 0 ? a : b]++;
		}
	for (int c = 1; c < k; c++)
		if (votes[c] > votes[best])
			best = c;
	free(kv);
	return m->label[best];
}

rt_status svm_data_from_table(const rt_table *t, svm_data *d, rt_error *err)
{
	d->n = (long)t->nrows;
	d->nfeat = t->ncols;
	d->x = rt_malloc((size_t)d->n * d->nfeat * sizeof *d->x + 1, err);
	d->y = rt_malloc((size_t)d->n * sizeof *d->y + 1, err);
	if (!d->x || !d->y) {
		svm_data_free(d);
		return RT_ERR_SYSTEM;
	}
	for (long r = 0; r < d->n; r++) {
		for (int c = 0; c < d->nfeat; c++)
			d->x[(size_t)r * d->nfeat + c] = rt_table_at(t, c, (size_t)r);
		d->y[r] = t->label[r];
	}
	return RT_OK;
}

void svm_data_free(svm_data *d)
{
	free(d->x);
	free(d->y);
	d->x = NULL;
	d->y = NULL;
}

typedef struct accuracy_ctx {
	const svm_model *m;
	const svm_data *d;
	double *pred;
} accuracy_ctx;

static void accuracy_body(void *ctx, long begin, long end, int thread)
{
	accuracy_ctx *a = ctx;
	(void)thread;
	for (long i = begin; i < end; i++)
		a->pred[i] = svm_predict(a->m, a->d->x + (size_t)i * a->d->nfeat, a->d->nfeat);
}

rt_status svm_accuracy(const svm_model *m, const svm_data *d, double *pred, double *acc,
		       rt_error *err)
{
	accuracy_ctx a = { m, d, pred };
	long right = 0;
	rt_status st = cpu_parallel_for(d->n, 64, accuracy_body, &a, err);
	if (st != RT_OK)
		return st;
	for (long i = 0; i < d->n; i++)
		right += pred[i] == d->y[i];
	*acc = d->n ? (double)right / d->n : NAN;
	return RT_OK;
}
