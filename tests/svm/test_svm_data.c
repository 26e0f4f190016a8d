/* test_svm_data.c: kind `svm`'s data preparation (svm_data.c): svm-scale's
 * min-max scaling (exact values, the test set scaled with the training
 * set's range, constant columns), one-hot and index encoding of string
 * columns over the training set's strings, the positive-class mapping,
 * headerless CSV with the label by number, .gz, the [data] errors naming
 * spec:line, and a scaled one-hot problem trained by us and by Debian's
 * svm-train on the same written LIBSVM file (skipped with a reason when
 * svm-train is absent). */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <zlib.h>

#include "log.h"
#include "rng.h"
#include "spec.h"
#include "svm/svm_impl.h"

#include "../test_tmp.h"

static int setup(void **state)
{
	(void)state;
	return tmp_setup("svm-data");
}

/* Writes text to tmpdir/name; returns the path (static buffer per call site). */
static const char *put(char *path, size_t size, const char *name, const char *text)
{
	FILE *f;
	snprintf(path, size, "%s/%s", tmpdir, name);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
	return path;
}

static float at(const svm_data *d, long r, int f)
{
	return d->x[(size_t)r * d->nfeat + f];
}

static const char train_csv[] = "a,b,c,label\n1,10,5,x\n3,20,5,y\n2,15,5,x\n";

/* Loads a training and a test set from CSV text with options o, the test
 * set prepared as the training set. */
static void load_pair(const svm_load_options *o, const char *train, const char *test,
		      svm_data *d, svm_data *t)
{
	char tp[400], sp[400];
	svm_load_options lo = *o;
	svm_prep prep;
	rt_error err;
	memset(&prep, 0, sizeof prep);
	lo.prep = &prep;
	if (svm_data_load(put(tp, sizeof tp, "train.csv", train), &lo, d, &err) != RT_OK ||
	    svm_data_load(put(sp, sizeof sp, "test.csv", test), &lo, t, &err) != RT_OK)
		fail_msg("%s", err.msg);
	svm_prep_free(&prep);
}

static void free_pair(svm_data *d, svm_data *t)
{
	svm_data_free(d);
	svm_data_free(t);
}

static void scaling_exact_and_test_uses_train_range(void **state)
{
	svm_load_options o = svm_load_defaults();
	svm_data d, t;
	(void)state;
	o.scale = SVM_SCALE_MINUS1TO1;
	load_pair(&o, train_csv, "a,b,c,label\n5,12.5,7,y\n1.5,20,5,z\n", &d, &t);
	assert_int_equal(d.n, 3);
	assert_int_equal(d.nfeat, 3);
	assert_true(at(&d, 0, 0) == -1.0f && at(&d, 1, 0) == 1.0f && at(&d, 2, 0) == 0.0f);
	assert_true(at(&d, 0, 1) == -1.0f && at(&d, 1, 1) == 1.0f && at(&d, 2, 1) == 0.0f);
	assert_true(at(&d, 0, 2) == 0.0f && at(&d, 1, 2) == 0.0f);   /* constant column */
	assert_true(d.y[0] == 1 && d.y[1] == 2 && d.y[2] == 1);
	/* the test set: the training set's min and max, its labels numbered as training's */
	assert_true(at(&t, 0, 0) == 3.0f && at(&t, 0, 1) == -0.5f && at(&t, 0, 2) == 0.0f);
	assert_true(at(&t, 1, 0) == -0.5f && at(&t, 1, 1) == 1.0f);
	assert_true(t.y[0] == 2 && t.y[1] == 3);   /* z: unseen, after the training classes */
	free_pair(&d, &t);
	o.scale = SVM_SCALE_0TO1;
	load_pair(&o, train_csv, train_csv, &d, &t);
	assert_true(at(&d, 0, 0) == 0.0f && at(&d, 1, 0) == 1.0f && at(&d, 2, 0) == 0.5f);
	free_pair(&d, &t);
}

static void onehot_and_index_over_training_strings(void **state)
{
	static const char train[] = "n,proto,label\n1,tcp,a\n2,udp,b\n3,icmp,a\n";
	static const char test[] = "n,proto,label\n4,udp,a\n5,gre,b\n";
	svm_load_options o = svm_load_defaults();
	svm_data d, t;
	(void)state;
	load_pair(&o, train, test, &d, &t);
	assert_int_equal(d.nfeat, 4);   /* n, then tcp udp icmp */
	assert_true(at(&d, 0, 0) == 1 && at(&d, 0, 1) == 1 && at(&d, 0, 2) == 0 && at(&d, 0, 3) == 0);
	assert_true(at(&d, 2, 3) == 1);
	assert_int_equal(t.nfeat, 4);
	assert_true(at(&t, 0, 0) == 4 && at(&t, 0, 1) == 0 && at(&t, 0, 2) == 1 && at(&t, 0, 3) == 0);
	assert_true(at(&t, 1, 1) == 0 && at(&t, 1, 2) == 0 && at(&t, 1, 3) == 0);   /* gre: unseen */
	free_pair(&d, &t);
	o.categorical = SVM_CAT_INDEX;
	load_pair(&o, train, test, &d, &t);
	assert_int_equal(d.nfeat, 2);
	assert_true(at(&t, 0, 1) == 1 && at(&t, 1, 1) == -1);
	free_pair(&d, &t);
}

