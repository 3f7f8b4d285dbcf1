"""The shared machinery of the count models: additive smoothing and class priors (``_BaseDiscreteNB``, also
CategoricalNB's base) and ``_CountNB``, the fit, tables and fitted attributes of the models whose joint
log-likelihood is linear in the (possibly binarized) counts.

Their statistics are dense, or compact when the data holds few (class, feature) pairs (a large vocabulary: see
:mod:`nbfast.naive_bayes._counts`).  A dense model keeps its log-probability table once, as (n_features,
n_classes) row-major for the scoring kernel; ``feature_log_prob_`` is the (n_classes, n_features) view of it
that scikit-learn users expect.
"""

import numbers
import warnings
from abc import abstractmethod
from numbers import Real

import numpy as np

from nbfast._kernels import tables
from nbfast._kernels.scoring import Output, score_csr
from nbfast._kernels.threads import effective_n_threads
from nbfast._params import N_JOBS, Interval, declare
from nbfast._validation import (
    check_class_prior,
    check_counts,
    check_log_prior,
    check_no_nan,
)
from nbfast.naive_bayes._base import OBSERVED_COUNT, _LinearNB, _StatisticsNB
from nbfast.naive_bayes._counts import (
    DenseCounts,
    SparseCounts,
    add_feature_sums,
    count_nonzeros,
    resettled,
    sum_counts,
)
from nbfast.naive_bayes._tables import as_table
from nbfast.naive_bayes._terms import (
    class_log_prior,
)

_ALPHA_LOWER_BOUND = 1e-10


def count_classes(y_index, sample_weight, class_count, rows=None):
    """Add the (weighted) number of samples of each class to ``class_count`` in place (of the rows ``rows``
    only, when given)."""
    if rows is not None:
        y_index, sample_weight = y_index[rows], None if sample_weight is None else sample_weight[rows]
    class_count += np.bincount(y_index, weights=sample_weight, minlength=class_count.shape[0])


def check_counts_shape(counts, class_count, n_features):
    """Refuse counts (an array or Counts) not of shape (classes of ``class_count``, ``n_features``): a kernel
    adding a batch writes counts[y_index, X.indices]."""
    if counts.shape != (class_count.shape[0], n_features):
        raise ValueError(f"feature_count_ has shape {counts.shape}, expected {(class_count.shape[0], n_features)}.")


def accumulate_class_counts(X, y_index, sample_weight, class_count, feature_count, *, binarize=False, threshold=0.0,
                            rows=None):
    """Add per-class sample counts and per-(class, feature) sums of f(x) (a dense array) in place: see
    :func:`~nbfast.naive_bayes._counts.add_feature_sums`."""
    check_counts_shape(feature_count, class_count, X.shape[1])
    count_classes(y_index, sample_weight, class_count, rows)
    add_feature_sums(X, y_index, sample_weight, feature_count, binarize=binarize, threshold=threshold, rows=rows)


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


def alpha_weighted_sum(alpha, log_table):
    """sum over j and c of alpha_j * log_table[j, c] (log_table (n_features, n_classes)), a feature of alpha 0
    adding 0 whatever its entries (-inf when unsmoothed): the log of a Dirichlet, Beta or Gamma prior density
    with exponents alpha, up to a constant."""
    alpha = np.broadcast_to(np.asarray(alpha, dtype=np.float64), (log_table.shape[0],))
    return float(np.dot(alpha, np.where(alpha[:, None] > 0, log_table, 0.0).sum(axis=1)))


