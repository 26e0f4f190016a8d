#!/usr/bin/env bash
# run-tests.sh: runs one tier of the tests (test programs of the plain and
# sanitizer builds, command-line scripts), prints each test's counts and
# seconds, the 10 slowest, then one closing line "N passed, N failed".
# Usage (from anywhere; it works in the repository root):
#   bash tests/run-tests.sh quick   `ninja test`: the quick loop, <= 8 min on 2 cores
#   bash tests/run-tests.sh full    `ninja check`: everything (what CI runs)
# The split (seconds measured on 2 cores: build/test-logs/times.txt):
#   quick = the test programs of the plain and the sanitizer builds
#           (build/tests/test_*, build/asan/tests/test_*), except SLOW_PROGRAMS
#         + every CLI script against the plain build/evoforge, except SLOW_SCRIPTS
#         + QUICK_ASAN_SCRIPTS against build/asan/evoforge (the sanitizer CLI sample)
#   full  = quick + SLOW_PROGRAMS (both builds) + SLOW_SCRIPTS (plain) + every
#           CLI script against build/asan/evoforge.
#   A test goes to full only when it is slow (a program over ~60 s, a script
#   over ~30 s on 2 cores) or needs what `ninja test` does not build (MPI).
set -u
cd "$(dirname "$0")/.." || exit 2
tier=${1:-quick}
case $tier in quick|full) ;; *)
	echo "usage: bash tests/run-tests.sh [quick|full] (got '$tier')" >&2
	echo "0 passed, 1 failed"
	exit 2 ;;
esac

# Full tier only: MPI (needs build/evoforge-mpi), valgrind, resume stress.
SLOW_SCRIPTS=" test_mpi_de.sh test_svm_mpi.sh test_mbp_mpi.sh test_mpi_messages.sh test_mpi_hosts.sh
	test_islands.sh test_valgrind.sh test_signals.sh
	test_resume.sh test_resume_de_aco.sh test_resume_gp_ovr.sh test_resume_mbp_svm.sh "
# Full tier only, in both builds: test_svm_sparse (370 s plain, more under ASan).
SLOW_PROGRAMS=" test_svm_sparse "
# Sanitizer CLI scripts in the quick tier.
QUICK_ASAN_SCRIPTS=" test_cli.sh "

export EVOFORGE_CACHE="${EVOFORGE_CACHE:-$PWD/build/test-cache}"
# protect_shadow_gap=0: cuInit needs that address range on GPU machines.
export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=1:protect_shadow_gap=0}"
export UBSAN_OPTIONS="${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}"
passed=0 failed=0 skipped=0
log=build/test-logs
mkdir -p "$log"
: >"$log/times.txt"
t_start=$SECONDS

run_one() {   # run_one NAME COMMAND...: counts cmocka's summary lines
	local name=$1; shift
	local out
	out="$log/$(echo "$name" | tr '/' '_').log"
	local t0=$SECONDS
	"$@" >"$out" 2>&1
	local rc=$?
	local p f s
	p=$(sed -n 's/^\[  PASSED  \] \([0-9]*\) test.*/\1/p' "$out" | awk '{s+=$1} END {print s+0}')
	f=$(sed -n 's/^\[  FAILED  \] \([0-9]*\) test.*/\1/p' "$out" | awk '{s+=$1} END {print s+0}')
	s=$(sed -n 's/^\[  SKIPPED \] \([0-9]*\) test.*/\1/p' "$out" | awk '{s+=$1} END {print s+0}')
	if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then
		f=1   # crashed or failed outside cmocka's count
	fi
	passed=$((passed + p)); failed=$((failed + f)); skipped=$((skipped + s))
	printf '%-44s %4d passed %3d failed %3d skipped  (%ds)\n' "$name" "$p" "$f" "$s" $((SECONDS - t0))
	printf '%d %s\n' $((SECONDS - t0)) "$name" >>"$log/times.txt"
	if [ "$f" -ne 0 ] || [ "$rc" -ne 0 ]; then
		echo "---- $name failed (exit $rc); its output ($out):"
		tail -n 60 "$out"
		echo "----"
	fi
	grep -h '^SKIP' "$out" | sed 's/^/    /' | sort -u
}

# in_list WORD LIST: whether WORD is one of LIST's blank-separated words.
in_list() {
	local w
	for w in $2; do [ "$w" = "$1" ] && return 0; done
	return 1
}

# Whether this tier runs the test program PATH (build/tests/x or build/asan/tests/x).
wants_program() {
	[ "$tier" = full ] || ! in_list "$(basename "$1")" "$SLOW_PROGRAMS"
}

# Whether this tier runs the CLI script SCRIPT against the evoforge BIN.
wants_script() {
	local s; s=$(basename "$1")
	[ "$tier" = full ] && return 0
	case $2 in *asan*) in_list "$s" "$QUICK_ASAN_SCRIPTS" ;;
	*) ! in_list "$s" "$SLOW_SCRIPTS" ;; esac
}

echo "tier: $tier (bash tests/run-tests.sh quick|full)${EVOFORGE_NO_SHARED_DATA:+; EVOFORGE_NO_SHARED_DATA=$EVOFORGE_NO_SHARED_DATA: ../shared/data not used}"
for variant in build build/asan; do
	for t in "$variant"/tests/test_*; do
		case "$t" in *.o|*.d) continue ;; esac
		[ -x "$t" ] || continue
		wants_program "$t" && run_one "$t" "$t"
	done
done
for script in tests/cli/test_*.sh; do
	[ -f "$script" ] || continue
	for bin in build/evoforge build/asan/evoforge; do
		wants_script "$script" "$bin" && run_one "$script ($bin)" bash "$script" "$bin"
	done
done
# The Python package (tests/python, pytest): its wrapper prints cmocka-style
# counts, or a SKIP line when pytest or build/libevoforge.so is missing.
run_one "tests/python (pytest)" bash tests/python/run.sh

echo
echo "10 slowest (seconds):"
sort -rn "$log/times.txt" | head -10 | sed 's/^/  /'
echo "tier $tier: $((SECONDS - t_start)) s in all; skipped: $skipped (see SKIP lines above for why)"
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
