"""A model whose parameters changed after its fit (``set_params``: they take effect at the next fit) loads from its
file predicting as it did, with the parameters it was given: the file keeps the fit's values beside them."""

import io

import numpy as np
import pytest
from support.crafting import _layout, _saved, _with_header

import nbfast
from nbfast import ModelFormatError
from nbfast.datasets import make_documents

#: (estimator, parameters at the fit, parameters set after it): compact models (tables derived from the counts and
#: the parameters on load), a dense one (its log-probabilities stored) and a composite's part.
CASES = [
    ("MultinomialNB", {"alpha": 1.0}, {"alpha": 5.0}),
    ("BernoulliNB", {"alpha": 1.0}, {"alpha": 0.2}),
    ("ComplementNB", {"alpha": 1.0, "norm": False}, {"alpha": 3.0, "norm": True}),
    ("PoissonNB", {"alpha": 1.0, "beta": 1.0}, {"alpha": 2.0, "beta": 4.0}),
    ("CategoricalNB", {"alpha": 1.0}, {"alpha": 7.0}),
    ("MultinomialNB", {"class_prior": [0.2, 0.3, 0.5]}, {"class_prior": [0.6, 0.2, 0.2]}),
]


def _data(name, dense=False):
    X, y = make_documents(600, 2**16 if not dense else 30, 3, mean_length=12, random_state=0)
    return (X.minimum(3) if name == "CategoricalNB" else X), y


def _loaded(model):
    return nbfast.load(io.BytesIO(_saved(model)))


@pytest.mark.parametrize("dense", [False, True])
@pytest.mark.parametrize("name, at_fit, later", CASES)
def test_a_model_given_parameters_after_its_fit_loads_predicting_as_it_did(name, at_fit, later, dense):
    X, y = _data(name, dense)
    model = getattr(nbfast, name)(**at_fit).fit(X, y)
    if name != "CategoricalNB":
        assert model._is_compact() != dense
    expected = model.predict_proba(X)
    model.set_params(**later)
    np.testing.assert_array_equal(model.predict_proba(X), expected)  # in memory: until the next fit
    loaded = _loaded(model)
    np.testing.assert_array_equal(loaded.predict_proba(X), expected)
    for key, value in later.items():
        np.testing.assert_array_equal(loaded.get_params()[key], value)
    refit = getattr(nbfast, name)(**{**at_fit, **later}).fit(X, y).predict_proba(X)
    np.testing.assert_array_equal(loaded.fit(X, y).predict_proba(X), refit)  # the next fit takes them


def test_the_fit_s_values_are_stored_only_when_they_changed():
    X, y = _data("MultinomialNB")
    model = nbfast.MultinomialNB(alpha=0.5).fit(X, y)
    assert "fit_params" not in _layout(_saved(model))[0]["model"]  # files as before: older readers load them
    model.set_params(alpha=0.5, fit_prior=False)  # the same alpha; fit_prior is read by no derived table
    assert "fit_params" not in _layout(_saved(model))[0]["model"]
    model.set_params(alpha=2.0)
    assert _layout(_saved(model))[0]["model"]["fit_params"] == {"alpha": 0.5}


def test_a_part_of_a_composite_keeps_its_fit_s_values():
    X, y = _data("MultinomialNB")
    search = nbfast.MultinomialNBCV(alphas=[0.1, 1.0], cv=2).fit(X, y)
    expected = search.predict_proba(X)
    search.estimator_.set_params(alpha=9.0)
    np.testing.assert_array_equal(_loaded(search).predict_proba(X), expected)


@pytest.mark.parametrize("fit_params, match", [
    ({"gamma": 1.0}, "no parameters"),
    ([1.0], "fit_params must be a dict"),
    ({"alpha": -1.0}, "alpha"),
])
def test_crafted_fit_params_are_refused(fit_params, match):
    X, y = _data("MultinomialNB")
    raw = _saved(nbfast.MultinomialNB().fit(X, y))

    def edit(header):
        header["model"]["fit_params"] = fit_params

    with pytest.raises(ModelFormatError if match != "alpha" else ValueError, match=match):
        nbfast.load(io.BytesIO(_with_header(raw, edit)))


def test_fit_params_of_an_unfitted_model_are_refused():
    X, y = _data("MultinomialNB", dense=True)
    mixed = nbfast.MixedNB([("counts", nbfast.MultinomialNB(), [0, 1, 2])]).fit(X.toarray()[:, :3], y)

    def edit(header):  # the part as given (unfitted), in the composite's parameters
        header["model"]["params"]["estimators"][0]["__tuple__"][1]["__estimator__"]["fit_params"] = {"alpha": 1.0}

    with pytest.raises(ModelFormatError, match="of a fitted model"):
        nbfast.load(io.BytesIO(_with_header(_saved(mixed), edit)))


def test_a_parameter_set_since_the_fit_is_checked_on_load():
    X, y = _data("MultinomialNB")
    model = nbfast.MultinomialNB().fit(X, y)

    def edit(header):
        header["model"]["fit_params"] = {"alpha": 1.0}
        header["model"]["params"]["alpha"] = "much"

    with pytest.raises(ValueError, match="alpha"):
        nbfast.load(io.BytesIO(_with_header(_saved(model), edit)))


def test_a_model_whose_parameters_would_not_load_is_not_saved():
    X, y = _data("MultinomialNB")
    model = nbfast.MultinomialNB().fit(X, y).set_params(alpha=-1.0)  # refused at the next fit, and on load
    with pytest.raises(ValueError, match="cannot save MultinomialNB: The .alpha. parameter"):
        nbfast.save(model, io.BytesIO())
