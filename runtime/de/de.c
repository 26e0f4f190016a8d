/* de.c: kind `de`, differential evolution: `evoforge run` (a spec on the CPU
 * or the GPU, progress lines, result.json and history.csv written
 * atomically; checkpoints and --resume through de_ckpt.c) and `evoforge gen`
 * (the generated CUDA and C sources). The benchmark is in de_bench.c; the
 * job, the backends and the user objective in de_job.c, de_cpu.c, de_gpu.c
 * and de_user.c. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kprep.h"
#include "backend.h"
#include "comm.h"
#include "cpu.h"
#include "de.h"
#include "de_ckpt.h"
#include "de_impl.h"
#include "de_tune.h"
#include "log.h"
#include "signals.h"
#include "out.h"
#include "rows.h"
#include "timeline.h"

/* ---- outcome ------------------------------------------------------------------ */

rt_status de_outcome_alloc(de_outcome *out, const de_job *job, rt_error *err)
{
	size_t P = (size_t)job->problems;
	memset(out, 0, sizeof *out);
	out->problems = job->problems;
	out->dim = job->dim;
	out->hist_len = de_job_hist_len(job);
	out->best = rt_calloc(P, sizeof *out->best, err);
	out->bestx = rt_calloc(P * job->dim, sizeof *out->bestx, err);
	out->gens = rt_calloc(P, sizeof *out->gens, err);
	out->reached = rt_calloc(P, sizeof *out->reached, err);
	if (out->hist_len > 0)
		out->hist = rt_calloc(P * out->hist_len, sizeof *out->hist, err);
	out->cec_nchecks = job->cec_nchecks;
	if (out->cec_nchecks > 0) {
		out->cec = rt_malloc(P * out->cec_nchecks * sizeof *out->cec, err);
		for (size_t k = 0; out->cec && k < P * out->cec_nchecks; k++)
			out->cec[k] = NAN;   /* a checkpoint before a resumed run's start */
	}
	if (!out->best || !out->bestx || !out->gens || !out->reached ||
	    (out->hist_len > 0 && !out->hist) || (out->cec_nchecks > 0 && !out->cec)) {
		de_outcome_free(out);
		return RT_ERR_SYSTEM;
	}
	return RT_OK;
}

void de_outcome_free(de_outcome *out)
{
	free(out->best);
	free(out->bestx);
	free(out->gens);
	free(out->reached);
	free(out->hist);
	free(out->cec);
	memset(out, 0, sizeof *out);
}

void de_outcome_fill_history(de_outcome *out, const de_job *job)
{
	for (long p = 0; p < out->problems && out->cec; p++)   /* CEC checkpoints after a stop */
		for (int k = 0; k < out->cec_nchecks; k++)
			if (job->cec_gen[k] > out->gens[p])
				out->cec[(size_t)p * out->cec_nchecks + k] = out->best[p];
	if (!out->hist)
		return;
	for (long p = 0; p < out->problems; p++)
		for (int h = 0; h < out->hist_len; h++)
			if ((long)h * job->history_every > out->gens[p])
				out->hist[(size_t)p * out->hist_len + h] = out->best[p];
}

void de_state_summary(const de_job *job, const de_state *st, long *ndone, long *alive,
		      long long *evals, float *bmin)
{
	*ndone = *alive = 0;
	*evals = 0;
	*bmin = DE_INF;
	for (long p = 0; p < job->problems; p++) {
		*ndone += st[p].done;
		*alive += !st[p].done;
		*evals += de_job_evals(job, st[p].gens);
		if (st[p].best < *bmin)
			*bmin = st[p].best;
	}
}

/* Non-finite objective values are the worst (de_sane maps NaN to +inf on
 * both backends). A problem whose best is still +inf has no individual with
 * a finite value; a best of -inf means the objective diverged. Either stops
 * the run here, on the host, after the state copy of a report. */
rt_status de_check_finite(const de_job *job, const de_state *st, rt_error *err)
{
	for (long p = 0; p < job->problems; p++) {
		if (st[p].gens < 0 || isfinite(st[p].best))
			continue;
		if (st[p].best > 0)
			return rt_fail(err, RT_ERR_INPUT,
				       "%s: problem %ld: every individual's objective value is NaN or +inf at "
				       "generation %d (non-finite values count as the worst, +inf); DE stopped "
				       "and wrote no results: check the objective and the bounds",
				       job->name, p, (int)st[p].gens);
		return rt_fail(err, RT_ERR_INPUT,
			       "%s: problem %ld: the objective returned -inf (best value -inf by generation "
			       "%d); DE stopped and wrote no results: a minimum of -inf is divergence, not "
			       "a result", job->name, p, (int)st[p].gens);
	}
	return RT_OK;
}

