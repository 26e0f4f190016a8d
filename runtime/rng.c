/* rng.c: host-side Philox streams (the templates' philox_stream, philox.h). */
#include <math.h>

#include "rng.h"

void rt_rng_init(rt_rng *rng, uint64_t seed, uint64_t stream)
{
	philox_stream_init(rng, seed, stream);
}

uint32_t rt_rng_u32(rt_rng *rng) { return philox_stream_u32(rng); }

float rt_rng_uniform(rt_rng *rng) { return philox_u01f(rt_rng_u32(rng)); }

double rt_rng_uniform_double(rt_rng *rng) { return philox_stream_u01d(rng); }

double rt_rng_range(rt_rng *rng, double lo, double hi)
{
	return philox_stream_range(rng, lo, hi);
}

uint32_t rt_rng_below(rt_rng *rng, uint32_t n) { return philox_stream_below(rng, n); }

double rt_rng_normal(rt_rng *rng)
{
	double u1 = rt_rng_uniform_double(rng), u2 = rt_rng_uniform_double(rng);
	if (u1 < 1e-300)
		u1 = 1e-300;
	return sqrt(-2.0 * log(u1)) * cos(6.283185307179586 * u2);
}
