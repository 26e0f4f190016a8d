/* data_tsp.c: TSPLIB instances, TSPLIB's integer distances, and .tour files.
 *
 * Distances follow TSPLIB 95 to the letter, because published optimal tour
 * lengths are only reproducible that way. With nint(v) = (int)(v + 0.5):
 * EUC_2D and EUC_3D are nint of the Euclidean distance, CEIL_2D rounds it up,
 * MAN_2D/MAN_3D are nint(|dx| + |dy| (+ |dz|)), MAX_2D/MAX_3D are
 * max(nint|dx|, nint|dy| (, nint|dz|)), ATT is the pseudo-Euclidean rounding
 * of sqrt((dx^2 + dy^2) / 10), GEO truncates coordinates to degrees, reads the
 * fraction as minutes, and uses PI = 3.141592 and an earth radius of
 * 6378.388 km (formulas as in the TSPLIB 95 document and FAQ).
 *
 * EXPLICIT instances list integer weights in EDGE_WEIGHT_SECTION in one of
 * the matrix layouts of EDGE_WEIGHT_FORMAT; numbers wrap across lines freely,
 * so they are counted one by one. The full symmetric n x n matrix is kept (a
 * FULL_MATRIX must be symmetric; diagonal entries are read, checked as
 * weights and stored as 0). DISPLAY_DATA_SECTION is checked and ignored.
 *
 * The loader reads the specification part (KEY : value lines), then the data
 * sections, each of which ends after exactly as many items as it must have.
 * Files in the wild are read as LKH and Concorde read them: keys, section
 * names, EOF and the values of TYPE and the *_TYPE / *_FORMAT keys in any
 * case; "KEY:value", "KEY : value" and "KEY :value" alike; a value is its
 * first blank-separated token, so "TYPE: TSP (M.~Hofmeister)" is TSP (only
 * COMMENT keeps its whole text); blank lines, tabs, CRLF, stray '\r', a
 * UTF-8 byte order mark, and a missing or repeated EOF are accepted.
 * Coordinates and weights must be finite: nan, inf and numbers that overflow
 * a double are "expected a finite number" errors. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "data_impl.h"
#include "data_mem.h"
#include "out.h"

#define COUNT(a) ((int)(sizeof(a) / sizeof((a)[0])))

/* Indexed by rt_tsp_metric; metric_dims is the number of coordinates (0: none). */
static const char *const metric_names[] = { "EUC_2D", "CEIL_2D", "ATT", "GEO", "MAN_2D", "MAX_2D",
	                                    "EUC_3D", "MAN_3D", "MAX_3D", "EXPLICIT" };
static const int metric_dims[] = { 2, 2, 2, 2, 2, 2, 3, 3, 3, 0 };

/* Matrix layouts; a symmetric matrix read by columns is the other triangle
 * read by rows, so the *_COL formats map onto the *_ROW layouts. */
typedef enum tsp_layout {
	LAY_FUNCTION, LAY_FULL, LAY_UPPER_ROW, LAY_LOWER_ROW, LAY_UPPER_DIAG_ROW, LAY_LOWER_DIAG_ROW
} tsp_layout;
static const char *const format_names[] = { "FUNCTION", "FULL_MATRIX", "UPPER_ROW", "LOWER_ROW",
	                                    "UPPER_DIAG_ROW", "LOWER_DIAG_ROW", "UPPER_COL", "LOWER_COL",
	                                    "UPPER_DIAG_COL", "LOWER_DIAG_COL" };
static const tsp_layout format_layout[] = { LAY_FUNCTION, LAY_FULL, LAY_UPPER_ROW, LAY_LOWER_ROW,
	                                    LAY_UPPER_DIAG_ROW, LAY_LOWER_DIAG_ROW, LAY_LOWER_ROW,
	                                    LAY_UPPER_ROW, LAY_LOWER_DIAG_ROW, LAY_UPPER_DIAG_ROW };

static const char *const ctype_names[] = { "TWOD_COORDS", "THREED_COORDS", "NO_COORDS" };
static const int ctype_dims[] = { 2, 3, 0 };

/* A blank: space, tab, or a stray '\r', '\f' or '\v' (files converted
 * twice between line-ending conventions carry them). */
static int blank(char c)
{
	return c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v';
}

/* Trims blanks at both ends of s[0..*len) in place; returns the new start. */
static char *trim(char *s, size_t *len)
{
	size_t n = *len;
	while (n > 0 && blank(*s)) {
		s++;
		n--;
	}
	while (n > 0 && blank(s[n - 1]))
		n--;
	s[n] = '\0';
	*len = n;
	return s;
}

/* Parses a whole non-negative integer s[0..len) into *out; 0 if it is not one. */
static int parse_long(const char *s, size_t len, long *out)
{
	long v = 0;
	if (len == 0 || len > 12)
		return 0;
	for (size_t i = 0; i < len; i++) {
		if (s[i] < '0' || s[i] > '9')
			return 0;
		v = v * 10 + (s[i] - '0');
	}
	*out = v;
	return 1;
}

/* Next blank-separated token from *pp: start in *tok, length returned. */
static size_t next_token(char **pp, char **tok)
{
	char *p = *pp, *q;
	while (*p && blank(*p))
		p++;
	for (q = p; *q && !blank(*q); q++)
		;
	*tok = p;
	*pp = q;
	return (size_t)(q - p);
}

/* Splits a trimmed "KEY : value" line in place; 0 if it has no ':'. */
static int split_key(char *line, size_t len, char **key, size_t *klen, char **val, size_t *vlen)
{
	char *colon = memchr(line, ':', len);
	if (!colon)
		return 0;
	*klen = (size_t)(colon - line);
	*vlen = len - *klen - 1;
	*key = trim(line, klen);
	*val = trim(colon + 1, vlen);
	return 1;
}

/* Cuts a value to its first blank-separated token in place, as LKH and
 * Concorde read it: "TSP (M.~Hofmeister)" is TSP, "280 (a280)" is 280. */
