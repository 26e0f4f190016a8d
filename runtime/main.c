/* main.c: the evoforge command-line program: run, gen, bench, info, tune, build and the
 * commands the kinds add (rt_kind.commands, e.g. svm-train). */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "backend.h"
#include "build.h"
#include "comm.h"
#include "cpu.h"
#include "export.h"
#include "gen.h"
#include "gpu.h"
#include "generic.h"
#include "kcache.h"
#include "kinds.h"
#include "log.h"
#include "nvrtc.h"
#include "plot.h"
#include "signals.h"
#include "smoke.h"
#include "spec.h"
#include "timeline.h"
#include "tune.h"

#define DEFAULT_PROBLEM "problems/sextic.ini"

static const char usage_main[] =
	"usage: evoforge COMMAND [options] [arguments]\n"
	"\n"
	"Population-based search and learning on NVIDIA GPUs, or on the CPU.\n"
	"\n"
	"commands:\n"
	"  run [SPEC]           run the job a problem spec describes (default: the\n"
	"                       embedded sextic regression problem)\n"
	"  gen SPEC -o DIR      write the generated C and CUDA sources for SPEC\n"
	"  bench KIND [...]     benchmark a kind's evaluators/kernels side by side\n"
	"  tune SPEC            search the fastest kernel configuration for SPEC on\n"
	"                       this device; run then uses it (evoforge help tune)\n"
	"  export RESULT -o DIR write a run's best solution (RESULT: its result.json)\n"
	"                       as deployable files (GP: standalone C and an evaluator)\n"
	"  eval RESULT DATA     a run's best solution on DATA.csv, one prediction a row\n"
	"  plot DIR [-o FILE]   a run's convergence plot (DIR: its results folder) as\n"
	"                       DIR/convergence.png, drawn by gnuplot\n"
	"  build SPEC -o DIR    write and build a program for SPEC alone, its kernels\n"
	"                       compiled ahead of time (evoforge help build)\n"
	"  info [--check]       backends, GPU, NVRTC version, kernel cache (--check:\n"
	"                       run the GPU smoke test against the CPU)\n"
	"  help [COMMAND]       help for a command\n"
	"\n"
	"common options:\n"
	"  --backend auto|cpu|gpu   where to run (default auto: the GPU if present)\n"
	"  --seed N                 random seed (default: the spec's, else 1)\n"
	"  --threads N              CPU threads (default: all cores)\n"
	"  -o, --output DIR         results folder (default results/<problem>)\n"
	"  -q, --quiet              no progress output\n"
	"  --set SECTION.KEY=VALUE  override a spec value (repeatable)\n"
	"  --generations N          shorthand for --set <kind>.generations=N (aco:\n"
	"                           iterations, mbp: epochs; svm has none)\n"
	"  --population N           shorthand for --set <kind>.population=N\n"
	"  --arch sm_XY             GPU architecture for gen without a GPU (default sm_90);\n"
	"                           build: a comma-separated list\n"
	"  --no-tune                run, build: ignore the tuning database (evoforge help tune)\n"
	"  --checkpoint-every N     run: a checkpoint (DIR/checkpoint.bin) every N steps (gp, de:\n"
	"                           generations; aco: iterations; mbp: epochs; svm: SMO iterations)\n"
	"                           (default: at most every 60 s, and on SIGINT/SIGTERM; 0: none)\n"
	"  --resume DIR|FILE        run: go on from a checkpoint, with the same spec and --set\n"
	"                           values (every kind; gp's one-vs-rest runs too)\n"
	"\n"
	"SIGINT or SIGTERM during `run`: the current step (generation, iteration,\n"
	"epoch, SMO launch) ends, result.json and the other results so far are\n"
	"written, marked \"interrupted\", and the exit status is 3; a second one\n"
	"ends the process at once (130 or 143).\n"
	"\n"
	"Exit status: 0 success, 2 bad input (spec, data, arguments), 3 interrupted\n"
	"(results so far written), 1 other errors.\n";

static const char usage_run[] =
	"usage: evoforge run [options] [SPEC]\n"
	"\n"
	"Runs the problem described by SPEC (an INI file, see problems/). Without\n"
	"SPEC, runs the embedded default problem (sextic regression).\n"
	"Progress goes to stdout, one line per generation; results go to\n"
	"DIR/result.json and DIR/history.csv (written atomically). SIGINT or\n"
	"SIGTERM ends the current step, writes the results so far (marked\n"
	"\"interrupted\") and exits 3; a second signal ends the run at once.\n"
	"\n"
	"Under mpirun, build/evoforge-mpi spreads de's problems, mbp's networks and\n"
	"svm's binary problems over the ranks; with an [islands] section (interval,\n"
	"migrants, topology ring|random|full, emigrants best|random, replace\n"
	"worst|random) gp, de and aco run one island per rank (README: MPI).\n";

