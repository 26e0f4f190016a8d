/* mbp_core.h: the arithmetic of kind `mbp` (multiple back-propagation), shared
 * by the CPU path (runtime/mbp/mbp_cpu.c) and the generated CUDA kernels
 * (templates/mbp/mbp.cu), so that both compute every value by the same
 * sequence of float operations (host -ffp-contract=off, NVRTC --fmad=false):
 * the two backends train bit-identical networks.
 *
 * Network (Lopes & Ribeiro): inputs -> h1 -> [h2] -> outputs. With a space
 * network (MBP), h1 neurons have selective activation: y_j = m_j * F(a_j),
 * where m_j = G(b_j) and b_j is a neuron of the space network fed by the same
 * inputs. Without one (BP), y_j = F(a_j).
 *
 * Weights of one network, one flat array, each neuron's row starting with its
 * bias: main layer 1 [h1][ni+1], main layer 2 [h2][h1+1] (if h2), output
 * [no][nlast+1], then space [h1][ni+1] (if space).
 *
 * The gradient g of a weight is the descent direction -dE/dw with
 * E = 1/2 sum (t - y)^2, averaged over the patterns of a correction batch:
 * chunk sums (consecutive MBP_CHUNK patterns of the batch, each summed in
 * pattern order) are added in chunk order and divided by the batch size.
 * A weight is corrected as the MBP software's CUDA kernels do: the step size
 * eta (when adapted: rule.adapt) grows by u when g keeps the sign of the previous g, shrinks by d when
 * it flips (kept when either is 0), is capped at max_step; v = g + momentum v;
 * w += eta v; a non-finite w is not stored, and then v and the previous g are
 * zeroed (and eta multiplied by the robustness reduction when robust). */
#ifndef EVO_MBP_CORE_H
#define EVO_MBP_CORE_H

#include "common.h"

enum mbp_activation { MBP_SIGMOID = 0, MBP_TANH = 1, MBP_LINEAR = 2 };

/* The shape of a network and where each layer's weights start. */
typedef struct mbp_shape {
	int ni, h1, h2, no;    /* h2 = 0: one hidden layer */
	int space;             /* 1: MBP (space network, selective h1); 0: BP */
	int act_hidden, act_output, act_space;
	int off_w1, off_w2, off_wo, off_ws, nweights;
	int nlast;             /* neurons feeding the output layer (h2 or h1) */
} mbp_shape;

/* The training rule's constants. */
typedef struct mbp_rule {
	float up, down, max_step, momentum;
	float growth;          /* 1 + robustness tolerance */
	float reduction;       /* step sizes are multiplied by this on a restore */
	int robust;
	int adapt;             /* 1: adapt step sizes (u, d); 0: keep them fixed */
} mbp_rule;

RT_HD void mbp_shape_layout(mbp_shape *s)
{
	s->nlast = s->h2 > 0 ? s->h2 : s->h1;
	s->off_w1 = 0;
	s->off_w2 = s->h1 * (s->ni + 1);
	s->off_wo = s->off_w2 + (s->h2 > 0 ? s->h2 * (s->h1 + 1) : 0);
	s->off_ws = s->off_wo + s->no * (s->nlast + 1);
	s->nweights = s->off_ws + (s->space ? s->h1 * (s->ni + 1) : 0);
}

/* exp(x) from basic float operations only (no libm, no special-function
 * unit), so the host and the device round alike: x = n ln2 + r with a
 * two-part ln2, a degree-6 Taylor polynomial on |r| <= ln2/2 (relative error
 * below 2e-7), scaled by 2^n through the exponent bits. */
RT_HD float mbp_expf(float x)
{
	float n, r, p;
	union { float f; uint32_t u; } scale;
	if (x > 88.0f)
		x = 88.0f;
	if (x < -87.0f)
		x = -87.0f;
	n = (float)(int)(x * 1.44269504f + (x >= 0.0f ? 0.5f : -0.5f));
	r = x - n * 0.693145752f;
	r = r - n * 1.42860677e-6f;
	p = 1.0f / 720.0f;
	p = p * r + 1.0f / 120.0f;
	p = p * r + 1.0f / 24.0f;
	p = p * r + 1.0f / 6.0f;
	p = p * r + 0.5f;
	p = p * r + 1.0f;
	p = p * r + 1.0f;
	scale.u = (uint32_t)((int)n + 127) << 23;
	return p * scale.f;
}

