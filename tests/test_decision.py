"""Prior shift, Bayes decisions with a reject option, and fusion, against plain numpy references."""

import gc
import sys
import warnings

import numpy as np
import pytest
from support.helpers import CONTAINERS, NB_FAMILY, as_container, nb_estimator, read_only

import nbfast
from nbfast import _compat
from nbfast.datasets import make_documents

_PRIOR_PARAMS = ("class_prior", "priors")  # nbfast / scikit-learn names of the prior hyperparameter

RNG = np.random.default_rng(0)


def random_proba(n_samples, n_classes, rng=RNG):
    return rng.dirichlet(np.full(n_classes, 0.7), size=n_samples)


def normalize_reference(scores):
    """Rows of non-negative scores divided by their sums: the plain float64 reference."""
    return scores / scores.sum(axis=1, keepdims=True)


def train_prior(model):
    return np.exp(model.class_log_prior_) if hasattr(model, "class_log_prior_") else model.class_prior_


def fitted(name, X, y, **params):
    return nb_estimator(name, **params).fit(X, y)


def documents(n_samples=300, n_features=40, n_classes=3, random_state=0):
    return make_documents(
        n_samples, n_features, n_classes, mean_length=25, class_separation=0.3, random_state=random_state
    )


# ------------------------------------------------------------------ with_prior
@pytest.mark.parametrize("name", NB_FAMILY)
@pytest.mark.parametrize("container", CONTAINERS)
def test_with_prior_equals_refit_with_class_prior(name, container):
    X, y = documents()
    X = as_container(X, container)
    model = fitted(name, X[:200], y[:200])
    if name == "ComplementNB":  # adds no prior to its joint log-likelihood, as scikit-learn's
        with pytest.raises(ValueError, match="does not add its class prior"):
            nbfast.with_prior(model, [0.2, 0.3, 0.5])
        return
    X_test = X[200:]
    before = (model.predict_joint_log_proba(X_test), train_prior(model).copy())
    prior = np.array([0.6, 0.1, 0.3])
    shifted = nbfast.with_prior(model, prior)
    param = next((p for p in _PRIOR_PARAMS if p in model.get_params()), None)
    if param is not None:  # every estimator with a fixed-prior parameter: the same as refitting with it
        refit = fitted(name, X[:200], y[:200], **{param: prior})
        np.testing.assert_allclose(
            shifted.predict_joint_log_proba(X_test), refit.predict_joint_log_proba(X_test), rtol=1e-12, atol=1e-8
        )
        np.testing.assert_allclose(shifted.predict_proba(X_test), refit.predict_proba(X_test), rtol=0, atol=1e-8)
        np.testing.assert_array_equal(shifted.predict(X_test), refit.predict(X_test))
        np.testing.assert_array_equal(shifted.get_params()[param], prior)
        assert model.get_params()[param] is None
    # the reference: p_train(y|x) / p_train(y) * prior(y), normalized
    expected = normalize_reference(model.predict_proba(X_test) / before[1] * prior)
    np.testing.assert_allclose(shifted.predict_proba(X_test), expected, rtol=0, atol=1e-8)
    # the original is untouched
    np.testing.assert_array_equal(model.predict_joint_log_proba(X_test), before[0])
    np.testing.assert_array_equal(train_prior(model), before[1])


@pytest.mark.parametrize("name", ["MultinomialNB", "BernoulliNB"])
def test_with_prior_is_kept_by_partial_fit(name):
    X, y = documents()
    model = nb_estimator(name).partial_fit(X[:100], y[:100], classes=[0, 1, 2])
    shifted = nbfast.with_prior(model, [0.5, 0.25, 0.25])
    shifted.partial_fit(X[100:], y[100:])
    np.testing.assert_allclose(shifted.class_log_prior_, np.log([0.5, 0.25, 0.25]))
    refit = nb_estimator(name, class_prior=[0.5, 0.25, 0.25]).fit(X, y)
    np.testing.assert_allclose(shifted.predict_proba(X), refit.predict_proba(X), rtol=0, atol=1e-10)


