# test_svm_prob.sh: probability estimates (-b 1) against LIBSVM 3.24's own
# svm-train -b 1 and svm-predict -b 1 (/usr/bin, Debian's libsvm-tools), on
# random binary, 3-class and regression data made here:
#  - the prediction math alone: our svm-predict -b 1 on LIBSVM's model gives
#    LIBSVM's lines: the same "labels" line and labels, every probability
#    within 1e-6 (both print "%g": one unit of the 6th digit), the
#    regression's sigma line the same;
#  - the training: our probA/probB (sigma) against LIBSVM's at -e 1e-9
#    within 1e-4 relative (the folds are LIBSVM's: its rand() shuffle,
#    rebuilt); our model's probabilities on LIBSVM's svm-predict: at -e 1e-9
#    within 1e-4 of its own model's, the same labels; at the default
#    tolerance within 2e-2 (nu-SVC's slack; C-SVC's is under 3e-4) and the
#    same labels on all but 1 % of the points (ties of the solvers' last bits);
#  - the model file's header lines as LIBSVM's (probA, probB between label
#    and nr_sv; a regression's one probA), read back by LIBSVM;
#  - `run` with [svm] probability = on: result.json and predictions.csv;
#  - bad use: -b 1 with one-class (LIBSVM refuses it too), -b 2, svm-predict
#    -b 1 with a model without probabilities.
# Skips the comparisons (with the reason) when LIBSVM is not installed.
# Usage: bash test_svm_prob.sh PATH/TO/evoforge
source "$(dirname "$0")/lib.sh"
evo=$1
t=$cli_tmp

. "$(dirname "$0")/svm_data.sh"   # svm_gen

# probs NAME A B TOL LABELS_BAD_MAX: two svm-predict -b 1 outputs agree: the
# first line, labels (at most LABELS_BAD_MAX points apart), each
# probability within TOL; says the largest difference.
probs() {
	if [ "$(head -1 "$2")" != "$(head -1 "$3")" ]; then
		cli_fail "$1" "first lines differ: '$(head -1 "$2")' vs '$(head -1 "$3")'"; return
	fi
	if awk -v tol="$4" -v maxbad="$5" 'NR == FNR { a[FNR] = $0; n = FNR; next }
		FNR > 1 { k = split(a[FNR], u, " "); split($0, v, " ")
			  if (u[1] != v[1]) bad++
			  for (c = 2; c <= k; c++) { d = u[c] - v[c]; d = d < 0 ? -d : d; if (d > m) m = d } }
		END { printf "max probability difference %g, %d labels differ\n", m, bad
		      exit m > tol || bad > maxbad || FNR != n }' "$2" "$3" >"$t/why"; then
		cli_ok "$1 ($(cat "$t/why"))"
	else
		cli_fail "$1" "$(cat "$t/why")"
	fi
}

# params NAME A B TOL: the probA/probB lines of two models within TOL relative.
params() {
	if paste -d'|' <(grep -E '^prob[AB] ' "$2") <(grep -E '^prob[AB] ' "$3") |
	   awk -F'|' -v tol="$4" '{ k = split($1, u, " "); split($2, v, " "); n++
		if (u[1] != v[1]) bad = 1
		for (c = 2; c <= k; c++) { d = u[c] - v[c]; d = d < 0 ? -d : d; s = u[c] < 0 ? -u[c] : u[c]
			r = d / (s > 1 ? s : 1); if (r > m) m = r } }
		END { printf "max relative difference %g\n", m; exit bad || !n || m > tol }' >"$t/why"; then
		cli_ok "$1 ($(cat "$t/why"))"
	else
		cli_fail "$1" "$(cat "$t/why") $(grep -E '^prob' "$2" "$3" | tr '\n' ';')"
	fi
}

