"""test_sklearn.py: the scikit-learn estimators (evoforge.estimators): every
check of sklearn's check_estimator, pickle and clone, n_features_in_ and
feature_names_in_, the same best as `evoforge run` on the same spec and seed
(CPU), predictions equal to `evoforge eval` on the same model, bad
arguments as ValueError/TypeError with the C message, time_limit, and gp's
expression_ read by SymPy."""
import json
import pickle
import subprocess

import numpy as np
import pytest

sklearn = pytest.importorskip("sklearn", reason="SKIP: no scikit-learn (tools/setup-python)")
from sklearn.base import clone  # noqa: E402
from sklearn.utils.estimator_checks import check_estimator  # noqa: E402

import evoforge  # noqa: E402

# Small settings: check_estimator fits each estimator a few hundred times.
FAST = {
    "SymbolicRegressor": dict(population_size=100, generations=10, random_state=1, n_jobs=1),
    "SymbolicClassifier": dict(population_size=100, generations=10, random_state=1, n_jobs=1),
    "SVC": dict(random_state=1, n_jobs=1),
    "MBPRegressor": dict(max_iter=100, random_state=1, n_jobs=1),
    "MBPClassifier": dict(max_iter=100, random_state=1, n_jobs=1),
}


def make(name, **kw):
    return getattr(evoforge, name)(**{**FAST[name], **kw})


def grid_data(rows=64, cols=3, seed=0):
    """Values exact in a float (multiples of 1/64), so a CSV file's text and
    the doubles in memory are the same floats."""
    rng = np.random.default_rng(seed)
    return rng.integers(-64, 65, size=(rows, cols)) / 64.0


def targets(X, kind):
    v = X[:, 0] * X[:, 1] + X[:, 2]
    if kind == "reg":
        return np.round(v * 64) / 64
    return np.where(v < -0.3, 0, np.where(v < 0.3, 1, 2))


def write_csv(path, X, y=None):
    cols = [f"x{j + 1}" for j in range(X.shape[1])] + ([] if y is None else ["y"])
    with open(path, "w") as f:
        f.write(",".join(cols) + "\n")
        for k, row in enumerate(X):
            vals = [repr(float(v)) for v in row] + ([] if y is None else [repr(float(y[k]))])
            f.write(",".join(vals) + "\n")


# The checks scikit-learn itself skips here (SkipTest), with its reasons; no
# check is listed in expected_failed_checks.
SKIPPED_BY_SKLEARN = {
    "check_array_api_input": "SCIPY_ARRAY_API is not set (the estimators take NumPy arrays)",
    # without pandas (tools/setup-python pins it) scikit-learn skips these too:
    "check_regressor_data_not_an_array": "pandas is not installed",
    "check_classifier_data_not_an_array": "pandas is not installed",
}


@pytest.mark.parametrize("name", list(FAST))
def test_check_estimator(name):
    """Every check of check_estimator passes, but for those scikit-learn
    skips for want of SCIPY_ARRAY_API or pandas."""
    results = check_estimator(make(name), on_fail=None)
    bad = [(r["check_name"], r["status"], repr(r["exception"])) for r in results
           if r["status"] != "passed" and not (r["status"] == "skipped" and
                                               r["check_name"] in SKIPPED_BY_SKLEARN)]
    assert len(results) > 40
    assert bad == []


@pytest.mark.parametrize("name,kind", [("SymbolicRegressor", "reg"), ("SymbolicClassifier", "cls"),
                                       ("SVC", "cls"), ("MBPRegressor", "reg"),
                                       ("MBPClassifier", "cls")])
