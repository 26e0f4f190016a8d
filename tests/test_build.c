/* test_build.c: `evoforge build`'s core: the table of prebuilt cubins
 * (keys, lookup, the archs it covers), nvrtc_compile answering from it
 * without NVRTC and failing clearly on a miss when NVRTC is absent, the
 * device profiles, the kernel lists of gp, de, aco, mbp and svm
 * (rt_kind.kernels), and every kernel of the aco, mbp and svm lists
 * compiled by NVRTC for sm_90 without spills. That the lists hold every
 * compile a GPU run makes is test_build_cover.c's. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "build.h"
#include "built.h"
#include "kcache.h"
#include "kinds.h"
#include "nvrtc.h"
#include "spec.h"

static const char src_a[] = "extern \"C\" __global__ void k(float *x) { x[0] = 1; }\n";
static const char *const opts[] = { "--fmad=false", "-Xptxas", "-v" };
static const unsigned char cubin_a[] = { 0x7f, 'E', 'L', 'F', 1, 2, 3 };
static const unsigned char cubin_b[] = { 0x7f, 'E', 'L', 'F', 9 };

static void key_covers_every_part(void **state)
{
	(void)state;
	uint64_t k = kcache_prebuilt_key("a.cu", src_a, "sm_90", opts, 3);
	assert_true(k == kcache_prebuilt_key("a.cu", src_a, "sm_90", opts, 3));
	assert_true(k != kcache_prebuilt_key("b.cu", src_a, "sm_90", opts, 3));
	assert_true(k != kcache_prebuilt_key("a.cu", "/* other */", "sm_90", opts, 3));
	assert_true(k != kcache_prebuilt_key("a.cu", src_a, "sm_80", opts, 3));
	assert_true(k != kcache_prebuilt_key("a.cu", src_a, "sm_90", opts, 2));
	assert_true(k != kcache_prebuilt_key("a.cu", src_a, "sm_90", NULL, 0));
}

/* A table of two cubins of "a.cu": one per arch. */
static rt_built_kernel table[2];

static void fill_table(void)
{
	table[0] = (rt_built_kernel){ "a.cu", "sm_80", kcache_prebuilt_key("a.cu", src_a, "sm_80", opts, 3),
				      cubin_b, cubin_b + sizeof cubin_b, "log 80" };
	table[1] = (rt_built_kernel){ "a.cu", "sm_90", kcache_prebuilt_key("a.cu", src_a, "sm_90", opts, 3),
				      cubin_a, cubin_a + sizeof cubin_a, "ptxas info: Used 4 registers" };
}

static void table_lookup(void **state)
{
	char archs[64];
	(void)state;
	fill_table();
	kcache_prebuilt_register(table, 2);
	assert_int_equal(kcache_prebuilt_count(), 2);
	assert_string_equal(kcache_prebuilt_archs(archs, sizeof archs), "sm_80,sm_90");
	assert_ptr_equal(kcache_prebuilt_find(table[1].key, "a.cu", "sm_90"), &table[1]);
	assert_null(kcache_prebuilt_find(table[1].key, "b.cu", "sm_90"));
	assert_null(kcache_prebuilt_find(table[1].key, "a.cu", "sm_80"));
	assert_null(kcache_prebuilt_find(table[1].key ^ 1, "a.cu", "sm_90"));
	kcache_prebuilt_register(NULL, 0);
	assert_int_equal(kcache_prebuilt_count(), 0);
	assert_null(kcache_prebuilt_find(table[1].key, "a.cu", "sm_90"));
	assert_string_equal(kcache_prebuilt_archs(archs, sizeof archs), "none");
}

/* nvrtc_compile answers from the table: the bytes and log, no NVRTC. */
static void compile_uses_the_table(void **state)
{
	nvrtc_output out;
	rt_error err = {0};
	(void)state;
	fill_table();
#ifdef RT_TESTS
	setenv("EVOFORGE_LIBNVRTC", "/nonexistent/libnvrtc.so", 1);
	nvrtc_reset_for_tests();
#endif
	kcache_prebuilt_register(table, 2);
	assert_int_equal(nvrtc_compile("a.cu", src_a, "sm_90", opts, 3, &out, &err), RT_OK);
	assert_int_equal(out.size, sizeof cubin_a);
	assert_memory_equal(out.cubin, cubin_a, sizeof cubin_a);
	assert_string_equal(out.log, "ptxas info: Used 4 registers");
	nvrtc_output_free(&out);
#ifdef RT_TESTS
	/* A compile the table lacks, with no NVRTC: an error naming the archs. */
	assert_int_equal(nvrtc_compile("a.cu", src_a, "sm_100", opts, 3, &out, &err), RT_ERR_NVRTC);
	assert_non_null(strstr(err.msg, "embeds no cubin"));
	assert_non_null(strstr(err.msg, "built for sm_80,sm_90"));
	assert_non_null(strstr(err.msg, "--arch sm_100"));
	unsetenv("EVOFORGE_LIBNVRTC");
	nvrtc_reset_for_tests();
#endif
	kcache_prebuilt_register(NULL, 0);
}

