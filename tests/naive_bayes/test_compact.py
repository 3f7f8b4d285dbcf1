"""The compact representation of the count models against the dense one: same labels, probabilities within 1e-12."""

import contextlib
import pickle

import numpy as np
import pytest

import nbfast
from nbfast.datasets import make_documents
from nbfast.naive_bayes import _counts
from nbfast.naive_bayes._calibrated import other_folds_model, out_of_fold_jll
from nbfast.naive_bayes._counts import SparseCounts
from nbfast.naive_bayes._tables import CompactTable

sk_nb = pytest.importorskip("sklearn.naive_bayes")

NAMES = ["MultinomialNB", "BernoulliNB", "ComplementNB", "PoissonNB"]
#: Parameter sets of every estimator that has compact tables.
PARAMS = {
    "MultinomialNB": [{}, {"alpha": 0.01, "fit_prior": False}, {"alpha": "per-feature"}],
    "BernoulliNB": [{}, {"alpha": 0.3, "binarize": 1.5}, {"binarize": None}],
    "ComplementNB": [{}, {"norm": True}, {"alpha": "per-feature"}],
    "PoissonNB": [{}, {"alpha": 0.5, "beta": 3.0}, {"alpha": "per-feature"}],
}
CASES = [(name, i) for name, sets in PARAMS.items() for i in range(len(sets))]
TOLERANCE = 1e-12


@contextlib.contextmanager
def represented(kind):
    """Count models fitted inside choose this representation ("compact", "dense" or "auto")."""
    previous = _counts.REPRESENTATION
    _counts.REPRESENTATION = kind
    try:
        yield
    finally:
        _counts.REPRESENTATION = previous


def params_for(name, index, n_features):
    params = dict(PARAMS[name][index])
    if params.get("alpha") == "per-feature":
        params["alpha"] = np.linspace(0.1, 2.0, n_features)
    return params


@pytest.fixture(scope="module")
def corpus():
    """A sparse corpus: 2,000 features and 7 classes, about 13 nonzeros a document."""
    X, y = make_documents(900, 2_000, 7, mean_length=15, class_separation=0.3, random_state=4)
    return X[:600], y[:600], X[600:]


def inputs_for(name, index, corpus):
    """The corpus, binary for BernoulliNB(binarize=None) (which refuses counts above 1)."""
    X, y, X_test = corpus
    if PARAMS[name][index].get("binarize", 0.0) is None:
        X, X_test = X.minimum(1), X_test.minimum(1)
    return X, y, X_test


def fit_both(name, params, X, y, **fit_params):
    models = {}
    for kind in ("compact", "dense"):
        with represented(kind):
            models[kind] = getattr(nbfast, name)(**params).fit(X, y, **fit_params)
    return models["compact"], models["dense"]


def assert_same_predictions(compact, dense, X, tolerance=TOLERANCE, reference=None):
    """Same labels, and probabilities within ``tolerance``, of ``compact`` on X and ``dense`` on ``reference``."""
    reference = X if reference is None else reference
    np.testing.assert_array_equal(compact.predict(X), dense.predict(reference))
    np.testing.assert_allclose(compact.predict_proba(X), dense.predict_proba(reference), rtol=0, atol=tolerance)
    np.testing.assert_allclose(compact.predict_log_proba(X), dense.predict_log_proba(reference), rtol=tolerance,
                               atol=tolerance)
    np.testing.assert_allclose(compact.predict_joint_log_proba(X), dense.predict_joint_log_proba(reference),
                               rtol=tolerance, atol=0)


# ------------------------------------------------------------------ compact = dense
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("name, index", CASES)
def test_compact_matches_dense(name, index, dtype, corpus):
    X, y, X_test = inputs_for(name, index, corpus)
    params = params_for(name, index, X.shape[1])
    compact, dense = fit_both(name, params, X.astype(dtype), y)
    assert compact._is_compact() and not dense._is_compact()
    assert_same_predictions(compact, dense, X_test)
    # float32 input: both score it with their float64 tables
    X32 = X_test.astype(np.float32)
    assert_same_predictions(compact, dense, X32, reference=X_test)
    np.testing.assert_array_equal(compact.predict(X32), dense.predict(X32))
    # the scikit-learn attributes, materialized, are the dense model's
    for attribute in getattr(nbfast, name)._fitted_attributes:
        np.testing.assert_array_equal(getattr(compact, attribute), getattr(dense, attribute), err_msg=attribute)


