/* svm_train.c: a C-SVC model as LIBSVM's svm_train builds one: the classes
 * in order of first appearance (two classes labelled -1 and +1 are swapped so
 * that +1 comes first, as LIBSVM 3.17+ does), one binary problem per pair of
 * classes (class i's points as +1, class j's as -1, each in data order;
 * on the GPU all pairs are solved at once; in a `run` of several MPI ranks
 * each rank solves its share and rank 0 gathers them, svm_shard.c), the
 * support vectors of all pairs gathered by class, and prediction by one-vs-
 * one votes. nu-SVC's pairs are the same, each LIBSVM's nu-problem (Chang &
 * Lin 2011, 2.2: bounds 1, e'a = nu n, the start filling each sign's nu n / 2
 * in data order), its coefficients, rho and objective scaled by 1/r after.
 * One-class and the regressions have one problem over every point:
 * one-class's (bounds 1, e'a = nu n, the first nu n points at 1), epsilon-
 * SVR's and nu-SVR's of 2n variables (a+ with y = +1, then a- with y = -1,
 * linear terms eps -/+ z, nu-SVR's start min(C, C nu n / 2 left) on both);
 * a point's coefficient is a+ - a-. With p->probability, svm_prob.c's
 * cross-validations fit the probability model before the pairs are solved. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "comm.h"
#include "cpu.h"
#include "svm_batch.h"
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

const char *const svm_type_names[SVM_TYPE_COUNT] = { "c_svc", "nu_svc", "one_class",
						      "epsilon_svr", "nu_svr" };

/* nu-SVC: nu (n_a + n_b) / 2 <= min(n_a, n_b) for every pair of classes
 * (else the problem has no feasible point; LIBSVM's check). */
static rt_status nu_feasible(const svm_data *d, const svm_model *m, const int *cls, double nu,
			     rt_error *err)
{
	long *per = rt_calloc((size_t)m->nr_class, sizeof *per, err);
	rt_status st = per ? RT_OK : RT_ERR_SYSTEM;
	for (long i = 0; per && i < d->n; i++)
		per[cls[i]]++;
	for (int a = 0; st == RT_OK && a < m->nr_class; a++)
		for (int b = a + 1; st == RT_OK && b < m->nr_class; b++)
			if (nu * (double)(per[a] + per[b]) / 2 > (double)(per[a] < per[b] ? per[a] : per[b]))
				st = rt_fail(err, RT_ERR_INPUT, "svm: nu-SVC: nu %g is infeasible for "
					     "classes %d (%ld points) and %d (%ld points): nu (n1 + n2) / 2 "
					     "must be at most min(n1, n2); lower nu", nu, m->label[a],
					     per[a], m->label[b], per[b]);
	free(per);
	return st;
}

/* One-class and the regressions: one "pair", every point in class 0. */
static rt_status single_class(const svm_data *d, svm_model *m, int *cls, rt_error *err)
{
	if (d->n < 1)
		return rt_fail(err, RT_ERR_INPUT, "svm: the training data has no points");
	m->nr_class = 2;
	if (!(m->label = rt_malloc(2 * sizeof *m->label, err)))
		return RT_ERR_SYSTEM;
	m->label[0] = 1;
	m->label[1] = -1;
	memset(cls, 0, (size_t)d->n * sizeof *cls);
	return RT_OK;
}

double svm_class_weight(const svm_params *p, int label)
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

/* The support vectors (class by class, data order) into m, dense or
 * sparse as d is. */
