"""Configurations nbfast refuses say so with its own errors (TypeError, ValueError), never an internal one."""

import warnings

import numpy as np
import pytest

import nbfast
from nbfast.datasets import make_documents


@pytest.fixture(scope="module")
def data():
    X, y = make_documents(120, 30, 3, mean_length=20, random_state=0)
    return X, np.where(np.arange(120) % 3 == 0, y, -1)


@pytest.mark.parametrize("estimator", [nbfast.DiscriminativeNB(), nbfast.MultinomialNBCV(), nbfast.GaussianNB(),
                                       nbfast.CalibratedNB(), nbfast.CategoricalNB()], ids=lambda e: type(e).__name__)
def test_semi_supervised_refuses_estimators_without_soft_labels(data, estimator):
    model = nbfast.SemiSupervisedNB(estimator)
    with pytest.raises(TypeError, match="does not learn from soft labels"):
        model.fit(*data)
    assert not hasattr(model, "classes_")


@pytest.mark.parametrize("name", ["MultinomialNBCV", "BernoulliNBCV", "ComplementNBCV", "PoissonNBCV"])
def test_search_refuses_a_split_whose_test_rows_weigh_nothing(name):
    X, y = make_documents(90, 30, 3, mean_length=20, random_state=0)
    weights = np.ones(90)
    weights[:30] = 0  # the first split's test rows
    split = np.arange(90) < 30
    cv = [(np.flatnonzero(~split), np.flatnonzero(split)), (np.flatnonzero(split), np.flatnonzero(~split))]
    with pytest.raises(ValueError, match="test rows of split 0 all have sample_weight 0"):
        getattr(nbfast, name)(cv=cv).fit(X, y, sample_weight=weights)


@pytest.mark.parametrize("name", ["MultinomialNBCV", "CategoricalNBCV"])
def test_search_refuses_weights_that_overflow_without_a_warning(name):
    X = np.random.default_rng(0).integers(0, 3, (40, 4)).astype(float)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.raises(ValueError, match="the model's statistics overflow float64"):
            getattr(nbfast, name)().fit(X, np.arange(40) % 2, sample_weight=np.full(40, 1e308))
