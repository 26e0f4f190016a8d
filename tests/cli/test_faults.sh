# test_faults.sh: faults from outside, each a clear error and a non-zero exit
# that leaves an earlier run's results as they were: a missing and a broken
# (not a library) libcuda for a GPU run, a missing and a broken libnvrtc for
# `evoforge build`, an NVRTC compile failure (a DE objective that does not
# compile: the message names the spec's line), and a results folder that
# cannot be created. (Allocation failures at every site and a full disk:
# tests/test_faults.c in the ASan build.)
# Usage: bash test_faults.sh PATH/TO/evoforge
source "$(dirname "$0")/lib.sh"
evo=$1
export EVOFORGE_CACHE="$cli_tmp/cache"
res="$cli_tmp/res"

expect_exit 0 "a clean run first" "$evo" run problems/sextic.ini --backend cpu --generations 1 -q -o "$res"
cp "$res/result.json" "$cli_tmp/before.json"
cp "$res/history.csv" "$cli_tmp/before.csv"
intact() {
	if cmp -s "$res/result.json" "$cli_tmp/before.json" && cmp -s "$res/history.csv" "$cli_tmp/before.csv"
	then cli_ok "$1: the earlier results are intact"; else cli_fail "$1: the earlier results are intact" "changed"; fi
}

expect_exit 1 "missing libcuda" env EVOFORGE_LIBCUDA=/nonexistent "$evo" run problems/sextic.ini \
	--backend gpu --generations 1 -q -o "$res"
expect_output "missing libcuda: says so" "no CUDA driver: dlopen /nonexistent"
intact "missing libcuda"
printf 'not a library\n' >"$cli_tmp/libcuda.so.1"
expect_exit 1 "broken libcuda" env EVOFORGE_LIBCUDA="$cli_tmp/libcuda.so.1" "$evo" run problems/sextic.ini \
	--backend gpu --generations 1 -q -o "$res"
expect_output "broken libcuda: names it" "$cli_tmp/libcuda.so.1"
intact "broken libcuda"

expect_exit 1 "missing libnvrtc" env EVOFORGE_LIBNVRTC=/nonexistent "$evo" build problems/sextic.ini \
	-o "$cli_tmp/b1"
expect_output "missing libnvrtc: says so" "no NVRTC: dlopen /nonexistent"
expect_exit 1 "broken libnvrtc" env EVOFORGE_LIBNVRTC="$cli_tmp/libcuda.so.1" "$evo" build \
	problems/sextic.ini -o "$cli_tmp/b2"
expect_output "broken libnvrtc: names it" "no NVRTC: dlopen $cli_tmp/libcuda.so.1"

# An objective NVRTC cannot compile: the spec's line in the message.
printf '[problem]\nkind = de\nname = bad-code\n[de]\ndim = 4\n[objective]\ncode = return x[0] +* ;\n' \
	>"$cli_tmp/bad-code.ini"
expect_exit 1 "NVRTC compile failure" "$evo" build "$cli_tmp/bad-code.ini" -o "$cli_tmp/b3"
expect_output "NVRTC compile failure: names the spec and line" "bad-code.ini(8): error"

# A results folder that cannot be made (a file stands in its way).
printf 'x\n' >"$cli_tmp/file"
expect_exit 1 "results folder blocked" "$evo" run problems/sextic.ini --backend cpu --generations 1 -q \
	-o "$cli_tmp/file/sub"
expect_output "results folder blocked: names it" "$cli_tmp/file"
finish
