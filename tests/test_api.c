/* test_api.c: the public C API through include/evoforge.h alone: every kind
 * on the CPU gives the CLI's best for the same spec and seed; bad specs and
 * keys are errors with messages, never an exit; nothing is printed; the
 * progress callback stops a run; 200 create-run-free cycles (leaks: ASan).
 * The plain build links build/libevoforge.so, the sanitizer build the static
 * library; each compares with its own build's CLI (build/evoforge or
 * build/asan/evoforge, or $EVOFORGE_CLI). Run from the repository root. */
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "evoforge.h"
#include "test_api_tmp.h"

#if defined(RT_TESTS)
#define DEFAULT_CLI "build/asan/evoforge"
#else
#define DEFAULT_CLI "build/evoforge"
#endif

/* One small job of each kind: its spec text and the overrides both doors get. */
typedef struct case_spec {
	const char *kind, *text;
	const char *sets[4];       /* "section.key=value" */
	const char *parent, *key;  /* where its best is in result.json (parent: an object) */
} case_spec;

static const case_spec cases[] = {
	{"gp", "[problem]\nkind = gp\nname = sextic\n[gp]\npopulation = 200\ngenerations = 5\n"
	       "functions = + - * /\n[data]\nsource = sextic\ncases = 1000\n",
	 {"gp.tournament=5"}, "\"best\": {", "fitness"},
	{"de", "[problem]\nkind = de\nname = de-small\n[de]\nfunction = rastrigin\ndim = 5\n"
	       "shift = random\nproblems = 2\ngenerations = 50\n",
	 {"de.population=20"}, NULL, "best_min"},
	{"aco", "[problem]\nkind = aco\nname = aco-small\n[data]\nrandom = 30\nside = 10000\n"
		"[aco]\niterations = 20\nlocal_search = none\n",
	 {"aco.candidates=10"}, NULL, "best_length"},
	{"mbp", "[problem]\nkind = mbp\nname = mbp-xor\n[data]\nsource = xor\n[mbp]\nhidden = 4\n"
		"mode = online\nepochs = 5000\ntarget_rms = 0.05\n",
	 {"mbp.report_every=1000"}, NULL, "best_train_rms"},
	{"svm", "[problem]\nkind = svm\nname = svm-sonar\n[svm]\nkernel = rbf\nC = 10\n"
		"[data]\ntrain = uci/sonar.csv\nlabel = Class\n",
	 {"svm.eps=0.01"}, NULL, "train_accuracy"},
};

static char tmpdir[] = "/tmp/evoforge-test-api-XXXXXX";

/* ---- helpers ---------------------------------------------------------------- */

static char *read_all(const char *path)
{
	FILE *f = fopen(path, "rb");
	long n;
	char *text;
	if (!f)
		return NULL;
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	fseek(f, 0, SEEK_SET);
	text = malloc((size_t)n + 1);
	if (text && fread(text, 1, (size_t)n, f) != (size_t)n) {
		free(text);
		text = NULL;
	}
	if (text)
		text[n] = 0;
	fclose(f);
	return text;
}

/* The number after "key": (after parent's text first, when given) in JSON text. */
static double json_number(const char *text, const char *parent, const char *key)
{
	char quoted[128];
	const char *at = text;
	if (parent) {
		at = strstr(at, parent);
		assert_non_null(at);
	}
	snprintf(quoted, sizeof quoted, "\"%s\":", key);
	at = strstr(at, quoted);
	assert_non_null(at);
	return strtod(at + strlen(quoted), NULL);
}

/* The CLI's best for c with seed: `evoforge run` on c's text written to a file. */
static double cli_best(const case_spec *c, int seed)
{
	const char *cli = getenv("EVOFORGE_CLI") ? getenv("EVOFORGE_CLI") : DEFAULT_CLI;
	char spec[256], out[256], cmd[2048], result[300];
	FILE *f;
	char *json;
	double best;
	snprintf(spec, sizeof spec, "%s/%s.ini", tmpdir, c->kind);
	snprintf(out, sizeof out, "%s/cli-%s", tmpdir, c->kind);
	f = fopen(spec, "w");
	assert_non_null(f);
	fputs(c->text, f);
	fclose(f);
	snprintf(cmd, sizeof cmd, "%s run %s --backend cpu --threads 2 --seed %d -q -o %s", cli, spec,
		 seed, out);
	for (int i = 0; i < 4 && c->sets[i]; i++)
		snprintf(cmd + strlen(cmd), sizeof cmd - strlen(cmd), " --set %s", c->sets[i]);
	snprintf(cmd + strlen(cmd), sizeof cmd - strlen(cmd), " >/dev/null 2>&1");
	assert_int_equal(system(cmd), 0);
	snprintf(result, sizeof result, "%s/result.json", out);
	json = read_all(result);
	assert_non_null(json);
	best = json_number(json, c->parent, c->key);
	free(json);
	return best;
}

