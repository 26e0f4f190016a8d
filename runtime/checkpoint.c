/* checkpoint.c: writing and checking checkpoint files (checkpoint.h). */
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include "checkpoint.h"
#include "comm.h"
#include "kinds.h"
#include "log.h"

static const char magic[8] = {'E', 'V', 'O', 'F', 'C', 'K', 'P', 'T'};

void rt_ckpt_put_u64(rt_buf *b, uint64_t v)
{
	unsigned char le[8];
	for (int i = 0; i < 8; i++)
		le[i] = (unsigned char)(v >> (8 * i));
	rt_buf_append(b, (const char *)le, 8);
}

void rt_ckpt_put_f64(rt_buf *b, double v)
{
	uint64_t bits;
	memcpy(&bits, &v, sizeof bits);
	rt_ckpt_put_u64(b, bits);
}

void rt_ckpt_put_bytes(rt_buf *b, const void *data, size_t n)
{
	rt_ckpt_put_u64(b, n);
	rt_buf_append(b, data, n);
}

static int entry_order(const void *a, const void *b)
{
	const rt_spec_entry *x = *(const rt_spec_entry *const *)a, *y = *(const rt_spec_entry *const *)b;
	int c = strcmp(x->section, y->section);
	return c ? c : strcmp(x->key, y->key);
}

rt_status rt_ckpt_spec_text(const rt_spec *spec, rt_buf *out, rt_error *err)
{
	const rt_spec_entry **e = rt_malloc((size_t)spec->nentries * sizeof *e + 1, err);
	if (!e)
		return RT_ERR_SYSTEM;
	for (int i = 0; i < spec->nentries; i++)
		e[i] = &spec->entries[i];
	qsort(e, (size_t)spec->nentries, sizeof *e, entry_order);
	for (int i = 0; i < spec->nentries; i++)
		rt_buf_printf(out, "%s.%s=%s\n", e[i]->section, e[i]->key, e[i]->value);
	free(e);
	return out->failed ? rt_fail(err, RT_ERR_SYSTEM, "out of memory (the spec's text)") : RT_OK;
}

rt_status rt_ckpt_format(const char *kind, const rt_spec *spec, const rt_buf *state, rt_buf *file,
			 rt_error *err)
{
	rt_buf text = {0};
	rt_status st = rt_ckpt_spec_text(spec, &text, err);
	if (st == RT_OK) {
		rt_buf_append(file, magic, sizeof magic);
		rt_ckpt_put_u64(file, RT_CKPT_VERSION);
		rt_ckpt_put_bytes(file, kind, strlen(kind));
		rt_ckpt_put_bytes(file, text.data ? text.data : "", text.len);
		rt_ckpt_put_bytes(file, state->data ? state->data : "", state->len);
		uLong crc = file->data ? crc32(0L, (const Bytef *)file->data, (uInt)file->len) : 0;
		rt_ckpt_put_u64(file, (uint64_t)crc);
		if (file->failed || state->failed)
			st = rt_fail(err, RT_ERR_SYSTEM, "out of memory (checkpoint)");
	}
	rt_buf_free(&text);
	return st;
}

/* Several ranks each writing their own state: islands a file each per
 * epoch (checkpoint.h; the epoch of the next write and which epochs the
 * write leaves behind), svm's tables one file each (file_per_rank_own). */
static int file_per_rank, file_per_rank_own;
static long rank_epoch, rank_keep = -1;
static char last_name[96];

static int per_rank(void)
{
	return file_per_rank && rt_comm_size() > 1;
}

static void rank_file_name(char *name, size_t size, long epoch)
{
	snprintf(name, size, "checkpoint-rank-%d-migration-%ld.bin", rt_comm_rank(), epoch);
}

/* The epoch of a name of this rank's files; -1: not one of them. */
static long rank_file_epoch(const char *name)
{
	int rank, end = 0;
	long epoch;
	if (sscanf(name, "checkpoint-rank-%d-migration-%ld.bin%n", &rank, &epoch, &end) != 2 ||
	    end == 0 || name[end] != '\0' || rank != rt_comm_rank() || epoch < 0)
		return -1;
	return epoch;
}

void rt_ckpt_rank_epoch(long epoch, long keep)
{
	rank_epoch = epoch;
	rank_keep = keep;
}

