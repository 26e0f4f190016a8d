/* test_gp_size.c: program size and constants in kind gp: parsimony pressure
 * in tournament selection (lexicographic, penalty), the default constant
 * range of csv problems, `constants = none`, the [gp] keys' errors, and the
 * Levenberg-Marquardt constant optimiser (gp_constopt.h): known constants
 * recovered with and without linear scaling, named constants kept, top-k in
 * a run. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "gp/gp.h"
#include "gp/gp_constopt.h"
#include "gp/gp_conv.h"
#include "gp/gp_eval.h"
#include "gp/gp_problem.h"
#include "gp/gp_scale.h"
#include "gp/gp_tree.h"
#include "out.h"
#include "rng.h"
#include "spec.h"
#include "../test_tmp.h"

/* ---- helpers ---------------------------------------------------------------- */

static rt_status load_text(rt_spec *spec, const char *text, gp_problem *p, rt_error *err)
{
	memset(spec, 0, sizeof *spec);
	memset(p, 0, sizeof *p);
	if (rt_spec_load_text(spec, "t.ini", text, err))
		return err->status;
	return gp_problem_load(spec, p, err);
}

/* A tree of n nodes: (+ x (+ x ... x)) with (n - 1) / 2 additions (n odd). */
static void chain(gp_tree *t, int n)
{
	rt_error err = {0};
	gp_node nodes[64];
	int k = 0;
	for (int i = 0; i < (n - 1) / 2; i++)
		nodes[k++] = gp_fn(GP_OP_ADD), nodes[k++] = gp_var(0);
	nodes[k++] = gp_var(0);
	assert_int_equal(gp_tree_set(t, nodes, k, &err), RT_OK);
}

/* The tournament's winner computed again from the same draws: by
 * `key` (lower wins; ties to the earlier draw). */
typedef double (*sel_key)(const double *fit, const gp_tree *pop, int i, double c);

static double key_raw(const double *fit, const gp_tree *pop, int i, double c)
{
	(void)pop, (void)c;
	return fit[i];
}

static double key_penalty(const double *fit, const gp_tree *pop, int i, double c)
{
	return fit[i] + c * pop[i].n;
}

static int reference_winner(const double *fit, const gp_tree *pop, int n, int size, int lexi,
			    sel_key key, double c, rt_rng *rng)
{
	int best = (int)rt_rng_below(rng, (uint32_t)n);
	for (int k = 1; k < size; k++) {
		int d = (int)rt_rng_below(rng, (uint32_t)n);
		double kd = key(fit, pop, d, c), kb = key(fit, pop, best, c);
		if (kd < kb || (lexi && kd == kb && pop[d].n < pop[best].n))
			best = d;
	}
	return best;
}

/* ---- parsimony ---------------------------------------------------------------- */

/* Lexicographic: equal fitness goes to the smaller program; better fitness
 * still wins whatever its size. */
static void lexicographic_tournament(void **state)
{
	(void)state;
	enum { N = 6 };
	gp_tree pop[N] = {{0}};
	static const int sizes[N] = {9, 3, 7, 5, 11, 1 + 2 * 20};
	static const double fit[N] = {2.0, 2.0, 2.0, 3.0, 2.0, 1.0};
	for (int i = 0; i < N; i++)
		chain(&pop[i], sizes[i]);
	gp_breed br = gp_breed_defaults();
	br.parsimony = GP_PARSIMONY_LEXICOGRAPHIC;
	/* Tournament of the equal-fitness trio 0, 1, 2 with replacement: whenever
	 * the drawn programs have equal fitness the smallest wins. */
	rt_rng a, b;
	rt_rng_init(&a, 7, 0);
	int small_wins = 0, big_loses = 0;
	for (int it = 0; it < 2000; it++) {
		br.tournament = 1 + it % 5;
		b = a;
		int got = gp_tournament_parsimony(fit, pop, N, &br, &a);
		int want = reference_winner(fit, pop, N, br.tournament, 1, key_raw, 0, &b);
		assert_int_equal(got, want);
		assert_memory_equal(&a, &b, sizeof a);   /* the same draws */
		small_wins += got == 1;
		big_loses += got == 5;
	}
	assert_true(small_wins > 0 && big_loses > 0);
	/* Explicit case: all of {0, 1, 2, 4} drawn (fitness 2): the winner is 1 (3 nodes). */
	double f2[4] = {2.0, 2.0, 2.0, 2.0};
	gp_tree p4[4] = {pop[0], pop[2], pop[1], pop[4]};
	br.tournament = 200;
	rt_rng_init(&a, 1, 1);
	assert_int_equal(gp_tournament_parsimony(f2, p4, 4, &br, &a), 2);
	/* Elite and reported best: lowest fitness, then smallest. */
	assert_int_equal(gp_best_index_parsimony(f2, p4, 4, &br), 2);
	assert_int_equal(gp_best_index_parsimony(fit, pop, N, &br), 5);
	br.parsimony = GP_PARSIMONY_NONE;
	assert_int_equal(gp_best_index_parsimony(f2, p4, 4, &br), 0);
	/* none is gp_tournament, draw for draw. */
	rt_rng_init(&a, 3, 0);
	rt_rng_init(&b, 3, 0);
	for (int it = 0; it < 500; it++) {
		br.tournament = 1 + it % 7;
		assert_int_equal(gp_tournament_parsimony(fit, pop, N, &br, &a),
				 gp_tournament(fit, N, br.tournament, &b));
	}
	for (int i = 0; i < N; i++)
		gp_tree_free(&pop[i]);
}

