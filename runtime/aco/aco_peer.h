/* aco_peer.h: runs a built GPU-based MMAS (Skinderowicz, FGCS 2020) on a
 * TSPLIB instance for `bench aco --peer` (aco_peer.c). */
#ifndef RT_ACO_PEER_H
#define RT_ACO_PEER_H

#include <stdint.h>

#include "error.h"

#define ACO_PEER_MAX_TRIALS 64

typedef struct aco_peer_result {
	int trials;
	long long length[ACO_PEER_MAX_TRIALS];   /* each trial's final tour length */
	double seconds[ACO_PEER_MAX_TRIALS];     /* each trial's time as the peer measures it */
	double process_seconds;                  /* the whole process, all trials */
} aco_peer_result;

/* Runs `peer --instance=tsp_path --alg=alg --iter=iterations --trials=trials
 * --ants=0 --ls=0 --seed=seed` (ants = cities, no local search) and reads
 * its results. */
rt_status aco_peer_run(const char *peer, const char *alg, const char *tsp_path, long iterations,
		       int trials, uint64_t seed, aco_peer_result *r, rt_error *err);

#endif
