# test_plot.sh: `evoforge plot RESULT_DIR [-o FILE]` (runtime/plot.c): short
# CPU runs of gp, de (3 problems), aco, mbp (one network with a validation
# set; four over two folds) and svm (binary; three classes) print the
# command that plots them, and `evoforge plot` writes a PNG (non-empty, PNG
# signature) to DIR/convergence.png or -o FILE; mbp's and svm's history.csv
# hold what result.json says (mbp: the last row's RMS are the last epoch's
# training RMS and the validation RMS, lowest and mean over the networks;
# svm: each pair's last objective sums to the objective, its violation
# under eps, its last iteration the count); an svm grid search says its plot
# is grid.png (exit 2); a missing folder, a missing or malformed history.csv
# (FILE:LINE) and no gnuplot on PATH exit 2 with a clear message; every
# kind's result.json reports its start-up and compiles (none on the CPU).
# Needs gnuplot (tools/setup-debian installs gnuplot-nox).
# Usage: bash test_plot.sh PATH/TO/evoforge
source "$(dirname "$0")/lib.sh"
evo=$1
t=$cli_tmp
problems="$(dirname "$0")/../../problems"
cpu=(--backend cpu --threads 1 --seed 3)

# png NAME FILE: FILE is a non-empty PNG
png() {
	if [ -s "$2" ] && [ "$(head -c 8 "$2" | od -An -tx1 | tr -d ' \n')" = 89504e470d0a1a0a ]
	then cli_ok "$1"; else cli_fail "$1" "$(ls -l "$2" 2>&1; head -c 8 "$2" 2>/dev/null | od -c)"; fi
}
if ! command -v gnuplot >/dev/null; then
	cli_fail "gnuplot" "not on PATH: run tools/setup-debian (gnuplot-nox)"; finish; exit
fi

expect_exit 0 "gp: a short run" "$evo" run "$problems/sextic.ini" "${cpu[@]}" \
	--set gp.population=200 --set gp.generations=8 --set data.cases=100 -o "$t/gp"
expect_output "... says how to plot it" "plot: evoforge plot $t/gp"
expect_exit 0 "de: a short run of 3 problems" "$evo" run "$problems/de-sphere.ini" "${cpu[@]}" \
	--set de.problems=3 --set de.max_evals=0 --set de.generations=60 -o "$t/de"
expect_output "... says how to plot it" "plot: evoforge plot $t/de"
expect_exit 0 "aco: a short run" "$evo" run "$problems/aco-random.ini" "${cpu[@]}" \
	--set data.random=40 --set aco.iterations=30 --set aco.history_every=3 -o "$t/aco"
expect_output "... says how to plot it" "plot: evoforge plot $t/aco"
for k in gp de aco; do
	expect_exit 0 "$k: plot" "$evo" plot "$t/$k"
	expect_output "... names the file" "plot: $t/$k/convergence.png"
	png "... $k/convergence.png is a PNG" "$t/$k/convergence.png"
