/* gp_constopt_gpu.c: Levenberg-Marquardt on the constants of many GP
 * programs in one kernel launch (templates/gp/gp_lm.cu; gp_constopt.h).
 *
 * The host picks the k best programs as gp_constopt_population does, packs
 * those with fitted constants (gp_node copies whose pad byte names the
 * constant's column, program and constant offsets), launches one block per
 * program, reads the fitted constants back and lets the float fitness
 * evaluator judge each fit with gp_constopt_keep, the host path's own test.
 * The ns <= GP_CONSTOPT_MAX_CASES sampled cases (gp_constopt_case) go up
 * once, on the first call; the module is compiled on first use through
 * NVRTC's disk cache for the deepest stack seen (8, 16, 32, 64 frames). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cpu.h"
#include "gen.h"
#include "gp_conv.h"
#include "gp_constopt.h"
#include "gp_eval.h"
#include "gpu.h"
#include "nvrtc.h"

/* Deepest evaluation stack the kernel is compiled for; deeper programs
 * are fitted on the host. */
#define GPL_MAX_STACK 64
#define GPL_THREADS 128
#define GPL_TC 8

static const char *const gpl_options[] = { "--fmad=false", "-Xptxas", "-v" };

struct gp_constopt_gpu {
	const gp_cases *cases;
	gpu_info info;
	char arch[16];
	gpu_context *ctx;
	gpu_module *mod;
	gpu_timer *timer;
	int stack, ns, smem_set;
	gpu_ptr dx, dy;
	gpu_ptr buf[5];           /* nodes, prog, coff, consts, obj */
	size_t cap[5];
	double last_ms;
};

rt_status gp_constopt_gpu_render(int stack, gen_source *src, rt_error *err)
{
	char name[64];
	snprintf(name, sizeof name, "gp_lm-s%d.cu", stack);
	gen_begin(src, name, "Levenberg-Marquardt on GP constants (gpl_lm)");
	gen_define_int(src, "GPL_STACK", stack);
	gen_define_int(src, "GPL_THREADS", GPL_THREADS);
	gen_define_int(src, "GPL_TC", GPL_TC);
	rt_status st = gen_template(src, "gp/gp_lm.cu", err);
	if (st != RT_OK)
		gen_free(src);
	return st;
}

rt_status gp_constopt_gpu_open(const gp_cases *cases, gp_constopt_gpu **out, rt_error *err)
{
	*out = NULL;
	if (!cases || cases->fitness != GP_FIT_MSE)
		return rt_fail(err, RT_ERR_INPUT, "constant optimisation needs mse fitness cases");
	gp_constopt_gpu *g = rt_calloc(1, sizeof *g, err);
	if (!g)
		return err->status;
	g->cases = cases;
	*out = g;
	return RT_OK;
}

void gp_constopt_gpu_close(gp_constopt_gpu *g)
{
	if (!g)
		return;
	if (g->ctx) {
		for (int k = 0; k < 5; k++)
			gpu_free(g->ctx, g->buf[k]);
		gpu_free(g->ctx, g->dx);
		gpu_free(g->ctx, g->dy);
		gpu_timer_destroy(g->timer);
		gpu_module_unload(g->mod);
		gpu_context_close(g->ctx);
	}
	free(g);
}

double gp_constopt_gpu_last_ms(const gp_constopt_gpu *g) { return g ? g->last_ms : 0; }

rt_status gp_constopt_gpu_kernels(rt_kernel_emit emit, void *ctx, rt_error *err)
{
	rt_status st = RT_OK;
	for (int stack = 8; stack <= GPL_MAX_STACK && st == RT_OK; stack *= 2) {
		gen_source src;
		if ((st = gp_constopt_gpu_render(stack, &src, err)) != RT_OK)
			return st;
		st = emit(ctx, src.name, src.text.data, gpl_options, 3, err);
		gen_free(&src);
	}
	return st;
}

