/* svm_sparse_driver.c: the device check of kind `svm` on sparse (CSR) data:
 * GPU training (persistent and roles kernels) against the CPU on generated
 * high-dimensional LIBSVM sets (svm_sparse_gen.h: 20 to 50 non-zeros a row;
 * 2,000 x 200,000 and 20,000 x 1,000,000, and a 3-class relabelling: three
 * problems at once) and on a9a forced sparse, where the sparse GPU run must
 * also equal the dense GPU run (the same kernel values bit for bit, so the
 * same iterations and objective). Prints a markdown table; exits 1 when a
 * case is outside tolerance (objective 1e-3 relative against the CPU, as
 * svm_gpu_driver; the SV count within 1 %; sparse = dense exactly), 0
 * otherwise. Usage: svm_sparse_driver [A9A_PATH] (default $EVOFORGE_DATA/
 * svm/a9a, ../shared/data/svm/a9a (test_datasets.h), then shared/data/svm/a9a;
 * a9a is not shipped). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "data.h"
#include "log.h"
#include "svm/svm_impl.h"
#include "svm_sparse_gen.h"
#include "../test_datasets.h"

static int load(const char *path, int storage, svm_data *d)
{
	svm_load_options o = svm_load_defaults();
	rt_error err;
	o.storage = storage;
	if (svm_data_load(path, &o, d, &err) != RT_OK) {
		printf("| %s | error: %s |\n", path, err.msg);
		return 0;
	}
	return 1;
}

static double worst_obj_difference(const svm_model *a, const svm_model *b)
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
	double *pred = malloc((size_t)d->n * sizeof *pred + 1), acc = NAN;
	rt_error err;
	if (pred && svm_predict_all(m, d, SVM_PREDICT_CPU, pred, &acc, &err) != RT_OK)
		acc = NAN;
	free(pred);
	return acc;
}

static int train(const char *name, const svm_data *d, const svm_params *p, svm_model *m,
		 double *sec)
{
	rt_error err;
	double t0 = rt_now();
	if (svm_train(d, p, m, &err) != RT_OK) {
		printf("| %s | error: %s |\n", name, err.msg);
		return 0;
	}
	*sec = rt_now() - t0;
	return 1;
}

static void params(svm_params *p, int type, double C, double gamma)
{
	memset(p, 0, sizeof *p);
	p->kernel.type = type;
	p->kernel.gamma = gamma;
	p->kernel.degree = 3;
	p->C = C;
	p->eps = 1e-3;
	p->cache_mb = 4000;
}

/* The CPU once, then the GPU persistent and roles kernels: a row each.
 * dense_gpu (may be NULL): the same data dense, trained on the GPU
 * (persistent), which the sparse GPU run must equal exactly. */
