/* gp_constopt.h: local optimisation of a GP program's constants on mse
 * fitness cases: Levenberg-Marquardt with forward-mode derivatives through
 * a double-precision evaluation of the tree, as Operon tunes its programs.
 * With linear scaling on (gp_scale.h) the residual is y - (a + b f(x; c))
 * and a, b are projected out (variable projection: the least-squares line
 * of f re-derived at every step), so LM minimises exactly the scaled MSE the
 * search ranks by. Used on the run's Pareto front at the end of the run
 * ([gp] fit_front_steps) and on the top-k programs of each generation
 * ([gp] optimise_constants; on the device for a GPU run, gp_constopt_gpu.c).
 * The tree's structure never changes: only the
 * values of its constant nodes (named constants, pi and e, stay fixed). */
#ifndef RT_GP_CONSTOPT_H
#define RT_GP_CONSTOPT_H

#include "error.h"
#include "gp_front.h"
#include "kinds.h"
#include "gp_prog.h"
#include "gp_tree.h"

/* Programs with more constants than this are left as they are. */
#if !defined(GP_CONSTOPT_MAX_CONSTS)
#define GP_CONSTOPT_MAX_CONSTS 32
#endif

/* LM fits on at most this many cases, evenly spaced through the data
 * (the fitness evaluator then checks the result on all of them): a
 * program's few constants are determined by a few hundred points, and the
 * forward-mode pass costs cases x nodes x constants. */
#if !defined(GP_CONSTOPT_MAX_CASES)
#define GP_CONSTOPT_MAX_CASES 256
#endif

/* [gp] fit_front_steps when the spec has none (mse fitness with a front;
 * 0: off). Measured: bench/results/gp-constants-cpu-2026-11-27.md. */
#if !defined(GP_FIT_FRONT_STEPS_DEFAULT)
#define GP_FIT_FRONT_STEPS_DEFAULT 50
#endif

/* Runs up to `steps` Levenberg-Marquardt trials on the constants of t
 * (float regression cases; scaled when cases->scale), keeping each that
 * lowers the MSE. *mse gets the fitness of t as it is returned, computed
 * by the lgp2d fitness evaluator (so equal to what a CPU run reports for
 * t); it is not larger than t's fitness on entry (constants that do not
 * lower it are put back). A tree without constants (or with more than
 * GP_CONSTOPT_MAX_CONSTS) is returned unchanged. */
rt_status gp_constopt_tree(gp_tree *t, const gp_cases *cases, int steps, double *mse,
			   rt_error *err);

/* gp_constopt_tree on the k programs of pop with the lowest finite fitness
 * (ties: lower index first); fitness[i] becomes the new MSE where it is
 * lower, and the tree keeps its new constants. Depends only on (pop,
 * fitness, cases), so a CPU and a GPU run that agree on fitness agree here. */
rt_status gp_constopt_population(gp_tree *pop, double *fitness, int n, int k,
				 const gp_cases *cases, int steps, rt_error *err);

/* gp_constopt_tree on every member of the front f (on the host, whatever
 * backend evaluated the run): a member whose fitted fitness is below its
 * error takes the fitted constants and error; then the archive is filtered
 * again (a fitted member may dominate others, which leave). *improved (may
 * be NULL): how many members were improved. */
rt_status gp_constopt_front(gp_front *f, const gp_cases *cases, int steps, int *improved,
			    rt_error *err);

/* Does t's float evaluation (the interpreter a run scores, exports and
 * predicts with) render t's formula in double on the cases: outputs at most
 * 1e15 and within 1e-4 of their spread (sampled: at most ~4096 cases)?
 * 1 for non-MSE cases. A program whose terms cancel (x3 + ... - x3 under a
 * slope of 4e4) fails: its printed formula would not give its predictions. */
int gp_constopt_faithful(const gp_tree *t, const gp_cases *cases);

/* ---- pieces shared with the GPU's LM (gp_constopt_gpu.c) ---- */

/* Row k of the ns cases LM fits on (ns = min(ncases, GP_CONSTOPT_MAX_CASES)):
 * evenly spaced through the data. */
size_t gp_constopt_case(size_t ncases, size_t ns, size_t k);
/* The constants LM fits in t (not the named ones): their node indices into
 * idx (GP_CONSTOPT_MAX_CONSTS entries); how many, 0 when none or too many. */
int gp_constopt_constants(const gp_tree *t, int *idx);
/* The k programs gp_constopt_population fits, best first, into order (at
 * least min(k, n) entries); how many, -1 when out of memory. */
int gp_constopt_pick(const double *fitness, int n, int k, int *order, rt_error *err);
/* The lgp2d fitness evaluator's MSE of t (+inf when not finite); pk is scratch. */
rt_status gp_constopt_fitness(gp_packed *pk, const gp_tree *t, const gp_cases *cases,
			      double *mse, rt_error *err);
/* t holds fitted values at its constants idx[0..m-1], orig their old ones and
 * `before` its old fitness: keeps the fit when the evaluator's MSE is lower,
 * the constants moderate and the float outputs faithful, else puts orig
 * back. *mse: t's fitness as returned. */
rt_status gp_constopt_keep(gp_packed *pk, gp_tree *t, const gp_cases *cases, const int *idx,
			   int m, const float *orig, double before, double *mse, rt_error *err);

/* ---- the GPU's LM (gp_constopt_gpu.c) ---- */

/* The device state of a run: context, the compiled module, the sampled
 * cases; created by gp_constopt_gpu_open (cheap: nothing touches the device
 * until the first call), freed by gp_constopt_gpu_close. */
typedef struct gp_constopt_gpu gp_constopt_gpu;
rt_status gp_constopt_gpu_open(const gp_cases *cases, gp_constopt_gpu **out, rt_error *err);
void gp_constopt_gpu_close(gp_constopt_gpu *g);
/* Opens the device and builds the LM module (NVRTC, kernel cache) now, for
 * a caller that falls back to the host when it fails. */
rt_status gp_constopt_gpu_ready(gp_constopt_gpu *g, rt_error *err);
/* gp_constopt_population with the LM of all k programs in one kernel launch
 * (a thread block per program, double precision, the host's algorithm);
 * the float evaluator then judges each fit on the host as gp_constopt_tree
 * does. A program whose stack is deeper than the kernel handles is fitted on
 * the host. cases must be those g was opened with. */
rt_status gp_constopt_population_gpu(gp_constopt_gpu *g, gp_tree *pop, double *fitness, int n,
				     int k, const gp_cases *cases, int steps, rt_error *err);
/* The NVRTC source of the LM kernel for a stack depth (tests compile it). */
struct gen_source;
rt_status gp_constopt_gpu_render(int stack, struct gen_source *src, rt_error *err);
/* Every LM module a run may compile (one a stack depth), for the run's
 * kernel list: precompiled at start-up and by `evoforge build`. */
rt_status gp_constopt_gpu_kernels(rt_kernel_emit emit, void *ctx, rt_error *err);
/* Kernel statistics of the last call (benchmarks): device milliseconds. */
double gp_constopt_gpu_last_ms(const gp_constopt_gpu *g);

#endif
