# test_resume_mbp_svm.sh: checkpoints and --resume for kinds mbp and svm on
# the CPU backend: runs killed with SIGKILL at random points and resumed,
# again and again, end with the result.json (timings aside) and the
# network/model, prediction and history.csv files of the uninterrupted run with the same
# seed (mbp: several networks over folds in mini-batch mode, so the epoch
# shuffles count; svm: a three-class problem, three one-vs-one pairs, on a
# generated data set big enough to be killed mid-solve, and a 3-fold
# cross-validation); SIGTERM leaves a checkpoint (exit 3) a resume finishes
# from; truncated, damaged, foreign-kind and other-spec checkpoints are
# refused (exit 2).
# Usage: bash test_resume_mbp_svm.sh PATH/TO/evoforge
source "$(dirname "$0")/lib.sh"
evo=$1
export EVOFORGE_CACHE="$cli_tmp/cache"
untimed() { grep -vE '_s"|_ms"|per_min|"date"' "$1"; }
asan=0
case $evo in *asan*) asan=1 ;; esac   # the sanitizer build is about 10 times slower

# same_files LABEL REF DIR FILE...: result.json (untimed) and FILEs as REF's.
same_files() {
	local label=$1 ref=$2 dir=$3 f ok=1
	shift 3
	diff <(untimed "$ref/result.json") <(untimed "$dir/result.json") >"$cli_tmp/diff" 2>&1 || ok=0
	for f in "$@"; do cmp "$ref/$f" "$dir/$f" >>"$cli_tmp/diff" 2>&1 || ok=0; done
	if [ $ok = 1 ]; then cli_ok "$label: the uninterrupted run's result.json and $*"
	else cli_fail "$label: the uninterrupted run's result.json and $*" "$(head -20 "$cli_tmp/diff")"; fi
}

# killed_loop LABEL DIR EVERY ROUNDS MAXSLEEP_TENTHS ARGS...: SIGKILL at random
# points, resumed each time from whatever checkpoint is there, then a last
# resume to the end.
killed_loop() {
	local label=$1 dir=$2 every=$3 rounds=$4 tenths=$5 kills=0 pid round
	shift 5
	for round in $(seq "$rounds"); do
		local resume=()
		[ -f "$dir/checkpoint.bin" ] && resume=(--resume "$dir")
		"$evo" run "$@" --checkpoint-every "$every" "${resume[@]}" -q -o "$dir" >"$cli_tmp/k.log" 2>&1 &
		pid=$!
		sleep "$((RANDOM % tenths / 10)).$((RANDOM % 10))"
		if kill -9 "$pid" 2>/dev/null; then kills=$((kills + 1)); fi
		[ -n "$EVOFORGE_TEST_VERBOSE" ] && echo "round $round: $(tail -1 "$cli_tmp/k.log")"
		wait "$pid" 2>/dev/null
	done
	local resume=()
	[ -f "$dir/checkpoint.bin" ] && resume=(--resume "$dir")
	expect_exit 0 "$label: after $kills SIGKILLs, the last resume" "$evo" run "$@" \
		--checkpoint-every "$every" "${resume[@]}" -q -o "$dir"
}

# termed LABEL DIR SLEEP EVERY ARGS...: SIGTERM SLEEP s after the run's
# first checkpoint (one every EVERY steps: waiting for it, not a fixed time,
# keeps a fast run, as under ASan, from ending first): exit 3 and a
# checkpoint; then the resume.
termed() {
	local label=$1 dir=$2 wait_s=$3 every=$4 pid rc k
	shift 4
	"$evo" run "$@" --checkpoint-every "$every" -q -o "$dir" >"$cli_tmp/t.log" 2>&1 &
	pid=$!
	for ((k = 0; k < 600; k++)); do [ -f "$dir/checkpoint.bin" ] && break; sleep 0.05; done
	sleep "$wait_s"
	kill -TERM "$pid"
	wait "$pid"
	rc=$?
	if [ "$rc" -eq 3 ] && [ -f "$dir/checkpoint.bin" ]; then cli_ok "$label: SIGTERM: exit 3 and a checkpoint"
	else cli_fail "$label: SIGTERM: exit 3 and a checkpoint" "exit $rc; $(ls "$dir" 2>&1)"; fi
	expect_exit 0 "$label: SIGTERM: resume" "$evo" run "$@" --resume "$dir/checkpoint.bin" -q -o "$dir"
}

# ---- mbp ----------------------------------------------------------------------
epochs=3000
[ $asan = 1 ] && epochs=400
mbp=(problems/mbp-sonar.ini --backend cpu --seed 3 --set mbp.networks=4 --set mbp.folds=2
	--set mbp.mode=minibatch --set mbp.batch_size=16 --set mbp.epochs=$epochs)
expect_exit 0 "mbp: the uninterrupted run" "$evo" run "${mbp[@]}" -q -o "$cli_tmp/mref"
killed_loop "mbp" "$cli_tmp/mkilled" 100 6 12 "${mbp[@]}"
same_files "mbp: killed and resumed" "$cli_tmp/mref" "$cli_tmp/mkilled" network.net predictions.csv \
	history.csv
