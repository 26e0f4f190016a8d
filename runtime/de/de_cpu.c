/* de_cpu.c: kind `de` on the CPU: the generation step of templates/de/de_core.h
 * over populations held row by row (individual i, component j at
 * X[i * dim + j]), problems run in parallel with the thread pool of cpu.h.
 *
 * The semantics are exactly the GPU's: same draws, same trial, the objective
 * evaluated component by component in the same order, selection f(trial) <=
 * f(target), best = lowest index of the minimum. Two schedules give the same
 * results: with at least as many problems as threads each problem runs a
 * stretch of generations on one thread; with fewer, each generation is
 * split over (problem, block of individuals) items, then finished serially.
 *
 * With function = callback (the caller's objective, objective.h) a problem's
 * generation makes every trial first, hands the whole trial population to
 * the callback in one call (doubles, row-major), then selects: the same
 * draws and selection, so a callback that computes a built-in function with
 * the same float operations gives the same bits. It runs on the calling
 * thread, problem after problem: the callback is the caller's code (Python's
 * included) and is never called from the pool's workers. Every strategy
 * works so: the adaptive and mixed ones through their steps split in three
 * (trials, values, selection; de_adapt.c, de_mixed.c), CoDE handing over its
 * three trials an individual (3 NP rows). de_host_eval, the conversion and
 * the call, is the GPU path's too (de_gpu.c). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kprep.h"
#include "cpu.h"
#include "de_ckpt.h"
#include "de_impl.h"
#include "log.h"
#include "signals.h"

#define DE_CPU_BLOCK 32   /* individuals per work item when splitting a generation */

struct de_cpu {
	const de_job *job;
	int D, NP;
	long P;
	float *pop;        /* [P][2][NP][D] */
	float *fit;        /* [P][2][NP] */
	int *cur;          /* [P] current buffer */
	de_state *st;      /* [P] */
	float *hist;       /* [P][hist_len] or NULL */
	int *next;         /* [P] generation each problem steps to (split schedule) */
	int hist_len;
	long gen_end;      /* for the work items */
	/* adaptive strategies (de_adapt.c), else NULL: per problem */
	double *ad;        /* [P][ad_len] state */
	float *arch;       /* [P][a_cap][D] archive */
	double *work;      /* [P][work_len] scratch */
	int *iwork;        /* [P][iwork_len] scratch */
	/* function = callback: the population handed to it and its answers */
	double *hx;        /* [rows][D] (rows: host_rows) */
	double *hf;        /* [rows] */
	float *ht, *hft;   /* CoDE: [NP][3][D] trials and [NP][3] their values */
};

static int host_rows(const de_job *job);

static float *pop_buf(const de_cpu *c, long p, int b)
{
	return c->pop + ((size_t)p * 2 + (size_t)b) * (size_t)c->NP * c->D;
}

static float *fit_buf(const de_cpu *c, long p, int b)
{
	return c->fit + ((size_t)p * 2 + (size_t)b) * (size_t)c->NP;
}

/* The adaptive strategies' buffers of problem p. */
static double *ad_of(const de_cpu *c, long p)
{
	return c->ad + (size_t)p * de_adapt_ad_len(c->job);
}

static float *arch_of(const de_cpu *c, long p)
{
	return c->arch + (size_t)p * c->job->params.a_cap * c->D;
}

static rt_status alloc_adaptive(de_cpu *c, rt_error *err)
{
	const de_job *job = c->job;
	size_t P = (size_t)c->P;
	c->ad = rt_calloc(P * de_adapt_ad_len(job), sizeof *c->ad, err);
	c->arch = c->ad ? rt_calloc(P * job->params.a_cap * c->D, sizeof *c->arch, err) : NULL;
	c->work = c->arch ? rt_malloc(P * de_adapt_work_len(job) * sizeof *c->work, err) : NULL;
	c->iwork = c->work ? rt_malloc(P * de_adapt_iwork_len(job) * sizeof *c->iwork, err) : NULL;
	return c->iwork ? RT_OK : RT_ERR_SYSTEM;
}

/* Generation g of an adaptive strategy for problem p (de_adapt.c). */
static void adapt_step(de_cpu *c, long p, uint32_t g)
{
	int cur = c->cur[p];
	de_adapt_cpu_step(c->job, p, g, pop_buf(c, p, cur), fit_buf(c, p, cur), pop_buf(c, p, 1 - cur),
			  fit_buf(c, p, 1 - cur), ad_of(c, p), arch_of(c, p),
			  c->work + (size_t)p * de_adapt_work_len(c->job),
			  c->iwork + (size_t)p * de_adapt_iwork_len(c->job));
}