/* The activation F(a) and its derivative expressed through y = F(a). */
RT_HD float mbp_activate(int act, float a)
{
	if (act == MBP_SIGMOID)
		return 1.0f / (1.0f + mbp_expf(-a));
	if (act == MBP_TANH)
		return 1.0f - 2.0f / (mbp_expf(2.0f * a) + 1.0f);
	return a;
}

RT_HD float mbp_derivative(int act, float y)
{
	if (act == MBP_SIGMOID)
		return y * (1.0f - y);
	if (act == MBP_TANH)
		return (1.0f - y) * (1.0f + y);
	return 1.0f;
}

/* The lowest and highest output of an activation (targets are scaled into
 * it; linear uses [-1, 1]). */
RT_HD void mbp_activation_range(int act, float *lo, float *hi)
{
	*lo = act == MBP_SIGMOID ? 0.0f : -1.0f;
	*hi = 1.0f;
}

/* A neuron's input: bias + sum of weight x input, in input order. */
RT_HD float mbp_neuron_sum(const float *row, const float *in, int n)
{
	float s = row[0];
#if defined(__CUDACC__)
#pragma unroll 8
#endif
	for (int i = 0; i < n; i++)
		s = s + row[1 + i] * in[i];
	return s;
}

/* Back-propagated error of neuron k of a layer: sum over the next layer's
 * neurons j (in order) of w[j][1 + k] * delta[j]; the next layer's rows are
 * `stride` floats apart. */
RT_HD float mbp_backsum(const float *next_w, int stride, int k, const float *delta, int nnext)
{
	float s = 0.0f;
	for (int j = 0; j < nnext; j++)
		s = s + next_w[j * stride + 1 + k] * delta[j];
	return s;
}

/* Local gradient of an output neuron; *sq gets the squared error. */
RT_HD float mbp_output_delta(int act, float y, float t, float *sq)
{
	float e = t - y;
	*sq = e * e;
	return e * mbp_derivative(act, y);
}

/* Local gradients of a selective h1 neuron with back-propagated error e,
 * F(a) = f and importance m: the main neuron's and the space neuron's. */
RT_HD float mbp_selective_delta(int act_hidden, float e, float m, float f)
{
	return e * m * mbp_derivative(act_hidden, f);
}

RT_HD float mbp_space_delta(int act_space, float e, float m, float f)
{
	return e * f * mbp_derivative(act_space, m);
}

/* ---- one neuron of one pattern, as both backends compute it ------------------ */

/* h1 neuron j for input x: F(a) into *f, the importance into *m (1 without a
 * space network) and the output y = m F(a) into *y. */
RT_HD void mbp_fire_h1(const mbp_shape *s, const float *w, const float *x, int j, float *f,
		       float *m, float *y)
{
	float fa = mbp_activate(s->act_hidden, mbp_neuron_sum(w + s->off_w1 + j * (s->ni + 1), x, s->ni));
	float mm = 1.0f;
	if (s->space)
		mm = mbp_activate(s->act_space, mbp_neuron_sum(w + s->off_ws + j * (s->ni + 1), x, s->ni));
	*f = fa;
	*m = mm;
	*y = s->space ? mm * fa : fa;
}

/* h2 neuron k fed by the h1 outputs y1. */
RT_HD float mbp_fire_h2(const mbp_shape *s, const float *w, const float *y1, int k)
{
	return mbp_activate(s->act_hidden, mbp_neuron_sum(w + s->off_w2 + k * (s->h1 + 1), y1, s->h1));
}

/* Output neuron o fed by the last hidden layer's outputs: its output, and
 * (for target t) its local gradient and squared error. */
RT_HD float mbp_fire_output(const mbp_shape *s, const float *w, const float *ylast, int o)
{
	return mbp_activate(s->act_output,
			    mbp_neuron_sum(w + s->off_wo + o * (s->nlast + 1), ylast, s->nlast));
}

