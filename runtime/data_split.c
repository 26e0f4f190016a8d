/* data_split.c: a seeded train / test split of a table's rows, plain or
 * stratified by group (class), for any kind that holds data out.
 *
 * Why largest remainders: each group gives floor(fraction x its size) rows,
 * and the rows still missing from round(fraction x n) go one each to the
 * groups with the largest fractional parts. So every group holds out within
 * one row of its exact share, and the test set has the size a plain split
 * would give. The rows of a group are picked by a partial Fisher-Yates
 * shuffle over Philox (seed, stream), groups in index order, so the split
 * depends on (seed, stream, fraction, groups) alone. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "data.h"
#include "rng.h"

/* Per-group quotas: floor of the exact share plus one for the `need`
 * groups with the largest remainders (ties to the lower group). */
static void group_quotas(const size_t *count, int ngroups, double fraction, size_t total,
			 size_t *quota)
{
	size_t sum = 0;
	for (int g = 0; g < ngroups; g++) {
		quota[g] = (size_t)floor(fraction * (double)count[g]);
		if (quota[g] > count[g])
			quota[g] = count[g];
		sum += quota[g];
	}
	while (sum < total) {
		int best = -1;
		double best_rem = 0;
		for (int g = 0; g < ngroups; g++) {
			double rem = fraction * (double)count[g] - (double)quota[g];
			if (quota[g] < count[g] && rem > 0 && (best < 0 || rem > best_rem)) {
				best = g;
				best_rem = rem;
			}
		}
		if (best < 0)
			break;
		quota[best]++;
		sum++;
	}
}

rt_status rt_split_rows(size_t n, const int *group, int ngroups, double fraction, uint64_t seed,
			uint64_t stream, unsigned char *is_test, size_t *ntest, rt_error *err)
{
	if (!(fraction > 0 && fraction < 1))
		return rt_fail(err, RT_ERR_INPUT, "split: expected a fraction with 0 < F < 1, got %g",
			       fraction);
	if (n > UINT32_MAX)
		return rt_fail(err, RT_ERR_INPUT, "split: at most %u rows, got %zu", UINT32_MAX, n);
	if (!group)
		ngroups = 1;
	if (ngroups < 1)
		return rt_fail(err, RT_ERR_INTERNAL, "split: expected at least one group, got %d",
			       ngroups);
	size_t *count = rt_calloc((size_t)ngroups * 3 + 1, sizeof *count, err);
	size_t *rows = count ? rt_malloc(n * sizeof *rows + 1, err) : NULL;
	if (!rows) {
		free(count);
		return err->status;
	}
	size_t *quota = count + ngroups, *start = quota + ngroups;
	for (size_t r = 0; r < n; r++) {
		int g = group ? group[r] : 0;
		if (g < 0 || g >= ngroups) {
			free(count);
			free(rows);
			return rt_fail(err, RT_ERR_INTERNAL, "split: row %zu: group %d outside 0..%d", r,
				       g, ngroups - 1);
		}
		count[g]++;
	}
	size_t total = (size_t)llround(fraction * (double)n);
	group_quotas(count, ngroups, fraction, total, quota);
	/* Rows grouped, in their order within each group. */
	for (int g = 1; g < ngroups; g++)
		start[g] = start[g - 1] + count[g - 1];
	memset(count, 0, (size_t)ngroups * sizeof *count);
	for (size_t r = 0; r < n; r++) {
		int g = group ? group[r] : 0;
		rows[start[g] + count[g]++] = r;
	}
	memset(is_test, 0, n);
	rt_rng rng;
	rt_rng_init(&rng, seed, stream);
	*ntest = 0;
	for (int g = 0; g < ngroups; g++) {
		size_t *v = rows + start[g], cnt = count[g];
		for (size_t i = 0; i < quota[g]; i++) {
			size_t j = i + rt_rng_below(&rng, (uint32_t)(cnt - i)), t = v[i];
			v[i] = v[j];
			v[j] = t;
			is_test[v[i]] = 1;
		}
		*ntest += quota[g];
	}
	free(count);
	free(rows);
	return RT_OK;
}
