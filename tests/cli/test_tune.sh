# test_tune.sh: `evoforge tune` on the CPU: the database is written, `run`
# then says "tuned configuration:" and gives the same result as --no-tune;
# an entry is kept unless --retune; a corrupt database is ignored; kinds
# without tunable parameters say so. Usage: bash test_tune.sh PATH/TO/evoforge
source "$(dirname "$0")/lib.sh"
evo=$1
export EVOFORGE_CACHE="$cli_tmp/cache"
db="$EVOFORGE_CACHE/tuning.json"

expect_exit 0 "tune --help" "$evo" tune --help
expect_output "tune --help shows usage" "usage: evoforge tune"
expect_exit 2 "tune without SPEC" "$evo" tune
expect_exit 2 "tune bad --budget" "$evo" tune problems/mux6.ini --budget -1
expect_output "bad --budget message" "--budget: expected seconds"

# GP (Boolean: exact fitness) on the CPU.
expect_exit 0 "tune gp mux6" "$evo" tune --backend cpu --budget 3 problems/mux6.ini
expect_output "tune prints the table" "| rank | block | threads | GPop/s | vs default |"
expect_output "tune marks the default" "(default)"
expect_output "tune names the winner" "tuned configuration: gp.cpu_block="
if python3 -c "import json,sys; d=json.load(open(sys.argv[1])); e=d['entries']; assert len(e)==1 and e[0]['kind']=='gp' and e[0]['backend']=='cpu' and 'gp.cpu_block=' in e[0]['overrides']" "$db" 2>/dev/null; then
	cli_ok "tuning.json holds the entry"
else
	cli_fail "tuning.json holds the entry" "$(cat "$db" 2>&1 | head -20)"
fi
expect_exit 0 "run uses the tuned configuration" "$evo" run --backend cpu --generations 3 problems/mux6.ini -o "$cli_tmp/tuned"
expect_output "run says so" "tuned configuration: gp.cpu_block="
if head -1 "$cli_tmp/out" | grep -q "^tuned configuration:"; then cli_ok "in its first line"; else cli_fail "in its first line" "$(head -1 "$cli_tmp/out")"; fi
tuned_best=$(grep -E "^(solved|done) after" "$cli_tmp/out")
expect_exit 0 "run --no-tune" "$evo" run --backend cpu --generations 3 --no-tune problems/mux6.ini -o "$cli_tmp/plain"
if grep -q "tuned configuration" "$cli_tmp/out"; then cli_fail "--no-tune ignores the database" "it did not"; else cli_ok "--no-tune ignores the database"; fi
plain_best=$(grep -E "^(solved|done) after" "$cli_tmp/out")
if [ -n "$tuned_best" ] && [ "$tuned_best" = "$plain_best" ]; then cli_ok "same result tuned and untuned"; else
	cli_fail "same result tuned and untuned" "'$tuned_best' vs '$plain_best'"; fi
expect_exit 0 "run with --set keeps the user's value" "$evo" run --backend cpu --generations 1 --set gp.cpu_block=128 problems/mux6.ini -o "$cli_tmp/set"
expect_output "the command line wins" "the command line keeps gp.cpu_block (--set)"
expect_exit 0 "tune again keeps the entry" "$evo" tune --backend cpu --budget 3 problems/mux6.ini
expect_output "tune again says it is tuned" "is tuned already"
expect_exit 0 "tune --retune" "$evo" tune --backend cpu --budget 2 --retune problems/mux6.ini
expect_output "--retune searches again" "| rank |"

# DE on the CPU (threads), then the same result.
expect_exit 0 "tune de sphere" "$evo" tune --backend cpu --budget 2 problems/de-sphere.ini --set de.max_evals=3000
expect_output "de winner" "tuned configuration: run.threads="
expect_exit 0 "run de tuned" "$evo" run --backend cpu problems/de-sphere.ini --set de.max_evals=3000 -o "$cli_tmp/de1"
expect_output "de run says so" "tuned configuration: run.threads="
de_tuned=$(grep "^de: best" "$cli_tmp/out" | sed 's/ in .*//')
expect_exit 0 "run de untuned" "$evo" run --backend cpu --no-tune problems/de-sphere.ini --set de.max_evals=3000 -o "$cli_tmp/de2"
de_plain=$(grep "^de: best" "$cli_tmp/out" | sed 's/ in .*//')
if [ -n "$de_tuned" ] && [ "$de_tuned" = "$de_plain" ]; then cli_ok "de: same result tuned and untuned"; else
	cli_fail "de: same result tuned and untuned" "'$de_tuned' vs '$de_plain'"; fi

# A corrupt database is reported and ignored, then replaced.
printf '{"format": 1, "entries": [' >"$db"
expect_exit 0 "run with a corrupt database" "$evo" run --backend cpu --generations 1 problems/mux6.ini -o "$cli_tmp/corrupt"
expect_output "corrupt database reported" "ignoring the tuning database"
expect_exit 0 "tune replaces a corrupt database" "$evo" tune --backend cpu --budget 1 problems/mux6.ini
expect_output "replacement reported" "replacing the tuning database"

# Kinds without tunable parameters say so.
expect_exit 1 "tune aco" "$evo" tune --backend cpu problems/aco-random.ini
expect_output "aco has nothing to tune" "kind 'aco' has no tunable parameters"
finish
