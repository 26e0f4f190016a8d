# test_mpi_messages.sh: how a job of several MPI ranks (build/evoforge-mpi)
# ends on an error (runtime/main.c end_job, rt_comm_agree in comm_mpi.c):
# a spec or argument error every rank finds is printed once (rank 0), the
# exit status is 2 and there is no MPI_ABORT; ranks that end differently
# print the failed ones' message once, naming the rank, still without an
# abort when every rank gets to the end; a rank that fails while the others
# wait for it ends the job (MPI_Abort) after RT_COMM_AGREE_WAIT_S, naming
# itself. gp and aco on several ranks without [islands] run as islands with
# the defaults, which rank 0 names once. Needs Open MPI (tools/setup-debian).
# Usage: bash test_mpi_messages.sh PATH/TO/evoforge (the MPI binary is beside it)
source "$(dirname "$0")/lib.sh"
evo=$1
t=$cli_tmp
problems="$(dirname "$0")/../../problems"
mpi_setup "$evo" test_mpi_messages.sh || { finish; exit; }

# once NAME TEXT: the last command's output holds TEXT exactly once and no
# MPI_ABORT banner
once() {
	local n
	n=$(grep -cF -- "$2" "$t/out")
	if [ "$n" -eq 1 ] && ! grep -q MPI_ABORT "$t/out"; then cli_ok "$1"; else
		cli_fail "$1" "'$2' $n time(s); output:"; sed 's/^/    /' "$t/out" | tail -20
	fi
}
# matches NAME REGEX: the last command's output has a line matching REGEX (grep -E)
matches() {
	if grep -qE -- "$2" "$t/out"; then cli_ok "$1"; else
		cli_fail "$1" "output lacks /$2/; it was:"; sed 's/^/    /' "$t/out" | tail -20
	fi
}
# lacks NAME TEXT: the last command's output does not hold TEXT
lacks() {
	if grep -qF -- "$2" "$t/out"; then
		cli_fail "$1" "output holds '$2':"; sed 's/^/    /' "$t/out" | tail -20
	else cli_ok "$1"; fi
}

printf '[gp]\npopulation = 10\n' >"$t/nokind.ini"
printf '[problem]\nkind = gp\nname = bad\n[gp]\npopulation = ten\n' >"$t/badvalue.ini"
expect_exit 2 "one process: a spec without kind exits 2" "$evo" run "$t/nokind.ini" -q -o "$t/x"
once "... the error once" "missing required key 'kind'"
expect_exit 2 "3 ranks: a spec without kind exits 2" mpirun_n 3 "$mpi" run "$t/nokind.ini" -q \
	-o "$t/x"
once "... the error once, no MPI_ABORT" "missing required key 'kind'"
lacks "... naming no rank (every rank found it)" "rank 0 of 3"
expect_exit 2 "3 ranks: a bad value exits 2" mpirun_n 3 "$mpi" run "$t/badvalue.ini" --backend cpu -q \
	-o "$t/x"
once "... the error once, no MPI_ABORT" "[gp] population: expected an integer"
expect_exit 2 "3 ranks: a missing spec exits 2" mpirun_n 3 "$mpi" run "$t/none.ini" -q -o "$t/x"
once "... the error once, no MPI_ABORT" "none.ini"
expect_exit 2 "3 ranks: an unknown option exits 2" mpirun_n 3 "$mpi" run --bogus "$t/nokind.ini"
once "... the error once, no MPI_ABORT" "unknown option '--bogus'"
expect_exit 2 "3 ranks: an unknown command exits 2" mpirun_n 3 "$mpi" frobnicate
once "... the error once, no MPI_ABORT" "unknown command 'frobnicate'"
expect_exit 0 "3 ranks: a good run exits 0" mpirun_n 3 "$mpi" run "$problems/sextic.ini" \
	--backend cpu --threads 1 --set gp.population=100 --set gp.generations=3 \
	--set data.cases=50 -q -o "$t/good"

# ranks that end differently (MPMD: rank 0 prints its version, 1 and 2 fail)
expect_exit 2 "rank 0 ends well, 1 and 2 fail alike: exit 2" mpirun -np 1 --oversubscribe \
	"$mpi" --version : -np 2 "$mpi" run "$t/nokind.ini" -q -o "$t/x"
once "... the error once, naming the first failed rank, no MPI_ABORT" \
	"error: rank 1 of 3: $t/nokind.ini: missing required key 'kind'"
# a rank that fails while the others wait for it (rank 0 is a gp island)
long=(run "$problems/sextic.ini" --backend cpu --threads 1 --set gp.population=100
	--set gp.generations=1000000 --set data.cases=50 --set gp.stop_on_success=false
	--set islands.interval=5 -q -o "$t/long")
start=$(date +%s)
expect_exit 2 "ranks 1 and 2 fail while rank 0 waits: exit 2" mpirun -np 1 --oversubscribe \
	"$mpi" "${long[@]}" : -np 2 "$mpi" run "$t/nokind.ini" -q -o "$t/x"
# either failed rank may be the one whose wait runs out first
matches "... naming the rank" "error: rank [12] of 3: $t/nokind.ini: missing required key"
matches "... ending the job" "rank [12] of 3 ended \(exit 2\) and the other ranks did not end"
if [ $(($(date +%s) - start)) -lt 60 ]; then cli_ok "... within a minute"
else cli_fail "... within a minute" "$(($(date +%s) - start)) s"; fi

# gp and aco on 2 ranks without [islands]: islands with the defaults
expect_exit 0 "gp on 2 ranks without [islands] runs" mpirun_n 2 "$mpi" run \
	"$problems/sextic.ini" --backend cpu --threads 1 --seed 5 --set gp.population=100 \
	--set gp.generations=12 --set data.cases=50 --set gp.stop_on_success=false -q -o "$t/gp"
once "... the note once" "kind gp on 2 MPI ranks without an [islands] section: 2 islands with the defaults interval 10, migrants 2, topology ring, emigrants best, replace worst"
if grep -q '"islands": 2' "$t/gp/result.json" && grep -q '"interval": 10' "$t/gp/result.json"
then cli_ok "... result.json records the islands"
else cli_fail "... result.json records the islands" "$(grep -A3 '"islands"' "$t/gp/result.json")"; fi
expect_exit 0 "aco on 2 ranks without [islands] runs" mpirun_n 2 "$mpi" run \
	"$problems/aco-random.ini" --backend cpu --threads 1 --seed 5 --set data.random=40 \
	--set aco.iterations=15 -q -o "$t/aco"
once "... the note once" "kind aco on 2 MPI ranks without an [islands] section: 2 islands with the defaults interval 10, topology ring"
expect_exit 0 "gp, one process without [islands]: no note" "$mpi" run "$problems/sextic.ini" \
	--backend cpu --threads 1 --set gp.population=100 --set gp.generations=3 --set data.cases=50 \
	-q -o "$t/gp1"
lacks "... none" "[islands] section"
# a data file rank 0 reads for every rank (data_share.c): its error
# reaches every rank, printed once; a good one gives every island the table
printf 'a,b,label\n1,2,x\n3,,y\n' >"$t/bad.csv"
printf '[problem]\nkind = gp\nname = badgp\n[gp]\npopulation = 100\ngenerations = 2\n[data]\nsource = csv\nfile = %s\nfitness = classification\n' "$t/bad.csv" >"$t/baddata.ini"
expect_exit 2 "3 ranks: a bad data file exits 2" mpirun_n 3 "$mpi" run "$t/baddata.ini" --backend cpu -q -o "$t/x"
once "... its error once, with file, line and column" "bad.csv:3:3: expected a number in column 'b'"
finish
