/* gp_export_gpu.c: NAME-eval's GPU path (inlined into NAME-eval.c by
 * `evoforge export`, before gp_export_eval.c). The program's kernel
 * (templates/gp/gp_export.cu) was compiled at export time with NVRTC into
 * cubins for a list of archs, embedded in NAME-kernels.c; here libcuda.so.1
 * is opened with dlopen at run time (no link dependency, no CUDA toolkit
 * needed to build), the cubin of the device's arch loaded, and batches of
 * rows evaluated on GPU 0. With no driver, no device or no cubin for its
 * arch, evo_gpu_open says why and NAME-eval uses the CPU (NAME_batch).
 * Build with -DEVO_NO_GPU to leave all of this out (no <dlfcn.h>).
 *
 * Needs from the block before it: EVO_PROGRAM, EVO_NINPUTS, EVO_NCUBINS,
 * EVO_CUBIN_SM, EVO_CUBIN_DATA, EVO_CUBIN_SIZE. Every driver function used
 * is named once in EVO_CU_FUNCTIONS and looked up with dlsym. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#if !defined(EVO_NO_GPU)
#include <dlfcn.h>

typedef int evo_cu_result;
typedef int evo_cu_device;
typedef void *evo_cu_handle;          /* CUcontext, CUmodule, CUfunction, CUstream */
typedef unsigned long long evo_cu_ptr;  /* CUdeviceptr */

#define EVO_CU_FUNCTIONS(X) \
	X(cuInit, (unsigned)) \
	X(cuDeviceGetCount, (int *)) \
	X(cuDeviceGet, (evo_cu_device *, int)) \
	X(cuDeviceGetAttribute, (int *, int, evo_cu_device)) \
	X(cuDevicePrimaryCtxRetain, (evo_cu_handle *, evo_cu_device)) \
	X(cuCtxSetCurrent, (evo_cu_handle)) \
	X(cuModuleLoadData, (evo_cu_handle *, const void *)) \
	X(cuModuleGetFunction, (evo_cu_handle *, evo_cu_handle, const char *)) \
	X(cuMemAlloc_v2, (evo_cu_ptr *, size_t)) \
	X(cuMemFree_v2, (evo_cu_ptr)) \
	X(cuMemcpyHtoD_v2, (evo_cu_ptr, const void *, size_t)) \
	X(cuMemcpyDtoH_v2, (void *, evo_cu_ptr, size_t)) \
	X(cuLaunchKernel, (evo_cu_handle, unsigned, unsigned, unsigned, unsigned, unsigned, \
			   unsigned, unsigned, evo_cu_handle, void **, void **)) \
	X(cuCtxSynchronize, (void)) \
	X(cuGetErrorString, (evo_cu_result, const char **))

#define EVO_CU_PTR_(name, params) static evo_cu_result (*evo_##name) params;
EVO_CU_FUNCTIONS(EVO_CU_PTR_)
#undef EVO_CU_PTR_

#define EVO_CU_CC_MAJOR 75   /* CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR */
#define EVO_CU_CC_MINOR 76
#define EVO_CU_SM_COUNT 16   /* CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT */

static struct {
	void *lib;
	evo_cu_handle ctx, mod, fn;
	evo_cu_ptr dx, dy;
	long cap;            /* units (rows or words) dx and dy hold */
	int sm_count;
} evo_gpu;

/* The driver's words for a failed call, into why; returns 0. */
static int evo_cu_failed(evo_cu_result r, const char *call, char *why, size_t size)
{
	const char *text = NULL;
	if (evo_cuGetErrorString)
		evo_cuGetErrorString(r, &text);
	snprintf(why, size, "%s failed: %s (CUDA error %d)", call, text ? text : "unknown", r);
	return 0;
}

