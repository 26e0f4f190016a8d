/* gp_eval_cpu.c: the CPU evaluators of packed GP populations: the 1-D stack
 * RPN baseline (one case at a time, one thread) and the 2-D stack
 * interpreters (LGP, and RPN as a second baseline) that apply each
 * instruction to a block of fitness cases with loops gcc vectorises,
 * threaded over (program, chunk of cases) work items.
 *
 * Why blocks: an interpreter pays for decoding an instruction once per case
 * in the 1-D form; here it pays once per block (hundreds of cases), and the
 * work per case is a vector loop over a stack row that stays in L1. The
 * kernels and the block interpreter are templates/gp/gp_eval_cpu.h (shared with
 * the generated, problem-specialised CPU source); this file adds the RPN
 * baselines, validation, threading and the fitness sums. LGP operands X and
 * C are read in place (input column, broadcast constant): terminals cost no
 * stack traffic, which is the LGP form's advantage over 2-D RPN.
 *
 * The hot code is compiled twice (AVX2, the build's base, and AVX-512 with
 * 512-bit vectors) and chosen at run time with __builtin_cpu_supports. Work
 * items write partial sums into their own slots, which are added in a fixed
 * order, so results do not depend on the thread count or schedule.
 *
 * Block size (GP_EVAL_BLOCK_DEFAULT): measured on a 2-core AMD EPYC (Zen 4)
 * with sextic and Shuttle populations, 1024 cases (4 KB rows) was fastest or
 * tied: 256 loses 15-20% and 512 about 5% to per-instruction decoding; 2048
 * gains nothing (Shuttle, with 9 input columns, loses 12%). */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cpu.h"
#include "gp_scale.h"
#include "gp_eval.h"
#include "gp/gp_eval_cpu.h"

/* ---- the operation table ------------------------------------------------- */

static int op_is_float(unsigned op) { return op < GP_NFLOAT_OPS; }
static int op_is_bool(unsigned op) { return op >= GP_NFLOAT_OPS && op < GP_OP_COUNT; }

/* ---- methods --------------------------------------------------------------- */

static const char *const method_names[GP_EVAL_METHOD_COUNT] = {"rpn1d", "lgp2d", "rpn2d"};

const char *gp_eval_method_name(int method)
{
	return method >= 0 && method < GP_EVAL_METHOD_COUNT ? method_names[method] : "?";
}

rt_status gp_eval_method_parse(const char *s, int *method, rt_error *err)
{
	for (int m = 0; m < GP_EVAL_METHOD_COUNT; m++)
		if (strcmp(s, method_names[m]) == 0) {
			*method = m;
			return RT_OK;
		}
	return rt_fail(err, RT_ERR_INPUT, "unknown GP evaluator '%s' (expected rpn1d, lgp2d or rpn2d)",
		       s);
}

int gp_eval_method_form(int method) { return method == GP_EVAL_LGP2D ? GP_FORM_LGP : GP_FORM_RPN; }

/* ---- validation ------------------------------------------------------------ */

