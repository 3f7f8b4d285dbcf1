"""`nbfast evaluate`, `nbfast explain` and `nbfast info --top-features`: streamed over every input format, equal to
the in-memory Python API, and one clear error line with exit status 2 for input they cannot use."""

import json
import re
import tracemalloc

import numpy as np
import pytest
import scipy.sparse as sp
from support.helpers import assert_same_figures

import nbfast
from nbfast.cli import main
from nbfast.datasets import make_documents
from nbfast.readers import save_npz
from nbfast.text import HashingVectorizer

sk_datasets = pytest.importorskip("sklearn.datasets")
metrics = pytest.importorskip("sklearn.metrics")

TOPICS = {
    "space": "orbit rocket nasa launch moon planet",
    "hockey": "puck goal ice team season player",
    "cars": "engine wheel dealer speed brake oil",
}
COMMON = "the a of and to is in it".split()


@pytest.fixture(scope="module")
def corpus():
    X, y = make_documents(500, 80, 4, mean_length=20, class_separation=0.3, random_state=11)
    return sp.csr_array(X), y


@pytest.fixture(scope="module")
def texts():
    rng = np.random.default_rng(5)
    labels = np.array(list(TOPICS))[np.arange(240) % 3]
    documents = [" ".join(rng.choice(TOPICS[label].split() + COMMON, 10)) for label in labels]
    return documents, labels


def run(capsys, *argv):
    status = main([str(a) for a in argv])
    captured = capsys.readouterr()
    return status, captured.out, captured.err


def assert_one_line_error(status, err, *fragments):
    assert status == 2
    lines = err.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in err, err
    assert lines[0].startswith("nbfast ")
    for fragment in fragments:
        assert fragment in lines[0], err


def write_svmlight(path, X, y, zero_based=False):
    sk_datasets.dump_svmlight_file(X, y, str(path), zero_based=zero_based)
    return path


def write_tsv(path, documents, labels):
    path.write_text("".join(f"{label}\t{doc}\n" for label, doc in zip(labels, documents)), encoding="utf-8")
    return path


def write_jsonl(path, documents, labels):
    path.write_text("".join(json.dumps({"label": label, "text": doc}) + "\n" for label, doc in zip(labels, documents)),
                    encoding="utf-8")
    return path


def evaluate_json(capsys, *argv):
    status, out, err = run(capsys, "evaluate", *argv, "--json")
    assert status == 0, err
    return json.loads(out), err


# ------------------------------------------------------------------- evaluate
@pytest.mark.parametrize("chunk_size", [1, 37, 10_000])
@pytest.mark.parametrize("zero_based", [False, True])
def test_streamed_svmlight_equals_in_memory(tmp_path, capsys, corpus, chunk_size, zero_based):
    X, y = corpus
    train = write_svmlight(tmp_path / "train.svm", X[:350], y[:350], zero_based)
    test = write_svmlight(tmp_path / "test.svm", X[350:], y[350:], zero_based)
    flag = ["--zero-based"] if zero_based else []
    assert run(capsys, "train", train, *flag, "--n-features", 80, "-o", tmp_path / "m.nbf")[0] == 0
    # the index base is read from the model, as predict does
    figures, err = evaluate_json(capsys, tmp_path / "m.nbf", test, "--chunk-size", chunk_size)
    model = nbfast.load(tmp_path / "m.nbf")
    assert_same_figures(figures, nbfast.evaluate(model, X[350:], y[350:]).to_dict())
    predicted = model.predict(X[350:])
    assert figures["confusion_matrix"] == metrics.confusion_matrix(y[350:], predicted).tolist()
    assert figures["accuracy"] == pytest.approx(metrics.accuracy_score(y[350:], predicted))
    assert figures["log_loss"] == pytest.approx(metrics.log_loss(y[350:], model.predict_proba(X[350:])), rel=1e-12)
    assert "nbfast: evaluated MultinomialNB: 150 rows" in err


