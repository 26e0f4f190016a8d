/* rng.h: host-side streams of random numbers over Philox4x32-10
 * (templates/philox.h). A stream is (seed, stream id); draws come four at a
 * time from consecutive counters, so any draw can be recomputed on the GPU.
 * rt_rng is the templates' philox_stream: device code that includes
 * philox.h draws exactly what these functions draw. */
#ifndef RT_RNG_H
#define RT_RNG_H

#include <stdint.h>

#include "philox.h"

typedef philox_stream rt_rng;

/* Starts stream `stream` of `seed` at counter 0. */
void rt_rng_init(rt_rng *rng, uint64_t seed, uint64_t stream);
/* Next 32 random bits. */
uint32_t rt_rng_u32(rt_rng *rng);
/* Uniform in [0, 1) (float: 24 bits; double: 53 bits). */
float rt_rng_uniform(rt_rng *rng);
double rt_rng_uniform_double(rt_rng *rng);
/* Uniform in [lo, hi). */
double rt_rng_range(rt_rng *rng, double lo, double hi);
/* Uniform integer in [0, n), n > 0, without bias (rejection). */
uint32_t rt_rng_below(rt_rng *rng, uint32_t n);
/* Standard normal (Box-Muller). */
double rt_rng_normal(rt_rng *rng);

#endif
