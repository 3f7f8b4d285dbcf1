"""Naive Bayes models for count data whose joint log-likelihood is linear in the
(possibly binarized) counts: MultinomialNB, BernoulliNB, ComplementNB and PoissonNB.

Each keeps its log-probability table once, as (n_features, n_classes) row-major
for the scoring kernel; ``feature_log_prob_`` is the (n_classes, n_features)
view of it that scikit-learn users expect.
"""

import math
import numbers
import warnings

import numpy as np
import scipy.sparse as sp
from scipy.special import gammaln

from nbfast._kernels.counts import add_class_counts
from nbfast._kernels.scoring import Output, score_csr
from nbfast._kernels.threads import effective_n_threads
from nbfast._validation import _dense_to_float, check_class_prior, check_counts, check_log_prior, check_no_nan
from nbfast.naive_bayes._base import _BaseNB, class_log_prior, scores_from_joint_log_likelihood

_ALPHA_LOWER_BOUND = 1e-10


def group_rows_by_class(y_index, n_classes):
    """Row order grouping rows by class (stable) and each class's start in it."""
    if n_classes <= 1 << 16:  # numpy's stable sort of 8- and 16-bit keys is a radix sort
        y_index = y_index.astype(np.uint8 if n_classes <= 1 << 8 else np.uint16)
    order = np.argsort(y_index, kind="stable").astype(np.intp, copy=False)
    start = np.zeros(n_classes + 1, dtype=np.intp)
    np.cumsum(np.bincount(y_index, minlength=n_classes), out=start[1:])
    return order, start


def accumulate_class_counts(X, y_index, sample_weight, class_count, feature_count, *, binarize=False, threshold=0.0):
    """Add per-class sample counts and per-(class, feature) sums of f(x) in place.

    ``f(x) = x``, or ``[x > threshold]`` when ``binarize``: the statistic of every
    discrete model.  ``X`` is validated CSR.
    """
    n_classes = class_count.shape[0]
    if feature_count.shape != (n_classes, X.shape[1]):  # the kernel writes feature_count[y_index, X.indices]
        raise ValueError(f"feature_count_ has shape {feature_count.shape}, expected {(n_classes, X.shape[1])}.")
    class_count += np.bincount(y_index, weights=sample_weight, minlength=n_classes)  # raises for y_index >= n_classes
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


def alpha_weighted_sum(alpha, log_table):
    """sum over j and c of alpha_j * log_table[j, c] (log_table (n_features, n_classes)), a feature of alpha 0
    adding 0 whatever its entries (-inf when unsmoothed): the log of a Dirichlet, Beta or Gamma prior density
    with exponents alpha, up to a constant."""
    alpha = np.broadcast_to(np.asarray(alpha, dtype=np.float64), (log_table.shape[0],))
    return float(np.dot(alpha, np.where(alpha[:, None] > 0, log_table, 0.0).sum(axis=1)))


