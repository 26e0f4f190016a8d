/* aco_bench.c: `evoforge bench aco`: whole MMAS runs of each instance on
 * each backend, construction kernel and local search, side by side: ms per
 * iteration, constructed tours per second, the best length and its gap to
 * the optimum after the iterations, and the host's share of the run (GPU).
 * Instances are specs (problems/aco-*.ini); one whose TSPLIB file is not
 * on this machine is skipped with a message, and problems/aco-random.ini
 * (generated cities) always runs. Prints a markdown table and writes
 * DIR/bench-aco.json with -o. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "aco.h"
#include "aco_impl.h"
#include "backend.h"
#include "cpu.h"
#include "log.h"
#include "out.h"

const char aco_bench_help[] =
	"evoforge bench aco [options]\n"
	"  --problems LIST      specs or names under problems/ (default aco-pcb442,aco-att532,\n"
	"                       aco-rat783,aco-pr1002,aco-random); missing data: skipped\n"
	"  --backend B          cpu, gpu or both (default: gpu if present, else cpu)\n"
	"  --construction LIST  thread (the seed's ant per thread), warp (an ant per warp)\n"
	"                       (default warp; GPU only: the CPU follows the scan order)\n"
	"  --local-search LIST  none, 2opt, 2.5opt, oropt (default none)\n"
	"  --iterations N       per GPU run (default 1000, the seed's)\n"
	"  --cpu-iterations N   per CPU run (default 20: the CPU is for reference)\n"
	"  --seeds K            runs per row with seeds 1..K; medians kept (default 1)\n"
	"  --time-limit S       stop each run after S seconds (default none)\n"
	"  --threads N, -o DIR (writes DIR/bench-aco.json), --quiet\n";

#define MAX_LIST 16

typedef struct bench_cfg {
	const char *problems[MAX_LIST];
	int nproblems;
	int constructs[4], nconstructs;
	int ls[4], nls;
	int cpu, gpu;
	long iterations, cpu_iterations;
	int seeds;
	double time_limit;
	const char *outdir;
} bench_cfg;

typedef struct bench_row {
	char instance[128], backend[8], construct[8], ls[8];
	int n, ants, iterations;
	double ms_per_iter, tours_per_s, host_share, gap, gap_mean;
	long long best;
	long optimum;
} bench_row;

static char list_buf[1024];

/* Splits a comma-separated list into out[] (pointers into a static copy). */
static int split(const char *s, const char **out, int max)
{
	static size_t used;
	int n = 0;
	size_t len = strlen(s) + 1;
	char *copy;
	if (used + len > sizeof list_buf)
		return 0;
	copy = memcpy(list_buf + used, s, len);
	used += len;
	for (char *t = strtok(copy, ","); t && n < max; t = strtok(NULL, ","))
		out[n++] = t;
	return n;
}

static rt_status parse_names(const char *v, const char *const *names, int *out, int *n,
			     const char *what, rt_error *err)
{
	const char *items[4];
	int k = split(v, items, 4);
	*n = 0;
	for (int i = 0; i < k; i++) {
		int found = -1;
		for (int j = 0; names[j]; j++)
			if (!strcmp(items[i], names[j]))
				found = j;
		if (found < 0)
			return rt_fail(err, RT_ERR_INPUT, "bench aco: %s: unknown '%s'", what, items[i]);
		out[(*n)++] = found;
	}
	return RT_OK;
}

