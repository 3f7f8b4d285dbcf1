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
"""

import numbers

import numpy as np
import scipy.sparse as sp

from nbfast._kernels.categories import category_columns, count_bad_codes
from nbfast._kernels.threads import effective_n_threads
from nbfast._validation import check_counts, check_log_prior, check_no_nan
from nbfast.naive_bayes._base import _BaseNB, contrast, pair_terms, scores_from_joint_log_likelihood, terms_matrix
from nbfast.naive_bayes._discrete import _BaseDiscreteNB, accumulate_class_counts

# Category codes must fit an int64 exactly once converted from float.
_MAX_CODE = 2.0**53


def _starts(n_categories):
    """First column of each feature in the stacked layout (categories, then the unseen slot)."""
    starts = np.zeros(len(n_categories), dtype=np.int64)
    np.cumsum(n_categories[:-1] + 1, out=starts[1:])
    return starts


def _seen_columns(n_categories):
    """(feature, category, column) of every category column, the unseen slots left out."""
    feature = np.repeat(np.arange(len(n_categories)), n_categories)
    category = np.arange(feature.shape[0]) - np.repeat(np.cumsum(n_categories) - n_categories, n_categories)
    return feature, category, _starts(n_categories)[feature] + category


def check_n_categories(n_categories, n_features):
    """``n_categories`` as int64, refused unless it holds ``n_features`` counts >= 1 whose layout fits int64.

    The stacked layout has sum(n_categories + 1) columns, at most
    n_features * (max + 1): bounding that (exactly, in Python integers) keeps
    every start and column index of the kernels below 2**63.
    """
    n_categories = np.asarray(n_categories)
    if n_categories.dtype.kind not in "iu" or n_categories.shape != (n_features,) or n_features < 1:
        raise ValueError(
            f"n_categories_ must be an integer array of shape ({n_features},); got {n_categories.dtype} "
            f"{n_categories.shape}."
        )
    if n_categories.min() < 1 or n_features * (int(n_categories.max()) + 1) >= 2**63:
        raise ValueError(f"n_categories_ must hold counts >= 1 (and not too large); got {n_categories.min()} to "
                         f"{n_categories.max()}.")
    return np.ascontiguousarray(n_categories, dtype=np.int64)


def _check_blocks(blocks, n_classes, n_categories, name):
    """Refuse per-feature blocks whose shapes are not (n_classes, n_categories[j]), before any allocation."""
    if not isinstance(blocks, (list, tuple)) or len(blocks) != len(n_categories):
        raise ValueError(f"{name} must be a list of {len(n_categories)} arrays, one per feature.")
    for j, (block, n) in enumerate(zip(blocks, n_categories)):
        if np.shape(block) != (n_classes, n):
            raise ValueError(f"{name}[{j}] has shape {np.shape(block)}, expected {(n_classes, int(n))}.")


def _csr(data, indices, indptr, shape):
    """A CSR array on exactly these buffers (scipy's constructor may downcast the indices)."""
    X = sp.csr_array((data, indices, indptr), shape=shape, copy=False)
    X.indices, X.indptr = indices, indptr
    return X


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
    feature_names_in_ : ndarray of shape (n_features_in_,)
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
    _fitted_attributes = (
        "classes_", "n_features_in_", "class_count_", "n_categories_", "category_count_",
        "class_log_prior_", "feature_log_prob_",
    )

    def __init__(
        self, *, alpha=1.0, force_alpha=True, fit_prior=True, class_prior=None, min_categories=None,
        max_categories=None,
    ):
        super().__init__(alpha=alpha, fit_prior=fit_prior, class_prior=class_prior, force_alpha=force_alpha)
        self.min_categories = min_categories
        self.max_categories = max_categories

    # ---------------------------------------------------------- parameters
    def _check_alpha(self, n_features):
        if isinstance(self.alpha, bool) or not isinstance(self.alpha, numbers.Real):
            raise ValueError(f"alpha must be a float in the range [0.0, inf) for CategoricalNB; got {self.alpha!r}.")
        return super()._check_alpha(n_features)

    def _validate_params(self, n_features, n_classes):
        super()._validate_params(n_features, n_classes)
        self._min_categories(n_features)

    def _validate_scoring_params(self):
        self._max_categories()

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
        if count_bad_codes(X.data, _MAX_CODE, effective_n_threads(X.nnz)):
            data = X.data
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

        Stored zeros get value 0: category 0 is accounted for by the bias.
        """
        n_categories = np.ascontiguousarray(n_categories, dtype=np.int64)  # also when set by hand
        columns = np.empty(X.nnz, dtype=np.int64)
        present = np.empty(X.nnz, dtype=np.float64)
        category_columns(
            X.data, X.indices, n_categories, _starts(n_categories), self._max_code(), columns, present,
            effective_n_threads(X.nnz),
        )
        return _csr(present, columns, X.indptr.astype(np.int64), (X.shape[0], int(np.sum(n_categories + 1))))

    # ---------------------------------------------------------- statistics
    @classmethod
    def _merge_stats(cls, models):
        """Statistics of the union of the models' data (for nbfast.merge): shards may
        have seen different numbers of categories, so counts are padded, then summed."""
        n_categories = np.max([m.n_categories_ for m in models], axis=0)
        counts = [np.zeros((len(models[0].classes_), n)) for n in n_categories]
        for model in models:
            for total, block in zip(counts, model.category_count_):
                total[:, : block.shape[1]] += block
        return {
            "n_categories_": n_categories,
            "class_count_": np.sum([m.class_count_ for m in models], axis=0),
            "category_count_": counts,
        }

    def _init_stats(self, n_classes, n_features):
        return {
            "class_count_": np.zeros(n_classes),
            "n_categories_": np.zeros(n_features, dtype=np.int64),
            "_category_counts": np.zeros((n_classes, n_features)),  # only the unseen slots so far
        }

    def _current_stats(self):
        stats = super()._current_stats()
        stats["n_categories_"] = self.n_categories_
        return stats

    def _soft_label_accumulator(self, X):
        # Category counts do not take soft labels (the count models' accumulator reads feature_count_).
        return _BaseNB._soft_label_accumulator(self, X)

    def _accumulate(self, stats, X, y_index, sample_weight):
        n_classes, n_features = stats["class_count_"].shape[0], X.shape[1]
        largest = np.zeros(n_features)
        np.maximum.at(largest, X.indices, X.data)
        largest = np.minimum(largest.astype(np.int64), self._max_code())
        old = stats["n_categories_"]
        new = np.maximum(np.maximum(old, largest + 1), self._min_categories(n_features))
        counts = stats["_category_counts"]
        if not np.array_equal(old, new):  # move the counts to the wider layout
            feature, category, old_columns = _seen_columns(old)
            grown = np.zeros((n_classes, int(np.sum(new + 1))))
            grown[:, _starts(new)[feature] + category] = counts[:, old_columns]
            counts = grown
        # Categories v > 0 are counted from the stored entries; category 0 of
        # feature j gets N_c minus the class's rows where x_j > 0.
        categories = self._category_matrix(X, new)
        batch_class_count = np.zeros(n_classes)
        accumulate_class_counts(categories, y_index, sample_weight, batch_class_count, counts)
        present = np.zeros((n_classes, n_features))
        presence = _csr(categories.data, X.indices, X.indptr, X.shape)
        accumulate_class_counts(presence, y_index, sample_weight, np.zeros(n_classes), present)
        zero = _starts(new)
        counts[:, zero] = np.maximum(counts[:, zero] + (batch_class_count[:, None] - present), 0.0)
        stats["class_count_"] += batch_class_count
        stats["n_categories_"] = new
        stats["_category_counts"] = counts

    def _smoothed_log_prob(self, alpha):
        """log((N_cjv + alpha) / (N_c + alpha * n_j)) in the stacked layout, slots included."""
        n_categories = self.n_categories_
        starts, slots = _starts(n_categories), _starts(n_categories) + n_categories
        smoothed = self._category_counts + alpha
        smoothed[:, slots] = 0.0
        log_denominator = np.log(np.add.reduceat(smoothed, starts, axis=1))
        smoothed[:, slots] = alpha
        with np.errstate(divide="ignore"):
            np.log(smoothed, out=smoothed)
        smoothed -= np.repeat(log_denominator, n_categories + 1, axis=1)
        return smoothed

    def _update_feature_log_prob(self, alpha):
        self._set_log_prob(self._smoothed_log_prob(alpha))

    def _set_log_prob(self, log_prob):
        """Install the stacked log-probabilities and derive the scoring terms."""
        self._log_prob = log_prob
        n_categories = self.n_categories_
        log_zero = log_prob[:, _starts(n_categories)]
        self._log_zero_sum = log_zero.sum(axis=1)
        with np.errstate(invalid="ignore"):
            self._delta_table = np.ascontiguousarray((log_prob - np.repeat(log_zero, n_categories + 1, axis=1)).T)
        # alpha = 0 can leave log p = -inf, and -inf - (-inf) is NaN: scored separately.
        self._finite = bool(np.all(np.isfinite(log_prob)))

    # ---------------------------------------------------------- public lists
    def _blocks(self, stacked):
        n_categories = self.n_categories_
        return [stacked[:, s:s + n] for s, n in zip(_starts(n_categories), n_categories)]

    def _stacked(self, blocks, template):
        """``template`` with its category columns replaced by the horizontally stacked ``blocks``."""
        stacked = np.array(template, dtype=np.float64)
        stacked[:, _seen_columns(self.n_categories_)[2]] = np.hstack([np.asarray(b, dtype=np.float64) for b in blocks])
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
        """Weighted sample counts per class and category, one (n_classes, n_categories_[j]) array per feature."""
        try:
            return self._blocks(self._category_counts)
        except AttributeError:
            raise AttributeError("'CategoricalNB' object has no attribute 'category_count_'") from None

    @category_count_.setter
    def category_count_(self, value):
        n_categories = check_n_categories(self.n_categories_, self.n_features_in_)
        n_classes = len(self.classes_)
        _check_blocks(value, n_classes, n_categories, "category_count_")  # before the allocation they back
        self._category_counts = self._stacked(value, np.zeros((n_classes, int(np.sum(n_categories + 1)))))

    @property
    def feature_log_prob_(self):
        """log P(x_j = v | y), one (n_classes, n_categories_[j]) array per feature."""
        try:
            return self._blocks(self._log_prob)
        except AttributeError:
            raise AttributeError("'CategoricalNB' object has no attribute 'feature_log_prob_'") from None

    @feature_log_prob_.setter
    def feature_log_prob_(self, value):
        n_categories = check_n_categories(self.n_categories_, self.n_features_in_)
        _check_blocks(value, len(self.classes_), n_categories, "feature_log_prob_")
        if np.shape(self._category_counts) != (len(self.classes_), int(np.sum(n_categories + 1))):
            raise ValueError("set category_count_ (for the current n_categories_) before feature_log_prob_.")
        # The unseen slots are derived from the counts and alpha.
        log_prob = self._stacked(value, self._smoothed_log_prob(self._check_alpha(self.n_features_in_)))
        check_no_nan(log_prob, "feature_log_prob_")
        self._set_log_prob(log_prob)

    # ---------------------------------------------------------- scoring
    @classmethod
    def _complement_stats(cls, whole, part):
        return None  # the shards may have seen different categories: refitted

    @classmethod
    def _fitted_shapes(cls, fitted, n_classes, n_features):
        blocks = [(n_classes, int(n)) for n in check_n_categories(fitted["n_categories_"], n_features)]
        return {"class_count_": (n_classes,), "class_log_prior_": (n_classes,), "n_categories_": (n_features,),
                "category_count_": blocks, "feature_log_prob_": blocks}

    def _validate_fitted(self):
        _BaseNB._validate_fitted(self)  # its table has a row per category, not per feature
        n_classes = len(self.classes_)
        width = int(np.sum(check_n_categories(self.n_categories_, self.n_features_in_) + 1))
        for name, shape in (("_category_counts", (n_classes, width)), ("_log_prob", (n_classes, width)),
                            ("_delta_table", (width, n_classes)), ("class_log_prior_", (n_classes,))):
            if np.shape(getattr(self, name)) != shape:
                raise ValueError(f"{name.lstrip('_')} has shape {np.shape(getattr(self, name))}, expected {shape}.")
        check_counts(self.class_count_, "class_count_")
        check_counts(self._category_counts, "category_count_")
        check_no_nan(self._log_prob, "feature_log_prob_")
        check_log_prior(self.class_log_prior_, "class_log_prior_")

    def _linear_export(self):
        raise TypeError(
            "CategoricalNB's joint log-likelihood is not linear in x: it depends on each feature's category, and is "
            f"linear only in the one-hot encoding of x ({int(np.sum(self.n_categories_ + 1))} columns)."
        )

    def _linear_terms(self):
        return self._delta_table, self.class_log_prior_ + self._log_zero_sum, False, 0.0

    def _pair_terms(self, X, first, second):
        # entry k of the category matrix is entry k of X, moved to its category's column
        table, bias = self._linear_terms()[:2]
        terms, constant = pair_terms(self._category_matrix(X, self.n_categories_), table, bias, first, second)
        return terms_matrix(X, terms), constant

    def _feature_scores(self):
        # the linear model on the one-hot encoding: a term per (feature, category)
        feature, category, columns = _seen_columns(self.n_categories_)
        return contrast(self._log_prob[:, columns]), feature, category

    def _score(self, X, mode):
        # n_categories_ is checked where it is assigned; here its length: the kernel reads n_j for every feature j
        # of X.  The table's height is checked against the layout's width by the scoring.
        n_categories = self.n_categories_
        if n_categories.shape != (X.shape[1],):
            raise ValueError(f"n_categories_ has shape {n_categories.shape}, expected ({X.shape[1]},).")
        categories = self._category_matrix(X, n_categories)
        if self._finite:
            return super()._score(categories, mode)
        return self._score_with_impossible_categories(categories, mode)

    def _score_with_impossible_categories(self, categories, mode):
        """Exact scores when some log p(x_j = v | c) is -inf (alpha = 0).

        The finite part and the number of impossible categories of each row are
        both linear in the same stacked matrix; a class with at least one
        impossible category scores -inf.
        """
        impossible = np.isneginf(self._log_prob)
        finite = np.where(impossible, 0.0, self._log_prob)
        starts, width = _starts(self.n_categories_), self.n_categories_ + 1
        jll = categories @ (finite - np.repeat(finite[:, starts], width, axis=1)).T
        jll += self.class_log_prior_ + finite[:, starts].sum(axis=1)
        n_impossible = categories @ (impossible - np.repeat(impossible[:, starts], width, axis=1).astype(float)).T
        n_impossible += impossible[:, starts].sum(axis=1)
        jll[n_impossible > 0] = -np.inf
        return scores_from_joint_log_likelihood(jll, mode)

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.categorical = True
        return tags