def test_memory_is_bounded_by_one_chunk(tmp_path, capsys):
    X, y = make_documents(20_000, 200, 5, mean_length=30, random_state=0)
    data = write_svmlight(tmp_path / "big.svm", X, y)
    nbfast.save(nbfast.MultinomialNB().fit(X, y), tmp_path / "m.nbf")
    peaks = {}
    for chunk_size in (500, 20_000):
        tracemalloc.start()
        try:
            assert main(["evaluate", str(tmp_path / "m.nbf"), str(data), "--chunk-size", str(chunk_size)]) == 0
            peaks[chunk_size] = tracemalloc.get_traced_memory()[1]
        finally:
            tracemalloc.stop()
    capsys.readouterr()
    assert peaks[500] < peaks[20_000] / 5  # the whole input at once holds about 10 MB of CSR and probabilities


def test_npz_and_several_inputs(tmp_path, capsys, corpus):
    X, y = corpus
    labels = np.array(["w", "x", "y", "z"])[y]
    model = nbfast.BernoulliNB().fit(X[:300], labels[:300])
    nbfast.save(model, tmp_path / "m.nbf")
    save_npz(tmp_path / "a.npz", X[300:400], labels[300:400])
    save_npz(tmp_path / "b.npz", X[400:], labels[400:])
    figures, _ = evaluate_json(capsys, tmp_path / "m.nbf", tmp_path / "a.npz", tmp_path / "b.npz", "--chunk-size", 33)
    assert_same_figures(figures, nbfast.evaluate(model, X[300:], labels[300:]).to_dict())
    assert figures["labels"] == ["w", "x", "y", "z"]


@pytest.mark.parametrize("fmt", ["tsv", "jsonl"])
def test_text_inputs_are_vectorized_as_in_training(tmp_path, capsys, texts, fmt):
    documents, labels = texts
    write = write_tsv if fmt == "tsv" else write_jsonl
    train, test = write(tmp_path / f"train.{fmt}", documents[:180], labels[:180]), tmp_path / f"test.{fmt}"
    write(test, documents[180:], labels[180:])
    assert run(capsys, "train", train, "--ngram-max", 2, "-o", tmp_path / "m.nbf")[0] == 0
    figures, _ = evaluate_json(capsys, tmp_path / "m.nbf", test, "--chunk-size", 25)
    vectorizer = nbfast.persist.load_vectorizer(tmp_path / "m.nbf")
    model = nbfast.load(tmp_path / "m.nbf")
    assert_same_figures(figures, nbfast.evaluate(model, vectorizer.transform(documents[180:]), labels[180:]).to_dict())
    assert figures["accuracy"] > 0.9


def test_text_report(tmp_path, capsys, corpus):
    X, y = corpus
    nbfast.save(nbfast.MultinomialNB().fit(X, y), tmp_path / "m.nbf")
    status, out, err = run(capsys, "evaluate", tmp_path / "m.nbf", write_svmlight(tmp_path / "t.svm", X, y, True),
                           "--zero-based")
    assert status == 0, err
    evaluation = nbfast.evaluate(nbfast.load(tmp_path / "m.nbf"), X, y)
    assert out.strip() == evaluation.report().strip()
    for fragment in ("precision", "recall", "f1-score", "support", "accuracy", "macro avg", "weighted avg",
                     "log-loss:", "expected calibration error:",
                     "confusion matrix (rows: true label, columns: predicted):"):
        assert fragment in out
    assert f"{evaluation.accuracy:.4f}" in out


def test_many_classes_are_summarized(tmp_path, capsys):
    rng = np.random.default_rng(1)
    y = np.arange(1500) % 70
    X = sp.csr_array(rng.poisson(0.3, size=(1500, 90)) + 3 * np.eye(70, 90, dtype=int)[y])
    nbfast.save(nbfast.MultinomialNB().fit(X, y), tmp_path / "m.nbf")
    status, out, _ = run(capsys, "evaluate", tmp_path / "m.nbf", write_svmlight(tmp_path / "t.svm", X, y, True),
                         "--zero-based")
    assert status == 0
    assert "70 labels: the 30 of lowest F1 are listed (--json lists them all)" in out
    assert "most frequent confusions" in out and "to_dict()" not in out
    assert len(out.splitlines()) < 60


