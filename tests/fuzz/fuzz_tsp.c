/* fuzz_tsp.c: fuzz harness for the TSPLIB instance reader
 * (runtime/data_tsp.c, rt_tsp_load, as kind aco loads an instance). A
 * read instance must give symmetric distances with a zero diagonal, and
 * (when small) a distance matrix and a tour length. */
#include "data.h"
#include "fuzz.h"

static void check_instance(const rt_tsp *t)
{
	int n = t->n, m = n < 64 ? n : 64;
	FUZZ_CHECK(n > 0);
	FUZZ_CHECK(t->metric == RT_TSP_EXPLICIT ? t->w != NULL : t->x != NULL && t->y != NULL);
	for (int i = 0; i < m; i++) {
		FUZZ_CHECK(rt_tsp_distance(t, i, i) == 0);
		for (int j = 0; j < i; j++)
			FUZZ_CHECK(rt_tsp_distance(t, i, j) == rt_tsp_distance(t, j, i));
	}
	if (n <= 256) {
		int *d = malloc((size_t)n * (size_t)n * sizeof *d), *tour = malloc((size_t)n * sizeof *tour);
		if (d && tour) {
			FUZZ_CHECK(rt_tsp_distance_matrix(t, d) == RT_OK);
			for (int i = 0; i < n; i++)
				tour[i] = i;
			(void)rt_tsp_tour_length(t, tour);
		}
		free(d);
		free(tour);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char path[64];
	rt_tsp t;
	rt_error err;
	int fd = fuzz_file(data, size, path, sizeof path);
	if (fd < 0)
		return 0;
	memset(&t, 0, sizeof t);
	if (rt_tsp_load(path, &t, &err) == RT_OK)
		check_instance(&t);
	rt_tsp_free(&t);
	close(fd);
	return 0;
}
