"""PoissonNB against a plain numpy float64 reference of its formula."""

import numpy as np
import pytest
import scipy.sparse as sp
from scipy.special import gammaln
from support.helpers import (
    CONTAINERS,
    FLOAT_DTYPES,
    INDEX_DTYPES,
    as_container,
    logsumexp_reference,
    read_only,
    rebuild,
    split,
    tolerance,
)

import nbfast
from nbfast.datasets import make_documents


def reference(X, y, X_test, *, alpha=1.0, beta=1.0, sample_weight=None, fit_prior=True, class_prior=None):
    """lambda_ic = (T_ic + alpha) / (N_c + beta); log p(x|c) = sum_i x_i log lambda_ic - lambda_ic - log x_i!"""
    X = np.asarray(X.toarray() if sp.issparse(X) else X, dtype=np.float64)
    X_test = np.asarray(X_test.toarray() if sp.issparse(X_test) else X_test, dtype=np.float64)
    classes, y_index = np.unique(y, return_inverse=True)
    Y = np.eye(len(classes))[y_index] * (1.0 if sample_weight is None else sample_weight[:, None])
    class_count, feature_count = Y.sum(axis=0), Y.T @ X
    rate = (feature_count + alpha) / (class_count + beta)[:, None]
    if class_prior is not None:
        log_prior = np.log(class_prior)
    elif fit_prior:
        log_prior = np.log(class_count / class_count.sum())
    else:
        log_prior = np.full(len(classes), -np.log(len(classes)))
    jll = X_test @ np.log(rate).T - rate.sum(axis=1) - gammaln(X_test + 1).sum(axis=1, keepdims=True) + log_prior
    log_proba = jll - logsumexp_reference(jll)
    return {
        "classes_": classes,
        "class_count_": class_count,
        "feature_count_": feature_count,
        "feature_log_prob_": np.log(rate),
        "class_log_prior_": log_prior,
        "jll": jll,
        "log_proba": log_proba,
    }


def assert_matches(model, expected, X_test, rtol):
    for name in ("class_count_", "feature_count_", "feature_log_prob_", "class_log_prior_"):
        np.testing.assert_allclose(getattr(model, name), expected[name], rtol=rtol, atol=rtol, err_msg=name)
    np.testing.assert_array_equal(model.classes_, expected["classes_"])
    np.testing.assert_allclose(model.predict_joint_log_proba(X_test), expected["jll"], rtol=rtol, atol=rtol)
    np.testing.assert_allclose(model.predict_log_proba(X_test), expected["log_proba"], rtol=rtol, atol=rtol)
    np.testing.assert_allclose(model.predict_proba(X_test), np.exp(expected["log_proba"]), rtol=rtol, atol=rtol)
    np.testing.assert_array_equal(model.predict(X_test), expected["classes_"][expected["jll"].argmax(axis=1)])


@pytest.mark.parametrize("dtype", FLOAT_DTYPES)
@pytest.mark.parametrize("index_dtype", INDEX_DTYPES)
@pytest.mark.parametrize("container", CONTAINERS)
def test_matches_numpy_reference(dtype, index_dtype, container, corpus):
    X, y = corpus
    X_train, y_train, X_test = split(as_container(X, container, dtype, index_dtype), y)
    model = nbfast.PoissonNB().fit(X_train, y_train)
    assert_matches(model, reference(X_train, y_train, X_test), X_test, tolerance(dtype))


@pytest.mark.parametrize(
    "params",
    [
        {"alpha": 0.1, "beta": 3.0},
        {"alpha": "array", "beta": 0.5},
        {"fit_prior": False},
        {"class_prior": [0.2, 0.5, 0.3]},
    ],
    ids=["alpha-beta", "alpha-array", "no-fit-prior", "class-prior"],
)
def test_parameters_and_sample_weight_match_reference(params):
    X, y = make_documents(400, 120, 3, mean_length=40, class_separation=0.3, random_state=3)
    params = dict(params)
    if params.get("alpha") == "array":
        params["alpha"] = np.linspace(0.1, 2.0, X.shape[1])
    weights = np.random.default_rng(5).uniform(0, 3, size=X.shape[0])
    X_train, y_train, X_test = split(X, y)
    model = nbfast.PoissonNB(**params).fit(X_train, y_train, sample_weight=weights[:200])
    assert_matches(model, reference(X_train, y_train, X_test, sample_weight=weights[:200], **params), X_test, 1e-12)


def test_non_integer_counts_use_log_gamma():
    X, y = make_documents(200, 50, 3, random_state=1)
    X = X.astype(np.float64)
    X.data = X.data * 0.37  # tf-idf-like values
    X_train, y_train, X_test = split(X, y)
    model = nbfast.PoissonNB(alpha=0.5).fit(X_train, y_train)
    assert_matches(model, reference(X_train, y_train, X_test, alpha=0.5), X_test, 1e-12)


def test_document_length_carries_information():
    # Same word proportions, different lengths: multinomial cannot tell the classes apart, Poisson can.
    X = sp.csr_array(np.array([[1, 1], [2, 2], [10, 10], [12, 12]], dtype=float))
    y = np.array([0, 0, 1, 1])
    np.testing.assert_array_equal(nbfast.PoissonNB().fit(X, y).predict(X), y)
    assert len(set(nbfast.MultinomialNB().fit(X, y).predict(X))) == 1


def test_partial_fit_in_chunks_with_weights_equals_fit(corpus):
    X, y = corpus
    weights = np.random.default_rng(2).uniform(0.5, 2.0, size=X.shape[0])
    classes = np.unique(y)
    model = nbfast.PoissonNB(alpha=0.5, beta=2.0)
    for start in range(0, 450, 150):
        chunk = slice(start, start + 150)
        model.partial_fit(X[chunk], y[chunk], classes=classes, sample_weight=weights[chunk])
    full = nbfast.PoissonNB(alpha=0.5, beta=2.0).fit(X[:450], y[:450], sample_weight=weights[:450])
    # partial_fit knows every class (classes=); fit only those in X[:450] (not all 120 of the 120-class corpus)
    seen = np.isin(classes, y[:450])
    np.testing.assert_array_equal(full.classes_, classes[seen])
    np.testing.assert_allclose(model.feature_log_prob_[seen], full.feature_log_prob_, rtol=1e-12)
    np.testing.assert_allclose(model.predict_joint_log_proba(X[450:])[:, seen], full.predict_joint_log_proba(X[450:]),
                               rtol=1e-12)
    # And the model after partial_fit matches the formula on all its data.
    expected = reference(X[:450], y[:450], X[450:], alpha=0.5, beta=2.0, sample_weight=weights[:450])
    np.testing.assert_allclose(model.feature_count_[seen], expected["feature_count_"], rtol=1e-12)


def test_rebuilt_from_fitted_attributes_and_threads(corpus, n_threads_limit):
    X, y = corpus
    X_train, y_train, X_test = split(X, y)
    results = []
    for n in (1, 2):
        with n_threads_limit(n):
            model = nbfast.PoissonNB().fit(read_only(X_train), y_train)
            results.append(model.predict_joint_log_proba(X_test))
    np.testing.assert_array_equal(results[0], results[1])
    np.testing.assert_array_equal(rebuild(model).predict_joint_log_proba(X_test), results[1])


@pytest.mark.parametrize("beta", [0.0, -1.0, "1", np.inf, np.nan, None])
def test_bad_beta_is_refused(beta):
    X, y = make_documents(20, 5, 2, random_state=0)
    with pytest.raises(ValueError, match="beta"):
        nbfast.PoissonNB(beta=beta).fit(X, y)
