"""The values a model file may hold: fitted numbers that give finite posteriors, checked on every loaded model.

The estimators check that a rebuilt model's attributes agree with each other
(shapes, dtypes, counts); a file comes from a stranger, so its values must also
be ones a fit produces: finite log-probabilities, priors that sum to 1,
means and variances whose squares and logs are finite, and scoring tables (derived from the stored statistics and
the smoothing) whose every entry is finite.  Each estimator states which in its ``_check_stored_values`` hook
(abstract on the estimator contract, so none is left unchecked); this module applies it, and reads the attributes
an estimator declares as float64 (``_float64_attributes``) as float64.
"""

import numpy as np


def as_float64(cls, fitted):
    """The decoded fitted attributes of a ``cls`` model, those it declares float64 converted from another numeric
    dtype (an int, float16)."""
    for name in cls._float64_attributes:
        value = fitted.get(name)
        if isinstance(value, np.ndarray) and value.dtype.kind in "biuf" and value.dtype != np.float64:
            fitted[name] = value.astype(np.float64)
    return fitted


def check_loaded_values(model):
    """Refuse (ValueError naming the attribute) a rebuilt model whose fitted values no fit produces."""
    model._check_stored_values()
