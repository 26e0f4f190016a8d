/* de_bench.c: `evoforge bench de`: function evaluations per second and time
 * to a target on the CPU, the fused and naive GPU kernels (and the fused
 * kernel over several streams), optionally the PyTorch DE of tools/, side
 * by side for each (function, dimension, problems); and `--check`, which
 * runs small problems on every backend and compares their best-value
 * histories generation by generation.
 *
 * Throughput runs a fixed number of generations with no target (the median
 * of --repeats runs, initialisation included); time-to-target runs until
 * every problem reached |best| <= target or the budget (10000 D evaluations
 * per problem) ran out, checking every 10 generations. Compile time is
 * excluded (NVRTC's disk cache makes it a one-off). Tables are printed as
 * Markdown rows ("| ..."), JSON goes to -o DIR. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "backend.h"
#include "cpu.h"
#include "de_impl.h"
#include "log.h"
#include "out.h"

const char de_bench_help[] =
	"evoforge bench de [options]\n"
	"  --function LIST      sphere (default), rosenbrock, rastrigin, ackley, griewank,\n"
	"                       schwefel; several separated by commas\n"
	"  --dims LIST          dimensions (default 10,30,100)\n"
	"  --problems LIST      independent problems per run (default 1,100,1000)\n"
	"  --population N       individuals (default 10 x dim)\n"
	"  --population-factor K  individuals = K x dim (default 10, the seed's; 5 reaches\n"
	"                       1e-8 on the sphere within 10000 x dim evaluations)\n"
	"  --backend B          cpu, gpu or both (default: gpu if present, else cpu)\n"
	"  --variants LIST      GPU variants: fused, naive, multiblock (a block per\n"
	"                       individual), streams (fused over --streams streams),\n"
	"                       persistent (fused, a grid of resident blocks walking over\n"
	"                       the problems) (default fused,naive,multiblock)\n"
	"  --streams N          streams of the streams variant (default 4)\n"
	"  --mb-block N         threads per block of the multiblock variant (default: one\n"
	"                       per 8 dimensions, 64 .. 256)\n"
	"  --generations G      generations per throughput run (default 100)\n"
	"  --repeats R          throughput runs per row, the median is kept (default 3)\n"
	"  --target T           time to |best| <= T (default 1e-8; 0: skip)\n"
	"  --max-evals N        budget per problem for the target run (default 10000 x dim)\n"
	"  --cpu-max-work W     skip CPU runs of more than W component evaluations\n"
	"                       (problems x NP x dim x generations; default 3e9)\n"
	"  --torch              also run tools/de_torch.py (PyTorch, same DE) per row\n"
	"  --python CMD         Python for --torch (default python3)\n"
	"  --check              instead of timing: run small problems on the CPU and the\n"
	"                       GPU (fused, naive, streams, multiblock) and compare best-value\n"
	"                       histories and best vectors (the adaptive strategies jade,\n"
	"                       shade, lshade, jso, sade and code too: fused and streams;\n"
	"                       the naive and multiblock kernels have none)\n"
	"  --seed S, --threads N, -o DIR (writes DIR/bench-de-FUNCTION.json or\n"
	"  DIR/bench-de-check.json), --quiet\n";

#define MAX_LIST 16

typedef struct bench_cfg {
	int fns[MAX_LIST], nfns;
	int dims[MAX_LIST], ndims;
	long probs[MAX_LIST];
	int nprobs;
	int population, pop_factor;
	int cpu, gpu;
	int fused, naive, mb, streams_variant, blocks_variant, streams, mb_block;
	long generations;
	int repeats;
	double target, cpu_max_work;
	long long max_evals;
	int torch, check;
	const char *python;
	const char *outdir;
	uint64_t seed;
} bench_cfg;

typedef struct bench_row {
	int fn, dim, np;
	long problems;
	char backend[8], variant[16], device[320];
	double rate;        /* evaluations per second (median) */
	double t_target;    /* seconds, < 0 if not all reached or skipped */
	long reached;
	char note[160];
} bench_row;

static rt_status parse_list(const char *opt, const char *s, long *out, int *n, long min, rt_error *err)
{
	char *end;
	*n = 0;
	while (*s) {
		if (*n == MAX_LIST)
			return rt_fail(err, RT_ERR_INPUT, "%s: at most %d values", opt, MAX_LIST);
		long v = strtol(s, &end, 10);
		if (end == s || v < min || (*end && *end != ','))
			return rt_fail(err, RT_ERR_INPUT,
				       "%s: expected integers >= %ld separated by commas, got '%s'", opt, min, s);
		out[(*n)++] = v;
		s = *end ? end + 1 : end;
	}
	return *n ? RT_OK : rt_fail(err, RT_ERR_INPUT, "%s: expected a list", opt);
}