rt_status de_cpu_create(const de_job *job, de_cpu **out, rt_error *err)
{
	de_cpu *c = rt_calloc(1, sizeof *c, err);
	if (!c)
		return RT_ERR_SYSTEM;
	c->job = job;
	c->D = job->dim;
	c->NP = job->np;
	c->P = job->problems;
	c->hist_len = de_job_hist_len(job);
	c->pop = rt_malloc((size_t)c->P * 2 * c->NP * c->D * sizeof *c->pop, err);
	c->fit = c->pop ? rt_malloc((size_t)c->P * 2 * c->NP * sizeof *c->fit, err) : NULL;
	c->cur = c->fit ? rt_calloc((size_t)c->P, sizeof *c->cur, err) : NULL;
	c->st = c->cur ? rt_calloc((size_t)c->P, sizeof *c->st, err) : NULL;
	c->next = c->st ? rt_calloc((size_t)c->P, sizeof *c->next, err) : NULL;
	if (c->st && c->hist_len > 0)
		c->hist = rt_malloc((size_t)c->P * c->hist_len * sizeof *c->hist, err);
	if (c->next && job->function == DE_FN_CALLBACK) {
		size_t rows = (size_t)host_rows(job);
		c->hx = rt_malloc(rows * c->D * sizeof *c->hx, err);
		c->hf = c->hx ? rt_malloc(rows * sizeof *c->hf, err) : NULL;
		if (c->hf && job->strategy == DE_CODE) {
			c->ht = rt_malloc(rows * c->D * sizeof *c->ht, err);
			c->hft = c->ht ? rt_malloc(rows * sizeof *c->hft, err) : NULL;
		}
		if (!c->hf || (job->strategy == DE_CODE && !c->hft)) {
			de_cpu_free(c);
			return RT_ERR_SYSTEM;
		}
	}
	if (c->next && de_is_adaptive(job->strategy) && alloc_adaptive(c, err) != RT_OK) {
		de_cpu_free(c);
		return rt_fail(err, RT_ERR_SYSTEM, "out of memory for the archives of %ld problems",
			       job->problems);
	}
	if (!c->next || (c->hist_len > 0 && !c->hist)) {
		de_cpu_free(c);
		return rt_fail(err, RT_ERR_SYSTEM,
			       "out of memory for %ld problems of %d individuals x %d dimensions", job->problems,
			       job->np, job->dim);
	}
	for (long p = 0; p < c->P; p++)
		c->st[p].gens = -1;
	for (size_t k = 0; k < (size_t)c->P * c->hist_len; k++)
		c->hist[k] = NAN;
	*out = c;
	return RT_OK;
}

void de_cpu_free(de_cpu *c)
{
	if (!c)
		return;
	free(c->pop);
	free(c->fit);
	free(c->cur);
	free(c->st);
	free(c->hist);
	free(c->next);
	free(c->ad);
	free(c->arch);
	free(c->work);
	free(c->iwork);
	free(c->hx);
	free(c->hf);
	free(c->ht);
	free(c->hft);
	free(c);
}

const float *de_cpu_population(const de_cpu *c, long p) { return pop_buf(c, p, c->cur[p]); }
const float *de_cpu_fitness(const de_cpu *c, long p) { return fit_buf(c, p, c->cur[p]); }
de_state de_cpu_state(const de_cpu *c, long p) { return c->st[p]; }
const double *de_cpu_adapt_state(const de_cpu *c, long p) { return c->ad ? ad_of(c, p) : NULL; }
const float *de_cpu_archive(const de_cpu *c, long p) { return c->arch ? arch_of(c, p) : NULL; }

/* Initial individuals [b, e) of problem p. */
static void init_individuals(de_cpu *c, long p, int b, int e)
{
	float *X = pop_buf(c, p, 0), *fx = fit_buf(c, p, 0);
	for (int i = b; i < e; i++) {
		float *x = X + (size_t)i * c->D;
		de_init_member(c->job, p, i, x);
		fx[i] = de_job_eval(c->job, p, x);
	}
}

/* Trial, evaluation and selection of individuals [b, e) of problem p in
 * generation g: reads the current buffer, writes the other one. */
