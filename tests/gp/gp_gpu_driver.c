/* gp_gpu_driver.c: device-machine driver of the GPU GP evaluators (not a
 * unit test): for each problem spec named on the command line, checks every
 * variant against the CPU on a random population and benchmarks evaluation
 * alone on a population of the seed's shape (1000 ramped half-and-half
 * programs), printing markdown tables. Usage:
 *   gp_gpu_driver [--check N] [--bench] [--threads] [--init-depth MIN-MAX]
 *                 [--variants a,b,..] [--sweep 128,256,..] [--sizes-only] problems/sextic.ini ...
 * --init-depth sets the ramped half-and-half depth range of the benchmark
 * population (2-4 gives the 19-node sextic population);
 * --variants and --sweep choose what --bench measures (variants at each
 * threads-per-block count); --sizes-only prints the population's mean size
 * and needs no GPU. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gp/gp_conv.h"
#include "gp/gp_eval.h"
#include "gp/gp_gpu.h"
#include "gp/gp_problem.h"
#include "log.h"
#include "spec.h"

static int init_min = -1, init_max = -1, sizes_only = 0;
static const char *variants[64];
static int sweep_threads[16];

/* Splits a comma-separated list (the string is kept). */
static void split_list(char *s, const char **out, int max)
{
	int n = 0;
	for (char *t = strtok(s, ","); t && n < max - 1; t = strtok(NULL, ","))
		out[n++] = t;
	out[n] = NULL;
}

static int run(const char *path, int ncheck, int bench, int sweep, rt_error *err)
{
	rt_spec spec;
	gp_problem prob;
	gp_tree *trees = NULL;
	gp_packed rpn, lgp;
	double *fit = NULL;
	int n = 1000;
	rt_status st;
	memset(&spec, 0, sizeof spec);
	memset(&prob, 0, sizeof prob);
	gp_packed_init(&rpn);
	gp_packed_init(&lgp);
	if ((st = rt_spec_load(&spec, path, err)) != RT_OK || (st = gp_problem_load(&spec, &prob, err)) != RT_OK)
		return st;
	if (init_min > 0) {
		prob.breed.init_min_depth = init_min;
		prob.breed.init_max_depth = init_max;
	}
	printf("\n## %s (%zu cases, %d inputs)\n\n", prob.name, prob.cases.ncases, prob.cases.ninputs);
	if (ncheck > 0) {
		printf("### check against the CPU (%d random programs)\n\n", ncheck);
		st = gp_gpu_check(&prob.cases, &prob.fset, &prob.breed, ncheck, 1, variants[0] ? variants : NULL,
				  stdout, err);
		if (st != RT_OK)
			printf("CHECK FAILED: %s\n", err->msg);
	}
	if (bench) {
		trees = rt_calloc((size_t)n, sizeof *trees, err);
		fit = rt_malloc((size_t)n * sizeof *fit, err);
		if (!trees || !fit || (st = gp_init_population(trees, n, &prob.fset, &prob.breed, 42, err)) != RT_OK ||
		    (st = gp_pack_rpn(&rpn, trees, n, err)) != RT_OK || (st = gp_pack_lgp(&lgp, trees, n, err)) != RT_OK)
			goto out;
		uint64_t nodes = gp_packed_total_nodes(&lgp);
		printf("\n### evaluation only: %d programs (init depth %d-%d), mean %.2f nodes, %u LGP "
		       "instructions\n\n", n, prob.breed.init_min_depth, prob.breed.init_max_depth,
		       (double)nodes / n, lgp.offset[n]);
		if (sizes_only)
			goto out;
		gp_gpu_bench_opts o;
		memset(&o, 0, sizeof o);
		if (variants[0])
			o.variants = variants;
		if (sweep_threads[0])
			o.threads = sweep_threads;
		st = gp_gpu_bench(&prob.cases, &prob.fset, &rpn, &lgp, &o, stdout, err);
		if (st == RT_OK && sweep) {
			static const int th[] = { 128, 256, 512, 1024, 0 };
			static const char *const sv[] = { "blockgp", "lgp-float4", "lgp-fast", "lgp-fast-p16",
							  "lgp-f4x3-r2-p4", NULL };
			o.threads = th;
			o.variants = sv;
			printf("\n### threads per block\n\n");
			st = gp_gpu_bench(&prob.cases, &prob.fset, &rpn, &lgp, &o, stdout, err);
		}
		if (st == RT_OK) {
			double t0 = rt_now();
			if ((st = gp_eval_cpu(&lgp, &prob.cases, GP_EVAL_LGP2D, fit, err)) == RT_OK)
				printf("\nCPU lgp2d (all cores): %.4g GPop/s\n",
				       (double)nodes * (double)prob.cases.ncases / (rt_now() - t0));
		}
	}
out:
	if (trees)
		for (int i = 0; i < n; i++)
			gp_tree_free(&trees[i]);
	free(trees);
	free(fit);
	gp_packed_free(&rpn);
	gp_packed_free(&lgp);
	gp_problem_free(&prob);
	rt_spec_free(&spec);
	return st;
}

int main(int argc, char **argv)
{
	rt_error err;
	int ncheck = 0, bench = 0, sweep = 0, rc = 0;
	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--check") == 0 && i + 1 < argc)
			ncheck = atoi(argv[++i]);
		else if (strcmp(argv[i], "--bench") == 0)
			bench = 1;
		else if (strcmp(argv[i], "--threads") == 0)
			sweep = 1;
		else if (strcmp(argv[i], "--sizes-only") == 0)
			sizes_only = bench = 1;
		else if (strcmp(argv[i], "--init-depth") == 0 && i + 1 < argc)
			sscanf(argv[++i], "%d-%d", &init_min, &init_max);
		else if (strcmp(argv[i], "--variants") == 0 && i + 1 < argc)
			split_list(argv[++i], variants, 64);
		else if (strcmp(argv[i], "--sweep") == 0 && i + 1 < argc) {
			const char *tl[16];
			split_list(argv[++i], tl, 16);
			for (int k = 0; tl[k]; k++)
				sweep_threads[k] = atoi(tl[k]);
		}
		else if (run(argv[i], ncheck, bench, sweep, &err) != RT_OK) {
			printf("ERROR %s: %s\n", argv[i], err.msg);
			rc = 1;
		}
		fflush(stdout);
	}
	return rc;
}
