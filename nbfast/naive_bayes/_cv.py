"""Cross-validated smoothing for the count models: MultinomialNBCV, ComplementNBCV, BernoulliNBCV,
PoissonNBCV and CategoricalNBCV, in the convention of scikit-learn's ``RidgeCV`` and ``LogisticRegressionCV``.

Each searches a grid of ``alphas`` by cross-validation and ends as the model
refitted on all rows with the best one.  They give the scores, the best alpha
and the final model that ``GridSearchCV(MultinomialNB(), {"alpha": alphas})``
gives for the same splitter and scoring, at about the cost of one fit plus the
scoring, whatever the number of alphas:

- X is checked once (the base model's ``_check_X``); the folds are lists of
  its rows, which the counting and scoring kernels read in place: no fold is
  copied (but for the models and tables counted or scored otherwise, below).
- The statistics of these models add up over rows and do not depend on alpha.
  When the test sets of the splits partition the rows and each training set is
  the rest (K-fold, stratified or not, grouped), the rows of each test set are
  counted once; the model of a training set is the sum of the other folds'
  counts, never a refit.  Summed, not subtracted from the total: integer counts
  give exactly the counts of a fit on the training rows, and a feature absent
  from them keeps a count of exactly 0.  The models that search several alphas
  at once (MultinomialNB, ComplementNB) count every fold in one pass over X when
  their statistics are compact (a large vocabulary), each fold's counts on the
  pattern of all the rows' (``FoldCounts``), so that a training set's counts
  are a few vector additions; the others count each fold and merge them
  (nbfast's model merging).  Other splitters (shuffled or repeated splits)
  count each training set once.
- Each alpha is a rebuild of the tables from those counts (no refit).  Those
  compact MultinomialNB and ComplementNB models build the compact tables of
  every alpha at once (``_search_terms``, the logs of whole counts read from
  a table) and score a fold's test rows for every alpha in one pass
  (``folds.score_alphas``), a row's cost its nonzeros' entries times the
  alphas, never n_classes x n_features.  The count models with a dense linear
  table (MultinomialNB, ComplementNB, BernoulliNB, PoissonNB) score a fold's
  test rows for every alpha in one pass of the fused kernel (``score_csr``
  with ``block_width``), the alphas' tables side by side.  Either way the rows
  are read once per block of alphas (within a memory budget, so that memory
  does not grow with alphas x rows), not once per alpha.  CategoricalNB, other
  compact tables and missing values are scored by the model's own scoring,
  once per alpha.
- Each row's labels and posteriors are those ``predict`` and ``predict_proba``
  compute (the same table, bias, order of the sums and normalization), and the scores are what
  scikit-learn 1.9's scorers make of them: accuracy, or the log loss of posteriors clipped to
  [eps, 1 - eps], weighted by the test rows' ``sample_weight``.
- The final model is the sum of every fold's counts with the best alpha (a
  refit on all rows for other splitters): a fit on all the rows.

Composition, not subclassing: a CV estimator takes ``alphas`` where its base
model takes ``alpha``, so it cannot be that model with other parameters; a
subclass would inherit ``alpha``, ``partial_fit`` and merging, none of which
mean anything for a search.  It holds the final model in ``estimator_`` and
hands it every prediction; the base model's fitted attributes
(``feature_log_prob_``, ``class_count_``, ...) read through to it.

The search reads these hooks of the base models: ``_check_X`` and
``_validate_params`` (once), ``_fit_checked`` (counting rows of the checked X),
``_fit_statistics`` (a model of counts summed over folds), ``_merge`` (summing
the folds' counts), ``_derive_params`` (the tables for another checked alpha),
``_score``, for the stacked scoring ``_linear_terms``, ``_kernel_threshold``,
``_score_outside_the_linear_form`` and ``_ignores_missing``, and for the
tables of every alpha at once ``_searches_alphas_at_once``,
``_has_compact_table``, ``_check_alpha`` and ``_search_terms``.
"""

