/* gp_bench.c: `evoforge bench gp`: the GP evaluators side by side on one
 * random population of a problem: median time of each, GPop/s, ratio to the
 * 1-D RPN baseline, and how far their fitness values agree.
 *
 * GPop/s is the seed's measure: tree nodes of all programs times fitness
 * cases, divided by the evaluation time (Boolean problems count every one of
 * the 32 cases a word holds). The 1-D baseline is slow enough that it runs
 * on the first --baseline-cases cases only (its time per case does not depend
 * on how many there are; if anything, fewer cases favour it through the
 * cache), and the agreement check compares every method on that subset. */
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cpu.h"
#include "gen.h"
#include "gp_conv.h"
#include "gp_eval.h"
#include "gp_gpu.h"
#include "gp_problem.h"
#include "gp_tree.h"
#include "log.h"
#include "out.h"
#include "gp.h"
#include "tune.h"

const char gp_bench_help[] =
	"evoforge bench gp [options]: the GP evaluators on the same random population.\n"
	"  --problem NAME|FILE   sextic (default), shuttle, kddcup, mux20, mux11, mux6,\n"
	"                        or a spec file; data as the spec says\n"
	"  --population N        random ramped half-and-half programs (default: the spec's)\n"
	"  --repeat R            timed runs of each method; the median is reported (5)\n"
	"  --methods LIST        comma-separated, each METHOD or METHOD:THREADS, METHOD one\n"
	"                        of rpn1d, lgp2d, rpn2d (default rpn1d,lgp2d:1,lgp2d)\n"
	"  --block B             cases per block of the 2-D evaluators (multiple of 64)\n"
	"  --isa avx2|avx512     force the vector instruction set of the 2-D evaluators\n"
	"  --baseline-cases K    cases rpn1d runs on (default 10000; 0 = all)\n"
	"  --max-size N, --init-max-depth D   override the spec's tree limits\n"
	"  --backend cpu|gpu|both  which evaluators to time (default cpu); gpu runs the\n"
	"                        generated CUDA interpreters (gp_gpu.h) on the same population\n"
	"  --variants LIST       GPU interpreters, comma-separated (default: all kept ones)\n"
	"  --gpu-threads LIST    threads per block to try on the GPU, e.g. 128,256,512\n"
	"  --check               instead of timing: every GPU variant against the CPU on\n"
	"                        this random population; exits 1 if any disagrees\n"
	"  --no-tune             ignore the tuning database (evoforge tune); else its\n"
	"                        CPU block and threads are used and its GPU variant is\n"
	"                        timed beside the others\n"
	"Common options: --threads (default all cores), --seed, -o DIR (writes\n"
	"DIR/bench-gp-NAME.json).\n";

#define BENCH_MAX_METHODS 16

typedef struct bench_method {
	int method;
	int threads;          /* 0: the run's thread count */
	double median, min;   /* seconds */
	size_t cases;         /* cases it was timed on */
	double gpops;
	double *fit_full;     /* fitness on all cases (2-D methods) */
	double *fit_sub;      /* fitness on the baseline subset */
} bench_method;

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

/* Relative difference of two fitness values (0 when both are the same inf). */
static double rel_diff(double a, double b)
{
	double m;
	if (a == b)
		return 0.0;
	if (isnan(a) || isnan(b) || isinf(a) || isinf(b))
		return 1.0 / 0.0;
	m = fabs(a) > fabs(b) ? fabs(a) : fabs(b);
	return fabs(a - b) / (m > 1e-30 ? m : 1e-30);
}

/* The first `k` cases of c (k < ncases), sharing c's data. */
static gp_cases subset_cases(const gp_cases *c, size_t k)
{
	gp_cases s = *c;
	if (k == 0 || k >= c->ncases)
		return s;
	if (c->fitness == GP_FIT_BOOL) {
		size_t words = (k + 31) / 32;
		s.nwords = words;
		s.ncases = words * 32;
		s.last_mask = ~0u;
	} else {
		s.ncases = k;
	}
	return s;
}

