"""estimators.py: scikit-learn estimators over evoforge's kinds -- gp
(SymbolicRegressor, SymbolicClassifier), svm (SVC) and mbp (MBPRegressor,
MBPClassifier); fit runs a job on X, y lent from memory, predict runs the
C API's evoforge_job_predict on the kept result (docs/python.md)."""
import ctypes
import numbers
import os
import shutil
import tempfile
import time

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin, RegressorMixin
from sklearn.utils import check_random_state
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import check_is_fitted, validate_data

from . import _lib, _sparse
from ._errors import OK, make_error
from .job import Job

_c = _lib.lib

# gplearn's function names -> gp's (templates/gp/gp_ops.h); gp's own pass as they are.
_GPLEARN_FUNCTIONS = {"add": "+", "sub": "-", "mul": "*", "div": "/", "sin": "sin", "cos": "cos",
                      "log": "log", "exp": "exp"}
# The files beside result.json that each kind's prediction reads.
_MODEL_FILES = {"gp": (), "svm": ("model.txt",), "mbp": ("network.net",)}


# ---- running and predicting ----------------------------------------------------

def _seed(random_state):
    """An int random_state is the seed itself (the CLI's --seed); else one drawn."""
    if isinstance(random_state, numbers.Integral) and not isinstance(random_state, bool):
        if not 0 <= int(random_state) < 2 ** 63:
            raise ValueError(f"random_state: expected an integer in [0, 2^63), got {random_state}")
        return int(random_state)
    return int(check_random_state(random_state).randint(0, 2 ** 31 - 1))


def _threads(n_jobs):
    """sklearn's n_jobs as evoforge's threads: None or -1 every core (0), n > 0 n."""
    if n_jobs is None or n_jobs == -1:
        return 0
    if not isinstance(n_jobs, numbers.Integral) or isinstance(n_jobs, bool) or n_jobs < 1:
        raise ValueError(f"n_jobs: expected None, -1 or a positive integer, got {n_jobs!r}")
    return int(n_jobs)


def _run(spec, tables, seed, backend, n_jobs, time_limit, verbose):
    """Runs spec with the tables {name: (X, y)}; returns (result.json text,
    {file: bytes} the predictor needs, result dict, wall seconds, stopped)."""
    t0 = time.perf_counter()
    with Job(spec, backend=backend, seed=seed, threads=_threads(n_jobs), verbose=verbose,
             time_limit=time_limit) as job:
        for name, (X, y) in tables.items():
            job.set_table(name, X, y)
        job.run()   # Ctrl-C: stops with the best so far (an EvoforgeWarning says so)
        stopped = job.stopped
        text = _c.evoforge_job_result_json(job._h).decode()
        res = job.result
        files = {}
        for name in _MODEL_FILES.get(job.kind, ()):
            with open(os.path.join(job.output_dir, name), "rb") as f:
                files[name] = f.read()
    return text, files, res, time.perf_counter() - t0, stopped


def _predict(state, X, backend):
    """evoforge_job_predict of the model kept in state on X (float64 rows;
    a scipy.sparse matrix through evoforge_job_predict_csr, not densified)."""
    sparse = _sparse.is_sparse(X)
    if sparse:
        X, indptr, indices, values = _sparse.csr_arrays(X, "predict")
    else:
        X = np.ascontiguousarray(X, dtype=np.float64)
    out = np.empty(X.shape[0], dtype=np.float64)
    tmp = tempfile.mkdtemp(prefix="evoforge-model-")
    h = ctypes.c_void_p()
    try:
        path = os.path.join(tmp, "result.json")
        with open(path, "w") as f:
            f.write(state["result_json"])
        for name, data in state["files"].items():
            with open(os.path.join(tmp, name), "wb") as f:
                f.write(data)
        st = _c.evoforge_job_from_result(os.fsencode(path), ctypes.byref(h))
        if st == OK and backend is not None:
            st = _c.evoforge_job_set_backend(h, str(backend).encode())
        D = ctypes.POINTER(ctypes.c_double)
        if st == OK and sparse:
            st = _c.evoforge_job_predict_csr(h, X.shape[0], X.shape[1],
                                             *_sparse.pointers(indptr, indices, values),
                                             out.ctypes.data_as(D))
        elif st == OK:
            st = _c.evoforge_job_predict(h, X.ctypes.data_as(D), X.shape[0], X.shape[1], None,
                                         out.ctypes.data_as(D))
        if st != OK:
            raise make_error(st, _c.evoforge_status_name(st).decode(),
                             _c.evoforge_job_error(h).decode(errors="replace"))
    finally:
        _c.evoforge_job_free(h)
        shutil.rmtree(tmp, ignore_errors=True)
    return out


