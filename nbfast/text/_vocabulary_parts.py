"""A CountVectorizer's or TfidfVectorizer's fit made of parts: each part's terms counted alone, the counts added
up, then the vocabulary chosen from the sums exactly as one ``fit`` on all the documents chooses it.

:func:`term_statistics` counts a part's documents (every term, before any
pruning); the parts' statistics are sums, so adding them up (in any order)
gives those of all the documents; :func:`fit_from_term_statistics` then applies
``min_df``, ``max_df`` and ``max_features`` as :class:`CountVectorizer`'s fit
does (terms in sorted order, document-frequency bounds, then the
``max_features`` terms of highest count, ties as numpy's ``argsort`` breaks
them on the same array), and fits ``idf_`` as :class:`TfidfVectorizer` does.
Distributed fits (Spark) use it: only the terms and their counts travel.
"""

from numbers import Integral

import numpy as np

from nbfast import _compat
from nbfast import _sparse as sp
from nbfast.text._tfidf import TfidfVectorizer, _float_dtype
from nbfast.text._vocabulary import CountVectorizer

__all__ = ["fit_from_term_statistics", "term_statistics"]

#: The error a vectorizer raises for documents without a single term (scikit-learn's words).
EMPTY_VOCABULARY = "empty vocabulary; perhaps the documents only contain stop words"


def check_vocabulary_fit(vectorizer):
    """Refuse, before any document is read, a vectorizer that cannot be fitted from parts: anything but an
    unfitted nbfast CountVectorizer or TfidfVectorizer without a fixed ``vocabulary``, or invalid parameters."""
    if not isinstance(vectorizer, CountVectorizer):
        raise TypeError(f"only nbfast.text.CountVectorizer and TfidfVectorizer learn a vocabulary from parts, got "
                        f"{type(vectorizer).__name__}.")
    if vectorizer.vocabulary is not None:
        raise ValueError("the vectorizer has a fixed vocabulary: fit it on a sample of the documents first, or "
                         "leave vocabulary=None to learn it from all of them.")
    vectorizer._validate_params()


def _counting_copy(vectorizer):
    """An unfitted copy of ``vectorizer`` that keeps every term and counts it: same analysis (class, tokens,
    n-grams, stop words), no pruning, raw counts as float64 (exact) for a TfidfVectorizer."""
    counter = _compat.clone(vectorizer).set_params(min_df=1, max_df=1.0, max_features=None, binary=False)
    if isinstance(counter, TfidfVectorizer):
        return counter.set_params(norm=None, use_idf=False, sublinear_tf=False, dtype=np.float64)
    return counter.set_params(dtype=np.int64)


def term_statistics(vectorizer, documents):
    """The terms of ``documents`` as the unfitted ``vectorizer`` finds them, before any pruning.

    Parameters
    ----------
    vectorizer : CountVectorizer or TfidfVectorizer
        Unfitted; not modified.
    documents : iterable of str or an Arrow string column
        One part of the corpus (not empty).

    Returns
    -------
    terms : list of str
        Every term, in the order of its first occurrence in ``documents``.
    document_frequencies : ndarray of int64
        The number of documents holding each term.
    counts : ndarray of int64
        What ``max_features`` ranks each term by: its count over the documents, each document's count taken
        in the vectorizer's ``dtype`` first (as the fitted matrix holds it).
    """
    counter = _counting_copy(vectorizer)
    try:
        X = counter.fit_transform(documents)
    except ValueError as exc:
        if not str(exc).startswith(EMPTY_VOCABULARY):
            raise
        return [], np.zeros(0, np.int64), np.zeros(0, np.int64)
    vocabulary = counter.vocabulary_  # in the order of first occurrence, as scikit-learn's
    columns = np.fromiter(vocabulary.values(), dtype=np.int64, count=len(vocabulary))
    document_frequencies = np.bincount(X.indices, minlength=X.shape[1])[columns]
    dtype = np.dtype(vectorizer.dtype)
    if dtype.kind != "f":  # counts wrap around in small integer types, and the local fit ranks what they hold
        X = X.astype(dtype)
    counts = np.asarray(X.sum(axis=0)).ravel()[columns].astype(np.int64)
    return list(vocabulary), document_frequencies.astype(np.int64), counts


