/* test_svm.c: kind `svm` against LIBSVM itself (Debian's svm-train and
 * svm-predict, installed by tools/setup-debian; skipped with a reason when
 * absent): on generated two- and three-class data, the same dual objective
 * (1e-4 relative), rho, support-vector count and training predictions as
 * `svm-train -h 0`; our model files read by `svm-predict` give our labels;
 * both working-set rules reach the same objective; class weights; and a
 * whole run from a spec writes a model LIBSVM reads. */
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

#include "kinds.h"
#include "log.h"
#include "nvrtc.h"
#include "rng.h"
#include "spec.h"
#include "svm/svm_impl.h"

#include "../test_tmp.h"

static int setup(void **state)
{
	(void)state;
	return tmp_setup("svm");
}

static int have_libsvm(void)
{
	if (system("command -v svm-train >/dev/null 2>&1 && command -v svm-predict >/dev/null 2>&1") == 0)
		return 1;
	printf("SKIP: svm-train/svm-predict not found (tools/setup-debian installs libsvm-tools)\n");
	return 0;
}

/* n points of k Gaussian blobs in nf dimensions (overlapping), labels
 * 1..k (k = 2: +1/-1, -1 first to exercise LIBSVM's label swap), written
 * in LIBSVM format to path. */
static void make_data(svm_data *d, long n, int nf, int k, uint64_t seed, const char *path)
{
	rt_rng rng;
	FILE *f = fopen(path, "w");
	assert_non_null(f);
	rt_rng_init(&rng, seed, 0);
	memset(d, 0, sizeof *d);
	d->n = n;
	d->nfeat = nf;
	d->x = malloc((size_t)n * nf * sizeof *d->x);
	d->y = malloc((size_t)n * sizeof *d->y);
	for (long i = 0; i < n; i++) {
		int c = (int)(i % k);
		d->y[i] = k == 2 ? (c ? 1 : -1) : c + 1;
		fprintf(f, "%g", d->y[i]);
		for (int j = 0; j < nf; j++) {
			float v = (float)(rt_rng_normal(&rng) + (j % k == c ? 1.2 : 0.0));
			d->x[(size_t)i * nf + j] = v;
			fprintf(f, " %d:%.9g", j + 1, (double)v);
		}
		fprintf(f, "\n");
	}
	fclose(f);
}

typedef struct libsvm_out {
	double obj, rho;
	long nsv, total_sv;
} libsvm_out;

/* Runs svm-train and reads its obj/rho/nSV lines (the first pair's) and
 * total_sv from the model. */
static void run_svm_train(const char *flags, const char *data, const char *model, libsvm_out *o)
{
	char cmd[2048], line[512], path[400];
	FILE *p;
	snprintf(path, sizeof path, "%s/svm-train.out", tmpdir);
	snprintf(cmd, sizeof cmd, "svm-train %s '%s' '%s' > '%s'", flags, data, model, path);
	assert_int_equal(system(cmd), 0);
	p = fopen(path, "r");
	assert_non_null(p);
	o->obj = NAN;
	o->rho = NAN;
	o->nsv = o->total_sv = 0;
	while (fgets(line, sizeof line, p)) {
		double obj, rho;
		long nsv, nbsv;
		if (isnan(o->obj) && sscanf(line, "obj = %lf, rho = %lf", &obj, &rho) == 2) {
			o->obj = obj;
			o->rho = rho;
		}
		if (sscanf(line, "nSV = %ld, nBSV = %ld", &nsv, &nbsv) == 2)
			o->nsv = nsv;
		if (sscanf(line, "Total nSV = %ld", &nsv) == 1)
			o->total_sv = nsv;
	}
	fclose(p);
}

/* Labels svm-predict gives for data with model, into out[n]. */
static void run_svm_predict(const char *data, const char *model, double *out, long n)
{
	char cmd[2048], path[400];
	FILE *f;
	snprintf(path, sizeof path, "%s/predict.out", tmpdir);
	snprintf(cmd, sizeof cmd, "svm-predict '%s' '%s' '%s' >/dev/null", data, model, path);
	assert_int_equal(system(cmd), 0);
	f = fopen(path, "r");
	assert_non_null(f);
	for (long i = 0; i < n; i++)
		assert_int_equal(fscanf(f, "%lf", &out[i]), 1);
	fclose(f);
}