static const char usage_gen[] =
	"usage: evoforge gen [options] SPEC -o DIR\n"
	"\n"
	"Writes the C and CUDA sources the generator makes for SPEC into DIR, so\n"
	"what runs on the GPU can be read. Nothing is compiled or run.\n";

static const char usage_bench[] =
	"usage: evoforge bench KIND [options]\n"
	"\n"
	"Benchmarks KIND's implementations side by side in one run and prints\n"
	"medians and ratios. `evoforge bench KIND --help` lists its options.\n";

static const char usage_tune[] =
	"usage: evoforge tune [options] SPEC [--budget SECONDS] [--retune]\n"
	"\n"
	"Searches the kernel configuration space of SPEC's problem on the present\n"
	"device (--backend): parameters that change speed, never results (GP on the\n"
	"GPU: interpreter form, cases per thread, register stack levels, threads per\n"
	"block, passes, carve-out; GP on the CPU: block of cases and threads; DE on\n"
	"the GPU: variant, block, population memory, streams, persistent; DE on the\n"
	"CPU: threads). Each is timed on fresh random populations; configurations\n"
	"that spill registers or exceed the device are pruned before launch. The\n"
	"default first, then a coarse grid, then local refinement, for about\n"
	"--budget seconds (default 45). The winner goes to tuning.json in the\n"
	"kernel cache folder, keyed by the problem, device, driver, NVRTC and\n"
	"evoforge versions; `run` applies it and says \"tuned configuration: ...\"\n"
	"(--no-tune: it does not; --set and --threads win over it). An entry\n"
	"already there is kept unless --retune.\n";

static const char usage_build[] =
	"usage: evoforge build [options] SPEC -o DIR [--arch sm_80,sm_90]\n"
	"\n"
	"Writes a problem-specific program for SPEC into DIR: DIR/NAME.c (the spec,\n"
	"its overrides -- --set and the tuned configuration unless --no-tune -- and\n"
	"the table of cubins), the GPU kernels a run may compile, compiled here with\n"
	"NVRTC for each --arch (default " RT_DEFAULT_ARCH ") into DIR/kernels/ and embedded,\n"
	"the kind's generated sources in DIR/gen/, a copy of libevoforge.a and a\n"
	"build.ninja; then builds DIR/NAME with ninja when ninja is on PATH (else\n"
	"says so and exits 0). `DIR/NAME run [--seed N] [--generations N] [-o DIR]\n"
	"[--backend B]` gives the results `evoforge run SPEC` gives, without NVRTC\n"
	"on a GPU of a built arch; `DIR/NAME run --startup-time` times its start-up.\n"
	"Kinds: gp, de, aco, mbp and svm.\n";

static const char usage_generic[] =
	"usage: evoforge generic-kernels [--arch sm_80,sm_90] -o DIR\n"
	"\n"
	"The ninja build's step (runtime/generic.h): compiles the kernels that do not\n"
	"depend on the problem (gp: breeding at the default depth limits) for each\n"
	"--arch into DIR/kernels/ and writes DIR/generic.c and DIR/generic.S, the\n"
	"table build/evoforge embeds; without NVRTC the table is empty (a warning).\n";

static const char usage_info[] =
	"usage: evoforge info [--check]\n"
	"\n"
	"Prints the backends, the GPU (name, SMs, memory, compute capability,\n"
	"shared memory, L2), the NVRTC version, the kernels embedded at build time\n"
	"and the kernel cache folder.\n"
	"--check also runs the smoke kernel on the GPU and compares it with the\n"
	"CPU (exit 1 when they differ or there is no GPU).\n";

