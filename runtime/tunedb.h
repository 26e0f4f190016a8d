/* tunedb.h: the tuning database: the configurations `evoforge tune` found,
 * one JSON file (tuning.json in the kernel cache folder, kcache.h) that
 * `run` and `bench` read.
 *
 * An entry is found by a key: the FNV-1a hash of the problem signature (the
 * spec's entries that can change results or the work done, sorted; see
 * rt_tunedb_signature) and of the device's identity (backend; GPU name,
 * compute capability, driver and NVRTC versions, or CPU model and core
 * count; evoforge's version). The file is rewritten atomically (temporary
 * name, rename); a file that does not parse is reported and ignored, never
 * fatal, and replaced by the next store. */
#ifndef RT_TUNEDB_H
#define RT_TUNEDB_H

#include <stdint.h>

#include "backend.h"
#include "error.h"
#include "gpu.h"
#include "spec.h"

/* Format of the file; other formats are ignored (and replaced). */
#define RT_TUNEDB_FORMAT 1

typedef struct rt_tunedb_entry {
	char key[24];          /* 16 hex digits */
	char kind[16];
	char problem[128];
	char backend[8];       /* "cpu" or "gpu" */
	char device[256];      /* GPU name, or CPU model and core count */
	char cc[16];           /* GPU compute capability "9.0" ("" on the CPU) */
	char driver[16];       /* CUDA driver version "13.0" ("" on the CPU) */
	char nvrtc[16];        /* NVRTC version "13.0" ("" if none) */
	char evoforge[16];     /* RT_VERSION */
	char overrides[512];   /* "section.key=value ..." */
	char unit[24];
	char date[32];         /* UTC, ISO 8601 */
	double rate, default_rate;
} rt_tunedb_entry;

/* Signature of spec's problem: FNV-1a over its entries (section, key,
 * value) sorted, leaving out unsigned_keys ("section.key", NULL-ended). */
uint64_t rt_tunedb_signature(const rt_spec *spec, const char *const *unsigned_keys);
/* Fills e's identity fields (backend, device, cc, driver, nvrtc, evoforge)
 * for backend (resolved: CPU or GPU; info: device 0 on the GPU). */
void rt_tunedb_identity(rt_backend backend, const gpu_info *info, rt_tunedb_entry *e);
/* Sets e->key from the signature and e's identity fields. */
void rt_tunedb_make_key(rt_tunedb_entry *e, uint64_t signature);
/* The database's path: <kernel cache folder>/tuning.json. */
rt_status rt_tunedb_path(char *out, int size, rt_error *err);
/* Every entry of the file at path (*n = 0 when there is no file). A file
 * that does not parse: RT_ERR_INPUT naming path and offset. */
rt_status rt_tunedb_load(const char *path, rt_tunedb_entry **entries, int *n, rt_error *err);
/* Looks key up: 1 and *e when found, else 0. An unreadable or corrupt file
 * is reported with a warning and counts as empty. */
int rt_tunedb_find(const char *path, const char *key, rt_tunedb_entry *e);
/* Adds e, replacing the entry with the same key; writes atomically. */
rt_status rt_tunedb_store(const char *path, const rt_tunedb_entry *e, rt_error *err);

#endif
