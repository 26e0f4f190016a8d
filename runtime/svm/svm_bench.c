/* svm_bench.c: `evoforge bench svm`: training side by side in one run: our
 * GPU solver, our CPU path (each with the solvers --solver names),
 * LIBSVM's svm-train (-h 0 -m 1000, when found on PATH or given with
 * --libsvm) and ThunderSVM's thundersvm-train (--thundersvm): training
 * seconds, whole-process seconds (--process: our svm-train run as its own
 * process, start-up and loading included), iterations, support vectors,
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
	"  --thundersvm PATH  thundersvm-train to compare with (thundersvm-predict beside it\n"
	"                   gives its accuracies); its seconds are its own \"all training\n"
	"                   time\", its process seconds the whole run (default: not run)\n"
	"  --solver LIST    smo, batch (default smo): our binary solvers to run\n"
	"  --process        also time `evoforge svm-train` on the written data as a process\n"
	"                   of its own (start-up, loading, kernel compile or cache included)\n"
	"  --wss LIST       second, first (default second)\n"
	"  -o DIR           writes DIR/bench-svm.json\n";

typedef struct bench_row {
	double seconds, process, obj, acc, test_acc;
	long iterations, nsv;
	long last_local;           /* ThunderSVM: the current pair's local iterations */
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
	char full[4 * RT_PATH_MAX + 64], line[512];
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

/* ThunderSVM's log lines: its training time, objective per pair, local
 * iterations per pair, support vectors; thundersvm-predict's accuracy. */
static void parse_thunder(const char *line, bench_row *r)
{
	const char *m;
	double v;
	long n;
	if ((m = strstr(line, "all training time = ")) && sscanf(m + 20, "%lf", &v) == 1)
		r->seconds = v;
	if ((m = strstr(line, "obj = ")) && sscanf(m + 6, "%lf", &v) == 1) {
		r->obj = isnan(r->obj) ? v : r->obj + v;
		r->classes++;   /* pairs, for now */
		r->iterations += r->last_local;
	}
	if ((m = strstr(line, "total local iter = ")) && sscanf(m + 19, "%ld", &n) == 1)
		r->last_local = n;
	if ((m = strstr(line, "#sv = ")) && sscanf(m + 6, "%ld", &n) == 1)
		r->nsv = n;
	if ((m = strstr(line, "Accuracy = ")) && sscanf(m + 11, "%lf", &v) == 1)
		r->acc = v;
}

/* A peer's programs: its train program, its predict program when that is
 * not beside it, and how each one's output is read. */
typedef struct bench_peer {
	const char *exe;
	const char *predict_on_path;
	void (*parse_train)(const char *, bench_row *);
	void (*parse_predict)(const char *, bench_row *);
} bench_peer;

static const bench_peer libsvm_peer = { NULL, "svm-predict", parse_train, parse_predict };
static const bench_peer thunder_peer = { NULL, "thundersvm-predict", parse_thunder, parse_thunder };

/* The peer's predict program's accuracy for file with model: the program
 * is its train program with the tail `train` (e.g. svm-train) made
 * `predict`, else predict_on_path; NaN if it could not run. */
static double peer_accuracy(const bench_peer *peer, const char *file, const char *model,
			    const bench_item *it, double limit)
{
	char cmd[4 * RT_PATH_MAX], predict[RT_PATH_MAX];
	bench_row r;
	size_t len = strlen(peer->exe);
	snprintf(predict, sizeof predict, "%s", peer->predict_on_path);
	if (len >= 5 && !strcmp(peer->exe + len - 5, "train") && len + 4 < sizeof predict)
		snprintf(predict, sizeof predict, "%.*spredict", (int)(len - 5), peer->exe);
	snprintf(cmd, sizeof cmd, "'%s' '%s' '%s' '%s/predict.out'", predict, file, model, it->dir);
	memset(&r, 0, sizeof r);
	r.acc = r.obj = NAN;
	if (run_tool(cmd, limit, peer->parse_predict, &r) != 1)
		r.acc = NAN;
	snprintf(cmd, sizeof cmd, "%s/predict.out", it->dir);
	remove(cmd);
	return r.acc;
}

/* The peer's training cmd (on the item's written data, into model), then
 * its accuracies on the training and test files; 0 if it could not run.
 * r->process: the whole training process; timed out: r->seconds = limit. */
