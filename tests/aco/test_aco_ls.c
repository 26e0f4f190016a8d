/* test_aco_ls.c: ACO's local search (templates/aco/aco_ls.h) on random
 * uniform Euclidean instances (TSPLIB nint distances) from random and
 * nearest-neighbour tours: for every kind the result is a permutation, the
 * returned change equals the recomputed one and is never positive, the
 * same seed gives the same tour (other seeds, ants and iterations other
 * tours); with ACO_LOCAL_EXACT, exhaustive checks that no improving 2-opt
 * or insertion move the neighbour lists reach is left (the checks
 * themselves must find such moves in unimproved tours); tiny instances
 * (n = 3..8); lattices with equal distances and repeated cities, many
 * seeds (a regression: the search once cycled on pcb442); tours that are
 * not permutations (left unchanged); regular polygons, where every kind must reach the
 * convex-hull order (the optimum); tour quality against the
 * nearest-neighbour tour; and an NVRTC compile of the header for sm_90
 * without spills (no GPU needed). */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "aco/aco_ls.h"
#include "gen.h"
#include "log.h"
#include "nvrtc.h"

/* ---- instances ------------------------------------------------------------------- */

typedef struct inst {
	int n, k;        /* cities, neighbours per row (min(20, n - 1)) */
	int len;         /* neighbours the search tries (<= k; k unless a test says) */
	int *dist;       /* n x n */
	int *nn;         /* n x k, by distance then index */
	int *rank;       /* n x n: rank of b in a's list, or n */
} inst;

static uint64_t lcg_state;

static uint32_t lcg(void)
{
	lcg_state = lcg_state * 6364136223846793005ull + 1442695040888963407ull;
	return (uint32_t)(lcg_state >> 33);
}

static int nint_dist(double x0, double y0, double x1, double y1)
{
	return (int)(sqrt((x0 - x1) * (x0 - x1) + (y0 - y1) * (y0 - y1)) + 0.5);
}

static const int *sort_row;

static int by_dist(const void *a, const void *b)
{
	int i = *(const int *)a, j = *(const int *)b;
	if (sort_row[i] != sort_row[j])
		return sort_row[i] < sort_row[j] ? -1 : 1;
	return (i > j) - (i < j);
}

/* Distances from coordinates, then the neighbour lists. */
static void inst_build(inst *in, int n, const double *x, const double *y, int k)
{
	int *idx = malloc((size_t)n * sizeof *idx);
	in->n = n;
	in->k = k;
	in->len = k;
	in->dist = malloc((size_t)n * n * sizeof *in->dist);
	in->nn = malloc((size_t)n * (k > 0 ? k : 1) * sizeof *in->nn);
	in->rank = malloc((size_t)n * n * sizeof *in->rank);
	assert_true(idx && in->dist && in->nn && in->rank);
	for (int a = 0; a < n; a++)
		for (int b = 0; b < n; b++)
			in->dist[(size_t)a * n + b] = nint_dist(x[a], y[a], x[b], y[b]);
	for (int a = 0; a < n; a++) {
		int m = 0;
		for (int b = 0; b < n; b++)
			if (b != a)
				idx[m++] = b;
		sort_row = in->dist + (size_t)a * n;
		qsort(idx, (size_t)m, sizeof *idx, by_dist);
		for (int b = 0; b < n; b++)
			in->rank[(size_t)a * n + b] = n;
		for (int h = 0; h < m; h++)
			in->rank[(size_t)a * n + idx[h]] = h;
		memcpy(in->nn + (size_t)a * k, idx, (size_t)k * sizeof *idx);
	}
	free(idx);
}

/* n cities uniform in a square of side 10^4 (LCG seeded with `seed`); with
 * grid > 0 on a grid x grid lattice instead (ties, repeated cities). */
static void inst_random_grid(inst *in, int n, uint64_t seed, int grid)
{
	double *x = malloc((size_t)n * sizeof *x), *y = malloc((size_t)n * sizeof *y);
	lcg_state = seed;
	for (int i = 0; i < n; i++) {
		x[i] = grid ? 10.0 * (lcg() % (uint32_t)grid) : lcg() % 1000000 / 100.0;
		y[i] = grid ? 10.0 * (lcg() % (uint32_t)grid) : lcg() % 1000000 / 100.0;
	}
	inst_build(in, n, x, y, n - 1 < 20 ? n - 1 : 20);
	free(x);
	free(y);
}

