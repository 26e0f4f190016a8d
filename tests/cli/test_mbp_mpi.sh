# test_mbp_mpi.sh: kind mbp's networks (and folds) spread over MPI ranks
# (build/evoforge-mpi, runtime/comm_mpi.c, runtime/mbp/mbp_shard.c), CPU
# backend. Sonar, 6 networks on 2 folds: 4 ranks (2, 2, 1, 1 networks, so a
# rank starts on an odd network and the other fold) and 3 ranks end with the
# result.json (timings and "ranks" aside), network.net and predictions.csv
# of one process (build/evoforge); so do 4 ranks in mini-batch mode (the
# pattern orders' streams); two 4-rank runs are identical; fewer networks
# than ranks end the job with a message. Checkpoints: 4 ranks' (one file,
# gathered) end as one process and resume in one process; a 4-rank job
# killed on one rank resumes on 3 ranks and in one process and ends as one
# process; networks that stop early on some ranks do not stall the rest.
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
# checkpoints: rank 0 gathers every rank's networks into the file one
# process writes; any number of ranks, or one process, resumes it
long=("${args[@]}" --set mbp.epochs=400 --set mbp.report_every=20)
expect_exit 0 "checkpoints: one process, uninterrupted" "$evo" run "${long[@]}" -q -o "$t/ck-ref"
expect_exit 0 "4 ranks, a checkpoint every 20 epochs" mpirun_n 4 "$mpi" run "${long[@]}" \
	--checkpoint-every 20 -q -o "$t/ck-every"
same "... end as one process" "$t/ck-ref" "$t/ck-every"
cp -r "$t/ck-every" "$t/ck-by-one"
expect_exit 0 "... its last checkpoint resumed by one process" "$evo" run "${long[@]}" \
	--resume "$t/ck-by-one" -q -o "$t/ck-by-one"
same "... ends as one process" "$t/ck-ref" "$t/ck-by-one"
# SIGKILL on a rank once the first checkpoint is there: the job ends, the
# checkpoint stays; resumed on 3 ranks and by one process
mpirun_n 4 "$mpi" run "${long[@]}" --checkpoint-every 20 -q -o "$t/ck-killed" >"$t/ck.log" 2>&1 &
job=$!
for ((k = 0; k < 600; k++)); do [ -f "$t/ck-killed/checkpoint.bin" ] && break; sleep 0.02; done
kill -KILL "$(ranks_of "$job" | sed -n 2p)" 2>/dev/null
wait "$job"
rc=$?
if [ "$rc" -ne 0 ] && [ -f "$t/ck-killed/checkpoint.bin" ]; then cli_ok "a killed rank ends the job (exit $rc), the checkpoint there"
else cli_fail "a killed rank" "exit $rc; $(ls "$t/ck-killed" | tr '\n' ' ')"; fi
cp -r "$t/ck-killed" "$t/ck-killed-one"
expect_exit 0 "... resumed on 3 ranks" mpirun_n 3 "$mpi" run "${long[@]}" --checkpoint-every 20 \
	--resume "$t/ck-killed" -o "$t/ck-killed"
expect_output "... from its checkpoint" "resuming from $t/ck-killed/checkpoint.bin"
same "... ends as one process" "$t/ck-ref" "$t/ck-killed"
expect_exit 0 "... resumed by one process" "$evo" run "${long[@]}" --resume "$t/ck-killed-one" -q \
	-o "$t/ck-killed-one"
same "... ends as one process" "$t/ck-ref" "$t/ck-killed-one"
# SIGTERM to one rank: every rank stops at the same epoch (exit 3, results
# interrupted), rank 0 writes the stop's checkpoint; resumed on 2 ranks
expect_exit 0 "3000 epochs: one process" "$evo" run "${long[@]}" --set mbp.epochs=3000 -q -o "$t/term-ref"
mpirun_n 4 "$mpi" run "${long[@]}" --set mbp.epochs=3000 -q -o "$t/ck-term" >"$t/ck.log" 2>&1 &
job=$!
for ((k = 0; k < 300; k++)); do [ "$(ranks_of "$job" | grep -c .)" -ge 4 ] && break; sleep 0.02; done
sleep 1
kill -TERM "$(ranks_of "$job" | sed -n 3p)" 2>/dev/null
wait "$job"
rc=$?
if [ "$rc" -eq 3 ] && grep -q '"interrupted": true' "$t/ck-term/result.json" &&
	[ -f "$t/ck-term/checkpoint.bin" ]; then cli_ok "SIGTERM to one rank stops every rank (exit 3, interrupted, checkpoint)"
else cli_fail "SIGTERM to one rank" "exit $rc; $(ls "$t/ck-term" | tr '\n' ' ')"; fi
expect_exit 0 "... resumed on 2 ranks" mpirun_n 2 "$mpi" run "${long[@]}" --set mbp.epochs=3000 \
	--resume "$t/ck-term" -q -o "$t/ck-term"
same "... ends as one process" "$t/term-ref" "$t/ck-term"
# networks that stop early (a target) on some ranks: the others go on, and
# the stop checkpoint of SIGTERM is one for every rank
early=("${long[@]}" --set mbp.target_rms=0.2)
expect_exit 0 "early stops: one process" "$evo" run "${early[@]}" -q -o "$t/early-ref"
expect_exit 0 "early stops: 4 ranks, checkpoints" mpirun_n 4 "$mpi" run "${early[@]}" \
	--checkpoint-every 10 -q -o "$t/early"
same "... end as one process" "$t/early-ref" "$t/early"
finish
