/* fakecuda.c: libfakecuda.so, a stand-in CUDA driver for tests on machines
 * without a GPU (EVOFORGE_LIBCUDA=.../libfakecuda.so). It reports one
 * H100-like device (sm_90, 132 SMs, 227 KiB of shared memory per block)
 * and lets a run open a context; then cuModuleLoadData ends the run: with
 * EVOFORGE_FAKE_DRIVER (code 999) for a placeholder cubin (one that starts
 * with "FAKECUBIN", as tests/test_build_cover.c registers them) and
 * CUDA_ERROR_INVALID_IMAGE for anything else. Every call after module
 * loading answers CUDA_ERROR_NOT_SUPPORTED. So a GPU path runs exactly up
 * to its compiles (nvrtc_compile) and stops at the first module load. */
#include <string.h>

#include <cuda.h>

#define FAKE_STOP ((CUresult)999)

static int ctx_token;

CUresult cuInit(unsigned int flags)
{
	(void)flags;
	return CUDA_SUCCESS;
}

CUresult cuDriverGetVersion(int *v)
{
	*v = 13000;
	return CUDA_SUCCESS;
}

CUresult cuGetErrorName(CUresult e, const char **s)
{
	*s = e == FAKE_STOP ? "EVOFORGE_FAKE_DRIVER"
	     : e == CUDA_ERROR_INVALID_IMAGE ? "CUDA_ERROR_INVALID_IMAGE"
	     : e == CUDA_ERROR_NOT_SUPPORTED ? "CUDA_ERROR_NOT_SUPPORTED" : "CUDA_ERROR_UNKNOWN";
	return CUDA_SUCCESS;
}

CUresult cuGetErrorString(CUresult e, const char **s)
{
	*s = e == FAKE_STOP ? "the fake driver (tests/fakecuda.c) stops at module loading"
	     : e == CUDA_ERROR_INVALID_IMAGE ? "not a placeholder cubin (did NVRTC compile it?)"
	     : "the fake driver does not do this";
	return CUDA_SUCCESS;
}

CUresult cuDeviceGetCount(int *n)
{
	*n = 1;
	return CUDA_SUCCESS;
}

CUresult cuDeviceGet(CUdevice *d, int ordinal)
{
	*d = ordinal;
	return ordinal == 0 ? CUDA_SUCCESS : CUDA_ERROR_INVALID_DEVICE;
}

CUresult cuDeviceGetName(char *name, int len, CUdevice d)
{
	(void)d;
	if (len > 0) {
		strncpy(name, "fake H100 (tests/fakecuda.c)", (size_t)len - 1);
		name[len - 1] = '\0';
	}
	return CUDA_SUCCESS;
}

CUresult cuDeviceGetAttribute(int *v, CUdevice_attribute a, CUdevice d)
{
	(void)d;
	switch (a) {
	case CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR: *v = 9; break;
	case CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR: *v = 0; break;
	case CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT: *v = 132; break;
	case CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK: *v = 1024; break;
	case CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR: *v = 2048; break;
	case CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_BLOCK: *v = 65536; break;
	case CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_MULTIPROCESSOR: *v = 65536; break;
	case CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK: *v = 48 * 1024; break;
	case CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN: *v = 227 * 1024; break;
	case CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_MULTIPROCESSOR: *v = 228 * 1024; break;
	case CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE: *v = 50 * 1024 * 1024; break;
	case CU_DEVICE_ATTRIBUTE_CLOCK_RATE: *v = 1980000; break;
	case CU_DEVICE_ATTRIBUTE_MEMORY_CLOCK_RATE: *v = 2619000; break;
	case CU_DEVICE_ATTRIBUTE_GLOBAL_MEMORY_BUS_WIDTH: *v = 5120; break;
	case CU_DEVICE_ATTRIBUTE_WARP_SIZE: *v = 32; break;
	default: *v = 0; break;
	}
	return CUDA_SUCCESS;
}

CUresult cuDeviceTotalMem(size_t *bytes, CUdevice d)
{
	(void)d;
	*bytes = (size_t)80 << 30;
	return CUDA_SUCCESS;
}

CUresult cuDevicePrimaryCtxRetain(CUcontext *c, CUdevice d)
{
	(void)d;
	*c = (CUcontext)&ctx_token;
	return CUDA_SUCCESS;
}

CUresult cuDevicePrimaryCtxRelease(CUdevice d)
{
	(void)d;
	return CUDA_SUCCESS;
}

CUresult cuCtxSetCurrent(CUcontext c)
{
	(void)c;
	return CUDA_SUCCESS;
}

