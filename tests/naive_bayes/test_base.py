"""Shared estimator plumbing: the contract, label encoding and the float32 scoring path."""

import copy
import pickle
import tracemalloc
import weakref

import numpy as np
import pytest
from support.helpers import NB_FAMILY, data_for, nb_estimator

import nbfast
from nbfast.datasets import make_documents
from nbfast.naive_bayes._labels import encode_labels, unique_classes

LINEAR_MODELS = [nbfast.MultinomialNB, nbfast.BernoulliNB, nbfast.ComplementNB, nbfast.PoissonNB]


# ------------------------------------------------------------------ the contract
def test_the_contract_is_declared_and_enforced_at_instantiation():
    from nbfast.naive_bayes import ESTIMATORS
    from nbfast.naive_bayes._base import _BaseNB, _LinearNB, _StatisticsNB

    for cls in ESTIMATORS.values():
        assert cls._linear == issubclass(cls, _LinearNB), cls.__name__
        cls()  # every hook given

    class WithoutScore(_BaseNB):
        def fit(self, X, y, sample_weight=None):
            return self

    class WithoutStatistics(_StatisticsNB):
        def _score(self, X, mode):
            return None

    class WithoutLinearTerms(_LinearNB):
        _init_stats = _accumulate = _update_params = WithoutStatistics._score

    for cls, missing in [(WithoutScore, "_score"), (WithoutStatistics, "_accumulate"),
                         (WithoutLinearTerms, "_linear_terms")]:
        with pytest.raises(TypeError, match=f"abstract .*{missing}"):
            cls()


def test_derived_tables_stay_out_of_parameters_copies_and_pickles():
    clone = pytest.importorskip("sklearn.base").clone

    X, y = make_documents(200, 80, 3, random_state=5)
    model = nbfast.MultinomialNB().fit(X, y)
    model.predict(X)  # derives the scoring table
    assert "scoring" in model._derived_tables
    assert model.get_params() == nbfast.MultinomialNB().get_params()
    assert clone(model)._derived_tables is None
    for other in (copy.deepcopy(model), pickle.loads(pickle.dumps(model))):
        assert not other._derived_tables  # each derives its own, on first use
        np.testing.assert_array_equal(other.predict_proba(X), model.predict_proba(X))
        assert other._derived_tables is not model._derived_tables


# ------------------------------------------------------------------ labels
@pytest.mark.parametrize(
    "y",
    [
        np.array([3, -128, 7, 3, 127, -128], dtype=np.int8),  # y - lowest overflows int8
        np.array([5, 0, 255, 5], dtype=np.uint8),
        np.array([2**62, 2**62 + 3, 2**62], dtype=np.int64),
        np.array([0, 10**12, 7], dtype=np.int64),  # spread too wide for a table: sorted instead
        np.array([2**64 - 1, 0, 5], dtype=np.uint64),  # beyond intp: sorted instead
        np.array([1, 2, 1], dtype=np.int32),
        np.array([True, False, True]),
        np.array(["b", "a", "b"]),
    ],
)
def test_labels_match_sorting_and_searching(y):
    classes = unique_classes(y)
    np.testing.assert_array_equal(classes, np.unique(y))
    assert classes.dtype == y.dtype
    np.testing.assert_array_equal(encode_labels(classes, y), np.searchsorted(np.unique(y), y))


def test_encode_labels_with_known_classes_wider_than_y():
    classes = np.array([-5, 0, 4, 9, 1000])
    np.testing.assert_array_equal(encode_labels(classes, np.array([4, 0, 4], dtype=np.int16)), [2, 1, 2])


@pytest.mark.parametrize("y", [np.array([1, 2, 3]), np.array([1, 2, 3]) * 10**12])
def test_encode_labels_names_unknown_labels(y):
    with pytest.raises(ValueError, match=r"label\(s\) \[3") as info:
        encode_labels(y[:2], y)
    assert "do not exist in the initial classes" in str(info.value)


