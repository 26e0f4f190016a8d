# test_gp_ovr.sh: kind gp's one-vs-rest scheme ([gp] multiclass =
# one-vs-rest) on the CPU, with generated 3-class blobs (linearly
# separable): the run evolves one program per class (a progress block per
# sub-problem), reaches a stated test accuracy, and its result.json holds
# the K programs; `evoforge eval` gives the argmax classes, whose accuracy on
# the test file (recounted in awk) is the run's test_accuracy, and which
# equal the argmax of the K programs recomputed here in python (float32
# arithmetic, an interpreter of its own); export refuses (exit 2, naming the
# scheme); bad values and the key on a regression or Boolean problem exit 2
# with file:line; a spec without the key runs one-vs-rest (the default),
# problems/shuttle.ini round; problems/shuttle-ovr.ini (Shuttle ships in data/uci/).
# Usage: bash test_gp_ovr.sh PATH/TO/evoforge
source "$(dirname "$0")/lib.sh"
evo=$1
t=$cli_tmp

python3 - "$t" <<'PY'
import random, struct, sys
d = sys.argv[1]
f32 = lambda v: struct.unpack("f", struct.pack("f", v))[0]
random.seed(23)
for name, n in (("train", 240), ("test", 120)):
    with open("%s/%s.csv" % (d, name), "w") as f:
        f.write("a,b,z,label\n")
        for i in range(n):
            c = i % 3
            a = f32(3 * c + random.uniform(-0.6, 0.6)); b = f32(6 - 3 * c + random.uniform(-0.6, 0.6))
            f.write("%.9g,%.9g,%.9g,%s\n" % (a, b, f32(random.uniform(-1, 1)), ["red", "green", "blue"][c]))
PY

spec() {   # spec NAME EXTRA-LINES...: writes $t/NAME.ini (line 10 is the first extra)
	local name=$1
	shift
	{
		printf '[problem]\nkind = gp\nname = %s\n[data]\nsource = csv\nfile = train.csv\n' "$name"
		printf 'label = label\nfitness = classification\n[gp]\n'
		for l in "$@"; do printf '%s\n' "$l"; done
	} >"$t/$name.ini"
}

# ---- a run ------------------------------------------------------------------------
spec ovr "multiclass = one-vs-rest" "population = 200" "generations = 8" \
	"functions = + - * /" "constants = -5 5" "[data]" "test = test.csv" "classes = red green blue"
expect_exit 0 "one-vs-rest run" "$evo" run "$t/ovr.ini" --backend cpu --seed 3 -o "$t/ovr"
expect_output "start line" "one-vs-rest, 3 binary sub-problems one after another"
expect_output "sub-problem 1" "one-vs-rest 1/3: class red against the rest (80 of 240 training cases positive)"
expect_output "sub-problem 3 ends" "one-vs-rest 3/3: class blue: best misclassified cases"
expect_output "combined: train count" "one-vs-rest: the argmax of 3 programs misclassifies"
expect_output "held-out report" "held-out: train accuracy"
expect_output "confusion matrix" "confusion matrix on the test cases"
expect_exit 0 "eval of the one-vs-rest run on the test file" "$evo" eval "$t/ovr/result.json" \
	"$t/test.csv" -o "$t/pred.csv"
cp "$t/out" "$t/eval.err"
awk_acc=$(paste -d, <(tail -n +2 "$t/test.csv") <(tail -n +2 "$t/pred.csv") |
	awk -F, '{ n++; if ($4 == $5) ok++ } END { printf "%d %d", ok, n }')
