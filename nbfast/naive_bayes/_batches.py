"""Fitting on a stream of batches read once: the command line's blocks of a file."""

from nbfast._kernels.threads import n_jobs_limit
from nbfast._params import check_parameters
from nbfast._validation import check_labels, check_y
from nbfast.naive_bayes._labels import encode_labels, unique_classes


class BatchFit:
    """``fit`` of a statistics estimator on the rows of batches added one at a time (memory: one batch).

    The statistics grow at the cost of each batch's entries, and the parameters are derived once, by
    :meth:`finish`, where ``partial_fit`` checks and derives the whole table after every batch.  The estimator
    is changed only by :meth:`finish`: a batch that raises leaves it as it was.

    Parameters
    ----------
    estimator : an unfitted estimator whose statistics add up over batches (:meth:`fits`)
    classes : array-like
        Every class the batches' labels may hold.
    """

    @staticmethod
    def fits(estimator):
        """Whether the statistics of ``estimator`` are sums over rows, counted in batch by batch alike
        (``_additive_stats``): GaussianNB's ``epsilon_`` comes from its first batch, so its later batches
        depend on the fitted state, and it learns batch by batch with ``partial_fit`` alone."""
        return getattr(estimator, "_additive_stats", False)

    def __init__(self, estimator, classes):
        if not self.fits(estimator):
            raise TypeError(f"{type(estimator).__name__} does not fit from batches alone; use partial_fit")
        check_parameters(estimator)
        self._estimator, self._classes = estimator, unique_classes(check_labels(classes))
        self._stats = self._n_features = self._params = None

    def add(self, X, y):
        """Count the rows of X (labels y) in, with the estimator's ``n_jobs``."""
        self.add_checked(*self.checked(X, y))

    def checked(self, X, y):
        """(X, the indices of its labels y among the classes), validated for :meth:`add_checked`.  The
        estimator is only read, so other threads may check the next batches while one adds."""
        X = self._estimator._check_X(X, reset=True)  # X alone: the estimator is not fitted yet
        return X, encode_labels(self._classes, check_y(y, X.shape[0]))

    def add_checked(self, X, y_index):
        """Count in the rows of a batch :meth:`checked` made, with the estimator's ``n_jobs``."""
        with n_jobs_limit(self._estimator.n_jobs):
            self._add(X, y_index)

    def _add(self, X, y_index):
        estimator = self._estimator
        if self._stats is None:
            self._n_features = X.shape[1]
            self._params = estimator._validate_params(self._n_features, len(self._classes))
            self._stats = estimator._init_stats(len(self._classes), self._n_features)
        elif X.shape[1] != self._n_features:
            raise ValueError(f"X has {X.shape[1]} features, but the earlier batches have {self._n_features}")
        estimator._accumulate(self._stats, X, y_index, None)

    def finish(self):
        """The estimator fitted on every batch added; no batch is a ValueError."""
        if self._stats is None:
            raise ValueError("no batches to fit on")
        return self._estimator._fit_statistics(self._stats, self._classes, self._n_features, self._params)
