/* gp_front.c: multi-objective GP (gp_front.h): complexity, non-dominated
 * sorting and crowding, the selection fitness, and the run's Pareto archive.
 *
 * Sorting two objectives in O(n log n): with the points in (f1, f2) order,
 * a point is dominated by an earlier one exactly when that one's f2 is <=
 * its own (and the two are not equal). Each front's most recent member has
 * its front's lowest f2, and these lows rise with the front's index (as the
 * piles of patience sorting), so a point joins the first front whose low
 * is above its f2 (a binary search), or the front before that when that
 * front's last member equals it. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "gp_conv.h"
#include "gp_front.h"
#include "gp_scale.h"
#include "gp_score.h"
#include "gp_simplify.h"
#include "out.h"

const char *const gp_objectives_names[] = {"error", "error,size", "error,complexity", NULL};
_Static_assert(GP_OBJ_COUNT == 3, "gp_objectives_names follows enum gp_objectives");
const char *const gp_front_selection_names[] = {"nsga2", "archive", NULL};
_Static_assert(GP_FRONT_SEL_COUNT == 2, "gp_front_selection_names follows the enum");

/* ---- complexity -------------------------------------------------------------------- */

int gp_op_complexity(const gp_node *nd)
{
	switch (nd->op) {
	case GP_OP_DIV: case GP_OP_SQRT: case GP_OP_ABS: case GP_OP_AQ:
	case GP_OP_GT: case GP_OP_LT: case GP_OP_EQ: case GP_OP_AND: case GP_OP_OR:
		return 2;
	case GP_OP_SIN: case GP_OP_COS: case GP_OP_EXP: case GP_OP_LOG: case GP_OP_TANH:
	case GP_OP_SQUARE: case GP_OP_CUBE: case GP_OP_POW4: case GP_OP_IF:
		return 3;
	default:   /* + - *, Boolean ops, inputs and constants */
		return 1;
	}
}

int gp_complexity(const gp_node *nodes, int n)
{
	int c = 0;
	for (int i = 0; i < n; i++)
		c += gp_op_complexity(&nodes[i]);
	return c;
}

/* ---- non-dominated sorting and crowding --------------------------------------------- */

typedef struct sort_ctx {
	const double *f1, *f2;
} sort_ctx;

static sort_ctx g_sort;   /* qsort has no context argument: set just before each sort */

static int by_f1_f2(const void *a, const void *b)
{
	int i = *(const int *)a, j = *(const int *)b;
	double x1 = g_sort.f1[i], y1 = g_sort.f1[j], x2 = g_sort.f2[i], y2 = g_sort.f2[j];
	if (x1 != y1)
		return x1 < y1 ? -1 : 1;
	if (x2 != y2)
		return x2 < y2 ? -1 : 1;
	return i < j ? -1 : i > j;   /* stable: the result does not depend on qsort */
}

/* Points sorted (f1, f2), non-finite f1 left out: idx[0..*m). */
static int *sorted_points(const double *f1, const double *f2, int n, int *m, rt_error *err)
{
	int *idx = rt_malloc(((size_t)n + 1) * sizeof *idx, err);
	if (!idx)
		return NULL;
	*m = 0;
	for (int i = 0; i < n; i++)
		if (isfinite(f1[i]) && !isnan(f2[i]))
			idx[(*m)++] = i;
	g_sort = (sort_ctx){f1, f2};
	qsort(idx, (size_t)*m, sizeof *idx, by_f1_f2);
	return idx;
}

/* Crowding distance of one front (members mem[0..k), in (f1, f2) order, so
 * f2 falls along it): the sum over both objectives of the neighbours' gap
 * over the front's range; the extremes +inf. */
