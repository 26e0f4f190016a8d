/* gp_ovr.c: the one-vs-rest driver ([gp] multiclass = one-vs-rest): for
 * each class c a binary sub-problem (same inputs, label y == c ? 1 : 0, two
 * classes, so round-to-class), evolved with the run's population,
 * generations and evaluator (CPU, or the GPU interpreter opened on the
 * sub-problem's cases), seeded by gp_ovr_seed(seed, c); then the combined
 * classifier (argmax of the K programs' outputs, gp_score.c) scored on the
 * training and held-out cases, and result.json / history.csv.
 *
 * Why nothing below the loop changes: a sub-problem is an ordinary 2-class
 * problem, so the evaluators, kernels and their CPU = GPU contract apply
 * as they are; only the label column differs.
 *
 * Checkpoints (gp_ckpt.h): before sub-problem c the driver puts a head in
 * the gp checkpoint (a tag, K, c and the results of sub-problems 0..c-1:
 * history, best program, totals), so every checkpoint the loop writes is
 * that head followed by sub-problem c's state in a round run's layout. A
 * resume reads the head back (the finished sub-problems' scores and
 * printed programs are recomputed from their best programs, which is
 * deterministic), continues sub-problem c from its state, and runs the rest
 * as the uninterrupted run would (each seeded by gp_ovr_seed(seed, c)). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kprep.h"
#include "cpu.h"
#include "gp.h"
#include "gp_ckpt.h"
#include "gp_conv.h"
#include "gp_gpu.h"
#include "comm.h"
#include "gp_ovr.h"
#include "gp_score.h"
#include "gp_simplify.h"
#include "log.h"
#include "out.h"
#include "rng.h"
#include "signals.h"

uint64_t gp_ovr_seed(uint64_t seed, int c)
{
	rt_rng r;
	rt_rng_init(&r, seed, GP_OVR_STREAM + (uint64_t)c);
	uint64_t hi = rt_rng_u32(&r);
	return hi << 32 | rt_rng_u32(&r);
}

rt_status gp_ovr_cases(const gp_cases *all, int c, gp_cases *bin, rt_error *err)
{
	*bin = *all;
	bin->nclasses = 2;
	bin->scale = 0;   /* classification: no linear scaling (gp_scale.h) */
	size_t bytes = ((all->stride ? all->stride : 1) * sizeof(float) + 63) / 64 * 64;
	bin->y = aligned_alloc(64, bytes);
	if (!bin->y) {
		memset(bin, 0, sizeof *bin);
		return rt_fail(err, RT_ERR_SYSTEM, "out of memory (one-vs-rest labels, %zu cases)",
			       all->ncases);
	}
	memset(bin->y, 0, bytes);
	for (size_t r = 0; r < all->ncases; r++)
		bin->y[r] = all->y[r] == (float)c ? 1.0f : 0.0f;
	return RT_OK;
}

void gp_ovr_cases_free(gp_cases *bin)
{
	free(bin->y);
	memset(bin, 0, sizeof *bin);
}

/* What the run keeps of each sub-problem. */
typedef struct ovr_sub {
	gp_result res;
	gp_score train, test;   /* the binary program on its 2-class cases */
	rt_buf infix, rpn, lgp, prefix;
	gp_simple simp;         /* the simplified formula (gp_simplify.h) */
} ovr_sub;

typedef struct ovr_run {
	const gp_problem *p;
	int k;
	int ndone;              /* sub-problems with a program (k unless a signal stopped the run) */
	gp_ckpt ckpt;           /* checkpoints and resume */
	ovr_sub *sub;
	gp_tree *progs;         /* the K best programs (copies of sub[c].res.best's nodes) */
	gp_score train, test;   /* the combined classifier */
	char device[256];
	int on_gpu;
} ovr_run;

static const char *class_name(const gp_problem *p, int c)
{
	return p->class_names && p->class_names[c] ? p->class_names[c] : "?";
}

/* Evolves sub-problem c on the backend --backend chooses (continuing from
 * the checkpoint resumed from, if any, which holds its state). */