static void step_individuals(de_cpu *c, long p, uint32_t g, int b, int e)
{
	int cur = c->cur[p], D = c->D;
	const float *X = pop_buf(c, p, cur), *fx = fit_buf(c, p, cur);
	float *Y = pop_buf(c, p, 1 - cur), *fy = fit_buf(c, p, 1 - cur);
	uint32_t best = (uint32_t)c->st[p].best_index;
	for (int i = b; i < e; i++) {
		float *y = Y + (size_t)i * D;
		if (c->job->strategy == DE_CODE) {   /* three trials, de_mixed.c */
			fy[i] = de_code_cpu_individual(c->job, p, g, X, fx, y, i, best);
			continue;
		}
		de_make_trial(&c->job->params, X, D, 1, y, 1, (uint32_t)p, g, (uint32_t)i, best);
		float f = de_job_eval(c->job, p, y);
		if (!(f <= fx[i])) {
			memcpy(y, X + (size_t)i * D, (size_t)D * sizeof *y);
			f = fx[i];
		}
		fy[i] = f;
	}
}

/* After every individual of generation g (0: initialisation) was done. */
static void finish_generation(de_cpu *c, long p, int g)
{
	int buf = g == 0 ? 0 : 1 - c->cur[p];
	const float *f = fit_buf(c, p, buf);
	float bv = f[0];
	int bi = 0;
	for (int i = 1; i < c->NP; i++)
		if (de_before(f[i], (uint32_t)i, bv, (uint32_t)bi)) {
			bv = f[i];
			bi = i;
		}
	c->cur[p] = buf;
	de_state *st = &c->st[p];
	st->best = bv;
	st->best_index = bi;
	st->gens = g;
	st->done = de_job_reached(c->job, bv);
	int every = c->job->history_every;
	if (c->hist && g % every == 0 && g / every < c->hist_len)
		c->hist[(size_t)p * c->hist_len + g / every] = bv;
}

static int active(const de_cpu *c, long p)
{
	return !c->st[p].done && c->st[p].gens < c->gen_end;
}

/* Work item: whole problems, a stretch of generations each. */
static void problem_items(void *ctx, long begin, long end, int thread)
{
	de_cpu *c = ctx;
	(void)thread;
	for (long p = begin; p < end; p++) {
		if (c->st[p].gens < 0) {
			init_individuals(c, p, 0, c->NP);
			finish_generation(c, p, 0);
			if (c->ad)
				de_strategy_init(&c->job->params, ad_of(c, p));
		}
		while (active(c, p)) {
			int g = c->st[p].gens + 1;
			if (c->ad)
				adapt_step(c, p, (uint32_t)g);
			else
				step_individuals(c, p, (uint32_t)g, 0, c->NP);
			finish_generation(c, p, g);
		}
	}
}

/* Work item: (problem, block of individuals) for one generation. */
static void block_items(void *ctx, long begin, long end, int thread)
{
	de_cpu *c = ctx;
	long nb = (c->NP + DE_CPU_BLOCK - 1) / DE_CPU_BLOCK;
	(void)thread;
	for (long t = begin; t < end; t++) {
		long p = t / nb;
		int b = (int)(t % nb) * DE_CPU_BLOCK, e = b + DE_CPU_BLOCK;
		if (e > c->NP)
			e = c->NP;
		if (c->st[p].gens < 0)
			init_individuals(c, p, b, e);
		else if (active(c, p))
			step_individuals(c, p, (uint32_t)(c->st[p].gens + 1), b, e);
	}
}

/* The schedule: whole problems per thread (else generations split into blocks). */
static int whole_problems(const de_cpu *c)
{
	return c->P >= cpu_threads() || c->NP < 2 * DE_CPU_BLOCK || c->ad;
}

/* The rows a generation hands the callback: CoDE's three trials an
 * individual, else one. */
static int host_rows(const de_job *job)
{
	return job->np * (job->strategy == DE_CODE ? DE_CODE_TRIALS : 1);
}

