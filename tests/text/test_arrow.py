"""Columns of Arrow strings (pyarrow, pandas string[pyarrow], polars) vectorized in place: the same matrices as
the same documents in a list of str, nulls and malformed columns refused."""

import re

import numpy as np
import pytest

import nbfast
from nbfast.text import CountVectorizer, HashingVectorizer, TfidfVectorizer, _arrow

pa = pytest.importorskip("pyarrow")

#: Odd Unicode: final and non-final sigma, a dotted capital I (lowercases to two code points), a titlecase
#: digraph, a ligature, scripts without case, astral emoji, combining marks, empty and space-only documents.
DOCUMENTS = ["Hello World", "ΣΑΣ ΟΔΟΣ final Σ", "", "naïve café Straße", "İstanbul ǅemal ﬃx", "x y",
             "日本語 テキスト", "emoji 😀😀 ok", "ΣΣ", "   ", "e\u0301te\u0301 combining", "MIXED case Words"] * 4

VECTORIZERS = {
    "count": lambda: CountVectorizer(),
    "count bigrams, case kept": lambda: CountVectorizer(ngram_range=(1, 2), lowercase=False),
    "tfidf": lambda: TfidfVectorizer(sublinear_tf=True),
    "hashing": lambda: HashingVectorizer(n_features=2**10, batch_size=5),
    "char (scikit-learn's code path)": lambda: CountVectorizer(analyzer="char_wb", ngram_range=(2, 3)),
}


def _columns():
    columns = {
        "string": pa.array(DOCUMENTS),
        "large_string": pa.array(DOCUMENTS, pa.large_string()),
        "string_view": pa.array(DOCUMENTS, pa.string_view()),
        "sliced (non-zero offset)": pa.array(["before", *DOCUMENTS, "after"]).slice(1, len(DOCUMENTS)),
        "chunked, with an empty chunk": pa.chunked_array([DOCUMENTS[:7], [], DOCUMENTS[7:30], DOCUMENTS[30:]]),
    }
    pd = pytest.importorskip("pandas")
    columns["pandas string[pyarrow]"] = pd.Series(DOCUMENTS, dtype="string[pyarrow]")
    columns["pandas ArrowDtype"] = pd.Series(DOCUMENTS, dtype=pd.ArrowDtype(pa.large_string()))
    try:
        import polars
    except ImportError:
        pass
    else:
        columns["polars"] = polars.Series(DOCUMENTS)
    return columns


@pytest.mark.parametrize("kind", VECTORIZERS)
def test_a_column_gives_the_matrices_of_a_list_of_str(kind):
    expected_vectorizer = VECTORIZERS[kind]()
    expected = expected_vectorizer.fit_transform(DOCUMENTS)
    for name, column in _columns().items():
        vectorizer = VECTORIZERS[kind]()
        got = vectorizer.fit_transform(column)
        assert got.dtype == expected.dtype and got.shape == expected.shape, name
        np.testing.assert_array_equal(got.toarray(), expected.toarray(), err_msg=name)
        assert getattr(vectorizer, "vocabulary_", None) == getattr(expected_vectorizer, "vocabulary_", None), name
        np.testing.assert_array_equal(expected_vectorizer.transform(column).toarray(), expected.toarray(),
                                      err_msg=name)


def test_the_kernels_read_the_bytes_without_a_str_per_document(monkeypatch):
    column = pa.array(DOCUMENTS)
    expected = CountVectorizer().fit_transform(DOCUMENTS)
    made = []

    def refused(self):
        raise AssertionError("the documents were turned into Python str")

    def one_document(self, index, getitem=_arrow.ArrowDocuments.__getitem__):
        made.append(index)
        return getitem(self, index)

    monkeypatch.setattr(_arrow.ArrowDocuments, "__iter__", refused)
    monkeypatch.setattr(_arrow.ArrowDocuments, "__getitem__", one_document)
    np.testing.assert_array_equal(CountVectorizer().fit_transform(column).toarray(), expected.toarray())
    sigma = [i for i, document in enumerate(DOCUMENTS) if "\u03a3" in document]
    assert [i for i in made if not isinstance(i, slice)] == sigma  # str.lower decides their final sigma


def test_a_pipeline_takes_a_dataframe_column():
    pd = pytest.importorskip("pandas")
    pipeline = pytest.importorskip("sklearn.pipeline")
    frame = pd.DataFrame({"text": pd.Series(DOCUMENTS, dtype="string[pyarrow]"), "label": [0, 1, 0, 1] * 12})
    fitted = pipeline.make_pipeline(TfidfVectorizer(), nbfast.MultinomialNB()).fit(frame["text"], frame["label"])
    reference = pipeline.make_pipeline(TfidfVectorizer(), nbfast.MultinomialNB()).fit(DOCUMENTS, frame["label"])
    np.testing.assert_array_equal(fitted.predict_proba(frame["text"]), reference.predict_proba(DOCUMENTS))


def test_null_documents_are_refused_with_what_to_do():
    with pytest.raises(ValueError, match=r"2 of the 4 documents are null: fill them first.*fill_null"):
        CountVectorizer().fit_transform(pa.array(["a b", None, "c d", None]))
    with pytest.raises(ValueError, match="1 of the 3 documents are null"):
        HashingVectorizer().transform(pa.chunked_array([["a b"], [None, "c"]]))