static const char usage_export[] =
	"usage: evoforge export RESULT.json -o DIR [--arch sm_80,sm_90|none]\n"
	"\n"
	"Writes the best solution of the run whose results are RESULT.json (with the\n"
	"files beside it) into DIR as plain artefacts:\n"
	"  gp   NAME.c (standalone C99: double NAME(const double *x), the float batch\n"
	"       NAME_batch), NAME.h, NAME-eval.c (a CSV evaluator), a Makefile, and\n"
	"       NAME-eval built when cc is present; NAME-kernels.c, the program as\n"
	"       cubins for --arch (default sm_80,sm_90,sm_100,sm_120; none: no GPU\n"
	"       code), which NAME-eval runs on a GPU when libcuda answers\n"
	"  de   best.csv and best.json (the best vector of every problem)\n"
	"  aco  NAME.tour (TSPLIB TOUR, checked against the run's length)\n"
	"  svm  NAME.model (LIBSVM format); NAME.c, NAME.h (the model as C99 with a\n"
	"       predictor), NAME-eval.c (LIBSVM or CSV points in, labels out), a\n"
	"       Makefile, and NAME-eval built when cc is present\n"
	"  mbp  NAME.net; NAME.c, NAME.h (the network as C99 with its weights),\n"
	"       NAME-eval.c (a CSV evaluator), a Makefile, NAME-eval built likewise\n";

static const char usage_eval[] =
	"usage: evoforge eval RESULT.json DATA [-o OUT.csv] [--backend auto|cpu|gpu]\n"
	"\n"
	"Evaluates the best solution of the run whose results are RESULT.json on\n"
	"DATA and writes one prediction per row (a \"prediction\" or \"class\" column)\n"
	"to OUT.csv or standard output. gp: DATA is a CSV whose header names the\n"
	"program's inputs (other columns are ignored; when the run's label column is\n"
	"there, the fitness on DATA is reported); the values are those of NAME-eval.\n"
	"svm: DATA is in LIBSVM format or CSV, as for svm-predict. mbp: a CSV whose\n"
	"header names the network's inputs (outputs and class per row). --backend: where\n"
	"to evaluate (auto: the GPU when one answers, else the CPU after a warning).\n";

static const char usage_plot[] =
	"usage: evoforge plot RESULT_DIR [-o FILE.png]\n"
	"\n"
	"Draws the convergence of the run whose results folder is RESULT_DIR (the\n"
	"-o DIR of `evoforge run`) from RESULT_DIR/history.csv into\n"
	"RESULT_DIR/convergence.png (-o: FILE.png instead), with gnuplot\n"
	"(apt-get install gnuplot-nox). Per generation (aco: iteration):\n"
	"  gp   the best and the mean fitness, and the best and the mean program size\n"
	"       on a second axis\n"
	"  de   the best value (f - f* when the optimum f* is known); with several\n"
	"       problems the best of them and the mean of their best\n"
	"  aco  the best tour so far, and the gap to the optimum in % on a second axis\n"
	"       when result.json names the optimum (TSPLIB instances)\n"
	"  mbp  the training RMS (each epoch's) and the validation RMS against the\n"
	"       epoch; with several networks the lowest and the mean of each\n"
	"  svm  per one-vs-one pair: the dual objective, and below it the violation\n"
	"       m(a) - M(a) (logarithmic) with the eps SMO stops under; a grid\n"
	"       search's picture is grid.png, written by the run\n"
	"A fitness axis spanning over three decades is logarithmic; any other\n"
	"history.csv: its columns named best..., mean... against the first. Exit\n"
	"status 2 when the folder or history.csv is missing or malformed (FILE:LINE)\n"
	"or gnuplot is not found.\n";

typedef struct cli {
	rt_options opt;
	const char *sets[64];
	int nsets;
	const char *generations, *population;
	int help;
	int check;             /* info --check */
	int no_tune;           /* run: --no-tune */
	rt_tune_cli tune;      /* tune: --budget, --retune */
} cli;

static void print_error(const rt_error *err)
{
	fprintf(stderr, "evoforge: error: %s\n", err->msg);
}

/* Parses the common options; leaves positional arguments in argv[optind..].
 * stop_at_argument: stop at the first non-option (bench KIND passes the rest
 * on to the kind), else options may follow arguments. */
