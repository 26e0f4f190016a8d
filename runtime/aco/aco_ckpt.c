/* aco_ckpt.c: kind aco's checkpoint state, written and restored
 * (aco_ckpt.h). Layout: cities and ants (checked against the job), the
 * iteration, the seconds so far and the device's busy seconds, the
 * aco_mmas scalars, the outcome's scalars, the best tour, the history
 * (rows, then best lengths, iterations and ms per iteration), the
 * pheromone matrix and the two saved tours. Arrays are stored as this
 * machine lays them out (little-endian; the checksum catches anything
 * else); tours are checked to be permutations before they are used. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "aco_ckpt.h"
#include "log.h"

rt_status aco_ckpt_open(aco_ckpt *ck, const rt_spec *spec, const rt_options *opt, const char *dir,
			rt_error *err)
{
	rt_status st = rt_ckpt_plan_open(&ck->plan, "aco", spec, opt->checkpoint_every, opt->resume,
					 dir, err);
	return st == RT_OK ? rt_mkdirs(dir, err) : st;
}

void aco_ckpt_close(aco_ckpt *ck)
{
	rt_ckpt_plan_close(&ck->plan);
}

int aco_ckpt_resuming(const aco_ckpt *ck)
{
	return ck && ck->plan.from.data;
}

int aco_ckpt_due(const aco_ckpt *ck, long i, int stop)
{
	if (!ck)
		return 0;
	if (stop)
		return 1;
	return rt_ckpt_plan_due(&ck->plan, i);
}

/* ---- writing ------------------------------------------------------------------- */

static void put_mmas(rt_buf *b, const aco_mmas *m)
{
	rt_ckpt_put_u64(b, (uint64_t)m->best);
	rt_ckpt_put_u64(b, (uint64_t)m->restart_best);
	rt_ckpt_put_u64(b, (uint64_t)m->found_best);
	rt_ckpt_put_u64(b, (uint64_t)m->restart_found_best);
	rt_ckpt_put_u64(b, (uint64_t)m->restart_iteration);
	rt_ckpt_put_f64(b, m->tau_min);
	rt_ckpt_put_f64(b, m->tau_max);
	rt_ckpt_put_u64(b, (uint64_t)m->u_gb);
}

static void put_outcome(rt_buf *b, const aco_job *job, const aco_outcome *out)
{
	size_t h = (size_t)out->hist_len;
	rt_ckpt_put_u64(b, (uint64_t)out->best_length);
	rt_ckpt_put_u64(b, (uint64_t)out->best_iteration);
	rt_ckpt_put_u64(b, (uint64_t)out->restarts);
	rt_ckpt_put_u64(b, (uint64_t)out->tours);
	rt_ckpt_put_bytes(b, out->best_tour, (size_t)job->n * sizeof *out->best_tour);
	rt_ckpt_put_u64(b, (uint64_t)h);
	if (h > 0) {
		rt_ckpt_put_bytes(b, out->hist_best, h * sizeof *out->hist_best);
		rt_ckpt_put_bytes(b, out->hist_iter, h * sizeof *out->hist_iter);
		rt_ckpt_put_bytes(b, out->hist_ms, h * sizeof *out->hist_ms);
	}
}

rt_status aco_ckpt_save(aco_ckpt *ck, const aco_job *job, aco_backend *b, const aco_mmas *m,
			long i, const aco_outcome *out, rt_error *err)
{
	size_t n = (size_t)job->n;
	float *tau = rt_malloc(n * n * sizeof *tau, err);
	int *slots = tau ? rt_malloc(2 * n * sizeof *slots, err) : NULL;
	rt_buf buf = {0};
	rt_status st = slots ? b->ops->get_state(b, tau, slots, err) : RT_ERR_SYSTEM;
	if (st == RT_OK) {
		rt_ckpt_put_u64(&buf, (uint64_t)job->n);
		rt_ckpt_put_u64(&buf, (uint64_t)job->ants);
		rt_ckpt_put_u64(&buf, (uint64_t)i);
		rt_ckpt_put_f64(&buf, out->seconds);
		rt_ckpt_put_f64(&buf, b->busy_seconds);
		put_mmas(&buf, m);
		put_outcome(&buf, job, out);
		rt_ckpt_put_bytes(&buf, tau, n * n * sizeof *tau);
		rt_ckpt_put_bytes(&buf, slots, 2 * n * sizeof *slots);
		st = job->isl ? rt_islands_save(job->isl, &buf, err) : RT_OK;
		if (st == RT_OK)
			st = rt_ckpt_write(ck->plan.dir, "aco", ck->plan.spec, &buf, err);
	}
	if (st == RT_OK) {
		ck->plan.last = rt_now();
		rt_info("aco: checkpoint: iteration %ld in %s/%s", i, ck->plan.dir, rt_ckpt_file_name());
	}
	rt_buf_free(&buf);
	free(tau);
	free(slots);
	return st;
}