static char *first_token(char *val, size_t *vlen)
{
	size_t k = 0;
	while (k < *vlen && !blank(val[k]))
		k++;
	val[k] = '\0';
	*vlen = k;
	return val;
}

/* Skips a UTF-8 byte order mark at the start of line 1 (editors on Windows
 * write one); returns the line without it. */
static char *skip_bom(char *line, size_t *len, long lineno)
{
	if (lineno == 1 && *len >= 3 && !memcmp(line, "\xEF\xBB\xBF", 3)) {
		*len -= 3;
		return line + 3;
	}
	return line;
}

/* Length of the section name if the trimmed line is one ("X_SECTION",
 * optionally followed by ':'), else 0. */
static size_t section_len(const char *line, size_t len)
{
	size_t k = len;
	while (k > 0 && (line[k - 1] == ':' || blank(line[k - 1])))
		k--;
	if (k > 8 && !strncasecmp(line + k - 8, "_SECTION", 8) && !memchr(line, ':', k))
		return k;
	return 0;
}

/* Index of val in names[0..n) in any case, or -1. */
static int lookup(const char *const *names, int n, const char *val)
{
	for (int i = 0; i < n; i++)
		if (!strcasecmp(val, names[i]))
			return i;
	return -1;
}

/* ---- the instance loader ---------------------------------------------------- */

typedef enum tsp_section { SEC_NONE, SEC_COORDS, SEC_DISPLAY, SEC_WEIGHTS } tsp_section;
static const char *const section_names[] = { "", "NODE_COORD_SECTION", "DISPLAY_DATA_SECTION",
	                                     "EDGE_WEIGHT_SECTION" };

typedef struct tsp_loader {
	rt_tsp *t;
	const char *path;
	rt_error *err;
	rt_data_reader rd;
	long nlines;            /* non-blank lines so far */
	long dim;               /* -1 until DIMENSION */
	int metric;             /* rt_tsp_metric, -1 until EDGE_WEIGHT_TYPE */
	int format;             /* index in format_names, -1 until EDGE_WEIGHT_FORMAT */
	int ctype;              /* index in ctype_names, -1 until NODE_COORD_TYPE */
	tsp_section sec;        /* the current (or last) section; SEC_NONE before the first */
	long long done, want;   /* items read in it, and expected */
	unsigned char have[4];  /* sections seen, by tsp_section */
	unsigned char *seen;    /* cities listed so far in the current node section */
	int ncoord;             /* coordinates per line in the current node section */
	long r, c;              /* the matrix cell the next weight goes to */
	int *vals;              /* EDGE_WEIGHT_SECTION's weights in file order, grown as they
	                           come: the n x n matrix is only made once all are read */
	size_t vcap;
} tsp_loader;

/* The keys agree: as many coordinates as the metric needs, and a matrix
 * layout for EXPLICIT only. */
static rt_status check_keys(tsp_loader *L)
{
	int dims;
	if (L->metric < 0)
		return RT_OK;
	dims = metric_dims[L->metric];
	if (L->ctype >= 0 && dims && ctype_dims[L->ctype] != dims)
		return rt_fail(L->err, RT_ERR_INPUT, "%s:%ld: expected NODE_COORD_TYPE %s for EDGE_WEIGHT_TYPE %s, got %s",
		               L->path, L->rd.line, dims == 3 ? "THREED_COORDS" : "TWOD_COORDS",
		               metric_names[L->metric], ctype_names[L->ctype]);
	if (L->format >= 0 && (format_layout[L->format] == LAY_FUNCTION) != (dims != 0))
		return rt_fail(L->err, RT_ERR_INPUT, "%s:%ld: expected EDGE_WEIGHT_FORMAT %s for EDGE_WEIGHT_TYPE %s, got %s",
		               L->path, L->rd.line,
		               dims ? "FUNCTION" : "FULL_MATRIX, UPPER_ROW, LOWER_ROW, UPPER_DIAG_ROW or LOWER_DIAG_ROW",
		               metric_names[L->metric], format_names[L->format]);
	return RT_OK;
}

/* A key whose value is one of names[0..n): stores its index in *slot. */
static rt_status key_choice(tsp_loader *L, int *slot, const char *key, const char *const *names, int n,
                            const char *val, size_t vlen)
{
	char q[64], list[512];
	size_t k = 0;
	*slot = lookup(names, n, val);
	if (*slot >= 0)
		return check_keys(L);
	for (int i = 0; i < n && k < sizeof list; i++)
		k += (size_t)snprintf(list + k, sizeof list - k, "%s%s", i ? ", " : "", names[i]);
	return rt_fail(L->err, RT_ERR_INPUT, "%s:%ld: %s %s is not supported (supported: %s)",
	               L->path, L->rd.line, key, rt_data_quote(q, sizeof q, val, vlen), list);
}

/* The specification keys, in any case; values are read up to their first
 * blank except COMMENT's. The last three are read and ignored. */
enum { K_NAME, K_TYPE, K_COMMENT, K_DIMENSION, K_EWT, K_EWF, K_NCT, K_CAPACITY, K_EDF, K_DDT };
static const char *const key_names[] = { "NAME", "TYPE", "COMMENT", "DIMENSION", "EDGE_WEIGHT_TYPE",
	                                 "EDGE_WEIGHT_FORMAT", "NODE_COORD_TYPE", "CAPACITY",
	                                 "EDGE_DATA_FORMAT", "DISPLAY_DATA_TYPE" };

