/* gp_export_driver.c: device-machine check of GP eval and export on the GPU
 * (not a unit test; no cmocka). For each case (sextic, Shuttle when its CSV
 * is found, the 11- and 20-multiplexer truth tables, and random programs over
 * every float and Boolean operation on inputs that hit every protected form)
 * it writes a result.json and a CSV, then compares byte for byte:
 *   evoforge eval --backend cpu   (the runtime's CPU interpreter)
 *   evoforge eval --backend gpu   (the fixed-function kernel, gp_eval_gpu.c)
 *   NAME-eval --backend cpu / gpu (the exported folder, built with cc)
 * Predictions print with %.9g (each float exactly), so equal files mean
 * equal bits. Prints a markdown table; exit status 1 on any difference or a
 * GPU failure. Usage: gp_export_driver [SHUTTLE.csv] (default the shipped
 * data/uci/shuttle.csv). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "export.h"
#include "gp/gp_conv.h"
#include "gp/gp_tree.h"
#include "log.h"
#include "out.h"
#include "rng.h"

static char dir[256];
static int failures;

/* Contents of a file ("" when missing); caller frees. */
static char *slurp(const char *path, size_t *n)
{
	char *text = NULL;
	*n = 0;
	if (rt_read_file(path, &text, n, NULL) != RT_OK)
		return calloc(1, 1);
	return text;
}

static int same_file(const char *a, const char *b)
{
	size_t na, nb;
	char *ta = slurp(a, &na), *tb = slurp(b, &nb);
	int same = na > 0 && na == nb && !memcmp(ta, tb, na);
	free(ta);
	free(tb);
	return same;
}

/* One case: result.json made of prefix and the data block; eval and
 * NAME-eval on csv, CPU and GPU; one table row. */
static void check(const char *name, const char *prefix, const char *datajson, const char *csv,
		  long rows)
{
	char res[512], out[4][512], cmd[2048];
	rt_buf b = {0};
	rt_options opt;
	rt_error err;
	int ok[4] = {0, 0, 0, 0}, same;
	memset(&opt, 0, sizeof opt);
	rt_buf_printf(&b, "{\"kind\": \"gp\", \"problem\": \"%s\", \"best\": {\"prefix\": \"%s\", "
		      "\"fitness\": 0, \"generation\": 0}, \"data\": %s}\n", name, prefix, datajson);
	snprintf(res, sizeof res, "%s/%s.json", dir, name);
	if (rt_write_file_atomic(res, b.data, b.len, &err) != RT_OK) {
		fprintf(stderr, "%s\n", err.msg);
		exit(1);
	}
	rt_buf_free(&b);
	for (int i = 0; i < 4; i++)
		snprintf(out[i], sizeof out[i], "%s/%s-%d.csv", dir, name, i);
	opt.backend = RT_BACKEND_CPU;
	ok[0] = rt_eval(res, csv, out[0], &opt, &err) == RT_OK;
	if (!ok[0])
		fprintf(stderr, "%s: eval cpu: %s\n", name, err.msg);
	opt.backend = RT_BACKEND_GPU;
	ok[1] = rt_eval(res, csv, out[1], &opt, &err) == RT_OK;
	if (!ok[1])
		fprintf(stderr, "%s: eval gpu: %s\n", name, err.msg);
	snprintf(cmd, sizeof cmd, "%s/%s-x", dir, name);
	if (rt_export(res, &opt, cmd, &err) != RT_OK) {
		fprintf(stderr, "%s: export: %s\n", name, err.msg);
	} else {
		snprintf(cmd, sizeof cmd, "%s/%s-x/%s-eval --backend cpu %s -o %s", dir, name, name, csv,
			 out[2]);
		ok[2] = system(cmd) == 0;
		snprintf(cmd, sizeof cmd, "%s/%s-x/%s-eval --backend gpu %s -o %s", dir, name, name, csv,
			 out[3]);
		ok[3] = system(cmd) == 0;
	}
	same = ok[0] && ok[1] && ok[2] && ok[3] && same_file(out[0], out[1]) &&
	       same_file(out[0], out[2]) && same_file(out[0], out[3]);
	printf("| %-14s | %8ld | %s | %s | %s | %s | %s |\n", name, rows, ok[0] ? "ok" : "FAIL",
	       ok[1] ? "ok" : "FAIL", ok[2] ? "ok" : "FAIL", ok[3] ? "ok" : "FAIL",
	       same ? "equal" : "DIFFER");
	failures += !same;
}

/* A prefix of a random tree over fs (depth 2..6). */
static void random_prefix(rt_buf *pre, const gp_fset *fs, int depth, rt_rng *rng)
{
	gp_tree t = {0};
	rt_error err;
	if (gp_tree_random(&t, fs, depth, depth & 1, rng, &err) != RT_OK) {
		fprintf(stderr, "%s\n", err.msg);
		exit(1);
	}
	gp_print_prefix(pre, t.nodes, t.n);
	gp_tree_free(&t);
}

/* Multiplexer truth table with k address bits: a0.., d0.., y. */
static long mux_csv(const char *path, int k, rt_buf *names)
{
	int n = k + (1 << k);
	FILE *f = fopen(path, "w");
	if (!f)
		exit(1);
	for (int i = 0; i < n; i++) {
		fprintf(f, i < k ? "a%d," : "d%d,", i < k ? i : i - k);
		rt_buf_printf(names, "%s\"%c%d\"", i ? ", " : "", i < k ? 'a' : 'd', i < k ? i : i - k);
	}
	fprintf(f, "y\n");
	for (long cs = 0; cs < (1L << n); cs++) {
		for (int i = 0; i < n; i++)
			fprintf(f, "%ld,", (cs >> i) & 1);
		fprintf(f, "%ld\n", (cs >> (k + (cs & ((1L << k) - 1)))) & 1);
	}
	fclose(f);
	return 1L << n;
}

