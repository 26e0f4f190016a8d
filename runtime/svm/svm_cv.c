/* svm_cv.c: k-fold cross-validation of C-SVC as LIBSVM's
 * svm_cross_validation does it: the points grouped by class, each class
 * shuffled (Philox, not rand()), each class dealt out evenly over the folds
 * (stratified), then per fold a model trained on the other folds (in the
 * shuffled order) predicts the fold's points.
 *
 * Why jobs: a grid search runs the same folds for many (C, gamma); every
 * (parameter set, fold) pair is one independent training, so on the CPU
 * they all go to the thread pool at once (a solver inside a job runs its own
 * loops inline), which keeps every core busy where one small problem's
 * kernel rows could not. A few large jobs on the CPU run one after another,
 * each using the whole pool. On the GPU every (cell, fold) model trains at
 * once (svm_train_many: all their binary problems side by side). In a
 * `run` of several MPI ranks each rank runs its share of the jobs, dealt
 * by estimated cost (svm_shard.c's svm_cost_estimate and svm_shard_plan),
 * and the right answers are summed over the ranks. A rank's CPU jobs go to
 * the thread pool costliest first. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "comm.h"
#include "cpu.h"
#include "gpu.h"
#include "log.h"
#include "out.h"
#include "rng.h"
#include "svm_impl.h"

/* With fewer jobs than threads, jobs on more points than this run one after
 * another, each solver computing its kernel rows on the whole pool. */
#if !defined(SVM_CV_SMALL)
#define SVM_CV_SMALL 4096
#endif

/* The Philox stream of the fold shuffle (stream ids elsewhere are small). */
#define SVM_CV_STREAM 0x5c5f01d5ULL

/* The folds: fold f is order[start[f] .. start[f + 1]). */
typedef struct cv_plan {
	const svm_data *d;
	int folds;
	long *order;               /* [n] point indices, fold by fold */
	long *start;               /* [folds + 1] */
} cv_plan;

/* One training: parameter set `cell` without fold `fold` (mine 0: another
 * MPI rank's, svm_shard.c). */
typedef struct cv_job {
	int cell, fold, mine;
	long right;
	long iterations;           /* the model's SMO iterations (CPU; 0: one label) */
	double secs;               /* its training and prediction time (CPU) */
	rt_status st;
	rt_error err;
} cv_job;

typedef struct cv_run {
	const cv_plan *plan;
	const svm_params *p;
	cv_job *jobs;
	long *own, nown;           /* the jobs this rank runs */
	double *pred;              /* [n] for cell 0, or NULL */
} cv_run;

static void plan_free(cv_plan *pl)
{
	free(pl->order);
	free(pl->start);
}

/* Points of d grouped by class (order of first appearance), in grouped[],
 * with class c at grouped[cstart[c] .. cstart[c + 1]); returns the count of
 * classes or -1 when out of memory. Not stratify: all in one group. */
static int group_by_class(const svm_data *d, int stratify, long *grouped, long **cstart,
			  rt_error *err)
{
	int *cls = rt_malloc((size_t)d->n * sizeof *cls + 1, err), k = 0;
	int *label = rt_malloc((size_t)d->n * sizeof *label + 1, err);
	long *start = NULL;
	for (long i = 0; cls && label && i < d->n; i++) {
		int c = 0;
		while (c < k && stratify && label[c] != (int)d->y[i])
			c++;
		if (c == k)
			label[k++] = (int)d->y[i];
		cls[i] = c;
	}
	if (cls && label)
		start = rt_calloc((size_t)k + 2, sizeof *start, err);
	if (start) {
		for (long i = 0; i < d->n; i++)
			start[cls[i] + 2]++;
		for (int c = 0; c < k; c++)
			start[c + 2] += start[c + 1];
		for (long i = 0; i < d->n; i++)   /* start[c + 1] runs through class c */
			grouped[start[cls[i] + 1]++] = i;
	}
	free(cls);
	free(label);
	*cstart = start;
	return start ? k : -1;
}

/* Stratified, shuffled folds (LIBSVM's assignment, Philox's shuffle); as
 * LIBSVM, leave-one-out (folds = n) shuffles all points as one group. */
