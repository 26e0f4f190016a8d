/* gp_eval_cpu.c (template): the CPU 2-D stack LGP interpreter specialised by
 * runtime/gp/gp_gen.c to one problem's function set and fitness kind (the same
 * core as the runtime's evaluator, templates/gp/gp_eval_cpu.h, with only the
 * problem's operations in the dispatch). A single-threaded entry point over a
 * range of programs; the caller threads over ranges. Compile with
 *   cc -std=c11 -O3 -march=native -fno-trapping-math -ffp-contract=off -c
 * Inputs are laid out as in runtime/gp/gp_prog.h (gp_cases, gp_packed). */
#include "gp_eval_cpu.h"

#if !defined(GP_FITNESS)
#  define GP_FITNESS 0
#endif
#if !defined(GP_STACK)
#  define GP_STACK 32
#endif
#if !defined(GP_CPU_BLOCK)
#  define GP_CPU_BLOCK 512
#endif

/* Fitness of programs [p0, p1) (fitness[p - p0]) on every case. x: ninputs
 * columns of `stride` floats (Boolean: words), y: targets (Boolean: target
 * words); ncases: cases (Boolean: words, the last masked by last_mask).
 * Returns 0, or -1 when a program needs a stack deeper than GP_STACK. */
int gp_eval_lgp_cpu(int p0, int p1, const uint32_t *offset, const gp_insn *code,
		    const uint32_t *const_offset, const float *consts, const void *x,
		    const void *y, size_t ncases, size_t stride, uint32_t last_mask, int nclasses,
		    double *fitness);

int gp_eval_lgp_cpu(int p0, int p1, const uint32_t *offset, const gp_insn *code,
		    const uint32_t *const_offset, const float *consts, const void *x,
		    const void *y, size_t ncases, size_t stride, uint32_t last_mask, int nclasses,
		    double *fitness)
{
	static _Thread_local float rows[GP_STACK + 1][GP_CPU_BLOCK] __attribute__((aligned(64)));
	float *fslot[GP_STACK + 1];
	uint32_t *uslot[GP_STACK + 1];
	float top = (float)(nclasses - 1);
	(void)top;
	(void)last_mask;
	(void)fslot;
	(void)uslot;
	for (int s = 0; s <= GP_STACK; s++) {
		fslot[s] = rows[s];
		uslot[s] = (uint32_t *)rows[s];
	}
	for (int p = p0; p < p1; p++) {
		const gp_insn *pc = code + offset[p];
		uint32_t n = offset[p + 1] - offset[p];
		const float *cs = consts + const_offset[p];
		double acc = 0.0;
		long sp = 0, deepest = 0;
		for (uint32_t k = 0; k < n; k++) {
			int ns = 0;
			for (int j = 0; j < op_arity[pc[k].op]; j++)
				ns += GP_INSN_KIND(pc[k], j) == GP_SRC_S;
			sp += 1 - ns;
			if (sp > deepest)
				deepest = sp;
		}
		if (deepest > GP_STACK)
			return -1;
		for (size_t off = 0; off < ncases; off += GP_CPU_BLOCK) {
			long len = ncases - off < GP_CPU_BLOCK ? (long)(ncases - off) : GP_CPU_BLOCK;
			block_ref blk = {off, len};
#if GP_FITNESS == 2
			const uint32_t *r = lgp_block_u(pc, n, cs, (const uint32_t *)x, stride, blk, uslot);
			acc += (double)block_bits_wrong(r, (const uint32_t *)y + off, len,
							off + (size_t)len == ncases ? last_mask : ~0u);
#elif GP_FITNESS == 1
			const float *r = lgp_block_f(pc, n, cs, (const float *)x, stride, blk, fslot);
			acc += (double)block_wrong(r, (const float *)y + off, len, top);
#else
			const float *r = lgp_block_f(pc, n, cs, (const float *)x, stride, blk, fslot);
			acc += block_sse(r, (const float *)y + off, len);
#endif
		}
#if GP_FITNESS == 0
		acc = ncases ? acc / (double)ncases : 0.0;
		if (!(acc <= 1.7976931348623157e308))
			acc = 1.0 / 0.0;
#endif
		fitness[p - p0] = acc;
	}
	return 0;
}
