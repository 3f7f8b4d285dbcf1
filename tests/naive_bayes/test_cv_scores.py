"""The search of the compact count models (MultinomialNBCV, ComplementNBCV on a large vocabulary): every fold
counted in one pass, every alpha of a fold scored in one pass; the same scores, best alpha and final model as
GridSearchCV over the base model, and as scoring each alpha alone."""

import warnings

import numpy as np
import pytest

import nbfast
from nbfast.naive_bayes import _counts, _cv, _cv_scores
from nbfast.naive_bayes._fold_counts import FoldCounts, LogTable

model_selection = pytest.importorskip("sklearn.model_selection")

ALPHAS = [0.01, 0.1, 0.5, 1.0, 5.0]
TOLERANCE = 1e-12
#: (CV estimator, its parameters): the models whose tables of several alphas are made at once.
SEARCHES = [("MultinomialNBCV", {}), ("ComplementNBCV", {}), ("ComplementNBCV", {"norm": True})]


def compact_corpus(n_classes=6, seed=0):
    """Short documents over a large vocabulary: compact statistics, with dense rows (frequent words)."""
    return nbfast.datasets.make_documents(500, 20_000, n_classes, mean_length=20, class_separation=0.2,
                                          random_state=seed)


def weights_for(kind, n_samples):
    rng = np.random.default_rng(1)
    return {None: None, "uniform": rng.uniform(0.2, 3.0, size=n_samples),
            "whole": rng.integers(1, 4, size=n_samples).astype(np.float64)}[kind]


def grid_search(name, params, alphas, cv, scoring, X, y, sample_weight=None):
    base = getattr(nbfast, name.removesuffix("CV"))(**params)
    search = model_selection.GridSearchCV(base, {"alpha": list(alphas)}, cv=cv, scoring=scoring)
    return search.fit(X, y, sample_weight=sample_weight)


def assert_same_search(model, search):
    assert model.alpha_ == search.best_params_["alpha"]
    for k in range(search.n_splits_):
        np.testing.assert_allclose(model.cv_results_[f"split{k}_test_score"],
                                   search.cv_results_[f"split{k}_test_score"], rtol=0, atol=TOLERANCE)
    np.testing.assert_array_equal(model.cv_results_["rank_test_score"], search.cv_results_["rank_test_score"])


@pytest.fixture
def calls(monkeypatch):
    """How often the search counted every fold at once and scored every alpha at once."""
    counted = {"folds": 0, "alphas": 0}
    count, score = FoldCounts.count, _cv_scores.score_side_by_side

    def count_folds(*args, **kwargs):
        counted["folds"] += 1
        return count(*args, **kwargs)

    def score_alphas(*args, **kwargs):
        counted["alphas"] += 1
        return score(*args, **kwargs)

    monkeypatch.setattr(_cv.FoldCounts, "count", count_folds)
    monkeypatch.setattr(_cv_scores, "score_side_by_side", score_alphas)
    return counted


@pytest.mark.parametrize("weights", [None, "uniform", "whole"])
@pytest.mark.parametrize("scoring", ["accuracy", "neg_log_loss"])
@pytest.mark.parametrize("name, params", SEARCHES)
def test_the_search_at_once_is_grid_search_cv(name, params, scoring, weights, calls):
    X, y = compact_corpus()
    sample_weight = weights_for(weights, X.shape[0])
    cv = model_selection.StratifiedKFold(5, shuffle=True, random_state=0)
    model = getattr(nbfast, name)(alphas=ALPHAS, cv=cv, scoring=scoring, **params).fit(X, y, sample_weight)
    assert calls == {"folds": 1, "alphas": 5}  # one count of every fold, one pass over each fold's test rows
    search = grid_search(name, params, ALPHAS, cv, scoring, X, y, sample_weight)
    assert np.ptp(search.cv_results_["mean_test_score"]) > 1e-6  # the alphas are told apart
    assert_same_search(model, search)
    final, expected = model.estimator_, search.best_estimator_
    assert final._is_compact() and final.get_params() == expected.get_params()
    np.testing.assert_allclose(final.feature_count_, expected.feature_count_, rtol=TOLERANCE)
    np.testing.assert_allclose(final.class_count_, expected.class_count_, rtol=TOLERANCE)
    np.testing.assert_allclose(final.predict_proba(X), expected.predict_proba(X), rtol=0, atol=TOLERANCE)
    np.testing.assert_array_equal(final.predict(X), expected.predict(X))