def _ini(sections):
    """INI text from {section: {key: value}} (None values left out)."""
    lines = []
    for sec, keys in sections.items():
        lines.append(f"[{sec}]")
        for k, v in keys.items():
            if v is None:
                continue
            if isinstance(v, bool):
                v = "true" if v else "false"
            elif isinstance(v, (float, np.floating)):
                v = repr(float(v))
            elif isinstance(v, np.integer):
                v = int(v)
            v = str(v)
            if "\n" in v or ";" in v:
                raise ValueError(f"{sec}.{k}: a value may not hold a line break or ';', got {v!r}")
            lines.append(f"{k} = {v}")
    return "\n".join(lines) + "\n"


class _Evoforge(BaseEstimator):
    """What the five estimators share: the kept model, pickling, predict."""

    def _keep(self, text, files, res, wall, stopped):
        self._state = {"result_json": text, "files": files}
        self.stopped_ = stopped   # time_limit or Ctrl-C stopped the run (its best so far is kept)
        self.result_ = res
        self.fit_seconds_ = wall

    _accept_sparse = False   # SVC: "csr" (CSC, COO, ... converted once)

    def _raw_predict(self, X):
        check_is_fitted(self, "_state")
        X = validate_data(self, X, reset=False, dtype=np.float64,
                          accept_sparse=self._accept_sparse)
        return _predict(self._state, X, self.backend)

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.non_deterministic = False
        return tags


class _Classifier(ClassifierMixin):
    def _encode(self, y):
        check_classification_targets(y)
        self.classes_, enc = np.unique(y, return_inverse=True)
        if len(self.classes_) < 2:
            raise ValueError(f"{type(self).__name__}: expected samples of at least 2 classes "
                             f"in y, got 1 class ({self.classes_[0]!r})")
        return enc.astype(np.float64)


# ---- gp ------------------------------------------------------------------------------

def _functions(function_set):
    if isinstance(function_set, str) or not hasattr(function_set, "__iter__"):
        raise TypeError("function_set: expected a sequence of function names (gplearn's 'add', "
                        f"'sub', 'mul', 'div', ... or gp's '+', '-', ...), got {function_set!r}")
    names = []
    for f in function_set:
        if not isinstance(f, str):
            raise TypeError(f"function_set: expected names (str), got {f!r}")
        names.append(_GPLEARN_FUNCTIONS.get(f, f))
    return " ".join(names)


# gp's operators as SymPy text: the protected ones (gp_ops.h) as named functions.
# The grammar of gp's simplified formulas (runtime/gp/gp_simplify.h), so that
# expression_ and simplified_ read alike.
_SYMPY = {"+": "({} + {})", "-": "({} - {})", "*": "({}*{})", "/": "protdiv({}, {})",
          "sin": "sin({})", "cos": "cos({})", "log": "protlog({})", "exp": "protexp({})",
          "sqrt": "protsqrt({})", "square": "({})**2", "cube": "({})**3", "pow4": "({})**4",
          "tanh": "tanh({})", "abs": "abs({})", "aq": "aq({}, {})",
          ">": "gt({}, {})", "<": "lt({}, {})", "==": "eq({}, {})", "AND": "AND({}, {})",
          "OR": "OR({}, {})", "IF": "IF({}, {}, {})"}
_ARITY = {k: v.count("{}") for k, v in _SYMPY.items()}


def _expression(prefix, names):
    """The program of gp's best.prefix as SymPy-parsable text in the grammar
    of gp's simplified formulas (runtime/gp/gp_simplify.h): inputs by name;
    +, -, *, sin, cos, tanh, abs as themselves, square, cube, pow4 as **2,
    **3, **4; the protected operations as the functions protdiv, protlog,
    protexp, protsqrt, aq, gt, lt, eq, AND, OR, IF."""
    tokens = prefix.split()
    pos = 0

    def node():
        nonlocal pos
        t = tokens[pos]
        pos += 1
        if t.startswith("$"):
            return names[int(t[1:])]
        if t in _SYMPY:
            return _SYMPY[t].format(*[node() for _ in range(_ARITY[t])])
        v = float.fromhex(t) if "0x" in t.lower() else float(t)   # gp writes floats in hex
        return f"({v!r})" if v < 0 else repr(v)
    return node()


