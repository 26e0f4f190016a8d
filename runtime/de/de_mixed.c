/* de_mixed.c: CoDE's individual step and SaDE's generation for one problem
 * on the CPU, in the order of the semantics of templates/de/de_mixed.h,
 * with populations as rows (individual i, component j at [i * dim + j]).
 * The GPU runs the same header functions (templates/de/de.cu). */
#include <string.h>

#include "de_impl.h"

float de_code_cpu_individual(const de_job *job, long p, uint32_t g, const float *X, const float *fx,
			     float *y, int i, uint32_t best)
{
	const de_params *P = &job->params;
	int D = job->dim, bt = 0;
	float fb = DE_INF;
	de_mpick k;
	for (int t = 0; t < DE_CODE_TRIALS; t++) {
		k = de_code_pick(P, (uint32_t)p, g, (uint32_t)i, t);
		de_mix_trial(P, X, D, 1, &k, best, y, 1, (uint32_t)p, g, (uint32_t)i, t);
		float f = de_job_eval(job, p, y);
		if (de_code_better(f, fb, t)) {
			fb = f;
			bt = t;
		}
	}
	if (bt != DE_CODE_TRIALS - 1) {   /* y holds the last trial: build the best again */
		k = de_code_pick(P, (uint32_t)p, g, (uint32_t)i, bt);
		de_mix_trial(P, X, D, 1, &k, best, y, 1, (uint32_t)p, g, (uint32_t)i, bt);
	}
	if (!(fb <= fx[i])) {
		memcpy(y, X + (size_t)i * D, (size_t)D * sizeof *y);
		fb = fx[i];
	}
	return fb;
}

void de_sade_cpu_step(const de_job *job, long p, uint32_t g, const float *X, const float *fx, float *Y,
		      float *fy, double *ad, double *work)
{
	const de_params *P = &job->params;
	int D = job->dim, NP = job->np;
	double *kind = work, *cr = work + NP, *success = work + 2 * NP, recorded = ad[DE_SA_GENS];
	uint32_t best = 0;
	for (int i = 1; i < NP; i++)
		if (de_before(fx[i], (uint32_t)i, fx[best], best))
			best = (uint32_t)i;
	for (int i = 0; i < NP; i++) {
		float *y = Y + (size_t)i * D;
		de_mpick k = de_sade_pick(P, ad, (uint32_t)p, g, (uint32_t)i);
		de_mix_trial(P, X, D, 1, &k, best, y, 1, (uint32_t)p, g, (uint32_t)i, 0);
		float f = de_job_eval(job, p, y);
		kind[i] = k.kind;
		cr[i] = k.CR;
		success[i] = f <= fx[i];
		if (!(f <= fx[i])) {
			memcpy(y, X + (size_t)i * D, (size_t)D * sizeof *y);
			f = fx[i];
		}
		fy[i] = f;
	}
	for (int k = 0; k < DE_MIX_KINDS; k++) {
		de_sade_record_kind(P, ad, k, recorded, kind, cr, success);
		de_sade_learn_cr(P, ad, k, recorded + 1);
	}
	de_sade_learn_p(P, ad, recorded + 1);
}