/* Float cases over inputs a, b, c hitting every protected form. */
static void special_csv(const char *path, rt_rng *rng)
{
	static const float special[] = {0.0f, -0.0f, 1e-7f, -1e-7f, 1.0f, -1.0f, 40000.0f,
					-1e6f, 3e7f, 88.7f, -104.0f, 1e30f, 1e-40f};
	FILE *f = fopen(path, "w");
	if (!f)
		exit(1);
	fprintf(f, "a,b,c\n");
	for (long i = 0; i < 100000; i++)
		for (int k = 0; k < 3; k++) {
			float v = (i + k) % 5 == 0 ? special[(i / 5 + k) % 13]
						   : (rt_rng_uniform(rng) - 0.5f) * (k == 2 ? 2e5f : 20.0f);
			fprintf(f, "%.9g%c", (double)v, k == 2 ? '\n' : ',');
		}
	fclose(f);
}

static void float_cases(rt_rng *rng)
{
	char csv[400], name[32];
	rt_error err;
	gp_fset fs;
	FILE *f;
	snprintf(csv, sizeof csv, "%s/sextic.csv", dir);
	if (!(f = fopen(csv, "w")))
		exit(1);
	fprintf(f, "x\n");
	for (long i = 0; i < 200000; i++)
		fprintf(f, "%.9g\n", (double)(rt_rng_uniform(rng) * 2.0f - 1.0f));
	fclose(f);
	check("sextic", "- * * $0 $0 * $0 $0 + * $0 $0 1.5",
	      "{\"fitness\": \"mse\", \"input_names\": [\"x\"]}", csv, 200000);
	snprintf(csv, sizeof csv, "%s/special.csv", dir);
	special_csv(csv, rng);
	if (gp_fset_parse(&fs, "+ - * / sin cos log exp > < == AND OR IF", 3, &err) != RT_OK)
		exit(1);
	fs.use_consts = 1, fs.const_min = -100.0f, fs.const_max = 100.0f, fs.const_prob = 0.3;
	for (int p = 0; p < 16; p++) {
		rt_buf pre = {0};
		random_prefix(&pre, &fs, 2 + p % 5, rng);
		snprintf(name, sizeof name, "random%d", p);
		check(name, pre.data, "{\"fitness\": \"mse\", \"input_names\": [\"a\", \"b\", \"c\"]}",
		      csv, 100000);
		rt_buf_free(&pre);
	}
}

static void shuttle_case(const char *path, rt_rng *rng)
{
	gp_fset fs;
	rt_error err;
	rt_buf pre = {0};
	if (access(path, R_OK) != 0) {
		printf("| shuttle        | SKIP: %s not found |\n", path);
		return;
	}
	if (gp_fset_parse(&fs, "+ - * / sin cos log exp > < == AND OR IF", 9, &err) != RT_OK)
		exit(1);
	fs.use_consts = 1, fs.const_min = -10.0f, fs.const_max = 10.0f, fs.const_prob = 0.3;
	random_prefix(&pre, &fs, 6, rng);
	check("shuttle", pre.data, "{\"fitness\": \"misclassified cases\", \"input_names\": [\"V1\", "
	      "\"V2\", \"V3\", \"V4\", \"V5\", \"V6\", \"V7\", \"V8\", \"V9\"], \"classes\": [\"c0\", "
	      "\"c1\", \"c2\", \"c3\", \"c4\", \"c5\", \"c6\"]}", path, 58000);
	rt_buf_free(&pre);
}

static void bool_cases(rt_rng *rng)
{
	int ks[2] = {3, 4};
	for (int m = 0; m < 2; m++) {
		char csv[400], name[32], data[1024];
		rt_buf names = {0};
		gp_fset fs;
		rt_error err;
		int k = ks[m];
		long rows;
		snprintf(csv, sizeof csv, "%s/mux%d.csv", dir, k + (1 << k));
		rows = mux_csv(csv, k, &names);
		snprintf(data, sizeof data, "{\"fitness\": \"wrong cases\", \"input_names\": [%s]}",
			 names.data);
		if (gp_fset_parse(&fs, "and or nand nor not if", k + (1 << k), &err) != RT_OK)
			exit(1);
		for (int p = 0; p < 4; p++) {
			rt_buf pre = {0};
			random_prefix(&pre, &fs, 3 + p, rng);
			snprintf(name, sizeof name, "mux%d_%d", k + (1 << k), p);
			check(name, pre.data, data, csv, rows);
			rt_buf_free(&pre);
		}
		rt_buf_free(&names);
	}
}

int main(int argc, char **argv)
{
	char shuttle[512];
	rt_rng rng;
	rt_log_set_quiet(1);
	snprintf(dir, sizeof dir, "/tmp/evoforge-gp-export-driver-XXXXXX");
	if (!mkdtemp(dir))
		return 1;
	if (argc > 1)
		snprintf(shuttle, sizeof shuttle, "%s", argv[1]);
	else
		snprintf(shuttle, sizeof shuttle, "data/uci/shuttle.csv");
	rt_rng_init(&rng, 11, 0);
	printf("| case           |     rows | eval cpu | eval gpu | NAME-eval cpu | NAME-eval gpu "
	       "| outputs |\n|---|---:|---|---|---|---|---|\n");
	float_cases(&rng);
	shuttle_case(shuttle, &rng);
	bool_cases(&rng);
	printf("\n%s: %d case(s) differ or failed (files in %s)\n", failures ? "FAIL" : "OK",
	       failures, dir);
	return failures ? 1 : 0;
}
