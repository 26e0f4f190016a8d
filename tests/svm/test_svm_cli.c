/* test_svm_cli.c: LIBSVM's commands on kind `svm` (svm_cli.c, svm_cv.c,
 * svm_grid.c): `evoforge svm-train` and `svm-predict` against Debian's
 * (skipped with a reason when absent): the same objective (1e-4 relative),
 * support vectors and predictions, -v accuracy within a few points; bad
 * flags exit 2 naming the flag; svm-grid's CSV, best cell and plot; the
 * cross-validation API; and [svm] folds and [grid] in a spec. The commands
 * run as the evoforge binary beside this test program (build/ or
 * build/asan/). */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "log.h"
#include "out.h"
#include "rng.h"
#include "svm/svm_impl.h"

#include "../test_tmp.h"
#include "svm_cli_test.h"

static int setup(void **state)
{
	(void)state;
	return cli_setup("svm-cli");
}

/* k Gaussian blobs in nf dimensions, sep apart (labels -1/+1 for k = 2,
 * else 1..k), written in LIBSVM format to tmpdir/name. */
static void make_blobs(const char *name, long n, int nf, int k, double sep, uint64_t seed)
{
	char path[400];
	svm_data d;
	rt_rng rng;
	rt_error err;
	snprintf(path, sizeof path, "%s/%s", tmpdir, name);
	rt_rng_init(&rng, seed, 0);
	assert_int_equal(svm_data_alloc(&d, n, nf, &err), RT_OK);
	for (long i = 0; i < n; i++) {
		int c = (int)(i % k);
		d.y[i] = k == 2 ? 2 * c - 1 : c + 1;
		for (int j = 0; j < nf; j++)
			d.x[i * nf + j] = (float)(rt_rng_normal(&rng) + (j % k == c ? sep : 0.0));
	}
	assert_int_equal(svm_data_write_libsvm(path, &d, &err), RT_OK);
	svm_data_free(&d);
}

/* What a svm-train run printed: each pair's objective and SV count. */
typedef struct train_report {
	int npairs;
	double obj[16];
	long nsv[16], total;
} train_report;

static void read_report(train_report *r)
{
	char line[512];
	FILE *f = fopen(out_path, "r");
	assert_non_null(f);
	memset(r, 0, sizeof *r);
	while (fgets(line, sizeof line, f)) {
		double obj, rho;
		long nsv, nbsv;
		if (r->npairs < 16 && sscanf(line, "obj = %lf, rho = %lf", &obj, &rho) == 2)
			r->obj[r->npairs] = obj;
		if (r->npairs < 16 && sscanf(line, "nSV = %ld, nBSV = %ld", &nsv, &nbsv) == 2)
			r->nsv[r->npairs++] = nsv;
		if (sscanf(line, "Total nSV = %ld", &nsv) == 1)
			r->total = nsv;
	}
	fclose(f);
}

/* Ours and LIBSVM's svm-train and svm-predict on data with flags. */
static void compare_commands(const char *data, const char *flags)
{
	train_report ours, theirs;
	char acc_ours[256], acc_theirs[256];
	long n;
	assert_int_equal(run("EVO svm-train --backend cpu %s %s ours.model", flags, data), 0);
	read_report(&ours);
	assert_int_equal(run("svm-train %s %s theirs.model", flags, data), 0);
	read_report(&theirs);
	assert_int_equal(ours.npairs, theirs.npairs);
	assert_true(ours.npairs >= 1);
	for (int q = 0; q < ours.npairs; q++) {
		if (fabs(ours.obj[q] - theirs.obj[q]) > 1e-4 * fabs(theirs.obj[q]))
			fail_msg("pair %d objective: ours %.6f, LIBSVM %.6f", q, ours.obj[q], theirs.obj[q]);
		assert_int_equal(ours.nsv[q], theirs.nsv[q]);
	}
	assert_int_equal(ours.total, theirs.total);
	/* the same model read by both predictors gives the same labels and line */
	assert_int_equal(run("EVO svm-predict --backend cpu %s ours.model ours.pred", data), 0);
	snprintf(acc_ours, sizeof acc_ours, "%.200s", output());
	assert_int_equal(run("svm-predict %s ours.model lib-ours.pred", data), 0);
	snprintf(acc_theirs, sizeof acc_theirs, "%.200s", output());
	assert_string_equal(acc_ours, acc_theirs);
	assert_int_equal(differ("ours.pred", "lib-ours.pred", &n), 0);
	/* and LIBSVM's own model: the same labels (a point on the boundary may part) */
	assert_int_equal(run("svm-predict %s theirs.model theirs.pred", data), 0);
	assert_true(differ("ours.pred", "theirs.pred", &n) <= n / 200);
	assert_true(n > 0);
}

