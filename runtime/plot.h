/* plot.h: `evoforge plot`: a run's convergence plot (RESULT_DIR/history.csv
 * drawn by gnuplot as a PNG), and the gnuplot helpers it uses. */
#ifndef RT_PLOT_H
#define RT_PLOT_H

#include "error.h"
#include "out.h"

/* Draws dir's convergence plot into png (NULL: dir/convergence.png) from
 * dir/history.csv, with the kind, name and optimum of dir/result.json
 * (when present): per generation (iteration) the best and mean (gp: and
 * the program sizes on a second axis; de: of the problems' best; aco: the
 * best tour, with the gap to the optimum in % on a second axis when it is
 * known). A missing folder or file, a malformed history (FILE:LINE) or no
 * gnuplot on PATH is RT_ERR_INPUT. The PNG is written under a temporary
 * name and renamed. */
rt_status rt_plot_convergence(const char *dir, const char *png, rt_error *err);

/* Is `name` an executable file in a folder of $PATH? */
int rt_plot_on_path(const char *name);
/* s as a gnuplot single-quoted string ('' stands for '), appended to b. */
void rt_plot_quote(rt_buf *b, const char *s);
/* Runs gnuplot on script (written to a temporary file, removed after);
 * `what` names the plot in errors. */
rt_status rt_plot_run(const rt_buf *script, const char *what, rt_error *err);
/* rt_plot_run on a script that writes the PNG to tmp, which then becomes
 * png (renamed; removed when anything failed). */
rt_status rt_plot_png(const rt_buf *script, const char *tmp, const char *png, const char *what,
		      rt_error *err);

#endif
