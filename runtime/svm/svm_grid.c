/* svm_grid.c: the (C, gamma) grid search of LIBSVM's tools/grid.py:
 * cross-validation accuracy for C = 2^log2c, gamma = 2^log2g over two
 * ranges, grid.py's progress line per cell and its rule for the best cell,
 * the cells as CSV, and grid.py's contour plot drawn by gnuplot.
 *
 * Cells are run in batches of about one job per thread (cells x folds) on
 * the CPU, or of about SVM_GRID_GPU_MODELS models on the GPU (trained side
 * by side in one persistent kernel), so the lines come as the search goes
 * while every core or SM stays busy (several MPI ranks on the CPU: one
 * batch of all cells, batch_cells); the
 * cells go in order (log2c outer, log2g inner), not grid.py's coarse-to-
 * fine order, so ties between equal rates may pick another cell. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "comm.h"
#include "cpu.h"
#include "log.h"
#include "out.h"
#include "plot.h"
#include "svm_impl.h"

/* At most this many values on one axis. */
#if !defined(SVM_GRID_MAX_AXIS)
#define SVM_GRID_MAX_AXIS 1000
#endif

/* Models (cells x folds) a GPU batch trains at once. */
#if !defined(SVM_GRID_GPU_MODELS)
#define SVM_GRID_GPU_MODELS 30
#endif


rt_status svm_range_parse(const char *what, const char *text, svm_range *r, rt_error *err)
{
	double v[3];
	const char *p = text;
	char *end;
	for (int i = 0; i < 3; i++) {
		v[i] = strtod(p, &end);
		if (end == p || !isfinite(v[i]) || *end != (i < 2 ? ',' : '\0'))
			goto bad;
		p = end + 1;
	}
	*r = (svm_range){ v[0], v[1], v[2] };
	if (v[2] == 0 || (v[1] - v[0]) / v[2] < 0 || (v[1] - v[0]) / v[2] >= SVM_GRID_MAX_AXIS)
		goto bad;
	return RT_OK;
bad:
	return rt_fail(err, RT_ERR_INPUT, "%s: expected begin,end,step with a step that goes from "
		       "begin towards end (at most %d values), got '%s'", what, SVM_GRID_MAX_AXIS,
		       text);
}

/* The values of r, as grid.py's range_f (end included). */
static int range_values(const svm_range *r, double *out)
{
	int n = 0;
	for (double v = r->begin; r->step > 0 ? v <= r->end + 1e-9 : v >= r->end - 1e-9;
	     v = r->begin + ++n * r->step)
		if (out)
			out[n] = v;
	return n;
}

void svm_grid_free(svm_grid *g)
{
	free(g->log2c);
	free(g->log2g);
	free(g->acc);
	memset(g, 0, sizeof *g);
}

/* The cells in order; no accuracies yet. */
static rt_status grid_cells(svm_grid *g, rt_error *err)
{
	int nc = range_values(&g->c, NULL), ng = range_values(&g->g, NULL);
	double *cs = rt_malloc((size_t)nc * sizeof *cs, err);
	double *gs = rt_malloc((size_t)ng * sizeof *gs, err);
	g->ncells = nc * ng;
	g->log2c = rt_malloc((size_t)g->ncells * sizeof *g->log2c, err);
	g->log2g = rt_malloc((size_t)g->ncells * sizeof *g->log2g, err);
	g->acc = rt_malloc((size_t)g->ncells * sizeof *g->acc, err);
	if (!cs || !gs || !g->log2c || !g->log2g || !g->acc) {
		free(cs);
		free(gs);
		return RT_ERR_SYSTEM;
	}
	range_values(&g->c, cs);
	range_values(&g->g, gs);
	for (int i = 0; i < nc; i++)
		for (int j = 0; j < ng; j++) {
			g->log2c[i * ng + j] = cs[i];
			g->log2g[i * ng + j] = gs[j];
		}
	free(cs);
	free(gs);
	return RT_OK;
}

/* grid.py's update_param: a higher rate wins; an equal one only with the
 * same gamma and a smaller C. Prints its line. */
static void update_best(svm_grid *g, int cell)
{
	int b = g->best;
	double rate = 100 * g->acc[cell];
	if (b < 0 || rate > 100 * g->acc[b] ||
	    (rate == 100 * g->acc[b] && g->log2g[cell] == g->log2g[b] && g->log2c[cell] < g->log2c[b]))
		g->best = b = cell;
	rt_info("[local] %g %g %g (best c=%g, g=%g, rate=%g)", g->log2c[cell], g->log2g[cell], rate,
		pow(2, g->log2c[b]), pow(2, g->log2g[b]), 100 * g->acc[b]);
}

/* Cross-validates cells [first, first + n) together. */
static rt_status grid_batch(const svm_data *d, const svm_params *p, svm_grid *g, int first,
			    int n, uint64_t seed, svm_params *cells, rt_error *err)
{
	rt_status st;
	for (int i = 0; i < n; i++) {
		cells[i] = *p;
		cells[i].C = pow(2, g->log2c[first + i]);
		cells[i].kernel.gamma = pow(2, g->log2g[first + i]);
		cells[i].ckpt_model = (long)(first + i) * g->folds;   /* + fold: checkpoints' model */
	}
	if ((st = svm_cv_many(d, cells, n, g->folds, seed, g->acc + first, err)) != RT_OK)
		return st;
	for (int i = 0; i < n; i++)
		update_best(g, first + i);
	return RT_OK;
}

