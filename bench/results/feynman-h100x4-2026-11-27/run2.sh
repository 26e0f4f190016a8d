#!/bin/bash
# session 17 device run 2 (nvidia-h100-x4): Feynman, all 100 equations: evoforge GPU at 60 s a problem (3 problems to a GPU at
# once); Operon (20 s, 8 threads, noise 0.01) on the host's CPUs alongside.
# (bash bench/results/feynman-h100x4-2026-11-27/run2.sh from the repository root)
WORK=/tmp/w2
source "$(dirname "$0")/common.sh"
( shards op20n0.01 5 --methods operon --time-limit 20 --threads 8 --noise 0.01 ) &
OP=$!
EV="--methods evoforge --backend gpu --threads 2 --population 10000"
shards ev60 12 $EV --time-limit 60 --set gp.optimise_constants=0
wait $OP
grep -h error $OUT/*.jsonl | head -5
date -u
pack
