"""missing="ignore": NaN in X is a missing value, left out of fit and of each row's joint log-likelihood
(GaussianNB, CategoricalNB, BernoulliNB, and MixedNB through its parts)."""

import numpy as np
import pytest
import scipy.sparse as sp

import nbfast
from nbfast import BernoulliNB, CategoricalNB, GaussianNB, MixedNB

ESTIMATORS = {"GaussianNB": GaussianNB, "CategoricalNB": CategoricalNB, "BernoulliNB": BernoulliNB}
CONTAINERS = {"dense": np.asarray, "csr_matrix": sp.csr_matrix, "csr_array": sp.csr_array}


def data_with_missing(name, n_samples=240, n_features=6, n_classes=3, fraction=0.25, seed=0, dtype=np.float64):
    """X with a fraction of NaN (and, for the counts, zeros that CSR leaves implicit), y."""
    rng = np.random.RandomState(seed)
    y = rng.randint(n_classes, size=n_samples)
    if name == "GaussianNB":
        X = rng.randn(n_samples, n_features) + y[:, None]
    else:
        X = rng.randint(3 if name == "CategoricalNB" else 2, size=(n_samples, n_features)).astype(float)
        X[:, 0] = np.minimum(X[:, 0], y)  # some dependence on the class
    X[rng.rand(n_samples, n_features) < fraction] = np.nan
    return X.astype(dtype), y


def numpy_jll(name, X, y, sample_weight=None, alpha=1.0):
    """The joint log-likelihood of a plain float64 numpy model that drops every missing term (fit and predict)."""
    X = np.asarray(X, dtype=np.float64)
    w = np.ones(len(y)) if sample_weight is None else sample_weight
    Y = np.eye(y.max() + 1)[y] * w[:, None]
    observed = ~np.isnan(X)
    x = np.where(observed, X, 0.0)
    N = Y.T @ observed  # (classes, features): weight of the observed values
    jll = np.log(Y.sum(axis=0) / Y.sum())[None, :].repeat(len(X), axis=0)
    if name == "GaussianNB":
        with np.errstate(invalid="ignore", divide="ignore"):
            mean = (Y.T @ x) / N
            var = np.stack([(Y[:, c, None] * observed * (x - mean[c]) ** 2).sum(axis=0) for c in range(len(N))]) / N
        # a class that never observed feature j takes the feature's mean and variance over every class
        weight = w[:, None] * observed
        pooled_mean = (weight * x).sum(axis=0) / weight.sum(axis=0)
        pooled_var = (weight * (x - pooled_mean) ** 2).sum(axis=0) / weight.sum(axis=0)
        mean = np.where(N > 0, mean, pooled_mean)
        var = np.where(N > 0, var, pooled_var)
        epsilon = 1e-9 * np.nanvar(X, axis=0).max()
        var = var + epsilon
        for c in range(len(N)):
            terms = -0.5 * np.log(2 * np.pi * var[c]) - (x - mean[c]) ** 2 / (2 * var[c])
            jll[:, c] += np.where(observed, terms, 0.0).sum(axis=1)
    elif name == "BernoulliNB":
        present = x > 0
        theta = (Y.T @ (present & observed) + alpha) / (N + 2 * alpha)
        for c in range(len(N)):  # selected terms only: log 0 where the feature is missing is no term
            terms = np.where(present, np.log(theta[c]), np.log1p(-theta[c]))
            jll[:, c] += np.where(observed, terms, 0.0).sum(axis=1)
    else:
        for j in range(X.shape[1]):
            n_categories = int(np.nanmax(X[:, j])) + 1
            one_hot = np.eye(n_categories)[x[:, j].astype(int)] * observed[:, j, None]
            log_p = np.log((Y.T @ one_hot + alpha) / (N[:, j, None] + alpha * n_categories))
            jll += np.where(observed[:, j, None], log_p[:, x[:, j].astype(int)].T, 0.0)
    return jll


