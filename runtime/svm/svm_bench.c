/* svm_bench.c: `evoforge bench svm`: training side by side in one run: our
 * GPU solver, our CPU path and LIBSVM's svm-train (-h 0 -m 1000, when found
 * on PATH or given with --libsvm): seconds, iterations, support vectors,
 * dual objective (summed over the class pairs), training and test accuracy,
 * and the speed-up over LIBSVM. Prints a markdown table; -o DIR writes
 * DIR/bench-svm.json.
 *
 * An item is a problem spec (its [data]: scaling, one-hot encoding, label
 * mapping, test set; and its [svm] C and gamma) or a data file with C and
 * gamma. LIBSVM must train the identical problem, so the data as we train
 * on it (scaled, encoded, relabelled) is written to a temporary LIBSVM file
 * for svm-train and svm-predict, floats written so they read back exactly.
 * A missing file skips its item with a message; --libsvm-timeout bounds
 * svm-train (KDD Cup can take hours), whose row then reads "> N s". */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "backend.h"
#include "cpu.h"
#include "data.h"
#include "log.h"
#include "out.h"
#include "spec.h"
#include "svm_impl.h"

const char svm_bench_help[] =
	"evoforge bench svm [options]\n"
	"  --data LIST      comma-separated items NAME[@POSITIVE][:C[:GAMMA]] (default\n"
	"                   svm/a9a:100:0.5, the ICML 2008 setting). NAME is a problem spec:\n"
	"                   shuttle, letter, kddcup, a9a, sonar (problems/svm-NAME.ini) or a\n"
	"                   path ending .ini; its [data] (scale, categorical, label, positive,\n"
	"                   test) and [svm] C, gamma are used. Otherwise NAME is a data file\n"
	"                   (LIBSVM or CSV, label last), resolved like spec data (C 1, gamma\n"
	"                   1/features unless given). @POSITIVE: that class +1, every other -1\n"
	"                   (shuttle@Rad.Flow, letter@A). Multi-class rows: iterations and\n"
	"                   objective are summed over the class pairs\n"
	"  --backend B      cpu, gpu or both (default: both with a GPU, else cpu)\n"
	"  --libsvm PATH    svm-train to compare with (default: svm-train on PATH; none: skip);\n"
	"                   svm-predict beside it gives LIBSVM's accuracies\n"
	"  --libsvm-timeout S  stop svm-train (and svm-predict) after S seconds; the row\n"
	"                   reads \"> S s\" (default: no limit)\n"
	"  --wss LIST       second, first (default second)\n"
	"  -o DIR           writes DIR/bench-svm.json\n";

typedef struct bench_row {
	double seconds, obj, acc, test_acc;
	long iterations, nsv;
	int classes, timed_out;
} bench_row;

/* One item's problem: the data as trained, the parameters, and the files
 * LIBSVM reads. */
typedef struct bench_item {
	char name[256];
	svm_data train, test;
	svm_params p;
	char dir[64], train_file[128], test_file[128], model_file[128];
} bench_item;

/* ---- loading an item ----------------------------------------------------------- */

/* Loads spec NAME ("svm-NAME", NAME, or a path ending .ini) into *spec;
 * 0 when there is none (NAME is then a data file). */
static int spec_of(const char *name, rt_spec *spec)
{
	char buf[300];
	rt_error e;
	if (strstr(name, ".ini"))
		return rt_spec_load(spec, name, &e) == RT_OK;
	if (strchr(name, '/') || strchr(name, '.'))
		return 0;
	snprintf(buf, sizeof buf, "svm-%s", name);
	return rt_spec_load_named(spec, buf, &e) == RT_OK ||
	       rt_spec_load_named(spec, name, &e) == RT_OK;
}

