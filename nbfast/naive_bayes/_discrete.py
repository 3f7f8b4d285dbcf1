"""Naive Bayes models for count data whose joint log-likelihood is linear in the
(possibly binarized) counts: MultinomialNB, BernoulliNB, ComplementNB and PoissonNB.

Each states its formulas (the dense table from dense counts, the compact table
from compact counts, the bias) and inherits the rest from
:class:`~nbfast.naive_bayes._count._CountNB`.
"""

from numbers import Real

import numpy as np

from nbfast import _sparse as sp
from nbfast._kernels import tables
from nbfast._kernels.scoring import Output
from nbfast._kernels.threads import effective_n_threads
from nbfast._params import Interval, StrOptions, declare, uses_n_jobs
from nbfast._validation import (
    MISSING,
    check_missing,
)
from nbfast.naive_bayes._count import _BaseDiscreteNB, _CountNB, alpha_weighted_sum, check_counts_shape, count_classes
from nbfast.naive_bayes._counts import DenseCounts, add_feature_sums, resettled, select_rows
from nbfast.naive_bayes._fold_counts import CompactTables
from nbfast.naive_bayes._stored import check_count_model_values
from nbfast.naive_bayes._tables import CompactTable, as_table, smoothed_table
from nbfast.naive_bayes._terms import (
    missing_as_columns,
    pair_terms,
    scores_from_joint_log_likelihood,
    split_missing,
    terms_matrix,
)


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

    _reads_rows = True  # counted and scored by the kernels alone
    _searches_alphas_at_once = True

    def __init__(self, *, alpha=1.0, force_alpha=True, fit_prior=True, class_prior=None, n_jobs=None):
        super().__init__(alpha=alpha, fit_prior=fit_prior, class_prior=class_prior, force_alpha=force_alpha,
                         n_jobs=n_jobs)

    # log theta_ci = log(N_ci + alpha_i) - log(sum_i (N_ci + alpha_i))
    def _dense_log_table(self, counts, params):
        alpha = params["alpha"]
        smoothed_total = counts.sum(axis=1) + np.sum(np.broadcast_to(alpha, counts.shape[1]))
        return self._smoothed_log_table(counts, alpha, smoothed_total)

    def _compact_terms(self, counts, class_count, params):
        alpha = params["alpha"]
        smoothed_total = counts.class_totals() + np.sum(np.broadcast_to(alpha, counts.n_features))
        return smoothed_table(counts, alpha, np.log(smoothed_total)), 0.0

    def _search_terms(self, logs):
        # _compact_terms of every alpha of ``logs`` (a LogTable) at once, as those compute them
        counts = self._counts()
        alpha_sums = np.array([np.sum(np.broadcast_to(alpha, counts.n_features)) for alpha in logs.alphas])
        log_denominator = np.log(counts.class_totals()[:, None] + alpha_sums)
        deviation, codes = logs.over_alpha(counts.values)  # log(N_ci + alpha) - log(alpha), by count if whole
        tables = CompactTables(deviation, logs.log_alphas - log_denominator, codes=codes)
        return tables, self._added_log_prior()

    def _log_parameter_prior(self):
        # theta_c ~ Dirichlet(alpha + 1), whose mode is the smoothed estimate: sum_ci alpha_i log theta_ci
        return alpha_weighted_sum(self._fitted_params()["alpha"], self._log_prob_table)

    def _check_stored_values(self):
        """Its class prior, log-probabilities and scoring table."""
        check_count_model_values(self, log_probabilities=True)


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
                 missing="error", n_jobs=None):
        super().__init__(alpha=alpha, fit_prior=fit_prior, class_prior=class_prior, force_alpha=force_alpha,
                         n_jobs=n_jobs)
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

    def _smoothing_total(self, alpha, n_features):
        return 2.0 * float(np.max(alpha))  # N_c + 2 alpha_i: a feature's two outcomes

    def _has_compact_table(self):
        # with a per-feature alpha, the default presence weight depends on the feature too; with missing values,
        # theta_ci's denominator depends on the feature (observed_count_): such models stay dense
        return super()._has_compact_table() and np.ndim(self.alpha) == 0 and self.missing == "error" and \
            self._fitted_observed_count() is None

    def _init_stats(self, n_classes, n_features):
        stats = super()._init_stats(n_classes, n_features)
        if self._ignores_missing():  # dense: observed_count_ is (n_classes, n_features) anyway
            stats["_feature_counts"] = DenseCounts.empty(n_classes, n_features)
            stats["observed_count_"] = np.zeros((n_classes, n_features))
        return stats

    def _accumulate(self, stats, X, y_index, sample_weight, rows=None):
        if "observed_count_" not in stats and not self._ignores_missing():
            super()._accumulate(stats, X, y_index, sample_weight, rows)
            return
        # continuing a compact model, with missing values: dense
        stats["_feature_counts"] = resettled(stats["_feature_counts"], compact_allowed=False)
        self._accumulate_observed(stats, *select_rows(rows, X, y_index, sample_weight))

    def _accumulate_observed(self, stats, X, y_index, sample_weight):
        """``_accumulate`` keeping ``observed_count_``: N_c minus the class's missing values of each feature."""
        binarize, threshold = self._kernel_threshold()
        observed, missing = split_missing(X)
        check_counts_shape(stats["_feature_counts"], stats["class_count_"], X.shape[1])
        class_count = np.zeros_like(stats["class_count_"])
        count_classes(y_index, sample_weight, class_count)
        stats["_feature_counts"] = stats["_feature_counts"].add(observed, y_index, sample_weight, binarize=binarize,
                                                                threshold=threshold)
        missing_count = np.zeros((class_count.shape[0], X.shape[1]))
        add_feature_sums(missing, y_index, sample_weight, missing_count)
        if "observed_count_" not in stats:  # continuing a model fitted without missing values
            stats["observed_count_"] = np.repeat(stats["class_count_"][:, None], X.shape[1], axis=1)
        stats["observed_count_"] += class_count[:, None] - missing_count
        stats["class_count_"] += class_count

    # log theta_ci = log(N_ci + alpha) - log(N_c + 2 alpha), N_c the observed count O_ci with missing values
    # jll = log prior + sum_i log(1 - theta_i) + sum_{i present} [log theta_i - log(1 - theta_i)]
    def _dense_log_table(self, counts, params):
        observed = self._fitted_observed_count()
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
        if as_table(table).compact_form() is not None:  # fitted compact, then set_params(missing="ignore")
            table, bias = self._derived("dense_scoring", lambda: self._dense_terms(self._log_prob_table))
        binarize, threshold = self._kernel_threshold()
        stacked = self._with_missing_rows(table, lambda: -np.log1p(-np.exp(self._log_prob_table)))
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
        alpha = self._fitted_params()["alpha"]
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

    def _check_stored_values(self):
        """Its class prior, log-probabilities and scoring table."""
        check_count_model_values(self, log_probabilities=True)


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
    #: ``feature_all_`` as assigned; None: derived from the counts.
    _feature_all = None
    _reads_rows = True  # counted and scored by the kernels alone
    _searches_alphas_at_once = True

    def __init__(self, *, alpha=1.0, force_alpha=True, fit_prior=True, class_prior=None, norm=False, n_jobs=None):
        super().__init__(alpha=alpha, fit_prior=fit_prior, class_prior=class_prior, force_alpha=force_alpha,
                         n_jobs=n_jobs)
        self.norm = norm

    def _validate_params(self, n_features, n_classes):
        return {**super()._validate_params(n_features, n_classes), "norm": bool(self.norm)}

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

    def _search_terms(self, logs):
        # _compact_terms of every alpha of ``logs`` (a LogTable) at once, but for log(F_i + alpha_i - N_ci),
        # taken as log((F_i - N_ci) + alpha_i): a value of the table of logs for whole counts
        counts = self._counts()
        totals = counts.feature_totals()
        log_all = logs(totals)  # log F~_i, (n_features, n_alphas)
        entry_totals = totals[counts.features()]
        deviation = logs(entry_totals, entry_totals - counts.values)  # log F~_i - log((F_i - N_ci) + alpha_i)
        smoothed_sums = np.array([np.sum(totals + alpha) for alpha in logs.alphas])  # sum_i F~_i
        log_total = np.log(smoothed_sums - counts.class_totals()[:, None])
        if not self._fitted_params()["norm"]:
            return CompactTables(deviation, log_total, base=-log_all), self._added_log_prior()
        by_class = np.stack([counts.sum_by_class(deviation[:, a]) for a in range(deviation.shape[1])], axis=1)
        norm = np.array([np.sum(log_all[:, a]) for a in range(log_all.shape[1])]) - by_class \
            - counts.n_features * log_total
        if np.any(norm == 0):  # degenerate: the model scores it densely (see _compact_terms)
            return None
        tables = CompactTables(-deviation / norm[counts.classes], -log_total / norm, 1.0 / norm, log_all)
        return tables, self._added_log_prior()

    @property
    def feature_all_(self):
        """Weighted sum of each feature's counts over all classes, (n_features,)."""
        assigned = self._feature_all
        if assigned is not None:
            return assigned
        if self._feature_counts is None:
            raise self._missing("feature_all_")
        counts = self._counts()
        return self._derived("feature_all", counts.feature_totals)

    @feature_all_.setter
    def feature_all_(self, value):
        self._feature_all = value

    def _statistics_changed(self):
        self._feature_all = None
        super()._statistics_changed()

    def _uses_class_prior(self):
        # The class prior enters only in the single-class edge case, as in scikit-learn.
        return len(self.classes_) == 1

    def _check_stored_values(self):
        """Its class prior and scoring table (``feature_log_prob_`` holds weights of either sign)."""
        check_count_model_values(self)


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

    def __init__(self, *, alpha=1.0, beta=1.0, fit_prior=True, class_prior=None, force_alpha=True, n_jobs=None):
        super().__init__(alpha=alpha, fit_prior=fit_prior, class_prior=class_prior, force_alpha=force_alpha,
                         n_jobs=n_jobs)
        self.beta = beta

    def _validate_params(self, n_features, n_classes):
        return {**super()._validate_params(n_features, n_classes), "beta": float(self.beta)}

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
        return (alpha_weighted_sum(self._fitted_params()["alpha"], self._log_prob_table)
                + self._fitted_params()["beta"] * float(self._scoring_terms()[1].sum()))  # the bias: -sum_i lambda_ci

    @uses_n_jobs
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

    def _check_stored_values(self):
        """Its class prior and scoring table (``feature_log_prob_`` holds log-rates)."""
        check_count_model_values(self)
