/* de_adapt.h: the adaptive DE strategies of the CEC line, written once and
 * compiled both by the host (runtime/de/de_adapt.c) and into the fused CUDA
 * kernel (templates/de/de.cu), so both backends make the same moves:
 *   JADE    Zhang & Sanderson, IEEE TEVC 13(5), 2009
 *   SHADE   Tanabe & Fukunaga, CEC 2013
 *   L-SHADE Tanabe & Fukunaga, CEC 2014
 *   jSO     Brest, Maucec & Boskovic, CEC 2017
 * all DE/current-to-pbest/1/bin with an external archive:
 *   v = x_i + Fw (x_pbest - x_i) + F (x_r1 - x~_r2)
 * (Fw = F except jSO), computed in float as (x_i + Fw*(x_pb - x_i)) + F*(x_r1 - x~_r2).
 *
 * Sequential semantics of generation g >= 1 of one problem (the GPU runs
 * the per-individual steps in parallel and the rest on one thread; every
 * result is the same):
 *  1. rank the na active individuals by (fitness, index); order[r] = the
 *     individual of rank r.
 *  2. for each active i, from the population and archive at the start of
 *     the generation (the "state" ad below, unchanged during the step):
 *     - ADAPT block 0: word 0 -> memory slot r = below(H); words 1, 2 ->
 *       SHADE's p_i (53-bit uniform); word 3 -> pbest = order[below(pnum)]
 *     - ADAPT block 1: word 0 -> r1 (population, not i), word 1 -> r2
 *       (population and archive, not i, r1; chosen as in de_core.h, mapped
 *       past the excluded indices), word 2 -> j_rand
 *     - CR_i: M_CR[r] terminal (L-SHADE, jSO: stored as -1) -> 0, else
 *       M_CR[r] + 0.1 N(0,1) clipped to [0, 1]. N(0,1) by Marsaglia's polar
 *       method, attempt k from CRNORM block k (two 53-bit uniforms), at most
 *       32 attempts (then 0).
 *     - F_i: M_F[r] + 0.1 C(0,1) until > 0, C(0,1) = v2 / v1 of a point
 *       uniform in the unit disc (no transcendental function at all),
 *       attempt k from FCAUCHY block k, at most 64 attempts (then M_F[r]);
 *       then min(F_i, 1).
 *     - jSO: slot H-1 reads 0.9 for both; CR_i >= 0.7 before 25% of the
 *       evaluations, >= 0.6 before 50%; F_i <= 0.7 before 60%; Fw = 0.7 F,
 *       0.8 F, 1.2 F before 20%, 40%, after; p = p_best (1 - nfes / (2 max)),
 *       the paper's linear decrease from pmax = 0.25 to pmin = pmax / 2 (as
 *       Boost.Math's jSO reads it too).
 *     - pnum = max(2, round(p na)), at most na (SHADE: p = p_i uniform in
 *       [2/na, p_best]).
 *     - mutant bounded by the job's rule (default MIDPOINT), binomial
 *       crossover with the CROSS draws of de_core.h against ceil(CR_i 65536).
 *     - selection: the trial replaces x_i when f(trial) <= f(x_i); it is a
 *       success when f(trial) < f(x_i), with weight delta = f(x_i) - f(trial)
 *       in double (capped at 1e300).
 *  3. archive, in individual-index order over the successes: the parent
 *     x_i (old population) is appended while the archive has fewer than
 *     amax entries, else it replaces slot below(amax) drawn from ARCHIVE
 *     block 0 word 0 of (g, i). A slot written twice keeps the later one.
 *  4. memory (only when there was a success), sums in index order in
 *     double, w_k = delta_k / sum delta:
 *     JADE:    mu_CR = 0.9 mu_CR + 0.1 mean(S_CR); mu_F = 0.9 mu_F + 0.1 Lehmer(S_F)
 *     SHADE:   M_CR[k] = sum w CR; M_F[k] = sum w F^2 / sum w F; k = k + 1 mod H
 *     L-SHADE: as SHADE, but M_CR[k] = sum w CR^2 / sum w CR, and terminal
 *              (-1) when it already was or max S_CR = 0
 *     jSO:     L-SHADE's values averaged with the old M[k] (terminal as L-SHADE)
 *  5. nfes += na.
 *  6. L-SHADE, jSO: na' = max(np_min, round((np_min - np) / max_evals * nfes
 *     + np)); when na' < na the na' best of the new population (rank by
 *     fitness, then index) are kept, moved down in index order; amax =
 *     round(arc_rate na'), the archive truncated to its first amax entries.
 *     Slots from na on hold fitness +inf (their vectors are unspecified).
 * A generation of L-SHADE or jSO runs only while nfes + na <= max_evals
 * (de_adapt_schedule counts the generations). Generation 0 is de_core.h's
 * initial population; de_adapt_init then sets the state. */
