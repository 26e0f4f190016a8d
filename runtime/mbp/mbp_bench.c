/* mbp_bench.c: `evoforge bench mbp`: the seed's Table 2 (two-spirals,
 * Sonar, Friedman #1 at three hidden sizes each, MBP networks) trained in
 * every mode on each backend: epochs per minute, weight corrections per
 * minute and the training RMS reached, next to the seed's GTX 280 figures
 * where the issue quotes them; optionally many networks in one run, and the
 * initial weights and scaled data exported for tools/mbp_torch.py. Rows are
 * specs (problems/mbp-*.ini) with [mbp] hidden and mode set per row. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend.h"
#include "cpu.h"
#include "log.h"
#include "mbp_impl.h"
#include "out.h"

const char mbp_bench_help[] =
	"evoforge bench mbp [options]\n"
	"  --rows LIST      spirals, sonar, friedman (default all three; each at the seed's\n"
	"                   three hidden sizes); a missing data file: skipped\n"
	"  --modes LIST     batch, online, mbN (mini-batch of N) (default batch,online,mb32,mb512)\n"
	"  --backend B      cpu, gpu or both (default: both with a GPU, else cpu)\n"
	"  --seconds S      timed training per measurement (default 2)\n"
	"  --many K         also train K Sonar 60-10-1 networks in one run (batch) and\n"
	"                   compare with one network\n"
	"  --export DIR     write ROW.net (initial weights) and ROW.csv (scaled training\n"
	"                   data) for tools/mbp_torch.py, then stop\n"
	"  --threads N, -o DIR (writes DIR/bench-mbp.json), --quiet\n";

/* A row of the seed's Table 2 and its quoted GTX 280 figures (0: not quoted). */
typedef struct table_row {
	const char *spec, *label;
	const char *hidden;
	double seed_batch, seed_online;   /* epochs/min */
} table_row;

static const table_row table2[] = {
	{ "mbp-spirals", "two-spirals 2-20-10-1", "20 10", 335420, 0 },
	{ "mbp-spirals", "two-spirals 2-30-10-1", "30 10", 0, 0 },
	{ "mbp-spirals", "two-spirals 2-40-10-1", "40 10", 0, 0 },
	{ "mbp-sonar", "sonar 60-10-1", "10", 381079, 11474 },
	{ "mbp-sonar", "sonar 60-20-1", "20", 0, 0 },
	{ "mbp-sonar", "sonar 60-30-1", "30", 0, 0 },
	{ "mbp-friedman", "friedman 10-20-10-1", "20 10", 2089, 0 },
	{ "mbp-friedman", "friedman 10-30-10-1", "30 10", 0, 0 },
	{ "mbp-friedman", "friedman 10-40-10-1", "40 10", 0, 0 },
};

#define MAX_LIST 16

typedef struct bench_cfg {
	const char *rows[MAX_LIST], *modes[MAX_LIST];
	int nrows, nmodes, cpu, gpu;
	double seconds;
	long many;
	const char *export_dir, *outdir;
} bench_cfg;

typedef struct measure {
	long long epochs, corrections;
	double seconds, rms;
} measure;

static char list_buf[2][512];

static int split(const char *s, const char **out, int max, int which)
{
	int n = 0;
	char *p, *save = NULL;
	snprintf(list_buf[which], sizeof list_buf[which], "%s", s);
	for (p = strtok_r(list_buf[which], ",", &save); p && n < max; p = strtok_r(NULL, ",", &save))
		out[n++] = p;
	return n;
}