static rt_status evolve_sub(ovr_run *o, const rt_options *opt, uint64_t seed, int c,
			    gp_problem *sub, rt_error *err)
{
	const gp_problem *p = o->p;
	long pos = 0;
	for (size_t r = 0; r < p->cases.ncases; r++)
		pos += p->cases.y[r] == (float)c;
	uint64_t sseed = gp_ovr_seed(seed, c);
	rt_info("one-vs-rest %d/%d: class %s against the rest (%ld of %zu training cases "
		"positive), seed %llu", c + 1, o->k, class_name(p, c), pos, p->cases.ncases,
		(unsigned long long)sseed);
	gp_gpu *gpu = NULL;
	sub->ckpt = &o->ckpt;
	rt_status st = gp_run_backend_open(sub, opt, &gpu, o->device, sizeof o->device, err);
	o->on_gpu = gpu != NULL;
	if (!st)
		st = gp_run_evolve(sub, sseed, gpu, &o->sub[c].res, err);
	gp_gpu_close(gpu);
	return st;
}

/* Sub-problem c: evolved (evolve) or as the checkpoint restored it, then its
 * best program scored on its 2-class cases. */
static rt_status run_sub(ovr_run *o, const rt_options *opt, uint64_t seed, int c, int evolve,
			 rt_error *err)
{
	const gp_problem *p = o->p;
	ovr_sub *s = &o->sub[c];
	gp_problem sub = *p;   /* shallow: only cases and test are its own */
	sub.ckpt = NULL;
	memset(&sub.test, 0, sizeof sub.test);
	rt_status st = gp_ovr_cases(&p->cases, c, &sub.cases, err);
	if (!st && p->test.ncases > 0)
		st = gp_ovr_cases(&p->test, c, &sub.test, err);
	if (!st && evolve)
		st = evolve_sub(o, opt, seed, c, &sub, err);
	if (!st)
		st = gp_score_program(&s->res.best, &sub.cases, &s->train, err);
	if (!st && sub.test.ncases > 0)
		st = gp_score_program(&s->res.best, &sub.test, &s->test, err);
	if (!st && (double)s->train.wrong != s->res.best_fitness)
		rt_warn("one-vs-rest class %s: the best program misclassifies %ld training cases on "
			"the CPU, but its fitness in the run was %.9g (a bug)", class_name(p, c),
			s->train.wrong, s->res.best_fitness);
	if (!st)
		rt_info("one-vs-rest %d/%d: class %s: best misclassified cases %.9g of %zu "
			"(generation %d, %d nodes)%s", c + 1, o->k, class_name(p, c),
			s->res.best_fitness, p->cases.ncases, s->res.best_generation, s->res.best.n,
			evolve ? "" : " (from the checkpoint)");
	gp_ovr_cases_free(&sub.cases);
	gp_ovr_cases_free(&sub.test);
	return st;
}

/* ---- checkpoints ---------------------------------------------------------------- */

/* The first field of a one-vs-rest state ("gp-ovr1", little-endian). */
#define OVR_CKPT_TAG 0x3172766f2d7067ull

/* The checkpoint's head for sub-problem c: the tag, K, c and the results of
 * sub-problems 0..c-1. */
static void ckpt_head(ovr_run *o, int c)
{
	rt_buf *h = &o->ckpt.head;
	rt_buf_free(h);
	rt_ckpt_put_u64(h, OVR_CKPT_TAG);
	rt_ckpt_put_u64(h, (uint64_t)o->k);
	rt_ckpt_put_u64(h, (uint64_t)c);
	for (int i = 0; i < c; i++)
		gp_ckpt_put_result(h, &o->sub[i].res);
}

/* The head of the checkpoint resumed from (none: *first = 0): the finished
 * sub-problems' results into o->sub; *first, the sub-problem whose state
 * follows (read by gp_ckpt_restore when it is evolved). */
static rt_status ckpt_restore_head(ovr_run *o, int *first, rt_error *err)
{
	rt_ckpt *from = &o->ckpt.plan.from;
	uint64_t tag, k, c;
	*first = 0;
	if (!from->data)
		return RT_OK;
	rt_status st = rt_ckpt_get_u64(from, &tag, err);
	if (!st && tag != OVR_CKPT_TAG)
		return rt_fail(err, RT_ERR_INPUT, "%s: not the checkpoint of a one-vs-rest run (a round "
			       "run's?); resume with the spec and options the run started with",
			       from->path);
	if (!st && !(st = rt_ckpt_get_u64(from, &k, err)) && k != (uint64_t)o->k)
		return rt_fail(err, RT_ERR_INPUT, "%s: a one-vs-rest run of %llu classes; the data has "
			       "%d", from->path, (unsigned long long)k, o->k);
	if (!st && !(st = rt_ckpt_get_u64(from, &c, err)) && c >= k)
		return rt_fail(err, RT_ERR_INPUT, "%s: sub-problem %llu of a run of %llu",
			       from->path, (unsigned long long)c, (unsigned long long)k);
	for (int i = 0; !st && i < (int)c; i++)
		st = gp_ckpt_get_result(from, &o->sub[i].res, o->p->generations + 1, err);
	if (!st) {
		*first = (int)c;
		rt_info("resuming from %s: one-vs-rest, %d of %d sub-problems finished", from->path,
			(int)c, o->k);
	}
	return st;
}

