# test_mpi_hosts.sh: MPI ranks (build/evoforge-mpi) on two Open MPI nodes
# that are both this machine: a hostfile naming 127.0.0.2 and 127.0.0.3,
# whose daemons (orted) mpirun starts through tests/cli/bin/fake-ssh (ssh's
# command line run here, in a login-like environment), the ranks talking
# over the TCP BTL on the loopback (pml ob1, btl self,tcp: no shared
# memory), each node numbering its own ranks (rt_comm_local_rank/size).
# Checks: mpirun maps 2 ranks on each node and launches a daemon on each
# through the agent; EVOFORGE_TIMELINE passed with -x reaches every rank;
# de shards (4 ranks; 2 ranks, one a node), svm (Sonar: training and a
# (C, gamma) grid; a generated 4-class training, 6 pairs) end with one
# process's result.json (timings, devices, ranks aside), history.csv,
# model.txt, grid.csv, predictions.csv; gp islands on the two nodes end
# identically twice and as on one node; a rank alone on its node takes all
# the cores (device "CPU, N threads"), two on one node half; a data error
# every rank finds is printed once, exit 2. Skips, saying why, where
# mpirun cannot start ranks on the two nodes. Needs Open MPI.
# Usage: bash test_mpi_hosts.sh PATH/TO/evoforge (the MPI binary is beside it)
source "$(dirname "$0")/lib.sh"
evo=$1
t=$cli_tmp
problems="$(dirname "$0")/../../problems"
mpi_setup "$evo" test_mpi_hosts.sh || { finish; exit; }
fake_ssh="$(cd "$(dirname "$0")" && pwd)/bin/fake-ssh"
# Neither name may be this machine's: a node that is mpirun's own host
# beside one reached through the agent would share its host name, and Open
# MPI 4.1's MPI_Comm_split_type(SHARED) then disagrees between the nodes.
printf '127.0.0.2 slots=2\n127.0.0.3 slots=2\n' >"$t/hosts"
export FAKE_SSH_LOG=$t/ssh.log FAKE_SSH_TMPDIR=$t   # each node its own TMPDIR (fake-ssh)
# hosts_mpirun N [MPIRUN OPTIONS] CMD...: N ranks over the two nodes
hosts_mpirun() {
	local n=$1
	shift
	OMPI_MCA_btl=self,tcp timeout -k 5 90 mpirun -np "$n" --hostfile "$t/hosts" --oversubscribe \
		--bind-to none --mca plm_rsh_agent "$fake_ssh" --mca pml ob1 --mca btl self,tcp \
		--mca btl_tcp_if_include lo --mca oob_tcp_if_include lo "$@"
}
# same NAME DIR-A DIR-B FILE...: same_run (lib.sh) without devices and
# thread counts either
same() {
	same_run_drop='_s"|_ms"|seconds|per_s"|_per_min"|_generation"|per_iteration"|gpops|"ranks"|"device"|"threads"' \
		same_run "$@"
}
# device NAME DIR N: result.json's device is the CPU with N threads
device() {
	if grep -qF "\"device\": \"CPU, $3 threads\"" "$2/result.json"; then cli_ok "$1"
	else cli_fail "$1" "$(grep '"device"' "$2/result.json"), expected CPU, $3 threads"; fi
}

# can Open MPI start ranks on the two nodes here? (every command ends with
# a collective over the ranks: rt_comm_agree)
if ! hosts_mpirun 4 "$mpi" --version >"$t/probe.log" 2>&1; then
	echo "SKIP: test_mpi_hosts.sh: mpirun cannot start 4 ranks on two loopback nodes here" \
		"(rsh launch through fake-ssh, TCP BTL on lo):"
	tail -n 8 "$t/probe.log" | sed 's/^/    /'
	finish
	exit
fi
if grep -q '^127.0.0.2: .*orted' "$FAKE_SSH_LOG" && grep -q '^127.0.0.3: .*orted' "$FAKE_SSH_LOG"; then
	cli_ok "mpirun starts a daemon on each node through the agent (fake-ssh)"
else cli_fail "a daemon on each node" "$(cut -c1-80 "$FAKE_SSH_LOG")"; fi

