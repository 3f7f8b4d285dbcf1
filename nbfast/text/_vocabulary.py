"""Raw text to counts over a learned vocabulary: a drop-in for scikit-learn's CountVectorizer.

For the word analyzer with the default token pattern (any ``lowercase``,
``ngram_range``, ``stop_words``, ``min_df``, ``max_df``, ``max_features``,
``vocabulary``, ``binary`` and numeric ``dtype``), documents are read one batch
at a time and tokenized, counted and looked up by the OpenMP kernels of
``nbfast._kernels.vocabulary`` without the GIL; the vocabulary is built in
parallel and never holds the documents' tokens.  ``vocabulary_``, the matrix
(indices in the same order, indptr, dtypes and values) and every error are
those of scikit-learn's CountVectorizer.  Every other option (custom analyzer,
preprocessor, tokenizer or token_pattern, strip_accents, character n-grams,
file input) runs scikit-learn's own CountVectorizer, so its results are
identical by construction; it needs scikit-learn.
"""

import re
import warnings
from collections.abc import Mapping
from numbers import Integral

import numpy as np

from nbfast import _compat
from nbfast import _sparse as sp
from nbfast._compat import BaseEstimator
from nbfast._kernels import vocabulary as _vocabulary
from nbfast._kernels.threads import effective_n_threads
from nbfast._params import checks_parameters, declare
from nbfast.text import _common
from nbfast.text._analysis import AnalysisMixin
from nbfast.text._common import DEFAULT_TOKEN_PATTERN
from nbfast.text._counted_parts import CountedParts
from nbfast.text._params import COUNT

# The options scikit-learn's CountVectorizer takes, in its constructor's order.
SKLEARN_PARAMS = (
    "input", "encoding", "decode_error", "strip_accents", "lowercase", "preprocessor", "tokenizer",
    "stop_words", "token_pattern", "ngram_range", "analyzer", "max_df", "min_df", "max_features",
    "vocabulary", "binary", "dtype",
)  # fmt: skip
# Data types the kernels write directly; other numeric dtypes are cast from int64 counts.
KERNEL_DTYPES = (np.int32, np.int64, np.float32, np.float64)
# Data types whose column sums scikit-learn computes exactly (max_features ranks terms by them).
EXACT_SUM_DTYPES = (np.int32, np.int64, np.float64)
NATIVE = (
    "the word analyzer with the default token_pattern, no preprocessor, tokenizer or strip_accents, "
    "input='content' and a numeric dtype"
)


