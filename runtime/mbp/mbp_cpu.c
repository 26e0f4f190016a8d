/* mbp_cpu.c: kind `mbp` on the CPU: the same training as the generated
 * kernels, value for value (mbp_core.h): patterns are processed in chunks of
 * job->chunk, each weight's chunk sum runs in pattern order, chunk sums are
 * added in chunk order. Several networks run on the thread pool one per
 * thread; a single network in batch mode splits its chunks over the pool. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kprep.h"
#include "cpu.h"
#include "log.h"
#include "mbp_ckpt.h"
#include "mbp_impl.h"
#include "signals.h"

/* One chunk's per-pattern values, [chunk][units] each. */
typedef struct scratch {
	float *f1, *m1, *y1, *y2, *yo, *dout, *d2, *d1, *ds;
	float *gpart;          /* the chunk's gradient sums (nweights) */
	const float **rows;    /* input rows of the chunk's patterns */
} scratch;

/* One network's training state. */
typedef struct net_state {
	float *w, *eta, *v, *gp, *wb, *g;
	long *batch;           /* pattern numbers of the current batch */
	float best, last_rms;
	long epoch, restores;
	int done;
} net_state;

typedef struct trainer {
	const mbp_job *job;
	net_state *nets;
	scratch *scr;          /* one per pool thread */
	int nscr;
	float *gparts;         /* parallel chunks: [chunks][nweights] */
	float *sseparts;
	long epoch_end;
	long cur;              /* the network whose chunks run in parallel */
	long batch_n;
} trainer;

static void scratch_free(scratch *s)
{
	float **f[] = { &s->f1, &s->m1, &s->y1, &s->y2, &s->yo, &s->dout, &s->d2, &s->d1, &s->ds,
			&s->gpart };
	for (size_t i = 0; i < sizeof f / sizeof f[0]; i++)
		free(*f[i]);
	free(s->rows);
}

static rt_status scratch_alloc(scratch *s, const mbp_shape *sh, int c, rt_error *err)
{
	size_t h1 = (size_t)c * sh->h1, h2 = (size_t)c * (sh->h2 + 1), no = (size_t)c * sh->no;
	memset(s, 0, sizeof *s);
	s->f1 = rt_malloc(h1 * sizeof(float), err);
	s->m1 = rt_malloc(h1 * sizeof(float), err);
	s->y1 = rt_malloc(h1 * sizeof(float), err);
	s->d1 = rt_malloc(h1 * sizeof(float), err);
	s->ds = rt_malloc(h1 * sizeof(float), err);
	s->y2 = rt_malloc(h2 * sizeof(float), err);
	s->d2 = rt_malloc(h2 * sizeof(float), err);
	s->yo = rt_malloc(no * sizeof(float), err);
	s->dout = rt_malloc(no * sizeof(float), err);
	s->gpart = rt_malloc((size_t)sh->nweights * sizeof(float), err);
	s->rows = rt_malloc((size_t)c * sizeof *s->rows, err);
	if (!s->f1 || !s->m1 || !s->y1 || !s->d1 || !s->ds || !s->y2 || !s->d2 || !s->yo ||
	    !s->dout || !s->gpart || !s->rows) {
		scratch_free(s);
		return RT_ERR_SYSTEM;
	}
	return RT_OK;
}

/* Forward and backward pass of nc patterns; returns the chunk's squared
 * error sum (patterns in order, outputs in order). */