static void device_profiles(void **state)
{
	gpu_info info;
	rt_error err = {0};
	(void)state;
	assert_int_equal(rt_build_device_profile("sm_90", &info, &err), RT_OK);
	assert_int_equal(info.cc_major, 9);
	assert_int_equal(info.smem_per_block_optin, 227 * 1024);
	assert_int_equal(rt_build_device_profile("sm_80", &info, &err), RT_OK);
	assert_int_equal(info.smem_per_block_optin, 163 * 1024);
	assert_int_equal(rt_build_device_profile("sm_75", &info, &err), RT_OK);
	assert_int_equal(info.cc_minor, 5);
	assert_int_equal(info.smem_per_sm, 0);
	assert_int_equal(rt_build_device_profile("compute_90", &info, &err), RT_ERR_INPUT);
	assert_int_equal(rt_build_device_profile("sm_9x", &info, &err), RT_ERR_INPUT);
}

typedef struct listed {
	int n;
	char names[16][128];
	int noptions;
} listed;

static rt_status count_kernel(void *ctx, const char *name, const char *source,
			      const char *const *options, int noptions, rt_error *err)
{
	listed *l = ctx;
	(void)err;
	assert_non_null(strstr(source, "do not edit"));
	if (l->n < 16)
		snprintf(l->names[l->n], sizeof l->names[0], "%s", name);
	l->n++;
	l->noptions = noptions;
	(void)options;
	return RT_OK;
}

/* The kernels kind's run of spec (name: a problem), with the overrides
 * sets (NULL-terminated; may be NULL), may compile on sm_90. */
static listed kernels_of_sets(const char *kind_name, const char *spec_name,
			      const char *const *sets)
{
	const rt_kind *kind = rt_kind_find(kind_name);
	rt_spec spec;
	rt_options opt;
	gpu_info info;
	rt_error err = {0};
	listed l;
	memset(&l, 0, sizeof l);
	memset(&opt, 0, sizeof opt);
	assert_non_null(kind);
	assert_non_null(kind->kernels);
	assert_int_equal(rt_spec_load_named(&spec, spec_name, &err), RT_OK);
	for (int i = 0; sets && sets[i]; i++)
		assert_int_equal(rt_spec_set_assignment(&spec, sets[i], &err), RT_OK);
	assert_int_equal(rt_build_device_profile("sm_90", &info, &err), RT_OK);
	if (kind->kernels(&spec, &opt, &info, count_kernel, &l, &err) != RT_OK)
		fail_msg("%s", err.msg);
	rt_spec_free(&spec);
	return l;
}

/* The same with at most one override. */
static listed kernels_of(const char *kind_name, const char *spec_name, const char *set)
{
	const char *const sets[] = { set, NULL };
	return kernels_of_sets(kind_name, spec_name, sets);
}

static void gp_lists_every_stack_depth(void **state)
{
	(void)state;
	/* sextic: binary functions, max_depth 50: stacks up to 52 -> 8..64; and
	 * the breeding kernels (it breeds on the device). */
	listed l = kernels_of("gp", "sextic", NULL);
	assert_int_equal(l.n, 5);
	assert_string_equal(l.names[0], "gp_gpu-lgp-fast-s8.cu");
	assert_string_equal(l.names[3], "gp_gpu-lgp-fast-s64.cu");
	assert_string_equal(l.names[4], "gp_breed-d50-m4.cu");
	l = kernels_of("gp", "sextic", "gp.max_depth=6");
	assert_int_equal(l.n, 2);
	assert_string_equal(l.names[1], "gp_breed-d6-m4.cu");
	l = kernels_of("gp", "sextic", "gp.gpu_variant=lgp-fast-s32");
	assert_int_equal(l.n, 2);
	assert_string_equal(l.names[0], "gp_gpu-lgp-fast-s32-s32.cu");   /* variant name, depth */
	l = kernels_of("gp", "sextic", "gp.breeding=host");   /* no breeding kernels */
	assert_int_equal(l.n, 4);
}

static void de_lists_its_module(void **state)
{
	(void)state;
	listed l = kernels_of("de", "problems/de-sphere.ini", NULL);
	assert_int_equal(l.n, 1);
}

/* Sonar ships (data/uci/sonar.csv): the runtime must find it for the svm-sonar
 * and mbp-sonar cases; fails, naming WHAT, when it does not. */
static int have_sonar(const char *what)
{
	rt_spec spec;
	rt_error err = {0};
	char path[RT_PATH_MAX];
	int ok;
	assert_int_equal(rt_spec_load_named(&spec, "problems/svm-sonar.ini", &err), RT_OK);
	ok = rt_spec_data_path(&spec, "uci/sonar.csv", path, sizeof path, &err) == RT_OK;
	rt_spec_free(&spec);
	if (!ok)
		fail_msg("uci/sonar.csv (shipped in data/) not found, so %s cannot be checked: %s", what,
			 err.msg);
	return ok;
}

