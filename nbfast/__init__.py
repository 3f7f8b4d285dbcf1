"""nbfast: high-performance Naive Bayes for count data.

Drop-in replacements for scikit-learn's ``sklearn.naive_bayes`` estimators,
computed by OpenMP Cython kernels directly on scipy CSR matrices.
"""

from nbfast._categorical import CategoricalNB
from nbfast._discrete import BernoulliNB, ComplementNB, MultinomialNB, PoissonNB
from nbfast._patch import patch_sklearn, unpatch_sklearn

__version__ = "0.1.0"

__all__ = [
    "BernoulliNB",
    "CategoricalNB",
    "ComplementNB",
    "MultinomialNB",
    "PoissonNB",
    "__version__",
    "patch_sklearn",
    "unpatch_sklearn",
]
