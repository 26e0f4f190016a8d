/* svm_gpu_driver.c: device-machine driver of the GPU SMO solver (not a unit
 * test; no cmocka). For generated blobs and each LIBSVM file named on the
 * command line (C and gamma after it: file:C:gamma), it trains with the CPU
 * path and the GPU, both working-set rules, and prints a markdown table:
 * objective, rho, SVs, iterations, training accuracy and seconds of each,
 * and the GPU's speed-up. Exit status 1 if an objective differs by more
 * than 1e-3 relative. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "data.h"
#include "log.h"
#include "svm/svm_impl.h"

static int load(const char *path, svm_data *d)
{
	rt_table t;
	rt_error err;
	memset(&t, 0, sizeof t);
	if (rt_libsvm_load(path, 0, &t, &err) != RT_OK) {
		printf("| %s | skipped: %s |\n", path, err.msg);
		return 0;
	}
	if (svm_data_from_table(&t, d, &err) != RT_OK) {
		printf("| %s | skipped: %s |\n", path, err.msg);
		rt_table_free(&t);
		return 0;
	}
	rt_table_free(&t);
	return 1;
}

static void blobs(svm_data *d, long n, int nf)
{
	unsigned s = 12345;
	d->n = n;
	d->nfeat = nf;
	d->x = malloc((size_t)n * nf * sizeof *d->x);
	d->y = malloc((size_t)n * sizeof *d->y);
	for (long i = 0; i < n; i++) {
		d->y[i] = i % 2 ? 1 : -1;
		for (int f = 0; f < nf; f++) {
			s = s * 1103515245u + 12345u;
			d->x[(size_t)i * nf + f] = (float)((s >> 8) / 16777216.0 * 2 - 1 + (f % 2 == i % 2) * 0.6);
		}
	}
}

static double accuracy(const svm_model *m, const svm_data *d)
{
	double *pred = malloc((size_t)d->n * sizeof *pred), acc = NAN;
	rt_error err;
	if (pred && svm_accuracy(m, d, pred, &acc, &err) != RT_OK)
		acc = NAN;
	free(pred);
	return acc;
}

static int run_case(const char *name, const svm_data *d, double C, double gamma, int wss, int roles)
{
	svm_params p;
	svm_model m[2];
	double sec[2], acc[2];
	char label[300];
	rt_error err;
	memset(&p, 0, sizeof p);
	p.kernel.type = SVM_RBF;
	p.kernel.gamma = gamma;
	p.C = C;
	p.eps = 1e-3;
	p.cache_mb = 4000;
	p.wss = wss;
	p.gpu_roles = roles;
	snprintf(label, sizeof label, "%s (gpu %s)", name, roles ? "roles" : "fused");
	name = label;
	for (int g = 0; g < 2; g++) {
		double t0 = rt_now();
		p.gpu = g;
		if (svm_train(d, &p, &m[g], &err) != RT_OK) {
			printf("| %s | error: %s |\n", name, err.msg);
			return 0;
		}
		sec[g] = rt_now() - t0;
		acc[g] = accuracy(&m[g], d);
	}
	double rel = fabs(m[0].obj[0] - m[1].obj[0]) / fabs(m[0].obj[0]);
	printf("| %s | %ld | %s | %.6f | %.6f | %.6f | %.6f | %ld | %ld | %ld | %ld | %.4f | %.4f | "
	       "%.2f | %.3f | %.1fx |\n", name, d->n, wss ? "first" : "second", m[0].obj[0],
	       m[1].obj[0], m[0].rho[0], m[1].rho[0], m[0].total_sv, m[1].total_sv, m[0].iterations,
	       m[1].iterations, acc[0], acc[1], sec[0], sec[1], sec[0] / sec[1]);
	fflush(stdout);
	svm_model_free(&m[0]);
	svm_model_free(&m[1]);
	return rel <= 1e-3;
}

int main(int argc, char **argv)
{
	int bad = 0;
	svm_data d;
	printf("| data | points | wss | obj cpu | obj gpu | rho cpu | rho gpu | SVs cpu | SVs gpu | "
	       "iter cpu | iter gpu | acc cpu | acc gpu | s cpu | s gpu | speed-up |\n");
	printf("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n");
	blobs(&d, 3000, 16);
	for (int w = 0; w < 2; w++)
		for (int r = 0; r < 2; r++)
			bad += !run_case("blobs", &d, 10, 0.1, w, r);
	free(d.x);
	free(d.y);
	for (int a = 1; a < argc; a++) {
		char path[1024];
		double C = 1, gamma = 0;
		snprintf(path, sizeof path, "%s", argv[a]);
		char *c1 = strchr(path, ':');
		if (c1) {
			*c1 = 0;
			C = atof(c1 + 1);
			char *c2 = strchr(c1 + 1, ':');
			if (c2)
				gamma = atof(c2 + 1);
		}
		if (!load(path, &d))
			continue;
		for (int r = 0; r < 2; r++)
			bad += !run_case(path, &d, C, gamma > 0 ? gamma : 1.0 / d.nfeat, 0, r);
		free(d.x);
		free(d.y);
	}
	printf("\nsvm_gpu_driver: %d case(s) outside tolerance\n", bad);
	return bad ? 1 : 0;
}
