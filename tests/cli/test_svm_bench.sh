#!/usr/bin/env bash
# test_svm_bench.sh: `evoforge bench svm` with its peers on the CPU: a
# ThunderSVM (a fake thundersvm-train and -predict here, shell scripts that
# print ThunderSVM's log lines) is run with LIBSVM's arguments on the data
# as we train it, and its training time, objective, local iterations,
# support vectors and accuracy are read back; --process times our own
# svm-train as a process; a ThunderSVM that fails is a warning, not the end
# of the bench; bad options exit 2.
evo=${1:-build/evoforge}
. "$(dirname "$0")/lib.sh"

# 40 points of two classes in 2 features (LIBSVM format)
awk 'BEGIN { srand(7); for (i = 0; i < 40; i++) { c = i % 2 ? 1 : -1;
	printf "%d 1:%.3f 2:%.3f\n", c, c + rand(), rand() } }' >"$cli_tmp/two.svm"
mkdir -p "$cli_tmp/tsvm"
cat >"$cli_tmp/tsvm/thundersvm-train" <<'SH'
#!/bin/sh
echo "$@" >"$TSVM_ARGS"
echo "2026-11-27 07:00:00,000 INFO csmosolver.cpp:83 : global iter = 0, total local iter = 7, diff = 2"
echo "2026-11-27 07:00:00,000 INFO csmosolver.cpp:83 : global iter = 1, total local iter = 12, diff = 0.0009"
echo "2026-11-27 07:00:00,000 INFO csmosolver.cpp:117 : obj = -3.25"
echo "2026-11-27 07:00:00,000 INFO svc.cpp:176 : #sv = 9"
echo "2026-11-27 07:00:00,000 INFO thundersvm-train.cpp:94 : all training time = 0.125"
for m; do :; done
echo model >"$m"
SH
cat >"$cli_tmp/tsvm/thundersvm-predict" <<'SH'
#!/bin/sh
echo "2026-11-27 07:00:00,000 INFO thundersvm-predict.cpp:91 : Accuracy = 0.975"
SH
chmod +x "$cli_tmp/tsvm/"*
export TSVM_ARGS="$cli_tmp/tsvm.args"

expect_exit 0 "bench svm --thundersvm --process" "$evo" bench svm --backend cpu --libsvm none \
	--data "$cli_tmp/two.svm:2:0.5" --thundersvm "$cli_tmp/tsvm/thundersvm-train" --process \
	-o "$cli_tmp/b"
expect_output "ThunderSVM's row: its time, local iterations, SVs, objective, accuracy" \
	"| thundersvm | first | 0.125 |"
expect_output "... read from its log" "| 12 | 9 | -3.250000 | 0.9750 |"
if grep -q -- "-s 0 -t 2 -c 2 -g 0.5 -e 0.001 /tmp/evoforge-bench-svm-.*/train.libsvm" "$TSVM_ARGS"; then
	cli_ok "ThunderSVM got LIBSVM's arguments on the written data: $(cat "$TSVM_ARGS")"
else
	cli_fail "ThunderSVM's arguments" "$(cat "$TSVM_ARGS" 2>&1)"
fi
expect_output "our row, with its process seconds" "| evoforge cpu smo | second |"
if python3 - "$cli_tmp/b/bench-svm.json" <<'PY'
import json, math, sys
rows = json.load(open(sys.argv[1]))["rows"]
assert [r["solver"] for r in rows] == ["thundersvm", "evoforge cpu smo"], rows
t, ours = rows
assert t["process_seconds"] >= 0 and t["seconds"] == 0.125 and t["support_vectors"] == 9
assert ours["process_seconds"] > 0 and not math.isnan(ours["process_seconds"]), ours
assert ours["objective"] < 0 and ours["train_accuracy"] > 0.8, ours
PY
then cli_ok "bench-svm.json: ThunderSVM's and our rows, process seconds"
else cli_fail "bench-svm.json" "see above"; fi

expect_exit 0 "a ThunderSVM that fails" "$evo" bench svm --backend cpu --libsvm none \
	--data "$cli_tmp/two.svm:2:0.5" --thundersvm /bin/false
expect_output "is a warning" "/bin/false did not run or wrote no objective"
expect_output "and our row still comes" "| evoforge cpu smo | second |"
expect_exit 2 "--solver unknown" "$evo" bench svm --solver fastest
expect_output "says what it expects" "expected smo, batch or both"
finish
