"""Tf-idf at kernel speed: drop-ins for scikit-learn's TfidfTransformer and TfidfVectorizer.

The weighting runs in ``nbfast._kernels.tfidf`` (parallel over rows) with the
floating-point operations of scikit-learn in the same order, so matrices are
identical; ``idf_`` is computed by scikit-learn's own numpy expression.
TfidfVectorizer counts with nbfast's CountVectorizer (kernels, or
scikit-learn for the options nbfast does not implement) and weights with
TfidfTransformer.
"""

import warnings

import numpy as np

from nbfast import _compat
from nbfast import _sparse as sp
from nbfast._compat import BaseEstimator
from nbfast._kernels import tfidf as _tfidf
from nbfast._kernels.threads import effective_n_threads
from nbfast._params import checks_parameters, declare
from nbfast._validation import _feature_names, check_is_fitted, check_X
from nbfast.text import _common
from nbfast.text._common import DEFAULT_TOKEN_PATTERN
from nbfast.text._params import COUNT, TFIDF
from nbfast.text._vocabulary import CountVectorizer

# scikit-learn's FLOAT_DTYPES: TfidfVectorizer warns about any other dtype.
FLOAT_DTYPES = (np.float64, np.float32, np.float16)


class TfidfTransformer(BaseEstimator):
    """Transform a count matrix to a normalized tf or tf-idf representation.

    Same parameters, attributes and output as
    :class:`sklearn.feature_extraction.text.TfidfTransformer`: with ``use_idf``,
    ``idf_ = ln((1 + n) / (1 + df)) + 1`` (``ln(n / df) + 1`` without ``smooth_idf``),
    n documents of which df hold the term; ``transform`` replaces each count tf by
    ``1 + ln(tf)`` when ``sublinear_tf``, multiplies it by the term's ``idf_``, and
    divides each row by its ``norm``.

    Parameters
    ----------
    norm : {"l1", "l2"} or None, default="l2"
        Row normalization.
    use_idf : bool, default=True
        Learn and apply inverse document frequencies.
    smooth_idf : bool, default=True
        Add one to document frequencies (as if one more document held every term).
    sublinear_tf : bool, default=False
        Replace tf by 1 + ln(tf).

    Attributes
    ----------
    idf_ : ndarray of shape (n_features,)
        Inverse document frequencies (only when ``use_idf``).
    n_features_in_ : int
        Number of features seen during fit.
    feature_names_in_ : ndarray of shape (``n_features_in_``,)
        Names of the features seen during fit, when X has string column names.

    See Also
    --------
    sklearn.feature_extraction.text.TfidfTransformer : The reference implementation.

    Examples
    --------
    >>> import numpy as np
    >>> from nbfast.text import TfidfTransformer
    >>> counts = np.array([[3, 0, 1], [2, 0, 0], [3, 1, 0]])
    >>> TfidfTransformer().fit(counts).idf_.round(3)
    array([1.   , 1.693, 1.693])
    """

    _parameter_constraints = declare(TFIDF)

    def __init__(self, *, norm="l2", use_idf=True, smooth_idf=True, sublinear_tf=False):
        self.norm = norm
        self.use_idf = use_idf
        self.smooth_idf = smooth_idf
        self.sublinear_tf = sublinear_tf

    @checks_parameters()
    def fit(self, X, y=None):
        """Learn the idf vector (global term weights).

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Term counts.
        y : None
            Ignored.

        Returns
        -------
        self : object
            This transformer.
        """
        names = _feature_names(X)
        X = check_X(X, self, reset=True)
        self.n_features_in_ = X.shape[1]
        if names is not None:
            self.feature_names_in_ = names
        elif hasattr(self, "feature_names_in_"):
            del self.feature_names_in_
        if self.use_idf:
            self._fit_idf(np.bincount(X.indices, minlength=X.shape[1]), X.shape[0], X.dtype)
        return self

    def _fit_idf(self, df, n_samples, dtype):
        """idf_ from the document frequencies, as scikit-learn computes it (same dtype, same operations)."""
        dtype = dtype if dtype in (np.float64, np.float32) else np.float64
        df = df.astype(dtype, copy=False)
        df += float(self.smooth_idf)
        n_samples += int(self.smooth_idf)
        idf = np.full_like(df, fill_value=n_samples, dtype=dtype)
        idf /= df
        np.log(idf, out=idf)
        idf += 1.0
        self.idf_ = idf

    @checks_parameters()
    def transform(self, X, copy=True):
        """Transform a count matrix to a tf or tf-idf representation.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Term counts.
        copy : bool, default=True
            Work on a copy of X; with False a float32/float64 CSR X is weighted in place.

        Returns
        -------
        X : sparse matrix of shape (n_samples, n_features)
            Tf-idf weighted matrix (float32 for float32 input, float64 otherwise).
        """
        # idf_ assigned without a fit is enough (scikit-learn's transform takes it): its length is then the
        # number of features X must have (checked before weighting)
        idf_only = "n_features_in_" not in self.__dict__ and "idf_" in self.__dict__
        if not idf_only:
            check_is_fitted(self, "n_features_in_")
        converted = check_X(_as_float(X) if sp.issparse(X) else X, self, reset=idf_only)
        if copy and sp.issparse(X) and np.may_share_memory(converted.data, X.data):
            converted = converted.copy()
        return _common.as_configured_sparse(self._weight(converted))

    @checks_parameters()
    def fit_transform(self, X, y=None):
        """Fit to X (see :meth:`fit`), then return its tf-idf representation (see :meth:`transform`)."""
        return self.fit(X, y).transform(X)

    def _weight(self, X):
        """Weight the float32/float64 CSR X in place (trusted: indices within n_features_in_)."""
        idf = self.__dict__.get("idf_")
        if idf is not None:
            idf = np.ascontiguousarray(idf, dtype=np.float64)
            if idf.shape != (X.shape[1],):
                raise ValueError(f"idf_ has shape {idf.shape}, expected ({X.shape[1]},) for {X.shape[1]} features.")
        if self.sublinear_tf:
            np.log(X.data, out=X.data)
        _tfidf.weight_rows(
            X.data, X.indices, X.indptr, idf if idf is not None else np.zeros(0), bool(self.sublinear_tf),
            idf is not None, _common.NORM_CODES[self.norm], effective_n_threads(X.nnz),
        )  # fmt: skip
        return X

    def get_feature_names_out(self, input_features=None):
        """Get output feature names: the input's (one output per input feature).

        Parameters
        ----------
        input_features : array-like of str or None, default=None
            Input feature names; by default ``feature_names_in_`` or ``x0``, ``x1``, ...

        Returns
        -------
        feature_names_out : ndarray of str objects
            The feature names.
        """
        check_is_fitted(self, "n_features_in_")
        if input_features is not None:
            input_features = np.asarray(input_features, dtype=object)
            if len(input_features) != self.n_features_in_:
                raise ValueError(
                    f"input_features should have length equal to number of features ({self.n_features_in_}), "
                    f"got {len(input_features)}"
                )
            return input_features
        if hasattr(self, "feature_names_in_"):
            return np.asarray(self.feature_names_in_, dtype=object)
        return np.asarray([f"x{i}" for i in range(self.n_features_in_)], dtype=object)

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = True
        tags.transformer_tags = _common.transformer_tags(["float64", "float32"])
        return tags