class _GP(_Evoforge):
    def __init__(self, *, population_size=200, generations=20, tournament_size=7,
                 function_set=("add", "sub", "mul", "div"), const_range=(-1.0, 1.0),
                 init_depth=(2, 6), parsimony_coefficient=None, random_state=None, n_jobs=None,
                 backend="cpu", time_limit=None, verbose=False):
        self.population_size = population_size
        self.generations = generations
        self.tournament_size = tournament_size
        self.function_set = function_set
        self.const_range = const_range
        self.init_depth = init_depth
        self.parsimony_coefficient = parsimony_coefficient
        self.random_state = random_state
        self.n_jobs = n_jobs
        self.backend = backend
        self.time_limit = time_limit
        self.verbose = verbose

    def _spec(self, fitness):
        gp = {"population": self.population_size, "generations": self.generations,
              "tournament": self.tournament_size, "functions": _functions(self.function_set),
              "stop_on_success": "false"}
        if self.const_range is None:
            gp["constants"] = "none"
        else:
            lo, hi = self.const_range
            gp["constants"] = f"{float(lo)!r} {float(hi)!r}"
        if self.init_depth is not None:
            gp["init_min_depth"], gp["init_max_depth"] = self.init_depth
        if self.parsimony_coefficient is not None:
            gp["parsimony"] = "penalty"
            gp["parsimony_coefficient"] = float(self.parsimony_coefficient)
        return _ini({"problem": {"kind": "gp", "name": "sklearn"}, "gp": gp,
                     "data": {"source": "csv", "file": "memory:train", "fitness": fitness}})

    def _fit(self, X, y, fitness):
        text, files, res, wall, stopped = _run(self._spec(fitness), {"train": (X, y)},
                                      _seed(self.random_state), self.backend, self.n_jobs,
                                      self.time_limit, self.verbose)
        self._keep(text, files, res, wall, stopped)
        best = res.get("best", {})
        names = res["data"]["input_names"]
        self.program_ = best.get("prefix")
        if "prefix" in best:
            self.expression_ = _expression(best["prefix"], names)
        else:   # one-vs-rest: one program per class, the class is their argmax
            self.program_ = [p["prefix"] for p in res["ovr"]["programs"]]
            self.expression_ = [_expression(p, names) for p in self.program_]
        self.fitness_ = best.get("fitness")
        self.n_iter_ = res.get("totals", {}).get("generations")
        self.run_seconds_ = res.get("totals", {}).get("run_s")
        if "simplified" in best:   # when the run simplifies its best (gp_simplify)
            self.simplified_ = best["simplified"]
        return self


class SymbolicRegressor(RegressorMixin, _GP):
    """Symbolic regression with evoforge's gp (MSE fitness), gplearn's
    parameter names: population_size, generations, tournament_size,
    function_set ('add', 'sub', 'mul', 'div', 'sin', 'cos', 'log', 'exp', or
    gp's names), const_range ((lo, hi) or None), init_depth,
    parsimony_coefficient (None: gp's default, none for MSE; a number: the
    penalty), random_state (an int is the run's seed), n_jobs (CPU threads),
    plus backend ('cpu', 'gpu', 'auto') and time_limit (seconds; the run
    stops at its next generation after it). Fitted: expression_ (SymPy
    text), program_ (gp's prefix), fitness_ (training MSE), result_."""

    def fit(self, X, y):
        X, y = validate_data(self, X, y, dtype=np.float64, y_numeric=True)
        return self._fit(X, y.astype(np.float64), "mse")

    def predict(self, X):
        return self._raw_predict(X)


class SymbolicClassifier(_Classifier, _GP):
    """Classification with evoforge's gp (misclassified cases, gp's round
    gp's default scheme, one-vs-rest: one program per class, the class of
    the largest output); parameters as SymbolicRegressor. expression_ and
    program_ are then lists, one per class of classes_ (one string under
    gp's round scheme). A program output that is not finite predicts
    classes_[0]."""

    def fit(self, X, y):
        X, y = validate_data(self, X, y, dtype=np.float64)
        return self._fit(X, self._encode(y), "classification")

    def predict(self, X):
        k = self._raw_predict(X)
        k = np.where(np.isnan(k), 0, k).astype(np.int64)
        return self.classes_[k]


# ---- svm -------------------------------------------------------------------------------

_KERNELS = {"rbf": "rbf", "linear": "linear", "poly": "polynomial", "sigmoid": "sigmoid"}


