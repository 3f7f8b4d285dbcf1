"""MixedNB against the hand-computed combination of its parts and a plain numpy reference."""

import pickle

import numpy as np
import pytest
import scipy.sparse as sp
from support.helpers import (
    CONTAINERS,
    FLOAT_DTYPES,
    INDEX_DTYPES,
    NB_FAMILY,
    as_container,
    nb_estimator,
    read_only,
    tolerance,
)
from test_discrete import reference

import nbfast
from nbfast.datasets import make_documents
from nbfast.naive_bayes._mixed import _contract


def corpus(n_samples=300, n_features=60, n_classes=3, random_state=0):
    return make_documents(
        n_samples, n_features, n_classes, mean_length=30, class_separation=0.3, random_state=random_state
    )


def text_parts(**bernoulli):
    return [
        ("words", nbfast.MultinomialNB(alpha=0.5), slice(0, 40)),
        ("flags", nbfast.BernoulliNB(**bernoulli), np.arange(40, 60)),
    ]


def combination(parts, X, log_prior):
    """log prior + sum over parts of (part jll - the prior the part adds), parts fitted separately."""
    jll = np.tile(log_prior, (X.shape[0], 1))
    for model, columns in parts:
        jll += model.predict_joint_log_proba(X[:, columns]) - _contract(model)._added_log_prior()
    return jll


def assert_same_predictions(a, b, X, rtol=1e-12, atol=1e-8):
    np.testing.assert_allclose(a.predict_joint_log_proba(X), b.predict_joint_log_proba(X), rtol=rtol, atol=atol)
    np.testing.assert_allclose(a.predict_proba(X), b.predict_proba(X), rtol=0, atol=atol)
    np.testing.assert_allclose(a.predict_log_proba(X), b.predict_log_proba(X), rtol=rtol, atol=atol)
    np.testing.assert_array_equal(a.predict(X), b.predict(X))


# --------------------------------------------------- against the reference
@pytest.mark.parametrize("dtype", FLOAT_DTYPES)
@pytest.mark.parametrize("index_dtype", INDEX_DTYPES)
@pytest.mark.parametrize("container", CONTAINERS)
def test_matches_numpy_reference_and_its_parts(dtype, index_dtype, container):
    X, y = corpus()
    X = as_container(X, container, dtype, index_dtype)
    X_train, y_train, X_test = X[:200], y[:200], X[200:]
    model = nbfast.MixedNB(text_parts(binarize=1.0)).fit(X_train, y_train)
    words = reference("multinomial", X_train[:, :40], y_train, X_test[:, :40], alpha=0.5)
    flags = reference("bernoulli", X_train[:, 40:], y_train, X_test[:, 40:], binarize=1.0)
    log_prior = words["class_log_prior_"]
    expected = log_prior + (words["jll"] - log_prior) + (flags["jll"] - log_prior)
    rtol = tolerance(dtype)
    np.testing.assert_allclose(model.class_log_prior_, log_prior, rtol=1e-12)
    np.testing.assert_allclose(model.class_count_, words["class_count_"], rtol=1e-12)
    np.testing.assert_allclose(model.predict_joint_log_proba(X_test), expected, rtol=rtol, atol=rtol)
    proba = np.exp(expected - expected.max(axis=1, keepdims=True))
    proba /= proba.sum(axis=1, keepdims=True)
    np.testing.assert_allclose(model.predict_proba(X_test), proba, rtol=rtol, atol=rtol)
    np.testing.assert_array_equal(model.predict(X_test), expected.argmax(axis=1))
    # the parts are the standalone models with the shared prior
    standalone = [(nbfast.MultinomialNB(alpha=0.5).fit(X_train[:, :40], y_train), slice(0, 40)),
                  (nbfast.BernoulliNB(binarize=1.0).fit(X_train[:, 40:], y_train), slice(40, 60))]
    np.testing.assert_allclose(
        model.predict_joint_log_proba(X_test), combination(standalone, X_test, log_prior), rtol=1e-12, atol=1e-8
    )
    for (_name, part), (alone, _columns) in zip(model.named_estimators_.items(), standalone):
        np.testing.assert_array_equal(part.feature_count_, alone.feature_count_)
        np.testing.assert_array_equal(part.class_log_prior_, model.class_log_prior_)


