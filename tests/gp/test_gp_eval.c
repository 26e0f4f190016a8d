/* test_gp_eval.c: the GP evaluators: known answers on hand-built programs,
 * the 1-D RPN baseline and the 2-D stack interpreters agreeing on random
 * populations of every fitness kind, odd case counts, NaN and large-argument
 * handling, thread-count independence, rejection of malformed programs, the
 * accuracy of gp_math.h, and the generated CUDA interpreter compiling under
 * NVRTC for sm_90 without spills. Linear scaling (gp_scale.h): every method's
 * scaled fitness equals a float64 two-pass recomputation from the program's
 * outputs (within 1e-9 of var y), also for adversarial programs (outputs
 * with a mean far above their spread, over orders of magnitude, near
 * constant), the GPU's chunked moment merge emulated on the CPU with the
 * same functions agrees with it, and the best line rewritten into the
 * tree scores what the fitness said.
 *
 * Agreement tolerance: outputs are bit-identical between methods (same
 * operation table, no contraction); MSE sums differ only in summation order,
 * so they must agree to a relative 1e-9 (observed ~1e-15). Misclassification
 * and Boolean counts must be equal. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "cpu.h"
#include "gen.h"
#include "gp/gp_conv.h"
#include "gp/gp_eval.h"
#include "gp/gp_math.h"
#include "gp/gp_problem.h"
#include "gp/gp_scale.h"
#include "gp/gp_tree.h"
#include "rng.h"

#define MSE_TOL 1e-9

/* ---- hand-built populations ------------------------------------------------ */

/* A one-program LGP population over the given instructions and constants. */
typedef struct hand_pop {
	gp_packed pk;
	uint32_t offset[2], const_offset[2];
	uint16_t max_stack[1];
	uint32_t nnodes[1];
	gp_insn code[16];
	float consts[16];
	gp_node rpn[32];
} hand_pop;

static gp_insn insn(int op, int k0, int a0, int k1, int a1, int k2, int a2)
{
	gp_insn in;
	in.op = (uint8_t)op;
	in.kinds = (uint8_t)(k0 | k1 << 2 | k2 << 4);
	in.arg[0] = (uint16_t)a0;
	in.arg[1] = (uint16_t)a1;
	in.arg[2] = (uint16_t)a2;
	return in;
}

static void hand_lgp(hand_pop *h, const gp_insn *code, int n, const float *consts, int nc)
{
	memset(h, 0, sizeof *h);
	memcpy(h->code, code, (size_t)n * sizeof *code);
	if (nc)
		memcpy(h->consts, consts, (size_t)nc * sizeof *consts);
	h->offset[1] = (uint32_t)n;
	h->const_offset[1] = (uint32_t)nc;
	h->pk.nprogs = 1;
	h->pk.form = GP_FORM_LGP;
	h->pk.offset = h->offset;
	h->pk.const_offset = h->const_offset;
	h->pk.lgp = h->code;
	h->pk.consts = h->consts;
	h->pk.max_stack = h->max_stack;
	h->pk.nnodes = h->nnodes;
	h->pk.cap_code = 16;
	h->pk.cap_consts = 16;
}

static void hand_rpn(hand_pop *h, const gp_node *nodes, int n)
{
	memset(h, 0, sizeof *h);
	memcpy(h->rpn, nodes, (size_t)n * sizeof *nodes);
	h->offset[1] = (uint32_t)n;
	h->pk.nprogs = 1;
	h->pk.form = GP_FORM_RPN;
	h->pk.offset = h->offset;
	h->pk.rpn = h->rpn;
	h->pk.max_stack = h->max_stack;
	h->pk.nnodes = h->nnodes;
	h->pk.cap_code = 32;
}

/* Float cases: x columns given row-wise per input (ninputs arrays of n). */
static void float_cases(gp_cases *c, int ninputs, size_t n, int fitness)
{
	rt_error err;
	assert_int_equal(gp_cases_alloc_float(c, ninputs, n, &err), RT_OK);
	c->fitness = fitness;
}

/* Runs every method that reads pk's form, with two block sizes and thread
 * counts, and checks they all give `want` (tolerance tol, relative). */
static void expect_all(const gp_packed *pk, const gp_cases *c, double want, double tol)
{
	static const int blocks[] = {64, 512};
	rt_error err;
	double f;
	if (pk->form == GP_FORM_RPN) {
		assert_int_equal(gp_eval_cpu(pk, c, GP_EVAL_RPN1D, &f, &err), RT_OK);
		if (isinf(want))
			assert_true(isinf(f) && f > 0);
		else
			assert_true(fabs(f - want) <= tol * fabs(want) + 1e-300);
	}
	for (int b = 0; b < 2; b++)
		for (int t = 1; t <= 2; t++) {
			gp_eval_tuning tun = {blocks[b], t, 0};
			int m = pk->form == GP_FORM_RPN ? GP_EVAL_RPN2D : GP_EVAL_LGP2D;
			assert_int_equal(gp_eval_cpu_tuned(pk, c, m, &tun, &f, &err), RT_OK);
			if (isinf(want))
				assert_true(isinf(f) && f > 0);
			else
				assert_true(fabs(f - want) <= tol * fabs(want) + 1e-300);
		}
}

/* x*x on x = 1, 2, 3 against y = 0, 4, 10: squared errors 1, 0, 1. */
static void known_square(void **state)
{
	hand_pop h;
	gp_cases c;
	gp_insn code[1] = {insn(GP_OP_MUL, GP_SRC_X, 0, GP_SRC_X, 0, 0, 0)};
	gp_node rpn[3] = {gp_var(0), gp_var(0), gp_fn(GP_OP_MUL)};
	(void)state;
	float_cases(&c, 1, 3, GP_FIT_MSE);
	c.x[0] = 1, c.x[1] = 2, c.x[2] = 3;
	c.y[0] = 0, c.y[1] = 4, c.y[2] = 10;
	hand_lgp(&h, code, 1, NULL, 0);
	expect_all(&h.pk, &c, 2.0 / 3.0, 1e-15);
	hand_rpn(&h, rpn, 3);
	expect_all(&h.pk, &c, 2.0 / 3.0, 1e-15);
	gp_cases_free(&c);
}

/* Every operand shape: (x0 - 2) * (x1 / S) with S = x0 + x1; c - x; IF with
 * constants; compared with values worked out by hand. */
