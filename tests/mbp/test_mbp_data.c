/* test_mbp_data.c: kind `mbp`'s data and network files (runtime/mbp/
 * mbp_data.c, mbp_net.c): the generated problems (two spirals: size,
 * radii, angles, balance; Friedman #1: deterministic in data_seed, scaled
 * targets, a plausible raw mean; XOR), the scaling, CSV files (Sonar, shipped
 * in data/uci/, found as the runtime finds it, and small files written
 * here: two classes, three classes one-hot, regression, string inputs
 * rejected), the splits and folds, [data] errors with file:line, and
 * network files: bit-exact round trips and malformed files rejected at the
 * right line. */
#include <float.h>
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

#include "mbp/mbp_impl.h"
#include "rng.h"
#include "spec.h"

#include "../test_tmp.h"

static int setup(void **state)
{
	(void)state;
	return tmp_setup("mbp-data");
}

static void write_text(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	assert_int_equal(fclose(f), 0);
}

/* A dataset from spec text written to tmpdir/NAME; on success every key of
 * the spec must have been consumed. */
static rt_status data_from_text(const char *name, const char *text, int act, int folds,
				mbp_dataset *d, rt_error *err)
{
	char path[400];
	rt_spec spec;
	rt_status st;
	snprintf(path, sizeof path, "%s/%s", tmpdir, name);
	write_text(path, text);
	st = rt_spec_load(&spec, path, err);
	if (st != RT_OK)
		return st;
	st = mbp_dataset_from_spec(d, &spec, act, folds, err);
	if (st == RT_OK) {
		rt_error e2;
		assert_int_equal(rt_spec_check_unused(&spec, &e2), RT_OK);
	}
	rt_spec_free(&spec);
	return st;
}

/* The spec fails and the message starts with NAME:LINE and holds `part`. */
static void spec_fails(const char *name, const char *text, int folds, int line, const char *part)
{
	char want[512];
	mbp_dataset d;
	rt_error err;
	assert_int_equal(data_from_text(name, text, MBP_SIGMOID, folds, &d, &err), RT_ERR_INPUT);
	snprintf(want, sizeof want, "%s/%s:%d: ", tmpdir, name, line);
	if (strncmp(err.msg, want, strlen(want)) || !strstr(err.msg, part))
		fail_msg("%s: expected a message starting '%s' holding '%s', got: %s", name, want, part,
			 err.msg);
	assert_null(d.x);
}

/* Raw value of scaled input x of column i. */
static double raw_input(const mbp_dataset *d, int i, float x)
{
	return d->in_min[i] + (x + 1.0) * 0.5 * ((double)d->in_max[i] - d->in_min[i]);
}

/* Every input column of d spans exactly [-1, 1] (or is constant 0). */
static void check_input_scaling(const mbp_dataset *d)
{
	for (int i = 0; i < d->ni; i++) {
		float mn = 2, mx = -2;
		for (long p = 0; p < d->n; p++) {
			float v = d->x[p * d->ni + i];
			mn = v < mn ? v : mn;
			mx = v > mx ? v : mx;
		}
		if (d->in_max[i] > d->in_min[i]) {
			assert_true(mn == -1.0f);
			assert_true(mx == 1.0f);
		} else {
			assert_true(mn == 0.0f && mx == 0.0f);
		}
	}
}

/* Each set's train and valid lists partition 0..n-1, ascending. */
static void check_sets_partition(const mbp_dataset *d)
{
	for (int s = 0; s < d->sets; s++) {
		char *seen = calloc((size_t)d->n, 1);
		assert_non_null(seen);
		assert_int_equal(d->ntrain[s] + d->nvalid[s], d->n);
		for (long k = 0; k < d->ntrain[s]; k++) {
			assert_true(k == 0 || d->train[s][k] > d->train[s][k - 1]);
			seen[d->train[s][k]]++;
		}
		for (long k = 0; k < d->nvalid[s]; k++) {
			assert_true(k == 0 || d->valid[s][k] > d->valid[s][k - 1]);
			seen[d->valid[s][k]]++;
		}
		for (long p = 0; p < d->n; p++)
			assert_int_equal(seen[p], 1);
		free(seen);
	}
}

/* ---- generated problems ------------------------------------------------------------ */

/* 194 points, alternating spiral 1 / spiral 0, at the documented radii and
 * angles, the second spiral the mirror of the first. */
