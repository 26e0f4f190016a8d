/* de_core.h: one generation of DE/rand/1/bin and DE/best/1/bin, written once
 * and compiled both by the host (runtime/de/de_cpu.c, tests) and into the CUDA
 * kernels (templates/de/de.cu), so both backends make the same moves.
 *
 * Random draws are addressable (Philox4x32-10, templates/philox.h): each is
 * philox_block(seed, stream, n) with
 *     stream = individual << 32 | problem (its global index: problem_base + local)
 *     n      = generation << 32 | purpose << 28 | block
 * and purpose one of DE_DRAW_*. Generation 0 is the initial population.
 * Per individual and generation:
 *     PICK     block 0: words 0..2 choose r1, r2, r3, word 3 chooses j_rand
 *     CROSS    block b: 16 bits per dimension for dimensions 8b .. 8b+7
 *     RESAMPLE block b: word j % 4 for dimension j = 4b + j % 4 (bounds)
 *     INIT     block b: word j % 4 for dimension j (generation 0 only)
 * No draw depends on another, so a thread, a CPU loop or a test can compute
 * exactly the numbers it needs in any order.
 *
 * Indices: r1, r2, r3 are distinct and differ from i without rejection:
 * r_k is drawn uniformly from the NP - k indices left and mapped past the
 * excluded ones in ascending order. DE/rand/1: v = x_r1 + F (x_r2 - x_r3);
 * DE/best/1: v = x_best + F (x_r1 - x_r2), best = lowest index of the
 * population's minimum. Crossover takes v_j when (16 random bits) < CR*65536
 * or j = j_rand. Selection keeps the trial when f(trial) <= f(target). */
#ifndef EVO_DE_CORE_H
#define EVO_DE_CORE_H

#include "philox.h"
#include "de_functions.h"

#if defined(__CUDACC__)
#  define DE_UNROLL _Pragma("unroll")
#else
#  define DE_UNROLL
#endif

/* JADE .. JSO: the adaptive strategies of templates/de/de_adapt.h; SADE,
 * CODE: the mixed ones of templates/de/de_mixed.h. */
enum de_strategy { DE_RAND_1_BIN = 0, DE_BEST_1_BIN = 1, DE_JADE = 2, DE_SHADE = 3, DE_LSHADE = 4,
		   DE_JSO = 5, DE_SADE = 6, DE_CODE = 7 };
/* MIDPOINT: halfway between the parent's component and the violated bound
 * (the rule of the SHADE line). */
enum de_bounds { DE_BOUNDS_REFLECT = 0, DE_BOUNDS_CLIP = 1, DE_BOUNDS_RESAMPLE = 2,
		 DE_BOUNDS_MIDPOINT = 3 };
/* ADAPT .. ARCHIVE: drawn by the adaptive strategies only (de_adapt.h);
 * MIX, FNORM: by CoDE and SaDE (de_mixed.h, SaDE's CR from CRNORM). */
enum de_purpose { DE_DRAW_INIT = 0, DE_DRAW_PICK = 1, DE_DRAW_CROSS = 2, DE_DRAW_RESAMPLE = 3,
		  DE_DRAW_ADAPT = 4, DE_DRAW_CRNORM = 5, DE_DRAW_FCAUCHY = 6, DE_DRAW_ARCHIVE = 7,
		  DE_DRAW_MIX = 8, DE_DRAW_FNORM = 9 };

/* Everything a generation needs besides the population. On the GPU it is
 * built from the generator's constants, so the compiler folds it away. */
typedef struct de_params {
	int dim, np;           /* np >= 4 */
	int strategy, bounds;  /* enum de_strategy, enum de_bounds */
	uint32_t cr16;         /* ceil(CR * 65536): crossover when bits < cr16 */
	float F;
	float lower, upper;    /* the box, for every dimension */
	uint64_t seed;
	uint32_t problem_base; /* global index of problem 0 (a process's share, de_shard.c) */
	/* the adaptive strategies (de_adapt.h, de_mixed.h); unused by rand/1 and best/1 */
	int H;                 /* success-history memory size (JADE: 1; SaDE: learning period LP) */
	int np_min;            /* L-SHADE, jSO: final population (np is the initial one) */
	int a_cap;             /* archive slots: round(archive_rate * np), at least 1 */
	double p_best;         /* JADE, L-SHADE: p; jSO: p at the start; SHADE: upper end of p_i */
	double arc_rate;       /* archive size / population size */
	double mf0, mcr0;      /* initial memory values */
	double max_evals;      /* per problem: L-SHADE's and jSO's schedules */
} de_params;

