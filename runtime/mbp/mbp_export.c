/* mbp_export.c: kind `mbp`'s deployable artefacts (rt_kind.export_result
 * and eval_result): the run's best network (network.net beside
 * result.json, read back with the strict reader first so that only a
 * well-formed network is exported) in evoforge's documented text format
 * (mbp_impl.h), and as standalone C99: NAME.c / NAME.h (the weights and the
 * training ranges as static const arrays, the forward pass, input scaling,
 * output unscaling and the class), NAME-eval.c (a CSV evaluator) and a
 * Makefile, built when cc is present; `evoforge eval` runs the network on a
 * CSV with the runtime's own forward pass.
 *
 * Why the exported C gives the run's outputs bit for bit: NAME.c carries
 * templates/mbp/mbp_core.h (the neurons, activations and the polynomial exp
 * both backends train with) and mbp_export.h (the loop, scaling and class,
 * which eval uses too), in float, weights printed with 9 significant digits
 * (they read back as the same floats), compiled without multiply-add
 * contraction (gcc -std=c99; clang gets a pragma).
 *
 * Names: the inputs' and classes' names are the run's data's, found by
 * loading the run's spec (result.json "spec") when it still describes the
 * network (same inputs, outputs and input ranges); otherwise x1 .. xN and
 * 0 .. K-1, with a warning. Regression or classification comes from
 * result.json (classification runs report train_accuracy). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "data.h"
#include "export.h"
#include "gen.h"
#include "json_read.h"
#include "log.h"
#include "mbp.h"
#include "mbp/mbp_export.h"
#include "mbp_impl.h"
#include "out.h"

/* What export and eval need of a run. */
typedef struct mbp_run_best {
	const char *name, *spec;
	char ident[128];
	char net_path[RT_PATH_MAX];
	mbp_net net;
	int classes;               /* 0: regression */
	char **inputs;             /* [ni] */
	char **class_names;        /* [classes] */
	int named;                 /* names from the run's data (else x1.., 0..) */
} mbp_run_best;

static void best_free(mbp_run_best *b)
{
	for (int i = 0; b->inputs && i < b->net.shape.ni; i++)
		free(b->inputs[i]);
	for (int c = 0; b->class_names && c < b->classes; c++)
		free(b->class_names[c]);
	free(b->inputs);
	free(b->class_names);
	mbp_net_free(&b->net);
	memset(b, 0, sizeof *b);
}

/* Does the dataset of the run's spec still describe the network? */
static int data_matches(const mbp_dataset *d, const mbp_run_best *b)
{
	const mbp_net *n = &b->net;
	if (d->ni != n->shape.ni || d->no != n->shape.no || d->classes != b->classes)
		return 0;
	for (int i = 0; i < d->ni; i++)
		if (d->in_min[i] != n->in_min[i] || d->in_max[i] != n->in_max[i])
			return 0;
	return 1;
}

/* The names: the run's data's (its spec reloaded) or x1.., 0... */
static rt_status load_names(mbp_run_best *b, const rt_options *opt, rt_error *err)
{
	rt_spec spec;
	mbp_job job;
	rt_error why;
	char buf[32];
	int ni = b->net.shape.ni, quiet = rt_log_quiet();
	memset(&spec, 0, sizeof spec);
	memset(&job, 0, sizeof job);
	memset(&why, 0, sizeof why);
	if (!(b->inputs = rt_calloc((size_t)ni, sizeof *b->inputs, err)) ||
	    !(b->class_names = rt_calloc((size_t)b->classes + 1, sizeof *b->class_names, err)))
		return RT_ERR_SYSTEM;
	rt_log_set_quiet(1);
	b->named = rt_spec_load_named(&spec, b->spec, &why) == RT_OK &&
		   mbp_job_from_spec(&job, &spec, opt, &why) == RT_OK && data_matches(&job.data, b);
	rt_log_set_quiet(quiet);
	if (!b->named)
		rt_warn("mbp: the run's spec %s no longer describes its network (%s): inputs named "
			"x1 .. x%d, classes 0 .. %d", b->spec, why.msg[0] ? why.msg : "other data", ni,
			b->classes - 1);
	for (int i = 0; i < ni; i++) {
		snprintf(buf, sizeof buf, "x%d", i + 1);
		if (!(b->inputs[i] = rt_strdup(b->named ? job.data.input_names[i] : buf, err)))
			break;
	}
	for (int c = 0; c < b->classes && b->inputs[ni - 1]; c++) {
		snprintf(buf, sizeof buf, "%d", c);
		if (!(b->class_names[c] = rt_strdup(b->named ? job.data.class_names[c] : buf, err)))
			break;
	}
	mbp_job_free(&job);
	rt_spec_free(&spec);
	return b->inputs[ni - 1] && (b->classes == 0 || b->class_names[b->classes - 1])
	       ? RT_OK : RT_ERR_SYSTEM;
}

