/* aco_ls.h: local search on an ant's tour (2-opt, 2.5-opt, or-opt), written
 * once and compiled both by the host (runtime/aco/aco_cpu.c, an ant per
 * thread of the pool) and into the CUDA kernel aco_local (templates/aco/
 * aco.cu, an ant per GPU thread). Distances are integers and every draw is
 * Philox, so both backends turn the same tour into the same tour.
 *
 * The search is Stuetzle's ACOTSP (ls.c: two_opt_first, two_h_opt_first):
 *   - first improvement: the first improving move found is made at once;
 *   - cities c1 are taken in one random order, fixed for the call: the
 *     inside-out Fisher-Yates shuffle, step i drawing philox_below(word,
 *     i + 1) from word i % 4 of philox_block(seed, stream = ant,
 *     aco_draw_n(iteration, ACO_DRAW_LS, i / 4));
 *   - don't-look bits: a city whose search found nothing is skipped until
 *     a move ends or starts an edge at it;
 *   - fixed-radius neighbour lists: from c1 and its successor s (then its
 *     predecessor p), partners c2 are tried in nn order while
 *     d(c1, c2) < d(c1, s) (d(c1, p)); every improving 2-opt move has
 *     such a (c1, c2) among its ends, so the break loses none that the
 *     lists reach;
 *   - a 2-opt move reverses the shorter side of the tour (a position array
 *     keeps pos[tour[i]] == i).
 * Moves tried for each (c1, c2), in this order:
 *   2-opt      successor side: edges (c1,s) (c2,s2) -> (c1,c2) (s,s2);
 *              predecessor side: (p,c1) (p2,c2) -> (c1,c2) (p,p2);
 *   insertion  (2.5-opt: segments of 1 city, or-opt: 1, 2 and 3 cities)
 *              a segment with c2 at one end, running forwards or backwards
 *              from c2, is cut out (its outside neighbours joined) and put
 *              into c1's edge (c1,s) (or (p,c1)) with c2 next to c1: both
 *              orientations of a segment are tried this way. Shorter
 *              segments first, forwards before backwards.
 * So 2.5-opt is 2-opt plus node insertion (two_h_opt_first; ACOTSP leaves
 * the successor side's insertion switched off by a stray "gain = 0", here
 * both sides are on), and or-opt is 2-opt plus segment insertion.
 * The search stops, as ACOTSP's, after a pass over the cities that finds
 * nothing. Don't-look bits make that a heuristic stop: a bit stays set
 * while a reversal elsewhere turns a partner's successor into its
 * predecessor, so a few improving moves can be left. With the flag
 * ACO_LOCAL_EXACT (tests; about +60% time for 2-opt from a nearest-
 * neighbour tour, n = 1000) a pass that finds nothing while bits were set
 * clears them and the search goes on, so it stops only after a pass over
 * every city finds nothing: a true local optimum of the neighbourhood.
 *
 * Termination. On a permutation every applied move has an integer gain
 * < 0 that is exactly the change of the tour's length (2-opt: reversal of
 * a path of a symmetric tour; insertion: the six edges named in its gain,
 * also with x or y next to a or b), so the length falls strictly and the
 * search ends. Two guards keep it ending whatever it is given, the same on
 * both backends:
 *   - a tour that is not a permutation of 0..n-1 (a city twice, one
 *     missing, one out of range) is left as it is and 0 returned: on such a
 *     tour pos[] cannot describe it, a gain is not the change it makes, and
 *     the search cycled (pcb442, MMAS 2-opt, ant 318 of iteration 153: the
 *     construction had put a city in twice);
 *   - at most ACO_LS_MAX_PASSES (1000) passes over the cities, a safety
 *     bound far above what a search takes (at most 19 passes in
 *     tests/aco/test_aco_ls.c, n up to 500, the passes after ACO_LOCAL_EXACT
 *     clears the don't-look bits included); when it is reached the search
 *     returns what it made so far.
 *
 * Scratch (one ant, ACO_LS_WORK_INTS(n) ints): pos[n], order[n], then the
 * don't-look bits packed 32 to a word. No malloc, no recursion, no float. */
#ifndef EVO_ACO_LS_H
#define EVO_ACO_LS_H

#include "aco_core.h"

/* Scratch one ant needs, in ints: positions, visiting order, don't-look bits. */
#define ACO_LS_WORK_INTS(n) (2 * (n) + ((n) + 31) / 32)

/* The kinds of local search. The numbers are runtime/aco/aco_impl.h's enum
 * aco_ls_kind (ACO_LS_NONE ...) and must stay equal to them. */
