/* de_test.h: what kind de's cmocka test programs share: a job from spec
 * text, the check that a spec is refused naming a place, the Philox draws
 * of de_core.h's addressing computed afresh (the sequential references of
 * test_de_adapt.c and test_de_mixed.c), a strategy's ready job, NVRTC
 * compiles of a job's kernels, and the median best of five problems run on
 * the CPU.
 * Include after <cmocka.h>. */
#ifndef EVO_DE_TEST_H
#define EVO_DE_TEST_H

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "de/de_impl.h"
#include "nvrtc.h"
#include "philox.h"
#include "spec.h"

/* A de job from the text of a spec named `name`. */
static inline rt_status de_test_job(const char *name, const char *text, de_job *job, rt_error *err)
{
	rt_spec spec;
	rt_options opt;
	memset(&opt, 0, sizeof opt);
	rt_status st = rt_spec_load_text(&spec, name, text, err);
	if (st != RT_OK)
		return st;
	st = de_job_from_spec(job, &spec, &opt, err);
	rt_spec_free(&spec);
	return st;
}

/* The spec text t.ini is refused, the message naming `where`. */
static inline void de_test_refused(const char *text, const char *where)
{
	de_job job;
	rt_error err;
	memset(&err, 0, sizeof err);
	assert_int_equal(de_test_job("t.ini", text, &job, &err), RT_ERR_INPUT);
	if (!strstr(err.msg, where))
		fail_msg("expected '%s' in: %s", where, err.msg);
	de_job_free(&job);
}

/* The [de] lines `body` (from line 5 of t.ini, after [problem] kind = de,
 * name = t) are refused, the message naming `where`. */
static inline void de_test_refused_de(const char *body, const char *where)
{
	char text[1024];
	snprintf(text, sizeof text, "[problem]\nkind = de\nname = t\n[de]\n%s", body);
	de_test_refused(text, where);
}

/* Block `block` of purpose `purpose` for individual i of problem p in generation g. */
static inline philox4x32_ctr de_test_draw(uint64_t seed, long p, uint32_t g, uint32_t i, uint32_t purpose,
				   uint32_t block)
{
	uint64_t stream = ((uint64_t)i << 32) | (uint64_t)p;
	return philox_block(seed, stream, ((uint64_t)g << 32) | ((uint64_t)purpose << 28) | block);
}

/* A uniform double in [0, 1) from two words (53 bits). */
static inline double de_test_unif(uint32_t a, uint32_t b)
{
	return (double)(((uint64_t)(a >> 5) << 26) | (b >> 6)) / 9007199254740992.0;
}

/* Individual i of problem p's initial population computed afresh from
 * its INIT draws (24-bit uniforms scaled into the box) into x. */
static inline void de_test_initial(const de_job *job, long p, int i, float *x)
{
	float lo = (float)job->lower, hi = (float)job->upper;
	for (int j = 0; j < job->dim; j++) {
		philox4x32_ctr c = de_test_draw(job->seed, p, 0, (uint32_t)i, DE_DRAW_INIT, (uint32_t)j / 4);
		float u = (float)(c.v[j % 4] >> 8) / 16777216.0f;
		x[j] = fminf(fmaf(hi - lo, u, lo), hi);
	}
}

/* An integer in [0, n) from a word (multiply-shift). */
static inline uint32_t de_test_below(uint32_t w, int n)
{
	return (uint32_t)(((uint64_t)w * (uint64_t)n) >> 32);
}

/* A job of `problems` shifted problems of fn at dim, with the strategy
 * (its default bounds), population np, max_evals each, memory_size
 * (0: the strategy's) and seed, ready to run; no history. */
static inline void de_test_strategy_job(de_job *job, int strategy, int fn, int dim, int np,
					long long max_evals, long problems, int memory_size, uint64_t seed)
{
	rt_error err;
	de_job_default(job, fn, dim);
	job->strategy = strategy;
	job->bounds = de_is_pbest(strategy) ? DE_BOUNDS_MIDPOINT : DE_BOUNDS_REFLECT;
	job->np = np;
	job->problems = problems;
	job->shift = 1;
	job->seed = seed;
	job->max_evals = max_evals;
	job->memory_size = memory_size;
	job->history_every = 0;
	if (de_job_finish(job, &err) != RT_OK || de_job_prepare(job, 1, &err) != RT_OK)
		fail_msg("%s", err.msg);
}

