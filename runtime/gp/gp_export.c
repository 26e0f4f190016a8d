/* gp_export.c: kind `gp`'s deployable artefacts (rt_kind.export_result and
 * eval_result): the run's best program, read back exactly from result.json
 * (best.prefix), as standalone C99 and a CSV evaluator; and `evoforge eval`
 * on the runtime's own CPU interpreter.
 *
 * Why the exported C gives the run's values bit for bit: the expression of
 * every operation is the stringified expression of templates/gp/gp_ops.h's
 * table (the one definition), the file carries gp_ops.h, gp_math.h and
 * gp_fitness.h themselves (inlined by the generator), the arithmetic is in
 * float as in the interpreters, and C99 compilers evaluate it without
 * contracting multiply-adds (gcc -std=c99; clang gets a pragma). Constants
 * print with 9 significant digits, which read back as the same float. */
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "data.h"
#include "export.h"
#include "gen.h"
#include "gp.h"
#include "gp_conv.h"
#include "gp_eval.h"
#include "gp/gp_fitness.h"
#include "log.h"
#include "out.h"

/* What export and eval need of a run (strings point into the parsed JSON). */
typedef struct gp_run_best {
	char ident[128];           /* C identifier made of the problem name */
	const char *problem, *spec, *infix, *label;
	gp_tree tree;
	int ninputs, nclasses;
	const char **inputs, **classes;
	int fitness_kind;          /* GP_FIT_MSE or GP_FIT_CLASS */
	double fitness;            /* NaN when the run's was not finite */
	double generation;
} gp_run_best;

static void best_free(gp_run_best *b)
{
	gp_tree_free(&b->tree);
	free(b->inputs);
	free(b->classes);
	memset(b, 0, sizeof *b);
}

/* The strings of array `key` into a fresh *out (NULL items are errors). */
static rt_status string_array(const rt_jval *doc, const char *key, const char *path,
			      const char ***out, int *n, rt_error *err)
{
	const rt_jval *a;
	rt_status st = rt_jarray(doc, key, path, &a, err);
	*out = NULL;
	*n = 0;
	if (st != RT_OK)
		return st;
	if (!(*out = rt_calloc((size_t)a->n + 1, sizeof **out, err)))
		return RT_ERR_SYSTEM;
	for (int i = 0; i < a->n; i++) {
		if (a->items[i].type != RT_JSTRING)
			return rt_fail(err, RT_ERR_INPUT, "%s:%d: '%s': expected strings", path,
				       a->items[i].line, key);
		(*out)[i] = a->items[i].str;
	}
	*n = a->n;
	return RT_OK;
}

/* Reads the run's best program and what surrounds it from result.json. */
static rt_status best_load(const rt_jval *doc, const char *path, gp_run_best *b, rt_error *err)
{
	const char *prefix, *fit;
	const rt_jval *v;
	rt_status st;
	memset(b, 0, sizeof *b);
	if ((st = rt_jstring(doc, "problem", path, &b->problem, err)) ||
	    (st = rt_jstring(doc, "best.prefix", path, &prefix, err)) ||
	    (st = rt_jstring(doc, "data.fitness", path, &fit, err)) ||
	    (st = string_array(doc, "data.input_names", path, &b->inputs, &b->ninputs, err)))
		return st;
	if (!strcmp(fit, "misclassified cases")) {
		b->fitness_kind = GP_FIT_CLASS;
		if ((st = string_array(doc, "data.classes", path, &b->classes, &b->nclasses, err)))
			return st;
	} else if (strcmp(fit, "mse")) {
		return rt_fail(err, RT_ERR_UNSUPPORTED, "%s: data.fitness '%s': export and eval "
			       "handle float programs (mse, misclassified cases), not Boolean ones",
			       path, fit);
	}
	b->spec = (v = rt_jget(doc, "spec")) && v->type == RT_JSTRING ? v->str : "";
	b->infix = (v = rt_jget(doc, "best.infix")) && v->type == RT_JSTRING ? v->str : "";
	b->label = (v = rt_jget(doc, "data.label")) && v->type == RT_JSTRING ? v->str : "";
	b->fitness = (v = rt_jget(doc, "best.fitness")) && v->type == RT_JNUMBER ? v->num : NAN;
	b->generation = (v = rt_jget(doc, "best.generation")) && v->type == RT_JNUMBER ? v->num : -1;
	rt_export_ident(b->problem, b->ident, sizeof b->ident);
	if (b->ninputs < 1 || (b->fitness_kind == GP_FIT_CLASS && b->nclasses < 1))
		return rt_fail(err, RT_ERR_INPUT, "%s: expected data.input_names (and data.classes) to "
			       "name at least one input (class)", path);
	if ((st = gp_parse_prefix(prefix, b->ninputs, &b->tree, err)) != RT_OK)
		rt_error_prefix(err, "%s:%d: best.prefix", path, rt_jget(doc, "best.prefix")->line);
	else if (b->tree.n < 1 || b->tree.nodes[0].op >= GP_NFLOAT_OPS)
		st = rt_fail(err, RT_ERR_INPUT, "%s: best.prefix: expected a float program rooted at "
			     "a function", path);
	return st;
}

