/* test_gp_breed.c: GP breeding as the GPU does it (templates/gp/gp_breed.h,
 * compiled here for the host) against the host's breeding (gp_tree.c):
 * on regression, classification (IF, arity 3) and Boolean problems, with
 * every parsimony rule, with and without elitism, and with tight size and
 * depth limits (many offspring rejected), every child of several
 * generations has the same nodes, bit for bit, and gpb_emit's depths are
 * the child's depths (computed here from the tree); the encoding for the
 * interpreter (gpb_encode) equals gp_gpu_encode's bytes, and
 * gpb_encode_par's (the warp encoder, run with one lane) equals
 * gpb_encode's on the populations and on random trees of every shape;
 * NaN fitness is the worst; and the kernels compile with NVRTC for sm_90
 * (no GPU needed).
 * On a GPU, tests/gp/gp_breed_driver checks the kernels themselves. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "gen.h"
#include "gp/gp_conv.h"
#include "gp/gp_gpu.h"
#include "gp/gp_gpu_breed.h"
#include "gp/gp_problem.h"
#include "gp/gp_prog.h"
#include "gp/gp_tree.h"
#include "gp/gp_breed.h"
#include "nvrtc.h"
#include "rng.h"

typedef struct setup {
	const char *name;
	const char *funcs;
	int ninputs, use_consts, boolean;
	int max_depth, max_size, mutation_depth, parsimony, elitism;
	double mutation, point_mutation;
} setup;

static const setup setups[] = {
	{ "sextic", "+ - * / sin cos log exp", 1, 1, 0, 17, 1000, 4, 0, 1, 0.2, 0.5 },
	{ "classes lexicographic", "+ - * / > < IF", 9, 1, 0, 12, 300, 4, 1, 1, 0.4, 0.5 },
	{ "classes penalty", "+ - * / AND OR IF", 9, 1, 0, 10, 200, 5, 2, 0, 0.5, 0.3 },
	{ "boolean tight", "and or nand nor not if", 11, 0, 1, 6, 40, 3, 1, 1, 0.6, 0.4 },
	{ "deep small", "+ * sin", 2, 1, 0, 5, 25, 6, 0, 0, 0.9, 0.1 },
};

static void make_params(const setup *s, gp_fset *fs, gp_breed *br, rt_error *err)
{
	assert_int_equal(gp_fset_parse(fs, s->funcs, s->ninputs, err), RT_OK);
	fs->use_consts = s->use_consts;
	fs->const_min = -2.5f;
	fs->const_max = 7.0f;
	fs->const_prob = 0.3;
	*br = gp_breed_defaults();
	br->max_depth = s->max_depth;
	br->max_size = s->max_size;
	br->init_max_depth = s->max_depth < 6 ? s->max_depth : 6;
	br->mutation_depth = s->mutation_depth;
	br->parsimony = s->parsimony;
	br->parsimony_coefficient = 0.01;
	br->elitism = s->elitism;
	br->mutation = s->mutation;
	br->point_mutation = s->point_mutation;
}

/* Random fitness with ties (a few values) and NaN and inf now and then. */
static void random_fitness(double *fit, int n, uint64_t seed)
{
	rt_rng rng;
	rt_rng_init(&rng, seed, 99);
	for (int i = 0; i < n; i++) {
		uint32_t r = rt_rng_below(&rng, 20);
		fit[i] = r == 0 ? NAN : r == 1 ? INFINITY : (double)rt_rng_below(&rng, 8);
	}
}

/* The depth of each node of nodes[0..n) (root 0), by recursion: the
 * reference for gp_breed.h's depths. Returns one past the subtree at i. */
static int ref_depths(const gp_node *nodes, int i, int depth, uint16_t *out)
{
	out[i] = (uint16_t)depth;
	int a = gpb_arity(nodes[i].op), k = i + 1;
	for (int j = 0; j < a; j++)
		k = ref_depths(nodes, k, depth + 1, out);
	return k;
}