static void known_shapes(void **state)
{
	hand_pop h;
	gp_cases c;
	const float k[3] = {2.0f, 10.0f, -1.0f};
	(void)state;
	float_cases(&c, 2, 2, GP_FIT_MSE);
	c.x[0] = 3, c.x[1] = 5;            /* x0 */
	c.x[c.stride] = 1, c.x[c.stride + 1] = -5;  /* x1 */
	/* case 0: x0=3, x1=1: S=4, x1/S = .25, (x0-2)=1 -> .25
	 * case 1: x0=5, x1=-5: S=0 -> x1/0 protected = 1, (x0-2)=3 -> 3 */
	{
		gp_insn code[4] = {
			insn(GP_OP_ADD, GP_SRC_X, 0, GP_SRC_X, 1, 0, 0),
			insn(GP_OP_DIV, GP_SRC_X, 1, GP_SRC_S, 0, 0, 0),
			insn(GP_OP_SUB, GP_SRC_X, 0, GP_SRC_C, 0, 0, 0),
			insn(GP_OP_MUL, GP_SRC_S, 0, GP_SRC_S, 0, 0, 0)};
		c.y[0] = 0.25f, c.y[1] = 3.0f;
		hand_lgp(&h, code, 4, k, 3);
		expect_all(&h.pk, &c, 0.0, 0.0);
		c.y[0] = 0.0f, c.y[1] = 0.0f;
		expect_all(&h.pk, &c, (0.0625 + 9.0) / 2, 1e-15);
	}
	/* 10 - x0 (constant first); IF(x0 > 4, 2, 4) with constant operands:
	 * case 0 (x0 = 3) gives 4, case 1 (x0 = 5) gives 2. */
	{
		gp_insn code[1] = {insn(GP_OP_SUB, GP_SRC_C, 1, GP_SRC_X, 0, 0, 0)};
		gp_insn code2[2] = {insn(GP_OP_GT, GP_SRC_X, 0, GP_SRC_C, 2, 0, 0),
				    insn(GP_OP_IF, GP_SRC_S, 0, GP_SRC_C, 0, GP_SRC_C, 2)};
		const float k2[3] = {2.0f, 10.0f, 4.0f};
		c.y[0] = 7, c.y[1] = 5;
		hand_lgp(&h, code, 1, k, 3);
		expect_all(&h.pk, &c, 0.0, 0.0);
		c.y[0] = 4, c.y[1] = 2;
		hand_lgp(&h, code2, 2, k2, 3);
		expect_all(&h.pk, &c, 0.0, 0.0);
	}
	/* All-constant instruction: 2 * 10 = 20 for every case. */
	{
		gp_insn code[1] = {insn(GP_OP_MUL, GP_SRC_C, 0, GP_SRC_C, 1, 0, 0)};
		c.y[0] = 20, c.y[1] = 21;
		hand_lgp(&h, code, 1, k, 3);
		expect_all(&h.pk, &c, 0.5, 1e-15);
	}
	gp_cases_free(&c);
}

/* Classification: out = x0 mapped to clamp(rint(out), 0, 2). */
static void known_class(void **state)
{
	hand_pop h;
	gp_cases c;
	const float xs[7] = {-3.0f, 0.4f, 0.5f, 1.5f, 2.49f, 9.0f, 1.0f};
	const float ys[7] = {0, 0, 0, 2, 2, 2, 0};   /* rint(0.5) = 0, rint(1.5) = 2 */
	gp_insn code[1] = {insn(GP_OP_ADD, GP_SRC_X, 0, GP_SRC_C, 0, 0, 0)};
	float zero = 0.0f;
	(void)state;
	float_cases(&c, 1, 7, GP_FIT_CLASS);
	c.nclasses = 3;
	memcpy(c.x, xs, sizeof xs);
	memcpy(c.y, ys, sizeof ys);
	hand_lgp(&h, code, 1, &zero, 1);
	expect_all(&h.pk, &c, 1.0, 0.0);    /* only case 6 (1.0 -> 1 != 0) is wrong */
	c.x[0] = NAN;                        /* NaN is always wrong */
	expect_all(&h.pk, &c, 2.0, 0.0);
	gp_cases_free(&c);
}

/* NaN and inf: x0 - x0 is NaN where x0 is inf, so the MSE is +inf; exp(80)
 * squared overflows to inf (exp itself is protected), also +inf. */
static void nan_is_inf(void **state)
{
	hand_pop h;
	gp_cases c;
	const float k[1] = {80.0f};
	gp_insn nan[1] = {insn(GP_OP_SUB, GP_SRC_X, 0, GP_SRC_X, 0, 0, 0)};
	gp_insn inf[3] = {insn(GP_OP_EXP, GP_SRC_C, 0, 0, 0, 0, 0),
			  insn(GP_OP_EXP, GP_SRC_X, 0, 0, 0, 0, 0),
			  insn(GP_OP_MUL, GP_SRC_S, 0, GP_SRC_S, 0, 0, 0)};
	gp_node rpn[3] = {gp_var(0), gp_var(0), gp_fn(GP_OP_SUB)};
	(void)state;
	float_cases(&c, 1, 5, GP_FIT_MSE);
	for (int i = 0; i < 5; i++)
		c.x[i] = (float)i;
	hand_lgp(&h, nan, 1, NULL, 0);
	expect_all(&h.pk, &c, 0.0, 0.0);
	c.x[3] = 1.0f / 0.0f;
	expect_all(&h.pk, &c, 1.0 / 0.0, 0.0);
	hand_rpn(&h, rpn, 3);
	expect_all(&h.pk, &c, 1.0 / 0.0, 0.0);
	c.x[3] = 80.0f;
	hand_lgp(&h, inf, 3, k, 1);
	expect_all(&h.pk, &c, 1.0 / 0.0, 0.0);
	gp_cases_free(&c);
}

/* Boolean: and(x0, x1) on the 2-input truth table (4 cases in one word). */
static void known_bool(void **state)
{
	hand_pop h;
	gp_cases c;
	uint32_t bits[2] = {0xAu, 0xCu};   /* x0 = 0101 (case 0 lowest) reversed: 0,1,0,1 */
	uint32_t target = 0x8u;            /* and: only case 3 */
	gp_insn code[1] = {insn(GP_OP_BAND, GP_SRC_X, 0, GP_SRC_X, 1, 0, 0)};
	gp_insn code2[2] = {insn(GP_OP_BOR, GP_SRC_X, 0, GP_SRC_X, 1, 0, 0),
			    insn(GP_OP_BNOT, GP_SRC_S, 0, 0, 0, 0, 0)};
	gp_node rpn[3] = {gp_var(0), gp_var(1), gp_fn(GP_OP_BAND)};
	(void)state;
	memset(&c, 0, sizeof c);
	c.fitness = GP_FIT_BOOL;
	c.ninputs = 2;
	c.ncases = 4;
	c.nwords = 1;
	c.bits = bits;
	c.target = &target;
	c.last_mask = 0xFu;
	hand_lgp(&h, code, 1, NULL, 0);
	expect_all(&h.pk, &c, 0.0, 0.0);
	hand_rpn(&h, rpn, 3);
	expect_all(&h.pk, &c, 0.0, 0.0);
	/* not(or) = nor: 1 only in case 0; vs target (case 3): 2 wrong; the
	 * 28 padding bits (all ones in the output) are masked off. */
	hand_lgp(&h, code2, 2, NULL, 0);
	expect_all(&h.pk, &c, 2.0, 0.0);
}

