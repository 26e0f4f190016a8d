# test_svm_mpi.sh: kind svm's binary problems spread over MPI ranks
# (build/evoforge-mpi, runtime/svm/svm_shard.c), CPU backend, on generated
# CSV data: a 4-class training (6 one-vs-one pairs, a test set), a 3-class
# one on 4 ranks (a rank without a pair), 3-fold cross-validation and a
# small (C, gamma) grid each end with one process's (build/evoforge)
# result.json (timings and "ranks" aside), model.txt, predictions.csv and
# grid.csv; two 4-rank runs are identical. Checkpoints (a table per rank):
# a 4-rank grid with checkpoints ends as one process, and resumes (a rank's
# file removed) on 3 ranks and in one process; a 4-rank training killed on
# a rank resumes on 2 ranks; each ends as one process. Needs Open MPI (tools/setup-debian installs it).
# Usage: bash test_svm_mpi.sh PATH/TO/evoforge (the MPI binary is beside it)
source "$(dirname "$0")/lib.sh"
evo=$1
t=$cli_tmp
mpi_setup "$evo" test_svm_mpi.sh || { finish; exit; }

# CLASSES POINTS SEED [WIDTH]: x,y,label CSV, class c's points around (c mod 2, c / 2)
# with uniform noise wide enough that the classes overlap (bounded alphas)
make_csv() {
	awk -v k="$1" -v n="$2" -v s="$3" -v w="${4:-1.6}" 'BEGIN {
		print "x,y,label"
		for (i = 0; i < n; i++) {
			c = i % k
			s = (s * 1103515245 + 12345) % 2147483648; u = s / 2147483648
			s = (s * 1103515245 + 12345) % 2147483648; v = s / 2147483648
			printf "%.4f,%.4f,%d\n", c % 2 + w * (u - 0.5), int(c / 2) + w * (v - 0.5), c + 1
		}
	}'
}
make_csv 4 120 7 >"$t/four.csv"
make_csv 4 40 11 >"$t/four-test.csv"
make_csv 3 90 5 >"$t/three.csv"
spec() {   # spec NAME TRAIN [EXTRA LINES]: a spec file, printed path
	printf '[problem]\nkind = svm\nname = %s\n[svm]\nkernel = rbf\nC = 4\ngamma = 1\n%s\n[data]\ntrain = %s\n' \
		"$1" "$3" "$2" >"$t/$1.ini"
	echo "$t/$1.ini"
}
train=$(spec train "$t/four.csv" "")
printf 'test = %s\n' "$t/four-test.csv" >>"$train"
three=$(spec three "$t/three.csv" "")
cv=$(spec cv "$t/four.csv" "folds = 3")
grid=$(spec grid "$t/four.csv" "")
printf '[grid]\nlog2c = -1,3,2\nlog2g = 1,-3,-2\nfolds = 3\n' >>"$grid"
common=(--backend cpu --threads 1 --seed 3 -q)


for job in train three cv grid; do
	expect_exit 0 "$job: one process" "$evo" run "${!job}" "${common[@]}" -o "$t/$job-one"
done
expect_exit 0 "train: 4 ranks" mpirun_n 4 "$mpi" run "$train" --backend cpu --threads 1 --seed 3 \
	-o "$t/train-four"
expect_output "rank 0 says how the problems are spread" \
	"spread over 4 MPI ranks (one-vs-one pairs round-robin"
same_run "train: 4 ranks (6 pairs) == one process" "$t/train-one" "$t/train-four" model.txt \
	predictions.csv
if grep -q '"classes": 4' "$t/train-one/result.json" && grep -q '"ranks": 4' "$t/train-four/result.json" &&
	grep -q '"ranks": 1' "$t/train-one/result.json"; then
	cli_ok "result.json: 4 classes; the ranks recorded"
else cli_fail "classes and ranks in result.json" "$(grep -E 'classes|ranks' "$t"/train-*/result.json)"; fi
expect_exit 0 "train: 4 ranks again" mpirun_n 4 "$mpi" run "$train" "${common[@]}" -o "$t/train-again"
if diff <(grep -vE '_s"|_ms"|per_s"' "$t/train-four/result.json") \
	<(grep -vE '_s"|_ms"|per_s"' "$t/train-again/result.json") >/dev/null &&
	cmp -s "$t/train-four/model.txt" "$t/train-again/model.txt"; then
	cli_ok "two 4-rank runs are identical"
