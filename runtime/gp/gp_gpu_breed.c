/* gp_gpu_breed.c: the host side of GP breeding on the GPU (gp_gpu_breed.h):
 * device buffers for two generations, compiling templates/gp/gp_breed.cu,
 * and the launches of a generation:
 *   breed: plan every offspring (sizes), prefix sum of the sizes, read the
 *          total back (one sync) to size the node buffer, write every child
 *          and its nodes' depths (a warp per offspring);
 *   eval:  prefix sums of the children's instruction and constant counts,
 *          encode every program (a warp each, from the depths, where its
 *          scratch fits shared memory), read the shared memory and stack depth it
 *          needs back (one sync), then the interpreter's evaluation and the
 *          fitness download (gp_gpu_eval_encoded).
 * Everything runs on the evaluator's stream, in order. */
#include <stdlib.h>
#include <string.h>

#include "gp_prog.h"
#include "gp/gp_breed.h"
#include "gp_gpu_breed.h"
#include "log.h"
#include "nvrtc.h"

/* One generation on the device: program p is nodes[off[p] .. off[p] + size[p]),
 * depth[off[p] + k] the depth of its node k (gp_breed.h). */
typedef struct dev_pop {
	gpu_ptr nodes, depth, off, size, nfn, nconst;
	size_t ncap, dcap;    /* nodes, depths allocated */
	uint64_t total;       /* nodes used */
} dev_pop;

struct gp_gpu_breeder {
	gp_gpu *g;
	gpu_context *ctx;
	gpu_stream *stream;
	gpu_module *mod;
	gpb_params pr;
	int n, is_bool;
	uint32_t dstride;
	dev_pop pop[2];
	int cur;              /* pop[cur] is the current generation */
	gpu_ptr plans, sums, fit, insn_off, const_off, stats;
	gpu_ptr progs, code, consts;
	size_t code_cap, consts_cap;   /* instructions, constants allocated */
	uint32_t *hbuf;       /* pinned: [0, 8) scalars read back, [8, 16) the stats' reset values */
	/* Pipelined (small populations, whose worst case fits PIPELINE_NODES):
	 * buffers for the largest generation the limits allow, so a generation
	 * is bred, encoded and evaluated with one sync, the interpreter
	 * launched with the shared memory and stack of the generations before
	 * (a program needing more is encoded empty and the generation is
	 * evaluated again). Otherwise the host reads the sizes it needs. */
	int pipelined;
	int exact_next;       /* the next evaluation reads its needs first */
	uint32_t smem_launch, need_launch;
	uint32_t enc_cap;     /* gpb_encode_warp_k: nodes a warp's scratch holds (0: not used) */
	unsigned enc_warps;   /* its warps a block */
	gpu_timer *timer;     /* non-NULL: each breeding kernel timed (gp_gpu_breeder_profile) */
	double kernel_ms[3];  /* plan, emit, encode: milliseconds so far */
};

/* Nodes of one generation's worst case (population x max_size) up to which
 * breeding is pipelined: 16M nodes, 128 MB a generation. */
#define PIPELINE_NODES (16u << 20)
/* Evaluations longer than this read the programs' needs before launching
 * (one more sync) rather than risk launching twice. */
#define EXACT_ABOVE_MS 2.0
/* Shared memory a block of gpb_encode_warp_k may use without opting in,
 * and its most warps a block (the kernel's launch bound, GPB_WT / 32). */
#define ENC_SMEM_MAX (48u << 10)
#define ENC_WARPS_MAX 4u

_Static_assert(GP_NAMED_COUNT <= 4, "gpb_params.named holds every named constant");

static const char *const breed_options[] = { "--fmad=false" };

static rt_status grow_room(gp_gpu_breeder *b, dev_pop *d, uint64_t nodes, rt_error *err);

