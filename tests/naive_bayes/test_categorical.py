"""CategoricalNB against scikit-learn and a plain numpy float64 reference, dense and sparse."""

from contextlib import nullcontext

import numpy as np
import pytest
import scipy.sparse as sp
from support.helpers import CONTAINERS, FLOAT_DTYPES, as_container, logsumexp_reference, read_only, rebuild

import nbfast
from nbfast.datasets import make_documents

sk_nb = pytest.importorskip("sklearn.naive_bayes")

N_TRAIN = 300


def categorical_data(n_classes=3, n_samples=600, n_features=80, top=4, random_state=0):
    """Word counts clipped at ``top``: class-dependent categories 0..top, mostly 0 (sparse)."""
    X, y = make_documents(
        n_samples, n_features, n_classes, mean_length=40, class_separation=0.3, random_state=random_state
    )
    X.data = np.minimum(X.data, top)
    return X, y


@pytest.fixture(params=[2, 7, 40], ids=lambda c: f"{c}classes")
def data(request):
    return categorical_data(n_classes=request.param, random_state=request.param)


def dense_int(X):
    return np.asarray(X.toarray() if sp.issparse(X) else X).astype(np.int64)


def clip_to_model(X, model):
    """Test rows with categories scikit-learn's model knows (it raises IndexError on others)."""
    return np.minimum(dense_int(X), model.n_categories_ - 1)


def assert_same(ours, theirs, X_test, rtol=1e-12):
    """Attributes and predictions agree; X_test in categories scikit-learn knows."""
    np.testing.assert_array_equal(ours.classes_, theirs.classes_)
    for name in ("class_count_", "class_log_prior_"):
        np.testing.assert_allclose(getattr(ours, name), getattr(theirs, name), rtol=rtol, atol=rtol, err_msg=name)
    for name in ("category_count_", "feature_log_prob_"):
        ours_list, theirs_list = getattr(ours, name), getattr(theirs, name)
        assert len(ours_list) == len(theirs_list) == ours.n_features_in_
        for j, (a, b) in enumerate(zip(ours_list, theirs_list)):
            np.testing.assert_allclose(a, b, rtol=rtol, atol=rtol, err_msg=f"{name}[{j}]")
    np.testing.assert_array_equal(ours.predict(X_test), theirs.predict(X_test))
    for method in ("predict_joint_log_proba", "predict_log_proba", "predict_proba"):
        np.testing.assert_allclose(
            getattr(ours, method)(X_test), getattr(theirs, method)(X_test), rtol=rtol, atol=rtol, err_msg=method
        )


def reference(X, y, X_test, *, alpha=1.0, sample_weight=None, n_categories=None):
    """The categorical model written out densely in float64, unseen categories included.

    log p(x_j = v | c) = log((N_cjv + alpha) / (N_c + alpha * n_j)), also for v >= n_j
    (then N_cjv = 0).
    """
    X, X_test = dense_int(X), dense_int(X_test)
    classes, y_index = np.unique(y, return_inverse=True)
    Y = np.eye(len(classes))[y_index] * (1.0 if sample_weight is None else sample_weight[:, None])
    class_count = Y.sum(axis=0)
    n = X.max(axis=0) + 1 if n_categories is None else np.maximum(X.max(axis=0) + 1, n_categories)
    jll = np.tile(np.log(class_count / class_count.sum()), (X_test.shape[0], 1))
    log_prob = []
    for j in range(X.shape[1]):
        counts = Y.T @ (X[:, j][:, None] == np.arange(n[j])).astype(float)
        log_prob.append(np.log(counts + alpha) - np.log(class_count + alpha * n[j])[:, None])
        unseen = np.log(alpha) - np.log(class_count + alpha * n[j])
        padded = np.hstack([log_prob[-1], unseen[:, None]])
        jll += padded[:, np.minimum(X_test[:, j], n[j])].T
    return {"classes_": classes, "n_categories_": n, "feature_log_prob_": log_prob, "jll": jll,
            "log_proba": jll - logsumexp_reference(jll)}


