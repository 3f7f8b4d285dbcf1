"""Scoring tables as objects, in their two representations: the only module (with
:mod:`nbfast.naive_bayes._counts`) that knows which one a model holds.

A linear model scores jll = bias + f(X) @ T, T of shape (n_features, n_classes).  Dense (:class:`DenseTable`):
T as a float64 array, row-major (each nonzero of X reads one contiguous row).  Compact (:class:`CompactTable`):
per-class defaults plus the deviations from them on the pattern of compact counts, which grows with their
entries, not with n_classes x n_features.

Both give ``shape``, ``score`` (the fused kernel), ``arrays`` (the float arrays T is made of, to check),
``toarray``, ``for_columns`` (the rows a set of columns reads) and ``compact_form`` (the compact table, or
None).  Estimators build a CompactTable from their formulas and return a dense table as a plain array;
:func:`as_table` gives either its methods.
"""

from typing import NamedTuple

import numpy as np

from nbfast._kernels import compact, scoring
from nbfast._kernels.scoring import Output

_NONE = np.empty(0)


def _output(X, bias, mode):
    """(labels, out) buffers of the scoring kernels for ``mode``."""
    n_samples = X.shape[0]
    labels = np.empty(n_samples if mode == Output.ARGMAX else 0, dtype=np.int64)
    out = np.empty((0, 0) if mode == Output.ARGMAX else (n_samples, bias.shape[0]))
    return labels, out


class DenseTable(NamedTuple):
    """A scoring table T as a dense (n_features, n_classes) float64 array, ``values``."""

    values: np.ndarray

    @property
    def shape(self):
        return self.values.shape

    def score(self, X, bias, binarize, threshold, mode, n_threads):
        """``mode``'s output for validated CSR X: jll = bias + f(X) @ T (bias (n_classes,) float64)."""
        labels, out = _output(X, bias, mode)
        scoring.score_csr(X.data, X.indices, X.indptr, self.values, bias, binarize, threshold, mode, out, labels,
                          n_threads)
        return labels if mode == Output.ARGMAX else out

    def arrays(self):
        return (self.values,)

    def toarray(self):
        return np.ascontiguousarray(self.values, dtype=np.float64)

    def for_columns(self, indices):
        """(table, indices) a term of every column of ``indices`` reads: the table itself."""
        return self.toarray(), indices

    def compact_form(self):
        return None


class CompactTable(NamedTuple):
    """A scoring table T (n_features, n_classes) kept as

        T[j, c] = default[c] + scale[c] * base[j] + deviation[j, c]

    with ``deviation`` stored on the pattern of the statistics (``indptr``,
    ``classes``) and zero elsewhere; ``base`` is None when it is zero (no
    per-feature term) and ``scale`` None when it is 1.  Scored by
    :func:`nbfast._kernels.compact.score_compact`.
    """

    indptr: np.ndarray
    classes: np.ndarray
    deviation: np.ndarray
    default: np.ndarray
    scale: np.ndarray = None
    base: np.ndarray = None

    @property
    def shape(self):
        return self.indptr.shape[0] - 1, self.default.shape[0]

    def score(self, X, bias, binarize, threshold, mode, n_threads):
        """``mode``'s output for validated CSR X: jll = bias + f(X) @ T (bias (n_classes,) float64)."""
        labels, out = _output(X, bias, mode)
        compact.score_compact(
            X.data, X.indices, X.indptr, self.indptr, self.classes, self.deviation,
            np.ascontiguousarray(self.default, dtype=np.float64),
            _NONE if self.scale is None else np.ascontiguousarray(self.scale, dtype=np.float64),
            _NONE if self.base is None else np.ascontiguousarray(self.base, dtype=np.float64),
            bias, binarize, threshold, mode, out, labels, n_threads,
        )
        return labels if mode == Output.ARGMAX else out

    def arrays(self):
        """The float arrays T is made of (None terms left out)."""
        return tuple(a for a in (self.deviation, self.default, self.scale, self.base) if a is not None)

    def toarray(self):
        """T as a dense (n_features, n_classes) float64 array."""
        n_features, n_classes = self.shape
        table = np.empty((n_features, n_classes))
        table[:] = self.default
        if self.base is not None:
            table += self.base[:, None] * (1.0 if self.scale is None else self.scale)
        features = np.repeat(np.arange(n_features), np.diff(self.indptr))
        table[features, self.classes] += self.deviation
        return table

    def rows(self, features):
        """Rows ``features`` (sorted, distinct) of T as a dense (len(features), n_classes) float64 array, each
        computed as :meth:`toarray` computes it."""
        starts, ends = self.indptr[features], self.indptr[features + 1]
        rows = np.empty((len(features), self.shape[1]))
        rows[:] = self.default
        if self.base is not None:
            rows += self.base[features, None] * (1.0 if self.scale is None else self.scale)
        counts = ends - starts
        row_of = np.repeat(np.arange(len(features)), counts)
        entries = np.repeat(starts - np.cumsum(counts) + counts, counts) + np.arange(int(counts.sum()))
        rows[row_of, self.classes[entries]] += self.deviation[entries]
        return rows

    def for_columns(self, indices):
        """(table, indices into it) of the columns ``indices``: only the rows they use (a compact table may be
        2**20 x 500), densely."""
        used, inverse = np.unique(indices, return_inverse=True)
        return self.rows(used), inverse.astype(indices.dtype).reshape(-1)

    def compact_form(self):
        return self