/* job's CUDA source compiles for sm_90 with NVRTC (skipped without
 * NVRTC), its population in shared memory or not as `shared` says, and
 * `text` in the source or not as `has_text` says. Frees the job. */
static inline void de_test_compiles(de_job *job, int shared, const char *text, int has_text)
{
	rt_error err;
	gen_source src;
	nvrtc_output out;
	int n, in_shared, block;
	if (nvrtc_open(&err) != RT_OK) {
		de_job_free(job);
		skip();
	}
	const char *const *opts = de_gpu_nvrtc_options(&n);
	assert_int_equal(de_gpu_source(job, NULL, &src, &in_shared, &block, &err), RT_OK);
	assert_int_equal(in_shared, shared);
	assert_int_equal(strstr(src.text.data, text) != NULL, has_text);
	memset(&out, 0, sizeof out);
	if (nvrtc_compile(src.name, src.text.data, "sm_90", opts, n, &out, &err))
		fail_msg("%s: %s", src.name, err.msg);
	assert_true(out.size > 0);
	nvrtc_output_free(&out);
	gen_free(&src);
	de_job_free(job);
}

/* job with function = callback: its module holds the objective callback's
 * kernels alone (de_cb_trials, de_cb_select; no de_fused) and they compile
 * for sm_90 with NVRTC without spills (skipped without NVRTC). Frees the job. */
static inline void de_test_compiles_callback(de_job *job)
{
	static const char *const kernels[] = { "de_cb_trials", "de_cb_select" };
	const char *opts[8];
	rt_error err;
	gen_source src;
	nvrtc_output out;
	nvrtc_usage u;
	int n, shared, block;
	if (nvrtc_open(&err) != RT_OK) {
		de_job_free(job);
		skip();
	}
	const char *const *base = de_gpu_nvrtc_options(&n);
	for (int k = 0; k < n; k++)
		opts[k] = base[k];
	opts[n++] = "-Xptxas";
	opts[n++] = "-v";
	job->function = DE_FN_CALLBACK;
	assert_int_equal(de_gpu_source(job, NULL, &src, &shared, &block, &err), RT_OK);
	assert_int_equal(shared, 0);
	assert_non_null(strstr(src.text.data, "#define DE_KERNELS 4\n"));
	memset(&out, 0, sizeof out);
	if (nvrtc_compile(src.name, src.text.data, "sm_90", opts, n, &out, &err))
		fail_msg("%s: %s", src.name, err.msg);
	for (int k = 0; k < 2; k++) {
		if (nvrtc_parse_usage(out.log, kernels[k], &u, &err))
			fail_msg("%s: %s", src.name, err.msg);
		if (u.spill_stores != 0 || u.spill_loads != 0)
			fail_msg("%s: %s spills %d/%d bytes (%d registers)", src.name, kernels[k],
				 u.spill_stores, u.spill_loads, u.registers);
	}
	assert_int_not_equal(nvrtc_parse_usage(out.log, "de_fused", &u, &err), RT_OK);
	nvrtc_output_free(&out);
	gen_free(&src);
	de_job_free(job);
}

/* Runs job (5 problems, its fields set) on the CPU: the median of the
 * problems' best values. Frees the job. */
static inline double de_test_median_best(de_job *job)
{
	de_outcome out;
	rt_error err;
	job->problems = 5;
	job->history_every = 0;
	job->report_every = 1000000;
	if (de_job_finish(job, &err) || de_job_prepare(job, 1, &err) || de_cpu_run(job, NULL, NULL, &out, &err))
		fail_msg("%s", err.msg);
	float b[5];
	memcpy(b, out.best, sizeof b);
	for (int i = 0; i < 5; i++)
		for (int k = i + 1; k < 5; k++)
			if (b[k] < b[i]) {
				float t = b[i];
				b[i] = b[k];
				b[k] = t;
			}
	de_outcome_free(&out);
	de_job_free(job);
	return b[2];
}

#endif
