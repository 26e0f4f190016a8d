/* gp.c: kind `gp`: the generational loop (initialise, pack, evaluate,
 * report, breed), progress lines, and the results (result.json and
 * history.csv, written atomically).
 *
 * Timing: "eval" is the evaluator call alone; "gen" is everything that
 * produced and scored a generation (breeding it, packing it, evaluating it);
 * "run" is the wall time from initialisation to the last evaluation.
 *
 * Held-out set (gp_problem.h: [data] test / test_fraction): the loop sees
 * the training cases only; the best program so far is scored on the test
 * cases on the CPU whenever it changes (outside the timed generation) for
 * the progress line, and the run's best on both sets at the end for the
 * report and result.json's "holdout" (gp_score.h).
 *
 * [gp] multiclass = one-vs-rest: gp_run hands the loaded problem to
 * gp_ovr_run (gp_ovr.c), which runs this loop once per class. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend.h"
#include "comm.h"
#include "cpu.h"
#include "kprep.h"
#include "gp.h"
#include "gp_constopt.h"
#include "gp_conv.h"
#include "log.h"
#include "out.h"
#include "signals.h"

#include "gp_eval.h"
#include "gp_front.h"
#include "gp_gpu.h"
#include "gp_gpu_breed.h"
#include "gp_ovr.h"
#include "gp_scale.h"
#include "gp_score.h"
#include "gp_simplify.h"
#include "gp_tune.h"
#include "gp_ckpt.h"
#include "gp_islands.h"
#include "timeline.h"

static const char *const fitness_names[] = {"mse", "misclassified cases", "wrong cases"};

void gp_result_free(gp_result *r)
{
	free(r->history);
	gp_tree_free(&r->best);
	if (r->front)
		gp_front_free(r->front);
	free(r->front);
	memset(r, 0, sizeof *r);
}

static void free_pop(gp_tree *pop, int n)
{
	if (!pop)
		return;
	for (int i = 0; i < n; i++)
		gp_tree_free(&pop[i]);
	free(pop);
}

/* gp_evolve's evaluator: a gp_eval_fn with the problem's method. */
typedef struct method_eval {
	gp_eval_fn fn;
	int method;
} method_eval;

static rt_status eval_by_method(void *ctx, const gp_packed *pop, const gp_cases *cases,
				double *fitness, rt_error *err)
{
	const method_eval *m = ctx;
	return m->fn(pop, cases, m->method, fitness, err);
}

rt_status gp_evolve(const gp_problem *p, uint64_t seed, gp_eval_fn eval, gp_result *res,
		    rt_error *err)
{
	method_eval m = {eval, p->evaluator};
	gp_evaluator ev = {.eval = eval_by_method, .ctx = &m, .form = gp_eval_method_form(p->evaluator)};
	return gp_evolve_with(p, seed, &ev, res, err);
}

/* Evaluation of one generation in batches: a batch is bred (except in
 * generation 0), packed and handed to the evaluator; with an asynchronous
 * evaluator the next batch is bred while earlier ones are evaluated (at most
 * two in flight). Fitness lands at each batch's offset in `fit`. */
typedef struct gen_pass {
	const gp_evaluator *ev;
	int async, inflight, lo[2];   /* first program of the in-flight batches, oldest first */
	double host_s, device_s, wait_s;
	double nodes;
} gen_pass;

static rt_status pass_finish_one(gen_pass *gp, double *fit, rt_error *err)
{
	double dev = 0, t0 = rt_now();
	rt_status st = gp->ev->finish(gp->ev->ctx, fit + gp->lo[0], &dev, err);
	gp->wait_s += rt_now() - t0;
	gp->device_s += dev;
	gp->lo[0] = gp->lo[1];
	gp->inflight--;
	return st;
}

/* Packs pop[lo, hi) and evaluates it (or starts it). */
static rt_status pass_batch(gen_pass *gp, gp_packed *packed, const gp_tree *pop, int lo, int hi,
			    const gp_cases *cases, double *fit, rt_error *err)
{
	const gp_evaluator *ev = gp->ev;
	rt_status st;
	double t0 = rt_now();
	st = ev->form == GP_FORM_LGP ? gp_pack_lgp(packed, pop + lo, hi - lo, err)
				     : gp_pack_rpn(packed, pop + lo, hi - lo, err);
	if (st)
		return st;
	gp->nodes += (double)gp_packed_total_nodes(packed);
	double t1 = rt_now();
	gp->host_s += t1 - t0;
	if (!gp->async) {
		st = ev->eval(ev->ctx, packed, cases, fit + lo, err);
		gp->device_s += rt_now() - t1;
		return st;
	}
	if (gp->inflight == 2 && (st = pass_finish_one(gp, fit, err)))
		return st;
	double t2 = rt_now();
	if ((st = ev->start(ev->ctx, packed, cases, err)))
		return st;
	gp->host_s += rt_now() - t2;
	gp->lo[gp->inflight++] = lo;
	return RT_OK;
}

/* Waits for every batch in flight; err keeps the first failure's message. */
static rt_status pass_drain(gen_pass *gp, double *fit, rt_error *err)
{
	rt_status st = RT_OK;
	rt_error later;
	while (gp->inflight > 0) {
		rt_status s = pass_finish_one(gp, fit, st ? &later : err);
		if (s && !st)
			st = s;
	}
	return st;
}

/* "  test acc 0.9871" / "  test mse 0.00123": the best program so far on
 * the held-out cases (one program on the CPU; linear scaling: its line on
 * the training cases, gp_scale.h). */
static rt_status progress_test_score(const gp_problem *p, const gp_tree *best, char *note,
				     size_t size, rt_error *err)
{
	gp_score sc;
	gp_tree scaled = {0};
	rt_status st = gp_tree_copy(&scaled, best, err);
	if (!st && !(st = gp_scale_best(&p->cases, &scaled, NULL, NULL, err)))
		st = gp_score_program(&scaled, &p->test, &sc, err);
	gp_tree_free(&scaled);
	if (st)
		return st;
	if (sc.fitness == GP_FIT_CLASS)
		snprintf(note, size, "  test acc %.4f", sc.accuracy);
	else
		snprintf(note, size, "  test mse %.6g", sc.mse);
	gp_score_free(&sc);
	return RT_OK;
}

/* What a generation's report needs besides the fitness: when it started,
 * its host and device time, its nodes, and the held-out note so far. */
typedef struct gen_record {
	double t0, t_start;
	double host_s, device_s, nodes;
	int nonfinite;        /* programs whose fitness was NaN or infinite */
	char test_note[64];   /* the best program's test score, for the progress line */
	char front_note[64];  /* the Pareto front's size and best error ([gp] objectives) */
} gen_record;

/* Non-finite fitness is the worst (+inf): made so in fit, and counted
 * from the host's fitness array, so both backends count alike. */
