#!/usr/bin/env bash
# run-tests.sh: runs every test program (plain and sanitizer builds) and the
# command-line tests, then prints one closing line "N passed, N failed".
# Called by `ninja test` from the repository root.
set -u
cd "$(dirname "$0")/.."
export EVOFORGE_CACHE="${EVOFORGE_CACHE:-$PWD/build/test-cache}"
# protect_shadow_gap=0: cuInit needs that address range on GPU machines.
export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=1:protect_shadow_gap=0}"
export UBSAN_OPTIONS="${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}"
passed=0 failed=0 skipped=0
log=build/test-logs
mkdir -p "$log"

run_one() {   # run_one NAME COMMAND...: counts cmocka's summary lines
	local name=$1; shift
	local out="$log/$(echo "$name" | tr '/' '_').log"
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
	printf '%-34s %4d passed %3d failed %3d skipped  (%ds)\n' "$name" "$p" "$f" "$s" $((SECONDS - t0))
	if [ "$f" -ne 0 ] || [ "$rc" -ne 0 ]; then
		echo "---- $name failed (exit $rc); its output ($out):"
		tail -n 60 "$out"
		echo "----"
	fi
	grep -h '^SKIP' "$out" | sed 's/^/    /' | sort -u
}

for variant in build build/asan; do
	for t in "$variant"/tests/test_*; do
		case "$t" in *.o|*.d) continue ;; esac
		[ -x "$t" ] || continue
		run_one "$t" "$t"
	done
done
for script in tests/cli/test_*.sh; do
	[ -f "$script" ] || continue
	for bin in build/evoforge build/asan/evoforge; do
		run_one "$script ($bin)" bash "$script" "$bin"
	done
done

echo
echo "skipped: $skipped (see SKIP lines above for why)"
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
