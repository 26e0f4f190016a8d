/* api_de.c: the C API's smallest use -- differential evolution on a shifted
 * Rastrigin function, from spec text, on the CPU (docs/c-api.md).
 * Build: ninja build/examples/api_de; run: build/examples/api_de */
#include <stdio.h>

#include "evoforge.h"

static void show(evoforge_log_level level, const char *line, void *user)
{
	(void)user;
	printf("%s%s\n", level == EVOFORGE_LOG_WARNING ? "warning: " : "  ", line);
}

int main(void)
{
	const char *spec = "[problem]\nkind = de\nseed = 7\n"
			   "[de]\nfunction = rastrigin\ndim = 10\ngenerations = 300\n";
	evoforge_job *job = NULL;
	double best;
	evoforge_status st = evoforge_job_from_text(spec, &job);
	if (st == EVOFORGE_OK)
		st = evoforge_job_set_backend(job, "cpu");
	if (st == EVOFORGE_OK)
		st = evoforge_job_set(job, "de.population", "40");
	if (st == EVOFORGE_OK)
		st = evoforge_job_set_log(job, show, NULL);
	if (st == EVOFORGE_OK)
		st = evoforge_job_run(job);
	if (st == EVOFORGE_OK)
		st = evoforge_job_best(job, &best);
	if (st == EVOFORGE_OK)
		printf("evoforge %s: best %.6g\n", evoforge_version(), best);
	else
		fprintf(stderr, "api_de: %s: %s\n", evoforge_status_name(st), evoforge_job_error(job));
	evoforge_job_free(job);
	return st == EVOFORGE_OK ? 0 : 1;
}