static int count_nonfinite(double *fit, int n)
{
	int nonfinite = 0;
	for (int i = 0; i < n; i++) {
		if (isnan(fit[i]))
			fit[i] = INFINITY;
		nonfinite += isinf(fit[i]) != 0;
	}
	return nonfinite;
}

/* Generation g is evaluated (fit[n], sizes[n]): non-finite fitness made the
 * worst, the history line, the best so far (copied from cur, or from the
 * device breeder bd when cur is NULL), the progress line. */
static rt_status record_generation(const gp_problem *p, gp_result *res, int g, double *fit,
				   const uint32_t *sizes, int n, const gp_tree *cur,
				   gp_gpu_breeder *bd, gen_record *rec, rt_error *err)
{
	int nonfinite = rec->nonfinite, nfinite = 0;
	double sum = 0;
	for (int i = 0; i < n; i++) {
		if (isfinite(fit[i])) {
			sum += fit[i];
			nfinite++;
		}
	}
	double t2 = rt_now(), ncases = (double)p->cases.ncases, nodes = rec->nodes;
	gp_gen_stats *h = &res->history[res->nhistory++];
	int b = gp_best_index_sizes(fit, sizes, n, &p->breed);
	h->generation = g;
	h->nonfinite = nonfinite;
	h->best = fit[b];
	h->mean = nfinite ? sum / nfinite : INFINITY;
	h->mean_size = nodes / n;
	h->best_size = (int)sizes[b];
	h->eval_s = rec->device_s;
	h->gen_s = t2 - rec->t0;
	h->host_s = rec->host_s;
	h->device_s = rec->device_s;
	h->gpops_eval = h->eval_s > 0 ? nodes * ncases / h->eval_s : 0;
	h->gpops_gen = h->gen_s > 0 ? nodes * ncases / h->gen_s : 0;
	res->programs += (uint64_t)n;
	res->gpop += nodes * ncases;
	res->eval_s += rec->device_s;
	res->breed_s += rec->host_s;   /* packing counts with breeding (host work) */
	res->run_s = t2 - rec->t_start;
	rt_status st;
	if (fit[b] < res->best_fitness || res->best_generation < 0) {
		res->best_fitness = fit[b];
		res->best_generation = g;
		st = cur ? gp_tree_copy(&res->best, &cur[b], err) : gp_gpu_breeder_tree(bd, b, &res->best, err);
		if (st)
			return st;
	}
	res->solved = res->best_fitness <= p->success;
	if (p->test.ncases > 0 && res->best_generation == g &&
	    (st = progress_test_score(p, &res->best, rec->test_note, sizeof rec->test_note, err)))
		return st;
	char e1[32], e2[32], nf_note[32] = "";
	if (nonfinite > 0)
		snprintf(nf_note, sizeof nf_note, "  nonfinite %d", nonfinite);
	rt_info("gen %4d  best %-12.6g mean %-12.6g size %6.1f  eval %s GPop/s  gen %s GPop/s"
		"  host %.3f ms  eval %.3f ms  gen %.3f ms%s%s%s",
		g, h->best, h->mean, h->mean_size, rt_si(h->gpops_eval, e1, sizeof e1),
		rt_si(h->gpops_gen, e2, sizeof e2), h->host_s * 1e3, h->device_s * 1e3,
		h->gen_s * 1e3, nf_note, rec->front_note, rec->test_note);
	return RT_OK;
}

/* ---- multi-objective selection ([gp] objectives, gp_front.h) ---- */

/* The run's ranking state: on when objectives != error; nsga2: breeding
 * selects by the ranking's selection fitness (else by the error). */
typedef struct front_run {
	int on, nsga2;
	gp_front_gen g;
	gp_front *arch;   /* the result's front */
} front_run;

static rt_status fetch_host(void *ctx, int i, gp_tree *t, rt_error *err)
{
	return gp_tree_copy(t, &((const gp_tree *)ctx)[i], err);
}

static rt_status fetch_device(void *ctx, int i, gp_tree *t, rt_error *err)
{
	return gp_gpu_breeder_tree(ctx, i, t, err);
}

/* Generation g is evaluated: ranked, its front offered to the archive
 * (trees from cur, or from the device breeder bd when cur is NULL), the
 * progress line's note. */
static rt_status front_after_eval(front_run *fr, int g, const double *fit, const uint32_t *sizes,
				  const gp_tree *cur, gp_gpu_breeder *bd, gen_record *rec,
				  rt_error *err)
{
	if (!fr->on)
		return RT_OK;
	rt_status st = gp_front_rank(&fr->g, fit, sizes, cur, err);
	if (!st)
		st = cur ? gp_front_update(fr->arch, fit, fr->g.obj2, fr->g.rank, fr->g.n, g, fetch_host,
					   (void *)cur, err)
			 : gp_front_update(fr->arch, fit, fr->g.obj2, fr->g.rank, fr->g.n, g, fetch_device,
					   bd, err);
	if (!st && fr->arch->n > 0)
		snprintf(rec->front_note, sizeof rec->front_note, "  front %d best %.6g", fr->arch->n,
			 fr->arch->m[fr->arch->n - 1].error);
	return st;
}

/* The population changed outside evaluation (resumed, migrated): ranked
 * again for the next breeding (sizes from pop when given). */
static rt_status front_rerank(front_run *fr, const double *fit, uint32_t *sizes,
			      const gp_tree *pop, rt_error *err)
{
	if (!fr->on)
		return RT_OK;
	for (int i = 0; pop && i < fr->g.n; i++)
		sizes[i] = (uint32_t)pop[i].n;
	return gp_front_rank(&fr->g, fit, sizes, pop, err);
}

/* The size of member m's formula as the report gives it (a + b f when
 * scaled, simplified: gp_front_report's). */
static rt_status reported_size(const gp_problem *p, const gp_front_member *m, int *size,
			       rt_error *err)
{
	gp_tree t = {0};
	gp_simple s;
	memset(&s, 0, sizeof s);
	rt_status st = gp_tree_copy(&t, &m->tree, err);
	if (!st)
		st = gp_scale_best(&p->cases, &t, NULL, NULL, err);
	if (!st)
		st = gp_simplify(t.nodes, t.n, NULL, &s, err);
	if (!st)
		*size = s.size;
	gp_simple_free(&s);
	gp_tree_free(&t);
	return st;
}

/* The run's best becomes the front's choice (gp_front_choose), by the
 * sizes of the members' reported formulas. */
