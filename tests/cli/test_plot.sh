# test_plot.sh: `evoforge plot RESULT_DIR [-o FILE]` (runtime/plot.c): short
# CPU runs of gp, de (3 problems) and aco print the command that plots them,
# and `evoforge plot` writes a PNG (non-empty, PNG signature) to
# DIR/convergence.png or -o FILE; mbp and svm write no history.csv and
# plot says so (exit 2); a missing folder, a missing or malformed
# history.csv (FILE:LINE) and no gnuplot on PATH exit 2 with a clear message.
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

expect_exit 0 "mbp: a short run" "$evo" run "$problems/mbp-xor.ini" "${cpu[@]}" \
	--set mbp.epochs=200 -o "$t/mbp"
expect_exit 2 "mbp: plot exits 2" "$evo" plot "$t/mbp"
expect_output "... saying why" "kind mbp writes no history.csv: nothing to plot"
expect_exit 0 "svm: a short run" "$evo" run "$problems/svm-sonar.ini" "${cpu[@]}" -o "$t/svm"
expect_exit 2 "svm: plot exits 2" "$evo" plot "$t/svm"
expect_output "... saying why" "kind svm writes no history.csv: nothing to plot"

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
expect_exit 2 "no gnuplot on PATH exits 2" env PATH=/nonexistent "$evo" plot "$t/gp"
expect_output "... saying what to install" "gnuplot not found: apt-get install gnuplot-nox"
expect_exit 0 "evoforge help plot" "$evo" help plot
expect_output "... the usage" "usage: evoforge plot RESULT_DIR [-o FILE.png]"
finish
