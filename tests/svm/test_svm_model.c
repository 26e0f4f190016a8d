/* test_svm_model.c: kind `svm`'s LIBSVM model files (runtime/svm/
 * svm_model.c): bit-exact round trips of two-, three- and four-class
 * models with every kernel type; files as LIBSVM writes them (trailing
 * blanks, probA/probB, CRLF, another header order, one class) read back;
 * malformed files rejected naming the right line; models that cannot be
 * written refused; allocation failures (test build); and, with Debian's
 * svm-predict / svm-train (libsvm-tools; skipped with a reason when
 * absent), LIBSVM's own predictions on our hand-made models equal the
 * one-vs-one votes computed here, and a model svm-train wrote reads back
 * to the same predictions. */
#include <float.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "log.h"
#include "rng.h"
#include "svm/svm_impl.h"

#include "../test_tmp.h"

static int setup(void **state)
{
	(void)state;
	return tmp_setup("svm-model");
}

static void write_bytes(const char *path, const char *text, size_t n)
{
	FILE *f = fopen(path, "wb");
	assert_non_null(f);
	assert_int_equal(fwrite(text, 1, n, f), n);
	assert_int_equal(fclose(f), 0);
}

static void write_text(const char *path, const char *text)
{
	write_bytes(path, text, strlen(text));
}

/* A whole file into a malloc'ed string. */
static char *slurp(const char *path)
{
	FILE *f = fopen(path, "rb");
	char *s;
	long n;
	assert_non_null(f);
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	rewind(f);
	s = malloc((size_t)n + 1);
	assert_non_null(s);
	assert_int_equal(fread(s, 1, (size_t)n, f), (size_t)n);
	s[n] = 0;
	fclose(f);
	return s;
}

/* ---- models ------------------------------------------------------------------------------ */

/* Kernel parameters of type t (degree, gamma and coef0 only where written). */
static svm_kernel_params kernel_of(int t)
{
	svm_kernel_params k = { t, 0, 0, 0 };
	if (t == SVM_POLY)
		k.degree = 3;
	if (t != SVM_LINEAR)
		k.gamma = t == SVM_RBF ? 0.1 + 1.0 / 3 : 0.2;
	if (t == SVM_POLY || t == SVM_SIGMOID)
		k.coef0 = t == SVM_POLY ? 1.0 / 7 : -0.1;
	return k;
}

/* A model of k classes with nsv[c] support vectors each and nfeat features:
 * random doubles over many magnitudes, floats with about a third zeros,
 * the last feature of the first SV nonzero (so nfeat reads back). */
static void make_model(svm_model *m, int t, int k, const long *nsv, int nfeat, uint64_t seed)
{
	rt_rng rng;
	int npairs = k * (k - 1) / 2;
	memset(m, 0, sizeof *m);
	rt_rng_init(&rng, seed, 0);
	m->kernel = kernel_of(t);
	m->nr_class = k;
	m->nfeat = nfeat;
	m->label = malloc((size_t)k * sizeof *m->label);
	m->nsv = malloc((size_t)k * sizeof *m->nsv);
	m->rho = malloc((size_t)(npairs ? npairs : 1) * sizeof *m->rho);
	for (int c = 0; c < k; c++) {
		m->label[c] = (c % 2 ? -1 : 1) * (c + 1) * 3;
		m->nsv[c] = nsv[c];
		m->total_sv += nsv[c];
	}
	for (int q = 0; q < npairs; q++)
		m->rho[q] = ldexp(rt_rng_range(&rng, -1, 1), (int)rt_rng_below(&rng, 60) - 30);
	m->sv_coef = malloc((size_t)((k - 1) * m->total_sv + 1) * sizeof *m->sv_coef);
	m->sv = malloc((size_t)(m->total_sv * nfeat + 1) * sizeof *m->sv);
	for (long i = 0; i < (k - 1) * m->total_sv; i++)
		m->sv_coef[i] = ldexp(rt_rng_range(&rng, -1, 1), (int)rt_rng_below(&rng, 80) - 40);
	for (long i = 0; i < m->total_sv * nfeat; i++)
		m->sv[i] = rt_rng_below(&rng, 3) == 0 ? 0.0f
			   : (float)ldexp(rt_rng_normal(&rng), (int)rt_rng_below(&rng, 30) - 15);
	if (m->total_sv > 0)
		m->sv[nfeat - 1] = 1.5f;
}