if python3 - "$t/ovr/result.json" "$awk_acc" "$t/test.csv" "$t/pred.csv" "$t/eval.err" "$t/ovr/history.csv" <<'PY'
import json, struct, sys
f32 = lambda v: struct.unpack("f", struct.pack("f", v))[0]
r = json.load(open(sys.argv[1])); h = r["holdout"]; o = r["ovr"]
ok, n = map(int, sys.argv[2].split())
rows = [l.strip().split(",") for l in open(sys.argv[3]).readlines()[1:]]
pred = [l.strip() for l in open(sys.argv[4]).readlines()[1:]]
err = open(sys.argv[5]).read()
hist = open(sys.argv[6]).read().splitlines()
names = h["classes"]
def run(tokens, x):   # prefix program in float32: + - * / (protected), $i, hex floats
    tok = tokens.pop(0)
    if tok.startswith("$"): return x[int(tok[1:])]
    if tok not in "+-*/": return f32(float.fromhex(tok))
    a = run(tokens, x); b = run(tokens, x)
    if tok == "+": return f32(a + b)
    if tok == "-": return f32(a - b)
    if tok == "*": return f32(a * b)
    return 1.0 if abs(b) < f32(1e-6) else f32(a / b)
mine = []
for row in rows:
    x = [f32(float(v)) for v in row[:3]]
    out = [run(p["prefix"].split(), x) for p in o["programs"]]
    mine.append(names[max(range(3), key=lambda c: (out[c], -c))])
checks = [
    (r["multiclass"] == "one-vs-rest" and o["scheme"] == "one-vs-rest", "scheme recorded"),
    ([p["class"] for p in o["programs"]] == [0, 1, 2] and
     [p["name"] for p in o["programs"]] == names == ["red", "green", "blue"], "three programs"),
    (all(p["infix"] and p["prefix"] and p["size"] > 0 for p in o["programs"]), "programs printed"),
    (all(p["simplified"] and 0 < p["simplified_size"] <= p["size"] for p in o["programs"]),
     "simplified formulas no larger than the programs"),
    (h["test_accuracy"] >= 0.95, "test accuracy %s >= 0.95" % h["test_accuracy"]),
    (h["test_accuracy"] == ok / n and n == 120, "test_accuracy == awk recount of eval %d/%d" % (ok, n)),
    (pred == mine, "eval's classes == python argmax of the 3 programs"),
    (r["best"]["fitness"] == h["train"]["wrong"] and h["train_accuracy"] == o["train_accuracy"],
     "best.fitness == the combined training errors"),
    (h["test"]["wrong"] == n - ok, "test wrong"),
    ("misclassified %d on the 120 rows" % (n - ok) in err, "eval's stderr: " + err),
    (hist[0].startswith("class,generation,best") and len(hist) == 1 + len(r["history"]) and
     sorted(set(l.split(",")[0] for l in hist[1:])) == ["0", "1", "2"], "history.csv"),
    (r["totals"]["generations"] == len(r["history"]) and
     all(x["class"] == int(l.split(",")[0]) and x["generation"] == int(l.split(",")[1])
         for x, l in zip(r["history"], hist[1:])), "history and totals"),
    (all(sum(1 for x in r["history"] if x["class"] == c) == p["generation"] + 1 or
         p["fitness"] > 0 for c, p in enumerate(o["programs"])), "a solved sub-problem stops"),
]
bad = [m for c, m in checks if not c]
print("test accuracy", h["test_accuracy"], "train", h["train_accuracy"])
if bad: print("; ".join(bad))
sys.exit(1 if bad else 0)
PY
then cli_ok "one-vs-rest: test accuracy >= 95 %; == eval recount ($awk_acc); eval == python argmax"
else cli_fail "one-vs-rest result" "see above"; fi

# same seed, same run; another seed, other sub-problem seeds
expect_exit 0 "one-vs-rest again" "$evo" run "$t/ovr.ini" --backend cpu -q --seed 3 -o "$t/ovr2"
if python3 -c 'import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:])
sys.exit(0 if a["ovr"]["programs"] == b["ovr"]["programs"] and a["holdout"] == b["holdout"] else 1)' \
	"$t/ovr/result.json" "$t/ovr2/result.json"
then cli_ok "one-vs-rest: same seed, same programs and scores"
else cli_fail "one-vs-rest reproducible" "programs differ"; fi

