"""Documents as spans of one str or of one buffer of UTF-8 bytes (TextLines, Utf8Lines: what the text readers hand
to the vectorizers) vectorize exactly as the same documents given one str each; the line splitters find labels and
documents as str methods do; the UTF-8 check judges bytes as Python's decoder does."""

import numpy as np
import pytest

from nbfast._kernels import lines as _lines
from nbfast.text import CountVectorizer, HashingVectorizer, TfidfVectorizer
from nbfast.text._lines import DocumentBlocks, TextLines, Utf8Lines

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


def as_utf8_lines(documents):
    """Utf8Lines over the documents' UTF-8 bytes joined by newlines."""
    encoded = [document.encode("utf-8", "surrogatepass") for document in documents]
    stop = np.cumsum([len(d) + 1 for d in encoded]) - 1
    start = stop - np.array([len(d) for d in encoded])
    return Utf8Lines(b"\n".join(encoded), start.astype(np.int64), stop.astype(np.int64))


@pytest.mark.parametrize("make", [
    lambda: CountVectorizer(), lambda: CountVectorizer(lowercase=False, ngram_range=(1, 2)),
    lambda: TfidfVectorizer(batch_size=3), lambda: HashingVectorizer(n_features=64, batch_size=2),
])
@pytest.mark.parametrize("documents", [DOCUMENTS, ["plain ascii only", "two docs"], ["ΣΣ", "σ Σ ς"], ["x", "ΟΔΥΣΣΕΥΣ"]])
@pytest.mark.parametrize("spans", [as_lines, as_utf8_lines])
def test_text_lines_vectorize_as_their_strings(make, documents, spans):
    lines = spans(documents)
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


@pytest.mark.parametrize("texts", [["a", "", "bé", "日本\x00", "x\ud800y", "😀"], ["", ""], ["l" * 64, "m" * 65], ["ΣΣ"],
                                   ["spam", "ham", "spam", "eggs"], ["é", "e", "é", "日本"]])
@pytest.mark.parametrize("spans", [as_lines, as_utf8_lines])
def test_text_lines_to_array_as_numpy_makes_it(texts, spans):
    if spans is as_utf8_lines and any("\ud800" in text for text in texts):
        texts = [text.replace("\ud800", "\u0800") for text in texts]  # UTF-8 holds no lone surrogate
    array = spans(texts).to_array()
    expected = np.array(texts)
    assert array.dtype == expected.dtype and np.array_equal(array, expected)


def split_utf8(text, tsv, n):
    """split_lines on the UTF-8 bytes of ``text``, the spans decoded."""
    data = text.encode()
    arrays = [np.zeros(n, np.int64) for _ in range(4)]
    found, bad, problem = _lines.split_utf8_lines(data, tsv, *arrays)
    start, stop, label_start, label_stop = arrays
    documents = [data[a:b].decode() for a, b in zip(start[:found], stop[:found])]
    labels = [data[a:b].decode() for a, b in zip(label_start[:found], label_stop[:found])]
    return found, bad, problem, documents, labels


@pytest.mark.parametrize("wide", ["", "日", "\U0001F600"])
def test_split_utf8_lines_as_split_lines(wide):
    """Labels and documents as the str splitter finds them, in text with whitespace and wide characters."""
    rng = np.random.default_rng(1)
    alphabet = ["a", " ", "\r", "é", "\t", "\x1f", "\x0b"] + [wide] * bool(wide)
    label_alphabet = alphabet[:4] + alphabet[5:]  # no tab: the label's edges are the ASCII x and y
    rows = ["x" + "".join(rng.choice(label_alphabet, size)) + "y\t" + "".join(rng.choice(alphabet, rest)).rstrip("\r")
            for size, rest in rng.integers(0, 9, (300, 2))]
    text = "\n".join(rows)
    for tsv in (True, False):
        assert split_utf8(text, tsv, len(rows)) == split(text, tsv, len(rows))
    assert split_utf8(" a \x1c\tdoc\n", True, 1)[3:] == (["doc"], ["a"])  # ASCII whitespace as str.strip sees it
    assert split_utf8("\tdoc\n\n", False, 2)[3] == ["\tdoc", ""]


@pytest.mark.parametrize("label", ["\u3000spam", "spam\xa0", "\x85x\u2003", " é ", "日本", "\u3000\U0001F600\u205f"])
def test_split_utf8_lines_strips_labels_as_str_strip(label):
    """U+3000, U+00A0, U+0085 ... are whitespace to str.strip: decoded at a label's edges, they are stripped."""
    text = f"ok\tdoc\n{label}\tdoc\n"
    assert split_utf8(text, True, 2) == split(text, True, 2)
    assert split_utf8(text, True, 2)[4][1] == label.strip()


