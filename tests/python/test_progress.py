"""test_progress.py: verbose= prints the CLI's own progress lines (through
the C API's log callback, with print to sys.stdout) for every kind and for
minimize, tsp.solve and the estimators; Ctrl-C (SIGINT from a timer thread)
stops Job.run, minimize, tsp.solve and an estimator's fit cleanly with the
best so far, marked stopped/interrupted; time_limit= stops without a
warning; the SIGINT handler is Python's again afterwards."""
import contextlib
import io
import os
import re
import shutil
import signal
import subprocess
import threading
import time
import warnings

import pytest

import evoforge

SPECS = {
    "de": "[problem]\nkind = de\nname = p-de\n[de]\nfunction = rastrigin\ndim = 10\n"
          "population = 40\nmax_evals = 8000\nreport_every = 40\n",
    "aco": "[problem]\nkind = aco\nname = p-aco\n[data]\nrandom = 50\n[aco]\nants = 16\n"
           "iterations = 30\nreport_every = 10\n",
    "mbp": "[problem]\nkind = mbp\nname = p-mbp\n[data]\nsource = xor\n[mbp]\nhidden = 4\n"
           "mode = online\nepochs = 3000\nreport_every = 500\n",
    "gp": "[problem]\nkind = gp\nname = p-gp\n[gp]\npopulation = 100\ngenerations = 4\n"
          "functions = + - * /\n[data]\nsource = sextic\ncases = 50\n",
    "svm": "[problem]\nkind = svm\nname = p-svm\n[svm]\nC = 10\n[data]\ntrain = uci/sonar.csv\n"
           "label = Class\n",
}

# A number followed by a rate or time unit ("4.67M evals/s", "1.885 ms/iter",
# "0.091 s", "26706238 epochs/min", "44.7G GPop/s"): these differ between runs.
TIMING = re.compile(r"\d+(\.\d+)?(e[+-]?\d+)?[kMG]?(?= ?(s\b|ms\b|[A-Za-z]+/(s|min|iter)\b|ms/iter\b"
                    r"|wall\b|run\b|evaluating\b|host\b))")


def masked(text):
    return [TIMING.sub("#", line) for line in text.splitlines() if line.strip()]


@pytest.mark.parametrize("kind", list(SPECS))
def test_verbose_prints_the_cli_lines(cli, root, tmp_path, kind):
    """Job(verbose=True) prints what `evoforge run` prints on stdout (the
    same results folder, so the "wrote ..." lines match; timings masked);
    the CLI's own closing "plot: ..." hint is the CLI's, not the engine's."""
    spec = tmp_path / "spec.ini"
    spec.write_text(SPECS[kind])
    out = tmp_path / "out"
    p = subprocess.run([str(cli), "run", str(spec), "--backend", "cpu", "--threads", "2", "--seed",
                        "4", "-o", str(out)], cwd=root, capture_output=True, text=True, check=True)
    want = [line for line in masked(p.stdout) if not line.startswith("plot: ")]
    shutil.rmtree(out)
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):   # what a notebook does: sys.stdout replaced
        with evoforge.Job(SPECS[kind], backend="cpu", threads=2, seed=4, output_dir=out,
                          verbose=True) as job:
            job.run()
    got = masked(buf.getvalue())
    assert len(want) >= 3
    assert got == want


def test_verbose_off_prints_nothing(capfd):
    with evoforge.Job(SPECS["de"], backend="cpu", seed=1) as job:
        job.run()
    assert capfd.readouterr() == ("", "")


def test_minimize_tsp_and_estimators_verbose(capsys):
    evoforge.minimize("sphere", [(-5, 5)] * 4, maxfev=2000, seed=1, verbose=True, report_every=10)
    out = capsys.readouterr().out
    assert re.search(r"^de: gen 10/\d+  best ", out, re.M) and "de: best " in out
    evoforge.tsp.solve(coords=[(i * 7 % 13, i * 5 % 11) for i in range(12)], iterations=20,
                       seed=1, verbose=True, report_every=10)
    assert re.search(r"^aco: iter 10/20  best ", capsys.readouterr().out, re.M)
    np = pytest.importorskip("numpy")
    pytest.importorskip("sklearn", reason="SKIP: no scikit-learn (tools/setup-python)")
    X = np.linspace(-1, 1, 40).reshape(-1, 1)
    evoforge.SymbolicRegressor(population_size=50, generations=3, random_state=1,
                               verbose=True).fit(X, X[:, 0] ** 2)
    out = capsys.readouterr().out
    assert re.search(r"^gen +3  best ", out, re.M) and "done after" in out
    evoforge.MBPRegressor(max_iter=50, random_state=1, verbose=True).fit(X, X[:, 0] ** 2)
    assert "mbp: best network" in capsys.readouterr().out