@pytest.mark.parametrize("name, index", CASES)
def test_sample_weights(name, index, corpus):
    X, y, X_test = inputs_for(name, index, corpus)
    weight = np.random.default_rng(3).uniform(0, 3, size=X.shape[0])
    compact, dense = fit_both(name, params_for(name, index, X.shape[1]), X, y, sample_weight=weight)
    np.testing.assert_array_equal(compact.feature_count_, dense.feature_count_)  # same sums, same order
    assert_same_predictions(compact, dense, X_test)


@pytest.mark.parametrize("name", ["MultinomialNB", "BernoulliNB", "ComplementNB"])
def test_matches_scikit_learn(name, corpus):
    X, y, X_test = corpus
    with represented("compact"):
        ours = getattr(nbfast, name)(alpha=0.5).fit(X, y)
    theirs = getattr(sk_nb, name)(alpha=0.5).fit(X, y)
    assert ours._is_compact()
    np.testing.assert_array_equal(ours.predict(X_test), theirs.predict(X_test))
    np.testing.assert_allclose(ours.predict_proba(X_test), theirs.predict_proba(X_test), rtol=0, atol=TOLERANCE)
    np.testing.assert_allclose(ours.feature_log_prob_, theirs.feature_log_prob_, rtol=1e-13)


@pytest.mark.parametrize("name", NAMES)
def test_partial_fit_sequences(name, corpus):
    X, y, X_test = corpus
    weight = np.random.default_rng(5).uniform(0.5, 2, size=X.shape[0])
    bounds = [0, 1, 90, 400, 600]
    models = {}
    for kind in ("compact", "dense"):
        with represented(kind):
            model = getattr(nbfast, name)()
            for start, stop in zip(bounds[:-1], bounds[1:]):
                model.partial_fit(X[start:stop], y[start:stop], classes=np.arange(7), sample_weight=weight[start:stop])
                models.setdefault(kind, []).append(model.predict_proba(X_test))
            assert model._is_compact() == (kind == "compact")
            models[kind].append(model)
    compact, dense = models["compact"].pop(), models["dense"].pop()
    for a, b in zip(models["compact"], models["dense"]):  # after every batch
        np.testing.assert_allclose(a, b, rtol=0, atol=TOLERANCE)
    np.testing.assert_array_equal(compact.feature_count_, dense.feature_count_)
    assert_same_predictions(compact, dense, X_test)
    with represented("compact"):
        whole = getattr(nbfast, name)().fit(X, y, sample_weight=weight)
    assert_same_predictions(compact, whole, X_test)


def test_partial_fit_defers_the_tables(corpus):
    X, y, X_test = corpus
    with represented("compact"):
        model = nbfast.MultinomialNB().partial_fit(X[:300], y[:300], classes=np.arange(7))
        state = dict(vars(model))
        model.partial_fit(X[300:], y[300:])
    assert not model._derived_tables  # nothing is built until the model is used
    assert vars(model).keys() == state.keys()
    model.predict(X_test)
    assert isinstance(model._derived_tables["scoring"][0], CompactTable)


def test_growing_statistics_turn_dense(corpus):
    """In "auto", a model whose statistics fill up continues densely, with the same results."""
    X, y, X_test = corpus
    with represented("auto"):
        model = nbfast.MultinomialNB().partial_fit(X[:5], y[:5], classes=np.arange(7))
        assert model._is_compact()
        model.partial_fit(X[5:], y[5:])
        assert not model._is_compact()
    with represented("compact"):
        compact = nbfast.MultinomialNB().fit(X, y)
    np.testing.assert_array_equal(model.feature_count_, compact.feature_count_)
    assert_same_predictions(compact, model, X_test)


