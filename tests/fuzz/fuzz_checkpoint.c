/* fuzz_checkpoint.c: fuzz harness for checkpoint files (runtime/checkpoint.c:
 * rt_ckpt_read) and every kind's state in them: gp_ckpt_restore,
 * de_ckpt_restore, aco_ckpt_restore, mbp_ckpt_restore and svm's table
 * (svm_ckpt_open --resume, svm_ckpt_find). An input that starts with
 * "EVOFCKPT" is a whole file, read as each kind's in turn; otherwise its
 * first byte % 5 picks the kind (0 gp, 1 de, 2 aco, 3 mbp, 4 svm) and the
 * rest is that kind's state in a file made well-formed around it (right
 * header, spec and checksum), so that the state's reader is reached, not
 * only the checksum test. Each kind's spec below is the one tools/fuzz
 * runs to make the seeds (the state of real checkpoints, same shapes):
 * keep the two alike. */
#include "aco/aco_ckpt.h"
#include "checkpoint.h"
#include "de/de_ckpt.h"
#include "fuzz.h"
#include "gp/gp_ckpt.h"
#include "mbp/mbp_ckpt.h"
#include "svm/svm_ckpt.h"

#define FUZZ_POP 4
#define FUZZ_GENS 3
#define FUZZ_KINDS 5

static const char *const kind_names[FUZZ_KINDS] = { "gp", "de", "aco", "mbp", "svm" };
static const char *const spec_texts[FUZZ_KINDS] = {
	"[problem]\nkind = gp\nname = fz\n[gp]\npopulation = 4\ngenerations = 3\n",
	"[problem]\nkind = de\nname = fz\n[de]\nfunction = sphere\ndim = 3\npopulation = 6\n"
	"problems = 2\ngenerations = 4\nmax_evals = 0\ntarget = 0\nhistory_every = 1\n"
	"report_every = 2\n",
	"[problem]\nkind = aco\nname = fz\n[data]\nrandom = 8\n[aco]\niterations = 4\nants = 4\n"
	"candidates = 4\n",
	"[problem]\nkind = mbp\nname = fz\n[data]\nsource = xor\n[mbp]\nhidden = 2\nepochs = 4\n"
	"networks = 2\nreport_every = 2\ntarget_rms = 0\n",
	"[problem]\nkind = svm\nname = fz\n[svm]\nC = 1\n[data]\ntrain = fz.txt\n",
};

/* The gp state of ck restored into a population of FUZZ_POP, then freed. */
static void restore_gp(rt_ckpt *ck)
{
	gp_ckpt g;
	gp_tree pop[FUZZ_POP];
	double fit[FUZZ_POP];
	gp_gen_stats hist[FUZZ_GENS + 1];
	gp_result res;
	rt_error err;
	int next = -1;
	memset(&g, 0, sizeof g);
	memset(pop, 0, sizeof pop);
	memset(&res, 0, sizeof res);
	g.plan.from = *ck;
	res.history = hist;
	if (gp_ckpt_restore(&g, pop, fit, FUZZ_POP, &res, FUZZ_GENS + 1, &next, &err) == RT_OK)
		FUZZ_CHECK(next >= 1 && next <= FUZZ_GENS + 1 && res.nhistory >= 1 && res.best.n >= 1);
	for (int i = 0; i < FUZZ_POP; i++)
		gp_tree_free(&pop[i]);
	gp_tree_free(&res.best);
}

/* The jobs the states are restored for, made once from spec_texts (kept for
 * the process's life: the harness runs many inputs). */
static rt_spec specs[FUZZ_KINDS];
static int spec_ready[FUZZ_KINDS];
static de_job de_fz;
static aco_job aco_fz;
static aco_backend *aco_fz_backend;
static mbp_job mbp_fz;
static int job_ready[FUZZ_KINDS];   /* 0: not tried, 1: made, -1: failed */

static rt_spec *kind_spec(int k)
{
	rt_error err;
	if (!spec_ready[k])
		spec_ready[k] = rt_spec_load_text(&specs[k], "fz.ini", spec_texts[k], &err) == RT_OK ? 1 : -1;
	return spec_ready[k] > 0 ? &specs[k] : NULL;
}

static int make_job(int k)
{
	rt_options opt = { .backend = RT_BACKEND_CPU, .quiet = 1, .threads = 1 };
	rt_error err;
	rt_status st = RT_OK;   /* gp and svm restore without a job */
	if (job_ready[k])
		return job_ready[k] > 0;
	if (k == 1)
		st = de_job_from_spec(&de_fz, kind_spec(k), &opt, &err);
	else if (k == 2 && (st = aco_job_from_spec(kind_spec(k), &opt, &aco_fz, &err)) == RT_OK &&
		 (st = aco_job_prepare(&aco_fz, &err)) == RT_OK)
		st = aco_cpu_create(&aco_fz, aco_tau0(&aco_fz), &aco_fz_backend, &err);
	else if (k == 3)
		st = mbp_job_from_spec(&mbp_fz, kind_spec(k), &opt, &err);
	if (st != RT_OK)
		fprintf(stderr, "fuzz_checkpoint: the %s job: %s\n", kind_names[k], err.msg);
	FUZZ_CHECK(st == RT_OK);   /* the specs above are valid */
	job_ready[k] = st == RT_OK ? 1 : -1;
	return st == RT_OK;
}

