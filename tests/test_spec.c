/* test_spec.c: spec parsing, typed getters and their error messages, and
 * where a spec's data files are looked for. */
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

#include "spec.h"

static const char good[] =
	"; a comment\n"
	"[problem]\n"
	"kind = gp\n"
	"name = sextic   ; inline comment\n"
	"\n"
	"[gp]\n"
	"population = 500\n"
	"crossover = 0.9\n"
	"elitism = yes\n"
	"functions = + - * /\n"
	"code = float s = 0;\n"
	"  return s;\n";

static void parses_values(void **state)
{
	rt_spec s;
	rt_error err;
	long pop;
	double cx;
	int el;
	const char *fn, *code;
	(void)state;
	assert_int_equal(rt_spec_load_text(&s, "good.ini", good, &err), RT_OK);
	assert_int_equal(rt_spec_int(&s, "gp", "population", 1000, 1, 1000000, &pop, &err), RT_OK);
	assert_int_equal(pop, 500);
	assert_int_equal(rt_spec_double(&s, "gp", "crossover", 0.95, 0, 1, &cx, &err), RT_OK);
	assert_true(cx == 0.9);
	assert_int_equal(rt_spec_bool(&s, "gp", "elitism", 0, &el, &err), RT_OK);
	assert_int_equal(el, 1);
	assert_int_equal(rt_spec_string(&s, "gp", "functions", NULL, &fn, &err), RT_OK);
	assert_string_equal(fn, "+ - * /");
	assert_int_equal(rt_spec_string(&s, "gp", "code", NULL, &code, &err), RT_OK);
	assert_string_equal(code, "float s = 0;\nreturn s;");
	assert_int_equal(rt_spec_int(&s, "gp", "generations", 50, 1, 100, &pop, &err), RT_OK);
	assert_int_equal(pop, 50);   /* default */
	assert_int_equal(rt_spec_string(&s, "problem", "kind", NULL, &fn, &err), RT_OK);
	assert_int_equal(rt_spec_string(&s, "problem", "name", NULL, &fn, &err), RT_OK);
	assert_string_equal(fn, "sextic");
	assert_int_equal(rt_spec_check_unused(&s, &err), RT_OK);
	rt_spec_free(&s);
}

/* Loads text, runs one getter, expects RT_ERR_INPUT and `needle` in the message. */
static void expect_error_text(const char *text, const char *needle)
{
	rt_spec s;
	rt_error err;
	rt_status st = rt_spec_load_text(&s, "bad.ini", text, &err);
	if (st == RT_OK) {
		long v;
		st = rt_spec_int(&s, "gp", "population", 1000, 2, 100000, &v, &err);
		if (st == RT_OK)
			st = rt_spec_check_unused(&s, &err);
		rt_spec_free(&s);
	}
	assert_int_equal(st, RT_ERR_INPUT);
	if (!strstr(err.msg, needle))
		fail_msg("message '%s' lacks '%s'", err.msg, needle);
}

static void reports_errors_with_lines(void **state)
{
	(void)state;
	expect_error_text("[gp]\npopulation = lots\n",
			  "bad.ini:2: [gp] population: expected an integer in [2, 100000], got 'lots'");
	expect_error_text("[gp]\npopulation = 1\n", "bad.ini:2:");
	expect_error_text("[gp]\n\npopulation = 10\npopulaton = 20\n",
			  "bad.ini:4: unknown key 'populaton' in section [gp]");
	expect_error_text("[gp]\npopulation = 10\n[gpp]\nx = 1\n", "bad.ini:4: unknown section [gpp]");
	expect_error_text("[gp]\npopulation 10\n", "bad.ini:2: syntax error");
	expect_error_text("[gp\npopulation = 10\n", "bad.ini:1: syntax error");
	expect_error_text("[gp]\npopulation = 10\npopulation = 20\n",
			  "bad.ini:3: [gp] population is set twice (first at line 2)");
	expect_error_text("x = 1\n", "bad.ini:1: 'x' is outside any section");
}

