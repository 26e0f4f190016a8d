/* tune.c: the search behind `evoforge tune` (tune.h), the table it prints,
 * and applying a stored winner to `run` and `bench`.
 *
 * Why this search: a kind's space is the product of a handful of parameters
 * (GP on the GPU: thousands of points) and every GPU point costs an NVRTC
 * compile, so the whole grid never fits a minute. The default is timed
 * first (every table compares with it), then a coarse grid (each parameter
 * thinned to every 2nd, 4th ... value, its ends and default kept) visited in
 * a fixed shuffled order so that a budget cut still covers the space, then
 * a hill climb that moves one parameter to its neighbouring value while that
 * improves. Finally the best and the default are timed again and keep their
 * better figure, so one lucky measurement does not decide the winner. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cpu.h"
#include "log.h"
#include "nvrtc.h"
#include "out.h"
#include "tune.h"
#include "tunedb.h"

/* Share of the budget the coarse grid may use; refinement gets the rest. */
#define TUNE_GRID_SHARE 0.6
/* Spilled bytes (stores + loads a thread) a configuration may have and still
 * be timed: a few words stay in L1 and cost little (on the H100 GP's default
 * on KDD Cup spills 16 + 28 bytes and is the fastest hand-picked variant);
 * more is pruned without launching. */
#define TUNE_SPILL_TOLERATED 64
/* Most points of the coarse grid. */
#define TUNE_MAX_COARSE 48
/* A neighbour must beat the current point by this factor to move there. */
#define TUNE_MIN_GAIN 1.01

/* ---- the search ------------------------------------------------------------------ */

typedef struct search {
	const rt_tune_kind *k;
	void *state;
	const rt_tune_space *space;
	rt_tune_outcome *out;
	double t0, budget, spent_timing;
	int ntimed, progress;
} search;

const char *rt_tune_config_text(const rt_tune_space *space, const rt_tune_config *cfg, char *buf,
				int size)
{
	int n = 0;
	buf[0] = '\0';
	for (int p = 0; p < space->nparams && n < size; p++)
		n += snprintf(buf + n, (size_t)(size - n), "%s%s=%s", p ? " " : "",
			      space->params[p].name, space->params[p].values[cfg->v[p]]);
	return buf;
}

static int find_trial(const rt_tune_outcome *o, const rt_tune_config *cfg, int nparams)
{
	for (int i = 0; i < o->ntrials; i++)
		if (!memcmp(o->trials[i].cfg.v, cfg->v, (size_t)nparams * sizeof cfg->v[0]))
			return i;
	return -1;
}

static void progress_bar(const search *s)
{
	char bar[31], rate[32];
	double f = (rt_now() - s->t0) / s->budget;
	const rt_tune_outcome *o = s->out;
	int fill = (int)((f > 1 ? 1 : f) * 30);
	if (!s->progress)
		return;
	memset(bar, '#', (size_t)fill);
	memset(bar + fill, '.', (size_t)(30 - fill));
	bar[30] = '\0';
	rt_si(o->best >= 0 ? o->trials[o->best].rate : 0, rate, sizeof rate);
	fprintf(stderr, "\rtuning [%s] %3.0f%%  %d tried, best %s %s", bar, f > 1 ? 100 : f * 100,
		o->ntrials, rate, s->space->unit);
	fflush(stderr);
}

/* Ends the search when the next timing would likely overrun the budget. */
static int out_of_time(const search *s, double share)
{
	double per = s->ntimed ? s->spent_timing / s->ntimed : 0;
	return rt_now() - s->t0 + per > s->budget * share;
}

/* Prunes or times cfg (once: a configuration tried before is looked up).
 * *index: its trial. Errors of the configuration itself (it does not
 * compile, launch or fit) are recorded as FAILED; others end the search. */
