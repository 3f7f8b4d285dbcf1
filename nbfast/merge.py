"""Merge Naive Bayes models fitted on disjoint shards into the model of their union.

Naive Bayes keeps sufficient statistics that add up across samples (class
counts, per-class feature sums, ...): the sum of the statistics of K models
fitted on K disjoint shards is the statistic of one model fitted on all of
them, so the merged model equals (to rounding) the one fitted on the union.
How an estimator's statistics combine is its own business: the contract's
``_merge`` and ``_merge_stats`` hooks (see :mod:`nbfast.naive_bayes._base`).
"""

from nbfast._validation import check_is_fitted
from nbfast.naive_bayes._base import _BaseNB
from nbfast.naive_bayes._capabilities import refuse_unless_incremental


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
        (their sum, or the estimator's own combination); its parameters
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
    first = models[0]
    for position, model in enumerate(models):
        if not isinstance(model, _BaseNB):
            raise TypeError(f"merge() takes nbfast Naive Bayes estimators; model {position} is a {type(model).__name__}.")
        if type(model) is not type(first):
            raise ValueError(f"Cannot merge models of different kinds: model 0 is {type(first).__name__}, model "
                             f"{position} is {type(model).__name__}.")
        check_is_fitted(model)
    refuse_unless_incremental(first, "merge()")
    return type(first)._merge(models)