/* A job of c made, set and run through the API; asserts each step. */
static evoforge_job *api_run(const case_spec *c, int seed)
{
	evoforge_job *job = NULL;
	assert_int_equal(evoforge_job_from_text(c->text, &job), EVOFORGE_OK);
	assert_string_equal(evoforge_job_kind(job), c->kind);
	assert_int_equal(evoforge_job_set_backend(job, "cpu"), EVOFORGE_OK);
	assert_int_equal(evoforge_job_set_threads(job, 2), EVOFORGE_OK);
	assert_int_equal(evoforge_job_set_seed(job, (uint64_t)seed), EVOFORGE_OK);
	for (int i = 0; i < 4 && c->sets[i]; i++) {
		char key[64];
		const char *eq = strchr(c->sets[i], '=');
		snprintf(key, sizeof key, "%.*s", (int)(eq - c->sets[i]), c->sets[i]);
		assert_int_equal(evoforge_job_set(job, key, eq + 1), EVOFORGE_OK);
	}
	if (evoforge_job_run(job) != EVOFORGE_OK)
		fail_msg("%s: %s", c->kind, evoforge_job_error(job));
	return job;
}

/* ---- every kind: the API's best is the CLI's --------------------------------- */

static void test_kind(const case_spec *c)
{
	evoforge_job *job = api_run(c, 3);
	double best = -1, again = -2, cli = cli_best(c, 3);
	const char *json = evoforge_job_result_json(job);
	assert_non_null(json);
	assert_non_null(strstr(json, c->kind));
	assert_int_equal(evoforge_job_best(job, &best), EVOFORGE_OK);
	assert_true(best == json_number(json, c->parent, c->key));
	assert_true(best == cli);
	if (!c->parent) {
		assert_int_equal(evoforge_job_result_number(job, c->key, &again), EVOFORGE_OK);
		assert_true(again == best);
	}
	assert_int_equal(evoforge_job_stopped(job), 0);
	evoforge_job_free(job);
}

static void test_gp(void **state) { (void)state; test_kind(&cases[0]); }
static void test_de(void **state) { (void)state; test_kind(&cases[1]); }
static void test_aco(void **state) { (void)state; test_kind(&cases[2]); }
static void test_mbp(void **state) { (void)state; test_kind(&cases[3]); }
static void test_svm(void **state) { (void)state; test_kind(&cases[4]); }

/* ---- errors ------------------------------------------------------------------- */

static void test_bad_spec(void **state)
{
	evoforge_job *job = NULL;
	double v;
	(void)state;
	assert_int_equal(evoforge_job_from_text("[problem]\nkind = de\nthis is not ini\n", &job),
			 EVOFORGE_ERR_INPUT);
	assert_non_null(job);
	assert_non_null(strstr(evoforge_job_error(job), "(spec text):3"));
	assert_null(evoforge_job_kind(job));
	assert_int_equal(evoforge_job_run(job), EVOFORGE_ERR_INPUT);
	assert_int_equal(evoforge_job_best(job, &v), EVOFORGE_ERR_INPUT);
	evoforge_job_free(job);

	assert_int_equal(evoforge_job_from_text("[problem]\nkind = nope\n", &job), EVOFORGE_ERR_INPUT);
	assert_non_null(strstr(evoforge_job_error(job), "(spec text):2"));
	assert_non_null(strstr(evoforge_job_error(job), "nope"));
	evoforge_job_free(job);

	assert_int_equal(evoforge_job_from_file("/nonexistent/x.ini", &job), EVOFORGE_ERR_INPUT);
	assert_non_null(strstr(evoforge_job_error(job), "/nonexistent/x.ini"));
	evoforge_job_free(job);
	assert_int_equal(evoforge_job_from_text(NULL, &job), EVOFORGE_ERR_ARGUMENT);
	assert_null(job);
	evoforge_job_free(NULL);
}

