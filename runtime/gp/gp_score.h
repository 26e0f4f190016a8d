/* gp_score.h: one program scored on a table of cases after a run (the best
 * program on the training and the held-out cases): accuracy, per-class
 * accuracy and the confusion matrix for classification, the MSE for
 * regression. The outputs come from the runtime's CPU interpreter
 * (gp_eval_cpu_outputs) and the class of an output is gp_class_of, the very
 * mapping the fitness uses, so a program's misclassified count here equals
 * its fitness on the same cases. */
#ifndef RT_GP_SCORE_H
#define RT_GP_SCORE_H

#include <stddef.h>

#include "error.h"
#include "gp_prog.h"
#include "gp_tree.h"

typedef struct gp_score {
	int fitness;          /* enum gp_fitness_kind of the cases (MSE or CLASS) */
	size_t ncases;
	double mse;           /* GP_FIT_MSE: mean of gp_sq_err, summed in double in case
	                         order; +inf when not finite */
	long wrong;           /* GP_FIT_CLASS: misclassified cases (= the fitness) */
	double accuracy;      /* GP_FIT_CLASS: 1 - wrong / ncases */
	int nclasses;
	long *confusion;      /* nclasses x nclasses, row = true class, column = predicted */
	long *unclassified;   /* nclasses: cases of each true class whose output was NaN */
} gp_score;

/* Scores program prog on cases (float problems; RT_ERR_UNSUPPORTED for
 * Boolean ones). s is overwritten; free it with gp_score_free. */
rt_status gp_score_program(const gp_tree *prog, const gp_cases *cases, gp_score *s,
			   rt_error *err);
/* One-vs-rest ([gp] multiclass = one-vs-rest, gp_ovr.h): the class of a
 * case is the index of the largest of the K programs' outputs v[0..k-1];
 * ties go to the lowest class and a NaN output counts as -inf (all NaN:
 * class 0). */
int gp_argmax_class(const float *v, int k);
/* cls[r] for every case: the K programs' outputs from the CPU interpreter,
 * then gp_argmax_class. */
rt_status gp_argmax_classes(const gp_tree *progs, int k, const gp_cases *cases, int *cls,
			    rt_error *err);
/* The combined classifier of progs[0..k-1] scored as gp_score_program
 * scores one program (cases->nclasses must be k; no case is unclassified). */
rt_status gp_score_argmax(const gp_tree *progs, int k, const gp_cases *cases, gp_score *s,
			  rt_error *err);
/* Cases of true class c (row c of the confusion matrix and its NaN outputs). */
long gp_score_class_total(const gp_score *s, int c);
/* Accuracy on true class c (recall), or NaN when the class has no case. */
double gp_score_class_accuracy(const gp_score *s, int c);
void gp_score_free(gp_score *s);

struct rt_json;
/* The score as the members of the current JSON object: cases, then mse, or
 * accuracy, wrong, per_class_accuracy (null for a class with no case),
 * confusion (rows true class, columns predicted) and unclassified (NaN
 * outputs per true class). */
void gp_score_json(struct rt_json *j, const gp_score *s);
/* Prints the train and test scores through rt_info: accuracy or MSE; for
 * classification per-class accuracy on both and the test confusion matrix,
 * classes named by class_names (NULL: by index). */
void gp_score_print(const gp_score *train, const gp_score *test, char *const *class_names);

#endif