void gp_gpu_breed_params(const gp_fset *fs, const gp_breed *br, int n, gpb_params *pr)
{
	memset(pr, 0, sizeof *pr);
	pr->n = n;
	pr->elite = -1;
	pr->max_depth = br->max_depth;
	pr->max_size = br->max_size;
	pr->mutation_depth = br->mutation_depth;
	pr->tournament = br->tournament;
	pr->crossover = br->crossover;
	pr->mutation = br->mutation;
	pr->point_mutation = br->point_mutation;
	pr->crossover_internal = br->crossover_internal;
	pr->parsimony = br->parsimony;
	pr->parsimony_coefficient = br->parsimony_coefficient;
	pr->nfuncs = fs->nfuncs;
	for (int i = 0; i < fs->nfuncs && i < (int)sizeof pr->funcs; i++)
		pr->funcs[i] = fs->funcs[i];
	pr->ninputs = fs->ninputs;
	pr->use_consts = fs->use_consts;
	pr->const_min = fs->const_min;
	pr->const_max = fs->const_max;
	pr->const_prob = fs->const_prob;
	pr->nnamed = fs->nnamed;
	for (int i = 0; i < fs->nnamed && i < (int)(sizeof pr->named / sizeof pr->named[0]); i++)
		pr->named[i] = gp_named_value(fs->named[i]);
}

rt_status gp_gpu_breed_render(const gp_breed *br, gen_source *src, rt_error *err)
{
	char name[64];
	int grow = (br->mutation_depth > 1 ? br->mutation_depth : 1) + 2;
	snprintf(name, sizeof name, "gp_breed-d%d-m%d.cu", br->max_depth, grow - 2);
	gen_begin(src, name, "GP breeding on the GPU (gpb_plan_k, gpb_emit_k, gpb_encode_k, scans)");
	gen_define_int(src, "GPB_DEPTH_CAP", br->max_depth + 2);
	gen_define_int(src, "GPB_GROW_CAP", grow);
	rt_status st = gen_template(src, "gp/gp_breed.cu", err);
	if (st)
		gen_free(src);
	return st;
}

rt_status gp_gpu_breed_kernel(const gp_breed *br, rt_kernel_emit emit, void *ctx, rt_error *err)
{
	gen_source src;
	rt_status st = gp_gpu_breed_render(br, &src, err);
	if (st)
		return st;
	st = emit(ctx, src.name, src.text.data, breed_options,
		  (int)(sizeof breed_options / sizeof breed_options[0]), err);
	gen_free(&src);
	return st;
}

static rt_status compile_module(gp_gpu_breeder *b, const gp_breed *br, rt_error *err)
{
	gen_source src;
	nvrtc_output out = { 0 };
	rt_status st = gp_gpu_breed_render(br, &src, err);
	if (st)
		return st;
	st = nvrtc_compile(src.name, src.text.data, gp_gpu_arch(b->g), breed_options,
			   (int)(sizeof breed_options / sizeof breed_options[0]), &out, err);
	if (st == RT_OK)
		st = gpu_module_load(b->ctx, out.cubin, out.size, &b->mod, err);
	nvrtc_output_free(&out);
	gen_free(&src);
	return st;
}

static rt_status alloc_pop(gp_gpu_breeder *b, dev_pop *d, rt_error *err)
{
	size_t n = (size_t)b->n;
	if (gpu_alloc(b->ctx, (n + 1) * 4, &d->off, err) || gpu_alloc(b->ctx, n * 4, &d->size, err) ||
	    gpu_alloc(b->ctx, n * 4, &d->nfn, err) || gpu_alloc(b->ctx, n * 4, &d->nconst, err))
		return err->status;
	return RT_OK;
}

static void free_pop_dev(gp_gpu_breeder *b, dev_pop *d)
{
	gpu_free(b->ctx, d->nodes);
	gpu_free(b->ctx, d->depth);
	gpu_free(b->ctx, d->off);
	gpu_free(b->ctx, d->size);
	gpu_free(b->ctx, d->nfn);
	gpu_free(b->ctx, d->nconst);
}

