# test_islands.sh: the island model ([islands], runtime/islands.c) over MPI
# ranks for gp (sextic), aco (random cities) and de (Rastrigin, also the
# adaptive strategies), CPU backend. A run of 4
# ranks ends identically twice (result.json without timings, history,
# best.tour), for every topology and choice of emigrants and places (3
# ranks); migration changes the run (against an interval past the last
# generation); one process with [islands] equals the run without; several
# ranks without [islands] run as islands with the defaults, saying so; aco
# keys that do not apply end with a message;
# a rank killed by SIGKILL ends the whole job. Checkpoints (files per rank
# and migration): gp, one-vs-rest gp and de islands killed (SIGKILL on a
# rank) and gp islands stopped (SIGTERM to mpirun) and aco islands (to one
# rank: every rank stops, exit 3) after one, resumed on as
# many ranks, end as the uninterrupted run, and so does a resume where a
# rank's latest file is missing (a migration behind); on fewer ranks, from
# one file or with a rank's files missing, the resume exits 2. Needs Open
# MPI (tools/setup-debian).
# Usage: bash test_islands.sh PATH/TO/evoforge (the MPI binary is beside it)
source "$(dirname "$0")/lib.sh"
evo=$1
t=$cli_tmp
problems="$(dirname "$0")/../../problems"
mpi_setup "$evo" test_islands.sh || { finish; exit; }
gp=("$problems/sextic.ini" --backend cpu --threads 1 --seed 5 --set gp.population=300
	--set gp.generations=20 --set data.cases=200 --set gp.stop_on_success=false
	--set islands.interval=3)
aco=("$problems/aco-random.ini" --backend cpu --threads 1 --seed 5 --set data.random=150
	--set aco.iterations=60 --set aco.history_every=5 --set islands.interval=10)
# result.json without timings and rank counts, and history.csv without
# timings (gp: the first 5 columns, aco: the first 2)
timeless() { grep -vE '_s"|_ms"|seconds|per_s"|_generation"|per_iteration"|gpops|"islands": [0-9]|"threads"' "$1"; }
same() {   # same NAME DIR-A DIR-B
	if diff <(timeless "$2/result.json") <(timeless "$3/result.json") >"$t/diff" &&
		diff <(cut -d, -f1-$cols "$2/history.csv") <(cut -d, -f1-$cols "$3/history.csv") >>"$t/diff"; then
		cli_ok "$1"
	else cli_fail "$1" "$(head -6 "$t/diff")"; fi
}
differ() {   # differ NAME DIR-A DIR-B: the runs' histories differ
	if cmp -s <(cut -d, -f1-5 "$2/history.csv") <(cut -d, -f1-5 "$3/history.csv"); then
		cli_fail "$1" "identical histories"
	else cli_ok "$1"; fi
}

# gp
cols=5
expect_exit 0 "gp: 4 islands" mpirun_n 4 "$mpi" run "${gp[@]}" -o "$t/gp4"
expect_output "... rank 0 reports the job" "after 21 generations"
expect_exit 0 "gp: 4 islands again" mpirun_n 4 "$mpi" run "${gp[@]}" -q -o "$t/gp4b"
same "gp: two 4-island runs are identical" "$t/gp4" "$t/gp4b"
if grep -q '"islands": 4' "$t/gp4/result.json" && grep -q '"topology": "ring"' "$t/gp4/result.json"
then cli_ok "gp: result.json records the islands"
else cli_fail "gp: islands in result.json" "$(grep -A7 '"islands"' "$t/gp4/result.json")"; fi
expect_exit 0 "gp: 4 islands, no migration" mpirun_n 4 "$mpi" run "${gp[@]}" \
	--set islands.interval=100 -q -o "$t/gp4-none"
