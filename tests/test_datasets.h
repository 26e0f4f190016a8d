/* test_datasets.h: where a test program finds a dataset. The UCI CSVs ship in
 * data/uci/ (always there in a checkout: a test that needs them fails without
 * them); KDD Cup, a9a and TSPLIB do not ship: they are taken from
 * $EVOFORGE_DATA or ../shared/data (the latter not when EVOFORGE_NO_SHARED_DATA
 * is set, as runtime/spec.c), and the test skips, printing "SKIP: ..." with
 * the reason, when they are absent. Tests run from the repository root. */
#ifndef EVO_TEST_DATASETS_H
#define EVO_TEST_DATASETS_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The folder of the datasets that are not shipped, beside the checkout. */
#define TEST_SHARED_DATA "../shared/data"

/* Whether $EVOFORGE_NO_SHARED_DATA is set (to anything but "" or "0"). */
static inline int test_no_shared_data(void)
{
	const char *v = getenv("EVOFORGE_NO_SHARED_DATA");
	return v && *v && strcmp(v, "0") != 0;
}

/* "data/NAME" into buf: a dataset that ships with evoforge (NAME as
 * "uci/sonar.csv"). Returns buf. */
static inline const char *test_shipped_data(const char *name, char *buf, size_t size)
{
	snprintf(buf, size, "data/%s", name);
	return buf;
}

/* Whether PATH, a file under ../shared/data (not shipped), may be used: it is
 * readable and EVOFORGE_NO_SHARED_DATA is not set. If not, prints a SKIP line
 * with the reason and returns 0 (the caller then calls cmocka's skip()). */
static inline int test_shared_present(const char *path)
{
	if (test_no_shared_data() && strncmp(path, TEST_SHARED_DATA, strlen(TEST_SHARED_DATA)) == 0) {
		printf("SKIP: %s not used: EVOFORGE_NO_SHARED_DATA is set (dataset not shipped)\n", path);
		return 0;
	}
	if (access(path, R_OK) == 0)
		return 1;
	printf("SKIP: %s not present (dataset not shipped; set EVOFORGE_DATA or provide "
	       "../shared/data)\n", path);
	return 0;
}

/* The path of NAME ("tsp/pcb442.tsp"), a dataset that is not shipped, into
 * buf: $EVOFORGE_DATA/NAME if readable, else ../shared/data/NAME if readable
 * and EVOFORGE_NO_SHARED_DATA is not set. Returns buf, or NULL (silently). */
static inline const char *test_shared_find(const char *name, char *buf, size_t size)
{
	const char *env = getenv("EVOFORGE_DATA");
	if (env && *env) {
		snprintf(buf, size, "%s/%s", env, name);
		if (access(buf, R_OK) == 0)
			return buf;
	}
	snprintf(buf, size, TEST_SHARED_DATA "/%s", name);
	return !test_no_shared_data() && access(buf, R_OK) == 0 ? buf : NULL;
}

/* The same, printing a SKIP line with the reason when NAME is not found (the
 * caller then calls cmocka's skip()). */
static inline const char *test_shared_data(const char *name, char *buf, size_t size)
{
	if (test_shared_find(name, buf, size))
		return buf;
	snprintf(buf, size, TEST_SHARED_DATA "/%s", name);
	return test_shared_present(buf) ? buf : NULL;
}

#endif