static void spirals_geometry(void **state)
{
	const double pi = 3.14159265358979323846;
	mbp_dataset d;
	rt_error err;
	int ones = 0;
	(void)state;
	assert_int_equal(mbp_dataset_generated(&d, "two-spirals", 0, 1, MBP_SIGMOID, &err), RT_OK);
	assert_int_equal(d.n, 194);
	assert_int_equal(d.ni, 2);
	assert_int_equal(d.no, 1);
	assert_int_equal(d.classes, 2);
	assert_string_equal(d.source, "two-spirals");
	assert_int_equal(d.sets, 1);
	assert_int_equal(d.ntrain[0], 194);
	assert_int_equal(d.nvalid[0], 0);
	for (int i = 0; i < 97; i++) {
		double x1 = raw_input(&d, 0, d.x[4 * i]), y1 = raw_input(&d, 1, d.x[4 * i + 1]);
		double x0 = raw_input(&d, 0, d.x[4 * i + 2]), y0 = raw_input(&d, 1, d.x[4 * i + 3]);
		double r = 6.5 * (104 - i) / 104.0, a = fmod(i * pi / 16.0, 2 * pi);
		double got = atan2(x1, y1);
		if (got < -1e-6)
			got += 2 * pi;
		assert_true(fabs(sqrt(x1 * x1 + y1 * y1) - r) < 1e-4);
		assert_true(fabs(got - a) < 1e-4 || fabs(got - a) > 2 * pi - 1e-4);
		assert_true(fabs(x0 + x1) < 1e-4 && fabs(y0 + y1) < 1e-4);
		assert_true(d.t[2 * i] == 1.0f && d.t[2 * i + 1] == 0.0f);
		assert_int_equal(mbp_dataset_class_of(&d, &d.t[2 * i]), 1);
		assert_int_equal(mbp_dataset_class_of(&d, &d.t[2 * i + 1]), 0);
	}
	for (long p = 0; p < d.n; p++)
		ones += d.t[p] == 1.0f;
	assert_int_equal(ones, 97);
	/* spot checks: the first point (0, 6.5); point 8 at angle pi/2, radius 6 */
	assert_true(fabs(raw_input(&d, 1, d.x[1]) - 6.5) < 1e-5);
	assert_true(fabs(raw_input(&d, 0, d.x[32]) - 6.0) < 1e-5);
	assert_true(fabs(raw_input(&d, 1, d.x[33])) < 1e-5);
	check_input_scaling(&d);
	mbp_dataset_free(&d);
	assert_null(d.x);
}

/* The same data_seed gives the same patterns; another seed others; targets
 * lie in the output activation's range, touching both ends. */
static void friedman_deterministic(void **state)
{
	static const int acts[] = { MBP_SIGMOID, MBP_TANH, MBP_LINEAR };
	mbp_dataset a, b, c;
	rt_error err;
	(void)state;
	for (int k = 0; k < 3; k++) {
		float lo, hi, mn = 9, mx = -9;
		assert_int_equal(mbp_dataset_generated(&a, "friedman1", 3000, 7, acts[k], &err), RT_OK);
		assert_int_equal(mbp_dataset_generated(&b, "friedman1", 3000, 7, acts[k], &err), RT_OK);
		assert_int_equal(mbp_dataset_generated(&c, "friedman1", 3000, 8, acts[k], &err), RT_OK);
		assert_int_equal(a.ni, 10);
		assert_int_equal(a.no, 1);
		assert_int_equal(a.classes, 0);
		assert_memory_equal(a.x, b.x, 3000 * 10 * sizeof(float));
		assert_memory_equal(a.t, b.t, 3000 * sizeof(float));
		assert_true(memcmp(a.x, c.x, 3000 * 10 * sizeof(float)) != 0);
		mbp_activation_range(acts[k], &lo, &hi);
		assert_true(a.target_lo == lo && a.target_hi == hi);
		for (long p = 0; p < a.n; p++) {
			mn = a.t[p] < mn ? a.t[p] : mn;
			mx = a.t[p] > mx ? a.t[p] : mx;
		}
		assert_true(mn == lo && mx == hi);
		check_input_scaling(&a);
		mbp_dataset_free(&a);
		mbp_dataset_free(&b);
		mbp_dataset_free(&c);
	}
}

/* The default size; unscaled targets average near E[y] = 14.42 (noise 1). */
static void friedman_mean(void **state)
{
	mbp_dataset d;
	rt_error err;
	double sum = 0;
	(void)state;
	assert_int_equal(mbp_dataset_generated(&d, "friedman1", 0, 1, MBP_SIGMOID, &err), RT_OK);
	assert_int_equal(d.n, 40768);
	for (long p = 0; p < d.n; p++)
		sum += mbp_dataset_unscale(&d, 0, d.t[p]);
	print_message("friedman1: mean raw target %.4f over %ld patterns\n", sum / d.n, d.n);
	assert_true(fabs(sum / d.n - 14.42) < 0.2);
	assert_true(mbp_dataset_unscale(&d, 0, 0.0f) == d.out_min[0]);
	assert_true(fabs(mbp_dataset_unscale(&d, 0, 1.0f) - d.out_max[0]) < 1e-5);
	/* the raw inputs lie in [0, 1) */
	for (int i = 0; i < 10; i++) {
		assert_true(d.in_min[i] >= 0.0f && d.in_min[i] < 0.01f);
		assert_true(d.in_max[i] < 1.0f && d.in_max[i] > 0.99f);
	}
	check_input_scaling(&d);
	mbp_dataset_free(&d);
}

/* XOR: four patterns, inputs at the corners of [-1, 1]^2, targets lo/hi. */
static void xor_patterns(void **state)
{
	static const float x[8] = { -1, -1, -1, 1, 1, -1, 1, 1 };
	mbp_dataset d;
	rt_error err;
	(void)state;
	assert_int_equal(mbp_dataset_generated(&d, "xor", 0, 1, MBP_TANH, &err), RT_OK);
	assert_int_equal(d.n, 4);
	assert_int_equal(d.ni, 2);
	assert_int_equal(d.no, 1);
	assert_int_equal(d.classes, 2);
	assert_memory_equal(d.x, x, sizeof x);
	assert_true(d.t[0] == -1.0f && d.t[1] == 1.0f && d.t[2] == 1.0f && d.t[3] == -1.0f);
	assert_true(mbp_dataset_unscale(&d, 0, 0.25f) == 0.25f);
	{
		float y = 0.0f;   /* the middle of [-1, 1] is class 1 */
		assert_int_equal(mbp_dataset_class_of(&d, &y), 1);
		y = -0.01f;
		assert_int_equal(mbp_dataset_class_of(&d, &y), 0);
	}
	mbp_dataset_free(&d);
}

