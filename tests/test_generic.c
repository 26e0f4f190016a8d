/* test_generic.c: the kernels embedded in evoforge at its build
 * (runtime/generic.h), linked here as into build/evoforge: the table holds
 * gp's breeding kernels for every arch of the build, a run of each shipped
 * gp problem that keeps the default depth limits finds its breeding compile
 * there (by the key `evoforge build` uses) and gets that cubin without
 * NVRTC, the cubin is the one NVRTC makes now, and a spec with other depth
 * limits is not found (it compiles at start-up, as before). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "generic.h"
#include "kcache.h"
#include "kinds.h"
#include "nvrtc.h"
#include "spec.h"
#include "test_tmp.h"

/* rt_kernel_emit: the breeding compile of a spec's list, found or not. */
typedef struct breed_found {
	int listed, found;
	char name[128];
} breed_found;

static rt_status look_up(void *ctx, const char *name, const char *source,
			 const char *const *options, int noptions, rt_error *err)
{
	breed_found *b = ctx;
	(void)err;
	if (strncmp(name, "gp_breed-", 9) != 0)
		return RT_OK;
	b->listed++;
	snprintf(b->name, sizeof b->name, "%s", name);
	if (rt_generic_find(kcache_prebuilt_key(name, source, "sm_90", options, noptions), name,
			    "sm_90"))
		b->found++;
	return RT_OK;
}

static breed_found breeding_of(const char *problem, const char *set)
{
	const rt_kind *gp = rt_kind_find("gp");
	breed_found b = {0};
	rt_spec spec;
	rt_options opt = {0};
	gpu_info info = {0};
	rt_error err = {0};
	assert_int_equal(rt_spec_load_named(&spec, problem, &err), RT_OK);
	if (set)
		assert_int_equal(rt_spec_set_assignment(&spec, set, &err), RT_OK);
	if (gp->kernels(&spec, &opt, &info, look_up, &b, &err) != RT_OK)
		fail_msg("%s: %s", problem, err.msg);
	rt_spec_free(&spec);
	return b;
}

static void the_table_covers_every_arch(void **state)
{
	char archs[256];
	(void)state;
	assert_true(rt_generic_count() >= 2);
	rt_generic_archs(archs, sizeof archs);
	assert_non_null(strstr(archs, "sm_80"));
	assert_non_null(strstr(archs, "sm_90"));
}

static void shipped_gp_problems_find_their_breeding(void **state)
{
	static const char *const problems[] = { "sextic", "problems/mux6.ini", "problems/mux11.ini",
						"problems/shuttle.ini" };
	(void)state;
	for (size_t i = 0; i < sizeof problems / sizeof problems[0]; i++) {
		breed_found b = breeding_of(problems[i], NULL);
		assert_int_equal(b.listed, 1);
		if (b.found != 1)
			fail_msg("%s: %s is not embedded", problems[i], b.name);
	}
	/* other depth limits: a kernel of their own, compiled at start-up */
	breed_found b = breeding_of("sextic", "gp.max_depth=17");
	assert_int_equal(b.listed, 1);
	assert_int_equal(b.found, 0);
}

/* rt_kernel_emit: nvrtc_compile as a run makes it, embedded; then made
 * by NVRTC (EVOFORGE_NO_EMBEDDED): the same cubin. */
static rt_status compile_both(void *ctx, const char *name, const char *source,
			      const char *const *options, int noptions, rt_error *err)
{
	nvrtc_stats s0, s1, s2;
	nvrtc_output emb, fresh;
	(void)ctx;
	nvrtc_stats_get(&s0);
	assert_int_equal(nvrtc_compile(name, source, "sm_90", options, noptions, &emb, err), RT_OK);
	nvrtc_stats_get(&s1);
	assert_int_equal(s1.compiled, s0.compiled);
	assert_int_equal(s1.prebuilt - s0.prebuilt, 1);
	setenv("EVOFORGE_NO_EMBEDDED", "1", 1);
	assert_int_equal(nvrtc_compile(name, source, "sm_90", options, noptions, &fresh, err), RT_OK);
	unsetenv("EVOFORGE_NO_EMBEDDED");
	nvrtc_stats_get(&s2);
	assert_int_equal(s2.compiled - s1.compiled, 1);
	assert_int_equal(emb.size, fresh.size);
	assert_memory_equal(emb.cubin, fresh.cubin, emb.size);
	assert_string_equal(emb.log, fresh.log);
	nvrtc_output_free(&emb);
	nvrtc_output_free(&fresh);
	return RT_OK;
}

static void a_run_gets_the_embedded_cubin(void **state)
{
	const rt_kind *gp = rt_kind_find("gp");
	rt_error err = {0};
	(void)state;
	setenv("EVOFORGE_CACHE", tmpdir, 1);
	setenv("EVOFORGE_NO_CACHE", "1", 1);
	assert_non_null(gp->generic_kernels);
	assert_int_equal(gp->generic_kernels(compile_both, NULL, &err), RT_OK);
	unsetenv("EVOFORGE_NO_CACHE");
}

static int group_setup(void **state)
{
	(void)state;
	return tmp_setup("generic");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(the_table_covers_every_arch),
		cmocka_unit_test(shipped_gp_problems_find_their_breeding),
		cmocka_unit_test(a_run_gets_the_embedded_cubin),
	};
	return cmocka_run_group_tests(tests, group_setup, tmp_teardown);
}
