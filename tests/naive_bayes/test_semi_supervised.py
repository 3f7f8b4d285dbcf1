"""SemiSupervisedNB: EM over unlabelled rows against plain references, its stopping rule, determinism, labels,
parameters, and predictions, persistence and operations through the fitted estimator."""

import warnings

import numpy as np
import pytest
import scipy.sparse as sp
from scipy.special import gammaln, logsumexp
from support.helpers import FLOAT_DTYPES, INDEX_DTYPES, as_container, read_only

import nbfast
from nbfast.datasets import make_documents

COUNT_MODELS = ["MultinomialNB", "ComplementNB", "BernoulliNB", "PoissonNB"]
GENERATIVE = ["MultinomialNB", "BernoulliNB", "PoissonNB"]  # ComplementNB's scores are not a likelihood
PARAMS = {"MultinomialNB": {"alpha": 0.3}, "ComplementNB": {"alpha": 0.3}, "BernoulliNB": {"alpha": 0.3, "binarize": 1.0},
          "PoissonNB": {"alpha": 0.3, "beta": 0.5}}


def estimator(name):
    return getattr(nbfast, name)(**PARAMS[name])


def partly_labelled(n_samples=600, n_features=200, n_classes=4, labelled_share=0.05, seed=0, **kwargs):
    """(X, y, y with -1 for the unlabelled rows): each class labelled at least twice."""
    X, y = make_documents(n_samples, n_features, n_classes, mean_length=30, class_separation=0.15,
                          random_state=seed, **kwargs)
    labelled = np.random.default_rng(seed).random(n_samples) < labelled_share
    labelled[:2 * n_classes] = True
    return X, y, np.where(labelled, y, -1)


def assert_same_model(a, b):
    """Bit-identical fitted attributes, the fitted estimator's included."""
    assert type(a) is type(b)
    for name in type(a)._fitted_attributes:
        if isinstance(getattr(b, name), nbfast.naive_bayes._base._BaseNB):
            assert_same_model(getattr(a, name), getattr(b, name))
        else:
            np.testing.assert_array_equal(getattr(a, name), getattr(b, name), err_msg=name)


# ------------------------------------------------------------------ references
def log_parameter_prior(model):
    """log p(parameters) of which the count models' smoothed estimates are the mode, from public attributes."""
    name, alpha = type(model).__name__, model.alpha
    log_table = model.feature_log_prob_
    if name == "MultinomialNB":  # Dirichlet(alpha + 1)
        return alpha * log_table.sum()
    if name == "BernoulliNB":  # Beta(alpha + 1, alpha + 1)
        return alpha * (log_table.sum() + np.log1p(-np.exp(log_table)).sum())
    if name == "PoissonNB":  # Gamma(alpha + 1, beta)
        return alpha * log_table.sum() - model.beta * np.exp(log_table).sum()
    return 0.0


def joint_log_likelihood(model, X):
    """log P(x, c) up to a term of each row only (PoissonNB's log x! left out, as EM leaves it out)."""
    jll = model.predict_joint_log_proba(X)
    if type(model).__name__ == "PoissonNB":
        jll += np.asarray(gammaln(X.toarray() + 1.0).sum(axis=1))[:, None]
    return jll


def mean_log_likelihood(model, X, y_partial, unlabeled_weight, sample_weight=None):
    """The EM objective per unit of weight: labelled log P(x, y), unlabelled weight * log P(x), log prior."""
    weight = np.ones(X.shape[0]) if sample_weight is None else sample_weight
    jll = joint_log_likelihood(model, X)
    labelled = y_partial != -1
    y_index = np.searchsorted(model.classes_, y_partial[labelled])
    total = np.dot(weight[labelled], jll[labelled][np.arange(labelled.sum()), y_index])
    total += unlabeled_weight * np.dot(weight[~labelled], logsumexp(jll[~labelled], axis=1))
    total += log_parameter_prior(model)
    return total / (weight[labelled].sum() + unlabeled_weight * weight[~labelled].sum())