@pytest.mark.parametrize("scoring", ["accuracy", "neg_log_loss"])
@pytest.mark.parametrize("name, params", SEARCHES)
def test_every_alpha_at_once_scores_as_each_alpha_alone(name, params, scoring, monkeypatch):
    """MultinomialNB's tables of every alpha are its tables of each alpha, so the scores are bit for bit the ones
    each alpha's own scoring of the same fold models gives; ComplementNB's sum F_i - N_ci before adding alpha
    (a value of the table of logs), so its scores agree to rounding."""
    X, y = compact_corpus(seed=3)
    cv = model_selection.StratifiedKFold(4, shuffle=True, random_state=1)
    at_once = getattr(nbfast, name)(alphas=ALPHAS, cv=cv, scoring=scoring, **params).fit(X, y)
    monkeypatch.setattr(_cv_scores, "_compact_scores", lambda *args: None)
    one_by_one = getattr(nbfast, name)(alphas=ALPHAS, cv=cv, scoring=scoring, **params).fit(X, y)
    for k in range(4):
        got, want = (m.cv_results_[f"split{k}_test_score"] for m in (at_once, one_by_one))
        if name == "MultinomialNBCV":
            np.testing.assert_array_equal(got, want)
        else:
            np.testing.assert_allclose(got, want, rtol=0, atol=1e-14)


@pytest.mark.parametrize("scoring", ["accuracy", "neg_log_loss"])
def test_two_classes_give_the_scorer_s_log_loss(scoring, calls):
    X, y = compact_corpus(n_classes=2, seed=5)
    model = nbfast.MultinomialNBCV(alphas=ALPHAS, cv=3, scoring=scoring).fit(X, y)
    assert calls["alphas"] == 3
    assert_same_search(model, grid_search("MultinomialNBCV", {}, ALPHAS, 3, scoring, X, y))


@pytest.mark.parametrize("scoring", ["accuracy", "neg_log_loss"])
def test_a_single_class_scores_as_alpha_by_alpha(scoring, monkeypatch, calls):
    X, _ = compact_corpus(seed=8)
    y = np.zeros(X.shape[0], dtype=int)
    at_once = nbfast.MultinomialNBCV(alphas=ALPHAS, cv=3, scoring=scoring).fit(X, y).cv_results_
    assert calls["alphas"] == 3
    monkeypatch.setattr(_cv_scores, "_compact_scores", lambda *args: None)
    one_by_one = nbfast.MultinomialNBCV(alphas=ALPHAS, cv=3, scoring=scoring).fit(X, y).cv_results_
    np.testing.assert_array_equal(at_once["mean_test_score"], one_by_one["mean_test_score"])


def test_alphas_in_blocks_and_any_thread_count_give_the_same_scores_bit_for_bit(monkeypatch, n_threads_limit):
    X, y = compact_corpus(seed=7)
    alphas = np.geomspace(1e-3, 10, 23)

    def scores():
        model = nbfast.ComplementNBCV(alphas=alphas, cv=3, scoring="neg_log_loss").fit(X, y)
        return np.array([model.cv_results_[f"split{k}_test_score"] for k in range(3)])

    with n_threads_limit(1):
        expected = scores()
    with n_threads_limit(2):
        np.testing.assert_array_equal(scores(), expected)
    monkeypatch.setattr(_cv_scores, "_STACK_BYTES", 1)  # one alpha a block
    np.testing.assert_array_equal(scores(), expected)


def test_the_final_model_is_a_fit_on_every_row():
    X, y = compact_corpus(seed=2)
    model = nbfast.MultinomialNBCV(alphas=ALPHAS, cv=5).fit(X, y)
    fitted = nbfast.MultinomialNB(alpha=model.alpha_).fit(X, y)
    for got, want in zip(model.estimator_._sparse_feature_count, fitted._sparse_feature_count):
        np.testing.assert_array_equal(got, want)  # whole counts: the same pattern and sums, bit for bit
    np.testing.assert_array_equal(model.class_count_, fitted.class_count_)
    np.testing.assert_array_equal(model.predict_joint_log_proba(X), fitted.predict_joint_log_proba(X))


@pytest.mark.parametrize("case", ["an unsmoothed alpha", "dense statistics", "shuffled splits"])
def test_searches_that_cannot_count_every_fold_at_once_match_too(case, calls, monkeypatch):
    """alpha=0 has no compact table, dense statistics no compact counts, and shuffled splits are no partition:
    the folds are counted one by one (and compact models still score every alpha at once)."""
    X, y = compact_corpus(seed=4)
    alphas, cv = (ALPHAS + [0.0] if case == "an unsmoothed alpha" else ALPHAS), 3
    if case == "dense statistics":
        monkeypatch.setattr(_counts, "REPRESENTATION", "dense")
    if case == "shuffled splits":
        cv = model_selection.StratifiedShuffleSplit(3, test_size=0.3, random_state=0)
    scoring = "accuracy" if case == "an unsmoothed alpha" else "neg_log_loss"  # its posteriors hold NaN
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # log(0) of the unsmoothed tables
        model = nbfast.MultinomialNBCV(alphas=alphas, cv=cv, scoring=scoring).fit(X, y)
        search = grid_search("MultinomialNBCV", {}, alphas, cv, scoring, X, y)
    assert calls == {"folds": 0, "alphas": 3 if case == "shuffled splits" else 0}
    assert_same_search(model, search)


