"""Naive Bayes models for count data whose joint log-likelihood is linear in the
(possibly binarized) counts: MultinomialNB, BernoulliNB, ComplementNB and PoissonNB.

Their statistics are dense, or compact when the data holds few (class, feature)
pairs (a large vocabulary: see :mod:`nbfast.naive_bayes._compact`).  A dense
model keeps its log-probability table once, as (n_features, n_classes)
row-major for the scoring kernel; ``feature_log_prob_`` is the (n_classes,
n_features) view of it that scikit-learn users expect.
"""

import numbers
import warnings
from numbers import Real

import numpy as np
import scipy.sparse as sp

from nbfast._kernels import tables
from nbfast._kernels.counts import add_class_counts
from nbfast._kernels.scoring import Output, score_csr
from nbfast._kernels.threads import effective_n_threads
from nbfast._validation import (
    MISSING,
    check_class_prior,
    check_counts,
    check_log_prior,
    check_missing,
    check_no_nan,
)
from nbfast.naive_bayes._base import (
    _BaseNB,
    class_log_prior,
    fresh_copy,
    missing_as_columns,
    pair_terms,
    scores_from_joint_log_likelihood,
    split_missing,
    terms_matrix,
    with_missing_rows,
)
from nbfast.naive_bayes._compact import CompactTable, SparseCounts, counts_shape, fits_compact, smoothed_table
from nbfast.naive_bayes._params import Interval, StrOptions, declare

_ALPHA_LOWER_BOUND = 1e-10


def group_rows_by_class(y_index, n_classes):
    """Row order grouping rows by class (stable) and each class's start in it."""
    if n_classes <= 1 << 16:  # numpy's stable sort of 8- and 16-bit keys is a radix sort
        y_index = y_index.astype(np.uint8 if n_classes <= 1 << 8 else np.uint16)
    order = np.argsort(y_index, kind="stable").astype(np.intp, copy=False)
    start = np.zeros(n_classes + 1, dtype=np.intp)
    np.cumsum(np.bincount(y_index, minlength=n_classes), out=start[1:])
    return order, start


def count_classes(y_index, sample_weight, class_count):
    """Add the (weighted) number of samples of each class to ``class_count`` in place."""
    class_count += np.bincount(y_index, weights=sample_weight, minlength=class_count.shape[0])


def accumulate_class_counts(X, y_index, sample_weight, class_count, feature_count, *, binarize=False, threshold=0.0):
    """Add per-class sample counts and per-(class, feature) sums of f(x) in place.

    ``f(x) = x``, or ``[x > threshold]`` when ``binarize``: the statistic of every
    discrete model.  ``X`` is validated CSR.
    """
    n_classes = class_count.shape[0]
    if feature_count.shape != (n_classes, X.shape[1]):  # the kernel writes feature_count[y_index, X.indices]
        raise ValueError(f"feature_count_ has shape {feature_count.shape}, expected {(n_classes, X.shape[1])}.")
    count_classes(y_index, sample_weight, class_count)
    order, start = group_rows_by_class(y_index, n_classes)
    weights = np.empty(0) if sample_weight is None else sample_weight
    add_class_counts(
        X.data, X.indices, X.indptr, order, start, weights, binarize, threshold, feature_count, effective_n_threads(X.nnz)
    )


def soft_class_counts(X, *, binarize=False, threshold=0.0):
    """A function ``accumulate(class_weight, class_count, feature_count)`` adding, in place, the per-class sums
    of f(x) over the rows of X, row i counting for class c with weight ``class_weight[i, c]``:

        class_count[c] += sum_i class_weight[i, c]
        feature_count[c, j] += sum_i class_weight[i, c] * f(X[i, j])

    ``f(x) = x``, or ``[x > threshold]`` when ``binarize``.  ``X`` is validated CSR.  The feature sums are
    the product X.T @ class_weight: the scoring kernel's sparse-times-table product, run on the rows of X.T
    (one per feature) against the table ``class_weight`` (one row per sample).  So each feature's n_classes
    sums are kept in registers and written once, in O(nnz x n_classes), bit-identical for any number of
    threads, with no (n_samples, n_features) array and no per-thread copy of the table.  X is transposed
    here, once (a copy of its nonzeros), for repeated calls (EM).
    """
    by_feature = X.T.tocsr()  # row j: the samples where feature j is stored, in increasing order

    def accumulate(class_weight, class_count, feature_count):
        n_classes = class_weight.shape[1]
        class_count += class_weight.sum(axis=0)
        sums = np.empty((by_feature.shape[0], n_classes))
        score_csr(by_feature.data, by_feature.indices, by_feature.indptr, class_weight, np.zeros(n_classes),
                  binarize, threshold, Output.JOINT_LOG_LIKELIHOOD, sums, np.empty(0, dtype=np.int64),
                  effective_n_threads(by_feature.nnz * n_classes))
        feature_count += sums.T

    return accumulate


def sum_counts(counts):
    """The entrywise sum of per-(class, feature) counts, in the order given: compact when all of them are."""
    if all(isinstance(c, SparseCounts) for c in counts):
        return SparseCounts.sum(counts)
    return np.sum([c.toarray() if isinstance(c, SparseCounts) else np.asarray(c, dtype=np.float64) for c in counts],
                  axis=0)


def negated_counts(counts):
    """-counts, compact or dense."""
    return counts._replace(values=-counts.values) if isinstance(counts, SparseCounts) else -np.asarray(counts)


def alpha_weighted_sum(alpha, log_table):
    """sum over j and c of alpha_j * log_table[j, c] (log_table (n_features, n_classes)), a feature of alpha 0
    adding 0 whatever its entries (-inf when unsmoothed): the log of a Dirichlet, Beta or Gamma prior density
    with exponents alpha, up to a constant."""
    alpha = np.broadcast_to(np.asarray(alpha, dtype=np.float64), (log_table.shape[0],))
    return float(np.dot(alpha, np.where(alpha[:, None] > 0, log_table, 0.0).sum(axis=1)))