static rt_status parse_args(int argc, char **argv, const rt_options *opt, bench_cfg *c,
			    rt_error *err)
{
	const char *backend = NULL;
	memset(c, 0, sizeof *c);
	c->nrows = split("spirals,sonar,friedman", c->rows, MAX_LIST, 0);
	c->nmodes = split("batch,online,mb32,mb512", c->modes, MAX_LIST, 1);
	c->seconds = 2;
	c->outdir = opt->outdir;
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
		if (!strcmp(a, "-q") || !strcmp(a, "--quiet"))
			continue;
		if (!v)
			return rt_fail(err, RT_ERR_INPUT, "bench mbp: %s needs a value (see --help)", a);
		if (!strcmp(a, "--rows"))
			c->nrows = split(v, c->rows, MAX_LIST, 0);
		else if (!strcmp(a, "--modes"))
			c->nmodes = split(v, c->modes, MAX_LIST, 1);
		else if (!strcmp(a, "--backend"))
			backend = v;
		else if (!strcmp(a, "--seconds"))
			c->seconds = atof(v);
		else if (!strcmp(a, "--many"))
			c->many = atol(v);
		else if (!strcmp(a, "--export"))
			c->export_dir = v;
		else if (!strcmp(a, "-o") || !strcmp(a, "--output"))
			c->outdir = v;
		else
			return rt_fail(err, RT_ERR_INPUT, "bench mbp: unknown option '%s' (see --help)", a);
		i++;
	}
	if (!(c->seconds > 0) || c->many < 0)
		return rt_fail(err, RT_ERR_INPUT, "bench mbp: --seconds and --many must be positive");
	if (!backend) {
		rt_backend chosen;
		rt_status st = rt_backend_select(opt->backend, &chosen, NULL, err);
		if (st != RT_OK)
			return st;
		backend = chosen == RT_BACKEND_GPU ? "both" : "cpu";
	}
	c->cpu = !strcmp(backend, "cpu") || !strcmp(backend, "both");
	c->gpu = !strcmp(backend, "gpu") || !strcmp(backend, "both");
	if (!c->cpu && !c->gpu)
		return rt_fail(err, RT_ERR_INPUT, "bench mbp: --backend: expected cpu, gpu or both, got '%s'",
			       backend);
	return RT_OK;
}

/* The job of a table row in a mode ("batch", "online", "mbN"). */
static rt_status row_job(const table_row *row, const char *mode, long epochs, long networks,
			 mbp_job *job, rt_error *err)
{
	rt_spec spec;
	rt_options opt;
	char num[32];
	rt_status st;
	memset(&opt, 0, sizeof opt);
	memset(job, 0, sizeof *job);
	if ((st = rt_spec_load_named(&spec, row->spec, err)) != RT_OK)
		return st;
	snprintf(num, sizeof num, "%ld", epochs);
	if ((st = rt_spec_set(&spec, "mbp", "hidden", row->hidden, err)) == RT_OK &&
	    (st = rt_spec_set(&spec, "mbp", "epochs", num, err)) == RT_OK &&
	    (st = rt_spec_set(&spec, "mbp", "report_every", num, err)) == RT_OK &&
	    (st = rt_spec_set(&spec, "mbp", "target_rms", "0", err)) == RT_OK) {
		snprintf(num, sizeof num, "%ld", networks);
		st = rt_spec_set(&spec, "mbp", "networks", num, err);
	}
	if (st == RT_OK && !strncmp(mode, "mb", 2)) {
		if ((st = rt_spec_set(&spec, "mbp", "mode", "minibatch", err)) == RT_OK)
			st = rt_spec_set(&spec, "mbp", "batch_size", mode + 2, err);
	} else if (st == RT_OK) {
		st = rt_spec_set(&spec, "mbp", "mode", mode, err);
	}
	if (st == RT_OK)
		st = mbp_job_from_spec(job, &spec, &opt, err);
	rt_spec_free(&spec);
	return st;
}

/* Trains for about cfg->seconds: a short calibration run, then the timed one. */
static rt_status measure_row(const bench_cfg *c, const table_row *row, const char *mode, int gpu,
			     long networks, measure *m, char *device, int dsize, rt_error *err)
{
	long epochs = gpu ? 50 : 2;
	for (int pass = 0; pass < 2; pass++) {
		mbp_job job;
		mbp_outcome out;
		rt_status st = row_job(row, mode, epochs, networks, &job, err);
		if (st == RT_OK)
			st = gpu ? mbp_gpu_train(&job, NULL, NULL, &out, err)
				 : mbp_cpu_train(&job, NULL, NULL, &out, err);
		if (st != RT_OK) {
			mbp_job_free(&job);
			return st;
		}
		m->epochs = out.epochs;
		m->corrections = out.corrections;
		m->seconds = out.seconds;
		{
			long n;
			const long *set = mbp_job_train_set(&job, 0, &n);
			double acc;
			mbp_evaluate(&job, out.w, set, n, &m->rms, &acc);
		}
		snprintf(device, (size_t)dsize, "%s", out.device);
		double per = out.seconds / (double)epochs;
		mbp_outcome_free(&out);
		mbp_job_free(&job);
		if (pass == 0) {
			double want = c->seconds / (per > 1e-9 ? per : 1e-9);
			epochs = want < 1 ? 1 : want > 5e7 ? 50000000 : (long)want;
		}
	}
	return RT_OK;
}

