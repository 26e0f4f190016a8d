/* de_tune.h: kind de's tuning hooks for `evoforge tune` (runtime/tune.h):
 * GPU variant, pop_memory, block, streams, persistent (and state_memory
 * for the adaptive strategies); CPU threads. */
#ifndef RT_DE_TUNE_H
#define RT_DE_TUNE_H

#include "tune.h"

extern const rt_tune_kind de_tune_kind;

#endif
