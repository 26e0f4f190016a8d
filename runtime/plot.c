/* plot.c: `evoforge plot` (plot.h): a results folder's history.csv read
 * and checked, the kind's columns mapped to the series of a convergence
 * plot, and the gnuplot script that draws them into a PNG (svm: two panels,
 * the dual objective and the violation of each one-vs-one pair; an svm
 * grid search's folder holds grid.png instead, said). */
#include <errno.h>
#include <math.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "config.h"
#include "json_read.h"
#include "plot.h"

extern char **environ;

/* ---- gnuplot ------------------------------------------------------------------- */

int rt_plot_on_path(const char *name)
{
	const char *path = getenv("PATH");
	char buf[RT_PATH_MAX];
	while (path && *path) {
		size_t len = strcspn(path, ":");
		if (len && snprintf(buf, sizeof buf, "%.*s/%s", (int)len, path, name) < (int)sizeof buf &&
		    access(buf, X_OK) == 0)
			return 1;
		path += len + (path[len] == ':');
	}
	return 0;
}

void rt_plot_quote(rt_buf *b, const char *s)
{
	rt_buf_puts(b, "'");
	for (; *s; s++)
		rt_buf_puts(b, *s == '\'' ? "''" : (char[2]){ *s, 0 });
	rt_buf_puts(b, "'");
}

/* Writes b to a new temporary file; its name into path. */
static rt_status temp_script(const rt_buf *b, char *path, size_t size, rt_error *err)
{
	const char *dir = getenv("TMPDIR");
	int fd;
	if (rt_format(path, size, err, "%s/evoforge-plot-XXXXXX.gp", dir && *dir ? dir : "/tmp"))
		return RT_ERR_INPUT;
	if ((fd = mkstemps(path, 3)) < 0)
		return rt_fail(err, RT_ERR_SYSTEM, "%s: cannot create the gnuplot script: %s", path,
			       strerror(errno));
	if (write(fd, b->data, b->len) != (ssize_t)b->len) {
		close(fd);
		unlink(path);
		return rt_fail(err, RT_ERR_SYSTEM, "%s: cannot write the gnuplot script", path);
	}
	close(fd);
	return RT_OK;
}

rt_status rt_plot_run(const rt_buf *script, const char *what, rt_error *err)
{
	char path[RT_PATH_MAX];
	char *args[] = { "gnuplot", path, NULL };
	pid_t pid;
	int rc, status;
	rt_status st;
	if (script->failed)
		return rt_fail(err, RT_ERR_SYSTEM, "out of memory writing the gnuplot script");
	if ((st = temp_script(script, path, sizeof path, err)) != RT_OK)
		return st;
	if ((rc = posix_spawnp(&pid, "gnuplot", NULL, NULL, args, environ)) != 0) {
		unlink(path);
		return rt_fail(err, RT_ERR_SYSTEM, "cannot run gnuplot: %s", strerror(rc));
	}
	while ((rc = waitpid(pid, &status, 0)) < 0 && errno == EINTR)
		;
	unlink(path);
	if (rc < 0)
		return rt_fail(err, RT_ERR_SYSTEM, "waiting for gnuplot: %s", strerror(errno));
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
		return rt_fail(err, RT_ERR_SYSTEM, "gnuplot failed (%s %d) drawing %s",
			       WIFEXITED(status) ? "exit status" : "signal",
			       WIFEXITED(status) ? WEXITSTATUS(status) : WTERMSIG(status), what);
	return RT_OK;
}

/* ---- history.csv ----------------------------------------------------------------- */

/* A CSV of numbers under a header: ncols names, nrows rows of ncols values. */
typedef struct table {
	char *text;       /* the file; names point into it */
	char **names;
	int ncols;
	double *v;        /* row-major */
	long nrows;
} table;

static void table_free(table *t)
{
	free(t->text);
	free(t->names);
	free(t->v);
	memset(t, 0, sizeof *t);
}