def test_unseen_labels_are_errors_named_in_a_warning_line(tmp_path, capsys, texts):
    documents, labels = texts
    assert run(capsys, "train", write_tsv(tmp_path / "train.tsv", documents, labels), "-o", tmp_path / "m.nbf")[0] == 0
    test_labels = labels[:60].copy().astype(object)
    test_labels[:4], test_labels[4] = "boats", "planes"
    status, out, err = run(capsys, "evaluate", tmp_path / "m.nbf",
                           write_tsv(tmp_path / "test.tsv", documents[:60], test_labels), "--json")
    assert status == 0
    warnings = [line for line in err.splitlines() if "warning" in line]
    assert warnings == ["nbfast evaluate: warning: 2 label(s) the model never saw, counted as errors: "
                        "'boats' (4 rows), 'planes' (1 row)"]
    figures = json.loads(out)
    assert figures["unseen_labels"] == {"boats": 4, "planes": 1}
    assert figures["classification_report"]["boats"]["support"] == 4
    assert figures["classification_report"]["boats"]["recall"] == 0.0
    assert figures["accuracy"] <= 55 / 60


@pytest.mark.parametrize("name, content", [
    ("u.txt", "a document without a label\n"),
    ("u.jsonl", '{"text": "no label here"}\n'),
])
def test_an_unlabelled_text_file_is_one_error_line(tmp_path, capsys, texts, name, content):
    documents, labels = texts
    assert run(capsys, "train", write_tsv(tmp_path / "train.tsv", documents, labels), "-o", tmp_path / "m.nbf")[0] == 0
    (tmp_path / name).write_text(content)
    status, out, err = run(capsys, "evaluate", tmp_path / "m.nbf", tmp_path / name)
    assert_one_line_error(status, err, "nbfast evaluate: error:")
    assert "no labels to evaluate on" in err or "field 'label' is missing" in err
    assert out == ""


def test_an_npz_without_labels_is_one_error_line(tmp_path, capsys, corpus):
    X, y = corpus
    nbfast.save(nbfast.MultinomialNB().fit(X, y), tmp_path / "m.nbf")
    save_npz(tmp_path / "x.npz", X)
    status, _, err = run(capsys, "evaluate", tmp_path / "m.nbf", tmp_path / "x.npz")
    assert_one_line_error(status, err, "x.npz: holds no labels to evaluate on")


def test_inputs_the_model_cannot_read_are_one_error_line(tmp_path, capsys, corpus, texts):
    X, y = corpus
    model_path = tmp_path / "m.nbf"
    assert run(capsys, "train", write_svmlight(tmp_path / "train.svm", X, y), "-o", model_path)[0] == 0
    wide = sp.hstack([X, sp.csr_array(np.ones((X.shape[0], 3)))]).tocsr()
    status, _, err = run(capsys, "evaluate", model_path, write_svmlight(tmp_path / "wide.svm", wide, y))
    assert_one_line_error(status, err, "wide.svm line 1: feature index 81 is beyond the model's 80 features")
    status, _, err = run(capsys, "evaluate", model_path, write_tsv(tmp_path / "t.tsv", *texts))
    assert_one_line_error(status, err, "is read as text, but", "was not trained on text")
    status, _, err = run(capsys, "evaluate", model_path, tmp_path / "missing.svm")
    assert_one_line_error(status, err, "No such file or directory")
    (tmp_path / "data.xlsx").write_text("1,2,3\n")
    status, _, err = run(capsys, "evaluate", model_path, tmp_path / "data.xlsx")
    assert_one_line_error(status, err, "Excel is not a supported input format")
    (tmp_path / "garbage.nbf").write_bytes(b"not a model")
    status, _, err = run(capsys, "evaluate", tmp_path / "garbage.nbf", tmp_path / "train.svm")
    assert_one_line_error(status, err, "garbage.nbf")
    (tmp_path / "negative.svm").write_text("1 1:-2.0\n")
    status, _, err = run(capsys, "evaluate", model_path, tmp_path / "negative.svm")
    assert_one_line_error(status, err, "negative.svm lines 1-1:", "Negative values")
    (tmp_path / "empty.svm").write_text("")
    status, _, err = run(capsys, "evaluate", model_path, tmp_path / "empty.svm")
    assert_one_line_error(status, err, "no samples in")