# ---------------------------------------------------------------- against scikit-learn
@pytest.mark.parametrize("dtype", FLOAT_DTYPES)
@pytest.mark.parametrize("container", CONTAINERS)
def test_matches_sklearn(dtype, container, data):
    X, y = data
    X_train = as_container(X[:N_TRAIN], container, dtype, np.int64)
    ours = nbfast.CategoricalNB().fit(X_train, y[:N_TRAIN])
    theirs = sk_nb.CategoricalNB().fit(dense_int(X[:N_TRAIN]), y[:N_TRAIN])
    np.testing.assert_array_equal(ours.n_categories_, theirs.n_categories_)
    assert ours.n_categories_.dtype == np.int64
    X_test = clip_to_model(X[N_TRAIN:], theirs)
    assert_same(ours, theirs, X_test)
    np.testing.assert_array_equal(ours.predict(as_container(sp.csr_array(X_test), container, dtype)), theirs.predict(X_test))


@pytest.mark.parametrize(
    "params",
    [
        {"alpha": 0.3},
        {"fit_prior": False},
        {"class_prior": [0.2, 0.5, 0.3]},
        {"min_categories": 7},
        {"min_categories": "array"},
        {"alpha": 0.0, "force_alpha": False},
        {"alpha": 0.0},
    ],
    ids=["alpha", "no-fit-prior", "class-prior", "min-categories", "min-categories-array", "alpha-clipped", "alpha0"],
)
# alpha0: rows with a category no class saw have no posterior (NaN, as in scikit-learn), and nbfast says so
@pytest.mark.filterwarnings("ignore:.*give probability 0 to every class:RuntimeWarning")
def test_parameter_grid_with_sample_weight_matches_sklearn(params):
    X, y = categorical_data(n_classes=3, random_state=11)
    params = dict(params)
    if params.get("min_categories") == "array":
        params["min_categories"] = np.arange(X.shape[1]) % 9
    weights = np.random.default_rng(3).integers(0, 4, size=X.shape[0]).astype(float)
    clipped_alpha = pytest.warns(UserWarning, match="alpha too small") if "force_alpha" in params else nullcontext()
    with np.errstate(divide="ignore", invalid="ignore"), clipped_alpha:
        ours = nbfast.CategoricalNB(**params).fit(X[:N_TRAIN], y[:N_TRAIN], sample_weight=weights[:N_TRAIN])
        theirs = sk_nb.CategoricalNB(**params).fit(dense_int(X[:N_TRAIN]), y[:N_TRAIN], sample_weight=weights[:N_TRAIN])
        X_test = clip_to_model(X[N_TRAIN:], theirs)
        if params.get("alpha") == 0.0 and "force_alpha" not in params:
            # Impossible categories: log-probabilities -inf, scored exactly rather than as NaN.
            assert not ours._dense_tables.finite
            expected = theirs.predict_joint_log_proba(X_test)
            got = ours.predict_joint_log_proba(X_test)
            np.testing.assert_array_equal(np.isneginf(got), np.isneginf(expected))
            assert np.isneginf(got).any() and np.isfinite(got).any()
            finite = np.isfinite(expected)
            np.testing.assert_allclose(got[finite], expected[finite], rtol=1e-12)
            np.testing.assert_array_equal(ours.predict(X_test), theirs.predict(X_test))
            np.testing.assert_allclose(ours.predict_proba(X_test), theirs.predict_proba(X_test), rtol=1e-12, atol=1e-12)
        else:
            assert_same(ours, theirs, X_test)
    np.testing.assert_array_equal(ours.n_categories_, theirs.n_categories_)