import numbers
from numbers import Integral

import numpy as np

from nbfast import _compat
from nbfast._compat import clone
from nbfast._params import StrOptions, checks_parameters, declare, declared
from nbfast._validation import _feature_names, check_sample_weight, check_y
from nbfast.naive_bayes._capabilities import NotIncremental
from nbfast.naive_bayes._categorical import CategoricalNB
from nbfast.naive_bayes._cv_scores import rank_scores, scores_of_alphas, searches_alphas_at_once
from nbfast.naive_bayes._discrete import BernoulliNB, ComplementNB, MultinomialNB, PoissonNB
from nbfast.naive_bayes._fold_counts import FoldCounts
from nbfast.naive_bayes._labels import encode_labels, unique_classes
from nbfast.naive_bayes._wrapper import _WrapperNB

#: The smoothing values searched by default.
DEFAULT_ALPHAS = (0.01, 0.1, 0.3, 1.0, 3.0)
#: The scorings a CV estimator computes (scikit-learn's names).
SCORINGS = ("accuracy", "neg_log_loss")


def _cv_constraints(base_class):
    """The CV parameters' constraints and the base model's, but for its ``alpha``."""
    base = {name: allowed for name, allowed in declared(base_class).items() if name != "alpha"}
    return declare({"alphas": ["array-like"], "cv": ["cv_object"], "scoring": [StrOptions(set(SCORINGS))], **base})


def _is_partition(splits, n_samples):
    """Whether the test sets partition the rows and every training set is the rest of them."""
    tests = np.concatenate([test for _, test in splits])
    if tests.shape[0] != n_samples or np.bincount(tests, minlength=n_samples).max(initial=0) > 1:
        return False
    for train, test in splits:
        rows = np.zeros(n_samples, dtype=np.int8)
        rows[train] = 1
        rows[test] += 2
        if train.shape[0] + test.shape[0] != n_samples or not np.all(rows > 0) or np.any(rows == 3):
            return False
    return True


def _row_indices(rows, n_samples, k, which):
    """The rows of a split's ``which`` set as intp indices in [0, n_samples): as given, negative ones counted
    from the end, or a boolean mask of the rows (as scikit-learn indexes X with them)."""
    rows = np.asarray(rows)
    if rows.dtype == bool and rows.shape == (n_samples,):
        return np.flatnonzero(rows)
    if rows.ndim != 1 or not (np.issubdtype(rows.dtype, np.integer) or rows.shape[0] == 0):
        raise ValueError(f"the {which} rows of split {k} must be a 1-D array of row indices or a boolean mask of "
                         f"the {n_samples} rows, got an array of dtype {rows.dtype} and shape {rows.shape}.")
    if rows.shape[0] and not -n_samples <= rows.min() <= rows.max() < n_samples:
        raise ValueError(f"the {which} rows of split {k} hold an index out of range for {n_samples} rows.")
    return np.where(rows < 0, rows + n_samples, rows).astype(np.intp, copy=False)


def _delegated(name):
    """A read-only attribute read from the final model, ``estimator_``."""
    def get(self):
        return getattr(self.estimator_, name)

    return property(get, doc=f"``{name}`` of the final model, ``estimator_``.")


