/* test_data_wild.c: the data loaders on files as users bring them (TSPLIB
 * instances and tours, LIBSVM, CSV): every variant written to a scratch
 * file and read back, asserting the values parsed, and the bad inputs
 * refused with file:line(:column) and what was expected. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "data.h"
#include "svm/svm_impl.h"

#include "test_tmp.h"

/* ---- helpers -------------------------------------------------------------- */

/* Writes text (len bytes, or strlen) to tmpdir/name; returns the path in buf. */
static const char *put_n(char *buf, size_t n, const char *name, const char *text, size_t len)
{
	FILE *f;
	snprintf(buf, n, "%s/%s", tmpdir, name);
	f = fopen(buf, "wb");
	assert_non_null(f);
	assert_int_equal(fwrite(text, 1, len, f), len);
	assert_int_equal(fclose(f), 0);
	return buf;
}

static const char *put(char *buf, size_t n, const char *name, const char *text)
{
	return put_n(buf, n, name, text, strlen(text));
}

/* Asserts that err.msg is path followed by suffix. */
static void assert_msg(const rt_error *err, const char *path, const char *suffix)
{
	char want[1024];
	snprintf(want, sizeof want, "%s%s", path, suffix);
	assert_string_equal(err->msg, want);
}

static void tsp_fails(const char *name, const char *text, const char *suffix)
{
	char path[512];
	rt_tsp t;
	rt_error err;
	assert_int_equal(rt_tsp_load(put(path, sizeof path, name, text), &t, &err), RT_ERR_INPUT);
	assert_msg(&err, path, suffix);
	assert_null(t.x);
	assert_int_equal(t.n, 0);
}

static void svm_fails(const char *name, const char *text, const char *suffix)
{
	char path[512];
	rt_table t;
	rt_sparse_table s;
	rt_error err;
	assert_int_equal(rt_libsvm_load(put(path, sizeof path, name, text), 0, &t, &err), RT_ERR_INPUT);
	assert_msg(&err, path, suffix);
	assert_null(t.cols);
	/* The sparse reader shares the line parser: the same message. */
	assert_int_equal(rt_libsvm_load_sparse(path, 0, 1 << 20, &s, &err), RT_ERR_INPUT);
	assert_msg(&err, path, suffix);
	assert_null(s.labels);
}

static void csv_fails(const char *name, const char *text, const rt_csv_options *o, const char *suffix)
{
	char path[512];
	rt_table t;
	rt_error err;
	assert_int_equal(rt_csv_load(put(path, sizeof path, name, text), o, &t, &err), RT_ERR_INPUT);
	assert_msg(&err, path, suffix);
	assert_null(t.cols);
	assert_int_equal(t.nrows, 0);
}

/* ---- TSPLIB instances ----------------------------------------------------- */

/* Every variant is the same square: cities (0,0) (3,0) (3,4) (0,4), EUC_2D,
 * named "sq" (the name's first token). */