/* ---- sources ------------------------------------------------------------------ */

rt_status de_c_source(const de_job *job, gen_source *src, rt_error *err)
{
	char name[192];
	snprintf(name, sizeof name, "de-%s.c", job->name);
	gen_begin(src, name, "the CPU semantics of the DE kernels (runtime/de/de_cpu.c runs this code)");
	gen_line(src, "/* Constants of this job, as the CUDA source has them:");
	gen_line(src, " *   dim %d, population %d, F %.9g, CR %g (cr16 %u), bounds [%.9g, %.9g]",
		 job->dim, job->np, (double)job->params.F, job->CR, job->params.cr16,
		 (double)job->params.lower, (double)job->params.upper);
	gen_line(src, " *   objective %s, strategy %s, bounds handling %s, zoff %.9g */",
		 de_function_name(job->function), de_job_strategy_name(job), de_job_bounds_name(job),
		 (double)job->zoff);
	if (job->function == DE_FN_USER) {
		gen_line(src, "#include <math.h>");
		de_user_emit(&job->user, src, 0);
	}
	return gen_template(src, de_fused_only(job->strategy) ? "de/de_mixed.h" : "de/de_core.h", err);
}

/* ---- run ---------------------------------------------------------------------- */

static void progress_line(void *ctx, const de_job *job, long gen, float best_min, long ndone,
			  long long evals, double seconds)
{
	char e[32], r[32];
	(void)ctx;
	rt_info("de: gen %ld/%ld  best %.6g  reached %ld/%ld  evals %s  %s evals/s", gen, job->gens,
		(double)best_min, ndone, job->problems, rt_si((double)evals, e, sizeof e),
		rt_si(seconds > 0 ? evals / seconds : 0, r, sizeof r));
}

static int cmp_float(const void *a, const void *b)
{
	float x = *(const float *)a, y = *(const float *)b;
	return (x > y) - (x < y);
}

/* CEC 2017's errors at its checkpoints: fractions of max_evals, the
 * evaluations of the generation each was taken at, and per problem the
 * errors (null: before a resumed run's start). */
static void write_cec_errors(rt_json *j, const de_job *job, const de_outcome *out)
{
	int K = out->cec_nchecks;
	rt_json_begin_object(j, "cec_errors");
	rt_json_int(j, "max_evals", job->max_evals);
	rt_json_begin_array(j, "fractions");
	for (int k = 0; k < K; k++)
		rt_json_double(j, NULL, de_cec_fraction(job, k));
	rt_json_end_array(j);
	rt_json_begin_array(j, "evaluations");
	for (int k = 0; k < K; k++)
		rt_json_int(j, NULL, de_job_evals(job, job->cec_gen[k]));
	rt_json_end_array(j);
	rt_json_begin_array(j, "errors");
	for (long p = 0; p < out->problems; p++) {
		rt_json_begin_array(j, NULL);
		for (int k = 0; k < K; k++)
			rt_json_double(j, NULL, out->cec[(size_t)p * K + k]);
		rt_json_end_array(j);
	}
	rt_json_end_array(j);
	rt_json_end_object(j);
}

typedef struct hist_rows {   /* a job and its outcome, for the rows formatted in parallel */
	const de_job *job;
	const de_outcome *out;
} hist_rows;

/* history.csv's row h: the generation, the evaluations, each problem's best. */
static void hist_row(void *ctx, long h, rt_buf *b)
{
	const hist_rows *c = ctx;
	long g = h * c->job->history_every;
	rt_buf_printf(b, "%ld,%lld", g, de_job_evals(c->job, g));
	for (long p = 0; p < c->out->problems; p++)
		rt_buf_printf(b, ",%.9g", (double)c->out->hist[p * c->out->hist_len + h]);
	rt_buf_puts(b, "\n");
}