class _BaseDiscreteNB(_BaseNB):
    """Discrete Naive Bayes: additive smoothing ``alpha`` and class priors."""

    _non_negative = True
    _parameter_constraints = declare({"alpha": [Interval(Real, 0, None, closed="left"), "array-like"],
                              "fit_prior": ["boolean"], "class_prior": ["array-like", None], "force_alpha": ["boolean"]})

    def __init__(self, alpha=1.0, fit_prior=True, class_prior=None, force_alpha=True):
        self.alpha = alpha
        self.fit_prior = fit_prior
        self.class_prior = class_prior
        self.force_alpha = force_alpha

    # ---------------------------------------------------------- parameters
    def _validate_params(self, n_features, n_classes):
        super()._validate_params(n_features, n_classes)
        self._check_alpha(n_features, warn=True)
        check_class_prior(self.class_prior, n_classes)

    def _check_alpha(self, n_features, warn=False):
        """The smoothing as a float or a (n_features,) array, bounded below unless force_alpha (with a warning
        when ``warn``: once per fit, where the parameters are validated)."""
        if isinstance(self.alpha, numbers.Real) and not isinstance(self.alpha, bool):
            alpha = float(self.alpha)
            if not alpha >= 0:
                raise ValueError(f"alpha must be a float in the range [0.0, inf) or an array-like; got {self.alpha!r}.")
        else:
            alpha = np.asarray(self.alpha)
            if alpha.dtype.kind not in "iuf" or alpha.ndim != 1:
                raise ValueError(f"alpha must be a non-negative float or a 1-D array of floats; got {self.alpha!r}.")
            if alpha.shape[0] != n_features:
                raise ValueError(
                    "When alpha is an array, it should contains `n_features`. "
                    f"Got {alpha.shape[0]} elements instead of {n_features}."
                )
            alpha = alpha.astype(np.float64)
            if not np.all((alpha >= 0) & (alpha < np.inf)):
                raise ValueError(f"All values in alpha must be finite and non-negative; got {self.alpha!r}.")
        if np.min(alpha) < _ALPHA_LOWER_BOUND and not self.force_alpha:
            if warn:
                warnings.warn(f"alpha too small will result in numeric errors, setting alpha = "
                              f"{_ALPHA_LOWER_BOUND:.1e}. Use `force_alpha=True` to keep alpha unchanged.")
            return np.maximum(alpha, _ALPHA_LOWER_BOUND)
        return alpha

    # ---------------------------------------------------------- statistics
    def _update_params(self):
        alpha = self._check_alpha(self.n_features_in_)
        self._update_feature_log_prob(alpha)
        self._update_class_log_prior()

    def _update_class_log_prior(self):
        prior = check_class_prior(self.class_prior, len(self.classes_))
        self.class_log_prior_ = class_log_prior(self.class_count_, prior, self.fit_prior)


