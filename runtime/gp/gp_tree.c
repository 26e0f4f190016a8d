/* gp_tree.c: GP trees: operation table lookups, function sets, random trees,
 * ramped half-and-half, tournament selection, crossover, mutation, breeding.
 *
 * Why prefix arrays: a subtree is a contiguous slice, so crossover and
 * subtree mutation are three memcpy's, and the arrays pack straight into the
 * evaluators' linear forms (gp_conv.c). Every random choice draws from a
 * Philox stream named by (generation, offspring index), so a generation's
 * result never depends on the order offspring are bred in. */
#include <math.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "cpu.h"
#include "gp_tree.h"

/* ---- operation table ---------------------------------------------------- */

static const char *const op_names[GP_OP_COUNT] = {
#define GP_NAME_(E, name, arity, expr) name,
	GP_FLOAT_OPS(GP_NAME_)
	GP_BOOL_OPS(GP_NAME_)
#undef GP_NAME_
};

static const uint8_t op_arities[GP_OP_COUNT] = {
#define GP_ARITY_(E, name, arity, expr) arity,
	GP_FLOAT_OPS(GP_ARITY_)
	GP_BOOL_OPS(GP_ARITY_)
#undef GP_ARITY_
};

const char *gp_op_name(int op)
{
	return op >= 0 && op < GP_OP_COUNT ? op_names[op] : "?";
}

int gp_op_arity(int op)
{
	return op >= 0 && op < GP_OP_COUNT ? op_arities[op] : 0;
}

int gp_op_is_bool(int op)
{
	return op >= GP_NFLOAT_OPS && op < GP_OP_COUNT;
}

int gp_op_lookup(const char *name)
{
	for (int i = 0; i < GP_OP_COUNT; i++)
		if (strcmp(op_names[i], name) == 0)
			return i;
	if (strcmp(name, "pow2") == 0)
		return GP_OP_SQUARE;
	if (strcmp(name, "pow3") == 0)
		return GP_OP_CUBE;
	return -1;
}

/* ---- named constants ------------------------------------------------------ */

static const char *const named_names[GP_NAMED_COUNT] = {"pi", "e"};
static const float named_values[GP_NAMED_COUNT] = {3.14159265358979323846f,
						   2.71828182845904523536f};

const char *gp_named_name(int k)
{
	return k >= 0 && k < GP_NAMED_COUNT ? named_names[k] : NULL;
}

float gp_named_value(int k)
{
	return k >= 0 && k < GP_NAMED_COUNT ? named_values[k] : 0.0f;
}

int gp_named_lookup(const char *name)
{
	for (int k = 0; k < GP_NAMED_COUNT; k++)
		if (strcmp(named_names[k], name) == 0)
			return k;
	return -1;
}

/* ---- function sets ------------------------------------------------------- */

/* The error for a word that names neither a function nor a constant. */
static rt_status unknown_word(const char *word, rt_error *err)
{
	char known[512] = "";
	for (int i = 0; i < GP_OP_COUNT; i++) {
		strncat(known, " ", sizeof known - strlen(known) - 1);
		strncat(known, op_names[i], sizeof known - strlen(known) - 1);
	}
	strncat(known, " pow2 pow3; constants:", sizeof known - strlen(known) - 1);
	for (int k = 0; k < GP_NAMED_COUNT; k++) {
		strncat(known, " ", sizeof known - strlen(known) - 1);
		strncat(known, named_names[k], sizeof known - strlen(known) - 1);
	}
	return rt_fail(err, RT_ERR_INPUT, "unknown function '%s' (known:%s)", word, known);
}

/* Adds one word of the list: a function or a named constant. */
static rt_status fset_add(gp_fset *fs, const char *word, int *nbool, rt_error *err)
{
	int op = gp_op_lookup(word), k = op < 0 ? gp_named_lookup(word) : -1;
	if (op < 0 && k < 0)
		return unknown_word(word, err);
	if (k >= 0) {
		for (int i = 0; i < fs->nnamed; i++)
			if (fs->named[i] == k)
				return rt_fail(err, RT_ERR_INPUT, "constant '%s' listed twice", word);
		fs->named[fs->nnamed++] = (uint8_t)k;
		return RT_OK;
	}
	for (int i = 0; i < fs->nfuncs; i++)
		if (fs->funcs[i] == op)
			return rt_fail(err, RT_ERR_INPUT, "function '%s' listed twice", word);
	fs->funcs[fs->nfuncs++] = (uint8_t)op;
	*nbool += gp_op_is_bool(op);
	return RT_OK;
}