/* result.json's results[p]: problem p's best, its counts and its vector. */
static void result_element(void *ctx, long p, rt_json *j)
{
	const hist_rows *c = ctx;
	const de_outcome *out = c->out;
	rt_json_begin_object(j, NULL);
	rt_json_int(j, "problem", (long long)p);
	rt_json_double(j, "best", out->best[p]);
	rt_json_int(j, "generations", out->gens[p]);
	rt_json_int(j, "evaluations", de_job_evals(c->job, out->gens[p]));
	rt_json_bool(j, "reached", out->reached[p]);
	rt_json_begin_array(j, "x");
	for (int k = 0; k < out->dim; k++)
		rt_json_double(j, NULL, out->bestx[p * out->dim + k]);
	rt_json_end_array(j);
	rt_json_end_object(j);
}

static rt_status write_results(const de_job *job, const de_outcome *out, const char *dir,
			       rt_error *err)
{
	char path[RT_PATH_MAX + 32];
	rt_json j;
	rt_status st;
	size_t P = (size_t)out->problems;
	long reached = 0;
	float *sorted = rt_malloc(P * sizeof *sorted, err);
	if (!sorted)
		return RT_ERR_SYSTEM;
	for (size_t p = 0; p < P; p++) {
		sorted[p] = out->best[p];
		reached += out->reached[p];
	}
	qsort(sorted, P, sizeof *sorted, cmp_float);

	memset(&j, 0, sizeof j);
	rt_json_begin_object(&j, NULL);
	rt_json_string(&j, "kind", "de");
	rt_json_string(&j, "name", job->name);
	rt_json_string(&j, "spec", job->spec_path);
	rt_json_int(&j, "seed", (long long)job->seed);
	rt_json_string(&j, "backend", out->backend);
	rt_json_int(&j, "ranks", rt_comm_size());
	rt_json_string(&j, "device", out->device);
	rt_json_string(&j, "detail", out->detail);
	rt_json_string(&j, "function", job->function == DE_FN_CEC2017 && de_cec_year(job) == 2022 ? "cec2022" :
		       job->function == DE_FN_CALLBACK ? "callback" : de_function_name(job->function));
	if (job->function == DE_FN_CEC2017) {   /* best values are errors F(x) - F* */
		rt_json_int(&j, "cec_function", de_cec_number(job));
		rt_json_int(&j, "cec_fstar", de_cec_fstar(job));
		rt_json_int(&j, "cec_seed", (long long)job->cec_seed);
		if (job->cec_dir)
			rt_json_string(&j, "cec_data", job->cec_dir);
	}
	rt_json_int(&j, "dim", job->dim);
	rt_json_int(&j, "population", job->np);
	rt_json_double(&j, "F", job->F);
	rt_json_double(&j, "CR", job->CR);
	rt_json_string(&j, "strategy", de_job_strategy_name(job));
	if (job->strategy == DE_SADE)   /* templates/de/de_mixed.h */
		rt_json_int(&j, "learning_period", job->params.H);
	if (de_is_pbest(job->strategy)) {   /* templates/de/de_adapt.h */
		rt_json_int(&j, "memory_size", job->params.H);
		rt_json_double(&j, "p_best", job->params.p_best);
		rt_json_double(&j, "archive_rate", job->params.arc_rate);
		rt_json_int(&j, "population_min", job->params.np_min);
	}
	rt_json_string(&j, "bounds", de_job_bounds_name(job));
	rt_json_double(&j, "lower", job->lower);
	rt_json_double(&j, "upper", job->upper);
	rt_json_bool(&j, "shift", job->shift);
	rt_json_bool(&j, "rotate", job->rotate);
	rt_json_int(&j, "generation_limit", job->gens);
	rt_json_int(&j, "max_evals", job->max_evals);
	rt_json_double(&j, "target", job->target);
	rt_json_double(&j, "optimum", job->optimum);
	rt_json_int(&j, "problems", out->problems);
	rt_json_int(&j, "reached", reached);
	rt_json_double(&j, "best_min", sorted[0]);
	rt_json_double(&j, "best_median", sorted[P / 2]);
	rt_json_double(&j, "best_max", sorted[P - 1]);
	rt_json_int(&j, "evaluations", out->evals);
	rt_json_double(&j, "time_s", out->seconds);
	rt_startup_json(&j);
	if (out->kernel_ms > 0)
		rt_json_double(&j, "kernel_ms", out->kernel_ms);
	rt_json_double(&j, "evals_per_s", out->seconds > 0 ? out->evals / out->seconds : 0);
	rt_json_interrupted(&j);
	hist_rows elems = { job, out };
	if ((st = rt_json_array_rows(&j, "results", (long)P, result_element, &elems, err)) != RT_OK) {
		free(sorted);
		rt_buf_free(&j.buf);
		return st;
	}
	if (out->cec)
		write_cec_errors(&j, job, out);
	rt_json_end_object(&j);
	free(sorted);
	snprintf(path, sizeof path, "%s/result.json", dir);
	st = rt_json_write(&j, path, err);
	rt_buf_free(&j.buf);
	if (st != RT_OK)
		return st;

	if (out->hist) {
		rt_buf b;
		memset(&b, 0, sizeof b);
		rt_buf_puts(&b, "generation,evaluations");
		for (size_t p = 0; p < P; p++)
			rt_buf_printf(&b, ",best_%zu", p);
		rt_buf_puts(&b, "\n");
		long last = 0, rows = 0;   /* rows up to the last generation a problem ran */
		hist_rows ctx = { job, out };
		for (size_t p = 0; p < P; p++)
			last = out->gens[p] > last ? out->gens[p] : last;
		while (rows < out->hist_len && rows * job->history_every <= last)
			rows++;
		st = rt_rows_format(&b, rows, hist_row, &ctx, err);
		if (!st)
			st = rt_write_buf_atomic(dir, "history.csv", &b, err);
		rt_buf_free(&b);
	}
	return st;
}