class _CountNBCV(_WrapperNB):
    """A count model whose ``alpha`` is chosen by cross-validation; subclasses name the model, ``_base_class``."""

    _base_class = None
    _prior_param = "class_prior"
    _fitted_attributes = ("classes_", "n_features_in_", "estimator_", "alpha_", "best_score_", "n_splits_",
                          "cv_results_")
    partial_fit = NotIncremental("The search needs all the rows at once: update or merge the fitted estimator_ "
                                 "models instead, which were fitted with the same alpha.")

    def __init__(self, *, alphas=DEFAULT_ALPHAS, cv=None, scoring="accuracy", force_alpha=True, fit_prior=True,
                 class_prior=None, n_jobs=None):
        self.alphas = alphas
        self.n_jobs = n_jobs
        self.cv = cv
        self.scoring = scoring
        self.force_alpha = force_alpha
        self.fit_prior = fit_prior
        self.class_prior = class_prior

    def _set_prior_param(self, prior):
        """``class_prior``, this search's and its final model's: a refit of either keeps the new prior."""
        self.estimator_._set_prior_param(prior.copy())
        self.set_params(class_prior=prior)

    def _base_estimator(self, alpha=1.0):
        """The base model with these parameters and this ``alpha``."""
        names = [name for name in self._base_class._get_param_names() if name != "alpha"]
        return self._base_class(alpha=alpha, **{name: getattr(self, name) for name in names})

    def _check_alphas(self):
        alphas = self.alphas
        try:
            values = np.asarray(alphas, dtype=np.float64)
        except (TypeError, ValueError):
            values = None
        if values is None or values.ndim != 1 or values.shape[0] == 0:
            raise ValueError(f"alphas must be a non-empty 1-D sequence of numbers, got {alphas!r}.")
        if not np.all((values >= 0) & np.isfinite(values)):
            raise ValueError(f"alphas must be finite and non-negative, got {alphas!r}.")
        return values

    @checks_parameters()
    def fit(self, X, y, sample_weight=None):
        """Choose ``alpha`` by cross-validation, then fit the final model on all rows with it.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Training vectors.
        y : array-like of shape (n_samples,)
            Target values.
        sample_weight : array-like of shape (n_samples,), default=None
            Weights of the rows, in every fit (those of the search and the
            final one) and in the test scores (weighted means over the test
            rows), as GridSearchCV uses a ``sample_weight`` passed to its
            ``fit``.

        Returns
        -------
        self : object
            The fitted estimator. A call that raises leaves it unchanged.
        """
        if y is None:
            raise ValueError(f"{type(self).__name__} requires y to be passed, but the target y is None.")
        alphas = self._check_alphas()
        base = self._base_estimator(float(alphas[0]))  # of parameters checked as this search's own
        feature_names = _feature_names(X)
        X = base._check_X(X, reset=True)  # once: the folds are rows of this X
        y = check_y(y, X.shape[0])
        sample_weight = check_sample_weight(sample_weight, X.shape[0])
        classes = unique_classes(y)
        params = base._validate_params(X.shape[1], len(classes))
        # every alpha of the search checked before any is fitted, as the base model applies it
        smoothing = [params["alpha"]] + [self._base_estimator(float(alpha))._check_alpha(X.shape[1])
                                         for alpha in alphas[1:]]
        y_index = encode_labels(classes, y)
        splits = self._splits(X, y, classes, y_index)
        for k, (_, test) in enumerate(splits if sample_weight is not None else ()):
            if not np.any(sample_weight[test] > 0):  # a weighted mean over them has no value
                raise ValueError(f"the test rows of split {k} all have sample_weight 0, so they cannot score the "
                                 "alphas: give them weight, or choose other splits (cv).")

        training, final = self._counted(base, alphas, X, y_index, classes, sample_weight, splits, feature_names)
        scores = np.empty((len(splits), alphas.shape[0]))
        for k, (_, test) in enumerate(splits):
            weights = None if sample_weight is None else sample_weight[test]
            scores[k] = scores_of_alphas(training(k), alphas, smoothing, X, test, y_index[test], weights,
                                         self.scoring)
        results = self._results(self.alphas, scores)
        best = int(results["rank_test_score"].argmin())  # the first of the best, in the order given
        alpha = list(self.alphas)[best]  # as given, as GridSearchCV's best_params_ holds it
        self._install_estimator(final(alpha))
        self.alpha_ = alpha
        self.best_score_ = float(results["mean_test_score"][best])
        self.n_splits_ = len(splits)
        self.cv_results_ = results
        return self

    def _counted(self, base, alphas, X, y_index, classes, sample_weight, splits, feature_names):
        """(training, final): ``training(k)`` is the model of split k's training rows, ``final(alpha)`` the model
        of every row with that alpha, each a copy of ``base`` with the statistics of those rows."""
        def counted(rows, alpha=base.alpha):  # the statistics of these rows, counted in place where the model can
            model = clone(base).set_params(alpha=alpha)
            return model._fit_checked(X, y_index, classes, sample_weight, feature_names, rows=rows)

        if not _is_partition(splits, X.shape[0]):
            return (lambda k: counted(splits[k][0])), lambda alpha: counted(None, alpha)
        by_fold = self._fold_counts(alphas, X, y_index, len(classes), sample_weight, splits)
        if by_fold is not None:  # every fold counted in one pass

            def summed(which, alpha=base.alpha):
                counts, class_count = by_fold.of_folds(which)
                stats = {"class_count_": class_count, "_feature_counts": counts}
                model = clone(base).set_params(alpha=alpha)
                params = model._validate_params(X.shape[1], len(classes))
                return model._fit_statistics(stats, classes, X.shape[1], params, feature_names)

            every = list(range(len(splits)))
            return (lambda k: summed(every[:k] + every[k + 1:])), lambda alpha: summed(every, alpha)
        folds = [counted(test) for _, test in splits]

        def merged(k):  # the statistics of the training rows: the sum of the other folds'
            return self._base_class._merge([fold for j, fold in enumerate(folds) if j != k])

        def final(alpha):  # every row's statistics: the sum of the folds'
            for fold in folds:
                fold.set_params(alpha=alpha)
            return self._base_class._merge(folds)

        return merged, final

    def _fold_counts(self, alphas, X, y_index, n_classes, sample_weight, splits):
        """The FoldCounts of the test sets (which partition the rows) when the base model searches several alphas
        at once and would keep compact statistics of X, compact tables for every alpha; else None."""
        n_features = X.shape[1]
        if not (searches_alphas_at_once(self._base_class) and FoldCounts.input_fits(X, n_classes)
                and all(self._base_estimator(float(alpha))._has_compact_table() for alpha in alphas)):
            return None
        fold = np.empty(X.shape[0], dtype=np.intp)
        for k, (_, test) in enumerate(splits):
            fold[test] = k
        counts = FoldCounts.count(X, y_index, fold, sample_weight, n_classes, len(splits))
        return counts if counts.kept_compact(n_features) else None

    def _splits(self, X, y, classes, y_index):
        """The (train, test) row indices of ``cv`` (intp arrays, each index in range: the kernels read these rows
        in place), made and checked before any counting; ``y_index`` is each row's index into ``classes``."""
        model_selection = _compat.sklearn_module("model_selection", f"{type(self).__name__} (cross-validation)")
        cv = model_selection.check_cv(self.cv, y, classifier=True)
        splits = [(_row_indices(train, y.shape[0], k, "training"), _row_indices(test, y.shape[0], k, "test"))
                  for k, (train, test) in enumerate(cv.split(X, y))]
        for k, (train, test) in enumerate(splits):
            missing = classes[np.bincount(y_index[train], minlength=classes.shape[0]) == 0].tolist()
            if missing:
                raise ValueError(f"the training rows of split {k} hold no sample of class {missing[0]!r}: every "
                                 "training set needs every class (use a stratified splitter).")
            if test.shape[0] == 0:
                raise ValueError(f"split {k} has no test rows.")
        return splits

    @staticmethod
    def _results(alphas, scores):
        """``cv_results_`` as GridSearchCV names and computes its test-score entries; ``scores`` is
        (n_splits, n_alphas)."""
        by_alpha = scores.T
        means = np.average(by_alpha, axis=1)
        results = {
            "param_alpha": np.asarray(alphas, dtype=np.float64),
            "params": [{"alpha": alpha} for alpha in alphas],
            **{f"split{k}_test_score": scores[k] for k in range(scores.shape[0])},
            "mean_test_score": means,
            "std_test_score": np.sqrt(np.average((by_alpha - means[:, None]) ** 2, axis=1)),
            "rank_test_score": rank_scores(means),
        }
        return results

    # ------------------------------------------------------------ contract
    def _validate_fitted(self):
        super()._validate_fitted()
        if type(self.estimator_) is not self._base_class:
            raise ValueError(f"estimator_ must be a fitted {self._base_class.__name__}.")
        alpha = self.alpha_
        if isinstance(alpha, bool) or not isinstance(alpha, numbers.Real) or not 0 <= alpha < np.inf:
            raise ValueError(f"alpha_ must be a finite non-negative number, got {alpha!r}.")
        if not isinstance(self.n_splits_, Integral) or not isinstance(self.cv_results_, dict):
            raise ValueError("n_splits_ must be an integer and cv_results_ a dict.")

    def _score(self, X, mode):
        return self.estimator_._score(X, mode)

    def _pair_terms(self, X, first, second):
        return self.estimator_._pair_terms(X, first, second)

    def _feature_scores(self):
        return self.estimator_._feature_scores()

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags = self._base_estimator().__sklearn_tags__().input_tags  # the inputs the base model takes
        return tags

    def _check_stored_values(self):
        """Nothing beyond ``_validate_fitted``: ``estimator_``, the refitted model, checks its own values."""


