# test_cli.sh: the command line: help, argument errors, broken specs (exit 2
# with file:line), `gen`, `info`. Usage: bash test_cli.sh PATH/TO/evoforge
source "$(dirname "$0")/lib.sh"
evo=$1

expect_exit 0 "help" "$evo" --help
expect_output "help lists run" "run [SPEC]"
for cmd in run gen bench info; do
	expect_exit 0 "$cmd --help" "$evo" "$cmd" --help
	expect_output "$cmd --help shows usage" "usage: evoforge $cmd"
done
expect_exit 2 "unknown command" "$evo" frobnicate
expect_exit 2 "bad --backend" "$evo" run --backend tpu
expect_output "bad --backend message" "expected auto, cpu or gpu, got 'tpu'"
expect_exit 2 "bad --seed" "$evo" run --seed -3
expect_exit 2 "unknown option" "$evo" run --frobnicate
expect_exit 2 "long option without its value" "$evo" run --seed
expect_output "missing value names the option" "option --seed: missing its value"
expect_exit 2 "--threads beyond int" "$evo" run --threads 4294967298
expect_output "--threads range message" "--threads: expected an integer in [1,"

printf '[problem]\nkind = gp\nname = x\n[gp]\npopulaton = 10\n' >"$cli_tmp/typo.ini"
expect_exit 2 "unknown key exits 2" "$evo" run "$cli_tmp/typo.ini"
expect_output "unknown key names file:line" "typo.ini:5: unknown key 'populaton' in section [gp]"

printf '[problem]\nkind = gp\nname = x\n[gp]\npopulation = many\n' >"$cli_tmp/bad.ini"
expect_exit 2 "bad value exits 2" "$evo" run "$cli_tmp/bad.ini"
expect_output "bad value names file:line" "bad.ini:5: [gp] population: expected an integer"

printf '[problem]\nkind = quantum\n' >"$cli_tmp/kind.ini"
expect_exit 2 "unknown kind exits 2" "$evo" run "$cli_tmp/kind.ini"
expect_output "unknown kind message" "kind.ini:2: [problem] kind: expected one of gp, de"

printf '[problem\nkind = gp\n' >"$cli_tmp/syntax.ini"
expect_exit 2 "syntax error exits 2" "$evo" run "$cli_tmp/syntax.ini"
expect_output "syntax error names line" "syntax.ini:1: syntax error"

# A broken data file: file:line:col and exit 2, and no results written.
printf 'a,b,label\n1,2,x\n3,oops,y\n' >"$cli_tmp/bad.csv"
printf '[problem]\nkind = gp\nname = badcsv\n[gp]\ngenerations = 1\n[data]\nsource = csv\nfile = bad.csv\nlabel = label\n' >"$cli_tmp/badcsv.ini"
expect_exit 2 "broken CSV exits 2" "$evo" run --backend cpu "$cli_tmp/badcsv.ini" -o "$cli_tmp/badcsv-out"
expect_output "broken CSV names file:line:col" "bad.csv:3:3: expected a number in column 'b', got 'oops'"
if [ -e "$cli_tmp/badcsv-out/result.json" ]; then cli_fail "no result after bad data" "result.json written"; else cli_ok "no result after bad data"; fi
printf '[problem]\nkind = gp\nname = nodata\n[data]\nsource = csv\nfile = no-such.csv\n' >"$cli_tmp/nodata.ini"
expect_exit 2 "missing data file exits 2" "$evo" run --backend cpu "$cli_tmp/nodata.ini"
expect_output "missing data file says where it looked" "data file 'no-such.csv' not found"

# A short run of the default problem writes its results atomically.
expect_exit 0 "run default problem" "$evo" run --backend cpu --generations 2 -o "$cli_tmp/run"
expect_output "run prints generations" "gen    2"
if python3 -c "import json,sys; d=json.load(open(sys.argv[1])); assert d['kind']=='gp'" "$cli_tmp/run/result.json" 2>/dev/null; then
	cli_ok "result.json is valid JSON"
