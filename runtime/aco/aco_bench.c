/* aco_bench.c: `evoforge bench aco`: whole MMAS runs of each instance on
 * each backend, rule set (--configs: ACOTSP's rules, each of GPU MMAS's
 * choices added alone, all of them), construction kernel and local search,
 * side by side: ms per iteration, constructed tours per second, the best
 * length and its gap to the optimum after the iterations, the time of a run
 * and the host's share of it (GPU); with --peer, Skinderowicz's GPU MMAS on
 * the same instances (aco_peer.c). Instances are specs (problems/aco-*.ini);
 * one whose TSPLIB file is not on this machine is skipped with a message,
 * and problems/aco-random.ini (generated cities) always runs. Prints a
 * markdown table and writes DIR/bench-aco.json with -o. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "aco.h"
#include "aco_impl.h"
#include "aco_peer.h"
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
	"  --configs LIST       rule sets (default spec: the spec's own keys): evoforge, acotsp,\n"
	"                       and each GPU MMAS choice alone over acotsp: alpha1-beta2,\n"
	"                       cand32, pbest, taumin-half, ib-deposit, no-restart, ants-n,\n"
	"                       gpu-mmas, gpu-mmas-ants-n, or ablation (all of them)\n"
	"  --config NAME:SETS   one more rule set: ';'-separated section.key=value over ACOTSP's\n"
	"                       rules (e.g. 'ab:aco.alpha=1;aco.beta=2'); repeatable\n"
	"  --peer PATH          also run Skinderowicz's GPU MMAS built at PATH (tools/build-gpu-mmas)\n"
	"                       on each TSPLIB instance: ants = cities, no local search, --seeds trials\n"
	"  --peer-algs LIST     its --alg values (default mmas_rwm_ct_cl,mmas_wrs_ct_cl)\n"
	"  --threads N, -o DIR (writes DIR/bench-aco.json), --quiet\n";

#define MAX_LIST 16

/* A rule set: spec assignments (';'-separated) over ACOTSP's rules (base)
 * or over the spec's own keys. */
typedef struct bench_config {
	const char *name;
	int over_acotsp;       /* 1: ACOTSP's rules first, then sets */
	const char *sets;
	int ants_n;            /* 1: as many ants as cities */
} bench_config;

static const char acotsp_rules[] =
	"aco.variant=acotsp;aco.alpha=2;aco.beta=3;aco.rho=0.1;aco.candidates=20;aco.restart=1";
static const char evoforge_rules[] =
	"aco.variant=evoforge;aco.alpha=1;aco.beta=2;aco.rho=0.1;aco.candidates=20;aco.restart=1";
static const char gpu_mmas_rules[] =
	"aco.variant=gpu-mmas;aco.alpha=1;aco.beta=2;aco.rho=0.1;aco.candidates=32;aco.restart=0";

static const bench_config known_configs[] = {
	{ "spec", 0, "", 0 },
	{ "evoforge", 0, evoforge_rules, 0 },
	{ "acotsp", 1, "", 0 },
	{ "alpha1-beta2", 1, "aco.alpha=1;aco.beta=2", 0 },
	{ "cand32", 1, "aco.candidates=32", 0 },
	{ "pbest", 1, "aco.p_best=0.01", 0 },
	{ "taumin-half", 1, "aco.tau_min_choices=half_cities", 0 },
	{ "ib-deposit", 1, "aco.deposit=iteration_best", 0 },
	{ "no-restart", 1, "aco.restart=0", 0 },
	{ "ants-n", 1, "", 1 },
	{ "gpu-mmas", 0, gpu_mmas_rules, 0 },
	{ "gpu-mmas-ants-n", 0, gpu_mmas_rules, 1 },
	{ NULL, 0, NULL, 0 }
};

typedef struct bench_cfg {
	const char *problems[MAX_LIST];
	const bench_config *configs[MAX_LIST];
	int nconfigs;
	const char *peer;
	const char *peer_algs[MAX_LIST];
	int npeer_algs;
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
	char instance[128], backend[8], rules[48], construct[8], ls[8];
	int n, ants, iterations;
	double ms_per_iter, tours_per_s, host_share, gap, gap_mean, run_seconds;
	long long best;
	long optimum;
} bench_row;

static char list_buf[2048];

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

