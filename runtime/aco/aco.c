/* aco.c: kind `aco`, MAX-MIN Ant System for the symmetric TSP: `evoforge
 * run` (a spec on the CPU or the GPU, a progress line per report_every
 * iterations, then result.json, history.csv and the best tour as a TSPLIB
 * .tour file, all written atomically) and `evoforge gen` (the generated
 * CUDA kernels). The loop is aco_loop.c, the backends aco_cpu.c and
 * aco_gpu.c, the job aco_job.c, the benchmark aco_bench.c, checkpoints and
 * --resume aco_ckpt.c. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kprep.h"
#include "aco.h"
#include "aco_ckpt.h"
#include "aco_impl.h"
#include "aco_tune.h"
#include "backend.h"
#include "comm.h"
#include "log.h"
#include "signals.h"
#include "out.h"
#include "timeline.h"

/* Gap to the optimum in percent, or -1 when the optimum is unknown. */
static double gap_percent(const aco_job *job, int64_t length)
{
	return job->optimum > 0 ? 100.0 * (double)(length - job->optimum) / (double)job->optimum : -1;
}

static void progress_line(void *ctx, const aco_job *job, const aco_outcome *out, double ms)
{
	char gap[48] = "", r[32];
	(void)ctx;
	if (job->optimum > 0)
		snprintf(gap, sizeof gap, " (gap %.2f%%)", gap_percent(job, out->best_length));
	rt_info("aco: iter %ld/%ld  best %lld%s  %.3f ms/iter  %s tours/s  restarts %ld",
		out->iterations, job->iterations, (long long)out->best_length, gap, ms,
		rt_si(ms > 0 ? 1e3 * job->ants / ms : 0, r, sizeof r), out->restarts);
}

/* Creates the backend the options ask for (GPU when chosen). */
rt_status aco_backend_open(aco_job *job, const rt_options *opt, aco_backend **b, rt_error *err)
{
	rt_backend chosen;
	rt_status st = rt_backend_select(opt->backend, &chosen, NULL, err);
	if (st != RT_OK)
		return st;
	aco_job_finish(job, chosen == RT_BACKEND_GPU);
	return chosen == RT_BACKEND_GPU ? aco_gpu_create(job, aco_tau0(job), b, err)
					: aco_cpu_create(job, aco_tau0(job), b, err);
}

static void json_job(rt_json *j, const aco_job *job)
{
	rt_json_string(j, "kind", "aco");
	rt_json_string(j, "name", job->name);
	rt_json_string(j, "spec", job->spec_path);
	rt_json_string(j, "instance", job->instance);
	rt_json_string(j, "data", job->data_path);
	rt_json_int(j, "cities", job->n);
	rt_json_int(j, "seed", (long long)job->seed);
	rt_json_int(j, "ants", job->ants);
	rt_json_double(j, "alpha", job->alpha);
	rt_json_double(j, "beta", job->beta);
	rt_json_double(j, "rho", job->rho);
	rt_json_int(j, "candidates", job->cand_len);
	rt_json_string(j, "variant", aco_variant_name(job->variant));
	rt_json_double(j, "p_best", job->p_best);
	rt_json_string(j, "tau_min_choices", aco_tau_min_choices_name(job->tau_min_choices));
	rt_json_string(j, "deposit", aco_deposit_name(job->deposit));
	rt_json_int(j, "restart", job->restart);
	rt_json_string(j, "local_search", aco_ls_name(job->local_search));
	rt_json_string(j, "construction", aco_construct_name(job->construct));
	rt_json_int(j, "iteration_limit", job->iterations);
	rt_json_double(j, "time_limit", job->time_limit);
}

