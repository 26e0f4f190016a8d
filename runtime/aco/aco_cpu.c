/* aco_cpu.c: kind `aco` on the CPU: the backend interface of aco_impl.h
 * over host memory, ants spread over the thread pool (runtime/cpu.h). Every
 * decision is templates/aco/aco_core.h's and every local search move
 * templates/aco/aco_ls.h's, the very code the GPU kernels run, so the CPU
 * builds the same tours as the GPU and is the reference in tests and
 * tools/device-check. The prefix-sum order follows job->construct: the
 * sequential one of the ant-per-thread kernel, or the warp scan's. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "aco/aco_ls.h"
#include "aco_impl.h"
#include "cpu.h"

typedef struct cpu_backend {
	aco_backend base;
	const aco_job *job;
	int n, ants, threads, choice_len;
	float *tau, *choice;           /* n x n */
	int *tours;                    /* ants x n */
	int64_t *lengths;              /* ants */
	int *slots;                    /* 2 x n: best-so-far, restart-best */
	uint32_t *visited;             /* threads x words */
	float *scratch;                /* threads x round_up(choice_len, 32) */
	int *ls_work;                  /* threads x ACO_LS_WORK_INTS(n), or NULL */
	int words;
	uint32_t iteration;            /* of the construct in progress */
} cpu_backend;

static cpu_backend *as_cpu(aco_backend *b) { return (cpu_backend *)b; }

/* ---- construction ------------------------------------------------------------ */

/* Builds ant a's tour with worker t's scratch; returns its length. */
static int64_t build_tour(cpu_backend *c, int a, int t)
{
	const aco_job *job = c->job;
	int n = c->n, L = c->choice_len;
	int scan = job->construct == ACO_CONSTRUCT_THREAD ? ACO_SCAN_SEQ : ACO_SCAN_WARP;
	uint32_t *visited = c->visited + (size_t)t * c->words;
	float *p = c->scratch + (size_t)t * ((L + 31) / 32 * 32);
	int *tour = c->tours + (size_t)a * n;
	memset(visited, 0, (size_t)c->words * sizeof *visited);
	tour[0] = aco_start_city(job->seed, a, c->iteration, n);
	aco_visit(visited, tour[0]);
	for (int s = 0; s < n - 1; s++) {
		int cur = tour[s];
		float u = aco_step_uniform(job->seed, a, c->iteration, s);
		int next = aco_choose_next(c->choice + (size_t)cur * n,
					   job->cand ? job->cand + (size_t)cur * L : NULL, L, n,
					   visited, scan, u, p);
		tour[s + 1] = next;
		aco_visit(visited, next);
	}
	return aco_tour_length(job->dist, n, tour);
}

static void construct_range(void *ctx, long begin, long end, int t)
{
	cpu_backend *c = ctx;
	const aco_job *job = c->job;
	for (long a = begin; a < end; a++) {
		int64_t len = build_tour(c, (int)a, t);
		int *tour = c->tours + (size_t)a * c->n;
		if (job->local_search != ACO_LS_NONE) {
			/* the length is measured again, not trusted to the search's sum */
			aco_local_search(job->local_search, c->n, job->dist, job->nn, job->ls_cand,
					 job->ls_cand, tour, c->ls_work + (size_t)t * ACO_LS_WORK_INTS(c->n),
					 job->seed, (int)a, c->iteration);
			len = aco_tour_length(job->dist, c->n, tour);
		}
		c->lengths[a] = len;
	}
}

static rt_status cpu_construct(aco_backend *b, uint32_t iteration, rt_error *err)
{
	cpu_backend *c = as_cpu(b);
	c->iteration = iteration;
	return cpu_parallel_for(c->ants, 1, construct_range, c, err);
}

static rt_status cpu_iteration_best(aco_backend *b, int64_t *length, int *ant, rt_error *err)
{
	cpu_backend *c = as_cpu(b);
	int best = 0;
	(void)err;
	for (int a = 1; a < c->ants; a++)
		if (c->lengths[a] < c->lengths[best])
			best = a;
	*length = c->lengths[best];
	*ant = best;
	return RT_OK;
}

