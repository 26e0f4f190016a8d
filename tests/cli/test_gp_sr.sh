# test_gp_sr.sh: symbolic regression's functions on the command line: a
# Feynman-like target y = sqrt(x1^2 + x2^2) (200 rows) evolved on the CPU
# with sqrt, square and the named constant pi reaches a small MSE; the
# result names the functions and the simplified formula uses sqrt; an
# unknown function name exits 2; the default sextic is solved with a
# reported formula of at most 20 nodes (seeds 1, 3, 7).
# Usage: bash test_gp_sr.sh PATH/TO/evoforge
source "$(dirname "$0")/lib.sh"
evo=$1

python3 - "$cli_tmp/feyn.csv" <<'PY'
import math, random, sys
random.seed(7)
with open(sys.argv[1], "w") as f:
    f.write("x1,x2,y\n")
    for i in range(200):
        a, b = random.uniform(-3, 3), random.uniform(-3, 3)
        f.write(f"{a:.6f},{b:.6f},{math.sqrt(a * a + b * b):.6f}\n")
PY
cat >"$cli_tmp/feyn.ini" <<EOF2
[problem]
kind = gp
name = feyn

[gp]
population = 300
generations = 20
functions = + - * / sqrt square tanh aq pi
constants = none
linear_scaling = off   ; this test is about the functions (seed 1 scaled: MSE 0.019)
success_threshold = 1e-6
stop_on_success = true

[data]
source = csv
file = feyn.csv
label = y
fitness = mse
EOF2
expect_exit 0 "sqrt(x1^2 + x2^2) runs" "$evo" run "$cli_tmp/feyn.ini" --backend cpu --quiet --seed 1 -o "$cli_tmp/feyn"
if python3 -c "
import json, sys
r = json.load(open(sys.argv[1] + '/result.json'))
assert r['parameters']['functions'][-1] == 'pi', r['parameters']['functions']
assert r['best']['fitness'] < 0.01, r['best']['fitness']
print(r['best']['fitness'], r['best']['simplified'])
" "$cli_tmp/feyn" >"$cli_tmp/check" 2>&1; then
	cli_ok "best MSE < 0.01: $(cat "$cli_tmp/check")"
else
	cli_fail "best MSE < 0.01" "$(tail -3 "$cli_tmp/check")"
fi
# Export round trip: the exported C (gp_ops.h's expressions) computes what
# evoforge eval does, bit for bit, with every new function in the program.
cat >"$cli_tmp/all.ini" <<EOF2
[problem]
kind = gp
name = allsr

[gp]
population = 200
generations = 5
functions = + - * / sqrt square cube pow4 tanh abs aq pi e
constants = -2 2

[data]
source = csv
file = feyn.csv
label = y
fitness = mse
EOF2
expect_exit 0 "every SR function: run" "$evo" run "$cli_tmp/all.ini" --backend cpu --quiet --seed 2 -o "$cli_tmp/all"
expect_exit 0 "export" "$evo" export "$cli_tmp/all/result.json" -o "$cli_tmp/allx"
cut -d, -f1,2 "$cli_tmp/feyn.csv" >"$cli_tmp/in.csv"
expect_exit 0 "evoforge eval" "$evo" eval "$cli_tmp/all/result.json" "$cli_tmp/in.csv" -o "$cli_tmp/evo.csv"
if command -v cc >/dev/null && command -v make >/dev/null; then
	expect_exit 0 "exported program builds" make -s -C "$cli_tmp/allx"
	expect_exit 0 "exported program runs" "$cli_tmp/allx/allsr-eval" --backend cpu "$cli_tmp/in.csv" -o "$cli_tmp/c.csv"
	expect_exit 0 "exported == evoforge eval, bit for bit" cmp "$cli_tmp/c.csv" "$cli_tmp/evo.csv"
fi
expect_exit 2 "an unknown function exits 2" "$evo" run "$cli_tmp/feyn.ini" --backend cpu -q \
	-o "$cli_tmp/bad" --set "gp.functions=+ cbrt"
expect_output "the message lists the new functions" "sqrt square cube pow4 tanh abs aq"
# The sextic with the shipped defaults (the embedded problems/sextic.ini,
# CPU): solved, and the reported formula at most 20 nodes, on seeds 3 and
# 7 (their fronts once reported 21 and 27 nodes) and 1. The normal build
# only: the sanitizer build takes minutes a seed on 100,000 cases.
seeds="1 3 7"
case $evo in *asan*)
	echo "note: the sextic seeds run with the normal build only (the sanitizer build is ~10x slower)"
	seeds="" ;;
esac
for seed in $seeds; do
	expect_exit 0 "sextic seed $seed runs" "$evo" run --backend cpu --threads 1 -q --seed "$seed" \
		-o "$cli_tmp/sextic$seed"
	if python3 - "$cli_tmp/sextic$seed/result.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
b = r["best"]
ok = b["fitness"] <= 1e-6 and b["simplified_size"] <= 20
print(f"sextic: fitness {b['fitness']:.3g}, {b['simplified_size']} nodes: {b['simplified']}")
sys.exit(0 if ok else 1)
PY
	then cli_ok "sextic seed $seed: solved, reported formula <= 20 nodes"
	else cli_fail "sextic seed $seed" "not solved or reported formula over 20 nodes"
	fi
done
finish
