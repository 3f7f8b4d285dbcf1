"""``nbfast train --alpha auto``: alpha chosen by the model's CV estimator, as MultinomialNBCV and GridSearchCV
choose it; the scores stored in the model file and shown by ``nbfast info``; errors for options that do not go
together."""

import re

import numpy as np
import pytest
from support.cli import assert_one_line_error, run_cli
from support.crafting import _layout, _saved, _with_byte_order, _with_header

import nbfast
from nbfast.cli import main
from nbfast.datasets import make_documents
from nbfast.persist import _info, read_info

sklearn_naive_bayes = pytest.importorskip("sklearn.naive_bayes")
model_selection = pytest.importorskip("sklearn.model_selection")
datasets = pytest.importorskip("sklearn.datasets")

ALPHAS = [0.001, 0.01, 0.1, 1.0, 10.0, 100.0]
#: A corpus on which 4 and 5 folds choose different alphas (10 and 1).
N_SAMPLES, N_FEATURES = 400, 100


@pytest.fixture
def corpus(tmp_path):
    """(path of an svmlight file, X, y) of a small corpus."""
    X, y = make_documents(n_samples=N_SAMPLES, n_features=N_FEATURES, n_classes=3, random_state=0)
    datasets.dump_svmlight_file(X, y, str(tmp_path / "d.svm"), zero_based=False)
    return tmp_path / "d.svm", X, y


def _train(capsys, path, output, *options):
    """Train on ``path`` in blocks of 64 rows (the search stacks them in the input's order); stderr."""
    status, _, err = run_cli(capsys, "train", path, "-o", output, "--n-features", N_FEATURES, "--chunk-size", 64,
                          *options)
    assert status == 0, err
    return err


@pytest.mark.parametrize("model, search, base", [
    ("multinomial", nbfast.MultinomialNBCV, sklearn_naive_bayes.MultinomialNB),
    ("complement", nbfast.ComplementNBCV, sklearn_naive_bayes.ComplementNB),
])  # fmt: skip
@pytest.mark.parametrize("folds", [[], ["--cv", 4]])
def test_the_choice_and_scores_are_the_cv_estimators_and_gridsearchcvs(corpus, capsys, model, search, base, folds):
    path, X, y = corpus
    _train(capsys, path, path.with_name("m.nbf"), "--model", model, "--alpha", "auto", "--alphas",
           ",".join(map(str, ALPHAS)), *folds)
    trained = nbfast.load(path.with_name("m.nbf"))
    cv = folds[1] if folds else None
    expected = search(alphas=ALPHAS, cv=cv).fit(X, y)
    grid = model_selection.GridSearchCV(base(), {"alpha": ALPHAS}, cv=cv).fit(X, y)
    assert type(trained) is search
    assert trained.alpha_ == expected.alpha_ == grid.best_params_["alpha"]
    assert trained.n_splits_ == expected.n_splits_ == grid.n_splits_
    np.testing.assert_allclose(trained.cv_results_["mean_test_score"], grid.cv_results_["mean_test_score"],
                               rtol=0, atol=1e-12)
    np.testing.assert_array_equal(trained.cv_results_["mean_test_score"], expected.cv_results_["mean_test_score"])


def test_the_folds_and_the_alphas_change_the_choice(corpus, capsys):
    """The corpus is one on which the options matter, so that the test above can fail when one is ignored."""
    path, X, y = corpus
    grid = ["--alphas", ",".join(map(str, ALPHAS))]
    chosen = {}
    for name, options in (("default folds", grid), ("4 folds", [*grid, "--cv", 4]), ("default alphas", [])):
        _train(capsys, path, path.with_name("m.nbf"), "--alpha", "auto", *options)
        chosen[name] = nbfast.load(path.with_name("m.nbf")).alpha_
    assert chosen == {"default folds": 1.0, "4 folds": 10.0, "default alphas": 3.0}  # 3: not in ALPHAS
    assert nbfast.load(path.with_name("m.nbf")).n_splits_ == 5  # the CV estimators' default


def _table(lines):
    """{alpha: (mean, std, chosen)} of the rows of a printed score table."""
    rows = {}
    for line in lines:
        match = re.fullmatch(r"\s*([0-9.e+-]+)\s+(-?[0-9.]+)\s+([0-9.]+)(  \(chosen\))?", line)
        if match:
            rows[float(match[1])] = (float(match[2]), float(match[3]), bool(match[4]))
    return rows


