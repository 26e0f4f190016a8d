/* svm_model.c: kind `svm`'s model files in LIBSVM 3.x's format (what
 * svm_save_model writes and svm_load_model reads), of its five types.
 *
 *   svm_type c_svc           c_svc | nu_svc | one_class | epsilon_svr | nu_svr
 *   kernel_type rbf          linear | polynomial | rbf | sigmoid
 *   degree 3                 polynomial only
 *   gamma 0.5                polynomial, rbf, sigmoid
 *   coef0 0                  polynomial, sigmoid
 *   nr_class 2
 *   total_sv 123
 *   rho 0.123                k(k-1)/2 values, pairs (0,1), (0,2), ..., (1,2), ...
 *   label 1 -1               k ints (c_svc, nu_svc only)
 *   nr_sv 60 63              k counts adding up to total_sv (c_svc, nu_svc only)
 *   SV
 *   then total_sv lines: k-1 coefficients, then index:value pairs
 *   (1-based, ascending, zeros left out), support vectors grouped by class.
 *
 * Writing: coefficients, rho, gamma and coef0 as "%.17g" and feature
 * values (floats here) as "%.9g", so everything reads back bit-exactly
 * (except -0.0, a zero, which is left out like any zero); no trailing
 * blanks (LIBSVM's loader does not need them); the file is replaced
 * atomically.
 *
 * Reading: as LIBSVM's loader, the header lines may come in any order but
 * end with "SV"; probA / probB lines (`svm-train -b 1`: Platt's A and B
 * per pair, a regression's sigma as its one probA) are kept in m->probA /
 * probB and written back between label and nr_sv, as LIBSVM does. Stricter than LIBSVM: every header key once; rho,
 * label, probA, probB and nr_sv after nr_class, with exactly the right
 * number of values; nr_sv adding up to total_sv; the kernel's own
 * parameters present; labels distinct; numbers finite and nothing after
 * them; blank lines are skipped in the header and after the support
 * vectors, but in the SV section each line is one support vector (as
 * LIBSVM reads it). One-class and regression models (nr_class 2, one rho,
 * no label or nr_sv) get label {1, -1} and nsv {total_sv, 0} here
 * (svm_model's rule). The kernel_type LIBSVM knows that we do not
 * (precomputed) fails with
 * RT_ERR_UNSUPPORTED, anything else with RT_ERR_INPUT; every message reads
 * "file:line: expected ..., got ...", the end of the file counting as the
 * line after the last. The dense width nfeat is the largest index seen (at
 * least 1), at most RT_DATA_MAX_COLS. */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "out.h"
#include "svm_impl.h"

/* Most classes a model may have (svm_predict votes in a table this big). */
#if !defined(SVM_MAX_CLASSES)
#define SVM_MAX_CLASSES 256
#endif

/* Indexed by enum svm_kernel_type: LIBSVM's names. */
static const char *const kernel_names[] = { "linear", "polynomial", "rbf", "sigmoid" };

/* Does kernel type t use degree / gamma / coef0 (what LIBSVM writes)? */
static int uses_degree(int t) { return t == SVM_POLY; }
static int uses_gamma(int t) { return t != SVM_LINEAR; }
static int uses_coef0(int t) { return t == SVM_POLY || t == SVM_SIGMOID; }

void svm_model_free(svm_model *m)
{
	free(m->rho);
	free(m->label);
	free(m->nsv);
	free(m->sv_coef);
	free(m->sv);
	free(m->svs.ptr);
	free(m->svs.col);
	free(m->svs.val);
	free(m->obj);
	free(m->pairs);
	for (int q = 0; m->hist && q < m->nr_class * (m->nr_class - 1) / 2; q++)
		svm_history_free(&m->hist[q]);
	free(m->hist);
	free(m->probA);
	free(m->probB);
	memset(m, 0, sizeof *m);
}

/* ---- writing ----------------------------------------------------------------------- */