class SVC(_Classifier, _Evoforge):
    """C-SVC with evoforge's svm (SMO as LIBSVM): C, kernel ('rbf', 'linear',
    'poly', 'sigmoid'), degree, gamma ('scale', 'auto' or a number), coef0,
    tol (svm.eps), class_weight (None, a dict or 'balanced'), max_iter (-1:
    LIBSVM's limit), decision_function_shape (accepted for sklearn's SVC
    compatibility), solver ('auto': the batched working-set solver on the
    GPU for pairs of 16,000 points or more, SMO otherwise; 'smo'; 'batch':
    svm.solver, docs/svm.md), random_state, n_jobs, backend. X may be a scipy.sparse
    matrix (CSR as it is, CSC, COO, ... converted once; never densified):
    svm's sparse path, as a LIBSVM file of the same rows. Fitted:
    n_support_ (per class of classes_), dual_coef_ and intercept_ (LIBSVM's
    layout, the classes in model.txt's order, class_order_), and
    decision_function (computed from model.txt, sklearn's signs)."""

    _accept_sparse = "csr"

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = True
        return tags

    def __init__(self, *, C=1.0, kernel="rbf", degree=3, gamma="scale", coef0=0.0, tol=1e-3,
                 class_weight=None, max_iter=-1, decision_function_shape="ovr",
                 solver="auto", random_state=None, n_jobs=None, backend="cpu", verbose=False):
        self.C = C
        self.kernel = kernel
        self.degree = degree
        self.gamma = gamma
        self.coef0 = coef0
        self.tol = tol
        self.class_weight = class_weight
        self.max_iter = max_iter
        self.decision_function_shape = decision_function_shape
        self.solver = solver
        self.random_state = random_state
        self.n_jobs = n_jobs
        self.backend = backend
        self.verbose = verbose

    def _gamma(self, X):
        if isinstance(self.gamma, str):
            if self.gamma == "scale":
                var = _variance(X)
                return 1.0 / (X.shape[1] * var) if var > 0 else 1.0
            if self.gamma == "auto":
                return 1.0 / X.shape[1]
            raise ValueError(f"gamma: expected 'scale', 'auto' or a number, got {self.gamma!r}")
        return float(self.gamma)

    def _weights(self, enc):
        cw = self.class_weight
        if cw is None:
            return None
        if cw == "balanced":
            counts = np.bincount(enc.astype(np.int64), minlength=len(self.classes_))
            w = len(enc) / (len(self.classes_) * counts)
            return " ".join(f"{k}:{w[k]!r}" for k in range(len(w)))
        if not isinstance(cw, dict):
            raise TypeError(f"class_weight: expected None, 'balanced' or a dict, got {cw!r}")
        index = {c: k for k, c in enumerate(self.classes_)}
        parts = []
        for c, w in cw.items():
            if c not in index:
                raise ValueError(f"class_weight: class {c!r} is not in y's classes")
            parts.append(f"{index[c]}:{float(w)!r}")
        return " ".join(parts) or None

    def fit(self, X, y):
        X, y = validate_data(self, X, y, dtype=np.float64, accept_sparse="csr")
        enc = self._encode(y)
        if self.kernel not in _KERNELS:
            raise ValueError(f"kernel: expected one of {sorted(_KERNELS)}, got {self.kernel!r}")
        if self.decision_function_shape not in ("ovr", "ovo"):
            raise ValueError("decision_function_shape: expected 'ovr' or 'ovo', got "
                             f"{self.decision_function_shape!r}")
        if not isinstance(self.max_iter, numbers.Integral) or isinstance(self.max_iter, bool):
            raise TypeError(f"max_iter: expected an integer, got {self.max_iter!r}")
        if self.solver not in ("auto", "smo", "batch"):
            raise ValueError(f"solver: expected 'auto', 'smo' or 'batch', got {self.solver!r}")
        svm = {"kernel": _KERNELS[self.kernel], "C": float(self.C), "gamma": self._gamma(X),
               "solver": self.solver,
               "degree": self.degree, "coef0": float(self.coef0), "eps": float(self.tol),
               "weights": self._weights(enc), "max_iter": max(int(self.max_iter), 0)}
        spec = _ini({"problem": {"kind": "svm", "name": "sklearn"}, "svm": svm,
                     "data": {"train": "memory:train", "scale": "none"}})
        self._keep(*_run(spec, {"train": (X, enc)}, _seed(self.random_state), self.backend,
                         self.n_jobs, None, self.verbose))
        self.n_support_total_ = self.result_.get("support_vectors")
        self.n_iter_ = self.result_.get("iterations")
        self.run_seconds_ = self.result_.get("time_s")
        self._model = _read_model(self._state["files"]["model.txt"], X.shape[1])
        m = self._model
        order = np.argsort(m["label"])
        self.class_order_ = self.classes_[m["label"]]
        self.n_support_ = np.asarray(m["nr_sv"], dtype=np.int32)[order]
        self.dual_coef_ = m["coef"].T.copy()
        self.intercept_ = -np.asarray(m["rho"])
        return self

    def predict(self, X):
        k = self._raw_predict(X).astype(np.int64)
        return self.classes_[k]

    def decision_function(self, X):
        """sklearn's decision values from the model (model.txt): binary, one
        value per row, positive for classes_[1]; else 'ovo' (one column per
        pair a < b of classes_, positive for a) or 'ovr' (sklearn's vote-based
        transform). X dense or scipy.sparse (not densified)."""
        check_is_fitted(self, "_state")
        X = validate_data(self, X, reset=False, dtype=np.float64, accept_sparse="csr")
        if not hasattr(self, "_model"):
            self._model = _read_model(self._state["files"]["model.txt"], self.n_features_in_)
        ovo = _ovo_values(self._model, X, len(self.classes_))
        if len(self.classes_) == 2:
            return -ovo[:, 0]
        if self.decision_function_shape == "ovo":
            return ovo
        from sklearn.utils.multiclass import _ovr_decision_function
        return _ovr_decision_function(ovo < 0, -ovo, len(self.classes_))


