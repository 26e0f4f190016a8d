/* json_read.h: a small JSON reader for the files evoforge writes itself
 * (result.json): the whole document as a tree of values, looked up by key.
 * Errors name the file, the line and what was expected. */
#ifndef RT_JSON_READ_H
#define RT_JSON_READ_H

#include <stddef.h>

#include "error.h"

typedef enum rt_jtype {
	RT_JNULL, RT_JBOOL, RT_JNUMBER, RT_JSTRING, RT_JARRAY, RT_JOBJECT
} rt_jtype;

/* One value. Arrays and objects own n items (objects: each with its key). */
typedef struct rt_jval {
	rt_jtype type;
	int line;               /* where the value starts (1-based) */
	double num;             /* RT_JNUMBER; RT_JBOOL: 0 or 1 */
	char *str;              /* RT_JSTRING (UTF-8, escapes decoded) */
	char *key;              /* member name inside an object, else NULL */
	struct rt_jval *items;  /* RT_JARRAY, RT_JOBJECT */
	int n;
} rt_jval;

/* Parses text (NUL-terminated) into out; `path` names it in errors
 * ("PATH:LINE: expected ..., got ..."), which are RT_ERR_INPUT. */
rt_status rt_jparse(const char *text, const char *path, rt_jval *out, rt_error *err);
/* Reads and parses a file. */
rt_status rt_jload(const char *path, rt_jval *out, rt_error *err);
void rt_jfree(rt_jval *v);

/* Member `key` of an object, or a dotted path ("best.fitness"); NULL if absent
 * or v is not an object. */
const rt_jval *rt_jget(const rt_jval *v, const char *path);
/* The member at `path` as a string / number / array; RT_ERR_INPUT naming the
 * file, the key and the type expected when it is absent or of another type. */
rt_status rt_jstring(const rt_jval *v, const char *path, const char *file, const char **out,
		     rt_error *err);
rt_status rt_jnumber(const rt_jval *v, const char *path, const char *file, double *out,
		     rt_error *err);
rt_status rt_jarray(const rt_jval *v, const char *path, const char *file, const rt_jval **out,
		    rt_error *err);

#endif