static void reports_long_lines(void **state)
{
	char text[1024];
	rt_spec s;
	rt_error err;
	(void)state;
	snprintf(text, sizeof text, "[gp]\nfunctions = %0400d\n", 0);
	assert_int_equal(rt_spec_load_text(&s, "long.ini", text, &err), RT_ERR_INPUT);
	assert_non_null(strstr(err.msg, "long.ini:2: line too long"));
}

static void enums_and_lists(void **state)
{
	static const char *const names[] = {"rand1", "best1", NULL};
	rt_spec s;
	rt_error err;
	int which;
	double v[4];
	int n = 4;
	(void)state;
	assert_int_equal(rt_spec_load_text(&s, "e.ini",
					   "[de]\nstrategy = best1\nshift = 1, 2.5 -3\nbad = worst\n",
					   &err), RT_OK);
	assert_int_equal(rt_spec_enum(&s, "de", "strategy", names, 0, &which, &err), RT_OK);
	assert_int_equal(which, 1);
	assert_int_equal(rt_spec_doubles(&s, "de", "shift", v, &n, &err), RT_OK);
	assert_int_equal(n, 3);
	assert_true(v[0] == 1 && v[1] == 2.5 && v[2] == -3);
	assert_int_equal(rt_spec_enum(&s, "de", "bad", names, 0, &which, &err), RT_ERR_INPUT);
	assert_non_null(strstr(err.msg, "e.ini:4: [de] bad: expected one of rand1, best1, got 'worst'"));
	rt_spec_free(&s);
}

static void overrides_from_command_line(void **state)
{
	rt_spec s;
	rt_error err;
	long pop;
	(void)state;
	assert_int_equal(rt_spec_load_text(&s, "o.ini", "[gp]\npopulation = 10\n", &err), RT_OK);
	assert_int_equal(rt_spec_set_assignment(&s, "gp.population=77", &err), RT_OK);
	assert_int_equal(rt_spec_int(&s, "gp", "population", 1, 1, 100, &pop, &err), RT_OK);
	assert_int_equal(pop, 77);
	assert_int_equal(rt_spec_set_assignment(&s, "gp.generations=x", &err), RT_OK);
	assert_int_equal(rt_spec_int(&s, "gp", "generations", 1, 1, 100, &pop, &err), RT_ERR_INPUT);
	assert_non_null(strstr(err.msg, "command line (--set gp.generations)"));
	assert_int_equal(rt_spec_set_assignment(&s, "nodot=3", &err), RT_ERR_INPUT);
	rt_spec_free(&s);
}

static void missing_file_and_required_key(void **state)
{
	rt_spec s;
	rt_error err;
	const char *v;
	(void)state;
	assert_int_equal(rt_spec_load(&s, "/nonexistent/x.ini", &err), RT_ERR_INPUT);
	assert_non_null(strstr(err.msg, "/nonexistent/x.ini: cannot open spec"));
	assert_int_equal(rt_spec_load_text(&s, "r.ini", "[problem]\nname = a\n", &err), RT_OK);
	assert_int_equal(rt_spec_string(&s, "problem", "kind", NULL, &v, &err), RT_ERR_INPUT);
	assert_non_null(strstr(err.msg, "missing required key 'kind' in section [problem]"));
	rt_spec_free(&s);
}

static void file_on_disk_and_data_paths(void **state)
{
	char dir[] = "/tmp/evoforge-spec-XXXXXX", path[512], found[512];
	FILE *f;
	rt_spec s;
	rt_error err;
	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof path, "%s/p.ini", dir);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs("[problem]\nkind = gp\n", f);
	fclose(f);
	assert_int_equal(rt_spec_load(&s, path, &err), RT_OK);
	assert_string_equal(s.dir, dir);
	assert_int_equal(rt_spec_data_path(&s, "p.ini", found, sizeof found, &err), RT_OK);
	assert_string_equal(found, path);
	assert_int_equal(rt_spec_data_path(&s, "nope.csv", found, sizeof found, &err), RT_ERR_INPUT);
	assert_non_null(strstr(err.msg, "data file 'nope.csv' not found"));
	assert_non_null(strstr(err.msg, "EVOFORGE_DATA"));
	rt_spec_free(&s);
	unlink(path);
	rmdir(dir);
}