/* Cells per batch: about SVM_GRID_GPU_MODELS models per GPU, or a job per
 * thread on the CPU (times the MPI ranks; with several ranks on the CPU,
 * all cells at once: a rank's jobs queue on its own pool, so a larger batch
 * costs no memory, and the ranks wait for each other once, not once per
 * batch, with the deal by cost (svm_shard_plan) balanced over all models),
 * the cells spread evenly over the batches (15 cells in batches of 6 would
 * leave a last batch of 3). */
static int batch_cells(const svm_params *p, int ncells, int folds)
{
	int spread = svm_shard_active(p);
	if (spread && !p->gpu)
		return ncells > 0 ? ncells : 1;
	long per_batch = (long)(p->gpu ? SVM_GRID_GPU_MODELS : cpu_threads()) *
			 (spread ? rt_comm_size() : 1);
	long batch = (per_batch + folds - 1) / folds;
	long nbatch = (ncells + batch - 1) / batch;
	return nbatch > 1 ? (int)((ncells + nbatch - 1) / nbatch) : ncells > 0 ? ncells : 1;
}

rt_status svm_grid_search(const svm_data *d, const svm_params *p, const svm_range *c,
			  const svm_range *gamma, int folds, uint64_t seed, svm_grid *g,
			  rt_error *err)
{
	svm_params *cells;
	rt_status st;
	memset(g, 0, sizeof *g);
	g->c = *c;
	g->g = *gamma;
	g->folds = folds;
	g->best = -1;
	if ((st = grid_cells(g, err)) != RT_OK)
		return st;
	int batch = batch_cells(p, g->ncells, folds);
	if (!(cells = rt_malloc((size_t)batch * sizeof *cells, err)))
		return RT_ERR_SYSTEM;
	for (int first = 0; st == RT_OK && first < g->ncells; first += batch)
		st = grid_batch(d, p, g, first, g->ncells - first < batch ? g->ncells - first : batch,
				seed, cells, err);
	free(cells);
	if (st == RT_OK)
		rt_info("%g %g %g", pow(2, g->log2c[g->best]), pow(2, g->log2g[g->best]),
			100 * g->acc[g->best]);
	return st;
}

rt_status svm_grid_write_csv(const char *path, const svm_grid *g, rt_error *err)
{
	rt_buf b;
	rt_status st;
	memset(&b, 0, sizeof b);
	rt_buf_puts(&b, "log2c,log2g,C,gamma,accuracy\n");
	for (int i = 0; i < g->ncells; i++)
		rt_buf_printf(&b, "%.17g,%.17g,%.17g,%.17g,%.17g\n", g->log2c[i], g->log2g[i],
			      pow(2, g->log2c[i]), pow(2, g->log2g[i]), g->acc[i]);
	st = b.failed ? rt_fail(err, RT_ERR_SYSTEM, "out of memory writing %s", path)
		      : rt_write_file_atomic(path, b.data, b.len, err);
	rt_buf_free(&b);
	return st;
}

/* ---- the plot ------------------------------------------------------------------- */

/* grid.py's gnuplot script: contours of the rate over log2(C), log2(gamma). */
static void plot_script(rt_buf *b, const char *out, const svm_grid *g)
{
	double best = 100 * g->acc[g->best], low = 100, lo_level, step;
	for (int i = 0; i < g->ncells; i++)
		low = fmin(low, 100 * g->acc[i]);
	lo_level = fmax(0, round(best / 10) * 10 - 40);
	step = best - low <= 10 ? 0.5 : 2;
	rt_buf_puts(b, "set term png size 800,600\nset output ");
	rt_plot_quote(b, out);
	rt_buf_printf(b, "\nset xlabel 'log2(C)'\nset ylabel 'log2(gamma)'\n"
		      "set xrange [%g:%g]\nset yrange [%g:%g]\n", fmin(g->c.begin, g->c.end),
		      fmax(g->c.begin, g->c.end), fmin(g->g.begin, g->g.end), fmax(g->g.begin, g->g.end));
	rt_buf_printf(b, "set contour\nset cntrparam levels incremental %g,%g,100\nunset surface\n"
		      "unset ztics\nset view map\nset key outside\n", lo_level, step);
	rt_buf_printf(b, "set title \"%d-fold cross-validation accuracy (%%)\\nbest log2(C) = %g, "
		      "log2(gamma) = %g: %g%% (C = %g, gamma = %g)\"\nsplot '-' with lines notitle\n",
		      g->folds, g->log2c[g->best], g->log2g[g->best], best, pow(2, g->log2c[g->best]),
		      pow(2, g->log2g[g->best]));
	for (int i = 0; i < g->ncells; i++) {
		if (i && g->log2c[i] != g->log2c[i - 1])
			rt_buf_puts(b, "\n");
		rt_buf_printf(b, "%g %g %g\n", g->log2c[i], g->log2g[i], 100 * g->acc[i]);
	}
	rt_buf_puts(b, "e\n");
}

rt_status svm_grid_plot(const char *png, const svm_grid *g, rt_error *err)
{
	char tmp[RT_PATH_MAX];
	rt_buf b;
	rt_status st;
	if (!rt_plot_on_path("gnuplot"))
		return (rt_info("gnuplot not found: no plot"), RT_OK);
	if (g->ncells < 1 || range_values(&g->c, NULL) < 2 || range_values(&g->g, NULL) < 2)
		return (rt_info("one value of C or gamma: no contour plot"), RT_OK);
	if ((st = rt_format(tmp, sizeof tmp, err, "%s.tmp.%d", png, (int)getpid())) != RT_OK)
		return st;
	memset(&b, 0, sizeof b);
	plot_script(&b, tmp, g);
	st = rt_plot_png(&b, tmp, png, "the grid plot", err);
	rt_buf_free(&b);
	return st;
}
