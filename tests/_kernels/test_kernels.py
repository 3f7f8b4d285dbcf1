"""The kernels called directly, on valid input, against numpy; and the debug build's bounds checks."""

import os

import numpy as np
import pytest
import scipy.sparse as sp

from nbfast._kernels import counts, scoring, validate
from nbfast._kernels.scoring import Output
from nbfast._kernels.threads import bounds_checked, effective_n_threads, openmp_enabled
from nbfast.datasets import make_documents


def _problem(dtype=np.float64, index_dtype=np.int32):
    X, y = make_documents(200, 60, 4, mean_length=20, dtype=dtype, index_dtype=index_dtype, random_state=1)
    table = np.random.default_rng(0).normal(size=(60, 4))
    bias = np.array([-1.0, -2.0, -0.5, -3.0])
    return X, y, table, bias


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("index_dtype", [np.int32, np.int64])
@pytest.mark.parametrize("binarize", [False, True])
def test_score_csr_every_output(dtype, index_dtype, binarize):
    X, _, table, bias = _problem(dtype, index_dtype)
    dense = X.toarray().astype(np.float64)
    f = (dense > 1.0).astype(float) if binarize else dense
    jll = f @ table + bias
    log_norm = np.log(np.exp(jll - jll.max(1, keepdims=True)).sum(1, keepdims=True)) + jll.max(1, keepdims=True)
    expected = {
        Output.JOINT_LOG_LIKELIHOOD: jll,
        Output.LOG_PROBA: jll - log_norm,
        Output.PROBA: np.exp(jll - log_norm),
    }
    for mode, want in expected.items():
        out = np.empty_like(jll)
        scoring.score_csr(X.data, X.indices, X.indptr, table, bias, binarize, 1.0, mode, out,
                          np.empty(0, dtype=np.int64), effective_n_threads())
        np.testing.assert_allclose(out, want, rtol=1e-10, atol=1e-12)
    labels = np.empty(X.shape[0], dtype=np.int64)
    scoring.score_csr(X.data, X.indices, X.indptr, table, bias, binarize, 1.0, Output.ARGMAX, np.empty((0, 0)),
                      labels, effective_n_threads())
    np.testing.assert_array_equal(labels, jll.argmax(axis=1))


@pytest.mark.parametrize("n_classes", [1, 2, 3, 5, 7, 13, 19, 20, 21, 25, 39, 40, 41, 45, 61])
def test_joint_log_likelihood_of_any_class_count_sums_each_class_in_nonzero_order(n_classes):
    """The classes are summed in register tiles of several widths: whatever the tiling, each class's sum is
    bias + its terms added in the order of the row's nonzeros, bit for bit."""
    X, _, _, _ = _problem()
    rng = np.random.default_rng(n_classes)
    table, bias = rng.normal(size=(X.shape[1], n_classes)), rng.normal(size=n_classes)
    expected = np.empty((X.shape[0], n_classes))
    for i in range(X.shape[0]):
        acc = bias.copy()
        for k in range(X.indptr[i], X.indptr[i + 1]):
            acc += X.data[k] * table[X.indices[k]]
        expected[i] = acc
    for n_threads in (1, 2):
        out = np.empty_like(expected)
        scoring.score_csr(X.data, X.indices, X.indptr, table, bias, False, 0.0, Output.JOINT_LOG_LIKELIHOOD, out,
                          np.empty(0, dtype=np.int64), n_threads)
        np.testing.assert_array_equal(out, expected)


@pytest.mark.parametrize("n_threads", [1, 2])
def test_listed_rows_are_scored_and_counted_as_a_copy_of_them(n_threads):
    """score_csr and accumulate_class_counts read the rows ``rows`` in place (any order, repeats allowed) and
    give, bit for bit, what they give for a copy of those rows."""
    from nbfast.naive_bayes._count import accumulate_class_counts

    X, y, table, bias = _problem()
    rows = np.random.default_rng(5).choice(X.shape[0], size=150).astype(np.intp)
    copy = X[rows]
    for mode in (Output.JOINT_LOG_LIKELIHOOD, Output.PROBA):
        listed, alone = np.empty((150, 4)), np.empty((150, 4))
        scoring.score_csr(X.data, X.indices, X.indptr, table, bias, False, 0.0, mode, listed,
                          np.empty(0, dtype=np.int64), n_threads, 0, rows)
        scoring.score_csr(copy.data, copy.indices, copy.indptr, table, bias, False, 0.0, mode, alone,
                          np.empty(0, dtype=np.int64), n_threads)
        np.testing.assert_array_equal(listed, alone)
    weights = np.random.default_rng(6).uniform(0, 2, size=X.shape[0])
    counted = [np.zeros(4), np.zeros((4, X.shape[1]))]
    accumulate_class_counts(X, y, weights, *counted, rows=rows)
    expected = [np.zeros(4), np.zeros((4, X.shape[1]))]
    accumulate_class_counts(copy, y[rows], weights[rows], *expected)
    for got, want in zip(counted, expected):
        np.testing.assert_array_equal(got, want)