def test_automatic_choice():
    sparse_X, sparse_y = make_documents(300, 2**14, 5, mean_length=20, random_state=1)
    dense_X, dense_y = make_documents(300, 100, 5, mean_length=20, random_state=1)
    for name in NAMES:
        assert getattr(nbfast, name)().fit(sparse_X, sparse_y)._is_compact(), name
        assert not getattr(nbfast, name)().fit(dense_X, dense_y)._is_compact(), name


def test_configurations_without_compact_tables_stay_dense(corpus):
    X, y, _ = corpus
    with represented("compact"), np.errstate(all="ignore"):
        assert not nbfast.BernoulliNB(alpha=np.full(X.shape[1], 0.5)).fit(X, y)._is_compact()
        for name in NAMES:  # alpha = 0 has log(0) entries
            assert not getattr(nbfast, name)(alpha=0.0).fit(X, y)._is_compact(), name


# ------------------------------------------------------------------------ threads
@pytest.mark.parametrize("name", NAMES)
def test_bit_identical_for_any_thread_count(name, corpus, n_threads_limit):
    X, y, X_test = corpus
    results = []
    for n in (1, 2):
        with n_threads_limit(n), represented("compact"):
            model = getattr(nbfast, name)().partial_fit(X[:200], y[:200], classes=np.arange(7))
            model.partial_fit(X[200:], y[200:])
            results.append((model._sparse_feature_count, model.predict_proba(X_test), model.predict(X_test),
                            model.predict_joint_log_proba(X_test.astype(np.float32))))
    for a, b in zip(*results):
        for u, v in zip(a if isinstance(a, tuple) else [a], b if isinstance(b, tuple) else [b]):
            np.testing.assert_array_equal(u, v)


# ----------------------------------------------------- operations on fitted models
@pytest.mark.parametrize("name", NAMES)
def test_merge(name, corpus):
    X, y, X_test = corpus
    bounds = [0, 150, 151, 600]
    merged = {}
    for kind in ("compact", "dense"):
        with represented(kind):
            shards = [getattr(nbfast, name)().partial_fit(X[a:b], y[a:b], classes=np.arange(7))
                      for a, b in zip(bounds[:-1], bounds[1:])]
            merged[kind] = nbfast.merge(shards)
        assert merged[kind]._is_compact() == (kind == "compact")
    mixed = nbfast.merge([shards[0], fit_both(name, {}, X[150:], y[150:])[0]])  # a dense and a compact shard
    np.testing.assert_array_equal(merged["compact"].feature_count_, merged["dense"].feature_count_)
    assert_same_predictions(merged["compact"], merged["dense"], X_test)
    assert_same_predictions(mixed, merged["dense"], X_test)


@pytest.mark.parametrize("name", ["MultinomialNB", "BernoulliNB", "ComplementNB"])
def test_scikit_learn_interop(name, corpus):
    X, y, X_test = corpus
    compact, dense = fit_both(name, {}, X, y)
    theirs = compact.to_sklearn()
    np.testing.assert_array_equal(theirs.feature_count_, dense.feature_count_)
    np.testing.assert_array_equal(theirs.predict(X_test), dense.predict(X_test))
    back = nbfast.from_sklearn(theirs)
    assert_same_predictions(compact, back, X_test)


@pytest.mark.parametrize("name", NAMES)
def test_to_linear(name, corpus):
    X, y, X_test = corpus
    compact, dense = fit_both(name, {}, X, y)
    for ours, theirs in zip(compact.to_linear(), dense.to_linear()):
        np.testing.assert_allclose(ours, theirs, rtol=TOLERANCE, atol=TOLERANCE)