def _family_data(name, rng, X_counts, y):
    if name == "GaussianNB":
        return rng.normal(size=(X_counts.shape[0], 8)) + y[:, None] * rng.normal(size=8)
    return X_counts[:, :8].toarray()


@pytest.mark.parametrize("name", NB_FAMILY)
def test_every_estimator_as_a_part(name):
    """Each estimator beside a MultinomialNB part: the hand-computed combination; alone: the estimator itself."""
    X, y = corpus()
    rng = np.random.default_rng(1)
    X_part = _family_data(name, rng, X, y)
    X_all = np.hstack([X[:, 8:].toarray(), X_part])
    columns = np.arange(X_all.shape[1] - 8, X_all.shape[1])
    model = nbfast.MixedNB([("words", nbfast.MultinomialNB(), slice(0, 52)), ("part", nb_estimator(name), columns)])
    model.fit(X_all, y)
    alone = nb_estimator(name).fit(X_part, y)
    words = nbfast.MultinomialNB().fit(X_all[:, :52], y)
    expected = combination([(words, slice(0, 52)), (alone, columns)], X_all, words.class_log_prior_)
    np.testing.assert_allclose(model.predict_joint_log_proba(X_all), expected, rtol=1e-12, atol=1e-8)
    single = nbfast.MixedNB([("part", nb_estimator(name), slice(None))]).fit(X_part, y)
    if name == "ComplementNB":  # adds no prior itself: MixedNB adds the shared one
        np.testing.assert_allclose(
            single.predict_joint_log_proba(X_part), alone.predict_joint_log_proba(X_part) + single.class_log_prior_,
            rtol=1e-12, atol=1e-8,
        )
    else:
        assert_same_predictions(single, alone, X_part)


def test_scikit_learn_part_fit_partial_fit_and_atomic_failure():
    """A foreign part (scikit-learn's GaussianNB: class_prior_, no nbfast validation) beside an nbfast one."""
    sk_nb = pytest.importorskip("sklearn.naive_bayes")
    X, y = corpus()
    rng = np.random.default_rng(2)
    X_all = np.hstack([X.toarray()[:, :40], rng.normal(size=(300, 3)) + y[:, None]])
    parts = [("words", nbfast.MultinomialNB(), slice(0, 40)), ("numeric", sk_nb.GaussianNB(), slice(40, 43))]
    model = nbfast.MixedNB(parts).fit(X_all, y)
    words, numeric = nbfast.MultinomialNB().fit(X_all[:, :40], y), sk_nb.GaussianNB().fit(X_all[:, 40:], y)
    expected = combination([(words, slice(0, 40)), (numeric, slice(40, 43))], X_all, words.class_log_prior_)
    np.testing.assert_allclose(model.predict_joint_log_proba(X_all), expected, rtol=1e-12, atol=1e-8)
    np.testing.assert_allclose(model.named_estimators_["numeric"].class_prior_, np.exp(model.class_log_prior_))
    chunked = nbfast.MixedNB(parts)
    for start in range(0, 300, 100):
        chunked.partial_fit(X_all[start:start + 100], y[start:start + 100], classes=[0, 1, 2])
    np.testing.assert_allclose(chunked.predict_joint_log_proba(X_all), expected, rtol=1e-12, atol=1e-8)
    before = chunked.predict_joint_log_proba(X_all)
    bad = X_all[:50].copy()
    bad[0, 41] = np.inf  # scikit-learn's part raises after the nbfast part could have been updated
    with pytest.raises(ValueError):
        chunked.partial_fit(bad, y[:50])
    np.testing.assert_array_equal(chunked.predict_joint_log_proba(X_all), before)


