/* svm_cli_test.h: what the svm test programs that run the evoforge binary
 * share: finding the binary next to the test (build/tests/../evoforge),
 * LIBSVM's tools on PATH or a SKIP, running a shell command in the
 * scratch folder (test_tmp.h) with its output kept for checks, and
 * comparing two prediction files. Include
 * once per test program, after <cmocka.h> and test_tmp.h. */
#ifndef EVO_SVM_CLI_TEST_H
#define EVO_SVM_CLI_TEST_H

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

static char evo[512];          /* the evoforge binary under test, quoted */
static char out_path[300];     /* the last command's output */

/* Group setup: the scratch folder tmpdir and out_path in it. */
static inline int cli_setup(const char *name)
{
	if (tmp_setup(name))
		return -1;
	snprintf(out_path, sizeof out_path, "%s/out.txt", tmpdir);
	return 0;
}

/* evo := the evoforge binary beside argv0's folder; 0, or -1 said on stderr. */
static inline int cli_find_evoforge(const char *argv0, const char *test_name)
{
	const char *slash = strrchr(argv0, '/');
	char *abs;
	snprintf(evo, sizeof evo, "%.*s/../evoforge", slash ? (int)(slash - argv0) : 1,
		 slash ? argv0 : ".");
	abs = realpath(evo, NULL);
	if (!abs) {
		fprintf(stderr, "%s: %s not found (build it with ninja)\n", test_name, evo);
		return -1;
	}
	snprintf(evo, sizeof evo, "'%s'", abs);
	free(abs);
	return 0;
}

static inline int have_libsvm(void)
{
	if (system("command -v svm-train >/dev/null 2>&1 && command -v svm-predict >/dev/null 2>&1") == 0)
		return 1;
	printf("SKIP: svm-train/svm-predict not found (tools/setup-debian installs libsvm-tools)\n");
	return 0;
}

/* Runs the shell command (printf-style; its first "EVO" stands for the
 * binary) in tmpdir with stdout and stderr to out_path; returns its exit
 * status. */
static inline int run(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static inline int run(const char *fmt, ...)
{
	char args[2048], cmd[3072];
	const char *at;
	va_list ap;
	int rc;
	va_start(ap, fmt);
	vsnprintf(args, sizeof args, fmt, ap);
	va_end(ap);
	at = strstr(args, "EVO");
	if (at)
		snprintf(cmd, sizeof cmd, "cd '%s' && %.*s%s%s > '%s' 2>&1", tmpdir, (int)(at - args),
			 args, evo, at + 3, out_path);
	else
		snprintf(cmd, sizeof cmd, "cd '%s' && %s > '%s' 2>&1", tmpdir, args, out_path);
	rc = system(cmd);
	return WIFEXITED(rc) ? WEXITSTATUS(rc) : -1;
}

/* The last command's output, as one string (static buffer). */
static inline const char *output(void)
{
	static char buf[65536];
	FILE *f = fopen(out_path, "r");
	size_t n = f ? fread(buf, 1, sizeof buf - 1, f) : 0;
	if (f)
		fclose(f);
	buf[n] = '\0';
	return buf;
}

static inline void expect_output(const char *text)
{
	if (!strstr(output(), text))
		fail_msg("output lacks '%s'; it was:\n%s", text, output());
}

/* The labels of two prediction files in tmpdir: how many differ (n: how
 * many lines; the files must have as many). */
static inline long differ(const char *a, const char *b, long *n)
{
	char pa[400], pb[400];
	double x, y;
	long bad = 0;
	FILE *fa, *fb;
	snprintf(pa, sizeof pa, "%s/%s", tmpdir, a);
	snprintf(pb, sizeof pb, "%s/%s", tmpdir, b);
	fa = fopen(pa, "r");
	fb = fopen(pb, "r");
	assert_non_null(fa);
	assert_non_null(fb);
	for (*n = 0; fscanf(fa, "%lf", &x) == 1; ++*n) {
		assert_int_equal(fscanf(fb, "%lf", &y), 1);
		bad += x != y;
	}
	assert_int_equal(fscanf(fb, "%lf", &y), EOF);
	fclose(fa);
	fclose(fb);
	return bad;
}

#endif
