/* aco_core.h: the semantics of MAX-MIN Ant System's tour construction and
 * pheromone update, written once and compiled both by the host
 * (runtime/aco/aco_cpu.c, tests) and into the CUDA kernels
 * (templates/aco/aco.cu), so both backends build the same tours.
 *
 * Random draws are addressable (Philox4x32-10, templates/philox.h): each is
 * philox_block(seed, stream = ant, n) with
 *     n = iteration << 32 | purpose << 28 | block
 *     START  block 0, word 0: the ant's first city, philox_below(word, n)
 *     STEP   block b, word s % 4: the uniform of choice s = 4b .. 4b+3
 *            (s = 0 .. n-2: an ant makes n - 1 choices)
 *     LS     local search's own draws (templates/aco/aco_ls.h)
 * No draw depends on another, so a thread, a warp or a CPU loop computes
 * exactly the numbers it needs.
 *
 * One choice, from city c (ACOTSP's neighbour_choose_and_move_to_next):
 *   weight w_j = choice[c][cand_j] for the unvisited candidates, 0 for the
 *   visited ones (cand = the c's nearest-neighbour list, or every city
 *   0..n-1 with full choice); choice = tau^alpha * eta^beta,
 *   eta = 1 / (d + 0.1), integer exponents as repeated multiplication.
 *   Prefix sums P_j in one of two fixed orders:
 *     ACO_SCAN_SEQ   P_j = P_{j-1} + w_j  (the ant-per-thread baseline)
 *     ACO_SCAN_WARP  chunks of 32 (zero-padded); inside a chunk the
 *                    Hillis-Steele inclusive scan that __shfl_up_sync does
 *                    (offsets 1, 2, 4, 8, 16); P = carry + chunk scan, the
 *                    carry being the last P of the previous chunk
 *   total T = the last P. If T > 0: r = u * T and the ant moves to the first
 *   candidate with w_j > 0 and P_j > r (if rounding leaves none, the last
 *   with w_j > 0); w_j > 0 matters: in the warp order a visited slot's P_j
 *   can round one step above P_{j-1}.
 *   If T == 0 (every candidate visited): the unvisited city with the largest
 *   choice value, the lowest index on ties (ACOTSP's choose_best_next).
 * Float operations are IEEE single precision with no contraction (NVRTC
 * --fmad=false, the host compiled with -ffp-contract=off), so both sides get
 * the same bits.
 *
 * Pheromone update (ACOTSP's mmas_update order): tau = tau * keep
 * (keep = 1 - rho as a float: the seed's "gamma"), then tau += deposit on
 * both directions of every edge of the depositing tour (deposit = 1 / L as
 * a float), then clamped to [tau_min, tau_max], then choice recomputed. */
#ifndef EVO_ACO_CORE_H
#define EVO_ACO_CORE_H

#include "common.h"
#include "philox.h"

enum aco_purpose { ACO_DRAW_START = 0, ACO_DRAW_STEP = 1, ACO_DRAW_LS = 2 };
enum aco_scan { ACO_SCAN_SEQ = 0, ACO_SCAN_WARP = 1 };

/* Philox counter of (iteration, purpose, block). */
RT_HD uint64_t aco_draw_n(uint32_t iteration, uint32_t purpose, uint32_t block)
{
	return (uint64_t)iteration << 32 | (uint64_t)purpose << 28 | (uint64_t)block;
}

/* The first city of `ant` in `iteration`. */
RT_HD int aco_start_city(uint64_t seed, int ant, uint32_t iteration, int n)
{
	philox4x32_ctr r = philox_block(seed, (uint64_t)ant, aco_draw_n(iteration, ACO_DRAW_START, 0));
	return (int)philox_below(r.v[0], (uint32_t)n);
}

/* The uniform in [0, 1) of choice `step` of `ant` in `iteration`. */
RT_HD float aco_step_uniform(uint64_t seed, int ant, uint32_t iteration, int step)
{
	philox4x32_ctr r = philox_block(seed, (uint64_t)ant,
					aco_draw_n(iteration, ACO_DRAW_STEP, (uint32_t)step >> 2));
	return philox_u01f(r.v[step & 3]);
}

/* x^k for a whole k >= 0 by repeated multiplication, left to right
 * (((x * x) * x) ...): with k a compile-time constant the loop unrolls. */
RT_HD float aco_ipow(float x, int k)
{
	float r = 1.0f;
	for (int i = 0; i < k; i++)
		r = i == 0 ? x : r * x;
	return r;
}

/* eta^beta for an integer distance d: eta = 1 / (d + 0.1). beta_int >= 0
 * is a whole exponent; beta_int < 0 means use powf(eta, beta). */
