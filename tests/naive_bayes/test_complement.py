"""ComplementNB against scikit-learn and a plain numpy float64 reference."""

from contextlib import nullcontext

import numpy as np
import pytest
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

sk_nb = pytest.importorskip("sklearn.naive_bayes")

ATTRIBUTES = ("class_count_", "feature_count_", "feature_all_", "feature_log_prob_", "class_log_prior_")


def reference(X, y, X_test, *, alpha=1.0, norm=False, sample_weight=None):
    """Rennie et al. (2003) complement weights, written out densely in float64."""
    X = np.asarray(X.toarray() if hasattr(X, "toarray") else X, dtype=np.float64)
    X_test = np.asarray(X_test.toarray() if hasattr(X_test, "toarray") else X_test, dtype=np.float64)
    classes, y_index = np.unique(y, return_inverse=True)
    Y = np.eye(len(classes))[y_index] * (1.0 if sample_weight is None else sample_weight[:, None])
    feature_count = Y.T @ X
    complement = feature_count.sum(axis=0) - feature_count + alpha  # counts of all the other classes
    theta = complement / complement.sum(axis=1, keepdims=True)
    weights = np.log(theta) / np.log(theta).sum(axis=1, keepdims=True) if norm else -np.log(theta)
    jll = X_test @ weights.T
    log_proba = jll - logsumexp_reference(jll)
    return {
        "classes_": classes,
        "feature_count_": feature_count,
        "feature_all_": feature_count.sum(axis=0),
        "feature_log_prob_": weights,
        "jll": jll,
        "log_proba": log_proba,
    }


def assert_same(ours, theirs, X_test, rtol=1e-12):
    """Fitted attributes and every prediction of two fitted estimators agree."""
    for name in ATTRIBUTES:
        np.testing.assert_allclose(getattr(ours, name), getattr(theirs, name), rtol=rtol, atol=rtol, err_msg=name)
    np.testing.assert_array_equal(ours.classes_, theirs.classes_)
    np.testing.assert_array_equal(ours.predict(X_test), theirs.predict(X_test))
    for method in ("predict_joint_log_proba", "predict_log_proba", "predict_proba"):
        np.testing.assert_allclose(
            getattr(ours, method)(X_test), getattr(theirs, method)(X_test), rtol=rtol, atol=rtol, err_msg=method
        )


@pytest.mark.parametrize("norm", [False, True])
@pytest.mark.parametrize("dtype", FLOAT_DTYPES)
@pytest.mark.parametrize("index_dtype", INDEX_DTYPES)
@pytest.mark.parametrize("container", CONTAINERS)
def test_matches_numpy_reference(norm, dtype, index_dtype, container, corpus):
    X, y = corpus
    X_train, y_train, X_test = split(as_container(X, container, dtype, index_dtype), y)
    model = nbfast.ComplementNB(norm=norm).fit(X_train, y_train)
    expected = reference(X_train, y_train, X_test, norm=norm)
    rtol = tolerance(dtype)
    for name in ("feature_count_", "feature_all_", "feature_log_prob_"):
        np.testing.assert_allclose(getattr(model, name), expected[name], rtol=rtol, atol=rtol, err_msg=name)
    np.testing.assert_allclose(model.predict_joint_log_proba(X_test), expected["jll"], rtol=rtol, atol=rtol)
    np.testing.assert_allclose(model.predict_log_proba(X_test), expected["log_proba"], rtol=rtol, atol=rtol)
    np.testing.assert_array_equal(model.predict(X_test), expected["classes_"][expected["jll"].argmax(axis=1)])


@pytest.mark.parametrize("dtype", FLOAT_DTYPES)
@pytest.mark.parametrize("container", CONTAINERS)
def test_matches_sklearn(dtype, container, corpus):
    X, y = corpus
    X_train, y_train, X_test = split(as_container(X, container, dtype, np.int64), y)
    ours = nbfast.ComplementNB().fit(X_train, y_train)
    theirs = sk_nb.ComplementNB().fit(X_train, y_train)
    assert_same(ours, theirs, X_test, tolerance(dtype))


