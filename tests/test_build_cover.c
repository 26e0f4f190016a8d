/* test_build_cover.c: the kernel lists of aco, mbp and svm (rt_kind.kernels,
 * what `evoforge build` compiles and embeds) hold every compile their GPU
 * runs make, checked without a GPU and without NVRTC:
 *   - a kind's list for a spec becomes a table of placeholder cubins
 *     ("FAKECUBIN"), registered as a built program registers its real ones
 *     (kcache_prebuilt_register: looked up by name, source, arch, options);
 *   - NVRTC is absent (EVOFORGE_LIBNVRTC=/nonexistent), so a compile the
 *     table lacks fails with "embeds no cubin";
 *   - the driver is libfakecuda.so (tests/fakecuda.c, next to this program):
 *     an H100 (sm_90) that lets the run open a context and then stops it
 *     at module loading with EVOFORGE_FAKE_DRIVER, only for a placeholder.
 * So the kind's real GPU code path (`evoforge run --backend gpu`, and for
 * svm the batched prediction of the training and test sets) runs up to its
 * nvrtc_compile and must end at EVOFORGE_FAKE_DRIVER. A negative control
 * drops an entry from the table and expects "embeds no cubin". */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "build.h"
#include "built.h"
#include "kcache.h"
#include "kinds.h"
#include "spec.h"
#include "svm/svm_impl.h"
#include "test_tmp.h"

static const unsigned char placeholder[] = "FAKECUBIN: no code";

/* The table made from a kind's list (the names are the table's own). */
typedef struct table {
	rt_built_kernel k[32];
	char names[32][128];
	int n;
} table;

/* rt_kernel_emit: one placeholder entry for the compile on sm_90. */
static rt_status add_entry(void *ctx, const char *name, const char *source,
			   const char *const *options, int noptions, rt_error *err)
{
	table *t = ctx;
	(void)err;
	assert_true(t->n < 32);
	snprintf(t->names[t->n], sizeof t->names[0], "%s", name);
	t->k[t->n] = (rt_built_kernel){ t->names[t->n], "sm_90",
					kcache_prebuilt_key(name, source, "sm_90", options, noptions),
					placeholder, placeholder + sizeof placeholder, "" };
	t->n++;
	return RT_OK;
}

/* The spec (a problem name or path) with "section.key=value" overrides. */
static void load_spec(rt_spec *spec, const char *name, const char *const *sets)
{
	rt_error err = {0};
	if (rt_spec_load_named(spec, name, &err) != RT_OK)
		fail_msg("%s", err.msg);
	for (int i = 0; sets && sets[i]; i++)
		if (rt_spec_set_assignment(spec, sets[i], &err) != RT_OK)
			fail_msg("%s", err.msg);
}

/* The kind's list for spec on a typical sm_90 device. */
static void list_kernels(const char *kind_name, const char *spec_name, const char *const *sets,
			 table *t)
{
	const rt_kind *kind = rt_kind_find(kind_name);
	rt_spec spec;
	rt_options opt;
	gpu_info info;
	rt_error err = {0};
	memset(t, 0, sizeof *t);
	memset(&opt, 0, sizeof opt);
	assert_non_null(kind);
	assert_non_null(kind->kernels);
	load_spec(&spec, spec_name, sets);
	assert_int_equal(rt_build_device_profile("sm_90", &info, &err), RT_OK);
	if (kind->kernels(&spec, &opt, &info, add_entry, t, &err) != RT_OK)
		fail_msg("%s: %s", spec_name, err.msg);
	rt_spec_free(&spec);
	assert_true(t->n >= 1);
}

/* A GPU path ended at the fake driver's module load: every compile it made
 * before was in the table. */
static void assert_reached_module_load(rt_status st, const rt_error *err, const char *what)
{
	if (st == RT_OK)
		fail_msg("%s: ran to the end on the fake driver", what);
	if (!strstr(err->msg, "EVOFORGE_FAKE_DRIVER"))
		fail_msg("%s: did not reach module loading: %s", what, err->msg);
}

/* `evoforge run SPEC --backend gpu` of kind_name against the table. */
static rt_status run_gpu(const char *kind_name, const char *spec_name, const char *const *sets,
			 const table *t, rt_error *err)
{
	const rt_kind *kind = rt_kind_find(kind_name);
	rt_spec spec;
	rt_options opt;
	char out[300];
	rt_status st;
	memset(&opt, 0, sizeof opt);
	snprintf(out, sizeof out, "%s/%s", tmpdir, kind_name);
	opt.backend = RT_BACKEND_GPU;
	opt.outdir = out;
	opt.quiet = 1;
	load_spec(&spec, spec_name, sets);
	kcache_prebuilt_register(t->k, t->n);
	st = kind->run(&spec, &opt, err);
	kcache_prebuilt_register(NULL, 0);
	rt_spec_free(&spec);
	return st;
}