class _CountNB(_BaseDiscreteNB):
    """The count models whose joint log-likelihood is linear in f(x): MultinomialNB, BernoulliNB,
    ComplementNB and PoissonNB.

    Statistics: ``class_count_`` and the per-(class, feature) sums of f(x), kept
    dense (n_classes, n_features) or compact (:class:`SparseCounts`, by
    feature), whichever the density of the data calls for (see
    :mod:`nbfast.naive_bayes._compact`).  The scoring tables are derived from
    them on first use (``fit`` builds them at once; ``partial_fit`` and
    ``merge`` leave them to the next prediction, so that many batches cost
    about one fit) and kept outside the estimator.  A subclass gives its tables
    three ways: ``_dense_log_table`` (the public ``feature_log_prob_``, in the
    scoring layout), ``_dense_terms`` (scoring table and bias from it) and
    ``_compact_terms`` (the same from compact counts).
    """

    _stat_names = ("class_count_", "_feature_counts")
    _fitted_attributes = (
        "classes_", "n_features_in_", "class_count_", "feature_count_", "class_log_prior_", "feature_log_prob_",
    )
    _compact_attributes = ("classes_", "n_features_in_", "class_count_", "_sparse_feature_count", "class_log_prior_")

    # ---------------------------------------------------------- statistics
    def _init_stats(self, n_classes, n_features):
        return {"class_count_": np.zeros(n_classes), "_feature_counts": SparseCounts.empty(n_classes, n_features)}

    def _kernel_threshold(self):
        """(binarize x in the kernels?, threshold): f(x) = [x > threshold] or x."""
        return False, 0.0

    def _has_compact_table(self):
        """Whether the parameters allow compact tables: a zero alpha makes log(0) entries, kept dense."""
        return bool(np.min(np.asarray(self.alpha, dtype=np.float64)) > 0 or not self.force_alpha)

    def _accumulate(self, stats, X, y_index, sample_weight):
        binarize, threshold = self._kernel_threshold()
        class_count, counts = stats["class_count_"], stats["_feature_counts"]
        if isinstance(counts, SparseCounts):
            if self._has_compact_table() and fits_compact(
                    counts.nnz + counts.n_pending + X.nnz, counts.n_classes, counts.n_features, counting=True):
                count_classes(y_index, sample_weight, class_count)
                stats["_feature_counts"] = counts.add(X, y_index, sample_weight, binarize=binarize, threshold=threshold)
                return
            counts = stats["_feature_counts"] = counts.settled().toarray()
        accumulate_class_counts(X, y_index, sample_weight, class_count, counts, binarize=binarize, threshold=threshold)

    def _soft_label_accumulator(self, X):
        if self._ignores_missing():
            raise TypeError(f"{type(self).__name__} with missing='ignore' does not learn from soft labels "
                            "(semi-supervised EM): its observed counts are not kept per soft label.")
        binarize, threshold = self._kernel_threshold()
        accumulate = soft_class_counts(X, binarize=binarize, threshold=threshold)

        def accumulate_counts(stats, class_weight):
            counts = stats["_feature_counts"]
            if isinstance(counts, SparseCounts):  # soft labels give every class a share of every feature: dense
                counts = stats["_feature_counts"] = counts.settled().toarray()
            accumulate(class_weight, stats["class_count_"], counts)

        return accumulate_counts

    def _current_stats(self):
        counts = self._feature_counts  # compact counts are immutable: adding a batch makes new ones
        stats = {"class_count_": fresh_copy(self.class_count_),
                 "_feature_counts": counts if isinstance(counts, SparseCounts) else fresh_copy(counts)}
        if "observed_count_" in vars(self):
            stats["observed_count_"] = fresh_copy(self.observed_count_)
        return stats

    @classmethod
    def _merge_stats(cls, models):
        counts = sum_counts([model._counts() for model in models])
        class_count = np.sum([np.asarray(model.class_count_, dtype=np.float64) for model in models], axis=0)
        stats = {"class_count_": class_count, "_feature_counts": counts}
        if any("observed_count_" in vars(model) for model in models):
            stats["observed_count_"] = np.sum([model._observed_count() for model in models], axis=0)
        return stats

    @classmethod
    def _complement_stats(cls, whole, part):
        # Counts add up over rows, so they subtract: the statistics of the other rows (whole + (-part) is
        # whole - part exactly, entry by entry, in either representation).
        counts = sum_counts([whole._counts(), negated_counts(part._counts())])
        stats = {"class_count_": np.asarray(whole.class_count_, dtype=np.float64) - part.class_count_,
                 "_feature_counts": counts}
        if "observed_count_" in vars(whole):
            stats["observed_count_"] = whole._observed_count() - part._observed_count()
        return stats

    def _update_feature_log_prob(self, alpha):
        # The tables are derived on first use, from the parameters of this moment.
        self._table_params = self._table_parameters(alpha)
        counts = self._feature_counts
        if isinstance(counts, SparseCounts) and not (self._has_compact_table() and fits_compact(
                counts.nnz + counts.n_pending, counts.n_classes, counts.n_features)):  # perhaps too dense: count
            counts = counts.settled()
            if not (self._has_compact_table() and fits_compact(counts.nnz, counts.n_classes, counts.n_features)):
                counts = counts.toarray()
            self._feature_counts = counts
        self._statistics_changed()

    def _table_parameters(self, alpha):
        """The parameters the tables are derived with (snapshot at fit: ``set_params`` after it changes nothing)."""
        return {"alpha": alpha}

    def _params_for_tables(self):
        params = vars(self).get("_table_params")
        return params if params is not None else self._table_parameters(self._check_alpha(self.n_features_in_))

    def _statistics_changed(self):
        """Forget the tables derived from the statistics and any table assigned by hand."""
        vars(self).pop("_log_prob_override", None)
        self._forget_derived()

    def _build_tables(self):
        if isinstance(self._feature_counts, SparseCounts):  # fit had every batch at once: nothing to defer
            self._feature_counts = self._feature_counts.settled()
        self._scoring_terms()

    def _counts(self):
        """The statistics with every batch added: a compact model's pending entries are settled on first use
        (and kept with the derived tables)."""
        counts = self._feature_counts
        if isinstance(counts, SparseCounts) and counts.pending:
            return self._derived("settled", counts.settled)
        return counts

    def _is_compact(self):
        return isinstance(vars(self).get("_feature_counts"), SparseCounts) and \
            vars(self).get("_log_prob_override") is None

    def _saved_attributes(self):
        return self._compact_attributes if self._is_compact() else self._fitted_attributes

    # ------------------------------------------------------------- tables
    def _scoring_terms(self):
        """(table, bias without the prior): the table dense (n_features, n_classes) or a CompactTable."""
        def build():
            # each statistic read once and checked against the other: a refit in another thread replaces them
            counts, class_count = self._counts(), np.asarray(self.class_count_, dtype=np.float64)
            if not (isinstance(counts, SparseCounts) and self._is_compact()):
                return self._dense_terms(self._log_prob_table)
            if class_count.shape != (counts.n_classes,):
                raise ValueError(f"class_count_ has shape {class_count.shape}, expected ({counts.n_classes},) (or "
                                 "the model was refitted while predicting).")
            return self._compact_terms(counts, class_count, self._params_for_tables())

        return self._derived("scoring", build)

    def _linear_terms(self):
        table, bias = self._scoring_terms()
        return (table, self._added_log_prior() + bias, *self._kernel_threshold())

    @property
    def _log_prob_table(self):
        """``feature_log_prob_`` in the scoring layout (n_features, n_classes): assigned, or derived from the counts."""
        override = vars(self).get("_log_prob_override")
        if override is not None:
            return override
        counts = self._counts()
        dense = counts.toarray if isinstance(counts, SparseCounts) else (lambda: counts)
        return self._derived("log_prob", lambda: self._dense_log_table(dense(), self._params_for_tables()))

    def _dense_log_table(self, counts, params):
        """The (n_features, n_classes) table whose transpose is ``feature_log_prob_``, from dense counts."""
        raise NotImplementedError

    def _dense_terms(self, log_table):
        """(scoring table (n_features, n_classes), bias without the prior) from the log table."""
        return log_table, 0.0

    def _compact_terms(self, counts, class_count, params):
        """(CompactTable, bias without the prior) from compact counts and the class counts."""
        raise NotImplementedError

    def _smoothed_log_table(self, counts, alpha, denominator, alpha_weight=0.0):
        """log(counts[c, j] + alpha_j) - log(denominator[c] + alpha_weight * alpha_j), (n_features, n_classes).

        Built by a parallel kernel directly in the scoring layout.
        """
        counts = np.require(counts, dtype=np.float64, requirements=["C"])
        denominator, alpha = np.asarray(denominator), np.atleast_1d(np.asarray(alpha, dtype=np.float64))
        if denominator.shape != counts.shape[:1] or alpha.shape not in ((1,), counts.shape[1:]):
            raise ValueError(f"the class counts {denominator.shape} or alpha {alpha.shape} do not match the feature "
                             f"counts {counts.shape} (the model was refitted while predicting).")
        table = np.empty((counts.shape[1], counts.shape[0]))
        tables.smoothed_log_table(counts, alpha, np.ascontiguousarray(denominator, dtype=np.float64), alpha_weight,
                                  table, effective_n_threads(table.size))
        return table

    # --------------------------------------------------- public attributes
    def _missing(self, name):
        return AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")

    @property
    def feature_count_(self):
        """Per-(class, feature) sums of f(x), (n_classes, n_features).

        Of a compact model (large vocabulary, few counts), a dense read-only copy
        materialized on first access and kept until the model changes: it is
        never needed to fit or predict.
        """
        if "_feature_counts" not in vars(self):
            raise self._missing("feature_count_")
        counts = self._counts()
        if isinstance(counts, SparseCounts):
            def materialize():
                dense = counts.toarray()
                dense.flags.writeable = False
                return dense

            return self._derived("feature_count", materialize)
        return counts

    @feature_count_.setter
    def feature_count_(self, value):
        # As in scikit-learn, the parameters stay those of the last fit until the next one.
        if "_feature_counts" in vars(self) and vars(self).get("_log_prob_override") is None:
            self._log_prob_override = self._log_prob_table
        self._feature_counts = np.asarray(value)
        self._forget_derived()

    @property
    def _sparse_feature_count(self):
        """The compact counts as ``(indptr, classes, values)`` (what a model file of format version 2 stores)."""
        if not isinstance(vars(self).get("_feature_counts"), SparseCounts):
            raise self._missing("_sparse_feature_count")
        return self._counts().arrays()

    @_sparse_feature_count.setter
    def _sparse_feature_count(self, arrays):
        if not self._has_compact_table():
            raise ValueError(f"{type(self).__name__} with alpha={self.alpha!r} has no compact tables.")
        self._feature_counts = SparseCounts.from_arrays(arrays, len(self.classes_), self.n_features_in_)
        vars(self).pop("_table_params", None)
        self._statistics_changed()

    @property
    def feature_log_prob_(self):
        """Empirical log probability of features given a class, (n_classes, n_features).

        A read-only view of the log table: assign a new array to change the
        model, so that the tables derived from it are rebuilt too.  Of a compact
        model, materialized on first access and kept until the model changes.
        """
        if "_feature_counts" not in vars(self) and "_log_prob_override" not in vars(self):
            raise self._missing("feature_log_prob_")
        view = self._log_prob_table.T
        view.flags.writeable = False
        return view

    @feature_log_prob_.setter
    def feature_log_prob_(self, value):
        table = np.ascontiguousarray(np.asarray(value, dtype=np.float64).T)
        check_no_nan(table, "feature_log_prob_")
        self._log_prob_override = table
        self._forget_derived()

    @classmethod
    def _fitted_shapes(cls, fitted, n_classes, n_features):
        # a compact model's _sparse_feature_count is checked by its setter (SparseCounts.from_arrays)
        shapes = {"class_count_": (n_classes,), "feature_count_": (n_classes, n_features),
                  "class_log_prior_": (n_classes,), "feature_log_prob_": (n_classes, n_features),
                  "feature_all_": (n_features,)}
        return {name: shape for name, shape in shapes.items() if name in fitted}

    def _validate_fitted(self):
        """Counts of the right shape, finite and non-negative (before any table is derived from them); tables of
        the right shape, no NaN in what scoring reads and no +inf in the bias (O(C x D), or O(nnz) compact)."""
        super()._validate_fitted()
        n_classes, n_features = len(self.classes_), self.n_features_in_
        shape = counts_shape(self._feature_counts)
        if shape != (n_classes, n_features):
            raise ValueError(f"feature_count_ has shape {shape}, expected {(n_classes, n_features)}.")
        check_counts(self.class_count_, "class_count_")
        counts = self._counts()
        check_counts(counts.values if isinstance(counts, SparseCounts) else counts, "feature_count_")
        table, bias = self._linear_terms()[:2]
        if np.shape(table) != (n_features, n_classes) or np.shape(bias) != (n_classes,):
            raise ValueError(
                f"the scoring table has shape {np.shape(table)} and the bias {np.shape(bias)}, "
                f"expected ({n_features}, {n_classes}) and ({n_classes},)."
            )
        for values in table.arrays() if isinstance(table, CompactTable) else (table,):
            check_no_nan(values, "feature_log_prob_ (the scoring table derived from it)")
        check_log_prior(bias, "class_log_prior_ (the scoring bias derived from it)")


