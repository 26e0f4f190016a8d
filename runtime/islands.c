/* islands.c: the island model's schedule, choices and exchange (islands.h),
 * over comm.h's messages: who sends to whom at each migration, which
 * individuals leave and which places arrivals take, the packages in flight,
 * and the agreed early stop. Knows nothing of what a package holds. */
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "checkpoint.h"
#include "comm.h"
#include "islands.h"
#include "rng.h"
#include "signals.h"

/* Philox streams of the island model's own draws (the key: the job's seed
 * for the topology, the island's seed for its picks); the migration number
 * is the low half. */
enum { DRAW_TOPOLOGY = 1, DRAW_EMIGRANTS = 2, DRAW_PLACES = 3 };
/* [islands]'s defaults (topology ring, emigrants best, replace worst: 0) */
enum { ISLANDS_INTERVAL = 10, ISLANDS_MIGRANTS = 2 };
/* Tags cycle: a rank never runs more than one migration ahead of its sources. */
#define TAG_CYCLE 30000

static const char *const topology_names[] = { "ring", "random", "full", NULL };
static const char *const emigrant_names[] = { "best", "random", NULL };
static const char *const replace_names[] = { "worst", "random", NULL };

/* The epochs of the exchanges this process has closed (one-vs-rest GP runs
 * one per class), so that checkpoints' epochs grow over the whole job. */
static long job_epochs;

struct rt_islands {
	rt_islands_cfg cfg;
	uint64_t seed;             /* the job's */
	uint64_t island_seed;      /* this rank's */
	int rank, size;
	long last_migration;       /* generation of the last one (0: none) */
	long migrations;           /* done so far */
	int wish;                  /* this rank would stop (kept until the next migration) */
	int wish_signal;           /* ... because a stop was requested: the signal's number */
	int agreed[2];             /* the wishes of the last migration combined: of the run, of a signal */
	int agreed_known;          /* agreed complete (a checkpoint waited for it) */
	rt_comm_request *agree_req;   /* agreed, while in flight */
	rt_islands_inbox pending;  /* the last migration's packages, received early (a checkpoint) */
	int have_pending;
	long epoch_base;           /* checkpoints' epochs: epoch_base + migrations (job_epochs) */
	long saved_epoch;          /* the epoch of this rank's latest checkpoint (-1: none) */
	long every_rank_saved;     /* ... as it was at the last migration: every rank has that one */
	rt_comm_request **sends;   /* in flight, with their packages */
	void **send_pkgs;
	int nsends, cap_sends;
};

rt_status rt_islands_read(rt_islands_cfg *c, rt_spec *spec, rt_error *err)
{
	long interval, migrants;
	memset(c, 0, sizeof *c);
	if (!rt_spec_has_section(spec, "islands"))
		return RT_OK;
	c->on = 1;
	rt_status st;
	if ((st = rt_spec_int(spec, "islands", "interval", ISLANDS_INTERVAL, 1, 1000000000L,
			      &interval, err)) ||
	    (st = rt_spec_int(spec, "islands", "migrants", ISLANDS_MIGRANTS, 1, 1000000, &migrants,
			      err)) ||
	    (st = rt_spec_enum(spec, "islands", "topology", topology_names, RT_TOPOLOGY_RING,
			       &c->topology, err)) ||
	    (st = rt_spec_enum(spec, "islands", "emigrants", emigrant_names, RT_EMIGRANTS_BEST,
			       &c->emigrants, err)) ||
	    (st = rt_spec_enum(spec, "islands", "replace", replace_names, RT_REPLACE_WORST,
			       &c->replace, err)))
		return st;
	c->interval = interval;
	c->migrants = (int)migrants;
	return RT_OK;
}

void rt_islands_json(rt_json *j, const rt_islands_cfg *c)
{
	rt_json_begin_object(j, "islands");
	rt_json_int(j, "islands", rt_comm_size());
	rt_json_int(j, "interval", c->interval);
	rt_json_int(j, "migrants", c->migrants);
	rt_json_string(j, "topology", topology_names[c->topology]);
	rt_json_string(j, "emigrants", emigrant_names[c->emigrants]);
	rt_json_string(j, "replace", replace_names[c->replace]);
	rt_json_end_object(j);
}