static rt_status try_config(search *s, const rt_tune_config *cfg, int *index, rt_error *err)
{
	rt_tune_outcome *o = s->out;
	rt_tune_trial *t;
	rt_error e = {0};
	rt_status st = RT_OK;
	int ok = 1;
	double t0 = rt_now();
	if ((*index = find_trial(o, cfg, s->space->nparams)) >= 0)
		return RT_OK;
	if (o->ntrials == o->cap) {
		rt_tune_trial *m = rt_realloc(o->trials, (size_t)(o->cap * 2 + 32) * sizeof *m, err);
		if (!m)
			return RT_ERR_SYSTEM;
		o->trials = m;
		o->cap = o->cap * 2 + 32;
	}
	t = &o->trials[*index = o->ntrials++];
	memset(t, 0, sizeof *t);
	t->cfg = *cfg;
	if (s->k->prune)
		st = s->k->prune(s->state, cfg, &ok, t->note, sizeof t->note, &e);
	if (st == RT_OK && !ok && *index != 0)   /* the default (trial 0), the reference, runs anyway */
		t->verdict = RT_TUNE_PRUNED;
	else if (st == RT_OK && (st = s->k->time(s->state, cfg, &t->rate, &e)) == RT_OK)
		t->verdict = RT_TUNE_TIMED;
	if (st != RT_OK) {
		if (st == RT_ERR_SYSTEM || st == RT_ERR_NOGPU || st == RT_ERR_INTERNAL) {
			o->ntrials--;
			return rt_fail(err, st, "%s", e.msg);
		}
		t->verdict = RT_TUNE_FAILED;
		snprintf(t->note, sizeof t->note, "%.150s", e.msg);
	}
	if (t->verdict == RT_TUNE_TIMED) {
		s->spent_timing += rt_now() - t0;
		s->ntimed++;
		if (o->best < 0 || t->rate > o->trials[o->best].rate)
			o->best = *index;
	}
	progress_bar(s);
	return RT_OK;
}

/* The coarse grid: each parameter's kept values (stride, ends, default). */
static int grid_values(const rt_tune_param *p, int stride, int *out)
{
	int n = 0;
	for (int i = 0; i < p->nvalues; i++)
		if (i % stride == 0 || i == p->nvalues - 1 || i == p->def)
			out[n++] = i;
	return n;
}

static rt_status coarse_grid(search *s, rt_error *err)
{
	const rt_tune_space *sp = s->space;
	int stride[RT_TUNE_MAX_PARAMS], keep[RT_TUNE_MAX_PARAMS][RT_TUNE_MAX_VALUES],
	    nkeep[RT_TUNE_MAX_PARAMS], total, idx;
	unsigned long long lcg = 0x9e3779b97f4a7c15ULL;
	for (int p = 0; p < sp->nparams; p++)
		stride[p] = 1;
	for (;;) {   /* thin the parameter with the most kept values until the grid is small */
		int widest = -1;
		total = 1;
		for (int p = 0; p < sp->nparams; p++) {
			nkeep[p] = grid_values(&sp->params[p], stride[p], keep[p]);
			total *= nkeep[p];
			if (nkeep[p] > 3 && (widest < 0 || nkeep[p] > nkeep[widest]))
				widest = p;
		}
		if (total <= TUNE_MAX_COARSE || widest < 0)
			break;
		stride[widest] *= 2;
	}
	int *order = rt_malloc((size_t)total * sizeof *order, err);
	if (!order)
		return RT_ERR_SYSTEM;
	for (int i = 0; i < total; i++)
		order[i] = i;
	for (int i = total - 1; i > 0; i--) {   /* fixed shuffle: the same order every time */
		lcg = lcg * 6364136223846793005ULL + 1442695040888963407ULL;
		int j = (int)((lcg >> 33) % (unsigned long long)(i + 1)), t = order[i];
		order[i] = order[j];
		order[j] = t;
	}
	rt_status st = RT_OK;
	for (int i = 0; i < total && st == RT_OK && !out_of_time(s, TUNE_GRID_SHARE); i++) {
		rt_tune_config c;
		memset(&c, 0, sizeof c);
		for (int p = 0, r = order[i]; p < sp->nparams; r /= nkeep[p], p++)
			c.v[p] = keep[p][r % nkeep[p]];
		st = try_config(s, &c, &idx, err);
	}
	free(order);
	return st;
}

/* Hill climb from the best: the best neighbour (one parameter one value up
 * or down) while it gains at least TUNE_MIN_GAIN. */
