/* objective.h: the host objective a caller hands the engine for one run (the
 * C API's evoforge_job_set_objective): a function that evaluates a whole
 * population at once, which kind de calls when its spec says
 * function = callback (runtime/de/de_cpu.c).
 *
 * Process-wide, like the log sink and the memory tables: the C API sets it
 * before a run and clears it after, under its run lock (one run at a time
 * per process), so the kinds find it without a new argument through every
 * run function. Not thread-safe by itself. */
#ifndef RT_OBJECTIVE_H
#define RT_OBJECTIVE_H

/* X: np x dim doubles, row-major (individual i, component j at
 * X[i * dim + j]); fx: np values to fill. 0: go on; non-zero: stop the run
 * with an error naming the value. (evoforge_objective_fn's shape.) */
typedef int (*rt_objective_fn)(const double *X, int np, int dim, double *fx, void *user);

/* A host objective and its user pointer (fn NULL: none). */
typedef struct rt_objective {
	rt_objective_fn fn;
	void *user;
} rt_objective;

/* The objective runs may use from now on (fn NULL: none). */
void rt_objective_use(rt_objective_fn fn, void *user);

/* The objective set by rt_objective_use (fn NULL when none). */
rt_objective rt_objective_current(void);

#endif
