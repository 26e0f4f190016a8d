# test_svm_batch.sh: svm-train -S batch (the batched working-set solver,
# svm_batch.c) against -S smo on the shipped sonar set (split in two:
# odd rows train, even rows test) with the RBF and linear kernels, on a
# generated 3-class file (one-vs-one pairs), and on epsilon-SVR and
# one-class: every pair's objective within 1e-4 relative and the same test
# accuracy (SVR: mean squared error within 1e-2 relative; one-class at
# -e 1e-5, where the default tolerance leaves points of decision value ~0
# on either side); then the bad values: -S bogus, -B 3, the nu forms with
# -S batch, and the spec keys [svm] solver and batch_size.
# Usage: bash test_svm_batch.sh PATH/TO/evoforge
source "$(dirname "$0")/lib.sh"
evo=$1
t=$cli_tmp
sonar=$(dirname "$0")/../../data/uci/sonar.csv

awk 'NR == 1 || NR % 2 == 0' "$sonar" >"$t/train.csv"
awk 'NR == 1 || NR % 2 == 1' "$sonar" >"$t/test.csv"
# 3 classes and a regression target, LIBSVM format
awk 'BEGIN { srand(5); for (i = 0; i < 240; i++) { a = 2 * rand() - 1; b = 2 * rand() - 1; c = 2 * rand() - 1
	y = 1 + int((a + 1) * 1.5 + 0.2 * (rand() - 0.5)) % 3
	printf "%d 1:%.6g 2:%.6g 3:%.6g\n", y, a, b, c } }' >"$t/multi.txt"
awk 'BEGIN { srand(6); for (i = 0; i < 200; i++) { a = 2 * rand() - 1; b = 2 * rand() - 1
	printf "%.6g 1:%.6g 2:%.6g\n", a + a * b + 0.1 * (rand() - 0.5), a, b } }' >"$t/reg.txt"

# objs LOG: the obj values of every pair, one a line.
objs() { sed -n 's/^obj = \([^,]*\),.*/\1/p' "$1"; }

# check NAME TRAIN TEST ARGS...: -S smo and -S batch -B 16 (and the auto q)
# train; objectives within 1e-4 relative; the same test accuracy lines.
check() {
	local name=$1 train=$2 test=$3 s
	shift 3
	for s in "smo" "batch -B 16" "batch"; do
		local tag=${s// /}
		# shellcheck disable=SC2086
		if ! "$evo" svm-train --backend cpu -S $s "$@" "$train" "$t/$tag.model" >"$t/$tag.log" 2>&1 ||
		   ! "$evo" svm-predict --backend cpu "$test" "$t/$tag.model" "$t/$tag.pred" >"$t/$tag.acc" 2>&1; then
			cli_fail "$name -S $s" "failed: $(tail -2 "$t/$tag.log" "$t/$tag.acc")"; return
		fi
	done
	for tag in batch-B16 batch; do
		if [ -s "$t/$tag.log" ] && [ "$(objs "$t/smo.log" | wc -l)" -gt 0 ] &&
		   paste <(objs "$t/smo.log") <(objs "$t/$tag.log") | awk '{ d = $1 - $2; d = d < 0 ? -d : d
			m = $1 < 0 ? -$1 : $1; if ($2 == "" || d > 1e-4 * (m > 1 ? m : 1)) { print $1 " vs " $2; bad = 1 } }
			END { exit bad }' >"$t/why"; then
			cli_ok "$name: -S $tag objectives as smo's"
		else
			cli_fail "$name -S $tag" "objectives differ: $(cat "$t/why")"
		fi
		if grep -q "Accuracy" "$t/smo.acc"; then
			cmp -s <(grep Accuracy "$t/smo.acc") <(grep Accuracy "$t/$tag.acc") &&
				cli_ok "$name: -S $tag test accuracy as smo's" ||
				cli_fail "$name -S $tag" "accuracy: $(grep Accuracy "$t/smo.acc" "$t/$tag.acc")"
		else
			paste <(sed -n 's/^Mean squared error = \([^ ]*\).*/\1/p' "$t/smo.acc") \
			      <(sed -n 's/^Mean squared error = \([^ ]*\).*/\1/p' "$t/$tag.acc") |
				awk '{ d = $1 - $2; d = d < 0 ? -d : d; exit !(NF == 2 && d <= 1e-2 * $1) }' &&
				cli_ok "$name: -S $tag test error as smo's" ||
				cli_fail "$name -S $tag" "MSE: $(grep 'Mean squared' "$t/smo.acc" "$t/$tag.acc")"
		fi
	done
}

check "sonar rbf" "$t/train.csv" "$t/test.csv"
check "sonar linear" "$t/train.csv" "$t/test.csv" -t 0 -c 0.5
check "3 classes weighted" "$t/multi.txt" "$t/multi.txt" -g 2 -w1 2 -w3 0.5
check "epsilon-SVR" "$t/reg.txt" "$t/reg.txt" -s 3 -p 0.05 -c 2
check "one-class" "$t/multi.txt" "$t/multi.txt" -s 2 -n 0.2 -e 0.00001

