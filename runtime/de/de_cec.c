/* de_cec.c: kind de's CEC 2017 and CEC 2022 suites (templates/de/
 * de_cec2017.h and de_cec2022.h hold the functions): the spec keys, the
 * instance data generated from a seed or read from the organisers' files,
 * and the suites' error checkpoints.
 *
 *   [de]
 *   function = cec2017     ; or cec2022
 *   cec_function = 5       ; 2017: 1, 3 .. 30 (F2 was withdrawn by the
 *                          ;   organisers); 2022: 1 .. 12
 *   dim = 10               ; 2017: 10, 30, 50 or 100; 2022: 10 or 20
 *   cec_seed = 1           ; the instance data (shifts, rotations, shuffles);
 *                          ;   default: [problem] seed as written in the spec
 *                          ;   (--seed changes the runs, never the functions)
 *   cec_data = DIR         ; optional: read the organisers' data files instead
 *                          ;   (M_<F>_D<D>.txt, shift_data_<F>.txt,
 *                          ;   shuffle_data_<F>_D<D>.txt as their input_data
 *                          ;   folder; relative to the spec's folder; not
 *                          ;   shipped with evoforge)
 * max_evals defaults to 10000 D (2017), 200,000 at D = 10 and 1,000,000 at
 * D = 20 (2022). A CEC 2022 job is DE_FN_CEC2017 with cec_fn = DE_CEC22 + k.
 *
 * Instance data: per component c a shift uniform in [-80, 80]^D (as the
 * official files), a random orthogonal matrix (Gaussian rows, modified
 * Gram-Schmidt in double) and, for hybrids, a random permutation; each from
 * its own rt_rng stream of cec_seed named by (function, D, component, what),
 * so every problem, run and backend of a job sees the same functions.
 *
 * Official files are read as the organisers' code reads them: the first
 * nc n n numbers of M (composition files hold 10 or 12 matrices), the first
 * n numbers of each of the first nc lines of shift_data (one line for the
 * simple and hybrid functions), the first nc n integers (1-based) of
 * shuffle_data.
 *
 * Error checkpoints: CEC 2017 records f(best) - F* after (0.01, 0.02, 0.03,
 * 0.05, 0.1, 0.2, ..., 1.0) x MaxFES, CEC 2022 after D^(k/5 - 3) x MaxFES,
 * k = 0 .. 15. A run stops its stretches at the last generation whose
 * evaluations do not exceed each (de_ckpt_stretch_end; generation 0 for
 * those before the initial population's evaluations), and the backends
 * note every problem's best there (de_cec_note). */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "de_impl.h"
#include "rng.h"

static const double fractions17[14] = { 0.01, 0.02, 0.03, 0.05, 0.1, 0.2, 0.3,
					 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0 };

int de_cec_year(const de_job *job)
{
	return job->cec_fn > DE_CEC22 ? 2022 : 2017;
}

int de_cec_number(const de_job *job)
{
	return job->cec_fn > DE_CEC22 ? job->cec_fn - DE_CEC22 : job->cec_fn;
}

long de_cec_fstar(const de_job *job)
{
	return job->cec_fn > DE_CEC22 ? de_cec22_fstar(job->cec_fn - DE_CEC22) : 100L * job->cec_fn;
}

/* CEC 2017: the 14 fractions above; CEC 2022: D^(k/5 - 3), k = 0 .. 15. */
double de_cec_fraction(const de_job *job, int k)
{
	if (de_cec_year(job) == 2022)
		return k >= 0 && k < 16 ? (k == 15 ? 1.0 : pow((double)job->dim, k / 5.0 - 3.0)) : 0.0;
	return k >= 0 && k < 14 ? fractions17[k] : 0.0;
}

