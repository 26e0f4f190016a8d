# test_gp_holdout.sh: held-out sets for kind gp on the CPU, with small
# generated CSVs: [data] test = FILE (classification: result.json's train
# errors == the run's fitness, test_accuracy and the confusion matrix ==
# a recount of `evoforge eval`'s classes on the test file against its labels
# in awk / python; regression: test_mse == the MSE recomputed from eval's
# predictions); [data] test_fraction (same seed, same result; --seed
# recorded as the split's seed); a spec without the keys has no "holdout"
# and prints no held-out report; bad keys exit 2 naming file:line; the
# Shuttle spec problems/shuttle-holdout.ini (Shuttle ships in data/uci/).
# Usage: bash test_gp_holdout.sh PATH/TO/evoforge
source "$(dirname "$0")/lib.sh"
evo=$1
t=$cli_tmp

python3 - "$t" <<'PY'
import random, struct, sys
d = sys.argv[1]
f32 = lambda v: struct.unpack("f", struct.pack("f", v))[0]
random.seed(11)
names = ["cat", "dog", "eel"]
def cls_rows(n):
    rows = []
    for i in range(n):
        c = random.choice([0, 0, 0, 1, 1, 2])
        a = f32(random.uniform(-3, 3)); b = f32(c + random.gauss(0, 0.6))
        rows.append("%.9g,%.9g,%s" % (a, b, names[c]))
    return rows
for name, n in (("train", 400), ("test", 157)):
    with open("%s/%s.csv" % (d, name), "w") as f:
        f.write("a,b,label\n" + "\n".join(cls_rows(n)) + "\n")
for name, n in (("rtrain", 300), ("rtest", 111)):
    with open("%s/%s.csv" % (d, name), "w") as f:
        f.write("x,z,y\n")
        for i in range(n):
            x = f32(random.uniform(-2, 2)); z = f32(random.uniform(0, 1))
            f.write("%.9g,%.9g,%.9g\n" % (x, z, f32(x * x - z + random.gauss(0, 0.05))))
with open("%s/narrow.csv" % d, "w") as f:
    f.write("a,label\n1,cat\n")
PY

spec() {   # spec NAME FILE FITNESS EXTRA-LINES...: writes $t/NAME.ini
	local name=$1 file=$2 fit=$3 label=label
	shift 3
	[ "$fit" = mse ] && label=y
	{
		printf '[problem]\nkind = gp\nname = %s\n[gp]\npopulation = 200\ngenerations = 6\n' "$name"
		printf 'functions = + - * / > < IF\nconstants = -2 2\n'
		printf '[data]\nsource = csv\nfile = %s\nlabel = %s\nfitness = %s\n' "$file" "$label" "$fit"
		for l in "$@"; do printf '%s\n' "$l"; done
		# the round scheme this file checks (the default is one-vs-rest)
		[ "$fit" = mse ] || printf '[gp]\nmulticlass = round\n'
	} >"$t/$name.ini"
}

# ---- classification with a test file -------------------------------------------
spec cls train.csv classification "classes = cat dog eel" "test = test.csv"
expect_exit 0 "classification with [data] test runs" "$evo" run "$t/cls.ini" --backend cpu \
	--seed 3 -o "$t/cls"
expect_output "start line names the test file" "400 cases (training; 157 test cases from"
expect_output "final report: accuracies" "held-out: train accuracy"
expect_output "final report: per-class accuracy" "per-class accuracy (train / test; cases):"
expect_output "final report: confusion matrix with class names" "confusion matrix on the test cases"
expect_output "progress line: the test accuracy" "test acc 0."
"$evo" eval "$t/cls/result.json" "$t/test.csv" -o "$t/cls-pred.csv" 2>"$t/cls-eval.err"
# awk: eval's class column against the test file's labels
awk_acc=$(paste -d, <(tail -n +2 "$t/test.csv") <(tail -n +2 "$t/cls-pred.csv") |
	awk -F, '{ n++; if ($3 == $4) ok++ } END { printf "%d %d", ok, n }')