static rt_status parse_options(int argc, char **argv, int stop_at_argument, cli *c,
			       rt_error *err)
{
	enum { O_BACKEND = 256, O_SEED, O_THREADS, O_SET, O_GENS, O_POP, O_ARCH, O_CHECK,
	       O_NOTUNE, O_RETUNE, O_BUDGET, O_CKPT_EVERY, O_RESUME };
	static const struct option longopts[] = {
		{"backend", required_argument, 0, O_BACKEND},
		{"seed", required_argument, 0, O_SEED},
		{"threads", required_argument, 0, O_THREADS},
		{"output", required_argument, 0, 'o'},
		{"quiet", no_argument, 0, 'q'},
		{"set", required_argument, 0, O_SET},
		{"generations", required_argument, 0, O_GENS},
		{"population", required_argument, 0, O_POP},
		{"arch", required_argument, 0, O_ARCH},
		{"check", no_argument, 0, O_CHECK},
		{"no-tune", no_argument, 0, O_NOTUNE},
		{"retune", no_argument, 0, O_RETUNE},
		{"budget", required_argument, 0, O_BUDGET},
		{"checkpoint-every", required_argument, 0, O_CKPT_EVERY},
		{"resume", required_argument, 0, O_RESUME},
		{"help", no_argument, 0, 'h'},
		{0, 0, 0, 0}};
	int ch;
	char *end;
	opterr = 0;
	optind = 1;
	while ((ch = getopt_long(argc, argv, stop_at_argument ? "+o:qh" : "o:qh", longopts, NULL)) !=
	       -1) {
		switch (ch) {
		case O_BACKEND:
			if (rt_backend_parse(optarg, &c->opt.backend, err))
				return RT_ERR_INPUT;
			break;
		case O_SEED:
			errno = 0;
			c->opt.seed = strtoull(optarg, &end, 0);
			if (*end || end == optarg || errno || optarg[0] == '-')
				return rt_fail(err, RT_ERR_INPUT,
					       "--seed: expected a non-negative integer, got '%s'", optarg);
			c->opt.seed_given = 1;
			break;
		case O_THREADS: {
			long threads = strtol(optarg, &end, 10);  /* checked before narrowing */
			if (*end || end == optarg || threads < 1 || threads > RT_MAX_THREADS)
				return rt_fail(err, RT_ERR_INPUT,
					       "--threads: expected an integer in [1, %d], got '%s'",
					       RT_MAX_THREADS, optarg);
			c->opt.threads = (int)threads;
			break;
		}
		case 'o':
			c->opt.outdir = optarg;
			break;
		case 'q':
			c->opt.quiet = 1;
			break;
		case O_SET:
			if (c->nsets == (int)(sizeof c->sets / sizeof c->sets[0]))
				return rt_fail(err, RT_ERR_INPUT, "--set: too many overrides");
			c->sets[c->nsets++] = optarg;
			break;
		case O_GENS:
			c->generations = optarg;
			break;
		case O_POP:
			c->population = optarg;
			break;
		case O_ARCH:
			c->opt.arch = optarg;
			break;
		case O_CHECK:
			c->check = 1;
			break;
		case O_NOTUNE:
			c->no_tune = 1;
			break;
		case O_RETUNE:
			c->tune.retune = 1;
			break;
		case O_CKPT_EVERY: {
			long every = strtol(optarg, &end, 10);
			if (*end || end == optarg || every < 0)
				return rt_fail(err, RT_ERR_INPUT, "--checkpoint-every: expected a count of "
					       "generations >= 0 (0: none), got '%s'", optarg);
			c->opt.checkpoint_every = every > 0 ? every : -1;
			break;
		}
		case O_RESUME:
			c->opt.resume = optarg;
			break;
		case O_BUDGET:
			c->tune.budget = strtod(optarg, &end);
			if (*end || end == optarg || !(c->tune.budget > 0 && c->tune.budget <= 86400))
				return rt_fail(err, RT_ERR_INPUT,
					       "--budget: expected seconds in (0, 86400], got '%s'", optarg);
			break;
		case 'h':
			c->help = 1;
			break;
		default:
			/* A long option missing its value reports its enum value in optopt. */
			for (const struct option *o = longopts; optopt >= 256 && o->name; o++)
				if (o->val == optopt)
					return rt_fail(err, RT_ERR_INPUT, "option --%s: missing its value",
						       o->name);
			if (optopt)
				return rt_fail(err, RT_ERR_INPUT, "option -%c: unknown or missing its value",
					       optopt);
			return rt_fail(err, RT_ERR_INPUT, "unknown option '%s' (see evoforge help)",
				       argv[optind - 1]);
		}
	}
	rt_log_set_quiet(c->opt.quiet || rt_comm_rank() != 0);   /* rank 0 speaks for a job */
	cpu_set_threads(c->opt.threads);
	return RT_OK;
}