/* Checks one program; sets *depth to the stack depth it needs. */
static rt_status check_program(const gp_packed *pop, const gp_cases *cases, int p, int *depth,
			       rt_error *err)
{
	int is_bool = cases->fitness == GP_FIT_BOOL;
	uint32_t begin = pop->offset[p], end = pop->offset[p + 1];
	long sp = 0, maxsp = 0;
	if (end < begin || (pop->cap_code && end > pop->cap_code))
		return rt_fail(err, RT_ERR_INPUT, "program %d: bad code range [%u, %u)", p, begin, end);
	if (pop->form == GP_FORM_RPN) {
		for (uint32_t i = begin; i < end; i++) {
			const gp_node *nd = &pop->rpn[i];
			if (nd->op == GP_TERM_VAR || nd->op == GP_TERM_CONST) {
				if (nd->op == GP_TERM_VAR && nd->var >= cases->ninputs)
					return rt_fail(err, RT_ERR_INPUT,
						       "program %d node %u: input X%u, but the problem has %d",
						       p, i - begin, nd->var, cases->ninputs);
				sp++;
			} else if (is_bool ? op_is_bool(nd->op) : op_is_float(nd->op)) {
				if (sp < op_arity[nd->op])
					return rt_fail(err, RT_ERR_INPUT,
						       "program %d node %u: stack underflow", p, i - begin);
				sp -= op_arity[nd->op] - 1;
			} else {
				return rt_fail(err, RT_ERR_INPUT, "program %d node %u: opcode %u is not a %s operation",
					       p, i - begin, nd->op, is_bool ? "Boolean" : "float");
			}
			if (sp > maxsp)
				maxsp = sp;
		}
	} else {
		uint32_t nconsts;
		if (!pop->const_offset || pop->const_offset[p + 1] < pop->const_offset[p] ||
		    (pop->cap_consts && pop->const_offset[p + 1] > pop->cap_consts))
			return rt_fail(err, RT_ERR_INPUT, "program %d: bad constant range", p);
		nconsts = pop->const_offset[p + 1] - pop->const_offset[p];
		if (end == begin)
			return rt_fail(err, RT_ERR_INPUT, "program %d: no instructions", p);
		for (uint32_t i = begin; i < end; i++) {
			gp_insn in = pop->lgp[i];
			int ar, ns = 0;
			if (!(is_bool ? op_is_bool(in.op) : op_is_float(in.op)))
				return rt_fail(err, RT_ERR_INPUT,
					       "program %d instruction %u: opcode %u is not a %s operation",
					       p, i - begin, in.op, is_bool ? "Boolean" : "float");
			ar = op_arity[in.op];
			for (int k = 0; k < ar; k++) {
				unsigned kind = GP_INSN_KIND(in, k);
				if (kind == GP_SRC_S)
					ns++;
				else if (kind == GP_SRC_X && in.arg[k] >= cases->ninputs)
					return rt_fail(err, RT_ERR_INPUT,
						       "program %d instruction %u: input X%u, but the problem has %d",
						       p, i - begin, in.arg[k], cases->ninputs);
				else if (kind == GP_SRC_C && in.arg[k] >= nconsts)
					return rt_fail(err, RT_ERR_INPUT,
						       "program %d instruction %u: constant %u of %u",
						       p, i - begin, in.arg[k], nconsts);
				else if (kind > GP_SRC_C)
					return rt_fail(err, RT_ERR_INPUT,
						       "program %d instruction %u: bad operand kind %u",
						       p, i - begin, kind);
			}
			if (sp < ns)
				return rt_fail(err, RT_ERR_INPUT, "program %d instruction %u: stack underflow",
					       p, i - begin);
			sp += 1 - ns;
			if (sp > maxsp)
				maxsp = sp;
		}
	}
	if (sp != 1)
		return rt_fail(err, RT_ERR_INPUT, "program %d leaves %ld values on the stack (expected 1)",
			       p, sp);
	if (maxsp > 65535)
		return rt_fail(err, RT_ERR_INPUT, "program %d needs a stack of %ld", p, maxsp);
	*depth = (int)maxsp;
	return RT_OK;
}

static rt_status check_cases(const gp_cases *c, rt_error *err)
{
	if (!c)
		return rt_fail(err, RT_ERR_INPUT, "no fitness cases");
	if (c->ninputs < 0 || c->ninputs > 65535)
		return rt_fail(err, RT_ERR_INPUT, "bad input count %d", c->ninputs);
	if (c->scale && c->fitness != GP_FIT_MSE)
		return rt_fail(err, RT_ERR_INPUT, "linear scaling on cases that are not mse fitness");
	switch (c->fitness) {
	case GP_FIT_MSE:
	case GP_FIT_CLASS:
		if (c->ncases == 0)
			return RT_OK;
		if (c->stride < c->ncases || (!c->x && c->ninputs > 0) || !c->y)
			return rt_fail(err, RT_ERR_INPUT, "fitness cases: stride %zu for %zu cases, or no data",
				       c->stride, c->ncases);
		if (c->fitness == GP_FIT_CLASS && c->nclasses < 1)
			return rt_fail(err, RT_ERR_INPUT, "classification with %d classes", c->nclasses);
		return RT_OK;
	case GP_FIT_BOOL:
		if (c->nwords == 0)
			return RT_OK;
		if ((!c->bits && c->ninputs > 0) || !c->target)
			return rt_fail(err, RT_ERR_INPUT, "Boolean fitness cases without data");
		return RT_OK;
	default:
		return rt_fail(err, RT_ERR_INPUT, "unknown fitness kind %d", c->fitness);
	}
}

