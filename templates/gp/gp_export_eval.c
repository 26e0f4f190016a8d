/* gp_export_eval.c: the command-line evaluator `evoforge export` writes
 * beside an exported GP program (NAME-eval.c = a block of #defines naming
 * the program's functions, templates/gp/gp_export_gpu.c, then this file).
 * Reads a CSV whose header names the program's inputs (any order, other
 * columns ignored), evaluates the program on every row in batches (on the
 * GPU when one answers, else NAME_batch on the CPU: --backend auto|cpu|gpu),
 * and writes one prediction per row ("prediction" column, %.9g: the float
 * exactly), the class name ("class" column, classification), or 0/1
 * ("output" column, Boolean programs, whose inputs must be 0 or 1 and are
 * packed 32 rows to a word). Plain C99 and the C library (and dlopen).
 *
 * Exit status: 0 success, 2 bad input (arguments, file, column, number),
 * 1 other errors (a GPU asked for and not usable included). Messages name
 * the file and line. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#if !defined(EVO_BATCH)
#error "define EVO_PROGRAM, EVO_NINPUTS, EVO_INPUTS, EVO_NCLASSES, EVO_CLASSES, EVO_BATCH, EVO_CLASS_OF, EVO_BOOL"
#endif

#define EVO_ROWS 65536   /* rows per batch (a multiple of 32) */

#if EVO_BOOL
typedef uint32_t evo_t;            /* 32 rows per word */
#define EVO_UNITS(rows) (((rows) + 31) / 32)
#else
typedef float evo_t;               /* one row */
#define EVO_UNITS(rows) (rows)
#endif

#include "export_csv.h"   /* evo_die, evo_read_line, evo_split, evo_open_out, evo_close */

static void evo_write(FILE *out, const evo_t *y, long rows)
{
	for (long i = 0; i < rows; i++) {
#if EVO_BOOL
		fputs((y[i / 32] >> (i % 32)) & 1u ? "1\n" : "0\n", out);
#else
		if (EVO_NCLASSES > 0) {
			int c = EVO_CLASS_OF(y[i]);
			fprintf(out, "%s\n", c < 0 ? "NA" : EVO_CLASSES[c]);
		} else {
			fprintf(out, "%.9g\n", (double)y[i]);
		}
#endif
	}
}

/* Where batches run: 0 CPU, 1 GPU; 'a' (auto) falls back to the CPU with
 * one warning, 'g' (gpu) fails. */
static int evo_on_gpu;
static char evo_backend = 'a';

static void evo_gpu_failed(const char *why)
{
	if (evo_backend == 'g') {
		fprintf(stderr, "%s-eval: --backend gpu: %s\n", EVO_PROGRAM, why);
		exit(1);
	}
	fprintf(stderr, "%s-eval: warning: running on the CPU: %s\n", EVO_PROGRAM, why);
	evo_on_gpu = 0;
}

/* y for `rows` rows of x (units of 32 rows for Boolean programs). */
static void evo_batch(const evo_t *x, long rows, evo_t *y)
{
	char why[512];
	if (evo_on_gpu && !evo_gpu_run(x, EVO_UNITS(rows), y, why, sizeof why))
		evo_gpu_failed(why);
	if (!evo_on_gpu)
		EVO_BATCH(x, EVO_UNITS(rows), y);
}

/* Input k of row r of the batch from field s. */
static void evo_store(evo_t *x, long r, int k, const char *s, long lineno)
{
	char *end;
	float v = strtof(s, &end);
	if (end == s || *end)
		evo_die(2, lineno, "column '%s': expected a number, got '%s'", EVO_INPUTS[k], s);
#if EVO_BOOL
	if (v != 0.0f && v != 1.0f)
		evo_die(2, lineno, "column '%s': expected 0 or 1 (a Boolean input), got '%s'",
			EVO_INPUTS[k], s);
	x[(r / 32) * EVO_NINPUTS + k] |= (uint32_t)(v != 0.0f) << (r % 32);
#else
	x[r * EVO_NINPUTS + k] = v;
#endif
}

static int evo_usage(void)
{
	fprintf(stderr, "usage: %s-eval [--backend auto|cpu|gpu] DATA.csv [-o OUT.csv]\n"
		"Evaluates %s on every row of DATA.csv (its header names the inputs)\n"
		"and writes one %s per row to OUT.csv or standard output; on the GPU\n"
		"when one answers (auto, the default), else on the CPU.\n",
		EVO_PROGRAM, EVO_PROGRAM, EVO_BOOL ? "output (0 or 1)" :
		EVO_NCLASSES > 0 ? "class" : "prediction");
	return 2;
}

int main(int argc, char **argv)
{
	evo_t *x, *y;
	int col[EVO_NINPUTS], ncols, k;
	char *line = NULL, **field, why[512];
	size_t cap = 0;
	long lineno = 1, rows = 0;
	FILE *in, *out;
	const char *outpath = NULL, *inpath = NULL;
	for (k = 1; k < argc; k++) {
		if (!strcmp(argv[k], "-o") && k + 1 < argc)
			outpath = argv[++k];
		else if (!strcmp(argv[k], "--backend") && k + 1 < argc && strchr("acg", argv[k + 1][0]) &&
			 (!strcmp(argv[k + 1], "auto") || !strcmp(argv[k + 1], "cpu") ||
			  !strcmp(argv[k + 1], "gpu")))
			evo_backend = argv[++k][0];
		else if (argv[k][0] == '-' || inpath)
			return evo_usage();
		else
			inpath = argv[k];
	}
	if (!inpath)
		return evo_usage();
	if (evo_backend != 'c') {
		evo_on_gpu = evo_gpu_open(why, sizeof why);
		if (!evo_on_gpu)
			evo_gpu_failed(why);
	}
	evo_file = inpath;
	x = calloc((size_t)EVO_UNITS(EVO_ROWS) * EVO_NINPUTS, sizeof *x);
	y = calloc((size_t)EVO_UNITS(EVO_ROWS), sizeof *y);
	if (!x || !y)
		evo_die(1, 0, "out of memory%s%s", "", "");
	in = evo_open_csv(inpath, EVO_INPUTS, EVO_NINPUTS, col, &line, &cap, &field, &ncols);
	out = evo_open_out(outpath);
	fprintf(out, "%s\n", EVO_BOOL ? "output" : EVO_NCLASSES > 0 ? "class" : "prediction");
	while (evo_read_line(in, &line, &cap)) {
		lineno++;
		if (!line[0])
			continue;
		if (evo_split(line, field, ncols) != ncols)
			evo_die(2, lineno, "expected %s fields as in the header, got %s", "the same number of",
				"another number");
		for (k = 0; k < EVO_NINPUTS; k++)
			evo_store(x, rows, k, field[col[k]], lineno);
		if (++rows == EVO_ROWS) {
			evo_batch(x, rows, y);
			evo_write(out, y, rows);
			memset(x, 0, (size_t)EVO_UNITS(EVO_ROWS) * EVO_NINPUTS * sizeof *x);
			rows = 0;
		}
	}
	evo_batch(x, rows, y);
	evo_write(out, y, rows);
	free(field);
	free(line);
	free(x);
	free(y);
	evo_close(in, out);
	return 0;
}
