/* test_gpu.c: the GPU layer without a GPU: NVRTC compiling the smoke kernel
 * to a real sm_90 cubin, compile errors, the disk cache (hits, strict mode,
 * corruption), ptxas -v parsing, and a missing driver giving RT_ERR_NOGPU.
 *
 * gpu_open remembers its first result, so the missing-driver tests come
 * first and set EVOFORGE_LIBCUDA to a file that does not exist; the rest of
 * the program keeps that result. The sanitizer build (-DRT_TESTS) can reset
 * it and also tries the toolkit's stub libcuda and, where a GPU is present,
 * runs the smoke kernel for real. */
#include <ftw.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "backend.h"
#include "gpu.h"
#include "kcache.h"
#include "nvrtc.h"
#include "rng.h"
#include "smoke.h"

#define MISSING_LIBCUDA "/nonexistent/libcuda.so.1"
#define STUB_LIBCUDA "/usr/local/cuda/lib64/stubs/libcuda.so"

static char cache_dir[256];

/* ---- helpers -------------------------------------------------------------- */

static int remove_entry(const char *path, const struct stat *sb, int flag, struct FTW *ftw)
{
	(void)sb;
	(void)flag;
	(void)ftw;
	return remove(path);
}

/* A fresh, empty cache folder for one test (EVOFORGE_CACHE points at it). */
static int fresh_cache(void **state)
{
	(void)state;
	if (cache_dir[0])
		nftw(cache_dir, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
	snprintf(cache_dir, sizeof cache_dir, "/tmp/evoforge-test-gpu-XXXXXX");
	if (!mkdtemp(cache_dir))
		return -1;
	setenv("EVOFORGE_CACHE", cache_dir, 1);
	unsetenv("EVOFORGE_NO_CACHE");
	unsetenv("EVOFORGE_CACHE_STRICT");
	return 0;
}

static int drop_cache(void **state)
{
	(void)state;
	if (cache_dir[0])
		nftw(cache_dir, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
	cache_dir[0] = '\0';
	unsetenv("EVOFORGE_CACHE_STRICT");
	unsetenv("EVOFORGE_NO_CACHE");
	return 0;
}

/* Paths of the *.kc entries in the cache folder (up to max); the count. */
static int cache_entries(char paths[][512], int max)
{
	DIR *d = opendir(cache_dir);
	struct dirent *e;
	int n = 0;
	assert_non_null(d);
	while ((e = readdir(d))) {
		size_t len = strlen(e->d_name);
		if (len > 3 && strcmp(e->d_name + len - 3, ".kc") == 0 && n < max)
			snprintf(paths[n++], 512, "%s/%s", cache_dir, e->d_name);
	}
	closedir(d);
	return n;
}

static long file_size(const char *path)
{
	struct stat sb;
	return stat(path, &sb) == 0 ? (long)sb.st_size : -1;
}

static const char *const ptxas_v[] = { "-Xptxas", "-v" };

static const char tiny_src[] =
	"extern \"C\" __global__ void tiny(float *y, float a) {\n"
	"\ty[threadIdx.x] = a * y[threadIdx.x] + 1.0f;\n"
	"}\n";

/* ---- no driver ------------------------------------------------------------ */

static void no_driver_is_nogpu(void **state)
{
	rt_error err = { 0 };
	int count = 7;
	gpu_context *ctx = (gpu_context *)&count;
	(void)state;
#ifdef RT_TESTS
	gpu_reset_for_tests();
#endif
	setenv("EVOFORGE_LIBCUDA", MISSING_LIBCUDA, 1);
	assert_int_equal(gpu_open(&err), RT_ERR_NOGPU);
	assert_int_equal(err.status, RT_ERR_NOGPU);
	assert_non_null(strstr(err.msg, "no CUDA driver: dlopen " MISSING_LIBCUDA ": "));
	assert_non_null(strstr(err.msg, "install the NVIDIA driver or use --backend cpu"));
	/* The first result sticks, and every entry point reports it. */
	memset(&err, 0, sizeof err);
	assert_int_equal(gpu_open(&err), RT_ERR_NOGPU);
	assert_non_null(strstr(err.msg, "no CUDA driver"));
	assert_int_equal(gpu_device_count(&count, &err), RT_ERR_NOGPU);
	assert_int_equal(count, 0);
	gpu_info info;
	assert_int_equal(gpu_device_info(0, &info, &err), RT_ERR_NOGPU);
	assert_int_equal(gpu_context_open(0, &ctx, &err), RT_ERR_NOGPU);
	assert_null(ctx);
	double max_err = -1, ms = -1;
	assert_int_equal(smoke_run_gpu(1000, 1, &max_err, &ms, &err), RT_ERR_NOGPU);
	assert_non_null(strstr(err.msg, "no CUDA driver"));
}

static void backend_falls_back_to_cpu(void **state)
{
	rt_error err = { 0 };
	rt_backend chosen = RT_BACKEND_GPU;
	(void)state;
	assert_int_equal(rt_backend_select(RT_BACKEND_AUTO, &chosen, NULL, &err), RT_OK);
	assert_int_equal(chosen, RT_BACKEND_CPU);
	assert_int_equal(rt_backend_select(RT_BACKEND_CPU, &chosen, NULL, &err), RT_OK);
	assert_int_equal(chosen, RT_BACKEND_CPU);
	assert_int_equal(rt_backend_select(RT_BACKEND_GPU, &chosen, NULL, &err), RT_ERR_NOGPU);
	assert_non_null(strstr(err.msg, "no CUDA driver"));
}

#ifdef RT_TESTS
/* The toolkit's stub libcuda has every symbol but cuInit fails: the symbol
 * list is right and a failing cuInit is a clean RT_ERR_NOGPU. */
static void stub_driver_is_nogpu(void **state)
{
	rt_error err = { 0 };
	(void)state;
	if (access(STUB_LIBCUDA, R_OK) != 0) {
		printf("SKIP stub_driver_is_nogpu: no %s\n", STUB_LIBCUDA);
		skip();
	}
	gpu_reset_for_tests();
	setenv("EVOFORGE_LIBCUDA", STUB_LIBCUDA, 1);
	assert_int_equal(gpu_open(&err), RT_ERR_NOGPU);
	assert_non_null(strstr(err.msg, "cuInit: CUDA_ERROR_STUB_LIBRARY"));
	assert_non_null(strstr(err.msg, STUB_LIBCUDA));
	assert_null(strstr(err.msg, "has no"));   /* every symbol was found */
	gpu_reset_for_tests();
	setenv("EVOFORGE_LIBCUDA", MISSING_LIBCUDA, 1);
	assert_int_equal(gpu_open(&err), RT_ERR_NOGPU);
}

static void missing_nvrtc(void **state)
{
	rt_error err = { 0 };
	int major, minor;
	(void)state;
	nvrtc_reset_for_tests();
	setenv("EVOFORGE_LIBNVRTC", "/nonexistent/libnvrtc.so.13", 1);
	assert_int_equal(nvrtc_open(&err), RT_ERR_NVRTC);
	assert_non_null(strstr(err.msg, "no NVRTC: dlopen /nonexistent/libnvrtc.so.13"));
	assert_int_equal(nvrtc_version(&major, &minor, &err), RT_ERR_NVRTC);
	unsetenv("EVOFORGE_LIBNVRTC");
	nvrtc_reset_for_tests();
	assert_int_equal(nvrtc_open(&err), RT_OK);
}

/* With a GPU (tools/device-check runs the tests there too): the real thing. */
static void smoke_on_gpu_if_present(void **state)
{
	rt_error err = { 0 };
	double max_err = -1, ms = -1;
	(void)state;
	gpu_reset_for_tests();
	unsetenv("EVOFORGE_LIBCUDA");
	rt_status st = smoke_run_gpu(1 << 20, 12345, &max_err, &ms, &err);
	gpu_reset_for_tests();
	setenv("EVOFORGE_LIBCUDA", MISSING_LIBCUDA, 1);
	if (st == RT_ERR_NOGPU) {
		printf("SKIP smoke_on_gpu_if_present: %s\n", err.msg);
		skip();
	}
	if (st != RT_OK)
		fail_msg("%s", err.msg);
	assert_true(max_err >= 0 && max_err <= SMOKE_TOLERANCE);
}
#endif

/* ---- NVRTC ---------------------------------------------------------------- */

static void smoke_compiles_for_sm90(void **state)
{
	rt_error err = { 0 };
	gen_source src;
	nvrtc_output out;
	nvrtc_usage u;
	int major = 0, minor = 0;
	(void)state;
	assert_int_equal(nvrtc_version(&major, &minor, &err), RT_OK);
	assert_true(major >= 12);
	assert_int_equal(smoke_source(&src, &err), RT_OK);
	assert_string_equal(src.name, "smoke.cu");
	/* Self-contained: philox.h and common.h inlined, the banner on top. */
	assert_non_null(strstr(src.text.data, "do not edit"));
	assert_non_null(strstr(src.text.data, "philox4x32_10"));
	assert_non_null(strstr(src.text.data, "evo_smoke"));
	assert_null(strstr(src.text.data, "#include \"philox.h\""));
	rt_status st = nvrtc_compile(src.name, src.text.data, RT_DEFAULT_ARCH, ptxas_v, 2, &out,
				     &err);
	if (st != RT_OK)
		fail_msg("%s", err.msg);
	assert_int_equal(out.from_cache, 0);
	assert_true(out.size > 64);
	assert_memory_equal(out.cubin, "\x7f" "ELF", 4);
	assert_non_null(out.log);
	if (!strstr(out.log, "Compiling entry function 'evo_smoke' for 'sm_90'"))
		fail_msg("no ptxas report for evo_smoke in the log:\n%s", out.log);
	assert_int_equal(nvrtc_parse_usage(out.log, SMOKE_KERNEL, &u, &err), RT_OK);
	assert_true(u.registers > 0 && u.registers <= 255);
	assert_int_equal(u.spill_stores, 0);
	assert_int_equal(u.spill_loads, 0);
	assert_true(u.stack_frame >= 0);
	nvrtc_output_free(&out);
	gen_free(&src);
}

static void syntax_error_reports_name_and_log(void **state)
{
	rt_error err = { 0 };
	nvrtc_output out;
	char path[512];
	(void)state;
	const char *bad = "extern \"C\" __global__ void k(float *y) {\n"
			  "\ty[0] = 1.0f\n"
			  "}\n";
	assert_int_equal(nvrtc_compile("bad-syntax.cu", bad, "sm_90", NULL, 0, &out, &err),
			 RT_ERR_NVRTC);
	assert_int_equal(err.status, RT_ERR_NVRTC);
	assert_null(out.cubin);
	assert_non_null(strstr(err.msg, "bad-syntax.cu"));
	assert_non_null(strstr(err.msg, "bad-syntax.cu(3): error: expected a \";\""));
	assert_non_null(strstr(err.msg, "--gpu-architecture=sm_90 -std=c++17 -default-device"));
	/* The source was kept where the message says. */
	snprintf(path, sizeof path, "%s/failed/bad-syntax.cu", cache_dir);
	assert_non_null(strstr(err.msg, path));
	assert_int_equal(file_size(path), (long)strlen(bad));
	/* A name that is not a plain file name is made one. */
	assert_int_equal(nvrtc_compile("../../x/evil.cu", bad, "sm_90", NULL, 0, &out, &err),
			 RT_ERR_NVRTC);
	snprintf(path, sizeof path, "%s/failed/_._.._x_evil.cu", cache_dir);
	assert_true(file_size(path) > 0);
}

static void bad_arch_is_input_error(void **state)
{
	rt_error err = { 0 };
	nvrtc_output out;
	(void)state;
	assert_int_equal(nvrtc_compile("tiny.cu", tiny_src, "compute_90", NULL, 0, &out, &err),
			 RT_ERR_INPUT);
	assert_non_null(strstr(err.msg, "compute_90"));
}

/* ---- the cache ------------------------------------------------------------ */

static void cache_hits_and_strict_mode(void **state)
{
	rt_error err = { 0 };
	nvrtc_output a, b, c;
	char entries[4][512];
	(void)state;
	assert_int_equal(nvrtc_compile("tiny.cu", tiny_src, "sm_90", ptxas_v, 2, &a, &err), RT_OK);
	assert_int_equal(a.from_cache, 0);
	assert_int_equal(cache_entries(entries, 4), 1);
	assert_int_equal(nvrtc_compile("tiny.cu", tiny_src, "sm_90", ptxas_v, 2, &b, &err), RT_OK);
	assert_int_equal(b.from_cache, 1);
	assert_int_equal(b.size, a.size);
	assert_memory_equal(b.cubin, a.cubin, a.size);
	assert_string_equal(b.log, a.log);   /* the ptxas report survives a hit */
	nvrtc_usage u;
	if (nvrtc_parse_usage(b.log, "tiny", &u, &err) != RT_OK)
		fail_msg("%s; the log:\n%s", err.msg, b.log);
	assert_int_equal(u.spill_stores, 0);
	nvrtc_output_free(&b);

	/* Strict: a hit is fine, a miss (other options) is an error. */
	setenv("EVOFORGE_CACHE_STRICT", "1", 1);
	assert_int_equal(nvrtc_compile("tiny.cu", tiny_src, "sm_90", ptxas_v, 2, &b, &err), RT_OK);
	assert_int_equal(b.from_cache, 1);
	nvrtc_output_free(&b);
	assert_int_equal(nvrtc_compile("tiny.cu", tiny_src, "sm_90", NULL, 0, &b, &err),
			 RT_ERR_INTERNAL);
	assert_non_null(strstr(err.msg, "cache miss for tiny.cu"));
	assert_int_equal(nvrtc_compile("tiny.cu", tiny_src, "sm_80", ptxas_v, 2, &b, &err),
			 RT_ERR_INTERNAL);
	assert_int_equal(nvrtc_compile("tiny.cu", "/* changed */\n", "sm_90", ptxas_v, 2, &b,
				       &err), RT_ERR_INTERNAL);
	/* NO_CACHE wins over strict: compiles, touches nothing. */
	setenv("EVOFORGE_NO_CACHE", "1", 1);
	assert_int_equal(nvrtc_compile("tiny.cu", tiny_src, "sm_90", NULL, 0, &c, &err), RT_OK);
	assert_int_equal(c.from_cache, 0);
	nvrtc_output_free(&c);
	assert_int_equal(nvrtc_compile("tiny.cu", tiny_src, "sm_90", ptxas_v, 2, &c, &err), RT_OK);
	assert_int_equal(c.from_cache, 0);
	nvrtc_output_free(&c);
	assert_int_equal(cache_entries(entries, 4), 1);
	unsetenv("EVOFORGE_NO_CACHE");
	unsetenv("EVOFORGE_CACHE_STRICT");
	nvrtc_output_free(&a);
}

static void corrupt_entry_is_a_miss(void **state)
{
	rt_error err = { 0 };
	nvrtc_output a, b;
	char entries[4][512];
	(void)state;
	assert_int_equal(nvrtc_compile("tiny.cu", tiny_src, "sm_90", NULL, 0, &a, &err), RT_OK);
	assert_int_equal(cache_entries(entries, 4), 1);
	long size = file_size(entries[0]);
	assert_true(size > 100);

	/* One flipped byte in the middle of the cubin. */
	FILE *f = fopen(entries[0], "r+b");
	assert_non_null(f);
	assert_int_equal(fseek(f, size / 2, SEEK_SET), 0);
	int ch = fgetc(f);
	assert_int_equal(fseek(f, size / 2, SEEK_SET), 0);
	fputc(ch ^ 0x40, f);
	fclose(f);
	setenv("EVOFORGE_CACHE_STRICT", "1", 1);
	assert_int_equal(nvrtc_compile("tiny.cu", tiny_src, "sm_90", NULL, 0, &b, &err),
			 RT_ERR_INTERNAL);
	unsetenv("EVOFORGE_CACHE_STRICT");
	assert_int_equal(nvrtc_compile("tiny.cu", tiny_src, "sm_90", NULL, 0, &b, &err), RT_OK);
	assert_int_equal(b.from_cache, 0);   /* recompiled and rewritten */
	assert_memory_equal(b.cubin, a.cubin, a.size);
	nvrtc_output_free(&b);

	/* Cut short. */
	assert_int_equal(truncate(entries[0], size - 10), 0);
	assert_int_equal(nvrtc_compile("tiny.cu", tiny_src, "sm_90", NULL, 0, &b, &err), RT_OK);
	assert_int_equal(b.from_cache, 0);
	nvrtc_output_free(&b);
	assert_int_equal(truncate(entries[0], 5), 0);
	assert_int_equal(nvrtc_compile("tiny.cu", tiny_src, "sm_90", NULL, 0, &b, &err), RT_OK);
	assert_int_equal(b.from_cache, 0);
	nvrtc_output_free(&b);
	/* And after the rewrite, a hit again. */
	assert_int_equal(nvrtc_compile("tiny.cu", tiny_src, "sm_90", NULL, 0, &b, &err), RT_OK);
	assert_int_equal(b.from_cache, 1);
	nvrtc_output_free(&b);
	nvrtc_output_free(&a);
}

static void kcache_roundtrip_and_checks(void **state)
{
	rt_error err = { 0 };
	char dir[512], path[512], other[512];
	void *data;
	size_t size;
	(void)state;
	assert_int_equal(kcache_dir(dir, sizeof dir, &err), RT_OK);
	assert_string_equal(dir, cache_dir);
	assert_int_equal(kcache_get(0x1234, &data, &size), 0);
	assert_int_equal(kcache_put(0x1234, "hello cache", 11, &err), RT_OK);
	assert_int_equal(kcache_get(0x1234, &data, &size), 1);
	assert_int_equal(size, 11);
	assert_memory_equal(data, "hello cache", 11);
	free(data);
	assert_int_equal(kcache_put(0x99, "", 0, &err), RT_OK);
	assert_int_equal(kcache_get(0x99, &data, &size), 1);
	assert_int_equal(size, 0);
	free(data);
	/* An entry under another key's name is not that key's entry. */
	assert_int_equal(kcache_path(0x1234, path, sizeof path, &err), RT_OK);
	assert_int_equal(kcache_path(0x5678, other, sizeof other, &err), RT_OK);
	assert_non_null(strstr(path, "0000000000001234"));
	assert_int_equal(rename(path, other), 0);
	assert_int_equal(kcache_get(0x5678, &data, &size), 0);
	assert_int_equal(kcache_get(0x1234, &data, &size), 0);
	/* Garbage is a miss. */
	FILE *f = fopen(path, "wb");
	assert_non_null(f);
	for (int i = 0; i < 100; i++)
		fputc(i, f);
	fclose(f);
	assert_int_equal(kcache_get(0x1234, &data, &size), 0);
	assert_null(data);

	/* The key changes with each part that decides the output. */
	const char *o1[] = { "-Xptxas", "-v" }, *o2[] = { "-Xptxas -v" }, *o3[] = { "-Xptxas" };
	uint64_t k = kcache_key("src", "sm_90", o1, 2, 13, 0);
	assert_true(k == kcache_key("src", "sm_90", o1, 2, 13, 0));
	assert_true(k != kcache_key("src ", "sm_90", o1, 2, 13, 0));
	assert_true(k != kcache_key("src", "sm_80", o1, 2, 13, 0));
	assert_true(k != kcache_key("src", "sm_90", o2, 1, 13, 0));
	assert_true(k != kcache_key("src", "sm_90", o3, 1, 13, 0));
	assert_true(k != kcache_key("src", "sm_90", o1, 2, 13, 1));
	assert_true(k != kcache_key("src", "sm_90", o1, 2, 12, 0));
	/* FNV-1a 64 reference values ("" and "a"). */
	assert_true(kcache_fnv1a(KCACHE_FNV_OFFSET, "", 0) == 0xcbf29ce484222325ULL);
	assert_true(kcache_fnv1a(KCACHE_FNV_OFFSET, "a", 1) == 0xaf63dc4c8601ec8cULL);
}

static void cache_folder_from_environment(void **state)
{
	rt_error err = { 0 };
	char dir[512], want[512];
	char *saved_home = getenv("HOME") ? strdup(getenv("HOME")) : NULL;
	char *saved_xdg = getenv("XDG_CACHE_HOME") ? strdup(getenv("XDG_CACHE_HOME")) : NULL;
	(void)state;
	unsetenv("EVOFORGE_CACHE");
	snprintf(want, sizeof want, "%s/xdg", cache_dir);
	setenv("XDG_CACHE_HOME", want, 1);
	assert_int_equal(kcache_dir(dir, sizeof dir, &err), RT_OK);
	snprintf(want, sizeof want, "%s/xdg/evoforge", cache_dir);
	assert_string_equal(dir, want);
	assert_int_equal(file_size(want) >= 0, 1);   /* created, with its parents */
	unsetenv("XDG_CACHE_HOME");
	snprintf(want, sizeof want, "%s/home", cache_dir);
	setenv("HOME", want, 1);
	assert_int_equal(kcache_dir(dir, sizeof dir, &err), RT_OK);
	snprintf(want, sizeof want, "%s/home/.cache/evoforge", cache_dir);
	assert_string_equal(dir, want);
	unsetenv("HOME");
	assert_int_equal(kcache_dir(dir, sizeof dir, &err), RT_ERR_SYSTEM);
	assert_non_null(strstr(err.msg, "EVOFORGE_CACHE"));
	if (saved_home)
		setenv("HOME", saved_home, 1);
	if (saved_xdg)
		setenv("XDG_CACHE_HOME", saved_xdg, 1);
	free(saved_home);
	free(saved_xdg);
	setenv("EVOFORGE_CACHE", cache_dir, 1);
}

/* ---- ptxas -v ------------------------------------------------------------- */

static void parse_usage_reads_ptxas(void **state)
{
	rt_error err = { 0 };
	nvrtc_usage u;
	(void)state;
	/* Shaped like CUDA 13's output, with a called device function and a
	 * kernel whose name is a prefix of another's. */
	const char *log =
		"ptxas info    : 24 bytes gmem\n"
		"ptxas info    : Function properties for _Z6helperf\n"
		"ptxas         .     48 bytes stack frame, 8 bytes spill stores, 4 bytes spill loads\n"
		"ptxas info    : Compiling entry function 'evo' for 'sm_90'\n"
		"ptxas info    : Function properties for evo\n"
		"ptxas         .     0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads\n"
		"ptxas info    : Used 10 registers, used 1 barriers, 1024 bytes smem\n"
		"ptxas info    : Compile time = 11.306 ms\n"
		"ptxas info    : Compiling entry function 'evo_big' for 'sm_90'\n"
		"ptxas info    : Function properties for evo_big\n"
		"ptxas         .     96 bytes stack frame, 120 bytes spill stores, 64 bytes spill loads\n"
		"ptxas info    : Used 255 registers, used 0 barriers, 400 bytes cmem[0]\n"
		"ptxas info    : Compile time = 13.223 ms\n";
	assert_int_equal(nvrtc_parse_usage(log, "evo", &u, &err), RT_OK);
	assert_int_equal(u.registers, 10);
	assert_int_equal(u.stack_frame, 0);
	assert_int_equal(u.spill_stores, 0);
	assert_int_equal(u.spill_loads, 0);
	assert_int_equal(nvrtc_parse_usage(log, "evo_big", &u, &err), RT_OK);
	assert_int_equal(u.registers, 255);
	assert_int_equal(u.stack_frame, 96);
	assert_int_equal(u.spill_stores, 120);
	assert_int_equal(u.spill_loads, 64);
	/* Absent kernel: an error, every field -1. */
	assert_int_equal(nvrtc_parse_usage(log, "ev", &u, &err), RT_ERR_INPUT);
	assert_int_equal(u.registers, -1);
	assert_int_equal(u.spill_stores, -1);
	assert_non_null(strstr(err.msg, "'ev'"));
	assert_int_equal(nvrtc_parse_usage("", "evo", &u, &err), RT_ERR_INPUT);
	/* Older ptxas (no properties line, no final newline): registers only. */
	assert_int_equal(nvrtc_parse_usage("ptxas info    : Compiling entry function 'k' for "
					   "'sm_80'\nptxas info    : Used 32 registers, 356 bytes "
					   "cmem[0]", "k", &u, &err), RT_OK);
	assert_int_equal(u.registers, 32);
	assert_int_equal(u.spill_stores, -1);
	assert_int_equal(u.stack_frame, -1);
}

/* ---- the smoke formula on the CPU ----------------------------------------- */

static void smoke_cpu_matches_rng(void **state)
{
	rt_error err = { 0 };
	enum { N = 1000 };
	float y[N];
	double ms = -1;
	(void)state;
	assert_int_equal(smoke_run_cpu(N, 42, y, &ms, &err), RT_OK);
	assert_true(ms >= 0);
	/* Element i uses the first draw of Philox block i of stream SMOKE_STREAM,
	 * i.e. draw 4i of the host stream: recompute a few through rng.h. */
	for (int i = 0; i < N; i += 97) {
		rt_rng rng;
		float u;
		rt_rng_init(&rng, 42, SMOKE_STREAM);
		for (int k = 0; k < 4 * i; k++)
			rt_rng_u32(&rng);
		u = rt_rng_uniform(&rng);
		float x = smoke_input(i);
		assert_true(x >= -4.0f && x <= 4.0f);
		float want = 0.5f * x * x + sinf(x) - u;
		assert_true(fabsf(y[i] - want) <= 1e-6f * (1.0f + fabsf(want)));
	}
	assert_int_equal(smoke_run_cpu(0, 42, y, NULL, &err), RT_ERR_INPUT);
	/* Another seed, other numbers. */
	float z[N];
	assert_int_equal(smoke_run_cpu(N, 43, z, NULL, &err), RT_OK);
	assert_memory_not_equal(y, z, sizeof y);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		/* First: gpu_open keeps its first result (no reset outside RT_TESTS). */
		cmocka_unit_test(no_driver_is_nogpu),
		cmocka_unit_test(backend_falls_back_to_cpu),
#ifdef RT_TESTS
		cmocka_unit_test(stub_driver_is_nogpu),
		cmocka_unit_test(missing_nvrtc),
#endif
		cmocka_unit_test_setup_teardown(smoke_compiles_for_sm90, fresh_cache, drop_cache),
		cmocka_unit_test_setup_teardown(syntax_error_reports_name_and_log, fresh_cache,
						drop_cache),
		cmocka_unit_test(bad_arch_is_input_error),
		cmocka_unit_test_setup_teardown(cache_hits_and_strict_mode, fresh_cache, drop_cache),
		cmocka_unit_test_setup_teardown(corrupt_entry_is_a_miss, fresh_cache, drop_cache),
		cmocka_unit_test_setup_teardown(kcache_roundtrip_and_checks, fresh_cache, drop_cache),
		cmocka_unit_test_setup_teardown(cache_folder_from_environment, fresh_cache,
						drop_cache),
		cmocka_unit_test(parse_usage_reads_ptxas),
		cmocka_unit_test(smoke_cpu_matches_rng),
#ifdef RT_TESTS
		cmocka_unit_test_setup_teardown(smoke_on_gpu_if_present, fresh_cache, drop_cache),
#endif
	};
	return cmocka_run_group_tests_name("gpu", tests, NULL, NULL);
}