/* The host's trees as gp_breed.h's population (off, size, nfn, depth). */
typedef struct flat {
	gp_node *nodes;
	uint16_t *depth;
	uint32_t *off, *size, *nfn;
} flat;

static void flatten(const gp_tree *pop, int n, flat *f)
{
	uint32_t total = 0;
	for (int i = 0; i < n; i++)
		total += (uint32_t)pop[i].n;
	f->nodes = malloc((total + 1) * sizeof *f->nodes);
	f->depth = malloc((total + 1) * sizeof *f->depth);
	f->off = malloc((size_t)n * sizeof *f->off);
	f->size = malloc((size_t)n * sizeof *f->size);
	f->nfn = malloc((size_t)n * sizeof *f->nfn);
	uint32_t at = 0;
	for (int i = 0; i < n; i++) {
		f->off[i] = at;
		f->size[i] = (uint32_t)pop[i].n;
		f->nfn[i] = 0;
		for (int k = 0; k < pop[i].n; k++)
			f->nfn[i] += pop[i].nodes[k].op < GP_OP_COUNT;
		memcpy(f->nodes + at, pop[i].nodes, (size_t)pop[i].n * sizeof(gp_node));
		assert_int_equal(ref_depths(pop[i].nodes, 0, 0, f->depth + at), pop[i].n);
		at += (uint32_t)pop[i].n;
	}
}

static void flat_free(flat *f)
{
	free(f->nodes);
	free(f->depth);
	free(f->off);
	free(f->size);
	free(f->nfn);
}

/* Breeds generation g + 1 both ways and compares every child; returns the
 * number of offspring whose plan used a grown subtree or a point mutation. */
static int compare_generation(const setup *s, const gp_fset *fs, const gp_breed *br,
			      gp_tree *cur, gp_tree *next, double *fit, int n, uint64_t seed, int g)
{
	rt_error err;
	flat f;
	gpb_params pr;
	/* the loop makes NaN +inf before breeding; gp_breed.h reads NaN as +inf */
	double *host_fit = malloc((size_t)n * sizeof *host_fit);
	for (int i = 0; i < n; i++)
		host_fit[i] = isnan(fit[i]) ? INFINITY : fit[i];
	assert_int_equal(gp_breed_generation(next, cur, host_fit, n, fs, br, seed, g, &err), RT_OK);
	flatten(cur, n, &f);
	gp_gpu_breed_params(fs, br, n, &pr);
	pr.seed = seed;
	pr.generation = g;
	uint32_t *sizes = malloc((size_t)n * sizeof *sizes);
	for (int i = 0; i < n; i++)
		sizes[i] = (uint32_t)cur[i].n;
	pr.elite = br->elitism ? gp_best_index_sizes(host_fit, sizes, n, br) : -1;
	gpb_pop pop = { f.nodes, f.off, f.size, f.nfn, fit, f.depth };
	gp_node *child = malloc((size_t)(br->max_size + 1) * sizeof *child);
	uint16_t *dchild = malloc((size_t)(br->max_size + 1) * sizeof *dchild);
	uint16_t *dref = malloc((size_t)(br->max_size + 1) * sizeof *dref);
	int varied = 0;
	for (int i = 0; i < n; i++) {
		gpb_plan plan;
		uint32_t nfn, nconst, efn = 0, ec = 0;
		gpb_plan_one(&pop, &pr, (uint32_t)i, &plan);
		if ((int)plan.size != next[i].n)
			fail_msg("%s, generation %d, child %d: %u nodes, host %d", s->name, g + 1, i,
				 plan.size, next[i].n);
		gpb_emit(&pop, &pr, &plan, child, dchild, &nfn, &nconst);
		for (int k = 0; k < next[i].n; k++) {
			efn += next[i].nodes[k].op < GP_OP_COUNT;
			ec += next[i].nodes[k].op == GP_TERM_CONST;
		}
		if (memcmp(child, next[i].nodes, (size_t)next[i].n * sizeof *child) != 0)
			fail_msg("%s, generation %d, child %d: nodes differ from the host's", s->name, g + 1, i);
		ref_depths(next[i].nodes, 0, 0, dref);
		if (memcmp(dchild, dref, (size_t)next[i].n * sizeof *dref) != 0)
			fail_msg("%s, generation %d, child %d: emitted depths differ from the tree's",
				 s->name, g + 1, i);
		assert_int_equal(nfn, efn);
		assert_int_equal(nconst, ec);
		varied += plan.point_pos != GPB_NONE || plan.sub_depth > 0;
	}
	free(child);
	free(dchild);
	free(dref);
	free(sizes);
	free(host_fit);
	flat_free(&f);
	return varied;
}