/* Validates everything; *maxdepth: the deepest stack any program needs. */
static rt_status validate(const gp_packed *pop, const gp_cases *cases, int *maxdepth, rt_error *err)
{
	int deepest = 1;
	rt_status st;
	if (!pop || pop->nprogs < 0 || (pop->nprogs > 0 && !pop->offset))
		return rt_fail(err, RT_ERR_INPUT, "no packed population");
	if ((st = check_cases(cases, err)) != RT_OK)
		return st;
	if (pop->form != GP_FORM_RPN && pop->form != GP_FORM_LGP)
		return rt_fail(err, RT_ERR_INPUT, "unknown packed form %d", pop->form);
	if (pop->nprogs > 0 && (pop->form == GP_FORM_RPN ? !pop->rpn : !pop->lgp) &&
	    pop->offset[pop->nprogs] > 0)
		return rt_fail(err, RT_ERR_INPUT, "packed population without code");
	for (int p = 0; p < pop->nprogs; p++) {
		int d;
		if ((st = check_program(pop, cases, p, &d, err)) != RT_OK)
			return st;
		if (d > deepest)
			deepest = d;
	}
	*maxdepth = deepest;
	return RT_OK;
}

rt_status gp_eval_validate(const gp_packed *pop, const gp_cases *cases, rt_error *err)
{
	int d;
	return validate(pop, cases, &d, err);
}

/* RPN program on one block (the 2-D stack RPN baseline): terminals are
 * copied into stack rows, functions pop rows and push their result. */
AI_ const float *rpn_block_f(const gp_node *code, uint32_t nnodes, const float *x, size_t stride,
			     block_ref blk, float **slot)
{
	uint32_t sp = 0;
	for (uint32_t k = 0; k < nnodes; k++) {
		gp_node nd = code[k];
		float *o = slot[sp], *t;
		if (nd.op == GP_TERM_VAR) {
			memcpy(o, x + nd.var * stride + blk.off, (size_t)blk.n * sizeof(float));
			sp++;
		} else if (nd.op == GP_TERM_CONST) {
			fill_f(o, nd.value, blk.n);
			sp++;
		} else {
			int ar = op_arity[nd.op];
			uint32_t base = sp - (uint32_t)ar;
			operand_f v[3] = {{NULL, 0.0f}, {NULL, 0.0f}, {NULL, 0.0f}};
			for (int j = 0; j < ar; j++)
				v[j].row = slot[base + (uint32_t)j];
			apply_f(nd.op, o, v, blk.n);
			t = slot[base];
			slot[base] = o;
			slot[sp] = t;
			sp = base + 1;
		}
	}
	return slot[0];
}

AI_ const uint32_t *rpn_block_u(const gp_node *code, uint32_t nnodes, const uint32_t *bits,
				size_t nwords, block_ref blk, uint32_t **slot)
{
	uint32_t sp = 0;
	for (uint32_t k = 0; k < nnodes; k++) {
		gp_node nd = code[k];
		uint32_t *o = slot[sp], *t;
		if (nd.op == GP_TERM_VAR) {
			memcpy(o, bits + nd.var * nwords + blk.off, (size_t)blk.n * sizeof(uint32_t));
			sp++;
		} else if (nd.op == GP_TERM_CONST) {
			fill_u(o, nd.value != 0.0f ? ~0u : 0u, blk.n);
			sp++;
		} else {
			int ar = op_arity[nd.op];
			uint32_t base = sp - (uint32_t)ar;
			operand_u v[3] = {{NULL, 0u}, {NULL, 0u}, {NULL, 0u}};
			for (int j = 0; j < ar; j++)
				v[j].row = slot[base + (uint32_t)j];
			apply_u(nd.op, o, v, blk.n);
			t = slot[base];
			slot[base] = o;
			slot[sp] = t;
			sp = base + 1;
		}
	}
	return slot[0];
}