/* ---- random populations ------------------------------------------------------ */

typedef struct rand_pop {
	gp_tree *trees;
	int n;
	gp_packed rpn, lgp;
} rand_pop;

static void rand_pop_make(rand_pop *rp, const char *funcs, int ninputs, float cmin, float cmax,
			  int n, int maxdepth, uint64_t seed)
{
	rt_error err;
	gp_fset fs;
	gp_breed br = gp_breed_defaults();
	assert_int_equal(gp_fset_parse(&fs, funcs, ninputs, &err), RT_OK);
	if (cmin < cmax) {
		fs.use_consts = 1;
		fs.const_min = cmin;
		fs.const_max = cmax;
		fs.const_prob = 0.3;
	}
	br.init_min_depth = 1;
	br.init_max_depth = maxdepth;
	rp->n = n;
	rp->trees = calloc((size_t)n, sizeof *rp->trees);
	assert_non_null(rp->trees);
	assert_int_equal(gp_init_population(rp->trees, n, &fs, &br, seed, &err), RT_OK);
	gp_packed_init(&rp->rpn);
	gp_packed_init(&rp->lgp);
	assert_int_equal(gp_pack_rpn(&rp->rpn, rp->trees, n, &err), RT_OK);
	assert_int_equal(gp_pack_lgp(&rp->lgp, rp->trees, n, &err), RT_OK);
}

static void rand_pop_free(rand_pop *rp)
{
	for (int i = 0; i < rp->n; i++)
		gp_tree_free(&rp->trees[i]);
	free(rp->trees);
	gp_packed_free(&rp->rpn);
	gp_packed_free(&rp->lgp);
}

/* All methods, blocks and thread counts against rpn1d. */
static void agree_all(const rand_pop *rp, const gp_cases *c, int exact)
{
	static const int blocks[] = {64, 192, 1024};
	rt_error err;
	double *ref = malloc((size_t)rp->n * sizeof(double)), *f = malloc((size_t)rp->n * sizeof(double));
	double *f1 = malloc((size_t)rp->n * sizeof(double));
	int nonfinite = 0, finite = 0;
	assert_non_null(ref);
	assert_non_null(f);
	assert_non_null(f1);
	assert_int_equal(gp_eval_cpu(&rp->rpn, c, GP_EVAL_RPN1D, ref, &err), RT_OK);
	for (int p = 0; p < rp->n; p++)
		isinf(ref[p]) ? nonfinite++ : finite++;
	assert_true(finite > rp->n / 4);
	for (int m = GP_EVAL_LGP2D; m <= GP_EVAL_RPN2D; m++)
		for (int b = 0; b < 3; b++)
			for (int isa = 0; isa <= 1; isa++) {
				gp_eval_tuning tun = {blocks[b], 1, isa};
				const gp_packed *pk = m == GP_EVAL_LGP2D ? &rp->lgp : &rp->rpn;
				assert_int_equal(gp_eval_cpu_tuned(pk, c, m, &tun, f1, &err), RT_OK);
				tun.threads = 2;
				assert_int_equal(gp_eval_cpu_tuned(pk, c, m, &tun, f, &err), RT_OK);
				/* thread count: bit for bit */
				assert_memory_equal(f, f1, (size_t)rp->n * sizeof(double));
				for (int p = 0; p < rp->n; p++) {
					if (exact || isinf(ref[p]))
						assert_true(f[p] == ref[p]);
					else if (fabs(f[p] - ref[p]) > MSE_TOL * fabs(ref[p])) {
						print_error("program %d: %s %.17g vs rpn1d %.17g\n", p,
							    gp_eval_method_name(m), f[p], ref[p]);
						fail();
					}
				}
			}
	free(ref);
	free(f);
	free(f1);
}

static void random_mse(void **state)
{
	rand_pop rp;
	gp_cases c;
	rt_rng rng;
	(void)state;
	rand_pop_make(&rp, "+ - * / sin cos log exp", 3, -5.0f, 5.0f, 300, 6, 11);
	float_cases(&c, 3, 1000 + 7, GP_FIT_MSE);
	rt_rng_init(&rng, 5, 0);
	for (size_t i = 0; i < c.ncases; i++) {
		for (int k = 0; k < 3; k++)
			c.x[(size_t)k * c.stride + i] = (float)rt_rng_range(&rng, -3, 3);
		c.y[i] = (float)rt_rng_range(&rng, -1, 1);
	}
	/* some large arguments, for sin/cos's exact reduction */
	for (size_t i = 0; i < c.ncases; i += 37)
		c.x[i] = (float)rt_rng_range(&rng, -1e9, 1e9);
	agree_all(&rp, &c, 0);
	rand_pop_free(&rp);
	gp_cases_free(&c);
}

static void random_class(void **state)
{
	rand_pop rp;
	gp_cases c;
	rt_rng rng;
	(void)state;
	rand_pop_make(&rp, "* / + - > < == AND OR IF", 4, -3.0f, 3.0f, 300, 6, 12);
	float_cases(&c, 4, 777, GP_FIT_CLASS);
	c.nclasses = 4;
	rt_rng_init(&rng, 6, 0);
	for (size_t i = 0; i < c.ncases; i++) {
		for (int k = 0; k < 4; k++)
			c.x[(size_t)k * c.stride + i] = (float)rt_rng_below(&rng, 5) - 1.0f;
		c.y[i] = (float)rt_rng_below(&rng, 4);
	}
	agree_all(&rp, &c, 1);
	rand_pop_free(&rp);
	gp_cases_free(&c);
}

