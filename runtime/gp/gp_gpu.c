/* gp_gpu.c: the host side of the GPU GP evaluators (see gp_gpu.h): variant
 * names, rendering templates/gp/gp_gpu.cu for a problem, compiling it with
 * NVRTC, uploading the cases once, encoding each population into pinned
 * memory (two buffers, so one can be filled while the other is evaluated),
 * launching, and the check and benchmark tables.
 *
 * Why the host encodes LGP programs: a straight-line program's stack pointer
 * is known before it runs, so each S operand is resolved here into "the top"
 * (a register on the device) or "stack slot k", and each instruction without
 * an S operand into a push of the old top into slot k. The interpreter then
 * keeps no stack pointer (templates/gp/gp_gpu.cu). Input operands are turned
 * into element offsets of the input's column on the device. */
#include <math.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cpu.h"
#include "gen.h"
#include "gp_conv.h"
#include "gp_eval.h"
#include "gp_gpu.h"
#include "gp_scale.h"
#include "gp/gp_breed.h"
#include "gp/gp_ops.h"
#include "gpu.h"
#include "log.h"
#include "nvrtc.h"

/* ---- the operation table, as text for the generator ----------------------- */

typedef struct op_row {
	const char *e, *expr;
	int arity, is_bool;
} op_row;

static const op_row op_rows[GP_OP_COUNT] = {
#define GPF_(E, name, ar, expr) { #E, #expr, ar, 0 },
#define GPB_(E, name, ar, expr) { #E, #expr, ar, 1 },
	GP_FLOAT_OPS(GPF_) GP_BOOL_OPS(GPB_)
#undef GPF_
#undef GPB_
};

/* ---- variants ------------------------------------------------------------- */

typedef struct preset {
	const char *name;
	gp_gpu_config c;
} preset;

/* form, width, nvec, regs, threads, passes, carveout, stack, xreg, tos */
static const preset presets[] = {
	{ "blockgp", { GP_FORM_RPN, 1, 1, 0, 256, 0, -1, 0, -1, 1 } },
	{ "lgp1d", { GP_FORM_LGP, 1, 1, 1, 256, 0, -1, 0, -1, 1 } },
	{ "lgp-float2", { GP_FORM_LGP, 2, 1, 1, 256, 0, -1, 0, -1, 1 } },
	{ "lgp-float3", { GP_FORM_LGP, 3, 1, 1, 256, 0, -1, 0, -1, 1 } },
	{ "lgp-float4", { GP_FORM_LGP, 4, 1, 1, 256, 0, -1, 0, -1, 1 } },
	{ "lgp-fast", { GP_FORM_LGP, 4, 2, 1, 256, 2, -1, 0, -1, 1 } },
};
#define NPRESETS ((int)(sizeof presets / sizeof presets[0]))

const char *const gp_gpu_variants[] = {
	"blockgp", "blockgp-x0-o0", "rpn2d-2", "rpn2d-4", "rpn2d-6", "lgp1d", "lgp2d-2", "lgp2d-4", "lgp2d-6",
	"lgp-float2", "lgp-float3", "lgp-float4", "lgp-float4-r2", "lgp-float4-r4",
	"lgp-float4-p4", "lgp2d-8-p4", "lgp-fast", "lgp-fast-r0", "lgp-fast-r2", "lgp-fast-r4",
	"lgp-fast-p4", "lgp-fast-p8", "lgp-fast-p16", "lgp-f4x3-p4", "lgp-f4x4-p2", NULL
};

void gp_gpu_config_default(gp_gpu_config *cfg)
{
	rt_error e;
	if (gp_gpu_variant_parse(GP_GPU_DEFAULT_VARIANT, cfg, &e) != RT_OK)
		*cfg = presets[NPRESETS - 1].c;
}

static rt_status config_check(const gp_gpu_config *c, rt_error *err)
{
	if (c->form != GP_FORM_RPN && c->form != GP_FORM_LGP)
		return rt_fail(err, RT_ERR_INPUT, "GPU GP variant: unknown form %d", c->form);
	if (c->width < 1 || c->width > 4 || c->nvec < 1 || c->width * c->nvec > 16)
		return rt_fail(err, RT_ERR_INPUT,
			       "GPU GP variant: %d x %d cases per thread (expected width 1..4, at most 16 cases)",
			       c->width, c->nvec);
	if (c->regs < 0 || c->regs > 4)
		return rt_fail(err, RT_ERR_INPUT, "GPU GP variant: %d register stack levels (expected 0..4)",
			       c->regs);
	if (c->threads < 32 || c->threads > 1024 || c->threads % 32)
		return rt_fail(err, RT_ERR_INPUT,
			       "GPU GP variant: %d threads per block (expected a multiple of 32 in 32..1024)",
			       c->threads);
	if (c->passes < 0 || c->passes > 65535 || c->carveout < -1 || c->carveout > 100 ||
	    c->stack < 0 || c->stack > GP_GPU_MAX_STACK || c->xreg < -1 || c->xreg > 1 ||
	    c->tos < 0 || c->tos > 1)
		return rt_fail(err, RT_ERR_INPUT,
			       "GPU GP variant: passes %d (0..65535), carve-out %d (-1..100), stack %d "
			       "(0..%d), xreg %d (-1..1) or tos %d (0..1) out of range", c->passes,
			       c->carveout, c->stack, GP_GPU_MAX_STACK, c->xreg, c->tos);
	return RT_OK;
}

/* Reads a decimal number at *s (advancing it); -1 if none. */
static long read_num(const char **s)
{
	long v = 0;
	if (**s < '0' || **s > '9')
		return -1;
	while (**s >= '0' && **s <= '9' && v < 1000000)
		v = v * 10 + (*(*s)++ - '0');
	return v;
}