static float chunk_passes(const mbp_job *job, const float *w, const long *pat, int nc, scratch *s)
{
	const mbp_shape *sh = &job->shape;
	const mbp_dataset *d = &job->data;
	int h1 = sh->h1, h2 = sh->h2, no = sh->no;
	float sse = 0.0f;
	for (int p = 0; p < nc; p++) {
		const float *x = d->x + (size_t)pat[p] * d->ni, *t = d->t + (size_t)pat[p] * no;
		float *y1 = s->y1 + p * h1, *last = y1, sq;
		for (int j = 0; j < h1; j++)
			mbp_fire_h1(sh, w, x, j, &s->f1[p * h1 + j], &s->m1[p * h1 + j], &y1[j]);
		if (h2 > 0) {
			last = s->y2 + p * h2;
			for (int k = 0; k < h2; k++)
				last[k] = mbp_fire_h2(sh, w, y1, k);
		}
		float se = 0.0f;
		for (int o = 0; o < no; o++) {
			s->yo[p * no + o] = mbp_fire_output(sh, w, last, o);
			s->dout[p * no + o] = mbp_output_delta(sh->act_output, s->yo[p * no + o], t[o], &sq);
			se = se + sq;
		}
		sse = sse + se;
		const float *dnext = s->dout + p * no;
		if (h2 > 0) {
			for (int k = 0; k < h2; k++)
				s->d2[p * h2 + k] = mbp_delta_h2(sh, w, dnext, last[k], k);
			dnext = s->d2 + p * h2;
		}
		for (int j = 0; j < h1; j++)
			mbp_delta_h1(sh, w, dnext, s->f1[p * h1 + j], s->m1[p * h1 + j], j,
				     &s->d1[p * h1 + j], &s->ds[p * h1 + j]);
	}
	return sse;
}

/* Gradient sums of one layer: g[j][0] = sum_p delta[p][j], g[j][1 + i] =
 * sum_p delta[p][j] * in_p[i], patterns in order. */
static void layer_sums(float *g, int rows, int nin, const float *delta, const float *const *in,
		       int nc)
{
	for (int j = 0; j < rows; j++) {
		float *gr = g + j * (nin + 1), s = 0.0f;
		for (int p = 0; p < nc; p++)
			s = s + delta[p * rows + j] * 1.0f;
		gr[0] = s;
		for (int i = 0; i < nin; i++) {
			s = 0.0f;
			for (int p = 0; p < nc; p++)
				s = s + delta[p * rows + j] * in[p][i];
			gr[1 + i] = s;
		}
	}
}

/* The chunk's gradient sums into s->gpart; returns its squared error. */
static float chunk_gradient(const mbp_job *job, const float *w, const long *pat, int nc, scratch *s)
{
	const mbp_shape *sh = &job->shape;
	float sse = chunk_passes(job, w, pat, nc, s);
	for (int p = 0; p < nc; p++)
		s->rows[p] = job->data.x + (size_t)pat[p] * sh->ni;
	layer_sums(s->gpart + sh->off_w1, sh->h1, sh->ni, s->d1, s->rows, nc);
	if (sh->space)
		layer_sums(s->gpart + sh->off_ws, sh->h1, sh->ni, s->ds, s->rows, nc);
	for (int p = 0; p < nc; p++)
		s->rows[p] = s->y1 + p * sh->h1;
	if (sh->h2 > 0) {
		layer_sums(s->gpart + sh->off_w2, sh->h2, sh->h1, s->d2, s->rows, nc);
		for (int p = 0; p < nc; p++)
			s->rows[p] = s->y2 + p * sh->h2;
	}
	layer_sums(s->gpart + sh->off_wo, sh->no, sh->nlast, s->dout, s->rows, nc);
	return sse;
}

/* The batch's pattern numbers: in set order (batch mode) or at positions
 * b0.. of the epoch's permutation. */
static void fill_batch(const mbp_job *job, long k, long epoch, const long *set, long n, long b0,
		       long nb, long *batch)
{
	uint32_t key[4];
	int half;
	if (job->mode == MBP_BATCH) {
		memcpy(batch, set + b0, (size_t)nb * sizeof *batch);
		return;
	}
	mbp_job_order_keys(job, k, epoch, key);
	half = mbp_order_half_bits((uint32_t)n);
	for (long q = 0; q < nb; q++)
		batch[q] = set[mbp_order_at(key, half, (uint32_t)n, (uint32_t)(b0 + q))];
}