/* The lookup order: $EVOFORGE_DATA before the repository's data/ (found from
 * the current folder, the repository root, for a spec elsewhere), then
 * ../shared/data, which EVOFORGE_NO_SHARED_DATA=1 leaves out. */
static void data_path_order_and_no_shared(void **state)
{
	char dir[] = "/tmp/evoforge-spec-XXXXXX", path[512], found[512];
	char *old = getenv("EVOFORGE_DATA"), *old_no = getenv("EVOFORGE_NO_SHARED_DATA");
	rt_spec s;
	rt_error err;
	FILE *f;
	(void)state;
	old = old ? strdup(old) : NULL;   /* setenv and unsetenv may drop the originals */
	old_no = old_no ? strdup(old_no) : NULL;
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof path, "%s/uci", dir);
	assert_int_equal(mkdir(path, 0700), 0);
	snprintf(path, sizeof path, "%s/uci/sonar.csv", dir);
	assert_non_null(f = fopen(path, "w"));
	fclose(f);
	assert_int_equal(rt_spec_load_text(&s, "/tmp/elsewhere/p.ini", "[problem]\nkind = gp\n",
					   &err), RT_OK);
	unsetenv("EVOFORGE_DATA");
	unsetenv("EVOFORGE_NO_SHARED_DATA");
	assert_int_equal(rt_spec_data_path(&s, "uci/sonar.csv", found, sizeof found, &err), RT_OK);
	assert_string_equal(found, "data/uci/sonar.csv");
	setenv("EVOFORGE_DATA", dir, 1);
	assert_int_equal(rt_spec_data_path(&s, "uci/sonar.csv", found, sizeof found, &err), RT_OK);
	assert_string_equal(found, path);
	unsetenv("EVOFORGE_DATA");
	assert_int_equal(rt_spec_data_path(&s, "tsp/none.tsp", found, sizeof found, &err),
			 RT_ERR_INPUT);
	assert_non_null(strstr(err.msg, "\n  data/tsp/none.tsp"));
	assert_non_null(strstr(err.msg, "\n  ../shared/data/tsp/none.tsp"));
	assert_non_null(strstr(err.msg, "not shipped"));
	setenv("EVOFORGE_NO_SHARED_DATA", "1", 1);
	assert_int_equal(rt_spec_data_path(&s, "tsp/none.tsp", found, sizeof found, &err),
			 RT_ERR_INPUT);
	assert_null(strstr(err.msg, "\n  ../shared/data/"));
	assert_non_null(strstr(err.msg, "EVOFORGE_NO_SHARED_DATA is set"));
	assert_non_null(strstr(err.msg, "set EVOFORGE_DATA"));
	if (old_no)
		setenv("EVOFORGE_NO_SHARED_DATA", old_no, 1);
	else
		unsetenv("EVOFORGE_NO_SHARED_DATA");
	if (old)
		setenv("EVOFORGE_DATA", old, 1);
	free(old);
	free(old_no);
	rt_spec_free(&s);
	unlink(path);
	snprintf(path, sizeof path, "%s/uci", dir);
	rmdir(path);
	rmdir(dir);
}

#ifdef RT_TESTS
static void allocation_failure_is_reported(void **state)
{
	rt_spec s;
	rt_error err;
	(void)state;
	for (long n = 0; n < 6; n++) {
		rt_alloc_fail_after(n);
		rt_status st = rt_spec_load_text(&s, "a.ini", good, &err);
		rt_alloc_fail_after(-1);
		if (st == RT_OK)
			rt_spec_free(&s);
		else
			assert_int_equal(st, RT_ERR_SYSTEM);
	}
}
#endif

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(parses_values),
		cmocka_unit_test(reports_errors_with_lines),
		cmocka_unit_test(reports_long_lines),
		cmocka_unit_test(enums_and_lists),
		cmocka_unit_test(overrides_from_command_line),
		cmocka_unit_test(missing_file_and_required_key),
		cmocka_unit_test(file_on_disk_and_data_paths),
		cmocka_unit_test(data_path_order_and_no_shared),
#ifdef RT_TESTS
		cmocka_unit_test(allocation_failure_is_reported),
#endif
	};
	return cmocka_run_group_tests_name("spec", tests, NULL, NULL);
}
