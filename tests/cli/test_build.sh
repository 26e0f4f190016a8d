# test_build.sh: `evoforge build` on the CPU: sextic built for sm_80 and
# sm_90 (NVRTC here) embeds cubins for both; the program runs without NVRTC
# (EVOFORGE_LIBNVRTC=/nonexistent) and gives the result.json (timings aside)
# and history of `evoforge run` for the same seed; a DE problem builds and
# agrees too; errors: bad spec (exit 2, file:line), no ninja (exit 0, says
# how), a bad --arch. aco (random cities), mbp (two-spirals, and Sonar) and
# svm (points of its own, and Sonar) build too: their programs, without
# NVRTC, give the result.json and the artefact (best tour, network, model)
# of `evoforge run` (Sonar from the shipped data/uci/sonar.csv).
# Usage: bash test_build.sh PATH/TO/evoforge
source "$(dirname "$0")/lib.sh"
evo=$1
export EVOFORGE_CACHE="$cli_tmp/cache"
dir="$cli_tmp/sextic-build"

# result.json without its timing lines (seconds, rates, per-generation times).
untimed() { grep -vE '_s"|_ms|ms_per|per_min|seconds|gpops|per_second|evals_s|"date"|host_share' "$1"; }

expect_exit 0 "build --help" "$evo" build --help
expect_output "build --help shows usage" "usage: evoforge build"
expect_exit 2 "build without -o" "$evo" build problems/sextic.ini
expect_exit 0 "build sextic for sm_80,sm_90" "$evo" build problems/sextic.ini -o "$dir" --arch sm_80,sm_90
expect_output "build says what it built" "kernels embedded for sm_80,sm_90"
if [ -x "$dir/sextic" ]; then cli_ok "the binary exists"; else cli_fail "the binary exists" "no $dir/sextic"; fi
for f in sextic.c kernels.S build.ninja sextic.ini include/evoforge_built.h lib/libevoforge.a gen/gp_gpu-lgp-fast-s8.cu; do
	if [ -s "$dir/$f" ]; then cli_ok "DIR has $f"; else cli_fail "DIR has $f" "missing"; fi
done

expect_exit 0 "built info" env EVOFORGE_LIBNVRTC=/nonexistent "$dir/sextic" info
expect_output "cubins for sm_80" "gp_gpu-lgp-fast-s8.cu                    sm_80"
expect_output "cubins for sm_90" "gp_gpu-lgp-fast-s64.cu                   sm_90"
expect_exit 0 "built --help" "$dir/sextic" --help
expect_output "built --help shows usage" "run [--seed N] [--generations N]"
expect_exit 2 "built run: bad option" "$dir/sextic" run --bogus
expect_exit 2 "built run: bad seed" "$dir/sextic" run --seed x

# The built program without NVRTC, from another folder, against evoforge run.
expect_exit 0 "built run without NVRTC" env EVOFORGE_LIBNVRTC=/nonexistent sh -c \
	"cd / && '$dir/sextic' run --backend cpu --seed 11 --generations 4 -o '$cli_tmp/built'"
expect_output "built run reports its start-up" "startup: "
expect_exit 0 "evoforge run" "$evo" run problems/sextic.ini --backend cpu --seed 11 --generations 4 -o "$cli_tmp/ref"
if diff <(untimed "$cli_tmp/built/result.json") <(untimed "$cli_tmp/ref/result.json") >"$cli_tmp/diff"; then
	cli_ok "same result.json as evoforge run (timings aside)"
else
	cli_fail "same result.json as evoforge run (timings aside)" "$(head -20 "$cli_tmp/diff")"
fi
if diff <(cut -d, -f1-5 "$cli_tmp/built/history.csv") <(cut -d, -f1-5 "$cli_tmp/ref/history.csv") >/dev/null; then
	cli_ok "same history (best, mean, sizes)"
else
	cli_fail "same history (best, mean, sizes)" "differs"
fi
expect_exit 0 "built run --startup-time" env EVOFORGE_LIBNVRTC=/nonexistent "$dir/sextic" run --startup-time --backend cpu
expect_output "start-up time line" "startup: "
expect_exit 1 "built run --backend gpu without a GPU" env EVOFORGE_LIBCUDA=/nonexistent "$dir/sextic" run --backend gpu --generations 1 -o "$cli_tmp/gpu"

# DE: one kernel per arch (specialised to the device's shared memory).
expect_exit 0 "build de-sphere" "$evo" build problems/de-sphere.ini -o "$cli_tmp/de" --set de.generations=20
name=$(sed -n 's/^name *= *\([^ ;]*\).*/\1/p' problems/de-sphere.ini | head -1)
expect_exit 0 "built de run without NVRTC" env EVOFORGE_LIBNVRTC=/nonexistent "$cli_tmp/de/$name" run --backend cpu --seed 3 -o "$cli_tmp/de-built"
expect_exit 0 "evoforge run de" "$evo" run problems/de-sphere.ini --set de.generations=20 --backend cpu --seed 3 -o "$cli_tmp/de-ref"
if diff <(untimed "$cli_tmp/de-built/result.json") <(untimed "$cli_tmp/de-ref/result.json") >"$cli_tmp/diff"; then
	cli_ok "de: same result.json (timings aside)"
else
	cli_fail "de: same result.json (timings aside)" "$(head -20 "$cli_tmp/diff")"
fi

