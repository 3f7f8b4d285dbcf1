"""CategoricalNB: Naive Bayes over integer-coded categorical features, on the
count and scoring kernels of the discrete models.

Sparse rows are scored in O(nnz): an implicit zero is category 0, so

    jll[c] = log P(c) + sum_j log p(x_j = 0 | c)
             + sum_{j : x_j != 0} [log p(x_j | c) - log p(x_j = 0 | c)]

Every stored entry (feature j, category v) becomes column ``start_j + v`` of one
stacked table of deltas, and the first two terms are a per-class bias: a linear
model that the fused scoring kernel evaluates as it does MultinomialNB.  The
same mapping gives the category counts through the class-count kernel.

Layout: feature j owns ``n_categories_[j] + 1`` consecutive columns, its
categories then one "unseen" slot.  The slot holds a zero count, so smoothing
gives it alpha / (N_c + alpha * n_categories_[j]): the probability of a
category never seen in training (scikit-learn raises IndexError there).

Compact form (many features, few nonzero categories: see
:mod:`nbfast.naive_bayes._counts`): only the counts of categories v > 0 are
kept, by column, and category 0's follow from them, N_c0j = N_c - sum_v>0
N_cjv.  Where class c never saw feature j nonzero, every delta of feature j is
log(alpha) - log(N_c + alpha): a per-class default; the other (feature, class)
pairs store the deltas of the feature's categories.
"""

import numbers
from numbers import Integral, Real

import numpy as np

from nbfast._kernels import tables
from nbfast._kernels.categories import category_columns, count_bad_codes
from nbfast._kernels.compact import pointer_array, sum_by_class
from nbfast._kernels.threads import effective_n_threads
from nbfast._params import Interval, StrOptions, declare
from nbfast._validation import MISSING, check_counts, check_log_prior, check_missing, check_no_nan
from nbfast.naive_bayes._categories import (
    DenseTables,
    check_blocks,
    check_n_categories,
    column_starts,
    csr_on,
    dense_counts,
    densified,
    moved_columns,
    seen_columns,
)
from nbfast.naive_bayes._count import _BaseDiscreteNB, accumulate_class_counts, count_classes
from nbfast.naive_bayes._counts import DenseCounts, SparseCounts, for_next_batch, resettled, select_rows, sum_counts
from nbfast.naive_bayes._stored import check_count_model_values
from nbfast.naive_bayes._tables import CompactTable, as_table
from nbfast.naive_bayes._terms import contrast, pair_terms, scores_from_joint_log_likelihood, terms_matrix

# Category codes must fit an int64 exactly once converted from float.
_MAX_CODE = 2.0**53