static rt_status front_choose_best(const gp_problem *p, gp_result *res, rt_error *err)
{
	double noise = p->cases.fitness == GP_FIT_MSE
			       ? GP_FRONT_NOISE_R2 * gp_front_target_var(&p->cases) : 0.0;
	for (int j = 0; res->front && j < res->front->n; j++) {
		gp_front_member *m = &res->front->m[j];
		rt_status st = reported_size(p, m, &m->reported_size, err);
		if (st != RT_OK)
			return st;
		m->unfaithful = !gp_constopt_faithful(&m->tree, &p->cases);
	}
	int k = res->front ? gp_front_choose(res->front, p->success, noise) : -1;
	if (k < 0)
		return RT_OK;
	const gp_front_member *m = &res->front->m[k];
	res->best_fitness = m->error;
	res->best_generation = m->generation;
	res->solved = m->error <= p->success;
	return gp_tree_copy(&res->best, &m->tree, err);
}

/* [gp] fit_front_steps: the constants of the front's members fitted
 * (gp_constopt_front, on the host whatever the backend) before the best is
 * chosen on it; without a front, the run's best program's. */
static rt_status fit_constants(const gp_problem *p, gp_result *res, rt_error *err)
{
	if (p->fit_front_steps <= 0 || p->cases.fitness != GP_FIT_MSE)
		return RT_OK;
	double t0 = rt_now(), mse;
	rt_status st = RT_OK;
	if (res->front) {
		res->fitted = res->front->n;
		st = gp_constopt_front(res->front, &p->cases, p->fit_front_steps, &res->fit_improved,
				       err);
	} else if (res->best.n > 0) {
		res->fitted = 1;
		st = gp_constopt_tree(&res->best, &p->cases, p->fit_front_steps, &mse, err);
		if (!st && mse < res->best_fitness) {
			res->fit_improved = 1;
			res->best_fitness = mse;
			res->solved = mse <= p->success;
		}
	}
	res->fit_s = rt_now() - t0;
	return st;
}

/* Does a solved run stop after generation g (stop_on_success)? At once
 * without a front; with one, polish_generations after the first generation
 * that solved it, so that the front can find smaller solving formulas. */
static int solved_stop(const gp_problem *p, const gp_result *res, int g)
{
	if (!res->solved || !p->stop_on_success)
		return 0;
	if (p->objectives == GP_OBJ_ERROR || p->polish_generations <= 0)
		return 1;
	int first = g;
	for (int k = 0; k < res->nhistory; k++)
		if (res->history[k].best <= p->success) {
			first = res->history[k].generation;
			break;
		}
	return g >= first + p->polish_generations;
}

/* Is the run over after generation g (a stop request aside)? */
static int run_over(const gp_problem *p, const gp_result *res, int g)
{
	return g == p->generations || solved_stop(p, res, g);
}

/* After generation g: the island model's migration when one is due (the
 * population and fitness may change), and *stop: the run ends here (over,
 * or a stop was requested; with islands when they agree). */
static rt_status island_step(const gp_problem *p, rt_islands *isl, int g, gp_tree *pop,
			     double *fit, const gp_result *res, int *stop, rt_error *err)
{
	int want = run_over(p, res, g), asked = rt_stop_requested();
	if (!rt_islands_due(isl, g)) {
		*stop = rt_islands_may_stop(isl, g, want, asked);
		return RT_OK;
	}
	return gp_islands_migrate(isl, g, pop, fit, p->population, want, asked, stop, err);
}

/* Is a checkpoint's stop due after generation g: with islands when they
 * stop (every rank at the same generation), else on a stop request. */
static int stopping(const rt_islands *isl, int stop)
{
	return rt_islands_stopping(isl, stop, rt_stop_requested());
}

/* The first generation: initialised, or the checkpoint's (*g_first then
 * the one to breed next; past the end if the run had ended). */
static rt_status first_generation(const gp_problem *p, uint64_t seed, gp_tree *cur, double *fit,
				  gp_result *res, int *g_first, rt_error *err)
{
	int n = p->population, ngen = p->generations + 1;
	rt_status st;
	*g_first = 0;
	if (p->ckpt && p->ckpt->plan.from.data) {
		/* resumed: generation g_first breeds from the checkpoint's population */
		if ((st = gp_ckpt_restore(p->ckpt, cur, fit, n, res, ngen, g_first, err)))
			return st;
		if (solved_stop(p, res, *g_first - 1))
			*g_first = ngen;
		return RT_OK;
	}
	return gp_init_population(cur, n, &p->fset, &p->breed, seed, err);
}

/* [gp] optimise_constants on the generation's best: on the device when
 * *gpu (its module built on the first call; if that fails, a warning and
 * the host from then on: *gpu becomes NULL), else on the host. */
static rt_status optimise_constants(const gp_problem *p, gp_constopt_gpu **gpu, gp_tree *cur,
				    double *fit, rt_error *err)
{
	int n = p->population, k = p->optimise_constants, steps = p->optimise_steps;
	if (*gpu) {
		rt_error e;
		if (gp_constopt_gpu_ready(*gpu, &e) == RT_OK)
			return gp_constopt_population_gpu(*gpu, cur, fit, n, k, &p->cases, steps, err);
		rt_warn("optimise_constants: the GPU's Levenberg-Marquardt is not available (%s); "
			"fitting constants on the host", e.msg);
		*gpu = NULL;
	}
	return gp_constopt_population(cur, fit, n, k, &p->cases, steps, err);
}

/* The loop with breeding on the host: each generation bred in ranges,
 * each range packed and handed to the evaluator while the next is bred. */
