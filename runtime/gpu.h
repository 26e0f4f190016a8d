/* gpu.h: the CUDA driver API, opened with dlopen on first use.
 *
 * Every driver function evoforge calls is named once in GPU_CU_FUNCTIONS
 * (gpu.c); each is looked up with dlsym and checked. With no driver the
 * functions return RT_ERR_NOGPU and a message that says how to fix it, so
 * callers can fall back to the CPU backend. Set EVOFORGE_LIBCUDA to load a
 * different library (tests set it to a missing file). */
#ifndef RT_GPU_H
#define RT_GPU_H

#include <stddef.h>

#include "error.h"

typedef struct gpu_info {
	int ordinal;
	char name[256];
	int cc_major, cc_minor;
	int sm_count;
	size_t total_mem;
	int max_threads_per_block, max_threads_per_sm;
	int regs_per_block, regs_per_sm;
	int smem_per_block, smem_per_block_optin, smem_per_sm;
	int l2_bytes;
	int clock_khz, mem_clock_khz, mem_bus_bits;
	int warp_size;
	int driver_version;  /* e.g. 13000 */
} gpu_info;

/* Opens libcuda and calls cuInit once; later calls return the first result. */
rt_status gpu_open(rt_error *err);
/* Number of CUDA devices (after gpu_open). */
rt_status gpu_device_count(int *count, rt_error *err);
/* Queries device `ordinal`. */
rt_status gpu_device_info(int ordinal, gpu_info *info, rt_error *err);
/* "sm_90" etc. for a device. */
void gpu_arch_name(const gpu_info *info, char *buf, int size);
#ifdef RT_TESTS
/* Forgets gpu_open's result and closes libcuda, so a test can open it again
 * (e.g. with another EVOFORGE_LIBCUDA). No context may be open. */
void gpu_reset_for_tests(void);
#endif

typedef struct gpu_context gpu_context;   /* a primary context on one device */
typedef struct gpu_module gpu_module;     /* a loaded cubin */
typedef struct gpu_stream gpu_stream;
typedef unsigned long long gpu_ptr;       /* CUdeviceptr */

/* Retains device `ordinal`'s primary context and makes it current. */
rt_status gpu_context_open(int ordinal, gpu_context **ctx, rt_error *err);
void gpu_context_close(gpu_context *ctx);
/* Free and total device memory in bytes (cuMemGetInfo); with several MPI
 * ranks of this host on the device, the free memory is this rank's share
 * (it divided by their number), so that sizing by it leaves room for the
 * others. */
rt_status gpu_mem_info(gpu_context *ctx, size_t *free_bytes, size_t *total_bytes, rt_error *err);

rt_status gpu_module_load(gpu_context *ctx, const void *cubin, size_t size,
			  gpu_module **mod, rt_error *err);
void gpu_module_unload(gpu_module *mod);

rt_status gpu_alloc(gpu_context *ctx, size_t bytes, gpu_ptr *ptr, rt_error *err);
void gpu_free(gpu_context *ctx, gpu_ptr ptr);
rt_status gpu_upload(gpu_context *ctx, gpu_ptr dst, const void *src, size_t bytes, rt_error *err);
rt_status gpu_download(gpu_context *ctx, void *dst, gpu_ptr src, size_t bytes, rt_error *err);
/* gpu_alloc of bytes (at least 8, so that an empty array has an address),
 * filled from src unless src is NULL. */
rt_status gpu_alloc_upload(gpu_context *ctx, const void *src, size_t bytes, gpu_ptr *ptr,
			  rt_error *err);
rt_status gpu_memset32(gpu_context *ctx, gpu_ptr dst, unsigned value, size_t count, rt_error *err);
/* Async forms on a stream (NULL = default stream); host memory should be pinned. */
rt_status gpu_upload_async(gpu_context *ctx, gpu_ptr dst, const void *src, size_t bytes,
			   gpu_stream *s, rt_error *err);
rt_status gpu_download_async(gpu_context *ctx, void *dst, gpu_ptr src, size_t bytes,
			     gpu_stream *s, rt_error *err);
rt_status gpu_host_alloc(gpu_context *ctx, size_t bytes, void **ptr, rt_error *err);
void gpu_host_free(gpu_context *ctx, void *ptr);

rt_status gpu_stream_create(gpu_context *ctx, gpu_stream **s, rt_error *err);
void gpu_stream_destroy(gpu_stream *s);
rt_status gpu_stream_sync(gpu_stream *s, rt_error *err);
rt_status gpu_sync(gpu_context *ctx, rt_error *err);

typedef struct gpu_launch_cfg {
	unsigned grid[3], block[3];
	unsigned smem_bytes;      /* dynamic shared memory */
	gpu_stream *stream;       /* NULL: default stream */
} gpu_launch_cfg;

/* Launches kernel `name` of `mod`; args as for cuLaunchKernel (array of pointers
 * to each argument). Looks the function up once and caches it in the module. */
rt_status gpu_launch(gpu_module *mod, const char *name, const gpu_launch_cfg *cfg,
		     void **args, rt_error *err);
/* The same as a cooperative launch (cuLaunchCooperativeKernel): every block
 * resident at once, so that the blocks may wait for one another; fails when
 * the grid is larger than the device holds (see gpu_occupancy). */
rt_status gpu_launch_cooperative(gpu_module *mod, const char *name, const gpu_launch_cfg *cfg,
				 void **args, rt_error *err);
/* Sets the dynamic shared memory limit and carve-out (-1 = leave) for a kernel. */
rt_status gpu_kernel_attrs(gpu_module *mod, const char *name, int max_dyn_smem,
			   int carveout_percent, rt_error *err);
/* Registers used per thread and max threads per block of a kernel. */
rt_status gpu_kernel_info(gpu_module *mod, const char *name, int *regs, int *max_threads,
			  int *local_bytes, rt_error *err);
/* Blocks of `threads` threads with `smem` dynamic bytes resident per SM. */
rt_status gpu_occupancy(gpu_module *mod, const char *name, int threads, size_t smem,
			int *blocks_per_sm, rt_error *err);

/* GPU-side timing: elapsed milliseconds between two points on a stream. */
typedef struct gpu_timer gpu_timer;
rt_status gpu_timer_create(gpu_context *ctx, gpu_timer **t, rt_error *err);
rt_status gpu_timer_start(gpu_timer *t, gpu_stream *s, rt_error *err);
rt_status gpu_timer_stop(gpu_timer *t, gpu_stream *s, double *ms, rt_error *err);
/* Asynchronous pair: gpu_timer_end records the stop point on s and returns at
 * once; gpu_timer_elapsed waits for it and gives start -> stop in ms. */
rt_status gpu_timer_end(gpu_timer *t, gpu_stream *s, rt_error *err);
rt_status gpu_timer_elapsed(gpu_timer *t, double *ms, rt_error *err);
void gpu_timer_destroy(gpu_timer *t);

#endif
