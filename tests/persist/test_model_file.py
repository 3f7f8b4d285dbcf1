"""ModelFile: a model file opened once, its header read once, what it holds decoded on demand."""

import os

import numpy as np
import pytest

import nbfast
from nbfast import ModelFormatError, persist
from nbfast.persist import _model_file
from nbfast.text import TfidfVectorizer

DOCUMENTS = ["cheap pills now", "meeting at noon", "cheap meeting pills", "noon now"]
LABELS = ["spam", "ham", "spam", "ham"]


@pytest.fixture
def saved(tmp_path):
    """A model saved with a fitted vectorizer and its training input; (path, model, vectorizer)."""
    vectorizer = TfidfVectorizer().fit(DOCUMENTS)
    model = nbfast.MultinomialNB().fit(vectorizer.transform(DOCUMENTS), LABELS)
    path = tmp_path / "m.nbf"
    nbfast.save(model, path, vectorizer=vectorizer, training_input={"kind": "text", "zero_based": None})
    return path, model, vectorizer


def test_what_it_holds_is_what_the_loaders_give(saved):
    path, model, vectorizer = saved
    with persist.ModelFile(path) as model_file:
        loaded, stored, training_input = model_file.model(), model_file.vectorizer(), model_file.training_input()
    X = vectorizer.transform(DOCUMENTS)
    np.testing.assert_array_equal(loaded.predict_proba(X), model.predict_proba(X))
    np.testing.assert_array_equal(stored.transform(DOCUMENTS).toarray(), X.toarray())
    assert training_input == persist.load_training_input(path) == {"kind": "text", "zero_based": None}


def test_the_header_is_read_once(saved, monkeypatch):
    path, _, _ = saved
    reads = []
    read_header = _model_file._read_header
    monkeypatch.setattr(_model_file, "_read_header", lambda f: reads.append(f) or read_header(f))
    with persist.ModelFile(path) as model_file:
        model_file.vectorizer()
        model_file.training_input()
        model_file.model()
    assert len(reads) == 1


def test_the_arrays_come_from_the_file_whose_header_was_read(saved, tmp_path):
    path, model, _ = saved
    other = tmp_path / "other.nbf"
    nbfast.save(nbfast.MultinomialNB().fit(np.eye(3), [0, 1, 2]), other)
    with persist.ModelFile(path) as model_file:
        os.replace(other, path)  # as save replaces a file
        loaded = model_file.model()
    np.testing.assert_array_equal(loaded.feature_log_prob_, model.feature_log_prob_)


def test_errors_name_the_file_and_it_is_closed(saved, tmp_path):
    path, _, _ = saved
    data = bytearray(path.read_bytes())
    data[-1] ^= 1
    corrupted = tmp_path / "corrupted.nbf"
    corrupted.write_bytes(bytes(data))
    with persist.ModelFile(corrupted) as model_file:
        assert model_file.vectorizer() is not None  # the header is intact
        with pytest.raises(ModelFormatError, match=f"^{corrupted}: corrupted: the data checksum"):
            model_file.model()
    assert model_file._f.closed
    empty = tmp_path / "empty.nbf"
    empty.write_bytes(b"")
    with pytest.raises(ModelFormatError, match=f"^{empty}: empty file"):
        persist.ModelFile(empty)


def test_a_stored_vocabulary_becomes_a_dict_only_when_read(saved):
    path, _, vectorizer = saved
    loaded = persist.load_vectorizer(path)
    X = loaded.transform(DOCUMENTS)
    assert "vocabulary_" not in vars(loaded)  # transform reads the kernels' table, built from the stored terms
    np.testing.assert_array_equal(X.toarray(), vectorizer.transform(DOCUMENTS).toarray())
    assert loaded.vocabulary_ == vectorizer.vocabulary_
    assert all(type(index) is int for index in loaded.vocabulary_.values())


def test_a_stored_term_with_a_lone_surrogate_comes_back(tmp_path):
    terms = ["cheap", "x\ud800y", "noon"]
    vectorizer = TfidfVectorizer(vocabulary=terms).fit(DOCUMENTS)
    model = nbfast.MultinomialNB().fit(vectorizer.transform(DOCUMENTS), LABELS)
    nbfast.save(model, tmp_path / "m.nbf", vectorizer=vectorizer)
    loaded = persist.load_vectorizer(tmp_path / "m.nbf")
    assert loaded.vocabulary_ == {term: index for index, term in enumerate(terms)}
    np.testing.assert_array_equal(loaded.idf_, vectorizer.idf_)
