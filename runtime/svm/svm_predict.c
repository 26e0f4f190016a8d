/* svm_predict.c: C-SVC prediction: one point (svm_predict), or a whole data
 * set, batched, on the CPU (the thread pool, |sv|^2 computed once per model instead of once per
 * point; sparse points or support vectors through svm_sparse.c's scatter
 * and gather) or on the GPU (dense only: svm_predict_all predicts sparse
 * data and models on the CPU) (templates/svm/svm_predict.cu): the support vectors
 * uploaded once, column-major and padded to the tile; the points in batches
 * sized to fit the device's memory; per batch K(point, SV), the decision
 * value of every class pair and the one-vs-one vote, and only the winners
 * (and the decision values when asked for) come back. Both paths compute
 * exactly what svm_predict does (svm_core.h's svm_kernel_dot, svm_decision,
 * svm_vote): the same labels, decision values equal up to the last bits of
 * the device's exp/tanh. svm_predict_all picks the path for the callers. */
#include <math.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cpu.h"
#include "gen.h"
#include "gpu.h"
#include "log.h"
#include "nvrtc.h"
#include "svm_impl.h"

/* The tiles of svm_predict.cu (the generator passes them on). */
#define PRED_TILE 64           /* points and SVs per tile */
#define PRED_CHUNK 16          /* features staged in shared memory at once */
#define PRED_TILE_THREADS 256  /* (PRED_TILE / 4)^2: 4 x 4 kernel values a thread */
#define PRED_ROW_THREADS 128   /* decision and vote kernels: one point a thread */
#if !defined(SVM_PREDICT_BATCH_MB)
#define SVM_PREDICT_BATCH_MB 1024   /* device memory for one batch at most */
#endif

/* What both paths need of a model: its classes' SV ranges and |sv|^2. */
typedef struct pred_model {
	int k, npairs;
	int nf;                    /* features compared: the data's and model's fewer */
	long start[256];           /* class c's first SV */
	double *sqv;               /* [total_sv] over the model's features (svm_predict's) */
} pred_model;

/* The model's support vectors as a data set (a view: nothing to free). */
static svm_data sv_rows(const svm_model *m)
{
	svm_data v;
	memset(&v, 0, sizeof v);
	v.n = m->total_sv;
	v.nfeat = m->nfeat;
	v.x = m->sv;
	v.sparse = m->sparse;
	v.csr = m->svs;
	return v;
}

int svm_predict_features(const svm_model *m, const svm_data *d)
{
	return d->nfeat < m->nfeat ? d->nfeat : m->nfeat;
}

static rt_status pred_model_make(const svm_model *m, const svm_data *d, pred_model *pm,
				 rt_error *err)
{
	memset(pm, 0, sizeof *pm);
	if (m->nr_class < 2 || m->nr_class > 256)
		return rt_fail(err, RT_ERR_UNSUPPORTED, "svm prediction: %d classes; expected 2 to 256",
			       m->nr_class);
	pm->k = m->nr_class;
	pm->npairs = pm->k * (pm->k - 1) / 2;
	pm->nf = svm_predict_features(m, d);
	for (int c = 1; c < pm->k; c++)
		pm->start[c] = pm->start[c - 1] + m->nsv[c - 1];
	pm->sqv = rt_malloc((size_t)m->total_sv * sizeof *pm->sqv + 1, err);
	if (!pm->sqv)
		return RT_ERR_SYSTEM;
	for (long s = 0; s < m->total_sv; s++) {
		svm_data svs = sv_rows(m);
		pm->sqv[s] = svm_row_sq(&svs, s, m->nfeat);
	}
	return RT_OK;
}

/* ---- CPU ---------------------------------------------------------------------------- */

typedef struct cpu_ctx {
	const svm_model *m;
	const pred_model *pm;
	const svm_data *d;
	double *pred, *dec;
	atomic_int failed;
} cpu_ctx;

/* kv[s] = K(point i of d, SV s) over the first pm->nf features, each dot
 * product in feature order (svm_sparse.c: the same bits whichever side is
 * sparse); pivot: pm->nf zeros of room (used when the model is sparse). */