/* gpb_encode_par (one lane) of nodes[0..n) equals gpb_encode's bytes
 * (code, constants, progs, shared memory, stack slots); returns 0, or 1
 * if gpb_encode refuses the tree (deeper than GPB_DEPTH_CAP). */
static int compare_par(const gp_node *nodes, int n, int is_bool)
{
	uint32_t *progs[2], *code[2], *consts[2], smem[2] = { 0, 0 };
	int deep[2] = { 1, 1 };
	uint16_t *depth = malloc(((size_t)n + 1) * sizeof *depth);
	for (int k = 0; k < 2; k++) {
		progs[k] = calloc(8, sizeof(uint32_t));
		code[k] = calloc(4 * ((size_t)n + 8), sizeof(uint32_t));
		consts[k] = calloc((size_t)n + 8, sizeof(uint32_t));
	}
	assert_int_equal(ref_depths(nodes, 0, 0, depth), n);
	gpb_enc_scratch s = { malloc((size_t)n * 4), malloc(((size_t)n + 1) * 2), malloc((size_t)n * 2),
			      malloc((size_t)n * 2) };
	/* program 1 of a population, its code and constants at offsets 3 and 5 */
	int bad = gpb_encode(nodes, (uint32_t)n, is_bool, 777, 1, 3, 5, progs[0], code[0], consts[0],
			     &smem[0], &deep[0]);
	if (!bad) {
		gpb_encode_par(nodes, depth, (uint32_t)n, is_bool, 777, 1, 3, 5, progs[1], code[1],
			       consts[1], &smem[1], &deep[1], &s);
		assert_memory_equal(progs[0], progs[1], 8 * sizeof(uint32_t));
		assert_memory_equal(code[0], code[1], 4 * ((size_t)n + 8) * sizeof(uint32_t));
		assert_memory_equal(consts[0], consts[1], ((size_t)n + 8) * sizeof(uint32_t));
		assert_int_equal(smem[0], smem[1]);
		assert_int_equal(deep[0], deep[1]);
	}
	for (int k = 0; k < 2; k++) {
		free(progs[k]);
		free(code[k]);
		free(consts[k]);
	}
	free(s.sym);
	free(s.fpre);
	free(s.end);
	free(s.sp);
	free(depth);
	return bad;
}

/* gpb_encode over every program of pop equals gp_gpu_encode of its LGP
 * form, and gpb_encode_par's bytes gpb_encode's. */
