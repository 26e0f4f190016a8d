/* mbp_job.c: kind `mbp`'s job: the [mbp] section of a spec (with [data],
 * read by mbp_data.c) turned into a network shape, a training rule and the
 * per-network set-up both backends share (initial weights, training sets,
 * pattern-order keys).
 *
 *   [mbp]
 *   hidden = 10              ; h1, or "20 10" for two hidden layers
 *   space = 1                ; 1: MBP (space network, selective h1); 0: BP
 *   hidden_activation = sigmoid   ; sigmoid, tanh or linear
 *   output_activation = sigmoid
 *   space_activation = sigmoid
 *   mode = batch             ; batch, minibatch or online
 *   batch_size = 32          ; patterns per correction in minibatch mode
 *   epochs = 1000            ; epoch limit
 *   target_rms = 0           ; stop a network at this training RMS (0: off)
 *   step = 0.7  step_up = 1.2  step_down = 0.8  max_step = 10  momentum = 0.7
 *   adaptive_steps = 1       ; default 1 in batch mode, 0 in online and minibatch: a
 *                            ;   step shrinks by d whenever two consecutive patterns'
 *                            ;   gradients disagree, so per-pattern adaptation drives
 *                            ;   every step towards 0 (XOR online never learns with it)
 *   robust = 1  tolerance = 0.001  reduction = 0.5
 *   init_range = 1           ; initial weights uniform in [-r, r]
 *   weights = start.net      ; initial weights from a network file instead
 *   networks = 1             ; independent networks trained at once
 *   folds = 0                ; k >= 2: k-fold cross-validation, network n on fold n % k
 *   chunk = 128              ; patterns per partial gradient sum (fixes the sums' order)
 *   report_every = 100       ; epochs between progress lines
 *   threads = 0              ; GPU threads per block (0: chosen)
 *   variant = auto           ; GPU kernels: fused (a block per network, persistent),
 *                            ;   split (batch mode: a block per chunk, two launches
 *                            ;   per epoch) or auto (split for large training sets)
 *   stage_inputs = auto      ; GPU: copy each chunk's inputs to shared memory first (yes,
 *                            ;   no; auto: yes for at most 32 networks). Speed only */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mbp_impl.h"
#include "rng.h"

static const char *const mode_names[] = { "batch", "minibatch", "online", NULL };
static const char *const variant_names[] = { "auto", "fused", "split", NULL };
static const char *const stage_names[] = { "auto", "no", "yes", NULL };

const char *mbp_mode_name(int mode) { return mode_names[mode]; }
const char *mbp_activation_name(int act) { return mbp_activation_names[act]; }

/* The defaults every job starts from (the MBP software's rule constants). */
static void job_defaults(mbp_job *job)
{
	memset(job, 0, sizeof *job);
	snprintf(job->name, sizeof job->name, "mbp");
	job->seed = 1;
	job->shape.space = 1;
	job->shape.act_hidden = job->shape.act_output = job->shape.act_space = MBP_SIGMOID;
	job->rule.up = 1.2f;
	job->rule.down = 0.8f;
	job->rule.max_step = 10.0f;
	job->rule.momentum = 0.7f;
	job->rule.growth = 1.001f;
	job->rule.reduction = 0.5f;
	job->rule.robust = 1;
	job->rule.adapt = 1;
	job->step0 = 0.7f;
	job->init_range = 1.0f;
	job->mode = MBP_BATCH;
	job->batch_size = 32;
	job->epochs = 1000;
	job->networks = 1;
	job->chunk = 128;
	job->report_every = 100;
}

static rt_status read_hidden(mbp_job *job, rt_spec *spec, rt_error *err)
{
	char loc[RT_PATH_MAX + 32];
	double h[3];
	int n = 3;
	rt_status st = rt_spec_doubles(spec, "mbp", "hidden", h, &n, err);
	if (st != RT_OK)
		return st;
	if (n == 0) {
		h[0] = 10;
		n = 1;
	}
	if (n > 2)
		return rt_fail(err, RT_ERR_INPUT, "%s: mbp.hidden: expected one or two layer sizes "
			       "(\"10\" or \"20 10\"), got %d",
			       rt_spec_key_where(spec, "mbp", "hidden", loc, sizeof loc), n);
	for (int i = 0; i < n; i++)
		if (h[i] != floor(h[i]) || h[i] < 1 || h[i] > MBP_MAX_UNITS)
			return rt_fail(err, RT_ERR_INPUT, "%s: mbp.hidden: expected whole numbers "
				       "from 1 to %d, got %g", rt_spec_key_where(spec, "mbp", "hidden", loc, sizeof loc),
				       MBP_MAX_UNITS, h[i]);
	job->shape.h1 = (int)h[0];
	job->shape.h2 = n > 1 ? (int)h[1] : 0;
	return RT_OK;
}