static rt_status refine(search *s, rt_error *err)
{
	const rt_tune_space *sp = s->space;
	rt_tune_outcome *o = s->out;
	int moved = 1, idx;
	while (moved && o->best >= 0) {
		rt_tune_config cur = o->trials[o->best].cfg;
		double here = o->trials[o->best].rate;
		moved = 0;
		for (int p = 0; p < sp->nparams; p++)
			for (int d = -1; d <= 1; d += 2) {
				rt_tune_config c = cur;
				c.v[p] += d;
				if (c.v[p] < 0 || c.v[p] >= sp->params[p].nvalues ||
				    find_trial(o, &c, sp->nparams) >= 0)
					continue;
				if (out_of_time(s, 1.0))
					return RT_OK;
				rt_status st = try_config(s, &c, &idx, err);
				if (st)
					return st;
				if (o->trials[idx].verdict == RT_TUNE_TIMED &&
				    o->trials[idx].rate > here * TUNE_MIN_GAIN)
					moved = 1;
			}
	}
	return RT_OK;
}

/* Times trial i again; it keeps the better figure. */
static rt_status retime(search *s, int i, rt_error *err)
{
	rt_tune_trial *t = &s->out->trials[i];
	double rate;
	rt_error e;
	if (i < 0 || t->verdict != RT_TUNE_TIMED)
		return RT_OK;
	rt_status st = s->k->time(s->state, &t->cfg, &rate, &e);
	if (st == RT_ERR_SYSTEM || st == RT_ERR_NOGPU || st == RT_ERR_INTERNAL)
		return rt_fail(err, st, "%s", e.msg);
	if (st == RT_OK && rate > t->rate)
		t->rate = rate;
	return RT_OK;
}

rt_status rt_tune_search(const rt_tune_kind *k, void *state, const rt_tune_space *space,
			 double budget, int progress, rt_tune_outcome *out, rt_error *err)
{
	search s = {k, state, space, out, rt_now(), budget > 0 ? budget : RT_TUNE_DEFAULT_BUDGET, 0, 0,
		    progress && isatty(2)};
	rt_tune_config def;
	rt_status st;
	memset(out, 0, sizeof *out);
	out->best = out->def = -1;
	memset(&def, 0, sizeof def);
	for (int p = 0; p < space->nparams; p++)
		def.v[p] = space->params[p].def;
	if ((st = try_config(&s, &def, &out->def, err)) == RT_OK &&
	    (st = coarse_grid(&s, err)) == RT_OK && (st = refine(&s, err)) == RT_OK &&
	    (st = retime(&s, out->best, err)) == RT_OK && out->best != out->def)
		st = retime(&s, out->def, err);
	for (int i = 0; st == RT_OK && i < out->ntrials; i++)
		if (out->trials[i].verdict == RT_TUNE_TIMED &&
		    (out->best < 0 || out->trials[i].rate > out->trials[out->best].rate))
			out->best = i;
	if (out->def >= 0 && out->trials[out->def].verdict != RT_TUNE_TIMED)
		out->def = -1;
	if (s.progress)
		fprintf(stderr, "\r%*s\r", 90, "");
	out->seconds = rt_now() - s.t0;
	return st;
}

void rt_tune_outcome_free(rt_tune_outcome *out)
{
	free(out->trials);
	memset(out, 0, sizeof *out);
}

/* ---- helpers for the kinds' hooks ------------------------------------------------ */

int rt_tune_param_add(rt_tune_param *p, const char *fmt, ...)
{
	va_list ap;
	if (p->nvalues == RT_TUNE_MAX_VALUES)
		return -1;
	va_start(ap, fmt);
	vsnprintf(p->values[p->nvalues], sizeof p->values[0], fmt, ap);
	va_end(ap);
	return p->nvalues++;
}

void rt_tune_param_values(rt_tune_param *p, const char *section, const char *name,
			  const char *const *values, const char *def)
{
	int found = 0;
	snprintf(p->name, sizeof p->name, "%s", name);
	snprintf(p->key, sizeof p->key, "%s.%s", section, name);
	for (int i = 0; values[i]; i++) {
		int at = rt_tune_param_add(p, "%s", values[i]);
		if (at >= 0 && !strcmp(values[i], def))
			p->def = at, found = 1;
	}
	if (!found)
		p->def = rt_tune_param_add(p, "%s", def);
}

