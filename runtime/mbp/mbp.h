/* mbp.h: kind `mbp`, multiple back-propagation (MFF networks with selective
 * activation, and plain BP), as the kind table sees it. */
#ifndef RT_MBP_H
#define RT_MBP_H

#include "kinds.h"

extern const rt_kind mbp_kind;

struct rt_jval;
/* `evoforge export` for kind mbp (mbp_export.c): NAME.net (the network
 * file), NAME.c / NAME.h (the network as standalone C99 with its weights),
 * NAME-eval.c, a Makefile, and NAME-eval when cc is present. */
rt_status mbp_export_result(const struct rt_jval *result, const char *result_path,
			    const rt_options *opt, const char *dir, rt_error *err);
/* `evoforge eval` for kind mbp: the network's outputs (and class) on every
 * row of a CSV (inputs by column name), as NAME-eval writes them. */
rt_status mbp_eval_result(const struct rt_jval *result, const char *result_path, const char *data,
			  const char *out, const rt_options *opt, rt_error *err);

#endif