/* ---- the program as a C expression ------------------------------------------ */

/* Each float operation's C expression over a, b, c: gp_ops.h's, as text. */
static const char *const op_expr[] = {
#define GP_EXPR_(E, name, arity, expr) #expr,
	GP_FLOAT_OPS(GP_EXPR_)
#undef GP_EXPR_
};

/* A float constant as a C literal that reads back as the same float. */
static void c_float(rt_buf *b, float v)
{
	char text[40];
	snprintf(text, sizeof text, "%.9g", (double)v);
	rt_buf_printf(b, "%s%s%sf%s", v < 0 ? "(" : "", text,
		      strpbrk(text, ".e") ? "" : ".0", v < 0 ? ")" : "");
}

/* Writes the subtree at node i into b; returns the index past it. */
static int c_expr(rt_buf *b, const gp_node *nodes, int i)
{
	const gp_node *nd = &nodes[i];
	rt_buf arg[3] = {{0}, {0}, {0}};
	int next = i + 1, ar = gp_node_arity(nd);
	if (nd->op == GP_TERM_VAR) {
		rt_buf_printf(b, "x[%u]", (unsigned)nd->var);
		return next;
	}
	if (nd->op == GP_TERM_CONST) {
		c_float(b, nd->value);
		return next;
	}
	for (int k = 0; k < ar; k++)
		next = c_expr(&arg[k], nodes, next);
	for (const char *p = op_expr[nd->op]; *p; p++) {
		int ident = (p == op_expr[nd->op] || !(p[-1] == '_' || isalnum((unsigned char)p[-1])));
		if (ident && *p >= 'a' && *p < 'a' + ar && !(p[1] == '_' || isalnum((unsigned char)p[1])))
			rt_buf_append(b, arg[*p - 'a'].data ? arg[*p - 'a'].data : "",
				      arg[*p - 'a'].len);
		else
			rt_buf_append(b, p, 1);
	}
	for (int k = 0; k < 3; k++) {
		b->failed |= arg[k].failed;
		rt_buf_free(&arg[k]);
	}
	return next;
}

/* Appends text to b, breaking lines at spaces after column ~90 (tokens of
 * the expression never contain spaces). */
static void wrapped(rt_buf *b, const char *text, const char *indent)
{
	int col = 0;
	for (const char *p = text; *p; p++, col++) {
		if (*p == ' ' && col > 88) {
			rt_buf_printf(b, "\n%s", indent);
			col = 16;
			continue;
		}
		rt_buf_append(b, p, 1);
	}
}

/* ---- export: NAME.c, NAME.h, NAME-eval.c, Makefile ----------------------------- */

