"""Correspondence with scikit-learn's ``sklearn.naive_bayes``: classes by name, parameters by name, and the
fitted state as each class's ``_fitted_attributes`` (which are scikit-learn's own attribute names) plus
``feature_names_in_``.  Every array is copied: the two models never share memory.
"""

import copy
import inspect

import numpy as np

from nbfast import _compat
from nbfast._params import RUNTIME_PARAMS


def sklearn_estimator(name):
    """scikit-learn's own ``sklearn.naive_bayes.<name>`` (None if it has none; scikit-learn's even while
    patched), or MissingDependency."""
    return _compat.sklearn_class("naive_bayes", name, "converting to or from scikit-learn")


def is_scikit_learn_naive_bayes(estimator):
    """Whether ``estimator`` is one of scikit-learn's Naive Bayes estimators (False without scikit-learn)."""
    naive_bayes = _compat.sklearn_module_if_loaded("naive_bayes")
    return naive_bayes is not None and isinstance(estimator, naive_bayes._BaseNB)


def copy_value(value):
    """A deep copy of an attribute value; arrays become C-contiguous copies."""
    if isinstance(value, np.ndarray):
        return np.array(value, order="C", copy=True)
    if isinstance(value, list):
        return [copy_value(v) for v in value]
    return copy.deepcopy(value)


def _is_default(value, default):
    if value is default:
        return True
    return type(value) is type(default) and not isinstance(value, np.ndarray) and value == default


def carry_params(params, source, target):
    """``params`` of a ``source`` estimator restricted to those ``target`` accepts.

    A parameter ``target`` lacks is dropped when it has its default value and
    refused otherwise: the converted model must behave the same.
    """
    accepted = set(target._get_param_names())
    defaults = inspect.signature(source.__init__).parameters
    carried = {}
    for name, value in params.items():
        if name in RUNTIME_PARAMS and name not in accepted:  # how nbfast computes, not what
            continue
        if name in accepted:
            carried[name] = copy_value(value)
        elif not _is_default(value, defaults[name].default):
            raise ValueError(f"{target.__module__}.{target.__name__} has no parameter {name!r} (set to {value!r}).")
    return carried


def fitted_state(estimator, names):
    if not hasattr(estimator, "classes_"):
        raise _compat.NotFittedError(f"This {type(estimator).__name__} instance is not fitted yet.")
    missing = [name for name in names if not hasattr(estimator, name)]
    if missing:
        raise ValueError(f"{type(estimator).__name__} lacks the fitted attributes {missing}.")
    return {name: copy_value(getattr(estimator, name)) for name in names}


def to_sklearn(model):
    """The scikit-learn equivalent of a fitted nbfast estimator.

    Parameters
    ----------
    model : nbfast estimator
        A fitted nbfast estimator that scikit-learn also has.

    Returns
    -------
    estimator : sklearn.naive_bayes estimator
        Same parameters and fitted attributes (copied).

    Raises
    ------
    TypeError
        If scikit-learn has no estimator of that name.
    NotFittedError
        If ``model`` is not fitted.
    """
    source = type(model)
    target = sklearn_estimator(source.__name__)
    if target is None or not issubclass(target, _compat.sklearn_module("base", "to_sklearn").BaseEstimator):
        raise TypeError(f"scikit-learn has no equivalent of nbfast's {source.__name__}.")
    estimator = target(**carry_params(model.get_params(deep=False), source, target))
    for name, value in fitted_state(model, source._fitted_attributes).items():
        setattr(estimator, name, value)
    feature_names = vars(model).get("feature_names_in_")
    if feature_names is not None:
        estimator.feature_names_in_ = copy_value(feature_names)
    return estimator
