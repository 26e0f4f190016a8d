/* build.c: `evoforge build SPEC -o DIR`: writes a problem-specific program
 * (generated C, the kernels compiled ahead of time, a build.ninja) and
 * builds it with ninja when ninja is there. See build.h for what DIR holds.
 *
 * Why kernels are listed by each kind (rt_kind.kernels) and looked up by the
 * exact compile (name, source, arch, options): a kernel's source can depend
 * on the data (GP's operations), on run-time state (GP's stack depth grows
 * with the programs) and on the device (DE's shared memory), so the program
 * cannot know its cubins by name alone. The kind lists every compile a run
 * may make; the run renders its source as always and nvrtc_compile finds
 * the embedded cubin by key, so the same code path runs built or not. */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "build.h"
#include "gen.h"
#include "kcache.h"
#include "log.h"
#include "nvrtc.h"
#include "out.h"
#include "tune.h"

extern char **environ;

/* Flags and libraries the library was built with (sources.ninja), so that
 * the program links against the copied libevoforge.a the same way. */
#if !defined(RT_BUILD_VFLAGS)
#define RT_BUILD_VFLAGS ""
#endif
#if !defined(RT_BUILD_LIBS)
#define RT_BUILD_LIBS "-Wl,-Bstatic -linih -lz -Wl,-Bdynamic -ldl -lpthread -lm"
#endif

typedef struct build_state {
	const char *dir;
	const char *arch;          /* the arch being compiled */
	rt_build_kernel *k;
	int n, cap;
} build_state;

/* ---- device profiles ---------------------------------------------------------- */

rt_status rt_build_device_profile(const char *arch, gpu_info *info, rt_error *err)
{
	static const struct { const char *arch; int optin, per_sm; } sizes[] = {
		{ "sm_80", 163 * 1024, 164 * 1024 },   /* A100 */
		{ "sm_86", 99 * 1024, 100 * 1024 },
		{ "sm_87", 163 * 1024, 164 * 1024 },
		{ "sm_89", 99 * 1024, 100 * 1024 },
		{ "sm_90", 227 * 1024, 228 * 1024 },   /* H100, H200 */
		{ "sm_100", 227 * 1024, 228 * 1024 },  /* B200 */
		{ "sm_120", 99 * 1024, 100 * 1024 },
	};
	const char *p = arch + 3;
	memset(info, 0, sizeof *info);
	if (strncmp(arch, "sm_", 3) != 0 || strlen(p) < 2 || strlen(p) > 3 ||
	    strspn(p, "0123456789") != strlen(p))
		return rt_fail(err, RT_ERR_INPUT, "--arch: '%s' is not of the form sm_XY (e.g. sm_90)",
			       arch);
	snprintf(info->name, sizeof info->name, "typical %s device", arch);
	info->cc_major = atoi(p) / 10;
	info->cc_minor = atoi(p) % 10;
	for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++)
		if (!strcmp(sizes[i].arch, arch)) {
			info->smem_per_block_optin = sizes[i].optin;
			info->smem_per_sm = sizes[i].per_sm;
		}
	return RT_OK;
}

/* ---- compiling the kernels ----------------------------------------------------- */

/* rt_kernel_emit: compiles one kernel for st->arch into DIR/kernels/kN.cubin. */
static rt_status emit_kernel(void *ctx, const char *name, const char *source,
			     const char *const *options, int noptions, rt_error *err)
{
	build_state *b = ctx;
	nvrtc_output out;
	char path[RT_PATH_MAX];
	uint64_t key = kcache_prebuilt_key(name, source, b->arch, options, noptions);
	rt_status st;
	for (int i = 0; i < b->n; i++)
		if (b->k[i].key == key && !strcmp(b->k[i].arch, b->arch))
			return RT_OK;
	if (b->n == b->cap) {
		int cap = b->cap ? 2 * b->cap : 16;
		rt_build_kernel *k = rt_realloc(b->k, (size_t)cap * sizeof *k, err);
		if (!k)
			return RT_ERR_SYSTEM;
		b->k = k;
		b->cap = cap;
	}
	rt_info("build: compiling %s for %s", name, b->arch);
	/* the source too, for reading (kinds without a gen hook have no other copy) */
	if ((st = rt_format(path, sizeof path, err, "%s/gen/%s", b->dir, name)) != RT_OK ||
	    (access(path, F_OK) != 0 &&
	     (st = rt_write_file_atomic(path, source, strlen(source), err)) != RT_OK))
		return st;
	if ((st = nvrtc_compile(name, source, b->arch, options, noptions, &out, err)) != RT_OK)
		return st;
	if ((st = rt_format(path, sizeof path, err, "%s/kernels/k%d.cubin", b->dir, b->n)) == RT_OK &&
	    (st = rt_build_keep_cubin(&b->k[b->n], name, b->arch, key, &out, path, err)) == RT_OK)
		b->n++;
	nvrtc_output_free(&out);
	return st;
}