static void point_kernels(const svm_model *m, const pred_model *pm, const svm_data *d, long i,
			  double *pivot, double *kv)
{
	int nf = pm->nf;
	double sqx = svm_row_sq(d, i, nf);
	svm_data svs = sv_rows(m);
	if (!d->sparse && !m->sparse) {
		const float *x = d->x + (size_t)i * d->nfeat;
		for (long s = 0; s < m->total_sv; s++)
			kv[s] = svm_kernel(&m->kernel, x, m->sv + (size_t)s * m->nfeat, nf, sqx, pm->sqv[s]);
	} else if (m->sparse) {
		svm_row_scatter(d, i, pivot, nf);
		for (long s = 0; s < m->total_sv; s++)
			kv[s] = svm_kernel_dot(&m->kernel, svm_row_dot(&svs, s, pivot, nf), sqx, pm->sqv[s]);
		svm_row_unscatter(d, i, pivot, nf);
	} else {
		for (long s = 0; s < m->total_sv; s++) {
			const float *v = m->sv + (size_t)s * m->nfeat;
			double dot = 0;
			for (long k = d->csr.ptr[i]; k < d->csr.ptr[i + 1] && d->csr.col[k] < nf; k++)
				dot += (double)v[d->csr.col[k]] * (double)d->csr.val[k];
			kv[s] = svm_kernel_dot(&m->kernel, dot, sqx, pm->sqv[s]);
		}
	}
}

/* What a model predicts from the winning class and the decision values:
 * a regression the value itself, else the class's label (one-class: +1
 * for a value > 0, else -1, by svm_model's labels). */
static double pred_value(const svm_model *m, int best, const double *dec)
{
	return SVM_IS_SVR(m->type) ? dec[0] : m->label[best];
}

/* The winning class of point i of d; kv[total_sv], dec[npairs] are filled. */
static int predict_point(const svm_model *m, const pred_model *pm, const svm_data *d, long i,
			 double *pivot, double *kv, double *dec)
{
	unsigned char votes[256];
	point_kernels(m, pm, d, i, pivot, kv);
	for (int a = 0, p = 0; a < pm->k; a++)
		for (int b = a + 1; b < pm->k; b++, p++)
			dec[p] = svm_decision(m->sv_coef, m->total_sv, kv, 1, a, pm->start[a], m->nsv[a],
					      b, pm->start[b], m->nsv[b], m->rho[p]);
	return svm_vote(dec, 1, pm->k, votes, 1);
}

/* Room for one point's kernel values, decision values and (sparse model)
 * its scattered features. */
static double *point_room(const svm_model *m, const pred_model *pm, double **pivot)
{
	size_t nkv = (size_t)m->total_sv + (size_t)pm->npairs;
	double *kv = calloc(nkv + (m->sparse ? (size_t)pm->nf : 0) + 1, sizeof *kv);
	*pivot = kv ? kv + nkv : NULL;
	return kv;
}

static void cpu_body(void *ctx, long begin, long end, int thread)
{
	cpu_ctx *c = ctx;
	double *pivot, *kv = point_room(c->m, c->pm, &pivot);
	(void)thread;   /* scratch per call: a loop run inline from another loop's body is thread 0 */
	if (!kv) {
		atomic_store(&c->failed, 1);
		return;
	}
	for (long i = begin; i < end; i++) {
		double *dec = c->dec ? c->dec + (size_t)i * c->pm->npairs : kv + c->m->total_sv;
		int best = predict_point(c->m, c->pm, c->d, i, pivot, kv, dec);
		c->pred[i] = pred_value(c->m, best, dec);
	}
	free(kv);
}

double svm_predict_row(const svm_model *m, const svm_data *d, long i)
{
	pred_model pm;
	rt_error err;
	double label = NAN, *kv, *pivot;
	if (pred_model_make(m, d, &pm, &err) != RT_OK)
		return NAN;
	kv = point_room(m, &pm, &pivot);
	if (kv) {
		int best = predict_point(m, &pm, d, i, pivot, kv, kv + m->total_sv);
		label = pred_value(m, best, kv + m->total_sv);
	}
	free(kv);
	free(pm.sqv);
	return label;
}

double svm_predict(const svm_model *m, const float *x, int nfeat)
{
	svm_data one;
	memset(&one, 0, sizeof one);
	one.n = 1;
	one.nfeat = nfeat;
	one.x = (float *)x;
	return svm_predict_row(m, &one, 0);
}

