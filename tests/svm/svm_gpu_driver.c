/* svm_gpu_driver.c: device-machine driver of the GPU SMO solver (not a unit
 * test; no cmocka). For generated blobs and each LIBSVM file named on the
 * command line (C and gamma after it: file:C:gamma), it trains with the CPU
 * path and the GPU's two ways (persistent, roles), both working-set rules on
 * the blobs, and prints a markdown table:
 * objective, rho, SVs, iterations, training accuracy and seconds of each,
 * and the GPU's speed-up. Exit status 1 if an objective differs by more
 * than 1e-3 relative, or on the generated data the iterations differ. Then
 * the kernels' bandwidth against a copy (svm_gpu_bandwidth). With --types
 * instead: LIBSVM's other types (nu-SVC, one-class, epsilon-SVR, nu-SVR) on
 * blobs, the GPU's iterations, SVs and objective (1e-9 relative) as the
 * CPU's (tools/device-check's svm-types-check). */
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

/* n points of nf features in `classes` overlapping blobs (labels -1, 1 for
 * two classes, else 1..classes). */
static void blobs(svm_data *d, long n, int nf, int classes)
{
	unsigned s = 12345;
	memset(d, 0, sizeof *d);
	d->n = n;
	d->nfeat = nf;
	d->x = malloc((size_t)n * nf * sizeof *d->x);
	d->y = malloc((size_t)n * sizeof *d->y);
	for (long i = 0; i < n; i++) {
		int c = (int)(i % classes);
		d->y[i] = classes == 2 ? (c ? 1 : -1) : c + 1;
		for (int f = 0; f < nf; f++) {
			s = s * 1103515245u + 12345u;
			d->x[(size_t)i * nf + f] = (float)((s >> 8) / 16777216.0 * 2 - 1 +
							   (f % classes == c) * 0.6);
		}
	}
}

/* The largest relative difference of the pairs' objectives. */
static double obj_difference(const svm_model *a, const svm_model *b)
{
	int pairs = a->nr_class * (a->nr_class - 1) / 2;
	double worst = 0;
	for (int q = 0; q < pairs; q++) {
		double rel = fabs(a->obj[q] - b->obj[q]) / fabs(a->obj[q]);
		worst = rel > worst ? rel : worst;
	}
	return worst;
}

static double accuracy(const svm_model *m, const svm_data *d)
{
	double *pred = malloc((size_t)d->n * sizeof *pred), acc = NAN;
	rt_error err;
	if (pred && svm_predict_all(m, d, SVM_PREDICT_CPU, pred, &acc, &err) != RT_OK)
		acc = NAN;
	free(pred);
	return acc;
}

static int train(const char *name, const svm_data *d, svm_params *p, svm_model *m, double *sec,
		 double *acc)
{
	rt_error err;
	double t0 = rt_now();
	if (svm_train(d, p, m, &err) != RT_OK) {
		printf("| %s | error: %s |\n", name, err.msg);
		return 0;
	}
	*sec = rt_now() - t0;
	*acc = accuracy(m, d);
	return 1;
}

/* The CPU once, then each GPU variant (persistent, roles): one row each.
 * same_iter: the GPU must also take the CPU's iterations (generated data). */
static int run_case(const char *name, const svm_data *d, double C, double gamma, int wss,
		    int same_iter)
{
	static const char *const variant[] = { "persistent", "roles" };
	svm_params p;
	svm_model cpu, gpu;
	double sec[2], acc[2];
	int good = 0;
	memset(&p, 0, sizeof p);
	p.kernel.type = SVM_RBF;
	p.kernel.gamma = gamma;
	p.C = C;
	p.eps = 1e-3;
	p.cache_mb = 4000;
	p.wss = wss;
	if (!train(name, d, &p, &cpu, &sec[0], &acc[0]))
		return 0;
	p.gpu = 1;
	for (int r = 0; r < 2; r++) {
		p.gpu_roles = r;
		if (!train(name, d, &p, &gpu, &sec[1], &acc[1]))
			continue;
		double rel = obj_difference(&cpu, &gpu);
		printf("| %s (gpu %s) | %ld | %s | %.6f | %.6f | %.6f | %.6f | %ld | %ld | %ld | %ld | "
		       "%.4f | %.4f | %.2f | %.3f | %.1fx |\n", name, variant[r], d->n,
		       wss ? "first" : "second", cpu.obj[0], gpu.obj[0], cpu.rho[0], gpu.rho[0],
		       cpu.total_sv, gpu.total_sv, cpu.iterations, gpu.iterations, acc[0], acc[1],
		       sec[0], sec[1], sec[0] / sec[1]);
		fflush(stdout);
		good += rel <= 1e-3 && (!same_iter || gpu.iterations == cpu.iterations);
		svm_model_free(&gpu);
	}
	svm_model_free(&cpu);
	return good == 2;
}

