"""The cross-validated count models (MultinomialNBCV, ...) against scikit-learn's GridSearchCV over the base model:
the same scores, best alpha and final model, for every input layout, with and without sample weights."""

import numpy as np
import pytest
import scipy.sparse as sp
from support.helpers import CONTAINERS, FLOAT_DTYPES, INDEX_DTYPES, as_container, read_only

import nbfast
from nbfast._validation import check_X
from nbfast.naive_bayes import _cv, _cv_scores

model_selection = pytest.importorskip("sklearn.model_selection")
estimator_checks = pytest.importorskip("sklearn.utils.estimator_checks")

#: CV estimator -> its base model.
PAIRS = {"MultinomialNBCV": "MultinomialNB", "ComplementNBCV": "ComplementNB", "BernoulliNBCV": "BernoulliNB",
         "PoissonNBCV": "PoissonNB", "CategoricalNBCV": "CategoricalNB"}
SCORINGS = ["accuracy", "neg_log_loss"]
ALPHAS = [0.01, 0.1, 0.5, 1.0, 5.0]
TOLERANCE = 1e-12


def cv_data(base, n_samples=240, seed=0):
    """Small data on which the alphas score differently: short documents, or categories of varied frequency."""
    if base == "CategoricalNB":
        rng = np.random.default_rng(seed)
        y = np.arange(n_samples) % 3
        X = rng.integers(0, 4, size=(n_samples, 8)) * rng.integers(0, 2, size=(n_samples, 8)) + (y[:, None] == 2)
        return X.astype(np.float64), y
    return nbfast.datasets.make_documents(n_samples, 30, 3, mean_length=10, class_separation=0.2, random_state=seed)


def weights_for(kind, n_samples):
    if kind is None:
        return None
    return np.random.default_rng(1).uniform(0.2, 3.0, size=n_samples)


def grid_search(base, alphas, cv, scoring, X, y, sample_weight=None, **params):
    search = model_selection.GridSearchCV(getattr(nbfast, base)(**params), {"alpha": list(alphas)}, cv=cv,
                                          scoring=scoring)
    return search.fit(X, y) if sample_weight is None else search.fit(X, y, sample_weight=sample_weight)


def assert_same_search(model, search, alphas):
    results, expected = model.cv_results_, search.cv_results_
    assert model.alpha_ == search.best_params_["alpha"]
    assert model.n_splits_ == search.n_splits_
    np.testing.assert_allclose(results["mean_test_score"], expected["mean_test_score"], rtol=0, atol=TOLERANCE)
    np.testing.assert_allclose(results["std_test_score"], expected["std_test_score"], rtol=0, atol=TOLERANCE)
    for k in range(search.n_splits_):
        np.testing.assert_allclose(results[f"split{k}_test_score"], expected[f"split{k}_test_score"], rtol=0,
                                   atol=TOLERANCE)
    np.testing.assert_array_equal(results["rank_test_score"], expected["rank_test_score"])
    assert results["params"] == expected["params"]
    np.testing.assert_array_equal(results["param_alpha"], np.asarray(alphas, dtype=np.float64))
    assert model.best_score_ == pytest.approx(search.best_score_, abs=TOLERANCE)


def assert_same_model(model, expected, X):
    """The CV model predicts as ``expected`` and its fitted attributes are ``expected``'s."""
    assert model.classes_.tolist() == expected.classes_.tolist()
    for name in type(expected)._fitted_attributes:
        got, want = getattr(model, name), getattr(expected, name)
        for g, w in zip(*(v if isinstance(v, list) else [v] for v in (got, want))):
            np.testing.assert_allclose(np.asarray(g, dtype=np.float64), np.asarray(w, dtype=np.float64),
                                       rtol=TOLERANCE, atol=0)
    np.testing.assert_allclose(model.predict_proba(X), expected.predict_proba(X), rtol=TOLERANCE, atol=1e-15)
    np.testing.assert_allclose(model.predict_joint_log_proba(X), expected.predict_joint_log_proba(X),
                               rtol=TOLERANCE)
    np.testing.assert_array_equal(model.predict(X), expected.predict(X))