def test_plot_is_drawn_and_not_empty(tmp_path, capsys, corpus):
    image = pytest.importorskip("matplotlib.image")
    X, y = corpus
    nbfast.save(nbfast.MultinomialNB().fit(X, y), tmp_path / "m.nbf")
    path = tmp_path / "confusion.png"
    status, _, err = run(capsys, "evaluate", tmp_path / "m.nbf", write_svmlight(tmp_path / "t.svm", X, y, True),
                         "--zero-based", "--plot", path)
    assert status == 0, err
    assert f"confusion matrix and reliability diagram drawn to {path}" in err
    pixels = image.imread(path)
    assert len(np.unique(pixels.reshape(-1, pixels.shape[-1]), axis=0)) > 10


def test_a_plot_that_cannot_be_written_is_refused_before_any_work(tmp_path, capsys, corpus):
    X, y = corpus
    nbfast.save(nbfast.MultinomialNB().fit(X, y), tmp_path / "m.nbf")
    status, _, err = run(capsys, "evaluate", tmp_path / "m.nbf", tmp_path / "missing.svm", "--plot",
                         tmp_path / "cm.jpg2")
    assert_one_line_error(status, err, ".jpg2 files are not written here")
    status, _, err = run(capsys, "evaluate", tmp_path / "m.nbf", tmp_path / "missing.svm", "--plot",
                         tmp_path / "no" / "cm.png")
    assert_one_line_error(status, err, "does not exist")


# -------------------------------------------------------------------- explain
def test_explain_without_input_lists_top_features(tmp_path, capsys, corpus):
    X, y = corpus
    model = nbfast.MultinomialNB().fit(X, y)
    nbfast.save(model, tmp_path / "m.nbf")
    status, out, _ = run(capsys, "explain", tmp_path / "m.nbf", "--top", 3)
    assert status == 0
    assert "(the model's features have no names: their column indices are shown)" in out
    assert nbfast.top_features(model, n=3).text() in out
    status, out, _ = run(capsys, "explain", tmp_path / "m.nbf", "--top", 3, "--json")
    assert json.loads(out) == json.loads(json.dumps(nbfast.top_features(model, n=3).to_dict()))


def test_explain_rows_stream_and_add_up(tmp_path, capsys, corpus):
    X, y = corpus
    model = nbfast.ComplementNB().fit(X, y)
    nbfast.save(model, tmp_path / "m.nbf")
    data = write_svmlight(tmp_path / "t.svm", X[:50], y[:50], zero_based=True)
    status, out, err = run(capsys, "explain", tmp_path / "m.nbf", data, "--zero-based", "--json", "--chunk-size", 7,
                           "--top", 4)
    assert status == 0, err
    rows = [json.loads(line) for line in out.splitlines()]
    expected = nbfast.explain(model, X[:50], n=4)
    assert [row["line"] for row in rows] == list(range(1, 51))
    for i, row in enumerate(rows):
        want = expected.row(i)
        assert [(f["feature"], f["name"]) for f in row["features"]] == [(f["feature"], f["name"]) for f in
                                                                         want["features"]]
        assert [f["contribution"] for f in row["features"]] == pytest.approx([f["contribution"] for f in
                                                                              want["features"]])
        for key in ("predicted", "runner_up", "n_rest"):
            assert row[key] == want[key]
        for key in ("difference", "prior", "baseline", "rest"):
            assert row[key] == pytest.approx(want[key])
        listed = sum(f["contribution"] for f in row["features"])
        assert row["prior"] + row["baseline"] + listed + row["rest"] == pytest.approx(row["difference"], abs=1e-9)


