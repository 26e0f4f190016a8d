/* test_svm_sparse.c: kind `svm` on sparse (CSR) data (svm_sparse.c and its
 * users): the storage rule and conversions; a generated 2,000 x 200,000
 * LIBSVM set (20 to 50 non-zeros a row) loaded sparse (never dense) and
 * trained by `evoforge svm-train` as Debian's svm-train does (the same
 * objective, rho and SV counts, the same predictions; skipped with a reason
 * when libsvm-tools is absent); a9a (its first 3,000 rows; a generated set
 * without it) forced sparse and dense giving identical models (iterations,
 * objective and rho bit for bit, the same model file), identical decision
 * values for every mix of sparse and dense points and support vectors, and
 * identical cross-validation; scaling of sparse data; a model read back
 * sparse; and the sparse GPU solver compiling for sm_90 without spills. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "log.h"
#include "nvrtc.h"
#include "svm/svm_impl.h"

#include "../test_datasets.h"
#include "../test_tmp.h"
#include "svm_cli_test.h"
#include "svm_sparse_gen.h"

static int setup(void **state)
{
	(void)state;
	return cli_setup("svm-sparse");
}

static const char *in_tmp(const char *name)
{
	static char path[2][400];
	static int k;
	k ^= 1;
	snprintf(path[k], sizeof path[k], "%s/%s", tmpdir, name);
	return path[k];
}

static void default_params(svm_params *p, int type, double C, double gamma)
{
	memset(p, 0, sizeof *p);
	p->kernel.type = type;
	p->kernel.gamma = gamma;
	p->kernel.degree = 3;
	p->C = C;
	p->eps = 1e-3;
	p->cache_mb = 100;
}

static void load(const char *path, int storage, svm_data *d)
{
	svm_load_options o = svm_load_defaults();
	rt_error err;
	o.storage = storage;
	if (svm_data_load(path, &o, d, &err) != RT_OK)
		fail_msg("%s", err.msg);
}

/* ---- the storage rule, conversions, subsets ---------------------------------------- */

static void storage_rule_and_conversions(void **state)
{
	rt_error err;
	svm_data d, s, sub;
	long rows[] = { 3, 0, 3 };
	char a[4096], b[4096];
	FILE *f;
	size_t na, nb;
	(void)state;
	assert_int_equal(svm_storage_sparse(SVM_STORAGE_AUTO, 32561, 123, 451592), 0);
	assert_int_equal(svm_storage_sparse(SVM_STORAGE_AUTO, 20000, 1000000, 20000000), 1);
	assert_int_equal(svm_storage_sparse(SVM_STORAGE_AUTO, 2000, 200000, 70000), 1);  /* 0.02 % */
	assert_int_equal(svm_storage_sparse(SVM_STORAGE_AUTO, 100, 20000, 1000), 0);     /* 8 MB */
	assert_int_equal(svm_storage_sparse(SVM_STORAGE_DENSE, 20000, 1000000, 1), 0);
	assert_int_equal(svm_storage_sparse(SVM_STORAGE_SPARSE, 2, 2, 4), 1);
	f = fopen(in_tmp("small.txt"), "w");
	assert_non_null(f);
	fputs("1 2:0.5 7:-1.25\n-1 1:3\n1\n2 3:1e-3 4:2 7:0.75\n", f);
	fclose(f);
	load(in_tmp("small.txt"), SVM_STORAGE_DENSE, &d);
	load(in_tmp("small.txt"), SVM_STORAGE_SPARSE, &s);
	assert_int_equal(d.sparse, 0);
	assert_int_equal(s.sparse, 1);
	assert_null(s.x);
	assert_int_equal(s.n, 4);
	assert_int_equal(s.nfeat, 7);
	assert_int_equal(s.csr.ptr[4], 6);
	assert_int_equal(s.csr.ptr[2], s.csr.ptr[3]);   /* the empty row */
	assert_int_equal(s.csr.col[0], 1);
	assert_true(s.csr.val[1] == -1.25f);
	assert_true(s.sq[0] == 0.25 + 1.5625);
	for (long i = 0; i < 4; i++) {
		assert_true(s.y[i] == d.y[i]);
		assert_true(svm_row_sq(&s, i, 7) == svm_row_sq(&d, i, 7));
		assert_true(svm_row_sq(&s, i, 3) == svm_row_sq(&d, i, 3));
	}
	/* writing: the same file from either storage */
	assert_int_equal(svm_data_write_libsvm(in_tmp("d.txt"), &d, &err), RT_OK);
	assert_int_equal(svm_data_write_libsvm(in_tmp("s.txt"), &s, &err), RT_OK);
	f = fopen(in_tmp("d.txt"), "r");
	na = fread(a, 1, sizeof a, f);
	fclose(f);
	f = fopen(in_tmp("s.txt"), "r");
	nb = fread(b, 1, sizeof b, f);
	fclose(f);
	assert_int_equal(na, nb);
	assert_memory_equal(a, b, na);
	/* subsets keep the storage and the rows */
	assert_int_equal(svm_data_rows(&s, rows, 3, &sub, &err), RT_OK);
	assert_int_equal(sub.sparse, 1);
	assert_int_equal(sub.csr.ptr[3], 8);
	assert_true(sub.y[1] == 1 && sub.y[0] == 2 && sub.sq[2] == s.sq[3]);
	svm_data_free(&sub);
	/* round trips */
	assert_int_equal(svm_data_make_dense(&s, &err), RT_OK);
	assert_int_equal(s.sparse, 0);
	assert_memory_equal(s.x, d.x, sizeof(float) * 28);
	assert_int_equal(svm_data_make_sparse(&d, &err), RT_OK);
	assert_int_equal(d.sparse, 1);
	assert_int_equal(d.csr.ptr[4], 6);
	svm_data_free(&d);
	svm_data_free(&s);
}