static rt_status evolve_host(const gp_problem *p, uint64_t seed, const gp_evaluator *ev,
			     rt_islands *isl, gp_result *res, gp_tree *cur, gp_tree *next, double *fit,
			     double *fit_next, uint32_t *sizes, front_run *fr, rt_error *err)
{
	int n = p->population, ngen = p->generations + 1, g_first;
	gen_pass gp = { ev, ev->start && ev->finish, 0, { 0, 0 }, 0, 0, 0, 0 };
	int nb = gp.async ? (ev->batches > 0 ? ev->batches : GP_EVOLVE_BATCHES) : 1;
	if (nb > n)
		nb = n > 0 ? n : 1;
	gp_packed packed;
	gp_packed_init(&packed);
	gp_constopt_gpu *copt = ev->constopt;
	gen_record rec = { .t_start = rt_now() };
	rt_status st = first_generation(p, seed, cur, fit, res, &g_first, err);
	rec.t_start -= res->run_s;
	double init_s = rt_now() - rec.t_start - res->run_s;
	if (!st && g_first > 0)
		st = front_rerank(fr, fit, sizes, cur, err);

	for (int g = g_first; g < ngen && !st; g++) {
		/* Generation g: cur (g == 0) or bred from cur / fit into next. */
		rec.t0 = g == 0 ? rec.t_start : rt_now();
		gp_tree *pop = g == 0 ? cur : next;
		double *pfit = g == 0 ? fit : fit_next;
		gp.host_s = g == 0 ? init_s : 0;
		gp.device_s = gp.wait_s = gp.nodes = 0;
		for (int k = 0; k < nb && !st; k++) {
			int lo = (int)((long long)n * k / nb), hi = (int)((long long)n * (k + 1) / nb);
			if (g > 0) {
				double tb = rt_now();
				st = gp_breed_range(next, cur, fr->nsga2 ? fr->g.sel : fit, n, lo, hi,
						    &p->fset, &p->breed, seed, g - 1, err);
				gp.host_s += rt_now() - tb;
			}
			if (!st)
				st = pass_batch(&gp, &packed, pop, lo, hi, &p->cases, pfit, err);
		}
		rt_error drain_err;
		rt_status sd = pass_drain(&gp, pfit, st ? &drain_err : err);
		if (!st)
			st = sd;
		if (st)
			break;
		if (g > 0) {
			gp_tree *tmp = cur;
			cur = next;
			next = tmp;
			double *ftmp = fit;
			fit = fit_next;
			fit_next = ftmp;
		}
		rec.nonfinite = count_nonfinite(fit, n);
		/* [gp] optimise_constants: the best programs' constants (on the
		 * device with the GPU backend, else on the host). */
		if (p->optimise_constants > 0) {
			double tc = rt_now();
			if ((st = optimise_constants(p, &copt, cur, fit, err)))
				break;
			gp.host_s += rt_now() - tc;
		}
		for (int i = 0; i < n; i++)
			sizes[i] = (uint32_t)cur[i].n;
		rec.host_s = gp.host_s;
		rec.device_s = gp.device_s;
		rec.nodes = gp.nodes;
		if ((st = front_after_eval(fr, g, fit, sizes, cur, NULL, &rec, err)) ||
		    (st = record_generation(p, res, g, fit, sizes, n, cur, NULL, &rec, err)))
			break;
		int stop;
		if ((st = island_step(p, isl, g, cur, fit, res, &stop, err)))
			break;
		if (rt_islands_due(isl, g) && (st = front_rerank(fr, fit, sizes, cur, err)))
			break;
		if (p->ckpt && (st = gp_ckpt_after_generation(p->ckpt, g, cur, fit, n, res,
								stopping(isl, stop), err)))
			break;
		if (stop)
			break;
	}
	if (gp.async && gp.inflight > 0) {
		rt_error e2;
		pass_drain(&gp, fit_next, &e2);
	}
	gp_packed_free(&packed);
	return st;
}

/* The loop with breeding on the device (ev->breeder): the host only reads
 * back each generation's fitness and sizes, picks the elite, and fetches
 * the best program when it improves and the population for a checkpoint. */
static rt_status evolve_device(const gp_problem *p, uint64_t seed, const gp_evaluator *ev,
			       rt_islands *isl, gp_result *res, gp_tree *pop, double *fit,
			       uint32_t *sizes, front_run *fr, rt_error *err)
{
	int n = p->population, ngen = p->generations + 1, g_first;
	gp_gpu_breeder *bd = ev->breeder;
	gen_record rec = { .t_start = rt_now() };
	rt_status st = first_generation(p, seed, pop, fit, res, &g_first, err);
	rec.t_start -= res->run_s;
	if (!st)
		st = gp_gpu_breeder_load(bd, pop, g_first > 0 ? fit : NULL, err);
	for (int i = 0; i < n; i++) {
		sizes[i] = (uint32_t)pop[i].n;   /* a resumed run's elite is chosen by them */
		gp_tree_free(&pop[i]);           /* the device holds the population from here on */
	}
	if (!st && g_first > 0)
		st = front_rerank(fr, fit, sizes, NULL, err);
	for (int g = g_first; g < ngen && !st; g++) {
		rec.t0 = g == 0 ? rec.t_start : rt_now();
		if (g > 0) {
			/* elite: the best of the last generation, as record_generation found it */
			int elite = p->breed.elitism ? gp_best_index_sizes(fit, sizes, n, &p->breed) : -1;
			if (fr->nsga2) {
				/* the host's elite and tournaments under rank and crowding */
				elite = p->breed.elitism ? gp_best_index_sizes(fr->g.sel, sizes, n, &p->breed) : -1;
				if ((st = gp_gpu_breeder_set_fitness(bd, fr->g.sel, err)))
					break;
			}
			if ((st = gp_gpu_breeder_breed(bd, seed, g - 1, elite, err)))
				break;
		}
		gp_gpu_stats gs;
		if ((st = gp_gpu_breeder_eval(bd, fit, sizes, &rec.nodes, &gs, err)))
			break;
		rec.nonfinite = count_nonfinite(fit, n);
		rec.device_s = gs.kernel_ms * 1e-3;
		rec.host_s = (rt_now() - rec.t0) - rec.device_s;   /* breeding kernels, transfers */
		if ((st = front_after_eval(fr, g, fit, sizes, NULL, bd, &rec, err)) ||
		    (st = record_generation(p, res, g, fit, sizes, n, NULL, bd, &rec, err)))
			break;
		int stop = 0;
		if (rt_islands_due(isl, g)) {
			/* the device hands the population over for the migration */
			rt_mark("migration: population to the host");
			if (!(st = gp_gpu_breeder_trees(bd, pop, err))) {
				rt_mark("migration: exchange");
				st = island_step(p, isl, g, pop, fit, res, &stop, err);
			}
			rt_mark("migration: population to the device");
			if (!st)
				st = gp_gpu_breeder_load(bd, pop, fit, err);
			rt_mark("migration: done");
			if (!st)
				st = front_rerank(fr, fit, sizes, pop, err);
			for (int i = 0; i < n; i++) {
				sizes[i] = (uint32_t)pop[i].n;
				gp_tree_free(&pop[i]);
			}
		} else {
			st = island_step(p, isl, g, NULL, fit, res, &stop, err);
		}
		if (!st && p->ckpt && gp_ckpt_due(p->ckpt, g, stopping(isl, stop))) {
			if (!(st = gp_gpu_breeder_trees(bd, pop, err)))
				st = gp_ckpt_after_generation(p->ckpt, g, pop, fit, n, res, 1, err);
			for (int i = 0; i < n; i++)
				gp_tree_free(&pop[i]);
		}
		if (st || stop)
			break;
	}
	return st;
}

