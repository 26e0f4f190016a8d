/* gp_conv.c: tree -> RPN -> LGP conversion, population packing, and text. */
#include <limits.h>
#include <math.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cpu.h"
#include "gp_conv.h"

/* ---- single programs --------------------------------------------------------- */

int gp_tree_to_rpn(const gp_node *prefix, int n, gp_node *out)
{
	/* Pending functions with the number of arguments still to be completed;
	 * open ancestors never exceed the depth, which the engine bounds. */
	struct { int i, rem; } open[GP_MAX_DEPTH_LIMIT + 2];
	int sp = 0, k = 0;
	for (int i = 0; i < n; i++) {
		int a = gp_node_arity(&prefix[i]);
		if (a > 0) {
			if (sp > GP_MAX_DEPTH_LIMIT)
				return -1;
			open[sp].i = i;
			open[sp].rem = a;
			sp++;
			continue;
		}
		if (k > 0 && sp == 0)
			return -1;   /* nodes after a complete tree */
		out[k++] = prefix[i];
		while (sp > 0 && --open[sp - 1].rem == 0)
			out[k++] = prefix[open[--sp].i];
	}
	if (sp != 0 || k != n)
		return -1;
	return gp_rpn_max_stack(out, n);
}

int gp_rpn_max_stack(const gp_node *rpn, int n)
{
	int sp = 0, max = 0;
	for (int i = 0; i < n; i++) {
		int a = gp_node_arity(&rpn[i]);
		if (sp < a)
			return -1;
		sp += 1 - a;
		if (sp > max)
			max = sp;
	}
	return n > 0 && sp == 1 ? max : -1;
}

typedef struct sym {
	uint8_t kind;   /* enum gp_src */
	uint16_t arg;
} sym;

rt_status gp_lgp_from_rpn(const gp_node *rpn, int n, gp_insn *code, int *ncode, float *consts,
			  int *nconsts, int *max_stack, rt_error *err)
{
	sym local[256];
	sym *st = local;
	if (n > (int)(sizeof local / sizeof local[0])) {
		st = rt_malloc((size_t)n * sizeof *st, err);
		if (!st)
			return err->status;
	}
	int sp = 0, nc = 0, nk = 0, real = 0, maxreal = 0;
	rt_status status = RT_OK;
	if (n > 65535) {
		status = rt_fail(err, RT_ERR_INPUT, "program of %d nodes: at most 65535", n);
		goto out;
	}
	for (int i = 0; i < n; i++) {
		const gp_node *nd = &rpn[i];
		if (nd->op == GP_TERM_VAR) {
			st[sp].kind = GP_SRC_X;
			st[sp++].arg = nd->var;
		} else if (nd->op == GP_TERM_CONST) {
			consts[nk] = nd->value;
			st[sp].kind = GP_SRC_C;
			st[sp++].arg = (uint16_t)nk++;
		} else if (nd->op < GP_OP_COUNT) {
			int a = gp_op_arity(nd->op);
			if (sp < a) {
				status = rt_fail(err, RT_ERR_INPUT,
						 "RPN node %d ('%s') needs %d operands, stack has %d",
						 i, gp_op_name(nd->op), a, sp);
				goto out;
			}
			gp_insn in = { nd->op, 0, { 0, 0, 0 } };
			sp -= a;
			for (int k = 0; k < a; k++) {
				in.kinds |= (uint8_t)(st[sp + k].kind << (2 * k));
				in.arg[k] = st[sp + k].arg;
				real -= st[sp + k].kind == GP_SRC_S;
			}
			code[nc++] = in;
			if (++real > maxreal)
				maxreal = real;
			st[sp].kind = GP_SRC_S;
			st[sp++].arg = 0;
		} else {
			status = rt_fail(err, RT_ERR_INPUT, "RPN node %d: bad opcode %d", i, nd->op);
			goto out;
		}
	}
	if (sp != 1 || nc == 0) {
		status = rt_fail(err, RT_ERR_INPUT,
				 nc == 0 ? "a program must have a function at its root (LGP form)"
					 : "RPN program leaves %d values, expected 1", sp);
		goto out;
	}
	*ncode = nc;
	*nconsts = nk;
	*max_stack = maxreal;
out:
	if (st != local)
		free(st);
	return status;
}

int gp_lgp_max_stack(const gp_insn *code, int ncode)
{
	int sp = 0, max = 0;
	for (int i = 0; i < ncode; i++) {
		int a = gp_op_arity(code[i].op);
		for (int k = 0; k < a; k++)
			sp -= GP_INSN_KIND(code[i], k) == GP_SRC_S;
		if (sp < 0)
			return -1;
		if (++sp > max)
			max = sp;
	}
	return max;
}

