/* test_gpu.h: whether a cmocka test program can run its device cases here
 * (a CUDA driver, a device, NVRTC); when not, one printed line says why
 * (the cases then skip). Include once per test program, after gpu.h and
 * nvrtc.h. */
#ifndef EVO_TEST_GPU_H
#define EVO_TEST_GPU_H

#include <stdio.h>

static int test_have_gpu(void)
{
	rt_error err = {0};
	int n = 0;
	if (gpu_open(&err) == RT_OK && gpu_device_count(&n, &err) == RT_OK && n < 1)
		snprintf(err.msg, sizeof err.msg, "no CUDA device");
	else if (n >= 1 && nvrtc_open(&err) == RT_OK)
		return 1;
	printf("SKIP: no GPU here (%s): the device cases need one\n", err.msg);
	return 0;
}

#endif