static int run_case(const char *name, const svm_data *d, const svm_data *dense_gpu, int type,
		    double C, double gamma)
{
	static const char *const variant[] = { "persistent", "roles" };
	static const char *const kernels[] = { "linear", "poly", "rbf", "sigmoid" };
	svm_params p;
	svm_model cpu, gpu, dense;
	double sec[3], acc_cpu, acc_gpu;
	int good = 1;
	params(&p, type, C, gamma);
	if (!train(name, d, &p, &cpu, &sec[0]))
		return 0;
	acc_cpu = accuracy(&cpu, d);
	p.gpu = 1;
	for (int r = 0; r < 2; r++) {
		p.gpu_roles = r;
		if (!train(name, d, &p, &gpu, &sec[1])) {
			good = 0;
			continue;
		}
		acc_gpu = accuracy(&gpu, d);
		double rel = worst_obj_difference(&cpu, &gpu);
		long dsv = labs(cpu.total_sv - gpu.total_sv);
		const char *same = "-";
		if (dense_gpu && r == 0) {
			if (!train(name, dense_gpu, &p, &dense, &sec[2])) {
				good = 0;
				same = "error";
			} else {
				int eq = dense.iterations == gpu.iterations && dense.total_sv == gpu.total_sv &&
					 !memcmp(dense.obj, gpu.obj, sizeof(double));
				same = eq ? "yes" : "NO";
				good &= eq;
				printf("| %s (gpu dense) | %ld x %d | %s | %.6f | | %.6f | | %ld | | %ld | | %.2f s |\n",
				       name, d->n, d->nfeat, kernels[type], dense.obj[0], dense.rho[0],
				       dense.total_sv, dense.iterations, sec[2]);
				svm_model_free(&dense);
			}
		}
		int ok = rel <= 1e-3 && dsv * 100 <= cpu.total_sv;
		good &= ok;
		printf("| %s (gpu %s) | %ld x %d | %s | %.6f | %.6f | %.6f | %.6f | %ld | %ld | %ld | %ld | "
		       "%.4f / %.4f | %.2f s / %.2f s | %.1fx | %s | %s |\n", name, variant[r], d->n,
		       d->nfeat, kernels[type], cpu.obj[0], gpu.obj[0], cpu.rho[0], gpu.rho[0],
		       cpu.total_sv, gpu.total_sv, cpu.iterations, gpu.iterations, acc_cpu, acc_gpu,
		       sec[0], sec[1], sec[0] / sec[1], same, ok ? "ok" : "MISMATCH");
		fflush(stdout);
		svm_model_free(&gpu);
	}
	svm_model_free(&cpu);
	return good;
}

/* A generated set: written, loaded sparse, run with a linear and an RBF kernel. */
static int generated(long n, int nfeat, int classes, int *bad)
{
	char path[256], name[96];
	svm_data d;
	snprintf(path, sizeof path, "/tmp/svm-sparse-driver-%ld-%d-%d.txt", n, nfeat, (int)getpid());
	snprintf(name, sizeof name, "generated %d classes", classes);
	if (sparse_gen_write(path, n, nfeat, 7) != 0) {
		printf("| %s | error: cannot write %s |\n", name, path);
		return ++*bad, 0;
	}
	if (!load(path, SVM_STORAGE_SPARSE, &d)) {
		remove(path);
		return ++*bad, 0;
	}
	remove(path);
	for (long i = 0; classes > 2 && i < d.n; i++)
		d.y[i] = (double)(i % classes + 1);
	*bad += !run_case(name, &d, NULL, SVM_LINEAR, 1, 0);
	*bad += !run_case(name, &d, NULL, SVM_RBF, 4, 0.05);
	svm_data_free(&d);
	return 1;
}

int main(int argc, char **argv)
{
	char found[512];
	const char *a9a = argc > 1 ? argv[1]
			  : test_shared_find("svm/a9a", found, sizeof found) ? found
			  : "shared/data/svm/a9a";
	svm_data s, d;
	int bad = 0;
	printf("| data | points x features | kernel | obj cpu | obj gpu | rho cpu | rho gpu | SVs cpu | "
	       "SVs gpu | iter cpu | iter gpu | acc cpu / gpu | time cpu / gpu | speed-up | "
	       "gpu sparse = gpu dense | result |\n");
	printf("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n");
	generated(2000, 200000, 2, &bad);
	generated(3000, 200000, 3, &bad);
	generated(20000, 1000000, 2, &bad);
	if (load(a9a, SVM_STORAGE_SPARSE, &s)) {
		if (load(a9a, SVM_STORAGE_DENSE, &d)) {
			bad += !run_case("a9a sparse", &s, &d, SVM_RBF, 1, 1.0 / s.nfeat);
			bad += !run_case("a9a sparse", &s, &d, SVM_LINEAR, 1, 0);
			svm_data_free(&d);
		} else {
			bad++;
		}
		svm_data_free(&s);
	} else {
		bad++;
	}
	printf("\nsvm_sparse_driver: %d case(s) outside tolerance\n", bad);
	return bad ? 1 : 0;
}