static void positive_class_by_name_and_number(void **state)
{
	char tp[400];
	svm_load_options o = svm_load_defaults();
	svm_data d, t;
	rt_error err;
	(void)state;
	o.positive = "y";
	load_pair(&o, train_csv, "a,b,c,label\n1,1,1,z\n2,2,2,y\n", &d, &t);
	assert_true(d.y[0] == -1 && d.y[1] == 1 && d.y[2] == -1);
	assert_true(t.y[0] == -1 && t.y[1] == 1);
	free_pair(&d, &t);
	o.positive = "2";   /* the second class in order of first appearance: y */
	assert_int_equal(svm_data_load(put(tp, sizeof tp, "p.csv", train_csv), &o, &d, &err), RT_OK);
	assert_true(d.y[0] == -1 && d.y[1] == 1);
	svm_data_free(&d);
	/* numeric labels (LIBSVM format) */
	put(tp, sizeof tp, "p.txt", "3 1:1\n1 1:2\n3 2:1\n");
	o.positive = "3";
	assert_int_equal(svm_data_load(tp, &o, &d, &err), RT_OK);
	assert_true(d.y[0] == 1 && d.y[1] == -1 && d.y[2] == 1);
	svm_data_free(&d);
}

static const char headerless[] = "1,x,5\n2,y,6\n3,x,7\n";

static void headerless_label_by_number_and_gz(void **state)
{
	char tp[400];
	svm_load_options o = svm_load_defaults();
	svm_data d;
	rt_error err;
	gzFile g;
	(void)state;
	o.label = "2";   /* header auto: the first line holds numbers, so it is data */
	assert_int_equal(svm_data_load(put(tp, sizeof tp, "h.csv", headerless), &o, &d, &err), RT_OK);
	assert_int_equal(d.n, 3);
	assert_int_equal(d.nfeat, 2);
	assert_true(at(&d, 0, 0) == 1 && at(&d, 0, 1) == 5 && at(&d, 2, 1) == 7);
	assert_true(d.y[0] == 1 && d.y[1] == 2 && d.y[2] == 1);
	svm_data_free(&d);
	/* .gz without .csv in the name: the first line's commas say CSV */
	snprintf(tp, sizeof tp, "%s/h.data.gz", tmpdir);
	g = gzopen(tp, "wb");
	assert_non_null(g);
	gzputs(g, headerless);
	gzclose(g);
	o.header = SVM_HEADER_NO;
	o.label = "first";
	assert_int_equal(svm_data_load(tp, &o, &d, &err), RT_OK);
	assert_int_equal(d.n, 3);
	assert_int_equal(d.nfeat, 3);   /* x,y one-hot and the last column */
	assert_true(d.y[0] == 1 && d.y[1] == 2 && d.y[2] == 3);
	assert_true(at(&d, 1, 1) == 1 && at(&d, 1, 2) == 6);
	svm_data_free(&d);
}

/* Loads a spec's [data] and expects failure with each piece of want in the message. */
static void spec_fails(const char *name, const char *text, const char *want1, const char *want2)
{
	char sp[400];
	rt_spec spec;
	svm_load_options o;
	svm_data tr, te;
	char trp[RT_PATH_MAX], tep[RT_PATH_MAX];
	rt_error err;
	rt_status st;
	assert_int_equal(rt_spec_load(&spec, put(sp, sizeof sp, name, text), &err), RT_OK);
	st = svm_data_spec_options(&spec, &o, &err);
	if (st == RT_OK)
		st = svm_data_load_spec(&spec, &o, trp, &tr, tep, &te, &err);
	rt_spec_free(&spec);
	assert_int_equal(st, RT_ERR_INPUT);
	if (!strstr(err.msg, want1) || !strstr(err.msg, want2))
		fail_msg("message '%s' lacks '%s' or '%s'", err.msg, want1, want2);
}

