"""GaussianNB against scikit-learn and a plain numpy float64 reference, dense and sparse."""

import numpy as np
import pytest
import scipy.sparse as sp
from support.helpers import FLOAT_DTYPES, INDEX_DTYPES, as_container, read_only, sklearn_older_than

import nbfast
from nbfast.naive_bayes import _gaussian

sk_nb = pytest.importorskip("sklearn.naive_bayes")

#: Every choice of ``variance`` (checked against the estimator's own list below).
VARIANCES = ["class_feature", "feature", "class", "global"]

ATTRIBUTES = ("theta_", "var_", "class_count_", "class_prior_", "epsilon_")


def make_data(n_samples=400, n_features=30, n_classes=4, density=0.3, random_state=0):
    """Real-valued features with class-dependent means and scales; about 1 - density of the entries are 0."""
    rng = np.random.default_rng(random_state)
    y = rng.integers(0, n_classes, size=n_samples)
    y[:n_classes] = np.arange(n_classes)
    centers = rng.normal(scale=3.0, size=(n_classes, n_features))
    scales = rng.uniform(0.2, 4.0, size=(n_classes, n_features))
    X = centers[y] + scales[y] * rng.normal(size=(n_samples, n_features))
    X[rng.random(X.shape) > density] = 0.0
    return X, y


# ----------------------------------------------------------------------------- reference
def reference(X, y, X_test, *, priors=None, var_smoothing=1e-9, sample_weight=None, variance="class_feature", ddof=0):
    """Plain numpy float64 Gaussian Naive Bayes, the formulas written out densely."""
    X = np.asarray(X.toarray() if sp.issparse(X) else X, dtype=np.float64)
    X_test = np.asarray(X_test.toarray() if sp.issparse(X_test) else X_test, dtype=np.float64)
    classes, y_index = np.unique(y, return_inverse=True)
    w = np.ones(len(y)) if sample_weight is None else sample_weight
    n_classes, n_features = len(classes), X.shape[1]
    count = np.array([w[y_index == c].sum() for c in range(n_classes)])
    theta = np.array([np.average(X[y_index == c], axis=0, weights=w[y_index == c]) for c in range(n_classes)])
    ssd = np.array([(w[y_index == c, None] * (X[y_index == c] - theta[c]) ** 2).sum(axis=0) for c in range(n_classes)])
    dof = count.sum() - ddof * n_classes
    if variance == "class_feature":
        var = ssd / (count - ddof)[:, None]
    elif variance == "feature":
        var = np.tile(ssd.sum(axis=0) / dof, (n_classes, 1))
    elif variance == "class":
        var = np.tile((ssd.sum(axis=1) / (n_features * (count - ddof)))[:, None], (1, n_features))
    else:
        var = np.full((n_classes, n_features), ssd.sum() / (n_features * dof))
    epsilon = var_smoothing * X.var(axis=0).max()
    var = var + epsilon
    prior = count / count.sum() if priors is None else np.asarray(priors, dtype=np.float64)
    jll = np.log(prior) - 0.5 * np.log(2 * np.pi * var).sum(axis=1) - 0.5 * (
        ((X_test[:, None, :] - theta[None]) ** 2) / var[None]
    ).sum(axis=2)
    log_proba = jll - np.logaddexp.reduce(jll, axis=1, keepdims=True)
    return {
        "classes_": classes, "theta_": theta, "var_": var, "class_count_": count, "class_prior_": prior,
        "epsilon_": epsilon, "jll": jll, "log_proba": log_proba, "proba": np.exp(log_proba),
    }


def assert_close(ours, theirs, X_test, rtol=1e-12, X_test_theirs=None):
    """Attributes and predictions of ``ours`` equal those of ``theirs`` (a model or a reference dict)."""
    X_test_theirs = X_test if X_test_theirs is None else X_test_theirs
    get = theirs.__getitem__ if isinstance(theirs, dict) else lambda name: getattr(theirs, name)
    for name in ATTRIBUTES:
        expected = np.asarray(get(name), dtype=np.float64)
        np.testing.assert_allclose(getattr(ours, name), expected, rtol=rtol, atol=rtol * np.abs(expected).max(), err_msg=name)
    np.testing.assert_array_equal(ours.classes_, get("classes_"))
    if isinstance(theirs, dict):
        jll, log_proba, proba = theirs["jll"], theirs["log_proba"], theirs["proba"]
        labels = theirs["classes_"][jll.argmax(axis=1)]
    else:
        jll, log_proba = theirs.predict_joint_log_proba(X_test_theirs), theirs.predict_log_proba(X_test_theirs)
        proba, labels = theirs.predict_proba(X_test_theirs), theirs.predict(X_test_theirs)
    scale = np.abs(jll[np.isfinite(jll)]).max()
    np.testing.assert_allclose(ours.predict_joint_log_proba(X_test), jll, rtol=rtol, atol=rtol * scale)
    np.testing.assert_allclose(ours.predict_log_proba(X_test), log_proba, rtol=rtol, atol=rtol * scale)
    np.testing.assert_allclose(ours.predict_proba(X_test), proba, rtol=rtol, atol=rtol)
    np.testing.assert_array_equal(ours.predict(X_test), labels)