/* ---- populations -------------------------------------------------------------- */

void gp_packed_init(gp_packed *p)
{
	memset(p, 0, sizeof *p);
}

void gp_packed_free(gp_packed *p)
{
	free(p->offset);
	free(p->const_offset);
	free(p->rpn);
	free(p->lgp);
	free(p->consts);
	free(p->max_stack);
	free(p->nnodes);
	gp_packed_init(p);
}

/* Per-program arrays for n programs, and code/constant room for the form. */
static rt_status packed_prepare(gp_packed *p, int form, int n, size_t ncode, size_t nconsts,
				rt_error *err)
{
	if (p->form != form || (!p->rpn && !p->lgp)) {
		/* Code buffers hold one form at a time. */
		free(p->rpn);
		free(p->lgp);
		p->rpn = NULL;
		p->lgp = NULL;
		p->cap_code = 0;
		p->form = form;
	}
	void *q;
#define GROW_(field, count)                                                         \
	if (!(q = rt_realloc(p->field, (size_t)(count) * sizeof *p->field, err))) \
		return err->status;                                                 \
	p->field = q;
	GROW_(offset, n + 1)
	GROW_(const_offset, n + 1)
	GROW_(max_stack, n > 0 ? n : 1)
	GROW_(nnodes, n > 0 ? n : 1)
	if (ncode < 1)
		ncode = 1;
	if (ncode > p->cap_code) {
		size_t cap = p->cap_code ? p->cap_code : 1024;
		while (cap < ncode)
			cap *= 2;
		if (form == GP_FORM_RPN) {
			GROW_(rpn, cap)
		} else {
			GROW_(lgp, cap)
		}
		p->cap_code = cap;
	}
	if (nconsts < 1)
		nconsts = 1;
	if (nconsts > p->cap_consts) {
		size_t cap = p->cap_consts ? p->cap_consts : 1024;
		while (cap < nconsts)
			cap *= 2;
		GROW_(consts, cap)
		p->cap_consts = cap;
	}
#undef GROW_
	p->nprogs = n;
	return RT_OK;
}

/* Packing in parallel: every program's place is known before it is
 * converted (RPN: its tree size; LGP: its function nodes are its
 * instructions, its constant nodes its constants), so offsets are prefix
 * sums taken first and the programs are converted by cpu_parallel_for
 * straight into their slots. The result is the sequential packing's, byte
 * for byte; an error names the lowest failing program, as a sequential pass
 * would. Small populations are packed on the calling thread. */
#define PACK_GRAIN 32

typedef struct pack_job {
	gp_packed *out;
	const gp_tree *trees;
	int maxn;
	_Atomic int bad;        /* lowest failing program, or INT_MAX */
} pack_job;

static void note_bad(pack_job *job, int i)
{
	int cur = atomic_load(&job->bad);
	while (i < cur && !atomic_compare_exchange_weak(&job->bad, &cur, i))
		;
}

/* Converts program i into its slot; 0 on failure (err filled). */
static int pack_one_rpn(pack_job *job, int i, rt_error *err)
{
	gp_packed *out = job->out;
	const gp_tree *t = &job->trees[i];
	int ms = gp_tree_to_rpn(t->nodes, t->n, out->rpn + out->offset[i]);
	if (ms < 0) {
		rt_fail(err, RT_ERR_INTERNAL, "program %d is not a well-formed tree", i);
		return 0;
	}
	out->max_stack[i] = (uint16_t)(ms > UINT16_MAX ? UINT16_MAX : ms);
	out->nnodes[i] = (uint32_t)t->n;
	return 1;
}

static int pack_one_lgp(pack_job *job, int i, gp_node *tmp, rt_error *err)
{
	gp_packed *out = job->out;
	const gp_tree *t = &job->trees[i];
	int nc, nk, ms;
	if (gp_tree_to_rpn(t->nodes, t->n, tmp) < 0) {
		rt_fail(err, RT_ERR_INTERNAL, "program %d is not a well-formed tree", i);
		return 0;
	}
	if (gp_lgp_from_rpn(tmp, t->n, out->lgp + out->offset[i], &nc,
			    out->consts + out->const_offset[i], &nk, &ms, err)) {
		rt_error_prefix(err, "program %d", i);
		return 0;
	}
	if ((uint32_t)nc != out->offset[i + 1] - out->offset[i] ||
	    (uint32_t)nk != out->const_offset[i + 1] - out->const_offset[i]) {
		rt_fail(err, RT_ERR_INTERNAL, "program %d: %d instructions and %d constants, "
			"counted %u and %u", i, nc, nk, out->offset[i + 1] - out->offset[i],
			out->const_offset[i + 1] - out->const_offset[i]);
		return 0;
	}
	out->max_stack[i] = (uint16_t)ms;
	out->nnodes[i] = (uint32_t)t->n;
	return 1;
}

