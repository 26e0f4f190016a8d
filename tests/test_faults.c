/* test_faults.c: allocation failures injected at every allocation site a
 * short run of each kind reaches (the test build's rt_alloc_fail_after,
 * RT_TESTS: the ASan build), on the CPU: for n = 0, 1, 2, ... the n-th
 * allocation fails, until a run gets through. Each failed run must return
 * an error with a message, must not crash or leak (ASan, LeakSanitizer), and
 * must leave the result.json a clean run wrote before it whole (it still
 * parses: written atomically or not at all). Then a full disk: the n-th
 * result file's write fails with ENOSPC (rt_write_fail_after), for every
 * file a run writes: an error naming the file and the cause, no temporary
 * file left, the earlier result.json byte for byte as it was (when the
 * failing write is result.json's) or whole. In the plain build, where
 * allocations cannot be made to fail, the tests say SKIP. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <dirent.h>
#include <errno.h>

#include "json_read.h"
#include "kinds.h"
#include "log.h"
#include "out.h"
#include "spec.h"

#include "test_tmp.h"

#if !defined(RT_TESTS)
/* the plain build: nothing injected (the tests skip) */
static void rt_alloc_fail_after(long n) { (void)n; }
static void rt_write_fail_after(long n, int e) { (void)n; (void)e; }
#endif

/* After this many injected failures without a clean run, the test fails:
 * far more allocation sites than a short run has. */
#define MAX_FAILURES 20000

static int faults_setup(void **state)
{
	(void)state;
	return tmp_setup("faults");
}

static void load(rt_spec *spec, const char *text, const rt_kind **kind)
{
	rt_error err;
	assert_int_equal(rt_spec_load_text(spec, "(test) faults.ini", text, &err), RT_OK);
	assert_int_equal(snprintf(spec->dir, sizeof spec->dir, "%s", tmpdir) < (int)sizeof spec->dir, 1);
	assert_int_equal(rt_kind_of_spec(spec, kind, &err), RT_OK);
}

/* The run of text into tmpdir/label, with the n-th allocation failing
 * (n < 0: none); its status, err filled. */
static rt_status run_once(const char *text, const char *label, long n, rt_error *err)
{
	char dir[400];
	rt_spec spec;
	const rt_kind *kind;
	rt_options opt;
	rt_status st;
	memset(&opt, 0, sizeof opt);
	opt.backend = RT_BACKEND_CPU;
	opt.quiet = 1;
	opt.threads = 2;
	snprintf(dir, sizeof dir, "%s/%s", tmpdir, label);
	opt.outdir = dir;
	load(&spec, text, &kind);
	memset(err, 0, sizeof *err);
	rt_alloc_fail_after(n);
	st = kind->run(&spec, &opt, err);
	rt_alloc_fail_after(-1);
	rt_spec_free(&spec);
	return st;
}

static void result_parses(const char *label)
{
	char path[400];
	rt_jval v;
	rt_error err;
	snprintf(path, sizeof path, "%s/%s/result.json", tmpdir, label);
	if (rt_jload(path, &v, &err) != RT_OK)
		fail_msg("%s after a failed run: %s", path, err.msg);
	rt_jfree(&v);
}

/* A clean run, then one failing run per allocation site until one gets through. */
static void every_allocation_fails_once(const char *text, const char *label)
{
	rt_error err;
	long n, failed = 0;
#if !defined(RT_TESTS)
	(void)text;
	(void)label;
	printf("SKIP: allocation failures are injected in the RT_TESTS (ASan) build only\n");
	skip();
#endif
	assert_int_equal(run_once(text, label, -1, &err), RT_OK);
	result_parses(label);
	for (n = 0; n < MAX_FAILURES; n++) {
		rt_status st = run_once(text, label, n, &err);
		if (st == RT_OK)
			break;
		failed++;
		if (!err.msg[0])
			fail_msg("%s: allocation %ld failed: status %d without a message", label, n, st);
		result_parses(label);
	}
	if (n == MAX_FAILURES)
		fail_msg("%s: still failing after %d injected failures", label, MAX_FAILURES);
	printf("%s: %ld allocation failures injected, each an error with a message\n", label, failed);
	assert_true(failed > 0);
}

