/* gp_breed_driver.c: GP breeding on the GPU against the host, on a GPU
 * machine (tools/device-check runs it). For each GP spec given, a ramped
 * population of --population programs with random fitness (ties, NaN and
 * inf among them) is bred for --generations generations both ways: every
 * child the device writes must equal the host's gp_breed_generation child
 * node for node, the depths the device keeps beside its nodes must be the
 * trees' depths, and the device-encoded population's fitness must equal
 * the fitness of the host-packed population on the same interpreter, bit
 * for bit. Prints one table row per spec, with the mean milliseconds per
 * generation of each breeding kernel (each timed alone, a sync after it)
 * and of the evaluation; exits 1 on any difference.
 *   gp_breed_driver [--population N] [--generations G] SPEC... */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gp/gp_conv.h"
#include "log.h"
#include "gp/gp_gpu.h"
#include "gp/gp_gpu_breed.h"
#include "gp/gp_problem.h"
#include "gp/gp_tree.h"
#include "rng.h"
#include "spec.h"

typedef struct check {
	int children, tree_diffs, depth_diffs, fit_diffs, generations;
	double breed_ms, eval_ms, kernel_ms[3];
} check;

static void random_fitness(double *fit, int n, uint64_t seed)
{
	rt_rng rng;
	rt_rng_init(&rng, seed, 7);
	for (int i = 0; i < n; i++) {
		uint32_t r = rt_rng_below(&rng, 25);
		fit[i] = r == 0 ? NAN : r == 1 ? INFINITY : (double)rt_rng_below(&rng, 50);
	}
}

static int same_tree(const gp_tree *a, const gp_tree *b)
{
	return a->n == b->n && memcmp(a->nodes, b->nodes, (size_t)a->n * sizeof(gp_node)) == 0;
}

/* One generation: host and device breed from cur (fitness fit); the device's
 * children are compared, then evaluated both ways and compared. */
static rt_status one_generation(const gp_problem *p, gp_gpu *gpu, gp_gpu_breeder *bd, gp_tree *cur,
				gp_tree *next, gp_tree *dev, double *fit, int g, check *c,
				rt_error *err)
{
	int n = p->population;
	uint32_t *sizes = malloc((size_t)n * sizeof *sizes);
	double *hfit = malloc((size_t)n * sizeof *hfit), *dfit = malloc((size_t)n * sizeof *dfit);
	gp_packed pk;
	gp_packed_init(&pk);
	rt_status st = sizes && hfit && dfit ? RT_OK : rt_fail(err, RT_ERR_SYSTEM, "out of memory");
	for (int i = 0; i < n && !st; i++) {
		hfit[i] = isnan(fit[i]) ? INFINITY : fit[i];
		sizes[i] = (uint32_t)cur[i].n;
	}
	int elite = p->breed.elitism ? gp_best_index_sizes(hfit, sizes, n, &p->breed) : -1;
	uint64_t seed = 4242;
	double t0 = rt_now();
	if (!st)
		st = gp_breed_generation(next, cur, hfit, n, &p->fset, &p->breed, seed, g, err);
	double t1 = rt_now();
	if (!st && !(st = gp_gpu_breeder_breed(bd, seed, g, elite, err)))
		st = gp_gpu_breeder_trees(bd, dev, err);
	c->breed_ms += (rt_now() - t1) * 1e3;
	(void)t0;
	for (int i = 0; i < n && !st; i++) {
		c->children++;
		if (!same_tree(&dev[i], &next[i]) && c->tree_diffs++ < 5)
			fprintf(stderr, "generation %d child %d: device %d nodes, host %d\n", g + 1, i,
				dev[i].n, next[i].n);
	}
	int ddiffs = 0;
	if (!st)
		st = gp_gpu_breeder_check_depths(bd, next, &ddiffs, err);
	if (ddiffs)
		fprintf(stderr, "generation %d: %d programs' depths differ on the device\n", g + 1, ddiffs);
	c->depth_diffs += ddiffs;
	gp_gpu_stats gs;
	double nodes;
	if (!st && !(st = gp_gpu_breeder_eval(bd, dfit, sizes, &nodes, &gs, err)) &&
	    !(st = gp_pack_lgp(&pk, next, n, err)))
		st = gp_gpu_eval(gpu, &pk, hfit, NULL, err);
	c->eval_ms += gs.kernel_ms;
	for (int i = 0; i < n && !st; i++) {
		if (memcmp(&dfit[i], &hfit[i], sizeof(double)) != 0 && c->fit_diffs++ < 5)
			fprintf(stderr, "generation %d program %d: fitness %.17g on the device encoding, "
				"%.17g on the host's\n", g + 1, i, dfit[i], hfit[i]);
		fit[i] = dfit[i];
	}
	c->generations++;
	gp_packed_free(&pk);
	free(sizes);
	free(hfit);
	free(dfit);
	return st;
}

