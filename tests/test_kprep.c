/* test_kprep.c: compiling a run's kernels before its first step
 * (runtime/kprep.h) with real NVRTC for sm_90, no GPU needed: a pool's
 * results reach the run's own nvrtc_compile as copies (no second compile),
 * a listed kernel the run needs first is made by the run itself, a failed
 * compile reports the same error to the run, several processes compiling
 * one key make it once (kcache_lock), a lock left by a dead process is
 * taken over, and the start-up figures of result.json. */
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "kcache.h"
#include "kprep.h"
#include "nvrtc.h"
#include "out.h"
#include "test_tmp.h"

static const char *const ptxas_v[] = { "-Xptxas", "-v" };
static int cache_no;

/* A kernel whose source differs by tag (so each test compiles afresh). */
static void kernel_source(char *buf, size_t size, const char *tag)
{
	snprintf(buf, size, "/* %s */\nextern \"C\" __global__ void k(float *x, int n)\n{\n"
		 "\tint i = blockIdx.x * blockDim.x + threadIdx.x;\n"
		 "\tif (i < n)\n\t\tx[i] = x[i] * 2.0f + 1.0f;\n}\n", tag);
}

/* A new, empty cache folder; nothing prepared. */
static int fresh(void **state)
{
	char dir[300];
	(void)state;
	snprintf(dir, sizeof dir, "%s/cache%d", tmpdir, ++cache_no);
	setenv("EVOFORGE_CACHE", dir, 1);
	unsetenv("EVOFORGE_NO_CACHE");
	unsetenv("EVOFORGE_CACHE_STRICT");
	nvrtc_prepared_clear();
	return 0;
}

static void pool_results_reach_the_run(void **state)
{
	char a[512], b[512];
	nvrtc_stats s0, s1, s2;
	nvrtc_output out, plain;
	rt_kprep *p;
	rt_error err = {0};
	(void)state;
	kernel_source(a, sizeof a, "pool a");
	kernel_source(b, sizeof b, "pool b");
	nvrtc_stats_get(&s0);
	assert_int_equal(rt_kprep_open("sm_90", 2, &p, &err), RT_OK);
	assert_int_equal(rt_kprep_add(p, "a.cu", a, ptxas_v, 2, &err), RT_OK);
	assert_int_equal(rt_kprep_add(p, "b.cu", b, ptxas_v, 2, &err), RT_OK);
	assert_int_equal(rt_kprep_add(p, "a.cu", a, ptxas_v, 2, &err), RT_OK);   /* listed once */
	assert_int_equal(rt_kprep_finish(p, &err), RT_OK);
	nvrtc_stats_get(&s1);
	assert_int_equal(s1.compiled - s0.compiled, 2);
	assert_true(s1.compile_s > s0.compile_s);
	/* the run's compile: a copy, nothing compiled */
	assert_int_equal(nvrtc_compile("a.cu", a, "sm_90", ptxas_v, 2, &out, &err), RT_OK);
	nvrtc_stats_get(&s2);
	assert_int_equal(s2.compiled, s1.compiled);
	assert_int_equal(s2.from_memory - s1.from_memory, 1);
	assert_non_null(strstr(out.log, "Used"));   /* the ptxas report came along */
	/* the same cubin a plain compile makes */
	setenv("EVOFORGE_NO_CACHE", "1", 1);
	nvrtc_prepared_clear();
	assert_int_equal(nvrtc_compile("a.cu", a, "sm_90", ptxas_v, 2, &plain, &err), RT_OK);
	assert_int_equal(out.size, plain.size);
	assert_memory_equal(out.cubin, plain.cubin, out.size);
	nvrtc_output_free(&out);
	nvrtc_output_free(&plain);
}

static void the_run_makes_a_listed_kernel_it_needs_first(void **state)
{
	char c[512];
	nvrtc_stats s0, s1, s2;
	nvrtc_output out;
	rt_error err = {0};
	(void)state;
	kernel_source(c, sizeof c, "listed c");
	nvrtc_stats_get(&s0);
	assert_int_equal(nvrtc_reserve("c.cu", c, "sm_90", NULL, 0), 1);
	assert_int_equal(nvrtc_reserve("c.cu", c, "sm_90", NULL, 0), 0);
	assert_int_equal(nvrtc_reserve("c.cu", c, "sm_80", NULL, 0), 1);   /* another key */
	assert_int_equal(nvrtc_reserve("c.cu", c, "compute_90", NULL, 0), 0);   /* not ours */
	assert_int_equal(nvrtc_compile("c.cu", c, "sm_90", NULL, 0, &out, &err), RT_OK);
	nvrtc_output_free(&out);
	nvrtc_stats_get(&s1);
	assert_int_equal(s1.compiled - s0.compiled, 1);
	/* a pool thread coming to it later finds it made */
	assert_int_equal(nvrtc_prepare("c.cu", c, "sm_90", NULL, 0, &err), RT_OK);
	nvrtc_stats_get(&s2);
	assert_int_equal(s2.compiled, s1.compiled);
}

static void a_failed_compile_reaches_the_run(void **state)
{
	const char *bad = "extern \"C\" __global__ void k(float *x) { x[0] = undeclared_name; }\n";
	nvrtc_stats s0, s1;
	nvrtc_output out;
	rt_kprep *p;
	rt_error err = {0}, err2 = {0};
	(void)state;
	nvrtc_stats_get(&s0);
	assert_int_equal(rt_kprep_open("sm_90", 0, &p, &err), RT_OK);
	assert_int_equal(rt_kprep_add(p, "bad.cu", bad, NULL, 0, &err), RT_OK);
	assert_int_equal(rt_kprep_finish(p, &err), RT_ERR_NVRTC);
	assert_non_null(strstr(err.msg, "undeclared_name"));
	assert_int_equal(nvrtc_compile("bad.cu", bad, "sm_90", NULL, 0, &out, &err2), RT_ERR_NVRTC);
	assert_string_equal(err.msg, err2.msg);
	nvrtc_stats_get(&s1);
	assert_int_equal(s1.compiled - s0.compiled, 1);
}