def _variance(X):
    """The variance of every entry of X (dense or sparse, not densified)."""
    if not _sparse.is_sparse(X):
        return X.var()
    n = X.shape[0] * X.shape[1]
    mean = X.data.sum() / n
    return (((X.data - mean) ** 2).sum() + (n - X.nnz) * mean * mean) / n


def _read_model(data, nfeat):
    """LIBSVM's model.txt (svm's model; runtime/svm/svm_model.c) as a dict:
    kernel, gamma, degree, coef0, rho, label, nr_sv, coef (nSV x K-1) and
    the support vectors sv (a scipy CSR matrix, nSV x nfeat)."""
    import scipy.sparse
    lines = data.decode().splitlines()
    head = {"degree": "3", "gamma": "0", "coef0": "0"}
    k = 0
    while lines[k].strip() != "SV":
        key, _, rest = lines[k].partition(" ")
        head[key] = rest.strip()
        k += 1
    ncls = int(head["nr_class"])
    coef, ptr, idx, val = [], [0], [], []
    for line in lines[k + 1:]:
        words = line.split()
        if not words:
            continue
        coef.append([float(w) for w in words[:ncls - 1]])
        for w in words[ncls - 1:]:
            i, _, v = w.partition(":")
            idx.append(int(i) - 1)
            val.append(float(v))
        ptr.append(len(idx))
    sv = scipy.sparse.csr_matrix((np.asarray(val), np.asarray(idx, dtype=np.int64),
                                  np.asarray(ptr, dtype=np.int64)), shape=(len(coef), nfeat))
    return {"kernel": head["kernel_type"], "gamma": float(head["gamma"]),
            "degree": int(head["degree"]), "coef0": float(head["coef0"]),
            "rho": [float(v) for v in head["rho"].split()],
            "label": [int(float(v)) for v in head["label"].split()],
            "nr_sv": [int(v) for v in head["nr_sv"].split()],
            "coef": np.asarray(coef, dtype=np.float64).reshape(len(coef), ncls - 1), "sv": sv}


def _kernel(m, X):
    """K(x, sv) for every row of X and support vector: rows x nSV."""
    dot = X @ m["sv"].T
    dot = dot.toarray() if _sparse.is_sparse(dot) else np.asarray(dot)
    if m["kernel"] == "linear":
        return dot
    if m["kernel"] == "polynomial":
        return (m["gamma"] * dot + m["coef0"]) ** m["degree"]
    if m["kernel"] == "sigmoid":
        return np.tanh(m["gamma"] * dot + m["coef0"])
    xx = np.asarray(X.multiply(X).sum(axis=1)).ravel() if _sparse.is_sparse(X) else \
        (X * X).sum(axis=1)
    ss = np.asarray(m["sv"].multiply(m["sv"]).sum(axis=1)).ravel()
    return np.exp(-m["gamma"] * np.maximum(xx[:, None] + ss[None, :] - 2 * dot, 0))


