/* de_bench.c: `evoforge bench de`: function evaluations per second and time
 * to a target on the CPU, the fused and naive GPU kernels (and the fused
 * kernel over several streams), optionally the PyTorch DE of tools/, side
 * by side for each (dimension, problems); a table on stdout, JSON to -o.
 *
 * Throughput runs a fixed number of generations with no target (the median
 * of --repeats runs); time-to-target runs until every problem reached
 * |best| <= target or the budget (10000 D evaluations per problem) ran out.
 * Compile time is excluded (NVRTC's disk cache makes it a one-off). */
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
	"  --function NAME      sphere (default), rosenbrock, rastrigin, ackley, griewank, schwefel\n"
	"  --dims LIST          dimensions, e.g. 10,30,100 (default 30)\n"
	"  --problems LIST      independent problems per run, e.g. 1,100,1000 (default 1)\n"
	"  --population N       individuals (default 10 x dim)\n"
	"  --backend B          cpu, gpu or both (default: gpu if present, else cpu)\n"
	"  --variants LIST      GPU variants: fused, naive, streams (default fused,naive)\n"
	"  --streams N          streams for the streams variant (default 4)\n"
	"  --generations G      generations per throughput run (default 100)\n"
	"  --repeats R          throughput runs per row, the median is kept (default 3)\n"
	"  --target T           time to |best| <= T (default 1e-8; 0: skip)\n"
	"  --max-evals N        budget per problem for the target run (default 10000 x dim)\n"
	"  --torch              also run tools/de_torch.py (PyTorch, same DE) per row\n"
	"  --python CMD         Python for --torch (default python3)\n"
	"  --seed S, --threads N, -o FILE (JSON), --quiet\n";

#define MAX_LIST 16

typedef struct bench_cfg {
	int fn;
	int dims[MAX_LIST], ndims;
	long probs[MAX_LIST], nprobs;
	int population;
	int cpu, gpu;
	int fused, naive, streams_variant, streams;
	long generations;
	int repeats;
	double target;
	long long max_evals;
	int torch;
	const char *python;
	const char *out;
	uint64_t seed;
} bench_cfg;

typedef struct bench_row {
	int dim, np;
	long problems;
	char backend[8], variant[16], device[320];
	double rate;        /* evaluations per second (median) */
	double t_target;    /* seconds, < 0 if not all reached or skipped */
	long reached;
	char note[128];
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
			return rt_fail(err, RT_ERR_INPUT, "%s: expected integers >= %ld separated by commas, got '%s'",
				       opt, min, s);
		out[(*n)++] = v;
		s = *end ? end + 1 : end;
	}
	return *n ? RT_OK : rt_fail(err, RT_ERR_INPUT, "%s: expected a list", opt);
}