# ------------------------------------------------------------ the numpy reference
@pytest.mark.parametrize("container", CONTAINERS)
@pytest.mark.parametrize("weighted", [False, True], ids=["unweighted", "weighted"])
def test_a_gaussian_feature_a_class_never_observed_does_not_decide_for_or_against_it(container, weighted):
    X, y = data_with_missing("GaussianNB", fraction=0.1)
    X[y == 2, 1] = np.nan  # class 2 never observes feature 1
    X[y == 0, 4] = np.nan  # nor class 0 feature 4
    weight = np.random.RandomState(1).uniform(0.5, 2.0, len(y)) if weighted else None
    model = GaussianNB(missing="ignore").fit(CONTAINERS[container](X), y, sample_weight=weight)
    np.testing.assert_allclose(model.predict_joint_log_proba(CONTAINERS[container](X)), numpy_jll("GaussianNB", X, y, weight),
                               rtol=1e-9, atol=1e-9)
    # feature 1 alone: its value moves class 2's posterior only as the feature's overall distribution does
    rows = np.full((3, X.shape[1]), np.nan)
    rows[:, 1] = [0.0, 5.5, 1.0]
    proba = model.predict_proba(rows)[:, 2]
    assert np.all((proba > 0.01) & (proba < 0.99))
    model.partial_fit(X[:10], y[:10], sample_weight=None if weight is None else weight[:10])  # continues cleanly
    assert np.isfinite(model.predict_joint_log_proba(X)).all()


@pytest.mark.parametrize("name", ESTIMATORS)
@pytest.mark.parametrize("container", CONTAINERS)
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("weighted", [False, True], ids=["unweighted", "weighted"])
def test_joint_log_likelihood_drops_the_missing_terms(name, container, dtype, weighted):
    X, y = data_with_missing(name, dtype=dtype)
    weight = np.random.RandomState(1).uniform(0.5, 2.0, len(y)) if weighted else None
    Xc = CONTAINERS[container](X)
    model = ESTIMATORS[name](missing="ignore").fit(Xc, y, sample_weight=weight)
    expected = numpy_jll(name, X, y, weight)
    rtol = 1e-5 if dtype == np.float32 else 1e-9
    np.testing.assert_allclose(model.predict_joint_log_proba(Xc), expected, rtol=rtol, atol=rtol)
    np.testing.assert_array_equal(model.predict(Xc), model.classes_[model.predict_joint_log_proba(Xc).argmax(axis=1)])
    np.testing.assert_allclose(model.predict_proba(Xc).sum(axis=1), 1.0, rtol=1e-6 if dtype == np.float32 else 1e-7)


@pytest.mark.parametrize("binarize", [None, 0.5, 0.0])
def test_bernoulli_binarize_leaves_nan_missing(binarize):
    X, y = data_with_missing("BernoulliNB")
    if binarize is None:
        X = np.where(np.isnan(X), X, X > 0.5)
    model = BernoulliNB(missing="ignore", binarize=binarize).fit(X, y)
    f = X if binarize is None else np.where(np.isnan(X), np.nan, X > binarize)
    reference = BernoulliNB(missing="ignore", binarize=None).fit(f, y)
    np.testing.assert_allclose(model.predict_joint_log_proba(X), reference.predict_joint_log_proba(f), rtol=1e-12)


# --------------------------------------------- one model per feature, on its observed rows
@pytest.mark.parametrize("container", CONTAINERS)
def test_gaussian_statistics_equal_per_feature_models_on_the_observed_rows(container):
    X, y = data_with_missing("GaussianNB")
    weight = np.random.RandomState(2).uniform(0.5, 2.0, len(y))
    model = GaussianNB(missing="ignore").fit(CONTAINERS[container](X), y, sample_weight=weight)
    for j in range(X.shape[1]):
        rows = ~np.isnan(X[:, j])
        alone = GaussianNB().fit(X[rows, j:j + 1], y[rows], sample_weight=weight[rows])
        np.testing.assert_allclose(model.observed_count_[:, j], alone.class_count_, rtol=1e-12)
        np.testing.assert_allclose(model.theta_[:, j], alone.theta_[:, 0], rtol=1e-12)
        np.testing.assert_allclose(model.var_[:, j] - model.epsilon_, alone.var_[:, 0] - alone.epsilon_, rtol=1e-10)
    np.testing.assert_allclose(model.class_count_, np.bincount(y, weights=weight))
    # epsilon_ as scikit-learn computes it, over each feature's observed values
    assert model.epsilon_ == pytest.approx(1e-9 * np.nanvar(X, axis=0).max(), rel=1e-10)


