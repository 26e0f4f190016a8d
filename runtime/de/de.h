/* de.h: kind `de`, differential evolution (spec [problem] kind = de). */
#ifndef RT_DE_H
#define RT_DE_H

#include "kinds.h"

extern const rt_kind de_kind;

struct rt_jval;
/* `evoforge export` for kind de (de_export.c): best.csv (one row per
 * problem: problem, best, x1..xD) and best.json (the same as JSON). */
rt_status de_export_result(const struct rt_jval *result, const char *result_path,
			    const rt_options *opt, const char *dir, rt_error *err);

#endif
