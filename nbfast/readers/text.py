"""Chunked readers of raw text for the streaming command line: documents to CSR blocks.

Three layouts, one record per line (UTF-8 unless told otherwise, optionally ``.gz`` or ``.bz2``):

- ``lines``: the whole line is the document (no labels: for ``nbfast predict``);
- ``tsv``: the label, a tab, then the document (which may hold spaces and tabs);
- ``jsonl``: one JSON object per line, the label and the document in named fields.

Each reader yields :class:`nbfast.readers.Block` s of at most ``chunk_size`` lines,
one row per line (an empty document is a row of zeros, so output rows match
input lines), vectorized by the given vectorizer.
Without a vectorizer the rows are empty: the label scan of ``nbfast train``
needs the labels only.  A UTF-8 byte order mark and the spaces around a label
are dropped.  A malformed line raises ValueError naming the file and line.
"""

import codecs
import json

import numpy as np

from nbfast import _sparse as sp
from nbfast._kernels import lines as _lines
from nbfast.readers._block import Block, finished, line_chunks, ordered_map, quote_line
from nbfast.text import VECTORIZERS
from nbfast.text._analysis import AnalysisMixin
from nbfast.text._lines import TextLines, Utf8Lines
from nbfast.text._params import DECODE_ERRORS

TEXT_FORMATS = ("lines", "tsv", "jsonl")
_NBFAST_VECTORIZERS = frozenset(VECTORIZERS.values())
#: Numbers are exact in float64 up to this magnitude: a numeric label beyond could merge with another.
_EXACT_INTEGERS = 2**53


class _LineError(ValueError):
    """A problem with one line, numbered within its block."""

    def __init__(self, index, message):
        super().__init__(message)
        self.index = index

    def in_file(self, path, first_line, lines):
        """The ValueError to raise: the problem, named by file and line, and the line quoted."""
        return ValueError(f"{path} line {first_line + self.index}: {self}: {quote_line(lines[self.index])}")


def check_encoding(encoding, decode_error):
    """Refuse an unknown encoding, one that does not write a newline and a tab as the bytes ASCII does (the
    lines are found by their newline bytes: UTF-16 or UTF-32, say), and a ``decode_error`` not in
    :data:`DECODE_ERRORS` (ValueError).  Returns the encoding's canonical name."""
    if decode_error not in DECODE_ERRORS:
        raise ValueError(f"decode_error must be one of {', '.join(DECODE_ERRORS)}; got {decode_error!r}")
    try:
        name = codecs.lookup(encoding).name
        ascii_lines = b"\n\t".decode(name) == "\n\t" and not name.startswith(("utf-16", "utf-32"))
    except (LookupError, TypeError):  # unknown, or not a text encoding (rot13, base64)
        raise ValueError(f"unknown text encoding {encoding!r}") from None
    except UnicodeDecodeError:
        ascii_lines = False
    if not ascii_lines:
        raise ValueError(f"the encoding {encoding!r} does not write a line end as one newline byte; convert the "
                         "text to UTF-8 first")
    return name


def _decode(lines, encoding, decode_error):
    """The lines of a block as one str; with ``decode_error="strict"``, bytes not valid in ``encoding`` name
    their line and the parameters that read them."""
    try:
        return lines.data.decode(encoding, decode_error)
    except UnicodeDecodeError:
        for index, line in enumerate(lines):
            try:
                line.decode(encoding)
            except UnicodeDecodeError as exc:
                shown = "UTF-8" if encoding == "utf-8" else encoding
                raise _LineError(index, f"not valid {shown} ({exc.reason} at byte {exc.start}; give the file's "
                                        "encoding as encoding=NAME, or decode_error='replace' or 'ignore' to read "
                                        "it anyway)") from None
        raise  # pragma: no cover - the block fails only where a line does


