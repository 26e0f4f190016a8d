/* mbp.c: kind `mbp`, multiple back-propagation: `evoforge run` (train one or
 * many networks on the CPU or the GPU with progress lines, then evaluate
 * them and write result.json, the best network as network.net, its
 * predictions as predictions.csv and the RMS per report as history.csv, all
 * atomically) and `evoforge gen` (the
 * generated CUDA source). The job is mbp_job.c, the data mbp_data.c, the
 * network file mbp_net.c, the backends mbp_cpu.c and mbp_gpu.c, the
 * benchmark mbp_bench.c; spread over MPI ranks by mbp_shard.c. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kprep.h"
#include "backend.h"
#include "comm.h"
#include "log.h"
#include "mbp.h"
#include "mbp_ckpt.h"
#include "mbp_impl.h"
#include "mbp_tune.h"
#include "out.h"
#include "signals.h"

rt_status mbp_outcome_alloc(mbp_outcome *out, const mbp_job *job, rt_error *err)
{
	memset(out, 0, sizeof *out);
	out->networks = job->networks;
	out->nweights = job->shape.nweights;
	out->w = rt_calloc((size_t)job->networks * job->shape.nweights, sizeof *out->w, err);
	out->res = rt_calloc((size_t)job->networks, sizeof *out->res, err);
	if (!out->w || !out->res) {
		mbp_outcome_free(out);
		return RT_ERR_SYSTEM;
	}
	return RT_OK;
}

void mbp_outcome_count(mbp_outcome *out, const mbp_job *job)
{
	out->epochs = out->corrections = 0;
	for (long k = 0; k < job->networks; k++) {
		long n, batch;
		mbp_job_train_set(job, k, &n);
		batch = mbp_job_batch(job, n);
		out->epochs += out->res[k].epochs;
		out->corrections += (long long)out->res[k].epochs * ((n + batch - 1) / batch);
	}
}

void mbp_outcome_free(mbp_outcome *out)
{
	free(out->w);
	free(out->res);
	memset(out, 0, sizeof *out);
}

/* Divergence: a non-finite epoch RMS (checked by both backends at every
 * report, on the host) or non-finite final weights stop the run before
 * anything is written, so earlier results in the output folder stay intact. */
rt_status mbp_check_rms(const mbp_job *job, long k, float rms, long from, long epoch,
			rt_error *err)
{
	if (isfinite(rms))
		return RT_OK;
	return rt_fail(err, RT_ERR_INPUT,
		       "%s: network %ld diverged between epochs %ld and %ld: the training RMS is %g "
		       "(non-finite weights or gradients); training stopped and nothing was written: "
		       "lower [mbp] step or max_step", job->name, job->net_base + k, from, epoch,
		       (double)rms);
}

/* Every network's final weights finite (else the divergence error). */
static rt_status check_weights(const mbp_job *job, const mbp_outcome *out, rt_error *err)
{
	size_t nw = (size_t)job->shape.nweights;
	for (long k = 0; k < job->networks; k++)
		for (size_t i = 0; i < nw; i++)
			if (!isfinite(out->w[(size_t)k * nw + i]))
				return rt_fail(err, RT_ERR_INPUT,
					       "%s: network %ld diverged by epoch %ld: weight %zu is %g "
					       "(non-finite weights or gradients); nothing was written: "
					       "lower [mbp] step or max_step", job->name,
					       job->net_base + k,
					       out->res[k].epochs, i, (double)out->w[(size_t)k * nw + i]);
	return RT_OK;
}

/* Each network's RMS and accuracy on its training and validation sets. */
typedef struct net_eval {
	double train_rms, train_acc, valid_rms, valid_acc;
} net_eval;

static void progress_line(void *ctx, const mbp_job *job, long epoch, long alive, float best,
			  double seconds)
{
	(void)ctx;
	rt_info("mbp: epoch %ld/%ld  best rms %.6g  training %ld/%ld network(s)  %.0f epochs/min",
		epoch, job->epochs, (double)best, alive, job->networks,
		seconds > 0 ? 60.0 * epoch / seconds : 0);
}

/* The network reported as the result: the lowest validation RMS, else the
 * lowest training RMS. */
static long best_network(const mbp_job *job, const net_eval *ev)
{
	long best = 0;
	for (long k = 1; k < job->networks; k++) {
		double a = job->data.nvalid[0] > 0 ? ev[k].valid_rms : ev[k].train_rms;
		double b = job->data.nvalid[0] > 0 ? ev[best].valid_rms : ev[best].train_rms;
		if (a < b)
			best = k;
	}
	return best;
}