rt_status gp_gpu_variant_parse(const char *name, gp_gpu_config *cfg, rt_error *err)
{
	gp_gpu_config c;
	const char *s = NULL;
	size_t best = 0;
	if (!name)
		return rt_fail(err, RT_ERR_INPUT, "no GPU GP variant name");
	for (int i = 0; i < NPRESETS; i++) {
		size_t n = strlen(presets[i].name);
		if (n > best && strncmp(name, presets[i].name, n) == 0 &&
		    (name[n] == '\0' || name[n] == '-')) {
			best = n;
			c = presets[i].c;
			s = name + n;
		}
	}
	if (!s) {
		static const struct { const char *base; int form, regs; } pat[] = {
			{ "rpn2d-", GP_FORM_RPN, 0 }, { "lgp2d-", GP_FORM_LGP, 1 },
			{ "rpn1d", GP_FORM_RPN, 0 }, { "rpn", GP_FORM_RPN, 0 }, { "lgp", GP_FORM_LGP, 1 },
		};
		for (size_t i = 0; i < sizeof pat / sizeof pat[0] && !s; i++) {
			size_t n = strlen(pat[i].base);
			if (strncmp(name, pat[i].base, n) != 0)
				continue;
			c = presets[0].c;
			c.form = pat[i].form;
			c.regs = pat[i].regs;
			s = name + n;
			if (pat[i].base[n - 1] == '-') {
				long v = read_num(&s);
				if (v < 2 || v > 16)
					goto bad;
				c.nvec = (int)v;
			} else if (*s != '\0' && *s != '-') {
				s = NULL;
			}
		}
	}
	if (!s)
		goto bad;
	while (*s == '-') {
		char k = *++s;
		long v;
		if (k == '\0')   /* a trailing '-': stop before reading past the end */
			goto bad;
		s++;
		if (k == 'f') {
			if ((v = read_num(&s)) < 0)
				goto bad;
			c.width = (int)v;
			c.nvec = 1;
			if (*s == 'x') {
				s++;
				if ((v = read_num(&s)) < 0)
					goto bad;
				c.nvec = (int)v;
			}
			continue;
		}
		int neg = *s == 'm';   /* -c m1 style negative: "-cm1" = -1 */
		if (neg)
			s++;
		if ((v = read_num(&s)) < 0)
			goto bad;
		if (neg)
			v = -v;
		switch (k) {
		case 'r': c.regs = (int)v; break;
		case 'p': c.passes = (int)v; break;
		case 't': c.threads = (int)v; break;
		case 'c': c.carveout = (int)v; break;
		case 's': c.stack = (int)v; break;
		case 'x': c.xreg = (int)v; break;
		case 'o': c.tos = (int)v; break;
		default: goto bad;
		}
	}
	if (*s != '\0')
		goto bad;
	if (config_check(&c, err) != RT_OK) {
		rt_error_prefix(err, "'%s'", name);
		return err ? err->status : RT_ERR_INPUT;
	}
	*cfg = c;
	return RT_OK;
bad:
	return rt_fail(err, RT_ERR_INPUT,
		       "unknown GPU GP variant '%s' (expected blockgp, rpn2d-N, lgp1d, lgp2d-N, "
		       "lgp-float2|3|4, lgp-fast, rpn or lgp, then modifiers -fWxN -rK -pP -tT -cC -sS -xX -oO)",
		       name);
}

const char *gp_gpu_variant_name(const gp_gpu_config *c, char *buf, int size)
{
	gp_gpu_config base = presets[0].c;
	char head[32] = "";
	int n;
	for (int i = 0; i < NPRESETS && !head[0]; i++)
		if (presets[i].c.form == c->form && presets[i].c.width == c->width &&
		    presets[i].c.nvec == c->nvec) {
			snprintf(head, sizeof head, "%s", presets[i].name);
			base = presets[i].c;
		}
	if (!head[0] && c->width == 1) {
		snprintf(head, sizeof head, "%s-%d", c->form == GP_FORM_RPN ? "rpn2d" : "lgp2d", c->nvec);
		base.form = c->form;
		base.nvec = c->nvec;
		base.regs = c->form == GP_FORM_RPN ? 0 : 1;
	}
	if (!head[0]) {
		snprintf(head, sizeof head, "%s-f%dx%d", c->form == GP_FORM_RPN ? "rpn" : "lgp", c->width,
			 c->nvec);
		base.form = c->form;
		base.width = c->width;
		base.nvec = c->nvec;
		base.regs = c->form == GP_FORM_RPN ? 0 : 1;
	}
	n = snprintf(buf, (size_t)size, "%s", head);
#define GPG_MOD_(field, letter)                                                             \
	if (c->field != base.field && n < size) {                                           \
		if (c->field < 0)                                                           \
			n += snprintf(buf + n, (size_t)(size - n), "-%cm%d", letter, -c->field); \
		else                                                                        \
			n += snprintf(buf + n, (size_t)(size - n), "-%c%d", letter, c->field); \
	}
	GPG_MOD_(regs, 'r')
	GPG_MOD_(passes, 'p')
	GPG_MOD_(threads, 't')
	GPG_MOD_(carveout, 'c')
	GPG_MOD_(stack, 's')
	GPG_MOD_(xreg, 'x')
	GPG_MOD_(tos, 'o')
#undef GPG_MOD_
	return buf;
}

/* ---- rendering ------------------------------------------------------------ */

const char *const gp_gpu_nvrtc_options[] = { "--fmad=false", "-Xptxas", "-v" };
const int gp_gpu_nvrtc_noptions = 3;

/* use[op]: the functions the interpreter dispatches. */
static void ops_used(const gp_cases *cases, const gp_fset *fs, unsigned char *use)
{
	int is_bool = cases->fitness == GP_FIT_BOOL;
	memset(use, 0, GP_OP_COUNT);
	if (fs) {
		for (int i = 0; i < fs->nfuncs; i++)
			if (fs->funcs[i] < GP_OP_COUNT && op_rows[fs->funcs[i]].is_bool == is_bool)
				use[fs->funcs[i]] = 1;
	} else {
		for (int op = 0; op < GP_OP_COUNT; op++)
			use[op] = op_rows[op].is_bool == is_bool;
	}
}

static int xreg_of(const gp_cases *cases, const gp_gpu_config *cfg)
{
	if (cfg->xreg >= 0)
		return cfg->xreg && cases->ninputs == 1;
	return cases->ninputs == 1;
}

static rt_status render(const gp_cases *cases, const unsigned char *use, const gp_gpu_config *cfg,
			int stack, gen_source *src, rt_error *err)
{
	char vname[96], fname[128];
	int maxar = 1;
	rt_status st;
	gp_gpu_variant_name(cfg, vname, sizeof vname);
	snprintf(fname, sizeof fname, "gp_gpu-%s-s%d.cu", vname, stack);
	gen_begin(src, fname, "the GPU GP interpreter (gpg_eval, gpg_finish)");
	gen_line(src, "/* variant %s; fitness %s; %d inputs */", vname,
		 cases->fitness == GP_FIT_MSE ? "MSE" : cases->fitness == GP_FIT_CLASS ? "classes" :
		 "Boolean", cases->ninputs);
	for (int op = 0; op < GP_OP_COUNT; op++) {
		char m[48];
		snprintf(m, sizeof m, "GP_USE_%s", op_rows[op].e);
		gen_define_int(src, m, use[op] ? 1 : 0);
		if (use[op] && op_rows[op].arity > maxar)
			maxar = op_rows[op].arity;
	}
	gen_define_int(src, "GPG_FORM", cfg->form);
	gen_define_int(src, "GPG_BOOL", cases->fitness == GP_FIT_BOOL);
	gen_define_int(src, "GPG_FIT", cases->fitness);
	gen_define_int(src, "GPG_LS", gp_scale_on(cases));   /* linear scaling (gp_scale.h) */
	gen_define_int(src, "GPG_W", cfg->width);
	gen_define_int(src, "GPG_NV", cfg->nvec);
	gen_define_int(src, "GPG_REGS", cfg->regs);
	gen_define_int(src, "GPG_STACK", stack);
	gen_define_int(src, "GPG_THREADS", cfg->threads);
	gen_define_int(src, "GPG_XREG", xreg_of(cases, cfg));
	gen_define_int(src, "GPG_TOS", cfg->form == GP_FORM_RPN ? cfg->tos : 0);
	gen_define_int(src, "GPG_MAXAR", maxar);
	gen_define_int(src, "GPG_NCLASSES", cases->nclasses > 0 ? cases->nclasses : 1);
	gen_line(src, "/* The problem's functions: X(opcode, arity, expression from gp_ops.h). */");
	gen_line(src, "#define GPG_DISPATCH(X) \\");
	for (int op = 0; op < GP_OP_COUNT; op++)
		if (use[op])
			gen_line(src, "\tX(%s, %d, %s) \\", op_rows[op].e, op_rows[op].arity,
				 op_rows[op].expr);
	gen_line(src, "\t/* end of GPG_DISPATCH */");
	gen_line(src, "%s", "");
	if ((st = gen_template(src, "gp/gp_gpu.cu", err)) != RT_OK)
		gen_free(src);
	return st;
}

