/* svm_cli.c: LIBSVM's commands on kind `svm`: `evoforge svm-train`,
 * `svm-predict` and `svm-grid` (tools/grid.py), with LIBSVM's own flags and
 * defaults and its output lines, plus evoforge's --backend, --threads and
 * --seed. The kind table lists them (svm_commands); main hands each its raw
 * arguments, since LIBSVM's -h (shrinking), -q and -v clash with the
 * common options. */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend.h"
#include "cpu.h"
#include "log.h"
#include "out.h"
#include "svm_batch.h"
#include "svm_impl.h"

static const char usage_train[] =
	"usage: evoforge svm-train [options] DATA [MODEL]\n"
	"\n"
	"Trains a model as LIBSVM's svm-train does and writes it in LIBSVM's\n"
	"model format to MODEL (default: DATA's file name + .model, in the current\n"
	"folder). DATA: LIBSVM format, or .csv (label in the last column).\n"
	"\n"
	"options (LIBSVM's):\n"
	"  -s svm_type   0 C-SVC (default), 1 nu-SVC, 2 one-class, 3 epsilon-SVR,\n"
	"                4 nu-SVR\n"
	"  -t kernel     0 linear, 1 polynomial, 2 RBF (default), 3 sigmoid\n"
	"  -d degree     polynomial degree (default 3)\n"
	"  -g gamma      kernel gamma (default 1/features)\n"
	"  -r coef0      polynomial and sigmoid coef0 (default 0)\n"
	"  -c cost       C of C-SVC, epsilon-SVR and nu-SVR (default 1)\n"
	"  -n nu         nu of nu-SVC, one-class and nu-SVR, in (0, 1] (default 0.5)\n"
	"  -p epsilon    epsilon of epsilon-SVR's loss, >= 0 (default 0.1)\n"
	"  -e epsilon    stopping tolerance (default 0.001)\n"
	"  -m cachesize  kernel row cache in MB (default 100)\n"
	"  -h shrinking  0 or 1 (default 1)\n"
	"  -wi weight    C of class i times weight (default 1), e.g. -w1 2 -w-1 0.5\n"
	"  -v n          n-fold cross-validation: prints the accuracy, writes no model\n"
	"                (C-SVC and nu-SVC)\n"
	"  -b 0|1        1: a probability model too (Platt scaling from an internal\n"
	"                5-fold cross-validation per pair, pairwise coupling for\n"
	"                several classes; the regressions: the Laplace scale sigma);\n"
	"                not for one-class (default 0)\n"
	"  -q            quiet\n"
	"evoforge's:\n"
	"  -S solver     smo (LIBSVM's pairs), batch (working sets of q points: a\n"
	"                local SMO on each, the gradient updated from their rows;\n"
	"                not for -s 1, -s 4) or auto (default: batch with --backend gpu\n"
	"                for pairs of 16000 points or more, smo otherwise)\n"
	"  -B q          batch's working-set size: even, 4 to 1024 (default 0: the\n"
	"                largest power of two <= min(1024, points) whose rows fit -m)\n"
	"  --backend auto|cpu|gpu  where to train (default auto)\n"
	"  --threads N             CPU threads (default: all cores)\n"
	"  --seed N                cross-validation shuffle (default 1)\n"
	"  --storage auto|dense|sparse  DATA's features in memory (default auto:\n"
	"                          sparse rows when dense ones would pass 2 GiB, or\n"
	"                          64 MB at under 1 % non-zero)\n";

static const char usage_predict[] =
	"usage: evoforge svm-predict [options] DATA MODEL OUT\n"
	"\n"
	"Predicts DATA with a LIBSVM model (ours or LIBSVM's), writes one label per\n"
	"line to OUT (atomically) and prints the accuracy as LIBSVM's svm-predict\n"
	"(regression models: one value per line, the mean squared error and the\n"
	"squared correlation coefficient).\n"
	"\n"
	"options: -b 0|1 1: probability estimates (a model of svm-train -b 1): a\n"
	"                'labels ...' line, then per point the label of the largest\n"
	"                probability and each class's probability (default 0)\n"
	"         -q quiet,\n"
	"         --backend auto|cpu|gpu  where to predict (default auto: the GPU\n"
	"                                 when there is one, else the CPU)\n"
	"         --threads N             CPU threads (default: all cores)\n"
	"         --storage auto|dense|sparse  as svm-train's (sparse data and models\n"
	"                                 are predicted on the CPU)\n";

