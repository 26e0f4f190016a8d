/* svm_ckpt.h: kind svm's checkpoints and resume (the file format is the
 * runtime's, checkpoint.h). A run solves binary problems (a model's
 * one-vs-one pairs; with [svm] folds or [grid], one model per (cell, fold));
 * each is named by (model, pair): model 0 for plain training, cell x folds
 * + fold for cross-validation and grids. The state is, for every problem
 * that has reached a checkpoint, its alpha, its gradient G, its iteration
 * count and whether it is finished. Nothing else carries from one SMO
 * iteration to the next (the kernel-row caches only save time; the working
 * pair is chosen from alpha and G), so a problem resumed from its state
 * goes on exactly as it would have, on either backend (with shrinking, or
 * with the batch solver, whose working set is not stored, it resumes
 * unshrunk / with a fresh set and reaches the same tolerance, not the same
 * bits), and a finished one
 * gives its model again without iterating. Problems are independent, so
 * each may be at its own iteration in one checkpoint.
 *
 * --checkpoint-every N: every N SMO iterations of each binary problem (and
 * when one finishes); 0: at most every 60 s; a SIGINT/SIGTERM stop writes
 * one in any case. The CPU solvers of a cross-validation may run in
 * parallel: the table is locked. */
#ifndef SVM_CKPT_H
#define SVM_CKPT_H
#include <pthread.h>

#include "checkpoint.h"
#include "svm_impl.h"

/* One binary problem's state. */
typedef struct svm_ckpt_entry {
	long model, pair, n, iterations;
	int done;
	double *alpha, *G;        /* [n] */
	svm_history hist;         /* its history.csv rows so far (every 0: none) */
	long nws, *ws;            /* the batch solver's last working set (nws 0: none) */
} svm_ckpt_entry;

typedef struct svm_ckpt {
	rt_ckpt_plan plan;        /* when checkpoints are written (resumes: the table below) */
	pthread_mutex_t lock;     /* over the table and the file */
	svm_ckpt_entry *e;
	long count, cap;
	int resumed;              /* the table came from --resume */
} svm_ckpt;

/* Sets ck up for a run of spec into dir as opt says (--checkpoint-every,
 * --resume: the checkpoint read, checked against spec, and its problems
 * loaded into the table). */
rt_status svm_ckpt_open(svm_ckpt *ck, const rt_spec *spec, const rt_options *opt, const char *dir,
			rt_error *err);
void svm_ckpt_close(svm_ckpt *ck);

/* The state of problem (model, pair) of n points, when the table has it:
 * alpha[n], G[n], *iterations, *done and (hist not NULL, already started)
 * its history filled and 1 returned; else 0. A state from a checkpoint
 * written before history.csv has no rows: the history then starts at its
 * iteration (said). */
int svm_ckpt_find(svm_ckpt *ck, long model, long pair, long n, double *alpha, double *G,
		  long *iterations, int *done, svm_history *hist);

/* Should a problem that has just made its iteration-th iteration be
 * recorded and the file written (count, time, or a stop requested)? */
int svm_ckpt_due(svm_ckpt *ck, long iteration);
/* Should a problem's finishing be written at once (with --checkpoint-every N)? */
int svm_ckpt_write_finished(const svm_ckpt *ck);

/* Records problem (model, pair)'s state (and hist, when not NULL) in the
 * table; then, with write, writes the checkpoint file from the whole table. */
rt_status svm_ckpt_record(svm_ckpt *ck, long model, long pair, long n, const double *alpha,
			  const double *G, long iterations, int done, const svm_history *hist,
			  int write, rt_error *err);
/* The same with the batch solver's last working set ws[0..q) (svm_batch.h:
 * the next set keeps its newer half, so a resume that has it goes on bit
 * for bit as the run would have). */
rt_status svm_ckpt_record_ws(svm_ckpt *ck, long model, long pair, long n, const double *alpha,
			     const double *G, long iterations, int done, const svm_history *hist,
			     const long *ws, long q, int write, rt_error *err);
/* The working set recorded for problem (model, pair) into ws[0..q): 1 when
 * the table has one of exactly q points, else 0. */
int svm_ckpt_find_ws(svm_ckpt *ck, long model, long pair, long *ws, long q);

#endif
