"""Linear export: X @ coef.T + intercept against the models' joint log-likelihood and numpy formulas."""

import numpy as np
import pytest
import scipy.sparse as sp
from scipy.special import gammaln
from support.helpers import CONTAINERS, FLOAT_DTYPES, as_container, nb_estimator

import nbfast
from nbfast import _compat
from nbfast.datasets import make_documents


def documents(random_state=0):
    return make_documents(300, 50, 4, mean_length=25, class_separation=0.3, random_state=random_state)


def dense(X):
    return np.asarray(X.toarray() if sp.issparse(X) else X, dtype=np.float64)


def linear_jll(model, X):
    coef, intercept = nbfast.to_linear(model)
    assert coef.shape == (len(model.classes_), model.n_features_in_) and intercept.shape == (len(model.classes_),)
    return dense(X) @ coef.T + intercept


@pytest.mark.parametrize("name", ["MultinomialNB", "ComplementNB"])
@pytest.mark.parametrize("dtype", FLOAT_DTYPES)
@pytest.mark.parametrize("container", CONTAINERS)
def test_linear_in_counts_equals_jll(name, dtype, container):
    X, y = documents()
    X = as_container(X, container, dtype)
    model = nb_estimator(name, alpha=0.5).fit(X, y)
    np.testing.assert_allclose(linear_jll(model, X), model.predict_joint_log_proba(X), rtol=1e-12, atol=1e-8)


def test_multinomial_export_is_scikit_learns_formula():
    sk_nb = pytest.importorskip("sklearn.naive_bayes")
    X, y = documents()
    coef, intercept = nbfast.MultinomialNB().fit(X, y).to_linear()
    theirs = sk_nb.MultinomialNB().fit(X, y)
    np.testing.assert_allclose(coef, theirs.feature_log_prob_, rtol=1e-12)
    np.testing.assert_allclose(intercept, theirs.class_log_prior_, rtol=1e-12)
    np.testing.assert_allclose(X @ coef.T + intercept, theirs.predict_joint_log_proba(X), rtol=1e-12, atol=1e-8)


@pytest.mark.parametrize("binarize", [0.0, 1.5, None])
@pytest.mark.parametrize("container", CONTAINERS)
def test_bernoulli_export_on_binarized_x(binarize, container):
    X, y = documents()
    if binarize is None:
        X = (X > 0).astype(np.float64)
    X = as_container(X, container)
    model = nbfast.BernoulliNB(alpha=0.7, binarize=binarize).fit(X, y)
    coef, intercept = model.to_linear()
    theta = np.exp(model.feature_log_prob_)  # the numpy formula of the docstring
    np.testing.assert_allclose(coef, np.log(theta) - np.log(1 - theta), rtol=1e-12, atol=1e-12)
    expected_intercept = model.class_log_prior_ + np.log(1 - theta).sum(axis=1)
    np.testing.assert_allclose(intercept, expected_intercept, rtol=1e-12, atol=1e-12)
    X_binary = dense(X) > (0.0 if binarize is None else binarize)
    np.testing.assert_allclose(X_binary @ coef.T + intercept, model.predict_joint_log_proba(X), rtol=1e-12, atol=1e-8)


def test_poisson_export_up_to_log_factorial():
    X, y = documents()
    model = nb_estimator("PoissonNB").fit(X, y)
    # log p(x, c) = log prior_c + sum_i [x_i log lambda_ic - lambda_ic - log(x_i!)]
    expected = linear_jll(model, X) - gammaln(dense(X) + 1).sum(axis=1, keepdims=True)
    np.testing.assert_allclose(model.predict_joint_log_proba(X), expected, rtol=1e-12, atol=1e-8)


def test_gaussian_pooled_variance_export_gives_the_posteriors():
    rng = np.random.default_rng(0)
    y = rng.integers(0, 3, size=200)
    X = rng.normal(size=(200, 6)) + y[:, None] * rng.normal(size=6)
    model = nb_estimator("GaussianNB", variance="feature").fit(X, y)
    scores = linear_jll(model, X)
    offset = model.predict_joint_log_proba(X) - scores  # a per-row constant, the same for every class
    np.testing.assert_allclose(offset, offset[:, :1].repeat(3, axis=1), rtol=1e-12, atol=1e-8)
    proba = np.exp(scores - scores.max(axis=1, keepdims=True))
    np.testing.assert_allclose(proba / proba.sum(axis=1, keepdims=True), model.predict_proba(X), rtol=0, atol=1e-8)


@pytest.mark.parametrize("name, params", [("GaussianNB", {}), ("CategoricalNB", {})])
def test_models_not_linear_in_x_raise(name, params):
    X, y = documents()
    model = nb_estimator(name, **params).fit(X.toarray(), y)
    with pytest.raises((TypeError, ValueError), match="(?i)linear|variance"):
        model.to_linear()


def test_method_returns_copies_and_errors():
    X, y = documents()
    model = nbfast.MultinomialNB().fit(X, y)
    coef, intercept = model.to_linear()
    expected = model.predict_joint_log_proba(X)
    coef[:] = 0
    intercept[:] = 0
    np.testing.assert_array_equal(model.predict_joint_log_proba(X), expected)
    with pytest.raises(_compat.NotFittedError):
        nbfast.MultinomialNB().to_linear()
    sk_nb = pytest.importorskip("sklearn.naive_bayes")
    with pytest.raises(TypeError, match="not an nbfast"):
        nbfast.to_linear(sk_nb.MultinomialNB().fit(X, y))


# ------------------------------------------------------------------- MixedNB
def test_mixed_export_sums_its_parts():
    X, y = documents()
    binary = np.hstack([X.toarray(), (X.toarray()[:, :10] > 1)])
    model = nbfast.MixedNB([
        ("counts", nbfast.MultinomialNB(), slice(0, 30)),
        ("overlap", nbfast.MultinomialNB(alpha=0.3), np.arange(20, 50)),
        ("flags", nbfast.BernoulliNB(binarize=None), slice(50, 60)),
    ]).fit(binary, y)
    np.testing.assert_allclose(linear_jll(model, binary), model.predict_joint_log_proba(binary), rtol=1e-12, atol=1e-8)
    model.set_params(flags__binarize=0.0).fit(binary, y)
    with pytest.raises(ValueError, match="binarized"):
        model.to_linear()