/* ---- the threaded 2-D evaluators --------------------------------------------- */

typedef struct eval_job {
	const gp_packed *pop;
	const gp_cases *cases;
	int method;
	long block;         /* cases (words) per block */
	long chunk;         /* cases (words) per work item, a multiple of block */
	long nchunks;
	size_t extent;      /* cases (words) evaluated: ncases rounded up, within stride */
	size_t nvalid;      /* cases (words) scored */
	int nslots;         /* stack rows per thread (deepest stack + 1) */
	size_t per_thread;  /* scratch elements per thread */
	void *scratch;      /* threads * per_thread elements, 64-byte aligned */
	double *partial;    /* nprogs * nchunks * nsum */
	int nsum;           /* sums per work item: GP_LS_NM moments with linear scaling
			     * (gp_scale.h, gp_fitness.h), else 1 */
} eval_job;

/* Linear scaling's shifted sums over n cases into s[0..3] (gp_fitness.h's
 * gp_ls_acc about the chunk's shift k: sum d, sum d^2, sum d*yc, sum yc
 * with d = f - k, yc = (double)y - ymean), in double, 8 independent lanes
 * as block_sse. */
AI_ void block_ls(const float *restrict out, const float *restrict y, double ymean, double k,
		  long n, double *s)
{
	double l1[8] = {0}, l2[8] = {0}, ly[8] = {0}, lc[8] = {0};
	long i = 0;
	for (; i + 8 <= n; i += 8)
		for (int j = 0; j < 8; j++) {
			double d = (double)out[i + j] - k, yc = (double)y[i + j] - ymean;
			l1[j] += d;
			l2[j] += d * d;
			ly[j] += d * yc;
			lc[j] += yc;
		}
	for (; i < n; i++) {
		double d = (double)out[i] - k, yc = (double)y[i] - ymean;
		l1[0] += d;
		l2[0] += d * d;
		ly[0] += d * yc;
		lc[0] += yc;
	}
	for (int j = 0; j < 8; j++) {
		s[0] += l1[j];
		s[1] += l2[j];
		s[2] += ly[j];
		s[3] += lc[j];
	}
}

/* Work items [begin, end): item k is program k % nprogs of chunk k / nprogs. */
AI_ void eval_items(eval_job *job, long begin, long end, int thread)
{
	const gp_packed *pop = job->pop;
	const gp_cases *cs = job->cases;
	int nslots = job->nslots;
	float *fslot[nslots];
	uint32_t *uslot[nslots];
	char *mine = (char *)job->scratch + (size_t)thread * job->per_thread * sizeof(float);
	long rowlen = job->block;
	for (int s = 0; s < nslots; s++) {
		fslot[s] = (float *)mine + (size_t)s * rowlen;
		uslot[s] = (uint32_t *)mine + (size_t)s * rowlen;
	}
	float top = (float)(cs->nclasses - 1);
	uint32_t last = cs->last_mask ? cs->last_mask : ~0u;

	for (long k = begin; k < end; k++) {
		int p = (int)(k % pop->nprogs);
		long c = k / pop->nprogs;
		size_t cbeg = (size_t)c * (size_t)job->chunk;
		size_t cend = cbeg + (size_t)job->chunk < job->extent ? cbeg + (size_t)job->chunk
								      : job->extent;
		uint32_t b0 = pop->offset[p], n = pop->offset[p + 1] - b0;
		const float *consts = pop->const_offset ? pop->consts + pop->const_offset[p] : NULL;
		double acc = 0.0, ls[4] = {0.0, 0.0, 0.0, 0.0}, shift = 0.0, nls = 0.0;
		for (size_t off = cbeg; off < cend; off += (size_t)job->block) {
			block_ref blk = {off, (long)(cend - off < (size_t)job->block ? cend - off
										 : (size_t)job->block)};
			long nscore = off >= job->nvalid ? 0
				      : (long)(job->nvalid - off < (size_t)blk.n ? job->nvalid - off
										  : (size_t)blk.n);
			if (cs->fitness == GP_FIT_BOOL) {
				const uint32_t *r;
				if (job->method == GP_EVAL_LGP2D)
					r = lgp_block_u(pop->lgp + b0, n, consts, cs->bits, cs->nwords, blk,
							uslot);
				else
					r = rpn_block_u(pop->rpn + b0, n, cs->bits, cs->nwords, blk, uslot);
				acc += (double)block_bits_wrong(r, cs->target + off, nscore,
								off + (size_t)nscore == cs->nwords ? last
												  : ~0u);
			} else {
				const float *r;
				if (job->method == GP_EVAL_LGP2D)
					r = lgp_block_f(pop->lgp + b0, n, consts, cs->x, cs->stride, blk,
							fslot);
				else
					r = rpn_block_f(pop->rpn + b0, n, cs->x, cs->stride, blk, fslot);
				if (job->nsum == GP_LS_NM) {
					if (off == cbeg && nscore > 0)
						shift = (double)r[0];   /* the chunk's first output */
					block_ls(r, cs->y + off, cs->ymean, shift, nscore, ls);
					nls += (double)nscore;
				}
				else if (cs->fitness == GP_FIT_MSE)
					acc += block_sse(r, cs->y + off, nscore);
				else
					acc += (double)block_wrong(r, cs->y + off, nscore, top);
			}
		}
		double *slot = job->partial + ((size_t)p * (size_t)job->nchunks + (size_t)c) * (size_t)job->nsum;
		if (job->nsum == GP_LS_NM)
			gp_ls_moments(nls, shift, ls, slot);
		else
			slot[0] = acc;
	}
}