static const struct { const char *name, *text; } square_variants[] = {
	{ "clean", "NAME : sq\nTYPE : TSP\nDIMENSION : 4\nEDGE_WEIGHT_TYPE : EUC_2D\n"
	           "NODE_COORD_SECTION\n1 0 0\n2 3 0\n3 3 4\n4 0 4\nEOF\n" },
	{ "notes after values", "NAME : sq (a square, by hand)\nTYPE: TSP (M.~Hofmeister)\n"
	                        "COMMENT : four cities : one square\nDIMENSION : 4 (four)\n"
	                        "EDGE_WEIGHT_TYPE : EUC_2D (rounded)\n"
	                        "NODE_COORD_SECTION\n1 0 0\n2 3 0\n3 3 4\n4 0 4\nEOF\n" },
	{ "colon spacing", "NAME:sq\nTYPE :TSP\nDIMENSION: 4\nEDGE_WEIGHT_TYPE :EUC_2D\n"
	                   "NODE_COORD_SECTION :\n1 0 0\n2 3 0\n3 3 4\n4 0 4\nEOF\n" },
	{ "lower case", "name : sq\ntype : tsp\ndimension : 4\nedge_weight_type : euc_2d\n"
	                "node_coord_section\n1 0 0\n2 3 0\n3 3 4\n4 0 4\neof\n" },
	{ "mixed case", "Name : sq\nType : Tsp\nDimension : 4\nEdge_Weight_Type : Euc_2d\n"
	                "Node_Coord_Section\n1 0 0\n2 3 0\n3 3 4\n4 0 4\nEof\n" },
	{ "CRLF, tabs, blanks", "NAME : sq   \r\n\r\nTYPE\t:\tTSP\t\r\n  DIMENSION : 4\r\n\r\n"
	                        "EDGE_WEIGHT_TYPE:EUC_2D \r\nNODE_COORD_SECTION\r\n"
	                        "1\t0\t0\r\n  2   3   0   \r\n\r\n3 3.0 4.0e0\r\n\t4 0 4\t\r\nEOF\r\n" },
	{ "stray CR", "NAME : sq\r\r\nTYPE : TSP\r\r\nDIMENSION : 4\r\r\nEDGE_WEIGHT_TYPE : EUC_2D\r\r\n"
	              "NODE_COORD_SECTION\r\r\n1 0 0\r\r\n2 3 0\r\r\n3 3 4\r\r\n4 0 4\r\r\nEOF\r\r\n" },
	{ "no EOF, no final newline", "NAME : sq\nTYPE : TSP\nDIMENSION : 4\nEDGE_WEIGHT_TYPE : EUC_2D\n"
	                              "NODE_COORD_SECTION\n1 0 0\n2 3 0\n3 3 4\n4 0 4" },
	{ "EOF repeated", "NAME : sq\nTYPE : TSP\nDIMENSION : 4\nEDGE_WEIGHT_TYPE : EUC_2D\n"
	                  "NODE_COORD_SECTION\n1 0 0\n2 3 0\n3 3 4\n4 0 4\nEOF\nEOF\n\nEOF\n" },
	{ "byte order mark", "\xEF\xBB\xBFNAME : sq\nTYPE : TSP\nDIMENSION : 4\nEDGE_WEIGHT_TYPE : EUC_2D\n"
	                     "NODE_COORD_SECTION\n1 0 0\n2 3 0\n3 3 4\n4 0 4\nEOF\n" },
	{ "cities out of order", "NAME : sq\nTYPE : TSP\nDIMENSION : 4\nEDGE_WEIGHT_TYPE : EUC_2D\n"
	                         "NODE_COORD_SECTION\n3 3 4\n1 0 0\n4 0 4\n2 3 0\nEOF\n" },
	{ "keys in another order", "DIMENSION : 4\nEDGE_WEIGHT_TYPE : EUC_2D\nTYPE : TSP\nNAME : sq\n"
	                           "NODE_COORD_SECTION\n1 0 0\n2 3 0\n3 3 4\n4 0 4\n" },
};

static void tsp_wild_variants(void **state)
{
	static const double x[4] = { 0, 3, 3, 0 }, y[4] = { 0, 0, 4, 4 };
	static const int tour[4] = { 0, 1, 2, 3 };
	char path[512], fname[64];
	rt_tsp t;
	rt_error err;
	(void)state;

	for (size_t v = 0; v < sizeof square_variants / sizeof square_variants[0]; v++) {
		snprintf(fname, sizeof fname, "square-%zu.tsp", v);
		put(path, sizeof path, fname, square_variants[v].text);
		if (rt_tsp_load(path, &t, &err) != RT_OK)
			fail_msg("variant '%s': %s", square_variants[v].name, err.msg);
		assert_string_equal(t.name, "sq");
		assert_int_equal(t.n, 4);
		assert_int_equal(t.metric, RT_TSP_EUC_2D);
		assert_null(t.z);
		assert_null(t.w);
		for (int i = 0; i < 4; i++)
			if (t.x[i] != x[i] || t.y[i] != y[i])
				fail_msg("variant '%s': city %d at (%g, %g), expected (%g, %g)", square_variants[v].name,
				         i + 1, t.x[i], t.y[i], x[i], y[i]);
		assert_int_equal(rt_tsp_distance(&t, 0, 1), 3);
		assert_int_equal(rt_tsp_distance(&t, 1, 2), 4);
		assert_int_equal(rt_tsp_distance(&t, 0, 2), 5);
		assert_int_equal(rt_tsp_tour_length(&t, tour), 14);
		rt_tsp_free(&t);
	}
}

/* EXPLICIT weights with lower-case keys, a note after the format, weights
 * wrapping across lines with tabs, CRLF, and no EOF. */