/* Restore the best weights, shrink the step sizes, clear the memories. */
static void robust_restore(const mbp_job *job, net_state *ns)
{
	for (int i = 0; i < job->shape.nweights; i++) {
		ns->w[i] = ns->wb[i];
		ns->eta[i] = ns->eta[i] * job->rule.reduction;
		ns->v[i] = 0.0f;
		ns->gp[i] = 0.0f;
	}
	ns->restores++;
}

/* The end of a batch-mode epoch: target, robustness, then the correction
 * (skipped after a restore), as the MBP software's CUDA code orders them. */
static void batch_epoch_end(const mbp_job *job, net_state *ns, float sse, long n)
{
	float rms = sqrtf(sse / (float)(n * job->shape.no));
	int dec, nw = job->shape.nweights;
	ns->last_rms = rms;
	ns->epoch++;
	if (job->target_rms > 0 && rms <= (float)job->target_rms) {
		ns->done = 1;
		return;
	}
	dec = mbp_robust_decision(&job->rule, rms, ns->best);
	if (dec > 0) {
		ns->best = rms;
		memcpy(ns->wb, ns->w, (size_t)nw * sizeof *ns->w);
	} else if (dec < 0) {
		robust_restore(job, ns);
		return;
	}
	for (int i = 0; i < nw; i++)
		mbp_correct(&job->rule, ns->g[i] / (float)n, &ns->w[i], &ns->eta[i], &ns->v[i], &ns->gp[i]);
}

/* The end of an online or mini-batch epoch: robustness on the epoch's
 * running RMS, then the target. */
static void stochastic_epoch_end(const mbp_job *job, net_state *ns, float sse, long n)
{
	float rms = sqrtf(sse / (float)(n * job->shape.no));
	int dec = mbp_robust_decision(&job->rule, rms, ns->best);
	ns->last_rms = rms;
	ns->epoch++;
	if (dec > 0) {
		ns->best = rms;
		memcpy(ns->wb, ns->w, (size_t)job->shape.nweights * sizeof *ns->w);
	} else if (dec < 0) {
		robust_restore(job, ns);
	}
	if (job->target_rms > 0 && rms <= (float)job->target_rms)
		ns->done = 1;
}

/* One epoch of network k, serially, with scratch s. */
static void epoch_serial(const mbp_job *job, long k, net_state *ns, scratch *s)
{
	long n, nb, B;
	const long *set = mbp_job_train_set(job, k, &n);
	int nw = job->shape.nweights;
	float sse = 0.0f;
	B = mbp_job_batch(job, n);
	for (long b0 = 0; b0 < n; b0 += B) {
		nb = n - b0 < B ? n - b0 : B;
		fill_batch(job, k, ns->epoch, set, n, b0, nb, ns->batch);
		memset(ns->g, 0, (size_t)nw * sizeof *ns->g);
		for (long c0 = 0; c0 < nb; c0 += job->chunk) {
			int nc = (int)(nb - c0 < job->chunk ? nb - c0 : job->chunk);
			sse = sse + chunk_gradient(job, ns->w, ns->batch + c0, nc, s);
			for (int i = 0; i < nw; i++)
				ns->g[i] = ns->g[i] + s->gpart[i];
		}
		if (job->mode != MBP_BATCH)
			for (int i = 0; i < nw; i++)
				mbp_correct(&job->rule, ns->g[i] / (float)nb, &ns->w[i], &ns->eta[i],
					    &ns->v[i], &ns->gp[i]);
	}
	if (job->mode == MBP_BATCH)
		batch_epoch_end(job, ns, sse, n);
	else
		stochastic_epoch_end(job, ns, sse, n);
}

/* One batch-mode epoch of the job's only network, its chunks on the pool. */
static void chunks_body(void *ctx, long begin, long end, int thread)
{
	trainer *t = ctx;
	const mbp_job *job = t->job;
	net_state *ns = &t->nets[t->cur];
	scratch *s = &t->scr[thread];
	size_t nw = (size_t)job->shape.nweights;
	for (long c = begin; c < end; c++) {
		long c0 = c * job->chunk;
		int nc = (int)(t->batch_n - c0 < job->chunk ? t->batch_n - c0 : job->chunk);
		t->sseparts[c] = chunk_gradient(job, ns->w, ns->batch + c0, nc, s);
		memcpy(t->gparts + (size_t)c * nw, s->gpart, nw * sizeof(float));
	}
}

