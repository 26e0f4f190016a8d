/* data.h: loading datasets: CSV (optionally .gz), LIBSVM sparse, TSPLIB
 * instances and .tour files.
 *
 * Tables are column-major float matrices (column c of row r at
 * cols[c * nrows + r]) because every consumer (GP fitness cases, SVM, MBP)
 * streams one variable over many cases. String columns are categorical: each
 * distinct string gets an index in order of first appearance and the mapping
 * is kept. Malformed input fails with "file:line:col: expected ..., got ...". */
#ifndef RT_DATA_H
#define RT_DATA_H

#include <stddef.h>
#include <stdint.h>

#include "error.h"

typedef struct rt_categories {
	int n;          /* number of distinct strings */
	char **names;   /* names[i] is the string mapped to i */
} rt_categories;

typedef struct rt_table {
	char path[RT_PATH_MAX];
	size_t nrows;
	int ncols;             /* input columns (the label column is not one of them) */
	char **colnames;       /* ncols names (from the header, or "x1".."xn") */
	float *cols;           /* ncols * nrows, column-major */
	rt_categories *cats;   /* ncols entries; cats[c].n == 0 for numeric columns */
	int has_label;
	char *label_name;
	float *label;          /* nrows values: the class index for a string label,
	                          else the number (regression target, ±1 for LIBSVM) */
	rt_categories classes; /* string label mapping (n == 0 for a numeric label) */
} rt_table;

typedef struct rt_csv_options {
	int header;            /* 1: first line names the columns */
	const char *label;     /* label column by name, or NULL */
	int label_index;       /* label column by 0-based index; -1 = last, -2 = none
	                          (used when label is NULL) */
	char delimiter;        /* ',' by default (0 means ',') */
} rt_csv_options;

/* Defaults: header on, label = last column, ','. */
rt_csv_options rt_csv_defaults(void);

/* Loads a CSV file; a name ending in .gz is decompressed on the fly (zlib).
 * Quoted fields ("a,b", "" for a quote), CRLF, a UTF-8 byte order mark and
 * blanks around fields are read; blank and delimiter-only lines skipped. An
 * empty field is an error (file:line:col), except in an unnamed last column
 * that is empty on every row (lines ending with the delimiter): that column
 * is dropped, and the default label is the column before it. */
rt_status rt_csv_load(const char *path, const rt_csv_options *opt, rt_table *out, rt_error *err);
/* The same for every rank of a job (a collective: every rank calls it):
 * rank 0 reads the file and broadcasts the table, or its error, to the
 * others (data_share.c). One process: rt_csv_load. */
rt_status rt_csv_load_shared(const char *path, const rt_csv_options *opt, rt_table *out,
			     rt_error *err);
/* Loads LIBSVM sparse format ("label idx:val idx:val ...", 1-based indices
 * ascending within a line; '#' starts a comment) into a dense table;
 * nfeatures 0 = the largest index seen. */
rt_status rt_libsvm_load(const char *path, int nfeatures, rt_table *out, rt_error *err);
/* The same file as sparse rows, never dense: row r's entries are
 * ptr[r] .. ptr[r + 1] of col (0-based, ascending) and val; indices up to
 * max_cols (instead of RT_DATA_MAX_COLS). */
typedef struct rt_sparse_table {
	size_t nrows, nnz;
	int ncols;             /* nfeatures, or the largest index seen */
	float *labels;         /* [nrows] */
	long *ptr;             /* [nrows + 1] */
	int *col;
	float *val;
} rt_sparse_table;
rt_status rt_libsvm_load_sparse(const char *path, int nfeatures, int max_cols, rt_sparse_table *out,
				rt_error *err);
void rt_sparse_table_free(rt_sparse_table *t);

/* A seeded split of n rows into training and held-out (test) rows:
 * is_test[r] = 1 for round(fraction x n) rows (0 < fraction < 1), *ntest
 * of them. With group (group[r] in 0..ngroups-1, e.g. class indices) the
 * split is stratified: each group holds out floor or ceil of fraction x its
 * size (largest remainders); group NULL is one group (a plain random
 * split). Randomness: Philox stream (seed, stream) alone (data_split.c). */
rt_status rt_split_rows(size_t n, const int *group, int ngroups, double fraction, uint64_t seed,
			uint64_t stream, unsigned char *is_test, size_t *ntest, rt_error *err);