/* a and b hold the same model, bit for bit (obj and iterations aside). */
static void assert_same_model(const svm_model *a, const svm_model *b)
{
	int k = a->nr_class, npairs = k * (k - 1) / 2;
	assert_int_equal(a->kernel.type, b->kernel.type);
	assert_int_equal(a->kernel.degree, b->kernel.degree);
	assert_memory_equal(&a->kernel.gamma, &b->kernel.gamma, sizeof a->kernel.gamma);
	assert_memory_equal(&a->kernel.coef0, &b->kernel.coef0, sizeof a->kernel.coef0);
	assert_int_equal(a->nr_class, b->nr_class);
	assert_int_equal(a->total_sv, b->total_sv);
	assert_int_equal(a->nfeat, b->nfeat);
	if (npairs)
		assert_memory_equal(a->rho, b->rho, (size_t)npairs * sizeof *a->rho);
	assert_memory_equal(a->label, b->label, (size_t)k * sizeof *a->label);
	assert_memory_equal(a->nsv, b->nsv, (size_t)k * sizeof *a->nsv);
	if (k > 1 && a->total_sv > 0)
		assert_memory_equal(a->sv_coef, b->sv_coef,
				    (size_t)((k - 1) * a->total_sv) * sizeof *a->sv_coef);
	if (a->total_sv > 0 && a->nfeat > 0)
		assert_memory_equal(a->sv, b->sv, (size_t)(a->total_sv * a->nfeat) * sizeof *a->sv);
}

/* Writes m, reads it back (same model, obj NULL), writes that again
 * (the same bytes). */
static void round_trip(const svm_model *m, const char *name)
{
	char path[400], path2[400];
	char *text, *text2;
	svm_model back;
	rt_error err;
	snprintf(path, sizeof path, "%s/%s.model", tmpdir, name);
	snprintf(path2, sizeof path2, "%s/%s.again.model", tmpdir, name);
	if (svm_model_write(path, m, &err) != RT_OK)
		fail_msg("%s: %s", name, err.msg);
	if (svm_model_read(path, &back, &err) != RT_OK)
		fail_msg("%s: %s", name, err.msg);
	assert_same_model(m, &back);
	assert_null(back.obj);
	assert_int_equal(back.iterations, 0);
	assert_int_equal(svm_model_write(path2, &back, &err), RT_OK);
	text = slurp(path);
	text2 = slurp(path2);
	assert_string_equal(text, text2);
	free(text);
	free(text2);
	svm_model_free(&back);
	assert_null(back.sv);
}

static void round_trip_binary(void **state)
{
	static const long nsv[] = { 3, 4 };
	(void)state;
	for (int t = SVM_LINEAR; t <= SVM_SIGMOID; t++) {
		svm_model m;
		char name[32];
		snprintf(name, sizeof name, "binary%d", t);
		make_model(&m, t, 2, nsv, 5, 100 + (uint64_t)t);
		round_trip(&m, name);
		svm_model_free(&m);
	}
}

static void round_trip_multiclass(void **state)
{
	static const long nsv3[] = { 2, 3, 4 }, nsv4[] = { 1, 0, 2, 3 };
	(void)state;
	for (int t = SVM_LINEAR; t <= SVM_SIGMOID; t++) {
		svm_model m;
		char name[32];
		snprintf(name, sizeof name, "three%d", t);
		make_model(&m, t, 3, nsv3, 7, 200 + (uint64_t)t);
		round_trip(&m, name);
		svm_model_free(&m);
		snprintf(name, sizeof name, "four%d", t);
		make_model(&m, t, 4, nsv4, 3, 300 + (uint64_t)t);
		round_trip(&m, name);
		svm_model_free(&m);
	}
}

/* Extreme values, an all-zero support vector, and a last column of zeros
 * (nfeat reads back as the largest index written). */
static void round_trip_edges(void **state)
{
	static const long nsv[] = { 2, 2 };
	char path[400];
	svm_model m, back;
	rt_error err;
	(void)state;
	make_model(&m, SVM_RBF, 2, nsv, 4, 7);
	m.sv_coef[0] = DBL_MAX;
	m.sv_coef[1] = -4.9406564584124654e-324;   /* the smallest subnormal */
	m.sv_coef[2] = 0.1;
	m.rho[0] = -DBL_MIN;
	m.sv[1] = FLT_MAX;
	m.sv[2] = -FLT_TRUE_MIN;
	for (int f = 0; f < 4; f++)
		m.sv[4 + f] = 0.0f;   /* SV 1: a line of one coefficient */
	m.kernel.gamma = 1e-300;
	round_trip(&m, "edges");
	for (long i = 0; i < m.total_sv; i++)
		m.sv[i * 4 + 3] = 0.0f;
	snprintf(path, sizeof path, "%s/narrow.model", tmpdir);
	assert_int_equal(svm_model_write(path, &m, &err), RT_OK);
	assert_int_equal(svm_model_read(path, &back, &err), RT_OK);
	assert_int_equal(back.nfeat, 3);
	for (long i = 0; i < m.total_sv; i++)
		assert_memory_equal(back.sv + i * 3, m.sv + i * 4, 3 * sizeof *m.sv);
	svm_model_free(&back);
	svm_model_free(&m);
}

/* As LIBSVM writes (trailing blanks, probA/probB), in CRLF, with the
 * header in another order, blank lines, and no final newline. */
