# test_mpi_de.sh: kind de's problems spread over MPI ranks (build/evoforge-mpi,
# runtime/comm_mpi.c, runtime/de/de_shard.c), CPU backend. 4 and 3 ranks
# (3: unequal shares) end with the result.json (timings and "ranks" aside)
# and history.csv of one process (build/evoforge), and two 4-rank runs are
# identical; the MPI binary started without mpirun is one process; fewer
# problems than ranks, and checkpoints with several ranks, end the job with
# a message. Needs Open MPI (tools/setup-debian installs it).
# Usage: bash test_mpi_de.sh PATH/TO/evoforge (the MPI binary is beside it)
source "$(dirname "$0")/lib.sh"
evo=$1
t=$cli_tmp
mpi_setup "$evo" test_mpi_de.sh || { finish; exit; }
args=("$(dirname "$0")/../../problems/de-sphere.ini" --backend cpu --threads 1 --seed 3
	--set de.problems=10 --set de.max_evals=0 --set de.generations=150 --set de.shift=random)
same() {   # same NAME DIR-A DIR-B: result.json without timings and rank count, history.csv
	if diff <(grep -vE '_s"|_ms"|per_s"|"ranks"' "$2/result.json") \
		<(grep -vE '_s"|_ms"|per_s"|"ranks"' "$3/result.json") >"$t/diff" &&
		cmp -s "$2/history.csv" "$3/history.csv"; then cli_ok "$1"
	else cli_fail "$1" "$(head -5 "$t/diff")"; fi
}

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
expect_exit 1 "checkpoints with several ranks are refused" mpirun_n 2 "$mpi" run "${args[@]}" \
	--checkpoint-every 5 -q -o "$t/ck"
expect_output "... saying so" "checkpoints are not written or resumed in a job of several MPI ranks"
finish
