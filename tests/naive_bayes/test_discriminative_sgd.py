"""DiscriminativeNB's SGD solver against a plain numpy SGD and against the L-BFGS optimum."""

import numpy as np
import pytest
from support.helpers import FLOAT_DTYPES, INDEX_DTYPES, as_container, logsumexp_reference

import nbfast
from nbfast.datasets import make_documents
from nbfast.naive_bayes import _sgd
from nbfast.naive_bayes._discriminative import _centred, _Objective


def small_data(n_classes=3, seed=0):
    return make_documents(n_samples=200, n_features=30, n_classes=n_classes, mean_length=10, random_state=seed)


def sgd_reference(X, y, sample_weight, x0, anchor, C, penalize_intercept, epochs, learning_rate):
    """SGD written out with dense float64 weights: each step shrinks W - W_anchor, then follows the row's
    gradient, the learning rate falling linearly to zero, the rows in the solver's order."""
    X = np.asarray(X.toarray(), dtype=np.float64)
    n, d = X.shape
    k = len(x0) // (d + 1)
    weights, intercept = x0[:d * k].reshape(d, k).copy(), x0[d * k:].copy()
    anchor_weights, anchor_intercept = anchor[:d * k].reshape(d, k), anchor[d * k:]
    s = sample_weight / sample_weight.mean()
    lam = 1.0 / (C * n)
    eta0 = min(learning_rate / (s @ (X ** 2).sum(axis=1) / n), 0.5 / lam)
    rng = np.random.default_rng(_sgd.SEED)
    step = 0
    for _ in range(epochs):
        for i in rng.permutation(n):
            eta = eta0 * (1 - step / (epochs * n))
            step += 1
            z = X[i] @ weights + intercept
            p = np.exp(z - logsumexp_reference(z[None])[0])
            r = s[i] * (p - np.eye(k)[y[i]])
            weights -= eta * lam * (weights - anchor_weights)
            if penalize_intercept:
                intercept -= eta * lam * (intercept - anchor_intercept)
            weights -= eta * np.outer(X[i], r)
            intercept -= eta * r
    return weights, intercept


@pytest.mark.parametrize("anchor", ["nb", "zero"])
@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("C", [0.05, 0.002])
def test_sgd_matches_a_dense_numpy_reference(anchor, weighted, C):
    # C=0.002 shrinks the deviation from the anchor by about e^-70 over the fit: the kernel rescales it
    X, y = small_data()
    sample_weight = np.random.default_rng(1).uniform(0, 3, X.shape[0]) if weighted else np.ones(X.shape[0])
    model = nbfast.DiscriminativeNB(C=C, anchor=anchor, max_iter=3, learning_rate=2.0).fit(X, y, sample_weight)
    start = nbfast.MultinomialNB().fit(X, y, sample_weight=sample_weight)
    coef, intercept = _centred(*start.to_linear())
    x0 = np.concatenate([coef.T.ravel(), intercept])
    weights, intercept = sgd_reference(X, y, sample_weight, x0, x0 if anchor == "nb" else np.zeros_like(x0), C,
                                       anchor == "nb", 3, 2.0)
    assert model.n_iter_ == 3
    np.testing.assert_allclose(model.coef_, weights.T, rtol=1e-9, atol=1e-11)
    np.testing.assert_allclose(model.intercept_, intercept, rtol=1e-9, atol=1e-11)


def objective_value(model, X, y, C, anchor_x):
    n_classes = len(model.classes_)
    objective = _Objective(X, y.astype(np.int64), np.ones(X.shape[0]), n_classes, C, anchor_x, True)
    return objective.loss_and_gradient(np.concatenate([model.coef_.T.ravel(), model.intercept_]))[0]


def test_many_epochs_reach_the_lbfgs_optimum():
    X, y = make_documents(n_samples=2000, n_features=200, n_classes=4, mean_length=20, random_state=3)
    X = X.multiply(1.0 / np.sqrt(X.multiply(X).sum(axis=1))).tocsr()  # unit rows, as tf-idf's
    exact = nbfast.DiscriminativeNB(C=2.0, solver="lbfgs", tol=1e-12, max_iter=1000).fit(X, y)
    start = nbfast.MultinomialNB().fit(X, y)
    anchor = np.concatenate([c.T.ravel() if c.ndim == 2 else c for c in _centred(*start.to_linear())])
    optimum = objective_value(exact, X, y, 2.0, anchor)
    gaps = []
    for epochs in (1, 30):
        model = nbfast.DiscriminativeNB(C=2.0, max_iter=epochs).fit(X, y)
        gaps.append(objective_value(model, X, y, 2.0, anchor) - optimum)
    assert 0 <= gaps[1] < 5e-3 * optimum and gaps[1] < gaps[0] / 10
    assert np.mean(nbfast.DiscriminativeNB(C=2.0, max_iter=30).fit(X, y).predict(X) == exact.predict(X)) > 0.9


@pytest.mark.parametrize("dtype", FLOAT_DTYPES)
@pytest.mark.parametrize("index_dtype", INDEX_DTYPES)
@pytest.mark.parametrize("container", ["csr_matrix", "ndarray"])
def test_every_input_type_takes_the_same_steps(dtype, index_dtype, container):
    X, y = small_data()
    expected = nbfast.DiscriminativeNB(C=3.0).fit(X, y)
    model = nbfast.DiscriminativeNB(C=3.0).fit(as_container(X, container, dtype, index_dtype), y)
    np.testing.assert_array_equal(model.coef_, expected.coef_)
    np.testing.assert_array_equal(model.intercept_, expected.intercept_)


@pytest.mark.parametrize("learning_rate", [1e10, 1e200, 1e300])
def test_huge_steps_give_finite_weights_or_a_clear_error(learning_rate):
    X, y = small_data()
    model = nbfast.DiscriminativeNB(C=1e300, learning_rate=learning_rate)
    try:
        model.fit(X * 1e10, y)
    except ValueError as error:
        assert "not finite" in str(error) and not hasattr(model, "coef_")
    else:
        assert np.all(np.isfinite(model.coef_)) and np.all(np.isfinite(model.intercept_))