rt_status gp_evolve_with(const gp_problem *p, uint64_t seed, const gp_evaluator *ev,
			 gp_result *res, rt_error *err)
{
	memset(res, 0, sizeof *res);
	res->best_fitness = INFINITY;
	res->best_generation = -1;
	size_t n = (size_t)p->population;
	gp_tree *cur = rt_calloc(n, sizeof *cur, err);
	gp_tree *next = cur ? rt_calloc(n, sizeof *next, err) : NULL;
	double *fit = next ? rt_malloc(n * sizeof *fit, err) : NULL;
	double *fit_next = fit ? rt_malloc(n * sizeof *fit, err) : NULL;
	uint32_t *sizes = fit_next ? rt_malloc(n * sizeof *sizes, err) : NULL;
	res->history = sizes ? rt_calloc((size_t)p->generations + 1, sizeof *res->history, err) : NULL;
	rt_islands *isl = NULL;
	rt_status st = res->history ? rt_islands_open(&p->islands, seed, p->generations, &isl, err)
				    : err->status;
	if (isl)   /* each island its own random streams */
		seed = rt_islands_seed(seed, rt_comm_rank());
	if (p->ckpt)
		p->ckpt->isl = isl;   /* the exchange's state goes into checkpoints */
	front_run fr = { p->objectives != GP_OBJ_ERROR,
			 p->objectives != GP_OBJ_ERROR && p->front_selection == GP_FRONT_NSGA2, {0}, NULL };
	if (!st && fr.on && !(st = gp_front_gen_open(&fr.g, (int)n, p->objectives, err)) &&
	    !(fr.arch = res->front = rt_calloc(1, sizeof *res->front, err)))
		st = err->status;
	if (fr.arch)
		fr.arch->objectives = p->objectives;
	rt_run_begins("gp");
	if (!st && ev->breeder)
		st = evolve_device(p, seed, ev, isl, res, cur, fit, sizes, &fr, err);
	else if (!st)
		st = evolve_host(p, seed, ev, isl, res, cur, next, fit, fit_next, sizes, &fr, err);
	rt_run_ends();
	gp_front_gen_free(&fr.g);
	if (!st)
		st = fit_constants(p, res, err);
	if (!st)
		st = front_choose_best(p, res, err);
	if (st) {
		rt_islands_free(isl);   /* no more messages: the job ends on this failure */
	} else if (isl) {
		if (!(st = rt_islands_close(isl, err)))
			st = gp_islands_share_best(res, err);
		rt_mark("gathered");
	}
	free_pop(cur, (int)n);
	free_pop(next, (int)n);
	free(fit);
	free(fit_next);
	free(sizes);
	if (st)
		gp_result_free(res);
	return st;
}

/* ---- results ----------------------------------------------------------------------- */

void gp_json_params(rt_json *j, const gp_problem *p)
{
	const gp_breed *b = &p->breed;
	rt_json_begin_object(j, "parameters");
	rt_json_int(j, "population", p->population);
	rt_json_int(j, "generations", p->generations);
	rt_json_int(j, "max_depth", b->max_depth);
	rt_json_int(j, "max_size", b->max_size);
	rt_json_int(j, "tournament", b->tournament);
	rt_json_double(j, "crossover", b->crossover);
	rt_json_double(j, "mutation", b->mutation);
	rt_json_double(j, "point_mutation", b->point_mutation);
	rt_json_double(j, "crossover_internal", b->crossover_internal);
	rt_json_bool(j, "elitism", b->elitism);
	rt_json_int(j, "init_min_depth", b->init_min_depth);
	rt_json_int(j, "init_max_depth", b->init_max_depth);
	rt_json_int(j, "mutation_depth", b->mutation_depth);
	rt_json_begin_array(j, "functions");
	for (int i = 0; i < p->fset.nfuncs; i++)
		rt_json_string(j, NULL, gp_op_name(p->fset.funcs[i]));
	for (int i = 0; i < p->fset.nnamed; i++)
		rt_json_string(j, NULL, gp_named_name(p->fset.named[i]));
	rt_json_end_array(j);
	if (p->fset.use_consts) {
		rt_json_begin_array(j, "constants");
		rt_json_double(j, NULL, p->fset.const_min);
		rt_json_double(j, NULL, p->fset.const_max);
		rt_json_end_array(j);
		rt_json_double(j, "const_prob", p->fset.const_prob);
	} else {
		rt_json_string(j, "constants", NULL);
	}
	rt_json_string(j, "parsimony", gp_parsimony_names[b->parsimony]);
	if (b->parsimony == GP_PARSIMONY_PENALTY)
		rt_json_double(j, "parsimony_coefficient", b->parsimony_coefficient);
	rt_json_int(j, "optimise_constants", p->optimise_constants);
	rt_json_int(j, "fit_front_steps", p->fit_front_steps);
	rt_json_bool(j, "linear_scaling", gp_scale_on(&p->cases));
	rt_json_int(j, "polish_generations", p->objectives != GP_OBJ_ERROR ? p->polish_generations : 0);
	rt_json_double(j, "success_threshold", p->success);
	rt_json_bool(j, "stop_on_success", p->stop_on_success);
	rt_json_string(j, "evaluator", gp_eval_method_name(p->evaluator));
	rt_json_end_object(j);

	rt_json_begin_object(j, "data");
	rt_json_string(j, "source", gp_data_source_name(p->source));
	if (p->data_path[0])
		rt_json_string(j, "file", p->data_path);
	rt_json_int(j, "cases", (long long)p->cases.ncases);
	rt_json_int(j, "inputs", p->cases.ninputs);
	rt_json_string(j, "fitness", fitness_names[p->cases.fitness]);
	rt_json_begin_array(j, "input_names");   /* the names export and eval read columns by */
	for (int i = 0; i < p->cases.ninputs; i++)
		rt_json_string(j, NULL, p->input_names ? p->input_names[i] : "");
	rt_json_end_array(j);
	if (p->label[0])
		rt_json_string(j, "label", p->label);
	if (p->cases.fitness == GP_FIT_CLASS) {
		rt_json_begin_array(j, "classes");
		for (int i = 0; i < p->cases.nclasses && p->class_names; i++)
			rt_json_string(j, NULL, p->class_names[i]);
		rt_json_end_array(j);
	}
	rt_json_end_object(j);
	if (p->islands.on)
		rt_islands_json(j, &p->islands);
}

/* result.json's "holdout": how the cases were split and the best program's
 * scores on the training and the test cases. */
void gp_json_holdout(rt_json *j, const gp_problem *p, const gp_score *train,
		     const gp_score *test)
{
	int cls = train->fitness == GP_FIT_CLASS;
	rt_json_begin_object(j, "holdout");
	if (p->test_path[0]) {
		rt_json_string(j, "split", "file");
		rt_json_string(j, "test_file", p->test_path);
	} else {
		rt_json_string(j, "split", cls ? "stratified" : "random");
		rt_json_double(j, "test_fraction", p->test_fraction);
		rt_json_int(j, "split_seed", (long long)p->split_seed);
	}
	rt_json_int(j, "train_cases", (long long)train->ncases);
	rt_json_int(j, "test_cases", (long long)test->ncases);
	rt_json_double(j, cls ? "train_accuracy" : "train_mse", cls ? train->accuracy : train->mse);
	rt_json_double(j, cls ? "test_accuracy" : "test_mse", cls ? test->accuracy : test->mse);
	if (cls) {
		rt_json_begin_array(j, "classes");
		for (int i = 0; i < p->cases.nclasses && p->class_names; i++)
			rt_json_string(j, NULL, p->class_names[i]);
		rt_json_end_array(j);
	}
	rt_json_begin_object(j, "train");
	gp_score_json(j, train);
	rt_json_end_object(j);
	rt_json_begin_object(j, "test");
	gp_score_json(j, test);
	rt_json_end_object(j);
	rt_json_end_object(j);
}

