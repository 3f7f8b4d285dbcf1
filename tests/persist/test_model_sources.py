"""Models saved to and loaded from bytes and file objects, and two-step pipelines saved whole: the same model file,
read with the same checks, as with a path."""

import io
from pathlib import Path

import numpy as np
import pytest

import nbfast
from nbfast import ModelFormatError, persist
from nbfast.text import CountVectorizer

DATA = Path(__file__).parents[1] / "data"
STORED = sorted(DATA.glob("*.nbf"))
DOCUMENTS = ["cheap pills now", "meeting at noon", "cheap meeting pills", "noon now", "pills pills", "at noon"]
LABELS = ["spam", "ham", "spam", "ham", "spam", "ham"]


def _sources(path):
    """The file at ``path`` as each kind of source load takes."""
    raw = path.read_bytes()
    return {"path": path, "str": str(path), "bytes": raw, "bytearray": bytearray(raw), "memoryview": memoryview(raw),
            "BytesIO": io.BytesIO(raw), "open file": open(path, "rb")}


def _probabilities(model):
    X = np.random.default_rng(0).integers(0, 3, size=(5, model.n_features_in_))
    return model.predict_proba(X)


@pytest.mark.parametrize("path", STORED, ids=lambda path: path.stem)
def test_every_source_loads_the_same_model(path):
    expected = _probabilities(nbfast.load(path))
    for kind, source in _sources(path).items():
        model = nbfast.load(source)
        np.testing.assert_array_equal(_probabilities(model), expected, err_msg=kind)
        if hasattr(source, "close"):
            assert not source.closed, f"{kind}: the caller's file object was closed"
            source.close()


def test_saved_to_a_file_object_are_the_bytes_of_the_file(tmp_path):
    model = nbfast.load(STORED[0])
    nbfast.save(model, tmp_path / "m.nbf")
    buffer = io.BytesIO()
    nbfast.save(model, buffer)
    assert buffer.getvalue() == (tmp_path / "m.nbf").read_bytes()
    assert not buffer.closed


def test_a_file_object_is_read_from_its_position(tmp_path):
    model = nbfast.load(STORED[0])
    with open(tmp_path / "archive", "wb") as f:
        f.write(b"a prefix of another format")
        nbfast.save(model, f)
    with open(tmp_path / "archive", "rb") as f:
        f.seek(len(b"a prefix of another format"))
        np.testing.assert_array_equal(_probabilities(nbfast.load(f)), _probabilities(model))


def test_vectorizer_and_training_input_from_bytes(tmp_path):
    vectorizer = CountVectorizer().fit(DOCUMENTS)
    model = nbfast.MultinomialNB().fit(vectorizer.transform(DOCUMENTS), LABELS)
    buffer = io.BytesIO()
    nbfast.save(model, buffer, vectorizer=vectorizer, training_input={"kind": "text", "zero_based": None})
    raw = buffer.getvalue()
    stored = persist.load_vectorizer(raw)
    assert stored.vocabulary_ == vectorizer.vocabulary_
    assert persist.load_training_input(io.BytesIO(raw)) == {"kind": "text", "zero_based": None}


def test_a_pipeline_is_saved_as_its_model_and_vectorizer(tmp_path):
    pipeline = pytest.importorskip("sklearn.pipeline")
    fitted = pipeline.make_pipeline(CountVectorizer(), nbfast.MultinomialNB()).fit(DOCUMENTS, LABELS)
    nbfast.save(fitted, tmp_path / "m.nbf")
    model, vectorizer = nbfast.load(tmp_path / "m.nbf"), persist.load_vectorizer(tmp_path / "m.nbf")
    assert isinstance(model, nbfast.MultinomialNB) and isinstance(vectorizer, CountVectorizer)
    np.testing.assert_array_equal(model.predict_proba(vectorizer.transform(DOCUMENTS)), fitted.predict_proba(DOCUMENTS))


def test_pipelines_other_than_a_vectorizer_and_a_model_are_refused(tmp_path):
    pipeline = pytest.importorskip("sklearn.pipeline")
    preprocessing = pytest.importorskip("sklearn.preprocessing")
    fitted = pipeline.make_pipeline(CountVectorizer(), nbfast.MultinomialNB()).fit(DOCUMENTS, LABELS)
    with pytest.raises(TypeError, match="do not pass vectorizer= too"):
        nbfast.save(fitted, tmp_path / "m.nbf", vectorizer=fitted[0])
    three = pipeline.make_pipeline(CountVectorizer(), preprocessing.MaxAbsScaler(), nbfast.MultinomialNB())
    with pytest.raises(TypeError, match="this one has 3 steps"):
        nbfast.save(three.fit(DOCUMENTS, LABELS), tmp_path / "m.nbf")
    backwards = pipeline.Pipeline([("model", fitted[1]), ("vectorizer", fitted[0])])
    with pytest.raises(TypeError, match="cannot save a CountVectorizer"):
        nbfast.save(backwards, tmp_path / "m.nbf")
    assert not (tmp_path / "m.nbf").exists()


def test_sources_that_are_not_a_model_file_are_refused_clearly(tmp_path):
    raw = STORED[0].read_bytes()
    with pytest.raises(ModelFormatError, match="^<bytes>: truncated"):
        nbfast.load(raw[:-8])
    with pytest.raises(ModelFormatError, match="^<bytes>: empty file"):
        nbfast.load(b"")
    with pytest.raises(ModelFormatError, match="checksum"):
        nbfast.load(io.BytesIO(raw[:100] + bytes([raw[100] ^ 1]) + raw[101:]))
    with pytest.raises(ValueError, match="mmap=True maps a model file from its path"):
        nbfast.load(raw, mmap=True)
    with pytest.raises(TypeError, match="got int"):
        nbfast.load(3)
    with open(STORED[0], encoding="latin-1") as text, pytest.raises(TypeError, match="binary"):
        nbfast.load(text)
    with open(tmp_path / "m.nbf", "w") as text, pytest.raises(TypeError, match="binary"):
        nbfast.save(nbfast.load(raw), text)
