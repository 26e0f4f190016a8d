/* svm_ckpt.c: kind svm's checkpoint table, written and read back
 * (svm_ckpt.h). Layout of the state: the number of problems, then per
 * problem its model, pair, points, iterations and flags (1: finished, 2: a
 * history follows), alpha[n] and G[n] (doubles as this machine lays them
 * out), then with flag 2 its history: the interval, the row count and each
 * row's iteration, objective and violation (a checkpoint written before
 * history.csv has no flag 2), then with flag 4 the batch solver's last
 * working set: its size q and its q points. Spread over MPI ranks,
 * every rank writes its own table (checkpoint-rank-R.bin) and a resume
 * merges a folder's files, keeping each problem's further state. */
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "log.h"
#include "signals.h"
#include "svm_ckpt.h"

/* The entry of (model, pair), or NULL. */
static svm_ckpt_entry *lookup(svm_ckpt *ck, long model, long pair)
{
	for (long k = 0; k < ck->count; k++)
		if (ck->e[k].model == model && ck->e[k].pair == pair)
			return &ck->e[k];
	return NULL;
}

/* A new entry of n points (alpha and G allocated), or NULL out of memory. */
static svm_ckpt_entry *add(svm_ckpt *ck, long model, long pair, long n, rt_error *err)
{
	if (ck->count == ck->cap) {
		long cap = ck->cap ? 2 * ck->cap : 16;
		svm_ckpt_entry *grown = realloc(ck->e, (size_t)cap * sizeof *grown);
		if (!grown) {
			rt_fail(err, RT_ERR_SYSTEM, "out of memory (checkpoint table)");
			return NULL;
		}
		ck->e = grown;
		ck->cap = cap;
	}
	svm_ckpt_entry *e = &ck->e[ck->count];
	memset(e, 0, sizeof *e);
	e->alpha = rt_malloc((size_t)n * sizeof *e->alpha + 1, err);
	e->G = rt_malloc((size_t)n * sizeof *e->G + 1, err);
	if (!e->alpha || !e->G) {
		free(e->alpha);
		free(e->G);
		return NULL;
	}
	e->model = model;
	e->pair = pair;
	e->n = n;
	ck->count++;
	return e;
}

static void entry_free(svm_ckpt_entry *e)
{
	free(e->alpha);
	free(e->G);
	free(e->ws);
	svm_history_free(&e->hist);
}

/* Entry e's working set from f (flag 4). */
static rt_status read_ws(rt_ckpt *f, svm_ckpt_entry *e, rt_error *err)
{
	uint64_t q, w;
	rt_status st = rt_ckpt_get_u64(f, &q, err);
	if (st != RT_OK)
		return st;
	if (q < 1 || q > (uint64_t)e->n || q > (f->state_size - f->pos) / 8)
		return rt_fail(err, RT_ERR_INPUT, "%s: problem (model %ld, pair %ld): a working set "
			       "of %llu points, expected 1 to %ld", f->path, e->model, e->pair,
			       (unsigned long long)q, e->n);
	if (!(e->ws = rt_malloc((size_t)q * sizeof *e->ws, err)))
		return RT_ERR_SYSTEM;
	for (uint64_t k = 0; k < q; k++) {
		if ((st = rt_ckpt_get_u64(f, &w, err)) != RT_OK)
			return st;
		if (w >= (uint64_t)e->n)
			return rt_fail(err, RT_ERR_INPUT, "%s: problem (model %ld, pair %ld): working-set "
				       "point %llu of %ld", f->path, e->model, e->pair,
				       (unsigned long long)w, e->n);
		e->ws[k] = (long)w;
	}
	e->nws = (long)q;
	return RT_OK;
}