static rt_status plan_folds(const svm_data *d, int folds, uint64_t seed, cv_plan *pl,
			    rt_error *err)
{
	long *grouped = rt_malloc((size_t)d->n * sizeof *grouped + 1, err), *cstart = NULL;
	int k;
	rt_rng rng;
	memset(pl, 0, sizeof *pl);
	pl->d = d;
	pl->folds = folds;
	pl->order = rt_malloc((size_t)d->n * sizeof *pl->order + 1, err);
	pl->start = rt_calloc((size_t)folds + 1, sizeof *pl->start, err);
	if (!grouped || !pl->order || !pl->start || (k = group_by_class(d, folds < d->n, grouped, &cstart, err)) < 0) {
		free(grouped);
		plan_free(pl);
		return RT_ERR_SYSTEM;
	}
	rt_rng_init(&rng, seed, SVM_CV_STREAM);
	for (int c = 0; c < k; c++) {
		long *g = grouped + cstart[c], cnt = cstart[c + 1] - cstart[c];
		for (long i = 0; i < cnt; i++) {
			long j = i + (long)rt_rng_below(&rng, (uint32_t)(cnt - i)), t = g[i];
			g[i] = g[j];
			g[j] = t;
		}
	}
	for (int f = 0, at = 0; f < folds; f++) {
		pl->start[f] = at;
		for (int c = 0; c < k; c++) {
			long cnt = cstart[c + 1] - cstart[c];
			for (long j = f * cnt / folds; j < (f + 1) * cnt / folds; j++)
				pl->order[at++] = grouped[cstart[c] + j];
		}
	}
	pl->start[folds] = d->n;
	free(grouped);
	free(cstart);
	return RT_OK;
}

/* The points outside fold f, in plan order, as their own data set; rows
 * (may be NULL, else room for them) gets their indices in the plan's data. */
static rt_status fold_train_set(const cv_plan *pl, int f, svm_data *t, long *rows, rt_error *err)
{
	const svm_data *d = pl->d;
	long skip_from = pl->start[f], skip_to = pl->start[f + 1], k = 0;
	long *own = rt_malloc((size_t)(d->n - (skip_to - skip_from)) * sizeof *own + 1, err);
	rt_status st;
	if (!own)
		return RT_ERR_SYSTEM;
	for (long j = 0; j < d->n; j++) {
		if (j == skip_from)
			j = skip_to;
		if (j >= d->n)
			break;
		own[k++] = pl->order[j];
	}
	if (rows)
		memcpy(rows, own, (size_t)k * sizeof *rows);
	st = svm_data_rows(d, own, k, t, err);
	free(own);
	return st;
}

/* The training set's only label, or NAN when it has two or more (or none). */
static double only_label(const svm_data *t)
{
	for (long i = 1; i < t->n; i++)
		if ((int)t->y[i] != (int)t->y[0])
			return NAN;
	return t->n ? t->y[0] : NAN;
}

/* Predicts job's fold with model m (or the one label single when not NAN). */
static void predict_fold(cv_run *r, cv_job *job, const svm_model *m, double single)
{
	const cv_plan *pl = r->plan;
	for (long j = pl->start[job->fold]; j < pl->start[job->fold + 1]; j++) {
		long i = pl->order[j];
		double label = isnan(single) && m ? svm_predict_row(m, pl->d, i) : single;
		job->right += label == pl->d->y[i];
		if (r->pred && job->cell == 0)
			r->pred[i] = label;
	}
}

/* Trains job's model and predicts its fold (a fold whose training part has
 * one class predicts that class, as LIBSVM's one-class model does; one with
 * an empty training part, possible when every class is smaller than the
 * fold count, predicts NAN, counted wrong). */
