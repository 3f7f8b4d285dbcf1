"""What every nbfast vectorizer shares: reading documents in batches, describing a batch
for the tokenizer kernel (``nbfast._kernels.tokens``), the lowercase table, CSR assembly
and the fallback to scikit-learn (their parameters: :mod:`nbfast.text._params`)."""

import functools
import threading
from itertools import islice
from typing import NamedTuple

import numpy as np

from nbfast import _compat
from nbfast import _sparse as sp
from nbfast._kernels import tokens as _tokens
from nbfast._kernels.threads import effective_n_threads
from nbfast.text._arrow import ArrowColumn, arrow_column
from nbfast.text._lines import DocumentBlocks, InPlaceDocuments

DEFAULT_TOKEN_PATTERN = r"(?u)\b\w\w+\b"
INT32_MAX = np.iinfo(np.int32).max
MAX_CODE_POINT = 0x110000
MIN_CODE_POINTS_PER_THREAD = 50_000
EXPANSION = 0x80000000  # lowercase table entries pointing to a multi-code-point expansion
# scikit-learn's norm options as the codes of the kernels (the Norm enum of nbfast/_kernels/_rows.pxd).
NORM_CODES = {None: 0, "l1": 1, "l2": 2}


def uses_native_tokenizer(estimator):
    """Whether documents go through the kernels' tokenizer: the word analyzer of the default
    token pattern, no preprocessor, tokenizer or accent stripping, and documents given as content."""
    return (
        estimator.input == "content"
        and isinstance(estimator.analyzer, str)
        and estimator.analyzer == "word"
        and estimator.preprocessor is None
        and estimator.tokenizer is None
        and not estimator.strip_accents
        and estimator.token_pattern == DEFAULT_TOKEN_PATTERN
    )


def sklearn_class(name, estimator, native):
    """scikit-learn's ``sklearn.feature_extraction.text.<name>``, for what nbfast does not implement."""
    return _compat.sklearn_class("feature_extraction.text", name,
                                 f"nbfast.text.{type(estimator).__name__} beyond {native}")


def transformer_tags(preserves_dtype):
    """scikit-learn's TransformerTags (for ``__sklearn_tags__``, which only scikit-learn calls)."""
    return _compat.sklearn_module("utils", "estimator tags").TransformerTags(
        preserves_dtype=list(preserves_dtype)
    )


# ----------------------------------------------------------------------------- documents
def check_not_string(X):
    if isinstance(X, str):
        raise ValueError("Iterable over raw text documents expected, string object received.")


def documents(X):
    """The documents X as the vectorizers read them: a column of Arrow strings as an ArrowColumn (read in place),
    any other iterable as it is; a str is refused."""
    check_not_string(X)
    column = arrow_column(X)
    return X if column is None else column


def batches(X, batch_size):
    """The documents of the iterable X, ``batch_size`` at a time, as lists (as slices of X when it is
    InPlaceDocuments, as ArrowDocuments of one chunk for an ArrowColumn; the blocks of DocumentBlocks as they
    come, cut at ``batch_size``)."""
    if isinstance(X, InPlaceDocuments):
        yield from (X[start:start + batch_size] for start in range(0, len(X), batch_size))
        return
    if isinstance(X, ArrowColumn):
        yield from X.blocks(batch_size)
        return
    if isinstance(X, DocumentBlocks):
        for block in X.blocks:
            yield from (block[start:start + batch_size] for start in range(0, len(block), batch_size))
        return
    documents = iter(X)
    while chunk := list(islice(documents, batch_size)):
        yield chunk


def decode(doc, encoding, decode_error):
    """A document as str, the way scikit-learn's ``decode`` takes it."""
    if isinstance(doc, bytes):
        return doc.decode(encoding, decode_error)
    if isinstance(doc, str):
        return doc
    if doc is np.nan:
        raise ValueError("np.nan is an invalid document, expected byte or unicode string.")
    raise TypeError(f"Documents must be str or bytes, got {type(doc).__name__}.")


class DocumentBatch(NamedTuple):
    """A list of documents described for the kernels."""

    documents: list  # the str (they must stay alive while the kernels read them)
    keep_alive: list  # documents lowercased by Python
    views: _tokens.Documents  # what the kernels read
    n_threads: int
    max_tokens: np.ndarray  # per document, an upper bound on its tokens

    def ngram_bounds(self, ngram_range):
        """(min_n, max_n) for the kernels: the same n-grams, max_n at most the tokens of the longest
        document (min_n just above it when no document is that long), so any ngram_range fits a C int
        and costs nothing beyond the tokens there are."""
        min_n, max_n = ngram_range
        longest = int(self.max_tokens.max())
        max_n = min(max_n, longest)
        return min(min_n, max_n + 1), max_n

    def feature_slots(self, ngram_range):
        """Per document, the offset of a slot that holds all its n-grams (n_documents + 1 entries)."""
        min_n, max_n = self.ngram_bounds(ngram_range)
        # a document of T tokens has T - n + 1 n-grams for each n <= T: summed over min_n <= n <= min(max_n, T)
        top = np.minimum(self.max_tokens, max_n)
        sizes = np.maximum(top - min_n + 1, 0)
        slots = sizes * (self.max_tokens + 1) - sizes * (min_n + top) // 2
        raw_ptr = np.zeros(len(self.documents) + 1, dtype=np.int64)
        np.cumsum(slots, out=raw_ptr[1:])
        return raw_ptr


