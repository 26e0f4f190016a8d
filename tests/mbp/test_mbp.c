/* test_mbp.c: kind `mbp`: the shared arithmetic (exp, the pattern order is a
 * permutation), gradients against central finite differences computed in
 * double precision by an independent forward pass, learning (XOR, the two
 * spirals to 100 % training accuracy), the robustness step (restores happen
 * and never lose the best RMS), thread-count independence of the CPU path,
 * every generated kernel compiling under NVRTC for sm_90, spec errors, and
 * the files a run writes (the network read back predicts what the run
 * predicted). The GPU itself is checked by tests/mbp/mbp_gpu_driver.c. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "cpu.h"
#include "log.h"
#include "mbp/mbp_impl.h"
#include "nvrtc.h"
#include "out.h"
#include "rng.h"
#include "spec.h"

#include "../test_tmp.h"

static int setup(void **state)
{
	(void)state;
	return tmp_setup("mbp");
}

static void expf_is_accurate(void **state)
{
	(void)state;
	double worst = 0;
	for (double x = -80; x <= 80; x += 0.0137) {
		double rel = fabs((double)mbp_expf((float)x) - exp((double)(float)x)) / exp((double)(float)x);
		if (rel > worst)
			worst = rel;
	}
	assert_true(worst < 5e-7);
	assert_true(mbp_expf(1000.0f) > 1e38f && isfinite(mbp_expf(1000.0f)));
	assert_true(mbp_expf(-1000.0f) >= 0.0f && mbp_expf(-1000.0f) < 1e-37f);
}

static void order_is_permutation(void **state)
{
	uint32_t sizes[] = { 1, 2, 7, 104, 194, 1000, 40768 };
	(void)state;
	for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
		uint32_t n = sizes[s], key[4] = { 1u + (uint32_t)s, 99, 12345, 0xdeadbeef };
		int half = mbp_order_half_bits(n);
		char *seen = calloc(n, 1);
		long moved = 0;
		for (uint32_t p = 0; p < n; p++) {
			uint32_t q = mbp_order_at(key, half, n, p);
			assert_true(q < n);
			assert_false(seen[q]);
			seen[q] = 1;
			moved += q != p;
		}
		if (n >= 104)
			assert_true(moved > (long)n / 2);
		free(seen);
	}
}

/* ---- gradients against finite differences ---------------------------------- */

static double act_d(int act, double a)
{
	return act == MBP_SIGMOID ? 1.0 / (1.0 + exp(-a)) : act == MBP_TANH ? tanh(a) : a;
}

/* Independent double-precision forward pass: E = 1/2 mean sum (t - y)^2. */
static double loss_d(const mbp_job *job, const double *w, const long *set, long n)
{
	const mbp_shape *s = &job->shape;
	double e = 0;
	for (long q = 0; q < n; q++) {
		const float *x = job->data.x + set[q] * s->ni, *t = job->data.t + set[q] * s->no;
		double y1[64], y2[64], *last = y1;
		for (int j = 0; j < s->h1; j++) {
			const double *r = w + s->off_w1 + j * (s->ni + 1), *rs = w + s->off_ws + j * (s->ni + 1);
			double a = r[0], b = s->space ? rs[0] : 0;
			for (int i = 0; i < s->ni; i++) {
				a += r[1 + i] * x[i];
				if (s->space)
					b += rs[1 + i] * x[i];
			}
			y1[j] = act_d(s->act_hidden, a) * (s->space ? act_d(s->act_space, b) : 1.0);
		}
		if (s->h2) {
			for (int k = 0; k < s->h2; k++) {
				const double *r = w + s->off_w2 + k * (s->h1 + 1);
				double a = r[0];
				for (int j = 0; j < s->h1; j++)
					a += r[1 + j] * y1[j];
				y2[k] = act_d(s->act_hidden, a);
			}
			last = y2;
		}
		for (int o = 0; o < s->no; o++) {
			const double *r = w + s->off_wo + o * (s->nlast + 1);
			double a = r[0];
			for (int k = 0; k < s->nlast; k++)
				a += r[1 + k] * last[k];
			e += 0.5 * (t[o] - act_d(s->act_output, a)) * (t[o] - act_d(s->act_output, a));
		}
	}
	return e / n;
}