rt_status gp_gpu_breeder_open(gp_gpu *g, const gp_cases *cases, const gp_fset *fs,
			      const gp_breed *br, int n, gp_gpu_breeder **out, rt_error *err)
{
	*out = NULL;
	if (gp_gpu_form(g) != GP_FORM_LGP)
		return rt_fail(err, RT_ERR_INPUT, "GP breeding on the GPU feeds LGP interpreters; "
			       "the chosen variant reads RPN");
	if (n < 1 || fs->nfuncs > 32)
		return rt_fail(err, RT_ERR_INPUT, "GP breeding on the GPU: %d programs, %d functions",
			       n, fs->nfuncs);
	gp_gpu_breeder *b = rt_calloc(1, sizeof *b, err);
	if (!b)
		return err->status;
	b->g = g;
	b->ctx = gp_gpu_context(g);
	b->stream = gp_gpu_stream(g);
	b->n = n;
	b->is_bool = cases->fitness == GP_FIT_BOOL;
	b->dstride = (uint32_t)gp_gpu_dstride(g);
	gp_gpu_breed_params(fs, br, n, &b->pr);
	size_t nblocks = ((size_t)n + 1023) / 1024;
	rt_status st = compile_module(b, br, err);
	if (!st && !(st = alloc_pop(b, &b->pop[0], err)) && !(st = alloc_pop(b, &b->pop[1], err)) &&
	    !(st = gpu_alloc(b->ctx, (size_t)n * sizeof(gpb_plan), &b->plans, err)) &&
	    !(st = gpu_alloc(b->ctx, nblocks * 8, &b->sums, err)) &&
	    !(st = gpu_alloc(b->ctx, (size_t)n * 8, &b->fit, err)) &&
	    !(st = gpu_alloc(b->ctx, ((size_t)n + 1) * 4, &b->insn_off, err)) &&
	    !(st = gpu_alloc(b->ctx, ((size_t)n + 1) * 4, &b->const_off, err)) &&
	    !(st = gpu_alloc(b->ctx, 32, &b->stats, err)) &&
	    !(st = gpu_alloc(b->ctx, (size_t)n * 16, &b->progs, err)))
		st = gpu_host_alloc(b->ctx, 16 * sizeof(uint32_t), (void **)&b->hbuf, err);
	uint64_t worst = (uint64_t)n * (uint64_t)br->max_size;
	b->pipelined = worst <= PIPELINE_NODES;
	b->exact_next = 1;
	if (!st && b->pipelined && !(st = grow_room(b, &b->pop[0], worst, err)))
		st = grow_room(b, &b->pop[1], worst, err);
	if (st) {
		gp_gpu_breeder_close(b);
		return st;
	}
	memset(b->hbuf, 0, 16 * sizeof(uint32_t));
	b->hbuf[9] = 1;   /* the stack depth starts at 1 */
	/* a warp per program where max_size nodes of scratch fit (larger
	 * programs, from the initial population, go to the warp's lane 0) */
	b->enc_cap = (uint32_t)br->max_size;
	b->enc_warps = ENC_SMEM_MAX / gpb_warp_bytes(b->enc_cap);
	if (b->enc_warps > ENC_WARPS_MAX)
		b->enc_warps = ENC_WARPS_MAX;
	if (b->enc_warps == 0)
		b->enc_cap = 0;
	*out = b;
	return RT_OK;
}

void gp_gpu_breeder_close(gp_gpu_breeder *b)
{
	if (!b)
		return;
	rt_error e;
	gpu_stream_sync(b->stream, &e);
	for (int i = 0; i < 2; i++)
		free_pop_dev(b, &b->pop[i]);
	gpu_ptr bufs[] = { b->plans, b->sums, b->fit, b->insn_off, b->const_off, b->stats, b->progs,
			   b->code, b->consts };
	for (size_t i = 0; i < sizeof bufs / sizeof bufs[0]; i++)
		gpu_free(b->ctx, bufs[i]);
	gpu_host_free(b->ctx, b->hbuf);
	if (b->timer)
		gpu_timer_destroy(b->timer);
	gpu_module_unload(b->mod);
	free(b);
}

