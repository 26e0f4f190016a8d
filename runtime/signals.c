/* signals.c: SIGINT/SIGTERM set a stop flag the kinds poll between steps;
 * a second one ends the process at once; SIGXFSZ is ignored so that
 * writes past the file-size limit fail with EFBIG (signals.h). */
#include <signal.h>
#include <string.h>
#include <unistd.h>

#include "comm.h"
#include "out.h"
#include "signals.h"

static volatile sig_atomic_t stop_signal;
static volatile sig_atomic_t adopted_signal;   /* another rank's (rt_stop_adopt) */
static volatile sig_atomic_t caller_stop;      /* the C API's caller's (rt_stop_caller_request) */

static void on_stop_signal(int signo)
{
	if (stop_signal) {
		/* the second one: leave now, with the shell's status for it */
		_exit(128 + signo);
	}
	stop_signal = signo;
}

void rt_signals_install(void)
{
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_stop_signal;
	sigemptyset(&sa.sa_mask);
	sa.sa_flags = SA_RESTART;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	rt_signals_ignore_file_size();
}

void rt_signals_ignore_file_size(void)
{
	signal(SIGXFSZ, SIG_IGN);
}

int rt_stop_requested(void)
{
	if (stop_signal)
		return stop_signal;
	if (adopted_signal)
		return adopted_signal;
	return caller_stop ? RT_STOP_CALLER : 0;
}

void rt_stop_caller_request(void) { caller_stop = 1; }
void rt_stop_caller_clear(void) { caller_stop = 0; }

void rt_stop_adopt(int signo)
{
	if (signo > 0 && !adopted_signal)
		adopted_signal = signo;
}

rt_status rt_stop_agree(int *signo, rt_error *err)
{
	double v = *signo;
	rt_status st = rt_comm_max_double(&v, err);
	if (st == RT_OK) {
		*signo = (int)v;
		rt_stop_adopt(*signo);
	}
	return st;
}

const char *rt_stop_signal_name(void)
{
	int signo = rt_stop_requested();
	if (signo == RT_STOP_CALLER)
		return "callback";
	return signo == SIGINT ? "SIGINT" : signo == SIGTERM ? "SIGTERM" : NULL;
}

void rt_json_interrupted(rt_json *j)
{
	if (!rt_stop_requested())
		return;
	rt_json_bool(j, "interrupted", 1);
	rt_json_string(j, "stopped_by", rt_stop_signal_name());
}

#if defined(RT_TESTS)
void rt_stop_request_for_test(int signo)
{
	stop_signal = signo;
	adopted_signal = 0;
}
#endif