@pytest.mark.parametrize("container", CONTAINERS)
def test_categorical_statistics_equal_per_feature_models_on_the_observed_rows(container):
    X, y = data_with_missing("CategoricalNB")
    model = CategoricalNB(missing="ignore").fit(CONTAINERS[container](X), y)
    for j in range(X.shape[1]):
        rows = ~np.isnan(X[:, j])
        alone = CategoricalNB().fit(X[rows, j:j + 1], y[rows])
        np.testing.assert_array_equal(model.category_count_[j], alone.category_count_[0])
        np.testing.assert_allclose(model.feature_log_prob_[j], alone.feature_log_prob_[0], rtol=1e-12)


@pytest.mark.parametrize("name", ESTIMATORS)
@pytest.mark.parametrize("container", CONTAINERS)
def test_predicting_with_missing_features_equals_the_model_without_them(name, container):
    X, y = data_with_missing(name)
    test = np.array(data_with_missing(name, n_samples=30, fraction=0.0, seed=3)[0])
    dropped = [1, 4]
    test[:, dropped] = np.nan
    kept = [j for j in range(X.shape[1]) if j not in dropped]
    params = {"var_smoothing": 0.0} if name == "GaussianNB" else {}  # epsilon_ depends on the features present
    model = ESTIMATORS[name](missing="ignore", **params).fit(X, y)
    sub = ESTIMATORS[name](missing="ignore", **params).fit(X[:, kept], y)
    convert = CONTAINERS[container]
    np.testing.assert_allclose(model.predict_proba(convert(test)), sub.predict_proba(convert(test[:, kept])),
                               rtol=1e-9, atol=1e-12)
    np.testing.assert_array_equal(model.predict(convert(test)), sub.predict(convert(test[:, kept])))


# ------------------------------------------------------ statistics that add up
def assert_same_model(a, b, X):
    np.testing.assert_allclose(a.observed_count_ if hasattr(a, "observed_count_") else a.category_count_[0],
                               b.observed_count_ if hasattr(b, "observed_count_") else b.category_count_[0])
    np.testing.assert_allclose(a.predict_joint_log_proba(X), b.predict_joint_log_proba(X), rtol=1e-9)


@pytest.mark.parametrize("name", ESTIMATORS)
def test_partial_fit_in_chunks_equals_fit(name):
    X, y = data_with_missing(name)
    params = {"var_smoothing": 0.0} if name == "GaussianNB" else {}  # scikit-learn's epsilon_ is per batch
    whole = ESTIMATORS[name](missing="ignore", **params).fit(X, y)
    chunked = ESTIMATORS[name](missing="ignore", **params)
    for start in range(0, len(y), 70):
        chunked.partial_fit(X[start:start + 70], y[start:start + 70], classes=np.unique(y))
    assert_same_model(chunked, whole, X)


@pytest.mark.parametrize("name", ESTIMATORS)
def test_merge_of_shards_equals_fit(name):
    X, y = data_with_missing(name)
    whole = ESTIMATORS[name](missing="ignore").fit(X, y)
    shards = [ESTIMATORS[name](missing="ignore").fit(X[rows], y[rows]) for rows in np.array_split(np.arange(len(y)), 3)]
    merged = nbfast.merge(shards)
    assert_same_model(merged, whole, X)
    if name == "GaussianNB":
        assert merged.epsilon_ == pytest.approx(whole.epsilon_, rel=1e-12)


