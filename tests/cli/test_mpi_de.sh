# test_mpi_de.sh: kind de's problems spread over MPI ranks (build/evoforge-mpi,
# runtime/comm_mpi.c, runtime/de/de_shard.c), CPU backend. 4 and 3 ranks
# (3: unequal shares) end with the result.json (timings and "ranks" aside)
# and history.csv of one process (build/evoforge), and two 4-rank runs are
# identical; the MPI binary started without mpirun is one process; fewer
# problems than ranks ends the job with a message. Checkpoints: rank 0
# writes one of every problem; a 4-rank job killed (SIGKILL on a rank) after
# one, resumed on 3 ranks and by one process, ends as the uninterrupted run.
# SaDE and CoDE on 3 ranks end as one process.
# Needs Open MPI (tools/setup-debian installs it).
# Usage: bash test_mpi_de.sh PATH/TO/evoforge (the MPI binary is beside it)
source "$(dirname "$0")/lib.sh"
evo=$1
t=$cli_tmp
mpi_setup "$evo" test_mpi_de.sh || { finish; exit; }
args=("$(dirname "$0")/../../problems/de-sphere.ini" --backend cpu --threads 1 --seed 3
	--set de.problems=10 --set de.max_evals=0 --set de.generations=150 --set de.shift=random)
same() { same_run "$@" history.csv; }   # same NAME DIR-A DIR-B (lib.sh)

expect_exit 0 "one process (build/evoforge)" "$evo" run "${args[@]}" -q -o "$t/one"
expect_exit 0 "4 ranks" mpirun_n 4 "$mpi" run "${args[@]}" -o "$t/four"
expect_output "rank 0 says how the problems are spread" "10 problems spread over 4 MPI ranks"
same "4 ranks == one process" "$t/one" "$t/four"
expect_exit 0 "4 ranks again" mpirun_n 4 "$mpi" run "${args[@]}" -q -o "$t/four-again"
if diff <(grep -vE '_s"|_ms"|per_s"' "$t/four/result.json") \
	<(grep -vE '_s"|_ms"|per_s"' "$t/four-again/result.json") >/dev/null; then
	cli_ok "two 4-rank runs are identical"
else cli_fail "two 4-rank runs" "result.json differs"; fi
if grep -q '"ranks": 4' "$t/four/result.json" && grep -q '"ranks": 1' "$t/one/result.json"; then
	cli_ok "result.json records the ranks"
else cli_fail "ranks in result.json" "$(grep ranks "$t/four/result.json" "$t/one/result.json")"; fi
expect_exit 0 "3 ranks (4, 3, 3 problems)" mpirun_n 3 "$mpi" run "${args[@]}" -q -o "$t/three"
same "3 ranks == one process" "$t/one" "$t/three"
expect_exit 0 "the MPI binary without mpirun" "$mpi" run "${args[@]}" -q -o "$t/singleton"
same "without mpirun == one process" "$t/one" "$t/singleton"
expect_exit 2 "fewer problems than ranks exits 2" mpirun_n 4 "$mpi" run "${args[@]}" \
	--set de.problems=3 -q -o "$t/few"
expect_output "... saying why" "3 problem(s) cannot be spread over 4 ranks"
# checkpoints: rank 0 writes every problem's state; any number of ranks resumes it
expect_exit 0 "4 ranks with a checkpoint every 20 generations" mpirun_n 4 "$mpi" run "${args[@]}" \
	--checkpoint-every 20 -q -o "$t/ck4"
same "... end as one process" "$t/one" "$t/ck4"
long=("${args[@]}" --set de.generations=4000 --set de.target=0)
expect_exit 0 "one process, 4000 generations" "$evo" run "${long[@]}" -q -o "$t/long"
mpirun_n 4 "$mpi" run "${long[@]}" --checkpoint-every 100 -q -o "$t/killed" >"$t/killed.log" 2>&1 &
job=$!
for ((k = 0; k < 600; k++)); do [ -f "$t/killed/checkpoint.bin" ] && break; sleep 0.05; done
kill -KILL "$(ranks_of "$job" | sed -n 2p)" 2>/dev/null
wait "$job"
rc=$?
if [ "$rc" -ne 0 ] && [ -f "$t/killed/checkpoint.bin" ]; then
	cli_ok "a rank killed after a checkpoint: the job ends (exit $rc), the checkpoint is there"
else cli_fail "a rank killed after a checkpoint" "exit $rc; $(ls "$t/killed")"; fi
cp -r "$t/killed" "$t/killed-one"
expect_exit 0 "... resumed on 3 ranks" mpirun_n 3 "$mpi" run "${long[@]}" --checkpoint-every 100 \
	--resume "$t/killed" -q -o "$t/killed"
same "... ends as the uninterrupted run" "$t/long" "$t/killed"
expect_exit 0 "... resumed by one process" "$evo" run "${long[@]}" --checkpoint-every 100 \
	--resume "$t/killed-one" -q -o "$t/killed-one"
same "... ends as the uninterrupted run" "$t/long" "$t/killed-one"
expect_exit 0 "one process's checkpoint" "$evo" run "${args[@]}" --checkpoint-every 50 -q \
	-o "$t/ck1"
expect_exit 0 "... resumed on 4 ranks (nothing left to run)" mpirun_n 4 "$mpi" run "${args[@]}" \
	--checkpoint-every 50 --resume "$t/ck1" -q -o "$t/ck1"
same "... ends as one process" "$t/one" "$t/ck1"
# SaDE (per-problem state) and CoDE (three trials an individual) spread over ranks
for s in sade code; do
	mix=("${args[@]}" --set de.strategy=$s)
	expect_exit 0 "$s: one process" "$evo" run "${mix[@]}" -q -o "$t/$s-one"
	expect_exit 0 "$s: 3 ranks, a checkpoint every 40 generations" mpirun_n 3 "$mpi" run "${mix[@]}" \
		--checkpoint-every 40 -q -o "$t/$s-three"
	same "$s: 3 ranks == one process" "$t/$s-one" "$t/$s-three"
done
finish