static rt_status parse_args(int argc, char **argv, const rt_options *opt, bench_cfg *c,
			    rt_error *err)
{
	static const char *const cnames[] = { "thread", "warp", NULL };
	static const char *const lnames[] = { "none", "2opt", "2.5opt", "oropt", NULL };
	rt_status st;
	memset(c, 0, sizeof *c);
	c->nproblems = split("aco-pcb442,aco-att532,aco-rat783,aco-pr1002,aco-random", c->problems,
			     MAX_LIST);
	c->constructs[0] = ACO_CONSTRUCT_WARP;
	c->nconstructs = c->nls = 1;
	c->iterations = 1000;
	c->cpu_iterations = 20;
	c->seeds = 1;
	c->outdir = opt->outdir;
	c->cpu = opt->backend == RT_BACKEND_CPU;
	c->gpu = opt->backend == RT_BACKEND_GPU;
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
		if (!v && strcmp(a, "-q") && strcmp(a, "--quiet"))
			return rt_fail(err, RT_ERR_INPUT, "bench aco: %s needs a value (see --help)", a);
		if (!strcmp(a, "--problems"))
			c->nproblems = split(v, c->problems, MAX_LIST);
		else if (!strcmp(a, "--backend")) {
			c->cpu = !strcmp(v, "cpu") || !strcmp(v, "both");
			c->gpu = !strcmp(v, "gpu") || !strcmp(v, "both");
			if (!c->cpu && !c->gpu)
				return rt_fail(err, RT_ERR_INPUT, "bench aco: --backend: expected cpu, gpu or both, got '%s'", v);
		} else if (!strcmp(a, "--construction")) {
			if ((st = parse_names(v, cnames, c->constructs, &c->nconstructs, a, err)))
				return st;
		} else if (!strcmp(a, "--local-search")) {
			if ((st = parse_names(v, lnames, c->ls, &c->nls, a, err)))
				return st;
		} else if (!strcmp(a, "--iterations"))
			c->iterations = atol(v);
		else if (!strcmp(a, "--cpu-iterations"))
			c->cpu_iterations = atol(v);
		else if (!strcmp(a, "--seeds"))
			c->seeds = atoi(v);
		else if (!strcmp(a, "--time-limit"))
			c->time_limit = atof(v);
		else if (!strcmp(a, "-o") || !strcmp(a, "--output"))
			c->outdir = v;
		else
			return rt_fail(err, RT_ERR_INPUT, "bench aco: unknown option '%s' (see --help)", a);
		i++;
	}
	if (c->iterations < 1 || c->cpu_iterations < 1 || c->seeds < 1 || c->nproblems < 1)
		return rt_fail(err, RT_ERR_INPUT, "bench aco: iterations, seeds and problems must be positive");
	return RT_OK;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