static void json_job(rt_json *j, const mbp_job *job)
{
	const mbp_shape *s = &job->shape;
	rt_json_string(j, "kind", "mbp");
	rt_json_string(j, "name", job->name);
	rt_json_string(j, "spec", job->spec_path);
	rt_json_string(j, "data", job->data.path[0] ? job->data.path : job->data.source);
	rt_json_int(j, "patterns", job->data.n);
	rt_json_int(j, "seed", (long long)job->seed);
	rt_json_begin_array(j, "layers");
	rt_json_int(j, NULL, s->ni);
	rt_json_int(j, NULL, s->h1);
	if (s->h2)
		rt_json_int(j, NULL, s->h2);
	rt_json_int(j, NULL, s->no);
	rt_json_end_array(j);
	rt_json_bool(j, "space_network", s->space);
	rt_json_int(j, "weights", s->nweights);
	rt_json_string(j, "mode", mbp_mode_name(job->mode));
	rt_json_int(j, "batch_size", job->mode == MBP_BATCH ? 0 : job->batch_size);
	rt_json_int(j, "epoch_limit", job->epochs);
	rt_json_double(j, "target_rms", job->target_rms);
	rt_json_int(j, "networks", job->networks);
	rt_json_int(j, "folds", job->folds);
}

static void json_networks(rt_json *j, const mbp_job *job, const mbp_outcome *out,
			  const net_eval *ev)
{
	rt_json_begin_array(j, "results");
	for (long k = 0; k < job->networks; k++) {
		rt_json_begin_object(j, NULL);
		rt_json_int(j, "network", k);
		if (job->folds > 1)
			rt_json_int(j, "fold", k % job->folds);
		rt_json_int(j, "epochs", out->res[k].epochs);
		rt_json_bool(j, "reached", out->res[k].reached);
		rt_json_double(j, "train_rms", ev[k].train_rms);
		rt_json_double(j, "last_epoch_rms", out->res[k].train_rms);
		rt_json_int(j, "restores", out->res[k].restores);
		if (ev[k].train_acc >= 0)
			rt_json_double(j, "train_accuracy", ev[k].train_acc);
		if (!isnan(ev[k].valid_rms)) {
			rt_json_double(j, "valid_rms", ev[k].valid_rms);
			if (ev[k].valid_acc >= 0)
				rt_json_double(j, "valid_accuracy", ev[k].valid_acc);
		}
		rt_json_end_object(j);
	}
	rt_json_end_array(j);
}

static rt_status write_json(const mbp_job *job, const mbp_outcome *out, const net_eval *ev,
			    long best, const char *dir, rt_error *err)
{
	char path[RT_PATH_MAX + 32];
	double sum_acc = 0, sum_rms = 0;
	rt_json j;
	rt_status st;
	memset(&j, 0, sizeof j);
	rt_json_begin_object(&j, NULL);
	json_job(&j, job);
	rt_json_string(&j, "backend", out->backend);
	rt_json_string(&j, "device", out->device);
	rt_json_string(&j, "detail", out->detail);
	rt_json_int(&j, "ranks", rt_comm_size());
	rt_json_int(&j, "best_network", best);
	rt_json_double(&j, "best_train_rms", ev[best].train_rms);
	if (!isnan(ev[best].valid_rms))
		rt_json_double(&j, "best_valid_rms", ev[best].valid_rms);
	for (long k = 0; k < job->networks; k++) {
		sum_acc += ev[k].valid_acc;
		sum_rms += ev[k].valid_rms;
	}
	if (!isnan(ev[0].valid_rms)) {
		rt_json_double(&j, "mean_valid_rms", sum_rms / job->networks);
		if (ev[0].valid_acc >= 0)
			rt_json_double(&j, "mean_valid_accuracy", sum_acc / job->networks);
	}
	rt_json_int(&j, "epochs", out->epochs);
	rt_json_int(&j, "weight_corrections", out->corrections);
	rt_json_double(&j, "time_s", out->seconds);
	rt_startup_json(&j);
	if (out->kernel_ms > 0)
		rt_json_double(&j, "kernel_ms", out->kernel_ms);
	rt_json_double(&j, "epochs_per_min", out->seconds > 0 ? 60.0 * out->epochs / out->seconds : 0);
	rt_json_interrupted(&j);
	json_networks(&j, job, out, ev);
	rt_json_end_object(&j);
	snprintf(path, sizeof path, "%s/result.json", dir);
	st = rt_json_write(&j, path, err);
	rt_buf_free(&j.buf);
	return st;
}

