# test_de_adapt.sh: kind de's adaptive strategies from the command line
# (CPU backend): `--set de.strategy=lshade` on problems/de-rastrigin.ini
# writes result.json naming the strategy and its parameters, with the
# evaluations of L-SHADE's shrinking population within max_evals; bad
# values are refused with the key; checkpoints of an adaptive run (memories,
# archives, active population) resume to the uninterrupted run's results,
# from a mid-run checkpoint and after SIGTERM; SaDE and CoDE likewise.
# Usage: bash test_de_adapt.sh PATH/TO/evoforge
source "$(dirname "$0")/lib.sh"
evo=$1
export EVOFORGE_CACHE="${EVOFORGE_CACHE:-$cli_tmp/cache}"
untimed() { grep -vE '_s"|_ms|ms_per|seconds|gpops|per_second|"date"|host_share' "$1"; }
field() { python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))[sys.argv[2]])' "$@"; }

ras=(problems/de-rastrigin.ini --backend cpu --set de.problems=2 --set de.max_evals=30000)
expect_exit 0 "lshade on de-rastrigin.ini" "$evo" run "${ras[@]}" --set de.strategy=lshade -q \
	-o "$cli_tmp/ras"
r="$cli_tmp/ras/result.json"
if [ "$(field "$r" strategy)" = lshade ] && [ "$(field "$r" population)" = 540 ] &&
	[ "$(field "$r" memory_size)" = 6 ] && [ "$(field "$r" population_min)" = 4 ] &&
	[ "$(field "$r" bounds)" = midpoint ] && [ "$(field "$r" evaluations)" -le 60000 ] &&
	[ "$(field "$r" evaluations)" -gt 59900 ]; then
	cli_ok "result.json: strategy lshade, population 540 -> 4, H 6, midpoint, 2 x 30000 evaluations"
else
	cli_fail "result.json: strategy lshade and its parameters" "$(head -40 "$r")"
fi
last=$(tail -1 "$cli_tmp/ras/history.csv" | cut -d, -f2)
if [ "$last" -le 30000 ] && [ "$last" -gt 29950 ]; then cli_ok "history.csv: evaluations of the schedule"
else cli_fail "history.csv: evaluations of the schedule" "last row: $(tail -1 "$cli_tmp/ras/history.csv")"; fi

expect_exit 2 "p_best out of range" "$evo" run "${ras[@]}" --set de.strategy=shade --set de.p_best=2 \
	-q -o "$cli_tmp/x"
expect_output "p_best: says which key" "de.p_best"
expect_exit 2 "lshade without max_evals" "$evo" run "${ras[@]}" --set de.strategy=lshade \
	--set de.max_evals=0 --set de.generations=100 -q -o "$cli_tmp/x"
expect_output "max_evals: says why" "needs max_evals > 0"
expect_exit 2 "jso on the naive kernels" "$evo" run "${ras[@]}" --set de.strategy=jso \
	--set de.variant=naive -q -o "$cli_tmp/x"
expect_output "naive: says so" "does not implement strategy = jso"
expect_exit 2 "memory_size with rand/1/bin" "$evo" run "${ras[@]}" --set de.memory_size=5 -q -o "$cli_tmp/x"
expect_output "memory_size: says so" "apply to strategy = jade, shade, lshade or jso"

# Checkpoints: jSO, D = 10, two problems, 40000 evaluations (about 600 generations).
ck=(problems/de-rastrigin.ini --backend cpu --seed 4 --set de.strategy=jso --set de.dim=10
	--set de.problems=2 --set de.max_evals=40000 --set de.target=0 --set de.report_every=50)
same_as() {
	if diff <(untimed "$2/result.json") <(untimed "$3/result.json") >"$cli_tmp/diff" &&
		cmp "$2/history.csv" "$3/history.csv" >>"$cli_tmp/diff" 2>&1; then
		cli_ok "$1: result.json and history as the uninterrupted run's"
	else
		cli_fail "$1: result.json and history as the uninterrupted run's" "$(head -20 "$cli_tmp/diff")"
	fi
}
expect_exit 0 "jso: the uninterrupted run" "$evo" run "${ck[@]}" -q -o "$cli_tmp/ref"
expect_exit 0 "jso: --checkpoint-every 500" "$evo" run "${ck[@]}" --checkpoint-every 500 -q -o "$cli_tmp/every"
same_as "jso: with checkpoints" "$cli_tmp/ref" "$cli_tmp/every"
expect_exit 0 "jso: resumed from generation 500" "$evo" run "${ck[@]}" --resume "$cli_tmp/every/checkpoint.bin" \
	-o "$cli_tmp/mid"
