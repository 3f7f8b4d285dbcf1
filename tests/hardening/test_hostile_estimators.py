"""Parameters and fitted attributes that reach the kernels by roads other than X: each is refused with a
ValueError before any kernel reads it, and never ends the interpreter (the risky calls run in a child)."""

import sys
import threading

import numpy as np
import pytest
import scipy.sparse as sp
from support import isolated

import nbfast
from nbfast.datasets import make_documents


def _data(n_features=20, n_classes=3, n_samples=60, random_state=0):
    return make_documents(n_samples, n_features, n_classes, mean_length=20, random_state=random_state)


def _fitted(cls, **params):
    X, y = _data()
    if cls is nbfast.CategoricalNB:
        X = X.minimum(3)
    return cls(**params).fit(X, y), X


def _assigned(cls, name, value, method="predict_proba"):
    """Fit, assign ``name`` (a function of the current value), then call ``method``."""

    def call():
        model, X = _fitted(cls)
        setattr(model, name, value(getattr(model, name)))
        return getattr(model, method)(X)

    return call


def _set_params_then(cls, method="predict", **params):
    def call():
        model, X = _fitted(cls)
        model.set_params(**params)
        return getattr(model, method)(X)

    return call


def _fit_while_predicting(cls):
    """One thread refits the model on data of other shapes while another predicts with it."""

    def call():
        small, large = _data(30, 2, random_state=1), _data(3000, 12, n_samples=200, random_state=2)
        model = cls().fit(*small)
        stop = threading.Event()

        def refit():
            while not stop.is_set():
                for X, y in (large, small):
                    model.fit(X, y)

        interval = sys.getswitchinterval()
        sys.setswitchinterval(1e-6)  # switch threads as often as possible: every window of the race opens
        thread = threading.Thread(target=refit)
        thread.start()
        try:
            for _ in range(2000):
                for X, _y in (small, large):
                    try:
                        model.predict_proba(X)
                    except ValueError:  # the model changed shape between the check of X and scoring
                        pass
        finally:
            stop.set()
            thread.join()
            sys.setswitchinterval(interval)

    return call


def _partial_fit_after_assigning_counts():
    model, X = _fitted(nbfast.MultinomialNB)
    model.feature_count_ = np.zeros((1, 2))  # the count kernel would write feature_count_[y, j] for every j < 20
    model.partial_fit(X, np.zeros(X.shape[0], dtype=int))


def _decide_without_classes():
    return nbfast.decide(np.empty((3, 0)))


CASES = {
    "CategoricalNB.set_params(max_categories=-10**15).predict": _set_params_then(
        nbfast.CategoricalNB, max_categories=-10**15),
    "CategoricalNB.set_params(max_categories=0).predict_proba": _set_params_then(
        nbfast.CategoricalNB, "predict_proba", max_categories=0),
    "CategoricalNB n_categories_ assigned too large": _assigned(nbfast.CategoricalNB, "n_categories_", lambda v: v + 5),
    "CategoricalNB n_categories_ assigned negative": _assigned(nbfast.CategoricalNB, "n_categories_", lambda v: -v),
    "MultinomialNB feature_log_prob_ too narrow": _assigned(
        nbfast.MultinomialNB, "feature_log_prob_", lambda v: np.zeros((3, 5))),
    "MultinomialNB feature_log_prob_ transposed": _assigned(
        nbfast.MultinomialNB, "feature_log_prob_", lambda v: np.zeros((20, 3))),
    "BernoulliNB feature_log_prob_ too narrow": _assigned(
        nbfast.BernoulliNB, "feature_log_prob_", lambda v: np.full((3, 2), -1.0), "predict"),
    "MultinomialNB class_log_prior_ too short": _assigned(
        nbfast.MultinomialNB, "class_log_prior_", lambda v: v[:2]),
    "PoissonNB class_log_prior_ of one class": _assigned(nbfast.PoissonNB, "class_log_prior_", lambda v: v[:1]),
    "MultinomialNB feature_log_prob_ NaN": _assigned(
        nbfast.MultinomialNB, "feature_log_prob_", lambda v: np.full(v.shape, np.nan)),
    "GaussianNB theta_ too narrow": _assigned(nbfast.GaussianNB, "theta_", lambda v: v[:, :2].copy()),
    "GaussianNB var_ of one class": _assigned(nbfast.GaussianNB, "var_", lambda v: v[:1].copy()),
    "GaussianNB var_ NaN": _assigned(nbfast.GaussianNB, "var_", lambda v: np.full(v.shape, np.nan)),
    "GaussianNB class_prior_ too short": _assigned(nbfast.GaussianNB, "class_prior_", lambda v: v[:1]),
    "GaussianNB theta_ and var_ of more classes": _assigned(
        nbfast.GaussianNB, "theta_", lambda v: np.zeros((30, 20)), "predict"),
    "BernoulliNB(binarize=nan).fit": lambda: _fitted(nbfast.BernoulliNB, binarize=np.nan),
    "BernoulliNB.set_params(binarize=nan).predict": _set_params_then(nbfast.BernoulliNB, binarize=np.nan),
    "MultinomialNB.partial_fit after assigning feature_count_": _partial_fit_after_assigning_counts,
    "decide on (n, 0) probabilities": _decide_without_classes,
    **{f"{cls.__name__}: fit in one thread while another predicts": _fit_while_predicting(cls)
       for cls in (nbfast.MultinomialNB, nbfast.BernoulliNB, nbfast.CategoricalNB, nbfast.GaussianNB)},
}