static rt_status parse_functions(const char *v, bench_cfg *c, rt_error *err)
{
	char buf[256];
	c->nfns = 0;
	snprintf(buf, sizeof buf, "%s", v);
	for (char *t = strtok(buf, ","); t; t = strtok(NULL, ",")) {
		int fn = -1;
		for (int f = 0; f < DE_FN_COUNT; f++)
			if (!strcmp(t, de_function_name(f)))
				fn = f;
		if (fn < 0 || c->nfns == MAX_LIST)
			return rt_fail(err, RT_ERR_INPUT, "--function: unknown function '%s'", t);
		c->fns[c->nfns++] = fn;
	}
	return c->nfns ? RT_OK : rt_fail(err, RT_ERR_INPUT, "--function: expected a name");
}

static rt_status parse_args(int argc, char **argv, const rt_options *opt, bench_cfg *c, rt_error *err)
{
	rt_status st;
	long tmp[MAX_LIST];
	int n;
	const char *backend = NULL;
	memset(c, 0, sizeof *c);
	c->fns[0] = DE_FN_SPHERE;
	c->nfns = 1;
	c->dims[0] = 10;
	c->dims[1] = 30;
	c->dims[2] = 100;
	c->ndims = 3;
	c->probs[0] = 1;
	c->probs[1] = 100;
	c->probs[2] = 1000;
	c->nprobs = 3;
	c->fused = c->naive = c->mb = 1;
	c->pop_factor = 10;
	c->streams = 4;
	c->generations = 100;
	c->repeats = 3;
	c->target = 1e-8;
	c->cpu_max_work = 3e9;
	c->python = "python3";
	c->outdir = opt->outdir;
	c->seed = opt->seed_given ? opt->seed : 1;
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
		char *end;
#define NEED() do { if (!v) return rt_fail(err, RT_ERR_INPUT, "bench de: %s needs a value", a); i++; } while (0)
		if (!strcmp(a, "--function") || !strcmp(a, "--functions")) {
			NEED();
			if ((st = parse_functions(v, c, err)))
				return st;
		} else if (!strcmp(a, "--dims")) {
			NEED();
			if ((st = parse_list(a, v, tmp, &n, 1, err)))
				return st;
			for (int k = 0; k < n; k++)
				c->dims[k] = (int)tmp[k];
			c->ndims = n;
		} else if (!strcmp(a, "--problems")) {
			NEED();
			if ((st = parse_list(a, v, c->probs, &c->nprobs, 1, err)))
				return st;
		} else if (!strcmp(a, "--population")) {
			NEED();
			c->population = (int)strtol(v, &end, 10);
			if (*end || c->population < 4)
				return rt_fail(err, RT_ERR_INPUT, "--population: expected an integer >= 4, got '%s'", v);
		} else if (!strcmp(a, "--population-factor")) {
			NEED();
			c->pop_factor = (int)strtol(v, &end, 10);
			if (*end || c->pop_factor < 1 || c->pop_factor > 1000)
				return rt_fail(err, RT_ERR_INPUT, "--population-factor: expected 1..1000, got '%s'", v);
		} else if (!strcmp(a, "--backend")) {
			NEED();
			backend = v;
		} else if (!strcmp(a, "--variants")) {
			NEED();
			c->fused = c->naive = c->mb = c->streams_variant = c->blocks_variant = 0;
			char buf[128];
			snprintf(buf, sizeof buf, "%s", v);
			for (char *t = strtok(buf, ","); t; t = strtok(NULL, ",")) {
				if (!strcmp(t, "fused"))
					c->fused = 1;
				else if (!strcmp(t, "naive"))
					c->naive = 1;
				else if (!strcmp(t, "multiblock"))
					c->mb = 1;
				else if (!strcmp(t, "streams"))
					c->streams_variant = 1;
				else if (!strcmp(t, "persistent"))
					c->blocks_variant = 1;
				else
					return rt_fail(err, RT_ERR_INPUT,
						       "--variants: expected fused, naive, multiblock, streams or "
						       "persistent, got '%s'", t);
			}
		} else if (!strcmp(a, "--mb-block")) {
			NEED();
			c->mb_block = (int)strtol(v, &end, 10);
			if (*end || c->mb_block < 32 || c->mb_block > 1024 || c->mb_block % 32)
				return rt_fail(err, RT_ERR_INPUT, "--mb-block: expected a multiple of 32 in 32..1024, "
					       "got '%s'", v);
		} else if (!strcmp(a, "--streams")) {
			NEED();
			c->streams = (int)strtol(v, &end, 10);
			if (*end || c->streams < 1 || c->streams > 64)
				return rt_fail(err, RT_ERR_INPUT, "--streams: expected 1..64, got '%s'", v);
		} else if (!strcmp(a, "--generations")) {
			NEED();
			c->generations = strtol(v, &end, 10);
			if (*end || c->generations < 1)
				return rt_fail(err, RT_ERR_INPUT, "--generations: expected an integer >= 1, got '%s'", v);
		} else if (!strcmp(a, "--repeats")) {
			NEED();
			c->repeats = (int)strtol(v, &end, 10);
			if (*end || c->repeats < 1 || c->repeats > 100)
				return rt_fail(err, RT_ERR_INPUT, "--repeats: expected 1..100, got '%s'", v);
		} else if (!strcmp(a, "--target")) {
			NEED();
			c->target = strtod(v, &end);
			if (*end || !(c->target >= 0))
				return rt_fail(err, RT_ERR_INPUT, "--target: expected a number >= 0, got '%s'", v);
		} else if (!strcmp(a, "--max-evals")) {
			NEED();
			c->max_evals = strtoll(v, &end, 10);
			if (*end || c->max_evals < 1)
				return rt_fail(err, RT_ERR_INPUT, "--max-evals: expected an integer >= 1, got '%s'", v);
		} else if (!strcmp(a, "--cpu-max-work")) {
			NEED();
			c->cpu_max_work = strtod(v, &end);
			if (*end || !(c->cpu_max_work > 0))
				return rt_fail(err, RT_ERR_INPUT, "--cpu-max-work: expected a number > 0, got '%s'", v);
		} else if (!strcmp(a, "--torch")) {
			c->torch = 1;
		} else if (!strcmp(a, "--check")) {
			c->check = 1;
		} else if (!strcmp(a, "--python")) {
			NEED();
			c->python = v;
		} else if (!strcmp(a, "--seed")) {
			NEED();
			c->seed = strtoull(v, &end, 0);
			if (*end)
				return rt_fail(err, RT_ERR_INPUT, "--seed: expected an integer, got '%s'", v);
		} else if (!strcmp(a, "--threads")) {
			NEED();
			int t = (int)strtol(v, &end, 10);
			if (*end || t < 1 || t > RT_MAX_THREADS)
				return rt_fail(err, RT_ERR_INPUT, "--threads: expected 1..%d, got '%s'",
					       RT_MAX_THREADS, v);
			cpu_set_threads(t);
		} else if (!strcmp(a, "-o") || !strcmp(a, "--output")) {
			NEED();
			c->outdir = v;
		} else if (!strcmp(a, "-q") || !strcmp(a, "--quiet")) {
			rt_log_set_quiet(1);
		} else {
			return rt_fail(err, RT_ERR_INPUT, "bench de: unknown option '%s' (see --help)", a);
		}
#undef NEED
	}
	if (!backend) {
		rt_backend chosen;
		rt_error e2;
		if (opt->backend == RT_BACKEND_CPU)
			c->cpu = 1;
		else if (opt->backend == RT_BACKEND_GPU)
			c->gpu = 1;
		else if (rt_backend_select(RT_BACKEND_AUTO, &chosen, NULL, &e2) == RT_OK &&
			 chosen == RT_BACKEND_GPU)
			c->gpu = 1;
		else
			c->cpu = 1;
	} else if (!strcmp(backend, "both")) {
		c->cpu = c->gpu = 1;
	} else if (!strcmp(backend, "cpu")) {
		c->cpu = 1;
	} else if (!strcmp(backend, "gpu")) {
		c->gpu = 1;
	} else {
		return rt_fail(err, RT_ERR_INPUT, "--backend: expected cpu, gpu or both, got '%s'", backend);
	}
	return RT_OK;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