def dense64(X):
    return np.asarray(X.toarray() if sp.issparse(X) else X, dtype=np.float64)


# ---------------------------------------------------------------- against scikit-learn
@pytest.mark.parametrize("container", ["dense", "csr_matrix", "csr_array"])
@pytest.mark.parametrize("dtype", FLOAT_DTYPES)
@pytest.mark.parametrize("priors", [None, [0.1, 0.2, 0.3, 0.4]], ids=["fitted-priors", "given-priors"])
@pytest.mark.parametrize("var_smoothing", [0.0, 1e-9, 1e-2])
def test_fit_matches_sklearn(container, dtype, priors, var_smoothing):
    X, y = make_data(random_state=1)
    X = as_container(sp.csr_array(X), container, dtype, np.int64)
    X_train, y_train, X_test = X[:300], y[:300], X[300:]
    weights = np.random.default_rng(3).uniform(0, 3, size=300)
    for sample_weight in (None, weights):
        params = dict(priors=priors, var_smoothing=var_smoothing)
        ours = nbfast.GaussianNB(**params).fit(X_train, y_train, sample_weight=sample_weight)
        # Our kernels accumulate in float64 (then give float32 results for float32 X, as scikit-learn):
        # compare with scikit-learn on the float64 dense copy.
        theirs = sk_nb.GaussianNB(**params).fit(dense64(X_train), y_train, sample_weight=sample_weight)
        assert_close(ours, theirs, X_test, X_test_theirs=dense64(X_test), rtol=1e-12 if dtype == np.float64 else 1e-6)


def _as_float32_statistics(model):
    """A scikit-learn GaussianNB's float64 statistics as the float32 ones scikit-learn 1.8 and newer keep."""
    for name in ("theta_", "var_", "class_prior_"):
        setattr(model, name, getattr(model, name).astype(np.float32))
    return model


@pytest.mark.parametrize("container", ["dense", "csr_array"])
def test_float32_keeps_float32_like_scikit_learn(container):
    X, y = make_data(random_state=1)
    X32 = as_container(sp.csr_array(X), container, np.float32, np.int64)
    ours = nbfast.GaussianNB().fit(X32, y)
    theirs = sk_nb.GaussianNB().fit(dense64(X32).astype(np.float32), y)
    if sklearn_older_than("1.8"):  # float32 statistics for float32 X since scikit-learn 1.8
        theirs = _as_float32_statistics(theirs)
    chunked = nbfast.GaussianNB().partial_fit(X32[:150], y[:150], classes=np.unique(y)).partial_fit(X32[150:], y[150:])
    missing = dense64(X32).astype(np.float32)
    missing[y == 1, 0] = np.nan  # class 1 never observes feature 0: its cells are filled, still in float32
    assert nbfast.GaussianNB(missing="ignore").fit(missing, y).theta_.dtype == np.float32
    for model in (ours, chunked):
        for name in ("theta_", "var_", "class_prior_"):
            assert getattr(model, name).dtype == getattr(theirs, name).dtype == np.float32, name
            np.testing.assert_allclose(getattr(model, name), getattr(theirs, name), rtol=1e-5, atol=1e-6)
        for method in ("predict_proba", "predict_log_proba", "predict_joint_log_proba"):
            assert getattr(model, method)(X32).dtype == np.float32, method
        assert model.predict_proba(dense64(X32)).dtype == np.float64  # float64 X: float64 scores, as scikit-learn
        np.testing.assert_array_equal(model.predict(X32), theirs.predict(dense64(X32).astype(np.float32)))