rt_status svm_predict_batch_cpu(const svm_model *m, const svm_data *d, double *pred, double *dec,
				rt_error *err)
{
	pred_model pm;
	cpu_ctx c = { m, &pm, d, pred, dec, 0 };
	rt_status st = pred_model_make(m, d, &pm, err);
	if (st == RT_OK)
		st = cpu_parallel_for(d->n, 64, cpu_body, &c, err);
	if (st == RT_OK && atomic_load(&c.failed))
		st = rt_fail(err, RT_ERR_SYSTEM, "svm prediction: out of memory for %ld kernel values",
			     m->total_sv);
	free(pm.sqv);
	return st;
}

/* ---- GPU: the module and the model on the device ------------------------------------- */

/* The device, the module, the model's buffers and one batch's. */
typedef struct pred_gpu {
	gpu_context *ctx;
	gpu_module *mod;
	int svpad, bpad;                             /* padded SVs, points a batch */
	gpu_ptr svt, sqv, coef, start, count, rho;   /* the model */
	gpu_ptr xt, sqx, kv, dec, best;              /* one batch */
} pred_gpu;

static long round_up(long n, long to)
{
	return (n + to - 1) / to * to;
}

rt_status svm_gpu_predict_source(const svm_model *m, int nfeat, gen_source *src, rt_error *err)
{
	char name[96];
	snprintf(name, sizeof name, "svm_predict-k%d-f%d.cu", m->kernel.type, nfeat);
	gen_begin(src, name, "C-SVC prediction, batched");
	gen_line(src, "#define SVM_KERNEL %d", m->kernel.type);
	gen_line(src, "#define SVM_FEATURES %d", nfeat);
	gen_line(src, "#define SVM_TILE %d", PRED_TILE);
	gen_line(src, "#define SVM_CHUNK %d", PRED_CHUNK);
	gen_line(src, "#define SVM_TILE_THREADS %d", PRED_TILE_THREADS);
	gen_line(src, "#define SVM_ROW_THREADS %d", PRED_ROW_THREADS);
	return gen_template(src, "svm/svm_predict.cu", err);
}

/* Compiles the module for device 0 and loads it. */
static rt_status open_module(pred_gpu *g, const svm_model *m, int nf, rt_error *err)
{
	gen_source src;
	gpu_info info;
	rt_status st;
	memset(&src, 0, sizeof src);
	if ((st = svm_gpu_predict_source(m, nf, &src, err)) == RT_OK)
		st = svm_gpu_load(&src, &info, &g->ctx, &g->mod, err);
	gen_free(&src);
	return st;
}

static rt_status put(pred_gpu *g, gpu_ptr *dst, const void *src, size_t bytes, rt_error *err)
{
	return gpu_alloc_upload(g->ctx, src, bytes, dst, err);
}

/* The SVs (nf features, column-major, zero-padded to svpad), their norms,
 * the coefficients, the classes' ranges and rho. */
static rt_status upload_model(pred_gpu *g, const svm_model *m, const pred_model *pm,
			      rt_error *err)
{
	size_t sp = (size_t)g->svpad, nf = (size_t)pm->nf, ts = (size_t)m->total_sv;
	float *svt = rt_calloc(sp * (nf ? nf : 1), sizeof *svt, err);
	double *sqv = rt_calloc(sp, sizeof *sqv, err);
	rt_status st = svt && sqv ? RT_OK : RT_ERR_SYSTEM;
	for (size_t s = 0; st == RT_OK && s < ts; s++) {
		for (size_t f = 0; f < nf; f++)
			svt[f * sp + s] = m->sv[s * (size_t)m->nfeat + f];
		sqv[s] = pm->sqv[s];
	}
	if (st == RT_OK && (st = put(g, &g->svt, svt, sp * nf * sizeof *svt, err)) == RT_OK &&
	    (st = put(g, &g->sqv, sqv, sp * sizeof *sqv, err)) == RT_OK &&
	    (st = put(g, &g->coef, m->sv_coef, (size_t)(pm->k - 1) * ts * sizeof(double), err)) == RT_OK &&
	    (st = put(g, &g->start, pm->start, (size_t)pm->k * sizeof(long), err)) == RT_OK &&
	    (st = put(g, &g->count, m->nsv, (size_t)pm->k * sizeof(long), err)) == RT_OK)
		st = put(g, &g->rho, m->rho, (size_t)pm->npairs * sizeof(double), err);
	free(svt);
	free(sqv);
	return st;
}