/* Runs a prepared job on the CPU or the GPU. */
static rt_status run_job(de_job *job, int gpu, de_outcome *out, rt_error *err)
{
	rt_status st;
	if ((st = de_job_finish(job, err)) != RT_OK || (st = de_job_prepare(job, !gpu, err)) != RT_OK)
		return st;
	return gpu ? de_gpu_run(job, NULL, NULL, out, err) : de_cpu_run(job, NULL, NULL, out, err);
}

/* One throughput measurement (median of repeats) and one time-to-target run. */
static rt_status bench_one(const bench_cfg *c, bench_row *row, int gpu, int variant, int streams,
			   int persistent, rt_error *err)
{
	de_job job;
	de_outcome out;
	double rates[101];
	int nrates = 0;
	rt_status st = RT_OK;
	memset(&out, 0, sizeof out);
	row->t_target = -1;
	for (int r = 0; r <= c->repeats && st == RT_OK; r++) {
		int target_run = r == c->repeats;
		if (target_run && c->target <= 0)
			break;
		de_job_default(&job, row->fn, row->dim);
		snprintf(job.name, sizeof job.name, "bench-%s-%d", de_function_name(row->fn), row->dim);
		job.np = row->np;
		job.problems = row->problems;
		job.seed = c->seed;
		job.history_every = 0;
		job.variant = variant;
		job.streams = streams;
		job.persistent = persistent;
		if (variant == DE_VARIANT_MULTIBLOCK)
			job.block = c->mb_block;
		if (target_run) {
			job.target = c->target;
			job.max_evals = c->max_evals ? c->max_evals : 10000LL * row->dim;
			job.report_every = 10;
		} else {
			job.generations = c->generations;
			job.max_evals = 0;
			job.report_every = (int)c->generations;
		}
		double work = (double)job.problems * job.np * job.dim *
			      (target_run ? (double)job.max_evals / job.np : (double)c->generations + 1);
		if (!gpu && work > c->cpu_max_work) {
			snprintf(row->note, sizeof row->note, "%s skipped: %.2g component evaluations > "
				 "--cpu-max-work", target_run ? "target run" : "run", work);
			de_job_free(&job);
			if (!target_run)
				return RT_OK;
			break;
		}
		st = run_job(&job, gpu, &out, err);
		if (st == RT_OK) {
			snprintf(row->device, sizeof row->device, "%s", out.device);
			if (target_run) {
				row->reached = 0;
				for (long p = 0; p < row->problems; p++)
					row->reached += out.reached[p];
				row->t_target = row->reached == row->problems ? out.seconds : -1;
			} else {
				rates[nrates++] = out.seconds > 0 ? out.evals / out.seconds : 0;
				if (!row->note[0] && out.detail[0])
					snprintf(row->note, sizeof row->note, "%.150s", out.detail);
			}
		}
		de_outcome_free(&out);
		de_job_free(&job);
	}
	if (nrates > 0) {
		qsort(rates, (size_t)nrates, sizeof rates[0], cmp_double);
		row->rate = rates[nrates / 2];
	}
	return st;
}

