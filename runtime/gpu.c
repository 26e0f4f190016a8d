/* gpu.c: the CUDA driver API through dlopen: devices, contexts, modules,
 * memory, streams, launches and timers.
 *
 * Why dlopen: evoforge must build and run where there is no driver (CI, the
 * development machines), and pick the CPU backend there. So <cuda.h> is used
 * for its types only; every driver function is named once in
 * GPU_CU_FUNCTIONS below, which expands both to a function pointer p_NAME of
 * the exact prototype and to its dlsym lookup. cuda.h #defines many names to
 * versioned symbols (cuMemAlloc -> cuMemAlloc_v2); the lookup stringifies
 * after macro expansion, so dlsym asks for the symbol the header means.
 *
 * Every call goes through GPU_CHECK, which turns a CUresult into an rt_error
 * naming the call, the function, the file and line, and CUDA's own error name
 * and text. Nothing here aborts. */
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cuda.h>

#include "comm.h"
#include "gpu.h"
#include "log.h"
#include "timeline.h"

/* Kernels per module whose CUfunction gpu_launch remembers. */
#if !defined(RT_GPU_MODULE_FUNCS)
#define RT_GPU_MODULE_FUNCS 32
#endif

/* ---- the driver functions evoforge uses, each named once ----------------- */

#define GPU_CU_FUNCTIONS(X) \
	X(cuInit) \
	X(cuDriverGetVersion) \
	X(cuGetErrorName) \
	X(cuGetErrorString) \
	X(cuDeviceGetCount) \
	X(cuDeviceGet) \
	X(cuDeviceGetName) \
	X(cuDeviceGetAttribute) \
	X(cuDeviceTotalMem) \
	X(cuDevicePrimaryCtxRetain) \
	X(cuDevicePrimaryCtxRelease) \
	X(cuCtxSetCurrent) \
	X(cuCtxSynchronize) \
	X(cuMemGetInfo) \
	X(cuModuleLoadData) \
	X(cuModuleUnload) \
	X(cuModuleGetFunction) \
	X(cuFuncSetAttribute) \
	X(cuFuncGetAttribute) \
	X(cuOccupancyMaxActiveBlocksPerMultiprocessor) \
	X(cuLaunchKernel) \
	X(cuLaunchCooperativeKernel) \
	X(cuMemAlloc) \
	X(cuMemFree) \
	X(cuMemcpyHtoD) \
	X(cuMemcpyDtoH) \
	X(cuMemcpyHtoDAsync) \
	X(cuMemcpyDtoHAsync) \
	X(cuMemsetD32) \
	X(cuMemHostAlloc) \
	X(cuMemFreeHost) \
	X(cuStreamCreate) \
	X(cuStreamDestroy) \
	X(cuStreamSynchronize) \
	X(cuEventCreate) \
	X(cuEventDestroy) \
	X(cuEventRecord) \
	X(cuEventSynchronize) \
	X(cuEventElapsedTime)

/* String of a name after macro expansion: GPU_STR(cuMemAlloc) is "cuMemAlloc_v2". */
#define GPU_STR_(x) #x
#define GPU_STR(x) GPU_STR_(x)

/* p_cuMemAlloc has the type of cuMemAlloc_v2: the ## keeps the short name,
 * the plain use of fn is expanded. */
#define GPU_DECLARE(fn) static __typeof__(fn) *p_##fn;
GPU_CU_FUNCTIONS(GPU_DECLARE)
#undef GPU_DECLARE

/* ---- the one-time state of gpu_open --------------------------------------- */

static pthread_mutex_t gpu_lock = PTHREAD_MUTEX_INITIALIZER;
static struct {
	int opened;            /* gpu_open ran; status and error are its result */
	rt_status status;
	rt_error error;
	void *lib;             /* dlopen handle of libcuda */
	char lib_name[RT_PATH_MAX];
	CUresult init_result;  /* the first cuInit's result */
	int device_count;
	int driver_version;
} gpu_state;

/* ---- the check macro ------------------------------------------------------ */

/* GPU_CHECK(call): RT_OK, or RT_ERR_CUDA with the call, function, file, line
 * and the driver's error name and text in *err (err must be in scope). */
