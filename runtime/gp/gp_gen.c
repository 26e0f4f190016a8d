/* gp_gen.c: the generator for kind gp (`evoforge gen`): renders the 2-D
 * stack LGP interpreter for the CPU (templates/gp/gp_eval_cpu.c) specialised to
 * a problem -- only its operations in the dispatch (GP_USE_<OP> 0/1), its
 * fitness kind, stack depth and block size -- and writes it together with the
 * GPU interpreters that gp_gpu.c generates (templates/gp/gp_gpu.cu). */
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "gen.h"
#include "gp.h"
#include "gp_constopt.h"
#include "gp_eval.h"
#include "gp_gpu.h"
#include "gp_gpu_breed.h"
#include "gp_problem.h"
#include "gp_tree.h"
#include "log.h"

/* templates/gp/gp_layout.h restates gp_insn for generated sources: keep it so. */
_Static_assert(sizeof(gp_insn) == 8, "gp_insn is 8 bytes (templates/gp/gp_layout.h)");
_Static_assert(offsetof(gp_insn, kinds) == 1 && offsetof(gp_insn, arg) == 2,
	       "gp_insn layout (templates/gp/gp_layout.h)");
_Static_assert(GP_SRC_S == 0 && GP_SRC_X == 1 && GP_SRC_C == 2, "gp_src values");
_Static_assert(GP_FIT_MSE == 0 && GP_FIT_CLASS == 1 && GP_FIT_BOOL == 2, "gp_fitness_kind values");

/* "GP_USE_ADD", ... in opcode order. */
static const char *const use_macro[GP_OP_COUNT] = {
#define GP_USE_NAME_(E, name, ar, expr) "GP_USE_" #E,
	GP_FLOAT_OPS(GP_USE_NAME_) GP_BOOL_OPS(GP_USE_NAME_)
#undef GP_USE_NAME_
};

void gp_gen_config_default(gp_gen_config *cfg)
{
	cfg->max_stack = 32;
	cfg->cpu_block = GP_EVAL_BLOCK_DEFAULT;
}

static rt_status check_config(const gp_gen_config *cfg, rt_error *err)
{
	if (cfg->max_stack < 1 || cfg->max_stack > 256)
		return rt_fail(err, RT_ERR_INPUT, "stack depth: expected 1..256, got %d", cfg->max_stack);
	if (cfg->cpu_block < 64 || cfg->cpu_block % 64 || cfg->cpu_block > GP_EVAL_BLOCK_MAX)
		return rt_fail(err, RT_ERR_INPUT, "CPU block: expected a multiple of 64 up to %d, got %d",
			       GP_EVAL_BLOCK_MAX, cfg->cpu_block);
	return RT_OK;
}

/* The specialisation block. */
static void defines(gen_source *src, const char *name, const unsigned char *use_ops, int fitness,
		    const gp_gen_config *cfg)
{
	gen_line(src, "/* problem %s: fitness %s; functions:", name,
		 fitness == GP_FIT_MSE ? "mse" : fitness == GP_FIT_CLASS ? "classification"
									  : "boolean");
	for (int op = 0; op < GP_OP_COUNT; op++)
		if (use_ops[op])
			gen_line(src, " *   %s", gp_op_name(op));
	gen_line(src, " */");
	gen_define_int(src, "GP_SPECIALISED", 1);
	gen_define_int(src, "GP_FITNESS", fitness);
	gen_define_int(src, "GP_STACK", cfg->max_stack);
	for (int op = 0; op < GP_OP_COUNT; op++)
		gen_define_int(src, use_macro[op], use_ops[op] ? 1 : 0);
}

rt_status gp_gen_render(const char *name, const unsigned char *use_ops, int fitness,
			const gp_gen_config *cfg, gen_source *c, rt_error *err)
{
	int nused = 0;
	rt_status st;
	if ((st = check_config(cfg, err)))
		return st;
	if (fitness < GP_FIT_MSE || fitness > GP_FIT_BOOL)
		return rt_fail(err, RT_ERR_INPUT, "unknown fitness kind %d", fitness);
	for (int op = 0; op < GP_OP_COUNT; op++) {
		if (!use_ops[op])
			continue;
		nused++;
		if (gp_op_is_bool(op) != (fitness == GP_FIT_BOOL))
			return rt_fail(err, RT_ERR_INPUT, "function '%s' does not fit a %s problem",
				       gp_op_name(op), fitness == GP_FIT_BOOL ? "Boolean" : "float");
	}
	if (nused == 0)
		return rt_fail(err, RT_ERR_INPUT, "problem %s has no functions", name);
	if (c) {
		defines(c, name, use_ops, fitness, cfg);
		gen_define_int(c, "GP_CPU_BLOCK", cfg->cpu_block);
		gen_line(c, "%s", "");
		if ((st = gen_template(c, "gp/gp_eval_cpu.c", err)))
			return st;
		if (c->text.failed)
			return rt_fail(err, RT_ERR_SYSTEM, "out of memory generating %s", c->name);
	}
	return RT_OK;
}