static int peer_run(const bench_peer *peer, const char *cmd, const char *model,
		    const bench_item *it, double limit, bench_row *r)
{
	double t0 = rt_now();
	int ok;
	memset(r, 0, sizeof *r);
	r->obj = r->acc = r->test_acc = NAN;
	ok = run_tool(cmd, limit, peer->parse_train, r);
	r->process = rt_now() - t0;
	r->classes = (int)lround((1 + sqrt(1 + 8.0 * r->classes)) / 2);   /* from the pairs */
	if (ok < 0) {
		r->timed_out = 1;
		r->seconds = limit;
		return 1;
	}
	if (!ok || isnan(r->obj))
		return 0;
	r->acc = peer_accuracy(peer, it->train_file, model, it, limit);
	if (it->test.n)
		r->test_acc = peer_accuracy(peer, it->test_file, model, it, limit);
	return 1;
}

/* svm-train -h 0 -m 1000 on the item's written data; 0 if it could not run.
 * r->seconds: the whole process. */
static int libsvm(const char *exe, const bench_item *it, double limit, bench_row *r)
{
	char cmd[4 * RT_PATH_MAX];
	const svm_params *p = &it->p;
	bench_peer peer = libsvm_peer;
	peer.exe = exe;
	snprintf(cmd, sizeof cmd, "'%s' -s 0 -t 2 -c %.17g -g %.17g -e %.17g -h 0 -m 1000 '%s' '%s'",
		 exe, p->C, p->kernel.gamma, p->eps, it->train_file, it->model_file);
	int ok = peer_run(&peer, cmd, it->model_file, it, limit, r);
	if (!r->timed_out)
		r->seconds = r->process;
	return ok;
}

/* thundersvm-train on the item's written data (its defaults otherwise);
 * 0 if it could not run. r->seconds: its own training time; r->process:
 * the whole process. */
static int thundersvm(const char *exe, const bench_item *it, double limit, bench_row *r)
{
	char cmd[4 * RT_PATH_MAX], model[RT_PATH_MAX];
	const svm_params *p = &it->p;
	bench_peer peer = thunder_peer;
	peer.exe = exe;
	snprintf(model, sizeof model, "%s/thunder.model", it->dir);
	snprintf(cmd, sizeof cmd, "'%s' -s 0 -t 2 -c %.17g -g %.17g -e %.17g '%s' '%s'",
		 exe, p->C, p->kernel.gamma, p->eps, it->train_file, model);
	int ok = peer_run(&peer, cmd, model, it, limit, r);
	if (r->timed_out)
		r->process = limit;
	remove(model);
	return ok;
}

/* Our svm-train on the item's written data as a process of its own: the
 * whole-process seconds (NaN if it failed). */