class _BaseDiscreteNB(_BaseNB):
    """Discrete Naive Bayes: additive smoothing ``alpha`` and class priors."""

    _non_negative = True
    _stat_names = ("class_count_", "feature_count_")
    _fitted_attributes = (
        "classes_", "n_features_in_", "class_count_", "feature_count_", "class_log_prior_", "feature_log_prob_",
    )

    def __init__(self, alpha=1.0, fit_prior=True, class_prior=None, force_alpha=True):
        self.alpha = alpha
        self.fit_prior = fit_prior
        self.class_prior = class_prior
        self.force_alpha = force_alpha

    # ---------------------------------------------------------- parameters
    def _validate_params(self, n_features, n_classes):
        super()._validate_params(n_features, n_classes)
        self._check_alpha(n_features)
        check_class_prior(self.class_prior, n_classes)

    def _check_alpha(self, n_features):
        """The smoothing as a float or a (n_features,) array, bounded below unless force_alpha."""
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
            if not np.all(alpha >= 0):
                raise ValueError("All values in alpha must be greater than 0.")
        if np.min(alpha) < _ALPHA_LOWER_BOUND and not self.force_alpha:
            warnings.warn(
                f"alpha too small will result in numeric errors, setting alpha = {_ALPHA_LOWER_BOUND:.1e}. "
                "Use `force_alpha=True` to keep alpha unchanged."
            )
            return np.maximum(alpha, _ALPHA_LOWER_BOUND)
        return alpha

    # ---------------------------------------------------------- statistics
    def _init_stats(self, n_classes, n_features):
        return {
            "class_count_": np.zeros(n_classes),
            "feature_count_": np.zeros((n_classes, n_features)),
        }

    def _accumulate(self, stats, X, y_index, sample_weight):
        accumulate_class_counts(X, y_index, sample_weight, stats["class_count_"], stats["feature_count_"])

    def _kernel_threshold(self):
        """(binarize f(x) = [x > threshold] in the count kernels?, threshold): counts are summed as they are."""
        return False, 0.0

    def _soft_label_accumulator(self, X):
        binarize, threshold = self._kernel_threshold()
        accumulate = soft_class_counts(X, binarize=binarize, threshold=threshold)
        return lambda stats, class_weight: accumulate(class_weight, stats["class_count_"], stats["feature_count_"])

    def _update_params(self):
        alpha = self._check_alpha(self.n_features_in_)
        self._update_feature_log_prob(alpha)
        self._update_class_log_prior()

    def _update_class_log_prior(self):
        prior = check_class_prior(self.class_prior, len(self.classes_))
        self.class_log_prior_ = class_log_prior(self.class_count_, prior, self.fit_prior)

    def _smoothed_log_table(self, alpha, denominator):
        """log((feature_count_ + alpha) / denominator[c]) as a (n_features, n_classes) table.

        Built in place in the scoring layout: no other (C, D) temporary.
        """
        alpha = np.asarray(alpha, dtype=np.float64)
        table = np.empty((self.feature_count_.shape[1], self.feature_count_.shape[0]))
        np.add(self.feature_count_.T, alpha[:, None] if alpha.ndim else alpha, out=table)
        with np.errstate(divide="ignore"):
            np.log(table, out=table)
            table -= np.log(denominator)
        return table

    # --------------------------------------------------- the public table
    @property
    def feature_log_prob_(self):
        """Empirical log probability of features given a class, (n_classes, n_features).

        A read-only view of the scoring table: assign a new array to change the
        model, so that the tables derived from it are rebuilt too.
        """
        try:
            view = self._log_prob_table.T
        except AttributeError:
            raise AttributeError(f"{type(self).__name__!r} object has no attribute 'feature_log_prob_'") from None
        view.flags.writeable = False
        return view

    @feature_log_prob_.setter
    def feature_log_prob_(self, value):
        table = np.ascontiguousarray(np.asarray(value, dtype=np.float64).T)
        check_no_nan(table, "feature_log_prob_")
        self._set_log_prob_table(table)

    def _set_log_prob_table(self, table):
        self._log_prob_table = table

    @classmethod
    def _complement_stats(cls, whole, part):
        # Counts add up over rows, so they subtract: the statistics of the other rows.
        return {name: np.asarray(getattr(whole, name), dtype=np.float64) - getattr(part, name)
                for name in cls._stat_names}

    @classmethod
    def _fitted_shapes(cls, fitted, n_classes, n_features):
        shapes = {"class_count_": (n_classes,), "feature_count_": (n_classes, n_features),
                  "class_log_prior_": (n_classes,), "feature_log_prob_": (n_classes, n_features),
                  "feature_all_": (n_features,)}
        return {name: shape for name, shape in shapes.items() if name in cls._fitted_attributes}

    def _validate_fitted(self):
        super()._validate_fitted()
        n_classes, n_features = len(self.classes_), self.n_features_in_
        table, bias = self._linear_terms()[:2]
        if np.shape(table) != (n_features, n_classes) or np.shape(bias) != (n_classes,):
            raise ValueError(
                f"the scoring table has shape {np.shape(table)} and the bias {np.shape(bias)}, "
                f"expected ({n_features}, {n_classes}) and ({n_classes},)."
            )
        self._validate_fitted_values()

    def _validate_fitted_values(self):
        """Counts finite and non-negative; no NaN in what scoring reads, and no +inf in the bias (O(C x D))."""
        check_counts(self.class_count_, "class_count_")
        check_counts(self.feature_count_, "feature_count_")
        table, bias = self._linear_terms()[:2]
        check_no_nan(table, "feature_log_prob_ (the scoring table derived from it)")
        check_log_prior(bias, "class_log_prior_ (the scoring bias derived from it)")


