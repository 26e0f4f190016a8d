/* backend.c: choosing the CPU or GPU backend for a job. */
#include <stdio.h>
#include <string.h>

#include "backend.h"
#include "log.h"

static const char *const backend_names[] = {"auto", "cpu", "gpu"};

rt_status rt_backend_parse(const char *s, rt_backend *out, rt_error *err)
{
	for (int i = 0; i < 3; i++)
		if (!strcmp(s, backend_names[i]))
			return (*out = (rt_backend)i, RT_OK);
	return rt_fail(err, RT_ERR_INPUT, "--backend: expected auto, cpu or gpu, got '%s'", s);
}

const char *rt_backend_name(rt_backend b)
{
	return (unsigned)b < 3 ? backend_names[b] : "?";
}

/* Checks that a driver and at least one device are there. */
static rt_status backend_probe_gpu(gpu_info *info, rt_error *err)
{
	int count = 0;
	gpu_info local;
	rt_status st = gpu_open(err);
	if (st != RT_OK)
		return st;
	st = gpu_device_count(&count, err);
	if (st != RT_OK)
		return st;
	if (count < 1)
		return rt_fail(err, RT_ERR_NOGPU, "the CUDA driver found no GPU");
	return gpu_device_info(0, info ? info : &local, err);
}

rt_status rt_backend_select(rt_backend requested, rt_backend *chosen, gpu_info *info,
			    rt_error *err)
{
	static int told;
	rt_error why;
	rt_status st;
	if (requested == RT_BACKEND_CPU)
		return (*chosen = RT_BACKEND_CPU, RT_OK);
	st = backend_probe_gpu(info, requested == RT_BACKEND_GPU ? err : &why);
	if (st == RT_OK)
		return (*chosen = RT_BACKEND_GPU, RT_OK);
	if (requested == RT_BACKEND_GPU) {
		rt_error_prefix(err, "--backend gpu");
		return st;
	}
	if (!told) {
		rt_warn("running on the CPU: %s", why.msg);
		told = 1;
	}
	*chosen = RT_BACKEND_CPU;
	return RT_OK;
}
