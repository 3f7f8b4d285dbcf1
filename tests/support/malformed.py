"""A battery of malformed inputs: each must raise a clean ValueError/TypeError
(or NotFittedError) and never crash the interpreter or touch a fitted model.

Run as a script it executes every case and prints one line per case, so the
test suite can run it in a subprocess and check that no case ends in a signal.
"""

import sys
from functools import partial

import numpy as np
import scipy.sparse as sp

import nbfast


def _csr():
    """A small valid CSR matrix (4 x 5) of counts, fresh every call."""
    dense = np.array([[1, 0, 2, 0, 0], [0, 3, 0, 0, 1], [4, 0, 0, 1, 0], [0, 0, 5, 0, 2]], dtype=np.float64)
    return sp.csr_matrix(dense)


def _y():
    return np.array([0, 1, 0, 1])


def _mutated(**changes):
    """A CSR matrix whose buffers are replaced after construction (scipy does not re-check them)."""
    X = _csr()
    for name, value in changes.items():
        setattr(X, name, value)
    return X


def _index_out_of_range():
    X = _csr()
    X.indices[2] = 10**6
    return X


def _negative_index():
    X = _csr()
    X.indices[0] = -3
    return X


def _decreasing_indptr():
    X = _csr()
    X.indptr[2] = 1
    X.indptr[1] = 4
    return X


def _with_value(value):
    X = _csr()
    X.data[1] = value
    return X


# name -> (estimator factory, method, args); fitted estimators are fitted on _csr(), _y().
FIT_CASES = {
    "index beyond n_features": lambda: (_index_out_of_range(), _y()),
    "negative column index": lambda: (_negative_index(), _y()),
    "indptr decreases": lambda: (_decreasing_indptr(), _y()),
    "indptr does not start at 0": lambda: (_mutated(indptr=np.array([1, 2, 4, 6, 8], dtype=np.int32)), _y()),
    "indptr ends past nnz": lambda: (_mutated(indptr=np.array([0, 2, 4, 6, 99], dtype=np.int32)), _y()),
    "indptr too short for the shape": lambda: (_mutated(indptr=np.array([0, 2, 4], dtype=np.int32)), _y()),
    "data shorter than indices": lambda: (_mutated(data=np.ones(3)), _y()),
    "float indices": lambda: (_mutated(indices=np.zeros(8)), _y()),
    "NaN value": lambda: (_with_value(np.nan), _y()),
    "infinite value": lambda: (_with_value(np.inf), _y()),
    "negative count": lambda: (_with_value(-1.0), _y()),
    "NaN dense": lambda: (np.array([[np.nan, 1.0], [1.0, 0.0]]), [0, 1]),
    "object array of strings": lambda: (np.array([["a", "b"], ["c", "d"]], dtype=object), [0, 1]),
    "string array": lambda: (np.array([["1", "2"], ["3", "4"]]), [0, 1]),
    "complex array": lambda: (np.ones((2, 2), dtype=complex), [0, 1]),
    "3-D array": lambda: (np.ones((2, 2, 2)), [0, 1]),
    "1-D array": lambda: (np.ones(4), [0, 1, 0, 1]),
    "empty X": lambda: (np.empty((0, 3)), []),
    "no features": lambda: (np.empty((3, 0)), [0, 1, 0]),
    "y too short": lambda: (_csr(), [0, 1]),
    "y two-dimensional": lambda: (_csr(), np.zeros((4, 2))),
    "continuous y": lambda: (_csr(), [0.5, 1.5, 2.5, 3.5]),
    "NaN in y": lambda: (_csr(), [0.0, np.nan, 1.0, 1.0]),
}

PREDICT_CASES = {
    "wrong n_features": lambda: np.ones((2, 7)),
    "index beyond n_features": _index_out_of_range,
    "indptr decreases": _decreasing_indptr,
    "NaN value": lambda: _with_value(np.nan),
    "sparse with more columns": lambda: sp.csr_matrix(np.ones((2, 6))),
}

_PRIOR_CASES = {
    "class_prior of the wrong length": {"class_prior": [0.2, 0.3, 0.5]},
    "class_prior not summing to 1": {"class_prior": [0.2, 0.3]},
    "negative class_prior": {"class_prior": [1.5, -0.5]},
}
_ALPHA_CASES = {"negative alpha": {"alpha": -1.0}, "alpha of the wrong length": {"alpha": np.ones(3)}}

