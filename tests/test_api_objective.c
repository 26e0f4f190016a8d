/* test_api_objective.c: de's objective from a host callback
 * (evoforge_job_set_objective, `function = callback`), through
 * include/evoforge.h alone: a callback computing sphere or Rastrigin with
 * the built-in's float operations gives the built-in's run bit for bit (best,
 * best vector, history.csv) with the same seed, for rand/1/bin and
 * best/1/bin, one problem or several; it is called once per population
 * (np rows of dim doubles), never per individual; so for every adaptive and
 * mixed strategy (JADE, SHADE, L-SHADE, jSO, SaDE, CoDE); de.x0 is the
 * initial population's first member; a non-zero return, a missing
 * callback and a kind other than de are errors that say so. On a GPU
 * (skipped without one): the callback on the GPU gives the GPU's built-in
 * run, and the CPU's; de.x0 in every kernel variant. Leaks: the sanitizer build. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "evoforge.h"

/* templates/de/de_functions.h's constant, as the built-ins use it */
#define PI_F 3.14159265358979323846f

/* What a callback saw: calls, and the population size and dimension. */
typedef struct calls {
	int n, np, dim, fail_at;   /* fail_at > 0: return 7 at that call */
} calls;

static void note(calls *c, int np, int dim)
{
	c->n++;
	c->np = np;
	c->dim = dim;
}

/* sum z^2 as de_fn_sphere: fmaf in float, component by component. */
static int sphere_cb(const double *X, int np, int dim, double *fx, void *user)
{
	calls *c = user;
	note(c, np, dim);
	if (c->fail_at > 0 && c->n == c->fail_at)
		return 7;
	for (int i = 0; i < np; i++) {
		float s = 0.0f;
		for (int j = 0; j < dim; j++) {
			float z = (float)X[(size_t)i * dim + j];
			s = fmaf(z, z, s);
		}
		fx[i] = s;
	}
	return 0;
}

/* sum z^2 + 20 sin^2(pi z) as de_fn_rastrigin. */
static int rastrigin_cb(const double *X, int np, int dim, double *fx, void *user)
{
	note(user, np, dim);
	for (int i = 0; i < np; i++) {
		float s = 0.0f;
		for (int j = 0; j < dim; j++) {
			float z = (float)X[(size_t)i * dim + j], v = sinf(PI_F * z);
			s = fmaf(z, z, s);
			s = fmaf(20.0f * v, v, s);
		}
		fx[i] = s;
	}
	return 0;
}

/* A de spec: function, strategy, problems; dim 8, population 40, 60
 * generations, history every 5, the sphere's box for both. */
static void spec(char *buf, size_t size, const char *fn, const char *strategy, int problems)
{
	/* L-SHADE and jSO shrink the population by evaluations: 61 populations' worth */
	int evals = !strcmp(strategy, "lshade") || !strcmp(strategy, "jso") ? 61 * 40 : 0;
	snprintf(buf, size, "[problem]\nkind = de\nname = cb\n[de]\nfunction = %s\ndim = 8\n"
		 "population = 40\ngenerations = 60\nmax_evals = %d\nlower = -5.12\nupper = 5.12\n"
		 "strategy = %s\nproblems = %d\nhistory_every = 5\n", fn, evals, strategy, problems);
}

/* The file `name` of the job's results folder (caller frees). */
static char *read_out(evoforge_job *job, const char *name)
{
	char path[4096];
	snprintf(path, sizeof path, "%s/%s", evoforge_job_output_dir(job), name);
	FILE *f = fopen(path, "rb");
	assert_non_null(f);
	char *text = calloc(1, 1 << 20);
	assert_non_null(text);
	size_t n = fread(text, 1, (1 << 20) - 1, f);
	text[n] = '\0';
	fclose(f);
	return text;
}

/* result.json's "results": [...] text (the per-problem bests and vectors). */
static char *results_part(evoforge_job *job)
{
	const char *json = evoforge_job_result_json(job);
	assert_non_null(json);
	const char *r = strstr(json, "\"results\"");
	assert_non_null(r);
	char *copy = strdup(r);
	assert_non_null(copy);
	return copy;
}

