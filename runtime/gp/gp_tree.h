/* gp_tree.h: GP trees (prefix gp_node arrays), the function set they are
 * built from, random initialisation and variation (crossover, mutation,
 * tournament selection) with depth and size limits.
 *
 * A tree is an array of gp_node in prefix order: a function is followed by
 * its arguments' subtrees, left to right. Depth counts edges: a lone terminal
 * has depth 0. Every tree the engine makes has a function at its root, so
 * every program has at least one LGP instruction (gp_conv.h). */
#ifndef RT_GP_TREE_H
#define RT_GP_TREE_H

#include <stdint.h>

#include "error.h"
#include "gp_prog.h"
#include "rng.h"

/* Hard bounds for the spec's limits (depth bound keeps depth scans bounded;
 * size bound keeps LGP constant indices within uint16). */
#if !defined(GP_MAX_DEPTH_LIMIT)
#define GP_MAX_DEPTH_LIMIT 1000
#endif
#if !defined(GP_MAX_SIZE_LIMIT)
#define GP_MAX_SIZE_LIMIT 65535
#endif

/* ---- operation table (from templates/gp/gp_ops.h) ---------------------------- */

/* Name of an opcode ("+", "sin", "and"), or "?" when out of range. */
const char *gp_op_name(int op);
/* Arity of an opcode (terminals: 0). */
int gp_op_arity(int op);
/* Is op one of the bit-parallel Boolean operations (GP_BOOL_OPS)? */
int gp_op_is_bool(int op);
/* Opcode with exactly this name (case-sensitive), or -1; "pow2" and "pow3"
 * are accepted as other names of square and cube. */
int gp_op_lookup(const char *name);

/* Named constants a function set may list beside its functions ("pi",
 * "e"): terminals of a fixed value (GP_TERM_CONST nodes holding the float
 * nearest the number, so every evaluator, the exporter and the simplifier
 * treat them as any constant). */
enum { GP_NAMED_PI = 0, GP_NAMED_E, GP_NAMED_COUNT };
/* Name ("pi", "e") and float value of named constant k; NULL / 0 out of range. */
const char *gp_named_name(int k);
float gp_named_value(int k);
/* Index of the named constant called name, or -1. */
int gp_named_lookup(const char *name);

/* ---- function set and terminals ------------------------------------------- */

/* What trees are made of: the functions allowed, the inputs X_0..X_{n-1},
 * ephemeral random constants drawn uniformly from [const_min, const_max) and
 * the named constants listed. A terminal is an ephemeral constant with
 * probability const_prob (when use_consts), else one of the ninputs +
 * nnamed inputs and named constants, uniformly. */
typedef struct gp_fset {
	int nfuncs;
	uint8_t funcs[GP_OP_COUNT];  /* opcodes, no duplicates */
	int ninputs;                 /* >= 1 */
	int use_consts;              /* 0: terminals are inputs only */
	float const_min, const_max;
	double const_prob;           /* chance that a terminal is a constant */
	int boolean;                 /* the functions are GP_BOOL_OPS (uint32 words) */
	int nnamed;                  /* named constants (float problems only) */
	uint8_t named[GP_NAMED_COUNT];  /* their indices (GP_NAMED_PI ...), no duplicates */
} gp_fset;

/* Fills fset from a space/comma-separated list of names ("+ - * / pi"):
 * functions and named constants. Unknown names, duplicates, no function,
 * named constants in a Boolean set, or mixing Boolean and float ops give
 * RT_ERR_INPUT naming the word (the caller prefixes file:line). */
rt_status gp_fset_parse(gp_fset *fset, const char *list, int ninputs, rt_error *err);

/* ---- trees ------------------------------------------------------------------ */

typedef struct gp_tree {
	gp_node *nodes;   /* prefix order */
	int n, cap;
} gp_tree;

void gp_tree_free(gp_tree *t);
/* Makes room for n nodes (keeps contents). */
rt_status gp_tree_reserve(gp_tree *t, int n, rt_error *err);
/* dst = src (dst's buffer is reused). */
rt_status gp_tree_copy(gp_tree *dst, const gp_tree *src, rt_error *err);
/* Builds a tree from prefix nodes (tests, examples). */
rt_status gp_tree_set(gp_tree *t, const gp_node *nodes, int n, rt_error *err);

/* Arity of a node (0 for terminals). */
static inline int gp_node_arity(const gp_node *nd)
{
	return nd->op < GP_OP_COUNT ? gp_op_arity(nd->op) : 0;
}
/* Index one past the subtree rooted at node i (prefix order). */
int gp_subtree_end(const gp_node *nodes, int n, int i);
/* Depth of the tree (edges on the longest path); a value > GP_MAX_DEPTH_LIMIT
 * means "deeper than any allowed limit". */
int gp_tree_depth(const gp_node *nodes, int n);
/* Is this a complete, well-formed prefix tree (arity counts close exactly at
 * n, opcodes and inputs within range)? */
int gp_tree_valid(const gp_node *nodes, int n, int ninputs);

/* Node constructors. */
gp_node gp_fn(int op);
gp_node gp_var(int index);
gp_node gp_const(float value);

/* ---- initialisation and variation ----------------------------------------- */

/* Parsimony pressure in selection ([gp] parsimony). Selection alone sees
 * it: reported fitness stays the raw one. */
enum gp_parsimony {
	GP_PARSIMONY_NONE = 0,      /* raw fitness only (ties to the first drawn) */
	GP_PARSIMONY_LEXICOGRAPHIC, /* Luke & Panait 2002: raw fitness, ties to the smaller tree */
	GP_PARSIMONY_PENALTY,       /* fitness + coefficient x nodes */
	GP_PARSIMONY_COUNT
};

