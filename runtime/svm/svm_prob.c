/* svm_prob.c: probability estimates as LIBSVM 3.24's `svm-train -b 1` and
 * `svm-predict -b 1` make them.
 *
 * Classification (C-SVC, nu-SVC): for every one-vs-one pair, decision
 * values of the pair's points from an internal 5-fold cross-validation (the
 * pair's points in a random order, fold f the positions [f n / 5, (f + 1)
 * n / 5); each fold's model trained on the other positions, in their order,
 * with the pair's signs as labels and its bounds as class weights on C = 1),
 * then Platt's sigmoid P(y = 1 | f) = 1 / (1 + exp(A f + B)) fitted to them
 * by the Newton method with backtracking of Lin, Lin & Weng ("A note on
 * Platt's probabilistic outputs for support vector machines", 2007: targets
 * (N+ + 1) / (N+ + 2) and 1 / (N- + 2), a 1e-12 ridge on the Hessian, stop
 * when both gradient parts are under 1e-5, at most 100 iterations, the step
 * halved down to 1e-10 until the sufficient-decrease test of 1e-4 holds).
 * A fold whose training part holds one sign only gives its points the
 * decision value +1 or -1 (none at all: 0), untrained. The model keeps A
 * (probA) and B (probB) per pair.
 *
 * Prediction: each pair's r_ij = sigmoid(A f + B) clipped to [1e-7,
 * 1 - 1e-7], r_ji = 1 - r_ij; two classes: (r_01, r_10); more: the
 * pairwise coupling of Wu, Lin & Weng ("Probability estimates for
 * multi-class classification by pairwise coupling", JMLR 2004, their
 * second method: min p'Qp subject to sum p = 1, Q_tt = sum_{j != t} r_jt^2,
 * Q_tj = -r_jt r_tj, solved by their fixed-point sweep from p = 1/k until
 * max_t |(Qp)_t - p'Qp| < 0.005 / k, at most max(100, k) sweeps). The
 * label is the class of the largest probability (the first of equals),
 * which may differ from the one-vs-one vote.
 *
 * Regression (epsilon-SVR, nu-SVR): a 5-fold cross-validation over every
 * point (same random order and fold rule) gives residuals z = y - f(x);
 * sigma is the mean |z| over the points with |z| <= 5 sqrt(2) MAE (MAE the
 * mean |z| over all), the scale of the Laplace density e^(-|z|/sigma) /
 * (2 sigma) of the target around the prediction; the model keeps it as
 * its one probA. One-class: refused, as LIBSVM 3.24 refuses it.
 *
 * The random order. LIBSVM shuffles with the C library's rand(), never
 * seeded (so seed 1), i + rand() % (n - i) swapped into position i for
 * i = 0 .. n-1, pair after pair. To give the folds LIBSVM gives on the
 * usual glibc systems, svm_rand is glibc's rand() rebuilt (its additive
 * feedback generator, r_k = r_{k-3} + r_{k-31} mod 2^32 from a
 * Lehmer-seeded state, outputs r_k >> 1 after 310 discarded): our own
 * state, seeded 1 for every model trained, so a model's folds do not
 * depend on the platform's rand() or on anything else the process did. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "comm.h"
#include "log.h"
#include "svm_impl.h"

#define PROB_FOLDS 5
#define PROB_MIN 1e-7            /* pairwise probabilities clipped to [this, 1 - this] */

/* ---- glibc's rand(), rebuilt -------------------------------------------------- */

void svm_rand_seed(svm_rand *g, uint32_t seed)
{
	int32_t r[34];
	r[0] = seed ? (int32_t)seed : 1;
	for (int i = 1; i < 31; i++) {   /* 16807 r mod (2^31 - 1), Schrage's way */
		int32_t hi = r[i - 1] / 127773, lo = r[i - 1] % 127773;
		int32_t w = 16807 * lo - 2836 * hi;
		r[i] = w < 0 ? w + 2147483647 : w;
	}
	for (int i = 31; i < 34; i++)
		r[i] = r[i - 31];
	for (int i = 3; i < 34; i++)
		g->ring[i % 31] = (uint32_t)r[i];
	g->k = 34;
	for (int i = 0; i < 310; i++)
		(void)svm_rand_next(g);
}