rt_status gp_gpu_render(const gp_cases *cases, const gp_fset *fs, const gp_gpu_config *cfg,
			gen_source *src, rt_error *err)
{
	unsigned char use[GP_OP_COUNT];
	gp_gpu_config c;
	rt_status st;
	if (!cases)
		return rt_fail(err, RT_ERR_INPUT, "no fitness cases");
	if (cfg)
		c = *cfg;
	else
		gp_gpu_config_default(&c);
	if ((st = config_check(&c, err)) != RT_OK)
		return st;
	ops_used(cases, fs, use);
	return render(cases, use, &c, c.stack ? c.stack : 8, src, err);
}

rt_status gp_gpu_gen_sources(const gp_cases *cases, const gp_fset *fs, const char *dir,
			     rt_error *err)
{
	for (int i = 0; gp_gpu_variants[i]; i++) {
		gp_gpu_config c;
		gen_source src;
		rt_status st;
		if ((st = gp_gpu_variant_parse(gp_gpu_variants[i], &c, err)) != RT_OK ||
		    (st = gp_gpu_render(cases, fs, &c, &src, err)) != RT_OK)
			return st;
		st = gen_write(&src, dir, err);
		if (st == RT_OK)
			printf("%s/%s\n", dir, src.name);
		gen_free(&src);
		if (st != RT_OK)
			return st;
	}
	return RT_OK;
}

rt_status gp_gpu_kernels(const gp_cases *cases, const gp_fset *fs, const gp_gpu_config *cfg,
			 const gp_breed *br, rt_kernel_emit emit, void *ctx, rt_error *err)
{
	unsigned char use[GP_OP_COUNT];
	int maxar = 1, bound;
	rt_status st = config_check(cfg, err);
	if (st != RT_OK)
		return st;
	ops_used(cases, fs, use);
	for (int op = 0; op < GP_OP_COUNT; op++)
		if (use[op] && op_rows[op].arity > maxar)
			maxar = op_rows[op].arity;
	/* A prefix program of depth D and arity a keeps at most (a-1)D+1 values
	 * on its stack, never more than its size; one more for either depth
	 * convention. gp_gpu_eval compiles 8, 16, 32 ... up to the need. */
	bound = (maxar - 1) * br->max_depth + 2;
	if (br->max_size > 0 && br->max_size < bound)
		bound = br->max_size;
	for (int d = cfg->stack ? cfg->stack : 8; st == RT_OK; d *= 2) {
		gen_source src;
		if ((st = render(cases, use, cfg, d, &src, err)) != RT_OK)
			return st;
		st = emit(ctx, src.name, src.text.data, gp_gpu_nvrtc_options, gp_gpu_nvrtc_noptions, err);
		gen_free(&src);
		if (cfg->stack || d >= bound || d * 2 > GP_GPU_MAX_STACK)
			break;
	}
	return st;
}

/* ---- the evaluator ---------------------------------------------------------- */

/* One population buffer: pinned host copy, device copy, results. */
typedef struct gpg_slot {
	void *host;           /* pinned: progs | code | consts */
	size_t cap;
	gpu_ptr dev;          /* same layout */
	size_t dcap;
	gpu_ptr partial, fit; /* nprogs * nchunks doubles (GP_LS_NM each with scaling); nprogs */
	size_t pcap, fcap;
	double *hfit;         /* pinned, hcap bytes */
	size_t hcap;
	gpu_timer *timer;     /* around the kernels */
	gpu_timer *done;      /* its stop: after the fitness download */
	int nprogs;
	uint64_t nodes;
	size_t bytes;
	double t0, encode_ms;
} gpg_slot;

struct gp_gpu {
	gp_gpu_config cfg;
	gp_cases cases;          /* scalars only (no data pointers) */
	unsigned char use[GP_OP_COUNT];
	gpu_info info;
	char arch[16];
	gpu_context *ctx;
	gpu_stream *stream;
	gpu_module *mod;
	int stack;               /* depth the module was compiled for (0: none yet) */
	int registers, smem_set;
	size_t units, dstride;   /* cases (words) evaluated; device column length */
	uint32_t passes, nchunks;
	gpu_ptr dx, dy;
	gpg_slot slot[2];
	uint32_t *cstart;         /* encoding scratch: each program's first code unit */
	size_t cstart_cap;       /* bytes */
	int head, inflight;      /* oldest in-flight slot, number in flight */
};

int gp_gpu_form(const gp_gpu *g) { return g->cfg.form; }

const char *gp_gpu_device_name(const gp_gpu *g, int *driver_version)
{
	if (driver_version)
		*driver_version = g->info.driver_version;
	return g->info.name;
}

/* Compiles and loads the interpreter for a stack depth. */
static rt_status compile(gp_gpu *g, int stack, rt_error *err)
{
	gen_source src;
	nvrtc_output out = { 0 };
	gpu_module *mod = NULL;
	int regs = 0, maxthr = 0, local = 0;
	rt_status st;
	if ((st = render(&g->cases, g->use, &g->cfg, stack, &src, err)) != RT_OK)
		return st;
	st = nvrtc_compile(src.name, src.text.data, g->arch, gp_gpu_nvrtc_options,
			   gp_gpu_nvrtc_noptions, &out, err);
	if (st == RT_OK && g->inflight)
		st = gpu_stream_sync(g->stream, err);
	if (st == RT_OK)
		st = gpu_module_load(g->ctx, out.cubin, out.size, &mod, err);
	if (st == RT_OK)
		st = gpu_kernel_info(mod, "gpg_eval", &regs, &maxthr, &local, err);
	if (st == RT_OK && maxthr < g->cfg.threads)
		st = rt_fail(err, RT_ERR_INPUT, "%s: %d registers per thread allow only %d threads per "
			     "block, not %d", src.name, regs, maxthr, g->cfg.threads);
	if (st == RT_OK && g->cfg.carveout >= 0)
		st = gpu_kernel_attrs(mod, "gpg_eval", -1, g->cfg.carveout, err);
	if (st == RT_OK) {
		gpu_module_unload(g->mod);
		g->mod = mod;
		g->stack = stack;
		g->registers = regs;
		g->smem_set = 48 * 1024;
	} else {
		gpu_module_unload(mod);
	}
	nvrtc_output_free(&out);
	gen_free(&src);
	return st;
}

