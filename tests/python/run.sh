#!/usr/bin/env bash
# run.sh: runs the Python package's pytest suite (tests/python) against
# build/libevoforge.so and prints cmocka-style count lines for
# tests/run-tests.sh; without pytest or the library: a SKIP line, no failure.
# Usage: bash tests/python/run.sh [pytest arguments]
set -u
cd "$(dirname "$0")/../.." || exit 2
PY=${PYTHON:-python3}
if ! "$PY" -c "import pytest" >/dev/null 2>&1; then
	echo "SKIP: tests/python: no pytest for $PY (tools/setup-python installs it)"
	echo "[  SKIPPED ] 1 test(s)."
	exit 0
fi
if [ -z "${EVOFORGE_LIB:-}" ] && [ ! -f build/libevoforge.so ]; then
	echo "SKIP: tests/python: build/libevoforge.so not built (ninja build/libevoforge.so)"
	echo "[  SKIPPED ] 1 test(s)."
	exit 0
fi
out=$(mktemp) || exit 2
trap 'rm -f "$out"' EXIT
PYTHONPATH=python${PYTHONPATH:+:$PYTHONPATH} "$PY" -m pytest -q -rs -p no:cacheprovider tests/python "$@" 2>&1 | tee "$out"
rc=${PIPESTATUS[0]}
# The closing summary: "3 failed, 12 passed, 1 skipped, 1 error in 4.1s".
summary=$(grep -E '^=*[ ]*[0-9]+ (passed|failed|skipped|errors?|deselected)' "$out" | tail -n 1)
[ -n "$summary" ] || summary=$(grep -E '[0-9]+ (passed|failed|skipped|errors?)' "$out" | tail -n 1)
count() { echo "$summary" | grep -oE "[0-9]+ $1" | grep -oE '^[0-9]+' | head -n 1; }
p=$(count passed); f=$(count failed); s=$(count skipped); e=$(count 'errors?')
p=${p:-0}; f=$(( ${f:-0} + ${e:-0} )); s=${s:-0}
# pytest's "SKIPPED [1] file:line: reason" as the runner's SKIP lines
sed -n 's/^SKIPPED \[[0-9]*\] \([^ ]*\) \(SKIP: \)\{0,1\}/SKIP: \1 /p' "$out"
echo "[  PASSED  ] $p test(s)."
[ "$s" -eq 0 ] || echo "[  SKIPPED ] $s test(s)."
if [ "$f" -ne 0 ] || [ "$rc" -ne 0 ]; then
	[ "$f" -ne 0 ] || f=1   # pytest failed outside its counts (collection, usage)
	echo "[  FAILED  ] $f test(s)."
	exit 1
fi
exit 0
