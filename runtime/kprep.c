/* kprep.c: a pool of threads compiling a run's kernels before its first
 * step, and the start-up figures the run reports (kprep.h). */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cpu.h"
#include "kprep.h"
#include "log.h"
#include "nvrtc.h"
#include "timeline.h"

#define KPREP_MAX_THREADS 16    /* at once */
#define KPREP_MAX_STARTED 64    /* in a pool's life (a thread ends when the queue is empty) */

typedef struct kprep_job {
	char *name, *source;
	char **options;
	int noptions;
	struct kprep_job *next;
} kprep_job;

struct rt_kprep {
	char arch[16];
	int max_threads, nthreads, running, pending;   /* started, not yet ended, queued */
	pthread_t threads[KPREP_MAX_STARTED];
	pthread_mutex_t lock;
	kprep_job *queue, **tail;   /* jobs not yet taken, in order */
	rt_status status;           /* the first failure */
	rt_error error;
};

static void job_free(kprep_job *j)
{
	if (!j)
		return;
	for (int i = 0; i < j->noptions; i++)
		free(j->options[i]);
	free(j->options);
	free(j->name);
	free(j->source);
	free(j);
}

static kprep_job *job_copy(const char *name, const char *source, const char *const *options,
			   int noptions, rt_error *err)
{
	kprep_job *j = rt_calloc(1, sizeof *j, err);
	if (!j)
		return NULL;
	j->name = strdup(name);
	j->source = strdup(source);
	j->options = rt_calloc((size_t)(noptions > 0 ? noptions : 1), sizeof *j->options, err);
	int ok = j->name && j->source && j->options;
	for (int i = 0; ok && i < noptions; i++) {
		ok = (j->options[i] = strdup(options[i])) != NULL;
		j->noptions = i + 1;
	}
	if (!ok) {
		job_free(j);
		rt_fail(err, RT_ERR_SYSTEM, "out of memory queueing the compile of %s", name);
		return NULL;
	}
	return j;
}

/* Compiles queued jobs until the queue is empty; counted: a pool thread
 * (p->running), not the caller compiling in its stead. */
static void drain(rt_kprep *p, int counted)
{
	for (;;) {
		pthread_mutex_lock(&p->lock);
		kprep_job *j = p->queue;
		if (j && !(p->queue = j->next))
			p->tail = &p->queue;
		if (!j && counted)
			p->running--;   /* under the lock: rt_kprep_add starts another if needed */
		pthread_mutex_unlock(&p->lock);
		if (!j)
			return;
		rt_error e;
		rt_status st = nvrtc_prepare(j->name, j->source, p->arch,
					     (const char *const *)j->options, j->noptions, &e);
		pthread_mutex_lock(&p->lock);
		if (st != RT_OK && p->status == RT_OK) {
			p->status = st;
			p->error = e;
		}
		p->pending--;
		pthread_mutex_unlock(&p->lock);
		job_free(j);
	}
}

static void *worker(void *arg)
{
	drain(arg, 1);
	return NULL;
}

rt_status rt_kprep_open(const char *arch, int threads, rt_kprep **out, rt_error *err)
{
	rt_kprep *p = rt_calloc(1, sizeof *p, err);
	*out = NULL;
	if (!p)
		return RT_ERR_SYSTEM;
	snprintf(p->arch, sizeof p->arch, "%s", arch);
	p->max_threads = cpu_thread_count(threads);
	if (p->max_threads > KPREP_MAX_THREADS)
		p->max_threads = KPREP_MAX_THREADS;
	if (p->max_threads < 1)
		p->max_threads = 1;
	pthread_mutex_init(&p->lock, NULL);
	p->tail = &p->queue;
	*out = p;
	return RT_OK;
}

rt_status rt_kprep_add(void *ctx, const char *name, const char *source, const char *const *options,
		       int noptions, rt_error *err)
{
	rt_kprep *p = ctx;
	if (!nvrtc_reserve(name, source, p->arch, options, noptions))
		return RT_OK;   /* listed already, embedded, or the run's compile will say why not */
	kprep_job *j = job_copy(name, source, options, noptions, err);
	if (!j)
		return RT_ERR_SYSTEM;
	pthread_mutex_lock(&p->lock);
	*p->tail = j;
	p->tail = &j->next;
	p->pending++;
	int start = p->running < p->max_threads && p->running < p->pending &&
		    p->nthreads < KPREP_MAX_STARTED;
	if (start && pthread_create(&p->threads[p->nthreads], NULL, worker, p) == 0) {
		p->nthreads++;
		p->running++;
	} else if (start && p->running == 0) {
		start = -1;   /* no thread at all: compile here, below */
	}
	pthread_mutex_unlock(&p->lock);
	if (start == -1)
		drain(p, 0);
	return RT_OK;
}