@pytest.mark.parametrize("name", NAMES)
def test_pickle_and_attributes(name, corpus):
    X, y, X_test = corpus
    compact, dense = fit_both(name, {}, X, y)
    restored = pickle.loads(pickle.dumps(compact))
    assert restored._is_compact()
    np.testing.assert_array_equal(restored.predict_proba(X_test), compact.predict_proba(X_test))
    # materialized on access, read-only, and never stored
    assert compact.feature_count_.shape == (7, X.shape[1]) and not compact.feature_count_.flags.writeable
    assert compact.feature_log_prob_.shape == (7, X.shape[1])
    assert not any(isinstance(v, np.ndarray) and v.size >= 7 * X.shape[1] for v in vars(compact).values())
    # assigning a table by hand makes the model dense, as it would be in scikit-learn
    compact.feature_log_prob_ = dense.feature_log_prob_
    assert not compact._is_compact()
    assert_same_predictions(compact, dense, X_test)


@pytest.mark.parametrize("name", NAMES + ["CategoricalNB"])
def test_class_count_assigned_as_a_list(name, corpus):
    """class_count_ assigned by hand as a list is read as an array by both representations' tables."""
    X, y, X_test = corpus
    X, X_test = (X.minimum(3), X_test.minimum(3)) if name == "CategoricalNB" else (X, X_test)
    for model in fit_both(name, {}, X, y):
        expected = model.predict_proba(X_test)
        model.class_count_ = model.class_count_.tolist()
        model._forget_derived()  # the tables derived again, from the statistics as assigned
        np.testing.assert_allclose(model.predict_proba(X_test), expected, rtol=0, atol=1e-15)


@pytest.mark.parametrize("name", NAMES)
def test_out_of_fold_scores_subtract_compact_statistics(name, corpus):
    """Calibration's model of the other folds: the full statistics minus a fold's, compact as well."""
    X, y, X_test = corpus
    fold = np.arange(X.shape[0]) % 3 == 0
    others = {}
    for kind in ("compact", "dense"):
        with represented(kind):
            estimator = getattr(nbfast, name)()
            full = estimator.fit(X, y)
            part = getattr(nbfast, name)().partial_fit(X[fold], y[fold], classes=full.classes_)
            others[kind] = other_folds_model(full, [part], 0)
        assert others[kind]._is_compact() == (kind == "compact")
    np.testing.assert_array_equal(others["compact"].feature_count_, others["dense"].feature_count_)
    assert_same_predictions(others["compact"], others["dense"], X_test)
    with represented("compact"):
        _, jll = out_of_fold_jll(getattr(nbfast, name)(), X, y, 3)
    with represented("dense"):
        _, expected = out_of_fold_jll(getattr(nbfast, name)(), X, y, 3)
    np.testing.assert_allclose(jll, expected, rtol=TOLERANCE, atol=0)


@pytest.mark.parametrize("name", NAMES)
def test_semi_supervised_em_from_a_compact_model(name, corpus):
    """EM's first model (the labelled rows) is compact; soft labels reach every class, so the M-steps are dense."""
    X, y, X_test = corpus
    y_partial = np.where(np.arange(X.shape[0]) % 4 == 0, y, -1)
    models = {}
    for kind in ("compact", "dense"):
        with represented(kind):
            models[kind] = nbfast.SemiSupervisedNB(getattr(nbfast, name)(), max_iter=3).fit(X, y_partial)
    np.testing.assert_allclose(models["compact"].log_likelihood_, models["dense"].log_likelihood_, rtol=TOLERANCE)
    assert_same_predictions(models["compact"], models["dense"], X_test)


def assert_same_top_features(ours, theirs):
    np.testing.assert_array_equal(ours.features, theirs.features)
    np.testing.assert_array_equal(ours.categories, theirs.categories)
    np.testing.assert_allclose(ours.scores, theirs.scores, rtol=TOLERANCE, atol=TOLERANCE)


