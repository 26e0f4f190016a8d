/* gp_ckpt.c: kind gp's checkpoint state, written and restored (gp_ckpt.h).
 * Layout: the head (gp_ckpt.head: a one-vs-rest run's finished
 * sub-problems, as gp_ovr.c writes them; nothing for a round run), then
 * generation, population size, each program's nodes, the fitness
 * array, the history entries, the best program, its fitness and generation,
 * solved, the totals, and the Pareto front (objectives, members; each
 * member's program, error and generation). Nodes and history entries are stored as this
 * machine lays them out (a checkpoint moves between little-endian x86-64
 * and ARM64 machines; the checksum catches anything else). */
#include <string.h>

#include "gp_ckpt.h"
#include "gp_front.h"
#include "islands.h"
#include "log.h"
#include "signals.h"

void gp_ckpt_put_tree(rt_buf *b, const gp_tree *t)
{
	rt_ckpt_put_u64(b, (uint64_t)t->n);
	rt_ckpt_put_bytes(b, t->nodes, (size_t)t->n * sizeof *t->nodes);
}

rt_status gp_ckpt_get_tree(rt_ckpt *ck, gp_tree *t, rt_error *err)
{
	uint64_t n;
	rt_status st = rt_ckpt_get_u64(ck, &n, err);
	if (st == RT_OK && (n < 1 || n > ((uint64_t)1 << 24)))
		return rt_fail(err, RT_ERR_INPUT, "%s: a program of %llu nodes", ck->path,
			       (unsigned long long)n);
	if (st == RT_OK)
		st = gp_tree_reserve(t, (int)n, err);
	if (st == RT_OK)
		st = rt_ckpt_get_bytes(ck, t->nodes, (size_t)n * sizeof *t->nodes, err);
	if (st == RT_OK)
		t->n = (int)n;
	return st;
}

/* The Pareto front ([gp] objectives, gp_front.h): objectives, members, and
 * each member's program, error and generation (0 members: none). */
static void put_front(rt_buf *b, const gp_front *f)
{
	rt_ckpt_put_u64(b, f ? (uint64_t)f->objectives : 0);
	rt_ckpt_put_u64(b, f ? (uint64_t)f->n : 0);
	for (int k = 0; f && k < f->n; k++) {
		gp_ckpt_put_tree(b, &f->m[k].tree);
		rt_ckpt_put_f64(b, f->m[k].error);
		rt_ckpt_put_u64(b, (uint64_t)f->m[k].generation);
	}
}

/* The front put_front wrote, rebuilt by offering its members again (they
 * are mutually non-dominated, so each joins). */
static rt_status get_front(rt_ckpt *from, gp_result *res, rt_error *err)
{
	uint64_t obj, n, gen;
	gp_tree t = {0};
	rt_status st = rt_ckpt_get_u64(from, &obj, err);
	if (!st)
		st = rt_ckpt_get_u64(from, &n, err);
	if (!st && (obj >= GP_OBJ_COUNT || n > ((uint64_t)1 << 24)))
		return rt_fail(err, RT_ERR_INPUT, "%s: a Pareto front of %llu members (objectives %llu)",
			       from->path, (unsigned long long)n, (unsigned long long)obj);
	if (!st && n > 0 && !res->front && !(res->front = rt_calloc(1, sizeof *res->front, err)))
		return err->status;
	if (res->front) {
		gp_front_free(res->front);
		res->front->objectives = (int)obj;
	}
	for (uint64_t k = 0; k < n && !st; k++) {
		double e;
		if (!(st = gp_ckpt_get_tree(from, &t, err)) && !(st = rt_ckpt_get_f64(from, &e, err)) &&
		    !(st = rt_ckpt_get_u64(from, &gen, err)))
			st = gp_front_offer(res->front, &t, e, (int)gen, NULL, err);
	}
	gp_tree_free(&t);
	return st;
}

void gp_ckpt_put_result(rt_buf *b, const gp_result *res)
{
	rt_ckpt_put_u64(b, (uint64_t)res->nhistory);
	rt_ckpt_put_bytes(b, res->history, (size_t)res->nhistory * sizeof *res->history);
	gp_ckpt_put_tree(b, &res->best);
	rt_ckpt_put_f64(b, res->best_fitness);
	rt_ckpt_put_u64(b, (uint64_t)(int64_t)res->best_generation);
	rt_ckpt_put_u64(b, (uint64_t)res->solved);
	rt_ckpt_put_u64(b, res->programs);
	rt_ckpt_put_f64(b, res->gpop);
	rt_ckpt_put_f64(b, res->eval_s);
	rt_ckpt_put_f64(b, res->breed_s);
	rt_ckpt_put_f64(b, res->run_s);
	put_front(b, res->front);
}

static rt_status save(gp_ckpt *ck, int g, const gp_tree *pop, const double *fit, int n,
		      const gp_result *res, rt_error *err)
{
	rt_buf b = {0};
	if (ck->head.len)
		rt_buf_append(&b, ck->head.data, ck->head.len);
	rt_ckpt_put_u64(&b, (uint64_t)g);
	rt_ckpt_put_u64(&b, (uint64_t)n);
	for (int i = 0; i < n; i++)
		gp_ckpt_put_tree(&b, &pop[i]);
	rt_ckpt_put_bytes(&b, fit, (size_t)n * sizeof *fit);
	gp_ckpt_put_result(&b, res);
	rt_status st = ck->isl ? rt_islands_save(ck->isl, &b, err) : RT_OK;
	if (!st)
		st = ck->head.failed ? rt_fail(err, RT_ERR_SYSTEM, "out of memory (checkpoint)")
				     : rt_ckpt_write(ck->plan.dir, "gp", ck->plan.spec, &b, err);
	rt_buf_free(&b);
	return st;
}

