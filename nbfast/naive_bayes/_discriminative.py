"""DiscriminativeNB: a Naive Bayes model whose linear form is refined to maximize the conditional likelihood.

Multinomial and complement Naive Bayes score a row by a linear form,
log p(y | x) = b_y + w_y . x + const(x).  Naive Bayes fits (w, b) by counting;
logistic regression fits the same form by maximizing the conditional
log-likelihood.  This model does the first, then the second starting from it
(Su et al. 2008; Zaidi et al. 2013), minimizing

    f(W, b) = sum_i s_i (logsumexp_c (b_c + x_i . w_c) - (b_{y_i} + x_i . w_{y_i}))
              + ||W - W_nb||^2 / (2 C) + ||b - b_nb||^2 / (2 C)      (anchor="nb")
    f(W, b) = (the same loss) + ||W||^2 / (2 C)                       (anchor="zero")

with s_i the sample weights, (W_nb, b_nb) the Naive Bayes weights centred over
the classes (the per-feature and overall means subtracted: the posteriors do not
change).  A small ``C`` gives back the Naive Bayes posteriors, a large one
logistic regression; ``anchor="zero"`` is exactly scikit-learn's
``LogisticRegression(C=C)`` (multinomial, L2, unpenalized intercept; with two
classes its binary ``LogisticRegression(C=2 * C)``), started from Naive Bayes.
The default solver is SGD started from Naive Bayes (:mod:`._sgd`, sparse steps:
only the weights of a row's features move); the exact one is L-BFGS with a strong Wolfe line search
(:mod:`._lbfgs`), each evaluation of f and its gradient one pass of the kernels of
:mod:`nbfast._kernels.discriminative`; f is divided by the total sample weight,
as scikit-learn does, and the solver works on parameters scaled by a fixed diagonal
preconditioner (:class:`_Objective`), its first step the Newton step of that
diagonal curvature.

It derives from the linear part of the estimator contract (:class:`_LinearNB`) for what it shares
with the linear Naive Bayes models: input checks, the fused scoring kernel
(``_linear_terms``), linear export, explanations and model files.  It has no
sufficient statistics: a refined model cannot be updated by ``partial_fit`` nor
merged with another, and both say so.
"""

import contextlib
import numbers
import warnings

import numpy as np

from nbfast import _compat
from nbfast import _sparse as sp
from nbfast._kernels import discriminative
from nbfast._kernels.threads import effective_n_threads
from nbfast._params import N_JOBS, Interval, StrOptions, checks_parameters, declare, uses_n_jobs
from nbfast._validation import _feature_names, check_sample_weight, check_X, check_y
from nbfast.naive_bayes import _lbfgs as lbfgs
from nbfast.naive_bayes import _sgd as sgd
from nbfast.naive_bayes._base import _LinearNB
from nbfast.naive_bayes._capabilities import NotIncremental
from nbfast.naive_bayes._discrete import ComplementNB, MultinomialNB
from nbfast.naive_bayes._labels import encode_labels, unique_classes
from nbfast.naive_bayes._stored import check_scoring_terms

#: The Naive Bayes model each value of the ``nb`` parameter starts from.
NB_MODELS = {"multinomial": MultinomialNB, "complement": ComplementNB}
#: What ``max_iter=None`` means for each solver: L-BFGS iterations, SGD epochs.
DEFAULT_MAX_ITER = {"lbfgs": 100, "sgd": 5}


def _centred(coef, intercept):
    """The same posteriors from weights whose every feature, and intercept, sums to zero over the classes."""
    return coef - coef.mean(axis=0), intercept - intercept.mean()


def _weighted_squares(X, sample_weight):
    """sum_i s_i X[i, j]^2 of each feature j, in float64 (float32 X squares past float32's range)."""
    with np.errstate(over="ignore"):  # an overflow gives inf, which _check_scale refuses
        squares = sp.csr_array(X).astype(np.float64, copy=False).power(2)
        return np.asarray(squares.T @ sample_weight, dtype=np.float64)


