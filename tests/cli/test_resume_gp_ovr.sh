# test_resume_gp_ovr.sh: checkpoints and --resume for kind gp's one-vs-rest
# runs ([gp] multiclass = one-vs-rest) on the CPU, with generated 3-class
# data (overlapping blobs, so no sub-problem is solved early): a run killed
# with SIGKILL at random points and resumed, again and again, ends with the
# uninterrupted run's result.json (timings aside) and history; so does a
# resume from a checkpoint written inside the second sub-problem; a run
# stopped by SIGTERM exits 3 with its results so far marked "interrupted"
# and a checkpoint, and the resume finishes it as the uninterrupted run; a
# round run's checkpoint given to the one-vs-rest spec, and the other way
# round, are refused (exit 2) with a message.
# Usage: bash test_resume_gp_ovr.sh PATH/TO/evoforge
source "$(dirname "$0")/lib.sh"
evo=$1
t=$cli_tmp
export EVOFORGE_CACHE="$t/cache"
untimed() { grep -vE '_s"|_ms|ms_per|seconds|gpops|per_second|"date"|host_share' "$1"; }
hist() { cut -d, -f1-6,13 "$1"; }   # class, generation, best, mean, sizes, nonfinite

python3 - "$t" <<'PY'
import random, struct, sys
f32 = lambda v: struct.unpack("f", struct.pack("f", v))[0]
random.seed(7)
with open(sys.argv[1] + "/train.csv", "w") as f:
    f.write("a,b,z,label\n")
    for i in range(300):
        c = i % 3
        a = f32(c + random.gauss(0, 0.8)); b = f32(2 - c + random.gauss(0, 0.8))
        f.write("%.9g,%.9g,%.9g,%s\n" % (a, b, f32(random.uniform(-1, 1)), "xyz"[c]))
PY
{
	printf '[problem]\nkind = gp\nname = ovr-resume\n[data]\nsource = csv\nfile = train.csv\n'
	printf 'label = label\nfitness = classification\n[gp]\nmulticlass = one-vs-rest\n'
	printf 'functions = + - * /\nconstants = -3 3\nstop_on_success = false\n'
} >"$t/ovr.ini"
# about 1.5-3 s with a checkpoint every generation (both builds), so random kills land
# mid-run; the plain build's 100 generations keep sub-problem 2 long enough for the
# SIGTERM sent when its generation 2 shows (CI once saw 50 end before it landed)
gens=100
case $evo in *asan*) gens=20 ;; esac
args=("$t/ovr.ini" --backend cpu --seed 9 --population 1000 --generations $gens)
round=("$t/ovr.ini" --backend cpu --seed 9 --population 1000 --generations $gens
	--set gp.multiclass=round)

expect_exit 0 "the uninterrupted one-vs-rest run" "$evo" run "${args[@]}" -q -o "$t/ref"
rows=$(tail -n +2 "$t/ref/history.csv" | wc -l)
if [ "$rows" -eq $((3 * (gens + 1))) ]; then cli_ok "the reference runs every generation of 3 classes"
else cli_fail "the reference runs every generation of 3 classes" "$rows history rows"; fi
same_as_ref() {   # LABEL DIR
	if diff <(untimed "$t/ref/result.json") <(untimed "$2/result.json") >"$t/diff" &&
		diff <(hist "$t/ref/history.csv") <(hist "$2/history.csv") >>"$t/diff"; then
		cli_ok "$1: result.json and history as the uninterrupted run's"
	else
		cli_fail "$1: result.json and history as the uninterrupted run's" "$(head -20 "$t/diff")"
	fi
}

# A checkpoint every generation: the same results; a run killed after the
# checkpoint of generation 5 of the second sub-problem (class y) resumes.
expect_exit 0 "a run with a checkpoint every generation" "$evo" run "${args[@]}" --checkpoint-every 1 \
	-o "$t/every"
same_as_ref "checkpoints written" "$t/every"
# wait_for LOG PATTERN: until LOG has a line matching PATTERN after class y's start (30 s at most)
wait_for() {
	for _ in $(seq 1 600); do
		awk -v p="$2" '/one-vs-rest 2\/3: class y against the rest/ { y = 1 } y && $0 ~ p { f = 1 }
			END { exit !f }' "$1" 2>/dev/null && return
		sleep 0.05
	done
}
dir="$t/mid"
"$evo" run "${args[@]}" --checkpoint-every 1 -o "$dir" >"$t/mid.log" 2>&1 &
pid=$!
wait_for "$t/mid.log" "checkpoint: generation 5 "
kill -9 "$pid" 2>/dev/null
wait "$pid" 2>/dev/null
if [ -f "$dir/checkpoint.bin" ]; then
	expect_exit 0 "resume from a checkpoint inside sub-problem 2" "$evo" run "${args[@]}" \
		--checkpoint-every 1 --resume "$dir" -o "$dir"
	expect_output "the resume says how many sub-problems were finished" \
		"one-vs-rest, 1 of 3 sub-problems finished"
	expect_output "the finished one comes from the checkpoint" "(from the checkpoint)"
	same_as_ref "resumed inside sub-problem 2" "$dir"
