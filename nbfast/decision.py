"""What to do with posteriors: prior shift, Bayes decisions with a reject option,
and fusion of separately trained models.

Everything here is vectorized numpy over whole (n_samples, n_classes) arrays,
or a compiled kernel (``decide``): no Python loop runs per row.  ``decide``, ``fuse``, ``shift_prior`` and
``predict_with_reject`` need only posteriors, so they work with any classifier
that has ``predict_proba``; ``with_prior`` rewrites a fitted Naive Bayes model.
"""

import copy
import numbers

import numpy as np

from nbfast._kernels.decision import decide_rows
from nbfast._kernels.threads import effective_n_threads
from nbfast._validation import check_class_prior, check_is_fitted
from nbfast.interop import from_sklearn, to_sklearn
from nbfast.naive_bayes._base import _BaseNB
from nbfast.naive_bayes._sklearn import is_scikit_learn_naive_bayes as _is_scikit_learn_naive_bayes
from nbfast.naive_bayes._terms import log_normalize


# ----------------------------------------------------------------- helpers
def _check_probabilities(proba, name="proba", n_classes=None, keep_float32=False):
    """A finite, non-negative 2-D C-contiguous float64 (or kept float32) array (n_samples, n_classes)."""
    proba = np.asarray(proba)
    proba = np.ascontiguousarray(proba, dtype=np.float32 if keep_float32 and proba.dtype == np.float32 else np.float64)
    if proba.ndim != 2:
        raise ValueError(f"{name} must be a 2-D array (n_samples, n_classes); got shape {proba.shape}.")
    if proba.shape[1] < 1:
        raise ValueError(f"{name} must have at least one class (column); got shape {proba.shape}.")
    if n_classes is not None and proba.shape[1] != n_classes:
        raise ValueError(f"{name} has {proba.shape[1]} classes (columns), expected {n_classes}.")
    if not np.all(np.isfinite(proba)) or np.any(proba < 0):
        raise ValueError(f"{name} must hold finite non-negative probabilities.")
    return proba


def _check_log_probabilities(log_proba, name, n_classes=None):
    """A 2-D float64 array of log-probabilities (<= 0, -inf allowed)."""
    log_proba = np.asarray(log_proba, dtype=np.float64)
    if log_proba.ndim != 2 or (n_classes is not None and log_proba.shape[1] != n_classes):
        raise ValueError(
            f"{name} must be a 2-D array of log-probabilities with {n_classes} classes; got shape {log_proba.shape}."
        )
    if np.any(np.isnan(log_proba)) or np.any(log_proba > 0):
        raise ValueError(f"{name} must hold log-probabilities (<= 0, -inf allowed).")
    return log_proba


def _log(a):
    with np.errstate(divide="ignore"):  # log 0 = -inf: an impossible class
        return np.log(a)


# ------------------------------------------------------------------ priors
def with_prior(model, prior):
    """A fitted copy of a Naive Bayes model deployed on new class frequencies.

    The scaled-likelihood trick: the copy's posteriors are

        p(y | x)  proportional to  p_train(y | x) / p_train(y) * prior(y),

    obtained without refitting by replacing the prior in the joint
    log-likelihood log p(y) + log p(x | y).  For the discrete models (and
    GaussianNB) this equals refitting with ``class_prior=prior`` (``priors=``
    for GaussianNB); the copy also carries that parameter, so a later
    ``partial_fit`` keeps the new prior.  The original model is not modified.

    Parameters
    ----------
    model : fitted Naive Bayes estimator
        Any nbfast estimator (MixedNB included, its parts follow), or a fitted
        scikit-learn Naive Bayes estimator (which has ``class_log_prior_`` or
        ``class_prior_``).  For any other classifier use :func:`shift_prior`
        on its ``predict_proba``.
    prior : array-like of shape (n_classes,)
        New class probabilities in the order of ``model.classes_``; non-negative,
        summing to 1.

    Returns
    -------
    shifted : estimator
        A deep copy of ``model`` with the new prior.

    Raises
    ------
    ValueError
        If the prior is malformed, or the model does not use its class prior
        (ComplementNB with two classes or more, like scikit-learn's, has no
        prior term to shift; shift its posteriors with :func:`shift_prior`).
    """
    if not isinstance(model, _BaseNB):
        if not _is_scikit_learn_naive_bayes(model):
            raise TypeError(
                f"{type(model).__name__} is not a Naive Bayes model (nbfast's or scikit-learn's): for any classifier, "
                "shift its predict_proba with nbfast.shift_prior."
            )
        return to_sklearn(with_prior(from_sklearn(model), prior))
    check_is_fitted(model)
    prior = check_class_prior(prior, len(model.classes_), "prior")
    if not model._uses_class_prior():
        raise ValueError(
            f"{type(model).__name__} does not add its class prior to the joint log-likelihood, so there is no "
            "prior to replace; use nbfast.shift_prior(model.predict_proba(X), train_prior, prior) instead."
        )
    shifted = copy.deepcopy(model)
    shifted._set_log_prior(_log(prior))
    shifted._set_prior_param(prior.copy())
    return shifted


