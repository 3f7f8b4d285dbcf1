"""CalibratedNB: a Naive Bayes model whose posteriors are temperature scaled.

Naive Bayes posteriors are overconfident: the independence assumption counts
correlated evidence many times.  One temperature T > 0 on the joint
log-likelihood, posterior = softmax(jll / T), fitted by minimizing the log-loss
on rows the model did not learn from, corrects most of it (Guo et al., "On
Calibration of Modern Neural Networks", ICML 2017).  The labels do not change:
the argmax of jll / T is the argmax of jll.

The rows are either held out (:func:`nbfast.calibrate` with ``cv=None``) or
the model's own training rows scored out of fold (``cv=K``).  For the count
models, whose statistics add up, the model of all folds but k is the full
model's statistics minus fold k's (``_complement_stats``): out-of-fold scores
cost about one fit and one scoring pass, not K fits.
"""

import copy
import numbers
from numbers import Integral

import numpy as np

from nbfast import _sparse as sp
from nbfast._compat import clone
from nbfast._kernels.scoring import Output
from nbfast._params import N_JOBS, Interval, Refined, check_parameters, checks_parameters, declare
from nbfast._validation import check_number_in_range, check_y
from nbfast.naive_bayes._capabilities import NotIncremental
from nbfast.naive_bayes._labels import encode_labels
from nbfast.naive_bayes._terms import scores_from_joint_log_likelihood
from nbfast.naive_bayes._wrapper import _WrapperNB

#: Rows per chunk when the log-loss is evaluated: temporaries stay at this many rows x n_classes.
_CHUNK_ROWS = 1 << 16
#: The temperature is searched in [1/_RANGE, _RANGE].
_RANGE = 1e4


def _log_loss(jll, y_index, inverse_temperature):
    """Mean negative log posterior of the true classes under softmax(jll * inverse_temperature), in row chunks."""
    from scipy.special import logsumexp  # imported here: scipy.special takes longer to import than nbfast

    total = 0.0
    for start in range(0, jll.shape[0], _CHUNK_ROWS):
        scaled = jll[start:start + _CHUNK_ROWS] * inverse_temperature
        rows = np.arange(scaled.shape[0])
        with np.errstate(invalid="ignore"):  # -inf - -inf for a class ruled out in every row
            log_posterior = scaled[rows, y_index[start:start + _CHUNK_ROWS]] - logsumexp(scaled, axis=1)
        total -= np.maximum(log_posterior, np.log(1e-15)).sum()  # clipped as sklearn.metrics.log_loss does
    return total / jll.shape[0]


def fit_temperature(jll, y_index):
    """The temperature minimizing the log-loss of softmax(jll / T) for the true classes ``y_index``.

    The log-loss is convex in 1/T (a log-sum-exp of functions linear in 1/T,
    minus one of them), so a bounded scalar search over log(1/T) finds its
    minimum.
    """
    from scipy.optimize import minimize_scalar  # imported here: scipy.optimize takes longer to import than nbfast

    result = minimize_scalar(
        lambda log_beta: _log_loss(jll, y_index, np.exp(log_beta)),
        bounds=(-np.log(_RANGE), np.log(_RANGE)), method="bounded", options={"xatol": 1e-10},
    )
    return float(np.exp(-result.x))


def _folds(y_index, n_folds):
    """The fold of each row: its rank among the rows of its class, modulo n_folds (deterministic, stratified)."""
    order = np.argsort(y_index, kind="stable")
    rank = np.empty_like(order)
    starts = np.searchsorted(y_index[order], y_index[order], side="left")
    rank[order] = np.arange(len(order)) - starts
    return rank % n_folds


def out_of_fold_jll(estimator, X, y, n_folds):
    """(fitted model on all rows, joint log-likelihood of every row under the model of the other folds).

    For estimators whose statistics subtract (``_complement_stats``), the
    model of the other folds is the full statistics minus the fold's, so each
    fold is fitted once; others are refitted on the other folds.
    """
    full = clone(estimator).fit(X, y)  # X checked, with the estimator's messages
    X = _rows_selectable(X)
    fold = _folds(encode_labels(full.classes_, check_y(y, X.shape[0])), n_folds)
    jll = np.empty((X.shape[0], len(full.classes_)))
    y = np.asarray(y)
    for k in range(n_folds):
        inside = fold == k
        if not inside.any():
            continue
        part = clone(estimator).partial_fit(X[inside], y[inside], classes=full.classes_)
        stats = type(full)._complement_stats(full, part)
        if stats is None:
            others = clone(estimator).partial_fit(X[~inside], y[~inside], classes=full.classes_)
        else:
            others = _with_stats(full, stats)
        jll[inside] = others.predict_joint_log_proba(X[inside])
    return full, jll


def _rows_selectable(X):
    """X in a form whose rows a boolean mask selects: sparse matrices as CSR (COO and DIA have no indexing, BSR
    no boolean one), sequences as arrays; arrays and data frames as they are (column names kept)."""
    if sp.issparse(X) or isinstance(X, sp.Rows):
        return sp.as_csr(X).tocsr()
    return X if hasattr(X, "shape") and hasattr(X, "__getitem__") else np.asarray(X)


