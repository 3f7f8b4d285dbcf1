"""Merge Naive Bayes models fitted on disjoint shards into the model of their union.

Naive Bayes keeps sufficient statistics that add up across samples (class
counts, per-class feature sums, ...): the sum of the statistics of K models
fitted on K disjoint shards is the statistic of one model fitted on all of
them, so the merged model equals (to rounding) the one fitted on the union.

Estimators whose statistics do not simply add (GaussianNB's means and
variances, CategoricalNB's per-feature category counts) override the
combination with one of two classmethod hooks, looked up in this order::

    @classmethod
    def _merge(cls, models):
        '''Return the merged fitted model (the estimator checks compatibility itself).'''

    @classmethod
    def _merge_stats(cls, models):
        '''Return {attribute name: merged value} for the checked, compatible ``models``.'''

Without either, the statistics named in ``_stat_names`` are summed.  The values
of ``_merge_stats`` (or the sums) are set, in the dict's order, on a copy of
the first model, then ``_update_params()`` derives the parameters from them.
"""

import copy

import numpy as np

from nbfast._base import _BaseNB
from nbfast._validation import check_is_fitted


def _same_value(a, b):
    """Equality of two parameter values that may be arrays (alpha, class_prior); 1 equals 1.0, not True."""
    if any(isinstance(v, (np.ndarray, list, tuple)) for v in (a, b)):
        try:
            return np.array_equal(np.asarray(a), np.asarray(b))
        except (TypeError, ValueError):
            return False
    try:
        return bool(a == b) and isinstance(a, bool) == isinstance(b, bool)
    except (TypeError, ValueError):
        return False


def _check_compatible(models):
    first = models[0]
    for position, model in enumerate(models):
        if not isinstance(model, _BaseNB):
            raise TypeError(f"merge() takes nbfast Naive Bayes estimators; model {position} is a {type(model).__name__}.")
        check_is_fitted(model)
    name = type(first).__name__
    params = first.get_params(deep=False)
    for position, model in enumerate(models[1:], start=1):
        if type(model) is not type(first):
            raise ValueError(f"Cannot merge models of different kinds: model 0 is {name}, model {position} is "
                             f"{type(model).__name__}.")
        other = model.get_params(deep=False)
        differing = sorted(k for k in params if not _same_value(params[k], other[k]))
        if differing:
            shown = ", ".join(f"{k}={params[k]!r} vs {other[k]!r}" for k in differing)
            raise ValueError(f"Cannot merge {name} models with different parameters: model 0 and model {position} "
                             f"differ in {shown}.")
        if model.n_features_in_ != first.n_features_in_:
            raise ValueError(f"Cannot merge {name} models fitted on different numbers of features: model 0 has "
                             f"{first.n_features_in_}, model {position} has {model.n_features_in_}.")
        if not np.array_equal(model.classes_, first.classes_):
            raise ValueError(f"Cannot merge {name} models with different classes_: model 0 has "
                             f"{first.classes_.tolist()}, model {position} has {model.classes_.tolist()}; pass the "
                             "same `classes=` to partial_fit on every shard.")
        names, other_names = (getattr(m, "feature_names_in_", None) for m in (first, model))
        if (names is None) != (other_names is None) or (names is not None and not np.array_equal(names, other_names)):
            raise ValueError(f"Cannot merge {name} models fitted with different feature names "
                             f"(model 0 and model {position}).")


def sum_stats(models):
    """The default combination: the elementwise sum of every statistic in ``_stat_names``.

    A statistic may be an array or a list of arrays (one per feature).
    """
    merged = {}
    for name in type(models[0])._stat_names:
        values = [getattr(model, name) for model in models]
        if isinstance(values[0], (list, tuple)):
            merged[name] = [np.sum([np.asarray(v[j], dtype=np.float64) for v in values], axis=0)
                            for j in range(len(values[0]))]
        else:
            merged[name] = np.sum([np.asarray(v, dtype=np.float64) for v in values], axis=0)
    return merged


def merge(models):
    """Merge models fitted on disjoint shards into the model fitted on their union.

    Parameters
    ----------
    models : sequence of fitted nbfast estimators
        Models of one class, with the same parameters, ``classes_`` and
        ``n_features_in_`` (fit every shard with the same ``classes=``).

    Returns
    -------
    model : estimator
        A new fitted estimator whose statistics combine those of ``models``
        (their sum, or the estimator's ``_merge`` / ``_merge_stats`` hook); its parameters
        equal, to rounding, those of one model fitted on all the shards. The
        inputs are not modified.

    Examples
    --------
    >>> import numpy as np
    >>> from nbfast import MultinomialNB, merge
    >>> X = np.array([[1, 0], [0, 2], [3, 1], [0, 1]])
    >>> y = np.array([0, 1, 0, 1])
    >>> a = MultinomialNB().partial_fit(X[:2], y[:2], classes=[0, 1])
    >>> b = MultinomialNB().partial_fit(X[2:], y[2:], classes=[0, 1])
    >>> merged = merge([a, b])
    >>> np.allclose(merged.feature_log_prob_, MultinomialNB().fit(X, y).feature_log_prob_)
    True
    """
    models = list(models)
    if not models:
        raise ValueError("merge() needs at least one model.")
    whole = getattr(type(models[0]), "_merge", None)
    if whole is not None and all(type(model) is type(models[0]) for model in models):
        return whole(models)
    _check_compatible(models)
    combine = getattr(type(models[0]), "_merge_stats", None)
    stats = combine(models) if combine is not None else sum_stats(models)
    merged = copy.deepcopy(models[0])
    for name, value in stats.items():
        setattr(merged, name, value)
    merged._update_params()
    return merged
