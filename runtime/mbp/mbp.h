/* mbp.h: kind `mbp`, multiple back-propagation (MFF networks with selective
 * activation, and plain BP), as the kind table sees it. */
#ifndef RT_MBP_H
#define RT_MBP_H

#include "kinds.h"

extern const rt_kind mbp_kind;

struct rt_jval;
/* `evoforge export` for kind mbp (mbp_export.c): NAME.net (the network
 * file) and NAME.c / NAME.h, the network as standalone C99 with its weights
 * (void NAME(const double *x, double *y): raw inputs to raw outputs). */
rt_status mbp_export_result(const struct rt_jval *result, const char *result_path,
			    const rt_options *opt, const char *dir, rt_error *err);

#endif