static rt_status cpu_save(aco_backend *b, int ant, int slot, int *tour, rt_error *err)
{
	cpu_backend *c = as_cpu(b);
	size_t bytes = (size_t)c->n * sizeof *c->tours;
	(void)err;
	memcpy(c->slots + (size_t)slot * c->n, c->tours + (size_t)ant * c->n, bytes);
	if (tour)
		memcpy(tour, c->tours + (size_t)ant * c->n, bytes);
	return RT_OK;
}

/* ---- pheromone ----------------------------------------------------------------- */

typedef struct row_op {
	cpu_backend *c;
	float keep, tau_min, tau_max, value;
	int what;                      /* ROW_* */
} row_op;

enum { ROW_EVAPORATE, ROW_FINISH, ROW_RESET, ROW_CHOICE };

/* Rows [begin, end): evaporate, or clamp and recompute choice, or set, or
 * only recompute choice. */
static void rows_range(void *ctx, long begin, long end, int t)
{
	row_op *op = ctx;
	cpu_backend *c = op->c;
	const aco_job *job = c->job;
	size_t n = (size_t)c->n;
	(void)t;
	for (size_t i = (size_t)begin * n; i < (size_t)end * n; i++) {
		float tau = c->tau[i];
		if (op->what == ROW_EVAPORATE) {
			c->tau[i] = aco_evaporate(tau, op->keep);
			continue;
		}
		if (op->what != ROW_CHOICE)
			tau = op->what == ROW_RESET ? op->value : aco_clamp(tau, op->tau_min, op->tau_max);
		c->tau[i] = tau;
		c->choice[i] = aco_choice(tau, job->heur[i], job->alpha_int, (float)job->alpha);
	}
}

static rt_status cpu_update(aco_backend *b, int slot, int ant, float keep, float deposit,
			    float tau_min, float tau_max, rt_error *err)
{
	cpu_backend *c = as_cpu(b);
	row_op op = { c, keep, tau_min, tau_max, 0.0f, ROW_EVAPORATE };
	const int *tour = slot >= 0 ? c->slots + (size_t)slot * c->n : c->tours + (size_t)ant * c->n;
	size_t n = (size_t)c->n;
	rt_status st = cpu_parallel_for(c->n, 8, rows_range, &op, err);
	if (st != RT_OK)
		return st;
	for (size_t k = 0; k < n; k++) {
		size_t i = (size_t)tour[k], j = (size_t)tour[k + 1 < n ? k + 1 : 0];
		c->tau[i * n + j] = c->tau[i * n + j] + deposit;
		c->tau[j * n + i] = c->tau[j * n + i] + deposit;
	}
	op.what = ROW_FINISH;
	return cpu_parallel_for(c->n, 8, rows_range, &op, err);
}

static rt_status cpu_reset(aco_backend *b, float tau, rt_error *err)
{
	row_op op = { as_cpu(b), 0.0f, 0.0f, 0.0f, tau, ROW_RESET };
	return cpu_parallel_for(as_cpu(b)->n, 8, rows_range, &op, err);
}

/* lambda-branching: for each city, the candidates' pheromone range
 * [min, max] and cutoff = min + lambda (max - min) in float; counts the
 * candidates above the cutoff (full choice: every other city). */
static rt_status cpu_branching(aco_backend *b, float lambda, long *count, rt_error *err)
{
	cpu_backend *c = as_cpu(b);
	const aco_job *job = c->job;
	int n = c->n, L = job->cand ? job->cand_len : n;
	long total = 0;
	(void)err;
	for (int m = 0; m < n; m++) {
		const float *row = c->tau + (size_t)m * n;
		const int *cand = job->cand ? job->cand + (size_t)m * L : NULL;
		float lo = 0.0f, hi = 0.0f, cutoff;
		int first = 1;
		for (int k = 0; k < L; k++) {
			int j = cand ? cand[k] : k;
			if (j == m)
				continue;
			lo = first || row[j] < lo ? row[j] : lo;
			hi = first || row[j] > hi ? row[j] : hi;
			first = 0;
		}
		cutoff = lo + lambda * (hi - lo);
		for (int k = 0; k < L; k++) {
			int j = cand ? cand[k] : k;
			total += j != m && row[j] > cutoff;
		}
	}
	*count = total;
	return RT_OK;
}