static void eval_items_avx2(void *ctx, long begin, long end, int thread)
{
	eval_items(ctx, begin, end, thread);
}

#if defined(__x86_64__) && defined(__GNUC__)
#define GP_HAVE_AVX512_ 1
__attribute__((target("avx512f,avx512vl,avx512bw,avx512dq,avx512cd,prefer-vector-width=512")))
static void eval_items_avx512(void *ctx, long begin, long end, int thread)
{
	eval_items(ctx, begin, end, thread);
}
#else
#define GP_HAVE_AVX512_ 0
#endif

static int cpu_has_avx512(void)
{
#if GP_HAVE_AVX512_
	__builtin_cpu_init();
	return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512vl") &&
	       __builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("avx512dq");
#else
	return 0;
#endif
}

const char *gp_eval_isa_name(int isa)
{
	if (isa == 1)
		return "avx2";
	if (isa == 2)
		return "avx512";
	return cpu_has_avx512() ? "avx512" : "avx2";
}

/* Turns the partial sums into fitness values (linear scaling: partial
 * holds GP_LS_NM moments per chunk, merged chunk by chunk in order). */
static void finish(const gp_cases *cs, const double *partial, long nchunks, int nprogs,
		   double *fitness)
{
	for (int p = 0; p < nprogs; p++) {
		double s = 0.0;
		if (gp_scale_on(cs)) {
			double m[GP_LS_NM] = {0.0, 0.0, 0.0, 0.0, 0.0};
			for (long c = 0; c < nchunks; c++)
				gp_ls_merge(m, partial + ((size_t)p * (size_t)nchunks + (size_t)c) * GP_LS_NM);
			fitness[p] = gp_scale_fitness(cs, m);
			continue;
		}
		for (long c = 0; c < nchunks; c++)
			s += partial[(size_t)p * (size_t)nchunks + (size_t)c];
		if (cs->fitness == GP_FIT_MSE) {
			s = cs->ncases ? s / (double)cs->ncases : 0.0;
			if (!(s <= 1.7976931348623157e308))   /* NaN, inf */
				s = 1.0 / 0.0;
		}
		fitness[p] = s;
	}
}