static rt_status read_rule(mbp_job *job, rt_spec *spec, rt_error *err)
{
	double v;
	rt_status st;
#define RULE(key, def, lo, hi, field) \
	do { if ((st = rt_spec_double(spec, "mbp", key, def, lo, hi, &v, err)) != RT_OK) return st; \
	     field = (float)v; } while (0)
	RULE("step", 0.7, 1e-9, 1e6, job->step0);
	RULE("step_up", 1.2, 1.0, 10.0, job->rule.up);
	RULE("step_down", 0.8, 1e-6, 1.0, job->rule.down);
	RULE("max_step", 10.0, 1e-9, 1e9, job->rule.max_step);
	RULE("momentum", 0.7, 0.0, 0.999999, job->rule.momentum);
	RULE("tolerance", 0.001, 0.0, 100.0, job->rule.growth);
	job->rule.growth = 1.0f + job->rule.growth;
	RULE("reduction", 0.5, 1e-6, 1.0, job->rule.reduction);
	RULE("init_range", 1.0, 1e-9, 1e6, job->init_range);
#undef RULE
	return rt_spec_bool(spec, "mbp", "robust", 1, &job->rule.robust, err);
}

static rt_status read_training(mbp_job *job, rt_spec *spec, rt_error *err)
{
	long v;
	rt_status st;
#define TRY(x) do { if ((st = (x)) != RT_OK) return st; } while (0)
	TRY(rt_spec_enum(spec, "mbp", "mode", mode_names, MBP_BATCH, &job->mode, err));
	TRY(rt_spec_int(spec, "mbp", "batch_size", 32, 1, 1L << 30, &v, err));
	job->batch_size = job->mode == MBP_ONLINE ? 1 : (int)v;
	TRY(rt_spec_bool(spec, "mbp", "adaptive_steps", job->mode == MBP_BATCH, &job->rule.adapt,
			 err));
	TRY(rt_spec_int(spec, "mbp", "epochs", 1000, 1, 1L << 40, &job->epochs, err));
	TRY(rt_spec_double(spec, "mbp", "target_rms", 0.0, 0.0, 1e6, &job->target_rms, err));
	TRY(rt_spec_int(spec, "mbp", "folds", 0, 0, 1L << 20, &v, err));
	job->folds = (int)v;
	TRY(rt_spec_int(spec, "mbp", "networks", job->folds > 1 ? job->folds : 1, 1, 1L << 22,
			&job->networks, err));
	TRY(rt_spec_int(spec, "mbp", "chunk", 128, 1, 4096, &v, err));
	job->chunk = (int)v;
	TRY(rt_spec_int(spec, "mbp", "report_every", 100, 1, 1L << 40, &v, err));
	job->report_every = v;
	TRY(rt_spec_int(spec, "mbp", "threads", 0, 0, 1024, &v, err));
	job->threads = (int)v;
	TRY(rt_spec_enum(spec, "mbp", "variant", variant_names, 0, &job->variant, err));
	TRY(rt_spec_enum(spec, "mbp", "stage_inputs", stage_names, MBP_STAGE_AUTO, &job->stage_inputs,
			 err));
#undef TRY
	if (job->variant == MBP_VARIANT_SPLIT && job->mode != MBP_BATCH) {
		char loc[RT_PATH_MAX + 32];
		return rt_fail(err, RT_ERR_INPUT, "%s: mbp.variant = split is for batch mode, the job's "
			       "mode is %s", rt_spec_key_where(spec, "mbp", "variant", loc, sizeof loc),
			       mode_names[job->mode]);
	}
	return RT_OK;
}

static rt_status read_network(mbp_job *job, rt_spec *spec, rt_error *err)
{
	rt_status st;
	if ((st = read_hidden(job, spec, err)) != RT_OK ||
	    (st = rt_spec_bool(spec, "mbp", "space", 1, &job->shape.space, err)) != RT_OK ||
	    (st = rt_spec_enum(spec, "mbp", "hidden_activation", mbp_activation_names, MBP_SIGMOID,
			       &job->shape.act_hidden, err)) != RT_OK ||
	    (st = rt_spec_enum(spec, "mbp", "output_activation", mbp_activation_names, MBP_SIGMOID,
			       &job->shape.act_output, err)) != RT_OK ||
	    (st = rt_spec_enum(spec, "mbp", "space_activation", mbp_activation_names, MBP_SIGMOID,
			       &job->shape.act_space, err)) != RT_OK)
		return st;
	return RT_OK;
}

