/* api.c: the public C API (include/evoforge.h) -- a job handle over the
 * same engine `evoforge run` drives: spec, overrides, rt_kind_run_uncaught,
 * result.json read back.
 *
 * Why a process-wide lock around a run: the engine keeps process-wide state
 * (the log sink and quiet flag, the stop flag, the CPU pool's size, the GPU
 * context, the timeline), so two runs at once would mix their lines and
 * settings. Handles stay separate; runs take turns. */
#define EVOFORGE_BUILDING 1
#include <errno.h>
#include <ftw.h>
#include <math.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "kprep.h"
#include "nvrtc.h"
#include "evoforge.h"
#include "backend.h"
#include "cpu.h"
#include "data_mem.h"
#include "json_read.h"
#include "kinds.h"
#include "log.h"
#include "objective.h"
#include "out.h"
#include "signals.h"
#include "spec.h"
#include "tune.h"

struct evoforge_job {
	rt_spec spec;
	int spec_ok;              /* the spec was read: spec and kind are valid */
	rt_status load_status;    /* the spec's failure, repeated by every call */
	const rt_kind *kind;
	rt_options opt;
	char *outdir;             /* the caller's folder (kept) or the private one */
	int private_dir;          /* outdir is ours: removed on free */
	int ran;                  /* evoforge_job_run was called */
	int ok;                   /* ... and succeeded: result and json valid */
	int stopped;              /* the progress callback stopped it */
	int from_result;          /* made by evoforge_job_from_result: no spec, no run */
	char *result_path;        /* evoforge_job_from_result's result.json (copied) */
	char *result;             /* result.json's text */
	rt_jval json;             /* ... parsed */
	evoforge_log_fn log_fn;
	void *log_user;
	evoforge_progress_fn progress_fn;
	void *progress_user;
	evoforge_objective_fn objective_fn;   /* de's function = callback */
	void *objective_user;
	rt_mem_table *tables;     /* in-memory tables (X, y, CSR arrays borrowed; names ours) */
	char *resume;             /* evoforge_job_set_resume's path (copied), or NULL */
	int ntables;
	rt_error err;             /* the last failure's message */
};

static pthread_mutex_t run_lock = PTHREAD_MUTEX_INITIALIZER;
/* One callback call at a time: a few lines come from the CPU pool's workers
 * (svm's cross-validation trains models in parallel, each may warn). */
static pthread_mutex_t sink_lock = PTHREAD_MUTEX_INITIALIZER;

/* ---- the library -------------------------------------------------------------- */

EVOFORGE_API const char *evoforge_version(void) { return RT_VERSION; }

EVOFORGE_API int evoforge_api_version(void) { return EVOFORGE_API_VERSION; }

EVOFORGE_API const char *evoforge_status_name(evoforge_status status)
{
	static const char *const names[] = {
		"EVOFORGE_OK", "EVOFORGE_ERR_ARGUMENT", "EVOFORGE_ERR_INPUT", "EVOFORGE_ERR_SYSTEM",
		"EVOFORGE_ERR_NOGPU", "EVOFORGE_ERR_CUDA", "EVOFORGE_ERR_NVRTC",
		"EVOFORGE_ERR_UNSUPPORTED", "EVOFORGE_ERR_INTERNAL", "EVOFORGE_ERR_STATE"};
	if ((int)status < 0 || (size_t)status >= sizeof names / sizeof names[0])
		return "EVOFORGE_(unknown status)";
	return names[status];
}

