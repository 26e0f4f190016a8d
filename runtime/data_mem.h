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
#include <stdint.h>

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
	/* CSR (evoforge_job_set_table_csr): x is the nnz double values, y the
	 * nrows double labels (NULL: all 0); row r's entries are indptr[r] ..
	 * indptr[r + 1] - 1 of indices (0-based columns, ascending) and x. */
	int csr;
	const int64_t *indptr;   /* nrows + 1, indptr[0] = 0, non-decreasing */
	const int32_t *indices;  /* indptr[nrows] column indices in 0..ncols-1 */
} rt_mem_table;

/* Checks a table before it is registered: a name of letters, digits, '_',
 * '-' and '.'; rows and columns > 0 (columns up to RT_DATA_MAX_COLS, with y
 * one fewer); X non-NULL; every value of X and y finite and within a
 * float's range (the first bad one named by row and column, 1-based); the
 * column names non-empty, without commas or line breaks, and distinct.
 * `who` starts the messages ("evoforge_job_set_table"). */
rt_status rt_mem_check(const char *who, const rt_mem_table *t, rt_error *err);
/* The same for a CSR table: the name; rows and cols > 0; indptr[0] = 0 and
 * non-decreasing (the first bad row named); column indices in 0..cols-1,
 * strictly ascending within a row (LIBSVM's rule: no repeats); every value
 * and label finite and within a float's range. */
rt_status rt_mem_check_csr(const char *who, const rt_mem_table *t, rt_error *err);

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

/* Loads the CSR table "memory:NAME" as rt_libsvm_load_sparse would load the
 * LIBSVM file of the same rows (label, then index:value with 1-based
 * indices): one conversion into out's float arrays. ncols is nfeatures
 * when > 0 (an index at or beyond it is an error, as in a file), else the
 * table's cols; cols above max_cols is an error. A dense table, or a CSR
 * one for rt_mem_load, is RT_ERR_INPUT saying which kind reads which. */
rt_status rt_mem_load_sparse(const char *path, int nfeatures, int max_cols, rt_sparse_table *out,
			     rt_error *err);

/* 1 when path names a registered CSR table. */
int rt_mem_is_csr(const char *path);

/* Loads "memory:NAME" as a TSP instance (aco's [data] file): a table of n
 * rows and 2 columns is EUC_2D coordinates (TSPLIB's rounding, |value| up
 * to RT_TSP_MAX_COORD); one of n rows and n columns is the full matrix of
 * integer lengths (EXPLICIT: whole numbers 0..RT_TSP_MAX_WEIGHT, symmetric,
 * the diagonal read and stored as 0); no y. The instance's name is NAME. */
rt_status rt_mem_load_tsp(const char *path, rt_tsp *out, rt_error *err);

#endif