differ "gp: migration changes the run" "$t/gp4" "$t/gp4-none"
for v in topology=random topology=full emigrants=random replace=random; do
	expect_exit 0 "gp: 3 islands, $v" mpirun_n 3 "$mpi" run "${gp[@]}" --set "islands.$v" -q \
		-o "$t/gp3-$v"
	expect_exit 0 "gp: 3 islands, $v, again" mpirun_n 3 "$mpi" run "${gp[@]}" --set "islands.$v" \
		-q -o "$t/gp3-$v-b"
	same "gp: $v: identical twice" "$t/gp3-$v" "$t/gp3-$v-b"
done
differ "gp: the random ring is not the ring" "$t/gp3-topology=random" "$t/gp3-topology=full"
expect_exit 0 "gp: one process with [islands]" "$evo" run "${gp[@]}" -q -o "$t/gp1"
gp_plain=("$problems/sextic.ini" --backend cpu --threads 1 --seed 5 --set gp.population=300
	--set gp.generations=20 --set data.cases=200 --set gp.stop_on_success=false)
expect_exit 0 "gp: one process without [islands]" "$evo" run "${gp_plain[@]}" -q -o "$t/gp0"
sed -i '/"islands": {/,/}/d' "$t/gp1/result.json"   # the settings, all else equal
same "gp: one island == no islands" "$t/gp1" "$t/gp0"
expect_exit 0 "gp: several ranks without [islands] run as islands" mpirun_n 2 "$mpi" run \
	"${gp_plain[@]}" -q -o "$t/gp-no-islands"
expect_output "... saying so" "2 islands with the defaults interval 10"
expect_exit 0 "gp: 2 islands, islands.interval=10" mpirun_n 2 "$mpi" run "${gp_plain[@]}" \
	--set islands.interval=10 -q -o "$t/gp-default-islands"
same "... the defaults are [islands] with interval 10" "$t/gp-no-islands" "$t/gp-default-islands"
expect_exit 2 "gp: a bad topology exits 2" "$evo" run "${gp[@]}" --set islands.topology=star -q \
	-o "$t/gp-bad"
expect_output "... naming the key" "islands.topology"

# aco
cols=2
expect_exit 0 "aco: 4 islands" mpirun_n 4 "$mpi" run "${aco[@]}" -q -o "$t/aco4"
expect_exit 0 "aco: 4 islands again" mpirun_n 4 "$mpi" run "${aco[@]}" -q -o "$t/aco4b"
same "aco: two 4-island runs are identical" "$t/aco4" "$t/aco4b"
if cmp -s "$t/aco4/best.tour" "$t/aco4b/best.tour"; then cli_ok "aco: the same best.tour"
else cli_fail "aco: best.tour" "differs"; fi
if grep -q '"tours": 30720' "$t/aco4/result.json"; then cli_ok "aco: tours summed over the islands"
else cli_fail "aco: tours" "$(grep tours "$t/aco4/result.json")"; fi
expect_exit 0 "aco: 4 islands, no migration" mpirun_n 4 "$mpi" run "${aco[@]}" \
	--set islands.interval=1000 -q -o "$t/aco4-none"
expect_exit 0 "aco: 3 islands, full" mpirun_n 3 "$mpi" run "${aco[@]}" --set islands.topology=full \
	-q -o "$t/aco3"
expect_exit 2 "aco: islands.migrants exits 2" "$evo" run "${aco[@]}" --set islands.migrants=3 -q \
	-o "$t/aco-bad"
expect_output "... saying why" "islands send each other their best-so-far tour"
# de: every island runs all 3 problems
cols=3
de=("$problems/de-rastrigin.ini" --backend cpu --threads 1 --seed 3 --set de.problems=3
	--set de.max_evals=30000 --set islands.interval=20)
expect_exit 0 "de: 4 islands" mpirun_n 4 "$mpi" run "${de[@]}" -o "$t/de4"
expect_output "... each with every problem" "4 islands (MPI ranks), each with all 3 problem(s)"
expect_exit 0 "de: 4 islands again" mpirun_n 4 "$mpi" run "${de[@]}" -q -o "$t/de4b"
same "de: two 4-island runs are identical" "$t/de4" "$t/de4b"
expect_exit 0 "de: 4 islands, no migration" mpirun_n 4 "$mpi" run "${de[@]}" \
	--set islands.interval=100000 -q -o "$t/de4-none"