/* ---- reading ------------------------------------------------------------------- */

/* Reads k u64 values into v. */
static rt_status get_u64s(rt_ckpt *from, uint64_t *v, int k, rt_error *err)
{
	rt_status st = RT_OK;
	for (int q = 0; q < k && st == RT_OK; q++)
		st = rt_ckpt_get_u64(from, &v[q], err);
	return st;
}

/* Is tour[n] a permutation of 0 .. n-1? (seen: n bytes of scratch) */
static int is_tour(const int *tour, int n, unsigned char *seen)
{
	memset(seen, 0, (size_t)n);
	for (int k = 0; k < n; k++) {
		if (tour[k] < 0 || tour[k] >= n || seen[tour[k]])
			return 0;
		seen[tour[k]] = 1;
	}
	return 1;
}

static rt_status get_mmas(rt_ckpt *from, aco_mmas *m, rt_error *err)
{
	uint64_t v[5], u_gb;
	rt_status st = get_u64s(from, v, 5, err);
	if (st == RT_OK)
		st = rt_ckpt_get_f64(from, &m->tau_min, err);
	if (st == RT_OK)
		st = rt_ckpt_get_f64(from, &m->tau_max, err);
	if (st == RT_OK)
		st = rt_ckpt_get_u64(from, &u_gb, err);
	if (st != RT_OK)
		return st;
	m->best = (int64_t)v[0];
	m->restart_best = (int64_t)v[1];
	m->found_best = (long)v[2];
	m->restart_found_best = (long)v[3];
	m->restart_iteration = (long)v[4];
	m->u_gb = (long)u_gb;
	if (m->u_gb < 1)
		return rt_fail(err, RT_ERR_INPUT, "%s: u_gb %ld", from->path, m->u_gb);
	return RT_OK;
}

/* The history rows, allocated to their number. */
static rt_status get_history(rt_ckpt *from, aco_outcome *out, long i, rt_error *err)
{
	uint64_t h;
	rt_status st = rt_ckpt_get_u64(from, &h, err);
	if (st != RT_OK || h == 0)
		return st;
	if (h > (uint64_t)i)
		return rt_fail(err, RT_ERR_INPUT, "%s: %llu history rows after %ld iterations",
			       from->path, (unsigned long long)h, i);
	out->hist_best = rt_malloc(h * sizeof *out->hist_best, err);
	out->hist_iter = rt_malloc(h * sizeof *out->hist_iter, err);
	out->hist_ms = rt_malloc(h * sizeof *out->hist_ms, err);
	if (!out->hist_best || !out->hist_iter || !out->hist_ms)
		return RT_ERR_SYSTEM;
	out->hist_len = out->hist_cap = (int)h;
	if ((st = rt_ckpt_get_bytes(from, out->hist_best, h * sizeof *out->hist_best, err)) ||
	    (st = rt_ckpt_get_bytes(from, out->hist_iter, h * sizeof *out->hist_iter, err)))
		return st;
	return rt_ckpt_get_bytes(from, out->hist_ms, h * sizeof *out->hist_ms, err);
}