static void run_job(cv_run *r, cv_job *job)
{
	const cv_plan *pl = r->plan;
	svm_data t;
	svm_model m;
	double single, t0 = rt_now();
	memset(&t, 0, sizeof t);
	memset(&m, 0, sizeof m);
	job->st = fold_train_set(pl, job->fold, &t, NULL, &job->err);
	single = job->st == RT_OK ? only_label(&t) : NAN;
	svm_params p = r->p[job->cell];
	p.ckpt_model += job->fold;   /* the (cell, fold) model's name in checkpoints */
	p.spread = 0;                /* the jobs are what the ranks share */
	if (job->st == RT_OK && isnan(single) && t.n > 0)
		job->st = svm_train(&t, &p, &m, &job->err);
	if (job->st == RT_OK)
		predict_fold(r, job, isnan(single) && t.n > 0 ? &m : NULL, single);
	job->iterations = m.iterations;
	job->secs = rt_now() - t0;
	if (getenv("EVOFORGE_SVM_CV_TRACE"))   /* the data svm_cost_estimate was fitted on */
		rt_info("svm: job log2c %g log2g %g fold %d: %ld points, %ld iterations, %.3f s",
			log2(p.C), log2(p.kernel.gamma), job->fold, t.n, job->iterations, job->secs);
	svm_model_free(&m);
	svm_data_free(&t);
}

/* The points of fold f, in plan order, as their own data set. */
static rt_status fold_test_set(const cv_plan *pl, int f, svm_data *q, rt_error *err)
{
	long from = pl->start[f], n = pl->start[f + 1] - from;
	return svm_data_rows(pl->d, pl->order + from, n, q, err);
}

/* The GPU's way to predict: per fold its points once, per job the fold
 * predicted on the GPU by the job's model (the CPU after one warning when
 * the GPU fails); a job without a model predicts its one label (or NAN). */
static rt_status predict_folds_gpu(cv_run *r, long njobs, const svm_model *m,
				   const double *single, rt_error *err)
{
	const cv_plan *pl = r->plan;
	svm_data q;
	double *pred = rt_malloc((size_t)pl->d->n * sizeof *pred + 1, err);
	rt_status st = pred ? RT_OK : RT_ERR_SYSTEM;
	gpu_context *keep = NULL;   /* the device's context alive from model to model */
	rt_error why;
	if (gpu_open(&why) == RT_OK)
		(void)gpu_context_open(0, &keep, &why);   /* without it: svm_predict_all says why */
	for (int f = 0; st == RT_OK && f < pl->folds; f++) {
		if ((st = fold_test_set(pl, f, &q, err)) != RT_OK)
			break;
		for (long j = f; st == RT_OK && j < njobs; j += pl->folds) {   /* jobs of fold f */
			cv_job *job = &r->jobs[j];
			if (!job->mine)
				continue;
			if (m[j].nr_class)
				st = svm_predict_all(&m[j], &q, SVM_PREDICT_GPU_OR_CPU, pred, NULL, err);
			for (long k = 0; st == RT_OK && k < q.n; k++) {
				double label = m[j].nr_class ? pred[k] : single[j];
				job->right += label == q.y[k];
				if (r->pred && job->cell == 0)
					r->pred[pl->order[pl->start[f] + k]] = label;
			}
		}
		svm_data_free(&q);
	}
	if (keep)
		gpu_context_close(keep);
	free(pred);
	return st;
}

/* The folds' training sets t[f] and where their points come from. */
static rt_status fold_sets(const cv_plan *pl, svm_data *t, svm_subset *from, rt_error *err)
{
	rt_status st = RT_OK;
	for (int f = 0; st == RT_OK && f < pl->folds; f++) {
		long *rows = rt_malloc((size_t)pl->d->n * sizeof *rows + 1, err);
		from[f] = (svm_subset){ pl->d, rows };
		st = rows ? fold_train_set(pl, f, &t[f], rows, err) : RT_ERR_SYSTEM;
	}
	return st;
}

/* The GPU's way: every fold's training set once, every (cell, fold) model
 * trained at once (svm_train_many), then the folds predicted (GPU too). */