def m_step_reference(name, X, y_partial, posterior, unlabeled_weight, sample_weight=None):
    """A plain fit on the labelled rows plus every unlabelled row once per class, with weight
    unlabeled_weight * posterior (hard labels and sample weights: no soft-label code involved)."""
    weight = np.ones(X.shape[0]) if sample_weight is None else sample_weight
    labelled = y_partial != -1
    unlabelled = np.flatnonzero(~labelled)
    n_classes = posterior.shape[1]
    rows = sp.vstack([X[labelled]] + [X[unlabelled]] * n_classes, format="csr")
    labels = np.concatenate([y_partial[labelled]] + [np.full(len(unlabelled), c) for c in range(n_classes)])
    weights = np.concatenate([weight[labelled]]
                             + [unlabeled_weight * weight[unlabelled] * posterior[:, c] for c in range(n_classes)])
    return estimator(name).fit(rows, labels, sample_weight=weights)


@pytest.mark.parametrize("name", GENERATIVE)
def test_the_log_prior_of_the_parameters_is_that_of_the_smoothing(name):
    """Up to a constant, log p(parameters) is scipy's log density of the prior whose mode the estimates are."""
    stats = pytest.importorskip("scipy.stats")
    X, y, _ = partly_labelled()
    models = [estimator(name).fit(X[part], y[part]) for part in (slice(0, 300), slice(300, None))]
    alpha = PARAMS[name]["alpha"]

    def scipy_log_prior(model):
        table = np.exp(model.feature_log_prob_)
        if name == "MultinomialNB":
            return sum(stats.dirichlet.logpdf(row / row.sum(), np.full(table.shape[1], alpha + 1)) for row in table)
        if name == "BernoulliNB":
            return stats.beta.logpdf(table, alpha + 1, alpha + 1).sum()
        return stats.gamma.logpdf(table, alpha + 1, scale=1 / PARAMS[name]["beta"]).sum()

    ours = [model._log_parameter_prior() for model in models]
    np.testing.assert_allclose(ours[0] - ours[1], scipy_log_prior(models[0]) - scipy_log_prior(models[1]), rtol=1e-9)


# ------------------------------------------------------------------ EM itself
@pytest.mark.parametrize("name", COUNT_MODELS)
@pytest.mark.parametrize("unlabeled_weight", [1.0, 0.3])
@pytest.mark.parametrize("weighted", [False, True], ids=["unweighted", "sample_weight"])
def test_each_iteration_is_a_fit_on_posterior_weighted_rows(name, unlabeled_weight, weighted):
    X, _, y_partial = partly_labelled()
    sample_weight = np.random.default_rng(5).uniform(0.5, 2.0, X.shape[0]) if weighted else None
    labelled = y_partial != -1
    model = estimator(name).fit(X[labelled], y_partial[labelled],
                                sample_weight=None if sample_weight is None else sample_weight[labelled])
    expected_log_likelihood = [mean_log_likelihood(model, X, y_partial, unlabeled_weight, sample_weight)]
    for _ in range(3):
        posterior = model.predict_proba(X[~labelled])
        model = m_step_reference(name, X, y_partial, posterior, unlabeled_weight, sample_weight)
        expected_log_likelihood.append(mean_log_likelihood(model, X, y_partial, unlabeled_weight, sample_weight))

    semi = nbfast.SemiSupervisedNB(estimator(name), max_iter=3, tol=0.0, unlabeled_weight=unlabeled_weight)
    semi.fit(X, y_partial, sample_weight=sample_weight)
    assert semi.n_iter_ == 4 and type(semi.estimator_) is type(model)
    np.testing.assert_allclose(semi.log_likelihood_, expected_log_likelihood, rtol=1e-10)
    np.testing.assert_allclose(semi.estimator_.feature_count_, model.feature_count_, rtol=1e-10, atol=1e-10)
    np.testing.assert_allclose(semi.estimator_.class_count_, model.class_count_, rtol=1e-10)
    np.testing.assert_allclose(semi.predict_proba(X), model.predict_proba(X), rtol=1e-8, atol=1e-12)


