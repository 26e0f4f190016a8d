/* de_cec.c: kind de's CEC 2017 suite (templates/de/de_cec2017.h holds the
 * functions): the spec keys, the instance data generated from a seed, and
 * the suite's error checkpoints.
 *
 *   [de]
 *   function = cec2017
 *   cec_function = 5       ; 1, 3 .. 30 (F2 was withdrawn by the organisers)
 *   dim = 10               ; 10, 30, 50 or 100
 *   cec_seed = 1           ; the instance data (shifts, rotations, shuffles);
 *                          ;   default: [problem] seed as written in the spec
 *                          ;   (--seed changes the runs, never the functions)
 *
 * Instance data: per component c a shift uniform in [-80, 80]^D (as the
 * official files), a random orthogonal matrix (Gaussian rows, modified
 * Gram-Schmidt in double) and, for hybrids, a random permutation; each from
 * its own rt_rng stream of cec_seed named by (function, D, component, what),
 * so every problem, run and backend of a job sees the same functions.
 *
 * Error checkpoints: CEC 2017 records f(best) - F* after (0.01, 0.02, 0.03,
 * 0.05, 0.1, 0.2, ..., 1.0) x MaxFES. A run stops its stretches at the last
 * generation whose evaluations do not exceed each (de_ckpt_stretch_end), and
 * the backends note every problem's best there (de_cec_note). */
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "de_impl.h"
#include "rng.h"

static const double fractions[DE_CEC_CHECKS] = { 0.01, 0.02, 0.03, 0.05, 0.1, 0.2, 0.3,
						 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0 };

double de_cec_fraction(int k)
{
	return k >= 0 && k < DE_CEC_CHECKS ? fractions[k] : 0.0;
}

rt_status de_cec_read(de_job *job, rt_spec *spec, rt_error *err)
{
	char loc[RT_PATH_MAX + 32];
	long v;
	uint64_t seed;
	rt_status st;
	if (!rt_spec_find(spec, "de", "cec_function"))
		return rt_fail(err, RT_ERR_INPUT, "%s: de.function = cec2017 needs cec_function = 1, 3 .. 30",
			       rt_spec_key_where(spec, "de", "function", loc, sizeof loc));
	if ((st = rt_spec_int(spec, "de", "cec_function", 1, 1, 30, &v, err)))
		return st;
	if (v == 2)
		return rt_fail(err, RT_ERR_INPUT, "%s: de.cec_function: F2 was withdrawn from CEC 2017 by the "
			       "organisers; expected 1 or 3 .. 30",
			       rt_spec_key_where(spec, "de", "cec_function", loc, sizeof loc));
	job->cec_fn = (int)v;
	if (job->dim != 10 && job->dim != 30 && job->dim != 50 && job->dim != 100)
		return rt_fail(err, RT_ERR_INPUT, "%s: de.dim: CEC 2017 is defined for D = 10, 30, 50, 100, "
			       "got %d", rt_spec_key_where(spec, "de", rt_spec_find(spec, "de", "dim") ? "dim" :
							   "function", loc, sizeof loc), job->dim);
	if ((st = rt_spec_u64(spec, "problem", "seed", 1, &seed, err)) ||
	    (st = rt_spec_u64(spec, "de", "cec_seed", seed, &job->cec_seed, err)))
		return st;
	return RT_OK;
}

void de_cec_plan(de_job *job)
{
	job->cec_nchecks = 0;
	if (job->function != DE_FN_CEC2017)
		return;
	double maxfes = job->max_evals > 0 ? (double)job->max_evals : (double)de_job_evals(job, job->gens);
	for (int k = 0; k < DE_CEC_CHECKS; k++) {
		double t = fractions[k] * maxfes;
		long lo = 0, hi = job->gens;   /* last g in [0, gens] with evals(g) <= t (else 0) */
		while (lo < hi) {
			long mid = lo + (hi - lo + 1) / 2;
			if ((double)de_job_evals(job, mid) <= t)
				lo = mid;
			else
				hi = mid - 1;
		}
		job->cec_gen[k] = lo;
	}
	job->cec_nchecks = DE_CEC_CHECKS;
}

long de_cec_next(const de_job *job, long gen)
{
	long next = LONG_MAX;
	for (int k = 0; k < job->cec_nchecks; k++)
		if (job->cec_gen[k] > gen && job->cec_gen[k] < next)
			next = job->cec_gen[k];
	return next;
}

void de_cec_note(const de_job *job, const de_state *st, long gen, float *errs)
{
	int K = job->cec_nchecks;
	if (!errs)
		return;
	for (int k = 0; k < K; k++)
		if (job->cec_gen[k] == gen)
			for (long p = 0; p < job->problems; p++)
				errs[(size_t)p * K + k] = st[p].best;
}

/* The rt_rng stream of (function, D, component, what): what 0 shift, 1
 * rotation, 2 shuffle; the top bits keep it apart from de_job.c's streams. */
static uint64_t data_stream(const de_job *job, int c, int what)
{
	return (0xcec2017ull << 32) | ((uint64_t)job->cec_fn << 20) | ((uint64_t)job->dim << 8) |
	       ((uint64_t)c << 2) | (uint64_t)what;
}

rt_status de_cec_prepare(de_job *job, rt_error *err)
{
	int n = job->dim, nc = de_cec_components(job->cec_fn);
	rt_status st;
	if (job->function != DE_FN_CEC2017 || job->cec_data)
		return RT_OK;
	if (n > DE_CEC_DMAX || job->cec_fn < 1 || job->cec_fn > 30 || job->cec_fn == 2)
		return rt_fail(err, RT_ERR_INPUT, "CEC 2017 F%d at D = %d: not in the suite", job->cec_fn, n);
	float *d = rt_calloc((size_t)de_cec_data_len(job->cec_fn, n), sizeof *d, err);
	if (!d)
		return RT_ERR_SYSTEM;
	for (int c = 0; c < nc; c++) {
		rt_rng rng;
		rt_rng_init(&rng, job->cec_seed, data_stream(job, c, 0));
		for (int j = 0; j < n; j++)
			d[(size_t)c * n + j] = (float)(-80.0 + 160.0 * rt_rng_uniform_double(&rng));
		rt_rng_init(&rng, job->cec_seed, data_stream(job, c, 1));
		if ((st = de_random_rotation(&rng, n, d + (size_t)nc * n + (size_t)c * n * n, err)) != RT_OK) {
			free(d);
			return st;
		}
		if (!de_cec_has_shuffle(job->cec_fn))
			continue;
		float *S = d + (size_t)nc * n * (n + 1) + (size_t)c * n;
		rt_rng_init(&rng, job->cec_seed, data_stream(job, c, 2));
		for (int j = 0; j < n; j++)
			S[j] = (float)j;
		for (int j = n - 1; j > 0; j--) {   /* Fisher-Yates */
			int r = (int)rt_rng_below(&rng, (uint32_t)j + 1u);
			float t = S[j];
			S[j] = S[r];
			S[r] = t;
		}
	}
	job->cec_data = d;
	return RT_OK;
}
