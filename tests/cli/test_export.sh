# test_export.sh: `evoforge export` and `evoforge eval` round trips on the
# CPU: a short sextic run and a short Shuttle run exported to C, the C file
# compiled alone with cc -std=c99 -Wall -Werror, NAME-eval's predictions
# equal to evoforge eval's (the runtime's interpreter) byte for byte, and
# Shuttle's misclassified count on its own data equal to the run's fitness;
# with no CUDA driver (EVOFORGE_LIBCUDA pointing nowhere): --backend auto
# falls back to the CPU with the same output, --backend gpu fails clearly
# (eval and NAME-eval); a Boolean program (mux6) exported and evaluated on
# its truth table, its wrong-case count equal to the run's fitness;
# de / aco artefacts; svm and mbp models exported as C (blobs with RBF,
# linear and polynomial kernels, Sonar, a Shuttle sample; MBP and BP
# networks, two hidden layers, 7 outputs), compiled with -Werror, their
# NAME-eval equal to evoforge eval and to the run's own predictions (svm:
# also to LIBSVM's svm-predict when installed); bad input exits 2 naming
# the file.
# Usage: bash test_export.sh PATH/TO/evoforge
source "$(dirname "$0")/lib.sh"
evo=$1
t=$cli_tmp
have_cc=0; command -v cc >/dev/null 2>&1 && have_cc=1

expect_exit 0 "help export" "$evo" help export
expect_output "help export usage" "usage: evoforge export RESULT.json -o DIR"
expect_exit 0 "eval --help" "$evo" eval --help
expect_output "eval usage" "usage: evoforge eval RESULT.json DATA"
expect_exit 2 "export without -o" "$evo" export x.json
expect_output "export names what it expected" "expected RESULT.json and -o DIR"

# ---- gp: sextic ------------------------------------------------------------
expect_exit 0 "gp sextic run" "$evo" run problems/sextic.ini --backend cpu -q --generations 8 \
	--population 300 --set data.cases=2000 -o "$t/sextic"
expect_exit 0 "gp sextic export" "$evo" export "$t/sextic/result.json" -o "$t/sx"
python3 - "$t/sx.csv" <<'PY'
import random, struct, sys
random.seed(7)
with open(sys.argv[1], "w") as f:
    f.write("id,x\n")
    for i in range(5000):
        x = struct.unpack("f", struct.pack("f", random.uniform(-1.5, 1.5)))[0]
        f.write("%d,%.9g\n" % (i, x))
PY
expect_exit 0 "gp sextic eval" "$evo" eval "$t/sextic/result.json" "$t/sx.csv" -o "$t/sx-evo.csv"
if [ $have_cc = 1 ]; then
	expect_exit 0 "sextic.c alone: cc -std=c99 -Wall -Werror" \
		cc -std=c99 -Wall -Werror -c "$t/sx/sextic.c" -o "$t/sx.o"
	expect_exit 0 "sextic-eval runs" "$t/sx/sextic-eval" "$t/sx.csv" -o "$t/sx-c.csv"
	expect_exit 0 "sextic: NAME-eval == evoforge eval, bit for bit" cmp "$t/sx-c.csv" "$t/sx-evo.csv"
	expect_exit 0 "sextic-eval (+ kernels) builds: cc -std=c99 -Wall -Werror -ldl" \
		cc -std=c99 -Wall -Werror -o "$t/sx-eval2" "$t/sx/sextic-eval.c" "$t/sx/sextic.c" \
		"$t/sx/sextic-kernels.c" -lm -ldl
	expect_exit 0 "sextic-eval builds without the GPU path (-DEVO_NO_GPU)" \
		cc -std=c99 -Wall -Werror -DEVO_NO_GPU -o "$t/sx-eval3" "$t/sx/sextic-eval.c" \
		"$t/sx/sextic.c" "$t/sx/sextic-kernels.c" -lm
	expect_exit 0 "sextic-eval --backend auto, no driver" env EVOFORGE_LIBCUDA=/nonexistent/libcuda.so.1 \
		"$t/sx/sextic-eval" --backend auto "$t/sx.csv" -o "$t/sx-auto.csv"
	expect_output "auto warns once that it runs on the CPU" "warning: running on the CPU: no CUDA driver"
	expect_exit 0 "sextic-eval auto (CPU fallback) == evoforge eval" cmp "$t/sx-auto.csv" "$t/sx-evo.csv"
	expect_exit 1 "sextic-eval --backend gpu, no driver: fails" env EVOFORGE_LIBCUDA=/nonexistent/libcuda.so.1 \
		"$t/sx/sextic-eval" --backend gpu "$t/sx.csv" -o "$t/sx-gpu.csv"
	expect_output "sextic-eval --backend gpu says why" "sextic-eval: --backend gpu: no CUDA driver"
	printf 'y\n1\n' >"$t/nox.csv"
	expect_exit 2 "sextic-eval: missing column" "$t/sx/sextic-eval" "$t/nox.csv"
	expect_output "sextic-eval names file, line, column" "nox.csv:1: expected a column named 'x'"