/* Entry e's history from f (flag 2). */
static rt_status read_history(rt_ckpt *f, svm_ckpt_entry *e, rt_error *err)
{
	uint64_t every, n, it;
	rt_status st;
	if ((st = rt_ckpt_get_u64(f, &every, err)) || (st = rt_ckpt_get_u64(f, &n, err)))
		return st;
	if (every < 1 || every > ((uint64_t)1 << 62) || n > SVM_HISTORY_ROWS)
		return rt_fail(err, RT_ERR_INPUT, "%s: problem (model %ld, pair %ld): a malformed "
			       "history (%llu rows, expected at most %d)", f->path, e->model, e->pair,
			       (unsigned long long)n, SVM_HISTORY_ROWS);
	if (!(e->hist.rows = rt_malloc(SVM_HISTORY_ROWS * sizeof *e->hist.rows, err)))
		return RT_ERR_SYSTEM;
	e->hist.every = (long)every;
	for (uint64_t r = 0; r < n; r++) {
		svm_history_row *row = &e->hist.rows[r];
		if ((st = rt_ckpt_get_u64(f, &it, err)) || (st = rt_ckpt_get_f64(f, &row->obj, err)) ||
		    (st = rt_ckpt_get_f64(f, &row->gap, err)))
			return st;
		row->iteration = (long)it;
		if (it > (uint64_t)e->iterations || (r > 0 && row->iteration <= row[-1].iteration))
			return rt_fail(err, RT_ERR_INPUT, "%s: problem (model %ld, pair %ld): history "
				       "row %llu at iteration %llu, expected iterations ascending up to "
				       "%ld", f->path, e->model, e->pair, (unsigned long long)r + 1,
				       (unsigned long long)it, e->iterations);
		e->hist.n = (long)r + 1;
	}
	return RT_OK;
}

/* Of two states of one problem, is `a` the further one (finished, or more
 * iterations)? Runs are deterministic, so the further one is the later. */
static int further(const svm_ckpt_entry *a, const svm_ckpt_entry *b)
{
	return a->done != b->done ? a->done > b->done : a->iterations > b->iterations;
}

/* One problem of the file into the table; a problem the table has (from
 * another rank's file) keeps the further state. */
static rt_status read_entry(svm_ckpt *ck, rt_ckpt *f, rt_error *err)
{
	uint64_t v[5];
	rt_status st = RT_OK;
	for (int i = 0; i < 5 && st == RT_OK; i++)
		st = rt_ckpt_get_u64(f, &v[i], err);
	if (st != RT_OK)
		return st;
	svm_ckpt_entry *had = lookup(ck, (long)v[0], (long)v[1]);
	if (v[2] < 1 || v[2] > (f->state_size - f->pos) / 16 || v[4] > 7 || v[3] > ((uint64_t)1 << 62) ||
	    (had && had->n != (long)v[2]))
		return rt_fail(err, RT_ERR_INPUT, "%s: a malformed problem (model %llu, pair %llu, %llu "
			       "points)", f->path, (unsigned long long)v[0], (unsigned long long)v[1],
			       (unsigned long long)v[2]);
	svm_ckpt_entry *e = add(ck, (long)v[0], (long)v[1], (long)v[2], err);
	if (!e)
		return RT_ERR_SYSTEM;
	had = lookup(ck, e->model, e->pair);   /* add may have moved the table */
	e->iterations = (long)v[3];
	e->done = (int)(v[4] & 1);
	if ((st = rt_ckpt_get_bytes(f, e->alpha, (size_t)e->n * sizeof *e->alpha, err)) == RT_OK)
		st = rt_ckpt_get_bytes(f, e->G, (size_t)e->n * sizeof *e->G, err);
	if (st == RT_OK && (v[4] & 2))
		st = read_history(f, e, err);
	if (st == RT_OK && (v[4] & 4))
		st = read_ws(f, e, err);
	if (had != e) {   /* the problem twice: keep the further state in had's place */
		if (st == RT_OK && further(e, had)) {
			svm_ckpt_entry t = *had;
			*had = *e;
			*e = t;
		}
		entry_free(e);
		ck->count--;
	}
	return st;
}

/* One checkpoint file's problems into the table. */
static rt_status load_file(svm_ckpt *ck, const char *path, rt_error *err)
{
	rt_ckpt f;
	uint64_t count;
	rt_status st = rt_ckpt_read(path, "svm", ck->plan.spec, &f, err);
	if (st != RT_OK)
		return st;
	if ((st = rt_ckpt_get_u64(&f, &count, err)) == RT_OK && count > f.state_size / 56)
		st = rt_fail(err, RT_ERR_INPUT, "%s: %llu problems in a state of %zu bytes", f.path,
			     (unsigned long long)count, f.state_size);
	for (uint64_t k = 0; st == RT_OK && k < count; k++)
		st = read_entry(ck, &f, err);
	if (st == RT_OK && f.pos != f.state_size)
		st = rt_fail(err, RT_ERR_INPUT, "%s: %zu bytes after the state", f.path,
			     f.state_size - f.pos);
	if (st == RT_OK)
		rt_info("resuming from %s: %llu binary problem(s) recorded", f.path,
			(unsigned long long)count);
	rt_ckpt_free(&f);
	return st;
}