rt_status rt_kprep_finish(rt_kprep *p, rt_error *err)
{
	if (!p)
		return RT_OK;
	for (int i = 0; i < p->nthreads; i++)
		pthread_join(p->threads[i], NULL);
	drain(p, 0);   /* anything left (a thread that could not start) */
	rt_status st = p->status;
	if (st != RT_OK && err)
		*err = p->error;
	pthread_mutex_destroy(&p->lock);
	free(p);
	return st;
}

/* The pool rt_run_begins waits for: the one this thread opened last. */
static _Thread_local rt_kprep *current;

rt_status rt_kprep_start(const char *arch, rt_kprep **out, rt_error *err)
{
	rt_status st = RT_OK;
	*out = NULL;
	if (current)
		*out = current;   /* one pool a thread: later lists join it */
	else if ((st = rt_kprep_open(arch, 0, out, err)) == RT_OK)
		current = *out;
	return st;
}

rt_status rt_kprep_early(const char *arch, const char *name, const char *source,
			 const char *const *options, int noptions, rt_error *err)
{
	rt_kprep *p;
	rt_status st = rt_kprep_start(arch, &p, err);
	return st == RT_OK ? rt_kprep_add(p, name, source, options, noptions, err) : st;
}

/* ---- start-up ------------------------------------------------------------------ */

static struct {
	double begin;           /* unix time start-up counts from (0: the process's start) */
	double startup_s;       /* < 0: no run has begun */
	int in_loop;            /* between rt_run_begins and rt_run_ends */
	nvrtc_stats base;       /* the counts at rt_startup_begin (the job's are after it) */
	nvrtc_stats at_run;     /* the job's compiles before its first run */
	int loop_from, in_run;  /* compiles at the loop's start; those inside loops */
} su = { 0, -1, 0, { 0 }, { 0 }, 0, 0 };

void rt_startup_begin(void)
{
	su.begin = rt_unix_now();
	su.startup_s = -1;
	nvrtc_stats_get(&su.base);
	su.in_loop = su.in_run = 0;
}

/* The job's counts: now's less the base. */
static nvrtc_stats job_stats(void)
{
	nvrtc_stats n;
	nvrtc_stats_get(&n);
	n.compiled -= su.base.compiled;
	n.from_disk -= su.base.from_disk;
	n.from_memory -= su.base.from_memory;
	n.prebuilt -= su.base.prebuilt;
	n.compile_s -= su.base.compile_s;
	return n;
}

static void say_startup(const char *kind)
{
	int cached = su.at_run.from_disk + su.at_run.prebuilt;
	if (su.at_run.compiled > 0)
		rt_info("%s: start-up %.2f s, of which %d kernel compile(s) took %.2f s (summed over "
			"threads; %d cached); nothing is compiled from here on", kind, su.startup_s,
			su.at_run.compiled, su.at_run.compile_s, cached);
	else if (cached > 0)
		rt_info("%s: start-up %.2f s (%d kernel(s) from the cache, none compiled)", kind,
			su.startup_s, cached);
}

void rt_kprep_release(void)
{
	rt_kprep *p = current;
	current = NULL;
	rt_kprep_finish(p, NULL);   /* a failure is the kind's own compile's to report */
}

void rt_run_begins(const char *kind)
{
	nvrtc_stats now;
	rt_kprep_release();
	rt_mark("run");
	now = job_stats();
	if (su.startup_s < 0) {
		double from = su.begin > 0 ? su.begin : rt_process_start_time();
		su.startup_s = from > 0 ? rt_unix_now() - from : 0;
		su.at_run = now;
		say_startup(kind);
	}
	su.loop_from = now.compiled;
	su.in_loop = 1;
}

void rt_run_ends(void)
{
	nvrtc_stats now;
	rt_kprep_release();
	rt_mark("run end");
	if (!su.in_loop)
		return;
	now = job_stats();
	su.in_run += now.compiled - su.loop_from;
	su.in_loop = 0;
}

void rt_startup_json(rt_json *j)
{
	nvrtc_stats now = job_stats();
	rt_json_double(j, "startup_s", su.startup_s >= 0 ? su.startup_s : 0);
	rt_json_double(j, "compile_s", now.compile_s);
	rt_json_int(j, "compiles", now.compiled);
	rt_json_int(j, "kernels_cached", now.from_disk + now.prebuilt);
	rt_json_int(j, "compiles_in_run", su.in_run + (su.in_loop ? now.compiled - su.loop_from : 0));
}
