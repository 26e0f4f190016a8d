/* de_adapt.c: one generation of the adaptive strategies (JADE, SHADE,
 * L-SHADE, jSO; SaDE's is in de_mixed.c) for one problem on the CPU, in
 * the order of the sequential semantics of templates/de/de_adapt.h, with
 * populations as rows (individual i, component j at [i * dim + j]) and the
 * archive likewise. The GPU runs the same header functions
 * (templates/de/de.cu). A generation is three steps: the trials, their
 * values (de_job_eval here, the caller's objective callback in de_cpu.c),
 * then selection and the state's update; the values of a row depend on it
 * alone, so gathering them changes nothing. */
#include <string.h>

#include "de_impl.h"

size_t de_adapt_ad_len(const de_job *job)
{
	int H = job->params.H;
	return job->strategy == DE_SADE ? (size_t)DE_SA_LEN(H) : (size_t)DE_AD_LEN(H);
}

size_t de_adapt_work_len(const de_job *job)
{
	return 3 * (size_t)job->np;
}

size_t de_adapt_iwork_len(const de_job *job)
{
	return 3 * (size_t)job->np + (size_t)job->params.a_cap;
}

/* The trials of generation g of problem p: rows 0 .. na - 1 of Y (the
 * draws of de_adapt.h's order), each one's F and CR into work; returns na. */
int de_adapt_cpu_trials(const de_job *job, long p, uint32_t g, const float *X, const float *fx,
			float *Y, const double *ad, const float *arch, double *work, int *iwork)
{
	const de_params *P = &job->params;
	int D = job->dim, NP = job->np, na = (int)ad[DE_AD_NP];
	double *wF = work, *wCR = work + NP;
	int *order = iwork;
	for (int i = 0; i < na; i++)
		order[de_adapt_rank(fx, na, i)] = i;
	for (int i = 0; i < na; i++) {
		de_apick k = de_adapt_pick(P, ad, order, (uint32_t)p, g, (uint32_t)i);
		de_adapt_trial(P, X, D, 1, arch, D, 1, na, &k, Y + (size_t)i * D, 1, (uint32_t)p, g,
			       (uint32_t)i);
		wF[i] = k.F;
		wCR[i] = k.CR;
	}
	return na;
}

/* After de_adapt_cpu_trials and the trials' values in fy[0 .. na - 1]:
 * selection, archive, memory and population reduction (de_adapt.h's order). */
void de_adapt_cpu_select(const de_job *job, long p, uint32_t g, const float *X, const float *fx,
			 float *Y, float *fy, double *ad, float *arch, double *work, int *iwork)
{
	const de_params *P = &job->params;
	int D = job->dim, NP = job->np, na = (int)ad[DE_AD_NP];
	double *wF = work, *wCR = work + NP, *delta = work + 2 * NP;
	int *dest = iwork + NP, *rank = iwork + 2 * NP, *owner = iwork + 3 * NP;
	for (int i = 0; i < NP; i++) {
		if (i >= na) {
			fy[i] = DE_INF;
			continue;
		}
		float f = fy[i];
		delta[i] = de_adapt_delta(f, fx[i]);
		if (!(f <= fx[i])) {
			memcpy(Y + (size_t)i * D, X + (size_t)i * D, (size_t)D * sizeof *Y);
			f = fx[i];
		}
		fy[i] = f;
	}
	de_adapt_archive_plan(P, ad, delta, dest, owner, (uint32_t)p, g);
	for (int i = 0; i < na; i++)
		if (dest[i] >= 0)
			memcpy(arch + (size_t)dest[i] * D, X + (size_t)i * D, (size_t)D * sizeof *arch);
	de_adapt_update_memory(P, ad, wF, wCR, delta);
	if (!de_reduces(P->strategy))
		return;
	int na_new = de_adapt_np_next(P, ad[DE_AD_NFES], na);
	if (na_new >= na)
		return;
	for (int i = 0; i < na; i++)
		rank[i] = de_adapt_rank(fy, na, i);
	de_adapt_shrink_plan(P, ad, rank, fy, na_new);
	for (int j = 0; j < D; j++)
		de_adapt_move(Y, D, 1, rank, na, j);
}

void de_adapt_cpu_step(const de_job *job, long p, uint32_t g, const float *X, const float *fx,
		       float *Y, float *fy, double *ad, float *arch, double *work, int *iwork)
{
	if (job->strategy == DE_SADE) {
		de_sade_cpu_step(job, p, g, X, fx, Y, fy, ad, work);
		return;
	}
	int na = de_adapt_cpu_trials(job, p, g, X, fx, Y, ad, arch, work, iwork);
	for (int i = 0; i < na; i++)
		fy[i] = de_job_eval(job, p, Y + (size_t)i * job->dim);
	de_adapt_cpu_select(job, p, g, X, fx, Y, fy, ad, arch, work, iwork);
}