static const char usage_grid[] =
	"usage: evoforge svm-grid [options] DATA\n"
	"\n"
	"LIBSVM's grid.py: cross-validation accuracy for every C = 2^log2c and\n"
	"gamma = 2^log2g; a line per cell, then the best 'C gamma rate'. Writes\n"
	"a CSV (log2c,log2g,C,gamma,accuracy) and, with gnuplot, a contour plot.\n"
	"\n"
	"options:\n"
	"  -log2c begin,end,step   (default -5,15,2)\n"
	"  -log2g begin,end,step   (default 3,-15,-2)\n"
	"  -v fold                 (default 5)\n"
	"  -out FILE | null        (default DATA's file name + .grid.csv)\n"
	"  -png FILE | null        (default DATA's file name + .grid.png)\n"
	"  svm-train's -t -d -r -e -m -h -wi -S -B -q, and --backend, --threads,\n"
	"  --seed, --storage\n";

/* What every command takes besides its LIBSVM flags. */
typedef struct cli_common {
	rt_backend backend;
	int threads, quiet, help;
	int storage;               /* enum svm_storage */
	uint64_t seed;
	const char *pos[4];        /* positional arguments */
	int npos;
} cli_common;

/* One command's LIBSVM flag: "-c" and its value. */
typedef rt_status (*flag_fn)(const char *cmd, const char *flag, const char *value, void *ctx,
			     rt_error *err);

/* The flags of svm-train (and svm-grid's training flags). */
typedef struct train_flags {
	svm_params p;
	double weight_label[64], weight[64];
	int folds;                 /* -v, 0: none */
} train_flags;

typedef struct grid_flags {
	train_flags t;
	svm_range c, g;
	int folds;
	const char *out, *png;
} grid_flags;

#define TRY(x) do { rt_status st_ = (x); if (st_ != RT_OK) return st_; } while (0)

/* ---- flag values -------------------------------------------------------------- */

static rt_status flag_long(const char *cmd, const char *flag, const char *v, long lo, long hi,
			   long *out, rt_error *err)
{
	char *end;
	errno = 0;
	*out = strtol(v, &end, 10);
	if (end == v || *end || errno || *out < lo || *out > hi)
		return rt_fail(err, RT_ERR_INPUT, "%s: %s: expected an integer from %ld to %ld, got "
			       "'%s' (see evoforge help %s)", cmd, flag, lo, hi, v, cmd);
	return RT_OK;
}

/* A finite number >= lo (> lo when open). */
static rt_status flag_double(const char *cmd, const char *flag, const char *v, double lo,
			     int open, double *out, rt_error *err)
{
	char *end;
	*out = strtod(v, &end);
	if (end == v || *end || !isfinite(*out) || *out < lo || (open && *out == lo))
		return rt_fail(err, RT_ERR_INPUT, "%s: %s: expected a number %s %g, got '%s' (see "
			       "evoforge help %s)", cmd, flag, open ? ">" : ">=", lo, v, cmd);
	return RT_OK;
}

/* -w<label> weight. */
static rt_status flag_weight(const char *cmd, const char *flag, const char *v, train_flags *t,
			     rt_error *err)
{
	long label;
	double w;
	char name[64];
	if (t->p.nweights == 64)
		return rt_fail(err, RT_ERR_INPUT, "%s: %s: at most 64 class weights", cmd, flag);
	snprintf(name, sizeof name, "-w<label> (label '%s')", flag + 2);
	TRY(flag_long(cmd, name, flag + 2, INT_MIN, INT_MAX, &label, err));
	TRY(flag_double(cmd, flag, v, 0, 0, &w, err));
	t->weight_label[t->p.nweights] = (double)label;
	t->weight[t->p.nweights++] = w;
	return RT_OK;
}

