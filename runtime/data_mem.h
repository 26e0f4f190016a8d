/* data_mem.h: tables held in memory by the caller (the C API's
 * evoforge_job_set_table), named in a spec as data files "memory:NAME".
 *
 * Borrowed, not copied: a table is the caller's pointers (row-major X, y)
 * and sizes; the registry keeps only the list of tables the current run may
 * see (rt_mem_use), and each load (rt_csv_load of "memory:NAME") converts
 * the caller's rows straight into a fresh column-major float rt_table: one
 * conversion, no intermediate copy. The caller keeps the data valid and
 * unchanged while a run may load it.
 *
 * A memory table reads as the CSV file it stands for: a header of the
 * column names (X's, then "y" when y is given), one row per row of X with
 * y's value last; rt_csv_options' label (by name) and label_index (-1:
 * last, -2: none) pick the label as for a file, and the header flag is
 * ignored (the names are always known). Every value is a number: no string
 * columns, no class names (a numeric label, as a CSV column of numbers).
 *
 * Not thread-safe by itself: rt_mem_use and the loads happen under the C
 * API's run lock (one run at a time per process). */
#ifndef RT_DATA_MEM_H
#define RT_DATA_MEM_H

#include <stddef.h>

#include "data.h"
#include "error.h"

/* The prefix that marks a data file as a memory table. */
#define RT_MEM_PREFIX "memory:"

/* Longest table name (without the prefix), bytes. */
#define RT_MEM_NAME_MAX 64

typedef struct rt_mem_table {
	char name[RT_MEM_NAME_MAX + 1];
	const void *x;        /* nrows x ncols, row-major: double, or float if is_float */
	const void *y;        /* nrows values (same type), or NULL */
	int is_float;
	size_t nrows;
	int ncols;
	char **colnames;      /* ncols names owned by the table's holder, or NULL (x1..xn) */
} rt_mem_table;

/* Checks a table before it is registered: a name of letters, digits, '_',
 * '-' and '.'; rows and columns > 0 (columns up to RT_DATA_MAX_COLS, with y
 * one fewer); X non-NULL; every value of X and y finite and within a
 * float's range (the first bad one named by row and column, 1-based); the
 * column names non-empty, without commas or line breaks, and distinct.
 * `who` starts the messages ("evoforge_job_set_table"). */
rt_status rt_mem_check(const char *who, const rt_mem_table *t, rt_error *err);

/* The tables loads may see from now on (n entries, borrowed; NULL, 0: none). */
void rt_mem_use(const rt_mem_table *tables, int n);

/* 1 if path names a memory table ("memory:..."), registered or not. */
int rt_mem_is_name(const char *path);

/* The registered table for path "memory:NAME", or NULL. */
const rt_mem_table *rt_mem_find(const char *path);

/* "name1, name2, ..." of the registered tables ("none" when empty) into buf. */
const char *rt_mem_list(char *buf, size_t size);

/* Loads "memory:NAME" as rt_csv_load would load the CSV file it stands for
 * (see above); an unregistered name is RT_ERR_INPUT naming it. */
rt_status rt_mem_load(const char *path, const rt_csv_options *opt, rt_table *out, rt_error *err);

#endif