static void check_gradient(int h2, int space, int act_h, int act_o, int act_s)
{
	mbp_job job;
	rt_error err;
	long n;
	float sse;
	assert_int_equal(mbp_job_generated(&job, "friedman1", 24, 5, h2, space, &err), RT_OK);
	job.shape.act_hidden = act_h;
	job.shape.act_output = act_o;
	job.shape.act_space = act_s;
	job.chunk = 7;
	job.init_range = 0.8f;
	int nw = job.shape.nweights;
	float *w = malloc(nw * sizeof *w), *g = malloc(nw * sizeof *g);
	double *wd = malloc(nw * sizeof *wd);
	const long *set = mbp_job_train_set(&job, 0, &n);
	mbp_job_initial_weights(&job, 0, w);
	assert_int_equal(mbp_cpu_gradient(&job, w, set, n, g, &sse, &err), RT_OK);
	for (int i = 0; i < nw; i++)
		wd[i] = w[i];
	for (int i = 0; i < nw; i++) {
		double h = 1e-5, save = wd[i], fd;
		wd[i] = save + h;
		fd = loss_d(&job, wd, set, n);
		wd[i] = save - h;
		fd = -(fd - loss_d(&job, wd, set, n)) / (2 * h);
		wd[i] = save;
		if (fabs(fd - g[i]) > 2e-4 + 2e-3 * fabs(fd))
			fail_msg("weight %d (h2 %d space %d acts %d %d %d): analytic %.8g, finite "
				 "differences %.8g", i, h2, space, act_h, act_o, act_s, (double)g[i], fd);
	}
	free(w);
	free(g);
	free(wd);
	mbp_job_free(&job);
}

static void gradients_match_finite_differences(void **state)
{
	(void)state;
	check_gradient(0, 1, MBP_SIGMOID, MBP_SIGMOID, MBP_SIGMOID);
	check_gradient(3, 1, MBP_TANH, MBP_LINEAR, MBP_SIGMOID);
	check_gradient(4, 0, MBP_SIGMOID, MBP_TANH, MBP_SIGMOID);
	check_gradient(0, 1, MBP_LINEAR, MBP_SIGMOID, MBP_TANH);
}

/* ---- learning ---------------------------------------------------------------- */

/* Trains job on the CPU; returns the training accuracy of network 0. */
static double train_accuracy(mbp_job *job, mbp_outcome *out)
{
	rt_error err;
	double rms, acc;
	long n;
	const long *set = mbp_job_train_set(job, 0, &n);
	assert_int_equal(mbp_cpu_train(job, NULL, NULL, out, &err), RT_OK);
	mbp_evaluate(job, out->w, set, n, &rms, &acc);
	return acc;
}

static void xor_learned(void **state)
{
	mbp_job job;
	mbp_outcome out;
	rt_error err;
	(void)state;
	assert_int_equal(mbp_job_generated(&job, "xor", 0, 4, 0, 1, &err), RT_OK);
	job.epochs = 5000;
	job.target_rms = 0.01;
	assert_true(train_accuracy(&job, &out) == 1.0);
	assert_true(out.res[0].reached);
	assert_true(out.res[0].train_rms <= 0.01f);
	mbp_outcome_free(&out);
	mbp_job_free(&job);
}

static void two_spirals_learned(void **state)
{
	mbp_job job;
	mbp_outcome out;
	rt_error err;
	(void)state;
	assert_int_equal(mbp_job_generated(&job, "two-spirals", 0, 20, 10, 1, &err), RT_OK);
	assert_int_equal(job.data.n, 194);
	job.epochs = 30000;
	job.target_rms = 0.02;
	assert_true(train_accuracy(&job, &out) == 1.0);
	assert_true(out.res[0].reached);
	mbp_outcome_free(&out);
	mbp_job_free(&job);
}

/* Steps far too large make the RMS jump: the robustness step restores the
 * best weights; with it off the same run ends worse. */
static void robustness_restores(void **state)
{
	mbp_job job;
	mbp_outcome out;
	rt_error err;
	(void)state;
	assert_int_equal(mbp_job_generated(&job, "two-spirals", 0, 10, 0, 1, &err), RT_OK);
	job.epochs = 300;
	job.step0 = 8.0f;
	job.rule.up = 1.5f;
	job.rule.max_step = 1000.0f;
	train_accuracy(&job, &out);
	assert_true(out.res[0].restores > 0);
	assert_true(out.res[0].best_rms <= out.res[0].train_rms);
	assert_true(isfinite(out.res[0].best_rms));
	mbp_outcome_free(&out);
	job.rule.robust = 0;
	train_accuracy(&job, &out);
	assert_int_equal(out.res[0].restores, 0);
	mbp_outcome_free(&out);
	mbp_job_free(&job);
}