/* Loads SPEC (or the embedded default) and applies command-line overrides. */
static rt_status load_spec(const char *path, cli *c, rt_spec *spec, const rt_kind **kind,
			   rt_error *err)
{
	rt_status st;
	if (path) {
		st = rt_spec_load(spec, path, err);
	} else {
		const gen_file *f = gen_embedded(DEFAULT_PROBLEM);
		if (!f)
			return rt_fail(err, RT_ERR_INTERNAL, "the default problem is not embedded");
		rt_info("evoforge: no spec given; running the embedded default problem (%s)",
			DEFAULT_PROBLEM);
		st = rt_spec_load_text(spec, "(embedded) " DEFAULT_PROBLEM, f->text, err);
	}
	if (st != RT_OK)
		return st;
	for (int i = 0; i < c->nsets && st == RT_OK; i++)
		st = rt_spec_set_assignment(spec, c->sets[i], err);
	if (st == RT_OK)
		st = rt_kind_of_spec(spec, kind, err);
	if (st == RT_OK && c->generations)
		st = rt_kind_set_steps(spec, *kind, c->generations, err);
	if (st == RT_OK && c->population)
		st = rt_spec_set(spec, (*kind)->name, "population", c->population, err);
	if (st != RT_OK)
		rt_spec_free(spec);
	return st;
}

/* After a run that wrote DIR/history.csv: the command that plots it (DIR:
 * -o, else results/NAME as the kinds name it: [problem] name, else gp the
 * spec file's stem, the others their kind). */
static void say_plot(rt_spec *spec, const rt_kind *kind, const rt_options *opt)
{
	char dir[RT_PATH_MAX], stem[RT_PATH_MAX], hist[RT_PATH_MAX + 16];
	const rt_spec_entry *e = rt_spec_find(spec, "problem", "name");
	const char *name = kind->name, *base = strrchr(spec->path, '/');
	rt_error err;
	snprintf(stem, sizeof stem, "%s", base ? base + 1 : spec->path);
	if (strrchr(stem, '.') && strrchr(stem, '.') != stem)
		*strrchr(stem, '.') = 0;
	if (e)
		name = e->value;
	else if (!strcmp(kind->name, "gp"))
		name = stem;
	if ((opt->outdir ? rt_format(dir, sizeof dir, &err, "%s", opt->outdir)
			 : rt_format(dir, sizeof dir, &err, "results/%s", name)) ||
	    rt_format(hist, sizeof hist, &err, "%s/history.csv", dir) || access(hist, F_OK) != 0)
		return;
	rt_info("plot: evoforge plot %s", dir);
}

static rt_status cmd_run(int argc, char **argv, cli *c, rt_error *err)
{
	rt_spec spec;
	const rt_kind *kind;
	rt_status st;
	if (c->help)
		return (fputs(usage_run, stdout), RT_OK);
	if (argc - optind > 1)
		return rt_fail(err, RT_ERR_INPUT, "run: expected at most one SPEC, got %d arguments",
			       argc - optind);
	st = load_spec(optind < argc ? argv[optind] : NULL, c, &spec, &kind, err);
	if (st != RT_OK)
		return st;
	rt_mark("spec read");
	if (!c->no_tune)
		st = rt_tune_apply(kind, &spec, &c->opt, err);
	if (st == RT_OK)
		st = rt_kind_run(kind, &spec, &c->opt, err);
	if (st == RT_OK)
		say_plot(&spec, kind, &c->opt);
	rt_spec_free(&spec);
	return st;
}

static rt_status cmd_tune(int argc, char **argv, cli *c, rt_error *err)
{
	rt_spec spec;
	const rt_kind *kind;
	rt_status st;
	if (c->help)
		return (fputs(usage_tune, stdout), RT_OK);
	if (argc - optind != 1)
		return rt_fail(err, RT_ERR_INPUT, "tune: expected one SPEC (see evoforge help tune)");
	if ((st = load_spec(argv[optind], c, &spec, &kind, err)) != RT_OK)
		return st;
	st = rt_tune_command(kind, &spec, &c->opt, &c->tune, err);
	rt_spec_free(&spec);
	return st;
}

static rt_status cmd_gen(int argc, char **argv, cli *c, rt_error *err)
{
	rt_spec spec;
	const rt_kind *kind;
	rt_status st;
	if (c->help)
		return (fputs(usage_gen, stdout), RT_OK);
	if (argc - optind != 1 || !c->opt.outdir)
		return rt_fail(err, RT_ERR_INPUT, "gen: expected SPEC and -o DIR (see evoforge help gen)");
	st = load_spec(argv[optind], c, &spec, &kind, err);
	if (st != RT_OK)
		return st;
	if (!kind->gen)
		st = rt_fail(err, RT_ERR_UNSUPPORTED, "kind '%s' has no generated sources", kind->name);
	else
		st = kind->gen(&spec, &c->opt, c->opt.outdir, err);
	rt_spec_free(&spec);
	return st;
}