static void random_bool(void **state)
{
	rand_pop rp;
	gp_cases c;
	rt_error err;
	(void)state;
	rand_pop_make(&rp, "and or nand nor not if", 11, 0, 0, 300, 6, 13);
	assert_int_equal(gp_cases_multiplexer(&c, 3, &err), RT_OK);   /* 11-mux: 64 words */
	agree_all(&rp, &c, 1);
	/* a case count that is not a multiple of 32: first 1000 cases */
	c.ncases = 1000;
	c.nwords = 32;
	c.last_mask = (1u << (1000 % 32)) - 1;
	agree_all(&rp, &c, 1);
	rand_pop_free(&rp);
	gp_cases_free(&c);
}

/* Case counts around the block and vector sizes. */
static void odd_counts(void **state)
{
	static const size_t counts[] = {1, 2, 63, 64, 65, 129, 511, 513, 4097};
	rand_pop rp;
	(void)state;
	rand_pop_make(&rp, "+ - * / sin cos", 2, -2.0f, 2.0f, 60, 5, 14);
	for (size_t k = 0; k < sizeof counts / sizeof counts[0]; k++) {
		gp_cases c;
		rt_rng rng;
		float_cases(&c, 2, counts[k], GP_FIT_MSE);
		rt_rng_init(&rng, 7, k);
		for (size_t i = 0; i < c.ncases; i++) {
			c.x[i] = (float)rt_rng_range(&rng, -2, 2);
			c.x[c.stride + i] = (float)rt_rng_range(&rng, -2, 2);
			c.y[i] = (float)rt_rng_range(&rng, -2, 2);
		}
		agree_all(&rp, &c, 0);
		gp_cases_free(&c);
	}
	rand_pop_free(&rp);
}

/* ---- linear scaling ------------------------------------------------------------- */

/* The scaled MSE of one program recomputed in float64, two passes, from
 * its outputs and the original targets; *a, *b its line. */
static double scaled_mse_f64(const gp_tree *t, const gp_cases *c, double *a, double *b)
{
	rt_error err;
	gp_packed pk;
	size_t n = c->ncases;
	float *out = malloc(n * sizeof *out);
	assert_non_null(out);
	gp_packed_init(&pk);
	assert_int_equal(gp_pack_lgp(&pk, t, 1, &err), RT_OK);
	assert_int_equal(gp_eval_cpu_outputs(&pk, c, out, &err), RT_OK);
	gp_packed_free(&pk);
	double mf = 0, my = 0, sff = 0, sfy = 0, f2 = 0, sse = 0;
	for (size_t i = 0; i < n; i++) {
		mf += out[i];
		my += c->y[i];
		f2 += (double)out[i] * out[i];
	}
	mf /= (double)n;
	my /= (double)n;
	for (size_t i = 0; i < n; i++) {
		sff += (out[i] - mf) * (out[i] - mf);
		sfy += (out[i] - mf) * (c->y[i] - my);
	}
	*b = isfinite(mf) && sff > 1e-12 * f2 ? sfy / sff : 0.0;
	*a = my - *b * (*b != 0.0 ? mf : 0.0);
	for (size_t i = 0; i < n; i++) {
		/* y - (a + b f), written without a + b f's cancellation */
		double r = (c->y[i] - my) - *b * (out[i] - mf);
		sse += r * r;
	}
	free(out);
	return isfinite(mf) && isfinite(f2) ? sse / (double)n : INFINITY;
}

static void random_scaled(void **state)
{
	rand_pop rp;
	gp_cases c;
	rt_rng rng;
	rt_error err;
	(void)state;
	rand_pop_make(&rp, "+ - * / sin cos log exp", 3, -5.0f, 5.0f, 300, 6, 21);
	float_cases(&c, 3, 3000 + 11, GP_FIT_MSE);
	rt_rng_init(&rng, 9, 0);
	for (size_t i = 0; i < c.ncases; i++) {
		for (int k = 0; k < 3; k++)
			c.x[(size_t)k * c.stride + i] = (float)rt_rng_range(&rng, -3, 3);
		float x0 = c.x[i];
		c.y[i] = (float)(100.0 + 7.0 * x0 * x0 + rt_rng_range(&rng, -1, 1));
	}
	assert_int_equal(gp_scale_prepare(&c, &err), RT_OK);
	double var = c.syy / (double)c.ncases;
	agree_all(&rp, &c, 0);   /* every method and tuning against rpn1d */
	double *fit = malloc((size_t)rp.n * sizeof *fit);
	assert_non_null(fit);
	assert_int_equal(gp_eval_cpu(&rp.lgp, &c, GP_EVAL_LGP2D, fit, &err), RT_OK);
	gp_cases bare = c;   /* the same cases, unscaled: what a rewritten tree scores */
	bare.scale = 0;
	int checked = 0, lines = 0;
	for (int p = 0; p < rp.n; p++) {
		double a, b, a2, b2, want = scaled_mse_f64(&rp.trees[p], &c, &a, &b);
		if (isinf(want)) {
			assert_true(isinf(fit[p]));
			continue;
		}
		if (fabs(fit[p] - want) > 1e-9 * fmax(want, var)) {
			print_error("program %d: scaled fitness %.17g, float64 %.17g\n", p, fit[p], want);
			fail();
		}
		assert_true(fit[p] <= var * (1 + 1e-9));   /* never worse than the mean */
		assert_int_equal(gp_scale_coeffs(&rp.trees[p], &c, &a2, &b2, &err), RT_OK);
		assert_true(fabs(b2 - b) <= 1e-6 * fabs(b) + 1e-12);
		assert_true(fabs(a2 - a) <= 1e-6 * (fabs(a) + 1));
		lines += b != 0.0;
		/* the rewritten tree (+ a * b f, float a and b) scores the fitness */
		gp_tree t = {0};
		gp_packed pk;
		double g;
		gp_packed_init(&pk);
		assert_int_equal(gp_tree_copy(&t, &rp.trees[p], &err), RT_OK);
		assert_int_equal(gp_scale_wrap(&t, (float)a2, (float)b2, &err), RT_OK);
		assert_int_equal(gp_pack_lgp(&pk, &t, 1, &err), RT_OK);
		assert_int_equal(gp_eval_cpu(&pk, &bare, GP_EVAL_LGP2D, &g, &err), RT_OK);
		if (isfinite(g) && fabs(g - fit[p]) > 1e-4 * fmax(fit[p], var)) {
			print_error("program %d: rewritten tree's mse %.9g, scaled fitness %.9g\n", p, g,
				    fit[p]);
			fail();
		}
		gp_tree_free(&t);
		gp_packed_free(&pk);
		checked++;
	}
	assert_true(checked > rp.n / 2);
	assert_true(lines > rp.n / 4);
	free(fit);
	rand_pop_free(&rp);
	gp_cases_free(&c);
}