static void compare_encoding(const gp_tree *pop, int n, int is_bool, gp_cases *cases)
{
	rt_error err;
	gp_packed pk;
	gp_packed_init(&pk);
	assert_int_equal(gp_pack_lgp(&pk, pop, n, &err), RT_OK);
	size_t bytes = gp_gpu_encoded_bytes(&pk), dstride = 4096;
	unsigned char *ref = calloc(1, bytes);
	uint32_t smem_ref = 0, smem = 0;
	int need_ref = 1, need = 1;
	assert_int_equal(gp_gpu_encode(&pk, cases, dstride, ref, bytes, &smem_ref, &need_ref, &err), RT_OK);
	size_t code_b = ((size_t)n * 16 + 255) / 256 * 256;
	size_t ninsn = pk.offset[n], nk = pk.const_offset[n];
	size_t consts_b = code_b + (ninsn * 16 + 255) / 256 * 256;
	uint32_t *progs = calloc((size_t)n, 16), *code = calloc(ninsn + 1, 16), *consts = calloc(nk + 1, 4);
	uint32_t ci = 0, ki = 0;
	for (int p = 0; p < n; p++) {
		assert_int_equal(compare_par(pop[p].nodes, pop[p].n, is_bool), 0);
		assert_int_equal(gpb_encode(pop[p].nodes, (uint32_t)pop[p].n, is_bool, (uint32_t)dstride,
					    (uint32_t)p, ci, ki, progs, code, consts, &smem, &need), 0);
		ci += progs[4 * p + 1];
		ki += progs[4 * p + 3];
	}
	assert_int_equal(ci, ninsn);
	assert_int_equal(ki, nk);
	assert_memory_equal(progs, ref, (size_t)n * 16);
	assert_memory_equal(code, ref + code_b, ninsn * 16);
	if (nk)
		assert_memory_equal(consts, ref + consts_b, nk * 4);
	assert_int_equal(smem, smem_ref);
	assert_int_equal(need, need_ref);
	free(progs);
	free(code);
	free(consts);
	free(ref);
	gp_packed_free(&pk);
}

/* Minimal cases for gp_gpu_encode's validation: only their shape is read. */
static void shape_cases(const setup *s, gp_cases *c)
{
	static float x[64 * 16], y[64];
	static uint32_t bits[16], target[1];
	memset(c, 0, sizeof *c);
	c->ninputs = s->ninputs;
	if (s->boolean) {
		c->fitness = GP_FIT_BOOL;
		c->nwords = 1;
		c->bits = bits;
		c->target = target;
		c->last_mask = 0xffffffffu;
	} else {
		c->fitness = GP_FIT_MSE;
		c->ncases = c->stride = 64;
		c->x = x;
		c->y = y;
	}
}

static void test_same_children_and_encoding(void **state)
{
	(void)state;
	rt_error err;
	const int n = 400;
	for (size_t k = 0; k < sizeof setups / sizeof setups[0]; k++) {
		const setup *s = &setups[k];
		gp_fset fs;
		gp_breed br;
		gp_cases cases;
		make_params(s, &fs, &br, &err);
		shape_cases(s, &cases);
		gp_tree *cur = calloc((size_t)n, sizeof *cur), *next = calloc((size_t)n, sizeof *next);
		double *fit = malloc((size_t)n * sizeof *fit);
		uint64_t seed = 1000 + k;
		assert_int_equal(gp_init_population(cur, n, &fs, &br, seed, &err), RT_OK);
		int varied = 0;
		for (int g = 0; g < 6; g++) {
			compare_encoding(cur, n, s->boolean, &cases);
			random_fitness(fit, n, seed * 31 + (uint64_t)g);
			varied += compare_generation(s, &fs, &br, cur, next, fit, n, seed, g);
			gp_tree *t = cur;
			cur = next;
			next = t;
		}
		compare_encoding(cur, n, s->boolean, &cases);
		assert_true(varied > n / 10);   /* mutations were exercised */
		for (int i = 0; i < n; i++) {
			gp_tree_free(&cur[i]);
			gp_tree_free(&next[i]);
		}
		free(cur);
		free(next);
		free(fit);
	}
}

/* A random prefix tree of at most max nodes over funcs (with terminals of
 * inputs and constants): functions drawn with probability pf while room
 * is left for every open operand to be a terminal. Returns its size. */