static rt_status write_json(const aco_job *job, const aco_backend *b, const aco_outcome *out,
			    const char *dir, rt_error *err)
{
	char path[RT_PATH_MAX + 32];
	rt_json j;
	rt_status st;
	memset(&j, 0, sizeof j);
	rt_json_begin_object(&j, NULL);
	json_job(&j, job);
	rt_json_string(&j, "backend", b->ops->name);
	rt_json_string(&j, "device", b->device);
	rt_json_string(&j, "detail", b->detail);
	rt_json_int(&j, "best_length", out->best_length);
	if (job->optimum > 0) {
		rt_json_int(&j, "optimum", job->optimum);
		rt_json_double(&j, "gap_percent", gap_percent(job, out->best_length));
	}
	rt_json_int(&j, "best_iteration", out->best_iteration);
	rt_json_int(&j, "iterations", out->iterations);
	rt_json_int(&j, "restarts", out->restarts);
	rt_json_int(&j, "tours", out->tours);
	rt_json_double(&j, "time_s", out->seconds);
	rt_startup_json(&j);
	rt_json_double(&j, "ms_per_iteration", out->iterations ? 1e3 * out->seconds / out->iterations : 0);
	rt_json_double(&j, "tours_per_s", out->seconds > 0 ? out->tours / out->seconds : 0);
	if (b->busy_seconds > 0) {
		rt_json_double(&j, "device_busy_s", b->busy_seconds);
		rt_json_double(&j, "host_share", out->seconds > 0 ? out->host_seconds / out->seconds : 0);
	}
	rt_json_string(&j, "tour_file", "best.tour");
	rt_json_interrupted(&j);
	rt_json_end_object(&j);
	snprintf(path, sizeof path, "%s/result.json", dir);
	st = rt_json_write(&j, path, err);
	rt_buf_free(&j.buf);
	return st;
}

static rt_status write_history(const aco_outcome *out, const char *dir, rt_error *err)
{
	char path[RT_PATH_MAX + 32];
	rt_buf b;
	rt_status st;
	memset(&b, 0, sizeof b);
	rt_buf_puts(&b, "iteration,best_length,ms_per_iteration\n");
	for (int h = 0; h < out->hist_len; h++)
		rt_buf_printf(&b, "%ld,%.0f,%.6g\n", out->hist_iter[h], out->hist_best[h], out->hist_ms[h]);
	snprintf(path, sizeof path, "%s/history.csv", dir);
	st = b.failed ? rt_fail(err, RT_ERR_SYSTEM, "out of memory writing %s", path)
		      : rt_write_file_atomic(path, b.data, b.len, err);
	rt_buf_free(&b);
	return st;
}

static rt_status write_results(const aco_job *job, const aco_backend *b, const aco_outcome *out,
			       const char *dir, rt_error *err)
{
	char path[RT_PATH_MAX + 32], comment[160];
	rt_status st;
	int64_t check = aco_tour_length(job->dist, job->n, out->best_tour);
	if (check != out->best_length)
		return rt_fail(err, RT_ERR_INTERNAL, "aco: the best tour's length is %lld, the backend "
			       "reported %lld", (long long)check, (long long)out->best_length);
	snprintf(path, sizeof path, "%s/best.tour", dir);
	snprintf(comment, sizeof comment, "Length %lld, evoforge aco (%s), seed %llu",
		 (long long)out->best_length, b->ops->name, (unsigned long long)job->seed);
	if ((st = rt_tsp_tour_write(path, job->instance, comment, job->n, out->best_tour, err)) ||
	    (st = write_json(job, b, out, dir, err)))
		return st;
	return write_history(out, dir, err);
}

static void say_job(const aco_job *job, const aco_backend *b)
{
	char opt[64] = "unknown";
	if (job->optimum > 0)
		snprintf(opt, sizeof opt, "%ld", job->optimum);
	rt_info("aco: %s: %s, %d cities, optimum %s, nearest-neighbour tour %lld", job->name,
		job->instance, job->n, opt, (long long)job->nn_length);
	rt_info("aco: %s rules: %d ants, alpha %g, beta %g, rho %g, %d candidates%s, p_best %g, "
		"tau_min from %s, %s deposit, restart %s, local search %s, %ld iterations, seed %llu, "
		"%s [%s]", aco_variant_name(job->variant), job->ants, job->alpha, job->beta, job->rho,
		job->cand_len, job->cand_len ? "" : " (full choice)", job->p_best,
		aco_tau_min_choices_name(job->tau_min_choices), aco_deposit_name(job->deposit),
		job->restart ? "on" : "off", aco_ls_name(job->local_search),
		job->iterations, (unsigned long long)job->seed, b->device, b->detail);
}