@pytest.mark.parametrize("name", NAMES)
def test_explain_and_top_features(name, corpus):
    X, y, X_test = corpus
    compact, dense = fit_both(name, {}, X, y)
    ours, theirs = nbfast.explain(compact, X_test[:20]), nbfast.explain(dense, X_test[:20])
    np.testing.assert_allclose(ours.terms.toarray(), theirs.terms.toarray(), rtol=TOLERANCE, atol=TOLERANCE)
    assert_same_top_features(nbfast.top_features(compact, n=5), nbfast.top_features(dense, n=5))


# ------------------------------------------------------------------ the structures
def test_sparse_counts_round_trip():
    rng = np.random.default_rng(0)
    dense = rng.integers(0, 3, size=(5, 40)) * rng.uniform(size=(5, 40))
    counts = SparseCounts.from_dense(dense)
    np.testing.assert_array_equal(counts.toarray(), dense)
    checked = SparseCounts.from_arrays(counts.arrays(), 5, 40)
    np.testing.assert_array_equal(checked.toarray(), dense)
    np.testing.assert_array_equal(SparseCounts.sum([counts, counts, checked]).toarray(), dense + dense + dense)
    np.testing.assert_allclose(counts.class_totals(), dense.sum(axis=1), rtol=1e-15)
    np.testing.assert_array_equal(counts.feature_totals(), dense.sum(axis=0))


@pytest.mark.parametrize(
    "edit, message",
    [
        (lambda p, c, v: (p[:-1], c, v), "indptr of shape"),
        (lambda p, c, v: (p, c + 5, v), "outside"),
        (lambda p, c, v: (p, c[::-1].copy(), v), "increasing"),
        (lambda p, c, v: (p[::-1].copy(), c, v), "rise"),
        (lambda p, c, v: (p, c, v[:-1]), "indptr of shape"),
        (lambda p, c, v: (p, c.astype(float), v), "integer"),
    ],
)
def test_sparse_counts_are_checked(edit, message):
    counts = SparseCounts.from_dense(np.arange(40.0).reshape(5, 8) % 3)
    with pytest.raises(ValueError, match=message):
        SparseCounts.from_arrays(edit(*counts.arrays()), 5, 8)


def test_compact_table_toarray():
    counts = SparseCounts.from_dense(np.array([[1.0, 0, 2], [0, 0, 3]]))
    table = CompactTable(counts.indptr, counts.classes, np.array([1.0, 2.0, 3.0]), np.array([-1.0, -2.0]),
                         np.array([2.0, 1.0]), np.array([0.5, 0.0, 1.0]))
    expected = np.array([[-1.0 + 1.0 + 1.0, -2.0 + 0.5], [-1.0, -2.0], [-1.0 + 2.0 + 2.0, -2.0 + 1.0 + 3.0]])
    np.testing.assert_array_equal(table.toarray(), expected)


@pytest.mark.parametrize("name", NAMES)
def test_many_small_batches_are_deferred(name, corpus, tmp_path):
    """Small batches wait (pending) and are added together, in order: the counts are bit-identical."""
    X, y, X_test = corpus
    weight = np.random.default_rng(8).uniform(0.5, 2, size=X.shape[0])
    models, seen_pending = {}, False
    for kind in ("dense", "compact"):
        with represented(kind):
            model = getattr(nbfast, name)()
            for start in range(0, 600, 10):
                model.partial_fit(X[start:start + 10], y[start:start + 10], classes=np.arange(7),
                                  sample_weight=weight[start:start + 10])
                if kind == "compact":
                    seen_pending |= bool(model._feature_counts.pending)
                    if start == 300:  # predicting in between settles a copy, not the model
                        np.testing.assert_array_equal(model.feature_count_, models["dense-at-300"].feature_count_)
                elif start == 300:
                    models["dense-at-300"] = pickle.loads(pickle.dumps(model))
            models[kind] = model
    compact, dense = models["compact"], models["dense"]
    assert seen_pending and compact._is_compact()
    np.testing.assert_array_equal(compact.feature_count_, dense.feature_count_)
    assert_same_predictions(compact, dense, X_test)
    nbfast.save(compact, tmp_path / "model.nbf")
    loaded = nbfast.load(tmp_path / "model.nbf")
    np.testing.assert_array_equal(loaded.predict_proba(X_test), compact.predict_proba(X_test))
    np.testing.assert_array_equal(pickle.loads(pickle.dumps(compact)).predict_proba(X_test),
                                  compact.predict_proba(X_test))
    assert_same_predictions(nbfast.merge([compact, compact]), nbfast.merge([dense, dense]), X_test)