@pytest.mark.parametrize("weights", [None, "uniform"])
@pytest.mark.parametrize("scoring", SCORINGS)
@pytest.mark.parametrize("name", PAIRS)
def test_the_search_is_grid_search_cv_over_the_base_model(name, scoring, weights):
    base = PAIRS[name]
    X, y = cv_data(base)
    sample_weight = weights_for(weights, X.shape[0])
    cv = model_selection.StratifiedKFold(5, shuffle=True, random_state=0)
    model = getattr(nbfast, name)(alphas=ALPHAS, cv=cv, scoring=scoring).fit(X, y, sample_weight=sample_weight)
    search = grid_search(base, ALPHAS, cv, scoring, X, y, sample_weight)
    split_scores = [search.cv_results_[f"split{k}_test_score"] for k in range(5)]
    assert np.ptp(split_scores, axis=1).max() > 0  # the alphas are told apart
    assert_same_search(model, search, ALPHAS)
    assert_same_model(model, search.best_estimator_, X)
    expected = getattr(nbfast, base)(alpha=model.alpha_).fit(X, y, sample_weight=sample_weight)
    assert_same_model(model, expected, X)


@pytest.mark.parametrize("index_dtype", INDEX_DTYPES)
@pytest.mark.parametrize("dtype", FLOAT_DTYPES)
@pytest.mark.parametrize("container", CONTAINERS)
@pytest.mark.parametrize("scoring", SCORINGS)
def test_every_input_layout_gives_grid_search_cv_s_scores(container, dtype, index_dtype, scoring):
    if container == "dense" and index_dtype == np.int64:
        pytest.skip("dense input has no indices")
    X, y = cv_data("MultinomialNB")
    X = read_only(as_container(X, container, dtype, index_dtype))
    y.flags.writeable = False
    model = nbfast.MultinomialNBCV(alphas=ALPHAS, cv=4, scoring=scoring).fit(X, y)
    assert_same_search(model, grid_search("MultinomialNB", ALPHAS, 4, scoring, X, y), ALPHAS)


@pytest.mark.parametrize("name", ["BernoulliNBCV", "MultinomialNBCV"])
def test_unsmoothed_and_per_alpha_scored_models_match_too(name):
    """alpha=0 (BernoulliNB then scores outside its linear form), and tables too large to stack or score at
    once (the stacking and the row chunks are limited): the same scores."""
    X, y = cv_data(PAIRS[name])
    alphas = [0.0, 0.2, 1.0]
    expected = grid_search(PAIRS[name], alphas, 3, "neg_log_loss", X, y)
    assert_same_search(getattr(nbfast, name)(alphas=alphas, cv=3, scoring="neg_log_loss").fit(X, y), expected, alphas)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(_cv_scores, "_STACK_BYTES", 1)
        patch.setattr(_cv_scores, "_OUTPUT_BYTES", 1000)
        assert_same_search(getattr(nbfast, name)(alphas=alphas, cv=3, scoring="neg_log_loss").fit(X, y), expected,
                           alphas)


@pytest.mark.parametrize("scoring", SCORINGS)
@pytest.mark.parametrize("name", ["BernoulliNBCV", "CategoricalNBCV"])
def test_two_classes_match_grid_search_cv(name, scoring):
    """With two classes scikit-learn's scorer hands log_loss the second class's posterior only."""
    X, y = cv_data(PAIRS[name])
    X, y = X[y < 2], y[y < 2]
    sample_weight = weights_for("uniform", X.shape[0])
    model = getattr(nbfast, name)(alphas=ALPHAS, cv=4, scoring=scoring).fit(X, y, sample_weight=sample_weight)
    assert_same_search(model, grid_search(PAIRS[name], ALPHAS, 4, scoring, X, y, sample_weight), ALPHAS)


def test_compact_models_match_grid_search_cv():
    """A large vocabulary over few documents: the models keep compact counts and tables."""
    X, y = nbfast.datasets.make_documents(150, 50_000, 3, mean_length=30, random_state=0)
    model = nbfast.ComplementNBCV(alphas=ALPHAS, cv=3).fit(X, y)
    assert model.estimator_._is_compact()
    assert_same_search(model, grid_search("ComplementNB", ALPHAS, 3, "accuracy", X, y), ALPHAS)