/* Compiles and loads the kernel for `stack` frames (replacing a shallower one). */
static rt_status compile(gp_constopt_gpu *g, int stack, rt_error *err)
{
	gen_source src;
	nvrtc_output out = { 0 };
	gpu_module *mod = NULL;
	rt_status st = gp_constopt_gpu_render(stack, &src, err);
	if (st != RT_OK)
		return st;
	st = nvrtc_compile(src.name, src.text.data, g->arch, gpl_options, 3, &out, err);
	if (st == RT_OK)
		st = gpu_module_load(g->ctx, out.cubin, out.size, &mod, err);
	if (st == RT_OK) {
		gpu_module_unload(g->mod);
		g->mod = mod;
		g->stack = stack;
		g->smem_set = 48 * 1024;
	}
	nvrtc_output_free(&out);
	gen_free(&src);
	return st;
}

/* The sampled cases: x input by input (float), y (double). */
static rt_status upload_cases(gp_constopt_gpu *g, rt_error *err)
{
	const gp_cases *c = g->cases;
	size_t ns = c->ncases < GP_CONSTOPT_MAX_CASES ? c->ncases : GP_CONSTOPT_MAX_CASES;
	size_t nin = c->ninputs > 0 ? (size_t)c->ninputs : 1;
	float *x = rt_calloc(nin * ns + 1, sizeof *x, err);
	double *y = x ? rt_malloc((ns + 1) * sizeof *y, err) : NULL;
	rt_status st = y ? RT_OK : err->status;
	for (size_t k = 0; y && k < ns; k++) {
		size_t i = gp_constopt_case(c->ncases, ns, k);
		for (int v = 0; v < c->ninputs; v++)
			x[(size_t)v * ns + k] = c->x[(size_t)v * c->stride + i];
		y[k] = (double)c->y[i];
	}
	if (st == RT_OK && (st = gpu_alloc_upload(g->ctx, x, (nin * ns + 1) * sizeof *x, &g->dx, err)) == RT_OK)
		st = gpu_alloc_upload(g->ctx, y, (ns + 1) * sizeof *y, &g->dy, err);
	g->ns = (int)ns;
	free(x);
	free(y);
	return st;
}

rt_status gp_constopt_gpu_ready(gp_constopt_gpu *g, rt_error *err)
{
	rt_status st;
	if (g->mod)
		return RT_OK;
	if (!g->ctx) {
		if ((st = gpu_open(err)) != RT_OK || (st = gpu_device_info(0, &g->info, err)) != RT_OK)
			return st;
		gpu_arch_name(&g->info, g->arch, sizeof g->arch);
		if ((st = gpu_context_open(0, &g->ctx, err)) != RT_OK)
			return st;
		if ((st = gpu_timer_create(g->ctx, &g->timer, err)) != RT_OK ||
		    (st = upload_cases(g, err)) != RT_OK)
			return st;
	}
	return compile(g, 8, err);
}

/* The deepest stack t's right-to-left evaluation reaches. */
static int stack_need(const gp_tree *t)
{
	int sp = 0, most = 0;
	for (int j = t->n - 1; j >= 0; j--) {
		int op = t->nodes[j].op;
		sp += op == GP_TERM_VAR || op == GP_TERM_CONST ? 1 : 1 - gp_op_arity(op);
		most = sp > most ? sp : most;
	}
	return most;
}

/* Grows device buffer k to `bytes` (contents are not kept). */
static rt_status grow(gp_constopt_gpu *g, int k, size_t bytes, rt_error *err)
{
	if (bytes <= g->cap[k])
		return RT_OK;
	gpu_free(g->ctx, g->buf[k]);
	g->buf[k] = 0;
	g->cap[k] = 0;
	rt_status st = gpu_alloc(g->ctx, bytes + bytes / 2, &g->buf[k], err);
	if (st == RT_OK)
		g->cap[k] = bytes + bytes / 2;
	return st;
}