# ---------------------------------------------------------- column choice
def test_column_specifications_agree():
    pd = pytest.importorskip("pandas")
    X, y = corpus()
    dense = X.toarray()
    frame = pd.DataFrame(dense, columns=[f"w{i}" for i in range(60)])
    mask = np.zeros(60, dtype=bool)
    mask[40:] = True
    specs = {
        "slices": (slice(0, 40), slice(40, 60), dense),
        "indices": (np.arange(40), list(range(-20, 0)), dense),
        "mask": (~mask, mask, dense),
        "names": ([f"w{i}" for i in range(40)], [f"w{i}" for i in range(40, 60)], frame),
    }
    results = {}
    for key, (words, flags, data) in specs.items():
        model = nbfast.MixedNB([("words", nbfast.MultinomialNB(), words), ("flags", nbfast.BernoulliNB(), flags)])
        results[key] = model.fit(data, y).predict_joint_log_proba(data)
        np.testing.assert_array_equal(model.columns_[1], np.arange(40, 60))
    for key in results:
        np.testing.assert_array_equal(results[key], results["slices"])
    assert model.feature_names_in_.tolist() == list(frame.columns)
    with pytest.warns(UserWarning, match="does not have valid feature names"):
        model.predict(dense)
    with pytest.raises(ValueError, match="feature names should match"):
        model.predict(frame[frame.columns[::-1]])


def test_mixed_column_types_from_a_dataframe():
    pd = pytest.importorskip("pandas")
    X, y = corpus()
    frame = pd.DataFrame(X.toarray()[:, :5].astype(np.int64), columns=list("abcde"))
    frame["score"] = np.linspace(0, 1, len(y)).astype(np.float32)
    model = nbfast.MixedNB(
        [("counts", nbfast.MultinomialNB(), list("abcde")), ("score", nbfast.BernoulliNB(binarize=0.5), "score")]
    )
    model.fit(frame, y)
    expected = combination(
        [(nbfast.MultinomialNB().fit(frame.iloc[:, :5].to_numpy(), y), slice(0, 5)),
         (nbfast.BernoulliNB(binarize=0.5).fit(frame[["score"]].to_numpy(), y), slice(5, 6))],
        frame.to_numpy(np.float64), model.class_log_prior_,
    )
    np.testing.assert_allclose(model.predict_joint_log_proba(frame), expected, rtol=1e-12, atol=1e-8)


# ---------------------------------------------------------------- priors
@pytest.mark.parametrize("params", [{"fit_prior": False}, {"class_prior": [0.5, 0.2, 0.3]}], ids=["uniform", "fixed"])
def test_shared_prior_replaces_the_parts_priors(params):
    X, y = corpus()
    model = nbfast.MixedNB(text_parts(), **params).fit(X, y)
    expected = np.log(params.get("class_prior", [1 / 3] * 3))
    np.testing.assert_allclose(model.class_log_prior_, expected, rtol=1e-12)
    for part in model.estimators_:
        np.testing.assert_allclose(part.class_log_prior_, expected, rtol=1e-12)
    empirical = nbfast.MixedNB(text_parts()).fit(X, y)
    np.testing.assert_allclose(
        model.predict_joint_log_proba(X) - model.class_log_prior_,
        empirical.predict_joint_log_proba(X) - empirical.class_log_prior_,
        rtol=1e-12, atol=1e-8,
    )
    with pytest.raises(ValueError, match="Number of priors"):
        nbfast.MixedNB(text_parts(), class_prior=[0.5, 0.5]).fit(X, y)


def test_with_prior_on_mixed_equals_refit_and_the_parts_follow():
    X, y = corpus()
    model = nbfast.MixedNB(text_parts()).fit(X, y)
    shifted = nbfast.with_prior(model, [0.2, 0.2, 0.6])
    assert_same_predictions(shifted, nbfast.MixedNB(text_parts(), class_prior=[0.2, 0.2, 0.6]).fit(X, y), X)
    for part in shifted.estimators_:
        np.testing.assert_allclose(part.class_log_prior_, np.log([0.2, 0.2, 0.6]))
    assert model.class_prior is None


def test_zero_prior_class_is_ruled_out_without_nan():
    X, y = corpus()
    model = nbfast.MixedNB(text_parts(), class_prior=[0.5, 0.0, 0.5]).fit(X, y)
    jll = model.predict_joint_log_proba(X)
    assert np.all(jll[:, 1] == -np.inf) and np.all(np.isfinite(jll[:, [0, 2]]))
    assert np.all(model.predict_proba(X)[:, 1] == 0) and not np.any(model.predict(X) == y.max() - 1)