void gp_gpu_close(gp_gpu *g)
{
	if (!g)
		return;
	if (g->stream) {
		rt_error e;
		gpu_stream_sync(g->stream, &e);
	}
	for (int i = 0; i < 2; i++) {
		gpg_slot *s = &g->slot[i];
		gpu_timer_destroy(s->timer);
		gpu_timer_destroy(s->done);
		gpu_host_free(g->ctx, s->host);
		gpu_host_free(g->ctx, s->hfit);
		gpu_free(g->ctx, s->dev);
		gpu_free(g->ctx, s->partial);
		gpu_free(g->ctx, s->fit);
	}
	free(g->cstart);
	gpu_free(g->ctx, g->dx);
	gpu_free(g->ctx, g->dy);
	gpu_module_unload(g->mod);
	gpu_stream_destroy(g->stream);
	gpu_context_close(g->ctx);
	free(g);
}

/* Uploads the cases: each column padded with zeros to dstride elements. */
static rt_status upload_cases(gp_gpu *g, const gp_cases *c, rt_error *err)
{
	int is_bool = c->fitness == GP_FIT_BOOL, nin = c->ninputs > 0 ? c->ninputs : 1;
	size_t ds = g->dstride, n = g->units;
	uint32_t *buf = rt_calloc((size_t)nin * ds, 4, err);
	rt_status st;
	if (!buf)
		return RT_ERR_SYSTEM;
	for (int i = 0; i < c->ninputs; i++) {
		if (is_bool)
			memcpy(buf + (size_t)i * ds, c->bits + (size_t)i * c->nwords, n * 4);
		else
			memcpy(buf + (size_t)i * ds, c->x + (size_t)i * c->stride, n * 4);
	}
	st = gpu_alloc(g->ctx, (size_t)nin * ds * 4, &g->dx, err);
	if (st == RT_OK)
		st = gpu_upload(g->ctx, g->dx, buf, (size_t)nin * ds * 4, err);
	if (st == RT_OK) {
		memset(buf, 0, ds * 4);
		memcpy(buf, is_bool ? (const void *)c->target : (const void *)c->y, n * 4);
		st = gpu_alloc(g->ctx, ds * 4, &g->dy, err);
		if (st == RT_OK)
			st = gpu_upload(g->ctx, g->dy, buf, ds * 4, err);
	}
	free(buf);
	return st;
}

rt_status gp_gpu_open(const gp_cases *cases, const gp_fset *fs, const gp_gpu_config *cfg,
		      gp_gpu **out, rt_error *err)
{
	gp_gpu *g;
	rt_status st;
	size_t pass_elems, per_chunk;
	*out = NULL;
	if (!cases)
		return rt_fail(err, RT_ERR_INPUT, "no fitness cases");
	if (cases->fitness < GP_FIT_MSE || cases->fitness > GP_FIT_BOOL)
		return rt_fail(err, RT_ERR_INPUT, "unknown fitness kind %d", cases->fitness);
	if (cases->fitness == GP_FIT_BOOL ? (cases->nwords == 0 || !cases->target ||
					     (cases->ninputs > 0 && !cases->bits))
					  : (cases->ncases == 0 || !cases->y || cases->stride < cases->ncases ||
					     (cases->ninputs > 0 && !cases->x)))
		return rt_fail(err, RT_ERR_INPUT, "GPU GP evaluator: no fitness cases or no data");
	if (!(g = rt_calloc(1, sizeof *g, err)))
		return RT_ERR_SYSTEM;
	if (cfg)
		g->cfg = *cfg;
	else
		gp_gpu_config_default(&g->cfg);
	if ((st = config_check(&g->cfg, err)) != RT_OK)
		goto fail;
	/* Scalars are used from here on; the data pointers are kept only for
	 * gp_eval_validate's presence checks and never read after upload. */
	g->cases = *cases;
	ops_used(cases, fs, g->use);
	g->units = cases->fitness == GP_FIT_BOOL ? cases->nwords : cases->ncases;
	pass_elems = (size_t)g->cfg.threads * (size_t)(g->cfg.width * g->cfg.nvec);
	if (g->cfg.passes == 0) {
		g->passes = (uint32_t)((g->units + pass_elems - 1) / pass_elems);
		g->nchunks = 1;
	} else {
		g->passes = (uint32_t)g->cfg.passes;
		per_chunk = pass_elems * g->passes;
		if ((g->units + per_chunk - 1) / per_chunk > 65535)
			g->passes = (uint32_t)((g->units + 65535 * pass_elems - 1) / (65535 * pass_elems));
		per_chunk = pass_elems * g->passes;
		g->nchunks = (uint32_t)((g->units + per_chunk - 1) / per_chunk);
	}
	g->dstride = (size_t)g->nchunks * g->passes * pass_elems;
	if ((double)g->dstride * (cases->ninputs > 0 ? cases->ninputs : 1) >= 4294967295.0) {
		st = rt_fail(err, RT_ERR_INPUT, "GPU GP evaluator: %d inputs of %zu cases do not fit 32-bit "
			     "offsets", cases->ninputs, g->dstride);
		goto fail;
	}
	if ((st = gpu_open(err)) != RT_OK || (st = gpu_device_info(0, &g->info, err)) != RT_OK)
		goto fail;
	gpu_arch_name(&g->info, g->arch, sizeof g->arch);
	if ((st = gpu_context_open(0, &g->ctx, err)) != RT_OK ||
	    (st = gpu_stream_create(g->ctx, &g->stream, err)) != RT_OK)
		goto fail;
	for (int i = 0; i < 2; i++)
		if ((st = gpu_timer_create(g->ctx, &g->slot[i].timer, err)) != RT_OK ||
		    (st = gpu_timer_create(g->ctx, &g->slot[i].done, err)) != RT_OK)
			goto fail;
	if ((st = compile(g, g->cfg.stack ? g->cfg.stack : 8, err)) != RT_OK ||
	    (st = upload_cases(g, cases, err)) != RT_OK)
		goto fail;
	*out = g;
	return RT_OK;
fail:
	gp_gpu_close(g);
	return st;
}

/* Grows a pinned or device buffer (contents are not kept). */
static rt_status grow_host(gp_gpu *g, void **p, size_t *cap, size_t need, rt_error *err)
{
	if (need <= *cap)
		return RT_OK;
	need = need + need / 2;
	gpu_host_free(g->ctx, *p);
	*p = NULL;
	*cap = 0;
	rt_status st = gpu_host_alloc(g->ctx, need, p, err);
	if (st == RT_OK)
		*cap = need;
	return st;
}

static rt_status grow_dev(gp_gpu *g, gpu_ptr *p, size_t *cap, size_t need, rt_error *err)
{
	if (need <= *cap)
		return RT_OK;
	need = need + need / 2;
	gpu_free(g->ctx, *p);
	*p = 0;
	*cap = 0;
	rt_status st = gpu_alloc(g->ctx, need, p, err);
	if (st == RT_OK)
		*cap = need;
	return st;
}