rt_status rt_build_keep_cubin(rt_build_kernel *k, const char *name, const char *arch, uint64_t key,
			      nvrtc_output *out, const char *path, rt_error *err)
{
	rt_status st = rt_write_file_atomic(path, out->cubin, out->size, err);
	memset(k, 0, sizeof *k);
	if (st != RT_OK)
		return st;
	snprintf(k->name, sizeof k->name, "%s", name);
	snprintf(k->arch, sizeof k->arch, "%s", arch);
	k->key = key;
	k->size = out->size;
	k->log = out->log;   /* taken over */
	out->log = NULL;
	return RT_OK;
}

/* Every kernel the kind lists, for every arch of the comma-separated list. */
static rt_status compile_kernels(const rt_kind *kind, rt_spec *spec, const rt_options *opt,
				 const char *archs, build_state *b, rt_error *err)
{
	char list[256], *save = NULL;
	gpu_info info;
	rt_status st = rt_format(list, sizeof list, err, "%s", archs);
	for (char *a = strtok_r(list, ",", &save); a && st == RT_OK; a = strtok_r(NULL, ",", &save)) {
		if ((st = rt_build_device_profile(a, &info, err)) != RT_OK)
			break;
		b->arch = a;
		st = kind->kernels(spec, opt, &info, emit_kernel, b, err);
		b->arch = NULL;
	}
	return st;
}

/* ---- writing the program -------------------------------------------------------- */

void rt_build_put_table(rt_buf *o, const rt_build_kernel *k, int n, const char *prefix,
			const char *table)
{
	for (int i = 0; i < n; i++) {
		rt_buf_printf(o, "/* %s for %s, %zu bytes */\nextern const unsigned char %s_%d[], "
			      "%s_%d_end[];\nstatic const char log_%d[] =\n", k[i].name, k[i].arch,
			      k[i].size, prefix, i, prefix, i, i);
		rt_build_c_string(o, k[i].log ? k[i].log : "");
		rt_buf_puts(o, ";\n");
	}
	rt_buf_printf(o, "\nstatic const rt_built_kernel %s[%d] = {\n", table, n > 0 ? n : 1);
	for (int i = 0; i < n; i++)
		rt_buf_printf(o, "\t{ \"%s\", \"%s\", 0x%016" PRIx64 "ULL, %s_%d, %s_%d_end, log_%d },\n",
			      k[i].name, k[i].arch, k[i].key, prefix, i, prefix, i, i);
	rt_buf_puts(o, "};\n");
}

void rt_build_c_string(rt_buf *o, const char *s)
{
	int col = 0;
	rt_buf_puts(o, "\t\"");
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;
		if (c == '"' || c == '\\')
			rt_buf_printf(o, "\\%c", c);
		else if (c == '\n')
			rt_buf_puts(o, "\\n");
		else if (c < 32 || c >= 127)
			rt_buf_printf(o, "\\%03o", c);
		else
			rt_buf_printf(o, "%c", c);
		if ((c == '\n' || ++col >= 200) && s[1]) {
			rt_buf_puts(o, "\"\n\t\"");
			col = 0;
		}
	}
	rt_buf_puts(o, "\"");
}

/* The spec's overrides (entries set from the command line or the tuning
 * database: line 0) as a C array of "section.key=value" strings. */
static int put_overrides(rt_buf *o, const rt_spec *spec)
{
	int n = 0;
	rt_buf_puts(o, "static const char *const overrides[] = {\n");
	for (int i = 0; i < spec->nentries; i++) {
		const rt_spec_entry *e = &spec->entries[i];
		if (e->line != 0)
			continue;
		rt_buf a = {0};
		rt_buf_printf(&a, "%s.%s=%s", e->section, e->key, e->value);
		rt_build_c_string(o, a.data ? a.data : "");
		rt_buf_puts(o, ",\n");
		rt_buf_free(&a);
		n++;
	}
	rt_buf_puts(o, "\tNULL\n};\n\n");
	return n;
}