def _expected_table(model):
    results = model.cv_results_
    return {alpha: (round(mean, 6), round(std, 6), alpha == model.alpha_) for alpha, mean, std in
            zip(results["param_alpha"], results["mean_test_score"], results["std_test_score"])}


def test_train_prints_every_alphas_scores(corpus, capsys):
    path, X, y = corpus
    err = _train(capsys, path, path.with_name("m.nbf"), "--alpha", "auto", "--alphas", ",".join(map(str, ALPHAS)))
    expected = nbfast.MultinomialNBCV(alphas=ALPHAS).fit(X, y)
    assert f"nbfast: --alpha auto: alpha {expected.alpha_:g}, the best mean accuracy over 5 folds\n" in err
    assert err.splitlines()[-1].startswith("nbfast: trained MultinomialNBCV")  # the summary still ends the run
    assert _table(err.splitlines()) == _expected_table(expected)


def test_info_shows_every_alphas_scores(corpus, capsys):
    path, X, y = corpus
    _train(capsys, path, path.with_name("m.nbf"), "--alpha", "auto", "--alphas", ",".join(map(str, ALPHAS)))
    expected = nbfast.MultinomialNBCV(alphas=ALPHAS).fit(X, y)
    status, out, err = run_cli(capsys, "info", path.with_name("m.nbf"))
    assert status == 0, err
    assert "alpha search:   5-fold cross-validation, scored by accuracy\n" in out
    assert _table(out.splitlines()) == _expected_table(expected)
    assert "alpha_=1," in out and f"best_score_={expected.best_score_:.6g}" in out


def test_read_info_gives_the_stored_scores(corpus, capsys, monkeypatch):
    path, X, y = corpus
    _train(capsys, path, path.with_name("m.nbf"), "--alpha", "auto", "--alphas", ",".join(map(str, ALPHAS)))
    results = nbfast.MultinomialNBCV(alphas=ALPHAS).fit(X, y).cv_results_
    search = read_info(path.with_name("m.nbf"))["search"]
    assert search["scoring"] == "accuracy" and search["n_splits"] == 5 and search["n_alphas"] == len(ALPHAS)
    for name in ("param_alpha", "mean_test_score", "std_test_score", "rank_test_score"):
        assert search[name] == results[name].tolist(), name

    monkeypatch.setattr(_info, "MAX_SEARCH_ROWS", 2)  # the first rows of a long search, then their count
    assert read_info(path.with_name("m.nbf"))["search"]["param_alpha"] == ALPHAS[:2]
    status, out, _ = run_cli(capsys, "info", path.with_name("m.nbf"))
    assert status == 0 and f"... ({len(ALPHAS) - 2:,} more alphas)\n" in out


def test_info_of_a_model_without_a_search_shows_none(corpus, capsys):
    path, X, y = corpus
    _train(capsys, path, path.with_name("m.nbf"))
    assert read_info(path.with_name("m.nbf"))["search"] is None
    search = nbfast.MultinomialNBCV(alphas=ALPHAS).fit(X, y)
    search.cv_results_ = {"params": search.cv_results_["params"]}  # loads (any dict does), holds no scores
    nbfast.save(search, path.with_name("s.nbf"))
    assert read_info(path.with_name("s.nbf"))["search"] is None
    status, out, err = run_cli(capsys, "info", path.with_name("s.nbf"))
    assert status == 0 and "alpha search" not in out, err


def _results(header):
    return header["model"]["fitted"]["cv_results_"]["__dict__"]


@pytest.mark.parametrize("edit", [
    lambda header: _results(header).update(mean_test_score={"__ndarray__": 10**6}),  # no such array
    lambda header: _results(header).update(mean_test_score={"__ndarray__": True}),
    lambda header: _results(header).update(mean_test_score=[0.5] * len(ALPHAS)),  # not an array
    lambda header: _results(header).update(mean_test_score=header["model"]["fitted"]["classes_"]),  # 3, not 6
    lambda header: _results(header).pop("rank_test_score"),
    lambda header: header["model"]["fitted"].update(cv_results_=[1, 2]),
])  # fmt: skip
def test_info_of_a_crafted_search_shows_no_scores(tmp_path, capsys, edit):
    X, y = make_documents(n_samples=100, n_features=20, n_classes=3, random_state=0)
    (tmp_path / "m.nbf").write_bytes(_with_header(_saved(nbfast.MultinomialNBCV(alphas=ALPHAS).fit(X, y)), edit))
    assert read_info(tmp_path / "m.nbf")["search"] is None
    status, out, err = run_cli(capsys, "info", tmp_path / "m.nbf")
    assert status == 0 and "alpha search" not in out, err


