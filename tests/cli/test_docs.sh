# test_docs.sh: runs every ```sh block of README.md and docs/*.md, so the
# commands the docs show cannot rot.
#
# Conventions (docs/design.md's "Commands in these pages" says the same):
#   ```sh       a block this test runs, with bash -e -o pipefail;
#   ```console  a transcript (prompt, command and its output): not run;
#   ```text, ```ini, ```c ...  listings, spec excerpts: not run;
#   <!-- not run: REASON -->   on the line before a ```sh fence: the block is
#               not run; the test prints REASON and counts it. Use it for
#               set-up (reason "set-up: run by .ci/run"), GPUs, data that
#               does not ship, clusters and long benchmarks.
# Every opening fence must name its language (a bare ``` fails), and a ```sh
# block that calls ninja or tools/setup-debian must be marked not run.
#
# Where blocks run: each page gets a scratch folder that mirrors the
# repository root (problems/, data/, tools/, templates/ linked; build/evoforge
# is the binary under test, build/evoforge-mpi the one beside it), with
# build/ on PATH; a page's blocks run there in order, so a block may use
# what an earlier block of the same page wrote (e.g. out/...). Nothing is
# written into the checkout. Blocks that use `evoforge plot` are skipped
# (SKIP line) without gnuplot; blocks that use mpirun are skipped without
# mpirun or build/evoforge-mpi. The sanitizer build
# (a binary path with asan in it) skips the whole test, with a SKIP line.
# Usage: bash tests/cli/test_docs.sh PATH/TO/evoforge
source "$(dirname "$0")/lib.sh"
evo=$1
root=$(cd "$(dirname "$0")/../.." && pwd)
bin="$(cd "$(dirname "$evo")" && pwd)/$(basename "$evo")"
block_limit=${DOCS_BLOCK_TIMEOUT:-90}
# A kernel cache of its own: the tune block's tuning.json must not reach
# the other tests' runs.
export EVOFORGE_CACHE="${EVOFORGE_CACHE:-$HOME/.cache/evoforge}/docs-test"
t0=$SECONDS
case $bin in *asan*)
	# The sanitizer build runs these commands 5-30 times slower (over 5
	# minutes in all); what this test checks is the pages, not memory.
	echo "SKIP: test_docs.sh: the plain build runs the docs' commands (the sanitizer build would take over 5 minutes)"
	finish; exit ;;
esac

# The blocks, one file each under $cli_tmp/blocks, and an index:
# PAGE<TAB>LINE<TAB>STATE<TAB>REASON<TAB>FILE (STATE: run, notrun, bad).
python3 - "$root" "$cli_tmp/blocks" >"$cli_tmp/index" <<'PY'
import glob, os, re, sys
root, out = sys.argv[1], sys.argv[2]
os.makedirs(out)
pages = ["README.md"] + sorted(os.path.relpath(p, root) for p in glob.glob(os.path.join(root, "docs", "*.md")))
n = 0
for page in pages:
    lines = open(os.path.join(root, page), encoding="utf-8").read().split("\n")
    i = 0
    while i < len(lines):
        m = re.match(r"^(\s*)```(\S*)\s*$", lines[i])
        if not m:
            i += 1
            continue
        lang, start = m.group(2), i
        j = i + 1
        while j < len(lines) and not re.match(r"^\s*```\s*$", lines[j]):
            j += 1
        body = "\n".join(l[len(m.group(1)):] for l in lines[i + 1:j]) + "\n"
        i = j + 1
        k = start - 1
        while k >= 0 and not lines[k].strip():
            k -= 1
        mark = re.match(r"^\s*<!--\s*not run:\s*(.*?)\s*-->\s*$", lines[k]) if k >= 0 else None
        if lang == "":
            print("%s\t%d\tbad\ta fence without a language (use sh, console, text, ini ...)\t-" % (page, start + 1))
            continue
        if lang != "sh":
            continue
        if mark:
            print("%s\t%d\tnotrun\t%s\t-" % (page, start + 1, mark.group(1)))
            continue
        if re.search(r"(^|[\s;&|(])(ninja|tools/setup-debian)\b", body, re.M):
            print("%s\t%d\tbad\tcalls ninja or tools/setup-debian: mark it <!-- not run: set-up: run by .ci/run -->\t-" % (page, start + 1))
            continue
        n += 1
        f = os.path.join(out, "%03d.sh" % n)
        open(f, "w").write(body)
        print("%s\t%d\trun\t-\t%s" % (page, start + 1, f))
PY

mirror() {   # mirror DIR: a scratch copy of the repository root's layout
	local d=$1 x
	mkdir -p "$d/build"
	for x in problems tools templates tests bench python include examples; do
		[ -e "$root/$x" ] && ln -s "$root/$x" "$d/$x"
	done
	ln -s "$root/data" "$d/data"
	ln -s "$bin" "$d/build/evoforge"
	[ -x "$(dirname "$bin")/evoforge-mpi" ] && ln -s "$(dirname "$bin")/evoforge-mpi" "$d/build/evoforge-mpi"
	[ -f "$(dirname "$bin")/libevoforge.so" ] && ln -s "$(dirname "$bin")/libevoforge.so" "$d/build/libevoforge.so"
	return 0
}

has_gnuplot=1
command -v gnuplot >/dev/null || has_gnuplot=0
has_mpi=1
{ command -v mpirun >/dev/null && [ -x "$(dirname "$bin")/evoforge-mpi" ]; } || has_mpi=0
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_btl=self,vader
export OMPI_MCA_rmaps_base_oversubscribe=1

nrun=0 nnot=0 nskip=0
while IFS=$'\t' read -r page line state reason file; do
	where="$page:$line"
	case $state in
	bad) cli_fail "$where" "$reason"; continue ;;
	notrun) echo "NOT RUN $where: $reason"; nnot=$((nnot + 1)); continue ;;
	esac
	if grep -q 'evoforge plot' "$file" && [ "$has_gnuplot" -eq 0 ]; then
		echo "SKIP: $where: gnuplot is not installed (tools/setup-debian installs gnuplot-nox)"
		nskip=$((nskip + 1)); continue
	fi
	if grep -q 'mpirun' "$file" && [ "$has_mpi" -eq 0 ]; then
		echo "SKIP: $where: needs mpirun and build/evoforge-mpi"; nskip=$((nskip + 1)); continue
	fi
	dir="$cli_tmp/run/$(echo "$page" | tr '/.' '__')"
	[ -d "$dir" ] || mirror "$dir"
	b0=$SECONDS
	(cd "$dir" && PATH="$dir/build:$PATH" timeout "$block_limit" bash -e -o pipefail "$file" </dev/null) \
		>"$cli_tmp/out" 2>&1
	rc=$?
	nrun=$((nrun + 1))
	if [ "$rc" -eq 0 ]; then cli_ok "$where ($((SECONDS - b0)) s)"; else
		cli_fail "$where" "exit $rc ($((SECONDS - b0)) s); the block:"
		sed 's/^/    | /' "$file"
		echo "    its output (last 20 lines):"
		tail -20 "$cli_tmp/out" | sed 's/^/    /'
	fi
done <"$cli_tmp/index"

echo "docs: $nrun blocks run, $nnot not run (reasons above), $nskip skipped, $((SECONDS - t0)) s"
[ "$nrun" -gt 0 ] || cli_fail "blocks" "no runnable block found"
finish