@pytest.mark.parametrize("name", GENERATIVE)
@pytest.mark.parametrize("unlabeled_weight", [1.0, 0.1])
def test_em_never_lowers_the_log_likelihood(name, unlabeled_weight):
    X, _, y_partial = partly_labelled(n_samples=1000, labelled_share=0.02, seed=3)
    semi = nbfast.SemiSupervisedNB(estimator(name), max_iter=15, tol=0.0, unlabeled_weight=unlabeled_weight)
    history = semi.fit(X, y_partial).log_likelihood_
    assert np.all(np.diff(history) >= -1e-9 * np.abs(history[1:]))
    assert history[-1] > history[0]


def test_stops_when_the_gain_falls_below_tol():
    X, _, y_partial = partly_labelled(seed=1)
    semi = nbfast.SemiSupervisedNB(tol=1e-3, max_iter=100).fit(X, y_partial)
    gains = np.diff(semi.log_likelihood_)
    assert 1 < semi.n_iter_ < 101 and semi.log_likelihood_.shape == (semi.n_iter_,)
    assert gains[-1] < 1e-3 and np.all(gains[:-1] >= 1e-3)
    assert nbfast.SemiSupervisedNB(tol=1e9).fit(X, y_partial).n_iter_ == 2
    capped = nbfast.SemiSupervisedNB(tol=0.0, max_iter=2).fit(X, y_partial)
    assert capped.n_iter_ == 3 and capped.log_likelihood_.shape == (3,)


def test_without_unlabelled_rows_or_iterations_it_is_the_labelled_fit():
    X, y, y_partial = partly_labelled()
    labelled = y_partial != -1
    assert_same_model(nbfast.SemiSupervisedNB().fit(X, y).estimator_, nbfast.MultinomialNB().fit(X, y))
    for semi in (nbfast.SemiSupervisedNB(max_iter=0).fit(X, y_partial),
                 nbfast.SemiSupervisedNB(unlabeled_weight=0.0, tol=1e-300).fit(X, y_partial)):
        reference = nbfast.MultinomialNB().fit(X[labelled], y[labelled])
        np.testing.assert_allclose(semi.estimator_.feature_count_, reference.feature_count_, rtol=1e-12)
        np.testing.assert_allclose(semi.predict_proba(X), reference.predict_proba(X), rtol=1e-10, atol=1e-14)
    assert nbfast.SemiSupervisedNB(max_iter=0).fit(X, y_partial).log_likelihood_.shape == (1,)


def test_n_iter_counts_the_labelled_fit():
    """scikit-learn's check_non_transformer_estimators_n_iter: n_iter_ >= 1 after fit, all rows labelled too
    (the fit on the labelled rows counts, as SelfTrainingClassifier counts its first)."""
    X, y, y_partial = partly_labelled()
    for semi in (nbfast.SemiSupervisedNB().fit(X, y), nbfast.SemiSupervisedNB(max_iter=0).fit(X, y_partial)):
        assert semi.n_iter_ == 1 and semi.log_likelihood_.shape == (1,)
    assert nbfast.SemiSupervisedNB(max_iter=1, tol=0.0).fit(X, y_partial).n_iter_ == 2


def test_a_row_twice_is_a_row_of_weight_two():
    X, _, y_partial = partly_labelled(n_samples=300, seed=2)
    twice = np.r_[0, 1, 50, 51, 52]  # labelled and unlabelled rows
    weight = np.ones(300)
    weight[twice] = 2.0
    weighted = nbfast.SemiSupervisedNB(tol=0.0, max_iter=4).fit(X, y_partial, sample_weight=weight)
    repeated = nbfast.SemiSupervisedNB(tol=0.0, max_iter=4).fit(sp.vstack([X, X[twice]], format="csr"),
                                                               np.r_[y_partial, y_partial[twice]])
    np.testing.assert_allclose(weighted.estimator_.feature_count_, repeated.estimator_.feature_count_, rtol=1e-10)
    np.testing.assert_allclose(weighted.log_likelihood_, repeated.log_likelihood_, rtol=1e-10)


# ------------------------------------------------------- determinism, input layouts
@pytest.mark.parametrize("name", COUNT_MODELS)
@pytest.mark.parametrize("dtype", FLOAT_DTYPES)
def test_bit_identical_for_any_thread_count(name, dtype, n_threads_limit):
    X, _, y_partial = partly_labelled(n_samples=1500, n_features=300, n_classes=7, seed=4)
    X = X.astype(dtype)
    fits = []
    for n_threads in (1, 2, 3, 1):
        with n_threads_limit(n_threads):
            fits.append(nbfast.SemiSupervisedNB(estimator(name), tol=0.0, max_iter=4).fit(X, y_partial))
    for other in fits[1:]:
        assert_same_model(other, fits[0])