/* The backend run() uses: "cpu", the GPU tests (last) "gpu". */
static const char *run_backend = "cpu";

/* Runs text on run_backend with seed 11 (fn: a callback, or NULL); *out: the job. */
static evoforge_status run(const char *text, evoforge_objective_fn fn, void *user,
			   evoforge_job **out)
{
	evoforge_job *job = NULL;
	assert_int_equal(evoforge_job_from_text(text, &job), EVOFORGE_OK);
	assert_int_equal(evoforge_job_set_backend(job, run_backend), EVOFORGE_OK);
	assert_int_equal(evoforge_job_set_seed(job, 11), EVOFORGE_OK);
	assert_int_equal(evoforge_job_set_objective(job, fn, user), EVOFORGE_OK);
	*out = job;
	evoforge_status st = evoforge_job_run(job);
	if (st != EVOFORGE_OK && getenv("TEST_VERBOSE"))
		fprintf(stderr, "run: %s\n", evoforge_job_error(job));
	return st;
}

/* The built-in `builtin` and the callback fn give the same run. */
static void same_as_builtin(const char *builtin, evoforge_objective_fn fn, const char *strategy,
			    int problems)
{
	char a_text[1024], b_text[1024];
	evoforge_job *a, *b;
	calls c = {0, 0, 0, 0};
	double best_a, best_b;
	spec(a_text, sizeof a_text, builtin, strategy, problems);
	spec(b_text, sizeof b_text, "callback", strategy, problems);
	assert_int_equal(run(a_text, NULL, NULL, &a), EVOFORGE_OK);
	assert_int_equal(run(b_text, fn, &c, &b), EVOFORGE_OK);
	/* one call per problem for the initial population and per generation;
	 * CoDE hands over three trials an individual, L-SHADE and jSO shrink */
	if (strcmp(strategy, "lshade") && strcmp(strategy, "jso"))
		assert_int_equal(c.n, problems * 61);
	else   /* at most the generations, as the evaluations allow */
		assert_true(c.n >= problems * 10 && c.n <= problems * 61);
	if (!strcmp(strategy, "code"))
		assert_int_equal(c.np, 120);
	else if (strcmp(strategy, "lshade") && strcmp(strategy, "jso"))
		assert_int_equal(c.np, 40);
	else
		assert_true(c.np >= 4 && c.np < 40);
	assert_int_equal(c.dim, 8);
	assert_int_equal(evoforge_job_best(a, &best_a), EVOFORGE_OK);
	assert_int_equal(evoforge_job_best(b, &best_b), EVOFORGE_OK);
	assert_true(best_a == best_b);
	assert_true(best_a < 40.0);   /* it optimised: the box's corner is far above */
	char *ra = results_part(a), *rb = results_part(b);
	char *ha = read_out(a, "history.csv"), *hb = read_out(b, "history.csv");
	assert_string_equal(ra, rb);
	assert_string_equal(ha, hb);
	assert_non_null(strstr(evoforge_job_result_json(b), "\"function\": \"callback\""));
	char want[64];
	snprintf(want, sizeof want, "\"backend\": \"%s\"", run_backend);
	assert_non_null(strstr(evoforge_job_result_json(a), want));
	assert_non_null(strstr(evoforge_job_result_json(b), want));
	free(ra);
	free(rb);
	free(ha);
	free(hb);
	evoforge_job_free(a);
	evoforge_job_free(b);
}

static void test_sphere(void **state)
{
	(void)state;
	same_as_builtin("sphere", sphere_cb, "rand/1/bin", 1);
}

static void test_rastrigin(void **state)
{
	(void)state;
	same_as_builtin("rastrigin", rastrigin_cb, "rand/1/bin", 1);
}

static void test_best1bin_problems(void **state)
{
	(void)state;
	same_as_builtin("rastrigin", rastrigin_cb, "best/1/bin", 3);
}

/* Every adaptive and mixed strategy: the callback gives the built-in's run. */
static void test_adaptive(void **state)
{
	static const char *const strategies[] = { "jade", "shade", "lshade", "jso", "sade", "code" };
	(void)state;
	for (size_t k = 0; k < sizeof strategies / sizeof *strategies; k++)
		same_as_builtin("rastrigin", rastrigin_cb, strategies[k], k == 2 ? 2 : 1);
}

