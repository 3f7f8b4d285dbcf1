"""A cross-validated search over alphas on compact statistics: the K folds' counts on one pattern
(:class:`FoldCounts`), and the compact tables of several alphas scored side by side (:class:`CompactTables`,
:func:`score_side_by_side`), whose logs of whole counts a :class:`LogTable` looks up.
"""

from typing import NamedTuple

import numpy as np

from nbfast._kernels import folds
from nbfast._kernels.scoring import Output
from nbfast._kernels.threads import effective_n_threads
from nbfast.naive_bayes._counts import SparseCounts, fits_compact

_EMPTY = np.empty(0)
#: The most values of LogTable's table of logs (8 MiB).
_LOG_TABLE_VALUES = 1 << 20


# ------------------------------------------------------------- a search over folds: several alphas at once
class FoldCounts(NamedTuple):
    """The statistics of K folds that partition the rows, on one pattern: that of the sums over every row (as
    :class:`SparseCounts` makes it, dense rows included), ``values`` (n_folds, n_entries) holding each fold's
    sums and ``class_count`` (n_folds, n_classes) its class counts.

    The statistics of a union of folds (a split's training rows, or every row) are the sums of theirs on that
    same pattern (:meth:`of_folds`): an entry none of them counted is an explicit zero, which scores as none.
    """

    indptr: np.ndarray
    classes: np.ndarray
    values: np.ndarray
    class_count: np.ndarray

    @classmethod
    def count(cls, X, y_index, fold, sample_weight, n_classes, n_folds):
        """The counts of validated CSR X, its row i of class ``y_index[i]`` in fold ``fold[i]``: sums of w x."""
        weights = _EMPTY if sample_weight is None else sample_weight
        arrays = folds.fold_counts(X.data, X.indices, X.indptr, y_index, fold, weights, X.shape[1], n_classes,
                                   n_folds, effective_n_threads(X.nnz))
        class_count = np.bincount(fold * n_classes + y_index, weights=sample_weight, minlength=n_folds * n_classes)
        return cls(*arrays, class_count.reshape(n_folds, n_classes).astype(np.float64))

    @staticmethod
    def input_fits(X, n_classes):
        """Whether counting X (validated CSR) compactly may keep its counts compact (its nonzeros at most)."""
        return fits_compact(X.nnz, n_classes, X.shape[1], counting=True)

    @property
    def n_entries(self):
        return self.classes.shape[0]

    def kept_compact(self, n_features):
        """Whether the sums of every row are few enough to be kept compact."""
        return fits_compact(self.n_entries, self.class_count.shape[1], n_features)

    def of_folds(self, which):
        """(SparseCounts, class counts) of the rows of the folds ``which``, added in the order given."""
        values, class_count = self.values[which[0]].copy(), self.class_count[which[0]].copy()
        for k in which[1:]:
            values += self.values[k]
            class_count += self.class_count[k]
        return SparseCounts(self.indptr, self.classes, values, self.class_count.shape[1]), class_count


class CompactTables(NamedTuple):
    """The CompactTables of several alphas on the pattern of one model's compact statistics, side by side:
    alpha a's is ``default[:, a]``, ``scale[:, a]``, ``base[:, a]`` and the deviation ``deviation[e, a]`` of
    each entry e, or ``deviation[codes[e], a]`` when ``codes`` is given (``default`` and ``scale`` (n_classes,
    n_alphas), ``base`` (n_features, n_alphas); None as in CompactTable).  Scored by
    :func:`score_side_by_side`."""

    deviation: np.ndarray
    default: np.ndarray
    scale: np.ndarray = None
    base: np.ndarray = None
    codes: np.ndarray = None


class LogTable:
    """log(n + alpha) of count values n for every alpha of ``alphas``: the whole numbers n looked up in a table
    (as far as the largest one asked, within _LOG_TABLE_VALUES values), the others computed.  Either way a value
    is the one ``np.log(n + alpha)`` gives."""

    def __init__(self, alphas):
        self.alphas = np.asarray(alphas, dtype=np.float64)
        self._table = np.log(self.alphas[None, :])  # log(0 + alpha) so far

    @property
    def log_alphas(self):
        """log(alpha) (n_alphas,)."""
        return self._table[0]

    def __call__(self, values, minus=None):
        """log(values + alpha), or log(values + alpha) - log(minus + alpha), (values.shape[0], n_alphas)."""
        self._cover(float(max(values.max(initial=0.0), 0.0 if minus is None else minus.max(initial=0.0))))
        logs = np.empty((values.shape[0], self.alphas.shape[0]))
        other = np.empty(values.shape[0], dtype=np.uint8)  # not one of the table's whole numbers
        folds.table_rows(values, _EMPTY if minus is None else minus, self._table, logs, other,
                         effective_n_threads(logs.size))
        other = np.flatnonzero(other)
        if other.size:
            logs[other] = np.log(values[other, None] + self.alphas)
            if minus is not None:
                logs[other] -= np.log(minus[other, None] + self.alphas)
        return logs

    def over_alpha(self, values):
        """(deviation, codes): log(values + alpha) - log(alpha) of value i is ``deviation[codes[i]]`` when every
        value is a whole number of the table (their codes: the values themselves), else ``deviation[i]``
        (codes None)."""
        largest = float(values.max(initial=0.0))
        if self._cover(largest) and values.min(initial=0.0) >= 0:
            codes = values.astype(np.int32)
            if np.array_equal(codes, values):
                return self._table[:int(largest) + 1] - self.log_alphas, codes
        deviation = self(values)
        deviation -= self.log_alphas
        return deviation, None

    def _cover(self, largest):
        """Extend the table up to ``largest`` (within _LOG_TABLE_VALUES); whether it holds it."""
        size = _LOG_TABLE_VALUES // self.alphas.shape[0]
        if self._table.shape[0] <= min(largest, size):
            self._table = np.log(np.arange(int(min(largest, size)) + 1.0)[:, None] + self.alphas)
        return largest < self._table.shape[0]


def score_side_by_side(X, rows, counts, tables, bias, mode, take):
    """``mode``'s output for the rows ``rows`` of validated CSR X under each alpha's table of ``tables`` (a
    :class:`CompactTables` on the pattern of the compact statistics ``counts``), with ``bias`` (n_classes,):
    (n_rows, n_alphas) labels (ARGMAX), or posteriors of class ``take[i]`` for row ``rows[i]`` (PROBA)."""
    n_classes, n_alphas = tables.default.shape
    none = np.empty((0, n_alphas))
    labels = np.empty((rows.shape[0], n_alphas) if mode == Output.ARGMAX else (0, 0), dtype=np.int64)
    out = np.empty((0, 0) if mode == Output.ARGMAX else (rows.shape[0], n_alphas))
    bias = np.ascontiguousarray(np.broadcast_to(np.asarray(bias, dtype=np.float64)[:, None], tables.default.shape))
    n_nonzeros = int(np.sum(X.indptr[rows + 1] - X.indptr[rows]))
    folds.score_alphas(
        X.data, X.indices, X.indptr, rows, counts.indptr, counts.classes,
        np.empty(0, dtype=np.int32) if tables.codes is None else tables.codes, tables.deviation,
        np.ascontiguousarray(tables.default), none if tables.scale is None else np.ascontiguousarray(tables.scale),
        none if tables.base is None else np.ascontiguousarray(tables.base), bias, take, mode, out, labels,
        effective_n_threads((n_nonzeros + rows.shape[0] * n_classes) * n_alphas),
    )
    return labels if mode == Output.ARGMAX else out