#: The parameters, attributes and notes every CV estimator shares, filled into their docstrings.
_SHARED_DOC = {
    "cv_parameters": """alphas : array-like of float, default=(0.01, 0.1, 0.3, 1.0, 3.0)
        The smoothing values searched (each >= 0), in the order that breaks
        ties: the first of the best mean scores wins, as in GridSearchCV.
    cv : int, cross-validation generator, iterable of (train, test) or None, default=None
        The splits, as scikit-learn's ``check_cv`` makes them: None for 5
        folds, an int for that many, stratified by class.  Every training set
        must hold every class.
    scoring : {"accuracy", "neg_log_loss"}, default="accuracy"
        The score of each alpha on each test set (weighted by ``fit``'s
        ``sample_weight``, as GridSearchCV weighs it).""",
    "force_alpha": """force_alpha : bool, default=True
        If False and an alpha is less than 1e-10, it is set to 1e-10.""",
    "fit_prior": """fit_prior : bool, default=True
        Whether to learn class prior probabilities; if False a uniform prior is used.""",
    "class_prior": """class_prior : array-like of shape (n_classes,), default=None
        Prior probabilities of the classes (must sum to 1); not adjusted to the data.""",
    "cv_attributes": """alpha_ : float
        The alpha of the best mean test score (an entry of ``alphas``).
    best_score_ : float
        Its mean test score.
    cv_results_ : dict of ndarray
        Per alpha, named as GridSearchCV names them: ``param_alpha``,
        ``params``, ``split{k}_test_score``, ``mean_test_score``,
        ``std_test_score``, ``rank_test_score``.
    n_splits_ : int
        Number of splits.
    estimator_ : {base}
        The final model, fitted on all rows with ``alpha_``: every prediction
        is its prediction, and its fitted attributes (``class_count_``,
        ``feature_log_prob_``, ...) read as this model's.
    classes_ : ndarray of shape (n_classes,)
        Class labels, sorted.
    n_features_in_ : int
        Number of features seen during fit.""",
    "cv_notes": """Needs scikit-learn (the splitter).  Gives the scores and the best alpha
    of ``GridSearchCV({base}(), {"alpha": alphas}, cv=cv, scoring=scoring)``
    and its refitted model, at about the cost of one fit plus the scoring.
    A model file of a fitted model holds the final model and the search's
    results; it can be saved when ``cv`` is None or an int.  There is no
    ``partial_fit``: the search needs all rows at once.""",
}


