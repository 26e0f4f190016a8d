# test_gpu_sanitize.sh: tools/gpu-sanitize's logic without a GPU: every case
# runs on the CPU (GS_BACKEND=cpu, so each spec and command is checked) under
# a stand-in compute-sanitizer (tests/cli/bin/fake-compute-sanitizer) that
# runs the command and prints compute-sanitizer's ERROR SUMMARY line, and
# reports errors when asked; checks the table, its cells and the exit status.
# Usage: bash test_gpu_sanitize.sh PATH/TO/evoforge
source "$(dirname "$0")/lib.sh"
export EVOFORGE_BIN=$1 GS_BACKEND=cpu COMPUTE_SANITIZER=$PWD/tests/cli/bin/fake-compute-sanitizer
gs=tools/gpu-sanitize
out="$cli_tmp/gs"

expect_exit 0 "every case runs on the CPU under a clean sanitizer" $gs --tools memcheck --jobs 2 "$out"
expect_output "the table's header" "| family | case | plain | memcheck |"
expect_output "a gp interpreter's row" "| gp | gp-lgp-float4 | ok | 0 ok |"
expect_output "the svm eval row" "| svm | svm-eval | ok | 0 ok |"
rows=$(grep '^| ' "$cli_tmp/out" | grep -vc '^| family')
listed=$($gs --list | wc -l)
if [ "$rows" -eq "$listed" ] && [ "$rows" -ge 30 ]; then cli_ok "a row per case ($rows)"; else
	cli_fail "a row per case" "$rows rows, $listed cases listed"; fi
if [ -f "$out/memcheck/de-naive.log" ] && [ -f "$out/summary.md" ]; then cli_ok "logs and summary.md kept"; else
	cli_fail "logs and summary.md kept" "missing in $out"; fi

FAKE_CS_FAIL='racecheck:*aco-warp*' expect_exit 1 "errors reported by a tool fail the run" \
	$gs --tools "memcheck racecheck" --cases "aco-warp de-naive" "$out"
expect_output "the failing cell" "| aco | aco-warp | ok | 0 ok | 2 FAIL |"
expect_output "the clean case" "| de | de-naive | ok | 0 ok | 0 ok |"
expect_output "the count of failures" "gpu-sanitize: 1 case(s) with an error or a failed run"

printf '#!/bin/sh\necho "========= ERROR SUMMARY: 0 errors"\nexit 3\n' >"$cli_tmp/cs-exit"
chmod +x "$cli_tmp/cs-exit"
COMPUTE_SANITIZER=$cli_tmp/cs-exit expect_exit 1 "a run failing under the tool fails" \
	$gs --tools synccheck --cases de-naive "$out"
expect_output "its cell" "| de | de-naive | ok | 0, exit 3 FAIL |"
printf '#!/bin/sh\nexit 0\n' >"$cli_tmp/cs-silent"
chmod +x "$cli_tmp/cs-silent"
COMPUTE_SANITIZER=$cli_tmp/cs-silent expect_exit 1 "a run without the tool's summary fails" \
	$gs --tools initcheck --cases de-naive "$out"
expect_output "its cell" "| de | de-naive | ok | no summary, exit 0 FAIL |"

expect_exit 2 "an unknown tool" $gs --tools leakcheck "$out"
expect_output "names the tools" "unknown tool 'leakcheck' (memcheck racecheck initcheck synccheck)"
expect_exit 2 "no case matching" $gs --cases "nothing*" "$out"
finish