/* A regular n-gon of radius 10^4, full neighbour lists. */
static void inst_polygon(inst *in, int n)
{
	double *x = malloc((size_t)n * sizeof *x), *y = malloc((size_t)n * sizeof *y);
	for (int i = 0; i < n; i++) {
		x[i] = 10000.0 + 10000.0 * cos(2.0 * M_PI * i / n);
		y[i] = 10000.0 + 10000.0 * sin(2.0 * M_PI * i / n);
	}
	inst_build(in, n, x, y, n - 1);
	free(x);
	free(y);
}

static void inst_random(inst *in, int n, uint64_t seed) { inst_random_grid(in, n, seed, 0); }

static void inst_free(inst *in)
{
	free(in->dist);
	free(in->nn);
	free(in->rank);
}

static int D(const inst *in, int a, int b) { return in->dist[(size_t)a * in->n + b]; }

/* ---- tours ----------------------------------------------------------------------- */

static void random_tour(int *t, int n, uint64_t seed)
{
	lcg_state = seed * 0x9E3779B97F4A7C15ull + 1;
	for (int i = 0; i < n; i++)
		t[i] = i;
	for (int i = n - 1; i > 0; i--) {
		int j = (int)(lcg() % (uint32_t)(i + 1)), h = t[i];
		t[i] = t[j];
		t[j] = h;
	}
}

/* Nearest-neighbour tour from `start` (lowest index on ties). */
static void nn_tour(const inst *in, int *t, int start)
{
	char *seen = calloc((size_t)in->n, 1);
	t[0] = start;
	seen[start] = 1;
	for (int i = 1; i < in->n; i++) {
		int best = -1;
		for (int c = 0; c < in->n; c++)
			if (!seen[c] && (best < 0 || D(in, t[i - 1], c) < D(in, t[i - 1], best)))
				best = c;
		t[i] = best;
		seen[best] = 1;
	}
	free(seen);
}

static int64_t length(const inst *in, const int *t) { return aco_tour_length(in->dist, in->n, t); }

static void assert_permutation(const int *t, int n)
{
	char *seen = calloc((size_t)n, 1);
	for (int i = 0; i < n; i++) {
		assert_true(t[i] >= 0 && t[i] < n);
		assert_false(seen[t[i]]);
		seen[t[i]] = 1;
	}
	free(seen);
}

/* Runs local search `kind` on t and checks what holds for every call:
 * a permutation, the change returned is the change made, never positive.
 * Returns the new length. */
static int64_t search(const inst *in, int kind, int *t, uint64_t seed, int ant, uint32_t it)
{
	int *work = malloc((size_t)ACO_LS_WORK_INTS(in->n) * sizeof *work);
	int64_t before = length(in, t), delta, after;
	assert_non_null(work);
	delta = aco_local_search(kind, in->n, in->dist, in->nn, in->k, in->len, t, work, seed, ant,
				 it);
	free(work);
	assert_permutation(t, in->n);
	after = length(in, t);
	assert_int_equal(after - before, delta);
	assert_true(delta <= 0);
	return after;
}

/* ---- exhaustive local-optimality checks ----------------------------------------- */

static const int max_seg_of[] = { 0, 0, 1, 3 };

/* y is among x's first nn_len neighbours and closer than r. */
static int reach(const inst *in, int x, int y, int r)
{
	return in->rank[(size_t)x * in->n + y] < in->len && D(in, x, y) < r;
}

/* Improving 2-opt moves (a,b) (c,d) -> (a,c) (b,d) left that the search
 * can reach: from an end whose new partner is a listed neighbour closer
 * than the end's removed partner. */
static int two_opt_left(const inst *in, const int *t)
{
	int n = in->n, left = 0;
	for (int i = 0; i < n; i++)
		for (int j = i + 2; j < n; j++) {
			int a = t[i], b = t[i + 1], c = t[j], d = t[(j + 1) % n];
			if (d == a)
				continue;
			if (D(in, a, c) + D(in, b, d) - D(in, a, b) - D(in, c, d) >= 0)
				continue;
			left += reach(in, a, c, D(in, a, b)) || reach(in, c, a, D(in, c, d)) ||
				reach(in, b, d, D(in, a, b)) || reach(in, d, b, D(in, c, d));
		}
	return left;
}

/* Length of t with the segment of len cities at position i moved into the
 * edge at positions (j, j + 1), forwards or reversed, built city by city. */
