"""Gaussian Naive Bayes on dense or CSR input, with pooled-variance variants.

The fitted sufficient statistics are, per class, the (weighted) count, the mean
``theta_`` and the population variance of each feature (``_raw_var``, i.e.
scikit-learn's ``var_ - epsilon_``), plus the unweighted count, mean and
variance of every feature over all rows seen (``_seen_*``), which give
``epsilon_`` when models are merged.  Batches are folded in with the parallel
formula of Chan, Golub and LeVeque, as scikit-learn's
``GaussianNB._update_mean_variance`` does; merging fitted models uses the same
formula.
"""

from numbers import Integral, Real

import numpy as np

from nbfast import _sparse as sp
from nbfast._kernels import gaussian as _kernels
from nbfast._kernels.scoring import Output
from nbfast._kernels.threads import effective_n_threads
from nbfast._params import N_JOBS, RUNTIME_PARAMS, Interval, Options, Refined, StrOptions, declare
from nbfast._validation import (
    MISSING,
    check_class_prior,
    check_counts,
    check_is_fitted,
    check_means,
    check_missing,
    check_variances,
    check_X,
)
from nbfast.naive_bayes._base import _StatisticsNB, encode_labels, unique_classes
from nbfast.naive_bayes._counts import check_statistics, group_rows_by_class, select_rows
from nbfast.naive_bayes._terms import pair_terms, terms_matrix

VARIANCES = ("class_feature", "feature", "class", "global")


def class_moments(X, y_index, n_classes, sample_weight, skip_nan=False):
    """Per-class (weight (n_classes,), count, mean and population variance (n_classes, n_features)) of a batch.

    ``X`` is validated dense or CSR; for CSR the implicit zeros are values 0.
    The count is the weight itself, unless ``skip_nan``: NaN is then a missing
    value, left out, and the count is the weight of the observed values of
    each (class, feature).  Cells without weight get mean and variance 0.
    """
    weight = np.bincount(y_index, weights=sample_weight, minlength=n_classes).astype(np.float64, copy=False)
    mean = np.zeros((n_classes, X.shape[1]))
    var = np.zeros((n_classes, X.shape[1]))
    observed = np.zeros((n_classes, X.shape[1]) if skip_nan else (0, 0))
    weights = np.empty(0) if sample_weight is None else sample_weight
    if sp.issparse(X):
        order, start = group_rows_by_class(y_index, n_classes)
        _kernels.class_moments_csr(
            X.data, X.indices, X.indptr, order, start, weights, weight, mean, var, observed,
            effective_n_threads(2 * X.nnz),
        )
    else:
        _kernels.class_moments_dense(X, y_index, weights, weight, mean, var, observed,
                                     effective_n_threads(2 * X.size))
    return weight, observed if skip_nan else weight, mean, var


def per_feature(count, shape):
    """Counts per group (n_groups,) or per group and feature, as (n_groups, n_features)."""
    return np.broadcast_to(count[:, None], shape) if count.ndim == 1 else count


def pool_groups(count, mean, var):
    """Count, mean and population variance (1, n_features) of the union of disjoint groups.

    The total variance is the within-group part plus the between-group part:
    sum_g n_g (var_g + (mean_g - mean)^2) / n.  ``count`` is per group
    (n_groups,), giving a count (1,), or per group and feature (observed
    values), giving a count (1, n_features); a feature without any gets 0.
    An overflow gives inf, which the statistics' check refuses.
    """
    with np.errstate(over="ignore", invalid="ignore"):
        if count.ndim == 1:
            total = count.sum()
            pooled_mean = count @ mean / total
            pooled_var = count @ (var + (mean - pooled_mean) ** 2) / total
            return np.array([total]), pooled_mean[None, :], pooled_var[None, :]
        total = count.sum(axis=0)
        pooled_mean = _ratio((count * mean).sum(axis=0), total)
        pooled_var = _ratio((count * (var + (mean - pooled_mean) ** 2)).sum(axis=0), total)
    return total[None, :], pooled_mean[None, :], pooled_var[None, :]