def _ovo_values(m, X, ncls):
    """LIBSVM's one-vs-one decision values, as sklearn orders them: a column
    per pair a < b of class indices, positive for a."""
    kv = _kernel(m, X)
    start = np.concatenate([[0], np.cumsum(m["nr_sv"])])
    where = {c: i for i, c in enumerate(m["label"])}
    out = np.empty((X.shape[0], ncls * (ncls - 1) // 2))
    p = 0
    for a in range(ncls):
        for b in range(a + 1, ncls):
            i, j = where[a], where[b]
            sign = 1.0
            if i > j:
                i, j, sign = j, i, -1.0
            si, sj = slice(start[i], start[i + 1]), slice(start[j], start[j + 1])
            pair = i * ncls - i * (i + 1) // 2 + (j - i - 1)   # LIBSVM's pair index
            dec = kv[:, si] @ m["coef"][si, j - 1] + kv[:, sj] @ m["coef"][sj, i] - m["rho"][pair]
            out[:, p] = sign * dec
            p += 1
    return out


# ---- mbp -------------------------------------------------------------------------------

class _MBP(_Evoforge):
    def __init__(self, *, hidden_layer_sizes=(10,), max_iter=200, mode=None, space=None,
                 random_state=None, n_jobs=None, backend="cpu", time_limit=None, verbose=False):
        self.hidden_layer_sizes = hidden_layer_sizes
        self.max_iter = max_iter
        self.mode = mode
        self.space = space
        self.random_state = random_state
        self.n_jobs = n_jobs
        self.backend = backend
        self.time_limit = time_limit
        self.verbose = verbose

    def _spec(self, file):
        h = self.hidden_layer_sizes
        if isinstance(h, numbers.Integral):
            h = (h,)
        if isinstance(h, str) or not hasattr(h, "__iter__"):
            raise TypeError(f"hidden_layer_sizes: expected a sequence of integers, got {h!r}")
        for n in h:
            if not isinstance(n, numbers.Integral) or isinstance(n, bool):
                raise TypeError(f"hidden_layer_sizes: expected integers, got {n!r}")
        mbp = {"hidden": " ".join(str(int(n)) for n in h) or None, "epochs": self.max_iter,
               "mode": self.mode, "space": None if self.space is None else int(bool(self.space))}
        return _ini({"problem": {"kind": "mbp", "name": "sklearn"}, "mbp": mbp,
                     "data": {"file": file}})

    def _fit(self, spec, tables):
        self._keep(*_run(spec, tables, _seed(self.random_state), self.backend, self.n_jobs,
                         self.time_limit, self.verbose))
        self.loss_ = self.result_.get("best_train_rms")
        self.n_iter_ = self.result_.get("epochs")
        self.run_seconds_ = self.result_.get("time_s")
        return self


class MBPRegressor(RegressorMixin, _MBP):
    """A network trained by evoforge's mbp (multiple back-propagation),
    regression: hidden_layer_sizes, max_iter (epochs), mode ('batch',
    'online', ...: mbp.mode), space (space network), random_state, n_jobs,
    backend, time_limit. loss_ is the best training RMS."""

    def fit(self, X, y):
        X, y = validate_data(self, X, y, dtype=np.float64, y_numeric=True)
        return self._fit(self._spec("memory:train"), {"train": (X, y.astype(np.float64))})

    def predict(self, X):
        return self._raw_predict(X)


class MBPClassifier(_Classifier, _MBP):
    """mbp's classification (one output per class, or one for two); the
    parameters as MBPRegressor. Class labels are text to mbp, which memory
    tables cannot carry yet: fit writes the rows to a temporary CSV file."""

    def fit(self, X, y):
        X, y = validate_data(self, X, y, dtype=np.float64)
        enc = self._encode(y).astype(np.int64)
        # mbp numbers the classes in the order they first appear in the file
        first = list(dict.fromkeys(enc.tolist()))
        fd, path = tempfile.mkstemp(prefix="evoforge-mbp-", suffix=".csv")
        try:
            with os.fdopen(fd, "w") as f:
                f.write(",".join(f"x{j + 1}" for j in range(X.shape[1])) + ",y\n")
                for row, k in zip(X, enc):
                    f.write(",".join(repr(float(v)) for v in row) + f",c{k}\n")
            self._fit(self._spec(path), {})
        finally:
            os.unlink(path)
        self._order = np.array(first, dtype=np.int64)
        return self

    def predict(self, X):
        k = self._raw_predict(X).astype(np.int64)
        return self.classes_[self._order[k]]