/* One "KEY : value" line of the specification part (raw: the untrimmed line). */
static rt_status tsp_key(tsp_loader *L, char *raw, char *line, size_t len)
{
	char *key, *val, q[64];
	size_t klen, vlen;
	long n;
	int k;

	if (!split_key(line, len, &key, &klen, &val, &vlen))
		return rt_fail(L->err, RT_ERR_INPUT, "%s:%ld:%zu: expected 'KEY : value' or a section name, got '%s'",
		               L->path, L->rd.line, (size_t)(line - raw) + 1, rt_data_quote(q, sizeof q, line, len));
	k = lookup(key_names, COUNT(key_names), key);
	if (k < 0)
		return rt_fail(L->err, RT_ERR_INPUT, "%s:%ld:%zu: expected a TSPLIB key (NAME, TYPE, COMMENT, DIMENSION, EDGE_WEIGHT_TYPE, ...), got '%s'",
		               L->path, L->rd.line, (size_t)(key - raw) + 1, rt_data_quote(q, sizeof q, key, klen));
	if (k != K_COMMENT)
		val = first_token(val, &vlen);
	switch (k) {
	case K_NAME:
		snprintf(L->t->name, sizeof L->t->name, "%s", val);
		break;
	case K_TYPE:
		if (strcasecmp(val, "TSP") != 0)
			return rt_fail(L->err, RT_ERR_INPUT, "%s:%ld: TYPE %s is not supported (only TSP, the symmetric travelling salesman problem)",
			               L->path, L->rd.line, rt_data_quote(q, sizeof q, val, vlen));
		break;
	case K_DIMENSION:
		if (!parse_long(val, vlen, &n) || n < 1 || n > RT_TSP_MAX_CITIES)
			return rt_fail(L->err, RT_ERR_INPUT, "%s:%ld:%zu: expected a number of cities from 1 to %d, got '%s'",
			               L->path, L->rd.line, (size_t)(val - raw) + 1, RT_TSP_MAX_CITIES,
			               rt_data_quote(q, sizeof q, val, vlen));
		L->dim = n;
		break;
	case K_EWT:
		return key_choice(L, &L->metric, key_names[k], metric_names, COUNT(metric_names), val, vlen);
	case K_EWF:
		return key_choice(L, &L->format, key_names[k], format_names, COUNT(format_names), val, vlen);
	case K_NCT:
		return key_choice(L, &L->ctype, key_names[k], ctype_names, COUNT(ctype_names), val, vlen);
	default:
		break;
	}
	return RT_OK;
}

/* Starts NODE_COORD_SECTION or DISPLAY_DATA_SECTION (n lines "id x y [z]"). */
static rt_status nodes_begin(tsp_loader *L, tsp_section s)
{
	rt_tsp *t = L->t;
	size_t n = (size_t)L->dim;

	L->ncoord = 2;
	if (s == SEC_COORDS) {
		if (L->ctype >= 0 && ctype_dims[L->ctype] == 0)
			return rt_fail(L->err, RT_ERR_INPUT, "%s:%ld: expected no NODE_COORD_SECTION (NODE_COORD_TYPE NO_COORDS), got one",
			               L->path, L->rd.line);
		L->ncoord = metric_dims[L->metric] ? metric_dims[L->metric] : L->ctype >= 0 ? ctype_dims[L->ctype] : 2;
		t->x = rt_malloc(n * sizeof *t->x, L->err);
		t->y = t->x ? rt_malloc(n * sizeof *t->y, L->err) : NULL;
		if (!t->y)
			return RT_ERR_SYSTEM;
		if (L->ncoord == 3 && !(t->z = rt_malloc(n * sizeof *t->z, L->err)))
			return RT_ERR_SYSTEM;
	}
	if (!L->seen && !(L->seen = rt_malloc(n, L->err)))
		return RT_ERR_SYSTEM;
	memset(L->seen, 0, n);
	L->want = L->dim;
	return RT_OK;
}

/* Moves (r, c) to the next cell of layout lay in an n x n matrix. */
static void next_cell(tsp_layout lay, long n, long *r, long *c)
{
	++*c;
	if ((lay == LAY_FULL || lay == LAY_UPPER_ROW || lay == LAY_UPPER_DIAG_ROW) && *c < n)
		return;
	if ((lay == LAY_LOWER_ROW && *c < *r) || (lay == LAY_LOWER_DIAG_ROW && *c <= *r))
		return;
	++*r;
	*c = lay == LAY_UPPER_ROW ? *r + 1 : lay == LAY_UPPER_DIAG_ROW ? *r : 0;
}

/* The complete section's weights into the symmetric matrix with a zero
 * diagonal, replaying the layout's order of cells. */
static rt_status weights_matrix(tsp_loader *L)
{
	size_t n = (size_t)L->t->n;
	tsp_layout lay = format_layout[L->format];
	long r = lay == LAY_LOWER_ROW, c = lay == LAY_UPPER_ROW;
	int *w = rt_calloc(n * n, sizeof *w, L->err);
	if (!w)
		return RT_ERR_SYSTEM;
	for (long long k = 0; k < L->want; k++) {
		if (r != c)
			w[(size_t)r * n + (size_t)c] = w[(size_t)c * n + (size_t)r] = L->vals[k];
		next_cell(lay, (long)n, &r, &c);
	}
	L->t->w = w;
	return RT_OK;
}

/* Starts EDGE_WEIGHT_SECTION: the number of weights and the first cell. The
 * matrix is not allocated here: a short file declaring a large DIMENSION
 * must not claim n x n ints (1.6 GB at the limit) before giving any weight
 * (found by tests/fuzz/fuzz_tsp.c). */
static rt_status weights_begin(tsp_loader *L)
{
	long long n = L->dim;
	tsp_layout lay;

	if (L->metric != RT_TSP_EXPLICIT)
		return rt_fail(L->err, RT_ERR_INPUT, "%s:%ld: expected EDGE_WEIGHT_TYPE EXPLICIT for an EDGE_WEIGHT_SECTION, got %s",
		               L->path, L->rd.line, metric_names[L->metric]);
	if (L->format < 0)
		return rt_fail(L->err, RT_ERR_INPUT, "%s:%ld: expected EDGE_WEIGHT_FORMAT before EDGE_WEIGHT_SECTION",
		               L->path, L->rd.line);
	if (n > RT_TSP_MAX_EXPLICIT)
		return rt_fail(L->err, RT_ERR_INPUT, "%s:%ld: expected at most %d cities with EXPLICIT weights (the %lld x %lld matrix is kept; "
		               "build with -DRT_TSP_MAX_EXPLICIT=N for more), got DIMENSION %lld",
		               L->path, L->rd.line, RT_TSP_MAX_EXPLICIT, n, n, n);
	lay = format_layout[L->format];
	L->want = lay == LAY_FULL ? n * n : lay == LAY_UPPER_ROW || lay == LAY_LOWER_ROW ? n * (n - 1) / 2 : n * (n + 1) / 2;
	L->r = lay == LAY_LOWER_ROW;
	L->c = lay == LAY_UPPER_ROW;
	return L->want == 0 ? weights_matrix(L) : RT_OK;   /* one city, no weights */
}

