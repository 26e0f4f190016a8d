"""_lib.py: finds and loads libevoforge.so and declares the C API's
functions (include/evoforge.h) for ctypes."""
import ctypes
import os
from pathlib import Path

# The header's EVOFORGE_API_VERSION this package was written against.
API_VERSION = 1

LOG_FN = ctypes.CFUNCTYPE(None, ctypes.c_int, ctypes.c_char_p, ctypes.c_void_p)
PROGRESS_FN = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_char_p, ctypes.c_void_p)
# evoforge_objective_fn: (X, np, dim, fx, user) -> 0 or non-zero (stop)
OBJECTIVE_FN = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.POINTER(ctypes.c_double), ctypes.c_int,
                                ctypes.c_int, ctypes.POINTER(ctypes.c_double), ctypes.c_void_p)

_here = Path(__file__).resolve().parent


def _candidates():
    """The paths tried, in order: $EVOFORGE_LIB, the checkout's build/, the package folder."""
    env = os.environ.get("EVOFORGE_LIB")
    if env:
        return [("$EVOFORGE_LIB", Path(env))]
    return [("the repository checkout", _here.parent.parent / "build" / "libevoforge.so"),
            ("the package folder", _here / "libevoforge.so")]


def _load():
    tried = []
    for where, path in _candidates():
        if not path.is_file():
            tried.append(f"{path} ({where}: no such file)")
            continue
        try:
            return ctypes.CDLL(str(path)), path
        except OSError as e:
            tried.append(f"{path} ({where}: {e})")
    raise ImportError("evoforge: cannot load libevoforge.so; tried " + "; ".join(tried) +
                      ". Build it with `ninja build/libevoforge.so` in the evoforge checkout, "
                      "or set EVOFORGE_LIB to its path.")


lib, path = _load()

_P = ctypes.c_void_p
_S = ctypes.c_char_p
_I = ctypes.c_int
_D = ctypes.POINTER(ctypes.c_double)
_SIGS = {
    "evoforge_version": (_S, []),
    "evoforge_api_version": (_I, []),
    "evoforge_status_name": (_S, [_I]),
    "evoforge_job_from_text": (_I, [_S, ctypes.POINTER(_P)]),
    "evoforge_job_from_file": (_I, [_S, ctypes.POINTER(_P)]),
    "evoforge_job_free": (None, [_P]),
    "evoforge_job_set": (_I, [_P, _S, _S]),
    "evoforge_job_set_backend": (_I, [_P, _S]),
    "evoforge_job_set_seed": (_I, [_P, ctypes.c_uint64]),
    "evoforge_job_set_threads": (_I, [_P, _I]),
    "evoforge_job_set_output_dir": (_I, [_P, _S]),
    "evoforge_job_set_log": (_I, [_P, LOG_FN, _P]),
    "evoforge_job_set_progress": (_I, [_P, PROGRESS_FN, _P]),
    "evoforge_job_set_objective": (_I, [_P, OBJECTIVE_FN, _P]),
    "evoforge_job_run": (_I, [_P]),
    "evoforge_job_result_json": (_S, [_P]),
    "evoforge_job_best": (_I, [_P, _D]),
    "evoforge_job_result_number": (_I, [_P, _S, _D]),
    "evoforge_job_kind": (_S, [_P]),
    "evoforge_job_output_dir": (_S, [_P]),
    "evoforge_job_stopped": (_I, [_P]),
    "evoforge_job_error": (_S, [_P]),
    "evoforge_job_set_table": (_I, [_P, _S, _D, ctypes.c_long, _I, _D, ctypes.POINTER(_S)]),
    "evoforge_job_set_table_float": (_I, [_P, _S, ctypes.POINTER(ctypes.c_float), ctypes.c_long,
                                          _I, ctypes.POINTER(ctypes.c_float), ctypes.POINTER(_S)]),
    "evoforge_job_from_result": (_I, [_S, ctypes.POINTER(_P)]),
    "evoforge_job_predict": (_I, [_P, _D, ctypes.c_long, _I, ctypes.POINTER(_S), _D]),
    "evoforge_job_set_table_csr": (_I, [_P, _S, ctypes.c_long, _I, ctypes.POINTER(ctypes.c_int64),
                                        ctypes.POINTER(ctypes.c_int32), _D, _D]),
    "evoforge_job_predict_csr": (_I, [_P, ctypes.c_long, _I, ctypes.POINTER(ctypes.c_int64),
                                      ctypes.POINTER(ctypes.c_int32), _D, _D]),
    "evoforge_job_set_checkpoint": (_I, [_P, ctypes.c_long]),
    "evoforge_job_set_resume": (_I, [_P, _S]),
}
for _name, (_res, _args) in _SIGS.items():
    _f = getattr(lib, _name)
    _f.restype = _res
    _f.argtypes = _args

if lib.evoforge_api_version() != API_VERSION:
    raise ImportError(f"evoforge: {path} implements API version {lib.evoforge_api_version()}, "
                      f"this package needs {API_VERSION}")