else
	cli_fail "a checkpoint inside sub-problem 2" "none in $dir"
fi

# SIGKILL at random points, resumed each time from whatever checkpoint is there.
dir="$t/killed"
kills=0
for r in 1 2 3 4 5 6 7 8 9 10; do
	resume=()
	[ -f "$dir/checkpoint.bin" ] && resume=(--resume "$dir")
	"$evo" run "${args[@]}" --checkpoint-every 1 "${resume[@]}" -q -o "$dir" >"$t/k.log" 2>&1 &
	pid=$!
	sleep "$(printf '0.%02d' $((RANDOM % 30 + 5)))"   # 0.05 to 0.34 s
	if kill -9 "$pid" 2>/dev/null; then kills=$((kills + 1)); fi
	wait "$pid" 2>/dev/null
done
resume=()
[ -f "$dir/checkpoint.bin" ] && resume=(--resume "$dir")
expect_exit 0 "after $kills SIGKILLs, the last resume" "$evo" run "${args[@]}" --checkpoint-every 1 \
	"${resume[@]}" -q -o "$dir"
same_as_ref "killed and resumed" "$dir"

# SIGTERM once, inside sub-problem 2: exit 3, the results so far marked
# "interrupted", a checkpoint; the resume finishes the run.
dir="$t/termed"
"$evo" run "${args[@]}" -o "$dir" >"$t/t.log" 2>&1 &
pid=$!
wait_for "$t/t.log" "gen +2 "
kill -TERM "$pid"
wait "$pid"
rc=$?
if [ "$rc" -eq 3 ] && [ -f "$dir/checkpoint.bin" ]; then cli_ok "SIGTERM: exit 3 and a checkpoint"
else cli_fail "SIGTERM: exit 3 and a checkpoint" "exit $rc; $(ls "$dir" 2>&1)"; fi
if python3 - "$dir/result.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
assert r["totals"]["interrupted"] is True and r["totals"]["stopped_by"] == "SIGTERM", r["totals"]
o = r["ovr"]
# stopped inside sub-problem 2 (class y): the programs of x and y so far
assert o["sub_problems_run"] == 2 and [p["name"] for p in o["programs"]] == ["x", "y"], o
assert "fitness" not in r["best"] and r["best"]["programs"] == 2, r["best"]
assert {h["class"] for h in r["history"]} == {0, 1}, "history classes"
PY
then cli_ok "SIGTERM: result.json marked interrupted, with the sub-problems run so far"
else cli_fail "SIGTERM: result.json marked interrupted, with the sub-problems run so far" "see above"; fi
expect_output_file() { if grep -qF -- "$2" "$3"; then cli_ok "$1"; else cli_fail "$1" "$3 lacks '$2'"; fi; }
expect_output_file "SIGTERM: the run says where it stopped" "stopped after 2 of 3 sub-problems" "$t/t.log"
expect_exit 0 "SIGTERM: resume" "$evo" run "${args[@]}" --resume "$dir/checkpoint.bin" -q -o "$dir"
same_as_ref "stopped by SIGTERM and resumed" "$dir"

# Checkpoints of the other scheme are refused: the spec differs.
expect_exit 0 "a round run with a checkpoint" "$evo" run "${round[@]}" --generations 3 \
	--checkpoint-every 1 -q -o "$t/round"
expect_exit 2 "a round run's checkpoint given to the one-vs-rest spec" "$evo" run "${args[@]}" \
	--generations 3 --resume "$t/round" -q -o "$t/x"
expect_output "round to one-vs-rest: says the spec differs" "made from another spec"
expect_exit 2 "a one-vs-rest checkpoint given to the round spec" "$evo" run "${round[@]}" \
	--resume "$t/termed/checkpoint.bin" -q -o "$t/x"
expect_output "one-vs-rest to round: says the spec differs" "made from another spec"
# The same spec text with a round run's state (a hand-made file): refused by its tag.
python3 - "$t/round/checkpoint.bin" "$t/termed/checkpoint.bin" "$t/swapped.bin" <<'PY'
import struct, sys, zlib
def fields(d):
    pos, out = 16, []
    for _ in range(3):
        n = struct.unpack_from("<Q", d, pos)[0]; out.append(d[pos + 8:pos + 8 + n]); pos += 8 + n
    return out
rnd, ovr = (open(p, "rb").read() for p in sys.argv[1:3])
kind, spec, _ = fields(ovr)
state = fields(rnd)[2]
body = ovr[:16] + b"".join(struct.pack("<Q", len(f)) + f for f in (kind, spec, state))
open(sys.argv[3], "wb").write(body + struct.pack("<Q", zlib.crc32(body)))
PY
expect_exit 2 "a round run's state under the one-vs-rest spec" "$evo" run "${args[@]}" \
	--resume "$t/swapped.bin" -q -o "$t/x"
expect_output "says it is not a one-vs-rest checkpoint" "not the checkpoint of a one-vs-rest run"
finish