def test_with_prior_zero_prior_rules_a_class_out():
    X, y = documents()
    shifted = nbfast.with_prior(nbfast.MultinomialNB().fit(X, y), [0.5, 0.0, 0.5])
    proba = shifted.predict_proba(X)
    assert np.all(proba[:, 1] == 0) and np.all(np.isfinite(proba))
    assert not np.any(shifted.predict(X) == 1)


def test_with_prior_works_for_sklearn_naive_bayes():
    sk_nb = pytest.importorskip("sklearn.naive_bayes")
    X, y = documents()
    prior = np.array([0.2, 0.2, 0.6])
    for cls, param in ((sk_nb.MultinomialNB, "class_prior"), (sk_nb.GaussianNB, "priors")):
        X_fit = X.toarray() if cls is sk_nb.GaussianNB else X
        shifted = nbfast.with_prior(cls().fit(X_fit, y), prior)
        refit = cls(**{param: prior}).fit(X_fit, y)
        np.testing.assert_allclose(shifted.predict_proba(X_fit), refit.predict_proba(X_fit), rtol=0, atol=1e-10)


def test_with_prior_errors():
    X, y = documents()
    model = nbfast.MultinomialNB().fit(X, y)
    with pytest.raises(ValueError, match="Number of priors must match"):
        nbfast.with_prior(model, [0.5, 0.5])
    with pytest.raises(ValueError, match="sum to 1"):
        nbfast.with_prior(model, [0.5, 0.5, 0.5])
    with pytest.raises(ValueError, match="Priors must be non-negative"):
        nbfast.with_prior(model, [1.5, -0.5, 0.0])
    with pytest.raises(_compat.NotFittedError):
        nbfast.with_prior(nbfast.MultinomialNB(), [0.2, 0.3, 0.5])
    linear_model = pytest.importorskip("sklearn.linear_model")
    with pytest.raises(TypeError, match="shift_prior"):
        nbfast.with_prior(linear_model.LogisticRegression().fit(X, y), [0.2, 0.3, 0.5])


# ----------------------------------------------------------------- shift_prior
def test_shift_prior_matches_reference_and_with_prior():
    proba = random_proba(500, 4)
    old, new = np.array([0.1, 0.2, 0.3, 0.4]), np.array([0.4, 0.3, 0.2, 0.1])
    np.testing.assert_allclose(nbfast.shift_prior(proba, old, new), normalize_reference(proba / old * new), rtol=1e-12)
    X, y = documents()
    model = nbfast.BernoulliNB().fit(X, y)
    new = np.array([0.7, 0.2, 0.1])
    np.testing.assert_allclose(
        nbfast.shift_prior(model.predict_proba(X), train_prior(model), new),
        nbfast.with_prior(model, new).predict_proba(X),
        rtol=0,
        atol=1e-10,
    )


def test_shift_prior_for_any_classifier_and_zero_train_prior():
    linear_model = pytest.importorskip("sklearn.linear_model")
    X, y = documents()
    proba = linear_model.LogisticRegression().fit(X, y).predict_proba(X)
    shifted = nbfast.shift_prior(proba, np.bincount(y) / len(y), [1 / 3] * 3)
    np.testing.assert_allclose(shifted.sum(axis=1), 1.0)
    proba = np.array([[0.0, 0.5, 0.5], [0.0, 1.0, 0.0]])
    shifted = nbfast.shift_prior(proba, [0.0, 0.5, 0.5], [0.2, 0.4, 0.4])
    np.testing.assert_array_equal(shifted, [[0.0, 0.5, 0.5], [0.0, 1.0, 0.0]])


# --------------------------------------------------------------------- decide
def decide_reference(proba, loss, reject_cost):
    """One row at a time, the definition written out."""
    actions = []
    for p in proba:
        expected = [sum(p[i] * loss[i, j] for i in range(len(p))) for j in range(len(p))]
        best = int(np.argmin(expected))
        actions.append(-1 if reject_cost is not None and reject_cost < expected[best] else best)
    return np.array(actions)


