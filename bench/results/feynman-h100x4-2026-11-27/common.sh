#!/bin/bash
# common.sh: the set-up the three device runs share (sourced by run1-3.sh,
# each run from the repository root with .carry/ carried: the pyoperon
# wheel, cmocka, build/evoforge). WORK is the run's scratch folder; the
# results are packed into $OUT/r.tgz at the end (the device brings back at
# most 8 files).
set -u
REAL_OUT=$OUT; OUT=$WORK; mkdir -p $OUT
export LD_LIBRARY_PATH=$PWD/.carry/lib
export EVOFORGE_CACHE=/tmp/kc PYTHONUNBUFFERED=1
python3 -m pip install -q --upgrade --no-index --no-deps --no-compile --no-cache-dir --target /tmp/site .carry/whl/*.whl && export PYTHONPATH=/tmp/site
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; nproc; lscpu | grep "Model name"; date -u
NG=$(nvidia-smi -L | wc -l)
F="python3 tools/feynman --seeds 1 --defer-check"
# shards NAME STREAMS ARGS...: the 100 equations in STREAMS shards, GPU i % NG
shards() {
	local name=$1 n=$2; shift 2
	local per=$(( (100 + n - 1) / n )) pids=()
	for ((i = 0; i < n; i++)); do
		CUDA_VISIBLE_DEVICES=$((i % NG)) $F --start $((i * per)) --first $per "$@" \
			--jsonl $OUT/$name.$i.jsonl > $OUT/$name.$i.log 2>&1 &
		pids+=($!)
	done
	wait "${pids[@]}"
	cat $OUT/$name.*.jsonl > $OUT/$name.jsonl; rm -f $OUT/$name.*.jsonl
	echo "$name: $(wc -l < $OUT/$name.jsonl) runs, $(date -u +%T)"
}
# pack: the run's jsonl files and logs into $OUT/r.tgz
pack() {
	(cd $OUT && tar czf $REAL_OUT/r.tgz *.jsonl *.log)
}