/* The combined classifier on the training (and test) cases, printed. */
static rt_status score_combined(ovr_run *o, rt_error *err)
{
	const gp_problem *p = o->p;
	rt_status st = gp_score_argmax(o->progs, o->k, &p->cases, &o->train, err);
	if (!st && p->test.ncases > 0)
		st = gp_score_argmax(o->progs, o->k, &p->test, &o->test, err);
	if (st)
		return st;
	rt_info("one-vs-rest: the argmax of %d programs misclassifies %ld of %zu training cases "
		"(accuracy %.6f)", o->k, o->train.wrong, o->train.ncases, o->train.accuracy);
	if (p->test.ncases > 0)
		gp_score_print(&o->train, &o->test, p->class_names);
	return RT_OK;
}

/* ---- results ------------------------------------------------------------------ */

static void json_history(rt_json *j, const ovr_run *o)
{
	rt_json_begin_array(j, "history");
	for (int c = 0; c < o->ndone; c++)
		for (int i = 0; i < o->sub[c].res.nhistory; i++) {
			const gp_gen_stats *h = &o->sub[c].res.history[i];
			rt_json_begin_object(j, NULL);
			rt_json_int(j, "class", c);
			rt_json_int(j, "generation", h->generation);
			rt_json_double(j, "best", h->best);
			rt_json_double(j, "mean", h->mean);
			rt_json_double(j, "mean_size", h->mean_size);
			rt_json_int(j, "best_size", h->best_size);
			rt_json_double(j, "eval_s", h->eval_s);
			rt_json_double(j, "gen_s", h->gen_s);
			rt_json_double(j, "gpops_eval", h->gpops_eval);
			rt_json_double(j, "gpops_gen", h->gpops_gen);
			rt_json_double(j, "host_s", h->host_s);
			rt_json_double(j, "device_s", h->device_s);
			rt_json_int(j, "nonfinite", h->nonfinite);
			rt_json_end_object(j);
		}
	rt_json_end_array(j);
}

static void json_totals(rt_json *j, const ovr_run *o, long *nodes)
{
	double gpop = 0, eval_s = 0, breed_s = 0, run_s = 0;
	long long programs = 0, gens = 0;
	*nodes = 0;
	for (int c = 0; c < o->ndone; c++) {
		const gp_result *r = &o->sub[c].res;
		gpop += r->gpop;
		eval_s += r->eval_s;
		breed_s += r->breed_s;
		run_s += r->run_s;
		programs += (long long)r->programs;
		gens += r->nhistory;
		*nodes += r->best.n;
	}
	rt_json_begin_object(j, "totals");
	rt_json_int(j, "generations", gens);
	rt_json_int(j, "programs", programs);
	rt_json_double(j, "gpop", gpop);
	rt_json_double(j, "eval_s", eval_s);
	rt_json_double(j, "breed_s", breed_s);
	rt_json_double(j, "run_s", run_s);
	rt_json_double(j, "gpops_eval", eval_s > 0 ? gpop / eval_s : 0);
	rt_json_double(j, "gpops_run", run_s > 0 ? gpop / run_s : 0);
	rt_json_bool(j, "solved", o->ndone == o->k && o->train.wrong == 0);
	rt_json_interrupted(j);
	rt_json_end_object(j);
	rt_startup_json(j);
}

/* result.json's "ovr": the K programs and the combined scores (a run
 * stopped by a signal before its last sub-problem: the programs so far). */