/* -S smo|batch|auto and -B q (evoforge's: the solver, svm_batch.h). */
static rt_status flag_solver(const char *cmd, const char *flag, const char *v, train_flags *t,
			     rt_error *err)
{
	static const char *const names[] = { "smo", "batch", "auto" };   /* enum svm_solver */
	if (flag[1] == 'B') {
		TRY(flag_long(cmd, flag, v, 0, SVM_BATCH_MAX_Q, &t->p.batch_size, err));
		if (t->p.batch_size % 2 || (t->p.batch_size > 0 && t->p.batch_size < 4))
			return rt_fail(err, RT_ERR_INPUT, "%s: -B: expected 0 (auto) or an even number "
				       "from 4 to %d, got '%s' (see evoforge help %s)", cmd,
				       SVM_BATCH_MAX_Q, v, cmd);
		return RT_OK;
	}
	for (int k = 0; k < 3; k++)
		if (!strcmp(v, names[k]))
			return (t->p.solver = k, RT_OK);
	return rt_fail(err, RT_ERR_INPUT, "%s: -S: expected smo, batch or auto, got '%s' (see "
		       "evoforge help %s)", cmd, v, cmd);
}

/* -s, -t and -b: the values LIBSVM has that we do not. */
static rt_status flag_choice(const char *cmd, const char *flag, const char *v, train_flags *t,
			     rt_error *err)
{
	long n;
	if (flag[1] == 't' && !strcmp(v, "4"))
		return rt_fail(err, RT_ERR_INPUT, "%s: -t 4: precomputed kernels are not supported; "
			       "expected 0 to 3", cmd);
	TRY(flag_long(cmd, flag, v, 0, flag[1] == 'b' ? 1 : flag[1] == 't' ? 3 : 4, &n, err));
	if (flag[1] == 's')
		t->p.type = (int)n;
	if (flag[1] == 'b')
		t->p.probability = (int)n;
	if (flag[1] == 't')
		t->p.kernel.type = (int)n;
	return RT_OK;
}

static rt_status train_flag(const char *cmd, const char *flag, const char *v, void *ctx,
			    rt_error *err)
{
	train_flags *t = ctx;
	long n;
	if (flag[1] == 'w' && flag[2])
		return flag_weight(cmd, flag, v, t, err);
	if (flag[2])
		return rt_fail(err, RT_ERR_INPUT, "%s: unknown option '%s' (see evoforge help %s)", cmd,
			       flag, cmd);
	switch (flag[1]) {
	case 's': case 't': case 'b': return flag_choice(cmd, flag, v, t, err);
	case 'S': case 'B': return flag_solver(cmd, flag, v, t, err);
	case 'd': TRY(flag_long(cmd, flag, v, 0, 100, &n, err)); t->p.kernel.degree = (int)n; break;
	case 'g': return flag_double(cmd, flag, v, 0, 0, &t->p.kernel.gamma, err);
	case 'r': return flag_double(cmd, flag, v, -INFINITY, 0, &t->p.kernel.coef0, err);
	case 'c': return flag_double(cmd, flag, v, 0, 1, &t->p.C, err);
	case 'e': return flag_double(cmd, flag, v, 0, 1, &t->p.eps, err);
	case 'm': return flag_double(cmd, flag, v, 0, 1, &t->p.cache_mb, err);
	case 'h': TRY(flag_long(cmd, flag, v, 0, 1, &n, err)); t->p.shrinking = (int)n; break;
	case 'v': TRY(flag_long(cmd, flag, v, 2, INT_MAX, &n, err)); t->folds = (int)n; break;
	case 'n': return flag_double(cmd, flag, v, -INFINITY, 0, &t->p.nu, err);
	case 'p': return flag_double(cmd, flag, v, 0, 0, &t->p.p_eps, err);
	default:
		return rt_fail(err, RT_ERR_INPUT, "%s: unknown option '%s' (see evoforge help %s)", cmd,
			       flag, cmd);
	}
	return RT_OK;
}

