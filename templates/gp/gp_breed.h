/* gp_breed.h: one offspring of a GP generation and one program's encoding
 * for the GPU interpreter, written once for the host (tests,
 * runtime/gp/gp_breed_host.c) and the device (gp_breed.cu): the same moves
 * as runtime/gp/gp_tree.c's breeding for the same (seed, generation,
 * offspring index), the same bytes as runtime/gp/gp_gpu.c's encoding.
 *
 * Breeding is two steps so that every offspring can be written in place:
 *   gpb_plan    draws everything (tournaments, crossover points, mutation)
 *               and describes the child as at most GPB_PIECES pieces: runs
 *               of a parent's nodes, or the subtree a mutation grows (kept
 *               as the stream it is grown from, so it is grown again when
 *               written), plus one node replaced by a point mutation;
 *   gpb_emit    writes the child's nodes at its offset (a prefix sum of the
 *               plans' sizes) and counts its functions and constants.
 * gpb_encode then turns a prefix tree into the interpreter's LGP encoding
 * (postfix order through Chitty's symbolic stack, S operands resolved into
 * register or stack slot by gpb_encode_insn, which gp_gpu.c encodes with too);
 * gpb_encode_par gives the same bytes from the nodes' depths by prefix
 * counts and short scans, a warp per program on the device.
 *
 * Every node of a population carries its depth in its tree (root 0, a
 * uint16: depth <= GP_MAX_DEPTH_LIMIT): node k is a function iff
 * D[k + 1] > D[k], its subtree ends at the first m > k with D[m] <= D[k],
 * and a tree's depth is its largest D. A child keeps its parents' depths
 * plus one offset per piece, so planning is scans of depth arrays, no
 * stacks. On the device these scans (and the copies of gpb_emit) are done
 * by a warp: every lane runs the same plan with the same draws, the scans
 * spread over the lanes (gpb_ballot and the reductions below); on the host
 * the same code runs with one lane.
 *
 * Bounds are compile-time: GPB_DEPTH_CAP (> the spec's max_depth + 1) and
 * GPB_GROW_CAP (> its mutation_depth + 1) size the per-thread stacks. */
#ifndef EVO_GP_BREED_H
#define EVO_GP_BREED_H

#include "common.h"
#include "philox.h"
#include "gp_layout.h"
#include "gp_ops.h"

#if !defined(GPB_DEPTH_CAP)
#define GPB_DEPTH_CAP 1002
#endif
#if !defined(GPB_GROW_CAP)
#define GPB_GROW_CAP 66
#endif
#define GPB_PIECES 5
#define GPB_SUB 0xffffffffu     /* a piece that is the grown subtree */
#define GPB_NONE 0xffffffffu

/* What breeding needs to know (runtime/gp/gp_tree.h's gp_fset and gp_breed). */
typedef struct gpb_params {
	uint64_t seed;
	int generation;            /* the generation bred from (children are generation + 1) */
	int n;                     /* programs */
	int elite;                 /* offspring 0 copies this program; -1: no elitism */
	int max_depth, max_size, mutation_depth, tournament;
	double crossover, mutation, point_mutation, crossover_internal;
	int parsimony;             /* 0 none, 1 lexicographic, 2 penalty */
	double parsimony_coefficient;
	int nfuncs;
	unsigned char funcs[32];
	int ninputs, use_consts;
	float const_min, const_max;
	double const_prob;
	int nnamed;                /* named constants (gp_fset.named), by value */
	float named[4];
} gpb_params;

/* A population: program p is nodes[off[p] .. off[p] + size[p]) in prefix
 * order with nfn[p] function nodes and depth[off[p] + k] the depth of its
 * node k; fit[p] its fitness (NaN: worst). */
typedef struct gpb_pop {
	const gp_node *nodes;
	const uint32_t *off, *size, *nfn;
	const double *fit;
	const uint16_t *depth;
} gpb_pop;

/* One offspring: the pieces it is made of, in order (doff: what a piece's
 * depths gain in the child; for the grown subtree, its root's depth), a
 * node a point mutation replaced, and the stream its grown subtree comes
 * from. */
typedef struct gpb_plan {
	uint32_t prog[GPB_PIECES], begin[GPB_PIECES], len[GPB_PIECES];
	int doff[GPB_PIECES];
	int npieces;
	uint32_t size;
	uint32_t point_pos;        /* GPB_NONE: no point mutation */
	gp_node point;
	philox_stream sub_rng;     /* the grown subtree's draws start here */
	int sub_depth, sub_root_fn;
} gpb_plan;

RT_HD int gpb_arity(unsigned op)
{
	switch (op) {
#define GPB_ARITY_(E, name, arity, expr) case GP_OP_##E: return arity;
	GP_FLOAT_OPS(GPB_ARITY_)
	GP_BOOL_OPS(GPB_ARITY_)
#undef GPB_ARITY_
	default: return 0;
	}
}

