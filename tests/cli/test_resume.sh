# test_resume.sh: checkpoints and --resume (kind gp): runs killed with SIGKILL
# at random points and resumed, again and again, end with the result.json
# (timings aside) and history of the uninterrupted run with the same seed;
# a run stopped by SIGTERM leaves a checkpoint it resumes from; a truncated,
# damaged, foreign or made-from-another-spec checkpoint is refused with a
# message (exit 2); kinds without checkpoints refuse --resume.
# Usage: bash test_resume.sh PATH/TO/evoforge
source "$(dirname "$0")/lib.sh"
evo=$1
export EVOFORGE_CACHE="$cli_tmp/cache"
untimed() { grep -vE '_s"|_ms|ms_per|seconds|gpops|per_second|"date"|host_share' "$1"; }
hist() { cut -d, -f1-5,12 "$1"; }   # generation, best, mean, sizes, nonfinite
# 20 generations (about 2 s plain): the SIGTERM sent after 1 s lands mid-run
# (10 took 0.85 s on an idle 2-core machine, so the run could end first).
# The sanitizer build is about 10 times slower: 10 generations and fewer
# cases keep its runs seconds long.
gens=20
case $evo in *asan*) gens=10 ;; esac
args=(problems/sextic.ini --backend cpu --set gp.stop_on_success=false --generations $gens --seed 4)
case $evo in *asan*) args+=(--set data.cases=10000) ;; esac

expect_exit 0 "the uninterrupted run" "$evo" run "${args[@]}" -q -o "$cli_tmp/ref"
same_as_ref() {   # LABEL DIR
	if diff <(untimed "$cli_tmp/ref/result.json") <(untimed "$2/result.json") >"$cli_tmp/diff" &&
		diff <(hist "$cli_tmp/ref/history.csv") <(hist "$2/history.csv") >>"$cli_tmp/diff"; then
		cli_ok "$1: result.json and history as the uninterrupted run's"
	else
		cli_fail "$1: result.json and history as the uninterrupted run's" "$(head -20 "$cli_tmp/diff")"
	fi
}

# SIGKILL at random points, resumed each time from whatever checkpoint is there.
dir="$cli_tmp/killed"
kills=0
for round in 1 2 3 4 5 6; do
	resume=()
	[ -f "$dir/checkpoint.bin" ] && resume=(--resume "$dir")
	"$evo" run "${args[@]}" --checkpoint-every 1 "${resume[@]}" -q -o "$dir" >"$cli_tmp/k.log" 2>&1 &
	pid=$!
	sleep "0.$((RANDOM % 9 + 1))"
	if kill -9 "$pid" 2>/dev/null; then kills=$((kills + 1)); fi
	wait "$pid" 2>/dev/null
done
resume=()
[ -f "$dir/checkpoint.bin" ] && resume=(--resume "$dir")
expect_exit 0 "after $kills SIGKILLs, the last resume" "$evo" run "${args[@]}" --checkpoint-every 1 \
	"${resume[@]}" -q -o "$dir"
same_as_ref "killed and resumed" "$dir"

# SIGTERM: the stop writes a checkpoint; the resume finishes the run.
dir="$cli_tmp/termed"
"$evo" run "${args[@]}" -q -o "$dir" >"$cli_tmp/t.log" 2>&1 &
pid=$!
sleep 1
kill -TERM "$pid"
wait "$pid"
rc=$?
if [ "$rc" -eq 3 ] && [ -f "$dir/checkpoint.bin" ]; then cli_ok "SIGTERM: exit 3 and a checkpoint"
else cli_fail "SIGTERM: exit 3 and a checkpoint" "exit $rc; $(ls "$dir" 2>&1)"; fi
expect_exit 0 "SIGTERM: resume" "$evo" run "${args[@]}" --resume "$dir/checkpoint.bin" -q -o "$dir"
same_as_ref "stopped by SIGTERM and resumed" "$dir"

# Bad checkpoints.
ck="$cli_tmp/termed/checkpoint.bin"
head -c 100 "$ck" >"$cli_tmp/short.bin"
expect_exit 2 "truncated checkpoint" "$evo" run "${args[@]}" --resume "$cli_tmp/short.bin" -q -o "$cli_tmp/x"
expect_output "truncated: says so" "checksum mismatch: the checkpoint is truncated or damaged"
python3 -c 'import sys; d = bytearray(open(sys.argv[1], "rb").read()); d[len(d) // 2] ^= 1
open(sys.argv[2], "wb").write(d)' "$ck" "$cli_tmp/flipped.bin"
expect_exit 2 "damaged checkpoint" "$evo" run "${args[@]}" --resume "$cli_tmp/flipped.bin" -q -o "$cli_tmp/x"
expect_output "damaged: says so" "checksum mismatch"
expect_exit 2 "not a checkpoint" "$evo" run "${args[@]}" --resume problems/sextic.ini -q -o "$cli_tmp/x"
expect_output "not a checkpoint: says so" "not an evoforge checkpoint"
expect_exit 2 "another spec" "$evo" run "${args[@]}" --set gp.tournament=5 --resume "$ck" -q -o "$cli_tmp/x"
expect_output "another spec: says so" "made from another spec"
expect_exit 2 "a missing checkpoint" "$evo" run "${args[@]}" --resume "$cli_tmp/none" -q -o "$cli_tmp/x"
expect_output "missing: names it" "$cli_tmp/none"
expect_exit 2 "a gp checkpoint given to an svm run is refused" "$evo" run problems/svm-sonar.ini --backend cpu --resume "$ck" -q -o "$cli_tmp/x"
expect_output "svm: says whose checkpoint it is" "gp"
expect_exit 2 "bad --checkpoint-every" "$evo" run "${args[@]}" --checkpoint-every -3 -q -o "$cli_tmp/x"
expect_exit 0 "--checkpoint-every 0: none written" "$evo" run problems/sextic.ini --backend cpu \
	--generations 3 --checkpoint-every 0 -q -o "$cli_tmp/none0"
if [ -e "$cli_tmp/none0/checkpoint.bin" ]; then cli_fail "--checkpoint-every 0: no file" "written"
else cli_ok "--checkpoint-every 0: no file"; fi
finish