static rt_status eval_2d(const gp_packed *pop, const gp_cases *cs, int method,
			 const gp_eval_tuning *tun, int maxdepth, double *fitness, rt_error *err)
{
	eval_job job;
	int threads, old_threads = cpu_threads(), isa = tun ? tun->isa : 0;
	long block = tun && tun->block > 0 ? tun->block : GP_EVAL_BLOCK_DEFAULT, items;
	size_t units;
	rt_status st;
	cpu_range_fn fn;

	if (block % 64 != 0 || block > GP_EVAL_BLOCK_MAX)
		return rt_fail(err, RT_ERR_INPUT, "block size %ld: expected a multiple of 64 up to %d",
			       block, GP_EVAL_BLOCK_MAX);
	memset(&job, 0, sizeof job);
	job.pop = pop;
	job.cases = cs;
	job.method = method;
	job.nsum = gp_scale_on(cs) ? GP_LS_NM : 1;
	if (cs->fitness == GP_FIT_BOOL) {
		units = cs->nwords;
		job.extent = units;
		job.nvalid = units;
	} else {
		units = cs->ncases;
		job.extent = (units + 63) / 64 * 64;
		if (job.extent > cs->stride)
			job.extent = cs->stride;
		job.nvalid = units;
	}
	if (pop->nprogs == 0)
		return RT_OK;
	if (units == 0) {
		finish(cs, NULL, 0, pop->nprogs, fitness);
		return RT_OK;
	}
	if (tun && tun->threads > 0)
		cpu_set_threads(tun->threads);
	threads = cpu_threads();
	if ((size_t)block > job.extent)
		block = (long)((job.extent + 63) / 64 * 64);
	job.block = block;
	/* Chunks: a whole number of blocks whose input columns (all of them, as
	 * programs differ in which they read) fit in half of a 1 MB L2, at most
	 * 64 blocks, and few enough blocks that there are 8 work items per
	 * thread. Work items go chunk by chunk, all programs of a chunk in turn,
	 * so a chunk's inputs are read from memory once, not once per program
	 * (KDD Cup's 41 columns are 81 MB). */
	{
		size_t nblocks = (job.extent + (size_t)block - 1) / (size_t)block;
		size_t want = (size_t)threads * 8 / (size_t)pop->nprogs + 1;
		size_t per = (nblocks + want - 1) / want;
		size_t bytes_per_block = (size_t)(cs->ninputs > 0 ? cs->ninputs : 1) * (size_t)block * 4;
		size_t fit = (512u << 10) / bytes_per_block;
		if (per > fit)
			per = fit;
		if (per > 64)
			per = 64;
		if (per < 1)
			per = 1;
		job.chunk = (long)per * block;
		job.nchunks = (long)((job.extent + (size_t)job.chunk - 1) / (size_t)job.chunk);
	}
	job.nslots = maxdepth + 1;
	job.per_thread = (size_t)job.nslots * (size_t)block + 16;
	job.per_thread = (job.per_thread + 15) / 16 * 16;
	items = (long)pop->nprogs * job.nchunks;
	job.partial = rt_malloc((size_t)items * (size_t)job.nsum * sizeof(double), err);
	job.scratch = job.partial ? aligned_alloc(64, (size_t)threads * job.per_thread * sizeof(float))
				  : NULL;
	if (!job.partial || !job.scratch) {
		free(job.partial);
		if (tun && tun->threads > 0)
			cpu_set_threads(old_threads);
		return job.partial ? rt_fail(err, RT_ERR_SYSTEM, "out of memory (evaluator scratch)")
				   : RT_ERR_SYSTEM;
	}
	fn = eval_items_avx2;
#if GP_HAVE_AVX512_
	if (isa == 2 || (isa == 0 && cpu_has_avx512()))
		fn = eval_items_avx512;
#endif
	if (isa == 2 && !cpu_has_avx512()) {
		st = rt_fail(err, RT_ERR_UNSUPPORTED, "this CPU has no AVX-512");
	} else {
		st = cpu_parallel_for(items, 1, fn, &job, err);
		if (st == RT_OK)
			finish(cs, job.partial, job.nchunks, pop->nprogs, fitness);
	}
	free(job.scratch);
	free(job.partial);
	if (tun && tun->threads > 0)
		cpu_set_threads(old_threads);
	return st;
}

/* ---- the 1-D stack RPN baseline ---------------------------------------------
 *
 * The classic interpreter: for each program, for each case, run the postfix
 * code with a stack of scalars (Boolean: one 32-case word at a time). One
 * thread; the operations are the same table's, so outputs are identical. */