def other_folds_model(full, fold_models, k):
    """The model of every fold but k, from the full model and the fold models (fitted with the same classes).

    The full statistics minus fold k's where they subtract, else the other folds merged (exact either way).
    """
    stats = type(full)._complement_stats(full, fold_models[k])
    if stats is None:
        return type(full)._merge([model for j, model in enumerate(fold_models) if j != k])
    return _with_stats(full, stats)


def _with_stats(model, stats):
    """A copy of a fitted model with these statistics, its parameters derived from them."""
    others = copy.deepcopy(model)
    for name, value in stats.items():
        setattr(others, name, value)
    others._derive_params(others._fitted_params())
    return others


#: The folds ``cv`` may ask for.
_FOLDS = Interval(Integral, 2, None, closed="left")


class CalibratedNB(_WrapperNB):
    """A Naive Bayes model with temperature-scaled posteriors: ``softmax(jll / temperature_)``.

    ``predict_proba``, ``predict_log_proba`` (and so ``nbfast.decide``,
    ``predict_with_reject``, ``score``-like uses of posteriors) use the
    temperature; ``predict`` and ``predict_joint_log_proba`` are those of the
    underlying model.  Fitting fits the estimator on all rows and the
    temperature on its out-of-fold joint log-likelihoods; to calibrate an
    already fitted model on held-out rows, use :func:`nbfast.calibrate`.

    Parameters
    ----------
    estimator : nbfast Naive Bayes estimator, default=None
        The model to calibrate (MultinomialNB when None).
    cv : int, default=5
        Folds for the out-of-fold joint log-likelihoods (at least 2).

    Attributes
    ----------
    estimator_ : estimator
        The fitted underlying model.
    temperature_ : float
        The fitted temperature (1.0 leaves the posteriors unchanged).
    classes_ : ndarray of shape (n_classes,)
    n_features_in_ : int

    Examples
    --------
    >>> from nbfast import CalibratedNB, MultinomialNB
    >>> from nbfast.datasets import make_documents
    >>> X, y = make_documents(n_samples=2000, n_features=500, n_classes=3, random_state=0)
    >>> model = CalibratedNB(MultinomialNB(), cv=5).fit(X, y)
    >>> bool(model.temperature_ > 0)
    True
    """

    _fitted_attributes = ("classes_", "n_features_in_", "estimator_", "temperature_")
    partial_fit = NotIncremental("Its temperature is fitted on held-out scores of all the rows: partial_fit or merge "
                                 "the underlying models, then calibrate the result with nbfast.calibrate(model, "
                                 "X_heldout, y_heldout).")
    _parameter_constraints = declare({
        "estimator": [object],  # an nbfast estimator or None: checked with the model it makes (_base_estimator)
        "cv": [Refined(_FOLDS.is_satisfied_by, f"{_FOLDS} (nbfast.calibrate(model, X, y) calibrates a fitted model "
                       "on held-out rows)", sklearn=_FOLDS)], **N_JOBS,
    })

    def __init__(self, estimator=None, *, cv=5, n_jobs=None):
        self.estimator = estimator
        self.n_jobs = n_jobs
        self.cv = cv

    @checks_parameters()
    def fit(self, X, y, sample_weight=None):
        """Fit the estimator on (X, y) and the temperature on its out-of-fold joint log-likelihoods.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
        y : array-like of shape (n_samples,)
        sample_weight : None
            Not supported (the folds would need weighted statistics).

        Returns
        -------
        self : object
        """
        if sample_weight is not None:
            raise ValueError("CalibratedNB does not support sample_weight.")
        full, jll = out_of_fold_jll(self._base_estimator(), X, y, int(self.cv))
        temperature = fit_temperature(jll, encode_labels(full.classes_, check_y(y, jll.shape[0])))
        self._install(full, temperature)
        return self

    def _install(self, model, temperature):
        self._install_estimator(model)
        self.temperature_ = temperature

    # ------------------------------------------------------------ contract
    def _validate_fitted(self):
        super()._validate_fitted()
        temperature = self.temperature_
        if isinstance(temperature, bool) or not isinstance(temperature, numbers.Real) or not 0 < temperature < np.inf:
            raise ValueError(f"temperature_ must be a positive finite number, got {temperature!r}.")

    def _score(self, X, mode):
        if mode in (Output.ARGMAX, Output.JOINT_LOG_LIKELIHOOD) or self.temperature_ == 1.0:
            return self.estimator_._score(X, mode)  # T = 1: exactly the model's posteriors
        jll = self.estimator_._score(X, Output.JOINT_LOG_LIKELIHOOD)
        jll /= self.temperature_
        return scores_from_joint_log_likelihood(jll, mode)

    def _check_stored_values(self):
        """Its number of folds and a temperature within the range a fit searches (``estimator_`` checks its own)."""
        check_parameters(self, ("cv",))
        check_number_in_range(self.temperature_, "temperature_", 1 / _RANGE * (1 - 1e-9), _RANGE * (1 + 1e-9))