rt_status de_host_eval(const de_job *job, long p, long g, const float *X, int n, double *hx,
		       double *hf, float *fx, rt_error *err)
{
	size_t len = (size_t)n * job->dim;
	for (size_t k = 0; k < len; k++)
		hx[k] = X[k];
	for (int i = 0; i < n; i++)
		hf[i] = NAN;
	int rc = job->host.fn(hx, n, job->dim, hf, job->host.user);
	if (rc != 0)
		return rt_fail(err, RT_ERR_INPUT, "%s: the objective callback (de.function = callback) "
			       "returned %d at generation %ld of problem %ld: the run stopped", job->name,
			       rc, g, job->problem_base + p);
	for (int i = 0; i < n; i++)
		fx[i] = de_sane((float)hf[i]);
	return RT_OK;
}

/* function = callback: n rows X of problem p at generation g through the
 * caller's objective into fx. */
static rt_status host_eval(de_cpu *c, long p, long g, const float *X, int n, float *fx, rt_error *err)
{
	return de_host_eval(c->job, p, g, X, n, c->hx, c->hf, fx, err);
}

/* Generation g of an adaptive or mixed strategy with the callback: the
 * strategy's trials, one call, its selection (de_adapt.c, de_mixed.c). */
static rt_status host_step_adaptive(de_cpu *c, long p, uint32_t g, const float *X, const float *fx,
				    float *Y, float *fy, rt_error *err)
{
	const de_job *job = c->job;
	double *ad = c->ad ? ad_of(c, p) : NULL;
	double *work = c->ad ? c->work + (size_t)p * de_adapt_work_len(job) : NULL;
	int *iwork = c->ad ? c->iwork + (size_t)p * de_adapt_iwork_len(job) : NULL;
	rt_status st;
	if (job->strategy == DE_CODE) {
		de_code_cpu_trials(job, p, g, X, c->ht, (uint32_t)c->st[p].best_index);
		if ((st = host_eval(c, p, (long)g, c->ht, host_rows(job), c->hft, err)) == RT_OK)
			de_code_cpu_select(job, X, fx, c->ht, c->hft, Y, fy);
		return st;
	}
	if (job->strategy == DE_SADE) {
		de_sade_cpu_trials(job, p, g, X, fx, Y, ad, work);
		if ((st = host_eval(c, p, (long)g, Y, c->NP, fy, err)) == RT_OK)
			de_sade_cpu_select(job, X, fx, Y, fy, ad, work);
		return st;
	}
	int na = de_adapt_cpu_trials(job, p, g, X, fx, Y, ad, arch_of(c, p), work, iwork);
	if ((st = host_eval(c, p, (long)g, Y, na, fy, err)) == RT_OK)
		de_adapt_cpu_select(job, p, g, X, fx, Y, fy, ad, arch_of(c, p), work, iwork);
	return st;
}

/* Generation g of problem p with the callback: every trial, one call, then
 * selection (as step_individuals, the evaluation gathered). */
static rt_status host_step(de_cpu *c, long p, uint32_t g, rt_error *err)
{
	int cur = c->cur[p], D = c->D;
	const float *X = pop_buf(c, p, cur), *fx = fit_buf(c, p, cur);
	float *Y = pop_buf(c, p, 1 - cur), *fy = fit_buf(c, p, 1 - cur);
	uint32_t best = (uint32_t)c->st[p].best_index;
	if (c->ad || c->job->strategy == DE_CODE)
		return host_step_adaptive(c, p, g, X, fx, Y, fy, err);
	for (int i = 0; i < c->NP; i++)
		de_make_trial(&c->job->params, X, D, 1, Y + (size_t)i * D, 1, (uint32_t)p, g,
			      (uint32_t)i, best);
	rt_status st = host_eval(c, p, (long)g, Y, c->NP, fy, err);
	if (st != RT_OK)
		return st;
	for (int i = 0; i < c->NP; i++)
		if (!(fy[i] <= fx[i])) {
			memcpy(Y + (size_t)i * D, X + (size_t)i * D, (size_t)D * sizeof *Y);
			fy[i] = fx[i];
		}
	return RT_OK;
}

/* de_cpu_advance with the callback: problem after problem, on this thread. */
static rt_status host_advance(de_cpu *c, rt_error *err)
{
	rt_status st;
	for (long p = 0; p < c->P; p++) {
		if (c->st[p].gens < 0) {
			float *X = pop_buf(c, p, 0);
			for (int i = 0; i < c->NP; i++)
				de_init_member(c->job, p, i, X + (size_t)i * c->D);
			if ((st = host_eval(c, p, 0, X, c->NP, fit_buf(c, p, 0), err)) != RT_OK)
				return st;
			finish_generation(c, p, 0);
			if (c->ad)
				de_strategy_init(&c->job->params, ad_of(c, p));
		}
		while (active(c, p)) {
			int g = c->st[p].gens + 1;
			if ((st = host_step(c, p, (uint32_t)g, err)) != RT_OK)
				return st;
			finish_generation(c, p, g);
		}
	}
	return RT_OK;
}