static void train_predict_match_libsvm(void **state)
{
	(void)state;
	if (!have_libsvm())
		skip();
	make_blobs("two.txt", 300, 5, 2, 1.0, 5);
	compare_commands("two.txt", "-c 4 -g 0.3 -h 0");
	compare_commands("two.txt", "-t 1 -d 2 -r 1 -c 0.5 -w1 2 -h 0");
	make_blobs("three.txt", 240, 4, 3, 1.5, 6);
	compare_commands("three.txt", "-c 2 -h 0 -e 0.0001");
}

/* Sonar (shipped: data/uci/sonar.csv) in LIBSVM format. */
static void sonar_matches_libsvm(void **state)
{
	char path[400];
	svm_data d;
	svm_load_options o = svm_load_defaults();
	rt_error err;
	(void)state;
	if (!have_libsvm())
		skip();
	assert_int_equal(svm_data_load("data/uci/sonar.csv", &o, &d, &err), RT_OK);
	snprintf(path, sizeof path, "%s/sonar.txt", tmpdir);
	assert_int_equal(svm_data_write_libsvm(path, &d, &err), RT_OK);
	svm_data_free(&d);
	compare_commands("sonar.txt", "-c 10 -h 0");
}

/* -v: LIBSVM's line, an accuracy within 6 points of LIBSVM's (other folds). */
static void cross_validation_close_to_libsvm(void **state)
{
	double ours, theirs;
	(void)state;
	if (!have_libsvm())
		skip();
	make_blobs("cv.txt", 400, 4, 2, 0.8, 9);
	assert_int_equal(run("EVO svm-train --backend cpu -v 5 -c 2 cv.txt"), 0);
	assert_int_equal(sscanf(strstr(output(), "Cross Validation Accuracy = "),
				"Cross Validation Accuracy = %lf%%", &ours), 1);
	assert_int_equal(access("cv.txt.model", F_OK), -1);   /* -v writes no model */
	assert_int_equal(run("svm-train -q -v 5 -c 2 cv.txt"), 0);
	assert_int_equal(sscanf(strstr(output(), "Cross Validation Accuracy = "),
				"Cross Validation Accuracy = %lf%%", &theirs), 1);
	if (fabs(ours - theirs) > 6)
		fail_msg("-v 5 accuracy: ours %g%%, LIBSVM %g%%", ours, theirs);
}

/* The default model name is DATA's file name + .model in the current folder. */
static void default_model_name(void **state)
{
	char path[400];
	(void)state;
	make_blobs("named.txt", 60, 2, 2, 2.0, 4);
	assert_int_equal(run("EVO svm-train --backend cpu -q %s/named.txt", tmpdir), 0);
	assert_string_equal(output(), "");
	snprintf(path, sizeof path, "%s/named.txt.model", tmpdir);
	assert_int_equal(access(path, R_OK), 0);
	assert_int_equal(run("EVO svm-predict --backend cpu -q named.txt named.txt.model named.out"), 0);
	assert_string_equal(output(), "");
}

/* svm-predict --backend: with no GPU (a missing libcuda) auto predicts on
 * the CPU after one warning, the same labels; gpu fails and says why. */