static void spec_errors_name_file_and_line(void **state)
{
	static const struct { const char *line, *where, *want; } cases[] = {
		{ "positive = nope", ":3: data.positive", "expected a class of" },
		{ "scale = huge", ":3", "minus1to1" },
		{ "label = 9", ":3: data.label", "from 1 to 4" },
		{ "header = maybe", ":3", "header" },
	};
	char tp[400], text[1024], want[500], name[32];
	(void)state;
	put(tp, sizeof tp, "e.csv", train_csv);
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		snprintf(name, sizeof name, "e%zu.ini", i);
		snprintf(text, sizeof text, "[data]\ntrain = %s\n%s\n", tp, cases[i].line);
		snprintf(want, sizeof want, "%s/%s%s", tmpdir, name, cases[i].where);
		spec_fails(name, text, want, cases[i].want);
	}
}

static int have_svm_train(void)
{
	if (system("command -v svm-train >/dev/null 2>&1") == 0)
		return 1;
	printf("SKIP: svm-train not found (tools/setup-debian installs libsvm-tools)\n");
	return 0;
}

/* 300 rows: two numbers on large scales, a string column tied to the
 * class, string labels good/bad. */
static void make_mixed_csv(const char *path)
{
	static const char *const proto[] = { "tcp", "udp", "icmp" };
	rt_rng rng;
	FILE *f = fopen(path, "w");
	assert_non_null(f);
	rt_rng_init(&rng, 5, 0);
	fputs("bytes,proto,wait,label\n", f);
	for (int i = 0; i < 300; i++) {
		int c = i % 2, p = (int)(rt_rng_u32(&rng) % 3);
		if (c && rt_rng_u32(&rng) % 2)
			p = 2;
		fprintf(f, "%.3f,%s,%.4f,%s\n", 1000 * (rt_rng_normal(&rng) + c), proto[p],
			0.01 * (rt_rng_normal(&rng) - c), c ? "good" : "bad");
	}
	fclose(f);
}

static void scaled_onehot_training_matches_libsvm(void **state)
{
	char csv[400], lib[500], model[500], cmd[2048], line[512];
	svm_load_options o = svm_load_defaults();
	svm_data d;
	svm_params p;
	svm_model m;
	rt_error err;
	double obj = NAN, rho;
	long nsv = -1, v;
	FILE *f;
	(void)state;
	if (!have_svm_train())
		skip();
	snprintf(csv, sizeof csv, "%s/mixed.csv", tmpdir);
	make_mixed_csv(csv);
	o.scale = SVM_SCALE_MINUS1TO1;
	o.positive = "good";
	assert_int_equal(svm_data_load(csv, &o, &d, &err), RT_OK);
	assert_int_equal(d.nfeat, 5);
	snprintf(lib, sizeof lib, "%s/mixed.libsvm", tmpdir);
	assert_int_equal(svm_data_write_libsvm(lib, &d, &err), RT_OK);
	memset(&p, 0, sizeof p);
	p.kernel.type = SVM_RBF;
	p.kernel.gamma = 0.2;
	p.C = 4;
	p.eps = 1e-3;
	p.cache_mb = 100;
	assert_int_equal(svm_train(&d, &p, &m, &err), RT_OK);
	snprintf(model, sizeof model, "%s/mixed.model", tmpdir);
	snprintf(cmd, sizeof cmd, "svm-train -s 0 -t 2 -c 4 -g 0.2 -e 0.001 -h 0 '%s' '%s' > '%s.out'",
		 lib, model, model);
	assert_int_equal(system(cmd), 0);
	snprintf(cmd, sizeof cmd, "%s.out", model);
	f = fopen(cmd, "r");
	assert_non_null(f);
	while (fgets(line, sizeof line, f)) {
		if (sscanf(line, "obj = %lf, rho = %lf", &obj, &rho) == 2)
			continue;
		if (sscanf(line, "Total nSV = %ld", &v) == 1)
			nsv = v;
	}
	fclose(f);
	if (m.total_sv != nsv || !(fabs(m.obj[0] - obj) <= 1e-4 * fabs(obj)))
		fail_msg("ours: %ld SVs, objective %.10g; LIBSVM: %ld, %.10g", m.total_sv, m.obj[0],
			 nsv, obj);
	svm_model_free(&m);
	svm_data_free(&d);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(scaling_exact_and_test_uses_train_range),
		cmocka_unit_test(onehot_and_index_over_training_strings),
		cmocka_unit_test(positive_class_by_name_and_number),
		cmocka_unit_test(headerless_label_by_number_and_gz),
		cmocka_unit_test(spec_errors_name_file_and_line),
		cmocka_unit_test(scaled_onehot_training_matches_libsvm),
	};
	return cmocka_run_group_tests(tests, setup, tmp_teardown);
}