RT_HD int gpb_is_fn(const gp_node *nd) { return nd->op < GP_OP_COUNT; }

/* ---- lanes: a warp on the device, one lane on the host ----------------------------- */

#if defined(__CUDA_ARCH__)
#define GPB_LANES 32u
#define GPB_LANE (threadIdx.x & 31u)
RT_HD void gpb_sync(void) { __syncwarp(); }
RT_HD uint32_t gpb_ballot(int flag) { return __ballot_sync(0xffffffffu, flag); }
RT_HD uint32_t gpb_sum(uint32_t v) { return __reduce_add_sync(0xffffffffu, v); }
RT_HD uint32_t gpb_max(uint32_t v) { return __reduce_max_sync(0xffffffffu, v); }
RT_HD int gpb_popc(uint32_t m) { return __popc(m); }
RT_HD int gpb_first(uint32_t m) { return __ffs((int)m) - 1; }
RT_HD int gpb_nth(uint32_t m, uint32_t k) { return (int)__fns(m, 0, (int)k + 1); }
/* Exclusive count of the lanes below with flag set; *carry gains all. */
RT_HD uint32_t gpb_count_below(int flag, uint32_t *carry)
{
	uint32_t m = __ballot_sync(0xffffffffu, flag), r;
	r = *carry + (uint32_t)__popc(m & ((1u << GPB_LANE) - 1u));
	*carry += (uint32_t)__popc(m);
	return r;
}
/* Exclusive prefix of v over the lanes; *carry gains the lanes' sum. */
RT_HD int gpb_scan_add(int v, int *carry)
{
	int inc = v;
	for (int d = 1; d < 32; d *= 2) {
		int x = __shfl_up_sync(0xffffffffu, inc, d);
		if ((int)GPB_LANE >= d)
			inc += x;
	}
	int r = *carry + inc - v;
	*carry += __shfl_sync(0xffffffffu, inc, 31);
	return r;
}
#else
#define GPB_LANES 1u
#define GPB_LANE 0u
RT_HD void gpb_sync(void) { }
RT_HD uint32_t gpb_ballot(int flag) { return flag ? 1u : 0u; }
RT_HD uint32_t gpb_sum(uint32_t v) { return v; }
RT_HD uint32_t gpb_max(uint32_t v) { return v; }
RT_HD int gpb_popc(uint32_t m) { return (int)m; }
RT_HD int gpb_first(uint32_t m) { return m ? 0 : -1; }
RT_HD int gpb_nth(uint32_t m, uint32_t k) { return m && k == 0 ? 0 : -1; }
RT_HD uint32_t gpb_count_below(int flag, uint32_t *carry)
{
	uint32_t r = *carry;
	*carry += flag ? 1u : 0u;
	return r;
}
RT_HD int gpb_scan_add(int v, int *carry)
{
	int r = *carry;
	*carry += v;
	return r;
}
#endif
/* Scans read GPB_UNROLL chunks of GPB_LANES at once (loads in flight). */
#define GPB_UNROLL 4u

/* First m in [from, to) with d[m] <= limit, or to (every lane gets it). */
RT_HD uint32_t gpb_next_le(const uint16_t *d, uint32_t from, uint32_t to, int limit)
{
	if (limit < 0)
		return to;
	for (uint32_t base = from; base < to; base += GPB_LANES * GPB_UNROLL) {
		int hit[GPB_UNROLL];
		for (uint32_t u = 0; u < GPB_UNROLL; u++) {
			uint32_t m = base + u * GPB_LANES + GPB_LANE;
			hit[u] = m < to && (int)d[m] <= limit;
		}
		for (uint32_t u = 0; u < GPB_UNROLL; u++) {
			uint32_t mask = gpb_ballot(hit[u]);
			if (mask)
				return base + u * GPB_LANES + (uint32_t)gpb_first(mask);
		}
	}
	return to;
}

/* The largest d[m] over [from, to), or -1 if empty (every lane gets it). */
RT_HD int gpb_max_range(const uint16_t *d, uint32_t from, uint32_t to)
{
	uint32_t best = 0;
	int any = from < to;
	for (uint32_t m = from + GPB_LANE; m < to; m += GPB_LANES)
		best = d[m] > best ? d[m] : best;
	best = gpb_max(best);
	return any ? (int)best : -1;
}

/* Node k of a tree of n nodes with depths d is a function. */
RT_HD int gpb_fn_at(const uint16_t *d, uint32_t n, uint32_t k)
{
	return k + 1 < n && d[k + 1] > d[k];
}

/* ---- selection --------------------------------------------------------------------- */

/* Fitness as selection sees it: NaN is +inf (the loop's rule). */
RT_HD double gpb_fit(const gpb_pop *pop, uint32_t i)
{
	double f = pop->fit[i];
	return f != f ? (1.0 / 0.0) : f;
}

