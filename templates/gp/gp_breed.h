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
 * register or stack slot by gpb_encode_insn, which gp_gpu.c encodes with too).
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
} gpb_params;

/* A population: program p is nodes[off[p] .. off[p] + size[p]) in prefix
 * order with nfn[p] function nodes; fit[p] its fitness (NaN: worst). */
typedef struct gpb_pop {
	const gp_node *nodes;
	const uint32_t *off, *size, *nfn;
	const double *fit;
} gpb_pop;

/* One offspring: the pieces it is made of, in order, a node a point
 * mutation replaced, and the stream its grown subtree comes from. */
typedef struct gpb_plan {
	uint32_t prog[GPB_PIECES], begin[GPB_PIECES], len[GPB_PIECES];
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
 * subtree (collapsed: len nodes of height sub_height, never read here). */
typedef struct gpb_tree {
	uint32_t prog[GPB_PIECES], begin[GPB_PIECES], len[GPB_PIECES];
	int npieces;
	uint32_t n;
	int sub_height;
} gpb_tree;

RT_HD const gp_node *gpb_piece_nodes(const gpb_pop *pop, const gpb_tree *t, int k)
{
	return pop->nodes + pop->off[t->prog[k]] + t->begin[k];
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

/* Appends t[from, to) to out (from <= to <= t->n). */
RT_HD void gpb_slice(const gpb_tree *t, uint32_t from, uint32_t to, gpb_tree *out)
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
		out->len[out->npieces++] = f - s;
		out->n += f - s;
	}
}

RT_HD void gpb_whole(gpb_tree *t, const gpb_pop *pop, uint32_t p)
{
	t->npieces = 1;
	t->prog[0] = p;
	t->begin[0] = 0;
	t->len[0] = t->n = pop->size[p];
	t->sub_height = 0;
}

/* Index one past the subtree rooted at node i (gp_subtree_end). */
RT_HD uint32_t gpb_subtree_end(const gpb_pop *pop, const gpb_tree *t, uint32_t i)
{
	int need = 1;
	uint32_t pos = 0;
	for (int k = 0; k < t->npieces && need > 0; k++) {
		uint32_t e = pos + t->len[k];
		if (i < e) {
			const gp_node *nd = gpb_piece_nodes(pop, t, k);
			for (; i < e && need > 0; i++)
				need += gpb_arity(nd[i - pos].op) - 1;
		}
		pos = e;
	}
	return i;
}

/* Depth of t (edges on the longest path), or max_depth + 1 as soon as it
 * is deeper than max_depth (gp_tree_depth, bounded). */
RT_HD int gpb_depth(const gpb_pop *pop, const gpb_tree *t, int max_depth)
{
	unsigned char open[GPB_DEPTH_CAP];
	int sp = 0, depth = 0;
	for (int k = 0; k < t->npieces; k++) {
		int sub = t->prog[k] == GPB_SUB;
		const gp_node *nd = sub ? 0 : gpb_piece_nodes(pop, t, k);
		uint32_t len = sub ? 1 : t->len[k];
		for (uint32_t i = 0; i < len; i++) {
			int a = sub ? 0 : gpb_arity(nd[i].op);
			int reach = sp + (sub ? t->sub_height : 0);
			if (reach > depth)
				depth = reach;
			if (depth > max_depth)
				return max_depth + 1;
			if (a > 0) {
				if (sp >= GPB_DEPTH_CAP)
					return max_depth + 1;
				open[sp++] = (unsigned char)a;
			} else {
				while (sp > 0 && --open[sp - 1] == 0)
					sp--;
			}
		}
	}
	return depth;
}

/* gp_tree.c's fits(): within the limits, a function at the root. */
RT_HD int gpb_fits(const gpb_pop *pop, const gpb_tree *t, const gpb_params *pr, int root_fn)
{
	return t->n <= (uint32_t)pr->max_size && t->n > 0 && root_fn &&
	       gpb_depth(pop, t, pr->max_depth) <= pr->max_depth;
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
		nd.op = GP_TERM_VAR;
		nd.var = (unsigned short)philox_stream_below(rng, (uint32_t)pr->ninputs);
		nd.value = 0.0f;
	}
	return nd;
}