static void default_params(svm_params *p, double C, double gamma)
{
	memset(p, 0, sizeof *p);
	p->kernel.type = SVM_RBF;
	p->kernel.gamma = gamma;
	p->kernel.degree = 3;
	p->C = C;
	p->eps = 1e-3;
	p->cache_mb = 100;
}

static void free_data(svm_data *d)
{
	free(d->x);
	free(d->y);
}

/* Trains ours and LIBSVM's on the same file; compares. */
static void compare_with_libsvm(int k, long n, double C, double gamma, const char *extra,
				const svm_params *pin)
{
	char data[400], ours[400], theirs[400], flags[256];
	svm_data d;
	svm_model m;
	svm_params p;
	libsvm_out o;
	rt_error err;
	double *lib = malloc((size_t)n * sizeof *lib), *own = malloc((size_t)n * sizeof *own);
	long agree = 0;
	snprintf(data, sizeof data, "%s/blobs%d.txt", tmpdir, k);
	snprintf(ours, sizeof ours, "%s/ours%d.model", tmpdir, k);
	snprintf(theirs, sizeof theirs, "%s/theirs%d.model", tmpdir, k);
	make_data(&d, n, 6, k, 7 + (uint64_t)k, data);
	if (pin)
		p = *pin;
	else
		default_params(&p, C, gamma);
	assert_int_equal(svm_train(&d, &p, &m, &err), RT_OK);
	snprintf(flags, sizeof flags, "-s 0 -t 2 -c %.17g -g %.17g -e 0.001 -h 0 %s", C, gamma, extra);
	run_svm_train(flags, data, theirs, &o);
	if (fabs(m.obj[0] - o.obj) > 1e-4 * fabs(o.obj))
		fail_msg("objective: ours %.10g, LIBSVM %.10g", m.obj[0], o.obj);
	assert_true(fabs(m.rho[0] - o.rho) < 1e-3 * (1 + fabs(o.rho)));
	if (labs(m.total_sv - o.total_sv) > 1 + o.total_sv / 100)
		fail_msg("support vectors: ours %ld, LIBSVM %ld", m.total_sv, o.total_sv);
	assert_int_equal(svm_model_write(ours, &m, &err), RT_OK);
	run_svm_predict(data, ours, lib, n);
	for (long i = 0; i < n; i++) {
		own[i] = svm_predict(&m, d.x + i * d.nfeat, d.nfeat);
		assert_true(own[i] == lib[i]);
	}
	run_svm_predict(data, theirs, lib, n);
	for (long i = 0; i < n; i++)
		agree += own[i] == lib[i];
	assert_true(agree >= n - n / 500);
	free(lib);
	free(own);
	svm_model_free(&m);
	free_data(&d);
}

static void binary_matches_libsvm(void **state)
{
	(void)state;
	if (!have_libsvm())
		skip();
	compare_with_libsvm(2, 400, 10.0, 0.2, "", NULL);
}

static void multiclass_matches_libsvm(void **state)
{
	(void)state;
	if (!have_libsvm())
		skip();
	compare_with_libsvm(3, 300, 4.0, 0.3, "", NULL);
}

static void class_weights_match_libsvm(void **state)
{
	svm_params p;
	double lab = 1, w = 3;
	(void)state;
	if (!have_libsvm())
		skip();
	default_params(&p, 2.0, 0.25);
	p.nweights = 1;
	p.weight_label = &lab;
	p.weight = &w;
	compare_with_libsvm(2, 300, 2.0, 0.25, "-w1 3", &p);
}

static void both_selections_same_objective(void **state)
{
	char data[400];
	svm_data d;
	svm_model a, b;
	svm_params p;
	rt_error err;
	(void)state;
	snprintf(data, sizeof data, "%s/wss.txt", tmpdir);
	make_data(&d, 300, 5, 2, 11, data);
	default_params(&p, 5.0, 0.2);
	assert_int_equal(svm_train(&d, &p, &a, &err), RT_OK);
	p.wss = SVM_WSS_FIRST;
	assert_int_equal(svm_train(&d, &p, &b, &err), RT_OK);
	assert_true(fabs(a.obj[0] - b.obj[0]) <= 1e-3 * fabs(a.obj[0]));
	assert_true(b.iterations >= a.iterations);
	svm_model_free(&a);
	svm_model_free(&b);
	free_data(&d);
}

