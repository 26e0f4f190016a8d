"""test_simplify_sympy.py: result.json's "simplified" formula (gp_simplify.h)
parses with SymPy and equals the evolved program: sympy.simplify(evolved -
simplified), with the protected operations as named functions, evaluates to ~0
at random points. Skipped (with the reason) when sympy is not importable."""
import json
import math
import random
import subprocess

import pytest

sympy = pytest.importorskip("sympy", reason="SKIP: sympy not importable (tools/setup-python)")

EPS = 9.99999997e-07          # 1e-6f, gp_ops.h's GP_DIV_EPS


def _protdiv(a, b):
    return 1.0 if abs(b) < EPS else a / b


def _protlog(a):
    return 0.0 if abs(a) < EPS else math.log(abs(a))


NUMERIC = {
    "protdiv": _protdiv, "protlog": _protlog, "protexp": lambda a: math.exp(min(a, 80.0)),
    "gt": lambda a, b: float(a > b), "lt": lambda a, b: float(a < b),
    "eq": lambda a, b: float(a == b), "AND": lambda a, b: float(a != 0 and b != 0),
    "OR": lambda a, b: float(a != 0 or b != 0), "IF": lambda a, b, c: b if a != 0 else c,
    "sin": math.sin, "cos": math.cos, "exp": math.exp, "log": math.log,
}
NAMES = {"+": "Add", "-": "Sub", "*": "Mul", "/": "protdiv", "log": "protlog", "exp": "protexp",
         "sin": "sin", "cos": "cos"}


def _sympy_of_prefix(tokens, x):
    """The evolved program (result.json's exact prefix text) as a SymPy expression."""
    tok = tokens.pop(0)
    if tok.startswith("$"):
        return x
    if tok not in NAMES:
        return sympy.Float(float.fromhex(tok) if "0x" in tok else float(tok))
    name = NAMES[tok]
    if name in ("Add", "Sub", "Mul"):
        a = _sympy_of_prefix(tokens, x)
        b = _sympy_of_prefix(tokens, x)
        return a + b if name == "Add" else a - b if name == "Sub" else a * b
    if name in ("sin", "cos"):
        return getattr(sympy, name)(_sympy_of_prefix(tokens, x))
    args = [_sympy_of_prefix(tokens, x) for _ in range(2 if name == "protdiv" else 1)]
    return sympy.Function(name)(*args)


def _run(cli, root, tmp_path, name, *sets):
    out = tmp_path / name
    cmd = [str(cli), "run", str(root / "problems" / "sextic.ini"), "--backend", "cpu", "-q",
           "-o", str(out), "--set", "gp.generations=10", "--set", "gp.population=300"]
    for s in sets:
        cmd += ["--set", s]
    subprocess.run(cmd, check=True, capture_output=True, timeout=300)
    return json.loads((out / "result.json").read_text())["best"]


@pytest.mark.parametrize("sets", [(), ("gp.functions=+ - * / sin cos log exp",
                                       "gp.constants=-1 1")])
def test_simplified_equals_evolved(cli, root, tmp_path, sets):
    best = _run(cli, root, tmp_path, "r%d" % len(sets), *sets)
    x = sympy.Symbol("x")
    funcs = {k: sympy.Function(k) for k in ("protdiv", "protlog", "protexp")}
    simplified = sympy.parse_expr(best["simplified"], local_dict=dict(funcs, x=x))
    evolved = _sympy_of_prefix(best["prefix"].split(), x)
    assert best["simplified_size"] <= best["size"]
    diff = sympy.simplify(evolved - simplified)
    f = sympy.lambdify(x, diff, modules=[NUMERIC, "math"])
    rng = random.Random(7)
    for _ in range(200):
        xv = rng.uniform(-1, 1)
        scale = 1 + abs(float(sympy.lambdify(x, evolved, modules=[NUMERIC, "math"])(xv)))
        assert abs(f(xv)) <= 1e-6 * scale, (xv, best["simplified"], diff)