/* gp_tree.c's better(): a strict < keeps ties with the first drawn. */
RT_HD int gpb_better_parsimony(const gpb_pop *pop, const gpb_params *pr, uint32_t a, uint32_t b)
{
	double fa = gpb_fit(pop, a), fb = gpb_fit(pop, b);
	if (pr->parsimony == 1 && fa == fb)
		return pop->size[a] < pop->size[b];
	if (pr->parsimony == 2) {
		fa = fa + pr->parsimony_coefficient * (double)pop->size[a];
		fb = fb + pr->parsimony_coefficient * (double)pop->size[b];
	}
	return fa < fb;
}

RT_HD uint32_t gpb_tournament(const gpb_pop *pop, const gpb_params *pr, philox_stream *rng)
{
	uint32_t best = philox_stream_below(rng, (uint32_t)pr->n);
	for (int k = 1; k < pr->tournament; k++) {
		uint32_t c = philox_stream_below(rng, (uint32_t)pr->n);
		if (gpb_better_parsimony(pop, pr, c, best))
			best = c;
	}
	return best;
}

/* ---- trees as pieces ----------------------------------------------------------------- */

/* A tree being made: pieces of parents' programs and at most one grown
 * subtree (collapsed: len nodes of height sub_height, never read here);
 * doff as gpb_plan's. */
typedef struct gpb_tree {
	uint32_t prog[GPB_PIECES], begin[GPB_PIECES], len[GPB_PIECES];
	int doff[GPB_PIECES];
	int npieces;
	uint32_t n;
	int sub_height;
} gpb_tree;

RT_HD const gp_node *gpb_piece_nodes(const gpb_pop *pop, const gpb_tree *t, int k)
{
	return pop->nodes + pop->off[t->prog[k]] + t->begin[k];
}

RT_HD const uint16_t *gpb_piece_depths(const gpb_pop *pop, const gpb_tree *t, int k)
{
	return pop->depth + pop->off[t->prog[k]] + t->begin[k];
}

/* Node i of t (not in the grown subtree). */
RT_HD gp_node gpb_at(const gpb_pop *pop, const gpb_tree *t, uint32_t i)
{
	for (int k = 0; k < t->npieces; k++) {
		if (i < t->len[k])
			return gpb_piece_nodes(pop, t, k)[i];
		i -= t->len[k];
	}
	return pop->nodes[0];   /* not reached for i < t->n */
}

/* Depth of node i of t (the grown subtree's root, if i is in it). */
RT_HD int gpb_depth_at(const gpb_pop *pop, const gpb_tree *t, uint32_t i)
{
	for (int k = 0; k < t->npieces; k++) {
		if (i < t->len[k])
			return t->prog[k] == GPB_SUB ? t->doff[k]
						     : (int)gpb_piece_depths(pop, t, k)[i] + t->doff[k];
		i -= t->len[k];
	}
	return 0;
}

/* Appends t[from, to) to out (from <= to <= t->n), its depths shifted by shift. */
RT_HD void gpb_slice(const gpb_tree *t, uint32_t from, uint32_t to, int shift, gpb_tree *out)
{
	uint32_t pos = 0;
	for (int k = 0; k < t->npieces && from < to; k++) {
		uint32_t b = pos, e = pos + t->len[k];
		pos = e;
		if (e <= from || b >= to)
			continue;
		uint32_t s = from > b ? from : b, f = to < e ? to : e;
		out->prog[out->npieces] = t->prog[k];
		out->begin[out->npieces] = t->begin[k] + (t->prog[k] == GPB_SUB ? 0 : s - b);
		out->doff[out->npieces] = t->doff[k] + shift;
		out->len[out->npieces++] = f - s;
		out->n += f - s;
	}
}

RT_HD void gpb_whole(gpb_tree *t, const gpb_pop *pop, uint32_t p)
{
	t->npieces = 1;
	t->prog[0] = p;
	t->begin[0] = 0;
	t->doff[0] = 0;
	t->len[0] = t->n = pop->size[p];
	t->sub_height = 0;
}

/* Index one past the subtree rooted at node i (gp_subtree_end): the first
 * node after i no deeper than i. t has no grown subtree. */
RT_HD uint32_t gpb_subtree_end(const gpb_pop *pop, const gpb_tree *t, uint32_t i)
{
	uint32_t pos = 0;
	int target = -1;
	for (int k = 0; k < t->npieces; k++) {
		uint32_t e = pos + t->len[k];
		if (i < e) {
			const uint16_t *d = gpb_piece_depths(pop, t, k);
			uint32_t from = 0;
			if (target < 0) {
				target = (int)d[i - pos] + t->doff[k];
				from = i - pos + 1;
			}
			uint32_t m = gpb_next_le(d, from, t->len[k], target - t->doff[k]);
			if (m < t->len[k])
				return pos + m;
		}
		pos = e;
	}
	return t->n;
}