# -------------------------------------------------------------- fitting
def test_sample_weight_and_string_labels():
    X, y = corpus()
    labels = np.array(["spam", "ham", "eggs"])[y]
    weights = np.random.default_rng(0).uniform(0, 2, size=len(y))
    model = nbfast.MixedNB(text_parts()).fit(X, labels, sample_weight=weights)
    words = nbfast.MultinomialNB(alpha=0.5).fit(X[:, :40], labels, sample_weight=weights)
    flags = nbfast.BernoulliNB().fit(X[:, 40:], labels, sample_weight=weights)
    np.testing.assert_allclose(model.class_count_, words.class_count_, rtol=1e-12)
    expected = combination([(words, slice(0, 40)), (flags, slice(40, 60))], X, words.class_log_prior_)
    np.testing.assert_allclose(model.predict_joint_log_proba(X), expected, rtol=1e-12, atol=1e-8)
    assert set(model.predict(X)) <= set(labels)


def test_partial_fit_in_chunks_equals_fit():
    X, y = corpus()
    model = nbfast.MixedNB(text_parts())
    for start in range(0, 300, 100):
        model.partial_fit(X[start:start + 100], y[start:start + 100], classes=[0, 1, 2])
    assert_same_predictions(model, nbfast.MixedNB(text_parts()).fit(X, y), X, rtol=1e-12, atol=1e-12)
    with pytest.raises(ValueError, match="classes must be passed"):
        nbfast.MixedNB(text_parts()).partial_fit(X, y)
    with pytest.raises(ValueError, match="not the same"):
        model.partial_fit(X, y, classes=[0, 1])


def test_failing_partial_fit_leaves_the_model_unchanged():
    X, y = corpus()
    model = nbfast.MixedNB(text_parts()).partial_fit(X[:100], y[:100], classes=[0, 1, 2])
    before = [part.feature_count_.copy() for part in model.estimators_], model.class_count_.copy()
    bad = X[100:200].toarray()
    bad[0, 50] = np.nan  # the second part's columns: the first part must not be updated either
    with pytest.raises(ValueError, match="NaN"):
        model.partial_fit(bad, y[100:200])
    with pytest.raises(ValueError, match="do not exist in the initial classes"):
        model.partial_fit(X[100:200], y[100:200] + 5)
    for part, counts in zip(model.estimators_, before[0]):
        np.testing.assert_array_equal(part.feature_count_, counts)
    np.testing.assert_array_equal(model.class_count_, before[1])


@pytest.mark.parametrize("gaussian_first", [False, True])
def test_a_part_that_overflows_leaves_every_part_unchanged(gaussian_first):
    """The overflow is found once a part has added the batch: a part before it must not keep the batch."""
    X = np.array([[1.0, 2.0, 0.5], [0.0, 1.0, 1.5], [3.0, 0.0, 2.5], [1.0, 1.0, 0.1]])
    parts = [("counts", nbfast.MultinomialNB(), [0, 1]), ("values", nbfast.GaussianNB(), [2])]
    model = nbfast.MixedNB(parts[::-1] if gaussian_first else parts).fit(X, [0, 1, 0, 1])
    before = pickle.dumps(model)
    with pytest.raises(ValueError, match="overflow float64"):
        model.partial_fit(np.array([[1.0, 1.0, 1e300], [2.0, 0.0, -1e300]]), [0, 1])
    assert pickle.dumps(model) == before


def test_read_only_input_and_threads(n_threads_limit):
    X, y = corpus()
    expected = nbfast.MixedNB(text_parts()).fit(X, y).predict_proba(X)
    for container in CONTAINERS:
        data = read_only(as_container(X, container))
        np.testing.assert_array_equal(nbfast.MixedNB(text_parts()).fit(data, y).predict_proba(data), expected)
    for n in (1, 2):
        with n_threads_limit(n):
            np.testing.assert_array_equal(nbfast.MixedNB(text_parts()).fit(X, y).predict_proba(X), expected)