/* The list covers the run: it ends at the fake driver. */
static void covers_run(const char *kind_name, const char *spec_name, const char *const *sets)
{
	table t;
	rt_error err = {0};
	char what[256];
	snprintf(what, sizeof what, "%s %s%s%s", kind_name, spec_name, sets ? " --set " : "",
		 sets ? sets[0] : "");
	list_kernels(kind_name, spec_name, sets, &t);
	assert_reached_module_load(run_gpu(kind_name, spec_name, sets, &t, &err), &err, what);
}

/* ---- aco and mbp: the run compiles one module --------------------------------------- */

static void aco_run_is_covered(void **state)
{
	static const char *const small[] = { "data.random=200", "aco.iterations=2", NULL };
	static const char *const thread[] = { "data.random=150", "aco.construction=thread",
					      "aco.candidates=0", "aco.ants=300", NULL };
	static const char *const ls[] = { "data.random=120", "aco.local_search=2opt", NULL };
	(void)state;
	covers_run("aco", "problems/aco-random.ini", small);
	covers_run("aco", "problems/aco-random.ini", thread);
	covers_run("aco", "problems/aco-random.ini", ls);
}

static void mbp_run_is_covered(void **state)
{
	static const char *const many[] = { "mbp.networks=64", "mbp.mode=online", NULL };
	static const char *const split[] = { "mbp.variant=split", NULL };
	(void)state;
	covers_run("mbp", "problems/mbp-spirals.ini", NULL);
	covers_run("mbp", "problems/mbp-spirals.ini", many);
	covers_run("mbp", "problems/mbp-spirals.ini", split);
	covers_run("mbp", "problems/mbp-friedman.ini", NULL);   /* 40768 patterns: split kernels */
}

/* ---- svm: the solver, then the prediction of the training and test sets ---------- */

/* A spec on data of its own (no data set needed): 80 points of 5 features
 * in three classes, and the path of the spec. */
static char svm_spec[300];

static void write_svm_problem(void)
{
	char path[300];
	FILE *f;
	snprintf(path, sizeof path, "%s/points.csv", tmpdir);
	assert_non_null(f = fopen(path, "w"));
	fprintf(f, "a,b,c,d,e,y\n");
	for (int i = 0; i < 80; i++)
		fprintf(f, "%d,%d,%d,%d,%d,%d\n", i % 7, (i * 5) % 11, (i * 3) % 13, i % 2,
			(i * i) % 17, i % 3);
	assert_int_equal(fclose(f), 0);
	snprintf(svm_spec, sizeof svm_spec, "%s/svm-small.ini", tmpdir);
	assert_non_null(f = fopen(svm_spec, "w"));
	fprintf(f, "[problem]\nkind = svm\nname = svm-small\n[svm]\nkernel = rbf\nC = 10\n"
		"[data]\ntrain = points.csv\nlabel = y\n");
	assert_int_equal(fclose(f), 0);
}

/* The spec's data as svm_run loads it. */
static void svm_load(rt_spec *spec, svm_data *train, svm_data *test)
{
	svm_load_options o;
	char tp[RT_PATH_MAX], sp[RT_PATH_MAX];
	rt_error err = {0};
	memset(train, 0, sizeof *train);
	memset(test, 0, sizeof *test);
	if (svm_data_spec_options(spec, &o, &err) != RT_OK ||
	    svm_data_load_spec(spec, &o, tp, train, sp, test, &err) != RT_OK)
		fail_msg("%s", err.msg);
}

/* svm_predict_all on the GPU (as svm_run after training there) of a model
 * trained on the CPU with kernel type `kernel`: its module is in the table. */