static rt_status parse_methods(const char *list, bench_method *m, int *n, rt_error *err)
{
	char buf[256], *save = NULL, *tok;
	if (rt_format(buf, sizeof buf, err, "%s", list))
		return err->status;
	*n = 0;
	for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		char *colon = strchr(tok, ':');
		if (*n == BENCH_MAX_METHODS)
			return rt_fail(err, RT_ERR_INPUT, "--methods: at most %d", BENCH_MAX_METHODS);
		memset(&m[*n], 0, sizeof m[*n]);
		if (colon) {
			char *end;
			*colon = '\0';
			m[*n].threads = (int)strtol(colon + 1, &end, 10);
			if (*end || end == colon + 1 || m[*n].threads < 1 || m[*n].threads > RT_MAX_THREADS)
				return rt_fail(err, RT_ERR_INPUT, "--methods: bad thread count in '%s:%s'",
					       tok, colon + 1);
		}
		if (gp_eval_method_parse(tok, &m[*n].method, err))
			return rt_fail(err, RT_ERR_INPUT, "--methods: %s", err->msg);
		(*n)++;
	}
	if (*n == 0)
		return rt_fail(err, RT_ERR_INPUT, "--methods: empty list");
	return RT_OK;
}

static rt_status parse_int(const char *opt, const char *s, long min, long max, long *out,
			   rt_error *err)
{
	char *end;
	long v = strtol(s, &end, 10);
	if (*end || end == s || v < min || v > max)
		return rt_fail(err, RT_ERR_INPUT, "%s: expected an integer in [%ld, %ld], got '%s'",
			       opt, min, max, s);
	*out = v;
	return RT_OK;
}

/* Times one method: `repeat` runs on cases c; fills median/min. */
static rt_status time_method(bench_method *bm, const gp_packed *pk, const gp_cases *c,
			     const gp_eval_tuning *base, int repeat, double *fit, rt_error *err)
{
	double t[64];
	gp_eval_tuning tun = *base;
	rt_status st;
	if (bm->threads > 0)
		tun.threads = bm->threads;
	if (bm->method == GP_EVAL_RPN1D)
		tun.threads = 1;
	/* One untimed run: warms caches, pages in scratch, starts the pool. */
	if ((st = gp_eval_cpu_tuned(pk, c, bm->method, &tun, fit, err)))
		return st;
	for (int r = 0; r < repeat; r++) {
		double t0 = rt_now();
		if ((st = gp_eval_cpu_tuned(pk, c, bm->method, &tun, fit, err)))
			return st;
		t[r] = rt_now() - t0;
	}
	qsort(t, (size_t)repeat, sizeof t[0], cmp_double);
	bm->median = repeat % 2 ? t[repeat / 2] : 0.5 * (t[repeat / 2 - 1] + t[repeat / 2]);
	bm->min = t[0];
	return RT_OK;
}

/* Splits a comma-separated list in place into at most max items. */
static int split_list(char *list, char **items, int max)
{
	int n = 0;
	for (char *tok = strtok(list, ","); tok && n < max; tok = strtok(NULL, ","))
		items[n++] = tok;
	return n;
}

/* The tuning database's entry for the bench's backend (tune.h): sets the
 * tuned spec keys and, unless given, *threads; the tuned GPU variant is
 * added to the variants timed (vbuf) when none were asked for. */
static rt_status apply_tuning(rt_spec *spec, const rt_options *opt, int gpu, int threads_given,
			      long *threads, char *vbuf, int vsize, const char **variant_list,
			      rt_error *err)
{
	rt_options o = *opt;
	rt_spec_entry *v;
	rt_status st;
	int n = 0;
	o.backend = gpu ? RT_BACKEND_GPU : RT_BACKEND_CPU;
	o.threads = threads_given ? (int)*threads : 0;
	if ((st = rt_tune_apply(&gp_kind, spec, &o, err)))
		return st;
	if (!threads_given && o.threads > 0)
		*threads = o.threads;
	v = rt_spec_find(spec, "gp", "gpu_variant");
	if (!gpu || *variant_list || !v)
		return RT_OK;
	for (int i = 0; gp_gpu_variants[i] && n < vsize; i++)
		n += snprintf(vbuf + n, (size_t)(vsize - n), "%s,", gp_gpu_variants[i]);
	*variant_list = vbuf;
	return rt_format(vbuf + n, (size_t)(n < vsize ? vsize - n : 0), err, "%s", v->value);
}

