/* export.h: the shared commands `evoforge export` and `evoforge eval`: read a
 * run's result.json, find its kind and call the kind's hooks
 * (rt_kind.export_result, rt_kind.eval_result); and what those hooks share
 * (names for generated files, compiling an exported program). */
#ifndef RT_EXPORT_H
#define RT_EXPORT_H

#include <stddef.h>

#include "json_read.h"
#include "kinds.h"

/* `evoforge export RESULT -o DIR`: the deployable artefacts of the run. */
rt_status rt_export(const char *result_path, const rt_options *opt, const char *dir,
		    rt_error *err);
/* `evoforge eval RESULT DATA [-o OUT]`: the run's best solution on DATA,
 * one prediction per row into out (NULL: standard output). */
rt_status rt_eval(const char *result_path, const char *data, const char *out,
		  const rt_options *opt, rt_error *err);

/* A C identifier made of the problem name ("mbp-sonar" -> "mbp_sonar"). */
void rt_export_ident(const char *problem, char *out, size_t size);
/* The file `name` beside result.json (same folder) into out. */
rt_status rt_export_sibling(const char *result_path, const char *name, char *out, size_t size,
			    rt_error *err);
/* dir/Makefile building ID-eval from ID-eval.c, ID.c and ID.h with plain
 * C99 and -lm (the svm and mbp exports). */
rt_status rt_export_makefile(const char *dir, const char *id, rt_error *err);
/* Compiles `sources` in dir into the program `exe` with the system's C
 * compiler (cc -std=c99 -O2 -Wall ... -lm) when there is one: *built says
 * whether it was. A failing compile is an RT_ERR_INTERNAL error (a bug in
 * what evoforge wrote) carrying the compiler's output. */
rt_status rt_export_cc(const char *dir, const char *exe, const char *sources, int *built,
		       rt_error *err);

#endif