/* y = 3 + 5 x^2: the program x*x scales to a perfect fit, a = 3, b = 5; a
 * constant program scores var y with b = 0, a = mean y. */
static void scaled_known(void **state)
{
	rt_error err;
	gp_cases c;
	gp_packed pk;
	gp_tree sq = {0}, k = {0};
	gp_node sqn[3] = {gp_fn(GP_OP_MUL), gp_var(0), gp_var(0)};
	gp_node kn[3] = {gp_fn(GP_OP_ADD), gp_var(0), gp_var(0)};
	double f, a, b, mean = 0;
	(void)state;
	kn[1].op = kn[2].op = GP_TERM_CONST;
	kn[1].value = 2.0f;
	float_cases(&c, 1, 517, GP_FIT_MSE);
	for (size_t i = 0; i < c.ncases; i++) {
		c.x[i] = -2.0f + 4.0f * (float)i / (float)c.ncases;
		c.y[i] = 3.0f + 5.0f * c.x[i] * c.x[i];
		mean += c.y[i];
	}
	mean /= (double)c.ncases;
	assert_int_equal(gp_scale_prepare(&c, &err), RT_OK);
	assert_int_equal(gp_tree_set(&sq, sqn, 3, &err), RT_OK);
	assert_int_equal(gp_tree_set(&k, kn, 3, &err), RT_OK);
	gp_packed_init(&pk);
	assert_int_equal(gp_pack_lgp(&pk, &sq, 1, &err), RT_OK);
	assert_int_equal(gp_eval_cpu(&pk, &c, GP_EVAL_LGP2D, &f, &err), RT_OK);
	assert_true(f < 1e-10 * c.syy / (double)c.ncases);
	assert_int_equal(gp_scale_coeffs(&sq, &c, &a, &b, &err), RT_OK);
	assert_true(fabs(a - 3.0) < 1e-5 && fabs(b - 5.0) < 1e-6);
	assert_int_equal(gp_pack_lgp(&pk, &k, 1, &err), RT_OK);
	assert_int_equal(gp_eval_cpu(&pk, &c, GP_EVAL_RPN2D - 1, &f, &err), RT_OK);
	assert_true(fabs(f - c.syy / (double)c.ncases) <= 1e-12 * f);
	assert_int_equal(gp_scale_coeffs(&k, &c, &a, &b, &err), RT_OK);
	assert_true(b == 0.0 && fabs(a - mean) < 1e-9 * mean);
	assert_int_equal(gp_scale_best(&c, &k, NULL, NULL, &err), RT_OK);
	assert_int_equal(k.n, 3);   /* + a 0 */
	assert_true(k.nodes[0].op == GP_OP_ADD && k.nodes[1].value == (float)a);
	gp_packed_free(&pk);
	gp_tree_free(&sq);
	gp_tree_free(&k);
	gp_cases_free(&c);
}

/* Adversarial programs for linear scaling: outputs whose mean is large
 * beside their spread (raw sums of f and f^2 cancel catastrophically),
 * outputs over many orders of magnitude, near-constant and constant
 * outputs. Every CPU evaluator, block size, thread count and ISA must give
 * the float64 two-pass result within 1e-9 of max(fitness, var y). */
typedef struct adv_prog {
	const char *name;
	gp_node nodes[12];
	int n;
} adv_prog;

static const adv_prog *adv_progs(int *count)
{
	static adv_prog p[8];
	int k = 0;
	p[k++] = (adv_prog){"x + 1e4", {gp_fn(GP_OP_ADD), gp_var(0), gp_const(1e4f)}, 3};
	p[k++] = (adv_prog){"1e6 x + 1e9",
			    {gp_fn(GP_OP_ADD), gp_fn(GP_OP_MUL), gp_const(1e6f), gp_var(0),
			     gp_const(1e9f)}, 5};
	p[k++] = (adv_prog){"1e3 x + 1e9",
			    {gp_fn(GP_OP_ADD), gp_fn(GP_OP_MUL), gp_const(1e3f), gp_var(0),
			     gp_const(1e9f)}, 5};
	p[k++] = (adv_prog){"exp(x1)", {gp_fn(GP_OP_EXP), gp_var(1)}, 2};
	p[k++] = (adv_prog){"cube(x + 300)",
			    {gp_fn(GP_OP_CUBE), gp_fn(GP_OP_ADD), gp_var(0), gp_const(300.0f)}, 4};
	p[k++] = (adv_prog){"pow4(x + 50) + 1e8",
			    {gp_fn(GP_OP_ADD), gp_fn(GP_OP_POW4), gp_fn(GP_OP_ADD), gp_var(0),
			     gp_const(50.0f), gp_const(1e8f)}, 6};
	p[k++] = (adv_prog){"1 + 1e-7 x (near constant)",
			    {gp_fn(GP_OP_ADD), gp_const(1.0f), gp_fn(GP_OP_MUL), gp_const(1e-7f),
			     gp_var(0)}, 5};
	p[k++] = (adv_prog){"5 + 0 x (constant)",
			    {gp_fn(GP_OP_ADD), gp_const(5.0f), gp_fn(GP_OP_MUL), gp_const(0.0f),
			     gp_var(0)}, 5};
	*count = k;
	return p;
}

/* Every CPU method and tuning on tree t against want. */
static void adv_check(const gp_tree *t, const gp_cases *c, const char *name, double want)
{
	static const int blocks[] = {64, 192, 1024};
	rt_error err;
	gp_packed rpn, lgp;
	double var = c->syy / (double)c->ncases, f;
	gp_packed_init(&rpn);
	gp_packed_init(&lgp);
	assert_int_equal(gp_pack_rpn(&rpn, t, 1, &err), RT_OK);
	assert_int_equal(gp_pack_lgp(&lgp, t, 1, &err), RT_OK);
	assert_int_equal(gp_eval_cpu(&rpn, c, GP_EVAL_RPN1D, &f, &err), RT_OK);
	if (!(fabs(f - want) <= 1e-9 * fmax(want, var))) {
		print_error("%s: rpn1d %.17g, float64 two-pass %.17g\n", name, f, want);
		fail();
	}
	for (int m = GP_EVAL_LGP2D; m <= GP_EVAL_RPN2D; m++)
		for (int b = 0; b < 3; b++)
			for (int th = 1; th <= 2; th++)
				for (int isa = 0; isa <= 1; isa++) {
					gp_eval_tuning tun = {blocks[b], th, isa};
					const gp_packed *pk = m == GP_EVAL_LGP2D ? &lgp : &rpn;
					assert_int_equal(gp_eval_cpu_tuned(pk, c, m, &tun, &f, &err), RT_OK);
					if (!(fabs(f - want) <= 1e-9 * fmax(want, var))) {
						print_error("%s: %s block %d, %d threads: %.17g, float64 %.17g\n",
							    name, gp_eval_method_name(m), blocks[b], th, f, want);
						fail();
					}
				}
	gp_packed_free(&rpn);
	gp_packed_free(&lgp);
}