termed "mbp" "$cli_tmp/mtermed" 0.1 50 "${mbp[@]}"
same_files "mbp: stopped by SIGTERM and resumed" "$cli_tmp/mref" "$cli_tmp/mtermed" network.net \
	predictions.csv history.csv
# batch mode, one network: its chunks run in parallel; target reached on the way
mbp1=(problems/mbp-spirals.ini --backend cpu --seed 2 --set mbp.epochs=$((epochs * 6))
	--set mbp.report_every=100)
expect_exit 0 "mbp batch: the uninterrupted run" "$evo" run "${mbp1[@]}" -q -o "$cli_tmp/bref"
killed_loop "mbp batch" "$cli_tmp/bkilled" 370 4 8 "${mbp1[@]}"
same_files "mbp batch: killed and resumed" "$cli_tmp/bref" "$cli_tmp/bkilled" network.net predictions.csv \
	history.csv

# ---- svm ----------------------------------------------------------------------
points=3000
[ $asan = 1 ] && points=1500
python3 - "$cli_tmp/blobs.csv" "$points" <<'PY'
import random, sys
random.seed(5)
with open(sys.argv[1], "w") as f:
    f.write(",".join("x%d" % i for i in range(20)) + ",label\n")
    for _ in range(int(sys.argv[2])):
        c = random.randrange(3)
        xs = [random.gauss(0.3 * c * (1 if k % 2 else -1), 1.0) for k in range(20)]
        f.write(",".join("%.5f" % x for x in xs) + ",c%d\n" % c)
PY
cat >"$cli_tmp/svm.ini" <<'SPEC'
[problem]
kind = svm
name = blobs
[svm]
kernel = rbf
C = 100
gamma = 0.05
cache_mb = 1
[data]
train = blobs.csv
label = label
SPEC
svm=("$cli_tmp/svm.ini" --backend cpu)
expect_exit 0 "svm: the uninterrupted run" "$evo" run "${svm[@]}" -q -o "$cli_tmp/sref"
killed_loop "svm" "$cli_tmp/skilled" 1500 6 15 "${svm[@]}"
same_files "svm: killed and resumed" "$cli_tmp/sref" "$cli_tmp/skilled" model.txt history.csv
termed "svm" "$cli_tmp/stermed" 0.2 1 "${svm[@]}"
same_files "svm: stopped by SIGTERM and resumed" "$cli_tmp/sref" "$cli_tmp/stermed" model.txt history.csv
cv=("${svm[@]}" --set svm.folds=3 --seed 9)
expect_exit 0 "svm 3-fold: the uninterrupted run" "$evo" run "${cv[@]}" -q -o "$cli_tmp/cref"
killed_loop "svm 3-fold" "$cli_tmp/ckilled" 1000 4 15 "${cv[@]}"
same_files "svm 3-fold: killed and resumed" "$cli_tmp/cref" "$cli_tmp/ckilled"

# ---- bad checkpoints -------------------------------------------------------------
for kind in mbp svm; do
	if [ $kind = mbp ]; then args=("${mbp[@]}"); other=(--set mbp.step=0.3); foreign=svm
	else args=("${svm[@]}"); other=(--set svm.C=99); foreign=mbp; fi
	ck="$cli_tmp/${kind:0:1}termed/checkpoint.bin"
	head -c 100 "$ck" >"$cli_tmp/short.bin"
	expect_exit 2 "$kind: truncated checkpoint" "$evo" run "${args[@]}" --resume "$cli_tmp/short.bin" -q -o "$cli_tmp/x"
	expect_output "$kind: truncated: says so" "checksum mismatch: the checkpoint is truncated or damaged"
	python3 -c 'import sys; d = bytearray(open(sys.argv[1], "rb").read()); d[len(d) // 2] ^= 1
open(sys.argv[2], "wb").write(d)' "$ck" "$cli_tmp/flipped.bin"
	expect_exit 2 "$kind: damaged checkpoint" "$evo" run "${args[@]}" --resume "$cli_tmp/flipped.bin" -q -o "$cli_tmp/x"
	expect_output "$kind: damaged: says so" "checksum mismatch"
	expect_exit 2 "$kind: another kind's checkpoint" "$evo" run "${args[@]}" \
		--resume "$cli_tmp/${foreign:0:1}termed/checkpoint.bin" -q -o "$cli_tmp/x"
	expect_output "$kind: another kind's: says so" "a checkpoint of kind '$foreign', not $kind"
	expect_exit 2 "$kind: another spec" "$evo" run "${args[@]}" "${other[@]}" --resume "$ck" -q -o "$cli_tmp/x"
	expect_output "$kind: another spec: says so" "made from another spec"
done
expect_exit 0 "svm: --checkpoint-every 0: none written" "$evo" run "${svm[@]}" --set svm.eps=0.1 \
	--checkpoint-every 0 -q -o "$cli_tmp/none0"
if [ -e "$cli_tmp/none0/checkpoint.bin" ]; then cli_fail "svm: --checkpoint-every 0: no file" "written"
else cli_ok "svm: --checkpoint-every 0: no file"; fi
finish
