/* de_ckpt.c: kind de's checkpoint state, written and restored (de_ckpt.h).
 * Layout: problems, population, dim and history length (checked against
 * the job), the run's generation, the seconds and kernel milliseconds so
 * far, then the de_state array, the populations (rows), the fitness and
 * the history, each as this machine lays them out (little-endian floats and
 * 16-byte de_state; the checksum catches anything else). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "comm.h"
#include "de_ckpt.h"
#include "log.h"
#include "signals.h"

rt_status de_snapshot_alloc(de_snapshot *s, const de_job *job, rt_error *err)
{
	size_t P = (size_t)job->problems, hl = (size_t)de_job_hist_len(job);
	memset(s, 0, sizeof *s);
	s->st = rt_malloc(P * sizeof *s->st, err);
	s->pop = s->st ? rt_malloc(P * job->np * job->dim * sizeof *s->pop, err) : NULL;
	s->fit = s->pop ? rt_malloc(P * job->np * sizeof *s->fit, err) : NULL;
	if (s->fit && hl > 0)
		s->hist = rt_malloc(P * hl * sizeof *s->hist, err);
	int adaptive = de_is_adaptive(job->strategy);
	if (s->fit && adaptive) {
		s->ad = rt_calloc(P * de_adapt_ad_len(job), sizeof *s->ad, err);
		s->arch = s->ad ? rt_calloc(P * job->params.a_cap * job->dim, sizeof *s->arch, err) : NULL;
	}
	if (!s->fit || (hl > 0 && !s->hist) || (adaptive && !s->arch)) {
		de_snapshot_free(s);
		return RT_ERR_SYSTEM;
	}
	return RT_OK;
}

void de_snapshot_free(de_snapshot *s)
{
	free(s->st);
	free(s->pop);
	free(s->fit);
	free(s->hist);
	free(s->ad);
	free(s->arch);
	memset(s, 0, sizeof *s);
}

rt_status de_ckpt_open(de_ckpt *ck, const rt_spec *spec, const rt_options *opt, const char *dir,
		       rt_error *err)
{
	rt_status st = rt_ckpt_plan_open(&ck->plan, "de", spec, opt->checkpoint_every, opt->resume,
					 dir, err);
	return st == RT_OK ? rt_mkdirs(dir, err) : st;
}

void de_ckpt_close(de_ckpt *ck)
{
	rt_ckpt_plan_close(&ck->plan);
}

int de_ckpt_resuming(const de_ckpt *ck)
{
	return ck && ck->plan.from.data;
}

long de_ckpt_stretch_end(const de_ckpt *ck, const de_job *job, long gen)
{
	long end = (gen / job->report_every + 1) * job->report_every;
	if (ck && ck->plan.every > 0 && (gen / ck->plan.every + 1) * ck->plan.every < end)
		end = (gen / ck->plan.every + 1) * ck->plan.every;
	long every = job->isl ? job->islands.interval : 0;   /* and at migrations */
	if (every > 0 && (gen / every + 1) * every < end)
		end = (gen / every + 1) * every;
	long cec = de_cec_next(job, gen);   /* and at CEC 2017's error checkpoints */
	if (cec < end)
		end = cec;
	return end < job->gens ? end : job->gens;
}

int de_ckpt_due(const de_ckpt *ck, long gen, int stop)
{
	if (!ck)
		return 0;
	if (stop)
		return 1;   /* a stop writes one whatever --checkpoint-every says, as gp's does */
	return rt_ckpt_plan_due(&ck->plan, gen);
}

/* The sizes the state was made for, compared on restore. */
static void put_shape(rt_buf *b, const de_job *job)
{
	rt_ckpt_put_u64(b, (uint64_t)job->problems);
	rt_ckpt_put_u64(b, (uint64_t)job->np);
	rt_ckpt_put_u64(b, (uint64_t)job->dim);
	rt_ckpt_put_u64(b, (uint64_t)de_job_hist_len(job));
}