/* Per-problem state shared by the GPU kernels and the host (16 bytes). */
typedef struct de_state {
	float best;       /* minimum of the current population */
	int32_t best_index;
	int32_t gens;     /* generations done; -1 before initialisation */
	int32_t done;     /* 1: reached the target, stopped */
} de_state;

/* The chosen indices of one trial. */
typedef struct de_pick {
	uint32_t base, a, b;   /* v = x_base + F (x_a - x_b) */
	uint32_t jrand;        /* dimension always taken from v */
} de_pick;

RT_HD philox4x32_ctr de_draw(const de_params *p, uint32_t problem, uint32_t gen, uint32_t ind,
			     uint32_t purpose, uint32_t block)
{
	uint64_t stream = ((uint64_t)ind << 32) | (problem + p->problem_base);
	uint64_t n = ((uint64_t)gen << 32) | ((uint64_t)purpose << 28) | block;
	return philox_block(p->seed, stream, n);
}

/* Word k (0..3) of a block, by selects (no local-memory indexing on the GPU). */
RT_HD uint32_t de_word(philox4x32_ctr c, uint32_t k)
{
	uint32_t lo = (k & 1u) ? c.v[1] : c.v[0];
	uint32_t hi = (k & 1u) ? c.v[3] : c.v[2];
	return (k & 2u) ? hi : lo;
}

/* A float fitness with NaN replaced by +inf, so comparisons stay total. */
RT_HD float de_sane(float f)
{
	return f == f ? f : DE_INF;
}

/* Does (v, i) come before (w, k)? Lowest value, then lowest index. */
RT_HD int de_before(float v, uint32_t i, float w, uint32_t k)
{
	return (v < w) | ((v == w) & (i < k));
}

/* Component j of individual i of the initial population of `problem`. */
RT_HD float de_init_value(const de_params *p, philox4x32_ctr c, uint32_t j)
{
	float x = fmaf(p->upper - p->lower, philox_u01f(de_word(c, j & 3u)), p->lower);
	return fminf(x, p->upper);
}

/* Components 4c .. 4c + 3 of the initial individual i (INIT block c) to
 * out[j * so]; a thread of the multi-block kernel does one such chunk. */
RT_HD void de_init_chunk(const de_params *p, uint32_t problem, uint32_t i, int c, float *out, int so)
{
	philox4x32_ctr r = de_draw(p, problem, 0, i, DE_DRAW_INIT, (uint32_t)c);
	DE_UNROLL
	for (int q = 0; q < 4; q++) {
		int j = 4 * c + q;
		if (j < p->dim)
			out[j * so] = de_init_value(p, r, (uint32_t)j);
	}
}

/* Writes the initial individual i to out[j * so]. */
RT_HD void de_init_individual(const de_params *p, uint32_t problem, uint32_t i, float *out, int so)
{
	for (int c = 0; 4 * c < p->dim; c++)
		de_init_chunk(p, problem, i, c, out, so);
}

/* The indices of the trial of individual i in generation gen (gen >= 1);
 * best is the population's best index (used by DE/best/1). */
RT_HD de_pick de_pick_indices(const de_params *p, uint32_t problem, uint32_t gen, uint32_t i,
			      uint32_t best)
{
	philox4x32_ctr c = de_draw(p, problem, gen, i, DE_DRAW_PICK, 0);
	uint32_t n = (uint32_t)p->np;
	uint32_t r1 = philox_below(c.v[0], n - 1u);
	r1 += r1 >= i;
	uint32_t lo = r1 < i ? r1 : i, hi = r1 < i ? i : r1;
	uint32_t r2 = philox_below(c.v[1], n - 2u);
	r2 += r2 >= lo;
	r2 += r2 >= hi;
	/* {i, r1, r2} sorted: s0 < s1 < s2 */
	uint32_t s0 = r2 < lo ? r2 : lo;
	uint32_t s2 = r2 > hi ? r2 : hi;
	uint32_t s1 = lo + hi + r2 - s0 - s2;
	uint32_t r3 = philox_below(c.v[2], n - 3u);
	r3 += r3 >= s0;
	r3 += r3 >= s1;
	r3 += r3 >= s2;
	de_pick k;
	int b = p->strategy == DE_BEST_1_BIN;
	k.base = b ? best : r1;
	k.a = b ? r1 : r2;
	k.b = b ? r2 : r3;
	k.jrand = philox_below(c.v[3], (uint32_t)p->dim);
	return k;
}

/* Brings a mutant component back into [lower, upper]; x is the parent's
 * component (MIDPOINT). */
