/* data_tsp.c: TSPLIB instances (coordinates) and TSPLIB's integer distances.
 *
 * Distances follow TSPLIB 95 to the letter, because published optimal tour
 * lengths are only reproducible that way: EUC_2D rounds to the nearest
 * integer, CEIL_2D rounds up, ATT is the pseudo-Euclidean rounding of
 * sqrt((dx^2 + dy^2) / 10), GEO truncates coordinates to degrees, reads the
 * fraction as minutes, and uses PI = 3.141592 and an earth radius of
 * 6378.388 km (formulas as in the TSPLIB 95 document and FAQ). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "data_impl.h"

/* Most cities an instance may declare (the World TSP has 1.9 million). */
#if !defined(RT_TSP_MAX_CITIES)
#define RT_TSP_MAX_CITIES 10000000
#endif

/* Largest coordinate magnitude, so that every distance fits an int. */
#if !defined(RT_TSP_MAX_COORD)
#define RT_TSP_MAX_COORD 1e8
#endif

static const char *const metric_names[] = { "EUC_2D", "CEIL_2D", "ATT", "GEO" };

/* Trims blanks at both ends of s[0..*len) in place; returns the new start. */
static char *trim(char *s, size_t *len)
{
	size_t n = *len;
	while (n > 0 && rt_data_blank(*s)) {
		s++;
		n--;
	}
	while (n > 0 && rt_data_blank(s[n - 1]))
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
	while (*p && rt_data_blank(*p))
		p++;
	for (q = p; *q && !rt_data_blank(*q); q++)
		;
	*tok = p;
	*pp = q;
	return (size_t)(q - p);
}

typedef struct tsp_header {
	long dim;          /* -1 until DIMENSION */
	int metric;        /* -1 until EDGE_WEIGHT_TYPE */
} tsp_header;

/* One "KEY : value" line of the specification part. */
static rt_status tsp_key(rt_tsp *t, tsp_header *h, const char *path, long lineno, char *line, size_t len, rt_error *err)
{
	char *colon = memchr(line, ':', len), *key, *val, q[64];
	size_t klen, vlen;

	if (!colon)
		return rt_fail(err, RT_ERR_INPUT, "%s:%ld:1: expected 'KEY : value' or a section name, got '%s'",
		               path, lineno, rt_data_quote(q, sizeof q, line, len));
	klen = (size_t)(colon - line);
	vlen = len - klen - 1;
	key = trim(line, &klen);
	val = trim(colon + 1, &vlen);
	if (!strcmp(key, "NAME")) {
		snprintf(t->name, sizeof t->name, "%s", val);
	} else if (!strcmp(key, "TYPE")) {
		if (strcmp(val, "TSP") != 0)
			return rt_fail(err, RT_ERR_INPUT, "%s:%ld: TYPE %s is not supported (only TSP, the symmetric travelling salesman problem)",
			               path, lineno, rt_data_quote(q, sizeof q, val, vlen));
	} else if (!strcmp(key, "DIMENSION")) {
		long n;
		if (!parse_long(val, vlen, &n) || n < 1 || n > RT_TSP_MAX_CITIES)
			return rt_fail(err, RT_ERR_INPUT, "%s:%ld:%zu: expected a number of cities from 1 to %d, got '%s'",
			               path, lineno, (size_t)(val - line) + 1, RT_TSP_MAX_CITIES,
			               rt_data_quote(q, sizeof q, val, vlen));
		h->dim = n;
	} else if (!strcmp(key, "EDGE_WEIGHT_TYPE")) {
		h->metric = -1;
		for (int m = 0; m < 4; m++)
			if (!strcmp(val, metric_names[m]))
				h->metric = m;
		if (h->metric < 0)
			return rt_fail(err, RT_ERR_INPUT, "%s:%ld: EDGE_WEIGHT_TYPE %s is not supported (supported: EUC_2D, CEIL_2D, ATT, GEO)",
			               path, lineno, rt_data_quote(q, sizeof q, val, vlen));
	} else if (!strcmp(key, "NODE_COORD_TYPE")) {
		if (strcmp(val, "TWOD_COORDS") != 0 && strcmp(val, "NO_COORDS") != 0)
			return rt_fail(err, RT_ERR_INPUT, "%s:%ld: NODE_COORD_TYPE %s is not supported (only TWOD_COORDS)",
			               path, lineno, rt_data_quote(q, sizeof q, val, vlen));
	} else if (strcmp(key, "COMMENT") && strcmp(key, "CAPACITY") && strcmp(key, "EDGE_WEIGHT_FORMAT") &&
	           strcmp(key, "EDGE_DATA_FORMAT") && strcmp(key, "DISPLAY_DATA_TYPE")) {
		return rt_fail(err, RT_ERR_INPUT, "%s:%ld:1: expected a TSPLIB key (NAME, TYPE, COMMENT, DIMENSION, EDGE_WEIGHT_TYPE, ...), got '%s'",
		               path, lineno, rt_data_quote(q, sizeof q, key, klen));
	}
	return RT_OK;
}

