/* backend.h: choosing where a job runs: --backend auto|cpu|gpu. */
#ifndef RT_BACKEND_H
#define RT_BACKEND_H

#include "error.h"
#include "gpu.h"

typedef enum rt_backend { RT_BACKEND_AUTO, RT_BACKEND_CPU, RT_BACKEND_GPU } rt_backend;

/* Parses "auto", "cpu" or "gpu". */
rt_status rt_backend_parse(const char *s, rt_backend *out, rt_error *err);
const char *rt_backend_name(rt_backend b);

/* Resolves AUTO: GPU when a driver and a device are present, else CPU with
 * one notice saying why. GPU asked for and not available: RT_ERR_NOGPU with
 * the reason. On GPU, fills *info for device 0 (info may be NULL). */
rt_status rt_backend_select(rt_backend requested, rt_backend *chosen, gpu_info *info,
			    rt_error *err);

#endif
