# test_signals.sh: a run of every kind stopped by SIGTERM (or SIGINT) finishes
# its step, writes result.json marked "interrupted" with the signal's name,
# leaves no temporary file and exits 3; a second SIGINT ends the process at
# once (exit 130); a write past `ulimit -f` is an error naming the file
# (exit 1), not a death by SIGXFSZ, and leaves no temporary file behind.
# Usage: bash test_signals.sh PATH/TO/evoforge
source "$(dirname "$0")/lib.sh"
evo=$1
export EVOFORGE_CACHE="$cli_tmp/cache"

# svm's data: 3,000 noisy points in 8 dimensions, long to solve to eps 1e-9.
awk 'BEGIN { srand(5); print "a,b,c,d,e,f,g,h,y"; for (i = 0; i < 3000; i++) {
	s = 0; for (k = 0; k < 8; k++) { v[k] = rand(); s += v[k] }
	printf "%f,%f,%f,%f,%f,%f,%f,%f,%d\n", v[0], v[1], v[2], v[3], v[4], v[5], v[6], v[7],
		(s + rand() > 4.5) ? 1 : -1 } }' >"$cli_tmp/noisy.csv"
printf '[problem]\nkind = svm\nname = noisy\n[svm]\nC = 100000\neps = 1e-9\n[data]\ntrain = noisy.csv\nlabel = y\n' \
	>"$cli_tmp/noisy.ini"

# stop_run LABEL SIGNAL ARGS...: starts `evoforge run ARGS -o DIR` on the CPU,
# sends SIGNAL once it has run 2 s, and checks the exit status, the mark and
# that no temporary file is left.
stop_run() {
	local label=$1 sig=$2 dir="$cli_tmp/$1" rc
	shift 2
	"$evo" run "$@" --backend cpu -o "$dir" >"$cli_tmp/$label.log" 2>&1 &
	local pid=$!
	sleep 2
	kill -"$sig" "$pid"
	wait "$pid"
	rc=$?
	if [ "$rc" -eq 3 ]; then cli_ok "$label: exit 3 after SIG$sig"; else
		cli_fail "$label: exit 3 after SIG$sig" "exit $rc"; tail -5 "$cli_tmp/$label.log"
	fi
	if grep -q '"interrupted": true' "$dir/result.json" 2>/dev/null &&
		grep -q "\"stopped_by\": \"SIG$sig\"" "$dir/result.json"; then
		cli_ok "$label: result.json marked interrupted by SIG$sig"
	else
		cli_fail "$label: result.json marked interrupted by SIG$sig" "$(ls "$dir" 2>&1)"
	fi
	if ls "$dir" 2>/dev/null | grep -q '\.tmp\.'; then
		cli_fail "$label: no temporary file left" "$(ls "$dir")"
	else
		cli_ok "$label: no temporary file left"
	fi
	expect_exit 0 "$label: the log says so" grep -q "stopped by SIG$sig" "$cli_tmp/$label.log"
}
stop_run gp TERM problems/sextic.ini --set gp.stop_on_success=false --generations 100000
stop_run gp-int INT problems/sextic.ini --set gp.stop_on_success=false --generations 100000
stop_run de TERM problems/de-sphere.ini --set de.max_evals=2000000000 --set de.target=0 --set de.problems=20
stop_run aco TERM problems/aco-random.ini --set aco.iterations=100000000
stop_run mbp TERM problems/mbp-spirals.ini --set mbp.epochs=100000000 --set mbp.target_rms=0   # never reached: the run lasts until the signal
stop_run svm TERM "$cli_tmp/noisy.ini"
expect_exit 0 "gp: the history kept the generations run" test "$(wc -l <"$cli_tmp/gp/history.csv")" -ge 2

# A second SIGINT: out at once (generations of 20,000 programs take seconds,
# so the first one is still waiting for its generation's end).
"$evo" run problems/sextic.ini --backend cpu --set gp.stop_on_success=false --generations 100000 \
	--population 20000 -q -o "$cli_tmp/twice" >/dev/null 2>&1 &
pid=$!
sleep 1
kill -INT "$pid"
sleep 0.2   # two at once would merge into one pending signal
kill -INT "$pid"
wait "$pid"
rc=$?
if [ "$rc" -eq 130 ]; then cli_ok "second SIGINT: exit 130"; else
	cli_fail "second SIGINT: exit 130" "exit $rc"; fi

# The file size limit: an error that names the file, no temporary file.
mkdir -p "$cli_tmp/fsize"
expect_exit 1 "ulimit -f 1: exit 1" bash -c "ulimit -f 1; '$evo' run problems/sextic.ini --backend cpu \
	--generations 2 -q -o '$cli_tmp/fsize'"
expect_output "ulimit -f 1: names the file and the limit" "result.json: write failed"
expect_output "ulimit -f 1: says why" "the file size limit"
if ls "$cli_tmp/fsize" | grep -q '\.tmp\.'; then cli_fail "ulimit -f 1: no temporary file" "$(ls "$cli_tmp/fsize")"
else cli_ok "ulimit -f 1: no temporary file"; fi
finish