/* The job's state as one process holds it, written by this one. */
static rt_status save_state(de_ckpt *ck, const de_job *job, const de_snapshot *s, rt_error *err)
{
	size_t P = (size_t)job->problems, hl = (size_t)de_job_hist_len(job);
	float none = 0;   /* stands for a missing history (no null pointer to memcpy) */
	rt_buf b = {0};
	put_shape(&b, job);
	rt_ckpt_put_u64(&b, (uint64_t)s->gen);
	rt_ckpt_put_f64(&b, s->seconds);
	rt_ckpt_put_f64(&b, s->kernel_ms);
	rt_ckpt_put_bytes(&b, s->st, P * sizeof *s->st);
	rt_ckpt_put_bytes(&b, s->pop, P * job->np * job->dim * sizeof *s->pop);
	rt_ckpt_put_bytes(&b, s->fit, P * job->np * sizeof *s->fit);
	rt_ckpt_put_bytes(&b, s->hist ? s->hist : &none, P * hl * sizeof *s->hist);
	if (s->ad) {
		rt_ckpt_put_bytes(&b, s->ad, P * de_adapt_ad_len(job) * sizeof *s->ad);
		rt_ckpt_put_bytes(&b, s->arch, P * job->params.a_cap * job->dim * sizeof *s->arch);
	}
	rt_status st = job->isl ? rt_islands_save(job->isl, &b, err) : RT_OK;
	if (st == RT_OK)
		st = rt_ckpt_write(ck->plan.dir, "de", ck->plan.spec, &b, err);
	rt_buf_free(&b);
	if (st == RT_OK) {
		ck->plan.last = rt_now();
		rt_info("de: checkpoint: generation %ld in %s/%s", s->gen, ck->plan.dir, rt_ckpt_file_name());
	}
	return st;
}

/* The shape and generation of the state; RT_ERR_INPUT when they do not
 * fit the job. */
static rt_status restore_shape(rt_ckpt *from, const de_job *job, long *gen, rt_error *err)
{
	uint64_t v[5];
	uint64_t want[4] = { (uint64_t)job->problems, (uint64_t)job->np, (uint64_t)job->dim,
			     (uint64_t)de_job_hist_len(job) };
	static const char *const what[4] = { "problems", "population", "dim", "history entries" };
	for (int k = 0; k < 5; k++) {
		rt_status st = rt_ckpt_get_u64(from, &v[k], err);
		if (st != RT_OK)
			return st;
	}
	for (int k = 0; k < 4; k++)
		if (v[k] != want[k])
			return rt_fail(err, RT_ERR_INPUT, "%s: %llu %s, the job has %llu", from->path,
				       (unsigned long long)v[k], what[k], (unsigned long long)want[k]);
	if (v[4] > (uint64_t)job->gens)
		return rt_fail(err, RT_ERR_INPUT, "%s: generation %llu, past the run's limit of %ld",
			       from->path, (unsigned long long)v[4], job->gens);
	*gen = (long)v[4];
	return RT_OK;
}

/* Is x an integer in [lo, hi]? */
static int whole_in(double x, double lo, double hi)
{
	return x >= lo && x <= hi && x == floor(x);
}

/* SaDE's state (templates/de/de_mixed.h) is one a run could reach. */
static int sade_state_ok(const de_job *job, const double *ad)
{
	double lp = job->params.H;
	if (!whole_in(ad[DE_SA_GENS], 0, 1e15))
		return 0;
	for (int k = 0; k < DE_MIX_KINDS; k++)
		if (!(ad[DE_SA_P + k] >= 0 && ad[DE_SA_P + k] <= 1 && ad[DE_SA_CRM + k] >= 0 &&
		      ad[DE_SA_CRM + k] <= 1 && whole_in(ad[DE_SA_COUNT + k], 0, lp) &&
		      whole_in(ad[DE_SA_HEAD + k], 0, lp - 1) && whole_in(ad[DE_SA_NS + k], 0, 1e15) &&
		      whole_in(ad[DE_SA_NF + k], 0, 1e15)))
			return 0;
	return 1;
}