/* Penalty: fitness + c x size orders the programs; the coefficient decides. */
static void penalty_tournament(void **state)
{
	(void)state;
	gp_tree pop[2] = {{0}};
	chain(&pop[0], 21);
	chain(&pop[1], 3);
	double fit[2] = {1.0, 1.05};
	gp_breed br = gp_breed_defaults();
	br.parsimony = GP_PARSIMONY_PENALTY;
	br.tournament = 100;   /* both drawn, in all but ~2^-99 of cases */
	rt_rng rng;
	rt_rng_init(&rng, 2, 0);
	br.parsimony_coefficient = 0.01;    /* 1.21 against 1.08: the small one */
	assert_int_equal(gp_tournament_parsimony(fit, pop, 2, &br, &rng), 1);
	br.parsimony_coefficient = 0.001;   /* 1.021 against 1.053: the fitter one */
	assert_int_equal(gp_tournament_parsimony(fit, pop, 2, &br, &rng), 0);
	br.parsimony_coefficient = 0.0;
	assert_int_equal(gp_tournament_parsimony(fit, pop, 2, &br, &rng), 0);
	/* Draw for draw against the reference, with an infinite (NaN-made) fitness. */
	gp_tree pop3[3] = {pop[0], pop[1], pop[1]};
	double fit3[3] = {1.0, 1.05, INFINITY};
	br.parsimony_coefficient = 0.004;
	for (int it = 0; it < 1000; it++) {
		br.tournament = 1 + it % 4;
		rt_rng b = rng;
		int got = gp_tournament_parsimony(fit3, pop3, 3, &br, &rng);
		assert_int_equal(got, reference_winner(fit3, pop3, 3, br.tournament, 0, key_penalty,
						       0.004, &b));
	}
	/* The elite under penalty is the raw best (reported fitness is raw). */
	br.parsimony_coefficient = 0.01;
	assert_int_equal(gp_best_index_parsimony(fit, pop, 2, &br), 0);
	gp_tree_free(&pop[0]);
	gp_tree_free(&pop[1]);
}

/* ---- constants and keys --------------------------------------------------------- */

