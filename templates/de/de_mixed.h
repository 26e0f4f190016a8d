/* de_mixed.h: the two strategies that mix classic DE trial vectors, written
 * once and compiled both by the host (runtime/de/de_mixed.c) and into the
 * fused CUDA kernel (templates/de/de.cu), so both backends make the same
 * moves:
 *   CoDE  Wang, Cai & Zhang, "Differential evolution with composite trial
 *         vector generation strategies and control parameters", IEEE TEVC
 *         15(1), 2011
 *   SaDE  Qin, Huang & Suganthan, "Differential evolution algorithm with
 *         strategy adaptation for global numerical optimization", IEEE TEVC
 *         13(2), 2009
 *
 * Trial kinds (F: the individual's scale factor, K uniform in [0, 1)):
 *   RAND1          v = x_r1 + F (x_r2 - x_r3)                              binomial
 *   RAND_TO_BEST2  v = x_i + F (x_best - x_i) + F (x_r1 - x_r2) + F (x_r3 - x_r4)  binomial
 *   RAND2          v = x_r1 + F (x_r2 - x_r3) + F (x_r4 - x_r5)            binomial
 *   CUR_TO_RAND1   u = x_i + K (x_r1 - x_i) + F (x_r2 - x_r3)              no crossover
 * computed in float as nested fmaf, left term innermost, and bounded by the
 * job's rule (default for both strategies: reflect, CoDE's own rule).
 * x_best: the lowest index of the population's minimum. r1..r5 are
 * distinct and differ from i (each drawn from the indices left and mapped
 * past the excluded ones, as in de_core.h), so the population is at least 6.
 *
 * Draws of trial t (CoDE: 0..2; SaDE: 0) of individual i in generation g:
 *   MIX block 3t      words 0..3 -> r1..r4
 *   MIX block 3t + 1  word 0 -> r5, word 1 -> j_rand, word 2 -> CoDE's
 *                     setting (below 3), word 3 -> K (24 bits)
 *   MIX block 3t + 2  words 0, 1 -> SaDE's strategy (53-bit uniform u: the
 *                     first k with u < p_0 + .. + p_k, summed in order)
 *   CROSS block t nb + c, nb = ceil(D / 8): de_core.h's bits for dimensions 8c .. 8c + 7
 *   RESAMPLE block t ceil(D / 4) + j / 4 (bounds = resample)
 *   SaDE's F = 0.5 + 0.3 N(0, 1) from FNORM blocks 0..31 (not clipped: the
 *   paper's); CR = CRm_k + 0.1 N(0, 1) from CRNORM blocks 32a .. 32a + 31,
 *   attempt a = 0..7, the first in [0, 1] (after 8 attempts: clipped).
 *   N(0, 1): the polar method of de_adapt.h.
 *
 * CoDE, generation g: each individual builds three trials, RAND1, RAND2 and
 * CUR_TO_RAND1, each with a setting (F, CR) drawn from the pool
 * {(1.0, 0.1), (1.0, 0.9), (0.8, 0.2)}; the best of the three (lowest
 * value, the earlier on ties) replaces x_i when f <= f(x_i). It costs 3 NP
 * evaluations a generation.
 *
 * SaDE, generation g: individual i takes kind k (RAND1, RAND_TO_BEST2,
 * RAND2, CUR_TO_RAND1) with probability p_k, and its trial replaces x_i
 * when f(trial) <= f(x_i): a success of k, else a failure. Then, in
 * individual order: the generation's successes and failures of each kind
 * go into a ring of the last LP generations, and each success's CR into
 * kind k's ring of its last LP successful CRs (EvoX keeps the memory so;
 * the paper keeps every success of the last LP generations). Once LP
 * generations are recorded: p_k = S_k / sum S with S_k = ns_k / (ns_k +
 * nf_k) + 0.01 (0.01 when k was not used) and CRm_k = the median of k's
 * ring (kept when the ring is empty), used from the next generation on.
 * Before: p_k = 1/4, CRm_k = 0.5. */
#ifndef EVO_DE_MIXED_H
#define EVO_DE_MIXED_H