rt_status rt_islands_required(const char *kind, rt_islands_cfg *c, const char *spec_path,
			      rt_error *err)
{
	(void)err;
	if (c->on || rt_comm_size() == 1)
		return RT_OK;
	memset(c, 0, sizeof *c);
	c->on = 1;
	c->interval = ISLANDS_INTERVAL;
	c->migrants = ISLANDS_MIGRANTS;   /* ring, best, worst: 0 */
	if (rt_comm_rank() != 0)
		return RT_OK;
	if (!strcmp(kind, "aco"))   /* its islands send their best-so-far tour */
		fprintf(stderr, "evoforge: note: %s: kind aco on %d MPI ranks without an [islands] "
			"section: %d islands with the defaults interval %ld, topology %s (add "
			"[islands] to choose)\n", spec_path, rt_comm_size(), rt_comm_size(),
			c->interval, topology_names[c->topology]);
	else
		fprintf(stderr, "evoforge: note: %s: kind %s on %d MPI ranks without an [islands] "
			"section: %d islands with the defaults interval %ld, migrants %d, topology "
			"%s, emigrants %s, replace %s (add [islands] to choose)\n", spec_path, kind,
			rt_comm_size(), rt_comm_size(), c->interval, c->migrants,
			topology_names[c->topology], emigrant_names[c->emigrants],
			replace_names[c->replace]);
	return RT_OK;
}

/* splitmix64's finaliser: the island number spread over the key's bits. */
static uint64_t mix64(uint64_t x)
{
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
	return x ^ (x >> 31);
}

uint64_t rt_islands_seed(uint64_t seed, int island)
{
	return island == 0 ? seed : seed ^ mix64(0x15a4d5ULL + (uint64_t)island);
}

rt_status rt_islands_open(const rt_islands_cfg *c, uint64_t seed, long generations,
			  rt_islands **out, rt_error *err)
{
	*out = NULL;
	if (!c->on)
		return RT_OK;
	rt_islands *isl = rt_calloc(1, sizeof *isl, err);
	if (!isl)
		return err->status;
	isl->cfg = *c;
	isl->seed = seed;
	isl->rank = rt_comm_rank();
	isl->size = rt_comm_size();
	isl->island_seed = rt_islands_seed(seed, isl->rank);
	isl->saved_epoch = isl->every_rank_saved = -1;
	isl->epoch_base = job_epochs;
	/* migrations at interval, 2 interval, ... strictly before the last generation */
	isl->last_migration = generations > 0 ? (generations - 1) / c->interval * c->interval
					      : LONG_MAX;   /* no limit: a stop ends the run */
	*out = isl;
	return RT_OK;
}

int rt_islands_due(const rt_islands *isl, long g)
{
	return isl && isl->size > 1 && g > 0 && g % isl->cfg.interval == 0 && g <= isl->last_migration;
}

/* ---- who sends to whom ---------------------------------------------------------- */

/* The random ring of migration m: ranks in an order drawn from the job's
 * seed (the same on every rank). */
static void random_ring(const rt_islands *isl, long m, int *order)
{
	rt_rng rng;
	rt_rng_init(&rng, isl->seed, (uint64_t)DRAW_TOPOLOGY << 32 | (uint64_t)m);
	for (int r = 0; r < isl->size; r++)
		order[r] = r;
	for (int r = isl->size - 1; r > 0; r--) {
		int k = (int)rt_rng_below(&rng, (uint32_t)r + 1), t = order[r];
		order[r] = order[k];
		order[k] = t;
	}
}

/* Migration m's ranks this one sends to (dir +1) or receives from (dir -1):
 * their count, the ranks in peers (size - 1 at most), in rank order. */
static int neighbours(const rt_islands *isl, long m, int dir, int *peers, int *order)
{
	int size = isl->size, rank = isl->rank, n = 0;
	if (isl->cfg.topology == RT_TOPOLOGY_FULL) {
		for (int r = 0; r < size; r++)
			if (r != rank)
				peers[n++] = r;
		return n;
	}
	if (isl->cfg.topology == RT_TOPOLOGY_RING) {
		peers[0] = (rank + dir + size) % size;
		return 1;
	}
	random_ring(isl, m, order);
	int pos = 0;
	while (order[pos] != rank)
		pos++;
	peers[0] = order[(pos + dir + size) % size];
	return 1;
}

/* ---- which individuals ----------------------------------------------------------- */

static const double *sort_fit;   /* qsort has no context argument */

static double key_of(double f) { return isnan(f) ? INFINITY : f; }

/* Better first; equal fitness: the lower index first. */
static int by_fitness(const void *a, const void *b)
{
	int i = *(const int *)a, j = *(const int *)b;
	double fi = key_of(sort_fit[i]), fj = key_of(sort_fit[j]);
	return fi < fj ? -1 : fi > fj ? 1 : (i > j) - (i < j);
}

/* k of the n indices into idx (*count: k, at most n): the first k by
 * fitness (worst: the last k, worst first), or k distinct ones drawn from
 * stream `purpose` of the island's seed at migration g / interval. */
