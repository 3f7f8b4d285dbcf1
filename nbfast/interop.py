"""Two-way conversion between fitted nbfast estimators and scikit-learn's naive_bayes.

Generic over the estimator contract: classes correspond by name
(``nbfast.MultinomialNB`` <-> ``sklearn.naive_bayes.MultinomialNB``, and so on),
parameters are carried over by name, and the fitted state is the nbfast class's
``_fitted_attributes`` (which, for the scikit-learn equivalents, are
scikit-learn's own attribute names) plus ``feature_names_in_``.  Every array is
copied: the two models never share memory.  ``to_sklearn`` is also the
estimators' method ``model.to_sklearn()``.
"""

from nbfast._validation import rebuild
from nbfast.naive_bayes import ESTIMATORS
from nbfast.naive_bayes._sklearn import carry_params, copy_value, fitted_state, sklearn_estimator, to_sklearn

__all__ = ["from_sklearn", "to_sklearn"]


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
    source = type(estimator)
    if sklearn_estimator(source.__name__) is not source:
        raise TypeError(f"from_sklearn expects an estimator from sklearn.naive_bayes, got {source.__qualname__}.")
    target = ESTIMATORS.get(source.__name__)
    if target is None:
        raise TypeError(f"nbfast has no equivalent of scikit-learn's {source.__name__}.")
    params = carry_params(estimator.get_params(deep=False), source, target)
    fitted = fitted_state(estimator, target._fitted_attributes)
    feature_names = vars(estimator).get("feature_names_in_")
    return rebuild(target, params, fitted, None if feature_names is None else copy_value(feature_names))