static rt_status cmd_build(int argc, char **argv, cli *c, rt_error *err)
{
	rt_spec spec;
	const rt_kind *kind;
	rt_build_cli bc = { c->opt.arch };
	rt_status st;
	if (c->help)
		return (fputs(usage_build, stdout), RT_OK);
	if (argc - optind != 1 || !c->opt.outdir)
		return rt_fail(err, RT_ERR_INPUT, "build: expected SPEC and -o DIR (see evoforge help "
			       "build)");
	if ((st = load_spec(argv[optind], c, &spec, &kind, err)) != RT_OK)
		return st;
	if (!c->no_tune)
		st = rt_tune_apply(kind, &spec, &c->opt, err);
	if (st == RT_OK)
		st = rt_build_command(kind, &spec, &c->opt, &bc, err);
	rt_spec_free(&spec);
	return st;
}

static rt_status cmd_bench(int argc, char **argv, cli *c, rt_error *err)
{
	const rt_kind *kind;
	if (optind >= argc) {
		if (c->help)
			return (fputs(usage_bench, stdout), RT_OK);
		return rt_fail(err, RT_ERR_INPUT, "bench: expected KIND (gp or de)");
	}
	kind = rt_kind_find(argv[optind]);
	if (!kind)
		return rt_fail(err, RT_ERR_INPUT, "bench: unknown kind '%s'", argv[optind]);
	for (int i = optind + 1; i < argc && !c->help; i++)
		c->help = !strcmp(argv[i], "--help") || !strcmp(argv[i], "-h");
	if (c->help) {
		fputs(usage_bench, stdout);
		if (kind->bench_help)
			printf("\n%s", kind->bench_help);
		return RT_OK;
	}
	if (!kind->bench)
		return rt_fail(err, RT_ERR_UNSUPPORTED, "bench: kind '%s' has no benchmark yet",
			       kind->name);
	return kind->bench(argc - optind, argv + optind, &c->opt, err);
}

static void info_gpu(void)
{
	rt_error e;
	int count = 0;
	if (gpu_open(&e) != RT_OK || gpu_device_count(&count, &e) != RT_OK) {
		printf("gpu:          none (%s)\n", e.msg);
		return;
	}
	printf("gpu devices:  %d\n", count);
	for (int i = 0; i < count; i++) {
		gpu_info g;
		if (gpu_device_info(i, &g, &e) != RT_OK) {
			printf("  device %d: %s\n", i, e.msg);
			continue;
		}
		printf("  device %d:   %s, sm_%d%d, %d SMs, %.1f GiB, %d KiB shared/block "
		       "(%d opt-in), %d KiB shared/SM, %d MiB L2, driver %d.%d\n",
		       i, g.name, g.cc_major, g.cc_minor, g.sm_count,
		       (double)g.total_mem / (1 << 30), g.smem_per_block >> 10,
		       g.smem_per_block_optin >> 10, g.smem_per_sm >> 10, g.l2_bytes >> 20,
		       g.driver_version / 1000, (g.driver_version % 1000) / 10);
	}
}

/* info --check: the smoke kernel on the GPU against the CPU, on sizes that
 * cover one element, a partial block and many blocks. */
static rt_status info_check(rt_error *err)
{
	static const int sizes[] = {1, 1000, 1000003, 1 << 24};
	for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
		double diff = 0, ms = 0;
		rt_status st = smoke_run_gpu(sizes[i], 12345, &diff, &ms, err);
		if (st != RT_OK && st != RT_ERR_INTERNAL)
			return st;
		printf("| smoke | n=%-9d | max |gpu-cpu| %.3g | tolerance %.0e | %8.3f ms | %s |\n",
		       sizes[i], diff, SMOKE_TOLERANCE, ms, st == RT_OK ? "agree" : "DIFFER");
		if (st != RT_OK)
			return st;
	}
	return RT_OK;
}