/* Writes tmpdir/NAME with text; returns its path in path. */
static void write_file(const char *name, const char *text, char *path, size_t size)
{
	snprintf(path, size, "%s/%s", tmpdir, name);
	FILE *f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

/* The default range of a known table: x1 1 2 3 4 (mean 2.5, sd sqrt(1.25)),
 * x2 -10 10 -10 10 (mean 0, sd 10), label 0 1 0 1 (mean 0.5, sd 0.5):
 * r = max(2.5 + 2 sqrt(1.25), 0 + 20, 0.5 + 1, 1) = 20. */
static void default_constant_range(void **state)
{
	(void)state;
	char csv[300], text[800];
	rt_error err = {0};
	rt_spec spec;
	gp_problem p;
	write_file("t.csv", "x1,x2,y\n1,-10,0\n2,10,1\n3,-10,0\n4,10,1\n", csv, sizeof csv);
	snprintf(text, sizeof text, "[problem]\nkind = gp\n[data]\nsource = csv\nfile = %s\nlabel = y\n",
		 csv);
	assert_int_equal(load_text(&spec, text, &p, &err), RT_OK);
	assert_true(p.fset.use_consts);
	assert_true(p.fset.const_min == -20.0f && p.fset.const_max == 20.0f);
	assert_true(fabs(p.fset.const_prob - 1.0 / 3.0) < 1e-15);
	assert_int_equal(p.breed.parsimony, GP_PARSIMONY_DEFAULT_COUNT);   /* classification */
	gp_problem_free(&p);
	rt_spec_free(&spec);

	/* Only x1 and a small label: r = 2.5 + 2 sqrt(1.25). */
	write_file("u.csv", "x1,y\n1,0\n2,1\n3,0\n4,1\n", csv, sizeof csv);
	snprintf(text, sizeof text, "[problem]\nkind = gp\n[data]\nsource = csv\nfile = %s\n"
		 "label = y\nfitness = mse\n", csv);
	assert_int_equal(load_text(&spec, text, &p, &err), RT_OK);
	assert_true(p.fset.const_max == (float)(2.5 + 2 * sqrt(1.25)));
	assert_true(p.fset.const_min == -p.fset.const_max);
	gp_problem_free(&p);
	rt_spec_free(&spec);

	/* A small spread still gives at least [-1, 1). */
	write_file("v.csv", "x1,y\n0.1,0\n0.1,0\n", csv, sizeof csv);
	snprintf(text, sizeof text, "[problem]\nkind = gp\n[data]\nsource = csv\nfile = %s\n"
		 "label = y\nfitness = mse\n", csv);
	assert_int_equal(load_text(&spec, text, &p, &err), RT_OK);
	assert_true(p.fset.const_min == -1.0f && p.fset.const_max == 1.0f);
	gp_problem_free(&p);
	rt_spec_free(&spec);

	/* constants = none: no constants; an explicit range: that range. */
	snprintf(text, sizeof text, "[problem]\nkind = gp\n[gp]\nconstants = none\n[data]\n"
		 "source = csv\nfile = %s/t.csv\nlabel = y\n", tmpdir);
	assert_int_equal(load_text(&spec, text, &p, &err), RT_OK);
	assert_false(p.fset.use_consts);
	gp_problem_free(&p);
	rt_spec_free(&spec);
	snprintf(text, sizeof text, "[problem]\nkind = gp\n[gp]\nconstants = -3 5\n[data]\n"
		 "source = csv\nfile = %s/t.csv\nlabel = y\n", tmpdir);
	assert_int_equal(load_text(&spec, text, &p, &err), RT_OK);
	assert_true(p.fset.use_consts && p.fset.const_min == -3.0f && p.fset.const_max == 5.0f);
	gp_problem_free(&p);
	rt_spec_free(&spec);

	/* The seed problems keep no constants; none is accepted there too. */
	static const char *const seeds[] = {
		"[problem]\nkind = gp\n[data]\ncases = 64\n",
		"[problem]\nkind = gp\n[gp]\nconstants = none\n[data]\ncases = 64\n",
		"[problem]\nkind = gp\n[data]\nsource = multiplexer\n",
		"[problem]\nkind = gp\n[gp]\nconstants = none\n[data]\nsource = multiplexer\n",
	};
	for (size_t i = 0; i < sizeof seeds / sizeof seeds[0]; i++) {
		assert_int_equal(load_text(&spec, seeds[i], &p, &err), RT_OK);
		assert_false(p.fset.use_consts);
		/* The default parsimony follows the fitness: mse, then counts. */
		assert_int_equal(p.breed.parsimony, i < 2 ? GP_PARSIMONY_DEFAULT_MSE
							  : GP_PARSIMONY_DEFAULT_COUNT);
		gp_problem_free(&p);
		rt_spec_free(&spec);
	}
	/* A spec's own choice wins over the fitness's default. */
	assert_int_equal(load_text(&spec, "[problem]\nkind = gp\n[gp]\nparsimony = none\n[data]\n"
				   "source = multiplexer\n", &p, &err), RT_OK);
	assert_int_equal(p.breed.parsimony, GP_PARSIMONY_NONE);
	gp_problem_free(&p);
	rt_spec_free(&spec);
}

/* Bad [gp] keys of this module name t.ini:LINE. */
static void size_key_errors(void **state)
{
	(void)state;
	rt_error err = {0};
	rt_spec spec;
	gp_problem p;
	char cls[600];
	snprintf(cls, sizeof cls, "[problem]\nkind = gp\n[gp]\noptimise_constants = 3\n[data]\n"
		 "source = csv\nfile = %s/t.csv\nlabel = y\n", tmpdir);
	const struct { const char *text, *where, *what; } bad[] = {
		{"[gp]\nparsimony = smallest\n", "t.ini:2", "parsimony"},
		{"[gp]\nparsimony = penalty\n", "t.ini:2", "parsimony_coefficient"},
		{"[gp]\n\nparsimony_coefficient = 0.1\n", "t.ini:3", "needs parsimony = penalty"},
		{"[gp]\nparsimony = penalty\nparsimony_coefficient = -1\n", "t.ini:3", "parsimony_coefficient"},
		{"[gp]\nconstants = nothing\n", "t.ini:2", "constants"},
		{"[gp]\nconstants = 1 2 3\n", "t.ini:2", "constants"},
		{"[gp]\nconstants = -1 1\n[data]\nsource = multiplexer\n", "t.ini:2", "Boolean"},
		{"[gp]\noptimise_constants = -1\n", "t.ini:2", "optimise_constants"},
		{"[gp]\noptimise_steps = 0\n", "t.ini:2", "optimise_steps"},
		{cls, "t.ini:4", "needs mse fitness"},
	};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		int rc = load_text(&spec, bad[i].text, &p, &err);
		if (rc != RT_ERR_INPUT || !strstr(err.msg, bad[i].where) || !strstr(err.msg, bad[i].what))
			fail_msg("spec %zu: status %d, message '%s', expected %s and '%s'", i, rc, err.msg,
				 bad[i].where, bad[i].what);
		rt_spec_free(&spec);
	}
}