/* Reads the run's network and what surrounds it. */
static rt_status best_load(const rt_jval *doc, const char *path, const rt_options *opt,
			   mbp_run_best *b, rt_error *err)
{
	const rt_jval *res, *acc;
	rt_status st;
	memset(b, 0, sizeof *b);
	if ((st = rt_jstring(doc, "name", path, &b->name, err)) ||
	    (st = rt_jstring(doc, "spec", path, &b->spec, err)) ||
	    (st = rt_jarray(doc, "results", path, &res, err)) ||
	    (st = rt_export_sibling(path, "network.net", b->net_path, sizeof b->net_path, err)) ||
	    (st = mbp_net_read(b->net_path, &b->net, err)))
		return st;
	rt_export_ident(b->name, b->ident, sizeof b->ident);
	if (!b->net.has_ranges)
		return rt_fail(err, RT_ERR_INPUT, "%s: expected input_range and target_range lines "
			       "(a network written by a run), got none", b->net_path);
	acc = res->n > 0 ? rt_jget(&res->items[0], "train_accuracy") : NULL;
	b->classes = acc ? (b->net.shape.no == 1 ? 2 : b->net.shape.no) : 0;
	return load_names(b, opt, err);
}

/* ---- NAME.c and NAME.h ------------------------------------------------------------ */

/* A float as a C literal that reads back as the same float. */
static void c_float(rt_buf *b, float v)
{
	char text[40];
	snprintf(text, sizeof text, "%.9g", (double)v);
	rt_buf_printf(b, "%s%sf", text, strpbrk(text, ".e") ? "" : ".0");
}

/* s as a C string literal. */
static void c_string(rt_buf *b, const char *s)
{
	rt_buf_puts(b, "\"");
	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		if (*p == '"' || *p == '\\')
			rt_buf_printf(b, "\\%c", *p);
		else if (*p < 32 || *p >= 127)
			rt_buf_printf(b, "\\%03o", *p);
		else
			rt_buf_append(b, (const char *)p, 1);
	}
	rt_buf_puts(b, "\"");
}

/* "static const float NAME[n] = { ... };" of v, eight a line. */
static void c_floats(gen_source *src, const char *id, const char *what, const float *v, int n)
{
	rt_buf_printf(&src->text, "static const float %s_%s[%d] = {", id, what, n);
	for (int i = 0; i < n; i++) {
		rt_buf_puts(&src->text, i % 8 ? ", " : i ? ",\n\t" : "\n\t");
		c_float(&src->text, v[i]);
	}
	rt_buf_puts(&src->text, "\n};\n");
}

/* The weights, layer by layer with a comment each, one neuron's row a line. */
static void c_weights(gen_source *src, const mbp_run_best *b)
{
	const mbp_shape *s = &b->net.shape;
	struct { const char *what; int off, rows, inputs; } layer[4] = {
		{ "main layer 1 (hidden)", s->off_w1, s->h1, s->ni },
		{ "main layer 2 (hidden)", s->off_w2, s->h2, s->h1 },
		{ "output layer", s->off_wo, s->no, s->nlast },
		{ "space network (each h1 neuron's importance)", s->off_ws, s->space ? s->h1 : 0, s->ni },
	};
	rt_buf_printf(&src->text, "static const float %s_w[%d] = {", b->ident, s->nweights);
	for (int l = 0; l < 4; l++) {
		if (layer[l].rows == 0)
			continue;
		rt_buf_printf(&src->text, "\n\t/* %s: %d neurons, each its bias then %d weights */",
			      layer[l].what, layer[l].rows, layer[l].inputs);
		for (int j = 0; j < layer[l].rows; j++) {
			const float *row = b->net.w + layer[l].off + (size_t)j * (layer[l].inputs + 1);
			for (int k = 0; k <= layer[l].inputs; k++) {
				rt_buf_puts(&src->text, k == 0 ? "\n\t" : k % 8 ? ", " : ",\n\t\t");
				c_float(&src->text, row[k]);
			}
			rt_buf_puts(&src->text, ",");
		}
	}
	rt_buf_puts(&src->text, "\n};\n");
}

