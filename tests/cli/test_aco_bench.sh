#!/usr/bin/env bash
# test_aco_bench.sh: `evoforge bench aco`'s rule sets (--configs, --config)
# and its peer (--peer), on the CPU: each rule set is a row with the
# variant's parameters; a peer is run with GPU MMAS's arguments and its
# trials' lengths and times are read back from the JSON it writes (a fake
# peer here, a shell script writing such a file); a failing peer is a row
# saying so, not the end of the bench; bad options exit 2.
evo=${1:-build/evoforge}
. "$(dirname "$0")/lib.sh"

# a 6-city TSPLIB instance (optimum 22: the rectangle's perimeter)
printf 'NAME : six\nTYPE : TSP\nDIMENSION : 6\nEDGE_WEIGHT_TYPE : EUC_2D\nNODE_COORD_SECTION\n1 0 0\n2 3 0\n3 6 0\n4 6 5\n5 3 5\n6 0 5\nEOF\n' >"$cli_tmp/six.tsp"
printf '[problem]\nkind = aco\nname = six\n[data]\nfile = %s\n[aco]\noptimum = 22\nants = 8\n' \
	"$cli_tmp/six.tsp" >"$cli_tmp/six.ini"
# The fake peer: records its arguments, writes a results file as GPU MMAS
# does (two trials: 22 in 0.5 s, 24 in 0.25 s).
cat >"$cli_tmp/peer" <<'SH'
#!/bin/sh
echo "$@" >"$PEER_ARGS"
for a in "$@"; do case $a in --results-dir=*) dir=${a#--results-dir=} ;; esac; done
mkdir -p "$dir"
printf '{"trials": [{"final-solution-cost": 22, "total-time": 0.5},\n {"final-solution-cost": 24, "total-time": 0.25}]}\n' >"$dir/mmas-six.json"
SH
chmod +x "$cli_tmp/peer"
export PEER_ARGS="$cli_tmp/peer.args"

expect_exit 0 "bench aco --configs evoforge,acotsp --config ... --peer" "$evo" bench aco \
	--backend cpu --problems "$cli_tmp/six.ini" --configs evoforge,acotsp \
	--config "mine:aco.alpha=1;aco.beta=2;aco.p_best=0.01" --cpu-iterations 5 --iterations 5 --seeds 2 \
	--peer "$cli_tmp/peer" --peer-algs mmas_wrs_bt_cl -o "$cli_tmp/b"
for r in "| evoforge |" "| acotsp |" "| mine |"; do
	expect_output "row $r" "$r"
done
expect_output "the peer's row (6 ants = cities, 5 iterations, median 0.375 s / 5)" \
	"| six | 6 | peer | mmas_wrs_bt_cl | - | none | 6 | 5 | 75.000 |"
expect_output "its median length, gaps and mean time" "| 23 | 4.55 (mean 4.55) | 0.375 | - |"
if grep -q -- "--ants=0 --ls=0" "$PEER_ARGS" && grep -q -- "--trials=2" "$PEER_ARGS" &&
	grep -q -- "--alg=mmas_wrs_bt_cl" "$PEER_ARGS" && grep -q -- "--instance=$cli_tmp/six.tsp" "$PEER_ARGS"; then
	cli_ok "the peer got GPU MMAS's arguments: $(cat "$PEER_ARGS")"
else
	cli_fail "the peer's arguments" "$(cat "$PEER_ARGS" 2>&1)"
fi
if python3 - "$cli_tmp/b/bench-aco.json" <<'PY'
import json, sys
rows = json.load(open(sys.argv[1]))["rows"]
rules = [r["rules"] for r in rows]
assert rules == ["evoforge", "acotsp", "mine", "mmas_wrs_bt_cl"], rules
assert all(r["best_length"] >= 22 for r in rows)
assert abs(rows[-1]["gap_percent_mean"] - 100 * (0 + 2 / 22) / 2) < 1e-9
PY
then cli_ok "bench-aco.json: one row per rule set and the peer's"
else cli_fail "bench-aco.json" "see above"; fi

expect_exit 0 "a failing peer is a row" "$evo" bench aco --backend cpu --problems "$cli_tmp/six.ini" \
	--cpu-iterations 2 --peer /bin/false
expect_output "saying so" "| peer | mmas_rwm_ct_cl | failed: bench aco: --peer /bin/false failed (exit 1)"
expect_exit 2 "--config without NAME:" "$evo" bench aco --config "aco.alpha=1"
expect_output "says what it expects" "expected NAME:SETS"
expect_exit 2 "--configs unknown" "$evo" bench aco --configs fastest
expect_output "names it" "unknown 'fastest'"
expect_exit 2 "--config with an unknown key" "$evo" bench aco --backend cpu \
	--problems "$cli_tmp/six.ini" --config "x:aco.colour=blue" --cpu-iterations 1
expect_output "names the key" "colour"
finish
