/* svm_export.c: kind `svm`'s deployable artefacts (rt_kind.export_result,
 * eval_result): the run's model (model.txt beside result.json) read back,
 * checked and written as NAME.model in LIBSVM's format, which LIBSVM's own
 * svm-predict reads, and as standalone C99: NAME.c / NAME.h (the support
 * vectors, coefficients, rho, labels and kernel parameters as static const
 * arrays, a predictor and the decision values), NAME-eval.c (a CLI that
 * predicts a LIBSVM or CSV file as svm-predict) and a Makefile, built when
 * cc is present; `evoforge eval` predicts with it as svm-predict does.
 *
 * Why the exported C gives evoforge's labels and decision values bit for
 * bit: NAME.c carries templates/svm/svm_core.h itself (svm_kernel,
 * svm_decision, svm_vote: the functions svm_predict and the GPU kernels
 * use), the model's numbers are printed so that they read back exactly
 * (floats with 9 significant digits, doubles with 17), |sv|^2 is computed
 * here in svm_predict's order, and a point is read as float as evoforge
 * reads data. exp and tanh are the C library's, as in the runtime. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "export.h"
#include "gen.h"
#include "json_read.h"
#include "log.h"
#include "out.h"
#include "svm.h"
#include "svm_impl.h"

/* The run's model: model.txt beside result.json. */
static rt_status run_model(const rt_jval *doc, const char *path, svm_model *m, const char **name,
			   rt_error *err)
{
	char file[RT_PATH_MAX];
	rt_status st;
	memset(m, 0, sizeof *m);
	if ((st = rt_jstring(doc, "name", path, name, err)) ||
	    (st = rt_export_sibling(path, "model.txt", file, sizeof file, err)))
		return st;
	if (!rt_jget(doc, "support_vectors"))
		return rt_fail(err, RT_ERR_INPUT, "%s: expected the result of a training run (with "
			       "support_vectors and model.txt), got that of a cross-validation or "
			       "grid search: no model to export", path);
	return svm_model_read(file, m, err);
}

/* ---- NAME.c and NAME.h: the model as standalone C ------------------------------- */

/* A number as a C literal that reads back exactly: a float with 9
 * significant digits and an f suffix, a double with 17. */
static void c_number(rt_buf *b, double v, int is_float)
{
	char text[40];
	snprintf(text, sizeof text, is_float ? "%.9g" : "%.17g", v);
	rt_buf_printf(b, "%s%s%s", text, strpbrk(text, ".e") ? "" : ".0", is_float ? "f" : "");
}

/* "static const TYPE NAME[n] = { ... };", eight numbers a line. */
static void c_array(gen_source *src, const char *decl, const double *d, const float *f, long n)
{
	rt_buf_printf(&src->text, "%s = {", decl);
	for (long i = 0; i < n; i++) {
		rt_buf_puts(&src->text, i % 8 ? ", " : i ? ",\n\t" : "\n\t");
		c_number(&src->text, f ? (double)f[i] : d[i], f != NULL);
	}
	rt_buf_puts(&src->text, n ? "\n};\n" : "0 };\n");
}

/* Every number of the model finite, 2 to 256 classes (what the exported
 * voting handles, as svm_predict). */
static rt_status model_exportable(const svm_model *m, const char *path, rt_error *err)
{
	long npairs = (long)m->nr_class * (m->nr_class - 1) / 2;
	int finite = isfinite(m->kernel.gamma) && isfinite(m->kernel.coef0);
	if (SVM_IS_SVR(m->type))
		return rt_fail(err, RT_ERR_UNSUPPORTED, "%s: a regression model (%s): the exported C "
			       "predictor votes labels (c_svc, nu_svc and one_class models)", path,
			       svm_type_names[m->type]);
	if (m->sparse)
		return rt_fail(err, RT_ERR_UNSUPPORTED, "%s: %ld support vectors of %d features held "
			       "sparse (a dense copy would pass the storage limit): the exported C "
			       "predictor takes dense support vectors", path, m->total_sv, m->nfeat);
	if (m->nr_class < 2 || m->nr_class > 256 || m->total_sv < 1)
		return rt_fail(err, RT_ERR_UNSUPPORTED, "%s: %d classes, %ld support vectors: the "
			       "exported C predictor handles 2 to 256 classes and at least one support "
			       "vector", path, m->nr_class, m->total_sv);
	for (long p = 0; p < npairs; p++)
		finite = finite && isfinite(m->rho[p]);
	for (long i = 0; i < (long)(m->nr_class - 1) * m->total_sv; i++)
		finite = finite && isfinite(m->sv_coef[i]);
	for (long i = 0; i < m->total_sv * (long)m->nfeat; i++)
		finite = finite && isfinite(m->sv[i]);
	if (!finite)
		return rt_fail(err, RT_ERR_INPUT, "%s: expected finite numbers in the model (kernel "
			       "parameters, rho, coefficients, support vectors), got inf or nan", path);
	return RT_OK;
}