@pytest.mark.parametrize("container", ["dense", "csr_array"])
@pytest.mark.parametrize("weighted", [False, True])
def test_partial_fit_in_chunks_matches_sklearn(container, weighted):
    """Including scikit-learn's epsilon_ handling: a large var_smoothing and a class absent from the first chunk."""
    X, y = make_data(n_samples=500, random_state=2)
    y[:150][y[:150] == 3] = 1
    labels = np.array(["a", "b", "c", "d"])[y]
    weights = np.random.default_rng(4).uniform(0.2, 2.0, size=len(y)) if weighted else None
    X_ours = as_container(sp.csr_array(X), container)
    ours, theirs = nbfast.GaussianNB(var_smoothing=1e-2), sk_nb.GaussianNB(var_smoothing=1e-2)
    for start in range(0, 450, 150):
        chunk = slice(start, start + 150)
        w = None if weights is None else weights[chunk]
        ours.partial_fit(X_ours[chunk], labels[chunk], classes=["a", "b", "c", "d"], sample_weight=w)
        theirs.partial_fit(X[chunk], labels[chunk], classes=["a", "b", "c", "d"], sample_weight=w)
        assert_close(ours, theirs, X_ours[450:], X_test_theirs=X[450:])


def test_rebuilt_from_sklearn_attributes_predicts_and_continues_like_sklearn():
    X, y = make_data(random_state=5)
    theirs = sk_nb.GaussianNB(var_smoothing=1e-3).partial_fit(X[:200], y[:200], classes=np.arange(4))
    ours = nbfast.GaussianNB(var_smoothing=1e-3)
    for name in nbfast.GaussianNB._fitted_attributes:
        setattr(ours, name, np.copy(getattr(theirs, name)))  # partial_fit updates the statistics in place
    assert_close(ours, theirs, X[300:])
    ours.partial_fit(X[200:300], y[200:300])
    theirs.partial_fit(X[200:300], y[200:300])
    assert_close(ours, theirs, X[300:])


# ---------------------------------------------------------------- sparse equals dense
@pytest.mark.parametrize("dtype", FLOAT_DTYPES)
@pytest.mark.parametrize("index_dtype", INDEX_DTYPES)
@pytest.mark.parametrize("container", ["csr_matrix", "csr_array"])
def test_sparse_equals_dense(dtype, index_dtype, container):
    X, y = make_data(random_state=6)
    weights = np.random.default_rng(6).uniform(0, 2, size=len(y))
    dense = read_only(as_container(sp.csr_array(X), "dense", dtype))
    sparse = read_only(as_container(sp.csr_array(X), container, dtype, index_dtype))
    for variance in VARIANCES:
        model_dense = nbfast.GaussianNB(variance=variance).fit(dense[:300], y[:300], sample_weight=weights[:300])
        model_sparse = nbfast.GaussianNB(variance=variance).fit(sparse[:300], y[:300], sample_weight=weights[:300])
        assert_close(model_sparse, model_dense, sparse[300:], X_test_theirs=dense[300:])


def test_explicit_zeros_and_empty_rows_are_zeros():
    X, y = make_data(n_samples=120, random_state=7)
    X[5] = 0.0
    sparse = sp.csr_array(X)
    sparse.data[::3] = 0.0  # stored zeros
    dense = sparse.toarray()
    model_sparse = nbfast.GaussianNB().fit(sparse, y)
    assert_close(model_sparse, nbfast.GaussianNB().fit(dense, y), sparse, X_test_theirs=dense)
    assert_close(model_sparse, reference(dense, y, dense), sparse)


# ---------------------------------------------------------------- variance choices
@pytest.mark.parametrize("variance", VARIANCES)
@pytest.mark.parametrize("ddof", [0, 1])
@pytest.mark.parametrize("container", ["dense", "csr_array"])
def test_variance_choices_match_numpy_reference(variance, ddof, container):
    X, y = make_data(random_state=8)
    weights = np.random.default_rng(8).uniform(1.0, 3.0, size=len(y))
    Xc = as_container(sp.csr_array(X), container)
    for sample_weight in (None, weights[:300]):
        params = dict(variance=variance, ddof=ddof, var_smoothing=1e-3)
        model = nbfast.GaussianNB(**params).fit(Xc[:300], y[:300], sample_weight=sample_weight)
        assert_close(model, reference(X[:300], y[:300], X[300:], sample_weight=sample_weight, **params), Xc[300:])


@pytest.mark.parametrize("variance", VARIANCES)
@pytest.mark.parametrize("ddof", [0, 1])
def test_partial_fit_equals_fit_without_smoothing(variance, ddof):
    """With var_smoothing=0 scikit-learn's per-batch epsilon_ vanishes: chunks give the fit on the union."""
    X, y = make_data(random_state=9)
    params = dict(variance=variance, ddof=ddof, var_smoothing=0.0)
    model = nbfast.GaussianNB(**params)
    for start in range(0, 300, 100):
        model.partial_fit(sp.csr_array(X[start:start + 100]), y[start:start + 100], classes=np.arange(4))
    assert_close(model, reference(X[:300], y[:300], X[300:], **params), X[300:])


