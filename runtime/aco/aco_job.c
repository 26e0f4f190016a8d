/* aco_job.c: kind `aco`'s job: the spec's [data] and [aco] sections turned
 * into parameters (the variant's defaults, aco_impl.h: ACOTSP's MMAS with
 * alpha = 1, beta = 2, the iteration-best deposit, rho = 0.1, 1000
 * iterations, ants = the power of two nearest the number of cities), and the instance turned into what both backends use:
 * the integer distance matrix, nearest-neighbour candidate lists (by
 * distance, then city index) and the heuristic matrix eta^beta.
 *
 * Non-finite values: eta = 1 / (d + 0.1) (ACOTSP's rule) is at most 10, so
 * duplicate cities (distance 0) are fine; but 10^beta overflows a float for
 * beta above 38, so an instance with distance-0 pairs and such a beta is an
 * error, as is any other non-finite heuristic value (the diagonal, never
 * used, excepted). An instance whose nearest-neighbour tour has length 0
 * (every city at distance 0) is an error too: the pheromone bounds
 * 1 / (rho L) would be infinite and there is nothing to optimise. */
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "aco_impl.h"
#include "data_mem.h"
#include "cpu.h"
#include "log.h"
#include "rng.h"

/* Indexed by enum aco_construct and aco_ls_kind. */
static const char *const construct_names[] = { "thread", "warp", "auto", NULL };
static const char *const ls_names[] = { "none", "2opt", "2.5opt", "oropt", NULL };
static const char *const cand_memory_names[] = { "auto", "shared", "global", NULL };
static const char *const variant_names[] = { "acotsp", "gpu-mmas", "evoforge", NULL };
static const char *const deposit_names[] = { "schedule", "iteration_best", NULL };
static const char *const choices_names[] = { "candidates", "half_cities", NULL };

const char *aco_construct_name(int c) { return construct_names[c]; }
const char *aco_ls_name(int ls) { return ls_names[ls]; }
const char *aco_cand_memory_name(int m) { return cand_memory_names[m]; }
const char *aco_variant_name(int v) { return variant_names[v]; }
const char *aco_deposit_name(int d) { return deposit_names[d]; }
const char *aco_tau_min_choices_name(int c) { return choices_names[c]; }

/* The defaults a variant gives the keys it differs in. */
static void variant_defaults(aco_job *job, int variant)
{
	int gpu_mmas = variant == ACO_VARIANT_GPU_MMAS, acotsp = variant == ACO_VARIANT_ACOTSP;
	job->variant = variant;
	job->alpha = acotsp ? 2.0 : 1.0;
	job->beta = acotsp ? 3.0 : 2.0;
	job->rho = 0.1;
	job->cand_len = gpu_mmas ? 32 : 20;
	job->p_best = gpu_mmas ? 0.01 : 0.05;
	job->tau_min_choices = gpu_mmas ? ACO_CHOICES_HALF_CITIES : ACO_CHOICES_CANDIDATES;
	job->deposit = acotsp ? ACO_DEPOSIT_SCHEDULE : ACO_DEPOSIT_ITERATION_BEST;
	job->restart = !gpu_mmas;
}

void aco_job_default(aco_job *job)
{
	memset(job, 0, sizeof *job);
	snprintf(job->name, sizeof job->name, "aco");
	variant_defaults(job, ACO_VARIANT_EVOFORGE);
	job->iterations = 1000;
	job->optimum = -1;
	job->lambda = 0.05;
	job->branch_factor = 1.00001;
	job->restart_gap = 250;
	job->local_search = ACO_LS_NONE;
	job->ls_cand = 20;
	job->construct = ACO_CONSTRUCT_AUTO;
	job->report_every = 100;
	job->history_every = 10;
	job->seed = 1;
	job->random_side = 10000.0;
}

/* A whole exponent from 0 to 16 is unrolled into multiplications; -1: powf. */
static int whole_exponent(double x)
{
	return x >= 0 && x <= 16 && x == floor(x) ? (int)x : -1;
}

#define TRY(x) do { if ((st = (x)) != RT_OK) return st; } while (0)

