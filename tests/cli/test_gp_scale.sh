# test_gp_scale.sh: linear scaling ([gp] linear_scaling, gp_scale.h) on the
# command line: y = 3 + 5 x^2 is found by a tiny program (x*x scaled) whose
# reported formula carries a and b and evaluates to the data; result.json
# says linear_scaling; `evoforge eval`, the exported C program and the
# held-out MSE predict the scaled output; off reports a bare program;
# classification refuses the key (exit 2).
# Usage: bash test_gp_scale.sh PATH/TO/evoforge
source "$(dirname "$0")/lib.sh"
evo=$1

python3 - "$cli_tmp/q.csv" <<'PY'
import random, sys
random.seed(3)
with open(sys.argv[1], "w") as f:
    f.write("x,y\n")
    for i in range(300):
        x = random.uniform(-2, 2)
        f.write(f"{x:.6f},{3 + 5 * x * x:.6f}\n")
PY
cat >"$cli_tmp/q.ini" <<EOF2
[problem]
kind = gp
name = quad

[gp]
population = 200
generations = 10
functions = + - *
constants = none
success_threshold = 1e-8
stop_on_success = true

[data]
source = csv
file = q.csv
label = y
fitness = mse
test_fraction = 0.2
EOF2
expect_exit 0 "3 + 5 x^2 runs (scaling on by default)" "$evo" run "$cli_tmp/q.ini" --backend cpu --quiet --seed 1 -o "$cli_tmp/q"
cut -d, -f1 "$cli_tmp/q.csv" >"$cli_tmp/in.csv"
expect_exit 0 "evoforge eval" "$evo" eval "$cli_tmp/q/result.json" "$cli_tmp/in.csv" -o "$cli_tmp/evo.csv"
if python3 - "$cli_tmp/q" "$cli_tmp/q.csv" "$cli_tmp/evo.csv" >"$cli_tmp/check" 2>&1 <<'PY'
import csv, json, sys
r = json.load(open(sys.argv[1] + "/result.json"))
b = r["best"]
assert r["parameters"]["linear_scaling"] is True, r["parameters"]
assert b["fitness"] < 1e-8, b["fitness"]
assert r["totals"]["solved"], r["totals"]
# a tiny formula: a + b x^2 once simplified (the program inside + a * b)
assert b["simplified_size"] <= 7, b
toks = b["prefix"].split()
assert toks[0] == "+" and toks[2] == "*", toks
a, bb = float.fromhex(toks[1]), float.fromhex(toks[3])
x = [float(row["x"]) for row in csv.DictReader(open(sys.argv[2]))]
y = [float(row["y"]) for row in csv.DictReader(open(sys.argv[2]))]
# the simplified formula evaluates to the data
f = b["simplified"].replace("^", "**")
for xi, yi in zip(x, y):
    v = eval(f, {"x": xi})
    assert abs(v - yi) < 1e-4 * (1 + abs(yi)), (f, xi, v, yi)
# evoforge eval predicts the scaled output (the data)
rows = list(csv.reader(open(sys.argv[3])))
pred = [float(row[-1]) for row in rows[1:]]   # a header line, then the predictions
assert len(pred) == len(y), (len(pred), len(y))
for p, yi in zip(pred, y):
    assert abs(p - yi) < 1e-4 * (1 + abs(yi)), (p, yi)
h = r["holdout"]
assert h["test_mse"] < 1e-8 and h["train_mse"] < 1e-8, h
print(f"a={a} b={bb} size={b['size']} simplified={b['simplified']} test_mse={h['test_mse']:.3g}")
PY
then
	cli_ok "a tiny scaled program, formula and predictions = data: $(cat "$cli_tmp/check")"
else
	cli_fail "a tiny scaled program, formula and predictions = data" "$(tail -3 "$cli_tmp/check")"
fi
if command -v cc >/dev/null && command -v make >/dev/null; then
	expect_exit 0 "export" "$evo" export "$cli_tmp/q/result.json" -o "$cli_tmp/qx"
	expect_exit 0 "exported program builds" make -s -C "$cli_tmp/qx"
	expect_exit 0 "exported program runs" "$cli_tmp/qx/quad-eval" --backend cpu "$cli_tmp/in.csv" -o "$cli_tmp/c.csv"
	expect_exit 0 "exported == evoforge eval (the scaled output), bit for bit" cmp "$cli_tmp/c.csv" "$cli_tmp/evo.csv"
fi
expect_exit 0 "linear_scaling = off runs" "$evo" run "$cli_tmp/q.ini" --backend cpu --quiet --seed 1 \
	--set gp.linear_scaling=off --set gp.stop_on_success=false --set gp.generations=2 -o "$cli_tmp/off"
if python3 -c "
import json, sys
r = json.load(open(sys.argv[1] + '/result.json'))
assert r['parameters']['linear_scaling'] is False
" "$cli_tmp/off" 2>"$cli_tmp/check"; then
	cli_ok "off: result.json says linear_scaling false"
else
	cli_fail "off: result.json says linear_scaling false" "$(tail -3 "$cli_tmp/check")"
fi
python3 - "$cli_tmp/c2.csv" <<'PY'
import sys
with open(sys.argv[1], "w") as f:
    f.write("x,c\n")
    for i in range(40):
        f.write(f"{i / 40:.4f},{int(i >= 20)}\n")
PY
cat >"$cli_tmp/c2.ini" <<EOF2
[problem]
kind = gp
name = cls

[gp]
population = 50
generations = 2
multiclass = round
linear_scaling = on

[data]
source = csv
file = c2.csv
label = c
fitness = classification
EOF2
expect_exit 2 "classification refuses linear_scaling = on" "$evo" run "$cli_tmp/c2.ini" --backend cpu -q -o "$cli_tmp/c2"
expect_output "the message names the key" "linear_scaling"
expect_exit 0 "classification with linear_scaling = off runs" "$evo" run "$cli_tmp/c2.ini" --backend cpu -q \
	--set gp.linear_scaling=off -o "$cli_tmp/c2off"
finish
