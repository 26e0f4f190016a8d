/* mbp_export_eval.c: the command-line evaluator `evoforge export` writes
 * beside an exported network of kind mbp (NAME-eval.c = a block of
 * #defines naming the network's functions, then this file). Reads a CSV
 * whose header names the network's inputs (any order, other columns
 * ignored), runs the network on every row (inputs scaled as in training)
 * and writes the outputs, in the target's units for a regression
 * (output_1 .. output_N, %.9g: the float exactly), and for a classification
 * the class's name (class). This is exactly what `evoforge eval` writes.
 * Numbers are read with strtof, as evoforge reads them. Plain C99 and the
 * C library only.
 *
 * Exit status: 0 success, 2 bad input (arguments, file, column, number),
 * 1 other errors. Messages name the file and line. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#if !defined(EVO_PREDICT)
#error "define EVO_PROGRAM, EVO_NINPUTS, EVO_INPUTS, EVO_NOUTPUTS, EVO_NCLASSES, EVO_CLASSES, EVO_PREDICT, EVO_CLASS_OF"
#endif

#include "export_csv.h"

int main(int argc, char **argv)
{
	static float x[EVO_NINPUTS], y[EVO_NOUTPUTS];
	int col[EVO_NINPUTS], ncols, k;
	char *line = NULL, **field;
	size_t cap = 0;
	long lineno = 1;
	FILE *in, *out;
	if (argc != 2 && !(argc == 4 && !strcmp(argv[2], "-o"))) {
		fprintf(stderr, "usage: %s-eval DATA.csv [-o OUT.csv]\n"
			"Runs the network %s on every row of DATA.csv (its header names the\n"
			"inputs) and writes its outputs%s per row to OUT.csv or standard output.\n",
			EVO_PROGRAM, EVO_PROGRAM, EVO_NCLASSES > 0 ? " and class" : "");
		return 2;
	}
	evo_file = argv[1];
	in = evo_open_csv(argv[1], EVO_INPUTS, EVO_NINPUTS, col, &line, &cap, &field, &ncols);
	out = evo_open_out(argc == 4 ? argv[3] : NULL);
	for (k = 0; k < EVO_NOUTPUTS; k++)
		fprintf(out, "%soutput_%d", k ? "," : "", k + 1);
	fputs(EVO_NCLASSES > 0 ? ",class\n" : "\n", out);
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
			x[k] = strtof(s, &end);
			if (end == s || *end)
				evo_die(2, lineno, "column '%s': expected a number, got '%s'", EVO_INPUTS[k], s);
		}
		EVO_PREDICT(x, y);
		for (k = 0; k < EVO_NOUTPUTS; k++)
			fprintf(out, "%s%.9g", k ? "," : "", (double)y[k]);
		if (EVO_NCLASSES > 0)
			fprintf(out, ",%s", EVO_CLASSES[EVO_CLASS_OF(y)]);
		fputc('\n', out);
	}
	evo_close(in, out);
	free(field);
	free(line);
	return 0;
}