#undef GP_SIN
#undef GP_COS
#define GP_SIN(x) gp_sinf(x)
#define GP_COS(x) gp_cosf(x)

static float rpn1d_case_f(const gp_node *code, uint32_t n, const float *x, size_t stride, size_t i,
			  float *st)
{
	uint32_t sp = 0;
	for (uint32_t k = 0; k < n; k++) {
		const gp_node *nd = &code[k];
		switch (nd->op) {
		case GP_TERM_VAR:
			st[sp++] = x[nd->var * stride + i];
			break;
		case GP_TERM_CONST:
			st[sp++] = nd->value;
			break;
#define GP_RCASE_(E, name, ar, expr)                                                        \
		case GP_OP_##E: {                                                           \
			float a = st[sp - ar], b = ar > 1 ? st[sp - ar + 1] : 0.0f;         \
			float c = ar > 2 ? st[sp - ar + 2] : 0.0f;                          \
			(void)b, (void)c;                                                   \
			sp -= ar - 1;                                                       \
			st[sp - 1] = expr;                                                  \
			break;                                                              \
		}
			GP_FLOAT_OPS(GP_RCASE_)
#undef GP_RCASE_
		default:
			break;
		}
	}
	return st[0];
}

static uint32_t rpn1d_word_u(const gp_node *code, uint32_t n, const uint32_t *bits, size_t nwords,
			     size_t w, uint32_t *st)
{
	uint32_t sp = 0;
	for (uint32_t k = 0; k < n; k++) {
		const gp_node *nd = &code[k];
		switch (nd->op) {
		case GP_TERM_VAR:
			st[sp++] = bits[nd->var * nwords + w];
			break;
		case GP_TERM_CONST:
			st[sp++] = nd->value != 0.0f ? ~0u : 0u;
			break;
#define GP_RCASE_(E, name, ar, expr)                                                        \
		case GP_OP_##E: {                                                           \
			uint32_t a = st[sp - ar], b = ar > 1 ? st[sp - ar + 1] : 0u;        \
			uint32_t c = ar > 2 ? st[sp - ar + 2] : 0u;                         \
			(void)b, (void)c;                                                   \
			sp -= ar - 1;                                                       \
			st[sp - 1] = expr;                                                  \
			break;                                                              \
		}
			GP_BOOL_OPS(GP_RCASE_)
#undef GP_RCASE_
		default:
			break;
		}
	}
	return st[0];
}

static rt_status eval_rpn1d(const gp_packed *pop, const gp_cases *cs, int maxdepth, double *fitness,
			    rt_error *err)
{
	float *fst = rt_malloc((size_t)maxdepth * sizeof(float) + sizeof(float), err);
	uint32_t *ust = (uint32_t *)fst;
	float top = (float)(cs->nclasses - 1);
	uint32_t last = cs->last_mask ? cs->last_mask : ~0u;
	if (!fst)
		return RT_ERR_SYSTEM;
	for (int p = 0; p < pop->nprogs; p++) {
		const gp_node *code = pop->rpn + pop->offset[p];
		uint32_t n = pop->offset[p + 1] - pop->offset[p];
		double acc[GP_LS_NM] = {0.0, 0.0, 0.0, 0.0, 0.0};
		if (cs->fitness == GP_FIT_BOOL) {
			for (size_t w = 0; w < cs->nwords; w++) {
				uint32_t d = rpn1d_word_u(code, n, cs->bits, cs->nwords, w, ust) ^
					     cs->target[w];
				acc[0] += __builtin_popcount(w + 1 == cs->nwords ? d & last : d);
			}
		} else if (gp_scale_on(cs)) {
			double s[4] = {0.0, 0.0, 0.0, 0.0}, k = 0.0;
			for (size_t i = 0; i < cs->ncases; i++) {
				double f = (double)rpn1d_case_f(code, n, cs->x, cs->stride, i, fst);
				k = i == 0 ? f : k;   /* the shift: the first output */
				gp_ls_acc(s, f, (double)cs->y[i] - cs->ymean, k);
			}
			gp_ls_moments((double)cs->ncases, k, s, acc);
		} else if (cs->fitness == GP_FIT_MSE) {
			for (size_t i = 0; i < cs->ncases; i++) {
				double d = (double)rpn1d_case_f(code, n, cs->x, cs->stride, i, fst) -
					   (double)cs->y[i];
				acc[0] += d * d;
			}
		} else {
			for (size_t i = 0; i < cs->ncases; i++)
				acc[0] += !(gp_class_of(rpn1d_case_f(code, n, cs->x, cs->stride, i, fst), top) ==
					    cs->y[i]);
		}
		finish(cs, acc, 1, 1, &fitness[p]);
	}
	free(fst);
	return RT_OK;
}