/* --config NAME:SETS: a rule set of the user's, over ACOTSP's rules. */
static rt_status parse_custom(const char *v, bench_cfg *c, rt_error *err)
{
	static bench_config custom[MAX_LIST];
	static char text[MAX_LIST][512];
	static int used;
	const char *colon = strchr(v, ':');
	if (!colon || colon == v || strlen(v) >= sizeof text[0])
		return rt_fail(err, RT_ERR_INPUT, "bench aco: --config: expected NAME:SETS "
			       "(e.g. 'ab:aco.alpha=1;aco.beta=2'), got '%s'", v);
	if (used == MAX_LIST || c->nconfigs == MAX_LIST)
		return rt_fail(err, RT_ERR_INPUT, "bench aco: at most %d rule sets", MAX_LIST);
	snprintf(text[used], sizeof text[used], "%s", v);
	text[used][colon - v] = 0;
	custom[used] = (bench_config){ text[used], 1, text[used] + (colon - v) + 1, 0 };
	c->configs[c->nconfigs++] = &custom[used++];
	return RT_OK;
}

/* --configs: names from known_configs, or "ablation" for every one but spec. */
static rt_status parse_configs(const char *v, bench_cfg *c, rt_error *err)
{
	const char *items[MAX_LIST];
	int k = split(v, items, MAX_LIST);
	c->nconfigs = 0;
	for (int i = 0; i < k; i++) {
		int all = !strcmp(items[i], "ablation"), found = 0;
		for (int j = all; known_configs[j].name; j++)
			if ((all || !strcmp(items[i], known_configs[j].name)) && c->nconfigs < MAX_LIST) {
				c->configs[c->nconfigs++] = &known_configs[j];
				found = 1;
			}
		if (!found)
			return rt_fail(err, RT_ERR_INPUT, "bench aco: --configs: unknown '%s' (see --help)",
				       items[i]);
	}
	return RT_OK;
}

static rt_status parse_args(int argc, char **argv, const rt_options *opt, bench_cfg *c,
			    rt_error *err)
{
	static const char *const cnames[] = { "thread", "warp", NULL };
	static const char *const lnames[] = { "none", "2opt", "2.5opt", "oropt", NULL };
	rt_status st;
	int custom_seen = 0;
	memset(c, 0, sizeof *c);
	c->nproblems = split("aco-pcb442,aco-att532,aco-rat783,aco-pr1002,aco-random", c->problems,
			     MAX_LIST);
	c->constructs[0] = ACO_CONSTRUCT_WARP;
	c->nconstructs = c->nls = c->nconfigs = 1;
	c->configs[0] = &known_configs[0];
	c->npeer_algs = split("mmas_rwm_ct_cl,mmas_wrs_ct_cl", c->peer_algs, MAX_LIST);
	c->iterations = 1000;
	c->cpu_iterations = 20;
	c->seeds = 1;
	c->outdir = opt->outdir;
	c->cpu = opt->backend == RT_BACKEND_CPU;
	c->gpu = opt->backend == RT_BACKEND_GPU;
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
		if (!strcmp(a, "-q") || !strcmp(a, "--quiet")) {
			rt_log_set_quiet(1);
			continue;
		}
		if (!v)
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
		else if (!strcmp(a, "--configs")) {
			if ((st = parse_configs(v, c, err)))
				return st;
		} else if (!strcmp(a, "--config")) {
			if (!custom_seen++)
				c->nconfigs = c->nconfigs == 1 && c->configs[0] == &known_configs[0]
						      ? 0 : c->nconfigs;
			if ((st = parse_custom(v, c, err)))
				return st;
		} else if (!strcmp(a, "--peer"))
			c->peer = v;
		else if (!strcmp(a, "--peer-algs"))
			c->npeer_algs = split(v, c->peer_algs, MAX_LIST);
		else
			return rt_fail(err, RT_ERR_INPUT, "bench aco: unknown option '%s' (see --help)", a);
		i++;
	}
	if (c->iterations < 1 || c->cpu_iterations < 1 || c->seeds < 1 || c->nproblems < 1 ||
	    c->npeer_algs < 1)
		return rt_fail(err, RT_ERR_INPUT, "bench aco: iterations, seeds, problems and peer "
			       "algorithms must be positive");
	if (c->seeds > ACO_PEER_MAX_TRIALS)
		return rt_fail(err, RT_ERR_INPUT, "bench aco: --seeds: at most %d", ACO_PEER_MAX_TRIALS);
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