@pytest.mark.parametrize("name", ESTIMATORS)
def test_save_and_load_keep_the_observed_counts(name, tmp_path):
    X, y = data_with_missing(name)
    model = ESTIMATORS[name](missing="ignore").fit(X, y)
    nbfast.save(model, tmp_path / "model.nbf")
    loaded = nbfast.load(tmp_path / "model.nbf")
    np.testing.assert_array_equal(loaded.predict_joint_log_proba(X), model.predict_joint_log_proba(X))
    if name != "CategoricalNB":  # its observed counts are the sums of category_count_
        np.testing.assert_array_equal(loaded.observed_count_, model.observed_count_)
    # continuing the loaded model is continuing the model
    loaded.partial_fit(X[:50], y[:50])
    model.partial_fit(X[:50], y[:50])
    np.testing.assert_allclose(loaded.predict_joint_log_proba(X), model.predict_joint_log_proba(X), rtol=1e-12)


@pytest.mark.parametrize("name", ESTIMATORS)
@pytest.mark.parametrize("container", CONTAINERS)
def test_one_and_two_threads_are_bit_identical(name, container, n_threads_limit):
    X, y = data_with_missing(name, n_samples=400, n_features=40)
    X = CONTAINERS[container](X)
    results = []
    for n in (1, 2):
        with n_threads_limit(n):
            model = ESTIMATORS[name](missing="ignore").fit(X, y)
            results.append((model.predict_joint_log_proba(X), model.predict_proba(X), model.predict(X)))
    for a, b in zip(*results):
        np.testing.assert_array_equal(a, b)


def test_mixednb_passes_missing_to_its_parts():
    rng = np.random.RandomState(0)
    X = np.hstack([rng.randn(200, 3), rng.randint(3, size=(200, 2))])
    X[rng.rand(*X.shape) < 0.2] = np.nan
    y = rng.randint(2, size=200)
    parts = [("numbers", GaussianNB(), [0, 1, 2]), ("codes", CategoricalNB(), [3, 4])]
    model = MixedNB(parts, missing="ignore").fit(X, y)
    gaussian = GaussianNB(missing="ignore").fit(X[:, :3], y)
    categorical = CategoricalNB(missing="ignore").fit(X[:, 3:], y)
    expected = gaussian.predict_joint_log_proba(X[:, :3]) + categorical.predict_joint_log_proba(X[:, 3:]) \
        - np.log(gaussian.class_prior_)
    np.testing.assert_allclose(model.predict_joint_log_proba(X), expected, rtol=1e-12)
    np.testing.assert_allclose(model.predict_proba(sp.csr_array(X)), model.predict_proba(X), rtol=1e-12)
    with pytest.raises(ValueError, match="Input X contains NaN"):
        MixedNB(parts).fit(X, y)
    with pytest.raises(ValueError, match="Input X contains NaN"):  # a part without the parameter
        MixedNB([("codes", nbfast.MultinomialNB(), [3, 4])], missing="ignore").fit(X, y)
    model.missing = "error"
    with pytest.raises(ValueError, match="refit"):
        model.partial_fit(X, y)


# ------------------------------------------------------------------- refusals
@pytest.mark.parametrize("name", [*ESTIMATORS, "MixedNB"])
@pytest.mark.parametrize("container", CONTAINERS)
def test_missing_error_raises_as_scikit_learn(name, container):
    naive_bayes = pytest.importorskip("sklearn.naive_bayes")
    X, y = data_with_missing("CategoricalNB")
    estimator = MixedNB([("codes", CategoricalNB(), slice(None))]) if name == "MixedNB" else ESTIMATORS[name]()
    with pytest.raises(ValueError, match="Input X contains NaN"):
        estimator.fit(CONTAINERS[container](X), y)
    fitted = estimator.fit(np.nan_to_num(X), y)
    with pytest.raises(ValueError, match="Input X contains NaN"):
        fitted.predict(CONTAINERS[container](X))
    if name != "MixedNB":
        with pytest.raises(ValueError, match="Input X contains NaN"):
            getattr(naive_bayes, name)().fit(X, y)


@pytest.mark.parametrize("name", [*ESTIMATORS, "MixedNB"])
@pytest.mark.parametrize("missing", ["drop", None, 1, "IGNORE"])
def test_an_invalid_missing_is_a_clear_error_at_fit(name, missing):
    X, y = data_with_missing("CategoricalNB", fraction=0.0)
    estimator = MixedNB(missing=missing) if name == "MixedNB" else ESTIMATORS[name](missing=missing)
    with pytest.raises(ValueError, match="'missing' parameter of"):
        estimator.fit(X, y)
    assert not hasattr(estimator, "classes_")