static void json_ovr(rt_json *j, const ovr_run *o)
{
	rt_json_begin_object(j, "ovr");
	rt_json_string(j, "scheme", "one-vs-rest");
	rt_json_begin_array(j, "programs");
	for (int c = 0; c < o->ndone; c++) {
		const ovr_sub *s = &o->sub[c];
		rt_json_begin_object(j, NULL);
		rt_json_int(j, "class", c);
		rt_json_string(j, "name", class_name(o->p, c));
		rt_json_double(j, "fitness", s->res.best_fitness);
		rt_json_int(j, "generation", s->res.best_generation);
		rt_json_int(j, "size", s->res.best.n);
		rt_json_int(j, "depth", gp_tree_depth(s->res.best.nodes, s->res.best.n));
		rt_json_double(j, "train_accuracy", s->train.accuracy);
		if (o->p->test.ncases > 0)
			rt_json_double(j, "test_accuracy", s->test.accuracy);
		rt_json_string(j, "infix", s->infix.data ? s->infix.data : "");
		rt_json_string(j, "simplified", s->simp.text.data ? s->simp.text.data : "");
		rt_json_int(j, "simplified_size", s->simp.size);
		rt_json_string(j, "rpn", s->rpn.data ? s->rpn.data : "");
		rt_json_string(j, "lgp", s->lgp.data ? s->lgp.data : "");
		rt_json_string(j, "prefix", s->prefix.data ? s->prefix.data : "");
		rt_json_end_object(j);
	}
	rt_json_end_array(j);
	if (o->ndone < o->k) {
		rt_json_int(j, "sub_problems_run", o->ndone);
		rt_json_end_object(j);
		return;
	}
	rt_json_double(j, "train_accuracy", o->train.accuracy);
	if (o->p->test.ncases > 0)
		rt_json_double(j, "test_accuracy", o->test.accuracy);
	rt_json_begin_object(j, "train");
	gp_score_json(j, &o->train);
	rt_json_end_object(j);
	rt_json_end_object(j);
}

static rt_status write_history_csv(const char *dir, const ovr_run *o, rt_error *err)
{
	rt_buf csv = {0};
	rt_buf_puts(&csv, "class,generation,best,mean,mean_size,best_size,eval_s,gen_s,gpops_eval,"
		    "gpops_gen,host_s,device_s,nonfinite\n");
	for (int c = 0; c < o->ndone; c++)
		for (int i = 0; i < o->sub[c].res.nhistory; i++) {
			const gp_gen_stats *h = &o->sub[c].res.history[i];
			rt_buf_printf(&csv, "%d,%d,%.9g,%.9g,%.4f,%d,%.6g,%.6g,%.6g,%.6g,%.6g,%.6g,%d\n",
				      c, h->generation, h->best, h->mean, h->mean_size, h->best_size,
				      h->eval_s, h->gen_s, h->gpops_eval, h->gpops_gen, h->host_s,
				      h->device_s, h->nonfinite);
		}
	rt_status st = rt_write_buf_atomic(dir, "history.csv", &csv, err);
	rt_buf_free(&csv);
	return st;
}

static rt_status write_results(const char *dir, const rt_spec *spec, const ovr_run *o,
			       uint64_t seed, rt_error *err)
{
	const gp_problem *p = o->p;
	char path[RT_PATH_MAX];
	long nodes;
	rt_json j;
	memset(&j, 0, sizeof j);
	rt_json_begin_object(&j, NULL);
	rt_json_string(&j, "kind", "gp");
	rt_json_string(&j, "problem", p->name);
	rt_json_string(&j, "spec", spec->path);
	rt_json_int(&j, "seed", (long long)seed);
	rt_json_string(&j, "multiclass", "one-vs-rest");
	rt_json_string(&j, "backend", o->on_gpu ? "gpu" : "cpu");
	rt_json_string(&j, "breeding", o->on_gpu && gp_breeds_on_device(o->p) ? "device" : "host");
	rt_json_string(&j, "device", o->device);
	rt_json_int(&j, "threads", cpu_threads());
	gp_json_params(&j, p);
	json_history(&j, o);
	json_totals(&j, o, &nodes);
	/* best: the combined classifier (its programs are in "ovr"). */
	rt_json_begin_object(&j, "best");
	rt_json_string(&j, "scheme", "one-vs-rest");
	if (o->ndone == o->k)
		rt_json_double(&j, "fitness", (double)o->train.wrong);
	rt_json_int(&j, "programs", o->ndone);
	rt_json_int(&j, "size", nodes);
	rt_json_end_object(&j);
	json_ovr(&j, o);
	if (p->test.ncases > 0 && o->ndone == o->k)
		gp_json_holdout(&j, p, &o->train, &o->test);
	rt_json_end_object(&j);
	rt_status st = rt_format(path, sizeof path, err, "%s/result.json", dir);
	if (!st)
		st = rt_json_write(&j, path, err);
	rt_buf_free(&j.buf);
	return st ? st : write_history_csv(dir, o, err);
}