/* Grows a device buffer of count elements of size bytes (contents dropped). */
static rt_status grow(gp_gpu_breeder *b, gpu_ptr *p, size_t *cap, uint64_t count, size_t size,
		      rt_error *err)
{
	if (count <= *cap && *p)
		return RT_OK;
	size_t want = (size_t)count + (size_t)count / 2 + 64;
	gpu_free(b->ctx, *p);
	*p = 0;
	*cap = 0;
	if (gpu_alloc(b->ctx, want * size, p, err))
		return err->status;
	*cap = want;
	return RT_OK;
}

/* Room for a generation of `nodes` nodes in d (its nodes are dropped if
 * it grows; d NULL: none) and in the encoding (instructions and constants
 * are at most the nodes). */
static rt_status grow_room(gp_gpu_breeder *b, dev_pop *d, uint64_t nodes, rt_error *err)
{
	if ((d && grow(b, &d->nodes, &d->ncap, nodes, sizeof(gp_node), err)) ||
	    (d && grow(b, &d->depth, &d->dcap, nodes, sizeof(uint16_t), err)) ||
	    grow(b, &b->code, &b->code_cap, nodes, 16, err) ||
	    grow(b, &b->consts, &b->consts_cap, nodes, 4, err))
		return err->status;
	return RT_OK;
}

static unsigned blocks_of(int n, int per) { return (unsigned)(((size_t)n + per - 1) / per); }

/* Launches kernel name; when profiling, waits for it and adds its time to
 * b->kernel_ms[slot]. */
static rt_status launch(gp_gpu_breeder *b, const char *name, const gpu_launch_cfg *cfg, void **args,
			int slot, rt_error *err)
{
	double ms;
	if (!b->timer)
		return gpu_launch(b->mod, name, cfg, args, err);
	if (gpu_timer_start(b->timer, b->stream, err) || gpu_launch(b->mod, name, cfg, args, err) ||
	    gpu_timer_stop(b->timer, b->stream, &ms, err))
		return err->status;
	b->kernel_ms[slot] += ms;
	return RT_OK;
}

rt_status gp_gpu_breeder_profile(gp_gpu_breeder *b, double kernel_ms[3], rt_error *err)
{
	if (!b->timer && gpu_timer_create(b->ctx, &b->timer, err))
		return err->status;
	for (int k = 0; k < 3; k++)
		kernel_ms[k] = b->kernel_ms[k];
	return RT_OK;
}

/* Exclusive prefix sums of a (and b, if non-zero) into oa (ob), n + 1 entries each. */
static rt_status scan(gp_gpu_breeder *b, gpu_ptr a, gpu_ptr bb, gpu_ptr oa, gpu_ptr ob, rt_error *err)
{
	uint32_t n = (uint32_t)b->n, nblocks = blocks_of(b->n, 1024);
	void *up[] = { &a, &bb, &n, &b->sums };
	void *mid[] = { &b->sums, &nblocks, &oa, &ob, &n };
	void *down[] = { &a, &bb, &n, &b->sums, &oa, &ob };
	void *whole[] = { &a, &bb, &n, &oa, &ob };
	gpu_launch_cfg lc = { .grid = { nblocks, 1, 1 }, .block = { 1024, 1, 1 }, .stream = b->stream };
	gpu_launch_cfg one = { .grid = { 1, 1, 1 }, .block = { 1024, 1, 1 }, .stream = b->stream };
	if (nblocks <= 16)   /* one launch: a block walks the chunks */
		return gpu_launch(b->mod, "gpb_scan_one", &one, whole, err);
	if (gpu_launch(b->mod, "gpb_scan_up", &lc, up, err) ||
	    gpu_launch(b->mod, "gpb_scan_mid", &one, mid, err) ||
	    gpu_launch(b->mod, "gpb_scan_down", &lc, down, err))
		return err->status;
	return RT_OK;
}