/* predictions.csv: every pattern's set, targets and outputs (target units). */
static rt_status write_predictions(const mbp_job *job, const float *w, long k, const char *dir,
				   rt_error *err)
{
	const mbp_dataset *d = &job->data;
	char path[RT_PATH_MAX + 32];
	float y[MBP_MAX_UNITS];
	char *role = calloc((size_t)d->n, 1);
	long n;
	const long *set;
	rt_buf b;
	rt_status st;
	if (!role)
		return rt_fail(err, RT_ERR_SYSTEM, "out of memory writing predictions");
	set = mbp_job_train_set(job, k, &n);
	for (long q = 0; q < n; q++)
		role[set[q]] = 't';
	set = mbp_job_valid_set(job, k, &n);
	for (long q = 0; q < n; q++)
		role[set[q]] = 'v';
	memset(&b, 0, sizeof b);
	rt_buf_puts(&b, "pattern,set");
	for (int o = 0; o < d->no; o++)
		rt_buf_printf(&b, ",target_%d,output_%d", o + 1, o + 1);
	rt_buf_puts(&b, d->classes ? ",class,predicted\n" : "\n");
	for (long p = 0; p < d->n; p++) {
		const float *t = d->t + (size_t)p * d->no;
		mbp_forward(&job->shape, w, d->x + (size_t)p * d->ni, y);
		rt_buf_printf(&b, "%ld,%s", p, role[p] == 't' ? "train" : role[p] == 'v' ? "valid" : "unused");
		for (int o = 0; o < d->no; o++)
			rt_buf_printf(&b, ",%.9g,%.9g", (double)mbp_dataset_unscale(d, o, t[o]),
				      (double)mbp_dataset_unscale(d, o, y[o]));
		if (d->classes)
			rt_buf_printf(&b, ",%s,%s", d->class_names[mbp_dataset_class_of(d, t)],
				      d->class_names[mbp_dataset_class_of(d, y)]);
		rt_buf_puts(&b, "\n");
	}
	free(role);
	snprintf(path, sizeof path, "%s/predictions.csv", dir);
	st = b.failed ? rt_fail(err, RT_ERR_SYSTEM, "out of memory writing %s", path)
		      : rt_write_file_atomic(path, b.data, b.len, err);
	rt_buf_free(&b);
	return st;
}

/* history.csv, its last row from the final networks (ev: their validation RMS). */
static rt_status write_history(const mbp_job *job, const mbp_outcome *out, const net_eval *ev,
			       const char *dir, rt_error *err)
{
	double *valid = rt_malloc((size_t)job->networks * sizeof *valid, err);
	rt_status st = valid ? RT_OK : RT_ERR_SYSTEM;
	for (long k = 0; st == RT_OK && k < job->networks; k++)
		valid[k] = ev[k].valid_rms;
	if (st == RT_OK && (st = mbp_history_finish(job, out, valid, err)) == RT_OK)
		st = mbp_history_write(job, dir, err);
	free(valid);
	return st;
}

/* Evaluates every network, writes the four files and the summary line. */
static rt_status report(const mbp_job *job, const mbp_outcome *out, const char *dir, rt_error *err)
{
	char path[RT_PATH_MAX + 32];
	net_eval *ev = rt_calloc((size_t)job->networks, sizeof *ev, err);
	size_t nw = (size_t)job->shape.nweights;
	long best, n;
	const long *set;
	rt_status st;
	if (!ev)
		return RT_ERR_SYSTEM;
	for (long k = 0; k < job->networks; k++) {
		set = mbp_job_train_set(job, k, &n);
		mbp_evaluate(job, out->w + k * nw, set, n, &ev[k].train_rms, &ev[k].train_acc);
		set = mbp_job_valid_set(job, k, &n);
		mbp_evaluate(job, out->w + k * nw, set, n, &ev[k].valid_rms, &ev[k].valid_acc);
	}
	best = best_network(job, ev);
	snprintf(path, sizeof path, "%s/network.net", dir);
	if ((st = write_json(job, out, ev, best, dir, err)) == RT_OK &&
	    (st = mbp_net_write(path, &job->shape, out->w + best * nw, &job->data, err)) == RT_OK)
		st = write_predictions(job, out->w + best * nw, best, dir, err);
	if (st == RT_OK && job->hist)
		st = write_history(job, out, ev, dir, err);
	if (st == RT_OK) {
		char acc[96] = "", valid[64] = "";
		if (!isnan(ev[best].valid_rms))
			snprintf(valid, sizeof valid, " / %.6g valid", ev[best].valid_rms);
		if (ev[best].train_acc >= 0)
			snprintf(acc, sizeof acc, ", accuracy %.2f%% train", 100 * ev[best].train_acc);
		if (ev[best].valid_acc >= 0)
			snprintf(acc + strlen(acc), sizeof acc - strlen(acc), " / %.2f%% valid",
				 100 * ev[best].valid_acc);
		rt_info("mbp: best network %ld: rms %.6g train%s%s; %lld epochs in %.3f s "
			"(%.0f epochs/min) on %s [%s]", best, ev[best].train_rms, valid, acc,
			out->epochs, out->seconds, out->seconds > 0 ? 60.0 * out->epochs / out->seconds : 0,
			out->device, out->detail);
		rt_info("mbp: wrote %s/result.json, network.net and predictions.csv%s", dir,
			job->hist ? "; the RMS per epoch: history.csv" : "");
	}
	free(ev);
	return st;
}