static rt_status pick(const rt_islands *isl, long g, const double *fit, int n, int k, int random,
		      int worst, int purpose, int *idx, int *count, rt_error *err)
{
	if (k > n)
		k = n;
	*count = 0;
	int *all = rt_malloc((size_t)n * sizeof *all + 1, err);
	if (!all)
		return err->status;
	for (int i = 0; i < n; i++)
		all[i] = i;
	if (random) {
		rt_rng rng;
		rt_rng_init(&rng, isl->island_seed,
			    (uint64_t)purpose << 32 | (uint64_t)(g / isl->cfg.interval));
		for (int i = 0; i < k; i++) {   /* the first k of a shuffle */
			int j = i + (int)rt_rng_below(&rng, (uint32_t)(n - i)), t = all[i];
			all[i] = all[j];
			all[j] = t;
			idx[i] = all[i];
		}
	} else {
		sort_fit = fit;
		qsort(all, (size_t)n, sizeof *all, by_fitness);
		for (int i = 0; i < k; i++)
			idx[i] = worst ? all[n - 1 - i] : all[i];
	}
	free(all);
	*count = k;
	return RT_OK;
}

rt_status rt_islands_pick_emigrants(const rt_islands *isl, long g, const double *fit, int n,
				    int *idx, int *count, rt_error *err)
{
	return pick(isl, g, fit, n, isl->cfg.migrants, isl->cfg.emigrants == RT_EMIGRANTS_RANDOM, 0,
		    DRAW_EMIGRANTS, idx, count, err);
}

rt_status rt_islands_pick_places(const rt_islands *isl, long g, const double *fit, int n, int nin,
				 int *idx, int *count, rt_error *err)
{
	return pick(isl, g, fit, n, nin < n / 2 ? nin : n / 2,
		    isl->cfg.replace == RT_REPLACE_RANDOM, 1, DRAW_PLACES, idx, count, err);
}

/* ---- the exchange ---------------------------------------------------------------- */

void rt_islands_inbox_free(rt_islands_inbox *in)
{
	for (int i = 0; i < in->n; i++)
		free(in->pkg[i]);
	free(in->pkg);
	free(in->bytes);
	memset(in, 0, sizeof *in);
}

/* Frees the sends that have completed (wait: waits for all of them). */
static rt_status reap_sends(rt_islands *isl, int wait, rt_error *err)
{
	int kept = 0;
	rt_status st = RT_OK;
	for (int i = 0; i < isl->nsends; i++) {
		int done = 1;
		if (!st)
			st = wait ? rt_comm_wait(isl->sends[i], err)
				  : rt_comm_test(isl->sends[i], &done, err);
		if (done || st) {
			free(isl->send_pkgs[i]);
		} else {
			isl->sends[kept] = isl->sends[i];
			isl->send_pkgs[kept++] = isl->send_pkgs[i];
		}
	}
	isl->nsends = kept;
	return st;
}

static rt_status start_send(rt_islands *isl, const void *pkg, size_t bytes, int dest, int tag,
			    rt_error *err)
{
	if (isl->nsends == isl->cap_sends) {
		int cap = isl->cap_sends ? 2 * isl->cap_sends : 8;
		rt_comm_request **s = realloc(isl->sends, (size_t)cap * sizeof *s);
		if (s)
			isl->sends = s;
		void **p = s ? realloc(isl->send_pkgs, (size_t)cap * sizeof *p) : NULL;
		if (!s || !p)
			return rt_fail(err, RT_ERR_SYSTEM, "out of memory for a migration's sends");
		isl->send_pkgs = p;
		isl->cap_sends = cap;
	}
	void *copy = rt_malloc(bytes + 1, err);
	if (!copy)
		return err->status;
	memcpy(copy, pkg, bytes);
	rt_comm_request *req;
	rt_status st = rt_comm_isend(copy, bytes, dest, tag, &req, err);
	if (st) {
		free(copy);
		return st;
	}
	isl->sends[isl->nsends] = req;
	isl->send_pkgs[isl->nsends++] = copy;
	return RT_OK;
}

/* Receives migration m's packages from its sources into *in (none for m 0). */
static rt_status receive(rt_islands *isl, long m, rt_islands_inbox *in, rt_error *err)
{
	int *peers = rt_malloc((size_t)isl->size * 2 * sizeof *peers, err);
	if (!peers)
		return err->status;
	int n = m > 0 ? neighbours(isl, m, -1, peers, peers + isl->size) : 0;
	rt_status st = RT_OK;
	in->pkg = rt_calloc((size_t)n + 1, sizeof *in->pkg, err);
	in->bytes = in->pkg ? rt_calloc((size_t)n + 1, sizeof *in->bytes, err) : NULL;
	if (!in->bytes)
		st = err->status;
	for (int i = 0; i < n && !st; i++, in->n++)
		st = rt_comm_recv(peers[i], (int)(1 + m % TAG_CYCLE), &in->pkg[i], &in->bytes[i], err);
	free(peers);
	return st;
}

