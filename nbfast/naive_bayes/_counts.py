"""Per-(class, feature) count statistics as objects, in their two representations, and the one policy that
chooses between them: the only module (with :mod:`nbfast.naive_bayes._tables`) that knows which one a model
holds.

Dense (:class:`DenseCounts`): the sums of f(x) as an (n_classes, n_features) float64 array.

Sparse (:class:`SparseCounts`): with a large vocabulary (hashed text: 2^20 features) and a modest corpus, most
(class, feature) pairs never occur.  The counts are then kept as a CSR matrix by feature, (n_features,
n_classes), of the pairs that occurred: they grow with the nonzero statistics plus one pointer per feature,
not with n_classes x n_features.

Both give the operations the estimators need (:class:`Counts`): ``add`` a batch, ``settled``,
``for_next_batch``, ``feature_totals``, ``negated``, ``toarray``, ``to_saved``, ``values`` (what is checked),
and :func:`sum_counts` merges them.  :func:`resettled` is the policy: which representation counts should have
now, from the density of their entries (:func:`fits_compact`) and whether the estimator allows compact tables.
"""

from abc import ABC, abstractmethod
from typing import NamedTuple

import numpy as np

from nbfast._kernels.compact import batch_entries, feature_class_counts, pointer_array, sum_by_class
from nbfast._kernels.counts import add_class_counts
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


def select_rows(rows, X, y_index, sample_weight):
    """(X, y_index, sample_weight) of the rows ``rows``, copied (all of them, as they are, when it is None)."""
    if rows is None:
        return X, y_index, sample_weight
    return X[rows], y_index[rows], None if sample_weight is None else sample_weight[rows]


def count_nonzeros(X, rows):
    """Stored entries of CSR X in the rows ``rows`` (all of them when it is None)."""
    return X.nnz if rows is None else int(np.sum(X.indptr[rows + 1] - X.indptr[rows]))


def group_rows_by_class(y_index, n_classes):
    """Row order grouping rows by class (stable) and each class's start in it."""
    if n_classes <= 1 << 16:  # numpy's stable sort of 8- and 16-bit keys is a radix sort
        y_index = y_index.astype(np.uint8 if n_classes <= 1 << 8 else np.uint16)
    order = np.argsort(y_index, kind="stable").astype(np.intp, copy=False)
    start = np.zeros(n_classes + 1, dtype=np.intp)
    np.cumsum(np.bincount(y_index, minlength=n_classes), out=start[1:])
    return order, start


def add_feature_sums(X, y_index, sample_weight, feature_count, *, binarize=False, threshold=0.0, rows=None):
    """Add the per-(class, feature) sums of w_i f(X[i, j]) to the dense array ``feature_count`` in place.

    ``f(x) = x``, or ``[x > threshold]`` when ``binarize``.  ``X`` is validated CSR; ``y_index`` and
    ``sample_weight`` have a value per row of X.  With ``rows`` (valid row indices), only those rows are
    counted, read in place.
    """
    n_classes = feature_count.shape[0]
    if feature_count.shape != (n_classes, X.shape[1]):  # the kernel writes feature_count[y_index, X.indices]
        raise ValueError(f"feature_count_ has shape {feature_count.shape}, expected {(n_classes, X.shape[1])}.")
    order, start = group_rows_by_class(y_index if rows is None else y_index[rows], n_classes)
    if rows is not None:
        order = rows[order]
    weights = _EMPTY if sample_weight is None else sample_weight
    add_class_counts(X.data, X.indices, X.indptr, order, start, weights, binarize, threshold, feature_count,
                     effective_n_threads(count_nonzeros(X, rows)))


class Counts(ABC):
    """Per-(class, feature) sums of f(x), of shape (n_classes, n_features): what every representation gives.

    ``values`` are the stored count values (to check); :meth:`add` returns the counts with a batch added
    (dense counts add in place: call it on counts from :meth:`for_next_batch` or ``empty`` only).
    """

    @abstractmethod
    def add(self, X, y_index, sample_weight, *, binarize=False, threshold=0.0, rows=None):
        """These counts plus the batch's sums of w_i f(X[i, j])."""

    @abstractmethod
    def settled(self):
        """These counts with every batch added (compact counts may defer some)."""

    @abstractmethod
    def for_next_batch(self):
        """Counts the next batch may be added into, leaving these as they are (a prediction in another thread
        may be reading them)."""

    @abstractmethod
    def all_values(self):
        """Every count value held, as a list of arrays (to check for overflow)."""

    @abstractmethod
    def feature_totals(self):
        """sum_c N[c, j] for every feature (n_features,)."""

    @abstractmethod
    def negated(self):
        """-counts, in the same representation."""

    @abstractmethod
    def toarray(self):
        """The dense (n_classes, n_features) counts (of dense counts, their own array: do not modify it)."""

    @abstractmethod
    def to_saved(self):
        """What a model file stores for these counts."""

    @abstractmethod
    def as_attribute(self):
        """The dense (n_classes, n_features) counts a fitted attribute shows (``feature_count_``)."""

    @abstractmethod
    def moved_columns(self, sources, destinations, width):
        """These counts with column ``sources[k]`` moved to column ``destinations[k]`` of a layout of ``width``
        columns, the others empty: ``sources`` lists every column that holds counts, and both increase (the
        columns keep their order)."""

    @abstractmethod
    def compact_form(self):
        """These counts if they are compact (:class:`SparseCounts`), else None."""


class DenseCounts(Counts):
    """Counts as an (n_classes, n_features) array, ``values`` (float64 when counted; as assigned otherwise)."""

    __slots__ = ("values",)

    def __init__(self, values):
        self.values = values

    @classmethod
    def empty(cls, n_classes, n_features):
        return cls(np.zeros((n_classes, n_features)))

    @property
    def shape(self):
        return np.shape(self.values)

    def add(self, X, y_index, sample_weight, *, binarize=False, threshold=0.0, rows=None):
        add_feature_sums(X, y_index, sample_weight, self.values, binarize=binarize, threshold=threshold, rows=rows)
        return self

    def add_array(self, sums):
        """These counts plus ``sums`` (n_classes, n_features), in place."""
        self.values += sums
        return self

    def settled(self):
        return self

    def for_next_batch(self):
        """A writable float64 copy."""
        return DenseCounts(np.array(self.values, dtype=np.float64, order="C", copy=True))

    def all_values(self):
        return [self.values] if isinstance(self.values, np.ndarray) and self.values.dtype.kind == "f" else []

    def feature_totals(self):
        return np.asarray(self.values).sum(axis=0)

    def negated(self):
        return DenseCounts(-np.asarray(self.values))

    def toarray(self):
        return self.values

    def to_saved(self):
        return self.values

    def as_attribute(self):
        """The array as it is (assigned by hand, or counted)."""
        return self.values

    def moved_columns(self, sources, destinations, width):
        moved = np.zeros((self.shape[0], width))
        moved[:, destinations] = np.asarray(self.values)[:, sources]
        return DenseCounts(moved)

    def compact_form(self):
        return None


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

    @property
    def shape(self):
        return self.n_classes, self.n_features

    def add(self, X, y_index, sample_weight, *, binarize=False, threshold=0.0, rows=None):
        """These counts plus the batch's per-(feature, class) sums of w_i f(X[i, j]) (X validated CSR; with
        ``rows``, of those rows only, copied).

        The batch's entries are added now, or deferred (see ``pending``).
        """
        X, y_index, sample_weight = select_rows(rows, X, y_index, sample_weight)
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

    def for_next_batch(self):
        """Counts the next batch may be added into: these (immutable: adding makes new ones)."""
        return self

    def all_values(self):
        """Every count value held, the pending batches' included (to check for overflow)."""
        return [self.values] + [values for _, _, values in self.pending]

    def negated(self):
        return self._replace(values=-self.values)

    def to_saved(self):
        """What a model file stores: ``(indptr, classes, values)`` of the settled counts."""
        return self.settled().arrays()

    def as_attribute(self):
        """A read-only dense copy (materialized: the attribute is never needed to fit or predict)."""
        dense = self.settled().toarray()
        dense.flags.writeable = False
        return dense

    def moved_columns(self, sources, destinations, width):
        counts = self.settled()
        per_column = np.zeros(width + 1, dtype=np.int64)
        per_column[destinations + 1] = np.diff(counts.indptr)[sources]
        return SparseCounts(pointer_array(np.cumsum(per_column)), counts.classes, counts.values, counts.n_classes)

    def compact_form(self):
        return self

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