/* A section that rt_tsp_load does not read. */
static rt_status section_unsupported(tsp_loader *L, const char *name)
{
	int tour = !strcasecmp(name, "TOUR_SECTION");
	if (tour || !strcasecmp(name, "FIXED_EDGES_SECTION"))
		return rt_fail(L->err, RT_ERR_INPUT, "%s:%ld: %s in a TSP instance is not supported (%s)",
		               L->path, L->rd.line, name,
		               tour ? "a tour belongs in a .tour file, read by rt_tsp_tour_read" : "no edges can be fixed");
	return rt_fail(L->err, RT_ERR_INPUT, "%s:%ld: %s is not supported (only NODE_COORD_SECTION, EDGE_WEIGHT_SECTION and DISPLAY_DATA_SECTION)",
	               L->path, L->rd.line, name);
}

/* A section header line: checks what it needs and starts reading it. */
static rt_status section_begin(tsp_loader *L, const char *name)
{
	tsp_section s = (tsp_section)lookup(section_names, COUNT(section_names), name);

	if ((int)s <= 0)
		return section_unsupported(L, name);
	if (L->have[s])
		return rt_fail(L->err, RT_ERR_INPUT, "%s:%ld: expected one %s, got a second one", L->path, L->rd.line, name);
	if (L->dim < 0 || (s != SEC_DISPLAY && L->metric < 0))
		return rt_fail(L->err, RT_ERR_INPUT, "%s:%ld: expected %s before %s",
		               L->path, L->rd.line, L->dim < 0 ? "DIMENSION" : "EDGE_WEIGHT_TYPE", name);
	L->t->n = (int)L->dim;
	L->sec = s;
	L->have[s] = 1;
	L->done = 0;
	return s == SEC_WEIGHTS ? weights_begin(L) : nodes_begin(L, s);
}

/* Fails for coordinate v (token tok) of a NODE_COORD_SECTION out of range. */
static rt_status coord_range(tsp_loader *L, double v, const char *tok, size_t n, size_t col)
{
	char q[64];
	int geo = L->metric == RT_TSP_GEO;
	double lim = geo ? 360.0 : RT_TSP_MAX_COORD;
	if (fabs(v) <= lim)
		return RT_OK;
	return rt_fail(L->err, RT_ERR_INPUT, "%s:%ld:%zu: expected a coordinate from %g to %g (%s), got '%s'",
	               L->path, L->rd.line, col, -lim, lim,
	               geo ? "GEO: degrees.minutes" : "so that distances fit an int", rt_data_quote(q, sizeof q, tok, n));
}

/* One "id x y [z]" line of a node section (stored for NODE_COORD_SECTION). */
static rt_status node_line(tsp_loader *L, char *line)
{
	rt_tsp *t = L->t;
	char *p = line, *tok, q[64];
	size_t n;
	long id;
	double v[3];
	rt_status st;

	n = next_token(&p, &tok);
	if (!parse_long(tok, n, &id) || id < 1 || id > t->n)
		return rt_fail(L->err, RT_ERR_INPUT, "%s:%ld:%zu: expected a city number from 1 to %d, got '%s'",
		               L->path, L->rd.line, (size_t)(tok - line) + 1, t->n, rt_data_quote(q, sizeof q, tok, n));
	if (L->seen[id - 1])
		return rt_fail(L->err, RT_ERR_INPUT, "%s:%ld:%zu: expected each city once, got city %ld again",
		               L->path, L->rd.line, (size_t)(tok - line) + 1, id);
	for (int k = 0; k < L->ncoord; k++) {
		n = next_token(&p, &tok);
		if (rt_data_parse_double(tok, n, &v[k]) && !isfinite(v[k]))
			return rt_fail(L->err, RT_ERR_INPUT, "%s:%ld:%zu: expected a finite number (the %c coordinate of city %ld), got '%s'",
			               L->path, L->rd.line, (size_t)(tok - line) + 1, "xyz"[k], id,
			               rt_data_quote(q, sizeof q, tok, n));
		if (!rt_data_parse_double(tok, n, &v[k]))
			return rt_fail(L->err, RT_ERR_INPUT, "%s:%ld:%zu: expected the %c coordinate of city %ld, got '%s'",
			               L->path, L->rd.line, (size_t)(tok - line) + 1, "xyz"[k], id,
			               n ? rt_data_quote(q, sizeof q, tok, n) : "");
		if (L->sec == SEC_COORDS && (st = coord_range(L, v[k], tok, n, (size_t)(tok - line) + 1)))
			return st;
	}
	n = next_token(&p, &tok);
	if (n)
		return rt_fail(L->err, RT_ERR_INPUT, "%s:%ld:%zu: expected the end of the line after the coordinates of city %ld, got '%s'",
		               L->path, L->rd.line, (size_t)(tok - line) + 1, id, rt_data_quote(q, sizeof q, tok, n));
	L->seen[id - 1] = 1;
	L->done++;
	if (L->sec == SEC_COORDS) {
		t->x[id - 1] = v[0];
		t->y[id - 1] = v[1];
		if (t->z)
			t->z[id - 1] = v[2];
	}
	return RT_OK;
}

/* Parses an EXPLICIT weight: a whole number from 0 to RT_TSP_MAX_WEIGHT. */
static int parse_weight(const char *s, size_t len, int *out)
{
	long v;
	double d;
	if (parse_long(s, len, &v)) {
		*out = (int)v;
		return v <= RT_TSP_MAX_WEIGHT;
	}
	if (!rt_data_parse_double(s, len, &d) || !(d >= 0 && d <= RT_TSP_MAX_WEIGHT) || d != floor(d))
		return 0;
	*out = (int)d;
	return 1;
}