# estimator -> bad hyperparameters, each refused at fit
PARAMETER_CASES = {
    "MultinomialNB": {**_ALPHA_CASES, **_PRIOR_CASES},
    "BernoulliNB": {**_ALPHA_CASES, **_PRIOR_CASES, "string binarize": {"binarize": "high"}},
    "ComplementNB": {**_ALPHA_CASES, **_PRIOR_CASES},
    "PoissonNB": {**_ALPHA_CASES, **_PRIOR_CASES, "zero beta": {"beta": 0.0}, "negative beta": {"beta": -1.0}},
    "CategoricalNB": {"negative alpha": {"alpha": -1.0}, "alpha array": {"alpha": np.ones(5)}, **_PRIOR_CASES,
                      "zero max_categories": {"max_categories": 0}},
    "GaussianNB": {"priors of the wrong length": {"priors": [0.2, 0.3, 0.5]},
                   "priors not summing to 1": {"priors": [0.2, 0.3]},
                   "negative priors": {"priors": [1.5, -0.5]},
                   "negative var_smoothing": {"var_smoothing": -1.0},
                   "unknown variance": {"variance": "per-row"}, "ddof 2": {"ddof": 2}},
    "MixedNB": {**_PRIOR_CASES, "no parts": {"estimators": []}, "column out of range": {
        "estimators": [("words", nbfast.MultinomialNB(), [0, 9])]}},
}

ESTIMATORS = list(PARAMETER_CASES)
# Models that refuse negative values (MixedNB's default part is a MultinomialNB).
COUNT_MODELS = {"MultinomialNB", "ComplementNB", "PoissonNB", "CategoricalNB", "MixedNB"}


def _expected_error(case_name, estimator_name):
    """Whether a case is an error for this estimator (negative values are fine for BernoulliNB and GaussianNB)."""
    return not (case_name == "negative count" and estimator_name not in COUNT_MODELS)


def run_battery():
    """Yield (description, outcome) for every case; outcome is the exception type name or 'ok'."""
    for estimator_name in ESTIMATORS:
        cls = getattr(nbfast, estimator_name)
        for case_name, make in FIT_CASES.items():
            for method in ("fit", "partial_fit"):
                X, y = make()
                kwargs = {"classes": np.unique(np.asarray(y, dtype=float))} if method == "partial_fit" else {}
                if method == "partial_fit" and case_name in ("continuous y", "NaN in y"):
                    kwargs = {"classes": [0, 1]}
                yield f"{estimator_name}.{method}: {case_name}", _outcome(
                    partial(getattr(cls(), method), X, y, **kwargs), _expected_error(case_name, estimator_name)
                )
        fitted = cls().fit(_csr(), _y())
        for case_name, make in PREDICT_CASES.items():
            for method in ("predict", "predict_proba", "predict_log_proba", "predict_joint_log_proba"):
                yield f"{estimator_name}.{method}: {case_name}", _outcome(partial(getattr(fitted, method), make()), True)
        for case_name, params in PARAMETER_CASES[estimator_name].items():
            yield f"{estimator_name}(**{params}).fit: {case_name}", _outcome(partial(cls(**params).fit, _csr(), _y()), True)
        yield f"{estimator_name}.predict before fit", _outcome(partial(cls().predict, _csr()), True)
        yield f"{estimator_name}.partial_fit without classes", _outcome(partial(cls().partial_fit, _csr(), _y()), True)
        yield f"{estimator_name}.partial_fit with an unknown label", _outcome(
            partial(cls().partial_fit, _csr(), [0, 1, 0, 2], classes=[0, 1]), True
        )


def _outcome(call, expect_error):
    try:
        call()
    except (ValueError, TypeError) as exc:  # NotFittedError is a ValueError
        return type(exc).__name__ if expect_error else f"UNEXPECTED {type(exc).__name__}: {exc}"
    except Exception as exc:  # anything else is a defect
        return f"WRONG EXCEPTION {type(exc).__name__}: {exc}"
    return "ok" if not expect_error else "NO ERROR"


if __name__ == "__main__":
    bad = 0
    for description, outcome in run_battery():
        print(f"{description}: {outcome}", flush=True)
        bad += outcome.startswith(("UNEXPECTED", "WRONG", "NO ERROR"))
    sys.exit(1 if bad else 0)
