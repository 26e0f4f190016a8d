# test_gp_ignore.sh: [data] ignore for kind gp on the CPU. A generated CSV
# with two extra columns (a random number and a string) run with
# `ignore = junk tag` must evolve exactly as the same table without those
# columns (same seed: same best program and fitness, same held-out MSE on a
# test file that has the extra columns too); result.json lists the inputs
# kept; `evoforge eval` reads the full file by the kept names; bad names,
# the label column and the key on a generated problem exit 2 naming the key.
# Usage: bash test_gp_ignore.sh PATH/TO/evoforge
source "$(dirname "$0")/lib.sh"
evo=$1
t=$cli_tmp

python3 - "$t" <<'PY'
import random, struct, sys
d = sys.argv[1]
f32 = lambda v: struct.unpack("f", struct.pack("f", v))[0]
random.seed(5)
for name, n in (("train", 300), ("test", 97)):
    full = open("%s/%s-full.csv" % (d, name), "w")
    lean = open("%s/%s-lean.csv" % (d, name), "w")
    full.write("a,junk,b,tag,y\n")
    lean.write("a,b,y\n")
    for i in range(n):
        a = f32(random.uniform(-2, 2)); b = f32(random.uniform(0, 1))
        j = f32(random.uniform(-50, 50)); tag = random.choice(["red", "blue"])
        y = f32(a * a - b + random.gauss(0, 0.05))
        full.write("%.9g,%.9g,%.9g,%s,%.9g\n" % (a, j, b, tag, y))
        lean.write("%.9g,%.9g,%.9g\n" % (a, b, y))
PY

spec() {   # spec NAME FILE TESTFILE EXTRA-LINES...
	local name=$1 file=$2 test=$3
	shift 3
	{
		printf '[problem]\nkind = gp\nname = %s\n[gp]\npopulation = 200\ngenerations = 8\n' "$name"
		printf 'functions = + - * /\n'
		printf '[data]\nsource = csv\nfile = %s\nlabel = y\nfitness = mse\ntest = %s\n' "$file" "$test"
		for l in "$@"; do printf '%s\n' "$l"; done
	} >"$t/$name.ini"
}

spec full train-full.csv test-full.csv "ignore = junk tag"
spec lean train-lean.csv test-lean.csv
expect_exit 0 "a run with ignore = junk tag" "$evo" run "$t/full.ini" --backend cpu --seed 7 -o "$t/full"
expect_exit 0 "the same table without those columns" "$evo" run "$t/lean.ini" --backend cpu --seed 7 \
	-o "$t/lean"
expect_exit 0 "eval of the ignore run on the full test file" "$evo" eval "$t/full/result.json" \
	"$t/test-full.csv" -o "$t/full-pred.csv"
expect_exit 0 "eval of the lean run on the lean test file" "$evo" eval "$t/lean/result.json" \
	"$t/test-lean.csv" -o "$t/lean-pred.csv"
if python3 - "$t/full/result.json" "$t/lean/result.json" "$t/full-pred.csv" "$t/lean-pred.csv" <<'PY'
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:3])
timing = ("eval_s", "gen_s", "gpops_eval", "gpops_gen", "host_s", "device_s")
strip = lambda h: {k: v for k, v in h.items() if k not in timing}
pa, pb = (open(p).read() for p in sys.argv[3:5])
checks = [
    (a["data"]["inputs"] == 2 and a["data"]["input_names"] == ["a", "b"], "inputs kept: a b"),
    (a["best"]["prefix"] == b["best"]["prefix"], "same best program"),
    (a["best"]["fitness"] == b["best"]["fitness"], "same fitness"),
    (a["holdout"]["test_mse"] == b["holdout"]["test_mse"], "same test_mse"),
    ([strip(h) for h in a["history"]] == [strip(h) for h in b["history"]], "same history"),
    (pa == pb, "same eval predictions"),
]
bad = [m for c, m in checks if not c]
if bad: print("; ".join(bad))
sys.exit(1 if bad else 0)
PY
then cli_ok "ignore run == the run on the table without the columns (program, fitness, test_mse, eval)"
else cli_fail "ignore run vs lean run" "see above"; fi

spec bad train-full.csv test-full.csv "ignore = junk nosuch"
expect_exit 2 "an unknown column name exits 2" "$evo" run "$t/bad.ini" --backend cpu -o "$t/bad"
expect_output "the message names the key and the column" "[data] ignore"
expect_output "... and the name" "got 'nosuch'"
spec lab train-full.csv test-full.csv "ignore = y"
expect_exit 2 "ignoring the label exits 2" "$evo" run "$t/lab.ini" --backend cpu -o "$t/lab"
expect_output "the message says the label cannot be ignored" "the label column cannot be ignored"
expect_exit 2 "ignore on a generated problem exits 2" "$evo" run "$(dirname "$0")/../../problems/sextic.ini" \
	--backend cpu --set data.ignore=x1 -o "$t/sx"
expect_output "the message names the key" "unknown key 'ignore' in section [data]"
finish