# de: 8 problems, 2 on each of 4 ranks, 2 ranks a node
de=("$problems/de-rastrigin.ini" --backend cpu --seed 3 --set de.problems=8 --set de.max_evals=3000)
expect_exit 0 "de: one process" "$evo" run "${de[@]}" -q -o "$t/de-one"
expect_exit 0 "de: 4 ranks on 2 nodes" hosts_mpirun 4 --display-map -x EVOFORGE_TIMELINE=1 \
	"$mpi" run "${de[@]}" -o "$t/de-four"
expect_output "... rank 0 says how the problems are spread" "8 problems spread over 4 MPI ranks"
if [ "$(grep -cE 'Data for node: 127\.0\.0\.[23][[:space:]].*Num procs: 2' "$t/out")" -ge 2 ] &&
	grep -q 'Data for node: 127.0.0.2' "$t/out" && grep -q 'Data for node: 127.0.0.3' "$t/out"; then
	cli_ok "... mpirun maps 2 ranks on each node"
else cli_fail "... the map" "$(grep -A3 'Data for node' "$t/out" | head -12)"; fi
same "de: 4 ranks on 2 nodes == one process" "$t/de-one" "$t/de-four" history.csv
if grep -q '"ranks": 4' "$t/de-four/result.json"; then cli_ok "... result.json records 4 ranks"
else cli_fail "... ranks" "$(grep '"ranks"' "$t/de-four/result.json")"; fi
if [ "$(cut -d, -f1 "$t/de-four/timeline.csv" | grep -E '^[0-9]+$' | sort -u | tr '\n' ' ')" = "0 1 2 3 " ]
then cli_ok "... EVOFORGE_TIMELINE (mpirun -x) reaches every rank: timeline.csv has ranks 0..3"
else cli_fail "... timeline.csv" "$(cut -d, -f1 "$t/de-four/timeline.csv" | sort | uniq -c | tr '\n' ' ')"; fi
# the ranks on a node share its cores (runtime/cpu.c default_threads);
# comparable only when this process may use every core
online=$(getconf _NPROCESSORS_ONLN)
if [ "$(nproc)" = "$online" ]; then
	half=$((online / 2 > 0 ? online / 2 : 1))
	whole=$((online > 256 ? 256 : online))
	[ "$half" -le 256 ] || half=256
	device "... 2 ranks a node: $half thread(s) each (the node's $online cores / 2)" "$t/de-four" "$half"
	expect_exit 0 "de: 2 ranks, one a node" hosts_mpirun 2 --map-by node "$mpi" run "${de[@]}" -q \
		-o "$t/de-two"
	same "... == one process" "$t/de-one" "$t/de-two" history.csv
	device "... a rank alone on its node takes all $online cores" "$t/de-two" "$whole"
	expect_exit 0 "de: 2 ranks on one node (shared memory)" env OMPI_MCA_btl=self,vader mpirun -np 2 \
		--oversubscribe --bind-to none "$mpi" run "${de[@]}" -q -o "$t/de-two-one-node"
	device "... take $half thread(s) each" "$t/de-two-one-node" "$half"
else
	echo "SKIP: thread counts: this process may use $(nproc) of the $online cores" \
		"(a rank then takes what it may use, whatever its node)"
fi

# svm: Sonar (1 pair; a 3 x 3 grid, 3 folds: 27 problems) and a generated
# 4-class set (6 pairs over the 4 ranks), with a test set
sonar=("$problems/svm-sonar.ini" --backend cpu --seed 3)
grid=(--set "grid.log2c=-1,3,2" --set "grid.log2g=-7,-3,2" --set grid.folds=3)
expect_exit 0 "svm Sonar: one process" "$evo" run "${sonar[@]}" -q -o "$t/sonar-one"
expect_exit 0 "svm Sonar: 4 ranks on 2 nodes" hosts_mpirun 4 "$mpi" run "${sonar[@]}" -q \
	-o "$t/sonar-four"
same "... == one process (model.txt too)" "$t/sonar-one" "$t/sonar-four" model.txt
expect_exit 0 "svm Sonar grid: one process" "$evo" run "${sonar[@]}" "${grid[@]}" -q \
	-o "$t/grid-one"