# ---- export and eval --backend gpu refuse ---------------------------------------------
expect_exit 2 "export of a one-vs-rest run" "$evo" export "$t/ovr/result.json" -o "$t/exp"
expect_output "export names the scheme" "export of a one-vs-rest run ([gp] multiclass = one-vs-rest"
expect_exit 2 "eval --backend gpu of a one-vs-rest run" "$evo" eval "$t/ovr/result.json" \
	"$t/test.csv" --backend gpu -o "$t/x.csv"
expect_output "eval gpu: CPU only" "eval of a one-vs-rest run runs on the CPU only"

# ---- round explicitly: the seed's scheme, as without the key ---------------------------
spec rnd "multiclass = round" "population = 100" "generations = 2"
expect_exit 0 "multiclass = round runs" "$evo" run "$t/rnd.ini" --backend cpu -q --seed 3 -o "$t/rnd"
if python3 -c 'import json, sys; r = json.load(open(sys.argv[1]))
sys.exit(0 if "multiclass" not in r and "ovr" not in r and "prefix" in r["best"] else 1)' "$t/rnd/result.json"
then cli_ok "multiclass = round: one program, no ovr object"
else cli_fail "multiclass = round" "result.json has ovr parts"; fi

# ---- no key: the default, one-vs-rest ------------------------------------------------------
spec dflt "population = 100" "generations = 2"
expect_exit 0 "no multiclass key runs" "$evo" run "$t/dflt.ini" --backend cpu --seed 3 -o "$t/dflt"
expect_output "no key: one-vs-rest" "one-vs-rest, 3 binary sub-problems"
if python3 -c 'import json, sys; r = json.load(open(sys.argv[1]))
sys.exit(0 if r["multiclass"] == "one-vs-rest" and len(r["ovr"]["programs"]) == 3 else 1)' "$t/dflt/result.json"
then cli_ok "no key: result.json of a one-vs-rest run"
else cli_fail "no key" "not one-vs-rest"; fi

# ---- bad keys: exit 2, file:line --------------------------------------------------------
spec bad "multiclass = ovr"
expect_exit 2 "multiclass = ovr" "$evo" run "$t/bad.ini" --backend cpu -o "$t/x"
expect_output "bad value: file:line and the choices" "bad.ini:10: [gp] multiclass: expected one of round, one-vs-rest, got 'ovr'"
printf '[problem]\nkind = gp\n[gp]\nmulticlass = one-vs-rest\n' >"$t/reg.ini"
expect_exit 2 "multiclass on a regression problem" "$evo" run "$t/reg.ini" --backend cpu -o "$t/x"
expect_output "regression: file:line and why" "reg.ini:4: [gp] multiclass: expected no multiclass scheme for a regression problem"
printf '[problem]\nkind = gp\n[data]\nsource = multiplexer\n[gp]\nmulticlass = round\n' >"$t/mux.ini"
expect_exit 2 "multiclass on a Boolean problem" "$evo" run "$t/mux.ini" --backend cpu -o "$t/x"
expect_output "Boolean: file:line and why" "mux.ini:6: [gp] multiclass: expected no multiclass scheme for a Boolean problem"

# ---- Shuttle (shipped in data/uci/) ---------------------------------------------------------
shuttle=data/uci/shuttle.csv   # shipped
if [ -f "$shuttle" ]; then
	expect_exit 0 "shuttle-ovr run" "$evo" run problems/shuttle-ovr.ini --backend cpu \
		--generations 1 --population 50 -o "$t/sho"
	expect_output "shuttle-ovr: 7 sub-problems" "one-vs-rest 7/7: class Bpv.Open"
	expect_output "shuttle-ovr: held-out report" "held-out: train accuracy"
	# the shipped seed spec pins the seed's scheme
	expect_exit 0 "shuttle.ini run" "$evo" run problems/shuttle.ini --backend cpu \
		--generations 1 --population 50 -o "$t/shr"
	if grep -qF "one-vs-rest" "$t/out" || grep -qF '"multiclass"' "$t/shr/result.json"; then
		cli_fail "shuttle.ini" "ran one-vs-rest"
	else cli_ok "shuttle.ini: multiclass = round (the seed's scheme)"; fi
else
	cli_fail "shuttle-ovr run" "$shuttle missing (it ships with evoforge)"
fi

finish