@pytest.mark.parametrize("cv", [model_selection.ShuffleSplit(4, test_size=0.3, random_state=0),
                                model_selection.KFold(3, shuffle=True, random_state=1)], ids=["shuffle", "kfold"])
def test_other_splitters_match_grid_search_cv(cv):
    X, y = cv_data("PoissonNB")
    sample_weight = weights_for("uniform", X.shape[0])
    model = nbfast.PoissonNBCV(alphas=ALPHAS, cv=cv).fit(X, y, sample_weight=sample_weight)
    search = grid_search("PoissonNB", ALPHAS, cv, "accuracy", X, y, sample_weight)
    assert_same_search(model, search, ALPHAS)
    assert_same_model(model, search.best_estimator_, X)


def test_an_iterable_of_splits_and_base_parameters_are_used():
    X, y = cv_data("BernoulliNB")
    splits = list(model_selection.StratifiedKFold(3).split(X, y))
    model = nbfast.BernoulliNBCV(alphas=ALPHAS, cv=splits, binarize=1.0, fit_prior=False).fit(X, y)
    search = grid_search("BernoulliNB", ALPHAS, splits, "accuracy", X, y, binarize=1.0, fit_prior=False)
    assert_same_search(model, search, ALPHAS)
    assert model.estimator_.get_params()["binarize"] == 1.0


@pytest.mark.parametrize("form", ["negative", "masks", "lists"])
def test_splits_as_negative_indices_masks_or_lists_match_grid_search_cv(form):
    """The rows are read in place by index: negative indices, boolean masks and plain lists select the rows
    GridSearchCV's indexing selects."""
    X, y = cv_data("MultinomialNB")
    n = X.shape[0]
    convert = {"negative": lambda rows: rows - n, "masks": lambda rows: np.isin(np.arange(n), rows),
               "lists": lambda rows: rows.tolist()}[form]
    splits = [(convert(train), convert(test)) for train, test in model_selection.StratifiedKFold(3).split(X, y)]
    model = nbfast.MultinomialNBCV(alphas=ALPHAS, cv=splits).fit(X, y)
    assert_same_search(model, grid_search("MultinomialNB", ALPHAS, splits, "accuracy", X, y), ALPHAS)


@pytest.mark.parametrize(("rows", "message"), [
    (lambda rows, n: np.append(rows, n), "test rows of split 0 hold an index out of range for 240 rows"),
    (lambda rows, n: np.append(rows, -n - 1), "test rows of split 0 hold an index out of range"),
    (lambda rows, n: rows.astype(np.float64), "test rows of split 0 must be a 1-D array of row indices"),
    (lambda rows, n: np.ones(n - 1, dtype=bool), "must be a 1-D array of row indices or a boolean mask"),
])  # fmt: skip
def test_split_rows_out_of_range_are_refused_before_any_work(rows, message, monkeypatch):
    X, y = cv_data("MultinomialNB")
    splits = [(train, rows(test, X.shape[0])) for train, test in model_selection.StratifiedKFold(3).split(X, y)]
    monkeypatch.setattr(_cv, "clone", _NoWork())
    with pytest.raises(ValueError, match=message):
        nbfast.MultinomialNBCV(cv=splits).fit(X, y)


def test_ties_go_to_the_first_best_alpha_in_the_given_order():
    X, y = cv_data("MultinomialNB")
    X = sp.hstack([X, sp.csr_matrix(np.eye(3)[y] * 50)], format="csr")  # a giveaway column per class
    alphas = [1.0, 0.5, 0.1, 2.0]
    model = nbfast.MultinomialNBCV(alphas=alphas, cv=3).fit(X, y)
    assert model.cv_results_["mean_test_score"].tolist() == [1.0] * 4
    assert model.cv_results_["rank_test_score"].tolist() == [1] * 4
    assert model.alpha_ == 1.0 == grid_search("MultinomialNB", alphas, 3, "accuracy", X, y).best_params_["alpha"]
    assert nbfast.MultinomialNBCV(alphas=alphas[::-1], cv=3).fit(X, y).alpha_ == 2.0


