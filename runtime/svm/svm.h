/* svm.h: kind `svm`, C-SVC training by SMO, as the kind table sees it. */
#ifndef RT_SVM_H
#define RT_SVM_H

#include "kinds.h"

extern const rt_kind svm_kind;

#endif