static void train_defaults(train_flags *t)
{
	memset(t, 0, sizeof *t);
	t->p.kernel.type = SVM_RBF;
	t->p.kernel.degree = 3;
	t->p.C = 1;
	t->p.nu = 0.5;
	t->p.p_eps = 0.1;
	t->p.eps = 0.001;
	t->p.cache_mb = 100;
	t->p.shrinking = 1;
	t->p.solver = SVM_SOLVER_AUTO;
	t->p.weight_label = t->weight_label;
	t->p.weight = t->weight;
}

/* ---- the argument loop ------------------------------------------------------ */

/* --backend, --threads, --seed, --storage, --help (also as --name=value);
 * *i moves past the value. */
static rt_status common_option(const char *cmd, int argc, char **argv, int *i, cli_common *c,
			       rt_error *err)
{
	const char *a = argv[*i] + 2, *eq = strchr(a, '='), *v;
	size_t len = eq ? (size_t)(eq - a) : strlen(a);
	long n;
	if (len == 4 && !strncmp(a, "help", 4))
		return (c->help = 1, RT_OK);
	if (!((len == 7 && !strncmp(a, "backend", 7)) || (len == 7 && !strncmp(a, "threads", 7)) ||
	      (len == 4 && !strncmp(a, "seed", 4)) || (len == 7 && !strncmp(a, "storage", 7))))
		return rt_fail(err, RT_ERR_INPUT, "%s: unknown option '%s' (see evoforge help %s)", cmd,
			       argv[*i], cmd);
	if (!eq && *i + 1 >= argc)
		return rt_fail(err, RT_ERR_INPUT, "%s: option --%s: missing its value", cmd, a);
	v = eq ? eq + 1 : argv[++*i];
	if (*a == 'b')
		return rt_backend_parse(v, &c->backend, err);
	if (*a == 's' && a[1] == 't') {
		static const char *const names[] = { "auto", "dense", "sparse" };
		for (int k = 0; k < 3; k++)
			if (!strcmp(v, names[k]))
				return (c->storage = k, RT_OK);
		return rt_fail(err, RT_ERR_INPUT, "%s: option --storage: expected auto, dense or "
			       "sparse, got '%s'", cmd, v);
	}
	if (*a == 't') {
		TRY(flag_long(cmd, "--threads", v, 1, RT_MAX_THREADS, &n, err));
		c->threads = (int)n;
		return RT_OK;
	}
	TRY(flag_long(cmd, "--seed", v, 0, LONG_MAX, &n, err));
	c->seed = (uint64_t)n;
	return RT_OK;
}

/* Splits argv into LIBSVM flags (each with a value, -q alone), common
 * options and positional arguments (at most max). */
static rt_status parse_args(const char *cmd, int argc, char **argv, flag_fn fn, void *ctx,
			    int max, cli_common *c, rt_error *err)
{
	memset(c, 0, sizeof *c);
	c->seed = 1;
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		if (a[0] == '-' && a[1] == '-' && a[2])
			TRY(common_option(cmd, argc, argv, &i, c, err));
		else if (!strcmp(a, "-q"))
			c->quiet = 1;
		else if (a[0] == '-' && a[1] && i + 1 >= argc)
			return rt_fail(err, RT_ERR_INPUT, "%s: option %s: missing its value (see "
				       "evoforge help %s)", cmd, a, cmd);
		else if (a[0] == '-' && a[1])
			TRY(fn(cmd, a, argv[++i], ctx, err));
		else if (c->npos == max)
			return rt_fail(err, RT_ERR_INPUT, "%s: expected at most %d file names, got '%s' "
				       "too (see evoforge help %s)", cmd, max, a, cmd);
		else
			c->pos[c->npos++] = a;
	}
	return RT_OK;
}

/* Applies --threads, -q and --backend; p->gpu says where to train. */
static rt_status setup(const cli_common *c, svm_params *p, rt_error *err)
{
	rt_backend chosen = RT_BACKEND_CPU;
	rt_log_set_quiet(c->quiet);
	cpu_set_threads(c->threads);
	if (p)
		TRY(rt_backend_select(c->backend, &chosen, NULL, err));
	if (p) {
		p->gpu = chosen == RT_BACKEND_GPU;
		svm_note_shrinking(p);
	}
	return RT_OK;
}

