# test_svm_cli.sh: commands a kind adds (rt_kind.commands) as main dispatches
# them: listed by `evoforge help`, their usage from `help COMMAND` and
# `COMMAND --help`, their argument errors (exit 2), and a train/predict round
# trip. Usage: bash test_svm_cli.sh PATH/TO/evoforge
source "$(dirname "$0")/lib.sh"
evo=$1

expect_exit 0 "help lists kind commands" "$evo" help
expect_output "help lists svm-train" "svm-train [options] DATA [MODEL]"
expect_output "help lists svm-predict" "svm-predict [options] DATA MODEL OUT"
expect_output "help lists svm-grid" "svm-grid [options] DATA"
expect_exit 0 "--help lists kind commands" "$evo" --help
expect_output "--help lists svm-grid" "svm-grid [options] DATA"
for cmd in svm-train svm-predict svm-grid; do
	expect_exit 0 "help $cmd" "$evo" help "$cmd"
	expect_output "help $cmd shows usage" "usage: evoforge $cmd"
	expect_exit 0 "$cmd --help" "$evo" "$cmd" --help
	expect_output "$cmd --help shows usage" "usage: evoforge $cmd"
done
expect_output "svm-grid usage gives grid.py's defaults" "-log2g begin,end,step   (default 3,-15,-2)"
expect_exit 2 "unknown command still exits 2" "$evo" svm-frobnicate
expect_output "unknown command message" "unknown command 'svm-frobnicate'"
expect_exit 2 "kind command without arguments" "$evo" svm-train
expect_output "kind command names what it expected" "svm-train: expected DATA [MODEL]"
expect_exit 2 "LIBSVM flag -s 5" "$evo" svm-train -s 5 x
expect_output "-s 5 message" "-s: expected an integer from 0 to 4, got '5'"

# -h is LIBSVM's shrinking flag here, not help; -q quiet; a round trip.
printf -- '-1 1:-1 2:-0.5\n-1 1:-0.8 2:-1\n-1 1:-1.2 2:-0.7\n+1 1:1 2:0.5\n+1 1:0.9 2:1.1\n+1 1:1.3 2:0.8\n' >"$cli_tmp/tiny.txt"
expect_exit 0 "svm-train -h 0 -q" "$evo" svm-train --backend cpu -h 0 -q "$cli_tmp/tiny.txt" "$cli_tmp/tiny.model"
expect_exit 0 "svm-train prints LIBSVM's lines" "$evo" svm-train --backend cpu -c 2 "$cli_tmp/tiny.txt" "$cli_tmp/tiny.model"
expect_output "optimization finished line" "optimization finished, #iter = "
expect_output "Total nSV line" "Total nSV = "
expect_exit 0 "svm-predict" "$evo" svm-predict "$cli_tmp/tiny.txt" "$cli_tmp/tiny.model" "$cli_tmp/tiny.out"
expect_output "svm-predict accuracy line" "Accuracy = 100% (6/6) (classification)"
if [ "$(tr '\n' ' ' <"$cli_tmp/tiny.out")" = "-1 -1 -1 1 1 1 " ]; then cli_ok "svm-predict labels"; else
	cli_fail "svm-predict labels" "$(cat "$cli_tmp/tiny.out")"; fi

finish
