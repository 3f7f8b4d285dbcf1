"""Every optional dependency in one place: flags, stand-ins, and a loader that names the extra to install.

nbfast needs only numpy and scipy.  With scikit-learn, its estimators are real
scikit-learn estimators (clone, Pipeline, GridSearchCV, check_estimator);
without it, ``import nbfast`` and fit/predict still work on the stand-ins
below.  Dask, tqdm, threadpoolctl and matplotlib are loaded by :func:`require`
(or :func:`optional`) where a feature needs them, never at import time.
"""

import importlib
import inspect

import numpy as np


class MissingDependency(ImportError):
    """An optional dependency that a feature needs is not installed; the message says how to install it."""


def optional(module):
    """The module when it can be imported, else None."""
    try:
        return importlib.import_module(module)
    except ImportError:
        return None


def require(module, extra, purpose):
    """Import an optional dependency of ``purpose``, or raise :class:`MissingDependency` naming the extra.

    Parameters
    ----------
    module : str
        The module to import, for example ``"dask.array"``.
    extra : str
        The nbfast extra that installs it (``pip install 'nbfast[extra]'``).
    purpose : str
        What needs it, for the message: ``"nbfast.dask"``, ``"--plot"``, ...
    """
    try:
        return importlib.import_module(module)
    except ImportError:
        package = module.partition(".")[0]
        raise MissingDependency(f"{purpose} needs {package}, which is not installed: pip install 'nbfast[{extra}]'") from None


def pyplot(purpose):
    """matplotlib.pyplot on the non-interactive Agg backend (files only), or MissingDependency."""
    require("matplotlib", "plot", purpose).use("Agg")
    return importlib.import_module("matplotlib.pyplot")


HAVE_SKLEARN = optional("sklearn") is not None

if HAVE_SKLEARN:
    from sklearn import get_config
    from sklearn.base import BaseEstimator, ClassifierMixin, clone
    from sklearn.exceptions import DataConversionWarning, NotFittedError
    from sklearn.utils.metaestimators import _BaseComposition
    from sklearn.utils.multiclass import check_classification_targets
else:  # pragma: no cover - exercised in the no-sklearn CI job

    class NotFittedError(ValueError, AttributeError):
        """Raised when an estimator is used before it is fitted."""

    class DataConversionWarning(UserWarning):
        """Warning used to notify implicit data conversions happening in the code."""

    class BaseEstimator:
        """Parameter handling in the scikit-learn convention (get_params/set_params)."""

        @classmethod
        def _get_param_names(cls):
            signature = inspect.signature(cls.__init__)
            return sorted(
                name
                for name, p in signature.parameters.items()
                if name != "self" and p.kind != p.VAR_KEYWORD
            )

        def get_params(self, deep=True):
            return {name: getattr(self, name) for name in self._get_param_names()}

        def set_params(self, **params):
            valid = self._get_param_names()
            for name, value in params.items():
                if name not in valid:
                    raise ValueError(f"Invalid parameter {name!r} for estimator {type(self).__name__}.")
                setattr(self, name, value)
            return self

        def __repr__(self):
            args = ", ".join(f"{k}={v!r}" for k, v in self.get_params().items())
            return f"{type(self).__name__}({args})"

    class ClassifierMixin:
        """Mean accuracy as the default score."""

        _estimator_type = "classifier"

        def score(self, X, y, sample_weight=None):
            return float(np.average(self.predict(X) == np.asarray(y), weights=sample_weight))

    def check_classification_targets(y):
        """Refuse continuous targets: a classifier needs discrete labels."""
        y = np.asarray(y)
        if y.dtype.kind == "f" and not np.all(np.mod(y, 1) == 0):
            raise ValueError("Unknown label type: continuous. Classification needs discrete class labels.")

    class _BaseComposition(BaseEstimator):
        """Nested parameters ``name__param`` of named parts, as scikit-learn's _BaseComposition."""

        def _get_params(self, attr, deep=True):
            out = super().get_params(deep=deep)
            for name, estimator in (getattr(self, attr) or []) if deep else []:
                out[name] = estimator
                out.update({f"{name}__{key}": value for key, value in estimator.get_params(deep=True).items()})
            return out

        def _set_params(self, attr, **params):
            named = dict(getattr(self, attr) or [])
            replaced = {key: params.pop(key) for key in list(params) if key in named}
            if replaced:
                setattr(self, attr, [(name, replaced.get(name, estimator)) for name, estimator in named.items()])
            for key in list(params):
                name, _, param = key.partition("__")
                if param and name in named:
                    named[name].set_params(**{param: params.pop(key)})
            return super().set_params(**params)

    def clone(estimator):
        """An unfitted copy with the same parameters."""
        return type(estimator)(**estimator.get_params(deep=False))

    def get_config():
        """scikit-learn's configuration: none without scikit-learn."""
        return {}