@pytest.mark.parametrize("name", NB_FAMILY)
def test_partial_fit_names_unknown_labels_in_sklearns_words(name):
    # scikit-learn's GaussianNB raises "The target label(s) [2] in y do not exist in the initial classes [0 1]",
    # and its tests (and users' tests) match on those words.
    X, y = data_for(name, n_classes=3)
    with pytest.raises(ValueError, match=r"The target label\(s\) \[2\] in y do not exist in the initial classes"):
        nb_estimator(name).partial_fit(X, y, classes=[0, 1])


@pytest.mark.parametrize("name", ["MultinomialNB", "BernoulliNB", "ComplementNB", "CategoricalNB"])
def test_a_fit_that_raises_leaves_the_fitted_model_unchanged(name):
    # scikit-learn's fit sets classes_ before it checks class_prior, and its test_discretenb_provide_prior
    # relies on the classes_ a failed fit leaves behind (deselected in tests/sklearn_suite).
    model = nb_estimator(name, class_prior=[0.5, 0.5]).fit([[0], [0], [1]], [0, 0, 1])
    pickled = pickle.dumps(model)
    with pytest.raises(ValueError, match="Number of priors must match number of classes"):
        model.fit([[0], [1], [2]], [0, 1, 2])
    assert pickle.dumps(model) == pickled
    model.partial_fit([[0], [1]], [0, 1], classes=[0, 1, 1])  # the classes [0, 1] again: accepted, as by scikit-learn
    with pytest.raises(ValueError, match="is not the same as on last call to partial_fit"):
        model.partial_fit([[0], [1]], [0, 1], classes=[0, 1, 2])


# ------------------------------------------------------- float32 input
def _listed_rows_cases():
    """(name, params, X, y) of every family member, and of the paths that count rows differently: compact
    counts (a wide vocabulary over few rows) and missing values."""
    for name in NB_FAMILY:
        yield name, {}, *data_for(name)
    yield "MultinomialNB", {}, *make_documents(60, 40_000, 3, mean_length=20, random_state=0)  # compact
    X, y = data_for("BernoulliNB")
    X = X.astype(np.float64)
    X.data[::7] = np.nan
    yield "BernoulliNB", {"missing": "ignore"}, X, y


@pytest.mark.parametrize("case", list(_listed_rows_cases()), ids=lambda case: f"{case[0]}{case[1] or ''}")
def test_fitting_listed_rows_is_fitting_a_copy_of_them(case):
    """``_fit_checked`` on rows of X (counted in place where the model can) gives the model fitted on a copy of
    those rows, bit for bit."""
    name, params, X, y = case
    model = nb_estimator(name, **params)
    X = model._check_X(X, reset=True)
    classes = unique_classes(y)
    y_index = encode_labels(classes, y)
    weights = np.random.default_rng(1).uniform(0.5, 2.0, size=X.shape[0])
    rows = np.flatnonzero(np.arange(X.shape[0]) % 4 != 1)
    listed = nb_estimator(name, **params)._fit_checked(X, y_index, classes, weights, rows=rows)
    copied = nb_estimator(name, **params)._fit_checked(X[rows], y_index[rows], classes, weights[rows])
    for attribute in type(copied)._saved_attributes(copied):
        got, want = getattr(listed, attribute), getattr(copied, attribute)
        for g, w in zip(*(v if isinstance(v, (list, tuple)) else [v] for v in (got, want))):  # arrays, or lists
            np.testing.assert_array_equal(np.asarray(g), np.asarray(w), err_msg=attribute)
    np.testing.assert_array_equal(listed.predict_proba(X), copied.predict_proba(X))


@pytest.mark.parametrize("cls", LINEAR_MODELS, ids=lambda c: c.__name__)
def test_float32_input_scores_like_float64(cls):
    # counts are exact in float32: the same values, scored with the same float64 table, give the same results
    X, y = make_documents(400, 200, 7, mean_length=40, class_separation=0.3, random_state=2)
    model = cls().fit(X, y)
    X32 = X.astype(np.float32)
    for method in ("predict_proba", "predict_log_proba", "predict_joint_log_proba", "predict"):
        np.testing.assert_array_equal(getattr(model, method)(X32), getattr(model, method)(X), err_msg=method)
    jll = model.predict_joint_log_proba(X)
    np.testing.assert_array_equal(model.predict(X32), model.classes_[jll.argmax(axis=1)])