# check NAME DATA ARGS...: the three comparisons above for one training.
check() {
	local name=$1 data=$2 reg=0
	shift 2
	case " $* " in *" -s 3 "*|*" -s 4 "*) reg=1 ;; esac
	svm-train -q -h 0 -b 1 "$@" "$data" "$t/l.model" >/dev/null 2>&1
	if ! "$evo" svm-train -q --backend cpu -h 0 -b 1 "$@" "$data" "$t/e.model" >"$t/e.log" 2>&1; then
		cli_fail "$name" "evoforge svm-train -b 1 failed: $(tail -2 "$t/e.log")"; return
	fi
	diff <(sed '/^SV$/q' "$t/l.model" | cut -d' ' -f1) <(sed '/^SV$/q' "$t/e.model" | cut -d' ' -f1) \
		>/dev/null && cli_ok "$name: model header lines as LIBSVM's" ||
		cli_fail "$name" "header lines differ: $(sed '/^SV$/q' "$t/e.model" | cut -d' ' -f1 | tr '\n' ' ')"
	svm-predict -b 1 "$data" "$t/l.model" "$t/l.out" >"$t/lp.log" 2>&1
	"$evo" svm-predict -b 1 --backend cpu "$data" "$t/l.model" "$t/el.out" >"$t/ep.log" 2>&1
	svm-predict -b 1 "$data" "$t/e.model" "$t/le.out" >/dev/null 2>&1
	if [ "$reg" = 1 ]; then
		cmp -s <(grep sigma "$t/lp.log") <(grep sigma "$t/ep.log") &&
			cli_ok "$name: our svm-predict's sigma line on LIBSVM's model" ||
			cli_fail "$name" "sigma lines differ: $(grep -h sigma "$t/lp.log" "$t/ep.log" | tr '\n' ';')"
	else
		probs "$name: our svm-predict -b 1 on LIBSVM's model" "$t/l.out" "$t/el.out" 1.01e-6 0
		probs "$name: LIBSVM's svm-predict -b 1 on our model" "$t/l.out" "$t/le.out" 2e-2 \
			$(($(wc -l <"$data") / 100))
	fi
	svm-train -q -h 0 -e 1e-9 -b 1 "$@" "$data" "$t/l.model" >/dev/null 2>&1
	"$evo" svm-train -q --backend cpu -h 0 -e 1e-9 -b 1 "$@" "$data" "$t/e.model" >/dev/null 2>&1
	params "$name: probA/probB as LIBSVM's at -e 1e-9" "$t/l.model" "$t/e.model" 1e-4
	[ "$reg" = 1 ] && return
	svm-predict -b 1 "$data" "$t/l.model" "$t/l.out" >/dev/null 2>&1
	svm-predict -b 1 "$data" "$t/e.model" "$t/le.out" >/dev/null 2>&1
	probs "$name: at -e 1e-9, LIBSVM's svm-predict -b 1 on our model" "$t/l.out" "$t/le.out" \
		1e-4 0
}

svm_gen 1 bin 150 5 >"$t/bin.txt"
svm_gen 2 multi 180 4 >"$t/multi.txt"
svm_gen 3 reg 160 5 >"$t/reg.txt"
if ! command -v svm-train >/dev/null || ! command -v svm-predict >/dev/null; then
	echo "SKIP: LIBSVM's svm-train / svm-predict not installed (apt-get install libsvm-tools): no comparison"
else
	check "C-SVC binary" "$t/bin.txt" -s 0 -c 2
	check "C-SVC weighted" "$t/bin.txt" -s 0 -w1 3 -w-1 0.5
	check "C-SVC 3 classes" "$t/multi.txt" -s 0 -c 4 -g 0.5
	check "nu-SVC 3 classes" "$t/multi.txt" -s 1 -n 0.2
	check "epsilon-SVR" "$t/reg.txt" -s 3 -p 0.1 -c 4
	check "nu-SVR" "$t/reg.txt" -s 4 -n 0.4
fi

# `run` with [svm] probability = on
printf '[problem]\nkind = svm\nname = p\n[svm]\nprobability = on\nC = 4\n[data]\ntrain = %s\ntest = %s\n' \
	"$t/multi.txt" "$t/multi.txt" >"$t/p.ini"
expect_exit 0 "run with probability = on" "$evo" run "$t/p.ini" --backend cpu -q -o "$t/run"
grep -q '"probability": true' "$t/run/result.json" && grep -q '"probB"' "$t/run/result.json" &&
	cli_ok "result.json: probability, probA, probB" || cli_fail "result.json" "no probability keys"
head -1 "$t/run/predictions.csv" | grep -qx 'point,label,predicted,p_[0-9],p_[0-9],p_[0-9]' &&
	awk -F, 'NR > 1 { s = $4 + $5 + $6; if (s < 0.999999 || s > 1.000001) bad++ } END { exit bad }' \
		"$t/run/predictions.csv" && cli_ok "predictions.csv: probabilities adding up to 1" ||
	cli_fail "predictions.csv" "$(head -2 "$t/run/predictions.csv" | tr '\n' ';')"
grep -q '^probA ' "$t/run/model.txt" && cli_ok "run's model.txt has probA" ||
	cli_fail "run's model.txt" "no probA line"

# bad use: clear messages
expect_exit 2 "-b 1 with one-class" "$evo" svm-train -s 2 -b 1 "$t/bin.txt" "$t/x.model"
expect_output "-b 1 with one-class message" "probability estimates (-b 1) of one_class are not supported"
expect_exit 2 "-b 2" "$evo" svm-train -b 2 "$t/bin.txt" "$t/x.model"
expect_output "-b 2 message" "-b: expected an integer from 0 to 1, got '2'"
"$evo" svm-train -q "$t/bin.txt" "$t/plain.model" >/dev/null 2>&1
expect_exit 2 "svm-predict -b 1 without a probability model" "$evo" svm-predict -b 1 \
	"$t/bin.txt" "$t/plain.model" "$t/x.out"
expect_output "svm-predict -b 1 message" "has no probability model"
printf '[problem]\nkind = svm\n[svm]\ntype = one_class\nprobability = on\n[data]\ntrain = %s\n' \
	"$t/bin.txt" >"$t/o.ini"
expect_exit 2 "spec: one_class with probability" "$evo" run "$t/o.ini" --backend cpu -q -o "$t/o"
expect_output "spec: one_class message" "svm.probability = on: expected off for type = one_class"
finish
