/* rows.c: rows of text formatted in parallel and joined in order (rows.h). */
#include <stdlib.h>

#include "cpu.h"
#include "rows.h"

#define ROWS_CHUNK 16   /* rows a task: a DE history row holds thousands of numbers */

typedef struct rows_job {
	rt_row_fn fn;
	void *ctx;
	long nrows;
	rt_buf *chunks;   /* one a chunk of ROWS_CHUNK rows */
} rows_job;

static void format_chunks(void *ctx, long begin, long end, int thread)
{
	rows_job *job = ctx;
	(void)thread;
	for (long c = begin; c < end; c++) {
		long last = (c + 1) * ROWS_CHUNK < job->nrows ? (c + 1) * ROWS_CHUNK : job->nrows;
		for (long r = c * ROWS_CHUNK; r < last; r++)
			job->fn(job->ctx, r, &job->chunks[c]);
	}
}

typedef struct json_rows {
	const rt_json *array;   /* the writer, inside the array: its depth and indentation */
	rt_json_element_fn fn;
	void *ctx;
} json_rows;

/* Element i into b, as the array's own writer would put it. */
static void json_element(void *ctx, long i, rt_buf *b)
{
	const json_rows *c = ctx;
	rt_json sub = *c->array;
	sub.buf = *b;
	sub.first[sub.depth] = i == 0;   /* the elements after the first open with a comma */
	c->fn(c->ctx, i, &sub);
	*b = sub.buf;
}

rt_status rt_json_array_rows(rt_json *j, const char *key, long n, rt_json_element_fn fn, void *ctx,
			     rt_error *err)
{
	json_rows c = { j, fn, ctx };
	rt_status st;
	rt_json_begin_array(j, key);
	st = rt_rows_format(&j->buf, n, json_element, &c, err);
	j->first[j->depth] = n == 0;
	rt_json_end_array(j);
	return st;
}

rt_status rt_rows_format(rt_buf *out, long nrows, rt_row_fn fn, void *ctx, rt_error *err)
{
	long nchunks = (nrows + ROWS_CHUNK - 1) / ROWS_CHUNK;
	rows_job job = { fn, ctx, nrows, NULL };
	rt_status st;
	if (nrows <= 0)
		return RT_OK;
	if (!(job.chunks = rt_calloc((size_t)nchunks, sizeof *job.chunks, err))) {
		out->failed = 1;
		return RT_ERR_SYSTEM;
	}
	st = cpu_parallel_for(nchunks, 1, format_chunks, &job, err);
	for (long c = 0; c < nchunks; c++)
		out->failed |= job.chunks[c].failed;
	for (long c = 0; c < nchunks && !st && !out->failed; c++)   /* joined in order */
		rt_buf_append(out, job.chunks[c].data ? job.chunks[c].data : "", job.chunks[c].len);
	for (long c = 0; c < nchunks; c++)
		rt_buf_free(&job.chunks[c]);
	free(job.chunks);
	if (!st && out->failed)
		st = rt_fail(err, RT_ERR_SYSTEM, "out of memory formatting %ld rows of text", nrows);
	return st;
}
