/* aco_ckpt.h: kind aco's checkpoints and resume (the file format is the
 * runtime's, checkpoint.h).
 *
 * The state is the run after iteration i: the MAX-MIN loop's scalars
 * (aco_mmas: best-so-far and restart-best lengths and when they were
 * found, tau_min, tau_max, u_gb), the outcome so far (best tour, its
 * length and iteration, restarts, tours built, history), the seconds spent,
 * and the backend's pheromone matrix and saved tours (best-so-far,
 * restart-best), copied back from the device on the GPU. The choice matrix
 * is recomputed from the pheromone on resume (the same function of each
 * cell); tours and lengths are rebuilt by every iteration. Ant a's tour in
 * iteration i draws only from Philox at (seed, a, i, step), its local search
 * from (seed, a, i), so a run resumed after iteration i goes on exactly as
 * the uninterrupted run. A time_limit counts the seconds before the
 * checkpoint too (such a run stops by the clock, so it is not repeatable,
 * resumed or not). */
#ifndef RT_ACO_CKPT_H
#define RT_ACO_CKPT_H

#include "aco_impl.h"
#include "checkpoint.h"

typedef struct aco_ckpt {
	rt_ckpt_plan plan;        /* when checkpoints are written; the one resumed from */
} aco_ckpt;

/* Sets ck up for a run of spec into dir as opt says (--checkpoint-every,
 * --resume: the checkpoint read and checked against spec); makes dir. */
rt_status aco_ckpt_open(aco_ckpt *ck, const rt_spec *spec, const rt_options *opt, const char *dir,
			rt_error *err);
void aco_ckpt_close(aco_ckpt *ck);

/* 1 when ck (may be NULL) holds a checkpoint to resume from. */
int aco_ckpt_resuming(const aco_ckpt *ck);

/* Whether a checkpoint is due after iteration i (stop: a stop was
 * requested, which writes one whatever --checkpoint-every says). */
int aco_ckpt_due(const aco_ckpt *ck, long i, int stop);

/* Writes the state after iteration i (out->seconds: the time so far). */
rt_status aco_ckpt_save(aco_ckpt *ck, const aco_job *job, aco_backend *b, const aco_mmas *m,
			long i, const aco_outcome *out, rt_error *err);

/* Restores the state of ck->from into m, out (best_tour allocated, history
 * empty) and the backend; *i: the iteration it was written after. */
rt_status aco_ckpt_restore(aco_ckpt *ck, const aco_job *job, aco_backend *b, aco_mmas *m, long *i,
			   aco_outcome *out, rt_error *err);

#endif