/* The file name part of path + suffix, in the current folder (LIBSVM's rule). */
static rt_status default_name(const char *path, const char *suffix, char *out, size_t size,
			      rt_error *err)
{
	const char *base = strrchr(path, '/');
	return rt_format(out, size, err, "%s%s", base ? base + 1 : path, suffix);
}

/* Reads DATA (LIBSVM format or CSV); gamma 0 becomes 1 / features. */
static rt_status load_training(const char *path, int storage, svm_params *p, svm_data *d,
			       rt_error *err)
{
	svm_load_options o = svm_load_defaults();
	o.storage = storage;
	TRY(svm_data_load(path, &o, d, err));
	if (p->kernel.gamma == 0 && d->nfeat > 0)
		p->kernel.gamma = 1.0 / d->nfeat;
	return RT_OK;
}

/* ---- svm-train ----------------------------------------------------------------- */

/* svm-train's report of each binary problem, then the total (classes only). */
static void print_training(const svm_model *m)
{
	int pairs = m->nr_class * (m->nr_class - 1) / 2;
	for (int q = 0; m->pairs && q < pairs; q++) {
		const svm_pair_stats *s = &m->pairs[q];
		rt_info("optimization finished, #iter = %ld", s->iterations);
		if (m->type == SVM_NU_SVC)
			rt_info("C = %f", s->extra);
		else if (m->type == SVM_NU_SVR)
			rt_info("epsilon = %f", s->extra);
		else if (!isnan(s->nu))
			rt_info("nu = %f", s->nu);
		rt_info("obj = %f, rho = %f", m->obj[q], m->rho[q]);
		rt_info("nSV = %ld, nBSV = %ld", s->nsv, s->nbsv);
	}
	if (!SVM_IS_SINGLE(m->type))
		rt_info("Total nSV = %ld", m->total_sv);
}

static rt_status train_or_cv(const cli_common *c, const train_flags *t, const svm_data *d,
			     rt_error *err)
{
	char model_path[RT_PATH_MAX];
	svm_model m;
	double acc;
	rt_status st;
	if (t->folds && SVM_IS_SINGLE(t->p.type))
		return rt_fail(err, RT_ERR_INPUT, "svm-train: -v: cross-validation of %s is not "
			       "supported (C-SVC and nu-SVC only)", svm_type_names[t->p.type]);
	if (t->folds) {
		svm_params cv = t->p;
		if (cv.probability)
			rt_warn("svm-train: -v: -b 1 is not used in cross-validation (the accuracy is of "
				"the one-vs-one votes; LIBSVM's is of the probabilities' labels)");
		cv.probability = 0;
		TRY(svm_cross_validation(d, &cv, t->folds, c->seed, NULL, &acc, err));
		printf("Cross Validation Accuracy = %g%%\n", 100 * acc);
		return RT_OK;
	}
	if (c->npos > 1)
		snprintf(model_path, sizeof model_path, "%s", c->pos[1]);
	else
		TRY(default_name(c->pos[0], ".model", model_path, sizeof model_path, err));
	TRY(svm_train(d, &t->p, &m, err));
	print_training(&m);
	st = svm_model_write(model_path, &m, err);
	svm_model_free(&m);
	return st;
}

static rt_status cmd_train(int argc, char **argv, const rt_options *opt, rt_error *err)
{
	train_flags t;
	cli_common c;
	svm_data d;
	rt_status st;
	(void)opt;
	train_defaults(&t);
	TRY(parse_args("svm-train", argc, argv, train_flag, &t, 2, &c, err));
	if (c.help)
		return (fputs(usage_train, stdout), RT_OK);
	TRY(svm_params_check(&t.p, "svm-train", err));
	if (c.npos < 1)
		return rt_fail(err, RT_ERR_INPUT, "svm-train: expected DATA [MODEL] (see evoforge "
			       "help svm-train)");
	TRY(setup(&c, &t.p, err));
	TRY(load_training(c.pos[0], c.storage, &t.p, &d, err));
	st = train_or_cv(&c, &t, &d, err);
	svm_data_free(&d);
	return st;
}