const char *rt_ckpt_file_name(void)
{
	if (file_per_rank_own && rt_comm_size() > 1) {
		snprintf(last_name, sizeof last_name, "checkpoint-rank-%d.bin", rt_comm_rank());
		return last_name;
	}
	if (!per_rank())
		return RT_CKPT_FILE;
	if (!last_name[0])
		rank_file_name(last_name, sizeof last_name, rank_epoch);
	return last_name;
}

/* This rank's files in dir: removes those of epochs below `below` (0:
 * none) and gives the latest epoch left (-1: none). */
static long scan_rank_files(const char *dir, long below)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	char path[RT_PATH_MAX];
	long latest = -1;
	while (d && (e = readdir(d))) {
		long epoch = rank_file_epoch(e->d_name);
		if (epoch >= 0 && epoch < below) {
			if (snprintf(path, sizeof path, "%s/%s", dir, e->d_name) < (int)sizeof path &&
			    remove(path) != 0)
				rt_warn("%s: cannot remove an old checkpoint: %s", path, strerror(errno));
		} else if (epoch > latest) {
			latest = epoch;
		}
	}
	if (d)
		closedir(d);
	return latest;
}

rt_status rt_ckpt_write(const char *dir, const char *kind, const rt_spec *spec, const rt_buf *state,
			rt_error *err)
{
	char path[RT_PATH_MAX];
	rt_buf file = {0};
	if (per_rank())
		rank_file_name(last_name, sizeof last_name, rank_epoch);
	rt_status st = rt_format(path, sizeof path, err, "%s/%s", dir, rt_ckpt_file_name());
	if (st == RT_OK)
		st = rt_ckpt_format(kind, spec, state, &file, err);
	if (st == RT_OK)
		st = rt_write_file_atomic(path, file.data, file.len, err);
	rt_buf_free(&file);
	if (st == RT_OK && per_rank() && rank_keep > 0)
		scan_rank_files(dir, rank_keep);
	return st;
}

/* The file in dir this rank resumes from: the ranks agree on the latest
 * epoch they all have (every rank keeps its files back to it: checkpoint.h). */
static rt_status agreed_rank_file(const char *dir, char *path, size_t size, rt_error *err)
{
	long mine = scan_rank_files(dir, 0);
	if (mine > INT_MAX - 1)
		return rt_fail(err, RT_ERR_INPUT, "%s: a checkpoint at migration %ld", dir, mine);
	int v[2] = { mine < 0 ? 1 : -(int)mine, (int)mine };   /* minus the lowest, the highest */
	rt_comm_request *req = NULL;
	rt_status st = rt_comm_imax_int(v, 2, &req, err);
	if (st == RT_OK)
		st = rt_comm_wait(req, err);
	if (st)
		return st;
	if (v[0] > 0)
		return rt_fail(err, RT_ERR_INPUT, "%s: a rank of %d finds no checkpoint-rank-R-migration-M.bin "
			       "of its own there (this is rank %d%s; islands resume on as many ranks as they had)",
			       dir, rt_comm_size(), rt_comm_rank(), mine < 0 ? ", without one" : "");
	rank_epoch = -v[0];
	rank_file_name(last_name, sizeof last_name, rank_epoch);
	st = rt_format(path, size, err, "%s/%s", dir, last_name);
	if (st == RT_OK && access(path, R_OK) != 0)
		st = rt_fail(err, RT_ERR_INPUT, "%s: missing: the ranks' latest common migration is %ld "
			     "(this rank's files go to %ld, the furthest rank's to %d)", path, rank_epoch,
			     mine, v[1]);
	return st;
}

/* Reads a u64 at *pos of data[0, size); 0 past the end. */
static int take_u64(const char *data, size_t size, size_t *pos, uint64_t *v)
{
	if (size < 8 || *pos > size - 8)
		return 0;
	*v = 0;
	for (int i = 0; i < 8; i++)
		*v |= (uint64_t)(unsigned char)data[*pos + i] << (8 * i);
	*pos += 8;
	return 1;
}

/* A string field: its start and length; 0 when it runs past the end. */
static int take_string(const char *data, size_t size, size_t *pos, const char **s, size_t *n)
{
	uint64_t len;
	if (!take_u64(data, size, pos, &len) || len > size - *pos)
		return 0;
	*s = data + *pos;
	*n = (size_t)len;
	*pos += (size_t)len;
	return 1;
}

