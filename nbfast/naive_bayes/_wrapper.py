"""What the composites wrapping one fitted estimator share (CalibratedNB, SemiSupervisedNB).

Such a model holds its fitted estimator in ``estimator_`` and answers the
contract's hooks (input checks, the class prior, linear export) by handing
them to it; each subclass says how it fits and what it changes in the scores.
"""

import numpy as np

from nbfast._params import uses_n_jobs
from nbfast._validation import check_is_fitted
from nbfast.naive_bayes._base import _BaseNB
from nbfast.naive_bayes._discrete import MultinomialNB


class _WrapperNB(_BaseNB):
    """A Naive Bayes model built around one other fitted estimator, ``estimator_`` (MultinomialNB by default)."""

    _composite = True

    def _base_estimator(self):
        """The ``estimator`` parameter (checked), or a MultinomialNB when it is None."""
        if self.estimator is None:
            return MultinomialNB()
        if not isinstance(self.estimator, _BaseNB):
            raise TypeError(f"estimator must be an nbfast Naive Bayes estimator, got {type(self.estimator).__name__}.")
        return self.estimator

    def _install_estimator(self, model):
        """Make the fitted ``model`` this one's estimator: its classes, features and feature names."""
        self.estimator_ = model
        self.classes_ = model.classes_
        self.n_features_in_ = model.n_features_in_
        names = vars(model).get("feature_names_in_")
        if names is not None:
            self.feature_names_in_ = names
        elif hasattr(self, "feature_names_in_"):
            del self.feature_names_in_

    # ------------------------------------------------------------ contract
    def _validate_fitted(self):
        if not isinstance(self.estimator_, _BaseNB):
            raise ValueError("estimator_ must be a fitted nbfast Naive Bayes estimator.")
        if not np.array_equal(self.estimator_.classes_, self.classes_) or (
                self.estimator_.n_features_in_ != self.n_features_in_):
            raise ValueError("classes_ and n_features_in_ must be those of estimator_.")

    def _check_X(self, X, reset):
        return self.estimator_._check_X(X, reset=False)

    @uses_n_jobs
    def predict_joint_log_proba(self, X):
        """The underlying model's joint log-likelihood log P(x, y).

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)

        Returns
        -------
        C : ndarray of shape (n_samples, n_classes)
        """
        check_is_fitted(self)
        return self.estimator_.predict_joint_log_proba(X)

    def _log_prior(self):
        return self.estimator_._log_prior()

    def _set_log_prior(self, log_prior):
        self.estimator_._set_log_prior(log_prior)

    def _set_prior_param(self, prior):
        """The prior parameter of the fitted estimator, and of the ``estimator`` parameter when one is given (None
        stands for a default model): a refit of either keeps the new prior."""
        self.estimator_._set_prior_param(prior.copy())
        if self.estimator is not None:
            self.estimator._set_prior_param(prior.copy())

    def _uses_class_prior(self):
        return self.estimator_._uses_class_prior()

    def _linear_export(self):
        return self.estimator_._linear_export()

    def _linear_in_binarized_x(self):
        return self.estimator_._linear_in_binarized_x()

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        base = self._base_estimator().__sklearn_tags__().input_tags
        tags.input_tags.sparse, tags.input_tags.positive_only = base.sparse, base.positive_only
        return tags