/* The comment that opens NAME.c: where the program came from and how to read it. */
static void c_header(gen_source *src, const gp_run_best *b, const char *result_path)
{
	gen_line(src, "/* Exported by `evoforge export` from %s", result_path);
	gen_line(src, " * (problem %s, spec %s).", b->problem, b->spec);
	if (b->fitness_kind == GP_FIT_MSE)
		gen_line(src, " * Fitness on the run's data: mean squared error %.9g (generation %.0f, "
			 "%d nodes).", b->fitness, b->generation, b->tree.n);
	else
		gen_line(src, " * Fitness on the run's data: %.0f misclassified cases (generation %.0f, "
			 "%d nodes).", b->fitness, b->generation, b->tree.n);
	gen_line(src, " *\n * Inputs:");
	for (int i = 0; i < b->ninputs; i++)
		gen_line(src, " *   x[%d] = %s", i, b->inputs[i]);
	if (b->fitness_kind == GP_FIT_CLASS) {
		gen_line(src, " * Output: the class %s_class(out) = clamp(rint(out), 0, %d) (NaN: none):",
			 b->ident, b->nclasses - 1);
		for (int i = 0; i < b->nclasses; i++)
			gen_line(src, " *   %d = %s", i, b->classes[i]);
	} else {
		gen_line(src, " * Output: the predicted %s.", b->label[0] ? b->label : "value");
	}
	if (strlen(b->infix) < 4000 && !strstr(b->infix, "*/"))
		gen_line(src, " *\n * The program (infix): %s", b->infix);
	gen_line(src, " *\n * Operations are gp_ops.h's protected forms, in float, as evoforge evaluates "
		 "them;\n * compiled without multiply-add contraction (gcc -std=c99 default; clang: the\n"
		 " * pragma below), the results equal evoforge's bit for bit. */");
	gen_line(src, "#if defined(__clang__)\n#pragma STDC FP_CONTRACT OFF\n#endif");
}

/* The functions after the inlined templates. */
static void c_functions(gen_source *src, const gp_run_best *b, const char *expr)
{
	const char *id = b->ident;
	size_t lines = 1;
	for (size_t i = 0; i < src->text.len; i++)
		lines += src->text.data[i] == '\n';
	gen_line(src, "#line %zu \"%s.c\"", lines + 1, id);
	gen_line(src, "\n#include \"%s.h\"\n", id);
	rt_buf_printf(&src->text, "const char *const %s_inputs[%s_NINPUTS] = {", id, id);
	for (int i = 0; i < b->ninputs; i++)
		rt_buf_printf(&src->text, "%s\"%s\"", i ? ", " : "", b->inputs[i]);
	rt_buf_printf(&src->text, "};\nconst char *const %s_classes[%d] = {", id,
		      b->nclasses > 0 ? b->nclasses : 1);
	for (int i = 0; i < b->nclasses; i++)
		rt_buf_printf(&src->text, "%s\"%s\"", i ? ", " : "", b->classes[i]);
	gen_line(src, "%s};\n", b->nclasses ? "" : "\"\"");
	rt_buf_printf(&src->text, "float %s_f(const float *x)\n{\n\treturn ", id);
	wrapped(&src->text, expr, "\t\t");
	gen_line(src, ";\n}\n");
	gen_line(src, "double %s(const double *x)\n{\n\tfloat xf[%s_NINPUTS];\n\tint k;\n"
		 "\tfor (k = 0; k < %s_NINPUTS; k++)\n\t\txf[k] = (float)x[k];\n"
		 "\treturn (double)%s_f(xf);\n}\n", id, id, id, id);
	gen_line(src, "void %s_batch(const float *x, long n, float *out)\n{\n\tlong i;\n"
		 "\tfor (i = 0; i < n; i++)\n\t\tout[i] = %s_f(x + i * %s_NINPUTS);\n}\n", id, id, id);
	gen_line(src, "int %s_class(float out)\n{\n\tfloat c = gp_class_of(out, (float)(%s_NCLASSES - 1));"
		 "\n\treturn %s_NCLASSES > 0 && c == c ? (int)c : -1;\n}", id, id, id);
}