/* mbp_dataset_generated refuses unknown sources and wrong sizes. */
static void generated_errors(void **state)
{
	mbp_dataset d;
	rt_error err;
	(void)state;
	assert_int_equal(mbp_dataset_generated(&d, "csv", 0, 1, MBP_SIGMOID, &err), RT_ERR_INPUT);
	assert_non_null(strstr(err.msg, "'csv'"));
	assert_int_equal(mbp_dataset_generated(&d, "spirals", 0, 1, MBP_SIGMOID, &err), RT_ERR_INPUT);
	assert_int_equal(mbp_dataset_generated(&d, "two-spirals", 100, 1, MBP_SIGMOID, &err),
			 RT_ERR_INPUT);
	assert_non_null(strstr(err.msg, "expected 194 patterns"));
	assert_int_equal(mbp_dataset_generated(&d, "xor", 0, 1, 7, &err), RT_ERR_INTERNAL);
	assert_null(d.x);
}

/* ---- CSV --------------------------------------------------------------------------------- */

/* Sonar (shipped, data/uci/sonar.csv): 208 patterns, 60 inputs, one output,
 * 104/104. */
static void csv_sonar(void **state)
{
	mbp_dataset d;
	rt_error err;
	int c1 = 0;
	(void)state;
	assert_int_equal(data_from_text("sonar.ini", "[data]\nsource = csv\nfile = uci/sonar.csv\n",
					MBP_SIGMOID, 0, &d, &err), RT_OK);
	assert_int_equal(d.n, 208);
	assert_int_equal(d.ni, 60);
	assert_int_equal(d.no, 1);
	assert_int_equal(d.classes, 2);
	assert_int_equal(d.sets, 1);
	assert_int_equal(d.ntrain[0], 104);
	assert_int_equal(d.nvalid[0], 104);
	assert_string_equal(d.source, "csv");
	for (long p = 0; p < d.n; p++) {
		assert_true(d.t[p] == 0.0f || d.t[p] == 1.0f);
		c1 += d.t[p] == 1.0f;
	}
	print_message("sonar: classes %s (%d) and %s (%d)\n", d.class_names[0], 208 - c1,
		      d.class_names[1], c1);
	check_input_scaling(&d);
	check_sets_partition(&d);
	mbp_dataset_free(&d);
}

/* A CSV of 208 rows, 60 numeric inputs and a two-class string label,
 * written here (the Sonar layout), read with the default split. */
static void csv_two_classes(void **state)
{
	char path[400];
	mbp_dataset d;
	rt_error err;
	FILE *f;
	rt_rng rng;
	(void)state;
	snprintf(path, sizeof path, "%s/like-sonar.csv", tmpdir);
	f = fopen(path, "w");
	assert_non_null(f);
	for (int i = 0; i < 60; i++)
		fprintf(f, "V%d,", i + 1);
	fprintf(f, "Class\n");
	rt_rng_init(&rng, 3, 0);
	for (int r = 0; r < 208; r++) {
		for (int i = 0; i < 60; i++)
			fprintf(f, "%.4f,", rt_rng_uniform_double(&rng));
		fprintf(f, "%s\n", r < 97 ? "R" : "M");
	}
	fclose(f);
	assert_int_equal(data_from_text("two.ini", "[data]\nfile = like-sonar.csv\nlabel = Class\n",
					MBP_SIGMOID, 0, &d, &err), RT_OK);
	assert_int_equal(d.n, 208);
	assert_int_equal(d.ni, 60);
	assert_int_equal(d.no, 1);
	assert_int_equal(d.classes, 2);
	assert_string_equal(d.class_names[0], "R");
	assert_string_equal(d.class_names[1], "M");
	assert_string_equal(d.input_names[59], "V60");
	assert_int_equal(d.ntrain[0], 104);
	assert_int_equal(d.nvalid[0], 104);
	for (long k = 0; k < 104; k++)
		assert_true(d.train[0][k] == 2 * k && d.valid[0][k] == 2 * k + 1);
	assert_true(d.t[0] == 0.0f && d.t[207] == 1.0f);
	check_input_scaling(&d);
	mbp_dataset_free(&d);
}