/* Every problem's state is one the run could have reached by gen. */
static rt_status check_states(const rt_ckpt *from, const de_job *job, const de_snapshot *s,
			      rt_error *err)
{
	for (long p = 0; p < job->problems; p++) {
		const de_state *q = &s->st[p];
		if (q->gens < 0 || q->gens > s->gen || (q->done != 0 && q->done != 1) ||
		    q->best_index < 0 || q->best_index >= job->np ||
		    (!q->done && q->gens != s->gen) ||
		    memcmp(&q->best, &s->fit[(size_t)p * job->np + q->best_index], sizeof q->best))
			return rt_fail(err, RT_ERR_INPUT, "%s: problem %ld: an impossible state at "
				       "generation %ld (generations %d, best index %d, stopped %d)",
				       from->path, p, s->gen, (int)q->gens, (int)q->best_index,
				       (int)q->done);
		const double *ad = s->ad ? s->ad + (size_t)p * de_adapt_ad_len(job) : NULL;
		if (ad && job->strategy == DE_SADE && !sade_state_ok(job, ad))
			return rt_fail(err, RT_ERR_INPUT, "%s: problem %ld: an impossible SaDE state "
				       "(generations %g, probabilities %g %g %g %g)", from->path, p,
				       ad[DE_SA_GENS], ad[DE_SA_P], ad[DE_SA_P + 1], ad[DE_SA_P + 2], ad[DE_SA_P + 3]);
		if (ad && job->strategy != DE_SADE &&
		    !(ad[DE_AD_NP] >= 4 && ad[DE_AD_NP] <= job->np && ad[DE_AD_K] >= 0 &&
		      ad[DE_AD_K] < job->params.H && ad[DE_AD_AMAX] >= 0 &&
		      ad[DE_AD_AMAX] <= job->params.a_cap && ad[DE_AD_ACOUNT] >= 0 &&
		      ad[DE_AD_ACOUNT] <= ad[DE_AD_AMAX] && q->best_index < ad[DE_AD_NP]))
			return rt_fail(err, RT_ERR_INPUT, "%s: problem %ld: an impossible adaptive state "
				       "(population %g, memory slot %g, archive %g of %g)", from->path, p,
				       ad[DE_AD_NP], ad[DE_AD_K], ad[DE_AD_ACOUNT], ad[DE_AD_AMAX]);
	}
	return RT_OK;
}

/* The state of ck's checkpoint for job (every problem of it) into s. */
static rt_status restore_state(de_ckpt *ck, const de_job *job, de_snapshot *s, rt_error *err)
{
	size_t P = (size_t)job->problems, hl = (size_t)de_job_hist_len(job);
	float none;   /* stands for a missing history (no null pointer to memcpy) */
	rt_ckpt *from = &ck->plan.from;
	rt_status st = restore_shape(from, job, &s->gen, err);
	if (st == RT_OK)
		st = rt_ckpt_get_f64(from, &s->seconds, err);
	if (st == RT_OK)
		st = rt_ckpt_get_f64(from, &s->kernel_ms, err);
	if (st == RT_OK)
		st = rt_ckpt_get_bytes(from, s->st, P * sizeof *s->st, err);
	if (st == RT_OK)
		st = rt_ckpt_get_bytes(from, s->pop, P * job->np * job->dim * sizeof *s->pop, err);
	if (st == RT_OK)
		st = rt_ckpt_get_bytes(from, s->fit, P * job->np * sizeof *s->fit, err);
	if (st == RT_OK)
		st = rt_ckpt_get_bytes(from, s->hist ? s->hist : &none, P * hl * sizeof *s->hist, err);
	if (st == RT_OK && s->ad)
		st = rt_ckpt_get_bytes(from, s->ad, P * de_adapt_ad_len(job) * sizeof *s->ad, err);
	if (st == RT_OK && s->ad)
		st = rt_ckpt_get_bytes(from, s->arch, P * job->params.a_cap * job->dim * sizeof *s->arch, err);
	if (st == RT_OK && job->isl)
		st = rt_islands_restore(job->isl, from, err);
	if (st == RT_OK && from->pos != from->state_size)
		st = rt_fail(err, RT_ERR_INPUT, "%s: %zu bytes after the state", from->path,
			     from->state_size - from->pos);
	if (st == RT_OK)
		st = check_states(from, job, s, err);
	if (st == RT_OK)
		rt_info("de: resuming from %s: generation %ld done", from->path, s->gen);
	return st;
}