else
	echo "SKIP: no cc: the exported C is not compiled"
fi
expect_exit 0 "eval --backend auto, no driver" env EVOFORGE_LIBCUDA=/nonexistent/libcuda.so.1 \
	"$evo" eval --backend auto "$t/sextic/result.json" "$t/sx.csv" -o "$t/sx-evo-auto.csv"
expect_output "eval auto warns that it runs on the CPU" "running on the CPU"
expect_exit 0 "eval auto (CPU fallback) == eval --backend cpu" cmp "$t/sx-evo-auto.csv" "$t/sx-evo.csv"
expect_exit 1 "eval --backend gpu, no driver: fails" env EVOFORGE_LIBCUDA=/nonexistent/libcuda.so.1 \
	"$evo" eval --backend gpu "$t/sextic/result.json" "$t/sx.csv" -o "$t/sx-evo-gpu.csv"
expect_output "eval --backend gpu says why" "--backend gpu: no CUDA driver"
if [ -f "$t/sx/sextic-kernels.c" ] && grep -q "sextic_cubin_sm\[.*90" "$t/sx/sextic-kernels.c"; then
	cli_ok "sextic-kernels.c embeds an sm_90 cubin"
else cli_fail "sextic-kernels.c" "no sm_90 cubin (NVRTC missing?)"; fi
printf 'x\n1\n' >"$t/one.csv"
[ -f "$t/nox.csv" ] || printf 'y\n1\n' >"$t/nox.csv"
expect_exit 2 "eval: CSV missing a column" "$evo" eval "$t/sextic/result.json" "$t/nox.csv"
expect_output "eval names the file and the column" "nox.csv:1: expected a column named 'x'"

# ---- gp: Shuttle -------------------------------------------------------------
shuttle=data/uci/shuttle.csv   # shipped
if [ -f "$shuttle" ]; then
	expect_exit 0 "gp shuttle run" "$evo" run problems/shuttle.ini --backend cpu -q \
		--generations 2 --population 60 -o "$t/shuttle"
	expect_exit 0 "gp shuttle export" "$evo" export "$t/shuttle/result.json" -o "$t/sh"
	"$evo" eval "$t/shuttle/result.json" "$shuttle" -o "$t/sh-evo.csv" 2>"$t/sh-eval.err"
	fit=$(python3 -c "import json,sys; print('%d' % json.load(open(sys.argv[1]))['best']['fitness'])" "$t/shuttle/result.json")
	if grep -qF "misclassified $fit on the 58000 rows" "$t/sh-eval.err"; then
		cli_ok "shuttle: eval's misclassified count == the run's fitness ($fit)"
	else cli_fail "shuttle eval fitness" "run $fit; eval said: $(cat "$t/sh-eval.err")"; fi
	if [ $have_cc = 1 ]; then
		expect_exit 0 "shuttle.c alone: cc -std=c99 -Wall -Werror" \
			cc -std=c99 -Wall -Werror -c "$t/sh/shuttle.c" -o "$t/sh.o"
		expect_exit 0 "shuttle-eval runs" "$t/sh/shuttle-eval" "$shuttle" -o "$t/sh-c.csv"
		expect_exit 0 "shuttle: NAME-eval == evoforge eval" cmp "$t/sh-c.csv" "$t/sh-evo.csv"
	fi