/* The model's sizes, counts and labels agree with each other. */
static rt_status check_shape(const char *path, const svm_model *m, rt_error *err)
{
	long sum = 0;
	int k = m->nr_class;
	if (m->type < 0 || m->type >= SVM_TYPE_COUNT || (SVM_IS_SINGLE(m->type) && k != 2))
		return rt_fail(err, RT_ERR_INTERNAL, "%s: svm type %d with %d classes; not written",
			       path, m->type, k);
	if (m->kernel.type < SVM_LINEAR || m->kernel.type > SVM_SIGMOID)
		return rt_fail(err, RT_ERR_INTERNAL, "%s: kernel type %d unknown; not written", path,
			       m->kernel.type);
	if (k < 1 || k > SVM_MAX_CLASSES || m->total_sv < 0 || m->total_sv > INT_MAX ||
	    m->nfeat < 0 || !m->label || !m->nsv || (k > 1 && !m->rho) ||
	    (k > 1 && m->total_sv > 0 && !m->sv_coef) ||
	    (m->total_sv > 0 && m->nfeat > 0 && !(m->sparse ? m->svs.ptr != NULL : m->sv != NULL)))
		return rt_fail(err, RT_ERR_INTERNAL, "%s: cannot write a model of %d classes, %ld "
			       "support vectors, %d features (or arrays missing); not written", path, k,
			       m->total_sv, m->nfeat);
	for (int c = 0; c < k; c++) {
		if (m->nsv[c] < 0)
			return rt_fail(err, RT_ERR_INTERNAL, "%s: class %d has %ld support vectors; "
				       "not written", path, c, m->nsv[c]);
		sum += m->nsv[c];
		for (int d = 0; d < c; d++)
			if (m->label[d] == m->label[c])
				return rt_fail(err, RT_ERR_INTERNAL, "%s: label %d is given twice; not "
					       "written", path, m->label[c]);
	}
	if (sum != m->total_sv)
		return rt_fail(err, RT_ERR_INTERNAL, "%s: the classes' support vectors add up to %ld, "
			       "not total_sv %ld; not written", path, sum, m->total_sv);
	return RT_OK;
}

/* Every number the file will hold is finite. */
static rt_status check_finite(const char *path, const svm_model *m, rt_error *err)
{
	long npairs = (long)m->nr_class * (m->nr_class - 1) / 2;
	size_t ncoef = (size_t)(m->nr_class - 1) * (size_t)m->total_sv;
	size_t nval = m->sparse ? (size_t)m->svs.ptr[m->total_sv]
		      : (size_t)m->total_sv * (size_t)m->nfeat;
	const float *vals = m->sparse ? m->svs.val : m->sv;
	const char *bad = NULL;
	if ((uses_gamma(m->kernel.type) && !isfinite(m->kernel.gamma)) ||
	    (uses_coef0(m->kernel.type) && !isfinite(m->kernel.coef0)))
		bad = "a kernel parameter";
	for (long q = 0; !bad && q < npairs; q++)
		if (!isfinite(m->rho[q]) || (m->probA && !isfinite(m->probA[q])) ||
		    (m->probB && !isfinite(m->probB[q])))
			bad = "a rho or probA / probB";
	for (size_t i = 0; !bad && i < ncoef; i++)
		if (!isfinite(m->sv_coef[i]))
			bad = "a coefficient";
	for (size_t i = 0; !bad && i < nval; i++)
		if (!isfinite(vals[i]))
			bad = "a support vector's value";
	if (bad)
		return rt_fail(err, RT_ERR_INTERNAL, "%s: %s is not finite; not written", path, bad);
	return RT_OK;
}

/* A probA / probB line (after label, before nr_sv: LIBSVM's order); v NULL: none. */
static void put_prob(rt_buf *b, const char *key, const double *v, int n)
{
	if (!v)
		return;
	rt_buf_printf(b, "\n%s", key);
	for (int q = 0; q < n; q++)
		rt_buf_printf(b, " %.17g", v[q]);
}

/* Everything up to and including the "SV" line. */
static void put_header(rt_buf *b, const svm_model *m)
{
	int k = m->nr_class, t = m->kernel.type;
	rt_buf_printf(b, "svm_type %s\nkernel_type %s\n", svm_type_names[m->type], kernel_names[t]);
	if (uses_degree(t))
		rt_buf_printf(b, "degree %d\n", m->kernel.degree);
	if (uses_gamma(t))
		rt_buf_printf(b, "gamma %.17g\n", m->kernel.gamma);
	if (uses_coef0(t))
		rt_buf_printf(b, "coef0 %.17g\n", m->kernel.coef0);
	rt_buf_printf(b, "nr_class %d\ntotal_sv %ld\nrho", k, m->total_sv);
	for (int q = 0; q < k * (k - 1) / 2; q++)
		rt_buf_printf(b, " %.17g", m->rho[q]);
	if (!SVM_IS_SINGLE(m->type)) {   /* one-class, regression: no classes (LIBSVM's file) */
		rt_buf_puts(b, "\nlabel");
		for (int c = 0; c < k; c++)
			rt_buf_printf(b, " %d", m->label[c]);
	}
	put_prob(b, "probA", m->probA, k * (k - 1) / 2);
	put_prob(b, "probB", m->probB, k * (k - 1) / 2);
	if (!SVM_IS_SINGLE(m->type)) {
		rt_buf_puts(b, "\nnr_sv");
		for (int c = 0; c < k; c++)
			rt_buf_printf(b, " %ld", m->nsv[c]);
	}
	rt_buf_puts(b, "\nSV\n");
}