/* The backend asked for. A callback objective runs where it is asked to,
 * on the CPU with auto: its evaluations are the host's, and the GPU path
 * adds two copies and two launches a generation around them (de_gpu.c),
 * so the GPU is the caller's choice (backend gpu), not auto's. */
static void requested_backend(const de_job *job, const rt_options *opt, rt_backend *want)
{
	*want = opt->backend;
	if (job->function == DE_FN_CALLBACK && *want == RT_BACKEND_AUTO)
		*want = RT_BACKEND_CPU;
}

static rt_status de_run(rt_spec *spec, const rt_options *opt, rt_error *err)
{
	de_job job;
	de_outcome out;
	de_ckpt ck;
	rt_options ranks_opt;
	rt_backend chosen, want;
	gpu_info info;
	char dir[RT_PATH_MAX], e[32], r[32];
	rt_status st;
	memset(&out, 0, sizeof out);
	memset(&ck, 0, sizeof ck);
	if ((st = de_job_from_spec(&job, spec, opt, err)) != RT_OK) {
		de_job_free(&job);
		return st;
	}
	requested_backend(&job, opt, &want);
	/* the checkpoint (--resume) is read and checked before any work */
	if ((st = rt_ckpt_ranks_options("de", job.islands.on ? RT_CKPT_RANKS_EACH : RT_CKPT_RANKS_GATHERED, &opt, &ranks_opt, err)) != RT_OK ||
	    (!job.islands.on && (st = de_shard_job(&job, job.spec_path, err)) != RT_OK) ||
	    (st = rt_job_outdir(opt, job.name, dir, sizeof dir, err)) != RT_OK ||
	    (st = de_ckpt_open(&ck, spec, opt, dir, err)) != RT_OK ||
	    (st = rt_backend_select(want, &chosen, &info, err)) != RT_OK ||
	    (st = de_job_prepare(&job, chosen == RT_BACKEND_CPU, err)) != RT_OK ||
	    (st = rt_islands_open(&job.islands, job.seed, job.gens, &job.isl, err)) != RT_OK)
		goto done;
	if (job.isl)   /* each island its own streams; the problems are the job's */
		job.params.seed = rt_islands_seed(job.seed, rt_comm_rank());
	job.ckpt = &ck;
	rt_info("de: %s: %s, dim %d, population %d, %ld problem(s), up to %ld generations, seed %llu, "
		"%s", job.name, job.function == DE_FN_USER ? "user objective" :
		job.function == DE_FN_CALLBACK ? "objective callback" : de_function_name(job.function), job.dim, job.np, job.problems, job.gens,
		(unsigned long long)job.seed, rt_backend_name(chosen));
	if (rt_comm_size() > 1 && job.isl)
		rt_info("de: %d islands (MPI ranks), each with all %ld problem(s); this is rank 0 "
			"(its progress below)", rt_comm_size(), job.problems);
	else if (rt_comm_size() > 1)
		rt_info("de: %ld problems spread over %d MPI ranks; this is rank 0, problems 0..%ld "
			"(its progress below)", job.problems_total, rt_comm_size(), job.problems - 1);
	if (chosen == RT_BACKEND_GPU)   /* each calls rt_run_begins before its loop */
		st = de_gpu_run(&job, progress_line, NULL, &out, err);
	else
		st = de_cpu_run(&job, progress_line, NULL, &out, err);
	rt_run_ends();
	if (st == RT_OK && job.isl) {
		st = rt_islands_close(job.isl, err);
		job.isl = NULL;
		if (st == RT_OK)
			st = de_islands_gather(&job, &out, err);
	} else if (st == RT_OK) {
		st = de_shard_gather(&job, &out, err);
	}
	rt_mark("gathered");
	if (st != RT_OK || rt_comm_rank() != 0)
		goto done;
	cpu_take_host();   /* the other ranks wait in MPI: rank 0 formats with every core */
	if ((st = write_results(&job, &out, dir, err)) != RT_OK)
		goto done;
	long reached = 0;
	float bmin = DE_INF;
	for (long p = 0; p < out.problems; p++) {
		reached += out.reached[p];
		if (out.best[p] < bmin)
			bmin = out.best[p];
	}
	rt_info("de: best %.9g; %ld/%ld problem(s) reached the target; %s evaluations in %.3f s "
		"(%s evals/s) on %s [%s]", (double)bmin, reached, out.problems,
		rt_si((double)out.evals, e, sizeof e), out.seconds,
		rt_si(out.seconds > 0 ? out.evals / out.seconds : 0, r, sizeof r), out.device, out.detail);
	rt_info("de: wrote %s/result.json%s", dir, out.hist ? " and history.csv" : "");
done:
	rt_islands_free(job.isl);   /* after a failure: no more messages */
	de_ckpt_close(&ck);
	de_outcome_free(&out);
	de_job_free(&job);
	return st;
}

