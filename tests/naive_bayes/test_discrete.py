"""MultinomialNB and BernoulliNB against scikit-learn and a plain numpy float64 reference."""

import numpy as np
import pytest
import scipy.sparse as sp
from support.helpers import (
    CONTAINERS,
    FLOAT_DTYPES,
    INDEX_DTYPES,
    as_container,
    logsumexp_reference,
    read_only,
    split,
    tolerance,
)

import nbfast
from nbfast.datasets import make_documents

sk_nb = pytest.importorskip("sklearn.naive_bayes")

ESTIMATORS = {
    "multinomial": (nbfast.MultinomialNB, sk_nb.MultinomialNB),
    "bernoulli": (nbfast.BernoulliNB, sk_nb.BernoulliNB),
}


# ----------------------------------------------------------------------------- reference
def dot_log(X, log_p):
    """X @ log_p.T for non-negative X with 0 * log 0 = 0: -inf only where a nonzero x meets log p = -inf."""
    impossible = np.isneginf(log_p)
    out = X @ np.where(impossible, 0.0, log_p).T
    out[X @ impossible.T > 0] = -np.inf
    return out


def reference(kind, X, y, X_test, *, alpha=1.0, sample_weight=None, binarize=0.0, fit_prior=True, class_prior=None):
    """Plain numpy float64 Naive Bayes, the formulas written out densely."""
    X = np.asarray(X.toarray() if sp.issparse(X) else X, dtype=np.float64)
    X_test = np.asarray(X_test.toarray() if sp.issparse(X_test) else X_test, dtype=np.float64)
    classes, y_index = np.unique(y, return_inverse=True)
    Y = np.eye(len(classes))[y_index]
    if sample_weight is not None:
        Y = Y * sample_weight[:, None]
    if kind == "bernoulli" and binarize is not None:
        X, X_test = (X > binarize).astype(float), (X_test > binarize).astype(float)
    class_count = Y.sum(axis=0)
    feature_count = Y.T @ X
    if kind == "multinomial":
        smoothed = feature_count + alpha
        log_theta = np.log(smoothed) - np.log(smoothed.sum(axis=1, keepdims=True))
    else:
        # alpha is a float or one value per feature: N_c + 2 alpha_i, (n_classes, n_features)
        log_theta = np.log(feature_count + alpha) - np.log(class_count[:, None] + 2 * alpha)
    if class_prior is not None:
        log_prior = np.log(class_prior)
    elif fit_prior:
        log_prior = np.log(class_count / class_count.sum())
    else:
        log_prior = np.full(len(classes), -np.log(len(classes)))
    if kind == "multinomial":
        jll = dot_log(X_test, log_theta) + log_prior
    else:
        jll = dot_log(X_test, log_theta) + dot_log(1 - X_test, np.log(1 - np.exp(log_theta))) + log_prior
    log_proba = jll - logsumexp_reference(jll)
    return {
        "classes_": classes,
        "class_count_": class_count,
        "feature_count_": feature_count,
        "feature_log_prob_": log_theta,
        "class_log_prior_": log_prior,
        "jll": jll,
        "proba": np.exp(log_proba),
        "log_proba": log_proba,
    }


def assert_matches(model, expected, X_test, rtol):
    for name in ("class_count_", "feature_count_", "feature_log_prob_", "class_log_prior_"):
        np.testing.assert_allclose(getattr(model, name), expected[name], rtol=rtol, atol=rtol, err_msg=name)
    np.testing.assert_array_equal(model.classes_, expected["classes_"])
    np.testing.assert_allclose(model.predict_joint_log_proba(X_test), expected["jll"], rtol=rtol, atol=rtol)
    np.testing.assert_allclose(model.predict_log_proba(X_test), expected["log_proba"], rtol=rtol, atol=rtol)
    np.testing.assert_allclose(model.predict_proba(X_test), expected["proba"], rtol=rtol, atol=rtol)
    np.testing.assert_array_equal(model.predict(X_test), expected["classes_"][expected["jll"].argmax(axis=1)])


# ---------------------------------------------------------------- against the reference
@pytest.mark.parametrize("kind", ESTIMATORS)
@pytest.mark.parametrize("dtype", FLOAT_DTYPES)
@pytest.mark.parametrize("index_dtype", INDEX_DTYPES)
@pytest.mark.parametrize("container", CONTAINERS)
def test_matches_numpy_reference(kind, dtype, index_dtype, container, corpus):
    X, y = corpus
    X = as_container(X, container, dtype, index_dtype)
    X_train, y_train, X_test = split(X, y)
    model = ESTIMATORS[kind][0]().fit(X_train, y_train)
    assert_matches(model, reference(kind, X_train, y_train, X_test), X_test, tolerance(dtype))