/* Type `type` on d: the CPU, then the GPU's persistent kernel and (not the
 * nu-forms, which run on the persistent kernel only) roles; one row each. */
static int run_type_case(const char *name, const svm_data *d, int type)
{
	static const char *const variant[] = { "persistent", "roles" };
	svm_params p;
	svm_model cpu, gpu;
	double sec[2], acc[2];
	int good = 0, variants = type == SVM_NU_SVC || type == SVM_NU_SVR ? 1 : 2;
	memset(&p, 0, sizeof p);
	p.type = type;
	p.kernel.type = SVM_RBF;
	p.kernel.gamma = 0.1;
	p.C = 10;
	p.nu = 0.3;
	p.p_eps = 0.1;
	p.eps = 1e-3;
	p.cache_mb = 4000;
	if (!train(name, d, &p, &cpu, &sec[0], &acc[0]))
		return 0;
	p.gpu = 1;
	for (int r = 0; r < variants; r++) {
		p.gpu_roles = r;
		if (!train(name, d, &p, &gpu, &sec[1], &acc[1]))
			continue;
		double rel = obj_difference(&cpu, &gpu);
		printf("| %s %s (gpu %s) | %ld | %.9g | %.9g | %.9g | %.9g | %ld | %ld | %ld | %ld | "
		       "%.3f | %.3f | %.1fx |\n", name, svm_type_names[type], variant[r], d->n,
		       cpu.obj[0], gpu.obj[0], cpu.rho[0], gpu.rho[0], cpu.total_sv, gpu.total_sv,
		       cpu.iterations, gpu.iterations, sec[0], sec[1], sec[0] / sec[1]);
		fflush(stdout);
		good += rel <= 1e-9 && gpu.iterations == cpu.iterations && gpu.total_sv == cpu.total_sv;
		svm_model_free(&gpu);
	}
	svm_model_free(&cpu);
	return good == variants;
}

/* The types' table: nu-SVC on 2 and 6 classes, one-class, and the SVRs on
 * a target of the first feature plus half the label. */
static int run_types(void)
{
	svm_data d;
	int bad = 0;
	printf("\n| data type | points | obj cpu | obj gpu | rho cpu | rho gpu | SVs cpu | SVs gpu | "
	       "iter cpu | iter gpu | s cpu | s gpu | speed-up |\n"
	       "|---|---|---|---|---|---|---|---|---|---|---|---|---|\n");
	blobs(&d, 3000, 16, 2);
	bad += !run_type_case("blobs", &d, SVM_NU_SVC);
	bad += !run_type_case("blobs", &d, SVM_ONE_CLASS);
	for (long i = 0; i < d.n; i++)
		d.y[i] = d.x[(size_t)i * d.nfeat] + 0.5 * d.y[i];
	bad += !run_type_case("blobs", &d, SVM_EPSILON_SVR);
	bad += !run_type_case("blobs", &d, SVM_NU_SVR);
	free(d.x);
	free(d.y);
	blobs(&d, 6000, 16, 6);
	bad += !run_type_case("blobs, 6 classes", &d, SVM_NU_SVC);
	free(d.x);
	free(d.y);
	return bad;
}

/* One table cell: a kernel's time, bandwidth and share of the copy bound. */
static void cell(double ms, double gbs, double copy_gbs)
{
	printf("| %.1f us, %.0f GB/s, %.0f%% ", ms * 1e3, gbs, 100 * gbs / copy_gbs);
}

/* The kernels' achieved bandwidth as a share of the copy bound (wss: the
 * j pick's rule), and with the first-order rule the seed's fused i and j
 * pick against the two separate passes. */