typedef struct enc_size {
	size_t progs_b, code_b, consts_b;   /* byte offsets of the three parts */
	size_t total;
} enc_size;

/* The byte layout of pop's encoding (offsets already checked monotonic). */
static enc_size enc_layout(const gp_packed *pop)
{
	enc_size es;
	size_t np = (size_t)pop->nprogs;
	size_t code_units = np ? pop->offset[np] : 0;
	size_t nk = np && pop->form == GP_FORM_LGP ? pop->const_offset[np] : 0;
	es.progs_b = 0;
	es.code_b = (np * 16 + 255) / 256 * 256;
	if (pop->form == GP_FORM_LGP)
		es.consts_b = es.code_b + (code_units * 16 + 255) / 256 * 256;
	else
		es.consts_b = es.code_b + ((code_units + np) * 8 + 255) / 256 * 256;
	es.total = es.consts_b + nk * 4 + 16;
	return es;
}

/* Encodes program p (already validated) at code unit ci and constant ki;
 * raises *big to the shared memory it needs and *deep to its stack slots. */
static void encode_one(const gp_packed *pop, int p, int is_bool, uint32_t dstride, uint32_t *progs,
		       uint32_t *code, uint32_t *consts, uint32_t ci, uint32_t ki, uint32_t *big,
		       int *deep)
{
	uint32_t b = pop->offset[p], e = pop->offset[p + 1], n = e - b, k0 = ki, nk = 0;
	uint32_t bytes;
	progs[4 * p + 0] = ci;
	progs[4 * p + 1] = n;
	if (pop->form == GP_FORM_LGP) {
		uint32_t c0 = pop->const_offset[p];
		int sp = 0;
		nk = pop->const_offset[p + 1] - c0;
		for (uint32_t k = 0; k < nk; k++) {
			float v = pop->consts[c0 + k];
			uint32_t u;
			if (is_bool)
				u = v != 0.0f ? 0xffffffffu : 0u;
			else
				memcpy(&u, &v, 4);
			consts[ki++] = u;
		}
		for (uint32_t i = b; i < e; i++) {
			gp_insn in = pop->lgp[i];
			uint32_t arg[3] = { in.arg[0], in.arg[1], in.arg[2] };
			gpb_encode_insn(in.op, in.kinds, arg, dstride, &sp, deep, code + 4 * (size_t)ci);
			ci++;
		}
		bytes = n * 16;
	} else {
		int sp = 0;
		for (uint32_t i = b; i < e; i++) {
			gp_node nd = pop->rpn[i];
			uint32_t y;
			if (nd.op == GP_TERM_VAR) {
				y = (uint32_t)nd.var * dstride;
				sp++;
			} else if (nd.op == GP_TERM_CONST) {
				if (is_bool)
					y = nd.value != 0.0f ? 0xffffffffu : 0u;
				else
					memcpy(&y, &nd.value, 4);
				sp++;
			} else {
				y = 0;
				sp -= op_rows[nd.op].arity - 1;
			}
			if (sp > *deep)
				*deep = sp;
			code[2 * ci + 0] = nd.op |
				(nd.op < GP_OP_COUNT ? (uint32_t)op_rows[nd.op].arity << 8 : 0u);
			code[2 * ci + 1] = y;
			ci++;
		}
		if (ci & 1) {   /* keep every program 16-byte aligned */
			code[2 * ci + 0] = code[2 * ci + 1] = 0;
			ci++;
		}
		bytes = (n + 1) / 2 * 16;
	}
	progs[4 * p + 2] = k0;
	progs[4 * p + 3] = nk;
	bytes += nk * 4;
	if (bytes > *big)
		*big = bytes;
}

/* Checks that pop has the arrays it claims and that its code and constant
 * offsets never decrease (so that every program's place in the encoding is
 * inside the buffer whatever the other programs hold); fills cstart[p], the
 * code unit where program p starts (RPN programs are padded to even length). */
static int enc_shape_ok(const gp_packed *pop, uint32_t *cstart)
{
	int np = pop->nprogs;
	if (np < 0 || (np > 0 && !pop->offset) || (pop->form != GP_FORM_RPN && pop->form != GP_FORM_LGP))
		return 0;
	if (np > 0 && pop->form == GP_FORM_LGP && !pop->const_offset)
		return 0;
	uint32_t pad = 0;
	for (int p = 0; p < np; p++) {
		uint32_t b = pop->offset[p], e = pop->offset[p + 1];
		if (e < b)
			return 0;
		if (pop->form == GP_FORM_LGP && pop->const_offset[p + 1] < pop->const_offset[p])
			return 0;
		cstart[p] = b - pop->offset[0] + pad;
		pad += pop->form == GP_FORM_RPN ? (e - b) & 1u : 0u;
	}
	return 1;
}

/* One parallel encoding: each chunk of programs is validated (by
 * gp_eval_validate on a view of the chunk: the one definition of a valid
 * program) and then encoded at its own place, so the bytes do not depend on
 * the chunking or on the number of threads. */
typedef struct enc_job {
	const gp_packed *pop;
	const gp_cases *cases;
	const uint32_t *cstart;
	uint32_t *progs, *code, *consts;
	uint32_t dstride;
	atomic_int bad;                     /* a chunk failed validation */
	uint32_t big[RT_MAX_THREADS];       /* per thread: most shared memory */
	int deep[RT_MAX_THREADS];           /* per thread: most stack slots */
} enc_job;

static void enc_range(void *ctx, long begin, long end, int thread)
{
	enc_job *job = ctx;
	const gp_packed *pop = job->pop;
	gp_packed view = *pop;
	rt_error err;
	view.nprogs = (int)(end - begin);
	view.offset = pop->offset + begin;
	view.const_offset = pop->const_offset ? pop->const_offset + begin : NULL;
	if (gp_eval_validate(&view, job->cases, &err) != RT_OK) {
		atomic_store(&job->bad, 1);
		return;
	}
	int is_bool = job->cases->fitness == GP_FIT_BOOL;
	uint32_t k00 = pop->form == GP_FORM_LGP ? pop->const_offset[0] : 0;
	for (long p = begin; p < end; p++) {
		uint32_t ki = pop->form == GP_FORM_LGP ? pop->const_offset[p] - k00 : 0;
		encode_one(pop, (int)p, is_bool, job->dstride, job->progs, job->code, job->consts,
			   job->cstart[p], ki, &job->big[thread], &job->deep[thread]);
	}
}

/* Programs per chunk of the parallel encoding. */
#define ENC_GRAIN 8

/* Validates pop against cases and encodes it into host (es.total bytes, see
 * the layout in gpg_slot); *smem: the most shared memory a program needs;
 * *need: the deepest stack slot count. cstart: room for nprogs entries. */