static void reads_libsvm_variants(void **state)
{
	static const char text[] =
		"svm_type c_svc\r\nnr_class 3\r\nkernel_type sigmoid\r\n\r\ncoef0 -0.5\r\n"
		"gamma 0.25\r\ntotal_sv 4\r\nlabel 5 -2 9\r\nrho 0.5 -1 2e-3\r\n"
		"probA -1.5 -2.5 -3.5\r\nprobB 0.1 0.2 0.3\r\nnr_sv 2 1 1\r\ndegree 3\r\nSV\r\n"
		"0.5 -0.25 1:0.5 3:-2 \r\n1 2 2:1e-3 \r\n-1 0.125 \r\n-0.5 -1 1:3 2:4 3:5\r\n\r\n  ";
	static const float sv[12] = { 0.5f, 0, -2, 0, 1e-3f, 0, 0, 0, 0, 3, 4, 5 };
	char path[400];
	svm_model m;
	rt_error err;
	(void)state;
	snprintf(path, sizeof path, "%s/variants.model", tmpdir);
	write_text(path, text);
	if (svm_model_read(path, &m, &err) != RT_OK)
		fail_msg("%s", err.msg);
	assert_int_equal(m.kernel.type, SVM_SIGMOID);
	assert_int_equal(m.kernel.degree, 3);
	assert_true(m.kernel.gamma == 0.25 && m.kernel.coef0 == -0.5);
	assert_int_equal(m.nr_class, 3);
	assert_int_equal(m.total_sv, 4);
	assert_int_equal(m.nfeat, 3);
	assert_true(m.rho[0] == 0.5 && m.rho[1] == -1 && m.rho[2] == 2e-3);
	assert_true(m.label[0] == 5 && m.label[1] == -2 && m.label[2] == 9);
	assert_true(m.nsv[0] == 2 && m.nsv[1] == 1 && m.nsv[2] == 1);
	assert_true(m.sv_coef[0] == 0.5 && m.sv_coef[1] == 1 && m.sv_coef[2] == -1 && m.sv_coef[3] == -0.5);
	assert_true(m.sv_coef[4] == -0.25 && m.sv_coef[5] == 2 && m.sv_coef[6] == 0.125 && m.sv_coef[7] == -1);
	assert_memory_equal(m.sv, sv, sizeof sv);
	assert_true(m.probA && m.probA[0] == -1.5 && m.probA[1] == -2.5 && m.probA[2] == -3.5);
	assert_true(m.probB && m.probB[0] == 0.1 && m.probB[1] == 0.2 && m.probB[2] == 0.3);
	/* written back between label and nr_sv (LIBSVM's order), read back the same */
	snprintf(path, sizeof path, "%s/variants-out.model", tmpdir);
	if (svm_model_write(path, &m, &err) != RT_OK)
		fail_msg("%s", err.msg);
	svm_model_free(&m);
	if (svm_model_read(path, &m, &err) != RT_OK)
		fail_msg("%s", err.msg);
	assert_true(m.probA && m.probA[2] == -3.5 && m.probB && m.probB[1] == 0.2);
	svm_model_free(&m);
}

/* LIBSVM writes this for training data of one class. */
static void reads_one_class(void **state)
{
	char path[400];
	svm_model m;
	rt_error err;
	(void)state;
	snprintf(path, sizeof path, "%s/one.model", tmpdir);
	write_text(path, "svm_type c_svc\nkernel_type linear\nnr_class 1\ntotal_sv 0\nrho\nlabel 4\n"
		   "nr_sv 0\nSV\n");
	if (svm_model_read(path, &m, &err) != RT_OK)
		fail_msg("%s", err.msg);
	assert_int_equal(m.nr_class, 1);
	assert_int_equal(m.total_sv, 0);
	assert_int_equal(m.nfeat, 1);
	assert_int_equal(m.label[0], 4);
	round_trip(&m, "one");
	svm_model_free(&m);
}

/* LIBSVM's file of a regression (and one-class): no label or nr_sv lines;
 * read as label {1, -1}, nsv {total_sv, 0}, and written back the same. */
static void reads_regression(void **state)
{
	static const char *const types[] = { "epsilon_svr", "nu_svr", "one_class" };
	char path[400], text[512], *back;
	svm_model m;
	rt_error err;
	(void)state;
	for (int t = 0; t < 3; t++) {
		snprintf(path, sizeof path, "%s/%s.model", tmpdir, types[t]);
		snprintf(text, sizeof text, "svm_type %s\nkernel_type rbf\ngamma 0.5\nnr_class 2\n"
			 "total_sv 2\nrho -0.25\nSV\n0.5 1:1 2:-1\n-0.75 2:3\n", types[t]);
		write_text(path, text);
		if (svm_model_read(path, &m, &err) != RT_OK)
			fail_msg("%s", err.msg);
		assert_int_equal(m.type, t == 2 ? SVM_ONE_CLASS : t == 0 ? SVM_EPSILON_SVR : SVM_NU_SVR);
		assert_int_equal(m.nr_class, 2);
		assert_int_equal(m.label[0], 1);
		assert_int_equal(m.label[1], -1);
		assert_int_equal(m.nsv[0], 2);
		assert_int_equal(m.nsv[1], 0);
		assert_true(m.rho[0] == -0.25 && m.sv_coef[0] == 0.5 && m.sv_coef[1] == -0.75);
		if (svm_model_write(path, &m, &err) != RT_OK)
			fail_msg("%s", err.msg);
		back = slurp(path);
		assert_string_equal(back, text);
		free(back);
		svm_model_free(&m);
	}
}