int svm_rand_next(svm_rand *g)
{
	uint32_t v = g->ring[g->k % 31] + g->ring[(g->k - 3) % 31];   /* r_{k-31} + r_{k-3} */
	g->ring[g->k % 31] = v;
	g->k++;
	return (int)(v >> 1);
}

/* perm = 0 .. n-1 shuffled as LIBSVM shuffles (one draw per position). */
static void shuffle(svm_rand *g, long *perm, long n)
{
	for (long i = 0; i < n; i++)
		perm[i] = i;
	for (long i = 0; i < n; i++) {
		long j = i + svm_rand_next(g) % (n - i), t = perm[i];
		perm[i] = perm[j];
		perm[j] = t;
	}
}

/* ---- Platt's sigmoid ---------------------------------------------------------------- */

/* The negative log-likelihood of targets t at (A, B), each term in the
 * form that cannot overflow. */
static double sigmoid_nll(const double *f, const double *t, long n, double A, double B)
{
	double v = 0;
	for (long i = 0; i < n; i++) {
		double z = f[i] * A + B;
		v += z >= 0 ? t[i] * z + log(1 + exp(-z)) : (t[i] - 1) * z + log(1 + exp(z));
	}
	return v;
}

/* Gradient g[2] and Hessian h[3] (h11, h22, h21, the ridge added) at (A, B). */
static void sigmoid_derivatives(const double *f, const double *t, long n, double A, double B,
				double g[2], double h[3])
{
	h[0] = h[1] = 1e-12;
	h[2] = g[0] = g[1] = 0;
	for (long i = 0; i < n; i++) {
		double z = f[i] * A + B, p, q;
		if (z >= 0) {
			p = exp(-z) / (1.0 + exp(-z));
			q = 1.0 / (1.0 + exp(-z));
		} else {
			p = 1.0 / (1.0 + exp(z));
			q = exp(z) / (1.0 + exp(z));
		}
		double d2 = p * q, d1 = t[i] - p;
		h[0] += f[i] * f[i] * d2;
		h[1] += d2;
		h[2] += f[i] * d2;
		g[0] += f[i] * d1;
		g[1] += d1;
	}
}

rt_status svm_sigmoid_fit(const double *f, const signed char *y, long n, double *A, double *B,
			  rt_error *err)
{
	double *t = rt_malloc((size_t)n * sizeof *t + 1, err), pos = 0, neg = 0, fval;
	int iter;
	if (!t)
		return RT_ERR_SYSTEM;
	for (long i = 0; i < n; i++)
		*(y[i] > 0 ? &pos : &neg) += 1;
	for (long i = 0; i < n; i++)
		t[i] = y[i] > 0 ? (pos + 1) / (pos + 2) : 1 / (neg + 2);
	*A = 0;
	*B = log((neg + 1) / (pos + 1));
	fval = sigmoid_nll(f, t, n, *A, *B);
	for (iter = 0; iter < 100; iter++) {
		double g[2], h[3], step;
		sigmoid_derivatives(f, t, n, *A, *B, g, h);
		if (fabs(g[0]) < 1e-5 && fabs(g[1]) < 1e-5)
			break;
		double det = h[0] * h[1] - h[2] * h[2];
		double dA = -(h[1] * g[0] - h[2] * g[1]) / det, dB = -(-h[2] * g[0] + h[0] * g[1]) / det;
		double gd = g[0] * dA + g[1] * dB;
		for (step = 1; step >= 1e-10; step /= 2) {
			double nA = *A + step * dA, nB = *B + step * dB, nf = sigmoid_nll(f, t, n, nA, nB);
			if (nf < fval + 0.0001 * step * gd) {
				*A = nA;
				*B = nB;
				fval = nf;
				break;
			}
		}
		if (step < 1e-10) {
			rt_info("Line search fails in two-class probability estimates");
			break;
		}
	}
	if (iter >= 100)
		rt_info("Reaching maximal iterations in two-class probability estimates");
	free(t);
	return RT_OK;
}

double svm_sigmoid(double f, double A, double B)
{
	double z = f * A + B;
	return z >= 0 ? exp(-z) / (1.0 + exp(-z)) : 1.0 / (1 + exp(z));
}

/* ---- pairwise coupling ------------------------------------------------------------ */

/* p[k] from r[k * k] (r[i k + j]: P(class i | i or j)); Q[k * k] and Qp[k]
 * are room. Wu, Lin & Weng's second method (see the top). */