static rt_status copy_svs(const svm_data *d, const int *cls, const char *nonzero, int k,
			  svm_model *m, rt_error *err)
{
	long q = 0, *rows = rt_malloc((size_t)(m->total_sv ? m->total_sv : 1) * sizeof *rows, err);
	svm_data svs;
	if (!rows)
		return RT_ERR_SYSTEM;
	for (int c = 0; c < k; c++)
		for (long i = 0; i < d->n; i++)
			if (cls[i] == c && nonzero[i])
				rows[q++] = i;
	rt_status st = svm_data_rows(d, rows, m->total_sv, &svs, err);
	free(rows);
	if (st != RT_OK)
		return st;
	m->sparse = d->sparse;
	m->sv = svs.x;
	m->svs = svs.csr;
	free(svs.y);
	free(svs.sq);
	return RT_OK;
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
	m->sv_coef = rt_calloc((size_t)(k - 1) * (m->total_sv ? m->total_sv : 1), sizeof(double), err);
	if (!m->sv_coef || copy_svs(d, cls, nonzero, k, m, err) != RT_OK)
		goto oom;
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

/* A solved pair: alpha into the coefficients y_i alpha_i, and what
 * svm-train prints of it. */
static void pair_done(svm_binary *bin, const signed char *y, long n, double Cp, double Cn,
		      svm_pair_stats *stats)
{
	double sum = 0;
	for (long i = 0; i < n; i++) {
		sum += bin->alpha[i];
		bin->alpha[i] *= y[i];
	}
	*stats = (svm_pair_stats){ bin->iterations, bin->nsv, bin->nbsv,
				   Cp == Cn ? sum / (Cp * n) : NAN, NAN };
}

/* One problem of a model as the solvers take it: its variables' points,
 * signs and bounds, and (types other than C-SVC) the linear term and start. */
typedef struct pair_task {
	long *idx;
	signed char *y;
	long n;                    /* variables (the regressions: 2 per point) */
	double Cp, Cn;
	double *lin, *alpha0;
	svm_extra ex;
	const svm_extra *exp;      /* &ex, or NULL for C-SVC */
} pair_task;

static void task_free(pair_task *t)
{
	free(t->idx);
	free(t->y);
	free(t->lin);
	free(t->alpha0);
	memset(t, 0, sizeof *t);
}

/* nu-SVC's start: each sign's share nu n / 2 filled in order, at most 1 each. */
static void nu_svc_start(pair_task *t, double nu)
{
	double left[2] = { nu * (double)t->n / 2, nu * (double)t->n / 2 };
	for (long i = 0; i < t->n; i++) {
		double *l = &left[t->y[i] > 0 ? 0 : 1];
		t->alpha0[i] = *l < 1.0 ? *l : 1.0;
		*l -= t->alpha0[i];
	}
}

/* One-class, epsilon-SVR and nu-SVR over every point of d. */
static void single_task(const svm_data *d, const svm_params *p, pair_task *t)
{
	long n = d->n, two = SVM_IS_SVR(p->type);
	double left = p->C * p->nu * (double)n / 2;
	long full = (long)(p->nu * (double)n);
	t->n = two ? 2 * n : n;
	t->Cp = t->Cn = p->type == SVM_ONE_CLASS ? 1.0 : p->C;
	for (long i = 0; i < n; i++) {
		t->idx[i] = i;
		t->y[i] = 1;
		if (p->type == SVM_ONE_CLASS) {
			t->alpha0[i] = i < full ? 1.0 : i == full ? p->nu * (double)n - (double)full : 0;
			continue;
		}
		t->idx[i + n] = i;
		t->y[i + n] = -1;
		t->lin[i] = (p->type == SVM_EPSILON_SVR ? p->p_eps : 0) - d->y[i];
		t->lin[i + n] = (p->type == SVM_EPSILON_SVR ? p->p_eps : 0) + d->y[i];
		if (p->type == SVM_NU_SVR) {
			t->alpha0[i] = t->alpha0[i + n] = left < p->C ? left : p->C;
			left -= t->alpha0[i];
		}
	}
}

/* The problem of pair (a, b) of model m (one-class, SVR: the model's one). */
static rt_status task_make(const svm_data *d, const int *cls, const svm_params *p,
			   const svm_model *m, int a, int b, pair_task *t, rt_error *err)
{
	size_t vars = (size_t)d->n * (SVM_IS_SVR(p->type) ? 2 : 1) + 1;
	memset(t, 0, sizeof *t);
	t->idx = rt_malloc(vars * sizeof *t->idx, err);
	t->y = rt_malloc(vars, err);
	if (p->type != SVM_C_SVC) {
		t->lin = rt_calloc(vars, sizeof *t->lin, err);
		t->alpha0 = rt_calloc(vars, sizeof *t->alpha0, err);
	}
	if (!t->idx || !t->y || (p->type != SVM_C_SVC && (!t->lin || !t->alpha0))) {
		task_free(t);
		return RT_ERR_SYSTEM;
	}
	if (SVM_IS_SINGLE(p->type)) {
		single_task(d, p, t);
	} else {
		t->n = pair_points(d, cls, a, b, t->idx, t->y);
		t->Cp = p->type == SVM_NU_SVC ? 1.0 : p->C * svm_class_weight(p, m->label[a]);
		t->Cn = p->type == SVM_NU_SVC ? 1.0 : p->C * svm_class_weight(p, m->label[b]);
		if (p->type == SVM_NU_SVC)
			nu_svc_start(t, p->nu);
	}
	if (p->type != SVM_C_SVC) {   /* one-class, nu-SVC: the linear term stays 0 */
		t->ex = (svm_extra){ t->lin, t->alpha0, p->type == SVM_NU_SVC || p->type == SVM_NU_SVR };
		t->exp = &t->ex;
	}
	return RT_OK;
}

/* A solved problem of another type than C-SVC: the coefficients per point
 * (nu-SVC: y a / r, rho / r, obj / r^2; the regressions: a+ - a-, the
 * first n of alpha), and what svm-train prints of it. */
static void task_done(svm_binary *bin, const pair_task *t, const svm_params *p,
		      svm_pair_stats *stats)
{
	long n = SVM_IS_SVR(p->type) ? t->n / 2 : t->n;
	double sum = 0;
	*stats = (svm_pair_stats){ bin->iterations, bin->nsv, bin->nbsv, NAN, NAN };
	if (p->type == SVM_NU_SVC) {
		for (long i = 0; i < n; i++)
			bin->alpha[i] *= t->y[i] / bin->r;
		bin->rho /= bin->r;
		bin->obj /= bin->r * bin->r;
		stats->extra = 1 / bin->r;
	}
	if (!SVM_IS_SVR(p->type))
		return;
	stats->nsv = stats->nbsv = 0;
	for (long i = 0; i < n; i++) {
		bin->alpha[i] -= bin->alpha[i + n];
		sum += fabs(bin->alpha[i]);
		stats->nsv += bin->alpha[i] != 0;
		stats->nbsv += fabs(bin->alpha[i]) >= p->C;
	}
	bin->nsv = stats->nsv;
	bin->nbsv = stats->nbsv;
	if (p->type == SVM_EPSILON_SVR)
		stats->nu = sum / (p->C * (double)n);
	else
		stats->extra = -bin->r;
}

/* A solved problem: its coefficients and what svm-train prints of it. */
static void problem_done(svm_binary *bin, const pair_task *t, const svm_params *p,
			 svm_pair_stats *stats)
{
	if (p->type == SVM_C_SVC) {
		pair_done(bin, t->y, t->n, t->Cp, t->Cn, stats);
	} else {
		task_done(bin, t, p, stats);
	}
}

/* Solves pair q = (a, b) into bin. */
static rt_status solve_pair(const svm_data *d, const int *cls, const svm_params *p, svm_model *m,
			    int q, int a, int b, svm_binary *bin, svm_pair_stats *stats, rt_error *err)
{
	pair_task t;
	rt_status st = task_make(d, cls, p, m, a, b, &t, err);
	if (st == RT_OK && !p->gpu && svm_batch_wanted(p, t.n, t.exp))
		st = svm_batch_solve(d, t.idx, t.y, t.n, p, t.Cp, t.Cn, t.exp, q, bin, err);
	else if (st == RT_OK)
		st = svm_solve_general(d, t.idx, t.y, t.n, p, t.Cp, t.Cn, t.exp, q, bin, err);
	if (st == RT_OK)
		problem_done(bin, &t, p, stats);
	task_free(&t);
	return st;
}

/* One model in training: its data, classes and binary problems. */
typedef struct train_job {
	const svm_data *d;
	svm_subset from;
	const svm_params *p;
	svm_params with_pairs;     /* p->history: p with history = the pair count (p points here) */
	svm_model *m;
	int *cls, npairs;
	svm_binary *bin;
} train_job;

/* The model's classes and room for its pairs' results. */
static rt_status job_begin(train_job *j, rt_error *err)
{
	svm_model *m = j->m;
	memset(m, 0, sizeof *m);
	m->kernel = j->p->kernel;
	j->cls = rt_malloc((size_t)j->d->n * sizeof *j->cls + 1, err);
	if (!j->cls)
		return RT_ERR_SYSTEM;
	m->type = j->p->type;
	rt_status st = SVM_IS_SINGLE(m->type) ? single_class(j->d, m, j->cls, err)
		       : group_classes(j->d, m, j->cls, err);
	if (st == RT_OK && m->type == SVM_NU_SVC)
		st = nu_feasible(j->d, m, j->cls, j->p->nu, err);
	if (st != RT_OK)
		return st;
	j->npairs = m->nr_class * (m->nr_class - 1) / 2;
	if (j->p->history) {
		j->with_pairs = *j->p;
		j->with_pairs.history = j->npairs;
		j->p = &j->with_pairs;
	}
	j->bin = rt_calloc((size_t)j->npairs, sizeof *j->bin, err);
	m->rho = rt_calloc((size_t)j->npairs, sizeof *m->rho, err);
	m->obj = rt_calloc((size_t)j->npairs, sizeof *m->obj, err);
	m->pairs = rt_calloc((size_t)j->npairs, sizeof *m->pairs, err);
	if (j->p->history && !(m->hist = rt_calloc((size_t)j->npairs, sizeof *m->hist, err)))
		return RT_ERR_SYSTEM;
	return j->bin && m->rho && m->obj && m->pairs ? RT_OK : RT_ERR_SYSTEM;
}

/* The pairs' results into the model, then the support vectors gathered;
 * a rank other than 0 of a spread run has only its own pairs: no model. */
static rt_status job_finish(train_job *j, rt_status st, int build, rt_error *err)
{
	for (int q = 0; st == RT_OK && build && q < j->npairs; q++) {
		j->m->rho[q] = j->bin[q].rho;
		j->m->obj[q] = j->bin[q].obj;
		j->m->iterations += j->bin[q].iterations;
		if (j->m->hist) {   /* the pair's history moves to the model */
			j->m->hist[q] = j->bin[q].hist;
			memset(&j->bin[q].hist, 0, sizeof j->bin[q].hist);
		}
	}
	if (st == RT_OK && build)
		st = assemble(j->d, j->cls, j->bin, j->m, err);
	for (int q = 0; j->bin && q < j->npairs; q++)
		svm_binary_free(&j->bin[q]);
	free(j->bin);
	free(j->cls);
	if (st != RT_OK || !build)
		svm_model_free(j->m);
	return st;
}

/* Binary problem g of a training: pair q = (a, b) of model `job`, n points. */
typedef struct pair_ref {
	int job, q, a, b;
	long n;
} pair_ref;

/* Every pair of every model in order (model, then a, then b): the list of
 * binary problems that the MPI ranks share. */
static pair_ref *list_pairs(const train_job *jobs, int count, long *total, rt_error *err)
{
	long t = 0;
	for (int k = 0; k < count; k++)
		t += jobs[k].npairs;
	pair_ref *list = rt_calloc((size_t)t + 1, sizeof *list, err);
	*total = t;
	for (int k = 0, g = 0; list && k < count; k++) {
		const train_job *j = &jobs[k];
		long *per = rt_calloc((size_t)j->m->nr_class, sizeof *per, err);
		if (!per) {
			free(list);
			return NULL;
		}
		for (long i = 0; i < j->d->n; i++)
			per[j->cls[i]]++;
		for (int a = 0, q = 0; a < j->m->nr_class; a++)
			for (int b = a + 1; b < j->m->nr_class; b++, q++, g++)
				list[g] = (pair_ref){ k, q, a, b, per[a] + per[b] };
		free(per);
	}
	return list;
}

/* This rank's pairs, one after another on the CPU. */
static rt_status solve_jobs_cpu(train_job *jobs, const pair_ref *list, long total, rt_error *err)
{
	rt_status st = RT_OK;
	for (long g = 0; st == RT_OK && g < total; g++) {
		train_job *j = &jobs[list[g].job];
		if (svm_shard_owns(j->p, g))
			st = solve_pair(j->d, j->cls, j->p, j->m, list[g].q, list[g].a, list[g].b,
					&j->bin[list[g].q], &j->m->pairs[list[g].q], err);
	}
	return st;
}

/* The GPU problems pr[r] (pair list[at[r]]): those svm_batch_wanted picks
 * one by one by the batched solver, the others at once by SMO
 * (svm_gpu_solve_many). */
static rt_status solve_gpu_problems(train_job *jobs, const pair_ref *list, const long *at,
				    svm_gpu_problem *pr, int count, rt_error *err)
{
	svm_gpu_problem *smo = rt_calloc((size_t)count + 1, sizeof *smo, err);
	int nsmo = 0;
	rt_status st = smo ? RT_OK : RT_ERR_SYSTEM;
	for (int r = 0; st == RT_OK && r < count; r++) {
		const svm_params *p = jobs[list[at[r]].job].p;
		if (svm_batch_wanted(p, pr[r].n, pr[r].ex))
			st = svm_gpu_batch_solve(pr[r].d, pr[r].idx, pr[r].y, pr[r].n, p, pr[r].Cp,
						 pr[r].Cn, pr[r].ex, pr[r].pair, pr[r].out, err);
		else
			smo[nsmo++] = pr[r];
	}
	if (st == RT_OK && nsmo > 0)
		st = svm_gpu_solve_many(jobs[0].p, smo, nsmo, err);
	free(smo);
	return st;
}

/* This rank's pairs at once on the GPU (svm_gpu_solve_many, or one by one
 * by the batched solver), each with its own points and signs. */
static rt_status solve_jobs_gpu(train_job *jobs, const pair_ref *list, long total, rt_error *err)
{
	int mine = 0;
	svm_gpu_problem *pr = rt_calloc((size_t)total + 1, sizeof *pr, err);
	pair_task *task = rt_calloc((size_t)total + 1, sizeof *task, err);
	long *at = rt_calloc((size_t)total + 1, sizeof *at, err);   /* pr[i] is list[at[i]] */
	rt_status st = pr && at && task ? RT_OK : RT_ERR_SYSTEM;
	for (long g = 0; st == RT_OK && g < total; g++) {
		train_job *j = &jobs[list[g].job];
		pair_task *t = &task[mine];
		if (!svm_shard_owns(j->p, g))
			continue;
		if ((st = task_make(j->d, j->cls, j->p, j->m, list[g].a, list[g].b, t, err)) != RT_OK)
			break;
		at[mine] = g;
		pr[mine++] = (svm_gpu_problem){ j->d, j->p->kernel, t->idx, t->y, t->n, t->Cp, t->Cn,
						&j->bin[list[g].q], j->from, j->p->ckpt_model,
						list[g].q, t->exp };
	}
	/* the CPU's divergence checks, before and after (svm_solve_binary's) */
	for (int r = 0; st == RT_OK && r < mine; r++)
		st = svm_check_diagonal(pr[r].d, pr[r].idx, pr[r].n, &pr[r].kernel, err);
	if (st == RT_OK && mine > 0)
		st = solve_gpu_problems(jobs, list, at, pr, mine, err);
	for (int r = 0; st == RT_OK && r < mine; r++)
		st = svm_check_solved(pr[r].out, pr[r].n, err);
	for (int r = 0; st == RT_OK && r < mine; r++)
		problem_done(pr[r].out, &task[r], jobs[list[at[r]].job].p,
			     &jobs[list[at[r]].job].m->pairs[list[at[r]].q]);
	for (int i = 0; task && i < mine; i++)
		task_free(&task[i]);
	free(task);
	free(pr);
	free(at);
	return st;
}

/* Several ranks: rank 0 gets every pair's result from the rank that solved it. */
static rt_status gather_pairs(train_job *jobs, const pair_ref *list, long total, rt_error *err)
{
	svm_binary **bin = rt_calloc((size_t)total + 1, sizeof *bin, err);
	svm_pair_stats **stats = rt_calloc((size_t)total + 1, sizeof *stats, err);
	long *n = rt_calloc((size_t)total + 1, sizeof *n, err);
	rt_status st = bin && stats && n ? RT_OK : RT_ERR_SYSTEM;
	for (long g = 0; st == RT_OK && g < total; g++) {
		bin[g] = &jobs[list[g].job].bin[list[g].q];
		stats[g] = &jobs[list[g].job].m->pairs[list[g].q];
		n[g] = list[g].n;
	}
	if (st == RT_OK)
		st = svm_shard_gather_pairs(bin, stats, n, total, jobs[0].p->history, err);
	free(bin);
	free(stats);
	free(n);
	return st;
}

/* Every pair of the models solved (on this rank's share of them when spread). */
static rt_status solve_jobs(train_job *jobs, int count, rt_error *err)
{
	long total;
	pair_ref *list = list_pairs(jobs, count, &total, err);
	rt_status st = list ? RT_OK : RT_ERR_SYSTEM;
	if (st == RT_OK)
		st = jobs[0].p->gpu ? solve_jobs_gpu(jobs, list, total, err)
				    : solve_jobs_cpu(jobs, list, total, err);
	if (st == RT_OK && svm_shard_active(jobs[0].p))
		st = gather_pairs(jobs, list, total, err);
	free(list);
	return st;
}

/* The solver keys: solver one of enum svm_solver, batch_size 0 or even in
 * [4, SVM_BATCH_MAX_Q], batch not with the nu forms. */
static rt_status solver_check(const svm_params *p, const char *who, rt_error *err)
{
	if (p->solver < SVM_SOLVER_SMO || p->solver > SVM_SOLVER_AUTO)
		return rt_fail(err, RT_ERR_INPUT, "%s: solver %d: expected 0 (smo), 1 (batch) or 2 "
			       "(auto)", who, p->solver);
	if (p->batch_size != 0 && (p->batch_size < 4 || p->batch_size > SVM_BATCH_MAX_Q ||
				   p->batch_size % 2))
		return rt_fail(err, RT_ERR_INPUT, "%s: batch size %ld: expected 0 (auto) or an even "
			       "number from 4 to %d", who, p->batch_size, SVM_BATCH_MAX_Q);
	if (p->solver == SVM_SOLVER_BATCH && (p->type == SVM_NU_SVC || p->type == SVM_NU_SVR))
		return rt_fail(err, RT_ERR_INPUT, "%s: solver = batch does not take the nu forms "
			       "(-s 1, -s 4); use solver = smo", who);
	return RT_OK;
}

rt_status svm_params_check(const svm_params *p, const char *who, rt_error *err)
{
	int t = p->type;
	if (t < 0 || t >= SVM_TYPE_COUNT)
		return rt_fail(err, RT_ERR_INPUT, "%s: svm type %d: expected 0 (c_svc), 1 (nu_svc), "
			       "2 (one_class), 3 (epsilon_svr) or 4 (nu_svr)", who, t);
	if ((t == SVM_NU_SVC || t == SVM_ONE_CLASS || t == SVM_NU_SVR) &&
	    !(p->nu > 0 && p->nu <= 1))
		return rt_fail(err, RT_ERR_INPUT, "%s: nu %g: expected a number in (0, 1] for %s", who,
			       p->nu, svm_type_names[t]);
	if (t == SVM_EPSILON_SVR && !(p->p_eps >= 0))
		return rt_fail(err, RT_ERR_INPUT, "%s: epsilon (-p) %g: expected a number >= 0", who,
			       p->p_eps);
	if (p->probability && t == SVM_ONE_CLASS)
		return rt_fail(err, RT_ERR_INPUT, "%s: probability estimates (-b 1) of one_class "
			       "are not supported, as in LIBSVM 3.24 ('one-class SVM probability output "
			       "not supported yet'); expected -b 0 for -s 2", who);
	if ((t == SVM_C_SVC || SVM_IS_SVR(t)) && !(p->C > 0))
		return rt_fail(err, RT_ERR_INPUT, "%s: C %g: expected a number > 0", who, p->C);
	return solver_check(p, who, err);
}

rt_status svm_train_many(const svm_data *const *d, const svm_subset *from, const svm_params *p,
			 int count, svm_model *m, rt_error *err)
{
	train_job *jobs = rt_calloc((size_t)(count > 0 ? count : 1), sizeof *jobs, err);
	rt_status st = jobs ? RT_OK : RT_ERR_SYSTEM;
	int begun = 0, build = count == 0 || !svm_shard_active(&p[0]) || rt_comm_rank() == 0;
	for (int k = 0; st == RT_OK && k < count; k++)
		st = svm_params_check(&p[k], "svm", err);
	for (; st == RT_OK && begun < count; begun++) {
		jobs[begun] = (train_job){ .d = d[begun], .p = &p[begun], .m = &m[begun] };
		if (from)
			jobs[begun].from = from[begun];
		st = job_begin(&jobs[begun], err);
	}
	/* probabilities first (their fold models' trainings), as LIBSVM's svm_train */
	for (int k = 0; st == RT_OK && k < count; k++)
		if (jobs[k].p->probability)
			st = svm_prob_fit(jobs[k].d, jobs[k].cls, jobs[k].p, jobs[k].m, err);
	if (st == RT_OK && count > 0)
		st = solve_jobs(jobs, count, err);
	for (int k = 0; k < begun; k++) {
		rt_status done = job_finish(&jobs[k], st, build, err);
		st = st == RT_OK ? done : st;
	}
	free(jobs);
	return st;
}

rt_status svm_train(const svm_data *d, const svm_params *p, svm_model *m, rt_error *err)
{
	return svm_train_many(&d, NULL, p, 1, m, err);
}

rt_status svm_data_alloc(svm_data *d, long n, int nfeat, rt_error *err)
{
	memset(d, 0, sizeof *d);
	d->n = n;
	d->nfeat = nfeat;
	d->x = rt_malloc((size_t)n * nfeat * sizeof *d->x + 1, err);
	d->y = rt_malloc((size_t)n * sizeof *d->y + 1, err);
	if (!d->x || !d->y) {
		svm_data_free(d);
		return RT_ERR_SYSTEM;
	}
	return RT_OK;
}

rt_status svm_data_from_table(const rt_table *t, svm_data *d, rt_error *err)
{
	if (svm_data_alloc(d, (long)t->nrows, t->ncols, err) != RT_OK)
		return RT_ERR_SYSTEM;
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
	free(d->sq);
	free(d->csr.ptr);
	free(d->csr.col);
	free(d->csr.val);
	d->x = NULL;
	d->y = NULL;
	d->sq = NULL;
	memset(&d->csr, 0, sizeof d->csr);
}