@pytest.mark.parametrize("reject_quantile", [None, 0.0, 0.3, 0.7, 1.0])
@pytest.mark.parametrize("n_classes", [2, 5])
def test_decide_matches_reference_with_a_loss_matrix(reject_quantile, n_classes):
    rng = np.random.default_rng(n_classes)
    proba = random_proba(400, n_classes, rng)
    loss = rng.uniform(0, 3, size=(n_classes, n_classes))
    np.fill_diagonal(loss, 0)
    # reject costs spread over the rows' best expected losses (off exact ties), so both outcomes occur
    best_losses = (proba @ loss).min(axis=1)
    reject_cost = None if reject_quantile is None else float(np.quantile(best_losses, reject_quantile)) + 1e-9
    action = nbfast.decide(proba, loss, reject_cost)
    assert action.dtype == np.intp
    np.testing.assert_array_equal(action, decide_reference(proba, loss, reject_cost))
    if reject_quantile in (0.3, 0.7):
        assert 0 < np.sum(action == -1) < len(action)


@pytest.mark.parametrize("reject_cost", [None, 0.0, 0.1, 0.25, 0.3, 0.5, 1.0])
def test_decide_01_loss_is_chow_rule_exactly(reject_cost):
    proba = np.vstack([
        random_proba(1000, 4),
        [[0.75, 0.25, 0.0, 0.0], [0.5, 0.5, 0.0, 0.0], [0.7, 0.1, 0.1, 0.1], [0.9, 0.1, 0.0, 0.0], [1.0, 0, 0, 0]],
    ])
    action = nbfast.decide(proba, reject_cost=reject_cost)
    np.testing.assert_array_equal(action[action >= 0], proba.argmax(axis=1)[action >= 0])
    if reject_cost is None:
        assert np.all(action >= 0)
    else:
        np.testing.assert_array_equal(action == -1, proba.max(axis=1) < 1 - reject_cost)
    # the 0-1 loss as a matrix gives the same decisions away from exact ties
    explicit = nbfast.decide(proba[:1000], 1 - np.eye(4), reject_cost)
    np.testing.assert_array_equal(explicit, action[:1000])


def test_decide_float32_read_only_transposed_loss_and_threads(n_threads_limit):
    rng = np.random.default_rng(7)
    proba = random_proba(3000, 6, rng)
    loss = np.asfortranarray(rng.uniform(0, 2, size=(6, 6)))
    expected = nbfast.decide(proba, loss, reject_cost=0.4)
    assert 0 < np.sum(expected == -1) < len(expected)
    np.testing.assert_array_equal(expected, decide_reference(proba, loss, 0.4))
    frozen = read_only(proba)
    for n in (1, 2):
        with n_threads_limit(n):
            np.testing.assert_array_equal(nbfast.decide(frozen, loss, reject_cost=0.4), expected)
            np.testing.assert_array_equal(nbfast.decide(frozen, reject_cost=0.4), nbfast.decide(proba, reject_cost=0.4))
    single = proba.astype(np.float32)  # read as float32, compared in float64
    np.testing.assert_array_equal(nbfast.decide(single, loss, 0.4), decide_reference(single.astype(np.float64), loss, 0.4))
    np.testing.assert_array_equal(
        nbfast.decide(single, reject_cost=0.4) == -1, single.max(axis=1).astype(np.float64) < 1 - 0.4
    )
    assert nbfast.decide(np.empty((0, 3))).shape == (0,)


def test_decide_ties():
    proba = np.array([[0.5, 0.5], [0.75, 0.25], [0.25, 0.75]])
    # between classes the lowest index; at max p == 1 - reject_cost the class, not reject
    np.testing.assert_array_equal(nbfast.decide(proba, reject_cost=0.25), [-1, 0, 1])
    np.testing.assert_array_equal(nbfast.decide(proba), [0, 0, 1])
    loss = np.array([[0.0, 1.0], [3.0, 0.0]])  # missing class 1 costs 3
    # expected loss of predicting 0 is 3 p1, of predicting 1 is p0
    np.testing.assert_array_equal(nbfast.decide(proba, loss), [1, 0, 1])  # 0.75 vs 0.75 in row 1: index 0
    np.testing.assert_array_equal(nbfast.decide(np.array([[0.8, 0.2]]), loss), [0])
    np.testing.assert_array_equal(nbfast.decide(np.array([[0.8, 0.2]]), loss, reject_cost=0.5), [-1])