# ---------------------------------------------------- parameters and errors
def test_nested_parameters_clone_and_grid_search():
    from sklearn.base import clone
    from sklearn.model_selection import GridSearchCV

    X, y = corpus()
    model = nbfast.MixedNB(text_parts())
    params = model.get_params()
    assert params["words__alpha"] == 0.5 and params["flags"] is model.estimators[1][1]
    model.set_params(words__alpha=0.1, flags=nbfast.BernoulliNB(alpha=2.0), fit_prior=False)
    assert model.estimators[0][1].alpha == 0.1 and model.get_params()["flags__alpha"] == 2.0 and not model.fit_prior
    copy = clone(model)
    assert copy.estimators[0][1] is not model.estimators[0][1] and copy.get_params()["words__alpha"] == 0.1
    grid = {"words__alpha": [0.1, 1.0], "flags__binarize": [0.0, 1.0]}
    search = GridSearchCV(nbfast.MixedNB(text_parts()), grid, cv=3)
    search.fit(X, y)
    assert search.best_params_["words__alpha"] in (0.1, 1.0)
    names = [name for name, _ in search.best_estimator_._child_estimators()]
    assert names == ["words", "flags"] and all(hasattr(p, "classes_") for p in search.best_estimator_.estimators_)


@pytest.mark.parametrize(
    "estimators, error, match",
    [
        ([], ValueError, "must not be empty"),
        ([("a", nbfast.MultinomialNB(), slice(0, 5)), ("a", nbfast.BernoulliNB(), slice(5, 9))], ValueError, "unique"),
        ([("a__b", nbfast.MultinomialNB(), slice(None))], ValueError, "__"),
        ([("fit_prior", nbfast.MultinomialNB(), slice(None))], ValueError, "parameter name"),
        ([("a", nbfast.MultinomialNB())], ValueError, "tuple"),
        ([("a", nbfast.MultinomialNB(), slice(50, 60))], ValueError, "selects no column"),
        ([("a", nbfast.MultinomialNB(), [0, 99])], ValueError, "out of range"),
        ([("a", nbfast.MultinomialNB(), [True, False])], ValueError, "mask"),
        ([("a", nbfast.MultinomialNB(), ["w0"])], ValueError, "DataFrame"),
        ([("a", nbfast.MultinomialNB(), [0.5])], ValueError, "slice, integers"),
        ("nonsense", ValueError, "'estimators' parameter of MixedNB"),
    ],
)
def test_bad_parts_raise(estimators, error, match):
    X, y = corpus(n_features=10)
    with pytest.raises(error, match=match):
        nbfast.MixedNB(estimators).fit(X, y)


def test_part_without_joint_log_likelihood_raises_and_unfitted_raises():
    from sklearn.linear_model import LogisticRegression

    from nbfast import _compat

    X, y = corpus()
    with pytest.raises(TypeError, match="predict_joint_log_proba"):
        nbfast.MixedNB([("lr", LogisticRegression(), slice(None))]).fit(X, y)
    with pytest.raises(_compat.NotFittedError):
        nbfast.MixedNB().predict(X)
    with pytest.raises(AttributeError):
        nbfast.MixedNB().named_estimators_  # noqa: B018
    model = nbfast.MixedNB(text_parts()).fit(X, y)
    with pytest.raises(ValueError, match="X has 59 features, but MixedNB is expecting 60"):
        model.predict(X[:, :59])
    assert sp.issparse(X) and model.predict(X.tocsc()).shape == (300,)


def test_rebuild_from_fitted_attributes_and_children():
    """The protocol persistence relies on: _fitted_attributes in order, then the parts from _child_estimators."""
    import copy

    X, y = corpus()
    model = nbfast.MixedNB(text_parts()).fit(X, y)
    rebuilt = nbfast.MixedNB(text_parts())
    for name in model._fitted_attributes:
        setattr(rebuilt, name, copy.deepcopy(getattr(model, name)))
    rebuilt.estimators_ = [copy.deepcopy(part) for _, part in model._child_estimators()]
    np.testing.assert_array_equal(rebuilt.predict_proba(X), model.predict_proba(X))
    assert [name for name, _ in rebuilt._child_estimators()] == ["words", "flags"]
