"""Temperature scaling: nbfast.calibrate and CalibratedNB against plain numpy references."""

import numpy as np
import pytest
import scipy.sparse as sp
from scipy.special import logsumexp
from support.helpers import data_for

import nbfast
from nbfast.calibration import expected_calibration_error
from nbfast.datasets import make_documents
from nbfast.naive_bayes._calibrated import _folds, fit_temperature, out_of_fold_jll

COUNT_MODELS = ["MultinomialNB", "BernoulliNB", "ComplementNB", "PoissonNB"]
ALL_MODELS = COUNT_MODELS + ["CategoricalNB", "GaussianNB"]


def overconfident_corpus(n_samples=12_000, seed=0):
    """Documents whose every word is written in four columns: evidence counted four times, as correlated words
    (phrases, synonyms) are in real text, so Naive Bayes is overconfident."""
    X, y = make_documents(n_samples, 1500, 6, mean_length=50, random_state=seed)
    return sp.hstack([X] * 4, format="csr"), y


def softmax_reference(jll, temperature):
    scaled = jll / temperature
    return np.exp(scaled - logsumexp(scaled, axis=1, keepdims=True))


@pytest.mark.parametrize("name", ALL_MODELS)
def test_temperature_one_reproduces_the_posteriors_exactly(name):
    X, y = data_for(name)
    model = getattr(nbfast, name)().fit(X, y)
    calibrated = nbfast.calibrate(model, X, y)
    calibrated.temperature_ = 1.0
    np.testing.assert_array_equal(calibrated.predict_proba(X), model.predict_proba(X))
    np.testing.assert_array_equal(calibrated.predict_log_proba(X), model.predict_log_proba(X))


@pytest.mark.parametrize("name", ALL_MODELS)
@pytest.mark.parametrize("temperature", [0.3, 2.5, 40.0])
def test_posteriors_are_the_softmax_of_the_scaled_jll_and_labels_never_change(name, temperature):
    X, y = data_for(name)
    model = getattr(nbfast, name)().fit(X, y)
    calibrated = nbfast.calibrate(model, X, y)
    calibrated.temperature_ = temperature
    jll = model.predict_joint_log_proba(X)
    np.testing.assert_allclose(calibrated.predict_proba(X), softmax_reference(jll, temperature), rtol=1e-12,
                               atol=1e-15)
    np.testing.assert_array_equal(calibrated.predict(X), model.predict(X))
    np.testing.assert_array_equal(calibrated.predict_joint_log_proba(X), jll)


def test_the_fitted_temperature_is_the_minimum_of_the_log_loss_over_a_fine_grid():
    X, y = overconfident_corpus(4000)
    model = nbfast.MultinomialNB().fit(X[:2000], y[:2000])
    jll, y_index = model.predict_joint_log_proba(X[2000:]), y[2000:]
    temperature = fit_temperature(jll, y_index)
    grid = np.exp(np.linspace(np.log(0.2), np.log(50), 4001))  # steps of 0.14%
    losses = [-np.mean(np.log(softmax_reference(jll, t)[np.arange(len(y_index)), y_index])) for t in grid]
    best = grid[int(np.argmin(losses))]
    assert abs(np.log(temperature / best)) <= 0.0015
    assert temperature > 2  # the corpus is overconfident


@pytest.mark.parametrize("name", COUNT_MODELS)
@pytest.mark.parametrize("n_folds", [2, 5])
def test_out_of_fold_jll_by_subtraction_equals_explicit_refits(name, n_folds):
    X, y = data_for(name, n_samples=300)
    estimator = getattr(nbfast, name)()
    full, jll = out_of_fold_jll(estimator, X, y, n_folds)
    fold = _folds(y, n_folds)
    expected = np.empty_like(jll)
    for k in range(n_folds):
        others = getattr(nbfast, name)().partial_fit(X[fold != k], y[fold != k], classes=full.classes_)
        expected[fold == k] = others.predict_joint_log_proba(X[fold == k])
    np.testing.assert_allclose(jll, expected, rtol=1e-12, atol=1e-12)
    assert np.ptp(np.bincount(fold, minlength=n_folds)) <= len(full.classes_)  # stratified: near-equal folds


@pytest.mark.parametrize("name", ["CategoricalNB", "GaussianNB"])
def test_models_whose_statistics_do_not_subtract_are_refitted_per_fold(name):
    X, y = data_for(name, n_samples=300)
    full, jll = out_of_fold_jll(getattr(nbfast, name)(), X, y, 3)
    fold = _folds(y, 3)
    for k in range(3):
        others = getattr(nbfast, name)().partial_fit(X[fold != k], y[fold != k], classes=full.classes_)
        np.testing.assert_allclose(jll[fold == k], others.predict_joint_log_proba(X[fold == k]), rtol=1e-12)


def test_calibration_lowers_the_calibration_error_and_decisions_keep_their_promise():
    X, y = overconfident_corpus()
    train, held_out, test = slice(0, 6000), slice(6000, 8000), slice(8000, None)
    model = nbfast.MultinomialNB().fit(X[train], y[train])
    calibrated = nbfast.calibrate(model, X[held_out], y[held_out])
    cross_validated = nbfast.calibrate(nbfast.MultinomialNB(), X[train], y[train], cv=5)
    before = expected_calibration_error(model.predict_proba(X[test]), y[test], model.classes_)
    for candidate in (calibrated, cross_validated):
        proba = candidate.predict_proba(X[test])
        assert expected_calibration_error(proba, y[test], model.classes_) * 2 <= before
        # evaluate reports the calibrated posteriors' error
        assert nbfast.evaluate(candidate, X[test], y[test]).expected_calibration_error == pytest.approx(
            expected_calibration_error(proba, y[test], model.classes_), rel=1e-12)
        for reject_cost in (0.3, 0.1, 0.05):
            action = nbfast.decide(proba, reject_cost=reject_cost)
            kept = action >= 0
            assert kept.any()
            accuracy = np.mean(model.classes_[action[kept]] == y[test][kept])
            assert accuracy >= 1 - reject_cost - 0.03