/* Scaling sparse data as svm-scale scales the dense data; a rule that would
 * turn zeros into non-zeros is refused. */
static void sparse_scaling(void **state)
{
	svm_load_options o = svm_load_defaults();
	svm_data d, s;
	rt_error err;
	FILE *f = fopen(in_tmp("scale.txt"), "w");
	(void)state;
	assert_non_null(f);
	fputs("1 1:2 3:4\n-1 2:0.5 3:1\n1 1:1 2:3\n-1 3:8\n", f);
	fclose(f);
	o.scale = SVM_SCALE_0TO1;
	o.storage = SVM_STORAGE_DENSE;
	assert_int_equal(svm_data_load(in_tmp("scale.txt"), &o, &d, &err), RT_OK);
	o.storage = SVM_STORAGE_SPARSE;
	assert_int_equal(svm_data_load(in_tmp("scale.txt"), &o, &s, &err), RT_OK);
	assert_int_equal(svm_data_make_dense(&s, &err), RT_OK);
	assert_memory_equal(s.x, d.x, sizeof(float) * 12);
	svm_data_free(&d);
	svm_data_free(&s);
	o.scale = SVM_SCALE_MINUS1TO1;
	assert_int_equal(svm_data_load(in_tmp("scale.txt"), &o, &s, &err), RT_ERR_UNSUPPORTED);
	assert_non_null(strstr(err.msg, "makes sparse data dense"));
}

/* ---- the generated high-dimensional set against LIBSVM ------------------------------ */

typedef struct report {
	double obj, rho;
	long nsv, total;
} report;

static void read_report(report *r)
{
	char line[512];
	FILE *f = fopen(out_path, "r");
	assert_non_null(f);
	memset(r, 0, sizeof *r);
	while (fgets(line, sizeof line, f)) {
		long nbsv;
		sscanf(line, "obj = %lf, rho = %lf", &r->obj, &r->rho);
		sscanf(line, "nSV = %ld, nBSV = %ld", &r->nsv, &nbsv);
		sscanf(line, "Total nSV = %ld", &r->total);
	}
	fclose(f);
}

