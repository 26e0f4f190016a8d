/* gp_gpu.h: evaluating packed GP populations on the GPU: generated CUDA
 * interpreters (templates/gp/gp_gpu.cu) specialised per problem (only its
 * functions in the dispatch, its input count, its fitness kind) and per
 * configuration (RPN or LGP, cases per thread, register stack levels,
 * threads per block, passes per block, stack depth), compiled with NVRTC for
 * the present device and cached.
 *
 * Variants by name (gp_gpu_variant_parse): the seed's, kept as baselines,
 *   blockgp       1-D stack RPN, one case per thread, stack in local memory,
 *                 one block per program looping over every case (BlockGP)
 *   rpn2d-N       2-D stack RPN, N = 2..8 cases per thread
 *   lgp1d         LGP, one case per thread, one register stack level
 *   lgp2d-N       LGP, N = 2..8 cases per thread (strided scalars)
 *   lgp-float2|3|4  LGP with float2/3/4 cases per thread (the seed's best:
 *                 lgp-float4, one register level, one block per program)
 * and ours: lgp-fast (the default, see GP_GPU_DEFAULT_VARIANT). Modifiers
 * may follow any of them: -rK (register levels 0..4), -pP (passes per
 * block, 0 = one block per program), -tT (threads per block), -fWxN (W
 * cases per vector load, N vectors per thread), -xX (one input held in a
 * register: 0 off, 1 on), -oO (RPN: top of stack in a register, 0 off). gp_gpu_variant_name gives
 * the canonical name back.
 *
 * Fitness is the CPU evaluators' (gp_eval.h) for every variant: the outputs
 * are the same bits (gp_math.h, IEEE division, no contraction); MSE sums are
 * added in another order (relative difference about 1e-12; GP_GPU_MSE_TOL is
 * what checks allow). Counts and Boolean wrong cases are exact. */
#ifndef RT_GP_GPU_H
#define RT_GP_GPU_H

#include <stdint.h>
#include <stdio.h>

#include "error.h"
#include "gpu.h"
#include "gp_prog.h"
#include "gp_tree.h"
#include "kinds.h"

/* Largest relative MSE difference between the GPU and the CPU that
 * gp_gpu_check accepts. */
#define GP_GPU_MSE_TOL 1e-9
/* The variant gp_gpu_config_default picks (fastest measured on an H100). */
#define GP_GPU_DEFAULT_VARIANT "lgp-fast"
/* Deepest stack a generated interpreter provides (LGP push slots: 12 bits). */
#define GP_GPU_MAX_STACK 4096

/* A configuration of the generated interpreter. */
typedef struct gp_gpu_config {
	int form;       /* GP_FORM_RPN or GP_FORM_LGP */
	int width;      /* cases per vector load: 1..4 (float2/3/4, uint2/4) */
	int nvec;       /* vectors per thread; cases per thread = width * nvec (<= 16) */
	int regs;       /* lowest stack slots held in registers, 0..4 */
	int threads;    /* threads per block: 32..1024, a multiple of 32 */
	int passes;     /* passes (threads*width*nvec cases) per block; 0: one block per program */
	int carveout;   /* preferred shared-memory carve-out in percent; -1: the driver's */
	int stack;      /* stack depth compiled for; 0: from each population (power of 2, >= 4) */
	int xreg;       /* inputs held in registers: -1 auto (one-input problems), 0 off, 1 on */
	int tos;        /* RPN: top of the stack in a register (1) or in local memory (0) */
} gp_gpu_config;

/* The default configuration (GP_GPU_DEFAULT_VARIANT). */
void gp_gpu_config_default(gp_gpu_config *cfg);
/* Parses a variant name with modifiers (see above) into cfg. RT_ERR_INPUT
 * naming the valid forms otherwise. */
rt_status gp_gpu_variant_parse(const char *name, gp_gpu_config *cfg, rt_error *err);
/* Canonical name of a configuration into buf ("lgp-float4", "lgp-f4x2-r2-p4"). */
const char *gp_gpu_variant_name(const gp_gpu_config *cfg, char *buf, int size);
/* Names of the variants gp_gpu_check and gp_gpu_bench run by default,
 * terminated by NULL. */
extern const char *const gp_gpu_variants[];

/* An open evaluator: device context, compiled module, cases on the device,
 * two population buffers (double buffering). */
typedef struct gp_gpu gp_gpu;

/* Timings and sizes of one evaluation. */
typedef struct gp_gpu_stats {
	double kernel_ms;     /* GPU time of the evaluation kernels (events) */
	double upload_ms;     /* host encoding of the population (CPU wall time) */
	double total_ms;      /* wall time from start to finish */
	double gpops;         /* tree nodes * fitness cases / kernel time (per second) */
	uint64_t nodes;       /* sum of the programs' tree sizes */
	size_t bytes;         /* bytes uploaded */
	int registers, stack; /* the kernel's registers per thread; stack depth compiled for */
} gp_gpu_stats;

/* Opens device 0, generates and compiles the interpreter for these cases,
 * function set (fs may be NULL: every function of the family) and
 * configuration (NULL: default), and uploads the cases once. RT_ERR_NOGPU
 * without a driver or device. */
rt_status gp_gpu_open(const gp_cases *cases, const gp_fset *fs, const gp_gpu_config *cfg,
		      gp_gpu **g, rt_error *err);
void gp_gpu_close(gp_gpu *g);
/* The packed form the open configuration reads (GP_FORM_RPN or GP_FORM_LGP). */
int gp_gpu_form(const gp_gpu *g);
/* Device name and driver version of an open evaluator ("NVIDIA H100 ...", 13000). */
const char *gp_gpu_device_name(const gp_gpu *g, int *driver_version);