RT_HD float de_bound(const de_params *p, float v, float x, uint32_t problem, uint32_t gen, uint32_t i,
		     uint32_t j)
{
	float lo = p->lower, hi = p->upper;
	if (p->bounds == DE_BOUNDS_MIDPOINT) {
		v = v < lo ? (lo + x) * 0.5f : v;
		v = v > hi ? (hi + x) * 0.5f : v;
		return fminf(fmaxf(v, lo), hi);   /* NaN -> lo */
	}
	if (p->bounds == DE_BOUNDS_CLIP)
		return fminf(fmaxf(v, lo), hi);
	if (p->bounds == DE_BOUNDS_REFLECT) {
		v = v < lo ? lo + (lo - v) : v;
		v = v > hi ? hi - (v - hi) : v;
		return fminf(fmaxf(v, lo), hi);   /* far outside: clip (and NaN -> lo) */
	}
	if (!(v >= lo && v <= hi)) {              /* resample, NaN included */
		philox4x32_ctr c = de_draw(p, problem, gen, i, DE_DRAW_RESAMPLE, j >> 2);
		v = fminf(fmaf(hi - lo, philox_u01f(de_word(c, j & 3u)), lo), hi);
	}
	return v;
}

/* Mutant component j of individual i from the donors' components:
 * base + F (a - b), bounded (x: the parent's component). */
RT_HD float de_mutant_value(const de_params *p, float base, float a, float b, float x,
			    uint32_t problem, uint32_t gen, uint32_t i, uint32_t j)
{
	float v = fmaf(p->F, a - b, base);
	return de_bound(p, v, x, problem, gen, i, j);
}

/* Mutant component j (bounded), from a population at pop[i * si + j * sj]. */
RT_HD float de_mutant(const de_params *p, const float *pop, int si, int sj, de_pick k, int j,
		      uint32_t problem, uint32_t gen, uint32_t i)
{
	return de_mutant_value(p, pop[(int)k.base * si + j * sj], pop[(int)k.a * si + j * sj],
			       pop[(int)k.b * si + j * sj], pop[(int)i * si + j * sj], problem, gen, i,
			       (uint32_t)j);
}

/* Does the trial take the mutant's component j = 8 * block + q? c is CROSS block. */
RT_HD int de_take(const de_params *p, philox4x32_ctr c, int q, int j, uint32_t jrand)
{
	uint32_t w = c.v[q >> 1];
	uint32_t h = (q & 1) ? (w >> 16) : (w & 0xffffu);
	return (h < p->cr16) | ((uint32_t)j == jrand);
}

/* Trial components j = 8c .. 8c + 7 (CROSS block c) of individual i from
 * the components j of its parent x and donors base, a, b, found at [q * s]
 * for j = 8c + q, to out[q * so]. The multi-block kernel passes them in
 * registers (loaded as vectors), de_trial_chunk as a population's rows. */
RT_HD void de_trial_chunk_rows(const de_params *p, const float *x, const float *base, const float *a,
			       const float *b, int s, float *out, int so, uint32_t problem, uint32_t gen,
			       uint32_t i, uint32_t jrand, int c)
{
	philox4x32_ctr r = de_draw(p, problem, gen, i, DE_DRAW_CROSS, (uint32_t)c);
	DE_UNROLL
	for (int q = 0; q < 8; q++) {
		int j = 8 * c + q;
		if (j < p->dim) {
			float v = de_mutant_value(p, base[q * s], a[q * s], b[q * s], x[q * s], problem, gen, i,
						  (uint32_t)j);
			out[q * so] = de_take(p, r, q, j, jrand) ? v : x[q * s];
		}
	}
}

/* The same from a population at pop[i * si + j * sj] with the indices k. */
RT_HD void de_trial_chunk(const de_params *p, const float *pop, int si, int sj, float *out, int so,
			  uint32_t problem, uint32_t gen, uint32_t i, de_pick k, int c)
{
	const float *col = pop + 8 * c * sj;
	de_trial_chunk_rows(p, col + (int)i * si, col + (int)k.base * si, col + (int)k.a * si,
			    col + (int)k.b * si, sj, out + 8 * c * so, so, problem, gen, i, k.jrand, c);
}

/* The trial vector of individual i in generation gen, written to out[j * so].
 * Reads the population only (never out), so all trials of a generation can
 * be built before any is selected. */
RT_HD void de_make_trial(const de_params *p, const float *pop, int si, int sj, float *out, int so,
			 uint32_t problem, uint32_t gen, uint32_t i, uint32_t best)
{
	de_pick k = de_pick_indices(p, problem, gen, i, best);
	for (int c = 0; 8 * c < p->dim; c++)
		de_trial_chunk(p, pop, si, sj, out, so, problem, gen, i, k, c);
}

#endif