#ifndef EVO_DE_ADAPT_H
#define EVO_DE_ADAPT_H

#include "de_core.h"

/* Per-problem state, in doubles (integers exact): */
#define DE_AD_K 0         /* memory slot updated next */
#define DE_AD_NP 1        /* active population */
#define DE_AD_ACOUNT 2    /* archive entries */
#define DE_AD_AMAX 3      /* archive size now */
#define DE_AD_NFES 4      /* evaluations done */
#define DE_AD_MF 8        /* M_F[H], then M_CR[H] */
#define DE_AD_LEN(h) (8 + 2 * (h))
#define DE_AD_TERMINAL (-1.0)

/* Strategies with per-problem state (this file's and SaDE's). */
RT_HD int de_is_adaptive(int strategy)
{
	return strategy >= DE_JADE && strategy != DE_CODE;
}

/* The current-to-pbest/1 line of this file: JADE, SHADE, L-SHADE, jSO. */
RT_HD int de_is_pbest(int strategy)
{
	return strategy >= DE_JADE && strategy <= DE_JSO;
}

/* Strategies only the fused kernel runs (all but rand/1 and best/1). */
RT_HD int de_fused_only(int strategy)
{
	return strategy >= DE_JADE;
}

RT_HD int de_reduces(int strategy)
{
	return strategy == DE_LSHADE || strategy == DE_JSO;
}

/* Natural logarithm of a positive normal x, from + - * / only, so the host
 * and the device compute the same double (--fmad=false on the device, no
 * contraction on the host). Reduction to [sqrt(1/2), sqrt(2)) by exact
 * scaling, then 2 atanh(s), s = (m - 1) / (m + 1), by its series to s^29. */
RT_HD double de_log(double x)
{
	int e = 0;
	while (x < 0.70710678118654752440) {
		x *= 2.0;
		e--;
	}
	while (x >= 1.41421356237309504880) {
		x *= 0.5;
		e++;
	}
	double s = (x - 1.0) / (x + 1.0), s2 = s * s, poly = 1.0 / 29.0;
	for (int k = 27; k >= 1; k -= 2)
		poly = 1.0 / (double)k + s2 * poly;
	return (double)e * 6.93147180369123816490e-01 +
	       ((double)e * 1.90821492927058770002e-10 + 2.0 * s * poly);
}

/* A point uniform in [-1, 1)^2 from one block. */
RT_HD void de_square_point(philox4x32_ctr c, double *v1, double *v2)
{
	*v1 = 2.0 * philox_u01d(c.v[0], c.v[1]) - 1.0;
	*v2 = 2.0 * philox_u01d(c.v[2], c.v[3]) - 1.0;
}

/* N(0, 1) by the polar method from blocks first .. first + 31 of purpose
 * `purpose` of individual i. */
RT_HD double de_normal_at(const de_params *p, uint32_t problem, uint32_t gen, uint32_t i, uint32_t purpose,
			  uint32_t first)
{
	for (uint32_t k = 0; k < 32; k++) {
		double v1, v2;
		de_square_point(de_draw(p, problem, gen, i, purpose, first + k), &v1, &v2);
		double s = v1 * v1 + v2 * v2;
		if (s > 0.0 && s < 1.0)
			return v1 * sqrt(-2.0 * de_log(s) / s);
	}
	return 0.0;
}