/* ---- a job spread over MPI ranks (de_shard.c): one checkpoint of every problem ---- */

/* The whole job as one process runs it (the shape of its checkpoint). */
static de_job whole_job(const de_job *job)
{
	de_job whole = *job;   /* pointers shared, never freed through it */
	whole.problems = job->problems_total;
	whole.problem_base = 0;
	whole.params.problem_base = 0;
	return whole;
}

/* Each array of a snapshot: its field's offset and bytes per problem. */
static int snapshot_fields(const de_job *job, const de_snapshot *s, void **f[6], size_t each[6],
			   de_snapshot *of)
{
	int n = 0;
	f[n] = (void **)&of->st, each[n++] = sizeof *s->st;
	f[n] = (void **)&of->pop, each[n++] = (size_t)job->np * job->dim * sizeof *s->pop;
	f[n] = (void **)&of->fit, each[n++] = (size_t)job->np * sizeof *s->fit;
	if (s->hist)
		f[n] = (void **)&of->hist, each[n++] = (size_t)de_job_hist_len(job) * sizeof *s->hist;
	if (s->ad) {
		f[n] = (void **)&of->ad, each[n++] = (size_t)de_adapt_ad_len(job) * sizeof *s->ad;
		f[n] = (void **)&of->arch, each[n++] = (size_t)job->params.a_cap * job->dim * sizeof *s->arch;
	}
	return n;
}

/* Every rank's problems gathered on rank 0, which writes them as one
 * process's checkpoint (so any number of ranks may resume it). */
static rt_status save_gathered(de_ckpt *ck, const de_job *job, const de_snapshot *s,
			       rt_error *err)
{
	de_job whole = whole_job(job);
	de_snapshot w = { .gen = s->gen, .seconds = s->seconds, .kernel_ms = s->kernel_ms };
	void **wf[6], **sf[6];
	size_t each[6];
	de_snapshot mine = *s;
	int n = snapshot_fields(job, s, wf, each, &w);
	snapshot_fields(job, s, sf, each, &mine);
	rt_status st = rt_comm_max_double(&w.seconds, err);
	if (!st)
		st = rt_comm_max_double(&w.kernel_ms, err);
	for (int k = 0; k < n && !st; k++)
		st = rt_shard_gather_copy(*sf[k], each[k], job->problems_total, wf[k], err);
	if (!st && rt_comm_rank() == 0)
		st = save_state(ck, &whole, &w, err);
	de_snapshot_free(&w);
	return st;
}

/* The whole job's checkpoint read, and this rank's problems taken from it. */
static rt_status restore_share(de_ckpt *ck, const de_job *job, de_snapshot *s, rt_error *err)
{
	de_job whole = whole_job(job);
	de_snapshot w;
	void **wf[6], **sf[6];
	size_t each[6];
	rt_status st = de_snapshot_alloc(&w, &whole, err);
	if (!st)
		st = restore_state(ck, &whole, &w, err);
	if (!st) {
		int n = snapshot_fields(job, s, sf, each, s);
		snapshot_fields(job, s, wf, each, &w);
		for (int k = 0; k < n; k++)
			memcpy(*sf[k], (char *)*wf[k] + (size_t)job->problem_base * each[k],
			       (size_t)job->problems * each[k]);
		s->gen = w.gen;
		s->seconds = w.seconds;
		s->kernel_ms = w.kernel_ms;
	}
	de_snapshot_free(&w);
	return st;
}

/* Sharded problems gather their states into one checkpoint; islands each
 * write their own (checkpoint.h's RT_CKPT_RANKS_EACH). */
static int gathered(const de_job *job)
{
	return rt_comm_size() > 1 && !job->isl;
}

rt_status de_ckpt_save(de_ckpt *ck, const de_job *job, const de_snapshot *s, rt_error *err)
{
	return gathered(job) ? save_gathered(ck, job, s, err) : save_state(ck, job, s, err);
}

rt_status de_ckpt_restore(de_ckpt *ck, const de_job *job, de_snapshot *s, rt_error *err)
{
	return gathered(job) ? restore_share(ck, job, s, err) : restore_state(ck, job, s, err);
}