else
	cli_fail "Shuttle round trip" "$shuttle missing (it ships with evoforge)"
fi

# ---- gp: a Boolean program (6-multiplexer) ------------------------------------
expect_exit 0 "gp mux6 run" "$evo" run problems/mux6.ini --backend cpu -q --generations 3 \
	--population 200 -o "$t/mux6"
expect_exit 0 "gp mux6 export" "$evo" export "$t/mux6/result.json" -o "$t/mx" --arch sm_90
expect_output "mux6 export: one cubin" "(1 cubins)"
python3 - "$t/mux6.csv" <<'PY'
import sys
with open(sys.argv[1], "w") as f:
    f.write("d3,d2,d1,d0,a1,a0,y\n")           # any column order
    for cs in range(64):
        bit = [(cs >> i) & 1 for i in range(6)]  # a0 a1 d0 d1 d2 d3
        y = bit[2 + (bit[0] | bit[1] << 1)]
        f.write(",".join(map(str, [bit[5], bit[4], bit[3], bit[2], bit[1], bit[0], y])) + "\n")
PY
"$evo" eval "$t/mux6/result.json" "$t/mux6.csv" -o "$t/mx-evo.csv" 2>"$t/mx-eval.err"
fit=$(python3 -c "import json,sys; print('%d' % json.load(open(sys.argv[1]))['best']['fitness'])" "$t/mux6/result.json")
wrong=$(paste -d, "$t/mux6.csv" "$t/mx-evo.csv" | awk -F, 'NR > 1 && $7 != $8 { w++ } END { print w + 0 }')
if [ "$wrong" = "$fit" ] && grep -qF "wrong $fit on the 64 rows" "$t/mx-eval.err"; then
	cli_ok "mux6: wrong cases of eval's outputs on the truth table == the run's fitness ($fit)"
else cli_fail "mux6 wrong cases" "run $fit, outputs $wrong; eval said: $(cat "$t/mx-eval.err")"; fi
if [ $have_cc = 1 ]; then
	expect_exit 0 "mux6 exported: cc -std=c99 -Wall -Werror" cc -std=c99 -Wall -Werror \
		-o "$t/mx-eval" "$t/mx/mux6-eval.c" "$t/mx/mux6.c" "$t/mx/mux6-kernels.c" -lm -ldl
	expect_exit 0 "mux6-eval runs (auto, no driver)" env EVOFORGE_LIBCUDA=/nonexistent/libcuda.so.1 \
		"$t/mx/mux6-eval" "$t/mux6.csv" -o "$t/mx-c.csv"
	expect_exit 0 "mux6: NAME-eval == evoforge eval" cmp "$t/mx-c.csv" "$t/mx-evo.csv"
	printf 'a0,a1,d0,d1,d2,d3\n0,1,2,0,0,0\n' >"$t/mx-bad.csv"
	expect_exit 2 "mux6-eval: a non-Boolean input" "$t/mx/mux6-eval" --backend cpu "$t/mx-bad.csv"
	expect_output "mux6-eval names line and column" "mx-bad.csv:2: column 'd0': expected 0 or 1"
fi

# ---- bad result files --------------------------------------------------------
echo '{"kind": "gp", "problem": "x"' >"$t/broken.json"
expect_exit 2 "export: truncated JSON" "$evo" export "$t/broken.json" -o "$t/b"
expect_output "truncated JSON names file and line" "broken.json:2: expected ',' or '}', got the end of the file"
echo '[1, 2]' >"$t/foreign.json"
expect_exit 2 "export: foreign JSON" "$evo" export "$t/foreign.json" -o "$t/b"
expect_output "foreign JSON message" "expected an evoforge result.json"
echo '{"kind": "gp", "problem": "x"}' >"$t/nobest.json"
expect_exit 2 "export: result without a program" "$evo" eval "$t/nobest.json" "$t/sx.csv"
expect_output "names the missing member" "expected a member 'best.prefix'"