static int64_t moved_length(const inst *in, const int *t, int *u, int i, int len, int j, int fwd)
{
	int n = in->n, m = 0;
	for (int p = (i + len) % n;; p = (p + 1) % n) {
		u[m++] = t[p];
		if (p == j)
			break;
	}
	for (int k = 0; k < len; k++)
		u[m++] = t[(i + (fwd ? k : len - 1 - k)) % n];
	for (int p = (j + 1) % n; p != i; p = (p + 1) % n)
		u[m++] = t[p];
	assert_int_equal(m, n);
	return length(in, u);
}

/* Improving insertions of a segment of 1..max_seg cities into an edge
 * (a,b) left that the search can reach: a's new partner a listed
 * neighbour of a closer than b, or b's new partner one of b closer than a. */
static int insertion_left(const inst *in, const int *t, int max_seg)
{
	int n = in->n, left = 0;
	int64_t now = length(in, t);
	int *u = malloc((size_t)n * sizeof *u);
	for (int i = 0; i < n; i++)
		for (int len = 1; len <= max_seg && len + 2 <= n; len++)
			for (int off = len; off < n - 1; off++) {
				int j = (i + off) % n, a = t[j], b = t[(j + 1) % n];
				int f = t[i], l = t[(i + len - 1) % n];
				for (int fwd = 1; fwd >= (len > 1 ? 0 : 1); fwd--) {
					int ea = fwd ? f : l, eb = fwd ? l : f;
					if (!reach(in, a, ea, D(in, a, b)) && !reach(in, b, eb, D(in, a, b)))
						continue;
					left += moved_length(in, t, u, i, len, j, fwd) < now;
				}
			}
	free(u);
	return left;
}

/* t is a local optimum of `kind`'s neighbourhood. */
static void assert_local_optimum(const inst *in, const int *t, int kind)
{
	int two = two_opt_left(in, t), ins = insertion_left(in, t, max_seg_of[kind]);
	if (two || ins)
		fail_msg("n = %d, kind %d: %d 2-opt and %d insertion moves left", in->n, kind, two,
			 ins);
}

/* ---- tests ----------------------------------------------------------------------- */

static void test_tiny_instances(void **state)
{
	(void)state;
	for (int n = 3; n <= 8; n++)
		for (uint64_t s = 0; s < 20; s++) {
			inst in;
			int t[8];
			inst_random(&in, n, 100 + s * 10 + (uint64_t)n);
			for (int kind = 0; kind <= 3; kind++)
				for (int exact = 0; exact <= ACO_LOCAL_EXACT; exact += ACO_LOCAL_EXACT) {
					random_tour(t, n, s * 4 + (uint64_t)kind);
					int64_t before = length(&in, t);
					int64_t after = search(&in, kind | exact, t, s, kind, 7);
					if (kind == ACO_LOCAL_NONE || n == 3)
						assert_int_equal(after, before);
					if (kind != ACO_LOCAL_NONE && exact)
						assert_local_optimum(&in, t, kind);
				}
			inst_free(&in);
		}
}

/* Lattice instances (equal distances, repeated cities), lists of 1..k
 * neighbours tried out of k: sound, and exact runs are local optima. */
static void test_lattice_short_lists(void **state)
{
	(void)state;
	int t[40];
	for (int n = 4; n <= 40; n += 3)
		for (uint64_t s = 0; s < 12; s++) {
			inst in;
			inst_random_grid(&in, n, 500 + s * 50 + (uint64_t)n, 3 + (int)(s % 5));
			in.len = 1 + (int)((s * 7) % (uint64_t)in.k);
			for (int k = 0; k < 6; k++) {
				int kind = (1 + k % 3) | (k >= 3 ? ACO_LOCAL_EXACT : 0);
				random_tour(t, n, s + (uint64_t)k);
				search(&in, kind, t, s, k, (uint32_t)n);
				if (k >= 3)
					assert_local_optimum(&in, t, 1 + k % 3);
			}
			inst_free(&in);
		}
}

/* Regression (pcb442, MMAS 2-opt, ~160 iterations: the search cycled for
 * ever): grid-like instances with many equal distances and repeated
 * cities, up to 442 cities, many seeds, every kind plain and exact, from
 * random and nearest-neighbour tours. Every call ends, returns the change
 * it made and, exact, ends in a local optimum (so not at the pass bound). */