static void tsp_wild_explicit(void **state)
{
	/* Upper triangle by rows of 4 cities: d12 d13 d14 / d23 d24 / d34. */
	static const int want[16] = { 0, 3, 5, 4, 3, 0, 4, 5, 5, 4, 0, 3, 4, 5, 3, 0 };
	char path[512];
	rt_tsp t;
	rt_error err;
	(void)state;

	put(path, sizeof path, "explicit.tsp",
	    "name: ex4 (explicit)\r\ntype: tsp\r\ndimension: 4\r\nedge_weight_type: explicit (a matrix)\r\n"
	    "edge_weight_format: upper_row (rows)\r\nedge_weight_section\r\n 3\t5 \r\n\t4   4 5\r\n\r\n3\r\n");
	assert_int_equal(rt_tsp_load(path, &t, &err), RT_OK);
	assert_string_equal(t.name, "ex4");
	assert_int_equal(t.n, 4);
	assert_int_equal(t.metric, RT_TSP_EXPLICIT);
	assert_non_null(t.w);
	assert_memory_equal(t.w, want, sizeof want);
	rt_tsp_free(&t);

	/* A 3-D instance with a lower-case NODE_COORD_TYPE and a display section. */
	put(path, sizeof path, "euc3d.tsp",
	    "NAME : cube\nTYPE : TSP\nDIMENSION : 2\nEDGE_WEIGHT_TYPE : euc_3d\nnode_coord_type : threed_coords\n"
	    "DISPLAY_DATA_TYPE : TWOD_DISPLAY (drawn flat)\nnode_coord_section\n1 0 0 0\n2 2 3 6\n"
	    "display_data_section\n1 0 0\n2 1 1\neof\n");
	assert_int_equal(rt_tsp_load(path, &t, &err), RT_OK);
	assert_int_equal(t.metric, RT_TSP_EUC_3D);
	assert_non_null(t.z);
	assert_true(t.z[1] == 6.0);
	assert_int_equal(rt_tsp_distance(&t, 0, 1), 7);
	rt_tsp_free(&t);
}

static void tsp_wild_errors(void **state)
{
	const char *head = "NAME : sq\nTYPE : TSP\nDIMENSION : 4\nEDGE_WEIGHT_TYPE : EUC_2D\nNODE_COORD_SECTION\n";
	char text[1024];
	(void)state;

	tsp_fails("ewt.tsp", "NAME : x\nEDGE_WEIGHT_TYPE : EUC_4D (oops)\n",
	          ":2: EDGE_WEIGHT_TYPE EUC_4D is not supported (supported: EUC_2D, CEIL_2D, ATT, GEO, MAN_2D, "
	          "MAX_2D, EUC_3D, MAN_3D, MAX_3D, EXPLICIT)");
	tsp_fails("atsp.tsp", "NAME : x\ntype: ATSP (asymmetric)\n",
	          ":2: TYPE ATSP is not supported (only TSP, the symmetric travelling salesman problem)");
	tsp_fails("nodim.tsp", "NAME: x\nTYPE: TSP\nEDGE_WEIGHT_TYPE: EUC_2D\nnode_coord_section\n1 0 0\nEOF\n",
	          ":4: expected DIMENSION before node_coord_section");
	tsp_fails("dimword.tsp", "NAME: x\nDIMENSION : four (4)\n",
	          ":2:13: expected a number of cities from 1 to 10000000, got 'four'");
	tsp_fails("dimempty.tsp", "NAME: x\nDIMENSION :\n", ":2:12: expected a number of cities from 1 to 10000000, got ''");
	tsp_fails("typo.tsp", "NAME: x\nDIMENSOIN : 4\n",
	          ":2:1: expected a TSPLIB key (NAME, TYPE, COMMENT, DIMENSION, EDGE_WEIGHT_TYPE, ...), got 'DIMENSOIN'");
	tsp_fails("nocolon.tsp", "NAME sq\n", ":1:1: expected 'KEY : value' or a section name, got 'NAME sq'");
	snprintf(text, sizeof text, "%s1 0 0\n2 3 0\n3 3 4\nEOF\n", head);
	tsp_fails("few.tsp", text, ":9: expected 4 cities in NODE_COORD_SECTION (DIMENSION), got 3");
	snprintf(text, sizeof text, "%s1 0 0\n2 3 0\n3 3 4\n", head);
	tsp_fails("few-noeof.tsp", text, ":8: expected 4 cities in NODE_COORD_SECTION (DIMENSION), got 3");
	snprintf(text, sizeof text, "%s1 0 0\n2 3 0\n3 3 4\n4 0 4\n5 1 1\nEOF\n", head);
	tsp_fails("many.tsp", text, ":10:1: expected EOF or a section after the 4 cities of NODE_COORD_SECTION, got '5 1 1'");
	snprintf(text, sizeof text, "%s1 0 0\n2 3 zero\n", head);
	tsp_fails("word.tsp", text, ":7:5: expected the y coordinate of city 2, got 'zero'");
	snprintf(text, sizeof text, "%s1 0 0\n2 3,5 0\n", head);
	tsp_fails("comma.tsp", text, ":7:3: expected the x coordinate of city 2, got '3,5'");
	snprintf(text, sizeof text, "%s1 0 0\n2 3\n", head);
	tsp_fails("noy.tsp", text, ":7:4: expected the y coordinate of city 2, got ''");
	snprintf(text, sizeof text, "%s1 0 0\n2 3 0\n2 3 4\n", head);
	tsp_fails("dupid.tsp", text, ":8:1: expected each city once, got city 2 again");
	snprintf(text, sizeof text, "%s1 0 0\n5 3 0\n", head);
	tsp_fails("idrange.tsp", text, ":7:1: expected a city number from 1 to 4, got '5'");
	snprintf(text, sizeof text, "%s1 0 0 7\n", head);
	tsp_fails("extra.tsp", text, ":6:7: expected the end of the line after the coordinates of city 1, got '7'");
	tsp_fails("toursec.tsp", "NAME: x\nDIMENSION: 4\nEDGE_WEIGHT_TYPE: EUC_2D\ntour_section\n",
	          ":4: tour_section in a TSP instance is not supported (a tour belongs in a .tour file, read by rt_tsp_tour_read)");
	tsp_fails("nosec.tsp", "NAME: x\nDIMENSION: 4\nEDGE_WEIGHT_TYPE: EUC_2D\neof\n",
	          ": expected a NODE_COORD_SECTION, got none");
}

