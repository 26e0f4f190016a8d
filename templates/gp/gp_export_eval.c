/* gp_export_eval.c: the command-line evaluator `evoforge export` writes
 * beside an exported GP program (NAME-eval.c = a block of #defines naming
 * the program's functions, then this file). Reads a CSV whose header names
 * the program's inputs (any order, other columns ignored), evaluates the
 * program on every row in batches, and writes one prediction per row
 * ("prediction" column, %.9g: the float exactly) or, for classification,
 * the class name ("class" column). Plain C99 and the C library only.
 *
 * Exit status: 0 success, 2 bad input (arguments, file, column, number),
 * 1 other errors. Messages name the file and line. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#if !defined(EVO_BATCH)
#error "define EVO_PROGRAM, EVO_NINPUTS, EVO_INPUTS, EVO_NCLASSES, EVO_CLASSES, EVO_BATCH, EVO_CLASS_OF"
#endif

#define EVO_ROWS 4096   /* rows per batch */

static const char *evo_file = "";

static void evo_die(int code, long line, const char *fmt, const char *a, const char *b)
{
	if (line > 0)
		fprintf(stderr, "%s-eval: %s:%ld: ", EVO_PROGRAM, evo_file, line);
	else
		fprintf(stderr, "%s-eval: %s: ", EVO_PROGRAM, evo_file);
	fprintf(stderr, fmt, a, b);
	fputc('\n', stderr);
	exit(code);
}

/* The next line of f without its end of line, in *buf (grown); 0 at the end. */
static int evo_read_line(FILE *f, char **buf, size_t *cap)
{
	size_t len = 0;
	if (!*buf) {
		*cap = 1024;
		if (!(*buf = malloc(*cap)))
			evo_die(1, 0, "out of memory%s%s", "", "");
	}
	for (;;) {
		if (!fgets(*buf + len, (int)(*cap - len), f))
			break;
		len += strlen(*buf + len);
		if (len > 0 && (*buf)[len - 1] == '\n')
			break;
		if (len + 1 == *cap) {
			char *grown = realloc(*buf, *cap * 2);
			if (!grown)
				evo_die(1, 0, "out of memory%s%s", "", "");
			*buf = grown;
			*cap *= 2;
		}
	}
	if (ferror(f))
		evo_die(1, 0, "read error: %s%s", strerror(errno), "");
	if (len == 0 && feof(f))
		return 0;
	while (len > 0 && ((*buf)[len - 1] == '\n' || (*buf)[len - 1] == '\r'))
		(*buf)[--len] = 0;
	return 1;
}

/* Splits line in place at commas into at most max fields (surrounding spaces
 * and double quotes removed); returns how many. field NULL: only counts
 * (line unchanged). */
static int evo_split(char *line, char **field, int max)
{
	int n = 0;
	char *p = line;
	for (;;) {
		char *start, *end;
		while (*p == ' ' || *p == '\t')
			p++;
		if (*p == '"') {
			start = ++p;
			while (*p && *p != '"')
				p++;
			end = p;
			if (*p)
				p++;
			while (*p && *p != ',')
				p++;
		} else {
			start = p;
			while (*p && *p != ',')
				p++;
			end = p;
			while (end > start && (end[-1] == ' ' || end[-1] == '\t'))
				end--;
		}
		if (n < max)
			field[n] = start;
		n++;
		if (!*p) {
			if (field)
				*end = 0;
			return n;
		}
		p++;
		if (field)
			*end = 0;
	}
}

static void evo_write(FILE *out, const float *y, long n)
{
	for (long i = 0; i < n; i++) {
		if (EVO_NCLASSES > 0) {
			int c = EVO_CLASS_OF(y[i]);
			fprintf(out, "%s\n", c < 0 ? "NA" : EVO_CLASSES[c]);
		} else {
			fprintf(out, "%.9g\n", (double)y[i]);
		}
	}
}

int main(int argc, char **argv)
{
	static float x[EVO_ROWS * EVO_NINPUTS], y[EVO_ROWS];
	int col[EVO_NINPUTS], ncols, k;
	char *line = NULL, **field;
	size_t cap = 0;
	long lineno = 1, rows = 0;
	FILE *in, *out = stdout;
	const char *outpath = NULL;
	if (argc == 4 && !strcmp(argv[2], "-o"))
		outpath = argv[3];
	else if (argc != 2 || argv[1][0] == '-') {
		fprintf(stderr, "usage: %s-eval DATA.csv [-o OUT.csv]\n"
			"Evaluates %s on every row of DATA.csv (its header names the inputs)\n"
			"and writes one %s per row to OUT.csv or standard output.\n",
			EVO_PROGRAM, EVO_PROGRAM, EVO_NCLASSES > 0 ? "class" : "prediction");
		return 2;
	}
	evo_file = argv[1];
	if (!(in = fopen(argv[1], "r")))
		evo_die(2, 0, "cannot open: %s%s", strerror(errno), "");
	if (!evo_read_line(in, &line, &cap))
		evo_die(2, 1, "expected a header line naming the columns, got an empty file%s%s", "", "");
	ncols = evo_split(line, NULL, 0);
	if (!(field = malloc((size_t)ncols * sizeof *field)))
		evo_die(1, 0, "out of memory%s%s", "", "");
	evo_split(line, field, ncols);
	for (k = 0; k < EVO_NINPUTS; k++) {
		col[k] = -1;
		for (int c = 0; c < ncols && col[k] < 0; c++)
			if (!strcmp(field[c], EVO_INPUTS[k]))
				col[k] = c;
		if (col[k] < 0)
			evo_die(2, 1, "expected a column named '%s' (an input of %s), found none",
				EVO_INPUTS[k], EVO_PROGRAM);
	}
	if (outpath && !(out = fopen(outpath, "w")))
		evo_die(1, 0, "cannot write the output: %s%s", strerror(errno), "");
	fprintf(out, "%s\n", EVO_NCLASSES > 0 ? "class" : "prediction");
	while (evo_read_line(in, &line, &cap)) {
		lineno++;
		if (!line[0])
			continue;
		if (evo_split(line, field, ncols) != ncols)
			evo_die(2, lineno, "expected %s fields as in the header, got %s", "the same number of",
				"another number");
		for (k = 0; k < EVO_NINPUTS; k++) {
			char *end;
			const char *s = field[col[k]];
			x[rows * EVO_NINPUTS + k] = strtof(s, &end);
			if (end == s || *end)
				evo_die(2, lineno, "column '%s': expected a number, got '%s'", EVO_INPUTS[k], s);
		}
		if (++rows == EVO_ROWS) {
			EVO_BATCH(x, rows, y);
			evo_write(out, y, rows);
			rows = 0;
		}
	}
	EVO_BATCH(x, rows, y);
	evo_write(out, y, rows);
	fclose(in);
	free(field);
	free(line);
	if (ferror(out) || (out != stdout && fclose(out) != 0) || (out == stdout && fflush(out) != 0))
		evo_die(1, 0, "write error on the output%s%s", "", "");
	return 0;
}