/* The first population a callback sees: row 0 is x0. */
typedef struct first_rows {
	int n;
	double row0[8];
} first_rows;

static int keep_first(const double *X, int np, int dim, double *fx, void *user)
{
	first_rows *f = user;
	if (f->n++ == 0)
		memcpy(f->row0, X, (size_t)dim * sizeof *X);
	return sphere_cb(X, np, dim, fx, &(calls){0, 0, 0, 0});
}

/* de.x0 is member 0 of the initial population, for the built-in and the
 * callback: the sphere's best is x0's value 0 after one generation; outside the box or
 * of the wrong length it is an error naming the key. */
static void test_x0(void **state)
{
	char text[1024], with[1200];
	evoforge_job *job;
	first_rows f = {0, {0}};
	double best;
	(void)state;
	spec(text, sizeof text, "sphere", "jade", 1);
	snprintf(with, sizeof with, "%sx0 = 0 0 0 0 0 0 0 0\ngenerations = 1\n", text);
	*strstr(with, "generations = 60") = ';';   /* the first key becomes a comment */
	assert_int_equal(run(with, NULL, NULL, &job), EVOFORGE_OK);
	assert_int_equal(evoforge_job_best(job, &best), EVOFORGE_OK);
	assert_true(best == 0.0);
	evoforge_job_free(job);

	spec(text, sizeof text, "callback", "rand/1/bin", 1);
	snprintf(with, sizeof with, "%sx0 = 0.5, -1, 2, 0.25, 0, 0, 1, -5\n", text);
	assert_int_equal(run(with, keep_first, &f, &job), EVOFORGE_OK);
	const double want[8] = { 0.5, -1, 2, 0.25, 0, 0, 1, -5 };
	for (int j = 0; j < 8; j++)
		assert_true(f.row0[j] == want[j]);
	assert_int_equal(f.n, 61);
	evoforge_job_free(job);

	snprintf(with, sizeof with, "%sx0 = 0.5, -1, 2, 0.25, 0, 0, 1, -6\n", text);
	assert_int_equal(run(with, keep_first, &f, &job), EVOFORGE_ERR_INPUT);
	assert_non_null(strstr(evoforge_job_error(job), "de.x0: component 7 is -6, outside"));
	evoforge_job_free(job);
	snprintf(with, sizeof with, "%sx0 = 0.5, -1\n", text);
	assert_int_equal(run(with, keep_first, &f, &job), EVOFORGE_ERR_INPUT);
	assert_non_null(strstr(evoforge_job_error(job), "de.x0: expected 8 numbers"));
	evoforge_job_free(job);
}

/* A failing call names the callback; the message is on the job. */
static void expect_error(evoforge_job *job, evoforge_status got, evoforge_status want,
			 const char *part)
{
	assert_int_equal(got, want);
	if (!strstr(evoforge_job_error(job), part))
		fail_msg("expected '%s' in: %s", part, evoforge_job_error(job));
}

static void test_callback_fails(void **state)
{
	char text[1024];
	evoforge_job *job;
	calls c = {0, 0, 0, 5};
	(void)state;
	spec(text, sizeof text, "callback", "rand/1/bin", 1);
	evoforge_status st = run(text, sphere_cb, &c, &job);
	expect_error(job, st, EVOFORGE_ERR_INPUT, "returned 7 at generation 4");
	assert_int_equal(c.n, 5);   /* no call after the failing one */
	assert_null(evoforge_job_result_json(job));
	evoforge_job_free(job);
}

