/* kinds.h: the algorithm families (spec [problem] kind = ...) and what the
 * CLI can ask of each: run a spec, generate its sources, benchmark. */
#ifndef RT_KINDS_H
#define RT_KINDS_H

#include <stdint.h>

#include "backend.h"
#include "error.h"
#include "spec.h"

struct rt_jval;   /* json_read.h */

/* Options common to every subcommand (from the command line). */
typedef struct rt_options {
	rt_backend backend;
	uint64_t seed;
	int seed_given;        /* --seed was passed (else the spec's seed, else 1) */
	int threads;           /* 0 = all cores */
	const char *outdir;    /* results folder; NULL = results/<problem name> */
	int quiet;
	const char *arch;      /* GPU arch for `gen` without a GPU (default sm_90) */
	long checkpoint_every; /* run: --checkpoint-every N steps; 0: by time (60 s); < 0: never */
	const char *resume;    /* run: --resume DIR|FILE, the checkpoint to go on from; NULL: none */
} rt_options;

/* A top-level command a kind adds (`evoforge svm-train ...`). It gets its raw
 * arguments (argv[0] = its name) and parses every option itself, the common
 * ones it needs (--backend, --threads, --seed) included, since a kind's own
 * flags may clash with them (LIBSVM's -h, -q, -v); opt holds the defaults. */
typedef struct rt_kind_command {
	const char *name;        /* NULL ends a kind's list */
	const char *usage;       /* one line for `evoforge help`; `COMMAND --help` says more */
	rt_status (*fn)(int argc, char **argv, const rt_options *opt, rt_error *err);
} rt_kind_command;

/* Receives one kernel compile a GPU run may make (`evoforge build`): the
 * arguments nvrtc_compile will get, less the arch. */
typedef rt_status (*rt_kernel_emit)(void *ctx, const char *name, const char *source,
				    const char *const *options, int noptions, rt_error *err);

typedef struct rt_kind {
	const char *name;
	const char *summary;
	/* Runs the job described by spec; writes results under opt->outdir. */
	rt_status (*run)(rt_spec *spec, const rt_options *opt, rt_error *err);
	/* Writes the generated C/CUDA sources for spec into dir; lists them. */
	rt_status (*gen)(rt_spec *spec, const rt_options *opt, const char *dir, rt_error *err);
	/* `evoforge bench KIND args...` */
	rt_status (*bench)(int argc, char **argv, const rt_options *opt, rt_error *err);
	/* One paragraph for `evoforge bench KIND --help`. */
	const char *bench_help;
	/* Extra top-level commands, ended by one with a NULL name; or NULL. */
	const rt_kind_command *commands;
	/* Tuning (`evoforge tune`, runtime/tune.h): the kind's pure-speed
	 * parameters, how to prune and time a configuration; NULL: none. */
	const struct rt_tune_kind *tune;

	/* ---- export and eval (runtime/export.c): the run's deployable artefacts ---- */
	/* `evoforge export`: writes the best solution of the run whose result.json
	 * (parsed: result; read from result_path, whose folder holds the run's
	 * other files) into dir as plain artefacts; NULL: nothing to export. */
	rt_status (*export_result)(const struct rt_jval *result, const char *result_path,
				   const rt_options *opt, const char *dir, rt_error *err);
	/* `evoforge eval`: the best solution on the table in data, one prediction
	 * per row into out (NULL: standard output); NULL: not supported. */
	rt_status (*eval_result)(const struct rt_jval *result, const char *result_path,
				 const char *data, const char *out, const rt_options *opt,
				 rt_error *err);
	/* Build (`evoforge build`, runtime/build.h): calls emit for every kernel
	 * compile a GPU run of spec may make on a device like info (its arch
	 * and shared memory sizes); NULL: the kind cannot be built yet. */
	rt_status (*kernels)(rt_spec *spec, const rt_options *opt, const gpu_info *info,
			     rt_kernel_emit emit, void *ctx, rt_error *err);
	/* The key of the kind's section that `--generations N` sets (gp and de:
	 * generations, aco: iterations, mbp: epochs); NULL: the kind has none
	 * (svm runs to its stopping tolerance). */
	const char *steps_key;
	/* 1: the kind writes checkpoints (`run --checkpoint-every`) and resumes
	 * from them (`run --resume`); 0: --resume is refused, naming the kind. */
	int checkpoints;
	/* Calls emit for each kernel whose source does not depend on the
	 * problem (runtime/generic.h: compiled when evoforge is built and
	 * embedded in it); NULL: none. */
	rt_status (*generic_kernels)(rt_kernel_emit emit, void *ctx, rt_error *err);
} rt_kind;

/* The kind named `name`, or NULL. Kinds not yet built are listed with NULL run. */
const rt_kind *rt_kind_find(const char *name);
/* All kinds, terminated by NULL. */
const rt_kind *const *rt_kinds(void);

/* Reads [problem] kind from spec and finds it; errors name the file:line. */
rt_status rt_kind_of_spec(rt_spec *spec, const rt_kind **kind, rt_error *err);

/* Runs kind's job (`evoforge run`, a built program's run) with SIGINT and
 * SIGTERM caught (signals.h): the kind stops between steps and writes its
 * results so far, marked interrupted; said here when it happens. */
rt_status rt_kind_run(const rt_kind *kind, rt_spec *spec, const rt_options *opt, rt_error *err);
/* The same without handlers and without the "stopped by" warning (the C
 * API: a stop comes from rt_stop_caller_request, the caller is told). */
rt_status rt_kind_run_uncaught(const rt_kind *kind, rt_spec *spec, const rt_options *opt,
			       rt_error *err);

/* `--generations N` of `evoforge run` and of a built program: sets the
 * kind's steps_key to value; a kind without one is refused, named. */
rt_status rt_kind_set_steps(rt_spec *spec, const rt_kind *kind, const char *value, rt_error *err);

/* The seed for a job: --seed if given, else [problem] seed, else 1. */
rt_status rt_job_seed(rt_spec *spec, const rt_options *opt, uint64_t *seed, rt_error *err);
/* The results folder for a job: -o if given, else results/<name>; created. */
rt_status rt_job_outdir(const rt_options *opt, const char *problem_name, char *out, int size,
			rt_error *err);

#endif
