#!/bin/bash
# session 17 device run 3 (nvidia-h100-x1, its CPUs only): Feynman, all
# 100 equations, head to head on the same CPU: evoforge --backend cpu
# and Operon, 10 s a problem, 2 threads each, 4 shards of each at once (16 threads).
# (bash bench/results/feynman-h100x4-2026-11-27/run3.sh from the repository root)
WORK=/tmp/w3
source "$(dirname "$0")/common.sh"
( shards opcpu10 4 --methods operon --time-limit 10 --threads 2 ) &
OP=$!
shards evcpu10 4 --methods evoforge --backend cpu --threads 2 --time-limit 10
wait $OP
grep -h error $OUT/*.jsonl | head -5
date -u
pack
