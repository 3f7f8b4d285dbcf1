"""Bad input never crashes, corrupts or silently misleads; results do not depend on the thread count."""

import copy
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import malformed
import nbfast
from nbfast._kernels import counts, scoring
from nbfast._kernels.scoring import Output
from nbfast.datasets import make_documents
from test_discrete import reference

TESTS = Path(__file__).parent


def test_malformed_battery_never_kills_the_interpreter():
    """Every case in a fresh interpreter: a signal (segfault, abort) would show as a negative return code."""
    result = subprocess.run(
        [sys.executable, str(TESTS / "malformed.py")], capture_output=True, text=True, timeout=600
    )
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    assert result.stdout.count("\n") > 100


@pytest.mark.parametrize("description,outcome", list(malformed.run_battery()), ids=lambda v: str(v)[:70])
def test_malformed_battery_raises_clean_errors(description, outcome):
    assert not outcome.startswith(("UNEXPECTED", "WRONG", "NO ERROR")), f"{description}: {outcome}"


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


def _state(model):
    return copy.deepcopy({k: v for k, v in vars(model).items()})


def _assert_same_state(before, model):
    after = vars(model)
    assert before.keys() == after.keys()
    for key, value in before.items():
        if isinstance(value, np.ndarray):
            np.testing.assert_array_equal(after[key], value, err_msg=key)
        else:
            assert after[key] == value, key


@pytest.mark.parametrize("estimator", malformed.ESTIMATORS)
def test_failing_calls_leave_a_fitted_model_unchanged(estimator):
    X, y = make_documents(60, 5, 2, random_state=0)
    model = getattr(nbfast, estimator)().partial_fit(X, y, classes=[0, 1])
    before = _state(model)
    failing = [
        lambda: model.partial_fit(X, np.where(y == 1, 7, y)),  # unknown label
        lambda: model.partial_fit(malformed._with_value(np.nan), malformed._y()),
        lambda: model.partial_fit(np.ones((2, 9)), [0, 1]),
        lambda: model.partial_fit(X, y, classes=[0, 1, 2]),
        lambda: model.partial_fit(X, y[:-1]),
        lambda: model.partial_fit(X, y, sample_weight=np.full(len(y), np.nan)),
        lambda: model.set_params(alpha=-1.0).partial_fit(X, y),
    ]
    for call in failing:
        with pytest.raises(ValueError):
            call()
        model.set_params(alpha=1.0)
        _assert_same_state(before, model)


@pytest.mark.parametrize("estimator", malformed.ESTIMATORS)
def test_bit_identical_for_any_thread_count_and_repeated_runs(estimator, n_threads_limit):
    X, y = make_documents(3000, 500, 11, mean_length=50, class_separation=0.2, random_state=7)
    weights = np.random.default_rng(7).uniform(0, 5, size=X.shape[0])
    outputs = []
    for n_threads in (1, 2, 3, 4, 2):
        with n_threads_limit(n_threads):
            model = getattr(nbfast, estimator)().fit(X, y, sample_weight=weights)
            outputs.append(
                [model.feature_count_.copy(), model.predict_joint_log_proba(X), model.predict_proba(X),
                 model.predict_log_proba(X), model.predict(X)]
            )
    for other in outputs[1:]:
        for a, b in zip(outputs[0], other):
            np.testing.assert_array_equal(a, b)


def _huge_zero_table(shape):
    """A zero table of over 2**31 entries: np.zeros maps it lazily, so only touched pages cost memory."""
    try:
        return np.zeros(shape)
    except MemoryError:
        pytest.skip("the machine refuses a 16 GiB virtual allocation")


def test_scoring_index_arithmetic_past_2_31_entries():
    n_features, n_classes = 2**30 + 3, 2  # n_features * n_classes > 2**31
    table = _huge_zero_table((n_features, n_classes))
    last = n_features - 1
    table[last] = [0.5, -1.0]
    X = sp.csr_matrix((np.array([2.0]), np.array([last], dtype=np.int64), np.array([0, 1], dtype=np.int64)),
                      shape=(1, n_features))
    out = np.empty((1, n_classes))
    scoring.score_csr(X.data, X.indices, X.indptr, table, np.zeros(n_classes), False, 0.0,
                      Output.JOINT_LOG_LIKELIHOOD, out, np.empty(0, dtype=np.int64), 2)
    np.testing.assert_array_equal(out, [[1.0, -2.0]])


def test_count_index_arithmetic_past_2_31_entries():
    n_classes, n_features = 2, 2**30 + 3
    feature_count = _huge_zero_table((n_classes, n_features))
    last = n_features - 1
    X = sp.csr_matrix((np.array([3.0]), np.array([last], dtype=np.int64), np.array([0, 1], dtype=np.int64)),
                      shape=(1, n_features))
    counts.add_class_counts(X.data, X.indices, X.indptr, np.array([0], dtype=np.intp),
                            np.array([0, 0, 1], dtype=np.intp), np.empty(0), False, 0.0, feature_count, 2)
    assert feature_count[1, last] == 3.0
    assert feature_count[0, last] == 0.0


@st.composite
def count_problems(draw):
    n_samples = draw(st.integers(2, 40))
    n_features = draw(st.integers(1, 15))
    n_classes = draw(st.integers(1, 4))
    density = draw(st.floats(0.0, 1.0))
    seed = draw(st.integers(0, 2**31 - 1))
    rng = np.random.default_rng(seed)
    X = rng.poisson(3.0, size=(n_samples, n_features)) * (rng.random((n_samples, n_features)) < density)
    y = rng.integers(0, n_classes, size=n_samples)
    labels = draw(st.sampled_from(["int", "str"]))
    if labels == "str":
        y = np.array(["α", "b", "c", "d"])[y]
    weights = rng.uniform(0.1, 3.0, size=n_samples) if draw(st.booleans()) else None
    layout = draw(st.sampled_from(["dense", "csr32", "csr64", "f32"]))
    alpha = draw(st.sampled_from([0.01, 0.5, 1.0, 2.5]))
    return X.astype(np.float64), y, weights, layout, alpha


def _layout(X, layout):
    if layout == "dense":
        return X
    if layout == "f32":
        return sp.csr_array(X.astype(np.float32))
    S = sp.csr_array(X)
    index_dtype = np.int32 if layout == "csr32" else np.int64
    S.indices, S.indptr = S.indices.astype(index_dtype), S.indptr.astype(index_dtype)
    return S


@pytest.mark.parametrize("kind", ["multinomial", "bernoulli"])
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(problem=count_problems())
def test_property_matches_numpy_reference(kind, problem):
    X, y, weights, layout, alpha = problem
    cls = nbfast.MultinomialNB if kind == "multinomial" else nbfast.BernoulliNB
    model = cls(alpha=alpha).fit(_layout(X, layout), y, sample_weight=weights)
    expected = reference(kind, X, y, X, alpha=alpha, sample_weight=weights)
    rtol = 1e-5 if layout == "f32" else 1e-9
    np.testing.assert_allclose(model.feature_count_, expected["feature_count_"], rtol=rtol)
    np.testing.assert_allclose(model.predict_joint_log_proba(_layout(X, layout)), expected["jll"], rtol=rtol, atol=rtol)
    np.testing.assert_allclose(model.predict_proba(_layout(X, layout)), expected["proba"], rtol=rtol, atol=rtol)
