"""nbfast: high-performance Naive Bayes for count data.

Drop-in replacements for scikit-learn's ``sklearn.naive_bayes`` estimators,
computed by OpenMP Cython kernels directly on scipy CSR matrices, and the
decision layer, persistence and scale tools built on them.

The package is layered, one layer a folder or module, and imports only go
down (``tests/test_architecture.py`` checks it, function-level imports
included, and that no import circle exists).  The layers are listed once, in
``nbfast/_layers.py``; from the bottom up:

1. ``_version``, ``_layers``, ``_compat``, ``_sparse``, ``_kernels`` and
   ``_params``: the version, the list of layers, every optional dependency,
   scipy.sparse imported when first used (and the kernels' own CSR rows), the
   Cython kernels, how estimators and vectorizers declare and check their
   parameters;
2. ``_validation``: the one gate before the kernels;
3. ``naive_bayes``, ``text`` and ``datasets``: the estimators (their contract
   in ``naive_bayes/_base.py``, the registry ``naive_bayes.ESTIMATORS``), the
   vectorizers, synthetic data;
4. ``decision``, ``linear``, ``merge``, ``interop``, ``_patch``,
   ``calibration``, ``evaluation`` and ``explanation``: operations on fitted
   models;
5. ``persist``, ``readers`` and ``_model_input``: model files, chunked file
   readers, and a block of rows as a model's input;
6. ``dask`` and ``spark``: front ends that run nbfast on a cluster;
7. ``nbfast``: this module, the public names, each imported on first use;
8. ``cli`` and ``__main__``: the ``nbfast`` command, its benchmark harness
   under ``cli/bench``.
"""

import importlib
import os
import sys
import types

# Idle OpenMP threads of the kernels sleep instead of spinning (unless the environment chose otherwise). On a
# machine whose cores other work also uses, spinning threads take the time slices the working ones need: two
# threads then ran slower than one (docs/performance.md, "Threads on a shared machine"). Set before any kernel
# loads the OpenMP runtime, which reads it once.
os.environ.setdefault("OMP_WAIT_POLICY", "passive")

from nbfast._version import __version__

# Public name -> the module that defines it; imported on first use (PEP 562), so that `import nbfast` and
# `nbfast --version` cost about what importing numpy and scipy.sparse costs.
_PUBLIC = {
    "BernoulliNB": "nbfast.naive_bayes",
    "BernoulliNBCV": "nbfast.naive_bayes",
    "calibrate": "nbfast.calibration",
    "CalibratedNB": "nbfast.naive_bayes",
    "CategoricalNB": "nbfast.naive_bayes",
    "CategoricalNBCV": "nbfast.naive_bayes",
    "ComplementNB": "nbfast.naive_bayes",
    "ComplementNBCV": "nbfast.naive_bayes",
    "decide": "nbfast.decision",
    "DiscriminativeNB": "nbfast.naive_bayes",
    "evaluate": "nbfast.evaluation",
    "Evaluation": "nbfast.evaluation",
    "explain": "nbfast.explanation",
    "Explanation": "nbfast.explanation",
    "from_sklearn": "nbfast.interop",
    "fuse": "nbfast.decision",
    "GaussianNB": "nbfast.naive_bayes",
    "load": "nbfast.persist",
    "merge": "nbfast.merge",
    "MixedNB": "nbfast.naive_bayes",
    "ModelFormatError": "nbfast.persist",
    "MultinomialNB": "nbfast.naive_bayes",
    "MultinomialNBCV": "nbfast.naive_bayes",
    "patch_sklearn": "nbfast._patch",
    "PoissonNB": "nbfast.naive_bayes",
    "PoissonNBCV": "nbfast.naive_bayes",
    "predict_with_reject": "nbfast.decision",
    "save": "nbfast.persist",
    "SemiSupervisedNB": "nbfast.naive_bayes",
    "shift_prior": "nbfast.decision",
    "to_linear": "nbfast.linear",
    "top_features": "nbfast.explanation",
    "TopFeatures": "nbfast.explanation",
    "unpatch_sklearn": "nbfast._patch",
    "with_prior": "nbfast.decision",
}

__all__ = [
    "BernoulliNB",
    "BernoulliNBCV",
    "CalibratedNB",
    "CategoricalNB",
    "CategoricalNBCV",
    "ComplementNB",
    "ComplementNBCV",
    "DiscriminativeNB",
    "Evaluation",
    "Explanation",
    "GaussianNB",
    "MixedNB",
    "ModelFormatError",
    "MultinomialNB",
    "MultinomialNBCV",
    "PoissonNB",
    "PoissonNBCV",
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
    if name in _PUBLIC:
        value = getattr(importlib.import_module(_PUBLIC[name]), name)
        globals()[name] = value  # later reads skip this function
        return value
    if name == "text":
        return importlib.import_module("nbfast.text")
    raise AttributeError(f"module 'nbfast' has no attribute {name!r}")


def __dir__():
    return sorted(set(globals()) | set(__all__))


class _Package(types.ModuleType):
    """The ``nbfast`` module: importing a submodule never hides the public name it shares (``nbfast.merge``)."""

    def __setattr__(self, name, value):
        # the import system sets each imported submodule as an attribute of its package
        if not (name in _PUBLIC and isinstance(value, types.ModuleType)):
            super().__setattr__(name, value)


sys.modules[__name__].__class__ = _Package