static void predict_backends(void **state)
{
	long n;
	(void)state;
	make_blobs("back.txt", 90, 3, 3, 1.5, 9);
	assert_int_equal(run("EVO svm-train --backend cpu -q back.txt back.model"), 0);
	assert_int_equal(run("EVO svm-predict --backend cpu back.txt back.model cpu.pred"), 0);
	setenv("EVOFORGE_LIBCUDA", "/nonexistent/libcuda.so", 1);   /* run() passes it on */
	assert_int_equal(run("EVO svm-predict back.txt back.model auto.pred"), 0);
	expect_output("running on the CPU");
	expect_output("Accuracy = ");
	assert_int_equal(differ("cpu.pred", "auto.pred", &n), 0);
	assert_int_equal(n, 90);
	assert_int_not_equal(run("EVO svm-predict --backend gpu back.txt back.model gpu.pred"), 0);
	expect_output("--backend gpu");
	unsetenv("EVOFORGE_LIBCUDA");
}

static void bad_flags_exit_2(void **state)
{
	static const char *const cases[][2] = {
		{ "svm-train -s 5 bad.txt", "-s: expected an integer from 0 to 4, got '5'" },
		{ "svm-train -s 1 -n 0 bad.txt", "nu 0: expected a number in (0, 1] for nu_svc" },
		{ "svm-train -s 2 -n 1.5 bad.txt", "nu 1.5: expected a number in (0, 1] for one_class" },
		{ "svm-train -s 4 -n -1 bad.txt", "nu -1: expected a number in (0, 1] for nu_svr" },
		{ "svm-train -s 3 -p -0.1 bad.txt", "-p: expected a number >= 0, got '-0.1'" },
		{ "svm-train -b 2 bad.txt", "-b: expected an integer from 0 to 1, got '2'" },
		{ "svm-train -s 2 -b 1 bad.txt", "probability estimates (-b 1) of one_class are not" },
		{ "svm-train -c -1 bad.txt", "-c: expected a number > 0, got '-1'" },
		{ "svm-train -t 4 bad.txt", "-t 4: precomputed kernels are not supported" },
		{ "svm-train -t x bad.txt", "-t: expected an integer from 0 to 3, got 'x'" },
		{ "svm-train -v 1 bad.txt", "-v: expected an integer from 2 to" },
		{ "svm-train -wx 2 bad.txt", "-w<label> (label 'x'): expected an integer" },
		{ "svm-train -k 1 bad.txt", "unknown option '-k'" },
		{ "svm-train bad.txt -c", "option -c: missing its value" },
		{ "svm-train --backend tpu bad.txt", "expected auto, cpu or gpu, got 'tpu'" },
		{ "svm-train --threads 0 bad.txt", "--threads: expected an integer from 1 to" },
		{ "svm-train", "expected DATA [MODEL]" },
		{ "svm-train a b c", "expected at most 2 file names" },
		{ "svm-train no-such.txt", "no-such.txt" },
		{ "svm-predict bad.txt m", "expected DATA MODEL OUT, got 2 file names" },
		{ "svm-predict -b 2 bad.txt m o", "-b: expected an integer from 0 to 1, got '2'" },
		{ "svm-predict -c 1 bad.txt m o", "unknown option '-c'" },
		{ "svm-predict bad.txt no-such.model o", "no-such.model" },
		{ "svm-grid -log2c 1,5,-1 bad.txt", "-log2c: expected begin,end,step" },
		{ "svm-grid -log2g 1,2 bad.txt", "-log2g: expected begin,end,step" },
		{ "svm-grid -c 3 bad.txt", "-c: C and gamma come from the grid" },
		{ "svm-grid -v 0 bad.txt", "-v: expected an integer from 2 to" },
	};
	(void)state;
	make_blobs("bad.txt", 20, 2, 2, 2.0, 3);
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		int rc = run("EVO %s", cases[i][0]);
		if (rc != 2)
			fail_msg("'%s': exit %d, expected 2; output:\n%s", cases[i][0], rc, output());
		expect_output(cases[i][1]);
	}
}