/* Runs tools/de_torch.py for one row and reads its JSON line. */
static void bench_torch(const bench_cfg *c, bench_row *row)
{
	char cmd[1024], line[4096], last[4096] = "";
	snprintf(cmd, sizeof cmd,
		 "%s tools/de_torch.py --function %s --dim %d --problems %ld --population %d "
		 "--generations %ld --target %g --max-evals %lld --seed %llu --json 2>&1",
		 c->python, de_function_name(row->fn), row->dim, row->problems, row->np, c->generations,
		 c->target, c->max_evals ? c->max_evals : 10000LL * row->dim,
		 (unsigned long long)c->seed);
	row->rate = 0;
	row->t_target = -1;
	FILE *f = popen(cmd, "r");
	if (!f) {
		snprintf(row->note, sizeof row->note, "could not start %s", c->python);
		return;
	}
	while (fgets(line, sizeof line, f))
		if (line[0] == '{')
			snprintf(last, sizeof last, "%s", line);
		else if (line[0] != '\n')
			snprintf(row->note, sizeof row->note, "%.*s", (int)strcspn(line, "\n"), line);
	int status = pclose(f);
	const char *p;
	if (status != 0 || !last[0]) {
		if (!row->note[0])
			snprintf(row->note, sizeof row->note, "de_torch.py failed (status %d)", status);
		return;
	}
	row->note[0] = '\0';
	if ((p = strstr(last, "\"evals_per_s\":")))
		row->rate = strtod(p + 14, NULL);
	if ((p = strstr(last, "\"time_to_target\":")) && !strstr(p, "\"time_to_target\": null"))
		row->t_target = strtod(p + 17, NULL);
	if ((p = strstr(last, "\"reached\":")))
		row->reached = strtol(p + 10, NULL, 10);
	if ((p = strstr(last, "\"device\":")) && (p = strchr(p + 9, '"'))) {
		p++;
		snprintf(row->device, sizeof row->device, "%.*s", (int)strcspn(p, "\""), p);
	}
}

static void print_row(const bench_row *r, double fused_rate)
{
	char t[32], ratio[32];
	if (r->t_target >= 0)
		snprintf(t, sizeof t, "%.4f s", r->t_target);
	else
		snprintf(t, sizeof t, "-");
	if (fused_rate > 0 && r->rate > 0)
		snprintf(ratio, sizeof ratio, "%.2f", fused_rate / r->rate);
	else
		snprintf(ratio, sizeof ratio, "-");
	rt_info("| %-10s | %5d | %8ld | %6d | %-5s | %-7s | %11.4g | %10s | %7ld | %7s | %s |",
		de_function_name(r->fn), r->dim, r->problems, r->np, r->backend, r->variant, r->rate, t,
		r->reached, ratio, r->note);
}

static rt_status write_rows(const bench_cfg *c, const char *file, const bench_row *rows, int nrows,
			    rt_error *err)
{
	char path[RT_PATH_MAX + 64], date[64];
	rt_json j;
	rt_status st;
	time_t now = time(NULL);
	if ((st = rt_mkdirs(c->outdir, err)) != RT_OK)
		return st;
	snprintf(path, sizeof path, "%s/%s", c->outdir, file);
	strftime(date, sizeof date, "%Y-%m-%dT%H:%M:%SZ", gmtime(&now));
	memset(&j, 0, sizeof j);
	rt_json_begin_object(&j, NULL);
	rt_json_string(&j, "kind", "de");
	rt_json_string(&j, "date", date);
	rt_json_int(&j, "generations", c->generations);
	rt_json_int(&j, "repeats", c->repeats);
	rt_json_double(&j, "target", c->target);
	rt_json_int(&j, "seed", (long long)c->seed);
	rt_json_int(&j, "threads", cpu_threads());
	rt_json_begin_array(&j, "rows");
	for (int k = 0; k < nrows; k++) {
		const bench_row *r = &rows[k];
		rt_json_begin_object(&j, NULL);
		rt_json_string(&j, "function", de_function_name(r->fn));
		rt_json_int(&j, "dim", r->dim);
		rt_json_int(&j, "problems", r->problems);
		rt_json_int(&j, "population", r->np);
		rt_json_string(&j, "backend", r->backend);
		rt_json_string(&j, "variant", r->variant);
		rt_json_string(&j, "device", r->device);
		rt_json_double(&j, "evals_per_s", r->rate);
		rt_json_double(&j, "time_to_target_s", r->t_target >= 0 ? r->t_target : NAN);
		rt_json_int(&j, "reached", r->reached);
		rt_json_string(&j, "note", r->note);
		rt_json_end_object(&j);
	}
	rt_json_end_array(&j);
	rt_json_end_object(&j);
	st = rt_json_write(&j, path, err);
	rt_buf_free(&j.buf);
	if (st == RT_OK)
		rt_info("bench de: wrote %s", path);
	return st;
}