static rt_status de_gen(rt_spec *spec, const rt_options *opt, const char *dir, rt_error *err)
{
	de_job job;
	gen_source cu, c;
	int shared, block;
	rt_status st;
	memset(&cu, 0, sizeof cu);
	memset(&c, 0, sizeof c);
	if ((st = de_job_from_spec(&job, spec, opt, err)) != RT_OK)
		goto done;
	if ((st = de_gpu_source(&job, NULL, &cu, &shared, &block, err)) != RT_OK ||
	    (st = de_c_source(&job, &c, err)) != RT_OK || (st = gen_write(&cu, dir, err)) != RT_OK ||
	    (st = gen_write(&c, dir, err)) != RT_OK)
		goto done;
	rt_info("%s/%s  (CUDA: de_fused, block %d, population in %s memory; de_naive_*; de_mb_gen)",
		dir, cu.name, block, shared ? "shared" : "global");
	rt_info("%s/%s  (C: the same generation step on the CPU)", dir, c.name);
done:
	gen_free(&cu);
	gen_free(&c);
	de_job_free(&job);
	return st;
}

/* `evoforge build` (rt_kind.kernels): the one module a GPU run compiles;
 * its source depends on the device's shared memory, hence info. */
static rt_status de_kernels(rt_spec *spec, const rt_options *opt, const gpu_info *info,
			    rt_kernel_emit emit, void *ctx, rt_error *err)
{
	de_job job;
	gen_source cu;
	int shared, block, nopt;
	const char *const *opts = de_gpu_nvrtc_options(&nopt);
	rt_status st;
	memset(&cu, 0, sizeof cu);
	if ((st = de_job_from_spec(&job, spec, opt, err)) == RT_OK &&
	    (st = de_gpu_source(&job, info, &cu, &shared, &block, err)) == RT_OK)
		st = emit(ctx, cu.name, cu.text.data, opts, nopt, err);
	gen_free(&cu);
	de_job_free(&job);
	return st;
}

const rt_kind de_kind = {
	"de",
	"differential evolution (DE/rand/1/bin, DE/best/1/bin) on test functions or a user objective",
	de_run, de_gen, de_bench, de_bench_help, NULL,
	&de_tune_kind,
	de_export_result, NULL,
	de_kernels,
	"generations",
	1,
	NULL,   /* no generic kernels (runtime/generic.h) */
};