def test_columns_that_do_not_hold_strings_are_refused():
    with pytest.raises(TypeError, match="documents must be strings; the Arrow column holds int64"):
        CountVectorizer().fit_transform(pa.array([1, 2, 3]))
    with pytest.raises(TypeError, match="holds binary"):
        HashingVectorizer().transform(pa.array([b"a b", b"c"]))


def test_malformed_utf8_is_refused_before_any_kernel_runs():
    data = pa.py_buffer(b"ok\xff\xfebad")  # not UTF-8
    offsets = pa.py_buffer(np.array([0, 2, 7], dtype=np.int32).tobytes())
    column = pa.Array.from_buffers(pa.string(), 2, [None, offsets, data])
    with pytest.raises(ValueError, match="the Arrow column is malformed"):
        CountVectorizer().fit_transform(column)


def from_buffers(data, offsets, kind=None, offset=0):
    """An Arrow string array of the raw bytes ``data`` cut at ``offsets``, not checked."""
    kind = pa.string() if kind is None else kind
    width = np.int64 if kind == pa.large_string() else np.int32
    buffers = [None, pa.py_buffer(np.array(offsets, width).tobytes()), pa.py_buffer(data)]
    return pa.Array.from_buffers(kind, len(offsets) - 1 - offset, buffers, offset=offset)


@pytest.mark.parametrize("kind", [pa.string(), pa.large_string()])
@pytest.mark.parametrize(("data", "offsets", "message"), [
    ("é".encode() + b"ab", [0, 1, 4], r"string 0 is not valid UTF-8 \(byte 0xc3 at its offset 0\)"),
    (b"ok" + "\U0001F600".encode() + b"x", [0, 2, 4, 7], r"string 1 is not valid UTF-8 \(byte 0xf0 at its offset 0\)"),
    ("aé".encode(), [0, 2, 2, 3], r"string 0 is not valid UTF-8 \(byte 0xc3 at its offset 1\)"),
], ids=["two-byte character", "four-byte character", "empty string between"])
def test_a_string_boundary_inside_a_character_is_refused(data, offsets, message, kind):
    """The bytes back to back are valid UTF-8, the strings are not: each is judged alone, as Python would."""
    column = from_buffers(data, offsets, kind)
    assert data.decode()
    for vectorizer in (CountVectorizer(), HashingVectorizer()):
        with pytest.raises(ValueError, match=f"the Arrow column is malformed: {message}"):
            vectorizer.fit_transform(column)


def test_invalid_bytes_in_one_string_name_it():
    column = from_buffers(b"fine" + b"ok\xed\xa0\x80" + b"also fine", [0, 4, 9, 18])
    with pytest.raises(ValueError, match=r"malformed: string 1 is not valid UTF-8 \(byte 0xed at its offset 2\)"):
        CountVectorizer().fit_transform(column)
    fitted = CountVectorizer().fit(["fine"])
    with pytest.raises(ValueError, match="string 1 is not valid UTF-8"):
        fitted.transform(pa.chunked_array([["x y"], column]))


def test_bytes_outside_a_sliced_array_are_not_its_documents():
    """Only the bytes between a slice's first and last offsets belong to it: invalid ones around are not
    read."""
    data = b"\xff" + b"ok go" + "Σx".encode() + b"\xfe"
    sliced = from_buffers(data, [0, 1, 6, 9, 10]).slice(1, 2)
    with_offset = from_buffers(data, [0, 1, 6, 9, 10], offset=1).slice(0, 2)
    expected = CountVectorizer().fit_transform(["ok go", "Σx"])
    for column in (sliced, with_offset, pa.chunked_array([sliced])):
        np.testing.assert_array_equal(CountVectorizer().fit_transform(column).toarray(), expected.toarray())


def test_decreasing_offsets_are_refused():
    for offsets, at in (([0, 4, 2, 6], "string 1 (from 4 to 2)"), ([0, 9, 6], "string 1 (from 9 to 6)")):
        column = from_buffers(b"abcdef", offsets)
        with pytest.raises(ValueError, match=re.escape(f"the Arrow column is malformed: the offsets decrease at {at}")):
            HashingVectorizer().transform(column)


def test_a_large_column_is_checked_in_parallel_parts(monkeypatch):
    """Parts of the column checked by several threads find the first invalid string, and every capital sigma."""
    monkeypatch.setattr(_arrow, "MIN_UTF8_BYTES_PER_THREAD", 16)
    monkeypatch.setattr(_arrow, "effective_n_threads", lambda: 4)
    documents = [f"doc {i} ΣΑΣ" if i % 7 == 0 else f"doc {i} é" for i in range(200)]
    column = pa.array(documents)
    np.testing.assert_array_equal(CountVectorizer().fit_transform(column).toarray(),
                                  CountVectorizer().fit_transform(documents).toarray())
    sigma = _arrow.arrow_documents(column).sigma
    np.testing.assert_array_equal(sigma, ["Σ" in document for document in documents])
    data = b"".join(document.encode() for document in documents)
    offsets = np.cumsum([0, *(len(document.encode()) for document in documents)])
    bad = bytearray(data)
    for i in (120, 180):  # in two of the later parts: the first is named
        bad[offsets[i] + 1] = 0xFF
    with pytest.raises(ValueError, match=r"string 120 is not valid UTF-8 \(byte 0xff at its offset 1\)"):
        CountVectorizer().fit_transform(from_buffers(bytes(bad), offsets))
