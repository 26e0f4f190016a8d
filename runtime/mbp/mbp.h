/* mbp.h: kind `mbp`, multiple back-propagation (MFF networks with selective
 * activation, and plain BP), as the kind table sees it. */
#ifndef RT_MBP_H
#define RT_MBP_H

#include "kinds.h"

extern const rt_kind mbp_kind;

#endif