done
ls "$t"/gp/*.tmp.* >/dev/null 2>&1 && cli_fail "no temporary PNG left" "$(ls "$t/gp")" ||
	cli_ok "no temporary PNG left"
expect_exit 0 "gp: plot -o FILE" "$evo" plot "$t/gp" -o "$t/gp-other.png"
png "... FILE is a PNG" "$t/gp-other.png"
expect_exit 0 "gp: plot -q is quiet" "$evo" plot -q "$t/gp"
[ -s "$t/out" ] && cli_fail "... nothing printed" "$(cat "$t/out")" || cli_ok "... nothing printed"

# mbp: one network, validation on the odd patterns; four networks over two folds
expect_exit 0 "mbp: a short run" "$evo" run "$problems/mbp-sonar.ini" "${cpu[@]}" \
	--set mbp.epochs=300 -o "$t/mbp"
expect_output "... says how to plot it" "plot: evoforge plot $t/mbp"
expect_exit 0 "mbp: four networks over two folds" "$evo" run "$problems/mbp-sonar.ini" "${cpu[@]}" \
	--set mbp.epochs=150 --set mbp.networks=4 --set mbp.folds=2 --set mbp.mode=minibatch -o "$t/mbp4"
# svm: sonar (binary); three classes of blobs (three one-vs-one pairs)
expect_exit 0 "svm: a short run" "$evo" run "$problems/svm-sonar.ini" "${cpu[@]}" -o "$t/svm"
expect_output "... says how to plot it" "plot: evoforge plot $t/svm"
python3 - "$t/blobs.csv" <<'PY'
import random, sys
random.seed(4)
with open(sys.argv[1], "w") as f:
    f.write("a,b,c,label\n")
    for _ in range(300):
        k = random.randrange(3)
        f.write("%.4f,%.4f,%.4f,c%d\n" % (random.gauss(k, 1), random.gauss(-k, 1), random.gauss(0, 1), k))
PY
printf '[problem]\nkind = svm\nname = blobs\n[svm]\nC = 10\n[data]\ntrain = blobs.csv\nlabel = label\n' >"$t/blobs.ini"
expect_exit 0 "svm: three classes" "$evo" run "$t/blobs.ini" "${cpu[@]}" -o "$t/svm3"
for k in mbp mbp4 svm svm3; do
	expect_exit 0 "$k: plot" "$evo" plot "$t/$k"
	png "... $k/convergence.png is a PNG" "$t/$k/convergence.png"
done

# check_history NAME DIR: history.csv against result.json (python3)
check_history() {
	if out=$(python3 - "$2" <<'PY' 2>&1
import csv, json, struct, sys
d = sys.argv[1]
f32 = lambda x: struct.unpack("f", struct.pack("f", float(x)))[0]   # the training RMS is a float
res = json.load(open(d + "/result.json"))
rows = list(csv.DictReader(open(d + "/history.csv")))
assert rows, "no rows"
f = lambda r, k: float(r[k])
if res["kind"] == "mbp":
    nets = res["results"]
    last = rows[-1]
    assert int(last["epoch"]) == max(n["epochs"] for n in nets), (last, [n["epochs"] for n in nets])
    epochs = [int(r["epoch"]) for r in rows]
    assert epochs == sorted(set(epochs)), "epochs not ascending"
    if len(nets) == 1:
        assert f32(last["train_rms"]) == f32(nets[0]["last_epoch_rms"]), (last, nets[0])
        assert f(last, "valid_rms") == nets[0]["valid_rms"] == res["best_valid_rms"], (last, nets[0])
    else:
        assert f32(last["min_train_rms"]) == min(f32(n["last_epoch_rms"]) for n in nets), last
        assert f(last, "min_valid_rms") == res["best_valid_rms"], (last, res["best_valid_rms"])
        assert f(last, "mean_valid_rms") == res["mean_valid_rms"], (last, res["mean_valid_rms"])
        assert f(last, "mean_train_rms") == sum(f32(n["last_epoch_rms"]) for n in nets) / len(nets), last
    # the RMS falls: the last training RMS under the first
    key = "train_rms" if len(nets) == 1 else "min_train_rms"
    assert f(rows[-1], key) < f(rows[0], key), (rows[0], rows[-1])
else:
    pairs = {}
    for r in rows:
        pairs.setdefault(int(r["pair"]), []).append(r)
    k = res["classes"]
    assert sorted(pairs) == list(range(k * (k - 1) // 2)), sorted(pairs)
    last = [p[-1] for p in pairs.values()]
    assert sum(f(r, "objective") for r in last) == res["objective"] or \
        abs(sum(f(r, "objective") for r in last) - res["objective"]) <= 1e-12 * abs(res["objective"]), \
        (last, res["objective"])
    assert all(f(r, "gap") < res["eps"] for r in last), last
    assert sum(int(r["iteration"]) for r in last) == res["iterations"], (last, res["iterations"])
    for p in pairs.values():
        assert int(p[0]["iteration"]) == 0 and f(p[0], "objective") == 0, p[0]
        its = [int(r["iteration"]) for r in p]
        assert its == sorted(set(its)), "iterations not ascending"
        assert all(f(a, "objective") >= f(b, "objective") for a, b in zip(p, p[1:])), \
            "the dual objective rose"
print(len(rows), "rows")
PY
	); then cli_ok "$1 ($out)"; else cli_fail "$1" "$out"; fi
}
check_history "mbp: history.csv's last row is result.json's" "$t/mbp"
check_history "mbp, 4 networks: lowest and mean RMS as result.json's" "$t/mbp4"
check_history "svm: the last objective, violation < eps, iterations" "$t/svm"
check_history "svm, 3 pairs: the objectives sum to result.json's" "$t/svm3"
if grep -q '^0,0,0,2$' "$t/svm/history.csv"; then cli_ok "svm: row 0: objective 0, violation 2"
else cli_fail "svm: row 0: objective 0, violation 2" "$(head -3 "$t/svm/history.csv")"; fi
expect_exit 0 "svm: a grid search" "$evo" run "$problems/svm-sonar.ini" "${cpu[@]}" \
	--set grid.log2c=1,3,2 --set grid.log2g=-5,-7,-2 --set grid.folds=2 -o "$t/grid"
expect_exit 2 "svm grid: plot exits 2" "$evo" plot "$t/grid"
expect_output "... pointing at grid.png" "an svm grid search writes no history.csv; its plot is $t/grid/grid.png"

expect_exit 2 "a missing folder exits 2" "$evo" plot "$t/none"
expect_output "... naming it" "$t/none: No such file or directory (expected the results folder"
mkdir "$t/empty"
expect_exit 2 "a folder without history.csv exits 2" "$evo" plot "$t/empty"
expect_output "... naming the file" "$t/empty/history.csv: No such file or directory"
expect_exit 2 "no RESULT_DIR exits 2" "$evo" plot
expect_output "... with the usage" "plot: expected RESULT_DIR"
mkdir "$t/bad"
printf 'generation,best,mean,mean_size,best_size\n0,1,2,3,4\n1,1,2,x,4\n' >"$t/bad/history.csv"
expect_exit 2 "a malformed row exits 2" "$evo" plot "$t/bad"
expect_output "... naming FILE:LINE" "$t/bad/history.csv:3: expected 5 comma-separated numbers"
printf 'generation,best,mean,mean_size,best_size\n0,1,2,3\n' >"$t/bad/history.csv"
expect_exit 2 "a short row exits 2" "$evo" plot "$t/bad"
expect_output "... naming FILE:LINE" "$t/bad/history.csv:2:"
printf 'generation,best\n' >"$t/bad/history.csv"
expect_exit 2 "a header without rows exits 2" "$evo" plot "$t/bad"
expect_output "... saying so" "expected rows of numbers under the header"
cp "$t/gp/history.csv" "$t/bad/history.csv"
printf '{"kind": "gp",\n "problem": \n' >"$t/bad/result.json"
expect_exit 2 "a malformed result.json exits 2" "$evo" plot "$t/bad"
expect_output "... naming FILE:LINE" "$t/bad/result.json:"
# every kind's result.json reports its start-up (runtime/kprep.h); on the CPU nothing compiles
for k in gp de aco mbp svm grid; do
	if grep -q '"startup_s": [0-9]' "$t/$k/result.json" && grep -q '"compiles": 0,' "$t/$k/result.json" &&
		grep -q '"compiles_in_run": 0' "$t/$k/result.json"; then
		cli_ok "$k: result.json has startup_s, compiles and compiles_in_run"
	else
		cli_fail "$k: result.json start-up figures" "$(grep -E 'startup|compile' "$t/$k/result.json")"
	fi
done
expect_exit 2 "no gnuplot on PATH exits 2" env PATH=/nonexistent "$evo" plot "$t/gp"
expect_output "... saying what to install" "gnuplot not found: apt-get install gnuplot-nox"
expect_exit 0 "evoforge help plot" "$evo" help plot
expect_output "... the usage" "usage: evoforge plot RESULT_DIR [-o FILE.png]"
finish