/* The packages of migration m for this rank: received early, or now. */
static rt_status take_in(rt_islands *isl, long m, rt_islands_inbox *in, rt_error *err)
{
	if (!isl->have_pending)
		return receive(isl, m, in, err);
	*in = isl->pending;
	memset(&isl->pending, 0, sizeof isl->pending);
	isl->have_pending = 0;
	return RT_OK;
}

rt_status rt_islands_migrate(rt_islands *isl, long g, const void *pkg, size_t bytes,
			     int want_stop, int stop_requested, rt_islands_inbox *in, int *stop,
			     rt_error *err)
{
	long m = g / isl->cfg.interval;
	memset(in, 0, sizeof *in);
	/* every rank has been here once this migration's wishes are combined,
	 * so it has written its checkpoints of before it */
	isl->every_rank_saved = isl->saved_epoch;
	*stop = 0;
	int *peers = rt_malloc((size_t)isl->size * 2 * sizeof *peers, err);
	if (!peers)
		return err->status;
	rt_status st = reap_sends(isl, 0, err);
	int n = neighbours(isl, m, +1, peers, peers + isl->size);
	for (int i = 0; i < n && !st; i++)
		st = start_send(isl, pkg, bytes, peers[i], (int)(1 + m % TAG_CYCLE), err);
	free(peers);
	if (!st)
		st = take_in(isl, m - 1, in, err);
	/* the wishes of the last migration, combined over the ranks meanwhile */
	if (!st && isl->agree_req) {
		st = rt_comm_wait(isl->agree_req, err);
		isl->agree_req = NULL;
		isl->agreed_known = 1;
	}
	if (isl->agreed_known) {
		*stop = isl->agreed[0] || isl->agreed[1];
		rt_stop_adopt(isl->agreed[1]);   /* a signal's stop: every rank's */
	}
	isl->agreed_known = 0;
	isl->agreed[0] = isl->wish || want_stop;
	isl->agreed[1] = isl->wish_signal > stop_requested ? isl->wish_signal : stop_requested;
	if (!st)
		st = rt_comm_imax_int(isl->agreed, 2, &isl->agree_req, err);
	isl->wish = isl->wish_signal = 0;
	isl->migrations = m;
	return st;
}

int rt_islands_may_stop(rt_islands *isl, long g, int want_stop, int stop_requested)
{
	if (!isl || isl->size == 1 || g >= isl->last_migration)
		return want_stop || stop_requested;
	isl->wish |= want_stop;
	if (stop_requested > isl->wish_signal)
		isl->wish_signal = stop_requested;
	return 0;
}

/* ---- checkpoints ----------------------------------------------------------------- */

rt_status rt_islands_save(rt_islands *isl, rt_buf *b, rt_error *err)
{
	rt_status st = RT_OK;
	if (isl->size > 1 && isl->migrations > 0 && !isl->have_pending) {
		st = receive(isl, isl->migrations, &isl->pending, err);
		isl->have_pending = !st;
	}
	if (!st && isl->agree_req) {
		st = rt_comm_wait(isl->agree_req, err);
		isl->agree_req = NULL;
		isl->agreed_known = !st;
	}
	if (st)
		return st;
	/* the wait above makes every rank past this migration */
	isl->saved_epoch = isl->epoch_base + isl->migrations;
	rt_ckpt_rank_epoch(isl->saved_epoch, isl->migrations > 0 ? isl->every_rank_saved : -1);
	/* a signal's wishes are left out: the resumed run is not stopping */
	rt_ckpt_put_u64(b, (uint64_t)isl->size);
	rt_ckpt_put_u64(b, (uint64_t)isl->epoch_base);
	rt_ckpt_put_u64(b, (uint64_t)isl->migrations);
	rt_ckpt_put_u64(b, (uint64_t)isl->wish);
	rt_ckpt_put_u64(b, (uint64_t)isl->agreed_known);
	rt_ckpt_put_u64(b, (uint64_t)isl->agreed[0]);
	rt_ckpt_put_u64(b, (uint64_t)(isl->have_pending ? isl->pending.n : -1));
	for (int i = 0; isl->have_pending && i < isl->pending.n; i++) {
		rt_ckpt_put_u64(b, (uint64_t)isl->pending.bytes[i]);
		rt_ckpt_put_bytes(b, isl->pending.pkg[i], isl->pending.bytes[i]);
	}
	return RT_OK;
}

