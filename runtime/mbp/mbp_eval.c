/* mbp_eval.c: using a network: the forward pass of one pattern, and its RMS
 * and classification accuracy over a set of patterns (CPU, both backends'
 * results are evaluated here); the run's history of training and validation
 * RMS (history.csv). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "comm.h"
#include "cpu.h"
#include "mbp_impl.h"
#include "out.h"

void mbp_forward(const mbp_shape *s, const float *w, const float *x, float *y)
{
	float y1[MBP_MAX_UNITS], y2[MBP_MAX_UNITS], f, m;
	const float *last = y1;
	for (int j = 0; j < s->h1; j++)
		mbp_fire_h1(s, w, x, j, &f, &m, &y1[j]);
	if (s->h2 > 0) {
		for (int k = 0; k < s->h2; k++)
			y2[k] = mbp_fire_h2(s, w, y1, k);
		last = y2;
	}
	for (int o = 0; o < s->no; o++)
		y[o] = mbp_fire_output(s, w, last, o);
}

void mbp_evaluate(const mbp_job *job, const float *w, const long *set, long n, double *rms,
		  double *accuracy)
{
	const mbp_dataset *d = &job->data;
	const mbp_shape *s = &job->shape;
	float y[MBP_MAX_UNITS];
	double sse = 0;
	long right = 0;
	for (long q = 0; q < n; q++) {
		long p = set[q];
		const float *t = d->t + (size_t)p * d->no;
		mbp_forward(s, w, d->x + (size_t)p * d->ni, y);
		for (int o = 0; o < s->no; o++)
			sse += ((double)t[o] - y[o]) * ((double)t[o] - y[o]);
		if (d->classes > 0)
			right += mbp_dataset_class_of(d, y) == mbp_dataset_class_of(d, t);
	}
	*rms = n > 0 ? sqrt(sse / ((double)n * s->no)) : NAN;
	*accuracy = d->classes > 0 && n > 0 ? (double)right / (double)n : -1.0;
}

/* ---- history (mbp_impl.h) ------------------------------------------------------ */

rt_status mbp_history_init(mbp_history *h, const mbp_job *job, rt_error *err)
{
	memset(h, 0, sizeof *h);
	h->every = (job->epochs + MBP_HISTORY_ROWS - 2) / (MBP_HISTORY_ROWS - 1);
	h->every = h->every > 0 ? h->every : 1;
	h->rows = rt_malloc(MBP_HISTORY_ROWS * sizeof *h->rows, err);
	return h->rows ? RT_OK : RT_ERR_SYSTEM;
}

void mbp_history_free(mbp_history *h)
{
	free(h->rows);
	memset(h, 0, sizeof *h);
}

int mbp_history_due(const mbp_job *job, long epoch)
{
	return job->hist && epoch > 0 && epoch % job->hist->every == 0;
}

/* Appends r unless a row of its epoch or a later one is there. */
static void history_push(mbp_history *h, const mbp_history_row *r)
{
	if ((h->n > 0 && h->rows[h->n - 1].epoch >= r->epoch) || h->n == MBP_HISTORY_ROWS)
		return;
	h->rows[h->n++] = *r;
}

/* One network's values in a row: its epochs, last RMS and validation RMS. */
typedef struct net_point {
	double epoch, train, valid;
} net_point;

/* The row of count networks' points (the lowest and the mean, summed in
 * network order as result.json's mean_valid_rms). */
static mbp_history_row history_row(long epoch, const net_point *pt, long count)
{
	mbp_history_row r = { epoch, INFINITY, 0, INFINITY, 0 };
	for (long k = 0; k < count; k++) {
		r.train = fmin(r.train, pt[k].train);
		r.valid = fmin(r.valid, pt[k].valid);
		r.train_mean += pt[k].train;
		r.valid_mean += pt[k].valid;
	}
	r.train_mean /= count;
	r.valid_mean /= count;
	if (isnan(pt[0].valid))
		r.valid = r.valid_mean = NAN;
	return r;
}