/* words[k] of the device scalars at src (4 bytes each) into b->hbuf[k], synchronously. */
static rt_status read_words(gp_gpu_breeder *b, gpu_ptr src, int k, int count, rt_error *err)
{
	if (gpu_download_async(b->ctx, b->hbuf + k, src, (size_t)count * 4, b->stream, err) ||
	    gpu_stream_sync(b->stream, err))
		return err->status;
	return RT_OK;
}

/* Depths of the prefix tree nodes[0..n) (root 0) into depth[0..n); left
 * (n entries): per open function, the children still to come. */
static void tree_depths(const gp_node *nodes, int n, uint16_t *depth, uint16_t *left)
{
	int sp = 0;
	for (int i = 0; i < n; i++) {
		depth[i] = (uint16_t)sp;
		int a = gpb_arity(nodes[i].op);
		if (a > 0) {
			left[sp++] = (uint16_t)a;
		} else {
			while (sp > 0 && --left[sp - 1] == 0)
				sp--;
		}
	}
}

/* Host trees into a packed device generation. */
static rt_status upload_pop(gp_gpu_breeder *b, dev_pop *d, const gp_tree *pop, rt_error *err)
{
	size_t n = (size_t)b->n;
	uint64_t total = 0;
	for (size_t i = 0; i < n; i++)
		total += (uint64_t)pop[i].n;
	if (total > UINT32_MAX)
		return rt_fail(err, RT_ERR_INPUT, "GP breeding on the GPU: %llu nodes in one generation "
			       "(at most 2^32 - 1)", (unsigned long long)total);
	uint32_t *meta = rt_malloc((4 * n + 1) * sizeof *meta, err);
	gp_node *nodes = meta ? rt_malloc((size_t)(total ? total : 1) * sizeof *nodes, err) : NULL;
	uint16_t *depth = nodes ? rt_malloc(2 * (size_t)(total ? total : 1) * sizeof *depth, err) : NULL;
	rt_status st = depth ? RT_OK : err->status;
	if (!st) {
		uint32_t *off = meta, *size = meta + n + 1, *nfn = size + n, *nconst = nfn + n;
		uint32_t at = 0;
		for (size_t i = 0; i < n; i++) {
			off[i] = at;
			size[i] = (uint32_t)pop[i].n;
			nfn[i] = nconst[i] = 0;
			for (int k = 0; k < pop[i].n; k++) {
				nfn[i] += pop[i].nodes[k].op < GP_OP_COUNT;
				nconst[i] += pop[i].nodes[k].op == GP_TERM_CONST;
			}
			memcpy(nodes + at, pop[i].nodes, (size_t)pop[i].n * sizeof *nodes);
			tree_depths(pop[i].nodes, pop[i].n, depth + at, depth + total);
			at += (uint32_t)pop[i].n;
		}
		off[n] = at;
		if (!(st = grow(b, &d->nodes, &d->ncap, total, sizeof(gp_node), err)) &&
		    !(st = grow(b, &d->depth, &d->dcap, total, sizeof(uint16_t), err)) &&
		    !(st = gpu_upload(b->ctx, d->nodes, nodes, (size_t)total * sizeof *nodes, err)) &&
		    !(st = gpu_upload(b->ctx, d->depth, depth, (size_t)total * sizeof *depth, err)) &&
		    !(st = gpu_upload(b->ctx, d->off, off, (n + 1) * 4, err)) &&
		    !(st = gpu_upload(b->ctx, d->size, size, n * 4, err)) &&
		    !(st = gpu_upload(b->ctx, d->nfn, nfn, n * 4, err)))
			st = gpu_upload(b->ctx, d->nconst, nconst, n * 4, err);
		d->total = total;
	}
	free(depth);
	free(nodes);
	free(meta);
	return st;
}