class MultinomialNB(_CountNB):
    """Naive Bayes classifier for multinomial models (word counts, tf-idf).

    Drop-in for :class:`sklearn.naive_bayes.MultinomialNB`: same parameters,
    attributes and results, computed by OpenMP kernels directly on CSR.

    Parameters
    ----------
    alpha : float or array-like of shape (n_features,), default=1.0
        Additive (Laplace/Lidstone) smoothing parameter (0 for no smoothing).
    force_alpha : bool, default=True
        If False and alpha is less than 1e-10, it is set to 1e-10.
    fit_prior : bool, default=True
        Whether to learn class prior probabilities; if False a uniform prior is used.
    class_prior : array-like of shape (n_classes,), default=None
        Prior probabilities of the classes (must sum to 1); not adjusted to the data.

    Attributes
    ----------
    class_count_ : ndarray of shape (n_classes,)
        Number of samples (weighted) seen for each class.
    class_log_prior_ : ndarray of shape (n_classes,)
        Log probability of each class.
    classes_ : ndarray of shape (n_classes,)
        Class labels, sorted.
    feature_count_ : ndarray of shape (n_classes, n_features)
        Weighted sum of each feature's counts per class.
    feature_log_prob_ : ndarray of shape (n_classes, n_features)
        log P(x_i | y) = log((N_yi + alpha_i) / (N_y + sum(alpha))).
    n_features_in_ : int
        Number of features seen during fit.
    feature_names_in_ : ndarray of shape (``n_features_in_``,)
        Names of features seen during fit, when X has string column names.

    Examples
    --------
    >>> import numpy as np
    >>> from nbfast import MultinomialNB
    >>> rng = np.random.RandomState(1)
    >>> X = rng.randint(5, size=(6, 100))
    >>> y = np.array([1, 2, 3, 4, 5, 6])
    >>> clf = MultinomialNB().fit(X, y)
    >>> print(clf.predict(X[2:3]))
    [3]
    """

    def __init__(self, *, alpha=1.0, force_alpha=True, fit_prior=True, class_prior=None):
        super().__init__(alpha=alpha, fit_prior=fit_prior, class_prior=class_prior, force_alpha=force_alpha)

    # log theta_ci = log(N_ci + alpha_i) - log(sum_i (N_ci + alpha_i))
    def _dense_log_table(self, counts, params):
        alpha = params["alpha"]
        smoothed_total = counts.sum(axis=1) + np.sum(np.broadcast_to(alpha, counts.shape[1]))
        return self._smoothed_log_table(counts, alpha, smoothed_total)

    def _compact_terms(self, counts, class_count, params):
        alpha = params["alpha"]
        smoothed_total = counts.class_totals() + np.sum(np.broadcast_to(alpha, counts.n_features))
        return smoothed_table(counts, alpha, np.log(smoothed_total)), 0.0

    def _log_parameter_prior(self):
        # theta_c ~ Dirichlet(alpha + 1), whose mode is the smoothed estimate: sum_ci alpha_i log theta_ci
        return alpha_weighted_sum(self._check_alpha(self.n_features_in_), self._log_prob_table)