/* ---- svm-predict ------------------------------------------------------------- */

static rt_status predict_flag(const char *cmd, const char *flag, const char *v, void *ctx,
			      rt_error *err)
{
	train_flags b;
	memset(&b, 0, sizeof b);
	if (!strcmp(flag, "-b")) {
		TRY(flag_choice(cmd, flag, v, &b, err));
		*(int *)ctx = b.p.probability;
		return RT_OK;
	}
	return rt_fail(err, RT_ERR_INPUT, "%s: unknown option '%s' (expected -b 0|1 or -q; see "
		       "evoforge help %s)", cmd, flag, cmd);
}

/* Pads the support vectors with zeros to nfeat features: DATA may use
 * features no support vector has (LIBSVM's sparse kernels still count them). */
static rt_status widen_model(svm_model *m, int nfeat, rt_error *err)
{
	float *sv;
	if (nfeat <= m->nfeat)
		return RT_OK;
	if (m->sparse)
		return (m->nfeat = nfeat, RT_OK);
	sv = rt_calloc((size_t)(m->total_sv ? m->total_sv : 1) * nfeat, sizeof *sv, err);
	if (!sv)
		return RT_ERR_SYSTEM;
	for (long s = 0; s < m->total_sv; s++)
		memcpy(sv + (size_t)s * nfeat, m->sv + (size_t)s * m->nfeat, (size_t)m->nfeat * sizeof *sv);
	free(m->sv);
	m->sv = sv;
	m->nfeat = nfeat;
	return RT_OK;
}

/* Where svm-predict predicts (enum svm_predict_where): --backend cpu the
 * CPU, gpu the GPU, auto the GPU when there is one (a failure there: the
 * CPU after one warning). */
static rt_status predict_where(const cli_common *c, int *where, rt_error *err)
{
	rt_backend chosen = RT_BACKEND_CPU;
	if (c->backend != RT_BACKEND_CPU)
		TRY(rt_backend_select(c->backend, &chosen, NULL, err));
	*where = chosen != RT_BACKEND_GPU ? SVM_PREDICT_CPU
		 : c->backend == RT_BACKEND_GPU ? SVM_PREDICT_GPU : SVM_PREDICT_GPU_OR_CPU;
	return RT_OK;
}

/* LIBSVM's svm-predict lines for a regression: the mean squared error and
 * the squared correlation of predictions v and targets y. */
static void print_regression(const double *v, const double *y, long n)
{
	double se = 0, sv = 0, sy = 0, svv = 0, syy = 0, svy = 0, l = (double)n;
	for (long i = 0; i < n; i++) {
		se += (v[i] - y[i]) * (v[i] - y[i]);
		sv += v[i];
		sy += y[i];
		svv += v[i] * v[i];
		syy += y[i] * y[i];
		svy += v[i] * y[i];
	}
	rt_info("Mean squared error = %g (regression)", se / l);
	rt_info("Squared correlation coefficient = %g (regression)",
		((l * svy - sv * sy) * (l * svy - sv * sy)) / ((l * svv - sv * sv) * (l * syy - sy * sy)));
}

/* svm-predict -b 1 of a classification model, as LIBSVM's: a "labels ..."
 * line, then per point the label of the largest probability and every
 * class's probability ("%g"); pred[n] gets the labels. */
static rt_status predict_prob_lines(const svm_model *m, const svm_data *d, int where,
				    double *pred, rt_buf *b, rt_error *err)
{
	int k = m->nr_class;
	double *prob = rt_malloc((size_t)d->n * k * sizeof *prob + 1, err);
	rt_status st = prob ? svm_predict_prob(m, d, where, pred, prob, err) : RT_ERR_SYSTEM;
	if (st == RT_OK) {
		rt_buf_puts(b, "labels");
		for (int c = 0; c < k; c++)
			rt_buf_printf(b, " %d", m->label[c]);
		rt_buf_puts(b, "\n");
	}
	for (long i = 0; st == RT_OK && i < d->n; i++) {
		rt_buf_printf(b, "%g", pred[i]);
		for (int c = 0; c < k; c++)
			rt_buf_printf(b, " %g", prob[(size_t)i * k + c]);
		rt_buf_puts(b, "\n");
	}
	free(prob);
	return st;
}