if python3 - "$t/cls/result.json" "$awk_acc" "$t/test.csv" "$t/cls-pred.csv" "$t/cls-eval.err" <<'PY'
import json, sys
r = json.load(open(sys.argv[1])); h = r["holdout"]
ok, n = map(int, sys.argv[2].split())
labels = [l.strip().split(",")[2] for l in open(sys.argv[3]).readlines()[1:]]
pred = [l.strip() for l in open(sys.argv[4]).readlines()[1:]]
names = h["classes"]
conf = [[sum(1 for t, p in zip(labels, pred) if t == a and p == b) for b in names] for a in names]
err = open(sys.argv[5]).read()
checks = [
    (h["split"] == "file" and h["test_file"].endswith("test.csv"), "split"),
    (h["train_cases"] == 400 and h["test_cases"] == 157 and n == 157, "case counts"),
    (h["train"]["wrong"] == r["best"]["fitness"], "train errors == the run's fitness"),
    (h["train_accuracy"] == 1 - r["best"]["fitness"] / 400, "train accuracy"),
    (h["test_accuracy"] == ok / n, "test_accuracy == awk recount %d/%d" % (ok, n)),
    (h["test"]["wrong"] == n - ok, "test wrong"),
    (h["test"]["confusion"] == conf, "confusion matrix == recount %s" % conf),
    (names == ["cat", "dog", "eel"], "class names"),
    ("misclassified %d on the 157 rows" % (n - ok) in err, "eval's count: " + err),
    (all(abs(a - (conf[i][i] / sum(conf[i]) if sum(conf[i]) else 0)) < 1e-15
         for i, a in enumerate(h["test"]["per_class_accuracy"])), "per-class accuracy"),
    (r["data"]["cases"] == 400, "data.cases = the training cases"),
]
bad = [m for c, m in checks if not c]
if bad: print("; ".join(bad))
sys.exit(1 if bad else 0)
PY
then cli_ok "classification: train errors == fitness; test_accuracy, confusion == eval recount ($awk_acc)"
else cli_fail "classification holdout" "see above"; fi

# ---- regression with a test file --------------------------------------------------
spec reg rtrain.csv mse "test = rtest.csv"
expect_exit 0 "regression with [data] test runs" "$evo" run "$t/reg.ini" --backend cpu --seed 4 \
	-o "$t/reg"
expect_output "final report: MSEs" "held-out: train mse"
expect_output "progress line: the test MSE" "test mse "
expect_exit 0 "regression: eval on the test file" "$evo" eval "$t/reg/result.json" "$t/rtest.csv" \
	-o "$t/reg-pred.csv"
if python3 - "$t/reg/result.json" "$t/rtest.csv" "$t/reg-pred.csv" "$t/rtrain.csv" <<'PY'
import json, math, struct, sys
f32 = lambda v: struct.unpack("f", struct.pack("f", float(v)))[0]
r = json.load(open(sys.argv[1])); h = r["holdout"]
y = [f32(l.strip().split(",")[2]) for l in open(sys.argv[2]).readlines()[1:]]
p = [f32(l.strip()) for l in open(sys.argv[3]).readlines()[1:]]
mse = sum((a - b) ** 2 for a, b in zip(p, y)) / len(y)
ok = (h["test_cases"] == 111 and h["train_cases"] == 300 and
      abs(h["test_mse"] - mse) <= 1e-12 * mse and
      # linear scaling (on by default): the fitness is the exact line's MSE,
      # the reported program carries a and b rounded to float
      abs(h["train_mse"] - r["best"]["fitness"]) <=
      (1e-6 if r["parameters"]["linear_scaling"] else 1e-9) * r["best"]["fitness"])
print(h["test_mse"], mse, h["train_mse"], r["best"]["fitness"])
sys.exit(0 if ok else 1)
PY
then cli_ok "regression: test_mse == MSE recomputed from eval's predictions; train_mse == fitness"
else cli_fail "regression holdout" "see above"; fi

# ---- test_fraction: reproducible, seeded by --seed ----------------------------------
spec frac train.csv classification "test_fraction = 0.25"
expect_exit 0 "test_fraction run" "$evo" run "$t/frac.ini" --backend cpu -q --seed 5 -o "$t/frac1"
expect_exit 0 "test_fraction run again" "$evo" run "$t/frac.ini" --backend cpu -q --seed 5 -o "$t/frac2"
expect_exit 0 "test_fraction, another seed" "$evo" run "$t/frac.ini" --backend cpu -q --seed 6 -o "$t/frac3"
if python3 - "$t" <<'PY'
import json, sys
d = sys.argv[1]
a, b, c = (json.load(open("%s/frac%d/result.json" % (d, i))) for i in (1, 2, 3))
ha, hc = a["holdout"], c["holdout"]
tot = lambda h: [sum(row) + u for row, u in zip(h["test"]["confusion"], h["test"]["unclassified"])]
trn = lambda h: [sum(row) + u for row, u in zip(h["train"]["confusion"], h["train"]["unclassified"])]
allc = [x + y for x, y in zip(tot(ha), trn(ha))]
ok = (ha == b["holdout"] and a["best"] == b["best"] and ha["split"] == "stratified" and
      ha["split_seed"] == 5 and hc["split_seed"] == 6 and ha["test_cases"] == 100 and
      ha["train_cases"] == 300 and tot(hc) == tot(ha) and
      all(abs(t - 0.25 * n) < 1 for t, n in zip(tot(ha), allc)) and
      ha["train"]["wrong"] == a["best"]["fitness"])