static void crowd_front(const int *mem, int k, const double *f1, const double *f2, double *crowd)
{
	for (int a = 0; a < k; a++)
		crowd[mem[a]] = (a == 0 || a == k - 1) ? INFINITY : 0.0;
	if (k < 3)
		return;
	double r1 = f1[mem[k - 1]] - f1[mem[0]], r2 = f2[mem[0]] - f2[mem[k - 1]];
	for (int a = 1; a < k - 1; a++) {
		double d = 0;
		if (r1 > 0)
			d += (f1[mem[a + 1]] - f1[mem[a - 1]]) / r1;
		if (r2 > 0)
			d += (f2[mem[a - 1]] - f2[mem[a + 1]]) / r2;
		crowd[mem[a]] = d;
	}
}

/* The front of point i: the first whose low f2 is above f2[i], or the one
 * before when its last member equals i's point. */
static int front_of(const double *low, const int *last, int nf, const double *f1,
		    const double *f2, int i)
{
	int lo = 0, hi = nf;
	while (lo < hi) {
		int mid = (lo + hi) / 2;
		if (low[mid] > f2[i])
			hi = mid;
		else
			lo = mid + 1;
	}
	if (lo > 0 && f1[last[lo - 1]] == f1[i] && f2[last[lo - 1]] == f2[i])
		return lo - 1;
	return lo;
}

int gp_front_sort(const double *f1, const double *f2, int n, int *rank, double *crowd,
		  rt_error *err)
{
	int m;
	int *idx = sorted_points(f1, f2, n, &m, err);
	double *low = idx ? rt_malloc(((size_t)m + 1) * sizeof *low, err) : NULL;
	int *last = low ? rt_malloc(((size_t)m + 1) * sizeof *last, err) : NULL;
	int *count = last ? rt_calloc((size_t)m + 2, sizeof *count, err) : NULL;
	int *mem = count ? rt_malloc(((size_t)m + 1) * sizeof *mem, err) : NULL;
	int nf = 0;
	if (!mem) {
		nf = -1;
		goto out;
	}
	for (int i = 0; i < n; i++) {
		rank[i] = -1;
		if (crowd)
			crowd[i] = 0;
	}
	for (int a = 0; a < m; a++) {
		int i = idx[a], k = front_of(low, last, nf, f1, f2, i);
		if (k == nf)
			nf++;
		low[k] = f2[i];
		last[k] = i;
		rank[i] = k;
		count[k + 1]++;
	}
	if (crowd) {
		/* members of each front, in (f1, f2) order: a counting sort by rank */
		for (int k = 0; k < nf; k++)
			count[k + 1] += count[k];
		int *pos = last;   /* reused: the next free slot of each front */
		memcpy(pos, count, (size_t)nf * sizeof *pos);
		for (int a = 0; a < m; a++)
			mem[pos[rank[idx[a]]]++] = idx[a];
		for (int k = 0; k < nf; k++)
			crowd_front(mem + count[k], count[k + 1] - count[k], f1, f2, crowd);
	}
out:
	free(mem);
	free(count);
	free(last);
	free(low);
	free(idx);
	return nf;
}

void gp_front_selection_fitness(const int *rank, const double *crowd, const double *f1, int n,
				double *sel)
{
	int elite = -1;
	for (int i = 0; i < n; i++) {
		if (rank[i] < 0) {
			sel[i] = 1e300;
			continue;
		}
		sel[i] = rank[i] + 0.5 / (1.0 + crowd[i]);   /* crowd +inf: exactly rank */
		if (rank[i] == 0 && (elite < 0 || f1[i] < f1[elite]))
			elite = i;
	}
	if (elite >= 0)
		sel[elite] = -1.0;
}

/* ---- one generation's ranking ---------------------------------------------------- */

rt_status gp_front_gen_open(gp_front_gen *g, int n, int objectives, rt_error *err)
{
	memset(g, 0, sizeof *g);
	g->n = n;
	g->objectives = objectives;
	size_t m = (size_t)n + 1;
	if (!(g->rank = rt_malloc(m * sizeof *g->rank, err)) ||
	    !(g->obj2 = rt_malloc(m * sizeof *g->obj2, err)) ||
	    !(g->f2 = rt_malloc(m * sizeof *g->f2, err)) ||
	    !(g->crowd = rt_malloc(m * sizeof *g->crowd, err)) ||
	    !(g->sel = rt_malloc(m * sizeof *g->sel, err))) {
		gp_front_gen_free(g);
		return err->status;
	}
	return RT_OK;
}