/* The comment that opens NAME.c. */
static void c_header(gen_source *src, const mbp_run_best *b, const char *result_path)
{
	const mbp_shape *s = &b->net.shape;
	gen_line(src, "/* Exported by `evoforge export` from %s (network %s):", result_path, b->name);
	gen_line(src, " * %s %d-%d%s%.0d-%d, activations hidden %s, output %s%s%s, %d weights.",
		 s->space ? "MBP (selective h1 neurons, space network)" : "BP", s->ni, s->h1,
		 s->h2 ? "-" : "", s->h2, s->no, mbp_activation_names[s->act_hidden],
		 mbp_activation_names[s->act_output], s->space ? ", space " : "",
		 s->space ? mbp_activation_names[s->act_space] : "", s->nweights);
	gen_line(src, " * Inputs (raw units, in the order of %s_inputs%s): %s_scale_inputs maps them "
		 "to the\n * network's [-1, 1] as training did.", b->ident,
		 b->named ? ", the run's data's columns" : "", b->ident);
	if (b->classes)
		gen_line(src, " * Output: %d classes (%s_class: %s).", b->classes, b->ident,
			 s->no == 1 ? "one output, class 1 at or above the middle of its range"
				    : "the largest output");
	else
		gen_line(src, " * Output: a regression, %s_predict_f gives it in the target's units.",
			 b->ident);
	gen_line(src, " *\n * It computes what evoforge's forward pass computes, bit for bit: "
		 "mbp_core.h's\n * neurons and polynomial exp and mbp_export.h's scaling (carried "
		 "below), in float,\n * without multiply-add contraction (gcc -std=c99 default; "
		 "clang: the pragma below;\n * never -ffast-math). */");
	gen_line(src, "#if defined(__clang__)\n#pragma STDC FP_CONTRACT OFF\n#endif");
}

