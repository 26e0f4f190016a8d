/* aco_loop.c: the MAX-MIN Ant System loop as Stützle's ACOTSP runs it
 * (main loop, update_statistics, mmas_update, search_control_and_statistics),
 * over either backend. Only scalars decide here; tours and matrices stay in
 * the backend.
 *
 * Per iteration i = 1, 2, ...: every ant builds a tour (and local search
 * runs); the iteration-best tour that beats the best-so-far becomes it and
 * sets tau_max = 1 / (rho L_best) and tau_min = tau_max (1 - p) / (p avg)
 * with p = 0.05^(1/n) and avg = (candidates + 1) / 2 in whole numbers
 * (with local search: tau_min = tau_max / 2n); evaporation, then a deposit
 * of 1 / L by the iteration-best ant, or every u_gb-th iteration by the
 * best-so-far one (u_gb = 25 without local search; with it, 25, 5, 3, 2, 1
 * as the run since the last restart grows, and the restart-best tour when
 * u_gb = 1 and it is 50 iterations old), clamping to [tau_min, tau_max].
 * Every 100 iterations the lambda-branching factor is measured; below
 * branch_factor, with restart_gap iterations since the restart-best
 * improved, the pheromone is reset to tau_max. Differences from ACOTSP:
 * evaporation and clamping cover every edge also with local search (ACOTSP
 * then touches only candidate edges), and pheromone is single precision.
 * With job->ckpt the loop writes checkpoints between iterations and starts
 * from one when resuming (aco_ckpt.h). */
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "aco_ckpt.h"
#include "aco_impl.h"
#include "log.h"
#include "signals.h"

void aco_outcome_free(aco_outcome *out)
{
	free(out->best_tour);
	free(out->hist_best);
	free(out->hist_iter);
	free(out->hist_ms);
	memset(out, 0, sizeof *out);
}

void aco_mmas_set_limits(const aco_job *job, aco_mmas *m)
{
	double p = exp(log(job->p_best) / job->n);
	int avg = job->tau_min_choices == ACO_CHOICES_HALF_CITIES
			  ? job->n / 2 : ((job->cand ? job->cand_len : job->n - 1) + 1) / 2;
	m->tau_max = 1.0 / (job->rho * (double)m->best);
	if (job->local_search != ACO_LS_NONE)
		m->tau_min = m->tau_max / (2.0 * job->n);
	else
		m->tau_min = m->tau_max * (1.0 - p) / (p * (double)(avg < 1 ? 1 : avg));
}

/* u_gb after iteration i (ACOTSP's schedule). */
static long next_u_gb(const aco_job *job, const aco_mmas *m, long i)
{
	long since = i - m->restart_iteration;
	if (job->local_search == ACO_LS_NONE)
		return job->deposit == ACO_DEPOSIT_ITERATION_BEST ? LONG_MAX : 25;
	return since < 25 ? 25 : since < 75 ? 5 : since < 125 ? 3 : since < 250 ? 2 : 1;
}

/* Records the iteration's best; saves tours that improve. */
static rt_status statistics(const aco_job *job, aco_backend *b, aco_mmas *m, long i,
			    aco_outcome *out, rt_error *err)
{
	int64_t len;
	int ant;
	rt_status st = b->ops->iteration_best(b, &len, &ant, err);
	if (st != RT_OK)
		return st;
	m->iter_best = len;
	m->iter_ant = ant;
	if (len < m->best) {
		if ((st = b->ops->save(b, ant, ACO_SLOT_BEST, out->best_tour, err)) != RT_OK)
			return st;
		m->best = len;
		m->found_best = m->restart_found_best = i;
		out->best_length = len;
		out->best_iteration = i;
		aco_mmas_set_limits(job, m);
	}
	if (len < m->restart_best) {
		if ((st = b->ops->save(b, ant, ACO_SLOT_RESTART, NULL, err)) != RT_OK)
			return st;
		m->restart_best = len;
		m->restart_found_best = i;
	}
	return RT_OK;
}

/* mmas_update: who deposits, then the backend's evaporate-deposit-clamp. */
static rt_status pheromone(const aco_job *job, aco_backend *b, aco_mmas *m, long i,
			   rt_error *err)
{
	int slot = -1, ant = m->iter_ant;
	int64_t len = m->iter_best;
	if (i % m->u_gb == 0) {
		int restart = m->u_gb == 1 && i - m->restart_found_best > 50;
		slot = restart ? ACO_SLOT_RESTART : ACO_SLOT_BEST;
		len = restart ? m->restart_best : m->best;
	}
	m->u_gb = next_u_gb(job, m, i);
	return b->ops->update(b, slot, ant, (float)(1.0 - job->rho), (float)(1.0 / (double)len),
			      (float)m->tau_min, (float)m->tau_max, err);
}

/* search_control_and_statistics: the stagnation restart. */
static rt_status control(const aco_job *job, aco_backend *b, aco_mmas *m, long i,
			 aco_outcome *out, rt_error *err)
{
	long count;
	rt_status st;
	if (!job->restart || i % 100 != 0)
		return RT_OK;
	if ((st = b->ops->branching(b, (float)job->lambda, &count, err)) != RT_OK)
		return st;
	if ((double)count / (2.0 * job->n) < job->branch_factor &&
	    i - m->restart_found_best > job->restart_gap) {
		m->restart_best = INT64_MAX;
		m->restart_iteration = i;
		out->restarts++;
		return b->ops->reset(b, (float)m->tau_max, err);
	}
	return RT_OK;
}