/* The header line (cut at its end): the names, split at commas, in t. */
static rt_status parse_header(table *t, char *line, const char *path, rt_error *err)
{
	int n = 1;
	for (char *p = line; *p; p++)
		n += *p == ',';
	if (!(t->names = rt_malloc((size_t)n * sizeof *t->names, err)))
		return err->status;
	for (char *p = line;; p++) {
		t->names[t->ncols++] = p;
		p += strcspn(p, ",");
		if (!*p)
			break;
		*p = 0;
	}
	for (int c = 0; c < t->ncols; c++)
		if (!t->names[c][0] || strspn(t->names[c], "0123456789.-+eE") == strlen(t->names[c]))
			return rt_fail(err, RT_ERR_INPUT, "%s:1: expected a header of column names, got "
				       "'%s' as column %d", path, t->names[c], c + 1);
	return RT_OK;
}

/* One data line (number `lineno` of the file) into row r. */
static rt_status parse_row(table *t, const char *line, long lineno, long r, const char *path,
			   rt_error *err)
{
	const char *p = line;
	for (int c = 0; c < t->ncols; c++) {
		char *end;
		double x = strtod(p, &end);
		if (end == p || (*end != ',' && *end != 0) || (*end == 0) != (c == t->ncols - 1))
			return rt_fail(err, RT_ERR_INPUT, "%s:%ld: expected %d comma-separated numbers "
				       "(%s), got '%.80s'", path, lineno, t->ncols, t->names[0], line);
		t->v[r * t->ncols + c] = x;
		p = end + (*end == ',');
	}
	return RT_OK;
}

/* Reads path into t: a header and at least one row, every row complete. */
static rt_status read_history(const char *path, table *t, rt_error *err)
{
	size_t size;
	rt_status st;
	memset(t, 0, sizeof *t);
	if ((st = rt_read_file(path, &t->text, &size, err)) != RT_OK)
		return st;
	long lines = 1;
	for (size_t i = 0; i < size; i++)
		lines += t->text[i] == '\n';
	char *line = t->text, *next = line + strcspn(line, "\r\n");
	if (*next)
		*next++ = 0;
	if ((st = parse_header(t, line, path, err)) != RT_OK)
		return st;
	if (!(t->v = rt_malloc((size_t)lines * (size_t)t->ncols * sizeof *t->v, err)))
		return err->status;
	for (long lineno = 2; *next; lineno++) {
		next += *next == '\n';   /* the \n of a \r\n */
		line = next;
		next = line + strcspn(line, "\r\n");
		if (*next)
			*next++ = 0;
		if (!*line)
			continue;
		if ((st = parse_row(t, line, lineno, t->nrows++, path, err)) != RT_OK)
			return st;
	}
	if (t->nrows == 0)
		return rt_fail(err, RT_ERR_INPUT, "%s: expected rows of numbers under the header, got "
			       "none", path);
	return RT_OK;
}

static int column(const table *t, const char *name)
{
	for (int c = 0; c < t->ncols; c++)
		if (!strcmp(t->names[c], name))
			return c;
	return -1;
}

/* ---- what is drawn ---------------------------------------------------------------- */

#define MAX_SERIES 4

/* The plot: x and up to MAX_SERIES series of t's rows, on the left (y1) or
 * right (y2) axis. */
typedef struct plot {
	const char *kind, *name;
	double optimum;          /* result.json's; NAN: unknown */
	double eps;              /* svm: result.json's stopping tolerance; NAN: unknown */
	double log_span;         /* y1 is logarithmic past this ratio of its values */
	int svm;                 /* svm: drawn by script_svm from t's columns below */
	int c_pair, c_iter, c_obj, c_gap;
	char xlabel[64], ylabel[128], y2label[128], title[512];
	int nseries;
	struct { char title[96]; double *y; int axis; } s[MAX_SERIES];
	int gap;                 /* aco: y2 is the gap to the optimum in % of y */
} plot;

static double *add_series(plot *pl, const table *t, const char *title, int axis, rt_error *err)
{
	double *y = rt_malloc((size_t)t->nrows * sizeof *y, err);
	if (!y)
		return NULL;
	snprintf(pl->s[pl->nseries].title, sizeof pl->s[0].title, "%s", title);
	pl->s[pl->nseries].axis = axis;
	pl->s[pl->nseries++].y = y;
	return y;
}

