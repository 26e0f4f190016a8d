/* aco_build.c: kind `aco`'s kernel list for `evoforge build`
 * (rt_kind.kernels). A GPU run compiles one module (aco_gpu.c's
 * open_module): aco_gpu_source of the job after aco_job_prepare and
 * aco_job_finish(job, 1), with aco_gpu_nvrtc_options. This lists it from
 * the same steps and the same generator, so the two cannot differ; the
 * source depends on the instance's size, the ants and the parameters, not
 * on the device or the run's seed (tests/test_build_cover.c runs the GPU
 * path against this list). */
#include <string.h>

#include "aco_impl.h"

rt_status aco_kernels(rt_spec *spec, const rt_options *opt, const gpu_info *info,
		      rt_kernel_emit emit, void *ctx, rt_error *err)
{
	aco_job job;
	gen_source cu;
	int nopt;
	const char *const *opts = aco_gpu_nvrtc_options(&nopt);
	rt_status st;
	(void)info;
	memset(&cu, 0, sizeof cu);
	if ((st = aco_job_from_spec(spec, opt, &job, err)) == RT_OK &&
	    (st = aco_job_prepare(&job, err)) == RT_OK) {
		aco_job_finish(&job, 1);   /* as aco_backend_open does for the GPU */
		if ((st = aco_gpu_source(&job, &cu, err)) == RT_OK)
			st = emit(ctx, cu.name, cu.text.data, opts, nopt, err);
	}
	gen_free(&cu);
	aco_job_free(&job);
	return st;
}
