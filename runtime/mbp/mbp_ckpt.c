/* mbp_ckpt.c: kind mbp's checkpoint state, written and restored
 * (mbp_ckpt.h). Layout: the run's epoch, networks, weights per network,
 * then the five weight arrays (w, eta, v, gp, wb; floats as this machine
 * lays them out), then per network its epochs, reached, last RMS, best RMS
 * (as doubles: exact for floats, infinity included) and restores; then the
 * history so far (history.csv's rows: HISTORY_TAG, the interval, the row
 * count, each row's epoch and four doubles; a checkpoint written before
 * history.csv existed ends before it and resumes with the rows from its
 * epoch on, said in a warning). A job
 * spread over MPI ranks writes the same file: rank 0 gathers every rank's
 * networks; a resume on any number of ranks takes each rank's share. */
#include <stdlib.h>
#include <string.h>

#include "comm.h"
#include "log.h"
#include "mbp_ckpt.h"
#include "signals.h"

rt_status mbp_ckpt_open(mbp_ckpt *ck, const rt_spec *spec, const rt_options *opt, const char *dir,
			rt_error *err)
{
	ck->saved_epoch = -1;
	return rt_ckpt_plan_open(&ck->plan, "mbp", spec, opt->checkpoint_every, opt->resume, dir, err);
}

void mbp_ckpt_close(mbp_ckpt *ck)
{
	rt_ckpt_plan_close(&ck->plan);
}

rt_status mbp_snapshot_alloc(mbp_snapshot *s, const mbp_job *job, rt_error *err)
{
	size_t all = (size_t)job->networks * (size_t)job->shape.nweights;
	memset(s, 0, sizeof *s);
	s->networks = job->networks;
	s->nweights = job->shape.nweights;
	s->w = rt_malloc(all * sizeof(float) + 1, err);
	s->eta = rt_malloc(all * sizeof(float) + 1, err);
	s->v = rt_malloc(all * sizeof(float) + 1, err);
	s->gp = rt_malloc(all * sizeof(float) + 1, err);
	s->wb = rt_malloc(all * sizeof(float) + 1, err);
	s->res = rt_calloc((size_t)job->networks, sizeof *s->res, err);
	if (!s->w || !s->eta || !s->v || !s->gp || !s->wb || !s->res) {
		mbp_snapshot_free(s);
		return RT_ERR_SYSTEM;
	}
	return RT_OK;
}

void mbp_snapshot_free(mbp_snapshot *s)
{
	free(s->w);
	free(s->eta);
	free(s->v);
	free(s->gp);
	free(s->wb);
	free(s->res);
	memset(s, 0, sizeof *s);
}

long mbp_block_end(const mbp_job *job, long epoch, long limit)
{
	long end = (epoch / job->report_every + 1) * job->report_every;
	const mbp_ckpt *ck = job->ckpt;
	if (job->hist) {
		long at = (epoch / job->hist->every + 1) * job->hist->every;
		end = at < end ? at : end;
	}
	if (ck && ck->plan.every > 0) {
		long at = (epoch / ck->plan.every + 1) * ck->plan.every;
		end = at < end ? at : end;
	}
	return end < limit ? end : limit;
}

int mbp_block_reports(const mbp_job *job, long epoch, long limit)
{
	return epoch % job->report_every == 0 || epoch == limit;
}

int mbp_ckpt_due(const mbp_job *job, long epoch, int stop)
{
	const mbp_ckpt *ck = job->ckpt;
	if (!ck || ck->saved_epoch == epoch)
		return 0;
	if (stop)
		return 1;
	return rt_ckpt_plan_due(&ck->plan, epoch);
}

int mbp_ckpt_resuming(const mbp_job *job)
{
	return job->ckpt && job->ckpt->plan.from.data;
}

/* Marks the history after the networks ("HISTORY\0"). */
#define HISTORY_TAG 0x0059524F54534948ULL

static void put_history(rt_buf *b, const mbp_history *h)
{
	rt_ckpt_put_u64(b, HISTORY_TAG);
	rt_ckpt_put_u64(b, (uint64_t)h->every);
	rt_ckpt_put_u64(b, (uint64_t)h->n);
	for (long i = 0; i < h->n; i++) {
		const mbp_history_row *r = &h->rows[i];
		rt_ckpt_put_u64(b, (uint64_t)r->epoch);
		rt_ckpt_put_f64(b, r->train);
		rt_ckpt_put_f64(b, r->train_mean);
		rt_ckpt_put_f64(b, r->valid);
		rt_ckpt_put_f64(b, r->valid_mean);
	}
}

/* The history after the networks into job->hist (none: an older
 * checkpoint, warned about); rows past the checkpoint's epoch, out of
 * order or too many are refused. */