def _with_fitted_attributes_of_base(cls):
    """Class decorator: the shared docstring parts filled in, and the base model's fitted attributes read
    through to ``estimator_``."""
    base = cls._base_class.__name__
    for key, text in _SHARED_DOC.items():
        cls.__doc__ = cls.__doc__.replace(f"{{{key}}}", text.replace("{base}", base))
    for name in cls._base_class._fitted_attributes:
        if name not in vars(_WrapperNB) and name not in ("classes_", "n_features_in_"):
            setattr(cls, name, _delegated(name))
    return cls


@_with_fitted_attributes_of_base
class MultinomialNBCV(_CountNBCV):
    """Multinomial Naive Bayes with its smoothing ``alpha`` chosen by cross-validation.

    Parameters
    ----------
    {cv_parameters}
    {force_alpha}
    {fit_prior}
    {class_prior}

    Attributes
    ----------
    {cv_attributes}

    Notes
    -----
    {cv_notes}

    Examples
    --------
    >>> from nbfast import MultinomialNBCV
    >>> from nbfast.datasets import make_documents
    >>> X, y = make_documents(n_samples=2000, n_features=500, n_classes=3, random_state=0)
    >>> model = MultinomialNBCV(alphas=[0.1, 1.0, 10.0], cv=5).fit(X, y)
    >>> float(model.alpha_) in (0.1, 1.0, 10.0)
    True
    >>> model.predict(X[:3]).shape
    (3,)
    """

    _base_class = MultinomialNB
    _parameter_constraints = _cv_constraints(MultinomialNB)


