/* kinds.c: the table of algorithm families and the job helpers every kind
 * shares (seed, results folder). */
#include <stdio.h>
#include <string.h>

#include "kprep.h"
#include "aco/aco.h"
#include "de/de.h"
#include "gp/gp.h"
#include "mbp/mbp.h"
#include "svm/svm.h"
#include "kinds.h"
#include "log.h"
#include "out.h"
#include "timeline.h"
#include "signals.h"


static const rt_kind *const kind_table[] = {&gp_kind, &de_kind, &aco_kind, &mbp_kind,
					    &svm_kind, NULL};

const rt_kind *rt_kind_find(const char *name)
{
	for (int i = 0; kind_table[i]; i++)
		if (!strcmp(kind_table[i]->name, name))
			return kind_table[i];
	return NULL;
}

const rt_kind *const *rt_kinds(void) { return kind_table; }

rt_status rt_kind_of_spec(rt_spec *spec, const rt_kind **kind, rt_error *err)
{
	const char *name;
	rt_spec_entry *e;
	char where[RT_PATH_MAX + 64];
	if (rt_spec_string(spec, "problem", "kind", NULL, &name, err))
		return RT_ERR_INPUT;
	e = rt_spec_find(spec, "problem", "kind");
	*kind = rt_kind_find(name);
	if (!*kind)
		return rt_fail(err, RT_ERR_INPUT,
			       "%s: [problem] kind: expected one of gp, de, aco, mbp, svm, got '%s'",
			       rt_spec_where(spec, e, where, sizeof where), name);
	if (!(*kind)->run)
		return rt_fail(err, RT_ERR_UNSUPPORTED, "%s: kind '%s' is not available in this "
			       "version of evoforge: %s", rt_spec_where(spec, e, where, sizeof where),
			       name, (*kind)->summary);
	return RT_OK;
}

/* --resume with a kind that writes no checkpoints: refused, naming those that do. */
static rt_status check_resume(const rt_kind *kind, const rt_options *opt, rt_error *err)
{
	char those[128] = "";   /* the kinds that do, from the table */
	if (!opt->resume || kind->checkpoints)
		return RT_OK;
	for (int i = 0; kind_table[i]; i++)
		if (kind_table[i]->checkpoints)
			snprintf(those + strlen(those), sizeof those - strlen(those), "%s%s",
				 those[0] ? ", " : "", kind_table[i]->name);
	return rt_fail(err, RT_ERR_UNSUPPORTED, "--resume: kind '%s' writes no checkpoints yet "
		       "(%s do)", kind->name, those);
}

static rt_status run_kind(const rt_kind *kind, rt_spec *spec, const rt_options *opt,
			  rt_error *err)
{
	rt_status st = kind->run(spec, opt, err);
	rt_kprep_release();
	if (st == RT_OK)
		st = rt_timeline_finish(err);
	return st;
}

rt_status rt_kind_run(const rt_kind *kind, rt_spec *spec, const rt_options *opt, rt_error *err)
{
	rt_status st = check_resume(kind, opt, err);
	if (st != RT_OK)
		return st;
	rt_signals_install();
	st = run_kind(kind, spec, opt, err);
	if (st == RT_OK && rt_stop_requested())
		rt_warn("%s: stopped by %s: the results so far are written, marked \"interrupted\" "
			"(exit status %d)", kind->name, rt_stop_signal_name(), RT_EXIT_INTERRUPTED);
	return st;
}

rt_status rt_kind_run_uncaught(const rt_kind *kind, rt_spec *spec, const rt_options *opt,
			       rt_error *err)
{
	rt_status st = check_resume(kind, opt, err);
	return st == RT_OK ? run_kind(kind, spec, opt, err) : st;
}

rt_status rt_kind_set_steps(rt_spec *spec, const rt_kind *kind, const char *value, rt_error *err)
{
	if (!kind->steps_key)
		return rt_fail(err, RT_ERR_INPUT, "--generations: kind '%s' has no generations or "
			       "iterations to set (it runs until its stopping rule holds)", kind->name);
	return rt_spec_set(spec, kind->name, kind->steps_key, value, err);
}

rt_status rt_job_seed(rt_spec *spec, const rt_options *opt, uint64_t *seed, rt_error *err)
{
	uint64_t from_spec;
	rt_status st = rt_spec_u64(spec, "problem", "seed", 1, &from_spec, err);
	if (st != RT_OK)
		return st;
	*seed = opt->seed_given ? opt->seed : from_spec;
	return RT_OK;
}

rt_status rt_job_outdir(const rt_options *opt, const char *problem_name, char *out, int size,
			rt_error *err)
{
	rt_status st;
	if (opt->outdir)
		st = rt_format(out, (size_t)size, err, "%s", opt->outdir);
	else
		st = rt_format(out, (size_t)size, err, "results/%s", problem_name);
	if (st != RT_OK)
		return st;
	rt_timeline_set_dir(out);
	return rt_mkdirs(out, err);
}
