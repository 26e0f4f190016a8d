/* test_tune.c: `evoforge tune`: the tuning database (write, read, key
 * mismatch, corrupt file), problem signatures, the search on a fake kind
 * (finds the optimum, prunes, keeps to the budget), applying a stored entry
 * to a spec, and the GP pruning check compiled for sm_90 by NVRTC. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "gp/gp_problem.h"
#include "gp/gp_tune.h"
#include "kinds.h"
#include "nvrtc.h"
#include "out.h"
#include "tune.h"
#include "tunedb.h"

#include "test_tmp.h"

static char dbpath[300];

static rt_tunedb_entry sample_entry(const char *device)
{
	rt_tunedb_entry e;
	memset(&e, 0, sizeof e);
	rt_tunedb_identity(RT_BACKEND_CPU, NULL, &e);
	snprintf(e.device, sizeof e.device, "%s", device);
	rt_tunedb_make_key(&e, 42);
	snprintf(e.kind, sizeof e.kind, "gp");
	snprintf(e.problem, sizeof e.problem, "a \"quoted\"\tname");
	snprintf(e.overrides, sizeof e.overrides, "gp.cpu_block=2048 run.threads=1");
	snprintf(e.unit, sizeof e.unit, "GPop/s");
	e.rate = 1.5e10;
	e.default_rate = 1.25e10;
	return e;
}

static void db_roundtrip(void **state)
{
	rt_tunedb_entry a = sample_entry("cpu A"), b = sample_entry("cpu B"), got, *all;
	rt_error err;
	int n;
	(void)state;
	remove(dbpath);
	assert_int_equal(rt_tunedb_find(dbpath, a.key, &got), 0);   /* no file: no entry */
	assert_string_not_equal(a.key, b.key);                      /* the device is in the key */
	assert_int_equal(rt_tunedb_store(dbpath, &a, &err), RT_OK);
	assert_int_equal(rt_tunedb_store(dbpath, &b, &err), RT_OK);
	a.rate = 2e10;
	assert_int_equal(rt_tunedb_store(dbpath, &a, &err), RT_OK);  /* replaces, not appends */
	assert_int_equal(rt_tunedb_load(dbpath, &all, &n, &err), RT_OK);
	assert_int_equal(n, 2);
	free(all);
	assert_int_equal(rt_tunedb_find(dbpath, a.key, &got), 1);
	assert_string_equal(got.problem, a.problem);
	assert_string_equal(got.overrides, a.overrides);
	assert_true(got.rate == 2e10 && got.default_rate == 1.25e10);
	rt_tunedb_entry c = sample_entry("cpu C");
	assert_int_equal(rt_tunedb_find(dbpath, c.key, &got), 0);   /* key mismatch */
}

static void db_corrupt_is_ignored(void **state)
{
	static const char *const bad[] = {"{\"format\": 1, \"entries\": [ {\"key\": \"x\"", "not json",
					   "{\"format\": 99, \"entries\": []}", "{} trailing", ""};
	rt_tunedb_entry a = sample_entry("cpu A"), got, *all;
	rt_error err;
	int n;
	(void)state;
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		assert_int_equal(rt_write_file_atomic(dbpath, bad[i], strlen(bad[i]), &err), RT_OK);
		assert_int_equal(rt_tunedb_load(dbpath, &all, &n, &err), RT_ERR_INPUT);
		assert_non_null(strstr(err.msg, "not a tuning database"));
		assert_int_equal(rt_tunedb_find(dbpath, a.key, &got), 0);
	}
	assert_int_equal(rt_tunedb_store(dbpath, &a, &err), RT_OK);   /* replaces the bad file */
	assert_int_equal(rt_tunedb_find(dbpath, a.key, &got), 1);
}

