/* philox.h: Philox4x32-10 (Salmon et al., SC'11, as in Random123 and cuRAND),
 * the one counter-based generator of evoforge. Compiled both by the host
 * (runtime/rng.c) and into generated CUDA kernels, so both backends draw the
 * same numbers for the same (seed, stream, counter).
 *
 * Convention: key = the 64-bit seed; counter = {n lo, n hi, stream lo, stream hi},
 * where n counts blocks of four 32-bit draws within a stream. */
#ifndef EVO_PHILOX_H
#define EVO_PHILOX_H

#include "common.h"

#define PHILOX_M0 0xD2511F53u
#define PHILOX_M1 0xCD9E8D57u
#define PHILOX_W0 0x9E3779B9u
#define PHILOX_W1 0xBB67AE85u

typedef struct philox4x32_ctr { uint32_t v[4]; } philox4x32_ctr;
typedef struct philox2x32_key { uint32_t v[2]; } philox2x32_key;

RT_HD uint32_t philox_mulhilo(uint32_t a, uint32_t b, uint32_t *hi)
{
	uint64_t p = (uint64_t)a * (uint64_t)b;
	*hi = (uint32_t)(p >> 32);
	return (uint32_t)p;
}

RT_HD philox4x32_ctr philox4x32_round(philox4x32_ctr c, philox2x32_key k)
{
	uint32_t hi0, hi1;
	uint32_t lo0 = philox_mulhilo(PHILOX_M0, c.v[0], &hi0);
	uint32_t lo1 = philox_mulhilo(PHILOX_M1, c.v[2], &hi1);
	philox4x32_ctr r;
	r.v[0] = hi1 ^ c.v[1] ^ k.v[0];
	r.v[1] = lo1;
	r.v[2] = hi0 ^ c.v[3] ^ k.v[1];
	r.v[3] = lo0;
	return r;
}

/* Philox4x32 with R rounds (10 is the standard, used everywhere here). */
RT_HD philox4x32_ctr philox4x32_R(int rounds, philox4x32_ctr c, philox2x32_key k)
{
	for (int i = 0; i < rounds; i++) {
		if (i > 0) {
			k.v[0] += PHILOX_W0;
			k.v[1] += PHILOX_W1;
		}
		c = philox4x32_round(c, k);
	}
	return c;
}

RT_HD philox4x32_ctr philox4x32_10(philox4x32_ctr c, philox2x32_key k)
{
	return philox4x32_R(10, c, k);
}

/* Four draws for (seed, stream, block n). */
RT_HD philox4x32_ctr philox_block(uint64_t seed, uint64_t stream, uint64_t n)
{
	philox4x32_ctr c;
	philox2x32_key k;
	c.v[0] = (uint32_t)n;
	c.v[1] = (uint32_t)(n >> 32);
	c.v[2] = (uint32_t)stream;
	c.v[3] = (uint32_t)(stream >> 32);
	k.v[0] = (uint32_t)seed;
	k.v[1] = (uint32_t)(seed >> 32);
	return philox4x32_10(c, k);
}

/* Uniform float in [0, 1): the top 24 bits, exactly representable. */
RT_HD float philox_u01f(uint32_t x)
{
	return (float)(x >> 8) * (1.0f / 16777216.0f);
}

/* Uniform double in [0, 1) from two draws (53 bits). */
RT_HD double philox_u01d(uint32_t a, uint32_t b)
{
	uint64_t m = ((uint64_t)(a >> 5) << 26) | (uint64_t)(b >> 6);
	return (double)m * (1.0 / 9007199254740992.0);
}

/* Integer in [0, n) by multiply-shift (Lemire, without the rejection step:
 * bias below 2^-32 * n, irrelevant for population indices). */
RT_HD uint32_t philox_below(uint32_t x, uint32_t n)
{
	return (uint32_t)(((uint64_t)x * (uint64_t)n) >> 32);
}

/* A stream of draws: (seed, stream) at block counter `counter`, handed out
 * four at a time. The host's rt_rng (runtime/rng.h) is this type, so code
 * compiled for both (GP breeding, templates/gp/gp_breed.h) draws the same
 * numbers in the same order on the CPU and the GPU. Doubles from the
 * stream are exact on both when the device code is compiled with
 * --fmad=false (no contraction of philox_stream_range). */
typedef struct philox_stream {
	uint64_t seed, stream;
	uint64_t counter;   /* next block of four to compute */
	uint32_t buf[4];
	int used;           /* how many of buf were handed out (4 = empty) */
} philox_stream;

RT_HD void philox_stream_init(philox_stream *s, uint64_t seed, uint64_t stream)
{
	s->seed = seed;
	s->stream = stream;
	s->counter = 0;
	s->used = 4;
}

RT_HD uint32_t philox_stream_u32(philox_stream *s)
{
	if (s->used == 4) {
		philox4x32_ctr r = philox_block(s->seed, s->stream, s->counter++);
		for (int i = 0; i < 4; i++)
			s->buf[i] = r.v[i];
		s->used = 0;
	}
	return s->buf[s->used++];
}

RT_HD double philox_stream_u01d(philox_stream *s)
{
	uint32_t a = philox_stream_u32(s);
	return philox_u01d(a, philox_stream_u32(s));
}

/* Uniform in [lo, hi). */
RT_HD double philox_stream_range(philox_stream *s, double lo, double hi)
{
	return lo + (hi - lo) * philox_stream_u01d(s);
}

/* Uniform integer in [0, n), n > 0, without bias (Lemire's nearly
 * divisionless method with rejection). */
RT_HD uint32_t philox_stream_below(philox_stream *s, uint32_t n)
{
	uint64_t m = (uint64_t)philox_stream_u32(s) * n;
	uint32_t low = (uint32_t)m;
	if (low < n) {
		uint32_t threshold = (uint32_t)(0u - n) % n;
		while (low < threshold) {
			m = (uint64_t)philox_stream_u32(s) * n;
			low = (uint32_t)m;
		}
	}
	return (uint32_t)(m >> 32);
}

#endif
