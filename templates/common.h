/* common.h: what every template needs to compile both as C11 on the host and
 * as CUDA C under NVRTC (which has no standard headers): fixed-width integer
 * types and the RT_HD qualifier for functions shared by both backends. */
#ifndef EVO_COMMON_H
#define EVO_COMMON_H

#if defined(__CUDACC__)
#  if defined(__CUDACC_RTC__)
typedef unsigned short uint16_t;
typedef short int16_t;
typedef unsigned int uint32_t;
typedef int int32_t;
typedef unsigned long long uint64_t;
typedef long long int64_t;
#  else
#    include <stdint.h>
#  endif
#  define RT_HD static __host__ __device__ __forceinline__
#  define RT_DEV static __device__ __forceinline__
#else
#  include <stdint.h>
#  include <math.h>
#  define RT_HD static inline
#endif

#endif