def merge_moments(count_a, mean_a, var_a, count_b, mean_b, var_b):
    """Count, mean and population variance of the union of two disjoint sets, per group.

    The stable parallel formula of Chan, Golub and LeVeque on sums of squared
    deviations, exactly as scikit-learn's ``GaussianNB._update_mean_variance``:
    a group whose new weight is close to 0 keeps its past moments, and a group
    with no past samples takes the new moments as they are.  Counts are
    (n_groups,) or, for counts of observed values, (n_groups, n_features);
    means and variances (n_groups, n_features).
    """
    count = count_a + count_b
    ca, cb, c = (per_feature(n, mean_a.shape) for n in (count_a, count_b, count))
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):  # an overflow is refused where checked
        mean = (cb * mean_b + ca * mean_a) / c
        var = (ca * var_a + cb * var_b + (cb * ca / c) * (mean_a - mean_b) ** 2) / c
    keep_a = np.isclose(cb, 0.0)
    take_b = ca == 0
    mean = np.where(keep_a, mean_a, np.where(take_b, mean_b, mean))
    var = np.where(keep_a, var_a, np.where(take_b, var_b, var))
    return count, mean, var


def _ratio(numerator, denominator):
    """numerator / denominator, 0 where the denominator is not positive."""
    numerator, denominator = np.broadcast_arrays(numerator, denominator)
    return np.divide(numerator, denominator, out=np.zeros(numerator.shape), where=denominator > 0)


def pooled_variance(raw_var, count, variance, ddof):
    """The model's variances (broadcastable to (n_classes, n_features)) from per-class population variances.

    With N_cj the count of class c's values of feature j (``count``: per class,
    or per class and feature with missing values), ssd_cj = N_cj * raw_var_cj
    the within-class sums of squared deviations, N_j = sum_c N_cj and C_j the
    number of classes with values of feature j:

    - ``class_feature``: ssd_cj / (N_cj - ddof)
    - ``feature``: sum_c ssd_cj / (N_j - ddof C_j)
    - ``class``: sum_j ssd_cj / sum_j (N_cj - ddof)
    - ``global``: sum_cj ssd_cj / sum_j (N_j - ddof C_j)

    A non-positive number of degrees of freedom gives variance 0.
    """
    if variance == "class_feature" and ddof == 0:
        return raw_var  # scikit-learn's var_ - epsilon_, including classes without samples yet
    count = per_feature(count, raw_var.shape)
    ssd = count * raw_var
    class_dof = count - ddof
    dof = count.sum(axis=0) - ddof * np.count_nonzero(count, axis=0)
    if variance == "class_feature":
        return _ratio(ssd, class_dof)
    if variance == "feature":
        return _ratio(ssd.sum(axis=0), dof)[None, :]
    if variance == "class":
        return _ratio(ssd.sum(axis=1), class_dof.sum(axis=1))[:, None]
    return _ratio(ssd.sum(), dof.sum()).reshape(1, 1)


#: The degrees of freedom the variances may subtract.
_DDOF = Options(Integral, {0, 1})


def _is_ddof(value):
    return not isinstance(value, bool) and _DDOF.is_satisfied_by(value)