void rt_tune_param_threads(rt_tune_param *p)
{
	int n = cpu_thread_count(0);
	snprintf(p->name, sizeof p->name, "threads");
	snprintf(p->key, sizeof p->key, "%s", RT_TUNE_THREADS_KEY);
	for (int t = 1; t < n; t *= 2)
		rt_tune_param_add(p, "%d", t);
	p->def = rt_tune_param_add(p, "%d", n);
}

rt_status rt_tune_overrides_text(const rt_tune_space *s, const rt_tune_config *cfg, char *buf,
				 int size, rt_error *err)
{
	int n = 0;
	buf[0] = '\0';
	for (int p = 0; p < s->nparams && n < size; p++)
		if (s->params[p].key[0])
			n += snprintf(buf + n, (size_t)(size - n), "%s%s=%s", n ? " " : "",
				      s->params[p].key, s->params[p].values[cfg->v[p]]);
	return n < size ? RT_OK : rt_fail(err, RT_ERR_INTERNAL, "tune: overrides longer than %d "
					   "characters", size);
}

rt_status rt_tune_check_kernel(const char *name, const char *source, const char *arch,
			       const char *const *options, int noptions, const char *kernel,
			       int threads, int regs_per_block, int *ok, char *why, int size,
			       rt_error *err)
{
	nvrtc_output out = {0};
	nvrtc_usage u;
	rt_error perr;
	rt_status st = nvrtc_compile(name, source, arch, options, noptions, &out, err);
	*ok = 1;
	if (st == RT_OK && nvrtc_parse_usage(out.log, kernel, &u, &perr) == RT_OK) {
		/* Registers are allocated per warp in units of 256 (8 per thread). */
		long regs = (long)(u.registers + 7) / 8 * 8 * threads;
		if (u.spill_stores + u.spill_loads > TUNE_SPILL_TOLERATED) {
			*ok = 0;
			snprintf(why, (size_t)size, "spills %d bytes stored, %d loaded (%d registers)",
				 u.spill_stores, u.spill_loads, u.registers);
		} else if (regs_per_block > 0 && regs > regs_per_block) {
			*ok = 0;
			snprintf(why, (size_t)size, "%d registers x %d threads exceed %d per block",
				 u.registers, threads, regs_per_block);
		}
	}
	nvrtc_output_free(&out);
	return st;
}

/* ---- the table ------------------------------------------------------------------- */

static const rt_tune_outcome *sort_outcome;

static int cmp_trial(const void *a, const void *b)
{
	const rt_tune_trial *x = &sort_outcome->trials[*(const int *)a],
			    *y = &sort_outcome->trials[*(const int *)b];
	int rx = x->verdict == RT_TUNE_TIMED, ry = y->verdict == RT_TUNE_TIMED;
	if (rx != ry)
		return ry - rx;
	return (x->rate < y->rate) - (x->rate > y->rate);
}

/* One row: rank, each parameter's value, rate, ratio to the default. */
static void print_row(const rt_tune_space *sp, const rt_tune_trial *t, const char *rank,
		      double def_rate, int is_def)
{
	char rate[32] = "-", ratio[48] = "-";
	printf("| %-4s |", rank);
	for (int p = 0; p < sp->nparams; p++)
		printf(" %s |", sp->params[p].values[t->cfg.v[p]]);
	if (t->verdict == RT_TUNE_TIMED) {
		rt_si(t->rate, rate, sizeof rate);
		if (def_rate > 0)
			snprintf(ratio, sizeof ratio, "%.2fx%s", t->rate / def_rate, is_def ? " (default)" : "");
	} else {
		snprintf(ratio, sizeof ratio, "%s", t->verdict == RT_TUNE_PRUNED ? "pruned" : "failed");
	}
	printf(" %s | %s |%s%s\n", rate, ratio, t->note[0] ? " " : "", t->note);
}

/* The configurations tried, best first (at most `rows` timed ones, then the
 * default if it ranked lower, then the pruned and failed ones). */