/* The same weights for 1 or 2 threads, chunks or networks in parallel. */
static void threads_agree(void **state)
{
	mbp_job job;
	mbp_outcome a, b;
	rt_error err;
	size_t all;
	(void)state;
	assert_int_equal(mbp_job_generated(&job, "two-spirals", 0, 12, 6, 1, &err), RT_OK);
	job.epochs = 40;
	job.chunk = 16;
	for (int pass = 0; pass < 3; pass++) {
		job.networks = pass == 2 ? 3 : 1;
		job.mode = pass == 1 ? MBP_MINIBATCH : MBP_BATCH;
		all = (size_t)job.networks * job.shape.nweights;
		cpu_set_threads(1);
		assert_int_equal(mbp_cpu_train(&job, NULL, NULL, &a, &err), RT_OK);
		cpu_set_threads(2);
		assert_int_equal(mbp_cpu_train(&job, NULL, NULL, &b, &err), RT_OK);
		assert_memory_equal(a.w, b.w, all * sizeof(float));
		mbp_outcome_free(&a);
		mbp_outcome_free(&b);
	}
	cpu_set_threads(0);
	mbp_job_free(&job);
}

/* A rank's share of the networks (MPI, mbp_shard.c: net_base, networks)
 * trains exactly those networks of a one-process run: the same initial
 * weights, pattern orders and final weights. */
static void share_trains_the_same_networks(void **state)
{
	mbp_job job;
	mbp_outcome all, part;
	rt_error err;
	size_t nw;
	(void)state;
	assert_int_equal(mbp_job_generated(&job, "two-spirals", 0, 8, 0, 1, &err), RT_OK);
	job.epochs = 30;
	job.mode = MBP_MINIBATCH;
	job.batch_size = 16;
	job.networks = 5;
	nw = (size_t)job.shape.nweights;
	assert_int_equal(mbp_cpu_train(&job, NULL, NULL, &all, &err), RT_OK);
	job.networks_total = 5;
	job.net_base = 2;
	job.networks = 2;
	assert_int_equal(mbp_job_networks_all(&job), 5);
	assert_int_equal(mbp_cpu_train(&job, NULL, NULL, &part, &err), RT_OK);
	assert_memory_equal(part.w, all.w + 2 * nw, 2 * nw * sizeof(float));
	assert_int_equal(part.res[1].epochs, all.res[3].epochs);
	assert_true(memcmp(all.w + 2 * nw, all.w + 3 * nw, nw * sizeof(float)) != 0);
	mbp_outcome_free(&all);
	mbp_outcome_free(&part);
	mbp_job_free(&job);
}

/* ---- generated kernels ------------------------------------------------------- */

static void kernels_compile(void **state)
{
	rt_error err;
	int nopt, maj, min;
	const char *const *opts = mbp_gpu_nvrtc_options(&nopt);
	(void)state;
	if (nvrtc_open(&err) != RT_OK || nvrtc_version(&maj, &min, &err) != RT_OK) {
		printf("SKIP: NVRTC not available: %s\n", err.msg);
		skip();
	}
	for (int c = 0; c < 6; c++) {
		mbp_job job;
		gen_source src;
		nvrtc_output out;
		nvrtc_usage u;
		memset(&src, 0, sizeof src);
		assert_int_equal(mbp_job_generated(&job, c < 3 ? "two-spirals" : "friedman1", c < 3 ? 0 : 256,
						   c % 2 ? 30 : 10, c % 3 ? 10 : 0, c != 4, &err), RT_OK);
		job.mode = c % 3;
		job.shape.act_output = c == 5 ? MBP_LINEAR : MBP_SIGMOID;
		if (c >= 4) {   /* an MPI rank's share: networks 7.. of 10 */
			job.networks_total = 10;
			job.net_base = 7;
			job.networks = 3;
			job.variant = c == 4 ? MBP_VARIANT_SPLIT : MBP_VARIANT_FUSED;
		}
		assert_int_equal(mbp_gpu_source(&job, &src, &err), RT_OK);
		assert_int_equal(strstr(src.text.data, "#define MBP_NET_BASE 7\n") != NULL, c >= 4);
		if (nvrtc_compile(src.name, src.text.data, "sm_90", opts, nopt, &out, &err) != RT_OK)
			fail_msg("%s", err.msg);
		/* the run's form alone: mbp_fused, or the split pair for c == 4 */
		const char *kernel = c == 4 ? "mbp_split_grad" : "mbp_fused";
		const char *absent = c == 4 ? "mbp_fused" : "mbp_split_grad";
		if (nvrtc_parse_usage(out.log, kernel, &u, &err) != RT_OK)
			fail_msg("%s: %s", src.name, err.msg);
		assert_true(u.registers > 0);
		assert_int_not_equal(nvrtc_parse_usage(out.log, absent, &u, &err), RT_OK);
		if (c == 4)
			assert_int_equal(nvrtc_parse_usage(out.log, "mbp_split_end", &u, &err), RT_OK);
		nvrtc_output_free(&out);
		gen_free(&src);
		mbp_job_free(&job);
	}
}

