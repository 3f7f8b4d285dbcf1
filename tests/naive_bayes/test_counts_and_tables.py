"""Counts and tables as objects: the two representations answer alike, and one policy chooses between them."""

import numpy as np
import pytest
import scipy.sparse as sp

from nbfast._kernels.scoring import Output
from nbfast.naive_bayes import _counts
from nbfast.naive_bayes._counts import DenseCounts, SparseCounts, check_statistics, resettled, sum_counts
from nbfast.naive_bayes._tables import CompactTable, DenseTable, as_table, smoothed_table


def batch(n_samples=40, n_features=30, n_classes=3, density=0.1, seed=0):
    rng = np.random.default_rng(seed)
    X = sp.random(n_samples, n_features, density=density, format="csr", random_state=seed,
                  data_rvs=lambda n: rng.integers(1, 5, n).astype(np.float64))
    X.sort_indices()
    return X, rng.integers(0, n_classes, n_samples).astype(np.intp), rng.uniform(0.5, 2.0, n_samples)


def both(X, y_index, weights, n_classes=3, **kwargs):
    """The same batch counted into empty dense and sparse counts."""
    dense = DenseCounts.empty(n_classes, X.shape[1]).add(X, y_index, weights, **kwargs)
    sparse = SparseCounts.empty(n_classes, X.shape[1]).add(X, y_index, weights, **kwargs).settled()
    return dense, sparse


@pytest.mark.parametrize("kwargs", [{}, {"binarize": True, "threshold": 1.5}, {"rows": np.array([3, 0, 7, 20])}])
def test_dense_and_sparse_counts_answer_alike(kwargs):
    dense, sparse = both(*batch(), **kwargs)
    np.testing.assert_allclose(sparse.toarray(), dense.toarray())
    np.testing.assert_allclose(sparse.feature_totals(), dense.feature_totals())
    np.testing.assert_allclose(sparse.negated().toarray(), -dense.toarray())
    assert dense.shape == sparse.shape == (3, 30)
    assert dense.compact_form() is None and sparse.compact_form() is sparse
    np.testing.assert_allclose(sum_counts([sparse, dense]).toarray(), 2 * dense.toarray())
    assert sum_counts([sparse, sparse]).compact_form() is not None
    moved = np.arange(30), 2 * np.arange(30) + 1  # every column, to a wider layout
    np.testing.assert_allclose(sparse.moved_columns(*moved, 61).toarray(), dense.moved_columns(*moved, 61).toarray())
    np.testing.assert_allclose(dense.moved_columns(*moved, 61).toarray()[:, 1::2], dense.toarray())


def test_counts_for_the_next_batch_leave_the_fitted_ones_alone():
    X, y_index, weights = batch()
    dense, sparse = both(X, y_index, weights)
    before = dense.toarray().copy()
    dense.for_next_batch().add(X, y_index, weights)
    np.testing.assert_array_equal(dense.toarray(), before)
    assert sparse.for_next_batch() is sparse  # immutable: adding makes new counts
    added = sparse.add(X, y_index, weights)
    assert added is not sparse and added.settled().toarray().sum() == pytest.approx(2 * before.sum())


def test_attribute_of_compact_counts_is_a_read_only_copy():
    dense, sparse = both(*batch())
    assert dense.as_attribute() is dense.values
    attribute = sparse.as_attribute()
    assert not attribute.flags.writeable
    np.testing.assert_allclose(attribute, dense.values)


def test_the_policy_keeps_compact_counts_while_allowed_and_sparse(monkeypatch):
    X, y_index, weights = batch(n_features=500, n_classes=20, density=0.005)
    sparse = SparseCounts.empty(20, X.shape[1]).add(X, y_index, weights)
    assert resettled(sparse, True) is sparse
    assert resettled(sparse, True, batch_entries=X.nnz) is sparse
    forced = resettled(sparse, False)  # the estimator allows no compact table: dense, settled, for good
    assert forced.compact_form() is None
    np.testing.assert_allclose(forced.toarray(), sparse.settled().toarray())
    assert resettled(forced, True) is forced
    monkeypatch.setattr(_counts, "COMPACT_DENSITY", 1e-9)  # too dense now
    assert resettled(sparse, True).compact_form() is None
    monkeypatch.setattr(_counts, "COMPACT_INPUT_DENSITY", 1e-9)
    assert resettled(sparse, True, batch_entries=X.nnz, to_dense=lambda c: "dense") == "dense"


def test_overflowing_counts_are_refused_whatever_their_representation():
    X, y_index, _ = batch()
    for counts in both(X, y_index, np.full(X.shape[0], 1e308)):
        with pytest.raises(ValueError, match="overflow"):
            check_statistics({"_feature_counts": counts})


@pytest.mark.parametrize("mode", [Output.JOINT_LOG_LIKELIHOOD, Output.PROBA, Output.ARGMAX])
def test_dense_and_compact_tables_score_alike(mode):
    X, y_index, weights = batch()
    sparse = both(X, y_index, weights)[1]
    compact = smoothed_table(sparse, 0.5, np.log(sparse.class_totals() + 15.0))
    dense = as_table(compact.toarray())
    assert isinstance(dense, DenseTable) and as_table(compact) is compact
    assert dense.compact_form() is None and compact.compact_form() is compact
    bias = np.array([-1.0, -0.5, -2.0])
    np.testing.assert_allclose(compact.score(X, bias, False, 0.0, mode, 1), dense.score(X, bias, False, 0.0, mode, 1))
    table, indices = compact.for_columns(X.indices)
    np.testing.assert_allclose(table[indices], dense.toarray()[X.indices])
    assert all(isinstance(a, np.ndarray) for a in compact.arrays()) and dense.arrays() == (dense.values,)
    assert isinstance(compact, CompactTable)
