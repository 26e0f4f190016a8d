/* gp_ckpt.h: kind gp's checkpoints and resume (the file format is the
 * runtime's, checkpoint.h). The state is the last finished generation's
 * population with its fitness and the result so far (history, best program,
 * totals). Breeding generation g + 1 draws only from (seed, g, offspring
 * index), so a run resumed from generation g's checkpoint goes on exactly
 * as the uninterrupted run would have.
 *
 * A one-vs-rest run (gp_ovr.c) puts its finished sub-problems' results in
 * ck->head before each sub-problem; the state is then that head followed by
 * the current sub-problem's state, laid out as a round run's. */
#ifndef GP_CKPT_H
#define GP_CKPT_H
#include "checkpoint.h"
#include "gp.h"

typedef struct gp_ckpt {
	rt_ckpt_plan plan;        /* when checkpoints are written; the one resumed from */
	rt_buf head;              /* written before the run's state: a one-vs-rest run's finished
				   * sub-problems (gp_ovr.c); empty for a round run */
	struct rt_islands *isl;   /* the island model's exchange (set by the run), its state
				   * written after the run's; NULL: none */
} gp_ckpt;

/* Sets ck up for a run of spec into dir as opt says (--checkpoint-every,
 * --resume: the checkpoint read and checked against spec); makes dir. */
rt_status gp_ckpt_open(gp_ckpt *ck, const rt_spec *spec, const rt_options *opt, const char *dir,
		       rt_error *err);
void gp_ckpt_close(gp_ckpt *ck);

/* Is a checkpoint due after generation g (by count, by time, or the run
 * stopping: the caller says, stopping)? */
int gp_ckpt_due(const gp_ckpt *ck, int g, int stopping);
/* After generation g: writes a checkpoint when one is due. */
rt_status gp_ckpt_after_generation(gp_ckpt *ck, int g, const gp_tree *pop, const double *fit,
				   int n, const gp_result *res, int stopping, rt_error *err);

/* A program as the state holds it (its node count, then its nodes; also
 * the island model's packages, gp_islands.c): put into b, or read from ck
 * into t (1 to 2^24 nodes). */
void gp_ckpt_put_tree(rt_buf *b, const gp_tree *t);
rt_status gp_ckpt_get_tree(rt_ckpt *ck, gp_tree *t, rt_error *err);

/* A run's result as the state holds it (the history, best program, its
 * fitness and generation, solved, totals): put into b, or read from ck into
 * res (history allocated here for at most max_history entries; free with
 * gp_result_free). gp_ckpt_restore reads a run's state after ck->head's
 * bytes have been read by their writer (the read position is kept). */
void gp_ckpt_put_result(rt_buf *b, const gp_result *res);
rt_status gp_ckpt_get_result(rt_ckpt *from, gp_result *res, int max_history, rt_error *err);

/* From ck->from: pop[n] and fit[n] (pop's trees empty), res's history
 * (room for the run's generations), best and totals; *next_generation. */
rt_status gp_ckpt_restore(gp_ckpt *ck, gp_tree *pop, double *fit, int n, gp_result *res,
			  int max_history, int *next_generation, rt_error *err);

#endif
