/* spec.h: problem specs, plain-text INI files parsed with inih.
 *
 * A spec is read whole into a list of (section, key, value, line) entries.
 * Each kind's module then takes the values it knows with the typed getters
 * below, which check range and form and mark the entry used; whatever is left
 * unused afterwards is an unknown section or key and rt_spec_check_unused
 * reports it. Every error names file:line, the key and what was expected.
 *
 *   [problem]
 *   kind = gp            ; gp, de, aco, mbp or svm
 *   name = sextic
 */
#ifndef RT_SPEC_H
#define RT_SPEC_H

#include <stdint.h>

#include "config.h"
#include "error.h"

typedef struct rt_spec_entry {
	char section[RT_SPEC_NAME_MAX];
	char key[RT_SPEC_NAME_MAX];
	char *value;
	int line;   /* 1-based line in the file; 0 for a command-line override */
	int used;   /* set by a getter that consumed it */
} rt_spec_entry;

typedef struct rt_spec {
	char path[RT_PATH_MAX];   /* as given, used in messages */
	char dir[RT_PATH_MAX];    /* folder of the file, for relative data paths */
	rt_spec_entry *entries;
	int nentries, capacity;
	/* Sections some getter asked about: known to the kind even when every key
	 * in them is misspelt (for the unknown key vs unknown section message). */
	char asked[16][RT_SPEC_NAME_MAX];
	int nasked;
} rt_spec;

/* Reads and parses an INI file. Syntax errors and duplicate keys give
 * RT_ERR_INPUT with "path:line: ...". */
rt_status rt_spec_load(rt_spec *spec, const char *path, rt_error *err);
/* Parses INI text held in memory; name stands for the path in messages. */
rt_status rt_spec_load_text(rt_spec *spec, const char *name, const char *text, rt_error *err);
void rt_spec_free(rt_spec *spec);
/* Loads a spec named on a command line: a file if `name` names one (it has a
 * '/' or ends in .ini), else problems/NAME.ini on disk, else its embedded copy. */
rt_status rt_spec_load_named(rt_spec *spec, const char *name, rt_error *err);

/* Sets section.key = value from the command line ("--set gp.population=500"),
 * replacing a value from the file. */
rt_status rt_spec_set(rt_spec *spec, const char *section, const char *key,
		      const char *value, rt_error *err);
/* Parses "section.key=value" and calls rt_spec_set. */
rt_status rt_spec_set_assignment(rt_spec *spec, const char *assignment, rt_error *err);

/* Finds an entry (NULL if absent); does not mark it used. */
rt_spec_entry *rt_spec_find(rt_spec *spec, const char *section, const char *key);
/* Does the spec have any entry in this section? */
int rt_spec_has_section(const rt_spec *spec, const char *section);

/* Typed getters. A missing key takes the default; "required" getters fail
 * when the key is absent. Values outside [min, max] or of the wrong form fail
 * with "path:line: section.key: expected ..., got '...'". */
rt_status rt_spec_int(rt_spec *spec, const char *section, const char *key,
		      long def, long min, long max, long *out, rt_error *err);
rt_status rt_spec_u64(rt_spec *spec, const char *section, const char *key,
		      uint64_t def, uint64_t *out, rt_error *err);
rt_status rt_spec_double(rt_spec *spec, const char *section, const char *key,
			 double def, double min, double max, double *out, rt_error *err);
rt_status rt_spec_bool(rt_spec *spec, const char *section, const char *key,
		       int def, int *out, rt_error *err);
/* String value; def NULL makes the key required. *out points into the spec. */
rt_status rt_spec_string(rt_spec *spec, const char *section, const char *key,
			 const char *def, const char **out, rt_error *err);
/* One of a NULL-terminated list of names; *out is its index. */
rt_status rt_spec_enum(rt_spec *spec, const char *section, const char *key,
		       const char *const *names, int def, int *out, rt_error *err);
/* A comma- or space-separated list of doubles; *n in: capacity, out: count. */
rt_status rt_spec_doubles(rt_spec *spec, const char *section, const char *key,
			  double *out, int *n, rt_error *err);

/* Reports the first entry no getter consumed: an unknown key or section. */
rt_status rt_spec_check_unused(const rt_spec *spec, rt_error *err);

/* Formats the location of an entry ("path:line" or "command line") into buf. */
const char *rt_spec_where(const rt_spec *spec, const rt_spec_entry *e, char *buf, int size);
/* The same for section.key, or the spec's path when the key is absent (for
 * messages about a value that was defaulted). */
const char *rt_spec_key_where(rt_spec *spec, const char *section, const char *key, char *buf,
			      int size);

/* Resolves a data file named in the spec (e.g. "uci/sonar.csv"): an absolute
 * path as is; else tried relative to the spec's folder, then under
 * $EVOFORGE_DATA, then in the repository's data/ (<spec folder>/../data, then
 * data/ from the current folder), then under ../shared/data next to the
 * checkout (<spec folder>/../../shared/data, then ../shared/data) unless
 * $EVOFORGE_NO_SHARED_DATA is set (to anything but "" or "0").
 * Fails with RT_ERR_INPUT naming every place it looked and the datasets that
 * are not shipped. */
rt_status rt_spec_data_path(const rt_spec *spec, const char *name, char *out, int size,
			    rt_error *err);

#endif