/* ---- malformed files ---------------------------------------------------------------------- */

#define H_TYPE "svm_type c_svc\n"
#define H_KERN "kernel_type rbf\ngamma 0.5\n"
#define H_REST "nr_class 2\ntotal_sv 2\nrho 0.25\nlabel 1 -1\nnr_sv 1 1\n"
#define HEAD H_TYPE H_KERN H_REST "SV\n"   /* lines 1-9; SVs at 10 and 11 */
#define HEAD3 H_TYPE H_KERN "nr_class 3\ntotal_sv 3\nrho 0.25 0 1\nlabel 1 2 3\nnr_sv 1 1 1\nSV\n"

typedef struct bad_case {
	const char *text;
	int line;
	rt_status status;
	const char *part;
} bad_case;

static const bad_case bad_cases[] = {
	{ "", 1, RT_ERR_INPUT, "ending with an 'SV' line, got end of file" },
	{ "\n\n", 3, RT_ERR_INPUT, "got end of file" },
	{ H_TYPE H_KERN H_REST, 9, RT_ERR_INPUT, "got end of file" },
	{ H_KERN H_REST "SV\n1 1:1\n-1 1:2\n", 8, RT_ERR_INPUT, "expected a 'svm_type' line before 'SV'" },
	{ "svm_type nu-svc\n" H_KERN H_REST "SV\n", 1, RT_ERR_INPUT, "c_svc, nu_svc, one_class, epsilon_svr or nu_svr, got svm_type 'nu-svc'" },
	{ "svm_type one_class\n" H_KERN "nr_class 3\ntotal_sv 0\nrho 1 2 3\nSV\n", 7, RT_ERR_INPUT, "expected 'nr_class 2' for svm_type one_class (line 1), got nr_class 3 (line 4)" },
	{ "svm_type c-svc\n", 1, RT_ERR_INPUT, "got svm_type 'c-svc'" },
	{ "svm_type\n", 1, RT_ERR_INPUT, "expected 'svm_type NAME', got 'svm_type'" },
	{ H_TYPE "kernel_type precomputed\n", 2, RT_ERR_UNSUPPORTED, "got 'precomputed'" },
	{ H_TYPE "kernel_type gaussian\n", 2, RT_ERR_INPUT, "linear, polynomial, rbf or sigmoid" },
	{ H_TYPE "kernel_type rbf\n" H_REST "SV\n", 8, RT_ERR_INPUT, "'gamma' line before 'SV' (kernel_type rbf, line 2" },
	{ H_TYPE "kernel_type polynomial\ngamma 1\ncoef0 0\n" H_REST "SV\n", 10, RT_ERR_INPUT, "'degree' line" },
	{ H_TYPE "kernel_type sigmoid\ngamma 1\n" H_REST "SV\n", 9, RT_ERR_INPUT, "'coef0' line" },
	{ H_TYPE "kernel_type polynomial\ndegree 2.5\n", 3, RT_ERR_INPUT, "got degree '2.5'" },
	{ H_TYPE "kernel_type rbf\ngamma abc\n", 3, RT_ERR_INPUT, "(a finite number), got gamma 'abc'" },
	{ H_TYPE "kernel_type rbf\ngamma nan\n", 3, RT_ERR_INPUT, "got gamma 'nan'" },
	{ H_TYPE H_KERN "nr_class 0\n", 4, RT_ERR_INPUT, "(N from 1 to 256), got nr_class '0'" },
	{ H_TYPE H_KERN "nr_class 2 3\n", 4, RT_ERR_INPUT, "expected 'nr_class N', got 'nr_class 2 3'" },
	{ H_TYPE H_KERN "total_sv -1\n", 4, RT_ERR_INPUT, "got total_sv '-1'" },
	{ H_TYPE H_KERN "rho 0.5\nnr_class 2\n", 4, RT_ERR_INPUT, "'nr_class' line before 'rho'" },
	{ H_TYPE H_KERN "nr_class 2\ntotal_sv 2\nrho 0.25 0.5\n", 6, RT_ERR_INPUT,
	  "expected 1 value after 'rho' (one per pair of classes for nr_class 2, line 4), got 2" },
	{ H_TYPE H_KERN "nr_class 2\ntotal_sv 2\nrho 0.25\nlabel 1\n", 7, RT_ERR_INPUT,
	  "expected 2 values after 'label'" },
	{ H_TYPE H_KERN "nr_class 2\ntotal_sv 2\nrho 0.25\nlabel 1 1\n", 7, RT_ERR_INPUT, "distinct labels" },
	{ H_TYPE H_KERN "nr_class 2\ntotal_sv 2\nrho x\n", 6, RT_ERR_INPUT, "value 1 of 'rho', got 'x'" },
	{ H_TYPE H_KERN "nr_class 2\ntotal_sv 2\nrho 0.25\nlabel 1 -1\nnr_sv 1 2\n", 8, RT_ERR_INPUT,
	  "adding up to total_sv 2 (line 5), got 3" },
	{ H_TYPE H_KERN "nr_class 2\nnr_sv 1 1\nrho 0.25\nlabel 1 -1\ntotal_sv 3\n", 8, RT_ERR_INPUT,
	  "expected 'total_sv 2' (the sum of nr_sv, line 5), got 'total_sv 3'" },
	{ H_TYPE H_KERN "nr_class 2\nnr_sv 1 -1\n", 5, RT_ERR_INPUT, "value 2 of 'nr_sv', got '-1'" },
	{ H_TYPE H_KERN "probA 1\n", 4, RT_ERR_INPUT, "'nr_class' line before 'probA'" },
	{ H_TYPE H_KERN "gamma 2\n", 4, RT_ERR_INPUT, "one 'gamma' line (the first is at line 3)" },
	{ H_TYPE H_KERN "weight 3\n", 4, RT_ERR_INPUT, "expected a header line" },
	{ H_TYPE H_KERN "# a comment\n", 4, RT_ERR_INPUT, "expected a header line" },
	{ H_TYPE H_KERN H_REST "SV 2\n", 9, RT_ERR_INPUT, "'SV' alone" },
	{ H_TYPE H_KERN "nr_class 2\ntotal_sv 2\nrho 0.25\nnr_sv 1 1\nSV\n", 8, RT_ERR_INPUT,
	  "'label' line before 'SV'" },
	{ HEAD "abc 1:1\n-1 1:2\n", 10, RT_ERR_INPUT, "coefficient 1 of 1 (a finite number), got 'abc'" },
	{ HEAD "inf 1:1\n-1 1:2\n", 10, RT_ERR_INPUT, "got 'inf'" },
	{ HEAD "1 1:1\n-1 0:2\n", 11, RT_ERR_INPUT, "indices are 1-based), got '0:2'" },
	{ HEAD "1 2:1 2:3\n-1 1:2\n", 10, RT_ERR_INPUT, "index above 2 (indices must ascend), got '2:3'" },
	{ HEAD "1 3:1 2:3\n-1 1:2\n", 10, RT_ERR_INPUT, "index above 3" },
	{ HEAD "1 3:\n-1 1:2\n", 10, RT_ERR_INPUT, "after '3:', got '3:'" },
	{ HEAD "1 3:1e39\n-1 1:2\n", 10, RT_ERR_INPUT, "within float range" },
	{ HEAD "1 x:1\n-1 1:2\n", 10, RT_ERR_INPUT, "whole-number index, got 'x:1'" },
	{ HEAD "1 1:0.5 junk\n-1 1:2\n", 10, RT_ERR_INPUT, "index:value, got 'junk'" },
	{ HEAD "1 268435457:1\n-1 1:2\n", 10, RT_ERR_INPUT, "SVM_MAX_FEATURES" },
	{ HEAD "1 1:1\n", 11, RT_ERR_INPUT, "support vector 2 of 2 (total_sv, line 5), got end of file" },
	{ HEAD "1 1:1\n\n-1 1:2\n", 11, RT_ERR_INPUT, "support vector 2 of 2 (total_sv, line 5), got an empty line" },
	{ HEAD "1 1:1\n-1 1:2\n\n-1 1:3\n", 13, RT_ERR_INPUT, "end of the file after 2 support vectors" },
	{ HEAD3 "0.5 1:0.2\n", 10, RT_ERR_INPUT, "coefficient 2 of 2 (a finite number), got '1:0.2'" },
	{ HEAD3 "0.5\n", 10, RT_ERR_INPUT, "expected 2 coefficients (nr_class 3, line 4)" },
};

