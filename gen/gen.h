/* gen.h: the generator. Renders the embedded templates (templates/) with a
 * specialisation block (#defines and tables) into self-contained C or CUDA
 * source. A pure function of its inputs: same spec and tuning, same text.
 *
 * A generated file is: a banner naming the generator and saying "do not
 * edit", the specialisation block, then the template text with its local
 * #include "x.h" lines replaced by the embedded file (each once). */
#ifndef GEN_GEN_H
#define GEN_GEN_H

#include <stddef.h>

#include "error.h"
#include "out.h"

/* An embedded file (build/embedded.c, made by gen/embed.c). */
typedef struct gen_file {
	const char *name;   /* e.g. "templates/philox.h" */
	const char *text;
	size_t size;
} gen_file;

/* Looks up an embedded file by path ("templates/x" or "problems/x"); NULL if absent. */
const gen_file *gen_embedded(const char *name);
/* All embedded files (terminated by name NULL). */
const gen_file *gen_embedded_all(void);

typedef struct gen_source {
	rt_buf text;
	char name[128];    /* file name, e.g. "gp_gpu-lgp-fast-s8.cu" */
	char included[32][96];
	int nincluded;
} gen_source;

/* Starts a source named `name`: writes the banner. `what` says what it is for. */
void gen_begin(gen_source *src, const char *name, const char *what);
/* Specialisation block helpers. */
void gen_define_int(gen_source *src, const char *macro, long long value);
void gen_define_float(gen_source *src, const char *macro, double value);
void gen_define_str(gen_source *src, const char *macro, const char *value);
void gen_line(gen_source *src, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Appends template `tname` ("gp/gp_gpu.cu", below templates/), inlining its local includes. */
rt_status gen_template(gen_source *src, const char *tname, rt_error *err);
/* Writes the source to dir/name atomically. */
rt_status gen_write(const gen_source *src, const char *dir, rt_error *err);
void gen_free(gen_source *src);

#endif