/* Local gradient of h2 neuron k (output y2) from the output deltas. */
RT_HD float mbp_delta_h2(const mbp_shape *s, const float *w, const float *dout, float y2, int k)
{
	float e = mbp_backsum(w + s->off_wo, s->nlast + 1, k, dout, s->no);
	return e * mbp_derivative(s->act_hidden, y2);
}

/* Local gradients of h1 neuron j (main into *d, space into *ds) from the
 * deltas of the layer above (h2 or the outputs). */
RT_HD void mbp_delta_h1(const mbp_shape *s, const float *w, const float *dnext, float f, float m,
			int j, float *d, float *ds)
{
	float e;
	if (s->h2 > 0)
		e = mbp_backsum(w + s->off_w2, s->h1 + 1, j, dnext, s->h2);
	else
		e = mbp_backsum(w + s->off_wo, s->h1 + 1, j, dnext, s->no);
	if (s->space) {
		*d = mbp_selective_delta(s->act_hidden, e, m, f);
		*ds = mbp_space_delta(s->act_space, e, m, f);
	} else {
		*d = e * mbp_derivative(s->act_hidden, f);
		*ds = 0.0f;
	}
}

/* Same direction? +1, opposite -1, either zero 0. */
RT_HD int mbp_direction(float a, float b)
{
	float p = a * b;
	return (p > 0.0f) - (p < 0.0f);
}

/* Corrects one weight with gradient g (already averaged). State: *w, step
 * size *eta, momentum memory *v, previous gradient *gprev. */
RT_HD void mbp_correct(const mbp_rule *r, float g, float *w, float *eta, float *v, float *gprev)
{
	int dir = r->adapt ? mbp_direction(*gprev, g) : 0;
	float e = *eta, vv, nw;
	if (dir > 0)
		e = e * r->up;
	else if (dir < 0)
		e = e * r->down;
	if (e > r->max_step)
		e = r->max_step;
	*gprev = g;
	vv = g + r->momentum * *v;
	nw = *w + e * vv;
	if (nw - nw != 0.0f) {       /* inf or NaN */
		*v = 0.0f;
		*gprev = 0.0f;
		if (r->robust)
			e = e * r->reduction;
	} else {
		*v = vv;
		*w = nw;
	}
	*eta = e;
}

/* Robustness decision after an epoch's RMS: 1 save the weights as the best,
 * -1 restore the best (and shrink steps, zero memories), 0 nothing. */
RT_HD int mbp_robust_decision(const mbp_rule *r, float rms, float best)
{
	if (rms < best)
		return 1;
	if (r->robust && rms >= best * r->growth)
		return -1;
	return 0;
}

/* ---- pattern order: a keyed pseudo-random permutation ------------------------
 * Online and mini-batch epochs visit the training patterns in a fresh order,
 * computed per position with no table: a 4-round balanced Feistel network on
 * 2*half bits, cycle-walking into [0, n). The keys come from Philox
 * (seed, stream = network, epoch), drawn by the caller. */
/* Philox stream of network k's pattern orders (key = seed, counter = epoch);
 * stream k alone draws its initial weights. */
#define MBP_ORDER_STREAM (1ull << 63)

RT_HD uint32_t mbp_mix(uint32_t x)
{
	x ^= x >> 16;
	x *= 0x7feb352dU;
	x ^= x >> 15;
	x *= 0x846ca68bU;
	x ^= x >> 16;
	return x;
}

/* half: bits of each Feistel half, so that 4^half >= n. */
RT_HD int mbp_order_half_bits(uint32_t n)
{
	int h = 1;
	while (h < 16 && ((uint32_t)1 << (2 * h)) < n)
		h++;
	return h;
}

RT_HD uint32_t mbp_order_at(const uint32_t key[4], int half, uint32_t n, uint32_t pos)
{
	uint32_t mask = ((uint32_t)1 << half) - 1u, x = pos;
	do {
		uint32_t l = x >> half, r = x & mask;
		for (int k = 0; k < 4; k++) {
			uint32_t t = r;
			r = l ^ (mbp_mix(r ^ key[k]) & mask);
			l = t;
		}
		x = (l << half) | r;
	} while (x >= n);
	return x;
}

#endif
