/* built.c: the main of a problem-specific program made by `evoforge build`
 * (runtime/built.h): `NAME run`, `NAME info`, `NAME --help`.
 *
 * It registers the program's embedded cubins with the kernel cache
 * (kcache_prebuilt_register), parses its embedded spec, applies the
 * overrides fixed at build time and then the command line's, and calls the
 * kind's run: the same path as `evoforge run SPEC`, so the results are the
 * same for the same seed. */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend.h"
#include "built.h"
#include "cpu.h"
#include "gpu.h"
#include "kcache.h"
#include "kinds.h"
#include "log.h"
#include "signals.h"

static const char built_usage[] =
	"usage: %s run [--seed N] [--generations N] [-o DIR] [--backend auto|cpu|gpu]\n"
	"          [--threads N] [-q] [--startup-time]\n"
	"       %s info\n"
	"\n"
	"The problem-specific program for %s, made by evoforge %s (`evoforge build`),\n"
	"with its GPU kernels compiled ahead of time for %s: it needs no NVRTC when\n"
	"the GPU is one of those. `run` gives the same results as `evoforge run SPEC`\n"
	"with the same options. --startup-time: start up only (parse the spec; on the\n"
	"GPU open the driver and load every embedded kernel for the device), print\n"
	"the time it took and exit. `info`: the spec, overrides and embedded kernels.\n"
	"\n"
	"SIGINT or SIGTERM: `run` ends its current step, writes the results so far\n"
	"(marked \"interrupted\") and exits 3; a second signal ends it at once.\n"
	"\n"
	"Exit status: 0 success, 2 bad input (arguments), 3 interrupted, 1 other errors.\n";

typedef struct built_cli {
	rt_options opt;
	const char *generations;
	int startup_time, help;
} built_cli;

static rt_status parse(int argc, char **argv, built_cli *c, rt_error *err)
{
	enum { O_BACKEND = 256, O_SEED, O_THREADS, O_GENS, O_STARTUP };
	static const struct option longopts[] = {
		{"backend", required_argument, 0, O_BACKEND}, {"seed", required_argument, 0, O_SEED},
		{"threads", required_argument, 0, O_THREADS}, {"output", required_argument, 0, 'o'},
		{"generations", required_argument, 0, O_GENS}, {"quiet", no_argument, 0, 'q'},
		{"startup-time", no_argument, 0, O_STARTUP}, {"help", no_argument, 0, 'h'},
		{0, 0, 0, 0}};
	int ch;
	char *end;
	opterr = 0;
	optind = 1;
	while ((ch = getopt_long(argc, argv, "o:qh", longopts, NULL)) != -1) {
		errno = 0;
		if (ch == O_BACKEND && rt_backend_parse(optarg, &c->opt.backend, err))
			return RT_ERR_INPUT;
		else if (ch == O_SEED) {
			c->opt.seed = strtoull(optarg, &end, 0);
			c->opt.seed_given = 1;
			if (*end || end == optarg || errno || optarg[0] == '-')
				return rt_fail(err, RT_ERR_INPUT,
					       "--seed: expected a non-negative integer, got '%s'", optarg);
		} else if (ch == O_THREADS) {
			long t = strtol(optarg, &end, 10);
			if (*end || end == optarg || t < 1 || t > RT_MAX_THREADS)
				return rt_fail(err, RT_ERR_INPUT, "--threads: expected an integer in "
					       "[1, %d], got '%s'", RT_MAX_THREADS, optarg);
			c->opt.threads = (int)t;
		} else if (ch == 'o') {
			c->opt.outdir = optarg;
		} else if (ch == O_GENS) {
			c->generations = optarg;
		} else if (ch == 'q') {
			c->opt.quiet = 1;
		} else if (ch == O_STARTUP) {
			c->startup_time = 1;
		} else if (ch == 'h') {
			c->help = 1;
		} else if (ch != O_BACKEND) {
			return rt_fail(err, RT_ERR_INPUT, "unknown option or missing value: '%s' (see "
				       "--help)", argv[optind - 1]);
		}
	}
	if (optind < argc)
		return rt_fail(err, RT_ERR_INPUT, "unexpected argument '%s' (see --help)", argv[optind]);
	return RT_OK;
}

/* The embedded spec with the build's overrides, then the command line's. */
static rt_status load(const rt_built_program *p, const built_cli *c, rt_spec *spec,
		      const rt_kind **kind, rt_error *err)
{
	rt_status st = rt_spec_load_text(spec, p->spec_path, p->spec_text, err);
	if (st != RT_OK)
		return st;
	if ((st = rt_format(spec->dir, sizeof spec->dir, err, "%s", p->spec_dir)) != RT_OK) {
		rt_spec_free(spec);
		return st;
	}
	for (int i = 0; i < p->noverrides && st == RT_OK; i++)
		st = rt_spec_set_assignment(spec, p->overrides[i], err);
	if (st == RT_OK)
		st = rt_kind_of_spec(spec, kind, err);
	if (st == RT_OK && c->generations)
		st = rt_kind_set_steps(spec, *kind, c->generations, err);
	if (st != RT_OK)
		rt_spec_free(spec);
	return st;
}

/* --startup-time on the GPU: opens the driver and a context and loads every
 * embedded kernel for the device's arch (what a run does before its first
 * launch), adding to the time t0 started; t1: when opening the driver began. */