void gp_front_gen_free(gp_front_gen *g)
{
	free(g->rank);
	free(g->obj2);
	free(g->f2);
	free(g->crowd);
	free(g->sel);
	memset(g, 0, sizeof *g);
}

rt_status gp_front_rank(gp_front_gen *g, const double *fit, const uint32_t *sizes,
			const gp_tree *pop, rt_error *err)
{
	int cx = g->objectives == GP_OBJ_ERROR_COMPLEXITY;
	if (cx && !pop)
		return rt_fail(err, RT_ERR_INTERNAL, "objectives = error,complexity needs the trees");
	for (int i = 0; i < g->n; i++) {
		g->obj2[i] = cx ? gp_complexity(pop[i].nodes, pop[i].n) : (int)sizes[i];
		g->f2[i] = g->obj2[i];
	}
	g->nfronts = gp_front_sort(fit, g->f2, g->n, g->rank, g->crowd, err);
	if (g->nfronts < 0)
		return err->status;
	gp_front_selection_fitness(g->rank, g->crowd, fit, g->n, g->sel);
	return RT_OK;
}

/* ---- the archive --------------------------------------------------------------------- */

void gp_front_free(gp_front *f)
{
	for (int i = 0; i < f->n; i++)
		gp_tree_free(&f->m[i].tree);
	free(f->m);
	f->m = NULL;
	f->n = f->cap = 0;
}

int gp_front_obj2(const gp_front *f, const gp_front_member *m)
{
	return f->objectives == GP_OBJ_ERROR_COMPLEXITY ? m->complexity : m->size;
}

/* First member whose second objective is above obj2 (members rise in it). */
static int first_above(const gp_front *f, int obj2)
{
	int lo = 0, hi = f->n;
	while (lo < hi) {
		int mid = (lo + hi) / 2;
		if (gp_front_obj2(f, &f->m[mid]) > obj2)
			hi = mid;
		else
			lo = mid + 1;
	}
	return lo;
}

int gp_front_would_join(const gp_front *f, double error, int obj2)
{
	if (!isfinite(error))
		return 0;
	/* the member with the largest obj2 <= ours has the lowest error of those */
	int k = first_above(f, obj2);
	return k == 0 || f->m[k - 1].error > error;
}

rt_status gp_front_offer(gp_front *f, const gp_tree *tree, double error, int generation,
			 int *joined, rt_error *err)
{
	gp_front_member nm = {{0}, error, tree->n, gp_complexity(tree->nodes, tree->n), generation, 0, 0};
	int obj2 = gp_front_obj2(f, &nm);
	if (joined)
		*joined = 0;
	if (!gp_front_would_join(f, error, obj2))
		return RT_OK;
	/* members from the first with obj2 >= ours and error >= ours leave */
	int k = first_above(f, obj2 - 1), e = k;
	while (e < f->n && f->m[e].error >= error)
		gp_tree_free(&f->m[e++].tree);
	if (e == k && f->n == f->cap) {
		int cap = f->cap ? 2 * f->cap : 16;
		gp_front_member *m = realloc(f->m, (size_t)cap * sizeof *m);
		if (!m)
			return rt_fail(err, RT_ERR_SYSTEM, "out of memory (the Pareto front, %d members)",
				       cap);
		f->m = m;
		f->cap = cap;
	}
	/* one slot at k: shift the rest (after the removed run) */
	memmove(f->m + k + 1, f->m + e, (size_t)(f->n - e) * sizeof *f->m);
	f->n += 1 - (e - k);
	f->m[k] = nm;
	if (joined)
		*joined = 1;
	return gp_tree_copy(&f->m[k].tree, tree, err);
}

