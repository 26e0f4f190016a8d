/* svm_predict_driver.c: device-machine driver of batched prediction (not a
 * unit test; no cmocka). Trains on generated blobs (binary, 6 classes; every
 * kernel type on the binary ones) and on each data file (LIBSVM or CSV:
 * file[:C[:gamma]], gamma default 1 / features) or problem spec (.ini: its
 * [data] and [svm] C, gamma) named on the command line (trained on the
 * GPU, the CPU if that fails), predicts
 * every training point with svm_predict_batch_cpu and svm_gpu_predict (one
 * batch, then batches of 100 points: EVOFORGE_SVM_PREDICT_BATCH) and prints
 * a markdown table: points, SVs, classes, CPU ms, GPU ms (with compile and
 * upload), labels equal, the largest decision-value difference relative to
 * max(1, |CPU's|). Exit status 1 if a label differs or a difference is over
 * 1e-9, or the GPU fails. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "log.h"
#include "spec.h"
#include "svm/svm_impl.h"

#define TOLERANCE 1e-9

/* A problem spec (.ini: its [data] as the kind loads it, its [svm] C and
 * gamma) or a data file (LIBSVM or CSV, as given). */
static int load(const char *path, svm_data *d, double *C, double *gamma)
{
	svm_load_options o = svm_load_defaults();
	char train[RT_PATH_MAX], test[RT_PATH_MAX];
	svm_data t = { 0 };
	rt_spec spec;
	rt_error err;
	rt_status st;
	if (!strstr(path, ".ini"))
		st = svm_data_load(path, &o, d, &err);
	else if ((st = rt_spec_load(&spec, path, &err)) == RT_OK) {
		if ((st = rt_spec_double(&spec, "svm", "C", 1.0, 1e-12, 1e12, C, &err)) == RT_OK &&
		    (st = rt_spec_double(&spec, "svm", "gamma", 0.0, 0.0, 1e12, gamma, &err)) == RT_OK &&
		    (st = svm_data_spec_options(&spec, &o, &err)) == RT_OK)
			st = svm_data_load_spec(&spec, &o, train, d, test, &t, &err);
		svm_data_free(&t);
		rt_spec_free(&spec);
	}
	if (st != RT_OK)
		printf("| %s | skipped: %s |\n", path, err.msg);
	return st == RT_OK;
}

/* n points of nf features in `classes` overlapping blobs (labels -1, 1 for
 * two classes, else 1..classes). */
static void blobs(svm_data *d, long n, int nf, int classes, unsigned seed)
{
	rt_error err;
	if (svm_data_alloc(d, n, nf, &err) != RT_OK)
		exit(2);
	for (long i = 0; i < n; i++) {
		int c = (int)(i % classes);
		d->y[i] = classes == 2 ? (c ? 1 : -1) : c + 1;
		for (int f = 0; f < nf; f++) {
			seed = seed * 1103515245u + 12345u;
			d->x[(size_t)i * nf + f] = (float)((seed >> 8) / 16777216.0 * 2 - 1 +
							   (f % classes == c) * 0.6);
		}
	}
}

/* The largest |gpu - cpu| / max(1, |cpu|) of n values. */
static double worst_difference(const double *cpu, const double *gpu, size_t n)
{
	double worst = 0;
	for (size_t i = 0; i < n; i++) {
		double rel = fabs(gpu[i] - cpu[i]) / fmax(1.0, fabs(cpu[i]));
		worst = rel > worst || isnan(rel) ? rel : worst;
	}
	return worst;
}

/* One row: CPU and GPU predictions of d with m (batch: the points a GPU
 * batch, 0 for the default); 1 if they agree. */