#include "de_adapt.h"

enum de_mix_kind { DE_MIX_RAND1 = 0, DE_MIX_RAND_TO_BEST2 = 1, DE_MIX_RAND2 = 2, DE_MIX_CUR_TO_RAND1 = 3 };
#define DE_MIX_KINDS 4
#define DE_CODE_TRIALS 3

/* SaDE's per-problem state, in doubles (integers exact); LP = params.H. */
#define DE_SA_GENS 0     /* generations recorded */
#define DE_SA_P 1        /* p_k */
#define DE_SA_CRM 5      /* CRm_k */
#define DE_SA_NS 9       /* successes of kind k over the ring's generations */
#define DE_SA_NF 13      /* failures */
#define DE_SA_COUNT 17   /* entries in kind k's CR ring */
#define DE_SA_HEAD 21    /* next slot of kind k's CR ring */
#define DE_SA_RING 25    /* successes [LP][4], failures [LP][4], then CRs [4][LP] */
#define DE_SA_LEN(lp) (DE_SA_RING + 12 * (lp))

RT_HD int de_is_mixed(int strategy)
{
	return strategy == DE_SADE || strategy == DE_CODE;
}

/* The least population a strategy runs with: 6 for these (five partners
 * besides the target), else 4 (de_core.h's three). */
RT_HD int de_min_population(int strategy)
{
	return de_is_mixed(strategy) ? 6 : 4;
}

/* One trial's kind, parameters and partners. */
typedef struct de_mpick {
	int kind;
	float F, K;
	double CR;
	uint32_t cr16, jrand;
	uint32_t r[5];
} de_mpick;

/* r[0..4]: distinct indices in [0, np), none i, from the words w. */
RT_HD void de_mix_indices(int np, uint32_t i, const uint32_t *w, uint32_t *r)
{
	uint32_t ex[6];   /* the excluded indices, ascending */
	int m = 1;
	ex[0] = i;
	for (int k = 0; k < 5; k++) {
		uint32_t v = philox_below(w[k], (uint32_t)(np - m));
		for (int e = 0; e < m; e++)
			v += v >= ex[e];
		int at = m;
		while (at > 0 && ex[at - 1] > v) {
			ex[at] = ex[at - 1];
			at--;
		}
		ex[at] = v;
		m++;
		r[k] = v;
	}
}

/* The partners, j_rand, K and the MIX words of trial t (k: the trial's picks so far). */
RT_HD void de_mix_partners(const de_params *p, uint32_t problem, uint32_t gen, uint32_t i, int t,
			   de_mpick *k, uint32_t *setting_word)
{
	philox4x32_ctr a = de_draw(p, problem, gen, i, DE_DRAW_MIX, 3u * (uint32_t)t);
	philox4x32_ctr b = de_draw(p, problem, gen, i, DE_DRAW_MIX, 3u * (uint32_t)t + 1u);
	uint32_t w[5] = { a.v[0], a.v[1], a.v[2], a.v[3], b.v[0] };
	de_mix_indices(p->np, i, w, k->r);
	k->jrand = philox_below(b.v[1], (uint32_t)p->dim);
	*setting_word = b.v[2];
	k->K = philox_u01f(b.v[3]);
}

/* Trial t of individual i (kind, F, CR and partners in k; best: x_best's
 * index), written to out[j * so]; the population at pop[i * si + j * sj]. */