@pytest.mark.parametrize("dtype", FLOAT_DTYPES)
@pytest.mark.parametrize("index_dtype", INDEX_DTYPES)
@pytest.mark.parametrize("container", ["csr_matrix", "csr_array", "dense"])
@pytest.mark.parametrize("frozen", [False, True], ids=["writable", "read-only"])
def test_every_input_layout_gives_the_same_model(dtype, index_dtype, container, frozen):
    X, _, y_partial = partly_labelled(n_samples=400, seed=6)
    reference = nbfast.SemiSupervisedNB(estimator("BernoulliNB"), max_iter=3, tol=0.0).fit(X, y_partial)
    X = as_container(X, container, dtype, index_dtype)
    semi = nbfast.SemiSupervisedNB(estimator("BernoulliNB"), max_iter=3, tol=0.0)
    semi.fit(read_only(X) if frozen else X, y_partial)
    np.testing.assert_allclose(semi.estimator_.feature_count_, reference.estimator_.feature_count_, rtol=1e-10)
    np.testing.assert_allclose(semi.log_likelihood_, reference.log_likelihood_, rtol=1e-10)


# ------------------------------------------------------- it helps: 1% of the labels
@pytest.mark.parametrize("name", COUNT_MODELS)
def test_unlabelled_documents_raise_accuracy_with_one_percent_of_labels(name):
    X, y = make_documents(8000, 2000, 5, mean_length=60, class_separation=0.1, random_state=7)
    train, test = slice(0, 4000), slice(4000, None)
    labelled = np.arange(4000) % 100 == 0  # 40 labels
    params = {"alpha": 0.1, **({"binarize": 0.0} if name == "BernoulliNB" else {})}
    base = getattr(nbfast, name)(**params).fit(X[train][labelled], y[train][labelled])
    semi = nbfast.SemiSupervisedNB(getattr(nbfast, name)(**params)).fit(X[train], np.where(labelled, y[train], -1))
    before, after = np.mean(base.predict(X[test]) == y[test]), np.mean(semi.predict(X[test]) == y[test])
    assert after > before + 0.05, (before, after)


# ------------------------------------------------------------------ labels
def test_string_and_object_labels_need_their_own_mark():
    X, y, y_partial = partly_labelled()
    names = np.array(["apple", "banana", "cherry", "date"])
    as_str = np.where(y_partial == -1, "", names[y])
    semi = nbfast.SemiSupervisedNB(unlabeled="").fit(X, as_str)
    integer = nbfast.SemiSupervisedNB().fit(X, y_partial)
    np.testing.assert_array_equal(semi.classes_, names)
    np.testing.assert_array_equal(semi.predict(X), names[integer.predict(X)])
    np.testing.assert_array_equal(semi.predict_proba(X), integer.predict_proba(X))
    with pytest.raises(ValueError, match="unlabeled=-1 cannot mark"):
        nbfast.SemiSupervisedNB().fit(X, as_str)
    as_object = np.where(y_partial == -1, -1, names.astype(object)[y]).astype(object)  # scikit-learn's convention
    mixed = nbfast.SemiSupervisedNB().fit(X, as_object)
    np.testing.assert_array_equal(mixed.predict_proba(X), integer.predict_proba(X))
    assert mixed.classes_.dtype == object
    with pytest.raises(ValueError, match="NaN"):  # NaN is no label, nor a mark unless unlabeled says so
        nbfast.SemiSupervisedNB().fit(X, np.where(y_partial == -1, np.nan, y * 2.0))
    floats = nbfast.SemiSupervisedNB(unlabeled=-0.5).fit(X, np.where(y_partial == -1, -0.5, y * 2.0))
    np.testing.assert_array_equal(floats.classes_, [0.0, 2.0, 4.0, 6.0])