/* Three classes give three one-hot outputs; a constant column scales to 0. */
static void csv_three_classes(void **state)
{
	char path[400];
	mbp_dataset d;
	rt_error err;
	float y[3];
	(void)state;
	snprintf(path, sizeof path, "%s/three.csv", tmpdir);
	write_text(path, "a,b,kind,c\n1,5,x,7\n2,5,y,8\n3,5,z,9\n4,5,y,10\n5,5,x,11\n");
	assert_int_equal(data_from_text("three.ini", "[data]\nsource = csv\nfile = three.csv\n"
					"label = kind\nsplit = none\n", MBP_TANH, 0, &d, &err), RT_OK);
	assert_int_equal(d.n, 5);
	assert_int_equal(d.ni, 3);
	assert_int_equal(d.no, 3);
	assert_int_equal(d.classes, 3);
	assert_string_equal(d.class_names[2], "z");
	assert_string_equal(d.input_names[2], "c");
	assert_int_equal(d.ntrain[0], 5);
	assert_int_equal(d.nvalid[0], 0);
	for (long p = 0; p < 5; p++) {
		static const int cls[] = { 0, 1, 2, 1, 0 };
		for (int o = 0; o < 3; o++)
			assert_true(d.t[p * 3 + o] == (o == cls[p] ? 1.0f : -1.0f));
		assert_int_equal(mbp_dataset_class_of(&d, &d.t[p * 3]), cls[p]);
		assert_true(d.x[p * 3 + 1] == 0.0f);   /* column b is constant */
	}
	assert_true(d.x[0] == -1.0f && d.x[4 * 3] == 1.0f && d.x[2 * 3] == 0.0f);
	y[0] = 0.5f, y[1] = 0.5f, y[2] = 0.1f;   /* ties: the first */
	assert_int_equal(mbp_dataset_class_of(&d, y), 0);
	y[2] = 0.6f;
	assert_int_equal(mbp_dataset_class_of(&d, y), 2);
	mbp_dataset_free(&d);
}

/* A numeric label is a regression target, scaled and unscaled back. */
static void csv_regression(void **state)
{
	char path[400];
	mbp_dataset d;
	rt_error err;
	(void)state;
	snprintf(path, sizeof path, "%s/reg.csv", tmpdir);
	write_text(path, "u,v\n0,10\n1,30\n2,20\n3,50\n");
	assert_int_equal(data_from_text("reg.ini", "[data]\nfile = reg.csv\nsplit = tail\n"
					"valid_fraction = 0.25\n", MBP_SIGMOID, 0, &d, &err), RT_OK);
	assert_int_equal(d.classes, 0);
	assert_int_equal(d.ni, 1);
	assert_int_equal(d.no, 1);
	assert_true(d.out_min[0] == 10.0f && d.out_max[0] == 50.0f);
	assert_true(d.t[0] == 0.0f && d.t[3] == 1.0f && d.t[1] == 0.5f && d.t[2] == 0.25f);
	for (long p = 0; p < 4; p++)
		assert_true(fabsf(mbp_dataset_unscale(&d, 0, d.t[p]) - (float)(p == 0 ? 10 : p == 1 ? 30 :
			    p == 2 ? 20 : 50)) < 1e-5f);
	assert_int_equal(d.ntrain[0], 3);
	assert_int_equal(d.nvalid[0], 1);
	assert_int_equal(d.valid[0][0], 3);
	mbp_dataset_free(&d);
}

/* String inputs, a missing file, a missing label column. */
static void csv_errors(void **state)
{
	char path[400];
	mbp_dataset d;
	rt_error err;
	(void)state;
	snprintf(path, sizeof path, "%s/cat.csv", tmpdir);
	write_text(path, "a,colour,y\n1,red,0\n2,blue,1\n");
	assert_int_equal(data_from_text("cat.ini", "[data]\nfile = cat.csv\n", MBP_SIGMOID, 0, &d,
					&err), RT_ERR_INPUT);
	assert_non_null(strstr(err.msg, "column 'colour'"));
	assert_non_null(strstr(err.msg, "red"));
	assert_int_equal(data_from_text("nofile.ini", "[data]\nsource = csv\nfile = no/such.csv\n",
					MBP_SIGMOID, 0, &d, &err), RT_ERR_INPUT);
	assert_non_null(strstr(err.msg, "nofile.ini:3: data.file"));
	assert_non_null(strstr(err.msg, "looked in"));
	assert_non_null(strstr(err.msg, "data/no/such.csv"));
	assert_int_equal(data_from_text("nolabel.ini", "[data]\nfile = cat.csv\nlabel = Class\n",
					MBP_SIGMOID, 0, &d, &err), RT_ERR_INPUT);
	assert_non_null(strstr(err.msg, "'Class'"));
	write_text(path, "a,y\n1,k\n2,k\n");
	assert_int_equal(data_from_text("one.ini", "[data]\nfile = cat.csv\n", MBP_SIGMOID, 0, &d,
					&err), RT_ERR_INPUT);
	assert_non_null(strstr(err.msg, "at least 2 classes"));
	assert_null(d.x);
}

/* ---- splits and folds -------------------------------------------------------------------- */

/* folds = 5: every pattern validates in exactly one set; each set trains on
 * the rest. */
static void folds_partition(void **state)
{
	mbp_dataset d;
	rt_error err;
	int *count;
	(void)state;
	assert_int_equal(data_from_text("folds.ini", "[data]\nsource = friedman1\npatterns = 103\n"
					"data_seed = 4\n", MBP_SIGMOID, 5, &d, &err), RT_OK);
	assert_int_equal(d.sets, 5);
	count = calloc(103, sizeof *count);
	assert_non_null(count);
	for (int s = 0; s < 5; s++) {
		for (long k = 0; k < d.nvalid[s]; k++) {
			assert_int_equal(d.valid[s][k] % 5, s);
			count[d.valid[s][k]]++;
		}
		assert_int_equal(d.nvalid[s], s < 3 ? 21 : 20);
	}
	for (int p = 0; p < 103; p++)
		assert_int_equal(count[p], 1);
	free(count);
	check_sets_partition(&d);
	mbp_dataset_free(&d);
	/* folds replace the csv's default alternate split, and a given one */
	assert_int_equal(data_from_text("folds2.ini", "[data]\nsource = two-spirals\nsplit = alternate\n",
					MBP_SIGMOID, 2, &d, &err), RT_OK);
	assert_int_equal(d.sets, 2);
	assert_int_equal(d.nvalid[0], 97);
	check_sets_partition(&d);
	mbp_dataset_free(&d);
}