static void test_refusals(void **state)
{
	char text[1024];
	evoforge_job *job;
	calls c = {0, 0, 0, 0};
	(void)state;
	spec(text, sizeof text, "callback", "rand/1/bin", 1);
	evoforge_status st = run(text, NULL, NULL, &job);
	expect_error(job, st, EVOFORGE_ERR_INPUT,
		     "needs an objective callback");
	evoforge_job_free(job);

	/* backend gpu: the GPU path where there is a GPU, else no call at all */
	spec(text, sizeof text, "callback", "rand/1/bin", 1);
	assert_int_equal(evoforge_job_from_text(text, &job), EVOFORGE_OK);
	assert_int_equal(evoforge_job_set_objective(job, sphere_cb, &c), EVOFORGE_OK);
	assert_int_equal(evoforge_job_set_backend(job, "gpu"), EVOFORGE_OK);
	st = evoforge_job_run(job);
	if (st == EVOFORGE_OK)
		assert_non_null(strstr(evoforge_job_result_json(job), "\"backend\": \"gpu\""));
	else
		assert_int_equal(st, EVOFORGE_ERR_NOGPU);
	evoforge_job_free(job);
	assert_int_equal(c.n, st == EVOFORGE_OK ? 61 : 0);
	c.n = 0;

	/* backend auto: the CPU */
	assert_int_equal(evoforge_job_from_text(text, &job), EVOFORGE_OK);
	assert_int_equal(evoforge_job_set_objective(job, sphere_cb, &c), EVOFORGE_OK);
	assert_int_equal(evoforge_job_run(job), EVOFORGE_OK);
	assert_non_null(strstr(evoforge_job_result_json(job), "\"backend\": \"cpu\""));
	evoforge_job_free(job);
	assert_int_equal(c.n, 61);

	assert_int_equal(evoforge_job_from_text("[problem]\nkind = aco\n", &job), EVOFORGE_OK);
	expect_error(job, evoforge_job_set_objective(job, sphere_cb, &c), EVOFORGE_ERR_UNSUPPORTED,
		     "for kind de");
	evoforge_job_free(job);
	assert_int_equal(evoforge_job_set_objective(NULL, sphere_cb, &c), EVOFORGE_ERR_ARGUMENT);
}

/* ---- the GPU backend (each test skipped without a GPU) --------------------------- */

/* Does backend gpu run here? (a short built-in run; no GPU: EVOFORGE_ERR_NOGPU) */
static int have_gpu(void)
{
	char text[1024];
	evoforge_job *job;
	spec(text, sizeof text, "sphere", "rand/1/bin", 1);
	assert_int_equal(evoforge_job_from_text(text, &job), EVOFORGE_OK);
	assert_int_equal(evoforge_job_set_backend(job, "gpu"), EVOFORGE_OK);
	evoforge_status st = evoforge_job_run(job);
	if (st != EVOFORGE_OK && st != EVOFORGE_ERR_NOGPU)
		fail_msg("backend gpu: %s", evoforge_job_error(job));
	evoforge_job_free(job);
	return st == EVOFORGE_OK;
}

/* On the GPU the callback gives the GPU's built-in sphere run bit for bit
 * (its float sum matches the host's double sum rounded to float on these
 * sizes). Not rastrigin: the built-in's device cosf differs from the host's
 * in the last bits (measured on the H100: the runs part after a few
 * generations), so a callback run equals the CPU's runs instead, bit for
 * bit: test_gpu_same_as_cpu, and test_adaptive on the CPU. */
static void test_gpu_same_as_builtin(void **state)
{
	(void)state;
	if (!have_gpu())
		skip();
	run_backend = "gpu";
	same_as_builtin("sphere", sphere_cb, "rand/1/bin", 1);
	run_backend = "cpu";
}

/* text's run on the GPU and on the CPU (fn: a callback or NULL) end alike:
 * the results (bests, vectors, generations, evaluations) and history. */
static void gpu_same_as_cpu(const char *text, evoforge_objective_fn fn)
{
	evoforge_job *g, *c;
	calls n = {0, 0, 0, 0};
	run_backend = "gpu";
	assert_int_equal(run(text, fn, &n, &g), EVOFORGE_OK);
	run_backend = "cpu";
	assert_int_equal(run(text, fn, &n, &c), EVOFORGE_OK);
	char *rg = results_part(g), *rc = results_part(c);
	char *hg = read_out(g, "history.csv"), *hc = read_out(c, "history.csv");
	assert_string_equal(rg, rc);
	assert_string_equal(hg, hc);
	free(rg);
	free(rc);
	free(hg);
	free(hc);
	evoforge_job_free(g);
	evoforge_job_free(c);
}

