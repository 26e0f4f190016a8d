/* svm_export_eval.c: the command-line predictor `evoforge export` writes
 * beside an exported SVM model (NAME-eval.c = a block of #defines naming the
 * model's functions, then this file). Reads points as `evoforge eval` and
 * `evoforge svm-predict` do: LIBSVM's format ("label index:value ...",
 * 1-based ascending indices), or CSV (a name ending .csv, or a comma on the
 * first line): the last column is the label (ignored), the others are the
 * features in order; the first line is a header unless one of its fields is
 * a number. Writes one predicted label per point ("%.17g", as svm-predict)
 * and, when every label read is a number, the accuracy to stderr.
 * Numbers are read with strtof, as evoforge reads them (correctly rounded).
 * Plain C99 and the C library only; CSV text (categorical) features are not
 * read (evoforge one-hot encodes them per file).
 *
 * Exit status: 0 success, 2 bad input (arguments, file, number), 1 other
 * errors. Messages name the file and line. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#if !defined(EVO_DECIDE)
#error "define EVO_PROGRAM, EVO_NFEAT, EVO_NPAIRS, EVO_LABELS and EVO_DECIDE"
#endif

#include "export_csv.h"

/* The point's room: x[0 .. *cap), zeros beyond what a line sets. */
static float *evo_grow(float *x, int *cap, int need)
{
	int c = *cap;
	float *g;
	if (need <= c)
		return x;
	while (c < need)
		c *= 2;
	if (!(g = realloc(x, (size_t)c * sizeof *g)))
		evo_die(1, 0, "out of memory%s%s", "", "");
	memset(g + *cap, 0, (size_t)(c - *cap) * sizeof *g);
	*cap = c;
	return g;
}

/* One LIBSVM line into x (grown; zero beyond what it sets): the features'
 * count (the highest index), the label into *label. */
static int evo_libsvm_line(char *line, long lineno, float **x, int *cap, double *label)
{
	char *p = line, *end;
	long prev = 0;
	*label = strtod(p, &end);
	if (end == p || (*end && *end != ' ' && *end != '\t'))
		evo_die(2, lineno, "expected a label (a number) first, got '%.40s'%s", p, "");
	for (p = end;;) {
		long idx;
		float v;
		while (*p == ' ' || *p == '\t')
			p++;
		if (!*p)
			return (int)prev;
		idx = strtol(p, &end, 10);
		if (end == p || *end != ':' || idx <= prev || idx > 100000000L)
			evo_die(2, lineno, "expected index:value with an ascending index from 1, "
				"got '%.40s'%s", p, "");
		p = end + 1;
		v = strtof(p, &end);
		if (end == p || (*end && *end != ' ' && *end != '\t'))
			evo_die(2, lineno, "expected a number after the index, got '%.40s'%s", p, "");
		*x = evo_grow(*x, cap, (int)idx);
		(*x)[idx - 1] = v;
		prev = idx;
		p = end;
	}
}

/* One CSV row (nf features, then the label) into x; *numeric: the label is a number. */
static void evo_csv_line(char *line, long lineno, char **field, int ncols, float *x, double *label,
			 int *numeric)
{
	char *end;
	if (evo_split(line, field, ncols) != ncols)
		evo_die(2, lineno, "expected %s fields as on the first line, got %s",
			"the same number of", "another number");
	for (int k = 0; k + 1 < ncols; k++) {
		x[k] = strtof(field[k], &end);
		if (end == field[k] || *end)
			evo_die(2, lineno, "expected a number (column %s), got '%.40s'",
				"of a feature", field[k]);
	}
	*label = strtod(field[ncols - 1], &end);
	*numeric = end != field[ncols - 1] && !*end;
}

int main(int argc, char **argv)
{
	double dec[EVO_NPAIRS > 0 ? EVO_NPAIRS : 1], label;
	char *line = NULL, **field = NULL;
	size_t cap = 0, len;
	long lineno = 0, n = 0, right = 0;
	int xcap = EVO_NFEAT > 0 ? EVO_NFEAT : 1, csv, ncols = 0, numeric = 1, first = 1;
	float *x = calloc((size_t)xcap, sizeof *x);
	FILE *in, *out;
	if (argc != 2 && !(argc == 4 && !strcmp(argv[2], "-o"))) {
		fprintf(stderr, "usage: %s-eval DATA [-o OUT]\n"
			"Predicts the label of every point of DATA (LIBSVM's format, or CSV with\n"
			"the label last) with the SVM %s and writes one label per line to OUT or\n"
			"standard output, as svm-predict.\n", EVO_PROGRAM, EVO_PROGRAM);
		return 2;
	}
	evo_file = argv[1];
	if (!x)
		evo_die(1, 0, "out of memory%s%s", "", "");
	if (!(in = fopen(argv[1], "r")))
		evo_die(2, 0, "cannot open: %s%s", strerror(errno), "");
	len = strlen(argv[1]);
	csv = len >= 4 && !strcmp(argv[1] + len - 4, ".csv");
	out = evo_open_out(argc == 4 ? argv[3] : NULL);
	while (evo_read_line(in, &line, &cap)) {
		int nf = EVO_NFEAT, ok = 1, best;
		lineno++;
		if (first && (csv = csv || strchr(line, ',') != NULL)) {
			char *copy = malloc(strlen(line) + 1);
			if (!copy)
				evo_die(1, 0, "out of memory%s%s", "", "");
			ncols = evo_split(line, NULL, 0);
			if (ncols < 2)
				evo_die(2, lineno, "expected features and a label (2 columns or more)%s%s",
					"", "");
			if (!(field = malloc((size_t)ncols * sizeof *field)))
				evo_die(1, 0, "out of memory%s%s", "", "");
			x = evo_grow(x, &xcap, ncols - 1);
			evo_split(strcpy(copy, line), field, ncols);
			for (int k = 0; k < ncols; k++)
				ok = ok && !evo_is_number(field[k]);
			free(copy);
		}
		if (first) {
			first = 0;
			if (csv && ok)
				continue;   /* a header: no field reads as a number */
		}
		if (csv && !line[0])
			continue;
		if (csv) {
			evo_csv_line(line, lineno, field, ncols, x, &label, &ok);
			nf = ncols - 1;
		} else {
			while (line[0] == ' ' || line[0] == '\t')
				memmove(line, line + 1, strlen(line));
			if (!line[0])
				continue;
			nf = evo_libsvm_line(line, lineno, &x, &xcap, &label);
			nf = nf > EVO_NFEAT ? nf : EVO_NFEAT;
		}
		if ((best = EVO_DECIDE(x, nf, dec)) < 0)
			evo_die(1, lineno, "out of memory for the kernel values%s%s", "", "");
		fprintf(out, "%.17g\n", (double)EVO_LABELS[best]);
		numeric = numeric && ok;
		right += ok && label == EVO_LABELS[best];
		n++;
		if (!csv)
			memset(x, 0, (size_t)xcap * sizeof *x);
	}
	if (numeric && n > 0)
		fprintf(stderr, "Accuracy = %g%% (%ld/%ld) (classification)\n", 100.0 * right / n,
			right, n);
	evo_close(in, out);
	free(field);
	free(line);
	free(x);
	return 0;
}