/* Validation RMS of the networks of a block, on the thread pool. */
typedef struct valid_ctx {
	const mbp_job *job;
	const mbp_outcome *now;
	net_point *pt;
} valid_ctx;

static void valid_body(void *ctx, long begin, long end, int thread)
{
	valid_ctx *c = ctx;
	size_t nw = (size_t)c->job->shape.nweights;
	double acc;
	(void)thread;
	for (long k = begin; k < end; k++) {
		long n;
		const long *set = mbp_job_valid_set(c->job, k, &n);
		mbp_evaluate(c->job, c->now->w + (size_t)k * nw, set, n, &c->pt[k].valid, &acc);
	}
}

rt_status mbp_history_add(const mbp_job *job, long epoch, const mbp_outcome *now, rt_error *err)
{
	net_point *pt, *all = NULL;
	double last = 0;
	rt_status st;
	for (long k = 0; k < job->networks; k++)
		last = fmax(last, (double)now->res[k].epochs);
	if ((st = rt_comm_max_double(&last, err)) != RT_OK || last != (double)epoch)
		return st;   /* every network of every rank stopped before */
	if (!(pt = rt_malloc((size_t)job->networks * sizeof *pt + 1, err)))
		return RT_ERR_SYSTEM;
	for (long k = 0; k < job->networks; k++)
		pt[k] = (net_point){ (double)now->res[k].epochs, now->res[k].train_rms, NAN };
	if (job->data.nvalid[0] > 0)
		st = cpu_parallel_for(job->networks, 1, valid_body, &(valid_ctx){ job, now, pt }, err);
	if (st == RT_OK &&
	    (st = rt_shard_gather_copy(pt, sizeof *pt, mbp_job_networks_all(job), (void **)&all,
				       err)) == RT_OK) {
		/* every rank keeps the rows in step (thinned alike); rank 0's hold the values */
		mbp_history_row r = { epoch, NAN, NAN, NAN, NAN };
		if (all)
			r = history_row(epoch, all, mbp_job_networks_all(job));
		history_push(job->hist, &r);
	}
	free(pt);
	free(all);
	return st;
}

rt_status mbp_history_finish(const mbp_job *job, const mbp_outcome *out, const double *valid,
			     rt_error *err)
{
	net_point *pt = rt_malloc((size_t)job->networks * sizeof *pt + 1, err);
	long last = 0;
	if (!pt)
		return RT_ERR_SYSTEM;
	for (long k = 0; k < job->networks; k++) {
		pt[k] = (net_point){ (double)out->res[k].epochs, out->res[k].train_rms, valid[k] };
		last = out->res[k].epochs > last ? out->res[k].epochs : last;
	}
	mbp_history_row r = history_row(last, pt, job->networks);
	if (last > 0)
		history_push(job->hist, &r);
	free(pt);
	return RT_OK;
}

rt_status mbp_history_write(const mbp_job *job, const char *dir, rt_error *err)
{
	const mbp_history *h = job->hist;
	int several = mbp_job_networks_all(job) > 1, valid = job->data.nvalid[0] > 0;
	rt_buf b;
	rt_status st;
	memset(&b, 0, sizeof b);
	rt_buf_puts(&b, several ? "epoch,min_train_rms,mean_train_rms" : "epoch,train_rms");
	if (valid)
		rt_buf_puts(&b, several ? ",min_valid_rms,mean_valid_rms" : ",valid_rms");
	rt_buf_puts(&b, "\n");
	for (long i = 0; i < h->n; i++) {
		const mbp_history_row *r = &h->rows[i];
		rt_buf_printf(&b, "%ld,%.9g", r->epoch, r->train);
		if (several)
			rt_buf_printf(&b, ",%.17g", r->train_mean);
		if (valid)
			rt_buf_printf(&b, ",%.17g", r->valid);
		if (valid && several)
			rt_buf_printf(&b, ",%.17g", r->valid_mean);
		rt_buf_puts(&b, "\n");
	}
	st = rt_write_buf_atomic(dir, "history.csv", &b, err);
	rt_buf_free(&b);
	return st;
}
