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

__all__ = ["Job", "EvoforgeError", "EvoforgeInputError", "EvoforgeWarning", "OptimizeResult",
           "minimize", "minimize_many", "tsp", "library_path", "__version__"]