/* A file that fails with status at line, its message holding part; m zeroed. */
static void expect_bad(const char *name, const char *text, size_t len, int line, rt_status status,
		       const char *part)
{
	char path[400], want[512];
	svm_model m;
	rt_error err;
	snprintf(path, sizeof path, "%s/%s", tmpdir, name);
	write_bytes(path, text, len);
	memset(&m, 0xff, sizeof m);
	rt_status st = svm_model_read(path, &m, &err);
	if (st != status)
		fail_msg("%s: status %d, expected %d (%s)", name, st, status, st ? err.msg : "read");
	snprintf(want, sizeof want, "%s:%d: ", path, line);
	if (strncmp(err.msg, want, strlen(want)) || !strstr(err.msg, part))
		fail_msg("%s: expected a message starting '%s' holding '%s', got: %s", name, want,
			 part, err.msg);
	assert_null(m.rho);
	assert_null(m.label);
	assert_null(m.nsv);
	assert_null(m.sv_coef);
	assert_null(m.sv);
}

static void rejects_malformed(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof bad_cases / sizeof *bad_cases; i++) {
		char name[32];
		snprintf(name, sizeof name, "bad%zu.model", i);
		expect_bad(name, bad_cases[i].text, strlen(bad_cases[i].text), bad_cases[i].line,
			   bad_cases[i].status, bad_cases[i].part);
	}
	expect_bad("nul.model", "svm_type c_svc\nkernel\0_type rbf\n", 32, 2, RT_ERR_INPUT, "NUL byte");
}

