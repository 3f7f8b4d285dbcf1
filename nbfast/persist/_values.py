"""The values a model file may hold: fitted numbers that give finite posteriors, checked on every loaded model.

The estimators check that a rebuilt model's attributes agree with each other
(shapes, dtypes, counts); a file comes from a stranger, so its values must also
be ones a fit produces: finite log-probabilities, priors that sum to 1,
means and variances whose squares and logs are finite, and scoring tables (derived from the stored statistics and
the smoothing) whose every entry is finite.  Each check is a function of
:mod:`nbfast._validation`; this module says which applies to which attribute.
"""

import numpy as np

from nbfast._validation import (
    check_class_prior,
    check_log_probabilities,
    check_means,
    check_normalized_log_prior,
    check_number_in_range,
    check_scoring_bias,
    check_table_values,
    check_variances,
)
from nbfast.naive_bayes import (
    BernoulliNB,
    CalibratedNB,
    CategoricalNB,
    MultinomialNB,
)
from nbfast.naive_bayes._calibrated import _RANGE as _TEMPERATURE_RANGE
from nbfast.naive_bayes._tables import as_table

#: Models whose ``feature_log_prob_`` holds log-probabilities (PoissonNB's holds log-rates, ComplementNB's
#: weights of either sign: their scoring tables are checked instead).
_LOG_PROBABILITY_MODELS = (MultinomialNB, BernoulliNB, CategoricalNB)
#: Log class priors a model may store as another numeric dtype (an int, float16): read as float64.
_FLOAT64_ATTRIBUTES = ("class_log_prior_",)


def as_float64(fitted):
    """The decoded fitted attributes with the log class prior as float64 (a table of another dtype would make
    the scores of that dtype, or fail to add to them)."""
    for name in _FLOAT64_ATTRIBUTES:
        value = fitted.get(name)
        if isinstance(value, np.ndarray) and value.dtype.kind in "biuf" and value.dtype != np.float64:
            fitted[name] = value.astype(np.float64)
    return fitted


def check_loaded_values(model):
    """Refuse (ValueError naming the attribute) a rebuilt model whose fitted values no fit produces."""
    stored = set(model._saved_attributes())
    if "class_log_prior_" in stored:
        check_normalized_log_prior(model.class_log_prior_, "class_log_prior_")
    if "class_prior_" in stored:
        check_class_prior(model.class_prior_, len(model.classes_), "class_prior_")
    if "var_" in stored:
        check_means(model.theta_, "theta_")
        check_variances(model.var_, "var_")
    if isinstance(model, _LOG_PROBABILITY_MODELS) and "feature_log_prob_" in stored:
        _check_log_probability_tables(model.feature_log_prob_)
    if model._linear:  # scored through a table per (feature, class) and a bias per class
        table, bias = model._linear_terms()[:2]
        for values in as_table(table).arrays():
            check_table_values(values, f"the scoring table {type(model).__name__} derives from its statistics and "
                                       "parameters")
        check_scoring_bias(bias, "the per-class scoring bias")
    if isinstance(model, CalibratedNB):
        model._check_cv()
        check_number_in_range(model.temperature_, "temperature_", 1 / _TEMPERATURE_RANGE * (1 - 1e-9),
                              _TEMPERATURE_RANGE * (1 + 1e-9))


def _check_log_probability_tables(tables):
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