/* ---- constant optimisation ------------------------------------------------------ */

/* y = 2.5 x + 1.3 on 1000 cases x in [-2, 2). */
static void linear_cases(gp_cases *c)
{
	rt_error err = {0};
	assert_int_equal(gp_cases_alloc_float(c, 1, 1000, &err), RT_OK);
	c->fitness = GP_FIT_MSE;
	rt_rng rng;
	rt_rng_init(&rng, 11, 0);
	for (size_t i = 0; i < c->ncases; i++) {
		c->x[i] = (float)rt_rng_range(&rng, -2.0, 2.0);
		c->y[i] = (float)(2.5 * (double)c->x[i] + 1.3);
	}
}

/* gp_scale_best on y = 2.5 x + 1.3: the program x + x gets its line
 * (a = 1.3, b = 1.25); on y = 2.5 x the intercept (rounding noise, ~1e-8
 * at most) is left out: + 0 * b (x + x); a program whose line is exactly
 * y (2.5 * x) keeps a = 0 and b = 1 and stays bare. */
static void scale_drops_noise_intercept(void **state)
{
	(void)state;
	rt_error err = {0};
	gp_cases c;
	linear_cases(&c);
	assert_int_equal(gp_scale_prepare(&c, &err), RT_OK);
	gp_node x[] = {gp_fn(GP_OP_ADD), gp_var(0), gp_var(0)};
	gp_tree t = {0};
	double a, b;
	assert_int_equal(gp_tree_set(&t, x, 3, &err), RT_OK);
	assert_int_equal(gp_scale_best(&c, &t, &a, &b, &err), RT_OK);
	assert_true(fabs(a - 1.3) < 1e-6 && fabs(b - 1.25) < 1e-6);
	assert_int_equal(t.n, 7);
	assert_true(fabs(t.nodes[1].value - 1.3f) < 1e-6);
	for (size_t i = 0; i < c.ncases; i++)
		c.y[i] = 2.5f * c.x[i];
	assert_int_equal(gp_scale_prepare(&c, &err), RT_OK);
	assert_int_equal(gp_tree_set(&t, x, 3, &err), RT_OK);
	assert_int_equal(gp_scale_best(&c, &t, &a, &b, &err), RT_OK);
	assert_true(a == 0.0 && fabs(b - 1.25) < 1e-6);
	assert_int_equal(t.n, 7);
	assert_true(t.nodes[1].value == 0.0f);
	gp_node twice[] = {gp_fn(GP_OP_MUL), gp_const(2.5f), gp_var(0)};
	assert_int_equal(gp_tree_set(&t, twice, 3, &err), RT_OK);
	assert_int_equal(gp_scale_best(&c, &t, &a, &b, &err), RT_OK);
	assert_true(a == 0.0 && fabs(b - 1.0) < 1e-6);
	assert_int_equal(t.n, (float)b == 1.0f ? 3 : 7);
	gp_tree_free(&t);
	gp_cases_free(&c);
}