static double median(double *v, int n)
{
	qsort(v, (size_t)n, sizeof *v, cmp_double);
	return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

/* Runs one configuration `seeds` times; fills the row with medians. */
static rt_status bench_one(aco_job *job, const bench_cfg *c, int gpu, bench_row *row, rt_error *err)
{
	double ms[64], tps[64], host[64], best[64];
	int k = c->seeds < 64 ? c->seeds : 64;
	rt_options opt = { gpu ? RT_BACKEND_GPU : RT_BACKEND_CPU, 1, 1, 0, NULL, 1, NULL, 0, NULL };
	job->iterations = gpu ? c->iterations : c->cpu_iterations;
	job->time_limit = c->time_limit;
	job->report_every = 1 << 30;
	job->history_every = 0;
	for (int s = 0; s < k; s++) {
		aco_backend *b = NULL;
		aco_outcome out;
		rt_status st;
		job->seed = (uint64_t)s + 1;
		memset(&out, 0, sizeof out);
		if ((st = aco_backend_open(job, &opt, &b, err)) == RT_OK)
			st = aco_loop_run(job, b, NULL, NULL, &out, err);
		if (st == RT_OK) {
			ms[s] = 1e3 * out.seconds / (double)out.iterations;
			tps[s] = out.tours / out.seconds;
			host[s] = b->busy_seconds > 0 ? out.host_seconds / out.seconds : -1;
			best[s] = (double)out.best_length;
			row->iterations = (int)out.iterations;
			snprintf(row->backend, sizeof row->backend, "%s", b->ops->name);
		}
		if (b)
			b->ops->destroy(b);
		aco_outcome_free(&out);
		if (st != RT_OK)
			return st;
	}
	row->ms_per_iter = median(ms, k);
	row->tours_per_s = median(tps, k);
	row->host_share = median(host, k);
	row->best = (long long)median(best, k);
	row->gap = job->optimum > 0 ? 100.0 * ((double)row->best - job->optimum) / job->optimum : -1;
	row->gap_mean = 0;
	for (int s = 0; s < k; s++)
		row->gap_mean += job->optimum > 0 ? 100.0 * (best[s] - job->optimum) / job->optimum / k : 0;
	return RT_OK;
}

static void print_row(const bench_row *r)
{
	char tps[32], gap[48] = "-", host[32] = "-";
	if (r->gap >= 0)
		snprintf(gap, sizeof gap, "%.2f (mean %.2f)", r->gap, r->gap_mean);
	if (r->host_share >= 0)
		snprintf(host, sizeof host, "%.1f%%", 100 * r->host_share);
	printf("| %s | %d | %s | %s | %s | %d | %d | %.3f | %s | %lld | %s | %s |\n", r->instance, r->n,
	       r->backend, r->construct, r->ls, r->ants, r->iterations, r->ms_per_iter,
	       rt_si(r->tours_per_s, tps, sizeof tps), r->best, gap, host);
	fflush(stdout);
}

static void json_row(rt_json *j, const bench_row *r)
{
	rt_json_begin_object(j, NULL);
	rt_json_string(j, "instance", r->instance);
	rt_json_int(j, "cities", r->n);
	rt_json_string(j, "backend", r->backend);
	rt_json_string(j, "construction", r->construct);
	rt_json_string(j, "local_search", r->ls);
	rt_json_int(j, "ants", r->ants);
	rt_json_int(j, "iterations", r->iterations);
	rt_json_double(j, "ms_per_iteration", r->ms_per_iter);
	rt_json_double(j, "tours_per_s", r->tours_per_s);
	rt_json_int(j, "best_length", r->best);
	if (r->optimum > 0) {
		rt_json_int(j, "optimum", r->optimum);
		rt_json_double(j, "gap_percent", r->gap);
		rt_json_double(j, "gap_percent_mean", r->gap_mean);
	}
	if (r->host_share >= 0)
		rt_json_double(j, "host_share", r->host_share);
	rt_json_end_object(j);
}

/* Every configuration of one instance; rows go to the table and JSON. */
static rt_status bench_problem(const char *name, const bench_cfg *c, rt_json *j, rt_error *err)
{
	rt_spec spec;
	aco_job job;
	rt_options opt = { RT_BACKEND_CPU, 1, 0, 0, NULL, 1, NULL, 0, NULL };
	rt_status st;
	memset(&spec, 0, sizeof spec);
	aco_job_default(&job);
	if ((st = rt_spec_load_named(&spec, name, err)) == RT_OK &&
	    (st = aco_job_from_spec(&spec, &opt, &job, err)) == RT_OK)
		st = aco_job_prepare(&job, err);
	rt_spec_free(&spec);
	if (st == RT_ERR_INPUT && !job.n) {
		printf("| %s | skipped: %s |\n", name, err->msg);
		aco_job_free(&job);
		return RT_OK;
	}
	for (int backend = 0; st == RT_OK && backend < 2; backend++) {
		if (!(backend ? c->gpu : c->cpu))
			continue;
		for (int ci = 0; st == RT_OK && ci < c->nconstructs; ci++)
			for (int li = 0; st == RT_OK && li < c->nls; li++) {
				bench_row row;
				memset(&row, 0, sizeof row);
				job.construct = c->constructs[ci];
				job.local_search = c->ls[li];
				snprintf(row.instance, sizeof row.instance, "%s", job.instance);
				snprintf(row.construct, sizeof row.construct, "%s", aco_construct_name(job.construct));
				snprintf(row.ls, sizeof row.ls, "%s", aco_ls_name(job.local_search));
				row.n = job.n;
				row.ants = job.ants;
				row.optimum = job.optimum;
				if ((st = bench_one(&job, c, backend, &row, err)) == RT_OK) {
					print_row(&row);
					json_row(j, &row);
				}
			}
	}
	aco_job_free(&job);
	return st;
}

rt_status aco_bench(int argc, char **argv, const rt_options *opt, rt_error *err)
{
	bench_cfg c;
	rt_json j;
	char dev[256];
	rt_status st = parse_args(argc, argv, opt, &c, err);
	if (st != RT_OK)
		return st;
	if (!c.cpu && !c.gpu) {
		rt_backend chosen;
		if ((st = rt_backend_select(RT_BACKEND_AUTO, &chosen, NULL, err)) != RT_OK)
			return st;
		c.gpu = chosen == RT_BACKEND_GPU;
		c.cpu = !c.gpu;
	}
	cpu_model_name(dev, sizeof dev);
	printf("## evoforge bench aco (CPU: %s, %d threads; medians of %d seed(s))\n\n", dev,
	       cpu_threads(), c.seeds);
	printf("| instance | n | backend | construction | local search | ants | iterations | "
	       "ms/iter | tours/s | best (median) | gap %% (median, mean) | host share |\n");
	printf("|---|---|---|---|---|---|---|---|---|---|---|---|\n");
	memset(&j, 0, sizeof j);
	rt_json_begin_object(&j, NULL);
	rt_json_string(&j, "bench", "aco");
	rt_json_string(&j, "cpu", dev);
	rt_json_int(&j, "seeds", c.seeds);
	rt_json_begin_array(&j, "rows");
	for (int p = 0; st == RT_OK && p < c.nproblems; p++)
		st = bench_problem(c.problems[p], &c, &j, err);
	rt_json_end_array(&j);
	rt_json_end_object(&j);
	if (st == RT_OK && c.outdir) {
		char path[RT_PATH_MAX + 32];
		snprintf(path, sizeof path, "%s/bench-aco.json", c.outdir);
		if ((st = rt_mkdirs(c.outdir, err)) == RT_OK)
			st = rt_json_write(&j, path, err);
	}
	rt_buf_free(&j.buf);
	return st;
}