/* Keeps weight v for the current cell, then moves on; a FULL_MATRIX entry
 * below the diagonal must equal its mirror read before (in file order, the
 * cell (c, r) of a full matrix is weight c * n + r). */
static rt_status store_weight(tsp_loader *L, int v, size_t col)
{
	size_t n = (size_t)L->t->n, r = (size_t)L->r, c = (size_t)L->c, k = (size_t)L->done;
	tsp_layout lay = format_layout[L->format];

	if (lay == LAY_FULL && c < r && L->vals[c * n + r] != v)
		return rt_fail(L->err, RT_ERR_INPUT, "%s:%ld:%zu: expected weight %d from city %zu to city %zu "
		               "(as from city %zu to city %zu: TYPE TSP is symmetric), got %d",
		               L->path, L->rd.line, col, L->vals[c * n + r], r + 1, c + 1, c + 1, r + 1, v);
	if (k == L->vcap) {
		size_t cap = L->vcap ? 2 * L->vcap : 4096;
		int *vals;
		if (cap > (size_t)L->want)
			cap = (size_t)L->want;
		if (!(vals = rt_realloc(L->vals, cap * sizeof *vals, L->err)))
			return RT_ERR_SYSTEM;
		L->vals = vals;
		L->vcap = cap;
	}
	L->vals[k] = v;
	next_cell(lay, (long)n, &L->r, &L->c);
	L->done++;
	return L->done == L->want ? weights_matrix(L) : RT_OK;
}

/* The line after a complete section is neither EOF nor a section header. */
static rt_status after_section(tsp_loader *L, const char *tok, size_t len, size_t col)
{
	char q[64];
	return rt_fail(L->err, RT_ERR_INPUT, "%s:%ld:%zu: expected EOF or a section after the %lld %s of %s, got '%s'",
	               L->path, L->rd.line, col, L->want, L->sec == SEC_WEIGHTS ? "weights" : "cities",
	               section_names[L->sec], rt_data_quote(q, sizeof q, tok, len));
}

/* One line of EDGE_WEIGHT_SECTION: any number of weights. */
static rt_status weights_line(tsp_loader *L, char *line)
{
	char *p = line, *tok, q[64];
	size_t len;
	int v;
	rt_status st;

	while ((len = next_token(&p, &tok)) > 0) {
		size_t col = (size_t)(tok - line) + 1;
		if (L->done == L->want)
			return after_section(L, tok, len, col);
		double d;
		if (rt_data_parse_double(tok, len, &d) && !isfinite(d))
			return rt_fail(L->err, RT_ERR_INPUT, "%s:%ld:%zu: expected a finite number (the weight from city %ld to city %ld), got '%s'",
			               L->path, L->rd.line, col, L->r + 1, L->c + 1, rt_data_quote(q, sizeof q, tok, len));
		if (!parse_weight(tok, len, &v))
			return rt_fail(L->err, RT_ERR_INPUT, "%s:%ld:%zu: expected the weight from city %ld to city %ld "
			               "(a whole number from 0 to %d), got '%s'",
			               L->path, L->rd.line, col, L->r + 1, L->c + 1, RT_TSP_MAX_WEIGHT,
			               rt_data_quote(q, sizeof q, tok, len));
		if ((st = store_weight(L, v, col)))
			return st;
	}
	return RT_OK;
}

/* The current section ended (EOF, a section, the end of input) too early. */
static rt_status too_few(tsp_loader *L)
{
	char what[96] = "DIMENSION";
	if (L->sec == SEC_WEIGHTS)
		snprintf(what, sizeof what, "%s, DIMENSION %d", format_names[L->format], L->t->n);
	return rt_fail(L->err, RT_ERR_INPUT, "%s:%ld: expected %lld %s in %s (%s), got %lld",
	               L->path, L->rd.line, L->want, L->sec == SEC_WEIGHTS ? "weights" : "cities",
	               section_names[L->sec], what, L->done);
}

/* Reads lines up to EOF or the end of the input. */
static rt_status load_lines(tsp_loader *L)
{
	char *line, *raw;
	size_t len, klen;
	rt_status st;

	for (;;) {
		if ((st = rt_data_next_line(&L->rd, &line, &len, L->err)))
			return st;
		if (!line)
			return RT_OK;
		raw = line = skip_bom(line, &len, L->rd.line);   /* columns in messages count from here */
		line = trim(line, &len);
		if (len == 0)
			continue;
		L->nlines++;
		klen = section_len(line, len);
		if (L->sec != SEC_NONE && L->done < L->want) {
			if (!strcasecmp(line, "EOF") || klen)
				return too_few(L);
			st = L->sec == SEC_WEIGHTS ? weights_line(L, raw) : node_line(L, raw);
		} else if (!strcasecmp(line, "EOF")) {
			return RT_OK;
		} else if (klen) {
			line[klen] = '\0';
			st = section_begin(L, line);
		} else if (L->sec != SEC_NONE) {
			st = after_section(L, line, len, (size_t)(line - raw) + 1);
		} else {
			st = tsp_key(L, raw, line, len);
		}
		if (st)
			return st;
	}
}

/* Checks after the last line: every item there, the section the metric needs. */
static rt_status load_finish(tsp_loader *L)
{
	rt_tsp *t = L->t;
	int explicit_w = L->metric == RT_TSP_EXPLICIT;

	if (L->nlines == 0)
		return rt_fail(L->err, RT_ERR_INPUT, "%s: empty file: expected a TSPLIB instance", L->path);
	if (L->sec != SEC_NONE && L->done < L->want)
		return too_few(L);
	if (!L->have[explicit_w ? SEC_WEIGHTS : SEC_COORDS])
		return rt_fail(L->err, RT_ERR_INPUT, "%s: expected %s, got none", L->path,
		               explicit_w ? "an EDGE_WEIGHT_SECTION (EDGE_WEIGHT_TYPE EXPLICIT)" : "a NODE_COORD_SECTION");
	t->metric = (rt_tsp_metric)L->metric;
	if (!t->name[0]) {
		/* No NAME: the file's base name without extensions. */
		const char *b = strrchr(L->path, '/');
		b = b ? b + 1 : L->path;
		snprintf(t->name, sizeof t->name, "%.*s", (int)strcspn(b, "."), b);
	}
	snprintf(t->path, sizeof t->path, "%s", L->path);
	return RT_OK;
}

