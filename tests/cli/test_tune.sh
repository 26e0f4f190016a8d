# test_tune.sh: `evoforge tune` on the CPU: the database is written, `run`
# then says "tuned configuration:" and gives the same result as --no-tune
# (gp, de; aco, mbp and svm: the same tour, weights and model files, also
# with every speed key of theirs set to a non-default value); an entry is
# kept unless --retune; a corrupt database is ignored; bad values of the
# tuned keys are errors. Usage: bash test_tune.sh PATH/TO/evoforge
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

# aco, mbp, svm on the CPU: tune, then run tuned, untuned and with every
# speed key set otherwise; the result files must be identical.
# same_files NAME FILE DIR...: FILE is byte-identical in every DIR.
same_files() {
	local name=$1 file=$2 first=$3 d
	shift 3
	for d in "$@"; do
		if ! cmp -s "$first/$file" "$d/$file"; then
			cli_fail "$name" "$first/$file and $d/$file differ"
			return
		fi
	done
	[ -s "$first/$file" ] && cli_ok "$name" || cli_fail "$name" "$first/$file is missing or empty"
}
# tune_kind KIND SPEC RESULT_FILE WINNER_PREFIX "SPEED OPTIONS" [--set ...]: the checks above.
tune_kind() {
	local kind=$1 spec=$2 file=$3 winner=$4 speed=$5
	shift 5
	expect_exit 0 "tune $kind" "$evo" tune --backend cpu --budget 3 "$spec" "$@"
	expect_output "$kind: tune prints the table" "| rank |"
	expect_output "$kind: tune names the winner" "tuned configuration: $winner"
	if python3 -c "import json,sys; e=[x for x in json.load(open(sys.argv[1]))['entries'] if x['kind']==sys.argv[2]]; assert len(e)==1 and e[0]['backend']=='cpu' and sys.argv[3] in e[0]['overrides']" "$db" "$kind" "$winner" 2>/dev/null; then
		cli_ok "$kind: tuning.json holds the entry"
	else
		cli_fail "$kind: tuning.json holds the entry" "$(head -c 2000 "$db" 2>&1)"
	fi
	expect_exit 0 "$kind: run tuned" "$evo" run --backend cpu "$spec" "$@" -o "$cli_tmp/$kind-tuned"
	if head -1 "$cli_tmp/out" | grep -q "^tuned configuration: $winner"; then cli_ok "$kind: run says so first"; else
		cli_fail "$kind: run says so first" "$(head -1 "$cli_tmp/out")"; fi
	expect_exit 0 "$kind: run --no-tune" "$evo" run --backend cpu --no-tune "$spec" "$@" -o "$cli_tmp/$kind-plain"
	# shellcheck disable=SC2086
	expect_exit 0 "$kind: run with other speed keys" "$evo" run --backend cpu --no-tune $speed "$spec" "$@" -o "$cli_tmp/$kind-speed"
	same_files "$kind: same $file tuned, untuned and with other speed keys" "$file" \
		"$cli_tmp/$kind-plain" "$cli_tmp/$kind-tuned" "$cli_tmp/$kind-speed"
}
tune_kind aco problems/aco-random.ini best.tour "run.threads=" \
	"--threads 1 --set aco.block=64 --set aco.cand_memory=global" \
	--set data.random=200 --set aco.iterations=20
tune_kind mbp problems/mbp-spirals.ini network.net "run.threads=" \
	"--threads 1 --set mbp.threads=256 --set mbp.stage_inputs=no --set mbp.variant=fused" \
	--set mbp.epochs=300
# svm: three classes (one-vs-one) on 240 generated points, written here.
python3 - "$cli_tmp/svm3.txt" <<'PY'
import math, sys
with open(sys.argv[1], "w") as f:
    for i in range(240):
        c = i % 3
        x = [math.sin(0.37 * i + k) + 0.8 * c * (k == c) for k in range(4)]
        f.write("%d %s\n" % (c + 1, " ".join("%d:%.6f" % (k + 1, v) for k, v in enumerate(x))))
PY
printf '[problem]\nkind = svm\nname = svm3\n[svm]\nkernel = rbf\nC = 4\n[data]\ntrain = svm3.txt\n' >"$cli_tmp/svm3.ini"
tune_kind svm "$cli_tmp/svm3.ini" model.txt "svm.cache_mb=" \
	"--threads 1 --set svm.cache_mb=1 --set svm.gpu_blocks_per_sm=2 --set svm.gpu_cache_mb=64"

# Bad values of the keys the tuners set are errors naming the key.
expect_exit 2 "bad aco.cand_memory" "$evo" run --backend cpu problems/aco-random.ini --set aco.cand_memory=sideways -o "$cli_tmp/bad"
expect_output "aco.cand_memory message" "[aco] cand_memory: expected one of auto, shared, global, got 'sideways'"
expect_exit 2 "bad aco.block" "$evo" run --backend cpu problems/aco-random.ini --set aco.block=2048 -o "$cli_tmp/bad"
expect_output "aco.block message" "[aco] block: expected an integer in [0, 1024]"
expect_exit 2 "bad mbp.stage_inputs" "$evo" run --backend cpu problems/mbp-xor.ini --set mbp.stage_inputs=maybe -o "$cli_tmp/bad"
expect_output "mbp.stage_inputs message" "[mbp] stage_inputs: expected one of auto, no, yes, got 'maybe'"
expect_exit 2 "bad svm.gpu_blocks_per_sm" "$evo" run --backend cpu "$cli_tmp/svm3.ini" --set svm.gpu_blocks_per_sm=9 -o "$cli_tmp/bad"
expect_output "svm.gpu_blocks_per_sm message" "[svm] gpu_blocks_per_sm: expected an integer in [0, 4], got '9'"
expect_exit 2 "bad svm.cache_mb" "$evo" run --backend cpu "$cli_tmp/svm3.ini" --set svm.cache_mb=0 -o "$cli_tmp/bad"
expect_output "svm.cache_mb message" "[svm] cache_mb: expected"
finish