rt_status gp_front_update(gp_front *f, const double *fit, const int *obj2, const int *rank, int n,
			  int generation, gp_front_fetch fetch, void *ctx, rt_error *err)
{
	gp_tree t = {0};
	rt_status st = RT_OK;
	for (int i = 0; i < n && !st; i++) {
		if (rank[i] != 0 || !gp_front_would_join(f, fit[i], obj2[i]))
			continue;
		if (!(st = fetch(ctx, i, &t, err)))
			st = gp_front_offer(f, &t, fit[i], generation, NULL, err);
	}
	gp_tree_free(&t);
	return st;
}

int gp_front_choose(const gp_front *f, double success, double noise)
{
	if (f->n == 0)
		return -1;
	double best = f->m[f->n - 1].error;   /* errors fall along the archive */
	double tol = best + GP_FRONT_BEST_TOLERANCE * fabs(best) + (noise > 0 ? noise : 0);
	if (best <= success && success > tol)
		tol = success;
	int all_unfaithful = 1;
	for (int k = 0; k < f->n; k++)
		all_unfaithful &= f->m[k].unfaithful != 0;
	int pick = -1;
	for (int k = 0; k < f->n; k++) {
		const gp_front_member *m = &f->m[k];
		if (m->error > tol || (!all_unfaithful && m->unfaithful))
			continue;
		if (pick < 0 || (m->reported_size > 0 && f->m[pick].reported_size > 0 &&
				 m->reported_size < f->m[pick].reported_size))
			pick = k;
	}
	if (pick >= 0)
		return pick;
	for (int k = f->n - 1; k >= 0; k--)   /* the lowest error among the faithful */
		if (all_unfaithful || !f->m[k].unfaithful)
			return k;
	return f->n - 1;
}

/* ---- report ---------------------------------------------------------------------------- */

double gp_front_target_var(const gp_cases *cases)
{
	double mean = 0, var = 0;
	size_t n = cases->ncases;
	for (size_t r = 0; r < n; r++)
		mean += cases->y[r];
	mean = n ? mean / (double)n : 0;
	for (size_t r = 0; r < n; r++)
		var += ((double)cases->y[r] - mean) * ((double)cases->y[r] - mean);
	return n ? var / (double)n : 0;
}

double gp_front_r2(double var, double mse)
{
	return var > 0 ? 1.0 - mse / var : NAN;
}

/* The MSE of tree on cases (the CPU interpreter, as gp_score reports it). */
static rt_status cases_mse(const gp_tree *t, const gp_cases *cases, double *mse, rt_error *err)
{
	gp_score sc;
	rt_status st = gp_score_program(t, cases, &sc, err);
	*mse = st ? NAN : sc.mse;
	gp_score_free(&sc);
	return st;
}

static char *buf_take(rt_buf *b, rt_error *err)
{
	char *s = rt_malloc(b->len + 1, err);
	if (s) {
		memcpy(s, b->data ? b->data : "", b->len);
		s[b->len] = 0;
	}
	rt_buf_free(b);
	return s;
}

/* One member's row: with linear scaling on (gp_scale.h) the member is
 * reported as its own line a + b*f on the training cases, as the best is.
 * var: the targets' variance, training and test (gp_front_target_var). */
static rt_status report_one(const gp_front_member *m, const gp_cases *train, const gp_cases *test,
			    const double var[2], const gp_names *nm, gp_front_row *r, rt_error *err)
{
	rt_buf inf = {0};
	gp_simple simp;
	gp_tree t = {0};
	memset(&simp, 0, sizeof simp);
	r->test_error = r->test_r2 = NAN;
	rt_status st = gp_tree_copy(&t, &m->tree, err);
	if (!st)
		st = gp_scale_best(train, &t, NULL, NULL, err);
	if (!st)
		st = cases_mse(&t, train, &r->train_error, err);
	r->train_r2 = gp_front_r2(var[0], r->train_error);
	if (!st && test && test->ncases > 0 && !(st = cases_mse(&t, test, &r->test_error, err)))
		r->test_r2 = gp_front_r2(var[1], r->test_error);
	if (!st)
		st = gp_simplify(t.nodes, t.n, nm, &simp, err);
	if (!st) {
		gp_print_infix(&inf, t.nodes, t.n, nm);
		r->simplified_size = simp.size;
		if (!(r->infix = buf_take(&inf, err)) || !(r->simplified = buf_take(&simp.text, err)))
			st = err->status;
	}
	rt_buf_free(&inf);
	gp_simple_free(&simp);
	gp_tree_free(&t);
	return st;
}

