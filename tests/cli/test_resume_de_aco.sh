# test_resume_de_aco.sh: checkpoints and --resume for kinds de and aco on
# the CPU backend. For each kind: a run writing checkpoints (shorter
# stretches of work) ends as the uninterrupted run; resuming from its
# mid-run checkpoint ends as the uninterrupted run; runs killed with SIGKILL
# at random points and resumed, again and again, end with the uninterrupted
# run's result.json (timings aside), history and (aco) best tour; a run
# stopped by SIGTERM exits 3, leaves a checkpoint, and the resume finishes
# the run as the uninterrupted one; truncated, damaged, foreign,
# other-spec, other-kind and impossible-state checkpoints are refused
# (exit 2) with a message.
# Usage: bash test_resume_de_aco.sh PATH/TO/evoforge
source "$(dirname "$0")/lib.sh"
evo=$1
export EVOFORGE_CACHE="$cli_tmp/cache"
untimed() { grep -vE '_s"|_ms|ms_per|seconds|gpops|per_second|"date"|host_share' "$1"; }

# DE: four shifted sphere problems; three reach the target near generation
# 760 and stop, one runs the 3000 generations (so a checkpoint holds stopped
# and running problems alike).
de=(problems/de-sphere.ini --backend cpu --seed 3 --set de.problems=4 --set de.population=60
	--set de.dim=20 --set de.max_evals=0 --set de.generations=3000 --set de.target=1e-12
	--set de.shift=random)
# ACO: 60 random cities with 2-opt local search and restarts every few
# hundred iterations (u_gb's schedule, the restart-best tour and the
# pheromone resets all cross checkpoints).
aco=(problems/aco-random.ini --backend cpu --seed 5 --set data.random=60 --set aco.ants=16
	--set aco.candidates=10 --set aco.restart_gap=30 --set aco.local_search=2opt
	--generations 400)
# The uninterrupted runs take about 0.1 s (1 s in the sanitizer build);
# runs with a checkpoint after every step take seconds, mostly fsync.

# same_as LABEL REF DIR HISTORY-COLUMNS: result.json (timings aside), the
# history's columns and any best.tour equal REF's.
same_as() {
	if diff <(untimed "$2/result.json") <(untimed "$3/result.json") >"$cli_tmp/diff" &&
		diff <(cut -d, -f"$4" "$2/history.csv") <(cut -d, -f"$4" "$3/history.csv") >>"$cli_tmp/diff" &&
		{ [ ! -f "$2/best.tour" ] || cmp "$2/best.tour" "$3/best.tour" >>"$cli_tmp/diff" 2>&1; }; then
		cli_ok "$1: result.json and history as the uninterrupted run's"
	else
		cli_fail "$1: result.json and history as the uninterrupted run's" "$(head -20 "$cli_tmp/diff")"
	fi
}

# resume_of KIND COLUMNS EVERY ARGS...: every way of stopping and resuming
# one run against the uninterrupted run.
resume_of() {
	local kind=$1 cols=$2 every=$3 dir pid rc kills=0
	shift 3
	expect_exit 0 "$kind: the uninterrupted run" "$evo" run "$@" -q -o "$cli_tmp/$kind-ref"

	# A checkpoint every $every steps (the only mid-run one): the run ends
	# the same; resuming from that checkpoint ends the same.
	dir="$cli_tmp/$kind-every"
	expect_exit 0 "$kind: --checkpoint-every $every" "$evo" run "$@" --checkpoint-every "$every" -q -o "$dir"
	same_as "$kind: with checkpoints" "$cli_tmp/$kind-ref" "$dir" "$cols"
	cp "$dir/checkpoint.bin" "$cli_tmp/$kind-mid.bin"
	expect_exit 0 "$kind: resumed from step $every" "$evo" run "$@" --resume "$cli_tmp/$kind-mid.bin" \
		-o "$cli_tmp/$kind-mid"
	expect_output "$kind: says where it resumes" "resuming from $cli_tmp/$kind-mid.bin"
	same_as "$kind: resumed from step $every" "$cli_tmp/$kind-ref" "$cli_tmp/$kind-mid" "$cols"

	# SIGKILL at random points, resumed each time from whatever checkpoint is there.
	dir="$cli_tmp/$kind-killed"
	for round in 1 2 3 4 5 6; do
		local resume=()
		[ -f "$dir/checkpoint.bin" ] && resume=(--resume "$dir")
		"$evo" run "$@" --checkpoint-every 1 "${resume[@]}" -q -o "$dir" >"$cli_tmp/k.log" 2>&1 &
		pid=$!
		sleep "0.$((RANDOM % 9 + 1))"
		if kill -9 "$pid" 2>/dev/null; then kills=$((kills + 1)); fi
		wait "$pid" 2>/dev/null
	done
	local resume=()
	[ -f "$dir/checkpoint.bin" ] && resume=(--resume "$dir")
	expect_exit 0 "$kind: after $kills SIGKILLs, the last resume" "$evo" run "$@" --checkpoint-every 1 \
		"${resume[@]}" -q -o "$dir"
	same_as "$kind: killed and resumed" "$cli_tmp/$kind-ref" "$dir" "$cols"

	# SIGTERM once the first checkpoint is there: exit 3, a checkpoint, the
	# results so far marked; the resume finishes the run.
	dir="$cli_tmp/$kind-termed"
	"$evo" run "$@" --checkpoint-every 1 -q -o "$dir" >"$cli_tmp/t.log" 2>&1 &
	pid=$!
	for ((k = 0; k < 400; k++)); do [ -f "$dir/checkpoint.bin" ] && break; sleep 0.05; done
	kill -TERM "$pid"
	wait "$pid"
	rc=$?
	if [ "$rc" -eq 3 ] && [ -f "$dir/checkpoint.bin" ] && grep -q '"interrupted": true' "$dir/result.json"
	then cli_ok "$kind: SIGTERM: exit 3, a checkpoint, results marked interrupted"
	else cli_fail "$kind: SIGTERM: exit 3, a checkpoint, results marked interrupted" \
		"exit $rc; $(ls "$dir" 2>&1); $(tail -3 "$cli_tmp/t.log")"; fi
	expect_exit 0 "$kind: SIGTERM: resume" "$evo" run "$@" --resume "$dir/checkpoint.bin" -q -o "$dir"
	same_as "$kind: stopped by SIGTERM and resumed" "$cli_tmp/$kind-ref" "$dir" "$cols"
}