static void bandwidth_row(const char *name, const svm_data *d, double gamma, int wss)
{
	svm_params p;
	svm_gpu_bw bw;
	rt_error err;
	memset(&p, 0, sizeof p);
	p.kernel.type = SVM_RBF;
	p.kernel.gamma = gamma;
	p.C = 1;
	p.wss = wss;
	if (svm_gpu_bandwidth(d, &p, &bw, &err) != RT_OK) {
		printf("| %s | error: %s |\n", name, err.msg);
		return;
	}
	if (wss == SVM_WSS_FIRST) {
		double sep = bw.pick_i_ms + bw.pick_j1_ms;
		printf("| %s | %ld x %d | fused i+j pick (first order) %.1f us, %.0f GB/s, %.0f%% | "
		       "separate i + j %.1f us | fused / separate %.2f |\n", name, d->n, d->nfeat,
		       bw.pick_both_ms * 1e3, bw.pick_both_gbs, 100 * bw.pick_both_gbs / bw.copy_gbs,
		       sep * 1e3, bw.pick_both_ms / sep);
		fflush(stdout);
		return;
	}
	printf("| %s | %ld x %d | %.0f ", name, d->n, d->nfeat, bw.copy_gbs);
	cell(bw.row_ms, bw.row_gbs, bw.copy_gbs);
	cell(bw.pick_i_ms, bw.pick_i_gbs, bw.copy_gbs);
	cell(bw.pick_i_old_ms, bw.pick_i_old_gbs, bw.copy_gbs);
	cell(bw.phase_a_ms, bw.phase_a_gbs, bw.copy_gbs);
	cell(bw.phase_ag_ms, bw.phase_ag_gbs, bw.copy_gbs);
	cell(bw.pick_j_ms, bw.pick_j_gbs, bw.copy_gbs);
	printf("|\n");
	fflush(stdout);
}

int main(int argc, char **argv)
{
	int bad = 0;
	svm_data d;
	if (argc > 1 && !strcmp(argv[1], "--types")) {
		bad = run_types();
		printf("\nsvm_gpu_driver: %d type case(s) outside tolerance\n", bad);
		return bad ? 1 : 0;
	}
	printf("| data | points | wss | obj cpu | obj gpu | rho cpu | rho gpu | SVs cpu | SVs gpu | "
	       "iter cpu | iter gpu | acc cpu | acc gpu | s cpu | s gpu | speed-up |\n");
	printf("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n");
	blobs(&d, 3000, 16, 2);
	for (int w = 0; w < 2; w++)
		bad += !run_case("blobs", &d, 10, 0.1, w, 1);
	free(d.x);
	free(d.y);
	blobs(&d, 6000, 16, 6);   /* 15 pairs at once on the GPU */
	bad += !run_case("blobs, 6 classes", &d, 10, 0.1, 0, 1);
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
		bad += !run_case(path, &d, C, gamma > 0 ? gamma : 1.0 / d.nfeat, 0, 0);
		free(d.x);
		free(d.y);
	}
	printf("\n| data | points x features | copy GB/s | kernel row | i pick (argmax, svm_pick_i) | "
	       "i pick before (svm_pick_blocks) | persistent i pick (phase A) | "
	       "phase A with G update (33 B) | j pick (WSS2) |\n|---|---|---|---|---|---|---|---|---|\n");
	blobs(&d, 1L << 20, 123, 2);   /* 515 MB: larger than L2 */
	bandwidth_row("blobs", &d, 0.01, SVM_WSS_SECOND);
	bandwidth_row("blobs", &d, 0.01, SVM_WSS_FIRST);
	free(d.x);
	free(d.y);
	blobs(&d, 1L << 23, 4, 2);   /* the picks over 8M points: 143 MB of G, alpha, y */
	bandwidth_row("blobs", &d, 0.01, SVM_WSS_SECOND);
	bandwidth_row("blobs", &d, 0.01, SVM_WSS_FIRST);
	free(d.x);
	free(d.y);
	for (int a = 1; a < argc; a++) {
		char path[1024];
		snprintf(path, sizeof path, "%s", argv[a]);
		if (strchr(path, ':'))
			*strchr(path, ':') = 0;
		if (load(path, &d)) {
			bandwidth_row(path, &d, 0.5, SVM_WSS_SECOND);
			bandwidth_row(path, &d, 0.5, SVM_WSS_FIRST);
			free(d.x);
			free(d.y);
		}
	}
	printf("\nsvm_gpu_driver: %d case(s) outside tolerance\n", bad);
	return bad ? 1 : 0;
}