/* [data]: a TSPLIB file (and where its optimum is listed) or a random instance. */
static rt_status read_data(aco_job *job, rt_spec *spec, rt_error *err)
{
	const char *file, *optimal;
	long v;
	rt_status st;
	TRY(rt_spec_string(spec, "data", "file", "", &file, err));
	TRY(rt_spec_int(spec, "data", "random", 0, 0, ACO_MAX_CITIES, &v, err));
	job->random_n = (int)v;
	TRY(rt_spec_double(spec, "data", "side", 10000.0, 1.0, 1e8, &job->random_side, err));
	TRY(rt_spec_string(spec, "data", "optimal", "", &optimal, err));
	if (!file[0] && !job->random_n)
		return rt_fail(err, RT_ERR_INPUT, "%s: [data] expected 'file = INSTANCE.tsp' (a TSPLIB "
			       "file) or 'random = N' (N random cities), got neither", spec->path);
	if (file[0] && job->random_n)
		return rt_fail(err, RT_ERR_INPUT, "%s: [data] expected either 'file' or 'random', got both",
			       spec->path);
	if (job->random_n && job->random_n < 3)
		return rt_fail(err, RT_ERR_INPUT, "%s: [data] random: expected at least 3 cities, got %d",
			       spec->path, job->random_n);
	if (file[0])
		TRY(rt_spec_data_path(spec, file, job->data_path, sizeof job->data_path, err));
	if (optimal[0])
		TRY(rt_spec_data_path(spec, optimal, job->optimal_path, sizeof job->optimal_path, err));
	return RT_OK;
}

/* [aco]: the algorithm's parameters. */
static rt_status read_params(aco_job *job, rt_spec *spec, rt_error *err)
{
	long v;
	rt_status st;
	TRY(rt_spec_int(spec, "aco", "iterations", 1000, 1, LONG_MAX / 2, &job->iterations, err));
	TRY(rt_spec_int(spec, "aco", "ants", 0, 0, 1 << 20, &v, err));
	job->ants = (int)v;
	TRY(rt_spec_enum(spec, "aco", "variant", variant_names, ACO_VARIANT_EVOFORGE, &job->variant, err));
	variant_defaults(job, job->variant);
	TRY(rt_spec_double(spec, "aco", "alpha", job->alpha, 0.0, 100.0, &job->alpha, err));
	TRY(rt_spec_double(spec, "aco", "beta", job->beta, 0.0, 100.0, &job->beta, err));
	TRY(rt_spec_double(spec, "aco", "rho", job->rho, 1e-6, 1.0, &job->rho, err));
	TRY(rt_spec_int(spec, "aco", "candidates", job->cand_len, 0, ACO_MAX_CAND, &v, err));
	job->cand_len = (int)v;
	TRY(rt_spec_double(spec, "aco", "p_best", job->p_best, 1e-9, 0.999, &job->p_best, err));
	TRY(rt_spec_enum(spec, "aco", "tau_min_choices", choices_names, job->tau_min_choices,
			 &job->tau_min_choices, err));
	TRY(rt_spec_enum(spec, "aco", "deposit", deposit_names, job->deposit, &job->deposit, err));
	TRY(rt_spec_double(spec, "aco", "time_limit", 0.0, 0.0, 1e9, &job->time_limit, err));
	TRY(rt_spec_int(spec, "aco", "target", 0, 0, LONG_MAX, &job->target, err));
	TRY(rt_spec_int(spec, "aco", "optimum", 0, 0, LONG_MAX, &v, err));
	job->optimum = v > 0 ? v : -1;
	TRY(rt_spec_bool(spec, "aco", "restart", job->restart, &job->restart, err));
	TRY(rt_spec_double(spec, "aco", "lambda", 0.05, 0.0, 1.0, &job->lambda, err));
	TRY(rt_spec_double(spec, "aco", "branch_factor", 1.00001, 0.0, 1e6, &job->branch_factor, err));
	TRY(rt_spec_int(spec, "aco", "restart_gap", 250, 0, INT_MAX, &v, err));
	job->restart_gap = (int)v;
	TRY(rt_spec_enum(spec, "aco", "local_search", ls_names, ACO_LS_NONE, &job->local_search, err));
	TRY(rt_spec_int(spec, "aco", "ls_neighbours", 20, 1, ACO_MAX_CAND, &v, err));
	job->ls_cand = (int)v;
	TRY(rt_spec_enum(spec, "aco", "construction", construct_names, ACO_CONSTRUCT_AUTO,
			 &job->construct, err));
	TRY(rt_spec_int(spec, "aco", "block", 0, 0, 1024, &v, err));
	job->block = (int)v;
	TRY(rt_spec_enum(spec, "aco", "cand_memory", cand_memory_names, ACO_CAND_AUTO,
			 &job->cand_memory, err));
	TRY(rt_spec_int(spec, "aco", "report_every", 100, 1, INT_MAX, &v, err));
	job->report_every = (int)v;
	TRY(rt_spec_int(spec, "aco", "history_every", 10, 0, INT_MAX, &v, err));
	job->history_every = (int)v;
	return RT_OK;
}