def test_labels_and_marks_that_cannot_work_are_refused():
    X, y, y_partial = partly_labelled()
    with pytest.raises(ValueError, match="no labelled row"):
        nbfast.SemiSupervisedNB().fit(X, np.full(X.shape[0], -1))
    with pytest.raises(ValueError, match="unlabeled='none' cannot mark rows of numeric y|y holds numbers"):
        nbfast.SemiSupervisedNB(unlabeled="none").fit(X, y_partial)
    with pytest.raises(TypeError, match="unlabeled must be one label value"):
        nbfast.SemiSupervisedNB(unlabeled=[-1]).fit(X, y_partial)
    with pytest.raises(ValueError, match="inconsistent numbers of samples"):
        nbfast.SemiSupervisedNB().fit(X, y_partial[:-1])


# ------------------------------------------------------------------ parameters
@pytest.mark.parametrize("params, error, match", [
    ({"max_iter": -1}, ValueError, "max_iter"),
    ({"max_iter": 2.5}, TypeError, "max_iter"),
    ({"max_iter": "2"}, TypeError, "max_iter"),
    ({"tol": -1e-3}, ValueError, "tol"),
    ({"tol": float("nan")}, ValueError, "tol"),
    ({"tol": "small"}, TypeError, "tol"),
    ({"unlabeled_weight": -0.5}, ValueError, "unlabeled_weight"),
    ({"unlabeled_weight": float("inf")}, ValueError, "unlabeled_weight"),
    ({"unlabeled_weight": None}, TypeError, "unlabeled_weight"),
    ({"estimator": "MultinomialNB"}, TypeError, "estimator must be an nbfast"),
    ({"estimator": nbfast.GaussianNB()}, TypeError, "GaussianNB does not learn from soft labels"),
    ({"estimator": nbfast.CategoricalNB()}, TypeError, "CategoricalNB does not learn from soft labels"),
    ({"estimator": nbfast.MultinomialNB(alpha=-1.0)}, ValueError, "alpha"),
])
def test_bad_parameters_are_named_and_leave_the_model_unchanged(params, error, match):
    X, _, y_partial = partly_labelled()
    semi = nbfast.SemiSupervisedNB(max_iter=2).fit(X, y_partial)
    before = {name: getattr(semi, name) for name in semi._fitted_attributes}
    semi.set_params(**params)
    with pytest.raises(error, match=match):
        semi.fit(X, y_partial)
    for name, value in before.items():
        assert getattr(semi, name) is value


def test_rows_every_class_rules_out_are_left_out_with_a_warning():
    X = sp.csr_array(np.array([[2.0, 0, 0], [0, 3.0, 0], [1.0, 0, 0], [0, 0, 4.0]]))
    semi = nbfast.SemiSupervisedNB(nbfast.MultinomialNB(alpha=0.0), max_iter=1)
    with pytest.warns(RuntimeWarning, match="1 unlabelled row"):  # the E-step of each of the 2 models
        semi.fit(X, np.array([0, 1, -1, -1]))
    np.testing.assert_array_equal(semi.estimator_.feature_count_[:, 2], [0.0, 0.0])  # the row of feature 2 only
    assert np.isfinite(semi.log_likelihood_).all()


@pytest.mark.parametrize("name", COUNT_MODELS)
def test_weights_that_overflow_are_refused(name):
    """As the estimator's own fit refuses them, without a warning."""
    X, y = np.eye(3).repeat(2, axis=0) + 1, np.array([0, 1, 2, -1, -1, -1])
    semi = nbfast.SemiSupervisedNB(getattr(nbfast, name)())
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.raises(ValueError, match="the model's statistics overflow float64"):
            semi.fit(X, y, sample_weight=np.full(6, 1e308))
    assert not hasattr(semi, "estimator_")


def test_a_log_likelihood_that_is_not_finite_is_refused():
    """Weights so small that the rows' mean log-likelihood overflows: an error, not log_likelihood_ = [-inf]."""
    X, y = np.eye(3).repeat(2, axis=0) + 1, np.array([0, 1, 2, -1, -1, -1])
    semi = nbfast.SemiSupervisedNB()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.raises(ValueError, match="the log-likelihood of the rows is -inf in float64"):
            semi.fit(X, y, sample_weight=np.full(6, 1e-320))
    assert not hasattr(semi, "estimator_")


