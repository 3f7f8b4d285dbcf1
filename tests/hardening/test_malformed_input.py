"""Bad input never crashes, corrupts or silently misleads; results do not depend on the thread count."""

import copy
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import scipy.sparse as sp
from support import malformed

import nbfast
from nbfast._kernels import counts, scoring
from nbfast._kernels.scoring import Output
from nbfast.datasets import make_documents

SUPPORT = Path(__file__).parents[1] / "support"


def test_malformed_battery_never_kills_the_interpreter():
    """Every case in a fresh interpreter: a signal (segfault, abort) would show as a negative return code."""
    result = subprocess.run(
        [sys.executable, str(SUPPORT / "malformed.py")], capture_output=True, text=True, timeout=600
    )
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    assert result.stdout.count("\n") > 100


@pytest.mark.parametrize("description,outcome", list(malformed.run_battery()), ids=lambda v: str(v)[:70])
def test_malformed_battery_raises_clean_errors(description, outcome):
    assert not outcome.startswith(("UNEXPECTED", "WRONG", "NO ERROR")), f"{description}: {outcome}"


def _assert_same(a, b, where="model"):
    """Equal values, recursing into containers and into the attributes of estimators."""
    assert type(a) is type(b), where
    if isinstance(a, np.ndarray):
        np.testing.assert_array_equal(a, b, err_msg=where)
    elif isinstance(a, (list, tuple)):
        assert len(a) == len(b), where
        for i, (u, v) in enumerate(zip(a, b)):
            _assert_same(u, v, f"{where}[{i}]")
    elif isinstance(a, dict):
        assert a.keys() == b.keys(), where
        for key in a:
            _assert_same(a[key], b[key], f"{where}.{key}")
    elif hasattr(a, "__dict__") and not isinstance(a, type):
        _assert_same(vars(a), vars(b), where)
    else:
        assert a == b, where


@pytest.mark.parametrize("estimator", malformed.ESTIMATORS)
def test_failing_calls_leave_a_fitted_model_unchanged(estimator):
    X, y = make_documents(60, 5, 2, random_state=0)
    model = getattr(nbfast, estimator)().partial_fit(X, y, classes=[0, 1])
    before = copy.deepcopy(model)
    bad_params = next(iter(malformed.PARAMETER_CASES[estimator].values()))
    good_params = {name: model.get_params()[name] for name in bad_params}
    failing = [
        lambda: model.partial_fit(X, np.where(y == 1, 7, y)),  # unknown label
        lambda: model.partial_fit(malformed._with_value(np.nan), malformed._y()),
        lambda: model.partial_fit(np.ones((2, 9)), [0, 1]),
        lambda: model.partial_fit(X, y, classes=[0, 1, 2]),
        lambda: model.partial_fit(X, y[:-1]),
        lambda: model.partial_fit(X, y, sample_weight=np.full(len(y), np.nan)),
        lambda: model.set_params(**bad_params).partial_fit(X, y),
    ]
    for call in failing:
        with pytest.raises(ValueError):
            call()
        model.set_params(**good_params)
        _assert_same(model, before)


@pytest.mark.parametrize("estimator", malformed.ESTIMATORS)
def test_bit_identical_for_any_thread_count_and_repeated_runs(estimator, n_threads_limit):
    X, y = make_documents(3000, 500, 11, mean_length=50, class_separation=0.2, random_state=7)
    weights = np.random.default_rng(7).uniform(0, 5, size=X.shape[0])
    models, outputs = [], []
    for n_threads in (1, 2, 3, 4, 2):
        with n_threads_limit(n_threads):
            model = getattr(nbfast, estimator)().fit(X, y, sample_weight=weights)
            models.append(model)
            outputs.append([model.predict_joint_log_proba(X), model.predict_proba(X),
                            model.predict_log_proba(X), model.predict(X)])
    for other_model, other in zip(models[1:], outputs[1:]):
        _assert_same(other_model, models[0])
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
