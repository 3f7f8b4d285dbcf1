"""SemiSupervisedNB: a count model fitted on labelled and unlabelled rows by Expectation-Maximization.

Labels are expensive, documents cheap.  Nigam, McCallum, Thrun and Mitchell
("Text Classification from Labeled and Unlabeled Documents using EM",
Machine Learning 39, 2000) fit multinomial Naive Bayes on the labelled rows,
then alternate

- E-step: the posterior P(c | x_i) of every unlabelled row under the model;
- M-step: the model's statistics from the labelled rows (weight 1 for their
  class) plus every unlabelled row counted for every class c with weight
  ``unlabeled_weight * P(c | x_i)`` (their EM-lambda when below 1),

until the log-likelihood changes by less than ``tol``.  The count models'
smoothing makes each M-step a MAP estimate, so the objective EM never lowers
is the log-likelihood of the data plus the log prior of the parameters
(``_log_parameter_prior``), as in the paper.

The M-step statistics are class and feature sums weighted per class
(``_soft_label_accumulator``): the count models transpose X once per fit and
sum it feature by feature against the class weights, in O(nnz x n_classes)
per iteration; the (n_samples, n_classes) class weights are the only per-row
temporary.
"""

import numbers
import warnings
from numbers import Integral, Real

import numpy as np

from nbfast._compat import clone
from nbfast._kernels.scoring import Output
from nbfast._params import N_JOBS, Interval, checks_parameters, declare
from nbfast._validation import _feature_names, check_sample_weight, check_y, check_y_shape
from nbfast.naive_bayes._base import _StatisticsNB
from nbfast.naive_bayes._capabilities import NotIncremental
from nbfast.naive_bayes._counts import check_statistics
from nbfast.naive_bayes._labels import encode_labels, unique_classes
from nbfast.naive_bayes._wrapper import _WrapperNB


def split_labels(y, n_samples, unlabeled):
    """(mask of the unlabelled rows, the labels of the other rows) of ``y``, whose ``unlabeled`` entries mark
    the rows without a label; the labels are checked as any estimator's are."""
    if isinstance(unlabeled, (list, tuple, dict, set, np.ndarray)):
        raise TypeError(f"unlabeled must be one label value (the mark of unlabelled rows), got {unlabeled!r}.")
    y = check_y_shape(y, n_samples, stacklevel=4)
    if y.dtype.kind in "US" and not isinstance(unlabeled, str):
        raise ValueError(f"y holds strings, which unlabeled={unlabeled!r} cannot mark: pass the string that marks "
                         "the unlabelled rows, for example unlabeled=''.")
    if y.dtype.kind in "biuf" and (isinstance(unlabeled, (str, bytes)) or not isinstance(unlabeled, numbers.Number)):
        raise ValueError(f"y holds numbers, which unlabeled={unlabeled!r} cannot mark: pass the number that marks "
                         "the unlabelled rows (-1 by default).")
    unlabelled = np.asarray(y == unlabeled, dtype=bool)
    labelled = ~unlabelled
    n_labelled = int(labelled.sum())
    if n_labelled == 0:
        raise ValueError(f"y has no labelled row (every label is unlabeled={unlabeled!r}): EM starts from a model "
                         "fitted on the labelled rows.")
    return unlabelled, check_y(y[labelled], n_labelled)


def expectation(jll, labelled, y_index, row_weight, unlabelled_weight):
    """E-step, in place: joint log-likelihoods ``jll`` (n_samples, n_classes) become the M-step's class weights.

    A labelled row i becomes ``row_weight[i]`` for its class ``y_index`` (0 elsewhere); an unlabelled row
    becomes ``unlabelled_weight[i] * P(c | x_i)``.  Returns the weighted sum of the rows' log-likelihoods,
    log P(x_i, y_i) for labelled rows and log P(x_i) = logsumexp_c log P(x_i, c) for unlabelled ones (each
    up to a term that does not depend on the model), and the sum of their weights.  An unlabelled row that
    every class rules out (probability 0, possible with alpha=0) has no posterior: it gets weight 0, with a
    RuntimeWarning.
    """
    labelled_rows = np.flatnonzero(labelled)
    labelled_jll = jll[labelled_rows, y_index]
    # logsumexp per row, stable: m + log(sum_c exp(jll - m)), exp(jll - m) kept as the posteriors' numerators
    row_max = jll.max(axis=1)
    impossible = np.isneginf(row_max)
    row_max[impossible] = 0.0
    jll -= row_max[:, None]
    np.exp(jll, out=jll)
    total = jll.sum(axis=1)
    total[impossible] = 1.0
    log_evidence = row_max + np.log(total)
    weight = np.where(labelled | impossible, 0.0, unlabelled_weight)
    log_evidence[impossible] = 0.0
    impossible &= ~labelled
    if impossible.any():
        warnings.warn(f"{int(impossible.sum())} unlabelled row(s) give probability 0 to every class "
                      "(contradictory evidence): they are left out of the M-step.", RuntimeWarning, stacklevel=3)
    jll *= (weight / total)[:, None]
    jll[labelled_rows] = 0.0
    jll[labelled_rows, y_index] = row_weight[labelled_rows]
    labelled_weight = row_weight[labelled_rows]
    counted = labelled_weight > 0  # a row of weight 0 counts for nothing, even one whose class it rules out
    log_likelihood = np.dot(labelled_weight[counted], labelled_jll[counted]) + np.dot(weight, log_evidence)
    return float(log_likelihood), float(labelled_weight.sum() + weight.sum())