/* The tables and functions after the inlined templates. */
static void c_body(gen_source *src, const mbp_run_best *b)
{
	const mbp_shape *s = &b->net.shape;
	const char *id = b->ident;
	rt_buf_printf(&src->text, "static const mbp_shape %s_shape = { .ni = %d, .h1 = %d, .h2 = %d, "
		      ".no = %d, .space = %d,\n\t.act_hidden = %d, .act_output = %d, .act_space = %d, "
		      ".off_w1 = %d, .off_w2 = %d, .off_wo = %d,\n\t.off_ws = %d, .nweights = %d, "
		      ".nlast = %d };\n", id, s->ni, s->h1, s->h2, s->no, s->space, s->act_hidden,
		      s->act_output, s->act_space, s->off_w1, s->off_w2, s->off_wo, s->off_ws,
		      s->nweights, s->nlast);
	c_weights(src, b);
	rt_buf_puts(&src->text, "/* The training data's range of each input, and of each target. */\n");
	c_floats(src, id, "in_min", b->net.in_min, s->ni);
	c_floats(src, id, "in_max", b->net.in_max, s->ni);
	c_floats(src, id, "out_min", b->net.out_min, s->no);
	c_floats(src, id, "out_max", b->net.out_max, s->no);
	rt_buf_printf(&src->text, "/* The output activation's range the targets were scaled to. */\n"
		      "static const float %s_lo = ", id);
	c_float(&src->text, b->net.out_lo);
	rt_buf_printf(&src->text, ", %s_hi = ", id);
	c_float(&src->text, b->net.out_hi);
	rt_buf_printf(&src->text, ";\n\nconst char *const %s_inputs[%s_NINPUTS] = {", id, id);
	for (int i = 0; i < s->ni; i++) {
		rt_buf_puts(&src->text, i % 6 ? ", " : i ? ",\n\t" : "\n\t");
		c_string(&src->text, b->inputs[i]);
	}
	rt_buf_printf(&src->text, "\n};\nconst char *const %s_classes[%d] = {", id,
		      b->classes > 0 ? b->classes : 1);
	for (int c = 0; c < b->classes; c++) {
		rt_buf_puts(&src->text, c ? ", " : " ");
		c_string(&src->text, b->class_names[c]);
	}
	gen_line(src, "%s};\n", b->classes ? " " : " \"\" ");
	gen_line(src, "void %s_forward_f(const float *x, float *y)\n{\n\tfloat y1[%d], y2[%d];\n"
		 "\tmbp_export_forward(&%s_shape, %s_w, x, y1, y2, y);\n}\n", id, s->h1,
		 s->h2 > 0 ? s->h2 : 1, id, id);
	gen_line(src, "void %s_forward(const double *x, double *y)\n{\n\tfloat xf[%s_NINPUTS], "
		 "yf[%s_NOUTPUTS];\n\tint k;\n\tfor (k = 0; k < %s_NINPUTS; k++)\n\t\txf[k] = (float)x[k];\n"
		 "\t%s_forward_f(xf, yf);\n\tfor (k = 0; k < %s_NOUTPUTS; k++)\n\t\ty[k] = yf[k];\n}\n",
		 id, id, id, id, id, id);
	gen_line(src, "void %s_scale_inputs(const float *raw, float *x)\n{\n\tint k;\n"
		 "\tfor (k = 0; k < %s_NINPUTS; k++)\n\t\tx[k] = mbp_export_scale(raw[k], %s_in_min[k], "
		 "%s_in_max[k]);\n}\n", id, id, id, id);
	gen_line(src, "void %s_predict_f(const float *raw, float *out)\n{\n\tfloat x[%s_NINPUTS];\n"
		 "\tint o;\n\t%s_scale_inputs(raw, x);\n\t%s_forward_f(x, out);\n"
		 "\tfor (o = 0; %s_NCLASSES == 0 && o < %s_NOUTPUTS; o++)\n\t\tout[o] = "
		 "mbp_export_unscale(out[o], %s_out_min[o], %s_out_max[o], %s_lo, %s_hi);\n}\n",
		 id, id, id, id, id, id, id, id, id, id);
	gen_line(src, "int %s_class(const float *y)\n{\n\treturn %s_NCLASSES > 0 ? "
		 "mbp_export_class(y, %s_NOUTPUTS, %s_lo, %s_hi) : -1;\n}", id, id, id, id, id);
}

static void c_declarations(gen_source *src, const mbp_run_best *b)
{
	const char *id = b->ident;
	gen_line(src, "#ifndef %s_EXPORTED_H\n#define %s_EXPORTED_H\n", id, id);
	gen_line(src, "#define %s_NINPUTS %d    /* inputs, in the order of %s_inputs */", id,
		 b->net.shape.ni, id);
	gen_line(src, "#define %s_NOUTPUTS %d   /* the network's outputs */", id, b->net.shape.no);
	gen_line(src, "#define %s_NCLASSES %d   /* 0: regression */\n", id, b->classes);
	gen_line(src, "/* The inputs' names (the training data's columns) and the classes' names. */");
	gen_line(src, "extern const char *const %s_inputs[%s_NINPUTS];", id, id);
	gen_line(src, "extern const char *const %s_classes[];\n", id);
	gen_line(src, "/* The network on scaled inputs x[%s_NINPUTS] (in [-1, 1] over the training "
		 "data):\n * its outputs y[%s_NOUTPUTS], in float as evoforge computes them. */", id, id);
	gen_line(src, "void %s_forward_f(const float *x, float *y);", id);
	gen_line(src, "/* The same with double inputs (rounded to float) and outputs. */");
	gen_line(src, "void %s_forward(const double *x, double *y);", id);
	gen_line(src, "/* Raw inputs (the training data's units) to the network's scaled inputs. */");
	gen_line(src, "void %s_scale_inputs(const float *raw, float *x);", id);
	gen_line(src, "/* Raw inputs to the outputs: in the target's units for a regression, the "
		 "network's\n * for a classification (then see %s_class). */", id);
	gen_line(src, "void %s_predict_f(const float *raw, float *out);", id);
	gen_line(src, "/* The class index (into %s_classes) the outputs stand for; -1 for a "
		 "regression. */", id);
	gen_line(src, "int %s_class(const float *y);\n\n#endif", id);
}

