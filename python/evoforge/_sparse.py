"""_sparse.py: scipy.sparse matrices as the C API's CSR arrays (indptr int64,
indices int32, values float64), converted at most once and never densified."""
import numpy as np


def is_sparse(X):
    """True for a scipy.sparse matrix or array (scipy imported only if loaded)."""
    try:
        import scipy.sparse
    except ImportError:
        return False
    return scipy.sparse.issparse(X)


def csr_arrays(X, who):
    """(csr, indptr, indices, values) for X: CSR as it is; CSC, COO and the
    others converted once; duplicates summed and indices sorted on a copy
    (LIBSVM's rule: ascending within a row); arrays C-contiguous of the C
    API's types (a copy only where the dtype differs)."""
    if X.ndim != 2:
        raise ValueError(f"{who}: expected a 2-D sparse matrix, got {X.ndim}-D")
    csr = X if X.format == "csr" else X.tocsr()
    ptr, idx = np.asarray(csr.indptr), np.asarray(csr.indices)
    if ptr.shape != (csr.shape[0] + 1,) or (ptr.size and not 0 <= ptr[-1] <= min(
            idx.size, np.asarray(csr.data).size)):
        raise ValueError(f"{who}: a CSR matrix of {csr.shape[0]} rows needs {csr.shape[0] + 1} "
                         f"indptr entries ending at most at len(indices) = {idx.size}, got "
                         f"{ptr.size} ending at {ptr[-1] if ptr.size else None}")
    sane = ptr[0] == 0 and (np.diff(ptr) >= 0).all() and \
        (idx.size == 0 or (idx.min() >= 0 and idx.max() < csr.shape[1]))
    if sane and not csr.has_canonical_format:   # else the C API names what is wrong
        csr = csr.copy() if csr is X else csr
        csr.sum_duplicates()
    indptr = np.ascontiguousarray(csr.indptr, dtype=np.int64)
    indices = np.ascontiguousarray(csr.indices, dtype=np.int32)
    values = np.ascontiguousarray(csr.data, dtype=np.float64)
    return csr, indptr, indices, values


def pointers(indptr, indices, values):
    """ctypes pointers to the three arrays."""
    import ctypes
    return (indptr.ctypes.data_as(ctypes.POINTER(ctypes.c_int64)),
            indices.ctypes.data_as(ctypes.POINTER(ctypes.c_int32)),
            values.ctypes.data_as(ctypes.POINTER(ctypes.c_double)))