/* The row's lengths and gaps (median, mean) and mean seconds of a run. */
static void summarise(bench_row *row, double *best, const double *seconds, int k, long optimum)
{
	row->run_seconds = 0;
	row->gap_mean = 0;
	for (int s = 0; s < k; s++) {
		row->run_seconds += seconds[s] / k;
		row->gap_mean += optimum > 0 ? 100.0 * (best[s] - optimum) / optimum / k : 0;
	}
	row->optimum = optimum;
	row->best = (long long)median(best, k);
	row->gap = optimum > 0 ? 100.0 * ((double)row->best - optimum) / optimum : -1;
}

/* Runs one configuration `seeds` times; fills the row with medians. */
static rt_status bench_one(aco_job *job, const bench_cfg *c, int gpu, bench_row *row, rt_error *err)
{
	double ms[ACO_PEER_MAX_TRIALS], tps[ACO_PEER_MAX_TRIALS], host[ACO_PEER_MAX_TRIALS];
	double best[ACO_PEER_MAX_TRIALS], secs[ACO_PEER_MAX_TRIALS];
	int k = c->seeds;
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
			secs[s] = out.seconds;
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
	summarise(row, best, secs, k, job->optimum);
	return RT_OK;
}

static void print_row(const bench_row *r)
{
	char tps[32], gap[48] = "-", host[32] = "-";
	if (r->gap >= 0)
		snprintf(gap, sizeof gap, "%.2f (mean %.2f)", r->gap, r->gap_mean);
	if (r->host_share >= 0)
		snprintf(host, sizeof host, "%.1f%%", 100 * r->host_share);
	printf("| %s | %d | %s | %s | %s | %s | %d | %d | %.3f | %s | %lld | %s | %.3f | %s |\n",
	       r->instance, r->n, r->backend, r->rules, r->construct, r->ls, r->ants, r->iterations,
	       r->ms_per_iter, rt_si(r->tours_per_s, tps, sizeof tps), r->best, gap, r->run_seconds,
	       host);
	fflush(stdout);
}

