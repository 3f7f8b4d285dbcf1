"""The joint log-likelihood and its terms, whatever the model: class priors, normalization to posteriors,
missing values as columns, and the per-feature terms of explanations."""

import warnings

import numpy as np

from nbfast import _sparse as sp
from nbfast._kernels.explain import pair_terms_csr
from nbfast._kernels.scoring import Output
from nbfast._kernels.threads import effective_n_threads
from nbfast.naive_bayes._tables import as_table


def split_missing(X):
    """(X with its NaN entries stored as 0, the (n_samples, n_features) CSR indicator of those entries) for
    validated CSR ``X``: both on X's indices and indptr, nothing densified."""
    missing = np.isnan(X.data)
    observed = type(X)((np.where(missing, 0.0, X.data).astype(X.dtype), X.indices, X.indptr), shape=X.shape)
    indicator = type(X)((missing.astype(np.float64), X.indices, X.indptr), shape=X.shape)
    for matrix in (observed, indicator):
        matrix.indices, matrix.indptr = X.indices, X.indptr  # scipy may downcast them
    return observed, indicator


def missing_as_columns(X, binarize, threshold):
    """Validated CSR ``X`` as the (n_samples, 2 n_features) matrix that a table from :func:`with_missing_rows`
    scores: f(x) of each observed entry in its column j, 1 for a NaN entry in column n_features + j."""
    missing = np.isnan(X.data)
    values = (X.data > threshold).astype(np.float64) if binarize else X.data
    data = np.where(missing, 1.0, values).astype(X.dtype, copy=False)
    indices = np.where(missing, X.indices.astype(np.int64) + X.shape[1], X.indices)
    matrix = sp.csr_array((data, indices, X.indptr.astype(np.int64)), shape=(X.shape[0], 2 * X.shape[1]), copy=False)
    matrix.indices, matrix.indptr = indices, X.indptr.astype(np.int64)
    return matrix


def log_normalize(log_scores, *, log=False):
    """Rows of unnormalized log-scores to posteriors (or log-posteriors), by a stable logsumexp.

    ``log_scores`` (float64, modified in place) may hold -inf (a class ruled out).
    A row in which every class is -inf has no posterior: it becomes NaN, with a
    RuntimeWarning.
    """
    row_max = log_scores.max(axis=1, keepdims=True)
    impossible = ~np.isfinite(row_max[:, 0])
    if np.any(impossible):
        warnings.warn(
            f"{int(impossible.sum())} row(s) give probability 0 to every class (contradictory evidence); "
            "their posteriors are NaN.",
            RuntimeWarning,
            stacklevel=3,
        )
        row_max[impossible] = np.nan
    log_scores -= row_max
    scores = np.exp(log_scores)
    total = scores.sum(axis=1, keepdims=True)
    if log:
        log_scores -= np.log(total)
        return log_scores
    scores /= total
    return scores


def class_log_prior(class_count, class_prior, fit_prior):
    """log P(y): the given ``class_prior`` (already checked), else the class frequencies (``fit_prior``), else uniform.

    A class not seen yet has log prior -inf when the prior is fitted.
    """
    with np.errstate(divide="ignore"):
        if class_prior is not None:
            return np.log(class_prior)
        if fit_prior:
            return np.log(class_count) - np.log(class_count.sum())
    return np.full(len(class_count), -np.log(len(class_count)))


def pair_terms(X, table, bias, first, second, *, binarize=False, threshold=0.0, square=None):
    """Terms of jll[i, first[i]] - jll[i, second[i]] for validated CSR X under an additive model.

    The model is ``jll[c] = bias[c] + sum_j f(x_j) table[j, c] + x_j^2 square[j, c]``
    (see ``nbfast._kernels.explain``): returns the term of every stored entry,
    (X.nnz,) in X's order, and the bias difference (n_samples,).
    """
    terms = np.empty(X.nnz)
    table, indices = as_table(table).for_columns(X.indices)
    square = np.empty((0, 0)) if square is None else np.ascontiguousarray(square, dtype=np.float64)
    first, second = (np.ascontiguousarray(c, dtype=np.intp) for c in (first, second))
    pair_terms_csr(X.data, indices, X.indptr, table, square, binarize, threshold, first, second, terms,
                   effective_n_threads(X.nnz))
    bias = np.asarray(bias, dtype=np.float64)
    with np.errstate(invalid="ignore"):  # two classes of prior 0: -inf - -inf
        return terms, bias[first] - bias[second]


def terms_matrix(X, terms):
    """The terms of X's stored entries as a CSR array of X's shape, on X's indices and indptr."""
    matrix = sp.csr_array((terms, X.indices, X.indptr), shape=X.shape, copy=False)
    matrix.indices, matrix.indptr = X.indices, X.indptr  # scipy may downcast them
    return matrix


def contrast(table):
    """Each row of ``table`` (n_classes, n_terms) minus the mean of the other rows (two rows or more).

    For two classes, the exact difference of their terms: how much each term
    raises one class's log-odds against the other.
    """
    table = np.asarray(table, dtype=np.float64)
    n_classes = table.shape[0]
    if n_classes == 2:
        return np.stack([table[0] - table[1], table[1] - table[0]])
    with np.errstate(invalid="ignore"):
        return table - (table.sum(axis=0) - table) / (n_classes - 1)


def scores_from_joint_log_likelihood(jll, mode):
    """What ``mode`` asks for, from joint log-likelihoods computed outside the kernel (float64, may hold -inf)."""
    if mode == Output.JOINT_LOG_LIKELIHOOD:
        return jll
    if mode == Output.ARGMAX:
        return jll.argmax(axis=1)
    return log_normalize(jll, log=mode == Output.LOG_PROBA)