static void signature_ignores_listed_keys(void **state)
{
	static const char *const skip_keys[] = {"gp.generations", NULL};
	rt_spec a, b;
	rt_error err;
	(void)state;
	assert_int_equal(rt_spec_load_text(&a, "a", "[problem]\nkind = gp\n[gp]\ngenerations = 5\n"
					   "population = 10\n", &err), RT_OK);
	assert_int_equal(rt_spec_load_text(&b, "b", "[gp]\npopulation = 10\n[problem]\nkind = gp\n",
					   &err), RT_OK);
	assert_true(rt_tunedb_signature(&a, skip_keys) == rt_tunedb_signature(&b, skip_keys));
	assert_true(rt_tunedb_signature(&a, NULL) != rt_tunedb_signature(&b, NULL));
	assert_int_equal(rt_spec_set(&b, "gp", "population", "11", &err), RT_OK);
	assert_true(rt_tunedb_signature(&a, skip_keys) != rt_tunedb_signature(&b, skip_keys));
	rt_spec_free(&a);
	rt_spec_free(&b);
}

/* ---- a fake kind: rate peaks at (7, 2); a = 9 is pruned ---- */

typedef struct fake {
	int timed, pruned_asked;
	int seen[10][6];
} fake;

static rt_status fake_prune(void *state, const rt_tune_config *c, int *ok, char *why, int size,
			    rt_error *err)
{
	(void)err;
	((fake *)state)->pruned_asked++;
	*ok = c->v[0] != 9;
	if (!*ok)
		snprintf(why, (size_t)size, "spills");
	return RT_OK;
}

static rt_status fake_time(void *state, const rt_tune_config *c, double *rate, rt_error *err)
{
	fake *f = state;
	int a = c->v[0], b = c->v[1];
	if (a == 0 && b == 5)
		return rt_fail(err, RT_ERR_CUDA, "launch failed");
	f->timed++;
	f->seen[a][b]++;
	*rate = 1000.0 - (a - 7) * (a - 7) * 10 - (b - 2) * (b - 2) * 7;
	return RT_OK;
}

static const rt_tune_kind fake_kind = {NULL, NULL, NULL, fake_prune, fake_time, NULL};

static void fake_space(rt_tune_space *s)
{
	memset(s, 0, sizeof *s);
	s->nparams = 2;
	snprintf(s->params[0].name, sizeof s->params[0].name, "a");
	snprintf(s->params[1].name, sizeof s->params[1].name, "b");
	for (int i = 0; i < 10; i++)
		rt_tune_param_add(&s->params[0], "%d", i);
	for (int i = 0; i < 6; i++)
		rt_tune_param_add(&s->params[1], "%d", i);
	s->params[0].def = 1;
	s->params[1].def = 4;
	snprintf(s->unit, sizeof s->unit, "ops/s");
}

static void search_finds_the_peak(void **state)
{
	rt_tune_space s;
	rt_tune_outcome o;
	rt_error err;
	fake f;
	int pruned = 0, failed = 0, timed = 0;
	char text[64];
	(void)state;
	memset(&f, 0, sizeof f);
	fake_space(&s);
	assert_int_equal(rt_tune_search(&fake_kind, &f, &s, 30, 0, &o, &err), RT_OK);
	assert_true(o.best >= 0 && o.def >= 0);
	assert_string_equal(rt_tune_config_text(&s, &o.trials[o.best].cfg, text, sizeof text), "a=7 b=2");
	assert_int_equal(o.trials[o.def].cfg.v[0], 1);
	assert_int_equal(o.trials[o.def].cfg.v[1], 4);
	for (int i = 0; i < o.ntrials; i++) {
		pruned += o.trials[i].verdict == RT_TUNE_PRUNED;
		failed += o.trials[i].verdict == RT_TUNE_FAILED;
		timed += o.trials[i].verdict == RT_TUNE_TIMED;
		assert_true(o.trials[i].verdict != RT_TUNE_PRUNED || o.trials[i].cfg.v[0] == 9);
	}
	assert_true(pruned > 0);             /* the grid keeps the ends: a = 9 is asked and pruned */
	assert_true(o.ntrials < 60);         /* not the whole grid */
	assert_int_equal(f.seen[9][0] + f.seen[9][1] + f.seen[9][5], 0);   /* never launched */
	assert_int_equal(f.timed, timed + 2);   /* each once, the best and the default again */
	(void)failed;
	rt_tune_outcome_free(&o);
}

static void search_keeps_to_the_budget(void **state)
{
	rt_tune_space s;
	rt_tune_outcome o;
	rt_error err;
	fake f;
	(void)state;
	memset(&f, 0, sizeof f);
	fake_space(&s);
	assert_int_equal(rt_tune_search(&fake_kind, &f, &s, 1e-9, 0, &o, &err), RT_OK);
	assert_int_equal(o.ntrials, 1);        /* the default alone */
	assert_int_equal(o.best, o.def);
	rt_tune_outcome_free(&o);
}