/* c1 * x + c2 from (0, 0) reaches (2.5, 1.3); the structure is unchanged. */
static void constopt_linear(void **state)
{
	(void)state;
	rt_error err = {0};
	gp_cases c;
	linear_cases(&c);
	gp_node nodes[] = {gp_fn(GP_OP_ADD), gp_fn(GP_OP_MUL), gp_const(0.0f), gp_var(0),
			   gp_const(0.0f)};
	gp_tree t = {0};
	assert_int_equal(gp_tree_set(&t, nodes, 5, &err), RT_OK);
	double mse;
	assert_int_equal(gp_constopt_tree(&t, &c, 10, &mse, &err), RT_OK);
	assert_int_equal(t.n, 5);
	for (int i = 0; i < 5; i++)
		assert_int_equal(t.nodes[i].op, nodes[i].op);
	assert_true(fabs(t.nodes[2].value - 2.5) < 1e-3);
	assert_true(fabs(t.nodes[4].value - 1.3) < 1e-3);
	assert_true(mse < 1e-8);
	/* A program without constants comes back as it was, with its MSE. */
	gp_node plain[] = {gp_fn(GP_OP_ADD), gp_var(0), gp_var(0)};
	assert_int_equal(gp_tree_set(&t, plain, 3, &err), RT_OK);
	assert_int_equal(gp_constopt_tree(&t, &c, 10, &mse, &err), RT_OK);
	double want = 0;
	for (size_t i = 0; i < c.ncases; i++) {
		double r = 2.0 * c.x[i] - (double)c.y[i];
		want += r * r;
	}
	want /= (double)c.ncases;
	assert_true(fabs(mse - want) <= 1e-9 * want);
	/* Classification cases are refused. */
	c.fitness = GP_FIT_CLASS;
	c.nclasses = 2;
	assert_int_equal(gp_constopt_tree(&t, &c, 10, &mse, &err), RT_ERR_INPUT);
	gp_tree_free(&t);
	gp_cases_free(&c);
}

/* y = 2.5 sin(1.7 x) + 0.3 on 1000 cases x in [-3, 3). */
static void sine_cases(gp_cases *c)
{
	rt_error err = {0};
	assert_int_equal(gp_cases_alloc_float(c, 1, 1000, &err), RT_OK);
	c->fitness = GP_FIT_MSE;
	rt_rng rng;
	rt_rng_init(&rng, 12, 0);
	for (size_t i = 0; i < c->ncases; i++) {
		c->x[i] = (float)rt_rng_range(&rng, -3.0, 3.0);
		c->y[i] = (float)(2.5 * sin(1.7 * (double)c->x[i]) + 0.3);
	}
}

/* Linear scaling on: sin(c x) from c = 1.4 reaches c = 1.7, and the line
 * a + b f of the fitted program is 0.3 + 2.5 f (variable projection). */
static void constopt_scaled_sine(void **state)
{
	(void)state;
	rt_error err = {0};
	gp_cases c;
	sine_cases(&c);
	assert_int_equal(gp_scale_prepare(&c, &err), RT_OK);
	gp_node nodes[] = {gp_fn(GP_OP_SIN), gp_fn(GP_OP_MUL), gp_const(1.4f), gp_var(0)};
	gp_tree t = {0};
	assert_int_equal(gp_tree_set(&t, nodes, 4, &err), RT_OK);
	double mse, a, b;
	assert_int_equal(gp_constopt_tree(&t, &c, 30, &mse, &err), RT_OK);
	if (!(fabs(t.nodes[2].value - 1.7) < 1e-4) || !(mse < 1e-9))
		fail_msg("c = %.9g, scaled mse %g", t.nodes[2].value, mse);
	assert_int_equal(gp_scale_coeffs(&t, &c, &a, &b, &err), RT_OK);
	assert_true(fabs(a - 0.3) < 1e-4 && fabs(b - 2.5) < 1e-4);
	gp_tree_free(&t);
	gp_cases_free(&c);
}

/* Scaling off: c1 sin(c2 x) + c3 from (2, 1.6, 0) reaches (2.5, 1.7, 0.3)
 * with forward-mode derivatives; pi (a named constant) is never changed. */
