"""test_cli_same.py: the same spec and seed through `evoforge run` (the
CLI, --backend cpu) and through evoforge.Job (from the spec text and from
the spec file, backend cpu) give the same results for kinds de, aco and mbp
(gp and svm: test_sklearn.py): every value of result.json but the timings
and the spec's name, the history's values, aco's tour and mbp's
predictions."""
import csv
import json
import subprocess

import pytest

import evoforge

THREADS = 2

# (id, spec text, --set overrides given to both doors)
CASES = [
    ("de-rastrigin-shift", """[problem]
kind = de
name = same-de
[de]
function = rastrigin
dim = 10
shift = random
problems = 3
population = 40
max_evals = 12000
""", {}),
    ("de-lshade-rosenbrock", """[problem]
kind = de
name = same-de-lshade
[de]
function = rosenbrock
dim = 8
strategy = lshade
max_evals = 15000
""", {"de.bounds": "clip"}),
    ("de-c-source", """[problem]
kind = de
name = same-de-user
[de]
function = user
dim = 6
lower = -5
upper = 5
generations = 80
population = 30
[objective]
code = float s = 0.0f;
  for (int j = 0; j < n; j++) s += (x[j] - 1.5f) * (x[j] - 1.5f) + fabsf(x[j]);
  return s;
""", {}),
    ("aco-random-2opt", """[problem]
kind = aco
name = same-aco
[data]
random = 60
side = 1000
[aco]
ants = 32
iterations = 30
candidates = 10
local_search = 2opt
""", {}),
    ("aco-random-none", """[problem]
kind = aco
name = same-aco-none
[data]
random = 80
[aco]
ants = 16
iterations = 20
local_search = none
""", {"aco.rho": "0.2"}),
    ("mbp-xor-online", """[problem]
kind = mbp
name = same-mbp-xor
[data]
source = xor
[mbp]
hidden = 4
mode = online
epochs = 3000
target_rms = 0.05
""", {}),
    ("mbp-sonar-batch", """[problem]
kind = mbp
name = same-mbp-sonar
[data]
source = csv
file = uci/sonar.csv
label = Class
split = alternate
[mbp]
hidden = 6
mode = batch
epochs = 150
""", {"mbp.report_every": "50"}),
]

# result.json's keys that are not results: timings, rates, compile counts,
# and the spec's name (a path for the CLI, "(spec text)" for text).
VOLATILE = {"time_s", "startup_s", "compile_s", "compiles", "kernels_cached", "compiles_in_run",
            "evals_per_s", "ms_per_iteration", "tours_per_s", "epochs_per_min", "spec"}


def strip(value):
    if isinstance(value, dict):
        return {k: strip(v) for k, v in value.items() if k not in VOLATILE}
    if isinstance(value, list):
        return [strip(v) for v in value]
    return value


def history(folder):
    """history.csv's rows without its timing columns."""
    with open(folder / "history.csv", newline="") as f:
        rows = list(csv.reader(f))
    keep = [k for k, name in enumerate(rows[0]) if not (name.startswith("ms_") or name.endswith("_s"))]
    return [[r[k] for k in keep] for r in rows]


def compare_folders(cli_dir, py_dir, kind):
    assert history(cli_dir) == history(py_dir)
    for name in {"aco": ["best.tour"], "mbp": ["predictions.csv", "network.net"]}.get(kind, []):
        assert (cli_dir / name).read_bytes() == (py_dir / name).read_bytes(), name


@pytest.mark.parametrize("case,spec,sets", CASES, ids=[c[0] for c in CASES])
def test_same_results_as_the_cli(cli, root, tmp_path, case, spec, sets):
    kind = case.split("-")[0]
    seed = 7
    path = tmp_path / "spec.ini"
    path.write_text(spec)
    cmd = [str(cli), "run", str(path), "--backend", "cpu", "--threads", str(THREADS), "--seed",
           str(seed), "-q", "-o", str(tmp_path / "cli")]
    for key, value in sets.items():
        cmd += ["--set", f"{key}={value}"]
    subprocess.run(cmd, check=True, cwd=root)
    want = json.loads((tmp_path / "cli" / "result.json").read_text())
    assert want["kind"] == kind and want["seed"] == seed
    headline = {"de": "best_min", "aco": "best_length", "mbp": "best_train_rms"}[kind]
    for door, job in (("text", evoforge.Job(spec, backend="cpu", seed=seed, threads=THREADS,
                                            output_dir=tmp_path / "text")),
                      ("file", evoforge.Job.from_file(path, backend="cpu", seed=seed,
                                                      threads=THREADS,
                                                      output_dir=tmp_path / "file"))):
        with job:
            for key, value in sets.items():
                job.set(key, value)
            job.run()
            got = job.result
            assert job.kind == kind and not job.stopped
            assert job.best == want[headline], f"{door}: {headline}"
            assert job.number(headline) == want[headline]
            assert strip(got) == strip(want), door
        compare_folders(tmp_path / "cli", tmp_path / door, kind)
