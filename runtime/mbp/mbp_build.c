/* mbp_build.c: kind `mbp`'s kernel list for `evoforge build`
 * (rt_kind.kernels). A GPU run compiles one module (mbp_gpu.c's
 * open_module): mbp_gpu_source of the job with mbp_gpu_nvrtc_options; its
 * source depends on the network's shape, the mode, the chunk, the block
 * size (from the training sets' sizes and the network count) and whether
 * inputs are staged, never on the device or the seed. This lists it from
 * the same job and the same generator, so the two cannot differ
 * (tests/test_build_cover.c runs the GPU path against this list). */
#include <string.h>

#include "mbp_impl.h"

rt_status mbp_kernels(rt_spec *spec, const rt_options *opt, const gpu_info *info,
		      rt_kernel_emit emit, void *ctx, rt_error *err)
{
	mbp_job job;
	gen_source cu;
	int nopt;
	const char *const *opts = mbp_gpu_nvrtc_options(&nopt);
	rt_status st;
	(void)info;
	memset(&cu, 0, sizeof cu);
	if ((st = mbp_job_from_spec(&job, spec, opt, err)) == RT_OK &&
	    (st = mbp_gpu_source(&job, &cu, err)) == RT_OK)
		st = emit(ctx, cu.name, cu.text.data, opts, nopt, err);
	gen_free(&cu);
	mbp_job_free(&job);
	return st;
}