# ---- de, aco, svm, mbp ---------------------------------------------------------
expect_exit 0 "de run" "$evo" run problems/de-sphere.ini --backend cpu -q --set de.generations=5 -o "$t/de"
expect_exit 0 "de export" "$evo" export "$t/de/result.json" -o "$t/deo"
if python3 - "$t/de/result.json" "$t/deo/best.csv" "$t/deo/best.json" <<'PY'
import csv, json, struct, sys
f32 = lambda v: struct.unpack("f", struct.pack("f", float(v)))[0]
r = json.load(open(sys.argv[1]))["results"]
rows = list(csv.reader(open(sys.argv[2])))[1:]
j = json.load(open(sys.argv[3]))["best"]
assert len(rows) == len(r) == len(j)
for a, b, c in zip(r, rows, j):
    assert [f32(v) for v in b[2:]] == [f32(v) for v in a["x"]] == [f32(v) for v in c["x"]]
    assert f32(b[1]) == f32(a["best"]) == f32(c["best"])
PY
then cli_ok "de: best.csv and best.json hold the run's vectors"; else cli_fail "de export" "vectors differ"; fi

python3 - "$t/tiny.tsp" <<'PY'
import random, sys
random.seed(3)
with open(sys.argv[1], "w") as f:
    f.write("NAME : tiny30\nTYPE : TSP\nDIMENSION : 30\nEDGE_WEIGHT_TYPE : EUC_2D\nNODE_COORD_SECTION\n")
    for i in range(30):
        f.write("%d %d %d\n" % (i + 1, random.randrange(1000), random.randrange(1000)))
    f.write("EOF\n")
PY
printf '[problem]\nkind = aco\nname = tiny30\n[data]\nfile = %s\n[aco]\niterations = 20\n' "$t/tiny.tsp" >"$t/tiny.ini"
expect_exit 0 "aco run" "$evo" run "$t/tiny.ini" --backend cpu -q -o "$t/aco"
expect_exit 0 "aco export" "$evo" export "$t/aco/result.json" -o "$t/acoo"
expect_output "aco export rechecked the length" "recomputed on the instance"
if grep -q "^TYPE : TOUR" "$t/acoo/tiny30.tour" && grep -q "^-1" "$t/acoo/tiny30.tour" &&
   tail -1 "$t/acoo/tiny30.tour" | grep -q EOF; then cli_ok "aco: TSPLIB .tour"; else
	cli_fail "aco .tour" "$(cat "$t/acoo/tiny30.tour")"; fi

printf -- '-1 1:-1 2:-0.5\n-1 1:-0.8 2:-1\n-1 1:-1.2 2:-0.7\n+1 1:1 2:0.5\n+1 1:0.9 2:1.1\n+1 1:1.3 2:0.8\n-1 1:0.1 2:-0.2\n+1 1:0.2 2:0.1\n' >"$t/tiny.txt"
printf '[problem]\nkind = svm\nname = tiny-svm\n[svm]\nkernel = rbf\nC = 10\n[data]\ntrain = %s\n' "$t/tiny.txt" >"$t/svm.ini"
expect_exit 0 "svm run" "$evo" run "$t/svm.ini" --backend cpu -q -o "$t/svm"
expect_exit 0 "svm export" "$evo" export "$t/svm/result.json" -o "$t/svmo"
expect_exit 0 "svm eval" "$evo" eval "$t/svm/result.json" "$t/tiny.txt" -o "$t/svm-evo.out"
expect_exit 0 "svm-predict on the exported model" "$evo" svm-predict "$t/tiny.txt" "$t/svmo/tiny_svm.model" "$t/svm-re.out"
expect_exit 0 "svm: exported model predicts as the run's" cmp "$t/svm-evo.out" "$t/svm-re.out"
have_libsvm=0; command -v svm-predict >/dev/null 2>&1 && have_libsvm=1
[ $have_libsvm = 1 ] || echo "SKIP: LIBSVM's svm-predict not installed (tools/setup-debian installs libsvm-tools): exported models are not checked with it"

