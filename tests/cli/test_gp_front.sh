# test_gp_front.sh: the Pareto front on the command line ([gp] objectives,
# gp_front.h): the sextic (default objectives for mse) writes front.csv and
# result.json "front"; the two agree, the front is non-empty, sorted by size
# and non-dominated, holds the reported best; and on a CSV problem with a
# held-out set every member's train and test MSE equal a float64
# recomputation of its simplified formula on the data (Python).
# Usage: bash test_gp_front.sh PATH/TO/evoforge
source "$(dirname "$0")/lib.sh"
evo=$1

check_front() {   # DIR: front.csv == result.json front; sorted; non-dominated; best on it
	python3 - "$1" <<'PY'
import csv, json, sys
d = sys.argv[1]
r = json.load(open(d + "/result.json"))
front = r["front"]
rows = list(csv.DictReader(open(d + "/front.csv")))
assert front and len(rows) == len(front), (len(rows), len(front))
for c, j in zip(rows, front):
    assert int(c["size"]) == j["size"] and int(c["complexity"]) == j["complexity"]
    assert float(c["train_error"]) == j["train_error"], (c["train_error"], j["train_error"])
    assert c["infix"] == j["infix"] and c["simplified"] == j["simplified"]
    if j["test_error"] is not None:
        assert float(c["test_error"]) == j["test_error"]
k = "complexity" if r["objectives"] == "error,complexity" else "size"
sizes = [m[k] for m in front]   # sorted by size (by complexity for error,complexity)
assert sizes == sorted(sizes) and len(set(sizes)) == len(sizes), sizes
for a in front:
    for b in front:
        assert not (b["fitness"] <= a["fitness"] and b[k] <= a[k] and
                    (b["fitness"] < a["fitness"] or b[k] < a[k])), (a, b)
assert any(m["infix"] == r["best"]["infix"] for m in front), "the best is on the front"
print(len(front), "members, best size", r["best"]["size"])
PY
}

expect_exit 0 "sextic with the default objectives" "$evo" run problems/sextic.ini --backend cpu -q \
	--seed 2 --set data.cases=2000 --generations 20 -o "$cli_tmp/sx"
if check_front "$cli_tmp/sx" >"$cli_tmp/check" 2>&1; then
	cli_ok "sextic front: csv == json, sorted, non-dominated: $(cat "$cli_tmp/check")"
else
	cli_fail "sextic front: csv == json, sorted, non-dominated" "$(tail -3 "$cli_tmp/check")"
fi
expect_exit 0 "sextic, nsga2 selection" "$evo" run problems/sextic.ini --backend cpu -q \
	--seed 2 --set data.cases=2000 --generations 20 --set gp.front_selection=nsga2 -o "$cli_tmp/sn"
if check_front "$cli_tmp/sn" >"$cli_tmp/check" 2>&1; then
	cli_ok "nsga2 front: csv == json, sorted, non-dominated"
else
	cli_fail "nsga2 front: csv == json, sorted, non-dominated" "$(tail -3 "$cli_tmp/check")"
fi

python3 - "$cli_tmp/sr.csv" <<'PY'
import math, random, sys
random.seed(3)
with open(sys.argv[1], "w") as f:
    f.write("a,b,y\n")
    for i in range(400):
        a, b = random.uniform(-2, 2), random.uniform(0.5, 2)
        f.write(f"{a:.6f},{b:.6f},{a * a / b + math.sin(a):.6f}\n")
PY
cat >"$cli_tmp/sr.ini" <<EOF2
[problem]
kind = gp
name = sr
[gp]
population = 400
generations = 15
functions = + - * / sin exp log sqrt
constants = -1 1
objectives = error,complexity
[data]
source = csv
file = sr.csv
label = y
fitness = mse
test_fraction = 0.25
EOF2
expect_exit 0 "csv, error,complexity, held out" "$evo" run "$cli_tmp/sr.ini" --backend cpu -q --seed 1 \
	-o "$cli_tmp/sr"
if check_front "$cli_tmp/sr" >"$cli_tmp/check" 2>&1 && python3 - "$cli_tmp/sr" "$cli_tmp/sr.csv" <<'PY' >>"$cli_tmp/check" 2>&1
import csv, json, math, random, sys
r = json.load(open(sys.argv[1] + "/result.json"))
rows = [(float(a), float(b), float(y)) for a, b, y in list(csv.reader(open(sys.argv[2])))[1:]]
# train and test together cover every row: the squared errors over all rows
# equal train_mse x train cases + test_mse x test cases.
ho = r["holdout"]
ntr, nte = ho["train_cases"], ho["test_cases"]
env = {"sin": math.sin, "cos": math.cos, "exp": math.exp, "log": math.log, "sqrt": math.sqrt,
       "protdiv": lambda a, b: 1.0 if abs(b) < 1e-6 else a / b,
       "protlog": lambda a: 0.0 if abs(a) < 1e-6 else math.log(abs(a)),
       "protexp": lambda a: math.exp(min(a, 80.0)),
       "protsqrt": lambda a: math.sqrt(abs(a)), "tanh": math.tanh, "abs": abs}
for m in r["front"]:
    f = eval("lambda a, b: " + m["simplified"], env)
    sse = sum((f(a, b) - y) ** 2 for a, b, y in rows)
    got = m["train_error"] * ntr + m["test_error"] * nte
    assert abs(got - sse) <= 1e-4 * sse + 1e-9, (m["simplified"], got, sse)
print("float64 recomputation agrees for", len(r["front"]), "members")
PY
then
	cli_ok "csv front: errors == float64 recomputation of the formulas: $(tail -1 "$cli_tmp/check")"
else
	cli_fail "csv front: errors == float64 recomputation" "$(tail -4 "$cli_tmp/check")"
fi
# A solved run with a front goes on polish_generations after the first
# generation that solved it (stop_on_success); without a front it stops there.
polish_gens() {
	python3 -c 'import json, sys
r = json.load(open(sys.argv[1] + "/result.json"))
h = r["history"]; s = r["parameters"]["success_threshold"]
first = next(x["generation"] for x in h if x["best"] <= s)
print(h[-1]["generation"] - first)' "$1"
}
for pg in 0 5; do
	expect_exit 0 "sextic, polish_generations = $pg" "$evo" run problems/sextic.ini --backend cpu \
		--seed 2 -q --set gp.polish_generations=$pg -o "$cli_tmp/polish$pg"
	got=$(polish_gens "$cli_tmp/polish$pg" 2>&1)
	if [ "$got" = "$pg" ]; then cli_ok "polish $pg: the run ended $got generations after solving"
	else cli_fail "polish $pg: generations after solving" "got '$got'"; fi
done
expect_exit 0 "sextic, objectives = error" "$evo" run problems/sextic.ini --backend cpu --seed 2 -q \
	--set gp.objectives=error -o "$cli_tmp/nofront"
got=$(polish_gens "$cli_tmp/nofront" 2>&1)
if [ "$got" = 0 ]; then cli_ok "no front: the run stops when solved"
else cli_fail "no front: stops when solved" "got '$got'"; fi
expect_exit 2 "objectives on a classification problem" "$evo" run problems/shuttle.ini --backend cpu -q \
	--set gp.objectives=error,size -o "$cli_tmp/bad"
expect_output "says why" "a Pareto front needs mse"
finish