# ----------------------------------------------------------------------- CategoricalNB
@pytest.fixture(scope="module")
def categories():
    """Word counts as categories: 3,000 features, mostly category 0 (sparse), up to 6 before clipping."""
    X, y = make_documents(700, 3_000, 6, mean_length=25, class_separation=0.3, random_state=12)
    X.data = np.minimum(X.data, 6)
    return X[:500], y[:500], X[500:]


def assert_same_categorical(compact, dense, X_test, tolerance=TOLERANCE):
    assert compact._is_compact() and not dense._is_compact()
    np.testing.assert_array_equal(compact.n_categories_, dense.n_categories_)
    for name in ("category_count_", "feature_log_prob_"):
        for a, b in zip(getattr(compact, name), getattr(dense, name)):
            np.testing.assert_allclose(a, b, rtol=tolerance, atol=tolerance, err_msg=name)
    assert_same_predictions(compact, dense, X_test, tolerance)


@pytest.mark.parametrize("params", [{}, {"max_categories": 3}, {"alpha": 0.2, "min_categories": 4},
                                    {"fit_prior": False, "max_categories": 5}],
                         ids=["default", "max3", "min4", "no-prior"])
@pytest.mark.parametrize("weighted", [False, True], ids=["unweighted", "weighted"])
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_categorical_compact_matches_dense(params, weighted, dtype, categories):
    X, y, X_test = categories
    weight = np.random.default_rng(4).uniform(0.2, 3, size=X.shape[0]) if weighted else None
    compact, dense = fit_both("CategoricalNB", params, X.astype(dtype), y, sample_weight=weight)
    assert_same_categorical(compact, dense, X_test.astype(dtype))
    X_unseen = X_test.copy()
    X_unseen.data = X_unseen.data + 7  # categories never seen in training
    assert_same_predictions(compact, dense, X_unseen)


def test_categorical_partial_fit_merge_and_files(categories, tmp_path):
    X, y, X_test = categories
    bounds = [0, 3, 60, 61, 250, 500]  # the first batches see few categories: the layout grows
    models = {}
    for kind in ("compact", "dense"):
        with represented(kind):
            model = nbfast.CategoricalNB(alpha=0.5)
            for a, b in zip(bounds[:-1], bounds[1:]):
                model.partial_fit(X[a:b], y[a:b], classes=np.arange(6))
            shards = [nbfast.CategoricalNB(alpha=0.5).partial_fit(X[a:b], y[a:b], classes=np.arange(6))
                      for a, b in ((0, 100), (100, 500))]
            models[kind] = (model, nbfast.merge(shards))
    for compact, dense in zip(models["compact"], models["dense"]):
        assert_same_categorical(compact, dense, X_test)
    compact = models["compact"][0]
    nbfast.save(compact, tmp_path / "model.nbf")
    loaded = nbfast.load(tmp_path / "model.nbf")
    assert loaded._is_compact()
    np.testing.assert_array_equal(loaded.predict_proba(X_test), compact.predict_proba(X_test))
    restored = pickle.loads(pickle.dumps(compact))
    np.testing.assert_array_equal(restored.predict_proba(X_test), compact.predict_proba(X_test))
    mixed = nbfast.merge([models["compact"][1], models["dense"][1]])  # a compact and a dense model
    assert_same_predictions(mixed, nbfast.merge([models["dense"][1], models["dense"][1]]), X_test)


