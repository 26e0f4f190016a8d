"""optimize.py: evoforge.minimize and minimize_many, kind de behind SciPy
differential_evolution's conventions (docs/python.md)."""
import hashlib
import math
import os
import re
import secrets
import stat
import tempfile
import warnings

from . import _lib
from ._errors import EvoforgeError
from .job import Job

# SciPy's strategy names -> de.strategy; others are passed on as they are
# (evoforge's own: rand/1/bin, best/1/bin, jade, shade, lshade, jso, sade, code).
_STRATEGIES = {"rand1bin": "rand/1/bin", "best1bin": "best/1/bin"}
_NAME = re.compile(r"^[A-Za-z][A-Za-z0-9_]*(:[0-9]+)?$")

try:   # SciPy's result type when SciPy is there
    from scipy.optimize import OptimizeResult
except ImportError:   # pragma: no cover - exercised only without SciPy
    class OptimizeResult(dict):
        """A dict whose keys are also attributes (SciPy's OptimizeResult's shape)."""

        def __getattr__(self, name):
            try:
                return self[name]
            except KeyError as e:
                raise AttributeError(name) from e

        __setattr__ = dict.__setitem__
        __delattr__ = dict.__delitem__

        def __repr__(self):
            return "\n".join(f"{k:>8}: {v!r}" for k, v in self.items())


def _box(bounds):
    """(dim, lower, upper) from [(lo, hi)] * D or a scipy Bounds; de has one
    box for every dimension, so every row must be the same."""
    if hasattr(bounds, "lb") and hasattr(bounds, "ub"):   # scipy.optimize.Bounds
        lb, ub = list(bounds.lb), list(bounds.ub)
        rows = list(zip(lb, ub))
    else:
        try:
            rows = [tuple(r) for r in bounds]
        except TypeError:
            raise ValueError("bounds: expected a sequence of (min, max) pairs or a "
                             f"scipy.optimize.Bounds, got {bounds!r}") from None
    if not rows or any(len(r) != 2 for r in rows):
        raise ValueError(f"bounds: expected one (min, max) pair per dimension, got {bounds!r}")
    lo, hi = float(rows[0][0]), float(rows[0][1])
    for k, (a, b) in enumerate(rows):
        if float(a) != lo or float(b) != hi:
            raise ValueError(f"bounds: evoforge's de searches one box for every dimension; "
                             f"dimension {k} is ({a}, {b}), dimension 0 ({lo}, {hi}). Rescale "
                             "the variables to a common box in the objective.")
    if not (math.isfinite(lo) and math.isfinite(hi) and lo < hi):
        raise ValueError(f"bounds: expected finite min < max, got ({lo}, {hi})")
    return len(rows), lo, hi


class _HostObjective:
    """A Python callable as de's objective callback (evoforge_job_set_objective,
    `function = callback`): called by the engine once per population with X
    (np x dim doubles, row-major). vectorized: fun(x, *args) once with x of
    shape (dim, np) -- SciPy's (N, S) -- returning np values; else fun(x, *args)
    per individual (x of shape (dim,)) returning a number. An exception in fun
    (a wrong shape included) is kept, the callback returns 1 (the engine stops
    the run with an error) and _run raises it again after the run."""

    def __init__(self, fun, args, vectorized):
        import numpy
        self._numpy = numpy
        self.fun, self.args, self.vectorized = fun, tuple(args), bool(vectorized)
        self.error = None
        self.nfev = 0
        self.best_x, self.best_f = None, math.inf   # the lowest value seen (float-rounded)
        self.c = _lib.OBJECTIVE_FN(self._call)

    def _call(self, X, np_, dim, fx, user):
        try:
            self._evaluate(X, np_, dim, fx)
            self._note_best(X, np_, dim, fx)
            return 0
        except BaseException as e:   # never let an exception cross into C
            self.error = e
            return 1

    def _evaluate(self, X, S, N, fx):
        numpy = self._numpy
        x = numpy.ctypeslib.as_array(X, shape=(S, N)).copy()   # ours: fun may keep it
        out = numpy.ctypeslib.as_array(fx, shape=(S,))
        if self.vectorized:
            v = numpy.asarray(self.fun(x.T, *self.args), dtype=float)
            if v.shape != (S,):
                raise ValueError(f"evoforge.minimize: fun (vectorized=True) got x of shape "
                                 f"({N}, {S}) and must return shape ({S},), returned shape "
                                 f"{v.shape}")
            out[:] = v
            return
        for i in range(S):
            v = numpy.asarray(self.fun(x[i], *self.args), dtype=float)
            if v.size != 1:
                raise ValueError(f"evoforge.minimize: fun must return a number for x of shape "
                                 f"({N},), returned shape {v.shape} (vectorized=True passes "
                                 "the whole population)")
            out[i] = v.reshape(())


    def _note_best(self, X, S, N, fx):
        """The best individual so far, as the engine sees it: the values
        rounded to float, NaN the worst, the first of equal ones (the
        selection is elitist, so this is the population's best)."""
        numpy = self._numpy
        self.nfev += S
        f = numpy.ctypeslib.as_array(fx, shape=(S,)).astype(numpy.float32)
        f = numpy.where(numpy.isnan(f), numpy.float32(numpy.inf), f)
        i = int(numpy.argmin(f))
        if f[i] < self.best_f:
            self.best_f = float(f[i])
            self.best_x = numpy.ctypeslib.as_array(X, shape=(S, N))[i].copy()

    def value(self, x):
        """fun at one point x (shape (dim,)), as a float: for polish."""
        numpy = self._numpy
        if self.vectorized:
            return float(numpy.asarray(self.fun(numpy.asarray(x, dtype=float)[:, None], *self.args),
                                       dtype=float).reshape(-1)[0])
        return float(numpy.asarray(self.fun(numpy.asarray(x, dtype=float), *self.args),
                                   dtype=float).reshape(()))