CUresult cuCtxSynchronize(void)
{
	return CUDA_SUCCESS;
}

CUresult cuMemGetInfo(size_t *free_bytes, size_t *total)
{
	*free_bytes = *total = (size_t)80 << 30;
	return CUDA_SUCCESS;
}

CUresult cuModuleLoadData(CUmodule *m, const void *image)
{
	*m = NULL;
	return memcmp(image, "FAKECUBIN", 9) == 0 ? FAKE_STOP : CUDA_ERROR_INVALID_IMAGE;
}

/* Everything past module loading: never reached by the tests' paths. */
#define NOT_SUPPORTED return CUDA_ERROR_NOT_SUPPORTED

CUresult cuModuleUnload(CUmodule m) { (void)m; return CUDA_SUCCESS; }
CUresult cuModuleGetFunction(CUfunction *f, CUmodule m, const char *n) { (void)f; (void)m; (void)n; NOT_SUPPORTED; }
CUresult cuFuncSetAttribute(CUfunction f, CUfunction_attribute a, int v) { (void)f; (void)a; (void)v; NOT_SUPPORTED; }
CUresult cuFuncGetAttribute(int *v, CUfunction_attribute a, CUfunction f) { (void)v; (void)a; (void)f; NOT_SUPPORTED; }
CUresult cuOccupancyMaxActiveBlocksPerMultiprocessor(int *n, CUfunction f, int b, size_t s)
{ (void)n; (void)f; (void)b; (void)s; NOT_SUPPORTED; }
CUresult cuLaunchKernel(CUfunction f, unsigned gx, unsigned gy, unsigned gz, unsigned bx,
			unsigned by, unsigned bz, unsigned smem, CUstream s, void **args, void **extra)
{ (void)f; (void)gx; (void)gy; (void)gz; (void)bx; (void)by; (void)bz; (void)smem; (void)s; (void)args; (void)extra; NOT_SUPPORTED; }
CUresult cuLaunchCooperativeKernel(CUfunction f, unsigned gx, unsigned gy, unsigned gz,
				   unsigned bx, unsigned by, unsigned bz, unsigned smem,
				   CUstream s, void **args)
{ (void)f; (void)gx; (void)gy; (void)gz; (void)bx; (void)by; (void)bz; (void)smem; (void)s; (void)args; NOT_SUPPORTED; }
CUresult cuMemAlloc(CUdeviceptr *p, size_t n) { (void)p; (void)n; NOT_SUPPORTED; }
CUresult cuMemFree(CUdeviceptr p) { (void)p; return CUDA_SUCCESS; }
CUresult cuMemcpyHtoD(CUdeviceptr d, const void *h, size_t n) { (void)d; (void)h; (void)n; NOT_SUPPORTED; }
CUresult cuMemcpyDtoH(void *h, CUdeviceptr d, size_t n) { (void)h; (void)d; (void)n; NOT_SUPPORTED; }
CUresult cuMemcpyHtoDAsync(CUdeviceptr d, const void *h, size_t n, CUstream s) { (void)d; (void)h; (void)n; (void)s; NOT_SUPPORTED; }
CUresult cuMemcpyDtoHAsync(void *h, CUdeviceptr d, size_t n, CUstream s) { (void)h; (void)d; (void)n; (void)s; NOT_SUPPORTED; }
CUresult cuMemsetD32(CUdeviceptr d, unsigned v, size_t n) { (void)d; (void)v; (void)n; NOT_SUPPORTED; }
CUresult cuMemHostAlloc(void **p, size_t n, unsigned flags) { (void)p; (void)n; (void)flags; NOT_SUPPORTED; }
CUresult cuMemFreeHost(void *p) { (void)p; return CUDA_SUCCESS; }
CUresult cuStreamCreate(CUstream *s, unsigned flags) { (void)s; (void)flags; NOT_SUPPORTED; }
CUresult cuStreamDestroy(CUstream s) { (void)s; return CUDA_SUCCESS; }
CUresult cuStreamSynchronize(CUstream s) { (void)s; NOT_SUPPORTED; }
CUresult cuEventCreate(CUevent *e, unsigned flags) { (void)e; (void)flags; NOT_SUPPORTED; }
CUresult cuEventDestroy(CUevent e) { (void)e; return CUDA_SUCCESS; }
CUresult cuEventRecord(CUevent e, CUstream s) { (void)e; (void)s; NOT_SUPPORTED; }
CUresult cuEventSynchronize(CUevent e) { (void)e; NOT_SUPPORTED; }
CUresult cuEventElapsedTime(float *ms, CUevent a, CUevent b) { (void)ms; (void)a; (void)b; NOT_SUPPORTED; }
