"""nbfast: high-performance Naive Bayes for count data.

Drop-in replacements for scikit-learn's ``sklearn.naive_bayes`` estimators,
computed by OpenMP Cython kernels directly on scipy CSR matrices, and the
decision layer, persistence and scale tools built on them.

The package is layered, one layer a folder or module, and imports only go
down (``tests/test_architecture.py`` checks it, function-level imports
included, and that no import circle exists).  From the bottom up:

1. ``_version``, ``_compat`` (every optional dependency), ``_kernels`` (Cython);
2. ``_validation``: the one gate before the kernels;
3. ``naive_bayes`` (the estimators, their contract in ``naive_bayes/_base.py``
   and the registry ``naive_bayes.ESTIMATORS``), ``text`` (vectorizers),
   ``datasets``;
4. operations on fitted models: ``decision``, ``linear``, ``merge``,
   ``interop``, ``_patch``, ``evaluation``, ``explanation``;
5. ``persist`` (model files) and ``readers`` (chunked file readers);
6. ``dask``;
7. this module: the public names;
8. ``cli``: the ``nbfast`` command, its benchmark harness under ``cli/bench``.
"""

from nbfast._patch import patch_sklearn, unpatch_sklearn
from nbfast._version import __version__
from nbfast.calibration import calibrate
from nbfast.decision import decide, fuse, predict_with_reject, shift_prior, with_prior
from nbfast.evaluation import Evaluation, evaluate
from nbfast.explanation import Explanation, TopFeatures, explain, top_features
from nbfast.interop import from_sklearn
from nbfast.linear import to_linear
from nbfast.merge import merge
from nbfast.naive_bayes import (
    BernoulliNB,
    CalibratedNB,
    CategoricalNB,
    ComplementNB,
    GaussianNB,
    MixedNB,
    MultinomialNB,
    PoissonNB,
    SemiSupervisedNB,
)
from nbfast.persist import ModelFormatError, load, save

__all__ = [
    "BernoulliNB",
    "CalibratedNB",
    "CategoricalNB",
    "ComplementNB",
    "Evaluation",
    "Explanation",
    "GaussianNB",
    "MixedNB",
    "ModelFormatError",
    "MultinomialNB",
    "PoissonNB",
    "SemiSupervisedNB",
    "TopFeatures",
    "__version__",
    "calibrate",
    "decide",
    "evaluate",
    "explain",
    "from_sklearn",
    "fuse",
    "load",
    "merge",
    "patch_sklearn",
    "predict_with_reject",
    "save",
    "shift_prior",
    "to_linear",
    "top_features",
    "unpatch_sklearn",
    "with_prior",
]


def __getattr__(name):
    # nbfast.text is imported on first use: its kernels build a Unicode table
    if name == "text":
        import importlib

        return importlib.import_module("nbfast.text")
    raise AttributeError(f"module 'nbfast' has no attribute {name!r}")