/* Copies column c of t as a series. */
static rt_status copy_series(plot *pl, const table *t, int c, const char *title, int axis,
			     rt_error *err)
{
	double *y = add_series(pl, t, title, axis, err);
	if (!y)
		return err->status;
	for (long r = 0; r < t->nrows; r++)
		y[r] = t->v[r * t->ncols + c];
	return RT_OK;
}

/* gp: generation, best, mean, mean_size, best_size, ... */
static rt_status map_gp(plot *pl, const table *t, const char *path, rt_error *err)
{
	static const char *const need[] = { "best", "mean", "mean_size", "best_size" };
	static const char *const titles[] = { "best fitness", "mean fitness", "mean program size",
					      "best program size" };
	for (int k = 0; k < 4; k++) {
		int c = column(t, need[k]);
		if (c < 0)
			return rt_fail(err, RT_ERR_INPUT, "%s:1: expected a column '%s' (a gp history)",
				       path, need[k]);
		rt_status st = copy_series(pl, t, c, titles[k], k < 2 ? 1 : 2, err);
		if (st)
			return st;
	}
	snprintf(pl->ylabel, sizeof pl->ylabel, "fitness (lower is better)");
	snprintf(pl->y2label, sizeof pl->y2label, "program size (nodes)");
	return RT_OK;
}

/* de: generation, evaluations, best_0 .. best_{n-1}: the best over the
 * problems and their mean (f - f* when result.json knows f*). */
static rt_status map_de(plot *pl, const table *t, const char *path, rt_error *err)
{
	int first = column(t, "best_0"), n = 0;
	while (first >= 0 && first + n < t->ncols && !strncmp(t->names[first + n], "best_", 5))
		n++;
	if (n == 0)
		return rt_fail(err, RT_ERR_INPUT, "%s:1: expected columns best_0, best_1, ... (a de "
			       "history)", path);
	double f0 = isnan(pl->optimum) ? 0 : pl->optimum, *lo, *mean = NULL;
	char title[96];
	snprintf(title, sizeof title, n > 1 ? "best of %d problems" : "best", n);
	if (!(lo = add_series(pl, t, title, 1, err)))
		return err->status;
	if (n > 1 && !(mean = add_series(pl, t, "mean of the problems' best", 1, err)))
		return err->status;
	for (long r = 0; r < t->nrows; r++) {
		double sum = 0, best = INFINITY;
		for (int k = 0; k < n; k++) {
			double f = t->v[r * t->ncols + first + k] - f0;
			sum += f;
			best = fmin(best, f);
		}
		lo[r] = best;
		if (mean)
			mean[r] = sum / n;
	}
	if (isnan(pl->optimum))
		snprintf(pl->ylabel, sizeof pl->ylabel, "f(x)");
	else
		snprintf(pl->ylabel, sizeof pl->ylabel, "f(x) - f*  (f* = %g)", pl->optimum);
	return RT_OK;
}

/* aco: iteration, best_length, ...: the best tour so far; the gap to the
 * optimum on y2 when it is known. */
static rt_status map_aco(plot *pl, const table *t, const char *path, rt_error *err)
{
	int c = column(t, "best_length");
	if (c < 0)
		return rt_fail(err, RT_ERR_INPUT, "%s:1: expected a column 'best_length' (an aco "
			       "history)", path);
	rt_status st = copy_series(pl, t, c, "best tour so far", 1, err);
	if (st)
		return st;
	snprintf(pl->ylabel, sizeof pl->ylabel, "tour length");
	if (!isnan(pl->optimum) && pl->optimum > 0) {
		pl->gap = 1;
		snprintf(pl->y2label, sizeof pl->y2label, "gap to the optimum %g (%%)", pl->optimum);
	}
	return RT_OK;
}

/* mbp: epoch, train_rms[, valid_rms] or, for several networks, min_ and
 * mean_ of each: the RMS against the epoch, logarithmic from a decade. */