static void test_lattice_many_seeds(void **state)
{
	(void)state;
	static const int sizes[] = { 30, 64, 150, 442 }, grids[] = { 4, 6, 12, 21 };
	for (size_t z = 0; z < sizeof sizes / sizeof sizes[0]; z++) {
		int n = sizes[z];
		int *t = malloc((size_t)n * sizeof *t);
		int seeds = n >= 400 ? 3 : 12;
		assert_non_null(t);
		for (int s = 0; s < seeds; s++) {
			inst in;
			inst_random_grid(&in, n, 7000 + (uint64_t)(s * 31 + n),
					 grids[(z + (size_t)s) % 4]);
			for (int k = 0; k < 12; k++) {
				int kind = 1 + k % 3, exact = (k / 3) % 2 ? ACO_LOCAL_EXACT : 0;
				if (k < 6)
					random_tour(t, n, (uint64_t)(s * 12 + k));
				else
					nn_tour(&in, t, (s * 17 + k) % n);
				search(&in, kind | exact, t, (uint64_t)s, k, (uint32_t)(s + k));
				if (exact && n <= 150)
					assert_local_optimum(&in, t, kind);
				/* a second search from a local optimum changes nothing much
				 * and must end as well */
				search(&in, kind | exact, t, (uint64_t)s + 1, k, 3);
			}
			inst_free(&in);
		}
		free(t);
	}
}

/* A tour that is not a permutation (a city twice and one missing, as the
 * construction once made; a city out of range) is left as it is, 0
 * returned, for every kind: the search on it used to cycle. */
static void test_not_a_permutation(void **state)
{
	(void)state;
	int n = 120, t[120], u[120];
	int *work = malloc((size_t)ACO_LS_WORK_INTS(n) * sizeof *work);
	inst in;
	assert_non_null(work);
	inst_random_grid(&in, n, 99, 12);
	for (int c = 0; c < 40; c++) {
		nn_tour(&in, t, c % n);
		search(&in, ACO_LOCAL_2OPT, t, 5, c, 1);
		if (c < 36)
			t[(c * 7 + 3) % n] = t[(c * 7 + 3 + 1 + c % 5) % n];   /* a city twice */
		else
			t[c] = c % 2 ? -1 : n;                                  /* out of range */
		for (int kind = 1; kind <= 3; kind++)
			for (int exact = 0; exact <= ACO_LOCAL_EXACT; exact += ACO_LOCAL_EXACT) {
				memcpy(u, t, sizeof u);
				assert_int_equal(aco_local_search(kind | exact, n, in.dist, in.nn, in.k,
								  in.len, u, work, 3, c, 153),
						 0);
				assert_memory_equal(u, t, sizeof u);
			}
	}
	free(work);
	inst_free(&in);
}

/* The exhaustive checks find moves in tours that are not local optima. */
static void test_checks_find_moves(void **state)
{
	(void)state;
	inst in;
	int t[100];
	inst_random(&in, 100, 5);
	random_tour(t, 100, 1);
	assert_true(two_opt_left(&in, t) > 0);
	assert_true(insertion_left(&in, t, 1) > 0);
	search(&in, ACO_LOCAL_2OPT | ACO_LOCAL_EXACT, t, 1, 0, 0);
	assert_int_equal(two_opt_left(&in, t), 0);
	assert_true(insertion_left(&in, t, 3) > 0);
	inst_free(&in);
}

/* Every kind, plain and exact, from random and nearest-neighbour tours:
 * sound and improving; exact ones are local optima; the plain (ACOTSP)
 * stop leaves few moves. */
