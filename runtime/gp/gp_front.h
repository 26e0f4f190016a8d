/* gp_front.h: multi-objective GP ([gp] objectives): a program's complexity,
 * non-dominated sorting and crowding of a population on (error, size) or
 * (error, complexity), the scalar selection fitness that carries rank and
 * crowding into the ordinary tournaments (host or device breeding), and the
 * run's Pareto front: an archive of every non-dominated program seen, the
 * "best" chosen on it, and its report (front.csv, result.json "front").
 *
 * Why a scalar: both breeders (gp_tree.c, templates/gp/gp_breed.h) select by
 * tournament on one double per program, lowest wins. NSGA-II's crowded
 * comparison (lower rank, then larger crowding distance) is a total preorder,
 * so it is encoded as rank + 0.5 / (1 + crowding) in [rank, rank + 0.5]: the
 * same tournaments, on either backend, then run NSGA-II's selection. */
#ifndef RT_GP_FRONT_H
#define RT_GP_FRONT_H

#include <stdint.h>

#include "error.h"
#include "gp_tree.h"

/* [gp] objectives: what selection minimises. */
enum gp_objectives {
	GP_OBJ_ERROR = 0,       /* the fitness alone (single objective, as before) */
	GP_OBJ_ERROR_SIZE,      /* fitness and nodes */
	GP_OBJ_ERROR_COMPLEXITY,/* fitness and gp_complexity (host breeding only) */
	GP_OBJ_COUNT
};
/* "error", "error,size", "error,complexity" (NULL-terminated, enum order). */
extern const char *const gp_objectives_names[];

/* [gp] front_selection: how the second objective reaches selection. */
enum gp_front_selection {
	GP_FRONT_NSGA2 = 0,     /* tournaments on rank and crowding (gp_front_selection_fitness) */
	GP_FRONT_ARCHIVE,       /* tournaments on the error as single-objective runs; the
	                           archive alone keeps the front */
	GP_FRONT_SEL_COUNT
};
extern const char *const gp_front_selection_names[];

/* [gp] objectives when the spec has none: mse fitness gets this (other
 * fitness kinds: error; a front needs mse). Measured: docs/gp.md, "Pareto
 * front". */
#if !defined(GP_OBJECTIVES_DEFAULT_MSE)
#define GP_OBJECTIVES_DEFAULT_MSE GP_OBJ_ERROR_SIZE
#endif
#if !defined(GP_FRONT_SELECTION_DEFAULT)
#define GP_FRONT_SELECTION_DEFAULT GP_FRONT_ARCHIVE
#endif

/* Complexity weight of one node, as PySR weighs operators: 1 for a leaf and
 * + - *; 2 for /, sqrt, abs, aq and comparisons/logic; 3 for sin cos exp
 * log tanh, the powers (square cube pow4) and IF; Boolean ops 1. */
int gp_op_complexity(const gp_node *nd);
/* Sum of the weights of a prefix tree's nodes. */
int gp_complexity(const gp_node *nodes, int n);

/* Non-dominated sorting of n points (f1[i], f2[i]) (minimised; a point
 * with a non-finite f1 is in no front: rank[i] = -1): rank[i] = 0 for the
 * non-dominated, 1 for those dominated only by rank 0 ... (NSGA-II's
 * fronts; O(n log n) for two objectives). crowd[i] (may be NULL): NSGA-II's
 * crowding distance within i's front (objectives normalised by the front's
 * range; the front's extremes +inf). Returns the number of fronts, or -1
 * out of memory (err set). */
int gp_front_sort(const double *f1, const double *f2, int n, int *rank, double *crowd,
		  rt_error *err);
/* Selection fitness from ranks and crowding: rank + 0.5 / (1 + crowd), the
 * lowest-f1 member of front 0 (the elite) -1, unranked points 1e300. */
void gp_front_selection_fitness(const int *rank, const double *crowd, const double *f1, int n,
				double *sel);

/* One generation's ranking: working arrays for n programs. */
typedef struct gp_front_gen {
	int n, objectives, nfronts;
	int *rank, *obj2;      /* gp_front_sort's rank; the second objective */
	double *f2, *crowd;
	double *sel;           /* gp_front_selection_fitness */
} gp_front_gen;

rt_status gp_front_gen_open(gp_front_gen *g, int n, int objectives, rt_error *err);
void gp_front_gen_free(gp_front_gen *g);
/* Ranks a population: fit[n] (the error), the second objective from sizes
 * (error,size) or from pop's trees (error,complexity; pop must be given),
 * then rank, crowding and the selection fitness. */
rt_status gp_front_rank(gp_front_gen *g, const double *fit, const uint32_t *sizes,
			const gp_tree *pop, rt_error *err);