static int compare(const char *name, const svm_model *m, const svm_data *d, const char *batch)
{
	size_t np = (size_t)m->nr_class * (m->nr_class - 1) / 2;
	double *pc = malloc((size_t)d->n * sizeof *pc), *pg = malloc((size_t)d->n * sizeof *pg);
	double *dc = malloc((size_t)d->n * np * sizeof *dc), *dg = malloc((size_t)d->n * np * sizeof *dg);
	double t0, t1, t2, diff;
	long differ = 0;
	rt_error err = { 0 };
	int ok = 0;
	if (batch)
		setenv("EVOFORGE_SVM_PREDICT_BATCH", batch, 1);
	else
		unsetenv("EVOFORGE_SVM_PREDICT_BATCH");
	t0 = rt_now();
	if (!pc || !pg || !dc || !dg || svm_predict_batch_cpu(m, d, pc, dc, &err) != RT_OK)
		printf("| %s | CPU error: %s |\n", name, err.msg);
	else if (t1 = rt_now(), svm_gpu_predict(m, d, pg, dg, &err) != RT_OK)
		printf("| %s | GPU error: %s |\n", name, err.msg);
	else {
		t2 = rt_now();
		for (long i = 0; i < d->n; i++)
			differ += pc[i] != pg[i];
		diff = worst_difference(dc, dg, (size_t)d->n * np);
		ok = differ == 0 && diff <= TOLERANCE;
		printf("| %s | %s | %ld | %ld | %d | %.1f | %.1f | %s | %.2e |%s\n", name,
		       batch ? batch : "auto", d->n, m->total_sv, m->nr_class, 1e3 * (t1 - t0),
		       1e3 * (t2 - t1), differ ? "NO" : "yes", diff, ok ? "" : " **MISMATCH**");
	}
	fflush(stdout);
	free(pc);
	free(pg);
	free(dc);
	free(dg);
	return ok;
}

/* Trains d with kernel type and (C, gamma) (on the GPU when gpu and it
 * works, else the CPU), then compares with the default batch and with
 * batches of 100 points. */
static int run_case(const char *name, const svm_data *d, int type, double C, double gamma,
		    int gpu)
{
	svm_params p = { .kernel = { type, 3, gamma, 0.5 }, .C = C, .eps = 1e-3, .cache_mb = 2000 };
	svm_model m;
	rt_error err;
	char label[1100];
	int good;
	if (type == SVM_SIGMOID)
		p.kernel.coef0 = -0.5;
	p.gpu = gpu;
	rt_status st = svm_train(d, &p, &m, &err);
	if (st != RT_OK && gpu) {
		p.gpu = 0;
		st = svm_train(d, &p, &m, &err);
	}
	if (st != RT_OK) {
		printf("| %s | training error: %s |\n", name, err.msg);
		return 0;
	}
	snprintf(label, sizeof label, "%s, kernel %d", name, type);
	good = compare(label, &m, d, NULL);
	good &= compare(label, &m, d, "100");
	svm_model_free(&m);
	return good;
}

int main(int argc, char **argv)
{
	int bad = 0;
	svm_data d;
	printf("| data | batch | points | SVs | classes | CPU ms | GPU ms | labels equal | "
	       "max dec diff |\n|---|---|---|---|---|---|---|---|---|\n");
	blobs(&d, 4000, 16, 2, 12345);
	for (int type = 0; type < 4; type++)
		bad += !run_case("blobs", &d, type, 10, 0.1, 0);
	svm_data_free(&d);
	blobs(&d, 6000, 16, 6, 777);
	bad += !run_case("blobs, 6 classes", &d, SVM_RBF, 10, 0.1, 0);
	svm_data_free(&d);
	for (int a = 1; a < argc; a++) {
		char path[1024], *c1, *c2;
		double C = 1, gamma = 0;
		snprintf(path, sizeof path, "%s", argv[a]);
		if ((c1 = strchr(path, ':'))) {
			*c1 = 0;
			C = atof(c1 + 1);
			if ((c2 = strchr(c1 + 1, ':')))
				gamma = atof(c2 + 1);
		}
		if (!load(path, &d, &C, &gamma)) {
			bad++;
			continue;
		}
		bad += !run_case(path, &d, SVM_RBF, C, gamma > 0 ? gamma : 1.0 / d.nfeat, 1);
		svm_data_free(&d);
	}
	printf("\nsvm_predict_driver: %d case(s) with a mismatch or an error (tolerance %g)\n", bad,
	       TOLERANCE);
	return bad ? 1 : 0;
}