class _BaseDiscreteNB(_StatisticsNB, _LinearNB):
    """Discrete Naive Bayes: additive smoothing ``alpha`` and class priors."""

    _float64_attributes = ("class_log_prior_",)
    _non_negative = True
    _parameter_constraints = declare({"alpha": [Interval(Real, 0, None, closed="left"), "array-like"],
                              "fit_prior": ["boolean"], "class_prior": ["array-like", None], "force_alpha": ["boolean"],
                              **N_JOBS})

    def __init__(self, alpha=1.0, fit_prior=True, class_prior=None, force_alpha=True, n_jobs=None):
        self.alpha = alpha
        self.n_jobs = n_jobs
        self.fit_prior = fit_prior
        self.class_prior = class_prior
        self.force_alpha = force_alpha

    # ---------------------------------------------------------- parameters
    def _validate_params(self, n_features, n_classes):
        params = super()._validate_params(n_features, n_classes)
        return {**params, "alpha": self._check_alpha(n_features, warn=True),
                "class_prior": check_class_prior(self.class_prior, n_classes)}

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
        with np.errstate(over="ignore"):  # twice the smoothing of a total: room for the counts beside it
            total = 2.0 * self._smoothing_total(alpha, n_features)
        if not np.isfinite(total):
            raise ValueError(f"alpha is too large: the smoothing it adds to a class's total ({n_features} features) "
                             f"overflows float64 (got alpha={str(self.alpha)[:40]}); use a smaller alpha.")
        if np.min(alpha) < _ALPHA_LOWER_BOUND and not self.force_alpha:
            if warn:
                warnings.warn(f"alpha too small will result in numeric errors, setting alpha = "
                              f"{_ALPHA_LOWER_BOUND:.1e}. Use `force_alpha=True` to keep alpha unchanged.")
            return np.maximum(alpha, _ALPHA_LOWER_BOUND)
        return alpha

    def _smoothing_total(self, alpha, n_features):
        """The largest smoothing added to a total of counts (a denominator): sum_j alpha_j by default."""
        return alpha * n_features if isinstance(alpha, float) else float(np.sum(alpha))

    # ---------------------------------------------------------- statistics
    def _update_params(self, params):
        self._update_feature_log_prob(params["alpha"])
        self.class_log_prior_ = class_log_prior(self.class_count_, params["class_prior"], self.fit_prior)