rt_status de_cpu_advance(de_cpu *c, long gen_end, rt_error *err)
{
	rt_status st;
	c->gen_end = gen_end;
	if (c->hx)
		return host_advance(c, err);
	if (whole_problems(c))
		return cpu_parallel_for(c->P, 1, problem_items, c, err);
	long nb = (c->NP + DE_CPU_BLOCK - 1) / DE_CPU_BLOCK;
	for (;;) {
		int any = 0;
		for (long p = 0; p < c->P && !any; p++)
			any = c->st[p].gens < 0 || active(c, p);
		if (!any)
			return RT_OK;
		/* which problems step now, and to which generation */
		int *next = c->next;
		for (long p = 0; p < c->P; p++)
			next[p] = c->st[p].gens < 0 ? 0 : active(c, p) ? c->st[p].gens + 1 : -1;
		st = cpu_parallel_for(c->P * nb, 1, block_items, c, err);
		if (st == RT_OK)
			for (long p = 0; p < c->P; p++)
				if (next[p] >= 0)
					finish_generation(c, p, next[p]);
		if (st != RT_OK)
			return st;
	}
}

/* The run's state into the snapshot s (its buffers allocated). */
static void take_snapshot(const de_cpu *c, de_snapshot *s)
{
	size_t row = (size_t)c->NP * c->D;
	for (long p = 0; p < c->P; p++) {
		s->st[p] = c->st[p];
		memcpy(s->pop + (size_t)p * row, de_cpu_population(c, p), row * sizeof *s->pop);
		memcpy(s->fit + (size_t)p * c->NP, de_cpu_fitness(c, p), (size_t)c->NP * sizeof *s->fit);
	}
	if (s->hist)
		memcpy(s->hist, c->hist, (size_t)c->P * c->hist_len * sizeof *s->hist);
	if (s->ad) {
		memcpy(s->ad, c->ad, (size_t)c->P * de_adapt_ad_len(c->job) * sizeof *s->ad);
		memcpy(s->arch, c->arch, (size_t)c->P * c->job->params.a_cap * c->D * sizeof *s->arch);
	}
}

/* The snapshot s becomes the run's state. */
static void put_snapshot(de_cpu *c, const de_snapshot *s)
{
	size_t row = (size_t)c->NP * c->D;
	for (long p = 0; p < c->P; p++) {
		c->cur[p] = 0;
		c->st[p] = s->st[p];
		memcpy(pop_buf(c, p, 0), s->pop + (size_t)p * row, row * sizeof *s->pop);
		memcpy(fit_buf(c, p, 0), s->fit + (size_t)p * c->NP, (size_t)c->NP * sizeof *s->fit);
	}
	if (s->hist)
		memcpy(c->hist, s->hist, (size_t)c->P * c->hist_len * sizeof *s->hist);
	if (s->ad) {
		memcpy(c->ad, s->ad, (size_t)c->P * de_adapt_ad_len(c->job) * sizeof *s->ad);
		memcpy(c->arch, s->arch, (size_t)c->P * c->job->params.a_cap * c->D * sizeof *s->arch);
	}
}

/* The run's state at generation gen, as de_ckpt.h stores it. */
static rt_status save_checkpoint(const de_cpu *c, long gen, double seconds, rt_error *err)
{
	de_snapshot s;
	rt_status st = de_snapshot_alloc(&s, c->job, err);
	if (st != RT_OK)
		return st;
	take_snapshot(c, &s);
	s.gen = gen;
	s.seconds = seconds;
	st = de_ckpt_save(c->job->ckpt, c->job, &s, err);
	de_snapshot_free(&s);
	return st;
}

/* Every problem's state from the checkpoint resumed from; *gen and
 * *seconds: where and how long the run had got. */
static rt_status restore_checkpoint(de_cpu *c, long *gen, double *seconds, rt_error *err)
{
	de_snapshot s;
	rt_status st = de_snapshot_alloc(&s, c->job, err);
	if (st == RT_OK)
		st = de_ckpt_restore(c->job->ckpt, c->job, &s, err);
	if (st == RT_OK) {
		put_snapshot(c, &s);
		*gen = s.gen;
		*seconds = s.seconds;
	}
	de_snapshot_free(&s);
	return st;
}

