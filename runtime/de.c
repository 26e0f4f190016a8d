/* de.c: placeholder until the module lands. */
#include "de.h"
const rt_kind de_kind = { "de", "(not built yet)", NULL, NULL, NULL, NULL };
