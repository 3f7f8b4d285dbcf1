"""Documents as spans of one str (TextLines, what the text readers hand to the vectorizers) vectorize exactly as
the same documents given one str each; the line splitter finds labels and documents as str methods do."""

import numpy as np
import pytest

from nbfast._kernels import lines as _lines
from nbfast.text import CountVectorizer, HashingVectorizer, TfidfVectorizer
from nbfast.text._lines import DocumentBlocks, TextLines

# Every kind of str buffer (1, 2 and 4 bytes per code point), a capital sigma (lowercased by str.lower), a
# code point lowercasing to two ("İ"), empty documents, and a document the kernel splits from its neighbours.
DOCUMENTS = [
    "The cat sat", "", "ΟΔΥΣΣΕΥΣ and ΣΑΣ", "İstanbul İzmir cafés", "日本語 テキスト 😀😀 ok ok", "x", "Tab\tin doc",
    "ÉCOLE école",
]


def as_lines(documents):
    """TextLines over the documents joined by newlines (as a file block is), and the text."""
    text = "\n".join(documents)
    stop = np.cumsum([len(d) + 1 for d in documents]) - 1
    start = stop - np.array([len(d) for d in documents])
    return TextLines(text, start.astype(np.int64), stop.astype(np.int64))


@pytest.mark.parametrize("make", [
    lambda: CountVectorizer(), lambda: CountVectorizer(lowercase=False, ngram_range=(1, 2)),
    lambda: TfidfVectorizer(batch_size=3), lambda: HashingVectorizer(n_features=64, batch_size=2),
])
@pytest.mark.parametrize("documents", [DOCUMENTS, ["plain ascii only", "two docs"], ["ΣΣ", "σ Σ ς"], ["x", "ΟΔΥΣΣΕΥΣ"]])
def test_text_lines_vectorize_as_their_strings(make, documents):
    lines = as_lines(documents)
    assert list(lines) == documents and [lines[i] for i in range(len(documents))] == documents
    assert list(lines[1:3]) == documents[1:3]
    expected = make().fit(documents).transform(documents)
    for fitted in (make().fit(documents), make().fit(lines)):
        X = fitted.transform(lines)
        assert X.dtype == expected.dtype and (X != expected).nnz == 0
        np.testing.assert_array_equal(X.indices, expected.indices)
        # spans out of order: the kernel looks for a capital sigma document by document
        assert (fitted.transform(lines[::-1]) != expected[::-1]).nnz == 0


def split(text, tsv, n):
    arrays = [np.zeros(n, np.int64) for _ in range(4)]
    found, bad, problem = _lines.split_lines(text, tsv, *arrays)
    start, stop, label_start, label_stop = arrays
    documents = [text[a:b] for a, b in zip(start[:found], stop[:found])]
    labels = [text[a:b] for a, b in zip(label_start[:found], label_stop[:found])]
    return found, bad, problem, documents, labels


@pytest.mark.parametrize("text", ["a\tb c\n", "  spam \u3000\tx\ty\r\nham\t\r\nΣ\tσ", "ham\t\n\n"[:-1]])
def test_split_lines_as_str_methods(text):
    rows = text.split("\n")
    rows = rows[:-1] if text.endswith("\n") else rows
    rows = [row.removesuffix("\r") for row in rows]
    found, bad, problem, documents, labels = split(text, True, len(rows))
    assert (found, bad, problem) == (len(rows), -1, 0)
    assert labels == [row.partition("\t")[0].strip() for row in rows]
    assert documents == [row.partition("\t")[2] for row in rows]
    found, bad, problem, documents, _ = split(text, False, len(rows))
    assert (found, bad, documents) == (len(rows), -1, rows)


@pytest.mark.parametrize("wide", ["", "日", "\U0001F600"])  # a str of 1, 2 and 4 bytes per code point
def test_split_lines_at_every_offset(wide):
    """Newlines and tabs at every position of the kernel's four-code-unit steps."""
    rng = np.random.default_rng(0)
    alphabet = ["a", " ", "\r", "é", "\t"] + [wide] * bool(wide)
    rows = ["x" + "".join(rng.choice(alphabet, size)) + "\t" + "".join(rng.choice(alphabet, rest)).rstrip("\r")
            for size, rest in rng.integers(0, 9, (300, 2))]
    text = "\n".join(rows)
    assert max(map(ord, text)) >= ord(wide or "é")
    found, bad, problem, documents, labels = split(text, True, len(rows))
    assert (found, bad, problem) == (len(rows), -1, 0)
    assert labels == [row.partition("\t")[0].strip() for row in rows]
    assert documents == [row.partition("\t")[2] for row in rows]


def test_split_lines_names_the_first_malformed_line():
    assert split("a\tx\nno tab here\n \t\n", True, 3)[1:3] == (1, _lines.NO_TAB)
    assert split("a\tx\n \u2003\tdoc\n", True, 2)[1:3] == (1, _lines.EMPTY_LABEL)
    assert split("one\ntwo\nthree", False, 2)[0] == 2  # no more lines than room for


@pytest.mark.parametrize("make", [lambda: CountVectorizer(batch_size=3), lambda: TfidfVectorizer(ngram_range=(1, 2))])
def test_document_blocks_fit_as_their_documents(make):
    """Blocks of TextLines and of lists (as the readers give them) build the vocabulary a flat list does."""
    blocks = [as_lines(DOCUMENTS[:3]), DOCUMENTS[3:5], as_lines(DOCUMENTS[5:])]
    expected = make().fit(DOCUMENTS)
    fitted = make().fit(DocumentBlocks(blocks))
    assert fitted.vocabulary_ == expected.vocabulary_
    assert (fitted.transform(DOCUMENTS) != expected.transform(DOCUMENTS)).nnz == 0
    assert list(DocumentBlocks(blocks)) == DOCUMENTS


@pytest.mark.parametrize("texts", [["a", "", "bé", "日本\x00", "x\ud800y", "😀"], ["", ""], ["l" * 64, "m" * 65], ["ΣΣ"]])
def test_text_lines_to_array_as_numpy_makes_it(texts):
    array = as_lines(texts).to_array()
    expected = np.array(texts)
    assert array.dtype == expected.dtype and np.array_equal(array, expected)