/* After generation gen: a migration of the island model when one is due,
 * and *over: the run ends here (want: it would on its own; asked: a stop
 * was requested). */
static rt_status island_step(de_cpu *c, long gen, int want, int asked, int *over, rt_error *err)
{
	if (!rt_islands_due(c->job->isl, gen)) {
		*over = rt_islands_may_stop(c->job->isl, gen, want, asked);
		return RT_OK;
	}
	de_snapshot s;
	rt_status st = de_snapshot_alloc(&s, c->job, err);
	if (st == RT_OK) {
		take_snapshot(c, &s);
		st = de_islands_exchange(c->job, gen, &s, want, asked, over, err);
	}
	if (st == RT_OK)
		put_snapshot(c, &s);
	de_snapshot_free(&s);
	return st;
}

/* Problem states, best vectors and history into out. */
static void fill_outcome(const de_cpu *c, de_outcome *out)
{
	const de_job *job = c->job;
	for (long p = 0; p < c->P; p++) {
		out->best[p] = c->st[p].best;
		out->gens[p] = c->st[p].gens;
		out->reached[p] = c->st[p].done;
		memcpy(out->bestx + (size_t)p * job->dim,
		       de_cpu_population(c, p) + (size_t)c->st[p].best_index * job->dim,
		       (size_t)job->dim * sizeof(float));
	}
	if (out->hist && c->hist)
		memcpy(out->hist, c->hist, (size_t)c->P * c->hist_len * sizeof(float));
	de_outcome_fill_history(out, job);
}

rt_status de_cpu_run(const de_job *job, de_progress_fn progress, void *ctx, de_outcome *out,
		     rt_error *err)
{
	de_cpu *c;
	rt_status st;
	if ((st = de_outcome_alloc(out, job, err)) != RT_OK)
		return st;
	if ((st = de_cpu_create(job, &c, err)) != RT_OK)
		return st;
	snprintf(out->backend, sizeof out->backend, "cpu");
	snprintf(out->device, sizeof out->device, "CPU, %d threads", cpu_threads());
	snprintf(out->detail, sizeof out->detail, "rows, %s", c->hx ? "objective callback, "
		 "a call per population" : whole_problems(c) ? "problems in parallel"
		 : "individuals in parallel");
	rt_run_begins("de");
	double t0 = rt_now(), before = 0;
	long g = 0;
	int resumed = de_ckpt_resuming(job->ckpt);
	if (resumed)
		st = restore_checkpoint(c, &g, &before, err);
	else
		st = de_cpu_advance(c, 0, err);
	t0 -= before;
	long g_first = g;
	while (st == RT_OK) {
		long ndone, alive;
		long long evals;
		float bmin;
		int stop = rt_stop_requested(), again = resumed && g == g_first;
		de_state_summary(job, c->st, &ndone, &alive, &evals, &bmin);
		de_cec_note(job, c->st, g, out->cec);
		out->evals = evals;
		if ((st = de_shard_agree(job, &alive, &stop, err)) != RT_OK)
			break;
		if ((st = de_check_finite(job, c->st, err)) != RT_OK)
			break;
		if (progress && !again && (g % job->report_every == 0 || g == job->gens || !alive))
			progress(ctx, job, g, bmin, ndone, evals, rt_now() - t0);
		int over = 0, natural = g >= job->gens || !alive;
		if (again)   /* the checkpoint's generation: its migration is done */
			over = job->isl ? g >= job->gens : natural || stop;
		else if ((st = island_step(c, g, natural, stop, &over, err)) != RT_OK)
			break;
		/* islands write a stop's checkpoint when they stop, together */
		if (!again && de_ckpt_due(job->ckpt, g, rt_islands_stopping(job->isl, over, stop)) &&
		    (st = save_checkpoint(c, g, rt_now() - t0, err)) != RT_OK)
			break;
		if (over)
			break;
		g = de_ckpt_stretch_end(job->ckpt, job, g);
		st = de_cpu_advance(c, g, err);
	}
	out->seconds = rt_now() - t0;
	if (st == RT_OK)
		fill_outcome(c, out);
	de_cpu_free(c);
	return st;
}