static rt_status startup_gpu(const rt_built_program *p, double t0, double spec_ms, double t1,
			     rt_error *err)
{
	gpu_info info;
	gpu_context *ctx = NULL;
	char arch[16];
	int loaded = 0;
	double t2;
	rt_backend chosen;
	rt_status st = rt_backend_select(RT_BACKEND_GPU, &chosen, &info, err);
	if (st == RT_OK)
		st = gpu_context_open(0, &ctx, err);
	if (st != RT_OK)
		return st;
	gpu_arch_name(&info, arch, sizeof arch);
	t2 = rt_now();
	for (int i = 0; i < p->nkernels && st == RT_OK; i++) {
		gpu_module *mod = NULL;
		if (strcmp(p->kernels[i].arch, arch) != 0)
			continue;
		st = gpu_module_load(ctx, p->kernels[i].cubin,
				     (size_t)(p->kernels[i].end - p->kernels[i].cubin), &mod, err);
		gpu_module_unload(mod);
		loaded += st == RT_OK;
	}
	if (st == RT_OK && loaded == 0)
		st = rt_fail(err, RT_ERR_UNSUPPORTED, "%s: no embedded kernel for %s (%s) built for "
			     "%s; rebuild with `evoforge build SPEC --arch %s`", p->name, info.name,
			     arch, p->archs, arch);
	if (st == RT_OK)
		printf("startup: %.1f ms (spec parsed %.2f ms; CUDA driver and context %.1f ms; %d "
		       "kernels for %s loaded %.2f ms; no NVRTC) on %s\n", (rt_now() - t0) * 1e3,
		       spec_ms, (t2 - t1) * 1e3, loaded, arch, (rt_now() - t2) * 1e3, info.name);
	gpu_context_close(ctx);
	return st;
}

static void info(const rt_built_program *p)
{
	printf("%s: problem-specific program, evoforge %s\nspec: %s (data from %s)\n", p->name,
	       p->evoforge_version, p->spec_path, p->spec_dir);
	for (int i = 0; i < p->noverrides; i++)
		printf("override: %s\n", p->overrides[i]);
	if (p->threads)
		printf("threads: %d (tuned)\n", p->threads);
	printf("archs: %s\nkernels: %d\n", p->archs, p->nkernels);
	for (int i = 0; i < p->nkernels; i++)
		printf("  %-40s %-7s %8zu bytes\n", p->kernels[i].name, p->kernels[i].arch,
		       (size_t)(p->kernels[i].end - p->kernels[i].cubin));
}

/* `NAME run`: start-up, then the kind's run (or only the start-up time). */
static rt_status run(const rt_built_program *p, built_cli *c, double t0, rt_error *err)
{
	rt_spec spec;
	const rt_kind *kind;
	rt_backend chosen = RT_BACKEND_CPU;
	rt_status st;
	rt_log_set_quiet(c->opt.quiet);
	if (!c->opt.threads)
		c->opt.threads = p->threads;
	cpu_set_threads(c->opt.threads);
	if ((st = load(p, c, &spec, &kind, err)) != RT_OK)
		return st;
	double spec_ms = (rt_now() - t0) * 1e3;
	if (c->startup_time) {
		double t1 = rt_now();   /* the driver opens in the first select */
		if (c->opt.backend != RT_BACKEND_CPU)
			st = rt_backend_select(c->opt.backend, &chosen, NULL, err);
		if (st == RT_OK && chosen == RT_BACKEND_GPU)
			st = startup_gpu(p, t0, spec_ms, t1, err);
		else if (st == RT_OK)
			printf("startup: %.2f ms (spec parsed; CPU backend: no kernels to load)\n",
			       (rt_now() - t0) * 1e3);
	} else {
		rt_info("startup: %.2f ms (spec parsed, %d embedded kernels for %s registered; no "
			"NVRTC needed for them)", spec_ms, p->nkernels, p->archs);
		st = rt_kind_run(kind, &spec, &c->opt, err);
	}
	rt_spec_free(&spec);
	return st;
}

int rt_built_main(const rt_built_program *p, int argc, char **argv)
{
	double t0 = rt_now();
	const char *cmd = argc > 1 ? argv[1] : "--help";
	built_cli c;
	rt_error err = {0};
	rt_status st;
	memset(&c, 0, sizeof c);
	rt_signals_ignore_file_size();
	if (p->abi != RT_BUILT_ABI) {
		fprintf(stderr, "%s: error: built for runtime interface %d, this library has %d: run "
			"evoforge build again\n", argv[0], p->abi, RT_BUILT_ABI);
		return 1;
	}
	kcache_prebuilt_register(p->kernels, p->nkernels);
	if (!strcmp(cmd, "--help") || !strcmp(cmd, "-h") || !strcmp(cmd, "help")) {
		printf(built_usage, argv[0], argv[0], p->spec_path, p->evoforge_version, p->archs);
		return 0;
	}
	if (!strcmp(cmd, "info"))
		return (info(p), 0);
	if (strcmp(cmd, "run") != 0) {
		fprintf(stderr, "%s: error: unknown command '%s' (run, info or --help)\n", argv[0], cmd);
		return 2;
	}
	st = parse(argc - 1, argv + 1, &c, &err);
	if (st == RT_OK && c.help)
		return (printf(built_usage, argv[0], argv[0], p->spec_path, p->evoforge_version,
			       p->archs), 0);
	if (st == RT_OK)
		st = run(p, &c, t0, &err);
	if (st != RT_OK)
		fprintf(stderr, "%s: error: %s\n", argv[0], err.msg);
	return rt_exit_code(st);
}