rt_status gp_fset_parse(gp_fset *fs, const char *list, int ninputs, rt_error *err)
{
	memset(fs, 0, sizeof *fs);
	fs->ninputs = ninputs;
	int nbool = 0;
	const char *p = list;
	for (;;) {
		while (*p == ' ' || *p == '\t' || *p == ',')
			p++;
		if (!*p)
			break;
		const char *w = p;
		while (*p && *p != ' ' && *p != '\t' && *p != ',')
			p++;
		char word[32];
		size_t len = (size_t)(p - w);
		if (len >= sizeof word)
			len = sizeof word - 1;
		memcpy(word, w, len);
		word[len] = 0;
		if (fset_add(fs, word, &nbool, err))
			return err->status;
	}
	if (fs->nfuncs == 0)
		return rt_fail(err, RT_ERR_INPUT, "expected at least one function name, got '%s'", list);
	if (nbool != 0 && nbool != fs->nfuncs)
		return rt_fail(err, RT_ERR_INPUT,
			       "cannot mix Boolean word functions (and or nand nor not if) "
			       "with float functions in '%s'", list);
	fs->boolean = nbool != 0;
	if (fs->boolean && fs->nnamed)
		return rt_fail(err, RT_ERR_INPUT, "Boolean problems take no constants ('%s' in '%s')",
			       named_names[fs->named[0]], list);
	if (ninputs < 1)
		return rt_fail(err, RT_ERR_INPUT, "a GP problem needs at least one input");
	return RT_OK;
}

/* ---- trees ---------------------------------------------------------------- */

void gp_tree_free(gp_tree *t)
{
	free(t->nodes);
	t->nodes = NULL;
	t->n = t->cap = 0;
}

rt_status gp_tree_reserve(gp_tree *t, int n, rt_error *err)
{
	if (n <= t->cap)
		return RT_OK;
	int cap = t->cap ? t->cap : 16;
	while (cap < n)
		cap *= 2;
	gp_node *p = rt_realloc(t->nodes, (size_t)cap * sizeof *p, err);
	if (!p)
		return err->status;
	t->nodes = p;
	t->cap = cap;
	return RT_OK;
}

rt_status gp_tree_set(gp_tree *t, const gp_node *nodes, int n, rt_error *err)
{
	if (gp_tree_reserve(t, n, err))
		return err->status;
	if (n)
		memcpy(t->nodes, nodes, (size_t)n * sizeof *nodes);
	t->n = n;
	return RT_OK;
}

rt_status gp_tree_copy(gp_tree *dst, const gp_tree *src, rt_error *err)
{
	return gp_tree_set(dst, src->nodes, src->n, err);
}

gp_node gp_fn(int op)
{
	gp_node nd = { (uint8_t)op, 0, 0, 0.0f };
	return nd;
}

gp_node gp_var(int index)
{
	gp_node nd = { GP_TERM_VAR, 0, (uint16_t)index, 0.0f };
	return nd;
}

gp_node gp_const(float value)
{
	gp_node nd = { GP_TERM_CONST, 0, 0, value };
	return nd;
}

int gp_subtree_end(const gp_node *nodes, int n, int i)
{
	int need = 1;
	while (i < n && need > 0) {
		need += gp_node_arity(&nodes[i]) - 1;
		i++;
	}
	return i;
}

int gp_tree_depth(const gp_node *nodes, int n)
{
	/* open[k]: children still to come of the k-th open ancestor. */
	int open[GP_MAX_DEPTH_LIMIT + 2];
	int sp = 0, depth = 0;
	for (int i = 0; i < n; i++) {
		if (sp > depth)
			depth = sp;
		int a = gp_node_arity(&nodes[i]);
		if (a > 0) {
			if (sp > GP_MAX_DEPTH_LIMIT)
				return GP_MAX_DEPTH_LIMIT + 1;
			open[sp++] = a;
		} else {
			while (sp > 0 && --open[sp - 1] == 0)
				sp--;
		}
	}
	return depth;
}

