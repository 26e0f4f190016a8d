/* gp_lm.cu: Levenberg-Marquardt on the constants of many GP programs at
 * once (host side: runtime/gp/gp_constopt_gpu.c), the algorithm of
 * runtime/gp/gp_constopt.c's lm() step for step: one thread block per
 * program, `steps` trials inside the kernel.
 *
 * Layout: nodes[prog[p] .. prog[p+1]) is program p in prefix order as
 * gp_node (8 bytes: op, pad, var, value) with pad = 1 + the column of a
 * fitted constant (0: any other node); consts[coff[p] .. coff[p+1]) holds
 * its m fitted constants (in: start values; out: the fit, as floats, which
 * is what a tree keeps); obj[p] gets the final double objective. x holds the
 * ns sampled cases input by input (x[v * ns + i]), y their targets.
 *
 * Per trial: threads over cases run the tree right to left over a stack of
 * frames (value, d/dc for GPL_TC constants) in double, the derivative rules
 * of gp_lm.h; more constants than GPL_TC take more passes (the value is
 * recomputed). Each case's output and Jacobian row go to shared memory, then
 * every sum of the host's residuals() and normal() is taken by one thread
 * over the cases in case order (the host's order), so both compute the same
 * arithmetic up to the transcendental functions' last bits. The damped
 * system is solved by Gaussian elimination with partial pivoting (rows in
 * parallel, the pivot and back substitution by thread 0).
 *
 * Dynamic shared memory (doubles): f[ns] r[ns] J[ns * mmax] A[mmax^2]
 * S[mmax^2] g rhs d jm cov [mmax each]; floats cst saved [mmax each]. */
#include "common.h"
#include "gp_ops.h"
#include "gp_layout.h"
#include "gp_lm.h"

#ifndef GPL_STACK
#define GPL_STACK 16
#endif
#ifndef GPL_THREADS
#define GPL_THREADS 128
#endif
#ifndef GPL_TC
#define GPL_TC 8
#endif

/* Block-wide control values (thread 0 writes them between barriers). */
typedef struct gpl_ctl {
	double cur, next, lambda, fm, ym, sff, b;
	int ok, accept, stop;
} gpl_ctl;

typedef struct gpl_mem {
	double *f, *r, *J, *A, *S, *g, *rhs, *d, *jm, *cov;
	float *cst, *saved;
} gpl_mem;

RT_DEV int gpl_finite(double v) { return v - v == 0.0; }

/* A function's arity, from gp_ops.h's table. */
RT_DEV int gpl_arity(int op)
{
	switch (op) {
#define GPL_ARITY_(E, name, arity, expr) case GP_OP_##E: return arity;
	GP_FLOAT_OPS(GPL_ARITY_)
#undef GPL_ARITY_
	default: return 2;
	}
}

/* Case i's output (chunk c0 only writes it) and J[i * m + c0 ..) through the
 * program, the constants of columns [c0, c0 + GPL_TC) carrying tangents. */
RT_DEV void gpl_case(const gp_node *t, int n, const gpl_mem *mm, int m, const float *x, int ns,
		     int i, int c0)
{
	double st[GPL_STACK][GPL_TC + 1];
	unsigned char live[GPL_STACK];
	int sp = 0;
	for (int j = n - 1; j >= 0; j--) {
		gp_node nd = t[j];
		if (nd.op == GP_TERM_VAR || nd.op == GP_TERM_CONST) {
			int col = (int)nd.pad - 1;
			st[sp][0] = nd.op == GP_TERM_VAR ? (double)x[(size_t)nd.var * ns + i]
				    : col >= 0 ? (double)mm->cst[col] : (double)nd.value;
			live[sp] = col >= c0 && col < c0 + GPL_TC;
			if (live[sp]) {
#pragma unroll
				for (int q = 1; q <= GPL_TC; q++)
					st[sp][q] = q - 1 == col - c0 ? 1.0 : 0.0;
			}
			sp++;
			continue;
		}
		int k = gpl_arity(nd.op);
		int ia = sp - 1, ib = k > 1 ? sp - 2 : sp - 1, ir = sp - k;
		int la = live[ia], lb = k > 1 && live[ib];
		if (nd.op == GP_OP_IF) {   /* a ? b : c, the chosen branch's derivatives */
			if (st[ia][0] != 0) {
				st[ir][0] = st[ib][0];
				if (lb) {
#pragma unroll
					for (int q = 1; q <= GPL_TC; q++)
						st[ir][q] = st[ib][q];
				}
				live[ir] = (unsigned char)lb;
			}
		} else {
			double pa, pb, v = gp_lm_partials(nd.op, st[ia][0], st[ib][0], &pa, &pb);
			la = la && pa != 0;
			lb = lb && pb != 0;
			if (la || lb) {
#pragma unroll
				for (int q = 1; q <= GPL_TC; q++)
					st[ir][q] = (la ? pa * st[ia][q] : 0.0) + (lb ? pb * st[ib][q] : 0.0);
			}
			live[ir] = (unsigned char)(la || lb);
			st[ir][0] = gp_lm_result(v);
		}
		sp -= k - 1;
	}
	if (c0 == 0)
		mm->f[i] = st[0][0];
	for (int q = 0; q < GPL_TC && c0 + q < m; q++)
		mm->J[(size_t)i * m + c0 + q] = live[0] ? st[0][1 + q] : 0.0;
}

