/* test_api_cycles.c: 1,000 create-run-free cycles of the public C API
 * (include/evoforge.h alone) over every kind, interleaved -- tiny CPU jobs,
 * gp, mbp and svm on tables from memory -- checking every run's results:
 * the same seed gives the same best each time, result.json names the kind,
 * the private results folder goes with the job. Mixed in: runs with log and
 * progress callbacks (results unchanged), runs stopped by the progress
 * callback (marked interrupted), runs failing on an unknown key, jobs freed
 * unrun, and bad specs. Leaks and memory errors: the sanitizer build's copy
 * (tests/run-tests.sh) and valgrind (tests/cli/test_valgrind.sh, a shorter
 * pass: EVOFORGE_CYCLES=N sets the count). Run from the repository root. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "evoforge.h"

#define KINDS 5
#define SEEDS 3
#define ROWS 24

/* One tiny job per kind: its spec text, whether it reads the "train" table,
 * and a number of result.json every run of it has. */
typedef struct kind_case {
	const char *kind, *text;
	int table;          /* 0 none, 1 regression table, 2 class table */
	const char *number; /* a path evoforge_job_result_number answers */
} kind_case;

static const kind_case cases[KINDS] = {
	{"gp", "[problem]\nkind = gp\nname = cyc-gp\n[gp]\npopulation = 20\ngenerations = 2\n"
	       "functions = + - *\n[data]\nsource = csv\nfile = memory:train\nfitness = mse\n",
	 1, "best.size"},
	{"de", "[problem]\nkind = de\nname = cyc-de\n[de]\nfunction = rastrigin\ndim = 3\n"
	       "population = 8\ngenerations = 6\nreport_every = 2\n",
	 0, "evaluations"},
	{"aco", "[problem]\nkind = aco\nname = cyc-aco\n[data]\nrandom = 10\nside = 100\n[aco]\n"
		"ants = 4\niterations = 3\ncandidates = 5\nlocal_search = none\nreport_every = 1\n",
	 0, "iterations"},
	{"mbp", "[problem]\nkind = mbp\nname = cyc-mbp\n[data]\nsource = csv\nfile = memory:train\n"
		"[mbp]\nhidden = 2\nmode = batch\nepochs = 12\nreport_every = 4\n",
	 1, "epochs"},
	{"svm", "[problem]\nkind = svm\nname = cyc-svm\n[svm]\nkernel = rbf\nC = 10\n[data]\n"
		"train = memory:train\n",
	 2, "train_accuracy"},
};

static double X[ROWS * 2], y_reg[ROWS], y_cls[ROWS];

/* The best of each (kind, seed) at its first run; every later run must match. */
static double first_best[KINDS][SEEDS];
static int have_best[KINDS][SEEDS];

/* Counts of what the callbacks saw; stop_after > 0 stops the run at that line. */
typedef struct seen {
	int info, warnings, progress, stop_after;
} seen;

static void on_log(evoforge_log_level level, const char *line, void *user)
{
	seen *s = user;
	assert_non_null(line);
	if (level == EVOFORGE_LOG_WARNING)
		s->warnings++;
	else
		s->info++;
}

static int on_progress(const char *line, void *user)
{
	seen *s = user;
	assert_non_null(line);
	return ++s->progress == s->stop_after;
}

static void make_tables(void)
{
	for (int r = 0; r < ROWS; r++) {
		double a = (r % 7) / 4.0 - 0.75, b = ((r * 5) % 11) / 8.0 - 0.625;
		X[2 * r] = a;
		X[2 * r + 1] = b;
		y_reg[r] = a * b + a;
		y_cls[r] = a + b > 0 ? 1 : -1;
	}
}

/* A job of c, made and set for the CPU (one thread, seed), tables lent. */
static evoforge_job *make_job(const kind_case *c, int seed)
{
	evoforge_job *job = NULL;
	assert_int_equal(evoforge_job_from_text(c->text, &job), EVOFORGE_OK);
	assert_non_null(job);
	assert_string_equal(evoforge_job_kind(job), c->kind);
	assert_int_equal(evoforge_job_set_backend(job, "cpu"), EVOFORGE_OK);
	assert_int_equal(evoforge_job_set_threads(job, 1), EVOFORGE_OK);
	assert_int_equal(evoforge_job_set_seed(job, (uint64_t)seed), EVOFORGE_OK);
	if (c->table)
		assert_int_equal(evoforge_job_set_table(job, "train", X, ROWS, 2,
							c->table == 1 ? y_reg : y_cls, NULL),
				 EVOFORGE_OK);
	return job;
}

/* After a successful run: the kind's results, checked; returns the best. */
static double check_results(evoforge_job *job, const kind_case *c)
{
	char quoted[64];
	double best = -1, number = -1;
	const char *json = evoforge_job_result_json(job);
	assert_non_null(json);
	snprintf(quoted, sizeof quoted, "\"kind\": \"%s\"", c->kind);
	assert_non_null(strstr(json, quoted));
	assert_int_equal(evoforge_job_best(job, &best), EVOFORGE_OK);
	assert_true(best == best && best >= 0);   /* not NaN; errors, lengths, RMS, accuracy */
	if (c->table == 2)
		assert_true(best <= 1);
	assert_int_equal(evoforge_job_result_number(job, c->number, &number), EVOFORGE_OK);
	assert_true(number >= 0);
	assert_non_null(evoforge_job_output_dir(job));
	assert_string_equal(evoforge_job_error(job), "");
	return best;
}