/* A run from a spec writes model.txt that svm-predict reads, and result.json. */
static void run_from_spec(void **state)
{
	char data[400], spec_path[400], out[400], model[500], text[1024];
	svm_data d;
	rt_spec spec;
	rt_options opt;
	const rt_kind *kind;
	rt_error err;
	FILE *f;
	(void)state;
	snprintf(data, sizeof data, "%s/run.txt", tmpdir);
	make_data(&d, 200, 4, 2, 3, data);
	snprintf(spec_path, sizeof spec_path, "%s/run.ini", tmpdir);
	snprintf(text, sizeof text, "[problem]\nkind = svm\nname = t\n[svm]\nC = 3\ngamma = 0.5\n"
		 "[data]\ntrain = %s\ntest = %s\n", data, data);
	f = fopen(spec_path, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
	snprintf(out, sizeof out, "%s/run-out", tmpdir);
	memset(&opt, 0, sizeof opt);
	opt.backend = RT_BACKEND_CPU;
	opt.outdir = out;
	assert_int_equal(rt_spec_load(&spec, spec_path, &err), RT_OK);
	assert_int_equal(rt_kind_of_spec(&spec, &kind, &err), RT_OK);
	if (kind->run(&spec, &opt, &err) != RT_OK)
		fail_msg("%s", err.msg);
	rt_spec_free(&spec);
	snprintf(model, sizeof model, "%s/model.txt", out);
	assert_int_equal(access(model, R_OK), 0);
	if (have_libsvm()) {
		double *lab = malloc(200 * sizeof *lab);
		run_svm_predict(data, model, lab, 200);
		free(lab);
	}
	snprintf(model, sizeof model, "%s/result.json", out);
	assert_int_equal(access(model, R_OK), 0);
	free_data(&d);
}

/* A polynomial kernel of degree 100 with gamma 10 overflows a float
 * ((10 x.x + 1)^100 > 1e38 for every point here): training stops with the
 * kernel named, and a run from a spec writes no model; degree 3 trains. */
static void kernel_overflow_stops(void **state)
{
	char data[400], spec_path[400], out[400], model[500], text[1024];
	svm_data d;
	svm_model m;
	svm_params p;
	rt_spec spec;
	rt_options opt;
	const rt_kind *kind;
	rt_error err;
	FILE *f;
	(void)state;
	snprintf(data, sizeof data, "%s/overflow.txt", tmpdir);
	make_data(&d, 60, 4, 2, 5, data);
	default_params(&p, 1.0, 10.0);
	p.kernel.type = SVM_POLY;
	p.kernel.coef0 = 1.0;
	p.kernel.degree = 100;
	assert_int_equal(svm_train(&d, &p, &m, &err), RT_ERR_INPUT);
	assert_non_null(strstr(err.msg, "is inf as a float (polynomial kernel, gamma 10, coef0 1, degree 100)"));
	assert_non_null(strstr(err.msg, "no model was written"));
	/* the GPU path's check before its solve (svm_train.c) gives the CPU's
	 * message for the pair's points in the pair's order (svm_train.c's
	 * pair_points: its first class, here point 2's, then the other) */
	{
		char cpu_msg[sizeof err.msg];
		long *idx = malloc((size_t)d.n * sizeof *idx), n = 0;
		assert_non_null(idx);
		for (long i = 0; i < d.n; i++)
			if (d.y[i] == d.y[1])
				idx[n++] = i;
		for (long i = 0; i < d.n; i++)
			if (d.y[i] != d.y[1])
				idx[n++] = i;
		snprintf(cpu_msg, sizeof cpu_msg, "%s", err.msg);
		assert_int_equal(svm_check_diagonal(&d, idx, d.n, &p.kernel, &err), RT_ERR_INPUT);
		assert_string_equal(err.msg, cpu_msg);
		p.kernel.degree = 3;
		assert_int_equal(svm_check_diagonal(&d, idx, d.n, &p.kernel, &err), RT_OK);
		p.kernel.degree = 100;
		free(idx);
	}
	/* and the check after a solve: a non-finite rho is refused, out freed */
	{
		svm_binary b = { 0 };
		b.alpha = calloc(2, sizeof *b.alpha);
		b.rho = NAN;
		b.iterations = 7;
		assert_int_equal(svm_check_solved(&b, 2, &err), RT_ERR_INPUT);
		assert_non_null(strstr(err.msg, "svm: the solver diverged after 7 iterations"));
		assert_null(b.alpha);
	}
	p.kernel.degree = 3;
	p.kernel.gamma = 0.1;
	assert_int_equal(svm_train(&d, &p, &m, &err), RT_OK);
	assert_true(isfinite(m.obj[0]) && isfinite(m.rho[0]));
	svm_model_free(&m);

	snprintf(spec_path, sizeof spec_path, "%s/overflow.ini", tmpdir);
	snprintf(text, sizeof text, "[problem]\nkind = svm\nname = o\n[svm]\nkernel = polynomial\n"
		 "degree = 100\ngamma = 10\ncoef0 = 1\n[data]\ntrain = %s\n", data);
	f = fopen(spec_path, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
	snprintf(out, sizeof out, "%s/overflow-out", tmpdir);
	memset(&opt, 0, sizeof opt);
	opt.backend = RT_BACKEND_CPU;
	opt.outdir = out;
	opt.quiet = 1;
	assert_int_equal(rt_spec_load(&spec, spec_path, &err), RT_OK);
	assert_int_equal(rt_kind_of_spec(&spec, &kind, &err), RT_OK);
	rt_log_set_quiet(1);
	assert_int_equal(kind->run(&spec, &opt, &err), RT_ERR_INPUT);
	rt_log_set_quiet(0);
	rt_spec_free(&spec);
	snprintf(model, sizeof model, "%s/model.txt", out);
	assert_int_not_equal(access(model, R_OK), 0);
	free_data(&d);
}

/* Every kernel type and selection rule compiles under NVRTC for sm_90, the
 * persistent kernel and the Gram matrix's without spills. */
static void gpu_kernels_compile(void **state)
{
	rt_error err;
	int nopt, maj, min;
	const char *const *opts = svm_gpu_nvrtc_options(&nopt);
	(void)state;
	if (nvrtc_open(&err) != RT_OK || nvrtc_version(&maj, &min, &err) != RT_OK) {
		printf("SKIP: NVRTC not available: %s\n", err.msg);
		skip();
	}
	for (int k = 0; k < 4; k++)
		for (int w = 0; w < 2; w++) {
			svm_params p;
			gen_source src;
			nvrtc_output out;
			memset(&src, 0, sizeof src);
			default_params(&p, 1, 0.5);
			p.kernel.type = k;
			p.wss = w;
			assert_int_equal(svm_gpu_source(&p, 123, &src, &err), RT_OK);
			nvrtc_usage u;
			if (nvrtc_compile(src.name, src.text.data, "sm_90", opts, nopt, &out, &err) != RT_OK)
				fail_msg("%s", err.msg);
			for (int kernel = 0; kernel < 2; kernel++) {
				const char *name = kernel ? "svm_gram" : "svm_persistent";
				if (nvrtc_parse_usage(out.log, name, &u, &err) != RT_OK)
					fail_msg("%s: %s", name, err.msg);
				assert_int_equal(u.spill_stores + u.spill_loads, 0);
			}
			nvrtc_output_free(&out);
			gen_free(&src);
		}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(binary_matches_libsvm),
		cmocka_unit_test(multiclass_matches_libsvm),
		cmocka_unit_test(class_weights_match_libsvm),
		cmocka_unit_test(both_selections_same_objective),
		cmocka_unit_test(run_from_spec),
		cmocka_unit_test(kernel_overflow_stops),
		cmocka_unit_test(gpu_kernels_compile),
	};
	return cmocka_run_group_tests(tests, setup, tmp_teardown);
}
