"""What a fitted model stores: the saved forms (``_saved_form``) and the stored-value hook every estimator states."""

import io

import numpy as np
import pytest
from support.helpers import data_for

import nbfast
from nbfast._validation import rebuild
from nbfast.naive_bayes import ESTIMATORS
from nbfast.naive_bayes._base import _BaseNB, _LinearNB, _StatisticsNB
from nbfast.naive_bayes._count import _BaseDiscreteNB, _CountNB
from nbfast.naive_bayes._stored import SavedForm
from nbfast.naive_bayes._wrapper import _WrapperNB

#: The classes a new estimator derives from (docs/architecture.md, "Add an estimator").
BASES = (_BaseNB, _StatisticsNB, _LinearNB, _BaseDiscreteNB, _CountNB, _WrapperNB)


@pytest.mark.parametrize("base", BASES, ids=lambda cls: cls.__name__)
def test_a_new_estimator_without_the_stored_value_hook_cannot_be_made(base):
    """Every base leaves the hook abstract: a new estimator that gives every other hook but this one is refused
    when it is made, so its stored values are never silently unchecked."""
    def stub(self, *args, **kwargs):
        return None

    others = {name: stub for name in base.__abstractmethods__ - {"_check_stored_values"}}
    without = type("NewNB", (base,), others)
    with pytest.raises(TypeError, match="abstract .*_check_stored_values"):
        without()
    type("NewNB", (base,), {**others, "_check_stored_values": stub})()  # the hook was all it lacked


@pytest.mark.parametrize("name", sorted(ESTIMATORS))
def test_saving_and_loading_run_the_estimators_hook(name, monkeypatch):
    X, y = data_for(name)
    model = ESTIMATORS[name]().fit(X, y)
    buffer = io.BytesIO()
    nbfast.save(model, buffer)
    calls = []
    monkeypatch.setattr(ESTIMATORS[name], "_check_stored_values", lambda self: calls.append(type(self).__name__))
    nbfast.load(buffer.getvalue())
    assert name in calls

    def refuse(self):
        raise ValueError("a value no fit produces.")

    monkeypatch.setattr(ESTIMATORS[name], "_check_stored_values", refuse)
    with pytest.raises(nbfast.ModelFormatError, match="a value no fit produces"):
        nbfast.load(buffer.getvalue())
    with pytest.raises(ValueError, match=f"cannot save {name}: a value no fit produces"):
        nbfast.save(model, io.BytesIO())


def test_the_saved_forms():
    cls = nbfast.MultinomialNB
    assert cls._saved_form(cls._fitted_attributes) == SavedForm(cls._fitted_attributes, False)
    assert cls._saved_form(reversed(cls._compact_attributes)) == SavedForm(cls._compact_attributes, True)
    assert cls._saved_form(cls._fitted_attributes[1:]) is None
    assert cls._saved_form(cls._fitted_attributes + ("theta_",)) is None
    # observed_count_ comes with the dense form of a model that keeps it (BernoulliNB), and is set first
    assert cls._saved_form(cls._fitted_attributes + ("observed_count_",)) is None
    keeps = nbfast.BernoulliNB
    with_observed = keeps._saved_form(keeps._fitted_attributes + ("observed_count_",))
    assert with_observed == SavedForm(("observed_count_",) + keeps._fitted_attributes, False)


def test_rebuild_refuses_what_is_no_saved_form():
    X, y = data_for("MultinomialNB")
    model = nbfast.MultinomialNB().fit(X, y)
    fitted = {name: getattr(model, name) for name in model._fitted_attributes}
    np.testing.assert_array_equal(rebuild(nbfast.MultinomialNB, {}, fitted).predict(X), model.predict(X))
    del fitted["feature_log_prob_"]
    with pytest.raises(ValueError, match="MultinomialNB needs the fitted attributes"):
        rebuild(nbfast.MultinomialNB, {}, fitted)