def test_one_and_two_threads_give_identical_results(n_threads_limit):
    X, y = cv_data("ComplementNB", n_samples=600)
    results = []
    for n in (1, 2):
        with n_threads_limit(n):
            model = nbfast.ComplementNBCV(alphas=ALPHAS, scoring="neg_log_loss").fit(X, y)
            results.append((model.cv_results_["mean_test_score"], model.predict_proba(X)))
    for a, b in zip(*results):
        np.testing.assert_array_equal(a, b)


class _NoWork:
    def __call__(self, *args, **kwargs):
        raise AssertionError("the models were fitted before the input was refused")


@pytest.mark.parametrize(("params", "error", "message"), [
    ({"alphas": []}, ValueError, "alphas must be a non-empty"),
    ({"alphas": [1.0, -0.5]}, ValueError, "finite and non-negative"),
    ({"alphas": [1.0, np.nan]}, ValueError, "finite and non-negative"),
    ({"alphas": [[1.0, 2.0]]}, ValueError, "1-D"),
    ({"alphas": 1.0}, ValueError, "alphas"),
    ({"scoring": "f1"}, ValueError, "scoring"),
    ({"cv": 1}, ValueError, "'cv' parameter of MultinomialNBCV must be an int in the range"),
    ({"cv": 200}, ValueError, "n_splits=200 cannot be greater than the number of members in each class"),
    ({"cv": "folds"}, ValueError, "'cv' parameter"),
    ({"fit_prior": "yes"}, ValueError, "fit_prior"),
])
def test_bad_parameters_are_refused_before_any_work(params, error, message, monkeypatch):
    X, y = cv_data("MultinomialNB")
    monkeypatch.setattr(_cv, "clone", _NoWork())
    model = nbfast.MultinomialNBCV(**params)
    with pytest.raises(error, match=message):
        model.fit(X, y)
    assert not hasattr(model, "classes_")


@pytest.mark.parametrize("name", ["MultinomialNB", "CategoricalNB"])
@pytest.mark.parametrize("cv", [3, model_selection.ShuffleSplit(3, test_size=0.3, random_state=0)],
                         ids=["folds", "shuffle"])
def test_x_is_checked_once_for_every_fold_and_the_final_model(name, cv, monkeypatch):
    from nbfast.naive_bayes import _base

    checked = []
    monkeypatch.setattr(_base, "check_X", lambda X, *args, **kwargs: checked.append(X) or check_X(X, *args, **kwargs))
    X, y = cv_data(name)
    getattr(nbfast, f"{name}CV")(alphas=ALPHAS, cv=cv).fit(X, y)
    assert len(checked) == 1 and checked[0] is X


def test_a_training_set_without_a_class_is_refused():
    X, y = cv_data("MultinomialNB")
    order = np.argsort(y, kind="stable")
    with pytest.raises(ValueError, match="training rows of split 0 hold no sample of class 0"):
        nbfast.MultinomialNBCV(cv=model_selection.KFold(3)).fit(X[order], y[order])


def test_the_cv_model_is_the_final_model_for_every_operation():
    X, y = cv_data("MultinomialNB")
    model = nbfast.MultinomialNBCV(alphas=ALPHAS).fit(X, y)
    final = model.estimator_
    assert isinstance(final, nbfast.MultinomialNB) and final.alpha == model.alpha_
    np.testing.assert_array_equal(model.predict_log_proba(X), final.predict_log_proba(X))
    assert model.score(X, y) == final.score(X, y)
    for got, want in zip(model.to_linear(), final.to_linear()):
        np.testing.assert_array_equal(got, want)
    assert repr(nbfast.top_features(model, 3)) == repr(nbfast.top_features(final, 3))
    assert not hasattr(model, "partial_fit")
    with pytest.raises(AttributeError, match="does not learn batch by batch. The search needs all the rows"):
        model.partial_fit(X, y)
    with pytest.raises(TypeError, match=r"merge\(\) needs .* does not. The search"):
        nbfast.merge([model, model])
    assert not hasattr(nbfast.MultinomialNBCV(), "feature_log_prob_")  # not fitted


