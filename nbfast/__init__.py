"""nbfast: high-performance Naive Bayes for count data.

Drop-in replacements for scikit-learn's ``sklearn.naive_bayes`` estimators,
computed by OpenMP Cython kernels directly on scipy CSR matrices.
"""

from nbfast._discrete import BernoulliNB, MultinomialNB
from nbfast._gaussian import GaussianNB

__version__ = "0.1.0"

__all__ = ["BernoulliNB", "GaussianNB", "MultinomialNB", "__version__"]
