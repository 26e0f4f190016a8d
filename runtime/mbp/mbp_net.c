/* mbp_net.c: kind `mbp`'s network files: a trained (or initial) network
 * written as text and read back with strict checks (the format is in
 * mbp_impl.h).
 *
 * Writing: numbers as "%.9g", enough digits for every float to read back
 * bit-exactly through strtof; the file is replaced atomically. Layers come
 * in the flat order of mbp_core.h: "layer main 1" (h1 neurons on the
 * inputs), "layer main 2" (h2 neurons on h1, when there is a second hidden
 * layer), the output layer as the next main layer ("layer main 2", or
 * "layer main 3" after a second hidden layer), then "layer space 1" (the
 * space network, h1 neurons on the inputs) when there is one. Each neuron is
 * one row: bias, then one weight per input of its layer.
 *
 * Ranges, written when a dataset is given: one "input_range min max" line
 * per input (the raw range mapped to [-1, 1]) and one "target_range min max
 * lo hi" line per output (the raw range mapped to the output activation's
 * [lo, hi]). For classification the raw range is "0 1": the class
 * indicator (0 or 1; one-hot per output with several classes) mapped to
 * lo and hi.
 *
 * Reading: the first line with content must be "evoforge-mbp 1"; the header
 * lines (inputs, hidden, outputs, space, activation hidden|output|space,
 * input_range, target_range) come before the first layer, each once but
 * the range lines: one per input (in input order) and one per output, after
 * the 'inputs' and 'outputs' lines, all of both kinds or none;
 * 'activation space' is there exactly when space is 1. Then every
 * layer in the order above, its "layer NAME NUMBER NEURONS INPUTS" line
 * agreeing with the header, then nothing more. '#' starts a comment; blank
 * lines are skipped. Every error says "file:line: expected ..., got ...";
 * the end of the file counts as the line after the last. */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mbp_impl.h"
#include "out.h"

#define NET_MAGIC "evoforge-mbp"
#define NET_VERSION 1

/* Indexed by enum mbp_activation. */
/* Indexed by enum mbp_activation; the spec reads the same names. */
const char *const mbp_activation_names[] = { "sigmoid", "tanh", "linear", NULL };

/* One layer of a network file: where its rows go in the flat weights. */
typedef struct net_layer {
	const char *name;
	int number, neurons, inputs, offset;
} net_layer;

/* The layers of a shape in file order; returns how many. */
static int net_layers(const mbp_shape *s, net_layer out[4])
{
	int n = 0;
	out[n++] = (net_layer){ "main", 1, s->h1, s->ni, s->off_w1 };
	if (s->h2 > 0)
		out[n++] = (net_layer){ "main", 2, s->h2, s->h1, s->off_w2 };
	out[n++] = (net_layer){ "main", s->h2 > 0 ? 3 : 2, s->no, s->nlast, s->off_wo };
	if (s->space)
		out[n++] = (net_layer){ "space", 1, s->h1, s->ni, s->off_ws };
	return n;
}

/* Is the shape one a file can hold, its offsets laid out? */
static int shape_ok(const mbp_shape *s)
{
	mbp_shape t = *s;
	if (s->ni < 1 || s->h1 < 1 || s->no < 1 || s->h2 < 0 || s->ni > MBP_MAX_UNITS ||
	    s->h1 > MBP_MAX_UNITS || s->h2 > MBP_MAX_UNITS || s->no > MBP_MAX_UNITS ||
	    (s->space != 0 && s->space != 1))
		return 0;
	if (s->act_hidden < 0 || s->act_hidden > MBP_LINEAR || s->act_output < 0 ||
	    s->act_output > MBP_LINEAR || (s->space && (s->act_space < 0 || s->act_space > MBP_LINEAR)))
		return 0;
	mbp_shape_layout(&t);
	return t.off_w2 == s->off_w2 && t.off_wo == s->off_wo && t.off_ws == s->off_ws &&
	       t.nweights == s->nweights && t.nlast == s->nlast;
}

/* ---- writing ----------------------------------------------------------------------- */