/* A huge total_sv in a short file fails at its end, without asking for
 * that much memory first. */
static void rejects_short_huge(void **state)
{
	static const char text[] = H_TYPE H_KERN "nr_class 3\ntotal_sv 2000000000\nrho 0 0 0\n"
		"label 1 2 3\nnr_sv 1000000000 999999999 1\nSV\n1 2 1:1\n";
	(void)state;
	expect_bad("huge.model", text, strlen(text), 11, RT_ERR_INPUT,
		   "expected support vector 2 of 2000000000 (total_sv, line 5), got end of file");
}

static void missing_file(void **state)
{
	svm_model m;
	rt_error err;
	(void)state;
	assert_int_equal(svm_model_read("/nonexistent/evoforge.model", &m, &err), RT_ERR_INPUT);
	assert_non_null(strstr(err.msg, "/nonexistent/evoforge.model"));
	assert_null(m.sv);
}

/* Inconsistent or non-finite models are refused and nothing is written. */
static void write_refuses_bad_models(void **state)
{
	static const long nsv[] = { 2, 3 };
	char path[400];
	svm_model m;
	rt_error err;
	(void)state;
	snprintf(path, sizeof path, "%s/refused.model", tmpdir);
	make_model(&m, SVM_POLY, 2, nsv, 3, 5);
	m.nsv[1] = 2;
	assert_int_equal(svm_model_write(path, &m, &err), RT_ERR_INTERNAL);
	assert_non_null(strstr(err.msg, "add up to 4, not total_sv 5"));
	m.nsv[1] = 3;
	m.sv_coef[3] = NAN;
	assert_int_equal(svm_model_write(path, &m, &err), RT_ERR_INTERNAL);
	assert_non_null(strstr(err.msg, "coefficient is not finite"));
	m.sv_coef[3] = 1;
	m.label[1] = m.label[0];
	assert_int_equal(svm_model_write(path, &m, &err), RT_ERR_INTERNAL);
	m.label[1] = 2;
	m.kernel.type = 4;
	assert_int_equal(svm_model_write(path, &m, &err), RT_ERR_INTERNAL);
	assert_int_equal(access(path, F_OK), -1);
	m.kernel.type = SVM_POLY;
	assert_int_equal(svm_model_write(path, &m, &err), RT_OK);
	svm_model_free(&m);
}

#ifdef RT_TESTS
/* Every allocation of a read and a write may fail: a clean error, no leak. */
static void allocation_failures(void **state)
{
	static const long nsv[] = { 2, 3, 1 };
	char path[400];
	svm_model m, back;
	rt_error err;
	int ok = 0;
	(void)state;
	snprintf(path, sizeof path, "%s/alloc.model", tmpdir);
	make_model(&m, SVM_RBF, 3, nsv, 4, 9);
	for (long n = 0; n < 40 && !ok; n++) {
		rt_status st;
		rt_alloc_fail_after(n);
		st = svm_model_write(path, &m, &err);
		rt_alloc_fail_after(-1);
		if (st == RT_OK) {
			ok = 1;
			break;
		}
		assert_int_equal(st, RT_ERR_SYSTEM);
	}
	assert_true(ok);
	ok = 0;
	for (long n = 0; n < 40 && !ok; n++) {
		rt_status st;
		rt_alloc_fail_after(n);
		st = svm_model_read(path, &back, &err);
		rt_alloc_fail_after(-1);
		if (st == RT_OK) {
			assert_same_model(&m, &back);
			svm_model_free(&back);
			ok = 1;
			break;
		}
		assert_int_equal(st, RT_ERR_SYSTEM);
		assert_null(back.rho);
	}
	assert_true(ok);
	svm_model_free(&m);
}
#endif

/* ---- LIBSVM's svm-predict and svm-train ---------------------------------------------------- */

static int have_tool(const char *tool)
{
	char cmd[200];
	snprintf(cmd, sizeof cmd, "command -v %s >/dev/null 2>&1", tool);
	if (system(cmd) == 0)
		return 1;
	printf("SKIP: %s not found (Debian's libsvm-tools has it; tools/setup-debian installs it)\n",
	       tool);
	return 0;
}