/* The GPU side of the bench: --check (every variant against the CPU) or
 * timings of the generated interpreters on the same population. */
static rt_status bench_gpu(const gp_problem *prob, const gp_packed *rpn, const gp_packed *lgp,
			   uint64_t seed, int check, const char *variant_list,
			   const char *thread_list, rt_error *err)
{
	char vbuf[1024] = "", tbuf[256] = "", *vitems[33] = {0}, *titems[16];
	int threads[17] = {0}, nt = 0;
	gp_gpu_bench_opts o = {NULL, NULL, 0};
	if (variant_list) {
		if (rt_format(vbuf, sizeof vbuf, err, "%s", variant_list))
			return RT_ERR_INPUT;
		split_list(vbuf, vitems, 32);
		o.variants = (const char *const *)vitems;
	}
	if (thread_list) {
		if (rt_format(tbuf, sizeof tbuf, err, "%s", thread_list))
			return RT_ERR_INPUT;
		nt = split_list(tbuf, titems, 16);
		for (int i = 0; i < nt; i++) {
			long v;
			if (parse_int("--gpu-threads", titems[i], 32, 1024, &v, err))
				return RT_ERR_INPUT;
			threads[i] = (int)v;
		}
		o.threads = threads;
	}
	if (check)
		return gp_gpu_check(&prob->cases, &prob->fset, &prob->breed, prob->population, seed,
				    o.variants, stdout, err);
	return gp_gpu_bench(&prob->cases, &prob->fset, rpn, lgp, &o, stdout, err);
}

