/* cpu.c: a fixed pool of pthreads for the CPU backend's parallel loops.
 *
 * Why a pool: GP and DE run a parallel loop every generation (thousands per
 * run); starting threads each time would cost more than small loops take.
 * The calling thread works too, so a pool of T threads starts T-1 workers.
 * Work is handed out in chunks of `grain` items from an atomic counter, so
 * uneven items (programs of different sizes) balance themselves.
 *
 * Why workers spin before they sleep: a GP generation runs dozens of small
 * loops back to back (breed, pack, encode each batch); waking sleeping
 * threads through the kernel costs tens of microseconds a loop, more than
 * such a loop's work on many cores. A worker that finished a job polls the
 * job generation for CPU_POOL_SPIN_US before blocking, and the caller polls the
 * count of workers still busy likewise; every worker still acknowledges
 * every job, so no job's storage outlives its call. */
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdatomic.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "comm.h"
#include "cpu.h"

typedef struct cpu_job {
	cpu_range_fn fn;
	void *ctx;
	long n, grain;
	atomic_long next;
} cpu_job;

/* How long a thread polls before it blocks (microseconds). */
#if !defined(CPU_POOL_SPIN_US)
#define CPU_POOL_SPIN_US 300
#endif

static struct {
	pthread_mutex_t lock;
	pthread_cond_t wake, done;
	pthread_t threads[RT_MAX_THREADS];
	unsigned long birth[RT_MAX_THREADS]; /* generation when each worker started */
	int nworkers;             /* started workers (threads - 1) */
	int wanted;               /* configured total threads (0 = all cores) */
	int whole_host;           /* cpu_take_host: the other ranks here are done */
	atomic_ulong generation;  /* bumped for every job (under lock) */
	atomic_int busy;          /* workers still in the current job */
	int active;               /* threads taking part in the current job (ids below) */
	cpu_job *job;
} pool = {.lock = PTHREAD_MUTEX_INITIALIZER, .wake = PTHREAD_COND_INITIALIZER,
	  .done = PTHREAD_COND_INITIALIZER};

/* The cores this process may use, without --threads: its affinity mask
 * (mpirun binds ranks to cores or sockets), shared among the job's
 * processes on this host when each sees the whole machine (mpirun
 * --bind-to none), so that ranks never oversubscribe the cores (their
 * workers spin, CPU_POOL_SPIN_US). */
static long default_threads(void)
{
	cpu_set_t set;
	long online = sysconf(_SC_NPROCESSORS_ONLN), n = online;
	int local = rt_comm_local_size();
	if (sched_getaffinity(0, sizeof set, &set) == 0 && CPU_COUNT(&set) > 0)
		n = CPU_COUNT(&set);
	if (local > 1 && n >= online && !pool.whole_host)
		n = online / local;
	return n;
}

void cpu_take_host(void) { pool.whole_host = 1; }

int cpu_thread_count(int requested)
{
	long n = requested > 0 ? requested : default_threads();
	if (n < 1)
		n = 1;
	if (n > RT_MAX_THREADS)
		n = RT_MAX_THREADS;
	return (int)n;
}

void cpu_set_threads(int threads) { pool.wanted = threads; }
int cpu_threads(void) { return cpu_thread_count(pool.wanted); }

/* Set while this thread runs a loop body: a loop started from inside one
 * (an SVM solver inside a cross-validation fold) runs inline, since the
 * pool runs one loop at a time. */
static _Thread_local int in_body;

static void job_work(cpu_job *job, int thread)
{
	int outer = in_body;
	in_body = 1;
	for (;;) {
		long begin = atomic_fetch_add(&job->next, job->grain);
		long end;
		if (begin >= job->n)
			break;
		end = begin + job->grain < job->n ? begin + job->grain : job->n;
		job->fn(job->ctx, begin, end, thread);
	}
	in_body = outer;
}

static double now_us(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e6 + (double)ts.tv_nsec * 1e-3;
}

static inline void cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
	__builtin_ia32_pause();
#endif
}

/* Called once per poll: says (after every 64th poll) whether the thread has
 * polled for more than CPU_POOL_SPIN_US since its first time check (*t0). */
static int spin_expired(unsigned i, double *t0)
{
	double t;
	if ((i & 63) != 63)
		return 0;
	t = now_us();
	if (*t0 == 0)
		*t0 = t;
	else if (t - *t0 > CPU_POOL_SPIN_US)
		return 1;
	return 0;
}

/* Polls until the generation differs from seen (1) or the spin time passes (0). */
static int spin_gen(unsigned long seen)
{
	double t0 = 0;
	for (unsigned i = 0;; i++) {
		if (atomic_load_explicit(&pool.generation, memory_order_acquire) != seen)
			return 1;
		if (spin_expired(i, &t0))
			return 0;
		cpu_relax();
	}
}

/* Polls until no worker is busy (1) or the spin time passes (0). */
static int spin_idle(void)
{
	double t0 = 0;
	for (unsigned i = 0;; i++) {
		if (atomic_load_explicit(&pool.busy, memory_order_acquire) == 0)
			return 1;
		if (spin_expired(i, &t0))
			return 0;
		cpu_relax();
	}
}

static void *worker_main(void *arg)
{
	int id = (int)(long)arg;
	unsigned long seen = pool.birth[id];   /* its first job is the next one */
	for (;;) {
		if (!spin_gen(seen)) {
			/* No lost wake-up: the generation is bumped and the broadcast made
			 * under the lock, and it is checked here under the lock. */
			pthread_mutex_lock(&pool.lock);
			while (atomic_load(&pool.generation) == seen)
				pthread_cond_wait(&pool.wake, &pool.lock);
			pthread_mutex_unlock(&pool.lock);
		}
		/* The job was published before the generation (release/acquire) and
		 * stays until every worker has acknowledged it. */
		seen = atomic_load_explicit(&pool.generation, memory_order_acquire);
		cpu_job *job = pool.job;
		if (id < pool.active)
			job_work(job, id);
		if (atomic_fetch_sub_explicit(&pool.busy, 1, memory_order_acq_rel) == 1) {
			pthread_mutex_lock(&pool.lock);
			pthread_cond_signal(&pool.done);
			pthread_mutex_unlock(&pool.lock);
		}
	}
	return NULL;
}

/* Starts workers up to threads-1 (they are never stopped: the pool lives as
 * long as the process). */
static rt_status pool_grow(int threads, rt_error *err)
{
	while (pool.nworkers < threads - 1) {
		pool.birth[pool.nworkers + 1] = atomic_load(&pool.generation);
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
	if (threads == 1 || n <= grain || in_body) {
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
	atomic_store(&pool.busy, pool.nworkers);
	atomic_fetch_add_explicit(&pool.generation, 1, memory_order_release);
	pthread_cond_broadcast(&pool.wake);
	pthread_mutex_unlock(&pool.lock);

	job_work(&job, 0);

	if (!spin_idle()) {
		pthread_mutex_lock(&pool.lock);
		while (atomic_load(&pool.busy) > 0)
			pthread_cond_wait(&pool.done, &pool.lock);
		pthread_mutex_unlock(&pool.lock);
	}
	pool.job = NULL;
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
