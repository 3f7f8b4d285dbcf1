"""The text reader: UTF-8 blocks split and vectorized in their bytes, never decoded, exactly as decoded text."""

import numpy as np
import pytest

from nbfast.readers import iter_text, text
from nbfast.text import TfidfVectorizer

DOCUMENTS = ["The cat sat", "", "ΟΔΥΣΣΕΥΣ and ΣΑΣ", "İstanbul İzmir cafés", "日本語 テキスト 😀😀 ok ok", "Tab\tin doc"]
LABELS = ["spam", "ham", "société", "日本", "spam", "ham"]


def write_tsv(path, labels, documents, encoding="utf-8"):
    path.write_bytes("".join(f"{label}\t{document}\n" for label, document in zip(labels, documents)).encode(encoding))
    return path


def read(path, vectorizer, chunk_size=4, **kwargs):
    blocks = list(iter_text(path, chunk_size, "tsv", vectorizer=vectorizer, **kwargs))
    rows = [block.to_csr(len(vectorizer.vocabulary_)).toarray() for block in blocks]
    return np.vstack(rows), np.concatenate([block.y for block in blocks])


def test_a_utf8_block_is_read_in_its_bytes_as_its_decoded_text(tmp_path, monkeypatch):
    vectorizer = TfidfVectorizer().fit(DOCUMENTS)
    expected = vectorizer.transform(DOCUMENTS).toarray()
    X, y = read(write_tsv(tmp_path / "a.tsv", LABELS, DOCUMENTS), vectorizer, encoding="utf-8")
    np.testing.assert_array_equal(X, expected)
    np.testing.assert_array_equal(y, np.array(LABELS))

    def decoded(*args):
        raise AssertionError("a UTF-8 block was decoded")

    monkeypatch.setattr(text, "_decode", decoded)
    X_bytes, y_bytes = read(tmp_path / "a.tsv", vectorizer)
    np.testing.assert_array_equal(X_bytes, expected)
    assert y_bytes.dtype == y.dtype and np.array_equal(y_bytes, y)


def test_another_encoding_is_decoded(tmp_path):
    documents, labels = ["café crème", "naïve"], ["été", "spam"]
    vectorizer = TfidfVectorizer().fit(documents)
    X, y = read(write_tsv(tmp_path / "a.tsv", labels, documents, "latin-1"), vectorizer, encoding="latin-1")
    np.testing.assert_array_equal(X, vectorizer.transform(documents).toarray())
    np.testing.assert_array_equal(y, np.array(labels))


@pytest.mark.parametrize("label", ["\u3000spam", "spam\xa0", "\x85spam\u2003"])
def test_a_label_with_unicode_whitespace_at_an_edge_is_stripped_as_str_strip(tmp_path, label):
    vectorizer = TfidfVectorizer().fit(DOCUMENTS)
    labels = [label, *LABELS[1:]]
    _, y = read(write_tsv(tmp_path / "a.tsv", labels, DOCUMENTS), vectorizer)
    np.testing.assert_array_equal(y, np.array([label.strip(), *LABELS[1:]]))


def test_a_label_of_unicode_whitespace_alone_is_empty(tmp_path):
    vectorizer = TfidfVectorizer().fit(DOCUMENTS)
    path = write_tsv(tmp_path / "a.tsv", ["spam", "\u3000\xa0", *LABELS[2:]], DOCUMENTS)
    with pytest.raises(ValueError, match="line 2: empty label"):
        read(path, vectorizer)


def test_invalid_utf8_names_its_line(tmp_path):
    vectorizer = TfidfVectorizer().fit(DOCUMENTS)
    path = write_tsv(tmp_path / "a.tsv", LABELS, DOCUMENTS)
    lines = path.read_bytes().split(b"\n")
    lines[4] = lines[4][:-1] + b"\xed\xa0\x80"  # a surrogate, which UTF-8 does not hold
    path.write_bytes(b"\n".join(lines))
    with pytest.raises(ValueError, match=r"line 5: not valid UTF-8 \(invalid continuation byte"):
        read(path, vectorizer)
    _, y = read(path, vectorizer, decode_error="replace")
    np.testing.assert_array_equal(y, np.array(LABELS))