rt_status gp_bench_main(int argc, char **argv, const rt_options *opt, rt_error *err)
{
	enum { O_PROBLEM = 256, O_POP, O_REPEAT, O_METHODS, O_BLOCK, O_ISA, O_BASE, O_THREADS,
	       O_MAXSIZE, O_INITDEPTH, O_BACKEND, O_VARIANTS, O_GPUTHREADS, O_CHECK, O_NOTUNE };
	static const struct option longopts[] = {
		{"problem", required_argument, 0, O_PROBLEM},
		{"population", required_argument, 0, O_POP},
		{"repeat", required_argument, 0, O_REPEAT},
		{"methods", required_argument, 0, O_METHODS},
		{"block", required_argument, 0, O_BLOCK},
		{"isa", required_argument, 0, O_ISA},
		{"baseline-cases", required_argument, 0, O_BASE},
		{"threads", required_argument, 0, O_THREADS},
		{"max-size", required_argument, 0, O_MAXSIZE},
		{"init-max-depth", required_argument, 0, O_INITDEPTH},
		{"backend", required_argument, 0, O_BACKEND},
		{"variants", required_argument, 0, O_VARIANTS},
		{"gpu-threads", required_argument, 0, O_GPUTHREADS},
		{"check", no_argument, 0, O_CHECK},
		{"no-tune", no_argument, 0, O_NOTUNE},
		{"output", required_argument, 0, 'o'},
		{"help", no_argument, 0, 'h'},
		{0, 0, 0, 0}};
	int use_cpu = 1, use_gpu = 0, check = 0, no_tune = 0, threads_given = opt->threads > 0;
	char tuned_variants[1024];
	const char *variant_list = NULL, *gpu_threads = NULL;
	const char *problem = "sextic", *methods = "rpn1d,lgp2d:1,lgp2d", *outdir = opt->outdir;
	long population = 0, repeat = 5, baseline = 10000, threads = opt->threads, maxsize = 0,
	     initdepth = 0, v;
	gp_eval_tuning tun = {0, 0, 0};
	bench_method bm[BENCH_MAX_METHODS];
	int nm = 0, ch, have_problem = 0;
	rt_spec spec;
	gp_problem prob;
	gp_tree *trees = NULL;
	gp_packed rpn, lgp;
	gp_cases sub;
	uint64_t seed = opt->seed_given ? opt->seed : 1, nodes;
	double *fit = NULL, maxdiff_sub = 0.0, maxdiff_full = 0.0, base_rate = 0.0;
	char model[256], path[RT_PATH_MAX];
	rt_status st = RT_OK;

	memset(&spec, 0, sizeof spec);
	memset(&prob, 0, sizeof prob);
	memset(bm, 0, sizeof bm);
	gp_packed_init(&rpn);
	gp_packed_init(&lgp);
	opterr = 0;
	optind = 1;
	while ((ch = getopt_long(argc, argv, "o:h", longopts, NULL)) != -1) {
		switch (ch) {
		case O_PROBLEM: problem = optarg; break;
		case O_POP:
			if (parse_int("--population", optarg, 1, 10000000, &population, err))
				return err->status;
			break;
		case O_REPEAT:
			if (parse_int("--repeat", optarg, 1, 64, &repeat, err))
				return err->status;
			break;
		case O_METHODS: methods = optarg; break;
		case O_BLOCK:
			if (parse_int("--block", optarg, 64, GP_EVAL_BLOCK_MAX, &v, err))
				return err->status;
			if (v % 64)
				return rt_fail(err, RT_ERR_INPUT, "--block: expected a multiple of 64, got %ld", v);
			tun.block = (int)v;
			break;
		case O_ISA:
			if (strcmp(optarg, "avx2") == 0)
				tun.isa = 1;
			else if (strcmp(optarg, "avx512") == 0)
				tun.isa = 2;
			else
				return rt_fail(err, RT_ERR_INPUT, "--isa: expected avx2 or avx512, got '%s'",
					       optarg);
			break;
		case O_BASE:
			if (parse_int("--baseline-cases", optarg, 0, 1L << 40, &baseline, err))
				return err->status;
			break;
		case O_THREADS:
			if (parse_int("--threads", optarg, 1, RT_MAX_THREADS, &threads, err))
				return err->status;
			threads_given = 1;
			break;
		case O_MAXSIZE:
			if (parse_int("--max-size", optarg, 1, GP_MAX_SIZE_LIMIT, &maxsize, err))
				return err->status;
			break;
		case O_INITDEPTH:
			if (parse_int("--init-max-depth", optarg, 1, GP_MAX_DEPTH_LIMIT, &initdepth, err))
				return err->status;
			break;
		case O_BACKEND:
			use_cpu = strcmp(optarg, "gpu") != 0;
			use_gpu = strcmp(optarg, "cpu") != 0;
			if (strcmp(optarg, "cpu") && strcmp(optarg, "gpu") && strcmp(optarg, "both"))
				return rt_fail(err, RT_ERR_INPUT,
					       "--backend: expected cpu, gpu or both, got '%s'", optarg);
			break;
		case O_VARIANTS: variant_list = optarg; break;
		case O_GPUTHREADS: gpu_threads = optarg; break;
		case O_CHECK: check = 1; break;
		case O_NOTUNE: no_tune = 1; break;
		case 'o': outdir = optarg; break;
		case 'h': fputs(gp_bench_help, stdout); return RT_OK;
		default:
			return rt_fail(err, RT_ERR_INPUT, "bench gp: unknown option '%s' (see --help)",
				       argv[optind - 1]);
		}
	}
	if (optind < argc)
		return rt_fail(err, RT_ERR_INPUT, "bench gp: unexpected argument '%s'", argv[optind]);
	if (parse_methods(methods, bm, &nm, err))
		return err->status;

	/* Problem and population, built by the engine as a run would. */
	if ((st = rt_spec_load_named(&spec, problem, err)))
		goto out;
	if (!no_tune && (st = apply_tuning(&spec, opt, use_gpu, threads_given, &threads, tuned_variants,
					   sizeof tuned_variants, &variant_list, err)))
		goto out;
	cpu_set_threads((int)threads);
	tun.threads = cpu_threads();
	if ((st = gp_problem_load(&spec, &prob, err)))
		goto out;
	have_problem = 1;
	if (!tun.block)
		tun.block = prob.cpu_block;
	if (population > 0)
		prob.population = (int)population;
	if (maxsize > 0)
		prob.breed.max_size = (int)maxsize;
	if (initdepth > 0) {
		prob.breed.init_max_depth = (int)initdepth;
		if (prob.breed.init_min_depth > prob.breed.init_max_depth)
			prob.breed.init_min_depth = prob.breed.init_max_depth;
	}
	trees = rt_calloc((size_t)prob.population, sizeof *trees, err);
	fit = rt_malloc((size_t)prob.population * sizeof *fit, err);
	if (!trees || !fit) {
		st = RT_ERR_SYSTEM;
		goto out;
	}
	if ((st = gp_init_population(trees, prob.population, &prob.fset, &prob.breed, seed, err)) ||
	    (st = gp_pack_rpn(&rpn, trees, prob.population, err)) ||
	    (st = gp_pack_lgp(&lgp, trees, prob.population, err)))
		goto out;
	nodes = gp_packed_total_nodes(&rpn);
	sub = subset_cases(&prob.cases, (size_t)baseline);
	cpu_model_name(model, sizeof model);
	{
		uint64_t ninsn = lgp.offset[lgp.nprogs];
		rt_info("bench gp %s: %d programs, %.2f nodes and %.2f LGP instructions on average, "
			"%zu cases (baseline: %zu); %s, %d threads, %s, block %d",
			prob.name, prob.population, (double)nodes / prob.population,
			(double)ninsn / prob.population, prob.cases.ncases, sub.ncases, model,
			tun.threads, gp_eval_isa_name(tun.isa),
			tun.block ? tun.block : GP_EVAL_BLOCK_DEFAULT);
	}

	if (check || use_gpu) {
		st = bench_gpu(&prob, &rpn, &lgp, seed, check, variant_list, gpu_threads, err);
		if (st || check || !use_cpu)
			goto out;
	}
	for (int i = 0; i < nm; i++) {
		const gp_packed *pk = gp_eval_method_form(bm[i].method) == GP_FORM_LGP ? &lgp : &rpn;
		bm[i].fit_sub = rt_malloc((size_t)prob.population * sizeof(double), err);
		if (!bm[i].fit_sub) {
			st = RT_ERR_SYSTEM;
			goto out;
		}
		if (bm[i].method == GP_EVAL_RPN1D) {
			if ((st = time_method(&bm[i], pk, &sub, &tun, (int)repeat, bm[i].fit_sub, err)))
				goto out;
			bm[i].cases = sub.ncases;
		} else {
			gp_eval_tuning t1 = tun;
			if (bm[i].threads > 0)
				t1.threads = bm[i].threads;
			bm[i].fit_full = rt_malloc((size_t)prob.population * sizeof(double), err);
			if (!bm[i].fit_full) {
				st = RT_ERR_SYSTEM;
				goto out;
			}
			if ((st = time_method(&bm[i], pk, &prob.cases, &tun, (int)repeat, bm[i].fit_full,
					      err)))
				goto out;
			bm[i].cases = prob.cases.ncases;
			if ((st = gp_eval_cpu_tuned(pk, &sub, bm[i].method, &t1, bm[i].fit_sub, err)))
				goto out;
		}
		bm[i].gpops = (double)nodes * (double)bm[i].cases / bm[i].median;
		if (bm[i].method == GP_EVAL_RPN1D && base_rate == 0.0)
			base_rate = bm[i].gpops;
	}
	/* Agreement: every method against the first, on the subset; 2-D methods
	 * among themselves on all cases. */
	for (int i = 1; i < nm; i++)
		for (int p = 0; p < prob.population; p++) {
			double d = rel_diff(bm[0].fit_sub[p], bm[i].fit_sub[p]);
			if (d > maxdiff_sub)
				maxdiff_sub = d;
		}
	for (int i = 0; i < nm; i++)
		for (int j = i + 1; j < nm; j++)
			if (bm[i].fit_full && bm[j].fit_full)
				for (int p = 0; p < prob.population; p++) {
					double d = rel_diff(bm[i].fit_full[p], bm[j].fit_full[p]);
					if (d > maxdiff_full)
						maxdiff_full = d;
				}

	printf("%-8s %7s %9s %12s %14s %10s\n", "method", "threads", "cases", "median s",
	       "GPop/s", "vs rpn1d");
	for (int i = 0; i < nm; i++) {
		char ratio[32] = "-";
		if (base_rate > 0)
			snprintf(ratio, sizeof ratio, "%.1fx", bm[i].gpops / base_rate);
		printf("%-8s %7d %9zu %12.6f %14.4g %10s\n", gp_eval_method_name(bm[i].method),
		       bm[i].method == GP_EVAL_RPN1D ? 1 : (bm[i].threads ? bm[i].threads : tun.threads),
		       bm[i].cases, bm[i].median, bm[i].gpops, ratio);
	}
	printf("agreement: max relative fitness difference %.3g on the %zu-case subset, "
	       "%.3g between 2-D methods on all cases\n", maxdiff_sub, sub.ncases, maxdiff_full);

	if (outdir) {
		rt_json j = {0};
		char date[64];
		time_t now = time(NULL);
		struct tm tmv;
		strftime(date, sizeof date, "%Y-%m-%dT%H:%M:%SZ", gmtime_r(&now, &tmv));
		if ((st = rt_mkdirs(outdir, err)) ||
		    (st = rt_format(path, sizeof path, err, "%s/bench-gp-%s.json", outdir, prob.name)))
			goto out;
		rt_json_begin_object(&j, NULL);
		rt_json_string(&j, "benchmark", "gp evaluators");
		rt_json_string(&j, "problem", prob.name);
		rt_json_string(&j, "date", date);
		rt_json_string(&j, "device", model);
		rt_json_string(&j, "backend", "cpu");
		rt_json_string(&j, "isa", gp_eval_isa_name(tun.isa));
		rt_json_int(&j, "threads", tun.threads);
		rt_json_int(&j, "block", tun.block ? tun.block : GP_EVAL_BLOCK_DEFAULT);
		rt_json_int(&j, "population", prob.population);
		rt_json_int(&j, "seed", (long long)seed);
		rt_json_int(&j, "total_nodes", (long long)nodes);
		rt_json_double(&j, "mean_nodes", (double)nodes / prob.population);
		rt_json_int(&j, "lgp_instructions", (long long)lgp.offset[lgp.nprogs]);
		rt_json_int(&j, "cases", (long long)prob.cases.ncases);
		rt_json_int(&j, "baseline_cases", (long long)sub.ncases);
		rt_json_int(&j, "repeat", repeat);
		rt_json_double(&j, "max_rel_diff_subset", maxdiff_sub);
		rt_json_double(&j, "max_rel_diff_full", maxdiff_full);
		rt_json_begin_array(&j, "methods");
		for (int i = 0; i < nm; i++) {
			rt_json_begin_object(&j, NULL);
			rt_json_string(&j, "method", gp_eval_method_name(bm[i].method));
			rt_json_int(&j, "threads", bm[i].method == GP_EVAL_RPN1D
							   ? 1 : (bm[i].threads ? bm[i].threads : tun.threads));
			rt_json_int(&j, "cases", (long long)bm[i].cases);
			rt_json_double(&j, "median_s", bm[i].median);
			rt_json_double(&j, "min_s", bm[i].min);
			rt_json_double(&j, "gpops", bm[i].gpops);
			if (base_rate > 0)
				rt_json_double(&j, "ratio_vs_rpn1d", bm[i].gpops / base_rate);
			rt_json_end_object(&j);
		}
		rt_json_end_array(&j);
		rt_json_end_object(&j);
		st = rt_json_write(&j, path, err);
		rt_buf_free(&j.buf);
		if (!st)
			rt_info("wrote %s", path);
	}

out:
	for (int i = 0; i < nm; i++) {
		free(bm[i].fit_full);
		free(bm[i].fit_sub);
	}
	if (trees)
		for (int i = 0; i < prob.population; i++)
			gp_tree_free(&trees[i]);
	free(trees);
	free(fit);
	gp_packed_free(&rpn);
	gp_packed_free(&lgp);
	if (have_problem)
		gp_problem_free(&prob);
	rt_spec_free(&spec);
	return st;
}