rt_status gp_front_report(const gp_front *f, const gp_cases *train, const gp_cases *test,
			  const gp_names *nm, gp_front_row **rows, rt_error *err)
{
	/* the targets' variances once, not per member */
	double var[2] = { gp_front_target_var(train), test ? gp_front_target_var(test) : 0 };
	*rows = rt_calloc((size_t)f->n + 1, sizeof **rows, err);
	if (!*rows)
		return err->status;
	for (int k = 0; k < f->n; k++) {
		rt_status st = report_one(&f->m[k], train, test, var, nm, &(*rows)[k], err);
		if (st) {
			gp_front_rows_free(*rows, f->n);
			*rows = NULL;
			return st;
		}
	}
	return RT_OK;
}

void gp_front_rows_free(gp_front_row *rows, int n)
{
	for (int k = 0; rows && k < n; k++) {
		free(rows[k].infix);
		free(rows[k].simplified);
	}
	free(rows);
}

void gp_front_json(rt_json *j, const gp_front *f, const gp_front_row *rows)
{
	rt_json_begin_array(j, "front");
	for (int k = 0; k < f->n; k++) {
		const gp_front_member *m = &f->m[k];
		const gp_front_row *r = &rows[k];
		rt_json_begin_object(j, NULL);
		rt_json_int(j, "size", m->size);
		rt_json_int(j, "complexity", m->complexity);
		rt_json_double(j, "fitness", m->error);
		rt_json_double(j, "train_error", r->train_error);
		rt_json_double(j, "train_r2", r->train_r2);
		rt_json_double(j, "test_error", r->test_error);
		rt_json_double(j, "test_r2", r->test_r2);
		rt_json_int(j, "generation", m->generation);
		rt_json_string(j, "infix", r->infix);
		rt_json_string(j, "simplified", r->simplified);
		rt_json_int(j, "simplified_size", r->simplified_size);
		rt_json_end_object(j);
	}
	rt_json_end_array(j);
}

/* A CSV field in double quotes, quotes doubled. */
static void csv_quoted(rt_buf *b, const char *s)
{
	rt_buf_puts(b, "\"");
	for (; *s; s++)
		rt_buf_printf(b, *s == '"' ? "\"\"" : "%c", *s);
	rt_buf_puts(b, "\"");
}

rt_status gp_front_write_csv(const char *dir, const gp_front *f, const gp_front_row *rows,
			     int has_test, rt_error *err)
{
	rt_buf b = {0};
	rt_buf_puts(&b, "size,complexity,train_error,train_r2,test_error,test_r2,generation,infix,"
		    "simplified\n");
	for (int k = 0; k < f->n; k++) {
		const gp_front_row *r = &rows[k];
		rt_buf_printf(&b, "%d,%d,%.17g,%.17g,", f->m[k].size, f->m[k].complexity,
			      r->train_error, r->train_r2);
		if (has_test)
			rt_buf_printf(&b, "%.17g,%.17g,", r->test_error, r->test_r2);
		else
			rt_buf_puts(&b, ",,");
		rt_buf_printf(&b, "%d,", f->m[k].generation);
		csv_quoted(&b, r->infix);
		rt_buf_puts(&b, ",");
		csv_quoted(&b, r->simplified);
		rt_buf_puts(&b, "\n");
	}
	rt_status st = rt_write_buf_atomic(dir, "front.csv", &b, err);
	rt_buf_free(&b);
	return st;
}
