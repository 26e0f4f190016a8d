"""test_minimize.py: evoforge.minimize / minimize_many (kind de) with SciPy's
conventions: sane and deterministic results, C-source objectives, errors,
and no worse than SciPy's differential_evolution at equal evaluations."""
import math
import statistics

import pytest

import evoforge

STYBLINSKI_TANG = """float s = 0.0f;
for (int j = 0; j < n; j++) {
  float t = x[j] * x[j];
  s += t * t - 16.0f * t + 5.0f * x[j];   /* ; after white space is fine here */
}
return 0.5f * s;
"""


def test_rastrigin_is_sane_and_deterministic():
    kw = dict(bounds=[(-5.12, 5.12)] * 10, seed=1, maxfev=20000, strategy="lshade")
    a = evoforge.minimize("rastrigin", **kw)
    b = evoforge.minimize("rastrigin", **kw)
    c = evoforge.minimize("rastrigin", **dict(kw, seed=2))
    assert a.fun < 1.0 and a.success and a.nfev <= 20000 and a.nit > 0
    assert len(a.x) == 10 and all(-5.12 <= v <= 5.12 for v in a.x)
    assert a.fun == b.fun and list(a.x) == list(b.x)
    assert c.fun != a.fun or list(c.x) != list(a.x)
    # fun is the objective at x (float rounding aside)
    f = 10 * 10 + sum(v * v - 10 * math.cos(2 * math.pi * v) for v in a.x)
    assert abs(f - a.fun) < 1e-3


def test_target_maxiter_and_strategy_names():
    r = evoforge.minimize("sphere", [(-5, 5)] * 5, seed=3, target=1e-6, strategy="best1bin")
    assert r.success and r.fun <= 1e-6 and r.message == "the target was reached"
    r = evoforge.minimize("sphere", [(-5, 5)] * 5, seed=3, maxiter=7, popsize=4)
    assert r.nit == 7 and r.nfev == 8 * 20


def test_c_source_objective():
    r = evoforge.minimize(STYBLINSKI_TANG, [(-5, 5)] * 5, seed=1, maxfev=30000, strategy="jade")
    assert abs(r.fun - (-39.16616570377142 * 5)) < 1e-2
    assert all(abs(v + 2.903534) < 0.02 for v in r.x)
    r = evoforge.minimize(STYBLINSKI_TANG, [(-5, 5)] * 5, seed=1, maxfev=30000, strategy="jade",
                          optimum=-39.16616570377142 * 5, target=1e-2)
    assert r.success and r.nfev < 30000


def test_minimize_many():
    rs = evoforge.minimize_many("rastrigin", [(-5.12, 5.12)] * 10, 4, seed=1, maxfev=20000,
                                strategy="lshade", shift=True)
    assert len(rs) == 4 and [r.problem for r in rs] == [0, 1, 2, 3]
    assert all(r.fun < 1e-3 for r in rs)
    assert len({tuple(r.x) for r in rs}) == 4   # each its own shifted optimum


def test_cec2017_by_name():
    r = evoforge.minimize("cec2017:1", [(-100, 100)] * 10, seed=1, maxfev=50000, strategy="lshade")
    assert r.fun < 1e-3   # errors F(x) - F*


def test_errors():
    with pytest.raises(ValueError, match=r"\[de\] strategy: expected one of rand/1/bin.*got 'foo'") as e:
        evoforge.minimize("sphere", [(-1, 1)] * 3, strategy="foo")
    assert isinstance(e.value, evoforge.EvoforgeError)
    with pytest.raises(ValueError, match="one box for every dimension"):
        evoforge.minimize("sphere", [(-1, 1), (-2, 2)])
    with pytest.raises(TypeError, match="a Python callable is for minimize"):
        evoforge.minimize_many(lambda x: sum(x), [(-1, 1)] * 3, 2)   # callables: test_callback.py
    with pytest.raises(ValueError, match="does not compile"):
        evoforge.minimize("return x[0]", [(-1, 1)] * 3, maxfev=1000)
    with pytest.raises(ValueError, match="function"):
        evoforge.minimize("nosuchfunction", [(-1, 1)] * 3)
    with pytest.raises(ValueError, match="polish=True needs fun as a Python callable"):
        evoforge.minimize("sphere", [(-1, 1)] * 3, polish=True)   # more: test_callback.py


def test_no_worse_than_scipy_at_equal_evaluations():
    pytest.importorskip("scipy", reason="SKIP: SciPy not installed (tools/setup-python)")
    np = pytest.importorskip("numpy")
    from scipy.optimize import differential_evolution

    def sphere(X):
        return (X * X).sum(axis=0)

    def rastrigin(X):
        return 10 * X.shape[0] + (X * X - 10 * np.cos(2 * np.pi * X)).sum(axis=0)

    dim, popsize, gens = 10, 15, 132   # SciPy evaluates (gens + 1) * popsize * dim
    fe = (gens + 1) * popsize * dim
    bounds = [(-5.12, 5.12)] * dim
    for name, f in (("sphere", sphere), ("rastrigin", rastrigin)):
        ours = statistics.median(
            evoforge.minimize(name, bounds, seed=s, maxfev=fe, strategy="best1bin",
                              popsize=popsize).fun for s in range(1, 6))
        theirs = statistics.median(
            differential_evolution(f, bounds, strategy="best1bin", popsize=popsize, maxiter=gens,
                                   tol=0, seed=s, polish=False, vectorized=True,
                                   updating="deferred").fun for s in range(1, 6))
        assert ours <= theirs, f"{name}: evoforge median {ours}, SciPy median {theirs}"


def test_c_source_is_compiled_once(tmp_path, monkeypatch):
    """The same C source at every call is the same file, so de's compiled
    objective cache answers the second call (no new shared object)."""
    monkeypatch.setenv("EVOFORGE_CACHE", str(tmp_path))
    src = STYBLINSKI_TANG.replace("16.0f", "15.0f")
    a = evoforge.minimize(src, [(-5, 5)] * 3, seed=1, maxfev=2000)
    b = evoforge.minimize(src, [(-5, 5)] * 3, seed=1, maxfev=2000)
    assert a.fun == b.fun
    assert len(list(tmp_path.glob("de-user-*.so"))) == 1
    evoforge.minimize(src + "/* another */\n", [(-5, 5)] * 3, seed=1, maxfev=2000)
    assert len(list(tmp_path.glob("de-user-*.so"))) == 2
