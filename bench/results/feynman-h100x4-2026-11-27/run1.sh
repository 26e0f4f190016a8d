#!/bin/bash
# session 17 device run 1 (nvidia-h100-x4): Feynman, all 100 equations: evoforge GPU A/B of optimise_constants at 2 s, noise
# runs at 5 s; Operon (20 s, 8 threads, noise 0) on the host's CPUs alongside.
# (bash bench/results/feynman-h100x4-2026-11-27/run1.sh from the repository root)
WORK=/tmp/w
source "$(dirname "$0")/common.sh"
# Operon on 6 x 8 threads, in the background
( shards op20 6 --methods operon --time-limit 20 --threads 8 ) &
OP=$!
EV="--methods evoforge --backend gpu --threads 2 --population 10000"
for k in 0 30 100; do
	shards ev2k$k 8 $EV --time-limit 2 --set gp.optimise_constants=$k
done
# the noise runs take the A/B's best (most runs with test R^2 > 0.999)
K=$(python3 - "$OUT" <<'P'
import json, sys
best = max((sum(1 for l in open(f"{sys.argv[1]}/ev2k{k}.jsonl") if json.loads(l).get("r2", 0) > 0.999), -k, k) for k in (0, 30, 100))
print(best[2])
P
)
echo "noise runs: optimise_constants = $K"
for nz in 0.001 0.01 0.1; do
	shards ev5n$nz 8 $EV --time-limit 5 --noise $nz --set gp.optimise_constants=$K
done
wait $OP
grep -h error $OUT/*.jsonl | head -5
date -u
pack