/* The means and line of the outputs (thread 0), the Jacobian's column means
 * (threads 1..m); then the covariances (threads 0..m-1). */
RT_DEV void gpl_moments(const gpl_mem *mm, gpl_ctl *c, const double *y, int m, int ns,
			int scale)
{
	int tid = threadIdx.x;
	if (tid == 0) {
		double fm = 0, sff = 0, sfy = 0;
		for (int i = 0; i < ns; i++)
			fm += mm->f[i];
		fm /= (double)ns;
		if (scale) {
			for (int i = 0; i < ns; i++) {
				sff += (mm->f[i] - fm) * (mm->f[i] - fm);
				sfy += (mm->f[i] - fm) * (y[i] - c->ym);
			}
		}
		c->fm = fm;
		c->sff = sff;
		c->b = scale ? (sff > 0 && gpl_finite(sff) ? sfy / sff : 0.0) : 1.0;
	} else if (scale && tid <= m) {
		double jm = 0;
		for (int i = 0; i < ns; i++)
			jm += mm->J[(size_t)i * m + tid - 1];
		mm->jm[tid - 1] = jm / (double)ns;
	}
	__syncthreads();
	if (scale && tid < m) {
		double cov = 0, jm = mm->jm[tid];
		for (int i = 0; i < ns; i++)
			cov += (mm->f[i] - c->fm) * (mm->J[(size_t)i * m + tid] - jm);
		mm->cov[tid] = c->sff > 0 ? cov / c->sff : 0.0;
	}
	__syncthreads();
}

/* The residuals r, the projected Jacobian
 * (in place of J) and the objective into c->next: the host's residuals(). */
RT_DEV void gpl_residuals(const gp_node *t, int n, const gpl_mem *mm, gpl_ctl *c, int m,
			  const float *x, const double *y, int ns, int scale)
{
	int tid = threadIdx.x;
	for (int c0 = 0; c0 < (m > 0 ? m : 1); c0 += GPL_TC)
		for (int i = tid; i < ns; i += GPL_THREADS)
			gpl_case(t, n, mm, m, x, ns, i, c0);
	__syncthreads();
	gpl_moments(mm, c, y, m, ns, scale);
	for (int i = tid; i < ns; i += GPL_THREADS) {
		double fi = mm->f[i], b = c->b, fm = c->fm;
		mm->r[i] = scale ? (y[i] - c->ym) - b * (fi - fm) : y[i] - fi;
		for (int k = 0; k < m; k++) {
			double jik = mm->J[(size_t)i * m + k];
			double dd = scale ? b * (jik - mm->jm[k] - mm->cov[k] * (fi - fm)) : jik;
			mm->J[(size_t)i * m + k] = gpl_finite(dd) ? -dd : 0.0;
		}
	}
	__syncthreads();
	if (tid == 0) {
		double obj = 0;
		for (int i = 0; i < ns; i++)
			obj += mm->r[i] * mm->r[i];
		obj /= (double)ns;
		c->next = gpl_finite(obj) ? obj : GP_LM_INF;
	}
	__syncthreads();
}

/* A = J'J, g = J'r at the current point (the host's normal()). */
RT_DEV void gpl_normal(const gpl_mem *mm, int m, int ns)
{
	int ne = m * (m + 1) / 2;
	for (int e = threadIdx.x; e < ne + m; e += GPL_THREADS) {
		double sum = 0;
		if (e >= ne) {
			int p = e - ne;
			for (int i = 0; i < ns; i++)
				sum += mm->J[(size_t)i * m + p] * mm->r[i];
			mm->g[p] = sum;
			continue;
		}
		int p = 0;
		while ((p + 1) * (p + 2) / 2 <= e)
			p++;
		int q = e - p * (p + 1) / 2;
		for (int i = 0; i < ns; i++)
			sum += mm->J[(size_t)i * m + p] * mm->J[(size_t)i * m + q];
		mm->A[p * m + q] = mm->A[q * m + p] = sum;
	}
	__syncthreads();
}