static void c_declarations(gen_source *src, const gp_run_best *b)
{
	const char *id = b->ident;
	gen_line(src, "#ifndef %s_EXPORTED_H\n#define %s_EXPORTED_H\n", id, id);
	gen_line(src, "#define %s_NINPUTS %d   /* inputs, in the order of %s_inputs */", id,
		 b->ninputs, id);
	gen_line(src, "#define %s_NCLASSES %d  /* 0: regression */\n", id, b->nclasses);
	gen_line(src, "/* The inputs' names (the training data's columns) and the classes' names. */");
	gen_line(src, "extern const char *const %s_inputs[%s_NINPUTS];", id, id);
	gen_line(src, "extern const char *const %s_classes[];\n", id);
	gen_line(src, "/* The program on one case (x[%s_NINPUTS]), in float as evoforge computes it. */", id);
	gen_line(src, "float %s_f(const float *x);", id);
	gen_line(src, "/* The same with double inputs (rounded to float) and output. */");
	gen_line(src, "double %s(const double *x);", id);
	gen_line(src, "/* n cases, row-major (x[i * %s_NINPUTS + k]): out[i] for each. */", id);
	gen_line(src, "void %s_batch(const float *x, long n, float *out);", id);
	gen_line(src, "/* The class index an output stands for, -1 for NaN or regression. */");
	gen_line(src, "int %s_class(float out);\n\n#endif", id);
}

/* NAME.c and NAME.h into dir. */
static rt_status write_c(const gp_run_best *b, const char *result_path, const char *dir,
			 rt_error *err)
{
	gen_source c, h;
	rt_buf expr = {0};
	char name[160], what[256];
	rt_status st;
	c_expr(&expr, b->tree.nodes, 0);
	snprintf(name, sizeof name, "%s.c", b->ident);
	snprintf(what, sizeof what, "the best program of evoforge run '%s' as a C function",
		 b->problem);
	gen_begin(&c, name, what);
	c_header(&c, b, result_path);
	st = gen_template(&c, "gp/gp_ops.h", err);
	if (st == RT_OK)
		st = gen_template(&c, "gp/gp_fitness.h", err);
	if (st == RT_OK && expr.failed)
		st = rt_fail(err, RT_ERR_SYSTEM, "out of memory writing %s", name);
	if (st == RT_OK) {
		c_functions(&c, b, expr.data);
		st = gen_write(&c, dir, err);
	}
	snprintf(name, sizeof name, "%s.h", b->ident);
	snprintf(what, sizeof what, "the declarations of %s.c", b->ident);
	gen_begin(&h, name, what);
	c_declarations(&h, b);
	if (st == RT_OK)
		st = gen_write(&h, dir, err);
	gen_free(&h);
	gen_free(&c);
	rt_buf_free(&expr);
	return st;
}