int gp_tree_valid(const gp_node *nodes, int n, int ninputs)
{
	if (n <= 0)
		return 0;
	long need = 1;
	for (int i = 0; i < n; i++) {
		if (need <= 0)
			return 0;
		const gp_node *nd = &nodes[i];
		if (nd->op == GP_TERM_VAR && nd->var >= ninputs)
			return 0;
		if (nd->op > GP_TERM_CONST)
			return 0;
		need += gp_node_arity(nd) - 1;
	}
	return need == 0;
}

/* ---- random trees ------------------------------------------------------- */

static gp_node random_terminal(const gp_fset *fs, rt_rng *rng)
{
	if (fs->use_consts && rt_rng_uniform_double(rng) < fs->const_prob)
		return gp_const((float)rt_rng_range(rng, fs->const_min, fs->const_max));
	int k = (int)rt_rng_below(rng, (uint32_t)(fs->ninputs + fs->nnamed));
	return k < fs->ninputs ? gp_var(k) : gp_const(named_values[fs->named[k - fs->ninputs]]);
}

static gp_node random_function(const gp_fset *fs, rt_rng *rng)
{
	return gp_fn(fs->funcs[rt_rng_below(rng, (uint32_t)fs->nfuncs)]);
}

/* Appends a random subtree to t (prefix order). Koza's grow picks from the
 * union of functions and terminals; full picks functions until `depth`. */
static rt_status grow(gp_tree *t, const gp_fset *fs, int depth, int full, int root_fn,
		      rt_rng *rng, rt_error *err)
{
	if (gp_tree_reserve(t, t->n + 1, err))
		return err->status;
	int nterms = fs->ninputs + (fs->use_consts ? 1 : 0) + fs->nnamed;
	int fn;
	if (depth <= 0)
		fn = 0;
	else if (full || root_fn)
		fn = 1;
	else
		fn = rt_rng_below(rng, (uint32_t)(fs->nfuncs + nterms)) < (uint32_t)fs->nfuncs;
	if (!fn) {
		t->nodes[t->n++] = random_terminal(fs, rng);
		return RT_OK;
	}
	gp_node f = random_function(fs, rng);
	t->nodes[t->n++] = f;
	int a = gp_op_arity(f.op);
	for (int k = 0; k < a; k++)
		if (grow(t, fs, depth - 1, full, 0, rng, err))
			return err->status;
	return RT_OK;
}

rt_status gp_tree_random(gp_tree *t, const gp_fset *fs, int depth, int full, rt_rng *rng,
			 rt_error *err)
{
	t->n = 0;
	if (depth < 1)
		depth = 1;
	return grow(t, fs, depth, full, 1, rng, err);
}

gp_breed gp_breed_defaults(void)
{
	gp_breed b;
	b.max_depth = 50;
	b.max_size = 1000;
	b.init_min_depth = 2;
	b.init_max_depth = 6;
	b.mutation_depth = 4;
	b.tournament = 7;
	b.crossover = 0.95;
	b.mutation = 0.2;
	b.point_mutation = 0.5;
	b.crossover_internal = 0.9;
	b.elitism = 1;
	b.parsimony = GP_PARSIMONY_NONE;
	b.parsimony_coefficient = 0.0;
	return b;
}

rt_status gp_init_population(gp_tree *pop, int n, const gp_fset *fs, const gp_breed *b,
			     uint64_t seed, rt_error *err)
{
	int lo = b->init_min_depth < 1 ? 1 : b->init_min_depth;
	int hi = b->init_max_depth < lo ? lo : b->init_max_depth;
	if (hi > b->max_depth)
		hi = b->max_depth < lo ? lo : b->max_depth;
	int range = hi - lo + 1;
	for (int i = 0; i < n; i++) {
		rt_rng rng;
		rt_rng_init(&rng, seed, (uint64_t)(uint32_t)i);
		int depth = lo + (i / 2) % range;
		int full = i & 1;
		/* Regrow trees over the size limit: a few tries as asked, then grow
		 * at shrinking depths (depth 1 always fits: at most 1 + 3 nodes). */
		for (int tries = 0;; tries++) {
			if (gp_tree_random(&pop[i], fs, depth, full, &rng, err))
				return err->status;
			if (pop[i].n <= b->max_size && gp_tree_depth(pop[i].nodes, pop[i].n) <= b->max_depth)
				break;
			if (tries > 1000)
				return rt_fail(err, RT_ERR_INPUT,
					       "cannot grow a tree within max_size %d and max_depth %d",
					       b->max_size, b->max_depth);
			if (tries >= 4) {
				full = 0;
				if (depth > 1)
					depth--;
			}
		}
	}
	return RT_OK;
}