expect_output "jso: says where it resumes" "generation 500 done"
same_as "jso: resumed from generation 500" "$cli_tmp/ref" "$cli_tmp/mid"

dir="$cli_tmp/termed"
"$evo" run "${ck[@]}" --checkpoint-every 1 -q -o "$dir" >"$cli_tmp/t.log" 2>&1 &
pid=$!
for ((k = 0; k < 400; k++)); do [ -f "$dir/checkpoint.bin" ] && break; sleep 0.05; done
kill -TERM "$pid"
wait "$pid"
rc=$?
if [ "$rc" -eq 3 ] && [ -f "$dir/checkpoint.bin" ]; then cli_ok "jso: SIGTERM: exit 3 and a checkpoint"
else cli_fail "jso: SIGTERM: exit 3 and a checkpoint" "exit $rc; $(tail -3 "$cli_tmp/t.log")"; fi
expect_exit 0 "jso: SIGTERM: resume" "$evo" run "${ck[@]}" --resume "$dir/checkpoint.bin" -q -o "$dir"
same_as "jso: stopped by SIGTERM and resumed" "$cli_tmp/ref" "$dir"

# SaDE and CoDE (templates/de/de_mixed.h): their defaults in result.json,
# CoDE's three evaluations an individual within max_evals, and resumes
mix=("${ras[@]}" --set de.target=0)
expect_exit 0 "sade on de-rastrigin.ini" "$evo" run "${mix[@]}" --set de.strategy=sade -q -o "$cli_tmp/sade"
r="$cli_tmp/sade/result.json"
if [ "$(field "$r" strategy)" = sade ] && [ "$(field "$r" population)" = 50 ] &&
	[ "$(field "$r" learning_period)" = 50 ] && [ "$(field "$r" bounds)" = reflect ] &&
	[ "$(field "$r" evaluations)" = 60000 ]; then
	cli_ok "result.json: strategy sade, population 50, learning period 50, reflect, 2 x 30000 evaluations"
else
	cli_fail "result.json: strategy sade and its parameters" "$(head -40 "$r")"
fi
expect_exit 0 "code on de-rastrigin.ini" "$evo" run "${mix[@]}" --set de.strategy=code -q -o "$cli_tmp/code"
r="$cli_tmp/code/result.json"
if [ "$(field "$r" strategy)" = code ] && [ "$(field "$r" population)" = 30 ] &&
	[ "$(field "$r" generation_limit)" = 333 ] && [ "$(field "$r" evaluations)" = 60000 ] &&
	[ "$(tail -1 "$cli_tmp/code/history.csv" | cut -d, -f1,2)" = 330,29730 ]; then
	cli_ok "result.json: strategy code, population 30, 333 generations of 90 evaluations, history's counts"
else
	cli_fail "result.json: strategy code" "$(head -40 "$r"; tail -2 "$cli_tmp/code/history.csv")"
fi
expect_exit 2 "code with population 5" "$evo" run "${mix[@]}" --set de.strategy=code --set de.population=5 \
	-q -o "$cli_tmp/x"
expect_output "population: says the least" "expected an integer in [6,"
expect_exit 2 "state_memory = shared where it cannot fit" "$evo" gen problems/de-rastrigin.ini \
	--set de.strategy=lshade --set de.dim=100 --set de.population=20000 --set de.state_memory=shared \
	-o "$cli_tmp/x"
expect_output "state_memory: says why" "state_memory = shared: the strategy's state needs"
for s in sade code; do
	mk=(problems/de-rastrigin.ini --backend cpu --seed 6 --set de.strategy=$s --set de.dim=10
		--set de.problems=2 --set de.max_evals=20000 --set de.target=0)
	expect_exit 0 "$s: the uninterrupted run" "$evo" run "${mk[@]}" -q -o "$cli_tmp/$s-ref"
	expect_exit 0 "$s: --checkpoint-every 60" "$evo" run "${mk[@]}" --checkpoint-every 60 -q \
		-o "$cli_tmp/$s-every"
	expect_exit 0 "$s: resumed" "$evo" run "${mk[@]}" --resume "$cli_tmp/$s-every/checkpoint.bin" \
		-q -o "$cli_tmp/$s-mid"
	same_as "$s: resumed from its last checkpoint" "$cli_tmp/$s-ref" "$cli_tmp/$s-mid"
done
finish