/* Predicts d with m where says (prob: -b 1), writes the labels to out,
 * prints the accuracy. */
static rt_status predict_write(const svm_model *m, const svm_data *d, int where, int prob,
			       const char *out, rt_error *err)
{
	double *pred = rt_malloc((size_t)d->n * sizeof *pred + 1, err);
	long right = 0;
	rt_buf b;
	rt_status st = pred ? RT_OK : RT_ERR_SYSTEM;
	memset(&b, 0, sizeof b);
	if (!prob && svm_has_prob(m))
		rt_info("Model supports probability estimates, but disabled in prediction.");
	if (prob && SVM_IS_SVR(m->type))
		rt_info("Prob. model for test data: target value = predicted value + z,\n"
			"z: Laplace distribution e^(-|z|/sigma)/(2sigma),sigma=%g", m->probA[0]);
	if (st == RT_OK && prob && !SVM_IS_SVR(m->type))
		st = predict_prob_lines(m, d, where, pred, &b, err);
	else if (st == RT_OK)
		st = svm_predict_values(m, d, where, pred, NULL, err);
	for (long i = 0; st == RT_OK && i < d->n; i++) {
		if (!prob || SVM_IS_SVR(m->type))
			rt_buf_printf(&b, "%.17g\n", pred[i]);
		right += pred[i] == d->y[i];
	}
	if (st == RT_OK)
		st = b.failed ? rt_fail(err, RT_ERR_SYSTEM, "out of memory writing %s", out)
			      : rt_write_file_atomic(out, b.data ? b.data : "", b.len, err);
	if (st == RT_OK && SVM_IS_SVR(m->type))
		print_regression(pred, d->y, d->n);
	else if (st == RT_OK)
		rt_info("Accuracy = %g%% (%ld/%ld) (classification)", d->n ? 100.0 * right / d->n : 0,
			right, d->n);
	rt_buf_free(&b);
	free(pred);
	return st;
}

static rt_status predict_file(svm_model *m, const char *data, int storage, int where, int prob,
			      const char *out, rt_error *err);

static rt_status cmd_predict(int argc, char **argv, const rt_options *opt, rt_error *err)
{
	cli_common c;
	svm_model m;
	rt_status st;
	int where, prob = 0;
	(void)opt;
	TRY(parse_args("svm-predict", argc, argv, predict_flag, &prob, 3, &c, err));
	if (c.help)
		return (fputs(usage_predict, stdout), RT_OK);
	if (c.npos != 3)
		return rt_fail(err, RT_ERR_INPUT, "svm-predict: expected DATA MODEL OUT, got %d file "
			       "name%s (see evoforge help svm-predict)", c.npos, c.npos == 1 ? "" : "s");
	TRY(setup(&c, NULL, err));
	TRY(predict_where(&c, &where, err));
	TRY(svm_model_read(c.pos[1], &m, err));
	if (prob && !svm_has_prob(&m))
		st = rt_fail(err, RT_ERR_INPUT, "svm-predict: -b 1: %s has no probability model "
			     "(%s); expected a model of svm-train -b 1 (C-SVC, nu-SVC or a regression)",
			     c.pos[1], m.type == SVM_ONE_CLASS ? "one-class models have none"
			     : "no probA/probB lines");
	else
		st = predict_file(&m, c.pos[0], c.storage, where, prob, c.pos[2], err);
	svm_model_free(&m);
	return st;
}

rt_status svm_predict_file(svm_model *m, const char *data, int where, const char *out,
			   rt_error *err)
{
	return predict_file(m, data, SVM_STORAGE_AUTO, where, 0, out, err);
}

static rt_status predict_file(svm_model *m, const char *data, int storage, int where, int prob,
			      const char *out, rt_error *err)
{
	svm_data d;
	svm_load_options o = svm_load_defaults();
	o.storage = storage;
	rt_status st = svm_data_load(data, &o, &d, err);
	if (st == RT_OK) {
		st = widen_model(m, d.nfeat, err);
		if (st == RT_OK)
			st = predict_write(m, &d, where, prob, out, err);
		svm_data_free(&d);
	}
	return st;
}