/* ---- --check: every backend on small problems, histories compared ------------ */

typedef struct check_case {
	const char *what;
	int fn, dim, np, problems, gens, shift, rotate, strategy, bounds, user;
	double target;
	int exact;   /* CPU and GPU must agree bit for bit (no sin/exp) */
	long long evals;   /* max_evals (L-SHADE, jSO: their schedule); 0: gens */
	int cec;     /* fn DE_FN_CEC2017: its cec_fn (CEC 2022: DE_CEC22 + k; data of cec_seed 1) */
} check_case;

/* Do a's and b's best vectors differ in any bit? */
static int bestx_differ(const de_outcome *a, const de_outcome *b)
{
	return memcmp(a->bestx, b->bestx, (size_t)a->problems * a->dim * sizeof *a->bestx) != 0;
}

static const char check_user_body[] =
	"float s = 0.0f;\n"
	"for (int j = 0; j < n; j++) {\n"
	"  float t = x[j] * x[j];\n"
	"  s += t * t - 16.0f * t + 5.0f * x[j];\n"
	"}\n"
	"return 0.5f * s;";

/* First history entry where a and b differ (beyond rtol), or -1. */
static int parts_at(const de_outcome *a, const de_outcome *b, double rtol, long *problem)
{
	int first = -1;
	for (long p = 0; p < a->problems; p++)
		for (int h = 0; h < a->hist_len; h++) {
			float x = a->hist[p * a->hist_len + h], y = b->hist[p * b->hist_len + h];
			int same = rtol == 0 ? x == y || (x != x && y != y)
					     : fabs((double)x - y) <= rtol * fmax(fabs(x), fabs(y));
			if (!same) {
				if (first < 0 || h < first) {
					first = h;
					*problem = p;
				}
				break;
			}
		}
	return first;
}