static rt_status epoch_parallel_chunks(trainer *t, rt_error *err)
{
	const mbp_job *job = t->job;
	net_state *ns = &t->nets[0];
	long n, nchunks;
	const long *set = mbp_job_train_set(job, 0, &n);
	int nw = job->shape.nweights;
	float sse = 0.0f;
	rt_status st;
	nchunks = (n + job->chunk - 1) / job->chunk;
	t->cur = 0;
	t->batch_n = n;
	fill_batch(job, 0, ns->epoch, set, n, 0, n, ns->batch);
	if ((st = cpu_parallel_for(nchunks, 1, chunks_body, t, err)) != RT_OK)
		return st;
	memset(ns->g, 0, (size_t)nw * sizeof *ns->g);
	for (long c = 0; c < nchunks; c++) {
		const float *gp = t->gparts + (size_t)c * nw;
		sse = sse + t->sseparts[c];
		for (int i = 0; i < nw; i++)
			ns->g[i] = ns->g[i] + gp[i];
	}
	batch_epoch_end(job, ns, sse, n);
	return RT_OK;
}

/* Networks [begin, end) up to t->epoch_end, one per pool thread. */
static void networks_body(void *ctx, long begin, long end, int thread)
{
	trainer *t = ctx;
	for (long k = begin; k < end; k++) {
		net_state *ns = &t->nets[k];
		while (!ns->done && ns->epoch < t->epoch_end)
			epoch_serial(t->job, k, ns, &t->scr[thread]);
	}
}

static void trainer_free(trainer *t)
{
	if (t->nets)
		for (long k = 0; k < t->job->networks; k++) {
			net_state *ns = &t->nets[k];
			free(ns->w);
			free(ns->eta);
			free(ns->v);
			free(ns->gp);
			free(ns->wb);
			free(ns->g);
			free(ns->batch);
		}
	free(t->nets);
	for (int i = 0; i < t->nscr; i++)
		scratch_free(&t->scr[i]);
	free(t->scr);
	free(t->gparts);
	free(t->sseparts);
}

static rt_status net_init(const mbp_job *job, long k, net_state *ns, rt_error *err)
{
	size_t nw = (size_t)job->shape.nweights;
	long n;
	mbp_job_train_set(job, k, &n);
	ns->w = rt_malloc(nw * sizeof(float), err);
	ns->eta = rt_malloc(nw * sizeof(float), err);
	ns->v = rt_calloc(nw, sizeof(float), err);
	ns->gp = rt_calloc(nw, sizeof(float), err);
	ns->wb = rt_malloc(nw * sizeof(float), err);
	ns->g = rt_malloc(nw * sizeof(float), err);
	ns->batch = rt_malloc((size_t)n * sizeof(long), err);
	if (!ns->w || !ns->eta || !ns->v || !ns->gp || !ns->wb || !ns->g || !ns->batch)
		return RT_ERR_SYSTEM;
	mbp_job_initial_weights(job, k, ns->w);
	memcpy(ns->wb, ns->w, nw * sizeof(float));
	for (size_t i = 0; i < nw; i++)
		ns->eta[i] = job->step0;
	ns->best = INFINITY;
	return RT_OK;
}

