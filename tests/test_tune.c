/* test_tune.c: `evoforge tune`: the tuning database (write, read, key
 * mismatch, corrupt file), problem signatures, the search on a fake kind
 * (finds the optimum, prunes, keeps to the budget), applying a stored entry
 * to a spec, the GP pruning check compiled for sm_90 by NVRTC, and the
 * pruning checks of aco, mbp and svm: every GPU configuration their tuners
 * search compiles for sm_90 without spills, and those that cannot fit are
 * pruned with a reason. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "aco/aco_tune.h"
#include "gp/gp_problem.h"
#include "gp/gp_tune.h"
#include "kinds.h"
#include "mbp/mbp_tune.h"
#include "nvrtc.h"
#include "out.h"
#include "svm/svm_tune.h"
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

/* ---- aco, mbp, svm: the GPU configurations their tuners search ---- */

/* An H100's resources, as the prune hooks get them from the device. */
#define H100_SMS 132
#define H100_SMEM_OPTIN 232448
#define H100_REGS 65536

static int have_nvrtc(const char *test)
{
	rt_error err;
	if (nvrtc_open(&err) != RT_OK) {
		printf("SKIP %s: %s\n", test, err.msg);
		return 0;
	}
	return 1;
}

static void aco_job_text(const char *text, aco_job *job)
{
	rt_options opt = { RT_BACKEND_CPU, 1, 0, 0, NULL, 1, NULL, 0, NULL };
	rt_spec spec;
	rt_error err;
	assert_int_equal(rt_spec_load_text(&spec, "aco.ini", text, &err), RT_OK);
	assert_int_equal(aco_job_from_spec(&spec, &opt, job, &err), RT_OK);
	assert_int_equal(aco_job_prepare(job, &err), RT_OK);
	aco_job_finish(job, 1);
	rt_spec_free(&spec);
}

/* Every block and candidate-table place aco_tune.c tries, both
 * construction kernels, on aco-random's 1000 cities: each compiles for
 * sm_90 without spills; the table of 2000 cities x 20 candidates (320 KB)
 * put in shared memory is pruned without a compile. */
static void aco_gpu_configurations_compile(void **state)
{
	static const int blocks[] = {0, 32, 64, 128, 256, 512, 1024};
	aco_job job;
	rt_error err;
	char why[160] = "";
	int ok = -1;
	(void)state;
	if (!have_nvrtc("aco_gpu_configurations_compile"))
		skip();
	aco_job_text("[problem]\nkind = aco\n[data]\nrandom = 1000\n", &job);
	for (int c = ACO_CONSTRUCT_THREAD; c <= ACO_CONSTRUCT_WARP; c++)
		for (int m = ACO_CAND_AUTO; m <= ACO_CAND_GLOBAL; m++)
			for (size_t b = 0; b < sizeof blocks / sizeof blocks[0]; b++) {
				job.construct = c;
				job.cand_memory = m;
				job.block = blocks[b];
				assert_int_equal(aco_tune_check(&job, "sm_90", H100_SMS, H100_SMEM_OPTIN,
								H100_REGS, &ok, why, sizeof why, &err), RT_OK);
				if (!ok)
					printf("construct %d, cand_memory %d, block %d: %s\n", c, m, blocks[b], why);
				assert_int_equal(ok, 1);
			}
	aco_job_free(&job);
	aco_job_text("[problem]\nkind = aco\n[data]\nrandom = 2000\n[aco]\ncand_memory = shared\n", &job);
	assert_int_equal(aco_tune_check(&job, "sm_90", H100_SMS, H100_SMEM_OPTIN, H100_REGS, &ok, why,
					sizeof why, &err), RT_OK);
	assert_int_equal(ok, 0);
	assert_non_null(strstr(why, "shared memory"));
	job.cand_memory = ACO_CAND_GLOBAL;
	assert_int_equal(aco_tune_check(&job, "sm_90", H100_SMS, H100_SMEM_OPTIN, H100_REGS, &ok, why,
					sizeof why, &err), RT_OK);
	assert_int_equal(ok, 1);
	aco_job_free(&job);
}

