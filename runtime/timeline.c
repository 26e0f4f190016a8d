/* timeline.c: named moments of a process's run, gathered from every rank
 * into DIR/timeline.csv (timeline.h). */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "comm.h"
#include "config.h"
#include "out.h"
#include "timeline.h"

typedef struct mark {
	char name[RT_TIMELINE_NAME];
	double unix_time;
} mark;

static pthread_mutex_t tl_lock = PTHREAD_MUTEX_INITIALIZER;   /* compile threads mark too */
static struct {
	mark marks[RT_TIMELINE_MARKS];
	int n, dropped;
	char dir[RT_PATH_MAX];
} tl;

double rt_unix_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

void rt_mark(const char *name) { rt_mark_detail(name, NULL); }

void rt_mark_detail(const char *name, const char *detail)
{
	mark *m;
	pthread_mutex_lock(&tl_lock);
	if (tl.n >= RT_TIMELINE_MARKS - 1) {   /* the last slot: how many were dropped */
		tl.dropped++;
	} else {
		m = &tl.marks[tl.n++];
		m->unix_time = rt_unix_now();
		snprintf(m->name, sizeof m->name, "%s%s%s", name, detail ? " " : "",
			 detail ? detail : "");
	}
	pthread_mutex_unlock(&tl_lock);
}

int rt_timeline_on(void)
{
	const char *v = getenv("EVOFORGE_TIMELINE");
	return v && *v && strcmp(v, "0");
}

void rt_timeline_set_dir(const char *dir) { snprintf(tl.dir, sizeof tl.dir, "%s", dir); }

/* When this process started (unix time): /proc/self/stat's start time,
 * in clock ticks after boot, against CLOCK_BOOTTIME now; 0 when unknown. */
static double process_start(void)
{
	char buf[1024], *p;
	unsigned long long ticks = 0;
	long hz = sysconf(_SC_CLK_TCK);
	struct timespec boot;
	FILE *f = fopen("/proc/self/stat", "r");
	size_t n = f ? fread(buf, 1, sizeof buf - 1, f) : 0;
	if (f)
		fclose(f);
	buf[n] = 0;
	p = strrchr(buf, ')');   /* the command name may hold spaces */
	for (int field = 2; p && field < 22; field++)
		p = strchr(p + 1, ' ');
	if (!p || sscanf(p + 1, "%llu", &ticks) != 1 || hz <= 0 ||
	    clock_gettime(CLOCK_BOOTTIME, &boot) != 0)
		return 0;
	return rt_unix_now() - ((double)boot.tv_sec + 1e-9 * (double)boot.tv_nsec -
			     (double)ticks / (double)hz);
}

double rt_process_start_time(void)
{
	static double start = -1;   /* read once: /proc's figure does not change */
	pthread_mutex_lock(&tl_lock);
	if (start < 0)
		start = process_start();
	double t = start;
	pthread_mutex_unlock(&tl_lock);
	return t;
}

/* This rank's moments with "process start" first and "dropped N" last. */
static void own_marks(mark *out)
{
	int n = 0;
	double start = rt_process_start_time();
	snprintf(out[n].name, sizeof out[n].name, "process start");
	out[n++].unix_time = start > 0 ? start : (tl.n ? tl.marks[0].unix_time : rt_unix_now());
	for (int i = 0; i < tl.n && n < RT_TIMELINE_MARKS; i++)
		out[n++] = tl.marks[i];
	if (tl.dropped && n < RT_TIMELINE_MARKS) {
		snprintf(out[n].name, sizeof out[n].name, "dropped %d", tl.dropped);
		out[n++].unix_time = rt_unix_now();
	}
	for (int i = n; i < RT_TIMELINE_MARKS; i++) {   /* unused slots travel empty */
		out[i].name[0] = 0;
		out[i].unix_time = 0;
	}
}

static rt_status write_csv(const mark *all, int ranks, rt_error *err)
{
	rt_buf b;
	rt_status st;
	memset(&b, 0, sizeof b);
	rt_buf_puts(&b, "rank,mark,seconds,unix_time\n");
	for (int r = 0; r < ranks; r++) {
		const mark *m = all + (size_t)r * RT_TIMELINE_MARKS;
		for (int i = 0; i < RT_TIMELINE_MARKS && m[i].name[0]; i++)
			rt_buf_printf(&b, "%d,%s,%.6f,%.6f\n", r, m[i].name,
				      m[i].unix_time - m[0].unix_time, m[i].unix_time);
	}
	st = rt_write_buf_atomic(tl.dir[0] ? tl.dir : ".", "timeline.csv", &b, err);
	rt_buf_free(&b);
	return st;
}

rt_status rt_timeline_finish(rt_error *err)
{
	int ranks = rt_comm_size(), root = rt_comm_rank() == 0;
	size_t each = RT_TIMELINE_MARKS * sizeof(mark);
	mark mine[RT_TIMELINE_MARKS], *all = NULL;
	size_t *counts = NULL;
	rt_status st = RT_OK;
	if (!rt_timeline_on())
		return RT_OK;
	rt_mark("timeline gathered");
	own_marks(mine);
	if (root) {
		all = rt_malloc((size_t)ranks * each, err);
		counts = rt_malloc((size_t)ranks * sizeof *counts, err);
		if (!all || !counts)
			st = RT_ERR_SYSTEM;
		for (int r = 0; r < ranks && !st; r++)
			counts[r] = each;
	}
	if (!st)
		st = rt_comm_gatherv(mine, each, all, counts, err);
	if (!st && root)
		st = write_csv(all, ranks, err);
	free(all);
	free(counts);
	return st;
}
