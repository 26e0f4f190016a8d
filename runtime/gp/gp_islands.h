/* gp_islands.h: kind gp's side of the island model (islands.h; gp_islands.c). */
#ifndef GP_ISLANDS_H
#define GP_ISLANDS_H

#include "gp.h"
#include "islands.h"

/* At migration generation g (rt_islands_due): sends pop / fit's emigrants,
 * puts the immigrants in, says whether every island stops now (*stop);
 * want_stop: this island's run would end after g; stop_requested: a stop
 * was requested (rt_islands_migrate). */
rt_status gp_islands_migrate(rt_islands *isl, int g, gp_tree *pop, double *fit, int n,
			     int want_stop, int stop_requested, int *stop, rt_error *err);
/* After the run, on every rank: res's best becomes the best island's, its
 * totals the job's (programs and GPop summed, times the longest). One
 * process: unchanged. */
rt_status gp_islands_share_best(gp_result *res, rt_error *err);

#endif