def prepare_documents(documents, lowercase, encoding, decode_error):
    """Describe a non-empty list of documents (str, or bytes decoded as scikit-learn does) or InPlaceDocuments,
    for the kernels."""
    if isinstance(documents, InPlaceDocuments):
        (data, kind, length, lower), keep_alive = documents.views(lowercase)
    else:
        if set(map(type, documents)) != {str}:  # (a set of the types: faster than a loop over the documents)
            documents = [decode(doc, encoding, decode_error) for doc in documents]
        n_documents = len(documents)
        data = np.empty(n_documents, dtype=np.uint64)  # buffer address
        kind = np.empty(n_documents, dtype=np.uint8)  # bytes per code point
        length = np.empty(n_documents, dtype=np.int64)  # length in code points
        lower = np.empty(n_documents, dtype=np.uint8)  # lowercase in the kernel
        keep_alive = _tokens.document_views(documents, bool(lowercase), data, kind, length, lower)
    table = lowercase_table() if lowercase else _IDENTITY_TABLE
    # a thread per MIN_CODE_POINTS_PER_THREAD: small batches do not pay for waking threads
    n_threads = int(min(effective_n_threads(), 1 + length.sum() // MIN_CODE_POINTS_PER_THREAD))
    # k tokens of >= 2 word characters need 3k - 1 code points after lowercasing
    max_tokens = (length * table.max_code_points + 1) // 3
    views = _tokens.Documents(
        data, kind, length, lower, *table.arrays, int(max_tokens.max()), int(length.max()) * table.max_utf8_bytes
    )
    return DocumentBatch(documents, keep_alive, views, n_threads, max_tokens)


class _LowercaseTable(NamedTuple):
    """Per-code-point lowercase for the kernels (see ``nbfast._kernels.tokens.Tables``)."""

    arrays: tuple  # (stage1 uint16, stage2 uint32, expansions uint32)
    max_code_points: int  # code points one code point can become
    max_utf8_bytes: int  # UTF-8 bytes one code point can become


_IDENTITY_TABLE = _LowercaseTable(
    (np.zeros(1, dtype=np.uint16), np.zeros(1, dtype=np.uint32), np.zeros(1, dtype=np.uint32)), 1, 4
)


_LOWERCASE_TABLE_LOCK = threading.Lock()


def lowercase_table():
    """What ``str.lower`` makes of each code point alone, as a two-stage table, built once: threads that
    vectorize at once wait for the first to build it (tens of milliseconds) instead of building it again."""
    with _LOWERCASE_TABLE_LOCK:
        return _lowercase_table()


@functools.cache
def _lowercase_table():
    """The table :func:`lowercase_table` gives.

    Built from ``str.lower`` itself, on each code point it changes (those whose
    simple lowercase is another, found by a kernel without the GIL): only
    U+03A3's lowercase depends on its neighbours (documents containing it are
    lowercased by ``str.lower``; its entry is its lowercase alone).  The few that
    lower to several code points point to ``expansions``.
    """
    value = np.zeros(MAX_CODE_POINT, dtype=np.uint32)
    longer = {}
    for c in _tokens.lowercased_code_points().tolist():
        mapped = chr(c).lower()
        if len(mapped) > 1:
            longer[c] = mapped
        else:
            value[c] = ord(mapped)
    if any(len(mapped) > 3 for mapped in longer.values()):
        raise RuntimeError("nbfast.text: unexpected result of str.lower while building the lowercase table")
    expansions = np.zeros((len(longer) + 1, 4), dtype=np.uint32)
    max_utf8_bytes = 4
    for k, (c, mapped) in enumerate(sorted(longer.items())):
        expansions[k, 0] = len(mapped)
        expansions[k, 1 : 1 + len(mapped)] = [ord(m) for m in mapped]
        value[c] = EXPANSION | k
        max_utf8_bytes = max(max_utf8_bytes, len(mapped.encode("utf-8", "surrogatepass")))
    blocks = value.reshape(-1, 256)
    used = np.flatnonzero(blocks.any(axis=1))
    stage1 = np.zeros(len(blocks), dtype=np.uint16)
    stage1[used] = np.arange(1, len(used) + 1)
    stage2 = np.concatenate([np.zeros((1, 256), dtype=np.uint32), blocks[used]]).ravel()
    return _LowercaseTable((stage1, stage2, expansions.ravel()), max([1, *map(len, longer.values())]), max_utf8_bytes)


# ----------------------------------------------------------------------------- CSR
def index_dtype_for(nnz, n_columns=0):
    """scipy's choice of index dtype for a CSR matrix of ``nnz`` stored entries and ``n_columns`` columns."""
    return np.int32 if max(nnz, n_columns) <= INT32_MAX else np.int64


def stack_rows(parts):
    """Concatenate CSR batches row-wise (scipy keeps int32 indices while they fit, as the kernels do)."""
    return parts[0] if len(parts) == 1 else sp.vstack(parts, format="csr")


def as_configured_sparse(X):
    """X as csr_array when scikit-learn is configured with sparse_interface="sparray", else csr_matrix."""
    interface = _compat.get_config().get("sparse_interface")
    if interface == "sparray":
        return sp.csr_array(X)
    if interface == "spmatrix" and not isinstance(X, sp.spmatrix):
        return sp.csr_matrix(X)
    return X