static rt_status run_jobs_gpu(cv_run *r, long njobs, rt_error *err)
{
	const cv_plan *pl = r->plan;
	svm_data *t = rt_calloc((size_t)pl->folds, sizeof *t, err);
	svm_subset *fold_from = rt_calloc((size_t)pl->folds, sizeof *fold_from, err);
	svm_subset *from = rt_calloc((size_t)njobs, sizeof *from, err);
	svm_model *m = rt_calloc((size_t)njobs, sizeof *m, err), *tm = rt_calloc((size_t)njobs, sizeof *tm, err);
	const svm_data **td = rt_calloc((size_t)njobs, sizeof *td, err);
	svm_params *tp = rt_calloc((size_t)njobs, sizeof *tp, err);
	double *single = rt_calloc((size_t)njobs, sizeof *single, err);
	long ntrain = 0;
	rt_status st = t && fold_from && from && m && tm && td && tp && single ? RT_OK : RT_ERR_SYSTEM;
	if (st == RT_OK)
		st = fold_sets(pl, t, fold_from, err);
	for (long j = 0; st == RT_OK && j < njobs; j++) {
		const svm_data *fd = &t[r->jobs[j].fold];
		single[j] = only_label(fd);   /* NAN also for an empty set: counted wrong */
		if (isnan(single[j]) && fd->n > 0 && r->jobs[j].mine) {
			from[ntrain] = fold_from[r->jobs[j].fold];
			td[ntrain] = fd;
			tp[ntrain] = r->p[r->jobs[j].cell];
			tp[ntrain].spread = 0;   /* the jobs are what the ranks share */
			tp[ntrain++].ckpt_model += r->jobs[j].fold;
		}
	}
	double t0 = rt_now(), t1 = t0;
	if (st == RT_OK && (st = svm_train_many(td, from, tp, (int)ntrain, tm, err)) == RT_OK) {
		long most = 0, sum = 0;
		for (long j = 0, k = 0; j < njobs; j++)   /* the trained models in job order */
			if (isnan(single[j]) && t[r->jobs[j].fold].n > 0 && r->jobs[j].mine) {
				m[j] = tm[k++];
				most = m[j].iterations > most ? m[j].iterations : most;
				sum += m[j].iterations;
			}
		t1 = rt_now();
		st = predict_folds_gpu(r, njobs, m, single, err);
		rt_info("svm (GPU): %ld models trained in %.2f s (iterations: most %ld, all %ld), "
			"folds predicted in %.2f s", ntrain, t1 - t0, most, sum, rt_now() - t1);
		for (long j = 0; j < njobs; j++)
			svm_model_free(&m[j]);
	}
	for (int f = 0; t && f < pl->folds; f++)
		svm_data_free(&t[f]);
	for (int f = 0; fold_from && f < pl->folds; f++)
		free((void *)fold_from[f].rows);
	free(t);
	free(fold_from);
	free(from);
	free(m);
	free(tm);
	free(td);
	free(tp);
	free(single);
	return st;
}

static void job_body(void *ctx, long begin, long end, int thread)
{
	cv_run *r = ctx;
	(void)thread;
	for (long j = begin; j < end; j++)
		run_job(r, &r->jobs[r->own[j]]);
}

/* Several ranks: every job's right answers (0 from the ranks that did not
 * run it) summed, on every rank. */
static rt_status sum_rights(cv_run *r, long njobs, rt_error *err)
{
	long *right = rt_malloc((size_t)njobs * sizeof *right + 1, err);
	rt_status st = right ? RT_OK : RT_ERR_SYSTEM;
	for (long j = 0; right && j < njobs; j++)
		right[j] = r->jobs[j].right;
	if (st == RT_OK)
		st = svm_shard_sum_counts(right, njobs, err);
	for (long j = 0; st == RT_OK && j < njobs; j++)
		r->jobs[j].right = right[j];
	free(right);
	return st;
}

/* The ranks' shares in percent of all (at most 16 listed; more: the range). */
static void format_loads(rt_buf *b, const double *load, int size)
{
	double all = 0, most = 0, least = HUGE_VAL;
	for (int k = 0; k < size; k++) {
		all += load[k];
		most = fmax(most, load[k]);
		least = fmin(least, load[k]);
	}
	all = all > 0 ? all : 1;
	for (int k = 0; size <= 16 && k < size; k++)
		rt_buf_printf(b, "%s%.1f", k ? " " : "", 100 * load[k] / all);
	if (size > 16)
		rt_buf_printf(b, "%.1f .. %.1f", 100 * least / all, 100 * most / all);
	rt_buf_puts(b, " %");
}

