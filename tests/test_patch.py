"""patch_sklearn / unpatch_sklearn: sklearn.naive_bayes hands out nbfast's estimators."""

import numpy as np
import pytest
from support.helpers import exported

import nbfast
from nbfast.datasets import make_documents
from nbfast.naive_bayes import ESTIMATORS

SKLEARN_NAMES = ("BernoulliNB", "CategoricalNB", "ComplementNB", "GaussianNB", "MultinomialNB")

sk_nb = pytest.importorskip("sklearn.naive_bayes")

#: Every scikit-learn estimator nbfast stands in for.
PATCHED = exported(["BernoulliNB", "CategoricalNB", "ComplementNB", "GaussianNB", "MultinomialNB"])
ORIGINALS = {name: getattr(sk_nb, name) for name in PATCHED}


@pytest.fixture(autouse=True)
def restore_sklearn():
    yield
    nbfast.unpatch_sklearn()
    for name, original in ORIGINALS.items():
        setattr(sk_nb, name, original)


def test_patch_replaces_every_estimator_nbfast_provides():
    assert list(SKLEARN_NAMES) == PATCHED
    assert nbfast.patch_sklearn() == tuple(PATCHED)
    for name in PATCHED:
        assert getattr(sk_nb, name) is getattr(nbfast, name)


def test_patched_code_runs_on_nbfast():
    X, y = make_documents(200, 50, 3, random_state=0)
    expected = ORIGINALS["MultinomialNB"]().fit(X, y).predict_proba(X)
    nbfast.patch_sklearn()
    from sklearn.naive_bayes import MultinomialNB  # what user code does, after patching

    model = MultinomialNB(alpha=1.0).fit(X, y)
    assert isinstance(model, nbfast.MultinomialNB)
    np.testing.assert_allclose(model.predict_proba(X), expected, rtol=1e-12)


def test_patching_twice_then_unpatching_restores_the_originals():
    nbfast.patch_sklearn()
    nbfast.patch_sklearn()
    assert sk_nb.ComplementNB is nbfast.ComplementNB
    nbfast.unpatch_sklearn()
    for name, original in ORIGINALS.items():
        assert getattr(sk_nb, name) is original
    nbfast.unpatch_sklearn()  # harmless when not patched
    assert sk_nb.MultinomialNB is ORIGINALS["MultinomialNB"]


def test_an_estimator_added_to_nbfast_later_is_patched(monkeypatch):
    class GaussianNB:
        """Stands in for an nbfast GaussianNB."""

    monkeypatch.setitem(ESTIMATORS, "GaussianNB", GaussianNB)
    assert "GaussianNB" in nbfast.patch_sklearn()
    assert sk_nb.GaussianNB is GaussianNB
    nbfast.unpatch_sklearn()
    assert sk_nb.GaussianNB is ORIGINALS["GaussianNB"]