static rt_status cpu_tours(aco_backend *b, int *tours, int64_t *lengths, rt_error *err)
{
	cpu_backend *c = as_cpu(b);
	(void)err;
	if (tours)
		memcpy(tours, c->tours, (size_t)c->ants * c->n * sizeof *tours);
	if (lengths)
		memcpy(lengths, c->lengths, (size_t)c->ants * sizeof *lengths);
	return RT_OK;
}

static rt_status cpu_get_state(aco_backend *b, float *tau, int *slots, rt_error *err)
{
	cpu_backend *c = as_cpu(b);
	size_t n = (size_t)c->n;
	(void)err;
	memcpy(tau, c->tau, n * n * sizeof *tau);
	memcpy(slots, c->slots, 2 * n * sizeof *slots);
	return RT_OK;
}

static rt_status cpu_set_state(aco_backend *b, const float *tau, const int *slots, rt_error *err)
{
	cpu_backend *c = as_cpu(b);
	size_t n = (size_t)c->n;
	row_op op = { c, 0.0f, 0.0f, 0.0f, 0.0f, ROW_CHOICE };
	memcpy(c->tau, tau, n * n * sizeof *tau);
	memcpy(c->slots, slots, 2 * n * sizeof *slots);
	return cpu_parallel_for(c->n, 8, rows_range, &op, err);
}

static void cpu_destroy(aco_backend *b)
{
	cpu_backend *c = as_cpu(b);
	if (!c)
		return;
	free(c->tau);
	free(c->choice);
	free(c->tours);
	free(c->lengths);
	free(c->slots);
	free(c->visited);
	free(c->scratch);
	free(c->ls_work);
	free(c);
}

static const aco_backend_ops cpu_ops = {
	cpu_construct, cpu_iteration_best, cpu_save, cpu_update, cpu_reset, cpu_branching,
	cpu_tours, cpu_get_state, cpu_set_state, cpu_destroy, "cpu"
};

rt_status aco_cpu_create(const aco_job *job, float tau0, aco_backend **out, rt_error *err)
{
	cpu_backend *c = rt_calloc(1, sizeof *c, err);
	size_t n = (size_t)job->n, n2 = n * n;
	int ok;
	if (!c)
		return RT_ERR_SYSTEM;
	c->base.ops = &cpu_ops;
	c->job = job;
	c->n = job->n;
	c->ants = job->ants;
	c->threads = cpu_threads();
	c->choice_len = job->cand ? job->cand_len : job->n;
	c->words = (job->n + 31) / 32;
	c->tau = rt_malloc(n2 * sizeof *c->tau, err);
	c->choice = rt_malloc(n2 * sizeof *c->choice, err);
	c->tours = rt_malloc((size_t)job->ants * n * sizeof *c->tours, err);
	c->lengths = rt_calloc((size_t)job->ants, sizeof *c->lengths, err);
	c->slots = rt_calloc(2 * n, sizeof *c->slots, err);
	c->visited = rt_malloc((size_t)c->threads * c->words * sizeof *c->visited, err);
	c->scratch = rt_malloc((size_t)c->threads * ((c->choice_len + 31) / 32 * 32) * sizeof(float), err);
	ok = c->tau && c->choice && c->tours && c->lengths && c->slots && c->visited && c->scratch;
	if (ok && job->local_search != ACO_LS_NONE) {
		c->ls_work = rt_malloc((size_t)c->threads * ACO_LS_WORK_INTS(n) * sizeof(int), err);
		ok = c->ls_work != NULL;
	}
	if (!ok || cpu_reset(&c->base, tau0, err) != RT_OK) {
		cpu_destroy(&c->base);
		return RT_ERR_SYSTEM;
	}
	cpu_model_name(c->base.device, sizeof c->base.device);
	snprintf(c->base.detail, sizeof c->base.detail, "%d threads, %s scan, %s", c->threads,
		 job->construct == ACO_CONSTRUCT_THREAD ? "sequential" : "warp-order",
		 job->cand ? "candidate lists" : "full choice");
	*out = &c->base;
	return RT_OK;
}
