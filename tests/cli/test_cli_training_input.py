"""A model file records how its training input was read; `nbfast predict` reads new input the same way and refuses
input that contradicts it, with one line and exit status 2, instead of scoring it silently wrong."""

import numpy as np
import pytest
import scipy.sparse as sp
from support.crafting import _with_header

import nbfast
from nbfast.cli import main
from nbfast.datasets import make_documents
from nbfast.persist import ModelFormatError, load_training_input

sk_datasets = pytest.importorskip("sklearn.datasets")


@pytest.fixture(scope="module")
def corpus():
    X, y = make_documents(400, 60, 3, mean_length=20, class_separation=0.5, random_state=3)
    X = sp.csr_matrix(X)
    X[:, 0] = 0  # feature 0 present in no row: a one-based reading of a zero-based file shifts every column
    X[np.arange(0, 400, 2), 1] = 3.0  # and feature 1 in many, so the shift changes the labels
    X.eliminate_zeros()
    return X, y


def run(capsys, *argv):
    status = main([str(a) for a in argv])
    return status, capsys.readouterr().err


def labels_in(path):
    return np.loadtxt(path, delimiter=",", skiprows=1, ndmin=2)[:, 0]


def test_a_zero_based_model_reads_zero_based_input_without_the_flag(tmp_path, capsys, corpus):
    X, y = corpus
    data = tmp_path / "train.svm"
    sk_datasets.dump_svmlight_file(X, y, str(data), zero_based=True)
    assert run(capsys, "train", data, "--zero-based", "--n-features", X.shape[1], "-o", tmp_path / "m.nbf")[0] == 0
    assert load_training_input(tmp_path / "m.nbf") == {"kind": "vectors", "zero_based": True}
    assert main(["info", str(tmp_path / "m.nbf")]) == 0
    assert "trained on:     feature vectors (svmlight indices zero-based)" in capsys.readouterr().out
    assert run(capsys, "predict", tmp_path / "m.nbf", data, "-o", tmp_path / "out.csv")[0] == 0
    expected = nbfast.MultinomialNB().fit(X, y).predict(X)
    np.testing.assert_array_equal(labels_in(tmp_path / "out.csv"), expected)


def test_a_contradicting_index_base_is_refused(tmp_path, capsys, corpus):
    X, y = corpus
    data = tmp_path / "train.svm"
    sk_datasets.dump_svmlight_file(X, y, str(data), zero_based=False)
    assert run(capsys, "train", data, "-o", tmp_path / "m.nbf")[0] == 0
    assert load_training_input(tmp_path / "m.nbf") == {"kind": "vectors", "zero_based": False}
    status, err = run(capsys, "predict", tmp_path / "m.nbf", data, "--zero-based", "-o", tmp_path / "out.csv")
    assert status == 2 and "--zero-based contradicts" in err and len(err.strip().splitlines()) == 1
    assert not (tmp_path / "out.csv").exists()


def test_feature_vectors_given_to_a_text_model_are_refused(tmp_path, capsys, corpus):
    X, y = corpus
    text = tmp_path / "train.tsv"
    text.write_text("".join(f"{label}\tword{label} common text\n" for label in y[:60]))
    assert run(capsys, "train", text, "-o", tmp_path / "m.nbf")[0] == 0
    assert load_training_input(tmp_path / "m.nbf") == {"kind": "text", "zero_based": None}
    vectors = tmp_path / "new.svm"
    sk_datasets.dump_svmlight_file(X, y, str(vectors), zero_based=True)
    for flags in ([], ["--zero-based"]):
        status, err = run(capsys, "predict", tmp_path / "m.nbf", vectors, *flags, "-o", tmp_path / "out.csv")
        assert status == 2 and "was trained on text" in err and len(err.strip().splitlines()) == 1


def test_training_input_is_checked_on_save_and_on_load(tmp_path, corpus):
    X, y = corpus
    model = nbfast.MultinomialNB().fit(X, y)
    for bad in ({"kind": "images", "zero_based": None}, {"kind": "text"}, {"kind": "vectors", "zero_based": 1}):
        with pytest.raises(ValueError, match="cannot save training_input"):
            nbfast.save(model, tmp_path / "m.nbf", training_input=bad)
    nbfast.save(model, tmp_path / "m.nbf")
    assert load_training_input(tmp_path / "m.nbf") is None  # files saved without it (older ones) read as before
    raw = (tmp_path / "m.nbf").read_bytes()

    def set_entry(header):
        header["training_input"] = {"kind": "vectors", "zero_based": "yes"}

    (tmp_path / "bad.nbf").write_bytes(_with_header(raw, set_entry))
    with pytest.raises(ModelFormatError, match="invalid training_input entry"):
        load_training_input(tmp_path / "bad.nbf")