static int random_tree(gp_node *out, int max, const gp_fset *fs, double pf, rt_rng *rng)
{
	int n = 0, open = 1;
	while (open > 0) {
		gp_node nd = { 0 };
		unsigned op = fs->funcs[rt_rng_below(rng, (uint32_t)fs->nfuncs)];
		if (n + open + gpb_arity(op) <= max && rt_rng_uniform_double(rng) < pf) {
			nd.op = (uint8_t)op;
			open += gpb_arity(op) - 1;
		} else if (rt_rng_below(rng, 3) == 0) {
			nd.op = GP_TERM_CONST;
			nd.value = rt_rng_below(rng, 4) == 0 ? 0.0f : (float)rt_rng_range(rng, -9.0, 9.0);
			open--;
		} else {
			nd.op = GP_TERM_VAR;
			nd.var = (uint16_t)rt_rng_below(rng, (uint32_t)fs->ninputs);
			open--;
		}
		out[n++] = nd;
	}
	return n;
}

/* gpb_encode_par equals gpb_encode on random trees: arities 1 to 3 (and
 * single ones), float and Boolean, single nodes, chains, bushy trees up
 * to a full max_size. */
static void test_parallel_encoding(void **state)
{
	(void)state;
	static const char *const sets[] = { "+ - * / sin cos IF", "sin", "IF", "+", "and or not if",
					    "exp + IF" };
	rt_error err;
	rt_rng rng;
	rt_rng_init(&rng, 31, 4);
	enum { MAX = 4000 };
	gp_node *t = malloc(MAX * sizeof *t);
	int trees = 0, refused = 0, biggest = 0;
	for (size_t k = 0; k < sizeof sets / sizeof sets[0]; k++) {
		gp_fset fs;
		assert_int_equal(gp_fset_parse(&fs, sets[k], 5, &err), RT_OK);
		int is_bool = k == 4;
		for (int r = 0; r < 300; r++) {
			int max = r % 10 == 0 ? 1 : r % 7 == 0 ? MAX : 1 + (int)rt_rng_below(&rng, 600);
			double pf = r % 5 == 0 ? 0.99 : 0.3 + 0.65 * rt_rng_uniform_double(&rng);
			int n = random_tree(t, max, &fs, pf, &rng);
			refused += compare_par(t, n, is_bool);
			trees++;
			biggest = n > biggest ? n : biggest;
		}
	}
	assert_true(biggest > 3000);
	assert_true(refused < trees / 10);
	free(t);
}

/* The prefix sums of philox_stream equal rt_rng's draws (one code). */
static void test_stream_is_rt_rng(void **state)
{
	(void)state;
	rt_rng a;
	philox_stream b;
	rt_rng_init(&a, 77, 5);
	philox_stream_init(&b, 77, 5);
	for (int i = 0; i < 1000; i++) {
		assert_int_equal(rt_rng_below(&a, 7u + (uint32_t)i), philox_stream_below(&b, 7u + (uint32_t)i));
		double x = rt_rng_range(&a, -3.0, 5.0), y = philox_stream_range(&b, -3.0, 5.0);
		assert_memory_equal(&x, &y, sizeof x);
	}
}

static void test_kernels_compile(void **state)
{
	(void)state;
	rt_error err;
	if (nvrtc_open(&err) != RT_OK) {
		printf("skipped: no NVRTC (%s)\n", err.msg);
		skip();
	}
	for (size_t k = 0; k < sizeof setups / sizeof setups[0]; k++) {
		gp_fset fs;
		gp_breed br;
		gen_source src;
		nvrtc_output out = { 0 };
		make_params(&setups[k], &fs, &br, &err);
		assert_int_equal(gp_gpu_breed_render(&br, &src, &err), RT_OK);
		const char *opt[] = { "--fmad=false" };
		if (nvrtc_compile(src.name, src.text.data, "sm_90", opt, 1, &out, &err) != RT_OK)
			fail_msg("%s: %s", src.name, err.msg);
		nvrtc_output_free(&out);
		gen_free(&src);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_stream_is_rt_rng),
		cmocka_unit_test(test_same_children_and_encoding),
		cmocka_unit_test(test_parallel_encoding),
		cmocka_unit_test(test_kernels_compile),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