def as_table(table):
    """A scoring table (a dense array, or a CompactTable) as a table object."""
    return table if isinstance(table, (CompactTable, DenseTable)) else DenseTable(table)


def check_scoring_table(table, bias, n_rows, n_classes, log_prior):
    """Check what the linear scoring kernel will read: a (n_rows, n_classes) table (2-D, or a CompactTable
    derived from checked statistics), a (n_classes,) bias.

    O(1): shapes only, on the very arrays handed to the kernel, so that an
    assigned attribute of the wrong shape (or a model refitted by another
    thread meanwhile) is a ValueError and never a read out of bounds.  The
    log prior the bias derives from must have a value per class too (a single
    value would broadcast).
    """
    if np.shape(log_prior) != (n_classes,):
        raise ValueError(f"the class prior has shape {np.shape(log_prior)}, classes_ ({n_classes},): a fitted "
                         "attribute was assigned with the wrong shape.")
    if not (isinstance(table, (np.ndarray, CompactTable)) and table.shape == (n_rows, n_classes)) \
            or np.shape(bias) != (n_classes,):
        raise ValueError(
            f"the model's scoring table (features x classes) has shape {np.shape(table)} and its bias "
            f"{np.shape(bias)}; X and classes_ need ({n_rows}, {n_classes}) and ({n_classes},): a fitted attribute "
            "was assigned with the wrong shape (or the model was refitted while predicting)."
        )


def smoothed_deviation(counts, alpha):
    """log(N + alpha_j) - log(alpha_j) of every stored entry of compact counts, and log(alpha) (a float, or the
    (n_features,) array).

    The table of the smoothed log-probabilities log(N[j, c] + alpha_j) - d[c]
    is then ``default = log(alpha) - d`` (scalar alpha) or ``base = log(alpha)``
    and ``default = -d`` plus these deviations.
    """
    alpha = np.asarray(alpha, dtype=np.float64)
    log_alpha = np.log(alpha)
    if alpha.ndim:
        features = counts.features()
        return np.log(counts.values + alpha[features]) - log_alpha[features], log_alpha
    return np.log(counts.values + alpha) - log_alpha, float(log_alpha)


def smoothed_table(counts, alpha, log_denominator):
    """The CompactTable of log(N[j, c] + alpha_j) - log_denominator[c] (alpha > 0, a float or per feature)."""
    deviation, log_alpha = smoothed_deviation(counts, alpha)
    if np.ndim(log_alpha):
        return CompactTable(counts.indptr, counts.classes, deviation, -log_denominator, base=log_alpha)
    return CompactTable(counts.indptr, counts.classes, deviation, log_alpha - log_denominator)