/* Checks the header, checksum, kind and spec of ck->data; sets the state. */
static rt_status check_file(rt_ckpt *ck, const char *kind, const rt_spec *spec, rt_error *err)
{
	size_t pos = sizeof magic, n_kind, n_spec;
	uint64_t version, crc;
	const char *s_kind, *s_spec;
	if (ck->size < sizeof magic + 8 || memcmp(ck->data, magic, sizeof magic))
		return rt_fail(err, RT_ERR_INPUT, "%s: not an evoforge checkpoint", ck->path);
	size_t end = ck->size - 8, at = end;
	take_u64(ck->data, ck->size, &at, &crc);
	if (end < pos + 8 || crc32(0L, (const Bytef *)ck->data, (uInt)end) != (uLong)crc)
		return rt_fail(err, RT_ERR_INPUT, "%s: checksum mismatch: the checkpoint is truncated or "
			       "damaged", ck->path);
	take_u64(ck->data, end, &pos, &version);
	if (version != RT_CKPT_VERSION)
		return rt_fail(err, RT_ERR_INPUT, "%s: checkpoint format %llu; this evoforge reads %d (resume with "
			       "the evoforge that wrote it)",
			       ck->path, (unsigned long long)version, RT_CKPT_VERSION);
	if (!take_string(ck->data, end, &pos, &s_kind, &n_kind) ||
	    !take_string(ck->data, end, &pos, &s_spec, &n_spec) ||
	    !take_string(ck->data, end, &pos, &ck->state, &ck->state_size) || pos != end)
		return rt_fail(err, RT_ERR_INPUT, "%s: malformed checkpoint", ck->path);
	if (n_kind != strlen(kind) || memcmp(s_kind, kind, n_kind))
		return rt_fail(err, RT_ERR_INPUT, "%s: a checkpoint of kind '%.*s', not %s", ck->path,
			       (int)n_kind, s_kind, kind);
	rt_buf text = {0};
	rt_status st = rt_ckpt_spec_text(spec, &text, err);
	if (st == RT_OK && (text.len != n_spec || memcmp(text.data, s_spec, n_spec)))
		st = rt_fail(err, RT_ERR_INPUT, "%s: made from another spec (or other --set values) than "
			     "%s; resume with the spec and options the run started with", ck->path,
			     spec->path);
	rt_buf_free(&text);
	return st;
}

rt_status rt_ckpt_read(const char *path, const char *kind, const rt_spec *spec, rt_ckpt *ck,
		       rt_error *err)
{
	struct stat sb;
	rt_status st;
	memset(ck, 0, sizeof *ck);
	int is_dir = stat(path, &sb) == 0 && S_ISDIR(sb.st_mode);
	if (per_rank() && !is_dir)
		st = rt_fail(err, RT_ERR_INPUT, "%s: islands on %d ranks resume from the folder of their "
			     "checkpoint-rank-R-migration-M.bin files, not from one file", path,
			     rt_comm_size());
	else if (per_rank())
		st = agreed_rank_file(path, ck->path, sizeof ck->path, err);
	else if (is_dir)
		st = rt_format(ck->path, sizeof ck->path, err, "%s/%s", path, rt_ckpt_file_name());
	else
		st = rt_format(ck->path, sizeof ck->path, err, "%s", path);
	if (st == RT_OK)
		st = rt_read_file(ck->path, &ck->data, &ck->size, err);
	if (st == RT_OK)
		st = check_file(ck, kind, spec, err);
	if (st != RT_OK)
		rt_ckpt_free(ck);
	return st;
}

void rt_ckpt_free(rt_ckpt *ck)
{
	free(ck->data);
	memset(ck, 0, sizeof *ck);
}

rt_status rt_ckpt_get_u64(rt_ckpt *ck, uint64_t *v, rt_error *err)
{
	if (!take_u64(ck->state, ck->state_size, &ck->pos, v))
		return rt_fail(err, RT_ERR_INPUT, "%s: the state ends early", ck->path);
	return RT_OK;
}