static rt_status write_results(const char *dir, const rt_spec *spec, const gp_problem *p,
			       uint64_t seed, const char *backend, const char *device,
			       const gp_result *r, const char *infix, const char *rpn,
			       const char *lgp, const gp_simple *simp, const gp_score *train,
			       const gp_score *test, const gp_front_row *front_rows, rt_error *err)
{
	char path[RT_PATH_MAX];
	rt_json j;
	rt_buf prefix = {0};
	memset(&j, 0, sizeof j);
	gp_print_prefix(&prefix, r->best.nodes, r->best.n);
	rt_json_begin_object(&j, NULL);
	rt_json_string(&j, "kind", "gp");
	rt_json_string(&j, "problem", p->name);
	rt_json_string(&j, "spec", spec->path);
	rt_json_int(&j, "seed", (long long)seed);
	rt_json_string(&j, "backend", backend);
	rt_json_string(&j, "breeding",
		       strcmp(backend, "gpu") == 0 && gp_breeds_on_device(p) ? "device" : "host");
	rt_json_string(&j, "device", device);
	rt_json_int(&j, "threads", cpu_threads());
	gp_json_params(&j, p);
	rt_json_begin_array(&j, "history");
	for (int i = 0; i < r->nhistory; i++) {
		const gp_gen_stats *h = &r->history[i];
		rt_json_begin_object(&j, NULL);
		rt_json_int(&j, "generation", h->generation);
		rt_json_double(&j, "best", h->best);
		rt_json_double(&j, "mean", h->mean);
		rt_json_double(&j, "mean_size", h->mean_size);
		rt_json_int(&j, "best_size", h->best_size);
		rt_json_double(&j, "eval_s", h->eval_s);
		rt_json_double(&j, "gen_s", h->gen_s);
		rt_json_double(&j, "gpops_eval", h->gpops_eval);
		rt_json_double(&j, "gpops_gen", h->gpops_gen);
		rt_json_double(&j, "host_s", h->host_s);
		rt_json_double(&j, "device_s", h->device_s);
		rt_json_int(&j, "nonfinite", h->nonfinite);
		rt_json_end_object(&j);
	}
	rt_json_end_array(&j);
	rt_json_begin_object(&j, "totals");
	rt_json_int(&j, "generations", r->nhistory);
	rt_json_int(&j, "programs", (long long)r->programs);
	rt_json_double(&j, "gpop", r->gpop);
	rt_json_double(&j, "eval_s", r->eval_s);
	rt_json_double(&j, "breed_s", r->breed_s);
	rt_json_double(&j, "host_ms_per_generation", r->nhistory ? r->breed_s * 1e3 / r->nhistory : 0);
	rt_json_double(&j, "eval_ms_per_generation", r->nhistory ? r->eval_s * 1e3 / r->nhistory : 0);
	rt_json_double(&j, "gen_ms_per_generation", r->nhistory ? r->run_s * 1e3 / r->nhistory : 0);
	rt_json_double(&j, "run_s", r->run_s);
	rt_json_double(&j, "gpops_eval", r->eval_s > 0 ? r->gpop / r->eval_s : 0);
	rt_json_double(&j, "gpops_run", r->run_s > 0 ? r->gpop / r->run_s : 0);
	rt_json_bool(&j, "solved", r->solved);
	rt_json_interrupted(&j);
	rt_json_end_object(&j);
	rt_startup_json(&j);
	rt_json_begin_object(&j, "best");
	rt_json_double(&j, "fitness", r->best_fitness);
	rt_json_int(&j, "generation", r->best_generation);
	rt_json_int(&j, "size", r->best.n);
	rt_json_int(&j, "depth", gp_tree_depth(r->best.nodes, r->best.n));
	rt_json_string(&j, "infix", infix);
	rt_json_string(&j, "simplified", simp->text.data ? simp->text.data : "");   /* gp_simplify.h */
	rt_json_int(&j, "simplified_size", simp->size);
	rt_json_string(&j, "rpn", rpn);
	rt_json_string(&j, "lgp", lgp);
	rt_json_string(&j, "prefix", prefix.data ? prefix.data : "");   /* exact, for export */
	rt_json_end_object(&j);
	if (test)
		gp_json_holdout(&j, p, train, test);
	if (r->front && front_rows) {
		rt_json_string(&j, "objectives", gp_objectives_names[p->objectives]);
		rt_json_string(&j, "front_selection", gp_front_selection_names[p->front_selection]);
		gp_front_json(&j, r->front, front_rows);
	}
	rt_json_end_object(&j);
	rt_status st = rt_format(path, sizeof path, err, "%s/result.json", dir);
	if (!st)
		st = rt_json_write(&j, path, err);
	rt_buf_free(&j.buf);
	rt_buf_free(&prefix);
	if (st)
		return st;

	rt_buf csv = {0};
	rt_buf_puts(&csv, "generation,best,mean,mean_size,best_size,eval_s,gen_s,gpops_eval,gpops_gen,"
		    "host_s,device_s,nonfinite\n");
	for (int i = 0; i < r->nhistory; i++) {
		const gp_gen_stats *h = &r->history[i];
		rt_buf_printf(&csv, "%d,%.9g,%.9g,%.4f,%d,%.6g,%.6g,%.6g,%.6g,%.6g,%.6g,%d\n",
			      h->generation, h->best, h->mean, h->mean_size, h->best_size, h->eval_s,
			      h->gen_s, h->gpops_eval, h->gpops_gen, h->host_s, h->device_s,
			      h->nonfinite);
	}
	st = rt_write_buf_atomic(dir, "history.csv", &csv, err);
	rt_buf_free(&csv);
	if (!st && r->front && front_rows)
		st = gp_front_write_csv(dir, r->front, front_rows, test != NULL, err);
	return st;
}

/* gp_evolve_with's evaluator on the GPU (cases are on the device since
 * gp_gpu_open): synchronous, and the asynchronous pair gp_evolve_with uses to
 * overlap breeding with evaluation. */
static rt_status eval_on_gpu(void *ctx, const gp_packed *pop, const gp_cases *cases,
			     double *fitness, rt_error *err)
{
	(void)cases;
	return gp_gpu_eval(ctx, pop, fitness, NULL, err);
}