/* The header: magic, shape, activations and (with d) the ranges. */
static void put_header(rt_buf *b, const mbp_shape *s, const mbp_dataset *d)
{
	rt_buf_printf(b, "# network of evoforge kind mbp (%s)\n", s->space ? "MBP" : "BP");
	rt_buf_printf(b, "%s %d\ninputs %d\n", NET_MAGIC, NET_VERSION, s->ni);
	if (s->h2 > 0)
		rt_buf_printf(b, "hidden %d %d\n", s->h1, s->h2);
	else
		rt_buf_printf(b, "hidden %d\n", s->h1);
	rt_buf_printf(b, "outputs %d\nspace %d\n", s->no, s->space);
	rt_buf_printf(b, "activation hidden %s\n", mbp_activation_names[s->act_hidden]);
	rt_buf_printf(b, "activation output %s\n", mbp_activation_names[s->act_output]);
	if (s->space)
		rt_buf_printf(b, "activation space %s\n", mbp_activation_names[s->act_space]);
	if (!d)
		return;
	for (int i = 0; i < s->ni; i++)
		rt_buf_printf(b, "input_range %.9g %.9g\n", (double)d->in_min[i], (double)d->in_max[i]);
	for (int o = 0; o < s->no; o++)
		rt_buf_printf(b, "target_range %.9g %.9g %.9g %.9g\n", (double)d->out_min[o],
			      (double)d->out_max[o], (double)d->target_lo, (double)d->target_hi);
}

/* A layer line and its rows. */
static void put_layer(rt_buf *b, const net_layer *l, const float *w)
{
	rt_buf_printf(b, "layer %s %d %d %d\n", l->name, l->number, l->neurons, l->inputs);
	for (int j = 0; j < l->neurons; j++) {
		const float *row = w + l->offset + (size_t)j * (size_t)(l->inputs + 1);
		for (int k = 0; k <= l->inputs; k++)
			rt_buf_printf(b, k ? " %.9g" : "%.9g", (double)row[k]);
		rt_buf_puts(b, "\n");
	}
}

rt_status mbp_net_write(const char *path, const mbp_shape *s, const float *w,
			const mbp_dataset *d, rt_error *err)
{
	net_layer layers[4];
	rt_buf b = { 0 };
	rt_status st;
	int nl;
	if (!shape_ok(s))
		return rt_fail(err, RT_ERR_INTERNAL, "%s: cannot write a network of an invalid shape "
			       "(%d-%d-%d-%d, space %d)", path, s->ni, s->h1, s->h2, s->no, s->space);
	if (d && (d->ni != s->ni || d->no != s->no))
		return rt_fail(err, RT_ERR_INTERNAL, "%s: the dataset (%d inputs, %d outputs) does not "
			       "fit the network (%d inputs, %d outputs)", path, d->ni, d->no, s->ni, s->no);
	for (int k = 0; k < s->nweights; k++)
		if (!isfinite(w[k]))
			return rt_fail(err, RT_ERR_INTERNAL, "%s: weight %d is not finite (%g); not "
				       "written", path, k, (double)w[k]);
	put_header(&b, s, d);
	nl = net_layers(s, layers);
	for (int k = 0; k < nl; k++)
		put_layer(&b, &layers[k], w);
	if (b.failed) {
		rt_buf_free(&b);
		return rt_fail(err, RT_ERR_SYSTEM, "%s: out of memory formatting the network", path);
	}
	st = rt_write_file_atomic(path, b.data, b.len, err);
	rt_buf_free(&b);
	return st;
}

/* ---- reading: lines and words ---------------------------------------------------- */

/* A word of a line: not NUL-terminated, so the line stays whole for messages. */
typedef struct net_word {
	const char *s;
	int len;
} net_word;

typedef struct net_reader {
	const char *path;
	char *next;         /* start of the next line */
	int line;           /* number of the current line */
	int eof;
	const char *text;   /* the current line, comment cut, trimmed; NULL at the end */
	net_word *words;    /* the current line's words (up to cap) */
	int nwords, cap;
	rt_error *err;
} net_reader;

/* Splits the current line into words; more than cap are counted, not kept. */
static void split_words(net_reader *r)
{
	const char *p = r->text;
	r->nwords = 0;
	while (*p) {
		const char *s;
		while (*p == ' ' || *p == '\t')
			p++;
		if (!*p)
			break;
		for (s = p; *p && *p != ' ' && *p != '\t'; p++)
			;
		if (r->nwords < r->cap)
			r->words[r->nwords] = (net_word){ s, (int)(p - s) };
		r->nwords++;
	}
}

