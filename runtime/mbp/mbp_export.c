/* mbp_export.c: kind `mbp`'s deployable artefact (rt_kind.export_result):
 * the run's best network (network.net beside result.json) in evoforge's
 * documented text format (mbp_impl.h), read back with the strict reader
 * first so that only a well-formed network is exported. A network as C
 * code is not written yet. */
#include <stdlib.h>
#include <string.h>

#include "export.h"
#include "json_read.h"
#include "log.h"
#include "mbp.h"
#include "mbp_impl.h"
#include "out.h"

rt_status mbp_export_result(const rt_jval *doc, const char *path, const rt_options *opt,
			    const char *dir, rt_error *err)
{
	const char *name;
	char src[RT_PATH_MAX], dst[RT_PATH_MAX], ident[128], *text = NULL;
	size_t size;
	mbp_net net;
	rt_status st;
	(void)opt;
	memset(&net, 0, sizeof net);
	if ((st = rt_jstring(doc, "name", path, &name, err)) ||
	    (st = rt_export_sibling(path, "network.net", src, sizeof src, err)) ||
	    (st = mbp_net_read(src, &net, err)))
		return st;
	rt_export_ident(name, ident, sizeof ident);
	if ((st = rt_read_file(src, &text, &size, err)) == RT_OK &&
	    (st = rt_format(dst, sizeof dst, err, "%s/%s.net", dir, ident)) == RT_OK)
		st = rt_write_file_atomic(dst, text, size, err);
	if (st == RT_OK)
		rt_info("mbp: wrote %s (%d inputs, %d outputs, %d weights)", dst, net.shape.ni,
			net.shape.no, net.shape.nweights);
	free(text);
	mbp_net_free(&net);
	return st;
}