/* split = random: round(valid_fraction n) patterns, by data_seed. */
static void split_random(void **state)
{
	mbp_dataset a, b, c;
	rt_error err;
	(void)state;
	assert_int_equal(data_from_text("r1.ini", "[data]\nsource = two-spirals\nsplit = random\n"
					"valid_fraction = 0.3\ndata_seed = 9\n", MBP_SIGMOID, 0, &a, &err),
			 RT_OK);
	assert_int_equal(data_from_text("r2.ini", "[data]\nsource = two-spirals\nsplit = random\n"
					"valid_fraction = 0.3\ndata_seed = 9\n", MBP_SIGMOID, 0, &b, &err),
			 RT_OK);
	assert_int_equal(data_from_text("r3.ini", "[data]\nsource = two-spirals\nsplit = random\n"
					"valid_fraction = 0.3\ndata_seed = 10\n", MBP_SIGMOID, 0, &c, &err),
			 RT_OK);
	assert_int_equal(a.nvalid[0], 58);   /* round(0.3 * 194) */
	assert_int_equal(a.ntrain[0], 136);
	assert_memory_equal(a.valid[0], b.valid[0], 58 * sizeof(long));
	assert_true(memcmp(a.valid[0], c.valid[0], 58 * sizeof(long)) != 0);
	check_sets_partition(&a);
	check_sets_partition(&c);
	/* not the tail, not the head */
	assert_true(a.valid[0][0] < 136 && a.valid[0][57] >= 58);
	mbp_dataset_free(&a);
	mbp_dataset_free(&b);
	mbp_dataset_free(&c);
}

/* Malformed [data] sections fail naming file:line. */
static void spec_errors(void **state)
{
	(void)state;
	spec_fails("e1.ini", "[data]\nsource = two-spirals\nfile = x.csv\n", 0, 3,
		   "data.file: expected no file with source = two-spirals");
	spec_fails("e2.ini", "[data]\nsource = xor\n\npatterns = 10\n", 0, 4, "data.patterns");
	spec_fails("e3.ini", "[data]\nsource = csv\nfile = x.csv\nnoise = 2\n", 0, 4, "data.noise");
	spec_fails("e4.ini", "[data]\nsource = spiral\n", 0, 2, "expected one of csv, two-spirals");
	spec_fails("e5.ini", "[data]\nsource = friedman1\npatterns = 0\n", 0, 3, "patterns");
	spec_fails("e6.ini", "[data]\nsource = xor\nvalid_fraction = 0.5\n", 0, 3,
		   "valid_fraction: expected it only with split = random or tail");
	spec_fails("e7.ini", "[data]\nsource = xor\nsplit = random\nvalid_fraction = 1\n", 0, 4,
		   "between 0 and 1");
	spec_fails("e8.ini", "[data]\nsource = two-spirals\ndata_seed = 3\n", 0, 3, "data_seed");
	spec_fails("e9.ini", "[data]\nsource = xor\nsplit = tail\nvalid_fraction = 0.9\n", 0, 3,
		   "expected at least one training pattern");
	spec_fails("e10.ini", "[data]\nsource = xor\nsplit = sideways\n", 0, 3, "data] split");
	spec_fails("e11.ini", "[data]\nsource = friedman1\nnoise = -1\n", 0, 3, "noise");
	spec_fails("e12.ini", "[mbp]\nfolds = 5\n[data]\nsource = xor\n", 5, 2,
		   "folds: expected at most one fold per pattern (4 patterns), got 5");
	spec_fails("e13.ini", "[mbp]\nfolds = 1\n[data]\nsource = xor\n", 1, 2, "folds");
	spec_fails("e14.ini", "[data]\nsource = xor\nfile = x.csv\n", 0, 3, "for source = csv");
	spec_fails("e15.ini", "[data]\nsource = xor\nsplit = random\nvalid_fraction = 0.1\n", 0, 3,
		   "expected at least one validation pattern");
	spec_fails("e16.ini", "[data]\n\nsource = csv\n", 0, 3, "expected a 'file = DATA.csv' line");
}

/* No source and no file; an empty file name. */
static void spec_missing(void **state)
{
	mbp_dataset d;
	rt_error err;
	(void)state;
	assert_int_equal(data_from_text("m1.ini", "[data]\nsplit = none\n", MBP_SIGMOID, 0, &d, &err),
			 RT_ERR_INPUT);
	assert_non_null(strstr(err.msg, "m1.ini: [data] expected 'source = csv"));
	assert_int_equal(data_from_text("m2.ini", "[data]\nfile =\n", MBP_SIGMOID, 0, &d, &err),
			 RT_ERR_INPUT);
	assert_non_null(strstr(err.msg, "m2.ini:2: [data] file: expected a non-empty value"));
}

/* ---- network files ------------------------------------------------------------------------ */