@pytest.mark.parametrize("kind", ESTIMATORS)
def test_sample_weight_and_string_labels_match_reference(kind, corpus):
    X, y = corpus
    rng = np.random.default_rng(1)
    labels = np.array([f"topic-{c:03d}" for c in range(y.max() + 1)])[y]
    weights = rng.uniform(0, 3, size=X.shape[0])
    half = X.shape[0] // 2
    model = ESTIMATORS[kind][0](alpha=0.3).fit(X[:half], labels[:half], sample_weight=weights[:half])
    expected = reference(kind, X[:half], labels[:half], X[half:], alpha=0.3, sample_weight=weights[:half])
    assert model.classes_.dtype.kind == "U"
    assert_matches(model, expected, X[half:], 1e-12)


@pytest.mark.parametrize("kind", ESTIMATORS)
@pytest.mark.parametrize(
    "params",
    [{"fit_prior": False}, {"class_prior": "uniform-ish"}, {"alpha": 0.0}, {"alpha": "array"}],
    ids=["no-fit-prior", "class-prior", "alpha0", "alpha-array"],
)
def test_parameters_match_reference(kind, params):
    X, y = make_documents(400, 120, 3, mean_length=40, class_separation=0.3, random_state=3)
    params = dict(params)
    if params.get("class_prior") == "uniform-ish":
        params["class_prior"] = np.array([0.2, 0.5, 0.3])
    if isinstance(params.get("alpha"), str):
        params["alpha"] = np.linspace(0.1, 2.0, X.shape[1])
    X_train, y_train, X_test = split(X, y)
    with np.errstate(divide="ignore", invalid="ignore"):
        expected = reference(kind, X_train, y_train, X_test, **params)
        model = ESTIMATORS[kind][0](**params).fit(X_train, y_train)
    finite = np.isfinite(expected["jll"])
    if not np.array_equal(params.get("alpha", 1.0), 0.0):
        assert finite.all()
        assert_matches(model, expected, X_test, 1e-12)
        return
    # alpha=0: a class that never saw a word (or, for Bernoulli, always saw it) rules out the rows
    # that have it (lack it): -inf where the reference is -inf, the same values everywhere else.
    # -inf where the reference has it; elsewhere equal within rounding (numpy's own log, vectorized on some CPUs,
    # may differ from the C library's by an ulp)
    log_prob, expected_log_prob = model.feature_log_prob_, expected["feature_log_prob_"]
    np.testing.assert_array_equal(np.isneginf(log_prob), np.isneginf(expected_log_prob))
    np.testing.assert_allclose(log_prob[np.isfinite(log_prob)], expected_log_prob[np.isfinite(log_prob)], rtol=1e-14)
    rows = finite.any(axis=1)
    assert not finite.all() and rows.sum() > len(rows) // 2
    with np.errstate(divide="ignore", invalid="ignore"):
        jll = model.predict_joint_log_proba(X_test)
        log_proba, proba, labels = model.predict_log_proba(X_test), model.predict_proba(X_test), model.predict(X_test)
    np.testing.assert_array_equal(np.isneginf(jll), ~finite)
    np.testing.assert_allclose(jll[finite], expected["jll"][finite], rtol=1e-12)
    np.testing.assert_allclose(log_proba[rows], expected["log_proba"][rows], rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(proba[rows], expected["proba"][rows], rtol=1e-12, atol=1e-12)
    np.testing.assert_array_equal(labels[rows], expected["classes_"][expected["jll"][rows].argmax(axis=1)])


def test_bernoulli_binarize_variants_match_reference():
    X, y = make_documents(300, 80, 4, mean_length=40, class_separation=0.3, random_state=5)
    X_train, y_train, X_test = split(X, y)
    for binarize in (None, 1.5):
        Xtr = (X_train > 0).astype(np.float64) if binarize is None else X_train
        Xte = (X_test > 0).astype(np.float64) if binarize is None else X_test
        model = nbfast.BernoulliNB(binarize=binarize).fit(Xtr, y_train)
        assert_matches(model, reference("bernoulli", Xtr, y_train, Xte, binarize=binarize), Xte, 1e-12)


# ---------------------------------------------------------------- against scikit-learn
@pytest.mark.parametrize("kind", ESTIMATORS)
@pytest.mark.parametrize("dtype", FLOAT_DTYPES)
@pytest.mark.parametrize("container", CONTAINERS)
def test_matches_sklearn(kind, dtype, container, corpus):
    X, y = corpus
    X = as_container(X, container, dtype, np.int64)
    X_train, y_train, X_test = split(X, y)
    ours = ESTIMATORS[kind][0]().fit(X_train, y_train)
    theirs = ESTIMATORS[kind][1]().fit(X_train, y_train)
    rtol = tolerance(dtype)
    for name in ("class_count_", "feature_count_", "feature_log_prob_", "class_log_prior_"):
        np.testing.assert_allclose(getattr(ours, name), getattr(theirs, name), rtol=rtol, atol=rtol, err_msg=name)
    np.testing.assert_array_equal(ours.predict(X_test), theirs.predict(X_test))
    np.testing.assert_allclose(ours.predict_proba(X_test), theirs.predict_proba(X_test), rtol=rtol, atol=rtol)
    np.testing.assert_allclose(ours.predict_log_proba(X_test), theirs.predict_log_proba(X_test), rtol=rtol, atol=rtol)
    assert ours.score(X_test, y[len(y_train):]) == theirs.score(X_test, y[len(y_train):])


@pytest.mark.filterwarnings("ignore:The number of unique classes:UserWarning")  # 120 classes in 300 rows
@pytest.mark.parametrize("kind", ESTIMATORS)
def test_partial_fit_in_chunks_with_weights_matches_sklearn(kind, corpus):
    X, y = corpus
    labels = np.array([f"c{c}" for c in range(y.max() + 1)])[y]
    weights = np.random.default_rng(2).uniform(0.5, 2.0, size=X.shape[0])
    ours, theirs = ESTIMATORS[kind][0](), ESTIMATORS[kind][1]()
    classes = np.unique(labels)
    for start in range(0, 450, 150):
        chunk = slice(start, start + 150)
        ours.partial_fit(X[chunk], labels[chunk], classes=classes, sample_weight=weights[chunk])
        theirs.partial_fit(X[chunk], labels[chunk], classes=classes, sample_weight=weights[chunk])
    X_test = X[450:]
    for name in ("class_count_", "feature_count_", "feature_log_prob_", "class_log_prior_"):
        np.testing.assert_allclose(getattr(ours, name), getattr(theirs, name), rtol=1e-12, atol=1e-12)
    np.testing.assert_array_equal(ours.predict(X_test), theirs.predict(X_test))
    np.testing.assert_allclose(ours.predict_proba(X_test), theirs.predict_proba(X_test), rtol=1e-12, atol=1e-12)
    full = ESTIMATORS[kind][0]().partial_fit(X[:450], labels[:450], classes=classes, sample_weight=weights[:450])
    np.testing.assert_allclose(ours.feature_count_, full.feature_count_, rtol=1e-12)


@pytest.mark.parametrize("kind", ESTIMATORS)
def test_read_only_input(kind, corpus):
    X, y = corpus
    X_train, y_train, X_test = split(X, y)
    expected = ESTIMATORS[kind][0]().fit(X_train, y_train).predict_proba(X_test)
    for container in CONTAINERS:
        Xr_train = read_only(as_container(X_train, container))
        Xr_test = read_only(as_container(X_test, container))
        y_ro = y_train.copy()
        y_ro.flags.writeable = False
        got = ESTIMATORS[kind][0]().fit(Xr_train, y_ro).predict_proba(Xr_test)
        np.testing.assert_array_equal(got, expected)


@pytest.mark.parametrize("kind", ESTIMATORS)
def test_results_identical_for_one_and_two_threads(kind, corpus, n_threads_limit):
    X, y = corpus
    weights = np.random.default_rng(0).uniform(0, 2, size=X.shape[0])
    results = []
    for n in (1, 2):
        with n_threads_limit(n):
            model = ESTIMATORS[kind][0]().fit(X, y, sample_weight=weights)
            results.append((model.feature_count_.copy(), model.predict_proba(X), model.predict(X)))
    for a, b in zip(*results):
        np.testing.assert_array_equal(a, b)


def test_thread_limit_is_seen_by_the_kernels(n_threads_limit):
    from nbfast._kernels.threads import effective_n_threads, openmp_enabled

    with n_threads_limit(1):
        assert effective_n_threads() == 1
    if openmp_enabled():
        with n_threads_limit(2):
            assert effective_n_threads() == 2


@pytest.mark.parametrize("kind", ESTIMATORS)
def test_enormous_counts_give_finite_normalized_probabilities(kind):
    X, y = make_documents(200, 50, 3, mean_length=20, class_separation=0.5, random_state=0)
    model = ESTIMATORS[kind][0]().fit(X, y)
    huge = X[:20].copy()
    huge.data *= 1e12
    for proba in (model.predict_proba(huge), np.exp(model.predict_log_proba(huge))):
        assert np.all(np.isfinite(proba))
        np.testing.assert_allclose(proba.sum(axis=1), 1.0, rtol=1e-12)
    assert np.all(np.isfinite(model.predict_log_proba(huge)))


def test_feature_log_prob_is_a_view_of_the_scoring_table():
    X, y = make_documents(100, 40, 3, random_state=0)
    model = nbfast.MultinomialNB().fit(X, y)
    assert model.feature_log_prob_.base is model._log_prob_table
    with pytest.raises(ValueError, match="read-only"):  # in place, the derived tables would go stale
        model.feature_log_prob_[0, 0] = 0.0
    sk = sk_nb.MultinomialNB().fit(X, y)
    model.feature_log_prob_ = sk.feature_log_prob_ * 2  # assigning rebuilds the table used for scoring
    np.testing.assert_allclose(model.predict_joint_log_proba(X), X @ (sk.feature_log_prob_ * 2).T + model.class_log_prior_)


def test_works_in_pipeline_and_grid_search():
    from sklearn.model_selection import GridSearchCV
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import MaxAbsScaler

    X, y = make_documents(300, 100, 3, random_state=0)
    search = GridSearchCV(make_pipeline(MaxAbsScaler(), nbfast.MultinomialNB()), {"multinomialnb__alpha": [0.1, 1.0]}, cv=3)
    search.fit(X, y)
    assert search.best_params_["multinomialnb__alpha"] in (0.1, 1.0)
    assert search.score(X, y) > 0.5


def test_feature_names_from_dataframe():
    pd = pytest.importorskip("pandas")
    X, y = make_documents(50, 5, 2, random_state=0)
    frame = pd.DataFrame(X.toarray(), columns=[f"w{i}" for i in range(5)])
    model = nbfast.MultinomialNB().fit(frame, y)
    np.testing.assert_array_equal(model.feature_names_in_, frame.columns)
    with pytest.raises(ValueError, match="feature names should match"):
        model.predict(frame[frame.columns[::-1]])


def test_alpha_vector_as_in_sklearns_test():
    # The public checks of scikit-learn's test_alpha_vector (deselected in tests/sklearn_suite: it also
    # calls the private _check_alpha()), error and warning wording included.
    X, y = np.array([[1, 0], [1, 1]]), np.array([0, 1])
    model = nbfast.MultinomialNB(alpha=np.array([1, 2]), force_alpha=False).partial_fit(X, y, classes=[0, 1])
    np.testing.assert_allclose(model.feature_log_prob_, np.log([[1 / 2, 1 / 2], [2 / 5, 3 / 5]]))
    np.testing.assert_allclose(model.predict_proba(X), [[5 / 9, 4 / 9], [25 / 49, 24 / 49]])
    with pytest.raises(ValueError, match="All values in alpha must be finite and non-negative"):
        nbfast.MultinomialNB(alpha=np.array([1.0, -0.1]), force_alpha=False).fit(X, y)
    with pytest.warns(UserWarning, match="alpha too small will result in numeric errors, setting alpha = 1.0e-10"):
        model = nbfast.MultinomialNB(alpha=np.array([0.5e-10, 0.5]), force_alpha=False).fit(X, y)
    bounded = nbfast.MultinomialNB(alpha=np.array([1e-10, 0.5]), force_alpha=True).fit(X, y)
    np.testing.assert_array_equal(model.feature_log_prob_, bounded.feature_log_prob_)
    with pytest.raises(ValueError, match="When alpha is an array, it should contains `n_features`"):
        nbfast.MultinomialNB(alpha=np.array([1.0, 2.0, 3.0]), force_alpha=False).fit(X, y)