static rt_status parse_args(int argc, char **argv, const rt_options *opt, bench_cfg *c, rt_error *err)
{
	rt_status st;
	long tmp[MAX_LIST];
	int n;
	const char *backend = NULL;
	memset(c, 0, sizeof *c);
	c->fn = DE_FN_SPHERE;
	c->dims[0] = 30;
	c->ndims = 1;
	c->probs[0] = 1;
	c->nprobs = 1;
	c->fused = c->naive = 1;
	c->streams = 4;
	c->generations = 100;
	c->repeats = 3;
	c->target = 1e-8;
	c->python = "python3";
	c->out = opt->outdir;
	c->seed = opt->seed_given ? opt->seed : 1;
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
		char *end;
#define NEED() do { if (!v) return rt_fail(err, RT_ERR_INPUT, "bench de: %s needs a value", a); i++; } while (0)
		if (!strcmp(a, "--function")) {
			NEED();
			c->fn = -1;
			for (int f = 0; f < DE_FN_COUNT; f++)
				if (!strcmp(v, de_function_name(f)))
					c->fn = f;
			if (c->fn < 0)
				return rt_fail(err, RT_ERR_INPUT, "--function: unknown function '%s'", v);
		} else if (!strcmp(a, "--dims")) {
			NEED();
			if ((st = parse_list(a, v, tmp, &n, 1, err)))
				return st;
			for (int k = 0; k < n; k++)
				c->dims[k] = (int)tmp[k];
			c->ndims = n;
		} else if (!strcmp(a, "--problems")) {
			NEED();
			if ((st = parse_list(a, v, c->probs, &n, 1, err)))
				return st;
			c->nprobs = n;
		} else if (!strcmp(a, "--population")) {
			NEED();
			c->population = (int)strtol(v, &end, 10);
			if (*end || c->population < 4)
				return rt_fail(err, RT_ERR_INPUT, "--population: expected an integer >= 4, got '%s'", v);
		} else if (!strcmp(a, "--backend")) {
			NEED();
			backend = v;
		} else if (!strcmp(a, "--variants")) {
			NEED();
			c->fused = c->naive = c->streams_variant = 0;
			char buf[128];
			snprintf(buf, sizeof buf, "%s", v);
			for (char *t = strtok(buf, ","); t; t = strtok(NULL, ",")) {
				if (!strcmp(t, "fused"))
					c->fused = 1;
				else if (!strcmp(t, "naive"))
					c->naive = 1;
				else if (!strcmp(t, "streams"))
					c->streams_variant = 1;
				else
					return rt_fail(err, RT_ERR_INPUT,
						       "--variants: expected fused, naive or streams, got '%s'", t);
			}
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
		} else if (!strcmp(a, "--torch")) {
			c->torch = 1;
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
			c->out = v;
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

/* One throughput measurement and one time-to-target run on a backend. */
static rt_status bench_one(const bench_cfg *c, int dim, long problems, int gpu, int variant,
			   int streams, bench_row *row, rt_error *err)
{
	de_job job;
	de_outcome out;
	double rates[100];
	rt_status st = RT_OK;
	memset(&out, 0, sizeof out);
	row->t_target = -1;
	for (int r = 0; r < c->repeats + 1 && st == RT_OK; r++) {
		int target_run = r == c->repeats;
		if (target_run && c->target <= 0)
			break;
		de_job_default(&job, c->fn, dim);
		snprintf(job.name, sizeof job.name, "bench-%s-%d", de_function_name(c->fn), dim);
		if (c->population)
			job.np = c->population;
		job.problems = problems;
		job.seed = c->seed;
		job.history_every = 0;
		job.variant = variant;
		job.streams = streams;
		if (target_run) {
			job.target = c->target;
			job.max_evals = c->max_evals ? c->max_evals : 10000LL * dim;
			job.report_every = 10;
		} else {
			job.generations = c->generations;
			job.max_evals = 0;
			job.report_every = (int)c->generations;
		}
		if ((st = de_job_finish(&job, err)) == RT_OK && (st = de_job_prepare(&job, !gpu, err)) == RT_OK)
			st = gpu ? de_gpu_run(&job, NULL, NULL, &out, err)
				 : de_cpu_run(&job, NULL, NULL, &out, err);
		if (st == RT_OK) {
			row->np = job.np;
			snprintf(row->device, sizeof row->device, "%s", out.device);
			if (target_run) {
				row->reached = 0;
				for (long p = 0; p < problems; p++)
					row->reached += out.reached[p];
				row->t_target = row->reached == problems ? out.seconds : -1;
			} else {
				rates[r] = out.seconds > 0 ? out.evals / out.seconds : 0;
			}
		}
		de_outcome_free(&out);
		de_job_free(&job);
	}
	if (st == RT_OK) {
		qsort(rates, (size_t)c->repeats, sizeof rates[0], cmp_double);
		row->rate = rates[c->repeats / 2];
	}
	return st;
}

/* Runs tools/de_torch.py and reads its JSON line. */
static void bench_torch(const bench_cfg *c, int dim, long problems, int np, bench_row *row)
{
	char cmd[1024], line[4096], last[4096] = "";
	snprintf(cmd, sizeof cmd,
		 "%s tools/de_torch.py --function %s --dim %d --problems %ld --population %d "
		 "--generations %ld --target %g --max-evals %lld --seed %llu --json 2>&1",
		 c->python, de_function_name(c->fn), dim, problems, np, c->generations, c->target,
		 c->max_evals ? c->max_evals : 10000LL * dim, (unsigned long long)c->seed);
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
		else
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
	if ((p = strstr(last, "\"time_to_target\":")) && strncmp(p + 17, " null", 5) && strncmp(p + 17, "null", 4))
		row->t_target = strtod(p + 17, NULL);
	if ((p = strstr(last, "\"reached\":")))
		row->reached = strtol(p + 10, NULL, 10);
	if ((p = strstr(last, "\"device\": \"")) || (p = strstr(last, "\"device\":\""))) {
		p = strchr(p + 9, '"') + 1;
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
	rt_info("%6d %9ld %7d  %-5s %-8s %12.4g  %12s  %8ld  %8s  %s", r->dim, r->problems, r->np,
		r->backend, r->variant, r->rate, t, r->reached, ratio, r->note);
}

rt_status de_bench(int argc, char **argv, const rt_options *opt, rt_error *err)
{
	bench_cfg c;
	rt_status st;
	bench_row *rows = NULL;
	int nrows = 0, cap = 0;
	if ((st = parse_args(argc, argv, opt, &c, err)) != RT_OK)
		return st;
	rt_info("bench de: %s, throughput over %ld generations (median of %d), time to %g with "
		"a budget of %s evaluations per problem", de_function_name(c.fn), c.generations,
		c.repeats, c.target, c.max_evals ? "the given" : "10000 x dim");
	rt_info("%6s %9s %7s  %-5s %-8s %12s  %12s  %8s  %8s", "dim", "problems", "NP", "where",
		"variant", "evals/s", "t(target)", "reached", "fused/x");
	for (int d = 0; d < c.ndims; d++) {
		for (int q = 0; q < c.nprobs; q++) {
			struct { int on, gpu, variant, streams; const char *name; } kinds[] = {
				{ c.gpu && c.fused, 1, DE_VARIANT_FUSED, 1, "fused" },
				{ c.gpu && c.streams_variant, 1, DE_VARIANT_FUSED, c.streams, "streams" },
				{ c.gpu && c.naive, 1, DE_VARIANT_NAIVE, 1, "naive" },
				{ c.cpu, 0, 0, 1, "-" },
			};
			double fused_rate = 0;
			int first = nrows;
			for (size_t k = 0; k < sizeof kinds / sizeof kinds[0] + (c.torch ? 1 : 0); k++) {
				if (k < sizeof kinds / sizeof kinds[0] && !kinds[k].on)
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
				r->dim = c.dims[d];
				r->problems = c.probs[q];
				r->np = c.population ? c.population : 10 * c.dims[d];
				if (k == sizeof kinds / sizeof kinds[0]) {
					snprintf(r->backend, sizeof r->backend, "torch");
					snprintf(r->variant, sizeof r->variant, "-");
					bench_torch(&c, r->dim, r->problems, r->np, r);
				} else {
					snprintf(r->backend, sizeof r->backend, kinds[k].gpu ? "gpu" : "cpu");
					snprintf(r->variant, sizeof r->variant, "%s", kinds[k].name);
					rt_error e2;
					st = bench_one(&c, r->dim, r->problems, kinds[k].gpu, kinds[k].variant,
						       kinds[k].streams, r, &e2);
					if (st != RT_OK) {
						if (st == RT_ERR_NOGPU || st == RT_ERR_SYSTEM || st == RT_ERR_INPUT ||
						    st == RT_ERR_UNSUPPORTED || st == RT_ERR_CUDA) {
							snprintf(r->note, sizeof r->note, "skipped: %.100s", e2.msg);
							st = RT_OK;
						} else {
							*err = e2;
							free(rows);
							return st;
						}
					}
					if (kinds[k].gpu && kinds[k].variant == DE_VARIANT_FUSED &&
					    kinds[k].streams == 1)
						fused_rate = r->rate;
				}
			}
			for (int k = first; k < nrows; k++)
				print_row(&rows[k], fused_rate);
		}
	}
	if (c.out) {
		rt_json j;
		char date[64];
		time_t now = time(NULL);
		strftime(date, sizeof date, "%Y-%m-%dT%H:%M:%SZ", gmtime(&now));
		memset(&j, 0, sizeof j);
		rt_json_begin_object(&j, NULL);
		rt_json_string(&j, "kind", "de");
		rt_json_string(&j, "date", date);
		rt_json_string(&j, "function", de_function_name(c.fn));
		rt_json_int(&j, "generations", c.generations);
		rt_json_int(&j, "repeats", c.repeats);
		rt_json_double(&j, "target", c.target);
		rt_json_int(&j, "seed", (long long)c.seed);
		rt_json_int(&j, "threads", cpu_threads());
		rt_json_begin_array(&j, "rows");
		for (int k = 0; k < nrows; k++) {
			const bench_row *r = &rows[k];
			rt_json_begin_object(&j, NULL);
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
		st = rt_json_write(&j, c.out, err);
		rt_buf_free(&j.buf);
		if (st == RT_OK)
			rt_info("bench de: wrote %s", c.out);
	}
	free(rows);
	return st;
}
