/* rng.c: host-side Philox streams. */
#include <math.h>

#include "rng.h"

void rt_rng_init(rt_rng *rng, uint64_t seed, uint64_t stream)
{
	rng->seed = seed;
	rng->stream = stream;
	rng->counter = 0;
	rng->used = 4;
}

uint32_t rt_rng_u32(rt_rng *rng)
{
	if (rng->used == 4) {
		philox4x32_ctr r = philox_block(rng->seed, rng->stream, rng->counter++);
		for (int i = 0; i < 4; i++)
			rng->buf[i] = r.v[i];
		rng->used = 0;
	}
	return rng->buf[rng->used++];
}

float rt_rng_uniform(rt_rng *rng) { return philox_u01f(rt_rng_u32(rng)); }

double rt_rng_uniform_double(rt_rng *rng)
{
	uint32_t a = rt_rng_u32(rng);
	return philox_u01d(a, rt_rng_u32(rng));
}

double rt_rng_range(rt_rng *rng, double lo, double hi)
{
	return lo + (hi - lo) * rt_rng_uniform_double(rng);
}

uint32_t rt_rng_below(rt_rng *rng, uint32_t n)
{
	/* Lemire's nearly-divisionless method with rejection. */
	uint64_t m = (uint64_t)rt_rng_u32(rng) * n;
	uint32_t low = (uint32_t)m;
	if (low < n) {
		uint32_t threshold = (uint32_t)(-n) % n;
		while (low < threshold) {
			m = (uint64_t)rt_rng_u32(rng) * n;
			low = (uint32_t)m;
		}
	}
	return (uint32_t)(m >> 32);
}

double rt_rng_normal(rt_rng *rng)
{
	double u1 = rt_rng_uniform_double(rng), u2 = rt_rng_uniform_double(rng);
	if (u1 < 1e-300)
		u1 = 1e-300;
	return sqrt(-2.0 * log(u1)) * cos(6.283185307179586 * u2);
}