/* aco and mbp: one module, named after the problem; svm: the solver (kernel
 * type, features, working-set rule) and the prediction (kernel type,
 * features) of the training set, and of the test set when there is one. */
static void aco_mbp_svm_list_their_modules(void **state)
{
	static const char *const more[] = { "svm.kernel=linear", "svm.wss=first",
					     "data.test=uci/sonar.csv", NULL };
	(void)state;
	listed l = kernels_of("aco", "problems/aco-random.ini", "data.random=100");
	assert_int_equal(l.n, 1);
	assert_string_equal(l.names[0], "aco-aco-random.cu");
	assert_int_equal(l.noptions, 3);
	l = kernels_of("mbp", "problems/mbp-spirals.ini", NULL);
	assert_int_equal(l.n, 1);
	assert_string_equal(l.names[0], "mbp-mbp-spirals.cu");
	if (!have_sonar("svm-sonar's list (test_build_cover checks svm on data of its own)"))
		return;
	l = kernels_of("svm", "problems/svm-sonar.ini", NULL);
	assert_int_equal(l.n, 2);
	assert_string_equal(l.names[0], "svm-k2-f60-w0.cu");
	assert_string_equal(l.names[1], "svm_predict-k2-f60.cu");
	l = kernels_of_sets("svm", "problems/svm-sonar.ini", more);
	assert_int_equal(l.n, 3);   /* the test set's prediction: the same module (built once) */
	assert_string_equal(l.names[0], "svm-k0-f60-w1.cu");
	assert_string_equal(l.names[2], "svm_predict-k0-f60.cu");
}

/* ---- the lists compiled: sm_90, no spills ---------------------------------------- */

/* The first nonzero "N bytes spill stores/loads" of a ptxas -v log, or NULL. */
static const char *spill_in(const char *log)
{
	static const char *const what[] = { " bytes spill stores", " bytes spill loads" };
	for (int w = 0; w < 2; w++)
		for (const char *p = strstr(log, what[w]); p; p = strstr(p + 1, what[w])) {
			const char *q = p;
			while (q > log && q[-1] >= '0' && q[-1] <= '9')
				q--;
			if (q < p && atoi(q) != 0)
				return q;
		}
	return NULL;
}

/* rt_kernel_emit: nvrtc_compile for sm_90, then the ptxas report checked. */
static rt_status compile_sm90(void *ctx, const char *name, const char *source,
			      const char *const *options, int noptions, rt_error *err)
{
	nvrtc_output out;
	int *n = ctx;
	rt_status st = nvrtc_compile(name, source, "sm_90", options, noptions, &out, err);
	if (st != RT_OK)
		fail_msg("%s: %s", name, err->msg);
	assert_non_null(strstr(out.log, "bytes spill stores"));   /* a report per kernel */
	const char *spill = spill_in(out.log);
	if (spill)
		fail_msg("%s spills on sm_90: %.80s", name, spill);
	nvrtc_output_free(&out);
	(*n)++;
	return RT_OK;
}

static void lists_compile_without_spills(void **state)
{
	static const struct { const char *kind, *spec, *set; } cases[] = {
		{ "aco", "problems/aco-random.ini", NULL },
		{ "mbp", "problems/mbp-spirals.ini", NULL },
		{ "mbp", "problems/mbp-friedman.ini", NULL },
		{ "mbp", "problems/mbp-sonar.ini", NULL },
		{ "svm", "problems/svm-sonar.ini", NULL },
	};
	int sonar = have_sonar("mbp-sonar's and svm-sonar's kernels compiled");
	rt_error err = {0};
	(void)state;
	if (nvrtc_open(&err) != RT_OK) {
		printf("SKIP build: no NVRTC (%s): the kernel lists were not compiled\n", err.msg);
		skip();
	}
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		const rt_kind *kind = rt_kind_find(cases[i].kind);
		rt_spec spec;
		rt_options opt;
		gpu_info info;
		int n = 0;
		if (!sonar && strstr(cases[i].spec, "sonar"))
			continue;
		memset(&opt, 0, sizeof opt);
		assert_int_equal(rt_spec_load_named(&spec, cases[i].spec, &err), RT_OK);
		assert_int_equal(rt_build_device_profile("sm_90", &info, &err), RT_OK);
		if (kind->kernels(&spec, &opt, &info, compile_sm90, &n, &err) != RT_OK)
			fail_msg("%s: %s", cases[i].spec, err.msg);
		assert_true(n >= 1);
		rt_spec_free(&spec);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(key_covers_every_part),
		cmocka_unit_test(table_lookup),
		cmocka_unit_test(compile_uses_the_table),
		cmocka_unit_test(device_profiles),
		cmocka_unit_test(gp_lists_every_stack_depth),
		cmocka_unit_test(de_lists_its_module),
		cmocka_unit_test(aco_mbp_svm_list_their_modules),
		cmocka_unit_test(lists_compile_without_spills),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
