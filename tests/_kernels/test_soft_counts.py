"""Soft-label counts (semi-supervised EM's M-step: the scoring kernel run on X.T against the class weights)
against a dense numpy float64 reference."""

import numpy as np
import pytest
import scipy.sparse as sp
from support.helpers import FLOAT_DTYPES, INDEX_DTYPES, as_container, read_only

from nbfast._kernels import counts
from nbfast.datasets import make_documents
from nbfast.naive_bayes._count import soft_class_counts


def _problem(n_samples=300, n_features=80, n_classes=5, seed=1):
    X, _ = make_documents(n_samples, n_features, n_classes, mean_length=25, random_state=seed)
    rng = np.random.default_rng(seed)
    class_weight = rng.dirichlet(np.ones(n_classes), size=n_samples) * rng.uniform(0, 2, size=(n_samples, 1))
    return X, class_weight


def _reference(X, class_weight, threshold=None):
    """class_count, feature_count by dense float64 products: W.sum(0) and W.T @ f(X)."""
    dense = X.toarray().astype(np.float64)
    f = dense if threshold is None else (dense > threshold).astype(np.float64)
    return class_weight.sum(axis=0), class_weight.T @ f


@pytest.mark.parametrize("dtype", FLOAT_DTYPES)
@pytest.mark.parametrize("index_dtype", INDEX_DTYPES)
@pytest.mark.parametrize("container", ["csr_matrix", "csr_array"])
@pytest.mark.parametrize("frozen", [False, True], ids=["writable", "read-only"])
@pytest.mark.parametrize("threshold", [None, 0.0, 1.5], ids=["counts", "binarized", "binarized>1.5"])
def test_soft_class_counts_match_the_dense_reference(dtype, index_dtype, container, frozen, threshold):
    X, class_weight = _problem()
    X = as_container(X, container, dtype, index_dtype)
    if frozen:
        X, class_weight = read_only(X), class_weight.copy()
        class_weight.flags.writeable = False
    class_count, feature_count = np.ones(5), np.ones((5, 80))  # the kernel adds to what is there
    accumulate = soft_class_counts(X, binarize=threshold is not None, threshold=threshold or 0.0)
    accumulate(class_weight, class_count, feature_count)
    want_class, want_feature = _reference(X, class_weight, threshold)
    np.testing.assert_allclose(class_count, 1.0 + want_class, rtol=1e-12)
    np.testing.assert_allclose(feature_count, 1.0 + want_feature, rtol=1e-12, atol=1e-12)
    accumulate(class_weight, class_count, feature_count)  # prepared once, called again: adds again
    np.testing.assert_allclose(feature_count, 1.0 + 2 * want_feature, rtol=1e-12, atol=1e-12)


def test_non_canonical_csr_unsorted_and_duplicate_entries():
    # Row 0 lists feature 3 twice (entries add up) and its features out of order; row 1 is empty.
    X = sp.csr_array((np.array([1.0, 2.0, 4.0, 0.5, 3.0]), np.array([3, 0, 3, 2, 1]), np.array([0, 4, 4, 5])),
                     shape=(3, 5))
    class_weight = np.array([[0.25, 0.75], [1.0, 0.0], [0.5, 0.5]])
    class_count, feature_count = np.zeros(2), np.zeros((2, 5))
    soft_class_counts(X)(class_weight, class_count, feature_count)
    np.testing.assert_array_equal(feature_count, class_weight.T @ X.toarray())
    np.testing.assert_array_equal(class_count, [1.75, 1.25])


@pytest.mark.parametrize("dtype", FLOAT_DTYPES)
def test_bit_identical_for_any_thread_count(dtype, n_threads_limit):
    X, class_weight = _problem(n_samples=2000, n_features=300, n_classes=7, seed=4)
    accumulate = soft_class_counts(X.astype(dtype))
    results = []
    for n_threads in (1, 2, 3):
        class_count, feature_count = np.zeros(7), np.zeros((7, 300))
        with n_threads_limit(n_threads):
            accumulate(class_weight, class_count, feature_count)
        results.append((class_count, feature_count))
    for class_count, feature_count in results[1:]:
        np.testing.assert_array_equal(class_count, results[0][0])
        np.testing.assert_array_equal(feature_count, results[0][1])


def test_one_hot_weights_give_the_hard_class_counts():
    X, _ = _problem()
    y = np.arange(300) % 5
    class_count, feature_count = np.zeros(5), np.zeros((5, 80))
    soft_class_counts(X)(np.eye(5)[y], class_count, feature_count)
    hard = np.zeros((5, 80))
    order = np.argsort(y, kind="stable").astype(np.intp)
    start = np.concatenate([[0], np.cumsum(np.bincount(y))]).astype(np.intp)
    counts.add_class_counts(X.data, X.indices, X.indptr, order, start, np.empty(0), False, 0.0, hard, 1)
    np.testing.assert_array_equal(feature_count, hard)  # integer counts: exact in any order
    np.testing.assert_array_equal(class_count, np.bincount(y))