enum aco_local_kind {
	ACO_LOCAL_NONE = 0,    /* no local search */
	ACO_LOCAL_2OPT = 1,    /* 2-opt */
	ACO_LOCAL_25OPT = 2,   /* 2-opt + node insertion */
	ACO_LOCAL_OROPT = 3,   /* 2-opt + insertion of segments of 1..3 cities */
	ACO_LOCAL_EXACT = 16   /* flag or'ed into a kind: search on to a true local optimum */
};

/* One ant's search state (pointers into the tour and its scratch). */
typedef struct aco_ls_state {
	int n;
	const int *dist;       /* n x n, row-major */
	const int *nn;         /* n rows of nn_stride neighbours */
	int nn_stride, nn_len;
	int max_seg;           /* longest inserted segment (0: 2-opt only) */
	int *tour, *pos;
	uint32_t *dlb;         /* don't-look bits */
} aco_ls_state;

/* A move found by the search: 2-opt (a,b) (c,d) -> (a,c) (b,d) with b, d the
 * successors of a, c; or insertion of the segment f..l (forwards, x before
 * f, y after l) into the edge (a,b) (b the successor of a), as a-f..l-b
 * when forward, else a-l..f-b. */
typedef struct aco_ls_move {
	int type;              /* 0 none, 1 2-opt, 2 insertion */
	int a, b, c, d;
	int f, l, x, y, forward;
} aco_ls_move;

/* ---- the tour ------------------------------------------------------------ */

/* Distance between cities a and b. */
RT_HD int64_t aco_ls_d(const aco_ls_state *s, int a, int b)
{
	return s->dist[(int64_t)a * s->n + b];
}

/* The city at position p + k (k in -n..n), around the tour. */
RT_HD int aco_ls_at(const aco_ls_state *s, int p, int k)
{
	int q = p + k;
	q = q < 0 ? q + s->n : (q >= s->n ? q - s->n : q);
	return s->tour[q];
}

/* Successor and predecessor of city c. */
RT_HD int aco_ls_next(const aco_ls_state *s, int c) { return aco_ls_at(s, s->pos[c], 1); }
RT_HD int aco_ls_prev(const aco_ls_state *s, int c) { return aco_ls_at(s, s->pos[c], -1); }

/* Don't-look bit of city c: read, set, clear. */
RT_HD int aco_ls_dlb(const aco_ls_state *s, int c) { return (s->dlb[c >> 5] >> (c & 31)) & 1u; }
RT_HD void aco_ls_dlb_set(aco_ls_state *s, int c) { s->dlb[c >> 5] |= 1u << (c & 31); }
RT_HD void aco_ls_dlb_clear(aco_ls_state *s, int c) { s->dlb[c >> 5] &= ~(1u << (c & 31)); }

/* Reverses `count` pairs walking inwards from positions i (up) and j
 * (down), around the tour. */
RT_HD void aco_ls_reverse(aco_ls_state *s, int i, int j, int count)
{
	for (int k = 0; k < count; k++) {
		int ci = s->tour[i], cj = s->tour[j];
		s->tour[i] = cj;
		s->pos[cj] = i;
		s->tour[j] = ci;
		s->pos[ci] = j;
		i = i + 1 == s->n ? 0 : i + 1;
		j = j == 0 ? s->n - 1 : j - 1;
	}
}

/* 2-opt move (a,b) (c,d) -> (a,c) (b,d), b and d the successors of a and c:
 * reverses the path b..c or d..a, whichever is shorter. */
RT_HD void aco_ls_two_opt_move(aco_ls_state *s, int a, int b, int c, int d)
{
	int inner = s->pos[c] - s->pos[b];
	inner = (inner < 0 ? inner + s->n : inner) + 1;
	if (2 * inner <= s->n)
		aco_ls_reverse(s, s->pos[b], s->pos[c], inner / 2);
	else
		aco_ls_reverse(s, s->pos[d], s->pos[a], (s->n - inner) / 2);
}

/* The same move given the edges (u1,v1) (u2,v2) in either direction of the
 * tour (both read the same way): -> (u1,u2) (v1,v2). */
RT_HD void aco_ls_exchange(aco_ls_state *s, int u1, int v1, int u2, int v2)
{
	if (aco_ls_next(s, u1) == v1)
		aco_ls_two_opt_move(s, u1, v1, u2, v2);
	else
		aco_ls_two_opt_move(s, v1, u1, v2, u2);
}

/* Makes move m; returns nothing, clears the don't-look bits of its cities.
 * Insertion as three exchanges: x f..l y ... a b -> x a..y l..f b ->
 * x y..a l..f b (reversed segment) -> x y..a f..l b (forward). */