def _ranking_sums(counts, dtype):
    """The column sums ``max_features`` ranks, in the dtype scikit-learn's ``X.sum(axis=0)`` gives them."""
    sum_dtype = sp.csr_matrix(np.ones((1, 1), dtype=dtype)).sum(axis=0).dtype
    if sum_dtype.kind == "f" and counts.size and counts.max() > 2 ** (np.finfo(sum_dtype).nmant + 1):
        raise ValueError(f"a term counts more times than {sum_dtype} sums hold exactly, and one fit would rank the "
                         "terms by rounded sums: use dtype=np.float64 or an integer dtype with max_features.")
    return counts.astype(sum_dtype)


def fit_from_term_statistics(vectorizer, terms, document_frequencies, counts, n_documents):
    """Fit ``vectorizer`` in place from the statistics of all the documents, as ``vectorizer.fit`` on them would.

    Parameters
    ----------
    vectorizer : CountVectorizer or TfidfVectorizer
        Unfitted, without a fixed ``vocabulary``.
    terms : sequence of str
        Every term of the documents, each once, in the order of its first occurrence in the corpus (the order
        of ``vocabulary_``'s keys).
    document_frequencies, counts : array-like of int
        Sums over the parts of :func:`term_statistics`'s arrays, term by term.
    n_documents : int
        The number of documents of all the parts.

    Returns
    -------
    vectorizer : the vectorizer, fitted: ``vocabulary_`` (and ``idf_``) those of one fit on all the documents.

    Raises
    ------
    ValueError
        As one fit would: no term at all, ``max_df`` below ``min_df``, no term left after pruning.
    """
    check_vocabulary_fit(vectorizer)
    terms = np.asarray(list(terms), dtype=object)
    df = np.asarray(document_frequencies, dtype=np.int64)
    counts = np.asarray(counts, dtype=np.int64)
    if not (len(terms) == len(df) == len(counts)):
        raise ValueError(f"{len(terms)} terms, {len(df)} document frequencies and {len(counts)} counts: one each.")
    if len(terms) == 0:
        raise ValueError(EMPTY_VOCABULARY)
    # the rules of CountVectorizer's fit (scikit-learn's _sort_features and _limit_features), terms in sorted order
    max_doc_count = vectorizer.max_df if isinstance(vectorizer.max_df, Integral) else vectorizer.max_df * n_documents
    min_doc_count = vectorizer.min_df if isinstance(vectorizer.min_df, Integral) else vectorizer.min_df * n_documents
    if max_doc_count < min_doc_count:
        raise ValueError("max_df corresponds to < documents than min_df")
    order = np.array(sorted(range(len(terms)), key=terms.__getitem__), dtype=np.int64)
    mask = (df[order] <= max_doc_count) & (df[order] >= min_doc_count)
    limit = vectorizer.max_features
    if limit is not None and mask.sum() > limit:
        sums = df if vectorizer.binary else counts
        tfs = _ranking_sums(sums[order], np.dtype(vectorizer.dtype))
        mask_inds = (-tfs[mask]).argsort()[:limit]
        new_mask = np.zeros(len(order), dtype=bool)
        new_mask[np.where(mask)[0][mask_inds]] = True
        mask = new_mask
    kept = order[mask]
    if len(kept) == 0:
        raise ValueError("After pruning, no terms remain. Try a lower min_df or a higher max_df.")
    column = np.full(len(terms), -1, dtype=np.int64)
    column[kept] = np.arange(len(kept))
    # vocabulary_ in the order of first occurrence; numpy integers once max_features pruned, as scikit-learn's
    first_seen = np.flatnonzero(column >= 0)
    values = column[first_seen] if limit is not None else column[first_seen].tolist()
    vectorizer.vocabulary_ = dict(zip(terms[first_seen].tolist(), values))
    vectorizer.fixed_vocabulary_ = False
    if isinstance(vectorizer, TfidfVectorizer):
        vectorizer._check_params()
        vectorizer._tfidf = vectorizer._transformer()
        vectorizer._tfidf.n_features_in_ = len(kept)
        if vectorizer.use_idf:
            vectorizer._tfidf._fit_idf(df[kept], n_documents, _float_dtype(np.dtype(vectorizer.dtype)))
    return vectorizer