class _CountNB(_BaseDiscreteNB):
    """The count models whose joint log-likelihood is linear in f(x): MultinomialNB, BernoulliNB,
    ComplementNB and PoissonNB.

    Statistics: ``class_count_`` and the per-(class, feature) sums of f(x), kept
    dense (n_classes, n_features) or compact (:class:`SparseCounts`, by
    feature), whichever the density of the data calls for (see
    :mod:`nbfast.naive_bayes._counts`).  The scoring tables are derived from
    them on first use (``fit`` builds them at once; ``partial_fit`` and
    ``merge`` leave them to the next prediction, so that many batches cost
    about one fit) and kept among the model's derived tables.  A subclass gives its tables
    three ways: ``_dense_log_table`` (the public ``feature_log_prob_``, in the
    scoring layout), ``_dense_terms`` (scoring table and bias from it) and
    ``_compact_terms`` (the same from compact counts).
    """

    _stat_names = ("class_count_", "_feature_counts")
    _fitted_attributes = (
        "classes_", "n_features_in_", "class_count_", "feature_count_", "class_log_prior_", "feature_log_prob_",
    )
    _compact_attributes = ("classes_", "n_features_in_", "class_count_", "_sparse_feature_count", "class_log_prior_")
    #: The per-(class, feature) sums of f(x), dense or compact; None until fitted.
    _feature_counts = None
    #: ``feature_log_prob_`` as assigned (scoring layout), which the tables then derive from; None: from the counts.
    _log_prob_override = None
    #: Whether the statistics are sums of x (not binarized, no missing values) and ``_search_terms(logs)``
    #: gives the compact tables of several alphas (a LogTable's) at once, as (CompactTables, bias), or None
    #: where it cannot: a cross-validated search then counts every fold in one pass over X, and scores every
    #: alpha of a fold in one pass over its test rows.
    _searches_alphas_at_once = False

    # ---------------------------------------------------------- statistics
    def _init_stats(self, n_classes, n_features):
        return {"class_count_": np.zeros(n_classes), "_feature_counts": SparseCounts.empty(n_classes, n_features)}

    def _kernel_threshold(self):
        """(binarize x in the kernels?, threshold): f(x) = [x > threshold] or x."""
        return False, 0.0

    def _has_compact_table(self):
        """Whether the parameters allow compact tables: a zero alpha makes log(0) entries, kept dense."""
        return bool(np.min(np.asarray(self.alpha, dtype=np.float64)) > 0 or not self.force_alpha)

    def _accumulate(self, stats, X, y_index, sample_weight, rows=None):
        binarize, threshold = self._kernel_threshold()
        check_counts_shape(stats["_feature_counts"], stats["class_count_"], X.shape[1])
        counts = resettled(stats["_feature_counts"], self._has_compact_table(), batch_entries=count_nonzeros(X, rows))
        count_classes(y_index, sample_weight, stats["class_count_"], rows)
        stats["_feature_counts"] = counts.add(X, y_index, sample_weight, binarize=binarize, threshold=threshold,
                                              rows=rows)

    def _soft_label_accumulator(self, X):
        if self._ignores_missing():
            raise TypeError(f"{type(self).__name__} with missing='ignore' does not learn from soft labels "
                            "(semi-supervised EM): its observed counts are not kept per soft label.")
        binarize, threshold = self._kernel_threshold()
        accumulate = soft_class_counts(X, binarize=binarize, threshold=threshold)

        def accumulate_counts(stats, class_weight):
            # soft labels give every class a share of every feature: dense counts, added into in place
            counts = stats["_feature_counts"] = resettled(stats["_feature_counts"], compact_allowed=False)
            accumulate(class_weight, stats["class_count_"], counts.values)

        return accumulate_counts

    @classmethod
    def _merge_stats(cls, models):
        counts = sum_counts([model._counts() for model in models])
        class_count = np.sum([np.asarray(model.class_count_, dtype=np.float64) for model in models], axis=0)
        stats = {"class_count_": class_count, "_feature_counts": counts}
        if any(model._fitted_observed_count() is not None for model in models):
            stats[OBSERVED_COUNT] = np.sum([model._observed_count() for model in models], axis=0)
        return stats

    @classmethod
    def _complement_stats(cls, whole, part):
        # Counts add up over rows, so they subtract: the statistics of the other rows (whole + (-part) is
        # whole - part exactly, entry by entry, in either representation).
        counts = sum_counts([whole._counts(), part._counts().negated()])
        stats = {"class_count_": np.asarray(whole.class_count_, dtype=np.float64) - part.class_count_,
                 "_feature_counts": counts}
        if whole._fitted_observed_count() is not None:
            stats[OBSERVED_COUNT] = whole._observed_count() - part._observed_count()
        return stats

    def _update_feature_log_prob(self, alpha):
        # The tables are derived on first use (partial_fit and merge leave them to the next prediction), from the
        # parameters of this fit (_fitted_params).
        self._feature_counts = resettled(self._feature_counts, self._has_compact_table())
        self._statistics_changed()

    def _statistics_changed(self):
        """Forget the tables derived from the statistics and any table assigned by hand."""
        self._log_prob_override = None
        self._forget_derived()

    def _build_tables(self):
        self._feature_counts = self._feature_counts.settled()  # fit had every batch at once: nothing to defer
        self._scoring_terms()

    def _counts(self):
        """The statistics with every batch added: a compact model's pending entries are settled on first use
        (and kept with the derived tables)."""
        counts = self._feature_counts
        return self._derived_from("settled", counts, counts.settled)

    def _is_compact(self):
        counts = self._feature_counts
        return counts is not None and counts.compact_form() is not None and self._log_prob_override is None

    def _saved_attributes(self):
        return self._compact_attributes if self._is_compact() else self._fitted_attributes

    # ------------------------------------------------------------- tables
    def _scoring_terms(self):
        """(table, bias without the prior): the table dense (n_features, n_classes) or a CompactTable."""
        def build():
            # each statistic read once and checked against the other: a refit in another thread replaces them
            counts, class_count = self._counts().compact_form(), np.asarray(self.class_count_, dtype=np.float64)
            if counts is None or self._log_prob_override is not None:
                return self._dense_terms(self._log_prob_table)
            if class_count.shape != (counts.n_classes,):
                raise ValueError(f"class_count_ has shape {class_count.shape}, expected ({counts.n_classes},) (or "
                                 "the model was refitted while predicting).")
            return self._compact_terms(counts, class_count, self._fitted_params())

        return self._derived("scoring", build)

    def _linear_terms(self):
        table, bias = self._scoring_terms()
        return (table, self._added_log_prior() + bias, *self._kernel_threshold())

    def _compact_feature_table(self):
        """The CompactTable (n_features, n_classes) whose transpose ``_feature_scores`` contrasts, when the model
        holds one (``nbfast.top_features`` then ranks its stored entries, never the dense table); else None."""
        return as_table(self._linear_terms()[0]).compact_form()

    @property
    def _log_prob_table(self):
        """``feature_log_prob_`` in the scoring layout (n_features, n_classes): assigned, or derived from the counts."""
        override = self._log_prob_override
        if override is not None:
            return override
        counts = self._counts()
        return self._derived("log_prob", lambda: self._dense_log_table(counts.toarray(), self._fitted_params()))

    @abstractmethod
    def _dense_log_table(self, counts, params):
        """The (n_features, n_classes) table whose transpose is ``feature_log_prob_``, from dense counts."""

    def _dense_terms(self, log_table):
        """(scoring table (n_features, n_classes), bias without the prior) from the log table."""
        return log_table, 0.0

    @abstractmethod
    def _compact_terms(self, counts, class_count, params):
        """(CompactTable, bias without the prior) from compact counts and the class counts."""

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
        if self._feature_counts is None:
            raise self._missing("feature_count_")
        return self._derived("feature_count", self._counts().as_attribute)

    @feature_count_.setter
    def feature_count_(self, value):
        # As in scikit-learn, the parameters stay those of the last fit until the next one.
        if self._feature_counts is not None and self._log_prob_override is None:
            self._log_prob_override = self._log_prob_table
        self._feature_counts = DenseCounts(np.asarray(value))
        self._forget_derived()

    @property
    def _sparse_feature_count(self):
        """The compact counts as ``(indptr, classes, values)`` (what a model file stores for a compact model)."""
        counts = self._counts().compact_form()
        if counts is None:
            raise self._missing("_sparse_feature_count")
        return counts.to_saved()

    @_sparse_feature_count.setter
    def _sparse_feature_count(self, arrays):
        if not self._has_compact_table():
            raise ValueError(f"{type(self).__name__} with alpha={self.alpha!r} has no compact tables.")
        self._feature_counts = SparseCounts.from_arrays(arrays, len(self.classes_), self.n_features_in_)
        self._statistics_changed()

    @property
    def feature_log_prob_(self):
        """Empirical log probability of features given a class, (n_classes, n_features).

        A read-only view of the log table: assign a new array to change the
        model, so that the tables derived from it are rebuilt too.  Of a compact
        model, materialized on first access and kept until the model changes.
        """
        if self._feature_counts is None and self._log_prob_override is None:
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
        shape = self._feature_counts.shape
        if shape != (n_classes, n_features):
            raise ValueError(f"feature_count_ has shape {shape}, expected {(n_classes, n_features)}.")
        check_counts(self.class_count_, "class_count_")
        counts = self._counts()
        check_counts(counts.values, "feature_count_")
        table, bias = self._linear_terms()[:2]
        if np.shape(table) != (n_features, n_classes) or np.shape(bias) != (n_classes,):
            raise ValueError(
                f"the scoring table has shape {np.shape(table)} and the bias {np.shape(bias)}, "
                f"expected ({n_features}, {n_classes}) and ({n_classes},)."
            )
        for values in as_table(table).arrays():
            check_no_nan(values, "feature_log_prob_ (the scoring table derived from it)")
        check_log_prior(bias, "class_log_prior_ (the scoring bias derived from it)")