class BernoulliNB(_CountNB):
    """Naive Bayes classifier for multivariate Bernoulli models (word presence).

    Drop-in for :class:`sklearn.naive_bayes.BernoulliNB`.  Sparse rows are
    scored in O(nnz): the per-class sum of log(1 - theta) over all features is
    precomputed and each present feature adds log theta - log(1 - theta); X is
    never binarized into a copy.

    Parameters
    ----------
    alpha : float or array-like of shape (n_features,), default=1.0
        Additive (Laplace/Lidstone) smoothing parameter (0 for no smoothing).
    force_alpha : bool, default=True
        If False and alpha is less than 1e-10, it is set to 1e-10.
    binarize : float or None, default=0.0
        Threshold (>= 0) for binarizing features (x > binarize counts as present).
        If None, X must be binary already: a value above 1 is refused.
    fit_prior : bool, default=True
        Whether to learn class prior probabilities; if False a uniform prior is used.
    class_prior : array-like of shape (n_classes,), default=None
        Prior probabilities of the classes (must sum to 1); not adjusted to the data.
    missing : {"error", "ignore"}, default="error"
        What NaN in X is: an error (scikit-learn's behaviour), or a missing
        value ("ignore"), left out of its feature's counts (theta_ci's
        denominator becomes the class's number of observed values of feature
        i, ``observed_count_``, plus 2 alpha) and out of the row's joint
        log-likelihood.  A stored NaN of sparse X is missing; implicit zeros
        stay absences.

    Attributes
    ----------
    class_count_ : ndarray of shape (n_classes,)
        Number of samples (weighted) seen for each class.
    class_log_prior_ : ndarray of shape (n_classes,)
        Log probability of each class.
    classes_ : ndarray of shape (n_classes,)
        Class labels, sorted.
    feature_count_ : ndarray of shape (n_classes, n_features)
        Weighted number of samples of each class in which each feature is present.
    feature_log_prob_ : ndarray of shape (n_classes, n_features)
        log theta_ci = log((N_ci + alpha) / (N_c + 2 alpha)).
    observed_count_ : ndarray of shape (n_classes, n_features)
        Weighted number of observed (not NaN) values of each feature per
        class, N_c of theta_ci's denominator: only in models fitted with
        ``missing="ignore"``.
    n_features_in_ : int
        Number of features seen during fit.
    feature_names_in_ : ndarray of shape (``n_features_in_``,)
        Names of features seen during fit, when X has string column names.

    Examples
    --------
    >>> import numpy as np
    >>> from nbfast import BernoulliNB
    >>> rng = np.random.RandomState(1)
    >>> X = rng.randint(5, size=(6, 100))
    >>> y = np.array([1, 2, 3, 4, 4, 5])
    >>> clf = BernoulliNB().fit(X, y)
    >>> print(clf.predict(X[2:3]))
    [3]
    """

    _non_negative = False
    _keeps_observed_count = True
    _takes_missing = True
    _parameter_constraints = declare({**_BaseDiscreteNB._parameter_constraints, "missing": [StrOptions(set(MISSING))],
                              "binarize": [None, Interval(Real, 0, None, closed="left")]})
    _scoring_params = ("binarize", "missing")

    def __init__(self, *, alpha=1.0, force_alpha=True, binarize=0.0, fit_prior=True, class_prior=None,
                 missing="error"):
        super().__init__(alpha=alpha, fit_prior=fit_prior, class_prior=class_prior, force_alpha=force_alpha)
        self.binarize = binarize
        self.missing = missing

    def _ignores_missing(self):
        return check_missing(self.missing)

    def _check_X(self, X, reset):
        X = super()._check_X(X, reset)
        if self.binarize is None:  # X is taken as binary: a count above 1 has no Bernoulli likelihood
            data = X.data if sp.issparse(X) else X
            if np.any(data > 1):
                raise ValueError(f"BernoulliNB(binarize=None) takes binary X (values 0 or 1), but X holds values "
                                 f"up to {np.nanmax(data)!r}: set binarize (0.0 binarizes counts) or binarize X.")
        return X

    def _kernel_threshold(self):
        return (False, 0.0) if self.binarize is None else (True, float(self.binarize))

    def _has_compact_table(self):
        # with a per-feature alpha, the default presence weight depends on the feature too; with missing values,
        # theta_ci's denominator depends on the feature (observed_count_): such models stay dense
        return super()._has_compact_table() and np.ndim(self.alpha) == 0 and self.missing == "error" and \
            "observed_count_" not in vars(self)

    def _init_stats(self, n_classes, n_features):
        stats = super()._init_stats(n_classes, n_features)
        if self._ignores_missing():  # dense: observed_count_ is (n_classes, n_features) anyway
            stats["_feature_counts"] = np.zeros((n_classes, n_features))
            stats["observed_count_"] = np.zeros((n_classes, n_features))
        return stats

    def _accumulate(self, stats, X, y_index, sample_weight):
        if "observed_count_" not in stats and not self._ignores_missing():
            super()._accumulate(stats, X, y_index, sample_weight)
            return
        if isinstance(stats["_feature_counts"], SparseCounts):  # continuing a compact model, with missing values
            stats["_feature_counts"] = stats["_feature_counts"].settled().toarray()
        self._accumulate_observed(stats, X, y_index, sample_weight)

    def _accumulate_observed(self, stats, X, y_index, sample_weight):
        """``_accumulate`` keeping ``observed_count_``: N_c minus the class's missing values of each feature."""
        binarize, threshold = self._kernel_threshold()
        observed, missing = split_missing(X)
        class_count = np.zeros_like(stats["class_count_"])
        counts = stats["_feature_counts"]
        accumulate_class_counts(observed, y_index, sample_weight, class_count, counts,
                                binarize=binarize, threshold=threshold)
        missing_count = np.zeros_like(counts)
        accumulate_class_counts(missing, y_index, sample_weight, np.zeros_like(class_count), missing_count)
        if "observed_count_" not in stats:  # continuing a model fitted without missing values
            stats["observed_count_"] = np.repeat(stats["class_count_"][:, None], X.shape[1], axis=1)
        stats["observed_count_"] += class_count[:, None] - missing_count
        stats["class_count_"] += class_count

    # log theta_ci = log(N_ci + alpha) - log(N_c + 2 alpha), N_c the observed count O_ci with missing values
    # jll = log prior + sum_i log(1 - theta_i) + sum_{i present} [log theta_i - log(1 - theta_i)]
    def _dense_log_table(self, counts, params):
        observed = vars(self).get("observed_count_")
        if observed is None:
            return self._smoothed_log_table(counts, params["alpha"], self.class_count_, alpha_weight=2.0)
        alpha = np.asarray(params["alpha"], dtype=np.float64)
        table = self._smoothed_log_table(counts, alpha, np.ones(counts.shape[0]))  # log(N_ci + alpha_i) - log 1
        with np.errstate(divide="ignore"):
            table -= np.log(np.asarray(observed, dtype=np.float64).T + 2 * (alpha[:, None] if alpha.ndim else alpha))
        return table

    def _dense_terms(self, log_table):
        presence = np.empty_like(log_table)
        log_absent_sum = tables.column_sums(log_table, tables.Terms.LOG_COMPLEMENTS,
                                            effective_n_threads(log_table.size), presence)
        return presence, log_absent_sum

    def _compact_terms(self, counts, class_count, params):
        alpha = float(params["alpha"])
        log_denominator = np.log(class_count + 2 * alpha)
        # every class's unseen features share one theta, and so one presence weight
        log_theta0 = np.log(alpha) - log_denominator
        log_theta = np.log(counts.values + alpha) - log_denominator[counts.classes]
        with np.errstate(invalid="ignore"):  # theta > 1 (counts assigned by hand): NaN, as in scikit-learn
            log_absent0 = np.log1p(-np.exp(log_theta0))
            log_absent = np.log1p(-np.exp(log_theta))
        presence0 = log_theta0 - log_absent0
        deviation = (log_theta - log_absent) - presence0[counts.classes]
        log_absent_sum = (counts.n_features - counts.class_entries()) * log_absent0 + counts.sum_by_class(log_absent)
        return CompactTable(counts.indptr, counts.classes, deviation, presence0), log_absent_sum

    def _missing_scoring(self, X):
        """(X as :func:`missing_as_columns` makes it, the stacked table, the bias) with missing values: a missing
        x_i scores -log(1 - theta_i), taking back the absence term the bias holds."""
        table, bias = self._scoring_terms()
        if isinstance(table, CompactTable):  # fitted compact, then set_params(missing="ignore"): scored densely
            table, bias = self._derived("dense_scoring", lambda: self._dense_terms(self._log_prob_table))
        binarize, threshold = self._kernel_threshold()
        stacked = with_missing_rows(self, table, lambda: -np.log1p(-np.exp(self._log_prob_table)))
        return missing_as_columns(X, binarize, threshold), stacked, self._added_log_prior() + bias

    def _score(self, X, mode):
        if not self._ignores_missing():
            return super()._score(X, mode)
        exact = self._score_outside_the_linear_form(X, mode)
        if exact is not None:
            return exact
        columns, stacked, bias = self._missing_scoring(X)
        return self._score_linear(columns, mode, stacked, bias, False, 0.0)

    def _pair_terms(self, X, first, second):
        if not self._ignores_missing():
            return super()._pair_terms(X, first, second)
        terms, constant = pair_terms(*self._missing_scoring(X), first, second)  # entry k of X is entry k there
        return terms_matrix(X, terms), constant

    def _linear_in_binarized_x(self):
        return self.binarize is not None

    def _log_parameter_prior(self):
        # theta_ci ~ Beta(alpha + 1, alpha + 1): sum_ci alpha (log theta_ci + log(1 - theta_ci))
        alpha = self._check_alpha(self.n_features_in_)
        with np.errstate(divide="ignore"):
            log_absent = np.log1p(-np.exp(self._log_prob_table))
        return alpha_weighted_sum(alpha, self._log_prob_table) + alpha_weighted_sum(alpha, log_absent)

    def _score_outside_the_linear_form(self, X, mode):
        """Exact scores when some theta_ci = 1 (alpha = 0): a feature seen in every sample of class c.

        log(1 - theta_ci) = -inf makes the linear form add +inf (presence) to -inf
        (absence sum): NaN.  A row lacking such a feature scores -inf for class c;
        a row having it adds log theta_ci = 0.
        """
        if not np.isneginf(self._scoring_terms()[1]).any():  # the bias: sum_i log(1 - theta_ci)
            return None
        binarize, threshold = self._kernel_threshold()
        X, missing = split_missing(X)  # no missing value is an absence
        X = X.copy()  # its own indices: eliminate_zeros works in place
        if binarize:
            X.data = (X.data > threshold).astype(np.float64)
        X.eliminate_zeros()  # 0 * log theta = 0 even where log theta = -inf
        table = self._log_prob_table
        with np.errstate(divide="ignore"):
            log_absent = np.log1p(-np.exp(table))
        certain = np.isneginf(log_absent)
        log_absent[certain] = 0.0
        jll = X @ (table - log_absent) - missing @ log_absent + (self.class_log_prior_ + log_absent.sum(axis=0))
        jll[(X + missing) @ certain.astype(np.float64) < certain.sum(axis=0)] = -np.inf
        return scores_from_joint_log_likelihood(jll, mode)