static void print_row(rt_json *j, const table_row *row, const char *mode, const char *backend,
		      long networks, const measure *m)
{
	double epm = m->seconds > 0 ? 60.0 * m->epochs / m->seconds : 0;
	double cpm = m->seconds > 0 ? 60.0 * m->corrections / m->seconds : 0;
	double seedv = !strcmp(mode, "batch") ? row->seed_batch :
		       !strcmp(mode, "online") ? row->seed_online : 0;
	char ratio[32] = "n/a", seedtxt[32] = "n/a";
	if (seedv > 0) {
		snprintf(seedtxt, sizeof seedtxt, "%.0f", seedv);
		snprintf(ratio, sizeof ratio, "%.1fx", epm / networks / seedv);
	}
	printf("| %s | %s | %s | %ld | %lld | %.3f | %.0f | %.0f | %s | %s | %.5f |\n", row->label,
	       mode, backend, networks, m->epochs, m->seconds, epm, cpm, seedtxt, ratio, m->rms);
	fflush(stdout);
	rt_json_begin_object(j, NULL);
	rt_json_string(j, "row", row->label);
	rt_json_string(j, "mode", mode);
	rt_json_string(j, "backend", backend);
	rt_json_int(j, "networks", networks);
	rt_json_int(j, "epochs", m->epochs);
	rt_json_double(j, "seconds", m->seconds);
	rt_json_double(j, "epochs_per_min", epm);
	rt_json_double(j, "corrections_per_min", cpm);
	rt_json_double(j, "seed_gtx280_epochs_per_min", seedv);
	rt_json_double(j, "train_rms", m->rms);
	rt_json_end_object(j);
}

/* ROW.net and ROW.csv for tools/mbp_torch.py. */
static rt_status export_row(const char *dir, const table_row *row, rt_error *err)
{
	char path[RT_PATH_MAX + 64], name[64];
	mbp_job job;
	rt_buf b;
	long n;
	const long *set;
	float *w;
	rt_status st = row_job(row, "batch", 1, 1, &job, err);
	if (st != RT_OK)
		return st;
	snprintf(name, sizeof name, "%s", row->label);
	for (char *p = name; *p; p++)
		if (*p == ' ')
			*p = '-';
	w = rt_malloc((size_t)job.shape.nweights * sizeof *w, err);
	memset(&b, 0, sizeof b);
	if (w && (st = rt_mkdirs(dir, err)) == RT_OK) {
		mbp_job_initial_weights(&job, 0, w);
		snprintf(path, sizeof path, "%s/%s.net", dir, name);
		st = mbp_net_write(path, &job.shape, w, &job.data, err);
	}
	set = mbp_job_train_set(&job, 0, &n);
	for (int i = 0; i < job.shape.ni; i++)
		rt_buf_printf(&b, "%sx%d", i ? "," : "", i + 1);
	for (int o = 0; o < job.shape.no; o++)
		rt_buf_printf(&b, ",t%d", o + 1);
	rt_buf_puts(&b, "\n");
	for (long q = 0; q < n; q++) {
		const float *x = job.data.x + (size_t)set[q] * job.shape.ni;
		for (int i = 0; i < job.shape.ni; i++)
			rt_buf_printf(&b, "%s%.9g", i ? "," : "", (double)x[i]);
		for (int o = 0; o < job.shape.no; o++)
			rt_buf_printf(&b, ",%.9g", (double)job.data.t[(size_t)set[q] * job.shape.no + o]);
		rt_buf_puts(&b, "\n");
	}
	snprintf(path, sizeof path, "%s/%s.csv", dir, name);
	if (st == RT_OK && w)
		st = b.failed ? rt_fail(err, RT_ERR_SYSTEM, "out of memory") :
		     rt_write_file_atomic(path, b.data, b.len, err);
	if (st == RT_OK)
		rt_info("bench mbp: wrote %s/%s.net and .csv (%ld patterns)", dir, name, n);
	rt_buf_free(&b);
	free(w);
	mbp_job_free(&job);
	return w ? st : RT_ERR_SYSTEM;
}