def test_save_and_load_keep_the_final_model_and_the_results(tmp_path):
    X, y = cv_data("ComplementNB")
    model = nbfast.ComplementNBCV(alphas=ALPHAS, cv=3, scoring="neg_log_loss").fit(X, y)
    nbfast.save(model, tmp_path / "m.nbf")
    loaded = nbfast.load(tmp_path / "m.nbf")
    assert type(loaded) is nbfast.ComplementNBCV and loaded.get_params() == model.get_params()
    assert loaded.alpha_ == model.alpha_ and loaded.best_score_ == model.best_score_
    for key, value in model.cv_results_.items():
        np.testing.assert_array_equal(loaded.cv_results_[key], value)
    np.testing.assert_array_equal(loaded.predict_proba(X), model.predict_proba(X))


def test_a_splitter_cannot_be_saved(tmp_path):
    X, y = cv_data("MultinomialNB")
    model = nbfast.MultinomialNBCV(cv=model_selection.StratifiedKFold(3)).fit(X, y)
    with pytest.raises(TypeError, match="cannot save .*cv.*StratifiedKFold"):
        nbfast.save(model, tmp_path / "m.nbf")
    assert not (tmp_path / "m.nbf").exists()


CHECKED = [getattr(nbfast, name)() for name in PAIRS]
_REFUSED_FLOATS = "fits on non-integer floats, which CategoricalNB refuses by design (scikit-learn truncates them)"
_RARE_CLASS = ("draws labels from rounded categories: a class of one sample leaves a training split without it, "
               "which the search refuses")
#: The checks each estimator is expected to fail, by class name, with the reason.
EXPECTED_FAILURES = {
    "CategoricalNBCV": {
        "check_sample_weight_equivalence_on_dense_data": _REFUSED_FLOATS,
        "check_sample_weight_equivalence_on_sparse_data": _REFUSED_FLOATS,
        "check_classifiers_one_label_sample_weights": _REFUSED_FLOATS,
        **{check: _RARE_CLASS for check in (
            "check_dict_unchanged", "check_dont_overwrite_parameters", "check_f_contiguous_array_estimator",
            "check_fit2d_predict1d", "check_methods_sample_order_invariance", "check_methods_subset_invariance")},
    },
}


@estimator_checks.parametrize_with_checks(
    CHECKED, expected_failed_checks=lambda estimator: EXPECTED_FAILURES.get(type(estimator).__name__, {}))
def test_scikit_learn_common_checks(estimator, check):
    check(estimator)


@pytest.mark.parametrize("estimator", CHECKED, ids=repr)
def test_scikit_learn_parameter_validation_check(estimator):
    estimator_checks.check_param_validation(type(estimator).__name__, estimator)


@pytest.mark.parametrize("mode", ["ARGMAX", "PROBA", "LOG_PROBA"])
def test_scoring_side_by_side_tables_is_scoring_each_alone(mode):
    """The kernel that scores every alpha in one pass gives, block by block, what score_csr gives for each
    table alone, bit for bit: NaN (an unsmoothed table can make one) and -inf included."""
    from nbfast._kernels.scoring import Output, score_csr

    mode = getattr(Output, mode)
    rng = np.random.default_rng(0)
    tables = [np.log(rng.dirichlet(np.ones(3), size=6)) for _ in range(3)]
    tables[1][0] = [np.nan, 0.0, 1.0]
    tables[1][1] = [0.5, np.nan, -np.inf]
    biases = [np.log(rng.dirichlet(np.ones(3))) for _ in range(3)]
    X = sp.csr_array(rng.poisson(0.7, size=(40, 6)).astype(np.float64))
    n_rows = X.shape[0]
    labels = np.empty(n_rows * 3 if mode == Output.ARGMAX else 0, dtype=np.int64)
    out = np.empty((0, 0) if mode == Output.ARGMAX else (n_rows, 9))
    with np.errstate(invalid="ignore"):
        score_csr(X.data, X.indices, X.indptr, np.hstack(tables), np.concatenate(biases), False, 0.0, mode, out,
                  labels, 2, 3)
        for g, (table, bias) in enumerate(zip(tables, biases)):
            alone = np.empty(n_rows, dtype=np.int64)
            alone_out = np.empty((0, 0) if mode == Output.ARGMAX else (n_rows, 3))
            score_csr(X.data, X.indices, X.indptr, np.ascontiguousarray(table), bias, False, 0.0, mode, alone_out,
                      alone if mode == Output.ARGMAX else np.empty(0, dtype=np.int64), 1)
            if mode == Output.ARGMAX:
                np.testing.assert_array_equal(labels[g::3], alone)
            else:
                np.testing.assert_array_equal(out[:, 3 * g:3 * g + 3], alone_out)