class CategoricalNB(_BaseDiscreteNB):
    """Naive Bayes classifier for categorical features, dense or sparse.

    Drop-in for :class:`sklearn.naive_bayes.CategoricalNB`, and beyond it:

    - sparse X is accepted: an implicit zero is category 0, and rows are scored
      in O(nnz) (the zero categories are a precomputed per-class sum);
    - ``max_categories=K`` clips values at K - 1, the truncated-count document
      model in which each word's count 0..K-1 is a categorical variable;
    - a category never seen in training gets the smoothed probability
      alpha / (N_c + alpha * n_categories) instead of an IndexError.

    Parameters
    ----------
    alpha : float, default=1.0
        Additive (Laplace/Lidstone) smoothing parameter (0 for no smoothing).
    force_alpha : bool, default=True
        If False and alpha is less than 1e-10, it is set to 1e-10.
    fit_prior : bool, default=True
        Whether to learn class prior probabilities; if False a uniform prior is used.
    class_prior : array-like of shape (n_classes,), default=None
        Prior probabilities of the classes (must sum to 1); not adjusted to the data.
    min_categories : int or array-like of shape (n_features,), default=None
        Minimum number of categories per feature (all features, or each one).
        None: inferred from the training data.
    max_categories : int, default=None
        If set, values are clipped at ``max_categories - 1`` and every feature
        has exactly ``max_categories`` categories (unless ``min_categories``
        asks for more, which is refused).
    missing : {"error", "ignore"}, default="error"
        What NaN in X is: an error (scikit-learn's behaviour), or a missing
        value ("ignore"), counted in no category of its feature (so that the
        smoothing denominator of feature j in class c is the number of its
        observed values plus alpha * n_categories_[j]) and left out of the
        row's joint log-likelihood.  A stored NaN of sparse X is missing;
        implicit zeros stay category 0.

    Attributes
    ----------
    category_count_ : list of n_features arrays of shape (n_classes, n_categories_[j])
        Weighted number of samples of each class in each category of feature j.
    class_count_ : ndarray of shape (n_classes,)
        Number of samples (weighted) seen for each class.
    class_log_prior_ : ndarray of shape (n_classes,)
        Log probability of each class.
    classes_ : ndarray of shape (n_classes,)
        Class labels, sorted.
    feature_log_prob_ : list of n_features arrays of shape (n_classes, n_categories_[j])
        log P(x_j = v | y) = log((N_yjv + alpha) / (N_y + alpha * n_categories_[j])).
    n_categories_ : ndarray of shape (n_features,), dtype=np.int64
        Number of categories of each feature: the largest category seen (over
        all calls to fit / partial_fit) plus one, or the minimum asked for.
        Read-only; an assigned array is checked (counts >= 1) and copied.
    n_features_in_ : int
        Number of features seen during fit.
    feature_names_in_ : ndarray of shape (``n_features_in_``,)
        Names of features seen during fit, when X has string column names.

    Notes
    -----
    Over several calls to ``partial_fit``, ``n_categories_`` grows to cover every
    batch; scikit-learn instead resets it to the last batch's value while its
    ``category_count_`` keeps growing.

    Examples
    --------
    >>> import numpy as np
    >>> from nbfast import CategoricalNB
    >>> rng = np.random.RandomState(1)
    >>> X = rng.randint(5, size=(6, 100))
    >>> y = np.array([1, 2, 3, 4, 5, 6])
    >>> clf = CategoricalNB().fit(X, y)
    >>> print(clf.predict(X[2:3]))
    [3]
    """

    _stat_names = ("class_count_", "_category_counts")
    _takes_missing = True
    _fitted_attributes = (
        "classes_", "n_features_in_", "class_count_", "n_categories_", "category_count_",
        "class_log_prior_", "feature_log_prob_",
    )
    _compact_attributes = (
        "classes_", "n_features_in_", "class_count_", "n_categories_", "_sparse_category_count", "class_log_prior_",
    )
    _parameter_constraints = declare({
        **_BaseDiscreteNB._parameter_constraints, "alpha": [Interval(Real, 0, None, closed="left")],
        "min_categories": [None, "array-like", Interval(Integral, 1, None, closed="left")],
        "max_categories": [None, Interval(Integral, 1, None, closed="left")], "missing": [StrOptions(set(MISSING))],
    })
    _scoring_params = ("max_categories", "missing")
    #: The stacked category counts, dense or compact; None until fitted.
    _category_counts = None
    #: A dense model's tables (:class:`DenseTables`); None for a compact model, whose tables are derived.
    _dense_tables = None

    def __init__(
        self, *, alpha=1.0, force_alpha=True, fit_prior=True, class_prior=None, min_categories=None,
        max_categories=None, missing="error", n_jobs=None,
    ):
        super().__init__(alpha=alpha, fit_prior=fit_prior, class_prior=class_prior, force_alpha=force_alpha,
                         n_jobs=n_jobs)
        self.min_categories = min_categories
        self.max_categories = max_categories
        self.missing = missing

    # ---------------------------------------------------------- parameters
    def _validate_params(self, n_features, n_classes):
        params = super()._validate_params(n_features, n_classes)
        self._min_categories(n_features)
        return params

    def _ignores_missing(self):
        return check_missing(self.missing)

    def _max_categories(self):
        K = self.max_categories
        if K is not None and (isinstance(K, bool) or not isinstance(K, numbers.Integral) or K < 1):
            raise ValueError(f"max_categories must be None or an integer >= 1; got {K!r}.")
        return K

    def _min_categories(self, n_features):
        """Minimum number of categories of each feature, as an int64 array."""
        max_categories = self._max_categories()
        if self.min_categories is None:
            minimum = np.zeros(n_features, dtype=np.int64)
        else:
            minimum = np.asarray(self.min_categories)
            if not np.issubdtype(minimum.dtype, np.signedinteger):
                raise ValueError(f"'min_categories' should have integral type. Got {minimum.dtype} instead.")
            if minimum.ndim == 0 and minimum < 1:
                raise ValueError(f"'min_categories' must be an integer >= 1; got {self.min_categories!r}.")
            if minimum.ndim > 0 and minimum.shape != (n_features,):
                raise ValueError(
                    f"'min_categories' should have shape ({n_features},) when an array-like is provided. "
                    f"Got {minimum.shape} instead."
                )
            minimum = np.broadcast_to(minimum, n_features).astype(np.int64)
        if max_categories is not None:
            if np.any(minimum > max_categories):
                raise ValueError(
                    f"min_categories ({self.min_categories!r}) cannot exceed max_categories ({max_categories})."
                )
            minimum = np.full(n_features, max_categories, dtype=np.int64)
        return minimum

    # ---------------------------------------------------------- input
    def _check_X(self, X, reset):
        X = super()._check_X(X, reset)
        if count_bad_codes(X.data, _MAX_CODE, self._ignores_missing(), effective_n_threads(X.nnz)):
            data = X.data[~np.isnan(X.data)]
            bad = data[(data != np.floor(data)) | (data >= _MAX_CODE)][0]
            raise ValueError(
                f"CategoricalNB needs non-negative integer category codes in X (below 2**53); got {bad!r}. "
                "Encode the categories first, for example with sklearn.preprocessing.OrdinalEncoder."
            )
        return X

    def _max_code(self):
        """Largest category kept: values above it are clipped to it."""
        largest = np.iinfo(np.int64).max
        max_categories = self._max_categories()
        return largest if max_categories is None else min(max_categories - 1, largest)

    def _category_matrix(self, X, n_categories):
        """X with entry (i, j, v) moved to column start_j + min(v, slot), value [v > 0].

        Stored zeros get value 0: category 0 is accounted for by the bias.  With
        missing values, a NaN entry (i, j) goes to column width + j, value 1, after
        the width = sum(n_categories + 1) columns of the layout.
        """
        n_categories = np.ascontiguousarray(n_categories, dtype=np.int64)  # also when set by hand
        columns = np.empty(X.nnz, dtype=np.int64)
        present = np.empty(X.nnz, dtype=np.float64)
        width = int(np.sum(n_categories + 1))
        missing_start = width if self._ignores_missing() else -1
        category_columns(
            X.data, X.indices, n_categories, column_starts(n_categories), self._max_code(), missing_start, columns,
            present, effective_n_threads(X.nnz),
        )
        shape = (X.shape[0], width + (X.shape[1] if self._ignores_missing() else 0))
        return csr_on(present, columns, X.indptr.astype(np.int64), shape)

    # ---------------------------------------------------------- statistics
    @classmethod
    def _merge_stats(cls, models):
        """Statistics of the union of the models' data (for nbfast.merge): shards may
        have seen different numbers of categories, so counts are padded, then summed."""
        n_categories = np.max([m.n_categories_ for m in models], axis=0)
        if all(m._is_compact() for m in models):
            return {
                "n_categories_": n_categories,
                "class_count_": np.sum([m.class_count_ for m in models], axis=0),
                "_category_counts": sum_counts(
                    [moved_columns(m._category_counts, m.n_categories_, n_categories) for m in models]),
            }
        counts = [np.zeros((len(models[0].classes_), n)) for n in n_categories]
        for model in models:
            for total, block in zip(counts, model.category_count_):
                total[:, : block.shape[1]] += block
        stacked = np.zeros((len(models[0].classes_), int(np.sum(n_categories + 1))))
        stacked[:, seen_columns(n_categories)[2]] = np.hstack(counts)
        return {
            "n_categories_": n_categories,
            "class_count_": np.sum([m.class_count_ for m in models], axis=0),
            "_category_counts": DenseCounts(stacked),
        }

    def _init_stats(self, n_classes, n_features):
        return {
            "class_count_": np.zeros(n_classes),
            "n_categories_": np.zeros(n_features, dtype=np.int64),
            "_category_counts": SparseCounts.empty(n_classes, n_features),  # only the unseen slots so far
        }

    def _current_stats(self):
        counts = self._category_counts  # compact counts are immutable: adding a batch makes new ones
        return {"class_count_": for_next_batch(self.class_count_),
                "_category_counts": counts.for_next_batch(),
                "n_categories_": self.n_categories_}

    def _has_compact_table(self):
        # missing values keep a model dense: category 0's counts no longer follow from the others' (N_c - sum_v>0)
        return bool(self.alpha > 0 or not self.force_alpha) and self.missing == "error"

    def _accumulate(self, stats, X, y_index, sample_weight, rows=None):
        X, y_index, sample_weight = select_rows(rows, X, y_index, sample_weight)
        n_classes, n_features = stats["class_count_"].shape[0], X.shape[1]
        largest = np.zeros(n_features)
        np.fmax.at(largest, X.indices, X.data)  # NaN (missing) is no category
        largest = np.minimum(largest.astype(np.int64), self._max_code())
        old = stats["n_categories_"]
        new = np.maximum(np.maximum(old, largest + 1), self._min_categories(n_features))
        counts = stats["_category_counts"]
        if not np.array_equal(old, new):  # move the counts to the wider layout
            counts = moved_columns(counts, old, new)
        counts = resettled(counts, self._has_compact_table(), batch_entries=X.nnz,
                           to_dense=densified(stats["class_count_"], new))
        compact = counts.compact_form()
        if compact is not None:
            # the categories v > 0 (category 0 follows from them and the class counts)
            counts = compact.add(self._category_matrix(X, new), y_index, sample_weight, binarize=True)
            count_classes(y_index, sample_weight, stats["class_count_"])
            stats["n_categories_"], stats["_category_counts"] = new, counts
            return
        counts = counts.values  # dense: its own array (a copy, or new), added into in place
        # Categories v > 0 are counted from the stored entries; category 0 of
        # feature j gets N_c minus the class's rows where x_j > 0 or x_j is missing.
        categories = self._category_matrix(X, new)
        batch_class_count = np.zeros(n_classes)
        if self._ignores_missing():  # the counts of the missing columns after the layout are dropped
            counts = self._missing_counts_dropped(categories, y_index, sample_weight, batch_class_count, counts)
        else:
            accumulate_class_counts(categories, y_index, sample_weight, batch_class_count, counts)
        present = np.zeros((n_classes, n_features))
        presence = csr_on(categories.data, X.indices, X.indptr, X.shape)
        accumulate_class_counts(presence, y_index, sample_weight, np.zeros(n_classes), present)
        zero = column_starts(new)
        with np.errstate(invalid="ignore"):  # inf - inf of overflowing weights: NaN, refused by check_statistics
            counts[:, zero] = np.maximum(counts[:, zero] + (batch_class_count[:, None] - present), 0.0)
        stats["class_count_"] += batch_class_count
        stats["n_categories_"] = new
        stats["_category_counts"] = DenseCounts(counts)

    @staticmethod
    def _missing_counts_dropped(categories, y_index, sample_weight, class_count, counts):
        """``counts`` plus the category counts of ``categories`` (which has a missing column per feature after
        the layout), the missing columns' counts left out."""
        width = counts.shape[1]
        counts = np.hstack([counts, np.zeros((counts.shape[0], categories.shape[1] - width))])
        accumulate_class_counts(categories, y_index, sample_weight, class_count, counts)
        return np.ascontiguousarray(counts[:, :width])

    def _deltas(self, values):
        """``values`` (n_classes, layout width) minus each feature's category 0 value, as the scoring table reads
        them: with missing values, followed by a column per feature holding minus its category 0 value (a
        missing x_j takes back the term of category 0 that the bias holds)."""
        zero = values[:, column_starts(self.n_categories_)]
        deltas = values - np.repeat(zero, self.n_categories_ + 1, axis=1)
        return np.hstack([deltas, -zero]) if self._ignores_missing() else deltas

    def _scoring_table(self, table):
        """The (rows of the category matrix, n_classes) table scoring reads, from the model's ``table`` (its
        ``_linear_terms``): with missing values, one row per feature more (built once per fitted table).  A
        compact model (fitted with missing="error", then set to "ignore") is scored by its dense tables."""
        if not self._ignores_missing():
            return table
        if as_table(table).compact_form() is not None:
            return self._derived("missing_scoring",
                                 lambda: np.ascontiguousarray(self._deltas(self._stacked_log_prob()).T))
        return self._with_missing_rows(table, lambda: -self._stacked_log_prob()[:, column_starts(self.n_categories_)].T)

    def _smoothed_log_prob(self, alpha):
        """log((N_cjv + alpha) / (N_c + alpha * n_j)) in the stacked layout, slots included."""
        n_categories = self.n_categories_
        starts, slots = column_starts(n_categories), column_starts(n_categories) + n_categories
        smoothed = self._dense_category_counts() + alpha
        smoothed[:, slots] = 0.0
        zero = smoothed[:, starts]
        smoothed[:, starts] = 0.0
        rest = np.add.reduceat(smoothed, starts, axis=1)  # sum over the categories v > 0
        log_denominator = np.log(zero + rest)
        smoothed[:, slots] = alpha
        with np.errstate(divide="ignore", invalid="ignore"):
            np.log(smoothed, out=smoothed)
            smoothed -= np.repeat(log_denominator, n_categories + 1, axis=1)
            # category 0, usually most of the class: log(N_0 / (N_0 + rest)) without the cancellation of two
            # close logs (the same rounding repeated over thousands of features would add up in the bias)
            smoothed[:, starts] = -np.log1p(rest / zero)
        return smoothed

    def _update_feature_log_prob(self, alpha):
        self._forget_derived()
        counts = self._category_counts = resettled(self._category_counts, self._has_compact_table(),
                                                   to_dense=densified(self.class_count_, self.n_categories_))
        if counts.compact_form() is not None:
            self._become_compact()
            return
        self._set_log_prob(self._smoothed_log_prob(alpha))

    # ---------------------------------------------------------- compact form
    def _become_compact(self):
        """Drop the dense tables (one attribute: a prediction in another thread sees either form, whole) and
        derive the compact ones on first use, with the smoothing of the last fit (``_fitted_params``)."""
        self._dense_tables = None

    def _is_compact(self):
        counts = self._category_counts
        return counts is not None and counts.compact_form() is not None and self._dense_tables is None

    def _saved_attributes(self):
        return self._compact_attributes if self._is_compact() else self._fitted_attributes

    def _build_tables(self):
        if self._is_compact():
            self._category_counts = self._category_counts.settled()
            self._linear_terms()

    def _settled_counts(self):
        counts = self._category_counts.compact_form()
        if counts is None:
            raise ValueError("the model's counts are no longer compact (it was refitted while predicting).")
        return self._derived_from("settled", counts, counts.settled)

    def _compact_state(self):
        """(settled compact counts, class_count_, n_categories_), each read once and checked against the others:
        a refit in another thread replaces them one by one, and a mix must be refused, not indexed."""
        counts, n_categories = self._settled_counts(), self.n_categories_
        class_count = np.asarray(self.class_count_, dtype=np.float64)
        if counts.n_features != int(np.sum(n_categories + 1)) or class_count.shape != (counts.n_classes,):
            raise ValueError("the category counts do not match n_categories_ and class_count_ (the model was "
                             "refitted while predicting).")
        return counts, class_count, n_categories

    def _dense_category_counts(self):
        """The stacked dense counts, materialized (and kept until the model changes) for a compact model."""
        counts = self._category_counts
        if counts.compact_form() is None:
            return counts.toarray()
        return self._derived("dense_counts", lambda: dense_counts(*self._compact_state()))

    @property
    def _sparse_category_count(self):
        """The compact counts of categories v > 0, ``(indptr, classes, values)`` by stacked column."""
        if not self._is_compact():
            raise AttributeError("'CategoricalNB' object has no attribute '_sparse_category_count'")
        return self._settled_counts().to_saved()

    @_sparse_category_count.setter
    def _sparse_category_count(self, arrays):
        if not self._has_compact_table():
            raise ValueError(f"CategoricalNB with alpha={self.alpha!r} has no compact tables.")
        n_categories = check_n_categories(self.n_categories_, self.n_features_in_)
        self._category_counts = SparseCounts.from_arrays(arrays, len(self.classes_), int(np.sum(n_categories + 1)))
        self._forget_derived()

    def _compact_terms(self):
        """(CompactTable over the stacked columns, bias without the prior) of a compact model.

        delta[(j, v), c] = log(N_cjv + alpha) - log(N_c0j + alpha) for v >= 1 (the slot included);
        where class c has no count in feature j (N_c0j = N_c), that is log(alpha) - log(N_c + alpha),
        the default.  The bias is sum_j log p(x_j = 0 | c).
        """
        (counts, class_count, n_categories), alpha = self._compact_state(), float(self._fitted_params()["alpha"])
        n_classes, starts = counts.n_classes, column_starts(n_categories)
        column_feature = np.repeat(np.arange(n_categories.shape[0]), n_categories + 1)
        log_all = np.log(class_count + alpha)
        default = np.log(alpha) - log_all
        # (feature, class) pairs with counts, in order, and their sums P_cj (so N_c0j = N_c - P_cj)
        keys = column_feature[counts.features()] * n_classes + counts.classes
        order = np.argsort(keys, kind="stable")
        first = np.flatnonzero(np.r_[True, keys[order][1:] != keys[order][:-1]]) if keys.size else keys
        present = np.add.reduceat(counts.values[order], first) if keys.size else counts.values
        pair_feature, pair_class = np.divmod(keys[order][first], n_classes)
        log_zero = np.log(np.maximum(class_count[pair_class] - present, 0.0) + alpha)
        # bias: sum_j [log(N_c0j + alpha) - log(N_c + alpha n_j)], the n_j grouped by value, each term as
        # [log(N_c + alpha) - log(N_c + alpha n_j)] (small, by log1p) + [log(N_c0j + alpha) - log(N_c + alpha)]
        sizes, how_many = np.unique(n_categories, return_counts=True)
        bias = -np.log1p(alpha * (sizes - 1.0) / (class_count[:, None] + alpha)) @ how_many
        bias += sum_by_class(pair_class.astype(np.int32), log_zero - log_all[pair_class], n_classes)
        # the table: each pair's classes on every category column v >= 1 of its feature
        pairs_per_feature = np.bincount(pair_feature, minlength=n_categories.shape[0])
        per_column = np.where(np.arange(column_feature.shape[0]) == starts[column_feature], 0,
                              pairs_per_feature[column_feature])
        indptr = np.zeros(per_column.shape[0] + 1, dtype=np.int64)
        np.cumsum(per_column, out=indptr[1:])
        entry_column = np.repeat(np.arange(per_column.shape[0]), per_column)
        pair_start = np.cumsum(pairs_per_feature) - pairs_per_feature
        pair = pair_start[column_feature[entry_column]] + np.arange(entry_column.shape[0]) - indptr[entry_column]
        classes = pair_class[pair].astype(np.int32)
        # N_cjv of each entry: found among the counts (sorted by column, then class), else 0
        stored = counts.features().astype(np.int64) * n_classes + counts.classes
        wanted = entry_column * n_classes + classes
        at = np.minimum(np.searchsorted(stored, wanted), max(stored.shape[0] - 1, 0))
        found = stored[at] == wanted if stored.size else np.zeros(wanted.shape, dtype=bool)
        count = np.where(found, counts.values[at] if stored.size else 0.0, 0.0)
        deviation = np.log(count + alpha) - log_zero[pair] - default[classes]
        return CompactTable(pointer_array(indptr), classes, deviation, default), bias

    def _set_log_prob(self, log_prob):
        """Install the stacked log-probabilities and derive the scoring terms."""
        n_categories = self.n_categories_
        log_zero = log_prob[:, column_starts(n_categories)]
        # a sum over every feature: compensated, so that it does not drift with many features
        log_zero_sum = tables.column_sums(np.ascontiguousarray(log_zero.T), tables.Terms.VALUES,
                                          effective_n_threads(log_zero.size))
        with np.errstate(invalid="ignore"):
            delta_table = np.ascontiguousarray((log_prob - np.repeat(log_zero, n_categories + 1, axis=1)).T)
        # alpha = 0 can leave log p = -inf, and -inf - (-inf) is NaN: scored separately.
        self._dense_tables = DenseTables(log_prob, delta_table, log_zero_sum, bool(np.all(np.isfinite(log_prob))))

    # ---------------------------------------------------------- public lists
    def _blocks(self, stacked):
        n_categories = self.n_categories_
        return [stacked[:, s:s + n] for s, n in zip(column_starts(n_categories), n_categories)]

    def _stacked(self, blocks, template):
        """``template`` with its category columns replaced by the horizontally stacked ``blocks``."""
        stacked = np.array(template, dtype=np.float64)
        stacked[:, seen_columns(self.n_categories_)[2]] = np.hstack([np.asarray(b, dtype=np.float64) for b in blocks])
        return stacked

    @property
    def n_categories_(self):
        """Number of categories of each feature (int64, read-only: checked once, where it is assigned)."""
        try:
            return self._n_categories
        except AttributeError:
            raise AttributeError("'CategoricalNB' object has no attribute 'n_categories_'") from None

    @n_categories_.setter
    def n_categories_(self, value):
        n_categories = np.array(check_n_categories(value, np.shape(value)[0] if np.ndim(value) == 1 else -1))
        n_categories.flags.writeable = False
        self._n_categories = n_categories

    @property
    def category_count_(self):
        """Weighted sample counts per class and category, one (n_classes, n_categories_[j]) array per feature.

        Of a compact model, materialized on first access (and kept until the model changes).
        """
        if self._category_counts is None:
            raise AttributeError("'CategoricalNB' object has no attribute 'category_count_'")
        return self._blocks(self._dense_category_counts())

    @category_count_.setter
    def category_count_(self, value):
        n_categories = check_n_categories(self.n_categories_, self.n_features_in_)
        n_classes = len(self.classes_)
        check_blocks(value, n_classes, n_categories, "category_count_")  # before the allocation they back
        if self._is_compact():  # as in scikit-learn, the parameters stay those of the last fit
            self._set_log_prob(self._smoothed_log_prob(self._fitted_params()["alpha"]))
        self._category_counts = DenseCounts(self._stacked(value, np.zeros((n_classes, int(np.sum(n_categories + 1))))))
        self._forget_derived()

    @property
    def feature_log_prob_(self):
        """log P(x_j = v | y), one (n_classes, n_categories_[j]) array per feature.

        Of a compact model, materialized on first access (and kept until the model changes).
        """
        if self._dense_tables is None and not self._is_compact():
            raise AttributeError("'CategoricalNB' object has no attribute 'feature_log_prob_'")
        return self._blocks(self._stacked_log_prob())

    def _stacked_log_prob(self):
        """The stacked log-probabilities: installed, or derived from a compact model's counts on first use."""
        dense = self._dense_tables
        if dense is not None:
            return dense.log_prob
        return self._derived("log_prob", lambda: self._smoothed_log_prob(self._fitted_params()["alpha"]))

    @feature_log_prob_.setter
    def feature_log_prob_(self, value):
        n_categories = check_n_categories(self.n_categories_, self.n_features_in_)
        check_blocks(value, len(self.classes_), n_categories, "feature_log_prob_")
        if self._category_counts.shape != (len(self.classes_), int(np.sum(n_categories + 1))):
            raise ValueError("set category_count_ (for the current n_categories_) before feature_log_prob_.")
        # The unseen slots are derived from the counts and alpha.
        log_prob = self._stacked(value, self._smoothed_log_prob(self._fitted_params()["alpha"]))
        check_no_nan(log_prob, "feature_log_prob_")
        self._set_log_prob(log_prob)
        self._forget_derived()

    # ---------------------------------------------------------- scoring
    @classmethod
    def _complement_stats(cls, whole, part):
        return None  # the shards may have seen different categories: refitted

    @classmethod
    def _fitted_shapes(cls, fitted, n_classes, n_features):
        # a compact model's _sparse_category_count is checked by its setter (SparseCounts.from_arrays)
        blocks = [(n_classes, int(n)) for n in check_n_categories(fitted["n_categories_"], n_features)]
        shapes = {"class_count_": (n_classes,), "class_log_prior_": (n_classes,), "n_categories_": (n_features,),
                  "category_count_": blocks, "feature_log_prob_": blocks}
        return {name: shape for name, shape in shapes.items() if name in fitted}

    def _validate_fitted(self):
        super()._validate_fitted()
        n_classes, compact = len(self.classes_), self._is_compact()
        width = int(np.sum(check_n_categories(self.n_categories_, self.n_features_in_) + 1))
        counts = self._category_counts
        if counts.shape != (n_classes, width):
            raise ValueError(f"category_counts has shape {counts.shape}, expected {(n_classes, width)}.")
        dense = None if compact else self._dense_tables
        arrays = [("class_log_prior_", self.class_log_prior_, (n_classes,))]
        if not compact:
            arrays += [("log_prob", dense.log_prob, (n_classes, width)), ("delta_table", dense.delta_table,
                                                                           (width, n_classes))]
        for name, value, shape in arrays:
            if np.shape(value) != shape:
                raise ValueError(f"{name} has shape {np.shape(value)}, expected {shape}.")
        check_counts(self.class_count_, "class_count_")
        check_counts(counts.values, "category_count_")
        for values in as_table(self._linear_terms()[0]).arrays() if compact else (dense.log_prob,):
            check_no_nan(values, "feature_log_prob_")
        check_log_prior(self.class_log_prior_, "class_log_prior_")

    def _linear_export(self):
        raise TypeError(
            "CategoricalNB's joint log-likelihood is not linear in x: it depends on each feature's category, and is "
            f"linear only in the one-hot encoding of x ({int(np.sum(self.n_categories_ + 1))} columns)."
        )

    def _linear_terms(self):
        dense = self._dense_tables  # read once: a refit in another thread replaces it whole
        if dense is None:
            table, bias = self._derived("scoring", self._compact_terms)
            return table, self.class_log_prior_ + bias, False, 0.0
        return dense.delta_table, self.class_log_prior_ + dense.log_zero_sum, False, 0.0

    def _pair_terms(self, X, first, second):
        # entry k of the category matrix is entry k of X, moved to its category's column
        table, bias = self._linear_terms()[:2]
        terms, constant = pair_terms(self._category_matrix(X, self.n_categories_), self._scoring_table(table), bias,
                                     first, second)
        return terms_matrix(X, terms), constant

    def _compact_feature_table(self):
        return None  # the scores contrast the log-probabilities, not the scoring table

    def _feature_scores(self):
        # the linear model on the one-hot encoding: a term per (feature, category)
        feature, category, columns = seen_columns(self.n_categories_)
        return contrast(self._stacked_log_prob()[:, columns]), feature, category

    def _score(self, X, mode):
        # n_categories_ is checked where it is assigned; here its length: the kernel reads n_j for every feature j
        # of X.  The table's height is checked against the layout's width by the scoring.
        n_categories = self.n_categories_
        if n_categories.shape != (X.shape[1],):
            raise ValueError(f"n_categories_ has shape {n_categories.shape}, expected ({X.shape[1]},).")
        categories = self._category_matrix(X, n_categories)
        dense = self._dense_tables  # read once: a refit in another thread replaces it whole
        if dense is not None and not dense.finite:
            return self._score_with_impossible_categories(categories, mode, dense.log_prob)
        table, bias = self._linear_terms()[:2]
        return self._score_linear(categories, mode, self._scoring_table(table), bias, False, 0.0)

    def _score_with_impossible_categories(self, categories, mode, log_prob):
        """Exact scores when some log p(x_j = v | c) is -inf (alpha = 0).

        The finite part and the number of impossible categories of each row are
        both linear in the same stacked matrix; a class with at least one
        impossible category scores -inf.
        """
        impossible = np.isneginf(log_prob)
        finite = np.where(impossible, 0.0, log_prob)
        starts = column_starts(self.n_categories_)
        jll = categories @ self._deltas(finite).T
        jll += self.class_log_prior_ + finite[:, starts].sum(axis=1)
        n_impossible = categories @ self._deltas(impossible.astype(float)).T
        n_impossible += impossible[:, starts].sum(axis=1)
        jll[n_impossible > 0] = -np.inf
        return scores_from_joint_log_likelihood(jll, mode)

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.categorical = True
        return tags

    def _check_stored_values(self):
        """Its class prior, log-probabilities and scoring table."""
        check_count_model_values(self, log_probabilities=True)
