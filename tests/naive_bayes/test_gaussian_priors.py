"""GaussianNB's ``priors`` changed by set_params between partial_fit calls: as scikit-learn, read at the first
batch only (a later batch keeps class_prior_, or updates the empirical one when priors is None)."""

import numpy as np
import pytest

import nbfast

sklearn_naive_bayes = pytest.importorskip("sklearn.naive_bayes")


@pytest.mark.parametrize(("first", "then"), [(None, [0.2, 0.3, 0.5]), ([0.1, 0.1, 0.8], [0.2, 0.3, 0.5]),
                                             ([0.1, 0.1, 0.8], None)], ids=["none-then-set", "set-then-other",
                                                                            "set-then-none"])
def test_priors_set_between_batches_as_scikit_learn(first, then):
    rng = np.random.default_rng(0)
    X, y = rng.normal(size=(90, 4)) + (np.arange(90) % 3)[:, None], np.arange(90) % 3
    ours, theirs = nbfast.GaussianNB(priors=first), sklearn_naive_bayes.GaussianNB(priors=first)
    for model in (ours, theirs):
        model.partial_fit(X[:40], y[:40], classes=[0, 1, 2])
        model.set_params(priors=then)
        model.partial_fit(X[40:70], y[40:70])
    np.testing.assert_allclose(ours.class_prior_, theirs.class_prior_, rtol=1e-12)
    np.testing.assert_allclose(ours.predict_proba(X), theirs.predict_proba(X), rtol=1e-9, atol=1e-12)
    for model in (ours, theirs):  # a new fit reads the priors again
        model.fit(X, y)
    np.testing.assert_allclose(ours.class_prior_, theirs.class_prior_, rtol=1e-12)
