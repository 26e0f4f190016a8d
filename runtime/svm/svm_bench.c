/* svm_bench.c: `evoforge bench svm`: training side by side in one run: our
 * GPU solver, our CPU path and LIBSVM's svm-train (-h 0, when found on PATH
 * or given with --libsvm): seconds, iterations, support vectors, dual
 * objective and training accuracy, and the speed-up over LIBSVM. Data are
 * LIBSVM files with their C and gamma (FILE:C:GAMMA); a missing file is
 * skipped with a message. Prints a markdown table; -o DIR writes
 * DIR/bench-svm.json. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend.h"
#include "cpu.h"
#include "data.h"
#include "log.h"
#include "out.h"
#include "spec.h"
#include "svm_impl.h"

const char svm_bench_help[] =
	"evoforge bench svm [options]\n"
	"  --data LIST      FILE:C:GAMMA items, LIBSVM format, resolved like spec data\n"
	"                   (default svm/a9a:100:0.5, the ICML 2008 setting)\n"
	"  --backend B      cpu, gpu or both (default: both with a GPU, else cpu)\n"
	"  --libsvm PATH    svm-train to compare with (default: svm-train on PATH; none: skip)\n"
	"  --wss LIST       second, first (default second)\n"
	"  -o DIR           writes DIR/bench-svm.json\n";

typedef struct bench_row {
	double seconds, obj, acc;
	long iterations, nsv;
} bench_row;

static rt_status load(const char *name, char *path, svm_data *d, rt_error *err)
{
	rt_spec spec;
	rt_table t;
	rt_status st;
	memset(&spec, 0, sizeof spec);
	memset(&t, 0, sizeof t);
	snprintf(spec.path, sizeof spec.path, "bench svm");
	snprintf(spec.dir, sizeof spec.dir, ".");
	if ((st = rt_spec_data_path(&spec, name, path, RT_PATH_MAX, err)) != RT_OK ||
	    (st = rt_libsvm_load(path, 0, &t, err)) != RT_OK)
		return st;
	st = svm_data_from_table(&t, d, err);
	rt_table_free(&t);
	return st;
}

static rt_status ours(const svm_data *d, const svm_params *p, bench_row *r, rt_error *err)
{
	svm_model m;
	double t0 = rt_now(), *pred;
	rt_status st = svm_train(d, p, &m, err);
	if (st != RT_OK)
		return st;
	r->seconds = rt_now() - t0;
	r->obj = m.obj[0];
	r->iterations = m.iterations;
	r->nsv = m.total_sv;
	pred = rt_malloc((size_t)d->n * sizeof *pred + 1, err);
	st = pred ? svm_accuracy(&m, d, pred, &r->acc, err) : RT_ERR_SYSTEM;
	free(pred);
	svm_model_free(&m);
	return st;
}

/* svm-train -h 0 on the file; 0 if it could not run. */
static int libsvm(const char *exe, const char *path, const svm_params *p, bench_row *r)
{
	char cmd[3 * RT_PATH_MAX], line[512];
	double t0 = rt_now();
	FILE *f;
	snprintf(cmd, sizeof cmd, "'%s' -s 0 -t 2 -c %.17g -g %.17g -e %.17g -h 0 -m 1000 '%s' "
		 "/tmp/evoforge-bench-svm.model 2>&1", exe, p->C, p->kernel.gamma, p->eps, path);
	if (!(f = popen(cmd, "r")))
		return 0;
	memset(r, 0, sizeof *r);
	r->obj = NAN;
	r->acc = NAN;
	while (fgets(line, sizeof line, f)) {
		double obj, rho;
		long nsv, it;
		if (sscanf(line, "optimization finished, #iter = %ld", &it) == 1)
			r->iterations = it;
		if (sscanf(line, "obj = %lf, rho = %lf", &obj, &rho) == 2)
			r->obj = obj;
		if (sscanf(line, "Total nSV = %ld", &nsv) == 1)
			r->nsv = nsv;
	}
	r->seconds = rt_now() - t0;
	return pclose(f) == 0 && !isnan(r->obj);
}

static void print_row(rt_json *j, const char *data, long n, const char *who, const char *wss,
		      const bench_row *r, double lib_seconds)
{
	char speed[32] = "";
	if (lib_seconds > 0 && r->seconds > 0)
		snprintf(speed, sizeof speed, "%.1fx", lib_seconds / r->seconds);
	printf("| %s | %ld | %s | %s | %.3f | %ld | %ld | %.6f | %.4f | %s |\n", data, n, who, wss,
	       r->seconds, r->iterations, r->nsv, r->obj, r->acc, speed);
	fflush(stdout);
	rt_json_begin_object(j, NULL);
	rt_json_string(j, "data", data);
	rt_json_int(j, "points", n);
	rt_json_string(j, "solver", who);
	rt_json_string(j, "wss", wss);
	rt_json_double(j, "seconds", r->seconds);
	rt_json_int(j, "iterations", r->iterations);
	rt_json_int(j, "support_vectors", r->nsv);
	rt_json_double(j, "objective", r->obj);
	rt_json_double(j, "train_accuracy", r->acc);
	rt_json_end_object(j);
}