/* The programs the kernel fits, packed. */
typedef struct gpl_batch {
	int np, mmax, smax;
	size_t nnodes;
	int *which;          /* per packed program: its index in pop */
	int (*idx)[GP_CONSTOPT_MAX_CONSTS];
	float *consts;       /* in: start values (kept as orig); out below */
	float *fitted;
	double *before, *obj;
	unsigned *prog, *coff;
	gp_node *nodes;
} gpl_batch;

static void batch_free(gpl_batch *b)
{
	free(b->which);
	free(b->idx);
	free(b->consts);
	free(b->fitted);
	free(b->before);
	free(b->obj);
	free(b->prog);
	free(b->coff);
	free(b->nodes);
}

static rt_status batch_alloc(gpl_batch *b, int k, const gp_tree *pop, const int *order,
			     rt_error *err)
{
	size_t nn = 0, kk = (size_t)k + 1, nc = kk * GP_CONSTOPT_MAX_CONSTS;
	for (int j = 0; j < k; j++)
		nn += (size_t)pop[order[j]].n;
	memset(b, 0, sizeof *b);
	if (!(b->which = rt_malloc(kk * sizeof *b->which, err)) ||
	    !(b->idx = rt_malloc(kk * sizeof *b->idx, err)) ||
	    !(b->consts = rt_malloc(nc * sizeof(float), err)) ||
	    !(b->fitted = rt_malloc(nc * sizeof(float), err)) ||
	    !(b->before = rt_malloc(kk * sizeof(double), err)) ||
	    !(b->obj = rt_malloc(kk * sizeof(double), err)) ||
	    !(b->prog = rt_malloc(kk * sizeof(unsigned), err)) ||
	    !(b->coff = rt_malloc(kk * sizeof(unsigned), err)) ||
	    !(b->nodes = rt_malloc((nn + 1) * sizeof(gp_node), err)))
		return err->status;
	b->prog[0] = b->coff[0] = 0;
	return RT_OK;
}

/* Adds t (pop index i, fitness `before`) to the batch. */
static void batch_add(gpl_batch *b, const gp_tree *t, int i, const int *idx, int m, int need,
		      double before)
{
	int p = b->np++;
	b->which[p] = i;
	b->before[p] = before;
	memcpy(b->idx[p], idx, (size_t)m * sizeof *idx);
	gp_node *nd = b->nodes + b->nnodes;
	memcpy(nd, t->nodes, (size_t)t->n * sizeof *nd);
	for (int j = 0; j < t->n; j++)
		nd[j].pad = 0;
	for (int k = 0; k < m; k++) {
		nd[idx[k]].pad = (uint8_t)(k + 1);
		b->consts[b->coff[p] + k] = t->nodes[idx[k]].value;
	}
	b->nnodes += (size_t)t->n;
	b->prog[p + 1] = (unsigned)b->nnodes;
	b->coff[p + 1] = b->coff[p] + (unsigned)m;
	b->mmax = m > b->mmax ? m : b->mmax;
	b->smax = need > b->smax ? need : b->smax;
}