static rt_status start_on_gpu(void *ctx, const gp_packed *pop, const gp_cases *cases,
			      rt_error *err)
{
	(void)cases;
	return gp_gpu_eval_start(ctx, pop, err);
}

static rt_status finish_on_gpu(void *ctx, double *fitness, double *device_s, rt_error *err)
{
	gp_gpu_stats s;
	rt_status st = gp_gpu_eval_finish(ctx, fitness, &s, err);
	*device_s = st == RT_OK ? s.kernel_ms * 1e-3 : 0.0;
	return st;
}

/* gp_evolve_with's evaluator on the CPU: the problem's method and block. */
typedef struct cpu_eval {
	int method;
	gp_eval_tuning tun;
} cpu_eval;

static rt_status eval_on_cpu(void *ctx, const gp_packed *pop, const gp_cases *cases,
			     double *fitness, rt_error *err)
{
	const cpu_eval *c = ctx;
	return gp_eval_cpu_tuned(pop, cases, c->method, &c->tun, fitness, err);
}

/* Chooses the backend (--backend) and, for the GPU, opens the interpreter
 * named by [gp] gpu_variant; names the device in `device`. */
rt_status gp_run_backend_open(const gp_problem *p, const rt_options *opt, gp_gpu **gpu,
			      char *device, int size, rt_error *err)
{
	rt_backend chosen;
	gp_gpu_config cfg;
	gpu_info info;
	rt_kprep *prep;
	char arch[16];
	rt_status st = rt_backend_select(opt->backend, &chosen, &info, err);
	*gpu = NULL;
	if (st)
		return st;
	if (chosen == RT_BACKEND_CPU) {
		cpu_model_name(device, (size_t)size);
		return RT_OK;
	}
	/* every kernel the run may need, compiling while the context opens */
	gpu_arch_name(&info, arch, sizeof arch);
	if ((st = rt_kprep_start(arch, &prep, err)) ||
	    (st = gp_kernels_of(p, rt_kprep_add, prep, err)) ||
	    (st = gp_gpu_variant_parse(p->gpu_variant, &cfg, err)) ||
	    (st = gp_gpu_open(&p->cases, &p->fset, &cfg, gpu, err)))
		return st;
	snprintf(device, (size_t)size, "%s", gp_gpu_device_name(*gpu, NULL));
	return RT_OK;
}

/* The run's best on the training and the test cases, printed; the
 * training count checked against the run's fitness (CPU or GPU evaluator:
 * counts agree exactly, invariant 3). */
static rt_status score_holdout(const gp_problem *p, const gp_result *r, gp_score *train,
			       gp_score *test, rt_error *err)
{
	rt_status st = gp_score_program(&r->best, &p->cases, train, err);
	if (!st)
		st = gp_score_program(&r->best, &p->test, test, err);
	if (st)
		return st;
	if (train->fitness == GP_FIT_CLASS && (double)train->wrong != r->best_fitness)
		rt_warn("the best program misclassifies %ld training cases on the CPU, but its "
			"fitness in the run was %.9g (the evaluators disagree: a bug)", train->wrong,
			r->best_fitness);
	gp_score_print(train, test, p->class_names);
	return RT_OK;
}

int gp_breeds_on_device(const gp_problem *p)
{
	gp_gpu_config cfg;
	rt_error err;
	return !p->breed_on_host && p->optimise_constants == 0 &&
	       p->objectives != GP_OBJ_ERROR_COMPLEXITY &&
	       gp_gpu_variant_parse(p->gpu_variant, &cfg, &err) == RT_OK && cfg.form == GP_FORM_LGP;
}

rt_status gp_run_evolve(const gp_problem *p, uint64_t seed, gp_gpu *gpu, gp_result *r,
			rt_error *err)
{
	if (gpu) {
		/* EVOFORGE_GP_BATCHES: offspring ranges per generation (1: no overlap). */
		const char *nb = getenv("EVOFORGE_GP_BATCHES");
		gp_evaluator ev = {eval_on_gpu, gpu, gp_gpu_form(gpu), start_on_gpu, finish_on_gpu,
				   nb ? atoi(nb) : 0, NULL, NULL};
		rt_status st;
		if (gp_breeds_on_device(p) && (st = gp_gpu_breeder_open(gpu, &p->cases, &p->fset, &p->breed, p->population,
					      &ev.breeder, err)))
			return st;
		/* EVOFORGE_GP_LM_HOST=1: constants fitted on the host (comparisons) */
		const char *lm_host = getenv("EVOFORGE_GP_LM_HOST");
		if (p->optimise_constants > 0 && p->cases.fitness == GP_FIT_MSE &&
		    !(lm_host && atoi(lm_host)) && (st = gp_constopt_gpu_open(&p->cases, &ev.constopt, err))) {
			gp_gpu_breeder_close(ev.breeder);
			return st;
		}
		st = gp_evolve_with(p, seed, &ev, r, err);
		gp_constopt_gpu_close(ev.constopt);
		gp_gpu_breeder_close(ev.breeder);
		return st;
	}
	cpu_eval ce = {p->evaluator, {p->cpu_block, 0, 0}};
	gp_evaluator ev = {.eval = eval_on_cpu, .ctx = &ce, .form = gp_eval_method_form(p->evaluator)};
	return gp_evolve_with(p, seed, &ev, r, err);
}