static rt_status trainer_init(trainer *t, const mbp_job *job, rt_error *err)
{
	long n;
	memset(t, 0, sizeof *t);
	t->job = job;
	t->nets = rt_calloc((size_t)job->networks, sizeof *t->nets, err);
	if (!t->nets)
		return RT_ERR_SYSTEM;
	for (long k = 0; k < job->networks; k++)
		if (net_init(job, k, &t->nets[k], err) != RT_OK)
			return RT_ERR_SYSTEM;
	t->scr = rt_calloc((size_t)cpu_threads(), sizeof *t->scr, err);
	if (!t->scr)
		return RT_ERR_SYSTEM;
	for (; t->nscr < cpu_threads(); t->nscr++)
		if (scratch_alloc(&t->scr[t->nscr], &job->shape, job->chunk, err) != RT_OK)
			return RT_ERR_SYSTEM;
	mbp_job_train_set(job, 0, &n);
	if (mbp_job_networks_all(job) == 1 && job->mode == MBP_BATCH && n > job->chunk) {
		long nchunks = (n + job->chunk - 1) / job->chunk;
		t->gparts = rt_malloc((size_t)nchunks * job->shape.nweights * sizeof(float), err);
		t->sseparts = rt_malloc((size_t)nchunks * sizeof(float), err);
		if (!t->gparts || !t->sseparts)
			return RT_ERR_SYSTEM;
	}
	return RT_OK;
}

/* Networks still training and the lowest last RMS among all. */
static void summary(const trainer *t, long *alive, float *best)
{
	*alive = 0;
	*best = INFINITY;
	for (long k = 0; k < t->job->networks; k++) {
		*alive += !t->nets[k].done && t->nets[k].epoch < t->job->epochs;
		if (t->nets[k].last_rms < *best)
			*best = t->nets[k].last_rms;
	}
}

static void fill_outcome(const trainer *t, mbp_outcome *out, double seconds)
{
	const mbp_job *job = t->job;
	size_t nw = (size_t)job->shape.nweights;
	out->seconds = seconds;
	for (long k = 0; k < job->networks; k++) {
		const net_state *ns = &t->nets[k];
		memcpy(out->w + (size_t)k * nw, ns->w, nw * sizeof(float));
		out->res[k].epochs = ns->epoch;
		out->res[k].reached = ns->done;
		out->res[k].train_rms = ns->last_rms;
		out->res[k].best_rms = ns->best;
		out->res[k].restores = ns->restores;
	}
	mbp_outcome_count(out, job);
}

/* Every network's state to or from a checkpoint's snapshot. */
static void nets_snapshot(trainer *t, mbp_snapshot *s, int to_snapshot)
{
	size_t nw = (size_t)t->job->shape.nweights, bytes = nw * sizeof(float);
	for (long k = 0; k < t->job->networks; k++) {
		net_state *ns = &t->nets[k];
		float *arrays[][2] = { { ns->w, s->w }, { ns->eta, s->eta }, { ns->v, s->v },
				       { ns->gp, s->gp }, { ns->wb, s->wb } };
		mbp_result *r = &s->res[k];
		for (int a = 0; a < 5; a++)
			memcpy(to_snapshot ? arrays[a][1] + k * nw : arrays[a][0],
			       to_snapshot ? arrays[a][0] : arrays[a][1] + k * nw, bytes);
		if (to_snapshot) {
			*r = (mbp_result){ ns->epoch, ns->done, ns->last_rms, ns->best, ns->restores };
		} else {
			ns->epoch = r->epochs;
			ns->done = r->reached;
			ns->last_rms = r->train_rms;
			ns->best = r->best_rms;
			ns->restores = r->restores;
		}
	}
}

/* The history row of epoch: the networks as they are now, through out. */
static rt_status add_history(const trainer *t, mbp_outcome *out, long epoch, rt_error *err)
{
	fill_outcome(t, out, 0);
	return mbp_history_add(t->job, epoch, out, err);
}

/* Writes the checkpoint of the networks at epoch. */
static rt_status save_nets(trainer *t, long epoch, rt_error *err)
{
	mbp_snapshot s;
	rt_status st = mbp_snapshot_alloc(&s, t->job, err);
	if (st != RT_OK)
		return st;
	nets_snapshot(t, &s, 1);
	s.epoch = epoch;
	st = mbp_ckpt_save(t->job, &s, err);
	mbp_snapshot_free(&s);
	return st;
}