static void test_bad_settings(void **state)
{
	evoforge_job *job = NULL;
	(void)state;
	assert_int_equal(evoforge_job_from_text(cases[1].text, &job), EVOFORGE_OK);
	assert_int_equal(evoforge_job_set(job, "population", "20"), EVOFORGE_ERR_INPUT);
	assert_non_null(strstr(evoforge_job_error(job), "population"));
	assert_int_equal(evoforge_job_set_backend(job, "tpu"), EVOFORGE_ERR_INPUT);
	assert_non_null(strstr(evoforge_job_error(job), "tpu"));
	assert_int_equal(evoforge_job_set_threads(job, -1), EVOFORGE_ERR_INPUT);
	assert_int_equal(evoforge_job_set_backend(job, "cpu"), EVOFORGE_OK);
	/* a key no kind knows: found by the run, named */
	assert_int_equal(evoforge_job_set(job, "de.populaton", "20"), EVOFORGE_OK);
	assert_int_equal(evoforge_job_run(job), EVOFORGE_ERR_INPUT);
	assert_non_null(strstr(evoforge_job_error(job), "populaton"));
	assert_null(evoforge_job_result_json(job));
	evoforge_job_free(job);
}

static void test_out_of_order(void **state)
{
	evoforge_job *job = NULL;
	double v;
	char dir[4096];
	(void)state;
	assert_int_equal(evoforge_job_from_text(cases[1].text, &job), EVOFORGE_OK);
	assert_int_equal(evoforge_job_best(job, &v), EVOFORGE_ERR_STATE);
	assert_null(evoforge_job_output_dir(job));
	assert_int_equal(evoforge_job_set_backend(job, "cpu"), EVOFORGE_OK);
	assert_int_equal(evoforge_job_run(job), EVOFORGE_OK);
	assert_int_equal(evoforge_job_run(job), EVOFORGE_ERR_STATE);
	assert_int_equal(evoforge_job_set_seed(job, 2), EVOFORGE_ERR_STATE);
	assert_int_equal(evoforge_job_result_number(job, "no.such.key", &v), EVOFORGE_ERR_INPUT);
	/* the private results folder: there until free */
	snprintf(dir, sizeof dir, "%s/result.json", evoforge_job_output_dir(job));
	assert_int_equal(access(dir, F_OK), 0);
	evoforge_job_free(job);
	assert_int_not_equal(access(dir, F_OK), 0);
	assert_string_equal(evoforge_status_name(EVOFORGE_ERR_STATE), "EVOFORGE_ERR_STATE");
	assert_int_equal(evoforge_api_version(), EVOFORGE_API_VERSION);
	assert_true(evoforge_version()[0] != 0);
}

/* ---- output: callbacks get the lines, the process prints nothing -------------------- */

typedef struct lines {
	int info, warnings, progress, stop_after;
	char first[256];
} lines;

static void on_log(evoforge_log_level level, const char *line, void *user)
{
	lines *l = user;
	if (level == EVOFORGE_LOG_WARNING)
		l->warnings++;
	else if (l->info++ == 0)
		snprintf(l->first, sizeof l->first, "%s", line);
}

static int on_progress(const char *line, void *user)
{
	lines *l = user;
	(void)line;
	return ++l->progress >= l->stop_after;
}

/* Runs a de job (backend auto: a warning without a GPU) with stdout and
 * stderr sent to a file; returns how many bytes were printed. */
static long run_captured(evoforge_job *job)
{
	char path[300];
	int saved_out = dup(1), saved_err = dup(2), fd;
	struct stat sb;
	snprintf(path, sizeof path, "%s/printed.txt", tmpdir);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	assert_true(fd >= 0 && saved_out >= 0 && saved_err >= 0);
	fflush(stdout);
	fflush(stderr);
	dup2(fd, 1);
	dup2(fd, 2);
	evoforge_status st = evoforge_job_run(job);
	fflush(stdout);
	fflush(stderr);
	dup2(saved_out, 1);
	dup2(saved_err, 2);
	close(saved_out);
	close(saved_err);
	close(fd);
	assert_int_equal(st, EVOFORGE_OK);
	assert_int_equal(stat(path, &sb), 0);
	return (long)sb.st_size;
}