@_with_fitted_attributes_of_base
class ComplementNBCV(_CountNBCV):
    """Complement Naive Bayes with its smoothing ``alpha`` chosen by cross-validation.

    Parameters
    ----------
    {cv_parameters}
    {force_alpha}
    fit_prior : bool, default=True
        Only used in the edge case of a single class in the training set.
    class_prior : array-like of shape (n_classes,), default=None
        Prior probabilities of the classes. Not used (validated only).
    norm : bool, default=False
        Whether a second normalization of the weights is performed.

    Attributes
    ----------
    {cv_attributes}

    Notes
    -----
    {cv_notes}

    Examples
    --------
    >>> from nbfast import ComplementNBCV
    >>> from nbfast.datasets import make_documents
    >>> X, y = make_documents(n_samples=2000, n_features=500, n_classes=3, random_state=0)
    >>> model = ComplementNBCV(scoring="neg_log_loss").fit(X, y)
    >>> sorted(model.cv_results_)[:3]
    ['mean_test_score', 'param_alpha', 'params']
    """

    _base_class = ComplementNB
    _parameter_constraints = _cv_constraints(ComplementNB)

    def __init__(self, *, alphas=DEFAULT_ALPHAS, cv=None, scoring="accuracy", force_alpha=True, fit_prior=True,
                 class_prior=None, norm=False, n_jobs=None):
        super().__init__(alphas=alphas, cv=cv, scoring=scoring, force_alpha=force_alpha, fit_prior=fit_prior,
                         class_prior=class_prior, n_jobs=n_jobs)
        self.norm = norm


@_with_fitted_attributes_of_base
class BernoulliNBCV(_CountNBCV):
    """Bernoulli Naive Bayes with its smoothing ``alpha`` chosen by cross-validation.

    Parameters
    ----------
    {cv_parameters}
    {force_alpha}
    binarize : float or None, default=0.0
        Threshold (>= 0) for binarizing features; None takes X as binary.
    {fit_prior}
    {class_prior}
    missing : {"error", "ignore"}, default="error"
        What NaN in X is: an error, or a missing value left out (see
        :class:`nbfast.BernoulliNB`).

    Attributes
    ----------
    {cv_attributes}

    Notes
    -----
    {cv_notes}

    Examples
    --------
    >>> from nbfast import BernoulliNBCV
    >>> from nbfast.datasets import make_documents
    >>> X, y = make_documents(n_samples=2000, n_features=500, n_classes=3, random_state=0)
    >>> model = BernoulliNBCV(alphas=[0.5, 1.0]).fit(X, y)
    >>> model.feature_log_prob_.shape
    (3, 500)
    """

    _base_class = BernoulliNB
    _parameter_constraints = _cv_constraints(BernoulliNB)

    def __init__(self, *, alphas=DEFAULT_ALPHAS, cv=None, scoring="accuracy", force_alpha=True, binarize=0.0,
                 fit_prior=True, class_prior=None, missing="error", n_jobs=None):
        super().__init__(alphas=alphas, cv=cv, scoring=scoring, force_alpha=force_alpha, fit_prior=fit_prior,
                         class_prior=class_prior, n_jobs=n_jobs)
        self.binarize = binarize
        self.missing = missing

    @property
    def observed_count_(self):
        """``observed_count_`` of the final model (fitted with ``missing="ignore"`` only)."""
        return self.estimator_.observed_count_