static void scaled_adversarial(void **state)
{
	static const size_t counts[] = {20011, 1000, 3};
	rt_rng rng;
	rt_error err;
	int np;
	const adv_prog *progs = adv_progs(&np);
	(void)state;
	for (size_t ci = 0; ci < sizeof counts / sizeof counts[0]; ci++)
		for (int ys = 0; ys < 2; ys++) {   /* y near 0, y with a large mean */
			gp_cases c;
			float_cases(&c, 2, counts[ci], GP_FIT_MSE);
			rt_rng_init(&rng, 31 + ci * 2 + (size_t)ys, 0);
			for (size_t i = 0; i < c.ncases; i++) {
				float x0 = (float)rt_rng_range(&rng, -3, 3);
				c.x[i] = x0;
				c.x[c.stride + i] = (float)rt_rng_range(&rng, -30, 30);
				c.y[i] = (float)((ys ? 1e5 : 2.0) + 3.0 * x0 + 0.5 * x0 * x0 +
						 rt_rng_range(&rng, -0.1, 0.1));
			}
			assert_int_equal(gp_scale_prepare(&c, &err), RT_OK);
			for (int p = 0; p < np; p++) {
				gp_tree t = {0};
				double a, b;
				assert_int_equal(gp_tree_set(&t, progs[p].nodes, progs[p].n, &err), RT_OK);
				double want = scaled_mse_f64(&t, &c, &a, &b);
				assert_true(isfinite(want));
				adv_check(&t, &c, progs[p].name, want);
				if (p >= np - 2)   /* (near) constant: b = 0, the variance of y */
					assert_true(b == 0.0);
				gp_tree_free(&t);
			}
			gp_cases_free(&c);
		}
}

/* The GPU's reduction emulated on the CPU with the same functions
 * (gp_fitness.h): chunks of `chunk` cases, each shifted by its first
 * output, `threads` interleaved per-thread sums added in order
 * (gpg_block_sum's shape), gp_ls_moments per chunk and gp_ls_merge over
 * the chunks in order, against the float64 two-pass result and against
 * one shift over everything (gp_scale_moments). */
static double emulate_gpu(const float *f, const float *y, size_t n, double ymean, size_t chunk,
			  int threads, double syc, double syy)
{
	double m[GP_LS_NM] = {0, 0, 0, 0, 0}, part[GP_LS_NM], t[64][4];
	for (size_t c0 = 0; c0 < n; c0 += chunk) {
		size_t end = c0 + chunk < n ? c0 + chunk : n;
		double k = (double)f[c0], s[4] = {0, 0, 0, 0};
		memset(t, 0, sizeof t);
		for (size_t i = c0; i < end; i++)
			gp_ls_acc(t[(i - c0) % (size_t)threads], (double)f[i], (double)y[i] - ymean, k);
		for (int th = 0; th < threads; th++)
			for (int j = 0; j < 4; j++)
				s[j] += t[th][j];
		gp_ls_moments((double)(end - c0), k, s, part);
		gp_ls_merge(m, part);
	}
	double empty[GP_LS_NM] = {0, 0, 0, 0, 0};
	gp_ls_merge(m, empty);   /* an empty chunk changes nothing */
	assert_true(m[0] == (double)n);
	return gp_ls_mse(m, syc, syy, (double)n);
}

static void scaled_chunk_merge(void **state)
{
	static const size_t chunks[] = {1, 7, 1024, 4096, 100000};
	static const double offsets[] = {0.0, 1e4, 1e7, -3e8};
	const size_t n = 30011;
	float *f = malloc(n * sizeof *f), *y = malloc(n * sizeof *y);
	rt_rng rng;
	(void)state;
	assert_non_null(f);
	assert_non_null(y);
	rt_rng_init(&rng, 77, 0);
	for (size_t oi = 0; oi < sizeof offsets / sizeof offsets[0]; oi++) {
		double ymean = 0, syc = 0, syy = 0, mf = 0, sff = 0, sfy = 0, f2 = 0;
		for (size_t i = 0; i < n; i++) {
			double x = rt_rng_range(&rng, -1, 1);
			f[i] = (float)(offsets[oi] + 100.0 * x);
			y[i] = (float)(10.0 + 4.0 * x + rt_rng_range(&rng, -0.5, 0.5));
			ymean += y[i];
		}
		ymean /= (double)n;
		for (size_t i = 0; i < n; i++) {
			syc += y[i] - ymean;
			syy += (y[i] - ymean) * (y[i] - ymean);
			mf += f[i];
		}
		mf /= (double)n;
		for (size_t i = 0; i < n; i++) {
			sff += (f[i] - mf) * (f[i] - mf);
			sfy += (f[i] - mf) * (y[i] - ymean);
			f2 += (double)f[i] * f[i];
		}
		double b = sff > 1e-12 * f2 ? sfy / sff : 0.0, var = syy / (double)n;
		double want = (syy - syc * syc / (double)n - b * sfy) / (double)n;
		double one[GP_LS_NM];
		gp_scale_moments(f, y, ymean, n, one);
		double whole = gp_ls_mse(one, syc, syy, (double)n);
		assert_true(fabs(whole - want) <= 1e-9 * fmax(want, var));
		for (size_t ci = 0; ci < sizeof chunks / sizeof chunks[0]; ci++)
			for (int threads = 1; threads <= 64; threads *= 8) {
				double got = emulate_gpu(f, y, n, ymean, chunks[ci], threads, syc, syy);
				if (!(fabs(got - want) <= 1e-9 * fmax(want, var)) ||
				    !(fabs(got - whole) <= 1e-9 * fmax(want, var))) {
					print_error("offset %g, chunk %zu, %d threads: %.17g, two-pass %.17g, "
						    "one shift %.17g\n", offsets[oi], chunks[ci], threads, got,
						    want, whole);
					fail();
				}
			}
	}
	/* constant outputs: M2 exactly 0 in every chunk and after merging, b = 0 */
	for (size_t i = 0; i < n; i++)
		f[i] = 12345.678f;
	double m[GP_LS_NM] = {0, 0, 0, 0, 0}, part[GP_LS_NM];
	for (size_t c0 = 0; c0 < n; c0 += 1000) {
		double s[4] = {0, 0, 0, 0};
		size_t end = c0 + 1000 < n ? c0 + 1000 : n;
		for (size_t i = c0; i < end; i++)
			gp_ls_acc(s, (double)f[i], (double)y[i], (double)f[c0]);
		gp_ls_moments((double)(end - c0), (double)f[c0], s, part);
		gp_ls_merge(m, part);
	}
	assert_true(m[3] == 0.0 && m[1] == (double)12345.678f && gp_ls_slope(m) == 0.0);
	/* a NaN or infinite output: +inf */
	f[5] = INFINITY;
	double one[GP_LS_NM];
	gp_scale_moments(f, y, 0.0, n, one);
	assert_true(isinf(gp_ls_mse(one, 0.0, 1.0, (double)n)) && gp_ls_slope(one) == 0.0);
	f[5] = NAN;
	gp_scale_moments(f, y, 0.0, n, one);
	assert_true(isinf(gp_ls_mse(one, 0.0, 1.0, (double)n)));
	free(f);
	free(y);
}