/* Records a failure on the job (message printf-style); returns status. */
static evoforge_status job_fail(evoforge_job *job, evoforge_status status, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static evoforge_status job_fail(evoforge_job *job, evoforge_status status, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(job->err.msg, sizeof job->err.msg, fmt, ap);
	va_end(ap);
	return status;
}

/* The engine's status as the API's (the values 2..8 are the same). */
static evoforge_status from_rt(rt_status st) { return (evoforge_status)st; }

/* ---- making a job --------------------------------------------------------------- */

/* A new job from a spec loaded by load(spec, arg, err); see evoforge.h for
 * what *out holds after a failure. */
static evoforge_status job_make(rt_status (*load)(rt_spec *, const char *, rt_error *),
				const char *arg, evoforge_job **out)
{
	evoforge_job *job;
	rt_status st;
	if (!out)
		return EVOFORGE_ERR_ARGUMENT;
	*out = NULL;
	if (!arg)
		return EVOFORGE_ERR_ARGUMENT;
	if (!(job = calloc(1, sizeof *job)))
		return EVOFORGE_ERR_SYSTEM;
	st = load(&job->spec, arg, &job->err);
	if (st == RT_OK)
		st = rt_kind_of_spec(&job->spec, &job->kind, &job->err);
	if (st != RT_OK) {
		rt_spec_free(&job->spec);
		job->load_status = st;
		*out = job;
		return from_rt(st);
	}
	job->spec_ok = 1;
	job->opt.backend = RT_BACKEND_AUTO;
	*out = job;
	return EVOFORGE_OK;
}

static rt_status load_text(rt_spec *spec, const char *text, rt_error *err)
{
	return rt_spec_load_text(spec, "(spec text)", text, err);
}

EVOFORGE_API evoforge_status evoforge_job_from_text(const char *ini_text, evoforge_job **out)
{
	return job_make(load_text, ini_text, out);
}

EVOFORGE_API evoforge_status evoforge_job_from_file(const char *path, evoforge_job **out)
{
	return job_make(rt_spec_load, path, out);
}

static int remove_one(const char *path, const struct stat *sb, int flag, struct FTW *ftw)
{
	(void)sb;
	(void)flag;
	(void)ftw;
	return remove(path);
}

/* Frees a table's copied column names. */
static void free_colnames(rt_mem_table *t)
{
	for (int c = 0; t->colnames && c < t->ncols; c++)
		free(t->colnames[c]);
	free(t->colnames);
	t->colnames = NULL;
}

EVOFORGE_API void evoforge_job_free(evoforge_job *job)
{
	if (!job)
		return;
	if (job->private_dir && job->outdir)
		nftw(job->outdir, remove_one, 16, FTW_DEPTH | FTW_PHYS);
	if (job->spec_ok)
		rt_spec_free(&job->spec);
	if (job->result)
		rt_jfree(&job->json);
	for (int i = 0; i < job->ntables; i++)
		free_colnames(&job->tables[i]);
	free(job->tables);
	free(job->result);
	free(job->result_path);
	free(job->resume);
	free(job->outdir);
	free(job);
}

/* ---- settings ---------------------------------------------------------------------- */

/* Checks a job may still be set (read, not run); else the status to return. */
static evoforge_status job_settable(evoforge_job *job)
{
	if (!job)
		return EVOFORGE_ERR_ARGUMENT;
	if (!job->spec_ok)
		return from_rt(job->load_status);
	if (job->from_result)
		return job_fail(job, EVOFORGE_ERR_STATE, "the job was made from a result (%s): it "
				"predicts and answers results, nothing else", job->result_path);
	if (job->ran)
		return job_fail(job, EVOFORGE_ERR_STATE, "the job has run already (a job runs once; "
				"make another for another run)");
	return EVOFORGE_OK;
}

EVOFORGE_API evoforge_status evoforge_job_set(evoforge_job *job, const char *key, const char *value)
{
	evoforge_status st = job_settable(job);
	const char *dot = key ? strchr(key, '.') : NULL;
	char section[RT_SPEC_NAME_MAX];
	if (st != EVOFORGE_OK)
		return st;
	if (!key || !value)
		return job_fail(job, EVOFORGE_ERR_ARGUMENT, "evoforge_job_set: NULL key or value");
	if (!dot || dot == key || !dot[1] || strchr(dot + 1, '.') ||
	    dot - key >= RT_SPEC_NAME_MAX)
		return job_fail(job, EVOFORGE_ERR_INPUT, "evoforge_job_set: expected a key "
				"'section.key' (e.g. gp.population), got '%s'", key);
	snprintf(section, sizeof section, "%.*s", (int)(dot - key), key);
	return from_rt(rt_spec_set(&job->spec, section, dot + 1, value, &job->err));
}

EVOFORGE_API evoforge_status evoforge_job_set_backend(evoforge_job *job, const char *backend)
{
	evoforge_status st = job && job->from_result && job->spec_ok ? EVOFORGE_OK
								    : job_settable(job);
	if (st != EVOFORGE_OK)
		return st;
	if (!backend)
		return job_fail(job, EVOFORGE_ERR_ARGUMENT, "evoforge_job_set_backend: NULL backend");
	return from_rt(rt_backend_parse(backend, &job->opt.backend, &job->err));
}

EVOFORGE_API evoforge_status evoforge_job_set_seed(evoforge_job *job, uint64_t seed)
{
	evoforge_status st = job_settable(job);
	if (st != EVOFORGE_OK)
		return st;
	job->opt.seed = seed;
	job->opt.seed_given = 1;
	return EVOFORGE_OK;
}

EVOFORGE_API evoforge_status evoforge_job_set_threads(evoforge_job *job, int threads)
{
	evoforge_status st = job_settable(job);
	if (st != EVOFORGE_OK)
		return st;
	if (threads < 0 || threads > RT_MAX_THREADS)
		return job_fail(job, EVOFORGE_ERR_INPUT, "evoforge_job_set_threads: expected 0 (every "
				"core) or 1..%d, got %d", RT_MAX_THREADS, threads);
	job->opt.threads = threads;
	return EVOFORGE_OK;
}

EVOFORGE_API evoforge_status evoforge_job_set_output_dir(evoforge_job *job, const char *dir)
{
	evoforge_status st = job_settable(job);
	char *copy;
	if (st != EVOFORGE_OK)
		return st;
	if (!dir || !*dir)
		return job_fail(job, EVOFORGE_ERR_ARGUMENT, "evoforge_job_set_output_dir: no folder");
	if (strlen(dir) >= RT_PATH_MAX)
		return job_fail(job, EVOFORGE_ERR_INPUT, "evoforge_job_set_output_dir: path longer "
				"than %d bytes", RT_PATH_MAX - 1);
	if (!(copy = strdup(dir)))
		return job_fail(job, EVOFORGE_ERR_SYSTEM, "out of memory");
	free(job->outdir);
	job->outdir = copy;
	job->private_dir = 0;
	return EVOFORGE_OK;
}

EVOFORGE_API evoforge_status evoforge_job_set_log(evoforge_job *job, evoforge_log_fn fn, void *user)
{
	evoforge_status st = job_settable(job);
	if (st != EVOFORGE_OK)
		return st;
	job->log_fn = fn;
	job->log_user = user;
	return EVOFORGE_OK;
}

EVOFORGE_API evoforge_status evoforge_job_set_progress(evoforge_job *job, evoforge_progress_fn fn,
						     void *user)
{
	evoforge_status st = job_settable(job);
	if (st != EVOFORGE_OK)
		return st;
	job->progress_fn = fn;
	job->progress_user = user;
	return EVOFORGE_OK;
}

EVOFORGE_API evoforge_status evoforge_job_set_objective(evoforge_job *job, evoforge_objective_fn fn,
						      void *user)
{
	evoforge_status st = job_settable(job);
	if (st != EVOFORGE_OK)
		return st;
	if (fn && strcmp(job->kind->name, "de"))
		return job_fail(job, EVOFORGE_ERR_UNSUPPORTED, "evoforge_job_set_objective: an "
				"objective callback is for kind de (function = callback); this job's "
				"kind is %s", job->kind->name);
	job->objective_fn = fn;
	job->objective_user = user;
	return EVOFORGE_OK;
}

/* ---- checkpoints ------------------------------------------------------------------------- */

EVOFORGE_API evoforge_status evoforge_job_set_checkpoint(evoforge_job *job, long every)
{
	evoforge_status st = job_settable(job);
	if (st != EVOFORGE_OK)
		return st;
	job->opt.checkpoint_every = every;
	return EVOFORGE_OK;
}

EVOFORGE_API evoforge_status evoforge_job_set_resume(evoforge_job *job, const char *path)
{
	evoforge_status st = job_settable(job);
	char *copy = NULL;
	if (st != EVOFORGE_OK)
		return st;
	if (path && !*path)
		return job_fail(job, EVOFORGE_ERR_ARGUMENT, "evoforge_job_set_resume: empty path");
	if (path && strlen(path) >= RT_PATH_MAX)
		return job_fail(job, EVOFORGE_ERR_INPUT, "evoforge_job_set_resume: path longer than "
				"%d bytes", RT_PATH_MAX - 1);
	if (path && !(copy = strdup(path)))
		return job_fail(job, EVOFORGE_ERR_SYSTEM, "out of memory");
	free(job->resume);
	job->resume = copy;
	job->opt.resume = copy;
	return EVOFORGE_OK;
}

/* ---- data from memory -------------------------------------------------------------------- */

/* Copies colnames (cols of them; a NULL entry stays NULL, for the check). */
static rt_status copy_colnames(rt_mem_table *t, const char *const *colnames, rt_error *err)
{
	if (!colnames)
		return RT_OK;
	if (!(t->colnames = rt_calloc((size_t)t->ncols, sizeof *t->colnames, err)))
		return RT_ERR_SYSTEM;
	for (int c = 0; c < t->ncols; c++)
		if (colnames[c] && !(t->colnames[c] = rt_strdup(colnames[c], err)))
			return RT_ERR_SYSTEM;
	return RT_OK;
}

/* Adds t to the job's tables, replacing one of the same name. */
static evoforge_status add_table(evoforge_job *job, rt_mem_table *t)
{
	rt_mem_table *grown;
	for (int i = 0; i < job->ntables; i++)
		if (!strcmp(job->tables[i].name, t->name)) {
			free_colnames(&job->tables[i]);
			job->tables[i] = *t;
			return EVOFORGE_OK;
		}
	grown = realloc(job->tables, ((size_t)job->ntables + 1) * sizeof *grown);
	if (!grown)
		return job_fail(job, EVOFORGE_ERR_SYSTEM, "out of memory");
	job->tables = grown;
	job->tables[job->ntables++] = *t;
	return EVOFORGE_OK;
}

/* evoforge_job_set_table and its float twin: checks, then registers. */
static evoforge_status set_table(evoforge_job *job, const char *who, const char *name,
				 const void *x, long rows, int cols, const void *y,
				 const char *const *colnames, int is_float)
{
	evoforge_status est = job_settable(job);
	rt_mem_table t;
	rt_status st;
	if (est != EVOFORGE_OK)
		return est;
	if (!name || !x)
		return job_fail(job, EVOFORGE_ERR_ARGUMENT, "%s: NULL %s", who, name ? "X" : "name");
	if (rows < 1 || cols < 1)
		return job_fail(job, EVOFORGE_ERR_INPUT, "%s: table '%.64s': expected rows > 0 and "
				"cols > 0, got %ld rows and %d cols", who, name, rows, cols);
	memset(&t, 0, sizeof t);
	if (strlen(name) > RT_MEM_NAME_MAX)
		return job_fail(job, EVOFORGE_ERR_INPUT, "%s: expected a table name of at most %d "
				"characters, got %zu", who, RT_MEM_NAME_MAX, strlen(name));
	snprintf(t.name, sizeof t.name, "%s", name);
	t.x = x;
	t.y = y;
	t.is_float = is_float;
	t.nrows = (size_t)rows;
	t.ncols = cols;
	st = cols > RT_DATA_MAX_COLS ? RT_OK : copy_colnames(&t, colnames, &job->err);
	if (st == RT_OK)
		st = rt_mem_check(who, &t, &job->err);
	if (st == RT_OK && (est = add_table(job, &t)) == EVOFORGE_OK)
		return EVOFORGE_OK;
	free_colnames(&t);
	return st != RT_OK ? from_rt(st) : est;
}

EVOFORGE_API evoforge_status evoforge_job_set_table(evoforge_job *job, const char *name,
						  const double *X, long rows, int cols,
						  const double *y, const char *const *colnames)
{
	return set_table(job, "evoforge_job_set_table", name, X, rows, cols, y, colnames, 0);
}

EVOFORGE_API evoforge_status evoforge_job_set_table_float(evoforge_job *job, const char *name,
							const float *X, long rows, int cols,
							const float *y,
							const char *const *colnames)
{
	return set_table(job, "evoforge_job_set_table_float", name, X, rows, cols, y, colnames, 1);
}

EVOFORGE_API evoforge_status evoforge_job_set_table_csr(evoforge_job *job, const char *name,
						      long rows, int cols, const int64_t *indptr,
						      const int32_t *indices, const double *values,
						      const double *labels)
{
	const char *who = "evoforge_job_set_table_csr";
	evoforge_status est = job_settable(job);
	rt_mem_table t;
	rt_status st;
	if (est != EVOFORGE_OK)
		return est;
	if (!name || !indptr)
		return job_fail(job, EVOFORGE_ERR_ARGUMENT, "%s: NULL %s", who, name ? "indptr" : "name");
	if (strlen(name) > RT_MEM_NAME_MAX)
		return job_fail(job, EVOFORGE_ERR_INPUT, "%s: expected a table name of at most %d "
				"characters, got %zu", who, RT_MEM_NAME_MAX, strlen(name));
	if (rows < 1 || cols < 1)
		return job_fail(job, EVOFORGE_ERR_INPUT, "%s: table '%s': expected rows > 0 and "
				"cols > 0, got %ld rows and %d cols", who, name, rows, cols);
	memset(&t, 0, sizeof t);
	snprintf(t.name, sizeof t.name, "%s", name);
	t.csr = 1;
	t.nrows = (size_t)rows;
	t.ncols = cols;
	t.indptr = indptr;
	t.indices = indices;
	t.x = values;
	t.y = labels;
	if ((st = rt_mem_check_csr(who, &t, &job->err)) != RT_OK)
		return from_rt(st);
	return add_table(job, &t);
}

/* ---- running ------------------------------------------------------------------------- */

/* The engine's log sink during a run: the job's callbacks. */
static void job_sink(int level, const char *line, void *user)
{
	evoforge_job *job = user;
	pthread_mutex_lock(&sink_lock);
	if (job->log_fn)
		job->log_fn(level == RT_LOG_WARN ? EVOFORGE_LOG_WARNING : EVOFORGE_LOG_INFO, line,
			    job->log_user);
	if (level == RT_LOG_INFO && job->progress_fn && job->progress_fn(line, job->progress_user))
		rt_stop_caller_request();
	pthread_mutex_unlock(&sink_lock);
}

/* The private results folder under $TMPDIR (else /tmp), made now. */
static evoforge_status make_private_dir(evoforge_job *job)
{
	const char *tmp = getenv("TMPDIR");
	char path[RT_PATH_MAX];
	if (!tmp || !*tmp)
		tmp = "/tmp";
	if (rt_format(path, sizeof path, &job->err, "%s/evoforge-job-XXXXXX", tmp))
		return EVOFORGE_ERR_INPUT;
	if (!mkdtemp(path))
		return job_fail(job, EVOFORGE_ERR_SYSTEM, "cannot make a results folder %s: %s", path,
				strerror(errno));
	if (!(job->outdir = strdup(path))) {
		rmdir(path);
		return job_fail(job, EVOFORGE_ERR_SYSTEM, "out of memory");
	}
	job->private_dir = 1;
	return EVOFORGE_OK;
}

/* Reads back the run's result.json (text and parsed). */
static rt_status read_result(evoforge_job *job)
{
	char path[RT_PATH_MAX + 16];
	size_t size;
	rt_status st = rt_format(path, sizeof path, &job->err, "%s/result.json", job->outdir);
	if (st == RT_OK)
		st = rt_read_file(path, &job->result, &size, &job->err);
	if (st == RT_OK && (st = rt_jparse(job->result, path, &job->json, &job->err)) != RT_OK) {
		free(job->result);
		job->result = NULL;
	}
	return st;
}

/* The run itself, under run_lock: process-wide settings in, the kind's run,
 * process-wide settings back. */
static rt_status run_locked(evoforge_job *job)
{
	int was_quiet = rt_log_quiet();
	rt_status st;
	rt_log_set_sink(job_sink, job);
	rt_log_set_quiet(!job->log_fn && !job->progress_fn);
	rt_stop_caller_clear();
	rt_mem_use(job->tables, job->ntables);
	rt_objective_use(job->objective_fn, job->objective_user);
	cpu_set_threads(job->opt.threads);
	rt_startup_begin();   /* the job's start-up and compiles, not the process's */
	st = rt_tune_apply(job->kind, &job->spec, &job->opt, &job->err);
	if (st == RT_OK)
		st = rt_kind_run_uncaught(job->kind, &job->spec, &job->opt, &job->err);
	job->stopped = st == RT_OK && rt_stop_requested() == RT_STOP_CALLER;
	if (job->stopped)
		rt_warn("%s: stopped by the progress callback: the results so far are written, "
			"marked \"interrupted\"", job->kind->name);
	rt_stop_caller_clear();
	rt_mem_use(NULL, 0);
	rt_objective_use(NULL, NULL);
	rt_log_set_quiet(was_quiet);
	rt_log_set_sink(NULL, NULL);
	nvrtc_prepared_clear();   /* the job's prepared cubins (runtime/kprep.h): a process
				     running many jobs keeps none; the disk cache has them */
	return st;
}

EVOFORGE_API evoforge_status evoforge_job_run(evoforge_job *job)
{
	evoforge_status est = job_settable(job);
	rt_status st;
	if (est != EVOFORGE_OK)
		return est;
	job->ran = 1;
	if (!job->outdir && (est = make_private_dir(job)) != EVOFORGE_OK)
		return est;
	job->opt.outdir = job->outdir;
	pthread_mutex_lock(&run_lock);
	st = run_locked(job);
	pthread_mutex_unlock(&run_lock);
	if (st == RT_OK)
		st = read_result(job);
	job->ok = st == RT_OK;
	return from_rt(st);
}

/* ---- results ---------------------------------------------------------------------------- */

/* Checks the job ran well; else the status to return. */
static evoforge_status job_done(evoforge_job *job)
{
	if (!job)
		return EVOFORGE_ERR_ARGUMENT;
	if (!job->spec_ok)
		return from_rt(job->load_status);
	if (!job->ok)
		return job_fail(job, EVOFORGE_ERR_STATE, "the job has %s: no results",
				job->ran ? "failed" : "not run yet");
	return EVOFORGE_OK;
}

EVOFORGE_API const char *evoforge_job_result_json(evoforge_job *job)
{
	return job && job->ok ? job->result : NULL;
}

EVOFORGE_API evoforge_status evoforge_job_result_number(evoforge_job *job, const char *path,
						      double *value)
{
	evoforge_status st = job_done(job);
	if (st != EVOFORGE_OK)
		return st;
	if (!path || !value)
		return job_fail(job, EVOFORGE_ERR_ARGUMENT, "evoforge_job_result_number: NULL argument");
	return from_rt(rt_jnumber(&job->json, path, "result.json", value, &job->err));
}

EVOFORGE_API evoforge_status evoforge_job_best(evoforge_job *job, double *value)
{
	/* each kind's headline numbers, the first present wins (evoforge.h) */
	static const struct { const char *kind, *paths[3]; } best[] = {
		{"gp", {"best.fitness"}},
		{"de", {"best_min"}},
		{"aco", {"best_length"}},
		{"mbp", {"best_train_rms"}},
		{"svm", {"cv_accuracy", "test_accuracy", "train_accuracy"}},
	};
	evoforge_status st = job_done(job);
	if (st != EVOFORGE_OK)
		return st;
	if (!value)
		return job_fail(job, EVOFORGE_ERR_ARGUMENT, "evoforge_job_best: NULL value");
	for (size_t k = 0; k < sizeof best / sizeof best[0]; k++) {
		if (strcmp(best[k].kind, job->kind->name))
			continue;
		for (int i = 0; i < 3 && best[k].paths[i]; i++)
			if (rt_jget(&job->json, best[k].paths[i]))
				return evoforge_job_result_number(job, best[k].paths[i], value);
		return evoforge_job_result_number(job, best[k].paths[0], value);
	}
	return job_fail(job, EVOFORGE_ERR_UNSUPPORTED, "evoforge_job_best: kind '%s' has no "
			"headline number", job->kind->name);
}

EVOFORGE_API const char *evoforge_job_kind(evoforge_job *job)
{
	return job && job->spec_ok ? job->kind->name : NULL;
}

EVOFORGE_API const char *evoforge_job_output_dir(evoforge_job *job)
{
	return job && job->ran ? job->outdir : NULL;
}

EVOFORGE_API int evoforge_job_stopped(evoforge_job *job) { return job ? job->stopped : 0; }

EVOFORGE_API const char *evoforge_job_error(evoforge_job *job)
{
	return job ? job->err.msg : "evoforge: no job (NULL handle)";
}

/* ---- a finished run's result, and predictions from memory ---------------------------------- */

EVOFORGE_API evoforge_status evoforge_job_from_result(const char *result_path, evoforge_job **out)
{
	evoforge_job *job;
	const char *kind, *slash;
	rt_status st;
	size_t size;
	if (!out)
		return EVOFORGE_ERR_ARGUMENT;
	*out = NULL;
	if (!result_path)
		return EVOFORGE_ERR_ARGUMENT;
	if (!(job = calloc(1, sizeof *job)))
		return EVOFORGE_ERR_SYSTEM;
	*out = job;
	job->load_status = RT_ERR_SYSTEM;
	if (!(job->result_path = strdup(result_path)) ||
	    !(job->outdir = (slash = strrchr(result_path, '/'))
			    ? strndup(result_path, (size_t)(slash - result_path + (slash == result_path)))
			    : strdup(".")))
		return job_fail(job, EVOFORGE_ERR_SYSTEM, "out of memory");
	st = rt_read_file(result_path, &job->result, &size, &job->err);
	if (st == RT_OK && (st = rt_jparse(job->result, result_path, &job->json, &job->err))) {
		free(job->result);
		job->result = NULL;
	}
	if (st == RT_OK && (st = rt_jstring(&job->json, "kind", result_path, &kind, &job->err)) == RT_OK &&
	    !(job->kind = rt_kind_find(kind)))
		st = rt_fail(&job->err, RT_ERR_INPUT, "%s: \"kind\": expected one of gp, de, aco, mbp, "
			     "svm, got '%s'", result_path, kind);
	job->load_status = st;
	if (st != RT_OK)
		return from_rt(st);
	job->spec_ok = job->from_result = job->ran = job->ok = 1;
	job->opt.backend = RT_BACKEND_AUTO;
	return EVOFORGE_OK;
}

/* The engine's lines during a prediction: warnings to the log callback only. */
static void predict_sink(int level, const char *line, void *user)
{
	evoforge_job *job = user;
	pthread_mutex_lock(&sink_lock);
	if (level == RT_LOG_WARN && job->log_fn)
		job->log_fn(EVOFORGE_LOG_WARNING, line, job->log_user);
	pthread_mutex_unlock(&sink_lock);
}

/* The default column names of a prediction table: gp's run's input names
 * (data.input_names, when there are cols of them), else NULL (x1..xn). */
static const char **default_colnames(evoforge_job *job, int cols)
{
	const rt_jval *a = rt_jget(&job->json, "data.input_names");
	const char **names;
	if (strcmp(job->kind->name, "gp") || !a || a->type != RT_JARRAY || a->n != cols)
		return NULL;
	if (!(names = calloc((size_t)cols, sizeof *names)))
		return NULL;
	for (int c = 0; c < cols; c++) {
		if (a->items[c].type != RT_JSTRING) {
			free(names);
			return NULL;
		}
		names[c] = a->items[c].str;
	}
	return names;
}

/* The column of the eval output's header line that holds the prediction:
 * "class" when there is one (mbp's classification), else the first. */
static int prediction_column(const char *header)
{
	int col = 0;
	for (const char *p = header; *p && *p != '\n'; col++) {
		size_t n = strcspn(p, ",\n");
		if (n == 5 && !strncmp(p, "class", 5))
			return col;
		p += n;
		if (*p == ',')
			p++;
	}
	return 0;
}

/* Parses the predictions `evoforge eval` wrote (text: an optional header,
 * then a line per row) into out[rows]; the field `NA` reads as NaN. */
static evoforge_status parse_predictions(evoforge_job *job, char *text, long rows, double *out)
{
	char *p = text, *end;
	int col = 0;
	long r = 0;
	if (*p && !(strtod(p, &end), end != p && (*end == ',' || *end == '\n'))) {
		col = prediction_column(p);
		p += strcspn(p, "\n");
		p += *p == '\n';
	}
	for (; *p && r < rows; r++) {
		for (int c = 0; c < col && *p && *p != '\n'; c++)
			p += strcspn(p, ",\n"), p += *p == ',';
		if (!strncmp(p, "NA", 2) && (p[2] == '\n' || p[2] == ',' || !p[2])) {
			out[r] = NAN;
			end = p + 2;
		} else if ((out[r] = strtod(p, &end)), end == p || (*end && *end != '\n' && *end != ',')) {
			return job_fail(job, EVOFORGE_ERR_UNSUPPORTED, "evoforge_job_predict: row %ld: the "
					"prediction '%.*s' is not a number (a class named by text; "
					"`evoforge eval` gives the names)", r + 1,
					(int)strcspn(p, ",\n"), p);
		}
		p = end + strcspn(end, "\n");
		p += *p == '\n';
	}
	if (r != rows)
		return job_fail(job, EVOFORGE_ERR_INTERNAL, "evoforge_job_predict: expected %ld "
				"predictions, got %ld (a bug in evoforge)", rows, r);
	return EVOFORGE_OK;
}

/* kind's eval on the table t, under run_lock, into the file out. */
static rt_status predict_locked(evoforge_job *job, const rt_mem_table *t, const char *out)
{
	char path[RT_PATH_MAX + 16];
	int was_quiet = rt_log_quiet();
	rt_status st = job->result_path ? rt_format(path, sizeof path, &job->err, "%s", job->result_path)
					: rt_format(path, sizeof path, &job->err, "%s/result.json",
						    job->outdir);
	if (st != RT_OK)
		return st;
	rt_log_set_sink(predict_sink, job);
	rt_log_set_quiet(1);
	rt_mem_use(t, 1);
	st = job->kind->eval_result(&job->json, path, RT_MEM_PREFIX "predict", out, &job->opt,
				    &job->err);
	rt_mem_use(NULL, 0);
	rt_log_set_quiet(was_quiet);
	rt_log_set_sink(NULL, NULL);
	return st;
}

/* The checked table of X (svm: with a label column of zeros, which its eval reads). */
static evoforge_status predict_table(evoforge_job *job, const double *X, long rows, int cols,
				     const char *const *colnames, rt_mem_table *t, double **zeros)
{
	const char **names;
	rt_status st;
	memset(t, 0, sizeof *t);
	*zeros = NULL;
	if (rows < 1 || cols < 1)
		return job_fail(job, EVOFORGE_ERR_INPUT, "evoforge_job_predict: expected rows > 0 and "
				"cols > 0, got %ld rows and %d cols", rows, cols);
	if (!strcmp(job->kind->name, "svm") && !(*zeros = calloc((size_t)rows, sizeof **zeros)))
		return job_fail(job, EVOFORGE_ERR_SYSTEM, "out of memory");
	names = colnames ? NULL : default_colnames(job, cols);   /* freed below, on every path */
	strcpy(t->name, "predict");
	t->x = X;
	t->y = *zeros;
	t->nrows = (size_t)rows;
	t->ncols = cols;
	st = cols > RT_DATA_MAX_COLS ? RT_OK
				     : copy_colnames(t, colnames ? colnames : names, &job->err);
	free(names);
	if (st == RT_OK)
		st = rt_mem_check("evoforge_job_predict", t, &job->err);
	return from_rt(st);
}

/* The kind's eval of the checked table t into out[rows], through a
 * temporary file under $TMPDIR (else /tmp). */
static evoforge_status predict_run(evoforge_job *job, const rt_mem_table *t, long rows, double *out)
{
	char file[RT_PATH_MAX], *text = NULL;
	const char *tmp = getenv("TMPDIR");
	evoforge_status est;
	size_t size;
	rt_status st;
	int fd;
	est = from_rt(rt_format(file, sizeof file, &job->err, "%s/evoforge-predict-XXXXXX",
				tmp && *tmp ? tmp : "/tmp"));
	if (est != EVOFORGE_OK)
		return est;
	if ((fd = mkstemp(file)) < 0)
		return job_fail(job, EVOFORGE_ERR_SYSTEM, "cannot make %s: %s", file, strerror(errno));
	close(fd);
	pthread_mutex_lock(&run_lock);
	st = predict_locked(job, t, file);
	pthread_mutex_unlock(&run_lock);
	if (st == RT_OK)
		st = rt_read_file(file, &text, &size, &job->err);
	remove(file);
	est = st != RT_OK ? from_rt(st) : parse_predictions(job, text, rows, out);
	free(text);
	return est;
}

/* Checks a finished job that predicts and its out; else the status. */
static evoforge_status predict_ready(evoforge_job *job, const char *who, const void *x, double *out)
{
	evoforge_status est = job_done(job);
	if (est != EVOFORGE_OK)
		return est;
	if (!x || !out)
		return job_fail(job, EVOFORGE_ERR_ARGUMENT, "%s: NULL %s", who, x ? "out" : "X");
	if (!job->kind->eval_result)
		return job_fail(job, EVOFORGE_ERR_UNSUPPORTED, "%s: kind '%s' does not predict (gp, "
				"svm and mbp do)", who, job->kind->name);
	return EVOFORGE_OK;
}

EVOFORGE_API evoforge_status evoforge_job_predict(evoforge_job *job, const double *X, long rows,
						  int cols, const char *const *colnames, double *out)
{
	evoforge_status est = predict_ready(job, "evoforge_job_predict", X, out);
	rt_mem_table t;
	double *zeros = NULL;
	if (est != EVOFORGE_OK)
		return est;
	if ((est = predict_table(job, X, rows, cols, colnames, &t, &zeros)) == EVOFORGE_OK)
		est = predict_run(job, &t, rows, out);
	free(zeros);
	free_colnames(&t);
	return est;
}

EVOFORGE_API evoforge_status evoforge_job_predict_csr(evoforge_job *job, long rows, int cols,
						      const int64_t *indptr, const int32_t *indices,
						      const double *values, double *out)
{
	evoforge_status est = predict_ready(job, "evoforge_job_predict_csr", indptr, out);
	rt_mem_table t;
	rt_status st;
	if (est != EVOFORGE_OK)
		return est;
	if (strcmp(job->kind->name, "svm"))
		return job_fail(job, EVOFORGE_ERR_UNSUPPORTED, "evoforge_job_predict_csr: CSR rows "
				"are for svm's models; this job's kind is %s (use "
				"evoforge_job_predict)", job->kind->name);
	memset(&t, 0, sizeof t);
	strcpy(t.name, "predict");
	t.csr = 1;
	t.nrows = rows > 0 ? (size_t)rows : 0;
	t.ncols = cols;
	t.indptr = indptr;
	t.indices = indices;
	t.x = values;
	if ((st = rt_mem_check_csr("evoforge_job_predict_csr", &t, &job->err)) != RT_OK)
		return from_rt(st);
	return predict_run(job, &t, rows, out);
}