static void constopt_plain_sine(void **state)
{
	(void)state;
	rt_error err = {0};
	gp_cases c;
	sine_cases(&c);
	gp_node nodes[] = {gp_fn(GP_OP_ADD), gp_fn(GP_OP_MUL), gp_const(2.0f), gp_fn(GP_OP_SIN),
			   gp_fn(GP_OP_MUL), gp_const(1.6f), gp_var(0), gp_const(0.0f)};
	gp_tree t = {0};
	assert_int_equal(gp_tree_set(&t, nodes, 8, &err), RT_OK);
	double mse;
	assert_int_equal(gp_constopt_tree(&t, &c, 40, &mse, &err), RT_OK);
	if (!(fabs(t.nodes[2].value - 2.5) < 1e-4 && fabs(t.nodes[5].value - 1.7) < 1e-4 &&
	      fabs(t.nodes[7].value - 0.3) < 1e-4 && mse < 1e-9))
		fail_msg("constants %.7g %.7g %.7g, mse %g", t.nodes[2].value, t.nodes[5].value,
			 t.nodes[7].value, mse);
	/* (pi + c) x against 2.5 sin(1.7 x) + 0.3: c moves, pi stays */
	float pi = gp_named_value(GP_NAMED_PI);
	gp_node named[] = {gp_fn(GP_OP_MUL), gp_fn(GP_OP_ADD), gp_const(pi), gp_const(1.0f),
			   gp_var(0)};
	assert_int_equal(gp_tree_set(&t, named, 5, &err), RT_OK);
	assert_int_equal(gp_constopt_tree(&t, &c, 10, &mse, &err), RT_OK);
	assert_true(t.nodes[2].value == pi);
	assert_true(t.nodes[3].value != 1.0f);
	gp_tree_free(&t);
	gp_cases_free(&c);
}

/* A program whose float evaluation does not render its formula (terms that
 * cancel: (x + 1e4) - 1e4 keeps x to 5e-4 in float, against a spread of 1.7)
 * is unfaithful; x itself, and a constant, are faithful. */
static void faithful_float(void **state)
{
	(void)state;
	rt_error err = {0};
	gp_cases c;
	sine_cases(&c);
	gp_node cancel[] = {gp_fn(GP_OP_SUB), gp_fn(GP_OP_ADD), gp_var(0), gp_const(1e4f),
			    gp_const(1e4f)};
	gp_node plain[] = {gp_fn(GP_OP_MUL), gp_var(0), gp_const(3.0f)};
	gp_node constant[] = {gp_const(0.25f)};
	gp_tree t = {0};
	assert_int_equal(gp_tree_set(&t, cancel, 5, &err), RT_OK);
	assert_false(gp_constopt_faithful(&t, &c));
	assert_int_equal(gp_tree_set(&t, plain, 3, &err), RT_OK);
	assert_true(gp_constopt_faithful(&t, &c));
	assert_int_equal(gp_tree_set(&t, constant, 1, &err), RT_OK);
	assert_true(gp_constopt_faithful(&t, &c));
	gp_tree_free(&t);
	gp_cases_free(&c);
}

/* In a run: with optimise_constants = 10 the best MSE is lower than without,
 * on the same seed (0.0898 against 0.102 with forward-mode LM; the finite
 * differences before reached < 1 % of it here: this default function set's
 * comparisons and IF have derivative 0 exactly, where a difference quotient
 * saw their steps). A property of this seed and problem (y = 2.5 x + 1.3,
 * population 100, 10 generations, seed 3), not a theorem: the optimiser only ever
 * lowers the programs it touches, but breeding then takes other paths. */