/* Uploads the batch, runs the kernel, reads back the fits. */
static rt_status batch_run(gp_constopt_gpu *g, gpl_batch *b, int steps, rt_error *err)
{
	rt_status st = RT_OK;
	int stack = g->stack;
	while (stack < b->smax)
		stack *= 2;
	if (stack != g->stack && (st = compile(g, stack, err)) != RT_OK)
		return st;
	size_t nc = b->coff[b->np], ns = (size_t)g->ns, mm = (size_t)b->mmax;
	size_t smem = (2 * ns + ns * mm + 2 * mm * mm + 5 * mm) * sizeof(double) + 2 * mm * sizeof(float);
	size_t bytes[5] = { b->nnodes * sizeof(gp_node), ((size_t)b->np + 1) * sizeof(unsigned),
			    ((size_t)b->np + 1) * sizeof(unsigned), nc * sizeof(float) + 4,
			    (size_t)b->np * sizeof(double) };
	const void *src[4] = { b->nodes, b->prog, b->coff, b->consts };
	for (int k = 0; k < 5 && st == RT_OK; k++)
		if ((st = grow(g, k, bytes[k], err)) == RT_OK && k < 4)
			st = gpu_upload(g->ctx, g->buf[k], src[k], bytes[k], err);
	if (st == RT_OK && (int)smem > g->smem_set) {
		if ((st = gpu_kernel_attrs(g->mod, "gpl_lm", (int)smem, -1, err)) == RT_OK)
			g->smem_set = (int)smem;
	}
	if (st != RT_OK)
		return st;
	int ins = g->ns, mmax = b->mmax, scale = g->cases->scale != 0;
	void *args[] = { &g->buf[0], &g->buf[1], &g->buf[2], &g->buf[3], &g->buf[4], &g->dx, &g->dy,
			 &ins, &mmax, &scale, &steps };
	gpu_launch_cfg cfg = { { (unsigned)b->np, 1, 1 }, { GPL_THREADS, 1, 1 }, (unsigned)smem, NULL };
	if ((st = gpu_timer_start(g->timer, NULL, err)) != RT_OK ||
	    (st = gpu_launch(g->mod, "gpl_lm", &cfg, args, err)) != RT_OK ||
	    (st = gpu_timer_stop(g->timer, NULL, &g->last_ms, err)) != RT_OK ||
	    (st = gpu_download(g->ctx, b->fitted, g->buf[3], nc * sizeof(float), err)) != RT_OK)
		return st;
	return gpu_download(g->ctx, b->obj, g->buf[4], (size_t)b->np * sizeof(double), err);
}

/* Per-program host work over the thread pool (cpu.h), each program
 * evaluated alone as gp_constopt_tree does (so bit for bit the host path's
 * numbers): mode 0, the fitness of pop[which[i]] into out[i]; mode 1, the
 * fit of batch program i judged (gp_constopt_keep) into out[i]. */
typedef struct par_job {
	int mode;
	gp_tree *pop;
	const int *which;
	const gpl_batch *b;
	const gp_cases *cases;
	double *out;
	gp_packed *pk;       /* per thread */
	rt_error *errs;      /* per thread */
	rt_status *sts;      /* per thread */
} par_job;

static void par_body(void *ctx, long begin, long end, int thread)
{
	par_job *j = ctx;
	for (long i = begin; i < end && !j->sts[thread]; i++) {
		gp_packed *pk = &j->pk[thread];
		rt_error *e = &j->errs[thread];
		if (j->mode == 0) {
			j->sts[thread] = gp_constopt_fitness(pk, &j->pop[j->which[i]], j->cases, &j->out[i], e);
		} else {
			const gpl_batch *b = j->b;
			int m = (int)(b->coff[i + 1] - b->coff[i]);
			j->sts[thread] = gp_constopt_keep(pk, &j->pop[b->which[i]], j->cases, b->idx[i], m,
							  b->consts + b->coff[i], b->before[i], &j->out[i], e);
		}
	}
}

static rt_status par_run(par_job *j, long n, rt_error *err)
{
	int nt = cpu_threads() > 0 ? cpu_threads() : 1;
	rt_status st = RT_OK;
	if (n == 0)
		return RT_OK;
	j->pk = rt_calloc((size_t)nt, sizeof *j->pk, err);
	j->errs = j->pk ? rt_calloc((size_t)nt, sizeof *j->errs, err) : NULL;
	j->sts = j->errs ? rt_calloc((size_t)nt, sizeof *j->sts, err) : NULL;
	if (!j->sts)
		st = err->status;
	for (int t = 0; !st && t < nt; t++)
		gp_packed_init(&j->pk[t]);
	if (!st)
		st = cpu_parallel_for(n, 1, par_body, j, err);
	for (int t = 0; j->sts && t < nt; t++) {
		if (!st && j->sts[t]) {
			*err = j->errs[t];
			st = j->sts[t];
		}
		gp_packed_free(&j->pk[t]);
	}
	free(j->pk);
	free(j->errs);
	free(j->sts);
	return st;
}

