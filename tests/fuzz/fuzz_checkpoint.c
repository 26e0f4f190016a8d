/* fuzz_checkpoint.c: fuzz harness for checkpoint files (runtime/checkpoint.c:
 * rt_ckpt_read) and kind gp's state in them (gp_ckpt_restore). An input
 * whose first byte is even is a whole file; odd, the rest is the gp state
 * of a file made well-formed around it (right header, spec and checksum),
 * so that the state's reader is reached, not only the checksum test. */
#include "checkpoint.h"
#include "fuzz.h"
#include "gp/gp_ckpt.h"

#define FUZZ_POP 4
#define FUZZ_GENS 3

static const char spec_text[] =
	"[problem]\nkind = gp\nname = fz\n[gp]\npopulation = 4\ngenerations = 3\n";

/* The gp state of ck restored into a population of FUZZ_POP, then freed. */
static void restore(rt_ckpt *ck)
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

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	rt_spec spec;
	rt_error err;
	rt_buf file = {0}, state = {0};
	rt_ckpt ck;
	char path[64];
	if (size == 0 || rt_spec_load_text(&spec, "fz.ini", spec_text, &err) != RT_OK)
		return 0;
	if (data[0] & 1) {
		rt_buf_append(&state, (const char *)data + 1, size - 1);
		if (rt_ckpt_format("gp", &spec, &state, &file, &err) != RT_OK)
			goto out;
		data = (const uint8_t *)file.data;
		size = file.len;
	}
	int fd = fuzz_file(data, size, path, sizeof path);
	if (fd >= 0) {
		if (rt_ckpt_read(path, "gp", &spec, &ck, &err) == RT_OK) {
			restore(&ck);
			rt_ckpt_free(&ck);
		}
		close(fd);
	}
out:
	rt_buf_free(&state);
	rt_buf_free(&file);
	rt_spec_free(&spec);
	return 0;
}