rt_status rt_tsp_load(const char *path, rt_tsp *out, rt_error *err)
{
	tsp_loader L;
	rt_status st;

	if (rt_mem_find(path))   /* the C API's coordinates or matrix (data_mem.h) */
		return rt_mem_load_tsp(path, out, err);
	memset(out, 0, sizeof *out);
	memset(&L, 0, sizeof L);
	L.t = out;
	L.path = path;
	L.err = err;
	L.dim = -1;
	L.metric = L.format = L.ctype = -1;
	if ((st = rt_data_open(&L.rd, path, err)))
		return st;
	st = load_lines(&L);
	if (!st)
		st = load_finish(&L);
	free(L.seen);
	free(L.vals);
	rt_data_close(&L.rd);
	if (st)
		rt_tsp_free(out);
	return st;
}

/* ---- distances ---------------------------------------------------------------- */

static inline int nint(double v)
{
	return (int)(v + 0.5);
}

static inline int max_int(int a, int b)
{
	return a > b ? a : b;
}

/* Latitude or longitude in radians from TSPLIB's DDD.MM form. */
static double geo_rad(double v)
{
	const double pi = 3.141592;   /* TSPLIB's value, not M_PI */
	int deg = (int)v;
	double min = v - deg;
	return pi * (deg + 5.0 * min / 3.0) / 180.0;
}

static int geo_distance(const rt_tsp *t, int i, int j)
{
	const double rrr = 6378.388;
	double lat_i = geo_rad(t->x[i]), lon_i = geo_rad(t->y[i]);
	double lat_j = geo_rad(t->x[j]), lon_j = geo_rad(t->y[j]);
	double q1 = cos(lon_i - lon_j), q2 = cos(lat_i - lat_j), q3 = cos(lat_i + lat_j);
	return (int)(rrr * acos(0.5 * ((1.0 + q1) * q2 - (1.0 - q1) * q3)) + 1.0);
}

static inline int distance(const rt_tsp *t, int i, int j)
{
	double dx, dy, dz;
	if (i == j)
		return 0;   /* GEO's formula would give 1 */
	if (t->metric == RT_TSP_EXPLICIT)
		return t->w[(size_t)i * (size_t)t->n + (size_t)j];
	dx = fabs(t->x[i] - t->x[j]);
	dy = fabs(t->y[i] - t->y[j]);
	dz = metric_dims[t->metric] == 3 ? fabs(t->z[i] - t->z[j]) : 0.0;
	switch (t->metric) {
	case RT_TSP_EUC_2D:
	case RT_TSP_EUC_3D:
		return nint(sqrt(dx * dx + dy * dy + dz * dz));
	case RT_TSP_CEIL_2D:
		return (int)ceil(sqrt(dx * dx + dy * dy));
	case RT_TSP_ATT: {
		double r = sqrt((dx * dx + dy * dy) / 10.0);
		int k = nint(r);
		return k < r ? k + 1 : k;
	}
	case RT_TSP_GEO:
		return geo_distance(t, i, j);
	case RT_TSP_MAN_2D:
	case RT_TSP_MAN_3D:
		return nint(dx + dy + dz);
	case RT_TSP_MAX_2D:
	case RT_TSP_MAX_3D:
		return max_int(max_int(nint(dx), nint(dy)), nint(dz));
	case RT_TSP_EXPLICIT:
		break;
	}
	return 0;
}

int rt_tsp_distance(const rt_tsp *t, int i, int j)
{
	return distance(t, i, j);
}

/* Copies the upper triangle of a (n x n, row-major) onto the lower, by blocks. */
static void mirror_upper(int *a, size_t n)
{
	const size_t b = 64;
	for (size_t ib = 0; ib < n; ib += b)
		for (size_t jb = 0; jb <= ib; jb += b)
			for (size_t i = ib; i < n && i < ib + b; i++)
				for (size_t j = jb; j < i && j < jb + b; j++)
					a[i * n + j] = a[j * n + i];
}

rt_status rt_tsp_distance_matrix(const rt_tsp *t, int *out)
{
	rt_tsp local;   /* a copy the compiler knows out cannot alias */
	size_t n;

	if (!t || !out || t->n < 1 || (unsigned)t->metric >= (unsigned)COUNT(metric_names))
		return RT_ERR_INTERNAL;
	n = (size_t)t->n;
	if (t->metric == RT_TSP_EXPLICIT) {
		if (!t->w)
			return RT_ERR_INTERNAL;
		memcpy(out, t->w, n * n * sizeof *out);
		return RT_OK;
	}
	if (!t->x || !t->y || (metric_dims[t->metric] == 3 && !t->z))
		return RT_ERR_INTERNAL;
	local = *t;
	for (size_t i = 0; i < n; i++) {
		out[i * n + i] = 0;
		for (size_t j = i + 1; j < n; j++)
			out[i * n + j] = distance(&local, (int)i, (int)j);
	}
	mirror_upper(out, n);
	return RT_OK;
}

const char *rt_tsp_metric_name(rt_tsp_metric m)
{
	return (unsigned)m < (unsigned)COUNT(metric_names) ? metric_names[m] : "?";
}

void rt_tsp_free(rt_tsp *t)
{
	if (!t)
		return;
	free(t->x);
	free(t->y);
	free(t->z);
	free(t->w);
	memset(t, 0, sizeof *t);
}