static void constopt_in_run(void **state)
{
	(void)state;
	char csv[300], text[900];
	rt_buf b = {0};
	rt_rng rng;
	rt_rng_init(&rng, 5, 0);
	rt_buf_puts(&b, "x,y\n");
	for (int i = 0; i < 300; i++) {
		double x = rt_rng_range(&rng, -2.0, 2.0);
		rt_buf_printf(&b, "%.6f,%.6f\n", x, 2.5 * x + 1.3);
	}
	write_file("lin.csv", b.data, csv, sizeof csv);
	rt_buf_free(&b);
	double best[2];
	for (int k = 0; k < 2; k++) {
		rt_error err = {0};
		rt_spec spec;
		gp_problem p;
		gp_result r;
		snprintf(text, sizeof text, "[problem]\nkind = gp\n[gp]\npopulation = 100\n"
			 "generations = 10\nstop_on_success = false\noptimise_constants = %d\n"
			 "linear_scaling = off\nmax_size = 1000\n[data]\n"
			 "source = csv\nfile = %s\nlabel = y\nfitness = mse\n", k ? 10 : 0, csv);
		assert_int_equal(load_text(&spec, text, &p, &err), RT_OK);
		assert_int_equal(p.optimise_constants, k ? 10 : 0);
		assert_int_equal(gp_evolve(&p, 3, gp_eval_cpu, &r, &err), RT_OK);
		best[k] = r.best_fitness;
		/* The reported best is the evaluator's fitness of the best program. */
		gp_packed pk;
		gp_packed_init(&pk);
		double f;
		assert_int_equal(gp_pack_lgp(&pk, &r.best, 1, &err), RT_OK);
		assert_int_equal(gp_eval_cpu(&pk, &p.cases, GP_EVAL_LGP2D, &f, &err), RT_OK);
		assert_true(f == r.best_fitness);
		gp_packed_free(&pk);
		gp_result_free(&r);
		gp_problem_free(&p);
		rt_spec_free(&spec);
	}
	if (!(best[1] < best[0]))
		fail_msg("best MSE with optimisation %g, without %g", best[1], best[0]);
}

/* Top-k with linear scaling on (the default) and the end of run's front
 * fitting: the run's best fitness is the evaluator's scaled fitness of the
 * best program, and fitting the front never raises the best error. */
static void constopt_scaled_in_run(void **state)
{
	(void)state;
	char csv[300], text[900];
	rt_buf b = {0};
	rt_rng rng;
	rt_rng_init(&rng, 6, 0);
	rt_buf_puts(&b, "x,y\n");
	for (int i = 0; i < 300; i++) {
		double x = rt_rng_range(&rng, -3.0, 3.0);
		rt_buf_printf(&b, "%.6f,%.9g\n", x, 2.5 * sin(1.7 * x) + 0.3);
	}
	write_file("sine.csv", b.data, csv, sizeof csv);
	rt_buf_free(&b);
	double best[2];
	for (int k = 0; k < 2; k++) {
		rt_error err = {0};
		rt_spec spec;
		gp_problem p;
		gp_result r;
		snprintf(text, sizeof text, "[problem]\nkind = gp\n[gp]\npopulation = 100\n"
			 "generations = 8\nstop_on_success = false\noptimise_constants = 5\n"
			 "functions = + - * sin\nfit_front_steps = %d\n[data]\n"
			 "source = csv\nfile = %s\nlabel = y\nfitness = mse\n", k ? 30 : 0, csv);
		assert_int_equal(load_text(&spec, text, &p, &err), RT_OK);
		assert_true(p.cases.scale);
		assert_int_equal(gp_evolve(&p, 3, gp_eval_cpu, &r, &err), RT_OK);
		assert_non_null(r.front);
		assert_int_equal(r.fitted > 0, k);
		best[k] = r.front->m[r.front->n - 1].error;
		gp_packed pk;
		gp_packed_init(&pk);
		double f;
		assert_int_equal(gp_pack_lgp(&pk, &r.best, 1, &err), RT_OK);
		assert_int_equal(gp_eval_cpu(&pk, &p.cases, GP_EVAL_LGP2D, &f, &err), RT_OK);
		assert_true(f == r.best_fitness);
		gp_packed_free(&pk);
		gp_result_free(&r);
		gp_problem_free(&p);
		rt_spec_free(&spec);
	}
	if (!(best[1] <= best[0]))
		fail_msg("lowest front error with fitting %g, without %g", best[1], best[0]);
}

static int group_setup(void **state)
{
	(void)state;
	return tmp_setup("gp-size");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(lexicographic_tournament),
		cmocka_unit_test(penalty_tournament),
		cmocka_unit_test(default_constant_range),
		cmocka_unit_test(size_key_errors),
		cmocka_unit_test(constopt_linear), cmocka_unit_test(scale_drops_noise_intercept),
		cmocka_unit_test(constopt_scaled_sine),
		cmocka_unit_test(constopt_plain_sine),
		cmocka_unit_test(faithful_float),
		cmocka_unit_test(constopt_in_run),
		cmocka_unit_test(constopt_scaled_in_run),
	};
	return cmocka_run_group_tests(tests, group_setup, tmp_teardown);
}