expect_exit 0 "svm Sonar grid: 4 ranks on 2 nodes" hosts_mpirun 4 "$mpi" run "${sonar[@]}" \
	"${grid[@]}" -q -o "$t/grid-four"
same "... == one process (grid.csv too)" "$t/grid-one" "$t/grid-four" grid.csv
# CLASSES POINTS SEED: x,y,label, class c around (c mod 2, c / 2), overlapping
points() {
	awk -v k="$1" -v n="$2" -v s="$3" 'BEGIN {
		print "x,y,label"
		for (i = 0; i < n; i++) {
			s = (s * 1103515245 + 12345) % 2147483648; u = s / 2147483648
			s = (s * 1103515245 + 12345) % 2147483648; v = s / 2147483648
			printf "%.4f,%.4f,%d\n", i % k % 2 + 1.6 * (u - 0.5), int(i % k / 2) + 1.6 * (v - 0.5), i % k + 1
		}
	}'
}
points 4 120 7 >"$t/four.csv"
points 4 40 11 >"$t/four-test.csv"
printf '[problem]\nkind = svm\nname = four\n[svm]\nkernel = rbf\nC = 4\ngamma = 1\n' >"$t/four.ini"
printf '[data]\ntrain = %s\ntest = %s\n' "$t/four.csv" "$t/four-test.csv" >>"$t/four.ini"
expect_exit 0 "svm 4 classes: one process" "$evo" run "$t/four.ini" --backend cpu -q -o "$t/four-one"
expect_exit 0 "svm 4 classes (6 pairs): 4 ranks on 2 nodes" hosts_mpirun 4 "$mpi" run "$t/four.ini" \
	--backend cpu -q -o "$t/four-four"
same "... == one process (model.txt, predictions.csv)" "$t/four-one" "$t/four-four" model.txt \
	predictions.csv

# gp islands (migrations every 5 generations, between the nodes too)
gp=("$problems/sextic.ini" --backend cpu --seed 5 --set gp.population=300 --set gp.generations=20
	--set data.cases=200 --set gp.stop_on_success=false --set islands.interval=5)
expect_exit 0 "gp: 4 islands on 2 nodes" hosts_mpirun 4 "$mpi" run "${gp[@]}" -q -o "$t/gp-a"
expect_exit 0 "gp: 4 islands on 2 nodes again" hosts_mpirun 4 "$mpi" run "${gp[@]}" -q -o "$t/gp-b"
history5() { cut -d, -f1-5 "$1/history.csv" >"$1/history5.csv"; }   # without timings
history5 "$t/gp-a"
history5 "$t/gp-b"
same "... identical twice" "$t/gp-a" "$t/gp-b" history5.csv
expect_exit 0 "gp: 4 islands on one node (shared memory)" mpirun_n 4 "$mpi" run "${gp[@]}" -q \
	-o "$t/gp-one-node"
history5 "$t/gp-one-node"
same "... == 4 islands on 2 nodes" "$t/gp-one-node" "$t/gp-a" history5.csv
if grep -q '"islands": 4' "$t/gp-a/result.json"; then cli_ok "... result.json records 4 islands"
else cli_fail "... islands" "$(grep -A2 '"islands"' "$t/gp-a/result.json")"; fi

# a data error every rank finds: printed once (rank 0), exit 2, no abort
printf 'x,y,label\n0.1,0.2,1\n0.3,oops,2\n0.5,0.1,1\n' >"$t/bad.csv"
printf '[problem]\nkind = svm\nname = bad\n[svm]\nkernel = rbf\n[data]\ntrain = %s\n' "$t/bad.csv" \
	>"$t/bad.ini"
expect_exit 2 "a data error on 4 ranks on 2 nodes exits 2" hosts_mpirun 4 "$mpi" run "$t/bad.ini" \
	--backend cpu -q -o "$t/bad"
n=$(grep -cF "bad.csv:3:5: expected a number in column 'y', got 'oops'" "$t/out")
if [ "$n" -eq 1 ] && ! grep -q MPI_ABORT "$t/out"; then cli_ok "... printed once, no MPI_ABORT"
else cli_fail "... printed once" "$n time(s):"; sed 's/^/    /' "$t/out" | tail -12; fi
finish
