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

/* SaDE's trials of generation g of problem p into the rows of Y, each
 * one's kind and CR into work (de_sade_cpu_select then finishes). */
void de_sade_cpu_trials(const de_job *job, long p, uint32_t g, const float *X, const float *fx, float *Y,
			const double *ad, double *work)
{
	const de_params *P = &job->params;
	int D = job->dim, NP = job->np;
	double *kind = work, *cr = work + NP;
	uint32_t best = 0;
	for (int i = 1; i < NP; i++)
		if (de_before(fx[i], (uint32_t)i, fx[best], best))
			best = (uint32_t)i;
	for (int i = 0; i < NP; i++) {
		de_mpick k = de_sade_pick(P, ad, (uint32_t)p, g, (uint32_t)i);
		de_mix_trial(P, X, D, 1, &k, best, Y + (size_t)i * D, 1, (uint32_t)p, g, (uint32_t)i, 0);
		kind[i] = k.kind;
		cr[i] = k.CR;
	}
}

/* After de_sade_cpu_trials and the trials' values in fy: selection and learning. */
void de_sade_cpu_select(const de_job *job, const float *X, const float *fx, float *Y, float *fy,
			double *ad, double *work)
{
	const de_params *P = &job->params;
	int D = job->dim, NP = job->np;
	double *kind = work, *cr = work + NP, *success = work + 2 * NP, recorded = ad[DE_SA_GENS];
	for (int i = 0; i < NP; i++) {
		float f = fy[i];
		success[i] = f <= fx[i];
		if (!(f <= fx[i])) {
			memcpy(Y + (size_t)i * D, X + (size_t)i * D, (size_t)D * sizeof *Y);
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

void de_sade_cpu_step(const de_job *job, long p, uint32_t g, const float *X, const float *fx, float *Y,
		      float *fy, double *ad, double *work)
{
	de_sade_cpu_trials(job, p, g, X, fx, Y, ad, work);
	for (int i = 0; i < job->np; i++)
		fy[i] = de_job_eval(job, p, Y + (size_t)i * job->dim);
	de_sade_cpu_select(job, X, fx, Y, fy, ad, work);
}

void de_code_cpu_trials(const de_job *job, long p, uint32_t g, const float *X, float *T, uint32_t best)
{
	const de_params *P = &job->params;
	int D = job->dim;
	for (int i = 0; i < job->np; i++)
		for (int t = 0; t < DE_CODE_TRIALS; t++) {
			de_mpick k = de_code_pick(P, (uint32_t)p, g, (uint32_t)i, t);
			de_mix_trial(P, X, D, 1, &k, best, T + ((size_t)i * DE_CODE_TRIALS + t) * D, 1,
				     (uint32_t)p, g, (uint32_t)i, t);
		}
}

void de_code_cpu_select(const de_job *job, const float *X, const float *fx, const float *T,
			const float *ft, float *Y, float *fy)
{
	int D = job->dim;
	for (int i = 0; i < job->np; i++) {
		float fb = DE_INF;
		int bt = 0;
		for (int t = 0; t < DE_CODE_TRIALS; t++)
			if (de_code_better(ft[i * DE_CODE_TRIALS + t], fb, t)) {
				fb = ft[i * DE_CODE_TRIALS + t];
				bt = t;
			}
		const float *src = fb <= fx[i] ? T + ((size_t)i * DE_CODE_TRIALS + bt) * D
					       : X + (size_t)i * D;
		memcpy(Y + (size_t)i * D, src, (size_t)D * sizeof *Y);
		fy[i] = fb <= fx[i] ? fb : fx[i];
	}
}
