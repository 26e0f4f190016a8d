/* de_ckpt.h: kind de's checkpoints and resume (the file format is the
 * runtime's, checkpoint.h).
 *
 * The state is the run at a generation boundary: for every problem its
 * current population, fitness, de_state (best value, best index,
 * generations done, stopped) and history, plus the run's generation and the
 * time spent so far. Every draw of generation g of problem p comes from
 * Philox at (seed, stream (individual, p), counter (g, purpose, block)),
 * and the only other input of a generation is the population and its best
 * index; so a run resumed from generation g's checkpoint goes on exactly as
 * the uninterrupted run. Stretches of generations (a fused launch on the
 * GPU, a parallel pass on the CPU) end at report lines and, with
 * --checkpoint-every N, at every N-th generation too; where a stretch ends
 * changes nothing in the results. Populations are stored as rows
 * (individual i, component j at [i * dim + j]) whatever the backend holds,
 * so the file's layout is the same for CPU and GPU runs. The adaptive
 * strategies (de_adapt.h) add each problem's state (memories, active
 * population, archive count and size, evaluations) and archive (rows),
 * the rest of their generation being drawn from Philox as above. */
#ifndef RT_DE_CKPT_H
#define RT_DE_CKPT_H

#include "checkpoint.h"
#include "de_impl.h"

typedef struct de_ckpt {
	rt_ckpt_plan plan;        /* when checkpoints are written; the one resumed from */
} de_ckpt;

/* The run's state at a generation boundary, as a backend hands it over. */
typedef struct de_snapshot {
	long gen;                 /* the run's generation: each problem ran to it or stopped */
	de_state *st;             /* [problems] */
	float *pop;               /* [problems][np][dim], rows */
	float *fit;               /* [problems][np] */
	float *hist;              /* [problems][hist_len], NULL without history */
	double *ad;               /* adaptive strategies: [problems][ad_len] (de_adapt.h), else NULL */
	float *arch;              /* adaptive strategies: [problems][a_cap][dim], rows */
	double seconds;           /* optimisation time so far */
	double kernel_ms;         /* GPU: kernel time so far (0 on the CPU) */
} de_snapshot;

/* Buffers of a snapshot for job; de_snapshot_free releases them. */
rt_status de_snapshot_alloc(de_snapshot *s, const de_job *job, rt_error *err);
void de_snapshot_free(de_snapshot *s);

/* Sets ck up for a run of spec into dir as opt says (--checkpoint-every,
 * --resume: the checkpoint read and checked against spec); makes dir. */
rt_status de_ckpt_open(de_ckpt *ck, const rt_spec *spec, const rt_options *opt, const char *dir,
		       rt_error *err);
void de_ckpt_close(de_ckpt *ck);

/* 1 when ck (may be NULL) holds a checkpoint to resume from. */
int de_ckpt_resuming(const de_ckpt *ck);

/* The end of the stretch of generations that starts after generation gen:
 * the next multiple of report_every, of --checkpoint-every N (ck may be
 * NULL), of the island model's interval, or the generation limit,
 * whichever comes first. */
long de_ckpt_stretch_end(const de_ckpt *ck, const de_job *job, long gen);

/* Whether a checkpoint is due at generation gen (stop: a stop was requested). */
int de_ckpt_due(const de_ckpt *ck, long gen, int stop);

/* Writes s as ck->dir/checkpoint.bin. With several MPI ranks (job a share
 * of the problems, de_shard.c) every rank calls it at the same generation:
 * rank 0 gathers the shares and writes one process's checkpoint. */
rt_status de_ckpt_save(de_ckpt *ck, const de_job *job, const de_snapshot *s, rt_error *err);

/* Reads ck->from into s (allocated for job), checking every field. With
 * several ranks each reads the whole job's checkpoint (written by any
 * number of ranks) and takes its share. */
rt_status de_ckpt_restore(de_ckpt *ck, const de_job *job, de_snapshot *s, rt_error *err);

#endif