static void compare_with_libsvm(const char *flags)
{
	report ours, theirs;
	long n;
	assert_int_equal(run("EVO svm-train --backend cpu --storage sparse %s hd.txt ours.model", flags), 0);
	read_report(&ours);
	assert_int_equal(run("svm-train %s hd.txt theirs.model", flags), 0);
	read_report(&theirs);
	printf("  %-18s obj ours %.6f LIBSVM %.6f, rho %.6f / %.6f, nSV %ld / %ld\n", flags, ours.obj,
	       theirs.obj, ours.rho, theirs.rho, ours.total, theirs.total);
	if (fabs(ours.obj - theirs.obj) > 1e-4 * fabs(theirs.obj))
		fail_msg("objective: ours %.6f, LIBSVM %.6f", ours.obj, theirs.obj);
	if (fabs(ours.rho - theirs.rho) > 1e-3 * fmax(1, fabs(theirs.rho)))
		fail_msg("rho: ours %.6f, LIBSVM %.6f", ours.rho, theirs.rho);
	assert_int_equal(ours.nsv, theirs.nsv);
	assert_int_equal(ours.total, theirs.total);
	/* our model predicted by us (sparse) and by LIBSVM: the same labels and line */
	assert_int_equal(run("EVO svm-predict --backend cpu hd-test.txt ours.model ours.pred"), 0);
	assert_int_equal(run("svm-predict hd-test.txt ours.model lib.pred"), 0);
	assert_int_equal(differ("ours.pred", "lib.pred", &n), 0);
	assert_int_equal(n, 600);
	/* LIBSVM's own model: the same labels but for points on the boundary */
	assert_int_equal(run("svm-predict hd-test.txt theirs.model theirs.pred"), 0);
	assert_true(differ("ours.pred", "theirs.pred", &n) <= n / 200);
}

static void high_dimensional_matches_libsvm(void **state)
{
	svm_data d;
	svm_model m;
	svm_params p;
	rt_error err;
	(void)state;
	assert_int_equal(sparse_gen_write(in_tmp("hd.txt"), 2000, 200000, 7), 0);
	assert_int_equal(sparse_gen_write(in_tmp("hd-test.txt"), 600, 200000, 8), 0);
	/* auto storage keeps it sparse (a dense copy would be 1.6 GB at 0.02 % non-zero) */
	load(in_tmp("hd.txt"), SVM_STORAGE_AUTO, &d);
	assert_int_equal(d.sparse, 1);
	assert_null(d.x);
	assert_true(d.nfeat > 190000 && d.nfeat <= 200000);
	default_params(&p, SVM_LINEAR, 1, 0);
	assert_int_equal(svm_train(&d, &p, &m, &err), RT_OK);
	assert_int_equal(m.sparse, 1);   /* and so are the support vectors */
	assert_null(m.sv);
	assert_true(m.total_sv > 0);
	svm_model_free(&m);
	svm_data_free(&d);
	if (!have_libsvm())
		skip();
	compare_with_libsvm("-t 0 -c 1 -h 0");
	compare_with_libsvm("-t 2 -g 0.05 -c 4 -h 0");
	compare_with_libsvm("-t 1 -d 2 -g 0.5 -r 1 -c 1 -h 0");
}

/* ---- forced sparse against dense: identical models ---------------------------------- */

/* The first rows of a9a (not shipped: $EVOFORGE_DATA or ../shared/data, and
 * a generated set when it is absent) to tmpdir/name. */
static void a9a_part(const char *name, long rows)
{
	char a9a[512];
	FILE *in = test_shared_find("svm/a9a", a9a, sizeof a9a) ? fopen(a9a, "r") : NULL, *out;
	char line[4096];
	if (in) {
		assert_non_null(out = fopen(in_tmp(name), "w"));
		for (long r = 0; r < rows && fgets(line, sizeof line, in); r++)
			fputs(line, out);
		fclose(in);
		assert_int_equal(fclose(out), 0);
		return;
	}
	printf("  (svm/a9a absent%s: a generated set instead)\n",
	       test_no_shared_data() ? " or EVOFORGE_NO_SHARED_DATA set" : "");
	assert_int_equal(sparse_gen_write(in_tmp(name), rows, 3000, 11), 0);
}