rt_status gp_gen_sources(rt_spec *spec, const rt_options *opt, const char *dir, rt_error *err)
{
	gp_problem p;
	gp_gen_config cfg;
	unsigned char use[GP_OP_COUNT];
	int fitness = GP_FIT_MSE;
	char cname[160];
	gen_source c;
	rt_status st;
	(void)opt;
	if ((st = gp_problem_read(spec, &p, err)))
		return st;
	if (p.fset.boolean) {
		fitness = GP_FIT_BOOL;
	} else if (p.source == GP_DATA_CSV) {
		rt_spec_entry *e = rt_spec_find(spec, "data", "fitness");
		fitness = e && strcmp(e->value, "mse") == 0 ? GP_FIT_MSE : GP_FIT_CLASS;
	}
	memset(use, 0, sizeof use);
	for (int i = 0; i < p.fset.nfuncs; i++)
		use[p.fset.funcs[i]] = 1;
	gp_gen_config_default(&cfg);
	if ((st = rt_format(cname, sizeof cname, err, "gp_eval_cpu-%s.c", p.name)))
		goto out_problem;
	gen_begin(&c, cname, "CPU 2-D stack LGP interpreter (gp_eval_lgp_cpu)");
	if ((st = gp_gen_render(p.name, use, fitness, &cfg, &c, err)) ||
	    (st = gen_write(&c, dir, err)))
		goto out;
	rt_info("%s/%s", dir, c.name);
	/* The interpreters the GPU backend runs (gp_gpu.h), one per kept variant:
	 * they need the fitness cases' shape, so the data is loaded. */
	gp_problem_free(&p);
	if ((st = gp_problem_load(spec, &p, err)) ||
	    (st = gp_gpu_gen_sources(&p.cases, &p.fset, dir, err)))
		goto out;
	/* and the breeding kernels (gp_gpu_breed.h), for the spec's depth limits */
	gen_free(&c);
	if ((st = gp_gpu_breed_render(&p.breed, &c, err)) || (st = gen_write(&c, dir, err)))
		goto out;
	rt_info("%s/%s", dir, c.name);
out:
	gen_free(&c);
out_problem:
	gp_problem_free(&p);
	return st;
}

rt_status gp_kernels_of(const gp_problem *p, rt_kernel_emit emit, void *ctx, rt_error *err)
{
	gp_gpu_config cfg;
	rt_status st = gp_gpu_variant_parse(p->gpu_variant, &cfg, err);
	if (st == RT_OK)
		st = gp_gpu_kernels(&p->cases, &p->fset, &cfg, &p->breed, emit, ctx, err);
	if (st == RT_OK && gp_breeds_on_device(p))
		st = gp_gpu_breed_kernel(&p->breed, emit, ctx, err);
	if (st == RT_OK && p->optimise_constants > 0 && p->cases.fitness == GP_FIT_MSE)
		st = gp_constopt_gpu_kernels(emit, ctx, err);   /* the LM's (gp_constopt_gpu.c) */
	return st;
}

rt_status gp_generic_kernels(rt_kernel_emit emit, void *ctx, rt_error *err)
{
	gp_breed b = gp_breed_defaults();
	return gp_gpu_breed_kernel(&b, emit, ctx, err);
}

rt_status gp_build_kernels(rt_spec *spec, const rt_options *opt, const gpu_info *info,
			   rt_kernel_emit emit, void *ctx, rt_error *err)
{
	gp_problem p;
	rt_status st;
	(void)opt;
	(void)info;   /* the interpreters do not depend on the device's sizes */
	if ((st = gp_problem_load(spec, &p, err)) != RT_OK)
		return st;
	st = gp_kernels_of(&p, emit, ctx, err);
	gp_problem_free(&p);
	return st;
}