def test_decide_errors():
    with pytest.raises(ValueError, match="2-D"):
        nbfast.decide(np.array([0.5, 0.5]))
    with pytest.raises(ValueError, match="finite non-negative"):
        nbfast.decide(np.array([[np.nan, 0.5]]))
    with pytest.raises(ValueError, match="loss must be"):
        nbfast.decide(np.array([[0.5, 0.5]]), np.ones((3, 3)))
    for bad in (-0.1, np.inf, "0.1", True):
        with pytest.raises(ValueError, match="reject_cost"):
            nbfast.decide(np.array([[0.5, 0.5]]), reject_cost=bad)


@pytest.mark.parametrize("labels", ["int", "str"])
def test_predict_with_reject_maps_labels(labels):
    X, y = documents()
    names = np.array(["ant", "bee", "cat"])
    y = names[y] if labels == "str" else y * 10
    model = nbfast.MultinomialNB().fit(X, y)
    proba = model.predict_proba(X)
    action = nbfast.decide(proba, reject_cost=0.2)
    assert 0 < np.sum(action == -1) < len(action)
    reject = "unsure" if labels == "str" else -1
    got = nbfast.predict_with_reject(model, X, reject_cost=0.2, reject_label=reject)
    assert got.dtype.kind == ("U" if labels == "str" else "i")
    np.testing.assert_array_equal(got[action >= 0], model.classes_[action[action >= 0]])
    assert np.all(got[action == -1] == reject)
    default = nbfast.predict_with_reject(model, X, reject_cost=0.2)
    assert default.dtype == object and all(v is None for v in default[action == -1])
    np.testing.assert_array_equal(nbfast.predict_with_reject(model, X), model.predict(X))
    if labels == "int":  # no silent promotion to float or truncation to the classes' string width
        model.classes_ = model.classes_.astype(np.uint64)
        assert nbfast.predict_with_reject(model, X, reject_cost=0.2, reject_label=-1).dtype == object
    else:
        assert "unsure" in nbfast.predict_with_reject(model, X, reject_cost=0.2, reject_label="unsure").tolist()


# ----------------------------------------------------------------------- fuse
def fuse_reference(probas, prior):
    scores = np.prod(probas, axis=0) / prior ** (len(probas) - 1)
    return normalize_reference(scores)


@pytest.mark.parametrize("n_models", [1, 2, 3])
def test_fuse_matches_reference(n_models):
    probas = [random_proba(300, 4) for _ in range(n_models)]
    prior = np.array([0.1, 0.2, 0.3, 0.4])
    fused = nbfast.fuse(probas, prior)
    np.testing.assert_allclose(fused, fuse_reference(probas, prior), rtol=1e-10)
    logs = [np.log(p) for p in probas]
    originals = [a.copy() for a in logs]
    np.testing.assert_allclose(nbfast.fuse(logs, prior, log=True), np.log(fused), rtol=1e-10)
    for a, original in zip(logs, originals):  # the inputs are not normalized in place
        np.testing.assert_array_equal(a, original)


def _fuse_data(name, rng):
    if name == "GaussianNB":
        y = rng.integers(0, 3, size=300)
        return rng.normal(size=(300, 12)) + y[:, None] * rng.normal(size=12), y
    X, y = make_documents(300, 12, 3, mean_length=20, class_separation=0.4, random_state=1)
    return X.toarray(), y


@pytest.mark.parametrize("name", ["BernoulliNB", "PoissonNB", "CategoricalNB", "GaussianNB"])
def test_fuse_of_models_on_disjoint_columns_equals_one_model(name):
    """The Naive Bayes assumption makes column groups independent given the class."""
    params = {"var_smoothing": 0.0} if name == "GaussianNB" else {}  # its epsilon depends on all the columns
    X, y = _fuse_data(name, np.random.default_rng(3))
    full = fitted(name, X, y, **params)
    groups = [slice(0, 5), slice(5, 9), slice(9, 12)]
    for k in (2, 3):
        cols = groups[:k - 1] + [slice(groups[k - 1].start, 12)]
        parts = [fitted(name, X[:, c], y, **params) for c in cols]
        prior = train_prior(full)
        for part in parts:
            np.testing.assert_allclose(train_prior(part), prior, rtol=1e-14)
        fused = nbfast.fuse([p.predict_proba(X[:, c]) for p, c in zip(parts, cols)], prior)
        np.testing.assert_allclose(fused, full.predict_proba(X), rtol=0, atol=1e-8)
        fused_log = nbfast.fuse([p.predict_log_proba(X[:, c]) for p, c in zip(parts, cols)], prior, log=True)
        np.testing.assert_allclose(fused_log, full.predict_log_proba(X), rtol=1e-10, atol=1e-8)