/* The same (kind, seed) gives the same best every time. */
static void check_same_best(int k, int s, double best)
{
	if (!have_best[k][s]) {
		first_best[k][s] = best;
		have_best[k][s] = 1;
	}
	if (best != first_best[k][s])
		fail_msg("%s seed %d: best %.17g, the first run's %.17g", cases[k].kind, s + 1, best,
			 first_best[k][s]);
}

/* A plain run; every 7th also checks that free removes the results folder. */
static void cycle_plain(int k, int s, int check_folder)
{
	char path[4096];
	evoforge_job *job = make_job(&cases[k], s + 1);
	if (evoforge_job_run(job) != EVOFORGE_OK)
		fail_msg("%s: %s", cases[k].kind, evoforge_job_error(job));
	check_same_best(k, s, check_results(job, &cases[k]));
	assert_int_equal(evoforge_job_stopped(job), 0);
	snprintf(path, sizeof path, "%s/result.json", evoforge_job_output_dir(job));
	if (check_folder)
		assert_int_equal(access(path, F_OK), 0);
	evoforge_job_free(job);
	if (check_folder)
		assert_int_not_equal(access(path, F_OK), 0);
}

/* With callbacks (the results do not change), or stopped at the first line. */
static void cycle_callbacks(int k, int s, int stop)
{
	seen lines = {0, 0, 0, stop ? 1 : 0};
	evoforge_job *job = make_job(&cases[k], s + 1);
	assert_int_equal(evoforge_job_set_log(job, on_log, &lines), EVOFORGE_OK);
	assert_int_equal(evoforge_job_set_progress(job, on_progress, &lines), EVOFORGE_OK);
	if (evoforge_job_run(job) != EVOFORGE_OK)
		fail_msg("%s: %s", cases[k].kind, evoforge_job_error(job));
	assert_true(lines.info >= 1 && lines.progress == lines.info);
	if (!stop) {
		check_same_best(k, s, check_results(job, &cases[k]));
		assert_int_equal(evoforge_job_stopped(job), 0);
	} else {
		/* stopped at its first step boundary: the results so far, marked */
		assert_int_equal(evoforge_job_stopped(job), 1);
		assert_non_null(strstr(evoforge_job_result_json(job), "\"interrupted\": true"));
		assert_non_null(strstr(evoforge_job_result_json(job), "\"stopped_by\": \"callback\""));
		assert_true(lines.warnings >= 1);
		check_results(job, &cases[k]);
	}
	evoforge_job_free(job);
}

/* A run failing on a key the kind does not know; or a job freed unrun. */
static void cycle_failing(int k, int s, int unrun)
{
	double v;
	evoforge_job *job = make_job(&cases[k], s + 1);
	if (!unrun) {
		char key[64];
		snprintf(key, sizeof key, "%s.no_such_key", k == 0 || k == 3 ? "data" : cases[k].kind);
		assert_int_equal(evoforge_job_set(job, key, "1"), EVOFORGE_OK);
		assert_int_equal(evoforge_job_run(job), EVOFORGE_ERR_INPUT);
		assert_non_null(strstr(evoforge_job_error(job), "no_such_key"));
		assert_null(evoforge_job_result_json(job));
	}
	assert_int_equal(evoforge_job_best(job, &v), EVOFORGE_ERR_STATE);   /* no results */
	evoforge_job_free(job);
}

static int cycle_count(void)
{
	const char *env = getenv("EVOFORGE_CYCLES");
	int n = env ? atoi(env) : 1000;
	return n > 0 ? n : 1000;
}

/* Cycle i: kind i % 5, seed 1 + (i / 5) % 3; what it does by (i / 5) % 10. */
static void test_cycles(void **state)
{
	int n = cycle_count(), runs[KINDS] = {0};
	(void)state;
	for (int i = 0; i < n; i++) {
		int k = i % KINDS, s = (i / KINDS) % SEEDS, what = (i / KINDS) % 10;
		if (what <= 5)
			cycle_plain(k, s, what == 0);
		else if (what <= 7)
			cycle_callbacks(k, s, what == 7);
		else
			cycle_failing(k, s, what == 9);
		runs[k]++;
	}
	for (int k = 0; k < KINDS && n >= 2 * KINDS; k++)
		assert_true(runs[k] >= n / KINDS);
	printf("# %d create-run-free cycles over gp, de, aco, mbp, svm\n", n);
}

/* Bad specs and settings: every failing call frees cleanly too. */
static void test_bad_spec_cycles(void **state)
{
	static const char *const bad[] = {
		"[problem]\nkind = nope\n",
		"[problem]\nkind = de\nnot ini at all\n",
		"[problem\nkind = de\n",
		"",
	};
	(void)state;
	for (int i = 0; i < 100; i++) {
		evoforge_job *job = NULL;
		evoforge_status st = evoforge_job_from_text(bad[i % 4], &job);
		assert_non_null(job);
		if (st == EVOFORGE_OK) {   /* the empty spec: found by the run */
			assert_int_equal(evoforge_job_set_backend(job, "cpu"), EVOFORGE_OK);
			assert_int_not_equal(evoforge_job_run(job), EVOFORGE_OK);
		} else {
			assert_int_equal(st, EVOFORGE_ERR_INPUT);
			assert_int_equal(evoforge_job_run(job), EVOFORGE_ERR_INPUT);
		}
		assert_true(evoforge_job_error(job)[0] != 0);
		evoforge_job_free(job);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_cycles),
		cmocka_unit_test(test_bad_spec_cycles),
	};
	make_tables();
	return cmocka_run_group_tests(tests, NULL, NULL);
}