else cli_fail "two 4-rank runs" "result.json or model.txt differs"; fi
expect_exit 0 "3 classes (3 pairs) on 4 ranks" mpirun_n 4 "$mpi" run "$three" "${common[@]}" \
	-o "$t/three-four"
same_run "3 pairs on 4 ranks == one process" "$t/three-one" "$t/three-four" model.txt
expect_exit 0 "3-fold cross-validation: 4 ranks" mpirun_n 4 "$mpi" run "$cv" "${common[@]}" \
	-o "$t/cv-four"
same_run "cross-validation: 4 ranks == one process" "$t/cv-one" "$t/cv-four"
expect_exit 0 "grid (9 cells x 3 folds): 3 ranks" mpirun_n 3 "$mpi" run "$grid" "${common[@]}" \
	-o "$t/grid-three"
same_run "grid: 3 ranks == one process" "$t/grid-one" "$t/grid-three" grid.csv
if grep -q '"cv_accuracy"' "$t/cv-one/result.json" && [ "$(wc -l <"$t/grid-one/grid.csv")" = 10 ]; then
	cli_ok "the searches wrote their accuracy and 9 grid cells"
else cli_fail "search outputs" "$(cat "$t/cv-one/result.json" "$t/grid-one/grid.csv")"; fi
# checkpoints: every rank its own table (checkpoint-rank-R.bin); a resume
# merges a folder's files, on any number of ranks or in one process
expect_exit 0 "grid: 4 ranks, checkpoints" mpirun_n 4 "$mpi" run "$grid" "${common[@]}" \
	--checkpoint-every 5 -o "$t/grid-ck"
same_run "... end as one process" "$t/grid-one" "$t/grid-ck" grid.csv
if [ -f "$t/grid-ck/checkpoint-rank-3.bin" ]; then cli_ok "... a file per rank"
else cli_fail "... a file per rank" "$(ls "$t/grid-ck" | tr '\n' ' ')"; fi
cp -r "$t/grid-ck" "$t/grid-ck-one"
rm "$t/grid-ck/checkpoint-rank-2.bin"   # as if rank 2 died before its first
expect_exit 0 "... a rank's file gone, resumed on 3 ranks" mpirun_n 3 "$mpi" run "$grid" \
	--backend cpu --threads 1 --seed 3 --checkpoint-every 5 --resume "$t/grid-ck" -o "$t/grid-ck"
expect_output "... reading the others' files" "checkpoint-rank-3.bin"
same_run "... ends as one process" "$t/grid-one" "$t/grid-ck" grid.csv
expect_exit 0 "... resumed by one process" "$evo" run "$grid" "${common[@]}" --resume "$t/grid-ck-one" \
	-o "$t/grid-ck-one"
same_run "... ends as one process" "$t/grid-one" "$t/grid-ck-one" grid.csv
# SIGKILL on a rank while training (a larger, harder set: ~3 s in one
# process): resumed on 2 ranks
make_csv 4 6000 13 3 >"$t/big.csv"
big=$(spec big "$t/big.csv" "")
sed -i 's/^C = 4$/C = 100/; s/^gamma = 1$/gamma = 4/' "$big"
expect_exit 0 "big: one process" "$evo" run "$big" "${common[@]}" -o "$t/big-one"
mpirun_n 4 "$mpi" run "$big" "${common[@]}" --checkpoint-every 20 -o "$t/big-killed" >"$t/big.log" 2>&1 &
job=$!
for ((k = 0; k < 600; k++)); do [ -f "$t/big-killed/checkpoint-rank-1.bin" ] && break; sleep 0.01; done
kill -KILL "$(ranks_of "$job" | sed -n 2p)" 2>/dev/null
wait "$job"
rc=$?
if [ "$rc" -ne 0 ] && [ ! -f "$t/big-killed/model.txt" ]; then cli_ok "big: a killed rank ends the job mid-training (exit $rc)"
else cli_fail "big: killed mid-training" "exit $rc; $(ls "$t/big-killed" | tr '\n' ' ')"; fi
expect_exit 0 "big: 4 ranks, one killed, resumed on 2 ranks" mpirun_n 2 "$mpi" run "$big" \
	"${common[@]}" --checkpoint-every 20 --resume "$t/big-killed" -o "$t/big-killed"
same_run "... ends as one process" "$t/big-one" "$t/big-killed" model.txt
expect_exit 2 "a folder without checkpoints exits 2" "$evo" run "$big" "${common[@]}" \
	--resume "$t/grid-one" -o "$t/none"
expect_output "... saying so" "no checkpoint.bin or checkpoint-rank-R.bin there"
finish