/* NAME-eval.c (templates/gp/gp_export_eval.c on NAME's functions) and a Makefile. */
static rt_status write_eval(const gp_run_best *b, const char *dir, rt_error *err)
{
	gen_source s;
	char name[160], what[400], mkpath[RT_PATH_MAX];
	rt_buf mk = {0};
	rt_status st;
	const char *id = b->ident;
	snprintf(name, sizeof name, "%s-eval.c", id);
	snprintf(what, sizeof what, "evaluates %s (%s.c) on the rows of a CSV file", id, id);
	gen_begin(&s, name, what);
	gen_line(&s, "#include \"%s.h\"\n", id);
	gen_line(&s, "#define EVO_PROGRAM \"%s\"\n#define EVO_NINPUTS %s_NINPUTS\n#define EVO_INPUTS "
		 "%s_inputs\n#define EVO_NCLASSES %s_NCLASSES\n#define EVO_CLASSES %s_classes\n"
		 "#define EVO_BATCH %s_batch\n#define EVO_CLASS_OF %s_class\n", id, id, id, id, id, id, id);
	st = gen_template(&s, "gp/gp_export_eval.c", err);
	if (st == RT_OK)
		st = gen_write(&s, dir, err);
	gen_free(&s);
	rt_buf_printf(&mk, "# Makefile: builds %s-eval (written by evoforge export; no -ffast-math:\n"
		      "# it would change the results).\nCC = cc\nCFLAGS = -std=c99 -O2 -Wall\n\n"
		      "%s-eval: %s-eval.c %s.c %s.h\n\t$(CC) $(CFLAGS) -o $@ %s-eval.c %s.c -lm\n",
		      id, id, id, id, id, id, id);
	if (st == RT_OK)
		st = rt_format(mkpath, sizeof mkpath, err, "%s/Makefile", dir);
	if (st == RT_OK)
		st = mk.failed ? rt_fail(err, RT_ERR_SYSTEM, "out of memory writing %s", mkpath)
			       : rt_write_file_atomic(mkpath, mk.data, mk.len, err);
	rt_buf_free(&mk);
	return st;
}

rt_status gp_export_result(const rt_jval *doc, const char *path, const rt_options *opt,
			   const char *dir, rt_error *err)
{
	gp_run_best b;
	char exe[160], srcs[400];
	int built = 0;
	rt_status st = best_load(doc, path, &b, err);
	(void)opt;
	if (st == RT_OK && (st = write_c(&b, path, dir, err)) == RT_OK &&
	    (st = write_eval(&b, dir, err)) == RT_OK) {
		snprintf(exe, sizeof exe, "%s-eval", b.ident);
		snprintf(srcs, sizeof srcs, "%s-eval.c %s.c", b.ident, b.ident);
		st = rt_export_cc(dir, exe, srcs, &built, err);
	}
	if (st == RT_OK)
		rt_info("gp: wrote %s/%s.c, %s.h, %s-eval.c and a Makefile%s%s", dir, b.ident, b.ident,
			b.ident, built ? "; built " : "", built ? exe : "");
	best_free(&b);
	return st;
}

/* ---- eval: the runtime's interpreter on a CSV ------------------------------------ */

/* Fitness cases from table t: the program's inputs by column name; y from
 * the run's label column when t has it (*has_y). */
static rt_status cases_from_table(const gp_run_best *b, const rt_table *t, gp_cases *c,
				  int *has_y, rt_error *err)
{
	int label = -1;
	rt_status st = gp_cases_alloc_float(c, b->ninputs, t->nrows, err);
	c->fitness = b->fitness_kind;
	c->nclasses = b->nclasses;
	for (int k = 0; k < b->ninputs && st == RT_OK; k++) {
		int col = -1;
		for (int j = 0; j < t->ncols && col < 0; j++)
			col = !strcmp(t->colnames[j], b->inputs[k]) ? j : -1;
		if (col < 0)
			return rt_fail(err, RT_ERR_INPUT, "%s:1: expected a column named '%s' (input %d "
				       "of the program), found none", t->path, b->inputs[k], k + 1);
		if (t->cats[col].n > 0)
			return rt_fail(err, RT_ERR_INPUT, "%s: column '%s': expected numbers, got text "
				       "('%s')", t->path, b->inputs[k], t->cats[col].names[0]);
		memcpy(c->x + (size_t)k * c->stride, t->cols + (size_t)col * t->nrows,
		       t->nrows * sizeof(float));
	}
	for (int j = 0; j < t->ncols && b->label[0]; j++)
		if (!strcmp(t->colnames[j], b->label))
			label = j;
	*has_y = st == RT_OK && label >= 0;
	for (size_t r = 0; *has_y && r < t->nrows; r++) {
		float v = t->cols[(size_t)label * t->nrows + r];
		if (c->fitness == GP_FIT_CLASS && t->cats[label].n > 0) {
			const char *nm = t->cats[label].names[(int)v];
			int cls = -1;
			for (int i = 0; i < b->nclasses && cls < 0; i++)
				cls = !strcmp(b->classes[i], nm) ? i : -1;
			if (cls < 0)
				return rt_fail(err, RT_ERR_INPUT, "%s: row %zu: column '%s': expected one of "
					       "the run's classes, got '%s'", t->path, r + 1, b->label, nm);
			v = (float)cls;
		} else if (t->cats[label].n > 0) {
			return rt_fail(err, RT_ERR_INPUT, "%s: column '%s': expected numbers", t->path,
				       b->label);
		}
		c->y[r] = v;
	}
	return st;
}

