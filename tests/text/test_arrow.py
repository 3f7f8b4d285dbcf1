"""Columns of Arrow strings (pyarrow, pandas string[pyarrow], polars) vectorized in place: the same matrices as
the same documents in a list of str, nulls and malformed columns refused."""

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
