/* aco_peer.c: runs a built copy of Skinderowicz's GPU-based MMAS (the peer
 * `bench aco --peer PATH` compares against; tools/build-gpu-mmas builds it)
 * on one TSPLIB instance and reads back what it measured: each trial's
 * final tour length and time from the JSON file it writes. The peer reads
 * best-known.json from its working folder, so it runs in the folder of its
 * binary; its output goes to a log in a fresh temporary folder, which is
 * removed afterwards unless the run fails (then the error names the log). */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "aco_peer.h"
#include "json_read.h"
#include "log.h"
#include "out.h"

/* The child: into the binary's folder, output to the log, exec. */
static void exec_peer(const char *peer, char *const *args, const char *log)
{
	char dir[RT_PATH_MAX];
	snprintf(dir, sizeof dir, "%s", peer);
	int fd = open(log, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd < 0 || chdir(dirname(dir)) != 0 || dup2(fd, 1) < 0 || dup2(fd, 2) < 0)
		_exit(126);
	execv(peer, args);
	_exit(127);
}

/* Runs the peer with args; its exit status must be 0. */
static rt_status spawn(const char *peer, char *const *args, const char *log, rt_error *err)
{
	int status;
	fflush(stdout);
	pid_t pid = fork();
	if (pid < 0)
		return rt_fail(err, RT_ERR_SYSTEM, "bench aco: --peer: fork: %s", strerror(errno));
	if (pid == 0)
		exec_peer(peer, args, log);
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return rt_fail(err, RT_ERR_SYSTEM, "bench aco: --peer: waitpid: %s", strerror(errno));
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
		return rt_fail(err, RT_ERR_INPUT, "bench aco: --peer %s failed (%s %d); its output: %s",
			       peer, WIFEXITED(status) ? "exit" : "signal",
			       WIFEXITED(status) ? WEXITSTATUS(status) : WTERMSIG(status), log);
	return RT_OK;
}

/* The one results file (*.json) the peer wrote under dir. */
static rt_status find_results(const char *dir, char *path, size_t size, rt_error *err)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	path[0] = 0;
	if (!d)
		return rt_fail(err, RT_ERR_SYSTEM, "bench aco: --peer: %s: %s", dir, strerror(errno));
	while ((e = readdir(d)) != NULL) {
		size_t len = strlen(e->d_name);
		if (len > 5 && !strcmp(e->d_name + len - 5, ".json"))
			snprintf(path, size, "%s/%s", dir, e->d_name);
	}
	closedir(d);
	if (!path[0])
		return rt_fail(err, RT_ERR_INPUT, "bench aco: --peer wrote no results file under %s", dir);
	return RT_OK;
}

/* trials[k]."final-solution-cost" and ."total-time" into the result. */
static rt_status read_trials(const char *path, aco_peer_result *r, rt_error *err)
{
	rt_jval doc;
	const rt_jval *trials;
	rt_status st = rt_jload(path, &doc, err);
	if (st != RT_OK)
		return st;
	if ((st = rt_jarray(&doc, "trials", path, &trials, err)) == RT_OK) {
		r->trials = trials->n < ACO_PEER_MAX_TRIALS ? trials->n : ACO_PEER_MAX_TRIALS;
		for (int k = 0; st == RT_OK && k < r->trials; k++) {
			double cost;
			if ((st = rt_jnumber(&trials->items[k], "final-solution-cost", path, &cost,
					     err)) == RT_OK)
				st = rt_jnumber(&trials->items[k], "total-time", path, &r->seconds[k], err);
			r->length[k] = (long long)cost;
		}
	}
	rt_jfree(&doc);
	return st;
}

/* Removes the peer's scratch folder (its log and results file). */
static void remove_scratch(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	char path[RT_PATH_MAX + 300];
	if (!d)
		return;
	while ((e = readdir(d)) != NULL)
		if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..")) {
			snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
			remove(path);
		}
	closedir(d);
	rmdir(dir);
}

rt_status aco_peer_run(const char *peer, const char *alg, const char *tsp_path, long iterations,
		       int trials, uint64_t seed, aco_peer_result *r, rt_error *err)
{
	char dir[] = "/tmp/evoforge-peer-XXXXXX", log[64], results[RT_PATH_MAX + 300];
	char a_inst[RT_PATH_MAX + 16], a_alg[128], a_iter[48], a_trials[48], a_seed[48], a_dir[64];
	memset(r, 0, sizeof *r);
	if (access(peer, X_OK) != 0)
		return rt_fail(err, RT_ERR_INPUT, "bench aco: --peer %s: not an executable file (%s)",
			       peer, strerror(errno));
	if (!mkdtemp(dir))
		return rt_fail(err, RT_ERR_SYSTEM, "bench aco: --peer: mkdtemp: %s", strerror(errno));
	snprintf(log, sizeof log, "%s/peer.log", dir);
	snprintf(a_inst, sizeof a_inst, "--instance=%s", tsp_path);
	snprintf(a_alg, sizeof a_alg, "--alg=%s", alg);
	snprintf(a_iter, sizeof a_iter, "--iter=%ld", iterations);
	snprintf(a_trials, sizeof a_trials, "--trials=%d", trials);
	snprintf(a_seed, sizeof a_seed, "--seed=%llu", (unsigned long long)(seed ? seed : 1));
	snprintf(a_dir, sizeof a_dir, "--results-dir=%s", dir);
	char *args[] = { (char *)peer, a_inst, a_alg, a_iter, a_trials, "--ants=0", "--ls=0",
			 a_seed, a_dir, NULL };
	double t0 = rt_now();
	rt_status st = spawn(peer, args, log, err);
	r->process_seconds = rt_now() - t0;
	if (st == RT_OK && (st = find_results(dir, results, sizeof results, err)) == RT_OK)
		st = read_trials(results, r, err);
	if (st == RT_OK)
		remove_scratch(dir);
	return st;
}