def test_derived_tables_follow_the_model():
    X, y = make_documents(300, 120, 4, mean_length=30, class_separation=0.3, random_state=3)
    model = nbfast.MultinomialNB().partial_fit(X[:100], y[:100], classes=np.arange(4))
    model.predict_proba(X)  # builds the scoring table of the first batch
    first_table = weakref.ref(model._log_prob_table)
    model.partial_fit(X[100:], y[100:])
    assert first_table() is None  # the cache does not keep a replaced table alive
    refitted = nbfast.MultinomialNB().fit(X, y)
    np.testing.assert_allclose(model.predict_proba(X), refitted.predict_proba(X), rtol=1e-12, atol=1e-15)
    model.feature_log_prob_ = np.log(np.full((4, 120), 1 / 120))  # a uniform model: the prior decides
    np.testing.assert_allclose(model.predict_proba(X), np.exp(model.class_log_prior_)[None].repeat(300, 0), rtol=1e-12)


def test_infinite_tables_score_float32_input_as_float64():
    X, y = make_documents(200, 80, 3, mean_length=20, random_state=4)
    model = nbfast.MultinomialNB(alpha=0.0).fit(X, y)  # unseen (class, feature) pairs: log 0 = -inf
    assert np.isinf(model.feature_log_prob_).any()
    X32 = X.astype(np.float32)
    np.testing.assert_array_equal(model.predict_proba(X32), model.predict_proba(X))


def test_predicting_leaves_the_model_and_its_pickle_unchanged():
    X, y = make_documents(200, 80, 3, random_state=5)
    model = nbfast.MultinomialNB().fit(X, y)
    state, pickled = dict(vars(model)), pickle.dumps(model)
    model.predict(X.astype(np.float32))  # builds and caches its derived tables
    assert vars(model).keys() == state.keys() and pickle.dumps(model) == pickled
    restored = pickle.loads(pickled)
    np.testing.assert_array_equal(restored.predict_proba(X.astype(np.float32)), model.predict_proba(X.astype(np.float32)))


# ------------------------------------------------------------------ threads
@pytest.mark.parametrize("name", NB_FAMILY)
def test_float32_posteriors_are_bit_identical_for_any_thread_count(name, n_threads_limit):
    from nbfast._kernels.threads import effective_n_threads, openmp_enabled

    X, y = data_for(name, n_samples=600, n_features=40, n_classes=7, seed=3)
    X = X.astype(np.float32)
    model = getattr(nbfast, name)().fit(X, y)
    results = {}
    for n_threads in (1, 2, 3, 4):
        with n_threads_limit(n_threads):
            assert effective_n_threads(X.size) == (n_threads if openmp_enabled() else 1)
            results[n_threads] = (model.predict_proba(X), model.predict_log_proba(X), model.predict(X))
    for n_threads in (2, 3, 4):
        for one, many in zip(results[1], results[n_threads]):
            np.testing.assert_array_equal(one, many, err_msg=f"{n_threads} threads")


# ------------------------------------------------------------------ memory
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("name", NB_FAMILY)
def test_predict_does_not_allocate_an_n_samples_by_n_classes_array(name, dtype):
    n_samples, n_classes = 4000, 500
    X, y = data_for(name, n_samples=n_samples, n_features=10, n_classes=n_classes)
    X = X.astype(dtype)
    model = getattr(nbfast, name)().fit(X, y)
    expected = model.predict(X[:10])  # builds what the model caches (its scoring table)
    tracemalloc.start()
    try:
        labels = model.predict(X)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    np.testing.assert_array_equal(labels[:10], expected)
    # Not even a bool (n_samples, n_classes) array: the labels and O(nnz) work only.
    assert peak < n_samples * n_classes, f"predict allocated {peak} bytes at its peak"
