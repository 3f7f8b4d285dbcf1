"""nbfast.merge: models fitted on disjoint shards merge into the model of their union."""

import copy
import warnings

import numpy as np
import pytest
from support.helpers import exported

import nbfast
from nbfast.datasets import make_documents
from nbfast.merge import merge

# Every estimator merge() combines.
ESTIMATOR_NAMES = exported(["MultinomialNB", "BernoulliNB", "ComplementNB", "PoissonNB", "CategoricalNB", "GaussianNB"])


@pytest.fixture(params=ESTIMATOR_NAMES)
def estimator_class(request):
    return getattr(nbfast, request.param)


def shard_data(n_samples=240, n_features=40, n_classes=4, seed=0):
    X, y = make_documents(n_samples, n_features, n_classes, mean_length=20, class_separation=0.4, random_state=seed)
    return X.toarray(), y


def fitted_values(model):
    return {name: getattr(model, name) for name in type(model)._fitted_attributes}


def assert_models_equal(merged, expected, X_test):
    assert type(merged) is type(expected)
    for name, value in fitted_values(expected).items():
        got = getattr(merged, name)
        if isinstance(value, (list, tuple)):
            assert len(got) == len(value), name
            for g, v in zip(got, value):
                np.testing.assert_allclose(g, v, rtol=1e-12, atol=1e-12, err_msg=name)
        elif np.asarray(value).dtype.kind in "fiu":
            np.testing.assert_allclose(got, value, rtol=1e-12, atol=1e-12, err_msg=name)
        else:
            np.testing.assert_array_equal(got, value, err_msg=name)
    np.testing.assert_allclose(merged.predict_proba(X_test), expected.predict_proba(X_test), rtol=1e-12, atol=1e-12)
    np.testing.assert_array_equal(merged.predict(X_test), expected.predict(X_test))


def fit_shards(estimator_class, X, y, bounds, sample_weight=None, **params):
    classes = np.unique(y)
    models = []
    for start, stop in zip(bounds[:-1], bounds[1:]):
        weight = None if sample_weight is None else sample_weight[start:stop]
        models.append(estimator_class(**params).partial_fit(X[start:stop], y[start:stop], classes=classes,
                                                             sample_weight=weight))
    return models


@pytest.mark.parametrize("bounds", [[0, 240], [0, 100, 240], [0, 30, 31, 150, 240]], ids=["1", "2", "4"])
def test_merge_equals_fit_on_union(estimator_class, bounds):
    X, y = shard_data()
    models = fit_shards(estimator_class, X, y, bounds)
    expected = estimator_class().fit(X, y)
    assert_models_equal(merge(models), expected, X[:50])


def test_merge_with_sample_weight_and_string_labels(estimator_class):
    X, y = shard_data(seed=3)
    labels = np.array(["ant", "bee", "cat", "dog"])[y]
    weight = np.random.default_rng(0).uniform(0.1, 3.0, size=len(y))
    models = fit_shards(estimator_class, X, labels, [0, 70, 160, 240], sample_weight=weight)
    expected = estimator_class().fit(X, labels, sample_weight=weight)
    merged = merge(models)
    assert merged.classes_.tolist() == ["ant", "bee", "cat", "dog"]
    assert_models_equal(merged, expected, X[:50])


def test_merge_shard_missing_a_class(estimator_class):
    X, y = shard_data(seed=5)
    order = np.argsort(y, kind="stable")  # the first shard holds classes 0 and 1 only
    X, y = X[order], y[order]
    models = fit_shards(estimator_class, X, y, [0, 100, 240])
    assert len(np.unique(y[:100])) < 4
    assert_models_equal(merge(models), estimator_class().fit(X, y), X[::7])


@pytest.mark.parametrize("name", exported(["MultinomialNB", "BernoulliNB", "ComplementNB", "PoissonNB"]))
def test_merge_sparse_shards_with_parameters(name):
    X, y = make_documents(300, 60, 3, mean_length=15, class_separation=0.4, random_state=1)
    estimator_class = getattr(nbfast, name)
    params = {"alpha": 0.3}
    models = fit_shards(estimator_class, X, y, [0, 120, 300], **params)
    assert_models_equal(merge(models), estimator_class(**params).fit(X, y), X[:40])


def test_merge_does_not_modify_inputs():
    X, y = shard_data()
    models = fit_shards(nbfast.MultinomialNB, X, y, [0, 100, 240])
    before = [m.feature_count_.copy() for m in models]
    merged = merge(models)
    for model, counts in zip(models, before):
        np.testing.assert_array_equal(model.feature_count_, counts)
    merged.partial_fit(X[:5], y[:5])  # the merged model keeps learning; its inputs do not change
    np.testing.assert_array_equal(models[0].feature_count_, before[0])