/* N(0, 1) from CRNORM blocks 0 .. 31 (the CR of the current-to-pbest line). */
RT_HD double de_normal(const de_params *p, uint32_t problem, uint32_t gen, uint32_t i)
{
	return de_normal_at(p, problem, gen, i, DE_DRAW_CRNORM, 0);
}

/* F from Cauchy(mf, 0.1), drawn again while <= 0, then at most 1. */
RT_HD double de_cauchy_f(const de_params *p, double mf, uint32_t problem, uint32_t gen, uint32_t i)
{
	double f = mf;
	for (uint32_t k = 0; k < 64; k++) {
		double v1, v2;
		de_square_point(de_draw(p, problem, gen, i, DE_DRAW_FCAUCHY, k), &v1, &v2);
		double s = v1 * v1 + v2 * v2;
		if (s < 1.0 && v1 != 0.0) {
			double t = mf + 0.1 * (v2 / v1);
			if (t > 0.0) {
				f = t;
				break;
			}
		}
	}
	return f < 1.0 ? f : 1.0;
}

/* The state after generation 0. */
RT_HD void de_adapt_init(const de_params *p, double *ad)
{
	for (int k = 0; k < 8; k++)
		ad[k] = 0.0;
	ad[DE_AD_NP] = (double)p->np;
	ad[DE_AD_AMAX] = round(p->arc_rate * (double)p->np);
	if (ad[DE_AD_AMAX] > (double)p->a_cap)
		ad[DE_AD_AMAX] = (double)p->a_cap;
	ad[DE_AD_NFES] = (double)p->np;
	for (int k = 0; k < p->H; k++) {
		ad[DE_AD_MF + k] = p->mf0;
		ad[DE_AD_MF + p->H + k] = p->mcr0;
	}
}

/* L-SHADE's population after nfes evaluations, from a population of na. */
RT_HD int de_adapt_np_next(const de_params *p, double nfes, int na)
{
	double plan = round((((double)p->np_min - (double)p->np) / p->max_evals) * nfes + (double)p->np);
	int n = plan < (double)p->np_min ? p->np_min : (int)plan;
	return n < na ? n : na;
}

/* The rank of individual i among f[0 .. n-1] by (value, index). */
RT_HD int de_adapt_rank(const float *f, int n, int i)
{
	int r = 0;
	float v = f[i];
	for (int j = 0; j < n; j++)
		r += de_before(f[j], (uint32_t)j, v, (uint32_t)i);
	return r;
}

/* One individual's parameters and partners. */
typedef struct de_apick {
	double F, Fw, CR;
	uint32_t cr16;
	uint32_t pbest, r1, r2;   /* r2 >= na: archive entry r2 - na */
	uint32_t jrand;
} de_apick;