rt_status gp_ckpt_open(gp_ckpt *ck, const rt_spec *spec, const rt_options *opt, const char *dir,
		       rt_error *err)
{
	rt_status st = rt_ckpt_plan_open(&ck->plan, "gp", spec, opt->checkpoint_every, opt->resume,
					 dir, err);
	return st == RT_OK ? rt_mkdirs(dir, err) : st;
}

void gp_ckpt_close(gp_ckpt *ck)
{
	rt_ckpt_plan_close(&ck->plan);
	rt_buf_free(&ck->head);
}

int gp_ckpt_due(const gp_ckpt *ck, int g, int stopping)
{
	return rt_ckpt_plan_due(&ck->plan, g + 1) || stopping;
}

rt_status gp_ckpt_after_generation(gp_ckpt *ck, int g, const gp_tree *pop, const double *fit,
				   int n, const gp_result *res, int stopping, rt_error *err)
{
	if (!gp_ckpt_due(ck, g, stopping))
		return RT_OK;
	rt_status st = save(ck, g, pop, fit, n, res, err);
	if (st == RT_OK) {
		ck->plan.last = rt_now();
		rt_info("checkpoint: generation %d in %s/%s", g, ck->plan.dir, rt_ckpt_file_name());
	}
	return st;
}

/* The best program and totals that follow the history. */
static rt_status get_best_and_totals(rt_ckpt *from, gp_result *res, rt_error *err)
{
	uint64_t best_gen, solved;
	rt_status st = gp_ckpt_get_tree(from, &res->best, err);
	if (st == RT_OK)
		st = rt_ckpt_get_f64(from, &res->best_fitness, err);
	if (st == RT_OK && (st = rt_ckpt_get_u64(from, &best_gen, err)) == RT_OK &&
	    (st = rt_ckpt_get_u64(from, &solved, err)) == RT_OK) {
		res->best_generation = (int)(int64_t)best_gen;
		res->solved = (int)solved;
	}
	if (st == RT_OK)
		st = rt_ckpt_get_u64(from, &res->programs, err);
	if (st == RT_OK)
		st = rt_ckpt_get_f64(from, &res->gpop, err);
	if (st == RT_OK)
		st = rt_ckpt_get_f64(from, &res->eval_s, err);
	if (st == RT_OK)
		st = rt_ckpt_get_f64(from, &res->breed_s, err);
	if (st == RT_OK)
		st = rt_ckpt_get_f64(from, &res->run_s, err);
	if (st == RT_OK)
		st = get_front(from, res, err);
	return st;
}

/* The history into res->history (room for max_history entries, or
 * allocated here when res->history is NULL), then the best and totals. */
static rt_status get_result_into(rt_ckpt *from, gp_result *res, int max_history, rt_error *err)
{
	uint64_t nh;
	rt_status st = rt_ckpt_get_u64(from, &nh, err);
	if (st == RT_OK && (nh < 1 || nh > (uint64_t)max_history))
		return rt_fail(err, RT_ERR_INPUT, "%s: %llu generations in the history do not fit a run "
			       "of %d generations", from->path, (unsigned long long)nh,
			       max_history - 1);
	if (st == RT_OK && !res->history &&
	    !(res->history = rt_calloc((size_t)max_history, sizeof *res->history, err)))
		return RT_ERR_SYSTEM;
	if (st == RT_OK)
		st = rt_ckpt_get_bytes(from, res->history, (size_t)nh * sizeof *res->history, err);
	if (st == RT_OK) {
		res->nhistory = (int)nh;
		st = get_best_and_totals(from, res, err);
	}
	return st;
}

rt_status gp_ckpt_get_result(rt_ckpt *from, gp_result *res, int max_history, rt_error *err)
{
	memset(res, 0, sizeof *res);
	rt_status st = get_result_into(from, res, max_history, err);
	if (st != RT_OK)
		gp_result_free(res);
	return st;
}

rt_status gp_ckpt_restore(gp_ckpt *ck, gp_tree *pop, double *fit, int n, gp_result *res,
			  int max_history, int *next_generation, rt_error *err)
{
	rt_ckpt *from = &ck->plan.from;
	uint64_t g, saved_n;
	rt_status st = rt_ckpt_get_u64(from, &g, err);
	if (st == RT_OK && g >= (uint64_t)max_history)
		return rt_fail(err, RT_ERR_INPUT, "%s: generation %llu does not fit a run of %d "
			       "generations", from->path, (unsigned long long)g, max_history - 1);
	if (st == RT_OK)
		st = rt_ckpt_get_u64(from, &saved_n, err);
	if (st == RT_OK && saved_n != (uint64_t)n)
		return rt_fail(err, RT_ERR_INPUT, "%s: a population of %llu, the spec says %d",
			       from->path, (unsigned long long)saved_n, n);
	for (int i = 0; i < n && st == RT_OK; i++)
		st = gp_ckpt_get_tree(from, &pop[i], err);
	if (st == RT_OK)
		st = rt_ckpt_get_bytes(from, fit, (size_t)n * sizeof *fit, err);
	if (st == RT_OK)
		st = get_result_into(from, res, max_history, err);
	if (st == RT_OK && ck->isl)
		st = rt_islands_restore(ck->isl, from, err);
	if (st == RT_OK && from->pos != from->state_size)
		st = rt_fail(err, RT_ERR_INPUT, "%s: %zu bytes after the state", from->path,
			     from->state_size - from->pos);
	if (st == RT_OK) {
		*next_generation = (int)g + 1;
		rt_info("resuming from %s: generation %d done, best %.9g", from->path, (int)g,
			res->best_fitness);
	}
	return st;
}