/* ---- errors --------------------------------------------------------------------- */

static void rejects_bad(void **state)
{
	hand_pop h;
	gp_cases c;
	rt_error err;
	double f;
	gp_insn ok[1] = {insn(GP_OP_ADD, GP_SRC_X, 0, GP_SRC_X, 0, 0, 0)};
	gp_insn underflow[1] = {insn(GP_OP_ADD, GP_SRC_S, 0, GP_SRC_X, 0, 0, 0)};
	gp_insn badx[1] = {insn(GP_OP_ADD, GP_SRC_X, 5, GP_SRC_X, 0, 0, 0)};
	gp_insn badc[1] = {insn(GP_OP_ADD, GP_SRC_C, 0, GP_SRC_X, 0, 0, 0)};
	gp_insn boolop[1] = {insn(GP_OP_BAND, GP_SRC_X, 0, GP_SRC_X, 0, 0, 0)};
	gp_insn badkind[1] = {insn(GP_OP_ADD, 3, 0, GP_SRC_X, 0, 0, 0)};
	gp_insn leftover[2] = {insn(GP_OP_ADD, GP_SRC_X, 0, GP_SRC_X, 0, 0, 0),
			       insn(GP_OP_ADD, GP_SRC_X, 0, GP_SRC_X, 0, 0, 0)};
	gp_node rpn_under[2] = {gp_var(0), gp_fn(GP_OP_ADD)};
	(void)state;
	float_cases(&c, 1, 10, GP_FIT_MSE);
	hand_lgp(&h, ok, 1, NULL, 0);
	assert_int_equal(gp_eval_cpu(&h.pk, &c, GP_EVAL_LGP2D, &f, &err), RT_OK);
	assert_int_equal(gp_eval_cpu(&h.pk, &c, GP_EVAL_RPN1D, &f, &err), RT_ERR_INPUT);
	assert_non_null(strstr(err.msg, "RPN"));
	hand_lgp(&h, underflow, 1, NULL, 0);
	assert_int_equal(gp_eval_cpu(&h.pk, &c, GP_EVAL_LGP2D, &f, &err), RT_ERR_INPUT);
	assert_non_null(strstr(err.msg, "underflow"));
	hand_lgp(&h, badx, 1, NULL, 0);
	assert_int_equal(gp_eval_cpu(&h.pk, &c, GP_EVAL_LGP2D, &f, &err), RT_ERR_INPUT);
	assert_non_null(strstr(err.msg, "X5"));
	hand_lgp(&h, badc, 1, NULL, 0);
	assert_int_equal(gp_eval_cpu(&h.pk, &c, GP_EVAL_LGP2D, &f, &err), RT_ERR_INPUT);
	hand_lgp(&h, boolop, 1, NULL, 0);
	assert_int_equal(gp_eval_cpu(&h.pk, &c, GP_EVAL_LGP2D, &f, &err), RT_ERR_INPUT);
	assert_non_null(strstr(err.msg, "float"));
	hand_lgp(&h, badkind, 1, NULL, 0);
	assert_int_equal(gp_eval_cpu(&h.pk, &c, GP_EVAL_LGP2D, &f, &err), RT_ERR_INPUT);
	hand_lgp(&h, leftover, 2, NULL, 0);
	assert_int_equal(gp_eval_cpu(&h.pk, &c, GP_EVAL_LGP2D, &f, &err), RT_ERR_INPUT);
	assert_non_null(strstr(err.msg, "2 values"));
	h.code[0].op = 200;
	assert_int_equal(gp_eval_cpu(&h.pk, &c, GP_EVAL_LGP2D, &f, &err), RT_ERR_INPUT);
	hand_rpn(&h, rpn_under, 2);
	assert_int_equal(gp_eval_cpu(&h.pk, &c, GP_EVAL_RPN1D, &f, &err), RT_ERR_INPUT);
	assert_int_equal(gp_eval_cpu(&h.pk, &c, GP_EVAL_RPN2D, &f, &err), RT_ERR_INPUT);
	/* bad tuning and method */
	hand_lgp(&h, ok, 1, NULL, 0);
	{
		gp_eval_tuning tun = {100, 1, 0};
		assert_int_equal(gp_eval_cpu_tuned(&h.pk, &c, GP_EVAL_LGP2D, &tun, &f, &err),
				 RT_ERR_INPUT);
	}
	assert_int_equal(gp_eval_cpu(&h.pk, &c, 17, &f, &err), RT_ERR_INPUT);
	gp_cases_free(&c);
	assert_int_equal(gp_eval_method_parse("lgp2d", &(int){0}, &err), RT_OK);
	assert_int_equal(gp_eval_method_parse("lgp3d", &(int){0}, &err), RT_ERR_INPUT);
}

/* ---- gp_math.h accuracy --------------------------------------------------------- */

static double ulps(float got, double want)
{
	float w = (float)want;
	double u;
	int e;
	if (isnan(want))
		return isnan(got) ? 0.0 : 1e9;
	if (isinf(w))
		return got == w ? 0.0 : 1e9;
	if (w == 0.0f)
		u = 0x1p-149;
	else {
		frexp(w, &e);
		u = ldexp(1.0, e - 24);
		if (u < 0x1p-149)
			u = 0x1p-149;
	}
	return fabs((double)got - want) / u;
}