RT_HD float aco_heuristic(int d, int beta_int, float beta)
{
	float eta = 1.0f / ((float)d + 0.1f);
	return beta_int >= 0 ? aco_ipow(eta, beta_int) : powf(eta, beta);
}

/* tau^alpha * heuristic (alpha as beta above). */
RT_HD float aco_choice(float tau, float heuristic, int alpha_int, float alpha)
{
	float ta = alpha_int >= 0 ? aco_ipow(tau, alpha_int) : powf(tau, alpha);
	return ta * heuristic;
}

/* One pheromone cell after evaporation (before the deposit). */
RT_HD float aco_evaporate(float tau, float keep) { return tau * keep; }

/* One pheromone cell kept within [tau_min, tau_max]. */
RT_HD float aco_clamp(float tau, float tau_min, float tau_max)
{
	return tau < tau_min ? tau_min : (tau > tau_max ? tau_max : tau);
}

/* Visited set: one bit per city. */
RT_HD int aco_visited(const uint32_t *bits, int city) { return (bits[city >> 5] >> (city & 31)) & 1u; }
RT_HD void aco_visit(uint32_t *bits, int city) { bits[city >> 5] |= 1u << (city & 31); }

/* Weight of candidate slot j from city c (0 when visited or past the list). */
RT_HD float aco_weight(const float *choice_row, const int *cand_row, int len, int j,
		       const uint32_t *visited)
{
	int city;
	if (j >= len)
		return 0.0f;
	city = cand_row ? cand_row[j] : j;
	return aco_visited(visited, city) ? 0.0f : choice_row[city];
}

/* Prefix sums of the weights into p[0 .. round_up(len, 32)) in the chosen
 * order; returns the total. */
RT_HD float aco_prefix(const float *choice_row, const int *cand_row, int len,
		       const uint32_t *visited, int scan, float *p)
{
	float carry = 0.0f;
	if (scan == ACO_SCAN_SEQ) {
		for (int j = 0; j < len; j++) {
			carry = j == 0 ? aco_weight(choice_row, cand_row, len, 0, visited)
				       : carry + aco_weight(choice_row, cand_row, len, j, visited);
			p[j] = carry;
		}
		return carry;
	}
	for (int base = 0; base < len; base += 32) {
		float *q = p + base;
		for (int i = 0; i < 32; i++)
			q[i] = aco_weight(choice_row, cand_row, len, base + i, visited);
		for (int off = 1; off < 32; off <<= 1)
			for (int i = 31; i >= off; i--)
				q[i] = q[i] + q[i - off];
		if (base > 0)
			for (int i = 0; i < 32; i++)
				q[i] = carry + q[i];
		carry = q[31];
	}
	return carry;
}

/* The unvisited city with the largest choice value (lowest index on ties);
 * -1 if every city is visited. */
RT_HD int aco_best_unvisited(const float *choice_row, int n, const uint32_t *visited)
{
	int best = -1;
	float v = -1.0f;
	for (int j = 0; j < n; j++)
		if (!aco_visited(visited, j) && choice_row[j] > v) {
			v = choice_row[j];
			best = j;
		}
	return best;
}

/* The next city from the one whose choice row and candidate list are given
 * (cand_row NULL: full choice over len = n cities), drawing u. p is scratch
 * for round_up(len, 32) floats. */
RT_HD int aco_choose_next(const float *choice_row, const int *cand_row, int len, int n,
			  const uint32_t *visited, int scan, float u, float *p)
{
	float total = aco_prefix(choice_row, cand_row, len, visited, scan, p);
	float r;
	int last = -1;
	if (!(total > 0.0f))
		return aco_best_unvisited(choice_row, n, visited);
	r = u * total;
	for (int j = 0; j < len; j++) {
		/* only a slot that weighs counts: in the warp order a visited slot's
		 * P_j can sit one rounding step above P_{j-1} */
		if (!(aco_weight(choice_row, cand_row, len, j, visited) > 0.0f))
			continue;
		if (p[j] > r)
			return cand_row ? cand_row[j] : j;
		last = j;
	}
	return cand_row ? cand_row[last] : last;
}

/* Length of the closed tour (dist: n x n, row-major). */
RT_HD int64_t aco_tour_length(const int *dist, int n, const int *tour)
{
	int64_t sum = 0;
	for (int k = 0; k + 1 < n; k++)
		sum += dist[(int64_t)tour[k] * n + tour[k + 1]];
	return sum + dist[(int64_t)tour[n - 1] * n + tour[0]];
}

#endif