static rt_status mbp_run(rt_spec *spec, const rt_options *opt, rt_error *err)
{
	mbp_job job;
	mbp_outcome out;
	mbp_ckpt ck;
	mbp_history hist;
	rt_backend chosen;
	gpu_info info;
	rt_options ranks_opt;
	char dir[RT_PATH_MAX];
	const mbp_shape *s = &job.shape;
	rt_status st;
	memset(&out, 0, sizeof out);
	memset(&ck, 0, sizeof ck);
	memset(&hist, 0, sizeof hist);
	if ((st = mbp_job_from_spec(&job, spec, opt, err)) != RT_OK ||
	    (st = mbp_history_init(&hist, &job, err)) != RT_OK ||
	    (st = rt_ckpt_ranks_options("mbp", RT_CKPT_RANKS_GATHERED, &opt, &ranks_opt, err)) != RT_OK ||
	    (st = mbp_shard_job(&job, err)) != RT_OK ||
	    (st = rt_backend_select(opt->backend, &chosen, &info, err)) != RT_OK ||
	    (st = rt_job_outdir(opt, job.name, dir, sizeof dir, err)) != RT_OK ||
	    (st = mbp_ckpt_open(&ck, spec, opt, dir, err)) != RT_OK)
		goto done;
	job.ckpt = &ck;
	job.hist = &hist;
	rt_info("mbp: %s: %d-%d%s%.0d-%d %s, %ld pattern(s), %s mode, %ld network(s), up to %ld "
		"epochs, seed %llu, %s", job.name, s->ni, s->h1, s->h2 ? "-" : "", s->h2, s->no,
		s->space ? "MBP (space network)" : "BP", job.data.n, mbp_mode_name(job.mode),
		mbp_job_networks_all(&job), job.epochs, (unsigned long long)job.seed,
		rt_backend_name(chosen));
	if (rt_comm_size() > 1)
		rt_info("mbp: %ld networks spread over %d MPI ranks; this is rank 0, networks 0..%ld "
			"(its progress below)", job.networks_total, rt_comm_size(), job.networks - 1);
	st = chosen == RT_BACKEND_GPU ? mbp_gpu_train(&job, progress_line, NULL, &out, err)
				      : mbp_cpu_train(&job, progress_line, NULL, &out, err);
	rt_run_ends();
	if (st == RT_OK)
		st = check_weights(&job, &out, err);
	if (st == RT_OK)
		st = mbp_shard_gather(&job, &out, err);
	if (st == RT_OK && rt_comm_rank() == 0)
		st = report(&job, &out, dir, err);
done:
	mbp_ckpt_close(&ck);
	mbp_history_free(&hist);
	mbp_outcome_free(&out);
	mbp_job_free(&job);
	return st;
}

static rt_status mbp_gen(rt_spec *spec, const rt_options *opt, const char *dir, rt_error *err)
{
	mbp_job job;
	gen_source cu;
	rt_status st;
	memset(&cu, 0, sizeof cu);
	if ((st = mbp_job_from_spec(&job, spec, opt, err)) == RT_OK &&
	    (st = mbp_gpu_source(&job, &cu, err)) == RT_OK && (st = gen_write(&cu, dir, err)) == RT_OK)
		rt_info("%s/%s  (CUDA: mbp_fused, a block per network, %s mode, chunk %d)", dir,
			cu.name, mbp_mode_name(job.mode), job.chunk);
	gen_free(&cu);
	mbp_job_free(&job);
	return st;
}

const rt_kind mbp_kind = {
	"mbp",
	"multiple back-propagation: MFF networks with selective activation (and plain BP), "
	"batch, mini-batch or online, many networks at once",
	mbp_run, mbp_gen, mbp_bench, mbp_bench_help, NULL,
	&mbp_tune_kind,
	mbp_export_result, mbp_eval_result,
	mbp_kernels,
	"epochs",
	1,
	NULL,   /* no generic kernels (runtime/generic.h) */
};