rt_status gp_gpu_breeder_load(gp_gpu_breeder *b, const gp_tree *pop, const double *fit,
			      rt_error *err)
{
	rt_status st;
	dev_pop *c = &b->pop[b->cur];
	if ((st = gpu_stream_sync(b->stream, err)) || (st = upload_pop(b, c, pop, err)) ||
	    (st = grow_room(b, NULL, c->total, err)) ||
	    (st = gpu_upload(b->ctx, b->stats, b->hbuf + 8, 32, err)))
		return st;
	b->exact_next = 1;
	if (fit)
		return gpu_upload(b->ctx, b->fit, fit, (size_t)b->n * sizeof *fit, err);
	return RT_OK;
}

rt_status gp_gpu_breeder_set_fitness(gp_gpu_breeder *b, const double *sel, rt_error *err)
{
	rt_status st = gpu_stream_sync(b->stream, err);
	return st ? st : gpu_upload(b->ctx, b->fit, sel, (size_t)b->n * sizeof *sel, err);
}

rt_status gp_gpu_breeder_breed(gp_gpu_breeder *b, uint64_t seed, int generation, int elite,
			       rt_error *err)
{
	dev_pop *c = &b->pop[b->cur], *x = &b->pop[1 - b->cur];
	gpb_params pr = b->pr;
	pr.seed = seed;
	pr.generation = generation;
	pr.elite = elite;
	/* a warp per offspring, 4 a block */
	gpu_launch_cfg lc = { .grid = { blocks_of(b->n, 4), 1, 1 }, .block = { 128, 1, 1 },
			      .stream = b->stream };
	void *plan[] = { &pr, &c->nodes, &c->depth, &c->off, &c->size, &c->nfn, &b->fit, &b->plans,
			 &x->size };
	rt_status st;
	if ((st = gpu_upload_async(b->ctx, b->stats, b->hbuf + 8, 32, b->stream, err)) ||
	    (st = launch(b, "gpb_plan_k", &lc, plan, 0, err)) ||
	    (st = scan(b, x->size, 0, x->off, 0, err)))
		return st;
	if (!b->pipelined) {
		/* the generation's size, to make room for it */
		if ((st = read_words(b, x->off + (gpu_ptr)b->n * 4, 0, 1, err)) ||
		    (st = grow_room(b, x, b->hbuf[0], err)))
			return st;
		x->total = b->hbuf[0];
	}
	size_t room = x->ncap < x->dcap ? x->ncap : x->dcap;   /* nodes and their depths */
	uint32_t cap = (uint32_t)(room < UINT32_MAX ? room : UINT32_MAX);
	void *emit[] = { &pr, &c->nodes, &c->depth, &c->off, &c->size, &c->nfn, &b->plans, &x->off,
			 &x->nodes, &x->depth, &x->nfn, &x->nconst, &cap, &b->stats };
	if ((st = launch(b, "gpb_emit_k", &lc, emit, 1, err)))
		return st;
	b->cur = 1 - b->cur;
	return RT_OK;
}

/* Encodes the current generation into progs/code/consts for an
 * interpreter with stack_cap stack slots and smem_cap bytes of shared
 * memory, and queues the read-back of the stats (hbuf[0..4]), the node
 * total (hbuf[5]) and the sizes. */
