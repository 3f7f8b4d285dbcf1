"""Raw text to CSR at kernel speed: a drop-in for scikit-learn's HashingVectorizer.

For the word analyzer with the default token pattern, documents are read one
batch at a time, then lowercased, tokenized, hashed and assembled into CSR rows
by the OpenMP kernels of ``nbfast._kernels.tokens`` and ``hashing``, without
the GIL.  The matrix is the one scikit-learn's HashingVectorizer
returns, element for element.  Every other option (custom analyzer,
preprocessor, tokenizer, token_pattern, stop_words, strip_accents, character
n-grams, file input, other dtypes) runs scikit-learn's own HashingVectorizer on
each batch, so its results are identical by construction; it needs scikit-learn.
"""

import numpy as np

from nbfast import _sparse as sp
from nbfast._compat import BaseEstimator
from nbfast._kernels import hashing as _hashing
from nbfast._params import checks_parameters, declare
from nbfast.text import _common
from nbfast.text._analysis import AnalysisMixin
from nbfast.text._common import DEFAULT_TOKEN_PATTERN
from nbfast.text._params import HASHING

NATIVE_DTYPES = (np.float32, np.float64)
# The options scikit-learn's HashingVectorizer takes, in its constructor's order.
SKLEARN_PARAMS = (
    "input", "encoding", "decode_error", "strip_accents", "lowercase", "preprocessor", "tokenizer",
    "stop_words", "token_pattern", "ngram_range", "analyzer", "n_features", "binary", "norm",
    "alternate_sign", "dtype",
)  # fmt: skip


class HashingVectorizer(AnalysisMixin, BaseEstimator):
    """Convert a collection of text documents to a matrix of hashed token occurrences.

    Same parameters and output as :class:`sklearn.feature_extraction.text.HashingVectorizer`,
    plus ``batch_size``.  The word analyzer with the default ``token_pattern``
    (optionally lowercased, any ``ngram_range``, float32/float64 ``dtype``) runs in
    nbfast's parallel kernels; any other configuration, and any subclass that
    overrides ``build_analyzer``, ``build_preprocessor``, ``build_tokenizer``,
    ``decode`` or ``get_stop_words``, delegates each batch to scikit-learn, which
    must then be installed.

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

    _parameter_constraints = declare(HASHING)
    _sklearn_name = "HashingVectorizer"
    _sklearn_params = SKLEARN_PARAMS
    _native = (
        "only the word analyzer with the default token_pattern, no preprocessor, tokenizer, stop_words or "
        "strip_accents, input='content' and a float32/float64 dtype"
    )

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
        n_jobs=None,
    ):
        self.n_jobs = n_jobs
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
    def _is_native(self):
        """Whether the nbfast kernels implement this configuration exactly."""
        return (
            _common.uses_native_tokenizer(self)
            and self.stop_words is None
            and any(np.dtype(self.dtype) == t for t in NATIVE_DTYPES)
            and not self._overridden()
        )

    # ------------------------------------------------------------------ API
    @checks_parameters()
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
        _common.check_not_string(X)
        if not self._is_native():
            self._sklearn_twin().fit([], y)
        return self

    @checks_parameters()
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

    @checks_parameters()
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
        return _common.as_configured_sparse(sp.as_csr(self._transform_rows(X)))

    @checks_parameters()
    def _transform_rows(self, X):
        """What :meth:`transform` returns, as the kernels made it (:class:`nbfast._sparse.Rows`, when the
        documents fit in one batch) or as a csr_matrix: the streaming readers keep its buffers."""
        X = _common.documents(X)
        twin = None if self._is_native() else self._sklearn_twin()
        if twin is None:
            parts = [self._native_batch(chunk) for chunk in _common.batches(X, self.batch_size)]
        else:
            parts = [sp.csr_matrix(twin.transform(chunk)) for chunk in _common.batches(X, self.batch_size)]
            self._keep_stop_words_check(twin)
        if not parts:
            raise ValueError("Cannot vectorize empty sequence.")
        return parts[0] if len(parts) == 1 else _common.stack_rows([sp.as_csr(part) for part in parts])

    @checks_parameters()
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
        tags.transformer_tags = _common.transformer_tags(["float64"])
        return tags

    # ------------------------------------------------------------------ kernels
    def _native_batch(self, documents):
        """The CSR :class:`nbfast._sparse.Rows` of a list of documents, computed by the nbfast kernels."""
        batch = _common.prepare_documents(documents, self.lowercase, self.encoding, self.decode_error)
        n_documents = len(batch.documents)
        raw_ptr = batch.feature_slots(self.ngram_range)
        raw = np.empty(raw_ptr[-1], dtype=np.uint64)
        nnz = np.empty(n_documents, dtype=np.int64)
        min_n, max_n = batch.ngram_bounds(self.ngram_range)
        _hashing.hash_documents(
            batch.views, min_n, max_n, self.n_features, bool(self.alternate_sign), raw_ptr, raw, nnz, batch.n_threads
        )
        index_dtype = _common.index_dtype_for(nnz.sum(), self.n_features)
        indptr = np.zeros(n_documents + 1, dtype=index_dtype)
        np.cumsum(nnz, out=indptr[1:])
        indices = np.empty(indptr[-1], dtype=index_dtype)
        data = np.empty(indptr[-1], dtype=self.dtype)
        _hashing.fill_csr(
            raw, raw_ptr, indptr, indices, data, bool(self.binary), _common.NORM_CODES[self.norm], batch.n_threads
        )
        return sp.Rows(data, indices, indptr, (n_documents, self.n_features))