def test_fuse_zeros_give_no_nan():
    prior = np.array([0.25, 0.25, 0.5])
    a = np.array([[0.0, 0.5, 0.5], [0.2, 0.3, 0.5], [1.0, 0.0, 0.0]])
    b = np.array([[0.3, 0.0, 0.7], [0.2, 0.3, 0.5], [1.0, 0.0, 0.0]])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        fused = nbfast.fuse([a, b], prior)
    np.testing.assert_array_equal(fused[0], [0.0, 0.0, 1.0])
    np.testing.assert_allclose(fused[1:], fuse_reference([a[1:], b[1:]], prior))
    # a class of prior 0 is impossible, even where the models' columns are 0
    with pytest.warns(RuntimeWarning, match="1 row"):  # row 0: each class ruled out by a model or the prior
        fused = nbfast.fuse([a, b], [0.5, 0.5, 0.0])
    np.testing.assert_array_equal(fused[1:, 2], 0.0)
    assert np.isnan(fused[0]).all() and not np.isnan(fused[1:]).any()
    # every class ruled out: NaN, and said so
    with pytest.warns(RuntimeWarning, match="probability 0 to every class"):
        fused = nbfast.fuse([[[1.0, 0.0]], [[0.0, 1.0]]], [0.5, 0.5])
    assert np.isnan(fused).all()


def test_fuse_errors():
    with pytest.raises(ValueError, match="at least one"):
        nbfast.fuse([], [0.5, 0.5])
    with pytest.raises(ValueError, match="expected"):
        nbfast.fuse([random_proba(3, 2), random_proba(4, 2)], [0.5, 0.5])
    with pytest.raises(ValueError, match="classes"):
        nbfast.fuse([random_proba(3, 2), random_proba(3, 3)], [0.5, 0.5])
    with pytest.raises(ValueError, match="Number of priors must match"):
        nbfast.fuse([random_proba(3, 2)], [1.0])
    with pytest.raises(ValueError, match="log-probabilities"):
        nbfast.fuse([np.ones((3, 2))], [0.5, 0.5], log=True)


# ---------------------------------------------------------------- vectorized
def python_calls(func, *args, **kwargs):
    """Number of Python and C function calls made while running func (no timing involved).

    func runs once before it is counted (one-time work such as caches is not per row), and the garbage
    collector is kept out of the count: a collection during func would run the finalizers and weak reference
    callbacks of objects other tests left behind.
    """
    func(*args, **kwargs)
    count = 0

    def profile(frame, event, arg):
        nonlocal count
        count += event in ("call", "c_call")

    gc.collect()
    gc.disable()
    sys.setprofile(profile)
    try:
        func(*args, **kwargs)
    finally:
        sys.setprofile(None)
        gc.enable()
    return count


def test_decide_fuse_and_shift_have_no_per_row_python_loop():
    """The number of calls does not grow with the number of rows."""
    loss = 1 - np.eye(4)
    prior = np.full(4, 0.25)
    calls = {}
    for n_samples in (10, 20_000):
        probas = [random_proba(n_samples, 4) for _ in range(3)]
        calls[n_samples] = [
            python_calls(nbfast.decide, probas[0], reject_cost=0.3),
            python_calls(nbfast.decide, probas[0], loss, reject_cost=0.3),
            python_calls(nbfast.fuse, probas, prior),
            python_calls(nbfast.shift_prior, probas[0], prior, [0.1, 0.2, 0.3, 0.4]),
        ]
    assert min(calls[10]) > 0 and calls[10] == calls[20_000]
