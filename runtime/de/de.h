/* de.h: kind `de`, differential evolution (spec [problem] kind = de). */
#ifndef RT_DE_H
#define RT_DE_H

#include "kinds.h"

extern const rt_kind de_kind;

#endif