/* The predictions as CSV text (what NAME-eval writes). */
static void predictions_csv(rt_buf *o, const gp_run_best *b, const float *y, size_t n)
{
	float top = (float)(b->nclasses - 1);
	rt_buf_puts(o, b->fitness_kind == GP_FIT_CLASS ? "class\n" : "prediction\n");
	for (size_t i = 0; i < n; i++) {
		if (b->fitness_kind == GP_FIT_CLASS) {
			float c = gp_class_of(y[i], top);
			rt_buf_printf(o, "%s\n", c == c ? b->classes[(int)c] : "NA");
		} else {
			rt_buf_printf(o, "%.9g\n", (double)y[i]);
		}
	}
}

/* Writes the predictions (and reports the fitness when y is known). */
static rt_status eval_report(const gp_run_best *b, const gp_packed *pk, const gp_cases *c,
			     int has_y, const char *data, const char *out, rt_error *err)
{
	float *y = rt_malloc(c->ncases * sizeof *y + 1, err);
	rt_buf o = {0};
	double fit;
	rt_status st = y ? gp_eval_cpu_outputs(pk, c, y, err) : RT_ERR_SYSTEM;
	if (st == RT_OK)
		predictions_csv(&o, b, y, c->ncases);
	if (st == RT_OK && o.failed)
		st = rt_fail(err, RT_ERR_SYSTEM, "out of memory formatting the predictions");
	if (st == RT_OK && out)
		st = rt_write_file_atomic(out, o.data, o.len, err);
	else if (st == RT_OK && (fwrite(o.data, 1, o.len, stdout) != o.len || fflush(stdout)))
		st = rt_fail(err, RT_ERR_SYSTEM, "writing the predictions to standard output failed");
	if (st == RT_OK && has_y && (st = gp_eval_cpu(pk, c, GP_EVAL_LGP2D, &fit, err)) == RT_OK &&
	    !rt_log_quiet())
		fprintf(stderr, "eval: %s %.9g on the %zu rows of %s (the run's best: %.9g on its "
			"training data)\n", b->fitness_kind == GP_FIT_MSE ? "mse" : "misclassified",
			fit, c->ncases, data, b->fitness);
	rt_buf_free(&o);
	free(y);
	return st;
}

rt_status gp_eval_result(const rt_jval *doc, const char *path, const char *data, const char *out,
			 const rt_options *opt, rt_error *err)
{
	gp_run_best b;
	rt_table t;
	gp_cases c;
	gp_packed pk;
	rt_csv_options o = rt_csv_defaults();
	int has_y = 0;
	rt_status st;
	(void)opt;
	memset(&t, 0, sizeof t);
	memset(&c, 0, sizeof c);
	gp_packed_init(&pk);
	o.label = NULL;
	o.label_index = -2;
	if ((st = best_load(doc, path, &b, err)) == RT_OK &&
	    (st = rt_csv_load(data, &o, &t, err)) == RT_OK &&
	    (st = cases_from_table(&b, &t, &c, &has_y, err)) == RT_OK &&
	    (st = gp_pack_lgp(&pk, &b.tree, 1, err)) == RT_OK)
		st = eval_report(&b, &pk, &c, has_y, data, out, err);
	gp_packed_free(&pk);
	gp_cases_free(&c);
	rt_table_free(&t);
	best_free(&b);
	return st;
}