/* The networks from the checkpoint resumed from; *epoch its epoch. */
static rt_status resume_nets(trainer *t, long *epoch, rt_error *err)
{
	mbp_snapshot s;
	rt_status st = mbp_snapshot_alloc(&s, t->job, err);
	if (st == RT_OK && (st = mbp_ckpt_restore(t->job, &s, err)) == RT_OK) {
		nets_snapshot(t, &s, 0);
		*epoch = s.epoch;
	}
	mbp_snapshot_free(&s);
	return st;
}

rt_status mbp_cpu_train(const mbp_job *job, mbp_progress_fn progress, void *ctx,
			mbp_outcome *out, rt_error *err)
{
	trainer t;
	rt_status st;
	double t0;
	long alive = 1, epoch = 0;
	float best;
	memset(&t, 0, sizeof t);
	t.job = job;
	if ((st = mbp_outcome_alloc(out, job, err)) != RT_OK)
		return st;
	if ((st = trainer_init(&t, job, err)) != RT_OK ||
	    (mbp_ckpt_resuming(job) && (st = resume_nets(&t, &epoch, err)) != RT_OK))
		goto done;
	rt_run_begins("mbp");
	snprintf(out->backend, sizeof out->backend, "cpu");
	cpu_model_name(out->device, sizeof out->device);
	snprintf(out->detail, sizeof out->detail, "%d thread(s), %s, chunk %d", cpu_threads(),
		 t.gparts ? "chunks in parallel" : "networks in parallel", job->chunk);
	t0 = rt_now();
	int stop = rt_stop_requested();
	while (alive > 0 && epoch < job->epochs && !stop) {
		long from = epoch;
		epoch = mbp_block_end(job, epoch, job->epochs);
		t.epoch_end = epoch;
		if (t.gparts) {
			while (!t.nets[0].done && t.nets[0].epoch < epoch)
				if ((st = epoch_parallel_chunks(&t, err)) != RT_OK)
					goto done;
		} else if ((st = cpu_parallel_for(job->networks, 1, networks_body, &t, err)) != RT_OK) {
			goto done;
		}
		summary(&t, &alive, &best);
		for (long k = 0; k < job->networks; k++)
			if ((st = mbp_check_rms(job, k, t.nets[k].last_rms, from, t.nets[k].epoch, err)))
				goto done;
		if (progress && mbp_block_reports(job, epoch, job->epochs))
			progress(ctx, job, epoch, alive, best, rt_now() - t0);
		if (mbp_history_due(job, epoch) && (st = add_history(&t, out, epoch, err)) != RT_OK)
			goto done;
		stop = rt_stop_requested();
		if ((st = mbp_shard_agree(&alive, &stop, err)) != RT_OK)
			goto done;
		if (mbp_ckpt_due(job, epoch, stop) && (st = save_nets(&t, epoch, err)) != RT_OK)
			goto done;
	}
	if (stop && mbp_ckpt_due(job, epoch, stop) && (st = save_nets(&t, epoch, err)) != RT_OK)
		goto done;
	fill_outcome(&t, out, rt_now() - t0);
done:
	trainer_free(&t);
	return st;
}

rt_status mbp_cpu_gradient(const mbp_job *job, const float *w, const long *set, long n, float *g,
			   float *sse, rt_error *err)
{
	scratch s;
	int nw = job->shape.nweights;
	rt_status st = scratch_alloc(&s, &job->shape, job->chunk, err);
	if (st != RT_OK)
		return st;
	memset(g, 0, (size_t)nw * sizeof *g);
	*sse = 0.0f;
	for (long c0 = 0; c0 < n; c0 += job->chunk) {
		int nc = (int)(n - c0 < job->chunk ? n - c0 : job->chunk);
		*sse = *sse + chunk_gradient(job, w, set + c0, nc, &s);
		for (int i = 0; i < nw; i++)
			g[i] = g[i] + s.gpart[i];
	}
	for (int i = 0; i < nw; i++)
		g[i] = g[i] / (float)n;
	scratch_free(&s);
	return RT_OK;
}
