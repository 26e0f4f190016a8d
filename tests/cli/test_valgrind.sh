# test_valgrind.sh: memcheck over one short CPU run of every kind (the plain
# build): no memory error and no definite or indirect leak (the thread
# pool's parked threads are "possibly lost" at exit, not counted); then the
# C API's create-run-free cycles (tests/test_api_cycles.c, 100 of them: every
# kind, every kind of cycle) under the same checks. SKIP without valgrind
# (tools/setup-debian installs it).
# Usage: bash test_valgrind.sh PATH/TO/evoforge
source "$(dirname "$0")/lib.sh"
evo=$1
export EVOFORGE_CACHE="$cli_tmp/cache"
case $evo in
*asan*)   # valgrind cannot run an ASan binary, and ASan already checks it
	echo "SKIP test_valgrind.sh: $evo is the sanitizer build (memcheck runs on the plain one)"
	finish
	exit $? ;;
esac
if ! command -v valgrind >/dev/null 2>&1; then
	echo "SKIP test_valgrind.sh: valgrind not installed (tools/setup-debian installs it)"
	finish
	exit $?
fi
awk 'BEGIN { print "a,b,y"; for (i = 0; i < 40; i++) printf "%d,%d,%d\n", i % 7, (i * 5) % 11, i % 3 ? 1 : -1 }' \
	>"$cli_tmp/points.csv"
printf '[problem]\nkind = svm\nname = vg-svm\n[svm]\nC = 10\n[data]\ntrain = points.csv\nlabel = y\ntest = points.csv\n' \
	>"$cli_tmp/svm.ini"
memcheck() {   # LABEL ARGS... (of evoforge run)
	local label=$1
	shift
	expect_exit 0 "$label: memcheck clean" valgrind -q --error-exitcode=99 --leak-check=full \
		--errors-for-leak-kinds=definite,indirect "$evo" run "$@" --backend cpu --threads 2 -q \
		-o "$cli_tmp/$label"
}
memcheck gp problems/sextic.ini --generations 2 --population 50 --set data.cases=20
memcheck gp-holdout problems/sextic.ini --generations 2 --population 50 --set data.cases=40 \
	--set data.test_fraction=0.25
memcheck de problems/de-sphere.ini --set de.dim=4 --set de.population=12 --set de.max_evals=600
memcheck aco problems/aco-random.ini --set data.random=20 --set aco.iterations=3 --set aco.candidates=6
memcheck mbp problems/mbp-xor.ini --set mbp.epochs=50
memcheck svm "$cli_tmp/svm.ini"
# the C API: 100 cycles cover each kind with each cycle type twice (plain runs,
# callbacks, a stopped run, a failing run, a job freed unrun)
cycles=$(dirname "$evo")/tests/test_api_cycles
if [ -x "$cycles" ]; then
	expect_exit 0 "api cycles: memcheck clean" env EVOFORGE_CYCLES=100 valgrind -q \
		--error-exitcode=99 --leak-check=full --errors-for-leak-kinds=definite,indirect "$cycles"
	expect_output "api cycles: ran them" "# 100 create-run-free cycles"
else
	echo "SKIP test_valgrind.sh api cycles: $cycles not built (ninja $cycles)"
fi
finish
