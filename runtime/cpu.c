/* cpu.c: a fixed pool of pthreads for the CPU backend's parallel loops.
 *
 * Why a pool: GP and DE run a parallel loop every generation (thousands per
 * run); starting threads each time would cost more than small loops take.
 * The calling thread works too, so a pool of T threads starts T-1 workers.
 * Work is handed out in chunks of `grain` items from an atomic counter, so
 * uneven items (programs of different sizes) balance themselves. */
#include <pthread.h>
#include <stdio.h>
#include <stdatomic.h>
#include <string.h>
#include <unistd.h>

#include "cpu.h"

typedef struct cpu_job {
	cpu_range_fn fn;
	void *ctx;
	long n, grain;
	atomic_long next;
} cpu_job;

static struct {
	pthread_mutex_t lock;
	pthread_cond_t wake, done;
	pthread_t threads[RT_MAX_THREADS];
	int nworkers;             /* started workers (threads - 1) */
	int wanted;               /* configured total threads (0 = all cores) */
	unsigned long generation; /* bumped for every job */
	int busy;                 /* workers still in the current job */
	int active;               /* threads taking part in the current job (ids below) */
	cpu_job *job;
} pool = {.lock = PTHREAD_MUTEX_INITIALIZER, .wake = PTHREAD_COND_INITIALIZER,
	  .done = PTHREAD_COND_INITIALIZER};

int cpu_thread_count(int requested)
{
	long n = requested > 0 ? requested : sysconf(_SC_NPROCESSORS_ONLN);
	if (n < 1)
		n = 1;
	if (n > RT_MAX_THREADS)
		n = RT_MAX_THREADS;
	return (int)n;
}

void cpu_set_threads(int threads) { pool.wanted = threads; }
int cpu_threads(void) { return cpu_thread_count(pool.wanted); }

static void job_work(cpu_job *job, int thread)
{
	for (;;) {
		long begin = atomic_fetch_add(&job->next, job->grain);
		long end;
		if (begin >= job->n)
			break;
		end = begin + job->grain < job->n ? begin + job->grain : job->n;
		job->fn(job->ctx, begin, end, thread);
	}
}

static void *worker_main(void *arg)
{
	int id = (int)(long)arg;
	unsigned long seen = 0;
	for (;;) {
		cpu_job *job;
		pthread_mutex_lock(&pool.lock);
		while (pool.generation == seen)
			pthread_cond_wait(&pool.wake, &pool.lock);
		seen = pool.generation;
		job = pool.job;
		int take_part = id < pool.active;
		pthread_mutex_unlock(&pool.lock);
		if (take_part)
			job_work(job, id);
		pthread_mutex_lock(&pool.lock);
		if (--pool.busy == 0)
			pthread_cond_signal(&pool.done);
		pthread_mutex_unlock(&pool.lock);
	}
	return NULL;
}

/* Starts workers up to threads-1 (they are never stopped: the pool lives as
 * long as the process). */
static rt_status pool_grow(int threads, rt_error *err)
{
	while (pool.nworkers < threads - 1) {
		int rc = pthread_create(&pool.threads[pool.nworkers], NULL, worker_main,
					(void *)(long)(pool.nworkers + 1));
		if (rc != 0)
			return rt_fail(err, RT_ERR_SYSTEM, "cannot start a worker thread: %s",
				       strerror(rc));
		pthread_detach(pool.threads[pool.nworkers]);
		pool.nworkers++;
	}
	return RT_OK;
}

rt_status cpu_parallel_for(long n, long grain, cpu_range_fn fn, void *ctx, rt_error *err)
{
	int threads = cpu_threads();
	cpu_job job;
	if (n <= 0)
		return RT_OK;
	if (grain < 1)
		grain = 1;
	job.fn = fn;
	job.ctx = ctx;
	job.n = n;
	job.grain = grain;
	atomic_init(&job.next, 0);
	if (threads == 1 || n <= grain) {
		job_work(&job, 0);
		return RT_OK;
	}
	pthread_mutex_lock(&pool.lock);
	if (pool_grow(threads, err) != RT_OK) {
		pthread_mutex_unlock(&pool.lock);
		return RT_ERR_SYSTEM;
	}
	/* Workers beyond `threads` (after the count was lowered) sit this one out. */
	pool.job = &job;
	pool.active = threads;
	pool.busy = pool.nworkers;
	pool.generation++;
	pthread_cond_broadcast(&pool.wake);
	pthread_mutex_unlock(&pool.lock);

	job_work(&job, 0);

	pthread_mutex_lock(&pool.lock);
	while (pool.busy > 0)
		pthread_cond_wait(&pool.done, &pool.lock);
	pool.job = NULL;
	pthread_mutex_unlock(&pool.lock);
	return RT_OK;
}

void cpu_model_name(char *buf, size_t size)
{
	FILE *f = fopen("/proc/cpuinfo", "r");
	char line[512];
	snprintf(buf, size, "unknown CPU");
	if (!f)
		return;
	while (fgets(line, sizeof line, f))
		if (strncmp(line, "model name", 10) == 0) {
			char *v = strchr(line, ':');
			if (v) {
				v += strspn(v + 1, " \t") + 1;
				v[strcspn(v, "\n")] = '\0';
				snprintf(buf, size, "%s", v);
			}
			break;
		}
	fclose(f);
}