/* Rank 0's line on the deal: each rank's estimated share, and round-robin's. */
static void say_plan(long njobs, const double *cost, const double *load, int by_cost_on)
{
	int size = rt_comm_size();
	double *rr = calloc((size_t)size, sizeof *rr);
	rt_buf b;
	if (!rr)
		return;
	for (long j = 0; j < njobs; j++)
		rr[j % size] += cost[j];
	memset(&b, 0, sizeof b);
	rt_buf_printf(&b, "svm: %ld models over %d ranks %s: estimated loads ", njobs, size,
		      by_cost_on ? "by estimated cost" : "round-robin (EVOFORGE_SVM_DEAL)");
	format_loads(&b, by_cost_on ? load : rr, size);
	if (by_cost_on) {
		rt_buf_puts(&b, " (round-robin's ");
		format_loads(&b, rr, size);
		rt_buf_puts(&b, ")");
	}
	if (!b.failed)
		rt_info("%s", b.data);
	rt_buf_free(&b);
	free(rr);
}

/* Marks this rank's jobs (all in one process; spread: svm_shard_plan's deal
 * by estimated cost, or job j to rank j mod size when EVOFORGE_SVM_DEAL is
 * round-robin, to compare) and lists them in r->own costliest first, so
 * that the thread pool (chunks handed out as threads come free) starts the
 * long ones first. */
static rt_status deal_jobs(cv_run *r, long njobs, const svm_params *spread, rt_error *err)
{
	int size = rt_comm_size(), active = svm_shard_active(spread);
	const char *how = getenv("EVOFORGE_SVM_DEAL");
	int by_cost_on = !how || strcmp(how, "round-robin") != 0;
	double *cost = rt_malloc((size_t)njobs * sizeof *cost + 1, err);
	double *load = rt_calloc((size_t)size, sizeof *load, err);
	int *owner = rt_calloc((size_t)njobs + 1, sizeof *owner, err);
	rt_status st = cost && load && owner ? RT_OK : RT_ERR_SYSTEM;
	for (long j = 0; st == RT_OK && j < njobs; j++)
		cost[j] = svm_cost_estimate(&r->p[r->jobs[j].cell]);
	if (st == RT_OK && active && by_cost_on)
		st = svm_shard_plan(cost, njobs, size, owner, load, err);
	for (long j = 0; st == RT_OK && active && !by_cost_on && j < njobs; j++)
		owner[j] = (int)(j % size);
	r->nown = 0;
	for (long j = 0; st == RT_OK && j < njobs; j++) {
		r->jobs[j].mine = !active || owner[j] == rt_comm_rank();
		if (r->jobs[j].mine)
			r->own[r->nown++] = j;
	}
	if (st == RT_OK)
		st = svm_cost_sort(cost, r->own, r->nown, err);
	if (st == RT_OK && active)
		say_plan(njobs, cost, load, by_cost_on);
	free(cost);
	free(load);
	free(owner);
	return st;
}

/* v over the ranks, listed (at most 16; more: the largest) into b. */
static rt_status list_ranks(rt_buf *b, double v, rt_error *err)
{
	int size = rt_comm_size();
	rt_status st = RT_OK;
	if (size > 16) {
		st = rt_comm_max_double(&v, err);
		rt_buf_printf(b, " at most %.2f", v);
	}
	for (int k = 0; st == RT_OK && size <= 16 && k < size; k++) {
		double t = k == rt_comm_rank() ? v : 0;
		if ((st = rt_comm_sum_double(&t, err)) == RT_OK)
			rt_buf_printf(b, " %.2f", t);
	}
	return st;
}

/* Rank 0's line on how long each rank's models took: wall time, and the
 * process's CPU time (all its threads), which other loads on a shared
 * machine disturb less. */
static rt_status say_times(double secs, double cpu_secs, rt_error *err)
{
	rt_buf b;
	rt_status st;
	memset(&b, 0, sizeof b);
	rt_buf_puts(&b, "svm: the ranks' models took");
	if ((st = list_ranks(&b, secs, err)) == RT_OK) {
		rt_buf_puts(&b, " s (CPU time");
		st = list_ranks(&b, cpu_secs, err);
	}
	if (st == RT_OK && !b.failed)
		rt_info("%s s)", b.data);
	rt_buf_free(&b);
	return st;
}