/* [islands]: islands exchange their best-so-far tour, so the keys that
 * choose individuals do not apply. */
static rt_status read_islands(aco_job *job, rt_spec *spec, rt_error *err)
{
	static const char *const fixed[] = { "migrants", "emigrants", "replace" };
	char where[RT_PATH_MAX + 32];
	for (int k = 0; k < 3; k++)
		if (rt_spec_find(spec, "islands", fixed[k]))
			return rt_fail(err, RT_ERR_INPUT, "%s: islands.%s: expected no such key for "
				       "kind aco (its islands send each other their best-so-far "
				       "tour; interval and topology apply)",
				       rt_spec_key_where(spec, "islands", fixed[k], where,
							 sizeof where), fixed[k]);
	return rt_islands_read(&job->islands, spec, err);
}

rt_status aco_job_from_spec(rt_spec *spec, const rt_options *opt, aco_job *job, rt_error *err)
{
	const char *name;
	rt_status st;
	aco_job_default(job);
	snprintf(job->spec_path, sizeof job->spec_path, "%s", spec->path);
	TRY(rt_spec_string(spec, "problem", "kind", "aco", &name, err));
	TRY(rt_spec_string(spec, "problem", "name", "aco", &name, err));
	snprintf(job->name, sizeof job->name, "%s", name);
	TRY(rt_job_seed(spec, opt, &job->seed, err));
	TRY(read_data(job, spec, err));
	TRY(read_params(job, spec, err));
	TRY(read_islands(job, spec, err));
	TRY(rt_spec_check_unused(spec, err));
	job->alpha_int = whole_exponent(job->alpha);
	job->beta_int = whole_exponent(job->beta);
	return RT_OK;
}

/* ---- the instance ---------------------------------------------------------------- */

static int64_t nn_tour_length(const aco_job *job);

/* Random uniform cities with whole coordinates in [0, side), EUC_2D; the
 * instance depends only on (n, side), so every run seed sees the same one. */
static rt_status random_instance(aco_job *job, rt_tsp *t, rt_error *err)
{
	rt_rng rng;
	memset(t, 0, sizeof *t);
	t->n = job->random_n;
	t->metric = RT_TSP_EUC_2D;
	snprintf(t->name, sizeof t->name, "random%d", t->n);
	t->x = rt_malloc((size_t)t->n * sizeof *t->x, err);
	t->y = t->x ? rt_malloc((size_t)t->n * sizeof *t->y, err) : NULL;
	if (!t->y) {
		rt_tsp_free(t);
		return RT_ERR_SYSTEM;
	}
	rt_rng_init(&rng, 0x7a5, (uint64_t)t->n);
	for (int i = 0; i < t->n; i++) {
		t->x[i] = floor(rt_rng_uniform_double(&rng) * job->random_side);
		t->y[i] = floor(rt_rng_uniform_double(&rng) * job->random_side);
	}
	return RT_OK;
}

typedef struct prep_ctx {
	aco_job *job;
	const rt_tsp *tsp;
	int *list;          /* candidate lists being filled: n x len */
	int len;
} prep_ctx;