static int row_selected(const bench_cfg *c, const table_row *row)
{
	for (int i = 0; i < c->nrows; i++)
		if (!strcmp(row->spec + 4, c->rows[i]))
			return 1;
	return 0;
}

/* One table row in every mode on every backend; a missing file skips it. */
static rt_status bench_row(const bench_cfg *c, const table_row *row, rt_json *j, rt_error *err)
{
	for (int mi = 0; mi < c->nmodes; mi++)
		for (int gpu = 0; gpu < 2; gpu++) {
			measure m;
			char device[320];
			rt_status st;
			if (gpu ? !c->gpu : !c->cpu)
				continue;
			st = measure_row(c, row, c->modes[mi], gpu, 1, &m, device, sizeof device, err);
			if (st == RT_ERR_INPUT && strstr(err->msg, "looked")) {
				rt_warn("bench mbp: %s skipped: %s", row->label, err->msg);
				return RT_OK;
			}
			if (st != RT_OK)
				return st;
			print_row(j, row, c->modes[mi], gpu ? "gpu" : "cpu", 1, &m);
		}
	return RT_OK;
}

rt_status mbp_bench(int argc, char **argv, const rt_options *opt, rt_error *err)
{
	bench_cfg c;
	rt_json j;
	char dev[256], path[RT_PATH_MAX + 32];
	rt_status st = parse_args(argc, argv, opt, &c, err);
	const int nt = (int)(sizeof table2 / sizeof table2[0]);
	if (st != RT_OK)
		return st;
	if (c.export_dir) {
		for (int r = 0; r < nt && st == RT_OK; r++)
			if (row_selected(&c, &table2[r]))
				st = export_row(c.export_dir, &table2[r], err);
		return st;
	}
	cpu_model_name(dev, sizeof dev);
	printf("## evoforge bench mbp (CPU: %s, %d threads; about %.1f s per measurement)\n\n", dev,
	       cpu_threads(), c.seconds);
	printf("| network | mode | backend | networks | epochs | time s | epochs/min | "
	       "corrections/min | seed GTX 280 epochs/min | vs seed | train rms |\n");
	printf("|---|---|---|---|---|---|---|---|---|---|---|\n");
	memset(&j, 0, sizeof j);
	rt_json_begin_object(&j, NULL);
	rt_json_string(&j, "cpu", dev);
	rt_json_begin_array(&j, "rows");
	for (int r = 0; r < nt && st == RT_OK; r++)
		if (row_selected(&c, &table2[r]))
			st = bench_row(&c, &table2[r], &j, err);
	for (int gpu = 0; gpu < 2 && st == RT_OK && c.many > 0; gpu++) {
		measure m;
		char device[320];
		if (gpu ? !c.gpu : !c.cpu)
			continue;
		st = measure_row(&c, &table2[3], "batch", gpu, c.many, &m, device, sizeof device, err);
		if (st == RT_OK)
			print_row(&j, &table2[3], "batch", gpu ? "gpu" : "cpu", c.many, &m);
	}
	rt_json_end_array(&j);
	rt_json_end_object(&j);
	if (st == RT_OK && c.outdir) {
		snprintf(path, sizeof path, "%s/bench-mbp.json", c.outdir);
		if ((st = rt_mkdirs(c.outdir, err)) == RT_OK)
			st = rt_json_write(&j, path, err);
	}
	rt_buf_free(&j.buf);
	return st;
}
