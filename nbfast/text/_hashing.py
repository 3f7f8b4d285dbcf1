"""Raw text to CSR at kernel speed: a drop-in for scikit-learn's HashingVectorizer.

For the word analyzer with the default token pattern, documents are lowercased
and UTF-8 encoded in Python one batch at a time, then tokenized, hashed and
assembled into CSR rows by the OpenMP kernels of ``nbfast._kernels.hashing``,
without the GIL.  The matrix is the one scikit-learn's HashingVectorizer
returns, element for element.  Every other option (custom analyzer,
preprocessor, tokenizer, token_pattern, stop_words, strip_accents, character
n-grams, file input, other dtypes) runs scikit-learn's own HashingVectorizer on
each batch, so its results are identical by construction; it needs scikit-learn.
"""

import functools
from itertools import islice
from numbers import Integral
from typing import NamedTuple

import numpy as np
import scipy.sparse as sp

from nbfast import _compat
from nbfast._compat import BaseEstimator
from nbfast._kernels import hashing as _hashing
from nbfast._kernels.threads import effective_n_threads

DEFAULT_TOKEN_PATTERN = r"(?u)\b\w\w+\b"
NATIVE_DTYPES = (np.float32, np.float64)
INT32_MAX = np.iinfo(np.int32).max
MAX_CODE_POINT = 0x110000
MIN_CODE_POINTS_PER_THREAD = 50_000
EXPANSION = 0x80000000  # lowercase table entries pointing to a multi-code-point expansion
# The options scikit-learn's HashingVectorizer takes, in its constructor's order.
SKLEARN_PARAMS = (
    "input", "encoding", "decode_error", "strip_accents", "lowercase", "preprocessor", "tokenizer",
    "stop_words", "token_pattern", "ngram_range", "analyzer", "n_features", "binary", "norm",
    "alternate_sign", "dtype",
)  # fmt: skip