/* One "id x y" line of NODE_COORD_SECTION. */
static rt_status tsp_city(rt_tsp *t, unsigned char *seen, const char *path, long lineno, char *line, rt_error *err)
{
	char *p = line, *tok, q[64];
	size_t n;
	long id;
	double xy[2];

	n = next_token(&p, &tok);
	if (!parse_long(tok, n, &id) || id < 1 || id > t->n)
		return rt_fail(err, RT_ERR_INPUT, "%s:%ld:%zu: expected a city number from 1 to %d, got '%s'",
		               path, lineno, (size_t)(tok - line) + 1, t->n, rt_data_quote(q, sizeof q, tok, n));
	if (seen[id - 1])
		return rt_fail(err, RT_ERR_INPUT, "%s:%ld:%zu: expected each city once, got city %ld again",
		               path, lineno, (size_t)(tok - line) + 1, id);
	for (int k = 0; k < 2; k++) {
		n = next_token(&p, &tok);
		if (!rt_data_parse_double(tok, n, &xy[k]) || !isfinite(xy[k]))
			return rt_fail(err, RT_ERR_INPUT, "%s:%ld:%zu: expected the %s coordinate of city %ld, got '%s'",
			               path, lineno, (size_t)(tok - line) + 1, k ? "y" : "x", id,
			               n ? rt_data_quote(q, sizeof q, tok, n) : "");
		if (fabs(xy[k]) > (t->metric == RT_TSP_GEO ? 360.0 : RT_TSP_MAX_COORD))
			return rt_fail(err, RT_ERR_INPUT, "%s:%ld:%zu: expected a coordinate from %g to %g (%s), got '%s'",
			               path, lineno, (size_t)(tok - line) + 1,
			               t->metric == RT_TSP_GEO ? -360.0 : -RT_TSP_MAX_COORD,
			               t->metric == RT_TSP_GEO ? 360.0 : RT_TSP_MAX_COORD,
			               t->metric == RT_TSP_GEO ? "GEO: degrees.minutes" : "so that distances fit an int",
			               rt_data_quote(q, sizeof q, tok, n));
	}
	n = next_token(&p, &tok);
	if (n)
		return rt_fail(err, RT_ERR_INPUT, "%s:%ld:%zu: expected the end of the line after the coordinates of city %ld, got '%s'",
		               path, lineno, (size_t)(tok - line) + 1, id, rt_data_quote(q, sizeof q, tok, n));
	seen[id - 1] = 1;
	t->x[id - 1] = xy[0];
	t->y[id - 1] = xy[1];
	return RT_OK;
}

rt_status rt_tsp_load(const char *path, rt_tsp *out, rt_error *err)
{
	enum { SPEC, COORDS, DONE } part = SPEC;
	rt_data_reader rd;
	tsp_header h = { -1, -1 };
	unsigned char *seen = NULL;
	long ncities = 0, nlines = 0;
	rt_status st;
	char *line, *raw, q[64];
	size_t len;

	memset(out, 0, sizeof *out);
	if ((st = rt_data_open(&rd, path, err)))
		return st;
	while (part != DONE) {
		if ((st = rt_data_next_line(&rd, &line, &len, err)))
			goto fail;
		if (!line)
			break;
		raw = line;         /* columns in messages count from here */
		line = trim(line, &len);
		if (len == 0)
			continue;
		nlines++;
		if (part == COORDS && ncities < out->n) {
			if (!strcmp(line, "EOF"))
				break;      /* too few cities: reported below */
			if ((st = tsp_city(out, seen, path, rd.line, raw, err)))
				goto fail;
			ncities++;
			continue;
		}
		if (!strcmp(line, "EOF")) {
			part = DONE;
			continue;
		}
		if (part == COORDS) {
			st = rt_fail(err, RT_ERR_INPUT, "%s:%ld:1: expected EOF after the %d cities, got '%s'",
			             path, rd.line, out->n, rt_data_quote(q, sizeof q, line, len));
			goto fail;
		}
		/* The specification part: a section name (optionally with ':') or a key. */
		size_t klen = len;
		char *key = line;
		while (klen > 0 && (key[klen - 1] == ':' || rt_data_blank(key[klen - 1])))
			klen--;
		int section = klen > 8 && !memcmp(key + klen - 8, "_SECTION", 8) && !memchr(key, ':', klen);
		if (section)
			key[klen] = '\0';
		if (section) {
			if (strcmp(key, "NODE_COORD_SECTION") != 0) {
				st = rt_fail(err, RT_ERR_INPUT, "%s:%ld: %s is not supported (only NODE_COORD_SECTION)",
				             path, rd.line, key);
				goto fail;
			}
			if (h.dim < 0 || h.metric < 0) {
				st = rt_fail(err, RT_ERR_INPUT, "%s:%ld: expected %s before NODE_COORD_SECTION",
				             path, rd.line, h.dim < 0 ? "DIMENSION" : "EDGE_WEIGHT_TYPE");
				goto fail;
			}
			out->n = (int)h.dim;
			out->metric = (rt_tsp_metric)h.metric;
			out->x = rt_malloc((size_t)h.dim * sizeof *out->x, err);
			out->y = out->x ? rt_malloc((size_t)h.dim * sizeof *out->y, err) : NULL;
			seen = out->y ? rt_calloc((size_t)h.dim, 1, err) : NULL;
			if (!seen) {
				st = RT_ERR_SYSTEM;
				goto fail;
			}
			part = COORDS;
			continue;
		}
		if ((st = tsp_key(out, &h, path, rd.line, line, len, err)))
			goto fail;
	}
	if (nlines == 0) {
		st = rt_fail(err, RT_ERR_INPUT, "%s: empty file: expected a TSPLIB instance", path);
		goto fail;
	}
	if (part == SPEC || (part == DONE && !seen)) {
		st = rt_fail(err, RT_ERR_INPUT, "%s: expected a NODE_COORD_SECTION, got none", path);
		goto fail;
	}
	if (ncities < out->n) {
		st = rt_fail(err, RT_ERR_INPUT, "%s:%ld: expected %d cities in NODE_COORD_SECTION (DIMENSION), got %ld",
		             path, rd.line, out->n, ncities);
		goto fail;
	}
	if (!out->name[0]) {
		/* No NAME: the file's base name without extensions. */
		const char *b = strrchr(path, '/');
		b = b ? b + 1 : path;
		snprintf(out->name, sizeof out->name, "%.*s", (int)strcspn(b, "."), b);
	}
	snprintf(out->path, sizeof out->path, "%s", path);
	free(seen);
	rt_data_close(&rd);
	return RT_OK;
fail:
	free(seen);
	rt_data_close(&rd);
	rt_tsp_free(out);
	return st;
}