static rt_status encode(gp_gpu_breeder *b, uint32_t stack_cap, uint32_t smem_cap, uint32_t *sizes,
			rt_error *err)
{
	dev_pop *c = &b->pop[b->cur];
	uint32_t n = (uint32_t)b->n;
	rt_status st;
	if ((st = scan(b, c->nfn, c->nconst, b->insn_off, b->const_off, err)) ||
	    (st = gpu_upload_async(b->ctx, b->stats, b->hbuf + 8, 16, b->stream, err)))
		return st;
	gpu_launch_cfg lc = { .grid = { blocks_of(b->n, 256), 1, 1 }, .block = { 256, 1, 1 },
			      .stream = b->stream };
	void *args[] = { &n, &c->nodes, &c->off, &c->size, &b->insn_off, &b->const_off, &b->is_bool,
			 &b->dstride, &b->progs, &b->code, &b->consts, &stack_cap, &smem_cap, &b->stats };
	void *wargs[] = { &n, &c->nodes, &c->depth, &c->off, &c->size, &b->insn_off, &b->const_off,
			  &b->is_bool, &b->dstride, &b->progs, &b->code, &b->consts, &stack_cap,
			  &smem_cap, &b->enc_cap, &b->stats };
	gpu_launch_cfg wl = { .grid = { blocks_of(b->n, (int)b->enc_warps), 1, 1 },
			      .block = { 32 * b->enc_warps, 1, 1 },
			      .smem_bytes = b->enc_warps * gpb_warp_bytes(b->enc_cap), .stream = b->stream };
	if ((st = b->enc_cap ? launch(b, "gpb_encode_warp_k", &wl, wargs, 2, err)
			     : launch(b, "gpb_encode_k", &lc, args, 2, err)) ||
	    (st = gpu_download_async(b->ctx, b->hbuf, b->stats, 20, b->stream, err)) ||
	    (st = gpu_download_async(b->ctx, b->hbuf + 5, c->off + (gpu_ptr)n * 4, 4, b->stream, err)))
		return st;
	return gpu_download_async(b->ctx, sizes, c->size, (size_t)n * 4, b->stream, err);
}

/* The stats read back: a program the encoder could not take is an error;
 * one generation not written, too. */
static rt_status check_stats(gp_gpu_breeder *b, rt_error *err)
{
	if (b->hbuf[2])
		return rt_fail(err, RT_ERR_INTERNAL, "GP breeding on the GPU: a program deeper than "
			       "max_depth %d reached the encoder", b->pr.max_depth);
	if (b->hbuf[4])
		return rt_fail(err, RT_ERR_INTERNAL, "GP breeding on the GPU: a generation of %u nodes "
			       "did not fit its buffer", b->hbuf[5]);
	return RT_OK;
}

rt_status gp_gpu_breeder_eval(gp_gpu_breeder *b, double *fitness, uint32_t *sizes, double *nodes,
			      gp_gpu_stats *stats, rt_error *err)
{
	dev_pop *c = &b->pop[b->cur];
	rt_status st;
	for (int tries = 0; tries < 3; tries++) {
		int exact = !b->pipelined || b->exact_next;
		uint32_t stack_cap = (uint32_t)gp_gpu_stack(b->g);
		if (b->need_launch > stack_cap)
			stack_cap = b->need_launch;
		if ((st = encode(b, exact ? UINT32_MAX : stack_cap, exact ? UINT32_MAX : b->smem_launch,
				 sizes, err)))
			return st;
		if (exact) {
			/* what the programs need, before the launch */
			if ((st = gpu_stream_sync(b->stream, err)) || (st = check_stats(b, err)))
				return st;
			b->smem_launch = (2 * b->hbuf[0] + 1023) / 1024 * 1024;
			b->need_launch = b->hbuf[1];
		}
		gp_gpu_encoded e = { b->progs, b->code, b->consts, b->n, 0,
				     exact ? b->hbuf[0] : b->smem_launch, (int)b->need_launch, b->fit };
		gp_gpu_stats gs;
		if ((st = gp_gpu_eval_encoded(b->g, &e, fitness, &gs, err)) || (st = check_stats(b, err)))
			return st;
		if (stats)
			*stats = gs;
		/* A sync costs tens of microseconds: worth it to never evaluate a
		 * generation twice once an evaluation takes milliseconds. */
		b->exact_next = gs.kernel_ms > EXACT_ABOVE_MS;
		if (!b->hbuf[3]) {
			c->total = b->hbuf[5];
			*nodes = (double)c->total;
			return RT_OK;
		}
		/* a program needed more than the launch had: again, with room */
		b->exact_next = 1;
	}
	return rt_fail(err, RT_ERR_INTERNAL, "GP breeding on the GPU: the interpreter's stack and "
		       "shared memory did not settle");
}