# bad values: a clear message, exit 2
expect_exit 2 "-S bogus" "$evo" svm-train -S bogus "$t/train.csv" "$t/x.model"
expect_output "-S bogus message" "-S: expected smo, batch or auto, got 'bogus'"
expect_exit 2 "-B 3" "$evo" svm-train -S batch -B 3 "$t/train.csv" "$t/x.model"
expect_output "-B 3 message" "-B: expected 0 (auto) or an even number from 4 to 1024, got '3'"
expect_exit 2 "-B 2048" "$evo" svm-train -B 2048 "$t/train.csv" "$t/x.model"
for s in 1 4; do
	expect_exit 2 "-S batch -s $s" "$evo" svm-train -S batch -s $s "$t/reg.txt" "$t/x.model"
	expect_output "-S batch -s $s message" "solver = batch does not take the nu forms (-s 1, -s 4); use solver = smo"
done
expect_exit 0 "-S auto -s 1 (smo)" "$evo" svm-train -S auto -s 1 "$t/multi.txt" "$t/x.model"
expect_exit 0 "-S batch -v 3" "$evo" svm-train --backend cpu -S batch -B 8 -v 3 "$t/train.csv"
expect_output "-S batch -v 3 accuracy" "Cross Validation Accuracy"

# the spec keys
spec() { printf '[problem]\nkind = svm\nname = b\n[svm]\n%s\n[data]\ntrain = %s\n' "$1" "$t/multi.txt" >"$t/b.ini"; }
spec "solver = batch
batch_size = 8"
expect_exit 0 "[svm] solver = batch" "$evo" run "$t/b.ini" --backend cpu -q -o "$t/run"
spec "solver = fast"
expect_exit 2 "[svm] solver = fast" "$evo" run "$t/b.ini" --backend cpu -q -o "$t/run2"
expect_output "[svm] solver = fast message" "[svm] solver: expected one of smo, batch, auto, got 'fast'"
spec "batch_size = 5"
expect_exit 2 "[svm] batch_size = 5" "$evo" run "$t/b.ini" --backend cpu -q -o "$t/run3"
expect_output "[svm] batch_size = 5 message" "svm.batch_size: expected 0 (auto) or an even number from 4 to 1024, got 5"
spec "type = nu_svc
solver = batch"
expect_exit 2 "[svm] nu_svc, solver = batch" "$evo" run "$t/b.ini" --backend cpu -q -o "$t/run4"
expect_output "[svm] nu_svc, solver = batch message" "svm.solver = batch does not take the nu forms"
# a checkpoint at an outer boundary, SIGTERM, --resume: the checkpoint keeps
# the last working set, so the resumed run ends on the uninterrupted run's
# model bit for bit
awk 'BEGIN { srand(7); print "a,b,c,d,label"; for (i = 0; i < 1500; i++) { k = i % 3
	printf "%.5f,%.5f,%.5f,%.5f,c%d\n", rand() + 0.3 * k, rand() - 0.2 * k, rand(), rand(), k } }' >"$t/blobs.csv"
printf '[problem]\nkind = svm\nname = r\n[svm]\nC = 100\ngamma = 2\nsolver = batch\nbatch_size = 16\n[data]\ntrain = %s\nlabel = label\n' \
	"$t/blobs.csv" >"$t/r.ini"
robj() { grep -o '"objective": *[^,]*' "$1/result.json" | head -1 | sed 's/.*: *//'; }
expect_exit 0 "batch: the uninterrupted run" "$evo" run "$t/r.ini" --backend cpu -q -o "$t/rref"
"$evo" run "$t/r.ini" --backend cpu -q --checkpoint-every 1000 -o "$t/rterm" >"$t/term.log" 2>&1 &
pid=$!
for ((k = 0; k < 400; k++)); do [ -f "$t/rterm/checkpoint.bin" ] && break; sleep 0.02; done
kill -TERM "$pid" 2>/dev/null
wait "$pid"
rc=$?
if [ "$rc" = 0 ]; then
	echo "SKIP: batch resume: the run finished before SIGTERM"
elif [ "$rc" = 3 ] && [ -f "$t/rterm/checkpoint.bin" ]; then
	expect_exit 0 "batch: SIGTERM, resume" "$evo" run "$t/r.ini" --backend cpu -q \
		--resume "$t/rterm/checkpoint.bin" -o "$t/rterm"
	[ -n "$(robj "$t/rref")" ] && [ "$(robj "$t/rref")" = "$(robj "$t/rterm")" ] &&
		cmp -s "$t/rref/model.txt" "$t/rterm/model.txt" &&
		cli_ok "batch: resumed model and objective as the uninterrupted run's, bit for bit" ||
		cli_fail "batch: resumed run" "objective $(robj "$t/rref") vs $(robj "$t/rterm")"
else
	cli_fail "batch: SIGTERM" "exit $rc: $(tail -2 "$t/term.log")"
fi
finish