/* The comment that opens NAME.c. */
static void c_header(gen_source *src, const svm_model *m, const char *name, const char *id,
		     const char *result_path)
{
	static const char *const kernels[] = { "linear", "polynomial", "rbf", "sigmoid" };
	gen_line(src, "/* Exported by `evoforge export` from %s (model %s):", result_path, name);
	gen_line(src, " * C-SVC, %s kernel (degree %d, gamma %.17g, coef0 %.17g), %d classes, %ld "
		 "support vectors of %d features.", kernels[m->kernel.type & 3], m->kernel.degree,
		 m->kernel.gamma, m->kernel.coef0, m->nr_class, m->total_sv, m->nfeat);
	gen_line(src, " * A point is x[0 .. %s_NFEAT): LIBSVM's feature index i is x[i - 1].", id);
	gen_line(src, " *\n * It computes what evoforge's svm_predict computes: the point rounded to "
		 "float (as\n * evoforge reads data), svm_core.h's kernel, decision values and "
		 "one-vs-one vote\n * (carried below), in double, without multiply-add contraction "
		 "(gcc -std=c99\n * default; clang: the pragma below; never -ffast-math). The "
		 "labels equal evoforge's;\n * decision values too, bit for bit, where the C "
		 "library's exp and tanh are the same. */");
	gen_line(src, "#if defined(__clang__)\n#pragma STDC FP_CONTRACT OFF\n#endif");
}