def _split_lines(lines, decoding, tsv):
    """(the documents, as InPlaceDocuments; labels or None) of a block of ``lines`` (lines or tsv layout).

    A block of valid UTF-8 read as UTF-8 is split in its bytes, never decoded (the tokenizer reads UTF-8);
    any other is decoded first.  With ``tsv``, the labels are a function that makes their array: a block's
    labels cost nothing until used.
    """
    n = len(lines)
    spans = [np.empty(n, np.int64) for _ in range(4 if tsv else 2)]
    start, stop, label_start, label_stop = spans if tsv else spans * 2
    if decoding[0] == "utf-8" and _lines.utf8_error(lines.data) < 0:
        found, bad, problem = _lines.split_utf8_lines(lines.data, tsv, start, stop, label_start, label_stop)
        return _documents_and_labels(Utf8Lines, lines.data, n, found, bad, problem, spans, tsv)
    text = _decode(lines, *decoding)
    found, bad, problem = _lines.split_lines(text, tsv, start, stop, label_start, label_stop)
    return _documents_and_labels(TextLines, text, n, found, bad, problem, spans, tsv)


def _documents_and_labels(kind, text, n, found, bad, problem, spans, tsv):
    """What :func:`_split_lines` returns, of a split block's ``text`` (its str or bytes) and spans; a malformed
    line raises its _LineError."""
    if bad >= 0:
        raise _LineError(bad, "no tab (expected label<TAB>text)" if problem == _lines.NO_TAB else "empty label")
    if found != n:  # pragma: no cover - the file's lines end at the newlines the kernel splits at
        raise ValueError(f"found {found} lines in a block of {n}")
    if not tsv:
        return kind(text, *spans[:2]), None
    labels = kind(text, *spans[2:])
    if ("\0" if isinstance(text, str) else b"\0") in text:  # rare: then each label is looked at
        _check_label_ends(labels)
    return kind(text, *spans[:2]), labels.to_array


#: An array of str drops trailing NULs: "a\0" would become the class "a".
_NUL_END = "the label ends with a NUL character (U+0000), which an array of labels would drop, making it another label"


def _check_label_ends(labels):
    """Refuse (_LineError) a label that ends with NUL."""
    for index, label in enumerate(labels):
        if label.endswith("\0"):
            raise _LineError(index, _NUL_END)


def _parse_lines(lines, decoding, fields):
    return _split_lines(lines, decoding, tsv=False)


def _parse_tsv(lines, decoding, fields):
    return _split_lines(lines, decoding, tsv=True)


def _json_type(value):
    return "null" if value is None else {str: "a string", bool: "a boolean", dict: "an object",
                                         list: "an array"}.get(type(value), "a number")


def _parse_jsonl(lines, decoding, fields):
    text = _decode(lines, *decoding)
    label_field, text_field = fields
    labels, documents = [], []
    for index, line in enumerate(text.split("\n")[: len(lines)]):
        try:
            record = json.loads(line)
        except ValueError as exc:
            raise _LineError(index, f"malformed JSON ({exc})") from None
        except RecursionError:
            raise _LineError(index, "JSON nested too deeply") from None
        if not isinstance(record, dict):
            raise _LineError(index, f"expected a JSON object, got {_json_type(record)}")
        document = record.get(text_field)
        if not isinstance(document, str):
            what = "missing" if text_field not in record else f"{_json_type(document)}, not a string"
            raise _LineError(index, f"field {text_field!r} is {what}")
        documents.append(document)
        if label_field is not None:
            if label_field not in record:
                raise _LineError(index, f"field {label_field!r} is missing")
            label = record[label_field]
            if isinstance(label, bool) or not isinstance(label, (str, int, float)):
                raise _LineError(index, f"field {label_field!r} is {_json_type(label)}, not a string or a number")
            if isinstance(label, str):
                label = label.strip()
                if label.endswith("\0"):
                    raise _LineError(index, _NUL_END)
            elif abs(label) > _EXACT_INTEGERS:
                raise _LineError(index, f"label {label!r} is beyond 2**53 in magnitude: such numbers are not exact "
                                        "in float64 and two labels could become one class; write it as a string")
            labels.append(label)
    return documents, (labels if label_field is not None else None)


_PARSERS = {"lines": _parse_lines, "tsv": _parse_tsv, "jsonl": _parse_jsonl}


def _check_label_kinds(labels, labels_are_text):
    """Whether the file's labels are strings (decided by its first label); a label of the other kind raises."""
    kinds = [isinstance(label, str) for label in labels]
    if labels_are_text is None:
        labels_are_text = kinds[0]
    if not all(kind == labels_are_text for kind in kinds):
        first, earlier = ("number", "strings") if labels_are_text else ("string", "numbers")
        raise _LineError(kinds.index(not labels_are_text), f"label is a {first}, earlier labels are {earlier}")
    return labels_are_text