static void test_silent(void **state)
{
	lines l = {0};
	evoforge_job *job = NULL;
	(void)state;
	l.stop_after = 1 << 30;
	assert_int_equal(evoforge_job_from_text(cases[1].text, &job), EVOFORGE_OK);
	assert_int_equal(evoforge_job_set_log(job, on_log, &l), EVOFORGE_OK);
	assert_int_equal(evoforge_job_set_progress(job, on_progress, &l), EVOFORGE_OK);
	assert_int_equal(run_captured(job), 0);
	assert_true(l.info >= 3);   /* the start line, progress lines, the end lines */
	assert_int_equal(l.progress, l.info);
	assert_non_null(strstr(l.first, "de:"));
	evoforge_job_free(job);
	/* no callbacks: nothing anywhere */
	assert_int_equal(evoforge_job_from_text(cases[2].text, &job), EVOFORGE_OK);
	assert_int_equal(run_captured(job), 0);
	evoforge_job_free(job);
}

static void test_progress_stop(void **state)
{
	lines l = {0};
	evoforge_job *job = NULL;
	double gens = 0;
	const char *json;
	(void)state;
	l.stop_after = 1;   /* the first line: the run stops at its first step boundary */
	assert_int_equal(evoforge_job_from_text(cases[1].text, &job), EVOFORGE_OK);
	assert_int_equal(evoforge_job_set_backend(job, "cpu"), EVOFORGE_OK);
	assert_int_equal(evoforge_job_set(job, "de.generations", "1000000"), EVOFORGE_OK);
	assert_int_equal(evoforge_job_set(job, "de.problems", "1"), EVOFORGE_OK);
	assert_int_equal(evoforge_job_set_log(job, on_log, &l), EVOFORGE_OK);
	assert_int_equal(evoforge_job_set_progress(job, on_progress, &l), EVOFORGE_OK);
	assert_int_equal(evoforge_job_run(job), EVOFORGE_OK);
	assert_int_equal(evoforge_job_stopped(job), 1);
	assert_int_equal(l.warnings, 1);   /* "stopped by the progress callback" */
	json = evoforge_job_result_json(job);
	assert_non_null(strstr(json, "\"interrupted\": true"));
	assert_non_null(strstr(json, "\"stopped_by\": \"callback\""));
	gens = json_number(json, "\"results\"", "generations");
	assert_true(gens >= 0 && gens < 1000000);
	evoforge_job_free(job);
	/* the next job is not stopped by the last one's request */
	assert_int_equal(evoforge_job_from_text(cases[1].text, &job), EVOFORGE_OK);
	assert_int_equal(evoforge_job_set_backend(job, "cpu"), EVOFORGE_OK);
	assert_int_equal(evoforge_job_run(job), EVOFORGE_OK);
	assert_int_equal(evoforge_job_stopped(job), 0);
	assert_null(strstr(evoforge_job_result_json(job), "interrupted"));
	evoforge_job_free(job);
}

/* ---- 200 create-run-free cycles (the sanitizer build reports any leak) -------------- */

static void test_cycles(void **state)
{
	static const char tiny[] = "[problem]\nkind = de\n[de]\nfunction = sphere\ndim = 2\n"
				   "generations = 5\n";
	double first = 0;
	(void)state;
	for (int i = 0; i < 200; i++) {
		evoforge_job *job = NULL;
		double best = -1;
		assert_int_equal(evoforge_job_from_text(tiny, &job), EVOFORGE_OK);
		assert_int_equal(evoforge_job_set_backend(job, "cpu"), EVOFORGE_OK);
		assert_int_equal(evoforge_job_set(job, "de.population", "8"), EVOFORGE_OK);
		assert_int_equal(evoforge_job_set_threads(job, 1), EVOFORGE_OK);
		assert_int_equal(evoforge_job_run(job), EVOFORGE_OK);
		assert_int_equal(evoforge_job_best(job, &best), EVOFORGE_OK);
		if (i == 0)
			first = best;
		assert_true(best == first);   /* the same seed every time */
		evoforge_job_free(job);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_gp),
		cmocka_unit_test(test_de),
		cmocka_unit_test(test_aco),
		cmocka_unit_test(test_mbp),
		cmocka_unit_test(test_svm),
		cmocka_unit_test(test_bad_spec),
		cmocka_unit_test(test_bad_settings),
		cmocka_unit_test(test_out_of_order),
		cmocka_unit_test(test_silent),
		cmocka_unit_test(test_progress_stop),
		cmocka_unit_test(test_cycles),
	};
	int failed;
	if (!mkdtemp(tmpdir))
		return 1;
	failed = cmocka_run_group_tests(tests, NULL, NULL);
	return api_tmp_end(tmpdir, failed);
}