/* The table from path: a checkpoint file, or a folder's checkpoint.bin
 * and the checkpoint-rank-R.bin of a job spread over ranks, merged. */
static rt_status load(svm_ckpt *ck, const char *path, rt_error *err)
{
	struct stat sb;
	if (stat(path, &sb) != 0 || !S_ISDIR(sb.st_mode))
		return load_file(ck, path, err);
	char **files;
	int n;
	rt_status st = rt_ckpt_folder_files(path, &files, &n, err);
	if (st == RT_OK && n == 0)
		st = rt_fail(err, RT_ERR_INPUT, "%s: no checkpoint.bin or checkpoint-rank-R.bin there",
			     path);
	for (int i = 0; i < n; i++) {
		if (st == RT_OK)
			st = load_file(ck, files[i], err);
		free(files[i]);
	}
	free(files);
	return st;
}

rt_status svm_ckpt_open(svm_ckpt *ck, const rt_spec *spec, const rt_options *opt, const char *dir,
			rt_error *err)
{
	memset(ck, 0, sizeof *ck);
	/* the table is read by load(), not into plan.from */
	rt_status st = rt_ckpt_plan_open(&ck->plan, "svm", spec, opt->checkpoint_every, NULL, dir, err);
	if (st)
		return st;
	if (pthread_mutex_init(&ck->lock, NULL))
		return rt_fail(err, RT_ERR_SYSTEM, "cannot make the checkpoint table's lock");
	ck->resumed = opt->resume != NULL;
	return opt->resume ? load(ck, opt->resume, err) : RT_OK;
}

void svm_ckpt_close(svm_ckpt *ck)
{
	if (!ck->plan.spec)
		return;
	for (long k = 0; k < ck->count; k++)
		entry_free(&ck->e[k]);
	free(ck->e);
	pthread_mutex_destroy(&ck->lock);
	memset(ck, 0, sizeof *ck);
}

int svm_ckpt_find(svm_ckpt *ck, long model, long pair, long n, double *alpha, double *G,
		  long *iterations, int *done, svm_history *hist)
{
	int found = 0;
	pthread_mutex_lock(&ck->lock);
	svm_ckpt_entry *e = lookup(ck, model, pair);
	if (e && e->n == n) {
		memcpy(alpha, e->alpha, (size_t)n * sizeof *alpha);
		memcpy(G, e->G, (size_t)n * sizeof *G);
		*iterations = e->iterations;
		*done = e->done;
		found = 1;
		if (hist && hist->rows && e->hist.every > 0) {
			hist->every = e->hist.every;
			hist->n = e->hist.n;
			memcpy(hist->rows, e->hist.rows, (size_t)e->hist.n * sizeof *hist->rows);
		} else if (hist && hist->rows && e->iterations > 0) {
			rt_warn("svm: the checkpoint of problem (model %ld, pair %ld) has no history "
				"(written before history.csv): its history starts at iteration %ld",
				model, pair, e->iterations);
		}
	}
	pthread_mutex_unlock(&ck->lock);
	return found;
}

int svm_ckpt_due(svm_ckpt *ck, long iteration)
{
	if (rt_stop_requested())
		return 1;
	return rt_ckpt_plan_due(&ck->plan, iteration);
}

int svm_ckpt_write_finished(const svm_ckpt *ck)
{
	return ck->plan.every > 0 || rt_stop_requested();
}