/* Child: compiles src once, exits with the number of NVRTC runs it made. */
static void child_compiles(const char *src, int before)
{
	nvrtc_output out;
	nvrtc_stats s;
	rt_error err;
	if (nvrtc_compile("shared.cu", src, "sm_90", ptxas_v, 2, &out, &err) != RT_OK)
		_exit(100);
	nvrtc_stats_get(&s);
	_exit(s.compiled - before);
}

static void processes_compile_a_key_once(void **state)
{
	enum { N = 4 };
	char src[512];
	pid_t pid[N];
	int total = 0;
	rt_error err = {0};
	nvrtc_output out;
	(void)state;
	kernel_source(src, sizeof src, "shared between processes");
	/* NVRTC opened before fork, so the children start compiling together */
	assert_int_equal(nvrtc_compile("warm.cu", "__global__ void w() {}\n", "sm_90", NULL, 0, &out,
				       &err), RT_OK);
	nvrtc_output_free(&out);
	nvrtc_stats s;
	nvrtc_stats_get(&s);   /* the children inherit the counts */
	for (int i = 0; i < N; i++) {
		pid[i] = fork();
		assert_true(pid[i] >= 0);
		if (pid[i] == 0)
			child_compiles(src, s.compiled);
	}
	for (int i = 0; i < N; i++) {
		int status;
		assert_int_equal(waitpid(pid[i], &status, 0), pid[i]);
		assert_true(WIFEXITED(status));
		assert_true(WEXITSTATUS(status) <= 1);
		total += WEXITSTATUS(status);
	}
	assert_int_equal(total, 1);
}

static void a_dead_processes_lock_is_taken_over(void **state)
{
	char src[512], path[RT_PATH_MAX], lock[RT_PATH_MAX + 8], host[64] = "";
	nvrtc_output out;
	nvrtc_stats s0, s1;
	rt_error err = {0};
	struct stat sb;
	(void)state;
	kernel_source(src, sizeof src, "locked by the dead");
	/* a process that has exited: its pid names no process */
	pid_t dead = fork();
	if (dead == 0)
		_exit(0);
	waitpid(dead, NULL, 0);
	gethostname(host, sizeof host - 1);
	/* the entry's path (its key is nvrtc.c's): compile once, take the newest
	 * entry, remove it and leave the dead process's lock in its place */
	assert_int_equal(nvrtc_compile("dead.cu", src, "sm_90", NULL, 0, &out, &err), RT_OK);
	nvrtc_output_free(&out);
	FILE *ls = popen("ls -t \"$EVOFORGE_CACHE\"/*.kc | head -1", "r");
	assert_non_null(ls);
	assert_non_null(fgets(path, sizeof path, ls));
	pclose(ls);
	path[strcspn(path, "\n")] = '\0';
	assert_int_equal(unlink(path), 0);
	snprintf(lock, sizeof lock, "%s.lock", path);
	FILE *f = fopen(lock, "w");
	assert_non_null(f);
	fprintf(f, "%ld %s\n", (long)dead, host);
	fclose(f);
	nvrtc_stats_get(&s0);
	double t0 = rt_now();
	assert_int_equal(nvrtc_compile("dead.cu", src, "sm_90", NULL, 0, &out, &err), RT_OK);
	nvrtc_output_free(&out);
	nvrtc_stats_get(&s1);
	assert_true(rt_now() - t0 < 30);   /* not KCACHE_LOCK_WAIT_S */
	assert_int_equal(s1.compiled - s0.compiled, 1);
	assert_int_equal(stat(path, &sb), 0);       /* written again */
	assert_int_not_equal(stat(lock, &sb), 0);   /* and the lock gone */
}

static void startup_figures(void **state)
{
	rt_json j;
	(void)state;
	memset(&j, 0, sizeof j);
	rt_startup_begin();
	rt_run_begins("test");
	rt_run_ends();
	rt_json_begin_object(&j, NULL);
	rt_startup_json(&j);
	rt_json_end_object(&j);
	assert_false(j.buf.failed);
	assert_non_null(strstr(j.buf.data, "\"startup_s\""));
	assert_non_null(strstr(j.buf.data, "\"compile_s\": 0"));
	assert_non_null(strstr(j.buf.data, "\"compiles\": 0"));
	assert_non_null(strstr(j.buf.data, "\"compiles_in_run\": 0"));
	rt_buf_free(&j.buf);
}

static int group_setup(void **state)
{
	(void)state;
	return tmp_setup("kprep");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(pool_results_reach_the_run, fresh),
		cmocka_unit_test_setup(the_run_makes_a_listed_kernel_it_needs_first, fresh),
		cmocka_unit_test_setup(a_failed_compile_reaches_the_run, fresh),
		cmocka_unit_test_setup(processes_compile_a_key_once, fresh),
		cmocka_unit_test_setup(a_dead_processes_lock_is_taken_over, fresh),
		cmocka_unit_test_setup(startup_figures, fresh),
	};
	return cmocka_run_group_tests(tests, group_setup, tmp_teardown);
}
