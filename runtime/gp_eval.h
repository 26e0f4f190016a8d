/* gp_eval.h: evaluating a packed GP population (gp_prog.h) on its fitness
 * cases: the CPU interpreters and the generator of the specialised GPU/CPU
 * interpreter sources.
 *
 * Fitness of one program (lower is better), the same for every method:
 *   GP_FIT_MSE    sum over cases of ((double)out - (double)y)^2, accumulated in
 *                 double, divided by ncases; NaN or inf -> +inf
 *   GP_FIT_CLASS  number of cases where clamp(rintf(out), 0, nclasses-1) != y;
 *                 a NaN output is always wrong
 *   GP_FIT_BOOL   number of wrong cases: popcount((out ^ target) & mask)
 * Outputs are computed with the operation table (gp_ops.h) and agree bit for
 * bit between the methods; MSE sums differ only by summation order (relative
 * difference below 1e-12 in practice; tests allow 1e-9). Counts are exact. */
#ifndef RT_GP_EVAL_H
#define RT_GP_EVAL_H

#include "error.h"
#include "gp_prog.h"
#include "kinds.h"

enum gp_eval_method {
	GP_EVAL_RPN1D = 0,  /* baseline: 1-D stack RPN, one case (one word) at a time, one thread */
	GP_EVAL_LGP2D = 1,  /* default: 2-D stack LGP, each instruction over a block of cases, threaded */
	GP_EVAL_RPN2D = 2,  /* 2-D stack over the RPN form (no operand folding), threaded */
	GP_EVAL_METHOD_COUNT
};

/* Cases per block when the tuning asks for none (measured: see gp_eval_cpu.c). */
#define GP_EVAL_BLOCK_DEFAULT 1024
/* Largest block (cases; Boolean problems: words). */
#define GP_EVAL_BLOCK_MAX 8192

/* Tuning of the 2-D stack evaluators (zero fields: defaults). */
typedef struct gp_eval_tuning {
	int block;    /* cases (Boolean: 32-case words) per block; a multiple of 64; 0 = default */
	int threads;  /* threads for this call; 0 = the pool's setting (cpu_set_threads) */
	int isa;      /* 0 = best the CPU has; 1 = force the AVX2 build; 2 = force AVX-512 */
} gp_eval_tuning;

/* "rpn1d", "lgp2d", "rpn2d". */
const char *gp_eval_method_name(int method);
/* Parses a method name; RT_ERR_INPUT naming the valid ones. */
rt_status gp_eval_method_parse(const char *s, int *method, rt_error *err);
/* The packed form a method reads (GP_FORM_RPN or GP_FORM_LGP). */
int gp_eval_method_form(int method);
/* Name of the vector instruction set the 2-D evaluators use here ("avx512", "avx2"). */
const char *gp_eval_isa_name(int isa);

/* Fitness of every program of pop on cases (fitness[nprogs]) with `method`
 * and default tuning. The population must be packed in the method's form.
 * Malformed programs (bad opcode, operand, stack use) give RT_ERR_INPUT. */
rt_status gp_eval_cpu(const gp_packed *pop, const gp_cases *cases, int method, double *fitness,
		      rt_error *err);
/* The same with explicit tuning (tun may be NULL). */
rt_status gp_eval_cpu_tuned(const gp_packed *pop, const gp_cases *cases, int method,
			    const gp_eval_tuning *tun, double *fitness, rt_error *err);

/* Checks every program of pop against the cases (opcodes of the right
 * family, input and constant indices, stack depth); RT_ERR_INPUT naming the
 * program and instruction otherwise. The evaluators call it first. */
rt_status gp_eval_validate(const gp_packed *pop, const gp_cases *cases, rt_error *err);

/* Tuning of a generated interpreter (templates/gp_eval.cu, gp_eval_cpu.c). */
typedef struct gp_gen_config {
	int threads_per_block;  /* CUDA threads per block (program) */
	int vec;                /* cases per thread: 1, 2 or 4 (float), 1 (bool) */
	int max_stack;          /* stack depth the interpreter provides */
	int max_code;           /* longest program (instructions) held in shared memory */
	int max_consts;         /* most constants per program in shared memory */
	int cpu_block;          /* CPU interpreter block size (cases) */
} gp_gen_config;

/* Default configuration for a problem with `ninputs` inputs. */
void gp_gen_config_default(gp_gen_config *cfg);

/* Renders the CUDA interpreter (gp_eval-NAME.cu) and the specialised CPU
 * interpreter (gp_eval_cpu-NAME.c) for a function set: use_ops[op] != 0 for
 * every opcode the problem uses; fitness as in gp_cases. The sources are
 * appended to cu and c (either may be NULL). */
struct gen_source;
rt_status gp_gen_render(const char *name, const unsigned char *use_ops, int fitness,
			const gp_gen_config *cfg, struct gen_source *cu, struct gen_source *c,
			rt_error *err);

/* `evoforge gen` for kind gp: reads the function set and fitness kind from
 * the spec, writes both sources into dir and prints their paths. */
rt_status gp_gen_sources(rt_spec *spec, const rt_options *opt, const char *dir, rt_error *err);

/* `evoforge bench gp ...` (runtime/gp_bench.c). */
rt_status gp_bench_main(int argc, char **argv, const rt_options *opt, rt_error *err);
/* Help text for `evoforge bench gp --help`. */
extern const char gp_bench_help[];

#endif