static void same_models(const svm_model *a, const svm_model *b)
{
	int pairs = a->nr_class * (a->nr_class - 1) / 2;
	assert_int_equal(a->nr_class, b->nr_class);
	assert_int_equal(a->total_sv, b->total_sv);
	assert_int_equal(a->iterations, b->iterations);
	assert_memory_equal(a->obj, b->obj, sizeof(double) * (size_t)pairs);
	assert_memory_equal(a->rho, b->rho, sizeof(double) * (size_t)pairs);
	assert_memory_equal(a->sv_coef, b->sv_coef,
			    sizeof(double) * (size_t)(a->nr_class - 1) * (size_t)a->total_sv);
}

static void file_equal(const char *a, const char *b)
{
	assert_int_equal(run("cmp -s '%s' '%s'", a, b), 0);
}

static void forced_sparse_equals_dense(void **state)
{
	svm_data d, s;
	svm_model md, ms;
	svm_params p;
	rt_error err;
	double *pred[4], *dec[4], acc_d, acc_s;
	(void)state;
	a9a_part("a9a-part", 3000);
	load(in_tmp("a9a-part"), SVM_STORAGE_DENSE, &d);
	load(in_tmp("a9a-part"), SVM_STORAGE_SPARSE, &s);
	assert_int_equal(d.sparse, 0);
	assert_int_equal(s.sparse, 1);
	for (int k = 0; k < 3; k++) {
		static const int types[] = { SVM_RBF, SVM_LINEAR, SVM_POLY };
		default_params(&p, types[k], k == 0 ? 4 : 1, 1.0 / d.nfeat);
		assert_int_equal(svm_train(&d, &p, &md, &err), RT_OK);
		assert_int_equal(svm_train(&s, &p, &ms, &err), RT_OK);
		assert_int_equal(ms.sparse, 1);
		same_models(&md, &ms);
		assert_int_equal(svm_model_write(in_tmp("d.model"), &md, &err), RT_OK);
		assert_int_equal(svm_model_write(in_tmp("s.model"), &ms, &err), RT_OK);
		file_equal(in_tmp("d.model"), in_tmp("s.model"));
		/* every mix of points and support vectors: the same decision values */
		for (int c = 0; c < 4; c++) {
			pred[c] = malloc((size_t)d.n * sizeof(double));
			dec[c] = malloc((size_t)d.n * sizeof(double));
			assert_int_equal(svm_predict_batch_cpu(c & 1 ? &ms : &md, c & 2 ? &s : &d, pred[c],
							       dec[c], &err), RT_OK);
		}
		for (int c = 1; c < 4; c++) {
			assert_memory_equal(pred[0], pred[c], (size_t)d.n * sizeof(double));
			assert_memory_equal(dec[0], dec[c], (size_t)d.n * sizeof(double));
		}
		for (int c = 0; c < 4; c++) {
			free(pred[c]);
			free(dec[c]);
		}
		for (long i = 0; i < 50; i++)
			assert_true(svm_predict_row(&ms, &s, i) == svm_predict(&md, d.x + i * d.nfeat, d.nfeat));
		svm_model_free(&md);
		svm_model_free(&ms);
	}
	/* cross-validation over the same folds */
	default_params(&p, SVM_RBF, 1, 1.0 / d.nfeat);
	assert_int_equal(svm_cross_validation(&d, &p, 3, 1, NULL, &acc_d, &err), RT_OK);
	assert_int_equal(svm_cross_validation(&s, &p, 3, 1, NULL, &acc_s, &err), RT_OK);
	assert_true(acc_d == acc_s);
	svm_data_free(&d);
	svm_data_free(&s);
}

/* A model file read back sparse (the storage limit made tiny): the same
 * predictions and the same file written again; the CLI on it. */
