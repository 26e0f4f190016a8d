/* svm_train.c: a C-SVC model as LIBSVM's svm_train builds one: the classes
 * in order of first appearance (two classes labelled -1 and +1 are swapped so
 * that +1 comes first, as LIBSVM 3.17+ does), one binary problem per pair of
 * classes (class i's points as +1, class j's as -1, each in data order;
 * on the GPU all pairs are solved at once; in a `run` of several MPI ranks
 * each rank solves its share and rank 0 gathers them, svm_shard.c), the
 * support vectors of all pairs gathered by class, and prediction by one-vs-
 * one votes. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "comm.h"
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
				   Cp == Cn ? sum / (Cp * n) : NAN };
}

/* Solves pair q = (a, b) into bin. */
static rt_status solve_pair(const svm_data *d, const int *cls, const svm_params *p, svm_model *m,
			    int q, int a, int b, long *idx, signed char *y, svm_binary *bin,
			    svm_pair_stats *stats, rt_error *err)
{
	long n = pair_points(d, cls, a, b, idx, y);
	double Cp = p->C * class_weight(p, m->label[a]), Cn = p->C * class_weight(p, m->label[b]);
	rt_status st = svm_solve_binary(d, idx, y, n, p, Cp, Cn, q, bin, err);
	if (st == RT_OK)
		pair_done(bin, y, n, Cp, Cn, stats);
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
	rt_status st = group_classes(j->d, m, j->cls, err);
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
	long most = 0;
	for (long g = 0; g < total; g++)
		most = jobs[list[g].job].d->n > most ? jobs[list[g].job].d->n : most;
	long *idx = rt_malloc((size_t)most * sizeof *idx + 1, err);
	signed char *y = rt_malloc((size_t)most + 1, err);
	rt_status st = idx && y ? RT_OK : RT_ERR_SYSTEM;
	for (long g = 0; st == RT_OK && g < total; g++) {
		train_job *j = &jobs[list[g].job];
		if (svm_shard_owns(j->p, g))
			st = solve_pair(j->d, j->cls, j->p, j->m, list[g].q, list[g].a, list[g].b, idx,
					y, &j->bin[list[g].q], &j->m->pairs[list[g].q], err);
	}
	free(idx);
	free(y);
	return st;
}

/* This rank's pairs at once on the GPU (svm_gpu_solve_many), each with its
 * own points and signs. */
static rt_status solve_jobs_gpu(train_job *jobs, const pair_ref *list, long total, rt_error *err)
{
	int mine = 0;
	svm_gpu_problem *pr = rt_calloc((size_t)total + 1, sizeof *pr, err);
	long *at = rt_calloc((size_t)total + 1, sizeof *at, err);   /* pr[i] is list[at[i]] */
	rt_status st = pr && at ? RT_OK : RT_ERR_SYSTEM;
	for (long g = 0; st == RT_OK && g < total; g++) {
		train_job *j = &jobs[list[g].job];
		int a = list[g].a, b = list[g].b;
		if (!svm_shard_owns(j->p, g))
			continue;
		long *idx = rt_malloc((size_t)j->d->n * sizeof *idx + 1, err);
		signed char *y = rt_malloc((size_t)j->d->n + 1, err);
		at[mine] = g;
		pr[mine++] = (svm_gpu_problem){ j->d, j->p->kernel, idx, y, 0,
						j->p->C * class_weight(j->p, j->m->label[a]),
						j->p->C * class_weight(j->p, j->m->label[b]),
						&j->bin[list[g].q], j->from, j->p->ckpt_model, list[g].q };
		if (!idx || !y)
			st = RT_ERR_SYSTEM;
		else
			pr[mine - 1].n = pair_points(j->d, j->cls, a, b, idx, y);
	}
	/* the CPU's divergence checks, before and after (svm_solve_binary's) */
	for (int r = 0; st == RT_OK && r < mine; r++)
		st = svm_check_diagonal(pr[r].d, pr[r].idx, pr[r].n, &pr[r].kernel, err);
	if (st == RT_OK && mine > 0)
		st = svm_gpu_solve_many(jobs[0].p, pr, mine, err);
	for (int r = 0; st == RT_OK && r < mine; r++)
		st = svm_check_solved(pr[r].out, pr[r].n, err);
	for (int r = 0; st == RT_OK && r < mine; r++)
		pair_done(pr[r].out, pr[r].y, pr[r].n, pr[r].Cp, pr[r].Cn,
			  &jobs[list[at[r]].job].m->pairs[list[at[r]].q]);
	for (int i = 0; pr && i < mine; i++) {
		free((void *)pr[i].idx);
		free((void *)pr[i].y);
	}
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

rt_status svm_train_many(const svm_data *const *d, const svm_subset *from, const svm_params *p,
			 int count, svm_model *m, rt_error *err)
{
	train_job *jobs = rt_calloc((size_t)(count > 0 ? count : 1), sizeof *jobs, err);
	rt_status st = jobs ? RT_OK : RT_ERR_SYSTEM;
	int begun = 0, build = count == 0 || !svm_shard_active(&p[0]) || rt_comm_rank() == 0;
	for (; st == RT_OK && begun < count; begun++) {
		jobs[begun] = (train_job){ .d = d[begun], .p = &p[begun], .m = &m[begun] };
		if (from)
			jobs[begun].from = from[begun];
		st = job_begin(&jobs[begun], err);
	}
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