/* The model's tables. */
static rt_status c_tables(gen_source *src, const svm_model *m, const char *id, rt_error *err)
{
	char decl[1024];
	long start = 0, npairs = (long)m->nr_class * (m->nr_class - 1) / 2;
	long *starts = rt_malloc((size_t)m->nr_class * sizeof *starts, err);
	double *sq = rt_malloc((size_t)m->total_sv * sizeof *sq + 1, err);
	if (!starts || !sq) {
		free(starts);
		free(sq);
		return RT_ERR_SYSTEM;
	}
	for (int c = 0; c < m->nr_class; c++) {
		starts[c] = start;
		start += m->nsv[c];
	}
	for (long s = 0; s < m->total_sv; s++) {   /* svm_predict's |sv|^2, in its order */
		const float *v = m->sv + (size_t)s * m->nfeat;
		double q = 0;
		for (int f = 0; f < m->nfeat; f++)
			q += (double)v[f] * v[f];
		sq[s] = q;
	}
	gen_line(src, "static const svm_kernel_params %s_kernel = { %d, %d, ", id, m->kernel.type,
		 m->kernel.degree);
	src->text.len--;   /* the line's newline */
	c_number(&src->text, m->kernel.gamma, 0);
	rt_buf_puts(&src->text, ", ");
	c_number(&src->text, m->kernel.coef0, 0);
	rt_buf_puts(&src->text, " };\n");
	rt_buf_printf(&src->text, "const int %s_labels[%s_NCLASSES] = {", id, id);
	for (int c = 0; c < m->nr_class; c++)
		rt_buf_printf(&src->text, "%s%d", c ? ", " : " ", m->label[c]);
	rt_buf_printf(&src->text, " };\n/* Class c's support vectors: %s_start[c] .. + %s_count[c]. */\n"
		      "static const long %s_start[%s_NCLASSES] = {", id, id, id, id);
	for (int c = 0; c < m->nr_class; c++)
		rt_buf_printf(&src->text, "%s%ld", c ? ", " : " ", starts[c]);
	rt_buf_printf(&src->text, " };\nstatic const long %s_count[%s_NCLASSES] = {", id, id);
	for (int c = 0; c < m->nr_class; c++)
		rt_buf_printf(&src->text, "%s%ld", c ? ", " : " ", m->nsv[c]);
	rt_buf_puts(&src->text, " };\n/* rho of each class pair (a, b), a < b, in order. */\n");
	snprintf(decl, sizeof decl, "static const double %s_rho[%s_NPAIRS]", id, id);
	c_array(src, decl, m->rho, NULL, npairs);
	rt_buf_printf(&src->text, "/* LIBSVM's sv_coef: column j of SV s at [j * %s_TOTAL_SV + s]. */\n", id);
	snprintf(decl, sizeof decl, "static const double %s_coef[(%s_NCLASSES - 1) * %s_TOTAL_SV]",
		 id, id, id);
	c_array(src, decl, m->sv_coef, NULL, (long)(m->nr_class - 1) * m->total_sv);
	rt_buf_printf(&src->text, "/* The support vectors, row-major: SV s, feature f at [s * %s_NFEAT + f]. */\n", id);
	snprintf(decl, sizeof decl, "static const float %s_sv[%s_TOTAL_SV * %s_NFEAT > 0 ? "
		 "%s_TOTAL_SV * %s_NFEAT : 1]", id, id, id, id, id);
	c_array(src, decl, NULL, m->sv, m->total_sv * (long)m->nfeat);
	rt_buf_printf(&src->text, "/* |sv|^2 of each support vector (RBF). */\n");
	snprintf(decl, sizeof decl, "static const double %s_sv_sq[%s_TOTAL_SV]", id, id);
	c_array(src, decl, sq, NULL, m->total_sv);
	free(starts);
	free(sq);
	return RT_OK;
}
/* Kernel values of a point: on the stack up to this many support vectors. */
#define KV_ON_STACK 16384

/* The functions after the tables. */
static void c_functions(gen_source *src, const svm_model *m, const char *id)
{
	gen_line(src, "\nint %s_decision_values_f(const float *x, int n, double *dec)\n{", id);
	gen_line(src, "\tunsigned char votes[%s_NCLASSES];\n\tdouble sqx = 0.0;\n\tlong s;", id);
	gen_line(src, "\tint a, b, p, f, nf = n < %s_NFEAT ? n : %s_NFEAT;", id, id);
	if (m->total_sv <= KV_ON_STACK)
		gen_line(src, "\tdouble kv[%s_TOTAL_SV];", id);
	else
		gen_line(src, "\tdouble *kv = malloc(%s_TOTAL_SV * sizeof *kv);\n\tif (!kv)\n"
			 "\t\treturn -1;", id);
	gen_line(src, "\tfor (f = 0; f < n; f++)\n\t\tsqx += (double)x[f] * x[f];");
	gen_line(src, "\tfor (s = 0; s < %s_TOTAL_SV; s++)\n\t\tkv[s] = svm_kernel(&%s_kernel, x, "
		 "%s_sv + s * %s_NFEAT, nf, sqx, %s_sv_sq[s]);", id, id, id, id, id);
	gen_line(src, "\tfor (a = 0, p = 0; a < %s_NCLASSES; a++)\n\t\tfor (b = a + 1; b < %s_NCLASSES; "
		 "b++, p++)\n\t\t\tdec[p] = svm_decision(%s_coef, %s_TOTAL_SV, kv, 1, a, %s_start[a], "
		 "%s_count[a],\n\t\t\t\t\t      b, %s_start[b], %s_count[b], %s_rho[p]);", id, id, id, id,
		 id, id, id, id, id);
	if (m->total_sv > KV_ON_STACK)
		gen_line(src, "\tfree(kv);");
	gen_line(src, "\treturn svm_vote(dec, 1, %s_NCLASSES, votes, 1);\n}\n", id);
	gen_line(src, "int %s_decision_values(const double *x, double *dec)\n{\n\tfloat xf[%s_NFEAT > 0 ? "
		 "%s_NFEAT : 1];\n\tint f;\n\tfor (f = 0; f < %s_NFEAT; f++)\n\t\txf[f] = (float)x[f];\n"
		 "\treturn %s_decision_values_f(xf, %s_NFEAT, dec);\n}\n", id, id, id, id, id, id);
	gen_line(src, "double %s_predict_f(const float *x)\n{\n\tdouble dec[%s_NPAIRS];\n"
		 "\tint best = %s_decision_values_f(x, %s_NFEAT, dec);\n"
		 "\treturn best < 0 ? NAN : (double)%s_labels[best];\n}\n", id, id, id, id, id);
	gen_line(src, "double %s_predict(const double *x)\n{\n\tdouble dec[%s_NPAIRS];\n"
		 "\tint best = %s_decision_values(x, dec);\n"
		 "\treturn best < 0 ? NAN : (double)%s_labels[best];\n}", id, id, id, id);
}