/* ---- selection and variation --------------------------------------------- */

static int better(double a, double b)
{
	/* NaN is worse than everything; a strict < keeps ties with the first. */
	if (isnan(b))
		return !isnan(a);
	return a < b;
}

int gp_best_index(const double *fitness, int n)
{
	int best = 0;
	for (int i = 1; i < n; i++)
		if (better(fitness[i], fitness[best]))
			best = i;
	return best;
}

int gp_tournament(const double *fitness, int n, int size, rt_rng *rng)
{
	int best = (int)rt_rng_below(rng, (uint32_t)n);
	for (int k = 1; k < size; k++) {
		int c = (int)rt_rng_below(rng, (uint32_t)n);
		if (better(fitness[c], fitness[best]))
			best = c;
	}
	return best;
}

const char *const gp_parsimony_names[] = {"none", "lexicographic", "penalty", NULL};
_Static_assert(GP_PARSIMONY_COUNT == 3, "gp_parsimony_names follows enum gp_parsimony");

/* Is program a preferred to program b in selection under br's parsimony? */
static int better_parsimony(const double *fitness, const gp_tree *pop, int a, int b,
			    const gp_breed *br)
{
	double fa = fitness[a], fb = fitness[b];
	switch (br->parsimony) {
	case GP_PARSIMONY_LEXICOGRAPHIC:
		/* Equal fitness (both NaN counting as equal): the smaller tree. */
		if (fa == fb || (isnan(fa) && isnan(fb)))
			return pop[a].n < pop[b].n;
		return better(fa, fb);
	case GP_PARSIMONY_PENALTY:
		return better(fa + br->parsimony_coefficient * pop[a].n,
			      fb + br->parsimony_coefficient * pop[b].n);
	default:
		return better(fa, fb);
	}
}

int gp_tournament_parsimony(const double *fitness, const gp_tree *pop, int n, const gp_breed *br,
			    rt_rng *rng)
{
	if (br->parsimony == GP_PARSIMONY_NONE)
		return gp_tournament(fitness, n, br->tournament, rng);
	int best = (int)rt_rng_below(rng, (uint32_t)n);
	for (int k = 1; k < br->tournament; k++) {
		int c = (int)rt_rng_below(rng, (uint32_t)n);
		if (better_parsimony(fitness, pop, c, best, br))
			best = c;
	}
	return best;
}

int gp_best_index_sizes(const double *fitness, const uint32_t *sizes, int n, const gp_breed *br)
{
	int best = gp_best_index(fitness, n);
	if (br->parsimony != GP_PARSIMONY_LEXICOGRAPHIC)
		return best;
	for (int i = 0; i < n; i++)
		if (fitness[i] == fitness[best] && sizes[i] < sizes[best])
			best = i;
	return best;
}

int gp_best_index_parsimony(const double *fitness, const gp_tree *pop, int n, const gp_breed *br)
{
	int best = gp_best_index(fitness, n);
	if (br->parsimony != GP_PARSIMONY_LEXICOGRAPHIC)
		return best;
	for (int i = 0; i < n; i++)
		if (fitness[i] == fitness[best] && pop[i].n < pop[best].n)
			best = i;
	return best;
}

/* A random node of t: with probability p_internal a function node (if any),
 * else a terminal. */