/* Rows [begin, end) of the heuristic matrix, from the distances. */
static void fill_heuristic(void *ctx, long begin, long end, int thread)
{
	aco_job *job = ((prep_ctx *)ctx)->job;
	size_t n = (size_t)job->n;
	(void)thread;
	for (size_t i = (size_t)begin * n; i < (size_t)end * n; i++)
		job->heur[i] = aco_heuristic(job->dist[i], job->beta_int, (float)job->beta);
}

/* Every off-diagonal heuristic value finite (else the error names beta,
 * the distance and the cities). */
static rt_status check_heuristic(const aco_job *job, rt_error *err)
{
	size_t n = (size_t)job->n;
	for (size_t i = 0; i < n * n; i++)
		if (i / n != i % n && !isfinite(job->heur[i]))
			return rt_fail(err, RT_ERR_INPUT,
				       "%s: beta %g makes the heuristic (1 / (d + 0.1))^beta overflow a "
				       "float (%g) for distance %d between cities %zu and %zu; use beta "
				       "38 or less with duplicate cities", job->instance, job->beta,
				       (double)job->heur[i], job->dist[i], i / n + 1, i % n + 1);
	return RT_OK;
}

/* Candidate rows [begin, end): the len nearest other cities, by
 * distance then index (insertion into a sorted list of cand_len). */
static void fill_candidates(void *ctx, long begin, long end, int thread)
{
	prep_ctx *c = ctx;
	int n = c->job->n, L = c->len;
	(void)thread;
	for (long i = begin; i < end; i++) {
		const int *d = c->job->dist + (size_t)i * n;
		int *row = c->list + (size_t)i * L, have = 0;
		for (int j = 0; j < n; j++) {
			int k;
			if (j == i || (have == L && d[j] >= d[row[L - 1]]))
				continue;
			k = have < L ? have++ : L - 1;
			while (k > 0 && d[row[k - 1]] > d[j]) {
				row[k] = row[k - 1];
				k--;
			}
			row[k] = j;
		}
	}
}

/* The power of two nearest n (the seed paper's ant count), at least 2. */
static int ants_for(int n)
{
	int lo = 1;
	while (lo * 2 <= n)
		lo *= 2;
	return n - lo <= 2 * lo - n ? (lo < 2 ? 2 : lo) : 2 * lo;
}

/* The known optimum: [aco] optimum, else the optimal-lengths list named by
 * [data] optimal, else optimal.txt beside the instance (if there is one). */
static rt_status find_optimum(aco_job *job, rt_error *err)
{
	char path[RT_PATH_MAX + 16];
	const char *slash;
	FILE *f;
	if (job->optimum > 0 || !job->data_path[0])
		return RT_OK;
	if (job->optimal_path[0] && rt_mem_is_name(job->data_path))
		return rt_tsp_optimal(job->optimal_path, job->instance, &job->optimum, err);
	if (rt_mem_is_name(job->data_path))
		return RT_OK;   /* the C API's table: no folder to find optimal.txt in */
	if (job->optimal_path[0])
		return rt_tsp_optimal(job->optimal_path, job->instance, &job->optimum, err);
	slash = strrchr(job->data_path, '/');
	snprintf(path, sizeof path, "%.*soptimal.txt", slash ? (int)(slash - job->data_path + 1) : 0,
		 job->data_path);
	if ((f = fopen(path, "r")) == NULL)
		return RT_OK;
	fclose(f);
	return rt_tsp_optimal(path, job->instance, &job->optimum, err);
}