/* The file from the whole table (the lock held). */
static rt_status write_table(svm_ckpt *ck, rt_error *err)
{
	rt_buf b = {0};
	rt_ckpt_put_u64(&b, (uint64_t)ck->count);
	for (long k = 0; k < ck->count; k++) {
		const svm_ckpt_entry *e = &ck->e[k];
		rt_ckpt_put_u64(&b, (uint64_t)e->model);
		rt_ckpt_put_u64(&b, (uint64_t)e->pair);
		rt_ckpt_put_u64(&b, (uint64_t)e->n);
		rt_ckpt_put_u64(&b, (uint64_t)e->iterations);
		rt_ckpt_put_u64(&b, (uint64_t)e->done | (e->hist.every > 0 ? 2 : 0) | (e->nws > 0 ? 4 : 0));
		rt_ckpt_put_bytes(&b, e->alpha, (size_t)e->n * sizeof *e->alpha);
		rt_ckpt_put_bytes(&b, e->G, (size_t)e->n * sizeof *e->G);
		if (e->hist.every > 0) {
			rt_ckpt_put_u64(&b, (uint64_t)e->hist.every);
			rt_ckpt_put_u64(&b, (uint64_t)e->hist.n);
			for (long r = 0; r < e->hist.n; r++) {
				rt_ckpt_put_u64(&b, (uint64_t)e->hist.rows[r].iteration);
				rt_ckpt_put_f64(&b, e->hist.rows[r].obj);
				rt_ckpt_put_f64(&b, e->hist.rows[r].gap);
			}
		}
		if (e->nws > 0) {
			rt_ckpt_put_u64(&b, (uint64_t)e->nws);
			for (long w = 0; w < e->nws; w++)
				rt_ckpt_put_u64(&b, (uint64_t)e->ws[w]);
		}
	}
	rt_status st = rt_ckpt_write(ck->plan.dir, "svm", ck->plan.spec, &b, err);
	rt_buf_free(&b);
	if (st == RT_OK) {
		ck->plan.last = rt_now();
		rt_info("checkpoint: %ld binary problem(s) in %s/%s", ck->count, ck->plan.dir, rt_ckpt_file_name());
	}
	return st;
}

/* Copies h into the entry's history (rows allocated on first use). */
static rt_status copy_history(svm_ckpt_entry *e, const svm_history *h, rt_error *err)
{
	if (!e->hist.rows && !(e->hist.rows = rt_malloc(SVM_HISTORY_ROWS * sizeof *h->rows, err)))
		return RT_ERR_SYSTEM;
	e->hist.every = h->every;
	e->hist.n = h->n;
	memcpy(e->hist.rows, h->rows, (size_t)h->n * sizeof *h->rows);
	return RT_OK;
}

/* Copies ws[0..q) into the entry's working set (q 0: none). */
static rt_status copy_ws(svm_ckpt_entry *e, const long *ws, long q, rt_error *err)
{
	if (q != e->nws) {
		free(e->ws);
		e->ws = NULL;
		e->nws = 0;
		if (q > 0 && !(e->ws = rt_malloc((size_t)q * sizeof *ws, err)))
			return RT_ERR_SYSTEM;
		e->nws = q;
	}
	if (q > 0)
		memcpy(e->ws, ws, (size_t)q * sizeof *ws);
	return RT_OK;
}

rt_status svm_ckpt_record(svm_ckpt *ck, long model, long pair, long n, const double *alpha,
			  const double *G, long iterations, int done, const svm_history *hist,
			  int write, rt_error *err)
{
	return svm_ckpt_record_ws(ck, model, pair, n, alpha, G, iterations, done, hist, NULL, 0,
				  write, err);
}

int svm_ckpt_find_ws(svm_ckpt *ck, long model, long pair, long *ws, long q)
{
	int found = 0;
	pthread_mutex_lock(&ck->lock);
	svm_ckpt_entry *e = lookup(ck, model, pair);
	if (e && e->nws == q && q > 0) {
		memcpy(ws, e->ws, (size_t)q * sizeof *ws);
		found = 1;
	}
	pthread_mutex_unlock(&ck->lock);
	return found;
}

rt_status svm_ckpt_record_ws(svm_ckpt *ck, long model, long pair, long n, const double *alpha,
			     const double *G, long iterations, int done, const svm_history *hist,
			     const long *ws, long q, int write, rt_error *err)
{
	rt_status st = RT_OK;
	pthread_mutex_lock(&ck->lock);
	svm_ckpt_entry *e = lookup(ck, model, pair);
	if (e && e->n != n)
		st = rt_fail(err, RT_ERR_INTERNAL, "svm checkpoint: problem (%ld, %ld) of %ld points, "
			     "recorded with %ld", model, pair, n, e->n);
	else if (!e && !(e = add(ck, model, pair, n, err)))
		st = RT_ERR_SYSTEM;
	if (st == RT_OK) {
		memcpy(e->alpha, alpha, (size_t)n * sizeof *alpha);
		memcpy(e->G, G, (size_t)n * sizeof *G);
		e->iterations = iterations;
		e->done = done;
		if (hist && hist->every > 0)
			st = copy_history(e, hist, err);
		if (st == RT_OK)
			st = copy_ws(e, ws, q, err);
		if (st == RT_OK && write)
			st = write_table(ck, err);
	}
	pthread_mutex_unlock(&ck->lock);
	return st;
}
