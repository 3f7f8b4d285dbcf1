"""`nbfast train --vectorizer count|tfidf`: a vocabulary built by the first pass, stored in the model file, reused
by predict, evaluate and explain, shown by info."""

import json

import numpy as np
import pytest
from test_cli_text import CLASSES, assert_one_line_error, corpus, read_csv, run_cli, write_jsonl, write_tsv  # noqa: F401

import nbfast
import nbfast.cli
from nbfast import persist
from nbfast.text import CountVectorizer, TfidfVectorizer

sklearn_text = pytest.importorskip("sklearn.feature_extraction.text")
make_pipeline = pytest.importorskip("sklearn.pipeline").make_pipeline

VECTORIZERS = {"count": CountVectorizer, "tfidf": TfidfVectorizer}
#: command-line flags -> the same settings as parameters
SETTINGS = [
    ([], {}),
    (["--ngram-max", 2, "--min-df", 2, "--max-df", 0.9], {"ngram_range": (1, 2), "min_df": 2, "max_df": 0.9}),
    (["--stop-words", "english", "--max-features", 12, "--binary"],
     {"stop_words": "english", "max_features": 12, "binary": True}),
    (["--no-lowercase", "--min-df", 0.05], {"lowercase": False, "min_df": 0.05}),
]


@pytest.mark.parametrize("kind", list(VECTORIZERS))
@pytest.mark.parametrize("flags, params", SETTINGS)
@pytest.mark.parametrize("name, chunk_size", [("train.tsv", 1), ("train.tsv", 37), ("train.jsonl", 10_000)])
def test_stored_vocabulary_predicts_as_the_in_memory_pipeline(tmp_path, capsys, corpus, kind, flags, params, name,
                                                              chunk_size):
    documents, labels = corpus
    data = (write_jsonl if "jsonl" in name else write_tsv)(tmp_path / name, documents, labels)
    model_path, out = tmp_path / "model.nbf", tmp_path / "out.csv"
    status, err = run_cli(capsys, "train", data, "-o", model_path, "--vectorizer", kind, "--chunk-size", chunk_size,
                          *flags)
    assert status == 0, err
    status, err = run_cli(capsys, "predict", model_path, data, "-o", out, "--proba", "--chunk-size", chunk_size)
    assert status == 0, err

    expected = make_pipeline(VECTORIZERS[kind](**params), nbfast.MultinomialNB()).fit(documents, labels)
    reference = getattr(sklearn_text, VECTORIZERS[kind].__name__)(**params).fit(documents)
    vectorizer = persist.load_vectorizer(model_path)
    assert vectorizer.vocabulary_ == reference.vocabulary_ == expected[0].vocabulary_
    if kind == "tfidf":
        np.testing.assert_array_equal(vectorizer.idf_, reference.idf_)
    model = nbfast.load(model_path)
    np.testing.assert_allclose(model.feature_count_, expected[-1].feature_count_, rtol=1e-12)
    _, predicted, proba = read_csv(out)
    np.testing.assert_array_equal(predicted, expected.predict(documents))
    np.testing.assert_allclose(proba, expected.predict_proba(documents), rtol=1e-9, atol=1e-15)
    assert len(set(predicted)) > 1
    # the same pipeline with scikit-learn's vectorizer and Naive Bayes
    sklearn_nb = pytest.importorskip("sklearn.naive_bayes")
    theirs = make_pipeline(getattr(sklearn_text, VECTORIZERS[kind].__name__)(**params), sklearn_nb.MultinomialNB())
    np.testing.assert_array_equal(predicted, theirs.fit(documents, labels).predict(documents))


def test_words_outside_the_vocabulary_are_ignored_at_prediction(tmp_path, capsys, corpus):
    documents, labels = corpus
    data = write_tsv(tmp_path / "train.tsv", documents, labels)
    assert run_cli(capsys, "train", data, "-o", tmp_path / "m", "--vectorizer", "count")[0] == 0
    unseen = [doc + " zzzunseen qqqnever" for doc in documents]
    write_tsv(tmp_path / "unseen.tsv", unseen, labels)
    for name in ("train.tsv", "unseen.tsv"):
        assert run_cli(capsys, "predict", tmp_path / "m", tmp_path / name, "-o", tmp_path / f"{name}.csv",
                       "--proba")[0] == 0
    assert (tmp_path / "train.tsv.csv").read_text() == (tmp_path / "unseen.tsv.csv").read_text()