/* Runs every (cell, fold) job (this rank's share, when spread); acc[c] = right answers of cell c / n. */
static rt_status run_jobs(cv_run *r, int ncells, double *acc, rt_error *err)
{
	const cv_plan *pl = r->plan;
	long njobs = (long)ncells * pl->folds;
	rt_status st = RT_OK;
	/* several MPI ranks (a `run`): jobs dealt by estimated cost; pred stays whole */
	svm_params spread = r->p[0];
	spread.spread = spread.spread && !r->pred;
	r->jobs = rt_calloc((size_t)njobs, sizeof *r->jobs, err);
	r->own = rt_calloc((size_t)njobs + 1, sizeof *r->own, err);
	if (!r->jobs || !r->own) {
		free(r->jobs);
		free(r->own);
		return RT_ERR_SYSTEM;
	}
	for (long j = 0; j < njobs; j++) {
		r->jobs[j].cell = (int)(j / pl->folds);
		r->jobs[j].fold = (int)(j % pl->folds);
	}
	st = deal_jobs(r, njobs, &spread, err);
	double t0 = rt_now();
	clock_t c0 = clock();
	if (st == RT_OK && r->p[0].gpu)
		st = run_jobs_gpu(r, njobs, err);
	else if (st == RT_OK && r->nown < cpu_threads() && pl->d->n > SVM_CV_SMALL)
		job_body(r, 0, r->nown, 0);   /* one at a time; a CPU solver uses the pool itself */
	else if (st == RT_OK && r->nown > 0)
		st = cpu_parallel_for(r->nown, 1, job_body, r, err);
	double secs = rt_now() - t0, cpu_secs = (double)(clock() - c0) / CLOCKS_PER_SEC;
	for (long j = 0; st == RT_OK && j < njobs; j++)
		if (r->jobs[j].st != RT_OK) {
			*err = r->jobs[j].err;
			st = r->jobs[j].st;
		}
	if (st == RT_OK && svm_shard_active(&spread) && (st = sum_rights(r, njobs, err)) == RT_OK)
		st = say_times(secs, cpu_secs, err);
	for (int c = 0; st == RT_OK && c < ncells; c++) {
		long right = 0;
		for (int f = 0; f < pl->folds; f++)
			right += r->jobs[(long)c * pl->folds + f].right;
		acc[c] = pl->d->n ? (double)right / pl->d->n : NAN;
	}
	free(r->jobs);
	free(r->own);
	return st;
}

static rt_status cv(const svm_data *d, const svm_params *p, int ncells, int folds,
		    uint64_t seed, double *pred, double *acc, rt_error *err)
{
	cv_plan pl;
	cv_run r;
	rt_status st;
	if (folds < 2)
		return rt_fail(err, RT_ERR_INPUT, "cross-validation: expected 2 or more folds, got %d",
			       folds);
	if (d->n < 2)
		return rt_fail(err, RT_ERR_INPUT, "cross-validation: expected 2 or more points, got %ld",
			       d->n);
	if (folds > d->n) {
		rt_warn("svm: %d folds > %ld points: leave-one-out cross-validation instead", folds,
			d->n);
		folds = (int)d->n;
	}
	if ((st = plan_folds(d, folds, seed, &pl, err)) != RT_OK)
		return st;
	r = (cv_run){ .plan = &pl, .p = p, .pred = pred };
	st = run_jobs(&r, ncells, acc, err);
	plan_free(&pl);
	return st;
}

rt_status svm_cross_validation(const svm_data *d, const svm_params *p, int folds, uint64_t seed,
			       double *pred, double *accuracy, rt_error *err)
{
	return cv(d, p, 1, folds, seed, pred, accuracy, err);
}

rt_status svm_cv_many(const svm_data *d, const svm_params *p, int ncells, int folds,
		      uint64_t seed, double *acc, rt_error *err)
{
	return cv(d, p, ncells, folds, seed, NULL, acc, err);
}