static void c_declarations(gen_source *src, const svm_model *m, const char *id)
{
	gen_line(src, "#ifndef %s_EXPORTED_H\n#define %s_EXPORTED_H\n", id, id);
	gen_line(src, "#define %s_NFEAT %d       /* features: LIBSVM's index i is x[i - 1] */", id,
		 m->nfeat);
	gen_line(src, "#define %s_NCLASSES %d    /* classes, in the order of %s_labels */", id,
		 m->nr_class, id);
	gen_line(src, "#define %s_NPAIRS %d      /* one-vs-one decision values: pairs (a, b), a < b */",
		 id, m->nr_class * (m->nr_class - 1) / 2);
	gen_line(src, "#define %s_TOTAL_SV %ld   /* support vectors */\n", id, m->total_sv);
	gen_line(src, "/* The classes' labels (LIBSVM's label line). */");
	gen_line(src, "extern const int %s_labels[%s_NCLASSES];\n", id, id);
	gen_line(src, "/* The predicted label of x[%s_NFEAT] (rounded to float, as evoforge reads data). */", id);
	gen_line(src, "double %s_predict(const double *x);", id);
	gen_line(src, "double %s_predict_f(const float *x);", id);
	gen_line(src, "/* The decision values dec[%s_NPAIRS] of x[%s_NFEAT] (LIBSVM's order) and the "
		 "winning\n * class's index into %s_labels (votes, ties to the lower index). */", id, id, id);
	gen_line(src, "int %s_decision_values(const double *x, double *dec);", id);
	gen_line(src, "/* The same for x[n]: features beyond %s_NFEAT count in |x|^2 (RBF) as in "
		 "LIBSVM's\n * svm-predict and `evoforge eval`, missing ones are 0; -1 out of "
		 "memory. */", id);
	gen_line(src, "int %s_decision_values_f(const float *x, int n, double *dec);\n\n#endif", id);
}

/* NAME.c and NAME.h into dir. */
static rt_status write_c(const svm_model *m, const char *name, const char *id,
			 const char *result_path, const char *dir, rt_error *err)
{
	gen_source c, h;
	char file[160], what[256];
	rt_status st;
	size_t lines = 1;
	snprintf(file, sizeof file, "%s.c", id);
	snprintf(what, sizeof what, "the SVM model of evoforge run '%s' as a C predictor", name);
	gen_begin(&c, file, what);
	c_header(&c, m, name, id, result_path);
	st = gen_template(&c, "svm/svm_core.h", err);
	for (size_t i = 0; i < c.text.len; i++)
		lines += c.text.data[i] == '\n';
	gen_line(&c, "#line %zu \"%s.c\"\n\n#include <stdlib.h>\n\n#include \"%s.h\"\n", lines + 1, id, id);
	if (st == RT_OK)
		st = c_tables(&c, m, id, err);
	c_functions(&c, m, id);
	if (st == RT_OK && c.text.failed)
		st = rt_fail(err, RT_ERR_SYSTEM, "out of memory writing %s", file);
	if (st == RT_OK)
		st = gen_write(&c, dir, err);
	snprintf(file, sizeof file, "%s.h", id);
	snprintf(what, sizeof what, "the declarations of %s.c", id);
	gen_begin(&h, file, what);
	c_declarations(&h, m, id);
	if (st == RT_OK)
		st = gen_write(&h, dir, err);
	gen_free(&h);
	gen_free(&c);
	return st;
}

