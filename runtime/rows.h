/* rows.h: a long text (a CSV's rows) formatted by the CPU pool's threads,
 * a chunk of rows each, then joined in order: history.csv of 10,000 DE
 * problems is ten million numbers, seconds of snprintf on one thread. */
#ifndef RT_ROWS_H
#define RT_ROWS_H
#include "error.h"
#include "out.h"

/* Appends row `row` (its text, with its newline) to b. */
typedef void (*rt_row_fn)(void *ctx, long row, rt_buf *b);

/* Appends rows 0 .. nrows-1 to out, in order, formatted in parallel. An
 * allocation failure sets out->failed (and returns RT_ERR_SYSTEM). */
rt_status rt_rows_format(rt_buf *out, long nrows, rt_row_fn fn, void *ctx, rt_error *err);

/* Writes element i of a JSON array (one value, an object or array) to j. */
typedef void (*rt_json_element_fn)(void *ctx, long i, rt_json *j);

/* Appends to j the array `key` of n elements, element i written by fn,
 * formatted in parallel: the text is the same as writing them one by one
 * (result.json's 10,000 de problems with their vectors). */
rt_status rt_json_array_rows(rt_json *j, const char *key, long n, rt_json_element_fn fn, void *ctx,
			     rt_error *err);

#endif