/* Solves S d = rhs (the host's solve(): Gaussian elimination, partial
 * pivoting); c->ok = 0 when singular. */
RT_DEV void gpl_solve(const gpl_mem *mm, gpl_ctl *c, int m)
{
	double *a = mm->S, *b = mm->rhs;
	int tid = threadIdx.x;
	for (int col = 0; col < m; col++) {
		if (tid == 0)
			c->ok = gp_lm_pivot(a, b, m, col);
		__syncthreads();
		if (!c->ok)
			return;
		for (int r = col + 1 + tid; r < m; r += GPL_THREADS)
			gp_lm_eliminate(a, b, m, col, r);
		__syncthreads();
	}
	if (tid == 0)
		gp_lm_back(a, b, mm->d, m);
	__syncthreads();
}

/* One trial from the current point (the body of the host's lm() loop). */
RT_DEV void gpl_trial(const gp_node *t, int n, const gpl_mem *mm, gpl_ctl *c, int m,
		      const float *x, const double *y, int ns, int scale)
{
	int tid = threadIdx.x;
	for (int e = tid; e < m * m; e += GPL_THREADS) {
		int p = e / m, q = e % m;
		double v = mm->A[e];
		if (p == q)
			v += c->lambda * (mm->A[e] > 0 ? mm->A[e] : 1.0);
		mm->S[e] = v;
		if (p == q)
			mm->rhs[p] = -mm->g[p];
	}
	__syncthreads();
	gpl_solve(mm, c, m);
	if (!c->ok) {
		__syncthreads();
		if (tid == 0)
			c->lambda *= 10;
		__syncthreads();
		return;
	}
	if (tid < m) {
		mm->saved[tid] = mm->cst[tid];
		mm->cst[tid] = (float)((double)mm->cst[tid] + mm->d[tid]);
	}
	__syncthreads();
	gpl_residuals(t, n, mm, c, m, x, y, ns, scale);
	if (tid == 0) {
		c->accept = c->next < c->cur;
		if (c->accept) {
			c->stop = c->cur - c->next <= 1e-12 * c->cur;
			c->cur = c->next;
			c->lambda = c->lambda / 10 > 1e-12 ? c->lambda / 10 : 1e-12;
		} else {
			c->lambda *= 10;
		}
	}
	__syncthreads();
	if (c->accept)
		gpl_normal(mm, m, ns);
	else if (tid < m)
		mm->cst[tid] = mm->saved[tid];
	__syncthreads();
}

extern "C" __global__ void __launch_bounds__(GPL_THREADS)
gpl_lm(const gp_node *nodes, const unsigned *prog, const unsigned *coff, float *consts,
       double *obj, const float *x, const double *y, int ns, int mmax, int scale, int steps)
{
	extern __shared__ double gpl_smem[];
	__shared__ gpl_ctl c;
	int p = blockIdx.x, tid = threadIdx.x;
	const gp_node *t = nodes + prog[p];
	int n = (int)(prog[p + 1] - prog[p]), m = (int)(coff[p + 1] - coff[p]);
	size_t mm2 = (size_t)mmax * mmax;
	gpl_mem mm;
	mm.f = gpl_smem;
	mm.r = mm.f + ns;
	mm.J = mm.r + ns;
	mm.A = mm.J + (size_t)ns * mmax;
	mm.S = mm.A + mm2;
	mm.g = mm.S + mm2;
	mm.rhs = mm.g + mmax;
	mm.d = mm.rhs + mmax;
	mm.jm = mm.d + mmax;
	mm.cov = mm.jm + mmax;
	mm.cst = (float *)(mm.cov + mmax);
	mm.saved = mm.cst + mmax;
	if (tid < m)
		mm.cst[tid] = consts[coff[p] + tid];
	if (tid == 0) {
		double ym = 0;
		for (int i = 0; i < ns; i++)
			ym += y[i];
		c.ym = ym / (double)ns;
		c.lambda = 1e-3;
		c.stop = 0;
	}
	__syncthreads();
	gpl_residuals(t, n, &mm, &c, m, x, y, ns, scale);
	if (tid == 0)
		c.cur = c.next;
	__syncthreads();
	if (gpl_finite(c.cur))
		gpl_normal(&mm, m, ns);
	for (int step = 0; step < steps && gpl_finite(c.cur) && c.cur > 0 && c.lambda < 1e30 &&
			   !c.stop; step++)
		gpl_trial(t, n, &mm, &c, m, x, y, ns, scale);
	if (tid < m)
		consts[coff[p] + tid] = mm.cst[tid];
	if (tid == 0)
		obj[p] = c.cur;
}