/* GPU = CPU with the callback as with the built-ins (de's invariant). */
static void test_gpu_same_as_cpu(void **state)
{
	static const char *const strategies[] = { "rand/1/bin", "jade", "lshade", "sade", "code" };
	char text[1024];
	(void)state;
	if (!have_gpu())
		skip();
	for (size_t k = 0; k < sizeof strategies / sizeof *strategies; k++) {
		spec(text, sizeof text, "callback", strategies[k], 2);
		gpu_same_as_cpu(text, rastrigin_cb);
	}
}

/* de.x0 on the GPU: member 0 of the initial population in every kernel
 * variant (fused, naive, multiblock) and with the callback; the run as the CPU's. */
static void test_gpu_x0(void **state)
{
	static const char *const variants[] = { "fused", "naive", "multiblock" };
	char text[1024], with[1400];
	evoforge_job *job;
	first_rows f = {0, {0}};
	double best;
	(void)state;
	if (!have_gpu())
		skip();
	for (size_t k = 0; k < 4; k++) {   /* the last: JADE (fused) */
		run_backend = "gpu";
		spec(text, sizeof text, "sphere", k < 3 ? "rand/1/bin" : "jade", 2);
		snprintf(with, sizeof with, "%sx0 = 0 0 0 0 0 0 0 0\ngenerations = 1\nvariant = %s\n",
			 text, variants[k < 3 ? k : 0]);
		*strstr(with, "generations = 60") = ';';
		assert_int_equal(run(with, NULL, NULL, &job), EVOFORGE_OK);
		assert_non_null(strstr(evoforge_job_result_json(job), "\"backend\": \"gpu\""));
		assert_int_equal(evoforge_job_best(job, &best), EVOFORGE_OK);
		assert_true(best == 0.0);
		evoforge_job_free(job);
		snprintf(with, sizeof with, "%sx0 = 0.5, -1, 2, 0.25, 0, 0, 1, -5\nvariant = %s\n", text,
			 variants[k < 3 ? k : 0]);
		gpu_same_as_cpu(with, NULL);
	}
	run_backend = "gpu";
	spec(text, sizeof text, "callback", "rand/1/bin", 1);
	snprintf(with, sizeof with, "%sx0 = 0.5, -1, 2, 0.25, 0, 0, 1, -5\n", text);
	assert_int_equal(run(with, keep_first, &f, &job), EVOFORGE_OK);
	const double want[8] = { 0.5, -1, 2, 0.25, 0, 0, 1, -5 };
	for (int j = 0; j < 8; j++)
		assert_true(f.row0[j] == want[j]);
	assert_int_equal(f.n, 61);
	evoforge_job_free(job);
	run_backend = "cpu";
	gpu_same_as_cpu(with, sphere_cb);
}

/* A failing callback on the GPU stops the run as on the CPU. */
static void test_gpu_callback_fails(void **state)
{
	char text[1024];
	evoforge_job *job;
	calls c = {0, 0, 0, 5};
	(void)state;
	if (!have_gpu())
		skip();
	run_backend = "gpu";
	spec(text, sizeof text, "callback", "rand/1/bin", 1);
	evoforge_status st = run(text, sphere_cb, &c, &job);
	run_backend = "cpu";
	expect_error(job, st, EVOFORGE_ERR_INPUT, "returned 7 at generation 4");
	assert_int_equal(c.n, 5);
	assert_null(evoforge_job_result_json(job));
	evoforge_job_free(job);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sphere),
		cmocka_unit_test(test_rastrigin),
		cmocka_unit_test(test_best1bin_problems),
		cmocka_unit_test(test_adaptive),
		cmocka_unit_test(test_x0),
		cmocka_unit_test(test_callback_fails),
		cmocka_unit_test(test_refusals),
		cmocka_unit_test(test_gpu_same_as_builtin),
		cmocka_unit_test(test_gpu_same_as_cpu),
		cmocka_unit_test(test_gpu_x0),
		cmocka_unit_test(test_gpu_callback_fails),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