static void mbp_job_text(const char *text, mbp_job *job)
{
	rt_options opt = { RT_BACKEND_CPU, 1, 0, 0, NULL, 1, NULL, 0, NULL };
	rt_spec spec;
	rt_error err;
	assert_int_equal(rt_spec_load_text(&spec, "mbp.ini", text, &err), RT_OK);
	assert_int_equal(mbp_job_from_spec(job, &spec, &opt, &err), RT_OK);
	rt_spec_free(&spec);
}

/* Every kernel, block size and input staging mbp_tune.c tries on the
 * two-spirals 2-20-10-1 MBP network compiles for sm_90; the default without
 * spills, the others without spills or pruned for them; a 10-100-1 network
 * (2311 weights) over 64 threads is pruned (more than 16 weights per
 * thread). */
static void mbp_gpu_configurations_compile(void **state)
{
	static const int threads[] = {0, 64, 128, 192, 256, 384, 512, 768, 1024};
	mbp_job job;
	rt_error err;
	char why[160] = "";
	int ok = -1;
	(void)state;
	if (!have_nvrtc("mbp_gpu_configurations_compile"))
		skip();
	mbp_job_text("[problem]\nkind = mbp\n[data]\nsource = two-spirals\n[mbp]\nhidden = 20 10\n", &job);
	for (int v = MBP_VARIANT_AUTO; v <= MBP_VARIANT_SPLIT; v++)
		for (int s = MBP_STAGE_AUTO; s <= MBP_STAGE_YES; s++)
			for (size_t t = 0; t < sizeof threads / sizeof threads[0]; t++) {
				job.variant = v;
				job.stage_inputs = s;
				job.threads = threads[t];
				assert_int_equal(mbp_tune_check(&job, "sm_90", H100_SMEM_OPTIN, H100_REGS, &ok,
								why, sizeof why, &err), RT_OK);
				if (!ok)
					printf("pruned: variant %d, stage %d, threads %d: %s\n", v, s, threads[t], why);
				/* the shipped default (auto, auto, 0 threads) runs; others may
				 * spill (some do at 128, 384 and 768 threads) and are pruned */
				assert_true(ok || ((v || s || threads[t]) && strstr(why, "spills")));
			}
	mbp_job_free(&job);
	mbp_job_text("[problem]\nkind = mbp\n[data]\nsource = friedman1\npatterns = 100\n[mbp]\n"
		     "hidden = 100\nthreads = 64\n", &job);
	assert_int_equal(mbp_tune_check(&job, "sm_90", H100_SMEM_OPTIN, H100_REGS, &ok, why, sizeof why,
					&err), RT_OK);
	assert_int_equal(ok, 0);
	assert_non_null(strstr(why, "per thread"));
	mbp_job_free(&job);
}

/* Both GPU solvers svm_tune.c chooses between (the cache size and blocks
 * per SM change no source), for every kernel type and both selection rules
 * with Sonar's 60 features, compile for sm_90 without spills. */
static void svm_gpu_configurations_compile(void **state)
{
	svm_params p;
	rt_error err;
	char why[160] = "";
	int ok = -1;
	(void)state;
	if (!have_nvrtc("svm_gpu_configurations_compile"))
		skip();
	memset(&p, 0, sizeof p);
	for (int type = SVM_LINEAR; type <= SVM_SIGMOID; type++)
		for (int wss = SVM_WSS_SECOND; wss <= SVM_WSS_FIRST; wss++)
			for (int roles = 0; roles <= 1; roles++) {
				p.kernel.type = type;
				p.wss = wss;
				p.gpu_roles = roles;
				assert_int_equal(svm_tune_check(&p, 60, "sm_90", H100_REGS, &ok, why, sizeof why,
								&err), RT_OK);
				if (!ok)
					printf("kernel %d, wss %d, roles %d: %s\n", type, wss, roles, why);
				assert_int_equal(ok, 1);
			}
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
		cmocka_unit_test(aco_gpu_configurations_compile),
		cmocka_unit_test(mbp_gpu_configurations_compile),
		cmocka_unit_test(svm_gpu_configurations_compile),
	};
	return cmocka_run_group_tests(tests, setup, tmp_teardown);
}