static void json_row(rt_json *j, const bench_row *r)
{
	rt_json_begin_object(j, NULL);
	rt_json_string(j, "instance", r->instance);
	rt_json_int(j, "cities", r->n);
	rt_json_string(j, "backend", r->backend);
	rt_json_string(j, "rules", r->rules);
	rt_json_string(j, "construction", r->construct);
	rt_json_string(j, "local_search", r->ls);
	rt_json_int(j, "ants", r->ants);
	rt_json_int(j, "iterations", r->iterations);
	rt_json_double(j, "ms_per_iteration", r->ms_per_iter);
	rt_json_double(j, "tours_per_s", r->tours_per_s);
	rt_json_double(j, "seconds_per_run_mean", r->run_seconds);
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

/* Applies ';'-separated "section.key=value" assignments to the spec. */
static rt_status apply_sets(rt_spec *spec, const char *sets, rt_error *err)
{
	char buf[512], *save = NULL;
	rt_status st = RT_OK;
	snprintf(buf, sizeof buf, "%s", sets);
	for (char *t = strtok_r(buf, ";", &save); t && st == RT_OK; t = strtok_r(NULL, ";", &save))
		st = rt_spec_set_assignment(spec, t, err);
	return st;
}

/* The instance's job under one rule set, prepared. */
static rt_status load_job(const char *name, const bench_config *cfg, aco_job *job, rt_error *err)
{
	rt_spec spec;
	rt_options opt = { RT_BACKEND_CPU, 1, 0, 0, NULL, 1, NULL, 0, NULL };
	rt_status st;
	memset(&spec, 0, sizeof spec);
	aco_job_default(job);
	if ((st = rt_spec_load_named(&spec, name, err)) == RT_OK &&
	    (!cfg->over_acotsp || (st = apply_sets(&spec, acotsp_rules, err)) == RT_OK) &&
	    (st = apply_sets(&spec, cfg->sets, err)) == RT_OK &&
	    (st = aco_job_from_spec(&spec, &opt, job, err)) == RT_OK)
		st = aco_job_prepare(job, err);
	rt_spec_free(&spec);
	if (st == RT_OK && cfg->ants_n)
		job->ants = job->n;
	return st;
}

/* Every backend, construction and local search of one prepared job. */
static rt_status bench_job(aco_job *job, const bench_config *cfg, const bench_cfg *c, rt_json *j,
			   rt_error *err)
{
	rt_status st = RT_OK;
	for (int backend = 0; st == RT_OK && backend < 2; backend++) {
		if (!(backend ? c->gpu : c->cpu))
			continue;
		for (int ci = 0; st == RT_OK && ci < c->nconstructs; ci++)
			for (int li = 0; st == RT_OK && li < c->nls; li++) {
				bench_row row;
				memset(&row, 0, sizeof row);
				job->construct = c->constructs[ci];
				job->local_search = c->ls[li];
				snprintf(row.instance, sizeof row.instance, "%s", job->instance);
				snprintf(row.rules, sizeof row.rules, "%s", cfg->name);
				snprintf(row.construct, sizeof row.construct, "%s", aco_construct_name(job->construct));
				snprintf(row.ls, sizeof row.ls, "%s", aco_ls_name(job->local_search));
				row.n = job->n;
				row.ants = job->ants;
				if ((st = bench_one(job, c, backend, &row, err)) == RT_OK) {
					print_row(&row);
					json_row(j, &row);
				}
			}
	}
	return st;
}

/* The peer's rows for one instance: each of its algorithms, --seeds trials;
 * a failed peer run is a row saying why. */
static void bench_peer(const aco_job *job, const bench_cfg *c, rt_json *j)
{
	if (!job->data_path[0])
		return;   /* a generated instance: the peer reads TSPLIB files only */
	for (int a = 0; a < c->npeer_algs; a++) {
		aco_peer_result r;
		bench_row row;
		double best[ACO_PEER_MAX_TRIALS], ms[ACO_PEER_MAX_TRIALS], tps[ACO_PEER_MAX_TRIALS];
		rt_error perr;
		memset(&perr, 0, sizeof perr);
		if (aco_peer_run(c->peer, c->peer_algs[a], job->data_path, c->iterations, c->seeds, 1,
				 &r, &perr) != RT_OK || r.trials < 1) {
			/* the peer's own failure (it checks its tours) is a row, not the end */
			printf("| %s | %d | peer | %s | failed: %s |\n", job->instance, job->n,
			       c->peer_algs[a], perr.msg[0] ? perr.msg : "no trials");
			continue;
		}
		memset(&row, 0, sizeof row);
		snprintf(row.instance, sizeof row.instance, "%s", job->instance);
		snprintf(row.backend, sizeof row.backend, "peer");
		snprintf(row.rules, sizeof row.rules, "%s", c->peer_algs[a]);
		snprintf(row.construct, sizeof row.construct, "-");
		snprintf(row.ls, sizeof row.ls, "none");
		row.n = row.ants = job->n;
		row.iterations = (int)c->iterations;
		row.host_share = -1;
		for (int k = 0; k < r.trials; k++) {
			best[k] = (double)r.length[k];
			ms[k] = 1e3 * r.seconds[k] / (double)c->iterations;
			tps[k] = (double)job->n * (double)c->iterations / r.seconds[k];
		}
		row.ms_per_iter = median(ms, r.trials);
		row.tours_per_s = median(tps, r.trials);
		summarise(&row, best, r.seconds, r.trials, job->optimum);
		print_row(&row);
		json_row(j, &row);
	}
}

/* Does the instance load under its spec's own keys? (No: it is skipped, its
 * data not being on this machine; yes: a rule set's failure is an error.) */
static int instance_loads(const char *name)
{
	aco_job job;
	rt_error err;
	memset(&err, 0, sizeof err);
	int ok = load_job(name, &known_configs[0], &job, &err) == RT_OK;
	aco_job_free(&job);
	return ok;
}

/* Every rule set of one instance, then the peer; rows go to the table and JSON. */
static rt_status bench_problem(const char *name, const bench_cfg *c, rt_json *j, rt_error *err)
{
	rt_status st = RT_OK;
	for (int k = 0; st == RT_OK && k < c->nconfigs; k++) {
		aco_job job;
		st = load_job(name, c->configs[k], &job, err);
		if (st == RT_ERR_INPUT && !job.n && !instance_loads(name)) {
			printf("| %s | skipped: %s |\n", name, err->msg);
			aco_job_free(&job);
			return RT_OK;
		}
		if (st == RT_OK)
			st = bench_job(&job, c->configs[k], c, j, err);
		if (st == RT_OK && c->peer && k == c->nconfigs - 1)
			bench_peer(&job, c, j);
		aco_job_free(&job);
	}
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
	printf("| instance | n | backend | rules | construction | local search | ants | iterations | "
	       "ms/iter | tours/s | best (median) | gap %% (median, mean) | s/run (mean) | host share |\n");
	printf("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n");
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
