"""The kernels of a search over folds: every fold counted in one pass (against fits on each fold), every alpha
scored in one pass (against score_compact with each alpha's table alone, bit for bit), and the table of logs."""

import numpy as np
import pytest
import scipy.sparse as sp

from nbfast._kernels import compact, folds
from nbfast._kernels.scoring import Output
from nbfast.datasets import make_documents
from nbfast.naive_bayes._counts import SparseCounts
from nbfast.naive_bayes._labels import encode_labels, unique_classes


def corpus(dtype=np.float64, index_dtype=np.int32, n_classes=9):
    """Few documents over a large vocabulary: compact counts with dense rows (frequent words) and sparse ones."""
    X, y = make_documents(300, 3_000, n_classes, mean_length=25, class_separation=0.4, dtype=dtype,
                          index_dtype=index_dtype, random_state=2)
    return X, encode_labels(unique_classes(y), y)


def fold_counts(X, y_index, fold, weights, n_classes, n_folds, n_threads):
    return folds.fold_counts(X.data, X.indices, X.indptr, y_index, fold, np.empty(0) if weights is None else weights,
                             X.shape[1], n_classes, n_folds, n_threads)


def fitted_counts(X, y_index, weights, n_classes):
    """The compact counts of a fit on the rows of X (every class named, none of them left out)."""
    counts = SparseCounts.empty(n_classes, X.shape[1]).add(X, y_index, weights)
    return counts.settled()


@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("index_dtype", [np.int32, np.int64])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_each_fold_s_counts_are_a_fit_on_its_rows_on_the_pattern_of_all_rows(dtype, index_dtype, weighted):
    X, y_index = corpus(dtype, index_dtype)
    n_classes, n_folds = 9, 4
    fold = np.random.default_rng(0).integers(0, n_folds, size=X.shape[0]).astype(np.intp)
    weights = np.random.default_rng(1).uniform(0.2, 3.0, size=X.shape[0]) if weighted else None
    indptr, classes, values = fold_counts(X, y_index, fold, weights, n_classes, n_folds, 2)
    whole = fitted_counts(X, y_index, weights, n_classes)
    np.testing.assert_array_equal(indptr, whole.indptr)  # the pattern of a fit on every row, dense rows included
    np.testing.assert_array_equal(classes, whole.classes)
    assert np.diff(indptr).max() == n_classes  # there are dense rows, and sparse ones
    for k in range(n_folds):
        rows = fold == k
        part = fitted_counts(X[rows], y_index[rows], None if weights is None else weights[rows], n_classes)
        on_pattern = SparseCounts(indptr, classes, values[k], n_classes)
        np.testing.assert_array_equal(on_pattern.toarray(), part.toarray())  # bit for bit: the rows in order


def test_fold_counts_do_not_depend_on_the_number_of_threads():
    X, y_index = corpus()
    fold = (np.arange(X.shape[0]) % 5).astype(np.intp)
    weights = np.random.default_rng(1).uniform(0.2, 3.0, size=X.shape[0])
    one = fold_counts(X, y_index, fold, weights, 9, 5, 1)
    for n_threads in (2, 3, 7):
        for got, want in zip(fold_counts(X, y_index, fold, weights, 9, 5, n_threads), one):
            np.testing.assert_array_equal(got, want)


def test_fold_counts_of_empty_rows_and_unseen_features():
    X = sp.csr_matrix((np.array([2.0, 1.0]), np.array([3, 0]), np.array([0, 0, 1, 2, 2])), shape=(4, 5))
    y_index, fold = np.array([0, 1, 1, 0], dtype=np.intp), np.array([0, 0, 1, 1], dtype=np.intp)
    indptr, classes, values = fold_counts(X, y_index, fold, None, 5, 2, 2)  # 5 classes: one is not a dense row
    np.testing.assert_array_equal(np.diff(indptr), [1, 0, 0, 1, 0])
    np.testing.assert_array_equal(classes, [1, 1])  # feature 0 in row 2 (class 1), feature 3 in row 1 (class 1)
    np.testing.assert_array_equal(values, [[0.0, 2.0], [1.0, 0.0]])


def random_tables(counts, n_alphas, rng, base=False, scale=False):
    """Random side-by-side tables on the pattern of ``counts``: (deviation, default, scale, base, bias)."""
    n_features, n_classes = counts.n_features, counts.n_classes
    deviation = rng.normal(size=(counts.nnz, n_alphas))
    default, bias = rng.normal(size=(n_classes, n_alphas)), rng.normal(size=(n_classes, n_alphas))
    none = np.empty((0, n_alphas))
    return (deviation, default, rng.normal(size=(n_classes, n_alphas)) if scale else none,
            rng.normal(size=(n_features, n_alphas)) if base else none, bias)