class HashingVectorizer(BaseEstimator):
    """Convert a collection of text documents to a matrix of hashed token occurrences.

    Same parameters and output as :class:`sklearn.feature_extraction.text.HashingVectorizer`,
    plus ``batch_size``.  The word analyzer with the default ``token_pattern``
    (optionally lowercased, any ``ngram_range``, float32/float64 ``dtype``) runs in
    nbfast's parallel kernels; any other configuration delegates each batch to
    scikit-learn, which must then be installed.

    Parameters
    ----------
    input : {"content", "filename", "file"}, default="content"
        What the documents are; anything but "content" is delegated to scikit-learn.
    encoding : str, default="utf-8"
        Encoding used to decode documents given as bytes.
    decode_error : {"strict", "ignore", "replace"}, default="strict"
        What to do with bytes that are not valid in ``encoding``.
    strip_accents : {"ascii", "unicode"} or callable, default=None
        Accent removal (delegated to scikit-learn).
    lowercase : bool, default=True
        Convert the documents to lowercase (Python's ``str.lower``) before tokenizing.
    preprocessor : callable, default=None
        Overrides the preprocessing stage (delegated to scikit-learn).
    tokenizer : callable, default=None
        Overrides the tokenizing stage (delegated to scikit-learn).
    stop_words : {"english"} or list, default=None
        Tokens removed before n-grams are formed (delegated to scikit-learn).
    token_pattern : str, default=r"(?u)\\b\\w\\w+\\b"
        What a token is; any other pattern is delegated to scikit-learn.
    ngram_range : tuple (min_n, max_n), default=(1, 1)
        Word n-grams with min_n <= n <= max_n, tokens joined by a single space.
    analyzer : {"word", "char", "char_wb"} or callable, default="word"
        Anything but "word" is delegated to scikit-learn.
    n_features : int, default=2**20
        Number of columns of the output.
    binary : bool, default=False
        Set every stored value to 1 (before normalizing).
    norm : {"l1", "l2"} or None, default="l2"
        Row normalization.
    alternate_sign : bool, default=True
        Sign each feature by its hash, so collisions tend to cancel.
    dtype : type, default=np.float64
        Data type of the output; float32 and float64 run natively.
    batch_size : int, default=16384
        Documents read from the input and vectorized at a time; the input is never
        held in memory as a whole.

    See Also
    --------
    sklearn.feature_extraction.text.HashingVectorizer : The reference implementation.

    Examples
    --------
    >>> from nbfast.text import HashingVectorizer
    >>> X = HashingVectorizer(n_features=16).transform(["the quick brown fox", "jumps"])
    >>> X.shape
    (2, 16)
    """

    def __init__(
        self,
        *,
        input="content",
        encoding="utf-8",
        decode_error="strict",
        strip_accents=None,
        lowercase=True,
        preprocessor=None,
        tokenizer=None,
        stop_words=None,
        token_pattern=DEFAULT_TOKEN_PATTERN,
        ngram_range=(1, 1),
        analyzer="word",
        n_features=(2**20),
        binary=False,
        norm="l2",
        alternate_sign=True,
        dtype=np.float64,
        batch_size=16384,
    ):
        self.input = input
        self.encoding = encoding
        self.decode_error = decode_error
        self.strip_accents = strip_accents
        self.lowercase = lowercase
        self.preprocessor = preprocessor
        self.tokenizer = tokenizer
        self.stop_words = stop_words
        self.token_pattern = token_pattern
        self.ngram_range = ngram_range
        self.analyzer = analyzer
        self.n_features = n_features
        self.binary = binary
        self.norm = norm
        self.alternate_sign = alternate_sign
        self.dtype = dtype
        self.batch_size = batch_size

    # ------------------------------------------------------------------ parameters
    def _validate_params(self):
        if not isinstance(self.n_features, Integral) or isinstance(self.n_features, bool) or self.n_features < 1:
            raise ValueError(f"n_features must be a positive integer, got {self.n_features!r}.")
        if not isinstance(self.batch_size, Integral) or isinstance(self.batch_size, bool) or self.batch_size < 1:
            raise ValueError(f"batch_size must be a positive integer, got {self.batch_size!r}.")
        if self.norm not in ("l1", "l2", None):
            raise ValueError(f"norm must be 'l1', 'l2' or None, got {self.norm!r}.")
        ngram = self.ngram_range
        if (
            not isinstance(ngram, tuple)
            or len(ngram) != 2
            or not all(isinstance(n, Integral) and not isinstance(n, bool) for n in ngram)
            or not 1 <= ngram[0] <= ngram[1]
        ):
            raise ValueError(
                f"ngram_range must be a tuple (min_n, max_n) of integers with 1 <= min_n <= max_n, got {ngram!r}."
            )
        if not (callable(self.analyzer) or self.analyzer in ("word", "char", "char_wb")):
            raise ValueError(f"analyzer must be 'word', 'char', 'char_wb' or a callable, got {self.analyzer!r}.")
        if self.input not in ("content", "filename", "file"):
            raise ValueError(f"input must be 'content', 'filename' or 'file', got {self.input!r}.")

    def _is_native(self):
        """Whether the nbfast kernels implement this configuration exactly."""
        return (
            self.input == "content"
            and self.analyzer == "word"
            and self.preprocessor is None
            and self.tokenizer is None
            and self.stop_words is None
            and self.strip_accents is None
            and self.token_pattern == DEFAULT_TOKEN_PATTERN
            and any(np.dtype(self.dtype) == t for t in NATIVE_DTYPES)
        )

    def _sklearn_vectorizer(self):
        """scikit-learn's HashingVectorizer with the same options, for what nbfast does not implement."""
        text = _compat.require(
            "sklearn.feature_extraction.text", "sklearn",
            "HashingVectorizer beyond the word analyzer with the default token_pattern (no preprocessor, tokenizer, "
            "stop_words or strip_accents, input='content', a float32/float64 dtype)",
        )
        return text.HashingVectorizer(**{name: getattr(self, name) for name in SKLEARN_PARAMS})

    # ------------------------------------------------------------------ API
    def fit(self, X, y=None):
        """Only validate the parameters: the vectorizer is stateless.

        Parameters
        ----------
        X : iterable of str
            Ignored apart from refusing a single string.
        y : None
            Ignored.

        Returns
        -------
        self : object
            This vectorizer.
        """
        _check_not_string(X)
        self._validate_params()
        if not self._is_native():
            self._sklearn_vectorizer().fit([], y)
        return self

    def partial_fit(self, X, y=None):
        """Only validate the parameters (see :meth:`fit`).

        Parameters
        ----------
        X : iterable of str
            Ignored.
        y : None
            Ignored.

        Returns
        -------
        self : object
            This vectorizer.
        """
        return self.fit(X, y)

    def transform(self, X):
        """Turn documents into a hashed document-term matrix.

        Parameters
        ----------
        X : iterable of str
            Documents (a list, a generator, the lines of a file, ...), read
            ``batch_size`` at a time.  bytes are decoded with ``encoding``.

        Returns
        -------
        X : sparse matrix of shape (n_samples, n_features)
            CSR matrix of dtype ``dtype`` (float64 when a normalized integer dtype was
            asked for, as scikit-learn does), indices sorted, as scikit-learn returns it.
        """
        _check_not_string(X)
        self._validate_params()
        batch = self._native_batch if self._is_native() else self._sklearn_vectorizer().transform
        documents = iter(X)
        parts = []
        while chunk := list(islice(documents, self.batch_size)):
            parts.append(sp.csr_matrix(batch(chunk)))
        if not parts:
            raise ValueError("Cannot vectorize empty sequence.")
        # scipy keeps int32 indices while they fit, as the kernels do
        return _as_configured_sparse(sp.vstack(parts, format="csr") if len(parts) > 1 else parts[0])

    def fit_transform(self, X, y=None):
        """Validate the parameters and transform X (see :meth:`transform`).

        Parameters
        ----------
        X : iterable of str
            Documents.
        y : None
            Ignored.

        Returns
        -------
        X : sparse matrix of shape (n_samples, n_features)
            Hashed document-term matrix.
        """
        return self.fit(X, y).transform(X)

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.string = True
        tags.input_tags.two_d_array = False
        tags.requires_fit = False
        return tags

    # ------------------------------------------------------------------ kernels
    def _native_batch(self, documents):
        """CSR rows of a list of documents, computed by the nbfast kernels."""
        if not all(type(doc) is str for doc in documents):
            documents = [self._decode(doc) for doc in documents]
        n_documents = len(documents)
        views = (
            np.empty(n_documents, dtype=np.uint64),  # buffer address
            np.empty(n_documents, dtype=np.uint8),  # bytes per code point
            np.empty(n_documents, dtype=np.int64),  # length in code points
            np.empty(n_documents, dtype=np.uint8),  # lowercase in the kernel
        )
        keep_alive = _hashing.document_views(documents, bool(self.lowercase), *views)  # noqa: F841
        table = _lowercase_table() if self.lowercase else _IDENTITY_TABLE
        # a thread per MIN_CODE_POINTS_PER_THREAD: small batches do not pay for waking threads
        n_threads = int(min(effective_n_threads(), 1 + views[2].sum() // MIN_CODE_POINTS_PER_THREAD))
        # k tokens of >= 2 word characters need 3k - 1 code points after lowercasing
        max_tokens = (views[2] * table.max_code_points + 1) // 3
        min_n, max_n = self.ngram_range
        slots = sum(np.maximum(max_tokens - (n - 1), 0) for n in range(min_n, max_n + 1))
        raw_ptr = np.zeros(n_documents + 1, dtype=np.int64)
        np.cumsum(slots, out=raw_ptr[1:])
        raw = np.empty(raw_ptr[-1], dtype=np.uint64)
        nnz = np.empty(n_documents, dtype=np.int64)
        max_bytes = int(views[2].max()) * table.max_utf8_bytes
        _hashing.hash_documents(
            *views, *table.arrays, min_n, max_n, self.n_features, bool(self.alternate_sign),
            int(max_tokens.max()), max_bytes, raw_ptr, raw, nnz, n_threads,
        )  # fmt: skip
        index_dtype = np.int32 if nnz.sum() <= INT32_MAX else np.int64
        indptr = np.zeros(n_documents + 1, dtype=index_dtype)
        np.cumsum(nnz, out=indptr[1:])
        indices = np.empty(indptr[-1], dtype=index_dtype)
        data = np.empty(indptr[-1], dtype=self.dtype)
        _hashing.fill_csr(
            raw, raw_ptr, indptr, indices, data, bool(self.binary), _hashing.NORM_CODES[self.norm], n_threads
        )
        return sp.csr_matrix((data, indices, indptr), shape=(n_documents, self.n_features), copy=False)

    def _decode(self, doc):
        """A document as str, the way scikit-learn's ``decode`` takes it."""
        if isinstance(doc, bytes):
            return doc.decode(self.encoding, self.decode_error)
        if isinstance(doc, str):
            return doc
        if doc is np.nan:
            raise ValueError("np.nan is an invalid document, expected byte or unicode string.")
        raise TypeError(f"Documents must be str or bytes, got {type(doc).__name__}.")


class _LowercaseTable(NamedTuple):
    """Per-code-point lowercase for the kernels (see ``nbfast._kernels.hashing.Tables``)."""

    arrays: tuple  # (stage1 uint16, stage2 uint32, expansions uint32)
    max_code_points: int  # code points one code point can become
    max_utf8_bytes: int  # UTF-8 bytes one code point can become


_IDENTITY_TABLE = _LowercaseTable(
    (np.zeros(1, dtype=np.uint16), np.zeros(1, dtype=np.uint32), np.zeros(1, dtype=np.uint32)), 1, 4
)


@functools.cache
def _lowercase_table():
    """What ``str.lower`` makes of each code point alone, as a two-stage table.

    Built from ``str.lower`` itself, on one string holding every code point between
    NUL separators (NUL is neither cased nor case-ignorable, so no code point sees
    another).  U+03A3 depends on its context and is never looked up (documents
    containing it are lowercased by ``str.lower``).
    """
    codes = np.arange(MAX_CODE_POINT, dtype=np.uint32)
    probe = codes.copy()
    probe[0] = ord(" ")
    probe[0xD800:0xE000] = ord(" ")  # surrogates: no case, and not encodable
    spaced = np.zeros(2 * MAX_CODE_POINT, dtype=np.uint32)
    spaced[0::2] = probe
    lowered = np.frombuffer(
        spaced.tobytes().decode("utf-32-le").lower().encode("utf-32-le"), dtype=np.uint32
    )
    ends = np.flatnonzero(lowered == 0)
    starts = np.concatenate([[0], ends[:-1] + 1])
    sizes = ends - starts
    if len(ends) != MAX_CODE_POINT or sizes.min() < 1 or sizes.max() > 3:
        raise RuntimeError("nbfast.text: unexpected result of str.lower while building the lowercase table")
    value = np.where(lowered[starts] == probe, 0, lowered[starts]).astype(np.uint32)
    expanded = np.flatnonzero(sizes > 1)
    expansions = np.zeros((len(expanded) + 1, 4), dtype=np.uint32)
    max_utf8_bytes = 4
    for k, c in enumerate(expanded):
        mapped = lowered[starts[c] : ends[c]]
        expansions[k, 0] = len(mapped)
        expansions[k, 1 : 1 + len(mapped)] = mapped
        value[c] = EXPANSION | k
        max_utf8_bytes = max(max_utf8_bytes, len(mapped.tobytes().decode("utf-32-le").encode("utf-8")))
    value[:0x80] = 0  # ASCII is lowercased by the kernel directly
    blocks = value.reshape(-1, 256)
    used = np.flatnonzero(blocks.any(axis=1))
    stage1 = np.zeros(len(blocks), dtype=np.uint16)
    stage1[used] = np.arange(1, len(used) + 1)
    stage2 = np.concatenate([np.zeros((1, 256), dtype=np.uint32), blocks[used]]).ravel()
    return _LowercaseTable((stage1, stage2, expansions.ravel()), int(sizes.max()), max_utf8_bytes)


def _check_not_string(X):
    if isinstance(X, str):
        raise ValueError("Iterable over raw text documents expected, string object received.")


def _as_configured_sparse(X):
    """X as csr_array when scikit-learn is configured with sparse_interface="sparray", else csr_matrix."""
    if _compat.get_config().get("sparse_interface") == "sparray":
        return sp.csr_array(X)
    return X