def test_merge_uses_the_estimator_hook():
    calls = []

    class DoubledNB(nbfast.MultinomialNB):
        @classmethod
        def _merge_stats(cls, models):
            calls.append(len(models))
            stats = super()._merge_stats(models)
            stats["class_count_"] = 2 * stats["class_count_"]
            return stats

    X, y = shard_data()
    models = fit_shards(DoubledNB, X, y, [0, 100, 240])
    merged = merge(models)
    assert calls == [2]
    np.testing.assert_allclose(merged.class_count_, 2 * np.bincount(y))


def test_merge_delegates_to_a_whole_model_hook():
    class OwnMergeNB(nbfast.MultinomialNB):
        @classmethod
        def _merge(cls, models):
            return ("merged by the estimator", len(models))

    X, y = shard_data()
    models = fit_shards(OwnMergeNB, X, y, [0, 100, 240])
    assert merge(models) == ("merged by the estimator", 2)
    with pytest.raises(ValueError, match="different kinds"):  # the hook is used only when all models are its kind
        merge([models[0], nbfast.MultinomialNB().fit(X, y)])


def test_merge_errors():
    X, y = shard_data()
    a, b = fit_shards(nbfast.MultinomialNB, X, y, [0, 100, 240])
    with pytest.raises(ValueError, match="at least one model"):
        merge([])
    with pytest.raises(ValueError, match="different kinds"):
        merge([a, nbfast.BernoulliNB().fit(X, y)])
    with pytest.raises(ValueError, match=r"different parameters.*alpha=1.0 vs 0.5"):
        merge([a, nbfast.MultinomialNB(alpha=0.5).fit(X, y)])
    with pytest.raises(ValueError, match="different parameters.*class_prior"):
        merge([a, nbfast.MultinomialNB(class_prior=[0.25] * 4).fit(X, y)])
    with pytest.raises(ValueError, match="different classes_"):
        merge([a, nbfast.MultinomialNB().fit(X[y < 3], y[y < 3])])
    with pytest.raises(ValueError, match="different numbers of features"):
        merge([a, nbfast.MultinomialNB().fit(X[:, :10], y)])
    with pytest.raises(nbfast._compat.NotFittedError):
        merge([a, nbfast.MultinomialNB()])
    with pytest.raises(TypeError, match="model 1 is a str"):
        merge([a, "model"])
    merge([a, b])  # the shards themselves are compatible
    c = nbfast.MultinomialNB(alpha=1).partial_fit(X, y, classes=np.unique(y))
    merge([a, c])  # alpha=1 and alpha=1.0 are the same parameter


def _mixed(**params):
    return nbfast.MixedNB([("counts", nbfast.MultinomialNB(alpha=0.5), slice(0, 20)),
                           ("normal", nbfast.GaussianNB(), slice(20, None))], **params)


@pytest.mark.parametrize("make", [_mixed, nbfast.MixedNB], ids=["parts", "default"])
def test_merge_of_mixed_models_equals_fit_on_union(make):
    X, y = shard_data()
    classes = np.unique(y)
    shards = [make().partial_fit(X[a:b], y[a:b], classes=classes) for a, b in ((0, 100), (100, 240))]
    merged = merge(shards)
    expected = make().fit(X, y)
    np.testing.assert_allclose(merged.class_count_, expected.class_count_)
    np.testing.assert_allclose(merged.class_log_prior_, expected.class_log_prior_, rtol=1e-12)
    np.testing.assert_allclose(merged.predict_joint_log_proba(X), expected.predict_joint_log_proba(X), rtol=1e-9)
    np.testing.assert_array_equal(merged.predict(X), expected.predict(X))


def test_merge_of_two_identical_mixed_models_counts_the_data_twice():
    X, y = shard_data()
    model = _mixed().fit(X, y)
    merged = merge([model, copy.deepcopy(model)])
    twice = _mixed().fit(np.vstack([X, X]), np.concatenate([y, y]))
    np.testing.assert_allclose(merged.class_count_, twice.class_count_)
    np.testing.assert_allclose(merged.predict_proba(X), twice.predict_proba(X), rtol=1e-9, atol=1e-12)


def test_merge_of_mixed_models_with_different_parts_is_refused():
    X, y = shard_data()
    a = _mixed().fit(X, y)
    b = nbfast.MixedNB([("counts", nbfast.MultinomialNB(alpha=1.0), slice(0, 20)),
                        ("normal", nbfast.GaussianNB(), slice(20, None))]).fit(X, y)
    with pytest.raises(ValueError, match="different parameters"):
        merge([a, b])


@pytest.mark.parametrize("make", [nbfast.MultinomialNB, nbfast.BernoulliNB, nbfast.CategoricalNB, nbfast.GaussianNB,
                                  nbfast.PoissonNB, _mixed])
def test_merged_statistics_that_overflow_are_refused(make):
    """Each model's statistics are finite, their sum is not: refused as fit refuses it, without a warning."""
    X, y = shard_data()
    X = np.minimum(X, 1.0)  # small values: the class counts overflow first
    model = make().fit(X, y, sample_weight=np.full(len(y), 1e303))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.raises(ValueError, match="the model's statistics overflow float64"):
            merge([model] * 1000)