static void svm_predict_is_covered(const char *spec_name, const char *const *sets, int kernel)
{
	table t;
	rt_spec spec;
	svm_data train, test;
	svm_params p;
	svm_model m;
	rt_error err = {0};
	list_kernels("svm", spec_name, sets, &t);
	load_spec(&spec, spec_name, sets);
	svm_load(&spec, &train, &test);
	memset(&p, 0, sizeof p);
	memset(&m, 0, sizeof m);
	p.kernel.type = kernel;
	p.kernel.gamma = 1.0 / train.nfeat;
	p.kernel.degree = 3;
	p.C = 1;
	p.eps = 1e-3;
	p.cache_mb = 100;
	if (svm_train(&train, &p, &m, &err) != RT_OK)
		fail_msg("%s", err.msg);
	double *pred = malloc((size_t)(train.n > test.n ? train.n : test.n) * sizeof *pred + 1);
	assert_non_null(pred);
	kcache_prebuilt_register(t.k, t.n);
	assert_reached_module_load(svm_predict_all(&m, &train, SVM_PREDICT_GPU, pred, NULL, &err),
				   &err, "svm prediction of the training set");
	if (test.n)
		assert_reached_module_load(svm_predict_all(&m, &test, SVM_PREDICT_GPU, pred, NULL, &err),
					   &err, "svm prediction of the test set");
	kcache_prebuilt_register(NULL, 0);
	free(pred);
	svm_model_free(&m);
	svm_data_free(&train);
	svm_data_free(&test);
	rt_spec_free(&spec);
}

static void svm_run_is_covered(void **state)
{
	static const char *const linear_test[] = { "svm.kernel=linear", "data.test=points.csv",
						   NULL };
	static const char *const roles[] = { "svm.gpu_kernels=roles", "svm.wss=first", NULL };
	static const char *const folds[] = { "svm.folds=3", NULL };
	static const char *const grid[] = { "grid.log2c=0,1,1", "grid.log2g=-3,-2,1",
					    "grid.folds=2", NULL };
	(void)state;
	write_svm_problem();
	covers_run("svm", svm_spec, NULL);
	covers_run("svm", svm_spec, linear_test);
	covers_run("svm", svm_spec, roles);
	covers_run("svm", svm_spec, folds);
	covers_run("svm", svm_spec, grid);
	svm_predict_is_covered(svm_spec, NULL, SVM_RBF);
	svm_predict_is_covered(svm_spec, linear_test, SVM_LINEAR);
}

/* The control: without its entry, the run's compile fails (so the checks
 * above can fail). */
static void a_missing_entry_is_caught(void **state)
{
	table t;
	rt_error err = {0};
	(void)state;
	list_kernels("mbp", "problems/mbp-spirals.ini", NULL, &t);
	t.k[0].key ^= 1;
	assert_int_not_equal(run_gpu("mbp", "problems/mbp-spirals.ini", NULL, &t, &err), RT_OK);
	assert_non_null(strstr(err.msg, "embeds no cubin"));
	write_svm_problem();
	list_kernels("svm", svm_spec, NULL, &t);
	assert_int_equal(t.n, 2);   /* the solver and the prediction */
	t.n = 1;                    /* the prediction's entry dropped: training passes */
	svm_data train, test;
	rt_spec spec;
	load_spec(&spec, svm_spec, NULL);
	svm_load(&spec, &train, &test);
	svm_model m;
	memset(&m, 0, sizeof m);
	m.kernel.type = SVM_RBF;
	m.nr_class = 3;
	m.nfeat = train.nfeat;
	long nsv[3] = { 0, 0, 0 };
	m.nsv = nsv;
	double pred[1];
	kcache_prebuilt_register(t.k, t.n);
	assert_int_not_equal(svm_predict_all(&m, &train, SVM_PREDICT_GPU, pred, NULL, &err), RT_OK);
	kcache_prebuilt_register(NULL, 0);
	assert_non_null(strstr(err.msg, "embeds no cubin"));
	svm_data_free(&train);
	svm_data_free(&test);
	rt_spec_free(&spec);
}

static int setup(void **state)
{
	(void)state;
	return tmp_setup("build-cover");
}

int main(void)
{
	char exe[RT_PATH_MAX], lib[RT_PATH_MAX + 32];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
	if (n <= 0)
		return 1;
	exe[n] = '\0';
	*strrchr(exe, '/') = '\0';
	snprintf(lib, sizeof lib, "%s/libfakecuda.so", exe);
	if (access(lib, R_OK) != 0) {
		fprintf(stderr, "%s is missing: build it with ninja\n", lib);
		return 1;
	}
	/* Before the first driver or NVRTC call: both are opened once per process. */
	setenv("EVOFORGE_LIBCUDA", lib, 1);
	setenv("EVOFORGE_LIBNVRTC", "/nonexistent/libnvrtc.so", 1);
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(aco_run_is_covered),
		cmocka_unit_test(mbp_run_is_covered),
		cmocka_unit_test(svm_run_is_covered),
		cmocka_unit_test(a_missing_entry_is_caught),
	};
	return cmocka_run_group_tests(tests, setup, tmp_teardown);
}