static rt_status get_history(rt_ckpt *f, const mbp_job *job, long epoch, rt_error *err)
{
	mbp_history *h = job->hist;
	uint64_t tag, every, n, at;
	rt_status st;
	if (f->pos == f->state_size) {
		rt_warn("%s: a checkpoint without the history (written before history.csv): "
			"history.csv starts after epoch %ld", f->path, epoch);
		return RT_OK;
	}
	if ((st = rt_ckpt_get_u64(f, &tag, err)) || (st = rt_ckpt_get_u64(f, &every, err)) ||
	    (st = rt_ckpt_get_u64(f, &n, err)))
		return st;
	if (tag != HISTORY_TAG || every != (uint64_t)h->every || n > MBP_HISTORY_ROWS)
		return rt_fail(err, RT_ERR_INPUT, "%s: expected the history after the networks (a row "
			       "every %ld epochs, at most %d), got a malformed one", f->path, h->every,
			       MBP_HISTORY_ROWS);
	for (uint64_t i = 0; i < n; i++) {
		mbp_history_row r;
		if ((st = rt_ckpt_get_u64(f, &at, err)) || (st = rt_ckpt_get_f64(f, &r.train, err)) ||
		    (st = rt_ckpt_get_f64(f, &r.train_mean, err)) ||
		    (st = rt_ckpt_get_f64(f, &r.valid, err)) ||
		    (st = rt_ckpt_get_f64(f, &r.valid_mean, err)))
			return st;
		r.epoch = (long)at;
		if (at > (uint64_t)epoch || (i > 0 && at <= (uint64_t)h->rows[i - 1].epoch))
			return rt_fail(err, RT_ERR_INPUT, "%s: history row %llu at epoch %llu: expected "
				       "epochs ascending up to the checkpoint's %ld", f->path,
				       (unsigned long long)i + 1, (unsigned long long)at, epoch);
		h->rows[i] = r;
	}
	h->n = (long)n;
	return RT_OK;
}

/* Writes s, every network of the job, as the checkpoint (and job->hist). */
static rt_status write_snapshot(mbp_ckpt *ck, const mbp_snapshot *s, const mbp_history *h,
				rt_error *err)
{
	size_t bytes = (size_t)s->networks * (size_t)s->nweights * sizeof(float);
	rt_buf b = {0};
	rt_ckpt_put_u64(&b, (uint64_t)s->epoch);
	rt_ckpt_put_u64(&b, (uint64_t)s->networks);
	rt_ckpt_put_u64(&b, (uint64_t)s->nweights);
	rt_ckpt_put_bytes(&b, s->w, bytes);
	rt_ckpt_put_bytes(&b, s->eta, bytes);
	rt_ckpt_put_bytes(&b, s->v, bytes);
	rt_ckpt_put_bytes(&b, s->gp, bytes);
	rt_ckpt_put_bytes(&b, s->wb, bytes);
	for (long k = 0; k < s->networks; k++) {
		const mbp_result *r = &s->res[k];
		rt_ckpt_put_u64(&b, (uint64_t)r->epochs);
		rt_ckpt_put_u64(&b, (uint64_t)r->reached);
		rt_ckpt_put_f64(&b, r->train_rms);
		rt_ckpt_put_f64(&b, r->best_rms);
		rt_ckpt_put_u64(&b, (uint64_t)r->restores);
	}
	if (h)
		put_history(&b, h);
	rt_status st = rt_ckpt_write(ck->plan.dir, "mbp", ck->plan.spec, &b, err);
	rt_buf_free(&b);
	return st;
}

/* The five weight arrays and the results of a snapshot, with their sizes
 * per network. */
enum { SNAPSHOT_FIELDS = 6 };
static void snapshot_fields(const mbp_snapshot *s, void **field[SNAPSHOT_FIELDS],
			    size_t each[SNAPSHOT_FIELDS])
{
	void **f[SNAPSHOT_FIELDS] = { (void **)&s->w, (void **)&s->eta, (void **)&s->v,
				      (void **)&s->gp, (void **)&s->wb, (void **)&s->res };
	for (int k = 0; k < SNAPSHOT_FIELDS; k++) {
		field[k] = f[k];
		each[k] = k < 5 ? (size_t)s->nweights * sizeof(float) : sizeof *s->res;
	}
}

/* Several ranks (mbp_shard.c): every rank's networks gathered on rank 0,
 * which writes the checkpoint one process would have written. */
static rt_status save_gathered(const mbp_job *job, const mbp_snapshot *s, rt_error *err)
{
	mbp_snapshot whole = { .epoch = s->epoch, .networks = job->networks_total,
			       .nweights = s->nweights };
	void **mine[SNAPSHOT_FIELDS], **all[SNAPSHOT_FIELDS];
	size_t each[SNAPSHOT_FIELDS];
	snapshot_fields(s, mine, each);
	snapshot_fields(&whole, all, each);
	rt_status st = RT_OK;
	for (int k = 0; k < SNAPSHOT_FIELDS && !st; k++)
		st = rt_shard_gather_copy(*mine[k], each[k], whole.networks, all[k], err);
	if (!st && rt_comm_rank() == 0)
		st = write_snapshot(job->ckpt, &whole, job->hist, err);
	for (int k = 0; k < SNAPSHOT_FIELDS; k++)
		free(*all[k]);
	return st;
}