class MultinomialNB(_BaseDiscreteNB):
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
    feature_names_in_ : ndarray of shape (n_features_in_,)
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

    def _update_feature_log_prob(self, alpha):
        # log theta_ci = log(N_ci + alpha_i) - log(sum_i (N_ci + alpha_i))
        smoothed_total = self.feature_count_.sum(axis=1) + np.sum(np.broadcast_to(alpha, self.n_features_in_))
        self._set_log_prob_table(self._smoothed_log_table(alpha, smoothed_total))

    def _linear_terms(self):
        return self._log_prob_table, self.class_log_prior_, False, 0.0

    def _log_parameter_prior(self):
        # theta_c ~ Dirichlet(alpha + 1), whose mode is the smoothed estimate: sum_ci alpha_i log theta_ci
        return alpha_weighted_sum(self._check_alpha(self.n_features_in_), self._log_prob_table)


class BernoulliNB(_BaseDiscreteNB):
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
        Threshold for binarizing features (x > binarize counts as present).
        If None, X is taken to be binary already.
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
        Weighted number of samples of each class in which each feature is present.
    feature_log_prob_ : ndarray of shape (n_classes, n_features)
        log theta_ci = log((N_ci + alpha) / (N_c + 2 alpha)).
    n_features_in_ : int
        Number of features seen during fit.
    feature_names_in_ : ndarray of shape (n_features_in_,)
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

    def __init__(self, *, alpha=1.0, force_alpha=True, binarize=0.0, fit_prior=True, class_prior=None):
        super().__init__(alpha=alpha, fit_prior=fit_prior, class_prior=class_prior, force_alpha=force_alpha)
        self.binarize = binarize

    def _threshold(self):
        """(binarize in the kernel?, threshold)."""
        if self.binarize is None:
            return False, 0.0
        if not isinstance(self.binarize, numbers.Real) or math.isnan(self.binarize):
            raise ValueError(f"binarize must be a float (not NaN) or None; got {self.binarize!r}.")
        return True, float(self.binarize)

    def _validate_scoring_params(self):
        self._threshold()

    def _check_X(self, X, reset):
        binarize, threshold = self._threshold()
        if binarize and threshold < 0:
            # Implicit zeros become ones: binarize densely, as scikit-learn does.
            if sp.issparse(X):
                raise ValueError("Cannot binarize a sparse matrix with threshold < 0")
            X = (_dense_to_float(X, "X") > threshold).astype(np.float64)
        return super()._check_X(X, reset)

    def _kernel_threshold(self):
        binarize, threshold = self._threshold()
        # Inputs binarized densely in _check_X are already 0/1.
        return (binarize and threshold >= 0), threshold

    def _accumulate(self, stats, X, y_index, sample_weight):
        binarize, threshold = self._kernel_threshold()
        accumulate_class_counts(
            X, y_index, sample_weight, stats["class_count_"], stats["feature_count_"],
            binarize=binarize, threshold=threshold,
        )

    def _update_feature_log_prob(self, alpha):
        # log theta_ci = log(N_ci + alpha) - log(N_c + 2 alpha)
        alpha = np.asarray(alpha, dtype=np.float64)
        denominator = self.class_count_ + 2 * (alpha[:, None] if alpha.ndim else alpha)
        self._set_log_prob_table(self._smoothed_log_table(alpha, denominator))

    def _set_log_prob_table(self, table):
        # jll = log prior + sum_i log(1 - theta_i) + sum_{i present} [log theta_i - log(1 - theta_i)]
        self._log_prob_table = table
        log_absent = np.exp(table)
        np.negative(log_absent, out=log_absent)
        with np.errstate(invalid="ignore"):  # theta > 1 (binarize=None on counts): NaN, as in scikit-learn
            np.log1p(log_absent, out=log_absent)
        self._log_absent_sum = log_absent.sum(axis=0)
        self._presence_table = np.subtract(table, log_absent, out=log_absent)

    def _linear_terms(self):
        binarize, threshold = self._kernel_threshold()
        return self._presence_table, self.class_log_prior_ + self._log_absent_sum, binarize, threshold

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
        if not np.isneginf(self._log_absent_sum).any():
            return None
        binarize, threshold = self._kernel_threshold()
        if binarize:
            X = X.copy()
            X.data = (X.data > threshold).astype(np.float64)
            X.eliminate_zeros()  # 0 * log theta = 0 even where log theta = -inf
        table = self._log_prob_table
        with np.errstate(divide="ignore"):
            log_absent = np.log1p(-np.exp(table))
        certain = np.isneginf(log_absent)
        log_absent[certain] = 0.0
        jll = X @ (table - log_absent) + (self.class_log_prior_ + log_absent.sum(axis=0))
        jll[X @ certain.astype(np.float64) < certain.sum(axis=0)] = -np.inf
        return scores_from_joint_log_likelihood(jll, mode)


