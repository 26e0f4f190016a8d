/* gp_eval.cu: placeholder until the template lands. */