rt_status gp_gpu_breeder_tree(gp_gpu_breeder *b, int i, gp_tree *t, rt_error *err)
{
	dev_pop *c = &b->pop[b->cur];
	rt_status st;
	if (i < 0 || i >= b->n)
		return rt_fail(err, RT_ERR_INTERNAL, "GP breeding on the GPU: no program %d", i);
	if ((st = read_words(b, c->off + (gpu_ptr)i * 4, 0, 2, err)) ||
	    (st = read_words(b, c->size + (gpu_ptr)i * 4, 1, 1, err)) ||
	    (st = gp_tree_reserve(t, (int)b->hbuf[1], err)))
		return st;
	t->n = (int)b->hbuf[1];
	return gpu_download(b->ctx, t->nodes, c->nodes + (gpu_ptr)b->hbuf[0] * sizeof(gp_node),
			    (size_t)t->n * sizeof(gp_node), err);
}

rt_status gp_gpu_breeder_trees(gp_gpu_breeder *b, gp_tree *pop, rt_error *err)
{
	dev_pop *c = &b->pop[b->cur];
	size_t n = (size_t)b->n;
	uint32_t *off = rt_malloc((n + 1) * sizeof *off, err);
	gp_node *nodes = NULL;
	rt_status st = off ? gpu_stream_sync(b->stream, err) : err->status;
	if (!st && !(st = gpu_download(b->ctx, off, c->off, (n + 1) * 4, err)) &&
	    !(nodes = rt_malloc((size_t)(off[n] ? off[n] : 1) * sizeof *nodes, err)))
		st = err->status;
	if (!st)   /* off[n]: the total, also right after a pipelined breeding */
		st = gpu_download(b->ctx, nodes, c->nodes, (size_t)off[n] * sizeof *nodes, err);
	for (size_t i = 0; i < n && !st; i++)
		st = gp_tree_set(&pop[i], nodes + off[i], (int)(off[i + 1] - off[i]), err);
	free(nodes);
	free(off);
	return st;
}

rt_status gp_gpu_breeder_check_depths(gp_gpu_breeder *b, const gp_tree *pop, int *diffs,
				      rt_error *err)
{
	dev_pop *c = &b->pop[b->cur];
	size_t n = (size_t)b->n;
	uint32_t *off = rt_malloc((n + 1) * sizeof *off, err);
	uint16_t *dev = NULL, *ref = NULL;
	rt_status st = off ? gpu_stream_sync(b->stream, err) : err->status;
	*diffs = 0;
	if (!st && !(st = gpu_download(b->ctx, off, c->off, (n + 1) * 4, err)) &&
	    (!(dev = rt_malloc(((size_t)off[n] + 1) * 2, err)) ||
	     !(ref = rt_malloc(2 * ((size_t)off[n] + 1) * 2, err))))
		st = err->status;
	if (!st)
		st = gpu_download(b->ctx, dev, c->depth, (size_t)off[n] * 2, err);
	for (size_t i = 0; i < n && !st; i++) {
		int len = (int)(off[i + 1] - off[i]);
		if (len != pop[i].n) {
			(*diffs)++;
			continue;
		}
		tree_depths(pop[i].nodes, len, ref, ref + off[n] + 1);
		*diffs += memcmp(ref, dev + off[i], (size_t)len * 2) != 0;
	}
	free(ref);
	free(dev);
	free(off);
	return st;
}
