/* aco.h: kind `aco`, MAX-MIN Ant System for the symmetric TSP
 * (spec [problem] kind = aco). */
#ifndef RT_ACO_H
#define RT_ACO_H

#include "kinds.h"

extern const rt_kind aco_kind;

/* `evoforge bench aco ...` (aco_bench.c) and its --help text. */
rt_status aco_bench(int argc, char **argv, const rt_options *opt, rt_error *err);
extern const char aco_bench_help[];

struct rt_jval;
/* `evoforge export` for kind aco (aco_export.c): the run's best tour as
 * NAME.tour (TSPLIB TYPE : TOUR), its length recomputed on the instance
 * when the instance file is readable and checked against the run's. */
rt_status aco_export_result(const struct rt_jval *result, const char *result_path,
			    const rt_options *opt, const char *dir, rt_error *err);

#endif