/* NAME.c and NAME.h into dir. */
static rt_status write_c(const mbp_run_best *b, const char *result_path, const char *dir,
			 rt_error *err)
{
	gen_source c, h;
	char file[160], what[256];
	size_t lines = 1;
	rt_status st;
	snprintf(file, sizeof file, "%s.c", b->ident);
	snprintf(what, sizeof what, "the network of evoforge run '%s' as C code", b->name);
	gen_begin(&c, file, what);
	c_header(&c, b, result_path);
	st = gen_template(&c, "mbp/mbp_export.h", err);
	for (size_t i = 0; i < c.text.len; i++)
		lines += c.text.data[i] == '\n';
	gen_line(&c, "#line %zu \"%s.c\"\n\n#include \"%s.h\"\n", lines + 1, b->ident, b->ident);
	c_body(&c, b);
	if (st == RT_OK && c.text.failed)
		st = rt_fail(err, RT_ERR_SYSTEM, "out of memory writing %s", file);
	if (st == RT_OK)
		st = gen_write(&c, dir, err);
	snprintf(file, sizeof file, "%s.h", b->ident);
	snprintf(what, sizeof what, "the declarations of %s.c", b->ident);
	gen_begin(&h, file, what);
	c_declarations(&h, b);
	if (st == RT_OK)
		st = gen_write(&h, dir, err);
	gen_free(&h);
	gen_free(&c);
	return st;
}

/* NAME-eval.c (templates/mbp/mbp_export_eval.c on NAME's functions) and a Makefile. */
static rt_status write_eval(const mbp_run_best *b, const char *dir, rt_error *err)
{
	gen_source s;
	char file[160], what[512];
	const char *id = b->ident;
	rt_status st;
	snprintf(file, sizeof file, "%s-eval.c", id);
	snprintf(what, sizeof what, "runs %s (%s.c) on the rows of a CSV file", id, id);
	gen_begin(&s, file, what);
	gen_line(&s, "#include \"%s.h\"\n", id);
	gen_line(&s, "#define EVO_PROGRAM \"%s\"\n#define EVO_NINPUTS %s_NINPUTS\n#define EVO_INPUTS "
		 "%s_inputs\n#define EVO_NOUTPUTS %s_NOUTPUTS\n#define EVO_NCLASSES %s_NCLASSES\n"
		 "#define EVO_CLASSES %s_classes\n#define EVO_PREDICT %s_predict_f\n"
		 "#define EVO_CLASS_OF %s_class\n", id, id, id, id, id, id, id, id);
	st = gen_template(&s, "mbp/mbp_export_eval.c", err);
	if (st == RT_OK)
		st = gen_write(&s, dir, err);
	gen_free(&s);
	return st == RT_OK ? rt_export_makefile(dir, id, err) : st;
}

rt_status mbp_export_result(const rt_jval *doc, const char *path, const rt_options *opt,
			    const char *dir, rt_error *err)
{
	mbp_run_best b;
	char dst[RT_PATH_MAX], exe[160], srcs[400], *text = NULL;
	size_t size;
	int built = 0;
	rt_status st = best_load(doc, path, opt, &b, err);
	if (st == RT_OK && (st = rt_read_file(b.net_path, &text, &size, err)) == RT_OK &&
	    (st = rt_format(dst, sizeof dst, err, "%s/%s.net", dir, b.ident)) == RT_OK)
		st = rt_write_file_atomic(dst, text, size, err);
	if (st == RT_OK)
		rt_info("mbp: wrote %s (%d inputs, %d outputs, %d weights)", dst, b.net.shape.ni,
			b.net.shape.no, b.net.shape.nweights);
	if (st == RT_OK && (st = write_c(&b, path, dir, err)) == RT_OK &&
	    (st = write_eval(&b, dir, err)) == RT_OK) {
		snprintf(exe, sizeof exe, "%s-eval", b.ident);
		snprintf(srcs, sizeof srcs, "%s-eval.c %s.c", b.ident, b.ident);
		st = rt_export_cc(dir, exe, srcs, &built, err);
	}
	if (st == RT_OK)
		rt_info("mbp: wrote %s/%s.c, %s.h, %s-eval.c and a Makefile%s%s", dir, b.ident, b.ident,
			b.ident, built ? "; built " : "", built ? exe : "");
	free(text);
	best_free(&b);
	return st;
}