# svm_case NAME SPEC DATA: train, export, then on DATA: NAME-eval (compiled
# with -Werror) == evoforge eval (svm_predict) byte for byte, == LIBSVM's
# svm-predict on NAME.model label for label.
svm_case() {
	local name=$1 spec=$2 data=$3 id
	expect_exit 0 "svm $name: run" "$evo" run "$spec" --backend cpu -q -o "$t/$name"
	id=$(python3 -c "import json, re, sys; print(re.sub('[^A-Za-z0-9_]', '_', json.load(open(sys.argv[1]))['name']))" "$t/$name/result.json")
	expect_exit 0 "svm $name: export" "$evo" export "$t/$name/result.json" -o "$t/$name-x"
	expect_exit 0 "svm $name: eval" "$evo" eval "$t/$name/result.json" "$data" -o "$t/$name-evo.out"
	if [ $have_cc = 1 ]; then
		expect_exit 0 "svm $name: $id.c and $id-eval.c, cc -std=c99 -Wall -Werror" \
			cc -std=c99 -Wall -Werror -o "$t/$name-eval" "$t/$name-x/$id-eval.c" "$t/$name-x/$id.c" -lm
		expect_exit 0 "svm $name: $id-eval runs" "$t/$name-eval" "$data" -o "$t/$name-c.out"
		expect_exit 0 "svm $name: $id-eval == evoforge eval (svm_predict), every point" \
			cmp "$t/$name-c.out" "$t/$name-evo.out"
	fi
	if [ $have_libsvm = 1 ]; then
		local lib=$data
		case $data in *.csv) # LIBSVM reads its own format only: the same points converted
			python3 - "$data" "$t/$name-points.txt" <<'PY'
import csv, sys
rows = list(csv.reader(open(sys.argv[1])))
try: [float(v) for v in rows[0]]
except ValueError: rows = rows[1:]
with open(sys.argv[2], "w") as f:
    for r in rows:
        f.write("0 " + " ".join("%d:%s" % (i + 1, v) for i, v in enumerate(r[:-1]) if float(v) != 0) + "\n")
PY
			lib=$t/$name-points.txt;;
		esac
		svm-predict "$lib" "$t/$name-x/$id.model" "$t/$name-lib.out" >/dev/null
		if paste -d' ' "$t/$name-lib.out" "$t/$name-evo.out" | awk '$1 != $2 { bad++ } END { exit bad > 0 }' &&
		   [ "$(wc -l <"$t/$name-lib.out")" = "$(wc -l <"$t/$name-evo.out")" ]; then
			cli_ok "svm $name: LIBSVM's svm-predict on $id.model == evoforge's labels"
		else cli_fail "svm $name: LIBSVM labels" "differ"; fi
	fi
}

# Blobs: 4 classes in 5 dimensions, well mixed, LIBSVM format (zeros left out).
python3 - "$t/blobs.txt" <<'PY'
import random, sys
random.seed(11)
with open(sys.argv[1], "w") as f:
    for i in range(400):
        c = i % 4
        x = [random.gauss(1.5 * (c == k % 4) - 0.4 * c, 1.0) for k in range(5)]
        f.write("%d " % (c + 1) + " ".join("%d:%.6g" % (k + 1, v) for k, v in enumerate(x) if k != 2 or c) + "\n")
PY
for k in rbf linear polynomial; do
	printf '[problem]\nkind = svm\nname = blobs-%s\n[svm]\nkernel = %s\nC = 4\ngamma = 0.3\ncoef0 = 0.5\n[data]\ntrain = %s\n' \
		$k $k "$t/blobs.txt" >"$t/blobs-$k.ini"
	svm_case "blobs-$k" "$t/blobs-$k.ini" "$t/blobs.txt"