/* Depth of t (edges on the longest path; gp_tree_depth): the deepest
 * piece, the grown subtree sub_height below its root. */
RT_HD int gpb_depth(const gpb_pop *pop, const gpb_tree *t)
{
	int depth = 0;
	for (int k = 0; k < t->npieces; k++) {
		int m = t->prog[k] == GPB_SUB
				? t->sub_height
				: gpb_max_range(gpb_piece_depths(pop, t, k), 0, t->len[k]);
		if (m + t->doff[k] > depth)
			depth = m + t->doff[k];
	}
	return depth;
}

/* gp_tree.c's fits(): within the limits, a function at the root. */
RT_HD int gpb_fits(const gpb_pop *pop, const gpb_tree *t, const gpb_params *pr, int root_fn)
{
	return t->n <= (uint32_t)pr->max_size && t->n > 0 && root_fn &&
	       gpb_depth(pop, t) <= pr->max_depth;
}

/* ---- random nodes and grown subtrees -------------------------------------------- */

RT_HD gp_node gpb_terminal(const gpb_params *pr, philox_stream *rng)
{
	gp_node nd;
	nd.pad = 0;
	if (pr->use_consts && philox_stream_u01d(rng) < pr->const_prob) {
		nd.op = GP_TERM_CONST;
		nd.var = 0;
		nd.value = (float)philox_stream_range(rng, pr->const_min, pr->const_max);
	} else {
		uint32_t k = philox_stream_below(rng, (uint32_t)(pr->ninputs + pr->nnamed));
		int named = k >= (uint32_t)pr->ninputs;
		nd.op = named ? GP_TERM_CONST : GP_TERM_VAR;
		nd.var = named ? 0 : (unsigned short)k;
		nd.value = named ? pr->named[k - (uint32_t)pr->ninputs] : 0.0f;
	}
	return nd;
}

/* Grows a subtree as gp_tree.c's grow() (Koza's grow, rooted by a function
 * when root_fn), drawing in the same order: out non-NULL receives the nodes
 * (prefix order) and dout their depths, the root's being base. Returns its
 * size; *height its depth. */
RT_HD uint32_t gpb_grow(const gpb_params *pr, philox_stream *rng, int depth, int root_fn,
			gp_node *out, uint16_t *dout, int base, int *height)
{
	int dep[GPB_GROW_CAP], left[GPB_GROW_CAP];
	int sp = 1, nterms = pr->ninputs + (pr->use_consts ? 1 : 0) + pr->nnamed, lowest = depth;
	uint32_t n = 0;
	dep[0] = depth;
	left[0] = 1;
	while (sp > 0) {
		int d = dep[sp - 1], fn;
		if (--left[sp - 1] == 0)
			sp--;
		if (d < lowest)
			lowest = d;
		if (d <= 0)
			fn = 0;
		else if (root_fn && n == 0)
			fn = 1;
		else
			fn = philox_stream_below(rng, (uint32_t)(pr->nfuncs + nterms)) < (uint32_t)pr->nfuncs;
		gp_node nd;
		if (!fn) {
			nd = gpb_terminal(pr, rng);
		} else {
			nd.op = pr->funcs[philox_stream_below(rng, (uint32_t)pr->nfuncs)];
			nd.pad = 0;
			nd.var = 0;
			nd.value = 0.0f;
			if (sp < GPB_GROW_CAP) {
				dep[sp] = d - 1;
				left[sp++] = gpb_arity(nd.op);
			}
		}
		if (out) {
			out[n] = nd;
			dout[n] = (uint16_t)(base + depth - d);
		}
		n++;
	}
	*height = depth - lowest;
	return n;
}

/* ---- variation ------------------------------------------------------------------------- */

/* gp_tree.c's pick_node on program p: the k-th function (or terminal). */
RT_HD uint32_t gpb_pick_node(const gpb_pop *pop, uint32_t p, double p_internal, philox_stream *rng)
{
	uint32_t n = pop->size[p], nfn = pop->nfn[p];
	int want_fn = philox_stream_u01d(rng) < p_internal;
	uint32_t count = want_fn ? nfn : n - nfn;
	if (count == 0)
		return philox_stream_below(rng, n);
	uint32_t k = philox_stream_below(rng, count);
	const uint16_t *d = pop->depth + pop->off[p];
	for (uint32_t base = 0; base < n; base += GPB_LANES * GPB_UNROLL) {
		int hit[GPB_UNROLL];
		for (uint32_t u = 0; u < GPB_UNROLL; u++) {
			uint32_t m = base + u * GPB_LANES + GPB_LANE;
			hit[u] = m < n && gpb_fn_at(d, n, m) == want_fn;
		}
		for (uint32_t u = 0; u < GPB_UNROLL; u++) {
			uint32_t mask = gpb_ballot(hit[u]);
			uint32_t c = (uint32_t)gpb_popc(mask);
			if (k < c)
				return base + u * GPB_LANES + (uint32_t)gpb_nth(mask, k);
			k -= c;
		}
	}
	return 0;
}

