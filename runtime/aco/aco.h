/* aco.h: kind `aco`, MAX-MIN Ant System for the symmetric TSP
 * (spec [problem] kind = aco). */
#ifndef RT_ACO_H
#define RT_ACO_H

#include "kinds.h"

extern const rt_kind aco_kind;

/* `evoforge bench aco ...` (aco_bench.c) and its --help text. */
rt_status aco_bench(int argc, char **argv, const rt_options *opt, rt_error *err);
extern const char aco_bench_help[];

#endif