print(ha["test_cases"], tot(ha), allc)
sys.exit(0 if ok else 1)
PY
then cli_ok "test_fraction: same seed same holdout; stratified within 1 case per class; split_seed = --seed"
else cli_fail "test_fraction" "see above"; fi

# ---- no keys: nothing new ----------------------------------------------------------
spec plain train.csv classification
expect_exit 0 "no test keys: runs" "$evo" run "$t/plain.ini" --backend cpu -o "$t/plain"
if grep -qF "held-out" "$t/out" || grep -qF '"holdout"' "$t/plain/result.json"; then
	cli_fail "no test keys" "a held-out report or result.json holdout appeared"
else cli_ok "no test keys: no held-out report, no holdout in result.json"; fi

# ---- bad keys: exit 2, file:line ------------------------------------------------------
spec bad0 train.csv classification "test_fraction = 0"
expect_exit 2 "test_fraction = 0" "$evo" run "$t/bad0.ini" --backend cpu -o "$t/x"
expect_output "test_fraction = 0 names file:line" "bad0.ini:14: [data] test_fraction: expected a fraction F with 0 < F < 1, got 0"
spec bad15 train.csv classification "test_fraction = 1.5"
expect_exit 2 "test_fraction = 1.5" "$evo" run "$t/bad15.ini" --backend cpu -o "$t/x"
expect_output "test_fraction = 1.5 names file:line" "bad15.ini:14: [data] test_fraction: expected a fraction F with 0 < F < 1, got 1.5"
spec both train.csv classification "test = test.csv" "test_fraction = 0.2"
expect_exit 2 "both test and test_fraction" "$evo" run "$t/both.ini" --backend cpu -o "$t/x"
expect_output "both: names both lines" "both.ini:15: [data] test_fraction: expected either [data] test ($t/both.ini:14) or test_fraction, not both"
spec missing train.csv classification "test = nothere.csv"
expect_exit 2 "missing test file" "$evo" run "$t/missing.ini" --backend cpu -o "$t/x"
expect_output "missing test file: file:line and the name" "missing.ini:14: [data] test: "
expect_output "missing test file: names the file" "nothere.csv"
spec narrow train.csv classification "test = narrow.csv"
expect_exit 2 "test file with fewer columns" "$evo" run "$t/narrow.ini" --backend cpu -o "$t/x"
expect_output "fewer columns: file:line and what" "narrow.ini:14: [data] test: $t/narrow.csv: expected the columns of"
printf '[problem]\nkind = gp\n[data]\nsource = multiplexer\ntest_fraction = 0.2\n' >"$t/mux.ini"
expect_exit 2 "multiplexer refuses test_fraction" "$evo" run "$t/mux.ini" --backend cpu -o "$t/x"
expect_output "multiplexer: file:line and why" "mux.ini:5: [data] test_fraction: expected no held-out set for the multiplexer"

# ---- Shuttle (shipped in data/uci/) ---------------------------------------------------------
shuttle=data/uci/shuttle.csv   # shipped
if [ -f "$shuttle" ]; then
	expect_exit 0 "shuttle-holdout run" "$evo" run problems/shuttle-holdout.ini --backend cpu \
		--generations 2 --population 100 -o "$t/shh"
	expect_output "shuttle-holdout: 40600 training, 17400 held out" "40600 cases (training; 17400 held out, test_fraction 0.3, stratified by class)"
	if python3 - "$t/shh/result.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1])); h = r["holdout"]
sizes = [45586, 50, 171, 8903, 3267, 10, 13]   # Shuttle's classes, UCI order
tot = [sum(row) + u for row, u in zip(h["test"]["confusion"], h["test"]["unclassified"])]
ok = h["test_cases"] == 17400 and all(abs(t - 0.3 * n) < 1 for t, n in zip(tot, sizes)) \
     and h["train"]["wrong"] == r["best"]["fitness"]
print(tot)
sys.exit(0 if ok else 1)
PY
	then cli_ok "shuttle-holdout: each class within 1 case of 30 %; train errors == fitness"
	else cli_fail "shuttle-holdout" "see above"; fi
else
	cli_fail "shuttle-holdout run" "$shuttle missing (it ships with evoforge)"
fi

finish