long rt_tsp_tour_length(const rt_tsp *t, const int *tour)
{
	long sum = 0;
	for (int k = 0; k < t->n; k++)
		sum += distance(t, tour[k], tour[k + 1 < t->n ? k + 1 : 0]);
	return sum;
}

rt_status rt_tsp_optimal(const char *path, const char *name, long *out, rt_error *err)
{
	rt_data_reader rd;
	rt_status st;
	char *line, q[64];
	size_t len;

	*out = -1;
	if ((st = rt_data_open(&rd, path, err)))
		return st;
	for (;;) {
		char *key = NULL, *val = NULL, *p = NULL;
		size_t klen = 0, vlen;
		long v = 0;
		int kv;

		if ((st = rt_data_next_line(&rd, &line, &len, err)))
			break;
		if (!line)
			break;
		line = trim(line, &len);
		if (len == 0 || line[0] == '#')
			continue;
		kv = split_key(line, len, &key, &klen, &val, &vlen);
		if (kv)
			for (p = val; *p >= '0' && *p <= '9'; p++)
				;
		/* "name : length", optionally followed by a note such as "(CEIL_2D)". */
		if (!kv || klen == 0 || p == val || (*p && !blank(*p)) ||
		    !parse_long(val, (size_t)(p - val), &v)) {
			st = rt_fail(err, RT_ERR_INPUT, "%s:%ld:1: expected 'name : length', got '%s'",
			             path, rd.line, rt_data_quote(q, sizeof q, line, len));
			break;
		}
		if (!strcmp(key, name)) {
			*out = v;
			break;
		}
	}
	rt_data_close(&rd);
	return st;
}

/* ---- .tour files -------------------------------------------------------------- */

/* Fails unless tour[0..n) is a permutation of 0..n-1. */
static rt_status check_permutation(const char *path, int n, const int *tour, rt_error *err)
{
	unsigned char *seen = rt_calloc((size_t)n, 1, err);
	rt_status st = RT_OK;

	if (!seen)
		return RT_ERR_SYSTEM;
	for (int k = 0; k < n && !st; k++) {
		int v = tour[k];
		if (v < 0 || v >= n)
			st = rt_fail(err, RT_ERR_INPUT, "%s: expected a tour of cities 0 to %d, got city %d at position %d",
			             path, n - 1, v, k);
		else if (seen[v])
			st = rt_fail(err, RT_ERR_INPUT, "%s: expected each city once in the tour, got city %d again at position %d",
			             path, v, k);
		else
			seen[v] = 1;
	}
	free(seen);
	return st;
}

/* Appends "KEY : value\n" with control characters in value made blanks. */
static size_t put_field(char *buf, size_t len, const char *key, const char *value)
{
	len += (size_t)sprintf(buf + len, "%s : ", key);
	for (const char *s = value; *s; s++)
		buf[len++] = (unsigned char)*s < 32 ? ' ' : *s;
	buf[len++] = '\n';
	return len;
}

rt_status rt_tsp_tour_write(const char *path, const char *name, const char *comment, int n,
                            const int *tour, rt_error *err)
{
	size_t cap, len = 0;
	char *buf;
	rt_status st;

	if (n < 1 || n > RT_TSP_MAX_CITIES || !tour)
		return rt_fail(err, RT_ERR_INPUT, "%s: expected a tour of 1 to %d cities, got %d",
		               path, RT_TSP_MAX_CITIES, tour ? n : 0);
	if ((st = check_permutation(path, n, tour, err)))
		return st;
	name = name && *name ? name : "tour";
	cap = 128 + strlen(name) + (comment ? strlen(comment) : 0) + (size_t)n * 10;
	if (!(buf = rt_malloc(cap, err)))
		return RT_ERR_SYSTEM;
	len = put_field(buf, len, "NAME", name);
	if (comment)
		len = put_field(buf, len, "COMMENT", comment);
	len += (size_t)sprintf(buf + len, "TYPE : TOUR\nDIMENSION : %d\nTOUR_SECTION\n", n);
	for (int k = 0; k < n; k++)
		len += (size_t)sprintf(buf + len, "%d\n", tour[k] + 1);
	len += (size_t)sprintf(buf + len, "-1\nEOF\n");
	st = rt_write_file_atomic(path, buf, len, err);
	free(buf);
	return st;
}

typedef struct tour_reader {
	const char *path;
	rt_error *err;
	rt_data_reader rd;
	int n_expected;
	long dim;              /* -1 until DIMENSION */
	int *tour;             /* dim entries once TOUR_SECTION starts */
	unsigned char *seen;
	int count;             /* cities read */
	int ended;             /* the -1 was read */
} tour_reader;

/* The first city missing from the tour read so far (1-based). */
static int first_missing(const tour_reader *R)
{
	for (int i = 0; i < (int)R->dim; i++)
		if (!R->seen[i])
			return i + 1;
	return 0;
}

/* One "KEY : value" line of a .tour file. */
static rt_status tour_key(tour_reader *R, char *raw, char *line, size_t len)
{
	char *key, *val, q[64];
	size_t klen, vlen;
	long n;

	if (!split_key(line, len, &key, &klen, &val, &vlen))
		return rt_fail(R->err, RT_ERR_INPUT, "%s:%ld:%zu: expected 'KEY : value' or TOUR_SECTION, got '%s'",
		               R->path, R->rd.line, (size_t)(line - raw) + 1, rt_data_quote(q, sizeof q, line, len));
	if (strcasecmp(key, "COMMENT") != 0)
		val = first_token(val, &vlen);
	if (!strcasecmp(key, "TYPE") && strcasecmp(val, "TOUR") != 0)
		return rt_fail(R->err, RT_ERR_INPUT, "%s:%ld:%zu: expected TYPE TOUR, got '%s'",
		               R->path, R->rd.line, (size_t)(val - raw) + 1, rt_data_quote(q, sizeof q, val, vlen));
	if (!strcasecmp(key, "DIMENSION")) {
		if (!parse_long(val, vlen, &n) || n < 1 || n > RT_TSP_MAX_CITIES)
			return rt_fail(R->err, RT_ERR_INPUT, "%s:%ld:%zu: expected a number of cities from 1 to %d, got '%s'",
			               R->path, R->rd.line, (size_t)(val - raw) + 1, RT_TSP_MAX_CITIES,
			               rt_data_quote(q, sizeof q, val, vlen));
		if (R->n_expected > 0 && n != R->n_expected)
			return rt_fail(R->err, RT_ERR_INPUT, "%s:%ld:%zu: expected DIMENSION %d (the instance's), got %ld",
			               R->path, R->rd.line, (size_t)(val - raw) + 1, R->n_expected, n);
		R->dim = n;
	} else if (strcasecmp(key, "NAME") && strcasecmp(key, "COMMENT") && strcasecmp(key, "TYPE")) {
		return rt_fail(R->err, RT_ERR_INPUT, "%s:%ld:%zu: expected a tour key (NAME, TYPE, COMMENT, DIMENSION), got '%s'",
		               R->path, R->rd.line, (size_t)(key - raw) + 1, rt_data_quote(q, sizeof q, key, klen));
	}
	return RT_OK;
}