@pytest.mark.parametrize("n_alphas", [3, 11])  # 11: more alphas than one group of registers holds
@pytest.mark.parametrize("coded", [False, True])
@pytest.mark.parametrize("terms", ["plain", "base", "base and scale"])
@pytest.mark.parametrize("mode", [Output.ARGMAX, Output.PROBA])
@pytest.mark.parametrize("n_threads", [1, 2])
def test_every_alpha_is_scored_as_its_table_alone_bit_for_bit(n_alphas, coded, terms, mode, n_threads):
    X, y_index = corpus(np.float32, np.int64)
    counts = fitted_counts(X, y_index, None, 9)
    rng = np.random.default_rng(5)
    deviation, default, scale, base, bias = random_tables(counts, n_alphas, rng, terms != "plain",
                                                          terms == "base and scale")
    codes = np.empty(0, dtype=np.int32)
    if coded:  # the entries' deviations read through codes, from a table of 40 rows
        deviation, codes = deviation[:40], rng.integers(0, 40, size=counts.nnz).astype(np.int32)
    by_entry = deviation[codes] if coded else deviation
    rows = np.sort(rng.choice(X.shape[0], size=120, replace=False)).astype(np.intp)
    take = rng.integers(0, 9, size=rows.shape[0]).astype(np.intp)
    labels = np.empty((rows.shape[0], n_alphas) if mode == Output.ARGMAX else (0, 0), dtype=np.int64)
    out = np.empty((0, 0) if mode == Output.ARGMAX else (rows.shape[0], n_alphas))
    folds.score_alphas(X.data, X.indices, X.indptr, rows, counts.indptr, counts.classes, codes, deviation, default,
                       scale, base, bias, take, mode, out, labels, n_threads)
    X_rows = X[rows]
    none = np.empty(0)
    for a in range(n_alphas):
        alone_labels = np.empty(rows.shape[0] if mode == Output.ARGMAX else 0, dtype=np.int64)
        alone = np.empty((0, 0) if mode == Output.ARGMAX else (rows.shape[0], 9))
        compact.score_compact(X_rows.data, X_rows.indices, X_rows.indptr, counts.indptr, counts.classes,
                              np.ascontiguousarray(by_entry[:, a]), np.ascontiguousarray(default[:, a]),
                              np.ascontiguousarray(scale[:, a]) if scale.size else none,
                              np.ascontiguousarray(base[:, a]) if base.size else none,
                              np.ascontiguousarray(bias[:, a]), False, 0.0, mode, alone, alone_labels, 1)
        if mode == Output.ARGMAX:
            np.testing.assert_array_equal(labels[:, a], alone_labels)
        else:
            np.testing.assert_array_equal(out[:, a], alone[np.arange(rows.shape[0]), take])


def test_the_first_of_tied_classes_wins_as_in_predict():
    X = sp.csr_matrix(np.array([[1.0, 0.0], [0.0, 0.0]]))
    counts = SparseCounts(np.array([0, 3, 3], dtype=np.int32), np.array([0, 1, 2], dtype=np.int32),
                          np.ones(3), 3)
    deviation = np.array([[0.0, 1.0], [2.0, 1.0], [2.0, 0.5]])  # alpha 0: classes 1 and 2 tie; alpha 1: 0 and 1
    labels = np.empty((2, 2), dtype=np.int64)
    folds.score_alphas(X.data, X.indices, X.indptr, np.arange(2), counts.indptr, counts.classes,
                       np.empty(0, dtype=np.int32), deviation, np.zeros((3, 2)), np.empty((0, 2)), np.empty((0, 2)),
                       np.zeros((3, 2)), np.empty(0, dtype=np.intp), Output.ARGMAX, np.empty((0, 0)), labels, 1)
    np.testing.assert_array_equal(labels, [[1, 0], [0, 0]])


@pytest.mark.parametrize("differences", [False, True])
def test_table_rows_looks_up_whole_numbers_only(differences):
    table = np.log(np.arange(5.0)[:, None] + np.array([0.5, 2.0]))
    values = np.array([0.0, 3.0, 4.0, 5.0, 2.5, -1.0, np.nan, 1e300, 1.0, 2.0])
    minus = np.array([1.0, 0.0, 4.0, 1.0, 1.0, 1.0, 1.0, 1.0, 3.0, 0.5]) if differences else np.empty(0)
    out = np.full((values.shape[0], 2), -7.0)
    other = np.empty(values.shape[0], dtype=np.uint8)
    folds.table_rows(values, minus, table, out, other, 2)
    looked_up = [0, 1, 2, 8]
    np.testing.assert_array_equal(np.flatnonzero(other == 0), looked_up + ([] if differences else [9]))
    want = table[values[looked_up].astype(int)] - (table[minus[looked_up].astype(int)] if differences else 0.0)
    np.testing.assert_array_equal(out[looked_up], want)
    assert np.all(out[other == 1] == -7.0)

