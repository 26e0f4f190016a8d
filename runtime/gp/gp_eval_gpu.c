/* gp_eval_gpu.c: one exported GP program on the GPU (gp_export.h): renders
 * templates/gp/gp_export.cu around the program's C expression, compiles it
 * with NVRTC (through the kernel cache), and evaluates column-major cases in
 * batches that fit device memory. `evoforge eval --backend gpu` uses it; the
 * exported NAME-eval runs the same kernel, compiled at export time.
 *
 * Why a fixed-function kernel and not gp_gpu.c's interpreter: one program
 * over many rows needs no population machinery, and compiled as one
 * expression it is the very text NAME.c holds, so CPU and GPU compute the
 * same operations in the same order (with --fmad=false: the same bits). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gp_export.h"
#include "gpu.h"
#include "nvrtc.h"

const char *const gp_xkernel_options[] = { "--fmad=false", "-Xptxas", "-v" };
const int gp_xkernel_noptions = 3;

#define GPX_THREADS 256          /* threads per block */
#define GPX_BATCH_MAX (1u << 24) /* cases per batch at most */

rt_status gp_xkernel_render(const gp_xprogram *p, gen_source *src, rt_error *err)
{
	char name[160];
	rt_status st;
	if (p->ninputs < 1 || !p->expr || !p->expr[0])
		return rt_fail(err, RT_ERR_INPUT, "gp export kernel: expected a program with inputs");
	snprintf(name, sizeof name, "%s.cu", p->ident);
	gen_begin(src, name, "one GP program as a fixed-function GPU kernel (gpx_eval)");
	gen_define_str(src, "GPX_T", p->boolean ? "uint32_t" : "float");
	gen_define_int(src, "GPX_NINPUTS", p->ninputs);
	gen_line(src, "#define GPX_PROGRAM(x) (%s)\n", p->expr);
	if ((st = gen_template(src, "gp/gp_export.cu", err)) != RT_OK)
		gen_free(src);
	else if (src->text.failed)
		st = (gen_free(src), rt_fail(err, RT_ERR_SYSTEM, "out of memory rendering %s", name));
	return st;
}

/* A compiled kernel on an open context. */
typedef struct gpx {
	gpu_context *ctx;
	gpu_module *mod;
	gpu_info info;
} gpx;

static rt_status gpx_open(const gp_xprogram *p, gpx *g, rt_error *err)
{
	gen_source src;
	nvrtc_output out = { 0 };
	char arch[16];
	int count = 0;
	rt_status st;
	memset(g, 0, sizeof *g);
	if ((st = gpu_open(err)) || (st = gpu_device_count(&count, err)))
		return st;
	if (count < 1)
		return rt_fail(err, RT_ERR_NOGPU, "the CUDA driver found no GPU");
	if ((st = gpu_device_info(0, &g->info, err)) || (st = gp_xkernel_render(p, &src, err)))
		return st;
	gpu_arch_name(&g->info, arch, sizeof arch);
	st = nvrtc_compile(src.name, src.text.data, arch, gp_xkernel_options, gp_xkernel_noptions,
			   &out, err);
	if (st == RT_OK)
		st = gpu_context_open(0, &g->ctx, err);
	if (st == RT_OK)
		st = gpu_module_load(g->ctx, out.cubin, out.size, &g->mod, err);
	nvrtc_output_free(&out);
	gen_free(&src);
	return st;
}

static void gpx_close(gpx *g)
{
	gpu_module_unload(g->mod);
	if (g->ctx)
		gpu_context_close(g->ctx);
}

/* Cases per batch: `batch`, else what a quarter of the free memory holds. */
static rt_status batch_size(gpx *g, int ninputs, size_t n, size_t batch, size_t *m, rt_error *err)
{
	size_t free_bytes = 0, total = 0;
	rt_status st = RT_OK;
	if (!batch) {
		if ((st = gpu_mem_info(g->ctx, &free_bytes, &total, err)) != RT_OK)
			return st;
		batch = free_bytes / 4 / (((size_t)ninputs + 1) * sizeof(float));
		if (batch > GPX_BATCH_MAX)
			batch = GPX_BATCH_MAX;
	}
	*m = batch < n ? batch : n;
	if (*m < 1)
		*m = 1;
	return st;
}

/* Uploads cases [i0, i0 + m) column by column, runs the kernel, downloads. */
static rt_status gpx_batch(gpx *g, const gp_xprogram *p, const char *x, size_t stride, size_t i0,
			   size_t m, gpu_ptr dx, gpu_ptr dy, char *out, rt_error *err)
{
	unsigned long long row = 1, col = m, nn = m;
	unsigned blocks = (unsigned)((m + GPX_THREADS - 1) / GPX_THREADS);
	unsigned most = (unsigned)g->info.sm_count * 16u;
	gpu_launch_cfg cfg = { {0, 1, 1}, {GPX_THREADS, 1, 1}, 0, NULL };
	void *args[] = { &dx, &row, &col, &nn, &dy };
	rt_status st = RT_OK;
	cfg.grid[0] = most > 0 && blocks > most ? most : blocks;
	for (int k = 0; k < p->ninputs && st == RT_OK; k++)
		st = gpu_upload(g->ctx, dx + (gpu_ptr)k * m * 4, x + ((size_t)k * stride + i0) * 4,
				m * 4, err);
	if (st == RT_OK)
		st = gpu_launch(g->mod, "gpx_eval", &cfg, args, err);
	if (st == RT_OK)
		st = gpu_sync(g->ctx, err);
	if (st == RT_OK)
		st = gpu_download(g->ctx, out + i0 * 4, dy, m * 4, err);
	return st;
}

rt_status gp_xkernel_eval_gpu(const gp_xprogram *p, const void *x, size_t stride, size_t n,
			      size_t batch, void *out, rt_error *err)
{
	gpx g;
	gpu_ptr dx = 0, dy = 0;
	size_t m = 0;
	rt_status st = gpx_open(p, &g, err);
	if (st == RT_OK)
		st = batch_size(&g, p->ninputs, n, batch, &m, err);
	if (st == RT_OK)
		st = gpu_alloc_upload(g.ctx, NULL, m * (size_t)p->ninputs * 4, &dx, err);
	if (st == RT_OK)
		st = gpu_alloc_upload(g.ctx, NULL, m * 4, &dy, err);
	for (size_t i0 = 0; i0 < n && st == RT_OK; i0 += m)
		st = gpx_batch(&g, p, x, stride, i0, n - i0 < m ? n - i0 : m, dx, dy, out, err);
	if (dx)
		gpu_free(g.ctx, dx);
	if (dy)
		gpu_free(g.ctx, dy);
	gpx_close(&g);
	return st;
}