/* One line per support vector: coefficients, then the nonzero values. */
static void put_svs(rt_buf *b, const svm_model *m)
{
	for (long i = 0; i < m->total_sv; i++) {
		const float *v = m->sparse ? NULL : m->sv + (size_t)i * (size_t)m->nfeat;
		const char *sep = "";
		for (int j = 0; j < m->nr_class - 1; j++, sep = " ")
			rt_buf_printf(b, "%s%.17g", sep, m->sv_coef[(size_t)j * (size_t)m->total_sv + (size_t)i]);
		for (int f = 0; v && f < m->nfeat; f++)
			if (v[f] != 0) {
				rt_buf_printf(b, "%s%d:%.9g", sep, f + 1, (double)v[f]);
				sep = " ";
			}
		for (long e = m->sparse ? m->svs.ptr[i] : 0; !v && e < m->svs.ptr[i + 1]; e++)
			if (m->svs.val[e] != 0) {
				rt_buf_printf(b, "%s%d:%.9g", sep, m->svs.col[e] + 1, (double)m->svs.val[e]);
				sep = " ";
			}
		rt_buf_puts(b, "\n");
	}
}

rt_status svm_model_write(const char *path, const svm_model *m, rt_error *err)
{
	rt_buf b = { 0 };
	rt_status st;
	if ((st = check_shape(path, m, err)) != RT_OK || (st = check_finite(path, m, err)) != RT_OK)
		return st;
	put_header(&b, m);
	put_svs(&b, m);
	if (b.failed) {
		rt_buf_free(&b);
		return rt_fail(err, RT_ERR_SYSTEM, "%s: out of memory formatting the model", path);
	}
	st = rt_write_file_atomic(path, b.data, b.len, err);
	rt_buf_free(&b);
	return st;
}

/* ---- reading: lines and words ------------------------------------------------------ */

typedef struct mr_reader {
	const char *path;
	char *next, *end;   /* the unread text */
	long line;          /* number of the current line */
	char *text;         /* the current line ('\r' cut); NULL at the end of the file */
	int eof;
	rt_error *err;
} mr_reader;

/* A word of a line (not NUL-terminated: the line stays whole for messages). */
typedef struct mr_word {
	const char *s;
	int len;
} mr_word;

static int blank(char c) { return c == ' ' || c == '\t'; }

/* Moves to the next line, verbatim; 0 at the end of the file. */
static int raw_line(mr_reader *r)
{
	char *s = r->next, *nl;
	if (s >= r->end) {
		r->line += !r->eof;   /* the end of the file is the line after the last */
		r->eof = 1;
		r->text = NULL;
		return 0;
	}
	r->line++;
	nl = memchr(s, '\n', (size_t)(r->end - s));
	if (!nl)
		nl = r->end;
	*nl = '\0';
	if (nl > s && nl[-1] == '\r')
		nl[-1] = '\0';
	r->next = nl + 1;
	r->text = s;
	return 1;
}

/* Is the current line empty or all blanks? */
static int line_blank(const mr_reader *r)
{
	const char *p = r->text;
	while (blank(*p))
		p++;
	return *p == '\0';
}

/* Moves to the next line that is not blank; 0 at the end of the file. */
static int content_line(mr_reader *r)
{
	while (raw_line(r))
		if (!line_blank(r))
			return 1;
	return 0;
}

/* The next word at *p (advanced past it); 0 when the line has no more. */
static int next_word(const char **p, mr_word *w)
{
	const char *s = *p;
	while (blank(*s))
		s++;
	w->s = s;
	while (*s && !blank(*s))
		s++;
	w->len = (int)(s - w->s);
	*p = s;
	return w->len > 0;
}