/* One member of the run's front. */
typedef struct gp_front_member {
	gp_tree tree;
	double error;       /* the run's fitness (training error) */
	int size, complexity;
	int generation;     /* first found */
	int unfaithful;     /* set at the run's end: its float evaluation does not render
			     * its formula (gp_constopt_faithful); the best skips it */
	int reported_size;  /* set at the run's end: the size of its formula as reported
			     * (scaled, simplified); 0 unknown */
} gp_front_member;

/* The archive: members sorted by the second objective, rising, with error
 * strictly falling (no member dominates or duplicates another). */
typedef struct gp_front {
	int objectives;     /* enum gp_objectives (not GP_OBJ_ERROR) */
	gp_front_member *m;
	int n, cap;
} gp_front;

void gp_front_free(gp_front *f);
/* The member's second objective under f->objectives. */
int gp_front_obj2(const gp_front *f, const gp_front_member *m);
/* Would a program of (error, obj2) join the archive (not dominated by nor
 * equal to a member; error finite)? */
int gp_front_would_join(const gp_front *f, double error, int obj2);
/* Adds tree (error, size, complexity from the tree) found in generation g
 * when it joins; members it dominates leave. *joined (may be NULL) says. */
rt_status gp_front_offer(gp_front *f, const gp_tree *tree, double error, int generation,
			 int *joined, rt_error *err);
/* A program of the population by index (host trees or the device's). */
typedef rt_status (*gp_front_fetch)(void *ctx, int i, gp_tree *t, rt_error *err);
/* Offers population members to the archive: those of rank 0 (rank from
 * gp_front_sort on (fit, obj2)), fetching a tree only when it joins. */
rt_status gp_front_update(gp_front *f, const double *fit, const int *obj2, const int *rank, int n,
			  int generation, gp_front_fetch fetch, void *ctx, rt_error *err);

/* Tolerance of the best-choosing rule: 1 %. */
#if !defined(GP_FRONT_BEST_TOLERANCE)
#define GP_FRONT_BEST_TOLERANCE 0.01
#endif
/* Errors this far apart, as a share of the training targets' variance (an R²
 * difference of 1e-10), are float noise: an MSE fit near zero is 1e-17 on one
 * member and 1e-16 on the next, and the 1 % rule alone would then pick the
 * largest exact formula instead of the smallest. */
#if !defined(GP_FRONT_NOISE_R2)
#define GP_FRONT_NOISE_R2 1e-10
#endif
/* Members marked unfaithful are passed over unless every member is.
 * The rule: the member of smallest reported size (the smallest second
 * objective when sizes are unknown or tie) among those whose error
 * is within GP_FRONT_BEST_TOLERANCE of the front's lowest error plus
 * noise (GP_FRONT_NOISE_R2 times the targets' variance for MSE, else 0), or
 * at most success, when the lowest error is (a solved run stays solved).
 * -1 when the front is empty. */
int gp_front_choose(const gp_front *f, double success, double noise);
/* The variance of the cases' targets (0 for none). */
double gp_front_target_var(const gp_cases *cases);

/* ---- report ---------------------------------------------------------------------------- */

/* One member as reported: its errors (MSE from the runtime's CPU
 * interpreter, gp_score.h) and R^2 = 1 - MSE / variance of the target on the
 * training and the test cases (test NaN without a held-out set), its infix
 * and its simplified formula (gp_simplify.h). */
typedef struct gp_front_row {
	double train_error, train_r2, test_error, test_r2;
	char *infix, *simplified;
	int simplified_size;
} gp_front_row;

struct gp_names;
struct rt_json;
/* rows[f->n] for the members (test: NULL or no cases: no held-out set);
 * free with gp_front_rows_free. */
rt_status gp_front_report(const gp_front *f, const gp_cases *train, const gp_cases *test,
			  const struct gp_names *nm, gp_front_row **rows, rt_error *err);
void gp_front_rows_free(gp_front_row *rows, int n);
/* result.json's "front": an array of objects, one a member in the archive's
 * order (size rising), with front.csv's fields. */
void gp_front_json(struct rt_json *j, const gp_front *f, const gp_front_row *rows);
/* front.csv in dir (written atomically): size, complexity, train_error,
 * train_r2, test_error, test_r2 (empty without held-out data), generation,
 * infix, simplified (quoted CSV fields). */
rt_status gp_front_write_csv(const char *dir, const gp_front *f, const gp_front_row *rows,
			     int has_test, rt_error *err);
/* A data set's R^2 for mse: 1 - mse / var, var the population variance of
 * its targets (gp_front_target_var); NaN when var is 0. */
double gp_front_r2(double var, double mse);

#endif