static double ours_process(const bench_item *it, const svm_params *p)
{
	char self[RT_PATH_MAX], cmd[4 * RT_PATH_MAX];
	bench_row r;
	ssize_t len = readlink("/proc/self/exe", self, sizeof self - 1);
	double t0 = rt_now();
	if (len <= 0)
		return NAN;
	self[len] = 0;
	snprintf(cmd, sizeof cmd, "'%s' svm-train -q -s 0 -t 2 -c %.17g -g %.17g -e %.17g -m %.0f "
		 "-h 0 -S %s --backend %s '%s' '%s/ours.model'", self, p->C, p->kernel.gamma, p->eps,
		 p->cache_mb, p->solver == SVM_SOLVER_BATCH ? "batch" : "smo", p->gpu ? "gpu" : "cpu",
		 it->train_file, it->dir);
	memset(&r, 0, sizeof r);
	if (run_tool(cmd, 0, parse_predict, &r) != 1)
		return NAN;
	double s = rt_now() - t0;
	snprintf(cmd, sizeof cmd, "%s/ours.model", it->dir);
	remove(cmd);
	return s;
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
	char speed[32] = "", test[32] = "", proc[32] = "";
	if (!isnan(r->process) && r->process > 0)
		snprintf(proc, sizeof proc, "%.3f", r->process);
	if (lib_seconds != 0 && r->seconds > 0)
		snprintf(speed, sizeof speed, "%s%.1fx", lib_seconds < 0 ? "> " : "",
			 fabs(lib_seconds) / r->seconds);
	if (!isnan(r->test_acc))
		snprintf(test, sizeof test, "%.4f", r->test_acc);
	if (r->timed_out)
		printf("| %s | %ld | | %s | %s | > %.0f s | | | | | | | |\n", it->name, it->train.n,
		       who, wss, r->seconds);
	else
		printf("| %s | %ld | %d | %s | %s | %.3f | %s | %ld | %ld | %.6f | %.4f | %s | %s |\n",
		       it->name, it->train.n, r->classes, who, wss, r->seconds, proc, r->iterations,
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
	rt_json_double(j, "process_seconds", r->process);
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
	double limit;           /* svm-train's (and thundersvm-train's) time limit (0: none) */
	int cpu, gpu, wss_mask;
	const char *thunder;    /* thundersvm-train, or NULL */
	int solver_mask;        /* 1 smo, 2 batch */
	int process;            /* time our svm-train as a process too */
} bench_cfg;

/* Our rows: each asked wss x solver x backend. */
static rt_status ours_rows(bench_item *it, const bench_cfg *cfg, rt_json *j, double lib_s,
			   rt_error *err)
{
	static const char *const solver_names[2] = { "smo", "batch" };
	bench_row r;
	char who[64];
	rt_status st = RT_OK;
	for (int w = 0; w < 2 && st == RT_OK; w++)
		for (int s = 0; s < 2 && st == RT_OK; s++)
			for (int g = 0; g < 2 && st == RT_OK; g++) {
				if (!(cfg->wss_mask & (1 << w)) || !(cfg->solver_mask & (1 << s)) ||
				    (g ? !cfg->gpu : !cfg->cpu))
					continue;
				it->p.wss = w;
				it->p.gpu = g;
				it->p.solver = s ? SVM_SOLVER_BATCH : SVM_SOLVER_SMO;
				if ((st = ours(it, &it->p, &r, err)) != RT_OK)
					break;
				r.process = cfg->process && it->dir[0] ? ours_process(it, &it->p) : NAN;
				snprintf(who, sizeof who, "evoforge %s %s", g ? "gpu" : "cpu", solver_names[s]);
				print_row(j, it, who, w ? "first" : "second", &r, lib_s);
			}
	return st;
}

/* One item: LIBSVM first (the reference time), ThunderSVM, then ours. */
static rt_status bench_one(const char *text, const bench_cfg *cfg, rt_json *j, rt_error *err)
{
	bench_item it;
	bench_row lib, thunder;
	double lib_s = 0;
	rt_status st;
	if ((st = item_load(text, &it, err)) != RT_OK) {
		item_free(&it);
		if (st == RT_ERR_SYSTEM)
			return st;
		rt_warn("bench svm: %s skipped: %s", text, err->msg);
		return RT_OK;
	}
	if ((cfg->exe || cfg->thunder || cfg->process) && (st = item_files(&it, err)) != RT_OK) {
		item_free(&it);
		return st;
	}
	if (cfg->exe && libsvm(cfg->exe, &it, cfg->limit, &lib)) {
		lib_s = lib.timed_out ? -lib.seconds : lib.seconds;   /* negative: "more than" */
		print_row(j, &it, "libsvm", "second", &lib, 0);
	}
	if (cfg->thunder) {
		if (thundersvm(cfg->thunder, &it, cfg->limit, &thunder))
			print_row(j, &it, "thundersvm", "first", &thunder, lib_s);
		else
			rt_warn("bench svm: %s: %s did not run or wrote no objective", it.name,
				cfg->thunder);
	}
	st = ours_rows(&it, cfg, j, lib_s, err);
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
		if (!strcmp(a, "--process")) {
			cfg->process = 1;
			continue;
		}
		if (!v)
			return rt_fail(err, RT_ERR_INPUT, "bench svm: %s needs a value (see --help)", a);
		if (!strcmp(a, "--data")) *data = v;
		else if (!strcmp(a, "--thundersvm")) cfg->thunder = v;
		else if (!strcmp(a, "--solver")) {
			cfg->solver_mask = (strstr(v, "smo") ? 1 : 0) | (strstr(v, "batch") ? 2 : 0);
			if (!cfg->solver_mask)
				return rt_fail(err, RT_ERR_INPUT, "bench svm: --solver: expected smo, "
					       "batch or both comma-separated, got '%s'", v);
		}
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
	bench_cfg cfg = { "svm-train", 0, 0, 0, 1, NULL, 1, 0 };
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
	printf("## evoforge bench svm (CPU: %s, %d threads; LIBSVM: %s; ThunderSVM: %s)\n\n", dev,
	       cpu_threads(), cfg.exe ? cfg.exe : "not run", cfg.thunder ? cfg.thunder : "not run");
	printf("Iterations and objective are summed over the class pairs (one-vs-one).\n\n");
	printf("| data | points | classes | solver | wss | seconds | process s | iterations | SVs | "
	       "objective | train accuracy | test accuracy | vs LIBSVM |\n"
	       "|---|---|---|---|---|---|---|---|---|---|---|---|---|\n");
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