/* One data item: LIBSVM first (the reference time), then ours. */
static rt_status bench_item(const char *item, const char *exe, int cpu, int gpu, int wss_mask,
			    rt_json *j, rt_error *err)
{
	char name[RT_PATH_MAX], path[RT_PATH_MAX];
	svm_data d;
	svm_params p;
	bench_row r, lib;
	double lib_s = 0;
	char *c1, *c2;
	rt_status st;
	memset(&d, 0, sizeof d);
	memset(&p, 0, sizeof p);
	snprintf(name, sizeof name, "%s", item);
	c1 = strchr(name, ':');
	c2 = c1 ? strchr(c1 + 1, ':') : NULL;
	p.C = c1 ? atof(c1 + 1) : 1;
	p.kernel.type = SVM_RBF;
	p.kernel.gamma = c2 ? atof(c2 + 1) : 0;
	p.eps = 1e-3;
	p.cache_mb = 1000;
	if (c1)
		*c1 = 0;
	if ((st = load(name, path, &d, err)) != RT_OK) {
		rt_warn("bench svm: %s skipped: %s", name, err->msg);
		return RT_OK;
	}
	if (p.kernel.gamma <= 0)
		p.kernel.gamma = 1.0 / d.nfeat;
	if (exe && libsvm(exe, path, &p, &lib)) {
		lib_s = lib.seconds;
		print_row(j, name, d.n, "libsvm", "second", &lib, 0);
	}
	for (int w = 0; w < 2 && st == RT_OK; w++)
		for (int g = 0; g < 2 && st == RT_OK; g++) {
			if (!(wss_mask & (1 << w)) || (g ? !gpu : !cpu))
				continue;
			p.wss = w;
			p.gpu = g;
			if ((st = ours(&d, &p, &r, err)) == RT_OK)
				print_row(j, name, d.n, g ? "evoforge gpu" : "evoforge cpu",
					  w ? "first" : "second", &r, lib_s);
		}
	svm_data_free(&d);
	return st;
}

rt_status svm_bench(int argc, char **argv, const rt_options *opt, rt_error *err)
{
	const char *data = "svm/a9a:100:0.5", *backend = NULL, *exe = "svm-train", *outdir = opt->outdir;
	int wss_mask = 1, cpu, gpu;
	char list[2048], *save = NULL, dev[256], path[RT_PATH_MAX + 32];
	rt_json j;
	rt_status st = RT_OK;
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
		if (!v)
			return rt_fail(err, RT_ERR_INPUT, "bench svm: %s needs a value (see --help)", a);
		if (!strcmp(a, "--data")) data = v;
		else if (!strcmp(a, "--backend")) backend = v;
		else if (!strcmp(a, "--libsvm")) exe = strcmp(v, "none") ? v : NULL;
		else if (!strcmp(a, "--wss"))
			wss_mask = (strstr(v, "second") ? 1 : 0) | (strstr(v, "first") ? 2 : 0);
		else if (!strcmp(a, "-o") || !strcmp(a, "--output")) outdir = v;
		else
			return rt_fail(err, RT_ERR_INPUT, "bench svm: unknown option '%s' (see --help)", a);
		i++;
	}
	if (!backend) {
		rt_backend chosen;
		if ((st = rt_backend_select(opt->backend, &chosen, NULL, err)) != RT_OK)
			return st;
		backend = chosen == RT_BACKEND_GPU ? "both" : "cpu";
	}
	cpu = !strcmp(backend, "cpu") || !strcmp(backend, "both");
	gpu = !strcmp(backend, "gpu") || !strcmp(backend, "both");
	if ((!cpu && !gpu) || !wss_mask)
		return rt_fail(err, RT_ERR_INPUT, "bench svm: --backend cpu|gpu|both, --wss second,first");
	cpu_model_name(dev, sizeof dev);
	printf("## evoforge bench svm (CPU: %s, %d threads; LIBSVM: %s)\n\n", dev, cpu_threads(),
	       exe ? exe : "not run");
	printf("| data | points | solver | wss | seconds | iterations | SVs | objective | "
	       "train accuracy | vs LIBSVM |\n|---|---|---|---|---|---|---|---|---|---|\n");
	memset(&j, 0, sizeof j);
	rt_json_begin_object(&j, NULL);
	rt_json_string(&j, "cpu", dev);
	rt_json_begin_array(&j, "rows");
	snprintf(list, sizeof list, "%s", data);
	for (char *it = strtok_r(list, ",", &save); it && st == RT_OK; it = strtok_r(NULL, ",", &save))
		st = bench_item(it, exe, cpu, gpu, wss_mask, &j, err);
	rt_json_end_array(&j);
	rt_json_end_object(&j);
	if (st == RT_OK && outdir) {
		snprintf(path, sizeof path, "%s/bench-svm.json", outdir);
		if ((st = rt_mkdirs(outdir, err)) == RT_OK)
			st = rt_json_write(&j, path, err);
	}
	rt_buf_free(&j.buf);
	return st;
}