def test_add_class_counts_matches_dense_product():
    X, y, _, _ = _problem()
    weights = np.random.default_rng(3).uniform(0, 2, size=X.shape[0])
    order = np.argsort(y, kind="stable").astype(np.intp)
    start = np.concatenate([[0], np.cumsum(np.bincount(y, minlength=4))]).astype(np.intp)
    out = np.ones((4, 60))
    counts.add_class_counts(X.data, X.indices, X.indptr, order, start, weights, False, 0.0, out, 2)
    np.testing.assert_allclose(out, 1.0 + (np.eye(4)[y] * weights[:, None]).T @ X.toarray(), rtol=1e-12)


def test_validation_kernels_count_problems():
    X = sp.csr_matrix(np.array([[1.0, -2.0, 0.0], [np.nan, 0.0, np.inf]]))
    assert validate.count_bad_values(X.data, 2) == (2, 1)
    for dtype in (np.int32, np.int64):
        indices = np.array([0, 3, -1, 2, np.iinfo(dtype).min, np.iinfo(dtype).max], dtype=dtype)
        assert validate.count_bad_indices(indices, 3, 2) == 4
        # int32's largest index is below 2^40, int64's is not
        assert validate.count_bad_indices(indices, 2**40, 2) == (2 if dtype == np.int32 else 3)
    assert validate.count_bad_indptr(np.array([0, 2, 1, 3], dtype=np.int32)) == 1


def test_debug_build_checks_bounds():
    """In the debug build (NBFAST_DEBUG_BUILD=1) an out-of-range index raises instead of corrupting memory."""
    if not bounds_checked():
        if os.environ.get("NBFAST_EXPECT_DEBUG_BUILD"):
            pytest.fail("NBFAST_EXPECT_DEBUG_BUILD is set but the kernels were built without bounds checking")
        pytest.skip("release build: bounds checking is off")
    X, _, table, bias = _problem()
    too_short = np.empty(3, dtype=np.int64)  # one label per row is needed
    with pytest.raises(IndexError):
        scoring.score_csr(X.data, X.indices, X.indptr, table, bias, False, 0.0, Output.ARGMAX, np.empty((0, 0)),
                          too_short, 1)


def test_openmp_build_runs_the_threads_it_is_given(n_threads_limit):
    """The thread-determinism tests only mean something on an OpenMP build: CI sets NBFAST_EXPECT_OPENMP=1."""
    if not openmp_enabled():
        if os.environ.get("NBFAST_EXPECT_OPENMP"):
            pytest.fail("NBFAST_EXPECT_OPENMP is set but the kernels were built without OpenMP (serial)")
        pytest.skip("serial build: the compiler had no OpenMP")
    for n_threads in (1, 2, 3):
        with n_threads_limit(n_threads):
            assert effective_n_threads() == n_threads


def test_small_work_runs_on_one_thread(n_threads_limit):
    from nbfast._kernels import threads

    with n_threads_limit(2):
        threads.MIN_WORK_PER_THREAD = 1000  # monkeypatched back by the fixture
        assert effective_n_threads(999) == 1
        assert effective_n_threads(1999) == 1
        assert effective_n_threads(10**6) == (2 if threads.openmp_enabled() else 1)
        assert effective_n_threads() == (2 if threads.openmp_enabled() else 1)


@pytest.mark.parametrize("mode", [Output.PROBA, Output.LOG_PROBA])
def test_posteriors_over_the_whole_exponent_range(mode):
    """The vectorized exp (fdlibm's method, libm below -708) agrees with math.exp everywhere:
    joint log-likelihoods from 0 down to -800 (subnormal and zero posteriors), -inf, and ties."""
    import math

    rng = np.random.default_rng(7)
    n_rows, n_classes = 400, 11
    jll = -rng.uniform(0, 1, size=(n_rows, n_classes)) * rng.choice([1, 30, 700, 800], size=(n_rows, 1))
    jll[::7, 3] = -np.inf
    jll[::5, 4] = jll[::5, 0]
    empty = np.zeros(n_rows + 1, dtype=np.int32)  # rows without nonzeros: the output is the bias alone
    got = np.empty((n_rows, n_classes))
    for i in range(n_rows):
        scoring.score_csr(np.zeros(0), np.zeros(0, np.int32), empty[:2], np.zeros((1, n_classes)), jll[i], False, 0.0,
                          mode, got[i:i + 1], np.empty(0, dtype=np.int64), 1)
    for row, out in zip(jll, got):
        total = math.fsum(math.exp(v - row.max()) for v in row)
        if mode == Output.PROBA:
            want = np.array([math.exp(v - row.max()) / total for v in row])
            np.testing.assert_allclose(out, want, rtol=4e-15, atol=1e-320)
        else:
            want = row - (row.max() + math.log(total))
            np.testing.assert_allclose(out, want, rtol=4e-15, atol=2e-15)  # log(total): a rounded sum