class _Progress:
    """SciPy's callback= on de's per-generation progress lines (report_every
    = 1; Job.set_step_hook): called once per generation after the initial
    population with the best so far, as callback(intermediate_result) (an
    OptimizeResult: x, fun, nit, nfev, convergence) when its one parameter
    is named intermediate_result, else callback(xk, convergence=...) --
    SciPy's two forms. A true return stops the run (its best kept).
    convergence is NaN: de has no population-spread measure."""

    _LINE = re.compile(r"^de: gen (\d+)/")

    def __init__(self, callback, host):
        import inspect
        self.callback, self.host, self.last = callback, host, 0
        try:
            names = list(inspect.signature(callback).parameters)
        except (TypeError, ValueError):
            names = []
        self.new_style = names == ["intermediate_result"]
        self.stopped = False

    def __call__(self, line):
        m = self._LINE.match(line)
        if not m or self.stopped or int(m.group(1)) <= self.last or self.host.best_x is None:
            return False
        self.last = int(m.group(1))
        x, conv = self.host.best_x.copy(), math.nan
        if self.new_style:
            r = OptimizeResult(x=x, fun=self.host.best_f, nit=self.last, nfev=self.host.nfev,
                               convergence=conv)
            stop = self.callback(r)
        else:
            stop = self.callback(x, convergence=conv)
        self.stopped = bool(stop)
        return self.stopped


def _objective(fun, lines):
    """Adds the objective's keys to lines; returns None (a built-in or a
    callable) or (C file, whether to remove it after the run)."""
    if callable(fun):
        lines.append("function = callback")
        return None
    if not isinstance(fun, str):
        raise TypeError(f"evoforge.minimize: fun: expected a function name or C source, got {fun!r}")
    if _NAME.match(fun.strip()):
        name, _, number = fun.strip().partition(":")
        lines.append(f"function = {name}")
        if number:
            lines.append(f"cec_function = {number}")
        return None
    text = fun if fun.endswith("\n") else fun + "\n"
    path = _stable_file(text)
    lines.append("function = user")
    if path is not None:
        return path, False
    fd, path = tempfile.mkstemp(prefix="evoforge-objective-", suffix=".c")
    with os.fdopen(fd, "w") as f:
        f.write(text)
    return path, True


def _stable_file(text):
    """The C source in a file named by its hash, in a folder of this user's
    under the temp folder ($TMPDIR/evoforge-objectives-UID/HASH.c), kept
    there: de's compiled-objective cache is keyed by the generated source,
    which names the file in its #line directives, so the same source under
    the same name is compiled once, not at every call (and the cache does not
    gain a shared object per call). None when the folder is not safely ours
    (then a one-off temporary file is used)."""
    folder = os.path.join(tempfile.gettempdir(), f"evoforge-objectives-{os.getuid()}")
    try:
        os.makedirs(folder, mode=0o700, exist_ok=True)
        st = os.lstat(folder)
        if not stat.S_ISDIR(st.st_mode) or st.st_uid != os.getuid() or st.st_mode & 0o022:
            return None
        path = os.path.join(folder, hashlib.sha256(text.encode()).hexdigest()[:24] + ".c")
        try:
            with open(path) as f:
                if f.read() == text:
                    return path
        except OSError:
            pass
        fd, tmp = tempfile.mkstemp(dir=folder, suffix=".tmp")
        with os.fdopen(fd, "w") as f:
            f.write(text)
        os.replace(tmp, path)   # atomic: a concurrent reader sees the old or the new whole file
        return path
    except OSError:
        return None