/* A shape with random weights in [-2, 2], a few special values among them. */
static float *random_net(mbp_shape *s, int ni, int h1, int h2, int no, int space, uint64_t seed)
{
	rt_rng rng;
	float *w;
	memset(s, 0, sizeof *s);
	s->ni = ni, s->h1 = h1, s->h2 = h2, s->no = no, s->space = space;
	s->act_hidden = MBP_TANH, s->act_output = MBP_SIGMOID, s->act_space = space ? MBP_LINEAR : 0;
	mbp_shape_layout(s);
	w = malloc((size_t)s->nweights * sizeof *w);
	assert_non_null(w);
	rt_rng_init(&rng, seed, 0);
	for (int k = 0; k < s->nweights; k++)
		w[k] = (float)rt_rng_range(&rng, -2.0, 2.0);
	w[0] = -0.0f;
	w[1] = FLT_MIN / 8;   /* subnormal */
	w[2] = FLT_MAX;
	w[s->nweights - 1] = 1e-38f;
	return w;
}

/* Written and read back: the same shape and bit-identical weights. */
static void net_roundtrip(void **state)
{
	static const int shapes[][5] = {
		{ 5, 4, 0, 1, 0 }, { 3, 6, 2, 3, 1 }, { 60, 10, 0, 1, 1 }, { 2, 3, 4, 2, 0 },
	};
	char path[400];
	rt_error err;
	(void)state;
	snprintf(path, sizeof path, "%s/net.txt", tmpdir);
	for (size_t k = 0; k < sizeof shapes / sizeof shapes[0]; k++) {
		mbp_shape s;
		mbp_net net;
		float *w = random_net(&s, shapes[k][0], shapes[k][1], shapes[k][2], shapes[k][3],
				      shapes[k][4], 100 + k);
		assert_int_equal(mbp_net_write(path, &s, w, NULL, &err), RT_OK);
		if (mbp_net_read(path, &net, &err) != RT_OK)
			fail_msg("%s", err.msg);
		assert_memory_equal(&net.shape, &s, sizeof s);
		assert_memory_equal(net.w, w, (size_t)s.nweights * sizeof *w);
		assert_int_equal(net.has_ranges, 0);
		assert_null(net.in_min);
		mbp_net_free(&net);
		assert_null(net.w);
		free(w);
	}
}

/* With a dataset: the ranges come back too (regression and classes). */
static void net_roundtrip_ranges(void **state)
{
	static const char *const sources[] = { "friedman1", "two-spirals" };
	char path[400];
	rt_error err;
	(void)state;
	snprintf(path, sizeof path, "%s/net-ranges.txt", tmpdir);
	for (int k = 0; k < 2; k++) {
		mbp_dataset d;
		mbp_shape s;
		mbp_net net;
		float *w;
		assert_int_equal(mbp_dataset_generated(&d, sources[k], k ? 0 : 500, 3, MBP_SIGMOID, &err), RT_OK);
		w = random_net(&s, d.ni, 7, k, d.no, 1, 5);
		assert_int_equal(mbp_net_write(path, &s, w, &d, &err), RT_OK);
		if (mbp_net_read(path, &net, &err) != RT_OK)
			fail_msg("%s", err.msg);
		assert_int_equal(net.has_ranges, 1);
		assert_memory_equal(net.w, w, (size_t)s.nweights * sizeof *w);
		assert_memory_equal(net.in_min, d.in_min, (size_t)d.ni * sizeof(float));
		assert_memory_equal(net.in_max, d.in_max, (size_t)d.ni * sizeof(float));
		assert_memory_equal(net.out_min, d.out_min, (size_t)d.no * sizeof(float));
		assert_memory_equal(net.out_max, d.out_max, (size_t)d.no * sizeof(float));
		assert_true(net.out_lo == d.target_lo && net.out_hi == d.target_hi);
		if (d.classes)
			assert_true(net.out_min[0] == 0.0f && net.out_max[0] == 1.0f);
		mbp_net_free(&net);
		mbp_dataset_free(&d);
		free(w);
	}
}

/* A non-finite weight or a broken shape is refused, and no file appears. */
static void net_write_errors(void **state)
{
	char path[400];
	mbp_shape s;
	rt_error err;
	float *w;
	(void)state;
	snprintf(path, sizeof path, "%s/never.txt", tmpdir);
	w = random_net(&s, 2, 2, 0, 1, 0, 1);
	w[3] = NAN;
	assert_int_equal(mbp_net_write(path, &s, w, NULL, &err), RT_ERR_INTERNAL);
	assert_non_null(strstr(err.msg, "weight 3"));
	w[3] = 0.0f;
	s.nweights++;
	assert_int_equal(mbp_net_write(path, &s, w, NULL, &err), RT_ERR_INTERNAL);
	assert_int_equal(access(path, F_OK), -1);
	free(w);
}

/* A valid file: 2 inputs, 2 hidden, 1 output, a space network (lines 1-16). */
#define NET_HEAD "evoforge-mbp 1\ninputs 2\nhidden 2\noutputs 1\nspace 1\n" \
	"activation hidden sigmoid\nactivation output sigmoid\nactivation space sigmoid\n"
#define NET_L1 "layer main 1 2 2\n0.1 0.2 0.3\n0.4 0.5 0.6\n"
#define NET_L2 "layer main 2 1 2\n0.7 0.8 0.9\n"
#define NET_LS "layer space 1 2 2\n1 2 3\n4 5 6\n"

