"""Sufficient statistics and the tables derived from them, in their two representations: the one module that
knows which representation a model holds.

Dense: per-(class, feature) sums of f(x) as an (n_classes, n_features) array, and a scoring table as an
(n_features, n_classes) float64 array.

Compact: with a large vocabulary (hashed text: 2^20 features) and a modest corpus, most (class, feature) pairs
never occur: their count is zero, and every zero count of class c has the same smoothed parameter.  The
statistics are then kept as a CSR matrix by feature, (n_features, n_classes), of the pairs that occurred
(:class:`SparseCounts`), and the scoring table as per-class defaults plus the deviations from them on that same
pattern (:class:`CompactTable`).  Both grow with the nonzero statistics plus one pointer per feature, not with
n_classes x n_features.

The estimators state each formula once, for each representation it has, and ask this module everything that
depends on which one they hold: :func:`is_compact`, :func:`counts_shape`, :func:`as_dense`, :func:`settled`,
:func:`for_next_batch`, :func:`sum_counts`, :func:`negated`, :func:`count_values`, :func:`table_arrays`,
:func:`dense_table` and :func:`score_table` (the fused scoring kernel of either table).  The representation is
chosen from the density of the statistics (:func:`fits_compact`); the scikit-learn attributes
(``feature_count_``, ``feature_log_prob_``, ...) of a compact model are materialized densely on first access.

A cross-validated search over K folds keeps every fold's compact statistics on one pattern
(:class:`FoldCounts`), and scores the compact tables of several alphas side by side (:class:`CompactTables`,
:func:`score_side_by_side`), whose logs of whole counts a :class:`LogTable` looks up.
"""

from typing import NamedTuple

import numpy as np

from nbfast._kernels import compact, folds, scoring
from nbfast._kernels.compact import batch_entries, feature_class_counts, pointer_array, sum_by_class
from nbfast._kernels.scoring import Output
from nbfast._kernels.threads import effective_n_threads

#: A model keeps compact statistics while at most this fraction of its (class, feature)
#: pairs is stored; beyond, the dense tables are as small and score faster.
COMPACT_DENSITY = 1 / 8
#: Statistics are counted compactly when the batch's nonzeros and the entries already
#: stored are at most this fraction of the (class, feature) pairs (else densely).
COMPACT_INPUT_DENSITY = 1 / 2
#: "auto" chooses by the densities above; "compact" or "dense" forces one representation
#: wherever the model allows it (tests and benchmarks compare the two on the same data).
REPRESENTATION = "auto"

_EMPTY = np.empty(0)
#: The most values of LogTable's table of logs (8 MiB).
_LOG_TABLE_VALUES = 1 << 20


