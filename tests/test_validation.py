"""The gate before the kernels: messages that name the problem, dtypes accepted, and CSR input with a column
stored twice in a row (scipy allows it, ``toarray()`` sums it) or with unsorted indices: every estimator sees the
sum, exactly as on the dense copy."""

import numpy as np
import pytest
import scipy.sparse as sp
from support import malformed

import nbfast
from nbfast.naive_bayes import ESTIMATORS


@pytest.mark.parametrize(
    "make,match",
    [
        (malformed._index_out_of_range, r"column index 1000000 is outside \[0, 5\)"),
        (malformed._decreasing_indptr, r"indptr decreases at row 1"),
        (lambda: malformed._with_value(np.nan), "NaN"),
        (lambda: malformed._with_value(-2.0), "Negative values in data passed to MultinomialNB"),
    ],
)
def test_messages_name_the_problem(make, match):
    with pytest.raises(ValueError, match=match):
        nbfast.MultinomialNB().fit(make(), malformed._y())


def test_wrong_n_features_names_both_numbers():
    model = nbfast.MultinomialNB().fit(malformed._csr(), malformed._y())
    with pytest.raises(ValueError, match="X has 7 features, but MultinomialNB is expecting 5 features"):
        model.predict(np.ones((1, 7)))


@pytest.mark.parametrize("dtype", [np.float16, np.int32, np.int64, np.uint8, bool])
def test_float16_and_integer_input_accepted(dtype):
    X = malformed._csr().toarray().astype(dtype)
    expected = nbfast.MultinomialNB().fit(X.astype(np.float64), malformed._y()).predict_proba(X.astype(np.float64))
    model = nbfast.MultinomialNB().fit(X, malformed._y())
    np.testing.assert_array_equal(model.predict_proba(X), expected)
    if dtype != np.float16:  # scipy.sparse has no float16
        np.testing.assert_array_equal(model.predict_proba(sp.csr_matrix(X)), expected)


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
    params = {"binarize": 2.5} if name == "BernoulliNB" else {"cv": 2} if name.endswith("NBCV") else {}
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


def _shuffled_rows(X, seed=0):
    """X with the entries of every row in a random order (no duplicates added)."""
    rng = np.random.default_rng(seed)
    order = np.concatenate([start + rng.permutation(stop - start) for start, stop in zip(X.indptr[:-1], X.indptr[1:])])
    shuffled = sp.csr_matrix((X.data[order], X.indices[order], X.indptr.copy()), shape=X.shape)
    assert not shuffled.has_sorted_indices
    return shuffled


@pytest.mark.parametrize("index_dtype", [np.int32, np.int64])
def test_unsorted_rows_without_duplicates_are_used_as_they_are(index_dtype):
    from nbfast._validation import check_X

    X = _shuffled_rows(sp.random(300, 50, density=0.3, format="csr", random_state=0, dtype=np.float64))
    X.indices, X.indptr = X.indices.astype(index_dtype), X.indptr.astype(index_dtype)
    assert check_X(X, nbfast.MultinomialNB(), reset=True) is X
    duplicated = X.copy()
    duplicated.indices[duplicated.indptr[-2]] = duplicated.indices[duplicated.indptr[-2] + 1]  # the last row only
    canonical = check_X(duplicated, nbfast.MultinomialNB(), reset=True)
    assert canonical is not duplicated and canonical.has_canonical_format
    np.testing.assert_array_equal(canonical.toarray(), duplicated.toarray())


@pytest.mark.parametrize("n_threads", [1, 2])
def test_the_duplicate_search_counts_the_rows_a_loop_counts(n_threads):
    from nbfast._kernels.validate import count_rows_with_duplicates

    X = _shuffled_rows(sp.random(2000, 64, density=0.2, format="csr", random_state=4, dtype=np.float64))
    rng = np.random.default_rng(5)
    for row in rng.choice(2000, 300, replace=False):  # a duplicate in 300 rows, sorted or not
        start, stop = X.indptr[row], X.indptr[row + 1]
        if stop - start >= 2:
            X.indices[rng.integers(start, stop)] = X.indices[rng.integers(start, stop)]
    expected = sum(len(set(r)) < len(r) for r in np.split(X.indices, X.indptr[1:-1]))
    assert expected > 250
    last_row = np.zeros((n_threads, 64), dtype=np.uint32)
    assert count_rows_with_duplicates(X.indices, X.indptr, last_row, n_threads) == expected


def test_the_duplicate_search_sees_a_column_repeated_far_apart_in_a_long_row():
    from nbfast._kernels.validate import count_rows_with_duplicates

    row = np.r_[np.arange(1000, 0, -1), 500].astype(np.int32)  # unsorted, 500 twice, 500 entries apart
    indptr = np.array([0, 3, 3 + row.size], dtype=np.int32)
    indices = np.r_[np.array([0, 1, 2], dtype=np.int32), row]
    last_row = np.zeros((2, 1001), dtype=np.uint32)
    assert count_rows_with_duplicates(indices, indptr, last_row, 2) == 1
    last_row[:] = 0
    assert count_rows_with_duplicates(indices[:-1], indptr - np.array([0, 0, 1], dtype=np.int32), last_row, 2) == 0


def test_beyond_marked_features_unsorted_rows_are_copied_into_canonical_form(monkeypatch):
    from nbfast import _validation

    X = _shuffled_rows(sp.random(50, 40, density=0.3, format="csr", random_state=1, dtype=np.float64))
    assert _validation.check_X(X, nbfast.MultinomialNB(), reset=True) is X
    monkeypatch.setattr(_validation, "MARKED_FEATURES", 39)
    canonical = _validation.check_X(X, nbfast.MultinomialNB(), reset=True)
    assert canonical is not X and canonical.has_sorted_indices


@pytest.mark.parametrize("name", [n for n, cls in ESTIMATORS.items() if not cls._composite])
def test_unsorted_rows_predict_as_sorted_ones(name):
    rng = np.random.default_rng(3)
    X = sp.random(200, 30, density=0.3, format="csr", random_state=2, dtype=np.float64)
    X.data = np.round(X.data * 5) + 1
    y = rng.integers(0, 3, 200)
    shuffled = _shuffled_rows(X)
    model = ESTIMATORS[name]().fit(shuffled, y)
    reference = ESTIMATORS[name]().fit(X, y)
    for method in ("predict_proba", "predict_joint_log_proba"):
        np.testing.assert_allclose(getattr(model, method)(shuffled), getattr(reference, method)(X), rtol=1e-12)
    np.testing.assert_array_equal(model.predict(shuffled), reference.predict(X))