#define GPU_CHECK(call) gpu_check((call), #call, __func__, __FILE__, __LINE__, err)

static void gpu_error_text(CUresult r, const char **name, const char **text)
{
	*name = NULL;
	*text = NULL;
	if (!p_cuGetErrorName || p_cuGetErrorName(r, name) != CUDA_SUCCESS)
		*name = NULL;
	if (!p_cuGetErrorString || p_cuGetErrorString(r, text) != CUDA_SUCCESS)
		*text = NULL;
	if (r == CUDA_ERROR_STUB_LIBRARY && !*name) {   /* the stub cannot name its own error */
		*name = "CUDA_ERROR_STUB_LIBRARY";
		*text = "this libcuda is the toolkit's stub, not the NVIDIA driver";
	}
}

static rt_status gpu_check(CUresult r, const char *call, const char *func, const char *file,
			   int line, rt_error *err)
{
	const char *name, *text;
	if (r == CUDA_SUCCESS)
		return RT_OK;
	gpu_error_text(r, &name, &text);
	if (strncmp(call, "p_", 2) == 0)
		call += 2;   /* report cuMemAlloc(...), not the pointer's name */
	return rt_fail(err, RT_ERR_CUDA, "%s failed: %s (%s) [CUresult %d] in %s at %s:%d", call,
		       name ? name : "unknown CUDA error", text ? text : "no description",
		       (int)r, func, file, line);
}

/* GPU_CLEANUP(call): for calls in functions that return nothing (free,
 * destroy, unload) and in error paths. The first failure is warned about
 * (later ones usually follow from it); CUDA_ERROR_DEINITIALIZED never is:
 * the driver may shut down before our last cleanup at process exit. */
#define GPU_CLEANUP(call) gpu_cleanup((call), #call, __func__, __FILE__, __LINE__)

static void gpu_cleanup(CUresult r, const char *call, const char *func, const char *file, int line)
{
	static int warned;
	rt_error e;
	if (r == CUDA_SUCCESS || r == CUDA_ERROR_DEINITIALIZED)
		return;
	pthread_mutex_lock(&gpu_lock);
	int first = !warned;
	warned = 1;
	pthread_mutex_unlock(&gpu_lock);
	if (first) {
		gpu_check(r, call, func, file, line, &e);
		rt_warn("%s (further cleanup errors are not reported)", e.msg);
	}
}

/* ---- opening the driver --------------------------------------------------- */

