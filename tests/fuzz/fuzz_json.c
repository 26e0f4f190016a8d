/* fuzz_json.c: fuzz harness for the JSON reader (runtime/json_read.c,
 * rt_jparse, which reads result.json for `evoforge export` and `eval`): any
 * text, then the lookups the kinds make (dotted paths, typed getters). */
#include "fuzz.h"
#include "json_read.h"

/* Walks every value, checking the tree's shape. */
static void walk(const rt_jval *v, int depth)
{
	FUZZ_CHECK(depth <= 1000 && v->line >= 1);
	if (v->type == RT_JSTRING)
		FUZZ_CHECK(v->str != NULL);
	if (v->type == RT_JARRAY || v->type == RT_JOBJECT) {
		FUZZ_CHECK(v->n >= 0 && (v->n == 0 || v->items != NULL));
		for (int i = 0; i < v->n; i++) {
			FUZZ_CHECK((v->type == RT_JOBJECT) == (v->items[i].key != NULL));
			walk(&v->items[i], depth + 1);
		}
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const paths[] = { "kind", "problem", "best.prefix", "best.fitness",
		"data.input_names", "a.b.c", "", ".", "..", NULL };
	char *text = fuzz_text(data, size);
	rt_jval doc;
	rt_error err;
	if (!text)
		return 0;
	if (rt_jparse(text, "fuzz.json", &doc, &err) == RT_OK) {
		walk(&doc, 0);
		for (int i = 0; paths[i]; i++) {
			const char *s;
			double d;
			const rt_jval *a;
			rt_jget(&doc, paths[i]);
			rt_jstring(&doc, paths[i], "fuzz.json", &s, &err);
			rt_jnumber(&doc, paths[i], "fuzz.json", &d, &err);
			rt_jarray(&doc, paths[i], "fuzz.json", &a, &err);
		}
		rt_jfree(&doc);
	}
	free(text);
	return 0;
}
