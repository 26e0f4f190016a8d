"""evoforge: the evoforge runtime from Python, over its C API (ctypes,
libevoforge.so; docs/python.md). Job runs any spec; minimize and
minimize_many run kind de with SciPy's conventions; tsp.solve runs aco."""
from . import _lib
from ._errors import EvoforgeError, EvoforgeInputError, EvoforgeWarning
from .job import Job
from .optimize import OptimizeResult, minimize, minimize_many
from . import tsp

__version__ = _lib.lib.evoforge_version().decode()
library_path = str(_lib.path)

_ESTIMATORS = ("SymbolicRegressor", "SymbolicClassifier", "SVC", "MBPRegressor", "MBPClassifier")


def __getattr__(name):
    """The estimators on first use (scikit-learn is imported only then)."""
    if name in _ESTIMATORS or name == "estimators":
        import importlib
        estimators = importlib.import_module(".estimators", __name__)
        return estimators if name == "estimators" else getattr(estimators, name)
    raise AttributeError(f"module 'evoforge' has no attribute {name!r}")


__all__ = [*_ESTIMATORS, "Job", "EvoforgeError", "EvoforgeInputError", "EvoforgeWarning", "OptimizeResult",
           "minimize", "minimize_many", "tsp", "library_path", "__version__"]