/* Packs the picked programs with constants into b (their fitness before
 * in b->before); fits the deep ones on the host (gp_constopt_tree) and
 * takes the evaluator's MSE of those without constants, as the host path. */
static rt_status batch_fill(gpl_batch *b, gp_tree *pop, double *fitness,
			    int *order, int got, const gp_cases *cases, int steps,
			    rt_error *err)
{
	int nl = 0;
	rt_status st = RT_OK;
	for (int j = 0; j < got && !st; j++) {   /* the deep ones now; the rest to order[0..nl) */
		double mse;
		if (stack_need(&pop[order[j]]) <= GPL_MAX_STACK)
			order[nl++] = order[j];
		else if (!(st = gp_constopt_tree(&pop[order[j]], cases, steps, &mse, err)) &&
			 mse < fitness[order[j]])
			fitness[order[j]] = mse;
	}
	double *before = b->obj;   /* scratch until the kernel fills it */
	par_job job = { 0, pop, order, b, cases, before, NULL, NULL, NULL };
	if (st || (st = par_run(&job, nl, err)))
		return st;
	for (int j = 0; j < nl; j++) {
		gp_tree *t = &pop[order[j]];
		int idx[GP_CONSTOPT_MAX_CONSTS], m = gp_constopt_constants(t, idx);
		if (m > 0)
			batch_add(b, t, order[j], idx, m, stack_need(t), before[j]);
		else if (before[j] < fitness[order[j]])
			fitness[order[j]] = before[j];
	}
	return RT_OK;
}

/* The fits into the trees, judged by the evaluator (gp_constopt_keep). */
static rt_status batch_judge(gpl_batch *b, gp_tree *pop, double *fitness, const gp_cases *cases,
			     rt_error *err)
{
	for (int p = 0; p < b->np; p++)
		for (unsigned q = b->coff[p]; q < b->coff[p + 1]; q++)
			pop[b->which[p]].nodes[b->idx[p][q - b->coff[p]]].value = b->fitted[q];
	par_job job = { 1, pop, NULL, b, cases, b->obj, NULL, NULL, NULL };
	rt_status st = par_run(&job, b->np, err);
	for (int p = 0; !st && p < b->np; p++)
		if (b->obj[p] < fitness[b->which[p]])
			fitness[b->which[p]] = b->obj[p];
	return st;
}

rt_status gp_constopt_population_gpu(gp_constopt_gpu *g, gp_tree *pop, double *fitness, int n,
				     int k, const gp_cases *cases, int steps, rt_error *err)
{
	if (steps <= 0 || cases->ncases == 0 || k <= 0)
		return gp_constopt_population(pop, fitness, n, k, cases, steps, err);
	if (cases != g->cases)
		return rt_fail(err, RT_ERR_INTERNAL, "gp_constopt_population_gpu: other cases than at open");
	rt_status st = gp_constopt_gpu_ready(g, err);
	if (st != RT_OK)
		return st;
	int *order = rt_malloc(((size_t)(k < n ? k : n) + 1) * sizeof *order, err);
	int got = order ? gp_constopt_pick(fitness, n, k, order, err) : -1;
	gpl_batch b;
	memset(&b, 0, sizeof b);
	st = got < 0 ? err->status : RT_OK;
	if (!st && got > 0 && cases->fitness != GP_FIT_MSE)
		st = rt_fail(err, RT_ERR_INPUT, "constant optimisation needs mse fitness cases");
	if (!st && got > 0 && !(st = batch_alloc(&b, got, pop, order, err)) &&
	    !(st = batch_fill(&b, pop, fitness, order, got, cases, steps, err)) && b.np > 0 &&
	    !(st = batch_run(g, &b, steps, err)))
		st = batch_judge(&b, pop, fitness, cases, err);
	batch_free(&b);
	free(order);
	return st;
}