/* ---- TSPLIB tours --------------------------------------------------------- */

static void tour_wild(void **state)
{
	static const int want[4] = { 2, 0, 3, 1 };
	static const char *const texts[] = {
		"name : sq.tour (best)\ntype : tour (LKH-3)\ncomment : Length = 14\ndimension : 4 (four)\r\n"
		"tour_section\r\n3\t1\r\n 4  2 \r\n-1\r\neof\r\neof\r\n",
		"\xEF\xBB\xBFNAME:sq\nTYPE :TOUR\nDIMENSION: 4\nTOUR_SECTION:\n3\n1\n4\n2\n",
		"NAME : sq\r\r\nType : Tour\r\r\nDimension : 4\r\r\nTour_Section\r\r\n3 1 4 2 -1\r\r\nEof\r\r\n",
	};
	char path[512], fname[64];
	int *tour, n;
	rt_error err;
	(void)state;

	for (size_t v = 0; v < sizeof texts / sizeof texts[0]; v++) {
		snprintf(fname, sizeof fname, "sq-%zu.tour", v);
		put(path, sizeof path, fname, texts[v]);
		if (rt_tsp_tour_read(path, 0, &tour, &n, &err) != RT_OK)
			fail_msg("tour variant %zu: %s", v, err.msg);
		assert_int_equal(n, 4);
		assert_memory_equal(tour, want, sizeof want);
		free(tour);
		assert_int_equal(rt_tsp_tour_read(path, 4, &tour, &n, &err), RT_OK);
		free(tour);
	}
}

static void tour_wild_errors(void **state)
{
	char path[512];
	int *tour, n;
	rt_error err;
	(void)state;

	put(path, sizeof path, "type.tour", "name: t\ntype : tsp (wrong file)\n");
	assert_int_equal(rt_tsp_tour_read(path, 4, &tour, &n, &err), RT_ERR_INPUT);
	assert_msg(&err, path, ":2:8: expected TYPE TOUR, got 'tsp'");
	put(path, sizeof path, "dim.tour", "dimension : 5 (five)\n");
	assert_int_equal(rt_tsp_tour_read(path, 4, &tour, &n, &err), RT_ERR_INPUT);
	assert_msg(&err, path, ":1:13: expected DIMENSION 4 (the instance's), got 5");
	put(path, sizeof path, "dup.tour", "dimension: 4\r\ntour_section\r\n1 2\t2 4\r\n");
	assert_int_equal(rt_tsp_tour_read(path, 0, &tour, &n, &err), RT_ERR_INPUT);
	assert_msg(&err, path, ":3:5: expected each city once, got city 2 again");
	assert_null(tour);
}