class SparseCounts(NamedTuple):
    """Per-(feature, class) sums of f(x) as a CSR matrix by feature, (n_features, n_classes).

    ``indptr`` (n_features + 1, int32 while the entries fit, else int64),
    ``classes`` (int32, strictly increasing within each feature) and ``values``
    (float64): feature j's entries are ``indptr[j]:indptr[j + 1]``.  A feature
    counted in at least a quarter of the classes is stored with every class
    (a dense row, explicit zeros included).  Never modified in place:
    accumulating makes a new one.

    ``pending`` holds the entries of batches not added yet, ``(features,
    classes, values)`` per batch in order: :meth:`add` defers them until they
    are as many as the stored entries or the features, so that adding costs
    O(batch) and adding many batches about what adding them at once costs.
    Every other method reads the stored entries only: call :meth:`settled`
    first.
    """

    indptr: np.ndarray
    classes: np.ndarray
    values: np.ndarray
    n_classes: int
    pending: tuple = ()

    @classmethod
    def empty(cls, n_classes, n_features):
        return cls(np.zeros(n_features + 1, dtype=np.int32), np.empty(0, dtype=np.int32), np.empty(0), n_classes)

    @classmethod
    def from_dense(cls, counts):
        """The nonzero entries of a dense (n_classes, n_features) count array."""
        by_feature = np.ascontiguousarray(np.asarray(counts, dtype=np.float64).T)
        mask = by_feature != 0
        indptr = np.zeros(by_feature.shape[0] + 1, dtype=np.int64)
        np.cumsum(mask.sum(axis=1), out=indptr[1:])
        classes = np.nonzero(mask)[1].astype(np.int32)
        return cls(pointer_array(indptr), classes, by_feature[mask], by_feature.shape[1])

    @classmethod
    def from_arrays(cls, arrays, n_classes, n_features):
        """Counts from ``(indptr, classes, values)`` (a model file, or an attribute assigned by hand), checked.

        Raises ValueError unless they form a CSR matrix by feature of shape
        (n_features, n_classes) with strictly increasing classes in each feature:
        the kernels trust that.
        """
        if not isinstance(arrays, (tuple, list)) or len(arrays) != 3:
            raise ValueError("the compact feature counts must be a tuple (indptr, classes, values).")
        indptr, classes, values = (np.asarray(a) for a in arrays)
        if indptr.dtype.kind not in "iu" or classes.dtype.kind not in "iu" or values.dtype.kind not in "iuf":
            raise ValueError("the compact feature counts must hold integer indptr and classes, and numeric values.")
        indptr = indptr.astype(np.int64)  # unsigned steps would never look negative
        if indptr.shape != (n_features + 1,) or classes.ndim != 1 or values.shape != classes.shape:
            raise ValueError(
                f"the compact feature counts have indptr of shape {indptr.shape}, classes {classes.shape} and values "
                f"{values.shape}; expected ({n_features + 1},) and two arrays of indptr[-1] entries."
            )
        steps = np.diff(indptr)
        if indptr[0] != 0 or indptr[-1] != classes.shape[0] or np.any(steps < 0):
            raise ValueError("the compact feature counts' indptr must rise from 0 to the number of entries.")
        if classes.size and (classes.min() < 0 or classes.max() >= n_classes):
            raise ValueError(f"the compact feature counts name classes outside [0, {n_classes}).")
        # strictly increasing within each feature: every step is positive except where a feature starts
        starts = np.zeros(classes.shape[0], dtype=bool)
        starts[indptr[:-1][steps > 0]] = True
        if np.any((np.diff(classes.astype(np.int64)) <= 0) & ~starts[1:]):
            raise ValueError("the compact feature counts must list each feature's classes in increasing order, once.")
        return cls(pointer_array(indptr), classes.astype(np.int32), values.astype(np.float64), int(n_classes))

    @property
    def n_features(self):
        return self.indptr.shape[0] - 1

    @property
    def nnz(self):
        return self.classes.shape[0]

    @property
    def n_pending(self):
        """Entries of the batches not added yet."""
        return sum(features.shape[0] for features, _, _ in self.pending)

    def arrays(self):
        """``(indptr, classes, values)``: what a model file stores."""
        return self.indptr, self.classes, self.values

    def features(self):
        """The feature of every entry (intp)."""
        return np.repeat(np.arange(self.n_features), np.diff(self.indptr))

    def add(self, X, y_index, sample_weight, *, binarize=False, threshold=0.0):
        """These counts plus the batch's per-(feature, class) sums of w_i f(X[i, j]) (X validated CSR).

        The batch's entries are added now, or deferred (see ``pending``).
        """
        weights = _EMPTY if sample_weight is None else sample_weight
        entries = batch_entries(X.data, X.indices, X.indptr, y_index, weights, binarize, threshold)
        counts = self._replace(pending=self.pending + (entries,))
        return counts.settled() if counts.n_pending >= max(self.nnz, self.n_features) else counts

    def settled(self):
        """These counts with the pending entries added: in order, each sum from its stored value (so the
        counts are those of adding every batch at once, or one by one)."""
        if not self.pending:
            return self
        features, classes, values = (np.concatenate(parts) for parts in zip(*self.pending))
        arrays = feature_class_counts(features, classes, values, self.indptr, self.classes, self.values,
                                      self.n_classes, effective_n_threads(features.shape[0] + self.n_features))
        return SparseCounts(*arrays, self.n_classes)

    def toarray(self):
        """The dense (n_classes, n_features) counts."""
        dense = np.zeros((self.n_classes, self.n_features))
        dense[self.classes, self.features()] = self.values
        return dense

    def class_totals(self):
        """sum_j N[j, c] for every class (n_classes,)."""
        return self.sum_by_class(self.values)

    def sum_by_class(self, values):
        """sum of one value per entry over each class's entries (n_classes,), compensated."""
        return sum_by_class(self.classes, np.ascontiguousarray(values, dtype=np.float64), self.n_classes)

    def class_entries(self):
        """How many features each class has an entry for (n_classes,)."""
        return np.bincount(self.classes, minlength=self.n_classes)

    def feature_totals(self):
        """sum_c N[j, c] for every feature (n_features,)."""
        return np.bincount(self.features(), weights=self.values, minlength=self.n_features).astype(np.float64)

    @classmethod
    def sum(cls, parts):
        """The entrywise sum of counts of one shape, added in the order given (as numpy sums dense arrays)."""
        first = parts[0]
        features = np.concatenate([p.features() for p in parts])
        classes = np.concatenate([p.classes for p in parts]).astype(np.int64)
        values = np.concatenate([p.values for p in parts])
        # a stable sort by (feature, class) keeps each entry's parts in order
        order = np.argsort(features * first.n_classes + classes, kind="stable")
        keys = (features * first.n_classes + classes)[order]
        new = np.ones(keys.shape[0], dtype=bool)
        new[1:] = keys[1:] != keys[:-1]
        starts = np.flatnonzero(new)
        total = np.add.reduceat(values[order], starts) if starts.size else values[:0]
        indptr = np.zeros(first.n_features + 1, dtype=np.int64)
        np.cumsum(np.bincount(features[order][starts], minlength=first.n_features), out=indptr[1:])
        return cls(pointer_array(indptr), classes[order][starts].astype(np.int32), total, first.n_classes)