/* Points a batch: what fits in SVM_PREDICT_BATCH_MB and half the free
 * memory (EVOFORGE_SVM_PREDICT_BATCH overrides, for tests), a multiple of
 * the tile, no more than the data needs. */
static rt_status batch_size(pred_gpu *g, const pred_model *pm, long n, rt_error *err)
{
	size_t free_b = 0, total_b = 0;
	const char *env = getenv("EVOFORGE_SVM_PREDICT_BATCH");
	double per_point = 4.0 * pm->nf + 8 + 8.0 * g->svpad + 8.0 * pm->npairs + 4, budget;
	long b;
	if (gpu_mem_info(g->ctx, &free_b, &total_b, err) != RT_OK)
		return RT_ERR_CUDA;
	budget = fmin(0.5 * (double)free_b, SVM_PREDICT_BATCH_MB * 1048576.0);
	b = env && atol(env) > 0 ? atol(env) : (long)(budget / per_point);
	b = b / PRED_TILE * PRED_TILE;
	b = b < PRED_TILE ? PRED_TILE : b;
	b = b > round_up(n, PRED_TILE) ? round_up(n, PRED_TILE) : b;
	if (b > 65535L * PRED_TILE)
		b = 65535L * PRED_TILE;
	if (per_point * PRED_TILE > 0.5 * (double)free_b)
		return rt_fail(err, RT_ERR_CUDA, "svm GPU prediction: %d points of %d support "
			       "vectors need %.0f MB; %.0f MB free", PRED_TILE, g->svpad,
			       per_point * PRED_TILE / 1048576.0, free_b / 1048576.0);
	g->bpad = (int)b;
	return RT_OK;
}

/* One batch's buffers. */
static rt_status alloc_batch(pred_gpu *g, const pred_model *pm, rt_error *err)
{
	size_t bp = (size_t)g->bpad;
	rt_status st;
	if ((st = put(g, &g->xt, NULL, bp * (size_t)pm->nf * sizeof(float), err)) == RT_OK &&
	    (st = put(g, &g->sqx, NULL, bp * sizeof(double), err)) == RT_OK &&
	    (st = put(g, &g->kv, NULL, bp * (size_t)g->svpad * sizeof(double), err)) == RT_OK &&
	    (st = put(g, &g->dec, NULL, bp * (size_t)pm->npairs * sizeof(double), err)) == RT_OK)
		st = put(g, &g->best, NULL, bp * sizeof(int), err);
	return st;
}

static void pred_gpu_release(pred_gpu *g)
{
	gpu_ptr *p[] = { &g->svt, &g->sqv, &g->coef, &g->start, &g->count, &g->rho,
			 &g->xt, &g->sqx, &g->kv, &g->dec, &g->best };
	for (size_t k = 0; g->ctx && k < sizeof p / sizeof p[0]; k++)
		if (*p[k])
			gpu_free(g->ctx, *p[k]);
	if (g->mod)
		gpu_module_unload(g->mod);
	if (g->ctx)
		gpu_context_close(g->ctx);
}

/* ---- GPU: one batch ------------------------------------------------------------------ */

/* Host room for one batch: points column-major (padding zero), norms,
 * winners and, when decision values are wanted, the device's layout. */
typedef struct host_batch {
	float *xt;
	double *sqx, *dec;
	int *best;
} host_batch;

/* Points first .. first + nb of d into h (column-major, zero-padded). */
static void fill_batch(const svm_data *d, const pred_model *pm, long first, long nb, int bpad,
		       host_batch *h)
{
	memset(h->xt, 0, (size_t)bpad * (size_t)pm->nf * sizeof *h->xt);
	memset(h->sqx, 0, (size_t)bpad * sizeof *h->sqx);
	for (long i = 0; i < nb; i++) {
		const float *x = d->x + (size_t)(first + i) * d->nfeat;
		double q = 0;
		for (int f = 0; f < pm->nf; f++) {
			h->xt[(size_t)f * bpad + i] = x[f];
			q += (double)x[f] * x[f];
		}
		h->sqx[i] = q;
	}
}