/* Step 2's draws for individual i of generation gen; order: the ranking of step 1. */
RT_HD de_apick de_adapt_pick(const de_params *p, const double *ad, const int *order, uint32_t problem,
			     uint32_t gen, uint32_t i)
{
	de_apick k;
	int H = p->H, s = p->strategy, na = (int)ad[DE_AD_NP], acount = (int)ad[DE_AD_ACOUNT];
	double frac = s == DE_JSO ? ad[DE_AD_NFES] / p->max_evals : 0.0;
	philox4x32_ctr c0 = de_draw(p, problem, gen, i, DE_DRAW_ADAPT, 0);
	philox4x32_ctr c1 = de_draw(p, problem, gen, i, DE_DRAW_ADAPT, 1);
	uint32_t r = philox_below(c0.v[0], (uint32_t)H);
	double mf = ad[DE_AD_MF + r], mcr = ad[DE_AD_MF + H + r];
	if (s == DE_JSO && (int)r == H - 1) {
		mf = 0.9;
		mcr = 0.9;
	}
	double cr = 0.0;
	if (mcr != DE_AD_TERMINAL) {
		cr = mcr + 0.1 * de_normal(p, problem, gen, i);
		cr = cr < 0.0 ? 0.0 : cr > 1.0 ? 1.0 : cr;
	}
	double f = de_cauchy_f(p, mf, problem, gen, i);
	double fw = f;
	if (s == DE_JSO) {
		cr = frac < 0.25 ? (cr > 0.7 ? cr : 0.7) : frac < 0.5 ? (cr > 0.6 ? cr : 0.6) : cr;
		f = frac < 0.6 && f > 0.7 ? 0.7 : f;
		fw = frac < 0.2 ? 0.7 * f : frac < 0.4 ? 0.8 * f : 1.2 * f;
	}
	double pr = p->p_best;
	if (s == DE_SHADE) {
		double pmin = 2.0 / (double)na;
		pr = pmin + (p->p_best - pmin) * philox_u01d(c0.v[1], c0.v[2]);
	} else if (s == DE_JSO) {
		pr = p->p_best * (1.0 - 0.5 * frac);
	}
	int pnum = (int)round(pr * (double)na);
	pnum = pnum < 2 ? 2 : pnum > na ? na : pnum;
	k.F = f;
	k.Fw = fw;
	k.CR = cr;
	k.cr16 = (uint32_t)ceil(cr * 65536.0);
	k.pbest = (uint32_t)order[philox_below(c0.v[3], (uint32_t)pnum)];
	uint32_t r1 = philox_below(c1.v[0], (uint32_t)na - 1u);
	r1 += r1 >= i;
	uint32_t lo = r1 < i ? r1 : i, hi = r1 < i ? i : r1;
	uint32_t r2 = philox_below(c1.v[1], (uint32_t)(na + acount) - 2u);
	r2 += r2 >= lo;
	r2 += r2 >= hi;
	k.r1 = r1;
	k.r2 = r2;
	k.jrand = philox_below(c1.v[2], (uint32_t)p->dim);
	return k;
}

/* The trial of individual i (step 2), written to out[j * so]. The
 * population is at pop[i * si + j * sj], the archive at arch[a * ai + j * aj];
 * na: the active population. */
RT_HD void de_adapt_trial(const de_params *p, const float *pop, int si, int sj, const float *arch,
			  int ai, int aj, int na, const de_apick *k, float *out, int so, uint32_t problem,
			  uint32_t gen, uint32_t i)
{
	float F = (float)k->F, Fw = (float)k->Fw;
	int in_arch = (int)k->r2 >= na;
	const float *x2 = in_arch ? arch + ((int)k->r2 - na) * ai : pop + (int)k->r2 * si;
	int s2 = in_arch ? aj : sj;
	for (int jb = 0; jb < p->dim; jb += 8) {
		philox4x32_ctr c = de_draw(p, problem, gen, i, DE_DRAW_CROSS, (uint32_t)jb >> 3);
		DE_UNROLL
		for (int q = 0; q < 8; q++) {
			int j = jb + q;
			if (j < p->dim) {
				float x = pop[(int)i * si + j * sj];
				float xp = pop[(int)k->pbest * si + j * sj];
				float x1 = pop[(int)k->r1 * si + j * sj];
				float a = Fw * (xp - x), b = F * (x1 - x2[j * s2]);
				float v = de_bound(p, (x + a) + b, x, problem, gen, i, (uint32_t)j);
				uint32_t w = c.v[q >> 1];
				uint32_t h = (q & 1) ? (w >> 16) : (w & 0xffffu);
				out[j * so] = (h < k->cr16) | ((uint32_t)j == k->jrand) ? v : x;
			}
		}
	}
}

/* Step 2's success weight: 0 unless the trial is strictly better. */
RT_HD double de_adapt_delta(float f_trial, float f_old)
{
	double d = (double)f_old - (double)f_trial;
	return f_trial < f_old ? (d < 1e300 ? d : 1e300) : 0.0;
}

/* Step 3's slots: dest[i] = the archive slot individual i's parent goes to,
 * -1 when none or when a later success overwrites it (so the copies can run
 * in any order); owner: a_cap ints of scratch. Updates the entry count. */