static void couple(int k, const double *r, double *p, double *Q, double *Qp)
{
	int max_iter = k > 100 ? k : 100, iter;
	double eps = 0.005 / k;
	for (int t = 0; t < k; t++) {
		p[t] = 1.0 / k;
		Q[t * k + t] = 0;
		for (int j = 0; j < t; j++) {
			Q[t * k + t] += r[j * k + t] * r[j * k + t];
			Q[t * k + j] = Q[j * k + t];
		}
		for (int j = t + 1; j < k; j++) {
			Q[t * k + t] += r[j * k + t] * r[j * k + t];
			Q[t * k + j] = -r[j * k + t] * r[t * k + j];
		}
	}
	for (iter = 0; iter < max_iter; iter++) {
		double pQp = 0, max_error = 0;
		for (int t = 0; t < k; t++) {
			Qp[t] = 0;
			for (int j = 0; j < k; j++)
				Qp[t] += Q[t * k + j] * p[j];
			pQp += p[t] * Qp[t];
		}
		for (int t = 0; t < k; t++)
			if (fabs(Qp[t] - pQp) > max_error)
				max_error = fabs(Qp[t] - pQp);
		if (max_error < eps)
			break;
		for (int t = 0; t < k; t++) {
			double diff = (-Qp[t] + pQp) / Q[t * k + t];
			p[t] += diff;
			pQp = (pQp + diff * (diff * Q[t * k + t] + 2 * Qp[t])) / (1 + diff) / (1 + diff);
			for (int j = 0; j < k; j++) {
				Qp[j] = (Qp[j] + diff * Q[t * k + j]) / (1 + diff);
				p[j] /= (1 + diff);
			}
		}
	}
	if (iter >= max_iter)
		rt_info("Exceeds max_iter in multiclass_prob");
}

int svm_prob_of(const svm_model *m, const double *dec, double *prob, double *work)
{
	int k = m->nr_class, best = 0;
	double *r = work, *Q = work + (size_t)k * k, *Qp = Q + (size_t)k * k;
	for (int i = 0, q = 0; i < k; i++)
		for (int j = i + 1; j < k; j++, q++) {
			double v = svm_sigmoid(dec[q], m->probA[q], m->probB[q]);
			v = v < PROB_MIN ? PROB_MIN : v > 1 - PROB_MIN ? 1 - PROB_MIN : v;
			r[i * k + j] = v;
			r[j * k + i] = 1 - v;
		}
	if (k == 2) {
		prob[0] = r[1];
		prob[1] = r[2];
	} else {
		couple(k, r, prob, Q, Qp);
	}
	for (int c = 1; c < k; c++)
		if (prob[c] > prob[best])
			best = c;
	return best;
}

int svm_has_prob(const svm_model *m)
{
	return SVM_IS_SVR(m->type) ? m->probA != NULL
	       : (m->type == SVM_C_SVC || m->type == SVM_NU_SVC) && m->probA && m->probB;
}

rt_status svm_predict_prob(const svm_model *m, const svm_data *d, int where, double *pred,
			   double *prob, rt_error *err)
{
	int k = m->nr_class, npairs = k * (k - 1) / 2;
	double *dec = rt_malloc((size_t)d->n * npairs * sizeof *dec + 1, err);
	double *work = rt_malloc(((size_t)2 * k * k + k) * sizeof *work, err);
	rt_status st = dec && work ? RT_OK : RT_ERR_SYSTEM;
	if (st == RT_OK && !svm_has_prob(m))
		st = rt_fail(err, RT_ERR_INPUT, "svm: the model has no probability information "
			     "(probA/probB; train it with svm-train -b 1 or [svm] probability = on)");
	if (st == RT_OK)
		st = svm_predict_values(m, d, where, pred, dec, err);
	for (long i = 0; st == RT_OK && i < d->n; i++)
		pred[i] = m->label[svm_prob_of(m, dec + (size_t)i * npairs, prob + (size_t)i * k, work)];
	free(dec);
	free(work);
	return st;
}

/* ---- training: the cross-validations ------------------------------------------- */

/* One fold model to train: its data (rows of the root) and where its
 * held-out points' values go. */
typedef struct prob_fold {
	svm_data train, held;      /* training part; held-out part */
	long *rows;                /* [train.n] the training part's rows of the root */
	long *held_at;             /* [held.n] each held-out point's position in the problem */
	double fixed;              /* no model (one sign only): every held-out value; else NAN */
} prob_fold;

