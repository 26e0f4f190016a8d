# test_de_cec.sh: kind de's CEC 2017 and 2022 suites from the command line (CPU
# backend): an L-SHADE run on F1 at D = 10 writes cec_errors (14 fractions
# of max_evals, the evaluations of each checkpoint within its budget, one
# row per problem, errors not increasing) and reaches an error below 1e-8
# within 100,000 evaluations (L-SHADE's published F1 errors are 0); runs
# with other --seed values see the same function (cec_seed from the spec);
# bad values are refused with file:line; cec_data names a missing file;
# CEC 2022 F1 (function = cec2022): 16 checkpoints D^(k/5-3) of MaxFES
# 200,000, F* 300, error below 1e-8; its D and F ranges refused outside.
# Usage: bash test_de_cec.sh PATH/TO/evoforge
source "$(dirname "$0")/lib.sh"
evo=$1
export EVOFORGE_CACHE="${EVOFORGE_CACHE:-$cli_tmp/cache}"

spec="$cli_tmp/cec.ini"
cat > "$spec" <<'INI'
[problem]
kind = de
name = cec-f1
seed = 3
[de]
function = cec2017
cec_function = 1
dim = 10
strategy = lshade
max_evals = 100000
problems = 2
history_every = 0
INI
expect_exit 0 "lshade on CEC 2017 F1, D = 10" "$evo" run "$spec" --backend cpu -q -o "$cli_tmp/f1"
check=$(python3 - "$cli_tmp/f1/result.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
c = r["cec_errors"]
ok = (r["function"] == "cec2017" and r["cec_function"] == 1 and r["cec_fstar"] == 100
      and r["cec_seed"] == 3 and len(c["fractions"]) == 14 and c["fractions"][0] == 0.01
      and c["fractions"][-1] == 1.0 and len(c["errors"]) == 2
      and all(e <= f * 100000 for e, f in zip(c["evaluations"], c["fractions"]))
      and c["evaluations"][-1] > 99000)
for row, res in zip(c["errors"], r["results"]):
    ok = ok and len(row) == 14 and all(a >= b for a, b in zip(row, row[1:]))
    ok = ok and row[-1] == res["best"] and 0 <= row[-1] < 1e-8 and row[0] > 1e3
print("ok" if ok else "bad: " + json.dumps(c)[:600])
PY
)
if [ "$check" = ok ]; then cli_ok "cec_errors: 14 checkpoints per problem, F1 error < 1e-8 at 100,000 evaluations"
else cli_fail "cec_errors" "$check"; fi

# another run seed: other runs, the same function (an error at gen 0 differs, F* data equal)
expect_exit 0 "F5 with --seed 1" "$evo" run "$spec" --backend cpu -q -o "$cli_tmp/s1" --seed 1 \
	--set de.cec_function=5 --set de.max_evals=2000 --set de.problems=1
expect_exit 0 "F5 with --seed 2" "$evo" run "$spec" --backend cpu -q -o "$cli_tmp/s2" --seed 2 \
	--set de.cec_function=5 --set de.max_evals=2000 --set de.problems=1
same=$(python3 - "$cli_tmp/s1/result.json" "$cli_tmp/s2/result.json" <<'PY'
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:])
print("ok" if a["cec_seed"] == b["cec_seed"] == 3 and a["seed"] != b["seed"] and a["best_min"] != b["best_min"] else "bad")
PY
)
if [ "$same" = ok ]; then cli_ok "--seed changes the runs, not cec_seed"; else cli_fail "cec_seed" "$same"; fi

sed 's/^cec_function = 1/cec_function = 2/' "$spec" > "$cli_tmp/f2.ini"
expect_exit 2 "F2 refused" "$evo" run "$cli_tmp/f2.ini" --backend cpu -q -o "$cli_tmp/x"
expect_output "F2: file:line and why" "f2.ini:7: de.cec_function: F2 was withdrawn"
expect_exit 2 "D = 20 refused" "$evo" run "$spec" --backend cpu -q -o "$cli_tmp/x" --set de.dim=20
expect_output "dim: says which" "D = 10, 30, 50, 100, got 20"
expect_exit 2 "F31 refused" "$evo" run "$spec" --backend cpu -q -o "$cli_tmp/x" --set de.cec_function=31
expect_output "F31: names the key" "de.cec_function"
expect_exit 2 "shift with cec2017 refused" "$evo" run "$spec" --backend cpu -q -o "$cli_tmp/x" \
	--set de.shift=random
expect_output "shift: says why" "CEC 2017 has its own shifts"
expect_exit 2 "cec_data without the files" "$evo" run "$spec" --backend cpu -q -o "$cli_tmp/x" \
	--set de.cec_data=no-such-input_data
expect_output "cec_data: names the missing file" "no-such-input_data/shift_data_1.txt: No such file"
# CEC 2022: same machinery, its 16 checkpoints D^(k/5-3) x MaxFES (200,000 at D = 10), F* 300
cat > "$cli_tmp/c22.ini" <<'INI'
[problem]
kind = de
name = cec22-f1
seed = 5
[de]
function = cec2022
cec_function = 1
dim = 10
strategy = lshade
history_every = 0
INI
expect_exit 0 "lshade on CEC 2022 F1, D = 10" "$evo" run "$cli_tmp/c22.ini" --backend cpu -q -o "$cli_tmp/c22"
check=$(python3 - "$cli_tmp/c22/result.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
c = r["cec_errors"]
fr = [10 ** (k / 5 - 3) for k in range(16)]
ok = (r["function"] == "cec2022" and r["cec_function"] == 1 and r["cec_fstar"] == 300
      and len(c["fractions"]) == 16 and all(abs(a - b) < 1e-12 for a, b in zip(c["fractions"], fr))
      and c["evaluations"][-1] > 199000 and c["evaluations"][-1] <= 200000
      and 0 <= c["errors"][0][-1] < 1e-8)
print("ok" if ok else "bad: " + json.dumps(c)[:600])
PY
)
if [ "$check" = ok ]; then cli_ok "cec2022: 16 checkpoints, MaxFES 200,000, F1 error < 1e-8"
else cli_fail "cec2022" "$check"; fi
expect_exit 2 "CEC 2022 D = 30 refused" "$evo" run "$cli_tmp/c22.ini" --backend cpu -q -o "$cli_tmp/x" \
	--set de.dim=30
expect_output "cec2022 dim: says which" "CEC 2022 is defined for D = 10, 20, got 30"
expect_exit 2 "CEC 2022 F13 refused" "$evo" run "$cli_tmp/c22.ini" --backend cpu -q -o "$cli_tmp/x" \
	--set de.cec_function=13
expect_output "cec2022 F13: names the key" "cec_function: expected an integer in [1, 12]"
sed -i '/cec_function/d' "$spec"
expect_exit 2 "cec2017 without cec_function" "$evo" run "$spec" --backend cpu -q -o "$cli_tmp/x"
expect_output "missing cec_function: says what" "cec.ini:6: de.function = cec2017 needs cec_function"
finish