/* The item's data and C, gamma, eps from its spec. */
static rt_status load_from_spec(rt_spec *spec, const char *positive, bench_item *it,
				rt_error *err)
{
	svm_load_options o;
	char train[RT_PATH_MAX], test[RT_PATH_MAX];
	const char *kernel;
	rt_status st;
	if ((st = rt_spec_string(spec, "svm", "kernel", "rbf", &kernel, err)) != RT_OK ||
	    (st = rt_spec_double(spec, "svm", "C", 1.0, 1e-12, 1e12, &it->p.C, err)) != RT_OK ||
	    (st = rt_spec_double(spec, "svm", "gamma", 0.0, 0.0, 1e12, &it->p.kernel.gamma,
				 err)) != RT_OK ||
	    (st = rt_spec_double(spec, "svm", "eps", 1e-3, 1e-12, 1e6, &it->p.eps, err)) != RT_OK ||
	    (st = svm_data_spec_options(spec, &o, err)) != RT_OK)
		return st;
	if (strcmp(kernel, "rbf"))
		return rt_fail(err, RT_ERR_UNSUPPORTED, "%s: the benchmark trains RBF kernels only, "
			       "got kernel = %s", spec->path, kernel);
	if (positive)
		o.positive = positive;
	return svm_data_load_spec(spec, &o, train, &it->train, test, &it->test, err);
}

/* The item's data from a data file (resolved as spec data). */
static rt_status load_from_file(const char *name, const char *positive, bench_item *it,
				rt_error *err)
{
	rt_spec spec;
	char path[RT_PATH_MAX];
	svm_load_options o = svm_load_defaults();
	rt_status st;
	memset(&spec, 0, sizeof spec);
	snprintf(spec.path, sizeof spec.path, "bench svm");
	snprintf(spec.dir, sizeof spec.dir, ".");
	if ((st = rt_spec_data_path(&spec, name, path, RT_PATH_MAX, err)) != RT_OK)
		return st;
	o.positive = positive;
	return svm_data_load(path, &o, &it->train, err);
}

/* Parses NAME[@POSITIVE][:C[:GAMMA]] and loads the item. */
static rt_status item_load(const char *text, bench_item *it, rt_error *err)
{
	char name[256], *c1, *c2, *at;
	rt_spec spec;
	rt_status st;
	memset(it, 0, sizeof *it);
	snprintf(name, sizeof name, "%s", text);
	c1 = strchr(name, ':');
	c2 = c1 ? strchr(c1 + 1, ':') : NULL;
	if (c1)
		*c1 = 0;
	snprintf(it->name, sizeof it->name, "%s", name);
	at = strchr(name, '@');
	if (at)
		*at++ = 0;
	it->p.C = 1;
	it->p.eps = 1e-3;
	memset(&spec, 0, sizeof spec);
	if (spec_of(name, &spec)) {
		st = load_from_spec(&spec, at, it, err);
		rt_spec_free(&spec);
	} else {
		st = load_from_file(name, at, it, err);
	}
	if (c1 && *(c1 + 1))
		it->p.C = atof(c1 + 1);
	if (c2)
		it->p.kernel.gamma = atof(c2 + 1);
	it->p.kernel.type = SVM_RBF;
	it->p.cache_mb = 1000;
	if (st == RT_OK && it->p.kernel.gamma <= 0)
		it->p.kernel.gamma = 1.0 / it->train.nfeat;
	return st;
}

static void item_free(bench_item *it)
{
	svm_data_free(&it->train);
	svm_data_free(&it->test);
	remove(it->train_file);
	remove(it->test_file);
	remove(it->model_file);
	if (it->dir[0])
		rmdir(it->dir);
}

/* ---- the solvers ------------------------------------------------------------------ */

/* Runs cmd (under coreutils' timeout when limit > 0), giving each output
 * line to parse; 1 when it succeeded, 0 when it failed, -1 when timed out. */
static int run_tool(const char *cmd, double limit, void (*parse)(const char *, bench_row *),
		    bench_row *r)
{
	char full[4 * RT_PATH_MAX], line[512];
	FILE *f;
	int status;
	if (limit > 0)
		snprintf(full, sizeof full, "timeout %.0f %s 2>&1", ceil(limit), cmd);
	else
		snprintf(full, sizeof full, "%s 2>&1", cmd);
	if (!(f = popen(full, "r")))
		return 0;
	while (fgets(line, sizeof line, f))
		parse(line, r);
	status = pclose(f);
	if (limit > 0 && WIFEXITED(status) && WEXITSTATUS(status) == 124)
		return -1;
	return status == 0;
}

