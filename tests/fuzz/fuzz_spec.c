/* fuzz_spec.c: fuzz harness for the spec parser (runtime/spec.c,
 * rt_spec_load_text): any text, then every entry through the typed getters
 * (int, u64, double, bool, string, list of doubles) and the unused check. */
#include "fuzz.h"
#include "spec.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = fuzz_text(data, size);
	rt_spec spec;
	rt_error err;
	if (!text)
		return 0;
	memset(&spec, 0, sizeof spec);
	if (rt_spec_load_text(&spec, "fuzz.ini", text, &err) == RT_OK) {
		for (int i = 0; i < spec.nentries; i++) {
			const char *sec = spec.entries[i].section, *key = spec.entries[i].key;
			long l;
			uint64_t u;
			double d, list[16];
			int b, n = 16;
			const char *s;
			char where[256];
			FUZZ_CHECK(spec.entries[i].value != NULL);
			rt_spec_int(&spec, sec, key, 0, -1000000, 1000000, &l, &err);
			rt_spec_u64(&spec, sec, key, 0, &u, &err);
			rt_spec_double(&spec, sec, key, 0, -1e300, 1e300, &d, &err);
			rt_spec_bool(&spec, sec, key, 0, &b, &err);
			rt_spec_doubles(&spec, sec, key, list, &n, &err);
			FUZZ_CHECK(n >= 0 && n <= 16);
			FUZZ_CHECK(rt_spec_string(&spec, sec, key, "", &s, &err) == RT_OK);
			rt_spec_key_where(&spec, sec, key, where, sizeof where);
		}
		rt_spec_check_unused(&spec, &err);
	}
	rt_spec_free(&spec);
	free(text);
	return 0;
}