rt_status mbp_ckpt_save(const mbp_job *job, const mbp_snapshot *s, rt_error *err)
{
	mbp_ckpt *ck = job->ckpt;
	rt_status st = job->networks_total > 0 ? save_gathered(job, s, err)
					       : write_snapshot(ck, s, job->hist, err);
	if (st == RT_OK) {
		ck->plan.last = rt_now();
		ck->saved_epoch = s->epoch;
		rt_info("checkpoint: epoch %ld in %s/%s", s->epoch, ck->plan.dir, rt_ckpt_file_name());
	}
	return st;
}

/* Network k's scalars; an epoch count past the run's is refused. */
static rt_status restore_result(rt_ckpt *f, const mbp_job *job, long epoch, mbp_result *r,
				rt_error *err)
{
	uint64_t epochs, reached, restores;
	double last, best;
	rt_status st;
	if ((st = rt_ckpt_get_u64(f, &epochs, err)) || (st = rt_ckpt_get_u64(f, &reached, err)) ||
	    (st = rt_ckpt_get_f64(f, &last, err)) || (st = rt_ckpt_get_f64(f, &best, err)) ||
	    (st = rt_ckpt_get_u64(f, &restores, err)))
		return st;
	if (epochs > (uint64_t)epoch || reached > 1)
		return rt_fail(err, RT_ERR_INPUT, "%s: a network at epoch %llu in a checkpoint of "
			       "epoch %ld of %ld", f->path, (unsigned long long)epochs, epoch, job->epochs);
	r->epochs = (long)epochs;
	r->reached = (int)reached;
	r->train_rms = (float)last;
	r->best_rms = (float)best;
	r->restores = (long)restores;
	return RT_OK;
}

/* s (every network of job) from the checkpoint resumed from. */
static rt_status read_snapshot(const mbp_job *job, mbp_snapshot *s, rt_error *err)
{
	rt_ckpt *f = &job->ckpt->plan.from;
	size_t bytes = (size_t)s->networks * (size_t)s->nweights * sizeof(float);
	uint64_t epoch, networks, nweights;
	rt_status st;
	if ((st = rt_ckpt_get_u64(f, &epoch, err)) || (st = rt_ckpt_get_u64(f, &networks, err)) ||
	    (st = rt_ckpt_get_u64(f, &nweights, err)))
		return st;
	if (networks != (uint64_t)s->networks || nweights != (uint64_t)s->nweights ||
	    epoch > (uint64_t)job->epochs)
		return rt_fail(err, RT_ERR_INPUT, "%s: %llu network(s) of %llu weights at epoch %llu; "
			       "the spec says %ld of %d, up to epoch %ld", f->path,
			       (unsigned long long)networks, (unsigned long long)nweights,
			       (unsigned long long)epoch, s->networks, s->nweights, job->epochs);
	s->epoch = (long)epoch;
	if ((st = rt_ckpt_get_bytes(f, s->w, bytes, err)) || (st = rt_ckpt_get_bytes(f, s->eta, bytes, err)) ||
	    (st = rt_ckpt_get_bytes(f, s->v, bytes, err)) || (st = rt_ckpt_get_bytes(f, s->gp, bytes, err)) ||
	    (st = rt_ckpt_get_bytes(f, s->wb, bytes, err)))
		return st;
	for (long k = 0; k < s->networks; k++)
		if ((st = restore_result(f, job, s->epoch, &s->res[k], err)))
			return st;
	if (job->hist && (st = get_history(f, job, s->epoch, err)))
		return st;
	if (f->pos != f->state_size)
		return rt_fail(err, RT_ERR_INPUT, "%s: %zu bytes after the state", f->path,
			       f->state_size - f->pos);
	rt_info("resuming from %s: epoch %ld done", f->path, s->epoch);
	return RT_OK;
}

/* Several ranks: the whole job's checkpoint read, this rank's share kept. */
static rt_status restore_share(const mbp_job *job, mbp_snapshot *s, rt_error *err)
{
	mbp_job whole_job = *job;   /* pointers shared, never freed through it */
	whole_job.networks = job->networks_total;
	whole_job.net_base = 0;
	mbp_snapshot whole;
	rt_status st = mbp_snapshot_alloc(&whole, &whole_job, err);
	if (st == RT_OK)
		st = read_snapshot(&whole_job, &whole, err);
	if (st == RT_OK) {
		void **share[SNAPSHOT_FIELDS], **all[SNAPSHOT_FIELDS];
		size_t each[SNAPSHOT_FIELDS];
		snapshot_fields(s, share, each);
		snapshot_fields(&whole, all, each);
		for (int k = 0; k < SNAPSHOT_FIELDS; k++)
			memcpy(*share[k], (char *)*all[k] + (size_t)job->net_base * each[k],
			       (size_t)job->networks * each[k]);
		s->epoch = whole.epoch;
	}
	mbp_snapshot_free(&whole);
	return st;
}

rt_status mbp_ckpt_restore(const mbp_job *job, mbp_snapshot *s, rt_error *err)
{
	return job->networks_total > 0 ? restore_share(job, s, err) : read_snapshot(job, s, err);
}