/* Removes the input columns named in names (separated by spaces, tabs or
 * commas) from t; a name that is not an input column is an error. */
rt_status rt_table_drop_columns(rt_table *t, const char *names, rt_error *err);
void rt_table_free(rt_table *t);
/* Value of input column c at row r. */
static inline float rt_table_at(const rt_table *t, int c, size_t r)
{
	return t->cols[(size_t)c * t->nrows + r];
}

/* TSPLIB 95 EDGE_WEIGHT_TYPEs read by rt_tsp_load (all symmetric ones but
 * XRAY1/XRAY2/SPECIAL). The coordinate metrics compute distances on demand;
 * EXPLICIT keeps the n x n matrix. */
typedef enum rt_tsp_metric {
	RT_TSP_EUC_2D, RT_TSP_CEIL_2D, RT_TSP_ATT, RT_TSP_GEO,
	RT_TSP_MAN_2D, RT_TSP_MAX_2D, RT_TSP_EUC_3D, RT_TSP_MAN_3D, RT_TSP_MAX_3D,
	RT_TSP_EXPLICIT
} rt_tsp_metric;

/* Most cities an EXPLICIT instance may have (its n x n int matrix is kept:
 * 20000 cities take 1.6 GB); override with -DRT_TSP_MAX_EXPLICIT=N. */
#if !defined(RT_TSP_MAX_EXPLICIT)
#define RT_TSP_MAX_EXPLICIT 20000
#endif

typedef struct rt_tsp {
	char path[RT_PATH_MAX];
	char name[128];
	int n;                 /* number of cities */
	rt_tsp_metric metric;
	double *x, *y;         /* coordinates, n each (NULL for EXPLICIT without a NODE_COORD_SECTION) */
	double *z;             /* third coordinate (3-D metrics or THREED_COORDS), else NULL */
	int *w;                /* EXPLICIT: n * n weights, row-major, symmetric, zero diagonal; else NULL */
} rt_tsp;

/* Loads a TSPLIB TSP file: NODE_COORD_SECTION (EUC_2D, CEIL_2D, ATT, GEO,
 * MAN_2D, MAX_2D, EUC_3D, MAN_3D, MAX_3D) or EXPLICIT weights in any
 * EDGE_WEIGHT_FORMAT (FULL_MATRIX, UPPER_ROW, LOWER_ROW, UPPER_DIAG_ROW,
 * LOWER_DIAG_ROW and the *_COL forms); DISPLAY_DATA_SECTION is checked and ignored. */
rt_status rt_tsp_load(const char *path, rt_tsp *out, rt_error *err);
/* TSPLIB distance between cities i and j (integer, per the metric's rule; 0 when i == j). */
int rt_tsp_distance(const rt_tsp *t, int i, int j);
/* Fills out[i * n + j] with every distance (n * n ints, symmetric, zero
 * diagonal); RT_ERR_INTERNAL for an empty or unloaded instance. */
rt_status rt_tsp_distance_matrix(const rt_tsp *t, int *out);
/* The TSPLIB name of a metric ("EUC_2D", ..., "EXPLICIT"); "?" if out of range. */
const char *rt_tsp_metric_name(rt_tsp_metric m);
/* Frees the instance's arrays and zeroes it (safe on a zeroed or failed one). */
void rt_tsp_free(rt_tsp *t);
/* Length of a closed tour (a permutation of 0..n-1). */
long rt_tsp_tour_length(const rt_tsp *t, const int *tour);

/* Reads "name : length" lines (TSPLIB's optimal.txt); -1 if name is absent. */
rt_status rt_tsp_optimal(const char *path, const char *name, long *out, rt_error *err);

/* Writes a TSPLIB .tour file (NAME, COMMENT if non-NULL, TYPE : TOUR,
 * DIMENSION, TOUR_SECTION of 1-based ids, -1, EOF) atomically; tour is a
 * 0-based permutation of 0..n-1 (RT_ERR_INPUT otherwise). */
rt_status rt_tsp_tour_write(const char *path, const char *name, const char *comment, int n,
                            const int *tour, rt_error *err);
/* Reads a TSPLIB .tour file into a fresh 0-based permutation (*tour_out, free()
 * it; *n_out cities); n_expected > 0 requires that many cities, 0 takes
 * DIMENSION. Missing, repeated or out-of-range cities fail with file:line. */
rt_status rt_tsp_tour_read(const char *path, int n_expected, int **tour_out, int *n_out, rt_error *err);

#endif