RT_HD void de_mix_trial(const de_params *p, const float *pop, int si, int sj, const de_mpick *k,
			uint32_t best, float *out, int so, uint32_t problem, uint32_t gen, uint32_t i, int t)
{
	const int nb = (p->dim + 7) / 8, nr = 4 * ((p->dim + 3) / 4);
	const float F = k->F, K = k->K;
	const int kind = k->kind;
	const int r1 = (int)k->r[0], r2 = (int)k->r[1], r3 = (int)k->r[2], r4 = (int)k->r[3], r5 = (int)k->r[4];
	for (int jb = 0; jb < p->dim; jb += 8) {
		philox4x32_ctr c = de_draw(p, problem, gen, i, DE_DRAW_CROSS, (uint32_t)(t * nb + (jb >> 3)));
		for (int q = 0; q < 8; q++) {
			int j = jb + q;
			if (j >= p->dim)
				break;
			float x = pop[(int)i * si + j * sj], v;
			float a = pop[r1 * si + j * sj], b = pop[r2 * si + j * sj], d = pop[r3 * si + j * sj];
			if (kind == DE_MIX_RAND1)
				v = fmaf(F, b - d, a);
			else if (kind == DE_MIX_RAND2)
				v = fmaf(F, pop[r4 * si + j * sj] - pop[r5 * si + j * sj], fmaf(F, b - d, a));
			else if (kind == DE_MIX_RAND_TO_BEST2)
				v = fmaf(F, d - pop[r4 * si + j * sj], fmaf(F, a - b, fmaf(F, pop[(int)best * si + j * sj] - x, x)));
			else
				v = fmaf(F, b - d, fmaf(K, a - x, x));
			v = de_bound(p, v, x, problem, gen, i, (uint32_t)(t * nr + j));
			uint32_t w = c.v[q >> 1];
			uint32_t h = (q & 1) ? (w >> 16) : (w & 0xffffu);
			int take = kind == DE_MIX_CUR_TO_RAND1 || h < k->cr16 || (uint32_t)j == k->jrand;
			out[j * so] = take ? v : x;
		}
	}
}

/* ---- CoDE ---------------------------------------------------------------------- */

/* Trial t (0..2) of individual i: its kind, setting and partners. */
RT_HD de_mpick de_code_pick(const de_params *p, uint32_t problem, uint32_t gen, uint32_t i, int t)
{
	de_mpick k;
	uint32_t sw;
	de_mix_partners(p, problem, gen, i, t, &k, &sw);
	uint32_t s = philox_below(sw, 3u);
	k.kind = t == 0 ? DE_MIX_RAND1 : t == 1 ? DE_MIX_RAND2 : DE_MIX_CUR_TO_RAND1;
	k.F = s == 2u ? 0.8f : 1.0f;
	k.CR = s == 0u ? 0.1 : s == 1u ? 0.9 : 0.2;
	k.cr16 = (uint32_t)ceil(k.CR * 65536.0);
	return k;
}

/* Is trial value f (trial t) better than the best so far (fb; t = 0: none)? */
RT_HD int de_code_better(float f, float fb, int t)
{
	return t == 0 || f < fb;
}

/* ---- SaDE ---------------------------------------------------------------------- */

/* The state before generation 1. */
RT_HD void de_sade_init(const de_params *p, double *ad)
{
	for (int k = 0; k < DE_SA_LEN(p->H); k++)
		ad[k] = 0.0;
	for (int k = 0; k < DE_MIX_KINDS; k++) {
		ad[DE_SA_P + k] = 0.25;
		ad[DE_SA_CRM + k] = 0.5;
	}
}

/* The per-problem state of an adaptive strategy after generation 0. */
RT_HD void de_strategy_init(const de_params *p, double *ad)
{
	if (p->strategy == DE_SADE)
		de_sade_init(p, ad);
	else
		de_adapt_init(p, ad);
}

/* Individual i's kind, F, CR and partners in generation gen. */
RT_HD de_mpick de_sade_pick(const de_params *p, const double *ad, uint32_t problem, uint32_t gen, uint32_t i)
{
	de_mpick k;
	uint32_t sw;
	de_mix_partners(p, problem, gen, i, 0, &k, &sw);
	philox4x32_ctr c = de_draw(p, problem, gen, i, DE_DRAW_MIX, 2u);
	double u = philox_u01d(c.v[0], c.v[1]), sum = 0.0;
	k.kind = DE_MIX_KINDS - 1;
	for (int s = 0; s < DE_MIX_KINDS - 1; s++) {
		sum += ad[DE_SA_P + s];
		if (u < sum) {
			k.kind = s;
			break;
		}
	}
	k.F = (float)(0.5 + 0.3 * de_normal_at(p, problem, gen, i, DE_DRAW_FNORM, 0));
	double crm = ad[DE_SA_CRM + k.kind], cr = crm;
	for (uint32_t a = 0; a < 8; a++) {
		cr = crm + 0.1 * de_normal_at(p, problem, gen, i, DE_DRAW_CRNORM, 32u * a);
		if (cr >= 0.0 && cr <= 1.0)
			break;
	}
	k.CR = cr < 0.0 ? 0.0 : cr > 1.0 ? 1.0 : cr;
	k.cr16 = (uint32_t)ceil(k.CR * 65536.0);
	return k;
}

