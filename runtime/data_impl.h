/* data_impl.h: helpers shared by the data loaders (data*.c only, not an API).
 *
 * The loaders read text line by line through one reader over zlib's gzFile,
 * which passes plain files through unchanged, so every format can also be
 * read gzip-compressed. Lines are handed out in place (NUL-terminated, '\r'
 * stripped) from one large buffer: parsing never copies or mallocs per field. */
#ifndef RT_DATA_IMPL_H
#define RT_DATA_IMPL_H

#include <stddef.h>
#include <stdint.h>
#include <zlib.h>

#include "data.h"

/* Longest line a loader accepts (a guard against binary files). */
#if !defined(RT_DATA_MAX_LINE)
#define RT_DATA_MAX_LINE (64 << 20)
#endif

/* TSP instances (data_tsp.c, and data_mem.c's from memory). Most cities an
 * instance may declare (the World TSP has 1.9 million). */
#if !defined(RT_TSP_MAX_CITIES)
#define RT_TSP_MAX_CITIES 10000000
#endif

/* Largest coordinate magnitude, so that every distance fits an int. */
#if !defined(RT_TSP_MAX_COORD)
#define RT_TSP_MAX_COORD 1e8
#endif

/* Largest EXPLICIT weight (tour lengths are summed in a long). */
#if !defined(RT_TSP_MAX_WEIGHT)
#define RT_TSP_MAX_WEIGHT 1000000000
#endif

typedef struct rt_data_reader {
	const char *path;
	gzFile gz;
	char *buf;      /* cap bytes; unread input is buf[pos..len) */
	size_t cap, len, pos;
	long line;      /* 1-based number of the line last returned */
	int eof;        /* gzread reported the end of the input */
} rt_data_reader;

/* Opens path (plain or gzip); fails with strerror's reason if it cannot. */
rt_status rt_data_open(rt_data_reader *r, const char *path, rt_error *err);
/* Sets *line to the next line (NUL-terminated, no '\n' or trailing '\r') and
 * *len to its length; *line is NULL at the end of the input. The text stays
 * valid and writable until the next call. Fails on I/O or zlib errors
 * (a truncated .gz among them). */
rt_status rt_data_next_line(rt_data_reader *r, char **line, size_t *len, rt_error *err);
void rt_data_close(rt_data_reader *r);

/* 1 if s[0..len) is a whole decimal number (optional sign, digits, point,
 * exponent; or nan/inf/infinity), stored in *out correctly rounded, else 0.
 * Plain decimals take a fast exact path; the rest goes through strtof/strtod.
 * Non-finite results (nan, inf, overflow) are returned as such: every loader
 * then rejects them with "expected a finite number". */
int rt_data_parse_float(const char *s, size_t len, float *out);
int rt_data_parse_double(const char *s, size_t len, double *out);
/* 1 if c is a space or a tab. */
static inline int rt_data_blank(char c) { return c == ' ' || c == '\t'; }

/* Writes a printable, shortened copy of s[0..len) into dst (for "got '...'"). */
const char *rt_data_quote(char *dst, size_t n, const char *s, size_t len);

/* Maps strings to indices in order of first appearance while loading. */
typedef struct rt_data_catmap {
	rt_categories *cats;  /* the mapping being built; owns the names */
	size_t *lens;         /* lens[i] = strlen(cats->names[i]) */
	int names_cap;
	int *slots;           /* hash table of indices, -1 = empty */
	uint32_t *hashes;     /* hash of the name at each slot */
	size_t nslots;        /* a power of two */
} rt_data_catmap;

/* Starts an empty mapping that fills *cats (zeroed here). */
void rt_data_catmap_init(rt_data_catmap *m, rt_categories *cats);
/* Sets *idx to the index of s[0..len), adding it if new. Fails with
 * RT_ERR_SYSTEM on out of memory, and returns RT_ERR_INPUT WITHOUT setting
 * err when RT_DATA_MAX_CATEGORIES would be exceeded (the caller knows where). */
rt_status rt_data_catmap_get(rt_data_catmap *m, const char *s, size_t len, int *idx, rt_error *err);
/* Frees the lookup table; the names stay in *cats. */
void rt_data_catmap_free(rt_data_catmap *m);
/* Frees the names of a mapping and zeroes it. */
void rt_data_categories_free(rt_categories *c);

/* "x1", "x2", ... into a fresh string (NULL and err set on out of memory). */
char *rt_data_default_name(const char *prefix, long k, rt_error *err);

#endif