rt_status rt_ckpt_get_f64(rt_ckpt *ck, double *v, rt_error *err)
{
	uint64_t bits;
	rt_status st = rt_ckpt_get_u64(ck, &bits, err);
	if (st == RT_OK)
		memcpy(v, &bits, sizeof *v);
	return st;
}

rt_status rt_ckpt_get_bytes(rt_ckpt *ck, void *data, size_t n, rt_error *err)
{
	uint64_t len;
	rt_status st = rt_ckpt_get_u64(ck, &len, err);
	if (st == RT_OK && (len != n || n > ck->state_size - ck->pos))
		return rt_fail(err, RT_ERR_INPUT, "%s: a field of %llu bytes where %zu were expected",
			       ck->path, (unsigned long long)len, n);
	if (st == RT_OK) {
		memcpy(data, ck->state + ck->pos, n);
		ck->pos += n;
	}
	return st;
}

rt_status rt_ckpt_plan_open(rt_ckpt_plan *p, const char *kind, const rt_spec *spec, long every,
			    const char *resume, const char *dir, rt_error *err)
{
	memset(p, 0, sizeof *p);
	p->spec = spec;
	p->dir = dir;
	p->every = every;
	p->seconds = RT_CKPT_SECONDS;
	p->last = rt_now();
	return resume ? rt_ckpt_read(resume, kind, spec, &p->from, err) : RT_OK;
}

rt_status rt_ckpt_ranks_options(const char *kind, int mode, const rt_options **opt,
				rt_options *copy, rt_error *err)
{
	if (rt_comm_size() == 1)
		return RT_OK;
	file_per_rank = mode == RT_CKPT_RANKS_EACH;
	file_per_rank_own = mode == RT_CKPT_RANKS_OWN;
	if (mode == RT_CKPT_RANKS_REFUSE && ((*opt)->checkpoint_every > 0 || (*opt)->resume))
		return rt_fail(err, RT_ERR_UNSUPPORTED, "%s: checkpoints are not written or resumed "
			       "in a job of several MPI ranks yet (this one has %d)", kind,
			       rt_comm_size());
	*copy = **opt;
	if (copy->checkpoint_every <= 0 && mode != RT_CKPT_RANKS_OWN)
		copy->checkpoint_every = -1;   /* by time: the ranks would not agree when */
	*opt = copy;
	return RT_OK;
}

void rt_ckpt_plan_close(rt_ckpt_plan *p)
{
	rt_ckpt_free(&p->from);
}

int rt_ckpt_plan_due(const rt_ckpt_plan *p, long steps)
{
	if (p->every > 0)
		return steps % p->every == 0;
	return p->every == 0 && rt_now() - p->last >= p->seconds;
}

/* Is name checkpoint.bin or checkpoint-rank-R.bin? */
static int is_checkpoint_name(const char *name)
{
	int rank, end = 0;
	if (!strcmp(name, RT_CKPT_FILE))
		return 1;
	return sscanf(name, "checkpoint-rank-%d.bin%n", &rank, &end) == 1 && end > 0 &&
	       name[end] == '\0' && rank >= 0;
}

static int compare_paths(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

rt_status rt_ckpt_folder_files(const char *dir, char ***paths, int *n, rt_error *err)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	int cap = 0;
	*paths = NULL;
	*n = 0;
	if (!d)
		return rt_fail(err, RT_ERR_INPUT, "%s: cannot read the folder: %s", dir, strerror(errno));
	rt_status st = RT_OK;
	while (!st && (e = readdir(d))) {
		if (!is_checkpoint_name(e->d_name))
			continue;
		if (*n == cap) {
			cap = cap ? 2 * cap : 8;
			char **grown = realloc(*paths, (size_t)cap * sizeof *grown);
			if (!grown) {
				st = rt_fail(err, RT_ERR_SYSTEM, "out of memory (checkpoint files)");
				break;
			}
			*paths = grown;
		}
		size_t len = strlen(dir) + strlen(e->d_name) + 2;
		if (!((*paths)[*n] = rt_malloc(len, err)))
			st = err->status;
		else
			snprintf((*paths)[(*n)++], len, "%s/%s", dir, e->d_name);
	}
	closedir(d);
	if (*n > 1)
		qsort(*paths, (size_t)*n, sizeof **paths, compare_paths);
	return st;
}