def test_a_labelled_row_of_weight_zero_counts_for_nothing():
    """Its class may rule it out (that class has no other row): 0 * -inf must not make the log-likelihood NaN."""
    X, y = np.eye(3).repeat(2, axis=0) + 1, np.array([-1, -1, -1, 0, 1, 2])
    semi = nbfast.SemiSupervisedNB().fit(X, y, sample_weight=np.array([0, 0, 0, 0, 0, 1.0]))
    assert np.isfinite(semi.log_likelihood_).all()


# ------------------------------------------------- predictions, persistence, operations
@pytest.mark.parametrize("name", COUNT_MODELS)
def test_predicts_and_saves_like_its_estimator(name, tmp_path):
    X, _, y_partial = partly_labelled()
    semi = nbfast.SemiSupervisedNB(estimator(name), max_iter=3).fit(X, y_partial)
    for method in ("predict", "predict_proba", "predict_log_proba", "predict_joint_log_proba"):
        np.testing.assert_array_equal(getattr(semi, method)(X), getattr(semi.estimator_, method)(X), err_msg=method)
    coef, intercept = nbfast.to_linear(semi)
    np.testing.assert_array_equal(coef, nbfast.to_linear(semi.estimator_)[0])
    nbfast.save(semi, tmp_path / "semi.nbf")
    loaded = nbfast.load(tmp_path / "semi.nbf")
    assert type(loaded) is nbfast.SemiSupervisedNB and loaded.n_iter_ == semi.n_iter_
    np.testing.assert_array_equal(loaded.log_likelihood_, semi.log_likelihood_)
    np.testing.assert_array_equal(loaded.predict_proba(X), semi.predict_proba(X))
    assert repr(loaded.get_params()) == repr(semi.get_params())


def test_fitted_attributes_are_checked_on_load():
    X, _, y_partial = partly_labelled()
    semi = nbfast.SemiSupervisedNB(max_iter=2).fit(X, y_partial)
    for name, value, match in [("n_iter_", -1, "n_iter_"), ("n_iter_", 0, "n_iter_"), ("n_iter_", 2.0, "n_iter_"),
                               ("log_likelihood_", np.zeros(2), "log_likelihood_"),
                               ("classes_", np.array([0, 1, 2, 9]), "classes_")]:
        fitted = {attribute: getattr(semi, attribute) for attribute in semi._fitted_attributes}
        fitted[name] = value
        with pytest.raises(ValueError, match=match):
            nbfast._validation.rebuild(nbfast.SemiSupervisedNB, semi.get_params(deep=False), fitted)


def test_no_incremental_fit_and_no_merge():
    X, _, y_partial = partly_labelled()
    semi = nbfast.SemiSupervisedNB(max_iter=1).fit(X, y_partial)
    assert not hasattr(semi, "partial_fit")
    with pytest.raises(AttributeError, match="does not learn batch by batch. EM revisits every row"):
        semi.partial_fit(X, y_partial)
    with pytest.raises(TypeError, match=r"merge\(\) needs .*SemiSupervisedNB does not"):
        nbfast.merge([semi, semi])


def test_with_prior_and_clone():
    sklearn_base = pytest.importorskip("sklearn.base")
    X, _, y_partial = partly_labelled()
    semi = nbfast.SemiSupervisedNB(nbfast.MultinomialNB(alpha=0.5), unlabeled_weight=0.5).fit(X, y_partial)
    prior = np.array([0.1, 0.2, 0.3, 0.4])
    np.testing.assert_allclose(nbfast.with_prior(semi, prior).predict_proba(X),
                               nbfast.with_prior(semi.estimator_, prior).predict_proba(X), rtol=1e-12)
    copy = sklearn_base.clone(semi)
    assert copy.get_params()["estimator__alpha"] == 0.5 and copy.unlabeled_weight == 0.5
    assert not hasattr(copy, "estimator_")


def test_scikit_learn_n_iter_check():
    checks = pytest.importorskip("sklearn.utils.estimator_checks")
    checks.check_non_transformer_estimators_n_iter("SemiSupervisedNB", nbfast.SemiSupervisedNB())
