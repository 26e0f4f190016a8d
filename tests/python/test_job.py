"""test_job.py: evoforge.Job over the C API: loading, the same best as the
CLI for the same spec and seed, errors as exceptions, verbose, Ctrl-C."""
import json
import os
import signal
import subprocess
import sys
import threading
import time

import pytest

import evoforge

SPEC = """[problem]
kind = de
name = py-sphere
seed = 1
[de]
function = rastrigin
dim = 10
population = 50
max_evals = 20000
report_every = 50
"""


def test_import_and_version():
    assert evoforge.__version__.count(".") == 2
    assert evoforge.library_path.endswith("libevoforge.so")


def test_bad_library_path_is_an_import_error(root):
    env = dict(os.environ, EVOFORGE_LIB="/nonexistent/libevoforge.so", PYTHONPATH=str(root / "python"))
    p = subprocess.run([sys.executable, "-c", "import evoforge"], env=env, capture_output=True, text=True)
    assert p.returncode == 1
    assert "ImportError: evoforge: cannot load libevoforge.so; tried /nonexistent/libevoforge.so" in p.stderr
    assert "EVOFORGE_LIB" in p.stderr


def test_job_equals_cli(cli, tmp_path):
    spec = tmp_path / "spec.ini"
    spec.write_text(SPEC)
    out = tmp_path / "cli"
    subprocess.run([str(cli), "run", str(spec), "--seed", "5", "--backend", "cpu", "-q", "-o", str(out)],
                   check=True)
    cli_best = json.loads((out / "result.json").read_text())["best_min"]
    with evoforge.Job(SPEC, backend="cpu", seed=5) as job:
        job.run()
        assert job.kind == "de"
        assert job.best == cli_best
        assert job.result["best_min"] == cli_best
        assert job.result["evaluations"] == 20000
        assert not job.stopped
    with evoforge.Job.from_file(spec, backend="cpu", seed=5) as job:
        assert job.run().best == cli_best


def test_set_and_output_dir(tmp_path):
    with evoforge.Job(SPEC, backend="cpu", seed=2, output_dir=tmp_path / "o") as job:
        job.set("de.max_evals", 5000).set("de.strategy", "jade").run()
        assert job.result["strategy"] == "jade"
        assert job.number("evaluations") <= 5000
        assert os.path.samefile(job.output_dir, tmp_path / "o")
    assert (tmp_path / "o" / "result.json").is_file()


def test_errors_carry_the_c_message():
    with pytest.raises(ValueError, match=r"\(spec text\):2") as e:
        evoforge.Job("[problem]\nkind de\n")
    assert isinstance(e.value, evoforge.EvoforgeError)
    assert e.value.status_name == "EVOFORGE_ERR_INPUT"
    with evoforge.Job(SPEC, backend="cpu") as job:
        job.set("de.populaton", 3)
        with pytest.raises(ValueError, match="populaton"):
            job.run()
    with evoforge.Job(SPEC) as job:
        with pytest.raises(evoforge.EvoforgeError) as e:
            job.result
        assert e.value.status_name == "EVOFORGE_ERR_STATE"
        with pytest.raises(ValueError, match="seed"):
            job.set_seed(-1)
    with pytest.raises(ValueError, match="closed"):
        job.best
    with pytest.raises(ValueError, match="backend"):
        evoforge.Job(SPEC, backend="tpu")


def test_verbose_prints_progress(capsys):
    with evoforge.Job(SPEC, backend="cpu", seed=1, verbose=True) as job:
        job.run()
    out = capsys.readouterr().out
    assert "de: gen 50/" in out


def test_ctrl_c_stops_cleanly_with_the_best_so_far():
    if signal.getsignal(signal.SIGINT) is not signal.default_int_handler:
        pytest.skip("SKIP: SIGINT is not Python's default handler here")
    spec = SPEC.replace("max_evals = 20000", "max_evals = 0\ngenerations = 100000000")
    timer = threading.Timer(0.5, os.kill, (os.getpid(), signal.SIGINT))
    t0 = time.monotonic()
    with evoforge.Job(spec, backend="cpu", seed=1) as job:
        timer.start()
        with pytest.warns(evoforge.EvoforgeWarning, match="stopped by the progress callback"):
            job.run()
        took = time.monotonic() - t0
        assert job.stopped and job.interrupted_by_user
        assert job.result["interrupted"] is True
        assert job.result["stopped_by"] == "callback"
        assert job.best < 200 and job.result["evaluations"] > 0
    assert took < 30
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler
