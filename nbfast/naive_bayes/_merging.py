"""What shards must share to be merged: one parameter set, the same classes and features."""

import numpy as np

from nbfast._compat import BaseEstimator
from nbfast._params import RUNTIME_PARAMS


def _model_params(model):
    """The parameters that shape a fitted model (``n_jobs`` does not)."""
    return {k: v for k, v in model.get_params(deep=False).items() if k not in RUNTIME_PARAMS}


def same_value(a, b):
    """Equality of two parameter values that may be arrays (alpha, class_prior) or lists of estimators with their
    columns (MixedNB's parts, equal when of the same classes and parameters); 1 equals 1.0, not True."""
    if isinstance(a, BaseEstimator) or isinstance(b, BaseEstimator):
        return type(a) is type(b) and same_value(_model_params(a), _model_params(b))
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(same_value(a[k], b[k]) for k in a)
    if isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)) and len(a) == len(b) and any(
            isinstance(v, (BaseEstimator, list, tuple, slice, str)) for v in (*a, *b)):
        return all(same_value(u, v) for u, v in zip(a, b))
    if any(isinstance(v, (np.ndarray, list, tuple)) for v in (a, b)):
        try:
            return np.array_equal(np.asarray(a), np.asarray(b))
        except (TypeError, ValueError):
            return False
    try:
        return bool(a == b) and isinstance(a, bool) == isinstance(b, bool)
    except (TypeError, ValueError):
        return False



def check_mergeable(cls, models):
    """Refuse (ValueError) ``models`` of ``cls`` that are not shards of one model: different parameters,
    numbers of features, classes or feature names."""
    first, name = models[0], cls.__name__
    params = _model_params(first)
    for position, model in enumerate(models[1:], start=1):
        other = _model_params(model)
        differing = sorted(k for k in params if not same_value(params[k], other[k]))
        if differing:
            shown = ", ".join(f"{k}={params[k]!r} vs {other[k]!r}" for k in differing)
            raise ValueError(f"Cannot merge {name} models with different parameters: model 0 and model "
                             f"{position} differ in {shown}.")
        if model.n_features_in_ != first.n_features_in_:
            raise ValueError(f"Cannot merge {name} models fitted on different numbers of features: model 0 has "
                             f"{first.n_features_in_}, model {position} has {model.n_features_in_}.")
        if not np.array_equal(model.classes_, first.classes_):
            raise ValueError(f"Cannot merge {name} models with different classes_: model 0 has "
                             f"{first.classes_.tolist()}, model {position} has {model.classes_.tolist()}; pass "
                             "the same `classes=` to partial_fit on every shard.")
        names, other_names = (getattr(m, "feature_names_in_", None) for m in (first, model))
        if (names is None) != (other_names is None) or (
                names is not None and not np.array_equal(names, other_names)):
            raise ValueError(f"Cannot merge {name} models fitted with different feature names "
                             f"(model 0 and model {position}).")
