/* mbp_gpu_driver.c: device-machine driver of the GPU MBP trainer (not a unit
 * test; no cmocka, the device machine has none). For each case (generated
 * problems, and Sonar when its file is found) it trains the same networks
 * from the same initial weights for the same epochs on the CPU path and on
 * the GPU, and prints a markdown table: how many final weights are
 * bit-identical, the largest difference, both training RMS values and
 * their relative difference. Exit status 1 if any case differs by more than
 * 5 % in RMS. --net-base B trains the networks B .. B+K-1 of a job of
 * B+K (an MPI rank's share, mbp_shard.c: the kernels get MBP_NET_BASE) on
 * both paths. Usage: mbp_gpu_driver [--epochs N] [--networks K] [--net-base B] */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "log.h"
#include "mbp/mbp_impl.h"

typedef struct drv_case {
	const char *source;     /* generated source, or a spec name */
	long patterns;
	int h1, h2, space, mode, batch;
	int variant, chunk;     /* 0: the job's defaults */
} drv_case;

static const drv_case cases[] = {
	{ "xor", 0, 4, 0, 1, MBP_BATCH, 0, 0, 0 },
	{ "two-spirals", 0, 20, 10, 1, MBP_BATCH, 0, 0, 0 },
	{ "two-spirals", 0, 20, 10, 1, MBP_ONLINE, 1, 0, 0 },
	{ "two-spirals", 0, 30, 10, 1, MBP_MINIBATCH, 32, 0, 0 },
	{ "two-spirals", 0, 20, 0, 0, MBP_BATCH, 0, 0, 0 },
	{ "friedman1", 4096, 20, 10, 1, MBP_BATCH, 0, 0, 0 },
	{ "friedman1", 4096, 20, 10, 1, MBP_BATCH, 0, MBP_VARIANT_FUSED, 0 },
	{ "two-spirals", 0, 20, 10, 1, MBP_BATCH, 0, MBP_VARIANT_SPLIT, 32 },
	{ "friedman1", 4096, 20, 10, 1, MBP_MINIBATCH, 128, 0, 0 },
	{ "mbp-sonar", 0, 10, 0, 1, MBP_BATCH, 0, 0, 0 },
	{ "mbp-sonar", 0, 30, 0, 1, MBP_ONLINE, 1, 0, 0 },
};

static rt_status case_job(const drv_case *c, long epochs, long networks, mbp_job *job, rt_error *err)
{
	rt_status st;
	if (!strncmp(c->source, "mbp-", 4)) {
		rt_spec spec;
		rt_options opt;
		char h[16];
		memset(&opt, 0, sizeof opt);
		if ((st = rt_spec_load_named(&spec, c->source, err)) != RT_OK)
			return st;
		snprintf(h, sizeof h, "%d", c->h1);
		st = rt_spec_set(&spec, "mbp", "hidden", h, err);
		if (st == RT_OK)
			st = mbp_job_from_spec(job, &spec, &opt, err);
		rt_spec_free(&spec);
	} else {
		st = mbp_job_generated(job, c->source, c->patterns, c->h1, c->h2, c->space, err);
	}
	if (st != RT_OK)
		return st;
	job->mode = c->mode;
	job->batch_size = c->mode == MBP_BATCH ? 32 : c->batch;
	job->rule.adapt = c->mode == MBP_BATCH;
	job->epochs = epochs;
	job->report_every = epochs;
	job->target_rms = 0;
	job->networks = networks;
	if (c->variant)
		job->variant = c->variant;
	if (c->chunk)
		job->chunk = c->chunk;
	return RT_OK;
}

static int compare(const drv_case *c, const mbp_job *job, const mbp_outcome *a,
		   const mbp_outcome *b)
{
	size_t all = (size_t)job->networks * job->shape.nweights, same = 0;
	double maxd = 0, ra, rb, acc, diff;
	long n;
	const long *set = mbp_job_train_set(job, 0, &n);
	for (size_t i = 0; i < all; i++) {
		double d = fabs((double)a->w[i] - b->w[i]);
		same += a->w[i] == b->w[i];
		if (d > maxd || d != d)
			maxd = d;
	}
	mbp_evaluate(job, a->w, set, n, &ra, &acc);
	mbp_evaluate(job, b->w, set, n, &rb, &acc);
	diff = 100.0 * fabs(ra - rb) / (ra > 1e-12 ? ra : 1e-12);
	printf("| %s %d-%d%s%.0d-%d %s | %s | %s | %ld | %ld | %zu/%zu | %.3g | %.6f | %.6f | %.3f%% | "
	       "%.0f | %.0f |\n", c->source, job->shape.ni, job->shape.h1, job->shape.h2 ? "-" : "",
	       job->shape.h2, job->shape.no, c->space ? "MBP" : "BP", mbp_mode_name(c->mode),
	       b->detail,
	       job->networks, a->res[0].epochs, same, all, maxd, ra, rb, diff,
	       a->seconds > 0 ? 60.0 * a->epochs / a->seconds : 0,
	       b->seconds > 0 ? 60.0 * b->epochs / b->seconds : 0);
	fflush(stdout);
	return diff <= 5.0 && a->res[0].epochs == b->res[0].epochs;
}

int main(int argc, char **argv)
{
	long epochs = 200, networks = 3, net_base = 0;
	int bad = 0;
	for (int i = 1; i + 1 < argc; i += 2) {
		if (!strcmp(argv[i], "--epochs"))
			epochs = atol(argv[i + 1]);
		else if (!strcmp(argv[i], "--networks"))
			networks = atol(argv[i + 1]);
		else if (!strcmp(argv[i], "--net-base"))
			net_base = atol(argv[i + 1]);
	}
	printf("| case | mode | gpu kernels | networks | epochs | identical weights | max abs diff | rms cpu | "
	       "rms gpu | rms diff | cpu epochs/min | gpu epochs/min |\n");
	printf("|---|---|---|---|---|---|---|---|---|---|---|---|\n");
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		mbp_job job;
		mbp_outcome cpu, gpu;
		rt_error err;
		memset(&cpu, 0, sizeof cpu);
		memset(&gpu, 0, sizeof gpu);
		if (case_job(&cases[i], epochs, networks, &job, &err) != RT_OK) {
			printf("| %s | skipped: %s |\n", cases[i].source, err.msg);
			mbp_job_free(&job);
			continue;
		}
		if (net_base > 0) {
			job.net_base = net_base;
			job.networks_total = net_base + networks;
		}
		if (mbp_cpu_train(&job, NULL, NULL, &cpu, &err) != RT_OK ||
		    mbp_gpu_train(&job, NULL, NULL, &gpu, &err) != RT_OK) {
			printf("| %s | error: %s |\n", cases[i].source, err.msg);
			bad++;
		} else if (!compare(&cases[i], &job, &cpu, &gpu)) {
			bad++;
		}
		mbp_outcome_free(&cpu);
		mbp_outcome_free(&gpu);
		mbp_job_free(&job);
	}
	printf("\nmbp_gpu_driver: %d case(s) outside tolerance\n", bad);
	return bad ? 1 : 0;
}
