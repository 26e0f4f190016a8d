/* svm_tune.h: kind svm's tuning hooks for `evoforge tune` (runtime/tune.h):
 * GPU kernels (persistent or roles), kernel-row cache size and persistent
 * blocks per SM; CPU kernel-row cache size and threads. */
#ifndef RT_SVM_TUNE_H
#define RT_SVM_TUNE_H

#include "svm_impl.h"
#include "tune.h"

extern const rt_tune_kind svm_tune_kind;

/* The prune check of a GPU configuration without a GPU: compiles the solver
 * for p (kernel type, selection rule) and nfeat features for arch (kernel
 * cache) and sets *ok = 0 with why when the kernel p->gpu_roles launches
 * most (svm_persistent, or svm_row for the roles) spills registers or needs
 * more than regs_per_block of them (0: not checked). */
rt_status svm_tune_check(const svm_params *p, int nfeat, const char *arch, int regs_per_block,
			 int *ok, char *why, int size, rt_error *err);

#endif