/* A malformed file fails at `line` with a message holding `part`. */
static void net_fails(const char *text, int line, const char *part)
{
	char path[400], want[512];
	mbp_net net;
	rt_error err;
	snprintf(path, sizeof path, "%s/bad.net", tmpdir);
	write_text(path, text);
	assert_int_equal(mbp_net_read(path, &net, &err), RT_ERR_INPUT);
	snprintf(want, sizeof want, "%s:%d: expected ", path, line);
	if (strncmp(err.msg, want, strlen(want)) || !strstr(err.msg, part))
		fail_msg("expected a message starting '%s' holding '%s', got: %s", want, part, err.msg);
	assert_null(net.w);
}

/* The valid file (with comments and blank lines) reads; its values land
 * where the layout says. */
static void net_read_valid(void **state)
{
	char path[400];
	mbp_net net;
	rt_error err;
	(void)state;
	snprintf(path, sizeof path, "%s/ok.net", tmpdir);
	write_text(path, "# a comment\n\n" NET_HEAD "input_range 0 1  # x\ninput_range -3 3\n"
		   "target_range 5 9 0 1\r\n" NET_L1 "\n  # between layers\n" NET_L2 NET_LS "\n# end\n");
	if (mbp_net_read(path, &net, &err) != RT_OK)
		fail_msg("%s", err.msg);
	assert_int_equal(net.shape.ni, 2);
	assert_int_equal(net.shape.h1, 2);
	assert_int_equal(net.shape.no, 1);
	assert_int_equal(net.shape.space, 1);
	assert_int_equal(net.shape.nweights, 6 + 3 + 6);
	assert_true(net.w[net.shape.off_w1 + 3] == 0.4f);
	assert_true(net.w[net.shape.off_wo + 2] == 0.9f);
	assert_true(net.w[net.shape.off_ws + 5] == 6.0f);
	assert_int_equal(net.has_ranges, 1);
	assert_true(net.in_min[1] == -3.0f && net.out_max[0] == 9.0f && net.out_hi == 1.0f);
	mbp_net_free(&net);
}

/* Malformed network files, each failing at its line. */
static void net_malformed(void **state)
{
	(void)state;
	net_fails("evoforge-gp 1\n", 1, "'evoforge-mbp 1'");
	net_fails("# only a comment\n\n", 3, "got end of file");
	net_fails("\n\nevoforge-mbp 2\n", 3, "format version 1, got '2'");
	net_fails("evoforge-mbp 1\ninputs 2\ninputs 2\n", 3,
		  "one 'inputs N' line (the first is at line 2)");
	net_fails("evoforge-mbp 1\ninputs 2\nhidden 2\nspace 1\nactivation hidden sigmoid\n"
		  "activation output sigmoid\nactivation space sigmoid\n" NET_L1, 8, "'outputs N'");
	net_fails("evoforge-mbp 1\ninputs 2\nhidden 2\noutputs 1\nspace 1\nactivation hidden relu\n", 6,
		  "activation (sigmoid, tanh or linear), got 'relu'");
	net_fails(NET_HEAD "layer main 1 2 2\n0.1 0.2\n", 10, "3 numbers (bias and 2 weights) in row 1");
	net_fails(NET_HEAD "layer main 1 3 2\n", 9, "2 neurons and 2 inputs as the header says");
	net_fails(NET_HEAD NET_L1 "layer main 2 1 3\n", 12, "1 neurons and 2 inputs");
	net_fails(NET_HEAD "layer main 1 2 2\n0.1 abc 0.3\n", 10, "got 'abc'");
	net_fails(NET_HEAD "layer main 1 2 2\n0.1 0.2 0.3\n0.4 nan 0.6\n", 11, "got 'nan'");
	net_fails(NET_HEAD "layer main 1 2 2\n0.1 0.2 0.3\n0.4 0.5 1e39\n", 11, "got '1e39'");
	net_fails(NET_HEAD NET_L1 NET_L2, 14, "'layer space 1 2 2' (layers in the order");
	net_fails(NET_HEAD NET_L1 "layer main 2 1 2\n", 13,
		  "row 1 of 1 of layer main 2 (3 numbers: bias and 2 weights), got end of file");
	net_fails(NET_HEAD NET_L1 NET_L2 NET_LS "7 8 9\n", 17, "the end of the file after layer space 1");
	net_fails(NET_HEAD NET_LS, 9, "'layer main 1 2 2'");
	net_fails(NET_HEAD "layer main 1 2 2\n0.1 0.2 0.3\n" NET_L2, 11, "row 2 of 2 of layer main 1");
	net_fails("evoforge-mbp 1\ninputs 2\nhidden 2\noutputs 1\nspace 0\nactivation hidden sigmoid\n"
		  "activation output sigmoid\nactivation space sigmoid\n", 8, "no 'activation space'");
	net_fails("evoforge-mbp 1\ninputs 2\nhidden 2\noutputs 1\nspace 1\nactivation hidden sigmoid\n"
		  "activation output sigmoid\n" NET_L1, 8, "'activation space NAME'");
	net_fails(NET_HEAD "input_range 0 1\n" NET_L1, 10, "2 input_range and 1 target_range lines");
	net_fails(NET_HEAD "colour red\n", 9, "a header line");
	net_fails("evoforge-mbp 1\ninputs 2\nhidden 0\n", 3, "'hidden N' or 'hidden N M'");
	net_fails("evoforge-mbp 1\ninputs 2 3\n", 2, "'inputs N'");
	net_fails("evoforge-mbp 1\ninput_range 0 1\n", 2, "before the range lines");
	net_fails(NET_HEAD "target_range 0 1 0 1\ntarget_range 0 1 0 1\n", 10, "got more");
	net_fails(NET_HEAD "input_range 0 1 2\n", 9, "'input_range MIN MAX'");
	net_fails(NET_HEAD "layer main 1 2 2 extra\n", 9, "'layer main 1 2 2'");
}