static rt_status map_mbp(plot *pl, const table *t, const char *path, rt_error *err)
{
	static const char *const cols[] = { "train_rms", "valid_rms", "min_train_rms",
					    "mean_train_rms", "min_valid_rms", "mean_valid_rms" };
	static const char *const titles[] = { "training RMS (the epoch's)", "validation RMS",
					      "lowest training RMS of the networks",
					      "mean training RMS", "lowest validation RMS",
					      "mean validation RMS" };
	for (int k = 0; k < 6; k++) {
		int c = column(t, cols[k]);
		rt_status st = c >= 0 ? copy_series(pl, t, c, titles[k], 1, err) : RT_OK;
		if (st)
			return st;
	}
	if (pl->nseries == 0)
		return rt_fail(err, RT_ERR_INPUT, "%s:1: expected a column 'train_rms' or "
			       "'min_train_rms' (an mbp history)", path);
	pl->log_span = 10;
	snprintf(pl->ylabel, sizeof pl->ylabel, "RMS error (scaled targets)");
	return RT_OK;
}

/* svm: pair, iteration, objective, gap (rows of a pair together, its
 * iterations ascending). */
static rt_status map_svm(plot *pl, const table *t, const char *path, rt_error *err)
{
	static const char *const need[] = { "pair", "iteration", "objective", "gap" };
	int *c[] = { &pl->c_pair, &pl->c_iter, &pl->c_obj, &pl->c_gap };
	for (int k = 0; k < 4; k++)
		if ((*c[k] = column(t, need[k])) < 0)
			return rt_fail(err, RT_ERR_INPUT, "%s:1: expected a column '%s' (an svm "
				       "history: pair,iteration,objective,gap)", path, need[k]);
	pl->svm = 1;
	return RT_OK;
}

/* Any other kind: the columns named best... or mean... (or holding rms,
 * error, objective or accuracy) against the first. */
static rt_status map_other(plot *pl, const table *t, const char *path, rt_error *err)
{
	static const char *const words[] = { "rms", "error", "objective", "accuracy" };
	for (int c = 1; c < t->ncols && pl->nseries < MAX_SERIES; c++) {
		int take = !strncmp(t->names[c], "best", 4) || !strncmp(t->names[c], "mean", 4);
		for (int k = 0; k < 4; k++)
			take |= strstr(t->names[c], words[k]) != NULL;
		rt_status st = take ? copy_series(pl, t, c, t->names[c], 1, err) : RT_OK;
		if (st)
			return st;
	}
	if (pl->nseries == 0)
		return rt_fail(err, RT_ERR_INPUT, "%s:1: expected columns named best..., mean..., or "
			       "holding rms, error, objective or accuracy; got none", path);
	snprintf(pl->ylabel, sizeof pl->ylabel, "value");
	return RT_OK;
}

/* ---- the gnuplot script ----------------------------------------------------------- */

/* Should y1 be logarithmic? Its finite values are >= 0 and span over
 * pl->log_span. */
static int log_y1(const plot *pl, long nrows)
{
	double lo = INFINITY, hi = 0;
	for (int k = 0; k < pl->nseries; k++)
		for (long r = 0; pl->s[k].axis == 1 && r < nrows; r++) {
			double y = pl->s[k].y[r];
			if (!isfinite(y))
				continue;
			if (y < 0)
				return 0;
			if (y > 0)
				lo = fmin(lo, y), hi = fmax(hi, y);
		}
	return hi > 0 && hi / lo > pl->log_span;
}