/* LIBSVM's kernels, in double on the float support vectors. */
static double kernel(const svm_kernel_params *k, const float *v, const double *x, int n)
{
	double dot = 0, d2 = 0, r = 1, base;
	for (int f = 0; f < n; f++) {
		dot += v[f] * x[f];
		d2 += (v[f] - x[f]) * (v[f] - x[f]);
	}
	switch (k->type) {
	case SVM_LINEAR:
		return dot;
	case SVM_POLY:
		base = k->gamma * dot + k->coef0;
		for (int i = 0; i < k->degree; i++)
			r *= base;
		return r;
	case SVM_RBF:
		return exp(-k->gamma * d2);
	default:
		return tanh(k->gamma * dot + k->coef0);
	}
}

/* LIBSVM's one-vs-one vote for x: pair (a, b), a < b, sums the SVs of
 * class a with coefficient column b-1 and those of class b with column a,
 * minus rho; > 0 votes a, else b; most votes wins, ties to the lower index.
 * *margin: the smallest |decision value| (near 0, rounding may flip it). */
static int vote(const svm_model *m, const double *x, double *margin)
{
	int k = m->nr_class, votes[16] = { 0 }, best = 0;
	long start[17] = { 0 };
	*margin = INFINITY;
	for (int c = 0; c < k; c++)
		start[c + 1] = start[c] + m->nsv[c];
	for (int a = 0, p = 0; a < k; a++)
		for (int b = a + 1; b < k; b++, p++) {
			double dec = -m->rho[p];
			for (long i = start[a]; i < start[a + 1]; i++)
				dec += m->sv_coef[(b - 1) * m->total_sv + i] *
				       kernel(&m->kernel, m->sv + i * m->nfeat, x, m->nfeat);
			for (long i = start[b]; i < start[b + 1]; i++)
				dec += m->sv_coef[a * m->total_sv + i] *
				       kernel(&m->kernel, m->sv + i * m->nfeat, x, m->nfeat);
			votes[dec > 0 ? a : b]++;
			*margin = fmin(*margin, fabs(dec));
		}
	for (int c = 1; c < k; c++)
		if (votes[c] > votes[best])
			best = c;
	return best;
}

/* Runs svm-predict on n points x (row-major, nfeat each) with model;
 * checks every label against vote() where no decision value is within
 * 1e-9 of 0, and that at least two labels occur. Returns how many were
 * checked. */
static long check_svm_predict(const svm_model *m, const char *model, const double *x, long n)
{
	char data[400], out[400], cmd[1400];
	FILE *f;
	long checked = 0;
	int seen[16] = { 0 }, distinct = 0;
	snprintf(data, sizeof data, "%s/points.txt", tmpdir);
	snprintf(out, sizeof out, "%s/predicted.txt", tmpdir);
	f = fopen(data, "w");
	assert_non_null(f);
	for (long i = 0; i < n; i++) {
		fprintf(f, "0");
		for (int j = 0; j < m->nfeat; j++)
			if (x[i * m->nfeat + j] != 0)
				fprintf(f, " %d:%.17g", j + 1, x[i * m->nfeat + j]);
		fprintf(f, "\n");
	}
	assert_int_equal(fclose(f), 0);
	snprintf(cmd, sizeof cmd, "svm-predict '%s' '%s' '%s' >/dev/null", data, model, out);
	assert_int_equal(system(cmd), 0);
	f = fopen(out, "r");
	assert_non_null(f);
	for (long i = 0; i < n; i++) {
		double got, margin;
		int c = vote(m, x + i * m->nfeat, &margin);
		assert_int_equal(fscanf(f, "%lf", &got), 1);
		if (margin < 1e-9)
			continue;
		if (got != m->label[c])
			fail_msg("%s: point %ld: svm-predict says %g, the vote %d", model, i, got, m->label[c]);
		checked++;
		distinct += !seen[c]++;
	}
	fclose(f);
	assert_true(distinct >= 2);
	return checked;
}

/* A grid of points over [-2.5, 2.5]^2 (2 features), into x[121 * 2]. */
static void grid(double *x)
{
	for (int i = 0, n = 0; i < 11; i++)
		for (int j = 0; j < 11; j++, n++) {
			x[2 * n] = -2.5 + 0.5 * i;
			x[2 * n + 1] = -2.5 + 0.5 * j + 0.125 * (i % 3);
		}
}