/* The suite's cec_function (required with function = suite), 1 .. max. */
static rt_status read_function(rt_spec *spec, const char *suite, long max, const char *expected,
			       long *v, rt_error *err)
{
	char loc[RT_PATH_MAX + 32];
	if (!rt_spec_find(spec, "de", "cec_function"))
		return rt_fail(err, RT_ERR_INPUT, "%s: de.function = %s needs cec_function = %s",
			       rt_spec_key_where(spec, "de", "function", loc, sizeof loc), suite, expected);
	return rt_spec_int(spec, "de", "cec_function", 1, 1, max, v, err);
}

/* CEC 2022's cec_function and dim (F1..F12, D = 10 or 20; MaxFES 200,000
 * or 1,000,000 by default). */
static rt_status read_2022(de_job *job, rt_spec *spec, rt_error *err)
{
	char loc[RT_PATH_MAX + 32];
	long v;
	rt_status st = read_function(spec, "cec2022", 12, "1 .. 12", &v, err);
	if (st)
		return st;
	job->cec_fn = DE_CEC22 + (int)v;
	if (job->dim != 10 && job->dim != 20)
		return rt_fail(err, RT_ERR_INPUT, "%s: de.dim: CEC 2022 is defined for D = 10, 20, got %d",
			       rt_spec_key_where(spec, "de", rt_spec_find(spec, "de", "dim") ? "dim" : "function",
						 loc, sizeof loc), job->dim);
	job->max_evals = job->dim == 10 ? 200000 : 1000000;
	return RT_OK;
}

static rt_status read_2017(de_job *job, rt_spec *spec, rt_error *err)
{
	char loc[RT_PATH_MAX + 32];
	long v;
	rt_status st = read_function(spec, "cec2017", 30, "1, 3 .. 30", &v, err);
	if (st)
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
	return RT_OK;
}

rt_status de_cec_read(de_job *job, rt_spec *spec, rt_error *err)
{
	uint64_t seed;
	rt_status st;
	if ((st = job->cec_fn == DE_CEC22 ? read_2022(job, spec, err) : read_2017(job, spec, err)))
		return st;
	if ((st = rt_spec_u64(spec, "problem", "seed", 1, &seed, err)) ||
	    (st = rt_spec_u64(spec, "de", "cec_seed", seed, &job->cec_seed, err)))
		return st;
	const char *dir;
	char path[RT_PATH_MAX];
	if ((st = rt_spec_string(spec, "de", "cec_data", "", &dir, err)) || !*dir)
		return st;
	if ((st = rt_format(path, sizeof path, err, "%s%s%s", dir[0] == '/' ? "" : spec->dir,
			    dir[0] == '/' ? "" : "/", dir)))
		return st;
	free(job->cec_dir);
	if (!(job->cec_dir = rt_strdup(path, err)))
		return RT_ERR_SYSTEM;
	return RT_OK;
}