def test_split_utf8_lines_names_the_first_malformed_line():
    assert split_utf8("a\tx\nno tab here\n \t\n", True, 3)[1:3] == (1, _lines.NO_TAB)
    assert split_utf8("a\tx\n \t\tdoc\n", True, 2)[1:3] == (1, _lines.EMPTY_LABEL)
    assert split_utf8("a\tx\n\u3000\xa0\tdoc\n", True, 2)[1:3] == (1, _lines.EMPTY_LABEL)


def python_utf8_error(data):
    try:
        data.decode("utf-8")
    except UnicodeDecodeError as exc:
        return exc.start
    return -1


def test_utf8_error_judges_every_one_and_two_byte_sequence_as_python():
    for first in range(256):
        assert _lines.utf8_error(bytes([first])) == python_utf8_error(bytes([first])), first
        pairs = np.stack([np.full(256, first), np.arange(256)], axis=1).astype(np.uint8)
        for pair in pairs:
            data = pair.tobytes()
            assert _lines.utf8_error(data) == python_utf8_error(data), data


def test_utf8_error_judges_longer_sequences_as_python():
    """Lead bytes of three and four byte sequences with continuations at and beyond their ranges' edges, after
    runs of ASCII of every length (the kernel reads eight bytes at a time)."""
    rng = np.random.default_rng(0)
    edges = [0x00, 0x7F, 0x80, 0x8F, 0x90, 0x9F, 0xA0, 0xBF, 0xC0, 0xFF]
    for lead in range(0xE0, 0x100):
        for _ in range(40):
            data = b"a" * int(rng.integers(0, 17)) + bytes([lead, *rng.choice(edges, 3)]) + b"z" * int(rng.integers(0, 3))
            assert _lines.utf8_error(data) == python_utf8_error(data), data
    text = "".join(rng.choice(list("aé日\U0001F600 \n"), 5000)).encode()
    assert _lines.utf8_error(text) == -1
    for cut in rng.integers(0, len(text), 200):
        for data in (text[:cut], text[cut:], text[:cut] + b"\xff" + text[cut:]):
            assert _lines.utf8_error(data) == python_utf8_error(data)


def test_utf8_holding_sigma_finds_the_documents_holding_a_capital_sigma():
    documents = ["Σ", "xΣ", "ΟΔΥΣΣΕΥΣ", "σς", "\u03ce\u03a2", "", "ΣΑΣ z"]
    lines = as_utf8_lines(documents)
    found = np.empty(len(documents), np.uint8)
    buffer = np.frombuffer(lines.data, np.uint8)
    assert _lines.utf8_holding_sigma(buffer, lines.start, lines.stop, found) == 4
    np.testing.assert_array_equal(found, ["Σ" in document for document in documents])
    with pytest.raises(ValueError, match="outside the buffer"):
        _lines.utf8_holding_sigma(buffer, lines.start, lines.stop + len(lines.data), found)


def strings_error(strings):
    """utf8_strings_error of byte strings back to back, and the sigma it found."""
    offsets = np.zeros(len(strings) + 1, np.int64)
    np.cumsum([len(string) for string in strings], out=offsets[1:])
    sigma = np.zeros(len(strings), np.uint8)
    return _lines.utf8_strings_error(np.frombuffer(b"".join(strings), np.uint8), offsets, sigma), sigma


def test_utf8_strings_error_judges_each_string_as_python():
    """Each string alone, as Python decodes it: a string cut inside a character is invalid even where the
    bytes back to back are valid UTF-8."""
    rng = np.random.default_rng(1)
    text = "".join(rng.choice(list("aé日\U0001F600 ΣΑ"), 3000)).encode()
    cuts = np.sort(rng.integers(0, len(text), 300))
    strings = [text[a:b] for a, b in zip([0, *cuts], [*cuts, len(text)])]
    errors = [python_utf8_error(string) for string in strings]
    first = next((i for i, error in enumerate(errors) if error >= 0), -1)
    assert first >= 0 and _lines.utf8_error(text) == -1
    assert strings_error(strings)[0] == (first, errors[first])
    valid = [string for string in strings if python_utf8_error(string) < 0]
    (found, sigma) = strings_error(valid)
    assert found == (-1, -1)
    np.testing.assert_array_equal(sigma, ["Σ" in string.decode() for string in valid])


def test_utf8_strings_error_refuses_offsets_outside_the_data():
    data, sigma = np.frombuffer(b"abcdef", np.uint8), np.zeros(2, np.uint8)
    for offsets in ([0, 4, 2], [0, 2, 7], [-1, 2, 6]):
        with pytest.raises(ValueError, match="the offsets decrease or point outside the data"):
            _lines.utf8_strings_error(data, np.array(offsets, np.int64), sigma)
    with pytest.raises(ValueError, match="one entry per string"):
        _lines.utf8_strings_error(data, np.array([0, 6], np.int64), sigma)