if diff <(timeless "$t/de4/result.json") <(timeless "$t/de4-none/result.json") >/dev/null; then
	cli_fail "de: migration changes the run" "identical result.json"
else cli_ok "de: migration changes the run"; fi
for v in "strategy=lshade" "strategy=jade"; do
	expect_exit 0 "de: 3 islands, $v, full" mpirun_n 3 "$mpi" run "${de[@]}" --set "de.$v" \
		--set islands.topology=full -q -o "$t/de3-$v"
	expect_exit 0 "de: 3 islands, $v, full, again" mpirun_n 3 "$mpi" run "${de[@]}" \
		--set "de.$v" --set islands.topology=full -q -o "$t/de3-$v-b"
	same "de: $v: identical twice" "$t/de3-$v" "$t/de3-$v-b"
done
expect_exit 0 "de: one process with [islands]" "$evo" run "${de[@]}" -q -o "$t/de1"
de_plain=("$problems/de-rastrigin.ini" --backend cpu --threads 1 --seed 3 --set de.problems=3
	--set de.max_evals=30000)
expect_exit 0 "de: one process without [islands]" "$evo" run "${de_plain[@]}" -q -o "$t/de0"
same "de: one island == no islands" "$t/de1" "$t/de0"
# checkpoints: every island its own files (one per migration, the older
# ones dropped once every rank has passed them); killed or stopped, resumed
# on as many ranks from the latest migration all ranks have.
# has_rank_file DIR R: rank R has a checkpoint in DIR
has_rank_file() { compgen -G "$1/checkpoint-rank-$2-migration-*.bin" >/dev/null; }
# every_rank_has_file DIR N: each of N ranks has written a checkpoint there
every_rank_has_file() {
	local r
	for ((r = 0; r < $2; r++)); do has_rank_file "$1" "$r" || return 1; done
}
# kill_after NAME SIGNAL N ARGS...: N ranks run ARGS into $t/NAME; once
# every rank has a checkpoint (a kill before that leaves nothing to resume
# from: ranks write theirs moments apart), SIGNAL goes to rank 1 (KILL, or SIGTERM for
# TERM-RANK: every rank must then stop, exit 3) or to mpirun (TERM, which
# forwards it to every rank); the job must end non-zero with a checkpoint
# of rank 2's.
kill_after() {
	local name=$1 sig=$2 n=$3 job k
	shift 3
	mpirun_n "$n" "$mpi" run "$@" -q -o "$t/$name" >"$t/$name.log" 2>&1 &
	job=$!
	for ((k = 0; k < 600; k++)); do every_rank_has_file "$t/$name" "$n" && break; sleep 0.02; done
	case $sig in
	KILL) kill -KILL "$(ranks_of "$job" | sed -n 2p)" 2>/dev/null ;;
	TERM-RANK) kill -TERM "$(ranks_of "$job" | sed -n 2p)" 2>/dev/null ;;
	*) kill -TERM "$job" ;;
	esac
	wait "$job"
	local rc=$?
	if [ "$sig" = TERM-RANK ]; then   # one rank's signal: every rank stops, exit 3
		if [ "$rc" -eq 3 ] && grep -q '"interrupted": true' "$t/$name/result.json"; then
			cli_ok "$name: SIGTERM to one rank stops every rank (exit 3, results interrupted)"
		else cli_fail "$name: SIGTERM to one rank" "exit $rc; $(grep interrupted "$t/$name/result.json")"; fi
	fi
	if [ "$rc" -ne 0 ] && has_rank_file "$t/$name" 2; then cli_ok "$name: SIG$sig ends the job (exit $rc), checkpoints there"
	else cli_fail "$name: SIG$sig" "exit $rc; $(ls "$t/$name" | tr '\n' ' ')"; fi
}
# migration_of FILE: the migration in a checkpoint-rank-R-migration-M.bin name
migration_of() { local b=${1##*-migration-}; echo "${b%.bin}"; }
gpck=("${gp[@]}" --set gp.population=2000 --set gp.generations=80)
expect_exit 0 "gp: 3 islands, uninterrupted" mpirun_n 3 "$mpi" run "${gpck[@]}" -q -o "$t/gpck-ref"
expect_exit 0 "gp: 3 islands, a checkpoint every 2 generations" mpirun_n 3 "$mpi" run "${gpck[@]}" \
	--checkpoint-every 2 -q -o "$t/gpck-every"
same "... end as without" "$t/gpck-ref" "$t/gpck-every"
files=$(cd "$t/gpck-every" && ls checkpoint-rank-1-migration-*.bin 2>/dev/null | sort -t- -k5 -n)
if has_rank_file "$t/gpck-every" 0 && has_rank_file "$t/gpck-every" 2 &&
	[ "$(echo "$files" | grep -c .)" -ge 2 ] && [ "$(echo "$files" | grep -c .)" -le 3 ]
then cli_ok "... files per rank, the latest migrations' only"
else cli_fail "... files per rank" "$(ls "$t/gpck-every" | tr '\n' ' ')"; fi
# a crash can leave a rank a migration behind: here rank 1 loses its latest
# file; the ranks resume from the migration before, and end as the
# uninterrupted run (and not from rank 0's and 2's latest)
cp -r "$t/gpck-every" "$t/gpck-behind"
latest=$(echo "$files" | tail -n 1)
rm "$t/gpck-behind/$latest"
expect_exit 0 "... rank 1 a migration behind, resumed" mpirun_n 3 "$mpi" run "${gpck[@]}" \
	--checkpoint-every 2 --resume "$t/gpck-behind" -o "$t/gpck-behind"
expect_output "... from the migration all ranks have" \
	"checkpoint-rank-0-migration-$(migration_of "$(echo "$files" | tail -n 2 | head -n 1)").bin"
same "... ends as the uninterrupted run" "$t/gpck-ref" "$t/gpck-behind"
rm "$t/gpck-behind"/checkpoint-rank-1-*
expect_exit 2 "... a rank without files exits 2" mpirun_n 3 "$mpi" run "${gpck[@]}" \
	--resume "$t/gpck-behind" -q -o "$t/gpck-behind"
expect_output "... saying so" "finds no checkpoint-rank-R-migration-M.bin"
# SIGKILL on a rank: resumed from the files there (wherever each rank stood)
kill_after gpck-killed KILL 3 "${gpck[@]}" --checkpoint-every 4
expect_exit 0 "... resumed on 3 ranks" mpirun_n 3 "$mpi" run "${gpck[@]}" --checkpoint-every 4 \
	--resume "$t/gpck-killed" -q -o "$t/gpck-killed"
same "... ends as the uninterrupted run" "$t/gpck-ref" "$t/gpck-killed"
kill_after gpck-term TERM 3 "${gpck[@]}" --checkpoint-every 4
cp -r "$t/gpck-term" "$t/gpck-two"
expect_exit 2 "... resumed on 2 ranks exits 2" mpirun_n 2 "$mpi" run "${gpck[@]}" --checkpoint-every 4 \
	--resume "$t/gpck-two" -q -o "$t/gpck-two"
expect_output "... saying why" "a checkpoint of a job of 3 islands; this one has 2"
expect_exit 2 "... from one file exits 2" mpirun_n 3 "$mpi" run "${gpck[@]}" \
	--resume "$(ls "$t"/gpck-two/checkpoint-rank-0-*.bin | head -n 1)" -q -o "$t/gpck-two"
expect_output "... saying why" "resume from the folder of their"
expect_exit 0 "... resumed on 3 ranks" mpirun_n 3 "$mpi" run "${gpck[@]}" --checkpoint-every 4 \
	--resume "$t/gpck-term" -q -o "$t/gpck-term"
same "... ends as the uninterrupted run" "$t/gpck-ref" "$t/gpck-term"

# a rank that dies (SIGKILL) ends the whole job, naming it, with no rank left behind
mpirun_n 3 "$mpi" run "${de[@]}" --set de.max_evals=0 --set de.generations=100000000 -q \
	-o "$t/de-killed" >"$t/killed.log" 2>&1 &
job=$!
ranks=
for ((k = 0; k < 200; k++)); do
	ranks=$(ranks_of "$job")
	[ "$(echo "$ranks" | grep -c .)" -ge 3 ] && break
	sleep 0.05
done
victim=$(echo "$ranks" | sed -n 2p)
kill -KILL "$victim" 2>/dev/null
for ((k = 0; k < 300; k++)); do kill -0 "$job" 2>/dev/null || break; sleep 0.1; done
if kill -0 "$job" 2>/dev/null; then
	kill -KILL "$job"
	cli_fail "a killed rank ends the job" "the job was still running 30 s later"
else
	wait "$job"
	rc=$?
	if [ "$rc" -ne 0 ] && grep -q "exited on signal 9" "$t/killed.log"; then
		cli_ok "a killed rank ends the job (exit $rc, mpirun names the rank)"
	else cli_fail "a killed rank ends the job" "exit $rc: $(tail -n 3 "$t/killed.log")"; fi
fi
if pgrep -f "$t/de-killed" >/dev/null; then cli_fail "no rank left behind" "$(pgrep -af "$t/de-killed")"
else cli_ok "no rank left behind"; fi
# one-vs-rest (Shuttle, 7 classes each an island run): killed, resumed
ovr=("$problems/shuttle-ovr.ini" --backend cpu --threads 1 --seed 2 --set gp.population=200
	--set gp.generations=12 --set islands.interval=3)
expect_exit 0 "gp one-vs-rest: 3 islands, uninterrupted" mpirun_n 3 "$mpi" run "${ovr[@]}" -q \
	-o "$t/ovr-ref"
kill_after ovr-killed KILL 3 "${ovr[@]}" --checkpoint-every 2
expect_exit 0 "... resumed on 3 ranks" mpirun_n 3 "$mpi" run "${ovr[@]}" --checkpoint-every 2 \
	--resume "$t/ovr-killed" -q -o "$t/ovr-killed"
same "... ends as the uninterrupted run" "$t/ovr-ref" "$t/ovr-killed"

# de (killed) and aco (SIGTERM to one rank) islands resumed equal the uninterrupted run
cols=3
deck=("${de[@]}" --set de.max_evals=0 --set de.generations=20000 --set de.target=0)
expect_exit 0 "de: 3 islands, uninterrupted" mpirun_n 3 "$mpi" run "${deck[@]}" -q -o "$t/deck-ref"
kill_after deck-killed KILL 3 "${deck[@]}" --checkpoint-every 2000
expect_exit 0 "... resumed on 3 ranks" mpirun_n 3 "$mpi" run "${deck[@]}" --checkpoint-every 2000 \
	--resume "$t/deck-killed" -q -o "$t/deck-killed"
same "... ends as the uninterrupted run" "$t/deck-ref" "$t/deck-killed"
cols=2
acock=("${aco[@]}" --set aco.iterations=300)
expect_exit 0 "aco: 3 islands, uninterrupted" mpirun_n 3 "$mpi" run "${acock[@]}" -q -o "$t/acock-ref"
kill_after acock-killed TERM-RANK 3 "${acock[@]}" --checkpoint-every 40
expect_exit 0 "... resumed on 3 ranks" mpirun_n 3 "$mpi" run "${acock[@]}" --checkpoint-every 40 \
	--resume "$t/acock-killed" -q -o "$t/acock-killed"
same "... ends as the uninterrupted run" "$t/acock-ref" "$t/acock-killed"
finish
