/* aco_gpu_driver.c: device-machine driver of the GPU MAX-MIN backend (not a
 * unit test). For random uniform instances (n = 100 and 1000) and each
 * TSPLIB file named on the command line, it runs the same MAX-MIN driver
 * loop on the CPU backend (the reference) and the GPU backend, for both
 * construction kernels, with and without local search: construct -> every
 * ant's tour and length compared bit for bit -> iteration best -> save ->
 * update with the same arguments -> branching count compared -> ...; and
 * prints a markdown table (match, ms per construct on each, ms per update).
 * --bench times construction alone per kernel (median of --reps iterations,
 * tours per second) and the update, GPU only. Usage:
 *   aco_gpu_driver [--iterations K] [--reps R] [--bench] [--no-check]
 *                  [--cand L] [--ants M] [--no-random] [file.tsp ...] */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "aco/aco_impl.h"
#include "gen.h"
#include "log.h"

static int iterations = 5, reps = 10, bench = 0, check = 1, cand_len = 20, ants = 0;

/* A prepared job: random instance (path NULL) or a TSPLIB file. */
static rt_status job_for(aco_job *job, const char *path, int n, int construct, int ls, rt_error *err)
{
	aco_job_default(job);
	if (path)
		snprintf(job->data_path, sizeof job->data_path, "%s", path);
	job->random_n = n;
	job->cand_len = cand_len;
	job->alpha = 1.0;
	job->beta = 2.0;
	job->alpha_int = 1;
	job->beta_int = 2;
	job->local_search = ls;
	job->construct = construct;
	job->ants = ls && !ants ? 25 : ants;
	job->seed = 2016;
	snprintf(job->name, sizeof job->name, "driver-%s-%s", construct == ACO_CONSTRUCT_WARP ? "warp"
		 : "thread", aco_ls_name(ls));
	return aco_job_prepare(job, err);
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

/* Construct + iteration best (which waits for the device): seconds. */
static rt_status timed_construct(aco_backend *b, uint32_t it, int64_t *len, int *ant, double *s,
				 rt_error *err)
{
	double t0 = rt_now();
	rt_status st = b->ops->construct(b, it, err);
	if (st == RT_OK)
		st = b->ops->iteration_best(b, len, ant, err);
	*s = rt_now() - t0;
	return st;
}

/* Every ant's tour and length equal on both backends: 1, else 0 (first difference printed). */
static int same_tours(const aco_job *job, aco_backend *c, aco_backend *g, int it, rt_error *err)
{
	size_t tn = (size_t)job->ants * job->n;
	int *tc = malloc(tn * sizeof *tc), *tg = malloc(tn * sizeof *tg), same = 1;
	int64_t *lc = malloc((size_t)job->ants * 8), *lg = malloc((size_t)job->ants * 8);
	if (!tc || !tg || !lc || !lg || c->ops->tours(c, tc, lc, err) || g->ops->tours(g, tg, lg, err))
		same = -1;
	for (int a = 0; same == 1 && a < job->ants; a++)
		if (lc[a] != lg[a] || memcmp(tc + (size_t)a * job->n, tg + (size_t)a * job->n,
					     (size_t)job->n * sizeof *tc)) {
			fprintf(stderr, "  %s: iteration %d ant %d differs: CPU %lld, GPU %lld\n", job->name, it,
				a, (long long)lc[a], (long long)lg[a]);
			same = 0;
		}
	free(tc);
	free(tg);
	free(lc);
	free(lg);
	return same;
}

typedef struct loop_stats {
	int match;                      /* 1 all equal, 0 a difference, -1 an error */
	double gpu_construct, cpu_construct, gpu_update;   /* ms, mean */
	int64_t best;
} loop_stats;

/* Update on both with the same arguments; the GPU's timed (synced by a best). */
static rt_status update_both(const aco_job *job, aco_backend *c, aco_backend *g, int it, int ant,
			     int64_t itbest, int64_t best, double *gms, rt_error *err)
{
	float keep = (float)(1.0 - job->rho), tmax = (float)(1.0 / (job->rho * (double)best));
	float tmin = tmax / (float)(2 * job->n), dep = (float)(1.0 / (double)itbest);
	int slot = it % 2 ? ACO_SLOT_BEST : -1, a2;
	int64_t l2;
	rt_status st = c->ops->update(c, slot, ant, keep, dep, tmin, tmax, err);
	double t0 = rt_now();
	if (st == RT_OK && (st = g->ops->update(g, slot, ant, keep, dep, tmin, tmax, err)) == RT_OK)
		st = g->ops->iteration_best(g, &l2, &a2, err);
	*gms += (rt_now() - t0) * 1e3;
	return st;
}

/* The shared driver loop; fills *s. */
static rt_status compare(const aco_job *job, aco_backend *c, aco_backend *g, loop_stats *s,
			 rt_error *err)
{
	int64_t best = INT64_MAX, lc, lg;
	int ac, ag;
	long bc, bg;
	double sc, sg;
	rt_status st = RT_OK;
	s->match = 1;
	for (int it = 0; it < iterations && st == RT_OK; it++) {
		if ((st = timed_construct(c, (uint32_t)it, &lc, &ac, &sc, err)) ||
		    (st = timed_construct(g, (uint32_t)it, &lg, &ag, &sg, err)))
			break;
		s->cpu_construct += sc * 1e3 / iterations;
		s->gpu_construct += sg * 1e3 / iterations;
		if (s->match == 1 && (same_tours(job, c, g, it, err) != 1 || lc != lg || ac != ag))
			s->match = 0;
		if (lc < best) {
			best = lc;
			if ((st = c->ops->save(c, ac, ACO_SLOT_BEST, NULL, err)) ||
			    (st = g->ops->save(g, ag, ACO_SLOT_BEST, NULL, err)))
				break;
		}
		if ((st = update_both(job, c, g, it, ac, lc, best, &s->gpu_update, err)) ||
		    (st = c->ops->branching(c, 0.05f, &bc, err)) || (st = g->ops->branching(g, 0.05f, &bg, err)))
			break;
		if (bc != bg) {
			fprintf(stderr, "  %s: iteration %d: branching CPU %ld, GPU %ld\n", job->name, it, bc, bg);
			s->match = 0;
		}
	}
	s->gpu_update /= iterations;
	s->best = best;
	return st;
}

/* GPU only: median construct ms over reps and mean update ms. */
static rt_status bench_gpu(const aco_job *job, aco_backend *g, double *med, double *upd, rt_error *err)
{
	double *t = calloc((size_t)reps, sizeof *t);
	int64_t len;
	int ant;
	rt_status st = t ? RT_OK : RT_ERR_SYSTEM;
	for (int r = 0; r < reps && st == RT_OK; r++)
		st = timed_construct(g, (uint32_t)(100 + r), &len, &ant, &t[r], err);
	if (st == RT_OK) {
		qsort(t, (size_t)reps, sizeof *t, cmp_double);
		*med = t[reps / 2] * 1e3;
		double t0 = rt_now();
		for (int r = 0; r < reps && st == RT_OK; r++)
			st = g->ops->update(g, -1, ant, 0.98f, 1.0f / (float)len, 1e-6f, 1.0f, err);
		if (st == RT_OK)
			st = g->ops->iteration_best(g, &len, &ant, err);
		*upd = (rt_now() - t0) * 1e3 / reps;
	}
	(void)job;
	free(t);
	return st;
}

/* One instance x kernel x local search: a table row (check and/or bench). */
static void run_one(const char *path, int n, int construct, int ls)
{
	rt_error err;
	aco_job job;
	aco_backend *c = NULL, *g = NULL;
	loop_stats s;
	rt_status st;
	memset(&s, 0, sizeof s);
	if ((st = job_for(&job, path, n, construct, ls, &err)) != RT_OK) {
		printf("| %s | error: %s |\n", path ? path : "random", err.msg);
		return;
	}
	float tau0 = aco_tau0(&job);
	if ((st = aco_gpu_create(&job, tau0, &g, &err)) ||
	    (check && (st = aco_cpu_create(&job, tau0, &c, &err))) ||
	    (check && (st = compare(&job, c, g, &s, &err)))) {
		printf("| %s | %d | %s | %s | error: %s |\n", job.instance, job.n,
		       aco_construct_name(construct), aco_ls_name(ls), err.msg);
	} else if (check) {
		printf("| %s | %d | %d | %d | %s | %s | %s | %.3f | %.3f | %.3f | %lld | %s |\n",
		       job.instance, job.n, job.cand_len, job.ants, aco_construct_name(construct),
		       aco_ls_name(ls), s.match ? "match" : "MISMATCH", s.gpu_construct, s.cpu_construct,
		       s.gpu_update, (long long)s.best, g->detail);
	}
	if (st == RT_OK && bench) {
		double med = 0, upd = 0;
		if ((st = bench_gpu(&job, g, &med, &upd, &err)) != RT_OK)
			printf("| bench %s | error: %s |\n", job.instance, err.msg);
		else
			printf("| bench %s | %d | %d | %d | %s | %s | median %.3f ms/construct | %.0f tours/s | "
			       "update %.3f ms | %s |\n", job.instance, job.n, job.cand_len, job.ants,
			       aco_construct_name(construct), aco_ls_name(ls), med, job.ants / (med / 1e3),
			       upd, g->detail);
	}
	if (c)
		c->ops->destroy(c);
	if (g)
		g->ops->destroy(g);
	aco_job_free(&job);
	fflush(stdout);
}

/* Every kernel x local search for one instance. */
static void run_instance(const char *path, int n, int with_ls)
{
	for (int ls = ACO_LS_NONE; ls <= (with_ls ? ACO_LS_2OPT : ACO_LS_NONE); ls++)
		for (int k = ACO_CONSTRUCT_THREAD; k <= ACO_CONSTRUCT_WARP; k++)
			run_one(path, n, k, ls);
}

int main(int argc, char **argv)
{
	int random = 1, with_ls = gen_embedded("templates/aco/aco_ls.h") &&
		strstr(gen_embedded("templates/aco/aco_ls.h")->text, "aco_local_search") != NULL;
	const char *files[64];
	int nfiles = 0;
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--iterations") && i + 1 < argc)
			iterations = atoi(argv[++i]);
		else if (!strcmp(argv[i], "--reps") && i + 1 < argc)
			reps = atoi(argv[++i]);
		else if (!strcmp(argv[i], "--cand") && i + 1 < argc)
			cand_len = atoi(argv[++i]);
		else if (!strcmp(argv[i], "--ants") && i + 1 < argc)
			ants = atoi(argv[++i]);
		else if (!strcmp(argv[i], "--bench"))
			bench = 1;
		else if (!strcmp(argv[i], "--no-check"))
			check = 0;
		else if (!strcmp(argv[i], "--no-random"))
			random = 0;
		else if (argv[i][0] == '-') {
			fprintf(stderr, "aco_gpu_driver: unknown option %s\n", argv[i]);
			return 2;
		} else if (nfiles < 64)
			files[nfiles++] = argv[i];
	}
	if (iterations < 1 || reps < 1) {
		fprintf(stderr, "aco_gpu_driver: --iterations and --reps must be at least 1\n");
		return 2;
	}
	printf("| instance | n | cand | ants | construct | LS | CPU vs GPU | GPU ms/construct | CPU ms/construct "
	       "| GPU ms/update | best | GPU detail |\n|---|---|---|---|---|---|---|---|---|---|---|---|\n");
	if (random) {
		run_instance(NULL, 100, with_ls);
		run_instance(NULL, 1000, with_ls);
	}
	for (int i = 0; i < nfiles; i++)
		run_instance(files[i], 0, with_ls);
	return 0;
}