/* rt_tune_apply: a stored CPU entry for a spec reaches the spec, except
 * keys given on the command line. */
static void apply_sets_overrides(void **state)
{
	const rt_kind *gp = rt_kind_find("gp");
	rt_spec spec;
	rt_options opt;
	rt_tunedb_entry e;
	rt_error err;
	const char *text = "[problem]\nkind = gp\nname = t\n[gp]\ngenerations = 2\n"
			   "[data]\nsource = multiplexer\naddress_bits = 1\n";
	(void)state;
	remove(dbpath);
	memset(&opt, 0, sizeof opt);
	opt.backend = RT_BACKEND_CPU;
	assert_int_equal(rt_spec_load_text(&spec, "t.ini", text, &err), RT_OK);
	memset(&e, 0, sizeof e);
	rt_tunedb_identity(RT_BACKEND_CPU, NULL, &e);
	rt_tunedb_make_key(&e, rt_tunedb_signature(&spec, gp->tune->unsigned_keys));
	snprintf(e.overrides, sizeof e.overrides, "gp.cpu_block=512 gp.gpu_variant=lgp-fast-p4");
	assert_int_equal(rt_tunedb_store(dbpath, &e, &err), RT_OK);
	assert_int_equal(rt_spec_set(&spec, "gp", "gpu_variant", "lgp-float4", &err), RT_OK);
	assert_int_equal(rt_spec_set(&spec, "gp", "generations", "9", &err), RT_OK);  /* unsigned */
	assert_int_equal(rt_tune_apply(gp, &spec, &opt, &err), RT_OK);
	assert_string_equal(rt_spec_find(&spec, "gp", "cpu_block")->value, "512");
	assert_string_equal(rt_spec_find(&spec, "gp", "gpu_variant")->value, "lgp-float4");
	rt_spec_free(&spec);
}

/* The GP prune check compiles for sm_90 without a GPU: the default fits;
 * 16 cases per thread, 4 register levels and 1024 threads (64 registers
 * each) spill. */
static void gp_prune_reads_the_spill_report(void **state)
{
	rt_spec spec;
	gp_problem p;
	gp_gpu_config c;
	rt_error err;
	char why[160] = "";
	int ok = -1;
	(void)state;
	if (nvrtc_open(&err) != RT_OK) {
		printf("SKIP gp_prune_reads_the_spill_report: %s\n", err.msg);
		skip();
	}
	assert_int_equal(rt_spec_load_named(&spec, "sextic", &err), RT_OK);
	assert_int_equal(gp_problem_load(&spec, &p, &err), RT_OK);
	gp_gpu_config_default(&c);
	assert_int_equal(gp_tune_prune_variant(&p, &c, "sm_90", 65536, &ok, why, sizeof why, &err), RT_OK);
	assert_int_equal(ok, 1);
	assert_int_equal(gp_gpu_variant_parse("lgp-f4x4-r4-t1024", &c, &err), RT_OK);
	assert_int_equal(gp_tune_prune_variant(&p, &c, "sm_90", 65536, &ok, why, sizeof why, &err), RT_OK);
	assert_int_equal(ok, 0);
	assert_non_null(strstr(why, "spills"));
	gp_problem_free(&p);
	rt_spec_free(&spec);
}

static int setup(void **state)
{
	(void)state;
	if (tmp_setup("tune"))
		return -1;
	setenv("EVOFORGE_CACHE", tmpdir, 1);
	snprintf(dbpath, sizeof dbpath, "%s/tuning.json", tmpdir);
	return 0;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(db_roundtrip),
		cmocka_unit_test(db_corrupt_is_ignored),
		cmocka_unit_test(signature_ignores_listed_keys),
		cmocka_unit_test(search_finds_the_peak),
		cmocka_unit_test(search_keeps_to_the_budget),
		cmocka_unit_test(apply_sets_overrides),
		cmocka_unit_test(gp_prune_reads_the_spill_report),
	};
	return cmocka_run_group_tests(tests, setup, tmp_teardown);
}