static void test_every_kind_is_sound(void **state)
{
	(void)state;
	static const int sizes[] = { 5, 12, 100, 500 };
	for (size_t z = 0; z < sizeof sizes / sizeof sizes[0]; z++) {
		int n = sizes[z], left[4] = { 0 };
		inst in;
		int *t = malloc((size_t)n * sizeof *t);
		inst_random(&in, n, 1000 + (uint64_t)n);
		for (int kind = 0; kind <= 3; kind++)
			for (int run = 0; run < 8; run++) {
				int start = run % 4, exact = run >= 4 ? ACO_LOCAL_EXACT : 0;
				if (start < 2)
					random_tour(t, n, (uint64_t)(start * 10 + kind));
				else
					nn_tour(&in, t, (start * 37) % n);
				int64_t before = length(&in, t);
				int64_t after = search(&in, kind | exact, t, 42, start, (uint32_t)kind);
				if (kind == ACO_LOCAL_NONE) {
					assert_int_equal(after, before);
					continue;
				}
				if (n >= 100)
					assert_true(after < before);
				if (exact)
					assert_local_optimum(&in, t, kind);
				else
					left[kind] += two_opt_left(&in, t) + insertion_left(&in, t, max_seg_of[kind]);
			}
		in.len = 8;   /* lists of 20, 8 tried */
		for (int kind = 1; kind <= 3; kind++) {
			random_tour(t, n, 99);
			search(&in, kind | ACO_LOCAL_EXACT, t, 3, 1, 2);
			assert_local_optimum(&in, t, kind);
		}
		if (n >= 100)
			print_message("n = %d: moves left by the plain stop, 4 runs: 2-opt %d, 2.5-opt %d, "
				      "or-opt %d\n", n, left[1], left[2], left[3]);
		for (int kind = 1; kind <= 3; kind++)
			assert_true(left[kind] <= n / 20);
		free(t);
		inst_free(&in);
	}
}

static void test_deterministic(void **state)
{
	(void)state;
	int n = 100;
	inst in;
	int start[100], a[100], b[100];
	inst_random(&in, n, 77);
	random_tour(start, n, 5);
	for (int k = 0; k < 6; k++) {
		int kind = (1 + k % 3) | (k >= 3 ? ACO_LOCAL_EXACT : 0), differ = 0;
		memcpy(a, start, sizeof a);
		memcpy(b, start, sizeof b);
		search(&in, kind, a, 9, 3, 11);
		search(&in, kind, b, 9, 3, 11);
		assert_memory_equal(a, b, sizeof a);
		/* another seed, ant or iteration: another visiting order */
		for (int v = 0; v < 6; v++) {
			memcpy(b, start, sizeof b);
			search(&in, kind, b, v < 2 ? 10 + (uint64_t)v : 9, v == 2 || v == 3 ? 4 + v : 3,
			       v >= 4 ? 12 + (uint32_t)v : 11);
			differ += memcmp(a, b, sizeof a) != 0;
		}
		assert_true(differ >= 4);
	}
	inst_free(&in);
}

/* The visiting order is the documented shuffle of the documented draws. */
static void test_order_draws(void **state)
{
	(void)state;
	int n = 37, order[37], seen[37] = { 0 }, ref[37];
	aco_ls_order(order, n, 123, 5, 9);
	for (int i = 0; i < n; i++) {
		philox4x32_ctr r = philox_block(123, 5, aco_draw_n(9, ACO_DRAW_LS, (uint32_t)i / 4));
		int j = (int)philox_below(r.v[i % 4], (uint32_t)i + 1);
		ref[i] = ref[j];
		ref[j] = i;
	}
	assert_memory_equal(order, ref, sizeof ref);
	for (int i = 0; i < n; i++)
		seen[order[i]]++;
	for (int i = 0; i < n; i++)
		assert_int_equal(seen[i], 1);
}

/* Regular polygons (full lists): every kind, exact or not, from random
 * tours ends in the convex-hull order, the optimum. */
static void test_polygon_reaches_optimum(void **state)
{
	(void)state;
	static const int sizes[] = { 4, 5, 8, 12, 20, 50 };
	for (size_t z = 0; z < sizeof sizes / sizeof sizes[0]; z++) {
		int n = sizes[z], t[50], hull[50];
		inst in;
		inst_polygon(&in, n);
		for (int i = 0; i < n; i++)
			hull[i] = i;
		int64_t opt = length(&in, hull);
		for (int k = 0; k < 6; k++)
			for (uint64_t s = 0; s < 10; s++) {
				int kind = (1 + k % 3) | (k >= 3 ? ACO_LOCAL_EXACT : 0);
				random_tour(t, n, s + 100 * (uint64_t)n);
				if (search(&in, kind, t, s, 0, 0) != opt)
					fail_msg("%d-gon, kind %d, tour %d: length %lld, optimum %lld", n,
						 kind, (int)s, (long long)length(&in, t), (long long)opt);
			}
		inst_free(&in);
	}
}

/* 100 random cities, 20 random starts: every kind lands far below the
 * nearest-neighbour tour on average, and improves on nearest-neighbour
 * tours; with these seeds the richer neighbourhoods do better on average. */