/* The outcome so far; its best tour checked against its length. */
static rt_status get_outcome(rt_ckpt *from, const aco_job *job, long i, aco_outcome *out,
			     unsigned char *seen, rt_error *err)
{
	uint64_t v[4];
	rt_status st = get_u64s(from, v, 4, err);
	if (st == RT_OK)
		st = rt_ckpt_get_bytes(from, out->best_tour, (size_t)job->n * sizeof *out->best_tour, err);
	if (st != RT_OK)
		return st;
	out->best_length = (int64_t)v[0];
	out->best_iteration = (long)v[1];
	out->restarts = (long)v[2];
	out->tours = (long long)v[3];
	out->iterations = i;
	if (i > 0 && (!is_tour(out->best_tour, job->n, seen) ||
		      aco_tour_length(job->dist, job->n, out->best_tour) != out->best_length ||
		      out->best_iteration < 1 || out->best_iteration > i))
		return rt_fail(err, RT_ERR_INPUT, "%s: the best tour is not one of %d cities of "
			       "length %lld found by iteration %ld", from->path, job->n,
			       (long long)out->best_length, i);
	return get_history(from, out, i, err);
}

/* The backend's pheromone and saved tours (checked), set on the backend. */
static rt_status get_backend(rt_ckpt *from, const aco_job *job, aco_backend *b,
			     unsigned char *seen, rt_error *err)
{
	size_t n = (size_t)job->n;
	float *tau = rt_malloc(n * n * sizeof *tau, err);
	int *slots = tau ? rt_malloc(2 * n * sizeof *slots, err) : NULL;
	rt_status st = slots ? rt_ckpt_get_bytes(from, tau, n * n * sizeof *tau, err) : RT_ERR_SYSTEM;
	if (st == RT_OK)
		st = rt_ckpt_get_bytes(from, slots, 2 * n * sizeof *slots, err);
	for (int s = 0; s < 2 && st == RT_OK; s++) {
		const int *t = slots + (size_t)s * n;
		int unsaved = 1;   /* a slot never saved holds zeros */
		for (size_t k = 0; k < n && unsaved; k++)
			unsaved = t[k] == 0;
		if (!unsaved && !is_tour(t, job->n, seen))
			st = rt_fail(err, RT_ERR_INPUT, "%s: saved tour %d is not a tour of %d cities",
				     from->path, s, job->n);
	}
	if (st == RT_OK && job->isl)
		st = rt_islands_restore(job->isl, from, err);
	if (st == RT_OK && from->pos != from->state_size)
		st = rt_fail(err, RT_ERR_INPUT, "%s: %zu bytes after the state", from->path,
			     from->state_size - from->pos);
	if (st == RT_OK)
		st = b->ops->set_state(b, tau, slots, err);
	free(tau);
	free(slots);
	return st;
}

rt_status aco_ckpt_restore(aco_ckpt *ck, const aco_job *job, aco_backend *b, aco_mmas *m, long *i,
			   aco_outcome *out, rt_error *err)
{
	rt_ckpt *from = &ck->plan.from;
	uint64_t v[3];
	double busy;
	unsigned char *seen = rt_malloc((size_t)job->n, err);
	rt_status st = seen ? get_u64s(from, v, 3, err) : RT_ERR_SYSTEM;
	if (st == RT_OK && (v[0] != (uint64_t)job->n || v[1] != (uint64_t)job->ants ||
			    v[2] > (uint64_t)job->iterations))
		st = rt_fail(err, RT_ERR_INPUT, "%s: %llu cities, %llu ants, %llu iterations done; the "
			     "job has %d cities, %d ants, at most %ld iterations", from->path,
			     (unsigned long long)v[0], (unsigned long long)v[1],
			     (unsigned long long)v[2], job->n, job->ants, job->iterations);
	if (st == RT_OK)
		st = rt_ckpt_get_f64(from, &out->seconds, err);
	if (st == RT_OK)
		st = rt_ckpt_get_f64(from, &busy, err);
	if (st == RT_OK)
		st = get_mmas(from, m, err);
	if (st == RT_OK)
		st = get_outcome(from, job, (long)v[2], out, seen, err);
	if (st == RT_OK)
		st = get_backend(from, job, b, seen, err);
	if (st == RT_OK) {
		*i = (long)v[2];
		b->busy_seconds = busy;
		rt_info("aco: resuming from %s: iteration %ld done, best %lld", from->path, *i,
			(long long)out->best_length);
	}
	free(seen);
	return st;
}