static void pack_range_rpn(void *ctx, long begin, long end, int thread)
{
	pack_job *job = ctx;
	rt_error err;
	(void)thread;
	for (long i = begin; i < end; i++)
		if (!pack_one_rpn(job, (int)i, &err))
			note_bad(job, (int)i);
}

static void pack_range_lgp(void *ctx, long begin, long end, int thread)
{
	pack_job *job = ctx;
	rt_error err;
	gp_node local[512];
	gp_node *tmp = job->maxn <= 512 ? local : malloc((size_t)job->maxn * sizeof *tmp);
	(void)thread;
	for (long i = begin; i < end; i++)
		if (!tmp || !pack_one_lgp(job, (int)i, tmp, &err))
			note_bad(job, (int)i);
	if (tmp != local)
		free(tmp);
}

/* Runs fn over the population (in parallel when it is worth it); on a
 * failure, converts the lowest failing program again on this thread to
 * report its error. */
static rt_status pack_all(pack_job *job, int n, cpu_range_fn fn, int lgp, rt_error *err)
{
	atomic_store(&job->bad, INT_MAX);
	if (n >= 2 * PACK_GRAIN) {
		if (cpu_parallel_for(n, PACK_GRAIN, fn, job, err))
			return err->status;
	} else {
		fn(job, 0, n, 0);
	}
	int bad = atomic_load(&job->bad);
	if (bad == INT_MAX)
		return RT_OK;
	if (!lgp) {
		pack_one_rpn(job, bad, err);
		return err->status;
	}
	gp_node *tmp = rt_malloc((size_t)job->maxn * sizeof *tmp, err);
	if (!tmp)
		return err->status;
	if (pack_one_lgp(job, bad, tmp, err))
		rt_fail(err, RT_ERR_SYSTEM, "program %d: out of memory converting it", bad);
	free(tmp);
	return err->status;
}

rt_status gp_pack_rpn(gp_packed *out, const gp_tree *trees, int n, rt_error *err)
{
	size_t total = 0;
	for (int i = 0; i < n; i++)
		total += (size_t)trees[i].n;
	if (total > UINT32_MAX)
		return rt_fail(err, RT_ERR_INPUT, "population of %zu nodes is too large to pack", total);
	if (packed_prepare(out, GP_FORM_RPN, n, total, 0, err))
		return err->status;
	uint32_t pos = 0;
	for (int i = 0; i < n; i++) {
		out->offset[i] = pos;
		out->const_offset[i] = 0;
		pos += (uint32_t)trees[i].n;
	}
	out->offset[n] = pos;
	out->const_offset[n] = 0;
	pack_job job = { out, trees, 1, INT_MAX };
	return pack_all(&job, n, pack_range_rpn, 0, err);
}

rt_status gp_pack_lgp(gp_packed *out, const gp_tree *trees, int n, rt_error *err)
{
	size_t total = 0;
	int maxn = 1;
	for (int i = 0; i < n; i++) {
		total += (size_t)trees[i].n;
		if (trees[i].n > maxn)
			maxn = trees[i].n;
	}
	if (total > UINT32_MAX)
		return rt_fail(err, RT_ERR_INPUT, "population of %zu nodes is too large to pack", total);
	if (packed_prepare(out, GP_FORM_LGP, n, total, total, err))
		return err->status;
	/* Exact sizes: one instruction per function node, one constant per
	 * constant node (gp_lgp_from_rpn emits exactly these). */
	uint32_t pos = 0, cpos = 0;
	for (int i = 0; i < n; i++) {
		const gp_node *nd = trees[i].nodes;
		uint32_t nf = 0, nk = 0;
		out->offset[i] = pos;
		out->const_offset[i] = cpos;
		for (int k = 0; k < trees[i].n; k++) {
			nf += nd[k].op < GP_OP_COUNT;
			nk += nd[k].op == GP_TERM_CONST;
		}
		pos += nf;
		cpos += nk;
	}
	out->offset[n] = pos;
	out->const_offset[n] = cpos;
	pack_job job = { out, trees, maxn, INT_MAX };
	return pack_all(&job, n, pack_range_lgp, 1, err);
}

