"""from_sklearn / to_sklearn for every estimator nbfast shares with scikit-learn."""

import numpy as np
import pytest
from support.helpers import data_for, exported, labels_of_kind

import nbfast
from nbfast import _compat

sk_nb = pytest.importorskip("sklearn.naive_bayes")

SHARED = exported(["MultinomialNB", "BernoulliNB", "ComplementNB", "CategoricalNB", "GaussianNB"])
PAIRS = [pytest.param(getattr(nbfast, name), getattr(sk_nb, name), id=name) for name in SHARED]
LABELS = ["int", "str"]


def _data(name, labels):
    X, y = data_for(name)
    return X, labels_of_kind(y, labels)


def assert_same_attributes(a, b, names):
    for name in names:
        x, z = getattr(a, name), getattr(b, name)
        x, z = (x, z) if isinstance(x, list) else ([x], [z])
        for u, v in zip(x, z, strict=True):
            np.testing.assert_array_equal(u, v, err_msg=name)
            assert np.asarray(u).dtype == np.asarray(v).dtype, name
            assert not (isinstance(u, np.ndarray) and np.shares_memory(u, v)), f"{name} is shared, not copied"


@pytest.mark.parametrize("labels", LABELS)
@pytest.mark.parametrize("nb_cls, sk_cls", PAIRS)
def test_from_sklearn_predicts_the_same(nb_cls, sk_cls, labels):
    X, y = _data(sk_cls.__name__, labels)
    sk_model = sk_cls().fit(X, y)
    model = nbfast.from_sklearn(sk_model)
    assert type(model) is nb_cls
    ours, theirs = model.get_params(), sk_model.get_params()
    assert repr({k: ours[k] for k in theirs}) == repr(theirs)
    defaults = nb_cls().get_params()
    assert all(repr(ours[k]) == repr(defaults[k]) for k in ours.keys() - theirs.keys())  # nbfast-only: defaults
    assert_same_attributes(model, sk_model, nb_cls._fitted_attributes)
    np.testing.assert_array_equal(model.predict(X), sk_model.predict(X))
    np.testing.assert_allclose(model.predict_proba(X), sk_model.predict_proba(X), rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("labels", LABELS)
@pytest.mark.parametrize("nb_cls, sk_cls", PAIRS)
def test_to_sklearn_predicts_the_same(nb_cls, sk_cls, labels):
    X, y = _data(sk_cls.__name__, labels)
    model = nb_cls().fit(X, y)
    sk_model = model.to_sklearn()
    assert type(sk_model) is sk_cls
    assert_same_attributes(sk_model, model, nb_cls._fitted_attributes)
    np.testing.assert_array_equal(sk_model.predict(X), model.predict(X))
    np.testing.assert_allclose(sk_model.predict_proba(X), model.predict_proba(X), rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("labels", LABELS)
@pytest.mark.parametrize("nb_cls, sk_cls", PAIRS)
def test_round_trip_through_sklearn_is_bit_identical(nb_cls, sk_cls, labels):
    X, y = _data(sk_cls.__name__, labels)
    model = nb_cls().fit(X, y)
    back = nbfast.from_sklearn(model.to_sklearn())
    assert_same_attributes(back, model, nb_cls._fitted_attributes)
    for method in ("predict", "predict_proba", "predict_joint_log_proba"):
        np.testing.assert_array_equal(getattr(back, method)(X), getattr(model, method)(X), err_msg=method)


def test_parameters_and_feature_names_carry_over():
    pd = pytest.importorskip("pandas")
    X, y = _data("MultinomialNB", "str")
    frame = pd.DataFrame(X.toarray(), columns=[f"w{i}" for i in range(X.shape[1])])
    params = {"alpha": np.linspace(0.5, 1.0, X.shape[1]), "fit_prior": False, "class_prior": [0.1, 0.2, 0.7]}
    sk_model = sk_nb.MultinomialNB(**params).fit(frame, y)
    model = nbfast.from_sklearn(sk_model)
    np.testing.assert_array_equal(model.alpha, params["alpha"])
    assert model.alpha is not sk_model.alpha and model.class_prior == params["class_prior"]
    np.testing.assert_array_equal(model.feature_names_in_, sk_model.feature_names_in_)
    np.testing.assert_array_equal(model.predict(frame), sk_model.predict(frame))
    back = model.to_sklearn()
    np.testing.assert_array_equal(back.feature_names_in_, sk_model.feature_names_in_)
    np.testing.assert_array_equal(back.predict(frame), sk_model.predict(frame))


def test_converted_model_keeps_learning_like_sklearn():
    X, y = _data("BernoulliNB", "int")
    sk_model = sk_nb.BernoulliNB().partial_fit(X[:60], y[:60], classes=[0, 1, 2])
    model = nbfast.from_sklearn(sk_model)
    sk_model.partial_fit(X[60:], y[60:])
    model.partial_fit(X[60:], y[60:])
    np.testing.assert_allclose(model.feature_count_, sk_model.feature_count_)
    np.testing.assert_array_equal(model.predict(X), sk_model.predict(X))


def test_refusals():
    with pytest.raises(_compat.NotFittedError):
        nbfast.from_sklearn(sk_nb.MultinomialNB())
    with pytest.raises(_compat.NotFittedError):
        nbfast.MultinomialNB().to_sklearn()
    linear_model = pytest.importorskip("sklearn.linear_model")
    with pytest.raises(TypeError, match="expects an estimator from sklearn.naive_bayes"):
        nbfast.from_sklearn(linear_model.LogisticRegression())

    class Custom(sk_nb.MultinomialNB):
        pass

    X, y = _data("MultinomialNB", "int")
    with pytest.raises(TypeError, match="expects an estimator from sklearn.naive_bayes"):
        nbfast.from_sklearn(Custom().fit(X, y))


def test_inconsistent_sklearn_model_is_refused():
    X, y = _data("MultinomialNB", "int")
    sk_model = sk_nb.MultinomialNB().fit(X, y)
    sk_model.class_log_prior_ = sk_model.class_log_prior_[:2]
    with pytest.raises(ValueError, match=r"class_log_prior_ has shape \(2,\)"):
        nbfast.from_sklearn(sk_model)