# refused KIND LABEL TEXT CKPT ARGS...: --resume CKPT exits 2 saying TEXT.
refused() {
	local kind=$1 label=$2 text=$3 ck=$4
	shift 4
	expect_exit 2 "$kind: $label refused" "$evo" run "$@" --resume "$ck" -q -o "$cli_tmp/x"
	expect_output "$kind: $label: says so" "$text"
}

# patch IN OUT OFFSET VALUE: a copy of checkpoint IN with the int32 at
# OFFSET bytes into the kind's state set to VALUE, its checksum made good.
patch() {
	python3 - "$@" <<'EOF'
import struct, sys, zlib
d = bytearray(open(sys.argv[1], "rb").read())
pos = 16
for _ in range(2):                       # the kind and the spec
    pos += 8 + struct.unpack_from("<Q", d, pos)[0]
state = pos + 8                          # the state's bytes
struct.pack_into("<i", d, state + int(sys.argv[3]), int(sys.argv[4]))
struct.pack_into("<Q", d, len(d) - 8, zlib.crc32(bytes(d[:-8])))
open(sys.argv[2], "wb").write(d)
EOF
}

bad_checkpoints() {   # KIND OTHER-KIND-CHECKPOINT SET ARGS...
	local kind=$1 other=$2 set=$3 ck="$cli_tmp/$1-mid.bin"
	shift 3
	head -c 100 "$ck" >"$cli_tmp/short.bin"
	refused "$kind" "a truncated checkpoint" "checksum mismatch: the checkpoint is truncated or damaged" \
		"$cli_tmp/short.bin" "$@"
	python3 -c 'import sys; d = bytearray(open(sys.argv[1], "rb").read()); d[len(d) // 2] ^= 1
open(sys.argv[2], "wb").write(d)' "$ck" "$cli_tmp/flipped.bin"
	refused "$kind" "a damaged checkpoint" "checksum mismatch" "$cli_tmp/flipped.bin" "$@"
	refused "$kind" "a spec file" "not an evoforge checkpoint" "$1" "$@"
	refused "$kind" "another spec's checkpoint" "made from another spec" "$ck" "$@" --set "$set"
	refused "$kind" "another kind's checkpoint" "a checkpoint of kind" "$other" "$@"
	refused "$kind" "a missing checkpoint" "$cli_tmp/none" "$cli_tmp/none" "$@"
}

resume_of de 1- 1700 "${de[@]}"
resume_of aco 1,2 250 "${aco[@]}"

bad_checkpoints de "$cli_tmp/aco-mid.bin" de.F=0.6 "${de[@]}"
bad_checkpoints aco "$cli_tmp/de-mid.bin" aco.rho=0.2 "${aco[@]}"
# Impossible states with a good checksum: DE problem 0's best index past the
# population (state: 56 bytes of sizes and times, then the de_state array's
# length, then best, best_index, ...); an ACO best tour that visits city 1
# twice (state: 136 bytes of scalars, the tour's length, then the tour).
patch "$cli_tmp/de-mid.bin" "$cli_tmp/de-bad.bin" 68 100000
refused de "an impossible state" "problem 0: an impossible state" "$cli_tmp/de-bad.bin" "${de[@]}"
patch "$cli_tmp/aco-mid.bin" "$cli_tmp/aco-bad.bin" 144 1
patch "$cli_tmp/aco-bad.bin" "$cli_tmp/aco-bad.bin" 148 1
refused aco "a best tour that is no tour" "the best tour is not one of 60 cities" "$cli_tmp/aco-bad.bin" \
	"${aco[@]}"
finish
