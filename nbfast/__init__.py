"""nbfast: high-performance Naive Bayes for count data.

Drop-in replacements for scikit-learn's ``sklearn.naive_bayes`` estimators,
computed by OpenMP Cython kernels directly on scipy CSR matrices.
"""

from nbfast._discrete import BernoulliNB, MultinomialNB
from nbfast.decision import decide, fuse, predict_with_reject, shift_prior, with_prior
from nbfast.linear import to_linear
from nbfast.mixed import MixedNB

__version__ = "0.1.0"

__all__ = [
    "BernoulliNB",
    "MixedNB",
    "MultinomialNB",
    "__version__",
    "decide",
    "fuse",
    "predict_with_reject",
    "shift_prior",
    "to_linear",
    "with_prior",
]
