/* fuzz_tour.c: fuzz harness for the TSPLIB .tour reader (runtime/data_tsp.c,
 * rt_tsp_tour_read, which `evoforge export` uses for kind aco). A tour read
 * must be a permutation of 0..n-1, and read again with its n expected. */
#include "data.h"
#include "fuzz.h"

static void check_permutation(const int *tour, int n)
{
	unsigned char *seen = calloc((size_t)n, 1);
	if (!seen)
		return;
	for (int i = 0; i < n; i++) {
		FUZZ_CHECK(tour[i] >= 0 && tour[i] < n && !seen[tour[i]]);
		seen[tour[i]] = 1;
	}
	free(seen);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char path[64];
	int *tour = NULL, *again = NULL, n = 0, n2 = 0;
	rt_error err;
	int fd = fuzz_file(data, size, path, sizeof path);
	if (fd < 0)
		return 0;
	if (rt_tsp_tour_read(path, 0, &tour, &n, &err) == RT_OK) {
		FUZZ_CHECK(n > 0 && tour != NULL);
		check_permutation(tour, n);
		FUZZ_CHECK(rt_tsp_tour_read(path, n, &again, &n2, &err) == RT_OK);
		FUZZ_CHECK(n2 == n && memcmp(tour, again, (size_t)n * sizeof *tour) == 0);
	}
	free(tour);
	free(again);
	close(fd);
	return 0;
}
