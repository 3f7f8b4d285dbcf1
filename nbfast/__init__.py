"""nbfast: high-performance Naive Bayes for count data.

Drop-in replacements for scikit-learn's ``sklearn.naive_bayes`` estimators,
computed by OpenMP Cython kernels directly on scipy CSR matrices, and the
decision layer, persistence and scale tools built on them.
"""

from nbfast._patch import patch_sklearn, unpatch_sklearn
from nbfast._version import __version__
from nbfast.decision import decide, fuse, predict_with_reject, shift_prior, with_prior
from nbfast.interop import from_sklearn
from nbfast.linear import to_linear
from nbfast.merge import merge
from nbfast.naive_bayes import (
    BernoulliNB,
    CategoricalNB,
    ComplementNB,
    GaussianNB,
    MixedNB,
    MultinomialNB,
    PoissonNB,
)
from nbfast.persist import ModelFormatError, load, save

__all__ = [
    "BernoulliNB",
    "CategoricalNB",
    "ComplementNB",
    "GaussianNB",
    "MixedNB",
    "ModelFormatError",
    "MultinomialNB",
    "PoissonNB",
    "__version__",
    "decide",
    "from_sklearn",
    "fuse",
    "load",
    "merge",
    "patch_sklearn",
    "predict_with_reject",
    "save",
    "shift_prior",
    "to_linear",
    "unpatch_sklearn",
    "with_prior",
]


def __getattr__(name):
    # nbfast.text is imported on first use: its kernels build a Unicode table
    if name == "text":
        import importlib

        return importlib.import_module("nbfast.text")
    raise AttributeError(f"module 'nbfast' has no attribute {name!r}")