static void print_table(const rt_tune_space *sp, const rt_tune_outcome *o, int rows)
{
	int *order = malloc((size_t)o->ntrials * sizeof *order), shown = 0;
	double def_rate = o->def >= 0 ? o->trials[o->def].rate : 0;
	if (!order)
		return;
	for (int i = 0; i < o->ntrials; i++)
		order[i] = i;
	sort_outcome = o;
	qsort(order, (size_t)o->ntrials, sizeof *order, cmp_trial);
	printf("\n| rank |");
	for (int p = 0; p < sp->nparams; p++)
		printf(" %s |", sp->params[p].name);
	printf(" %s | vs default |\n|---|", sp->unit);
	for (int p = 0; p < sp->nparams; p++)
		printf("---|");
	printf("---:|---:|\n");
	for (int r = 0; r < o->ntrials; r++) {
		const rt_tune_trial *t = &o->trials[order[r]];
		char rank[16];
		snprintf(rank, sizeof rank, "%d", r + 1);
		if (t->verdict != RT_TUNE_TIMED || r < rows || order[r] == o->def)
			print_row(sp, t, t->verdict == RT_TUNE_TIMED ? rank : "-", def_rate,
				  order[r] == o->def);
		else if (shown++ == 0)
			printf("| ...  | (%d more timed) |\n", o->ntrials - rows);
	}
	free(order);
}

/* ---- the commands ---------------------------------------------------------------- */

/* The database key of spec for backend (resolved) and the entry's identity. */
static void entry_for(const rt_kind *kind, rt_spec *spec, rt_backend backend, const gpu_info *info,
		      rt_tunedb_entry *e)
{
	rt_spec_entry *name = rt_spec_find(spec, "problem", "name");
	memset(e, 0, sizeof *e);
	rt_tunedb_identity(backend, info, e);
	rt_tunedb_make_key(e, rt_tunedb_signature(spec, kind->tune->unsigned_keys));
	snprintf(e->kind, sizeof e->kind, "%s", kind->name);
	snprintf(e->problem, sizeof e->problem, "%.*s", (int)sizeof e->problem - 1, name ? name->value : spec->path);
}

/* Searches and fills e with the winner; prints the table. */
static rt_status search_and_report(const rt_kind *kind, rt_spec *spec, const rt_options *opt,
				   rt_backend backend, const rt_tune_cli *tc, rt_tunedb_entry *e,
				   rt_error *err)
{
	const rt_tune_kind *k = kind->tune;
	rt_tune_space space;
	rt_tune_outcome o;
	void *state = NULL;
	char text[512], r1[32];
	long npoints = 1;
	rt_status st;
	memset(&space, 0, sizeof space);
	memset(&o, 0, sizeof o);
	if ((st = k->open(spec, opt, backend, &space, &state, err)))
		return st;
	for (int p = 0; p < space.nparams; p++)
		npoints *= space.params[p].nvalues;
	rt_info("tune %s %s on %s: %d parameters, %ld configurations, budget %.0f s; %s", kind->name,
		e->problem, e->device, space.nparams, npoints, tc->budget > 0 ? tc->budget
		: RT_TUNE_DEFAULT_BUDGET, space.what);
	st = rt_tune_search(k, state, &space, tc->budget, !rt_log_quiet(), &o, err);
	if (st == RT_OK && o.best < 0)
		st = rt_fail(err, RT_ERR_INPUT, "tune: no configuration could be timed (first failure: %s)",
			     o.ntrials ? o.trials[0].note : "none tried");
	if (st == RT_OK)
		st = k->overrides(state, &o.trials[o.best].cfg, e->overrides, sizeof e->overrides, err);
	k->close(state);
	if (st == RT_OK) {
		if (!rt_log_quiet())
			print_table(&space, &o, 15);
		e->rate = o.trials[o.best].rate;
		e->default_rate = o.def >= 0 ? o.trials[o.def].rate : 0;
		snprintf(e->unit, sizeof e->unit, "%s", space.unit);
		rt_info("\n%d configurations in %.1f s; best %s (%s %s, %.2fx the default)", o.ntrials,
			o.seconds, rt_tune_config_text(&space, &o.trials[o.best].cfg, text, sizeof text),
			rt_si(e->rate, r1, sizeof r1), e->unit,
			e->default_rate > 0 ? e->rate / e->default_rate : 0.0);
	}
	rt_tune_outcome_free(&o);
	return st;
}

