"""CSR input with a column stored twice in a row (scipy allows it, ``toarray()`` sums it) or with unsorted
indices: every estimator sees the sum, exactly as on the dense copy."""

import numpy as np
import pytest
import scipy.sparse as sp

import nbfast
from nbfast.naive_bayes import ESTIMATORS

# Rows 0 and 2 store column 0 twice, row 1 has unsorted indices and stores column 2 twice.
DATA = np.array([1.0, 2.0, 3.0, 2.0, 1.0, 1.0, 4.0, 3.0, 1.0, 2.0])
INDICES = np.array([0, 0, 2, 2, 1, 2, 0, 0, 3, 1])
INDPTR = np.array([0, 3, 6, 9, 10])
Y = np.array([0, 1, 0, 1])


def _with_duplicates(index_dtype=np.int32, container=sp.csr_matrix):
    X = container((DATA.copy(), INDICES.astype(index_dtype), INDPTR.astype(index_dtype)), shape=(4, 4))
    X.indices, X.indptr = INDICES.astype(index_dtype), INDPTR.astype(index_dtype)
    return X


def test_the_fixture_has_duplicates_and_unsorted_rows():
    X = _with_duplicates()
    assert not X.has_canonical_format
    np.testing.assert_array_equal(X.toarray(), [[3, 0, 3, 0], [0, 1, 3, 0], [7, 0, 0, 1], [0, 2, 0, 0]])


@pytest.mark.parametrize("container", [sp.csr_matrix, sp.csr_array])
@pytest.mark.parametrize("index_dtype", [np.int32, np.int64])
@pytest.mark.parametrize("name", [n for n in ESTIMATORS if n != "MixedNB"] + ["MixedNB"])
def test_duplicates_are_summed_like_toarray(name, index_dtype, container):
    X = _with_duplicates(index_dtype, container)
    dense = X.toarray()
    params = {"binarize": 2.5} if name == "BernoulliNB" else {}
    sparse_model = ESTIMATORS[name](**params).fit(X, Y)
    dense_model = ESTIMATORS[name](**params).fit(dense, Y)
    for method in ("predict_proba", "predict_joint_log_proba", "predict"):
        expected = getattr(dense_model, method)(dense)
        np.testing.assert_allclose(getattr(sparse_model, method)(X), expected, rtol=1e-12, atol=1e-12)
        np.testing.assert_allclose(getattr(dense_model, method)(X), expected, rtol=1e-12, atol=1e-12)
    assert np.all(np.isfinite(sparse_model.predict_proba(X)))


def test_gaussian_variance_stays_non_negative():
    model = nbfast.GaussianNB().fit(_with_duplicates(), Y)
    assert np.all(model.var_ > 0)


def test_the_input_is_not_modified_and_canonical_input_is_not_copied():
    X = _with_duplicates()
    before = (X.data.copy(), X.indices.copy(), X.indptr.copy())
    nbfast.MultinomialNB().fit(X, Y).predict(X)
    for a, b in zip(before, (X.data, X.indices, X.indptr)):
        np.testing.assert_array_equal(a, b)
    from nbfast._validation import check_X

    canonical = sp.csr_matrix(X.toarray())
    assert check_X(canonical, nbfast.MultinomialNB(), reset=True) is canonical


def test_a_sum_that_overflows_is_refused():
    X = sp.csr_matrix((np.array([1e308, 1e308]), np.array([0, 0]), np.array([0, 2])), shape=(1, 2))
    with pytest.raises(ValueError, match="infinity"):
        nbfast.GaussianNB().fit(X, [0])