/* ---- specs and runs ------------------------------------------------------------ */

static rt_status run_text(const char *name, const char *text, const char *outdir, rt_error *err)
{
	char path[400];
	rt_spec spec;
	rt_options opt;
	const rt_kind *kind;
	rt_status st;
	FILE *f;
	snprintf(path, sizeof path, "%s/%s", tmpdir, name);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
	memset(&opt, 0, sizeof opt);
	opt.backend = RT_BACKEND_CPU;
	opt.outdir = outdir;
	if ((st = rt_spec_load(&spec, path, err)) != RT_OK)
		return st;
	if ((st = rt_kind_of_spec(&spec, &kind, err)) == RT_OK)
		st = kind->run(&spec, &opt, err);
	rt_spec_free(&spec);
	return st;
}

static void spec_errors(void **state)
{
	char out[300];
	rt_error err;
	(void)state;
	snprintf(out, sizeof out, "%s/bad", tmpdir);
	assert_int_equal(run_text("h0.ini", "[problem]\nkind = mbp\n[data]\nsource = xor\n"
				  "[mbp]\nhidden = 0\n", out, &err), RT_ERR_INPUT);
	assert_non_null(strstr(err.msg, "h0.ini:6"));
	assert_int_equal(run_text("f1.ini", "[problem]\nkind = mbp\n[data]\nsource = xor\n"
				  "[mbp]\nfolds = 1\n", out, &err), RT_ERR_INPUT);
	assert_non_null(strstr(err.msg, "folds"));
	assert_int_equal(run_text("mode.ini", "[problem]\nkind = mbp\n[data]\nsource = xor\n"
				  "[mbp]\nmode = stochastic\n", out, &err), RT_ERR_INPUT);
	assert_non_null(strstr(err.msg, "mode.ini:6"));
	assert_int_equal(run_text("typo.ini", "[problem]\nkind = mbp\n[data]\nsource = xor\n"
				  "[mbp]\nepoch = 5\n", out, &err), RT_ERR_INPUT);
	assert_non_null(strstr(err.msg, "epoch"));
}

/* A run writes result.json, network.net and predictions.csv; the network
 * read back reproduces the predictions; initial weights from a file give
 * the same run twice. */
static void run_writes_files(void **state)
{
	char out[300], path[400], spec[800];
	rt_error err;
	mbp_net net;
	(void)state;
	snprintf(out, sizeof out, "%s/xor", tmpdir);
	assert_int_equal(run_text("xor.ini", "[problem]\nkind = mbp\nname = x\n[data]\nsource = xor\n"
				  "[mbp]\nhidden = 3\nmode = batch\nepochs = 3000\ntarget_rms = 0.02\n",
				  out, &err), RT_OK);
	snprintf(path, sizeof path, "%s/network.net", out);
	assert_int_equal(mbp_net_read(path, &net, &err), RT_OK);
	assert_int_equal(net.shape.h1, 3);
	float x[4][2] = { { -1, -1 }, { -1, 1 }, { 1, -1 }, { 1, 1 } }, y;
	for (int p = 0; p < 4; p++) {
		mbp_forward(&net.shape, net.w, x[p], &y);
		assert_true((y >= 0.5f) == ((p == 1) || (p == 2)));
	}
	mbp_net_free(&net);
	snprintf(path, sizeof path, "%s/result.json", out);
	assert_int_equal(access(path, R_OK), 0);
	snprintf(path, sizeof path, "%s/predictions.csv", out);
	assert_int_equal(access(path, R_OK), 0);
	snprintf(spec, sizeof spec, "[problem]\nkind = mbp\n[data]\nsource = xor\n[mbp]\nhidden = 3\n"
		 "epochs = 5\nweights = %s/network.net\n", out);
	snprintf(out, sizeof out, "%s/xor2", tmpdir);
	assert_int_equal(run_text("w.ini", spec, out, &err), RT_OK);
	snprintf(spec + strlen(spec), sizeof spec - strlen(spec), "[problem]\n");
	assert_int_equal(run_text("w2.ini", "[problem]\nkind = mbp\n[data]\nsource = xor\n[mbp]\n"
				  "hidden = 5\nweights = xor/network.net\n", out, &err), RT_ERR_INPUT);
	assert_non_null(strstr(err.msg, "2-3-1"));
}

