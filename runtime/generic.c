/* generic.c: the problem-independent kernels embedded in evoforge at its
 * own build (generic.h): the table's lookup, and writing the table. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "build.h"
#include "generic.h"
#include "kcache.h"
#include "kinds.h"
#include "log.h"
#include "nvrtc.h"
#include "out.h"

/* The table: build/generic/generic.c defines these; in a program linked
 * without it they stay undefined (weak: their addresses are NULL). */
extern const rt_built_kernel *const rt_generic_table __attribute__((weak));
extern const int rt_generic_size __attribute__((weak));

int rt_generic_count(void) { return &rt_generic_size && &rt_generic_table ? rt_generic_size : 0; }

const rt_built_kernel *rt_generic_lookup(const char *name, const char *source, const char *arch,
					 const char *const *options, int noptions)
{
	/* the key hashes the whole source: only for a name and arch the table has */
	for (int i = 0; i < rt_generic_count(); i++)
		if (!strcmp(rt_generic_table[i].name, name) && !strcmp(rt_generic_table[i].arch, arch))
			return rt_generic_find(kcache_prebuilt_key(name, source, arch, options, noptions),
					       name, arch);
	return NULL;
}

const rt_built_kernel *rt_generic_find(uint64_t key, const char *name, const char *arch)
{
	for (int i = 0; i < rt_generic_count(); i++) {
		const rt_built_kernel *k = &rt_generic_table[i];
		if (k->key == key && !strcmp(k->name, name) && !strcmp(k->arch, arch))
			return k;
	}
	return NULL;
}

const char *rt_generic_archs(char *buf, int size)
{
	int len = 0;
	buf[0] = '\0';
	for (int i = 0; i < rt_generic_count(); i++) {
		const char *a = rt_generic_table[i].arch;
		if (strstr(buf, a))
			continue;
		len += snprintf(buf + len, (size_t)(size > len ? size - len : 0), "%s%s",
				len ? "," : "", a);
	}
	if (!buf[0])
		snprintf(buf, (size_t)size, "none");
	return buf;
}

/* ---- writing the table (the ninja build) ------------------------------------- */

typedef struct generic_state {
	const char *dir, *arch;
	rt_build_kernel k[64];
	int n;
} generic_state;

/* rt_kernel_emit: compiles one kernel for s->arch into DIR/kernels/gN.cubin. */
static rt_status emit_generic(void *ctx, const char *name, const char *source,
			      const char *const *options, int noptions, rt_error *err)
{
	generic_state *s = ctx;
	nvrtc_output out;
	char path[RT_PATH_MAX];
	if (s->n == (int)(sizeof s->k / sizeof s->k[0]))
		return rt_fail(err, RT_ERR_INTERNAL, "more than %d generic kernels", s->n);
	rt_status st = nvrtc_compile(name, source, s->arch, options, noptions, &out, err);
	if (st != RT_OK)
		return st;
	uint64_t key = kcache_prebuilt_key(name, source, s->arch, options, noptions);
	if ((st = rt_format(path, sizeof path, err, "%s/kernels/g%d.cubin", s->dir, s->n)) == RT_OK &&
	    (st = rt_build_keep_cubin(&s->k[s->n], name, s->arch, key, &out, path, err)) == RT_OK)
		rt_info("generic-kernels: %s for %s, %zu bytes", name, s->arch, s->k[s->n++].size);
	nvrtc_output_free(&out);
	return st;
}

/* DIR/generic.c: the table; DIR/generic.S: the cubins. */
static rt_status write_table(const generic_state *s, rt_error *err)
{
	rt_buf c = {0}, a = {0};
	char path[RT_PATH_MAX];
	rt_status st;
	rt_buf_printf(&c, "/* generic.c: the problem-independent kernels embedded in evoforge "
		      "(runtime/generic.h).\n * Written by `evoforge generic-kernels` during the "
		      "build; do not edit. */\n#include <stddef.h>\n\n#include \"built.h\"\n\n");
	rt_buf_puts(&a, "/* generic.S: the cubins of generic.c, embedded. Written by `evoforge "
		    "generic-kernels`. */\n\t.section .rodata\n");
	rt_build_put_table(&c, s->k, s->n, "evo_generic", "table");
	for (int i = 0; i < s->n; i++)
		rt_buf_printf(&a, "\t.balign 16\n\t.globl evo_generic_%d, evo_generic_%d_end\n"
			      "evo_generic_%d:\n\t.incbin \"%s/kernels/g%d.cubin\"\nevo_generic_%d_end:\n",
			      i, i, i, s->dir, i, i);
	rt_buf_printf(&c, "\nextern const rt_built_kernel *const rt_generic_table;\n"
		      "extern const int rt_generic_size;\nconst rt_built_kernel *const "
		      "rt_generic_table = table;\nconst int rt_generic_size = %d;\n", s->n);
	rt_buf_puts(&a, "\t.section .note.GNU-stack,\"\",@progbits\n");
	if (c.failed || a.failed)
		st = rt_fail(err, RT_ERR_SYSTEM, "out of memory writing the generic kernels' table");
	else if ((st = rt_format(path, sizeof path, err, "%s/generic.S", s->dir)) == RT_OK &&
		 (st = rt_write_file_atomic(path, a.data, a.len, err)) == RT_OK &&
		 (st = rt_format(path, sizeof path, err, "%s/generic.c", s->dir)) == RT_OK)
		st = rt_write_file_atomic(path, c.data, c.len, err);   /* last: ninja's output */
	rt_buf_free(&c);
	rt_buf_free(&a);
	return st;
}

/* Every kind's generic kernels for each arch of the list. */
static rt_status compile_all(const char *archs, generic_state *s, rt_error *err)
{
	char list[256], *save = NULL;
	rt_status st = rt_format(list, sizeof list, err, "%s", archs);
	for (char *a = strtok_r(list, ",", &save); a && st == RT_OK; a = strtok_r(NULL, ",", &save)) {
		s->arch = a;
		for (const rt_kind *const *k = rt_kinds(); *k && st == RT_OK; k++)
			if ((*k)->generic_kernels)
				st = (*k)->generic_kernels(emit_generic, s, err);
	}
	s->arch = NULL;
	return st;
}

rt_status rt_generic_write(const char *archs, const char *dir, rt_error *err)
{
	generic_state *s = rt_calloc(1, sizeof *s, err);
	char path[RT_PATH_MAX];
	rt_error e;
	rt_status st;
	if (!s)
		return RT_ERR_SYSTEM;
	s->dir = dir;
	if ((st = rt_format(path, sizeof path, err, "%s/kernels", dir)) == RT_OK &&
	    (st = rt_mkdirs(path, err)) == RT_OK) {
		if (nvrtc_open(&e) != RT_OK)
			rt_warn("generic-kernels: %s; evoforge will compile them at run time", e.msg);
		else
			st = compile_all(archs ? archs : RT_DEFAULT_ARCH, s, err);
	}
	if (st == RT_OK)
		st = write_table(s, err);
	for (int i = 0; i < s->n; i++)
		free(s->k[i].log);
	free(s);
	return st;
}