/* Rows of a CSV file (header excluded), each accuracy in [0, 1]. */
static int csv_rows(const char *name, double *best_acc)
{
	char path[400], line[512];
	FILE *f;
	int rows = 0;
	snprintf(path, sizeof path, "%s/%s", tmpdir, name);
	f = fopen(path, "r");
	assert_non_null(f);
	assert_non_null(fgets(line, sizeof line, f));
	assert_string_equal(line, "log2c,log2g,C,gamma,accuracy\n");
	*best_acc = -1;
	while (fgets(line, sizeof line, f)) {
		double lc, lg, c, g, acc;
		assert_int_equal(sscanf(line, "%lf,%lf,%lf,%lf,%lf", &lc, &lg, &c, &g, &acc), 5);
		assert_true(acc >= 0 && acc <= 1);
		assert_true(fabs(c - pow(2, lc)) < 1e-12 * c && fabs(g - pow(2, lg)) < 1e-12 * g);
		*best_acc = fmax(*best_acc, acc);
		rows++;
	}
	fclose(f);
	return rows;
}

/* A 2x2 grid: four rows; on separable data the sane gamma wins over one so
 * large that every kernel value is ~0 (one class predicted everywhere);
 * default file names; the plot with gnuplot, a clear line without it. */
static void grid_search(void **state)
{
	char path[400];
	double best, c, g, rate;
	const char *last = NULL;
	(void)state;
	make_blobs("easy.txt", 120, 2, 2, 4.0, 8);
	assert_int_equal(run("PATH=/nonexistent EVO svm-grid --backend cpu -log2c 0,5,5 "
			     "-log2g -2,14,16 -v 3 easy.txt"), 0);
	expect_output("[local] 0 -2 ");
	expect_output("gnuplot not found: no plot");
	assert_int_equal(csv_rows("easy.txt.grid.csv", &best), 4);
	for (const char *line = output(); line; line = strchr(line, '\n'), line = line ? line + 1 : NULL)
		if (sscanf(line, "%lf %lf %lf", &c, &g, &rate) == 3)
			last = line;   /* the final "C gamma rate" */
	assert_non_null(last);
	assert_true(g == 0.25 && rate >= 95 && fabs(rate - 100 * best) < 1e-3);
	if (system("command -v gnuplot >/dev/null 2>&1") != 0) {
		printf("SKIP: gnuplot not found: the plot itself is not checked\n");
		return;
	}
	assert_int_equal(run("EVO svm-grid --backend cpu -q -log2c 0,1,1 -log2g 0,1,1 -v 2 "
			     "-out null -png p.png easy.txt"), 0);
	snprintf(path, sizeof path, "%s/p.png", tmpdir);
	assert_int_equal(access(path, R_OK), 0);
	assert_int_equal(run("head -c 4 p.png | od -c"), 0);
	expect_output("P   N   G");
}

/* The API: every point predicted once, the accuracy their fraction right,
 * the same seed the same folds, more folds than points leave-one-out. */
static void cross_validation_api(void **state)
{
	svm_data d;
	svm_params p = { .kernel = { .type = SVM_RBF, .gamma = 0.5 }, .C = 1, .eps = 1e-3,
			 .cache_mb = 10 };
	rt_error err;
	double *a = malloc(40 * sizeof *a), *b = malloc(40 * sizeof *b), acc, acc2;
	long right = 0;
	(void)state;
	assert_int_equal(svm_data_alloc(&d, 40, 2, &err), RT_OK);
	for (long i = 0; i < 40; i++) {
		d.y[i] = i % 3 ? 1 : 2;
		d.x[2 * i] = (float)(d.y[i] + 0.3 * sin((double)i));
		d.x[2 * i + 1] = (float)cos(3.0 * i);
	}
	assert_int_equal(svm_cross_validation(&d, &p, 4, 7, a, &acc, &err), RT_OK);
	for (long i = 0; i < 40; i++) {
		assert_true(a[i] == 1 || a[i] == 2);
		right += a[i] == d.y[i];
	}
	assert_true(fabs(acc - right / 40.0) < 1e-15 && acc > 0.9);
	assert_int_equal(svm_cross_validation(&d, &p, 4, 7, b, &acc2, &err), RT_OK);
	assert_memory_equal(a, b, 40 * sizeof *a);
	assert_int_equal(svm_cross_validation(&d, &p, 100, 7, b, &acc2, &err), RT_OK);
	d.n = 2;   /* one point of each class: each fold trains on the other class alone */
	assert_int_equal(svm_cross_validation(&d, &p, 2, 7, b, &acc2, &err), RT_OK);
	assert_true(acc2 == 0 && b[0] == d.y[1] && b[1] == d.y[0]);
	d.n = 40;
	assert_int_equal(svm_cross_validation(&d, &p, 1, 7, b, &acc2, &err), RT_ERR_INPUT);
	assert_non_null(strstr(err.msg, "expected 2 or more folds"));
	free(a);
	free(b);
	svm_data_free(&d);
}