/* DIR/NAME.c: the spec, the overrides, the kernel table and main. */
static rt_status write_main(const build_state *b, const char *name, const char *spec_dir,
			    const char *spec_text, const rt_spec *spec, const rt_options *opt,
			    const char *archs, rt_error *err)
{
	rt_buf o = {0};
	char path[RT_PATH_MAX];
	rt_buf_printf(&o, "/* %s.c: the problem-specific program for %s.\n * Autogenerated by "
		      "evoforge %s (evoforge build); do not edit: run evoforge build again. */\n"
		      "#include <stddef.h>\n\n#include \"evoforge_built.h\"\n\n"
		      "static const char spec_text[] =\n", name, spec->path, RT_VERSION);
	rt_build_c_string(&o, spec_text);
	rt_buf_puts(&o, ";\n\n");
	int noverrides = put_overrides(&o, spec);
	rt_build_put_table(&o, b->k, b->n, "evo_cubin", "kernels");
	rt_buf_printf(&o, "\nstatic const rt_built_program program = {\n\tRT_BUILT_ABI, \"%s\", "
		      "\"%s\",\n", name, RT_VERSION);
	rt_build_c_string(&o, spec->path);
	rt_buf_puts(&o, ",\n");
	rt_build_c_string(&o, spec_dir);
	rt_buf_printf(&o, ",\n\tspec_text, overrides, %d, %d, \"%s\", kernels, %d\n};\n\n"
		      "int main(int argc, char **argv)\n{\n\treturn rt_built_main(&program, argc, "
		      "argv);\n}\n", noverrides, opt->threads, archs, b->n);
	rt_status st = o.failed ? rt_fail(err, RT_ERR_SYSTEM, "out of memory writing %s.c", name)
		       : rt_format(path, sizeof path, err, "%s/%s.c", b->dir, name);
	if (st == RT_OK)
		st = rt_write_file_atomic(path, o.data, o.len, err);
	rt_buf_free(&o);
	return st;
}

/* DIR/kernels.S (the cubins) and DIR/build.ninja. */
static rt_status write_build_files(const build_state *b, const char *name, rt_error *err)
{
	rt_buf s = {0}, n = {0};
	char path[RT_PATH_MAX];
	rt_status st;
	rt_buf_puts(&s, "/* kernels.S: the cubins of kernels/, embedded.\n * Autogenerated by evoforge "
		    "build; do not edit. */\n\t.section .rodata\n");
	for (int i = 0; i < b->n; i++)
		rt_buf_printf(&s, "\t.balign 16\n\t.globl evo_cubin_%d, evo_cubin_%d_end\nevo_cubin_%d:\n"
			      "\t.incbin \"kernels/k%d.cubin\"\nevo_cubin_%d_end:\n", i, i, i, i, i);
	rt_buf_puts(&s, "\t.section .note.GNU-stack,\"\",@progbits\n");
	rt_buf_printf(&n, "# build.ninja: builds %s, the problem-specific program (`ninja -C DIR`).\n"
		      "# Autogenerated by evoforge %s (evoforge build); do not edit.\n"
		      "cc = gcc\ncflags = -std=c11 -O2 %s\nlibs = %s\n\n"
		      "rule cc\n  command = $cc $cflags -Iinclude -c $in -o $out\n  description = CC $out\n"
		      "rule link\n  command = $cc $cflags -o $out $in $libs\n  description = LINK $out\n\n"
		      "build %s.o: cc %s.c | include/evoforge_built.h\nbuild kernels.o: cc kernels.S |",
		      name, RT_VERSION, RT_BUILD_VFLAGS, RT_BUILD_LIBS, name, name);
	for (int i = 0; i < b->n; i++)
		rt_buf_printf(&n, " kernels/k%d.cubin", i);
	rt_buf_printf(&n, "\nbuild %s: link %s.o kernels.o lib/libevoforge.a\ndefault %s\n", name,
		      name, name);
	if (s.failed || n.failed)
		st = rt_fail(err, RT_ERR_SYSTEM, "out of memory writing the build files");
	else if ((st = rt_format(path, sizeof path, err, "%s/kernels.S", b->dir)) == RT_OK &&
		 (st = rt_write_file_atomic(path, s.data, s.len, err)) == RT_OK &&
		 (st = rt_format(path, sizeof path, err, "%s/build.ninja", b->dir)) == RT_OK)
		st = rt_write_file_atomic(path, n.data, n.len, err);
	rt_buf_free(&s);
	rt_buf_free(&n);
	return st;
}