else
	cli_fail "result.json is valid JSON" "$cli_tmp/run/result.json"
fi
if ls "$cli_tmp"/run/*.tmp.* >/dev/null 2>&1; then cli_fail "no temporary files left" "found"; else cli_ok "no temporary files left"; fi
expect_exit 0 "run de sphere (cpu)" "$evo" run --backend cpu problems/de-sphere.ini --set de.max_evals=3000 -o "$cli_tmp/de"
expect_output "de run reports" "result.json and history.csv"
# a run to a target under a huge generation limit: the history is thinned to
# fit in memory (said), and history.csv ends at the last generation run
expect_exit 0 "de: to a target, generations = 100000000" "$evo" run --backend cpu problems/de-sphere.ini \
	--set de.problems=30 --set de.max_evals=0 --set de.generations=100000000 --set de.target=1e-6 \
	-o "$cli_tmp/de-far"
expect_output "... the history thinned, said" "de: history every 180 generations, not 10"
last=$(python3 -c "import json,sys; print(max(r['generations'] for r in json.load(open(sys.argv[1]))['results']))" \
	"$cli_tmp/de-far/result.json")
rows=$(wc -l <"$cli_tmp/de-far/history.csv")
end=$(tail -n 1 "$cli_tmp/de-far/history.csv" | cut -d, -f1)
if [ "$rows" -lt 100 ] && [ "$end" -le "$last" ] && [ $((end + 180)) -gt "$last" ]; then
	cli_ok "... history.csv ends at the last generation run ($rows lines, generation $end of $last)"
else cli_fail "... history.csv" "$rows lines, last generation $end, run to $last"; fi

expect_exit 2 "missing spec file" "$evo" run "$cli_tmp/none.ini"
expect_output "missing spec message" "none.ini: cannot open spec"

expect_exit 0 "info" "$evo" info
expect_output "info shows nvrtc" "nvrtc:"
expect_output "info shows kernel cache" "kernel cache:"

expect_exit 0 "gen sextic" "$evo" gen problems/sextic.ini -o "$cli_tmp/gen"
expect_output "gen says where" "$cli_tmp/gen"
if ls "$cli_tmp"/gen/*.cu >/dev/null 2>&1 && grep -q "do not edit" "$cli_tmp"/gen/*.cu; then
	cli_ok "gen wrote CUDA source"
else
	cli_fail "gen wrote CUDA source" "no .cu with a do-not-edit banner in $cli_tmp/gen"
fi
expect_exit 2 "gen without -o" "$evo" gen problems/sextic.ini

# kind aco: a short run on generated cities writes result.json, history.csv
# and a TSPLIB .tour whose length is the reported best.
expect_exit 0 "run aco random (cpu)" "$evo" run --backend cpu problems/aco-random.ini \
	--set data.random=120 --set aco.iterations=30 --set aco.report_every=10 -o "$cli_tmp/aco"
expect_output "aco progress line" "aco: iter 30/30"
expect_output "aco run reports" "wrote $cli_tmp/aco/result.json, history.csv and best.tour"
if python3 - "$cli_tmp/aco" <<'PY' 2>"$cli_tmp/aco-check"
import json, math, random, sys
d = json.load(open(sys.argv[1] + "/result.json"))
assert d["kind"] == "aco" and d["cities"] == 120 and d["iterations"] == 30, d
lines = open(sys.argv[1] + "/best.tour").read().split("\n")
i = lines.index("TOUR_SECTION")
tour = [int(x) - 1 for x in lines[i + 1:i + 121]]
assert sorted(tour) == list(range(120)) and lines[i + 121].strip() == "-1", lines[i + 121]
# the cities again, as evoforge generates them, are not known here: check the
# history instead: best lengths never increase and end at the result's
rows = [l.split(",") for l in open(sys.argv[1] + "/history.csv").read().split()[1:]]
best = [int(r[1]) for r in rows]
assert best == sorted(best, reverse=True) and best[-1] == d["best_length"], best
PY
then cli_ok "aco result.json, best.tour and history.csv agree"; else
	cli_fail "aco result.json, best.tour and history.csv agree" "$(cat "$cli_tmp/aco-check")"; fi
printf '[problem]\nkind = aco\n[data]\nfile = no-such.tsp\n' >"$cli_tmp/aco-missing.ini"
expect_exit 2 "aco missing instance exits 2" "$evo" run --backend cpu "$cli_tmp/aco-missing.ini"
expect_output "aco missing instance says where it looked" "no-such.tsp"

# kind mbp: two-spirals learned on the CPU; the files a run writes; bad specs
expect_exit 0 "run mbp spirals (cpu)" "$evo" run --backend cpu problems/mbp-spirals.ini \
	--set mbp.report_every=5000 -o "$cli_tmp/mbp"
expect_output "mbp progress line" "mbp: epoch 5000/20000"
expect_output "mbp learns the two spirals" "accuracy 100.00% train"
expect_output "mbp run reports" "wrote $cli_tmp/mbp/result.json, network.net and predictions.csv"
if python3 - "$cli_tmp/mbp" <<'PY' 2>"$cli_tmp/mbp-check"
import csv, json, sys
d = json.load(open(sys.argv[1] + "/result.json"))
assert d["kind"] == "mbp" and d["layers"] == [2, 20, 10, 1] and d["space_network"], d
r = d["results"][0]
assert r["reached"] and r["train_rms"] <= 0.0101 and r["train_accuracy"] == 1.0, r
rows = list(csv.DictReader(open(sys.argv[1] + "/predictions.csv")))
assert len(rows) == 194 and all(x["class"] == x["predicted"] for x in rows)
assert "evoforge-mbp 1\n" in open(sys.argv[1] + "/network.net").read()
PY
then cli_ok "mbp result.json, network.net and predictions.csv agree"; else
	cli_fail "mbp result.json, network.net and predictions.csv agree" "$(cat "$cli_tmp/mbp-check")"; fi
printf '[problem]\nkind = mbp\n[data]\nsource = csv\nfile = no-such.csv\n' >"$cli_tmp/mbp-missing.ini"
expect_exit 2 "mbp missing data exits 2" "$evo" run --backend cpu "$cli_tmp/mbp-missing.ini"
expect_output "mbp missing data says where it looked" "no-such.csv"
expect_exit 2 "mbp bad mode exits 2" "$evo" run --backend cpu problems/mbp-xor.ini --set mbp.mode=fast
expect_output "mbp bad mode names the key" "mbp.mode"
printf 'NAME : bad\nTYPE : TSP\nDIMENSION : 3\nEDGE_WEIGHT_TYPE : EUC_2D\nNODE_COORD_SECTION\n1 0 0\n2 x 1\n3 1 1\nEOF\n' >"$cli_tmp/bad.tsp"
printf '[problem]\nkind = aco\n[data]\nfile = bad.tsp\n' >"$cli_tmp/aco-bad.ini"
expect_exit 2 "aco broken instance exits 2" "$evo" run --backend cpu "$cli_tmp/aco-bad.ini"
expect_output "aco broken instance names file:line" "bad.tsp:7:"
expect_exit 0 "gen aco" "$evo" gen problems/aco-random.ini -o "$cli_tmp/gen-aco"
if grep -q "do not edit" "$cli_tmp"/gen-aco/*.cu 2>/dev/null; then cli_ok "gen aco wrote CUDA source"; else
	cli_fail "gen aco wrote CUDA source" "no .cu in $cli_tmp/gen-aco"; fi
expect_exit 0 "bench aco --help" "$evo" bench aco --help
expect_output "bench aco help lists options" "--construction"

finish