static rt_status cmd_info(int argc, char **argv, cli *c, rt_error *err)
{
	rt_error e;
	int major, minor;
	char dir[RT_PATH_MAX], archs[128];
	(void)argc;
	(void)argv;
	if (c->help)
		return (fputs(usage_info, stdout), RT_OK);
	printf("evoforge %s\n", RT_VERSION);
	printf("cpu threads:  %d\n", cpu_threads());
	printf("kinds:       ");
	for (const rt_kind *const *k = rt_kinds(); *k; k++)
		printf(" %s%s", (*k)->name, (*k)->run ? "" : " (not built yet)");
	printf("\n");
	info_gpu();
	if (nvrtc_open(&e) == RT_OK && nvrtc_version(&major, &minor, &e) == RT_OK)
		printf("nvrtc:        %d.%d\n", major, minor);
	else
		printf("nvrtc:        none (%s)\n", e.msg);
	printf("embedded:     %d generic kernel(s) for %s\n", rt_generic_count(),
	       rt_generic_archs(archs, sizeof archs));
	if (kcache_dir(dir, sizeof dir, &e) == RT_OK)
		printf("kernel cache: %s\n", dir);
	else
		printf("kernel cache: unavailable (%s)\n", e.msg);
	return c->check ? info_check(err) : RT_OK;
}

static rt_status cmd_generic(int argc, char **argv, cli *c, rt_error *err)
{
	(void)argv;
	if (c->help)
		return (fputs(usage_generic, stdout), RT_OK);
	if (argc - optind != 0 || !c->opt.outdir)
		return rt_fail(err, RT_ERR_INPUT, "generic-kernels: expected -o DIR and no arguments "
			       "(see evoforge help generic-kernels)");
	return rt_generic_write(c->opt.arch, c->opt.outdir, err);
}

static rt_status cmd_export(int argc, char **argv, cli *c, rt_error *err)
{
	if (c->help)
		return (fputs(usage_export, stdout), RT_OK);
	if (argc - optind != 1 || !c->opt.outdir)
		return rt_fail(err, RT_ERR_INPUT,
			       "export: expected RESULT.json and -o DIR (see evoforge help export)");
	return rt_export(argv[optind], &c->opt, c->opt.outdir, err);
}

static rt_status cmd_eval(int argc, char **argv, cli *c, rt_error *err)
{
	if (c->help)
		return (fputs(usage_eval, stdout), RT_OK);
	if (argc - optind != 2)
		return rt_fail(err, RT_ERR_INPUT,
			       "eval: expected RESULT.json and DATA (see evoforge help eval)");
	return rt_eval(argv[optind], argv[optind + 1], c->opt.outdir, &c->opt, err);
}

static rt_status cmd_plot(int argc, char **argv, cli *c, rt_error *err)
{
	if (c->help)
		return (fputs(usage_plot, stdout), RT_OK);
	if (argc - optind != 1)
		return rt_fail(err, RT_ERR_INPUT,
			       "plot: expected RESULT_DIR (see evoforge help plot)");
	rt_status st = rt_plot_convergence(argv[optind], c->opt.outdir, err);
	if (st == RT_OK && c->opt.outdir)
		rt_info("plot: %s", c->opt.outdir);
	else if (st == RT_OK)
		rt_info("plot: %s/convergence.png", argv[optind]);
	return st;
}

/* ---- commands the kinds add (rt_kind.commands) ------------------------------- */

/* The kind command called name, or NULL. */
static const rt_kind_command *find_kind_command(const char *name)
{
	for (const rt_kind *const *k = rt_kinds(); *k; k++)
		for (const rt_kind_command *kc = (*k)->commands; kc && kc->name; kc++)
			if (!strcmp(kc->name, name))
				return kc;
	return NULL;
}

/* `evoforge help`: the kinds' commands, one line each. */
static void list_kind_commands(void)
{
	int any = 0;
	for (const rt_kind *const *k = rt_kinds(); *k; k++)
		for (const rt_kind_command *kc = (*k)->commands; kc && kc->name; kc++) {
			if (!any++)
				printf("\nkind commands (their own flags; evoforge help COMMAND):\n");
			printf("  %s\n", kc->usage);
		}
}

/* `evoforge help COMMAND` for a kind's command: the command's own --help. */
static int kind_command_help(const rt_kind_command *kc)
{
	char help[] = "--help";
	char *args[] = { (char *)kc->name, help, NULL };
	rt_options opt;
	rt_error err = {0};
	rt_status st;
	memset(&opt, 0, sizeof opt);
	st = kc->fn(2, args, &opt, &err);
	if (st != RT_OK)
		print_error(&err);
	return rt_exit_code(st);
}