/* Divergence: linear units with a step of 1e6 overflow the outputs in the
 * first epochs; the run stops with the network and epochs named, exit
 * status 2, and the files of an earlier run in the same folder stay as
 * they were. */
static void divergence_stops(void **state)
{
	char out[300], path[400], *before, *after;
	size_t nbefore, nafter;
	rt_error err;
	(void)state;
	rt_log_set_quiet(1);
	snprintf(out, sizeof out, "%s/div", tmpdir);
	assert_int_equal(run_text("ok.ini", "[problem]\nkind = mbp\nname = d\n[data]\nsource = xor\n"
				  "[mbp]\nhidden = 3\nepochs = 50\n", out, &err), RT_OK);
	snprintf(path, sizeof path, "%s/network.net", out);
	assert_int_equal(rt_read_file(path, &before, &nbefore, &err), RT_OK);
	assert_int_equal(run_text("div.ini", "[problem]\nkind = mbp\nname = d\n[data]\nsource = xor\n"
				  "[mbp]\nhidden = 4\nmode = online\nstep = 1e6\nmax_step = 1e9\n"
				  "robust = false\nhidden_activation = linear\noutput_activation = linear\n"
				  "epochs = 200\nreport_every = 10\n", out, &err), RT_ERR_INPUT);
	rt_log_set_quiet(0);
	/* the host looks every 2 epochs (history.csv: a row every 200 / 100 epochs) */
	assert_non_null(strstr(err.msg, "d: network 0 diverged between epochs 0 and 2: the training "
				       "RMS is inf"));
	assert_non_null(strstr(err.msg, "nothing was written"));
	assert_int_equal(rt_read_file(path, &after, &nafter, &err), RT_OK);
	assert_int_equal(nbefore, nafter);
	assert_memory_equal(before, after, nbefore);
	free(before);
	free(after);
	/* The check itself: finite passes, NaN and inf fail. */
	mbp_job job;
	memset(&job, 0, sizeof job);
	snprintf(job.name, sizeof job.name, "j");
	assert_int_equal(mbp_check_rms(&job, 3, 0.5f, 10, 20, &err), RT_OK);
	assert_int_equal(mbp_check_rms(&job, 3, NAN, 10, 20, &err), RT_ERR_INPUT);
	assert_non_null(strstr(err.msg, "j: network 3 diverged between epochs 10 and 20: the training RMS is nan"));
}

static void folds_report_each(void **state)
{
	char out[300], path[400], *text;
	size_t size;
	rt_error err;
	(void)state;
	snprintf(out, sizeof out, "%s/folds", tmpdir);
	assert_int_equal(run_text("folds.ini", "[problem]\nkind = mbp\n[data]\nsource = two-spirals\n"
				  "[mbp]\nhidden = 8\nepochs = 30\nfolds = 4\n", out, &err), RT_OK);
	snprintf(path, sizeof path, "%s/result.json", out);
	assert_int_equal(rt_read_file(path, &text, &size, &err), RT_OK);
	assert_non_null(strstr(text, "\"fold\": 3"));
	assert_non_null(strstr(text, "\"mean_valid_accuracy\""));
	assert_null(strstr(text, "\"fold\": 4"));
	free(text);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(expf_is_accurate),
		cmocka_unit_test(order_is_permutation),
		cmocka_unit_test(gradients_match_finite_differences),
		cmocka_unit_test(xor_learned),
		cmocka_unit_test(two_spirals_learned),
		cmocka_unit_test(robustness_restores),
		cmocka_unit_test(threads_agree),
		cmocka_unit_test(share_trains_the_same_networks),
		cmocka_unit_test(kernels_compile),
		cmocka_unit_test(spec_errors),
		cmocka_unit_test(run_writes_files),
		cmocka_unit_test(divergence_stops),
		cmocka_unit_test(folds_report_each),
	};
	return cmocka_run_group_tests(tests, setup, tmp_teardown);
}