static rt_status check_spec(const char *path, int population, int generations, check *c,
			    rt_error *err)
{
	rt_spec spec;
	gp_problem p;
	gp_gpu *gpu = NULL;
	gp_gpu_breeder *bd = NULL;
	gp_gpu_config cfg;
	memset(c, 0, sizeof *c);
	if (rt_spec_load(&spec, path, err) || gp_problem_load(&spec, &p, err))
		return err->status;
	p.population = population;
	int n = population;
	gp_tree *cur = calloc((size_t)n, sizeof *cur), *next = calloc((size_t)n, sizeof *next);
	gp_tree *dev = calloc((size_t)n, sizeof *dev);
	double *fit = malloc((size_t)n * sizeof *fit);
	rt_status st = cur && next && dev && fit ? RT_OK : rt_fail(err, RT_ERR_SYSTEM, "out of memory");
	if (!st)
		st = gp_gpu_variant_parse(p.gpu_variant, &cfg, err);
	if (!st)
		st = gp_gpu_open(&p.cases, &p.fset, &cfg, &gpu, err);
	if (!st)
		st = gp_gpu_breeder_open(gpu, &p.cases, &p.fset, &p.breed, n, &bd, err);
	if (!st)
		st = gp_init_population(cur, n, &p.fset, &p.breed, 99, err);
	random_fitness(fit, n, 5);
	if (!st)
		st = gp_gpu_breeder_load(bd, cur, fit, err);
	if (!st)
		st = gp_gpu_breeder_profile(bd, c->kernel_ms, err);
	for (int g = 0; g < generations && !st; g++) {
		st = one_generation(&p, gpu, bd, cur, next, dev, fit, g, c, err);
		gp_tree *t = cur;
		cur = next;
		next = t;
	}
	if (!st)
		st = gp_gpu_breeder_profile(bd, c->kernel_ms, err);
	for (int i = 0; i < n; i++) {
		if (cur)
			gp_tree_free(&cur[i]);
		if (next)
			gp_tree_free(&next[i]);
		if (dev)
			gp_tree_free(&dev[i]);
	}
	free(cur);
	free(next);
	free(dev);
	free(fit);
	gp_gpu_breeder_close(bd);
	gp_gpu_close(gpu);
	gp_problem_free(&p);
	rt_spec_free(&spec);
	return st;
}

int main(int argc, char **argv)
{
	int population = 2000, generations = 5, bad = 0;
	rt_error err;
	printf("| spec | programs | generations | children | tree diffs | depth diffs | fitness diffs "
	       "| plan ms | emit ms | encode ms | eval ms | verdict |\n");
	printf("|---|---|---|---|---|---|---|---|---|---|---|---|\n");
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--population") && i + 1 < argc) {
			population = atoi(argv[++i]);
			continue;
		}
		if (!strcmp(argv[i], "--generations") && i + 1 < argc) {
			generations = atoi(argv[++i]);
			continue;
		}
		check c;
		if (check_spec(argv[i], population, generations, &c, &err)) {
			fprintf(stderr, "%s: %s\n", argv[i], err.msg);
			printf("| %s | %d | - | - | - | - | - | - | - | - | - | ERROR |\n", argv[i],
			       population);
			bad = 1;
			continue;
		}
		int ok = c.tree_diffs == 0 && c.depth_diffs == 0 && c.fit_diffs == 0;
		double per = c.generations > 0 ? 1.0 / c.generations : 0.0;
		bad |= !ok;
		printf("| %s | %d | %d | %d | %d | %d | %d | %.3f | %.3f | %.3f | %.3f | %s |\n", argv[i],
		       population, c.generations, c.children, c.tree_diffs, c.depth_diffs, c.fit_diffs,
		       c.kernel_ms[0] * per, c.kernel_ms[1] * per, c.kernel_ms[2] * per,
		       c.eval_ms * per, ok ? "same" : "DIFFERENT");
	}
	return bad;
}