/* Copies the file at from to to (atomically). */
static rt_status copy_file(const char *from, const char *to, rt_error *err)
{
	char *data;
	size_t size;
	rt_status st = rt_read_file(from, &data, &size, err);
	if (st == RT_OK) {
		st = rt_write_file_atomic(to, data, size, err);
		free(data);
	}
	return st;
}

/* DIR/include/evoforge_built.h and DIR/lib/libevoforge.a: the library this
 * evoforge was linked with, found next to the executable ($EVOFORGE_LIBDIR
 * overrides). */
static rt_status copy_runtime(const char *dir, rt_error *err)
{
	const gen_file *h = gen_embedded("runtime/built.h");
	const char *env = getenv("EVOFORGE_LIBDIR");
	char exe[RT_PATH_MAX], lib[RT_PATH_MAX + 32], to[RT_PATH_MAX];
	rt_status st;
	if (!h)
		return rt_fail(err, RT_ERR_INTERNAL, "runtime/built.h is not embedded");
	if ((st = rt_format(to, sizeof to, err, "%s/include/evoforge_built.h", dir)) != RT_OK ||
	    (st = rt_write_file_atomic(to, h->text, h->size, err)) != RT_OK)
		return st;
	if (env && *env) {
		snprintf(lib, sizeof lib, "%s/libevoforge.a", env);
	} else {
		ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
		if (n <= 0)
			return rt_fail(err, RT_ERR_SYSTEM, "cannot find this program's folder (%s): set "
				       "EVOFORGE_LIBDIR to the folder of libevoforge.a", strerror(errno));
		exe[n] = '\0';
		*strrchr(exe, '/') = '\0';
		snprintf(lib, sizeof lib, "%s/libevoforge.a", exe);
	}
	if (access(lib, R_OK) != 0)
		return rt_fail(err, RT_ERR_SYSTEM, "%s: %s (the runtime library the program links "
			       "with; build it with ninja, or set EVOFORGE_LIBDIR)", lib, strerror(errno));
	if ((st = rt_format(to, sizeof to, err, "%s/lib/libevoforge.a", dir)) == RT_OK)
		st = copy_file(lib, to, err);
	return st;
}

/* ---- building -------------------------------------------------------------------- */

/* Whether an executable `ninja` is on PATH. */
static int have_ninja(void)
{
	const char *path = getenv("PATH");
	char buf[RT_PATH_MAX];
	for (const char *p = path ? path : ""; *p;) {
		size_t n = strcspn(p, ":");
		if (n > 0 && n + sizeof "/ninja" <= sizeof buf) {
			memcpy(buf, p, n);
			memcpy(buf + n, "/ninja", sizeof "/ninja");
			if (access(buf, X_OK) == 0)
				return 1;
		}
		p += n + (p[n] == ':');
	}
	return 0;
}

/* ninja -C dir; its output goes to ours. */
static rt_status run_ninja(const char *dir, rt_error *err)
{
	char *args[] = { "ninja", "-C", (char *)dir, NULL };
	pid_t pid;
	int status, rc;
	fflush(stdout);
	fflush(stderr);
	if ((rc = posix_spawnp(&pid, "ninja", NULL, NULL, args, environ)) != 0)
		return rt_fail(err, RT_ERR_SYSTEM, "cannot run ninja: %s", strerror(rc));
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return rt_fail(err, RT_ERR_SYSTEM, "waiting for ninja: %s", strerror(errno));
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
		return rt_fail(err, RT_ERR_SYSTEM, "building %s failed (ninja -C %s: %s %d)", dir, dir,
			       WIFEXITED(status) ? "exit status" : "signal",
			       WIFEXITED(status) ? WEXITSTATUS(status) : WTERMSIG(status));
	return RT_OK;
}

/* The program's name: [problem] name, made safe for a file name. */
static void program_name(rt_spec *spec, char *out, int size)
{
	rt_spec_entry *e = rt_spec_find(spec, "problem", "name");
	int i = 0;
	for (const char *p = e && e->value[0] ? e->value : "problem"; *p && i + 1 < size; p++) {
		char c = *p;
		int ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
			 c == '-' || c == '_';
		out[i++] = ok ? c : '_';
	}
	out[i] = '\0';
}