done
sonar=data/uci/sonar.csv   # shipped
if [ -f "$sonar" ] && [ -f "$shuttle" ]; then
	printf '[problem]\nkind = svm\nname = sonar-rbf\n[svm]\nkernel = rbf\nC = 10\n[data]\ntrain = %s\nlabel = Class\n' \
		"$(cd "$(dirname "$sonar")" && pwd)/sonar.csv" >"$t/sonar-rbf.ini"
	svm_case sonar-rbf "$t/sonar-rbf.ini" "$sonar"
	python3 - "$shuttle" "$t/shuttle-part.csv" <<'PY'
import sys
lines = open(sys.argv[1]).read().splitlines()
with open(sys.argv[2], "w") as f:
    f.write(lines[0] + "\n")
    for i, l in enumerate(lines[1:]):
        if i % 29 == 0: f.write(l + "\n")
PY
	printf '[problem]\nkind = svm\nname = shuttle-poly\n[svm]\nkernel = polynomial\ndegree = 2\ngamma = 0.0001\ncoef0 = 1\nC = 1\n[data]\ntrain = %s\nlabel = Class\n' \
		"$t/shuttle-part.csv" >"$t/shuttle-poly.ini"
	svm_case shuttle-poly "$t/shuttle-poly.ini" "$t/shuttle-part.csv"
else
	cli_fail "Sonar / Shuttle SVM export" "$sonar or $shuttle missing (they ship with evoforge)"
fi
if [ $have_cc = 1 ]; then
	printf 'a,b,label\n1,2,1\n1,zz,1\n' >"$t/badpoint.csv"
	expect_exit 2 "svm NAME-eval: bad point" "$t/blobs-rbf-eval" "$t/badpoint.csv"
	expect_output "svm NAME-eval names file and line" "badpoint.csv:3: expected a number"
fi

# ---- mbp --------------------------------------------------------------------------
expect_exit 0 "mbp run" "$evo" run problems/mbp-xor.ini --backend cpu -q -o "$t/mbp"
expect_exit 0 "mbp export" "$evo" export "$t/mbp/result.json" -o "$t/mbpo"
expect_exit 0 "mbp: the exported network equals the run's" cmp "$t/mbp/network.net" "$t/mbpo/mbp_xor.net"
printf 'x2,x1\n0,0\n1,0\n0,1\n1,1\n' >"$t/xor.csv"
expect_exit 0 "mbp eval (xor)" "$evo" eval "$t/mbp/result.json" "$t/xor.csv" -o "$t/xor-evo.csv"
if python3 - "$t/mbp/predictions.csv" "$t/xor-evo.csv" <<'PY'
import csv, sys
p = list(csv.DictReader(open(sys.argv[1])))
e = list(csv.DictReader(open(sys.argv[2])))
order = [0, 1, 2, 3]   # pattern p is x1 = p >> 1, x2 = p & 1: xor.csv's rows in order
assert [e[i]["output_1"] for i in range(4)] == [p[k]["output_1"] for k in order], (p, e)
assert [e[i]["class"] for i in range(4)] == [p[k]["predicted"] for k in order]
PY
then cli_ok "mbp xor: eval's outputs == the run's predictions.csv"; else cli_fail "mbp xor eval" "differs from predictions.csv"; fi