# ---- Ctrl-C -------------------------------------------------------------------


@contextlib.contextmanager
def sigint_after(seconds):
    """SIGINT to this process from a timer thread after `seconds` (what
    Ctrl-C in a terminal or a notebook's interrupt does)."""
    if threading.current_thread() is not threading.main_thread() or \
            signal.getsignal(signal.SIGINT) is not signal.default_int_handler:
        pytest.skip("SKIP: not the main thread, or SIGINT is not Python's default handler")
    timer = threading.Timer(seconds, os.kill, (os.getpid(), signal.SIGINT))
    timer.start()
    t0 = time.monotonic()
    try:
        yield t0
    finally:
        timer.cancel()
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler


def test_ctrl_c_minimize_returns_the_best_so_far():
    with sigint_after(0.5) as t0:
        with pytest.warns(evoforge.EvoforgeWarning, match=r"interrupted \(Ctrl-C, SIGINT\)"):
            r = evoforge.minimize("rastrigin", [(-5.12, 5.12)] * 20, maxiter=100_000_000,
                                  maxfev=0, seed=1, popsize=5)
        took = time.monotonic() - t0
    assert took < 20
    assert not r.success and r.message == "stopped by Ctrl-C: the best so far"
    assert 0 < r.nit < 100_000_000 and r.nfev > 0
    assert len(r.x) == 20 and r.fun < 400   # a real best, not a placeholder


def test_ctrl_c_job_marks_the_result():
    spec = SPECS["aco"].replace("iterations = 30", "iterations = 100000000").replace(
        "report_every = 10", "report_every = 1")
    with sigint_after(0.5):
        with evoforge.Job(spec, backend="cpu", seed=1) as job:
            with warnings.catch_warnings(record=True) as w:
                warnings.simplefilter("always")
                job.run()
            assert job.stopped and job.interrupted_by_user and job.stop_reason == "interrupt"
            assert job.result["interrupted"] is True and job.result["stopped_by"] == "callback"
            assert 0 < job.result["iterations"] < 100000000 and job.best > 0
            assert os.path.isfile(os.path.join(job.output_dir, "best.tour"))
    assert any("interrupted (Ctrl-C" in str(x.message) for x in w)


def test_ctrl_c_tsp_solve_returns_a_tour():
    coords = [((i * 37) % 101, (i * 53) % 97) for i in range(40)]
    with sigint_after(0.5):
        with pytest.warns(evoforge.EvoforgeWarning, match="interrupted"):
            tour, length = evoforge.tsp.solve(coords=coords, iterations=100000000, seed=1,
                                              report_every=1)
    assert sorted(tour) == list(range(40)) and length == evoforge.tsp.length(coords, tour)


def test_ctrl_c_estimator_fit_keeps_the_model():
    """Ctrl-C during fit: fitted with the best so far (stopped_), even with a
    time_limit set (its deadline and Ctrl-C share the progress callback)."""
    np = pytest.importorskip("numpy")
    pytest.importorskip("sklearn", reason="SKIP: no scikit-learn (tools/setup-python)")
    X = np.linspace(-1, 1, 60).reshape(-1, 1)
    y = X[:, 0] ** 3 - X[:, 0]
    m = evoforge.SymbolicRegressor(population_size=200, generations=100_000_000, time_limit=600,
                                   random_state=1, n_jobs=1)
    with sigint_after(0.5) as t0:
        with pytest.warns(evoforge.EvoforgeWarning, match="interrupted"):
            m.fit(X, y)
        took = time.monotonic() - t0
    assert took < 20 and m.stopped_
    assert m.result_["totals"]["interrupted"] is True   # gp marks its "totals"
    assert 0 < m.n_iter_ < 100_000_000
    assert m.predict(X).shape == (60,) and np.isfinite(m.predict(X)).all()


def test_time_limit_stops_without_a_warning():
    spec = SPECS["de"].replace("max_evals = 8000", "max_evals = 0\ngenerations = 100000000")
    with warnings.catch_warnings():
        warnings.simplefilter("error")   # any warning fails
        with evoforge.Job(spec, backend="cpu", seed=1, time_limit=0.3) as job:
            t0 = time.monotonic()
            job.run()
            assert time.monotonic() - t0 < 20
            assert job.stopped and job.stop_reason == "time_limit" and not job.interrupted_by_user
    with pytest.raises(ValueError, match="time_limit"):
        evoforge.Job(spec, time_limit=-1)


def test_sigint_outside_a_run_is_still_keyboardinterrupt():
    with evoforge.Job(SPECS["de"], backend="cpu", seed=1) as job:
        job.run()
    with pytest.raises(KeyboardInterrupt):
        os.kill(os.getpid(), signal.SIGINT)
        time.sleep(1)