def document_rows(vectorizer, documents):
    """The documents' CSR rows: an nbfast vectorizer's buffers as its kernels made them (no scipy matrix, so
    reading needs no scipy.sparse), another vectorizer's ``transform`` (a subclass's own included); without a
    vectorizer (None), empty rows."""
    if vectorizer is None:
        return sp.Rows(np.zeros(0), np.zeros(0, np.int32), np.zeros(len(documents) + 1, np.int32), (len(documents), 1))
    if type(vectorizer) in _NBFAST_VECTORIZERS:
        return vectorizer._transform_rows(documents)
    return sp.csr_matrix(vectorizer.transform(documents))


def import_dependencies(vectorizer):
    """Import, on the calling thread, the optional modules ``vectorizer`` needs to transform (scikit-learn for
    settings nbfast's kernels do not implement, such as ``stop_words="english"`` or ``analyzer="char"``).

    The readers transform blocks in worker threads; a module imported for the first time by two of them at
    once can be seen half-initialised, so it is imported here, before any of them starts.  A missing one
    raises :class:`nbfast._compat.MissingDependency` here too.  A vectorizer that is not nbfast's was made
    with its own modules already imported.
    """
    if isinstance(vectorizer, AnalysisMixin):
        vectorizer._import_dependencies()


def iter_text(path, chunk_size, text_format, *, vectorizer=None, fields=("label", "text"), header=False,
              encoding="utf-8", decode_error="strict", then=None):
    """The :class:`nbfast.readers.Block` s of at most ``chunk_size`` lines of a text file, as an iterator.

    Parameters
    ----------
    path : str or path-like
    chunk_size : int
        Lines per block.
    text_format : {"lines", "tsv", "jsonl"}
        The layout (see the module docstring).
    vectorizer : fitted vectorizer, default=None
        Turns each block's documents into CSR rows (an :mod:`nbfast.text` vectorizer, or any with
        ``transform``); None gives empty rows.
    fields : (str or None, str), default=("label", "text")
        JSONL field names of the label (None: no labels read) and of the document.
    header : bool, default=False
        Skip the first line (a header).
    encoding : str, default="utf-8"
        The text's encoding: one that writes a newline as the byte ``\\n`` (UTF-8, Latin-1, cp1252, ...).
    decode_error : {"strict", "replace", "ignore"}, default="strict"
        What a byte sequence not valid in ``encoding`` does, as the vectorizers' parameter of that name:
        raise a ValueError naming its line, become U+FFFD, or be dropped.
    then : callable, default=None
        A step run on each block in the thread that vectorized it (see :func:`nbfast.readers._block.finished`).

    The optional modules the vectorizer needs are imported by this call, on the calling thread (see
    :func:`import_dependencies`), before the threads that read the file start.
    """
    decoding = (check_encoding(encoding, decode_error), decode_error)
    import_dependencies(vectorizer)
    return _text_blocks(path, chunk_size, _PARSERS[text_format], vectorizer, fields, header, decoding, then)


def _text_blocks(path, chunk_size, parse, vectorizer, fields, header, decoding, then):
    """The generator :func:`iter_text` returns."""

    def parsed(chunk):
        """(the Block of a chunk of the file, its ``then`` step done; its JSON labels or None; its lines): made
        in parallel."""
        first_line, lines = chunk
        try:
            documents, labels = parse(lines, decoding, fields)
            if isinstance(labels, list):  # JSON labels: all strings or all numbers, as the block's first
                _check_label_kinds(labels, None)
        except _LineError as exc:
            raise exc.in_file(path, first_line, lines) from None
        X = document_rows(vectorizer, documents)
        y = np.array(labels) if isinstance(labels, list) else labels
        block = Block(path, X.data, X.indices, X.indptr, y, np.arange(first_line, first_line + len(documents)),
                      len(lines.data), documents=documents)
        return finished(block, then), (labels if isinstance(labels, list) else None), lines

    labels_are_text = None
    for block, json_labels, lines in ordered_map(parsed, line_chunks(path, chunk_size, header=header)):
        if json_labels is not None:  # strings or numbers, as the file's first
            try:
                labels_are_text = _check_label_kinds(json_labels, labels_are_text)
            except _LineError as exc:
                raise exc.in_file(path, int(block.row_numbers[0]), lines) from None
        yield block
