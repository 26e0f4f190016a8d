/* objective.c: the process-wide host objective of the current run (objective.h). */
#include "objective.h"

static rt_objective current;

void rt_objective_use(rt_objective_fn fn, void *user)
{
	current.fn = fn;
	current.user = fn ? user : (void *)0;
}

rt_objective rt_objective_current(void) { return current; }
