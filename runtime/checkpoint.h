/* checkpoint.h: checkpoint files, the format every kind shares.
 *
 * A checkpoint is one file, DIR/checkpoint.bin, written atomically
 * (rt_write_file_atomic: temporary file, fsync, rename, fsync of the
 * folder):
 *
 *   "EVOFCKPT"  magic, 8 bytes
 *   u32         format version (RT_CKPT_VERSION)
 *   string      the kind ("gp")
 *   string      the spec, canonical: every entry "section.key=value", sorted
 *   string      the kind's state (its own layout, read back with rt_ckpt_get_*)
 *   u32         CRC-32 (zlib) of everything before it
 *
 * (u32/u64 little-endian; a string is a u64 length and its bytes.) A file
 * that is not one, is truncated, fails its checksum, has another version or
 * kind, or was made from another spec is refused with a message saying
 * which. The kind writes and reads its state through the put/get helpers. */
#ifndef RT_CHECKPOINT_H
#define RT_CHECKPOINT_H
#include <stddef.h>
#include <stdint.h>

#include "error.h"
#include "out.h"
#include "spec.h"

/* 2: gp's operation codes moved (the symbolic-regression functions); a
 * checkpoint of format 1 is refused, naming both formats. */
#define RT_CKPT_VERSION 2
#define RT_CKPT_FILE "checkpoint.bin"

/* The spec as the checkpoint keeps it (sorted "section.key=value" lines). */
rt_status rt_ckpt_spec_text(const rt_spec *spec, rt_buf *out, rt_error *err);

/* The kind's state being written: put values, then rt_ckpt_write. */
void rt_ckpt_put_u64(rt_buf *b, uint64_t v);
void rt_ckpt_put_f64(rt_buf *b, double v);
void rt_ckpt_put_bytes(rt_buf *b, const void *data, size_t n);

/* The bytes of a checkpoint for kind, spec and state, appended to file. */
rt_status rt_ckpt_format(const char *kind, const rt_spec *spec, const rt_buf *state, rt_buf *file,
			 rt_error *err);

/* Writes dir/checkpoint.bin for kind with the state in state. */
rt_status rt_ckpt_write(const char *dir, const char *kind, const rt_spec *spec, const rt_buf *state,
			rt_error *err);

/* A checkpoint read back: its state, consumed with the getters. */
typedef struct rt_ckpt {
	char path[RT_PATH_MAX];
	char *data;            /* the whole file */
	size_t size;
	const char *state;     /* the kind's state within data */
	size_t state_size, pos;
} rt_ckpt;

/* Reads path (a checkpoint file, or a folder holding checkpoint.bin) and
 * checks it against kind and spec. */
rt_status rt_ckpt_read(const char *path, const char *kind, const rt_spec *spec, rt_ckpt *ck,
		       rt_error *err);
void rt_ckpt_free(rt_ckpt *ck);

/* The next value of the state; past its end: RT_ERR_INPUT naming the file. */
rt_status rt_ckpt_get_u64(rt_ckpt *ck, uint64_t *v, rt_error *err);
rt_status rt_ckpt_get_f64(rt_ckpt *ck, double *v, rt_error *err);
rt_status rt_ckpt_get_bytes(rt_ckpt *ck, void *data, size_t n, rt_error *err);

/* ---- when a run writes them: what every kind's checkpointing shares ---- */

#define RT_CKPT_SECONDS 60.0   /* without --checkpoint-every: at most this often */

typedef struct rt_ckpt_plan {
	const rt_spec *spec;      /* the run's spec, as stored and compared */
	const char *dir;          /* where checkpoint.bin goes */
	long every;               /* every this many steps; 0: by time; < 0: never (a stop still writes) */
	double seconds;           /* with every == 0: at most this often */
	double last;              /* when the last one was written (rt_now) */
	rt_ckpt from;             /* the checkpoint resumed from (from.data NULL: none) */
} rt_ckpt_plan;

/* A plan for a run of kind's spec into dir: a checkpoint every `every`
 * steps (--checkpoint-every; 0: by time, every RT_CKPT_SECONDS), resuming
 * from `resume` (--resume: read into p->from and checked against kind and
 * spec; NULL: none). Makes no folder. */
rt_status rt_ckpt_plan_open(rt_ckpt_plan *p, const char *kind, const rt_spec *spec, long every,
			    const char *resume, const char *dir, rt_error *err);
void rt_ckpt_plan_close(rt_ckpt_plan *p);
/* Checkpoints in a job of several MPI ranks (comm.h). *opt becomes `copy`
 * with the time-based ones off (the ranks would not agree on when). mode:
 * RT_CKPT_RANKS_REFUSE: --checkpoint-every N and --resume are refused
 * naming kind; RT_CKPT_RANKS_GATHERED: rank 0 writes one checkpoint of the
 * whole job (de's sharded problems); RT_CKPT_RANKS_EACH: every rank writes
 * and resumes its own files, checkpoint-rank-R-migration-M.bin (islands;
 * see rt_ckpt_rank_epoch); RT_CKPT_RANKS_OWN: every rank writes its own
 * checkpoint-rank-R.bin of independent items (svm's binary problems; time-
 * based ones stay on), and a resume reads every file of the folder
 * (rt_ckpt_folder_files), so any number of ranks resumes them. One
 * process: nothing. */
enum { RT_CKPT_RANKS_REFUSE = 0, RT_CKPT_RANKS_GATHERED = 1, RT_CKPT_RANKS_EACH = 2,
       RT_CKPT_RANKS_OWN = 3 };
typedef struct rt_options rt_options;
rt_status rt_ckpt_ranks_options(const char *kind, int mode, const rt_options **opt,
				rt_options *copy, rt_error *err);
/* This process's checkpoint file in a folder: checkpoint.bin, or with
 * RT_CKPT_RANKS_EACH on several ranks checkpoint-rank-R-migration-M.bin,
 * the one written or read last. */
const char *rt_ckpt_file_name(void);
/* RT_CKPT_RANKS_EACH on several ranks. The ranks run apart, so a crash can
 * leave their latest files at different epochs (islands: migrations done);
 * each rank therefore keeps its latest file of every epoch from `keep` on,
 * and a resume from a folder takes, on every rank, the file of the latest
 * epoch that all ranks have (agreed over the ranks; runs are deterministic,
 * so a file of the same epoch written at another step is as good). The
 * caller (islands.c) sets the epoch of the next write and the lowest epoch
 * that every rank is known to have written (-1: none yet); the write then
 * removes this rank's older files. */
void rt_ckpt_rank_epoch(long epoch, long keep);
/* The checkpoint files in folder dir, checkpoint.bin and every
 * checkpoint-rank-R.bin, as paths in name order (*n of them; free each and
 * *paths). None: *n 0. */
rt_status rt_ckpt_folder_files(const char *dir, char ***paths, int *n, rt_error *err);
/* Is one due after `steps` steps, by count (every > 0: steps a multiple of
 * every) or by time (every == 0)? Stops are for the kind to add. */
int rt_ckpt_plan_due(const rt_ckpt_plan *p, long steps);

#endif
