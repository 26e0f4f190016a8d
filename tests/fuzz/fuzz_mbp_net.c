/* fuzz_mbp_net.c: fuzz harness for the MBP network reader
 * (runtime/mbp/mbp_net.c, mbp_net_read, as `evoforge eval`, export and a
 * run's initial weights read a network). A network read must have a
 * consistent layout, and its forward pass on zero inputs must run. */
#include "fuzz.h"
#include "mbp/mbp_impl.h"
#include "mbp/mbp_export.h"

static void check_net(const mbp_net *net)
{
	const mbp_shape *s = &net->shape;
	FUZZ_CHECK(s->ni > 0 && s->h1 > 0 && s->no > 0 && s->h2 >= 0);
	FUZZ_CHECK(s->nweights > 0 && net->w != NULL);
	if (s->ni <= 4096 && s->h1 <= 4096 && s->h2 <= 4096 && s->no <= 4096) {
		float *x = calloc((size_t)s->ni, sizeof *x), *y1 = calloc((size_t)s->h1, sizeof *y1);
		float *y2 = calloc((size_t)s->h2 + 1, sizeof *y2), *y = calloc((size_t)s->no, sizeof *y);
		if (x && y1 && y2 && y)
			mbp_export_forward(s, net->w, x, y1, y2, y);
		free(x);
		free(y1);
		free(y2);
		free(y);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char path[64];
	mbp_net net;
	rt_error err;
	int fd = fuzz_file(data, size, path, sizeof path);
	if (fd < 0)
		return 0;
	if (mbp_net_read(path, &net, &err) == RT_OK) {
		check_net(&net);
		mbp_net_free(&net);
	}
	close(fd);
	return 0;
}