static void restore_de(rt_ckpt *ck)
{
	de_ckpt dk;
	de_snapshot s;
	rt_error err;
	memset(&dk, 0, sizeof dk);
	dk.plan.from = *ck;
	if (de_snapshot_alloc(&s, &de_fz, &err) != RT_OK)
		return;
	if (de_ckpt_restore(&dk, &de_fz, &s, &err) == RT_OK)
		FUZZ_CHECK(s.gen >= 0 && s.gen <= de_fz.gens);
	de_snapshot_free(&s);
}

static void restore_aco(rt_ckpt *ck)
{
	aco_ckpt ak;
	aco_outcome out;
	aco_mmas m;
	rt_error err;
	long i = -1;
	memset(&ak, 0, sizeof ak);
	memset(&out, 0, sizeof out);
	memset(&m, 0, sizeof m);
	ak.plan.from = *ck;
	if (!(out.best_tour = rt_malloc((size_t)aco_fz.n * sizeof *out.best_tour, &err)))
		return;
	if (aco_ckpt_restore(&ak, &aco_fz, aco_fz_backend, &m, &i, &out, &err) == RT_OK)
		FUZZ_CHECK(i >= 0 && i <= aco_fz.iterations);
	aco_outcome_free(&out);
}

static void restore_mbp(rt_ckpt *ck)
{
	mbp_ckpt mk;
	mbp_snapshot s;
	rt_error err;
	memset(&mk, 0, sizeof mk);
	mk.plan.from = *ck;
	mbp_fz.ckpt = &mk;
	if (mbp_snapshot_alloc(&s, &mbp_fz, &err) == RT_OK) {
		if (mbp_ckpt_restore(&mbp_fz, &s, &err) == RT_OK)
			FUZZ_CHECK(s.epoch >= 0 && s.epoch <= mbp_fz.epochs);
		mbp_snapshot_free(&s);
	}
	mbp_fz.ckpt = NULL;
}

/* svm reads its table from the file itself (path), then each problem is
 * looked up as a resumed solver would. */
static void restore_svm(const char *path)
{
	svm_ckpt sk;
	rt_options opt = { .backend = RT_BACKEND_CPU, .resume = path };
	rt_error err;
	memset(&sk, 0, sizeof sk);
	if (svm_ckpt_open(&sk, kind_spec(4), &opt, "/nonexistent/fz", &err) == RT_OK) {
		for (long k = 0; k < sk.count; k++) {
			svm_ckpt_entry e = sk.e[k];
			FUZZ_CHECK(e.n >= 0 && e.iterations >= 0);
			double *a = malloc((size_t)e.n * sizeof *a + 1), *g = malloc((size_t)e.n * sizeof *g + 1);
			long it;
			int done;
			if (a && g)
				FUZZ_CHECK(svm_ckpt_find(&sk, e.model, e.pair, e.n, a, g, &it, &done, NULL) == 1);
			free(a);
			free(g);
		}
	}
	svm_ckpt_close(&sk);
}

/* The file at path read as kind k's checkpoint, and its state restored. */
static void read_as(int k, const char *path)
{
	rt_ckpt ck;
	rt_error err;
	rt_spec *spec = kind_spec(k);
	if (!spec || !make_job(k) || rt_ckpt_read(path, kind_names[k], spec, &ck, &err) != RT_OK)
		return;
	switch (k) {
	case 0: restore_gp(&ck); break;
	case 1: restore_de(&ck); break;
	case 2: restore_aco(&ck); break;
	case 3: restore_mbp(&ck); break;
	default: restore_svm(path); break;
	}
	rt_ckpt_free(&ck);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	rt_error err;
	rt_buf file = {0}, state = {0};
	char path[64];
	int kind = -1;   /* -1: a whole file, tried as every kind's */
	if (size == 0)
		return 0;
	if (size < 8 || memcmp(data, "EVOFCKPT", 8)) {
		kind = data[0] % FUZZ_KINDS;
		rt_buf_append(&state, (const char *)data + 1, size - 1);
		if (!kind_spec(kind) ||
		    rt_ckpt_format(kind_names[kind], kind_spec(kind), &state, &file, &err) != RT_OK)
			goto out;
		data = (const uint8_t *)file.data;
		size = file.len;
	}
	int fd = fuzz_file(data, size, path, sizeof path);
	if (fd >= 0) {
		for (int k = 0; k < FUZZ_KINDS; k++)
			if (kind < 0 || k == kind)
				read_as(k, path);
		close(fd);
	}
out:
	rt_buf_free(&state);
	rt_buf_free(&file);
	return 0;
}