/* ---- entry points -------------------------------------------------------------- */

rt_status gp_eval_cpu_tuned(const gp_packed *pop, const gp_cases *cases, int method,
			    const gp_eval_tuning *tun, double *fitness, rt_error *err)
{
	int maxdepth;
	rt_status st;
	if (method < 0 || method >= GP_EVAL_METHOD_COUNT)
		return rt_fail(err, RT_ERR_INPUT, "unknown GP evaluator %d", method);
	if (pop && pop->form != gp_eval_method_form(method))
		return rt_fail(err, RT_ERR_INPUT, "evaluator %s needs the population packed as %s",
			       gp_eval_method_name(method),
			       gp_eval_method_form(method) == GP_FORM_LGP ? "LGP" : "RPN");
	if ((st = validate(pop, cases, &maxdepth, err)) != RT_OK)
		return st;
	if (pop->nprogs > 0 && !fitness)
		return rt_fail(err, RT_ERR_INPUT, "no fitness array");
	if (method == GP_EVAL_RPN1D)
		return eval_rpn1d(pop, cases, maxdepth, fitness, err);
	return eval_2d(pop, cases, method, tun, maxdepth, fitness, err);
}

rt_status gp_eval_cpu(const gp_packed *pop, const gp_cases *cases, int method, double *fitness,
		      rt_error *err)
{
	return gp_eval_cpu_tuned(pop, cases, method, NULL, fitness, err);
}

/* ---- outputs (evoforge eval) ----------------------------------------------------- */

rt_status gp_eval_cpu_outputs(const gp_packed *pop, const gp_cases *cases, float *out,
			      rt_error *err)
{
	const long block = GP_EVAL_BLOCK_DEFAULT;
	int maxdepth;
	rt_status st;
	if (!pop || pop->form != GP_FORM_LGP || pop->nprogs != 1)
		return rt_fail(err, RT_ERR_INPUT, "outputs: expected one program packed as LGP");
	if (cases->fitness == GP_FIT_BOOL)
		return rt_fail(err, RT_ERR_UNSUPPORTED, "outputs: Boolean problems are not supported");
	if ((st = validate(pop, cases, &maxdepth, err)) != RT_OK)
		return st;
	float *scratch = aligned_alloc(64, (size_t)(maxdepth + 1) * (size_t)block * sizeof(float));
	float *slot[maxdepth + 1];
	if (!scratch)
		return rt_fail(err, RT_ERR_SYSTEM, "out of memory (evaluator scratch)");
	for (int s = 0; s <= maxdepth; s++)
		slot[s] = scratch + (size_t)s * (size_t)block;
	for (size_t off = 0; off < cases->ncases; off += (size_t)block) {
		size_t valid = cases->ncases - off < (size_t)block ? cases->ncases - off : (size_t)block;
		/* Whole 64-case groups, as the fitness evaluators run them (padding is zeros). */
		block_ref blk = {off, (long)((valid + 63) / 64 * 64)};
		if (off + (size_t)blk.n > cases->stride)
			blk.n = (long)(cases->stride - off);
		const float *r = lgp_block_f(pop->lgp + pop->offset[0], pop->offset[1] - pop->offset[0],
					     pop->consts + pop->const_offset[0], cases->x,
					     cases->stride, blk, slot);
		memcpy(out + off, r, valid * sizeof(float));
	}
	free(scratch);
	return RT_OK;
}