rt_status gp_pack_lgp_from_rpn(gp_packed *out, const gp_packed *rpn, rt_error *err)
{
	if (rpn->form != GP_FORM_RPN || out == rpn)
		return rt_fail(err, RT_ERR_INTERNAL, "gp_pack_lgp_from_rpn needs an RPN population");
	int n = rpn->nprogs;
	size_t total = n > 0 ? rpn->offset[n] : 0;
	if (packed_prepare(out, GP_FORM_LGP, n, total, total, err))
		return err->status;
	uint32_t pos = 0, cpos = 0;
	for (int i = 0; i < n; i++) {
		out->offset[i] = pos;
		out->const_offset[i] = cpos;
		int len = (int)(rpn->offset[i + 1] - rpn->offset[i]);
		int nc, nk, ms;
		if (gp_lgp_from_rpn(rpn->rpn + rpn->offset[i], len, out->lgp + pos, &nc,
				    out->consts + cpos, &nk, &ms, err)) {
			rt_error_prefix(err, "program %d", i);
			return err->status;
		}
		out->max_stack[i] = (uint16_t)ms;
		out->nnodes[i] = rpn->nnodes[i];
		pos += (uint32_t)nc;
		cpos += (uint32_t)nk;
	}
	out->offset[n] = pos;
	out->const_offset[n] = cpos;
	return RT_OK;
}

uint64_t gp_packed_total_nodes(const gp_packed *p)
{
	uint64_t s = 0;
	for (int i = 0; i < p->nprogs; i++)
		s += p->nnodes[i];
	return s;
}

/* ---- text ------------------------------------------------------------------------ */

static void put_input(rt_buf *b, int var, const gp_names *nm)
{
	if (nm && nm->names && var < nm->ninputs)
		rt_buf_puts(b, nm->names[var]);
	else if (nm && nm->ninputs == 1)
		rt_buf_puts(b, "x");
	else
		rt_buf_printf(b, "x%d", var + 1);
}

static void put_terminal(rt_buf *b, const gp_node *nd, const gp_names *nm)
{
	if (nd->op == GP_TERM_VAR)
		put_input(b, nd->var, nm);
	else
		rt_buf_printf(b, "%.9g", (double)nd->value);
}

/* Prints the subtree at *i and advances *i past it. */
static void infix(rt_buf *b, const gp_node *t, int n, int *i, const gp_names *nm, int depth)
{
	if (*i >= n || depth > GP_MAX_DEPTH_LIMIT) {
		rt_buf_puts(b, "?");
		return;
	}
	const gp_node *nd = &t[(*i)++];
	int a = gp_node_arity(nd);
	if (a == 0) {
		put_terminal(b, nd, nm);
		return;
	}
	const char *name = gp_op_name(nd->op);
	if (a == 2 && strcmp(name, "nand") != 0 && strcmp(name, "nor") != 0 &&
	    nd->op != GP_OP_AQ) {
		rt_buf_puts(b, "(");
		infix(b, t, n, i, nm, depth + 1);
		rt_buf_printf(b, " %s ", name);
		infix(b, t, n, i, nm, depth + 1);
		rt_buf_puts(b, ")");
		return;
	}
	rt_buf_printf(b, "%s(", name);
	for (int k = 0; k < a; k++) {
		if (k)
			rt_buf_puts(b, ", ");
		infix(b, t, n, i, nm, depth + 1);
	}
	rt_buf_puts(b, ")");
}

void gp_print_infix(rt_buf *b, const gp_node *prefix, int n, const gp_names *nm)
{
	int i = 0;
	infix(b, prefix, n, &i, nm, 0);
}

void gp_print_rpn(rt_buf *b, const gp_node *rpn, int n, const gp_names *nm)
{
	for (int i = 0; i < n; i++) {
		if (i)
			rt_buf_puts(b, " ");
		if (rpn[i].op < GP_OP_COUNT)
			rt_buf_puts(b, gp_op_name(rpn[i].op));
		else
			put_terminal(b, &rpn[i], nm);
	}
}

void gp_print_lgp(rt_buf *b, const gp_insn *code, int ncode, const float *consts,
		  const gp_names *nm)
{
	int one = nm && nm->ninputs == 1;
	for (int i = 0; i < ncode; i++) {
		const gp_insn *in = &code[i];
		int a = gp_op_arity(in->op);
		char ops[3][48];
		int longest = 0;
		for (int k = 0; k < a; k++) {
			switch (GP_INSN_KIND(*in, k)) {
			case GP_SRC_S: strcpy(ops[k], "S"); break;
			case GP_SRC_X:
				if (one)
					strcpy(ops[k], "X");
				else if (nm && nm->names && in->arg[k] < nm->ninputs)
					snprintf(ops[k], sizeof ops[k], "%s", nm->names[in->arg[k]]);
				else
					snprintf(ops[k], sizeof ops[k], "X%d", in->arg[k] + 1);
				break;
			default:
				snprintf(ops[k], sizeof ops[k], "%.9g", (double)consts[in->arg[k]]);
				break;
			}
			int len = (int)strlen(ops[k]);
			if (len > longest)
				longest = len;
		}
		rt_buf_printf(b, "%s%s(", i ? " " : "", gp_op_name(in->op));
		for (int k = 0; k < a; k++)
			rt_buf_printf(b, "%s%s", k && longest > 1 ? "," : "", ops[k]);
		rt_buf_puts(b, ")");
	}
}