def test_save_load_round_trips_the_temperature(tmp_path):
    X, y = overconfident_corpus(2000)
    calibrated = nbfast.calibrate(nbfast.ComplementNB(), X, y, cv=3)
    nbfast.save(calibrated, tmp_path / "c.nbf")
    loaded = nbfast.load(tmp_path / "c.nbf")
    assert type(loaded) is nbfast.CalibratedNB and loaded.temperature_ == calibrated.temperature_
    np.testing.assert_array_equal(loaded.predict_proba(X), calibrated.predict_proba(X))


def test_bit_identical_for_any_thread_count(n_threads_limit):
    X, y = overconfident_corpus(3000)
    results = []
    for n in (1, 2):
        with n_threads_limit(n):
            calibrated = nbfast.calibrate(nbfast.MultinomialNB(), X, y, cv=3)
            results.append((calibrated.temperature_, calibrated.predict_proba(X)))
    assert results[0][0] == results[1][0]
    np.testing.assert_array_equal(results[0][1], results[1][1])


def test_with_prior_and_mixed_parts_compose():
    X, y = data_for("MultinomialNB")
    calibrated = nbfast.calibrate(nbfast.MultinomialNB().fit(X, y), X, y)
    shifted = nbfast.with_prior(calibrated, [0.6, 0.3, 0.1])
    np.testing.assert_allclose(np.exp(shifted.estimator_.class_log_prior_), [0.6, 0.3, 0.1])
    assert shifted.temperature_ == calibrated.temperature_
    mixed = nbfast.MixedNB([("a", nbfast.MultinomialNB(), slice(0, 6)), ("b", nbfast.BernoulliNB(), slice(6, 12))])
    calibrated_mixed = nbfast.CalibratedNB(mixed, cv=3).fit(X, y)
    np.testing.assert_allclose(calibrated_mixed.predict_proba(X).sum(axis=1), 1.0)


def test_bad_arguments_are_refused():
    X, y = data_for("MultinomialNB")
    model = nbfast.MultinomialNB().fit(X, y)
    with pytest.raises(ValueError, match="method must be 'temperature'"):
        nbfast.calibrate(model, X, y, method="isotonic")
    with pytest.raises(ValueError, match=r"'cv' parameter of CalibratedNB must be an int in the range \[2, inf\) "
                                         r"\(nbfast.calibrate\(model, X, y\) calibrates a fitted model"):
        nbfast.calibrate(model, X, y, cv=1)
    with pytest.raises(TypeError, match="nbfast Naive Bayes estimator"):
        nbfast.calibrate(object(), X, y)
    with pytest.raises(nbfast._compat.NotFittedError):
        nbfast.calibrate(nbfast.MultinomialNB(), X, y)
    with pytest.raises(AttributeError, match="does not learn batch by batch. Its temperature"):
        nbfast.calibrate(model, X, y).partial_fit(X, y)
    with pytest.raises(TypeError, match=r"merge\(\) needs .*CalibratedNB does not"):
        nbfast.merge([nbfast.calibrate(model, X, y)] * 2)


def test_train_calibrate_cv_on_the_command_line_equals_calibration_on_its_folds(tmp_path, capsys):
    """`nbfast train --calibrate-cv K` (folds: row number modulo K) gives the temperature that calibrating the same
    out-of-fold scores in memory gives, and `nbfast info` shows it."""
    from sklearn.datasets import dump_svmlight_file

    from nbfast.calibration import calibrate_from_scores
    from nbfast.cli import main

    X, y = overconfident_corpus(1500)
    dump_svmlight_file(X, y, str(tmp_path / "train.svm"), zero_based=False)
    argv = ["train", str(tmp_path / "train.svm"), "-o", str(tmp_path / "m.nbf"), "--n-features", str(X.shape[1]),
            "--calibrate-cv", "3", "--chunk-size", "400"]
    assert main(argv) == 0
    loaded = nbfast.load(tmp_path / "m.nbf")
    fold = np.arange(len(y)) % 3
    jll = np.empty((len(y), 6))
    for k in range(3):
        others = nbfast.MultinomialNB().fit(X[fold != k], y[fold != k])
        jll[fold == k] = others.predict_joint_log_proba(X[fold == k])
    expected = calibrate_from_scores(nbfast.MultinomialNB().fit(X, y), jll, y)
    assert type(loaded) is nbfast.CalibratedNB and loaded.cv == 3
    assert abs(loaded.temperature_ - expected.temperature_) <= 1e-6 * expected.temperature_
    np.testing.assert_allclose(loaded.predict_proba(X), expected.predict_proba(X), rtol=1e-6, atol=1e-9)
    capsys.readouterr()
    assert main(["info", str(tmp_path / "m.nbf")]) == 0
    assert f"fitted:         temperature_={loaded.temperature_:.6g}" in capsys.readouterr().out
    assert main(argv[:-4] + ["--calibrate-cv", "2000"]) == 2  # more folds than rows