/* The settings: terminal, output, title, axes. */
static void script_head(rt_buf *b, const plot *pl, const char *out, int logy)
{
	rt_buf_puts(b, "if (strstrt(GPVAL_TERMINALS, 'pngcairo') > 0) {\n"
		    "  set term pngcairo size 1000,650 font ',11'\n} else {\n"
		    "  set term png size 1000,650\n}\nset output ");
	rt_plot_quote(b, out);
	rt_buf_puts(b, "\nset encoding utf8\nset title ");
	rt_plot_quote(b, pl->title);
	rt_buf_puts(b, "\nset xlabel ");
	rt_plot_quote(b, pl->xlabel);
	rt_buf_puts(b, "\nset ylabel ");
	rt_plot_quote(b, pl->ylabel);
	rt_buf_puts(b, "\nset grid\nset key top right box opaque\nset ytics nomirror\n");
	if (logy)
		rt_buf_puts(b, "set logscale y\nset format y '%.0e'\n");
	if (pl->y2label[0]) {
		rt_buf_puts(b, "set y2label ");
		rt_plot_quote(b, pl->y2label);
		rt_buf_puts(b, "\nset y2tics\n");
	}
	if (logy && pl->log_span < 1000)   /* a few decades: every decade labelled */
		rt_buf_puts(b, "set mytics 10\n");
	if (pl->gap)   /* y2 shows y1 as the gap to the optimum */
		rt_buf_printf(b, "set link y2 via (y - %.17g) / %.17g * 100 inverse %.17g * (1 + y / "
			      "100)\nset format y2 '%%.1f%%%%'\n", pl->optimum, pl->optimum, pl->optimum);
}

/* The script that draws pl (x from column 0 of t) into out. */
static void script(rt_buf *b, const plot *pl, const table *t, const char *out)
{
	int logy = log_y1(pl, t->nrows);
	script_head(b, pl, out, logy);
	rt_buf_puts(b, "$history << EOD\n");
	for (long r = 0; r < t->nrows; r++) {
		rt_buf_printf(b, "%.17g", t->v[r * t->ncols]);
		for (int k = 0; k < pl->nseries; k++) {
			double y = pl->s[k].y[r];
			if (isfinite(y) && !(logy && pl->s[k].axis == 1 && y <= 0))
				rt_buf_printf(b, " %.17g", y);
			else
				rt_buf_puts(b, " NaN");
		}
		rt_buf_puts(b, "\n");
	}
	rt_buf_puts(b, "EOD\nplot ");
	for (int k = 0; k < pl->nseries; k++) {
		rt_buf_printf(b, "%s$history using 1:%d with lines linewidth 2 title ", k ? ", " : "",
			      k + 2);
		rt_plot_quote(b, pl->s[k].title);
		rt_buf_printf(b, " axes x1y%d", pl->s[k].axis);
	}
	rt_buf_puts(b, "\n");
}

/* The svm panel of column c for every pair's rows (a block each): its
 * values over 0 only when logy. */
static void svm_panel(rt_buf *b, const plot *pl, const table *t, int c, int logy, long npairs)
{
	rt_buf_printf(b, "$p%d << EOD\n", c);
	for (long r = 0; r < t->nrows; r++) {
		const double *row = t->v + r * t->ncols;
		double y = row[c];
		if (r > 0 && row[pl->c_pair] != row[pl->c_pair - t->ncols])
			rt_buf_puts(b, "\n\n");
		if (isfinite(y) && !(logy && y <= 0))
			rt_buf_printf(b, "%.17g %.17g\n", row[pl->c_iter], y);
		else
			rt_buf_printf(b, "%.17g NaN\n", row[pl->c_iter]);
	}
	rt_buf_puts(b, "EOD\nplot ");
	for (long q = 0, r = 0; q < npairs; q++) {
		rt_buf_printf(b, "%s$p%d index %ld using 1:2 with lines linewidth 2 ", q ? ", " : "", c, q);
		if (npairs == 1) {
			rt_buf_puts(b, logy ? "title 'violation m(α) − M(α)'" : "title 'dual objective'");
		} else if (npairs <= 10) {
			rt_buf_printf(b, "title 'pair %.0f'", t->v[r * t->ncols + pl->c_pair]);
		} else {
			rt_buf_puts(b, "notitle");
		}
		double pair = t->v[r * t->ncols + pl->c_pair];
		while (r < t->nrows && t->v[r * t->ncols + pl->c_pair] == pair)
			r++;   /* to the next pair's first row */
	}
	if (logy && isfinite(pl->eps) && pl->eps > 0)
		rt_buf_printf(b, ", %.17g with lines dashtype 2 linecolor 'black' title 'eps = %g "
			      "(SMO stops below)'", pl->eps, pl->eps);
	rt_buf_puts(b, "\n");
}