/* Subtree crossover (gp_crossover): child = a with a random subtree
 * replaced by a random subtree of b; over the limits, a copy of a. */
RT_HD void gpb_crossover(const gpb_pop *pop, const gpb_params *pr, uint32_t a, uint32_t b,
			 philox_stream *rng, gpb_tree *child)
{
	gpb_tree ta, tb;
	gpb_whole(&ta, pop, a);
	gpb_whole(&tb, pop, b);
	uint32_t i = gpb_pick_node(pop, a, pr->crossover_internal, rng);
	uint32_t j = gpb_pick_node(pop, b, pr->crossover_internal, rng);
	uint32_t iend = gpb_subtree_end(pop, &ta, i), jend = gpb_subtree_end(pop, &tb, j);
	if (ta.n - (iend - i) + (jend - j) <= (uint32_t)pr->max_size) {
		child->npieces = 0;
		child->n = 0;
		child->sub_height = 0;
		int shift = (int)pop->depth[pop->off[a] + i] - (int)pop->depth[pop->off[b] + j];
		gpb_slice(&ta, 0, i, 0, child);
		gpb_slice(&tb, j, jend, shift, child);
		gpb_slice(&ta, iend, ta.n, 0, child);
		int root_fn = i > 0 ? gpb_is_fn(pop->nodes + pop->off[a])
				    : gpb_is_fn(pop->nodes + pop->off[b] + j);
		if (gpb_fits(pop, child, pr, root_fn))
			return;
	}
	gpb_whole(child, pop, a);
}

/* Point mutation (gp_mutate_point) of t: the node and its position. */
RT_HD void gpb_mutate_point(const gpb_pop *pop, const gpb_params *pr, const gpb_tree *t,
			    philox_stream *rng, gpb_plan *plan)
{
	uint32_t i = philox_stream_below(rng, t->n);
	gp_node nd = gpb_at(pop, t, i);
	if (gpb_is_fn(&nd)) {
		int a = gpb_arity(nd.op), nsame = 0;
		for (int k = 0; k < pr->nfuncs; k++)
			nsame += gpb_arity(pr->funcs[k]) == a;
		if (nsame == 0)
			return;
		int pick = (int)philox_stream_below(rng, (uint32_t)nsame);
		for (int k = 0; k < pr->nfuncs; k++)
			if (gpb_arity(pr->funcs[k]) == a && pick-- == 0) {
				nd.op = pr->funcs[k];
				break;
			}
	} else {
		nd = gpb_terminal(pr, rng);
	}
	plan->point_pos = i;
	plan->point = nd;
}

/* Subtree mutation (gp_mutate_subtree) of t: a random subtree replaced by
 * a grown one; over the limits, t unchanged. */
RT_HD void gpb_mutate_subtree(const gpb_pop *pop, const gpb_params *pr, gpb_tree *t,
			      philox_stream *rng, gpb_plan *plan)
{
	uint32_t i = philox_stream_below(rng, t->n);
	uint32_t end = gpb_subtree_end(pop, t, i);
	int md = pr->mutation_depth > 1 ? pr->mutation_depth : 1;
	int depth = 1 + (int)philox_stream_below(rng, (uint32_t)md), height;
	/* gp_tree_random raises a depth below 1 to 1; grow() takes it as it is */
	int root_fn = i == 0;
	if (root_fn && depth < 1)
		depth = 1;
	philox_stream at = *rng;
	uint32_t nsub = gpb_grow(pr, rng, depth, root_fn, 0, 0, 0, &height);
	if (t->n - (end - i) + nsub > (uint32_t)pr->max_size)
		return;
	gpb_tree m;
	m.npieces = 0;
	m.n = 0;
	m.sub_height = height;
	gpb_slice(t, 0, i, 0, &m);
	m.prog[m.npieces] = GPB_SUB;
	m.begin[m.npieces] = 0;
	m.doff[m.npieces] = gpb_depth_at(pop, t, i);
	m.len[m.npieces++] = nsub;
	m.n += nsub;
	gpb_slice(t, end, t->n, 0, &m);
	gp_node root = gpb_at(pop, t, 0);
	if (!gpb_fits(pop, &m, pr, root_fn || gpb_is_fn(&root)))
		return;
	*t = m;
	plan->sub_rng = at;
	plan->sub_depth = depth;
	plan->sub_root_fn = root_fn;
}

/* Offspring i of generation pr->generation + 1 (gp_tree.c's breed_one and,
 * for i == 0 with elitism, the elite's copy). On the device every lane of
 * a warp plans the same offspring. */