RT_HD void de_adapt_archive_plan(const de_params *p, double *ad, const double *delta, int *dest,
				 int *owner, uint32_t problem, uint32_t gen)
{
	int na = (int)ad[DE_AD_NP], count = (int)ad[DE_AD_ACOUNT], amax = (int)ad[DE_AD_AMAX];
	for (int i = 0; i < na; i++) {
		dest[i] = -1;
		if (!(delta[i] > 0.0) || amax < 1)
			continue;
		int slot = count;
		if (count < amax)
			count++;
		else
			slot = (int)philox_below(de_draw(p, problem, gen, (uint32_t)i, DE_DRAW_ARCHIVE, 0).v[0],
						 (uint32_t)amax);
		dest[i] = slot;
		owner[slot] = i;
	}
	for (int i = 0; i < na; i++)
		if (dest[i] >= 0 && owner[dest[i]] != i)
			dest[i] = -1;
	ad[DE_AD_ACOUNT] = (double)count;
}

/* Step 4 (wF, wCR, delta: the individuals' F, CR and weights) and step 5. */
RT_HD void de_adapt_update_memory(const de_params *p, double *ad, const double *wF, const double *wCR,
				  const double *delta)
{
	int na = (int)ad[DE_AD_NP], H = p->H, k = (int)ad[DE_AD_K], n = 0, s = p->strategy;
	double sum = 0.0, crmax = 0.0;
	for (int i = 0; i < na; i++)
		if (delta[i] > 0.0) {
			n++;
			sum += delta[i];
			crmax = wCR[i] > crmax ? wCR[i] : crmax;
		}
	ad[DE_AD_NFES] += (double)na;
	if (n == 0)
		return;
	double f2 = 0.0, f1 = 0.0, c2 = 0.0, c1 = 0.0;
	for (int i = 0; i < na; i++)
		if (delta[i] > 0.0) {
			double w = s == DE_JADE ? 1.0 / (double)n : delta[i] / sum;
			f2 += w * wF[i] * wF[i];
			f1 += w * wF[i];
			c2 += w * wCR[i] * wCR[i];
			c1 += w * wCR[i];
		}
	double lf = f2 / f1, *mf = ad + DE_AD_MF + k, *mcr = ad + DE_AD_MF + H + k;
	if (s == DE_JADE) {
		*mcr = 0.9 * *mcr + 0.1 * c1;
		*mf = 0.9 * *mf + 0.1 * lf;
		return;
	}
	if (s == DE_SHADE) {
		*mcr = c1;
		*mf = lf;
	} else {
		int terminal = *mcr == DE_AD_TERMINAL || crmax == 0.0;
		double lcr = terminal ? DE_AD_TERMINAL : c2 / c1;
		*mf = s == DE_JSO ? (lf + *mf) * 0.5 : lf;
		*mcr = terminal ? DE_AD_TERMINAL : s == DE_JSO ? (lcr + *mcr) * 0.5 : lcr;
	}
	ad[DE_AD_K] = (double)((k + 1) % H);
}

/* Step 6 after the ranks of the new population (rank[i], i < na) are known:
 * rank[i] becomes individual i's new index (-1: removed); the fitness f
 * (np entries) is moved in place; the state gets the new sizes. The vectors
 * are then moved by de_adapt_move. */
RT_HD void de_adapt_shrink_plan(const de_params *p, double *ad, int *rank, float *f, int na_new)
{
	int na = (int)ad[DE_AD_NP], m = 0;
	for (int i = 0; i < na; i++) {
		int keep = rank[i] < na_new;
		rank[i] = keep ? m : -1;
		if (keep)
			f[m++] = f[i];
	}
	for (int i = na_new; i < p->np; i++)
		f[i] = DE_INF;
	double amax = round(p->arc_rate * (double)na_new);
	ad[DE_AD_NP] = (double)na_new;
	ad[DE_AD_AMAX] = amax < ad[DE_AD_AMAX] ? amax : ad[DE_AD_AMAX];
	if (ad[DE_AD_ACOUNT] > ad[DE_AD_AMAX])
		ad[DE_AD_ACOUNT] = ad[DE_AD_AMAX];
}

/* Component column j of step 6: individuals moved down to their new index
 * (new <= old, so in ascending order it is done in place). */
RT_HD void de_adapt_move(float *pop, int si, int sj, const int *rank, int na, int j)
{
	for (int i = 0; i < na; i++)
		if (rank[i] >= 0 && rank[i] != i)
			pop[rank[i] * si + j * sj] = pop[i * si + j * sj];
}

#endif