/* Evaluates pop (in gp_gpu_form's form) into fitness[nprogs]: encodes it
 * into pinned memory, uploads it, launches, downloads. st may be NULL. */
rt_status gp_gpu_eval(gp_gpu *g, const gp_packed *pop, double *fitness, gp_gpu_stats *st,
		      rt_error *err);
/* Double buffering: start an evaluation and return at once (pop is copied
 * and may be changed right away); at most two in flight. finish waits for
 * the oldest one (only it: the other may still run) and writes its fitness
 * (in the order started). st->kernel_ms is the GPU time of its kernels alone
 * (events recorded around them at start). */
rt_status gp_gpu_eval_start(gp_gpu *g, const gp_packed *pop, rt_error *err);
rt_status gp_gpu_eval_finish(gp_gpu *g, double *fitness, gp_gpu_stats *st, rt_error *err);

/* A population already encoded on the device, in the layout
 * gp_gpu_eval_start uploads (GPU breeding, gp_gpu_breed.h): LGP only. */
typedef struct gp_gpu_encoded {
	gpu_ptr progs, code, consts;
	int nprogs;
	uint64_t nodes;        /* tree nodes, for GPop/s */
	uint32_t smem;         /* the most shared memory a program needs */
	int need;              /* the deepest stack slot count */
	gpu_ptr fitness;       /* where the fitness goes on the device (nprogs doubles) */
} gp_gpu_encoded;
/* Evaluates e (compiling for a deeper stack first when it needs one) into
 * e->fitness on the device and fitness[nprogs] here; nothing in flight. */
rt_status gp_gpu_eval_encoded(gp_gpu *g, const gp_gpu_encoded *e, double *fitness,
			      gp_gpu_stats *st, rt_error *err);
/* The evaluator's device context, stream, arch ("sm_90") and input column
 * length (elements), for code that works beside it on the same data. */
gpu_context *gp_gpu_context(gp_gpu *g);
gpu_stream *gp_gpu_stream(gp_gpu *g);
const char *gp_gpu_arch(const gp_gpu *g);
size_t gp_gpu_dstride(const gp_gpu *g);
/* The stack slots the loaded interpreter was compiled for. */
int gp_gpu_stack(const gp_gpu *g);

/* The device encoding gp_gpu_eval_start uploads, on the host alone (for
 * tests; no GPU needed): its size in bytes (0: no population), and the
 * encoding of pop, validated against cases, into host (cap bytes) with input
 * columns dstride elements apart; *smem: the most shared memory a program
 * needs, *need: the deepest stack slot count. Threaded over programs; the
 * bytes do not depend on the number of threads. */
size_t gp_gpu_encoded_bytes(const gp_packed *pop);
rt_status gp_gpu_encode(const gp_packed *pop, const gp_cases *cases, size_t dstride, void *host,
			size_t cap, uint32_t *smem, int *need, rt_error *err);

/* Renders the interpreter source for these cases, function set and
 * configuration (stack depth: cfg->stack, or 8 when 0) into src. No GPU needed. */
struct gen_source;
rt_status gp_gpu_render(const gp_cases *cases, const gp_fset *fs, const gp_gpu_config *cfg,
			struct gen_source *src, rt_error *err);
/* Writes the source of every variant (`evoforge gen`) into dir. */
rt_status gp_gpu_gen_sources(const gp_cases *cases, const gp_fset *fs, const char *dir,
			     rt_error *err);
/* `evoforge build`: emits every interpreter a run with cfg may compile: the
 * one stack depth cfg fixes, or 8, 16, 32 ... up to the deepest stack a
 * program within br's max_depth and max_size can need. */
rt_status gp_gpu_kernels(const gp_cases *cases, const gp_fset *fs, const gp_gpu_config *cfg,
			 const gp_breed *br, rt_kernel_emit emit, void *ctx, rt_error *err);
/* NVRTC options the interpreters are compiled with. */
extern const char *const gp_gpu_nvrtc_options[];
extern const int gp_gpu_nvrtc_noptions;

/* Runs each variant (NULL: gp_gpu_variants) on a random population of
 * nprogs programs (ramped half-and-half from fs with breeding limits br,
 * seed), compares with gp_eval_cpu (LGP 2-D method) and prints
 * "| variant | programs | max rel diff | wrong counts | verdict |" to out.
 * RT_ERR_INTERNAL if any variant disagrees. */
rt_status gp_gpu_check(const gp_cases *cases, const gp_fset *fs, const gp_breed *br, int nprogs,
		       uint64_t seed, const char *const *variants, FILE *out, rt_error *err);

/* Benchmark options (zero fields: defaults). */
typedef struct gp_gpu_bench_opts {
	const char *const *variants;  /* NULL: gp_gpu_variants */
	const int *threads;           /* per-block sizes to try, 0-terminated; NULL: the variant's */
	int repeats;                  /* timed evaluations per point (best taken); 0: 5 */
} gp_gpu_bench_opts;

/* Evaluation-only throughput of every variant and threads-per-block on the
 * same population (rpn and lgp: the population packed both ways), one
 * markdown table to out: "| variant | threads | regs | ms | GPop/s |". */
rt_status gp_gpu_bench(const gp_cases *cases, const gp_fset *fs, const gp_packed *rpn,
		       const gp_packed *lgp, const gp_gpu_bench_opts *o, FILE *out, rt_error *err);

#endif