static void fold_free(prob_fold *f)
{
	svm_data_free(&f->train);
	svm_data_free(&f->held);
	free(f->rows);
	free(f->held_at);
	memset(f, 0, sizeof *f);
}

/* Fold `fold` of a problem of n points (rows idx[] of d, signs y[] or
 * NULL for a regression) in the order perm. */
static rt_status fold_make(const svm_data *d, const long *idx, const signed char *y, long n,
			   const long *perm, int fold, prob_fold *f, rt_error *err)
{
	long begin = fold * n / PROB_FOLDS, end = (fold + 1) * n / PROB_FOLDS, t = 0, pos = 0, neg = 0;
	long *held = rt_malloc((size_t)(end - begin) * sizeof *held + 1, err);
	rt_status st;
	memset(f, 0, sizeof *f);
	f->fixed = NAN;
	f->rows = rt_malloc((size_t)(n - (end - begin)) * sizeof *f->rows + 1, err);
	f->held_at = rt_malloc((size_t)(end - begin) * sizeof *f->held_at + 1, err);
	if (!held || !f->rows || !f->held_at) {
		free(held);
		return RT_ERR_SYSTEM;
	}
	for (long j = 0; j < n; j++)
		if (j < begin || j >= end) {
			f->rows[t++] = idx[perm[j]];
			if (y)
				*(y[perm[j]] > 0 ? &pos : &neg) += 1;
		}
	for (long j = begin; j < end; j++) {
		f->held_at[j - begin] = perm[j];
		held[j - begin] = idx[perm[j]];
	}
	st = svm_data_rows(d, held, end - begin, &f->held, err);
	free(held);
	if (y && (pos == 0 || neg == 0))
		f->fixed = pos ? 1 : neg ? -1 : 0;
	if (st == RT_OK && isnan(f->fixed))
		st = svm_data_rows(d, f->rows, t, &f->train, err);
	for (long j = 0, i = 0; st == RT_OK && y && isnan(f->fixed) && j < n; j++)
		if (j < begin || j >= end)
			f->train.y[i++] = y[perm[j]];   /* the pair's signs are the labels */
	return st;
}

/* The decision value (classification: times the model's first label, so
 * that it leans to +1) or the prediction (regression) of every held-out
 * point of f into out[held_at[i]]. */
static rt_status fold_values(const svm_model *m, const prob_fold *f, int regression, int gpu,
			     double *out, rt_error *err)
{
	double *pred = rt_malloc((size_t)f->held.n * sizeof *pred + 1, err);
	double *dec = rt_malloc((size_t)f->held.n * sizeof *dec + 1, err);
	rt_status st = pred && dec ? RT_OK : RT_ERR_SYSTEM;
	if (st == RT_OK && f->held.n > 0)
		st = svm_predict_values(m, &f->held, gpu ? SVM_PREDICT_GPU_OR_CPU : SVM_PREDICT_CPU,
					pred, dec, err);
	for (long i = 0; st == RT_OK && i < f->held.n; i++)
		out[f->held_at[i]] = regression ? pred[i] : dec[i] * m->label[0];
	free(pred);
	free(dec);
	return st;
}

/* One problem to cross-validate: its points and signs, and where the
 * held-out values go. */
typedef struct prob_task {
	long *idx;
	signed char *y;            /* NULL: regression */
	long n;
	double Cp, Cn;
	double *value;             /* [n] each point's held-out value */
	prob_fold fold[PROB_FOLDS];
} prob_task;

/* The fold models of tasks[0..count) trained at once (svm_train_many), then
 * their held-out points' values; p the fold models' parameters but for the
 * weights (the tasks' Cp, Cn on labels +1, -1). */