/* Moves to the next line with content and splits it; 0 at the end of file. */
static int next_line(net_reader *r)
{
	while (!r->eof && *r->next) {
		char *s = r->next, *end = strchr(s, '\n'), *hash;
		r->line++;
		r->next = end ? end + 1 : s + strlen(s);
		if (end)
			*end = '\0';
		if ((hash = strchr(s, '#')) != NULL)
			*hash = '\0';
		for (end = s + strlen(s); end > s && (end[-1] == ' ' || end[-1] == '\t' ||
						    end[-1] == '\r'); end--)
			*(end - 1) = '\0';
		while (*s == ' ' || *s == '\t')
			s++;
		if (*s) {
			r->text = s;
			split_words(r);
			return 1;
		}
	}
	if (!r->eof)
		r->line++;
	r->eof = 1;
	r->text = NULL;
	r->nwords = 0;
	return 0;
}

/* "path:line: " and the message. */
static rt_status fail_at(net_reader *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static rt_status fail_at(net_reader *r, const char *fmt, ...)
{
	char msg[RT_ERROR_MAX];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	return rt_fail(r->err, RT_ERR_INPUT, "%s:%d: %s", r->path, r->line, msg);
}

/* The current line for "got ...": quoted (long lines cut), or "end of file". */
static const char *shown(const net_reader *r, char *buf, size_t size)
{
	if (!r->text)
		return "end of file";
	if (strlen(r->text) > 72)
		snprintf(buf, size, "'%.72s...'", r->text);
	else
		snprintf(buf, size, "'%s'", r->text);
	return buf;
}

/* Does word k of the current line read `s`? */
static int word_is(const net_reader *r, int k, const char *s)
{
	return k < r->nwords && k < r->cap && (int)strlen(s) == r->words[k].len &&
	       !strncmp(r->words[k].s, s, (size_t)r->words[k].len);
}

/* Word k as an integer in [min, max]. */
static int word_int(const net_reader *r, int k, long min, long max, long *out)
{
	char *end;
	long v;
	if (k >= r->nwords || k >= r->cap)
		return 0;
	errno = 0;
	v = strtol(r->words[k].s, &end, 10);
	if (end != r->words[k].s + r->words[k].len || errno || v < min || v > max)
		return 0;
	*out = v;
	return 1;
}

/* Word k as a finite float. */
static int word_float(const net_reader *r, int k, float *out)
{
	char *end;
	float v;
	if (k >= r->nwords || k >= r->cap)
		return 0;
	v = strtof(r->words[k].s, &end);
	if (end != r->words[k].s + r->words[k].len || !isfinite(v))
		return 0;
	*out = v;
	return 1;
}

/* "expected a finite number, got 'WORD'" for word k. */
static rt_status bad_number(net_reader *r, int k, const char *what)
{
	return fail_at(r, "expected a finite number (%s), got '%.*s'", what,
		       r->words[k].len > 40 ? 40 : r->words[k].len, r->words[k].s);
}

/* ---- reading: the header ----------------------------------------------------------- */

enum { H_INPUTS, H_HIDDEN, H_OUTPUTS, H_SPACE, H_ACT_HIDDEN, H_ACT_OUTPUT, H_ACT_SPACE, H_KEYS };
static const char *const head_forms[H_KEYS] = {
	"'inputs N'", "'hidden N' or 'hidden N M'", "'outputs N'", "'space 0' or 'space 1'",
	"'activation hidden NAME'", "'activation output NAME'", "'activation space NAME'",
};

/* What the header has said so far. */
typedef struct net_head {
	int at[H_KEYS];     /* line of each header key (0: not given) */
	int nin, nout;      /* range lines read */
	int range_line;     /* first range line */
} net_head;

/* Marks a once-only header key as given (duplicates fail). */
static rt_status head_once(net_reader *r, net_head *h, int key)
{
	char buf[96];
	if (h->at[key])
		return fail_at(r, "expected one %s line (the first is at line %d), got another: %s",
			       head_forms[key], h->at[key], shown(r, buf, sizeof buf));
	h->at[key] = r->line;
	return RT_OK;
}

/* inputs, hidden, outputs and space lines. */
static rt_status head_size(net_reader *r, net_head *h, int key, mbp_shape *s)
{
	char buf[96];
	long a = 0, b = 0;
	int nmax = key == H_HIDDEN ? 3 : 2;
	long lo = key == H_SPACE ? 0 : 1, hi = key == H_SPACE ? 1 : MBP_MAX_UNITS;
	rt_status st = head_once(r, h, key);
	if (st)
		return st;
	if (r->nwords < 2 || r->nwords > nmax || !word_int(r, 1, lo, hi, &a) ||
	    (r->nwords == 3 && !word_int(r, 2, 1, MBP_MAX_UNITS, &b)))
		return fail_at(r, "expected %s (N from %ld to %ld), got %s", head_forms[key], lo, hi,
			       shown(r, buf, sizeof buf));
	if (key == H_SPACE && a == 0 && h->at[H_ACT_SPACE])
		return fail_at(r, "expected 'space 1' (line %d sets the space network's activation), "
			       "got %s", h->at[H_ACT_SPACE], shown(r, buf, sizeof buf));
	if (key == H_INPUTS)
		s->ni = (int)a;
	else if (key == H_OUTPUTS)
		s->no = (int)a;
	else if (key == H_SPACE)
		s->space = (int)a;
	else {
		s->h1 = (int)a;
		s->h2 = (int)b;
	}
	return RT_OK;
}

/* activation hidden|output|space NAME. */
static rt_status head_activation(net_reader *r, net_head *h, mbp_shape *s)
{
	static const char *const roles[] = { "hidden", "output", "space" };
	char buf[96];
	int role = -1, act = -1;
	rt_status st;
	for (int k = 0; k < 3; k++)
		if (word_is(r, 1, roles[k]))
			role = k;
	if (r->nwords != 3 || role < 0)
		return fail_at(r, "expected 'activation hidden|output|space NAME', got %s",
			       shown(r, buf, sizeof buf));
	if ((st = head_once(r, h, H_ACT_HIDDEN + role)) != RT_OK)
		return st;
	if (role == 2 && h->at[H_SPACE] && !s->space)
		return fail_at(r, "expected no 'activation space' line (line %d says space 0: no space "
			       "network), got %s", h->at[H_SPACE], shown(r, buf, sizeof buf));
	for (int k = 0; mbp_activation_names[k]; k++)
		if (word_is(r, 2, mbp_activation_names[k]))
			act = k;
	if (act < 0)
		return fail_at(r, "expected an activation (sigmoid, tanh or linear), got '%.*s'",
			       r->words[2].len > 40 ? 40 : r->words[2].len, r->words[2].s);
	*(role == 0 ? &s->act_hidden : role == 1 ? &s->act_output : &s->act_space) = act;
	return RT_OK;
}

/* The range arrays of net, allocated on the first range line. */
static rt_status head_alloc_ranges(net_reader *r, mbp_net *net)
{
	if (net->in_min)
		return RT_OK;
	net->in_min = rt_calloc((size_t)net->shape.ni, sizeof *net->in_min, r->err);
	net->in_max = net->in_min ? rt_calloc((size_t)net->shape.ni, sizeof *net->in_max, r->err) : NULL;
	net->out_min = net->in_max ? rt_calloc((size_t)net->shape.no, sizeof *net->out_min, r->err) : NULL;
	net->out_max = net->out_min ? rt_calloc((size_t)net->shape.no, sizeof *net->out_max, r->err) : NULL;
	return net->out_max ? RT_OK : RT_ERR_SYSTEM;
}

/* input_range min max, or target_range min max lo hi. */
static rt_status head_range(net_reader *r, net_head *h, mbp_net *net, int target)
{
	char buf[96];
	const char *form = target ? "'target_range MIN MAX LO HI'" : "'input_range MIN MAX'";
	int *count = target ? &h->nout : &h->nin, need = target ? 5 : 3;
	int key = target ? H_OUTPUTS : H_INPUTS, limit = target ? net->shape.no : net->shape.ni;
	float v[4];
	if (!h->at[H_INPUTS] || !h->at[H_OUTPUTS])
		return fail_at(r, "expected the 'inputs' and 'outputs' lines before the range lines, "
			       "got %s", shown(r, buf, sizeof buf));
	if (*count >= limit)
		return fail_at(r, "expected %d %s lines (%s, line %d), got more: %s", limit, form,
			       head_forms[key], h->at[key], shown(r, buf, sizeof buf));
	if (r->nwords != need)
		return fail_at(r, "expected %s, got %s", form, shown(r, buf, sizeof buf));
	for (int k = 1; k < need; k++)
		if (!word_float(r, k, &v[k - 1]))
			return bad_number(r, k, target ? "target range" : "input range");
	if (v[0] > v[1] || (target && !(v[2] < v[3])))
		return fail_at(r, "expected MIN <= MAX%s, got %s", target ? " and LO < HI" : "",
			       shown(r, buf, sizeof buf));
	if (head_alloc_ranges(r, net))
		return RT_ERR_SYSTEM;
	if (!h->range_line)
		h->range_line = r->line;
	if (target && *count > 0 && (v[2] != net->out_lo || v[3] != net->out_hi))
		return fail_at(r, "expected LO HI = %.9g %.9g as on the first target_range line, got %s",
			       (double)net->out_lo, (double)net->out_hi, shown(r, buf, sizeof buf));
	(target ? net->out_min : net->in_min)[*count] = v[0];
	(target ? net->out_max : net->in_max)[*count] = v[1];
	if (target) {
		net->out_lo = v[2];
		net->out_hi = v[3];
	}
	(*count)++;
	return RT_OK;
}

/* One header line (not a layer line). */
static rt_status head_line(net_reader *r, net_head *h, mbp_net *net)
{
	static const char *const keys[] = { "inputs", "hidden", "outputs", "space" };
	char buf[96];
	for (int k = 0; k < 4; k++)
		if (word_is(r, 0, keys[k]))
			return head_size(r, h, k, &net->shape);
	if (word_is(r, 0, "activation"))
		return head_activation(r, h, &net->shape);
	if (word_is(r, 0, "input_range") || word_is(r, 0, "target_range"))
		return head_range(r, h, net, word_is(r, 0, "target_range"));
	return fail_at(r, "expected a header line (inputs, hidden, outputs, space, activation, "
		       "input_range, target_range) or a 'layer' line, got %s", shown(r, buf, sizeof buf));
}

/* At the first layer line (or the end): is the header complete? */
static rt_status head_finish(net_reader *r, const net_head *h, mbp_net *net)
{
	char buf[96];
	mbp_shape *s = &net->shape;
	for (int k = 0; k < H_KEYS; k++)
		if (!h->at[k] && (k != H_ACT_SPACE || s->space))
			return fail_at(r, "expected a %s line before the layers, got %s", head_forms[k],
				       shown(r, buf, sizeof buf));
	if (h->nin || h->nout) {
		if (h->nin != s->ni || h->nout != s->no)
			return fail_at(r, "expected %d input_range and %d target_range lines (or none), "
				       "got %d and %d before %s", s->ni, s->no, h->nin, h->nout,
				       shown(r, buf, sizeof buf));
		net->has_ranges = 1;
	}
	mbp_shape_layout(s);
	net->w = rt_malloc((size_t)s->nweights * sizeof *net->w, r->err);
	return net->w ? RT_OK : RT_ERR_SYSTEM;
}

/* ---- reading: layers ------------------------------------------------------------------ */

/* The current line must be layer l's "layer NAME NUMBER NEURONS INPUTS". */
static rt_status layer_line(net_reader *r, const net_layer *l)
{
	char buf[96];
	long number, neurons, inputs;
	if (r->nwords != 5 || !word_is(r, 0, "layer") || !word_is(r, 1, l->name) ||
	    !word_int(r, 2, 1, 3, &number) || number != l->number ||
	    !word_int(r, 3, 0, 1L << 30, &neurons) || !word_int(r, 4, 0, 1L << 30, &inputs))
		return fail_at(r, "expected 'layer %s %d %d %d' (layers in the order main 1, [main 2,] "
			       "output, [space 1]), got %s", l->name, l->number, l->neurons,
			       l->inputs, shown(r, buf, sizeof buf));
	if (neurons != l->neurons || inputs != l->inputs)
		return fail_at(r, "expected layer %s %d to have %d neurons and %d inputs as the header "
			       "says, got %s", l->name, l->number, l->neurons, l->inputs,
			       shown(r, buf, sizeof buf));
	return RT_OK;
}

/* Row j of layer l: bias and l->inputs weights into row[]. */
static rt_status layer_row(net_reader *r, const net_layer *l, int j, float *row)
{
	char buf[96];
	float v;
	if (!next_line(r) || !word_float(r, 0, &v))
		return fail_at(r, "expected row %d of %d of layer %s %d (%d numbers: bias and %d "
			       "weights), got %s", j + 1, l->neurons, l->name, l->number,
			       l->inputs + 1, l->inputs, shown(r, buf, sizeof buf));
	if (r->nwords != l->inputs + 1)
		return fail_at(r, "expected %d numbers (bias and %d weights) in row %d of layer %s %d, "
			       "got %d", l->inputs + 1, l->inputs, j + 1, l->name, l->number, r->nwords);
	for (int k = 0; k <= l->inputs; k++)
		if (!word_float(r, k, &row[k]))
			return bad_number(r, k, k ? "a weight" : "the bias");
	return RT_OK;
}

/* Every layer, from the current line (the first layer line) to the end. */
static rt_status read_layers(net_reader *r, mbp_net *net)
{
	net_layer layers[4];
	char buf[96];
	int nl = net_layers(&net->shape, layers);
	rt_status st;
	for (int k = 0; k < nl; k++) {
		const net_layer *l = &layers[k];
		if (k > 0)
			next_line(r);
		if ((st = layer_line(r, l)) != RT_OK)
			return st;
		for (int j = 0; j < l->neurons; j++)
			if ((st = layer_row(r, l, j, net->w + l->offset +
						  (size_t)j * (size_t)(l->inputs + 1))) != RT_OK)
				return st;
	}
	if (next_line(r))
		return fail_at(r, "expected the end of the file after layer %s %d, got %s",
			       layers[nl - 1].name, layers[nl - 1].number, shown(r, buf, sizeof buf));
	return RT_OK;
}

/* The magic line, the header up to the first layer line, then the layers. */
static rt_status read_net(net_reader *r, mbp_net *net)
{
	char buf[96];
	long version;
	net_head h;
	rt_status st;
	memset(&h, 0, sizeof h);
	if (!next_line(r) || !word_is(r, 0, NET_MAGIC) || r->nwords != 2)
		return fail_at(r, "expected '%s %d' (a network file of evoforge kind mbp), got %s",
			       NET_MAGIC, NET_VERSION, shown(r, buf, sizeof buf));
	if (!word_int(r, 1, NET_VERSION, NET_VERSION, &version))
		return fail_at(r, "expected format version %d, got '%.*s'", NET_VERSION,
			       r->words[1].len > 40 ? 40 : r->words[1].len, r->words[1].s);
	while (next_line(r) && !word_is(r, 0, "layer"))
		if ((st = head_line(r, &h, net)) != RT_OK)
			return st;
	if ((st = head_finish(r, &h, net)) != RT_OK)
		return st;
	return read_layers(r, net);
}

rt_status mbp_net_read(const char *path, mbp_net *net, rt_error *err)
{
	net_reader r;
	char *text;
	size_t size;
	rt_status st;
	memset(net, 0, sizeof *net);
	memset(&r, 0, sizeof r);
	if ((st = rt_read_file(path, &text, &size, err)) != RT_OK)
		return st;
	if (memchr(text, '\0', size)) {
		free(text);
		return rt_fail(err, RT_ERR_INPUT, "%s: expected a text file (a network of kind mbp), got "
			       "a NUL byte", path);
	}
	r.path = path;
	r.next = text;
	r.err = err;
	r.cap = MBP_MAX_UNITS + 2;
	r.words = rt_malloc((size_t)r.cap * sizeof *r.words, err);
	st = r.words ? read_net(&r, net) : RT_ERR_SYSTEM;
	free(r.words);
	free(text);
	if (st != RT_OK)
		mbp_net_free(net);
	return st;
}

void mbp_net_free(mbp_net *net)
{
	free(net->w);
	free(net->in_min);
	free(net->in_max);
	free(net->out_min);
	free(net->out_max);
	memset(net, 0, sizeof *net);
}