@_with_fitted_attributes_of_base
class PoissonNBCV(_CountNBCV):
    """Poisson Naive Bayes with its prior shape ``alpha`` chosen by cross-validation.

    Parameters
    ----------
    {cv_parameters}
    beta : float, default=1.0
        Rate of the Gamma prior: pseudo-samples added to every class; must be > 0.
    {fit_prior}
    {class_prior}
    {force_alpha}

    Attributes
    ----------
    {cv_attributes}

    Notes
    -----
    {cv_notes}

    Examples
    --------
    >>> from nbfast import PoissonNBCV
    >>> from nbfast.datasets import make_documents
    >>> X, y = make_documents(n_samples=2000, n_features=500, n_classes=3, random_state=0)
    >>> model = PoissonNBCV(cv=3).fit(X, y)
    >>> model.n_splits_
    3
    """

    _base_class = PoissonNB
    _parameter_constraints = _cv_constraints(PoissonNB)

    def __init__(self, *, alphas=DEFAULT_ALPHAS, cv=None, scoring="accuracy", beta=1.0, fit_prior=True,
                 class_prior=None, force_alpha=True, n_jobs=None):
        super().__init__(alphas=alphas, cv=cv, scoring=scoring, force_alpha=force_alpha, fit_prior=fit_prior,
                         class_prior=class_prior, n_jobs=n_jobs)
        self.beta = beta


@_with_fitted_attributes_of_base
class CategoricalNBCV(_CountNBCV):
    """Categorical Naive Bayes with its smoothing ``alpha`` chosen by cross-validation.

    Parameters
    ----------
    {cv_parameters}
    {force_alpha}
    {fit_prior}
    {class_prior}
    min_categories : int or array-like of shape (n_features,), default=None
        Minimum number of categories per feature (see :class:`nbfast.CategoricalNB`).
    max_categories : int, default=None
        Largest number of categories a feature may have (see :class:`nbfast.CategoricalNB`).
    missing : {"error", "ignore"}, default="error"
        What NaN in X is: an error, or a missing value left out.

    Attributes
    ----------
    {cv_attributes}

    Notes
    -----
    {cv_notes}

    Examples
    --------
    >>> import numpy as np
    >>> from nbfast import CategoricalNBCV
    >>> rng = np.random.RandomState(0)
    >>> X, y = rng.randint(4, size=(300, 5)), rng.randint(2, size=300)
    >>> model = CategoricalNBCV(alphas=[0.5, 1.0, 2.0]).fit(X, y)
    >>> model.predict_proba(X[:2]).shape
    (2, 2)
    """

    _base_class = CategoricalNB
    _parameter_constraints = _cv_constraints(CategoricalNB)

    def __init__(self, *, alphas=DEFAULT_ALPHAS, cv=None, scoring="accuracy", force_alpha=True, fit_prior=True,
                 class_prior=None, min_categories=None, max_categories=None, missing="error", n_jobs=None):
        super().__init__(alphas=alphas, cv=cv, scoring=scoring, force_alpha=force_alpha, fit_prior=fit_prior,
                         class_prior=class_prior, n_jobs=n_jobs)
        self.min_categories = min_categories
        self.max_categories = max_categories
        self.missing = missing