static void parse_train(const char *line, bench_row *r)
{
	double obj, rho;
	long nsv, it;
	if (sscanf(line, "optimization finished, #iter = %ld", &it) == 1)
		r->iterations += it;
	if (sscanf(line, "obj = %lf, rho = %lf", &obj, &rho) == 2) {
		r->obj = isnan(r->obj) ? obj : r->obj + obj;
		r->classes++;   /* pairs, for now */
	}
	if (sscanf(line, "Total nSV = %ld", &nsv) == 1)
		r->nsv = nsv;
}

static void parse_predict(const char *line, bench_row *r)
{
	double pct;
	long right, all;
	if (sscanf(line, "Accuracy = %lf%% (%ld/%ld)", &pct, &right, &all) == 3 && all > 0)
		r->acc = (double)right / (double)all;
}

/* svm-predict's accuracy for file with the model; NaN if it could not run. */
static double libsvm_accuracy(const char *exe, const char *file, const bench_item *it,
			      double limit)
{
	char cmd[4 * RT_PATH_MAX], predict[RT_PATH_MAX];
	bench_row r;
	size_t len = strlen(exe);
	snprintf(predict, sizeof predict, "svm-predict");
	if (len >= 9 && !strcmp(exe + len - 9, "svm-train") && len + 2 < sizeof predict)
		snprintf(predict, sizeof predict, "%.*ssvm-predict", (int)(len - 9), exe);
	snprintf(cmd, sizeof cmd, "'%s' '%s' '%s' '%s/predict.out'", predict, file, it->model_file,
		 it->dir);
	memset(&r, 0, sizeof r);
	r.acc = NAN;
	if (run_tool(cmd, limit, parse_predict, &r) != 1)
		r.acc = NAN;
	snprintf(cmd, sizeof cmd, "%s/predict.out", it->dir);
	remove(cmd);
	return r.acc;
}

/* svm-train -h 0 -m 1000 on the item's written data; 0 if it could not run. */
static int libsvm(const char *exe, const bench_item *it, double limit, bench_row *r)
{
	char cmd[4 * RT_PATH_MAX];
	const svm_params *p = &it->p;
	double t0 = rt_now();
	int ok;
	snprintf(cmd, sizeof cmd, "'%s' -s 0 -t 2 -c %.17g -g %.17g -e %.17g -h 0 -m 1000 '%s' '%s'",
		 exe, p->C, p->kernel.gamma, p->eps, it->train_file, it->model_file);
	memset(r, 0, sizeof *r);
	r->obj = r->acc = r->test_acc = NAN;
	ok = run_tool(cmd, limit, parse_train, r);
	r->seconds = rt_now() - t0;
	r->classes = (int)lround((1 + sqrt(1 + 8.0 * r->classes)) / 2);   /* from the pairs */
	if (ok < 0) {
		r->timed_out = 1;
		r->seconds = limit;
		return 1;
	}
	if (!ok || isnan(r->obj))
		return 0;
	r->acc = libsvm_accuracy(exe, it->train_file, it, limit);
	if (it->test.n)
		r->test_acc = libsvm_accuracy(exe, it->test_file, it, limit);
	return 1;
}

static rt_status ours(const bench_item *it, const svm_params *p, bench_row *r, rt_error *err)
{
	svm_model m;
	long n = it->train.n > it->test.n ? it->train.n : it->test.n;
	double t0 = rt_now(), *pred;
	rt_status st = svm_train(&it->train, p, &m, err);
	if (st != RT_OK)
		return st;
	memset(r, 0, sizeof *r);
	r->seconds = rt_now() - t0;
	r->classes = m.nr_class;
	for (int q = 0; q < m.nr_class * (m.nr_class - 1) / 2; q++)
		r->obj += m.obj[q];
	r->iterations = m.iterations;
	r->nsv = m.total_sv;
	r->test_acc = NAN;
	pred = rt_malloc((size_t)n * sizeof *pred + 1, err);
	int where = p->gpu ? SVM_PREDICT_GPU : SVM_PREDICT_CPU;
	st = pred ? svm_predict_all(&m, &it->train, where, pred, &r->acc, err) : RT_ERR_SYSTEM;
	if (st == RT_OK && it->test.n)
		st = svm_predict_all(&m, &it->test, where, pred, &r->test_acc, err);
	free(pred);
	svm_model_free(&m);
	return st;
}

