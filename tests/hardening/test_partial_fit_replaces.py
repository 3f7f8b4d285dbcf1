"""partial_fit never writes into an array a prediction in another thread may be reading: it builds new statistics
and swaps the references once they are whole.  So every array a fitted model holds before a partial_fit keeps its
values after it (so a ComplementNB prediction racing a partial_fit no longer reads half-added counts)."""

import copy

import numpy as np
import pytest

import nbfast
from nbfast.datasets import make_documents
from nbfast.naive_bayes import _counts

ESTIMATORS = [nbfast.MultinomialNB, nbfast.ComplementNB, nbfast.BernoulliNB, nbfast.PoissonNB,
              nbfast.CategoricalNB, nbfast.GaussianNB, nbfast.MixedNB]


def _arrays(value, path=()):
    """Every numpy array reachable from a fitted attribute (tuples, lists, dicts, parts of a MixedNB), by path."""
    if isinstance(value, np.ndarray):
        yield path, value
    elif isinstance(value, (tuple, list)):
        for i, item in enumerate(value):
            yield from _arrays(item, path + (i,))
    elif isinstance(value, dict):
        for key, item in value.items():
            yield from _arrays(item, path + (key,))
    elif isinstance(value, nbfast.naive_bayes._base._BaseNB):
        yield from _arrays(dict(vars(value)), path + (type(value).__name__,))


def _batches(cls, missing):
    X, y = make_documents(120, 40, 3, mean_length=20, random_state=0)
    X = X.toarray().astype(np.float64)
    if cls in (nbfast.CategoricalNB, nbfast.MixedNB):
        X = np.minimum(X, 3)
    if missing:
        X[::7, ::3] = np.nan
    return (X[:60], y[:60]), (X[60:], y[60:])


#: (estimator, with missing values?): every estimator, and those that take missing values with them too.
CASES = [pytest.param(cls, missing, id=f"{cls.__name__}-{'missing' if missing else 'complete'}")
         for cls in ESTIMATORS for missing in (False, True) if not missing or "missing" in cls().get_params()]


@pytest.mark.parametrize("cls, missing", CASES)
@pytest.mark.parametrize("representation", ["compact", "dense"])
def test_partial_fit_leaves_every_array_a_prediction_reads_unchanged(cls, missing, representation, monkeypatch):
    monkeypatch.setattr(_counts, "REPRESENTATION", representation)
    params = {"missing": "ignore"} if missing else {}
    if cls is nbfast.MixedNB:
        params["estimators"] = [("categories", nbfast.CategoricalNB(), slice(0, 20)),
                                ("normal", nbfast.GaussianNB(), slice(20, None))]
    (X1, y1), (X2, y2) = _batches(cls, missing)
    model = cls(**params).partial_fit(X1, y1, classes=np.unique(y1))
    model.predict_proba(X1)  # derived tables built
    held = list(_arrays(dict(vars(model))))
    before = [(path, array.copy()) for path, array in held]
    model.partial_fit(X2, y2)
    changed = [path for (path, array), (_, copy) in zip(held, before)
               if array.shape != copy.shape or not np.array_equal(array, copy, equal_nan=True)]
    assert changed == []
    # and the batch was learnt
    assert np.allclose(model.class_count_.sum(), 120)



def test_a_complement_prediction_in_the_middle_of_partial_fit_sees_the_model_before_it(monkeypatch):
    """The race of a prediction in another thread, made deterministic: the prediction runs inside partial_fit,
    right after the batch's counts are added, before the new statistics are installed."""
    monkeypatch.setattr(_counts, "REPRESENTATION", "dense")
    X, y = make_documents(300, 200, 4, mean_length=30, random_state=3)
    model = nbfast.ComplementNB().partial_fit(X[:100], y[:100], classes=np.unique(y))
    model.partial_fit(X[100:200], y[100:200])  # tables left to the next prediction
    expected = copy.deepcopy(model).predict_proba(X)
    seen = []
    add_class_counts = _counts.add_class_counts

    def add_then_predict(*args):
        add_class_counts(*args)
        seen.append(model.predict_proba(X))

    monkeypatch.setattr(_counts, "add_class_counts", add_then_predict)
    model.partial_fit(X[200:], y[200:])
    assert len(seen) == 1
    np.testing.assert_array_equal(seen[0], expected)
