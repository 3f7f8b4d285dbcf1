"""What a fitted model stores: its saved forms, and the checks of stored values that estimators share.

A model file (or any other source of fitted attributes) holds one of an estimator's saved forms: its
``_fitted_attributes``, with ``observed_count_`` when the estimator keeps that statistic and the model was fitted
with missing values, or its ``_compact_attributes``.  :func:`saved_form` says which one a set of names is; the
model-file reader and :func:`nbfast._validation.rebuild` both ask it, as ``_BaseNB._saved_form``.

A stored value must also be one a fit produces (finite log-probabilities, priors that sum to 1, ...): each
estimator states its own in its ``_check_stored_values`` hook, with the checks of :mod:`nbfast._validation` and the
ones several estimators share below.
"""

from typing import NamedTuple

import numpy as np

from nbfast._validation import (
    check_log_probabilities,
    check_normalized_log_prior,
    check_scoring_bias,
    check_table_values,
)
from nbfast.naive_bayes._merging import same_value
from nbfast.naive_bayes._tables import as_table

#: The optional statistic of models fitted with missing values (see ``_BaseNB._keeps_observed_count``).
OBSERVED_COUNT = "observed_count_"


class SavedForm(NamedTuple):
    """One saved form of an estimator's fitted state."""

    #: The attributes, in the order in which setting them (``setattr``) rebuilds a working model.
    attributes: tuple
    #: Whether they are the compact form (statistics without the dense scikit-learn attributes).
    compact: bool


def saved_form(cls, names):
    """The :class:`SavedForm` of estimator class ``cls`` whose attributes are ``names``, or None when they are
    none of its forms (``observed_count_``, when present, is set first: setters derive statistics from it)."""
    names = set(names)
    if cls._compact_attributes and names == set(cls._compact_attributes):
        return SavedForm(tuple(cls._compact_attributes), True)
    observed = (OBSERVED_COUNT,) if cls._keeps_observed_count and OBSERVED_COUNT in names else ()
    if names == set(cls._fitted_attributes) | set(observed):
        return SavedForm(observed + tuple(cls._fitted_attributes), False)
    return None


def changed_since_fit(model):
    """{name: value at the last fit} of the parameters that the model's fitted state derives from (its
    ``_fit_params``, keyed by parameter name) and that a ``set_params`` has changed since: it takes effect at the
    next fit, so a model file stores these values beside the parameters, and the loaded model derives its
    tables as this one does."""
    current = model.get_params(deep=False)
    return {name: value for name, value in (model._fit_params or {}).items()
            if name in current and not same_value(value, current[name])}


def check_count_model_values(model, *, log_probabilities=False):
    """A count model's stored values: a normalized ``class_log_prior_``, the ``feature_log_prob_`` it stores
    (``log_probabilities``: when it holds log-probabilities, and the model stores it rather than deriving it from
    compact counts) and the scoring table and bias derived from them."""
    check_normalized_log_prior(model.class_log_prior_, "class_log_prior_")
    if log_probabilities and "feature_log_prob_" in model._saved_attributes():
        check_log_probability_tables(model.feature_log_prob_)
    check_scoring_terms(model)


def check_log_probability_tables(tables):
    """``feature_log_prob_``: one table, or CategoricalNB's list of one (n_classes, n_categories) table per
    feature, checked at once (a loop over 100,000 small tables costs more than the load), the first bad one
    named."""
    if not isinstance(tables, list):
        check_log_probabilities(tables, "feature_log_prob_")
        return
    try:
        check_log_probabilities(np.concatenate(tables, axis=1), "feature_log_prob_")
    except ValueError:
        for j, table in enumerate(tables):
            check_log_probabilities(table, f"feature_log_prob_[{j}]")
        raise


def check_scoring_terms(model):
    """A linear model's scoring table (derived from its statistics and parameters): every entry finite, and its
    per-class bias."""
    table, bias = model._linear_terms()[:2]
    for values in as_table(table).arrays():
        check_table_values(values, f"the scoring table {type(model).__name__} derives from its statistics and "
                                   "parameters")
    check_scoring_bias(bias, "the per-class scoring bias")