/* ---- LIBSVM --------------------------------------------------------------- */

static void libsvm_wild(void **state)
{
	static const float labels[] = { 1, 1, 1, -1, 1, -1, -1, 1 };
	/* Dense values, row by row, of the 4 features. */
	static const float dense[][4] = {
		{ 0.5f, 0, 2, 0 }, { 0, 1.5f, 0, -1 }, { 1, 0, 0, 0 }, { 0, 3, 0, 0 },
		{ 0, 0, 0.25f, 10 }, { 0, 0, 0, 0 }, { 1, 0, 0, 0 }, { 0, 0, 0, 4 },
	};
	char path[512];
	rt_table t;
	rt_sparse_table s;
	rt_error err;
	(void)state;

	put(path, sizeof path, "wild.svm",
	    "# written by hand\n"
	    "+1 1:0.5 3:2\n"
	    "1\t2:1.5\t\t4:-1   \n"
	    "1.0 1:1 # a comment after the features\n"
	    "\n"
	    "-1 2:3e0\r\n"
	    "1e0  3:0.25 4:1E1\r\n"
	    "-1.0E+0\n"
	    "   \t\n"
	    "-1 1:1#no blank before it\n"
	    "  +1.  4:+4.0\t\r\n"
	    "# the end\n");
	assert_int_equal(rt_libsvm_load(path, 0, &t, &err), RT_OK);
	assert_int_equal(t.nrows, 8);
	assert_int_equal(t.ncols, 4);
	assert_true(t.has_label);
	for (size_t r = 0; r < 8; r++) {
		if (t.label[r] != labels[r])
			fail_msg("row %zu: label %g, expected %g", r, (double)t.label[r], (double)labels[r]);
		for (int c = 0; c < 4; c++)
			if (rt_table_at(&t, c, r) != dense[r][c])
				fail_msg("row %zu, feature %d: %g, expected %g", r, c + 1,
				         (double)rt_table_at(&t, c, r), (double)dense[r][c]);
	}
	rt_table_free(&t);

	/* The sparse reader: the same rows, only the entries given. */
	assert_int_equal(rt_libsvm_load_sparse(path, 0, 1 << 20, &s, &err), RT_OK);
	assert_int_equal(s.nrows, 8);
	assert_int_equal(s.ncols, 4);
	assert_int_equal(s.nnz, 10);
	assert_memory_equal(s.labels, labels, sizeof labels);
	assert_int_equal(s.ptr[5], 8);
	assert_int_equal(s.ptr[6], 8);   /* the row without features */
	assert_int_equal(s.col[8], 0);
	assert_int_equal(s.col[9], 3);
	assert_true(s.val[9] == 4.0f);
	rt_sparse_table_free(&s);
}

static void libsvm_wild_errors(void **state)
{
	(void)state;
	svm_fails("dup.svm", "+1 1:1 3:1\n-1 2:1 2:5 # twice\n",
	          ":2:8: expected an index above 2 (indices must ascend), got '2:5' (a repeated index)");
	svm_fails("unsorted.svm", "1 1:1\r\n1\t4:1\t2:1\r\n",
	          ":2:7: expected an index above 4 (indices must ascend), got '2:1'");
	svm_fails("zero.svm", "# zero-based\n1 0:1 1:2\n",
	          ":2:3: expected an index of 1 or more (indices are 1-based), got '0:1'");
	svm_fails("negative.svm", "1 1:1\n-1 -3:1\n",
	          ":2:4: expected an index of 1 or more (indices are 1-based), got '-3:1'");
	svm_fails("novalue.svm", "1 1:1 3:\n", ":1:9: expected a number after '3:', got ''");
	svm_fails("novalue2.svm", "1 1:1 3: 4:1\n", ":1:9: expected a number after '3:', got ''");
	svm_fails("noindex.svm", "1 :5\n", ":1:3: expected index:value, got ':5'");
	svm_fails("qid.svm", "1 qid:3 1:1\n", ":1:3: expected index:value with a whole-number index, got 'qid:3'");
	svm_fails("label.svm", "1 1:1\nyes 1:1\n", ":2:1: expected a label (a number), got 'yes'");
	svm_fails("labelmissing.svm", "1 1:1\n 2:1\n", ":2:2: expected a label (a number), got '2:1'");
	svm_fails("word.svm", "1 1:1\n1 2:one\n", ":2:5: expected a number after '2:', got 'one'");
	svm_fails("onlycomments.svm", "# one\n\n  # two\r\n", ": empty file: expected lines of 'label index:value ...'");
}