rt_status gp_print_tree(const gp_tree *t, const gp_names *nm, rt_buf *inf, rt_buf *rpn,
			rt_buf *lgp, rt_error *err)
{
	if (inf)
		gp_print_infix(inf, t->nodes, t->n, nm);
	if (!rpn && !lgp)
		return RT_OK;
	int n = t->n > 0 ? t->n : 1;
	gp_node *post = rt_malloc((size_t)n * sizeof *post, err);
	gp_insn *code = rt_malloc((size_t)n * sizeof *code, err);
	float *consts = rt_malloc((size_t)n * sizeof *consts, err);
	rt_status st = RT_OK;
	if (!post || !code || !consts) {
		st = err->status;
		goto out;
	}
	if (gp_tree_to_rpn(t->nodes, t->n, post) < 0) {
		st = rt_fail(err, RT_ERR_INTERNAL, "not a well-formed tree");
		goto out;
	}
	if (rpn)
		gp_print_rpn(rpn, post, t->n, nm);
	if (lgp) {
		int nc, nk, ms;
		if ((st = gp_lgp_from_rpn(post, t->n, code, &nc, consts, &nk, &ms, err)))
			goto out;
		gp_print_lgp(lgp, code, nc, consts, nm);
	}
out:
	free(post);
	free(code);
	free(consts);
	return st;
}

/* ---- the exact prefix text (result.json's best.prefix) --------------------- */

void gp_print_prefix(rt_buf *b, const gp_node *prefix, int n)
{
	for (int i = 0; i < n; i++) {
		const gp_node *nd = &prefix[i];
		if (i)
			rt_buf_puts(b, " ");
		if (nd->op == GP_TERM_VAR)
			rt_buf_printf(b, "$%u", (unsigned)nd->var);
		else if (nd->op == GP_TERM_CONST)
			rt_buf_printf(b, "%a", (double)nd->value);
		else
			rt_buf_puts(b, gp_op_name(nd->op));
	}
}

/* One token of prefix text (from *p, advanced) as a node; -1 if malformed. */
static int prefix_token(const char **p, gp_node *nd)
{
	char tok[64], *end;
	size_t len = strcspn(*p, " ");
	if (len == 0 || len >= sizeof tok)
		return -1;
	memcpy(tok, *p, len);
	tok[len] = 0;
	*p += len;
	if (tok[0] == '$') {
		long v = strtol(tok + 1, &end, 10);
		if (end == tok + 1 || *end || v < 0 || v > 65535)
			return -1;
		*nd = gp_var((int)v);
	} else if (gp_op_lookup(tok) >= 0) {
		*nd = gp_fn(gp_op_lookup(tok));
	} else {
		float v = strtof(tok, &end);
		if (end == tok || *end || !isfinite(v))
			return -1;
		*nd = gp_const(v);
	}
	return 0;
}

rt_status gp_parse_prefix(const char *text, int ninputs, gp_tree *t, rt_error *err)
{
	const char *p = text;
	int n = 0;
	t->n = 0;
	while (*p) {
		while (*p == ' ')
			p++;
		if (!*p)
			break;
		if (n == GP_MAX_SIZE_LIMIT)
			return rt_fail(err, RT_ERR_INPUT, "expected at most %d nodes", GP_MAX_SIZE_LIMIT);
		if (gp_tree_reserve(t, n + 1, err))
			return err->status;
		const char *at = p;
		if (prefix_token(&p, &t->nodes[n]) < 0)
			return rt_fail(err, RT_ERR_INPUT, "node %d: expected a function name, $INPUT or a "
				       "finite number, got '%.*s'", n + 1, (int)strcspn(at, " "), at);
		t->n = ++n;
	}
	if (!gp_tree_valid(t->nodes, t->n, ninputs))
		return rt_fail(err, RT_ERR_INPUT, "expected a complete prefix program over %d inputs, "
			       "got '%.60s'", ninputs, text);
	return RT_OK;
}
