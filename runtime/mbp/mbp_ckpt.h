/* mbp_ckpt.h: kind mbp's checkpoints and resume (the file format is the
 * runtime's, checkpoint.h). The state is every network's training state at
 * the end of an epoch: weights, step sizes, momenta (v), previous gradients
 * (gp), the best weights so far (robustness), and its scalars (epochs,
 * reached, last and best RMS, restores). Nothing else carries from one epoch
 * to the next: the pattern order of epoch e is drawn from (seed, network,
 * e), the gradient is recomputed every epoch, so a run resumed from epoch
 * e's checkpoint goes on exactly as the uninterrupted run would have, on
 * either backend. The checkpoint also carries history.csv's rows so far
 * (job->hist), so the resumed run's history.csv is the uninterrupted one's. */
#ifndef MBP_CKPT_H
#define MBP_CKPT_H
#include "checkpoint.h"
#include "mbp_impl.h"

typedef struct mbp_ckpt {
	rt_ckpt_plan plan;        /* when checkpoints are written; the one resumed from */
	long saved_epoch;         /* the epoch of the last one written (-1: none) */
} mbp_ckpt;

/* Every network's state between two epochs (both backends' layout:
 * network k's values at [k * nweights]). */
typedef struct mbp_snapshot {
	long epoch;               /* the run's epoch (every network still training is there) */
	long networks;
	int nweights;
	float *w, *eta, *v, *gp, *wb;
	mbp_result *res;          /* [networks]: epochs, reached, train_rms (last), best_rms, restores */
} mbp_snapshot;

/* Sets ck up for a run of spec into dir as opt says (--checkpoint-every,
 * --resume: the checkpoint read and checked against spec). */
rt_status mbp_ckpt_open(mbp_ckpt *ck, const rt_spec *spec, const rt_options *opt, const char *dir,
			rt_error *err);
void mbp_ckpt_close(mbp_ckpt *ck);

rt_status mbp_snapshot_alloc(mbp_snapshot *s, const mbp_job *job, rt_error *err);
void mbp_snapshot_free(mbp_snapshot *s);

/* The end of the training block that starts at epoch (of at most limit):
 * the next report (job->report_every), history row (job->hist) or
 * checkpoint epoch, whichever is first. Blocks only decide when the host looks; results do not depend on them. */
long mbp_block_end(const mbp_job *job, long epoch, long limit);
/* Is a progress line due at the end of a block ending at epoch? */
int mbp_block_reports(const mbp_job *job, long epoch, long limit);

/* Is a checkpoint due at the end of the block ending at epoch (by count or
 * time, or `stop`: a stop requested, agreed over the ranks)? 0 without
 * job->ckpt. */
int mbp_ckpt_due(const mbp_job *job, long epoch, int stop);
/* Writes s as the checkpoint (job->ckpt's folder). Spread over MPI ranks
 * (every rank calls it, at the same epoch): rank 0 writes every rank's
 * networks as one process would. */
rt_status mbp_ckpt_save(const mbp_job *job, const mbp_snapshot *s, rt_error *err);
/* s (allocated for job) from the checkpoint resumed from; errors name the
 * file. Spread over MPI ranks: this rank's share of a whole job's file. */
rt_status mbp_ckpt_restore(const mbp_job *job, mbp_snapshot *s, rt_error *err);
/* Was the run started with --resume? */
int mbp_ckpt_resuming(const mbp_job *job);

#endif