static rt_status bench_check(const bench_cfg *c, rt_error *err)
{
	const check_case cases[] = {
		{ "sphere, shared memory", DE_FN_SPHERE, 30, 150, 4, 300, 0, 0, DE_RAND_1_BIN,
		  DE_BOUNDS_REFLECT, 0, 0, 1, 0, 0 },
		{ "sphere to 1e-8 (stops)", DE_FN_SPHERE, 10, 50, 8, 2000, 1, 0, DE_RAND_1_BIN,
		  DE_BOUNDS_CLIP, 0, 1e-8, 1, 0, 0 },
		{ "rosenbrock shift+rot best/1", DE_FN_ROSENBROCK, 10, 50, 4, 300, 1, 1, DE_BEST_1_BIN,
		  DE_BOUNDS_CLIP, 0, 0, 1, 0, 0 },
		{ "sphere, global memory", DE_FN_SPHERE, 100, 1000, 3, 60, 1, 0, DE_RAND_1_BIN,
		  DE_BOUNDS_RESAMPLE, 0, 0, 1, 0, 0 },
		{ "rastrigin shift resample", DE_FN_RASTRIGIN, 30, 300, 4, 200, 1, 0, DE_RAND_1_BIN,
		  DE_BOUNDS_RESAMPLE, 0, 0, 0, 0, 0 },
		{ "ackley rotate", DE_FN_ACKLEY, 20, 100, 4, 200, 0, 1, DE_RAND_1_BIN,
		  DE_BOUNDS_REFLECT, 0, 0, 0, 0, 0 },
		{ "griewank best/1", DE_FN_GRIEWANK, 10, 40, 4, 200, 1, 0, DE_BEST_1_BIN,
		  DE_BOUNDS_REFLECT, 0, 0, 0, 0, 0 },
		{ "schwefel shift+rot", DE_FN_SCHWEFEL, 10, 100, 4, 200, 1, 1, DE_RAND_1_BIN,
		  DE_BOUNDS_CLIP, 0, 0, 0, 0, 0 },
		{ "user (Styblinski-Tang)", DE_FN_USER, 10, 100, 4, 200, 0, 0, DE_RAND_1_BIN,
		  DE_BOUNDS_REFLECT, 1, 0, 1, 0, 0 },
		/* large dimensions (the multi-block kernel's domain) */
		{ "sphere D=1000 shift", DE_FN_SPHERE, 1000, 300, 2, 30, 1, 0, DE_RAND_1_BIN,
		  DE_BOUNDS_REFLECT, 0, 0, 1, 0, 0 },
		{ "rosenbrock D=300 rot best/1", DE_FN_ROSENBROCK, 300, 100, 2, 20, 0, 1, DE_BEST_1_BIN,
		  DE_BOUNDS_RESAMPLE, 0, 0, 1, 0, 0 },
		{ "rastrigin D=500 shift", DE_FN_RASTRIGIN, 500, 200, 2, 30, 1, 0, DE_RAND_1_BIN,
		  DE_BOUNDS_CLIP, 0, 0, 0, 0, 0 },
		/* the adaptive strategies (templates/de/de_adapt.h): no naive kernels */
		{ "jade sphere", DE_FN_SPHERE, 10, 50, 4, 300, 1, 0, DE_JADE, DE_BOUNDS_MIDPOINT, 0, 0,
		  1, 0, 0 },
		{ "shade rosenbrock shift+rot", DE_FN_ROSENBROCK, 10, 60, 4, 300, 1, 1, DE_SHADE,
		  DE_BOUNDS_MIDPOINT, 0, 0, 1, 0, 0 },
		{ "lshade sphere to 1e-8", DE_FN_SPHERE, 10, 180, 4, 0, 1, 0, DE_LSHADE,
		  DE_BOUNDS_MIDPOINT, 0, 1e-8, 1, 30000, 0 },
		{ "lshade rosenbrock, global", DE_FN_ROSENBROCK, 100, 1800, 2, 0, 1, 0, DE_LSHADE,
		  DE_BOUNDS_MIDPOINT, 0, 0, 1, 40000, 0 },
		{ "jso sphere", DE_FN_SPHERE, 20, 335, 4, 0, 1, 0, DE_JSO, DE_BOUNDS_MIDPOINT, 0, 0, 1,
		  40000, 0 },
		{ "jso user (Styblinski-Tang)", DE_FN_USER, 10, 100, 4, 0, 0, 0, DE_JSO,
		  DE_BOUNDS_MIDPOINT, 1, 0, 1, 20000, 0 },
		{ "lshade rastrigin shift", DE_FN_RASTRIGIN, 30, 540, 2, 0, 1, 0, DE_LSHADE,
		  DE_BOUNDS_MIDPOINT, 0, 0, 0, 60000, 0 },
		/* SaDE and CoDE (templates/de/de_mixed.h): fused only; SaDE learns after 50 generations */
		{ "sade sphere", DE_FN_SPHERE, 10, 50, 4, 300, 1, 0, DE_SADE, DE_BOUNDS_REFLECT, 0, 0, 1,
		  0, 0 },
		{ "sade rosenbrock shift+rot", DE_FN_ROSENBROCK, 10, 60, 4, 300, 1, 1, DE_SADE,
		  DE_BOUNDS_RESAMPLE, 0, 0, 1, 0, 0 },
		{ "code sphere", DE_FN_SPHERE, 10, 30, 4, 200, 1, 0, DE_CODE, DE_BOUNDS_REFLECT, 0, 0, 1,
		  0, 0 },
		{ "code rastrigin shift", DE_FN_RASTRIGIN, 30, 30, 2, 0, 1, 0, DE_CODE, DE_BOUNDS_CLIP, 0,
		  0, 0, 30000, 0 },
		/* CEC 2017 (templates/de/de_cec2017.h): F1 is fmaf and products only */
		{ "cec2017 F1 lshade", DE_FN_CEC2017, 10, 180, 2, 0, 0, 0, DE_LSHADE,
		  DE_BOUNDS_MIDPOINT, 0, 0, 1, 20000, 1 },
		{ "cec2017 F13 hybrid rand/1", DE_FN_CEC2017, 10, 100, 2, 200, 0, 0, DE_RAND_1_BIN,
		  DE_BOUNDS_REFLECT, 0, 0, 0, 0, 13 },
		{ "cec2017 F22 composition", DE_FN_CEC2017, 10, 100, 2, 200, 0, 0, DE_RAND_1_BIN,
		  DE_BOUNDS_CLIP, 0, 0, 0, 0, 22 },
		{ "cec2017 F29 comp lshade", DE_FN_CEC2017, 10, 180, 2, 0, 0, 0, DE_LSHADE,
		  DE_BOUNDS_MIDPOINT, 0, 0, 0, 20000, 29 },
		/* Schaffer F7 on the shuffled vector's start; CEC 2022's unrotated components */
		{ "cec2017 F20 hybrid rand/1", DE_FN_CEC2017, 10, 100, 2, 200, 0, 0, DE_RAND_1_BIN,
		  DE_BOUNDS_REFLECT, 0, 0, 0, 0, 20 },
		{ "cec2022 F10 composition", DE_FN_CEC2017, 20, 100, 2, 200, 0, 0, DE_RAND_1_BIN,
		  DE_BOUNDS_CLIP, 0, 0, 0, 0, DE_CEC22 + 10 },
	};
	const int ncases = (int)(sizeof cases / sizeof cases[0]);
	int failures = 0, comparisons = 0;
	rt_json j;
	rt_status st = RT_OK;
	memset(&j, 0, sizeof j);
	rt_json_begin_object(&j, NULL);
	rt_json_string(&j, "kind", "de-check");
	rt_json_begin_array(&j, "cases");
	rt_info("bench de --check: best-value histories of every generation compared; 'exact' "
		"cases must agree bit for bit, the others (sin/exp in the math library) until a "
		"near-tie, not before generation 20");
	rt_info("| %-28s | %-14s | %-14s | %-14s | %-14s | %s |", "case", "cpu = fused", "fused = naive",
		"fused = persist", "fused = multbl", "result");
	rt_info("|------------------------------|----------------|----------------|----------------|"
		"----------------|--------|");
	for (int k = 0; k < ncases && st == RT_OK; k++) {
		const check_case *cc = &cases[k];
		/* cpu, fused, naive, persistent (1 block x 2 streams), multiblock */
		de_outcome out[5];
		const char *names[5] = { "cpu", "fused", "naive", "persistent", "multiblock" };
		char cell[4][64], note[256] = "";
		int ran[5] = { 0 }, ok = 1;
		memset(out, 0, sizeof out);
		for (int b = 0; b < 5; b++) {
			de_job job;
			rt_error e2;
			if ((b == 0 && !c->cpu) || (b > 0 && !c->gpu) ||
			    ((b == 2 || b == 4) && de_fused_only(cc->strategy)))
				continue;
			de_job_default(&job, cc->fn, cc->dim);
			snprintf(job.name, sizeof job.name, "check-%d", k);
			job.np = cc->np;
			job.problems = cc->problems;
			job.generations = cc->gens;
			job.max_evals = cc->evals;
			job.shift = cc->shift;
			job.rotate = cc->rotate;
			job.strategy = cc->strategy;
			job.bounds = cc->bounds;
			job.target = cc->target;
			job.history_every = 1;
			job.report_every = 50;
			job.seed = c->seed;
			job.variant = b == 2 ? DE_VARIANT_NAIVE : b == 4 ? DE_VARIANT_MULTIBLOCK : DE_VARIANT_FUSED;
			job.streams = b == 3 ? 2 : 1;
			job.persistent = b == 3;   /* one block per stream walks over 2+ problems */
			job.grid_max = 1;
			job.cec_fn = cc->cec;
			job.cec_seed = 1;
			if (cc->user) {
				job.lower = -5;
				job.upper = 5;
				job.optimum = -39.16616570377142 * cc->dim;
				if ((st = de_user_set(&job.user, check_user_body, "check-user.c", 1, NULL, err))) {
					de_job_free(&job);
					break;
				}
			}
			rt_status s = run_job(&job, b > 0, &out[b], &e2);
			de_job_free(&job);
			if (s == RT_OK) {
				ran[b] = 1;
			} else {
				snprintf(note + strlen(note), sizeof note - strlen(note), "%s: %.80s; ", names[b],
					 e2.msg);
				if (!(b == 0 && s == RT_ERR_UNSUPPORTED))   /* no C compiler: not a failure */
					ok = 0;
			}
		}
		const int pairs[4][2] = { { 0, 1 }, { 1, 2 }, { 1, 3 }, { 1, 4 } };
		rt_json_begin_object(&j, NULL);
		rt_json_string(&j, "case", cc->what);
		for (int q = 0; q < 4; q++) {
			int a = pairs[q][0], b = pairs[q][1];
			if (!ran[a] || !ran[b]) {
				snprintf(cell[q], sizeof cell[q], "-");
				continue;
			}
			comparisons++;
			int exact = q > 0 || cc->exact;   /* GPU variants run the same device code */
			long prob = 0;
			int h = parts_at(&out[a], &out[b], exact ? 0 : 1e-5, &prob);
			int gens_same = 1;
			for (long p = 0; p < out[a].problems; p++)
				gens_same &= out[a].gens[p] == out[b].gens[p] || h >= 0;
			if (exact && h < 0 && gens_same && bestx_differ(&out[a], &out[b])) {
				snprintf(cell[q], sizeof cell[q], "best x differ !");
				ok = 0;
			} else if (h < 0 && gens_same) {
				snprintf(cell[q], sizeof cell[q], exact ? "identical" : "same (1e-5)");
			} else {
				int pass = !exact && h >= 20;
				snprintf(cell[q], sizeof cell[q], "parts at g%d%s", h, pass ? "" : " !");
				if (!pass)
					ok = 0;
			}
			char key[32];
			snprintf(key, sizeof key, "%s_vs_%s", names[a], names[b]);
			rt_json_string(&j, key, cell[q]);
		}
		rt_json_bool(&j, "ok", ok);
		rt_json_string(&j, "note", note);
		rt_json_end_object(&j);
		failures += !ok;
		rt_info("| %-28s | %-14s | %-14s | %-14s | %-14s | %s %s|", cc->what, cell[0], cell[1],
			cell[2], cell[3], ok ? "ok" : "FAIL", note);
		for (int b = 0; b < 5; b++)
			de_outcome_free(&out[b]);
	}
	rt_json_end_array(&j);
	rt_json_int(&j, "failures", failures);
	rt_json_end_object(&j);
	if (st == RT_OK && c->outdir) {
		char path[RT_PATH_MAX + 32];
		if ((st = rt_mkdirs(c->outdir, err)) == RT_OK) {
			snprintf(path, sizeof path, "%s/bench-de-check.json", c->outdir);
			st = rt_json_write(&j, path, err);
		}
	}
	rt_buf_free(&j.buf);
	if (st != RT_OK)
		return st;
	if (failures)
		return rt_fail(err, RT_ERR_INTERNAL, "bench de --check: %d of %d cases failed (%d comparisons)",
			       failures, ncases, comparisons);
	rt_info("bench de --check: %d cases, %d comparisons, all agree", ncases, comparisons);
	return RT_OK;
}