def test_pickle_clone_features(name, kind):
    X = grid_data()
    y = targets(X, kind)
    if kind == "cls":
        y = np.array(["low", "mid", "high"])[y]     # labels of any type
    est = make(name).fit(X, y)
    assert est.n_features_in_ == 3
    p = est.predict(X)
    again = pickle.loads(pickle.dumps(est))         # no job handle inside: predicts alone
    assert np.array_equal(again.predict(X), p)
    twin = clone(est)
    assert twin.get_params() == est.get_params() and not hasattr(twin, "n_features_in_")
    assert np.array_equal(twin.fit(X, y).predict(X), p)   # same seed, same model
    if kind == "cls":
        assert set(p) <= {"low", "mid", "high"}
        assert est.score(X, y) > 0.5


def test_feature_names_in():
    pd = pytest.importorskip("pandas", reason="SKIP: no pandas for feature_names_in_")
    X = grid_data()
    df = pd.DataFrame(X, columns=["a", "b", "c"])
    est = make("SVC").fit(df, targets(X, "cls"))
    assert list(est.feature_names_in_) == ["a", "b", "c"]


def run_cli(cli, tmp_path, spec, seed):
    path = tmp_path / "spec.ini"
    path.write_text(spec)
    out = tmp_path / "out"
    subprocess.run([str(cli), "run", str(path), "--backend", "cpu", "--seed", str(seed),
                    "--threads", "1", "-o", str(out), "--quiet"], check=True, capture_output=True)
    return out / "result.json", json.loads((out / "result.json").read_text())


def eval_cli(cli, result, data, out):
    subprocess.run([str(cli), "eval", str(result), str(data), "-o", str(out), "--backend", "cpu"],
                   check=True, capture_output=True)
    lines = out.read_text().split("\n")
    if lines[0] and not lines[0][0].isdigit() and lines[0][0] != "-":
        lines = lines[1:]
    return np.array([float(v.split(",")[0]) for v in lines if v])


def test_gp_same_as_cli(cli, tmp_path):
    """The same spec and seed: the estimator's best is `evoforge run`'s, and
    its predictions are `evoforge eval`'s on the run's model."""
    X = grid_data(96)
    y = targets(X, "reg")
    est = make("SymbolicRegressor", random_state=5).fit(X, y)
    write_csv(tmp_path / "train.csv", X, y)
    spec = est._spec("mse").replace("memory:train", str(tmp_path / "train.csv"))
    result, res = run_cli(cli, tmp_path, spec, 5)
    assert res["best"]["prefix"] == est.result_["best"]["prefix"]
    assert res["best"]["fitness"] == est.fitness_
    Xn = grid_data(50, seed=9)
    write_csv(tmp_path / "new.csv", Xn)
    assert np.array_equal(eval_cli(cli, result, tmp_path / "new.csv", tmp_path / "p.csv"),
                          est.predict(Xn))


def test_svm_same_as_cli(cli, tmp_path):
    X = grid_data(96)
    y = targets(X, "cls")
    est = make("SVC", C=4.0, gamma=0.5, random_state=3).fit(X, y)
    write_csv(tmp_path / "train.csv", X, y)
    spec = ("[problem]\nkind = svm\nname = sklearn\n[svm]\nkernel = rbf\nC = 4.0\ngamma = 0.5\n"
            f"[data]\ntrain = {tmp_path / 'train.csv'}\nscale = none\n")
    result, res = run_cli(cli, tmp_path, spec, 3)
    for key in ("support_vectors", "objective", "rho", "train_accuracy", "iterations"):
        assert res[key] == est.result_[key], key
    Xn = grid_data(50, seed=9)
    write_csv(tmp_path / "new.csv", Xn, np.zeros(50))
    assert np.array_equal(eval_cli(cli, result, tmp_path / "new.csv", tmp_path / "p.csv"),
                          est.predict(Xn).astype(float))