/* ---- eval: the runtime's forward pass on a CSV ------------------------------------ */

/* Column of t holding each input (by name) into col[]. */
static rt_status input_columns(const mbp_run_best *b, const rt_table *t, int *col, rt_error *err)
{
	for (int k = 0; k < b->net.shape.ni; k++) {
		col[k] = -1;
		for (int j = 0; j < t->ncols && col[k] < 0; j++)
			col[k] = !strcmp(t->colnames[j], b->inputs[k]) ? j : -1;
		if (col[k] < 0)
			return rt_fail(err, RT_ERR_INPUT, "%s:1: expected a column named '%s' (input %d "
				       "of the network), found none", t->path, b->inputs[k], k + 1);
		if (t->cats[col[k]].n > 0)
			return rt_fail(err, RT_ERR_INPUT, "%s: column '%s': expected numbers, got text "
				       "('%s')", t->path, b->inputs[k], t->cats[col[k]].names[0]);
	}
	return RT_OK;
}

/* The outputs (and class) of every row of t as NAME-eval writes them. */
static rt_status outputs_csv(const mbp_run_best *b, const rt_table *t, const int *col, rt_buf *o,
			     rt_error *err)
{
	const mbp_shape *s = &b->net.shape;
	float *x = rt_malloc(((size_t)s->ni + (size_t)s->no) * sizeof *x, err), *y;
	if (!x)
		return RT_ERR_SYSTEM;
	y = x + s->ni;
	for (int k = 0; k < s->no; k++)
		rt_buf_printf(o, "%soutput_%d", k ? "," : "", k + 1);
	rt_buf_puts(o, b->classes ? ",class\n" : "\n");
	for (size_t r = 0; r < t->nrows; r++) {
		for (int k = 0; k < s->ni; k++)
			x[k] = mbp_export_scale(rt_table_at(t, col[k], r), b->net.in_min[k],
						b->net.in_max[k]);
		mbp_forward(s, b->net.w, x, y);
		for (int k = 0; k < s->no; k++)
			rt_buf_printf(o, "%s%.9g", k ? "," : "", b->classes ? (double)y[k] :
				      (double)mbp_export_unscale(y[k], b->net.out_min[k], b->net.out_max[k],
								 b->net.out_lo, b->net.out_hi));
		if (b->classes)
			rt_buf_printf(o, ",%s", b->class_names[mbp_export_class(y, s->no, b->net.out_lo,
										  b->net.out_hi)]);
		rt_buf_puts(o, "\n");
	}
	free(x);
	return o->failed ? rt_fail(err, RT_ERR_SYSTEM, "out of memory formatting the outputs") : RT_OK;
}

rt_status mbp_eval_result(const rt_jval *doc, const char *path, const char *data, const char *out,
			  const rt_options *opt, rt_error *err)
{
	mbp_run_best b;
	rt_table t;
	rt_csv_options o = rt_csv_defaults();
	rt_buf text = { 0 };
	int *col = NULL;
	rt_status st;
	memset(&t, 0, sizeof t);
	o.label = NULL;
	o.label_index = -2;
	if ((st = best_load(doc, path, opt, &b, err)) == RT_OK &&
	    (st = rt_csv_load(data, &o, &t, err)) == RT_OK &&
	    (col = rt_malloc((size_t)b.net.shape.ni * sizeof *col, err)) != NULL &&
	    (st = input_columns(&b, &t, col, err)) == RT_OK)
		st = outputs_csv(&b, &t, col, &text, err);
	if (st == RT_OK && !col)
		st = RT_ERR_SYSTEM;
	if (st == RT_OK && out)
		st = rt_write_file_atomic(out, text.data, text.len, err);
	else if (st == RT_OK && (fwrite(text.data, 1, text.len, stdout) != text.len || fflush(stdout)))
		st = rt_fail(err, RT_ERR_SYSTEM, "writing the outputs to standard output failed");
	rt_buf_free(&text);
	free(col);
	rt_table_free(&t);
	best_free(&b);
	return st;
}