/* Runs the command argv names; its exit status. A failure leaves its
 * message in err (main prints it: under mpirun once for the job), or an
 * empty message when it was reported already. */
static int run_command(int argc, char **argv, rt_error *err)
{
	static const struct {
		const char *name;
		rt_status (*fn)(int, char **, cli *, rt_error *);
		const char *usage;
	} commands[] = {
		{"run", cmd_run, usage_run},
		{"gen", cmd_gen, usage_gen},
		{"bench", cmd_bench, usage_bench},
		{"info", cmd_info, usage_info},
		{"tune", cmd_tune, usage_tune},
		{"export", cmd_export, usage_export},
		{"eval", cmd_eval, usage_eval},
		{"build", cmd_build, usage_build},
		{"plot", cmd_plot, usage_plot},
		{"generic-kernels", cmd_generic, usage_generic},   /* the build's (not listed) */
	};
	cli c;
	rt_status st;
	const char *name = argc > 1 ? argv[1] : "help";
	memset(&c, 0, sizeof c);
	rt_signals_ignore_file_size();
	if (!strcmp(name, "help") || !strcmp(name, "--help") || !strcmp(name, "-h")) {
		for (size_t i = 0; argc > 2 && i < sizeof commands / sizeof commands[0]; i++)
			if (!strcmp(argv[2], commands[i].name))
				return (fputs(commands[i].usage, stdout), 0);
		if (argc > 2 && find_kind_command(argv[2]))
			return kind_command_help(find_kind_command(argv[2]));
		fputs(usage_main, stdout);
		list_kind_commands();
		return 0;
	}
	if (!strcmp(name, "--version"))
		return (printf("evoforge %s\n", RT_VERSION), 0);
	for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++) {
		if (strcmp(name, commands[i].name))
			continue;
		st = parse_options(argc - 1, argv + 1, commands[i].fn == cmd_bench, &c, err);
		if (st == RT_OK)
			st = commands[i].fn(argc - 1, argv + 1, &c, err);
		return rt_exit_code(st);
	}
	if (find_kind_command(name)) {
		memset(&c, 0, sizeof c);
		st = find_kind_command(name)->fn(argc - 1, argv + 1, &c.opt, err);
		return rt_exit_code(st);
	}
	if (rt_comm_rank() == 0)   /* every rank has the same arguments */
		fprintf(stderr, "evoforge: error: unknown command '%s'\n\n%s", name, usage_main);
	err->msg[0] = 0;
	return 2;
}

/* The end of the job, with this process's exit status `code` and, when it
 * failed, err's message. Under mpirun the ranks first compare their ends
 * (rt_comm_agree): when every rank ended alike (a spec error every rank
 * finds) rank 0 alone prints the message and every rank ends cleanly with
 * the status; when the ranks ended differently, the failed ones print
 * their messages naming themselves (one message they share: the lowest of
 * them alone); a failed rank whose peers do not come (they wait for it in
 * the run's messages) ends the whole job (MPI_Abort). */
static int end_job(int code, const rt_error *err)
{
	rt_error e = {0};
	rt_comm_ends ends;
	int rank = rt_comm_rank(), size = rt_comm_size();
	const char *msg = code != 0 && code != RT_EXIT_INTERRUPTED ? err->msg : "";
	if (rt_comm_agree(code, msg, &ends, &e) != RT_OK) {
		if (*msg)
			fprintf(stderr, "evoforge: error: rank %d of %d: %s\n", rank, size, msg);
		fprintf(stderr, "evoforge: rank %d of %d ended (exit %d) and %s: ending the job\n",
			rank, size, code, e.msg);
		rt_comm_abort(code ? code : 1);
	}
	if (*msg && ends.same && rank == 0)
		print_error(err);   /* every rank: the same status and message */
	else if (*msg && !ends.same && (!ends.one_message || rank == ends.first_failed))
		fprintf(stderr, "evoforge: error: rank %d of %d: %s\n", rank, size, msg);
	rt_comm_end();
	return code;
}

/* One process, or one MPI rank of build/evoforge-mpi (comm.h). */
int main(int argc, char **argv)
{
	rt_error err = {0};
	rt_mark("main");
	rt_status st = rt_comm_start(&argc, &argv, &err);
	rt_mark("mpi started");
	if (st != RT_OK) {
		print_error(&err);
		return rt_exit_code(st);
	}
	return end_job(run_command(argc, argv, &err), &err);
}