static rt_status encode(const gp_packed *pop, const gp_cases *cases, uint32_t dstride, void *host,
			const enc_size *es, uint32_t *cstart, uint32_t *smem, int *need, rt_error *err)
{
	enc_job *job = rt_malloc(sizeof *job, err);
	if (!job)
		return err->status;
	job->pop = pop;
	job->cases = cases;
	job->cstart = cstart;
	job->progs = (uint32_t *)((char *)host + es->progs_b);
	job->code = (uint32_t *)((char *)host + es->code_b);
	job->consts = (uint32_t *)((char *)host + es->consts_b);
	job->dstride = dstride;
	atomic_init(&job->bad, 0);
	int nt = cpu_threads();
	for (int t = 0; t < nt; t++) {
		job->big[t] = 0;
		job->deep[t] = 1;
	}
	rt_status st = RT_OK;
	if (pop->nprogs >= 2 * ENC_GRAIN)
		st = cpu_parallel_for(pop->nprogs, ENC_GRAIN, enc_range, job, err);
	else
		enc_range(job, 0, pop->nprogs, 0);
	if (st == RT_OK && atomic_load(&job->bad)) {
		/* Again on the whole population, for the message with the right program. */
		st = gp_eval_validate(pop, cases, err);
		if (st == RT_OK)
			st = rt_fail(err, RT_ERR_INTERNAL, "GPU GP encoding: a chunk failed validation");
	}
	*smem = 0;
	*need = 1;
	for (int t = 0; t < nt; t++) {
		if (job->big[t] > *smem)
			*smem = job->big[t];
		if (job->deep[t] > *need)
			*need = job->deep[t];
	}
	free(job);
	return st;
}

size_t gp_gpu_encoded_bytes(const gp_packed *pop)
{
	if (!pop || !(pop->nprogs == 0 || (pop->offset && (pop->form != GP_FORM_LGP || pop->const_offset))))
		return 0;
	return enc_layout(pop).total;
}

rt_status gp_gpu_encode(const gp_packed *pop, const gp_cases *cases, size_t dstride, void *host,
			size_t cap, uint32_t *smem, int *need, rt_error *err)
{
	if (!pop || !cases)
		return rt_fail(err, RT_ERR_INPUT, "GPU GP encoding: no population or cases");
	uint32_t *cstart = rt_malloc((size_t)(pop->nprogs > 0 ? pop->nprogs : 1) * sizeof *cstart, err);
	if (!cstart)
		return err->status;
	rt_status st;
	if (!enc_shape_ok(pop, cstart)) {
		st = gp_eval_validate(pop, cases, err);
		if (st == RT_OK)
			st = rt_fail(err, RT_ERR_INPUT, "GPU GP encoding: malformed packed population");
	} else {
		enc_size es = enc_layout(pop);
		if (es.total > cap)
			st = rt_fail(err, RT_ERR_INPUT, "GPU GP encoding: needs %zu bytes, buffer has %zu",
				     es.total, cap);
		else
			st = encode(pop, cases, (uint32_t)dstride, host, &es, cstart, smem, need, err);
	}
	free(cstart);
	return st;
}

/* Compiles for the stack depth need asks (when deeper than the module's),
 * raises the shared memory limit to smem, and launches slot s's
 * evaluation of the encoded population at progs/code/consts (np programs)
 * and the download of its fitness; fitness lands in fit_dev (0: the
 * slot's own buffer) and in the slot's pinned copy. */
static rt_status launch_slot(gp_gpu *g, gpg_slot *s, gpu_ptr progs, gpu_ptr code, gpu_ptr consts,
			     size_t np, uint32_t smem, int need, gpu_ptr fit_dev, rt_error *err)
{
	rt_status st;
	/* Stack slots: LGP keeps the top in a register. */
	int stack = need;
	if (g->cfg.stack) {
		if (stack > g->cfg.stack)
			return rt_fail(err, RT_ERR_INPUT, "GPU GP evaluator: the population needs %d stack "
				       "slots, the variant was compiled for %d", stack, g->cfg.stack);
	} else if (stack > g->stack) {
		int d = 8;
		while (d < stack)
			d *= 2;
		if (d > GP_GPU_MAX_STACK)
			return rt_fail(err, RT_ERR_INPUT, "GPU GP evaluator: a program needs a stack of %d "
				       "(at most %d)", stack, GP_GPU_MAX_STACK);
		if ((st = compile(g, d, err)) != RT_OK)
			return st;
	}
	if (smem > (uint32_t)g->info.smem_per_block_optin)
		return rt_fail(err, RT_ERR_INPUT, "GPU GP evaluator: a program needs %u bytes of shared "
			       "memory, the device has %d per block", smem, g->info.smem_per_block_optin);
	if ((int)smem > g->smem_set) {
		if ((st = gpu_kernel_attrs(g->mod, "gpg_eval", (int)smem, -1, err)) != RT_OK)
			return st;
		g->smem_set = (int)smem;
	}
	size_t nsum = gp_scale_on(&g->cases) ? GP_LS_NM : 1;   /* values per chunk (gpg_eval) */
	if ((st = grow_dev(g, &s->partial, &s->pcap, np * g->nchunks * nsum * sizeof(double), err)) != RT_OK ||
	    (st = grow_dev(g, &s->fit, &s->fcap, np * sizeof(double), err)) != RT_OK)
		return st;
	if (s->hcap < np * sizeof(double)) {
		gpu_host_free(g->ctx, s->hfit);
		s->hfit = NULL;
		s->hcap = 0;
		if ((st = gpu_host_alloc(g->ctx, s->fcap, (void **)&s->hfit, err)) != RT_OK)
			return st;
		s->hcap = s->fcap;
	}
	gpu_ptr partial = s->partial, fit = fit_dev ? fit_dev : s->fit;
	uint32_t passes = g->passes, n = (uint32_t)g->units, last = g->cases.last_mask;
	uint32_t nprogs = (uint32_t)np, nchunks = g->nchunks;
	double ncases = (double)g->cases.ncases, syc = g->cases.syc, syy = g->cases.syy;
	double ymean = g->cases.ymean;
	void *a1[] = { &progs, &code, &consts, &g->dx, &g->dy, &partial, &passes, &n, &last, &ymean };
	void *a2[] = { &partial, &fit, &nprogs, &nchunks, &ncases, &syc, &syy };
	gpu_launch_cfg l1 = { .grid = { nprogs, nchunks, 1 }, .block = { (unsigned)g->cfg.threads, 1, 1 },
			      .smem_bytes = smem, .stream = g->stream };
	gpu_launch_cfg l2 = { .grid = { (nprogs + 127) / 128, 1, 1 }, .block = { 128, 1, 1 },
			      .smem_bytes = 0, .stream = g->stream };
	if ((st = gpu_timer_start(s->timer, g->stream, err)) != RT_OK ||
	    (st = gpu_launch(g->mod, "gpg_eval", &l1, a1, err)) != RT_OK ||
	    (st = gpu_launch(g->mod, "gpg_finish", &l2, a2, err)) != RT_OK ||
	    (st = gpu_timer_end(s->timer, g->stream, err)) != RT_OK ||
	    (st = gpu_timer_start(s->done, g->stream, err)) != RT_OK ||
	    (st = gpu_download_async(g->ctx, s->hfit, fit, np * sizeof(double), g->stream, err)) != RT_OK ||
	    (st = gpu_timer_end(s->done, g->stream, err)) != RT_OK)
		return st;
	return RT_OK;
}