/* Grows a subtree as gp_tree.c's grow() (Koza's grow, rooted by a function
 * when root_fn), drawing in the same order: out non-NULL receives the nodes
 * (prefix order). Returns its size; *height its depth. */
RT_HD uint32_t gpb_grow(const gpb_params *pr, philox_stream *rng, int depth, int root_fn,
			gp_node *out, int *height)
{
	int dep[GPB_GROW_CAP], left[GPB_GROW_CAP];
	int sp = 1, nterms = pr->ninputs + (pr->use_consts ? 1 : 0), lowest = depth;
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
		if (out)
			out[n] = nd;
		n++;
	}
	*height = depth - lowest;
	return n;
}

/* ---- variation ------------------------------------------------------------------------- */

/* gp_tree.c's pick_node on program p. */
RT_HD uint32_t gpb_pick_node(const gpb_pop *pop, uint32_t p, double p_internal, philox_stream *rng)
{
	uint32_t n = pop->size[p], nfn = pop->nfn[p];
	int want_fn = philox_stream_u01d(rng) < p_internal;
	uint32_t count = want_fn ? nfn : n - nfn;
	if (count == 0)
		return philox_stream_below(rng, n);
	uint32_t k = philox_stream_below(rng, count);
	const gp_node *nd = pop->nodes + pop->off[p];
	for (uint32_t i = 0; i < n; i++)
		if ((nd[i].op < GP_OP_COUNT) == want_fn && k-- == 0)
			return i;
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
		gpb_slice(&ta, 0, i, child);
		gpb_slice(&tb, j, jend, child);
		gpb_slice(&ta, iend, ta.n, child);
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
	uint32_t nsub = gpb_grow(pr, rng, depth, root_fn, 0, &height);
	if (t->n - (end - i) + nsub > (uint32_t)pr->max_size)
		return;
	gpb_tree m;
	m.npieces = 0;
	m.n = 0;
	m.sub_height = height;
	gpb_slice(t, 0, i, &m);
	m.prog[m.npieces] = GPB_SUB;
	m.begin[m.npieces] = 0;
	m.len[m.npieces++] = nsub;
	m.n += nsub;
	gpb_slice(t, end, t->n, &m);
	gp_node root = gpb_at(pop, t, 0);
	if (!gpb_fits(pop, &m, pr, root_fn || gpb_is_fn(&root)))
		return;
	*t = m;
	plan->sub_rng = at;
	plan->sub_depth = depth;
	plan->sub_root_fn = root_fn;
}

/* Offspring i of generation pr->generation + 1 (gp_tree.c's breed_one and,
 * for i == 0 with elitism, the elite's copy). */
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
	}
	plan->size = t.n;
}

/* Writes plan's child at out (plan->size nodes); *nfn, *nconst: its
 * function and constant nodes. */
RT_HD void gpb_emit(const gpb_pop *pop, const gpb_params *pr, const gpb_plan *plan, gp_node *out,
		    uint32_t *nfn, uint32_t *nconst)
{
	uint32_t n = 0;
	for (int k = 0; k < plan->npieces; k++) {
		if (plan->prog[k] == GPB_SUB) {
			philox_stream rng = plan->sub_rng;
			int height;
			gpb_grow(pr, &rng, plan->sub_depth, plan->sub_root_fn, out + n, &height);
		} else {
			const gp_node *src = pop->nodes + pop->off[plan->prog[k]] + plan->begin[k];
			for (uint32_t i = 0; i < plan->len[k]; i++)
				out[n + i] = src[i];
		}
		n += plan->len[k];
	}
	if (plan->point_pos != GPB_NONE)
		out[plan->point_pos] = plan->point;
	uint32_t f = 0, c = 0;
	for (uint32_t i = 0; i < n; i++) {
		f += out[i].op < GP_OP_COUNT;
		c += out[i].op == GP_TERM_CONST;
	}
	*nfn = f;
	*nconst = c;
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

#endif