rt_status rt_tune_command(const rt_kind *kind, rt_spec *spec, const rt_options *opt,
			  const rt_tune_cli *tc, rt_error *err)
{
	rt_backend chosen;
	gpu_info info;
	rt_tunedb_entry e, old;
	char path[RT_PATH_MAX];
	time_t now = time(NULL);
	struct tm tmv;
	rt_status st;
	if (!kind->tune)
		return rt_fail(err, RT_ERR_UNSUPPORTED, "tune: kind '%s' has no tunable parameters (its "
			       "kernel configuration is fixed; run and bench use it as it is)", kind->name);
	if ((st = rt_backend_select(opt->backend, &chosen, &info, err)) ||
	    (st = rt_tunedb_path(path, sizeof path, err)))
		return st;
	entry_for(kind, spec, chosen, &info, &e);
	if (!tc->retune && rt_tunedb_find(path, e.key, &old)) {
		rt_info("tune: %s on %s is tuned already (%s, %s): %s; --retune searches again",
			old.problem, old.device, old.date, path, old.overrides);
		return RT_OK;
	}
	if ((st = search_and_report(kind, spec, opt, chosen, tc, &e, err)))
		return st;
	strftime(e.date, sizeof e.date, "%Y-%m-%dT%H:%M:%SZ", gmtime_r(&now, &tmv));
	if ((st = rt_tunedb_store(path, &e, err)))
		return st;
	rt_info("tuned configuration: %s (written to %s; run and bench use it, --no-tune does not)",
		e.overrides, path);
	return RT_OK;
}

/* Applies one "section.key=value" unless the command line set that key;
 * appends what it did to `done` or `kept`. */
static rt_status apply_one(char *assignment, rt_spec *spec, rt_options *opt, rt_buf *done,
			   rt_buf *kept, rt_error *err)
{
	char *eq = strchr(assignment, '='), *dot = strchr(assignment, '.');
	rt_spec_entry *e;
	if (!eq || !dot || dot > eq)
		return rt_fail(err, RT_ERR_INPUT, "tuning database: bad override '%s'", assignment);
	*eq = *dot = '\0';
	if (!strcmp(assignment, "run") && !strcmp(dot + 1, "threads")) {
		*dot = '.';
		if (opt->threads) {
			rt_buf_printf(kept, " %s (--threads %d)", assignment, opt->threads);
		} else {
			opt->threads = atoi(eq + 1);
			cpu_set_threads(opt->threads);
			rt_buf_printf(done, " %s=%s", assignment, eq + 1);
		}
		return RT_OK;
	}
	e = rt_spec_find(spec, assignment, dot + 1);
	*dot = '.';
	if (e && e->line == 0) {
		rt_buf_printf(kept, " %s (--set)", assignment);
		return RT_OK;
	}
	*dot = '\0';
	rt_status st = rt_spec_set(spec, assignment, dot + 1, eq + 1, err);
	*dot = '.';
	rt_buf_printf(done, " %s=%s", assignment, eq + 1);
	return st;
}

rt_status rt_tune_apply(const rt_kind *kind, rt_spec *spec, rt_options *opt, rt_error *err)
{
	rt_backend chosen;
	gpu_info info;
	rt_tunedb_entry e, found;
	rt_error ignored;
	rt_buf done = {0}, kept = {0};
	char path[RT_PATH_MAX], *save = NULL;
	rt_status st = RT_OK;
	if (!kind->tune || rt_backend_select(opt->backend, &chosen, &info, &ignored) ||
	    rt_tunedb_path(path, sizeof path, &ignored))
		return RT_OK;   /* the run reports a missing GPU itself */
	entry_for(kind, spec, chosen, &info, &e);
	if (!rt_tunedb_find(path, e.key, &found))
		return RT_OK;
	for (char *a = strtok_r(found.overrides, " ", &save); a && st == RT_OK; a = strtok_r(NULL, " ", &save))
		st = apply_one(a, spec, opt, &done, &kept, err);
	if (st == RT_OK)
		rt_info("tuned configuration:%s (%.2fx the default's %s on %s, tuned %s; --no-tune: "
			"without it)%s%s", done.data ? done.data : " none applied",
			found.default_rate > 0 ? found.rate / found.default_rate : 0.0, found.unit,
			found.device, found.date, kept.data ? "; the command line keeps" : "",
			kept.data ? kept.data : "");
	rt_buf_free(&done);
	rt_buf_free(&kept);
	return st;
}