/* "path:line: " and the message, with the given status. */
static rt_status fail_at(mr_reader *r, rt_status st, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static rt_status fail_at(mr_reader *r, rt_status st, const char *fmt, ...)
{
	char msg[RT_ERROR_MAX];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	return rt_fail(r->err, st, "%s:%ld: %s", r->path, r->line, msg);
}

/* The current line for "got ...": quoted (long lines cut), or "end of file". */
static const char *shown(const mr_reader *r, char *buf, size_t size)
{
	const char *s = r->text;
	if (!s)
		return "end of file";
	while (blank(*s))
		s++;
	if (strlen(s) > 72)
		snprintf(buf, size, "'%.72s...'", s);
	else
		snprintf(buf, size, "'%s'", s);
	return buf;
}

/* A word quoted for "got ..." (long words cut). */
static const char *quoted(const mr_word *w, char *buf, size_t size)
{
	snprintf(buf, size, "'%.*s%s'", w->len > 40 ? 40 : w->len, w->s, w->len > 40 ? "..." : "");
	return buf;
}

/* s[0..len) as a finite double. */
static int parse_double(const char *s, int len, double *out)
{
	char *end;
	double v;
	if (len <= 0 || blank(*s))
		return 0;
	v = strtod(s, &end);
	if (end != s + len || !isfinite(v))
		return 0;
	*out = v;
	return 1;
}

/* s[0..len) as a finite float (strtof: correctly rounded from the text). */
static int parse_float(const char *s, int len, float *out)
{
	char *end;
	float v;
	if (len <= 0 || blank(*s))
		return 0;
	v = strtof(s, &end);
	if (end != s + len || !isfinite(v))
		return 0;
	*out = v;
	return 1;
}

/* w as a whole number (optional '-', digits) in [min, max]. */
static int parse_long(const mr_word *w, long min, long max, long *out)
{
	char *end;
	long v;
	for (int i = 0; i < w->len; i++)
		if ((w->s[i] < '0' || w->s[i] > '9') && !(i == 0 && w->s[i] == '-' && w->len > 1))
			return 0;
	errno = 0;
	v = strtol(w->s, &end, 10);
	if (end != w->s + w->len || errno || v < min || v > max)
		return 0;
	*out = v;
	return 1;
}

/* ---- reading: the header ----------------------------------------------------------- */

enum { K_SVM_TYPE, K_KERNEL_TYPE, K_DEGREE, K_GAMMA, K_COEF0, K_NR_CLASS, K_TOTAL_SV,
       K_RHO, K_LABEL, K_PROBA, K_PROBB, K_NR_SV, K_KEYS };
static const char *const head_keys[K_KEYS] = {
	"svm_type", "kernel_type", "degree", "gamma", "coef0", "nr_class", "total_sv",
	"rho", "label", "probA", "probB", "nr_sv",
};
#define HEAD_KEY_LIST "svm_type, kernel_type, degree, gamma, coef0, nr_class, total_sv, " \
	"rho, label, probA, probB, nr_sv or SV"

/* What the header has said so far. */
typedef struct mr_head {
	long at[K_KEYS];    /* line of each key (0: not given) */
	long nsv_sum;
} mr_head;

/* The one value after the key: "KEY VALUE" and nothing more. */
static rt_status one_value(mr_reader *r, const char *p, const char *form, mr_word *w)
{
	char buf[96];
	mr_word extra;
	if (!next_word(&p, w) || next_word(&p, &extra))
		return fail_at(r, RT_ERR_INPUT, "expected '%s', got %s", form, shown(r, buf, sizeof buf));
	return RT_OK;
}

/* svm_type c_svc | nu_svc | one_class | epsilon_svr | nu_svr. */
static rt_status head_svm_type(mr_reader *r, const char *p, svm_model *m)
{
	char buf[64];
	mr_word w;
	rt_status st = one_value(r, p, "svm_type NAME", &w);
	if (st)
		return st;
	for (int t = 0; t < SVM_TYPE_COUNT; t++)
		if ((size_t)w.len == strlen(svm_type_names[t]) &&
		    !strncmp(w.s, svm_type_names[t], (size_t)w.len))
			return (m->type = t, RT_OK);
	return fail_at(r, RT_ERR_INPUT, "expected an svm_type of c_svc, nu_svc, one_class, "
		       "epsilon_svr or nu_svr, got svm_type %s", quoted(&w, buf, sizeof buf));
}

/* One-class and regression: nr_class 2, and the classes' arrays as
 * svm_model's rule has them (whatever label / nr_sv lines said). */
static rt_status single_classes(mr_reader *r, const mr_head *h, svm_model *m)
{
	if (m->nr_class != 2)
		return fail_at(r, RT_ERR_INPUT, "expected 'nr_class 2' for svm_type %s (line %ld), got "
			       "nr_class %d (line %ld)", svm_type_names[m->type], h->at[K_SVM_TYPE],
			       m->nr_class, h->at[K_NR_CLASS]);
	free(m->label);
	free(m->nsv);
	m->label = rt_malloc(2 * sizeof *m->label, r->err);
	m->nsv = rt_malloc(2 * sizeof *m->nsv, r->err);
	if (!m->label || !m->nsv)
		return RT_ERR_SYSTEM;
	m->label[0] = 1;
	m->label[1] = -1;
	m->nsv[0] = m->total_sv;
	m->nsv[1] = 0;
	return RT_OK;
}

/* kernel_type linear|polynomial|rbf|sigmoid; precomputed is unsupported. */
static rt_status head_kernel_type(mr_reader *r, const char *p, svm_model *m)
{
	char buf[64];
	mr_word w;
	rt_status st = one_value(r, p, "kernel_type NAME", &w);
	if (st)
		return st;
	for (int t = SVM_LINEAR; t <= SVM_SIGMOID; t++)
		if ((size_t)w.len == strlen(kernel_names[t]) &&
		    !strncmp(w.s, kernel_names[t], (size_t)w.len)) {
			m->kernel.type = t;
			return RT_OK;
		}
	return fail_at(r, w.len == 11 && !strncmp(w.s, "precomputed", 11) ? RT_ERR_UNSUPPORTED
		       : RT_ERR_INPUT, "expected a kernel_type of linear, polynomial, rbf or sigmoid, "
		       "got %s", quoted(&w, buf, sizeof buf));
}

/* nr_sv's counts and total_sv agree (checked at the second of the two lines). */
static rt_status check_total(mr_reader *r, const mr_head *h, const svm_model *m)
{
	char buf[96];
	if (!h->at[K_NR_SV] || !h->at[K_TOTAL_SV] || h->nsv_sum == m->total_sv)
		return RT_OK;
	if (h->at[K_NR_SV] == r->line)
		return fail_at(r, RT_ERR_INPUT, "expected nr_sv counts adding up to total_sv %ld "
			       "(line %ld), got %ld: %s", m->total_sv, h->at[K_TOTAL_SV], h->nsv_sum,
			       shown(r, buf, sizeof buf));
	return fail_at(r, RT_ERR_INPUT, "expected 'total_sv %ld' (the sum of nr_sv, line %ld), got %s",
		       h->nsv_sum, h->at[K_NR_SV], shown(r, buf, sizeof buf));
}

/* degree, gamma, coef0, nr_class and total_sv: one number each. */
static rt_status head_number(mr_reader *r, mr_head *h, int key, const char *p, svm_model *m)
{
	static const char *const forms[] = { [K_DEGREE] = "degree N", [K_GAMMA] = "gamma NUMBER",
		[K_COEF0] = "coef0 NUMBER", [K_NR_CLASS] = "nr_class N", [K_TOTAL_SV] = "total_sv N" };
	char buf[64];
	mr_word w;
	long v = 0;
	int ok;
	rt_status st = one_value(r, p, forms[key], &w);
	if (st)
		return st;
	if (key == K_GAMMA || key == K_COEF0)
		ok = parse_double(w.s, w.len, key == K_GAMMA ? &m->kernel.gamma : &m->kernel.coef0);
	else if (key == K_DEGREE)
		ok = parse_long(&w, 0, INT_MAX, &v);
	else if (key == K_NR_CLASS)
		ok = parse_long(&w, 1, SVM_MAX_CLASSES, &v);
	else
		ok = parse_long(&w, 0, INT_MAX, &v);
	if (!ok && key == K_NR_CLASS)
		return fail_at(r, RT_ERR_INPUT, "expected '%s' (N from 1 to %d), got nr_class %s",
			       forms[key], SVM_MAX_CLASSES, quoted(&w, buf, sizeof buf));
	if (!ok)
		return fail_at(r, RT_ERR_INPUT, "expected '%s' (%s), got %s %s", forms[key],
			       key == K_GAMMA || key == K_COEF0 ? "a finite number"
			       : "a whole number of 0 or more", head_keys[key], quoted(&w, buf, sizeof buf));
	if (key == K_DEGREE)
		m->kernel.degree = (int)v;
	else if (key == K_NR_CLASS)
		m->nr_class = (int)v;
	else if (key == K_TOTAL_SV)
		m->total_sv = v;
	return key == K_TOTAL_SV ? check_total(r, h, m) : RT_OK;
}

/* Value i of a list line into its array. */
static int list_value(int key, const mr_word *w, long i, svm_model *m, long *sum)
{
	long v;
	if (key == K_RHO)
		return parse_double(w->s, w->len, &m->rho[i]);
	if (key == K_PROBA || key == K_PROBB)
		return parse_double(w->s, w->len, key == K_PROBA ? &m->probA[i] : &m->probB[i]);
	if (key == K_LABEL) {
		if (!parse_long(w, INT_MIN, INT_MAX, &v))
			return 0;
		m->label[i] = (int)v;
		return 1;
	}
	if (!parse_long(w, 0, INT_MAX, &v))
		return 0;
	m->nsv[i] = v;
	*sum += v;
	return 1;
}

/* rho, probA, probB (one value per pair of classes), label and nr_sv (one
 * per class): after nr_class, exactly that many values. */
static rt_status head_list(mr_reader *r, mr_head *h, int key, const char *p, svm_model *m)
{
	char buf[96];
	int k = m->nr_class, per_class = key == K_LABEL || key == K_NR_SV;
	long n = per_class ? k : (long)k * (k - 1) / 2, count = 0;
	mr_word w;
	if (!h->at[K_NR_CLASS])
		return fail_at(r, RT_ERR_INPUT, "expected the 'nr_class' line before '%s', got %s",
			       head_keys[key], shown(r, buf, sizeof buf));
	if ((key == K_RHO && !(m->rho = rt_calloc((size_t)n, sizeof *m->rho, r->err))) ||
	    (key == K_LABEL && !(m->label = rt_calloc((size_t)n, sizeof *m->label, r->err))) ||
	    (key == K_PROBA && !(m->probA = rt_calloc((size_t)n, sizeof *m->probA, r->err))) ||
	    (key == K_PROBB && !(m->probB = rt_calloc((size_t)n, sizeof *m->probB, r->err))) ||
	    (key == K_NR_SV && !(m->nsv = rt_calloc((size_t)n, sizeof *m->nsv, r->err))))
		return RT_ERR_SYSTEM;
	for (; next_word(&p, &w); count++)
		if (count < n && !list_value(key, &w, count, m, &h->nsv_sum))
			return fail_at(r, RT_ERR_INPUT, "expected %s as value %ld of '%s', got %s",
				       key == K_RHO || key == K_PROBA || key == K_PROBB ? "a finite number"
				       : key == K_LABEL ? "a whole number" : "a whole number of 0 or more",
				       count + 1, head_keys[key], quoted(&w, buf, sizeof buf));
	if (count != n)
		return fail_at(r, RT_ERR_INPUT, "expected %ld value%s after '%s' (%s for nr_class %d, "
			       "line %ld), got %ld: %s", n, n == 1 ? "" : "s", head_keys[key],
			       per_class ? "one per class" : "one per pair of classes", k,
			       h->at[K_NR_CLASS], count, shown(r, buf, sizeof buf));
	for (int c = 0; key == K_LABEL && c < k; c++)
		for (int d = 0; d < c; d++)
			if (m->label[d] == m->label[c])
				return fail_at(r, RT_ERR_INPUT, "expected distinct labels, got %d twice: %s",
					       m->label[c], shown(r, buf, sizeof buf));
	return key == K_NR_SV ? check_total(r, h, m) : RT_OK;
}

/* At "SV": every line this model needs was given. */
static rt_status head_complete(mr_reader *r, const mr_head *h, svm_model *m)
{
	static const int need[] = { K_SVM_TYPE, K_KERNEL_TYPE, K_NR_CLASS, K_TOTAL_SV, K_RHO,
				    K_LABEL, K_NR_SV };
	char buf[96];
	for (size_t i = 0; i < sizeof need / sizeof *need; i++)
		if (!h->at[need[i]] && !(SVM_IS_SINGLE(m->type) && need[i] >= K_LABEL))
			return fail_at(r, RT_ERR_INPUT, "expected a '%s' line before 'SV', got %s",
				       head_keys[need[i]], shown(r, buf, sizeof buf));
	for (int key = K_DEGREE; key <= K_COEF0; key++) {
		int t = m->kernel.type;
		int used = key == K_DEGREE ? uses_degree(t) : key == K_GAMMA ? uses_gamma(t) : uses_coef0(t);
		if (used && !h->at[key])
			return fail_at(r, RT_ERR_INPUT, "expected a '%s' line before 'SV' (kernel_type "
				       "%s, line %ld, needs it), got %s", head_keys[key], kernel_names[t],
				       h->at[K_KERNEL_TYPE], shown(r, buf, sizeof buf));
	}
	return SVM_IS_SINGLE(m->type) ? single_classes(r, h, m) : RT_OK;
}

/* One header line: its key, once, then the key's own check. */
static rt_status head_line(mr_reader *r, mr_head *h, svm_model *m, int *done)
{
	char buf[96];
	const char *p = r->text;
	mr_word w, extra;
	int key = -1;
	next_word(&p, &w);
	if (w.len == 2 && !strncmp(w.s, "SV", 2)) {
		if (next_word(&p, &extra))
			return fail_at(r, RT_ERR_INPUT, "expected 'SV' alone on its line, got %s",
				       shown(r, buf, sizeof buf));
		*done = 1;
		return head_complete(r, h, m);
	}
	for (int k = 0; k < K_KEYS; k++)
		if ((size_t)w.len == strlen(head_keys[k]) && !strncmp(w.s, head_keys[k], (size_t)w.len))
			key = k;
	if (key < 0)
		return fail_at(r, RT_ERR_INPUT, "expected a header line (" HEAD_KEY_LIST "), got %s",
			       shown(r, buf, sizeof buf));
	if (h->at[key])
		return fail_at(r, RT_ERR_INPUT, "expected one '%s' line (the first is at line %ld), "
			       "got another: %s", head_keys[key], h->at[key], shown(r, buf, sizeof buf));
	h->at[key] = r->line;
	if (key == K_SVM_TYPE)
		return head_svm_type(r, p, m);
	if (key == K_KERNEL_TYPE)
		return head_kernel_type(r, p, m);
	if (key >= K_RHO)
		return head_list(r, h, key, p, m);
	return head_number(r, h, key, p, m);
}

/* Header lines up to and including "SV". */
static rt_status read_header(mr_reader *r, mr_head *h, svm_model *m)
{
	int done = 0;
	rt_status st;
	while (!done) {
		if (!content_line(r))
			return fail_at(r, RT_ERR_INPUT, "expected the header (svm_type c_svc, kernel_type, "
				       "..., nr_sv) ending with an 'SV' line, got end of file");
		if ((st = head_line(r, h, m, &done)) != RT_OK)
			return st;
	}
	return RT_OK;
}

/* ---- reading: the support vectors -------------------------------------------------- */

/* One nonzero of a support vector, before the dense table's width is known. */
typedef struct mr_entry {
	int row, col;       /* 0-based */
	float val;
} mr_entry;

typedef struct mr_body {
	mr_entry *ent;
	size_t n, cap;
	int maxidx;
	long stride;        /* rows allocated in sv_coef (total_sv unless the file is short) */
} mr_body;

/* One index:value word after index prev of support vector i. */
static rt_status sv_pair(mr_reader *r, mr_body *b, const mr_word *w, long i, long *prev)
{
	char buf[64];
	const char *colon = memchr(w->s, ':', (size_t)w->len);
	long idx = 0;
	float v;
	if (!colon || colon == w->s)
		return fail_at(r, RT_ERR_INPUT, "expected index:value, got %s", quoted(w, buf, sizeof buf));
	for (const char *d = w->s; d < colon; d++) {
		if (*d < '0' || *d > '9')
			return fail_at(r, RT_ERR_INPUT, "expected index:value with a whole-number index, "
				       "got %s", quoted(w, buf, sizeof buf));
		if (idx <= SVM_MAX_FEATURES)
			idx = idx * 10 + (*d - '0');
	}
	if (idx == 0)
		return fail_at(r, RT_ERR_INPUT, "expected an index of 1 or more (indices are 1-based), "
			       "got %s", quoted(w, buf, sizeof buf));
	if (idx <= *prev)
		return fail_at(r, RT_ERR_INPUT, "expected an index above %ld (indices must ascend), "
			       "got %s", *prev, quoted(w, buf, sizeof buf));
	if (idx > SVM_MAX_FEATURES)
		return fail_at(r, RT_ERR_INPUT, "expected an index up to %d (SVM_MAX_FEATURES), got %s",
			       SVM_MAX_FEATURES, quoted(w, buf, sizeof buf));
	if (!parse_float(colon + 1, (int)(w->s + w->len - colon - 1), &v))
		return fail_at(r, RT_ERR_INPUT, "expected a finite number (within float range) after "
			       "'%.*s:', got %s", (int)(colon - w->s), w->s, quoted(w, buf, sizeof buf));
	if (b->n == b->cap) {
		size_t cap = b->cap ? 2 * b->cap : 4096;
		mr_entry *e = rt_realloc(b->ent, cap * sizeof *e, r->err);
		if (!e)
			return RT_ERR_SYSTEM;
		b->ent = e;
		b->cap = cap;
	}
	b->ent[b->n++] = (mr_entry){ (int)i, (int)idx - 1, v };
	if (idx > b->maxidx)
		b->maxidx = (int)idx;
	*prev = idx;
	return RT_OK;
}

/* Support vector i: nr_class - 1 coefficients, then index:value pairs. */
static rt_status sv_line(mr_reader *r, const mr_head *h, mr_body *b, svm_model *m, long i)
{
	char buf[96];
	const char *p = r->text;
	int ncoef = m->nr_class - 1;
	long prev = 0;
	mr_word w;
	rt_status st;
	if (ncoef > 0 && line_blank(r))
		return fail_at(r, RT_ERR_INPUT, "expected support vector %ld of %ld (total_sv, line "
			       "%ld), got an empty line", i + 1, m->total_sv, h->at[K_TOTAL_SV]);
	for (int j = 0; j < ncoef; j++) {
		double *c = &m->sv_coef[(size_t)j * (size_t)b->stride + (size_t)i];
		if (!next_word(&p, &w))
			return fail_at(r, RT_ERR_INPUT, "expected %d coefficient%s (nr_class %d, line "
				       "%ld) before the index:value pairs, got %d: %s", ncoef,
				       ncoef == 1 ? "" : "s", m->nr_class, h->at[K_NR_CLASS], j,
				       shown(r, buf, sizeof buf));
		if (memchr(w.s, ':', (size_t)w.len) || !parse_double(w.s, w.len, c))
			return fail_at(r, RT_ERR_INPUT, "expected coefficient %d of %d (a finite number), "
				       "got %s", j + 1, ncoef, quoted(&w, buf, sizeof buf));
	}
	while (next_word(&p, &w))
		if ((st = sv_pair(r, b, &w, i, &prev)) != RT_OK)
			return st;
	return RT_OK;
}

/* How many lines are left in the file (at most lim). */
static long lines_left(const mr_reader *r, long lim)
{
	long n = 0;
	for (const char *s = r->next; s < r->end && n < lim; n++) {
		const char *nl = memchr(s, '\n', (size_t)(r->end - s));
		s = nl ? nl + 1 : r->end;
	}
	return n;
}

/* The total_sv lines after "SV", then nothing but blank lines. */
static rt_status read_svs(mr_reader *r, const mr_head *h, mr_body *b, svm_model *m)
{
	char buf[96];
	rt_status st;
	/* a short file fails below at its end; it must not ask for total_sv's memory first */
	b->stride = lines_left(r, m->total_sv);
	m->sv_coef = rt_calloc((size_t)(m->nr_class - 1) * (size_t)b->stride, sizeof *m->sv_coef, r->err);
	if (!m->sv_coef)
		return RT_ERR_SYSTEM;
	for (long i = 0; i < m->total_sv; i++) {
		if (!raw_line(r))
			return fail_at(r, RT_ERR_INPUT, "expected support vector %ld of %ld (total_sv, "
				       "line %ld), got end of file", i + 1, m->total_sv, h->at[K_TOTAL_SV]);
		if ((st = sv_line(r, h, b, m, i)) != RT_OK)
			return st;
	}
	if (content_line(r))
		return fail_at(r, RT_ERR_INPUT, "expected the end of the file after %ld support vectors "
			       "(total_sv, line %ld), got %s", m->total_sv, h->at[K_TOTAL_SV],
			       shown(r, buf, sizeof buf));
	return RT_OK;
}

/* The support vectors, nfeat = the largest index (at least 1): dense, or
 * sparse when the storage rule says so (svm_storage_sparse: a dense copy
 * too big or mostly zeros). The entries come in row order. */
static rt_status densify(const mr_body *b, svm_model *m, rt_error *err)
{
	m->nfeat = b->maxidx > 0 ? b->maxidx : 1;
	if (svm_storage_sparse(SVM_STORAGE_AUTO, m->total_sv, m->nfeat, (long)b->n)) {
		m->sparse = 1;
		m->svs.ptr = rt_malloc(((size_t)m->total_sv + 1) * sizeof *m->svs.ptr, err);
		m->svs.col = m->svs.ptr ? rt_malloc(b->n * sizeof *m->svs.col + 1, err) : NULL;
		m->svs.val = m->svs.col ? rt_malloc(b->n * sizeof *m->svs.val + 1, err) : NULL;
		if (!m->svs.val)
			return RT_ERR_SYSTEM;
		m->svs.ptr[0] = 0;
		for (long i = 0, e = 0; i < m->total_sv; i++) {
			for (; (size_t)e < b->n && b->ent[e].row == i; e++) {
				m->svs.col[e] = b->ent[e].col;
				m->svs.val[e] = b->ent[e].val;
			}
			m->svs.ptr[i + 1] = e;
		}
		return RT_OK;
	}
	m->sv = rt_calloc((size_t)m->total_sv * (size_t)m->nfeat, sizeof *m->sv, err);
	if (!m->sv)
		return RT_ERR_SYSTEM;
	for (size_t e = 0; e < b->n; e++)
		m->sv[(size_t)b->ent[e].row * (size_t)m->nfeat + (size_t)b->ent[e].col] = b->ent[e].val;
	return RT_OK;
}

rt_status svm_model_read(const char *path, svm_model *m, rt_error *err)
{
	mr_reader r = { .path = path, .err = err };
	mr_head h = { { 0 }, 0 };
	mr_body b = { 0 };
	char *data;
	size_t size;
	rt_status st;
	memset(m, 0, sizeof *m);
	if ((st = rt_read_file(path, &data, &size, err)) != RT_OK)
		return st;
	r.next = data;
	r.end = data + size;
	if (strlen(data) != size) {   /* a NUL byte: name its line */
		for (const char *s = data; *s; s++)
			r.line += *s == '\n';
		r.line++;
		st = fail_at(&r, RT_ERR_INPUT, "expected text, got a NUL byte (not a model file?)");
	}
	if (st == RT_OK)
		st = read_header(&r, &h, m);
	if (st == RT_OK)
		st = read_svs(&r, &h, &b, m);
	if (st == RT_OK)
		st = densify(&b, m, err);
	free(b.ent);
	free(data);
	if (st != RT_OK)
		svm_model_free(m);
	return st;
}
