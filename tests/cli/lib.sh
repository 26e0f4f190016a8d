# lib.sh: a tiny test harness for command-line tests. Each check prints a
# cmocka-style line; `finish` prints cmocka's summary so run-tests.sh counts it.
# Usage in a test script: source lib.sh; expect_exit 2 "name" cmd...; finish
cli_passed=0
cli_failed=0
cli_tmp=$(mktemp -d /tmp/evoforge-cli-XXXXXX)
trap 'rm -rf "$cli_tmp"' EXIT

cli_ok() { echo "[       OK ] $1"; cli_passed=$((cli_passed + 1)); }
cli_fail() { echo "[  FAILED  ] $1: $2"; cli_failed=$((cli_failed + 1)); }

# expect_exit CODE NAME CMD...: runs CMD, output to $cli_tmp/out; checks its exit code.
expect_exit() {
	local code=$1 name=$2 rc
	shift 2
	"$@" >"$cli_tmp/out" 2>&1
	rc=$?
	if [ "$rc" -eq "$code" ]; then cli_ok "$name"; else
		cli_fail "$name" "exit $rc, expected $code; output:"; sed 's/^/    /' "$cli_tmp/out" | tail -20
	fi
}

# expect_output NAME TEXT: the last command's output contains TEXT (fixed string).
expect_output() {
	if grep -qF -- "$2" "$cli_tmp/out"; then cli_ok "$1"; else
		cli_fail "$1" "output lacks '$2'; it was:"; sed 's/^/    /' "$cli_tmp/out" | tail -20
	fi
}

finish() {
	echo "[==========] $((cli_passed + cli_failed)) test(s) run."
	echo "[  PASSED  ] $cli_passed test(s)."
	[ "$cli_failed" -eq 0 ] || echo "[  FAILED  ] $cli_failed test(s), listed above"
	[ "$cli_failed" -eq 0 ]
}

# shared_data NAME: echoes the path of NAME (e.g. tsp/pcb442.tsp), a dataset
# evoforge does not ship (KDD Cup, a9a, TSPLIB): $EVOFORGE_DATA/NAME, else
# ../shared/data/NAME unless EVOFORGE_NO_SHARED_DATA is set (as the runtime's
# lookup). Otherwise prints "SKIP: ..." with the reason (on stderr, so that
# p=$(shared_data NAME) || ... keeps it visible) and returns 1. The shipped
# UCI CSVs are simply data/uci/NAME.csv.
shared_data() {
	if [ -n "${EVOFORGE_DATA:-}" ] && [ -r "$EVOFORGE_DATA/$1" ]; then
		echo "$EVOFORGE_DATA/$1"
	elif [ -n "${EVOFORGE_NO_SHARED_DATA:-}" ] && [ "$EVOFORGE_NO_SHARED_DATA" != 0 ]; then
		echo "SKIP: $1 not used: EVOFORGE_NO_SHARED_DATA is set (dataset not shipped)" >&2
		return 1
	elif [ -r "../shared/data/$1" ]; then
		echo "../shared/data/$1"
	else
		echo "SKIP: $1 not found (not shipped; set EVOFORGE_DATA or provide ../shared/data)" >&2
		return 1
	fi
}

# mpi_setup EVOFORGE SCRIPT: for the MPI tests. Sets $mpi (build/evoforge-mpi
# beside EVOFORGE) and mpirun_n N CMD... (N ranks, oversubscribed, as root
# too); returns 1 after a visible SKIP (sanitizer build: no MPI binary of
# it) or a failure (no mpirun or no MPI binary): the caller then finishes.
mpi_setup() {
	mpi="$(dirname "$1")/evoforge-mpi"
	case $1 in *asan*)
		echo "SKIP: $2: no sanitizer build of evoforge-mpi (Open MPI's own allocations would be reported); the plain build runs it"
		return 1 ;;
	esac
	if ! command -v mpirun >/dev/null || [ ! -x "$mpi" ]; then
		cli_fail "MPI" "mpirun or $mpi missing: run tools/setup-debian, then ninja build/evoforge-mpi"
		return 1
	fi
	export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_btl=self,vader
}
mpirun_n() { local n=$1; shift; mpirun -np "$n" --oversubscribe "$@"; }

# ranks_of PID: the evoforge-mpi processes (MPI ranks) started by the
# mpirun of PID, lowest pid first.
ranks_of() {
	{ pgrep -P "$1" -f evoforge-mpi; for c in $(pgrep -P "$1"); do pgrep -P "$c" -f evoforge-mpi; done; } 2>/dev/null | sort -n
}

# same_run NAME DIR-A DIR-B FILE...: two runs' outputs are the same:
# result.json without its timings (keys ending _s, _ms, per_s, _per_min)
# and rank count (or the lines $same_run_drop matches, an extended
# regular expression), and each FILE byte for byte (present in DIR-A).
same_run() {
	local name=$1 a=$2 b=$3 f bad="" drop=${same_run_drop:-'_s"|_ms"|per_s"|_per_min"|"ranks"'}
	shift 3
	diff <(grep -vE "$drop" "$a/result.json") <(grep -vE "$drop" "$b/result.json") \
		>"$cli_tmp/diff" || bad="result.json"
	for f in "$@"; do
		[ -s "$a/$f" ] || bad="$bad $f(missing in $a)"
		cmp -s "$a/$f" "$b/$f" || bad="$bad $f"
	done
	if [ -z "$bad" ]; then cli_ok "$name"
	else cli_fail "$name" "differs: $bad; $(head -5 "$cli_tmp/diff")"; fi
}
