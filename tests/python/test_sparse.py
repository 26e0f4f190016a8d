"""test_sparse.py: scipy.sparse data through the C API's CSR tables
(evoforge_job_set_table_csr, evoforge_job_predict_csr): evoforge.SVC fitted
on CSR (and on CSC, COO) gives the dense fit's predictions, support vector
counts and dual coefficients, and decision values whose signs are its
predictions; Job.set_table takes a CSR matrix; bad CSR arrays raise
ValueError carrying the C API's message."""
import numpy as np
import pytest

scipy_sparse = pytest.importorskip("scipy.sparse")
pytest.importorskip("sklearn")

import evoforge  # noqa: E402


def _data(n=200, d=30, classes=2, seed=4):
    """Sparse rows (about 15% set, multiples of 1/64: exact in a float) and
    labels by a rule on the first columns."""
    rng = np.random.default_rng(seed)
    X = np.where(rng.random((n, d)) < 0.15, rng.integers(-128, 129, (n, d)) / 64.0, 0.0)
    s = X[:, :8].sum(axis=1) - X[:, 8:16].sum(axis=1)
    y = np.digitize(s, np.quantile(s, np.linspace(0, 1, classes + 1)[1:-1])) if classes > 2 \
        else (s > 0).astype(int)
    return X, np.array(["neg", "pos", "mid"])[y] if classes <= 3 else y


@pytest.mark.parametrize("classes", [2, 3])
def test_svc_csr_equals_dense(classes):
    X, y = _data(classes=classes)
    dense = evoforge.SVC(C=10, gamma=0.05, random_state=1).fit(X, y)
    for fmt in ("csr", "csc", "coo"):
        Xs = scipy_sparse.csr_matrix(X).asformat(fmt)
        sparse = evoforge.SVC(C=10, gamma=0.05, random_state=1).fit(Xs, y)
        assert sparse.n_support_total_ == dense.n_support_total_ > 0
        np.testing.assert_array_equal(sparse.n_support_, dense.n_support_)
        np.testing.assert_array_equal(sparse.dual_coef_, dense.dual_coef_)
        np.testing.assert_array_equal(sparse.intercept_, dense.intercept_)
        np.testing.assert_array_equal(sparse.predict(Xs), dense.predict(X))
        np.testing.assert_array_equal(sparse.predict(X), dense.predict(X))   # dense rows too
        np.testing.assert_allclose(sparse.decision_function(Xs), dense.decision_function(X),
                                   rtol=1e-9, atol=1e-9)
    assert dense.score(X, y) > 0.8
    dec = dense.decision_function(X)
    if classes == 2:
        np.testing.assert_array_equal(dense.classes_[(dec > 0).astype(int)], dense.predict(X))
    else:
        assert dec.shape == (X.shape[0], classes)
        agree = (dense.classes_[dec.argmax(axis=1)] == dense.predict(X)).mean()
        assert agree > 0.97   # ovr's transform of the votes, ties aside


def test_svc_gamma_scale_sparse():
    X, y = _data()
    a = evoforge.SVC()._gamma(X)
    b = evoforge.SVC()._gamma(scipy_sparse.csr_matrix(X))
    assert a == pytest.approx(b, rel=1e-12)


def test_job_set_table_csr(tmp_path):
    X, y = _data()
    spec = ("[problem]\nkind = svm\nname = t\n[svm]\nkernel = rbf\nC = 10\ngamma = 0.05\n"
            "[data]\ntrain = memory:train\n")
    with evoforge.Job(spec, backend="cpu") as job:
        job.set_table("train", scipy_sparse.csr_matrix(X), (y == "pos").astype(float))
        job.run()
        sparse_acc = job.best
    with evoforge.Job(spec, backend="cpu") as job:
        job.set_table("train", X, (y == "pos").astype(float))
        job.run()
        assert job.best == sparse_acc > 0.8


def _bad(csr, y=None):
    spec = "[problem]\nkind = svm\nname = t\n[data]\ntrain = memory:train\n"
    with evoforge.Job(spec, backend="cpu") as job:
        job.set_table("train", csr, y)


def test_bad_csr():
    base = scipy_sparse.csr_matrix(np.array([[1.0, 0, 2], [0, 3.0, 0], [4.0, 0, 5]]))
    m = base.copy()
    m.indptr[1], m.indptr[2] = 3, 1   # row 2 ends before it starts
    with pytest.raises(ValueError, match="non-decreasing indptr"):
        _bad(m)
    m = base.copy()
    m.indices[1] = 7
    with pytest.raises(ValueError, match="out of range"):
        _bad(m)
    m = base.copy()
    m.data[2] = np.nan
    with pytest.raises(ValueError, match="row 2, column 1: expected a finite"):
        _bad(m)
    with pytest.raises(ValueError, match="finite label"):
        _bad(base, np.array([1.0, np.inf, 0.0]))
    with pytest.raises(ValueError, match="y: expected 3 values"):
        _bad(base, np.array([1.0, 2.0]))
    # unsorted and repeated indices are sorted and summed on a copy, not refused
    m = scipy_sparse.csr_matrix((np.array([2.0, 1.0, 3.0]), np.array([2, 0, 1]),
                                 np.array([0, 2, 3])), shape=(2, 3))
    assert not m.has_sorted_indices
    _bad(m, np.array([0.0, 1.0]))
    assert list(m.indices) == [2, 0, 1]   # the caller's matrix untouched


def test_predict_csr_wrong_width():
    X, y = _data()
    clf = evoforge.SVC(C=10, gamma=0.05).fit(scipy_sparse.csr_matrix(X), y)
    with pytest.raises(ValueError):
        clf.predict(scipy_sparse.csr_matrix(X[:, :10]))
