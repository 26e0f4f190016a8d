/* export_csv.h: what the evaluators `evoforge export` writes for kinds gp,
 * svm and mbp (NAME-eval.c) share: dying with "NAME-eval: FILE:LINE: message",
 * reading a line of any length, and splitting a CSV line at commas. Plain
 * C99 and the C library only; EVO_PROGRAM (the model's name) must be
 * defined before this file. */
#ifndef EVO_EXPORT_CSV_H
#define EVO_EXPORT_CSV_H

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *evo_file = "";

/* Prints "NAME-eval: FILE[:LINE]: " and the message (fmt with two strings),
 * then exits with code (2 bad input, 1 other errors). */
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
		if (field && n < max)
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

/* Does s read whole as a number (strtod)? (inline: not every evaluator asks) */
static inline int evo_is_number(const char *s)
{
	char *end;
	strtod(s, &end);
	return end != s && !*end;
}

/* Opens the CSV file path and reads its header: *field (allocated) holds
 * its *ncols column names, col[k] the column of names[k] (k < n; each must
 * be there). Returns the file, positioned at the first data line. */
static inline FILE *evo_open_csv(const char *path, const char *const *names, int n, int *col,
				 char **line, size_t *cap, char ***field, int *ncols)
{
	FILE *in = fopen(path, "r");
	if (!in)
		evo_die(2, 0, "cannot open: %s%s", strerror(errno), "");
	if (!evo_read_line(in, line, cap))
		evo_die(2, 1, "expected a header line naming the columns, got an empty file%s%s", "", "");
	*ncols = evo_split(*line, NULL, 0);
	if (!(*field = malloc((size_t)*ncols * sizeof **field)))
		evo_die(1, 0, "out of memory%s%s", "", "");
	evo_split(*line, *field, *ncols);
	for (int k = 0; k < n; k++) {
		col[k] = -1;
		for (int c = 0; c < *ncols && col[k] < 0; c++)
			if (!strcmp((*field)[c], names[k]))
				col[k] = c;
		if (col[k] < 0)
			evo_die(2, 1, "expected a column named '%s' (an input of %s), found none",
				names[k], EVO_PROGRAM);
	}
	return in;
}

/* Opens the output (NULL: standard output). */
static FILE *evo_open_out(const char *path)
{
	FILE *out = stdout;
	if (path && !(out = fopen(path, "w")))
		evo_die(1, 0, "cannot write the output %s: %s", path, strerror(errno));
	return out;
}

/* Closes in and out, failing on a write error. */
static void evo_close(FILE *in, FILE *out)
{
	fclose(in);
	if (ferror(out) || (out != stdout && fclose(out) != 0) || (out == stdout && fflush(out) != 0))
		evo_die(1, 0, "write error on the output%s%s", "", "");
}

#endif