class GaussianNB(_StatisticsNB):
    """Gaussian Naive Bayes, on dense or sparse (CSR) input.

    Drop-in for :class:`sklearn.naive_bayes.GaussianNB`: same parameters,
    attributes and results (including ``partial_fit`` and ``epsilon_``).  It
    also accepts sparse input, whose implicit zeros are values 0, with the same
    results as on the dense copy and without densifying X: the statistics are
    exact two-pass moments over the stored entries (each implicit zero adds
    mean^2 to the squared deviations) and a sparse row is scored in O(nnz)
    plus a per-class constant.

    Parameters
    ----------
    priors : array-like of shape (n_classes,), default=None
        Prior probabilities of the classes. If specified, the priors are not
        adjusted according to the data.
    var_smoothing : float, default=1e-9
        Portion of the largest variance of all features (of the batch, as in
        scikit-learn) that is added to variances for calculation stability.
    variance : {"class_feature", "feature", "class", "global"}, default="class_feature"
        Which variances are estimated: one per class and feature
        (scikit-learn's model); one per feature pooled over the classes (the
        within-class squared deviations summed over classes, divided by
        N - ddof * n_classes: the joint log-likelihood is then linear in x up
        to a per-row constant); one per class over all its features (divided
        by n_features * (N_c - ddof)); or a single one (divided by
        n_features * (N - ddof * n_classes)).  With sample weights N and N_c
        are weighted sums.  ``var_`` keeps the shape (n_classes, n_features)
        whatever the choice.
    ddof : {0, 1}, default=0
        Delta degrees of freedom of the variance estimates: 1 gives the
        unbiased estimate.  A class (or pool) without enough samples for it
        gets variance 0 before smoothing.
    missing : {"error", "ignore"}, default="error"
        What NaN in X is: an error (scikit-learn's behaviour), or a missing
        value ("ignore"), left out of the statistics of its feature (each
        class's mean and variance of feature j are over the rows where x_j is
        observed, and ``epsilon_`` comes from the variances of the observed
        values) and out of the row's joint log-likelihood.  A stored NaN of
        sparse X is missing; implicit zeros stay values 0.  A class that
        never observed feature j takes the mean and variance of feature j's
        observed values over all classes, so that feature does not decide
        for or against it.

    Attributes
    ----------
    class_count_ : ndarray of shape (n_classes,)
        Number of training samples (weighted) observed in each class.
    class_prior_ : ndarray of shape (n_classes,)
        Probability of each class.
    classes_ : ndarray of shape (n_classes,)
        Class labels known to the classifier.
    epsilon_ : float
        Absolute additive value to variances.
    n_features_in_ : int
        Number of features seen during fit.
    feature_names_in_ : ndarray of shape (``n_features_in_``,)
        Names of features seen during fit, when X has string column names.
    var_ : ndarray of shape (n_classes, n_features)
        Variance of each feature per class (pooled as ``variance`` says), plus
        ``epsilon_``.  Setting it (persistence, interop) also rebuilds the
        statistics that ``partial_fit`` continues from.
    theta_ : ndarray of shape (n_classes, n_features)
        Mean of each feature per class.
    observed_count_ : ndarray of shape (n_classes, n_features)
        Weighted number of observed (not NaN) values of each feature per
        class: only in models fitted with ``missing="ignore"``.

    Examples
    --------
    >>> import numpy as np
    >>> from nbfast import GaussianNB
    >>> X = np.array([[-1, -1], [-2, -1], [-3, -2], [1, 1], [2, 1], [3, 2]])
    >>> Y = np.array([1, 1, 1, 2, 2, 2])
    >>> clf = GaussianNB().fit(X, Y)
    >>> print(clf.predict([[-0.8, -1]]))
    [1]
    """

    _stat_names = ("class_count_", "theta_", "_raw_var", "_seen_count", "_seen_mean", "_seen_var")
    # var_ last: its setter derives the statistics from the attributes before it.
    _fitted_attributes = (
        "classes_", "n_features_in_", "class_count_", "class_prior_", "theta_", "epsilon_", "var_",
    )

    _prior_param = "priors"
    _additive_stats = False  # a later batch reads epsilon_ and the dtype of the fitted model
    _keeps_observed_count = True
    _takes_missing = True
    _parameter_constraints = declare({
        "priors": ["array-like", None], "var_smoothing": [Interval(Real, 0, None, closed="left")],
        "variance": [StrOptions(set(VARIANCES))], "ddof": [Refined(_is_ddof, f"{_DDOF}, not a bool", sklearn=_DDOF)],
        "missing": [StrOptions(set(MISSING))], **N_JOBS,
    })
    _scoring_params = ("missing",)

    def __init__(self, *, priors=None, var_smoothing=1e-9, variance="class_feature", ddof=0, missing="error",
                 n_jobs=None):
        self.priors = priors
        self.n_jobs = n_jobs
        self.var_smoothing = var_smoothing
        self.variance = variance
        self.ddof = ddof
        self.missing = missing

    # ---------------------------------------------------------- parameters
    def _validate_params(self, n_features, n_classes):
        params = super()._validate_params(n_features, n_classes)
        self._check_priors(n_classes)
        return params

    def _ignores_missing(self):
        return check_missing(self.missing)

    def _check_priors(self, n_classes):
        """The priors as a float64 array (None when fitted from the data)."""
        return check_class_prior(self.priors, n_classes, "priors")

    def _log_prior(self):
        with np.errstate(divide="ignore"):
            return np.log(np.asarray(self.class_prior_, dtype=np.float64))

    def _set_log_prior(self, log_prior):
        self.class_prior_ = np.exp(log_prior)

    def _check_X(self, X, reset):
        return check_X(X, self, reset=reset, keep_dense=True, allow_nan=self._ignores_missing())

    # ---------------------------------------------------------- statistics
    def _init_stats(self, n_classes, n_features):
        stats = {name: np.zeros((n_classes, n_features)) for name in ("theta_", "_raw_var")}
        stats.update(
            class_count_=np.zeros(n_classes),
            _seen_count=np.zeros((1, n_features) if self._ignores_missing() else 1),
            _seen_mean=np.zeros((1, n_features)),
            _seen_var=np.zeros((1, n_features)),
            epsilon_=None,  # set by _accumulate; its presence marks a fresh fit
        )
        if self._ignores_missing():
            stats["observed_count_"] = np.zeros((n_classes, n_features))
        return stats

    def _accumulate(self, stats, X, y_index, sample_weight, rows=None):
        X, y_index, sample_weight = select_rows(rows, X, y_index, sample_weight)
        n_classes = stats["class_count_"].shape[0]
        # theta_, var_ and class_prior_ keep the first batch's float32, as in scikit-learn (the sums are float64)
        dtype = X.dtype if "epsilon_" in stats else self._dtype()
        skip_nan = self._ignores_missing()
        if skip_nan and "observed_count_" not in stats:  # continuing a model fitted without missing values
            stats["observed_count_"] = np.array(per_feature(stats["class_count_"], stats["theta_"].shape))
        weight, count, mean, var = class_moments(X, y_index, n_classes, sample_weight, skip_nan)
        unweighted = class_moments(X, y_index, n_classes, None, skip_nan)[1:] if sample_weight is not None \
            else (count, mean, var)
        seen = pool_groups(*unweighted)
        # As scikit-learn: epsilon_ = var_smoothing * the largest (unweighted) variance of a feature in this batch
        # (of its observed values, with missing values).
        epsilon = self.var_smoothing * float(seen[2].max())
        if "epsilon_" not in stats:  # a later partial_fit (fit and the first partial_fit start from None)
            # scikit-learn subtracts the new epsilon_ from var_ (which holds the previous one)
            # before merging, so the previous epsilon_ stays in the past variances.
            stats["_raw_var"] = stats["_raw_var"] + (self.epsilon_ - epsilon)
        if "epsilon_" in stats:  # as scikit-learn, ``priors`` is read at the first batch; later ones keep it
            stats["class_prior_"] = self._check_priors(n_classes)
        stats["epsilon_"] = epsilon
        if "observed_count_" in stats:  # the moments are over each feature's observed values
            stats["class_count_"] = stats["class_count_"] + weight
            self._merge_into(stats, ("observed_count_", "theta_", "_raw_var"),
                             (per_feature(count, mean.shape), mean, var))
            seen = (per_feature(seen[0], seen[1].shape),) + seen[1:]
        else:
            self._merge_into(stats, ("class_count_", "theta_", "_raw_var"), (count, mean, var))
        self._merge_into(stats, ("_seen_count", "_seen_mean", "_seen_var"), seen)
        stats["theta_"] = stats["theta_"].astype(np.float32 if dtype == np.float32 else np.float64, copy=False)

    def _dtype(self):
        """float32 for a model fitted on float32 X (its theta_ says so), else float64."""
        return np.float32 if np.asarray(self.theta_).dtype == np.float32 else np.float64

    @staticmethod
    def _merge_into(stats, names, moments):
        """Fold (count, mean, variance) into the named statistics.

        The arrays are replaced, never written into: a prediction running in
        another thread may be reading the model's ``theta_``.
        """
        for name, value in zip(names, merge_moments(*(stats[name] for name in names), *moments)):
            stats[name] = value

    def _moment_count(self):
        """The counts the moments are over: ``observed_count_`` with missing values, else ``class_count_``."""
        observed = self._fitted_observed_count()
        return self.class_count_ if observed is None else observed

    def _update_params(self, params):
        dtype = self._dtype()
        variance = np.broadcast_to(
            pooled_variance(self._raw_var, self._moment_count(), self.variance, self.ddof), self._raw_var.shape)
        observed = self._fitted_observed_count()
        if observed is not None and not np.all(observed > 0):
            # A class that never observed feature j takes the feature's mean and variance over the observed values
            # of every class (its marginal), not mean 0 and variance epsilon_, which would decide for or against
            # the class on whether x_j is near 0.  The cells have no weight: later batches and merges replace them.
            _, mean, pooled = pool_groups(observed, self.theta_, self._raw_var)
            self.theta_ = np.where(observed > 0, self.theta_, mean).astype(dtype, copy=False)
            variance = np.where(observed > 0, variance, pooled)
        self._var = (variance + self.epsilon_).astype(dtype, copy=False)
        # the empirical prior, or with ``priors`` the one set at the first batch (a set_params(priors=...) since
        # takes effect at the next fit, as in scikit-learn)
        prior = self.class_count_ / self.class_count_.sum() if self.priors is None else self.class_prior_
        self.class_prior_ = np.asarray(prior, dtype=np.float64).astype(dtype, copy=False)

    # ----------------------------------------------------- the public var_
    @property
    def var_(self):
        """Variance of each feature per class, plus ``epsilon_``: (n_classes, n_features)."""
        try:
            return self._var
        except AttributeError:
            raise AttributeError(f"{type(self).__name__!r} object has no attribute 'var_'") from None

    @var_.setter
    def var_(self, value):
        # Rebuild the statistics from class_count_, theta_ and epsilon_ (set before var_): exact for
        # variance="class_feature", ddof=0; for pooled variances the per-class statistics are
        # replaced by ones that give the same pooled variances.  _seen_* assume unit weights.
        var = np.array(value, dtype=np.float64)
        if np.isnan(var).any() or (var < 0).any():
            raise ValueError("var_ must hold variances (non-negative, no NaN).")
        count = np.asarray(self._moment_count(), dtype=np.float64)
        dof = np.maximum(count - self.ddof, 0)
        scale = np.divide(dof, count, out=np.ones_like(count), where=count > 0)
        self._var = var.astype(self._dtype(), copy=False)
        self._raw_var = (scale[:, None] if scale.ndim == 1 else scale) * (var - self.epsilon_)  # shapes: checked later
        self._seen_count, self._seen_mean, self._seen_var = pool_groups(count, self.theta_, self._raw_var)

    @classmethod
    def _fitted_shapes(cls, fitted, n_classes, n_features):
        return {"class_count_": (n_classes,), "class_prior_": (n_classes,), "theta_": (n_classes, n_features),
                "var_": (n_classes, n_features), "epsilon_": ()}

    def _validate_fitted(self):
        """Shapes the scoring kernel trusts, for models rebuilt from attributes (persistence, interop)."""
        super()._validate_fitted()
        shape = (len(self.classes_), self.n_features_in_)
        if np.shape(self.var_) != shape or np.shape(self.theta_) != shape:
            raise ValueError(f"theta_ and var_ must have shape {shape}; got {np.shape(self.theta_)} and {np.shape(self.var_)}.")
        if np.shape(self.class_prior_) != shape[:1] or np.ndim(self.epsilon_) != 0:
            raise ValueError(f"class_prior_ must have shape {shape[:1]} and epsilon_ be a number.")
        check_counts(self.class_count_, "class_count_")
        check_counts(self.class_prior_, "class_prior_")
        check_counts(self.epsilon_, "epsilon_")
        if not np.isfinite(self.theta_).all():
            raise ValueError("theta_ must hold finite means.")

    @staticmethod
    def _check_scoring_arrays(mean, var, class_prior, n_features, n_classes):
        """The arrays the kernel reads: (n_features, n_classes) means and variances, (n_classes,) priors (O(1))."""
        if np.shape(class_prior) != (n_classes,) or mean.shape != (n_features, n_classes) or var.shape != mean.shape:
            raise ValueError(
                f"theta_ {mean.T.shape}, var_ {var.T.shape} and class_prior_ {np.shape(class_prior)} do not agree "
                f"with each other, with X's {n_features} features and the {n_classes} classes_: a fitted attribute was "
                "assigned with the wrong shape (or the model was refitted while predicting)."
            )

    # -------------------------------------------------------------- scoring
    def _scoring_terms(self, n_features):
        """(mean, 1 / (2 var), bias), the first two (n_features, n_classes): the scoring kernel's tables, checked
        against X's ``n_features`` and the classes."""
        mean = np.ascontiguousarray(np.asarray(self.theta_, dtype=np.float64).T)
        var = np.ascontiguousarray(np.asarray(self.var_, dtype=np.float64).T)
        class_prior = self.class_prior_
        self._check_scoring_arrays(mean, var, class_prior, n_features, len(self.classes_))
        with np.errstate(divide="ignore"):
            half_inv_var = 0.5 / var
            # jll[c] = log prior_c - 0.5 sum_j log(2 pi var_cj) - sum_j (x_j - mean_cj)^2 / (2 var_cj)
            bias = np.log(class_prior) - 0.5 * np.log(2.0 * np.pi * var).sum(axis=0)
        return mean, half_inv_var, bias

    def _score(self, X, mode):
        mean, half_inv_var, bias = self._scoring_terms(X.shape[1])
        n_samples, n_classes = X.shape[0], mean.shape[1]
        if mode == Output.ARGMAX:
            labels, out = np.empty(n_samples, dtype=np.int64), np.empty((0, 0))
        else:
            labels, out = np.empty(0, dtype=np.int64), np.empty((n_samples, n_classes))
        # A missing x_j adds back what the bias holds for feature j: its normalizing term 0.5 log(2 pi var)
        # (and, for CSR rows, the term mean^2 / (2 var) of the implicit zero the bias assumes).
        with np.errstate(divide="ignore", invalid="ignore"):
            restore = 0.5 * np.log(np.pi / half_inv_var) if self._ignores_missing() else np.empty((0, 0))
            if sp.issparse(X):
                # An all-zero row scores bias - sum_j mean^2 / (2 var); each stored x adds -x (x - 2 mean) / (2 var).
                zero_terms = mean * mean * half_inv_var
                bias = bias - zero_terms.sum(axis=0)
                if restore.size:
                    restore += zero_terms
                arrays = (np.empty((0, 0), dtype=X.dtype), X.data, X.indices, X.indptr)
            else:
                no_index = np.empty(0, dtype=np.int32)
                arrays = (X, np.empty(0, dtype=X.dtype), no_index, no_index)
        work = (X.nnz if sp.issparse(X) else X.size) * n_classes + n_samples * n_classes
        _kernels.score(*arrays, mean, half_inv_var, bias, restore, mode, out, labels, effective_n_threads(work))
        # scores in float32 for float32 X and a model fitted on float32, as scikit-learn's (computed in float64)
        return labels if mode == Output.ARGMAX else out.astype(np.result_type(X.dtype, self._dtype()), copy=False)

    # ------------------------------------------------------- explanation
    def _pair_terms(self, X, first, second):
        X = X if sp.issparse(X) else sp.csr_array(X)  # dense input: its nonzero entries, nothing densified
        mean, half_inv_var, bias = self._scoring_terms(X.shape[1])
        with np.errstate(invalid="ignore"):
            # the all-zero row scores bias - sum_j mean^2 / (2 var); a stored x adds x mean / var - x^2 / (2 var)
            zero_terms = mean * mean * half_inv_var
            zero_row = bias - zero_terms.sum(axis=0)
            terms, constant = pair_terms(X, 2.0 * mean * half_inv_var, zero_row, first, second, square=-half_inv_var)
        if self._ignores_missing():
            # a missing x_j takes back feature j's terms in the all-zero row: 0.5 log(2 pi var) + mean^2 / (2 var)
            missing = np.flatnonzero(np.isnan(X.data))
            row = np.repeat(np.arange(X.shape[0]), np.diff(X.indptr))[missing]
            with np.errstate(divide="ignore"):
                restore = 0.5 * np.log(np.pi / half_inv_var) + zero_terms
            feature = X.indices[missing]
            terms[missing] = restore[feature, first[row]] - restore[feature, second[row]]
        return terms_matrix(X, terms), constant

    def _feature_scores(self):
        """Per feature, the Kullback-Leibler divergence of class c's normal from each other class's, averaged.

        KL(N(m_c, v_c) || N(m_o, v_o)) = (log(v_o / v_c) + (v_c + (m_c - m_o)^2) / v_o - 1) / 2 is the
        expected log-likelihood ratio of c against o on class c's values of the feature.
        """
        mean, var = np.asarray(self.theta_, dtype=np.float64), np.asarray(self.var_, dtype=np.float64)
        n_classes = mean.shape[0]
        scores = np.empty_like(mean)
        with np.errstate(divide="ignore", invalid="ignore"):
            for c in range(n_classes):
                others = np.arange(n_classes) != c
                kl = 0.5 * (np.log(var[others] / var[c]) + (var[c] + (mean[c] - mean[others]) ** 2) / var[others] - 1)
                scores[c] = kl.mean(axis=0)
        return scores, np.arange(mean.shape[1]), None

    # ---------------------------------------------------------- extensions
    def _linear_export(self):
        """(coef (n_classes, n_features), intercept (n_classes,)) of the joint log-likelihood, up to a per-row constant.

        Only for ``variance="feature"``: with var_j shared by the classes,
        jll_c(x) = x @ coef_c + intercept_c - sum_j x_j^2 / (2 var_j), where
        coef_cj = theta_cj / var_j and intercept_c = log prior_c
        - sum_j theta_cj^2 / (2 var_j) - 0.5 sum_j log(2 pi var_j).
        """
        if self.variance != "feature":
            raise ValueError(
                f"A GaussianNB is linear in x only with variance='feature' (one variance per feature shared by "
                f"the classes); this model has variance={self.variance!r}, whose log-likelihood is quadratic in x."
            )
        check_is_fitted(self)
        var = self.var_[0]
        coef = self.theta_ / var
        with np.errstate(divide="ignore"):
            intercept = (
                np.log(self.class_prior_)
                - 0.5 * (self.theta_ * coef).sum(axis=1)
                - 0.5 * np.log(2.0 * np.pi * var).sum()
            )
        return coef, intercept

    @classmethod
    def _merge(cls, models):
        """One model equal to fitting on the union of the models' (disjoint) training data.

        Models must share their parameters and ``n_features_in_``; their classes
        are united.  Means and variances merge with the parallel formula
        (:func:`merge_moments`), ``epsilon_`` comes from the variance of all
        rows seen (unweighted, as scikit-learn computes it in ``fit``).
        """
        models = list(models)
        if not models:
            raise ValueError("Nothing to merge: pass at least one fitted GaussianNB.")
        first = models[0]
        for model in models:
            if type(model) is not cls:
                raise TypeError(f"Cannot merge a {type(model).__name__} into a {cls.__name__}.")
            check_is_fitted(model)
            if model.n_features_in_ != first.n_features_in_ or not _same_params(model, first):
                raise ValueError(
                    "GaussianNB models merge only when fitted with the same parameters on the same features; "
                    f"got {first!r} on {first.n_features_in_} features and {model!r} on {model.n_features_in_}."
                )
        classes = unique_classes(np.concatenate([model.classes_ for model in models]))
        merged = cls(**first.get_params())
        params = merged._validate_params(first.n_features_in_, len(classes))
        stats = merged._init_stats(len(classes), first.n_features_in_)
        observed = any(model._fitted_observed_count() is not None for model in models)
        if observed:  # the moments are over each feature's observed values
            stats["observed_count_"] = np.zeros_like(stats["theta_"])
            stats["_seen_count"] = np.zeros_like(stats["_seen_mean"])
        counts = ("observed_count_" if observed else "class_count_", "theta_", "_raw_var")
        for model in models:
            rows = encode_labels(classes, model.classes_)
            count = np.zeros_like(stats[counts[0]])
            mean, var = np.zeros_like(stats["theta_"]), np.zeros_like(stats["theta_"])
            count[rows] = model._observed_count() if observed else model.class_count_
            mean[rows], var[rows] = model.theta_, model._raw_var
            with np.errstate(over="ignore"):  # an overflow is refused below
                if observed:
                    stats["class_count_"][rows] += model.class_count_
                merged._merge_into(stats, counts, (count, mean, var))
                seen_count = per_feature(model._seen_count, model._seen_mean.shape) if observed else model._seen_count
                merged._merge_into(stats, ("_seen_count", "_seen_mean", "_seen_var"),
                                   (seen_count, model._seen_mean, model._seen_var))
        check_statistics(stats)
        stats["epsilon_"] = merged.var_smoothing * float(stats["_seen_var"].max())
        merged._commit(stats, classes, first.n_features_in_, getattr(first, "feature_names_in_", None), params)
        return merged

    def _check_stored_values(self):
        """Its class prior, and means and variances whose squares and logs are finite."""
        check_class_prior(self.class_prior_, len(self.classes_), "class_prior_")
        check_means(self.theta_, "theta_")
        check_variances(self.var_, "var_")


def _same_params(a, b):
    pa, pb = a.get_params(), b.get_params()
    return all(np.array_equal(pa[k], pb[k]) if k == "priors" else pa[k] == pb[k] for k in pa if k not in RUNTIME_PARAMS)