def test_categorical_automatic_choice_and_threads(categories, n_threads_limit):
    X, y, X_test = categories
    assert nbfast.CategoricalNB(max_categories=4).fit(X, y)._is_compact()
    assert not nbfast.CategoricalNB().fit(X[:, :20].toarray(), y)._is_compact()
    assert not nbfast.CategoricalNB(alpha=0.0).fit(X, y)._is_compact()
    results = []
    for n in (1, 2):
        with n_threads_limit(n):
            model = nbfast.CategoricalNB(max_categories=4).fit(X, y)
            results.append((model.predict_proba(X_test), model.predict_joint_log_proba(X_test)))
    for a, b in zip(*results):
        np.testing.assert_array_equal(a, b)


def test_categorical_explain_and_top_features(categories):
    X, y, X_test = categories
    compact, dense = fit_both("CategoricalNB", {"max_categories": 4}, X, y)
    ours, theirs = nbfast.explain(compact, X_test[:20]), nbfast.explain(dense, X_test[:20])
    np.testing.assert_allclose(ours.terms.toarray(), theirs.terms.toarray(), rtol=TOLERANCE, atol=TOLERANCE)
    assert_same_top_features(nbfast.top_features(compact, n=5), nbfast.top_features(dense, n=5))


def test_degenerate_normalized_complement_scores_as_dense():
    """One feature: every normalized ComplementNB weight is 0 / 0; rows without it score as the dense model's."""
    X, y = np.array([[1.0], [0.0], [2.0]]), np.array([0, 1, 1])
    compact, dense = fit_both("ComplementNB", {"alpha": 0.1, "norm": True}, X, y)
    assert compact._is_compact()
    X_test = np.zeros((2, 1))
    np.testing.assert_array_equal(compact.predict_proba(X_test), dense.predict_proba(X_test))
    np.testing.assert_array_equal(compact.predict(X_test), dense.predict(X_test))


# ----------------------------------------------------------------------- missing values
def with_missing(X, share=0.1, seed=3):
    """X (CSR) with a share of its stored entries made NaN (missing)."""
    X = X.copy()
    X.data = X.data.astype(np.float64)
    X.data[np.random.default_rng(seed).random(X.nnz) < share] = np.nan
    return X


MISSING_MODELS = [("BernoulliNB", {}), ("BernoulliNB", {"binarize": 1.5}), ("CategoricalNB", {}),
                  ("CategoricalNB", {"max_categories": 3})]


@pytest.mark.parametrize("name, params", MISSING_MODELS)
def test_missing_values_keep_a_model_dense(name, params, corpus):
    X, y, X_test = corpus
    X_missing = with_missing(X)
    with represented("compact"):
        model = getattr(nbfast, name)(missing="ignore", **params).fit(X_missing, y)
        assert not model._is_compact()
    with represented("dense"):
        dense = getattr(nbfast, name)(missing="ignore", **params).fit(X_missing, y)
    assert_same_predictions(model, dense, with_missing(X_test, seed=5), tolerance=0)


@pytest.mark.parametrize("name, params", MISSING_MODELS)
def test_compact_model_set_to_ignore_missing_values(name, params, corpus, tmp_path):
    """A compact model (missing="error") set to missing="ignore" scores NaN as the dense model does, and its
    next batches with missing values make it dense."""
    X, y, X_test = corpus
    compact, dense = fit_both(name, params, X[:400], y[:400])
    assert compact._is_compact() and not dense._is_compact()
    for model in (compact, dense):
        model.set_params(missing="ignore")
    X_missing = with_missing(X_test, seed=5)
    assert_same_predictions(compact, dense, X_missing)
    np.testing.assert_allclose(nbfast.explain(compact, X_missing[:5]).terms.toarray(),
                               nbfast.explain(dense, X_missing[:5]).terms.toarray(), rtol=0, atol=TOLERANCE)
    batch = with_missing(X[400:])
    for model in (compact, dense):
        model.partial_fit(batch, y[400:])
    assert not compact._is_compact()
    assert_same_predictions(compact, dense, X_missing)
    nbfast.save(compact, tmp_path / "model.nbf")
    assert_same_predictions(nbfast.load(tmp_path / "model.nbf"), dense, X_missing, tolerance=0)