/* Writes text to tmpdir/name. */
static void write_file(const char *name, const char *text)
{
	char path[400];
	rt_error err;
	snprintf(path, sizeof path, "%s/%s", tmpdir, name);
	assert_int_equal(rt_write_file_atomic(path, text, strlen(text), &err), RT_OK);
}

/* [svm] folds: result.json with cv_accuracy, no model; [grid]: grid.csv
 * and result.json with the best cell (run as `evoforge run SPEC`). */
static void spec_folds_and_grid(void **state)
{
	double best;
	(void)state;
	make_blobs("spec.txt", 90, 3, 2, 2.0, 21);
	write_file("cv.ini", "[problem]\nkind = svm\nname = cv\n[svm]\nfolds = 3\n"
		   "[data]\ntrain = spec.txt\n");
	assert_int_equal(run("EVO run --backend cpu cv.ini -o cv-out"), 0);
	expect_output("3-fold cross-validation accuracy");
	assert_int_equal(run("grep -c cv_accuracy cv-out/result.json"), 0);
	assert_int_equal(run("ls cv-out"), 0);
	assert_null(strstr(output(), "model.txt"));
	write_file("grid.ini", "[problem]\nkind = svm\nname = grid\n[grid]\nlog2c = 0,2,1\n"
		   "log2g = -1,0,1\nfolds = 3\n[data]\ntrain = spec.txt\n");
	assert_int_equal(run("EVO run --backend cpu grid.ini -o grid-out"), 0);
	assert_int_equal(csv_rows("grid-out/grid.csv", &best), 6);
	assert_int_equal(run("python3 -c \"import json; d = json.load(open('grid-out/result.json')); "
			     "assert d['grid_cells'] == 6 and d['folds'] == 3 and "
			     "abs(d['cv_accuracy'] - %.17g) < 1e-12, d\"", best), 0);
	write_file("bad.ini", "[problem]\nkind = svm\n[grid]\nlog2g = 0,1,-1\n[data]\n"
		   "train = spec.txt\n");
	assert_int_equal(run("EVO run --backend cpu bad.ini -o x"), 2);
	expect_output("bad.ini:4: grid.log2g: expected begin,end,step");
	assert_int_equal(run("EVO run --backend cpu cv.ini -o x --set svm.folds=1"), 2);
	expect_output("svm.folds: expected 0 (no cross-validation) or 2 or more, got 1");
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(train_predict_match_libsvm),
		cmocka_unit_test(sonar_matches_libsvm),
		cmocka_unit_test(cross_validation_close_to_libsvm),
		cmocka_unit_test(default_model_name),
		cmocka_unit_test(predict_backends),
		cmocka_unit_test(bad_flags_exit_2),
		cmocka_unit_test(grid_search),
		cmocka_unit_test(cross_validation_api),
		cmocka_unit_test(spec_folds_and_grid),
	};
	(void)argc;
	if (cli_find_evoforge(argv[0], "test_svm_cli"))
		return 1;
	return cmocka_run_group_tests(tests, setup, tmp_teardown);
}
