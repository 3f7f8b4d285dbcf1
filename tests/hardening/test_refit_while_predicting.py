"""A refit in another thread may land between any two attribute reads of a prediction, at any point of its own
work: the prediction then succeeds or raises ValueError, never another error (an index out of bounds, a kernel
reading past an array).

The thread race itself is exercised in ``test_hostile_estimators``, where a window opens by chance; here every
window is opened in turn.  The refit's progress is recorded first (the model's state after each attribute it
assigns, and where it forgets its derived tables); then, for each attribute read k of a prediction and each
recorded step m, the prediction runs with the state switched to step m at its k-th read."""

import copy

import numpy as np
import pytest

import nbfast
from nbfast.datasets import make_documents
from nbfast.naive_bayes import _counts

ESTIMATORS = [nbfast.MultinomialNB, nbfast.ComplementNB, nbfast.BernoulliNB, nbfast.PoissonNB,
              nbfast.CategoricalNB, nbfast.GaussianNB, nbfast.MixedNB]
SMALL = make_documents(60, 30, 2, mean_length=20, random_state=1)
LARGE = make_documents(200, 600, 12, mean_length=20, random_state=2)


def _refit_steps(cls, before, after, **params):
    """The states a model fitted on ``before`` passes through while it is refitted on ``after`` (with ``params``
    set before): a list of (state, how many times the derived tables were forgotten since the refit began), the
    last one the refit's final state."""
    steps, forgets = [], [0]

    class Recorded(cls):
        def __setattr__(self, name, value):
            super().__setattr__(name, value)
            steps.append((dict(vars(self)), forgets[0]))

        def _forget_derived(self):
            super()._forget_derived()
            forgets[0] += 1
            steps.append((dict(vars(self)), forgets[0]))

    model = cls().fit(*before)
    model.__class__ = Recorded
    model.set_params(**params)
    model.fit(*after)
    steps.append((dict(vars(model)), forgets[0]))  # entries removed after the last assignment
    return steps


def _switching(fitted):
    """A function of (read, step) giving a copy of the model ``fitted`` whose state becomes ``step`` at its
    ``read``-th attribute read once armed, and a list holding the number of reads since (None: not armed; 0 arms
    it).  The copies share one subclass: where scikit-learn is imported, making a class costs more than a
    prediction (its __init_subclass__ inspects the methods)."""
    switches = {}  # id of a copy -> [reads, read, step]

    class RefittedWhilePredicting(type(fitted)):
        def __getattribute__(self, name):
            reads, read, step = switches[id(self)]
            if reads[0] is None:
                return super().__getattribute__(name)
            reads[0] += 1
            if reads[0] == read:
                state, forgets = step
                vars_ = object.__getattribute__(self, "__dict__")
                vars_.clear()
                vars_.update(state)
                if forgets:
                    object.__getattribute__(self, "_forget_derived")()
            return super().__getattribute__(name)

    def switched_at_read(read, step):
        model = copy.deepcopy(fitted)  # a fit's state, without derived tables (copies do not carry them)
        reads = [None]
        switches[id(model)] = [reads, read, step]
        model.__class__ = RefittedWhilePredicting
        return model, reads

    return switched_at_read


@pytest.mark.parametrize("cls", ESTIMATORS, ids=lambda cls: cls.__name__)
@pytest.mark.parametrize("before, after", [(SMALL, LARGE), (LARGE, SMALL)], ids=["grows", "shrinks"])
@pytest.mark.parametrize("method", ["predict", "predict_proba"])
@pytest.mark.parametrize("representation", ["compact", "dense"])
@pytest.mark.parametrize("tables", ["built", "deferred"])
def test_a_refit_at_any_point_of_a_prediction_is_refused_or_harmless(cls, before, after, method, representation,
                                                                     tables, monkeypatch):
    monkeypatch.setattr(_counts, "REPRESENTATION", representation)
    steps = _refit_steps(cls, before, after)
    X, switched_at_read = before[0], _switching(cls().fit(*before))

    def prediction(read, step):
        model, reads = switched_at_read(read, step)
        if tables == "built":
            model.predict_proba(X[:1])  # a prediction before: its derived tables are kept
        else:
            model._forget_derived()  # as a refit leaves the model: the prediction derives them
        reads[0] = 0
        return model, reads, lambda: getattr(model, method)(X)

    _, reads, call = prediction(0, steps[-1])
    call()
    n_reads = reads[0]
    assert n_reads > 5 and len(steps) > 3  # the windows below exist
    for read in range(1, n_reads + 1):
        for step in steps:
            try:
                result = prediction(read, step)[2]()
            except ValueError:
                continue
            assert result.shape[0] == X.shape[0]


@pytest.mark.parametrize("cls", ESTIMATORS, ids=lambda cls: cls.__name__)
@pytest.mark.parametrize("before, after", [(SMALL, LARGE), (LARGE, SMALL)], ids=["grows", "shrinks"])
@pytest.mark.parametrize("representation", ["compact", "dense"])
def test_tables_derived_during_a_refit_are_not_kept_after_it(cls, before, after, representation, monkeypatch):
    """A prediction at any step of a refit may derive tables from a mix of the two states; once the refit has
    ended, predictions are those of the refitted model (here with another smoothing: the parameters the tables
    are derived with change too)."""
    monkeypatch.setattr(_counts, "REPRESENTATION", representation)
    params = {name: value for name, value in {"alpha": 0.3, "var_smoothing": 1e-3}.items() if name in cls().get_params()}
    steps = _refit_steps(cls, before, after, **params)
    (final_state, final_forgets), X = steps[-1], after[0]
    expected = cls(**params).fit(*after).predict_proba(X)
    for state, forgets in steps:
        model = cls().fit(*before)
        vars(model).clear()
        vars(model).update(state)  # the refit has gone this far when a prediction derives the tables
        if forgets:
            model._forget_derived()
        for X_now in (before[0], after[0]):  # whichever the state at this step takes
            try:
                model.predict_proba(X_now)
            except ValueError:
                pass
        vars(model).clear()
        vars(model).update(final_state)  # the rest of the refit, with the forgetting it does after this step
        if final_forgets > forgets:
            model._forget_derived()
        np.testing.assert_allclose(model.predict_proba(X), expected, rtol=0, atol=1e-12)


@pytest.mark.parametrize("cls", [nbfast.BernoulliNB, nbfast.PoissonNB], ids=lambda cls: cls.__name__)
def test_dense_tables_are_not_built_from_class_counts_of_another_fit(cls):
    """The kernel that builds a dense table reads a class count per row of the feature counts: counts of another
    shape (read from a refit in another thread) are refused before it reads past their end."""
    model = cls().fit(*SMALL)
    counts = np.ones((12, 30))
    with pytest.raises(ValueError, match=r"class counts \(2,\) .* feature counts \(12, 30\)"):
        model._smoothed_log_table(counts, 1.0, model.class_count_)
    with pytest.raises(ValueError, match=r"alpha \(3,\)"):
        model._smoothed_log_table(counts, np.ones(3), np.ones(12))
