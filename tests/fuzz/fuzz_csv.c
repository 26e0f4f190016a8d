/* fuzz_csv.c: fuzz harness for the CSV loader (runtime/data_csv.c,
 * rt_csv_load, the kinds' entry point), plain or gzip-compressed: the reader
 * decompresses whatever starts with gzip's magic. The options vary with the
 * input's length (header or none, label last, named, first or none,
 * delimiter ',' or ';'); a table read must be consistent. */
#include "data.h"
#include "fuzz.h"

static rt_csv_options options_for(size_t size)
{
	rt_csv_options o = rt_csv_defaults();
	switch (size % 5) {
	case 2: o.header = 0; o.label_index = -2; break;
	case 3: o.label = "y"; break;
	case 4: o.delimiter = ';'; o.label_index = 0; break;
	default: break;
	}
	return o;
}

static void check_table(const rt_table *t)
{
	FUZZ_CHECK(t->nrows > 0 && t->ncols >= 0);
	for (int c = 0; c < t->ncols; c++) {
		FUZZ_CHECK(t->colnames[c] != NULL);
		for (size_t r = 0; r < t->nrows; r++) {
			float v = rt_table_at(t, c, r);
			if (t->cats[c].n > 0)
				FUZZ_CHECK(v >= 0 && v < (float)t->cats[c].n);
		}
	}
	if (t->has_label && t->classes.n > 0)
		for (size_t r = 0; r < t->nrows; r++)
			FUZZ_CHECK(t->label[r] >= 0 && t->label[r] < (float)t->classes.n);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char path[64];
	rt_csv_options o = options_for(size);
	rt_table t;
	rt_error err;
	int fd = fuzz_file(data, size, path, sizeof path);
	if (fd < 0)
		return 0;
	if (rt_csv_load(path, &o, &t, &err) == RT_OK)
		check_table(&t);
	rt_table_free(&t);
	close(fd);
	return 0;
}