#: split{k}_test_score of the search (3 splits x alphas 0, 0.01, 0.3, 1, 7, weighted rows) as it was computed before
#: the alphas were scored in blocks bounded by memory, with numpy 2: the blocks must not change a bit of them (numpy
#: 1's vectorized log and exp, on CPUs with AVX-512, round some values an ulp apart from these).
SCORES_BEFORE_BLOCKS = {
    ("MultinomialNBCV", "neg_log_loss"): [
        -1.0345259113341538, -1.0342808121602407, -1.0275136805626517, -1.0135296989281153, -0.9602730394102323,
        -0.9910787429787974, -0.9908455919761848, -0.9858420062779962, -0.9782219742571714, -0.9503544842492989,
        -1.111523477278648, -1.1108823376966261, -1.0946717962122572, -1.0679235385616552, -1.017639641872682],
    ("BernoulliNBCV", "accuracy"): [
        0.4534221971518256, 0.4534221971518256, 0.4534221971518256, 0.4581603129028942, 0.5222773732601972,
        0.47411639186662435, 0.47411639186662435, 0.47411639186662435, 0.4781561858339621, 0.4517196705923336,
        0.45454633918014486, 0.45454633918014486, 0.45454633918014486, 0.45454633918014486, 0.4244663702036803],
}


@pytest.mark.parametrize("name, scoring", SCORES_BEFORE_BLOCKS)
@pytest.mark.parametrize("budgets", ["default", "one alpha and a few rows at a time"])
def test_alphas_scored_in_blocks_give_the_same_scores_bit_for_bit(name, scoring, budgets, monkeypatch):
    X, y = cv_data(PAIRS[name])
    weights = np.random.default_rng(1).uniform(0.2, 3.0, size=len(y))

    def scores():
        model = getattr(nbfast, name)(alphas=[0.0, 0.01, 0.3, 1.0, 7.0], cv=3, scoring=scoring).fit(X, y, weights)
        return [float(v) for k in range(3) for v in model.cv_results_[f"split{k}_test_score"]]

    in_one_block = scores()
    if np.lib.NumpyVersion(np.__version__) >= "2.0.0":
        assert in_one_block == SCORES_BEFORE_BLOCKS[name, scoring]
    else:
        assert in_one_block == pytest.approx(SCORES_BEFORE_BLOCKS[name, scoring], rel=1e-14)
    if budgets != "default":
        monkeypatch.setattr(_cv_scores, "_ROW_BYTES", 1)
        monkeypatch.setattr(_cv_scores, "_STACK_BYTES", 1)
        monkeypatch.setattr(_cv_scores, "_OUTPUT_BYTES", 1000)
        assert scores() == in_one_block


@pytest.mark.parametrize("scoring", SCORINGS)
def test_memory_does_not_grow_with_alphas_times_rows(scoring, monkeypatch):
    """500 alphas on 2,500 rows (2 folds): the test rows' scores of every alpha at once take 11 MiB (accuracy) and
    30 MiB (log loss); scored in blocks within _ROW_BYTES (here 2 MiB), the search stays within twice that."""
    import tracemalloc

    budget = 2 << 20
    monkeypatch.setattr(_cv_scores, "_ROW_BYTES", budget)
    X, y = nbfast.datasets.make_documents(2500, 50, 3, mean_length=10, random_state=0)
    nbfast.MultinomialNBCV(cv=2, scoring=scoring).fit(X[:100], y[:100])  # modules imported on first use: not counted
    model = nbfast.MultinomialNBCV(alphas=np.geomspace(1e-3, 100, 500), cv=2, scoring=scoring)
    tracemalloc.start()
    try:
        model.fit(X, y)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 2 * budget, f"peak {peak / 2**20:.1f} MiB"
    assert model.cv_results_["mean_test_score"].shape == (500,)