class ComplementNB(_CountNB):
    """The Complement Naive Bayes classifier of Rennie et al. (2003).

    Drop-in for :class:`sklearn.naive_bayes.ComplementNB`, suited to imbalanced
    text data.  Each class is scored by the weights of its complement (all the
    other classes); the score is linear in the counts, so sparse rows are scored
    in O(nnz) by the fused kernel.

    Parameters
    ----------
    alpha : float or array-like of shape (n_features,), default=1.0
        Additive (Laplace/Lidstone) smoothing parameter (0 for no smoothing).
    force_alpha : bool, default=True
        If False and alpha is less than 1e-10, it is set to 1e-10.
    fit_prior : bool, default=True
        Only used in the edge case of a single class in the training set.
    class_prior : array-like of shape (n_classes,), default=None
        Prior probabilities of the classes. Not used (validated only).
    norm : bool, default=False
        Whether a second normalization of the weights is performed (Table 9
        of the paper); the default mirrors Mahout and Weka.

    Attributes
    ----------
    class_count_ : ndarray of shape (n_classes,)
        Number of samples (weighted) seen for each class.
    class_log_prior_ : ndarray of shape (n_classes,)
        Log probability of each class; only used with a single class.
    classes_ : ndarray of shape (n_classes,)
        Class labels, sorted.
    feature_all_ : ndarray of shape (n_features,)
        Weighted sum of each feature's counts over all classes.
    feature_count_ : ndarray of shape (n_classes, n_features)
        Weighted sum of each feature's counts per class.
    feature_log_prob_ : ndarray of shape (n_classes, n_features)
        Empirical weights for class complements.
    n_features_in_ : int
        Number of features seen during fit.
    feature_names_in_ : ndarray of shape (``n_features_in_``,)
        Names of features seen during fit, when X has string column names.

    References
    ----------
    Rennie, J. D., Shih, L., Teevan, J., & Karger, D. R. (2003). Tackling the
    poor assumptions of naive Bayes text classifiers. In ICML (pp. 616-623).

    Examples
    --------
    >>> import numpy as np
    >>> from nbfast import ComplementNB
    >>> rng = np.random.RandomState(1)
    >>> X = rng.randint(5, size=(6, 100))
    >>> y = np.array([1, 2, 3, 4, 5, 6])
    >>> clf = ComplementNB().fit(X, y)
    >>> print(clf.predict(X[2:3]))
    [3]
    """

    _fitted_attributes = (
        "classes_", "n_features_in_", "class_count_", "feature_count_", "feature_all_",
        "class_log_prior_", "feature_log_prob_",
    )
    _parameter_constraints = declare({**_BaseDiscreteNB._parameter_constraints, "norm": ["boolean"]})

    def __init__(self, *, alpha=1.0, force_alpha=True, fit_prior=True, class_prior=None, norm=False):
        super().__init__(alpha=alpha, fit_prior=fit_prior, class_prior=class_prior, force_alpha=force_alpha)
        self.norm = norm

    def _table_parameters(self, alpha):
        return {"alpha": alpha, "norm": self.norm}

    # w_ci = log(theta~_ci), theta~_ci = (sum_{c' != c} N_c'i + alpha_i) / sum_i (...);
    # scores are -w (argmax of -w is the paper's argmin), or w / sum_i w when norm.
    def _dense_log_table(self, counts, params):
        counts = np.require(counts, dtype=np.float64, requirements=["C"])
        weights = np.empty((counts.shape[1], counts.shape[0]))  # built in the scoring layout by a parallel kernel
        tables.complement_table(counts, counts.sum(axis=0), np.atleast_1d(np.asarray(params["alpha"], np.float64)),
                                bool(params["norm"]), weights, effective_n_threads(weights.size))
        return weights

    def _compact_terms(self, counts, class_count, params):
        # log w_ci = log(F_i + alpha_i - N_ci) - log S_c, F_i = sum_c N_ci, S_c = sum_i (F_i + alpha_i - N_ci);
        # where N_ci = 0 that is log(F_i + alpha_i) - log S_c: a per-feature base and a per-class default.
        alpha = np.broadcast_to(np.asarray(params["alpha"], dtype=np.float64), counts.n_features)
        smoothed_all = counts.feature_totals() + alpha  # (not kept: the model keeps only its log)
        log_all = np.log(smoothed_all)
        features = counts.features()
        deviation = log_all[features] - np.log(smoothed_all[features] - counts.values)  # log F~ - log w~ >= 0
        log_total = np.log(np.sum(smoothed_all) - counts.class_totals())
        if not params["norm"]:  # -log w_ci = log S_c - log F~_i + deviation
            return CompactTable(counts.indptr, counts.classes, deviation, log_total, base=-log_all), 0.0
        # w_ci / Z_c with Z_c = sum_i log w_ci = sum_i log F~_i - sum_{stored} deviation - n_features log S_c
        norm = np.sum(log_all) - counts.sum_by_class(deviation) - counts.n_features * log_total
        if np.any(norm == 0):  # degenerate (one feature: every w_ci = 1): the dense table's NaN, where x_j > 0 only
            return self._dense_terms(self._log_prob_table)
        return CompactTable(counts.indptr, counts.classes, -deviation / norm[counts.classes], -log_total / norm,
                            1.0 / norm, log_all), 0.0

    @property
    def feature_all_(self):
        """Weighted sum of each feature's counts over all classes, (n_features,)."""
        assigned = vars(self).get("_feature_all")
        if assigned is not None:
            return assigned
        if "_feature_counts" not in vars(self):
            raise self._missing("feature_all_")
        counts = self._counts()
        if isinstance(counts, SparseCounts):
            return self._derived("feature_all", counts.feature_totals)
        return self._derived("feature_all", lambda: counts.sum(axis=0))

    @feature_all_.setter
    def feature_all_(self, value):
        self._feature_all = value

    def _statistics_changed(self):
        vars(self).pop("_feature_all", None)
        super()._statistics_changed()

    def _uses_class_prior(self):
        # The class prior enters only in the single-class edge case, as in scikit-learn.
        return len(self.classes_) == 1


