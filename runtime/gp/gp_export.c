/* gp_export.c: kind `gp`'s deployable artefacts (rt_kind.export_result and
 * eval_result): the run's best program, read back exactly from result.json
 * (best.prefix), as standalone C99, a fixed-function GPU kernel compiled
 * ahead of time (NAME-kernels.c) and a CSV evaluator; and `evoforge eval`
 * on the runtime's own CPU interpreter or that kernel on the GPU
 * (gp_eval_gpu.c). Boolean (multiplexer) programs export as bitwise C over
 * 32-case words, as the run evaluated them.
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
#include "gp_export.h"
#include "gp_score.h"
#include "gp/gp_fitness.h"
#include "log.h"
#include "nvrtc.h"
#include "out.h"

/* What export and eval need of a run (strings point into the parsed JSON). */
typedef struct gp_run_best {
	char ident[128];           /* C identifier made of the problem name */
	const char *problem, *spec, *infix, *label;
	const char *simplified;   /* "" for a result.json from before gp_simplify */
	gp_tree tree;
	int ninputs, nclasses;
	const char **inputs, **classes;
	int fitness_kind;          /* GP_FIT_MSE, GP_FIT_CLASS or GP_FIT_BOOL */
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

/* Every node of the program of the fitness's family: float operations (and
 * constants) for mse and classes, Boolean ones (no constants) for wrong
 * cases; the root a function. */
static rt_status check_family(const gp_run_best *b, const char *path, rt_error *err)
{
	int boolean = b->fitness_kind == GP_FIT_BOOL;
	if (b->tree.n < 1 || b->tree.nodes[0].op >= GP_OP_COUNT)
		return rt_fail(err, RT_ERR_INPUT, "%s: best.prefix: expected a program rooted at a "
			       "function", path);
	for (int i = 0; i < b->tree.n; i++) {
		int op = b->tree.nodes[i].op;
		int bad = op == GP_TERM_CONST ? boolean
					      : op < GP_OP_COUNT && (op >= GP_NFLOAT_OPS) != boolean;
		if (bad)
			return rt_fail(err, RT_ERR_INPUT, "%s: best.prefix: node %d: expected %s (the "
				       "run's fitness is %s)", path, i + 1, boolean ?
				       "a Boolean function or an input" : "a float function, input or "
				       "constant", boolean ? "wrong cases" : "numeric");
	}
	return RT_OK;
}

/* Reads what surrounds the run's program(s) from result.json: names,
 * inputs, classes, label, fitness; and the string at prefix_key (the
 * program's prefix text) into *prefix unless prefix_key is NULL. */
static rt_status best_meta(const rt_jval *doc, const char *path, const char *prefix_key,
			   const char **prefix, gp_run_best *b, rt_error *err)
{
	const char *fit;
	const rt_jval *v;
	rt_status st;
	memset(b, 0, sizeof *b);
	if ((st = rt_jstring(doc, "problem", path, &b->problem, err)) ||
	    (prefix_key && (st = rt_jstring(doc, prefix_key, path, prefix, err))) ||
	    (st = rt_jstring(doc, "data.fitness", path, &fit, err)) ||
	    (st = string_array(doc, "data.input_names", path, &b->inputs, &b->ninputs, err)))
		return st;
	if (!strcmp(fit, "misclassified cases")) {
		b->fitness_kind = GP_FIT_CLASS;
		if ((st = string_array(doc, "data.classes", path, &b->classes, &b->nclasses, err)))
			return st;
	} else if (!strcmp(fit, "wrong cases")) {
		b->fitness_kind = GP_FIT_BOOL;
	} else if (strcmp(fit, "mse")) {
		return rt_fail(err, RT_ERR_UNSUPPORTED, "%s: data.fitness '%s': expected mse, "
			       "misclassified cases or wrong cases", path, fit);
	}
	b->spec = (v = rt_jget(doc, "spec")) && v->type == RT_JSTRING ? v->str : "";
	b->infix = (v = rt_jget(doc, "best.infix")) && v->type == RT_JSTRING ? v->str : "";
	b->simplified = (v = rt_jget(doc, "best.simplified")) && v->type == RT_JSTRING ? v->str : "";
	b->label = (v = rt_jget(doc, "data.label")) && v->type == RT_JSTRING ? v->str : "";
	b->fitness = (v = rt_jget(doc, "best.fitness")) && v->type == RT_JNUMBER ? v->num : NAN;
	b->generation = (v = rt_jget(doc, "best.generation")) && v->type == RT_JNUMBER ? v->num : -1;
	rt_export_ident(b->problem, b->ident, sizeof b->ident);
	if (b->ninputs < 1 || (b->fitness_kind == GP_FIT_CLASS && b->nclasses < 1))
		return rt_fail(err, RT_ERR_INPUT, "%s: expected data.input_names (and data.classes) to "
			       "name at least one input (class)", path);
	return RT_OK;
}

/* A program's prefix text (from `what` at line `line`) into b->tree. */
static rt_status best_tree(const char *prefix, const char *path, int line, const char *what,
			   gp_run_best *b, rt_error *err)
{
	rt_status st = gp_parse_prefix(prefix, b->ninputs, &b->tree, err);
	if (st != RT_OK)
		rt_error_prefix(err, "%s:%d: %s", path, line, what);
	else
		st = check_family(b, path, err);
	return st;
}

/* Reads the run's best program and what surrounds it from result.json. */
static rt_status best_load(const rt_jval *doc, const char *path, gp_run_best *b, rt_error *err)
{
	const char *prefix;
	rt_status st = best_meta(doc, path, "best.prefix", &prefix, b, err);
	if (!st)
		st = best_tree(prefix, path, rt_jget(doc, "best.prefix")->line, "best.prefix", b, err);
	return st;
}

/* The multi-class scheme of a run: result.json's "multiclass" (absent:
 * round, one program). */
static int is_one_vs_rest(const rt_jval *doc)
{
	const rt_jval *v = rt_jget(doc, "multiclass");
	return v && v->type == RT_JSTRING && !strcmp(v->str, "one-vs-rest");
}

/* ---- the program as a C expression ------------------------------------------ */

/* Each operation's C expression over a, b, c: gp_ops.h's, as text (float
 * operations, then Boolean ones: the opcode order). */
static const char *const op_expr[GP_OP_COUNT] = {
#define GP_EXPR_(E, name, arity, expr) #expr,
	GP_FLOAT_OPS(GP_EXPR_)
	GP_BOOL_OPS(GP_EXPR_)
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
		gen_line(src, " * Fitness on the run's data: %.0f %s (generation %.0f, %d nodes).",
			 b->fitness, b->fitness_kind == GP_FIT_BOOL ? "wrong cases" :
			 "misclassified cases", b->generation, b->tree.n);
	gen_line(src, " *\n * Inputs:");
	for (int i = 0; i < b->ninputs; i++)
		gen_line(src, " *   x[%d] = %s", i, b->inputs[i]);
	if (b->fitness_kind == GP_FIT_CLASS) {
		gen_line(src, " * Output: the class %s_class(out) = clamp(rint(out), 0, %d) (NaN: none):",
			 b->ident, b->nclasses - 1);
		for (int i = 0; i < b->nclasses; i++)
			gen_line(src, " *   %d = %s", i, b->classes[i]);
	} else if (b->fitness_kind == GP_FIT_BOOL) {
		gen_line(src, " * A Boolean circuit, evaluated bitwise as the run did (sub-machine-code "
			 "GP):\n * bit j of every x[k] is case j's input k, bit j of %s_word's result "
			 "its output;\n * %s(x) evaluates one case of 0/1 inputs.", b->ident, b->ident);
	} else {
		gen_line(src, " * Output: the predicted %s.", b->label[0] ? b->label : "value");
	}
	if (strlen(b->infix) < 4000 && !strstr(b->infix, "*/"))
		gen_line(src, " *\n * The program (infix): %s", b->infix);
	if (b->simplified[0] && strlen(b->simplified) < 4000 && !strstr(b->simplified, "*/"))
		gen_line(src, " * Simplified (equal value; SymPy syntax, see docs/gp.md): %s",
			 b->simplified);
	gen_line(src, " *\n * Operations are gp_ops.h's protected forms, in float, as evoforge evaluates "
		 "them;\n * compiled without multiply-add contraction (gcc -std=c99 default; clang: the\n"
		 " * pragma below), the results equal evoforge's bit for bit. */");
	gen_line(src, "#if defined(__clang__)\n#pragma STDC FP_CONTRACT OFF\n#endif");
}

/* A Boolean program's functions: 32 cases per word, one case, a batch. */
static void c_functions_bool(gen_source *src, const gp_run_best *b, const char *expr)
{
	const char *id = b->ident;
	rt_buf_printf(&src->text, "uint32_t %s_word(const uint32_t *x)\n{\n\treturn ", id);
	wrapped(&src->text, expr, "\t\t");
	gen_line(src, ";\n}\n");
	gen_line(src, "int %s(const int *x)\n{\n\tuint32_t w[%s_NINPUTS];\n\tint k;\n"
		 "\tfor (k = 0; k < %s_NINPUTS; k++)\n\t\tw[k] = x[k] != 0;\n"
		 "\treturn (int)(%s_word(w) & 1u);\n}\n", id, id, id, id);
	gen_line(src, "void %s_batch(const uint32_t *x, long nwords, uint32_t *out)\n{\n\tlong i;\n"
		 "\tfor (i = 0; i < nwords; i++)\n\t\tout[i] = %s_word(x + i * %s_NINPUTS);\n}", id,
		 id, id);
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
	if (b->fitness_kind == GP_FIT_BOOL) {
		c_functions_bool(src, b, expr);
		return;
	}
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
	gen_line(src, "#define %s_NCLASSES %d  /* 0: regression or Boolean */", id, b->nclasses);
	gen_line(src, "#define %s_BOOLEAN %d   /* 1: a Boolean circuit (uint32_t words) */\n", id,
		 b->fitness_kind == GP_FIT_BOOL);
	gen_line(src, "/* The inputs' names (the training data's columns) and the classes' names. */");
	gen_line(src, "extern const char *const %s_inputs[%s_NINPUTS];", id, id);
	gen_line(src, "extern const char *const %s_classes[];\n", id);
	if (b->fitness_kind == GP_FIT_BOOL) {
		gen_line(src, "#include <stdint.h>\n");
		gen_line(src, "/* 32 cases at once: bit j of x[k] is input k of case j; bit j of the result "
			 "is\n * case j's output (the run's own, bitwise form). */");
		gen_line(src, "uint32_t %s_word(const uint32_t *x);", id);
		gen_line(src, "/* One case: inputs 0 or 1 (non-zero counts as 1); the output, 0 or 1. */");
		gen_line(src, "int %s(const int *x);", id);
		gen_line(src, "/* nwords words of 32 cases, row-major (x[w * %s_NINPUTS + k]): out[w] for "
			 "each. */", id);
		gen_line(src, "void %s_batch(const uint32_t *x, long nwords, uint32_t *out);\n\n#endif",
			 id);
		return;
	}
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

/* ---- the GPU kernel, compiled ahead of time ------------------------------------ */

/* The archs the kernel is compiled for when --arch is not given: a cubin
 * runs on its own major version's later minors (sm_80: A100, A10, L4...). */
#define GP_EXPORT_ARCHS "sm_80,sm_90,sm_100,sm_120"

/* The kernel (templates/gp/gp_export.cu) around b's program. */
static rt_status kernel_source(const gp_run_best *b, gen_source *src, rt_error *err)
{
	rt_buf expr = {0};
	gp_xprogram p = { b->ident, NULL, b->ninputs, b->fitness_kind == GP_FIT_BOOL };
	rt_status st;
	c_expr(&expr, b->tree.nodes, 0);
	p.expr = expr.data;
	st = expr.failed ? rt_fail(err, RT_ERR_SYSTEM, "out of memory writing the kernel")
			 : gp_xkernel_render(&p, src, err);
	rt_buf_free(&expr);
	return st;
}

/* One cubin as a C array named NAME_cubin_i. */
static void cubin_array(gen_source *k, const char *id, int i, const nvrtc_output *out)
{
	const unsigned char *bytes = out->cubin;
	rt_buf_printf(&k->text, "static const unsigned char %s_cubin_%d[%zu] = {", id, i, out->size);
	for (size_t j = 0; j < out->size; j++)
		rt_buf_printf(&k->text, "%s%u,", j % 24 ? "" : "\n\t", bytes[j]);
	gen_line(k, "\n};");
}

/* Compiles src for each arch of the list into k's arrays; sm[] and size[]
 * record them. An arch NVRTC rejects is skipped with a notice when the list
 * is the default one, an error when the user named it. */
static rt_status compile_archs(const gen_source *src, const char *id, const char *archs,
			       int named, gen_source *k, int *sm, size_t *size, int *n, rt_error *err)
{
	char arch[16];
	for (const char *p = archs; *p && *n < 16;) {
		size_t len = strcspn(p, ",");
		nvrtc_output out = { 0 };
		rt_error why;
		rt_status st;
		if (len < 5 || len >= sizeof arch || strncmp(p, "sm_", 3) ||
		    strspn(p + 3, "0123456789") != len - 3)
			return rt_fail(err, RT_ERR_INPUT, "--arch: expected a list like sm_80,sm_90, got "
				       "'%.*s'", (int)len, p);
		snprintf(arch, sizeof arch, "%.*s", (int)len, p);
		p += len + (p[len] == ',');
		st = nvrtc_compile(src->name, src->text.data, arch, gp_xkernel_options,
				   gp_xkernel_noptions, &out, named ? err : &why);
		if (st != RT_OK && named)
			return st;
		if (st != RT_OK) {
			rt_info("export: kernel not compiled for %s (NVRTC: %.200s)", arch, why.msg);
			continue;
		}
		cubin_array(k, id, *n, &out);
		sm[*n] = atoi(arch + 3);
		size[(*n)++] = out.size;
		nvrtc_output_free(&out);
	}
	return RT_OK;
}

/* NAME.cu (the kernel's source, for reading or rebuilding) and NAME-kernels.c
 * (its cubins, compiled here with NVRTC for each arch; none when NVRTC is
 * missing or archs is "none"); *ncubins says how many. */
static rt_status write_kernels(const gp_run_best *b, const char *archs, const char *dir,
			       int *ncubins, rt_error *err)
{
	gen_source src, k;
	char name[160], what[400];
	int sm[16], n = 0;
	size_t size[16];
	rt_error why;
	rt_status st = kernel_source(b, &src, err);
	const char *id = b->ident;
	if (st != RT_OK)
		return st;
	snprintf(name, sizeof name, "%s-kernels.c", id);
	snprintf(what, sizeof what, "the cubins of %s.cu (kernel gpx_eval) that %s-eval loads", id, id);
	gen_begin(&k, name, what);
	if ((st = gen_write(&src, dir, err)) == RT_OK && strcmp(archs ? archs : "", "none")) {
		if (nvrtc_open(&why) != RT_OK)
			rt_info("export: %s-eval will run on the CPU only: %s", id, why.msg);
		else
			st = compile_archs(&src, id, archs ? archs : GP_EXPORT_ARCHS, archs != NULL, &k,
					   sm, size, &n, err);
	}
	gen_line(&k, "const int %s_ncubins = %d;", id, n);
	rt_buf_printf(&k.text, "const int %s_cubin_sm[%d] = {", id, n ? n : 1);
	for (int i = 0; i < n || i == 0; i++)
		rt_buf_printf(&k.text, "%s%d", i ? ", " : "", n ? sm[i] : 0);
	rt_buf_printf(&k.text, "};\nconst unsigned char *const %s_cubin_data[%d] = {", id, n ? n : 1);
	for (int i = 0; i < n || i == 0; i++)
		if (n)
			rt_buf_printf(&k.text, "%s%s_cubin_%d", i ? ", " : "", id, i);
		else
			rt_buf_puts(&k.text, "0");
	rt_buf_printf(&k.text, "};\nconst unsigned long %s_cubin_size[%d] = {", id, n ? n : 1);
	for (int i = 0; i < n || i == 0; i++)
		rt_buf_printf(&k.text, "%s%zu", i ? ", " : "", n ? size[i] : (size_t)0);
	gen_line(&k, "};");
	if (st == RT_OK && k.text.failed)
		st = rt_fail(err, RT_ERR_SYSTEM, "out of memory writing %s", name);
	if (st == RT_OK)
		st = gen_write(&k, dir, err);
	*ncubins = n;
	gen_free(&k);
	gen_free(&src);
	return st;
}

/* ---- NAME-eval ------------------------------------------------------------------- */

/* NAME-eval.c (templates/gp/gp_export_gpu.c and gp_export_eval.c on NAME's
 * functions) and a Makefile. */
static rt_status write_eval(const gp_run_best *b, const char *dir, rt_error *err)
{
	gen_source s;
	char name[160], what[400];
	rt_buf mk = {0};
	rt_status st;
	const char *id = b->ident;
	snprintf(name, sizeof name, "%s-eval.c", id);
	snprintf(what, sizeof what, "evaluates %s (%s.c) on the rows of a CSV file", id, id);
	gen_begin(&s, name, what);
	gen_line(&s, "#include \"%s.h\"\n", id);
	gen_line(&s, "#define EVO_PROGRAM \"%s\"\n#define EVO_NINPUTS %s_NINPUTS\n#define EVO_INPUTS "
		 "%s_inputs\n#define EVO_NCLASSES %s_NCLASSES\n#define EVO_CLASSES %s_classes\n"
		 "#define EVO_BATCH %s_batch\n#define EVO_BOOL %s_BOOLEAN", id, id, id, id, id, id, id);
	if (b->fitness_kind == GP_FIT_BOOL)
		gen_line(&s, "#define EVO_CLASS_OF(y) (-1)");
	else
		gen_line(&s, "#define EVO_CLASS_OF %s_class", id);
	gen_line(&s, "\n/* The kernel's cubins (%s-kernels.c). */", id);
	gen_line(&s, "extern const int %s_ncubins, %s_cubin_sm[];\nextern const unsigned char *const "
		 "%s_cubin_data[];\nextern const unsigned long %s_cubin_size[];", id, id, id, id);
	gen_line(&s, "#define EVO_NCUBINS %s_ncubins\n#define EVO_CUBIN_SM %s_cubin_sm\n"
		 "#define EVO_CUBIN_DATA %s_cubin_data\n#define EVO_CUBIN_SIZE %s_cubin_size\n", id, id,
		 id, id);
	st = gen_template(&s, "gp/gp_export_gpu.c", err);
	if (st == RT_OK)
		st = gen_template(&s, "gp/gp_export_eval.c", err);
	if (st == RT_OK)
		st = gen_write(&s, dir, err);
	gen_free(&s);
	rt_buf_printf(&mk, "# Makefile: builds %s-eval (written by evoforge export; no -ffast-math:\n"
		      "# it would change the results). No CUDA toolkit needed: %s-eval opens\n"
		      "# libcuda.so.1 at run time; make CFLAGS+=-DEVO_NO_GPU LDLIBS=-lm leaves the GPU\n"
		      "# path out.\nCC = cc\nCFLAGS = -std=c99 -O2 -Wall\nLDLIBS = -lm -ldl\n\n"
		      "%s-eval: %s-eval.c %s.c %s.h %s-kernels.c\n"
		      "\t$(CC) $(CFLAGS) -o $@ %s-eval.c %s.c %s-kernels.c $(LDLIBS)\n",
		      id, id, id, id, id, id, id, id, id, id);
	if (st == RT_OK)
		st = rt_write_buf_atomic(dir, "Makefile", &mk, err);
	rt_buf_free(&mk);
	return st;
}

rt_status gp_export_result(const rt_jval *doc, const char *path, const rt_options *opt,
			   const char *dir, rt_error *err)
{
	gp_run_best b;
	char exe[160], srcs[480];
	int built = 0, ncubins = 0;
	if (is_one_vs_rest(doc))
		return rt_fail(err, RT_ERR_INPUT, "%s: export of a one-vs-rest run ([gp] multiclass = "
			       "one-vs-rest: one program per class and an argmax) is not supported; "
			       "use `evoforge eval` (CPU), or a run with multiclass = round", path);
	rt_status st = best_load(doc, path, &b, err);
	if (st == RT_OK && (st = write_c(&b, path, dir, err)) == RT_OK &&
	    (st = write_kernels(&b, opt->arch, dir, &ncubins, err)) == RT_OK &&
	    (st = write_eval(&b, dir, err)) == RT_OK) {
		snprintf(exe, sizeof exe, "%s-eval", b.ident);
		/* -ldl: dlopen for the GPU path (in libc itself on glibc >= 2.34). */
		snprintf(srcs, sizeof srcs, "%s-eval.c %s.c %s-kernels.c -ldl", b.ident, b.ident,
			 b.ident);
		st = rt_export_cc(dir, exe, srcs, &built, err);
	}
	if (st == RT_OK)
		rt_info("gp: wrote %s/%s.c, %s.h, %s.cu, %s-kernels.c (%d cubins), %s-eval.c and a "
			"Makefile%s%s", dir, b.ident, b.ident, b.ident, b.ident, ncubins, b.ident,
			built ? "; built " : "", built ? exe : "");
	best_free(&b);
	return st;
}

/* ---- eval: the runtime's interpreter, or the kernel on the GPU, on a CSV ---------- */

/* Column `name` of t, -1 when absent. */
static int column_of(const rt_table *t, const char *name)
{
	for (int j = 0; j < t->ncols; j++)
		if (!strcmp(t->colnames[j], name))
			return j;
	return -1;
}

/* The columns of the program's inputs, all numeric, into col[ninputs]. */
static rt_status input_columns(const gp_run_best *b, const rt_table *t, int *col, rt_error *err)
{
	for (int k = 0; k < b->ninputs; k++) {
		if ((col[k] = column_of(t, b->inputs[k])) < 0)
			return rt_fail(err, RT_ERR_INPUT, "%s:1: expected a column named '%s' (input %d "
				       "of the program), found none", t->path, b->inputs[k], k + 1);
		if (t->cats[col[k]].n > 0)
			return rt_fail(err, RT_ERR_INPUT, "%s: column '%s': expected numbers, got text "
				       "('%s')", t->path, b->inputs[k], t->cats[col[k]].names[0]);
	}
	return RT_OK;
}

/* Fitness cases from table t: the program's inputs by column name; y from
 * the run's label column when t has it (*has_y). */
static rt_status cases_from_table(const gp_run_best *b, const rt_table *t, gp_cases *c,
				  int *has_y, rt_error *err)
{
	int label = b->label[0] ? column_of(t, b->label) : -1;
	int *col = rt_calloc((size_t)b->ninputs, sizeof *col, err);
	rt_status st = col ? gp_cases_alloc_float(c, b->ninputs, t->nrows, err) : RT_ERR_SYSTEM;
	c->fitness = b->fitness_kind;
	c->nclasses = b->nclasses;
	if (st == RT_OK)
		st = input_columns(b, t, col, err);
	for (int k = 0; k < b->ninputs && st == RT_OK; k++)
		memcpy(c->x + (size_t)k * c->stride, t->cols + (size_t)col[k] * t->nrows,
		       t->nrows * sizeof(float));
	free(col);
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

/* A 0/1 value of column `name` at row r into *bit. */
static rt_status bool_value(const rt_table *t, int col, size_t r, uint32_t *bit, rt_error *err)
{
	float v = t->cols[(size_t)col * t->nrows + r];
	if (t->cats[col].n > 0 || (v != 0.0f && v != 1.0f))
		return rt_fail(err, RT_ERR_INPUT, "%s: row %zu: column '%s': expected 0 or 1 (a Boolean "
			       "input), got %s", t->path, r + 1, t->colnames[col],
			       t->cats[col].n > 0 ? "text" : "another value");
	*bit = v != 0.0f;
	return RT_OK;
}

/* Boolean cases from t: 32 rows per word (row r: bit r % 32 of word r / 32),
 * the target from the label column (data.label, else "y") when t has it. */
static rt_status cases_from_table_bool(const gp_run_best *b, const rt_table *t, gp_cases *c,
				       int *has_y, rt_error *err)
{
	int label = column_of(t, b->label[0] ? b->label : "y");
	int *col = rt_calloc((size_t)b->ninputs, sizeof *col, err);
	rt_status st = col ? input_columns(b, t, col, err) : RT_ERR_SYSTEM;
	size_t words = (t->nrows + 31) / 32;
	memset(c, 0, sizeof *c);
	c->fitness = GP_FIT_BOOL;
	c->ninputs = b->ninputs;
	c->ncases = t->nrows;
	c->nwords = words ? words : 1;
	c->last_mask = t->nrows % 32 ? (1u << (t->nrows % 32)) - 1u : ~0u;
	if (st == RT_OK) {
		/* 64-byte aligned and padded, as the interpreter's vector loads expect;
		 * aligned_alloc wants a multiple of the alignment. */
		size_t bits = ((size_t)b->ninputs * (c->nwords + 16) * 4 + 63) / 64 * 64;
		size_t target = ((c->nwords + 16) * 4 + 63) / 64 * 64;
		c->bits = aligned_alloc(64, bits);
		c->target = c->bits ? aligned_alloc(64, target) : NULL;
		if (!c->target) {
			st = rt_fail(err, RT_ERR_SYSTEM, "out of memory (%zu rows of Boolean cases)",
				     t->nrows);
		} else {
			memset(c->bits, 0, bits);
			memset(c->target, 0, target);
		}
	}
	*has_y = label >= 0;
	for (size_t r = 0; r < t->nrows && st == RT_OK; r++) {
		uint32_t bit = 0;
		for (int k = 0; k < b->ninputs && st == RT_OK; k++)
			if ((st = bool_value(t, col[k], r, &bit, err)) == RT_OK)
				c->bits[(size_t)k * c->nwords + r / 32] |= bit << (r % 32);
		if (st == RT_OK && *has_y && (st = bool_value(t, label, r, &bit, err)) == RT_OK)
			c->target[r / 32] |= bit << (r % 32);
	}
	free(col);
	return st;
}

/* A Boolean subtree at node *i on word w of the cases (gp_ops.h's table). */
static uint32_t bool_node(const gp_node *nodes, int *i, const gp_cases *cs, size_t w)
{
	const gp_node *nd = &nodes[(*i)++];
	uint32_t a = 0, b = 0, c = 0;
	int ar = gp_node_arity(nd);
	if (nd->op == GP_TERM_VAR)
		return cs->bits[(size_t)nd->var * cs->nwords + w];
	if (ar > 0)
		a = bool_node(nodes, i, cs, w);
	if (ar > 1)
		b = bool_node(nodes, i, cs, w);
	if (ar > 2)
		c = bool_node(nodes, i, cs, w);
	switch (nd->op) {
#define GP_BCASE_(E, name, arity, expr) case GP_OP_##E: return expr;
	GP_BOOL_OPS(GP_BCASE_)
#undef GP_BCASE_
	default:
		return (void)b, (void)c, 0;
	}
}

/* The program's outputs on every case (Boolean: every word) on the CPU. */
static rt_status outputs_cpu(const gp_run_best *b, const gp_packed *pk, const gp_cases *c,
			     void *y, rt_error *err)
{
	if (b->fitness_kind != GP_FIT_BOOL)
		return gp_eval_cpu_outputs(pk, c, y, err);
	for (size_t w = 0; w < c->nwords; w++) {
		int i = 0;
		((uint32_t *)y)[w] = bool_node(b->tree.nodes, &i, c, w);
	}
	return RT_OK;
}

/* The same with the kernel on the GPU. */
static rt_status outputs_gpu(const gp_run_best *b, const gp_cases *c, void *y, rt_error *err)
{
	rt_buf expr = {0};
	int boolean = b->fitness_kind == GP_FIT_BOOL;
	gp_xprogram p = { b->ident, NULL, b->ninputs, boolean };
	rt_status st;
	c_expr(&expr, b->tree.nodes, 0);
	p.expr = expr.data;
	st = expr.failed ? rt_fail(err, RT_ERR_SYSTEM, "out of memory writing the kernel")
			 : boolean ? gp_xkernel_eval_gpu(&p, c->bits, c->nwords, c->nwords, 0, y, err)
				   : gp_xkernel_eval_gpu(&p, c->x, c->stride, c->ncases, 0, y, err);
	rt_buf_free(&expr);
	return st;
}

/* The outputs where --backend says: cpu the CPU; gpu the GPU (failing
 * there is an error); auto the GPU when one answers, else (or when it fails)
 * the CPU after one warning. */
static rt_status outputs(const gp_run_best *b, const gp_packed *pk, const gp_cases *c,
			 const rt_options *opt, void *y, rt_error *err)
{
	rt_backend chosen = RT_BACKEND_CPU;
	rt_status st;
	if (opt->backend == RT_BACKEND_CPU)
		return outputs_cpu(b, pk, c, y, err);
	if ((st = rt_backend_select(opt->backend, &chosen, NULL, err)) != RT_OK)
		return st;
	if (chosen != RT_BACKEND_GPU)
		return outputs_cpu(b, pk, c, y, err);
	if ((st = outputs_gpu(b, c, y, err)) == RT_OK || opt->backend == RT_BACKEND_GPU) {
		if (st != RT_OK)
			rt_error_prefix(err, "eval --backend gpu");
		return st;
	}
	rt_warn("eval: the GPU failed (%s); evaluating on the CPU", err->msg);
	return outputs_cpu(b, pk, c, y, err);
}

/* The predictions as CSV text (what NAME-eval writes). */
static void predictions_csv(rt_buf *o, const gp_run_best *b, const void *out, size_t n)
{
	const float *y = out;
	const uint32_t *w = out;
	float top = (float)(b->nclasses - 1);
	rt_buf_puts(o, b->fitness_kind == GP_FIT_BOOL ? "output\n" :
		    b->fitness_kind == GP_FIT_CLASS ? "class\n" : "prediction\n");
	for (size_t i = 0; i < n; i++) {
		if (b->fitness_kind == GP_FIT_BOOL) {
			rt_buf_puts(o, (w[i / 32] >> (i % 32)) & 1u ? "1\n" : "0\n");
		} else if (b->fitness_kind == GP_FIT_CLASS) {
			float c = gp_class_of(y[i], top);
			rt_buf_printf(o, "%s\n", c == c ? b->classes[(int)c] : "NA");
		} else {
			rt_buf_printf(o, "%.9g\n", (double)y[i]);
		}
	}
}

/* The run's fitness on the cases (its own CPU interpreter); for Boolean
 * programs checked against the wrong cases the outputs y give. */
static rt_status fitness_on(const gp_run_best *b, const gp_packed *pk, const gp_cases *c,
			    const void *y, double *fit, rt_error *err)
{
	long wrong = 0;
	rt_status st = gp_eval_cpu(pk, c, GP_EVAL_LGP2D, fit, err);
	if (st != RT_OK || b->fitness_kind != GP_FIT_BOOL)
		return st;
	for (size_t w = 0; w < c->nwords; w++)
		wrong += __builtin_popcount((((const uint32_t *)y)[w] ^ c->target[w]) &
					    (w + 1 == c->nwords ? c->last_mask : ~0u));
	if ((double)wrong != *fit)
		return rt_fail(err, RT_ERR_INTERNAL, "eval: the outputs give %ld wrong cases, the "
			       "run's interpreter %.0f (a bug in evoforge)", wrong, *fit);
	return RT_OK;
}

/* Writes the predictions (and reports the fitness when y is known). */
static rt_status eval_report(const gp_run_best *b, const gp_packed *pk, const gp_cases *c,
			     int has_y, const char *data, const char *out, const rt_options *opt,
			     rt_error *err)
{
	size_t units = b->fitness_kind == GP_FIT_BOOL ? c->nwords : c->ncases;
	void *y = rt_malloc(units * 4 + 4, err);
	rt_buf o = {0};
	double fit;
	rt_status st = y ? outputs(b, pk, c, opt, y, err) : RT_ERR_SYSTEM;
	if (st == RT_OK)
		predictions_csv(&o, b, y, c->ncases);
	if (st == RT_OK && o.failed)
		st = rt_fail(err, RT_ERR_SYSTEM, "out of memory formatting the predictions");
	if (st == RT_OK && out)
		st = rt_write_file_atomic(out, o.data, o.len, err);
	else if (st == RT_OK && (fwrite(o.data, 1, o.len, stdout) != o.len || fflush(stdout)))
		st = rt_fail(err, RT_ERR_SYSTEM, "writing the predictions to standard output failed");
	if (st == RT_OK && has_y && (st = fitness_on(b, pk, c, y, &fit, err)) == RT_OK &&
	    !rt_log_quiet())
		fprintf(stderr, "eval: %s %.9g on the %zu rows of %s (the run's best: %.9g on its "
			"training data)\n", b->fitness_kind == GP_FIT_MSE ? "mse" :
			b->fitness_kind == GP_FIT_BOOL ? "wrong" : "misclassified", fit, c->ncases,
			data, b->fitness);
	rt_buf_free(&o);
	free(y);
	return st;
}

/* ---- eval of a one-vs-rest run: the argmax of its K programs, on the CPU ---------- */

/* The K programs of result.json's ovr.programs (one per class, in class
 * order) into a fresh progs[0..k-1]; b gets the run's inputs, classes and
 * label. */
static rt_status ovr_load(const rt_jval *doc, const char *path, gp_run_best *b, gp_tree **progs,
			  int *k, rt_error *err)
{
	const rt_jval *a;
	rt_status st = best_meta(doc, path, NULL, NULL, b, err);
	*progs = NULL;
	*k = 0;
	if (!st && (st = rt_jarray(doc, "ovr.programs", path, &a, err)) == RT_OK &&
	    (b->fitness_kind != GP_FIT_CLASS || a->n != b->nclasses))
		st = rt_fail(err, RT_ERR_INPUT, "%s:%d: ovr.programs: expected one program per class "
			     "(%d), got %d", path, a->line, b->nclasses, a->n);
	if (!st && !(*progs = rt_calloc((size_t)a->n + 1, sizeof **progs, err)))
		st = err->status;
	for (int c = 0; !st && c < a->n; c++) {
		const rt_jval *pv = rt_jget(&a->items[c], "prefix");
		if (!pv || pv->type != RT_JSTRING)
			st = rt_fail(err, RT_ERR_INPUT, "%s:%d: ovr.programs[%d]: expected a string "
				     "'prefix'", path, a->items[c].line, c);
		else if (!(st = best_tree(pv->str, path, pv->line, "ovr.programs[].prefix", b, err)))
			(*progs)[(*k)++] = b->tree;
		else
			gp_tree_free(&b->tree);
		memset(&b->tree, 0, sizeof b->tree);
	}
	return st;
}

/* eval of a one-vs-rest run: the class column (argmax of the K programs'
 * outputs on the runtime's CPU interpreter), and the misclassified count on
 * stderr when DATA has the label. */
static rt_status ovr_eval(const rt_jval *doc, const char *path, const rt_table *t,
			  const char *data, const char *out, const rt_options *opt, rt_error *err)
{
	gp_run_best b;
	gp_tree *progs = NULL;
	gp_cases c;
	int k = 0, has_y = 0, *cls = NULL;
	long wrong = 0;
	rt_buf o = {0};
	memset(&b, 0, sizeof b);
	memset(&c, 0, sizeof c);
	rt_status st = opt->backend == RT_BACKEND_GPU
		? rt_fail(err, RT_ERR_INPUT, "%s: eval of a one-vs-rest run runs on the CPU only "
			  "(--backend cpu or auto)", path) : RT_OK;
	if (!st && !(st = ovr_load(doc, path, &b, &progs, &k, err)) &&
	    !(st = cases_from_table(&b, t, &c, &has_y, err)) &&
	    (cls = rt_malloc(c.ncases * sizeof *cls + 1, err)) == NULL)
		st = err->status;
	if (!st)
		st = gp_argmax_classes(progs, k, &c, cls, err);
	if (!st) {
		rt_buf_puts(&o, "class\n");
		for (size_t r = 0; r < c.ncases; r++) {
			rt_buf_printf(&o, "%s\n", b.classes[cls[r]]);
			wrong += has_y && (float)cls[r] != c.y[r];
		}
		if (o.failed)
			st = rt_fail(err, RT_ERR_SYSTEM, "out of memory formatting the predictions");
	}
	if (!st && out)
		st = rt_write_file_atomic(out, o.data, o.len, err);
	else if (!st && (fwrite(o.data, 1, o.len, stdout) != o.len || fflush(stdout)))
		st = rt_fail(err, RT_ERR_SYSTEM, "writing the predictions to standard output failed");
	if (!st && has_y && !rt_log_quiet())
		fprintf(stderr, "eval: misclassified %ld on the %zu rows of %s (one-vs-rest, argmax of "
			"%d programs; the run's: %.9g on its training data)\n", wrong, c.ncases, data,
			k, b.fitness);
	for (int i = 0; i < k; i++)
		gp_tree_free(&progs[i]);
	free(progs);
	free(cls);
	rt_buf_free(&o);
	gp_cases_free(&c);
	best_free(&b);
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
	memset(&t, 0, sizeof t);
	memset(&c, 0, sizeof c);
	gp_packed_init(&pk);
	o.label = NULL;
	o.label_index = -2;
	if (is_one_vs_rest(doc)) {
		if ((st = rt_csv_load(data, &o, &t, err)) == RT_OK)
			st = ovr_eval(doc, path, &t, data, out, opt, err);
		rt_table_free(&t);
		return st;
	}
	if ((st = best_load(doc, path, &b, err)) == RT_OK &&
	    (st = rt_csv_load(data, &o, &t, err)) == RT_OK &&
	    (st = b.fitness_kind == GP_FIT_BOOL ? cases_from_table_bool(&b, &t, &c, &has_y, err)
						 : cases_from_table(&b, &t, &c, &has_y, err)) == RT_OK &&
	    (st = gp_pack_lgp(&pk, &b.tree, 1, err)) == RT_OK)
		st = eval_report(&b, &pk, &c, has_y, data, out, opt, err);
	gp_packed_free(&pk);
	gp_cases_free(&c);
	rt_table_free(&t);
	best_free(&b);
	return st;
}