static void gp_run(void **state)
{
	(void)state;
	every_allocation_fails_once("[problem]\nkind = gp\nname = f-gp\n[gp]\npopulation = 24\n"
				    "generations = 2\n[data]\nsource = sextic\ncases = 20\n", "gp");
}

static void de_run(void **state)
{
	(void)state;
	every_allocation_fails_once("[problem]\nkind = de\nname = f-de\n[de]\nfunction = sphere\n"
				    "dim = 4\npopulation = 12\nmax_evals = 240\nproblems = 2\n", "de");
}

static void aco_run(void **state)
{
	(void)state;
	every_allocation_fails_once("[problem]\nkind = aco\nname = f-aco\n[data]\nrandom = 14\n"
				    "[aco]\nants = 6\niterations = 3\ncandidates = 5\n", "aco");
}

static void mbp_run(void **state)
{
	(void)state;
	every_allocation_fails_once("[problem]\nkind = mbp\nname = f-mbp\n[data]\nsource = xor\n"
				    "[mbp]\nhidden = 3\nepochs = 20\nreport_every = 10\n", "mbp");
}

static void svm_run(void **state)
{
	char path[400];
	FILE *f;
	(void)state;
	snprintf(path, sizeof path, "%s/points.csv", tmpdir);
	assert_non_null(f = fopen(path, "w"));
	fprintf(f, "a,b,y\n");
	for (int i = 0; i < 40; i++)
		fprintf(f, "%d,%d,%d\n", i % 7, (i * 5) % 11, i % 3 ? 1 : -1);
	fclose(f);
	every_allocation_fails_once("[problem]\nkind = svm\nname = f-svm\n[svm]\nC = 10\n[data]\n"
				    "train = points.csv\nlabel = y\ntest = points.csv\n", "svm");
}

static char *slurp(const char *path)
{
	FILE *f = fopen(path, "rb");
	char *text = calloc(1, 1 << 20);
	assert_non_null(f);
	assert_non_null(text);
	assert_true(fread(text, 1, (1 << 20) - 1, f) > 0);
	fclose(f);
	return text;
}

static void no_temporary_file(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	assert_non_null(d);
	while ((e = readdir(d)))
		if (strstr(e->d_name, ".tmp."))
			fail_msg("%s/%s left behind", dir, e->d_name);
	closedir(d);
}

/* Every result file of a gp run in turn meets a full disk. */
static void full_disk(void **state)
{
	static const char spec[] = "[problem]\nkind = gp\nname = f-disk\n[gp]\npopulation = 24\n"
				   "generations = 2\n[data]\nsource = sextic\ncases = 20\n";
	char dir[400], path[440];
	rt_error err;
	long n;
	(void)state;
#if !defined(RT_TESTS)
	printf("SKIP: write failures are injected in the RT_TESTS (ASan) build only\n");
	skip();
#endif
	snprintf(dir, sizeof dir, "%s/disk", tmpdir);
	snprintf(path, sizeof path, "%s/result.json", dir);
	assert_int_equal(run_once(spec, "disk", -1, &err), RT_OK);
	char *before = slurp(path);
	for (n = 0; n < 50; n++) {
		rt_write_fail_after(n, ENOSPC);
		rt_status st = run_once(spec, "disk", -1, &err);
		rt_write_fail_after(-1, 0);
		if (st == RT_OK)
			break;
		assert_int_equal(st, RT_ERR_SYSTEM);
		if (!strstr(err.msg, "No space left on device") || !strstr(err.msg, dir))
			fail_msg("write %ld: the message lacks the file or the cause: %s", n, err.msg);
		no_temporary_file(dir);
		result_parses("disk");
		if (strstr(err.msg, "result.json")) {
			char *now = slurp(path);
			assert_string_equal(now, before);
			free(now);
		}
	}
	free(before);
	printf("full disk: %ld result files failed in turn, each named, nothing left behind\n", n);
	assert_true(n >= 2 && n < 50);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(gp_run), cmocka_unit_test(de_run), cmocka_unit_test(aco_run),
		cmocka_unit_test(mbp_run), cmocka_unit_test(svm_run), cmocka_unit_test(full_disk),
	};
	return cmocka_run_group_tests(tests, faults_setup, tmp_teardown);
}