def _x0_line(x0, dim, lo, hi):
    """de.x0's line: x0 of shape (dim,) within the bounds (SciPy's checks)."""
    try:
        values = [float(v) for v in x0]
    except TypeError:
        raise ValueError(f"x0: expected {dim} numbers, got {x0!r}") from None
    if len(values) != dim:
        raise ValueError(f"x0: expected {dim} numbers (one per dimension), got {len(values)}")
    for k, v in enumerate(values):
        if not (lo <= v <= hi):
            raise ValueError(f"x0: component {k} is {v!r}, outside the bounds ({lo}, {hi})")
    return "x0 = " + ", ".join(repr(v) for v in values)


def _spec(fun, bounds, strategy, popsize, maxiter, maxfev, target, problems, shift,
          mutation, recombination, optimum, options, x0=None, every_generation=False):
    dim, lo, hi = _box(bounds)
    de = [f"dim = {dim}", f"lower = {lo!r}", f"upper = {hi!r}",
          f"strategy = {_STRATEGIES.get(strategy, strategy)}", f"problems = {int(problems)}"]
    obj = _objective(fun, de)
    if popsize is not None:
        de.append(f"population = {max(4, int(round(popsize * dim)))}")
    de.append(f"generations = {0 if maxiter is None else int(maxiter)}")
    if maxfev is not None:
        de.append(f"max_evals = {int(maxfev)}")
    if target is not None:
        de.append(f"target = {float(target)!r}")
    if shift:
        de.append("shift = random")
    if mutation is not None:
        if not isinstance(mutation, (int, float)):
            raise ValueError("mutation: evoforge's de takes one F (dithering over a range is "
                             f"not supported), got {mutation!r}")
        de.append(f"F = {float(mutation)!r}")
    if recombination is not None:
        de.append(f"CR = {float(recombination)!r}")
    if x0 is not None:
        de.append(_x0_line(x0, dim, lo, hi))
    if every_generation and "report_every" not in options:
        de.append("report_every = 1")
    for key, value in options.items():
        de.append(f"{key} = {value}")
    text = "[problem]\nkind = de\nname = minimize\n[de]\n" + "\n".join(de) + "\n"
    if obj or (callable(fun) and optimum is not None):
        text += "[objective]\n" + (f"file = {obj[0]}\n" if obj else "")
        if optimum is not None:
            text += f"optimum = {float(optimum)!r}\n"
    return text, (obj[0] if obj and obj[1] else None)


def _result(res, p, job):
    r = res["results"][p]
    interrupted = bool(res.get("interrupted"))
    if interrupted:
        why = ("stopped by Ctrl-C" if job.interrupted_by_user else
               "callback function requested stop early" if job.stop_reason == "callback"
               else "stopped early")
        msg, ok = f"{why}: the best so far", False
    elif r.get("reached"):
        msg, ok = "the target was reached", True
    elif res.get("target", 0) > 0:
        msg, ok = "the evaluation or generation budget ran out before the target", False
    else:
        msg, ok = "the evaluation or generation budget was used", True
    return OptimizeResult(x=_array(r["x"]), fun=float(r["best"]), nfev=int(r["evaluations"]),
                          nit=int(r["generations"]), success=ok, message=msg,
                          problem=int(r["problem"]))


def _array(values):
    try:
        import numpy
        return numpy.array(values, dtype=float)
    except ImportError:
        return [float(v) for v in values]


def _run(fun, bounds, problems, strategy, popsize, maxiter, maxfev, tol, target, seed, backend,
         threads, shift, mutation, recombination, optimum, x0, callback, polish, verbose, options,
         args=(), vectorized=False):
    if (callback is not None or polish) and not callable(fun):
        what = "callback=" if callback is not None else "polish=True"
        raise ValueError(f"evoforge.minimize: {what} needs fun as a Python callable (it is "
                         "given the best x so far, which only a callable's evaluations show; "
                         "polish evaluates fun from Python); a built-in name or C source runs "
                         "inside the engine: write the objective in Python, or polish the "
                         "result yourself with scipy.optimize.minimize")
    if tol not in (None, 0):
        warnings.warn("evoforge.minimize: tol is ignored: evoforge's de has no convergence test "
                      "on the population's spread; stop with target=, maxfev= or maxiter=",
                      stacklevel=3)
    if seed is None:
        seed = secrets.randbits(63)
    text, cfile = _spec(fun, bounds, strategy, popsize, maxiter, maxfev, target, problems,
                        shift, mutation, recombination, optimum, options, x0,
                        callback is not None)
    host = _HostObjective(fun, args, vectorized) if callable(fun) else None
    try:
        with Job(text, backend=backend, seed=int(seed), threads=threads, verbose=verbose) as job:
            if host is not None:
                job.set_objective(host.c)
            if callback is not None:
                job.set_step_hook(_Progress(callback, host))
            try:
                job.run()
            except EvoforgeError:
                if host is not None and host.error is not None:
                    raise host.error from None   # fun's own exception, after the run
                raise
            res = job.result
            out = [_result(res, p, job) for p in range(len(res["results"]))]
        if polish and not job.interrupted_by_user:
            _polish(out[0], host, bounds)
        return out
    finally:
        if cfile:
            os.unlink(cfile)