def test_info_reads_scores_in_either_byte_order(tmp_path):
    X, y = make_documents(n_samples=100, n_features=20, n_classes=3, random_state=0)
    search = nbfast.MultinomialNBCV(alphas=ALPHAS).fit(X, y)
    raw = _saved(search)
    for name in ("param_alpha", "mean_test_score"):
        raw = _with_byte_order(raw, _results(_layout(raw)[0])[name]["__ndarray__"])
    (tmp_path / "m.nbf").write_bytes(raw)
    scores = read_info(tmp_path / "m.nbf")["search"]
    assert scores["param_alpha"] == ALPHAS
    assert scores["mean_test_score"] == search.cv_results_["mean_test_score"].tolist()


def test_the_model_predicts_as_one_trained_with_the_chosen_alpha(tmp_path, capsys):
    rng = np.random.RandomState(0)
    words = {"a": "good great fine nice happy", "b": "bad awful poor sad ugly", "c": "cat dog bird fish cow"}
    vocabulary = " ".join(words.values()).split()
    lines = []
    for _ in range(300):
        label = rng.choice(list(words))
        own = words[label].split()
        lines.append(label + "\t" + " ".join(rng.choice(own if rng.rand() < 0.3 else vocabulary) for _ in range(6)))
    (tmp_path / "d.tsv").write_text("\n".join(lines) + "\n")
    status, _, err = run_cli(capsys, "train", tmp_path / "d.tsv", "-o", tmp_path / "auto.nbf", "--alpha", "auto",
                          "--alphas", "0.01,0.3,3,30")
    assert status == 0, err
    alpha = nbfast.load(tmp_path / "auto.nbf").alpha_
    assert alpha != 1.0  # not the default: the model trained with it below is another one
    status, _, err = run_cli(capsys, "train", tmp_path / "d.tsv", "-o", tmp_path / "fixed.nbf", "--alpha", alpha)
    assert status == 0, err
    scores = {}
    for name in ("auto", "fixed"):
        status, scores[name], err = run_cli(capsys, "predict", tmp_path / f"{name}.nbf", tmp_path / "d.tsv", "--proba",
                                         "-o", "-")
        assert status == 0, err
    assert scores["auto"] == scores["fixed"]


@pytest.mark.parametrize("options, fragments", [
    (["--cv", 3], ["--cv applies only with --alpha auto"]),
    (["--alpha", 0.5, "--alphas", "0.1,1"], ["--alphas applies only with --alpha auto"]),
    (["--model", "gaussian", "--alpha", "auto"],
     ["--alpha auto applies to --model multinomial, bernoulli, complement, categorical, poisson", "not gaussian"]),
    (["--model", "discriminative", "--alpha", "auto"], ["--alpha auto applies to --model", "not discriminative"]),
    (["--alpha", "auto", "--calibrate-cv", 3], ["--calibrate-cv does not apply with --alpha auto"]),
    (["--alpha", "Auto"], ["argument --alpha: must be a finite number >= 0 or 'auto', got 'Auto'"]),
    (["--alpha", "auto", "--cv", 1], ["argument --cv: must be at least 2 (folds), got 1"]),
    (["--alpha", "auto", "--cv", "five"], ["argument --cv: must be a whole number, got 'five'"]),
    (["--alpha", "auto", "--alphas", "0.1,,1"], ["argument --alphas: must be numbers >= 0 separated by commas"]),
    (["--alpha", "auto", "--alphas", "0.1,-1"], ["argument --alphas: must be numbers >= 0 separated by commas"]),
    (["--alpha", "auto", "--alphas", "0.1,inf"], ["argument --alphas: must be numbers >= 0 separated by commas"]),
])  # fmt: skip
def test_options_that_do_not_go_together_are_one_line_errors(corpus, capsys, options, fragments):
    path, _, _ = corpus
    status, out, err = run_cli(capsys, "train", path, "-o", path.with_name("m.nbf"), *options)
    usage = [line for line in err.splitlines() if not line.startswith(("usage:", " "))]  # argparse's usage first
    assert_one_line_error(status, "\n".join(usage) + "\n", *fragments)
    assert out == "" and not path.with_name("m.nbf").exists()


def test_help_describes_the_search(capsys):
    assert main(["train", "--help"]) == 0
    text = " ".join(capsys.readouterr().out.split())
    assert "or auto: chosen by cross-validation among --alphas" in text
    assert "--cv K folds of the cross-validation, stratified by class (default 5)" in text
    assert "(default 0.01,0.1,0.3,1,3)" in text