def test_svc_batch_solver():
    """solver='batch' (the batched working-set solver, on the CPU here) reaches
    SMO's objective within 1e-4 relative and predicts the same classes."""
    X = grid_data(200, seed=4)
    y = targets(X, "cls")
    smo = make("SVC", C=4.0, gamma=0.5, solver="smo").fit(X, y)
    batch = make("SVC", C=4.0, gamma=0.5, solver="batch").fit(X, y)
    a, b = smo.result_["objective"], batch.result_["objective"]
    assert abs(a - b) <= 1e-4 * abs(a), (a, b)
    Xn = grid_data(80, seed=5)
    assert np.array_equal(smo.predict(Xn), batch.predict(Xn))


def test_mbp_predict_same_as_eval(cli, tmp_path):
    X = grid_data(96)
    est = make("MBPRegressor", max_iter=50).fit(X, targets(X, "reg"))
    (tmp_path / "m").mkdir()
    (tmp_path / "m" / "result.json").write_text(est._state["result_json"])
    (tmp_path / "m" / "network.net").write_bytes(est._state["files"]["network.net"])
    Xn = grid_data(50, seed=9)
    write_csv(tmp_path / "new.csv", Xn)
    got = eval_cli(cli, tmp_path / "m" / "result.json", tmp_path / "new.csv", tmp_path / "p.csv")
    assert np.array_equal(got, est.predict(Xn))


@pytest.mark.parametrize("name,kw,exc,text", [
    ("SymbolicRegressor", dict(population_size=1), ValueError, "[gp] population"),
    ("SymbolicRegressor", dict(function_set=("add", "nope")), ValueError, "nope"),
    ("SymbolicRegressor", dict(function_set=5), TypeError, "function_set"),
    ("SymbolicRegressor", dict(time_limit=-1), ValueError, "time_limit"),
    ("SVC", dict(C=-1.0), ValueError, "C"),
    ("SVC", dict(kernel="bogus"), ValueError, "kernel"),
    ("SVC", dict(class_weight=3), TypeError, "class_weight"),
    ("SVC", dict(solver="fastest"), ValueError, "solver"),
    ("MBPRegressor", dict(max_iter=-5), ValueError, "epochs"),
    ("MBPRegressor", dict(hidden_layer_sizes=("a",)), TypeError, "hidden_layer_sizes"),
    ("MBPClassifier", dict(n_jobs=0), ValueError, "n_jobs"),
])
def test_bad_arguments(name, kw, exc, text):
    X = grid_data()
    y = targets(X, "reg" if "Regressor" in name else "cls")
    with pytest.raises(exc) as info:
        make(name, **kw).fit(X, y)
    assert text in str(info.value)


def test_engine_message_kept():
    """An engine refusal carries the C message and status (EvoforgeInputError)."""
    X = grid_data()
    with pytest.raises(evoforge.EvoforgeInputError) as info:
        make("SymbolicRegressor", population_size=1).fit(X, targets(X, "reg"))
    assert info.value.status_name == "EVOFORGE_ERR_INPUT" and "(spec text)" in info.value.message


def test_time_limit_stops():
    X = grid_data()
    est = make("SymbolicRegressor", generations=10 ** 7, time_limit=0.3).fit(X, targets(X, "reg"))
    assert est.stopped_ and est.fit_seconds_ < 10
    assert est.predict(X).shape == (64,)


def test_expression_sympy():
    sympy = pytest.importorskip("sympy", reason="SKIP: no sympy (tools/setup-python)")
    X = grid_data()
    est = make("SymbolicRegressor", function_set=("add", "sub", "mul"), generations=20,
               population_size=300).fit(X, targets(X, "reg"))
    expr = sympy.sympify(est.expression_)
    f = sympy.lambdify(sympy.symbols("x1 x2 x3"), expr)
    got = np.array([f(*row) for row in X], dtype=float)
    assert np.allclose(got, est.predict(X), rtol=1e-4, atol=1e-4)
    cls = make("SymbolicClassifier").fit(X, targets(X, "cls"))
    exprs = cls.expression_ if isinstance(cls.expression_, list) else [cls.expression_]
    for e in exprs:
        sympy.sympify(e, locals={"protdiv": sympy.Function("protdiv")})