static rt_status aco_run(rt_spec *spec, const rt_options *opt, rt_error *err)
{
	aco_job job;
	aco_outcome out;
	aco_backend *b = NULL;
	aco_ckpt ck;
	rt_options ranks_opt;   /* several MPI ranks: islands, no checkpoints */
	char dir[RT_PATH_MAX], r[32];
	rt_status st;
	memset(&out, 0, sizeof out);
	memset(&ck, 0, sizeof ck);
	/* the checkpoint (--resume) is read and checked before any work */
	if ((st = aco_job_from_spec(spec, opt, &job, err)) != RT_OK ||
	    (st = rt_islands_required("aco", &job.islands, job.spec_path, err)) != RT_OK ||
	    (st = rt_ckpt_ranks_options("aco", job.islands.on ? RT_CKPT_RANKS_EACH : RT_CKPT_RANKS_REFUSE, &opt, &ranks_opt, err)) != RT_OK ||
	    (st = rt_job_outdir(opt, job.name, dir, sizeof dir, err)) != RT_OK ||
	    (st = aco_ckpt_open(&ck, spec, opt, dir, err)) != RT_OK ||
	    (st = aco_job_prepare(&job, err)) != RT_OK ||
	    (st = rt_islands_open(&job.islands, job.seed, job.iterations, &job.isl, err)) != RT_OK)
		goto done;
	if (job.isl)   /* each island its own random streams */
		job.seed = rt_islands_seed(job.seed, rt_comm_rank());
	if ((st = aco_backend_open(&job, opt, &b, err)) != RT_OK)
		goto done;
	job.ckpt = &ck;
	say_job(&job, b);
	rt_run_begins("aco");
	st = aco_loop_run(&job, b, opt->quiet ? NULL : progress_line, NULL, &out, err);
	rt_run_ends();
	if (!st && job.isl) {
		st = rt_islands_close(job.isl, err);
		job.isl = NULL;
		if (!st)
			st = aco_islands_share_best(&job, &out, err);
	}
	if (st || rt_comm_rank() != 0 || (st = write_results(&job, b, &out, dir, err)) != RT_OK)
		goto done;   /* rank 0 writes a job's results */
	rt_info("aco: best %lld%s after %ld iterations (found at %ld), %.3f s, %.3f ms/iter, %s tours/s",
		(long long)out.best_length, job.optimum > 0 ? "" : " (optimum unknown)", out.iterations,
		out.best_iteration, out.seconds, 1e3 * out.seconds / (double)out.iterations,
		rt_si(out.tours / out.seconds, r, sizeof r));
	if (job.optimum > 0)
		rt_info("aco: gap to the optimum %ld: %.3f%%", job.optimum, gap_percent(&job, out.best_length));
	if (b->busy_seconds > 0)
		rt_info("aco: host share of the run %.1f%% (device busy %.3f s of %.3f s)",
			100.0 * out.host_seconds / out.seconds, b->busy_seconds, out.seconds);
	rt_info("aco: wrote %s/result.json, history.csv and best.tour", dir);
done:
	rt_islands_free(job.isl);   /* after a failure: no more messages */
	if (b)
		b->ops->destroy(b);
	aco_ckpt_close(&ck);
	aco_outcome_free(&out);
	aco_job_free(&job);
	return st;
}

static rt_status aco_gen(rt_spec *spec, const rt_options *opt, const char *dir, rt_error *err)
{
	aco_job job;
	gen_source cu;
	rt_status st;
	memset(&cu, 0, sizeof cu);
	if ((st = aco_job_from_spec(spec, opt, &job, err)) != RT_OK ||
	    (st = aco_job_prepare(&job, err)) != RT_OK)
		goto done;
	aco_job_finish(&job, 1);
	if ((st = aco_gpu_source(&job, &cu, err)) != RT_OK || (st = gen_write(&cu, dir, err)) != RT_OK)
		goto done;
	rt_info("%s/%s  (CUDA: %d cities, %d ants, %s construction, local search %s)", dir, cu.name,
		job.n, job.ants, aco_construct_name(job.construct), aco_ls_name(job.local_search));
done:
	gen_free(&cu);
	aco_job_free(&job);
	return st;
}

const rt_kind aco_kind = {
	"aco",
	"MAX-MIN ant system for the symmetric TSP (TSPLIB instances or random cities)",
	aco_run, aco_gen, aco_bench, aco_bench_help, NULL,
	&aco_tune_kind,
	aco_export_result, NULL,
	aco_kernels,
	"iterations",
	1,
	NULL,   /* no generic kernels (runtime/generic.h) */
};
