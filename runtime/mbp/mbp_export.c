/* mbp_export.c: kind `mbp`'s deployable artefacts (rt_kind.export_result). */
#include "json_read.h"
#include "mbp.h"

rt_status mbp_export_result(const rt_jval *doc, const char *path, const rt_options *opt,
			    const char *dir, rt_error *err)
{
	(void)doc;
	(void)opt;
	(void)dir;
	return rt_fail(err, RT_ERR_UNSUPPORTED, "%s: export of mbp networks is not written yet",
		       path);
}