static rt_status gp_run(rt_spec *spec, const rt_options *opt, rt_error *err)
{
	uint64_t seed;
	gp_problem p;
	gp_result r;
	char dir[RT_PATH_MAX], device[256];
	rt_buf inf = {0}, rpn = {0}, lgp = {0};
	gp_front_row *front_rows = NULL;
	gp_simple simp;
	memset(&simp, 0, sizeof simp);
	memset(&r, 0, sizeof r);
	if (rt_job_seed(spec, opt, &seed, err))
		return err->status;
	double t0 = rt_now();
	if (gp_problem_load_seed(spec, seed, &p, err))
		return err->status;
	gp_score train_sc, test_sc;
	memset(&train_sc, 0, sizeof train_sc);
	memset(&test_sc, 0, sizeof test_sc);
	gp_gpu *gpu = NULL;
	gp_ckpt ck;
	memset(&ck, 0, sizeof ck);
	rt_options ranks_opt;   /* several MPI ranks: islands, no checkpoints */
	rt_status st = rt_islands_required("gp", &p.islands, spec->path, err);
	if (!st)
		st = rt_ckpt_ranks_options("gp", p.islands.on ? RT_CKPT_RANKS_EACH : RT_CKPT_RANKS_REFUSE, &opt, &ranks_opt, err);
	if (!st)
		st = rt_job_outdir(opt, p.name, dir, sizeof dir, err);
	if (!st && p.multiclass == GP_MULTICLASS_OVR) {
		st = gp_ovr_run(spec, opt, &p, seed, dir, err);   /* K sub-problems, reported */
		goto out;
	}
	if (!st)
		st = gp_run_backend_open(&p, opt, &gpu, device, sizeof device, err);
	if (st)
		goto out;
	gp_names nm = {p.cases.ninputs, (const char *const *)p.input_names};
	char fs[256] = "";
	for (int i = 0; i < p.fset.nfuncs; i++) {
		size_t len = strlen(fs);
		snprintf(fs + len, sizeof fs - len, "%s%s", i ? " " : "", gp_op_name(p.fset.funcs[i]));
	}
	for (int i = 0; i < p.fset.nnamed; i++) {
		size_t len = strlen(fs);
		snprintf(fs + len, sizeof fs - len, " %s", gp_named_name(p.fset.named[i]));
	}
	char how[400];
	if (gpu)
		snprintf(how, sizeof how, "gpu %s (%s interpreter)", device, p.gpu_variant);
	else
		snprintf(how, sizeof how, "cpu (%d threads, %s evaluator)", cpu_threads(),
			 gp_eval_method_name(p.evaluator));
	char held[RT_PATH_MAX + 64] = "";
	if (p.test.ncases > 0 && p.test_path[0])
		snprintf(held, sizeof held, " (training; %zu test cases from %s)", p.test.ncases,
			 p.test_path);
	else if (p.test.ncases > 0)
		snprintf(held, sizeof held, " (training; %zu held out, test_fraction %g, %s)",
			 p.test.ncases, p.test_fraction,
			 p.cases.fitness == GP_FIT_CLASS ? "stratified by class" : "random");
	rt_info("gp %s: %zu cases%s, %d inputs, fitness %s; population %d, %d generations, "
		"functions %s; seed %llu; %s; ready in %.2f s",
		p.name, p.cases.ncases, held, p.cases.ninputs, fitness_names[p.cases.fitness],
		p.population, p.generations, fs, (unsigned long long)seed, how, rt_now() - t0);

	if ((st = gp_ckpt_open(&ck, spec, opt, dir, err)))
		goto out;
	p.ckpt = &ck;
	if ((st = gp_run_evolve(&p, seed, gpu, &r, err)))
		goto out;
	if (r.fitted > 0)
		rt_info("constants fitted (Levenberg-Marquardt, %d trials): %d of %d %s improved, "
			"%.3f s", p.fit_front_steps, r.fit_improved, r.fitted,
			r.front ? "front members" : "programs", r.fit_s);
	double ls_a, ls_b;   /* linear scaling: the best as a + b*f from here on (gp_scale.h) */
	if ((st = gp_scale_best(&p.cases, &r.best, &ls_a, &ls_b, err)))
		goto out;
	if (gp_scale_on(&p.cases))
		rt_info("linear scaling: best = %.9g + %.9g * (program)", ls_a, ls_b);
	if ((st = gp_print_tree(&r.best, &nm, &inf, &rpn, &lgp, err)) ||
	    (st = gp_simplify(r.best.nodes, r.best.n, &nm, &simp, err)))
		goto out;
	char e1[32], e2[32];
	rt_info("%s after %d generations: best %s %.9g (generation %d, %d nodes)%s",
		r.solved ? "solved" : "done", r.nhistory, fitness_names[p.cases.fitness],
		r.best_fitness, r.best_generation, r.best.n, r.solved ? "" : "; not solved");
	rt_info("totals: %.3f s run, %.3f s evaluating, %.3f s host (breeding, packing); "
		"per generation %.3f ms host, %.3f ms evaluating, %.3f ms wall; %s GPop/s evaluation, "
		"%s GPop/s whole run", r.run_s, r.eval_s, r.breed_s,
		r.nhistory ? r.breed_s * 1e3 / r.nhistory : 0.0,
		r.nhistory ? r.eval_s * 1e3 / r.nhistory : 0.0,
		r.nhistory ? r.run_s * 1e3 / r.nhistory : 0.0,
		rt_si(r.eval_s > 0 ? r.gpop / r.eval_s : 0, e1, sizeof e1),
		rt_si(r.run_s > 0 ? r.gpop / r.run_s : 0, e2, sizeof e2));
	rt_info("best (infix): %s", inf.data ? inf.data : "");
	rt_info("best (LGP):   %s", lgp.data ? lgp.data : "");
	rt_info("best (simplified, %d nodes): %s", simp.size, simp.text.data ? simp.text.data : "");
	if (p.test.ncases > 0 && (st = score_holdout(&p, &r, &train_sc, &test_sc, err)))
		goto out;
	if (r.front) {
		if ((st = gp_front_report(r.front, &p.cases, &p.test, &nm, &front_rows, err)))
			goto out;
		rt_info("Pareto front (%s, %s selection): %d members; best: the %s within %g %% of the "
			"lowest error", gp_objectives_names[p.objectives],
			gp_front_selection_names[p.front_selection], r.front->n,
			p.objectives == GP_OBJ_ERROR_COMPLEXITY ? "least complex" : "smallest",
			GP_FRONT_BEST_TOLERANCE * 100);
		for (int k = 0; k < r.front->n; k++)
			rt_info("  size %3d  complexity %3d  train mse %-12.6g r2 %-9.6f  %s",
				r.front->m[k].size, r.front->m[k].complexity, front_rows[k].train_error,
				front_rows[k].train_r2, front_rows[k].simplified);
	}
	if (rt_comm_rank() != 0)   /* rank 0 writes a job's results */
		goto out;
	st = write_results(dir, spec, &p, seed, gpu ? "gpu" : "cpu", device, &r, inf.data ? inf.data : "",
			   rpn.data ? rpn.data : "", lgp.data ? lgp.data : "", &simp, &train_sc,
			   p.test.ncases > 0 ? &test_sc : NULL, front_rows, err);
	if (!st)
		rt_info("results: %s/result.json, %s/history.csv%s", dir, dir,
			r.front ? ", front.csv" : "");
out:
	gp_ckpt_close(&ck);
	gp_score_free(&train_sc);
	gp_score_free(&test_sc);
	gp_gpu_close(gpu);
	rt_buf_free(&inf);
	rt_buf_free(&rpn);
	rt_buf_free(&lgp);
	gp_simple_free(&simp);
	if (r.front)
		gp_front_rows_free(front_rows, r.front->n);
	gp_result_free(&r);
	gp_problem_free(&p);
	return st;
}

const rt_kind gp_kind = {
	"gp",
	"tree genetic programming evaluated as linear GP on a two-dimensional stack",
	gp_run,
	gp_gen_sources,
	gp_bench_main,
	gp_bench_help,
	NULL,
	&gp_tune_kind,
	gp_export_result,
	gp_eval_result,
	gp_build_kernels,
	"generations",
	1,
	gp_generic_kernels,
};