rt_status aco_job_prepare(aco_job *job, rt_error *err)
{
	rt_tsp tsp;
	prep_ctx ctx = { job, &tsp, NULL, 0 };
	size_t n2;
	rt_status st;
	st = job->data_path[0] ? rt_tsp_load(job->data_path, &tsp, err) : random_instance(job, &tsp, err);
	if (st != RT_OK)
		return st;
	if (tsp.n < 3 || tsp.n > ACO_MAX_CITIES) {
		st = rt_fail(err, RT_ERR_INPUT, "%s: expected 3 to %d cities for kind aco, got %d",
			     job->data_path[0] ? job->data_path : job->spec_path, ACO_MAX_CITIES, tsp.n);
		goto done;
	}
	job->n = tsp.n;
	snprintf(job->instance, sizeof job->instance, "%s", tsp.name);
	if (job->cand_len > job->n - 1)
		job->cand_len = job->n - 1;
	if (job->ls_cand > job->n - 1)
		job->ls_cand = job->n - 1;
	if (job->ants == 0)
		job->ants = ants_for(job->n);
	n2 = (size_t)job->n * (size_t)job->n;
	job->dist = rt_malloc(n2 * sizeof *job->dist, err);
	job->heur = job->dist ? rt_malloc(n2 * sizeof *job->heur, err) : NULL;
	job->nn = job->heur ? rt_malloc((size_t)job->n * job->ls_cand * sizeof *job->nn, err) : NULL;
	if (!job->nn) {
		st = RT_ERR_SYSTEM;
		goto done;
	}
	if (rt_tsp_distance_matrix(&tsp, job->dist) != RT_OK) {
		st = rt_fail(err, RT_ERR_INTERNAL, "%s: no distances for the instance", job->instance);
		goto done;
	}
	if ((st = cpu_parallel_for(job->n, 16, fill_heuristic, &ctx, err)) != RT_OK)
		goto done;
	if ((st = check_heuristic(job, err)) != RT_OK)
		goto done;
	if ((job->nn_length = nn_tour_length(job)) < 0) {
		st = rt_fail(err, RT_ERR_SYSTEM, "out of memory for the nearest-neighbour tour");
		goto done;
	}
	if (job->nn_length == 0) {
		st = rt_fail(err, RT_ERR_INPUT, "%s: every city is at distance 0 from the others (the "
			     "nearest-neighbour tour has length 0): nothing to optimise, and the "
			     "pheromone bound 1 / (rho L) would be infinite", job->instance);
		goto done;
	}
	st = aco_job_candidates(job, err);
	if (st == RT_OK)
		st = find_optimum(job, err);
done:
	rt_tsp_free(&tsp);
	return st;
}

/* Fills job->cand (the construction's list, cand_len long; NULL for full
 * choice) and job->nn (the local search's, ls_cand long) from the distances. */
rt_status aco_job_candidates(aco_job *job, rt_error *err)
{
	prep_ctx nn = { job, NULL, job->nn, job->ls_cand };
	prep_ctx cand = { job, NULL, NULL, job->cand_len };
	rt_status st = cpu_parallel_for(job->n, 16, fill_candidates, &nn, err);
	free(job->cand);
	job->cand = NULL;
	if (st != RT_OK || job->cand_len == 0)
		return st;
	if ((job->cand = rt_malloc((size_t)job->n * job->cand_len * sizeof *job->cand, err)) == NULL)
		return RT_ERR_SYSTEM;
	cand.list = job->cand;
	return cpu_parallel_for(job->n, 16, fill_candidates, &cand, err);
}

void aco_job_finish(aco_job *job, int gpu)
{
	(void)gpu;
	if (job->construct == ACO_CONSTRUCT_AUTO)
		job->construct = ACO_CONSTRUCT_WARP;
}

void aco_job_free(aco_job *job)
{
	free(job->dist);
	free(job->cand);
	free(job->nn);
	free(job->heur);
	job->dist = job->cand = job->nn = NULL;
	job->heur = NULL;
}

/* Length of the nearest-neighbour tour from city 0 (0: out of memory). */
static int64_t nn_tour_length(const aco_job *job)
{
	int n = job->n, cur = 0;
	int64_t len = 0;
	unsigned char *seen = calloc((size_t)n, 1);
	if (!seen)
		return -1;
	seen[0] = 1;
	for (int s = 1; s < n; s++) {
		const int *d = job->dist + (size_t)cur * n;
		int next = -1;
		for (int j = 0; j < n; j++)
			if (!seen[j] && (next < 0 || d[j] < d[next]))
				next = j;
		len += d[next];
		seen[next] = 1;
		cur = next;
	}
	free(seen);
	return len + job->dist[(size_t)cur * n];
}

float aco_tau0(const aco_job *job)
{
	return (float)(1.0 / (job->rho * (double)job->nn_length));
}