rt_status gp_gpu_eval_start(gp_gpu *g, const gp_packed *pop, rt_error *err)
{
	gpg_slot *s;
	enc_size es;
	size_t np;
	uint32_t smem = 0;
	int need = 1;
	rt_status st;
	double t0 = rt_now();
	if (!g || !pop)
		return rt_fail(err, RT_ERR_INPUT, "GPU GP evaluator: no population");
	if (pop->form != g->cfg.form)
		return rt_fail(err, RT_ERR_INPUT, "GPU GP variant reads the %s form, population is %s",
			       g->cfg.form == GP_FORM_LGP ? "LGP" : "RPN",
			       pop->form == GP_FORM_LGP ? "LGP" : "RPN");
	if (g->inflight >= 2)
		return rt_fail(err, RT_ERR_INPUT, "GPU GP evaluator: two evaluations already in flight");
	np = pop->nprogs > 0 ? (size_t)pop->nprogs : 0;
	if (np * sizeof(uint32_t) > g->cstart_cap) {
		free(g->cstart);
		g->cstart_cap = 0;
		if (!(g->cstart = rt_malloc(np * sizeof(uint32_t), err)))
			return err->status;
		g->cstart_cap = np * sizeof(uint32_t);
	}
	if (!enc_shape_ok(pop, g->cstart)) {
		if ((st = gp_eval_validate(pop, &g->cases, err)) != RT_OK)
			return st;
		return rt_fail(err, RT_ERR_INPUT, "GPU GP evaluator: malformed packed population");
	}
	if (np == 0 && (st = gp_eval_validate(pop, &g->cases, err)) != RT_OK)
		return st;
	s = &g->slot[(g->head + g->inflight) % 2];
	es = enc_layout(pop);
	if ((st = grow_host(g, &s->host, &s->cap, es.total, err)) != RT_OK ||
	    (st = grow_dev(g, &s->dev, &s->dcap, es.total, err)) != RT_OK)
		return st;
	s->nprogs = pop->nprogs;
	s->nodes = gp_packed_total_nodes(pop);
	s->bytes = es.total;
	s->t0 = t0;
	if (np == 0) {
		s->encode_ms = 0.0;
		g->inflight++;
		return RT_OK;
	}
	if ((st = encode(pop, &g->cases, (uint32_t)g->dstride, s->host, &es, g->cstart, &smem, &need,
			 err)) != RT_OK)
		return st;
	s->encode_ms = (rt_now() - t0) * 1e3;
	if ((st = gpu_upload_async(g->ctx, s->dev, s->host, es.total, g->stream, err)) != RT_OK ||
	    (st = launch_slot(g, s, s->dev, s->dev + es.code_b, s->dev + es.consts_b, np, smem, need, 0,
			      err)) != RT_OK)
		return st;
	g->inflight++;
	return RT_OK;
}

rt_status gp_gpu_eval_encoded(gp_gpu *g, const gp_gpu_encoded *e, double *fitness,
			      gp_gpu_stats *stats, rt_error *err)
{
	rt_status st;
	if (!g || !e || e->nprogs < 0)
		return rt_fail(err, RT_ERR_INPUT, "GPU GP evaluator: no encoded population");
	if (g->inflight)
		return rt_fail(err, RT_ERR_INPUT, "GPU GP evaluator: finish the evaluations in flight first");
	if (g->cfg.form != GP_FORM_LGP)
		return rt_fail(err, RT_ERR_INPUT, "GPU GP evaluator: populations bred on the GPU are "
			       "encoded for LGP interpreters, not RPN ones");
	gpg_slot *s = &g->slot[g->head];
	s->nprogs = e->nprogs;
	s->nodes = e->nodes;
	s->bytes = 0;
	s->t0 = rt_now();
	s->encode_ms = 0.0;
	if (e->nprogs > 0 && (st = launch_slot(g, s, e->progs, e->code, e->consts, (size_t)e->nprogs,
					       e->smem, e->need, e->fitness, err)) != RT_OK)
		return st;
	g->inflight++;
	return gp_gpu_eval_finish(g, fitness, stats, err);
}

gpu_context *gp_gpu_context(gp_gpu *g) { return g->ctx; }
gpu_stream *gp_gpu_stream(gp_gpu *g) { return g->stream; }
const char *gp_gpu_arch(const gp_gpu *g) { return g->arch; }
size_t gp_gpu_dstride(const gp_gpu *g) { return g->dstride; }
int gp_gpu_stack(const gp_gpu *g) { return g->cfg.stack ? g->cfg.stack : g->stack; }

/* Fitness cases one program's evaluation covers (the GPop/s factor). */
static double cases_per_eval(const gp_cases *c)
{
	if (c->fitness == GP_FIT_BOOL)
		return (double)(c->ncases ? c->ncases : c->nwords * 32);
	return (double)c->ncases;
}

rt_status gp_gpu_eval_finish(gp_gpu *g, double *fitness, gp_gpu_stats *stats, rt_error *err)
{
	gpg_slot *s;
	double ms = 0.0;
	rt_status st = RT_OK;
	if (!g || g->inflight == 0)
		return rt_fail(err, RT_ERR_INPUT, "GPU GP evaluator: no evaluation in flight");
	s = &g->slot[g->head];
	g->head = (g->head + 1) % 2;
	g->inflight--;
	if (s->nprogs > 0) {
		/* Waits for this slot's download only (the other slot may still run). */
		double dl_ms;
		if ((st = gpu_timer_elapsed(s->done, &dl_ms, err)) != RT_OK ||
		    (st = gpu_timer_elapsed(s->timer, &ms, err)) != RT_OK)
			return st;
		memcpy(fitness, s->hfit, (size_t)s->nprogs * sizeof(double));
	}
	if (stats) {
		memset(stats, 0, sizeof *stats);
		stats->kernel_ms = ms;
		stats->upload_ms = s->encode_ms;
		stats->total_ms = (rt_now() - s->t0) * 1e3;
		stats->nodes = s->nodes;
		stats->bytes = s->bytes;
		stats->registers = g->registers;
		stats->stack = g->stack;
		stats->gpops = ms > 0.0 ? (double)s->nodes * cases_per_eval(&g->cases) / (ms * 1e-3)
					: 0.0;
	}
	return st;
}

rt_status gp_gpu_eval(gp_gpu *g, const gp_packed *pop, double *fitness, gp_gpu_stats *st,
		      rt_error *err)
{
	rt_status s;
	if (g && g->inflight)
		return rt_fail(err, RT_ERR_INPUT, "GPU GP evaluator: finish the evaluations in flight first");
	if ((s = gp_gpu_eval_start(g, pop, err)) != RT_OK)
		return s;
	return gp_gpu_eval_finish(g, fitness, st, err);
}

/* ---- check and benchmark ------------------------------------------------------ */