def test_every_variance_choice_is_tested():
    assert list(_gaussian.VARIANCES) == VARIANCES


def test_var_keeps_sklearn_shape_for_pooled_variances():
    X, y = make_data(random_state=10)
    for variance in VARIANCES:
        model = nbfast.GaussianNB(variance=variance).fit(X, y)
        assert model.var_.shape == model.theta_.shape == (4, X.shape[1])
    assert np.unique(nbfast.GaussianNB(variance="global").fit(X, y).var_).size == 1


# ---------------------------------------------------------------- linear export and merge
def test_linear_export_with_feature_variance():
    X, y = make_data(random_state=11)
    model = nbfast.GaussianNB(variance="feature", priors=[0.4, 0.3, 0.2, 0.1]).fit(X, y)
    coef, intercept = model._linear_export()
    row_constant = -0.5 * (X**2 / model.var_[0]).sum(axis=1, keepdims=True)
    np.testing.assert_allclose(X @ coef.T + intercept + row_constant, model.predict_joint_log_proba(X), rtol=1e-12)
    linear = X @ coef.T + intercept
    np.testing.assert_allclose(
        np.exp(linear - np.logaddexp.reduce(linear, axis=1, keepdims=True)), model.predict_proba(X), atol=1e-12
    )
    for variance in ("class_feature", "class", "global"):
        with pytest.raises(ValueError, match="variance='feature'"):
            nbfast.GaussianNB(variance=variance).fit(X, y)._linear_export()


@pytest.mark.parametrize("variance", VARIANCES)
@pytest.mark.parametrize("ddof", [0, 1])
def test_merge_equals_fit_on_union(variance, ddof):
    X, y = make_data(n_samples=600, random_state=12)
    weights = np.random.default_rng(12).uniform(0, 2, size=len(y))
    y[:200][y[:200] == 2] = 0  # the first shard lacks class 2
    params = dict(variance=variance, ddof=ddof, var_smoothing=1e-2)
    shards = [slice(0, 200), slice(200, 350), slice(350, 600)]
    models = [
        nbfast.GaussianNB(**params).fit(sp.csr_array(X[s]) if i % 2 else X[s], y[s], sample_weight=weights[s])
        for i, s in enumerate(shards)
    ]
    merged = nbfast.GaussianNB._merge(models)
    assert_close(merged, nbfast.GaussianNB(**params).fit(X, y, sample_weight=weights), X, rtol=1e-12)
    with pytest.raises(ValueError, match="same parameters"):
        nbfast.GaussianNB._merge([models[0], nbfast.GaussianNB(var_smoothing=0.5).fit(X, y)])


# ---------------------------------------------------------------- validation, threads, sklearn
@pytest.mark.parametrize(
    "params, message",
    [
        ({"priors": [0.5, 0.5]}, "Number of priors must match"),
        ({"priors": [0.5, 0.5, 0.5, 0.5]}, "sum of the priors should be 1"),
        ({"priors": [1.5, -0.5, 0.0, 0.0]}, "Priors must be non-negative"),
        ({"var_smoothing": -1.0}, "var_smoothing"),
        ({"variance": "per-class"}, "'variance' parameter of GaussianNB"),
        ({"ddof": 2}, "'ddof' parameter of GaussianNB"),
    ],
)
def test_bad_parameters_raise_and_leave_the_model_unchanged(params, message):
    X, y = make_data(random_state=13)
    model = nbfast.GaussianNB().partial_fit(X[:100], y[:100], classes=np.arange(4))
    before = {name: np.copy(getattr(model, name)) for name in ATTRIBUTES}
    model.set_params(**params)
    with pytest.raises(ValueError, match=message):
        model.partial_fit(X[100:], y[100:])
    with pytest.raises(ValueError, match=message):
        nbfast.GaussianNB(**params).fit(X, y)
    for name, value in before.items():
        np.testing.assert_array_equal(getattr(model, name), value)


@pytest.mark.parametrize("container", ["dense", "csr_array"])
def test_results_identical_for_one_and_two_threads(container, n_threads_limit):
    X, y = make_data(n_samples=1000, n_features=70, n_classes=3, random_state=14)
    X = as_container(sp.csr_array(X), container)
    weights = np.random.default_rng(14).uniform(0, 2, size=len(y))
    results = []
    for n in (1, 2):
        with n_threads_limit(n):
            model = nbfast.GaussianNB().fit(X, y, sample_weight=weights)
            results.append((model.theta_.copy(), model.var_.copy(), model.predict_proba(X), model.predict(X)))
    for a, b in zip(*results):
        np.testing.assert_array_equal(a, b)