/* ---- svm-grid -------------------------------------------------------------------- */

static rt_status grid_flag(const char *cmd, const char *flag, const char *v, void *ctx,
			   rt_error *err)
{
	grid_flags *g = ctx;
	long n;
	if (!strcmp(flag, "-log2c"))
		return svm_range_parse("svm-grid: -log2c", v, &g->c, err);
	if (!strcmp(flag, "-log2g"))
		return svm_range_parse("svm-grid: -log2g", v, &g->g, err);
	if (!strcmp(flag, "-out"))
		return (g->out = v, RT_OK);
	if (!strcmp(flag, "-png"))
		return (g->png = v, RT_OK);
	if (!strcmp(flag, "-v")) {
		TRY(flag_long(cmd, flag, v, 2, INT_MAX, &n, err));
		g->folds = (int)n;
		return RT_OK;
	}
	if (!strcmp(flag, "-c") || !strcmp(flag, "-g"))
		return rt_fail(err, RT_ERR_INPUT, "%s: %s: C and gamma come from the grid; expected "
			       "-log2c or -log2g", cmd, flag);
	return train_flag(cmd, flag, v, &g->t, err);
}

/* Writes the CSV and the plot (a name "null": not written). */
static rt_status grid_outputs(const cli_common *c, const grid_flags *f, const svm_grid *g,
			      rt_error *err)
{
	char path[RT_PATH_MAX];
	if (f->out && !strcmp(f->out, "null"))
		;
	else if (f->out)
		TRY(svm_grid_write_csv(f->out, g, err));
	else {
		TRY(default_name(c->pos[0], ".grid.csv", path, sizeof path, err));
		TRY(svm_grid_write_csv(path, g, err));
	}
	if (f->png && !strcmp(f->png, "null"))
		return RT_OK;
	if (f->png)
		return svm_grid_plot(f->png, g, err);
	TRY(default_name(c->pos[0], ".grid.png", path, sizeof path, err));
	return svm_grid_plot(path, g, err);
}

static rt_status cmd_grid(int argc, char **argv, const rt_options *opt, rt_error *err)
{
	grid_flags f;
	cli_common c;
	svm_data d;
	svm_grid g;
	rt_status st;
	(void)opt;
	memset(&f, 0, sizeof f);
	train_defaults(&f.t);
	f.c = (svm_range){ -5, 15, 2 };
	f.g = (svm_range){ 3, -15, -2 };
	f.folds = 5;
	TRY(parse_args("svm-grid", argc, argv, grid_flag, &f, 1, &c, err));
	if (c.help)
		return (fputs(usage_grid, stdout), RT_OK);
	if (c.npos != 1)
		return rt_fail(err, RT_ERR_INPUT, "svm-grid: expected DATA (see evoforge help svm-grid)");
	TRY(setup(&c, &f.t.p, err));
	if (f.t.p.probability)
		rt_warn("svm-grid: -b 1 is not used (the accuracy is of the one-vs-one votes)");
	f.t.p.probability = 0;
	TRY(load_training(c.pos[0], c.storage, &f.t.p, &d, err));
	st = svm_grid_search(&d, &f.t.p, &f.c, &f.g, f.folds, c.seed, &g, err);
	if (st == RT_OK)
		st = grid_outputs(&c, &f, &g, err);
	svm_grid_free(&g);
	svm_data_free(&d);
	return st;
}

const rt_kind_command svm_commands[] = {
	{ "svm-train", "svm-train [options] DATA [MODEL]   train as LIBSVM's svm-train "
	  "(-s -t -c -n -p -g -v ...)", cmd_train },
	{ "svm-predict", "svm-predict [options] DATA MODEL OUT   predict as LIBSVM's svm-predict",
	  cmd_predict },
	{ "svm-grid", "svm-grid [options] DATA   (C, gamma) grid search by cross-validation, as "
	  "LIBSVM's grid.py", cmd_grid },
	{ NULL, NULL, NULL },
};