/* A missing file fails naming it. */
static void net_missing_file(void **state)
{
	mbp_net net;
	rt_error err;
	(void)state;
	assert_int_equal(mbp_net_read("/nonexistent/evoforge.net", &net, &err), RT_ERR_INPUT);
	assert_non_null(strstr(err.msg, "/nonexistent/evoforge.net"));
	assert_null(net.w);
}

/* ---- allocation failures ------------------------------------------------------------------- */

#ifdef RT_TESTS
/* One attempt of case `which` (0 generated, 1 csv from a spec, 2 network
 * read, 3 network write) with allocation failure injected after n. */
static rt_status alloc_try(int which, long n, const char *csv_spec, const char *net_path)
{
	rt_error err;
	rt_status st;
	if (which == 0) {
		mbp_dataset d;
		rt_alloc_fail_after(n);
		st = mbp_dataset_generated(&d, "two-spirals", 0, 1, MBP_SIGMOID, &err);
		rt_alloc_fail_after(-1);
		if (st == RT_OK)
			mbp_dataset_free(&d);
	} else if (which == 1) {
		mbp_dataset d;
		rt_spec spec;
		assert_int_equal(rt_spec_load(&spec, csv_spec, &err), RT_OK);
		rt_alloc_fail_after(n);
		st = mbp_dataset_from_spec(&d, &spec, MBP_SIGMOID, 2, &err);
		rt_alloc_fail_after(-1);
		rt_spec_free(&spec);
		if (st == RT_OK)
			mbp_dataset_free(&d);
	} else {
		mbp_net net;
		mbp_shape s;
		float *w = random_net(&s, 3, 4, 2, 2, 1, 9);
		if (which == 2)
			assert_int_equal(mbp_net_write(net_path, &s, w, NULL, &err), RT_OK);
		rt_alloc_fail_after(n);
		st = which == 2 ? mbp_net_read(net_path, &net, &err)
				: mbp_net_write(net_path, &s, w, NULL, &err);
		rt_alloc_fail_after(-1);
		if (st == RT_OK && which == 2)
			mbp_net_free(&net);
		if (st != RT_OK && which == 2)
			assert_null(net.w);
		free(w);
	}
	return st;
}

/* Every allocation that can fail is reported as RT_ERR_SYSTEM and leaks
 * nothing (the sanitizer build checks leaks). */
static void alloc_failures(void **state)
{
	static const char *const names[] = { "generated", "csv", "net read", "net write" };
	char spec_path[400], csv_path[400], net_path[400];
	(void)state;
	snprintf(csv_path, sizeof csv_path, "%s/oom.csv", tmpdir);
	write_text(csv_path, "a,b,kind\n1,5,x\n2,6,y\n3,7,z\n4,8,y\n");
	snprintf(spec_path, sizeof spec_path, "%s/oom.ini", tmpdir);
	write_text(spec_path, "[data]\nfile = oom.csv\n");
	snprintf(net_path, sizeof net_path, "%s/oom.net", tmpdir);
	for (int which = 0; which < 4; which++) {
		long n;
		int failures = 0;
		for (n = 0; n < 200; n++) {
			rt_status st = alloc_try(which, n, spec_path, net_path);
			if (st == RT_OK)
				break;
			assert_int_equal(st, RT_ERR_SYSTEM);
			failures++;
		}
		assert_true(n < 200);
		assert_true(which == 3 || failures >= 2);
		print_message("%s: %d allocation failures reported cleanly\n", names[which], failures);
	}
}
#else
static void alloc_failures(void **state)
{
	(void)state;
	print_message("SKIP: allocation failure injection needs the RT_TESTS build (build/asan/)\n");
	skip();
}
#endif

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(spirals_geometry),
		cmocka_unit_test(friedman_deterministic),
		cmocka_unit_test(friedman_mean),
		cmocka_unit_test(xor_patterns),
		cmocka_unit_test(generated_errors),
		cmocka_unit_test(csv_sonar),
		cmocka_unit_test(csv_two_classes),
		cmocka_unit_test(csv_three_classes),
		cmocka_unit_test(csv_regression),
		cmocka_unit_test(csv_errors),
		cmocka_unit_test(folds_partition),
		cmocka_unit_test(split_random),
		cmocka_unit_test(spec_errors),
		cmocka_unit_test(spec_missing),
		cmocka_unit_test(net_roundtrip),
		cmocka_unit_test(net_roundtrip_ranges),
		cmocka_unit_test(net_write_errors),
		cmocka_unit_test(net_read_valid),
		cmocka_unit_test(net_malformed),
		cmocka_unit_test(net_missing_file),
		cmocka_unit_test(alloc_failures),
	};
	return cmocka_run_group_tests(tests, setup, tmp_teardown);
}