/* ---- CSV ------------------------------------------------------------------ */

/* Checks a 2-row table: inputs a = {1, 3}, b = {2, 4} and the label. */
static void check_ab(const rt_table *t, const char *a, const char *b)
{
	assert_int_equal(t->nrows, 2);
	assert_int_equal(t->ncols, 2);
	assert_string_equal(t->colnames[0], a);
	assert_string_equal(t->colnames[1], b);
	assert_true(rt_table_at(t, 0, 0) == 1.0f && rt_table_at(t, 0, 1) == 3.0f);
	assert_true(rt_table_at(t, 1, 0) == 2.0f && rt_table_at(t, 1, 1) == 4.0f);
	assert_int_equal(t->cats[0].n, 0);
	assert_int_equal(t->cats[1].n, 0);
}

/* Lines ending with the delimiter, as spreadsheets export them: an unnamed
 * last column empty on every row is dropped, and the label is the column
 * before it. */
static void csv_wild_trailing_column(void **state)
{
	static const struct { const char *name, *text; int header; } numeric[] = {
		{ "header and rows", "a,b,y,\n1,2,5,\n3,4,6,\n", 1 },
		{ "CRLF", "a,b,y,\r\n1,2,5,\r\n3,4,6,\r\n\r\n", 1 },
		{ "rows only", "a,b,y\n1,2,5,\n3,4,6,\n", 1 },
		{ "header only", "a,b,y,\n1,2,5\n3,4,6\n", 1 },
		{ "blanks after", "a , b , y ,  \n 1 , 2 , 5 ,\t\n3,4,6, \n", 1 },
		{ "quoted header", "\"a\",\"b\",\"y\",\"\"\n1,2,5,\n3,4,6,\n", 1 },
		{ "no header", "1,2,5,\n3,4,6,\n", 0 },
		{ "no header, some rows", "1,2,5,\n3,4,6\n", 0 },
	};
	char path[512], fname[64];
	rt_table t;
	rt_error err;
	rt_csv_options o = rt_csv_defaults();
	(void)state;

	for (size_t v = 0; v < sizeof numeric / sizeof numeric[0]; v++) {
		snprintf(fname, sizeof fname, "trail-%zu.csv", v);
		o.header = numeric[v].header;
		put(path, sizeof path, fname, numeric[v].text);
		if (rt_csv_load(path, &o, &t, &err) != RT_OK)
			fail_msg("variant '%s': %s", numeric[v].name, err.msg);
		check_ab(&t, o.header ? "a" : "x1", o.header ? "b" : "x2");
		assert_true(t.has_label);
		assert_string_equal(t.label_name, o.header ? "y" : "label");
		assert_true(t.label[0] == 5.0f && t.label[1] == 6.0f);
		rt_table_free(&t);
	}

	/* A string label; no label (-2): the empty column is still dropped. */
	o = rt_csv_defaults();
	put(path, sizeof path, "trail-class.csv", "a,b,class,\n1,2,yes,\n3,4,no,\n");
	assert_int_equal(rt_csv_load(path, &o, &t, &err), RT_OK);
	check_ab(&t, "a", "b");
	assert_int_equal(t.classes.n, 2);
	assert_string_equal(t.classes.names[0], "yes");
	assert_true(t.label[0] == 0.0f && t.label[1] == 1.0f);
	rt_table_free(&t);
	o.label_index = -2;
	put(path, sizeof path, "trail-nolabel.csv", "a,b,\n1,2,\n3,4,\n");
	assert_int_equal(rt_csv_load(path, &o, &t, &err), RT_OK);
	check_ab(&t, "a", "b");
	assert_false(t.has_label);
	rt_table_free(&t);
	/* The label by name or by index, with the trailing column. */
	o = rt_csv_defaults();
	o.label = "a";
	put(path, sizeof path, "trail-byname.csv", "a,b,c,\n5,1,2,\n6,3,4,\n");
	assert_int_equal(rt_csv_load(path, &o, &t, &err), RT_OK);
	check_ab(&t, "b", "c");
	assert_true(t.label[0] == 5.0f && t.label[1] == 6.0f);
	rt_table_free(&t);
	o = rt_csv_defaults();
	o.label_index = 0;
	assert_int_equal(rt_csv_load(path, &o, &t, &err), RT_OK);
	check_ab(&t, "b", "c");
	rt_table_free(&t);
}