static rt_status gpu_load_symbols(rt_error *err)
{
	void *sym;
#define GPU_LOOKUP(fn) \
	sym = dlsym(gpu_state.lib, GPU_STR(fn)); \
	if (!sym) \
		return rt_fail(err, RT_ERR_NOGPU, \
			       "the CUDA driver %s has no %s (driver older than evoforge " \
			       "needs, CUDA %d.%d or newer?); update the NVIDIA driver or use " \
			       "--backend cpu", gpu_state.lib_name, GPU_STR(fn), \
			       CUDA_VERSION / 1000, CUDA_VERSION % 1000 / 10); \
	memcpy(&p_##fn, &sym, sizeof sym);
	GPU_CU_FUNCTIONS(GPU_LOOKUP)
#undef GPU_LOOKUP
	return RT_OK;
}

static rt_status gpu_open_locked(rt_error *err)
{
	const char *names[2] = { "libcuda.so.1", "libcuda.so" };
	int nnames = 2;
	const char *env = getenv("EVOFORGE_LIBCUDA");
	char first_error[1024] = "";
	rt_status st;
	if (env && *env) {
		names[0] = env;
		nnames = 1;
	}
	/* NVRTC's own cache lives in the driver and hides ptxas's report on a
	 * hit (see nvrtc.c); evoforge loads only cubins for the device's own
	 * architecture, so the driver's JIT cache has nothing to do either.
	 * Set before the driver starts, unless the user chose. */
	setenv("CUDA_CACHE_DISABLE", "1", 0);
	for (int i = 0; i < nnames && !gpu_state.lib; i++) {
		gpu_state.lib = dlopen(names[i], RTLD_NOW | RTLD_LOCAL);
		if (gpu_state.lib)
			snprintf(gpu_state.lib_name, sizeof gpu_state.lib_name, "%s", names[i]);
		else if (i == 0) {
			const char *e = dlerror();
			snprintf(first_error, sizeof first_error, "%s", e ? e : "not found");
		}
	}
	if (!gpu_state.lib)
		return rt_fail(err, RT_ERR_NOGPU,
			       "no CUDA driver: dlopen %s: %s%s; install the NVIDIA driver or use "
			       "--backend cpu", names[0], first_error,
			       nnames > 1 ? " (libcuda.so also tried)" : "");
	if ((st = gpu_load_symbols(err)) != RT_OK)
		return st;
	gpu_state.init_result = p_cuInit(0);
	if (gpu_state.init_result != CUDA_SUCCESS) {
		const char *name, *text;
		gpu_error_text(gpu_state.init_result, &name, &text);
		return rt_fail(err, RT_ERR_NOGPU,
			       "the CUDA driver (%s) did not start: cuInit: %s (%s) [CUresult %d]; "
			       "check the driver installation and CUDA_VISIBLE_DEVICES, or use "
			       "--backend cpu", gpu_state.lib_name, name ? name : "unknown CUDA error",
			       text ? text : "no description", (int)gpu_state.init_result);
	}
	if ((st = GPU_CHECK(p_cuDriverGetVersion(&gpu_state.driver_version))) != RT_OK ||
	    (st = GPU_CHECK(p_cuDeviceGetCount(&gpu_state.device_count))) != RT_OK)
		return st;
	if (gpu_state.device_count <= 0)
		return rt_fail(err, RT_ERR_NOGPU,
			       "the CUDA driver (%s) sees no GPU; check CUDA_VISIBLE_DEVICES or "
			       "use --backend cpu", gpu_state.lib_name);
	return RT_OK;
}

rt_status gpu_open(rt_error *err)
{
	pthread_mutex_lock(&gpu_lock);
	if (!gpu_state.opened) {
		gpu_state.status = gpu_open_locked(&gpu_state.error);
		gpu_state.opened = 1;
	}
	rt_status st = gpu_state.status;
	if (st != RT_OK && err)
		*err = gpu_state.error;
	pthread_mutex_unlock(&gpu_lock);
	return st;
}

#ifdef RT_TESTS
void gpu_reset_for_tests(void)
{
	pthread_mutex_lock(&gpu_lock);
	if (gpu_state.lib)
		dlclose(gpu_state.lib);
	memset(&gpu_state, 0, sizeof gpu_state);
#define GPU_CLEAR(fn) p_##fn = NULL;
	GPU_CU_FUNCTIONS(GPU_CLEAR)
#undef GPU_CLEAR
	pthread_mutex_unlock(&gpu_lock);
}
#endif

rt_status gpu_device_count(int *count, rt_error *err)
{
	rt_status st = gpu_open(err);
	*count = st == RT_OK ? gpu_state.device_count : 0;
	return st;
}

static rt_status gpu_get_device(int ordinal, CUdevice *dev, rt_error *err)
{
	rt_status st = gpu_open(err);
	if (st != RT_OK)
		return st;
	if (ordinal < 0 || ordinal >= gpu_state.device_count)
		return rt_fail(err, RT_ERR_INPUT, "no CUDA device %d (%d present)", ordinal,
			       gpu_state.device_count);
	/* MPI ranks on one host take turns: rank k's device 0 is device k mod count */
	ordinal = (ordinal + rt_comm_local_rank()) % gpu_state.device_count;
	return GPU_CHECK(p_cuDeviceGet(dev, ordinal));
}

rt_status gpu_device_info(int ordinal, gpu_info *info, rt_error *err)
{
	CUdevice dev;
	size_t total = 0;
	rt_status st = gpu_get_device(ordinal, &dev, err);
	memset(info, 0, sizeof *info);
	if (st != RT_OK)
		return st;
	info->ordinal = ordinal;
	info->driver_version = gpu_state.driver_version;
	if ((st = GPU_CHECK(p_cuDeviceGetName(info->name, (int)sizeof info->name, dev))) != RT_OK ||
	    (st = GPU_CHECK(p_cuDeviceTotalMem(&total, dev))) != RT_OK)
		return st;
	info->total_mem = total;
	static const struct {
		CUdevice_attribute attr;
		size_t offset;
	} attrs[] = {
#define A(attr, field) { CU_DEVICE_ATTRIBUTE_##attr, offsetof(gpu_info, field) }
		A(COMPUTE_CAPABILITY_MAJOR, cc_major),
		A(COMPUTE_CAPABILITY_MINOR, cc_minor),
		A(MULTIPROCESSOR_COUNT, sm_count),
		A(MAX_THREADS_PER_BLOCK, max_threads_per_block),
		A(MAX_THREADS_PER_MULTIPROCESSOR, max_threads_per_sm),
		A(MAX_REGISTERS_PER_BLOCK, regs_per_block),
		A(MAX_REGISTERS_PER_MULTIPROCESSOR, regs_per_sm),
		A(MAX_SHARED_MEMORY_PER_BLOCK, smem_per_block),
		A(MAX_SHARED_MEMORY_PER_BLOCK_OPTIN, smem_per_block_optin),
		A(MAX_SHARED_MEMORY_PER_MULTIPROCESSOR, smem_per_sm),
		A(L2_CACHE_SIZE, l2_bytes),
		A(CLOCK_RATE, clock_khz),
		A(MEMORY_CLOCK_RATE, mem_clock_khz),
		A(GLOBAL_MEMORY_BUS_WIDTH, mem_bus_bits),
		A(WARP_SIZE, warp_size),
#undef A
	};
	for (size_t i = 0; i < sizeof attrs / sizeof attrs[0]; i++) {
		int *field = (int *)((char *)info + attrs[i].offset);
		if ((st = GPU_CHECK(p_cuDeviceGetAttribute(field, attrs[i].attr, dev))) != RT_OK)
			return st;
	}
	return RT_OK;
}

void gpu_arch_name(const gpu_info *info, char *buf, int size)
{
	snprintf(buf, (size_t)size, "sm_%d%d", info->cc_major, info->cc_minor);
}

/* ---- contexts ------------------------------------------------------------- */

struct gpu_context {
	int ordinal;
	CUdevice dev;
	CUcontext ctx;   /* the device's primary context, retained */
};

/* Makes ctx current on the calling thread (contexts are per thread; the
 * call is cheap, so every entry point that takes a context does it). */
static rt_status gpu_bind(gpu_context *ctx, rt_error *err)
{
	if (!ctx)
		return rt_fail(err, RT_ERR_INTERNAL, "GPU call without a context");
	return GPU_CHECK(p_cuCtxSetCurrent(ctx->ctx));
}

/* Keeps device dev's primary context for the rest of the process (one more
 * reference, never released: the driver ends it with the process, as the
 * CUDA runtime does), so that a context closed and opened again -- svm's
 * training then its prediction, a library's next job -- is not destroyed
 * and made anew (0.1-0.15 s each on an H100). */
static void keep_primary(CUdevice dev)
{
	static unsigned char kept[64];
	CUcontext c;
	if (dev < 0 || dev >= 64)
		return;
	pthread_mutex_lock(&gpu_lock);
	if (!kept[dev] && p_cuDevicePrimaryCtxRetain(&c, dev) == CUDA_SUCCESS)
		kept[dev] = 1;
	pthread_mutex_unlock(&gpu_lock);
}

static rt_status context_open(int ordinal, gpu_context **out, rt_error *err)
{
	CUdevice dev;
	rt_status st;
	*out = NULL;
	if ((st = gpu_get_device(ordinal, &dev, err)) != RT_OK)
		return st;
	gpu_context *ctx = rt_calloc(1, sizeof *ctx, err);
	if (!ctx)
		return RT_ERR_SYSTEM;
	ctx->ordinal = ordinal;
	ctx->dev = dev;
	if ((st = GPU_CHECK(p_cuDevicePrimaryCtxRetain(&ctx->ctx, dev))) != RT_OK) {
		free(ctx);
		return st;
	}
	keep_primary(dev);
	if ((st = gpu_bind(ctx, err)) != RT_OK) {
		GPU_CLEANUP(p_cuDevicePrimaryCtxRelease(dev));
		free(ctx);
		return st;
	}
	*out = ctx;
	return RT_OK;
}

/* With a timeline mark each side: a context's creation is a start-up cost
 * (timeline.h). */
rt_status gpu_context_open(int ordinal, gpu_context **out, rt_error *err)
{
	rt_status st;
	rt_mark("gpu context");
	st = context_open(ordinal, out, err);
	rt_mark("gpu context ready");
	return st;
}

void gpu_context_close(gpu_context *ctx)
{
	if (!ctx)
		return;
	GPU_CLEANUP(p_cuDevicePrimaryCtxRelease(ctx->dev));
	free(ctx);
}

/* The job's processes on this host that use this one's device (rank k
 * takes device k mod count, gpu_get_device). */
static int ranks_sharing_device(void)
{
	int n = rt_comm_local_size(), dc = gpu_state.device_count > 0 ? gpu_state.device_count : 1;
	return n / dc + (rt_comm_local_rank() % dc < n % dc ? 1 : 0);
}

rt_status gpu_mem_info(gpu_context *ctx, size_t *free_bytes, size_t *total_bytes, rt_error *err)
{
	rt_status st = gpu_bind(ctx, err);
	if (st == RT_OK)
		st = GPU_CHECK(p_cuMemGetInfo(free_bytes, total_bytes));
	int sharing = ranks_sharing_device();
	if (st == RT_OK && sharing > 1)
		*free_bytes /= (size_t)sharing;
	return st;
}

/* ---- modules and their functions ----------------------------------------- */

typedef struct gpu_function {
	char *name;
	CUfunction fn;
} gpu_function;

struct gpu_module {
	gpu_context *ctx;
	CUmodule mod;
	pthread_mutex_t lock;                /* guards fns */
	gpu_function fns[RT_GPU_MODULE_FUNCS];
	int nfns;
};

rt_status gpu_module_load(gpu_context *ctx, const void *cubin, size_t size, gpu_module **out,
			  rt_error *err)
{
	rt_status st;
	*out = NULL;
	if (!cubin || size < 4)
		return rt_fail(err, RT_ERR_INTERNAL, "loading a GPU module: empty cubin (%zu bytes)",
			       size);
	if ((st = gpu_bind(ctx, err)) != RT_OK)
		return st;
	gpu_module *m = rt_calloc(1, sizeof *m, err);
	if (!m)
		return RT_ERR_SYSTEM;
	m->ctx = ctx;
	if ((st = GPU_CHECK(p_cuModuleLoadData(&m->mod, cubin))) != RT_OK) {
		rt_error_prefix(err, "loading a GPU module (%zu-byte cubin)", size);
		free(m);
		return st;
	}
	pthread_mutex_init(&m->lock, NULL);
	*out = m;
	return RT_OK;
}

void gpu_module_unload(gpu_module *m)
{
	if (!m)
		return;
	GPU_CLEANUP(p_cuCtxSetCurrent(m->ctx->ctx));
	GPU_CLEANUP(p_cuModuleUnload(m->mod));
	for (int i = 0; i < m->nfns; i++)
		free(m->fns[i].name);
	pthread_mutex_destroy(&m->lock);
	free(m);
}

/* The CUfunction of kernel `name`, from the module's table or looked up
 * once (a full table just means later lookups are not cached). */
static rt_status gpu_function_get(gpu_module *m, const char *name, CUfunction *fn, rt_error *err)
{
	rt_status st;
	if (!m || !name)
		return rt_fail(err, RT_ERR_INTERNAL, "GPU kernel lookup without a module or name");
	if ((st = gpu_bind(m->ctx, err)) != RT_OK)
		return st;
	pthread_mutex_lock(&m->lock);
	for (int i = 0; i < m->nfns; i++) {
		if (strcmp(m->fns[i].name, name) == 0) {
			*fn = m->fns[i].fn;
			pthread_mutex_unlock(&m->lock);
			return RT_OK;
		}
	}
	st = GPU_CHECK(p_cuModuleGetFunction(fn, m->mod, name));
	if (st != RT_OK)
		rt_error_prefix(err, "kernel '%s'", name);
	else if (m->nfns < RT_GPU_MODULE_FUNCS) {
		char *copy = rt_strdup(name, NULL);
		if (copy) {
			m->fns[m->nfns].name = copy;
			m->fns[m->nfns].fn = *fn;
			m->nfns++;
		}
	}
	pthread_mutex_unlock(&m->lock);
	return st;
}

static CUstream gpu_cu_stream(gpu_stream *s);

rt_status gpu_launch(gpu_module *m, const char *name, const gpu_launch_cfg *cfg, void **args,
		     rt_error *err)
{
	CUfunction fn;
	rt_status st = gpu_function_get(m, name, &fn, err);
	if (st != RT_OK)
		return st;
	st = GPU_CHECK(p_cuLaunchKernel(fn, cfg->grid[0], cfg->grid[1], cfg->grid[2],
					cfg->block[0], cfg->block[1], cfg->block[2],
					cfg->smem_bytes, gpu_cu_stream(cfg->stream), args, NULL));
	if (st != RT_OK)
		rt_error_prefix(err, "launching %s<<<(%u,%u,%u), (%u,%u,%u), %u>>>", name,
				cfg->grid[0], cfg->grid[1], cfg->grid[2], cfg->block[0],
				cfg->block[1], cfg->block[2], cfg->smem_bytes);
	return st;
}

rt_status gpu_launch_cooperative(gpu_module *m, const char *name, const gpu_launch_cfg *cfg,
				 void **args, rt_error *err)
{
	CUfunction fn;
	rt_status st = gpu_function_get(m, name, &fn, err);
	if (st != RT_OK)
		return st;
	st = GPU_CHECK(p_cuLaunchCooperativeKernel(fn, cfg->grid[0], cfg->grid[1], cfg->grid[2],
						   cfg->block[0], cfg->block[1], cfg->block[2],
						   cfg->smem_bytes, gpu_cu_stream(cfg->stream),
						   args));
	if (st != RT_OK)
		rt_error_prefix(err, "launching %s (cooperative) with %u blocks of %u threads", name,
				cfg->grid[0] * cfg->grid[1] * cfg->grid[2],
				cfg->block[0] * cfg->block[1] * cfg->block[2]);
	return st;
}

rt_status gpu_kernel_attrs(gpu_module *m, const char *name, int max_dyn_smem,
			   int carveout_percent, rt_error *err)
{
	CUfunction fn;
	rt_status st = gpu_function_get(m, name, &fn, err);
	if (st == RT_OK && max_dyn_smem >= 0)
		st = GPU_CHECK(p_cuFuncSetAttribute(fn, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
						    max_dyn_smem));
	if (st == RT_OK && carveout_percent >= 0)
		st = GPU_CHECK(p_cuFuncSetAttribute(fn, CU_FUNC_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT,
						    carveout_percent));
	if (st != RT_OK)
		rt_error_prefix(err, "kernel '%s' (dynamic shared memory %d, carve-out %d%%)", name,
				max_dyn_smem, carveout_percent);
	return st;
}

rt_status gpu_kernel_info(gpu_module *m, const char *name, int *regs, int *max_threads,
			  int *local_bytes, rt_error *err)
{
	CUfunction fn;
	int dummy;
	rt_status st = gpu_function_get(m, name, &fn, err);
	if (st == RT_OK)
		st = GPU_CHECK(p_cuFuncGetAttribute(regs ? regs : &dummy,
						    CU_FUNC_ATTRIBUTE_NUM_REGS, fn));
	if (st == RT_OK)
		st = GPU_CHECK(p_cuFuncGetAttribute(max_threads ? max_threads : &dummy,
						    CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK, fn));
	if (st == RT_OK)
		st = GPU_CHECK(p_cuFuncGetAttribute(local_bytes ? local_bytes : &dummy,
						    CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES, fn));
	return st;
}

rt_status gpu_occupancy(gpu_module *m, const char *name, int threads, size_t smem,
			int *blocks_per_sm, rt_error *err)
{
	CUfunction fn;
	rt_status st = gpu_function_get(m, name, &fn, err);
	if (st == RT_OK)
		st = GPU_CHECK(p_cuOccupancyMaxActiveBlocksPerMultiprocessor(blocks_per_sm, fn,
									      threads, smem));
	if (st != RT_OK)
		rt_error_prefix(err, "occupancy of '%s' with %d threads, %zu bytes", name,
				threads, smem);
	return st;
}

/* ---- memory --------------------------------------------------------------- */

rt_status gpu_alloc(gpu_context *ctx, size_t bytes, gpu_ptr *ptr, rt_error *err)
{
	CUdeviceptr p = 0;
	rt_status st = gpu_bind(ctx, err);
	*ptr = 0;
	if (st != RT_OK)
		return st;
	if ((st = GPU_CHECK(p_cuMemAlloc(&p, bytes ? bytes : 1))) != RT_OK) {
		rt_error_prefix(err, "allocating %zu bytes on the GPU", bytes);
		return st;
	}
	*ptr = (gpu_ptr)p;
	return RT_OK;
}

void gpu_free(gpu_context *ctx, gpu_ptr ptr)
{
	if (!ctx || !ptr)
		return;
	GPU_CLEANUP(p_cuCtxSetCurrent(ctx->ctx));
	GPU_CLEANUP(p_cuMemFree((CUdeviceptr)ptr));
}

rt_status gpu_upload(gpu_context *ctx, gpu_ptr dst, const void *src, size_t bytes, rt_error *err)
{
	rt_status st = gpu_bind(ctx, err);
	if (st != RT_OK || bytes == 0)
		return st;
	return GPU_CHECK(p_cuMemcpyHtoD((CUdeviceptr)dst, src, bytes));
}

rt_status gpu_download(gpu_context *ctx, void *dst, gpu_ptr src, size_t bytes, rt_error *err)
{
	rt_status st = gpu_bind(ctx, err);
	if (st != RT_OK || bytes == 0)
		return st;
	return GPU_CHECK(p_cuMemcpyDtoH(dst, (CUdeviceptr)src, bytes));
}

rt_status gpu_memset32(gpu_context *ctx, gpu_ptr dst, unsigned value, size_t count, rt_error *err)
{
	rt_status st = gpu_bind(ctx, err);
	if (st != RT_OK || count == 0)
		return st;
	return GPU_CHECK(p_cuMemsetD32((CUdeviceptr)dst, value, count));
}

rt_status gpu_alloc_upload(gpu_context *ctx, const void *src, size_t bytes, gpu_ptr *ptr,
			  rt_error *err)
{
	rt_status st = gpu_alloc(ctx, bytes ? bytes : 8, ptr, err);
	return st == RT_OK && src ? gpu_upload(ctx, *ptr, src, bytes, err) : st;
}

rt_status gpu_upload_async(gpu_context *ctx, gpu_ptr dst, const void *src, size_t bytes,
			   gpu_stream *s, rt_error *err)
{
	rt_status st = gpu_bind(ctx, err);
	if (st != RT_OK || bytes == 0)
		return st;
	return GPU_CHECK(p_cuMemcpyHtoDAsync((CUdeviceptr)dst, src, bytes, gpu_cu_stream(s)));
}

rt_status gpu_download_async(gpu_context *ctx, void *dst, gpu_ptr src, size_t bytes,
			     gpu_stream *s, rt_error *err)
{
	rt_status st = gpu_bind(ctx, err);
	if (st != RT_OK || bytes == 0)
		return st;
	return GPU_CHECK(p_cuMemcpyDtoHAsync(dst, (CUdeviceptr)src, bytes, gpu_cu_stream(s)));
}

rt_status gpu_host_alloc(gpu_context *ctx, size_t bytes, void **ptr, rt_error *err)
{
	rt_status st = gpu_bind(ctx, err);
	*ptr = NULL;
	if (st != RT_OK)
		return st;
	if ((st = GPU_CHECK(p_cuMemHostAlloc(ptr, bytes ? bytes : 1, 0))) != RT_OK) {
		*ptr = NULL;
		rt_error_prefix(err, "allocating %zu bytes of pinned host memory", bytes);
	}
	return st;
}

void gpu_host_free(gpu_context *ctx, void *ptr)
{
	if (!ctx || !ptr)
		return;
	GPU_CLEANUP(p_cuCtxSetCurrent(ctx->ctx));
	GPU_CLEANUP(p_cuMemFreeHost(ptr));
}

/* ---- streams -------------------------------------------------------------- */

struct gpu_stream {
	gpu_context *ctx;
	CUstream s;
};

static CUstream gpu_cu_stream(gpu_stream *s)
{
	return s ? s->s : NULL;
}

rt_status gpu_stream_create(gpu_context *ctx, gpu_stream **out, rt_error *err)
{
	rt_status st = gpu_bind(ctx, err);
	*out = NULL;
	if (st != RT_OK)
		return st;
	gpu_stream *s = rt_calloc(1, sizeof *s, err);
	if (!s)
		return RT_ERR_SYSTEM;
	s->ctx = ctx;
	if ((st = GPU_CHECK(p_cuStreamCreate(&s->s, CU_STREAM_NON_BLOCKING))) != RT_OK) {
		free(s);
		return st;
	}
	*out = s;
	return RT_OK;
}

void gpu_stream_destroy(gpu_stream *s)
{
	if (!s)
		return;
	GPU_CLEANUP(p_cuCtxSetCurrent(s->ctx->ctx));
	GPU_CLEANUP(p_cuStreamDestroy(s->s));
	free(s);
}

rt_status gpu_stream_sync(gpu_stream *s, rt_error *err)
{
	if (!s)
		return rt_fail(err, RT_ERR_INTERNAL, "gpu_stream_sync without a stream");
	rt_status st = gpu_bind(s->ctx, err);
	if (st != RT_OK)
		return st;
	return GPU_CHECK(p_cuStreamSynchronize(s->s));
}

rt_status gpu_sync(gpu_context *ctx, rt_error *err)
{
	rt_status st = gpu_bind(ctx, err);
	if (st != RT_OK)
		return st;
	return GPU_CHECK(p_cuCtxSynchronize());
}

/* ---- timers --------------------------------------------------------------- */

struct gpu_timer {
	gpu_context *ctx;
	CUevent start, stop;
};

rt_status gpu_timer_create(gpu_context *ctx, gpu_timer **out, rt_error *err)
{
	rt_status st = gpu_bind(ctx, err);
	*out = NULL;
	if (st != RT_OK)
		return st;
	gpu_timer *t = rt_calloc(1, sizeof *t, err);
	if (!t)
		return RT_ERR_SYSTEM;
	t->ctx = ctx;
	if ((st = GPU_CHECK(p_cuEventCreate(&t->start, CU_EVENT_DEFAULT))) != RT_OK) {
		free(t);
		return st;
	}
	if ((st = GPU_CHECK(p_cuEventCreate(&t->stop, CU_EVENT_DEFAULT))) != RT_OK) {
		GPU_CLEANUP(p_cuEventDestroy(t->start));
		free(t);
		return st;
	}
	*out = t;
	return RT_OK;
}

rt_status gpu_timer_start(gpu_timer *t, gpu_stream *s, rt_error *err)
{
	rt_status st = gpu_bind(t->ctx, err);
	if (st != RT_OK)
		return st;
	return GPU_CHECK(p_cuEventRecord(t->start, gpu_cu_stream(s)));
}

rt_status gpu_timer_stop(gpu_timer *t, gpu_stream *s, double *ms, rt_error *err)
{
	rt_status st = gpu_timer_end(t, s, err);
	*ms = 0.0;
	return st != RT_OK ? st : gpu_timer_elapsed(t, ms, err);
}

rt_status gpu_timer_end(gpu_timer *t, gpu_stream *s, rt_error *err)
{
	rt_status st = gpu_bind(t->ctx, err);
	if (st != RT_OK)
		return st;
	return GPU_CHECK(p_cuEventRecord(t->stop, gpu_cu_stream(s)));
}

rt_status gpu_timer_elapsed(gpu_timer *t, double *ms, rt_error *err)
{
	float f = 0.0f;
	rt_status st = gpu_bind(t->ctx, err);
	*ms = 0.0;
	if (st == RT_OK)
		st = GPU_CHECK(p_cuEventSynchronize(t->stop));
	if (st == RT_OK)
		st = GPU_CHECK(p_cuEventElapsedTime(&f, t->start, t->stop));
	if (st == RT_OK)
		*ms = f;
	return st;
}

void gpu_timer_destroy(gpu_timer *t)
{
	if (!t)
		return;
	GPU_CLEANUP(p_cuCtxSetCurrent(t->ctx->ctx));
	GPU_CLEANUP(p_cuEventDestroy(t->start));
	GPU_CLEANUP(p_cuEventDestroy(t->stop));
	free(t);
}