/* The three kernels over a batch of nb points. */
static rt_status launch_batch(pred_gpu *g, const svm_model *m, const pred_model *pm, int nb,
			      rt_error *err)
{
	svm_kernel_params kp = m->kernel;
	long total = m->total_sv;
	int k = pm->k;
	void *kv_args[] = { &g->xt, &g->sqx, &g->bpad, &g->svt, &g->sqv, &g->svpad, &kp, &g->kv };
	void *dec_args[] = { &g->kv, &g->bpad, &nb, &g->coef, &total, &g->start, &g->count, &k,
			     &g->rho, &g->dec };
	void *vote_args[] = { &g->dec, &g->bpad, &nb, &k, &g->best };
	unsigned rows = (unsigned)((nb + PRED_ROW_THREADS - 1) / PRED_ROW_THREADS);
	gpu_launch_cfg tile = { { (unsigned)(g->bpad / PRED_TILE), (unsigned)(g->svpad / PRED_TILE), 1 },
				{ PRED_TILE_THREADS, 1, 1 }, 0, NULL };
	gpu_launch_cfg dec = { { rows, (unsigned)pm->npairs, 1 }, { PRED_ROW_THREADS, 1, 1 }, 0, NULL };
	gpu_launch_cfg vote = { { rows, 1, 1 }, { PRED_ROW_THREADS, 1, 1 }, 0, NULL };
	rt_status st;
	if ((st = gpu_launch(g->mod, "svm_predict_kv", &tile, kv_args, err)) == RT_OK &&
	    (st = gpu_launch(g->mod, "svm_predict_decision", &dec, dec_args, err)) == RT_OK)
		st = gpu_launch(g->mod, "svm_predict_vote", &vote, vote_args, err);
	return st;
}

/* Predicts points first .. first + nb: upload, kernels, winners (and
 * decision values, point-major as LIBSVM's) back. */
static rt_status run_batch(pred_gpu *g, const svm_model *m, const pred_model *pm,
			   const svm_data *d, long first, int nb, host_batch *h, double *pred,
			   double *dec, rt_error *err)
{
	size_t bp = (size_t)g->bpad;
	rt_status st;
	fill_batch(d, pm, first, nb, g->bpad, h);
	if ((st = gpu_upload(g->ctx, g->xt, h->xt, bp * (size_t)pm->nf * sizeof *h->xt, err)) ||
	    (st = gpu_upload(g->ctx, g->sqx, h->sqx, bp * sizeof *h->sqx, err)) ||
	    (st = launch_batch(g, m, pm, nb, err)) ||
	    (st = gpu_download(g->ctx, h->best, g->best, (size_t)nb * sizeof *h->best, err)))
		return st;
	if ((dec || SVM_IS_SVR(m->type)) && (st = gpu_download(g->ctx, h->dec, g->dec, bp * (size_t)pm->npairs * sizeof *h->dec,
				      err)))
		return st;
	for (long i = 0; i < nb; i++) {
		if (h->best[i] < 0 || h->best[i] >= pm->k)
			return rt_fail(err, RT_ERR_INTERNAL, "svm GPU prediction: point %ld: class %d of %d",
				       first + i, h->best[i], pm->k);
		pred[first + i] = SVM_IS_SVR(m->type) ? h->dec[i] : m->label[h->best[i]];
		for (int p = 0; dec && p < pm->npairs; p++)
			dec[(size_t)(first + i) * pm->npairs + p] = h->dec[(size_t)p * bp + i];
	}
	return RT_OK;
}