def _check_scale(X, sample_weight, C):
    """Refuse, before any work, inputs whose objective overflows float64: the solver would return NaN weights.

    The objective divides by the total weight, its penalty by C, and its curvature sums s_i x_ij^2."""
    with np.errstate(over="ignore", divide="ignore"):
        inverse_C, total = 1.0 / C, sample_weight.sum()
    if not np.isfinite(inverse_C):
        raise ValueError(f"C={C!r} is too small: 1/C overflows float64. Use C >= 1e-300.")
    if not np.isfinite(total):
        raise ValueError("the sample weights sum past the range of float64; rescale them (divide by their maximum).")
    if X.nnz and not np.all(np.isfinite(_weighted_squares(X, sample_weight))):
        raise ValueError(f"X holds values up to {np.abs(X.data).max():.3g}: weighted by sample_weight, their "
                         "squares overflow float64 (the objective's curvature); rescale X or sample_weight.")


class _Objective:
    """f and its gradient (the module docstring's objective divided by the total weight) at a flat x = [W, b].

    The solver sees the parameters scaled by the square root of their curvature, u = x * sqrt(h) (a diagonal
    preconditioner, fixed for the fit): h is the curvature of the loss at uniform posteriors, where a softmax
    output varies as (1/K)(1 - 1/K), so h[j, c] = (1/K)(1 - 1/K) sum_i s_i X[i, j]^2 + 1/C for a weight, and
    (1/K)(1 - 1/K) sum_i s_i (+ 1/C when penalized) for an intercept; divided by the intercept's, so that the
    intercepts keep their scale.  Rare features then take steps as large as frequent ones: L-BFGS needed 2 to 4
    times fewer passes to come near the optimum (docs/guide/accuracy.md).
    """

    def __init__(self, X, y_index, sample_weight, n_classes, C, anchor, penalize_intercept):
        self.X, self.y_index, self.sample_weight = X, y_index, sample_weight
        transposed = sp.csr_array(X.T)  # one row per feature: the weights' gradient is summed by row
        index_dtype = np.result_type(transposed.indices, transposed.indptr)
        self.Xt = (transposed.data, transposed.indices.astype(index_dtype, copy=False),
                   transposed.indptr.astype(index_dtype, copy=False))
        self.n_features, self.n_classes = X.shape[1], n_classes
        self.inverse_C, self.anchor, self.penalize_intercept = 1.0 / C, anchor, penalize_intercept
        self.scale = 1.0 / sample_weight.sum()
        self.residual = np.empty((X.shape[0], n_classes))
        self.block_sums = np.empty((discriminative.n_row_blocks(X.shape[0]), n_classes + 1))
        self.n_threads = effective_n_threads(X.nnz * n_classes)
        variance = (1.0 / n_classes) * (1.0 - 1.0 / n_classes)
        squares = _weighted_squares(X, sample_weight)
        intercept_curvature = variance * sample_weight.sum() + (self.inverse_C if penalize_intercept else 0.0)
        curvature = np.concatenate([np.repeat(variance * squares + self.inverse_C, n_classes),
                                    np.full(n_classes, intercept_curvature)])
        self.root_curvature = np.sqrt(curvature / intercept_curvature)
        # every parameter's curvature, scaled so, is the intercepts' (of f divided by the total weight)
        self.inverse_curvature_guess = 1.0 / (intercept_curvature * self.scale)
        # the vector work of each evaluation in buffers made once: the parameters, and W - W_anchor
        self.parameters = np.empty(curvature.shape[0])
        self.shift = np.empty((self.n_features, n_classes))

    def __call__(self, u):
        """f and its gradient with respect to the scaled parameters u (what the solver sees)."""
        loss, gradient = self.loss_and_gradient(np.divide(u, self.root_curvature, out=self.parameters))
        gradient /= self.root_curvature
        return loss, gradient

    def split(self, x):
        n_weights = self.n_features * self.n_classes
        return x[:n_weights].reshape(self.n_features, self.n_classes), x[n_weights:]

    def loss_and_gradient(self, x):
        """f and its gradient at the parameters x (contiguous float64)."""
        weights, intercept = self.split(x)
        loss = discriminative.softmax_residuals_csr(
            self.X.data, self.X.indices, self.X.indptr, self.y_index, self.sample_weight, weights, intercept,
            self.residual, self.block_sums, self.n_threads)
        gradient = np.empty_like(x)
        grad_weights, grad_intercept = self.split(gradient)
        discriminative.transposed_product_csr(*self.Xt, self.residual, grad_weights, self.n_threads)
        # the blocks added in one order, whatever the threads: their number depends on n_samples only
        grad_intercept[:] = self.block_sums[:, :-1].sum(axis=0)
        anchor_weights, anchor_intercept = self.split(self.anchor)
        shift = np.subtract(weights, anchor_weights, out=self.shift)
        loss += 0.5 * self.inverse_C * np.dot(shift.ravel(), shift.ravel())
        shift *= self.inverse_C
        grad_weights += shift
        if self.penalize_intercept:
            shift = intercept - anchor_intercept
            loss += 0.5 * self.inverse_C * np.dot(shift, shift)
            grad_intercept += self.inverse_C * shift
        gradient *= self.scale
        return loss * self.scale, gradient