/* Loads [mbp] weights = FILE and checks it fits the job's shape. */
static rt_status read_weights(mbp_job *job, rt_spec *spec, rt_error *err)
{
	char loc[RT_PATH_MAX + 32];
	const char *name;
	mbp_net net;
	const mbp_shape *a = &job->shape, *b = &net.shape;
	rt_status st;
	if (!rt_spec_find(spec, "mbp", "weights"))
		return RT_OK;
	if ((st = rt_spec_string(spec, "mbp", "weights", NULL, &name, err)) != RT_OK ||
	    (st = rt_spec_data_path(spec, name, job->weights_path, sizeof job->weights_path, err)))
		return st;
	if ((st = mbp_net_read(job->weights_path, &net, err)) != RT_OK)
		return st;
	if (a->ni != b->ni || a->h1 != b->h1 || a->h2 != b->h2 || a->no != b->no ||
	    a->space != b->space) {
		st = rt_fail(err, RT_ERR_INPUT, "%s: mbp.weights: %s is a %d-%d%s%.0d-%d network%s, "
			     "the job's is %d-%d%s%.0d-%d%s", rt_spec_key_where(spec, "mbp", "weights", loc, sizeof loc),
			     job->weights_path, b->ni, b->h1, b->h2 ? "-" : "", b->h2, b->no,
			     b->space ? " with a space network" : "", a->ni, a->h1, a->h2 ? "-" : "",
			     a->h2, a->no, a->space ? " with a space network" : "");
		mbp_net_free(&net);
		return st;
	}
	job->init_w = net.w;
	net.w = NULL;
	mbp_net_free(&net);
	return RT_OK;
}

rt_status mbp_job_from_spec(mbp_job *job, rt_spec *spec, const rt_options *opt, rt_error *err)
{
	const char *name;
	rt_status st;
	job_defaults(job);
	snprintf(job->spec_path, sizeof job->spec_path, "%s", spec->path);
	if ((st = rt_spec_string(spec, "problem", "kind", "mbp", &name, err)) != RT_OK ||
	    (st = rt_spec_string(spec, "problem", "name", "mbp", &name, err)) != RT_OK)
		return st;
	snprintf(job->name, sizeof job->name, "%s", name);
	if ((st = rt_job_seed(spec, opt, &job->seed, err)) != RT_OK ||
	    (st = read_network(job, spec, err)) != RT_OK || (st = read_rule(job, spec, err)) != RT_OK ||
	    (st = read_training(job, spec, err)) != RT_OK)
		return st;
	if ((st = mbp_dataset_from_spec(&job->data, spec, job->shape.act_output, job->folds, err)))
		return st;
	job->shape.ni = job->data.ni;
	job->shape.no = job->data.no;
	mbp_shape_layout(&job->shape);
	if ((st = read_weights(job, spec, err)) != RT_OK)
		return st;
	return rt_spec_check_unused(spec, err);
}

rt_status mbp_job_generated(mbp_job *job, const char *source, long patterns, int h1, int h2,
			    int space, rt_error *err)
{
	rt_status st;
	job_defaults(job);
	snprintf(job->name, sizeof job->name, "%s", source);
	snprintf(job->spec_path, sizeof job->spec_path, "(generated %s)", source);
	job->shape.h1 = h1;
	job->shape.h2 = h2;
	job->shape.space = space;
	if ((st = mbp_dataset_generated(&job->data, source, patterns, 1, job->shape.act_output,
					err)) != RT_OK)
		return st;
	job->shape.ni = job->data.ni;
	job->shape.no = job->data.no;
	mbp_shape_layout(&job->shape);
	return RT_OK;
}

void mbp_job_free(mbp_job *job)
{
	free(job->init_w);
	mbp_dataset_free(&job->data);
	memset(job, 0, sizeof *job);
}

void mbp_job_initial_weights(const mbp_job *job, long k, float *w)
{
	rt_rng rng;
	int nw = job->shape.nweights;
	if (job->init_w) {
		memcpy(w, job->init_w, (size_t)nw * sizeof *w);
		return;
	}
	rt_rng_init(&rng, job->seed, (uint64_t)(job->net_base + k));
	for (int i = 0; i < nw; i++)
		w[i] = (2.0f * rt_rng_uniform(&rng) - 1.0f) * job->init_range;
}

const long *mbp_job_train_set(const mbp_job *job, long k, long *n)
{
	int s = (int)((job->net_base + k) % job->data.sets);
	*n = job->data.ntrain[s];
	return job->data.train[s];
}

const long *mbp_job_valid_set(const mbp_job *job, long k, long *n)
{
	int s = (int)((job->net_base + k) % job->data.sets);
	*n = job->data.nvalid[s];
	return job->data.valid[s];
}

void mbp_job_order_keys(const mbp_job *job, long k, long epoch, uint32_t key[4])
{
	philox4x32_ctr c = philox_block(job->seed, MBP_ORDER_STREAM | (uint64_t)(job->net_base + k),
					(uint64_t)epoch);
	for (int i = 0; i < 4; i++)
		key[i] = c.v[i];
}

long mbp_job_batch(const mbp_job *job, long n)
{
	if (job->mode == MBP_BATCH || job->batch_size > n)
		return n;
	return job->batch_size;
}