/* ---- the table ---------------------------------------------------------------------- */

static void print_row(rt_json *j, const bench_item *it, const char *who, const char *wss,
		      const bench_row *r, double lib_seconds)
{
	char speed[32] = "", test[32] = "";
	if (lib_seconds != 0 && r->seconds > 0)
		snprintf(speed, sizeof speed, "%s%.1fx", lib_seconds < 0 ? "> " : "",
			 fabs(lib_seconds) / r->seconds);
	if (!isnan(r->test_acc))
		snprintf(test, sizeof test, "%.4f", r->test_acc);
	if (r->timed_out)
		printf("| %s | %ld | %s | %s | > %.0f s | | | | | | |\n", it->name, it->train.n, who,
		       wss, r->seconds);
	else
		printf("| %s | %ld | %d | %s | %s | %.3f | %ld | %ld | %.6f | %.4f | %s | %s |\n",
		       it->name, it->train.n, r->classes, who, wss, r->seconds, r->iterations,
		       r->nsv, r->obj, r->acc, test, speed);
	fflush(stdout);
	rt_json_begin_object(j, NULL);
	rt_json_string(j, "data", it->name);
	rt_json_int(j, "points", it->train.n);
	rt_json_int(j, "features", it->train.nfeat);
	rt_json_int(j, "classes", r->classes);
	rt_json_string(j, "solver", who);
	rt_json_string(j, "wss", wss);
	rt_json_double(j, "C", it->p.C);
	rt_json_double(j, "gamma", it->p.kernel.gamma);
	rt_json_bool(j, "timed_out", r->timed_out);
	rt_json_double(j, "seconds", r->seconds);
	rt_json_int(j, "iterations", r->iterations);
	rt_json_int(j, "support_vectors", r->nsv);
	rt_json_double(j, "objective", r->obj);
	rt_json_double(j, "train_accuracy", r->acc);
	rt_json_double(j, "test_accuracy", r->test_acc);
	rt_json_end_object(j);
}

/* Writes the item's data for LIBSVM into a fresh temporary folder. */
static rt_status item_files(bench_item *it, rt_error *err)
{
	rt_status st;
	snprintf(it->dir, sizeof it->dir, "/tmp/evoforge-bench-svm-XXXXXX");
	if (!mkdtemp(it->dir)) {
		it->dir[0] = 0;
		return rt_fail(err, RT_ERR_SYSTEM, "bench svm: cannot create a folder in /tmp");
	}
	snprintf(it->train_file, sizeof it->train_file, "%s/train.libsvm", it->dir);
	snprintf(it->model_file, sizeof it->model_file, "%s/libsvm.model", it->dir);
	if ((st = svm_data_write_libsvm(it->train_file, &it->train, err)) != RT_OK || !it->test.n)
		return st;
	snprintf(it->test_file, sizeof it->test_file, "%s/test.libsvm", it->dir);
	return svm_data_write_libsvm(it->test_file, &it->test, err);
}

typedef struct bench_cfg {
	const char *exe;        /* svm-train, or NULL */
	double limit;           /* svm-train's time limit (0: none) */
	int cpu, gpu, wss_mask;
} bench_cfg;

/* One item: LIBSVM first (the reference time), then ours. */
static rt_status bench_one(const char *text, const bench_cfg *cfg, rt_json *j, rt_error *err)
{
	bench_item it;
	bench_row r, lib;
	double lib_s = 0;
	rt_status st;
	if ((st = item_load(text, &it, err)) != RT_OK) {
		item_free(&it);
		if (st == RT_ERR_SYSTEM)
			return st;
		rt_warn("bench svm: %s skipped: %s", text, err->msg);
		return RT_OK;
	}
	if (cfg->exe && (st = item_files(&it, err)) == RT_OK && libsvm(cfg->exe, &it, cfg->limit, &lib)) {
		lib_s = lib.timed_out ? -lib.seconds : lib.seconds;   /* negative: "more than" */
		print_row(j, &it, "libsvm", "second", &lib, 0);
	}
	for (int w = 0; w < 2 && st == RT_OK; w++)
		for (int g = 0; g < 2 && st == RT_OK; g++) {
			if (!(cfg->wss_mask & (1 << w)) || (g ? !cfg->gpu : !cfg->cpu))
				continue;
			it.p.wss = w;
			it.p.gpu = g;
			if ((st = ours(&it, &it.p, &r, err)) == RT_OK)
				print_row(j, &it, g ? "evoforge gpu" : "evoforge cpu",
					  w ? "first" : "second", &r, lib_s);
		}
	item_free(&it);
	return st;
}