def test_explain_one_row_as_text(tmp_path, capsys, corpus):
    X, y = corpus
    model = nbfast.MultinomialNB().fit(X, y)
    nbfast.save(model, tmp_path / "m.nbf")
    data = write_svmlight(tmp_path / "t.svm", X[:40], y[:40])
    status, out, _ = run(capsys, "explain", tmp_path / "m.nbf", data, "--row", 23, "--chunk-size", 10)
    assert status == 0
    expected = nbfast.explain(model, X[22:23]).text(0, label=f"{data} line 23 (true label {int(y[22])})")
    assert out.strip().splitlines()[1:] == expected.splitlines()
    status, _, err = run(capsys, "explain", tmp_path / "m.nbf", data, "--row", 41)
    assert_one_line_error(status, err, "--row 41: the input has 40 row(s)")
    status, _, err = run(capsys, "explain", tmp_path / "m.nbf", "--row", 2)
    assert_one_line_error(status, err, "--row needs INPUT")


def test_explain_names_hashed_text_features_by_their_words(tmp_path, capsys, texts):
    documents, labels = texts
    assert run(capsys, "train", write_tsv(tmp_path / "train.tsv", documents, labels), "--ngram-max", 2,
               "-o", tmp_path / "m.nbf")[0] == 0
    test = write_tsv(tmp_path / "test.tsv", ["the puck and the goal of the team"], ["hockey"])
    status, out, _ = run(capsys, "explain", tmp_path / "m.nbf", test, "--top", 20)
    assert status == 0
    assert out.startswith("test.tsv line 1 (true label 'hockey'): predicted 'hockey' over ".replace(
        "test.tsv", str(test)))
    for term in ("puck", "goal", "team", "the puck", "the goal"):
        assert f"  {term}\n" in out
    assert not re.search(r"  feature \d", out) and "no names" not in out
    status, out, _ = run(capsys, "explain", tmp_path / "m.nbf", "--top", 2)
    assert "(the model's text features are hashed: they have no names, their column indices are shown)" in out


def test_hashed_terms_match_the_vectorizer():
    from nbfast.cli.explain import hashed_terms

    vectorizer = HashingVectorizer(n_features=2**18, ngram_range=(1, 2), norm=None, alternate_sign=False)
    document = "Orbit and ROCKET launch, orbit again"
    terms = hashed_terms(vectorizer, document)
    row = vectorizer.transform([document])
    assert set(terms) == set(row.indices.tolist())
    assert "orbit" in terms.values() and "rocket launch" in terms.values()
    assert hashed_terms(HashingVectorizer(analyzer="char"), document) == {}


def test_info_top_features(tmp_path, capsys, corpus):
    X, y = corpus
    model = nbfast.PoissonNB().fit(X, y)
    nbfast.save(model, tmp_path / "m.nbf")
    status, out, _ = run(capsys, "info", tmp_path / "m.nbf", "--top-features", 4)
    assert status == 0
    assert "class:          PoissonNB" in out
    assert "features that most raise each class's log-odds against the other classes (top 4):" in out
    assert nbfast.top_features(model, n=4).text() in out
    status, out, _ = run(capsys, "info", tmp_path / "m.nbf")
    assert "log-odds" not in out  # the header only, without loading the arrays
    status, _, err = run(capsys, "info", tmp_path / "m.nbf", "--top-features", 0)
    assert status == 2 and "--top-features" in err


def test_rows_without_a_posterior_are_one_error_line(tmp_path, capsys):
    (tmp_path / "train.svm").write_text("0 1:1\n1 1:2\n0 1:3\n1 1:1\n")
    (tmp_path / "huge.svm").write_text("0 1:1\n1 1:1e200\n")
    assert run(capsys, "train", tmp_path / "train.svm", "--model", "gaussian", "-o", tmp_path / "m.nbf")[0] == 0
    status, _, err = run(capsys, "evaluate", tmp_path / "m.nbf", tmp_path / "huge.svm")
    assert_one_line_error(status, err, "huge.svm lines 1-2: 1 row(s) have no posterior, the first row 2 of these 2")