/* ---- throughput ----------------------------------------------------------------- */

rt_status de_bench(int argc, char **argv, const rt_options *opt, rt_error *err)
{
	bench_cfg c;
	rt_status st;
	bench_row *rows = NULL;
	int nrows = 0, cap = 0;
	if ((st = parse_args(argc, argv, opt, &c, err)) != RT_OK)
		return st;
	if (c.check)
		return bench_check(&c, err);
	rt_info("bench de: throughput over %ld generations (median of %d runs); time to %g with "
		"%s evaluations per problem; fused/x = fused GPU evals/s over the row's",
		c.generations, c.repeats, c.target, c.max_evals ? "the given budget of" : "10000 x dim");
	rt_info("| %-10s | %5s | %8s | %6s | %-5s | %-7s | %11s | %10s | %7s | %7s | %s |", "function",
		"dim", "problems", "NP", "where", "variant", "evals/s", "t(target)", "reached", "fused/x",
		"notes");
	rt_info("|------------|-------|----------|--------|-------|---------|-------------|------------|---------|---------|-------|");
	for (int f = 0; f < c.nfns; f++) {
		int frow = nrows;
		for (int d = 0; d < c.ndims; d++) {
			for (int q = 0; q < c.nprobs; q++) {
				struct { int on, gpu, variant, streams, persistent; const char *name; } kinds[] = {
					{ c.gpu && c.fused, 1, DE_VARIANT_FUSED, 1, 0, "fused" },
					{ c.gpu && c.streams_variant, 1, DE_VARIANT_FUSED, c.streams, 0, "streams" },
					{ c.gpu && c.blocks_variant, 1, DE_VARIANT_FUSED, 1, 1, "persist" },
					{ c.gpu && c.naive, 1, DE_VARIANT_NAIVE, 1, 0, "naive" },
					{ c.gpu && c.mb, 1, DE_VARIANT_MULTIBLOCK, 1, 0, "multiblock" },
					{ c.cpu, 0, 0, 1, 0, "-" },
					{ c.torch, 0, 0, 1, 0, "-" },
				};
				const size_t nk = sizeof kinds / sizeof kinds[0];
				double fused_rate = 0;
				int first = nrows;
				for (size_t k = 0; k < nk; k++) {
					if (!kinds[k].on)
						continue;
					if (nrows == cap) {
						cap = cap ? 2 * cap : 16;
						bench_row *nr = rt_realloc(rows, (size_t)cap * sizeof *rows, err);
						if (!nr) {
							free(rows);
							return RT_ERR_SYSTEM;
						}
						rows = nr;
					}
					bench_row *r = &rows[nrows++];
					memset(r, 0, sizeof *r);
					r->fn = c.fns[f];
					r->dim = c.dims[d];
					r->problems = c.probs[q];
					r->np = c.population ? c.population : c.pop_factor * c.dims[d];
					if (r->np < 4)
						r->np = 4;
					if (k == nk - 1) {
						snprintf(r->backend, sizeof r->backend, "torch");
						snprintf(r->variant, sizeof r->variant, "-");
						bench_torch(&c, r);
						continue;
					}
					snprintf(r->backend, sizeof r->backend, kinds[k].gpu ? "gpu" : "cpu");
					snprintf(r->variant, sizeof r->variant, "%s", kinds[k].name);
					rt_error e2;
					st = bench_one(&c, r, kinds[k].gpu, kinds[k].variant, kinds[k].streams,
						       kinds[k].persistent, &e2);
					if (st == RT_ERR_INTERNAL) {
						*err = e2;
						free(rows);
						return st;
					}
					if (st != RT_OK) {
						snprintf(r->note, sizeof r->note, "skipped: %.140s", e2.msg);
						st = RT_OK;
					}
					if (kinds[k].gpu && kinds[k].variant == DE_VARIANT_FUSED &&
					    kinds[k].streams == 1 && !kinds[k].persistent)
						fused_rate = r->rate;
				}
				for (int k = first; k < nrows; k++)
					print_row(&rows[k], fused_rate);
			}
		}
		if (c.outdir) {
			char file[64];
			snprintf(file, sizeof file, "bench-de-%s.json", de_function_name(c.fns[f]));
			if ((st = write_rows(&c, file, rows + frow, nrows - frow, err)) != RT_OK)
				break;
		}
	}
	free(rows);
	return st;
}