@pytest.mark.parametrize("name", ESTIMATORS)
def test_infinity_is_still_refused(name):
    X, y = data_with_missing(name)
    X[0, 0] = np.inf
    with pytest.raises(ValueError, match="infinity"):
        ESTIMATORS[name](missing="ignore").fit(X, y)


@pytest.mark.parametrize("name", ["GaussianNB", "BernoulliNB"])
def test_a_file_with_a_bad_observed_count_is_refused(name, tmp_path):
    from support.crafting import _array_index, _with_array, _with_header

    X, y = data_with_missing(name)
    nbfast.save(ESTIMATORS[name](missing="ignore").fit(X, y), tmp_path / "model.nbf")
    raw = (tmp_path / "model.nbf").read_bytes()
    index = _array_index(raw, "observed_count_")
    crafted = {
        "negative": _with_array(raw, index, lambda a: a.__setitem__((0, 0), -1.0)),
        "NaN": _with_array(raw, index, lambda a: a.__setitem__((0, 0), np.nan)),
        "wrong shape": _with_header(raw, lambda h: h["arrays"][index].update(shape=[1, 1])),
        "unknown attribute": _with_header(raw, lambda h: h["model"]["fitted"].update(
            observed_count_x=h["model"]["fitted"]["observed_count_"])),
    }
    for content in crafted.values():
        (tmp_path / "crafted.nbf").write_bytes(content)
        with pytest.raises(ValueError):
            nbfast.load(tmp_path / "crafted.nbf")


def test_observed_count_in_a_model_that_keeps_none_is_refused(tmp_path):
    from support.crafting import _with_header

    X, y = data_with_missing("CategoricalNB", fraction=0.0)
    nbfast.save(nbfast.MultinomialNB().fit(X, y), tmp_path / "model.nbf")
    raw = (tmp_path / "model.nbf").read_bytes()
    crafted = _with_header(raw, lambda h: h["model"]["fitted"].update(
        observed_count_=h["model"]["fitted"]["feature_count_"]))
    (tmp_path / "crafted.nbf").write_bytes(crafted)
    with pytest.raises(ValueError):
        nbfast.load(tmp_path / "crafted.nbf")


@pytest.mark.parametrize("name", ESTIMATORS)
@pytest.mark.parametrize("container", ["dense", "csr_array"])
def test_explanations_of_rows_with_missing_values_add_up(name, container):
    X, y = data_with_missing(name)
    X = CONTAINERS[container](X)
    model = ESTIMATORS[name](missing="ignore").fit(X, y)
    explanation = nbfast.explain(model, X[:40])
    jll = model.predict_joint_log_proba(X[:40])
    rows = np.arange(40)
    first = np.searchsorted(model.classes_, explanation.predicted)
    second = np.searchsorted(model.classes_, explanation.runner_up)
    np.testing.assert_allclose(explanation.difference, jll[rows, first] - jll[rows, second], rtol=1e-9, atol=1e-9)
    total = explanation.prior + explanation.baseline + np.asarray(explanation.terms.sum(axis=1)).ravel()
    np.testing.assert_allclose(total, explanation.difference, rtol=1e-9, atol=1e-9)


@pytest.mark.parametrize("name", ["CategoricalNB", "BernoulliNB"])
def test_alpha_zero_with_missing_values_equals_the_numpy_reference(name):
    X, y = data_with_missing(name)
    X[y == 0, 0] = 0.0  # feature 0 is always 0 (absent) in class 0: probability 0 of anything else there
    model = ESTIMATORS[name](missing="ignore", alpha=0.0).fit(X, y)
    with np.errstate(divide="ignore", invalid="ignore"):
        expected = numpy_jll(name, X, y, alpha=0.0)
    np.testing.assert_allclose(model.predict_joint_log_proba(X), expected, rtol=1e-9)
    assert np.isneginf(model.predict_joint_log_proba(X)).any()