@pytest.mark.parametrize(
    "params",
    [
        {"norm": True},
        {"alpha": 0.05},
        {"alpha": "array", "norm": True},
        {"alpha": 0.0, "force_alpha": False},
        {"fit_prior": False, "class_prior": [0.2, 0.5, 0.3]},
    ],
    ids=["norm", "small-alpha", "alpha-array", "alpha-clipped", "priors-unused"],
)
@pytest.mark.filterwarnings("ignore:alpha too small:UserWarning")  # alpha-clipped: scikit-learn's warning, on purpose
def test_parameter_grid_with_sample_weight_matches_sklearn(params):
    X, y = make_documents(400, 120, 3, mean_length=40, class_separation=0.3, random_state=3)
    params = dict(params)
    if params.get("alpha") == "array":
        params["alpha"] = np.linspace(0.1, 2.0, X.shape[1])
    weights = np.random.default_rng(4).uniform(0, 3, size=X.shape[0])
    X_train, y_train, X_test = split(X, y)
    with pytest.warns(UserWarning, match="alpha too small") if params.get("force_alpha") is False else nullcontext():
        ours = nbfast.ComplementNB(**params).fit(X_train, y_train, sample_weight=weights[:200])
    theirs = sk_nb.ComplementNB(**params).fit(X_train, y_train, sample_weight=weights[:200])
    assert_same(ours, theirs, X_test)
    expected = reference(X_train, y_train, X_test, alpha=ours._check_alpha(X.shape[1]), norm=params.get("norm", False),
                         sample_weight=weights[:200])
    np.testing.assert_allclose(ours.predict_joint_log_proba(X_test), expected["jll"], rtol=1e-12, atol=1e-12)


@pytest.mark.filterwarnings("ignore:The number of unique classes:UserWarning")  # 120 classes in 300 rows
@pytest.mark.parametrize("norm", [False, True])
def test_partial_fit_in_chunks_with_weights_matches_sklearn(norm, corpus):
    X, y = corpus
    labels = np.array([f"c{c}" for c in range(y.max() + 1)])[y]
    weights = np.random.default_rng(2).uniform(0.5, 2.0, size=X.shape[0])
    classes = np.unique(labels)
    ours, theirs = nbfast.ComplementNB(norm=norm), sk_nb.ComplementNB(norm=norm)
    for start in range(0, 450, 150):
        chunk = slice(start, start + 150)
        ours.partial_fit(X[chunk], labels[chunk], classes=classes, sample_weight=weights[chunk])
        theirs.partial_fit(X[chunk], labels[chunk], classes=classes, sample_weight=weights[chunk])
    assert_same(ours, theirs, X[450:])


@pytest.mark.parametrize("fit_prior", [True, False])
def test_single_class_uses_the_prior_like_sklearn(fit_prior):
    X, _ = make_documents(60, 30, 2, random_state=0)
    y = np.full(60, 7)
    ours = nbfast.ComplementNB(fit_prior=fit_prior).fit(X, y)
    theirs = sk_nb.ComplementNB(fit_prior=fit_prior).fit(X, y)
    assert_same(ours, theirs, X)
    np.testing.assert_allclose(
        ours.predict_joint_log_proba(X), X @ ours.feature_log_prob_.T + ours.class_log_prior_, rtol=1e-12
    )
    np.testing.assert_array_equal(ours.predict(X), 7)


def test_rebuilt_from_fitted_attributes():
    X, y = make_documents(300, 80, 4, random_state=1)
    X_train, y_train, X_test = split(X, y)
    model = nbfast.ComplementNB(norm=True).fit(X_train, y_train)
    clone = rebuild(model)
    np.testing.assert_array_equal(clone.feature_all_, model.feature_all_)
    np.testing.assert_array_equal(clone.predict_proba(X_test), model.predict_proba(X_test))
    clone.partial_fit(X_test, y[len(y_train):])  # and keeps learning
    full = nbfast.ComplementNB(norm=True).fit(X, y)
    np.testing.assert_allclose(clone.predict_proba(X_test), full.predict_proba(X_test), rtol=1e-12, atol=1e-12)


def test_read_only_input_and_thread_count_do_not_change_results(corpus, n_threads_limit):
    X, y = corpus
    X_train, y_train, X_test = split(X, y)
    weights = np.random.default_rng(0).uniform(0, 2, size=len(y_train))
    results = []
    for n, wrap in ((1, lambda a: a), (2, read_only)):
        with n_threads_limit(n):
            model = nbfast.ComplementNB().fit(wrap(X_train), y_train, sample_weight=weights)
            results.append((model.feature_count_, model.predict_proba(wrap(X_test)), model.predict(X_test)))
    for a, b in zip(*results):
        np.testing.assert_array_equal(a, b)


def test_negative_values_are_refused_and_leave_the_model_unchanged():
    X, y = make_documents(50, 10, 2, random_state=0)
    model = nbfast.ComplementNB().fit(X, y)
    before = model.feature_count_.copy()
    bad = X.toarray()
    bad[0, 0] = -1
    with pytest.raises(ValueError, match="Negative"):
        model.partial_fit(bad, y)
    np.testing.assert_array_equal(model.feature_count_, before)
