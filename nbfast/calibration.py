"""Calibrated posteriors: temperature scaling of a fitted Naive Bayes model (see :class:`nbfast.CalibratedNB`)."""

import copy

import numpy as np

from nbfast._compat import clone
from nbfast._validation import check_is_fitted, check_y
from nbfast.evaluation import RELIABILITY_BINS, calibration_error, reliability_counts
from nbfast.naive_bayes._base import _BaseNB, encode_labels
from nbfast.naive_bayes._calibrated import CalibratedNB, fit_temperature

__all__ = ["calibrate", "calibrate_from_scores", "expected_calibration_error"]


def calibrate(model, X, y, method="temperature", cv=None):
    """A calibrated copy of a Naive Bayes model: posteriors softmax(jll / T) with T fitted on (X, y).

    Parameters
    ----------
    model : nbfast Naive Bayes estimator
        With ``cv=None``, a fitted model and (X, y) rows it was not trained on;
        with ``cv=K``, (X, y) are the training rows: the model is fitted on
        them (a fitted ``model`` is refitted) and the temperature on its
        out-of-fold joint log-likelihoods.
    X : {array-like, sparse matrix} of shape (n_samples, n_features)
    y : array-like of shape (n_samples,)
    method : {"temperature"}, default="temperature"
        The calibration map: one temperature on the joint log-likelihood.
    cv : int or None, default=None
        None for held-out rows, or the number of folds (at least 2).

    Returns
    -------
    calibrated : CalibratedNB
        ``predict`` is the model's; ``predict_proba`` and ``predict_log_proba``
        use the temperature, and so do the decision functions fed with them.
        The model itself is not modified.

    Examples
    --------
    >>> import nbfast
    >>> from nbfast.datasets import make_documents
    >>> X, y = make_documents(n_samples=4000, n_features=500, n_classes=3, random_state=0)
    >>> model = nbfast.MultinomialNB().fit(X[:3000], y[:3000])
    >>> calibrated = nbfast.calibrate(model, X[3000:], y[3000:])
    >>> bool((calibrated.predict(X) == model.predict(X)).all())
    True
    """
    if method != "temperature":
        raise ValueError(f"method must be 'temperature', got {method!r}.")
    if not isinstance(model, _BaseNB):
        raise TypeError(f"model must be an nbfast Naive Bayes estimator, got {type(model).__name__}.")
    if cv is not None:
        return CalibratedNB(clone(model), cv=cv).fit(X, y)
    check_is_fitted(model)
    return calibrate_from_scores(model, model.predict_joint_log_proba(X), y)


def calibrate_from_scores(model, jll, y, cv=None):
    """A calibrated copy of a fitted model, its temperature fitted on joint log-likelihoods it gave rows it did not
    learn from (held out, or out of fold when ``cv`` folds gave them), whose true labels are ``y``.

    Parameters
    ----------
    model : fitted nbfast Naive Bayes estimator
    jll : ndarray of shape (n_samples, n_classes)
    y : array-like of shape (n_samples,)
    cv : int or None, default=None
        The folds that gave ``jll``, recorded as the parameter of the result.

    Returns
    -------
    calibrated : CalibratedNB
    """
    temperature = fit_temperature(jll, encode_labels(model.classes_, check_y(y, jll.shape[0])))
    calibrated = CalibratedNB(clone(model), cv=cv)
    calibrated._install(copy.deepcopy(model), temperature)
    return calibrated


def expected_calibration_error(proba, y_true, classes, n_bins=RELIABILITY_BINS):
    """The expected calibration error of posteriors: how far confidence is from accuracy, on average.

    Rows are binned by their confidence (the largest posterior) into
    ``n_bins`` equal-width bins; the error is the average over bins of
    ``|accuracy - mean confidence|``, weighted by the bins' shares of the rows
    (Naeini et al., AAAI 2015; Guo et al., ICML 2017).

    Parameters
    ----------
    proba : array-like of shape (n_samples, n_classes)
        Posteriors, columns in the order of ``classes``.
    y_true : array-like of shape (n_samples,)
        True labels.
    classes : array-like of shape (n_classes,)
        The labels of the columns (a model's ``classes_``).
    n_bins : int, default=15

    Returns
    -------
    ece : float
        In [0, 1]; 0 for perfectly calibrated confidences.
    """
    proba = np.asarray(proba, dtype=np.float64)
    classes = np.asarray(classes)
    if proba.ndim != 2 or proba.shape[1] != len(classes) or proba.shape[0] != len(y_true) or not len(y_true):
        raise ValueError(f"proba must have shape (n_samples, {len(classes)}) for {len(y_true)} labels; "
                         f"got {proba.shape}.")
    correct = classes[proba.argmax(axis=1)] == np.asarray(y_true)
    return calibration_error(reliability_counts(proba.max(axis=1), correct, n_bins))