/* Quotes, a byte order mark, CRLF, blanks around numbers, tabs, blank and
 * delimiter-only lines at the end. */
static void csv_wild_quotes_and_blanks(void **state)
{
	char path[512];
	rt_table t;
	rt_error err;
	rt_csv_options o = rt_csv_defaults();
	(void)state;

	put(path, sizeof path, "quotes.csv",
	    "\xEF\xBB\xBFname,\"x, y\",\"z\",kind\r\n"
	    "\"Smith, J.\",  1.5 ,\"2\",\"say \"\"hi\"\"\"\r\n"
	    "\"\"\"quoted\"\"\",\t-3\t, \"4e1\" ,plain\r\n"
	    "plain, 0 ,0,\"a,b\"\r\n"
	    "\r\n"
	    ",,,\r\n"
	    " , ,\t,\r\n"
	    "\r\n");
	assert_int_equal(rt_csv_load(path, &o, &t, &err), RT_OK);
	assert_int_equal(t.nrows, 3);
	assert_int_equal(t.ncols, 3);
	assert_string_equal(t.colnames[0], "name");
	assert_string_equal(t.colnames[1], "x, y");
	assert_string_equal(t.colnames[2], "z");
	assert_string_equal(t.label_name, "kind");
	assert_int_equal(t.cats[0].n, 3);
	assert_string_equal(t.cats[0].names[0], "Smith, J.");
	assert_string_equal(t.cats[0].names[1], "\"quoted\"");
	assert_string_equal(t.cats[0].names[2], "plain");
	assert_true(rt_table_at(&t, 1, 0) == 1.5f && rt_table_at(&t, 1, 1) == -3.0f && rt_table_at(&t, 1, 2) == 0.0f);
	assert_true(rt_table_at(&t, 2, 0) == 2.0f && rt_table_at(&t, 2, 1) == 40.0f && rt_table_at(&t, 2, 2) == 0.0f);
	assert_int_equal(t.classes.n, 3);
	assert_string_equal(t.classes.names[0], "say \"hi\"");
	assert_string_equal(t.classes.names[2], "a,b");
	assert_true(t.label[2] == 2.0f);
	rt_table_free(&t);

	/* Tab-separated with blanks around numbers and an empty trailing column. */
	o.delimiter = '\t';
	put(path, sizeof path, "tabs.tsv", "a\tb\ty\t\n 1 \t2\t5\t\n3 \t 4\t6\t\n\t\t\t\n");
	assert_int_equal(rt_csv_load(path, &o, &t, &err), RT_OK);
	check_ab(&t, "a", "b");
	assert_true(t.label[0] == 5.0f && t.label[1] == 6.0f);
	rt_table_free(&t);
}

