/* smoke.c: the smoke test of the GPU path (see smoke.h): one small kernel
 * through the generator, NVRTC, the cache, the driver, and back, checked
 * against the CPU. The formula is defined once, in templates/smoke.cu, which
 * is included here as C (its kernel is behind __CUDACC__). */
#include <math.h>
#include <stdlib.h>

#include "gpu.h"
#include "log.h"
#include "nvrtc.h"
#include "smoke.h"

#include "smoke.cu"

#define SMOKE_BLOCK 256

float smoke_input(int i)
{
	return (float)(i % 8001 - 4000) / 1000.0f;
}

rt_status smoke_source(gen_source *src, rt_error *err)
{
	gen_begin(src, "smoke.cu", "the smoke test kernel (evo_smoke)");
	gen_define_int(src, "SMOKE_STREAM", SMOKE_STREAM);
	rt_status st = gen_template(src, "smoke.cu", err);
	if (st != RT_OK)
		gen_free(src);
	return st;
}

rt_status smoke_run_cpu(int n, uint64_t seed, float *y, double *ms, rt_error *err)
{
	if (n <= 0)
		return rt_fail(err, RT_ERR_INPUT, "smoke test: n must be positive, got %d", n);
	double t0 = rt_now();
	for (int i = 0; i < n; i++)
		y[i] = smoke_value(smoke_input(i), seed, (uint32_t)i);
	if (ms)
		*ms = (rt_now() - t0) * 1e3;
	return RT_OK;
}

rt_status smoke_run_gpu(int n, uint64_t seed, double *max_abs_err, double *ms, rt_error *err)
{
	gpu_info info;
	gen_source src;
	nvrtc_output cubin = { 0 };
	gpu_context *ctx = NULL;
	gpu_module *mod = NULL;
	gpu_timer *timer = NULL;
	gpu_ptr dx = 0, dy = 0;
	float *x = NULL, *y = NULL, *ref = NULL;
	char arch[16];
	double worst = 0.0, kernel_ms = 0.0;
	int worst_i = 0, have_src = 0;
	rt_status st;
	if (max_abs_err)
		*max_abs_err = 0.0;
	if (ms)
		*ms = 0.0;
	if (n <= 0)
		return rt_fail(err, RT_ERR_INPUT, "smoke test: n must be positive, got %d", n);
	if ((st = gpu_open(err)) != RT_OK || (st = gpu_device_info(0, &info, err)) != RT_OK)
		return st;
	gpu_arch_name(&info, arch, sizeof arch);
	if ((st = smoke_source(&src, err)) != RT_OK)
		return st;
	have_src = 1;
	if ((st = nvrtc_compile(src.name, src.text.data, arch, NULL, 0, &cubin, err)) != RT_OK)
		goto out;

	size_t bytes = (size_t)n * sizeof(float);
	if (!(x = rt_malloc(bytes, err)) || !(y = rt_malloc(bytes, err)) ||
	    !(ref = rt_malloc(bytes, err))) {
		st = RT_ERR_SYSTEM;
		goto out;
	}
	for (int i = 0; i < n; i++)
		x[i] = smoke_input(i);
	if ((st = smoke_run_cpu(n, seed, ref, NULL, err)) != RT_OK)
		goto out;

	if ((st = gpu_context_open(0, &ctx, err)) != RT_OK ||
	    (st = gpu_module_load(ctx, cubin.cubin, cubin.size, &mod, err)) != RT_OK ||
	    (st = gpu_alloc(ctx, bytes, &dx, err)) != RT_OK ||
	    (st = gpu_alloc(ctx, bytes, &dy, err)) != RT_OK ||
	    (st = gpu_upload(ctx, dx, x, bytes, err)) != RT_OK ||
	    (st = gpu_memset32(ctx, dy, 0x7fc00000u, (size_t)n, err)) != RT_OK ||   /* NaN */
	    (st = gpu_timer_create(ctx, &timer, err)) != RT_OK)
		goto out;
	unsigned long long seed_arg = seed;
	int n_arg = n;
	void *args[] = { &dx, &dy, &n_arg, &seed_arg };
	gpu_launch_cfg cfg = {
		.grid = { (unsigned)((n + SMOKE_BLOCK - 1) / SMOKE_BLOCK), 1, 1 },
		.block = { SMOKE_BLOCK, 1, 1 },
	};
	if ((st = gpu_timer_start(timer, NULL, err)) != RT_OK ||
	    (st = gpu_launch(mod, SMOKE_KERNEL, &cfg, args, err)) != RT_OK ||
	    (st = gpu_timer_stop(timer, NULL, &kernel_ms, err)) != RT_OK ||
	    (st = gpu_download(ctx, y, dy, bytes, err)) != RT_OK)
		goto out;

	for (int i = 0; i < n; i++) {
		double d = fabs((double)y[i] - (double)ref[i]);
		if (!(d <= worst)) {   /* NaN counts as the worst */
			worst = isnan(d) ? INFINITY : d;
			worst_i = i;
		}
	}
	if (max_abs_err)
		*max_abs_err = worst;
	if (ms)
		*ms = kernel_ms;
	if (!(worst <= SMOKE_TOLERANCE))
		st = rt_fail(err, RT_ERR_INTERNAL,
			     "smoke test on %s (%s): GPU and CPU differ by %g at element %d "
			     "(x %.9g: GPU %.9g, CPU %.9g), tolerance %g", info.name, arch, worst,
			     worst_i, (double)x[worst_i], (double)y[worst_i], (double)ref[worst_i],
			     SMOKE_TOLERANCE);
out:
	gpu_timer_destroy(timer);
	gpu_free(ctx, dx);
	gpu_free(ctx, dy);
	gpu_module_unload(mod);
	gpu_context_close(ctx);
	nvrtc_output_free(&cubin);
	if (have_src)
		gen_free(&src);
	free(x);
	free(y);
	free(ref);
	return st;
}
