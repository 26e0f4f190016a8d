/* gp_gpu_breed.h: whole GP generations on the GPU. The population lives on
 * the device; each generation is planned, written and encoded there by
 * templates/gp/gp_breed.cu (the same code as the host's breeding, so the
 * same seed breeds the same trees on both backends) and evaluated by the
 * open interpreter (gp_gpu.h), so the host only reads back the fitness and
 * sizes it reports and selects the elite by. */
#ifndef RT_GP_GPU_BREED_H
#define RT_GP_GPU_BREED_H

#include <stdint.h>

#include "gen.h"
#include "gp_gpu.h"
#include "gp_tree.h"

typedef struct gp_gpu_breeder gp_gpu_breeder;

/* Opens breeding of n programs beside the open evaluator g (an LGP
 * variant) for function set fs and limits br: compiles the kernels. */
rt_status gp_gpu_breeder_open(gp_gpu *g, const gp_cases *cases, const gp_fset *fs,
			      const gp_breed *br, int n, gp_gpu_breeder **out, rt_error *err);
void gp_gpu_breeder_close(gp_gpu_breeder *b);

/* pop[n] becomes the current generation; fit (NULL: none yet) its fitness,
 * as breeding from it will see it. */
rt_status gp_gpu_breeder_load(gp_gpu_breeder *b, const gp_tree *pop, const double *fit,
			      rt_error *err);
/* The fitness the next breeding's tournaments read becomes sel[n] (the
 * evaluation wrote the raw fitness there): multi-objective selection
 * (gp_front.h) hands rank and crowding over this way. */
rt_status gp_gpu_breeder_set_fitness(gp_gpu_breeder *b, const double *sel, rt_error *err);
/* The current generation is replaced by the one bred from it: gp_tree.h's
 * gp_breed_generation(seed, generation) with elite (-1: no elitism) as
 * the program offspring 0 copies. */
rt_status gp_gpu_breeder_breed(gp_gpu_breeder *b, uint64_t seed, int generation, int elite,
			       rt_error *err);
/* Evaluates the current generation: fitness[n] and sizes[n] here (also
 * kept on the device for the next breeding); *nodes the sum of sizes. */
rt_status gp_gpu_breeder_eval(gp_gpu_breeder *b, double *fitness, uint32_t *sizes, double *nodes,
			      gp_gpu_stats *st, rt_error *err);
/* Program i of the current generation into t; all n into pop. */
rt_status gp_gpu_breeder_tree(gp_gpu_breeder *b, int i, gp_tree *t, rt_error *err);
rt_status gp_gpu_breeder_trees(gp_gpu_breeder *b, gp_tree *pop, rt_error *err);

/* Programs of the current generation whose nodes' depths on the device
 * differ from those of pop's trees (*diffs; pop: the same generation). */
rt_status gp_gpu_breeder_check_depths(gp_gpu_breeder *b, const gp_tree *pop, int *diffs,
				      rt_error *err);
/* Times every breeding kernel from now on (a sync after each: for
 * measurements only); kernel_ms: the milliseconds so far of gpb_plan_k,
 * gpb_emit_k and the encoder. */
rt_status gp_gpu_breeder_profile(gp_gpu_breeder *b, double kernel_ms[3], rt_error *err);

/* The breeding kernels' source for these limits (no GPU needed). */
rt_status gp_gpu_breed_render(const gp_breed *br, gen_source *src, rt_error *err);
/* Gives emit the breeding kernels' compile (as gp_gpu_breeder_open makes it). */
rt_status gp_gpu_breed_kernel(const gp_breed *br, rt_kernel_emit emit, void *ctx, rt_error *err);

/* gp_breed.h's parameters for fs and br (seed, generation and elite 0). */
struct gpb_params;
void gp_gpu_breed_params(const gp_fset *fs, const gp_breed *br, int n, struct gpb_params *pr);

#endif