static void csv_wild_errors(void **state)
{
	rt_csv_options o = rt_csv_defaults();
	(void)state;

	csv_fails("first.csv", "a,b,c\n1,,3\n", NULL,
	          ":2:3: expected a value in column 'b', got an empty field (missing values are not supported)");
	csv_fails("later.csv", "a,b,c\r\n1,2,3\r\n4, ,6\r\n", NULL,
	          ":3:3: expected a number in column 'b', got an empty field (missing values are not supported)");
	csv_fails("string.csv", "a,b\nx,1\n,2\n", NULL,
	          ":3:1: expected a value in column 'a', got an empty field (missing values are not supported)");
	csv_fails("quoted.csv", "a,b\nx,1\n\"\",2\n", NULL,
	          ":3:1: expected a value in column 'a', got an empty field (missing values are not supported)");
	csv_fails("label.csv", "a,b,y\n1,2,3\n4,5,\n", NULL,
	          ":3:5: expected a number in column 'y', got an empty field (missing values are not supported)");
	csv_fails("named-empty.csv", "a,b,y\n1,2,\n3,4,\n", NULL,
	          ":2:5: expected a value in column 'y', got an empty field (missing values are not supported)");
	csv_fails("some-rows.csv", "a,b,\n1,2,\n3,4,5\n", NULL,
	          ":2:5: expected a value in column 'x3', got an empty field (missing values are not supported; line 3 has one there)");
	csv_fails("some-rows2.csv", "a,b,\n1,2,5\n3,4,\n", NULL,
	          ":3:5: expected a number in column 'x3', got an empty field (missing values are not supported)");
	csv_fails("some-rows3.csv", "a,b,\n1,2\n3,4,5\n", NULL,
	          ":2:4: expected a value in column 'x3', got an empty field (missing values are not supported; line 3 has one there)");
	csv_fails("two-commas.csv", "a,b\n1,2,,\n", NULL, ":2: expected 2 fields, got 4");
	csv_fails("extra.csv", "a,b\n1,2,3\n", NULL, ":2: expected 2 fields, got 3");
	csv_fails("short.csv", "a,b,c\n1,2\n", NULL, ":2: expected 3 fields, got 2");
	csv_fails("only-empty.csv", "a,b\n,,\n , \n", NULL, ": expected data rows after the header, got none");
	o.header = 0;
	csv_fails("noheader.csv", "1,2,3\n4,,6\n", &o,
	          ":2:3: expected a number in column 2, got an empty field (missing values are not supported)");
	csv_fails("noheader-word.csv", "1,2,3\n4,x,6\n", &o, ":2:3: expected a number in column 2, got 'x'");
	o = rt_csv_defaults();
	o.label_index = 2;
	csv_fails("label-empty.csv", "a,b,\n1,2,\n3,4,\n", &o,
	          ":2:5: expected values in the label column (column 3), got an empty field on every row");
}

/* Header detection (svm's header = auto reads the first line as names and
 * reads again without a header when one of them is a number) with the
 * variants above. */
static void csv_wild_header_detection(void **state)
{
	char path[512];
	rt_table t;
	rt_error err;
	svm_load_options o = svm_load_defaults();
	svm_data d;
	(void)state;

	put(path, sizeof path, "detect.csv", "\xEF\xBB\xBF" "1,2,+1,\r\n3,4,-1,\r\n,,,\r\n");
	assert_int_equal(rt_csv_load(path, NULL, &t, &err), RT_OK);
	assert_int_equal(t.nrows, 1);
	assert_int_equal(t.ncols, 2);
	assert_string_equal(t.colnames[0], "1");   /* what the detection looks at */
	rt_table_free(&t);
	assert_int_equal(svm_data_load(path, &o, &d, &err), RT_OK);
	assert_int_equal(d.n, 2);
	assert_int_equal(d.nfeat, 2);
	assert_true(d.x[0] == 1.0f && d.x[1] == 2.0f && d.x[2] == 3.0f && d.x[3] == 4.0f);
	assert_true(d.y[0] == 1.0 && d.y[1] == -1.0);
	svm_data_free(&d);

	/* A real header with a trailing empty column stays a header. */
	put(path, sizeof path, "detect-named.csv", "\"f1\",f2,y,\r\n1,2,1,\r\n3,4,-1,\r\n");
	assert_int_equal(svm_data_load(path, &o, &d, &err), RT_OK);
	assert_int_equal(d.n, 2);
	assert_int_equal(d.nfeat, 2);
	assert_true(d.y[0] == 1.0 && d.y[1] == -1.0);
	svm_data_free(&d);
}

static int setup(void **state)
{
	(void)state;
	return tmp_setup("data-wild");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(tsp_wild_variants),
		cmocka_unit_test(tsp_wild_explicit),
		cmocka_unit_test(tsp_wild_errors),
		cmocka_unit_test(tour_wild),
		cmocka_unit_test(tour_wild_errors),
		cmocka_unit_test(libsvm_wild),
		cmocka_unit_test(libsvm_wild_errors),
		cmocka_unit_test(csv_wild_trailing_column),
		cmocka_unit_test(csv_wild_quotes_and_blanks),
		cmocka_unit_test(csv_wild_errors),
		cmocka_unit_test(csv_wild_header_detection),
	};
	return cmocka_run_group_tests_name("data_wild", tests, setup, tmp_teardown);
}
