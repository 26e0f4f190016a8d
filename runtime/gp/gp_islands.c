/* gp_islands.c: kind gp's side of the island model (islands.h). At a
 * migration the emigrants the model picks are packed as programs with their
 * fitness (checkpoint layout, gp_ckpt.h) and the immigrants unpacked into the
 * places it picks; at the end every rank takes the best island's result.
 * The same functions serve breeding on the host and on the device (which
 * hands the population over for the migration). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "comm.h"
#include "gp_ckpt.h"
#include "gp_islands.h"

/* The emigrants of pop / fit as a package in b: count, then (fitness, program). */
static rt_status pack_emigrants(rt_islands *isl, int g, const gp_tree *pop, const double *fit,
				int n, rt_buf *b, rt_error *err)
{
	int *idx = rt_malloc((size_t)n * sizeof *idx, err), k;
	if (!idx)
		return err->status;
	rt_status st = rt_islands_pick_emigrants(isl, g, fit, n, idx, &k, err);
	if (!st) {
		rt_ckpt_put_u64(b, (uint64_t)k);
		for (int i = 0; i < k; i++) {
			rt_ckpt_put_f64(b, fit[idx[i]]);
			gp_ckpt_put_tree(b, &pop[idx[i]]);
		}
	}
	free(idx);
	return st;
}

/* The immigrants of every package, in order, into trees / fits (*count). */
static rt_status unpack(const rt_islands_inbox *in, gp_tree **trees, double **fits, int *count,
			rt_error *err)
{
	int total = 0, cap = 0;
	rt_status st = RT_OK;
	*trees = NULL;
	*fits = NULL;
	for (int s = 0; s < in->n && !st; s++) {
		rt_ckpt r = { .state = in->pkg[s], .state_size = in->bytes[s] };
		snprintf(r.path, sizeof r.path, "migration package %d of %d", s + 1, in->n);
		uint64_t k;
		if ((st = rt_ckpt_get_u64(&r, &k, err)))
			break;
		if (k > in->bytes[s] / 16) {
			st = rt_fail(err, RT_ERR_INPUT, "%s: %llu programs in %zu bytes", r.path,
				     (unsigned long long)k, in->bytes[s]);
			break;
		}
		if (total + (int)k > cap) {
			cap = total + (int)k;
			gp_tree *t = realloc(*trees, (size_t)cap * sizeof *t + 1);
			double *f = t ? realloc(*fits, (size_t)cap * sizeof *f + 1) : NULL;
			if (t)
				*trees = t;
			if (f)
				*fits = f;
			if (!t || !f) {
				st = rt_fail(err, RT_ERR_SYSTEM, "out of memory for %d immigrants", cap);
				break;
			}
		}
		for (uint64_t i = 0; i < k && !st; i++) {
			memset(&(*trees)[total], 0, sizeof **trees);
			total++;   /* counted from here on, to be freed */
			if (!(st = rt_ckpt_get_f64(&r, &(*fits)[total - 1], err)))
				st = gp_ckpt_get_tree(&r, &(*trees)[total - 1], err);
		}
	}
	*count = total;
	return st;
}

/* Immigrants take the places the model picks in pop / fit. */
static rt_status take_immigrants(rt_islands *isl, int g, const rt_islands_inbox *in, gp_tree *pop,
				 double *fit, int n, rt_error *err)
{
	gp_tree *trees;
	double *fits;
	int count, *idx = NULL, k = 0;
	rt_status st = unpack(in, &trees, &fits, &count, err);
	if (!st && count > 0 && !(idx = rt_malloc((size_t)count * sizeof *idx, err)))
		st = err->status;
	if (!st && count > 0)
		st = rt_islands_pick_places(isl, g, fit, n, count, idx, &k, err);
	for (int i = 0; i < k && !st; i++) {
		st = gp_tree_copy(&pop[idx[i]], &trees[i], err);
		fit[idx[i]] = fits[i];
	}
	for (int i = 0; i < count; i++)
		gp_tree_free(&trees[i]);
	free(trees);
	free(fits);
	free(idx);
	return st;
}

rt_status gp_islands_migrate(rt_islands *isl, int g, gp_tree *pop, double *fit, int n,
			     int want_stop, int stop_requested, int *stop, rt_error *err)
{
	rt_buf out = { 0 };
	rt_islands_inbox in = { 0 };
	rt_status st = pack_emigrants(isl, g, pop, fit, n, &out, err);
	if (!st)
		st = rt_islands_migrate(isl, g, out.data, out.len, want_stop, stop_requested, &in, stop,
					 err);
	rt_buf_free(&out);
	if (!st)
		st = take_immigrants(isl, g, &in, pop, fit, n, err);
	rt_islands_inbox_free(&in);
	return st;
}

/* The best island's result (best program, fitness, generation, solved) on
 * every rank; the totals (programs, GPop) summed over the islands and the
 * times the longest. */
rt_status gp_islands_share_best(gp_result *res, rt_error *err)
{
	if (rt_comm_size() == 1)
		return RT_OK;
	long long programs = (long long)res->programs;
	rt_status st;
	if ((st = rt_comm_sum_ll(&programs, err)) || (st = rt_comm_sum_double(&res->gpop, err)) ||
	    (st = rt_comm_max_double(&res->eval_s, err)) ||
	    (st = rt_comm_max_double(&res->breed_s, err)) ||
	    (st = rt_comm_max_double(&res->run_s, err)))
		return st;
	res->programs = (uint64_t)programs;
	rt_buf b = { 0 };
	rt_ckpt_put_f64(&b, res->best_fitness);
	rt_ckpt_put_u64(&b, (uint64_t)(int64_t)res->best_generation);
	rt_ckpt_put_u64(&b, (uint64_t)res->solved);
	gp_ckpt_put_tree(&b, &res->best);
	rt_ckpt r;
	int got;
	st = b.failed ? rt_fail(err, RT_ERR_SYSTEM, "out of memory (the best island's result)")
		      : rt_islands_take_best(res->best_fitness, &b, "the best island's result", &r, &got, err);
	if (!st && got) {
		uint64_t gen = 0, solved = 0;
		if (!(st = rt_ckpt_get_f64(&r, &res->best_fitness, err)) &&
		    !(st = rt_ckpt_get_u64(&r, &gen, err)) && !(st = rt_ckpt_get_u64(&r, &solved, err)))
			st = gp_ckpt_get_tree(&r, &res->best, err);
		res->best_generation = (int)(int64_t)gen;
		res->solved = (int)solved;
		rt_ckpt_free(&r);
	}
	rt_buf_free(&b);
	return st;
}