static int pick_node(const gp_tree *t, double p_internal, rt_rng *rng)
{
	int nfn = 0;
	for (int i = 0; i < t->n; i++)
		nfn += t->nodes[i].op < GP_OP_COUNT;
	int want_fn = rt_rng_uniform_double(rng) < p_internal;
	int count = want_fn ? nfn : t->n - nfn;
	if (count == 0)
		return (int)rt_rng_below(rng, (uint32_t)t->n);
	int k = (int)rt_rng_below(rng, (uint32_t)count);
	for (int i = 0; i < t->n; i++)
		if ((t->nodes[i].op < GP_OP_COUNT) == want_fn && k-- == 0)
			return i;
	return 0;
}

/* Within limits and a function at the root? */
static int fits(const gp_tree *t, const gp_breed *br)
{
	return t->n <= br->max_size && t->n > 0 && t->nodes[0].op < GP_OP_COUNT &&
	       gp_tree_depth(t->nodes, t->n) <= br->max_depth;
}

/* dst = a[0..i) + sub + a[end..n). */
static rt_status splice(gp_tree *dst, const gp_tree *a, int i, int end, const gp_node *sub,
			int nsub, rt_error *err)
{
	int n = i + nsub + (a->n - end);
	if (gp_tree_reserve(dst, n, err))
		return err->status;
	memcpy(dst->nodes, a->nodes, (size_t)i * sizeof(gp_node));
	memcpy(dst->nodes + i, sub, (size_t)nsub * sizeof(gp_node));
	memcpy(dst->nodes + i + nsub, a->nodes + end, (size_t)(a->n - end) * sizeof(gp_node));
	dst->n = n;
	return RT_OK;
}

rt_status gp_crossover(gp_tree *child, const gp_tree *a, const gp_tree *b, const gp_fset *fs,
		       const gp_breed *br, rt_rng *rng, int *accepted, rt_error *err)
{
	(void)fs;
	int i = pick_node(a, br->crossover_internal, rng);
	int j = pick_node(b, br->crossover_internal, rng);
	int iend = gp_subtree_end(a->nodes, a->n, i);
	int jend = gp_subtree_end(b->nodes, b->n, j);
	*accepted = 0;
	if (a->n - (iend - i) + (jend - j) <= br->max_size) {
		if (splice(child, a, i, iend, b->nodes + j, jend - j, err))
			return err->status;
		*accepted = fits(child, br);
	}
	if (!*accepted)
		return gp_tree_copy(child, a, err);
	return RT_OK;
}

rt_status gp_mutate_subtree(gp_tree *t, gp_tree *scratch, const gp_fset *fs, const gp_breed *br,
			    rt_rng *rng, int *accepted, rt_error *err)
{
	int i = (int)rt_rng_below(rng, (uint32_t)t->n);
	int end = gp_subtree_end(t->nodes, t->n, i);
	gp_tree sub = { 0 };
	*accepted = 0;
	int depth = 1 + (int)rt_rng_below(rng, (uint32_t)(br->mutation_depth > 1 ? br->mutation_depth : 1));
	/* The new subtree: grow, rooted by a function when it replaces the root. */
	scratch->n = 0;
	if (gp_tree_reserve(scratch, t->n + 1, err))
		return err->status;
	rt_status st;
	if (i == 0)
		st = gp_tree_random(&sub, fs, depth, 0, rng, err);
	else
		st = grow(&sub, fs, depth, 0, 0, rng, err);
	if (st == RT_OK && t->n - (end - i) + sub.n <= br->max_size) {
		st = splice(scratch, t, i, end, sub.nodes, sub.n, err);
		if (st == RT_OK && fits(scratch, br)) {
			gp_tree tmp = *t;
			*t = *scratch;
			*scratch = tmp;
			*accepted = 1;
		}
	}
	gp_tree_free(&sub);
	return st;
}

void gp_mutate_point(gp_tree *t, const gp_fset *fs, rt_rng *rng)
{
	int i = (int)rt_rng_below(rng, (uint32_t)t->n);
	gp_node *nd = &t->nodes[i];
	if (nd->op < GP_OP_COUNT) {
		int a = gp_op_arity(nd->op), nsame = 0;
		for (int k = 0; k < fs->nfuncs; k++)
			nsame += gp_op_arity(fs->funcs[k]) == a;
		if (nsame == 0)
			return;
		int pick = (int)rt_rng_below(rng, (uint32_t)nsame);
		for (int k = 0; k < fs->nfuncs; k++)
			if (gp_op_arity(fs->funcs[k]) == a && pick-- == 0) {
				nd->op = fs->funcs[k];
				break;
			}
	} else {
		*nd = random_terminal(fs, rng);
	}
}