def fits_compact(n_entries, n_classes, n_features, *, counting=False):
    """Whether ``n_entries`` (class, feature) pairs are few enough for the compact representation.

    ``counting``: the entries are an upper bound (stored entries plus a batch's
    nonzeros) checked before counting, against :data:`COMPACT_INPUT_DENSITY`.
    """
    if REPRESENTATION != "auto":
        return REPRESENTATION == "compact"
    return n_entries <= (COMPACT_INPUT_DENSITY if counting else COMPACT_DENSITY) * n_classes * n_features


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


def smoothed_deviation(counts, alpha):
    """log(N + alpha_j) - log(alpha_j) of every stored entry, and log(alpha) (a float, or the (n_features,) array).

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

    @property
    def n_entries(self):
        return self.classes.shape[0]

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


# ------------------------------------------------------------------ statistics, either representation
def is_compact(counts):
    """Whether per-(class, feature) counts are compact (:class:`SparseCounts`) rather than a dense array."""
    return isinstance(counts, SparseCounts)


def counts_shape(counts):
    """(n_classes, n_features) of per-(class, feature) counts, compact or dense."""
    return (counts.n_classes, counts.n_features) if is_compact(counts) else np.shape(counts)


def has_pending(counts):
    """Whether compact counts hold batches not added yet (see :meth:`SparseCounts.settled`)."""
    return is_compact(counts) and bool(counts.pending)


def settled(counts):
    """The counts with every pending batch added (dense counts have none)."""
    return counts.settled() if is_compact(counts) else counts


def as_dense(counts):
    """The counts as a dense (n_classes, n_features) array (compact ones materialized, a new array)."""
    return counts.settled().toarray() if is_compact(counts) else counts


def for_next_batch(counts):
    """Counts the next batch may be added into: compact counts as they are (immutable, adding makes new ones),
    a writable float64 copy of dense ones (a prediction in another thread may be reading the fitted array)."""
    return counts if is_compact(counts) else np.array(counts, dtype=np.float64, order="C", copy=True)


def feature_totals(counts):
    """sum_c N[c, j] for every feature (n_features,)."""
    return counts.feature_totals() if is_compact(counts) else np.asarray(counts).sum(axis=0)


def count_values(counts):
    """The stored count values (compact: one per entry, dense: the array), to check."""
    return counts.values if is_compact(counts) else counts


def check_statistics(stats):
    """Refuse (ValueError) fresh statistics ({name: value}, about to be installed) that overflowed float64.

    Each statistic's absolute total is kept within half of float64's range: every sum a model derives from
    them (a class's total plus its smoothing, say) is at most that total plus as much again.
    """
    for name, value in stats.items():
        if isinstance(value, SparseCounts):
            parts = [value.values] + [values for _, _, values in value.pending]
        elif isinstance(value, (list, tuple)):  # a list of arrays (one per feature)
            parts = list(value)
        else:
            parts = [value] if isinstance(value, np.ndarray) and value.dtype.kind == "f" else []
        with np.errstate(over="ignore", invalid="ignore"):
            total = 2.0 * sum(float(np.abs(part).sum()) for part in parts)
        if not np.isfinite(total):
            raise ValueError(f"the model's statistics overflow float64 ({name.strip('_')} is not finite): "
                             "sample_weight or the values of X are too large; rescale them.")


def sum_counts(counts):
    """The entrywise sum of per-(class, feature) counts, in the order given: compact when all of them are."""
    if all(is_compact(c) for c in counts):
        return SparseCounts.sum(counts)
    return np.sum([c.toarray() if is_compact(c) else np.asarray(c, dtype=np.float64) for c in counts], axis=0)


def negated(counts):
    """-counts, compact or dense."""
    return counts._replace(values=-counts.values) if is_compact(counts) else -np.asarray(counts)


# ---------------------------------------------------------------------- tables, either representation
def is_compact_table(table):
    """Whether a scoring table is a :class:`CompactTable` rather than a dense (n_features, n_classes) array."""
    return isinstance(table, CompactTable)


def table_arrays(table):
    """The float arrays a scoring table is made of, to check."""
    return table.arrays() if is_compact_table(table) else (table,)


def dense_table(table):
    """A scoring table as a dense (n_features, n_classes) float64 array."""
    return np.ascontiguousarray(table.toarray() if is_compact_table(table) else table, dtype=np.float64)


def is_scoring_table(table, shape):
    """Whether ``table`` is a scoring table (dense 2-D array or CompactTable) of this (n_rows, n_classes) shape."""
    return isinstance(table, (np.ndarray, CompactTable)) and table.shape == shape


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
    if not is_scoring_table(table, (n_rows, n_classes)) or np.shape(bias) != (n_classes,):
        raise ValueError(
            f"the model's scoring table (features x classes) has shape {np.shape(table)} and its bias "
            f"{np.shape(bias)}; X and classes_ need ({n_rows}, {n_classes}) and ({n_classes},): a fitted attribute "
            "was assigned with the wrong shape (or the model was refitted while predicting)."
        )


def score_table(X, table, bias, binarize, threshold, mode, n_threads):
    """``mode``'s output for validated CSR X under a linear model: jll = bias + f(X) @ table.

    ``table`` is dense (n_features, n_classes) float64 or a CompactTable, ``bias`` (n_classes,) float64.
    """
    n_samples = X.shape[0]
    labels = np.empty(n_samples if mode == Output.ARGMAX else 0, dtype=np.int64)
    out = np.empty((0, 0) if mode == Output.ARGMAX else (n_samples, bias.shape[0]))
    if is_compact_table(table):
        none = np.empty(0)
        compact.score_compact(
            X.data, X.indices, X.indptr, table.indptr, table.classes, table.deviation,
            np.ascontiguousarray(table.default, dtype=np.float64),
            none if table.scale is None else np.ascontiguousarray(table.scale, dtype=np.float64),
            none if table.base is None else np.ascontiguousarray(table.base, dtype=np.float64),
            bias, binarize, threshold, mode, out, labels, n_threads,
        )
    else:
        scoring.score_csr(X.data, X.indices, X.indptr, table, bias, binarize, threshold, mode, out, labels,
                          n_threads)
    return labels if mode == Output.ARGMAX else out


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


def select_rows(rows, X, y_index, sample_weight):
    """(X, y_index, sample_weight) of the rows ``rows``, copied (all of them, as they are, when it is None)."""
    if rows is None:
        return X, y_index, sample_weight
    return X[rows], y_index[rows], None if sample_weight is None else sample_weight[rows]


def count_nonzeros(X, rows):
    """Stored entries of CSR X in the rows ``rows`` (all of them when it is None)."""
    return X.nnz if rows is None else int(np.sum(X.indptr[rows + 1] - X.indptr[rows]))