/* A section header line of a .tour file: only TOUR_SECTION, once. */
static rt_status tour_section(tour_reader *R, const char *name)
{
	if (strcasecmp(name, "TOUR_SECTION") != 0)
		return rt_fail(R->err, RT_ERR_INPUT, "%s:%ld: %s is not supported in a tour file (only TOUR_SECTION)",
		               R->path, R->rd.line, name);
	if (R->tour)
		return rt_fail(R->err, RT_ERR_INPUT, "%s:%ld: expected one TOUR_SECTION, got a second one", R->path, R->rd.line);
	if (R->dim < 0 && R->n_expected <= 0)
		return rt_fail(R->err, RT_ERR_INPUT, "%s:%ld: expected DIMENSION before TOUR_SECTION", R->path, R->rd.line);
	if (R->dim < 0)
		R->dim = R->n_expected;
	R->tour = rt_malloc((size_t)R->dim * sizeof *R->tour, R->err);
	R->seen = R->tour ? rt_calloc((size_t)R->dim, 1, R->err) : NULL;
	return R->seen ? RT_OK : RT_ERR_SYSTEM;
}

/* One token of TOUR_SECTION: a city id or the closing -1. */
static rt_status tour_token(tour_reader *R, const char *tok, size_t len, size_t col)
{
	char q[64];
	long id;

	if (R->ended)
		return rt_fail(R->err, RT_ERR_INPUT, "%s:%ld:%zu: expected EOF after the tour's -1, got '%s'",
		               R->path, R->rd.line, col, rt_data_quote(q, sizeof q, tok, len));
	if (len == 2 && !memcmp(tok, "-1", 2)) {
		if (R->count < R->dim)
			return rt_fail(R->err, RT_ERR_INPUT, "%s:%ld:%zu: expected %ld cities before -1, got %d (city %d is missing)",
			               R->path, R->rd.line, col, R->dim, R->count, first_missing(R));
		R->ended = 1;
		return RT_OK;
	}
	if (R->count == R->dim)
		return rt_fail(R->err, RT_ERR_INPUT, "%s:%ld:%zu: expected -1 after the %ld cities, got '%s'",
		               R->path, R->rd.line, col, R->dim, rt_data_quote(q, sizeof q, tok, len));
	if (!parse_long(tok, len, &id) || id < 1 || id > R->dim)
		return rt_fail(R->err, RT_ERR_INPUT, "%s:%ld:%zu: expected a city number from 1 to %ld, got '%s'",
		               R->path, R->rd.line, col, R->dim, rt_data_quote(q, sizeof q, tok, len));
	if (R->seen[id - 1])
		return rt_fail(R->err, RT_ERR_INPUT, "%s:%ld:%zu: expected each city once, got city %ld again",
		               R->path, R->rd.line, col, id);
	R->seen[id - 1] = 1;
	R->tour[R->count++] = (int)(id - 1);
	return RT_OK;
}

/* Reads the lines of a .tour file up to EOF or the end of the input. */
static rt_status tour_lines(tour_reader *R)
{
	char *raw, *line, *p, *tok;
	size_t len, klen;
	rt_status st = RT_OK;

	for (;;) {
		if ((st = rt_data_next_line(&R->rd, &raw, &len, R->err)))
			return st;
		if (!raw)
			return RT_OK;
		raw = skip_bom(raw, &len, R->rd.line);
		if (!strcasecmp(line = trim(raw, &len), "EOF"))
			return RT_OK;
		if (len == 0)
			continue;
		klen = section_len(line, len);
		if (klen) {
			line[klen] = '\0';
			st = tour_section(R, line);
		} else if (R->tour) {
			for (p = raw; !st && (len = next_token(&p, &tok)) > 0;)
				st = tour_token(R, tok, len, (size_t)(tok - raw) + 1);
		} else {
			st = tour_key(R, raw, line, len);
		}
		if (st)
			return st;
	}
}

rt_status rt_tsp_tour_read(const char *path, int n_expected, int **tour_out, int *n_out, rt_error *err)
{
	tour_reader R;
	rt_status st;

	*tour_out = NULL;
	*n_out = 0;
	memset(&R, 0, sizeof R);
	R.path = path;
	R.err = err;
	R.n_expected = n_expected;
	R.dim = -1;
	if ((st = rt_data_open(&R.rd, path, err)))
		return st;
	st = tour_lines(&R);
	if (!st && !R.tour)
		st = rt_fail(err, RT_ERR_INPUT, "%s: expected a TOUR_SECTION, got none", path);
	else if (!st && R.count < R.dim)
		st = rt_fail(err, RT_ERR_INPUT, "%s:%ld: expected %ld cities in TOUR_SECTION, got %d (city %d is missing)",
		             path, R.rd.line, R.dim, R.count, first_missing(&R));
	rt_data_close(&R.rd);
	free(R.seen);
	if (st) {
		free(R.tour);
		return st;
	}
	*tour_out = R.tour;
	*n_out = (int)R.dim;
	return RT_OK;
}