/* One parallel breeding job: offspring [begin, end) per call of breed_range. */
typedef struct breed_job {
	gp_tree *next;
	const gp_tree *cur;
	const double *fitness;
	int n;
	const gp_fset *fs;
	const gp_breed *br;
	uint64_t seed;
	int generation;
	int start;             /* first offspring bred (1 after an elite) */
	atomic_int failed;     /* the first failure claims err */
	rt_status status;
	rt_error err;
} breed_job;

/* Offspring i: tournament, crossover or copy, then perhaps mutation, all
 * from its own stream, so any thread may make it. */
static rt_status breed_one(breed_job *job, int i, gp_tree *scratch, rt_error *err)
{
	const gp_breed *br = job->br;
	rt_rng rng;
	int accepted;
	rt_status st;
	rt_rng_init(&rng, job->seed, ((uint64_t)(uint32_t)(job->generation + 1) << 32) | (uint32_t)i);
	int pa = gp_tournament_parsimony(job->fitness, job->cur, job->n, br, &rng);
	if (rt_rng_uniform_double(&rng) < br->crossover) {
		int pb = gp_tournament_parsimony(job->fitness, job->cur, job->n, br, &rng);
		st = gp_crossover(&job->next[i], &job->cur[pa], &job->cur[pb], job->fs, br, &rng,
				  &accepted, err);
	} else {
		st = gp_tree_copy(&job->next[i], &job->cur[pa], err);
	}
	if (st || rt_rng_uniform_double(&rng) >= br->mutation)
		return st;
	if (rt_rng_uniform_double(&rng) < br->point_mutation) {
		gp_mutate_point(&job->next[i], job->fs, &rng);
		return RT_OK;
	}
	return gp_mutate_subtree(&job->next[i], scratch, job->fs, br, &rng, &accepted, err);
}

static void breed_range(void *ctx, long begin, long end, int thread)
{
	breed_job *job = ctx;
	gp_tree scratch = {0};
	rt_error err;
	(void)thread;
	for (long i = begin + job->start; i < end + job->start && !atomic_load(&job->failed); i++) {
		rt_status st = breed_one(job, (int)i, &scratch, &err);
		int expected = 0;
		if (st && atomic_compare_exchange_strong(&job->failed, &expected, 1)) {
			job->err = err;
			job->status = st;
		}
	}
	gp_tree_free(&scratch);
}

rt_status gp_breed_range(gp_tree *next, const gp_tree *cur, const double *fitness, int n,
			 int begin, int end, const gp_fset *fs, const gp_breed *br, uint64_t seed,
			 int generation, rt_error *err)
{
	breed_job job = {next, cur, fitness, n, fs, br, seed, generation, begin, 0, RT_OK, {0}};
	rt_status st;
	if (begin < 0 || end > n || begin > end)
		return rt_fail(err, RT_ERR_INTERNAL, "gp_breed_range: [%d, %d) outside [0, %d)", begin,
			       end, n);
	if (br->elitism && begin == 0 && end > 0) {
		if ((st = gp_tree_copy(&next[0], &cur[gp_best_index_parsimony(fitness, cur, n, br)], err)))
			return st;
		job.start = 1;
	}
	/* Threads over offspring: each draws from its own stream, so the result
	 * does not depend on the number of threads or on the ranges. */
	st = cpu_parallel_for(end - job.start, 16, breed_range, &job, err);
	if (st)
		return st;
	if (job.status) {
		*err = job.err;
		return job.status;
	}
	return RT_OK;
}

rt_status gp_breed_generation(gp_tree *next, const gp_tree *cur, const double *fitness, int n,
			      const gp_fset *fs, const gp_breed *br, uint64_t seed, int generation,
			      rt_error *err)
{
	return gp_breed_range(next, cur, fitness, n, 0, n, fs, br, seed, generation, err);
}