static rt_status train_folds(const svm_data *d, prob_task *tasks, int count, const svm_params *p,
			     rt_error *err)
{
	int total = count * PROB_FOLDS, nm = 0;
	const svm_data **td = rt_calloc((size_t)total, sizeof *td, err);
	svm_subset *from = rt_calloc((size_t)total, sizeof *from, err);
	svm_params *tp = rt_calloc((size_t)total, sizeof *tp, err);
	svm_model *tm = rt_calloc((size_t)total, sizeof *tm, err);
	double *wl = rt_calloc((size_t)total * 4, sizeof *wl, err);
	int *owner = rt_calloc((size_t)total, sizeof *owner, err);
	rt_status st = td && from && tp && tm && wl && owner ? RT_OK : RT_ERR_SYSTEM;
	for (int t = 0; st == RT_OK && t < count; t++)
		for (int f = 0; f < PROB_FOLDS; f++) {
			prob_fold *pf = &tasks[t].fold[f];
			if (!isnan(pf->fixed)) {
				for (long i = 0; i < pf->held.n; i++)
					tasks[t].value[pf->held_at[i]] = pf->fixed;
				continue;
			}
			double *w = wl + 4 * nm;
			tp[nm] = *p;
			if (tasks[t].y) {   /* LIBSVM: C = 1, weights Cp on +1 and Cn on -1 */
				w[0] = 1;
				w[1] = -1;
				w[2] = tasks[t].Cp;
				w[3] = tasks[t].Cn;
				tp[nm].C = 1;
				tp[nm].nweights = 2;
				tp[nm].weight_label = w;
				tp[nm].weight = w + 2;
			}
			td[nm] = &pf->train;
			from[nm] = (svm_subset){ d, pf->rows };
			owner[nm++] = t * PROB_FOLDS + f;
		}
	if (st == RT_OK && nm > 0)
		st = svm_train_many(td, from, tp, nm, tm, err);
	/* a spread run: rank 0 alone has the models (and writes the model) */
	int here = st == RT_OK && !(svm_shard_active(p) && rt_comm_rank() != 0);
	for (int j = 0; here && st == RT_OK && j < nm; j++) {
		prob_task *t = &tasks[owner[j] / PROB_FOLDS];
		st = fold_values(&tm[j], &t->fold[owner[j] % PROB_FOLDS], t->y == NULL, p->gpu,
				 t->value, err);
	}
	for (int j = 0; st == RT_OK && j < nm; j++)
		svm_model_free(&tm[j]);
	free(td);
	free(from);
	free(tp);
	free(tm);
	free(wl);
	free(owner);
	return st;
}

static void task_free(prob_task *t)
{
	for (int f = 0; f < PROB_FOLDS; f++)
		fold_free(&t->fold[f]);
	free(t->idx);
	free(t->y);
	free(t->value);
	memset(t, 0, sizeof *t);
}

/* The problem of pair (a, b) (classes of cls; a's points +1, then b's -1,
 * each in data order) shuffled by g into its folds. */
static rt_status task_make(const svm_data *d, const int *cls, int a, int b, const svm_params *p,
			   const svm_model *m, svm_rand *g, prob_task *t, rt_error *err)
{
	long n = 0, *perm;
	rt_status st = RT_OK;
	memset(t, 0, sizeof *t);
	for (long i = 0; i < d->n; i++)
		n += cls ? cls[i] == a || cls[i] == b : 1;
	t->idx = rt_malloc((size_t)n * sizeof *t->idx + 1, err);
	t->value = rt_malloc((size_t)n * sizeof *t->value + 1, err);
	t->y = cls ? rt_malloc((size_t)n + 1, err) : NULL;
	perm = rt_malloc((size_t)n * sizeof *perm + 1, err);
	if (!t->idx || !t->value || !perm || (cls && !t->y)) {
		free(perm);
		return RT_ERR_SYSTEM;
	}
	t->n = 0;
	for (int side = 0; side < (cls ? 2 : 1); side++)
		for (long i = 0; i < d->n; i++)
			if (!cls || cls[i] == (side ? b : a)) {
				if (cls)
					t->y[t->n] = side ? -1 : 1;
				t->idx[t->n++] = i;
			}
	if (cls) {
		t->Cp = p->C * svm_class_weight(p, m->label[a]);
		t->Cn = p->C * svm_class_weight(p, m->label[b]);
	}
	shuffle(g, perm, n);
	for (int f = 0; st == RT_OK && f < PROB_FOLDS; f++)
		st = fold_make(d, t->idx, t->y, n, perm, f, &t->fold[f], err);
	free(perm);
	return st;
}

/* The fold models' parameters: p's, without probabilities, checkpoints or history. */
static svm_params fold_params(const svm_params *p)
{
	svm_params q = *p;
	q.probability = 0;
	q.ckpt = NULL;
	q.history = 0;
	return q;
}