static void model_read_sparse(void **state)
{
	svm_data d;
	svm_model m, r;
	svm_params p;
	rt_error err;
	double *a, *b;
	(void)state;
	assert_int_equal(sparse_gen_write(in_tmp("m.txt"), 300, 5000, 3), 0);
	load(in_tmp("m.txt"), SVM_STORAGE_DENSE, &d);
	default_params(&p, SVM_RBF, 2, 0.1);
	assert_int_equal(svm_train(&d, &p, &m, &err), RT_OK);
	assert_int_equal(svm_model_write(in_tmp("m.model"), &m, &err), RT_OK);
	setenv("EVOFORGE_SVM_DENSE_MB", "0.001", 1);
	assert_int_equal(svm_model_read(in_tmp("m.model"), &r, &err), RT_OK);
	unsetenv("EVOFORGE_SVM_DENSE_MB");
	assert_int_equal(r.sparse, 1);
	assert_int_equal(svm_model_write(in_tmp("r.model"), &r, &err), RT_OK);
	file_equal(in_tmp("m.model"), in_tmp("r.model"));
	a = malloc((size_t)d.n * sizeof *a);
	b = malloc((size_t)d.n * sizeof *b);
	assert_int_equal(svm_predict_all(&m, &d, SVM_PREDICT_CPU, a, NULL, &err), RT_OK);
	/* asking for the GPU with sparse support vectors predicts on the CPU */
	assert_int_equal(svm_predict_all(&r, &d, SVM_PREDICT_GPU, b, NULL, &err), RT_OK);
	assert_memory_equal(a, b, (size_t)d.n * sizeof *a);
	free(a);
	free(b);
	svm_model_free(&m);
	svm_model_free(&r);
	svm_data_free(&d);
	/* the commands: --storage, and a bad value */
	assert_int_equal(run("EVO svm-train -q --backend cpu --storage sparse m.txt c.model"), 0);
	assert_int_equal(run("EVO svm-predict --backend cpu --storage sparse m.txt c.model c.pred"), 0);
	assert_int_equal(run("EVO svm-train --storage thin m.txt"), 2);
}

/* ---- the sparse GPU solver compiles ----------------------------------------------- */

static void gpu_sparse_kernels_compile(void **state)
{
	rt_error err;
	int nopt, maj, min;
	const char *const *opts = svm_gpu_nvrtc_options(&nopt);
	(void)state;
	if (nvrtc_open(&err) != RT_OK || nvrtc_version(&maj, &min, &err) != RT_OK) {
		printf("SKIP: NVRTC not available: %s\n", err.msg);
		skip();
	}
	for (int k = 0; k < 4; k++)
		for (int w = 0; w < 2; w++) {
			static const char *const names[] = { "svm_persistent", "svm_row_csr" };
			svm_params p;
			gen_source src;
			nvrtc_output out;
			nvrtc_usage u;
			memset(&src, 0, sizeof src);
			default_params(&p, k, 1, 0.5);
			p.wss = w;
			p.gpu_module_all = 1;   /* both the persistent and the per-role kernels */
			assert_int_equal(svm_gpu_source(&p, -200000, &src, &err), RT_OK);
			assert_non_null(strstr(src.text.data, "#define SVM_SPARSE 1"));
			if (nvrtc_compile(src.name, src.text.data, "sm_90", opts, nopt, &out, &err) != RT_OK)
				fail_msg("%s", err.msg);
			for (int kernel = 0; kernel < 2; kernel++) {
				if (nvrtc_parse_usage(out.log, names[kernel], &u, &err) != RT_OK)
					fail_msg("%s: %s", names[kernel], err.msg);
				assert_int_equal(u.spill_stores + u.spill_loads, 0);
			}
			nvrtc_output_free(&out);
			gen_free(&src);
		}
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(storage_rule_and_conversions),
		cmocka_unit_test(sparse_scaling),
		cmocka_unit_test(high_dimensional_matches_libsvm),
		cmocka_unit_test(forced_sparse_equals_dense),
		cmocka_unit_test(model_read_sparse),
		cmocka_unit_test(gpu_sparse_kernels_compile),
	};
	(void)argc;
	if (cli_find_evoforge(argv[0], "test_svm_sparse"))
		return 1;
	return cmocka_run_group_tests(tests, setup, tmp_teardown);
}
