"""scikit-learn's estimator bases when it is installed, minimal stand-ins when not.

With scikit-learn, nbfast estimators are real scikit-learn estimators (clone,
Pipeline, GridSearchCV, check_estimator).  Without it, ``import nbfast`` and
fit/predict still work.
"""

import inspect

import numpy as np

try:
    import sklearn  # noqa: F401
except ImportError:  # pragma: no cover - exercised in the no-sklearn CI job
    HAVE_SKLEARN = False
else:
    HAVE_SKLEARN = True

if HAVE_SKLEARN:
    from sklearn.base import BaseEstimator, ClassifierMixin
    from sklearn.exceptions import NotFittedError
    from sklearn.utils.multiclass import check_classification_targets
else:  # pragma: no cover - exercised in the no-sklearn CI job

    class NotFittedError(ValueError, AttributeError):
        """Raised when an estimator is used before it is fitted."""

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