def shift_prior(proba, train_prior, prior):
    """Shift posteriors of any classifier from its training prior to a new one.

    ``p(y|x)`` proportional to ``proba(y|x) / train_prior(y) * prior(y)``,
    computed in log space.  A class with ``train_prior`` 0 gets probability 0.

    Parameters
    ----------
    proba : array-like of shape (n_samples, n_classes)
        Posteriors (``predict_proba``) of a model trained with ``train_prior``.
    train_prior : array-like of shape (n_classes,)
        Class frequencies the model was trained with.
    prior : array-like of shape (n_classes,)
        Class frequencies to deploy on.

    Returns
    -------
    proba : ndarray of shape (n_samples, n_classes)
        Shifted posteriors; rows sum to 1.
    """
    proba = _check_probabilities(proba)
    n_classes = proba.shape[1]
    train_prior = check_class_prior(train_prior, n_classes, "train_prior")
    prior = check_class_prior(prior, n_classes, "prior")
    log_scores = _log(proba)
    log_scores += np.where(train_prior > 0, _log(prior) - _log(np.where(train_prior > 0, train_prior, 1.0)), -np.inf)
    return log_normalize(log_scores)


# --------------------------------------------------------------- decisions
def _check_loss(loss, n_classes):
    loss = np.ascontiguousarray(loss, dtype=np.float64)
    if loss.shape != (n_classes, n_classes):
        raise ValueError(f"loss must be a {(n_classes, n_classes)} matrix (n_classes, n_classes); got shape {loss.shape}.")
    if not np.all(np.isfinite(loss)):
        raise ValueError("loss must hold finite values.")
    return loss


def _check_reject_cost(reject_cost):
    if (
        not isinstance(reject_cost, numbers.Real)
        or isinstance(reject_cost, bool)
        or not np.isfinite(reject_cost)
        or reject_cost < 0
    ):
        raise ValueError(f"reject_cost must be a finite non-negative number; got {reject_cost!r}.")
    return float(reject_cost)


def decide(proba, loss=None, reject_cost=None):
    """Bayes decisions: per row, the action of minimum expected loss.

    The expected loss of predicting class j is ``sum_i proba[i] * loss[i, j]``
    (``proba @ loss``, summed over i in index order).  With ``reject_cost`` there is one more action, reject
    (index -1), which costs ``reject_cost`` whatever the true class; it is taken
    only when it is strictly cheaper than the best class.

    Rows are posteriors (non-negative, summing to 1).  With 0-1 loss
    (``loss=None``) the best class is the most probable one and a
    row is rejected exactly when ``max(proba) < 1 - reject_cost`` (Chow's rule);
    this case is computed from the maximum directly (in float64), so the
    equivalence holds bit for bit.

    Computed row by row in a parallel compiled kernel, without the
    (n_samples, n_classes) array of expected losses; float32 posteriors are
    read as they are.

    Ties: between classes, the lowest index wins (as ``argmax``/``argmin``);
    between the best class and reject, the class wins (``max(proba) == 1 -
    reject_cost`` is not rejected).

    Parameters
    ----------
    proba : array-like of shape (n_samples, n_classes)
        Posterior probabilities, for example ``predict_proba(X)``.
    loss : array-like of shape (n_classes, n_classes), default=None
        ``loss[true, predicted]``; None is the 0-1 loss ``1 - eye(n_classes)``.
    reject_cost : float, default=None
        Cost of rejecting a row (abstaining); None disables rejection.

    Returns
    -------
    action : ndarray of shape (n_samples,), dtype intp
        Column index of the chosen class, or -1 for reject.

    Examples
    --------
    >>> import numpy as np
    >>> from nbfast import decide
    >>> decide(np.array([[0.9, 0.1], [0.55, 0.45]]), reject_cost=0.2)
    array([ 0, -1])
    """
    proba = _check_probabilities(proba, keep_float32=True)
    use_loss, reject = loss is not None, reject_cost is not None
    loss = _check_loss(loss, proba.shape[1]) if use_loss else np.empty((0, 0))
    reject_cost = _check_reject_cost(reject_cost) if reject else 0.0
    action = np.empty(proba.shape[0], dtype=np.intp)
    decide_rows(proba, loss, use_loss, reject, reject_cost, action, effective_n_threads(proba.size))
    return action