RT_HD void gpb_plan_one(const gpb_pop *pop, const gpb_params *pr, uint32_t i, gpb_plan *plan)
{
	gpb_tree t;
	plan->point_pos = GPB_NONE;
	plan->sub_depth = 0;
	plan->sub_root_fn = 0;
	philox_stream_init(&plan->sub_rng, 0, 0);
	if (pr->elite >= 0 && i == 0) {
		gpb_whole(&t, pop, (uint32_t)pr->elite);
	} else {
		philox_stream rng;
		philox_stream_init(&rng, pr->seed,
				   ((uint64_t)(uint32_t)(pr->generation + 1) << 32) | i);
		uint32_t pa = gpb_tournament(pop, pr, &rng);
		if (philox_stream_u01d(&rng) < pr->crossover) {
			uint32_t pb = gpb_tournament(pop, pr, &rng);
			gpb_crossover(pop, pr, pa, pb, &rng, &t);
		} else {
			gpb_whole(&t, pop, pa);
		}
		if (philox_stream_u01d(&rng) < pr->mutation) {
			if (philox_stream_u01d(&rng) < pr->point_mutation)
				gpb_mutate_point(pop, pr, &t, &rng, plan);
			else
				gpb_mutate_subtree(pop, pr, &t, &rng, plan);
		}
	}
	plan->npieces = t.npieces;
	for (int k = 0; k < t.npieces; k++) {
		plan->prog[k] = t.prog[k];
		plan->begin[k] = t.begin[k];
		plan->len[k] = t.len[k];
		plan->doff[k] = t.doff[k];
	}
	plan->size = t.n;
}

/* Writes plan's child at out (plan->size nodes) and its depths at dout;
 * *nfn, *nconst: its function and constant nodes. On the device a warp
 * writes one child: the lanes copy the pieces, lane 0 grows the subtree. */
RT_HD void gpb_emit(const gpb_pop *pop, const gpb_params *pr, const gpb_plan *plan, gp_node *out,
		    uint16_t *dout, uint32_t *nfn, uint32_t *nconst)
{
	uint32_t n = 0, f = 0, c = 0;
	for (int k = 0; k < plan->npieces; k++) {
		if (plan->prog[k] == GPB_SUB) {
			if (GPB_LANE == 0) {
				philox_stream rng = plan->sub_rng;
				int height;
				gpb_grow(pr, &rng, plan->sub_depth, plan->sub_root_fn, out + n, dout + n,
					 plan->doff[k], &height);
				for (uint32_t i = 0; i < plan->len[k]; i++) {
					f += out[n + i].op < GP_OP_COUNT;
					c += out[n + i].op == GP_TERM_CONST;
				}
			}
		} else {
			uint32_t at = pop->off[plan->prog[k]] + plan->begin[k];
			const gp_node *src = pop->nodes + at;
			const uint16_t *dsrc = pop->depth + at;
			for (uint32_t i = GPB_LANE; i < plan->len[k]; i += GPB_LANES) {
				gp_node nd = src[i];
				out[n + i] = nd;
				dout[n + i] = (uint16_t)((int)dsrc[i] + plan->doff[k]);
				f += nd.op < GP_OP_COUNT;
				c += nd.op == GP_TERM_CONST;
			}
		}
		n += plan->len[k];
	}
	gpb_sync();
	if (plan->point_pos != GPB_NONE && GPB_LANE == 0) {
		gp_node old = out[plan->point_pos], nd = plan->point;
		f += (uint32_t)(nd.op < GP_OP_COUNT) - (uint32_t)(old.op < GP_OP_COUNT);
		c += (uint32_t)(nd.op == GP_TERM_CONST) - (uint32_t)(old.op == GP_TERM_CONST);
		out[plan->point_pos] = nd;
	}
	*nfn = gpb_sum(f);
	*nconst = gpb_sum(c);
}

/* ---- encoding for the interpreter ------------------------------------------------------ */

/* One LGP instruction encoded for the interpreter into code[0..4): op, its
 * operands' kinds (2 bits each, as gp_insn.kinds) and arguments (input
 * index, constant index; unused for S). The real stack's depth *sp before
 * it (updated) resolves each S operand into the top (a register) or a stack
 * slot, and an instruction without S operands pushes the old top into slot
 * *sp - 1; *deep is raised to the slots used. */
RT_HD void gpb_encode_insn(unsigned op, unsigned kinds, const uint32_t arg[3], uint32_t dstride,
			   int *sp, int *deep, uint32_t *code)
{
	int ar = gpb_arity(op), ns = 0, seen = 0;
	uint32_t w = op | ((uint32_t)ar << 14), args[3] = { 0, 0, 0 };
	for (int j = 0; j < ar; j++)
		ns += ((kinds >> (2 * j)) & 3u) == GP_SRC_S;
	for (int j = 0; j < ar; j++) {
		uint32_t kind = (kinds >> (2 * j)) & 3u, dk;
		if (kind == GP_SRC_S) {
			int pos = *sp - ns + seen++;
			dk = pos == *sp - 1 ? 3u : 0u;
			args[j] = (uint32_t)pos;
			if (pos > *deep - 1 && dk == 0)
				*deep = pos + 1;
		} else if (kind == GP_SRC_X) {
			dk = 1u;
			args[j] = arg[j] * dstride;
		} else {
			dk = 2u;
			args[j] = arg[j];
		}
		w |= dk << (8 + 2 * j);
	}
	if (ns == 0 && *sp >= 1) {
		w |= 0x10000u | ((uint32_t)(*sp - 1) << 20);
		if (*sp > *deep)
			*deep = *sp;
	}
	*sp += 1 - ns;
	code[0] = w;
	code[1] = args[0];
	code[2] = args[1];
	code[3] = args[2];
}