class TfidfVectorizer(CountVectorizer):
    """Convert a collection of raw documents to a matrix of tf-idf features.

    :class:`CountVectorizer` followed by :class:`TfidfTransformer`: same parameters,
    attributes and output as :class:`sklearn.feature_extraction.text.TfidfVectorizer`,
    plus ``batch_size``.  Counting runs in nbfast's kernels for the word analyzer with
    the default ``token_pattern`` (see :class:`CountVectorizer`), in scikit-learn
    otherwise; the weighting always runs in nbfast's kernels.

    Parameters
    ----------
    input, encoding, decode_error, strip_accents, lowercase, preprocessor, tokenizer, analyzer, \
stop_words, token_pattern, ngram_range, max_df, min_df, max_features, vocabulary, binary, batch_size
        As in :class:`CountVectorizer`.
    dtype : {np.float64, np.float32}, default=np.float64
        Data type of the matrix (other types warn and give float64, as in scikit-learn).
    norm : {"l1", "l2"} or None, default="l2"
        Row normalization.
    use_idf : bool, default=True
        Weight by inverse document frequencies.
    smooth_idf : bool, default=True
        Add one to document frequencies.
    sublinear_tf : bool, default=False
        Replace tf by 1 + ln(tf).

    Attributes
    ----------
    vocabulary_ : dict
        A mapping of terms to feature indices.  After a fit, the dict is built on
        first access from the kernels' table of terms, which is what
        ``transform`` uses: pipelines that never read it do not pay for it.
    fixed_vocabulary_ : bool
        True if ``vocabulary`` was given.
    idf_ : ndarray of shape (n_features,)
        Inverse document frequencies (only when ``use_idf``).

    See Also
    --------
    sklearn.feature_extraction.text.TfidfVectorizer : The reference implementation.

    Examples
    --------
    >>> from nbfast.text import TfidfVectorizer
    >>> X = TfidfVectorizer().fit_transform(["the quick brown fox", "the lazy dog"])
    >>> X.shape
    (2, 6)
    """

    _parameter_constraints = declare({**COUNT, **TFIDF})

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
        analyzer="word",
        stop_words=None,
        token_pattern=DEFAULT_TOKEN_PATTERN,
        ngram_range=(1, 1),
        max_df=1.0,
        min_df=1,
        max_features=None,
        vocabulary=None,
        binary=False,
        dtype=np.float64,
        norm="l2",
        use_idf=True,
        smooth_idf=True,
        sublinear_tf=False,
        batch_size=16384,
        n_jobs=None,
    ):
        super().__init__(
            input=input,
            encoding=encoding,
            decode_error=decode_error,
            strip_accents=strip_accents,
            lowercase=lowercase,
            preprocessor=preprocessor,
            tokenizer=tokenizer,
            analyzer=analyzer,
            stop_words=stop_words,
            token_pattern=token_pattern,
            ngram_range=ngram_range,
            max_df=max_df,
            min_df=min_df,
            max_features=max_features,
            vocabulary=vocabulary,
            binary=binary,
            dtype=dtype,
            batch_size=batch_size,
            n_jobs=n_jobs,
        )
        self.norm = norm
        self.use_idf = use_idf
        self.smooth_idf = smooth_idf
        self.sublinear_tf = sublinear_tf

    @property
    def idf_(self):
        """Inverse document frequency vector, only defined if ``use_idf=True``.

        Returns
        -------
        ndarray of shape (n_features,)
        """
        if not hasattr(self, "_tfidf"):
            raise _compat.NotFittedError(
                f"{type(self).__name__} is not fitted yet. Call 'fit' with appropriate arguments before using "
                "this attribute."
            )
        return self._tfidf.idf_

    @idf_.setter
    def idf_(self, value):
        if not self.use_idf:
            raise ValueError("`idf_` cannot be set when `user_idf=False`.")
        if not hasattr(self, "_tfidf"):
            self._tfidf = self._transformer()
        self._validate_vocabulary()
        n_terms = self._n_terms()
        if n_terms is not None and n_terms != len(value):
            raise ValueError(f"idf length = {len(value)} must be equal to vocabulary size = {n_terms}")
        self._tfidf.idf_ = value
        self._tfidf.n_features_in_ = len(value)

    def _transformer(self):
        return TfidfTransformer(
            norm=self.norm, use_idf=self.use_idf, smooth_idf=self.smooth_idf, sublinear_tf=self.sublinear_tf
        )

    def _check_params(self):
        if self.dtype not in FLOAT_DTYPES:
            warnings.warn(
                f"Only {FLOAT_DTYPES} 'dtype' should be used. {self.dtype} 'dtype' will be converted to np.float64.",
                UserWarning,
            )

    def _transform_counts(self, raw_documents):
        if not hasattr(self, "_tfidf"):
            raise _compat.NotFittedError("The TF-IDF vectorizer is not fitted")
        return super()._transform_counts(raw_documents)

    def _finish(self, X):
        return self._tfidf._weight(_as_float(X))

    def _fit_documents(self, raw_documents, want_matrix):
        """Fit the vocabulary and idf; return the counts (None when not wanted and not needed)."""
        self._check_params()
        self._tfidf = self._transformer()
        X, statistics = self._fit(raw_documents, want_matrix)
        if statistics is None:
            statistics = (np.bincount(X.indices, minlength=X.shape[1]), X.shape[0])
        df, n_documents = statistics
        self._tfidf.n_features_in_ = len(df)
        if self.use_idf:
            # in the dtype scikit-learn gives the idf: that of the counts, or float64 for non-float counts
            self._tfidf._fit_idf(df, n_documents, _float_dtype(np.dtype(self.dtype if X is None else X.dtype)))
        return X

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags._skip_test = True
        return tags


def _float_dtype(dtype):
    """The dtype scikit-learn's TfidfTransformer gives counts of this dtype: float32 or float64."""
    return dtype if dtype in (np.float32, np.float64) else np.dtype(np.float64)


def _as_float(X):
    """Sparse counts (a scipy matrix, or the kernels' canonical Rows) as float32/float64 (float64 for any other
    dtype), as scikit-learn's TfidfTransformer converts them: with scipy's astype, which also sorts the indices
    of each row."""
    dtype = _float_dtype(X.dtype)
    return X.astype(dtype) if X.dtype != dtype else X