def test_partial_fit_in_chunks_with_weights_matches_sklearn(data):
    X, y = data
    labels = np.array([f"c{c}" for c in range(y.max() + 1)])[y]
    classes = np.unique(labels)
    weights = np.random.default_rng(2).uniform(0.5, 2.0, size=X.shape[0])
    ours, theirs = nbfast.CategoricalNB(alpha=0.5), sk_nb.CategoricalNB(alpha=0.5)
    for start in range(0, 450, 150):
        chunk = slice(start, start + 150)
        ours.partial_fit(X[chunk], labels[chunk], classes=classes, sample_weight=weights[chunk])
        theirs.partial_fit(dense_int(X[chunk]), labels[chunk], classes=classes, sample_weight=weights[chunk])
    # scikit-learn resets n_categories_ to the last batch's value while its counts keep every
    # category seen; nbfast's n_categories_ is the width of the counts.
    np.testing.assert_array_equal(ours.n_categories_, [c.shape[1] for c in theirs.category_count_])
    assert_same(ours, theirs, np.minimum(dense_int(X[450:]), ours.n_categories_ - 1))
    full = nbfast.CategoricalNB(alpha=0.5).fit(X[:450], labels[:450], sample_weight=weights[:450])
    for a, b in zip(ours.category_count_, full.category_count_):
        np.testing.assert_allclose(a[np.isin(classes, labels[:450])], b, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("K", [1, 3])
@pytest.mark.parametrize("index_dtype", [np.int32, np.int64])
def test_max_categories_equals_sklearn_min_categories_on_clipped_data(K, index_dtype, data):
    X, y = data
    X = as_container(X, "csr_array", np.float64, index_dtype)
    weights = np.random.default_rng(K).uniform(0, 2, size=X.shape[0])
    ours = nbfast.CategoricalNB(max_categories=K).fit(X[:N_TRAIN], y[:N_TRAIN], sample_weight=weights[:N_TRAIN])
    clipped = np.minimum(dense_int(X), K - 1)
    theirs = sk_nb.CategoricalNB(min_categories=K).fit(clipped[:N_TRAIN], y[:N_TRAIN], sample_weight=weights[:N_TRAIN])
    np.testing.assert_array_equal(ours.n_categories_, np.full(X.shape[1], K))
    np.testing.assert_array_equal(theirs.n_categories_, ours.n_categories_)
    assert_same(ours, theirs, clipped[N_TRAIN:])
    for method in ("predict_joint_log_proba", "predict_proba"):  # clipping happens inside, on sparse input too
        np.testing.assert_allclose(getattr(ours, method)(X[N_TRAIN:]), getattr(theirs, method)(clipped[N_TRAIN:]),
                                   rtol=1e-12, atol=1e-12)


# ---------------------------------------------------------------- against the reference
@pytest.mark.parametrize("container", CONTAINERS)
def test_unseen_categories_match_reference(container):
    X, y = categorical_data(n_classes=4, random_state=5)
    X_train = X[:N_TRAIN].copy()
    X_train.data = np.minimum(X_train.data, 2)  # training sees categories 0..2 only
    X_test = X[N_TRAIN:]  # up to 4: unseen categories, where scikit-learn raises IndexError
    weights = np.random.default_rng(0).uniform(0.5, 2, size=N_TRAIN)
    model = nbfast.CategoricalNB(alpha=0.7).fit(as_container(X_train, container), y[:N_TRAIN], sample_weight=weights)
    expected = reference(X_train, y[:N_TRAIN], X_test, alpha=0.7, sample_weight=weights)
    assert (dense_int(X_test) >= model.n_categories_).any()
    X_test = as_container(X_test, container)
    np.testing.assert_array_equal(model.n_categories_, expected["n_categories_"])
    for a, b in zip(model.feature_log_prob_, expected["feature_log_prob_"]):
        np.testing.assert_allclose(a, b, rtol=1e-12)
    np.testing.assert_allclose(model.predict_joint_log_proba(X_test), expected["jll"], rtol=1e-12)
    np.testing.assert_allclose(model.predict_log_proba(X_test), expected["log_proba"], rtol=1e-12, atol=1e-12)
    np.testing.assert_array_equal(model.predict(X_test), expected["classes_"][expected["jll"].argmax(axis=1)])


def test_unseen_category_gets_the_smoothed_probability():
    X = np.array([[0], [1], [1], [0]])
    y = np.array([0, 0, 1, 1])
    model = nbfast.CategoricalNB(alpha=0.5, fit_prior=False).fit(X, y)
    # class c has N_c = 2 samples and n_categories = 2: p(unseen) = 0.5 / (2 + 0.5 * 2)
    jll = model.predict_joint_log_proba(np.array([[5]]))
    np.testing.assert_allclose(jll, np.log(0.5) + np.log(0.5 / 3.0) * np.ones((1, 2)), rtol=1e-14)


def test_stored_zeros_are_category_zero():
    X, y = categorical_data(n_classes=3, random_state=2)
    explicit = sp.csr_array(X.toarray() + 1.0)
    explicit.data -= 1.0  # every entry stored, most of them zeros
    assert explicit.nnz == X.shape[0] * X.shape[1]
    a = nbfast.CategoricalNB().fit(X[:N_TRAIN], y[:N_TRAIN])
    b = nbfast.CategoricalNB().fit(explicit[:N_TRAIN], y[:N_TRAIN])
    for u, v in zip(a.category_count_, b.category_count_):
        np.testing.assert_allclose(u, v, rtol=1e-12)
    np.testing.assert_allclose(a.predict_proba(X[N_TRAIN:]), b.predict_proba(explicit[N_TRAIN:]), rtol=1e-12)


# ---------------------------------------------------------------- validation and plumbing
@pytest.mark.parametrize("value, match", [(-1.0, "Negative"), (1.5, "integer"), (2.0**60, "integer")])
def test_bad_values_are_refused_and_leave_the_model_unchanged(value, match):
    X, y = categorical_data(n_classes=2, n_samples=60, n_features=10)
    model = nbfast.CategoricalNB().fit(X, y)
    before = [c.copy() for c in model.category_count_]
    bad = X.toarray()
    bad[3, 4] = value
    for container in (bad, sp.csr_matrix(bad)):
        with pytest.raises(ValueError, match=match):
            model.partial_fit(container, y)
        with pytest.raises(ValueError, match=match):
            model.predict(container)
    for a, b in zip(model.category_count_, before):
        np.testing.assert_array_equal(a, b)


@pytest.mark.parametrize(
    "params, match",
    [
        ({"alpha": np.ones(10)}, "alpha"),
        ({"min_categories": 2.5}, "min_categories"),
        ({"min_categories": 0}, "min_categories"),
        ({"min_categories": [2, 3]}, "shape"),
        ({"max_categories": 0}, "max_categories"),
        ({"max_categories": 2.0}, "max_categories"),
        ({"max_categories": 3, "min_categories": 4}, "exceed"),
    ],
)
def test_bad_parameters_are_refused(params, match):
    X, y = categorical_data(n_classes=2, n_samples=40, n_features=10)
    with pytest.raises(ValueError, match=match):
        nbfast.CategoricalNB(**params).fit(X, y)


def test_integer_sample_weights_equal_repeated_rows():
    X, y = categorical_data(n_classes=3, n_samples=120, n_features=20)
    weights = np.random.default_rng(7).integers(0, 4, size=X.shape[0])
    weighted = nbfast.CategoricalNB().fit(X, y, sample_weight=weights)
    repeated = nbfast.CategoricalNB().fit(X[np.repeat(np.arange(X.shape[0]), weights)], np.repeat(y, weights))
    for a, b in zip(weighted.category_count_, repeated.category_count_):
        np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(weighted.predict_proba(X), repeated.predict_proba(X), rtol=1e-12)


def test_rebuilt_from_fitted_attributes():
    X, y = categorical_data(n_classes=3, random_state=4)
    model = nbfast.CategoricalNB(alpha=0.4).fit(X[:N_TRAIN], y[:N_TRAIN])
    clone = rebuild(model)
    assert isinstance(clone.feature_log_prob_, list)
    np.testing.assert_array_equal(clone.predict_joint_log_proba(X[N_TRAIN:]), model.predict_joint_log_proba(X[N_TRAIN:]))
    clone.partial_fit(X[N_TRAIN:], y[N_TRAIN:])  # keeps learning, categories may grow
    full = nbfast.CategoricalNB(alpha=0.4).fit(X, y)
    np.testing.assert_array_equal(clone.n_categories_, full.n_categories_)
    np.testing.assert_allclose(clone.predict_proba(X), full.predict_proba(X), rtol=1e-12)


def test_read_only_input_and_thread_count_do_not_change_results(data, n_threads_limit):
    X, y = data
    weights = np.random.default_rng(0).uniform(0, 2, size=N_TRAIN)
    results = []
    for n, wrap in ((1, lambda a: a), (2, read_only)):
        with n_threads_limit(n):
            model = nbfast.CategoricalNB(max_categories=3).fit(wrap(X[:N_TRAIN]), y[:N_TRAIN], sample_weight=weights)
            results.append((*model.category_count_, model.predict_proba(wrap(X[N_TRAIN:])), model.predict(X[N_TRAIN:])))
    for a, b in zip(*results):
        np.testing.assert_array_equal(a, b)