def test_info_evaluate_and_explain_use_the_vocabulary(tmp_path, capsys, corpus):
    documents, labels = corpus
    data = write_tsv(tmp_path / "train.tsv", documents, labels)
    status, err = run_cli(capsys, "train", data, "-o", tmp_path / "m", "--vectorizer", "tfidf", "--min-df", 2,
                          "--stop-words", "english")
    assert status == 0, err
    n_terms = len(persist.load_vectorizer(tmp_path / "m").vocabulary_)
    assert f"(3 classes, {n_terms} features)" in err

    assert nbfast.cli.main(["info", str(tmp_path / "m")]) == 0
    out = capsys.readouterr().out
    line = next(line for line in out.splitlines() if line.startswith("vectorizer:"))
    assert line.startswith("vectorizer:     TfidfVectorizer(") and "min_df=2" in line and "stop_words='english'" in line
    assert line.endswith(f", vocabulary of {n_terms} terms, idf weights")

    assert nbfast.cli.main(["evaluate", str(tmp_path / "m"), str(data), "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    expected = make_pipeline(TfidfVectorizer(min_df=2, stop_words="english"), nbfast.MultinomialNB())
    accuracy = np.mean(expected.fit(documents, labels).predict(documents) == labels)
    assert report["accuracy"] == pytest.approx(accuracy)

    assert nbfast.cli.main(["explain", str(tmp_path / "m"), "--top", "3", "--json"]) == 0
    top = json.loads(capsys.readouterr().out)
    terms = set(persist.load_vectorizer(tmp_path / "m").vocabulary_)
    named = [feature["name"] for features in top["classes"].values() for feature in features]
    assert top["named"] and named
    assert set(named) <= terms
    assert nbfast.cli.main(["explain", str(tmp_path / "m"), str(data), "--row", "1"]) == 0
    out = capsys.readouterr().out
    assert "have no names" not in out and "hashed" not in out


@pytest.mark.parametrize("flags, message", [
    (["--min-df", 2], "--min-df applies only to --vectorizer count or tfidf"),
    (["--vectorizer", "hashing", "--max-features", 5], "--max-features applies only to --vectorizer count or tfidf"),
    (["--vectorizer", "count", "--n-features", 64], "--n-features does not apply to --vectorizer count"),
    (["--vectorizer", "tfidf", "--min-df", 1000], "--min-df 1000: the input holds only 240 documents"),
    (["--vectorizer", "count", "--min-df", 100, "--max-df", 50], "--max-df 50 keeps terms in at most 50 of the 240"),
    (["--vectorizer", "count", "--max-df", 0.0],
     "--max-df 0.0 keeps terms in at most 0 of the 240 documents, fewer than the default --min-df 1 asks for"),
    (["--vectorizer", "count", "--min-df", 0.99, "--max-df", 1.0], "no terms remain"),
])
def test_option_errors_are_one_line(tmp_path, capsys, corpus, flags, message):
    documents, labels = corpus
    data = write_tsv(tmp_path / "train.tsv", documents, labels)
    status, err = run_cli(capsys, "train", data, "-o", tmp_path / "m", *flags)
    assert_one_line_error(status, err, message)
    assert not (tmp_path / "m").exists()


@pytest.mark.parametrize("value", ["1.5", "-1", "abc", "nan"])
def test_document_frequency_must_be_a_count_or_a_fraction(tmp_path, capsys, corpus, value):
    documents, labels = corpus
    data = write_tsv(tmp_path / "train.tsv", documents, labels)
    status, err = run_cli(capsys, "train", data, "-o", tmp_path / "m", "--vectorizer", "count", "--min-df", value)
    assert status == 2 and "--min-df" in err.strip().splitlines()[-1]


def test_vocabulary_options_refused_on_vectors(tmp_path, capsys):
    path = tmp_path / "train.svm"
    path.write_text("0 1:1\n1 2:1\n")
    status, err = run_cli(capsys, "train", path, "-o", tmp_path / "m", "--vectorizer", "count", "--min-df", 2)
    assert_one_line_error(status, err, "--vectorizer, --min-df apply only to text input")