# mbp_case NAME SPEC DATA [--set ...]: train, export, eval on DATA (the run's
# CSV): outputs and classes == the run's predictions.csv, NAME-eval (compiled
# with -Werror) == evoforge eval byte for byte.
mbp_case() {
	local name=$1 spec=$2 data=$3 id
	shift 3
	expect_exit 0 "mbp $name: run" "$evo" run "$spec" --backend cpu -q -o "$t/$name" "$@"
	id=$(python3 -c "import json, re, sys; print(re.sub('[^A-Za-z0-9_]', '_', json.load(open(sys.argv[1]))['name']))" "$t/$name/result.json")
	expect_exit 0 "mbp $name: export" "$evo" export "$t/$name/result.json" -o "$t/$name-x"
	expect_exit 0 "mbp $name: eval" "$evo" eval "$t/$name/result.json" "$data" -o "$t/$name-evo.csv"
	if python3 - "$t/$name/predictions.csv" "$t/$name-evo.csv" <<'PY'
import csv, sys
p = list(csv.DictReader(open(sys.argv[1])))
e = list(csv.DictReader(open(sys.argv[2])))
assert len(p) == len(e) > 0
for a, b in zip(p, e):
    outs = sorted(k for k in b if k.startswith("output_"))
    assert [a[k] for k in outs] == [b[k] for k in outs], (a, b)
    assert a.get("predicted") == b.get("class"), (a, b)
PY
	then cli_ok "mbp $name: eval's outputs == the run's predictions.csv, every row"
	else cli_fail "mbp $name: eval" "differs from predictions.csv"; fi
	if [ $have_cc = 1 ]; then
		expect_exit 0 "mbp $name: $id.c and $id-eval.c, cc -std=c99 -Wall -Werror" \
			cc -std=c99 -Wall -Werror -o "$t/$name-eval" "$t/$name-x/$id-eval.c" "$t/$name-x/$id.c" -lm
		expect_exit 0 "mbp $name: $id-eval runs" "$t/$name-eval" "$data" -o "$t/$name-c.csv"
		expect_exit 0 "mbp $name: $id-eval == evoforge eval, bit for bit" cmp "$t/$name-c.csv" "$t/$name-evo.csv"
	fi
}

python3 - "$t/reg.csv" <<'PY'
import math, random, sys
random.seed(5)
with open(sys.argv[1], "w") as f:
    f.write("a,b,c,y\n")
    for i in range(300):
        a, b, c = random.uniform(-3, 3), random.uniform(0, 10), random.choice([1, 2, 3])
        f.write("%.6g,%.6g,%d,%.6g\n" % (a, b, c, math.sin(a) * b + c + random.gauss(0, 0.1)))
PY
printf '[problem]\nkind = mbp\nname = reg-mbp\n[data]\nsource = csv\nfile = %s\nlabel = y\n[mbp]\nhidden = 6 4\nspace = 0\nhidden_activation = tanh\noutput_activation = linear\nepochs = 60\n' \
	"$t/reg.csv" >"$t/reg.ini"
mbp_case reg-2layers "$t/reg.ini" "$t/reg.csv"
printf '[problem]\nkind = mbp\nname = reg-mbp\n[data]\nsource = csv\nfile = %s\nlabel = y\n[mbp]\nhidden = 5\nspace = 1\nspace_activation = tanh\nepochs = 60\n' \
	"$t/reg.csv" >"$t/reg-space.ini"
mbp_case reg-space "$t/reg-space.ini" "$t/reg.csv"
if [ -f "$sonar" ] && [ -f "$shuttle" ]; then
	mbp_case sonar problems/mbp-sonar.ini "$sonar" --set mbp.epochs=40 --set "data.file=$(cd "$(dirname "$sonar")" && pwd)/sonar.csv"
	printf '[problem]\nkind = mbp\nname = shuttle-mbp\n[data]\nsource = csv\nfile = %s\nlabel = Class\n[mbp]\nhidden = 8\nspace = 1\nepochs = 15\n' \
		"$t/shuttle-part.csv" >"$t/shuttle-mbp.ini"
	mbp_case shuttle-7-outputs "$t/shuttle-mbp.ini" "$t/shuttle-part.csv"
else
	cli_fail "Sonar / Shuttle MBP export" "$sonar or $shuttle missing (they ship with evoforge)"
fi
expect_exit 2 "mbp eval: CSV missing an input" "$evo" eval "$t/mbp/result.json" "$t/nox.csv"
expect_output "mbp eval names the file and the column" "nox.csv:1: expected a column named 'x1'"
expect_exit 1 "eval of an aco result: not supported" "$evo" eval "$t/aco/result.json" "$t/sx.csv"
expect_output "eval says which kinds it handles" "gp, svm and mbp only"

finish