class PoissonNB(_CountNB):
    """Naive Bayes classifier for Poisson-distributed counts with a Gamma prior on the rates.

    Each feature count is Poisson with a per-class rate, smoothed by a
    Gamma(alpha, beta) prior: lambda_ci = (T_ci + alpha_i) / (N_c + beta), where
    T_ci is the (weighted) total count of feature i in class c and N_c the
    (weighted) number of samples of class c.  Then

        log p(x | c) = sum_i [x_i log lambda_ci - lambda_ci - log(x_i!)]

    Unlike the multinomial model, the document length carries information.
    Sparse rows are scored in O(nnz) plus a per-class constant.

    Parameters
    ----------
    alpha : float or array-like of shape (n_features,), default=1.0
        Shape of the Gamma prior: pseudo-counts added to every feature total.
    beta : float, default=1.0
        Rate of the Gamma prior: pseudo-samples added to every class; must be > 0.
    fit_prior : bool, default=True
        Whether to learn class prior probabilities; if False a uniform prior is used.
    class_prior : array-like of shape (n_classes,), default=None
        Prior probabilities of the classes (must sum to 1); not adjusted to the data.
    force_alpha : bool, default=True
        If False and alpha is less than 1e-10, it is set to 1e-10.

    Attributes
    ----------
    class_count_ : ndarray of shape (n_classes,)
        Number of samples (weighted) seen for each class, N_c.
    class_log_prior_ : ndarray of shape (n_classes,)
        Log probability of each class.
    classes_ : ndarray of shape (n_classes,)
        Class labels, sorted.
    feature_count_ : ndarray of shape (n_classes, n_features)
        Weighted sum of each feature's counts per class, T_ci.
    feature_log_prob_ : ndarray of shape (n_classes, n_features)
        Log of the Poisson rates, log lambda_ci (a log rate, not a log
        probability: it is the weight of one count of feature i in class c).
    n_features_in_ : int
        Number of features seen during fit.
    feature_names_in_ : ndarray of shape (``n_features_in_``,)
        Names of features seen during fit, when X has string column names.

    Notes
    -----
    The term -sum_i log(x_i!) does not depend on the class: it is part of
    :meth:`predict_joint_log_proba` but cancels out of the posterior
    probabilities and of :meth:`predict`.  Non-integer counts use
    log Gamma(x + 1).

    Examples
    --------
    >>> import numpy as np
    >>> from nbfast import PoissonNB
    >>> rng = np.random.RandomState(1)
    >>> X = rng.poisson([[1.0] * 50 + [5.0] * 50, [5.0] * 50 + [1.0] * 50], size=(3, 2, 100)).reshape(6, 100)
    >>> y = np.array([0, 1, 0, 1, 0, 1])
    >>> clf = PoissonNB().fit(X, y)
    >>> print(clf.predict(X[:2]))
    [0 1]
    """

    _parameter_constraints = declare({**_BaseDiscreteNB._parameter_constraints,
                              "beta": [Interval(Real, 0, None, closed="neither")]})

    def __init__(self, *, alpha=1.0, beta=1.0, fit_prior=True, class_prior=None, force_alpha=True):
        super().__init__(alpha=alpha, fit_prior=fit_prior, class_prior=class_prior, force_alpha=force_alpha)
        self.beta = beta

    def _table_parameters(self, alpha):
        return {"alpha": alpha, "beta": float(self.beta)}

    # log lambda_ci = log(T_ci + alpha_i) - log(N_c + beta)
    # jll = log prior - sum_i lambda_ci + sum_{i present} x_i log lambda_ci  (- sum_i log x_i!)
    def _dense_log_table(self, counts, params):
        exposure = np.asarray(self.class_count_, dtype=np.float64) + params["beta"]
        return self._smoothed_log_table(counts, params["alpha"], exposure)

    def _dense_terms(self, log_table):
        rate_sum = tables.column_sums(log_table, tables.Terms.EXPONENTIALS, effective_n_threads(log_table.size))
        return log_table, -rate_sum  # sum_i lambda_ci

    def _compact_terms(self, counts, class_count, params):
        alpha, exposure = params["alpha"], class_count + params["beta"]
        # sum_i lambda_ci = (sum_i T_ci + sum_i alpha_i) / (N_c + beta)
        rate_sum = (counts.class_totals() + np.sum(np.broadcast_to(alpha, counts.n_features))) / exposure
        return smoothed_table(counts, alpha, np.log(exposure)), -rate_sum

    def _log_parameter_prior(self):
        # lambda_ci ~ Gamma(alpha_i + 1, beta): sum_ci alpha_i log lambda_ci - beta lambda_ci
        return (alpha_weighted_sum(self._check_alpha(self.n_features_in_), self._log_prob_table)
                + float(self.beta) * float(self._scoring_terms()[1].sum()))  # the bias: -sum_i lambda_ci

    def predict_joint_log_proba(self, X):
        """Joint log probability log P(x, y) = log P(y) + log P(x|y) of each sample and class.

        Includes the class-independent term -sum_i log(x_i!).

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)

        Returns
        -------
        C : ndarray of shape (n_samples, n_classes)
            Columns in the order of ``classes_``.
        """
        from scipy.special import gammaln  # imported here: scipy.special takes longer to import than nbfast

        X = self._predict_input(X)
        jll = self._score(X, Output.JOINT_LOG_LIKELIHOOD)
        log_factorials = sp.csr_array((gammaln(X.data.astype(np.float64) + 1.0), X.indices, X.indptr), shape=X.shape)
        jll -= log_factorials.sum(axis=1)[:, None]
        return jll
