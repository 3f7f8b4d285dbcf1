"""Export a Naive Bayes model as a linear model ``X @ coef.T + intercept``.

Several Naive Bayes models have a joint log-likelihood that is linear in (a
fixed function of) x; exporting it as ``(coef, intercept)`` lets the model be
scored by any linear-model runtime (a database, a GPU, another language).
"""


from nbfast.naive_bayes._base import _BaseNB


def to_linear(model):
    """Coefficients and intercept of a fitted model's joint log-likelihood.

    ``X @ coef.T + intercept`` is, for each sample and class:

    - MultinomialNB, ComplementNB: the joint log-likelihood
      (``predict_joint_log_proba``): ``coef = feature_log_prob_`` (ComplementNB's
      weights), ``intercept = class_log_prior_`` (ComplementNB adds no prior
      with two classes or more: zeros).
    - BernoulliNB: the joint log-likelihood **on binarized X** (``X > binarize``,
      or X itself when ``binarize=None``), with the absent-feature terms folded
      into the intercept: ``coef[c, i] = log theta_ci - log(1 - theta_ci)`` and
      ``intercept[c] = log prior_c + sum_i log(1 - theta_ci)``.
    - PoissonNB: the joint log-likelihood plus the per-row term
      ``sum_i log(x_i!)`` (which does not depend on the class, so posteriors
      agree): ``jll = X @ coef.T + intercept - gammaln(X + 1).sum(axis=1)``
      with ``coef = log lambda`` and ``intercept = log prior - sum_i lambda``.
    - GaussianNB with ``variance="feature"``: the joint log-likelihood up to a
      per-row constant (the class-independent ``-sum_i x_i^2 / (2 var_i)``),
      so the posteriors agree.

    A parameter of exactly 0 (``alpha=0``) gives coefficients of -inf, and
    ``0 * -inf`` is NaN in a plain matrix product: keep ``alpha > 0`` to export.

    Parameters
    ----------
    model : fitted nbfast estimator

    Returns
    -------
    coef : ndarray of shape (n_classes, n_features)
    intercept : ndarray of shape (n_classes,)
        New arrays (float64): changing them does not change the model.

    Raises
    ------
    TypeError
        If the model is not an nbfast estimator whose joint log-likelihood is
        linear in x (CategoricalNB's depends on each feature's category, not
        linearly on its value).
    ValueError
        If this configuration of the model is not linear (GaussianNB with a
        variance per class).
    """
    if not isinstance(model, _BaseNB):
        raise TypeError(f"{type(model).__name__} is not an nbfast Naive Bayes estimator: no linear export.")
    return model.to_linear()