/* Program nodes[0..n) (prefix) encoded as gp_gpu.c's encode_one encodes
 * its LGP form: code[4 * ci ..] (16 bytes an instruction), consts[ki ..],
 * progs[4 * p ..] = {ci, instructions, ki, constants}. *smem: the shared
 * memory it needs; *deep: its stack slots (raised, never lowered).
 * Returns 0, or 1 if the tree is deeper than GPB_DEPTH_CAP allows. */
RT_HD int gpb_encode(const gp_node *nodes, uint32_t n, int is_bool, uint32_t dstride, uint32_t p,
		     uint32_t ci, uint32_t ki, uint32_t *progs, uint32_t *code, uint32_t *consts,
		     uint32_t *smem, int *deep)
{
	/* sym: kind << 16 | arg (GP_SRC_S, GP_SRC_X input, GP_SRC_C constant) */
	uint32_t sym[2 * GPB_DEPTH_CAP + 2];
	unsigned char fop[GPB_DEPTH_CAP], fleft[GPB_DEPTH_CAP];
	int ssp = 0, fsp = 0, sp = 0;
	uint32_t c0 = ci, k0 = ki;
	for (uint32_t i = 0; i < n; i++) {
		gp_node nd = nodes[i];
		if (nd.op < GP_OP_COUNT) {
			if (fsp >= GPB_DEPTH_CAP)
				return 1;
			fop[fsp] = nd.op;
			fleft[fsp++] = (unsigned char)gpb_arity(nd.op);
			continue;
		}
		if (ssp >= 2 * GPB_DEPTH_CAP + 1)
			return 1;
		if (nd.op == GP_TERM_VAR) {
			sym[ssp++] = (uint32_t)GP_SRC_X << 16 | nd.var;
		} else {
			uint32_t u;
			if (is_bool) {
				u = nd.value != 0.0f ? 0xffffffffu : 0u;
			} else {
				union { float f; uint32_t u; } cv;
				cv.f = nd.value;
				u = cv.u;
			}
			sym[ssp++] = (uint32_t)GP_SRC_C << 16 | (ki - k0);
			consts[ki++] = u;
		}
		/* each completed subtree may complete its parent: emit it */
		while (fsp > 0 && --fleft[fsp - 1] == 0) {
			unsigned op = fop[--fsp], kinds = 0;
			int ar = gpb_arity(op);
			uint32_t arg[3] = { 0, 0, 0 };
			ssp -= ar;
			for (int j = 0; j < ar; j++) {
				kinds |= (sym[ssp + j] >> 16) << (2 * j);
				arg[j] = sym[ssp + j] & 0xffffu;
			}
			gpb_encode_insn(op, kinds, arg, dstride, &sp, deep, code + 4 * (size_t)ci);
			ci++;
			sym[ssp++] = (uint32_t)GP_SRC_S << 16;
		}
	}
	progs[4 * p + 0] = c0;
	progs[4 * p + 1] = ci - c0;
	progs[4 * p + 2] = k0;
	progs[4 * p + 3] = ki - k0;
	uint32_t bytes = (ci - c0) * 16 + (ki - k0) * 4;
	if (bytes > *smem)
		*smem = bytes;
	return 0;
}

/* Scratch of gpb_encode_par for a program of n nodes (12 n + 2 bytes). */
typedef struct gpb_enc_scratch {
	uint32_t *sym;     /* [n] node k as an operand: kind << 16 | arg (GP_SRC_S: 0) */
	uint16_t *fpre;    /* [n + 1] the function nodes before node k */
	uint16_t *end;     /* [n] one past node k's subtree */
	int16_t *sp;       /* [n] per instruction: 1 - its S operands, then the real
			    * stack's depth before it */
} gpb_enc_scratch;

/* Bytes of gpb_encode_par's scratch and the depths for programs of up to
 * cap nodes: a warp's share of gpb_encode_warp_k's shared memory. */
RT_HD uint32_t gpb_warp_bytes(uint32_t cap) { return (12u * cap + 2u + 15u) & ~15u; }