# aco, mbp, svm: built (absolute spec path, so that result.json's paths
# agree), run without NVRTC from another folder, against evoforge run.
# same_as_run LABEL SPEC ARTEFACT "KERNEL..." SEED [--set K=V]...
same_as_run() {
	local label=$1 spec=$2 artefact=$3 kernels=$4 seed=$5
	shift 5
	local dir="$cli_tmp/$label" name
	name=$(sed -n 's/^name *= *\([^ ;]*\).*/\1/p' "$spec" | head -1)
	expect_exit 0 "$label: build" "$evo" build "$spec" -o "$dir" "$@"
	expect_output "$label: one cubin per module" "embedded for sm_90"
	expect_exit 0 "$label: info" env EVOFORGE_LIBNVRTC=/nonexistent "$dir/$name" info
	for k in $kernels; do expect_output "$label: info lists $k" "$k"; done
	expect_exit 0 "$label: built run without NVRTC" env EVOFORGE_LIBNVRTC=/nonexistent sh -c \
		"cd / && '$dir/$name' run --backend cpu --seed $seed -o '$cli_tmp/$label-built'"
	expect_exit 0 "$label: evoforge run" "$evo" run "$spec" --backend cpu --seed "$seed" \
		-o "$cli_tmp/$label-ref" "$@"
	if diff <(untimed "$cli_tmp/$label-built/result.json") <(untimed "$cli_tmp/$label-ref/result.json") \
		>"$cli_tmp/diff"; then
		cli_ok "$label: same result.json (timings aside)"
	else
		cli_fail "$label: same result.json (timings aside)" "$(head -20 "$cli_tmp/diff")"
	fi
	if cmp -s "$cli_tmp/$label-built/$artefact" "$cli_tmp/$label-ref/$artefact"; then
		cli_ok "$label: same $artefact"
	else
		cli_fail "$label: same $artefact" "differs"
	fi
}
same_as_run aco "$PWD/problems/aco-random.ini" best.tour aco-aco-random.cu 5 \
	--set data.random=200 --set aco.iterations=30
same_as_run mbp "$PWD/problems/mbp-spirals.ini" network.net mbp-mbp-spirals.cu 5 \
	--set mbp.epochs=300
# --generations sets each kind's own count: aco's iterations, mbp's epochs.
expect_exit 0 "aco: built run --generations" "$cli_tmp/aco/aco-random" run --backend cpu --seed 5 \
	--generations 7 -q -o "$cli_tmp/aco-gens"
expect_exit 0 "aco: the file shows 7 iterations" grep -q '"iterations": 7,' "$cli_tmp/aco-gens/result.json"
expect_exit 0 "mbp: built run --generations" "$cli_tmp/mbp/mbp-spirals" run --backend cpu --seed 5 \
	--generations 9 -q -o "$cli_tmp/mbp-gens"
expect_exit 0 "mbp: the file shows 9 epochs" grep -q '"epochs": 9,' "$cli_tmp/mbp-gens/result.json"
# svm on data of its own (always there): 90 points, 5 features, 3 classes.
awk 'BEGIN { print "a,b,c,d,e,y"; for (i = 0; i < 90; i++)
	printf "%d,%d,%d,%d,%d,%d\n", i % 7, (i * 5) % 11, (i * 3) % 13, i % 2, (i * i) % 17, i % 3 }' \
	>"$cli_tmp/points.csv"
printf '[problem]\nkind = svm\nname = svm-small\n[svm]\nC = 10\n[data]\ntrain = points.csv\nlabel = y\ntest = points.csv\n' \
	>"$cli_tmp/svm-small.ini"
same_as_run svm-small "$cli_tmp/svm-small.ini" model.txt "svm-k2-f5-w0.cu svm_predict-k2-f5.cu" 3
expect_exit 2 "svm: built run --generations refused" "$cli_tmp/svm-small/svm-small" run --generations 3 \
	-o "$cli_tmp/svm-gens"
expect_output "svm: --generations message" "kind 'svm' has no generations"
if cmp -s "$cli_tmp/svm-small-built/predictions.csv" "$cli_tmp/svm-small-ref/predictions.csv"; then
	cli_ok "svm-small: same predictions.csv"
else
	cli_fail "svm-small: same predictions.csv" "differs"
fi
if [ -r data/uci/sonar.csv ]; then
	same_as_run mbp-sonar "$PWD/problems/mbp-sonar.ini" network.net mbp-mbp-sonar.cu 7 \
		--set mbp.epochs=100
	same_as_run svm "$PWD/problems/svm-sonar.ini" model.txt "svm-k2-f60-w0.cu svm_predict-k2-f60.cu" 3
else
	cli_fail "mbp-sonar, svm-sonar" "data/uci/sonar.csv missing (it ships with evoforge)"
fi

# Errors.
printf '[problem]\nkind = gp\nname = bad\n[gp]\npopulation = many\n' >"$cli_tmp/bad.ini"
expect_exit 2 "bad spec" "$evo" build "$cli_tmp/bad.ini" -o "$cli_tmp/bad"
expect_output "bad spec names file:line" "bad.ini:5"
expect_exit 2 "bad --arch" "$evo" build problems/sextic.ini -o "$cli_tmp/arch" --arch compute_90
expect_output "bad --arch message" "not of the form sm_XY"
expect_exit 0 "no ninja" env PATH=/nonexistent "$evo" build problems/sextic.ini -o "$cli_tmp/noninja"
expect_output "no ninja message" "ninja not found: sources written to"
if [ -s "$cli_tmp/noninja/sextic.c" ] && [ ! -e "$cli_tmp/noninja/sextic" ]; then
	cli_ok "no ninja: sources, no binary"; else cli_fail "no ninja: sources, no binary" "$(ls "$cli_tmp/noninja")"; fi
finish