/* Every batch in turn. */
static rt_status run_batches(pred_gpu *g, const svm_model *m, const pred_model *pm,
			     const svm_data *d, double *pred, double *dec, rt_error *err)
{
	size_t bp = (size_t)g->bpad;
	host_batch h = { rt_malloc(bp * (size_t)(pm->nf ? pm->nf : 1) * sizeof(float), err),
			 rt_malloc(bp * sizeof(double), err),
			 dec || SVM_IS_SVR(m->type) ? rt_malloc(bp * (size_t)pm->npairs * sizeof(double), err)
			 : NULL,
			 rt_malloc(bp * sizeof(int), err) };
	rt_status st = h.xt && h.sqx && h.best && (h.dec || !(dec || SVM_IS_SVR(m->type)))
		       ? RT_OK : RT_ERR_SYSTEM;
	for (long first = 0; st == RT_OK && first < d->n; first += g->bpad) {
		long nb = d->n - first < g->bpad ? d->n - first : g->bpad;
		st = run_batch(g, m, pm, d, first, (int)nb, &h, pred, dec, err);
	}
	free(h.xt);
	free(h.sqx);
	free(h.dec);
	free(h.best);
	return st;
}

rt_status svm_gpu_predict(const svm_model *m, const svm_data *d, double *pred, double *dec,
			  rt_error *err)
{
	pred_gpu g;
	pred_model pm;
	rt_status st;
	memset(&g, 0, sizeof g);
	if (d->sparse || m->sparse)
		return rt_fail(err, RT_ERR_UNSUPPORTED, "svm GPU prediction: sparse %s; predict on "
			       "the CPU", d->sparse ? "data" : "support vectors");
	if ((st = pred_model_make(m, d, &pm, err)) != RT_OK)
		return st;
	g.svpad = (int)round_up(m->total_sv ? m->total_sv : 1, PRED_TILE);
	if (m->total_sv > 65535L * PRED_TILE)
		st = rt_fail(err, RT_ERR_UNSUPPORTED, "svm GPU prediction: %ld support vectors; at "
			     "most %ld", m->total_sv, 65535L * PRED_TILE);
	if (st == RT_OK && d->n > 0 && (st = open_module(&g, m, pm.nf, err)) == RT_OK &&
	    (st = upload_model(&g, m, &pm, err)) == RT_OK &&
	    (st = batch_size(&g, &pm, d->n, err)) == RT_OK &&
	    (st = alloc_batch(&g, &pm, err)) == RT_OK)
		st = run_batches(&g, m, &pm, d, pred, dec, err);
	if (st != RT_OK)
		rt_error_prefix(err, "svm GPU prediction (%ld points, %ld SVs, %d classes)", d->n,
				m->total_sv, pm.k);
	pred_gpu_release(&g);
	free(pm.sqv);
	return st;
}

/* ---- the callers' entry -------------------------------------------------------------- */

rt_status svm_predict_values(const svm_model *m, const svm_data *d, int where, double *pred,
			     double *dec, rt_error *err)
{
	static int told;
	rt_error why;
	rt_status st = RT_ERR_NOGPU;
	if (where != SVM_PREDICT_CPU && (d->sparse || m->sparse)) {
		if (!told++)
			rt_info("svm: sparse %s: predicting on the CPU (GPU prediction takes dense "
				"points and support vectors)", d->sparse ? "data" : "support vectors");
		where = SVM_PREDICT_CPU;
	}
	if (where != SVM_PREDICT_CPU)
		st = svm_gpu_predict(m, d, pred, dec, where == SVM_PREDICT_GPU ? err : &why);
	if (st != RT_OK && where == SVM_PREDICT_GPU_OR_CPU && !told++)
		rt_warn("svm: predicting on the CPU: %s", why.msg);
	if (st != RT_OK && where != SVM_PREDICT_GPU)
		st = svm_predict_batch_cpu(m, d, pred, dec, err);
	return st;
}

rt_status svm_predict_all(const svm_model *m, const svm_data *d, int where, double *pred,
			  double *acc, rt_error *err)
{
	long right = 0;
	rt_status st = svm_predict_values(m, d, where, pred, NULL, err);
	if (st != RT_OK)
		return st;
	if (SVM_IS_SVR(m->type)) {   /* a regression: the mean squared error */
		double se = 0;
		for (long i = 0; i < d->n; i++)
			se += (pred[i] - d->y[i]) * (pred[i] - d->y[i]);
		if (acc)
			*acc = d->n ? se / d->n : NAN;
		return RT_OK;
	}
	for (long i = 0; i < d->n; i++)
		right += pred[i] == d->y[i];
	if (acc)
		*acc = d->n ? (double)right / d->n : NAN;
	return RT_OK;
}