/* A hand-made model over 2 features: k = 2 (3 SVs) or k = 3 (5 SVs). */
static void hand_model(svm_model *m, int t, int k)
{
	static const float sv2[] = { 1, 2, -1, 0.5f, 0.25f, -1.5f };
	static const double coef2[] = { 0.7, -0.4, -0.3 };
	static const float sv3[] = { 2, 0, 1.5f, 0.5f, -1, 1.75f, -1, -1.75f, -0.5f, -2 };
	static const double coef3[] = { 0.5, 0.5, -1, -0.5, -0.5,     /* column 0 */
					0.5, 0.25, 1, -0.5, -0.75 };  /* column 1 */
	static const double rho3[] = { 0.05, -0.1, 0.02 };
	memset(m, 0, sizeof *m);
	m->kernel = kernel_of(t);
	m->kernel.degree = t == SVM_POLY ? 2 : 0;
	m->nr_class = k;
	m->nfeat = 2;
	m->total_sv = k == 2 ? 3 : 5;
	m->label = malloc((size_t)k * sizeof *m->label);
	m->nsv = malloc((size_t)k * sizeof *m->nsv);
	m->rho = malloc(3 * sizeof *m->rho);
	m->sv = malloc((size_t)m->total_sv * 2 * sizeof *m->sv);
	m->sv_coef = malloc((size_t)((k - 1) * m->total_sv) * sizeof *m->sv_coef);
	memcpy(m->sv, k == 2 ? sv2 : sv3, (size_t)m->total_sv * 2 * sizeof *m->sv);
	memcpy(m->sv_coef, k == 2 ? coef2 : coef3, (size_t)((k - 1) * m->total_sv) * sizeof *m->sv_coef);
	memcpy(m->rho, k == 2 ? (const double[]){ 0.1 } : rho3, (size_t)(k * (k - 1) / 2) * sizeof *m->rho);
	for (int c = 0; c < k; c++) {
		m->label[c] = (c + 1) * 10 - (c == 1 ? 27 : 0);   /* 10, -7, 30 */
		m->nsv[c] = k == 2 ? 1 + c : (c == 1 ? 1 : 2);
	}
}

/* svm-predict reads our hand-made models (every kernel, two and three
 * classes) and predicts what LIBSVM's decision rule says. */
static void svm_predict_reads_ours(void **state)
{
	double x[121 * 2];
	(void)state;
	if (!have_tool("svm-predict"))
		skip();
	grid(x);
	for (int k = 2; k <= 3; k++)
		for (int t = SVM_LINEAR; t <= SVM_SIGMOID; t++) {
			char path[400];
			svm_model m;
			rt_error err;
			long checked;
			snprintf(path, sizeof path, "%s/hand%d-%d.model", tmpdir, k, t);
			hand_model(&m, t, k);
			assert_int_equal(svm_model_write(path, &m, &err), RT_OK);
			checked = check_svm_predict(&m, path, x, 121);
			if (checked < 110)
				fail_msg("%s: only %ld of 121 points away from a boundary", path, checked);
			svm_model_free(&m);
		}
}

/* A model svm-train wrote (three classes, RBF, -b 1 for probA/probB)
 * reads back and votes as svm-predict does. */
static void reads_svm_train_model(void **state)
{
	char data[400], model[400], cmd[1000];
	double x[90 * 2];
	svm_model m;
	rt_error err;
	rt_rng rng;
	FILE *f;
	(void)state;
	if (!have_tool("svm-train") || !have_tool("svm-predict"))
		skip();
	snprintf(data, sizeof data, "%s/blobs.txt", tmpdir);
	snprintf(model, sizeof model, "%s/blobs.model", tmpdir);
	rt_rng_init(&rng, 42, 0);
	f = fopen(data, "w");
	assert_non_null(f);
	for (int i = 0; i < 90; i++) {
		x[2 * i] = (float)(rt_rng_normal(&rng) + (i % 3 == 0 ? 1.5 : -0.75));
		x[2 * i + 1] = (float)(rt_rng_normal(&rng) + (i % 3 == 1 ? 1.3 : i % 3 == 2 ? -1.3 : 0));
		fprintf(f, "%d 1:%.17g 2:%.17g\n", i % 3 + 1, x[2 * i], x[2 * i + 1]);
	}
	assert_int_equal(fclose(f), 0);
	snprintf(cmd, sizeof cmd, "svm-train -q -s 0 -t 2 -g 0.5 -c 2 -b 1 '%s' '%s' >/dev/null", data,
		 model);
	assert_int_equal(system(cmd), 0);
	if (svm_model_read(model, &m, &err) != RT_OK)
		fail_msg("%s", err.msg);
	assert_int_equal(m.nr_class, 3);
	assert_int_equal(m.kernel.type, SVM_RBF);
	assert_true(m.kernel.gamma == 0.5);
	if (check_svm_predict(&m, model, x, 90) < 85)
		fail_msg("too few points away from a boundary");
	svm_model_free(&m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(round_trip_binary),
		cmocka_unit_test(round_trip_multiclass),
		cmocka_unit_test(round_trip_edges),
		cmocka_unit_test(reads_libsvm_variants),
		cmocka_unit_test(reads_one_class),
		cmocka_unit_test(reads_regression),
		cmocka_unit_test(rejects_malformed),
		cmocka_unit_test(rejects_short_huge),
		cmocka_unit_test(missing_file),
		cmocka_unit_test(write_refuses_bad_models),
#ifdef RT_TESTS
		cmocka_unit_test(allocation_failures),
#endif
		cmocka_unit_test(svm_predict_reads_ours),
		cmocka_unit_test(reads_svm_train_model),
	};
	return cmocka_run_group_tests(tests, setup, tmp_teardown);
}