/* svm: the dual objective above, the violation (logarithmic) below. */
static void script_svm(rt_buf *b, const plot *pl, const table *t, const char *out)
{
	long npairs = 1;
	for (long r = 1; r < t->nrows; r++)
		npairs += t->v[r * t->ncols + pl->c_pair] != t->v[(r - 1) * t->ncols + pl->c_pair];
	rt_buf_puts(b, "if (strstrt(GPVAL_TERMINALS, 'pngcairo') > 0) {\n"
		    "  set term pngcairo size 1000,800 font ',11'\n} else {\n"
		    "  set term png size 1000,800\n}\nset output ");
	rt_plot_quote(b, out);
	rt_buf_puts(b, "\nset encoding utf8\nset multiplot layout 2,1 title ");
	rt_plot_quote(b, pl->title);
	rt_buf_printf(b, "\nset grid\nset key top right box opaque\nset xlabel 'SMO iteration'\n"
		      "set ylabel 'dual objective ½ αᵀQα − eᵀα%s'\n",
		      npairs > 1 ? " (each pair)" : "");
	svm_panel(b, pl, t, pl->c_obj, 0, npairs);
	rt_buf_printf(b, "set logscale y\nset format y '%%.0e'\nset ylabel 'violation m(α) − M(α)%s'\n",
		      npairs > 1 ? " (each pair)" : "");
	svm_panel(b, pl, t, pl->c_gap, 1, npairs);
	rt_buf_puts(b, "unset multiplot\n");
}

/* ---- the command ------------------------------------------------------------------ */

/* dir/result.json's kind, name and optimum when it is there (an error when it
 * is there but malformed); else the kind guessed later from the header. */
static rt_status read_result(const char *dir, rt_jval *res, plot *pl, rt_error *err)
{
	char path[RT_PATH_MAX];
	rt_status st;
	const rt_jval *v;
	pl->optimum = NAN;
	pl->eps = NAN;
	if ((st = rt_format(path, sizeof path, err, "%s/result.json", dir)) != RT_OK)
		return st;
	if (access(path, F_OK) != 0)
		return RT_OK;
	if ((st = rt_jload(path, res, err)) != RT_OK)
		return st;
	if ((v = rt_jget(res, "kind")) && v->type == RT_JSTRING)
		pl->kind = v->str;
	if (((v = rt_jget(res, "name")) && v->type == RT_JSTRING) ||
	    ((v = rt_jget(res, "problem")) && v->type == RT_JSTRING))   /* gp's */
		pl->name = v->str;
	if ((v = rt_jget(res, "optimum")) && v->type == RT_JNUMBER)
		pl->optimum = v->num;
	if ((v = rt_jget(res, "eps")) && v->type == RT_JNUMBER)
		pl->eps = v->num;
	return RT_OK;
}

/* The kind's series of t (a kind not given by result.json: from the header). */
static rt_status map_kind(plot *pl, const table *t, const char *path, rt_error *err)
{
	if (!pl->kind)
		pl->kind = column(t, "mean_size") >= 0 ? "gp" : column(t, "best_0") >= 0 ? "de"
			 : column(t, "best_length") >= 0 ? "aco"
			 : column(t, "train_rms") >= 0 || column(t, "min_train_rms") >= 0 ? "mbp"
			 : column(t, "gap") >= 0 && column(t, "pair") >= 0 ? "svm" : "";
	pl->log_span = 1000;
	snprintf(pl->xlabel, sizeof pl->xlabel, "%s", t->names[0]);
	snprintf(pl->title, sizeof pl->title, "%s%s%s%s: convergence over %ld rows of history.csv",
		 pl->name ? pl->name : "", pl->name ? " (" : "", pl->kind[0] ? pl->kind : "run",
		 pl->name ? ")" : "", t->nrows);
	if (!strcmp(pl->kind, "gp"))
		return map_gp(pl, t, path, err);
	if (!strcmp(pl->kind, "de"))
		return map_de(pl, t, path, err);
	if (!strcmp(pl->kind, "aco"))
		return map_aco(pl, t, path, err);
	if (!strcmp(pl->kind, "mbp"))
		return map_mbp(pl, t, path, err);
	if (!strcmp(pl->kind, "svm"))
		return map_svm(pl, t, path, err);
	return map_other(pl, t, path, err);
}