def test_tiny_alphas_without_force_alpha_are_searched_at_once(calls):
    X, y = compact_corpus(seed=6)
    alphas = [0.0, 1e-12, 0.3]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # alpha too small: set to 1e-10
        model = nbfast.MultinomialNBCV(alphas=alphas, cv=3, force_alpha=False).fit(X, y)
        search = model_selection.GridSearchCV(nbfast.MultinomialNB(force_alpha=False), {"alpha": alphas}, cv=3)
        search.fit(X, y)
    assert calls == {"folds": 1, "alphas": 3}
    assert_same_search(model, search)


def test_a_degenerate_normalized_complement_model_is_scored_alpha_by_alpha(monkeypatch, calls):
    """One feature: every normalized weight is 0 / 0, which the tables of several alphas cannot hold."""
    monkeypatch.setattr(_counts, "REPRESENTATION", "compact")
    rng = np.random.default_rng(0)
    X, y = rng.integers(0, 3, size=(60, 1)).astype(np.float64), np.arange(60) % 2
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        model = nbfast.ComplementNBCV(alphas=ALPHAS, cv=3, norm=True).fit(X, y)
        search = grid_search("ComplementNBCV", {"norm": True}, ALPHAS, 3, "accuracy", X, y)
    assert calls == {"folds": 1, "alphas": 0}
    assert_same_search(model, search)


# ------------------------------------------------------------------ the pieces
def test_the_table_of_logs_gives_numpy_s_logs():
    alphas = np.array([1e-10, 0.01, 0.3, 2.0])
    values = np.array([0.0, 1.0, 7.0, 250.0, 2.5, 1e7, 3.0 + 2**-40, 12.0])
    logs = LogTable(alphas)
    np.testing.assert_array_equal(logs(values), np.log(values[:, None] + alphas))
    minus = values[::-1].copy()
    np.testing.assert_array_equal(logs(values, minus), np.log(values[:, None] + alphas) - np.log(minus[:, None] + alphas))
    np.testing.assert_array_equal(logs.log_alphas, np.log(alphas))
    assert logs(np.empty(0)).shape == (0, 4)


@pytest.mark.parametrize("values", [[0.0, 3.0, 1.0, 3.0, 40.0], [0.0, 3.0, 0.5], [1.0, 2e6], [2.0, -1.0]],
                         ids=["whole", "a fraction", "beyond the table", "negative"])
def test_deviations_over_alpha_are_coded_by_whole_counts(values):
    values, alphas = np.array(values), np.array([1.5, 2.0, 3.0])  # log(-1 + alpha) defined
    deviation, codes = LogTable(alphas).over_alpha(values)
    by_value = deviation if codes is None else deviation[codes]
    np.testing.assert_array_equal(by_value, np.log(values[:, None] + alphas) - np.log(alphas))
    assert (codes is not None) == (values.tolist() == [0.0, 3.0, 1.0, 3.0, 40.0])
    if codes is not None:
        assert codes.dtype == np.int32 and deviation.shape == (41, 3)


def test_fold_counts_add_up_in_the_order_given():
    X, y = compact_corpus()
    fold = (np.arange(X.shape[0]) % 3).astype(np.intp)
    weights = np.random.default_rng(2).uniform(0.5, 2.0, size=X.shape[0])
    by_fold = FoldCounts.count(X, y.astype(np.intp), fold, weights, 6, 3)
    counts, class_count = by_fold.of_folds([2, 0])
    np.testing.assert_array_equal(counts.values, by_fold.values[2] + by_fold.values[0])
    np.testing.assert_array_equal(class_count, by_fold.class_count[2] + by_fold.class_count[0])
    np.testing.assert_allclose(class_count, np.bincount(y[fold != 1], weights=weights[fold != 1]), rtol=1e-15)


@pytest.mark.parametrize("name, params", [("MultinomialNB", {}), ("ComplementNB", {}),
                                          ("ComplementNB", {"norm": True})])
def test_the_tables_of_several_alphas_are_each_alpha_s_table(name, params):
    X, y = compact_corpus()
    model = getattr(nbfast, name)(**params).fit(X, y)
    assert model._is_compact()
    (tables, bias) = model._search_terms(LogTable(ALPHAS))
    counts = model._counts()
    exact = name == "MultinomialNB"  # ComplementNB's adds alpha to F_i - N_ci, not N_ci to F_i + alpha
    assert (tables.codes is not None) == exact  # whole counts: MultinomialNB's deviations by count
    by_entry = tables.deviation if tables.codes is None else tables.deviation[tables.codes]
    for a, alpha in enumerate(ALPHAS):
        table, alone_bias = model._compact_terms(counts, model.class_count_, {**model._fitted_params(), "alpha": alpha})
        for got, want in [(by_entry[:, a], table.deviation), (tables.default[:, a], table.default),
                          (None if tables.scale is None else tables.scale[:, a], table.scale),
                          (None if tables.base is None else tables.base[:, a], table.base)]:
            if want is None:
                assert got is None
            elif exact:
                np.testing.assert_array_equal(got, want)
            else:
                np.testing.assert_allclose(got, want, rtol=1e-13, atol=1e-15)
        np.testing.assert_array_equal(bias, model._added_log_prior() + alone_bias)