class CountVectorizer(AnalysisMixin, BaseEstimator):
    """Convert a collection of text documents to a matrix of token counts.

    Same parameters, attributes and output as
    :class:`sklearn.feature_extraction.text.CountVectorizer`, plus ``batch_size``.
    The word analyzer with the default ``token_pattern`` (any ``lowercase``,
    ``ngram_range``, ``stop_words``, ``max_df``, ``min_df``, ``max_features``,
    ``vocabulary``, ``binary`` and numeric ``dtype``) runs in nbfast's parallel
    kernels; any other configuration, and any subclass that overrides
    ``build_analyzer``, ``build_preprocessor``, ``build_tokenizer``, ``decode`` or
    ``get_stop_words``, runs scikit-learn, which must then be installed.

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
    stop_words : {"english"}, list or None, default=None
        Tokens removed before n-grams are formed ("english" is scikit-learn's list).
    token_pattern : str, default=r"(?u)\\b\\w\\w+\\b"
        What a token is; any other pattern is delegated to scikit-learn.
    ngram_range : tuple (min_n, max_n), default=(1, 1)
        Word n-grams with min_n <= n <= max_n, tokens joined by a single space.
    analyzer : {"word", "char", "char_wb"} or callable, default="word"
        Anything but "word" is delegated to scikit-learn.
    max_df : float in [0.0, 1.0] or int, default=1.0
        Ignore terms found in more than this share (float) or number (int) of documents.
    min_df : float in [0.0, 1.0] or int, default=1
        Ignore terms found in fewer than this share (float) or number (int) of documents.
    max_features : int, default=None
        Keep only the ``max_features`` terms of highest count over the corpus.
    vocabulary : Mapping or iterable, default=None
        A fixed vocabulary (term to column, or terms in column order) instead of a learned one.
    binary : bool, default=False
        Set every nonzero count to 1.
    dtype : dtype, default=np.int64
        Data type of the matrix.
    batch_size : int, default=16384
        Documents read from the input and counted at a time; the input is never held
        in memory as a whole, and fitting never holds the tokens of all documents.

    Attributes
    ----------
    vocabulary_ : dict
        A mapping of terms to feature indices.  After a fit, the dict is built on
        first access from the kernels' table of terms, which is what
        ``transform`` uses: pipelines that never read it do not pay for it.
    fixed_vocabulary_ : bool
        True if ``vocabulary`` was given.

    See Also
    --------
    sklearn.feature_extraction.text.CountVectorizer : The reference implementation.

    Examples
    --------
    >>> from nbfast.text import CountVectorizer
    >>> vectorizer = CountVectorizer()
    >>> X = vectorizer.fit_transform(["the quick brown fox", "the lazy dog"])
    >>> vectorizer.get_feature_names_out()
    array(['brown', 'dog', 'fox', 'lazy', 'quick', 'the'], dtype=object)
    """

    _parameter_constraints = declare(COUNT)
    _sklearn_name = "CountVectorizer"
    _sklearn_params = SKLEARN_PARAMS
    _native = NATIVE

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
        max_df=1.0,
        min_df=1,
        max_features=None,
        vocabulary=None,
        binary=False,
        dtype=np.int64,
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
        self.max_df = max_df
        self.min_df = min_df
        self.max_features = max_features
        self.vocabulary = vocabulary
        self.binary = binary
        self.dtype = dtype
        self.batch_size = batch_size

    # ------------------------------------------------------------------ parameters
    def _is_native(self):
        """Whether the nbfast kernels implement this configuration exactly."""
        dtype = np.dtype(self.dtype)
        # scipy.sparse has no float16: scikit-learn's own error for it
        return (
            _common.uses_native_tokenizer(self)
            and dtype.kind in "biuf"
            and dtype != np.float16
            and not self._overridden()
        )

    def _sklearn_counter(self):
        """scikit-learn's CountVectorizer with the same options and, when fitted, the same vocabulary."""
        if self._unbuilt() is not None:
            self.vocabulary_  # noqa: B018 - builds it
        counter = self._sklearn_twin()
        for name in ("vocabulary_", "fixed_vocabulary_"):
            if name in self.__dict__:
                setattr(counter, name, self.__dict__[name])
        return counter

    def _validate_vocabulary(self):
        """Set ``fixed_vocabulary_`` and, when ``vocabulary`` is given, ``vocabulary_``, as scikit-learn does."""
        vocabulary = self.vocabulary
        if vocabulary is None:
            self.fixed_vocabulary_ = False
            return
        if isinstance(vocabulary, set):
            vocabulary = sorted(vocabulary)
        if not isinstance(vocabulary, Mapping):
            vocab = {}
            for i, term in enumerate(vocabulary):
                if vocab.setdefault(term, i) != i:
                    raise ValueError(f"Duplicate term in vocabulary: {term!r}")
            vocabulary = vocab
        else:
            indices = set(vocabulary.values())
            if len(indices) != len(vocabulary):
                raise ValueError("Vocabulary contains repeated indices.")
            for i in range(len(vocabulary)):
                if i not in indices:
                    raise ValueError(f"Vocabulary of size {len(vocabulary)} doesn't contain index {i}.")
        if not vocabulary:
            raise ValueError("empty vocabulary passed to fit")
        self.fixed_vocabulary_ = True
        self.vocabulary_ = dict(vocabulary)

    def _check_vocabulary(self):
        """A vocabulary to transform with: fitted, or given as ``vocabulary``."""
        if self._unbuilt() is not None:
            return  # fitted, and never empty
        if not hasattr(self, "vocabulary_"):
            self._validate_vocabulary()
            if not self.fixed_vocabulary_:
                raise _compat.NotFittedError("Vocabulary not fitted or provided")
        if len(self.vocabulary_) == 0:
            raise ValueError("Vocabulary is empty")

    def _stop_terms(self):
        """The stop words as a TermSet for the kernels (None without stop words), after scikit-learn's
        consistency warning."""
        stop_words = self.get_stop_words()
        self._check_stop_words_consistency(stop_words)
        if stop_words is None:
            return None
        return _vocabulary.TermSet(sorted({_encode(word) for word in stop_words if isinstance(word, str)}))

    def _check_stop_words_consistency(self, stop_words):
        """Warn, as scikit-learn does once per stop list, when tokenizing a stop word gives tokens that are
        not stop words."""
        if id(self.stop_words) == getattr(self, "_stop_words_id", None):
            return
        try:
            inconsistent = set()
            for word in stop_words or ():
                for token in re.findall(DEFAULT_TOKEN_PATTERN, word.lower() if self.lowercase else word):
                    if token not in stop_words:
                        inconsistent.add(token)
        except Exception:  # scikit-learn gives up on stop words it cannot tokenize
            inconsistent = set()
        self._stop_words_id = id(self.stop_words)
        if inconsistent:
            warnings.warn(
                "Your stop_words may be inconsistent with your preprocessing. Tokenizing the stop words "
                f"generated tokens {sorted(inconsistent)!r} not in stop_words."
            )

    # ------------------------------------------------------------------ API
    @checks_parameters()
    def fit(self, raw_documents, y=None):
        """Learn the vocabulary of the documents.

        Parameters
        ----------
        raw_documents : iterable of str
            Documents (a list, a generator, the lines of a file, ...), read
            ``batch_size`` at a time.  bytes are decoded with ``encoding``.
        y : None
            Ignored.

        Returns
        -------
        self : object
            This vectorizer.
        """
        self._fit_documents(raw_documents, want_matrix=False)
        return self

    @checks_parameters()
    def fit_transform(self, raw_documents, y=None):
        """Learn the vocabulary and return the document-term matrix.

        Parameters
        ----------
        raw_documents : iterable of str
            Documents, read ``batch_size`` at a time.
        y : None
            Ignored.

        Returns
        -------
        X : sparse matrix of shape (n_samples, n_features)
            Counts of dtype ``dtype`` (tf-idf weights for TfidfVectorizer): the matrix of
            scikit-learn's ``fit_transform``, whose rows list their terms in the order
            they first occurred in the corpus.
        """
        X = self._fit_documents(raw_documents, want_matrix=True)
        return _common.as_configured_sparse(self._finish(X))

    @checks_parameters()
    def transform(self, raw_documents):
        """Count the vocabulary's terms in documents; other words are ignored.

        Parameters
        ----------
        raw_documents : iterable of str
            Documents, read ``batch_size`` at a time.

        Returns
        -------
        X : sparse matrix of shape (n_samples, n_features)
            Counts of dtype ``dtype`` (tf-idf weights for TfidfVectorizer), indices sorted.
        """
        return _common.as_configured_sparse(sp.as_csr(self._transform_rows(raw_documents)))

    @checks_parameters()
    def _transform_rows(self, raw_documents):
        """What :meth:`transform` returns, as the kernels made it (:class:`nbfast._sparse.Rows`) or as
        scikit-learn did (a csr_matrix): the streaming readers keep its buffers."""
        return self._finish(self._transform_counts(raw_documents))

    # ------------------------------------------------------------------ what TfidfVectorizer overrides
    def _fit_documents(self, raw_documents, want_matrix):
        """Fit to the documents; return their counts when ``want_matrix``."""
        return self._fit(raw_documents, want_matrix)[0]

    def _finish(self, X):
        """The output made of counts X (Rows or csr_matrix)."""
        return X

    def _transform_counts(self, raw_documents):
        """Counts of the documents over the vocabulary: Rows from the kernels, a csr_matrix from scikit-learn."""
        raw_documents = _common.documents(raw_documents)
        self._check_vocabulary()
        if not self._is_native():
            counter = self._sklearn_counter()
            X = sp.csr_matrix(counter.transform(raw_documents))
            self._keep_stop_words_check(counter)
            return X
        return self._native_rows(raw_documents)

    def inverse_transform(self, X):
        """Return the terms of each document with nonzero entries in X (scikit-learn's method).

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Document-term matrix.

        Returns
        -------
        X_original : list of arrays of shape (n_samples,)
            List of arrays of terms.
        """
        self._check_vocabulary()
        return self._sklearn_counter().inverse_transform(X)

    def get_feature_names_out(self, input_features=None):
        """Get output feature names for transformation.

        Parameters
        ----------
        input_features : array-like of str or None, default=None
            Not used, present here for API consistency by convention.

        Returns
        -------
        feature_names_out : ndarray of str objects
            The terms, in column order.
        """
        self._check_vocabulary()
        unbuilt = self._unbuilt()
        terms = np.empty(self._n_terms(), dtype=object)
        if unbuilt is not None:  # a fit's: read from the kernels' table, vocabulary_ not built for it
            terms[:] = unbuilt[0].terms()
        else:
            terms[list(self.vocabulary_.values())] = list(self.vocabulary_)
        return terms

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.string = True
        tags.input_tags.two_d_array = False
        return tags

    def __getstate__(self):
        if self._unbuilt() is not None:
            self.vocabulary_  # noqa: B018 - builds it
        state = getattr(super(), "__getstate__", lambda: self.__dict__)()
        state = dict(state)
        state.pop("_terms", None)  # the kernels' table of vocabulary_, rebuilt when needed
        state.pop("_unbuilt_vocabulary", None)
        return state

    # ------------------------------------------------------------------ vocabulary_, built when first read
    def _set_terms(self, terms):
        """Make this vectorizer fitted with ``terms`` (a list of distinct str) as columns 0, 1, ...: the kernels'
        table is built from them at once, ``vocabulary_`` (a dict) only when first read.  A term listed twice
        raises ValueError (and leaves the vectorizer as it was)."""
        term_set = _vocabulary.distinct_terms(terms)
        for name in ("vocabulary_", "_terms"):
            self.__dict__.pop(name, None)
        self.fixed_vocabulary_ = False
        self._unbuilt_vocabulary = (term_set, True)

    def _unbuilt(self):
        """(the kernels' TermSet, whether its indices are Python ints) of a fitted vocabulary_ not built yet
        as a dict, else None.  A vocabulary_ assigned since the fit takes precedence."""
        if "vocabulary_" in self.__dict__:
            return None
        return self.__dict__.get("_unbuilt_vocabulary")

    def _n_terms(self):
        """The number of terms of vocabulary_ (None without one), without building it as a dict."""
        unbuilt = self._unbuilt()
        if unbuilt is not None:
            return len(unbuilt[0])
        return len(self.vocabulary_) if "vocabulary_" in self.__dict__ else None

    def __getattr__(self, name):
        # Called only when ``name`` is not found otherwise: vocabulary_ of a fit, built on first access
        # (fit_transform and transform never need the dict: for a million bigrams it costs half a second).
        unbuilt = self._unbuilt() if name == "vocabulary_" else None
        if unbuilt is None:
            return object.__getattribute__(self, name)  # raises the attribute's own error again
        terms, python_ints = unbuilt
        vocabulary = self.__dict__["vocabulary_"] = terms.mapping(python_ints)
        del self.__dict__["_unbuilt_vocabulary"]
        self._terms = (vocabulary, len(vocabulary), terms)
        return vocabulary

    # ------------------------------------------------------------------ fitting
    def _fit(self, raw_documents, want_matrix):
        """Learn the vocabulary; return (counts or None when not wanted, (document frequency of each
        column, number of documents) or None).  When the vocabulary is fixed or scikit-learn does the work,
        the counts are always returned, the statistics never."""
        raw_documents = _common.documents(raw_documents)
        # the counts of parts counted for this vectorizer, as it is (so natively, without a given vocabulary)
        counted = raw_documents.merged(self, want_matrix) if isinstance(raw_documents, CountedParts) else None
        self.__dict__.pop("_unbuilt_vocabulary", None)  # the last fit's
        if not self._is_native():
            counter = self._sklearn_counter()
            for name in ("vocabulary_", "fixed_vocabulary_"):
                self.__dict__.pop(name, None)
            X = sp.csr_matrix(counter.fit_transform(raw_documents))
            self.vocabulary_ = counter.vocabulary_
            self.fixed_vocabulary_ = counter.fixed_vocabulary_
            self._keep_stop_words_check(counter)
            return X, None
        self._validate_vocabulary()
        if self.fixed_vocabulary_:
            if self.lowercase and any(any(map(str.isupper, term)) for term in self.vocabulary):
                warnings.warn(
                    "Upper case characters found in vocabulary while 'lowercase' is True. These entries will "
                    "not be matched with any documents"
                )
            return sp.as_csr(self._native_rows(raw_documents)), None
        self.__dict__.pop("vocabulary_", None)
        self.__dict__.pop("_terms", None)
        if counted is not None:
            return self._vocabulary_of(counted, want_matrix)
        builder = _vocabulary.VocabularyBuilder(want_matrix or self._ranks_by_matrix())
        self._count_batches(builder, raw_documents, self._stop_terms())
        return self._vocabulary_of(builder, want_matrix)

    def _ranks_by_matrix(self):
        """Whether max_features ranks the terms by the column sums of the counts matrix (of an inexact dtype),
        which the counting must then keep; otherwise by the exact term or document frequencies."""
        return self.max_features is not None and not _is_one_of(np.dtype(self.dtype), EXACT_SUM_DTYPES)

    def _count_batches(self, counter, raw_documents, stop):
        """Count the documents into ``counter`` (a VocabularyBuilder or FixedCounter), ``batch_size`` at a time."""
        for chunk in _common.batches(raw_documents, self.batch_size):
            batch = _common.prepare_documents(chunk, self.lowercase, self.encoding, self.decode_error)
            min_n, max_n = batch.ngram_bounds(self.ngram_range)
            counter.count(batch.views, min_n, max_n, stop, batch.feature_slots(self.ngram_range), batch.n_threads)

    def _vocabulary_of(self, builder, want_matrix):
        """Fit the vocabulary of the counted documents (pruned by min_df, max_df and max_features); return what
        :meth:`_fit` does."""
        if len(builder) == 0:
            raise ValueError("empty vocabulary; perhaps the documents only contain stop words")
        n_documents = builder.n_documents
        max_doc_count = self.max_df if isinstance(self.max_df, Integral) else self.max_df * n_documents
        min_doc_count = self.min_df if isinstance(self.min_df, Integral) else self.min_df * n_documents
        if max_doc_count < min_doc_count:
            raise ValueError("max_df corresponds to < documents than min_df")
        # scikit-learn's _sort_features and _limit_features, on the terms in sorted order
        order = builder.sorted_indices(effective_n_threads(len(builder)))
        df = builder.document_frequencies()
        mask = np.ones(len(order), dtype=bool)
        mask &= df[order] <= max_doc_count
        mask &= df[order] >= min_doc_count
        limit = self.max_features
        if limit is not None and mask.sum() > limit:
            tfs = self._column_sums(builder, order, df)
            mask_inds = (-tfs[mask]).argsort()[:limit]
            new_mask = np.zeros(len(order), dtype=bool)
            new_mask[np.where(mask)[0][mask_inds]] = True
            mask = new_mask
        kept = order[mask]
        if len(kept) == 0:
            raise ValueError("After pruning, no terms remain. Try a lower min_df or a higher max_df.")
        n_kept = len(kept)
        new_index = np.full(len(order), -1, dtype=np.int64)
        new_index[kept] = np.arange(n_kept)
        kept_df = df[kept]
        del order, mask, df, kept
        builder.drop_statistics()
        X = sp.as_csr(self._counted_rows(builder, new_index, n_kept)) if want_matrix else None
        # vocabulary_ keeps scikit-learn's insertion order (first occurrence)
        first_seen = np.flatnonzero(new_index >= 0)
        self.fixed_vocabulary_ = False
        # the vocabulary's table serves transform; a copy of the terms kept when most were dropped
        if 2 * n_kept < len(new_index):
            terms = builder.term_set(first_seen, new_index)
        else:
            terms = builder.freeze(new_index)
        # vocabulary_, a dict, is built from it on first access (scikit-learn's value types)
        self._unbuilt_vocabulary = (terms, limit is None)
        return X, (kept_df, n_documents)

    def _column_sums(self, builder, order, df):
        """scikit-learn's ``X.sum(axis=0)`` of the counts, columns in sorted order: exact sums cast to its
        dtype when they are exact, else the sum of the matrix itself."""
        dtype = np.dtype(self.dtype)
        if _is_one_of(dtype, EXACT_SUM_DTYPES):
            sums = df if self.binary else builder.term_frequencies()
            sum_dtype = sp.csr_matrix(np.ones((1, 1), dtype=dtype)).sum(axis=0).dtype
            return sums[order].astype(sum_dtype)
        rank = np.empty(len(order), dtype=np.int64)
        rank[order] = np.arange(len(order))
        counts = sp.as_csr(self._counted_rows(builder, rank, len(order), keep_parts=True))
        return np.asarray(counts.sum(axis=0)).ravel()

    def _counted_rows(self, counter, new_index, n_features, keep_parts=False):
        """The counted rows as CSR :class:`nbfast._sparse.Rows` of dtype ``dtype``, entries in their order:
        term k as column new_index[k] (dropped when < 0), or as column k when new_index is None.  Frees the
        rows unless ``keep_parts``."""
        rows = _vocabulary.AllRows(counter)  # holds the rows until the matrix is written
        nnz = sum(part_rows.shape[0] for _, part_rows in counter.parts)
        n_threads = effective_n_threads(nnz)
        if new_index is None:
            new_index = np.zeros(0, dtype=np.int64)
            kept = np.concatenate([np.diff(part_indptr) for part_indptr, _ in counter.parts] or [[]])
        else:
            kept = np.empty(counter.n_documents, dtype=np.int64)
            rows.kept_per_row(new_index, kept, n_threads)
        if not keep_parts:
            counter.parts.clear()
        # scikit-learn picks the index dtype from the entries before pruning
        index_dtype = _common.index_dtype_for(nnz)
        indptr = np.zeros(counter.n_documents + 1, dtype=index_dtype)
        np.cumsum(kept, out=indptr[1:])
        dtype = np.dtype(self.dtype)
        kernel_dtype = dtype if _is_one_of(dtype, KERNEL_DTYPES) else np.dtype(np.int64)
        indices = np.empty(indptr[-1], dtype=index_dtype)
        data = np.empty(indptr[-1], dtype=kernel_dtype)
        rows.emit(new_index, indptr, indices, data, bool(self.binary), n_threads)
        del rows
        return sp.Rows(data.astype(dtype, copy=False), indices, indptr, (counter.n_documents, n_features))

    # ------------------------------------------------------------------ transforming
    def _vocabulary_terms(self):
        """vocabulary_ as a TermSet for the kernels, built again whenever vocabulary_ is replaced."""
        unbuilt = self._unbuilt()
        if unbuilt is not None:
            return unbuilt[0]
        cached = self.__dict__.get("_terms")
        vocabulary = self.vocabulary_
        if cached is not None and cached[0] is vocabulary and cached[1] == len(vocabulary):
            return cached[2]
        terms, ids = [], []
        n_features = len(vocabulary)
        for term, index in vocabulary.items():
            if not (isinstance(index, Integral) or float(index).is_integer()) or not 0 <= index < n_features:
                raise ValueError(
                    f"vocabulary_ maps {term!r} to {index!r}: indices must be integers in [0, {n_features})."
                )
            if isinstance(term, str):  # other keys never match a document's str terms
                terms.append(_encode(term))
                ids.append(int(index))
        term_set = _vocabulary.TermSet(terms, np.array(ids, dtype=np.int64))
        self._terms = (vocabulary, n_features, term_set)
        return term_set

    def _native_rows(self, raw_documents):
        counter = _vocabulary.FixedCounter(self._vocabulary_terms())
        self._count_batches(counter, raw_documents, self._stop_terms())
        unbuilt = self._unbuilt()
        return self._counted_rows(counter, None, len(self.vocabulary_) if unbuilt is None else len(unbuilt[0]))


def _encode(term):
    """A term's UTF-8 bytes (lone surrogates kept, as the kernels write them)."""
    return term.encode("utf-8", "surrogatepass")


def _is_english(stop_words):
    return isinstance(stop_words, str) and stop_words == "english"


def _is_one_of(dtype, dtypes):
    return any(dtype == t for t in dtypes)