/* NAME-eval.c (templates/svm/svm_export_eval.c on NAME's functions) and a Makefile. */
static rt_status write_eval(const char *id, const char *dir, rt_error *err)
{
	gen_source s;
	char file[160], what[512];
	rt_status st;
	snprintf(file, sizeof file, "%s-eval.c", id);
	snprintf(what, sizeof what, "predicts the points of a LIBSVM or CSV file with %s (%s.c)", id, id);
	gen_begin(&s, file, what);
	gen_line(&s, "#include \"%s.h\"\n", id);
	gen_line(&s, "#define EVO_PROGRAM \"%s\"\n#define EVO_NFEAT %s_NFEAT\n#define EVO_NPAIRS %s_NPAIRS\n"
		 "#define EVO_LABELS %s_labels\n#define EVO_DECIDE %s_decision_values_f\n", id, id, id,
		 id, id);
	st = gen_template(&s, "svm/svm_export_eval.c", err);
	if (st == RT_OK)
		st = gen_write(&s, dir, err);
	gen_free(&s);
	return st == RT_OK ? rt_export_makefile(dir, id, err) : st;
}

rt_status svm_export_result(const rt_jval *doc, const char *path, const rt_options *opt,
			    const char *dir, rt_error *err)
{
	svm_model m;
	const char *name;
	char ident[128], file[RT_PATH_MAX], exe[160], srcs[400];
	int built = 0;
	rt_status st = run_model(doc, path, &m, &name, err);
	(void)opt;
	if (st == RT_OK) {
		rt_export_ident(name, ident, sizeof ident);
		if ((st = rt_format(file, sizeof file, err, "%s/%s.model", dir, ident)) == RT_OK)
			st = svm_model_write(file, &m, err);
	}
	if (st == RT_OK)
		rt_info("svm: wrote %s (LIBSVM format: %d classes, %ld support vectors)", file,
			m.nr_class, m.total_sv);
	if (st == RT_OK && (st = model_exportable(&m, path, err)) == RT_OK &&
	    (st = write_c(&m, name, ident, path, dir, err)) == RT_OK &&
	    (st = write_eval(ident, dir, err)) == RT_OK) {
		snprintf(exe, sizeof exe, "%s-eval", ident);
		snprintf(srcs, sizeof srcs, "%s-eval.c %s.c", ident, ident);
		st = rt_export_cc(dir, exe, srcs, &built, err);
	}
	if (st == RT_OK)
		rt_info("svm: wrote %s/%s.c, %s.h, %s-eval.c and a Makefile%s%s", dir, ident, ident,
			ident, built ? "; built " : "", built ? exe : "");
	svm_model_free(&m);
	return st;
}

/* Where eval predicts: --backend cpu the CPU, gpu the GPU, auto the GPU when
 * one answers (a failure there: the CPU after one warning). */
static int eval_where(const rt_options *opt)
{
	rt_backend chosen = RT_BACKEND_CPU;
	rt_error why;
	if (opt->backend == RT_BACKEND_CPU)
		return SVM_PREDICT_CPU;
	if (opt->backend == RT_BACKEND_GPU)
		return SVM_PREDICT_GPU;
	if (rt_backend_select(opt->backend, &chosen, NULL, &why) != RT_OK || chosen != RT_BACKEND_GPU)
		return SVM_PREDICT_CPU;
	return SVM_PREDICT_GPU_OR_CPU;
}

rt_status svm_eval_result(const rt_jval *doc, const char *path, const char *data, const char *out,
			  const rt_options *opt, rt_error *err)
{
	svm_model m;
	const char *name;
	rt_status st;
	if (!out)
		return rt_fail(err, RT_ERR_INPUT, "eval: kind svm writes its labels to a file: "
			       "expected -o OUT");
	if ((st = run_model(doc, path, &m, &name, err)) == RT_OK)
		st = svm_predict_file(&m, data, eval_where(opt), out, err);
	svm_model_free(&m);
	return st;
}