/* [gp] parsimony when the spec has none, by fitness: mse (ties are rare,
 * and sextic's success rate must hold) and counts (classification,
 * Boolean: many ties, sizes cut by 10x or more at no cost measured).
 * Measured: README, "Parsimony and constants". */
#if !defined(GP_PARSIMONY_DEFAULT_MSE)
#define GP_PARSIMONY_DEFAULT_MSE GP_PARSIMONY_NONE
#endif
#if !defined(GP_PARSIMONY_DEFAULT_COUNT)
#define GP_PARSIMONY_DEFAULT_COUNT GP_PARSIMONY_LEXICOGRAPHIC
#endif

/* Limits and rates of the breeding step. */
typedef struct gp_breed {
	int max_depth, max_size;     /* offspring over either are replaced by a parent */
	int init_min_depth, init_max_depth;  /* ramped half-and-half depth range */
	int mutation_depth;          /* max depth of subtrees grown by mutation */
	int tournament;              /* tournament size */
	double crossover;            /* probability an offspring comes from crossover */
	double mutation;             /* probability an offspring is then mutated */
	double point_mutation;       /* share of mutations that are point mutations */
	double crossover_internal;   /* chance a crossover point is a function node */
	int elitism;                 /* copy the best program unchanged */
	int parsimony;               /* enum gp_parsimony */
	double parsimony_coefficient;  /* GP_PARSIMONY_PENALTY: added per node */
} gp_breed;

/* Seed paper's defaults (population-independent part). */
gp_breed gp_breed_defaults(void);

/* Random tree: full (every branch reaches depth) or grow (terminals may come
 * earlier); the root is always a function. Replaces t's contents. */
rt_status gp_tree_random(gp_tree *t, const gp_fset *fs, int depth, int full, rt_rng *rng,
			 rt_error *err);
/* Ramped half-and-half: program i gets depth init_min + (i/2) mod range and
 * full when i is odd, grow when even; draws from stream (0 << 32 | i) of seed.
 * Trees over max_size are regrown (grow, then smaller depths). */
rt_status gp_init_population(gp_tree *pop, int n, const gp_fset *fs, const gp_breed *b,
			     uint64_t seed, rt_error *err);

/* Tournament selection: the best (lowest fitness, NaN worst, ties to the
 * first drawn) of b->tournament uniform draws from [0, n). */
int gp_tournament(const double *fitness, int n, int size, rt_rng *rng);

/* Tournament selection under br's parsimony (br->tournament draws, the same
 * draws as gp_tournament): GP_PARSIMONY_NONE is gp_tournament;
 * LEXICOGRAPHIC keeps the lower raw fitness and, on equal fitness, the
 * smaller of pop's trees (still tied: the first drawn); PENALTY compares
 * fitness + coefficient x size. Only fitness values and sizes decide. */
int gp_tournament_parsimony(const double *fitness, const gp_tree *pop, int n, const gp_breed *br,
			    rt_rng *rng);
/* Index of the best program for elitism and reporting: gp_best_index, with
 * equal best fitness going to the smaller tree under LEXICOGRAPHIC. */
int gp_best_index_parsimony(const double *fitness, const gp_tree *pop, int n, const gp_breed *br);
/* The same from the programs' sizes alone (sizes[i]: program i's nodes). */
int gp_best_index_sizes(const double *fitness, const uint32_t *sizes, int n, const gp_breed *br);
/* "none", "lexicographic", "penalty" (NULL-terminated, enum order). */
extern const char *const gp_parsimony_names[];

/* Subtree crossover: child = a with a random subtree replaced by a random
 * subtree of b. Over the limits: child is a copy of a and *accepted = 0. */
rt_status gp_crossover(gp_tree *child, const gp_tree *a, const gp_tree *b, const gp_fset *fs,
		       const gp_breed *br, rt_rng *rng, int *accepted, rt_error *err);
/* Subtree mutation: a random subtree of t replaced by a grown tree. Over the
 * limits: t is left unchanged and *accepted = 0. scratch is working space. */
rt_status gp_mutate_subtree(gp_tree *t, gp_tree *scratch, const gp_fset *fs, const gp_breed *br,
			    rt_rng *rng, int *accepted, rt_error *err);
/* Point mutation: one random node replaced by another of the same arity
 * (function by function, terminal by terminal / new constant). */
void gp_mutate_point(gp_tree *t, const gp_fset *fs, rt_rng *rng);

/* One generation: next[i] for i in [0, n) bred from cur by tournament,
 * crossover and mutation; with elitism next[0] is a copy of the best of cur.
 * Offspring i draws from stream ((generation + 1) << 32 | i) of seed, so the
 * result depends only on (seed, generation, cur, fitness). */
rt_status gp_breed_generation(gp_tree *next, const gp_tree *cur, const double *fitness, int n,
			      const gp_fset *fs, const gp_breed *br, uint64_t seed, int generation,
			      rt_error *err);

/* Offspring [begin, end) of gp_breed_generation only (same streams, same
 * elite at 0), so breeding a generation in consecutive ranges gives exactly
 * gp_breed_generation's result; lets the caller evaluate early ranges while
 * later ones are bred. */
rt_status gp_breed_range(gp_tree *next, const gp_tree *cur, const double *fitness, int n,
			 int begin, int end, const gp_fset *fs, const gp_breed *br, uint64_t seed,
			 int generation, rt_error *err);

/* Index of the best (lowest, NaN worst) fitness. */
int gp_best_index(const double *fitness, int n);

#endif