/* One row of history (grows the arrays as needed). */
static rt_status add_history(aco_outcome *out, long i, double ms, rt_error *err)
{
	if (out->hist_len == out->hist_cap) {
		int cap = out->hist_cap ? 2 * out->hist_cap : 64;
		double *hb = realloc(out->hist_best, (size_t)cap * sizeof *hb);
		if (hb)
			out->hist_best = hb;
		long *hi = realloc(out->hist_iter, (size_t)cap * sizeof *hi);
		if (hi)
			out->hist_iter = hi;
		double *hm = realloc(out->hist_ms, (size_t)cap * sizeof *hm);
		if (hm)
			out->hist_ms = hm;
		if (!hb || !hi || !hm)
			return rt_fail(err, RT_ERR_SYSTEM, "out of memory for the run's history");
		out->hist_cap = cap;
	}
	out->hist_best[out->hist_len] = (double)out->best_length;
	out->hist_iter[out->hist_len] = i;
	out->hist_ms[out->hist_len] = ms;
	out->hist_len++;
	return RT_OK;
}

/* Should the run stop after iteration i (stop: a stop was requested)? The
 * first iteration always runs, so that a run stopped at once still has a
 * tour to report. */
static int finished(const aco_job *job, const aco_outcome *out, long i, double seconds, int stop)
{
	if (i == 0)
		return 0;
	return i >= job->iterations || (job->time_limit > 0 && seconds >= job->time_limit) ||
	       (job->target > 0 && out->best_length <= job->target) || stop;
}

/* One iteration: tours, statistics, pheromone update, restart control. */
static rt_status iteration(const aco_job *job, aco_backend *b, aco_mmas *m, long i,
			   aco_outcome *out, rt_error *err)
{
	rt_status st;
	if ((st = b->ops->construct(b, (uint32_t)i, err)) != RT_OK ||
	    (st = statistics(job, b, m, i, out, err)) != RT_OK ||
	    (st = pheromone(job, b, m, i, err)) != RT_OK ||
	    (st = control(job, b, m, i, out, err)) != RT_OK)
		return st;
	out->iterations = i;
	out->tours += job->ants;
	return RT_OK;
}

rt_status aco_loop_run(const aco_job *job, aco_backend *b, aco_progress_fn progress, void *ctx,
		       aco_outcome *out, rt_error *err)
{
	aco_mmas m = { INT64_MAX, INT64_MAX, 0, 0, 0, 0, 0, 25, 0, 0 };
	long i = 0;
	rt_status st = RT_OK;
	memset(out, 0, sizeof *out);
	out->best_length = INT64_MAX;
	if ((out->best_tour = rt_malloc((size_t)job->n * sizeof *out->best_tour, err)) == NULL)
		return RT_ERR_SYSTEM;
	m.u_gb = LONG_MAX;                  /* ACOTSP: the first deposit is the iteration-best's */
	if (aco_ckpt_resuming(job->ckpt) &&
	    (st = aco_ckpt_restore(job->ckpt, job, b, &m, &i, out, err)) != RT_OK)
		return st;
	double t0 = rt_now() - out->seconds, t_report = rt_now(), t_hist = t_report;
	long i_first = i, i_report = i, i_hist = i;
	int islands_over = 0;   /* with islands, the stop they agreed on after iteration i */
	while (st == RT_OK) {
		int stop = rt_stop_requested();
		/* islands write a stop's checkpoint when they stop, together */
		if (i > i_first && aco_ckpt_due(job->ckpt, i, rt_islands_stopping(job->isl, islands_over, stop))) {
			out->seconds = rt_now() - t0;
			if ((st = aco_ckpt_save(job->ckpt, job, b, &m, i, out, err)) != RT_OK)
				break;
		}
		if (job->isl && i > i_first ? islands_over : finished(job, out, i, rt_now() - t0, stop))
			break;
		i++;
		if ((st = iteration(job, b, &m, i, out, err)) != RT_OK)
			break;
		if (job->history_every > 0 && (i % job->history_every == 0 || i == 1)) {
			double now = rt_now();
			st = add_history(out, i, 1e3 * (now - t_hist) / (double)(i - i_hist), err);
			t_hist = now;
			i_hist = i;
		}
		if (progress && i % job->report_every == 0) {
			double now = rt_now();
			progress(ctx, job, out, 1e3 * (now - t_report) / (double)(i - i_report));
			t_report = now;
			i_report = i;
		}
		if (job->isl)
			st = aco_islands_step(job, b, &m, i, out, finished(job, out, i, rt_now() - t0, 0),
					      rt_stop_requested(), &islands_over, err);
	}
	out->seconds = rt_now() - t0;
	/* host share: whatever the device was not measured busy for */
	out->host_seconds = b->busy_seconds > 0 ? out->seconds - b->busy_seconds : out->seconds;
	return st;
}