class DiscriminativeNB(_LinearNB):
    """Naive Bayes refined by discriminative training: logistic regression started from, and pulled toward, NB.

    Fits a Naive Bayes model (``nb``), then moves its linear form
    ``jll = X @ coef_.T + intercept_`` to maximize the sample-weighted
    conditional log-likelihood with an L2 penalty of strength ``1 / C`` toward
    the Naive Bayes weights (``anchor="nb"``) or toward zero (``anchor="zero"``:
    scikit-learn's ``LogisticRegression(C=C)``, intercept unpenalized):

        sum_i s_i log p(y_i | x_i) - ||W - W_anchor||^2 / (2 C)  [ - ||b - b_nb||^2 / (2 C) when anchor="nb" ]

    A small ``C`` keeps the Naive Bayes posteriors, a large one reaches
    logistic regression.  Two solvers minimize it: ``solver="sgd"`` (the
    default) makes a few epochs of stochastic gradient descent, each a pass
    over X that touches only the weights of the features present in each row,
    O(nnz x n_classes) in all; ``solver="lbfgs"`` converges to the optimum
    (to ``tol``), each iteration a pass over X plus vector work over all
    n_features x n_classes weights, one or two dozen iterations at the default
    ``tol`` (see the user guide, "Accuracy", and performance.md for the
    accuracy and time of each on real text).

    Not applicable: ``partial_fit`` (the refined weights are no sum of
    per-batch statistics: fit on all rows), merging shard models
    (``nbfast.merge``), ``with_prior`` (no separate class prior: shift the
    posteriors with ``nbfast.shift_prior``) and ``to_sklearn``.

    Parameters
    ----------
    nb : {"multinomial", "complement"}, default="multinomial"
        The Naive Bayes model to start from (MultinomialNB or ComplementNB).
    alpha : float, default=1.0
        Its additive smoothing (positive: the weights must be finite).
    C : float, default=1.0
        Inverse strength of the penalty, as in scikit-learn's LogisticRegression.
    anchor : {"nb", "zero"}, default="nb"
        What the penalty pulls toward: the (centred) Naive Bayes weights and
        intercept, or zero weights with a free intercept (logistic regression).
    solver : {"sgd", "lbfgs"}, default="sgd"
        ``"sgd"``: ``max_iter`` epochs of stochastic gradient descent from
        the Naive Bayes weights, the rows in an order shuffled by a fixed seed
        (deterministic), the learning rate falling linearly to zero; fast, and
        near the optimum's accuracy, not at the optimum.  ``"lbfgs"``: L-BFGS
        to ``tol`` (the exact optimum, scikit-learn's LogisticRegression with
        ``anchor="zero"``).
    max_iter : int or None, default=None
        Most L-BFGS iterations, or the SGD epochs made; None: 100 iterations
        (L-BFGS) or 5 epochs (SGD).
    tol : float, default=1e-3
        Stop when an iteration lowers the objective f (divided by the total
        sample weight) by at most ``tol * max(|f|, 1)``, as scipy's L-BFGS-B
        ``ftol``, or when every entry of its gradient is at most ``tol``, the
        gradient taken with respect to the parameters scaled by the square root
        of their curvature relative to the intercepts' (a diagonal
        preconditioner: see the user guide).  The default stops near the
        optimum's accuracy, not at the optimum: to reach it to many digits (to
        match scikit-learn's LogisticRegression) use a ``tol`` near 1e-14.
        L-BFGS only: SGD makes its ``max_iter`` epochs.
    learning_rate : float, default=1.0
        SGD only: the first epoch's step size, relative to the rows' mean
        weighted squared norm (unit-norm tf-idf rows take steps of
        ``learning_rate``); it falls linearly to zero at the last epoch.

    Attributes
    ----------
    coef_ : ndarray of shape (n_classes, n_features)
        The weights (a read-only view of the scoring table).
    intercept_ : ndarray of shape (n_classes,)
    n_iter_ : int
        L-BFGS iterations or SGD epochs of the last fit (not stored in model files).
    classes_ : ndarray of shape (n_classes,)
    n_features_in_ : int
    feature_names_in_ : ndarray of shape (``n_features_in_``,)
        Defined only when X has string column names.

    Examples
    --------
    >>> from nbfast import DiscriminativeNB
    >>> from nbfast.datasets import make_documents
    >>> X, y = make_documents(n_samples=2000, n_features=500, n_classes=3, random_state=0)
    >>> model = DiscriminativeNB(C=10.0).fit(X, y)
    >>> model.predict(X[:3]).shape
    (3,)
    """

    _fitted_attributes = ("classes_", "n_features_in_", "coef_", "intercept_")
    _non_negative = True  # at fit (the Naive Bayes start counts): scikit-learn's positive_only tag
    _parameter_constraints = declare({
        "nb": [StrOptions(set(NB_MODELS))],
        "alpha": [Interval(numbers.Real, 0, None, closed="neither")],
        "C": [Interval(numbers.Real, 0, None, closed="neither")],
        "anchor": [StrOptions({"nb", "zero"})],
        "solver": [StrOptions({"sgd", "lbfgs"})],
        "max_iter": [Interval(numbers.Integral, 1, None, closed="left"), None],
        "tol": [Interval(numbers.Real, 0, None, closed="left")],
        "learning_rate": [Interval(numbers.Real, 0, None, closed="neither")],
        **N_JOBS,
    })

    partial_fit = NotIncremental("Its weights are refined on all the rows together, not sums of per-batch "
                                 "statistics: fit it on all rows, or partial_fit and merge MultinomialNB or "
                                 "ComplementNB models.")

    def __init__(self, nb="multinomial", *, alpha=1.0, C=1.0, anchor="nb", solver="sgd", max_iter=None, tol=1e-3,
                 learning_rate=1.0, n_jobs=None):
        self.nb = nb
        self.n_jobs = n_jobs
        self.alpha = alpha
        self.C = C
        self.anchor = anchor
        self.solver = solver
        self.max_iter = max_iter
        self.tol = tol
        self.learning_rate = learning_rate

    def _check_X(self, X, reset):
        # the Naive Bayes start counts, so fit refuses negative values; the refined linear form scores any
        return check_X(X, self, reset=reset, non_negative=reset)

    # ------------------------------------------------------------ fitted state
    @property
    def coef_(self):
        return self._table.T

    @coef_.setter
    def coef_(self, value):
        value = np.asarray(value)
        table = np.ascontiguousarray(value.T, dtype=np.float64) if value.dtype.kind in "biuf" else value.T
        table.flags.writeable = False
        self._table = table
        self._forget_derived()

    @classmethod
    def _fitted_shapes(cls, fitted, n_classes, n_features):
        return {"coef_": (n_classes, n_features), "intercept_": (n_classes,)}

    def _validate_fitted(self):
        n_classes, n_features = len(self.classes_), self.n_features_in_
        for name, shape in self._fitted_shapes({}, n_classes, n_features).items():
            if np.shape(getattr(self, name)) != shape:
                raise ValueError(f"{name} has shape {np.shape(getattr(self, name))}, expected {shape}.")

    # ---------------------------------------------------------------- fitting
    @checks_parameters()
    def fit(self, X, y, sample_weight=None):
        """Fit the Naive Bayes model, then refine its weights.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Training vectors (non-negative: counts or tf-idf).
        y : array-like of shape (n_samples,)
        sample_weight : array-like of shape (n_samples,), default=None
            Weights of the rows, in the counts and in the likelihood.

        Returns
        -------
        self : object
            A call that raises leaves the estimator unchanged.
        """
        feature_names = _feature_names(X)
        X = self._check_X(X, reset=True)
        y = check_y(y, X.shape[0])
        weights = check_sample_weight(sample_weight, X.shape[0])
        classes = unique_classes(y)
        y_index = encode_labels(classes, y)
        if weights is not None:
            unweighted = np.bincount(y_index, weights=weights, minlength=len(classes)) == 0
            if unweighted.any():
                raise ValueError(f"DiscriminativeNB needs rows of positive weight in every class of y: class(es) "
                                 f"{classes[unweighted].tolist()} have none.")
        _check_scale(X, np.ones(X.shape[0]) if weights is None else weights, float(self.C))
        start = NB_MODELS[self.nb](alpha=self.alpha).fit(X, y, sample_weight=weights)
        coef, intercept = _centred(*start.to_linear())
        if weights is None:
            weights = np.ones(X.shape[0])
        x0 = np.concatenate([coef.T.ravel(), intercept])
        if len(classes) == 1:  # a single class has posterior 1 whatever the weights: nothing to refine
            x, n_iter = x0, 0
        else:
            anchor = x0 if self.anchor == "nb" else np.zeros_like(x0)
            if self.solver == "sgd":
                result = sgd.minimize(X, y_index, weights, len(classes), float(self.C), x0, anchor,
                                      self.anchor == "nb", epochs=self._max_iter(),
                                      learning_rate=float(self.learning_rate))
                x, n_iter = result.x, result.n_iter
            else:
                objective = _Objective(X, y_index, weights, len(classes), float(self.C), anchor,
                                       penalize_intercept=self.anchor == "nb")
                result = self._minimize(objective, x0 * objective.root_curvature)
                x, n_iter = result.x / objective.root_curvature, result.n_iter
        if not np.all(np.isfinite(x)):  # never a model of NaN weights: refused, the model left as it was
            raise ValueError("DiscriminativeNB's fit overflowed float64 (weights not finite): X, sample_weight or "
                             "C are too large or too small; rescale X or sample_weight, or bring C nearer 1.")
        n_weights = X.shape[1] * len(classes)
        table, intercept = x[:n_weights].reshape(X.shape[1], len(classes)), x[n_weights:]
        self.classes_ = classes
        self.n_features_in_ = X.shape[1]
        if feature_names is not None:
            self.feature_names_in_ = feature_names
        elif hasattr(self, "feature_names_in_"):
            del self.feature_names_in_
        self.coef_ = table.T
        self.intercept_ = intercept.copy()
        self.n_iter_ = n_iter
        return self

    def _minimize(self, objective, x0):
        # The solver's own work is vector operations on BLAS: one thread does them, and BLAS threads left
        # spinning beside the kernels' would take their cores (a fit ran 7x slower on 2 cores).
        threadpoolctl = _compat.threadpoolctl_if_installed()
        with contextlib.nullcontext() if threadpoolctl is None else threadpoolctl.threadpool_limits(1, "blas"):
            result = lbfgs.minimize(objective, x0, max_iter=self._max_iter(), gtol=self.tol,
                                    ftol=max(self.tol, 64 * np.finfo(np.float64).eps),
                                    inverse_curvature_guess=objective.inverse_curvature_guess)
        if not result.converged:
            warnings.warn(f"DiscriminativeNB did not converge in {result.n_iter} iterations ({result.message}); "
                          "increase max_iter or tol.", _compat.ConvergenceWarning, stacklevel=3)
        return result

    def _max_iter(self):
        """The iterations (L-BFGS) or epochs (SGD) to make: ``max_iter``, or the solver's default."""
        return int(self.max_iter) if self.max_iter is not None else DEFAULT_MAX_ITER[self.solver]

    # ---------------------------------------------------------------- scoring
    def _linear_terms(self):
        return self._table, np.asarray(self.intercept_, dtype=np.float64), False, 0.0

    def _log_prior(self):
        """No separate class prior: the intercept (what the scoring bias is checked against)."""
        return np.asarray(self.intercept_, dtype=np.float64)

    def _set_log_prior(self, log_prior):
        raise TypeError("DiscriminativeNB has no separate class prior to replace: shift its posteriors with "
                        "nbfast.shift_prior.")

    def _uses_class_prior(self):
        return False

    @uses_n_jobs
    def decision_function(self, X):
        """The linear scores ``X @ coef_.T + intercept_``, as scikit-learn's LogisticRegression gives them.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)

        Returns
        -------
        scores : ndarray of shape (n_samples, n_classes), or (n_samples,) with two classes
            With two classes, the log-odds of the second class against the first.
        """
        scores = self.predict_joint_log_proba(X)
        return scores[:, 1] - scores[:, 0] if scores.shape[1] == 2 else scores

    def to_sklearn(self):
        """Not applicable: scikit-learn has no such Naive Bayes model (its linear form is :meth:`to_linear`)."""
        raise TypeError("DiscriminativeNB has no scikit-learn Naive Bayes equivalent; export its weights with "
                        "to_linear() (a LogisticRegression's coef_ and intercept_).")

    def _check_stored_values(self):
        """Its scoring table and bias (``coef_`` and ``intercept_``)."""
        check_scoring_terms(self)