static void ovr_free(ovr_run *o)
{
	for (int c = 0; o->sub && c < o->k; c++) {
		ovr_sub *s = &o->sub[c];
		gp_result_free(&s->res);
		gp_score_free(&s->train);
		gp_score_free(&s->test);
		rt_buf_free(&s->infix);
		rt_buf_free(&s->rpn);
		rt_buf_free(&s->lgp);
		rt_buf_free(&s->prefix);
		gp_simple_free(&s->simp);
	}
	free(o->sub);
	free(o->progs);   /* the nodes belong to sub[c].res.best */
	gp_score_free(&o->train);
	gp_score_free(&o->test);
	gp_ckpt_close(&o->ckpt);
}

/* The K sub-problems in turn (from the checkpoint's, when resumed); a
 * signal ends the loop after the current one. */
static rt_status run_subs(ovr_run *o, const rt_options *opt, uint64_t seed, rt_error *err)
{
	const gp_problem *p = o->p;
	gp_names nm = {p->cases.ninputs, (const char *const *)p->input_names};
	int first;
	rt_status st = ckpt_restore_head(o, &first, err);
	for (int c = 0; c < o->k && !st; c++) {
		ovr_sub *s = &o->sub[c];
		ckpt_head(o, c);
		if ((st = run_sub(o, opt, seed, c, c >= first, err)) ||
		    (st = gp_print_tree(&s->res.best, &nm, &s->infix, &s->rpn, &s->lgp, err)))
			break;
		gp_simple_free(&s->simp);
		if ((st = gp_simplify(s->res.best.nodes, s->res.best.n, &nm, &s->simp, err)))
			break;
		if (c == first)
			rt_ckpt_free(&o->ckpt.plan.from);   /* restored: the next ones start afresh */
		gp_print_prefix(&s->prefix, s->res.best.nodes, s->res.best.n);
		o->progs[c] = s->res.best;
		o->ndone = c + 1;
		rt_info("  class %s (infix): %s", class_name(p, c), s->infix.data ? s->infix.data : "");
		rt_info("  class %s (simplified, %d nodes): %s", class_name(p, c), s->simp.size,
			s->simp.text.data ? s->simp.text.data : "");
		if (rt_stop_requested() && o->ndone < o->k) {
			rt_warn("one-vs-rest: stopped after %d of %d sub-problems; the checkpoint in the "
				"results folder resumes the run (--resume)", o->ndone, o->k);
			break;
		}
	}
	return st;
}

rt_status gp_ovr_run(rt_spec *spec, const rt_options *opt, const gp_problem *p, uint64_t seed,
		     const char *dir, rt_error *err)
{
	ovr_run o;
	memset(&o, 0, sizeof o);
	o.p = p;
	o.k = p->cases.nclasses;
	o.sub = rt_calloc((size_t)o.k + 1, sizeof *o.sub, err);
	o.progs = o.sub ? rt_calloc((size_t)o.k + 1, sizeof *o.progs, err) : NULL;
	rt_status st = o.progs ? RT_OK : err->status;
	if (!st)
		st = gp_ckpt_open(&o.ckpt, spec, opt, dir, err);
	if (!st)
		rt_info("gp %s: one-vs-rest, %d binary sub-problems one after another on %zu cases%s, "
			"%d inputs; population %d, %d generations each; seed %llu", p->name, o.k,
			p->cases.ncases, p->test.ncases > 0 ? " (training)" : "", p->cases.ninputs,
			p->population, p->generations, (unsigned long long)seed);
	double t0 = rt_now();
	if (!st)
		st = run_subs(&o, opt, seed, err);
	if (!st)
		rt_info("one-vs-rest: %d evolutions in %.3f s", o.ndone, rt_now() - t0);
	if (!st && o.ndone == o.k)
		st = score_combined(&o, err);
	if (!st && rt_comm_rank() == 0)   /* rank 0 writes a job's results */
		st = write_results(dir, spec, &o, seed, err);
	if (!st)
		rt_info("results: %s/result.json, %s/history.csv", dir, dir);
	ovr_free(&o);
	return st;
}
