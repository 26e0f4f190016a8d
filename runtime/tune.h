/* tune.h: `evoforge tune SPEC`: searching a kind's kernel configuration
 * space on the present device, and applying the winner in `run` and `bench`.
 *
 * A kind that can be tuned gives its rt_kind a `tune` table (below): the
 * parameters it can change without changing results (GP interpreter form,
 * cases per thread, threads per block ...; DE variant, block, streams ...;
 * CPU block size and threads), how a configuration becomes spec overrides,
 * how to reject one before launching it (register spills, resources) and how
 * to time one on fresh random populations of the problem. The search here is
 * the same for every kind: the default first, a coarse grid, then local
 * refinement around the best, within a time budget. Winners are kept in the
 * tuning database (tunedb.h). */
#ifndef RT_TUNE_H
#define RT_TUNE_H

#include "backend.h"
#include "error.h"
#include "kinds.h"
#include "spec.h"

#define RT_TUNE_MAX_PARAMS 8
#define RT_TUNE_MAX_VALUES 16
#define RT_TUNE_NAME_MAX 32
/* Seconds `evoforge tune` searches when --budget is not given. */
#if !defined(RT_TUNE_DEFAULT_BUDGET)
#define RT_TUNE_DEFAULT_BUDGET 45.0
#endif

/* One tunable parameter: its candidate values, in an order where neighbours
 * are similar (refinement steps to the next value up or down). */
typedef struct rt_tune_param {
	char name[RT_TUNE_NAME_MAX];                       /* column in the table */
	char key[2 * RT_TUNE_NAME_MAX];                    /* the spec override it sets, or "" */
	int nvalues;
	char values[RT_TUNE_MAX_VALUES][RT_TUNE_NAME_MAX];
	int def;                                           /* index of the shipped default */
} rt_tune_param;

typedef struct rt_tune_space {
	int nparams;
	rt_tune_param params[RT_TUNE_MAX_PARAMS];
	char unit[24];       /* what a rate counts per second: "GPop/s", "evals/s" */
	char what[200];      /* one line: what is timed, on what */
} rt_tune_space;

/* A configuration: the index of each parameter's value. */
typedef struct rt_tune_config {
	int v[RT_TUNE_MAX_PARAMS];
} rt_tune_config;

/* The pseudo-key of spec overrides that sets the CPU thread count (--threads). */
#define RT_TUNE_THREADS_KEY "run.threads"

/* What a kind provides to be tuned (rt_kind.tune; NULL: nothing to tune). */
typedef struct rt_tune_kind {
	/* Keys ("section.key") left out of the problem signature: those the
	 * overrides set, and those that change only run length or reporting. */
	const char *const *unsigned_keys;
	/* Loads the problem for backend (CPU or GPU, resolved) and fills space;
	 * *state is what the other hooks share (problem, population, device). */
	rt_status (*open)(rt_spec *spec, const rt_options *opt, rt_backend backend,
			  rt_tune_space *space, void **state, rt_error *err);
	/* Spec overrides of cfg, "section.key=value" separated by spaces. */
	rt_status (*overrides)(void *state, const rt_tune_config *cfg, char *buf, int size,
			       rt_error *err);
	/* Before launching: *ok = 0 and why when cfg would spill registers or
	 * exceed the device's resources. NULL: every configuration may run. */
	rt_status (*prune)(void *state, const rt_tune_config *cfg, int *ok, char *why, int size,
			   rt_error *err);
	/* Rate of cfg in space->unit (higher is better), timed on fresh random
	 * populations (CUDA events on the GPU, the clock on the CPU). */
	rt_status (*time)(void *state, const rt_tune_config *cfg, double *rate, rt_error *err);
	void (*close)(void *state);
} rt_tune_kind;

/* ---- the search (also run by tests on a fake kind) ---- */

enum rt_tune_verdict { RT_TUNE_TIMED, RT_TUNE_PRUNED, RT_TUNE_FAILED };

typedef struct rt_tune_trial {
	rt_tune_config cfg;
	int verdict;         /* enum rt_tune_verdict */
	double rate;         /* best measured (TIMED) */
	char note[160];      /* why pruned or failed */
} rt_tune_trial;

typedef struct rt_tune_outcome {
	rt_tune_trial *trials;   /* every configuration tried, in order */
	int ntrials, cap;
	int best, def;           /* indices into trials (def: the default; -1 if failed) */
	double seconds;
} rt_tune_outcome;

/* Searches space with the kind's hooks on state for about budget seconds:
 * the default, a coarse grid (at most max_coarse points), then steps to
 * neighbouring values around the best while they improve; the best and the
 * default are timed once more at the end. progress: a bar on stderr. */
rt_status rt_tune_search(const rt_tune_kind *k, void *state, const rt_tune_space *space,
			 double budget, int progress, rt_tune_outcome *out, rt_error *err);
void rt_tune_outcome_free(rt_tune_outcome *out);
/* "name=value name=value" of a configuration (for tables and tests). */
const char *rt_tune_config_text(const rt_tune_space *space, const rt_tune_config *cfg,
				char *buf, int size);

/* For prune hooks: compiles source (NVRTC, through the kernel cache) for
 * arch with options that include "-Xptxas -v", reads kernel's registers and
 * spills, and sets *ok = 0 with why when it spills or when `threads` threads
 * of it need more than regs_per_block registers. Compile errors: the
 * error (the search records the configuration as failed). */
rt_status rt_tune_check_kernel(const char *name, const char *source, const char *arch,
			       const char *const *options, int noptions, const char *kernel,
			       int threads, int regs_per_block, int *ok, char *why, int size,
			       rt_error *err);
/* Adds value (printf-style) to p's candidates; returns its index (-1: full). */
int rt_tune_param_add(rt_tune_param *p, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* p named name, setting spec key section.name, with values (NULL-ended);
 * its default def (added at the end when values lack it). */
void rt_tune_param_values(rt_tune_param *p, const char *section, const char *name,
			  const char *const *values, const char *def);
/* p: the CPU thread count (RT_TUNE_THREADS_KEY), 1, 2, 4 ... and the
 * machine's count, the default. */
void rt_tune_param_threads(rt_tune_param *p);
/* cfg as spec overrides "key=value key=value" of the params with a key. */
rt_status rt_tune_overrides_text(const rt_tune_space *s, const rt_tune_config *cfg, char *buf,
				 int size, rt_error *err);

/* ---- the commands ---- */

typedef struct rt_tune_cli {
	double budget;    /* seconds; 0: RT_TUNE_DEFAULT_BUDGET */
	int retune;       /* search even if the database has an entry */
} rt_tune_cli;

/* `evoforge tune`: searches spec's configuration space on opt's backend and
 * stores the winner in the database; prints a table best first. */
rt_status rt_tune_command(const rt_kind *kind, rt_spec *spec, const rt_options *opt,
			  const rt_tune_cli *tc, rt_error *err);
/* For `run` and `bench`: looks spec up in the database for opt's backend and
 * applies the tuned overrides, except keys set on the command line (--set,
 * --threads), which win; prints "tuned configuration: ..." when it does.
 * Nothing happens for kinds without tuning or when no entry matches; a
 * database that cannot be read is reported and ignored. */
rt_status rt_tune_apply(const rt_kind *kind, rt_spec *spec, rt_options *opt, rt_error *err);

#endif
