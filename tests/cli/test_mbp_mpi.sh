# test_mbp_mpi.sh: kind mbp's networks (and folds) spread over MPI ranks
# (build/evoforge-mpi, runtime/comm_mpi.c, runtime/mbp/mbp_shard.c), CPU
# backend. Sonar, 6 networks on 2 folds: 4 ranks (2, 2, 1, 1 networks, so a
# rank starts on an odd network and the other fold) and 3 ranks end with the
# result.json (timings and "ranks" aside), network.net and predictions.csv
# of one process (build/evoforge); so do 4 ranks in mini-batch mode (the
# pattern orders' streams); two 4-rank runs are identical; fewer networks
# than ranks, and checkpoints with several ranks, end the job with a message.
# Needs Open MPI (tools/setup-debian installs it).
# Usage: bash test_mbp_mpi.sh PATH/TO/evoforge (the MPI binary is beside it)
source "$(dirname "$0")/lib.sh"
evo=$1
t=$cli_tmp
mpi_setup "$evo" test_mbp_mpi.sh || { finish; exit; }
args=("$(dirname "$0")/../../problems/mbp-sonar.ini" --backend cpu --threads 1 --seed 3
	--set mbp.networks=6 --set mbp.folds=2 --set mbp.epochs=25 --set mbp.report_every=10)
mini=(--set mbp.networks=5 --set mbp.mode=minibatch --set mbp.batch_size=16)
same() { same_run "$@" network.net predictions.csv; }   # same NAME DIR-A DIR-B (lib.sh)

expect_exit 0 "one process (build/evoforge)" "$evo" run "${args[@]}" -q -o "$t/one"
if [ "$(grep -c '"network":' "$t/one/result.json")" = 6 ] &&
	grep -q '"fold": 1' "$t/one/result.json"; then cli_ok "one process trains 6 networks on 2 folds"
else cli_fail "one process" "$(head -c 600 "$t/one/result.json")"; fi
expect_exit 0 "4 ranks" mpirun_n 4 "$mpi" run "${args[@]}" -o "$t/four"
expect_output "rank 0 says how the networks are spread" "6 networks spread over 4 MPI ranks"
same "4 ranks == one process" "$t/one" "$t/four"
expect_exit 0 "4 ranks again" mpirun_n 4 "$mpi" run "${args[@]}" -q -o "$t/four-again"
if diff <(grep -vE '_s"|_ms"|_per_min"' "$t/four/result.json") \
	<(grep -vE '_s"|_ms"|_per_min"' "$t/four-again/result.json") >/dev/null &&
	cmp -s "$t/four/network.net" "$t/four-again/network.net"; then
	cli_ok "two 4-rank runs are identical"
else cli_fail "two 4-rank runs" "result.json or network.net differs"; fi
if grep -q '"ranks": 4' "$t/four/result.json" && grep -q '"ranks": 1' "$t/one/result.json"; then
	cli_ok "result.json records the ranks"
else cli_fail "ranks in result.json" "$(grep ranks "$t/four/result.json" "$t/one/result.json")"; fi
expect_exit 0 "3 ranks (2, 2, 2 networks)" mpirun_n 3 "$mpi" run "${args[@]}" -q -o "$t/three"
same "3 ranks == one process" "$t/one" "$t/three"
expect_exit 0 "mini-batch, one process" "$evo" run "${args[@]}" "${mini[@]}" -q -o "$t/mini-one"
expect_exit 0 "mini-batch, 4 ranks (2, 1, 1, 1 networks)" mpirun_n 4 "$mpi" run "${args[@]}" \
	"${mini[@]}" -q -o "$t/mini-four"
same "mini-batch: 4 ranks == one process" "$t/mini-one" "$t/mini-four"
expect_exit 2 "fewer networks than ranks exits 2" mpirun_n 4 "$mpi" run "${args[@]}" \
	--set mbp.networks=3 -q -o "$t/few"
expect_output "... saying why" "3 network(s) cannot be spread over 4 ranks"
expect_exit 1 "--checkpoint-every with several ranks is refused" mpirun_n 2 "$mpi" run "${args[@]}" \
	--checkpoint-every 5 -q -o "$t/ck"
expect_output "... saying so" "mbp: checkpoints are not written or resumed in a job of several MPI ranks"
expect_exit 1 "--resume with several ranks is refused" mpirun_n 2 "$mpi" run "${args[@]}" \
	--resume -q -o "$t/one"
expect_output "... saying so" "checkpoints are not written or resumed in a job of several MPI ranks"
finish
