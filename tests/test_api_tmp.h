/* test_api_tmp.h: the scratch folder of the C API's test programs, which
 * use include/evoforge.h alone (not tests/test_tmp.h, which reaches into
 * the runtime): removed when every test passed, kept for a look otherwise.
 * Include once per program. */
#ifndef EVO_TEST_API_TMP_H
#define EVO_TEST_API_TMP_H

#include <stdio.h>
#include <stdlib.h>

/* The program's exit status: failed, or 1 when the folder could not be removed. */
static int api_tmp_end(const char *dir, int failed)
{
	char cmd[300];
	if (failed)
		return failed;
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
	return system(cmd) == 0 ? 0 : 1;
}

#endif