def _polish(result, host, bounds):
    """SciPy's polish: L-BFGS-B from the best x within the bounds (fun from
    Python, host.value); its evaluations counted into nfev; x and fun
    replaced when it found lower."""
    try:
        from scipy.optimize import minimize as scipy_minimize
    except ImportError:
        raise ImportError("evoforge.minimize: polish=True needs SciPy (pip install scipy)") from None
    import numpy
    dim, lo, hi = _box(bounds)
    res = scipy_minimize(host.value, numpy.array(result.x, dtype=float), method="L-BFGS-B",
                         bounds=[(lo, hi)] * dim)
    result.nfev += int(res.nfev)
    if res.fun < result.fun:
        result.x = numpy.asarray(res.x, dtype=float)
        result.fun = float(res.fun)
        result.jac = res.jac
    result.message += "; polished with L-BFGS-B"


def minimize(fun, bounds, *, strategy="rand1bin", popsize=None, maxiter=None, maxfev=None,
             tol=None, target=None, seed=None, backend="cpu", threads=0, shift=False,
             mutation=None, recombination=None, optimum=None, x0=None, callback=None,
             polish=False, verbose=False, args=(), vectorized=False, **options):
    """Minimises fun over the box bounds with evoforge's de; returns an
    OptimizeResult (x, fun, nfev, nit, success, message).

    fun: a built-in name ("sphere", "rosenbrock", "rastrigin", "ackley",
    "griewank", "schwefel", "cec2017:N", "cec2022:N"), C source: a function
    body over (const float *x, int n) returning a float, or a Python callable
    fun(x, *args) -> float (x of shape (dim,)), called on the CPU once per
    individual; with vectorized=True once per generation with x of shape
    (dim, S) (SciPy's vectorized convention), returning S values. A
    callable's values are rounded to float (the population is float); an
    exception it raises stops the run and is raised again here; every
    strategy; backend "cpu" (the default) or "gpu" (the trials come to the host once a
    generation; the same run as the CPU's). bounds: (min, max)
    per dimension, all equal (de has one box). strategy: "rand1bin",
    "best1bin", or "jade", "shade", "lshade", "jso", "sade", "code".
    popsize: population = popsize * dim (default: the strategy's, 10 * dim
    for rand1bin). maxiter: generations; maxfev: evaluations (default
    10000 * dim); target: stop at f - optimum <= target. seed: int (None: a
    random one). x0: an initial guess, of shape (dim,) within bounds: it
    replaces the first member of the initial population (de.x0; either
    backend). callback: called once per generation with the best so far, as
    callback(intermediate_result) or callback(xk, convergence=nan) (SciPy's
    two forms); a true return stops the run with the best so far (message
    "stopped early", success False); the stop comes at the end of the next
    generation. polish=True (default False): L-BFGS-B from the best x within
    the bounds after the run (scipy.optimize.minimize), its evaluations
    counted in nfev, x and fun replaced when it found lower. callback and
    polish need fun to be a Python callable. Other keyword arguments are
    [de] keys (bounds="clip")."""
    return _run(fun, bounds, 1, strategy, popsize, maxiter, maxfev, tol, target, seed, backend,
                threads, shift, mutation, recombination, optimum, x0, callback, polish, verbose,
                options, args, vectorized)[0]


def minimize_many(fun, bounds, problems, *, strategy="rand1bin", popsize=None, maxiter=None,
                  maxfev=None, tol=None, target=None, seed=None, backend="cpu", threads=0,
                  shift=False, mutation=None, recombination=None, optimum=None, verbose=False,
                  **options):
    """minimize over `problems` independent problems in one run (de.problems;
    each its own random stream, and with shift=True its own shifted
    function); returns a list of OptimizeResult, one per problem. fun: a
    built-in name or C source; Python callables are refused (use minimize)."""
    if callable(fun):
        raise TypeError("evoforge.minimize_many: fun: a Python callable is for minimize "
                        "(one problem); minimize_many takes a built-in name or C source")
    if int(problems) < 1:
        raise ValueError(f"problems: expected at least 1, got {problems!r}")
    return _run(fun, bounds, problems, strategy, popsize, maxiter, maxfev, tol, target, seed,
                backend, threads, shift, mutation, recombination, optimum, None, None, False,
                verbose, options)