/* Regression: sigma from the residuals of a 5-fold cross-validation. */
static rt_status fit_regression(const svm_data *d, const svm_params *p, svm_model *m,
				svm_rand *g, rt_error *err)
{
	prob_task t;
	svm_params q = fold_params(p);
	rt_status st = task_make(d, NULL, 0, 0, p, m, g, &t, err);
	if (st == RT_OK)
		st = train_folds(d, &t, 1, &q, err);
	if (st == RT_OK && !(svm_shard_active(p) && rt_comm_rank() != 0)) {
		double mae = 0, sum = 0, std;
		long out = 0;
		for (long i = 0; i < t.n; i++)
			mae += fabs(t.value[i] = d->y[i] - t.value[i]);
		mae /= (double)t.n;
		std = sqrt(2 * mae * mae);
		for (long i = 0; i < t.n; i++)
			if (fabs(t.value[i]) > 5 * std)
				out++;
			else
				sum += fabs(t.value[i]);
		m->probA = rt_malloc(sizeof *m->probA, err);
		if (!m->probA)
			st = RT_ERR_SYSTEM;
		else
			m->probA[0] = sum / (double)(t.n - out);
		if (st == RT_OK)
			rt_info("Prob. model for test data: target value = predicted value + z,\n"
				"z: Laplace distribution e^(-|z|/sigma)/(2sigma),sigma= %g", m->probA[0]);
	}
	task_free(&t);
	return st;
}

/* Pairs' points per fold batch: about this many rows of copies at once. */
#define PROB_BATCH_ROWS(n) ((n) * 8 > 1000000 ? (n) * 8 : 1000000)

/* Classification: A and B of every pair, pairs in LIBSVM's order, their
 * folds trained in batches (all at once when they fit PROB_BATCH_ROWS). */
static rt_status fit_classes(const svm_data *d, const int *cls, const svm_params *p,
			     svm_model *m, svm_rand *g, rt_error *err)
{
	int k = m->nr_class, npairs = k * (k - 1) / 2, first = 0, q = 0;
	prob_task *tasks = rt_calloc((size_t)npairs, sizeof *tasks, err);
	svm_params fp = fold_params(p);
	int here = !(svm_shard_active(p) && rt_comm_rank() != 0);
	rt_status st = tasks ? RT_OK : RT_ERR_SYSTEM;
	m->probA = rt_calloc((size_t)npairs, sizeof *m->probA, err);
	m->probB = rt_calloc((size_t)npairs, sizeof *m->probB, err);
	int *pa = rt_malloc((size_t)npairs * 2 * sizeof *pa, err), *pb = pa + npairs;
	if (!m->probA || !m->probB || !pa)
		st = RT_ERR_SYSTEM;
	for (int a = 0; st == RT_OK && a < k; a++)
		for (int b = a + 1; b < k; b++, q++) {
			pa[q] = a;
			pb[q] = b;
		}
	q = 0;
	while (st == RT_OK && first < npairs) {
		long rows = 0;
		int end = first;
		for (; st == RT_OK && end < npairs && (end == first || rows < PROB_BATCH_ROWS(d->n)); end++) {
			st = task_make(d, cls, pa[end], pb[end], p, m, g, &tasks[end], err);
			rows += tasks[end].n * (PROB_FOLDS - 1);
		}
		if (st == RT_OK)
			st = train_folds(d, tasks + first, end - first, &fp, err);
		for (q = first; here && st == RT_OK && q < end; q++)
			st = svm_sigmoid_fit(tasks[q].value, tasks[q].y, tasks[q].n, &m->probA[q],
					     &m->probB[q], err);
		for (q = first; q < end; q++)
			task_free(&tasks[q]);
		first = end;
	}
	for (q = first; tasks && q < npairs; q++)
		task_free(&tasks[q]);
	free(tasks);
	free(pa);
	return st;
}

rt_status svm_prob_fit(const svm_data *d, const int *cls, const svm_params *p, svm_model *m,
		       rt_error *err)
{
	svm_rand g;
	svm_rand_seed(&g, 1);
	if (p->type == SVM_ONE_CLASS)
		return rt_fail(err, RT_ERR_INPUT, "svm: probability estimates of one_class are "
			       "not supported (as LIBSVM 3.24: 'one-class SVM probability output not "
			       "supported yet'); train without -b 1 / [svm] probability");
	if (SVM_IS_SVR(p->type))
		return fit_regression(d, p, m, &g, err);
	return fit_classes(d, cls, p, m, &g, err);
}
