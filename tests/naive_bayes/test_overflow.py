"""Huge finite alpha or sample weights: a ValueError naming the cause before anything changes, never NaN."""

import numpy as np
import pytest

import nbfast
from nbfast.datasets import make_documents

N_SAMPLES = 200


@pytest.fixture(scope="module")
def data():
    return make_documents(N_SAMPLES, 50, 3, mean_length=20, random_state=0)


@pytest.mark.parametrize(
    ("name", "params"),
    [
        ("MultinomialNB", {"alpha": 1e307}),
        ("ComplementNB", {"alpha": 1e307}),
        ("BernoulliNB", {"alpha": 1e308}),
        ("PoissonNB", {"alpha": 1e308}),
        ("CategoricalNB", {"alpha": 1e308}),
        ("MultinomialNBCV", {"alphas": [1.0, 1e307]}),
    ],
)
def test_huge_alpha_is_refused(data, name, params):
    with pytest.raises(ValueError, match="alpha is too large"):
        getattr(nbfast, name)(**params).fit(*data)


@pytest.mark.parametrize("name", ["MultinomialNB", "BernoulliNB", "ComplementNB", "PoissonNB", "CategoricalNB",
                                  "GaussianNB"])
def test_huge_sample_weight_is_refused(data, name):
    with pytest.raises(ValueError, match="sample_weight or the values of X are too large"):
        getattr(nbfast, name)().fit(*data, sample_weight=np.full(N_SAMPLES, 1e308))


@pytest.mark.parametrize("name", ["MultinomialNB", "BernoulliNB", "PoissonNB", "GaussianNB"])
def test_a_refused_partial_fit_leaves_the_model_as_it_was(data, name):
    X, y = data
    model = getattr(nbfast, name)().partial_fit(X, y, classes=np.unique(y))
    before = {key: np.copy(getattr(model, key)) for key in model._stat_names if hasattr(model, key)}
    proba = model.predict_proba(X)
    weights = np.full(N_SAMPLES, 1e307)  # finite in one batch, past float64's range once added to the model's
    with pytest.raises(ValueError, match="sample_weight or the values of X are too large"):
        model.partial_fit(X, y, sample_weight=weights)
    for key, value in before.items():
        np.testing.assert_array_equal(getattr(model, key), value, err_msg=key)
    np.testing.assert_array_equal(model.predict_proba(X), proba)


@pytest.mark.parametrize("name", ["MultinomialNB", "BernoulliNB", "ComplementNB", "PoissonNB"])
def test_large_weights_within_range_stay_finite(data, name):
    model = getattr(nbfast, name)().fit(*data, sample_weight=np.full(N_SAMPLES, 1e300))
    assert np.all(np.isfinite(model.predict_proba(data[0])))


def test_bernoulli_bounds_alpha_by_its_own_smoothing(data):
    """BernoulliNB adds 2 alpha to a class's total, not alpha per feature: 1e307 stays finite, as before."""
    model = nbfast.BernoulliNB(alpha=1e307).fit(*data)
    assert np.all(np.isfinite(model.predict_proba(data[0])))
