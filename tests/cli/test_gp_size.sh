# test_gp_size.sh: kind gp's size and constants keys on the command line:
# bad [gp] parsimony / constants / optimise_constants values exit 2 naming
# file:line; result.json records the parsimony and the constant range (the
# default range of a csv problem, `constants = none`); optimise_constants
# lowers the best MSE of a small linear problem on a fixed seed.
# Usage: bash test_gp_size.sh PATH/TO/evoforge
source "$(dirname "$0")/lib.sh"
evo=$1

# A table y = 2.5 x + 1.3 with x = -2, -1.9, ... 1.9: mean(y) = 1.175,
# sd(y) = 2.5 sd(x) = 2.5 * 1.15434 (x: mean -0.05, sd sqrt(1.3325)); the
# default range is r = |mean(y)| + 2 sd(y), the largest of the columns'.
python3 - "$cli_tmp/lin.csv" <<'PY'
import sys
with open(sys.argv[1], "w") as f:
    f.write("x,y\n")
    for i in range(40):
        x = -2 + i / 10
        f.write(f"{x:.6f},{2.5 * x + 1.3:.6f}\n")
PY
cat >"$cli_tmp/lin.ini" <<EOF2
[problem]
kind = gp
name = lin

[gp]
population = 100
generations = 10
stop_on_success = false

[data]
source = csv
file = lin.csv
label = y
fitness = mse
EOF2
run() { "$evo" run "$cli_tmp/lin.ini" --backend cpu --quiet --seed 3 "$@"; }

for bad in "gp.parsimony=smallest" "gp.parsimony=penalty" "gp.parsimony_coefficient=0.1" \
	   "gp.constants=nothing" "gp.optimise_constants=-2"; do
	expect_exit 2 "--set $bad exits 2" run -o "$cli_tmp/bad" --set "$bad"
	key=${bad%%=*}
	expect_output "--set $bad names the key" "[gp] ${key#gp.}"
done
sed 's/^stop_on_success = false/stop_on_success = false\nparsimony = lexical/' "$cli_tmp/lin.ini" >"$cli_tmp/badfile.ini"
expect_exit 2 "parsimony typo in a file exits 2" "$evo" run "$cli_tmp/badfile.ini" --backend cpu -q -o "$cli_tmp/bad"
expect_output "parsimony typo names file:line" "badfile.ini:9"
sed 's/^fitness = mse/fitness = classification/; s/^stop_on_success = false/stop_on_success = false\noptimise_constants = 2/' \
	"$cli_tmp/lin.ini" >"$cli_tmp/cls.ini"
sed -i 's/^file = lin.csv/file = cls.csv/' "$cli_tmp/cls.ini"
printf 'x,y\n1,0\n2,1\n' >"$cli_tmp/cls.csv"
expect_exit 2 "optimise_constants on classification exits 2" "$evo" run "$cli_tmp/cls.ini" --backend cpu -q -o "$cli_tmp/bad"
expect_output "optimise_constants on classification names file:line" "cls.ini:9"

# result.json: the default range, none, an explicit one; the parsimony.
check() {   # check NAME DIR PYTHON-EXPRESSION-ON-r
	if python3 -c "import json,sys,math; r=json.load(open(sys.argv[1]+'/result.json')); assert $3, r['parameters']" "$2" 2>"$cli_tmp/check"; then
		cli_ok "$1"; else cli_fail "$1" "$(tail -3 "$cli_tmp/check")"; fi
}
expect_exit 0 "default run" run -o "$cli_tmp/def"
want="abs(1.175) + 2 * 2.5 * math.sqrt(1.3325)"
check "default constants are [-r, r) from the data" "$cli_tmp/def" \
	"abs(r['parameters']['constants'][1] - ($want)) < 1e-3 and r['parameters']['constants'][0] == -r['parameters']['constants'][1]"
check "default parsimony recorded" "$cli_tmp/def" "r['parameters']['parsimony'] in ('none', 'lexicographic')"
check "history has mean_size and best_size" "$cli_tmp/def" "all('mean_size' in h and 'best_size' in h for h in r['history'])"
check "best.simplified is no larger than best.size" "$cli_tmp/def" \
	"r['best']['simplified'] and 0 < r['best']['simplified_size'] <= r['best']['size'] and r['best']['size'] == len(r['best']['prefix'].split())"
expect_exit 0 "constants = none" run -o "$cli_tmp/none" --set gp.constants=none
check "constants = none gives none" "$cli_tmp/none" "r['parameters']['constants'] is None and 'e' not in r['best']['infix'].replace('x','')"
expect_exit 0 "penalty" run -o "$cli_tmp/pen" --set gp.parsimony=penalty --set gp.parsimony_coefficient=0.5
check "penalty recorded" "$cli_tmp/pen" "r['parameters']['parsimony'] == 'penalty' and r['parameters']['parsimony_coefficient'] == 0.5"
check "penalty: reported fitness is the raw MSE" "$cli_tmp/pen" "all(h['best'] < 100 for h in r['history'])"

# Constant optimisation: lower best MSE than without, on this seed (a property
# of seed 3 on this table, not a theorem), unscaled (with linear scaling
# both runs reach the float floor), at the size limit it was measured with.
expect_exit 0 "unscaled default" run -o "$cli_tmp/def0" --set gp.linear_scaling=off \
	--set gp.max_size=1000
expect_exit 0 "optimise_constants = 10" run -o "$cli_tmp/opt" --set gp.optimise_constants=10 \
	--set gp.linear_scaling=off --set gp.max_size=1000
if python3 -c "
import json,sys
a=json.load(open(sys.argv[1]+'/def0/result.json'))['best']['fitness']
b=json.load(open(sys.argv[1]+'/opt/result.json'))['best']['fitness']
assert b < a, (a, b)" "$cli_tmp" 2>"$cli_tmp/check"; then
	cli_ok "optimise_constants lowers the best MSE (seed 3)"
else cli_fail "optimise_constants lowers the best MSE (seed 3)" "$(tail -1 "$cli_tmp/check")"; fi
finish