void de_cec_plan(de_job *job)
{
	job->cec_nchecks = 0;
	if (job->function != DE_FN_CEC2017)
		return;
	double maxfes = job->max_evals > 0 ? (double)job->max_evals : (double)de_job_evals(job, job->gens);
	int K = de_cec_year(job) == 2022 ? 16 : 14;
	for (int k = 0; k < K; k++) {
		double t = de_cec_fraction(job, k) * maxfes;
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
	job->cec_nchecks = K;
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

/* Opens file name of the job's cec_data folder; the error names it. */
static FILE *data_open(const de_job *job, const char *name, char *path, rt_error *err)
{
	FILE *f;
	if (rt_format(path, RT_PATH_MAX, err, "%s/%s", job->cec_dir, name))
		return NULL;
	if (!(f = fopen(path, "r")))
		rt_fail(err, RT_ERR_INPUT, "de.cec_data: %s: %s (CEC %d F%d at D = %d needs it; the "
			"organisers' input_data files are not shipped with evoforge)", path, strerror(errno),
			de_cec_year(job), de_cec_number(job), job->dim);
	return f;
}

/* count numbers of f into out (NULL: skip them); skip_line: then the rest of the line. */
static rt_status data_numbers(FILE *f, const char *path, double *out, long count, int skip_line,
			      rt_error *err)
{
	for (long i = 0; i < count; i++) {
		double v;
		if (fscanf(f, "%lf", &v) != 1 || !isfinite(v))
			return rt_fail(err, RT_ERR_INPUT, "de.cec_data: %s: expected %ld numbers%s, found %ld",
				       path, count, skip_line ? " on this line" : "", i);
		if (out)
			out[i] = v;
	}
	if (skip_line)
		for (int c = fgetc(f); c != EOF && c != '\n'; c = fgetc(f))
			;
	return RT_OK;
}

/* The organisers' files of F fn at D = n into d (de_cec_data_len floats). */
static rt_status data_read(de_job *job, float *d, rt_error *err)
{
	int fn = job->cec_fn, n = job->dim, nc = de_cec_components(fn), num = de_cec_number(job);
	char name[64], path[RT_PATH_MAX];
	double *v = rt_malloc((size_t)nc * n * n * sizeof *v, err);   /* the largest file's part */
	rt_status st = v ? RT_OK : RT_ERR_SYSTEM;
	FILE *f = NULL;
	for (int what = 0; what < 3 && st == RT_OK; what++) {
		if (what == 2 && !de_cec_has_shuffle(fn))
			break;
		snprintf(name, sizeof name, what == 0 ? "shift_data_%d.txt" : what == 1 ? "M_%d_D%d.txt" :
			 "shuffle_data_%d_D%d.txt", num, n);
		if (!(f = data_open(job, name, path, err))) {
			st = RT_ERR_INPUT;
			break;
		}
		if (what == 0) {   /* nc lines of (at least) n values */
			for (int c = 0; c < nc && st == RT_OK; c++)
				st = data_numbers(f, path, v + (long)c * n, n, nc > 1, err);
			for (long i = 0; st == RT_OK && i < (long)nc * n; i++)
				d[i] = (float)v[i];
		} else if (what == 1) {
			if ((st = data_numbers(f, path, v, (long)nc * n * n, 0, err)) == RT_OK)
				for (long i = 0; i < (long)nc * n * n; i++)
					d[(long)nc * n + i] = (float)v[i];
		} else if ((st = data_numbers(f, path, v, (long)nc * n, 0, err)) == RT_OK) {
			float *S = d + (long)nc * n * (n + 1);
			for (int c = 0; c < nc && st == RT_OK; c++) {   /* each block a permutation of 1..n */
				char seen[DE_CEC_DMAX] = { 0 };
				for (int j = 0; j < n && st == RT_OK; j++) {
					double s = v[(long)c * n + j];
					if (s != floor(s) || s < 1 || s > n || seen[(int)s - 1]++)
						st = rt_fail(err, RT_ERR_INPUT, "de.cec_data: %s: number %ld is %g, "
							     "expected a permutation of 1 .. %d", path,
							     (long)c * n + j + 1, s, n);
					else
						S[(long)c * n + j] = (float)(s - 1);
				}
			}
		}
		fclose(f);
	}
	free(v);
	return st;
}

rt_status de_cec_prepare(de_job *job, rt_error *err)
{
	int n = job->dim, nc = de_cec_components(job->cec_fn);
	rt_status st;
	if (job->function != DE_FN_CEC2017 || job->cec_data)
		return RT_OK;
	int num = de_cec_number(job), y22 = de_cec_year(job) == 2022;
	if (n > DE_CEC_DMAX || num < 1 || num > (y22 ? 12 : 30) || (!y22 && num == 2))
		return rt_fail(err, RT_ERR_INPUT, "CEC %d F%d at D = %d: not in the suite", de_cec_year(job), num, n);
	float *d = rt_calloc((size_t)de_cec_data_len(job->cec_fn, n), sizeof *d, err);
	if (!d)
		return RT_ERR_SYSTEM;
	if (job->cec_dir) {
		if ((st = data_read(job, d, err)) != RT_OK) {
			free(d);
			return st;
		}
		job->cec_data = d;
		return RT_OK;
	}
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