def predict_with_reject(model, X, *, loss=None, reject_cost=None, reject_label=None):
    """Labels of minimum expected loss, with a reject label for rows not worth deciding.

    ``decide(model.predict_proba(X), loss, reject_cost)`` mapped back to
    ``model.classes_``.  Works with any fitted classifier that has
    ``predict_proba`` and ``classes_``.

    Parameters
    ----------
    model : fitted classifier
    X : {array-like, sparse matrix} of shape (n_samples, n_features)
    loss : array-like of shape (n_classes, n_classes), default=None
        ``loss[true, predicted]``; None is the 0-1 loss.
    reject_cost : float, default=None
        Cost of rejecting; None never rejects.
    reject_label : object, default=None
        Label given to rejected rows.

    Returns
    -------
    labels : ndarray of shape (n_samples,)
        Of the classes' dtype when ``reject_label`` fits in it (for example -1
        with integer classes, or a string with string classes), else of dtype
        object.
    """
    classes = np.asarray(model.classes_)
    action = decide(model.predict_proba(X), loss=loss, reject_cost=reject_cost)
    try:
        dtype = np.result_type(classes.dtype, np.asarray(reject_label).dtype)
    except TypeError:  # no common type (e.g. ints and a string)
        dtype = np.dtype(object)
    same_kind = dtype.kind == classes.dtype.kind or (classes.dtype.kind == "u" and dtype.kind == "i")
    if reject_label is None or not same_kind:  # e.g. uint64 classes and -1 would promote to float
        dtype = np.dtype(object)
    labels = classes.astype(dtype)[np.maximum(action, 0)]
    labels[action < 0] = reject_label
    return labels


# ------------------------------------------------------------------ ranking
def best_classes(proba, class_index, k):
    """(class indices, probabilities), each (n_samples, k), of each row's k most probable classes.

    The first is ``class_index``, the predicted class; the others follow by decreasing probability, equal ones
    in the order of the model's classes (each pass takes the first largest).  k passes over the rows cost less
    than sorting them for the few classes asked for.
    """
    rows = np.arange(proba.shape[0])
    index, remaining = np.empty((proba.shape[0], k), np.int64), proba.copy()
    index[:, 0] = class_index
    for j in range(k):
        if j:
            index[:, j] = np.argmax(remaining, axis=1)
        remaining[rows, index[:, j]] = -np.inf
    return index, proba[rows[:, None], index]


# ------------------------------------------------------------------ fusion
def fuse(probas, prior, *, log=False):
    """Fuse the posteriors of models trained on different views of the same samples.

    Under the Naive Bayes assumption that the views x_1..x_K are independent
    given the class,

        p(y | x_1..x_K)  proportional to  prod_k p(y | x_k) / prior(y)^(K-1),

    computed in log space.  A zero posterior (log 0 = -inf) rules a class out
    without producing NaN; a class with prior 0 is ruled out.  A row in which
    every class is ruled out (contradictory evidence) becomes NaN, with a
    RuntimeWarning.

    Parameters
    ----------
    probas : sequence of K array-likes of shape (n_samples, n_classes)
        Posteriors of each model (``predict_proba``), columns in the same class order.
    prior : array-like of shape (n_classes,)
        The class prior the models were trained with (the same for all; bring
        models trained on other priors to this one first with :func:`shift_prior`).
    log : bool, default=False
        If True, ``probas`` are log-posteriors (``predict_log_proba``, more
        precise where posteriors underflow to 0) and log-posteriors are returned.

    Returns
    -------
    proba : ndarray of shape (n_samples, n_classes)
        Fused posteriors (or log-posteriors when ``log``); rows sum to 1.
    """
    probas = list(probas)
    if not probas:
        raise ValueError("fuse needs at least one array of posteriors.")
    log_scores = None
    for k, proba in enumerate(probas):
        n_classes = None if log_scores is None else log_scores.shape[1]
        if log:
            term = _check_log_probabilities(proba, f"probas[{k}]", n_classes)
        else:
            term = _log(_check_probabilities(proba, f"probas[{k}]", n_classes))
        if log_scores is None:
            log_scores = term.copy() if log else term  # normalized in place below: never the caller's array
        elif term.shape != log_scores.shape:
            raise ValueError(f"probas[{k}] has shape {term.shape}, expected {log_scores.shape}.")
        else:
            log_scores += term
    prior = check_class_prior(prior, log_scores.shape[1], "prior")
    possible = prior > 0
    # Dividing by prior^(K-1); a class of prior 0 is impossible (and must not give -inf + inf).
    log_scores += np.where(possible, -(len(probas) - 1) * _log(np.where(possible, prior, 1.0)), -np.inf)
    return log_normalize(log_scores, log=log)