Counts.register(SparseCounts)


def fits_compact(n_entries, n_classes, n_features, *, counting=False):
    """Whether ``n_entries`` (class, feature) pairs are few enough for the compact representation.

    ``counting``: the entries are an upper bound (stored entries plus a batch's
    nonzeros) checked before counting, against :data:`COMPACT_INPUT_DENSITY`.
    """
    if REPRESENTATION != "auto":
        return REPRESENTATION == "compact"
    return n_entries <= (COMPACT_INPUT_DENSITY if counting else COMPACT_DENSITY) * n_classes * n_features


def resettled(counts, compact_allowed, *, batch_entries=None, to_dense=None):
    """The counts in the representation they should have now: the one policy of every estimator.

    Compact counts stay compact while the estimator allows compact tables (``compact_allowed``) and their
    entries are few enough (:func:`fits_compact`): before a batch is counted, the stored and pending entries
    plus the batch's ``batch_entries`` nonzeros (an upper bound); once counted (``batch_entries`` None), the
    stored and pending entries, then, if those are too many, the settled ones (pending entries may fall on
    the same pairs).  Otherwise they become dense, settled, by ``to_dense`` (default: their array), for good:
    dense counts stay dense.
    """
    if not isinstance(counts, SparseCounts):
        return counts
    width = counts.n_features
    if batch_entries is None:
        if compact_allowed and fits_compact(counts.nnz + counts.n_pending, counts.n_classes, width):
            return counts
        counts = counts.settled()
        if compact_allowed and fits_compact(counts.nnz, counts.n_classes, width):
            return counts
    elif compact_allowed and fits_compact(counts.nnz + counts.n_pending + batch_entries, counts.n_classes, width,
                                          counting=True):
        return counts
    else:
        counts = counts.settled()
    return DenseCounts(counts.toarray()) if to_dense is None else to_dense(counts)


def sum_counts(counts):
    """The entrywise sum of per-(class, feature) counts, in the order given: compact when all of them are."""
    if all(isinstance(c, SparseCounts) for c in counts):
        return SparseCounts.sum(counts)
    return DenseCounts(np.sum([np.asarray(c.toarray(), dtype=np.float64) for c in counts], axis=0))


def check_statistics(stats):
    """Refuse (ValueError) fresh statistics ({name: value}, about to be installed) that overflowed float64.

    Each statistic's absolute total is kept within half of float64's range: every sum a model derives from
    them (a class's total plus its smoothing, say) is at most that total plus as much again.
    """
    for name, value in stats.items():
        if isinstance(value, Counts):
            parts = value.all_values()
        elif isinstance(value, (list, tuple)):  # a list of arrays (one per feature)
            parts = list(value)
        else:
            parts = [value] if isinstance(value, np.ndarray) and value.dtype.kind == "f" else []
        with np.errstate(over="ignore", invalid="ignore"):
            total = 2.0 * sum(float(np.abs(part).sum()) for part in parts)
        if not np.isfinite(total):
            raise ValueError(f"the model's statistics overflow float64 ({name.strip('_')} is not finite): "
                             "sample_weight or the values of X are too large; rescale them.")


def for_next_batch(statistic):
    """A fitted statistic the next batch may be added into: counts as :meth:`Counts.for_next_batch` gives
    them, a writable float64 copy of an array (a prediction in another thread may be reading the fitted one)."""
    if isinstance(statistic, Counts):
        return statistic.for_next_batch()
    return np.array(statistic, dtype=np.float64, order="C", copy=True)
