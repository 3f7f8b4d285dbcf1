"""Two-way conversion between fitted nbfast estimators and scikit-learn's naive_bayes.

Generic over the estimator protocol: classes correspond by name
(``nbfast.MultinomialNB`` <-> ``sklearn.naive_bayes.MultinomialNB``, and so on),
parameters are carried over by name, and the fitted state is the nbfast class's
``_fitted_attributes`` (which, for the scikit-learn equivalents, are
scikit-learn's own attribute names) plus ``feature_names_in_``.  Every array is
copied: the two models never share memory.
"""

import copy
import inspect

import numpy as np

from nbfast._compat import NotFittedError
from nbfast.persist import estimator_classes, rebuild


def _naive_bayes():
    try:
        from sklearn import naive_bayes
    except ImportError:
        raise ImportError("converting to or from scikit-learn needs it installed: pip install 'nbfast[sklearn]'") from None
    return naive_bayes


def _copy(value):
    """A deep copy of an attribute value; arrays become C-contiguous copies."""
    if isinstance(value, np.ndarray):
        return np.array(value, order="C", copy=True)
    if isinstance(value, list):
        return [_copy(v) for v in value]
    return copy.deepcopy(value)


def _is_default(value, default):
    if value is default:
        return True
    return type(value) is type(default) and not isinstance(value, np.ndarray) and value == default


def _carry_params(params, source, target):
    """``params`` of a ``source`` estimator restricted to those ``target`` accepts.

    A parameter ``target`` lacks is dropped when it has its default value and
    refused otherwise: the converted model must behave the same.
    """
    accepted = set(target._get_param_names())
    defaults = inspect.signature(source.__init__).parameters
    carried = {}
    for name, value in params.items():
        if name in accepted:
            carried[name] = _copy(value)
        elif not _is_default(value, defaults[name].default):
            raise ValueError(f"{target.__module__}.{target.__name__} has no parameter {name!r} (set to {value!r}).")
    return carried


def _fitted_state(estimator, names):
    if not hasattr(estimator, "classes_"):
        raise NotFittedError(f"This {type(estimator).__name__} instance is not fitted yet.")
    missing = [name for name in names if not hasattr(estimator, name)]
    if missing:
        raise ValueError(f"{type(estimator).__name__} lacks the fitted attributes {missing}.")
    return {name: _copy(getattr(estimator, name)) for name in names}


def from_sklearn(estimator):
    """The nbfast equivalent of a fitted scikit-learn Naive Bayes estimator.

    Parameters
    ----------
    estimator : sklearn.naive_bayes estimator
        A fitted MultinomialNB, BernoulliNB, ComplementNB, CategoricalNB or
        GaussianNB from scikit-learn.

    Returns
    -------
    model : nbfast estimator
        The nbfast class of the same name, with the same parameters and fitted
        attributes (copied), so it makes the same predictions.

    Raises
    ------
    TypeError
        If ``estimator`` is not a scikit-learn Naive Bayes estimator with an
        nbfast equivalent.
    NotFittedError
        If it is not fitted.
    """
    naive_bayes = _naive_bayes()
    source = type(estimator)
    if getattr(naive_bayes, source.__name__, None) is not source:
        raise TypeError(f"from_sklearn expects an estimator from sklearn.naive_bayes, got {source.__qualname__}.")
    target = estimator_classes().get(source.__name__)
    if target is None:
        raise TypeError(f"nbfast has no equivalent of scikit-learn's {source.__name__}.")
    params = _carry_params(estimator.get_params(deep=False), source, target)
    fitted = _fitted_state(estimator, target._fitted_attributes)
    feature_names = getattr(estimator, "feature_names_in_", None)
    return rebuild(target, params, fitted, None if feature_names is None else _copy(feature_names))


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
    naive_bayes = _naive_bayes()
    source = type(model)
    target = getattr(naive_bayes, source.__name__, None)
    if not isinstance(target, type) or not hasattr(target, "_get_param_names"):
        raise TypeError(f"scikit-learn has no equivalent of nbfast's {source.__name__}.")
    estimator = target(**_carry_params(model.get_params(deep=False), source, target))
    for name, value in _fitted_state(model, source._fitted_attributes).items():
        setattr(estimator, name, value)
    feature_names = getattr(model, "feature_names_in_", None)
    if feature_names is not None:
        estimator.feature_names_in_ = _copy(feature_names)
    return estimator
