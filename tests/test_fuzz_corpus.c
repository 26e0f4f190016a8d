/* test_fuzz_corpus.c: replays every committed fuzz input
 * (tests/fuzz/corpus/HARNESS/) through its harness's entry point, in the
 * normal and sanitizer builds: inputs that once crashed, leaked or hung a
 * parser must now be read (or refused) cleanly. The harnesses check what a
 * successful read must satisfy; the cases after the replay check that the
 * inputs the fuzzers found are refused with the file, line and what was
 * expected. */
#include <dirent.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "data.h"
#include "error.h"
#include "out.h"

#define CORPUS "tests/fuzz/corpus"

/* The harnesses' entry points, renamed by tests/fuzz/corpus.ninja. */
#define HARNESSES(X) X(spec) X(csv) X(libsvm) X(tsp) X(tour) X(svm_model) X(mbp_net) X(json) X(gp_prefix) X(checkpoint)
#define DECLARE(name) int fuzz_##name##_input(const uint8_t *data, size_t size);
HARNESSES(DECLARE)

typedef struct harness {
	const char *name;
	int (*input)(const uint8_t *data, size_t size);
} harness;

/* Runs every file of CORPUS/NAME through h; fails when there is none. */
static void replay(void **state)
{
	const harness *h = *state;
	char dir[256], path[512];
	struct dirent *e;
	int count = 0;
	DIR *d;
	snprintf(dir, sizeof dir, "%s/%s", CORPUS, h->name);
	d = opendir(dir);
	assert_non_null(d);
	while ((e = readdir(d)) != NULL) {
		char *data;
		size_t size;
		rt_error err;
		if (e->d_name[0] == '.')
			continue;
		snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
		if (rt_read_file(path, &data, &size, &err) != RT_OK)
			fail_msg("%s", err.msg);
		assert_int_equal(h->input((const uint8_t *)data, size), 0);
		free(data);
		count++;
	}
	closedir(d);
	print_message("%s: %d inputs\n", h->name, count);
	assert_true(count > 0);
}

/* fuzz_tsp found it: DIMENSION 20000 with EXPLICIT weights made the loader
 * allocate the 20000 x 20000 matrix (1.6 GB) before reading a weight. Now
 * the matrix is made once every weight has been read, and a short section
 * is refused naming the line and the count expected. */
static void tsp_short_explicit_section(void **state)
{
	const char *path = CORPUS "/tsp/explicit-dimension-20000-short.tsp";
	rt_tsp t;
	rt_error err;
	(void)state;
	assert_int_equal(rt_tsp_load(path, &t, &err), RT_ERR_INPUT);
	assert_string_equal(err.msg, CORPUS "/tsp/explicit-dimension-20000-short.tsp:8: expected "
			    "400000000 weights in EDGE_WEIGHT_SECTION (FULL_MATRIX, DIMENSION 20000), got 2");
	assert_null(t.w);
}

/* The weights of every layout still land in the right cells: the matrices
 * of corpus/tsp/explicit-upper-row and explicit-full, written out by hand. */
static void tsp_explicit_matrices(void **state)
{
	static const int upper[16] = { 0, 1, 2, 3, 1, 0, 4, 5, 2, 4, 0, 6, 3, 5, 6, 0 };
	static const int full[9] = { 0, 1, 2, 1, 0, 3, 2, 3, 0 };
	rt_tsp t;
	rt_error err;
	(void)state;
	assert_int_equal(rt_tsp_load(CORPUS "/tsp/explicit-upper-row", &t, &err), RT_OK);
	assert_int_equal(t.n, 4);
	assert_memory_equal(t.w, upper, sizeof upper);
	rt_tsp_free(&t);
	assert_int_equal(rt_tsp_load(CORPUS "/tsp/explicit-full", &t, &err), RT_OK);
	assert_int_equal(t.n, 3);
	assert_memory_equal(t.w, full, sizeof full);
	rt_tsp_free(&t);
	assert_int_equal(rt_tsp_load(CORPUS "/tsp/explicit-full-asymmetric", &t, &err), RT_ERR_INPUT);
	assert_non_null(strstr(err.msg, "explicit-full-asymmetric:9:3: expected weight 3 from city 3 "
			       "to city 2"));
	assert_int_equal(rt_tsp_load(CORPUS "/tsp/explicit-one-city", &t, &err), RT_OK);
	assert_int_equal(t.n, 1);
	assert_int_equal(t.w[0], 0);
	rt_tsp_free(&t);
}

#define ENTRY(name) { #name, fuzz_##name##_input },
static const harness harnesses[] = { HARNESSES(ENTRY) };

int main(void)
{
	enum { N = sizeof harnesses / sizeof harnesses[0] };
	struct CMUnitTest tests[N + 2];
	for (int i = 0; i < N; i++) {
		struct CMUnitTest t = { harnesses[i].name, replay, NULL, NULL, (void *)&harnesses[i] };
		tests[i] = t;
	}
	tests[N] = (struct CMUnitTest)cmocka_unit_test(tsp_short_explicit_section);
	tests[N + 1] = (struct CMUnitTest)cmocka_unit_test(tsp_explicit_matrices);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