rt_status rt_plot_png(const rt_buf *script, const char *tmp, const char *png, const char *what,
		      rt_error *err)
{
	rt_status st = script->failed ? rt_fail(err, RT_ERR_SYSTEM, "out of memory writing the "
						"gnuplot script for %s", what)
				      : rt_plot_run(script, what, err);
	if (st == RT_OK && rename(tmp, png) != 0)
		st = rt_fail(err, RT_ERR_SYSTEM, "%s: cannot rename %s: %s", png, tmp, strerror(errno));
	if (st != RT_OK)
		unlink(tmp);
	return st;
}

/* Draws pl into png through png.tmp.PID, renamed when gnuplot succeeded. */
static rt_status draw(const plot *pl, const table *t, const char *png, rt_error *err)
{
	char tmp[RT_PATH_MAX];
	rt_buf b;
	rt_status st;
	if ((st = rt_format(tmp, sizeof tmp, err, "%s.tmp.%d", png, (int)getpid())) != RT_OK)
		return st;
	memset(&b, 0, sizeof b);
	if (pl->svm)
		script_svm(&b, pl, t, tmp);
	else
		script(&b, pl, t, tmp);
	st = rt_plot_png(&b, tmp, png, png, err);
	rt_buf_free(&b);
	return st;
}

rt_status rt_plot_convergence(const char *dir, const char *png, rt_error *err)
{
	char hist[RT_PATH_MAX], out[RT_PATH_MAX];
	struct stat sb;
	rt_jval res = { 0 };
	table t = { 0 };
	plot pl;
	rt_status st;
	memset(&pl, 0, sizeof pl);
	int missing = stat(dir, &sb) != 0;
	if (missing || !S_ISDIR(sb.st_mode))
		return rt_fail(err, RT_ERR_INPUT, "%s: %s (expected the results folder of a run, its "
			       "-o DIR)", dir, missing ? strerror(errno) : "not a folder");
	if ((st = rt_format(hist, sizeof hist, err, "%s/history.csv", dir)) ||
	    (st = rt_format(out, sizeof out, err, "%s", png ? png : "")) ||
	    (!png && (st = rt_format(out, sizeof out, err, "%s/convergence.png", dir))) ||
	    (st = read_result(dir, &res, &pl, err)))
		goto done;
	if (access(hist, R_OK) != 0) {
		int e = errno;
		if (pl.kind && !strcmp(pl.kind, "svm") && rt_jget(&res, "grid_cells"))
			st = rt_fail(err, RT_ERR_INPUT, "%s: %s: an svm grid search writes no "
				     "history.csv; its plot is %s/grid.png (accuracy over log2 C and "
				     "log2 gamma, drawn by the run with gnuplot) and its cells grid.csv",
				     hist, strerror(e), dir);
		else if (pl.kind && !strcmp(pl.kind, "svm") && rt_jget(&res, "cv_accuracy"))
			st = rt_fail(err, RT_ERR_INPUT, "%s: %s: an svm cross-validation writes no "
				     "history.csv (only its accuracy, in result.json): nothing to plot",
				     hist, strerror(e));
		else
			st = rt_fail(err, RT_ERR_INPUT, "%s: %s (expected the history.csv a run "
				     "writes)", hist, strerror(e));
		goto done;
	}
	if ((st = read_history(hist, &t, err)) || (st = map_kind(&pl, &t, hist, err)))
		goto done;
	if (!rt_plot_on_path("gnuplot")) {
		st = rt_fail(err, RT_ERR_INPUT, "gnuplot not found: apt-get install gnuplot-nox");
		goto done;
	}
	st = draw(&pl, &t, out, err);
done:
	for (int k = 0; k < pl.nseries; k++)
		free(pl.s[k].y);
	table_free(&t);
	rt_jfree(&res);
	return st;
}
