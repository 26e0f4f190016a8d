/* fuzz_gp_prefix.c: fuzz harness for the GP program reader
 * (runtime/gp/gp_conv.c, gp_parse_prefix: result.json's best.prefix, read
 * by `evoforge export` and `eval`). The input's first byte picks the number
 * of inputs (1..64); a program read must be a complete prefix tree whose
 * inputs are below that number, and must print back to a text that reads
 * back to the same tree. */
#include "fuzz.h"
#include "gp/gp_conv.h"

static void check_tree(const gp_tree *t, int ninputs)
{
	gp_tree again;
	rt_buf b;
	rt_error err;
	FUZZ_CHECK(t->n >= 1);
	memset(&b, 0, sizeof b);
	gp_print_prefix(&b, t->nodes, t->n);
	if (!b.data)
		return;
	memset(&again, 0, sizeof again);
	FUZZ_CHECK(gp_parse_prefix(b.data, ninputs, &again, &err) == RT_OK);
	FUZZ_CHECK(again.n == t->n);
	for (int i = 0; i < t->n; i++) {
		const gp_node *a = &again.nodes[i], *o = &t->nodes[i];
		FUZZ_CHECK(a->op == o->op);
		if (o->op == GP_TERM_VAR)
			FUZZ_CHECK(o->var < ninputs && a->var == o->var);
		if (o->op == GP_TERM_CONST)
			FUZZ_CHECK(memcmp(&a->value, &o->value, sizeof a->value) == 0);
	}
	gp_tree_free(&again);
	rt_buf_free(&b);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	int ninputs = size ? 1 + data[0] % 64 : 1;
	char *text = size ? fuzz_text(data + 1, size - 1) : fuzz_text(data, 0);
	gp_tree t;
	rt_error err;
	if (!text)
		return 0;
	memset(&t, 0, sizeof t);
	if (gp_parse_prefix(text, ninputs, &t, &err) == RT_OK)
		check_tree(&t, ninputs);
	gp_tree_free(&t);   /* the caller's, also after a failure */
	free(text);
	return 0;
}