/* Reads the options into cfg, *data and *outdir. */
static rt_status parse_args(int argc, char **argv, bench_cfg *cfg, const char **data,
			    const char **backend, const char **outdir, rt_error *err)
{
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
		char *end;
		if (!v)
			return rt_fail(err, RT_ERR_INPUT, "bench svm: %s needs a value (see --help)", a);
		if (!strcmp(a, "--data")) *data = v;
		else if (!strcmp(a, "--backend")) *backend = v;
		else if (!strcmp(a, "--libsvm")) cfg->exe = strcmp(v, "none") ? v : NULL;
		else if (!strcmp(a, "--libsvm-timeout")) {
			cfg->limit = strtod(v, &end);
			if (end == v || *end || !(cfg->limit > 0) || cfg->limit > 1e7)
				return rt_fail(err, RT_ERR_INPUT, "bench svm: --libsvm-timeout: expected "
					       "seconds above 0, got '%s'", v);
		} else if (!strcmp(a, "--wss"))
			cfg->wss_mask = (strstr(v, "second") ? 1 : 0) | (strstr(v, "first") ? 2 : 0);
		else if (!strcmp(a, "-o") || !strcmp(a, "--output")) *outdir = v;
		else
			return rt_fail(err, RT_ERR_INPUT, "bench svm: unknown option '%s' (see --help)", a);
		i++;
	}
	return RT_OK;
}

rt_status svm_bench(int argc, char **argv, const rt_options *opt, rt_error *err)
{
	const char *data = "svm/a9a:100:0.5", *backend = NULL, *outdir = opt->outdir;
	bench_cfg cfg = { "svm-train", 0, 0, 0, 1 };
	char list[2048], *save = NULL, dev[256], path[RT_PATH_MAX + 32];
	rt_json j;
	rt_status st;
	if ((st = parse_args(argc, argv, &cfg, &data, &backend, &outdir, err)) != RT_OK)
		return st;
	if (!backend) {
		rt_backend chosen;
		if ((st = rt_backend_select(opt->backend, &chosen, NULL, err)) != RT_OK)
			return st;
		backend = chosen == RT_BACKEND_GPU ? "both" : "cpu";
	}
	cfg.cpu = !strcmp(backend, "cpu") || !strcmp(backend, "both");
	cfg.gpu = !strcmp(backend, "gpu") || !strcmp(backend, "both");
	if ((!cfg.cpu && !cfg.gpu) || !cfg.wss_mask)
		return rt_fail(err, RT_ERR_INPUT, "bench svm: --backend cpu|gpu|both, --wss second,first");
	cpu_model_name(dev, sizeof dev);
	printf("## evoforge bench svm (CPU: %s, %d threads; LIBSVM: %s)\n\n", dev, cpu_threads(),
	       cfg.exe ? cfg.exe : "not run");
	printf("Iterations and objective are summed over the class pairs (one-vs-one).\n\n");
	printf("| data | points | classes | solver | wss | seconds | iterations | SVs | objective | "
	       "train accuracy | test accuracy | vs LIBSVM |\n"
	       "|---|---|---|---|---|---|---|---|---|---|---|---|\n");
	memset(&j, 0, sizeof j);
	rt_json_begin_object(&j, NULL);
	rt_json_string(&j, "cpu", dev);
	rt_json_begin_array(&j, "rows");
	snprintf(list, sizeof list, "%s", data);
	for (char *it = strtok_r(list, ",", &save); it && st == RT_OK; it = strtok_r(NULL, ",", &save))
		st = bench_one(it, &cfg, &j, err);
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