EXPECTED = {
    "CategoricalNB.set_params(max_categories=-10**15).predict": "InvalidParameterError: The 'max_categories' parameter",
    "CategoricalNB.set_params(max_categories=0).predict_proba": "InvalidParameterError: The 'max_categories' parameter",
    "CategoricalNB n_categories_ assigned too large": "ValueError: .*table",
    "CategoricalNB n_categories_ assigned negative": "ValueError: n_categories_ must hold counts >= 1",
    "MultinomialNB feature_log_prob_ too narrow": "ValueError: the model's scoring table",
    "MultinomialNB feature_log_prob_ transposed": "ValueError: the model's scoring table",
    "BernoulliNB feature_log_prob_ too narrow": "ValueError: the model's scoring table",
    "MultinomialNB class_log_prior_ too short": "ValueError: the class prior has shape \\(2,\\)",
    "PoissonNB class_log_prior_ of one class": "ValueError: the class prior has shape \\(1,\\)",
    "MultinomialNB feature_log_prob_ NaN": "ValueError: feature_log_prob_ contains NaN",
    "GaussianNB theta_ too narrow": "ValueError: theta_ .* do not agree",
    "GaussianNB var_ of one class": "ValueError: theta_ .* do not agree",
    "GaussianNB var_ NaN": "ValueError: var_ must hold variances",
    "GaussianNB class_prior_ too short": "ValueError: theta_ .* do not agree",
    "GaussianNB theta_ and var_ of more classes": "ValueError: theta_ .* do not agree",
    "BernoulliNB(binarize=nan).fit": "InvalidParameterError: The 'binarize' parameter",
    "BernoulliNB.set_params(binarize=nan).predict": "InvalidParameterError: The 'binarize' parameter",
    "MultinomialNB.partial_fit after assigning feature_count_": "ValueError: feature_count_ has shape",
    "decide on (n, 0) probabilities": "ValueError: proba must have at least one class",
}


#: Each call is refused (or runs), in a child interpreter that no case may crash.
test_refused_cleanly_never_a_crash = isolated.case_test(__file__, CASES, EXPECTED)


@pytest.mark.parametrize("binarize", [0.0, 0.5, 1e300, None])
def test_bernoulli_binarize_takes_a_non_negative_threshold_or_none(binarize):
    X, y = _data()
    X = X.minimum(1) if binarize is None else X
    model = nbfast.BernoulliNB(binarize=binarize).fit(X, y)
    assert np.isfinite(model.predict_proba(X)).all()


@pytest.mark.parametrize("binarize", [np.inf, -np.inf, -0.5, np.nan, "0.5"])
def test_bernoulli_binarize_refuses_what_scikit_learn_refuses(binarize):
    X, y = _data()
    with pytest.raises(ValueError, match="'binarize' parameter of BernoulliNB"):
        nbfast.BernoulliNB(binarize=binarize).fit(X.toarray(), y)


def test_bernoulli_without_binarize_refuses_counts_above_one():
    """binarize=None takes X as binary: counts would give NaN posteriors beside a confident label."""
    X, y = _data()
    model = nbfast.BernoulliNB(binarize=None)
    for fit in (model.fit, lambda X, y: model.partial_fit(X, y, classes=np.unique(y))):
        with pytest.raises(ValueError, match="binarize=None.*binary X"):
            fit(X, y)
    assert not hasattr(model, "classes_")
    model.fit(X.minimum(1), y)
    with pytest.raises(ValueError, match="binary X"):
        model.predict_proba(X)
    assert np.isfinite(model.predict_proba(X.minimum(1))).all()


def test_parameters_are_checked_again_before_scoring_only_where_scoring_reads_them():
    """set_params after fit: a parameter that only fit reads does not break predict (as in scikit-learn)."""
    model, X = _fitted(nbfast.MultinomialNB)
    expected = model.predict_proba(X)
    model.set_params(alpha=-1.0)
    np.testing.assert_array_equal(model.predict_proba(X), expected)
    with pytest.raises(ValueError, match="alpha"):
        model.partial_fit(X, np.zeros(X.shape[0], dtype=int))


@pytest.mark.parametrize("cls", [nbfast.MultinomialNB, nbfast.CategoricalNB, nbfast.GaussianNB])
def test_a_wrong_shape_is_refused_in_process_too(cls):
    model, X = _fitted(cls)
    model.class_count_ = model.class_count_  # unchanged: still works
    model.predict(X)
    name = "class_prior_" if cls is nbfast.GaussianNB else "class_log_prior_"
    setattr(model, name, getattr(model, name)[:2])
    with pytest.raises(ValueError):
        model.predict(sp.csr_matrix(X))