def _n_iter_of_older_files(fitted):
    """SemiSupervisedNB's fitted attributes as files saved before its n_iter_ counted the fit on the labelled rows
    hold them, in the current meaning.

    Then, n_iter_ was the number of EM iterations (0 when every row was labelled or max_iter=0) and
    log_likelihood_ held n_iter_ + 1 values: the labelled fit's, then one per iteration.  Now n_iter_ counts
    every model fitted, the labelled one included, and log_likelihood_ holds n_iter_ values, the same values.
    So a file whose log_likelihood_ has exactly one value more than n_iter_ is of the old layout, and its
    n_iter_ + 1 is the current n_iter_; a file of the current layout never has that mismatch, and any other
    mismatch is left to the fitted-state check, which refuses it."""
    n_iter, history = fitted.get("n_iter_"), fitted.get("log_likelihood_")
    if isinstance(n_iter, numbers.Integral) and not isinstance(n_iter, bool) and n_iter >= 0 and \
            isinstance(history, np.ndarray) and history.shape == (int(n_iter) + 1,):
        fitted["n_iter_"] = int(n_iter) + 1
    return fitted


class SemiSupervisedNB(_WrapperNB):
    """A count model fitted on labelled and unlabelled rows by Expectation-Maximization (Nigam et al., 2000).

    ``fit(X, y)`` takes rows whose label is ``unlabeled`` (-1, scikit-learn's
    convention for semi-supervised learning) as unlabelled.  The estimator is
    first fitted on the labelled rows; then each iteration computes the
    posteriors of the unlabelled rows (E-step) and refits the estimator on the
    labelled rows plus every unlabelled row counted for every class with
    weight ``unlabeled_weight * P(class | row)`` (M-step).  Iterations stop
    after ``max_iter`` or when the log-likelihood per row changes by less than
    ``tol``.  Predictions are those of the fitted estimator.

    Each iteration scores X once and sums it once per class weight, both
    O(nnz x n_classes) and parallel; the result is the same for any number of
    threads.  X is held once more, transposed, during the fit.

    Parameters
    ----------
    estimator : MultinomialNB, ComplementNB, BernoulliNB or PoissonNB, default=None
        The model to fit (MultinomialNB() when None); it is cloned, not changed.
        Other estimators raise TypeError: their statistics do not take soft labels.
    max_iter : int, default=10
        Most EM iterations (0: the estimator fitted on the labelled rows only).
    tol : float, default=1e-4
        Stop when an iteration changes ``log_likelihood_`` by less than this.
    unlabeled_weight : float, default=1.0
        Weight of each unlabelled row relative to a labelled one (Nigam et al.'s lambda;
        below 1 when the unlabelled rows outnumber the labelled ones and fit the model less well).
    unlabeled : label, default=-1
        The value of y marking unlabelled rows: a number for numeric labels, a string
        for string labels (y of dtype object may hold any value).

    Attributes
    ----------
    estimator_ : estimator
        The fitted model: predictions, posteriors and fitted tables are its.
    n_iter_ : int
        Models fitted: the one on the labelled rows, then one per EM iteration (1 when there is no
        unlabelled row or ``max_iter=0``, at most ``max_iter + 1``), as scikit-learn's
        SelfTrainingClassifier counts its first fit.
    log_likelihood_ : ndarray of shape (``n_iter_``,)
        The objective EM increases, of each model fitted (the one on the labelled rows and then the
        one after each iteration): the sum over rows of log P(x, y) (labelled rows) or log P(x) (unlabelled rows,
        times ``unlabeled_weight``), each times its sample weight and up to a term that does not
        depend on the model, plus the log prior of the parameters of which the smoothed estimates
        are the mode (Dirichlet, Beta or Gamma with exponents ``alpha``); divided by the total row
        weight.  ComplementNB is not a generative model: its value is a score that EM may lower.
    classes_ : ndarray of shape (n_classes,)
        The labels of the labelled rows.
    n_features_in_ : int

    References
    ----------
    Nigam, K., McCallum, A. K., Thrun, S., & Mitchell, T. (2000). Text classification from labeled and
    unlabeled documents using EM. Machine Learning, 39(2), 103-134.

    Examples
    --------
    >>> import numpy as np
    >>> from nbfast import MultinomialNB, SemiSupervisedNB
    >>> from nbfast.datasets import make_documents
    >>> X, y = make_documents(n_samples=3000, n_features=2000, n_classes=4, random_state=0)
    >>> y_partial = np.where(np.arange(3000) % 50 == 0, y, -1)   # 2% of the labels
    >>> model = SemiSupervisedNB(MultinomialNB()).fit(X[:2000], y_partial[:2000])
    >>> bool(np.all(np.diff(model.log_likelihood_) > -1e-3))
    True
    """

    _fitted_attributes = ("classes_", "n_features_in_", "estimator_", "n_iter_", "log_likelihood_")
    _older_layout = staticmethod(_n_iter_of_older_files)
    partial_fit = NotIncremental("EM revisits every row at each iteration: fit one SemiSupervisedNB on all the "
                                 "rows, or partial_fit and merge models on labelled shards.")
    _parameter_constraints = declare({
        "estimator": [object],  # an nbfast estimator or None: checked with the model it makes (_base_estimator)
        "max_iter": [Interval(Integral, 0, None, closed="left")],
        "tol": [Interval(Real, 0, None, closed="left")],
        "unlabeled_weight": [Interval(Real, 0, None, closed="left")],
        "unlabeled": [object],  # any one label value: checked against y
        **N_JOBS,
    })

    def __init__(self, estimator=None, *, max_iter=10, tol=1e-4, unlabeled_weight=1.0, unlabeled=-1,
                 n_jobs=None):
        self.estimator = estimator
        self.n_jobs = n_jobs
        self.max_iter = max_iter
        self.tol = tol
        self.unlabeled_weight = unlabeled_weight
        self.unlabeled = unlabeled

    @checks_parameters()
    def fit(self, X, y, sample_weight=None):
        """Fit the estimator on the labelled rows, then by EM on all of them.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Training vectors.
        y : array-like of shape (n_samples,)
            Labels, ``unlabeled`` (-1) for the unlabelled rows.
        sample_weight : array-like of shape (n_samples,), default=None
            Weights of the rows (an unlabelled row's is multiplied by ``unlabeled_weight``).

        Returns
        -------
        self : object
            The fitted model. A call that raises leaves it unchanged.
        """
        max_iter, tol, unlabeled_weight = int(self.max_iter), float(self.tol), float(self.unlabeled_weight)
        base = self._base_estimator()
        if not isinstance(base, _StatisticsNB):  # a search, a refined model: no statistics to weigh by posteriors
            raise TypeError(f"{type(base).__name__} does not learn from soft labels (class posteriors): "
                            "semi-supervised EM supports MultinomialNB, ComplementNB, BernoulliNB and PoissonNB.")
        feature_names = _feature_names(X)
        X = base._check_X(X, reset=True)
        n_samples, n_features = X.shape
        unlabelled, y_labelled = split_labels(y, n_samples, self.unlabeled)
        labelled = ~unlabelled
        sample_weight = check_sample_weight(sample_weight, n_samples)
        classes = unique_classes(y_labelled)
        y_index = encode_labels(classes, y_labelled)
        model = clone(base)
        params = model._validate_params(n_features, len(classes))
        accumulate = model._soft_label_accumulator(X)  # TypeError for a model without soft labels, before any work

        stats = model._init_stats(len(classes), n_features)
        model._accumulate(stats, X[labelled], y_index, None if sample_weight is None else sample_weight[labelled])
        check_statistics(stats)
        model._commit(stats, classes, n_features, feature_names, params)

        row_weight = np.ones(n_samples) if sample_weight is None else sample_weight
        unlabelled_weight = row_weight * unlabeled_weight
        log_likelihood = []
        n_iter = 0
        while True:
            class_weight = model._score(X, Output.JOINT_LOG_LIKELIHOOD)
            with np.errstate(divide="ignore", invalid="ignore", over="ignore"):  # refused below
                total, weight = expectation(class_weight, labelled, y_index, row_weight, unlabelled_weight)
                log_likelihood.append((total + model._log_parameter_prior()) / weight)
            if not np.isfinite(log_likelihood[-1]):
                raise ValueError(f"the log-likelihood of the rows is {log_likelihood[-1]} in float64: sample_weight "
                                 "is too small or too uneven; rescale it.")
            if n_iter == max_iter or not unlabelled.any() or (
                    n_iter > 0 and not abs(log_likelihood[-1] - log_likelihood[-2]) >= tol):
                break
            stats = model._init_stats(len(classes), n_features)
            accumulate(stats, class_weight)
            check_statistics(stats)
            model._commit(stats, classes, n_features, feature_names, params)
            n_iter += 1

        self._install_estimator(model)
        self.n_iter_ = n_iter + 1  # the fit on the labelled rows counts, as scikit-learn's n_iter_ >= 1
        self.log_likelihood_ = np.array(log_likelihood)
        return self

    # ------------------------------------------------------------ contract
    def _validate_fitted(self):
        super()._validate_fitted()
        n_iter = self.n_iter_
        if isinstance(n_iter, bool) or not isinstance(n_iter, numbers.Integral) or n_iter < 1:
            raise ValueError(f"n_iter_ must be a positive integer, got {n_iter!r}.")
        history = self.log_likelihood_
        if not isinstance(history, np.ndarray) or history.shape != (n_iter,) or history.dtype.kind != "f":
            raise ValueError(f"log_likelihood_ must be a float array of n_iter_ = {n_iter} values.")

    def _score(self, X, mode):
        return self.estimator_._score(X, mode)

    def _check_stored_values(self):
        """Nothing beyond ``_validate_fitted``: ``estimator_`` checks its own values."""