/* Latitude or longitude in radians from TSPLIB's DDD.MM form. */
static double geo_rad(double v)
{
	const double pi = 3.141592;   /* TSPLIB's value, not M_PI */
	int deg = (int)v;
	double min = v - deg;
	return pi * (deg + 5.0 * min / 3.0) / 180.0;
}

int rt_tsp_distance(const rt_tsp *t, int i, int j)
{
	double dx = t->x[i] - t->x[j], dy = t->y[i] - t->y[j];
	switch (t->metric) {
	case RT_TSP_EUC_2D:
		return (int)(sqrt(dx * dx + dy * dy) + 0.5);
	case RT_TSP_CEIL_2D:
		return (int)ceil(sqrt(dx * dx + dy * dy));
	case RT_TSP_ATT: {
		double r = sqrt((dx * dx + dy * dy) / 10.0);
		int k = (int)(r + 0.5);
		return k < r ? k + 1 : k;
	}
	case RT_TSP_GEO: {
		const double rrr = 6378.388;
		double lat_i = geo_rad(t->x[i]), lon_i = geo_rad(t->y[i]);
		double lat_j = geo_rad(t->x[j]), lon_j = geo_rad(t->y[j]);
		double q1 = cos(lon_i - lon_j), q2 = cos(lat_i - lat_j), q3 = cos(lat_i + lat_j);
		return (int)(rrr * acos(0.5 * ((1.0 + q1) * q2 - (1.0 - q1) * q3)) + 1.0);
	}
	}
	return 0;
}

void rt_tsp_free(rt_tsp *t)
{
	if (!t)
		return;
	free(t->x);
	free(t->y);
	memset(t, 0, sizeof *t);
}

long rt_tsp_tour_length(const rt_tsp *t, const int *tour)
{
	long sum = 0;
	for (int k = 0; k < t->n; k++)
		sum += rt_tsp_distance(t, tour[k], tour[k + 1 < t->n ? k + 1 : 0]);
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
		char *colon, *key = NULL, *val = NULL, *p = NULL;
		size_t klen = 0, vlen;
		long v = 0;

		if ((st = rt_data_next_line(&rd, &line, &len, err)))
			break;
		if (!line)
			break;
		line = trim(line, &len);
		if (len == 0 || line[0] == '#')
			continue;
		colon = memchr(line, ':', len);
		if (colon) {
			klen = (size_t)(colon - line);
			vlen = len - klen - 1;
			key = trim(line, &klen);
			val = trim(colon + 1, &vlen);
			for (p = val; *p >= '0' && *p <= '9'; p++)
				;
		}
		/* "name : length", optionally followed by a note such as "(CEIL_2D)". */
		if (!colon || klen == 0 || p == val || (*p && !rt_data_blank(*p)) ||
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