/* Kind k's outcomes of a generation (kind[i], cr[i], success[i] != 0 for
 * i < np, in individual order) into its window of counts and its CR ring;
 * recorded: the generations recorded before this one. The kinds are
 * independent (a thread each on the GPU: each keeps its counts, head and
 * count in registers and only stores to the state). */
RT_HD void de_sade_record_kind(const de_params *p, double *ad, int k, double recorded, const double *kind,
			       const double *cr, const double *success)
{
	const int lp = p->H, row = (int)recorded % lp;
	double *ns = ad + DE_SA_RING + row * DE_MIX_KINDS + k, *nf = ns + lp * DE_MIX_KINDS;
	double *crs = ad + DE_SA_RING + 2 * lp * DE_MIX_KINDS + k * lp;
	int n_s = 0, n_f = 0, head = (int)ad[DE_SA_HEAD + k], count = (int)ad[DE_SA_COUNT + k];
	for (int i = 0; i < p->np; i++) {
		if ((int)kind[i] != k)
			continue;
		if (success[i] == 0.0) {
			n_f++;
			continue;
		}
		n_s++;
		crs[head] = cr[i];
		head = head + 1 < lp ? head + 1 : 0;
		count += count < lp;
	}
	ad[DE_SA_NS + k] += (double)n_s - *ns;   /* the row leaving the window, the new one */
	ad[DE_SA_NF + k] += (double)n_f - *nf;
	*ns = (double)n_s;
	*nf = (double)n_f;
	ad[DE_SA_HEAD + k] = (double)head;
	ad[DE_SA_COUNT + k] = (double)count;
}

/* Kind k's CRm once LP generations are recorded (recorded: this one
 * included): the median of its ring, the entries of rank (n-1)/2 and n/2
 * by (value, slot) found by counting (no sorting, no scratch). */
RT_HD void de_sade_learn_cr(const de_params *p, double *ad, int k, double recorded)
{
	const int lp = p->H, n = (int)ad[DE_SA_COUNT + k];
	if (recorded < (double)lp || n == 0)
		return;
	const double *ring = ad + DE_SA_RING + 2 * lp * DE_MIX_KINDS + k * lp;
	double lo = 0.0, hi = 0.0;
	for (int a = 0; a < n; a++) {
		double v = ring[a];
		int rank = 0;
		for (int b = 0; b < n; b++)
			rank += ring[b] < v || (ring[b] == v && b < a);
		lo = rank == (n - 1) / 2 ? v : lo;
		hi = rank == n / 2 ? v : hi;
	}
	ad[DE_SA_CRM + k] = n % 2 ? hi : (lo + hi) * 0.5;
}

/* The kinds' probabilities once LP generations are recorded (this one
 * included), after every kind's record; then the generation is counted. */
RT_HD void de_sade_learn_p(const de_params *p, double *ad, double recorded)
{
	ad[DE_SA_GENS] = recorded;
	if (recorded < (double)p->H)
		return;
	double S[DE_MIX_KINDS], sum = 0.0;
	for (int k = 0; k < DE_MIX_KINDS; k++) {
		double used = ad[DE_SA_NS + k] + ad[DE_SA_NF + k];
		S[k] = (used > 0.0 ? ad[DE_SA_NS + k] / used : 0.0) + 0.01;
		sum += S[k];
	}
	for (int k = 0; k < DE_MIX_KINDS; k++)
		ad[DE_SA_P + k] = S[k] / sum;
}

#endif