rt_status rt_islands_restore(rt_islands *isl, rt_ckpt *from, rt_error *err)
{
	uint64_t v[7];
	rt_status st = RT_OK;
	for (int k = 0; k < 7 && !st; k++)
		st = rt_ckpt_get_u64(from, &v[k], err);
	if (st)
		return st;
	if (v[0] != (uint64_t)isl->size)
		return rt_fail(err, RT_ERR_INPUT, "%s: a checkpoint of a job of %llu islands; this one "
			       "has %d (islands resume with as many ranks as they had)", from->path,
			       (unsigned long long)v[0], isl->size);
	if (v[1] > (uint64_t)LONG_MAX / 2 || v[2] > (uint64_t)LONG_MAX / 2 || v[3] > 1 || v[4] > 1 ||
	    v[5] > 1 || (v[6] != (uint64_t)-1 && v[6] > (uint64_t)isl->size))
		return rt_fail(err, RT_ERR_INPUT, "%s: an impossible island state", from->path);
	isl->epoch_base = (long)v[1];
	isl->migrations = (long)v[2];
	isl->wish = (int)v[3];
	isl->agreed_known = (int)v[4];
	isl->agreed[0] = (int)v[5];
	isl->agreed[1] = 0;
	isl->saved_epoch = isl->epoch_base + isl->migrations;   /* every rank resumed from this epoch */
	if (v[6] == (uint64_t)-1)
		return RT_OK;
	int n = (int)v[6];
	isl->pending.pkg = rt_calloc((size_t)n + 1, sizeof *isl->pending.pkg, err);
	isl->pending.bytes = isl->pending.pkg ? rt_calloc((size_t)n + 1, sizeof(size_t), err) : NULL;
	isl->have_pending = 1;
	if (!isl->pending.bytes)
		return err->status;
	for (int i = 0; i < n && !st; i++, isl->pending.n++) {
		uint64_t len;
		if ((st = rt_ckpt_get_u64(from, &len, err)))
			break;
		if (len > from->state_size - from->pos)
			return rt_fail(err, RT_ERR_INPUT, "%s: a migration package of %llu bytes",
				       from->path, (unsigned long long)len);
		if (!(isl->pending.pkg[i] = rt_malloc((size_t)len + 1, err)))
			return err->status;
		isl->pending.bytes[i] = (size_t)len;
		st = rt_ckpt_get_bytes(from, isl->pending.pkg[i], (size_t)len, err);
	}
	return st;
}

void rt_islands_free(rt_islands *isl)
{
	if (!isl)
		return;
	for (int i = 0; i < isl->nsends; i++)
		free(isl->sends[i]);   /* requests left in flight: the job is ending */
	rt_islands_inbox_free(&isl->pending);
	free(isl->sends);
	free(isl->send_pkgs);
	free(isl);
}

rt_status rt_islands_close(rt_islands *isl, rt_error *err)
{
	if (!isl)
		return RT_OK;
	rt_islands_inbox last = { 0 };
	rt_status st = RT_OK;
	if (isl->size > 1 && isl->migrations > 0)
		st = take_in(isl, isl->migrations, &last, err);
	job_epochs = isl->epoch_base + isl->migrations + 1;
	rt_islands_inbox_free(&last);
	rt_status s2 = rt_comm_wait(isl->agree_req, st ? &(rt_error){ 0 } : err);
	if (!st)
		st = s2;
	s2 = reap_sends(isl, 1, st ? &(rt_error){ 0 } : err);
	if (!st)
		st = s2;
	rt_islands_free(isl);
	return st;
}

rt_status rt_islands_best_rank(double best, int *rank, rt_error *err)
{
	return rt_comm_minloc(key_of(best), rank, err);
}

rt_status rt_islands_take_best(double best, const rt_buf *mine, const char *what, rt_ckpt *r,
			       int *got, rt_error *err)
{
	int best_rank;
	memset(r, 0, sizeof *r);
	*got = 0;
	rt_status st = rt_islands_best_rank(best, &best_rank, err);
	if (st)
		return st;
	void *data = mine->data;
	size_t bytes = mine->len;
	if ((st = rt_comm_bcast(&data, &bytes, best_rank, err)) || rt_comm_rank() == best_rank)
		return st;
	snprintf(r->path, sizeof r->path, "%s", what);
	r->data = data;
	r->size = r->state_size = bytes;
	r->state = data;
	*got = 1;
	return RT_OK;
}
