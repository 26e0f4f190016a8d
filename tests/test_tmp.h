/* test_tmp.h: the scratch folder a cmocka test program works in: created
 * (mkdtemp under /tmp, quiet logging) by the group setup and removed by the
 * group teardown. Include once per test program, after <cmocka.h>. */
#ifndef EVO_TEST_TMP_H
#define EVO_TEST_TMP_H

#include <stdio.h>
#include <stdlib.h>

#include "log.h"

static char tmpdir[256];

/* Group setup: /tmp/evoforge-test-NAME-XXXXXX. */
static int tmp_setup(const char *name)
{
	snprintf(tmpdir, sizeof tmpdir, "/tmp/evoforge-test-%s-XXXXXX", name);
	if (!mkdtemp(tmpdir))
		return -1;
	rt_log_set_quiet(1);
	return 0;
}

/* Group teardown: removes the folder and everything in it. */
static int tmp_teardown(void **state)
{
	char cmd[300];
	(void)state;
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmpdir);
	return system(cmd) == 0 ? 0 : -1;
}

#endif