#define EVO_CU(call, why, size) \
	do { evo_cu_result r_ = evo_##call; if (r_ != 0) return evo_cu_failed(r_, #call, why, size); } \
	while (0)

/* Opens libcuda and looks every function up; 0 and why on failure. */
static int evo_cu_load(char *why, size_t size)
{
	const char *name = getenv("EVOFORGE_LIBCUDA");
	void *sym;
	if (!name || !name[0])
		name = "libcuda.so.1";
	if (!(evo_gpu.lib = dlopen(name, RTLD_NOW | RTLD_LOCAL))) {
		const char *e = dlerror();
		snprintf(why, size, "no CUDA driver (%s: %s); install the NVIDIA driver to use the GPU",
			 name, e ? e : "not found");
		return 0;
	}
#define EVO_CU_SYM_(name, params) \
	if (!(sym = dlsym(evo_gpu.lib, #name))) { \
		snprintf(why, size, "the CUDA driver lacks %s (too old?)", #name); \
		return 0; \
	} \
	memcpy(&evo_##name, &sym, sizeof sym);
	EVO_CU_FUNCTIONS(EVO_CU_SYM_)
#undef EVO_CU_SYM_
	return 1;
}

/* The embedded cubin for compute capability major.minor: the same major,
 * the highest minor not above the device's (cubins run on later minors). */
static int evo_cubin_for(int major, int minor)
{
	int best = -1;
	for (int i = 0; i < EVO_NCUBINS; i++)
		if (EVO_CUBIN_SM[i] / 10 == major && EVO_CUBIN_SM[i] % 10 <= minor &&
		    (best < 0 || EVO_CUBIN_SM[i] > EVO_CUBIN_SM[best]))
			best = i;
	return best;
}

/* Driver, device 0, its primary context and the kernel; 1 on success, else
 * 0 and the reason in why. */
static int evo_gpu_open(char *why, size_t size)
{
	int count = 0, major = 0, minor = 0, pick;
	evo_cu_device dev;
	evo_cu_result r;
	void *image;
	char archs[256] = "";
	if (!evo_cu_load(why, size))
		return 0;
	EVO_CU(cuInit(0), why, size);
	EVO_CU(cuDeviceGetCount(&count), why, size);
	if (count < 1)
		return (snprintf(why, size, "the CUDA driver found no GPU"), 0);
	EVO_CU(cuDeviceGet(&dev, 0), why, size);
	EVO_CU(cuDeviceGetAttribute(&major, EVO_CU_CC_MAJOR, dev), why, size);
	EVO_CU(cuDeviceGetAttribute(&minor, EVO_CU_CC_MINOR, dev), why, size);
	EVO_CU(cuDeviceGetAttribute(&evo_gpu.sm_count, EVO_CU_SM_COUNT, dev), why, size);
	if ((pick = evo_cubin_for(major, minor)) < 0) {
		for (int i = 0; i < EVO_NCUBINS; i++)
			snprintf(archs + strlen(archs), sizeof archs - strlen(archs), "%ssm_%d",
				 i ? ", " : "", EVO_CUBIN_SM[i]);
		snprintf(why, size, "no kernel for this GPU (sm_%d%d) in this export (it has: %s); "
			 "export again with --arch sm_%d%d", major, minor,
			 EVO_NCUBINS ? archs : "none, NVRTC was missing at export time", major, minor);
		return 0;
	}
	EVO_CU(cuDevicePrimaryCtxRetain(&evo_gpu.ctx, dev), why, size);
	EVO_CU(cuCtxSetCurrent(evo_gpu.ctx), why, size);
	/* The driver reads the cubin as an ELF image: hand it a malloc'd (aligned) copy. */
	if (!(image = malloc(EVO_CUBIN_SIZE[pick])))
		return (snprintf(why, size, "out of memory"), 0);
	memcpy(image, EVO_CUBIN_DATA[pick], EVO_CUBIN_SIZE[pick]);
	r = evo_cuModuleLoadData(&evo_gpu.mod, image);
	free(image);
	if (r != 0)
		return evo_cu_failed(r, "cuModuleLoadData", why, size);
	EVO_CU(cuModuleGetFunction(&evo_gpu.fn, evo_gpu.mod, "gpx_eval"), why, size);
	return 1;
}

/* out[i] = the program on unit i (a row, or a word of 32 rows) of the
 * row-major x, for n units of 4 bytes per input; 1 on success. */
static int evo_gpu_run(const void *x, long n, void *out, char *why, size_t size)
{
	unsigned long long row = EVO_NINPUTS, col = 1, nn = (unsigned long long)n;
	unsigned blocks = (unsigned)((n + 255) / 256), most = (unsigned)evo_gpu.sm_count * 16u;
	void *args[5];
	if (n <= 0)
		return 1;
	if (n > evo_gpu.cap) {
		if (evo_gpu.cap) {
			evo_cuMemFree_v2(evo_gpu.dx);
			evo_cuMemFree_v2(evo_gpu.dy);
		}
		evo_gpu.cap = 0;
		EVO_CU(cuMemAlloc_v2(&evo_gpu.dx, (size_t)n * EVO_NINPUTS * 4), why, size);
		EVO_CU(cuMemAlloc_v2(&evo_gpu.dy, (size_t)n * 4), why, size);
		evo_gpu.cap = n;
	}
	args[0] = &evo_gpu.dx, args[1] = &row, args[2] = &col, args[3] = &nn, args[4] = &evo_gpu.dy;
	if (most > 0 && blocks > most)
		blocks = most;
	EVO_CU(cuMemcpyHtoD_v2(evo_gpu.dx, x, (size_t)n * EVO_NINPUTS * 4), why, size);
	EVO_CU(cuLaunchKernel(evo_gpu.fn, blocks, 1, 1, 256, 1, 1, 0, NULL, args, NULL), why, size);
	EVO_CU(cuCtxSynchronize(), why, size);
	EVO_CU(cuMemcpyDtoH_v2(out, evo_gpu.dy, (size_t)n * 4), why, size);
	return 1;
}
#else
static int evo_gpu_open(char *why, size_t size)
{
	snprintf(why, size, "built with -DEVO_NO_GPU");
	return 0;
}
static int evo_gpu_run(const void *x, long n, void *out, char *why, size_t size)
{
	(void)x, (void)n, (void)out;
	snprintf(why, size, "built with -DEVO_NO_GPU");
	return 0;
}
#endif