/* Relative difference of two fitness values (both infinite: 0). */
static double rel_diff(double a, double b)
{
	if (a == b)
		return 0.0;
	if (isinf(a) || isinf(b) || isnan(a) || isnan(b))
		return INFINITY;
	return fabs(a - b) / fmax(fabs(b), 1e-30);
}

/* The check's difference of two fitness values: relative, and with linear
 * scaling relative to at least var(y) (a near-perfect fit's scaled MSE is
 * known to about 1e-16 var(y) only: gp_fitness.h). */
static double fit_diff(const gp_cases *c, double a, double b)
{
	if (!gp_scale_on(c) || isinf(a) || isinf(b) || isnan(a) || isnan(b) || c->ncases == 0)
		return rel_diff(a, b);
	return fabs(a - b) / fmax(fmax(fabs(b), c->syy / (double)c->ncases), 1e-30);
}

rt_status gp_gpu_check(const gp_cases *cases, const gp_fset *fs, const gp_breed *br, int nprogs,
		       uint64_t seed, const char *const *variants, FILE *out, rt_error *err)
{
	gp_tree *trees = NULL;
	gp_packed rpn, lgp;
	double *ref = NULL, *fit = NULL;
	gp_breed b = br ? *br : gp_breed_defaults();
	rt_status st;
	int bad = 0, ntrees = 0;
	char first_bad[96] = "";
	gp_packed_init(&rpn);
	gp_packed_init(&lgp);
	if (!cases || !fs || nprogs < 1)
		return rt_fail(err, RT_ERR_INPUT, "GPU GP check: needs cases, a function set and programs");
	if (!variants)
		variants = gp_gpu_variants;
	if (!(trees = rt_calloc((size_t)nprogs, sizeof *trees, err)) ||
	    !(ref = rt_malloc((size_t)nprogs * sizeof *ref, err)) ||
	    !(fit = rt_malloc((size_t)nprogs * sizeof *fit, err))) {
		st = RT_ERR_SYSTEM;
		goto out;
	}
	ntrees = nprogs;
	if ((st = gp_init_population(trees, nprogs, fs, &b, seed, err)) != RT_OK ||
	    (st = gp_pack_rpn(&rpn, trees, nprogs, err)) != RT_OK ||
	    (st = gp_pack_lgp(&lgp, trees, nprogs, err)) != RT_OK ||
	    (st = gp_eval_cpu(&lgp, cases, GP_EVAL_LGP2D, ref, err)) != RT_OK)
		goto out;
	fprintf(out, "| variant | programs | max rel diff | differing | verdict |\n");
	fprintf(out, "|---|---:|---:|---:|---|\n");
	for (int v = 0; variants[v]; v++) {
		gp_gpu_config c;
		gp_gpu *g = NULL;
		double worst = 0.0;
		int differ = 0, ok;
		if ((st = gp_gpu_variant_parse(variants[v], &c, err)) != RT_OK ||
		    (st = gp_gpu_open(cases, fs, &c, &g, err)) != RT_OK)
			goto out;
		st = gp_gpu_eval(g, c.form == GP_FORM_LGP ? &lgp : &rpn, fit, NULL, err);
		gp_gpu_close(g);
		if (st != RT_OK) {
			rt_error_prefix(err, "variant %s", variants[v]);
			goto out;
		}
		for (int p = 0; p < nprogs; p++) {
			double d = fit_diff(cases, fit[p], ref[p]);
			if (cases->fitness != GP_FIT_MSE ? d != 0.0 : !(d <= GP_GPU_MSE_TOL))
				differ++;
			if (!(d <= worst))
				worst = d;
		}
		ok = differ == 0;
		if (!ok && !first_bad[0])
			snprintf(first_bad, sizeof first_bad, "%s", variants[v]);
		bad += !ok;
		fprintf(out, "| %s | %d | %.3g | %d | %s |\n", variants[v], nprogs, worst, differ,
			ok ? "ok" : "DIFFERS");
		fflush(out);
	}
	if (bad)
		st = rt_fail(err, RT_ERR_INTERNAL, "GPU GP check: %d variant(s) disagree with the CPU "
			     "(first: %s; tolerance: exact counts, MSE relative %g)", bad, first_bad,
			     GP_GPU_MSE_TOL);
out:
	for (int i = 0; i < ntrees; i++)
		gp_tree_free(&trees[i]);
	free(trees);
	free(ref);
	free(fit);
	gp_packed_free(&rpn);
	gp_packed_free(&lgp);
	return st;
}

rt_status gp_gpu_bench(const gp_cases *cases, const gp_fset *fs, const gp_packed *rpn,
		       const gp_packed *lgp, const gp_gpu_bench_opts *o, FILE *out, rt_error *err)
{
	const char *const *variants = o && o->variants ? o->variants : gp_gpu_variants;
	int repeats = o && o->repeats > 0 ? o->repeats : 5;
	const gp_packed *any = lgp ? lgp : rpn;
	double *fit;
	rt_status st = RT_OK;
	if (!cases || !any)
		return rt_fail(err, RT_ERR_INPUT, "GPU GP benchmark: needs cases and a population");
	if (!(fit = rt_malloc((size_t)(any->nprogs > 0 ? any->nprogs : 1) * sizeof *fit, err)))
		return RT_ERR_SYSTEM;
	fprintf(out, "| variant | threads | regs | stack | ms | GPop/s |\n");
	fprintf(out, "|---|---:|---:|---:|---:|---:|\n");
	for (int v = 0; variants[v] && st == RT_OK; v++) {
		gp_gpu_config c;
		int one[2] = { 0, 0 };
		const int *tl;
		if ((st = gp_gpu_variant_parse(variants[v], &c, err)) != RT_OK)
			break;
		const gp_packed *pop = c.form == GP_FORM_LGP ? lgp : rpn;
		if (!pop)
			continue;
		one[0] = c.threads;
		tl = o && o->threads ? o->threads : one;
		for (int t = 0; tl[t] > 0 && st == RT_OK; t++) {
			gp_gpu *g = NULL;
			gp_gpu_stats s;
			double best = INFINITY;
			char name[96];
			c.threads = tl[t];
			gp_gpu_variant_name(&c, name, sizeof name);
			if ((st = gp_gpu_open(cases, fs, &c, &g, err)) != RT_OK) {
				rt_error_prefix(err, "variant %s", name);
				break;
			}
			st = gp_gpu_eval(g, pop, fit, &s, err);   /* warm-up (and stack compile) */
			for (int r = 0; r < repeats && st == RT_OK; r++) {
				st = gp_gpu_eval(g, pop, fit, &s, err);
				if (st == RT_OK && s.kernel_ms < best)
					best = s.kernel_ms;
			}
			if (st == RT_OK)
				fprintf(out, "| %s | %d | %d | %d | %.3f | %.4g |\n", variants[v], tl[t],
					s.registers, s.stack, best,
					(double)s.nodes * cases_per_eval(cases) / (best * 1e-3));
			else
				rt_error_prefix(err, "variant %s", name);
			fflush(out);
			gp_gpu_close(g);
		}
	}
	free(fit);
	return st;
}