class ComplementNB(_BaseDiscreteNB):
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
    feature_names_in_ : ndarray of shape (n_features_in_,)
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

    def __init__(self, *, alpha=1.0, force_alpha=True, fit_prior=True, class_prior=None, norm=False):
        super().__init__(alpha=alpha, fit_prior=fit_prior, class_prior=class_prior, force_alpha=force_alpha)
        self.norm = norm

    def _update_feature_log_prob(self, alpha):
        # w_ci = log(theta~_ci), theta~_ci = (sum_{c' != c} N_c'i + alpha_i) / sum_i (...);
        # scores are -w (argmax of -w is the paper's argmin), or w / sum_i w when norm.
        self.feature_all_ = self.feature_count_.sum(axis=0)
        # Built in place in the scoring layout (n_features, n_classes): no other (C, D) temporary.
        weights = np.empty((self.feature_count_.shape[1], self.feature_count_.shape[0]))
        np.subtract((self.feature_all_ + alpha)[:, None], self.feature_count_.T, out=weights)
        # Degenerate models divide 0 by 0 (one feature, or no counts outside a class with alpha=0): NaN weights,
        # as scikit-learn computes them, without a warning from this library.
        with np.errstate(divide="ignore", invalid="ignore"):
            weights /= weights.sum(axis=0)
            np.log(weights, out=weights)
            if self.norm:
                weights /= weights.sum(axis=0)
            else:
                np.negative(weights, out=weights)
        self._set_log_prob_table(weights)

    def _uses_class_prior(self):
        # The class prior enters only in the single-class edge case, as in scikit-learn.
        return len(self.classes_) == 1

    def _linear_terms(self):
        return self._log_prob_table, self._added_log_prior(), False, 0.0


class PoissonNB(_BaseDiscreteNB):
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
    feature_names_in_ : ndarray of shape (n_features_in_,)
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

    def __init__(self, *, alpha=1.0, beta=1.0, fit_prior=True, class_prior=None, force_alpha=True):
        super().__init__(alpha=alpha, fit_prior=fit_prior, class_prior=class_prior, force_alpha=force_alpha)
        self.beta = beta

    def _validate_params(self, n_features, n_classes):
        super()._validate_params(n_features, n_classes)
        if isinstance(self.beta, bool) or not isinstance(self.beta, numbers.Real) or not self.beta > 0:
            raise ValueError(f"beta must be a float in the range (0.0, inf); got {self.beta!r}.")

    def _update_feature_log_prob(self, alpha):
        # log lambda_ci = log(T_ci + alpha_i) - log(N_c + beta)
        self._set_log_prob_table(self._smoothed_log_table(alpha, self.class_count_ + float(self.beta)))

    def _set_log_prob_table(self, table):
        self._log_prob_table = table
        self._rate_sum = np.exp(table).sum(axis=0)  # sum_i lambda_ci

    def _linear_terms(self):
        # jll = log prior - sum_i lambda_ci + sum_{i present} x_i log lambda_ci  (- sum_i log x_i!)
        return self._log_prob_table, self.class_log_prior_ - self._rate_sum, False, 0.0

    def _log_parameter_prior(self):
        # lambda_ci ~ Gamma(alpha_i + 1, beta): sum_ci alpha_i log lambda_ci - beta lambda_ci
        return (alpha_weighted_sum(self._check_alpha(self.n_features_in_), self._log_prob_table)
                - float(self.beta) * float(self._rate_sum.sum()))

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
        X = self._predict_input(X)
        jll = self._score(X, Output.JOINT_LOG_LIKELIHOOD)
        log_factorials = sp.csr_array((gammaln(X.data.astype(np.float64) + 1.0), X.indices, X.indptr), shape=X.shape)
        jll -= log_factorials.sum(axis=1)[:, None]
        return jll