static void test_quality(void **state)
{
	(void)state;
	int n = 100, t[100];
	int64_t sum[4] = { 0 }, nn_sum = 0;
	inst in;
	inst_random(&in, n, 2024);
	for (int s = 0; s < 20; s++) {
		nn_tour(&in, t, s);
		int64_t nnl = length(&in, t);
		nn_sum += nnl;
		assert_true(search(&in, ACO_LOCAL_2OPT, t, (uint64_t)s, 0, 0) < nnl);
	}
	for (int kind = 1; kind <= 3; kind++)
		for (int s = 0; s < 20; s++) {
			random_tour(t, n, (uint64_t)s);
			sum[kind] += search(&in, kind, t, 1, s, 0);
		}
	print_message("n=100: mean NN %.0f, from random tours: 2-opt %.0f, 2.5-opt %.0f, or-opt %.0f\n",
		      nn_sum / 20.0, sum[1] / 20.0, sum[2] / 20.0, sum[3] / 20.0);
	assert_true(sum[1] < nn_sum);
	assert_true(sum[2] < sum[1]);
	assert_true(sum[3] < sum[2]);
	inst_free(&in);
}

/* ---- NVRTC ----------------------------------------------------------------------- */

static void test_nvrtc_compiles(void **state)
{
	(void)state;
	static const char *const opts[] = { "--fmad=false", "-Xptxas", "-v" };
	static const char *const kernels[] = { "aco_ls_any", "aco_ls_2opt", "aco_ls_oropt" };
	rt_error err;
	gen_source src;
	nvrtc_output out;
	if (nvrtc_open(&err) != RT_OK)
		skip();
	if (!getenv("EVOFORGE_CACHE"))
		setenv("EVOFORGE_NO_CACHE", "1", 1);
	rt_log_set_quiet(1);
	gen_begin(&src, "aco_ls_test.cu", "tests/aco/test_aco_ls.c: aco_local_search compiled alone");
	assert_int_equal(gen_template(&src, "aco/aco_ls.h", &err), RT_OK);
	gen_line(&src, "#define K(name, kind) \\");
	gen_line(&src, "extern \"C\" __global__ void name(int k, int n, const int *dist, const int *nn, \\");
	gen_line(&src, "    int stride, int len, int *tours, int *work, long long *delta, \\");
	gen_line(&src, "    unsigned long long seed, unsigned iteration, int ants) { \\");
	gen_line(&src, "  int ant = blockIdx.x * blockDim.x + threadIdx.x; \\");
	gen_line(&src, "  if (ant >= ants) return; \\");
	gen_line(&src, "  delta[ant] = aco_local_search(kind, n, dist, nn, stride, len, \\");
	gen_line(&src, "    tours + (long long)ant * n, work + (long long)ant * ACO_LS_WORK_INTS(n), \\");
	gen_line(&src, "    seed, ant, iteration); (void)k; }");
	gen_line(&src, "K(aco_ls_any, k)");
	gen_line(&src, "K(aco_ls_2opt, ACO_LOCAL_2OPT)");
	gen_line(&src, "K(aco_ls_oropt, ACO_LOCAL_OROPT)");
	memset(&out, 0, sizeof out);
	if (nvrtc_compile(src.name, src.text.data, "sm_90", opts, 3, &out, &err))
		fail_msg("%s", err.msg);
	for (size_t i = 0; i < sizeof kernels / sizeof kernels[0]; i++) {
		nvrtc_usage u;
		if (nvrtc_parse_usage(out.log, kernels[i], &u, &err))
			fail_msg("%s: %s", kernels[i], err.msg);
		print_message("%s: %d registers, spills %d/%d, stack %d\n", kernels[i], u.registers,
			      u.spill_stores, u.spill_loads, u.stack_frame);
		assert_int_equal(u.spill_stores, 0);
		assert_int_equal(u.spill_loads, 0);
		assert_true(u.registers > 0 && u.registers <= 255);
	}
	nvrtc_output_free(&out);
	gen_free(&src);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_tiny_instances),
		cmocka_unit_test(test_checks_find_moves),
		cmocka_unit_test(test_lattice_short_lists),
		cmocka_unit_test(test_lattice_many_seeds),
		cmocka_unit_test(test_not_a_permutation),
		cmocka_unit_test(test_every_kind_is_sound),
		cmocka_unit_test(test_deterministic),
		cmocka_unit_test(test_order_draws),
		cmocka_unit_test(test_polygon_reaches_optimum),
		cmocka_unit_test(test_quality),
		cmocka_unit_test(test_nvrtc_compiles),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
