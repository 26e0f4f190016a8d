/* islands.h: the island model of a job over several processes (comm.h),
 * spec section [islands]. Each rank evolves its own population (an island,
 * with random streams of its own: rt_islands_seed puts the rank in the
 * Philox key) and every `interval` generations sends `migrants` individuals
 * to other islands, chosen by `emigrants` (best or random), where they take
 * the places chosen by `replace` (worst or random), along `topology` (ring,
 * random: a new ring each migration, or full: every other island).
 *
 * Migration is asynchronous and reproducible. At migration m (generation
 * m * interval) a rank starts sending its emigrants without waiting and
 * takes in what its sources sent at migration m - 1, so it waits only for a
 * source more than one interval behind, never for the whole job; who sends
 * to whom depends only on the seed and m. Stopping early (a solved problem,
 * a reached target, a signal) is agreed the same way: a rank's wish at
 * migration m, combined over the ranks while they go on, stops every rank
 * at migration m + 1 (after the last migration a rank stops when it likes).
 * Kinds (gp, de, aco) pack and unpack their individuals; this module picks
 * which, moves the packages and keeps the schedule. With one process there
 * is one island and a run equals the same run without [islands]. */
#ifndef RT_ISLANDS_H
#define RT_ISLANDS_H

#include <stddef.h>
#include <stdint.h>

#include "error.h"
#include "out.h"
#include "spec.h"

typedef enum rt_topology { RT_TOPOLOGY_RING = 0, RT_TOPOLOGY_RANDOM = 1, RT_TOPOLOGY_FULL = 2 } rt_topology;
typedef enum rt_emigrants { RT_EMIGRANTS_BEST = 0, RT_EMIGRANTS_RANDOM = 1 } rt_emigrants;
typedef enum rt_replace { RT_REPLACE_WORST = 0, RT_REPLACE_RANDOM = 1 } rt_replace;

/* The [islands] section. */
typedef struct rt_islands_cfg {
	int on;            /* the spec has [islands] */
	long interval;     /* generations (iterations) between migrations */
	int migrants;      /* individuals each island sends a migration */
	int topology, emigrants, replace;   /* rt_topology, rt_emigrants, rt_replace */
} rt_islands_cfg;

/* Reads [islands] (defaults: interval 10, migrants 2, ring, best, worst);
 * without the section, c->on is 0. */
rt_status rt_islands_read(rt_islands_cfg *c, rt_spec *spec, rt_error *err);
/* The "islands" object of result.json: the settings and the number of islands. */
void rt_islands_json(rt_json *j, const rt_islands_cfg *c);
/* A kind that runs on several ranks only as islands (gp, aco): without
 * [islands] in spec_path, several ranks run as islands with the defaults
 * (c is set to them), which rank 0 names in a note on stderr. */
rt_status rt_islands_required(const char *kind, rt_islands_cfg *c, const char *spec_path,
			      rt_error *err);
/* The job's seed as island `island` uses it (island 0: the seed itself). */
uint64_t rt_islands_seed(uint64_t seed, int island);

typedef struct rt_islands rt_islands;

/* Starts the exchange for a run of at most `generations` generations
 * (migrations at interval, 2 interval, ... below it; 0: no limit) with
 * the job's seed.
 * *out is NULL when c->on is not set. */
rt_status rt_islands_open(const rt_islands_cfg *c, uint64_t seed, long generations,
			  rt_islands **out, rt_error *err);
/* Is the end of generation g a migration? */
int rt_islands_due(const rt_islands *isl, long g);
/* The indices of the individuals to send at generation g, chosen by fitness
 * (lower is better; NaN counts as worst): *count = min(migrants, n) of them
 * in idx. */
rt_status rt_islands_pick_emigrants(const rt_islands *isl, long g, const double *fit, int n,
				    int *idx, int *count, rt_error *err);
/* The places that `nin` immigrants take among the n, chosen by fitness:
 * *count = min(nin, n / 2) of them in idx (later immigrants are dropped). */
rt_status rt_islands_pick_places(const rt_islands *isl, long g, const double *fit, int n, int nin,
				 int *idx, int *count, rt_error *err);

/* The packages received at a migration, in the order of their sources. */
typedef struct rt_islands_inbox {
	int n;
	void **pkg;
	size_t *bytes;
} rt_islands_inbox;
void rt_islands_inbox_free(rt_islands_inbox *in);

/* At migration generation g: starts sending pkg (copied) to this
 * migration's targets, fills *in with the packages sent to this rank at the
 * previous migration, and says whether every rank stops now (*stop).
 * want_stop: this rank's run would end after generation g (solved, a
 * target, a limit); stop_requested: a stop was requested (a signal). */
rt_status rt_islands_migrate(rt_islands *isl, long g, const void *pkg, size_t bytes,
			     int want_stop, int stop_requested, rt_islands_inbox *in, int *stop,
			     rt_error *err);
/* After generation g that is not a migration: may this rank stop (it wants
 * to when want_stop or stop_requested)? Only after the last migration;
 * before it the wishes are kept for the next migration. isl NULL (no
 * islands): want_stop || stop_requested. */
int rt_islands_may_stop(rt_islands *isl, long g, int want_stop, int stop_requested);
/* Checkpoints (every rank its own file, checkpoint.h's RT_CKPT_RANKS_EACH):
 * the exchange's state after a generation, so that a run resumed from it
 * goes on as this one: migrations done, the run's wish, the last
 * migration's combined wish (waited for now) and packages (received now,
 * taken in at the next migration as they would have been). A signal's
 * wishes are left out. Restore checks that the job has as many ranks.
 * Files are kept per epoch, the migrations done (rt_ckpt_rank_epoch): a
 * rank's checkpoint at migration m follows every rank's arrival there, so
 * every rank has written the checkpoints it wrote before m, and older ones
 * go; a crash's files resume from the latest migration all ranks have. */
rt_status rt_islands_save(rt_islands *isl, rt_buf *b, rt_error *err);
typedef struct rt_ckpt rt_ckpt;
rt_status rt_islands_restore(rt_islands *isl, rt_ckpt *from, rt_error *err);
/* Ends the exchange (every rank, after its last generation): completes the
 * sends and takes in, unused, the last migration's packages; frees isl. */
rt_status rt_islands_close(rt_islands *isl, rt_error *err);
/* Frees isl without another message (after a failure that ends the job). */
void rt_islands_free(rt_islands *isl);
/* The rank whose island holds the lowest `best` (NaN: worst; ties: the
 * lowest rank), on every rank. */
rt_status rt_islands_best_rank(double best, int *rank, rt_error *err);
/* The best island's result on every rank: `mine` is this island's, packed
 * by the kind with rt_ckpt_put_*; the rank of the lowest `best` sends its
 * own. Elsewhere *got is 1 and *r reads the best one's (named `what` in
 * messages; rt_ckpt_free it); on the best rank *got is 0. */
rt_status rt_islands_take_best(double best, const rt_buf *mine, const char *what, rt_ckpt *r,
			       int *got, rt_error *err);
/* Is a checkpoint's stop due? With islands (isl set) when they stop
 * together (islands_stop, the same generation on every rank), without on a
 * stop request: each rank on its own would write at a different generation. */
static inline int rt_islands_stopping(const rt_islands *isl, int islands_stop, int stop_requested)
{
	return isl ? islands_stop : stop_requested;
}

#endif