RT_HD void aco_ls_apply(aco_ls_state *s, const aco_ls_move *m)
{
	aco_ls_dlb_clear(s, m->a);
	aco_ls_dlb_clear(s, m->b);
	if (m->type == 1) {
		aco_ls_dlb_clear(s, m->c);
		aco_ls_dlb_clear(s, m->d);
		aco_ls_two_opt_move(s, m->a, m->b, m->c, m->d);
		return;
	}
	aco_ls_dlb_clear(s, m->f);
	aco_ls_dlb_clear(s, m->l);
	aco_ls_dlb_clear(s, m->x);
	aco_ls_dlb_clear(s, m->y);
	aco_ls_two_opt_move(s, m->x, m->f, m->a, m->b);
	aco_ls_exchange(s, m->x, m->a, m->y, m->l);
	if (m->forward && m->f != m->l)
		aco_ls_exchange(s, m->a, m->l, m->f, m->b);
}

/* ---- the search ---------------------------------------------------------- */

/* Gain (< 0 improves) of inserting the segment of `len` cities that starts
 * at c2 and runs in direction dir (+1 forwards, -1 backwards) into the edge
 * (a,b), b the successor of a, with c2 next to c1 (c1 is a or b); fills m.
 * 0 when the segment holds a or b. */
RT_HD int64_t aco_ls_insertion(const aco_ls_state *s, int c1, int a, int b, int c2, int len,
			       int dir, aco_ls_move *m)
{
	int p = s->pos[c2];
	int e = aco_ls_at(s, p, dir * (len - 1));
	int pf = dir > 0 ? p : s->pos[e];
	int64_t gain;
	for (int k = 0; k < len; k++) {
		int c = aco_ls_at(s, pf, k);
		if (c == a || c == b)
			return 0;
	}
	m->f = dir > 0 ? c2 : e;
	m->l = dir > 0 ? e : c2;
	m->x = aco_ls_at(s, pf, -1);
	m->y = aco_ls_at(s, pf, len);
	m->forward = c1 == a ? c2 == m->f : c2 == m->l;
	gain = aco_ls_d(s, m->x, m->y) - aco_ls_d(s, m->x, m->f) - aco_ls_d(s, m->l, m->y) -
	       aco_ls_d(s, a, b);
	if (m->forward)
		gain += aco_ls_d(s, a, m->f) + aco_ls_d(s, m->l, b);
	else
		gain += aco_ls_d(s, a, m->l) + aco_ls_d(s, m->f, b);
	m->type = 2;
	m->a = a;
	m->b = b;
	return gain;
}

/* The first improving insertion of a segment ending at c2 into (a,b), c2
 * next to c1; its gain (< 0), or 0 with none. */
RT_HD int64_t aco_ls_insertions(const aco_ls_state *s, int c1, int a, int b, int c2,
				aco_ls_move *m)
{
	for (int len = 1; len <= s->max_seg && len + 2 <= s->n; len++)
		for (int dir = 1; dir >= (len > 1 ? -1 : 1); dir -= 2) {
			int64_t gain = aco_ls_insertion(s, c1, a, b, c2, len, dir, m);
			if (gain < 0)
				return gain;
		}
	return 0;
}

/* 2-opt gain of (a,b) (c,d) -> (a,c) (b,d); fills m. */
RT_HD int64_t aco_ls_two_opt_gain(const aco_ls_state *s, int a, int b, int c, int d,
				  aco_ls_move *m)
{
	m->type = 1;
	m->a = a;
	m->b = b;
	m->c = c;
	m->d = d;
	return aco_ls_d(s, a, c) + aco_ls_d(s, b, d) - aco_ls_d(s, a, b) - aco_ls_d(s, c, d);
}

/* The first improving move from c1 on one side (succ 1: the edge (c1, its
 * successor); 0: (its predecessor, c1)); its gain (< 0), or 0 with none. */
RT_HD int64_t aco_ls_side(const aco_ls_state *s, int c1, int succ, aco_ls_move *m)
{
	int o = succ ? aco_ls_next(s, c1) : aco_ls_prev(s, c1);
	int64_t radius = aco_ls_d(s, c1, o);
	/* degenerate partners (c2 next to c1) give 2-opt gain 0: no test needed */
	const int *row = s->nn + (int64_t)c1 * s->nn_stride;
	for (int h = 0; h < s->nn_len; h++) {
		int c2 = row[h];
		int64_t gain;
		if (aco_ls_d(s, c1, c2) >= radius)
			break;
		if (succ) {
			int s2 = aco_ls_next(s, c2);
			gain = aco_ls_two_opt_gain(s, c1, o, c2, s2, m);
		} else {
			int p2 = aco_ls_prev(s, c2);
			gain = aco_ls_two_opt_gain(s, o, c1, p2, c2, m);
		}
		if (gain < 0)
			return gain;
		if (s->max_seg > 0) {
			gain = succ ? aco_ls_insertions(s, c1, c1, o, c2, m)
				    : aco_ls_insertions(s, c1, o, c1, c2, m);
			if (gain < 0)
				return gain;
		}
	}
	return 0;
}