static void math_accuracy(void **state)
{
	rt_rng rng;
	double worst[4] = {0, 0, 0, 0}, worst_tanh = 0;
	(void)state;
	rt_rng_init(&rng, 99, 0);
	for (int i = 0; i < 400000; i++) {
		uint32_t u = rt_rng_u32(&rng);
		float x;
		memcpy(&x, &u, sizeof x);
		if (i & 1)
			x = (float)rt_rng_range(&rng, -100, 100);
		double e[4] = {ulps(gp_sinf(x), sin((double)x)), ulps(gp_cosf(x), cos((double)x)),
			       ulps(gp_expf(x), exp((double)x)), ulps(gp_logf(x), log((double)x))};
		for (int k = 0; k < 4; k++)
			if (e[k] > worst[k])
				worst[k] = e[k];
		float xt = (i & 2) ? x : (float)rt_rng_range(&rng, -3, 3);
		worst_tanh = fmax(worst_tanh, ulps(gp_tanhf(xt), tanh((double)xt)));
	}
	print_message("gp_math ulp error: tanh %.2f\n", worst_tanh);
	assert_true(worst_tanh <= 4.0);
	assert_true(isnan(gp_tanhf(NAN)) && gp_tanhf(1.0f / 0.0f) == 1.0f && gp_tanhf(-50.0f) == -1.0f);
	print_message("gp_math ulp errors: sin %.2f cos %.2f exp %.2f log %.2f\n", worst[0],
		      worst[1], worst[2], worst[3]);
	assert_true(worst[0] <= 2.0 && worst[1] <= 2.0);
	assert_true(worst[2] <= 1.5 && worst[3] <= 1.0);
	/* special values */
	assert_true(isnan(gp_sinf(1.0f / 0.0f)) && isnan(gp_cosf(-1.0f / 0.0f)));
	assert_true(gp_sinf(-0.0f) == 0.0f && gp_cosf(0.0f) == 1.0f);   /* sign of zero: not kept */
	assert_true(gp_expf(-1000.0f) == 0.0f && isinf(gp_expf(100.0f)) && isnan(gp_expf(NAN)));
	assert_true(isinf(gp_logf(0.0f)) && gp_logf(0.0f) < 0 && isnan(gp_logf(-1.0f)));
	assert_true(isinf(gp_logf(1.0f / 0.0f)) && gp_logf(1.0f) == 0.0f);
	assert_true(fabs(gp_logf(0x1p-140f) - log(0x1p-140)) < 1e-5);
}

/* ---- generated interpreters --------------------------------------------------- */

/* The specialised CPU interpreter: only the problem's functions are enabled,
 * and the generated file compiles as C11 on its own for every seed problem's
 * function set. (The GPU interpreters are tested in test_gp_gpu.c.) */
static void gen_compiles(void **state)
{
	static const struct {
		int fitness;
		const char *funcs;
	} cfgs[] = {
		{GP_FIT_MSE, "+ - * /"},                                        /* sextic */
		{GP_FIT_CLASS, "* / + - > < == AND OR IF"},                     /* shuttle */
		{GP_FIT_CLASS, "+ - * / > < == AND OR IF sin cos log exp"},     /* kdd */
		{GP_FIT_BOOL, "and or not if"},                                 /* mux20 */
		{GP_FIT_MSE, "+ - * / sqrt square cube pow4 tanh abs aq pi e"}, /* symbolic regression */
	};
	char dir[] = "/tmp/evoforge-gpgen-XXXXXX";
	rt_error err;
	unsigned char use[GP_OP_COUNT];
	gp_gen_config cfg;
	(void)state;
	assert_non_null(mkdtemp(dir));
	gp_gen_config_default(&cfg);
	for (size_t k = 0; k < sizeof cfgs / sizeof cfgs[0]; k++) {
		gen_source c;
		gp_fset fs;
		char cmd[1024];
		assert_int_equal(gp_fset_parse(&fs, cfgs[k].funcs, 4, &err), RT_OK);
		memset(use, 0, sizeof use);
		for (int i = 0; i < fs.nfuncs; i++)
			use[fs.funcs[i]] = 1;
		gen_begin(&c, "gp_eval_cpu-test.c", "test");
		assert_int_equal(gp_gen_render("test", use, cfgs[k].fitness, &cfg, &c, &err), RT_OK);
		if (k == 0) {
			assert_non_null(strstr(c.text.data, "#define GP_USE_ADD 1"));
			assert_non_null(strstr(c.text.data, "#define GP_USE_COS 0"));
		}
		assert_int_equal(gen_write(&c, dir, &err), RT_OK);
		snprintf(cmd, sizeof cmd,
			 "cc -std=c11 -O1 -Wall -Wextra -Werror -c %s/gp_eval_cpu-test.c -o %s/x.o", dir,
			 dir);
		if (system(cmd) != 0)
			fail_msg("generated CPU interpreter for '%s' does not compile: %s", cfgs[k].funcs,
				 cmd);
		gen_free(&c);
	}
	/* Bad requests */
	memset(use, 0, sizeof use);
	use[GP_OP_BAND] = 1;
	assert_int_equal(gp_gen_render("test", use, GP_FIT_MSE, &cfg, NULL, &err), RT_ERR_INPUT);
	memset(use, 0, sizeof use);
	assert_int_equal(gp_gen_render("test", use, GP_FIT_MSE, &cfg, NULL, &err), RT_ERR_INPUT);
	use[GP_OP_ADD] = 1;
	cfg.max_stack = 0;
	assert_int_equal(gp_gen_render("test", use, GP_FIT_MSE, &cfg, NULL, &err), RT_ERR_INPUT);
	char rm[128];
	snprintf(rm, sizeof rm, "rm -rf %s", dir);
	assert_int_equal(system(rm), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(known_square),
		cmocka_unit_test(known_shapes),
		cmocka_unit_test(known_class),
		cmocka_unit_test(nan_is_inf),
		cmocka_unit_test(known_bool),
		cmocka_unit_test(random_mse),
		cmocka_unit_test(random_class),
		cmocka_unit_test(random_bool),
		cmocka_unit_test(odd_counts),
		cmocka_unit_test(random_scaled),
		cmocka_unit_test(scaled_known),
		cmocka_unit_test(scaled_adversarial),
		cmocka_unit_test(scaled_chunk_merge),
		cmocka_unit_test(rejects_bad),
		cmocka_unit_test(math_accuracy),
		cmocka_unit_test(gen_compiles),
	};
	return cmocka_run_group_tests_name("gp_eval", tests, NULL, NULL);
}