/* DIR and its folders; the spec's text and its folder's absolute path
 * (abs, PATH_MAX bytes); DIR/NAME.ini, a copy of the spec. */
static rt_status prepare(const char *dir, const rt_spec *spec, const char *name, char **text,
			 char *abs, rt_error *err)
{
	static const char *const sub[] = { "", "/kernels", "/include", "/lib", "/gen" };
	char path[RT_PATH_MAX];
	size_t size;
	rt_status st = RT_OK;
	*text = NULL;
	for (size_t i = 0; i < sizeof sub / sizeof sub[0] && st == RT_OK; i++)
		if ((st = rt_format(path, sizeof path, err, "%s%s", dir, sub[i])) == RT_OK)
			st = rt_mkdirs(path, err);
	if (st != RT_OK)
		return st;
	if (!realpath(spec->path, abs))
		return rt_fail(err, RT_ERR_INPUT, "%s: %s", spec->path, strerror(errno));
	if ((st = rt_read_file(abs, text, &size, err)) != RT_OK)
		return st;
	if ((st = rt_format(path, sizeof path, err, "%s/%s.ini", dir, name)) == RT_OK)
		st = rt_write_file_atomic(path, *text, size, err);
	*strrchr(abs, '/') = '\0';   /* realpath's result is absolute: there is a '/' */
	if (!abs[0])
		abs[0] = '/', abs[1] = '\0';
	return st;
}

/* Builds DIR with ninja, or says how to; reports the binary and its size. */
static rt_status finish(const char *dir, const char *name, const build_state *b,
			const char *archs, rt_error *err)
{
	char path[RT_PATH_MAX];
	struct stat sb;
	rt_status st;
	if (!have_ninja()) {
		printf("ninja not found: sources written to %s; build with `ninja -C %s` (needs gcc, "
		       "zlib and inih)\n", dir, dir);
		return RT_OK;
	}
	if ((st = run_ninja(dir, err)) != RT_OK ||
	    (st = rt_format(path, sizeof path, err, "%s/%s", dir, name)) != RT_OK)
		return st;
	if (stat(path, &sb) != 0)
		return rt_fail(err, RT_ERR_SYSTEM, "%s: %s after ninja", path, strerror(errno));
	printf("built %s: %.1f KiB, %d kernel%s embedded for %s; run it with `%s run`\n", path,
	       sb.st_size / 1024.0, b->n, b->n == 1 ? "" : "s", archs, path);
	return RT_OK;
}

rt_status rt_build_command(const rt_kind *kind, rt_spec *spec, const rt_options *opt,
			   const rt_build_cli *bc, rt_error *err)
{
	build_state b;
	char name[64], abs[PATH_MAX], gdir[RT_PATH_MAX], *text = NULL;
	const char *archs = bc && bc->archs ? bc->archs : RT_DEFAULT_ARCH;
	rt_status st;
	memset(&b, 0, sizeof b);
	b.dir = opt->outdir;
	if (!kind->kernels)
		return rt_fail(err, RT_ERR_UNSUPPORTED, "kind '%s' cannot be built yet (it lists no "
			       "kernels)", kind->name);
	if (!opt->outdir)
		return rt_fail(err, RT_ERR_INPUT, "build: expected -o DIR (see evoforge help build)");
	program_name(spec, name, sizeof name);
	if ((st = prepare(b.dir, spec, name, &text, abs, err)) == RT_OK &&
	    (st = compile_kernels(kind, spec, opt, archs, &b, err)) == RT_OK &&
	    (st = rt_format(gdir, sizeof gdir, err, "%s/gen", b.dir)) == RT_OK && kind->gen)
		st = kind->gen(spec, opt, gdir, err);   /* for reading */
	if (st == RT_OK && (st = copy_runtime(b.dir, err)) == RT_OK &&
	    (st = write_main(&b, name, abs, text, spec, opt, archs, err)) == RT_OK &&
	    (st = write_build_files(&b, name, err)) == RT_OK)
		st = finish(b.dir, name, &b, archs, err);
	for (int i = 0; i < b.n; i++)
		free(b.k[i].log);
	free(b.k);
	free(text);
	return st;
}