/* Word k of a Philox block, by selection (an indexed read would put the
 * block in local memory on the GPU). */
RT_HD uint32_t aco_ls_word(philox4x32_ctr r, int k)
{
	return k == 0 ? r.v[0] : (k == 1 ? r.v[1] : (k == 2 ? r.v[2] : r.v[3]));
}

/* The visiting order: a Philox-driven inside-out Fisher-Yates shuffle. */
RT_HD void aco_ls_order(int *order, int n, uint64_t seed, int ant, uint32_t iteration)
{
	philox4x32_ctr r;
	r.v[0] = r.v[1] = r.v[2] = r.v[3] = 0;
	for (int i = 0; i < n; i++) {
		int j;
		if ((i & 3) == 0)
			r = philox_block(seed, (uint64_t)ant,
					 aco_draw_n(iteration, ACO_DRAW_LS, (uint32_t)i >> 2));
		j = (int)philox_below(aco_ls_word(r, i & 3), (uint32_t)i + 1u);
		if (j != i)   /* (inside-out shuffle) order[i] is not written yet when j == i */
			order[i] = order[j];
		order[j] = i;
	}
}

/* Improves `tour` (n cities, a permutation) in place with local search
 * `kind` (enum aco_local_kind, ACO_LS_* of aco_impl.h, optionally with
 * ACO_LOCAL_EXACT) and returns the
 * change of its length (<= 0). dist: n x n row-major, symmetric; nn: n rows
 * of nn_stride nearest neighbours, sorted by distance, of which the first
 * nn_len (<= nn_stride, no city its own neighbour) are tried; work:
 * ACO_LS_WORK_INTS(n) ints of scratch; seed, ant and iteration address the
 * Philox draws of the visiting order. A tour that is not a permutation is
 * left unchanged (returns 0); at most ACO_LS_MAX_PASSES passes. */
/* Most passes over the cities one search makes: a safety bound, the same on
 * both backends, so that the search always ends (see the banner; callers
 * measure the tour's length again rather than trusting the returned sum). */
#if !defined(ACO_LS_MAX_PASSES)
#define ACO_LS_MAX_PASSES 1000
#endif

RT_HD int64_t aco_local_search(int kind, int n, const int *dist, const int *nn, int nn_stride,
			       int nn_len, int *tour, int *work, uint64_t seed, int ant,
			       uint32_t iteration)
{
	aco_ls_state s;
	int *order = work + n;
	int64_t total = 0;
	int words = (n + 31) / 32;
	int exact = kind & ACO_LOCAL_EXACT;
	kind &= ~ACO_LOCAL_EXACT;
	if (kind == ACO_LOCAL_NONE || n < 4)
		return 0;
	s.n = n;
	s.dist = dist;
	s.nn = nn;
	s.nn_stride = nn_stride;
	s.nn_len = nn_len;
	s.max_seg = kind == ACO_LOCAL_25OPT ? 1 : (kind == ACO_LOCAL_OROPT ? 3 : 0);
	s.tour = tour;
	s.pos = work;
	s.dlb = (uint32_t *)(work + 2 * n);
	/* not a permutation of 0..n-1: no search (see the banner) */
	for (int i = 0; i < n; i++)
		if (tour[i] < 0 || tour[i] >= n)
			return 0;
	for (int i = 0; i < n; i++)
		s.pos[tour[i]] = i;
	for (int i = 0; i < n; i++)
		if (s.pos[tour[i]] != i)
			return 0;
	for (int w = 0; w < words; w++)
		s.dlb[w] = 0;
	aco_ls_order(order, n, seed, ant, iteration);
	for (int pass = 0; pass < ACO_LS_MAX_PASSES; pass++) {
		int improved = 0, skipped = 0;
		for (int k = 0; k < n; k++) {
			int c1 = order[k];
			aco_ls_move m;
			int64_t gain;
			if (aco_ls_dlb(&s, c1)) {
				skipped = 1;
				continue;
			}
			gain = aco_ls_side(&s, c1, 1, &m);
			if (gain == 0)
				gain = aco_ls_side(&s, c1, 0, &m);
			if (gain < 0) {
				aco_ls_apply(&s, &m);
				total += gain;
				improved = 1;
			} else {
				aco_ls_dlb_set(&s, c1);
			}
		}
		if (!improved && (!exact || !skipped))
			return total;
		if (!improved)
			for (int w = 0; w < words; w++)
				s.dlb[w] = 0;
	}
	return total;   /* the pass bound was reached (see ACO_LS_MAX_PASSES) */
}

#endif