/* gpb_encode's bytes from the depths d[0..n) of the nodes, without stacks
 * (a warp on the device, lanes sharing s; one lane on the host):
 *   F(k), K(k)  function and constant nodes before k (prefix counts);
 *               constant k is consts[ki + K(k)], as the serial walk finds it;
 *   end(k)      the first m > k with d[m] <= d[k] (or n);
 *   children    of function f: f + 1, end(f + 1), end(end(f + 1));
 *   ins(f)      F(end(f)) - d[f] - 1, f's rank in postfix order among the
 *               functions (the functions before end(f) in prefix order
 *               but f and its d[f] ancestors finish before it);
 *   sp(f)       the sum of 1 - (S operands) over the instructions before
 *               it: a prefix sum in instruction order;
 * and each instruction is gpb_encode_insn(op, operands, sp(f)) at ins(f).
 * It takes any depth (gpb_encode's stacks refuse a function at depth
 * GPB_DEPTH_CAP or more; the device's caller checks that rule itself). */
RT_HD void gpb_encode_par(const gp_node *nodes, const uint16_t *d, uint32_t n, int is_bool,
			  uint32_t dstride, uint32_t p, uint32_t ci, uint32_t ki, uint32_t *progs,
			  uint32_t *code, uint32_t *consts, uint32_t *smem, int *deep,
			  const gpb_enc_scratch *s)
{
	uint32_t nf = 0, nk = 0;
	for (uint32_t base = 0; base < n; base += GPB_LANES) {
		uint32_t k = base + GPB_LANE;
		gp_node nd;
		nd.op = GP_TERM_VAR;
		if (k < n)
			nd = nodes[k];
		int fn = k < n && nd.op < GP_OP_COUNT, cn = k < n && nd.op == GP_TERM_CONST;
		uint32_t f = gpb_count_below(fn, &nf), c = gpb_count_below(cn, &nk);
		if (k >= n)
			continue;
		s->fpre[k] = (uint16_t)f;
		if (fn) {
			s->sym[k] = (uint32_t)GP_SRC_S << 16;
		} else if (!cn) {
			s->sym[k] = (uint32_t)GP_SRC_X << 16 | nd.var;
		} else {
			union { float f; uint32_t u; } cv;
			cv.f = nd.value;
			s->sym[k] = (uint32_t)GP_SRC_C << 16 | c;
			consts[ki + c] = is_bool ? (nd.value != 0.0f ? 0xffffffffu : 0u) : cv.u;
		}
	}
	if (GPB_LANE == 0)
		s->fpre[n] = (uint16_t)nf;
	for (uint32_t k = GPB_LANE; k < n; k += GPB_LANES) {
		uint32_t e = k + 1;
		int dk = d[k];
		while (e < n && (int)d[e] > dk)
			e++;
		s->end[k] = (uint16_t)e;
	}
	gpb_sync();
	for (uint32_t k = GPB_LANE; k < n; k += GPB_LANES) {
		if (s->sym[k] >> 16 != GP_SRC_S)
			continue;
		uint32_t ins = (uint32_t)s->fpre[s->end[k]] - d[k] - 1u, c = k + 1;
		int ar = gpb_arity(nodes[k].op), ns = 0;
		for (int j = 0; j < ar; j++) {
			ns += s->sym[c] >> 16 == GP_SRC_S;
			c = s->end[c];
		}
		s->sp[ins] = (int16_t)(1 - ns);
	}
	gpb_sync();
	int carry = 0;
	for (uint32_t base = 0; base < nf; base += GPB_LANES) {
		uint32_t q = base + GPB_LANE;
		int v = q < nf ? s->sp[q] : 0;
		int r = gpb_scan_add(v, &carry);
		if (q < nf)
			s->sp[q] = (int16_t)r;
	}
	gpb_sync();
	int dp = *deep;
	for (uint32_t k = GPB_LANE; k < n; k += GPB_LANES) {
		if (s->sym[k] >> 16 != GP_SRC_S)
			continue;
		uint32_t ins = (uint32_t)s->fpre[s->end[k]] - d[k] - 1u, c = k + 1, arg[3] = { 0, 0, 0 };
		unsigned op = nodes[k].op, kinds = 0;
		int ar = gpb_arity(op), sp = s->sp[ins];
		for (int j = 0; j < ar; j++) {
			kinds |= (s->sym[c] >> 16) << (2 * j);
			arg[j] = s->sym[c] & 0xffffu;
			c = s->end[c];
		}
		gpb_encode_insn(op, kinds, arg, dstride, &sp, &dp, code + 4 * ((size_t)ci + ins));
	}
	*deep = (int)gpb_max((uint32_t)dp);
	if (GPB_LANE == 0) {
		progs[4 * p + 0] = ci;
		progs[4 * p + 1] = nf;
		progs[4 * p + 2] = ki;
		progs[4 * p + 3] = nk;
		uint32_t bytes = nf * 16 + nk * 4;
		if (bytes > *smem)
			*smem = bytes;
	}
}

#endif
